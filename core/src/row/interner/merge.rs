//! Merging new values into the interner: sorting them, finding the gaps
//! between neighbouring keys and spreading new keys over them.

use allocator_api2::alloc::Allocator;

use super::gather::{RawKind, RawSource};
use super::{small, Entry, Interner};
use crate::buffer::TryVec;
use crate::error::{Error, Result};

/// Number of values a suffix byte can take (`0x02..=0xFF`).
const DIGITS: u128 = 254;

/// Where new keys may go: every `prefix ++ [b] ++ suffix` with
/// `low < b < high` (and suffix bytes in `0x02..=0xFF`) lies strictly between
/// the two neighbours. The prefix is the first `prefix_len` bytes of the
/// lower neighbour's key (`from_high == false`) or of the upper one's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Gap {
    from_high: bool,
    prefix_len: usize,
    low: u16,
    high: u16,
}

/// The first position of `key` from `from` where a byte can be raised
/// (below `0xFF`): extensions there are above `key`.
fn above(key: &[u8], from: usize) -> Gap {
    for (i, &b) in key.iter().enumerate().skip(from) {
        if b < 0xFF {
            return Gap {
                from_high: false,
                prefix_len: i,
                low: u16::from(b),
                high: 256,
            };
        }
    }
    // Every byte is 0xFF: anything longer starting with `key` is above it.
    Gap {
        from_high: false,
        prefix_len: key.len(),
        low: 0,
        high: 256,
    }
}

/// The first position of `key` from `from` whose byte can be lowered (above
/// `0x01`): strings with a smaller byte there are below `key`.
fn below(key: &[u8], from: usize) -> Result<Gap> {
    for (i, &b) in key.iter().enumerate().skip(from) {
        if b > 1 {
            return Ok(Gap {
                from_high: true,
                prefix_len: i,
                low: 0,
                high: u16::from(b),
            });
        }
    }
    // Keys end in a byte >= 2, so this cannot happen for keys we made.
    Err(Error::UnknownDictionaryKey)
}

/// A gap strictly between `lo` and `hi` (`None`: unbounded).
fn gap(lo: Option<&[u8]>, hi: Option<&[u8]>) -> Result<Gap> {
    match (lo, hi) {
        (None, None) => Ok(Gap {
            from_high: false,
            prefix_len: 0,
            low: 0,
            high: 256,
        }),
        (Some(l), None) => Ok(above(l, 0)),
        (None, Some(h)) => below(h, 0),
        (Some(l), Some(h)) => {
            let common = l.iter().zip(h).take_while(|(a, b)| a == b).count();
            match (l.get(common), h.get(common)) {
                // `l` is a proper prefix of `h`: go below `h` after `l`.
                (None, Some(_)) => below(h, common),
                (Some(&a), Some(&b)) if a < b => {
                    if b - a >= 2 {
                        Ok(Gap {
                            from_high: false,
                            prefix_len: common,
                            low: u16::from(a),
                            high: u16::from(b),
                        })
                    } else {
                        // Adjacent bytes: extend `l` past the difference.
                        Ok(above(l, common + 1))
                    }
                }
                _ => Err(Error::UnknownDictionaryKey),
            }
        }
    }
}

/// How many keys fit in `g` with `m` suffix bytes.
fn capacity(g: Gap, m: u32) -> Option<u128> {
    let (low, high) = (u128::from(g.low), u128::from(g.high));
    if m == 0 {
        // The last byte of a key is at least 2.
        let first = (low + 1).max(2);
        Some(high.saturating_sub(first))
    } else {
        (high - low - 1).checked_mul(DIGITS.checked_pow(m)?)
    }
}

