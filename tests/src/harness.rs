//! The golden-file harness: where the files are, which cases exist, running
//! each of our readers (and writers) on a case, and the table of expected
//! failures.

use std::fmt;
use std::path::{Path, PathBuf};

use alkaid::array::{RecordBatch, ValidationLevel};
use alkaid::datatypes::Schema;
use alkaid::ipc::compression::{BuiltinCodecs, CodecSet};
use alkaid::ipc::reader::{
    FileReader, FileSeekReader, IpcReadOptions, SliceStreamReader, StreamReader,
};
use alkaid::ipc::writer::{FileWriter, IpcWriteOptions, StreamWriter};
use alkaid::{Error, Global};
use alkaid_std::StdCodecs;

use crate::compare::{compare_batch, compare_schema};
use crate::json::JsonFile;

/// The golden folders read by the tests, relative to the golden directory.
pub const GOLDEN_DIRS: &[&str] = &[
    "cpp-21.0.0",
    "1.0.0-bigendian",
    "2.0.0-compression",
    "4.0.0-shareddict",
];

/// The folder of compressed (LZ4 frame / ZSTD) bodies.
pub const COMPRESSION_DIR: &str = "2.0.0-compression";

/// Flip to `true` once the readers decompress LZ4 frame and ZSTD bodies:
/// until then every case of [`COMPRESSION_DIR`] must fail with
/// [`Error::UnsupportedType`] (the reader's answer to a compressed body).
pub const COMPRESSION_SUPPORTED: bool = true;

/// Codecs the readers under test cannot decode yet, by name as it appears in
/// file names (e.g. `"zstd"`): cases whose name contains one are expected to
/// fail with [`Error::UnsupportedType`]. Empty: the core's built-in codecs
/// decode LZ4 frame and (feature `zstd-decode`) ZSTD.
pub const PENDING_CODECS: &[&str] = &[];

/// `true` when the readers under test decode the compressed case `name`.
pub fn compression_supported(name: &str) -> bool {
    COMPRESSION_SUPPORTED && !PENDING_CODECS.iter().any(|c| name.contains(c))
}

/// A known failure: the case must fail with exactly `error`.
#[derive(Debug, Clone, Copy)]
pub struct Expected {
    /// Golden folder (one of [`GOLDEN_DIRS`]).
    pub dir: &'static str,
    /// File stem (`generated_…`), or `"*"` for every file of `dir`.
    pub file: &'static str,
    /// Reader or writer label ([`Reader::label`]), or `"*"`.
    pub reader: &'static str,
    /// The error the case must fail with.
    pub error: Error,
    /// Why.
    pub reason: &'static str,
}

/// Known failures other than compression. Every entry must still fail the
/// stated way: a case that starts passing fails the test until its entry is
/// removed (so this table never hides a fixed bug). Empty: every golden file
/// reads at the default level, as in pyarrow and arrow-rs.
pub const EXPECTED_FAILURES: &[Expected] = &[];

/// A golden file whose values break a value-domain rule of
/// [`ValidationLevel::Strict`] (pyarrow's `validate(full=True)` refuses the
/// same batches; its readers, arrow-rs's and ours by default read them).
#[derive(Debug, Clone, Copy)]
pub struct ValueRuleCase {
    /// Golden folder (one of [`GOLDEN_DIRS`]).
    pub dir: &'static str,
    /// File stem (`generated_…`).
    pub file: &'static str,
    /// The error (`Debug`: kind and location) a strict read of the stream
    /// fails with: message index, field and buffer.
    pub stream_error: &'static str,
    /// The same for the file, whose readers count the record batch blocks
    /// of the footer (the schema is not a block).
    pub file_error: &'static str,
}

/// Every golden file that breaks a value rule; every other golden file
/// reads at [`ValidationLevel::Strict`] too.
pub const VALUE_RULE_CASES: &[ValueRuleCase] = &[
    ValueRuleCase {
        dir: "1.0.0-bigendian",
        file: "generated_datetime",
        stream_error: "Date64NotWholeDays: Date64 value is not a whole number of days (message 1, field 1, buffer 3)",
        file_error: "Date64NotWholeDays: Date64 value is not a whole number of days (message 0, field 1, buffer 3)",
    },
    ValueRuleCase {
        dir: "1.0.0-bigendian",
        file: "generated_decimal",
        stream_error: "DecimalOutOfPrecision: decimal value does not fit in its precision (message 1, field 0, buffer 1)",
        file_error: "DecimalOutOfPrecision: decimal value does not fit in its precision (message 0, field 0, buffer 1)",
    },
    ValueRuleCase {
        dir: "1.0.0-bigendian",
        file: "generated_decimal256",
        stream_error: "DecimalOutOfPrecision: decimal value does not fit in its precision (message 1, field 0, buffer 1)",
        file_error: "DecimalOutOfPrecision: decimal value does not fit in its precision (message 0, field 0, buffer 1)",
    },
];

