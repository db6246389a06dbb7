//! Differential test of our IPC readers against arrow-rs on mutated golden
//! inputs: the twin of `tests/differential_pyarrow.rs` (package
//! `alkaid-tests`), on the same inputs.
//!
//! The inputs, our verdict, the matching against the table and the report
//! are [`alkaid_tests::differential`]'s: every `.stream` and `.arrow_file`
//! of the golden folders, unmutated and with the same seeded mutations
//! (byte flips, changed scalars, truncations, dropped, duplicated and
//! reordered messages or footer blocks; [`alkaid_tests::mutate`]). Our
//! verdict is that of our zero-copy reader of the format, every batch
//! validated at the default level (and our `Read`-based reader must agree).
//!
//! arrow-rs's verdict is its default reader's: `arrow_ipc::reader::
//! StreamReader` or `FileReader` with default options (which validate every
//! array they build, as `ArrayData::validate_data`, level by level, and
//! every `RecordBatch` against its schema), reading every batch. It runs in
//! a child process (this test binary again, running [`arrow_rs_worker`] over
//! a manifest of the inputs), because arrow-rs aborts the process on some
//! corrupt inputs (an allocation of a corrupt length fails); the child is
//! started again after the input it died on. A panic of arrow-rs (caught in
//! the child) and an abort both count as rejections (the error says
//! `arrow-rs panicked` / `arrow-rs aborted`) and are listed in the output.
//! `ArrayData::validate_full` on every column of what arrow-rs accepted is
//! arrow-rs's strongest check: where it refuses what the reader accepted,
//! the output lists it, for information only (it is not the verdict).
//!
//! When both accept, arrow-rs reads our rewrite (what we read, written by
//! our `StreamWriter`) and it must equal arrow-rs's reading of the input:
//! the schema with its metadata, and every batch (`RecordBatch ==`).
//!
//! Every disagreement must match an entry of [`JUSTIFIED`], each with its
//! reason from the spec; an entry that matches nothing fails the test, as
//! does any other disagreement and any panic of ours. The documented list
//! of justified differences of our default verdict from pyarrow's and
//! arrow-rs's is the table of `docs/verdicts.md`: keep it in step with
//! [`JUSTIFIED`]. Ignored without the `interop` feature
//! (`scripts/test.sh interop` runs it); `-- --nocapture` prints the counts.
//! The inputs and our rewrites are left in
//! `target/tmp/differential-arrow-rs/` (`manifest.json` lists them with
//! their mutation, `verdicts.json` both verdicts on each).

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::io::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Once;

use alkaid_tests::differential::{judge, our_entries, panic_text, Justified, Kind, Ours, Theirs};
use alkaid_tests::interop::{repo_root, scratch_dir, Format};

mod common;
use common::{rs_diff, rs_read, RsRead};

