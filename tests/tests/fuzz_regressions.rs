//! Inputs the fuzz targets of `tests/fuzz` found defects with, committed
//! under `tests/fuzz/regressions/<target>/`, replayed here (stable
//! toolchain, no libFuzzer) with the targets' oracles: every batch a reader
//! accepts validates at `ValidationLevel::Full`, and written back with
//! `StreamWriter` and read again is equal.
//!
//! Each test also asserts what the input does now (its accepted batches),
//! so that a fix that merely starts refusing the input is visible.

use std::path::PathBuf;

use alkaid::array::{RecordBatch, ValidationLevel};
use alkaid::datatypes::Schema;
use alkaid::ipc::reader::{IpcReadOptions, SliceStreamReader, StreamReader};
use alkaid::ipc::writer::{IpcWriteOptions, StreamWriter};
use alkaid::{Error, Global as G};

/// The committed inputs of `target`, sorted by name.
fn regressions(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/regressions")
        .join(target);
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| {
            let p = e.expect("directory entry").path();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).expect("read regression input"))
        })
        .collect();
    out.sort();
    assert!(!out.is_empty(), "no inputs in {}", dir.display());
    out
}

/// Writes `batches` with `StreamWriter` and reads them back: equal.
fn round_trip(name: &str, schema: &Schema<'_, G>, batches: &[RecordBatch<'_, G>]) {
    let mut out: Vec<u8> = Vec::new();
    {
        let mut w = StreamWriter::try_new_in(&mut out, schema, IpcWriteOptions::default(), G)
            .unwrap_or_else(|e| panic!("{name}: writer refuses the schema: {e:?}"));
        for b in batches {
            w.write(b)
                .unwrap_or_else(|e| panic!("{name}: writer refuses a batch: {e:?}"));
        }
        w.finish().expect("finish");
    }
    let r = SliceStreamReader::try_new_in(&out, IpcReadOptions::default(), G)
        .unwrap_or_else(|e| panic!("{name}: written stream does not open: {e:?}"));
    assert!(
        r.schema() == schema,
        "{name}: schema differs after the round trip"
    );
    let again: Vec<_> = r
        .collect::<Result<_, _>>()
        .unwrap_or_else(|e| panic!("{name}: written stream does not read back: {e:?}"));
    assert_eq!(again.len(), batches.len(), "{name}: batch count");
    for (i, (a, b)) in again.iter().zip(batches).enumerate() {
        assert!(a == b, "{name}: batch {i} differs after the round trip");
    }
}

/// Reads a stream with both stream readers; returns the number of batches
/// accepted (they agree) after checking the oracles.
fn replay_stream(name: &str, bytes: &[u8]) -> usize {
    let Ok(r) = SliceStreamReader::try_new_in(bytes, IpcReadOptions::default(), G) else {
        return 0;
    };
    let schema = r.schema().clone();
    let batches: Vec<_> = r.map_while(Result::ok).collect();
    for b in &batches {
        b.validate(ValidationLevel::Full)
            .unwrap_or_else(|e| panic!("{name}: accepted batch does not validate: {e:?}"));
    }
    let copying: Vec<_> = StreamReader::try_new_in(bytes, IpcReadOptions::default(), G)
        .expect("StreamReader opens what SliceStreamReader opens")
        .map_while(Result::ok)
        .collect();
    assert!(
        copying == batches,
        "{name}: the two stream readers disagree"
    );
    round_trip(name, &schema, &batches);
    batches.len()
}

/// What a committed input does now.
#[derive(Debug, PartialEq)]
enum Outcome {
    /// The reader refuses it when opening, with this error.
    Refused(Error),
    /// The reader accepts this many batches (the oracles hold for them).
    Batches(usize),
}