/// The expectation for a case, if it is a known failure.
pub fn expected_failure(dir: &str, file: &str, reader: &str) -> Option<Expected> {
    if dir == COMPRESSION_DIR && !COMPRESSION_SUPPORTED {
        return Some(Expected {
            dir: COMPRESSION_DIR,
            file: "*",
            reader: "*",
            error: Error::UnsupportedType,
            reason: "compressed bodies (LZ4 frame / ZSTD) are not decoded yet",
        });
    }
    EXPECTED_FAILURES
        .iter()
        .find(|e| {
            e.dir == dir
                && (e.file == "*" || e.file == file)
                && (e.reader == "*" || e.reader == reader)
        })
        .copied()
}

/// The golden directory: `$ALKAID_GOLDEN_DIR`, else `<repo>/../shared/golden`
/// (what CI has), else `/work/shared/golden`.
///
/// # Panics
/// When none exists: the golden tests must not silently skip.
pub fn golden_dir() -> PathBuf {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut tried = Vec::new();
    let candidates = std::env::var_os("ALKAID_GOLDEN_DIR")
        .map(PathBuf::from)
        .into_iter()
        .chain([
            repo.join("../shared/golden"),
            PathBuf::from("/work/shared/golden"),
        ]);
    for c in candidates {
        if c.join(GOLDEN_DIRS[0]).is_dir() {
            return c;
        }
        tried.push(c);
    }
    panic!(
        "golden directory not found (set ALKAID_GOLDEN_DIR); tried {:?}",
        tried
    );
}

/// The `alkaid` command-line program of this workspace, built (`cargo build
/// -p alkaid-std --bin alkaid`, a no-op when current) where the running test
/// was built: `$CARGO_TARGET_DIR` when set (a relative one taken from the
/// workspace root, where cargo runs), else the workspace's `target/`.
///
/// # Panics
/// When the build fails.
pub fn alkaid_exe() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(|d| root.join(d))
        .unwrap_or_else(|| root.join("target"));
    let exe = target
        .join(if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        })
        .join("alkaid");
    let mut build = std::process::Command::new(env!("CARGO"));
    build
        .current_dir(&root)
        .args(["build", "-q", "-p", "alkaid-std", "--bin", "alkaid"]);
    if !cfg!(debug_assertions) {
        build.arg("--release");
    }
    let status = build.status().expect("cargo build");
    assert!(
        status.success(),
        "cargo build -p alkaid-std --bin alkaid failed"
    );
    exe
}

/// One golden case: a `.json.gz` and its `.stream` / `.arrow_file`.
#[derive(Debug, Clone)]
pub struct Case {
    /// Golden folder.
    pub dir: &'static str,
    /// File stem (`generated_primitive`).
    pub stem: String,
    /// Path without extension.
    pub base: PathBuf,
}

impl Case {
    /// The `.json.gz` path.
    pub fn json_path(&self) -> PathBuf {
        self.base.with_extension("json.gz")
    }
    /// The `.stream` path.
    pub fn stream_path(&self) -> PathBuf {
        self.base.with_extension("stream")
    }
    /// The `.arrow_file` path.
    pub fn file_path(&self) -> PathBuf {
        self.base.with_extension("arrow_file")
    }
}

/// Every case of every folder of [`GOLDEN_DIRS`], sorted.
///
/// # Panics
/// When a folder is missing or empty.
pub fn cases(root: &Path) -> Vec<Case> {
    let mut out = Vec::new();
    for dir in GOLDEN_DIRS {
        let d = root.join(dir);
        let mut stems: Vec<String> = std::fs::read_dir(&d)
            .unwrap_or_else(|e| panic!("{}: {e}", d.display()))
            .filter_map(|e| {
                let name = e.ok()?.file_name().into_string().ok()?;
                name.strip_suffix(".json.gz").map(str::to_string)
            })
            .collect();
        assert!(!stems.is_empty(), "no .json.gz in {}", d.display());
        stems.sort();
        for stem in stems {
            out.push(Case {
                dir,
                base: d.join(&stem),
                stem,
            });
        }
    }
    out
}