/// The strict table of justified differences with arrow-rs.
///
/// An entry that no input matches any more fails the test: remove it with
/// the change that made it stale.
const JUSTIFIED: &[Justified] = &[
    // ---- arrow-rs accepts, we reject: checks arrow-rs does not make.
    Justified {
        kind: Kind::TheirsOnly,
        input: "",
        mutation: "",
        ours: "Error::UnalignedBodyBuffer",
        theirs: "",
        reason: "Columnar format, 'Buffer Alignment and Padding', and 'Encapsulated message \
                 format' (the body: buffers with 8-byte alignment): we refuse a Buffer.offset \
                 that is not a multiple of 8; arrow-rs copies an unaligned buffer into an \
                 aligned one (its readers' require_alignment is off by default)",
    },
    Justified {
        kind: Kind::TheirsOnly,
        input: "",
        mutation: "",
        ours: "Error::UnsupportedVersion",
        theirs: "",
        reason: "Schema.fbs MetadataVersion: V1-V3 are pre-1.0 layouts and any value past V5 \
                 is a future format; we read V4 and V5 messages only (as pyarrow does); \
                 arrow-rs 60's StreamReader does not look at a message's version (but for \
                 the union layout of V4)",
    },
    Justified {
        kind: Kind::TheirsOnly,
        input: "",
        mutation: "",
        ours: "Error::InvalidFieldNode",
        theirs: "",
        reason: "Message.fbs FieldNode: null_count is the number of null slots of the node, so \
                 0 <= null_count <= length; arrow-rs takes a negative null_count for 0 and \
                 drops the node's validity bitmap (its slots all read as valid)",
    },
    Justified {
        kind: Kind::TheirsOnly,
        input: ".arrow_file",
        mutation: "",
        ours: "Error::BlockMessageMismatch",
        theirs: "",
        reason: "IPC file format: a footer Block locates one encapsulated message (its \
                 metaDataLength covers the message's length prefix and metadata, its \
                 bodyLength is the message's Message.bodyLength); we refuse a block that \
                 disagrees with its message (as pyarrow does), arrow-rs reads the message \
                 with the block's lengths and ignores the message's own framing",
    },
    Justified {
        kind: Kind::TheirsOnly,
        input: ".arrow_file",
        mutation: "metadata length prefix",
        ours: "",
        theirs: "",
        reason: "as the entry above: a message's metadata length prefix that disagrees with \
                 its block (-1, or beyond ReadLimits::max_metadata_size) is refused before the \
                 two are compared; arrow-rs never reads the prefix of a message in a file",
    },
    Justified {
        kind: Kind::TheirsOnly,
        input: ".arrow_file",
        mutation: "Block.",
        ours: "Error::UnalignedBlock",
        theirs: "",
        reason: "IPC file format and 'Encapsulated message format': every message (and so \
                 every Block.offset, after the 8-byte magic) starts on an 8-byte boundary, \
                 and message lengths and body lengths are multiples of 8; arrow-rs does not \
                 check a block's alignment",
    },
    Justified {
        kind: Kind::TheirsOnly,
        input: ".arrow_file",
        mutation: "Block.",
        ours: "Error::BlockOutOfFile",
        theirs: "",
        reason: "IPC file format: a Block locates a message of the file's stream, between the \
                 leading magic and the footer; arrow-rs reads whatever bytes a block points \
                 at (here the footer's) as the message",
    },
    Justified {
        kind: Kind::TheirsOnly,
        input: ".stream",
        mutation: "truncate",
        ours: "Error::UnexpectedEof",
        theirs: "",
        reason: "IPC streaming format: a stream ends with the EOS marker (0xFFFFFFFF \
                 0x00000000) or when the stream is closed at a message boundary; a stream cut \
                 inside the first 4 bytes of a message (or of the EOS marker) is truncated \
                 (pyarrow refuses it too); arrow-rs takes an end of input there for the end of \
                 the stream",
    },
    Justified {
        kind: Kind::TheirsOnly,
        input: "",
        mutation: "",
        ours: "Error::LengthMismatch",
        theirs: "",
        reason: "Columnar format, 'Struct Layout', and Message.fbs FieldNode: a struct array's \
                 length is its node's length, and each child holds that many slots at least \
                 (pyarrow refuses a shorter child too); arrow-rs takes the length of a struct \
                 without nulls from its children (StructArray::try_new) and ignores its node's",
    },
    Justified {
        kind: Kind::TheirsOnly,
        input: "generated_map",
        mutation: "FieldNode.length",
        ours: "Error::OffsetOutOfBounds",
        theirs: "",
        reason: "as the entry above: a map's entries struct whose node is shorter than the \
                 map's last offset (pyarrow: 'Length spanned by list offsets larger than \
                 values array'); arrow-rs takes the struct's length from its children",
    },
    Justified {
        kind: Kind::TheirsOnly,
        input: "",
        mutation: "",
        ours: "Error::InvalidDataType",
        theirs: "",
        reason: "Schema.fbs Decimal: precision is the number of digits, at least 1 and at \
                 most what bitWidth holds (9, 18, 38, 76 digits for 32, 64, 128, 256 bits); \
                 pyarrow refuses the others as we do, arrow-rs 60 takes any precision",
    },
    Justified {
        kind: Kind::TheirsOnly,
        input: "",
        mutation: "Field.type_type",
        ours: "Error::BufferCountMismatch",
        theirs: "",
        reason: "Message.fbs RecordBatch: `buffers` are the buffers of the schema's fields in \
                 pre-order, as many as their layouts have; a type changed to one with fewer \
                 buffers leaves some over, which arrow-rs (as pyarrow) ignores",
    },
    // ---- We accept, arrow-rs rejects.
    Justified {
        kind: Kind::OursOnly,
        input: "1.0.0-bigendian/*.arrow_file",
        mutation: "",
        ours: "",
        theirs: "the endianness of the source system does not match",
        reason: "Columnar format, 'Byte Order (Endianness)': a reader may refuse a schema \
                 whose endianness is not the machine's, or convert; we byte-swap big-endian \
                 input (pyarrow does too), arrow-rs 60's FileReader refuses it",
    },
    Justified {
        kind: Kind::OursOnly,
        input: "1.0.0-bigendian/*.stream",
        mutation: "",
        ours: "",
        theirs: "",
        reason: "as the entry above, but arrow-rs 60's StreamReader does not check the \
                 schema's endianness: it reads big-endian values as little-endian and then \
                 refuses the garbled offsets (or panics on them); pyarrow's twin test judges \
                 our verdicts on these inputs",
    },
    Justified {
        kind: Kind::OursOnly,
        input: ".arrow_file",
        mutation: "",
        ours: "",
        theirs: "metadata versions mismatch",
        reason: "File.fbs Footer.version and Message.fbs Message.version: every message carries \
                 its own version, which we check (V4 or V5); a V4 message in a V5 file is read \
                 (pyarrow writes such files), and the footer's version (changed, or read \
                 from elsewhere through a flipped vtable entry) is not what its messages are \
                 read by (pyarrow ignores it too); arrow-rs 60's FileReader requires every \
                 message's version to equal the footer's",
    },
    Justified {
        kind: Kind::OursOnly,
        input: "",
        mutation: "Buffer.length",
        ours: "",
        theirs: "prefix.is_empty() && suffix.is_empty()",
        reason: "Message.fbs Buffer.length need not account for padding: a buffer longer than \
                 its values need (33 bytes for 8 offsets) is valid (pyarrow reads it); \
                 arrow-rs 60 panics when an offsets buffer's length is not a multiple of its \
                 offset width (the slice cast asserts it)",
    },
    Justified {
        kind: Kind::OursOnly,
        input: "generated_null.",
        mutation: "FieldNode.null_count",
        ours: "",
        theirs: "of NullArray has unequal null_count",
        reason: "Columnar format, 'Null Layout': a Null array has no buffers and every slot is \
                 null, so its node's null_count carries nothing; we (as pyarrow) ignore it \
                 within 0..=length, arrow-rs requires it to equal the length",
    },
    // ---- Both accept, the values differ.
    Justified {
        kind: Kind::Values,
        input: "1.0.0-bigendian/*.stream",
        mutation: "",
        ours: "",
        theirs: "",
        reason: "as the big-endian entries above: arrow-rs 60's StreamReader reads big-endian \
                 values as little-endian (interop_arrow_rs.rs, \
                 arrow_rs_misreads_big_endian_streams); we byte-swap them",
    },
];

