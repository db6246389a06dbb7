//! Helpers of the peer-interoperability tests (`tests/interop_pyarrow.rs`,
//! and `tests/arrow-rs/tests/interop_arrow_rs.rs` of package
//! `alkaid-tests-arrow-rs`): our readers and writers on whole files, the
//! Python interpreter with pyarrow and its scripts (`tests/python/`), and a
//! summary table with a strict list of known peer limitations.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

use alkaid::array::{RecordBatch, ValidationLevel};
use alkaid::datatypes::Schema;
use alkaid::ipc::reader::{FileReader, IpcReadOptions, SliceStreamReader};
use alkaid::ipc::writer::{FileWriter, IpcWriteOptions, StreamWriter};
use alkaid::{Error, Global};

use crate::compare::our_value;
use crate::json::unhex;
use crate::value::{diff, parse_i256, Value};

/// The repository root (the parent of the `tests` crate).
pub fn repo_root() -> PathBuf {
    let tests = Path::new(env!("CARGO_MANIFEST_DIR"));
    tests.parent().unwrap_or(tests).to_path_buf()
}

/// The IPC formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// The streaming format (`.stream`).
    Stream,
    /// The file format (`.arrow_file`).
    File,
}

impl Format {
    /// Both formats.
    pub const ALL: [Format; 2] = [Format::Stream, Format::File];

    /// The golden files' extension.
    pub fn ext(self) -> &'static str {
        match self {
            Format::Stream => "stream",
            Format::File => "arrow_file",
        }
    }

    /// The name the Python scripts use.
    pub fn py(self) -> &'static str {
        match self {
            Format::Stream => "stream",
            Format::File => "file",
        }
    }

    /// Our writer of this format.
    pub fn writer(self) -> &'static str {
        match self {
            Format::Stream => "StreamWriter",
            Format::File => "FileWriter",
        }
    }

    /// Parses [`Self::py`].
    pub fn from_py(s: &str) -> Option<Format> {
        match s {
            "stream" => Some(Format::Stream),
            "file" => Some(Format::File),
            _ => None,
        }
    }
}

/// One of our errors, where it happened, as a row detail.
pub fn our_error(at: &str, e: Error) -> String {
    format!("alkaid {at}: Error::{:?} ({e})", e.kind())
}

/// Reads every batch of `bytes` with our zero-copy reader of `format`
/// ([`SliceStreamReader`] or [`FileReader`]) and validates each fully.
///
/// # Errors
/// The first error, as [`our_error`] text.
#[allow(clippy::type_complexity)]
pub fn read_ours(
    bytes: &[u8],
    format: Format,
) -> Result<(Schema<'_, Global>, Vec<RecordBatch<'_, Global>>), String> {
    read_ours_with(bytes, format, IpcReadOptions::default())
}

/// [`read_ours`] with the reader options `opts` (e.g. at
/// `ValidationLevel::Strict`).
///
/// # Errors
/// The first error, as [`our_error`] text.
#[allow(clippy::type_complexity)]
pub fn read_ours_with(
    bytes: &[u8],
    format: Format,
    opts: IpcReadOptions,
) -> Result<(Schema<'_, Global>, Vec<RecordBatch<'_, Global>>), String> {
    let (schema, batches) = match format {
        Format::Stream => {
            let r = SliceStreamReader::try_new_in(bytes, opts, Global)
                .map_err(|e| our_error("SliceStreamReader open", e))?;
            let schema = r.schema().clone();
            let batches = r
                .enumerate()
                .map(|(n, b)| b.map_err(|e| our_error(&format!("SliceStreamReader batch {n}"), e)))
                .collect::<Result<Vec<_>, _>>()?;
            (schema, batches)
        }
        Format::File => {
            let mut r = FileReader::try_new_in(bytes, opts, Global)
                .map_err(|e| our_error("FileReader open", e))?;
            let schema = r.schema().clone();
            let batches = (0..r.num_batches())
                .map(|n| {
                    r.batch(n)
                        .map_err(|e| our_error(&format!("FileReader batch {n}"), e))
                })
                .collect::<Result<Vec<_>, _>>()?;
            (schema, batches)
        }
    };
    for (n, b) in batches.iter().enumerate() {
        b.validate(opts.validation().max(ValidationLevel::Full))
            .map_err(|e| our_error(&format!("validate batch {n}"), e))?;
    }
    Ok((schema, batches))
}

