//! The differential tests of our IPC readers on mutated golden inputs, one
//! implementation for both peers: pyarrow (`tests/differential_pyarrow.rs`)
//! and arrow-rs (`tests/arrow-rs/tests/differential_arrow_rs.rs`).
//!
//! - [`each_input`]: every `.stream` and `.arrow_file` of the golden folders,
//!   unmutated and with [`MUTATIONS_PER_INPUT`] seeded mutations
//!   ([`crate::mutate`]), in a fixed order;
//! - [`our_verdict`]: our zero-copy reader of the format (every batch
//!   validated at the default [`ValidationLevel`]), what it read written
//!   again by our `StreamWriter`, and whether our `Read`-based reader of the
//!   format agrees;
//! - [`judge`]: each input's verdicts (ours and the peer's, a [`Theirs`])
//!   turned into [`Disagreement`]s and matched against the peer's table of
//!   [`Justified`] differences; [`Outcome::print`] prints the counts (both
//!   accept / both reject / justified / unexplained), each entry's count
//!   with examples, and the outcomes per mutation operator;
//!   [`Outcome::check`] fails on a panic of ours, an unexplained
//!   disagreement or a table entry that matches nothing.
//!
//! The justified differences of both tables are listed, with their reasons,
//! in one table: `docs/verdicts.md`.

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use alkaid::array::ValidationLevel;
use alkaid::ipc::reader::{FileSeekReader, IpcReadOptions, StreamReader};
use alkaid::Global;

use crate::harness::{cases, golden_dir};
use crate::interop::{read_ours, read_ours_with, write_ours, Format};
use crate::mutate::{mutate, Layout, Rng};

/// The fixed seed of the generator (mixed with each input's name).
pub const SEED: u64 = 0x00A1_CA1D_D1FF_0001;

/// Mutations drawn per golden input (118 inputs: about 2,800 mutations).
pub const MUTATIONS_PER_INPUT: usize = 24;

/// At least this many mutations in all (issue #14, item 5).
pub const MIN_MUTATIONS: usize = 2_000;

/// How the two sides disagree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// We accept, the peer rejects.
    OursOnly,
    /// The peer accepts, we reject.
    TheirsOnly,
    /// Both accept, the tables differ (or ours cannot be written back).
    Values,
    /// Our two readers of the format disagree.
    OurReaders,
}

/// A justified difference: every disagreement of `kind` on an input whose
/// name contains `input` (or its parts between `*`s, in order), from a
/// mutation whose description contains `mutation`, where our error (or the value difference) contains `ours` and
/// the peer's error contains `theirs`. Each entry must match at least once.
#[derive(Debug, Clone, Copy)]
pub struct Justified {
    /// The kind of disagreement.
    pub kind: Kind,
    /// Part of the input's name (`dir/stem.ext`), or parts separated by
    /// `*` (`"1.0.0-bigendian/*.stream"`).
    pub input: &'static str,
    /// Part of the mutation's description.
    pub mutation: &'static str,
    /// Part of our error (or of the value difference).
    pub ours: &'static str,
    /// Part of the peer's error.
    pub theirs: &'static str,
    /// Why, from the spec.
    pub reason: &'static str,
}

/// `true` when `text` contains the parts of `pattern` between its `*`s, in
/// order (so `""` matches everything, `"a*b"` an `a` followed by a `b`).
fn contains_parts(text: &str, pattern: &str) -> bool {
    let mut rest = text;
    for part in pattern.split('*') {
        match rest.find(part) {
            Some(i) => rest = &rest[i + part.len()..],
            None => return false,
        }
    }
    true
}

impl Justified {
    /// `true` when `d` is one of this entry's differences.
    pub fn matches(&self, d: &Disagreement) -> bool {
        self.kind == d.kind
            && contains_parts(&d.input, self.input)
            && d.mutation.contains(self.mutation)
            && d.ours.contains(self.ours)
            && d.theirs.contains(self.theirs)
    }
}

/// One input and both verdicts.
#[derive(Debug, Clone)]
pub struct Disagreement {
    /// How they disagree.
    pub kind: Kind,
    /// The input's id (`dir/stem.ext#k`).
    pub id: String,
    /// The input's name (`dir/stem.ext`).
    pub input: String,
    /// The mutation (`none` for the golden input itself).
    pub mutation: String,
    /// Our error, or the value difference.
    pub ours: String,
    /// The peer's error.
    pub theirs: String,
}

/// Our verdict on one input (that of `SliceStreamReader` or
/// `FileReader`).
#[derive(Debug, Clone)]
pub enum Ours {
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

/// The text of a caught panic.
pub fn panic_text(p: Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "non-text panic".into())
}

