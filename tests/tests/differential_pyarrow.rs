//! Differential test of our IPC readers against pyarrow on mutated golden
//! inputs.
//!
//! Every `.stream` and `.arrow_file` of the golden folders is parsed into
//! its messages, flatbuffer scalars and body buffers
//! ([`alkaid_tests::mutate`]), and a seeded generator draws
//! [`MUTATIONS_PER_INPUT`] mutations of each: byte flips (anywhere, in the
//! metadata, in body buffers, in strings, in the footer), changed scalars
//! (length prefixes, `bodyLength`, `FieldNode` lengths and null counts,
//! `Buffer` offsets and lengths, type parameters, dictionary ids, footer
//! `Block`s…), truncations, and dropped, duplicated, swapped and reordered
//! messages or footer blocks. The unmutated inputs are checked too.
//!
//! For each input, our verdict (streams: `SliceStreamReader` and
//! `StreamReader`; files: `FileReader` and `FileSeekReader`; every
//! batch validated fully, the readers' default) is compared with pyarrow's
//! (`read_all()`, then `Table.validate(full=True)`; `tests/python/
//! differential.py`, one run over every input). When both accept, we write
//! what we read with our `StreamWriter`, and pyarrow finds it equal to its
//! own reading (`Table.equals(check_metadata=True)`: schema, metadata and
//! every value).
//!
//! Every disagreement must match an entry of [`JUSTIFIED`] (the strict table
//! of justified differences, each with its reasoning from the spec); an
//! entry that matches nothing fails the test. Our two readers of a format
//! must agree too (a disagreement between them is listed the same way); a
//! panic of ours is never justified. The test prints the counts of inputs
//! (both accept / both reject / justified differences / unexplained), each
//! table entry with its count and examples, and the outcomes per mutation
//! operator. Ignored without the `interop` feature; the mutated inputs are
//! left in `target/tmp/differential-pyarrow/` (`manifest.json` lists them
//! with their mutation).

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::Command;

use alkaid::array::ValidationLevel;
use alkaid::ipc::reader::{FileSeekReader, IpcReadOptions, StreamReader};
use alkaid::Global;

use alkaid_tests::harness::{cases, golden_dir};
use alkaid_tests::interop::{
    python, python_script, read_ours, require_pyarrow, scratch_dir, write_ours, Format,
};
use alkaid_tests::mutate::{mutate, Layout, Rng};

/// The fixed seed of the generator (mixed with each input's name).
const SEED: u64 = 0x00A1_CA1D_D1FF_0001;

/// Mutations drawn per golden input (118 inputs: about 2,800 mutations).
const MUTATIONS_PER_INPUT: usize = 24;

/// At least this many mutations in all (issue #14, item 5).
const MIN_MUTATIONS: usize = 2_000;

/// How the two sides disagree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    /// We accept, pyarrow rejects.
    OursOnly,
    /// pyarrow accepts, we reject.
    TheirsOnly,
    /// Both accept, the tables differ (or ours cannot be written back).
    Values,
    /// Our two readers of the format disagree.
    OurReaders,
}

/// A justified difference: every disagreement of `kind` on an input whose
/// name contains `input`, from a mutation whose description contains
/// `mutation`, where our error (or the value difference) contains `ours` and
/// pyarrow's error contains `theirs`. Each entry must match at least once.
#[derive(Debug, Clone, Copy)]
struct Justified {
    kind: Kind,
    input: &'static str,
    mutation: &'static str,
    ours: &'static str,
    theirs: &'static str,
    reason: &'static str,
}

impl Justified {
    fn matches(&self, d: &Disagreement) -> bool {
        self.kind == d.kind
            && d.input.contains(self.input)
            && d.mutation.contains(self.mutation)
            && d.ours.contains(self.ours)
            && d.theirs.contains(self.theirs)
    }
}