/// arrow-rs's verdict on one input.
struct RsVerdict {
    /// What its default reader read, or its error (or panic).
    read: Result<RsRead, String>,
    /// It panicked.
    panicked: bool,
    /// `ArrayData::validate_full`'s error on a column of what it accepted.
    full: Option<String>,
}

thread_local! {
    /// Set while arrow-rs runs: its panics are caught and reported, not
    /// printed by the panic hook.
    static QUIET: Cell<bool> = const { Cell::new(false) };
    /// Where arrow-rs's last quiet panic happened.
    static PANIC_AT: RefCell<String> = const { RefCell::new(String::new()) };
}

/// A panic hook that records the location of arrow-rs's panics (and prints
/// nothing for them) and leaves every other panic to the default hook.
fn install_quiet_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if QUIET.with(Cell::get) {
                let at = info
                    .location()
                    .map(|l| format!("{}:{}", l.file(), l.line()))
                    .unwrap_or_default();
                PANIC_AT.with(|p| *p.borrow_mut() = at);
            } else {
                previous(info);
            }
        }));
    });
}

/// [`rs_read`], with a panic caught as a rejection.
fn rs_read_caught(bytes: &[u8], format: Format) -> (Result<RsRead, String>, bool) {
    QUIET.with(|q| q.set(true));
    let r = catch_unwind(AssertUnwindSafe(|| rs_read(bytes, format)));
    QUIET.with(|q| q.set(false));
    match r {
        Ok(read) => (read, false),
        Err(p) => {
            let at = PANIC_AT.with(|p| std::mem::take(&mut *p.borrow_mut()));
            let at = at.rsplit("/src/").next().unwrap_or(&at).to_string();
            (
                Err(format!("arrow-rs panicked at {at}: {}", panic_text(p))),
                true,
            )
        }
    }
}

