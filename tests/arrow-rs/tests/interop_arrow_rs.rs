//! Round trips with arrow-rs 60 (`arrow-ipc`, a dev-dependency), on every
//! golden file, in both formats:
//!
//! - `StreamWriter→arrow-rs` / `FileWriter→arrow-rs`: we read the golden
//!   file with our reader of its format and write it again with our writer;
//!   arrow-rs reads ours and its batches equal (`RecordBatch ==`: schema with
//!   metadata, every column) what arrow-rs reads from the original. arrow-rs
//!   cannot read big-endian files: there, what arrow-rs read from ours is
//!   written again by arrow-rs and read by us, and must equal the golden
//!   JSON (so a value arrow-rs misread would show).
//! - `arrow-rs→SliceStreamReader` / `arrow-rs→FileReader`: arrow-rs reads
//!   the golden file (or ours, when it cannot read the original) and writes
//!   it with its `StreamWriter` / `FileWriter`; we read that and compare it
//!   with the golden JSON through the harness (schema, metadata, dictionary
//!   ids, every slot).
//!
//! - pyarrow's random tables (`tests/python/gen_tables.py`, every type,
//!   deltas, replacements, slices, compression): arrow-rs reads our rewrite
//!   and it equals arrow-rs's reading of pyarrow's file; and arrow-rs's
//!   rewrite of pyarrow's file, read by us and written again, is equal to
//!   pyarrow's file in pyarrow's eyes (`tests/python/compare_ipc.py`).
//!
//! Ignored without the `interop` feature (`scripts/test.sh interop` runs
//! it). `-- --nocapture` prints the table.

use std::path::Path;
use std::sync::Arc;

use arrow_array::RecordBatch as RsBatch;
use arrow_ipc::writer::{FileWriter as RsFileWriter, StreamWriter as RsStreamWriter};
use arrow_schema::Schema as RsSchema;
use common::{rs_read, RsRead};

use alkaid_tests::harness::{
    cases, compression_supported, golden_dir, run_reader, Outcome, Reader, COMPRESSION_DIR,
};
use alkaid_tests::interop::{
    find_known, generate_pyarrow_tables, pyarrow_compare, report, require_pyarrow, rewrite_ours,
    scratch_dir, Check, Format, Known, Pair,
};
use alkaid_tests::json::read_json_file;

mod common;

/// Known failures with the golden files (peer limitations or our bugs),
/// strict: each must still fail with its text. Empty: every golden file
/// reads at the default level.
const KNOWN: &[Known] = &[];

/// Known failures with pyarrow's random tables.
const GENERATED_KNOWN: &[Known] = &[Known {
    file: "metadata-v4.arrow_file",
    check: "*",
    contains:
        "pyarrow's: arrow-rs: Ipc error: Could not read IPC message as metadata versions mismatch",
    reason: "pyarrow writes V4 messages under a V5 footer; arrow-rs 60's FileReader \
             requires every message's version to equal the footer's (ours reads it)",
}];

/// Compressed input while our readers cannot decode it.
const COMPRESSED: Known = Known {
    file: "*",
    check: "*",
    contains: "Error::UnsupportedType",
    reason: "compressed bodies are not decoded yet (harness::COMPRESSION_SUPPORTED)",
};

/// The folder of big-endian golden files.
const BIG_ENDIAN_DIR: &str = "1.0.0-bigendian";

/// Why arrow-rs's reading of a big-endian original is not used.
const NO_BYTE_SWAP: &str = "arrow-rs does not byte-swap big-endian input: its FileReader \
     refuses it and its StreamReader reads it as little-endian \
     (see arrow_rs_misreads_big_endian_streams)";

/// `batches` written by arrow-rs's writer of `fmt`.
fn rs_write(schema: &RsSchema, batches: &[RsBatch], fmt: Format) -> Result<Vec<u8>, String> {
    let e = |e: arrow_schema::ArrowError| format!("arrow-rs {}: {e}", fmt.writer());
    match fmt {
        Format::Stream => {
            let mut w = RsStreamWriter::try_new(Vec::new(), schema).map_err(e)?;
            for b in batches {
                w.write(b).map_err(e)?;
            }
            w.finish().map_err(e)?;
            w.into_inner().map_err(e)
        }
        Format::File => {
            let mut w = RsFileWriter::try_new(Vec::new(), schema).map_err(e)?;
            for b in batches {
                w.write(b).map_err(e)?;
            }
            w.finish().map_err(e)?;
            w.into_inner().map_err(e)
        }
    }
}