/// Our readers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reader {
    /// `SliceStreamReader` over the `.stream` bytes (zero copy).
    SliceStream,
    /// `StreamReader` over the `.stream` bytes as `embedded_io::Read`.
    Stream,
    /// `FileReader` over the `.arrow_file` bytes (zero copy).
    File,
    /// `FileSeekReader` over the `.arrow_file` bytes as `Read + Seek`.
    FileSeek,
}

impl Reader {
    /// The stream-format readers.
    pub const STREAM: [Reader; 2] = [Reader::SliceStream, Reader::Stream];
    /// The file-format readers.
    pub const FILE: [Reader; 2] = [Reader::File, Reader::FileSeek];

    /// Name in tables and in [`Expected::reader`].
    pub fn label(self) -> &'static str {
        match self {
            Reader::SliceStream => "SliceStreamReader",
            Reader::Stream => "StreamReader",
            Reader::File => "FileReader",
            Reader::FileSeek => "FileSeekReader",
        }
    }
}

/// What happened to one case with one reader.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Schema and every batch equal the JSON.
    Pass {
        /// Number of batches compared.
        batches: usize,
    },
    /// One of our readers or writers returned an error.
    Error {
        /// Where (open, batch n, write, …).
        at: String,
        /// The error.
        error: Error,
    },
    /// We read something different from the JSON (or the JSON is unreadable).
    Mismatch(String),
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Pass { batches } => write!(f, "{batches} batches equal"),
            Outcome::Error { at, error } => write!(f, "{at}: Error::{error:?} ({error})"),
            Outcome::Mismatch(m) => write!(f, "{m}"),
        }
    }
}

fn err(at: impl Into<String>) -> impl FnOnce(Error) -> Outcome {
    let at = at.into();
    move |error| Outcome::Error { at, error }
}

/// Compares a reader's schema and batches with the JSON.
fn check<'b, I>(schema: &Schema<'b, Global>, batches: I, json: &JsonFile) -> Outcome
where
    I: IntoIterator<Item = Result<RecordBatch<'b, Global>, Error>>,
{
    if let Err(m) = compare_schema(schema, json) {
        return Outcome::Mismatch(format!("schema: {m}"));
    }
    let mut n = 0;
    for b in batches {
        let b = match b {
            Ok(b) => b,
            Err(e) => return err(format!("batch {n}"))(e),
        };
        if let Err(e) = b.validate(ValidationLevel::Full) {
            return err(format!("batch {n} validate"))(e);
        }
        if b.schema() != schema {
            return Outcome::Mismatch(format!("batch {n}: schema differs from the reader's"));
        }
        let Some(jb) = json.batches.get(n) else {
            return Outcome::Mismatch(format!(
                "batches: ours more than json's {}",
                json.batches.len()
            ));
        };
        if let Err(m) = compare_batch(&b, jb, json) {
            return Outcome::Mismatch(format!("batch {n}: {m}"));
        }
        n += 1;
    }
    if n != json.batches.len() {
        return Outcome::Mismatch(format!("batches: ours {n} vs json {}", json.batches.len()));
    }
    Outcome::Pass { batches: n }
}

/// The codec sets the golden cases are read and written with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Codecs {
    /// The core's [`BuiltinCodecs`]: LZ4 frame and the `no_std` ZSTD decoder
    /// (`ruzstd`, feature `zstd-decode`). Reads everything, writes LZ4 only.
    Builtin,
    /// The std shim's [`StdCodecs`]: the reference ZSTD library in front of
    /// the built-in codecs.
    Std,
}

impl Codecs {
    /// Both sets.
    pub const ALL: [Codecs; 2] = [Codecs::Builtin, Codecs::Std];

    /// Name in tables.
    pub fn label(self) -> &'static str {
        match self {
            Codecs::Builtin => "builtin",
            Codecs::Std => "std",
        }
    }
}

/// Reads `bytes` (stream or file format, per `reader`) with the core's
/// [`BuiltinCodecs`] and compares with `json`.
pub fn run_reader(reader: Reader, bytes: &[u8], json: &JsonFile) -> Outcome {
    run_reader_with(reader, bytes, json, Codecs::Builtin)
}

/// [`run_reader`] with the codec set `codecs`.
pub fn run_reader_with(reader: Reader, bytes: &[u8], json: &JsonFile, codecs: Codecs) -> Outcome {
    let opts = IpcReadOptions::default();
    match codecs {
        Codecs::Builtin => read_with(reader, bytes, json, opts, BuiltinCodecs::new),
        Codecs::Std => read_with(reader, bytes, json, opts, StdCodecs::default),
    }
}