/// The strict table of justified differences.
///
/// An entry that no input matches any more fails the test: remove it with
/// the change that made it stale.
const JUSTIFIED: &[Justified] = &[
    // ---- pyarrow accepts, we reject: checks pyarrow does not make.
    Justified {
        kind: Kind::TheirsOnly,
        input: "",
        mutation: "",
        ours: "Error::BufferOutOfBody",
        theirs: "",
        reason: "Message.fbs: a Buffer is a region of the body (offset and length from the \
                 body's start, inside bodyLength); we check every Buffer of a batch, pyarrow \
                 skips the buffers it does not need (the validity bitmap of a node whose \
                 null_count is 0) without looking at them",
    },
    Justified {
        kind: Kind::TheirsOnly,
        input: "uncompressible_",
        mutation: "",
        ours: "Error::CorruptCompressedData",
        theirs: "",
        reason: "Message.fbs BodyCompression: every buffer is compressed on its own, behind \
                 its uncompressed length (-1: stored as is); we decode every buffer, pyarrow \
                 never decompresses the validity bitmap of a node whose null_count is 0, so \
                 a corrupt one goes unseen",
    },
    Justified {
        kind: Kind::TheirsOnly,
        input: "uncompressible_",
        mutation: "",
        ours: "Error::LimitExceeded",
        theirs: "",
        reason: "as the entry above: a corrupt uncompressed-length prefix (e.g. 2^31 - 1 for \
                 a 1-byte bitmap) of a validity bitmap pyarrow skips; we refuse a prefix \
                 above ReadLimits::max_buffer_size or that the codec does not produce",
    },
    Justified {
        kind: Kind::TheirsOnly,
        input: "",
        mutation: "",
        ours: "Error::InvalidFlatbuffer",
        theirs: "",
        reason: "our flatbuffer verifier is stricter than the C++ one: flatbuffers `string`s \
                 (names, metadata, time zones) must be UTF-8; a vtable holds at least its \
                 4-byte header; the table size a vtable declares must fit in the buffer and \
                 hold every field (the C++ verifier ignores it)",
    },
    Justified {
        kind: Kind::TheirsOnly,
        input: "",
        mutation: "",
        ours: "Error::InvalidFieldNode",
        theirs: "",
        reason: "Message.fbs FieldNode: null_count is the number of null slots of the node, so \
                 0 <= null_count <= length; pyarrow reads -1 as 'unknown' (and recounts) and \
                 ignores the null count of Null arrays",
    },
    Justified {
        kind: Kind::TheirsOnly,
        input: "",
        mutation: "(zero-row batch)",
        ours: "Error::OffsetOutOfBounds",
        theirs: "",
        reason: "Columnar format, variable-size binary/list layouts: the offsets buffer holds \
                 length + 1 offsets, each a position in the data buffer (child), so an empty \
                 array's one offset must lie inside it too; pyarrow's full validation skips \
                 the offsets of empty arrays",
    },
    Justified {
        kind: Kind::TheirsOnly,
        input: "generated_binary_view.",
        mutation: "",
        ours: "Error::ViewOffsetOutOfBounds",
        theirs: "",
        reason: "Columnar format, binary view layout: every view of the views buffer is a \
                 length and either inline bytes or (buffer index, offset) into a data buffer; \
                 our full validation checks every view, pyarrow's skips null slots",
    },
    Justified {
        kind: Kind::TheirsOnly,
        input: "generated_decimal",
        mutation: "",
        ours: "Error::InvalidDataType",
        theirs: "",
        reason: "Schema.fbs Decimal: scale is the number of digits after the decimal point, \
                 out of `precision` digits in all, so scale <= precision; pyarrow accepts \
                 any scale",
    },
    Justified {
        kind: Kind::TheirsOnly,
        input: "",
        mutation: "Field.type_type",
        ours: "Error::BufferCountMismatch",
        theirs: "",
        reason: "Message.fbs RecordBatch: `buffers` are the buffers of the schema's fields in \
                 pre-order, as many as their layouts have; a type changed to one with fewer \
                 buffers leaves some over, which pyarrow ignores",
    },
    Justified {
        kind: Kind::TheirsOnly,
        input: "dictionary",
        mutation: "RecordBatch.length",
        ours: "Error::LengthMismatch",
        theirs: "",
        reason: "Message.fbs: a DictionaryBatch's data is a RecordBatch whose length is its \
                 number of records, i.e. its one column's length; pyarrow ignores the length \
                 of dictionary batches",
    },
    Justified {
        kind: Kind::TheirsOnly,
        input: "",
        mutation: "Field.nullable",
        ours: "Error::NullInNonNullableField",
        theirs: "",
        reason: "Schema.fbs Field.nullable: a field that is not nullable holds no nulls; \
                 pyarrow does not check batches against their schema's nullability",
    },
    Justified {
        kind: Kind::TheirsOnly,
        input: "",
        mutation: "Buffer.offset",
        ours: "Error::UnalignedBodyBuffer",
        theirs: "",
        reason: "Columnar format, 'Buffer Alignment and Padding' and Message.fbs Buffer: \
                 buffers of a message body start on 8-byte boundaries; we refuse every \
                 unaligned Buffer.offset of a batch, pyarrow only those of the buffers it \
                 reads (not the validity bitmap of a node whose null_count is 0)",
    },
    // ---- We accept, pyarrow rejects.
    Justified {
        kind: Kind::OursOnly,
        input: "",
        mutation: "",
        ours: "",
        theirs: "expected number",
        reason: "IPC streaming format: 'before any dictionary key is used in a RecordBatch it \
                 should be defined in a DictionaryBatch' (and a dictionary may follow the \
                 first batch); a stream that ends, or has a zero-row batch, before a \
                 dictionary uses none of its keys; pyarrow wants every dictionary first",
    },
    // ---- Our two readers of one format disagree.
];

