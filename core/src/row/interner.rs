//! The order-preserving interner of dictionary columns.
//!
//! Dictionary columns are not encoded by value (that would cost the value's
//! full encoding in every row) but by a short key per distinct value. The
//! keys must order like the values, for every batch, whatever its
//! dictionary: the interner keeps every value it has seen (as the bytes of
//! its ascending row encoding, which order like the values) next to its key,
//! in one array sorted by value. A batch's new values are sorted, merged in,
//! and given keys that fall between their neighbours' keys; existing keys
//! never change, so rows encoded earlier stay comparable with later ones.
//!
//! Keys are byte strings over `0x01..=0xFF`, compared lexicographically (a
//! prefix first), written in rows followed by a `0x00` terminator. Every key
//! ends with a byte of at least `0x02`, which guarantees that there is always
//! room below any key (`k = p ++ [c]`, `c >= 2`, has `p ++ [c - 1] ++ …`
//! below it), and above any key (any extension of it).
//!
//! New keys in a gap are spread evenly over the shortest key length that
//! holds them all, leaving room for values that arrive later.
//!
//! Lookups (value to key when encoding, key to value when decoding) go
//! through two hash indexes over the sorted entries, rebuilt whenever values
//! are added. Probe sequences are bounded ([`MAX_PROBE`]): an entry that does
//! not fit marks its index incomplete, and a lookup that finds nothing in an
//! incomplete index falls back to binary search, so crafted collisions cost
//! at most `MAX_PROBE` comparisons more than the search (no quadratic case).

use allocator_api2::alloc::Allocator;
use bytemuck::{Pod, Zeroable};

use super::Rows;
use crate::buffer::MutableBuffer;
use crate::error::{Error, Result};

/// One interned value: where its value bytes and key bytes are.
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
#[repr(C)]
struct Entry {
    value_start: usize,
    value_len: usize,
    key_start: usize,
    key_len: usize,
}

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

/// Longest probe sequence of a [`HashIndex`] insertion or lookup.
const MAX_PROBE: usize = 32;

/// A 64-bit hash of `bytes` (multiply-rotate over 8-byte words; not
/// collision resistant, see [`MAX_PROBE`]).
fn hash(bytes: &[u8]) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mut h = (bytes.len() as u64).wrapping_mul(K);
    let mut words = bytes.chunks_exact(8);
    for w in &mut words {
        let w = u64::from_le_bytes(w.try_into().unwrap_or_default());
        h = (h.rotate_left(5) ^ w).wrapping_mul(K);
    }
    let rest = words.remainder();
    if !rest.is_empty() {
        // Byte by byte (at most 7): keys are short, a `memcpy` call costs more.
        let last = rest
            .iter()
            .enumerate()
            .fold(0u64, |w, (i, &b)| w | (u64::from(b) << (8 * i)));
        h = (h.rotate_left(5) ^ last).wrapping_mul(K);
    }
    h ^ (h >> 32)
}

/// What a [`HashIndex`] lookup found.
enum Lookup {
    /// The entry at this position.
    Found(usize),
    /// Not interned.
    Absent,
    /// Not in the index, which is incomplete: search the entries.
    Unknown,
}

/// Open addressing over entry positions: a power-of-two table of `u32`
/// slots holding position + 1 (0: empty), linear probing.
struct HashIndex<A: Allocator> {
    slots: MutableBuffer<A>,
    /// Every entry is in the table.
    complete: bool,
}

impl<A: Allocator> HashIndex<A> {
    fn new_in(alloc: A) -> Self {
        HashIndex {
            slots: MutableBuffer::new_in(alloc),
            complete: true,
        }
    }

    /// Indexes entries `0..n`, entry `i` under `hash_of(i)`.
    fn rebuild(&mut self, n: usize, hash_of: impl Fn(usize) -> u64) -> Result<()> {
        if n >= u32::MAX as usize {
            return Err(Error::CapacityOverflow);
        }
        let cap = n
            .checked_mul(2)
            .and_then(|c| c.max(16).checked_next_power_of_two())
            .ok_or(Error::CapacityOverflow)?;
        self.slots.clear();
        self.slots.try_extend_zeros(cap * 4)?;
        let slots: &mut [u32] = self.slots.typed_mut()?;
        let mask = cap - 1;
        self.complete = true;
        for i in 0..n {
            let mut at = hash_of(i) as usize & mask;
            let mut placed = false;
            for _ in 0..MAX_PROBE {
                let slot = slots.get_mut(at).ok_or(Error::OutOfBounds)?;
                if *slot == 0 {
                    *slot = i as u32 + 1;
                    placed = true;
                    break;
                }
                at = (at + 1) & mask;
            }
            self.complete &= placed;
        }
        Ok(())
    }

