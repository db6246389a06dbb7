//! Tests of the value rules: decimal precision and Date64 whole days.

extern crate std;
use std::vec::Vec;

use crate::Global;

use super::*;
use crate::array::{Array, PrimitiveArray, PrimitiveType, ValidationLevel};
use crate::buffer::{BooleanBuffer, Buffer, ScalarBuffer};

/// A validity bitmap from booleans (`true` = valid).
fn bitmap(valid: &[bool]) -> NullBuffer<'static, Global> {
    let mut bytes = std::vec![0u8; valid.len().div_ceil(8)];
    for (i, v) in valid.iter().enumerate() {
        if *v {
            bytes[i / 8] |= 1 << (i % 8);
        }
    }
    let buf = Buffer::try_copy_in(&bytes, Global).unwrap();
    NullBuffer::new(BooleanBuffer::try_new(buf, 0, valid.len()).unwrap())
}

/// `PrimitiveArray::try_new` over `values` of type `dt`, then the value
/// rules (`ValidationLevel::Strict`).
fn build<T: PrimitiveType>(
    dt: DataType<'static, Global>,
    values: &[T],
    valid: Option<&[bool]>,
) -> Result<PrimitiveArray<'static, T, Global>> {
    let values: Vec<T> = values.to_vec();
    let values = ScalarBuffer::try_copy_in(&values, Global).unwrap();
    let a = PrimitiveArray::try_new(dt, values, valid.map(bitmap))?;
    a.validate(ValidationLevel::Strict)?;
    Ok(a)
}

fn i256_of(v: i128) -> i256 {
    i256::from_i128(v)
}

