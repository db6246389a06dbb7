//! alkaid-std's Flight client against pyarrow's Flight server
//! (`tests/python/flight_server.py`, run with `$ALKAID_PYTHON`, else
//! `<repo>/.venv/bin/python`). Built with the `interop` feature only
//! (`scripts/test.sh interop`), which turns on alkaid-std's `flight`.
//!
//! - Every golden stream our readers read is put (`DoPut`) and got back
//!   (`GetFlightInfo` + `DoGet`), and what comes back equals the golden
//!   JSON: schema with its metadata (extension types), dictionaries, values.
//! - A server that refuses uploads: the call fails with its gRPC status.
//! - A server that goes away in the middle of an upload: the call fails
//!   within the client's keep-alive bound instead of hanging.
#![cfg(feature = "interop")]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use alkaid::array::{Array, Int64Array, RecordBatch};
use alkaid_std::flight::{Code, FlightClient};
use alkaid_std::{Error, IpcInput, StreamWriter};
use alkaid_tests::harness::{cases, golden_dir, run_reader_with, Codecs, Outcome, Reader};
use alkaid_tests::interop::{python, python_script, require_pyarrow};
use alkaid_tests::json::read_json_file;

/// A running `flight_server.py`, killed on drop.
struct Server {
    child: Child,
    url: String,
}

impl Server {
    fn start(args: &[&str]) -> Server {
        require_pyarrow();
        let mut child = Command::new(python())
            .arg(python_script("flight_server.py"))
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start flight_server.py");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("the server's port");
        let port: u16 = line.trim().parse().expect("a port number");
        Server {
            child,
            url: format!("grpc://127.0.0.1:{port}"),
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn stream_bytes(
    schema: &alkaid::datatypes::Schema<'static>,
    batches: &[RecordBatch<'static>],
) -> Vec<u8> {
    let mut w = StreamWriter::try_new(Vec::new(), schema).unwrap();
    for b in batches {
        w.write(b).unwrap();
    }
    w.finish().unwrap();
    w.into_inner()
}

#[test]
fn put_then_get_every_golden_stream() {
    let server = Server::start(&[]);
    let mut client = FlightClient::connect(&server.url).unwrap();
    let (mut passed, mut skipped, mut failed) = (0, 0, Vec::new());
    for case in cases(&golden_dir()) {
        let json = read_json_file(&case.json_path()).unwrap();
        let Ok(bytes) = std::fs::read(case.stream_path()) else {
            continue;
        };
        // Files our readers refuse (the harness's expected failures) are
        // not uploaded.
        if !matches!(
            run_reader_with(Reader::SliceStream, &bytes, &json, Codecs::Std),
            Outcome::Pass { .. }
        ) {
            skipped += 1;
            continue;
        }
        let label = format!("{}/{}", case.dir, case.stem);
        let input = IpcInput::from_bytes(&bytes).unwrap();
        let reader = input.reader().unwrap();
        let schema = reader.schema().clone();
        let path = [case.dir, case.stem.as_str()];
        if let Err(e) = client.put(&path, &schema, reader) {
            failed.push(format!("{label}: put: {e}"));
            continue;
        }
        let got = match client.get(&path) {
            Ok(r) => r,
            Err(e) => {
                failed.push(format!("{label}: get: {e}"));
                continue;
            }
        };
        let got_schema = got.schema().clone();
        let batches = match got.collect::<alkaid_std::Result<Vec<_>>>() {
            Ok(b) => b,
            Err(e) => {
                failed.push(format!("{label}: get: {e}"));
                continue;
            }
        };
        let back = stream_bytes(&got_schema, &batches);
        match run_reader_with(Reader::SliceStream, &back, &json, Codecs::Std) {
            Outcome::Pass { .. } => passed += 1,
            other => failed.push(format!("{label}: {other}")),
        }
    }
    println!(
        "flight round trips: {passed} equal, {skipped} not read by us, {} failed",
        failed.len()
    );
    assert!(failed.is_empty(), "{failed:#?}");
    assert!(
        passed >= 30,
        "only {passed} golden streams went through Flight"
    );
}

fn small_batch(v: i64) -> RecordBatch<'static> {
    RecordBatch::try_from_iter([("v", Int64Array::from(vec![v, v + 1]).into_array_ref())]).unwrap()
}

#[test]
fn a_refused_upload_reports_the_servers_status() {
    let server = Server::start(&["--refuse"]);
    let mut client = FlightClient::connect(&server.url).unwrap();
    let b = small_batch(1);
    let err = client.put(&["x"], b.schema(), [Ok(b.clone())]).unwrap_err();
    let Error::Flight(status) = &err else {
        panic!("not a Flight error: {err}");
    };
    assert_eq!(status.code(), Code::PermissionDenied, "{err}");
    assert!(
        err.to_string()
            .contains("uploads are refused by this server"),
        "{err}"
    );
    // Getting a flight that does not exist: NotFound.
    let err = client.get(&["missing"]).unwrap_err();
    assert!(
        matches!(&err, Error::Flight(s) if s.code() == Code::NotFound),
        "{err}"
    );
}

#[test]
fn a_server_that_goes_away_mid_upload_fails_the_call_without_hanging() {
    let mut server = Server::start(&[]);
    let mut client = FlightClient::connect(&server.url).unwrap();
    let b = small_batch(1);
    let schema = b.schema().clone();
    let mut n = 0i64;
    let start = Instant::now();
    // A live source: after two batches the server is killed, then batches
    // keep coming (for at most 60 s) until the client notices.
    let batches = std::iter::from_fn(|| {
        n += 1;
        if n == 3 {
            let _ = server.child.kill();
            let _ = server.child.wait();
        }
        if start.elapsed() > Duration::from_secs(60) {
            return None;
        }
        std::thread::sleep(Duration::from_millis(5));
        Some(Ok(small_batch(n)))
    });
    let err = client.put(&["live"], &schema, batches).unwrap_err();
    assert!(matches!(err, Error::Flight(_)), "{err}");
    assert!(
        start.elapsed() < Duration::from_secs(60),
        "the client noticed only after {:?}",
        start.elapsed()
    );
}
