//! Round trips with pyarrow (the Python of `$ALKAID_PYTHON`, else
//! `<repo>/.venv/bin/python`, which `scripts/install.sh` creates).
//!
//! - Golden files: every `.stream` and `.arrow_file` of the golden folders,
//!   read by our reader of its format and written again by our writer of
//!   that format, and converted by `alkaid convert IN OUT`, is read by
//!   pyarrow and equals pyarrow's reading of the original
//!   (`Table.equals(check_metadata=True)`: schema, schema and field
//!   metadata, every value; and the same batch row counts).
//! - pyarrow's files: `tests/python/gen_tables.py` writes random tables of
//!   every type pyarrow has (streams and files, dictionary deltas and
//!   replacements, legacy framing, metadata V4, LZ4 and ZSTD bodies); we read
//!   each one, validate it fully, check its batch, row and null counts and
//!   every slot's value against pyarrow's in-memory values (dumped by the
//!   script), write it again with our writer (64- and 8-byte alignment),
//!   and pyarrow finds our file equal to its own.
//!
//! Compressed inputs must fail with `Error::UnsupportedType` until
//! [`COMPRESSION_SUPPORTED`] is flipped. Both tests are ignored without the
//! `interop` feature (`scripts/test.sh interop` runs them); with it, a
//! missing pyarrow fails them. `-- --nocapture` prints the tables. Files
//! are left in `target/tmp/pyarrow-*` for inspection.

use std::path::{Path, PathBuf};

use alkaid::ipc::message::CompressionCodec;
use alkaid::ipc::writer::IpcWriteOptions;

use alkaid_tests::harness::{cases, compression_supported, golden_dir, COMPRESSION_DIR};
use alkaid_tests::interop::{
    compare_values, find_known, generate_pyarrow_tables, pyarrow_compare, read_ours, report,
    require_pyarrow, rewrite_ours, scratch_dir, write_ours, write_ours_with, Check, Format,
    Generated, Known, Pair,
};

/// Known failures of the golden round trips through pyarrow (peer
/// limitations or our bugs), strict like `harness::EXPECTED_FAILURES`.
/// Empty: every golden file reads at the default level and round-trips.
const GOLDEN_KNOWN: &[Known] = &[];

/// Known failures with pyarrow's own files.
const GENERATED_KNOWN: &[Known] = &[];

/// Compressed input while our readers cannot decode it.
const COMPRESSED: Known = Known {
    file: "*",
    check: "*",
    contains: "Error::UnsupportedType",
    reason: "compressed bodies are not decoded yet (harness::COMPRESSION_SUPPORTED)",
};

/// Our `FileWriter` given a stream that replaces a dictionary.
const REPLACEMENT_IN_FILE: Known = Known {
    file: "*",
    check: "*",
    contains: "Error::DictionaryReplacementInFile",
    reason: "the file format cannot replace a dictionary: our FileWriter refuses",
};

fn work_dir(name: &str) -> PathBuf {
    scratch_dir(Path::new(env!("CARGO_TARGET_TMPDIR")), name)
}