impl<A: Allocator> Interner<A> {
    /// Merges the values `fresh` (`prefix << 64 | index` of values not
    /// interned yet) into the entries, giving them keys, and writes the
    /// `[start, len]` of each new value's key in `self.keys` to `spans`
    /// (by index in the batch).
    pub(super) fn merge<'v, R: Fn(usize) -> &'v [u8]>(
        &mut self,
        place: &Placement<'_, '_, R>,
        mut fresh: TryVec<u128, A>,
        spans: &mut [[u32; 2]],
        alloc: &A,
    ) -> Result<()>
    where
        A: Clone,
    {
        let row = place.row;
        // By prefix (then index); runs of equal prefixes by their values.
        super::sort::sort_pairs(&mut fresh, alloc)?;
        let fresh = fresh.as_mut_slice();
        let full = |a: &u128, b: &u128| row(*a as u64 as usize).cmp(row(*b as u64 as usize));
        let mut i = 0;
        while i < fresh.len() {
            let run = fresh.get(i..).ok_or(Error::OutOfBounds)?;
            let p = run.first().map_or(0, |f| f >> 64);
            let len = run.iter().take_while(|f| *f >> 64 == p).count();
            if len > 1 {
                if let Some(r) = fresh.get_mut(i..i + len) {
                    r.sort_unstable_by(full);
                }
            }
            i += len.max(1);
        }

        let old_len = self.len();
        let mut merged = TryVec::new_in(alloc.clone());
        let total = old_len
            .checked_add(fresh.len())
            .ok_or(Error::CapacityOverflow)?;
        merged.try_reserve_exact(total)?;
        merged.try_extend_from_fn(total, |_| bytemuck::Zeroable::zeroed())?;
        let out = merged.as_mut_slice();
        let mut w = 0usize;
        if place.bulk.is_none() {
            let value_bytes: usize = fresh.iter().map(|&f| row(f as u64 as usize).len()).sum();
            self.values.try_reserve(value_bytes)?;
        }

        let mut j = 0;
        let mut prev: Option<Entry> = None;
        for i in 0..=old_len {
            let next = self.entries.get(i).copied();
            // The fresh values below `next`.
            let run_start = j;
            let next_value = next.as_ref().map(|e| self.value(e)).transpose()?;
            while let Some(&f) = fresh.get(j) {
                if next_value.is_some_and(|v| row(f as u64 as usize) >= v) {
                    break;
                }
                j += 1;
            }
            if let Some(run) = fresh.get(run_start..j) {
                self.insert_run(run, place, (prev, next), (&mut *out, &mut w), spans)?;
                if let Some(last) = w.checked_sub(1).and_then(|l| out.get(l)) {
                    prev = Some(*last);
                }
            }
            if let Some(e) = next {
                w += 1;
                *out.get_mut(w - 1).ok_or(Error::OutOfBounds)? = e;
                prev = Some(e);
            }
        }
        merged.truncate(w);
        self.entries = merged;
        self.reindex()
    }
}

/// Where the new values of a batch come from and where their bytes go.
pub(super) struct Placement<'p, 'v, R> {
    /// Encoded value `i` of the batch.
    pub(super) row: &'p R,
    /// The batch's row offsets (for values appended whole).
    pub(super) offsets: &'p [usize],
    /// Whether raw values are kept, and their source.
    pub(super) raw: (bool, &'p RawSource<'v>),
    /// `Some((value_base, raw))` when the batch's encodings were appended
    /// whole at `value_base` (and its raw bytes at `raw = (base, origin)`:
    /// raw byte `origin` of the source is at `base`).
    pub(super) bulk: Option<(usize, Option<(usize, usize)>)>,
}

/// Key number `n` (from 1) of `k` spread evenly over `cap` places:
/// `n * cap / (k + 1)`.
#[cfg(test)]
fn spread(n: u128, cap: u128, k: u128) -> Result<u128> {
    n.checked_mul(cap)
        .map(|x| x / (k + 1))
        .ok_or(Error::CapacityOverflow)
}

/// The steps of `spread` (the test model) from one key to the next: `n * cap / (k + 1)`
/// as a quotient `q` and remainder `r`, for `n = 1, 2, …, k`.
#[derive(Clone, Copy)]
struct Spread {
    div: u128,
    quot: u128,
    rem: u128,
}

impl Spread {
    fn new(cap: u128, k: u128) -> Result<Self> {
        let div = k.checked_add(1).ok_or(Error::CapacityOverflow)?;
        Ok(Spread {
            div,
            quot: cap / div,
            rem: cap % div,
        })
    }

    /// `(q, r)` of `n * cap / (k + 1)` from those of `(n - 1) * cap / (k + 1)`
    /// (both `r < k + 1`; `q <= cap`, far from overflowing).
    #[inline(always)]
    fn next(self, q: u128, r: u128) -> (u128, u128) {
        let (q, r) = (q.wrapping_add(self.quot), r.wrapping_add(self.rem));
        if r >= self.div {
            (q.wrapping_add(1), r.wrapping_sub(self.div))
        } else {
            (q, r)
        }
    }
}

