//! Dates, times, timestamps, durations and decimals as text.
//!
//! Dates and timestamps are ISO 8601 in the proleptic Gregorian calendar
//! (the calendar Arrow's epoch-based values use), computed with the
//! days-to-civil conversion of H. Hinnant's "chrono-Compatible Low-Level
//! Date Algorithms" (written from the published description). Years outside
//! 0000..=9999 use the expanded form (`-0044-03-15`, `+12345-01-01`).

use core::fmt::{self, Write};

use alkaid::datatypes::TimeUnit;

/// Ticks of `unit` per second, and the digits of a fraction of a second.
fn per_second(unit: TimeUnit) -> (i128, usize) {
    match unit {
        TimeUnit::Second => (1, 0),
        TimeUnit::Millisecond => (1_000, 3),
        TimeUnit::Microsecond => (1_000_000, 6),
        TimeUnit::Nanosecond => (1_000_000_000, 9),
    }
}

/// The short name of a unit: `s`, `ms`, `us`, `ns` (pyarrow's spelling).
pub(crate) fn unit_name(unit: TimeUnit) -> &'static str {
    match unit {
        TimeUnit::Second => "s",
        TimeUnit::Millisecond => "ms",
        TimeUnit::Microsecond => "us",
        TimeUnit::Nanosecond => "ns",
    }
}

/// (year, month 1..=12, day 1..=31) of `days` since 1970-01-01.
pub(crate) fn civil_from_days(days: i64) -> (i64, u32, u32) {
    // Shift the epoch to 0000-03-01 so that leap days end a year; an era is
    // 400 years = 146097 days.
    let z = i128::from(days) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097); // day of era, 0..=146096
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365; // 0..=399
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100); // 0..=365, from March 1
    let mp = (5 * doy + 2) / 153; // 0 = March … 11 = February
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i128::from(month <= 2);
    // |days| < 2^63 keeps the year far inside i64; the day and month are
    // small by construction.
    (year as i64, month as u32, day as u32)
}

/// `YYYY-MM-DD`.
pub(crate) fn write_date<W: Write>(f: &mut W, days: i64) -> fmt::Result {
    let (y, m, d) = civil_from_days(days);
    if y < 0 {
        write!(f, "-{:04}", y.unsigned_abs())?;
    } else if y > 9999 {
        write!(f, "+{y}")?;
    } else {
        write!(f, "{y:04}")?;
    }
    write!(f, "-{m:02}-{d:02}")
}

/// `YYYY-MM-DDTHH:MM:SS[.fff…]` of `value` ticks of `unit` since the epoch,
/// with `Z` when the type has a time zone (the value is then an instant in
/// UTC; without one it is a wall-clock time in an unknown zone).
pub(crate) fn write_timestamp<W: Write>(
    f: &mut W,
    value: i64,
    unit: TimeUnit,
    utc: bool,
) -> fmt::Result {
    let (per, digits) = per_second(unit);
    let v = i128::from(value);
    let secs = v.div_euclid(per);
    let frac = v.rem_euclid(per);
    let days = secs.div_euclid(86_400);
    let sod = secs.rem_euclid(86_400);
    // |value| <= 2^63 ticks of at least a nanosecond: days fit in i64.
    write_date(f, days as i64)?;
    write!(f, "T{:02}:{:02}:{:02}", sod / 3600, sod / 60 % 60, sod % 60)?;
    if digits > 0 {
        write!(f, ".{frac:0digits$}")?;
    }
    if utc {
        f.write_char('Z')?;
    }
    Ok(())
}

/// A date64 (milliseconds since the epoch): `YYYY-MM-DD` at midnight, a full
/// timestamp with milliseconds otherwise.
pub(crate) fn write_date64<W: Write>(f: &mut W, ms: i64) -> fmt::Result {
    if ms.rem_euclid(86_400_000) == 0 {
        write_date(f, ms.div_euclid(86_400_000))
    } else {
        write_timestamp(f, ms, TimeUnit::Millisecond, false)
    }
}

/// `HH:MM:SS[.fff…]` of `value` ticks of `unit` since midnight (values
/// outside a day keep counting hours, with a sign when negative).
pub(crate) fn write_time<W: Write>(f: &mut W, value: i64, unit: TimeUnit) -> fmt::Result {
    let (per, digits) = per_second(unit);
    let a = i128::from(value).abs();
    let secs = a / per;
    let frac = a % per;
    if value < 0 {
        f.write_char('-')?;
    }
    write!(
        f,
        "{:02}:{:02}:{:02}",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )?;
    if digits > 0 {
        write!(f, ".{frac:0digits$}")?;
    }
    Ok(())
}