/// One input and both verdicts.
#[derive(Debug, Clone)]
struct Disagreement {
    kind: Kind,
    id: String,
    input: String,
    mutation: String,
    ours: String,
    theirs: String,
}

/// Our verdict on one input (that of `SliceStreamReader` or
/// `FileReader`).
#[derive(Debug, Clone)]
enum Ours {
    /// Accepted; what we read, written again by our `StreamWriter`.
    Accept(Vec<u8>),
    /// Rejected, with the error.
    Reject(String),
    /// Accepted, but our writer cannot write what the reader gave (the
    /// values cannot be compared).
    Unwritable(String),
    /// A panic: never justified.
    Panic(String),
}

fn panic_text(p: Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "non-text panic".into())
}

/// Our second reader of `format` (the `Read`-based `StreamReader` or
/// `FileSeekReader`): the number of batches when it reads and fully
/// validates every one.
fn second_reader(bytes: &[u8], format: Format) -> Result<usize, String> {
    let opts = IpcReadOptions::default();
    let mut n = 0;
    match format {
        Format::Stream => {
            let mut r = StreamReader::try_new_in(bytes, opts, Global)
                .map_err(|e| format!("StreamReader open: {e:?}"))?;
            while let Some(b) = r
                .next_batch()
                .map_err(|e| format!("StreamReader batch {n}: {e:?}"))?
            {
                b.validate(ValidationLevel::Full)
                    .map_err(|e| format!("validate batch {n}: {e:?}"))?;
                n += 1;
            }
        }
        Format::File => {
            let src = embedded_io_adapters::std::FromStd::new(std::io::Cursor::new(bytes));
            let mut r = FileSeekReader::try_new_in(src, opts, Global)
                .map_err(|e| format!("FileSeekReader open: {e:?}"))?;
            for i in 0..r.num_batches() {
                let b = r
                    .batch(i)
                    .map_err(|e| format!("FileSeekReader batch {i}: {e:?}"))?;
                b.validate(ValidationLevel::Full)
                    .map_err(|e| format!("validate batch {i}: {e:?}"))?;
                n += 1;
            }
        }
    }
    Ok(n)
}