/// Replays every input of `tests/fuzz/regressions/ipc_stream/` and checks
/// its expected outcome (every input must be listed).
#[test]
fn ipc_stream_regressions() {
    let expected: &[(&str, Outcome)] = &[
        // Two dictionary fields sharing id 0, one of BinaryView values, one
        // of Utf8View, and an empty batch. The schema was accepted, and the
        // stream our writer made of it was refused (TypeMismatch: the
        // dictionary batch of id 0 decoded as BinaryView became the values
        // of the Utf8View field). Fields sharing an id must share the value
        // type: now refused when the schema is read.
        (
            "crash-326b34b0567b1c31c2a6f40edc9d55157a2a8231",
            Outcome::Refused(Error::InvalidDataType),
        ),
    ];
    let inputs = regressions("ipc_stream");
    for (name, bytes) in &inputs {
        let (_, want) = expected
            .iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("{name}: no expected outcome listed"));
        let got = match SliceStreamReader::try_new_in(bytes, IpcReadOptions::default(), G) {
            Err(e) => Outcome::Refused(e),
            Ok(_) => Outcome::Batches(replay_stream(name, bytes)),
        };
        assert_eq!(&got, want, "{name}");
        // The `Read` front-end agrees on refusing.
        if let Outcome::Refused(e) = want {
            let r = StreamReader::try_new_in(bytes.as_slice(), IpcReadOptions::default(), G);
            assert_eq!(r.err(), Some(*e), "{name}: StreamReader");
        }
    }
}

/// Replays `tests/fuzz/regressions/row_decode/`: byte 0 picks the schema
/// (only schema 7 of the target, `[Boolean, Float64, FixedSizeBinary(3)]`,
/// has committed inputs), byte 1 the options, then rows as `len: u8,
/// bytes`. The decoded columns validate, and re-encode to rows that decode
/// to the same columns.
#[test]
fn row_decode_regressions() {
    use alkaid::array::Array;
    use alkaid::datatypes::DataType;
    use alkaid::row::{Row, RowConverter, SortField, SortOptions};

    // A row `00 | 01 00 00 00 00 00 00 00 00 | 00 00 00 00`: a null
    // boolean, a Float64 whose bytes are a negative NaN with every payload
    // bit set (no encoder writes it) and a null binary. It decoded to that
    // NaN, which re-encoded as the canonical NaN: the columns differed
    // after re-encoding. Decoding now normalises floats as encoding does.
    let expected_f64_bits = [(
        "crash-65be35c8fcd87eb5b0634b0b8f1382ff7e5f7d61",
        0x7FF8_0000_0000_0000u64,
    )];
    for (name, bytes) in regressions("row_decode") {
        let (_, want) = expected_f64_bits
            .iter()
            .find(|(n, _)| *n == name)
            .unwrap_or_else(|| panic!("{name}: no expected outcome listed"));
        assert_eq!(bytes[0] % 10, 7, "{name}: schema 7");
        let opts = SortOptions::new(bytes[1] & 1 != 0, bytes[1] & 2 != 0);
        assert_eq!(bytes[1] & 4, 0, "{name}: ordered encoding");
        let fields = [
            SortField::new_with_options(DataType::Boolean, opts),
            SortField::new_with_options(DataType::Float64, opts),
            SortField::new_with_options(DataType::FixedSizeBinary(3), opts),
        ];
        let conv = RowConverter::try_new(&fields).unwrap();
        let mut rows = conv.empty_rows(0, 0).unwrap();
        let mut rest = &bytes[2..];
        while let Some((&len, tail)) = rest.split_first() {
            let len = (len as usize).min(tail.len());
            rows.try_push(Row::new(&tail[..len])).unwrap();
            rest = &tail[len..];
        }
        let columns = conv.convert_rows(rows.iter()).expect("the rows decode");
        assert!(conv.convert_all_rows(&rows).unwrap().as_slice() == columns.as_slice());
        for c in columns.iter() {
            c.validate(ValidationLevel::Full).unwrap();
        }
        let alkaid::array::ArrayRef::Float64(floats) = &columns[1] else {
            panic!("{name}: column 1 is not Float64");
        };
        assert_eq!(floats.get(0).map(f64::to_bits), Some(*want), "{name}");
        let again = conv.convert_columns(columns.as_slice()).unwrap();
        let columns2 = conv.convert_rows(again.iter()).unwrap();
        assert!(
            columns2.as_slice() == columns.as_slice(),
            "{name}: re-encoding"
        );
    }
}