/// A duration as its count and unit: `90s`, `-1500ms`, `12us`, `7ns`.
pub(crate) fn write_duration<W: Write>(f: &mut W, value: i64, unit: TimeUnit) -> fmt::Result {
    write!(f, "{value}{}", unit_name(unit))
}

/// The decimal digits of a 256-bit magnitude given as four 64-bit limbs,
/// most significant first.
fn u256_digits(mut limbs: [u64; 4]) -> String {
    const CHUNK: u128 = 10_000_000_000_000_000_000; // 10^19 < 2^64
    let mut chunks = Vec::new();
    while limbs.iter().any(|&l| l != 0) {
        let mut rem: u128 = 0;
        for l in limbs.iter_mut() {
            let cur = (rem << 64) | u128::from(*l);
            // rem < 10^19, so cur < 10^19 * 2^64 and the quotient fits u64.
            *l = (cur / CHUNK) as u64;
            rem = cur % CHUNK;
        }
        chunks.push(rem as u64);
    }
    let mut s = String::new();
    let mut it = chunks.iter().rev();
    match it.next() {
        None => s.push('0'),
        Some(first) => {
            let _ = write!(s, "{first}");
            for c in it {
                let _ = write!(s, "{c:019}");
            }
        }
    }
    s
}

/// Sign and decimal digits of a 256-bit two's complement integer given as
/// (low 128 bits, high 128 bits).
pub(crate) fn i256_digits(low: u128, high: i128) -> (bool, String) {
    let negative = high < 0;
    let (mut lo, mut hi) = (low, high as u128);
    if negative {
        // Two's complement negation over 256 bits.
        lo = !lo;
        hi = !hi;
        let (l, carry) = lo.overflowing_add(1);
        lo = l;
        hi = hi.wrapping_add(u128::from(carry));
    }
    let limbs = [(hi >> 64) as u64, hi as u64, (lo >> 64) as u64, lo as u64];
    (negative, u256_digits(limbs))
}

/// A decimal of unscaled value (sign, digits) and `scale`: the value is
/// `digits × 10^-scale` (`123.45` for 12345 at scale 2, `12300` for 123 at
/// scale −2).
pub(crate) fn write_decimal<W: Write>(
    f: &mut W,
    negative: bool,
    digits: &str,
    scale: i8,
) -> fmt::Result {
    if negative && digits != "0" {
        f.write_char('-')?;
    }
    if scale <= 0 {
        f.write_str(digits)?;
        if digits != "0" {
            for _ in 0..scale.unsigned_abs() {
                f.write_char('0')?;
            }
        }
        return Ok(());
    }
    let s = usize::from(scale.unsigned_abs());
    if digits.len() <= s {
        f.write_str("0.")?;
        for _ in digits.len()..s {
            f.write_char('0')?;
        }
        f.write_str(digits)
    } else {
        let (int, frac) = digits.split_at(digits.len() - s);
        write!(f, "{int}.{frac}")
    }
}

