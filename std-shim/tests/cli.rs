//! The `alkaid` binary: convert, validate, schema, cat; exit codes; hostile input.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use alkaid_std::{IpcFormat, IpcInput};

/// Runs `alkaid args…` with `stdin` (empty when `None`).
fn run(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_alkaid"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn alkaid");
    let mut pipe = child.stdin.take().expect("stdin");
    let input = stdin.unwrap_or_default().to_vec();
    // Feed stdin from a thread so that a large output cannot deadlock us;
    // the program may stop reading early (a broken pipe is fine).
    let feeder = std::thread::spawn(move || {
        let _ = pipe.write_all(&input);
    });
    let out = child.wait_with_output().expect("wait for alkaid");
    feeder.join().expect("stdin feeder");
    out
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("UTF-8 stdout")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn path_str(p: &Path) -> &str {
    p.to_str().expect("UTF-8 temp path")
}

/// Asserts success with an empty stderr.
fn ok(o: &Output) {
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(o));
    assert_eq!(stderr(o), "");
}

/// Asserts exit status 1 with exactly one line `{prefix}: …` on stderr and
/// no panic; returns the line.
fn fails(o: &Output, prefix: &str) -> String {
    let err = stderr(o);
    assert!(!err.contains("panicked"), "panic: {err}");
    assert_eq!(o.status.code(), Some(1), "stderr: {err}");
    assert!(
        err.ends_with('\n') && err.lines().count() == 1,
        "not one line: {err:?}"
    );
    assert!(err.starts_with(&format!("{prefix}: ")), "{err:?}");
    err.trim_end().to_string()
}

/// The batches of IPC bytes (either format) equal the sample's.
fn assert_sample(bytes: &[u8], format: IpcFormat) {
    let input = IpcInput::from_bytes(bytes).unwrap();
    assert_eq!(input.format(), format);
    let reader = input.reader().unwrap();
    let (schema, batches) = common::sample();
    assert_eq!(reader.schema(), &schema);
    let got: Vec<_> = reader.map(Result::unwrap).collect();
    assert_eq!(got, batches);
}

fn write_sample(dir: &Path, name: &str, format: IpcFormat) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, common::encode(format)).unwrap();
    p
}

/// The 4-byte magic numbers of an LZ4 frame and of a Zstandard frame.
const LZ4_MAGIC: [u8; 4] = [0x04, 0x22, 0x4D, 0x18];
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

#[test]
fn convert_with_compression() {
    let dir = common::temp_dir("convert_compression");
    let (schema, batches) = common::compressible(5000);
    let input = dir.join("in.arrows");
    let plain = common::write_with(IpcFormat::Stream, &schema, &batches, Default::default());
    std::fs::write(&input, &plain).unwrap();
    let mut outputs = Vec::new();
    for (codec, magic, other) in [
        ("lz4", LZ4_MAGIC, ZSTD_MAGIC),
        ("zstd", ZSTD_MAGIC, LZ4_MAGIC),
    ] {
        for format in ["stream", "file"] {
            let out = dir.join(format!("{codec}.{format}"));
            ok(&run(
                &[
                    "convert",
                    path_str(&input),
                    path_str(&out),
                    "--format",
                    format,
                    "--compression",
                    codec,
                ],
                None,
            ));
            let bytes = std::fs::read(&out).unwrap();
            assert!(contains(&bytes, &magic), "{codec} {format}: no frame");
            assert!(!contains(&bytes, &other), "{codec} {format}");
            assert!(
                bytes.len() < plain.len() / 2,
                "{codec} {format}: {}",
                bytes.len()
            );
            let parsed = IpcInput::from_bytes(&bytes).unwrap();
            let got: Vec<_> = parsed.reader().unwrap().map(Result::unwrap).collect();
            assert_eq!(got, batches, "{codec} {format}");
            // The other commands read compressed input too.
            let v = run(&["validate", path_str(&out)], None);
            ok(&v);
            assert_eq!(
                stdout(&v),
                format!("valid: {format}, 2 batches, 10000 rows\n")
            );
            outputs.push(out);
        }
    }
    // Compressed back to uncompressed, through stdin and stdout: the bytes
    // the uncompressed writer makes.
    for out in &outputs {
        let o = run(
            &["convert", "-", "-", "--format", "stream"],
            Some(&std::fs::read(out).unwrap()),
        );
        ok(&o);
        assert_eq!(o.stdout, plain, "{}", out.display());
    }
    // `cat` of a ZSTD file prints the same table as of the plain one.
    let a = run(&["cat", path_str(&input), "--limit", "20"], None);
    let b = run(&["cat", path_str(&outputs[2]), "--limit", "20"], None);
    ok(&b);
    assert_eq!(stdout(&a), stdout(&b));
}

