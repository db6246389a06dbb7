//! The value rules of `ValidationLevel::Strict` against pyarrow:
//! decimals within their precision (Decimal32/64/128/256) and Date64 values
//! that are whole days. Each case is one column written by our
//! `StreamWriter` (invalid values included: the writer does not validate).
//! pyarrow's reader reads every one, and so does ours at its default level
//! (`Full`: these are not structural rules); pyarrow's
//! `RecordBatch.validate(full=True)` verdict must equal ours at
//! `ValidationLevel::Strict`, for the column and for our reader with
//! `IpcReadOptions::with_strict_validation`. Null slots hold out-of-range
//! values in some cases: both must accept them. Ignored without the
//! `interop` feature (`scripts/test.sh interop` runs it).

use std::path::Path;

use alkaid::array::{Array, ArrayRef, PrimitiveArray, PrimitiveType, RecordBatch, ValidationLevel};
use alkaid::buffer::{BooleanBuffer, Buffer, NullBuffer, ScalarBuffer, SharedSlice};
use alkaid::datatypes::{DataType, Field, Schema};
use alkaid::ipc::reader::{IpcReadOptions, SliceStreamReader};
use alkaid::ipc::writer::{IpcWriteOptions, StreamWriter};
use alkaid::native::i256;
use alkaid::{Error, ErrorKind, Global};
use alkaid_tests::interop::{require_pyarrow, run_python, scratch_dir};

/// For each stream path in argv[1:], prints `unread: <message>` when
/// pyarrow's reader refuses it, else `ok` or `invalid: <message>` after
/// pyarrow's full validation of every batch.
const PY_VALIDATE: &str = r#"
import sys
import pyarrow.ipc as ipc
for path in sys.argv[1:]:
    try:
        batches = list(ipc.open_stream(path))
    except Exception as e:
        print("unread: " + str(e).replace("\n", " "))
        continue
    try:
        for b in batches:
            b.validate(full=True)
        print("ok")
    except Exception as e:
        print("invalid: " + str(e).replace("\n", " "))
"#;

const DAY: i64 = 86_400_000;

/// A column of `dt` over `values`, `valid[i] == false` marking a null slot
/// (whose value stays in the buffer), without any check.
fn column<T: PrimitiveType>(
    dt: DataType<'static, Global>,
    values: &[T],
    valid: &[bool],
) -> ArrayRef<'static, Global> {
    let values = ScalarBuffer::try_copy_in(values, Global).unwrap();
    let nulls = valid.iter().any(|v| !v).then(|| {
        let mut bits = vec![0u8; valid.len().div_ceil(8)];
        for (i, v) in valid.iter().enumerate() {
            bits[i / 8] |= u8::from(*v) << (i % 8);
        }
        let buf = Buffer::try_copy_in(&bits, Global).unwrap();
        NullBuffer::new(BooleanBuffer::try_new(buf, 0, valid.len()).unwrap())
    });
    // SAFETY: `T` stores `dt` (each case pairs them) and the bitmap has
    // the values' length; only the value rules may be broken, on purpose.
    unsafe { PrimitiveArray::new_unchecked(dt, values, nulls) }.into_array_ref()
}

fn pow10(p: u32) -> i256 {
    // 10^p for p <= 76 from two factors of at most 10^38.
    let a = 10i128.pow(p.min(38));
    let b = 10i128.pow(p - p.min(38));
    // a * b as 256 bits: schoolbook on 64-bit limbs.
    let (a0, a1) = (a as u128 & u64::MAX as u128, (a as u128) >> 64);
    let (b0, b1) = (b as u128 & u64::MAX as u128, (b as u128) >> 64);
    let mut limbs = [0u128; 4];
    for (i, x) in [a0, a1].iter().enumerate() {
        for (j, y) in [b0, b1].iter().enumerate() {
            let mut carry = x * y;
            let mut k = i + j;
            while carry != 0 {
                let s = limbs[k] + (carry & u64::MAX as u128);
                limbs[k] = s & u64::MAX as u128;
                carry = (carry >> 64) + (s >> 64);
                k += 1;
            }
        }
    }
    i256::from_parts(
        limbs[0] | (limbs[1] << 64),
        (limbs[2] | (limbs[3] << 64)) as i128,
    )
}