/// A decimal whose unscaled value fits an `i128`.
pub(crate) fn write_decimal_i128<W: Write>(f: &mut W, value: i128, scale: i8) -> fmt::Result {
    let digits = value.unsigned_abs().to_string();
    write_decimal(f, value < 0, &digits, scale)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(g: impl Fn(&mut String) -> fmt::Result) -> String {
        let mut out = String::new();
        g(&mut out).unwrap();
        out
    }

    #[test]
    fn civil_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(11_017), (2000, 3, 1));
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
        assert_eq!(civil_from_days(-719_468), (0, 3, 1));
        assert_eq!(civil_from_days(-719_469), (0, 2, 29)); // year 0 is a leap year
        assert_eq!(civil_from_days(i32::MAX as i64), (5_881_580, 7, 11));
        assert_eq!(civil_from_days(i32::MIN as i64), (-5_877_641, 6, 23));
        // Round trip against a day-by-day walk over four centuries.
        let (mut y, mut m, mut d) = (1900i64, 1u32, 1u32);
        for days in -25_567..120_000i64 {
            assert_eq!(civil_from_days(days), (y, m, d), "day {days}");
            let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
            let len = [
                31,
                if leap { 29 } else { 28 },
                31,
                30,
                31,
                30,
                31,
                31,
                30,
                31,
                30,
                31,
            ][m as usize - 1];
            d += 1;
            if d > len {
                d = 1;
                m += 1;
                if m > 12 {
                    m = 1;
                    y += 1;
                }
            }
        }
    }

    #[test]
    fn dates_and_timestamps() {
        assert_eq!(s(|f| write_date(f, 0)), "1970-01-01");
        assert_eq!(s(|f| write_date(f, -719_529)), "-0001-12-31");
        assert_eq!(s(|f| write_date(f, 2_932_897)), "+10000-01-01");
        assert_eq!(
            s(|f| write_timestamp(f, 1_700_000_000_123_456, TimeUnit::Microsecond, true)),
            "2023-11-14T22:13:20.123456Z"
        );
        assert_eq!(
            s(|f| write_timestamp(f, -1, TimeUnit::Nanosecond, false)),
            "1969-12-31T23:59:59.999999999"
        );
        assert_eq!(
            s(|f| write_timestamp(f, 86_399, TimeUnit::Second, false)),
            "1970-01-01T23:59:59"
        );
        assert_eq!(
            s(|f| write_timestamp(f, i64::MIN, TimeUnit::Second, false)),
            "-292277022657-01-27T08:29:52"
        );
        assert_eq!(
            s(|f| write_timestamp(f, i64::MAX, TimeUnit::Nanosecond, true)),
            "2262-04-11T23:47:16.854775807Z"
        );
        assert_eq!(s(|f| write_date64(f, 86_400_000)), "1970-01-02");
        assert_eq!(s(|f| write_date64(f, 1)), "1970-01-01T00:00:00.001");
    }

    #[test]
    fn times_and_durations() {
        assert_eq!(s(|f| write_time(f, 3_723, TimeUnit::Second)), "01:02:03");
        assert_eq!(
            s(|f| write_time(f, 3_723_004, TimeUnit::Millisecond)),
            "01:02:03.004"
        );
        assert_eq!(
            s(|f| write_time(f, 86_399_999_999_999, TimeUnit::Nanosecond)),
            "23:59:59.999999999"
        );
        assert_eq!(s(|f| write_time(f, -1, TimeUnit::Second)), "-00:00:01");
        assert_eq!(
            s(|f| write_time(f, i64::MIN, TimeUnit::Microsecond)),
            "-2562047788:00:54.775808"
        );
        assert_eq!(
            s(|f| write_duration(f, -1500, TimeUnit::Millisecond)),
            "-1500ms"
        );
    }

    #[test]
    fn decimals() {
        assert_eq!(s(|f| write_decimal_i128(f, 12345, 2)), "123.45");
        assert_eq!(s(|f| write_decimal_i128(f, -5, 3)), "-0.005");
        assert_eq!(s(|f| write_decimal_i128(f, 0, 2)), "0.00");
        assert_eq!(s(|f| write_decimal_i128(f, 123, -2)), "12300");
        assert_eq!(s(|f| write_decimal_i128(f, 0, -2)), "0");
        assert_eq!(s(|f| write_decimal_i128(f, -7, 0)), "-7");
        assert_eq!(
            s(|f| write_decimal_i128(f, i128::MIN, 38)),
            "-1.70141183460469231731687303715884105728"
        );
        let (neg, d) = i256_digits(12345, 0);
        assert_eq!((neg, d.as_str()), (false, "12345"));
        let (neg, d) = i256_digits(u128::MAX - 12344, -1); // −12345
        assert_eq!((neg, d.as_str()), (true, "12345"));
        let (neg, d) = i256_digits(0, 1); // 2^128
        assert_eq!(
            (neg, d.as_str()),
            (false, "340282366920938463463374607431768211456")
        );
        let (neg, d) = i256_digits(0, i128::MIN); // −2^255
        assert!(neg);
        assert_eq!(
            d,
            "57896044618658097711785492504343953926634992332820282019728792003956564819968"
        );
        let (neg, d) = i256_digits(u128::MAX, i128::MAX); // 2^255 − 1
        assert!(!neg);
        assert_eq!(
            d,
            "57896044618658097711785492504343953926634992332820282019728792003956564819967"
        );
        assert_eq!(s(|f| write_decimal(f, true, "12345", 2)), "-123.45");
    }
}