#[test]
fn convert_on_threads_writes_the_single_threaded_bytes() {
    // Batches of 150,000 rows: bodies of about 2 MB, above the size from
    // which `ThreadedCodecs` spreads a batch's buffers over threads.
    let dir = common::temp_dir("convert_threads");
    let (schema, batches) = common::compressible(150_000);
    let plain = common::write_with(IpcFormat::Stream, &schema, &batches, Default::default());
    let input = dir.join("in.arrows");
    std::fs::write(&input, &plain).unwrap();
    for (codec, name) in [
        (alkaid_std::CompressionCodec::Lz4Frame, "lz4"),
        (alkaid_std::CompressionCodec::Zstd, "zstd"),
    ] {
        for (format, fname) in [(IpcFormat::Stream, "stream"), (IpcFormat::File, "file")] {
            let options = alkaid_std::IpcWriteOptions {
                compression: Some(codec),
                ..Default::default()
            };
            let expected = common::write_with(format, &schema, &batches, options);
            for threads in ["1", "3"] {
                let out = dir.join(format!("{name}-{threads}.{fname}"));
                ok(&run(
                    &[
                        "convert",
                        path_str(&input),
                        path_str(&out),
                        "--format",
                        fname,
                        "--compression",
                        name,
                        "--threads",
                        threads,
                    ],
                    None,
                ));
                let bytes = std::fs::read(&out).unwrap();
                assert!(bytes == expected, "{name} {fname} on {threads} threads");
                // Decompressed on 2 threads: the uncompressed stream again.
                let back = run(
                    &[
                        "convert",
                        path_str(&out),
                        "-",
                        "--format",
                        "stream",
                        "--threads",
                        "2",
                    ],
                    None,
                );
                ok(&back);
                assert!(back.stdout == plain, "{name} {fname} read on 2 threads");
            }
        }
    }
    // No thread at all is a usage error.
    let o = run(&["convert", path_str(&input), "-", "--threads", "0"], None);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
fn convert_stream_to_file_to_stream() {
    let dir = common::temp_dir("convert_round_trip");
    let s = write_sample(&dir, "in.arrows", IpcFormat::Stream);
    let f = dir.join("out.arrow");
    let s2 = dir.join("back.arrows");
    ok(&run(
        &["convert", path_str(&s), path_str(&f), "--format", "file"],
        None,
    ));
    let fb = std::fs::read(&f).unwrap();
    assert!(fb.starts_with(b"ARROW1\0\0") && fb.ends_with(b"ARROW1"));
    assert_sample(&fb, IpcFormat::File);
    ok(&run(
        &["convert", path_str(&f), path_str(&s2), "--format", "stream"],
        None,
    ));
    let sb = std::fs::read(&s2).unwrap();
    assert!(sb.ends_with(&[0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0]));
    assert_sample(&sb, IpcFormat::Stream);
    // Without --format the output keeps the input's format.
    let f2 = dir.join("same.arrow");
    ok(&run(&["convert", path_str(&f), path_str(&f2)], None));
    assert_sample(&std::fs::read(&f2).unwrap(), IpcFormat::File);
    // In place: the output replaces the (mapped) input safely.
    ok(&run(
        &["convert", path_str(&s2), path_str(&s2), "--format", "file"],
        None,
    ));
    assert_sample(&std::fs::read(&s2).unwrap(), IpcFormat::File);
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.contains("alkaid-tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn convert_through_stdin_and_stdout() {
    let stream = common::encode(IpcFormat::Stream);
    let o = run(&["convert", "-", "-", "--format", "file"], Some(&stream));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_sample(&o.stdout, IpcFormat::File);
    // A file on stdin is detected too.
    let o2 = run(
        &["convert", "-", "-", "--format", "stream"],
        Some(&o.stdout),
    );
    ok(&o2);
    assert_sample(&o2.stdout, IpcFormat::Stream);
    let o3 = run(&["convert", "-", "-"], Some(&o2.stdout));
    ok(&o3);
    assert_eq!(o3.stdout, o2.stdout, "stream → stream is byte-stable");
    // cat, schema and validate read stdin as well.
    let o = run(&["cat", "-"], Some(&stream));
    ok(&o);
    assert_eq!(stdout(&o), common::CAT);
    let o = run(&["schema", "-"], Some(&common::encode(IpcFormat::File)));
    ok(&o);
    assert_eq!(stdout(&o), common::SCHEMA);
}

#[test]
fn convert_refusals_and_errors() {
    let dir = common::temp_dir("convert_errors");
    let s = write_sample(&dir, "in.arrows", IpcFormat::Stream);
    let out = dir.join("out.arrow");
    let o = run(
        &[
            "convert",
            path_str(&s),
            path_str(&out),
            "--compression",
            "brotli",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("invalid value 'brotli'"),
        "{}",
        stderr(&o)
    );
    assert!(!out.exists());
    ok(&run(
        &[
            "convert",
            path_str(&s),
            path_str(&out),
            "--compression",
            "none",
        ],
        None,
    ));
    // A failing sink reports the operating system's error.
    if Path::new("/dev/full").exists() {
        let o = run(&["convert", path_str(&s), "/dev/full"], None);
        let line = fails(&o, "error");
        assert_eq!(
            line,
            "error: /dev/full: No space left on device (os error 28)"
        );
    }
    // Invalid input leaves no output behind.
    let bad = dir.join("bad.arrows");
    std::fs::write(&bad, b"not arrow at all").unwrap();
    let o = run(
        &[
            "convert",
            path_str(&bad),
            path_str(&dir.join("never.arrow")),
        ],
        None,
    );
    fails(&o, "error");
    assert!(!dir.join("never.arrow").exists());
}

#[test]
fn validate_reports_valid_and_invalid() {
    let dir = common::temp_dir("validate");
    let s = write_sample(&dir, "in.arrows", IpcFormat::Stream);
    let f = write_sample(&dir, "in.arrow", IpcFormat::File);
    let o = run(&["validate", path_str(&s)], None);
    ok(&o);
    assert_eq!(stdout(&o), "valid: stream, 2 batches, 4 rows\n");
    let o = run(&["validate", path_str(&f)], None);
    ok(&o);
    assert_eq!(stdout(&o), "valid: file, 2 batches, 4 rows\n");

    // Break the UTF-8 of "alice": only full validation notices.
    let mut bytes = common::encode(IpcFormat::Stream);
    let at = bytes.windows(5).position(|w| w == b"alice").unwrap();
    bytes[at] = 0xFF;
    let bad = dir.join("bad_utf8.arrows");
    std::fs::write(&bad, &bytes).unwrap();
    let o = run(&["validate", path_str(&bad)], None);
    let why = "string value is not valid UTF-8 (message 1, field 1, buffer 4, byte offset 0)";
    assert_eq!(
        fails(&o, "invalid"),
        format!("invalid: {}: {why}", bad.display())
    );
    assert_eq!(stdout(&o), "");
    let o = run(&["validate", "-"], Some(&bytes));
    assert_eq!(fails(&o, "invalid"), format!("invalid: <stdin>: {why}"));

    // Other commands report the same reason as an error.
    let o = run(&["cat", path_str(&bad)], None);
    assert_eq!(
        fails(&o, "error"),
        format!("error: {}: {why}", bad.display())
    );

    let o = run(&["validate", path_str(&dir.join("missing.arrow"))], None);
    let line = fails(&o, "error");
    assert!(
        line.ends_with("missing.arrow: No such file or directory (os error 2)"),
        "{line}"
    );
}

#[test]
fn schema_and_cat_output() {
    let dir = common::temp_dir("schema_cat");
    let s = write_sample(&dir, "in.arrows", IpcFormat::Stream);
    let f = write_sample(&dir, "in.arrow", IpcFormat::File);
    for p in [&s, &f] {
        let o = run(&["schema", path_str(p)], None);
        ok(&o);
        assert_eq!(stdout(&o), common::SCHEMA);
        let o = run(&["cat", path_str(p)], None);
        ok(&o);
        assert_eq!(stdout(&o), common::CAT);
    }
    let o = run(&["cat", path_str(&s), "--limit", "2"], None);
    ok(&o);
    assert_eq!(
        stdout(&o),
        "\
id | name  | score | tags       | ts
---+-------+-------+------------+-------------------------
 1 | alice |   1.5 | [\"x\", \"y\"] | 1970-01-01T00:00:00.000Z
 2 | null  |  null | []         | null
"
    );
    let o = run(&["cat", path_str(&f), "--limit", "0"], None);
    ok(&o);
    assert_eq!(
        stdout(&o),
        "id | name | score | tags | ts\n---+------+-------+------+---\n"
    );
    let o = run(&["cat", path_str(&f), "--limit", "4"], None);
    ok(&o);
    assert_eq!(stdout(&o), common::CAT);
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &[][..],
        &["frobnicate"],
        &["cat"],
        &["convert", "a"],
        &["convert", "a", "b", "--format", "parquet"],
        &["cat", "a", "--limit", "-1"],
    ] {
        let o = run(args, None);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(!stderr(&o).contains("panicked"));
    }
    let o = run(&["--help"], None);
    ok(&o);
    for cmd in ["convert", "validate", "schema", "cat"] {
        assert!(stdout(&o).contains(cmd), "{}", stdout(&o));
    }
}

/// Runs `validate` on `bytes` as a file and through stdin; both must agree,
/// exit 0 or 1 (one `invalid:` line), and never panic. Returns the status.
fn validate_both_ways(dir: &Path, bytes: &[u8]) -> i32 {
    let p = dir.join("case.bin");
    std::fs::write(&p, bytes).unwrap();
    let a = run(&["validate", path_str(&p)], None);
    let b = run(&["validate", "-"], Some(bytes));
    for o in [&a, &b] {
        assert!(!stderr(o).contains("panicked"), "{}", stderr(o));
        match o.status.code() {
            Some(0) => assert_eq!(stderr(o), ""),
            Some(1) => {
                fails(o, "invalid");
            }
            c => panic!("exit {c:?} for {} bytes: {}", bytes.len(), stderr(o)),
        }
    }
    assert_eq!(a.status.code(), b.status.code(), "{bytes:?}");
    a.status.code().unwrap_or(-1)
}

#[test]
fn every_truncation_is_handled() {
    let dir = common::temp_dir("truncations");
    let stream = common::encode(IpcFormat::Stream);
    let mut valid_cuts = Vec::new();
    for n in 0..stream.len() {
        if validate_both_ways(&dir, &stream[..n]) == 0 {
            valid_cuts.push(n);
        }
    }
    // A stream cut at a message boundary is a (shorter) valid stream; the
    // cut must then fall after a whole message: never inside the schema.
    assert!(valid_cuts.iter().all(|&n| n > 100), "{valid_cuts:?}");
    assert!(valid_cuts.len() <= 4, "{valid_cuts:?}");
    // A file needs its footer and closing magic: every cut is invalid.
    let file = common::encode(IpcFormat::File);
    for n in (0..file.len()).step_by(3) {
        let p = dir.join("cut.arrow");
        std::fs::write(&p, &file[..n]).unwrap();
        let o = run(&["validate", path_str(&p)], None);
        fails(&o, "invalid");
    }
}

#[test]
fn garbage_never_panics() {
    let dir = common::temp_dir("garbage");
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut cases: Vec<Vec<u8>> = vec![
        Vec::new(),
        b"\n".to_vec(),
        b"ARROW1".to_vec(),
        b"ARROW1\0\0ARROW1".to_vec(),
        b"ALKAID1\0garbageALKAID1".to_vec(),
        vec![0xFF; 8],
        vec![0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F],
        vec![0xFF, 0xFF, 0xFF, 0xFF, 0x10, 0, 0, 0],
    ];
    for len in [1usize, 7, 8, 64, 300, 4096] {
        cases.push((0..len).map(|_| next() as u8).collect());
    }
    let mut fake = b"ARROW1\0\0".to_vec();
    fake.extend((0..200).map(|_| next() as u8));
    fake.extend_from_slice(b"ARROW1");
    cases.push(fake);
    for c in &cases {
        assert_eq!(validate_both_ways(&dir, c), 1, "{c:?}");
        for cmd in ["schema", "cat"] {
            let o = run(&[cmd, "-"], Some(c));
            fails(&o, "error");
        }
    }
}

#[test]
fn flipped_bytes_never_panic() {
    // Every byte of a small stream inverted in turn: reading, validating and
    // printing must end in a clean success or a one-line error.
    let stream = common::encode(IpcFormat::Stream);
    for i in 0..stream.len() {
        let mut bytes = stream.clone();
        bytes[i] ^= 0xFF;
        let o = run(&["cat", "-"], Some(&bytes));
        assert!(!stderr(&o).contains("panicked"), "byte {i}: {}", stderr(&o));
        match o.status.code() {
            Some(0) => {}
            Some(1) => {
                fails(&o, "error");
            }
            c => panic!("byte {i}: exit {c:?}: {}", stderr(&o)),
        }
    }
}

/// The shared golden files: `$ALKAID_GOLDEN_DIR`, else `../shared/golden`
/// beside the repository, else `/work/shared/golden`.
fn golden_dir() -> Option<PathBuf> {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    std::env::var_os("ALKAID_GOLDEN_DIR")
        .map(PathBuf::from)
        .into_iter()
        .chain([
            repo.join("../shared/golden"),
            PathBuf::from("/work/shared/golden"),
        ])
        .find(|d| d.is_dir())
}

#[test]
fn golden_files_print() {
    let Some(dir) = golden_dir() else {
        eprintln!("golden files not found: skipped");
        return;
    };
    let cpp = dir.join("cpp-21.0.0");
    let prim = cpp.join("generated_primitive.stream");
    let o = run(&["schema", path_str(&prim)], None);
    ok(&o);
    assert!(stdout(&o).starts_with(
        "bool_nullable: bool\nbool_nonnullable: bool not null\nint8_nullable: int8\n"
    ));
    assert!(
        stdout(&o).ends_with("float64_nullable: double\nfloat64_nonnullable: double not null\n")
    );

    let o = run(
        &[
            "schema",
            path_str(&cpp.join("generated_datetime.arrow_file")),
        ],
        None,
    );
    ok(&o);
    assert!(stdout(&o).contains("f11: timestamp[s, tz=UTC]\nf12: timestamp[ms, tz=US/Eastern]\n"));

    let o = run(
        &[
            "cat",
            path_str(&cpp.join("generated_nested.arrow_file")),
            "--limit",
            "3",
        ],
        None,
    );
    ok(&o);
    let text = stdout(&o);
    assert_eq!(text.lines().count(), 5, "{text}");
    assert!(text.starts_with("list_nullable "), "{text}");

    // Both encodings of every case print the same rows.
    let mut compared = 0;
    for sub in [
        "cpp-21.0.0",
        "1.0.0-bigendian",
        "2.0.0-compression",
        "4.0.0-shareddict",
    ] {
        let Ok(entries) = std::fs::read_dir(dir.join(sub)) else {
            continue;
        };
        for e in entries {
            let p = e.unwrap().path();
            if p.extension().and_then(|x| x.to_str()) != Some("stream") {
                continue;
            }
            let file = p.with_extension("arrow_file");
            let a = run(&["cat", path_str(&p)], None);
            let b = run(&["cat", path_str(&file)], None);
            for o in [&a, &b] {
                assert!(
                    !stderr(o).contains("panicked"),
                    "{}: {}",
                    p.display(),
                    stderr(o)
                );
                ok(o);
            }
            assert_eq!(a.stdout, b.stdout, "{}", p.display());
            compared += 1;
        }
    }
    // Every golden stream of the four sets (59), none skipped.
    assert_eq!(compared, 59, "golden pairs read");
}

/// `validate` reads what pyarrow reads: a golden file whose decimals exceed
/// their precision (pyarrow's `validate(full=True)` refuses it, its reader
/// does not) is valid with one warning per batch naming the rule, the batch
/// and the field; `--strict` refuses it with the rule and its location.
#[test]
fn validate_warns_of_value_rules_and_strict_refuses() {
    let Some(dir) = golden_dir() else {
        panic!("golden files not found");
    };
    let big = dir.join("1.0.0-bigendian");
    for (file, head) in [
        ("generated_decimal.stream", "valid: stream, 36 batches"),
        ("generated_decimal.arrow_file", "valid: file, 36 batches"),
    ] {
        let p = big.join(file);
        let o = run(&["validate", path_str(&p)], None);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert!(stdout(&o).starts_with(head), "{}", stdout(&o));
        assert!(
            stdout(&o).ends_with("rows (36 batches break value rules; --strict refuses them)\n"),
            "{}",
            stdout(&o)
        );
        let warnings: Vec<String> = stderr(&o).lines().map(str::to_string).collect();
        assert_eq!(warnings.len(), 36);
        assert_eq!(
            warnings[0],
            format!(
                "warning: {}: batch 0: decimal value does not fit in its precision (field 0)",
                p.display()
            )
        );
        let o = run(&["validate", "--strict", path_str(&p)], None);
        let message = if file.ends_with(".stream") { 1 } else { 0 };
        assert_eq!(
            fails(&o, "invalid"),
            format!(
                "invalid: {}: decimal value does not fit in its precision \
                 (message {message}, field 0, buffer 1)",
                p.display()
            )
        );
    }
    // A file that keeps every rule: no warning either way.
    let prim = dir.join("cpp-21.0.0/generated_primitive.stream");
    for args in [&["validate"][..], &["validate", "--strict"]] {
        let mut args = args.to_vec();
        args.push(path_str(&prim));
        let o = run(&args, None);
        ok(&o);
        assert!(stdout(&o).starts_with("valid: stream, "), "{}", stdout(&o));
    }
}

#[test]
fn wrong_inputs_are_named_with_their_path() {
    let dir = common::temp_dir("wrong_inputs");
    let file = common::encode(IpcFormat::File);
    let cut = file.len() - 10;
    let cases: [(&str, Vec<u8>, String); 5] = [
        (
            "data.parquet",
            b"PAR1\x15\x04\x15\x10\x15\x14L\x15\x02\x15\x00\x12\x00\x00PAR1".to_vec(),
            "a Parquet file, not Arrow IPC".into(),
        ),
        (
            "table.csv",
            b"id,name\n1,alice\n2,bob\n".to_vec(),
            "text (such as CSV or JSON), not Arrow IPC".into(),
        ),
        (
            "cut.arrow",
            file[..cut].to_vec(),
            format!("an Arrow IPC file truncated at byte {cut}: the footer is missing"),
        ),
        (
            "empty.arrow",
            Vec::new(),
            "empty input (0 bytes), not Arrow IPC".into(),
        ),
        (
            "magic-only.arrow",
            b"ARROW1\0\0".to_vec(),
            "an Arrow IPC file truncated at byte 8: the footer is missing".into(),
        ),
    ];
    for (name, bytes, why) in &cases {
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        for (cmd, tag) in [
            ("validate", "invalid"),
            ("cat", "error"),
            ("schema", "error"),
        ] {
            let o = run(&[cmd, path_str(&p)], None);
            assert_eq!(fails(&o, tag), format!("{tag}: {}: {why}", p.display()));
        }
        let out = dir.join("never.arrow");
        let o = run(&["convert", path_str(&p), path_str(&out)], None);
        assert_eq!(fails(&o, "error"), format!("error: {}: {why}", p.display()));
        assert!(!out.exists());
        // Through standard input: named `<stdin>`.
        let o = run(&["validate", "-"], Some(bytes));
        assert_eq!(fails(&o, "invalid"), format!("invalid: <stdin>: {why}"));
    }
}

#[test]
fn cat_fits_width_elides_columns_or_goes_vertical() {
    let dir = common::temp_dir("cat_width");
    let s = write_sample(&dir, "in.arrows", IpcFormat::Stream);
    let p = path_str(&s);
    let o = run(&["cat", p, "--limit", "2", "--width", "40"], None);
    ok(&o);
    assert_eq!(
        stdout(&o),
        "\
id | … | ts
---+---+-------------------------
 1 | … | 1970-01-01T00:00:00.000Z
 2 | … | null
(3 of 5 columns not shown; use --width or --vertical)
"
    );
    // Wide enough for everything: no marker, no note.
    let o = run(&["cat", p, "--limit", "2", "--width", "58"], None);
    ok(&o);
    assert!(!stdout(&o).contains('…'), "{}", stdout(&o));
    // --max-width still cuts cells (and narrower cells let more columns in).
    let o = run(
        &[
            "cat",
            p,
            "--limit",
            "2",
            "--width",
            "30",
            "--max-width",
            "6",
        ],
        None,
    );
    ok(&o);
    assert_eq!(
        stdout(&o),
        "\
id | name  | … | ts
---+-------+---+-------
 1 | alice | … | 1970-…
 2 | null  | … | null
(2 of 5 columns not shown; use --width or --vertical)
"
    );
    let o = run(&["cat", p, "--limit", "2", "--vertical"], None);
    ok(&o);
    assert_eq!(
        stdout(&o),
        "\
-[ row 1 ]-
id: 1
name: alice
score: 1.5
tags: [\"x\", \"y\"]
ts: 1970-01-01T00:00:00.000Z
-[ row 2 ]-
id: 2
name: null
score: null
tags: []
ts: null
"
    );
}
