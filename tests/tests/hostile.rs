//! Hostile input built from every golden file: every truncation point of every
//! stream, truncations of files at many points, and
//! single-byte corruptions must give an error or batches that pass full
//! validation, never a panic; the same through `alkaid validate`.

use alkaid::array::ValidationLevel;
use alkaid::ipc::reader::{FileReader, IpcReadOptions, SliceStreamReader, StreamReader};
use alkaid::Global as G;
use alkaid_tests::harness::{cases, golden_dir};

/// Reads every batch of a stream; batches that decode must validate fully.
fn probe_stream(bytes: &[u8]) {
    if let Ok(r) = SliceStreamReader::try_new_in(bytes, IpcReadOptions::default(), G) {
        for b in r {
            match b {
                Ok(b) => b
                    .validate(ValidationLevel::Full)
                    .expect("decoded batch validates"),
                Err(_) => break,
            }
        }
    }
}

fn probe_stream_read(bytes: &[u8]) {
    if let Ok(r) = StreamReader::try_new_in(bytes, IpcReadOptions::default(), G) {
        for b in r {
            match b {
                Ok(b) => b
                    .validate(ValidationLevel::Full)
                    .expect("decoded batch validates"),
                Err(_) => break,
            }
        }
    }
}

fn probe_file(bytes: &[u8]) {
    if let Ok(mut r) = FileReader::try_new_in(bytes, IpcReadOptions::default(), G) {
        for i in 0..r.num_batches().min(64) {
            if let Ok(b) = r.batch(i) {
                b.validate(ValidationLevel::Full)
                    .expect("decoded batch validates");
            }
        }
    }
}

/// Positions to cut or corrupt: every byte of small inputs and of the first
/// 512 bytes (the schema and first headers), then about `n` spread evenly.
fn positions(len: usize, n: usize) -> Vec<usize> {
    let mut v: Vec<usize> = (0..len.min(512)).collect();
    if len > 512 {
        let step = ((len - 512) / n).max(1);
        v.extend((512..len).step_by(step));
    }
    v
}

/// The encapsulated messages of a well-formed stream: for each, the range of
/// its bytes (prefix, metadata, padding, body) and whether it is a schema or
/// dictionary batch (which later messages depend on); the last range is the
/// end-of-stream marker.
fn messages(stream: &[u8]) -> Vec<(std::ops::Range<usize>, bool)> {
    use alkaid::ipc::message::{MessageHeader, MessageView};
    let word = |at: usize| u32::from_le_bytes(stream[at..at + 4].try_into().unwrap());
    let mut out = Vec::new();
    let mut pos = 0;
    while pos + 4 <= stream.len() {
        let (len, meta) = if word(pos) == 0xFFFF_FFFF {
            (word(pos + 4) as usize, pos + 8)
        } else {
            (word(pos) as usize, pos + 4) // legacy framing
        };
        if len == 0 {
            break;
        }
        let m = MessageView::decode(&stream[meta..meta + len]).expect("golden message");
        let end = meta + len + m.body_length as usize;
        let keep = !matches!(m.header, MessageHeader::RecordBatch(_));
        out.push((pos..end, keep));
        pos = end;
    }
    // The end-of-stream marker and anything after it.
    out.push((pos..stream.len(), false));
    out
}

/// Inputs above this size are cut message by message (see below).
const WHOLE_PREFIX_LIMIT: usize = 64 * 1024;