/// Our verdict on `bytes` (the zero-copy reader of `format`, then our
/// writer), and, when the `Read`-based reader of `format` disagrees with
/// the zero-copy one, how.
fn our_verdict(bytes: &[u8], format: Format) -> (Ours, Option<String>) {
    let run = catch_unwind(AssertUnwindSafe(|| {
        let first = read_ours(bytes, format);
        let second = second_reader(bytes, format);
        let split = match (&first, &second) {
            (Ok((_, b)), Ok(n)) if b.len() == *n => None,
            (Err(_), Err(_)) => None,
            (a, b) => Some(format!(
                "zero-copy reader {}; Read-based reader {}",
                match a {
                    Ok((_, b)) => format!("accepts {} batches", b.len()),
                    Err(e) => format!("rejects: {e}"),
                },
                match b {
                    Ok(n) => format!("accepts {n} batches"),
                    Err(e) => format!("rejects: {e}"),
                }
            )),
        };
        let ours = match first {
            Ok((schema, batches)) => match write_ours(&schema, &batches, Format::Stream) {
                Ok(w) => Ours::Accept(w),
                Err(e) => Ours::Unwritable(e),
            },
            Err(e) => Ours::Reject(e),
        };
        (ours, split)
    }));
    run.unwrap_or_else(|p| (Ours::Panic(panic_text(p)), None))
}

/// pyarrow's verdict on one input (a line of `differential.py`).
#[derive(Debug, Clone)]
struct Theirs {
    accept: bool,
    error: String,
    /// `Some(first difference)` when our rewrite differs.
    differs: Option<String>,
}

/// Runs `differential.py` over the manifest; restarts it after an entry
/// that crashes pyarrow (recorded as a rejection with that reason).
fn pyarrow_verdicts(manifest: &Path, ids: &[String]) -> BTreeMap<String, Theirs> {
    let mut out = BTreeMap::new();
    let mut start = 0;
    while start < ids.len() {
        let o = Command::new(python())
            .arg(python_script("differential.py"))
            .arg(manifest)
            .arg(start.to_string())
            .output()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", python().display()));
        let mut next = start;
        for line in String::from_utf8_lossy(&o.stdout).lines() {
            let v: serde_json::Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("differential.py: {e}: {line}"));
            let id = v["id"].as_str().unwrap_or_default().to_string();
            assert_eq!(ids.get(next), Some(&id), "differential.py out of order");
            let equal = v["equal"].as_bool();
            out.insert(
                id,
                Theirs {
                    accept: v["accept"].as_bool() == Some(true),
                    error: v["error"].as_str().unwrap_or_default().to_string(),
                    differs: (equal == Some(false))
                        .then(|| v["detail"].as_str().unwrap_or_default().to_string()),
                },
            );
            next += 1;
        }
        if next < ids.len() {
            assert!(
                !o.status.success(),
                "differential.py stopped early without failing"
            );
            let err = String::from_utf8_lossy(&o.stderr);
            let last = err.lines().last().unwrap_or_default();
            out.insert(
                ids[next].clone(),
                Theirs {
                    accept: false,
                    error: format!("pyarrow crashed ({}): {last}", o.status),
                    differs: None,
                },
            );
            next += 1;
        }
        start = next;
    }
    out
}

/// FNV-1a of `s`: a stable per-input seed.
fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

/// A mutation's operator, without its positions and values
/// (`FieldNode.null_count`, `flip body byte (zero-row batch)`, …).
fn op_label(mutation: &str) -> String {
    let words: Vec<&str> = mutation
        .split_whitespace()
        .map(|w| w.split('@').next().unwrap_or(""))
        .filter(|w| !w.is_empty() && !w.starts_with('(') && !w.ends_with(')'))
        .filter(|w| !w.chars().any(|c| c.is_ascii_digit()))
        .collect();
    let label = words.join(" ");
    match mutation.rfind(" (") {
        Some(i) if mutation.ends_with("NUL)") || mutation.ends_with("batch)") => {
            format!("{label}{}", &mutation[i..])
        }
        _ => label,
    }
}