/// arrow-rs's verdict on `bytes`.
fn rs_verdict(bytes: &[u8], format: Format) -> RsVerdict {
    let (read, panicked) = rs_read_caught(bytes, format);
    let full = read.as_ref().ok().and_then(|(_, batches)| {
        batches.iter().enumerate().find_map(|(n, b)| {
            b.columns().iter().enumerate().find_map(|(c, col)| {
                col.to_data()
                    .validate_full()
                    .err()
                    .map(|e| format!("batch {n} column {c}: {e}"))
            })
        })
    });
    RsVerdict {
        read,
        panicked,
        full,
    }
}

/// arrow-ipc's version, from the workspace's `Cargo.lock`.
fn arrow_rs_version() -> String {
    let lock = std::fs::read_to_string(repo_root().join("Cargo.lock")).unwrap_or_default();
    let mut lines = lock.lines();
    while let Some(l) = lines.next() {
        if l == "name = \"arrow-ipc\"" {
            if let Some(v) = lines.next().and_then(|v| v.strip_prefix("version = ")) {
                return v.trim_matches('"').to_string();
            }
        }
    }
    "60".to_string()
}

/// The environment variable that makes [`arrow_rs_worker`] work: the
/// manifest's path.
const WORKER_MANIFEST: &str = "ALKAID_DIFFERENTIAL_ARROW_RS_MANIFEST";
/// The first manifest entry the worker judges.
const WORKER_START: &str = "ALKAID_DIFFERENTIAL_ARROW_RS_START";
/// What starts the worker's verdicts on its standard output (the test
/// harness prints there too).
const VERDICT: &str = "verdict: ";

/// The worker's judgement of one manifest entry.
fn work_on(entry: &serde_json::Value) -> serde_json::Value {
    let path = |k: &str| entry[k].as_str().map(PathBuf::from);
    let input = path("input").expect("manifest entry without input");
    let format = Format::from_py(entry["format"].as_str().unwrap_or_default())
        .expect("manifest entry without format");
    let bytes = std::fs::read(&input).unwrap_or_else(|e| panic!("{}: {e}", input.display()));
    let rs = rs_verdict(&bytes, format);
    let differs = match (&rs.read, path("ours")) {
        (Ok(read), Some(ours)) => {
            let w = std::fs::read(&ours).unwrap_or_else(|e| panic!("{}: {e}", ours.display()));
            match rs_read_caught(&w, Format::Stream).0 {
                Ok(back) => rs_diff(&back, read, "arrow-rs's"),
                Err(e) => Some(format!("arrow-rs cannot read our rewrite: {e}")),
            }
        }
        _ => None,
    };
    serde_json::json!({
        "id": entry["id"],
        "accept": rs.read.is_ok(),
        "error": rs.read.as_ref().err(),
        "panicked": rs.panicked,
        "full": rs.full,
        "differs": differs,
    })
}