fn neg(v: i256) -> i256 {
    let (low, high) = v.to_parts();
    let nl = (!low).wrapping_add(1);
    i256::from_parts(nl, (!high).wrapping_add(i128::from(nl == 0)))
}

fn minus_one(v: i256) -> i256 {
    let (low, high) = v.to_parts();
    i256::from_parts(low.wrapping_sub(1), high - i128::from(low == 0))
}

/// (name, column, our expected verdict).
fn cases() -> Vec<(&'static str, ArrayRef<'static, Global>, Result<(), Error>)> {
    let t = [true, true, true];
    let bad = Err(Error::DecimalOutOfPrecision);
    let p38 = 10i128.pow(38);
    vec![
        (
            "decimal32(9,2) max",
            column(
                DataType::Decimal32(9, 2),
                &[999_999_999i32, -999_999_999, 0],
                &t,
            ),
            Ok(()),
        ),
        (
            "decimal32(9,2) 10^9",
            column(DataType::Decimal32(9, 2), &[1, 1_000_000_000i32, 1], &t),
            bad,
        ),
        (
            "decimal32(3,0) -1000",
            column(DataType::Decimal32(3, 0), &[-1000i32], &[true]),
            bad,
        ),
        (
            "decimal64(18,0) max",
            column(
                DataType::Decimal64(18, 0),
                &[10i64.pow(18) - 1, 1 - 10i64.pow(18)],
                &[true, true],
            ),
            Ok(()),
        ),
        (
            "decimal64(18,0) -10^18",
            column(DataType::Decimal64(18, 0), &[-(10i64.pow(18))], &[true]),
            bad,
        ),
        (
            "decimal128(5,2) max",
            column(
                DataType::Decimal128(5, 2),
                &[99_999i128, -99_999],
                &[true, true],
            ),
            Ok(()),
        ),
        (
            "decimal128(5,2) 10^5",
            column(DataType::Decimal128(5, 2), &[100_000i128], &[true]),
            bad,
        ),
        (
            "decimal128(5,2) -10^5",
            column(DataType::Decimal128(5, 2), &[-100_000i128], &[true]),
            bad,
        ),
        (
            "decimal128(38,0) max",
            column(
                DataType::Decimal128(38, 0),
                &[p38 - 1, 1 - p38],
                &[true, true],
            ),
            Ok(()),
        ),
        (
            "decimal128(38,0) 10^38",
            column(DataType::Decimal128(38, 0), &[p38], &[true]),
            bad,
        ),
        (
            "decimal128(5,2) null slot 10^30",
            column(
                DataType::Decimal128(5, 2),
                &[1i128, 10i128.pow(30), 2],
                &[true, false, true],
            ),
            Ok(()),
        ),
        (
            "decimal256(76,0) max",
            column(
                DataType::Decimal256(76, 0),
                &[minus_one(pow10(76)), neg(minus_one(pow10(76)))],
                &[true, true],
            ),
            Ok(()),
        ),
        (
            "decimal256(76,0) 10^76",
            column(DataType::Decimal256(76, 0), &[pow10(76)], &[true]),
            bad,
        ),
        (
            "decimal256(40,3) -10^40",
            column(DataType::Decimal256(40, 3), &[neg(pow10(40))], &[true]),
            bad,
        ),
        (
            "decimal256(40,3) null slot 10^76",
            column(
                DataType::Decimal256(40, 3),
                &[pow10(76), i256::ZERO],
                &[false, true],
            ),
            Ok(()),
        ),
        (
            "date64 whole days",
            column(
                DataType::Date64,
                &[0i64, DAY, -DAY, 20_000 * DAY],
                &[true; 4],
            ),
            Ok(()),
        ),
        (
            "date64 day + 1",
            column(DataType::Date64, &[DAY, DAY + 1], &[true, true]),
            Err(Error::Date64NotWholeDays),
        ),
        (
            "date64 -1",
            column(DataType::Date64, &[-1i64], &[true]),
            Err(Error::Date64NotWholeDays),
        ),
        (
            "date64 null slot 1",
            column(DataType::Date64, &[DAY, 1, 2 * DAY], &[true, false, true]),
            Ok(()),
        ),
    ]
}

