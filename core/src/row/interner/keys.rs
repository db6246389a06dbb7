//! Key assignment: the gap between two neighbouring keys, and new keys
//! spread evenly over the shortest key length that holds them all.
//!
//! Keys are byte strings over `0x01..=0xFF` whose last byte is at least
//! `0x02`, compared lexicographically (a prefix first). A gap is a prefix
//! (taken from one neighbour's key) and a range of bytes after it: every
//! `prefix ++ [b] ++ suffix` with `low < b < high` and suffix bytes in
//! `0x02..=0xFF` lies strictly between the neighbours. `k` new keys with
//! `m` suffix bytes take the places `n * cap / (k + 1)`, `n = 1..=k`, of
//! the gap's `cap` places, leaving room on both sides for later values.

use crate::error::{Error, Result};

/// Number of values a suffix byte can take (`0x02..=0xFF`).
const DIGITS: u128 = 254;

/// Where new keys may go (see the module docs): the prefix is the first
/// `prefix_len` bytes of the lower neighbour's key (`from_high == false`)
/// or of the upper one's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Gap {
    pub(super) from_high: bool,
    pub(super) prefix_len: usize,
    low: u16,
    high: u16,
}

/// The first position of `key` from `from` whose byte can be raised
/// (below `0xFF`): extensions there are above `key`.
fn above(key: &[u8], from: usize) -> Gap {
    let at = key
        .iter()
        .skip(from)
        .position(|&b| b < 0xFF)
        .map(|i| i + from);
    Gap {
        from_high: false,
        // Every byte is 0xFF: anything longer starting with `key` is above.
        prefix_len: at.unwrap_or(key.len()),
        low: at.and_then(|i| key.get(i)).map_or(0, |&b| u16::from(b)),
        high: 256,
    }
}

/// The first position of `key` from `from` whose byte can be lowered
/// (above `0x01`): strings with a smaller byte there are below `key`.
///
/// # Errors
/// [`Error::UnknownDictionaryKey`] when there is none (never so for keys
/// the interner made: they end in a byte of at least 2).
fn below(key: &[u8], from: usize) -> Result<Gap> {
    let at = key.iter().skip(from).position(|&b| b > 1).map(|i| i + from);
    let (i, &b) = at
        .and_then(|i| Some((i, key.get(i)?)))
        .ok_or(Error::UnknownDictionaryKey)?;
    Ok(Gap {
        from_high: true,
        prefix_len: i,
        low: 0,
        high: u16::from(b),
    })
}

/// A gap strictly between the keys `lo` and `hi` (`None`: unbounded).
///
/// # Errors
/// [`Error::UnknownDictionaryKey`] when `lo` is not below `hi` or a key is
/// not one the interner makes.
pub(super) fn gap(lo: Option<&[u8]>, hi: Option<&[u8]>) -> Result<Gap> {
    let (l, h) = match (lo, hi) {
        (None, None) => return Ok(above(&[], 0)),
        (Some(l), None) => return Ok(above(l, 0)),
        (None, Some(h)) => return below(h, 0),
        (Some(l), Some(h)) => (l, h),
    };
    let common = l.iter().zip(h).take_while(|(a, b)| a == b).count();
    match (l.get(common), h.get(common)) {
        // `l` is a proper prefix of `h`: go below `h` after `l`.
        (None, Some(_)) => below(h, common),
        (Some(&a), Some(&b)) if u16::from(b) >= u16::from(a) + 2 => Ok(Gap {
            from_high: false,
            prefix_len: common,
            low: u16::from(a),
            high: u16::from(b),
        }),
        // Adjacent bytes: extend `l` past the difference.
        (Some(&a), Some(&b)) if a < b => Ok(above(l, common + 1)),
        _ => Err(Error::UnknownDictionaryKey),
    }
}

/// How many keys fit in `g` with `m` suffix bytes (`None`: past `u128`).
fn capacity(g: Gap, m: u32) -> Option<u128> {
    let (low, high) = (u128::from(g.low), u128::from(g.high));
    if m == 0 {
        // The last byte of a key is at least 2.
        Some(high.saturating_sub((low + 1).max(2)))
    } else {
        (high - low - 1).checked_mul(DIGITS.checked_pow(m)?)
    }
}

