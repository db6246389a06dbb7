//! Value rules of primitive arrays, checked at [`ValidationLevel::Strict`]
//! (the rules pyarrow's `validate(full=True)` applies to values; its
//! readers, arrow-rs's and the default [`ValidationLevel::Full`] do not):
//!
//! - Decimal32/64/128/256 ("Decimal" in Schema.fbs): a value has at most
//!   `precision` decimal digits, `|v| < 10^precision`;
//! - Date64 ("Date" in Schema.fbs, unit MILLISECOND): a value is a whole
//!   number of days, a multiple of 86,400,000 ms;
//! - Time32/Time64 ("Time" in Schema.fbs: time since midnight): a value lies
//!   in `0..86,400` seconds, in the array's unit.
//!
//! Only valid (non-null) slots are checked: null slots may hold anything.
//! The decimal check compares each value with two bounds (`±(10^precision -
//! 1)`, computed once per array, not kept in tables), without a division
//! per value; the Date64 check needs no 64-bit division either.
//!
//! [`ValidationLevel::Strict`]: super::ValidationLevel::Strict
//! [`ValidationLevel::Full`]: super::ValidationLevel::Full

use allocator_api2::alloc::Allocator;

use crate::buffer::NullBuffer;
use crate::datatypes::{DataType, TimeUnit};
use crate::error::{Error, Result};
use crate::native::i256;

/// Milliseconds in a day: Date64 values are multiples of it.
pub(crate) const MILLISECONDS_PER_DAY: i64 = 86_400_000;

/// `true` when `ms` is a whole number of days (a multiple of
/// [`MILLISECONDS_PER_DAY`] = 2^10 * 84,375), without a 64-bit division
/// (which a 32-bit target does in a kilobyte of library code): the low ten
/// bits are zero, and the rest times the inverse of 84,375 modulo 2^64 is
/// at most (2^64 - 1) / 84,375, which holds exactly for its multiples.
#[inline]
pub(crate) fn whole_days(ms: i64) -> bool {
    /// 84,375 * INV = 1 (mod 2^64).
    const INV: u64 = {
        // Newton's iteration for the inverse of an odd number mod 2^64.
        let d: u64 = 84_375;
        let mut x: u64 = d;
        let mut i = 0;
        while i < 6 {
            x = x.wrapping_mul(2u64.wrapping_sub(d.wrapping_mul(x)));
            i += 1;
        }
        x
    };
    const _: () =
        assert!(MILLISECONDS_PER_DAY == 1024 * 84_375 && 84_375u64.wrapping_mul(INV) == 1);
    let u = ms.unsigned_abs();
    u & 1023 == 0 && (u >> 10).wrapping_mul(INV) <= u64::MAX / 84_375
}

/// `10^p` (`p` in `0..=76`) as (low, high) 128-bit halves of an unsigned
/// 256-bit integer (10^76 < 2^253: the sign bit is never set). Computed
/// when an array is validated (at most 76 steps) rather than kept in a
/// table: a firmware reader pays no 5 KB of bounds it never uses.
pub(crate) const fn pow10_u256(p: usize) -> (u128, u128) {
    let mut t = (1u128, 0u128);
    let mut i = 0;
    while i < p {
        t = mul10_u256(t);
        i += 1;
    }
    t
}

/// `x * 10` of an unsigned 256-bit integer given as (low, high) halves;
/// the caller keeps the product below 2^256.
const fn mul10_u256((low, high): (u128, u128)) -> (u128, u128) {
    // The low half times 10 in two 64-bit limbs, each product below 2^68.
    let lo64 = (low as u64) as u128 * 10;
    let hi64 = (low >> 64) * 10 + (lo64 >> 64);
    let new_low = (lo64 as u64 as u128) | (hi64 << 64);
    let carry = hi64 >> 64;
    (new_low, high * 10 + carry)
}

/// `10^p - 1` as an `i256` (`p` in `0..=76`): the largest value of precision `p`.
const fn max_i256(p: usize) -> i256 {
    let (low, high) = pow10_u256(p);
    // 10^p is not a multiple of 2^128 (p < 128), so its low half is not
    // zero and subtracting one does not borrow from the high half.
    i256::from_parts(low.wrapping_sub(1), high as i128)
}

/// `-(10^p - 1)` as an `i256`: the smallest value of precision `p`.
const fn min_i256(p: usize) -> i256 {
    let (low, high) = max_i256(p).to_parts();
    // Two's complement negation: invert, add one (carrying into the high half).
    let neg_low = (!low).wrapping_add(1);
    let carry = if neg_low == 0 { 1 } else { 0 };
    i256::from_parts(neg_low, (!high).wrapping_add(carry))
}

/// `[min, max]` of precision `p` of Decimal256, or `None` when `p > 76`.
pub(crate) fn bounds_i256(p: usize) -> Option<(i256, i256)> {
    (p <= 76).then(|| (min_i256(p), max_i256(p)))
}

/// The largest value of precision `p` for a decimal stored in an `i128`
/// (or narrower), or `None` when `p > 38`.
fn max_i128(p: u8) -> Option<i128> {
    // 10^38 < 2^127: the low half of the 256-bit power is the whole value.
    (p <= 38).then(|| pow10_u256(usize::from(p)).0 as i128 - 1)
}

