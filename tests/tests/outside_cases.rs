//! Inputs found from outside the project (`tests/data/outside/`, copies of
//! the cases the shared folder lists), each read by our stream readers with
//! the verdict pyarrow 26 gives it:
//!
//! - `F1-nested-nonnull-map.bin`: a map whose non-nullable values hold nulls
//!   where the entry is valid. pyarrow reads it (and `validate(full=True)`
//!   passes); arrow-rs's `validate_full` refuses it. Read by default, refused
//!   at `ValidationLevel::Strict`.
//! - `F3-vtable-table-size.bin`: a schema whose Field vtable declares a table
//!   size past the end of the message, every present field in bounds. Both
//!   references read it (their verifiers check fields, not the declared size).
//! - `F6-delta-without-base.bin`: the first dictionary batch for id 4 is a
//!   delta. Both references refuse it ("Dictionary with id 4 not found").
//! - `K1-metadata-key-without-value.bin`: a schema whose custom metadata
//!   entry has a key and no value (written by pyarrow, then the value's
//!   vtable entry zeroed). pyarrow refuses it ("Unexpected null field
//!   custom_metadata.value in flatbuffer-encoded metadata").

use std::path::PathBuf;

use alkaid::array::{RecordBatch, ValidationLevel};
use alkaid::ipc::reader::{IpcReadOptions, SliceStreamReader, StreamDecoder, StreamReader};
use alkaid::{Error, ErrorKind, Global};

fn case(name: &str) -> Vec<u8> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("data/outside")
        .join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The batches of a stream read by `SliceStreamReader`, `StreamReader` and
/// `StreamDecoder` (fed the whole input) with `opts`; the three must give
/// the same batches or the same error.
fn read(bytes: &[u8], opts: IpcReadOptions) -> Result<Vec<RecordBatch<'_, Global>>, Error> {
    let slice: Result<Vec<_>, Error> =
        SliceStreamReader::try_new_in(bytes, opts, Global).and_then(|r| r.collect());
    let stream: Result<Vec<_>, Error> =
        StreamReader::try_new_in(bytes, opts, Global).and_then(|mut r| {
            let mut v = Vec::new();
            while let Some(b) = r.next_batch()? {
                v.push(b);
            }
            Ok(v)
        });
    let pushed: Result<Vec<_>, Error> = (|| {
        let mut d = StreamDecoder::try_new_in(opts, Global)?;
        let mut input = alkaid::buffer::Buffer::from_slice_ref(bytes);
        let mut v = Vec::new();
        while !input.is_empty() && !d.is_finished() {
            if let Some(b) = d.decode(&mut input)? {
                v.push(b);
            }
        }
        d.finish()?;
        Ok(v)
    })();
    let kinds = |r: &Result<Vec<_>, Error>| r.as_ref().map(Vec::len).map_err(Error::kind);
    assert_eq!(
        kinds(&slice),
        kinds(&stream),
        "SliceStreamReader / StreamReader"
    );
    assert_eq!(
        kinds(&slice),
        kinds(&pushed),
        "SliceStreamReader / StreamDecoder"
    );
    slice
}

fn strict() -> IpcReadOptions {
    IpcReadOptions::default().with_strict_validation()
}

#[test]
fn nulls_in_a_non_nullable_map_value_read_by_default_and_refused_when_strict() {
    let bytes = case("F1-nested-nonnull-map.bin");
    let batches = read(&bytes, IpcReadOptions::default()).unwrap();
    assert_eq!(batches.len(), 1);
    assert_eq!(batches[0].num_rows(), 7);
    let e = batches[0].validate(ValidationLevel::Strict).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NullInNonNullableField);
    // Field 0 (the map), its entries (child 0), their values (child 1).
    assert_eq!(e.location().field_path(), [0, 0, 1]);
    let e = read(&bytes, strict()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NullInNonNullableField);
    assert_eq!(
        format!("{e:?}"),
        "NullInNonNullableField: null value in a non-nullable field (message 1, field 0.0.1)"
    );
}

#[test]
fn a_declared_table_size_past_the_message_is_read() {
    let bytes = case("F3-vtable-table-size.bin");
    let batches = read(&bytes, IpcReadOptions::default()).unwrap();
    assert_eq!(batches.len(), 2);
    assert_eq!(batches.iter().map(|b| b.num_rows()).sum::<usize>(), 13);
}

#[test]
fn a_delta_dictionary_without_a_base_is_refused() {
    let bytes = case("F6-delta-without-base.bin");
    let e = read(&bytes, IpcReadOptions::default()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::DictionaryNotFound);
    assert_eq!(e.location().message(), Some(1));
}

#[test]
fn a_metadata_key_without_a_value_is_refused() {
    let bytes = case("K1-metadata-key-without-value.bin");
    let e = read(&bytes, IpcReadOptions::default()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::MetadataEntryIncomplete);
}