struct Entry {
    id: String,
    input: String,
    mutation: String,
    ours: Ours,
    split: Option<String>,
}

#[test]
#[cfg_attr(
    not(feature = "interop"),
    ignore = "needs pyarrow: run with --features interop (scripts/test.sh interop)"
)]
fn mutated_golden_inputs_get_the_same_verdicts_and_values_as_pyarrow() {
    let version = require_pyarrow();
    let work = scratch_dir(
        Path::new(env!("CARGO_TARGET_TMPDIR")),
        "differential-pyarrow",
    );
    let root = golden_dir();
    let mut entries = Vec::new();
    let mut manifest = Vec::new();
    let mut mutations = 0;
    for case in cases(&root) {
        for format in Format::ALL {
            let name = format!("{}/{}.{}", case.dir, case.stem, format.ext());
            let path = case.base.with_extension(format.ext());
            let orig = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let layout = Layout::parse(&orig, format == Format::File)
                .unwrap_or_else(|| panic!("{name}: the mutator cannot parse it"));
            assert!(!layout.sites.is_empty(), "{name}: no sites");
            let mut rng = Rng::new(SEED ^ fnv(&name));
            for k in 0..=MUTATIONS_PER_INPUT {
                let (bytes, mutation) = if k == 0 {
                    (orig.clone(), "none".to_string())
                } else {
                    mutations += 1;
                    mutate(&mut rng, &orig, &layout)
                };
                let id = format!("{name}#{k:02}");
                let n = entries.len();
                let input = work.join(format!("m{n:05}.{}", format.ext()));
                std::fs::write(&input, &bytes).unwrap();
                let (ours, split) = our_verdict(&bytes, format);
                let ours_path = match &ours {
                    Ours::Accept(w) => {
                        let p = work.join(format!("o{n:05}.stream"));
                        std::fs::write(&p, w).unwrap();
                        Some(p)
                    }
                    _ => None,
                };
                manifest.push(serde_json::json!({
                    "id": id,
                    "input": input,
                    "format": format.py(),
                    "ours": ours_path,
                    "mutation": mutation,
                }));
                entries.push(Entry {
                    id,
                    input: name.clone(),
                    mutation,
                    ours,
                    split,
                });
            }
        }
    }
    assert!(
        mutations >= MIN_MUTATIONS,
        "{mutations} mutations < {MIN_MUTATIONS}"
    );
    let mpath: PathBuf = work.join("manifest.json");
    std::fs::write(&mpath, serde_json::to_vec_pretty(&manifest).unwrap()).unwrap();
    let ids: Vec<String> = entries.iter().map(|e| e.id.clone()).collect();
    let theirs = pyarrow_verdicts(&mpath, &ids);

    // Each input's disagreements (none when both accept equal tables or
    // both reject), matched against the table.
    let (mut both_accept, mut both_reject, mut justified) = (0, 0, 0);
    let mut used: Vec<Vec<String>> = vec![Vec::new(); JUSTIFIED.len()];
    let mut unexplained = Vec::new();
    let mut panics = Vec::new();
    // Per mutation operator: both accept, both reject, disagree.
    let mut by_op: BTreeMap<String, [usize; 3]> = BTreeMap::new();
    for e in &entries {
        let t = &theirs[&e.id];
        let d = |kind, ours: &str, theirs: &str| Disagreement {
            kind,
            id: e.id.clone(),
            input: e.input.clone(),
            mutation: e.mutation.clone(),
            ours: ours.to_string(),
            theirs: theirs.to_string(),
        };
        let mut rows = Vec::new();
        if let Some(split) = &e.split {
            rows.push(d(Kind::OurReaders, split, ""));
        }
        match (&e.ours, t.accept) {
            (Ours::Panic(why), _) => {
                panics.push(format!("{} [{}]: {why}", e.id, e.mutation));
                continue;
            }
            (Ours::Accept(_), true) => {
                if let Some(diff) = &t.differs {
                    rows.push(d(Kind::Values, diff, ""));
                }
            }
            (Ours::Unwritable(why), true) => {
                rows.push(d(Kind::Values, &format!("unwritable: {why}"), ""))
            }
            (Ours::Reject(_), false) => {}
            (Ours::Accept(_), false) => {
                let ours = match &e.split {
                    Some(split) => format!("accepted; but {split}"),
                    None => "accepted".to_string(),
                };
                rows.push(d(Kind::OursOnly, &ours, &t.error))
            }
            (Ours::Unwritable(why), false) => {
                rows.push(d(Kind::OursOnly, &format!("unwritable: {why}"), &t.error))
            }
            (Ours::Reject(why), true) => rows.push(d(Kind::TheirsOnly, why, "")),
        }
        let per_op = by_op.entry(op_label(&e.mutation)).or_insert([0; 3]);
        if rows.is_empty() {
            if t.accept {
                both_accept += 1;
                per_op[0] += 1;
            } else {
                both_reject += 1;
                per_op[1] += 1;
            }
            continue;
        }
        per_op[2] += 1;
        let mut all_justified = true;
        for r in rows {
            let line = format!(
                "{:?} {} [{}] ours: {} | pyarrow: {}",
                r.kind, r.id, r.mutation, r.ours, r.theirs
            );
            match JUSTIFIED.iter().position(|j| j.matches(&r)) {
                Some(i) => used[i].push(line),
                None => {
                    all_justified = false;
                    unexplained.push(line);
                }
            }
        }
        if all_justified {
            justified += 1;
        }
    }

    println!("\n== differential test against pyarrow {version}: justified differences ==");
    for (i, (j, hits)) in JUSTIFIED.iter().zip(&used).enumerate() {
        println!(
            "#{i:<2} {:5} x {:?} input {:?} mutation {:?}: {}",
            hits.len(),
            j.kind,
            j.input,
            j.mutation,
            j.reason
        );
        for h in hits.iter().take(3) {
            println!("        e.g. {h}");
        }
    }
    println!("\n== by mutation: both accept / both reject / disagree ==");
    for (op, [a, r, d]) in &by_op {
        println!("{a:5} {r:5} {d:5}  {op}");
    }
    for u in &unexplained {
        println!("UNEXPLAINED: {u}");
    }
    for p in &panics {
        println!("PANIC: {p}");
    }
    let stale: Vec<String> = JUSTIFIED
        .iter()
        .zip(&used)
        .filter(|(_, hits)| hits.is_empty())
        .map(|(j, _)| format!("  {j:?}"))
        .collect();
    println!(
        "\ndifferential vs pyarrow {version}: {} inputs ({mutations} mutations of {} golden \
         inputs, and the inputs themselves; seed {SEED:#x}): both accept {both_accept} \
         (tables equal), both reject {both_reject}, justified differences {justified}, \
         unexplained disagreements {}, panics {}, stale table entries {}",
        entries.len(),
        entries.len() - mutations,
        unexplained.len(),
        panics.len(),
        stale.len()
    );
    assert!(
        panics.is_empty(),
        "{} panics of ours:\n{}",
        panics.len(),
        panics.join("\n")
    );
    assert!(
        unexplained.is_empty(),
        "{} unexplained disagreements with pyarrow:\n{}",
        unexplained.len(),
        unexplained.join("\n")
    );
    assert!(
        stale.is_empty(),
        "justified differences that no longer happen (remove them):\n{}",
        stale.join("\n")
    );
}