fn stream_of(col: &ArrayRef<'static, Global>) -> Vec<u8> {
    let field = Field::new("v", col.data_type().clone(), true);
    let schema = Schema::new(SharedSlice::try_from_iter_in([field], Global).unwrap());
    let batch = RecordBatch::try_new(
        schema.clone(),
        SharedSlice::try_from_iter_in([col.clone()], Global).unwrap(),
    )
    .unwrap();
    let mut w =
        StreamWriter::try_new_in(Vec::new(), &schema, IpcWriteOptions::default(), Global).unwrap();
    w.write(&batch).unwrap();
    w.finish().unwrap();
    w.into_inner()
}

#[test]
#[cfg_attr(
    not(feature = "interop"),
    ignore = "needs pyarrow: run with --features interop (scripts/test.sh interop)"
)]
fn value_rules_agree_with_pyarrows_full_validation() {
    let version = require_pyarrow();
    let work = scratch_dir(Path::new(env!("CARGO_TARGET_TMPDIR")), "validation-pyarrow");
    let cases = cases();
    let mut paths = Vec::new();
    for (i, (name, col, want)) in cases.iter().enumerate() {
        assert_eq!(col.validate(ValidationLevel::Strict), *want, "{name}");
        assert_eq!(col.validate(ValidationLevel::Full), Ok(()), "{name}");
        assert_eq!(col.validate(ValidationLevel::Cheap), Ok(()), "{name}");
        let bytes = stream_of(col);
        let read = |opts| -> Result<usize, Error> {
            let r = SliceStreamReader::try_new_in(&bytes[..], opts, Global)?;
            Ok(r.collect::<Result<Vec<_>, _>>()?.len())
        };
        // Our reader reads every case by default, as pyarrow's does.
        assert_eq!(read(IpcReadOptions::default()), Ok(1), "{name}: our reader");
        let strict = IpcReadOptions::default().with_strict_validation();
        assert_eq!(
            read(strict).map_err(|e| e.kind()),
            want.map(|()| 1).map_err(|e| e.kind()),
            "{name}: our strict reader"
        );
        let path = work.join(format!("case{i}.arrows"));
        std::fs::write(&path, &bytes).unwrap();
        paths.push(path.to_str().unwrap().to_string());
    }
    let out = run_python(
        std::iter::once("-c".to_string())
            .chain(std::iter::once(PY_VALIDATE.to_string()))
            .chain(paths),
    )
    .unwrap();
    let verdicts: Vec<&str> = out.lines().collect();
    assert_eq!(verdicts.len(), cases.len(), "{out}");
    println!("pyarrow {version}, validate(full=True) against our Strict level:");
    for ((name, _, want), py) in cases.iter().zip(&verdicts) {
        println!("  {name:36} ours {want:?}, pyarrow {py}");
        assert!(!py.starts_with("unread"), "{name}: pyarrow's reader: {py}");
        assert_eq!(
            want.is_ok(),
            *py == "ok",
            "{name}: ours {want:?}, pyarrow {py}"
        );
        if let Err(e) = want {
            let words = match e.kind() {
                ErrorKind::Date64NotWholeDays => "whole number of days",
                _ => "does not fit in precision",
            };
            assert!(py.contains(words), "{name}: pyarrow {py}");
        }
    }
}