/// Our second reader of `format` (the `Read`-based `StreamReader` or
/// `FileSeekReader`): the number of batches when it reads and validates
/// every one at the default level.
fn second_reader(bytes: &[u8], format: Format) -> Result<usize, String> {
    let opts = IpcReadOptions::default();
    let level = ValidationLevel::default();
    let mut n = 0;
    match format {
        Format::Stream => {
            let mut r = StreamReader::try_new_in(bytes, opts, Global)
                .map_err(|e| format!("StreamReader open: {e:?}"))?;
            while let Some(b) = r
                .next_batch()
                .map_err(|e| format!("StreamReader batch {n}: {e:?}"))?
            {
                b.validate(level)
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
                b.validate(level)
                    .map_err(|e| format!("validate batch {i}: {e:?}"))?;
                n += 1;
            }
        }
    }
    Ok(n)
}

/// Our verdict at `ValidationLevel::Strict` on an input the default level
/// accepts: `Some(error)` when the zero-copy reader with
/// `IpcReadOptions::with_strict_validation` refuses it.
pub fn our_strict_verdict(bytes: &[u8], format: Format) -> Option<String> {
    let strict = IpcReadOptions::default().with_strict_validation();
    catch_unwind(AssertUnwindSafe(|| {
        read_ours_with(bytes, format, strict).err()
    }))
    .unwrap_or_else(|p| Some(format!("panic: {}", panic_text(p))))
}

/// The peer's errors that come from a value-domain rule (pyarrow's
/// `validate(full=True)`: decimal precision, whole-day Date64, time of day),
/// which our default level does not check and `ValidationLevel::Strict`
/// does; with the kinds our strict readers refuse such input with.
pub const VALUE_RULES: &[(&str, &str)] = &[
    ("does not fit in precision", "Error::DecimalOutOfPrecision"),
    (
        "does not represent a whole number of days",
        "Error::Date64NotWholeDays",
    ),
    (
        "is not within the acceptable range",
        "Error::TimeOutOfRange",
    ),
];

/// Our verdict on `bytes` (the zero-copy reader of `format`, then our
/// writer), and, when the `Read`-based reader of `format` disagrees with
/// the zero-copy one, how.
pub fn our_verdict(bytes: &[u8], format: Format) -> (Ours, Option<String>) {
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

/// Our verdicts on every input ([`each_input`]), with each input and our
/// rewrite of it left in `work` (`m00000.stream`, `o00000.stream`, …) and
/// listed in `work/manifest.json` (id, input, format, ours, mutation) for
/// the peer's run: returns the entries (the peer's verdicts still to fill
/// in), the manifest's path and the number of mutations.
///
/// # Panics
/// When a file cannot be written.
pub fn our_entries(work: &Path) -> (Vec<Entry>, PathBuf, usize) {
    let mut entries = Vec::new();
    let mut manifest = Vec::new();
    let mutations = each_input(|input| {
        let n = entries.len();
        let path = work.join(format!("m{n:05}.{}", input.format.ext()));
        std::fs::write(&path, &input.bytes).unwrap();
        let (ours, split) = our_verdict(&input.bytes, input.format);
        let strict = match ours {
            Ours::Accept(_) => our_strict_verdict(&input.bytes, input.format),
            _ => None,
        };
        let ours_path = match &ours {
            Ours::Accept(w) => {
                let p = work.join(format!("o{n:05}.stream"));
                std::fs::write(&p, w).unwrap();
                Some(p)
            }
            _ => None,
        };
        manifest.push(serde_json::json!({
            "id": input.id,
            "input": path,
            "format": input.format.py(),
            "ours": ours_path,
            "mutation": input.mutation,
        }));
        entries.push(Entry {
            id: input.id,
            input: input.name,
            mutation: input.mutation,
            ours,
            split,
            strict,
            // The peer's, filled in by the caller.
            theirs: Theirs {
                accept: false,
                error: String::new(),
                differs: None,
            },
        });
    });
    let mpath = work.join("manifest.json");
    std::fs::write(&mpath, serde_json::to_vec_pretty(&manifest).unwrap()).unwrap();
    (entries, mpath, mutations)
}

/// FNV-1a of `s`: a stable per-input seed.
fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

/// One input of the differential tests.
#[derive(Debug, Clone)]
pub struct Input {
    /// `dir/stem.ext#k` (`k` = 0 for the golden input itself).
    pub id: String,
    /// `dir/stem.ext`.
    pub name: String,
    /// Its format.
    pub format: Format,
    /// The mutation's description (`none` for `k` = 0).
    pub mutation: String,
    /// Its bytes.
    pub bytes: Vec<u8>,
}

/// Calls `f` on every input, in a fixed order: each `.stream` and
/// `.arrow_file` of the golden folders, then [`MUTATIONS_PER_INPUT`]
/// mutations of it drawn from a generator seeded with [`SEED`] and its
/// name. Returns the number of mutations.
///
/// # Panics
/// When a golden file is missing or the mutator cannot parse it, or when
/// there are fewer than [`MIN_MUTATIONS`] mutations.
pub fn each_input(mut f: impl FnMut(Input)) -> usize {
    let root = golden_dir();
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
                f(Input {
                    id: format!("{name}#{k:02}"),
                    name: name.clone(),
                    format,
                    mutation,
                    bytes,
                });
            }
        }
    }
    assert!(
        mutations >= MIN_MUTATIONS,
        "{mutations} mutations < {MIN_MUTATIONS}"
    );
    mutations
}

