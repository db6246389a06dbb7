//! `sensor-check [--prefix] <sensor.arrows>`: reads the stream the
//! sensor-demo firmware wrote with both stream readers of alkaid (zero-copy
//! `SliceStreamReader` and `StreamReader` over `embedded_io::Read`),
//! validating every batch fully, and checks the schema, the row count and
//! every value against `sensor_model::sample`. Prints one line per check and
//! `sensor-check: N passed, M failed`; exits 1 when a check failed.
//!
//! With `--prefix` the stream may hold fewer batches than the firmware sends
//! (at least one) and may be cut inside a message (the end of input in the
//! middle of one is accepted): what a host received from a firmware that
//! was stopped mid-stream. Every whole batch must still match.

use std::process::ExitCode;

use alkaid::array::{ArrayRef, RecordBatch, ValidationLevel};
use alkaid::datatypes::{DataType, IndexType, TimeUnit};
use alkaid::ipc::reader::{IpcReadOptions, SliceStreamReader, StreamReader};
use alkaid::Global;
use sensor_model::{sample, BATCHES, BATCH_ROWS, STATUS_LABELS};

type Batch<'b> = RecordBatch<'b, Global>;

fn check_schema(batch: &Batch<'_>) -> Result<(), String> {
    let fields = batch.schema().fields();
    let names: Vec<&str> = fields.iter().map(|f| f.name()).collect();
    let want = [
        "time",
        "temperature",
        "humidity",
        "pressure",
        "vibration",
        "status",
    ];
    if names != want {
        return Err(format!("field names {names:?}"));
    }
    let types: Vec<&DataType<'_, Global>> = fields.iter().map(|f| f.data_type()).collect();
    let ok = matches!(types[0], DataType::Timestamp(TimeUnit::Millisecond, Some(tz)) if tz.as_str() == "UTC")
        && types[1..5].iter().all(|t| matches!(t, DataType::Float32))
        && matches!(types[5], DataType::Dictionary(IndexType::Int8, v, false) if matches!(**v, DataType::Utf8));
    if !ok {
        return Err(format!("field types {types:?}"));
    }
    Ok(())
}

/// Compares one batch with samples `first..first + rows`.
fn check_values(batch: &Batch<'_>, first: u32) -> Result<(), String> {
    let col = |i| batch.column(i).ok_or(format!("no column {i}"));
    let (ArrayRef::Int64(time), ArrayRef::Float32(temp), ArrayRef::Float32(hum)) =
        (col(0)?, col(1)?, col(2)?)
    else {
        return Err("columns 0-2 have the wrong layouts".into());
    };
    let (ArrayRef::Float32(pres), ArrayRef::Float32(vib), ArrayRef::Dictionary(status)) =
        (col(3)?, col(4)?, col(5)?)
    else {
        return Err("columns 3-5 have the wrong layouts".into());
    };
    let ArrayRef::Utf8(labels) = status.values() else {
        return Err("status dictionary is not Utf8".into());
    };
    for r in 0..batch.num_rows() {
        let i = first + r as u32;
        let s = sample(i);
        let label = status
            .key(r)
            .and_then(|k| labels.value(k))
            .ok_or(format!("sample {i}: no status"))?;
        let got = (
            time.get(r),
            temp.get(r),
            hum.get(r),
            pres.get(r),
            vib.get(r),
            label,
        );
        let want = (
            Some(s.time_ms),
            Some(s.temperature),
            s.humidity,
            Some(s.pressure),
            Some(s.vibration),
            STATUS_LABELS[usize::from(s.status)],
        );
        if got != want {
            return Err(format!("sample {i}: got {got:?}, want {want:?}"));
        }
    }
    Ok(())
}

fn check_stream<'b>(
    batches: impl Iterator<Item = alkaid::Result<Batch<'b>>>,
    prefix: bool,
) -> Result<usize, String> {
    let mut rows = 0usize;
    let mut count = 0u32;
    for b in batches {
        let b = match b {
            Ok(b) => b,
            Err(e) if prefix && e.kind() == alkaid::ErrorKind::UnexpectedEof && count > 0 => break,
            Err(e) => return Err(format!("batch {count}: {e}")),
        };
        b.validate(ValidationLevel::Full)
            .map_err(|e| format!("batch {count} invalid: {e}"))?;
        if count == 0 {
            check_schema(&b)?;
        }
        if b.num_rows() != BATCH_ROWS as usize {
            return Err(format!("batch {count}: {} rows", b.num_rows()));
        }
        check_values(&b, rows as u32)?;
        rows += b.num_rows();
        count += 1;
    }
    if prefix {
        if count == 0 {
            return Err("no whole batch".into());
        }
    } else if count != BATCHES {
        return Err(format!("{count} batches, want {BATCHES}"));
    }
    Ok(rows)
}

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let prefix = args.first().is_some_and(|a| a == "--prefix");
    if prefix {
        args.remove(0);
    }
    let [path] = &args[..] else {
        eprintln!("usage: sensor-check [--prefix] <sensor.arrows>");
        return ExitCode::from(2);
    };
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("sensor-check: {path}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let (mut passed, mut failed) = (0, 0);
    let mut report = |what: &str, r: Result<usize, String>| match r {
        Ok(rows) => {
            passed += 1;
            println!("ok      {what}: {rows} samples match the simulation");
        }
        Err(e) => {
            failed += 1;
            println!("FAILED  {what}: {e}");
        }
    };
    let opts = IpcReadOptions::default();
    report(
        "SliceStreamReader (zero copy)",
        SliceStreamReader::try_new_in(&bytes, opts, Global)
            .map_err(|e| e.to_string())
            .and_then(|r| check_stream(r, prefix)),
    );
    report(
        "StreamReader (embedded_io::Read)",
        StreamReader::try_new_in(&bytes[..], opts, Global)
            .map_err(|e| e.to_string())
            .and_then(|r| check_stream(r, prefix)),
    );
    println!("sensor-check: {passed} passed, {failed} failed");
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