/// The places of `k` new keys in `g`: the number `m` of suffix bytes (the
/// fewest that hold them) and the gap's capacity with them.
///
/// # Errors
/// [`Error::CapacityOverflow`] when no key of up to 16 suffix bytes holds them.
pub(super) fn places(g: Gap, k: u128) -> Result<(u32, u128)> {
    (0..=16)
        .find_map(|m| capacity(g, m).filter(|&c| c >= k).map(|c| (m, c)))
        .ok_or(Error::CapacityOverflow)
}

/// `n * cap / (k + 1)`: the place of the `n`-th of `k` keys in a gap of
/// `cap` places, in 64 bits when they hold it.
///
/// # Errors
/// [`Error::CapacityOverflow`] when `n * cap` is past `u128`.
pub(super) fn place(n: u128, cap: u128, k: u128) -> Result<u128> {
    let x = n.checked_mul(cap).ok_or(Error::CapacityOverflow)?;
    Ok(match (u64::try_from(x), u64::try_from(k + 1)) {
        (Ok(x), Ok(d)) => u128::from(x / d),
        _ => x / (k + 1),
    })
}

/// Writes the byte after the prefix and the `m` suffix bytes (`out`,
/// `1 + m` bytes) of the key at place `idx` of gap `g`.
///
/// # Errors
/// [`Error::CapacityOverflow`] when `idx` is past the gap's places.
pub(super) fn write_tail(out: &mut [u8], g: Gap, m: u32, idx: u128) -> Result<()> {
    let (first, rest) = out.split_first_mut().ok_or(Error::OutOfBounds)?;
    let low = u128::from(g.low);
    let b = if m == 0 {
        (low + 1).max(2) + idx
    } else {
        // Base-254 digits (each below 254 + 2: fits a byte), in 64 bits
        // when the place fits them (128-bit division is slow).
        let rem = match u64::try_from(idx) {
            Ok(mut r) => {
                for d in rest.iter_mut().rev() {
                    *d = (r % DIGITS as u64 + 2) as u8;
                    r /= DIGITS as u64;
                }
                u128::from(r)
            }
            Err(_) => rest.iter_mut().rev().fold(idx, |r, d| {
                *d = (r % DIGITS + 2) as u8;
                r / DIGITS
            }),
        };
        low + 1 + rem
    };
    *first = u8::try_from(b).map_err(|_| Error::CapacityOverflow)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gaps() {
        let g = |from_high, prefix_len, low, high| Gap {
            from_high,
            prefix_len,
            low,
            high,
        };
        assert_eq!(gap(None, None).unwrap(), g(false, 0, 0, 256));
        assert_eq!(gap(Some(&[5]), Some(&[6])).unwrap(), g(false, 1, 0, 256));
        assert_eq!(gap(Some(&[5]), Some(&[8])).unwrap(), g(false, 0, 5, 8));
        assert_eq!(
            gap(Some(&[254]), Some(&[255])).unwrap(),
            g(false, 1, 0, 256)
        );
        assert_eq!(gap(None, Some(&[1, 1, 3])).unwrap(), g(true, 2, 0, 3));
        assert_eq!(gap(Some(&[0xFF, 0xFF]), None).unwrap(), g(false, 2, 0, 256));
        assert_eq!(gap(Some(&[0xFF, 7]), None).unwrap(), g(false, 1, 7, 256));
        assert_eq!(gap(Some(&[4]), Some(&[4, 1, 2])).unwrap(), g(true, 2, 0, 2));
        assert_eq!(gap(None, Some(&[1, 1])), Err(Error::UnknownDictionaryKey));
        assert_eq!(
            gap(Some(&[6]), Some(&[5])),
            Err(Error::UnknownDictionaryKey)
        );
    }

    /// The fewest suffix bytes, and their places, with the digits of a
    /// place written base 254 from `0x02`.
    #[test]
    fn places_and_tails() {
        let whole = gap(None, None).unwrap();
        assert_eq!(places(whole, 254).unwrap(), (0, 254));
        assert_eq!(places(whole, 255).unwrap(), (1, 255 * 254));
        let mut key = [0u8; 3];
        write_tail(&mut key, whole, 2, 254 * 254 + 254 + 3).unwrap();
        assert_eq!(key, [2, 3, 5]);
        let mut one = [0u8; 1];
        write_tail(&mut one, whole, 0, 0).unwrap();
        assert_eq!(one, [2]);
        assert_eq!(
            write_tail(&mut one, whole, 0, 254),
            Err(Error::CapacityOverflow)
        );
    }
}