impl<A: Allocator> Interner<A> {
    /// Gives keys between the entries `bounds` (`None`: unbounded) to the
    /// sorted values `run` (`prefix << 64 | index`; repeats share a key),
    /// writes their entries at `out.1` on in `out.0` and their keys'
    /// `[start, len]` to `spans` (by index).
    fn insert_run<'v, R: Fn(usize) -> &'v [u8]>(
        &mut self,
        run: &[u128],
        place: &Placement<'_, '_, R>,
        bounds: (Option<Entry>, Option<Entry>),
        out: (&mut [Entry], &mut usize),
        spans: &mut [[u32; 2]],
    ) -> Result<()> {
        let (lo, hi) = bounds;
        let (out, w) = out;
        let row = place.row;
        if run.is_empty() {
            return Ok(());
        }
        let same = |a: u128, b: u128| {
            a >> 64 == b >> 64 && row(a as u64 as usize) == row(b as u64 as usize)
        };
        let distinct = 1 + run.windows(2).filter(|w| !same(w[0], w[1])).count();
        let g = gap(
            lo.as_ref().map(|e| self.key(e)).transpose()?,
            hi.as_ref().map(|e| self.key(e)).transpose()?,
        )?;
        let k = distinct as u128;
        let mut m = 0u32;
        let cap = loop {
            match capacity(g, m) {
                Some(c) if c >= k => break c,
                Some(_) if m < 16 => m += 1,
                _ => return Err(Error::CapacityOverflow),
            }
        };
        let prefix_start = match (g.from_high, lo, hi) {
            (false, Some(e), _) => e.key_start as usize,
            (true, _, Some(e)) => e.key_start as usize,
            _ => 0,
        };
        let key_len = g.prefix_len + 1 + m as usize;
        // Every key of the run at once: `distinct` keys of `key_len` bytes.
        let keys_base = self.keys.len();
        self.keys.try_extend_zeros(
            distinct
                .checked_mul(key_len)
                .ok_or(Error::CapacityOverflow)?,
        )?;
        let prefix = prefix_start..prefix_start + g.prefix_len;
        if prefix.end > keys_base {
            return Err(Error::OutOfBounds);
        }
        let (old_keys, new_keys) = self.keys.as_slice_mut().split_at_mut(keys_base);
        let prefix = old_keys.get(prefix).ok_or(Error::OutOfBounds)?;
        let mut new_keys = new_keys.chunks_exact_mut(key_len.max(1));
        let mut n = 0u128;
        // `n * cap / (k + 1)` kept as a quotient and a remainder, stepped
        // by `cap / (k + 1)` and `cap % (k + 1)` (no division per key).
        let step = Spread::new(cap, k)?;
        let scale = (DIGITS as u64).checked_pow(m);
        let (mut q, mut r) = (0u128, 0u128);
        let mut last: Option<u128> = None;
        let mut key_span = [0u32; 2];
        for &f in run {
            let i = f as u64 as usize;
            if last.is_some_and(|l| same(l, f)) {
                *spans.get_mut(i).ok_or(Error::OutOfBounds)? = key_span;
                continue;
            }
            last = Some(f);
            let v = row(i);
            // Spread evenly: the n-th of k keys at index n * cap / (k + 1).
            n += 1;
            (q, r) = step.next(q, r);
            let idx = q;
            let key_start = keys_base + (n as usize - 1) * key_len;
            let key = new_keys.next().ok_or(Error::OutOfBounds)?;
            let (head, tail) = key.split_at_mut(g.prefix_len);
            if !prefix.is_empty() {
                head.copy_from_slice(prefix);
            }
            write_key_tail(tail, g, (m, scale), idx)?;
            let value_start = match place.bulk {
                Some((base, _)) => base + place.offsets.get(i).ok_or(Error::OutOfBounds)?,
                None => {
                    let start = self.values.len();
                    self.values.try_extend_from_slice(v)?;
                    start
                }
            };
            let (raw_start, raw_len) = match (place.raw, place.bulk) {
                ((false, _), _) => (0, 0),
                ((true, src), Some((_, Some((base, origin))))) => {
                    let (s, len) = src.span(i).ok_or(Error::OutOfBounds)?;
                    (base + s.checked_sub(origin).ok_or(Error::OutOfBounds)?, len)
                }
                ((true, src), _) => {
                    let r = src.value(i).ok_or(Error::OutOfBounds)?;
                    (self.raw.push(r)?, r.len())
                }
            };
            // Spans are 32-bit: past 4 GiB of raw bytes, raw values are off.
            let (raw_start, raw_len) = match (u32::try_from(raw_start), u32::try_from(raw_len)) {
                (Ok(a), Ok(l)) => (a, l),
                _ => {
                    self.raw.kind = RawKind::Off;
                    (0, 0)
                }
            };
            *out.get_mut(*w).ok_or(Error::OutOfBounds)? = Entry {
                value_start: small(value_start)?,
                value_len: small(v.len())?,
                key_start: small(key_start)?,
                key_len: small(key_len)?,
                raw_start,
                raw_len,
            };
            *w += 1;
            key_span = [small(key_start)?, small(key_len)?];
            *spans.get_mut(i).ok_or(Error::OutOfBounds)? = key_span;
        }
        Ok(())
    }
}