/// Writes `batches` with our writer of `format` (default options).
///
/// # Errors
/// The first error, as [`our_error`] text.
pub fn write_ours<'a>(
    schema: &Schema<'a, Global>,
    batches: &[RecordBatch<'a, Global>],
    format: Format,
) -> Result<Vec<u8>, String> {
    write_ours_with(schema, batches, format, IpcWriteOptions::default())
}

/// As [`write_ours`], with `opts`.
///
/// # Errors
/// The first error, as [`our_error`] text.
pub fn write_ours_with<'a>(
    schema: &Schema<'a, Global>,
    batches: &[RecordBatch<'a, Global>],
    format: Format,
    opts: IpcWriteOptions,
) -> Result<Vec<u8>, String> {
    let w = format.writer();
    match format {
        Format::Stream => {
            let mut sw = StreamWriter::try_new_in(Vec::new(), schema, opts, Global)
                .map_err(|e| our_error(&format!("{w} open"), e))?;
            for (n, b) in batches.iter().enumerate() {
                sw.write(b)
                    .map_err(|e| our_error(&format!("{w} batch {n}"), e))?;
            }
            sw.finish()
                .map_err(|e| our_error(&format!("{w} finish"), e))?;
            Ok(sw.into_inner())
        }
        Format::File => {
            let mut fw = FileWriter::try_new_in(Vec::new(), schema, opts, Global)
                .map_err(|e| our_error(&format!("{w} open"), e))?;
            for (n, b) in batches.iter().enumerate() {
                fw.write(b)
                    .map_err(|e| our_error(&format!("{w} batch {n}"), e))?;
            }
            fw.finish()
                .map_err(|e| our_error(&format!("{w} finish"), e))?;
            Ok(fw.into_inner())
        }
    }
}

/// Reads `bytes` with our reader of `format` and writes the same schema and
/// batches again with our writer of `format`.
///
/// # Errors
/// As [`read_ours`] and [`write_ours`].
pub fn rewrite_ours(bytes: &[u8], format: Format) -> Result<Vec<u8>, String> {
    let (schema, batches) = read_ours(bytes, format)?;
    write_ours(&schema, &batches, format)
}

// ------------------------------------------------------------------ python

/// The Python interpreter: `$ALKAID_PYTHON`, else `<repo>/.venv/bin/python`
/// (what `scripts/install.sh` creates).
pub fn python() -> PathBuf {
    std::env::var_os("ALKAID_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join(".venv/bin/python"))
}

/// A script of `tests/python/`.
pub fn python_script(name: &str) -> PathBuf {
    repo_root().join("tests/python").join(name)
}

/// Runs [`python()`] with `args`; returns its standard output.
///
/// # Errors
/// When it cannot start or exits with a failure (with its standard error).
pub fn run_python<I, S>(args: I) -> Result<String, String>
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let py = python();
    let out = Command::new(&py)
        .args(args)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", py.display()))?;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    if !out.status.success() {
        return Err(format!(
            "{} exited with {}:\n{}\n{}",
            py.display(),
            out.status,
            stdout,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(stdout)
}

/// pyarrow's version.
///
/// # Panics
/// When [`python()`] does not run or has no pyarrow: the interop tests must
/// not pass without their peer (run `scripts/install.sh`, or set
/// `ALKAID_PYTHON`).
pub fn require_pyarrow() -> String {
    match run_python(["-c", "import pyarrow; print(pyarrow.__version__)"]) {
        Ok(v) => v.trim().to_string(),
        Err(e) => panic!(
            "pyarrow is needed (run scripts/install.sh to create <repo>/.venv, \
             or set ALKAID_PYTHON to a python with pyarrow): {e}"
        ),
    }
}

/// A per-test scratch directory under `base`, emptied first.
pub fn scratch_dir(base: &Path, name: &str) -> PathBuf {
    let d = base.join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display()));
    d
}

