//! The core built without its optional layout families and without
//! `compression` (what a small firmware picks): readers and writers refuse a
//! schema of a disabled family with `Error::UnsupportedType`, and compressed
//! input with the missing codec's error (`Error::Lz4CodecMissing`,
//! `Error::ZstdCodecMissing`), when they are created or meet it, never with
//! a panic; primitive and string streams still read.
//!
//! Compiled only when every optional family is off; the `test` stage of
//! scripts/test.sh runs it with
//! `cargo test -p alkaid --no-default-features --features alloc --test disabled_families`.
//! Reads the golden files (`$ALKAID_GOLDEN_DIR`, else `../shared/golden`
//! beside the repository, else `/work/shared/golden`).
#![cfg(not(any(
    feature = "dictionary",
    feature = "nested",
    feature = "union",
    feature = "views",
    feature = "run-end",
    feature = "compression"
)))]

use std::path::{Path, PathBuf};

use alkaid::array::Array;
use alkaid::buffer::SharedSlice;
use alkaid::datatypes::{DataType, Field, IndexType, Schema};
use alkaid::ipc::reader::{FileReader, IpcReadOptions, SliceStreamReader, StreamReader};
use alkaid::ipc::writer::{IpcWriteOptions, StreamWriter};
use alkaid::{Error, Global};

fn golden_dir() -> PathBuf {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    std::env::var_os("ALKAID_GOLDEN_DIR")
        .map(PathBuf::from)
        .into_iter()
        .chain([
            repo.join("../shared/golden"),
            PathBuf::from("/work/shared/golden"),
        ])
        .find(|c| c.join("cpp-21.0.0").is_dir())
        .expect("golden files: set ALKAID_GOLDEN_DIR")
}

fn golden(name: &str) -> Vec<u8> {
    let p = golden_dir().join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Every reader refuses the stream (or the file beside it) with
/// `UnsupportedType`.
fn refused(stem: &str) {
    refused_with(stem, Error::UnsupportedType);
}

/// Every reader refuses the stream (or the file beside it) with `want`.
fn refused_with(stem: &str, want: Error) {
    let stream = golden(&format!("{stem}.stream"));
    let e = SliceStreamReader::try_new_in(&stream, IpcReadOptions::default(), Global)
        .and_then(|mut r| r.next_batch().map(|_| ()))
        .unwrap_err();
    assert_eq!(e, want, "{stem}: SliceStreamReader");
    let e = StreamReader::try_new_in(stream.as_slice(), IpcReadOptions::default(), Global)
        .and_then(|mut r| r.next_batch().map(|_| ()))
        .unwrap_err();
    assert_eq!(e, want, "{stem}: StreamReader");
    let file = golden(&format!("{stem}.arrow_file"));
    let e = FileReader::try_new_in(&file, IpcReadOptions::default(), Global)
        .and_then(|mut r| r.batch(0).map(|_| ()))
        .unwrap_err();
    assert_eq!(e, want, "{stem}: FileReader");
}

#[test]
fn schemas_of_disabled_families_are_refused_by_the_readers() {
    for stem in [
        "cpp-21.0.0/generated_dictionary",
        "cpp-21.0.0/generated_nested",
        "cpp-21.0.0/generated_map",
        "cpp-21.0.0/generated_list_view",
        "cpp-21.0.0/generated_union",
        "cpp-21.0.0/generated_binary_view",
        "cpp-21.0.0/generated_run_end_encoded",
    ] {
        refused(stem);
    }
}

#[test]
fn compressed_bodies_are_refused_without_compression() {
    // The error names the codec that is missing.
    refused_with("2.0.0-compression/generated_lz4", Error::Lz4CodecMissing);
    refused_with("2.0.0-compression/generated_zstd", Error::ZstdCodecMissing);
}

#[test]
fn primitive_and_string_streams_still_read() {
    for stem in [
        "cpp-21.0.0/generated_primitive",
        "cpp-21.0.0/generated_binary",
    ] {
        let stream = golden(&format!("{stem}.stream"));
        let r = SliceStreamReader::try_new_in(&stream, IpcReadOptions::default(), Global).unwrap();
        let mut rows = 0;
        for b in r {
            let b = b.unwrap();
            assert!(b.columns().iter().all(|c| c.len() == b.num_rows()));
            rows += b.num_rows();
        }
        assert!(rows > 0, "{stem}");
    }
}

#[test]
fn the_writer_refuses_a_schema_of_a_disabled_family() {
    static UTF8: DataType<'static, Global> = DataType::Utf8;
    let dict = DataType::Dictionary(
        IndexType::Int32,
        alkaid::buffer::SharedBox::borrowed(&UTF8),
        false,
    );
    for dt in [dict, DataType::BinaryView, DataType::Utf8View] {
        let fields = SharedSlice::try_from_iter_in([Field::new("c", dt, true)], Global).unwrap();
        let schema = Schema::new(fields);
        let e = StreamWriter::try_new_in(Vec::new(), &schema, IpcWriteOptions::default(), Global)
            .unwrap_err();
        assert_eq!(e, Error::UnsupportedType);
    }
}