/// Writes the byte after the prefix and the `m` suffix bytes of key number
/// `idx` of gap `g` into `out` (`1 + m` bytes); `scale`: `254^m` when it
/// fits 64 bits.
#[inline(always)]
fn write_key_tail(out: &mut [u8], g: Gap, (m, scale): (u32, Option<u64>), idx: u128) -> Result<()> {
    let (first, rest) = out.split_first_mut().ok_or(Error::OutOfBounds)?;
    let low = u128::from(g.low);
    let b = if m == 0 {
        (low + 1).max(2) + idx
    } else if let (Ok(mut r), Some(scale)) = (u64::try_from(idx), scale) {
        // The usual case (keys of up to 8 suffix bytes): 64-bit digits.
        let q = r / scale;
        for d in rest.iter_mut().rev() {
            *d = (r % DIGITS as u64 + 2) as u8;
            r /= DIGITS as u64;
        }
        low + 1 + u128::from(q)
    } else {
        let scale = DIGITS.checked_pow(m).ok_or(Error::CapacityOverflow)?;
        let mut rem = idx % scale;
        for d in rest.iter_mut().rev() {
            *d = (rem % DIGITS + 2) as u8;
            rem /= DIGITS;
        }
        low + 1 + idx / scale
    };
    *first = u8::try_from(b).map_err(|_| Error::CapacityOverflow)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stepped spread gives `n * cap / (k + 1)` for every key.
    #[test]
    fn spread_steps_match_the_division() {
        for (cap, k) in [
            (254u128, 1u128),
            (254, 253),
            (64_770, 4096),
            (64_770, 64_769),
            (7, 7),
            (254u128.pow(5) * 255, 1_000_003),
            (u128::from(u64::MAX) * 3, 999),
        ] {
            let step = Spread::new(cap, k).unwrap();
            let (mut q, mut r) = (0, 0);
            for n in 1..=k.min(5000) {
                (q, r) = step.next(q, r);
                assert_eq!(q, spread(n, cap, k).unwrap(), "{cap} {k} {n}");
            }
        }
    }

    #[test]
    fn gaps() {
        assert_eq!(
            gap(Some(&[5]), Some(&[6])).unwrap(),
            Gap {
                from_high: false,
                prefix_len: 1,
                low: 0,
                high: 256
            }
        );
        assert_eq!(
            gap(None, Some(&[1, 1, 3])).unwrap(),
            Gap {
                from_high: true,
                prefix_len: 2,
                low: 0,
                high: 3
            }
        );
        assert_eq!(
            gap(Some(&[0xFF, 0xFF]), None).unwrap(),
            Gap {
                from_high: false,
                prefix_len: 2,
                low: 0,
                high: 256
            }
        );
        assert_eq!(
            gap(Some(&[4]), Some(&[4, 1, 2])).unwrap(),
            Gap {
                from_high: true,
                prefix_len: 2,
                low: 0,
                high: 2
            }
        );
        assert_eq!(gap(None, Some(&[1, 1])), Err(Error::UnknownDictionaryKey));
    }
}
