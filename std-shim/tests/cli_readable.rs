//! The `alkaid` binary as a person reads it: table layout, abbreviated
//! metadata, errors that name what the user gave, and an interrupted
//! `convert` that leaves no temporary file behind.

mod common;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use alkaid::buffer::{SharedSlice, SharedStr};
use alkaid_std::array::{Array, Int64Array, RecordBatch, StringArray};
use alkaid_std::{IpcFormat, IpcWriteOptions, IpcWriter};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_alkaid"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run alkaid")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn path_str(p: &Path) -> &str {
    p.to_str().expect("UTF-8 temp path")
}

fn write_ipc(path: &Path, batches: &[RecordBatch<'static>], format: IpcFormat) {
    let schema = batches[0].schema();
    let mut w = IpcWriter::try_new(Vec::new(), format, schema, IpcWriteOptions::default()).unwrap();
    for b in batches {
        w.write(b).unwrap();
    }
    w.finish().unwrap();
    std::fs::write(path, w.into_inner()).unwrap();
}

#[test]
fn cat_prints_one_table_with_right_aligned_numbers_and_cut_cells() {
    let dir = common::temp_dir("readable_cat");
    let batch = |ids: Vec<i64>, notes: Vec<Option<&'static str>>| {
        RecordBatch::try_from_iter([
            ("id", Int64Array::from(ids).into_array_ref()),
            ("note", StringArray::from(notes).into_array_ref()),
        ])
        .unwrap()
    };
    let long = "a note far longer than forty characters, which is cut";
    let p = dir.join("t.arrow");
    write_ipc(
        &p,
        &[
            batch(vec![7, 42], vec![Some("short"), None]),
            batch(vec![-1234567, 0], vec![Some(long), None]),
        ],
        IpcFormat::File,
    );
    // One header; widths set by the first batch and widened by the second.
    let o = run(&["cat", path_str(&p)]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(
        text(&o.stdout),
        "id | note\n\
         ---+------\n \
          7 | short\n\
         42 | null\n\
         -1234567 | a note far longer than forty characters…\n       \
                0 | null\n"
    );
    // --max-width 0 prints cells whole; a small width cuts names too.
    let o = run(&["cat", "--max-width", "0", path_str(&p), "--limit", "3"]);
    assert!(
        text(&o.stdout).ends_with(&format!("-1234567 | {long}\n")),
        "{}",
        text(&o.stdout)
    );
    let o = run(&["cat", "--max-width", "3", path_str(&p), "--limit", "1"]);
    assert_eq!(text(&o.stdout), "id | no…\n---+----\n 7 | sh…\n");
}

#[test]
fn schema_abbreviates_long_metadata_unless_full() {
    let dir = common::temp_dir("readable_schema");
    let value = format!("{{\"columns\": [{}]}}", "\"x\", ".repeat(30));
    let meta = SharedSlice::from(vec![(
        SharedStr::borrowed("pandas"),
        SharedStr::try_from_str_in(&value, alkaid::Global).unwrap(),
    )]);
    let batch =
        RecordBatch::try_from_iter([("x", Int64Array::from(vec![1]).into_array_ref())]).unwrap();
    let schema = batch.schema().clone().with_metadata(meta);
    let batch = RecordBatch::try_new(schema, batch.columns().to_vec()).unwrap();
    let p = dir.join("m.arrows");
    write_ipc(&p, &[batch], IpcFormat::Stream);
    let o = run(&["schema", path_str(&p)]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let left_out = value.chars().count() - 64;
    assert_eq!(
        text(&o.stdout),
        format!(
            "x: int64 not null\n-- schema metadata --\npandas: '{}' + {left_out}\n",
            &value[..64]
        )
    );
    let o = run(&["schema", "--full", path_str(&p)]);
    assert_eq!(
        text(&o.stdout),
        format!("x: int64 not null\n-- schema metadata --\npandas: '{value}'\n")
    );
}

#[test]
fn errors_name_what_the_user_gave() {
    let dir = common::temp_dir("readable_errors");
    let csv = dir.join("table.csv");
    std::fs::write(&csv, "id,name\n1,alice\n2,bob\n").unwrap();
    for (cmd, tag) in [
        ("cat", "error"),
        ("schema", "error"),
        ("validate", "invalid"),
    ] {
        let o = run(&[cmd, path_str(&csv)]);
        assert_eq!(o.status.code(), Some(1));
        assert_eq!(
            text(&o.stderr),
            format!(
                "{tag}: {}: text (such as CSV or JSON), not Arrow IPC\n",
                csv.display()
            )
        );
    }
    // Writing into a directory that does not exist names the output as
    // given, not the temporary file beside it.
    let input = dir.join("in.arrow");
    std::fs::write(&input, common::encode(IpcFormat::File)).unwrap();
    let out = dir.join("missing").join("out.arrow");
    let o = run(&["convert", path_str(&input), path_str(&out)]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        text(&o.stderr),
        format!(
            "error: {}: No such file or directory (os error 2)\n",
            out.display()
        )
    );
}

/// Starts `convert - OUT` fed one batch and kept waiting for more, sends
/// `signal` once its temporary file exists, and returns its exit code and
/// what is left in the directory.
fn interrupt_convert(dir: &Path, signal: &str) -> (Option<i32>, Vec<String>) {
    let out = dir.join("out.arrow");
    let mut child = Command::new(env!("CARGO_BIN_EXE_alkaid"))
        .args(["convert", "-", path_str(&out), "--format", "file"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stream = common::encode(IpcFormat::Stream);
    let mut stdin = child.stdin.take().unwrap();
    // The schema and the first batch, not the end of the stream: the
    // program waits for more while its temporary file is open.
    stdin.write_all(&stream[..stream.len() / 2]).unwrap();
    stdin.flush().unwrap();
    let tmp_exists = || {
        std::fs::read_dir(dir).unwrap().any(|e| {
            e.unwrap()
                .file_name()
                .to_string_lossy()
                .contains("alkaid-tmp")
        })
    };
    let start = Instant::now();
    while !tmp_exists() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no temporary file appeared"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let killed = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = child.wait().unwrap();
    drop(stdin);
    let left = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    (status.code(), left)
}

#[test]
fn interrupted_convert_removes_its_temporary_file() {
    for signal in ["-TERM", "-INT"] {
        let dir = common::temp_dir(&format!("readable_interrupt{signal}"));
        let (code, left) = interrupt_convert(&dir, signal);
        assert_eq!(code, Some(130), "{signal}");
        assert_eq!(left, Vec::<String>::new(), "{signal}");
    }
}