fn write(path: &Path, bytes: &[u8]) {
    if let Some(d) = path.parent() {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::write(path, bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

/// Sets each pending row's result from pyarrow's verdict on its pair.
fn compare_rows(rows: &mut [Check], pending: &[(usize, Pair)], work: &Path) {
    let pairs: Vec<Pair> = pending.iter().map(|(_, p)| p.clone()).collect();
    let results = pyarrow_compare(&pairs, work).unwrap_or_else(|e| panic!("{e}"));
    for (i, p) in pending {
        rows[*i].result = results[&p.id].clone();
    }
}

#[test]
#[cfg_attr(
    not(feature = "interop"),
    ignore = "needs pyarrow: run with --features interop (scripts/test.sh interop)"
)]
fn golden_files_rewritten_by_us_equal_pyarrows_reading_of_the_originals() {
    let version = require_pyarrow();
    let root = golden_dir();
    let work = work_dir("pyarrow-golden");
    let exe = alkaid_tests::harness::alkaid_exe();
    let mut rows = Vec::new();
    let mut pending = Vec::new();
    for case in cases(&root) {
        for fmt in Format::ALL {
            let orig = case.base.with_extension(fmt.ext());
            let file = format!("{}/{}.{}", case.dir, case.stem, fmt.ext());
            let check = format!("{}→pyarrow", fmt.writer());
            let known = if case.dir == COMPRESSION_DIR && !compression_supported(&case.stem) {
                Some(COMPRESSED)
            } else {
                find_known(GOLDEN_KNOWN, &file, &check)
            };
            let bytes = std::fs::read(&orig).unwrap_or_else(|e| panic!("{}: {e}", orig.display()));
            let result = rewrite_ours(&bytes, fmt).map(|ours| {
                let out = work.join(&file);
                write(&out, &ours);
                pending.push((
                    rows.len(),
                    Pair {
                        id: file.clone(),
                        expected: orig.clone(),
                        expected_format: fmt,
                        actual: out,
                        actual_format: fmt,
                    },
                ));
                String::new()
            });
            rows.push(Check {
                file: file.clone(),
                check,
                result,
                known,
            });
            // The same through the command line: `alkaid convert IN OUT`
            // (the output in the input's format).
            let out = work.join("convert").join(&file);
            if let Some(d) = out.parent() {
                std::fs::create_dir_all(d).unwrap();
            }
            let run = std::process::Command::new(&exe)
                .arg("convert")
                .arg(&orig)
                .arg(&out)
                .output()
                .expect("run alkaid convert");
            let result = if run.status.success() {
                let id = format!("{file} (alkaid convert)");
                pending.push((
                    rows.len(),
                    Pair {
                        id,
                        expected: orig,
                        expected_format: fmt,
                        actual: out,
                        actual_format: fmt,
                    },
                ));
                Ok(String::new())
            } else {
                Err(String::from_utf8_lossy(&run.stderr).trim_end().to_string())
            };
            rows.push(Check {
                file,
                check: "alkaid convert→pyarrow".into(),
                result,
                known: None,
            });
        }
    }
    compare_rows(&mut rows, &pending, &work);
    report(
        &format!("golden files rewritten by us, read by pyarrow {version}"),
        &rows,
    );
}

/// Our batch, row and null counts against pyarrow's.
fn check_counts(
    g: &Generated,
    schema: &alkaid::datatypes::Schema<'_, alkaid::Global>,
    batches: &[alkaid::array::RecordBatch<'_, alkaid::Global>],
) -> Result<String, String> {
    use alkaid::array::Array;
    if batches.len() != g.batches.len() {
        return Err(format!(
            "batches: ours {} vs pyarrow's {}",
            batches.len(),
            g.batches.len()
        ));
    }
    let mut rows = 0;
    for (n, (b, (want_rows, want_nulls))) in batches.iter().zip(&g.batches).enumerate() {
        if b.num_rows() != *want_rows {
            return Err(format!(
                "batch {n}: rows ours {} vs pyarrow's {want_rows}",
                b.num_rows()
            ));
        }
        rows += b.num_rows();
        if b.columns().len() != want_nulls.len() {
            return Err(format!(
                "batch {n}: columns ours {} vs pyarrow's {}",
                b.columns().len(),
                want_nulls.len()
            ));
        }
        for (c, (col, want)) in b.columns().iter().zip(want_nulls).enumerate() {
            if col.null_count() != *want {
                let name = schema.fields().get(c).map(|f| f.name()).unwrap_or("?");
                return Err(format!(
                    "batch {n} column {c} {name:?} ({:?}): null_count ours {} vs pyarrow's {want}",
                    col.data_type(),
                    col.null_count()
                ));
            }
        }
    }
    Ok(format!(
        "{} batches, {rows} rows, null counts equal; validated",
        batches.len()
    ))
}

#[test]
#[cfg_attr(
    not(feature = "interop"),
    ignore = "needs pyarrow: run with --features interop (scripts/test.sh interop)"
)]
fn pyarrows_random_tables_of_every_type_are_read_by_us_and_written_back_equal() {
    let version = require_pyarrow();
    let work = work_dir("pyarrow-tables");
    let mut rows = Vec::new();
    let mut pending = Vec::new();
    for g in generate_pyarrow_tables(&work.join("pyarrow")) {
        let file = format!("{}.{}", g.name, g.format.ext());
        let reader = match g.format {
            Format::Stream => "SliceStreamReader",
            Format::File => "FileReader",
        };
        let known = |check: &str| {
            if g.compressed && !compression_supported(&g.name) {
                Some(COMPRESSED)
            } else {
                find_known(GENERATED_KNOWN, &file, check)
            }
        };
        let bytes = std::fs::read(&g.path).unwrap();
        let (schema, batches) = match read_ours(&bytes, g.format) {
            Ok(x) => x,
            Err(e) => {
                let known = known(reader);
                rows.push(Check {
                    file,
                    check: reader.into(),
                    result: Err(e),
                    known,
                });
                continue;
            }
        };
        rows.push(Check {
            file: file.clone(),
            check: reader.into(),
            result: check_counts(&g, &schema, &batches).and_then(|d| {
                compare_values(&schema, &batches, &g.values)?;
                Ok(format!("{d}; every slot equals pyarrow's"))
            }),
            known: known(reader),
        });
        // Default options (64-byte alignment), the 8-byte alignment a
        // firmware may choose to save RAM, and LZ4 frame bodies (our frame
        // encoder's default options) that pyarrow must decode.
        for (alignment, lz4) in [(64, false), (8, false), (64, true)] {
            let opts = IpcWriteOptions {
                alignment,
                compression: lz4.then_some(CompressionCodec::Lz4Frame),
                ..IpcWriteOptions::default()
            };
            let (check, dir) = match (alignment, lz4) {
                (64, false) => (format!("{}→pyarrow", g.format.writer()), "ours".to_string()),
                (a, false) => (
                    format!("{}(alignment {a})→pyarrow", g.format.writer()),
                    format!("ours-align{a}"),
                ),
                (_, true) => (
                    format!("{}(LZ4 frame)→pyarrow", g.format.writer()),
                    "ours-lz4".to_string(),
                ),
            };
            let result = write_ours_with(&schema, &batches, g.format, opts).map(|ours| {
                let out = work.join(dir).join(&file);
                write(&out, &ours);
                pending.push((
                    rows.len(),
                    Pair {
                        id: format!("{file} {check}"),
                        expected: g.path.clone(),
                        expected_format: g.format,
                        actual: out,
                        actual_format: g.format,
                    },
                ));
                String::new()
            });
            let known = known(&check);
            rows.push(Check {
                file: file.clone(),
                check,
                result,
                known,
            });
        }
        if g.replacement {
            let check = "FileWriter (replaced dictionary)".to_string();
            rows.push(Check {
                file,
                check,
                result: write_ours(&schema, &batches, Format::File).map(|_| "written".into()),
                known: Some(REPLACEMENT_IN_FILE),
            });
        }
    }
    compare_rows(&mut rows, &pending, &work);
    report(
        &format!("pyarrow {version}'s random tables read by us, written back, read by pyarrow"),
        &rows,
    );
}