/// One file that `gen_tables.py` wrote (an entry of its `cases.json`).
#[derive(Debug, Clone)]
pub struct Generated {
    /// Case name (`primitive`, `nested-lz4`, `dictionary-delta`, …).
    pub name: String,
    /// The file.
    pub path: PathBuf,
    /// Its format.
    pub format: Format,
    /// Its bodies are LZ4- or ZSTD-compressed.
    pub compressed: bool,
    /// The stream replaces a dictionary (the file format cannot hold it).
    pub replacement: bool,
    /// Per batch: rows and each column's null count, as pyarrow counts them.
    pub batches: Vec<(usize, Vec<usize>)>,
    /// Every slot as pyarrow holds it in memory (`values_of` in
    /// `gen_tables.py`): batches of columns of values, for [`compare_values`].
    pub values: PathBuf,
}

/// Runs `tests/python/gen_tables.py` into `dir` and returns its cases.
///
/// # Panics
/// When the script fails or its `cases.json` is malformed.
pub fn generate_pyarrow_tables(dir: &Path) -> Vec<Generated> {
    let script = python_script("gen_tables.py");
    let said = run_python([script.as_os_str(), dir.as_os_str()]).unwrap_or_else(|e| panic!("{e}"));
    println!("{}", said.trim());
    let p = dir.join("cases.json");
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let n = |v: &serde_json::Value| v.as_u64().unwrap() as usize;
    v.as_array()
        .unwrap()
        .iter()
        .map(|c| Generated {
            name: c["name"].as_str().unwrap().to_string(),
            path: PathBuf::from(c["path"].as_str().unwrap()),
            format: Format::from_py(c["format"].as_str().unwrap()).unwrap(),
            compressed: !c["compression"].is_null(),
            replacement: c["replacement"].as_bool().unwrap(),
            values: PathBuf::from(c["values"].as_str().unwrap()),
            batches: c["batches"]
                .as_array()
                .unwrap()
                .iter()
                .map(|b| {
                    let nulls = b["null_counts"].as_array().unwrap().iter().map(n);
                    (n(&b["rows"]), nulls.collect())
                })
                .collect(),
        })
        .collect()
}

/// A slot value of `gen_tables.py`'s JSON (see `values_of` there).
///
/// # Errors
/// When the JSON is not such a value.
pub fn parse_value(j: &serde_json::Value) -> Result<Value, String> {
    use serde_json::Value as J;
    let bad = || format!("bad value {j}");
    let a = match j {
        J::Null => return Ok(Value::Null),
        J::Array(a) => a,
        _ => return Err(bad()),
    };
    let tag = a.first().and_then(J::as_str).ok_or_else(bad)?;
    let arg = |k: usize| a.get(k).ok_or_else(bad);
    let text = |k: usize| arg(k)?.as_str().ok_or_else(bad);
    let int = |k: usize| -> Result<i128, String> {
        match arg(k)? {
            J::String(s) => s.parse().map_err(|_| bad()),
            J::Number(n) => n.as_i64().map(i128::from).ok_or_else(bad),
            _ => Err(bad()),
        }
    };
    let list = |k: usize| -> Result<Vec<Value>, String> {
        arg(k)?
            .as_array()
            .ok_or_else(bad)?
            .iter()
            .map(parse_value)
            .collect()
    };
    Ok(match tag {
        "b" => Value::Bool(arg(1)?.as_bool().ok_or_else(bad)?),
        "i" => Value::Int(int(1)?),
        "i256" => Value::I256(parse_i256(text(1)?).ok_or_else(bad)?),
        "f16" => Value::F16(u16::try_from(int(1)?).map_err(|_| bad())?),
        "f32" => Value::F32(f32::from_bits(u32::try_from(int(1)?).map_err(|_| bad())?)),
        "f64" => Value::F64(f64::from_bits(u64::try_from(int(1)?).map_err(|_| bad())?)),
        "mdn" => {
            let m = i32::try_from(int(1)?).map_err(|_| bad())?;
            let d = i32::try_from(int(2)?).map_err(|_| bad())?;
            let ns = i64::try_from(int(3)?).map_err(|_| bad())?;
            Value::MonthDayNano(m, d, ns)
        }
        "bin" => Value::Bytes(unhex(text(1)?)?),
        "s" => Value::Str(text(1)?.to_string()),
        "l" => Value::List(list(1)?),
        "st" => Value::Struct(list(1)?),
        "u" => {
            let id = i8::try_from(int(1)?).map_err(|_| bad())?;
            Value::Union(id, Box::new(parse_value(arg(2)?)?))
        }
        "d" => {
            let k = u64::try_from(int(1)?).map_err(|_| bad())?;
            Value::Dict(k, Box::new(parse_value(arg(2)?)?))
        }
        _ => return Err(bad()),
    })
}