/// `10^p` as an `i256` from the decimal digits (independent of the table).
fn pow10_i256(p: usize) -> i256 {
    let mut le = [0u8; 32];
    // Schoolbook multiplication by 10, byte by byte.
    le[0] = 1;
    for _ in 0..p {
        let mut carry = 0u16;
        for b in le.iter_mut() {
            let x = u16::from(*b) * 10 + carry;
            *b = x as u8;
            carry = x >> 8;
        }
        assert_eq!(carry, 0);
    }
    i256::from_le_bytes(le)
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

#[test]
fn tables_hold_powers_of_ten() {
    for p in 0..=38u8 {
        assert_eq!(
            i256::from_i128(max_i128(p).unwrap() + 1),
            pow10_i256(usize::from(p)),
            "10^{p}"
        );
    }
    assert_eq!(max_i128(39), None);
    for p in 0..=76 {
        let (low, high) = pow10_u256(p);
        assert_eq!(i256::from_parts(low, high as i128), pow10_i256(p), "10^{p}");
        let (lo, hi) = bounds_i256(p).unwrap();
        assert_eq!(hi, minus_one(pow10_i256(p)));
        assert_eq!(lo, neg(hi));
    }
    assert_eq!(bounds_i256(77), None);
    // 10^76 from its hexadecimal spelling (Python's `hex(10**76)`).
    assert_eq!(
        pow10_u256(76),
        (
            0x7775a5f1719510000000000000000000,
            0x161bcca7119915b50764b4abe8652979
        )
    );
}

#[test]
fn one_bad_decimal_is_refused_with_its_error() {
    let mut v = std::vec![12345i128; 1000];
    assert!(build(DataType::Decimal128(5, 2), &v, None).is_ok());
    v[777] = 100_000;
    assert_eq!(
        build(DataType::Decimal128(5, 2), &v, None).unwrap_err(),
        Error::DecimalOutOfPrecision
    );
    v[777] = -100_000;
    assert_eq!(
        build(DataType::Decimal128(5, 2), &v, None).unwrap_err(),
        Error::DecimalOutOfPrecision
    );
}

#[test]
fn decimal32_and_decimal64_boundaries() {
    for p in 1..=9u8 {
        let max = 10i32.pow(u32::from(p)) - 1;
        let dt = || DataType::Decimal32(p, 0);
        assert!(build(dt(), &[max, -max, 0], None).is_ok(), "p={p}");
        if p < 9 {
            assert_eq!(
                build(dt(), &[max + 1], None).unwrap_err(),
                Error::DecimalOutOfPrecision
            );
            assert_eq!(
                build(dt(), &[-max - 1], None).unwrap_err(),
                Error::DecimalOutOfPrecision
            );
        }
    }
    // Precision 9: i32::MAX is a 10-digit value.
    assert_eq!(
        build(DataType::Decimal32(9, 0), &[i32::MAX], None).unwrap_err(),
        Error::DecimalOutOfPrecision
    );
    assert_eq!(
        build(DataType::Decimal32(9, 0), &[1_000_000_000], None).unwrap_err(),
        Error::DecimalOutOfPrecision
    );
    for p in 1..=18u8 {
        let max = 10i64.pow(u32::from(p)) - 1;
        let dt = || DataType::Decimal64(p, 3);
        assert!(build(dt(), &[max, -max], None).is_ok(), "p={p}");
        assert_eq!(
            build(dt(), &[max + 1], None).unwrap_err(),
            Error::DecimalOutOfPrecision
        );
        assert_eq!(
            build(dt(), &[-max - 1], None).unwrap_err(),
            Error::DecimalOutOfPrecision
        );
    }
    assert_eq!(
        build(DataType::Decimal64(18, 0), &[i64::MIN], None).unwrap_err(),
        Error::DecimalOutOfPrecision
    );
}

#[test]
fn decimal128_boundaries() {
    for p in 1..=38u8 {
        let max = 10i128.pow(u32::from(p)) - 1;
        let dt = || DataType::Decimal128(p, 0);
        assert!(build(dt(), &[max, -max, 0, 1, -1], None).is_ok(), "p={p}");
        assert_eq!(
            build(dt(), &[max + 1], None).unwrap_err(),
            Error::DecimalOutOfPrecision,
            "p={p}"
        );
        assert_eq!(
            build(dt(), &[-max - 1], None).unwrap_err(),
            Error::DecimalOutOfPrecision,
            "p={p}"
        );
    }
    assert_eq!(
        build(DataType::Decimal128(38, 0), &[i128::MIN], None).unwrap_err(),
        Error::DecimalOutOfPrecision
    );
}

#[test]
fn decimal256_boundaries() {
    for p in 1..=76usize {
        let ten_p = pow10_i256(p);
        let max = minus_one(ten_p);
        let dt = || DataType::Decimal256(p as u8, 10);
        assert!(
            build(dt(), &[max, neg(max), i256::ZERO, i256_of(-1)], None).is_ok(),
            "p={p}"
        );
        assert_eq!(
            build(dt(), &[ten_p], None).unwrap_err(),
            Error::DecimalOutOfPrecision,
            "p={p}"
        );
        assert_eq!(
            build(dt(), &[neg(ten_p)], None).unwrap_err(),
            Error::DecimalOutOfPrecision,
            "p={p}"
        );
    }
    // The extreme 256-bit values.
    let most = i256::from_parts(u128::MAX, i128::MAX);
    let least = i256::from_parts(0, i128::MIN);
    for v in [most, least] {
        assert_eq!(
            build(DataType::Decimal256(76, 0), &[v], None).unwrap_err(),
            Error::DecimalOutOfPrecision
        );
    }
}

#[test]
fn null_slots_may_hold_out_of_range_values() {
    // Garbage in null slots, at the ends and in between (and at the
    // 256-slot edges of an earlier chunked scan).
    const CHUNK: usize = 256;
    let n = 3 * CHUNK + 7;
    let mut v = std::vec![99i128; n];
    let mut valid = std::vec![true; n];
    for i in [0, 5, CHUNK - 1, CHUNK, 2 * CHUNK + 3, n - 1] {
        v[i] = i128::MAX;
        valid[i] = false;
    }
    let dt = || DataType::Decimal128(2, 0);
    assert!(build(dt(), &v, Some(&valid)).is_ok());
    // A bad value in a valid slot among bad null slots.
    v[CHUNK + 1] = 100;
    assert_eq!(
        build(dt(), &v, Some(&valid)).unwrap_err(),
        Error::DecimalOutOfPrecision
    );
    // Decimal256 and Date64 likewise.
    let big = i256::from_parts(0, 1); // 2^128 > 10^38
    let d256 = [i256_of(5), big, i256_of(-5)];
    let mask = [true, false, true];
    assert!(build(DataType::Decimal256(38, 0), &d256, Some(&mask)).is_ok());
    assert_eq!(
        build(DataType::Decimal256(38, 0), &d256, Some(&[true; 3])).unwrap_err(),
        Error::DecimalOutOfPrecision
    );
    let dates = [MILLISECONDS_PER_DAY, 1, -MILLISECONDS_PER_DAY];
    assert!(build(DataType::Date64, &dates, Some(&mask)).is_ok());
    assert_eq!(
        build(DataType::Date64, &dates, None).unwrap_err(),
        Error::Date64NotWholeDays
    );
}

#[test]
fn date64_whole_days() {
    let day = MILLISECONDS_PER_DAY;
    let ok = [
        0,
        day,
        -day,
        20_000 * day,
        -20_000 * day,
        i64::MAX / day * day,
    ];
    assert!(build(DataType::Date64, &ok, None).is_ok());
    for bad in [1, -1, day - 1, day + 1, -day + 1, i64::MAX, i64::MIN] {
        let mut v = std::vec![day; 600];
        v[599] = bad;
        assert_eq!(
            build(DataType::Date64, &v, None).unwrap_err(),
            Error::Date64NotWholeDays,
            "{bad}"
        );
    }
    // The same values are fine as Timestamp, Int64 or Date32-style types.
    assert!(build(DataType::Int64, &[1i64, -1], None).is_ok());
    assert!(build(
        DataType::Timestamp(crate::datatypes::TimeUnit::Millisecond, None),
        &[1i64],
        None
    )
    .is_ok());
}

#[test]
fn only_strict_validation_reads_values() {
    let dates = [0i64, 1, MILLISECONDS_PER_DAY];
    let values = ScalarBuffer::try_copy_in(&dates, Global).unwrap();
    // SAFETY: i64 stores Date64 and there is no bitmap.
    let a = unsafe { PrimitiveArray::new_unchecked(DataType::Date64, values, None) };
    assert_eq!(a.validate(ValidationLevel::Cheap), Ok(()));
    assert_eq!(a.validate(ValidationLevel::Full), Ok(()));
    assert_eq!(
        a.validate(ValidationLevel::Strict),
        Err(Error::Date64NotWholeDays)
    );
    // A slice is checked over its own slots only.
    assert_eq!(
        a.slice(2, 1).unwrap().validate(ValidationLevel::Strict),
        Ok(())
    );
    assert_eq!(
        a.slice(1, 2).unwrap().validate(ValidationLevel::Strict),
        Err(Error::Date64NotWholeDays)
    );
    let decs = [1i128, 1_000_000, 5];
    let values = ScalarBuffer::try_copy_in(&decs, Global).unwrap();
    // SAFETY: i128 stores Decimal128 and there is no bitmap.
    let d = unsafe { PrimitiveArray::new_unchecked(DataType::Decimal128(5, 0), values, None) };
    assert_eq!(d.validate(ValidationLevel::Cheap), Ok(()));
    assert_eq!(d.validate(ValidationLevel::Full), Ok(()));
    assert_eq!(
        d.validate(ValidationLevel::Strict),
        Err(Error::DecimalOutOfPrecision)
    );
    assert_eq!(
        d.slice(2, 1).unwrap().validate(ValidationLevel::Strict),
        Ok(())
    );
}

/// A sliced validity bitmap (bit offset not a multiple of 8) lines up with
/// the sliced values.
#[test]
fn sliced_bitmap_lines_up() {
    let v = [7i32, 1000, 7, 7, 7, 7, 7, 7, 7, 1000, 7];
    let valid = [
        true, false, true, true, true, true, true, true, true, false, true,
    ];
    let a = build(DataType::Decimal32(3, 0), &v, Some(&valid)).unwrap();
    for off in 0..v.len() {
        for len in 0..=v.len() - off {
            assert_eq!(
                a.slice(off, len).unwrap().validate(ValidationLevel::Strict),
                Ok(())
            );
        }
    }
}

#[test]
fn time_values_lie_within_one_day() {
    use crate::datatypes::TimeUnit::*;
    for (unit, day) in [(Second, 86_400i64), (Millisecond, 86_400_000)] {
        let dt = DataType::Time32(unit);
        let day = i32::try_from(day).unwrap();
        assert!(build::<i32>(dt.clone(), &[0, day - 1], None).is_ok());
        for bad in [day, -1, i32::MAX, i32::MIN] {
            assert_eq!(
                build::<i32>(dt.clone(), &[0, bad], None).err(),
                Some(Error::TimeOutOfRange),
                "{unit:?} {bad}"
            );
            // A null slot may hold anything.
            assert!(build::<i32>(dt.clone(), &[0, bad], Some(&[true, false])).is_ok());
        }
    }
    for (unit, day) in [
        (Microsecond, 86_400_000_000i64),
        (Nanosecond, 86_400_000_000_000),
    ] {
        let dt = DataType::Time64(unit);
        assert!(build::<i64>(dt.clone(), &[0, day - 1], None).is_ok());
        for bad in [day, -1, i64::MAX] {
            assert_eq!(
                build::<i64>(dt.clone(), &[bad], None).err(),
                Some(Error::TimeOutOfRange),
                "{unit:?} {bad}"
            );
        }
    }
}

#[test]
fn whole_days_matches_the_remainder() {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut values: Vec<i64> = std::vec![0, 1, -1, i64::MIN, i64::MAX, 86_400_000, -86_400_000];
    for k in [1i64, 2, 3, 1 << 20, 106_751_991_167] {
        values.extend([
            k * 86_400_000,
            -k * 86_400_000,
            k * 86_400_000 + 1,
            k * 86_400_000 - 1024,
        ]);
    }
    // Pure arithmetic: Miri adds nothing here but time.
    for _ in 0..if cfg!(miri) { 1_000 } else { 100_000 } {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        values.push(x as i64);
        values.push((x as i64 % 1_000_000) * 86_400_000);
    }
    for v in values {
        assert_eq!(whole_days(v), v % MILLISECONDS_PER_DAY == 0, "{v}");
    }
}