/// `compare_ipc.py` sees a changed value, changed schema metadata and
/// changed metadata of a nested field, and `compare_values` a changed value
/// and a value turned null (the comparisons are not vacuous).
#[test]
#[cfg_attr(
    not(feature = "interop"),
    ignore = "needs pyarrow: run with --features interop (scripts/test.sh interop)"
)]
fn the_pyarrow_comparison_sees_differences() {
    use alkaid::array::{Array, PrimitiveArray, RecordBatch};
    use alkaid::buffer::SharedSlice;
    use alkaid::datatypes::{DataType, Field, Schema};
    use alkaid::Global;

    require_pyarrow();
    let work = work_dir("pyarrow-selftest");
    let replace = |bytes: &[u8], from: &[u8], to: &[u8]| {
        let at = bytes
            .windows(from.len())
            .position(|w| w == from)
            .unwrap_or_else(|| panic!("{from:?} not found"));
        let mut out = bytes.to_vec();
        out[at..at + to.len()].copy_from_slice(to);
        out
    };

    let col = PrimitiveArray::<i32, Global>::try_from_options_in(
        &[Some(7), None, Some(0x0102_0304)],
        Global,
    )
    .unwrap();
    let fields =
        SharedSlice::try_from_iter_in([Field::new("x", DataType::Int32, true)], Global).unwrap();
    let schema = Schema::new(fields);
    let batch = RecordBatch::try_new(
        schema.clone(),
        SharedSlice::try_from_iter_in([col.into_array_ref()], Global).unwrap(),
    )
    .unwrap();
    // compare_values: pyarrow's slot values against ours.
    let values = work.join("values.json");
    std::fs::write(&values, r#"[[[["i", "7"], null, ["i", "16909060"]]]]"#).unwrap();
    let batches = [batch];
    assert_eq!(compare_values(&schema, &batches, &values), Ok(()));
    std::fs::write(&values, r#"[[[["i", "7"], null, ["i", "16909061"]]]]"#).unwrap();
    let d = compare_values(&schema, &batches, &values).unwrap_err();
    assert!(
        d.starts_with("batch 0 column 0 \"x\" row 2: ours 16909060 vs"),
        "{d}"
    );
    std::fs::write(
        &values,
        r#"[[[["i", "7"], ["i", "0"], ["i", "16909060"]]]]"#,
    )
    .unwrap();
    let d = compare_values(&schema, &batches, &values).unwrap_err();
    assert!(
        d.starts_with("batch 0 column 0 \"x\" row 1: ours null vs"),
        "{d}"
    );

    let ints = write_ours(&schema, &batches, Format::Stream).unwrap();
    let ints_changed = replace(&ints, &[4, 3, 2, 1], &[5]);

    let md_path = golden_dir().join("cpp-21.0.0/generated_custom_metadata.stream");
    let md = rewrite_ours(&std::fs::read(md_path).unwrap(), Format::Stream).unwrap();
    let schema_md_changed = replace(&md, b"schema_custom_0", b"schema_custom_9");
    let field_md_changed = replace(&md, b"odd_values", b"odd_valuez");

    let mut pairs = Vec::new();
    for (id, base, altered) in [
        ("same", &ints, &ints),
        ("value", &ints, &ints_changed),
        ("schema metadata", &md, &schema_md_changed),
        ("field metadata", &md, &field_md_changed),
    ] {
        let expected = work.join(format!("{id}.expected.stream"));
        let actual = work.join(format!("{id}.actual.stream"));
        write(&expected, base);
        write(&actual, altered);
        pairs.push(Pair {
            id: id.into(),
            expected,
            expected_format: Format::Stream,
            actual,
            actual_format: Format::Stream,
        });
    }
    let r = pyarrow_compare(&pairs, &work).unwrap();
    assert_eq!(r["same"], Ok("1 batches, 3 rows, 1 columns equal".into()));
    let value = r["value"].as_ref().unwrap_err();
    assert_eq!(
        value,
        "column 0 'x' (int32): values differ; first at row 2: ours 16909061 vs peer's 16909060"
    );
    let schema_md = r["schema metadata"].as_ref().unwrap_err();
    assert!(schema_md.starts_with("schema metadata: "), "{schema_md}");
    let field_md = r["field metadata"].as_ref().unwrap_err();
    assert!(
        field_md.starts_with("schema: field 3 'list_with_odd_values'.item: field metadata"),
        "{field_md}"
    );
}
