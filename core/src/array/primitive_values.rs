//! Value rules of primitive arrays, checked at [`ValidationLevel::Full`]
//! (the rules pyarrow's `validate(full=True)` applies to values):
//!
//! - Decimal32/64/128/256 ("Decimal" in Schema.fbs): a value has at most
//!   `precision` decimal digits, `|v| < 10^precision`;
//! - Date64 ("Date" in Schema.fbs, unit MILLISECOND): a value is a whole
//!   number of days, a multiple of 86,400,000 ms;
//! - Time32/Time64 ("Time" in Schema.fbs: time since midnight): a value lies
//!   in `0..86,400` seconds, in the array's unit.
//!
//! Only valid (non-null) slots are checked: null slots may hold anything.
//! The decimal check compares each value with two bounds taken from a table
//! (`±(10^precision - 1)`), without a division per value.
//!
//! [`ValidationLevel::Full`]: super::ValidationLevel::Full

use allocator_api2::alloc::Allocator;

use crate::buffer::NullBuffer;
use crate::datatypes::{DataType, TimeUnit};
use crate::error::{Error, Result};
use crate::native::i256;

/// Milliseconds in a day: Date64 values are multiples of it.
pub(crate) const MILLISECONDS_PER_DAY: i64 = 86_400_000;

/// Values are scanned in chunks of this many slots: a chunk is first tested
/// as a whole (a branch-free OR over the chunk, which vectorizes); the
/// validity bitmap is only read for a chunk holding an out-of-range value.
const CHUNK: usize = 256;

/// `10^p` for `p` in `0..=38`: every power of ten an `i128` holds.
const POW10_I128: [i128; 39] = {
    let mut t = [1i128; 39];
    let mut p = 1;
    while p < t.len() {
        t[p] = t[p - 1] * 10;
        p += 1;
    }
    t
};

/// `10^p` for `p` in `0..=76` as (low, high) 128-bit halves of an unsigned
/// 256-bit integer (10^76 < 2^253: the sign bit is never set).
const POW10_U256: [(u128, u128); 77] = {
    let mut t = [(1u128, 0u128); 77];
    let mut p = 1;
    while p < t.len() {
        t[p] = mul10_u256(t[p - 1]);
        p += 1;
    }
    t
};

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
    let (low, high) = POW10_U256[p];
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

/// `[min, max]` of each precision `0..=76` of Decimal256.
const BOUNDS_I256: [(i256, i256); 77] = {
    let mut t = [(i256::ZERO, i256::ZERO); 77];
    let mut p = 0;
    while p < t.len() {
        t[p] = (min_i256(p), max_i256(p));
        p += 1;
    }
    t
};

/// The largest value of precision `p` for a decimal stored in an `i128`
/// (or narrower), or `None` when `p > 38`.
fn max_i128(p: u8) -> Option<i128> {
    POW10_I128.get(usize::from(p)).map(|v| v - 1)
}

/// `true` when a valid slot of `values` makes `bad` true.
///
/// Each chunk is tested with a branch-free OR; only a chunk that contains a
/// bad value has its slots' validity looked up (one bit per bad value).
#[inline]
fn any_valid<T: Copy, A: Allocator>(
    values: &[T],
    nulls: Option<&NullBuffer<'_, A>>,
    bad: impl Fn(T) -> bool,
) -> bool {
    let nulls = nulls.filter(|n| n.null_count() > 0);
    for (c, chunk) in values.chunks(CHUNK).enumerate() {
        if !chunk.iter().fold(false, |acc, v| acc | bad(*v)) {
            continue;
        }
        let Some(n) = nulls else { return true };
        let base = c * CHUNK;
        if chunk
            .iter()
            .enumerate()
            .any(|(j, v)| bad(*v) && n.is_valid(base + j))
        {
            return true;
        }
    }
    false
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
        TimeUnit::Millisecond => 86_400_000,
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
            if any_valid(values, nulls, |v| v % MILLISECONDS_PER_DAY != 0) {
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
    let &(lo, hi) = BOUNDS_I256
        .get(usize::from(*p))
        .ok_or(Error::InvalidDataType)?;
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