    /// The entry whose hash is `h` and for which `is(position)` holds.
    fn find(&self, h: u64, is: impl Fn(usize) -> bool) -> Lookup {
        let slots: &[u32] = self.slots.typed().unwrap_or(&[]);
        if slots.is_empty() {
            return if self.complete {
                Lookup::Absent
            } else {
                Lookup::Unknown
            };
        }
        let mask = slots.len() - 1;
        let mut at = h as usize & mask;
        for _ in 0..MAX_PROBE {
            match slots.get(at) {
                Some(0) | None => break,
                Some(&p) => {
                    let i = p as usize - 1;
                    if is(i) {
                        return Lookup::Found(i);
                    }
                }
            }
            at = (at + 1) & mask;
        }
        if self.complete {
            Lookup::Absent
        } else {
            Lookup::Unknown
        }
    }
}

/// An order-preserving mapping from encoded dictionary values to short keys.
pub(crate) struct Interner<A: Allocator> {
    /// Encoded values, back to back.
    values: MutableBuffer<A>,
    /// Keys, back to back (append-only: old keys never move).
    keys: MutableBuffer<A>,
    /// [`Entry`]s sorted by value (and so by key).
    entries: MutableBuffer<A>,
    /// Entry positions by value.
    by_value: HashIndex<A>,
    /// Entry positions by key.
    by_key: HashIndex<A>,
    /// The table of the last dictionary encoded through this interner.
    pub(crate) cache: super::cache::TableCache<A>,
}

impl<A: Allocator + Clone> Interner<A> {
    /// An empty interner; allocates nothing yet.
    pub(crate) fn new_in(alloc: A) -> Self {
        Interner {
            values: MutableBuffer::new_in(alloc.clone()),
            keys: MutableBuffer::new_in(alloc.clone()),
            entries: MutableBuffer::new_in(alloc.clone()),
            by_value: HashIndex::new_in(alloc.clone()),
            by_key: HashIndex::new_in(alloc.clone()),
            cache: super::cache::TableCache::new_in(alloc),
        }
    }
}

fn entries_of<A: Allocator>(buf: &MutableBuffer<A>) -> &[Entry] {
    // 64-byte aligned, grown by whole entries.
    bytemuck::try_cast_slice(buf.as_slice()).unwrap_or(&[])
}

fn bytes_at<A: Allocator>(buf: &MutableBuffer<A>, start: usize, len: usize) -> &[u8] {
    buf.as_slice()
        .get(start..start.saturating_add(len))
        .unwrap_or(&[])
}

/// `true` when an encoded dictionary value stands for a null: empty (the
/// Null type) or starting with the null sentinel of the values' encoding.
pub(crate) fn is_null_value(encoded: &[u8], sentinel: u8) -> bool {
    encoded.first().is_none_or(|&b| b == sentinel)
}

impl<A: Allocator> Interner<A> {
    /// Number of interned values.
    pub(crate) fn len(&self) -> usize {
        entries_of(&self.entries).len()
    }

    fn value(&self, e: &Entry) -> &[u8] {
        bytes_at(&self.values, e.value_start, e.value_len)
    }

    fn key(&self, e: &Entry) -> &[u8] {
        bytes_at(&self.keys, e.key_start, e.key_len)
    }

    /// The key of an interned value.
    pub(crate) fn key_of(&self, value: &[u8]) -> Option<&[u8]> {
        let i = self.position_of(value)?;
        entries_of(&self.entries).get(i).map(|e| self.key(e))
    }

    /// The position among the entries of an interned value.
    fn position_of(&self, value: &[u8]) -> Option<usize> {
        let entries = entries_of(&self.entries);
        let at = |i: usize| entries.get(i).map_or(&[][..], |e| self.value(e));
        match self.by_value.find(hash(value), |i| at(i) == value) {
            Lookup::Found(i) => Some(i),
            Lookup::Absent => None,
            Lookup::Unknown => entries.binary_search_by(|e| self.value(e).cmp(value)).ok(),
        }
    }

    /// The encoded value of a key.
    #[cfg(test)]
    pub(crate) fn value_of(&self, key: &[u8]) -> Option<&[u8]> {
        self.position_of_key(key).and_then(|i| self.value_at(i))
    }