/// Compares every slot of our batches with pyarrow's values (`path`, as
/// [`Generated::values`]).
///
/// # Errors
/// The first difference: batch, column, row and where inside the value.
pub fn compare_values(
    schema: &Schema<'_, Global>,
    batches: &[RecordBatch<'_, Global>],
    path: &Path,
) -> Result<(), String> {
    use alkaid::array::Array;
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let j: serde_json::Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    let jb = j.as_array().ok_or("values: not a list")?;
    if jb.len() != batches.len() {
        return Err(format!(
            "batches: ours {} vs pyarrow's {}",
            batches.len(),
            jb.len()
        ));
    }
    for (n, (b, jcols)) in batches.iter().zip(jb).enumerate() {
        let jcols = jcols.as_array().ok_or("values: batch not a list")?;
        for (c, (col, jcol)) in b.columns().iter().zip(jcols).enumerate() {
            let name = schema.fields().get(c).map(|f| f.name()).unwrap_or("?");
            let at = |i: usize| format!("batch {n} column {c} {name:?} row {i}");
            let jcol = jcol.as_array().ok_or("values: column not a list")?;
            if jcol.len() != col.len() {
                return Err(format!(
                    "batch {n} column {c} {name:?}: length ours {} vs pyarrow's {}",
                    col.len(),
                    jcol.len()
                ));
            }
            for (i, jv) in jcol.iter().enumerate() {
                let theirs = parse_value(jv).map_err(|e| format!("{}: {e}", at(i)))?;
                let ours = our_value(col, i).map_err(|e| format!("{}: {e}", at(i)))?;
                if let Some(d) = diff(&ours, &theirs) {
                    return Err(format!("{}:{d}", at(i)));
                }
            }
        }
    }
    Ok(())
}

/// One comparison for `tests/python/compare_ipc.py`: pyarrow reads the
/// peer's file (`expected`) and ours (`actual`) and compares them.
#[derive(Debug, Clone)]
pub struct Pair {
    /// Key of the result.
    pub id: String,
    /// The peer's file.
    pub expected: PathBuf,
    /// Its format.
    pub expected_format: Format,
    /// Ours.
    pub actual: PathBuf,
    /// Its format.
    pub actual_format: Format,
}

/// Runs `compare_ipc.py` on `pairs` (manifest written in `dir`): returns,
/// by id, `Ok(detail)` when pyarrow found the tables equal, else
/// `Err(first difference)`.
///
/// # Errors
/// When the script fails or its output is unreadable.
pub fn pyarrow_compare(
    pairs: &[Pair],
    dir: &Path,
) -> Result<HashMap<String, Result<String, String>>, String> {
    let manifest: Vec<serde_json::Value> = pairs
        .iter()
        .map(|p| {
            serde_json::json!({
                "id": p.id,
                "expected": p.expected,
                "expected_format": p.expected_format.py(),
                "actual": p.actual,
                "actual_format": p.actual_format.py(),
            })
        })
        .collect();
    let path = dir.join("compare.json");
    std::fs::write(
        &path,
        serde_json::to_vec(&manifest).map_err(|e| e.to_string())?,
    )
    .map_err(|e| format!("{}: {e}", path.display()))?;
    let out = run_python([
        python_script("compare_ipc.py").as_os_str(),
        path.as_os_str(),
    ])?;
    let mut results = HashMap::new();
    for line in out.lines() {
        let v: serde_json::Value =
            serde_json::from_str(line).map_err(|e| format!("compare_ipc.py: {e}: {line}"))?;
        let id = v["id"].as_str().unwrap_or_default().to_string();
        let detail = v["detail"].as_str().unwrap_or_default().to_string();
        let r = if v["ok"].as_bool() == Some(true) {
            Ok(detail)
        } else {
            Err(detail)
        };
        results.insert(id, r);
    }
    if let Some(p) = pairs.iter().find(|p| !results.contains_key(&p.id)) {
        return Err(format!("compare_ipc.py gave no result for {}", p.id));
    }
    Ok(results)
}

// ------------------------------------------------------------------ report

/// A known failure of a check: the check must fail, and its detail must
/// contain `contains`. A known failure that starts passing (or fails
/// otherwise) fails the test until its entry is updated.
#[derive(Debug, Clone, Copy)]
pub struct Known {
    /// File: exact, or a prefix ending in `*`.
    pub file: &'static str,
    /// Check label: exact, or `"*"`.
    pub check: &'static str,
    /// Text the failure's detail must contain.
    pub contains: &'static str,
    /// Why.
    pub reason: &'static str,
}

impl Known {
    fn matches(&self, file: &str, check: &str) -> bool {
        let file_ok = match self.file.strip_suffix('*') {
            Some(prefix) => file.starts_with(prefix),
            None => file == self.file,
        };
        file_ok && (self.check == "*" || self.check == check)
    }
}

/// The first entry of `table` for `file` and `check`.
pub fn find_known(table: &[Known], file: &str, check: &str) -> Option<Known> {
    table.iter().find(|k| k.matches(file, check)).copied()
}

/// One row of an interop table.
#[derive(Debug, Clone)]
pub struct Check {
    /// The file (`dir/stem.ext`, or the generated case).
    pub file: String,
    /// What was checked (`StreamWriter→pyarrow`, …).
    pub check: String,
    /// `Ok(detail)` or `Err(first difference or error)`.
    pub result: Result<String, String>,
    /// The expectation, if a known failure.
    pub known: Option<Known>,
}

impl Check {
    /// `true` for a pass without expectation, or a failure as expected.
    pub fn is_as_expected(&self) -> bool {
        match (&self.result, &self.known) {
            (Ok(_), None) => true,
            (Err(d), Some(k)) => d.contains(k.contains),
            _ => false,
        }
    }

    /// The status column.
    pub fn status(&self) -> &'static str {
        match (&self.result, self.is_as_expected()) {
            (Ok(_), true) => "ok",
            (Err(_), true) => "expected-fail",
            (Ok(_), false) => "UNEXPECTED-PASS",
            (Err(_), false) => "FAILED",
        }
    }
}