/// The first difference between what arrow-rs read from ours and from the
/// original, or how many batches are equal.
fn rs_diff(ours: &RsRead, orig: &RsRead) -> Result<String, String> {
    match common::rs_diff(ours, orig, "original") {
        Some(d) => Err(d),
        None => Ok(format!("{} batches equal", ours.1.len())),
    }
}

fn our_reader(fmt: Format) -> Reader {
    match fmt {
        Format::Stream => Reader::SliceStream,
        Format::File => Reader::File,
    }
}

#[test]
#[cfg_attr(
    not(feature = "interop"),
    ignore = "interop: run with --features interop (scripts/test.sh interop)"
)]
fn golden_files_round_trip_through_arrow_rs() {
    let root = golden_dir();
    let mut rows = Vec::new();
    for case in cases(&root) {
        let json = read_json_file(&case.json_path()).unwrap_or_else(|e| panic!("{e}"));
        for fmt in Format::ALL {
            let orig_path = case.base.with_extension(fmt.ext());
            let orig = std::fs::read(&orig_path)
                .unwrap_or_else(|e| panic!("{}: {e}", orig_path.display()));
            let file = format!("{}/{}.{}", case.dir, case.stem, fmt.ext());
            let compressed = case.dir == COMPRESSION_DIR && !compression_supported(&case.stem);
            // Only our reading of the compressed original fails: arrow-rs
            // decompresses it, and we read what arrow-rs writes.
            let known = |check: &str| {
                if compressed && check.ends_with("→arrow-rs") {
                    Some(COMPRESSED)
                } else {
                    find_known(KNOWN, &file, check)
                }
            };
            let rs_orig = if case.dir == BIG_ENDIAN_DIR {
                Err(NO_BYTE_SWAP.to_string())
            } else {
                rs_read(&orig, fmt)
            };
            let ours = rewrite_ours(&orig, fmt);
            let rs_ours = ours
                .as_ref()
                .map_err(Clone::clone)
                .and_then(|o| rs_read(o, fmt));

            // arrow-rs writes (its reading of the original, else of ours); we read.
            let reader = our_reader(fmt);
            let back_check = format!("arrow-rs→{}", reader.label());
            let (source, note) = match (&rs_orig, &rs_ours) {
                (Ok(o), _) => (Ok(o), String::new()),
                (Err(eo), Ok(u)) => (
                    Ok(u),
                    format!(
                        "arrow-rs cannot read the original ({eo}): it wrote its reading of ours; "
                    ),
                ),
                (Err(eo), Err(eu)) => (Err(format!("original: {eo}; ours: {eu}")), String::new()),
            };
            let back = source.and_then(|(s, b)| {
                let bytes = rs_write(s, b, fmt)?;
                match run_reader(reader, &bytes, &json) {
                    Outcome::Pass { batches } => {
                        Ok(format!("{note}{batches} batches equal the JSON"))
                    }
                    o => Err(format!("{note}{o}")),
                }
            });

            // We write; arrow-rs reads ours and the original.
            let check = format!("{}→arrow-rs", fmt.writer());
            let result = match (&rs_orig, &rs_ours) {
                (_, Err(eu)) => Err(eu.clone()),
                (Ok(o), Ok(u)) => rs_diff(u, o),
                (Err(_), Ok(_)) => back.clone(),
            };
            let k = known(&check);
            rows.push(Check {
                file: file.clone(),
                check,
                result,
                known: k,
            });
            let k = known(&back_check);
            rows.push(Check {
                file,
                check: back_check,
                result: back,
                known: k,
            });
        }
    }
    report("golden files through arrow-rs 60", &rows);
}

/// arrow-rs's `RecordBatch ==` and our diff see a changed value and changed
/// metadata (the comparison is not vacuous).
#[test]
fn the_arrow_rs_comparison_sees_differences() {
    use arrow_array::Int32Array;
    use arrow_schema::{DataType, Field};
    let schema = Arc::new(RsSchema::new(vec![Field::new("x", DataType::Int32, true)]));
    let batch = |v: Vec<Option<i32>>| {
        RsBatch::try_new(schema.clone(), vec![Arc::new(Int32Array::from(v))]).unwrap()
    };
    let a = (schema.clone(), vec![batch(vec![Some(1), None, Some(3)])]);
    assert_eq!(rs_diff(&a, &a), Ok("1 batches equal".into()));
    let b = (schema.clone(), vec![batch(vec![Some(1), None, Some(4)])]);
    let d = rs_diff(&b, &a).unwrap_err();
    assert!(d.starts_with("batch 0 column 0 \"x\": row 2:"), "{d}");
    let c = (schema.clone(), vec![batch(vec![Some(1), Some(0), Some(3)])]);
    assert!(rs_diff(&c, &a).unwrap_err().contains("row 1"));
    let md = Arc::new(RsSchema::new_with_metadata(
        schema.fields().clone(),
        std::collections::HashMap::from([("k".to_string(), "v".to_string())]),
    ));
    let m = (md.clone(), vec![a.1[0].clone().with_schema(md).unwrap()]);
    assert!(rs_diff(&m, &a).unwrap_err().starts_with("schema metadata"));
}