    /// The position among the entries of the value of a key.
    pub(crate) fn position_of_key(&self, key: &[u8]) -> Option<usize> {
        let entries = entries_of(&self.entries);
        let at = |i: usize| entries.get(i).map_or(&[][..], |e| self.key(e));
        match self.by_key.find(hash(key), |i| at(i) == key) {
            Lookup::Found(i) => Some(i),
            Lookup::Absent => None,
            Lookup::Unknown => entries.binary_search_by(|e| self.key(e).cmp(key)).ok(),
        }
    }

    /// Fills `table[b]` with the entry position + 1 of the one-byte key
    /// `[b]` (0: no such key), for lookups without hashing.
    pub(crate) fn one_byte_keys(&self, table: &mut [u32; 256]) -> Result<()> {
        for (i, e) in entries_of(&self.entries).iter().enumerate() {
            if let [b] = self.key(e) {
                if let Some(slot) = table.get_mut(usize::from(*b)) {
                    *slot = u32::try_from(i + 1).map_err(|_| Error::CapacityOverflow)?;
                }
            }
        }
        Ok(())
    }

    /// Fills the two-byte key tables: `child[b]` is the table number plus
    /// one of the keys `[b, c]`, and `tables[256 * number + c]` their entry
    /// position plus one (0: no such key). At most `max_tables` tables (the
    /// keys past them are left to hashing).
    pub(crate) fn two_byte_keys(
        &self,
        child: &mut [u32; 256],
        tables: &mut MutableBuffer<A>,
        max_tables: usize,
    ) -> Result<()> {
        let mut count = 0usize;
        for (i, e) in entries_of(&self.entries).iter().enumerate() {
            let [b, c] = *self.key(e) else { continue };
            let Some(slot) = child.get_mut(usize::from(b)) else {
                continue;
            };
            if *slot == 0 {
                if count == max_tables {
                    continue;
                }
                count += 1;
                tables.try_extend_zeros(256 * 4)?;
                *slot = u32::try_from(count).map_err(|_| Error::CapacityOverflow)?;
            }
            let at = (*slot as usize - 1) * 256 + usize::from(c);
            if let Some(t) = tables.typed_mut::<u32>()?.get_mut(at) {
                *t = u32::try_from(i + 1).map_err(|_| Error::CapacityOverflow)?;
            }
        }
        Ok(())
    }

    /// The encoded value of the entry at `position`.
    pub(crate) fn value_at(&self, position: usize) -> Option<&[u8]> {
        entries_of(&self.entries)
            .get(position)
            .map(|e| self.value(e))
    }

    /// Rebuilds both hash indexes over the current entries.
    fn reindex(&mut self) -> Result<()> {
        let entries = entries_of(&self.entries);
        let (values, keys) = (&self.values, &self.keys);
        let of = |buf: &MutableBuffer<A>, start: usize, len: usize| hash(bytes_at(buf, start, len));
        self.by_value.rebuild(entries.len(), |i| {
            entries
                .get(i)
                .map_or(0, |e| of(values, e.value_start, e.value_len))
        })?;
        self.by_key.rebuild(entries.len(), |i| {
            entries
                .get(i)
                .map_or(0, |e| of(keys, e.key_start, e.key_len))
        })
    }

    /// Interns every non-null value of `values` (rows of the values' ascending
    /// encoding, whose nulls start with `sentinel`) that is not interned yet.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`], [`Error::CapacityOverflow`].
    #[cfg(test)]
    pub(crate) fn intern(&mut self, values: &Rows<A>, sentinel: u8, alloc: &A) -> Result<()>
    where
        A: Clone,
    {
        self.intern_keys(values, sentinel, alloc, |_| Ok(()))
    }

