//! Live inputs of the `alkaid` binary: `cat --follow` of a stream file that
//! is still being written and `cat tcp://HOST:PORT` print each batch as soon
//! as it is complete; a stream cut off keeps the batches sent whole.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

use alkaid_std::{IpcFormat, IpcWriteOptions, IpcWriter};

/// The sample as a stream, and the length of its part up to (and with) the
/// first record batch.
fn stream_and_first_cut(format: IpcFormat) -> (Vec<u8>, usize) {
    let (schema, batches) = common::sample();
    let options = IpcWriteOptions {
        alignment: 8,
        ..Default::default()
    };
    let mut w = IpcWriter::try_new(Vec::new(), format, &schema, options).unwrap();
    w.write(&batches[0]).unwrap();
    let mut first = IpcWriter::try_new(Vec::new(), format, &schema, options).unwrap();
    first.write(&batches[0]).unwrap();
    let cut = first.into_inner().len();
    w.write(&batches[1]).unwrap();
    w.finish().unwrap();
    (w.into_inner(), cut)
}

/// Lines of the child's stdout as they come.
fn lines(stdout: ChildStdout) -> Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// The first `n` lines, each waited for at most a minute (a program that
/// holds batches back fails here instead of hanging).
fn take(rx: &Receiver<String>, n: usize) -> Vec<String> {
    (0..n)
        .map(|_| {
            rx.recv_timeout(Duration::from_secs(60))
                .expect("a batch's rows were not printed while the input was still open")
        })
        .collect()
}

fn spawn(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_alkaid"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// The sample's table split after the first batch (header, rule, 3 rows).
fn first_and_rest() -> (Vec<String>, Vec<String>) {
    let all: Vec<String> = common::CAT.lines().map(str::to_string).collect();
    (all[..5].to_vec(), all[5..].to_vec())
}

fn path_str(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn cat_follow_prints_batches_of_a_growing_file_as_they_arrive() {
    for format in [IpcFormat::Stream, IpcFormat::File] {
        let dir = common::temp_dir(&format!("live_follow_{format}"));
        let path = dir.join("growing.arrow");
        let (bytes, cut) = stream_and_first_cut(format);
        let mut file = std::fs::File::create(&path).unwrap();
        file.write_all(&bytes[..cut]).unwrap();
        file.flush().unwrap();
        let mut child = spawn(&["cat", "--follow", path_str(&path)]);
        let rx = lines(child.stdout.take().unwrap());
        let (first, rest) = first_and_rest();
        assert_eq!(take(&rx, first.len()), first, "{format}");
        // Still following: the end-of-stream marker has not been written.
        assert!(child.try_wait().unwrap().is_none(), "{format}");
        file.write_all(&bytes[cut..]).unwrap();
        file.flush().unwrap();
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(0), "{format}");
        assert_eq!(rx.iter().collect::<Vec<_>>(), rest, "{format}");
    }
}

#[test]
fn cat_follow_with_idle_timeout_reports_a_truncated_stream_after_its_batches() {
    let dir = common::temp_dir("live_idle");
    let path = dir.join("cut.arrows");
    let (bytes, cut) = stream_and_first_cut(IpcFormat::Stream);
    // The first batch whole, then half of the second message.
    std::fs::write(&path, &bytes[..cut + (bytes.len() - cut) / 2]).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_alkaid"))
        .args(["cat", "--follow", "--idle-timeout", "0.3", path_str(&path)])
        .output()
        .unwrap();
    let (first, _) = first_and_rest();
    let printed: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(printed, first);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "error: {}: no new bytes for 0.3 s: the writer stopped before the end of the stream\n",
            path.display()
        )
    );
}

#[test]
fn cat_reads_a_tcp_stream_as_it_arrives() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = format!("tcp://{}", listener.local_addr().unwrap());
    let mut child = spawn(&["cat", &addr]);
    let (mut conn, _) = listener.accept().unwrap();
    let (bytes, cut) = stream_and_first_cut(IpcFormat::Stream);
    conn.write_all(&bytes[..cut]).unwrap();
    let rx = lines(child.stdout.take().unwrap());
    let (first, rest) = first_and_rest();
    assert_eq!(take(&rx, first.len()), first);
    assert!(child.try_wait().unwrap().is_none());
    conn.write_all(&bytes[cut..]).unwrap();
    drop(conn);
    assert_eq!(child.wait().unwrap().code(), Some(0));
    assert_eq!(rx.iter().collect::<Vec<_>>(), rest);
}
