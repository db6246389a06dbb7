//! Checks the stream `be_write` wrote: `be_check <path> [--expect big|little]`.
//!
//! Reads it with every stream reader of alkaid (zero-copy `SliceStreamReader`,
//! `StreamReader` over `embedded_io::Read`), checks the schema's endianness,
//! and compares every batch with the batches recomputed from the formulas.
//! Prints one line per check and `be_check: N passed, M failed`.

use std::process::ExitCode;

use alkaid::array::{RecordBatch, ValidationLevel};
use alkaid::ipc::reader::{IpcReadOptions, SliceStreamReader, StreamReader};
use alkaid::ipc::Endianness;
use alkaid::Global;
use alkaid_big_endian::{batches, A};

struct Checks {
    passed: u32,
    failed: u32,
}

impl Checks {
    fn check(&mut self, what: &str, r: Result<(), String>) {
        match r {
            Ok(()) => {
                self.passed += 1;
                println!("ok      {what}");
            }
            Err(e) => {
                self.failed += 1;
                println!("FAILED  {what}: {e}");
            }
        }
    }
}

fn compare<'b>(
    got: impl Iterator<Item = alkaid::Result<RecordBatch<'b, A>>>,
    want: &[RecordBatch<'b, A>],
) -> Result<(), String> {
    let mut n = 0;
    for (k, b) in got.enumerate() {
        let b = b.map_err(|e| format!("batch {k}: {e}"))?;
        b.validate(ValidationLevel::Full)
            .map_err(|e| format!("batch {k} invalid: {e}"))?;
        let w = want.get(k).ok_or(format!("extra batch {k}"))?;
        if &b != w {
            for (c, (x, y)) in b.columns().iter().zip(w.columns()).enumerate() {
                if x != y {
                    return Err(format!(
                        "batch {k} column {c} ({}): got {x:?}, want {y:?}",
                        b.schema().field(c).map(|f| f.name()).unwrap_or("?")
                    ));
                }
            }
            return Err(format!("batch {k} differs (schema or rows)"));
        }
        n += b.num_rows();
    }
    let rows: usize = want.iter().map(|b| b.num_rows()).sum();
    if n != rows {
        return Err(format!("{n} rows, want {rows}"));
    }
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (path, expect) = match &args[..] {
        [p] => (p.clone(), Endianness::Big),
        [p, flag, e] if flag == "--expect" && (e == "big" || e == "little") => (
            p.clone(),
            if e == "big" {
                Endianness::Big
            } else {
                Endianness::Little
            },
        ),
        _ => {
            eprintln!("usage: be_check <path> [--expect big|little]");
            return ExitCode::from(2);
        }
    };
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("be_check: {path}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let want = match batches() {
        Ok(b) => b,
        Err(e) => {
            eprintln!("be_check: building expected batches: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut c = Checks {
        passed: 0,
        failed: 0,
    };
    let opts = IpcReadOptions::default();

    match SliceStreamReader::try_new_in(&bytes, opts, Global) {
        Ok(r) => {
            c.check(
                &format!("schema endianness is {expect:?}"),
                (r.endianness() == expect)
                    .then_some(())
                    .ok_or(format!("got {:?}", r.endianness())),
            );
            c.check(
                "schema equals the expected schema",
                (r.schema() == want[0].schema())
                    .then_some(())
                    .ok_or(format!("got {:?}", r.schema())),
            );
            c.check("SliceStreamReader: batches and values", compare(r, &want));
        }
        Err(e) => c.check("SliceStreamReader opens the stream", Err(e.to_string())),
    }
    match StreamReader::try_new_in(&bytes[..], opts, Global) {
        Ok(r) => {
            c.check(
                "StreamReader: endianness",
                (r.endianness() == expect)
                    .then_some(())
                    .ok_or(format!("got {:?}", r.endianness())),
            );
            c.check("StreamReader: batches and values", compare(r, &want));
        }
        Err(e) => c.check("StreamReader opens the stream", Err(e.to_string())),
    }
    println!("be_check: {} passed, {} failed", c.passed, c.failed);
    if c.failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