    /// Interns `values` as [`Self::intern`] does, then calls `each` with the
    /// key of every value in order (`None` for a null value).
    ///
    /// One hash lookup per value when every value is already interned (the
    /// positions found are reused); a second one after new values were merged.
    ///
    /// # Errors
    /// As [`Self::intern`], and whatever `each` returns.
    pub(crate) fn intern_keys(
        &mut self,
        values: &Rows<A>,
        sentinel: u8,
        alloc: &A,
        mut each: impl FnMut(Option<&[u8]>) -> Result<()>,
    ) -> Result<()>
    where
        A: Clone,
    {
        let row = |i: usize| values.row(i).map_or(&[][..], |r| r.data());
        // Indices of the values not interned yet, and each value's entry
        // position + 1 (0: null value or not interned yet).
        let mut fresh = MutableBuffer::new_in(alloc.clone());
        let mut found = MutableBuffer::new_in(alloc.clone());
        found.try_reserve_exact(values.len().saturating_mul(4))?;
        for i in 0..values.len() {
            let v = row(i);
            let mut pos = 0u32;
            if !is_null_value(v, sentinel) {
                match self.position_of(v) {
                    Some(p) => pos = u32::try_from(p + 1).map_err(|_| Error::CapacityOverflow)?,
                    None => fresh.try_extend_from_slice(&i.to_ne_bytes())?,
                }
            }
            found.try_push(pos)?;
        }
        if fresh.is_empty() {
            let entries = entries_of(&self.entries);
            for &p in found.typed::<u32>()? {
                match p.checked_sub(1) {
                    None => each(None)?,
                    Some(p) => {
                        let e = entries.get(p as usize).ok_or(Error::OutOfBounds)?;
                        each(Some(self.key(e)))?;
                    }
                }
            }
            return Ok(());
        }
        self.merge(values, fresh, alloc)?;
        for i in 0..values.len() {
            let v = row(i);
            if is_null_value(v, sentinel) {
                each(None)?;
            } else {
                each(Some(self.key_of(v).ok_or(Error::UnknownDictionaryKey)?))?;
            }
        }
        Ok(())
    }

    /// Merges the values of `values` at the indices `fresh` (native-endian
    /// `usize`s, none interned yet) into the entries, giving them keys.
    fn merge(&mut self, values: &Rows<A>, mut fresh: MutableBuffer<A>, alloc: &A) -> Result<()>
    where
        A: Clone,
    {
        let row = |i: usize| values.row(i).map_or(&[][..], |r| r.data());
        let fresh: &mut [usize] =
            bytemuck::try_cast_slice_mut(fresh.as_slice_mut()).map_err(|_| Error::Misaligned)?;
        fresh.sort_unstable_by(|&a, &b| row(a).cmp(row(b)));

        let old_len = self.len();
        let mut merged = MutableBuffer::new_in(alloc.clone());
        let bytes = old_len
            .checked_add(fresh.len())
            .and_then(|n| n.checked_mul(core::mem::size_of::<Entry>()))
            .ok_or(Error::CapacityOverflow)?;
        merged.try_reserve_exact(bytes)?;

        let mut j = 0;
        let mut prev: Option<Entry> = None;
        for i in 0..=old_len {
            let next = entries_of(&self.entries).get(i).copied();
            // The distinct fresh values below `next`.
            let run_start = j;
            while let Some(&f) = fresh.get(j) {
                if next.is_some_and(|e| row(f) >= self.value(&e)) {
                    break;
                }
                j += 1;
            }
            if let Some(run) = fresh.get(run_start..j) {
                self.insert_run(run, &row, prev, next, &mut merged)?;
                if let Some(last) = entries_of(&merged).last() {
                    prev = Some(*last);
                }
            }
            if let Some(e) = next {
                merged.try_extend_from_slice(bytemuck::bytes_of(&e))?;
                prev = Some(e);
            }
        }
        self.entries = merged;
        self.reindex()
    }

    /// Gives keys between `lo` and `hi` to the sorted values `run` (skipping
    /// repeats) and appends their entries to `out`.
    fn insert_run<'v>(
        &mut self,
        run: &[usize],
        row: &impl Fn(usize) -> &'v [u8],
        lo: Option<Entry>,
        hi: Option<Entry>,
        out: &mut MutableBuffer<A>,
    ) -> Result<()> {
        if run.is_empty() {
            return Ok(());
        }
        let distinct = 1 + run.windows(2).filter(|w| row(w[0]) != row(w[1])).count();
        let g = gap(
            lo.as_ref().map(|e| self.key(e)),
            hi.as_ref().map(|e| self.key(e)),
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
            (false, Some(e), _) => e.key_start,
            (true, _, Some(e)) => e.key_start,
            _ => 0,
        };
        let mut n = 0u128;
        let mut last: Option<&[u8]> = None;
        for &f in run {
            let v = row(f);
            if last == Some(v) {
                continue;
            }
            last = Some(v);
            n += 1;
            // Spread evenly: the n-th of k keys at index n * cap / (k + 1).
            let idx = n
                .checked_mul(cap)
                .map(|x| x / (k + 1))
                .ok_or(Error::CapacityOverflow)?;
            let key_start = self.keys.len();
            let key_len = g.prefix_len + 1 + m as usize;
            self.keys.try_extend_zeros(key_len)?;
            let keys = self.keys.as_slice_mut();
            let prefix = prefix_start..prefix_start + g.prefix_len;
            if prefix.end > key_start {
                return Err(Error::OutOfBounds);
            }
            keys.copy_within(prefix, key_start);
            let key = keys
                .get_mut(key_start + g.prefix_len..)
                .ok_or(Error::OutOfBounds)?;
            write_key_tail(key, g, m, idx)?;
            let value_start = self.values.len();
            self.values.try_extend_from_slice(v)?;
            let e = Entry {
                value_start,
                value_len: v.len(),
                key_start,
                key_len,
            };
            out.try_extend_from_slice(bytemuck::bytes_of(&e))?;
        }
        Ok(())
    }
}