/// The peer's verdict on one input.
#[derive(Debug, Clone)]
pub struct Theirs {
    /// It read every batch and found it valid.
    pub accept: bool,
    /// Its error when it rejects.
    pub error: String,
    /// `Some(first difference)` when both accept and our rewrite differs
    /// from the peer's reading.
    pub differs: Option<String>,
}

/// One judged input: what it is, and both verdicts.
#[derive(Debug, Clone)]
pub struct Entry {
    /// As [`Input::id`].
    pub id: String,
    /// As [`Input::name`].
    pub input: String,
    /// As [`Input::mutation`].
    pub mutation: String,
    /// Our verdict.
    pub ours: Ours,
    /// How our two readers disagree, if they do.
    pub split: Option<String>,
    /// The peer's verdict.
    pub theirs: Theirs,
    /// Our verdict at `ValidationLevel::Strict` ([`our_strict_verdict`]),
    /// when the default level accepts and the peer refuses (else `None`).
    pub strict: Option<String>,
}

/// A mutation's operator, without its positions and values
/// (`FieldNode.null_count`, `flip body byte (zero-row batch)`, …).
pub fn op_label(mutation: &str) -> String {
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

/// The judgement of every input against a table of justified differences.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The peer and its version (`pyarrow 21.0.0`, `arrow-rs 60`).
    pub peer: String,
    /// The table.
    pub table: &'static [Justified],
    /// Inputs judged.
    pub inputs: usize,
    /// Of which mutations.
    pub mutations: usize,
    /// Inputs both accept (and read equal).
    pub both_accept: usize,
    /// Inputs both reject.
    pub both_reject: usize,
    /// Inputs the peer refuses for a value rule ([`VALUE_RULES`]) and our
    /// default level reads: our `ValidationLevel::Strict` refuses each for
    /// the same rule (checked; a strict read that accepts is unexplained).
    pub strict_agrees: usize,
    /// Inputs whose every disagreement is justified.
    pub justified: usize,
    /// Per table entry: the disagreements it matched.
    pub used: Vec<Vec<String>>,
    /// Disagreements no entry matches.
    pub unexplained: Vec<String>,
    /// Our panics.
    pub panics: Vec<String>,
    /// Per mutation operator: both accept, both reject, disagree.
    pub by_op: BTreeMap<String, [usize; 3]>,
}