/// The child process of [`mutated_golden_inputs_get_the_same_verdicts_and_values_as_arrow_rs`]:
/// arrow-rs's verdict on each entry of the manifest named by
/// [`WORKER_MANIFEST`] from index [`WORKER_START`] on, one [`VERDICT`] line
/// of JSON each, flushed, in order. Does nothing without the variable.
#[test]
#[ignore = "the arrow-rs worker of the differential test, which runs it in a child process"]
fn arrow_rs_worker() {
    let Some(manifest) = std::env::var_os(WORKER_MANIFEST) else {
        println!("{WORKER_MANIFEST} is not set: nothing to do");
        return;
    };
    install_quiet_hook();
    let start: usize = std::env::var(WORKER_START)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let text = std::fs::read(&manifest).expect("the manifest");
    let entries: Vec<serde_json::Value> = serde_json::from_slice(&text).expect("manifest JSON");
    let mut out = std::io::stdout().lock();
    for e in entries.iter().skip(start) {
        writeln!(out, "{VERDICT}{}", work_on(e)).unwrap();
        out.flush().unwrap();
    }
}

/// arrow-rs's verdict, with what the worker reports besides.
struct RsOutcome {
    theirs: Theirs,
    /// It panicked or aborted.
    crashed: bool,
    /// `validate_full`'s error on what its reader accepted.
    full: Option<String>,
}

/// Runs [`arrow_rs_worker`] over the manifest in a child process; starts it
/// again after an entry that kills it (recorded as a rejection, with the
/// child's last words).
fn arrow_rs_verdicts(manifest: &Path, ids: &[String]) -> BTreeMap<String, RsOutcome> {
    let exe = std::env::current_exe().expect("the test binary");
    let mut out = BTreeMap::new();
    let mut start = 0;
    while start < ids.len() {
        let o = Command::new(&exe)
            .args(["arrow_rs_worker", "--exact", "--ignored", "--nocapture"])
            .args(["--test-threads", "1"])
            .env(WORKER_MANIFEST, manifest)
            .env(WORKER_START, start.to_string())
            .env("RUST_BACKTRACE", "0")
            .output()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", exe.display()));
        let mut next = start;
        for line in String::from_utf8_lossy(&o.stdout).lines() {
            // The harness's `test arrow_rs_worker ... ` starts the first line.
            let Some(at) = line.find(VERDICT) else {
                continue;
            };
            let json = &line[at + VERDICT.len()..];
            let v: serde_json::Value =
                serde_json::from_str(json).unwrap_or_else(|e| panic!("worker: {e}: {line}"));
            let id = v["id"].as_str().unwrap_or_default().to_string();
            assert_eq!(ids.get(next), Some(&id), "worker out of order");
            let text = |k: &str| v[k].as_str().map(str::to_string);
            out.insert(
                id,
                RsOutcome {
                    theirs: Theirs {
                        accept: v["accept"].as_bool() == Some(true),
                        error: text("error").unwrap_or_default(),
                        differs: text("differs"),
                    },
                    crashed: v["panicked"].as_bool() == Some(true),
                    full: text("full"),
                },
            );
            next += 1;
        }
        if next < ids.len() {
            assert!(
                !o.status.success(),
                "the worker stopped early without failing"
            );
            let err = String::from_utf8_lossy(&o.stderr);
            let words: Vec<&str> = err
                .lines()
                .filter(|l| !l.trim().is_empty() && !l.starts_with("note: "))
                .collect();
            out.insert(
                ids[next].clone(),
                RsOutcome {
                    theirs: Theirs {
                        accept: false,
                        error: format!("arrow-rs aborted ({}): {}", o.status, words.join(" / ")),
                        differs: None,
                    },
                    crashed: true,
                    full: None,
                },
            );
            next += 1;
        }
        start = next;
    }
    out
}

