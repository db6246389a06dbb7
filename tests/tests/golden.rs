//! Golden files: every `.stream` and `.arrow_file` written by other Arrow
//! implementations (`../shared/golden/`) read with each of our readers and
//! compared with its integration JSON; then rewritten with our writers and
//! read back.

use alkaid::ipc::message::CompressionCodec;
use alkaid::ipc::writer::IpcWriteOptions;
use alkaid_tests::harness::{
    cases, expected_failure, golden_dir, rewrite, rewrite_with, run_reader, run_reader_with,
    summarize, Case, Codecs, Outcome, Reader, Row, COMPRESSION_DIR,
};
use alkaid_tests::json::{read_json_file, JsonFile};

fn load(case: &Case) -> Result<(JsonFile, Vec<u8>, Vec<u8>), String> {
    let json = read_json_file(&case.json_path())?;
    let read =
        |p: std::path::PathBuf| std::fs::read(&p).map_err(|e| format!("{}: {e}", p.display()));
    Ok((json, read(case.stream_path())?, read(case.file_path())?))
}

fn row(case: &Case, ext: &str, reader: String, key: &str, outcome: Outcome) -> Row {
    Row {
        file: format!("{}/{}.{ext}", case.dir, case.stem),
        expected: expected_failure(case.dir, &case.stem, key),
        reader,
        outcome,
    }
}