/// Judges every entry against `table` (first matching entry wins).
pub fn judge(
    peer: &str,
    table: &'static [Justified],
    entries: &[Entry],
    mutations: usize,
) -> Outcome {
    let mut o = Outcome {
        peer: peer.to_string(),
        table,
        inputs: entries.len(),
        mutations,
        both_accept: 0,
        both_reject: 0,
        strict_agrees: 0,
        justified: 0,
        used: vec![Vec::new(); table.len()],
        unexplained: Vec::new(),
        panics: Vec::new(),
        by_op: BTreeMap::new(),
    };
    for e in entries {
        let t = &e.theirs;
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
                o.panics
                    .push(printable(&format!("{} [{}]: {why}", e.id, e.mutation)));
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
            (Ours::Accept(_), false)
                if e.split.is_none()
                    && VALUE_RULES.iter().any(|(theirs, ours)| {
                        t.error.contains(theirs)
                            && e.strict.as_deref().is_some_and(|s| s.contains(ours))
                    }) =>
            {
                o.strict_agrees += 1;
                o.by_op.entry(op_label(&e.mutation)).or_insert([0; 3])[1] += 1;
                continue;
            }
            (Ours::Accept(_), false) => {
                let ours = match &e.split {
                    Some(split) => format!("accepted; but {split}"),
                    None => "accepted".to_string(),
                };
                let ours = match &e.strict {
                    Some(strict) => format!("{ours} (at Strict: {strict})"),
                    None => format!("{ours} (also at Strict)"),
                };
                rows.push(d(Kind::OursOnly, &ours, &t.error))
            }
            (Ours::Unwritable(why), false) => {
                rows.push(d(Kind::OursOnly, &format!("unwritable: {why}"), &t.error))
            }
            (Ours::Reject(why), true) => rows.push(d(Kind::TheirsOnly, why, "")),
        }
        let per_op = o.by_op.entry(op_label(&e.mutation)).or_insert([0; 3]);
        if rows.is_empty() {
            if t.accept {
                o.both_accept += 1;
                per_op[0] += 1;
            } else {
                o.both_reject += 1;
                per_op[1] += 1;
            }
            continue;
        }
        per_op[2] += 1;
        let mut all_justified = true;
        for r in rows {
            let line = printable(&format!(
                "{:?} {} [{}] ours: {} | {}: {}",
                r.kind,
                r.id,
                r.mutation,
                r.ours,
                peer_name(peer),
                r.theirs
            ));
            match table.iter().position(|j| j.matches(&r)) {
                Some(i) => o.used[i].push(line),
                None => {
                    all_justified = false;
                    o.unexplained.push(line);
                }
            }
        }
        if all_justified {
            o.justified += 1;
        }
    }
    o
}

/// `s` on one line: control characters (newlines, the NULs of mutated
/// names) escaped.
fn printable(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// The peer's name without its version.
fn peer_name(peer: &str) -> &str {
    peer.split_whitespace().next().unwrap_or(peer)
}

impl Outcome {
    /// The table entries that matched nothing.
    pub fn stale(&self) -> Vec<String> {
        self.table
            .iter()
            .zip(&self.used)
            .filter(|(_, hits)| hits.is_empty())
            .map(|(j, _)| format!("  {j:?}"))
            .collect()
    }

    /// Prints each table entry with its count and examples, the outcomes
    /// per mutation operator, every unexplained disagreement and panic, and
    /// the summary line (`differential vs <peer>: … both accept …`).
    pub fn print(&self) {
        let peer = &self.peer;
        println!("\n== differential test against {peer}: justified differences ==");
        for (i, (j, hits)) in self.table.iter().zip(&self.used).enumerate() {
            println!(
                "#{i:<2} {:5} x {:?} input {:?} mutation {:?} ours {:?} theirs {:?}: {}",
                hits.len(),
                j.kind,
                j.input,
                j.mutation,
                j.ours,
                j.theirs,
                j.reason
            );
            for h in hits.iter().take(3) {
                println!("        e.g. {h}");
            }
        }
        println!("\n== by mutation: both accept / both reject / disagree ==");
        for (op, [a, r, d]) in &self.by_op {
            println!("{a:5} {r:5} {d:5}  {op}");
        }
        for u in &self.unexplained {
            println!("UNEXPLAINED: {u}");
        }
        for p in &self.panics {
            println!("PANIC: {p}");
        }
        println!(
            "\ndifferential vs {peer}: {} inputs ({} mutations of {} golden inputs, and the \
             inputs themselves; seed {SEED:#x}): both accept {} (tables equal), both reject \
             {}, refused by {peer} for a value rule and by our Strict level for the same \
             {}, justified differences {}, unexplained disagreements {}, panics {}, stale \
             table entries {}",
            self.inputs,
            self.mutations,
            self.inputs - self.mutations,
            self.both_accept,
            self.both_reject,
            self.strict_agrees,
            self.justified,
            self.unexplained.len(),
            self.panics.len(),
            self.stale().len()
        );
    }

    /// Fails on a panic of ours, an unexplained disagreement or a stale
    /// table entry.
    ///
    /// # Panics
    /// In those cases, listing them.
    pub fn check(&self) {
        assert!(
            self.panics.is_empty(),
            "{} panics of ours:\n{}",
            self.panics.len(),
            self.panics.join("\n")
        );
        assert!(
            self.unexplained.is_empty(),
            "{} unexplained disagreements with {}:\n{}",
            self.unexplained.len(),
            self.peer,
            self.unexplained.join("\n")
        );
        let stale = self.stale();
        assert!(
            stale.is_empty(),
            "justified differences that no longer happen (remove them):\n{}",
            stale.join("\n")
        );
    }
}