/// `true` when a valid slot of `values` makes `bad` true: one pass, the
/// validity bit read only for a bad value. (A chunked, branch-free variant
/// was faster on hosts but cost the firmware reader 450 bytes of its size
/// budget across the seven value rules.)
fn any_valid<T: Copy, A: Allocator>(
    values: &[T],
    nulls: Option<&NullBuffer<'_, A>>,
    bad: impl Fn(T) -> bool,
) -> bool {
    match nulls.filter(|n| n.null_count() > 0) {
        None => values.iter().any(|v| bad(*v)),
        Some(n) => values
            .iter()
            .enumerate()
            .any(|(i, v)| bad(*v) && n.is_valid(i)),
    }
}

/// The range check of a decimal array whose values are `i32`, `i64` or
/// `i128`: `|v| <= 10^precision - 1` for each valid slot.
fn check_decimal<T, A: Allocator>(
    values: &[T],
    nulls: Option<&NullBuffer<'_, A>>,
    precision: u8,
) -> Result<()>
where
    T: Copy + PartialOrd + TryFrom<i128>,
{
    // Precisions are validated against the width (9, 18, 38) before this
    // runs; a bound that does not fit in `T` would be a wider type's.
    let max = max_i128(precision).ok_or(Error::InvalidDataType)?;
    let hi = T::try_from(max).map_err(|_| Error::InvalidDataType)?;
    let lo = T::try_from(-max).map_err(|_| Error::InvalidDataType)?;
    if any_valid(values, nulls, |v| (v < lo) | (v > hi)) {
        return Err(Error::DecimalOutOfPrecision);
    }
    Ok(())
}

/// Units of `unit` in one day.
fn units_per_day(unit: TimeUnit) -> i64 {
    match unit {
        TimeUnit::Second => 86_400,
        TimeUnit::Millisecond => MILLISECONDS_PER_DAY,
        TimeUnit::Microsecond => 86_400_000_000,
        TimeUnit::Nanosecond => 86_400_000_000_000,
    }
}

/// The Time32/Time64 rule: every valid value in `0..units_per_day(unit)`.
fn check_time<T: Copy + Into<i64>, A: Allocator>(
    values: &[T],
    nulls: Option<&NullBuffer<'_, A>>,
    unit: TimeUnit,
) -> Result<()> {
    let day = units_per_day(unit);
    if any_valid(values, nulls, |v| {
        let v: i64 = v.into();
        (v < 0) | (v >= day)
    }) {
        return Err(Error::TimeOutOfRange);
    }
    Ok(())
}

/// The value rules of primitive arrays stored as `i32`: Decimal32 precision
/// and Time32 within a day.
pub(crate) fn check_i32<A: Allocator>(
    dt: &DataType<'_, A>,
    values: &[i32],
    nulls: Option<&NullBuffer<'_, A>>,
) -> Result<()> {
    match dt {
        DataType::Decimal32(p, _) => check_decimal(values, nulls, *p),
        DataType::Time32(unit) => check_time(values, nulls, *unit),
        _ => Ok(()),
    }
}

/// The value rules of primitive arrays stored as `i64`: Decimal64
/// precision, Date64 whole days and Time64 within a day.
pub(crate) fn check_i64<A: Allocator>(
    dt: &DataType<'_, A>,
    values: &[i64],
    nulls: Option<&NullBuffer<'_, A>>,
) -> Result<()> {
    match dt {
        DataType::Decimal64(p, _) => check_decimal(values, nulls, *p),
        DataType::Date64 => {
            if any_valid(values, nulls, |v| !whole_days(v)) {
                return Err(Error::Date64NotWholeDays);
            }
            Ok(())
        }
        DataType::Time64(unit) => check_time(values, nulls, *unit),
        _ => Ok(()),
    }
}

/// The value rules of primitive arrays stored as `i128`: Decimal128 precision.
pub(crate) fn check_i128<A: Allocator>(
    dt: &DataType<'_, A>,
    values: &[i128],
    nulls: Option<&NullBuffer<'_, A>>,
) -> Result<()> {
    match dt {
        DataType::Decimal128(p, _) => check_decimal(values, nulls, *p),
        _ => Ok(()),
    }
}

/// The value rules of primitive arrays stored as [`i256`]: Decimal256 precision.
pub(crate) fn check_i256<A: Allocator>(
    dt: &DataType<'_, A>,
    values: &[i256],
    nulls: Option<&NullBuffer<'_, A>>,
) -> Result<()> {
    let DataType::Decimal256(p, _) = dt else {
        return Ok(());
    };
    let (lo, hi) = bounds_i256(usize::from(*p)).ok_or(Error::InvalidDataType)?;
    if any_valid(values, nulls, |v| (v < lo) | (v > hi)) {
        return Err(Error::DecimalOutOfPrecision);
    }
    Ok(())
}

/// No value rules (every other primitive type).
pub(crate) fn check_none<T, A: Allocator>(
    _dt: &DataType<'_, A>,
    _values: &[T],
    _nulls: Option<&NullBuffer<'_, A>>,
) -> Result<()> {
    Ok(())
}

#[cfg(test)]
#[path = "primitive_values_tests.rs"]
mod tests;