impl fmt::Display for Check {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let detail = match &self.result {
            Ok(d) | Err(d) => d,
        };
        write!(
            f,
            "{} [{}] {}: {}",
            self.file,
            self.check,
            self.status(),
            detail
        )?;
        if let Some(k) = &self.known {
            write!(f, " [known: {}; must contain {:?}]", k.reason, k.contains)?;
        }
        Ok(())
    }
}

/// Prints the table and panics when a row is not as expected.
pub fn report(title: &str, rows: &[Check]) {
    let w_file = rows.iter().map(|r| r.file.len()).max().unwrap_or(4).max(4);
    let w_check = rows.iter().map(|r| r.check.len()).max().unwrap_or(5).max(5);
    println!("\n== {title} ==");
    println!(
        "{:<w_file$}  {:<w_check$}  {:<15}  detail",
        "file", "check", "status"
    );
    for r in rows {
        let detail = match &r.result {
            Ok(d) | Err(d) => d.clone(),
        };
        let known = r
            .known
            .map(|k| format!(" [known: {}]", k.reason))
            .unwrap_or_default();
        println!(
            "{:<w_file$}  {:<w_check$}  {:<15}  {detail}{known}",
            r.file,
            r.check,
            r.status()
        );
    }
    let bad: Vec<&Check> = rows.iter().filter(|r| !r.is_as_expected()).collect();
    let count = |s: &str| rows.iter().filter(|r| r.status() == s).count();
    println!(
        "{} rows: {} ok, {} expected failures, {} not as expected",
        rows.len(),
        count("ok"),
        count("expected-fail"),
        bad.len()
    );
    assert!(!rows.is_empty(), "{title}: no rows");
    assert!(
        bad.is_empty(),
        "{title}: {} of {} checks not as expected:\n{}",
        bad.len(),
        rows.len(),
        bad.iter()
            .map(|r| format!("  {r}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}