/// [`run_reader`] at [`ValidationLevel::Strict`]
/// ([`IpcReadOptions::with_strict_validation`]).
pub fn run_reader_strict(reader: Reader, bytes: &[u8], json: &JsonFile) -> Outcome {
    let opts = IpcReadOptions::default().with_strict_validation();
    read_with(reader, bytes, json, opts, BuiltinCodecs::new)
}

fn read_with<S: CodecSet>(
    reader: Reader,
    bytes: &[u8],
    json: &JsonFile,
    opts: IpcReadOptions,
    codecs: impl Fn() -> S,
) -> Outcome {
    match reader {
        Reader::SliceStream => {
            match SliceStreamReader::try_new_with_codecs_in(bytes, opts, codecs(), Global) {
                Ok(r) => {
                    let schema = r.schema().clone();
                    check(&schema, r, json)
                }
                Err(e) => err("open")(e),
            }
        }
        Reader::Stream => match StreamReader::try_new_with_codecs_in(bytes, opts, codecs(), Global)
        {
            Ok(r) => {
                let schema = r.schema().clone();
                check(&schema, r, json)
            }
            Err(e) => err("open")(e),
        },
        Reader::File => match FileReader::try_new_with_codecs_in(bytes, opts, codecs(), Global) {
            Ok(mut r) => {
                let schema = r.schema().clone();
                let batches: Vec<_> = (0..r.num_batches()).map(|i| r.batch(i)).collect();
                check(&schema, batches, json)
            }
            Err(e) => err("open")(e),
        },
        Reader::FileSeek => {
            let src = embedded_io_adapters::std::FromStd::new(std::io::Cursor::new(bytes));
            match FileSeekReader::try_new_with_codecs_in(src, opts, codecs(), Global) {
                Ok(mut r) => {
                    let schema = r.schema().clone();
                    let batches: Vec<_> = (0..r.num_batches()).map(|i| r.batch(i)).collect();
                    check(&schema, batches, json)
                }
                Err(e) => err("open")(e),
            }
        }
    }
}

/// Reads a stream with [`SliceStreamReader`] and writes its schema and
/// batches again with our [`StreamWriter`] and [`FileWriter`] (default
/// options): returns (stream bytes, file bytes).
///
/// # Errors
/// The first read or write error.
pub fn rewrite(stream: &[u8]) -> Result<(Vec<u8>, Vec<u8>), Outcome> {
    rewrite_with(stream, IpcWriteOptions::default())
}

/// [`rewrite`] with the write options `wopts` (e.g. a compression); the
/// writers use the std shim's [`StdCodecs`], the reader the core's
/// [`BuiltinCodecs`].
///
/// # Errors
/// The first read or write error.
pub fn rewrite_with(stream: &[u8], wopts: IpcWriteOptions) -> Result<(Vec<u8>, Vec<u8>), Outcome> {
    let opts = IpcReadOptions::default();
    let r = SliceStreamReader::try_new_in(stream, opts, Global).map_err(err("read: open"))?;
    let schema = r.schema().clone();
    let batches = r
        .enumerate()
        .map(|(n, b)| b.map_err(err(format!("read: batch {n}"))))
        .collect::<Result<Vec<_>, _>>()?;
    let mut sw = StreamWriter::try_new_with_codecs_in(
        Vec::new(),
        &schema,
        wopts,
        StdCodecs::default(),
        Global,
    )
    .map_err(err("StreamWriter: open"))?;
    for (n, b) in batches.iter().enumerate() {
        sw.write(b)
            .map_err(err(format!("StreamWriter: batch {n}")))?;
    }
    sw.finish().map_err(err("StreamWriter: finish"))?;
    let mut fw = FileWriter::try_new_with_codecs_in(
        Vec::new(),
        &schema,
        wopts,
        StdCodecs::default(),
        Global,
    )
    .map_err(err("FileWriter: open"))?;
    for (n, b) in batches.iter().enumerate() {
        fw.write(b).map_err(err(format!("FileWriter: batch {n}")))?;
    }
    fw.finish().map_err(err("FileWriter: finish"))?;
    Ok((sw.into_inner(), fw.into_inner()))
}

/// One row of the summary.
#[derive(Debug, Clone)]
pub struct Row {
    /// `dir/stem.ext`.
    pub file: String,
    /// Reader label (with the writer for round trips).
    pub reader: String,
    /// What happened.
    pub outcome: Outcome,
    /// The expectation, if a known failure.
    pub expected: Option<Expected>,
}

impl Row {
    /// `true` when the row is as expected: a pass without expectation, or
    /// the expected error.
    pub fn is_as_expected(&self) -> bool {
        match (&self.outcome, &self.expected) {
            (Outcome::Pass { .. }, None) => true,
            (Outcome::Error { error, .. }, Some(e)) => *error == e.error,
            _ => false,
        }
    }