/// Why [`BIG_ENDIAN_DIR`] is not read by arrow-rs above: arrow-rs 60's
/// `StreamReader` takes a big-endian stream's values as little-endian
/// without a word (dates, durations, ints come out wrong), and its
/// `FileReader` refuses big-endian files. When this test fails, arrow-rs
/// has changed: use its reading of the big-endian originals.
#[test]
#[cfg_attr(
    not(feature = "interop"),
    ignore = "interop: run with --features interop (scripts/test.sh interop)"
)]
fn arrow_rs_misreads_big_endian_streams() {
    let base = golden_dir().join(BIG_ENDIAN_DIR).join("generated_interval");
    let stream = std::fs::read(base.with_extension("stream")).unwrap();
    let theirs = rs_read(&stream, Format::Stream).expect("arrow-rs reads the stream");
    let ours = rewrite_ours(&stream, Format::Stream).unwrap();
    let ours = rs_read(&ours, Format::Stream).unwrap();
    let d = rs_diff(&theirs, &ours).unwrap_err();
    assert!(d.starts_with("batch 0 column 0 \"f1\": row 0"), "{d}");
    let file = std::fs::read(base.with_extension("arrow_file")).unwrap();
    let e = rs_read(&file, Format::File).unwrap_err();
    assert!(e.contains("endianness"), "{e}");
}

#[test]
#[cfg_attr(
    not(feature = "interop"),
    ignore = "needs pyarrow: run with --features interop (scripts/test.sh interop)"
)]
fn pyarrows_random_tables_round_trip_through_arrow_rs() {
    let version = require_pyarrow();
    let work = scratch_dir(
        Path::new(env!("CARGO_TARGET_TMPDIR")),
        "arrow-rs-pyarrow-tables",
    );
    let mut rows = Vec::new();
    let mut pending = Vec::new();
    for g in generate_pyarrow_tables(&work.join("pyarrow")) {
        let file = format!("{}.{}", g.name, g.format.ext());
        let fmt = g.format;
        let known = |check: &str| {
            if g.compressed && !compression_supported(&g.name) && check.ends_with("→arrow-rs") {
                Some(COMPRESSED)
            } else {
                find_known(GENERATED_KNOWN, &file, check)
            }
        };
        let a = std::fs::read(&g.path).unwrap();
        let rs_a = rs_read(&a, fmt);

        // We write; arrow-rs reads ours and pyarrow's.
        let check = format!("{}→arrow-rs", fmt.writer());
        let result = rewrite_ours(&a, fmt).and_then(|b| {
            let rs_b = rs_read(&b, fmt).map_err(|e| format!("ours: {e}"))?;
            let rs_a = rs_a.as_ref().map_err(|e| format!("pyarrow's: {e}"))?;
            rs_diff(&rs_b, rs_a)
        });
        let k = known(&check);
        rows.push(Check {
            file: file.clone(),
            check,
            result,
            known: k,
        });

        // arrow-rs writes its reading of pyarrow's file; we read that and
        // write it again; pyarrow compares ours with its own.
        let reader = our_reader(fmt);
        let check = format!("arrow-rs→{}→pyarrow", reader.label());
        let result = rs_a
            .as_ref()
            .map_err(|e| format!("pyarrow's: {e}"))
            .and_then(|(s, b)| rs_write(s, b, fmt))
            .and_then(|c| rewrite_ours(&c, fmt))
            .map(|d| {
                let out = work.join("arrow-rs-then-ours").join(&file);
                std::fs::create_dir_all(out.parent().unwrap()).unwrap();
                std::fs::write(&out, d).unwrap();
                pending.push((
                    rows.len(),
                    Pair {
                        id: file.clone(),
                        expected: g.path.clone(),
                        expected_format: fmt,
                        actual: out,
                        actual_format: fmt,
                    },
                ));
                String::new()
            });
        let k = known(&check);
        rows.push(Check {
            file,
            check,
            result,
            known: k,
        });
    }
    let pairs: Vec<Pair> = pending.iter().map(|(_, p)| p.clone()).collect();
    let verdicts = pyarrow_compare(&pairs, &work).unwrap_or_else(|e| panic!("{e}"));
    for (i, p) in &pending {
        rows[*i].result = verdicts[&p.id].clone();
    }
    report(
        &format!("pyarrow {version}'s random tables through arrow-rs 60"),
        &rows,
    );
}