fn report(title: &str, rows: &[Row]) {
    let bad = summarize(title, rows);
    assert!(
        bad.is_empty(),
        "{} of {} cases not as expected:\n{}",
        bad.len(),
        rows.len(),
        bad.iter()
            .map(|r| format!("  {} [{}] {}: {}", r.file, r.reader, r.status(), r.outcome))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn golden_files_match_their_json() {
    let root = golden_dir();
    let mut rows = Vec::new();
    for case in cases(&root) {
        let (json, stream, file) = match load(&case) {
            Ok(x) => x,
            Err(e) => {
                rows.push(row(
                    &case,
                    "json.gz",
                    "load".into(),
                    "load",
                    Outcome::Mismatch(e),
                ));
                continue;
            }
        };
        for r in Reader::STREAM {
            let o = run_reader(r, &stream, &json);
            rows.push(row(&case, "stream", r.label().into(), r.label(), o));
        }
        for r in Reader::FILE {
            let o = run_reader(r, &file, &json);
            rows.push(row(&case, "arrow_file", r.label().into(), r.label(), o));
        }
    }
    report("golden files read by our readers", &rows);
}

#[test]
fn golden_files_rewritten_by_our_writers_match_their_json() {
    let root = golden_dir();
    let mut rows = Vec::new();
    for case in cases(&root) {
        let (json, stream, _) = match load(&case) {
            Ok(x) => x,
            Err(e) => {
                rows.push(row(
                    &case,
                    "json.gz",
                    "load".into(),
                    "load",
                    Outcome::Mismatch(e),
                ));
                continue;
            }
        };
        let (ours_stream, ours_file) = match rewrite(&stream) {
            Ok(x) => x,
            Err(o) => {
                rows.push(row(&case, "stream", "rewrite".into(), "rewrite", o));
                continue;
            }
        };
        for r in Reader::STREAM {
            let o = run_reader(r, &ours_stream, &json);
            let label = format!("StreamWriter→{}", r.label());
            rows.push(row(&case, "stream", label.clone(), &label, o));
        }
        for r in Reader::FILE {
            let o = run_reader(r, &ours_file, &json);
            let label = format!("FileWriter→{}", r.label());
            rows.push(row(&case, "stream", label.clone(), &label, o));
        }
    }
    report("golden files rewritten by our writers", &rows);
}

/// Every file of the compression folder (LZ4 frame and ZSTD, stream and
/// file, compressible and not) read by every reader with both codec sets:
/// the core's (the `no_std` ruzstd decoder for ZSTD) and the std shim's
/// (the reference ZSTD library).
#[test]
fn compressed_golden_files_match_with_both_codec_sets() {
    let root = golden_dir();
    let mut rows = Vec::new();
    let mut zstd_files = 0;
    for case in cases(&root)
        .into_iter()
        .filter(|c| c.dir == COMPRESSION_DIR)
    {
        let (json, stream, file) = load(&case).expect("compression case loads");
        if case.stem.contains("zstd") {
            zstd_files += 1;
            // Real Zstandard frames are in there (the uncompressible file
            // has one, for its one compressible buffer).
            assert!(stream.windows(4).any(|w| w == [0x28, 0xB5, 0x2F, 0xFD]));
        }
        for codecs in Codecs::ALL {
            for r in Reader::STREAM {
                let o = run_reader_with(r, &stream, &json, codecs);
                let label = format!("{}:{}", codecs.label(), r.label());
                rows.push(row(&case, "stream", label, r.label(), o));
            }
            for r in Reader::FILE {
                let o = run_reader_with(r, &file, &json, codecs);
                let label = format!("{}:{}", codecs.label(), r.label());
                rows.push(row(&case, "arrow_file", label, r.label(), o));
            }
        }
    }
    assert_eq!(
        zstd_files, 2,
        "generated_zstd and generated_uncompressible_zstd"
    );
    assert_eq!(rows.len(), 4 * 2 * 4);
    report("compressed golden files, both codec sets", &rows);
}

/// Every golden file rewritten by our writers with LZ4 frame and with ZSTD
/// bodies (the std shim's codecs), then read back by every reader with both
/// codec sets.
#[test]
fn golden_files_rewritten_compressed_match_their_json() {
    const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];
    const LZ4_MAGIC: [u8; 4] = [0x04, 0x22, 0x4D, 0x18];
    let root = golden_dir();
    let mut rows = Vec::new();
    let mut framed = [0usize; 2];
    for case in cases(&root) {
        let (json, stream, _) = load(&case).expect("case loads");
        for (k, codec) in [CompressionCodec::Lz4Frame, CompressionCodec::Zstd]
            .into_iter()
            .enumerate()
        {
            let options = IpcWriteOptions {
                compression: Some(codec),
                ..Default::default()
            };
            let name = format!("{codec:?}");
            let (ours_stream, ours_file) = match rewrite_with(&stream, options) {
                Ok(x) => x,
                Err(o) => {
                    rows.push(row(
                        &case,
                        "stream",
                        format!("rewrite {name}"),
                        "rewrite",
                        o,
                    ));
                    continue;
                }
            };
            let magic = if k == 0 { LZ4_MAGIC } else { ZSTD_MAGIC };
            framed[k] += usize::from(ours_stream.windows(4).any(|w| w == magic));
            for codecs in Codecs::ALL {
                for r in Reader::STREAM {
                    let o = run_reader_with(r, &ours_stream, &json, codecs);
                    let label = format!("{name} StreamWriter→{}:{}", codecs.label(), r.label());
                    rows.push(row(&case, "stream", label.clone(), &label, o));
                }
                for r in Reader::FILE {
                    let o = run_reader_with(r, &ours_file, &json, codecs);
                    let label = format!("{name} FileWriter→{}:{}", codecs.label(), r.label());
                    rows.push(row(&case, "stream", label.clone(), &label, o));
                }
            }
        }
    }
    // Many golden batches are tiny (stored raw); still, dozens of files get
    // real frames of each codec.
    assert!(framed[0] >= 10 && framed[1] >= 10, "{framed:?}");
    report("golden files rewritten with LZ4 / ZSTD bodies", &rows);
}

/// `4.0.0-shareddict`: two fields use dictionary 0. Our readers must give both
/// the same id and the very same dictionary values (one shared allocation).
#[test]
fn a_shared_dictionary_is_read_once_for_both_fields() {
    use alkaid::array::ArrayRef;
    use alkaid::ipc::reader::{FileReader, IpcReadOptions, SliceStreamReader};
    use alkaid::Global;

    let base = golden_dir().join("4.0.0-shareddict/generated_shared_dict");
    let stream = std::fs::read(base.with_extension("stream")).unwrap();
    let file = std::fs::read(base.with_extension("arrow_file")).unwrap();
    let opts = IpcReadOptions::default();
    let from_stream = SliceStreamReader::try_new_in(&stream[..], opts, Global)
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    let mut fr = FileReader::try_new_in(&file[..], opts, Global).unwrap();
    let from_file = (0..fr.num_batches())
        .map(|i| fr.batch(i).unwrap())
        .collect::<Vec<_>>();
    for batches in [from_stream, from_file] {
        assert_eq!(batches.len(), 1);
        let b = &batches[0];
        let ids: Vec<_> = b.schema().fields().iter().map(|f| f.dict_id()).collect();
        assert_eq!(ids, [Some(0), Some(0)]);
        let (ArrayRef::Dictionary(c1), ArrayRef::Dictionary(c2)) =
            (&b.columns()[0], &b.columns()[1])
        else {
            panic!("both columns are dictionary-encoded");
        };
        assert!(c1.values_shared().ptr_eq(c2.values_shared()));
        let ArrayRef::Utf8(v) = c1.values() else {
            panic!("utf8 values")
        };
        assert_eq!(
            v.iter().collect::<Vec<_>>(),
            [Some("foo"), Some("bar"), Some("baz")]
        );
    }
}

/// Every golden file reads at `ValidationLevel::Strict` with every reader
/// and equals its JSON, but the [`VALUE_RULE_CASES`] (Date64 values that
/// are not whole days, decimals beyond their precision, which pyarrow's
/// `validate(full=True)` refuses too): every reader refuses each of those
/// in both formats with exactly the listed rule and location. At the
/// default level they read (`golden_files_match_their_json`).
#[test]
fn golden_files_at_strict_validation() {
    use alkaid_tests::harness::{run_reader_strict, VALUE_RULE_CASES};

    let root = golden_dir();
    let mut refused = 0;
    for case in cases(&root) {
        let (json, stream, file) = load(&case).unwrap();
        let rule = VALUE_RULE_CASES
            .iter()
            .find(|v| v.dir == case.dir && v.file == case.stem);
        for (readers, bytes, stream_format) in [
            (Reader::STREAM, &stream, true),
            (Reader::FILE, &file, false),
        ] {
            for r in readers {
                let o = run_reader_strict(r, bytes, &json);
                let what = format!("{}/{} [{}]", case.dir, case.stem, r.label());
                match (rule, &o) {
                    (None, Outcome::Pass { .. }) => {}
                    (Some(v), Outcome::Error { error, .. }) => {
                        let want = if stream_format {
                            v.stream_error
                        } else {
                            v.file_error
                        };
                        assert_eq!(format!("{error:?}"), want, "{what}");
                        refused += 1;
                    }
                    _ => panic!("{what}: {o}"),
                }
            }
        }
    }
    assert_eq!(refused, VALUE_RULE_CASES.len() * 4);
}