    /// The status column.
    pub fn status(&self) -> &'static str {
        match (&self.outcome, self.is_as_expected()) {
            (Outcome::Pass { .. }, true) => "ok",
            (_, true) => "expected-fail",
            (Outcome::Pass { .. }, false) => "UNEXPECTED-PASS",
            (_, false) => "FAILED",
        }
    }
}

/// Prints the table, and returns the rows that are not as expected.
pub fn summarize<'r>(title: &str, rows: &'r [Row]) -> Vec<&'r Row> {
    let w_file = rows.iter().map(|r| r.file.len()).max().unwrap_or(4).max(4);
    let w_reader = rows
        .iter()
        .map(|r| r.reader.len())
        .max()
        .unwrap_or(6)
        .max(6);
    println!("\n== {title} ==");
    println!(
        "{:<w_file$}  {:<w_reader$}  {:<15}  detail",
        "file", "reader", "status"
    );
    for r in rows {
        let detail = match (&r.outcome, &r.expected) {
            (Outcome::Pass { .. }, Some(e)) => format!(
                "{}; expected Error::{:?} ({}): remove it from the expected failures",
                r.outcome, e.error, e.reason
            ),
            (_, Some(e)) if r.is_as_expected() => format!("{} [known: {}]", r.outcome, e.reason),
            (_, Some(e)) => format!(
                "{}; expected Error::{:?} ({})",
                r.outcome, e.error, e.reason
            ),
            _ => r.outcome.to_string(),
        };
        println!(
            "{:<w_file$}  {:<w_reader$}  {:<15}  {}",
            r.file,
            r.reader,
            r.status(),
            detail
        );
    }
    let bad: Vec<&Row> = rows.iter().filter(|r| !r.is_as_expected()).collect();
    let count = |s: &str| rows.iter().filter(|r| r.status() == s).count();
    println!(
        "{} rows: {} ok, {} expected failures, {} not as expected",
        rows.len(),
        count("ok"),
        count("expected-fail"),
        bad.len()
    );
    bad
}

/// One golden stream re-written by the sync writers with one compression:
/// the reference the other writers (async, vectored, parallel) are
/// compared against.
#[derive(Debug)]
pub struct Rewrite<'s> {
    /// The golden case's file stem, for messages.
    pub stem: &'s str,
    /// The golden stream's batches, as [`SliceStreamReader`] reads them.
    pub batches: &'s [RecordBatch<'s, Global>],
    /// The write options (only `compression` set).
    pub options: IpcWriteOptions,
    /// What [`StreamWriter`] writes for `batches` with `options`.
    pub stream: Vec<u8>,
    /// What [`FileWriter`] writes for `batches` with `options`.
    pub file: Vec<u8>,
}

/// The compressions every writer is compared under: none, LZ4 frame, ZSTD.
pub const REWRITE_COMPRESSIONS: [Option<alkaid::ipc::writer::CompressionCodec>; 3] = [
    None,
    Some(alkaid::ipc::writer::CompressionCodec::Lz4Frame),
    Some(alkaid::ipc::writer::CompressionCodec::Zstd),
];

/// Calls `check` for every golden stream with at least one batch, re-written
/// by the sync writers under each of [`REWRITE_COMPRESSIONS`]; streams the
/// readers or writers refuse are skipped. Returns how many streams were
/// checked per compression (in the order of [`REWRITE_COMPRESSIONS`]), for
/// the caller to assert a floor on.
pub fn for_each_golden_rewrite(mut check: impl FnMut(&Rewrite<'_>)) -> [usize; 3] {
    let mut checked = [0usize; 3];
    for case in cases(&golden_dir()) {
        let Ok(bytes) = std::fs::read(case.stream_path()) else {
            continue;
        };
        let Ok(reader) = SliceStreamReader::try_new_in(&bytes, IpcReadOptions::default(), Global)
        else {
            continue;
        };
        let Ok(batches) = reader.collect::<Result<Vec<_>, _>>() else {
            continue;
        };
        if batches.is_empty() {
            continue;
        }
        for (k, compression) in REWRITE_COMPRESSIONS.into_iter().enumerate() {
            let options = IpcWriteOptions {
                compression,
                ..Default::default()
            };
            let Ok((stream, file)) = rewrite_with(&bytes, options) else {
                continue;
            };
            check(&Rewrite {
                stem: &case.stem,
                batches: &batches,
                options,
                stream,
                file,
            });
            checked[k] += 1;
        }
    }
    checked
}