/// Every truncation point of every golden stream, read by the zero-copy
/// reader. Streams up to 64 KiB are cut literally (`stream[..n]` for every
/// `n`). For the two larger ones (big-endian decimals, 250–360 KB, 33–36
/// batches) re-reading the whole prefix for each of 600,000 cuts takes too
/// long unoptimised, so each message is cut at every byte behind the messages
/// the reader's state depends on (the schema and any dictionary batch before
/// it): the reader is in the same state at the cut as in the literal prefix,
/// since earlier record batches leave no state behind.
#[test]
fn every_truncation_point_of_every_golden_stream() {
    let mut cuts = 0usize;
    for case in cases(&golden_dir()) {
        let stream = std::fs::read(case.stream_path()).unwrap();
        if stream.len() <= WHOLE_PREFIX_LIMIT {
            for n in 0..=stream.len() {
                probe_stream(&stream[..n]);
            }
            cuts += stream.len() + 1;
            continue;
        }
        let mut state: Vec<u8> = Vec::new();
        for (range, keep) in messages(&stream) {
            let mut input = state.clone();
            let base = input.len();
            input.extend_from_slice(&stream[range.clone()]);
            for n in base..=input.len() {
                probe_stream(&input[..n]);
            }
            cuts += range.len();
            if keep {
                state.extend_from_slice(&stream[range]);
            }
        }
        assert!(!state.is_empty(), "{}: no schema message", case.stem);
    }
    assert!(cuts > 800_000, "{cuts} cuts");
}

#[test]
fn truncated_golden_inputs_never_panic() {
    for case in cases(&golden_dir()) {
        let stream = std::fs::read(case.stream_path()).unwrap();
        for n in positions(stream.len(), 400) {
            probe_stream(&stream[..n]);
        }
        for n in positions(stream.len(), 40) {
            probe_stream_read(&stream[..n]);
        }
        let file = std::fs::read(case.file_path()).unwrap();
        for n in positions(file.len(), 100) {
            probe_file(&file[..n]);
        }
    }
}

#[test]
fn corrupted_golden_inputs_never_panic() {
    for case in cases(&golden_dir()) {
        let stream = std::fs::read(case.stream_path()).unwrap();
        let mut bad = stream.clone();
        for i in positions(stream.len(), 200) {
            for x in [0xFFu8, 0x01, 0x80] {
                bad[i] ^= x;
                probe_stream(&bad);
                bad[i] ^= x;
            }
        }
        let file = std::fs::read(case.file_path()).unwrap();
        let mut bad = file.clone();
        let len = file.len();
        // The footer sits at the end: corrupt it too.
        let tail: Vec<usize> = (len.saturating_sub(256)..len).collect();
        for i in positions(len, 60).into_iter().chain(tail) {
            bad[i] ^= 0xFF;
            probe_file(&bad);
            bad[i] ^= 0xFF;
        }
    }
}

/// `alkaid validate` on corrupted and truncated golden streams: exit 0 or 1,
/// one line on stderr when invalid, and never a panic.
#[test]
fn alkaid_validate_never_panics_on_golden_corruptions() {
    let exe = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../target")
        .join(if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        })
        .join("alkaid");
    let status = std::process::Command::new(env!("CARGO"))
        .args(["build", "-q", "-p", "alkaid-std", "--bin", "alkaid"])
        .status()
        .expect("cargo build");
    assert!(status.success());
    let dir = tempdir();
    let mut runs = 0;
    for case in &cases(&golden_dir()) {
        let stream = std::fs::read(case.stream_path()).unwrap();
        let len = stream.len();
        let mut inputs: Vec<Vec<u8>> = Vec::new();
        for k in 1..=4 {
            inputs.push(stream[..len * k / 5].to_vec());
            let mut bad = stream.clone();
            bad[(len * k / 5 + 13) % len] ^= 0xFF;
            inputs.push(bad);
        }
        for (j, input) in inputs.iter().enumerate() {
            let path = dir.join(format!("{}-{j}.stream", case.stem));
            std::fs::write(&path, input).unwrap();
            let out = std::process::Command::new(&exe)
                .arg("validate")
                .arg(&path)
                .output()
                .expect("run alkaid");
            runs += 1;
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(!stderr.contains("panicked"), "{}: {stderr}", path.display());
            match out.status.code() {
                Some(0) => {}
                Some(1) => assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}"),
                other => panic!("{}: exit {other:?}: {stderr}", path.display()),
            }
        }
    }
    assert!(runs >= 100, "{runs} runs");
}

fn tempdir() -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("alkaid-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}