#[test]
#[cfg_attr(
    not(feature = "interop"),
    ignore = "interop: run with --features interop (scripts/test.sh interop)"
)]
fn mutated_golden_inputs_get_the_same_verdicts_and_values_as_arrow_rs() {
    let work = scratch_dir(
        Path::new(env!("CARGO_TARGET_TMPDIR")),
        "differential-arrow-rs",
    );
    // Our verdicts first (each input and our rewrite left in `work`), then
    // arrow-rs's in the worker.
    let (mut entries, mpath, mutations) = our_entries(&work);
    let ids: Vec<String> = entries.iter().map(|e| e.id.clone()).collect();
    let mut verdicts = arrow_rs_verdicts(&mpath, &ids);
    // arrow-rs's panics and aborts, and where validate_full refuses what
    // its reader accepted (with our verdict): information, not verdicts.
    let mut crashes = Vec::new();
    let mut full_refusals = Vec::new();
    // Every input's verdicts, for a look (`verdicts.json`).
    let mut dump = Vec::new();
    for e in &mut entries {
        let v = verdicts
            .remove(&e.id)
            .unwrap_or_else(|| panic!("no arrow-rs verdict for {}", e.id));
        let label = format!("{} [{}]", e.id, e.mutation);
        if v.crashed {
            let err = &v.theirs.error;
            let site = match err.find("): ").or_else(|| err.find(": ")) {
                Some(i) if err.starts_with("arrow-rs aborted") => err[..i + 1].to_string(),
                Some(i) => err[..i].to_string(),
                None => err.clone(),
            };
            crashes.push((site, format!("{label}: {err}")));
        }
        dump.push(serde_json::json!({
            "id": e.id,
            "mutation": e.mutation,
            "ours": match &e.ours {
                Ours::Accept(_) => "accept".to_string(),
                Ours::Reject(r) | Ours::Unwritable(r) | Ours::Panic(r) => r.clone(),
            },
            "theirs": if v.theirs.accept { "accept" } else { v.theirs.error.as_str() },
            "differs": v.theirs.differs,
        }));
        if let Some(f) = &v.full {
            let we = match &e.ours {
                Ours::Reject(_) => "we reject",
                _ => "we accept",
            };
            full_refusals.push(format!("{label} ({we}): {f}"));
        }
        e.theirs = v.theirs;
    }
    let vpath = work.join("verdicts.json");
    std::fs::write(&vpath, serde_json::to_vec_pretty(&dump).unwrap()).unwrap();
    let outcome = judge(
        &format!("arrow-rs {}", arrow_rs_version()),
        JUSTIFIED,
        &entries,
        mutations,
    );
    outcome.print();
    // Grouped by where (the panic's location, or the abort).
    let mut by_site: BTreeMap<String, Vec<&String>> = BTreeMap::new();
    for (site, line) in &crashes {
        by_site.entry(site.clone()).or_default().push(line);
    }
    println!(
        "\narrow-rs panicked or aborted on {} inputs (each counted as a rejection):",
        crashes.len()
    );
    for (site, lines) in &by_site {
        println!("{:5} x {site}", lines.len());
        for l in lines.iter().take(2) {
            println!("        e.g. {l}");
        }
    }
    println!(
        "ArrayData::validate_full refuses {} inputs arrow-rs's reader accepted \
         (information only):",
        full_refusals.len()
    );
    for f in &full_refusals {
        println!("  {f}");
    }
    outcome.check();
}