/// Writes the byte after the prefix and the `m` suffix bytes of key number
/// `idx` of gap `g` into `out` (`1 + m` bytes).
fn write_key_tail(out: &mut [u8], g: Gap, m: u32, idx: u128) -> Result<()> {
    let (first, rest) = out.split_first_mut().ok_or(Error::OutOfBounds)?;
    let low = u128::from(g.low);
    let b = if m == 0 {
        (low + 1).max(2) + idx
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
    use allocator_api2::alloc::Global;
    use std::vec::Vec;

    fn rows_of(values: &[&[u8]]) -> Rows<Global> {
        let mut r = Rows::new_in(Global);
        for v in values {
            r.try_push(super::super::Row::new(v)).unwrap();
        }
        r
    }

    fn check_sorted(i: &Interner<Global>) {
        let e = entries_of(&i.entries);
        for w in e.windows(2) {
            assert!(i.value(&w[0]) < i.value(&w[1]));
            assert!(i.key(&w[0]) < i.key(&w[1]));
        }
        for x in e {
            let k = i.key(x);
            assert!(k.iter().all(|&b| b != 0));
            assert!(*k.last().unwrap() >= 2);
            assert_eq!(i.value_of(k), Some(i.value(x)));
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

    /// Colliding hashes fill at most `MAX_PROBE` slots; the rest make the
    /// index incomplete and their lookups `Unknown` (binary search follows).
    #[test]
    fn hash_index_bounds_probes() {
        let mut h = HashIndex::new_in(Global);
        assert!(matches!(h.find(1, |_| true), Lookup::Absent));
        h.rebuild(100, |_| 7).unwrap();
        assert!(!h.complete);
        assert!(matches!(h.find(7, |i| i == 3), Lookup::Found(3)));
        assert!(matches!(h.find(7, |i| i == 50), Lookup::Unknown));
        h.rebuild(100, |i| i as u64 * 0x9E37_79B9).unwrap();
        assert!(h.complete);
        assert!(matches!(
            h.find(50 * 0x9E37_79B9, |i| i == 50),
            Lookup::Found(50)
        ));
        assert!(matches!(h.find(12345, |_| false), Lookup::Absent));
    }

    #[test]
    fn grows_consistently() {
        let mut i = Interner::new_in(Global);
        i.intern(
            &rows_of(&[b"\x01m", b"\x01c", b"\x00", b"\x01x", b"\x01c"]),
            0,
            &Global,
        )
        .unwrap();
        assert_eq!(i.len(), 3);
        check_sorted(&i);
        let km: Vec<u8> = i.key_of(b"\x01m").unwrap().to_vec();
        // Many values squeezed between two neighbours, on both sides, at the ends.
        let many: Vec<Vec<u8>> = (0..600u32)
            .map(|n| {
                let mut v = std::vec![1u8, b'd'];
                v.extend_from_slice(&n.to_be_bytes());
                v
            })
            .collect();
        let refs: Vec<&[u8]> = many.iter().map(|v| &v[..]).collect();
        i.intern(&rows_of(&refs), 0, &Global).unwrap();
        i.intern(&rows_of(&[b"\x01a", b"\x01\xFF\xFF", b"\x01n"]), 0, &Global)
            .unwrap();
        assert_eq!(i.len(), 606);
        check_sorted(&i);
        assert_eq!(i.key_of(b"\x01m").unwrap(), &km[..]);
        // Repeated squeezing into the same gap keeps working.
        for round in 0..40u8 {
            let v = [1u8, b'm', round];
            i.intern(&rows_of(&[&v]), 0, &Global).unwrap();
            let w = [1u8, b'c', 0xFF - round];
            i.intern(&rows_of(&[&w]), 0, &Global).unwrap();
        }
        check_sorted(&i);
        assert_eq!(i.len(), 686);
    }
}
