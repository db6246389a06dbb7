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
//! Lookups, value to key when encoding: a hash index over the entries'
//! values, rebuilt lazily (before the next batch's lookups, not after each
//! merge). Key to value when decoding: one- and two-byte keys through
//! tables ([`keys`]), longer keys through a hash index. Probe sequences are
//! bounded ([`hash_index::MAX_PROBE`]): an entry that does not fit marks its
//! index incomplete, and a lookup that finds nothing in an incomplete index
//! falls back to binary search, so crafted collisions cost at most
//! `MAX_PROBE` comparisons more than the search (no quadratic case).
//!
//! Each entry also records where the value's raw bytes are (see
//! [`super::gather`]), so decoding copies them instead of decoding the
//! value's encoding again.

use allocator_api2::alloc::Allocator;
use bytemuck::{Pod, Zeroable};

mod hash_index;
mod keys;

use hash_index::{hash, HashIndex, Lookup};
use keys::{KeyIndex, KeyTables, Short};

use super::gather::{RawKind, RawSource, RawStore};
use super::{Rows, SortOptions};
use crate::buffer::MutableBuffer;
use crate::error::{Error, Result};

/// One interned value: where its value bytes and key bytes are.
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
#[repr(C)]
struct Entry {
    value_start: u32,
    value_len: u32,
    key_start: u32,
    key_len: u32,
    /// Where the value's raw bytes are in the [`RawStore`] (when kept).
    raw_start: u32,
    raw_len: u32,
}

/// A position or length in the interner's buffers (each below 4 GiB).
fn small(x: usize) -> Result<u32> {
    u32::try_from(x).map_err(|_| Error::CapacityOverflow)
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
    /// `by_value` misses the last values added: rebuilt before the next
    /// batch looks values up (a converter used once never builds it).
    by_value_stale: bool,
    /// Entry positions by key, for keys longer than two bytes.
    by_key: HashIndex<A>,
    /// Entry positions of the one- and two-byte keys.
    short: KeyIndex<A>,
    /// The values' raw bytes, for decoding without their encodings.
    raw: RawStore<A>,
    /// `[start, len]` of each entry's raw bytes (`[u32; 2]`), by position.
    spans: MutableBuffer<A>,
    /// The longest raw value, and the raw values' total length.
    raw_lens: (usize, usize),
    /// The same of the one-byte keys by byte (256 of them; `[0, u32::MAX]`:
    /// no such key), then of the two-byte keys by rank (see [`keys`]).
    short_spans: MutableBuffer<A>,
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
            by_value_stale: false,
            by_key: HashIndex::new_in(alloc.clone()),
            short: KeyIndex::new_in(alloc.clone()),
            raw: RawStore::new_in(alloc.clone()),
            spans: MutableBuffer::new_in(alloc.clone()),
            raw_lens: (0, 0),
            short_spans: MutableBuffer::new_in(alloc.clone()),
            cache: super::cache::TableCache::new_in(alloc),
        }
    }
}

fn entries_of<A: Allocator>(buf: &MutableBuffer<A>) -> &[Entry] {
    // 64-byte aligned, grown by whole entries.
    bytemuck::try_cast_slice(buf.as_slice()).unwrap_or(&[])
}

/// A buffer of `[u32; 2]` (empty when unallocated).
fn pairs<A: Allocator>(b: &MutableBuffer<A>) -> &[[u32; 2]] {
    if b.is_empty() {
        &[]
    } else {
        bytemuck::try_cast_slice(b.as_slice()).unwrap_or(&[])
    }
}

fn bytes_at<A: Allocator>(buf: &MutableBuffer<A>, start: u32, len: u32) -> &[u8] {
    let start = start as usize;
    buf.as_slice()
        .get(start..start.saturating_add(len as usize))
        .unwrap_or(&[])
}

/// `true` when an encoded dictionary value stands for a null: empty (the
/// Null type) or starting with the null sentinel of the values' encoding.
pub(crate) fn is_null_value(encoded: &[u8], sentinel: u8) -> bool {
    encoded.first().is_none_or(|&b| b == sentinel)
}

/// The first 8 bytes of `v` as a big-endian number (zero-padded): a
/// smaller prefix means a smaller value, an equal one decides nothing.
#[inline]
fn prefix(v: &[u8]) -> u64 {
    match v.first_chunk::<8>() {
        Some(c) => u64::from_be_bytes(*c),
        None => v
            .iter()
            .enumerate()
            .fold(0, |p, (i, &b)| p | (u64::from(b) << (56 - 8 * i))),
    }
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
    #[cfg(test)]
    pub(crate) fn key_of(&self, value: &[u8]) -> Option<&[u8]> {
        let i = self.position_of(value)?;
        entries_of(&self.entries).get(i).map(|e| self.key(e))
    }

    /// The position among the entries of an interned value.
    fn position_of(&self, value: &[u8]) -> Option<usize> {
        let entries = entries_of(&self.entries);
        let at = |i: usize| entries.get(i).map_or(&[][..], |e| self.value(e));
        let found = if self.by_value_stale {
            Lookup::Unknown
        } else {
            self.by_value.find(hash(value), |i| at(i) == value)
        };
        match found {
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
        match self.short.tables().find(key) {
            Short::Found(i) => return Some(i),
            Short::Unknown => return None,
            Short::Long => {}
        }
        let entries = entries_of(&self.entries);
        let at = |i: usize| entries.get(i).map_or(&[][..], |e| self.key(e));
        match self.by_key.find(hash(key), |i| at(i) == key) {
            Lookup::Found(i) => Some(i),
            Lookup::Absent => None,
            Lookup::Unknown => entries.binary_search_by(|e| self.key(e).cmp(key)).ok(),
        }
    }

    /// The encoded value of the entry at `position`.
    pub(crate) fn value_at(&self, position: usize) -> Option<&[u8]> {
        entries_of(&self.entries)
            .get(position)
            .map(|e| self.value(e))
    }

    /// The kind of the raw values kept, and their bytes ([`RawKind::Off`]
    /// or [`RawKind::Unknown`]: none).
    pub(crate) fn raw(&self) -> (RawKind, &[u8]) {
        (self.raw.kind, self.raw.bytes())
    }

    /// The longest raw value and the mean length (rounded up) of the
    /// interned values, in bytes.
    pub(crate) fn raw_lens(&self) -> (usize, usize) {
        let (max, sum) = self.raw_lens;
        (max, sum.div_ceil(self.len().max(1)))
    }

    /// A reader of the keys of rows encoded with `opts`.
    pub(crate) fn reader(&self, opts: SortOptions, alloc: &A) -> Reader<'_, A>
    where
        A: Clone,
    {
        let short = pairs(&self.short_spans);
        Reader {
            interner: self,
            spans: pairs(&self.spans),
            one_spans: short.get(..256).unwrap_or(&[]),
            two_spans: short.get(256..).unwrap_or(&[]),
            tables: self.short.tables(),
            flip: if opts.descending { 0xFF } else { 0 },
            null: opts.null_sentinel(),
            scratch: MutableBuffer::new_in(alloc.clone()),
        }
    }

    /// Rebuilds the key indexes over the current entries; the value index
    /// is rebuilt when next needed.
    fn reindex(&mut self) -> Result<()> {
        let entries = entries_of(&self.entries);
        let keys = &self.keys;
        self.by_value_stale = true;
        self.spans.clear();
        if self.raw.kind != RawKind::Off {
            self.spans.try_extend_zeros(entries.len() * 8)?;
            let spans: &mut [[u32; 2]] = if entries.is_empty() {
                &mut []
            } else {
                bytemuck::try_cast_slice_mut(self.spans.as_slice_mut())
                    .map_err(|_| Error::Misaligned)?
            };
            let (mut max, mut sum) = (0usize, 0usize);
            for (s, e) in spans.iter_mut().zip(entries) {
                if e.raw_len == u32::MAX {
                    self.raw.kind = RawKind::Off;
                }
                *s = [e.raw_start, e.raw_len];
                max = max.max(e.raw_len as usize);
                sum = sum.saturating_add(e.raw_len as usize);
            }
            self.raw_lens = (max, sum);
        }
        self.short.rebuild(entries.len(), |i| {
            entries
                .get(i)
                .map_or(&[][..], |e| bytes_at(keys, e.key_start, e.key_len))
        })?;
        self.by_key.rebuild(entries.len(), |i| {
            let e = entries.get(i)?;
            (e.key_len > 2).then(|| hash(bytes_at(keys, e.key_start, e.key_len)))
        })?;
        self.short_spans.clear();
        if self.raw.kind != RawKind::Off {
            let tables = self.short.tables();
            let (one, two) = tables.positions();
            let spans = pairs(&self.spans);
            let count = 256usize
                .checked_add(two.len())
                .ok_or(Error::CapacityOverflow)?;
            self.short_spans.try_reserve_exact(count * 8)?;
            // One-byte keys: position + 1 (0: none); two-byte keys: position.
            let one = one.iter().map(|&p| p.checked_sub(1));
            for p in one.chain(two.iter().map(|&p| Some(p))) {
                let span = p
                    .and_then(|p| spans.get(p as usize))
                    .copied()
                    .unwrap_or([0, u32::MAX]);
                self.short_spans.try_push(span[0])?;
                self.short_spans.try_push(span[1])?;
            }
        }
        Ok(())
    }

    /// Rebuilds the value index when it misses values.
    fn refresh_values(&mut self) -> Result<()> {
        if !self.by_value_stale {
            return Ok(());
        }
        let entries = entries_of(&self.entries);
        let values = &self.values;
        self.by_value.rebuild(entries.len(), |i| {
            let e = entries.get(i)?;
            Some(hash(bytes_at(values, e.value_start, e.value_len)))
        })?;
        self.by_value_stale = false;
        Ok(())
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
        let raw = (RawKind::Off, &RawSource::None);
        self.intern_keys(values, sentinel, raw, alloc, |_| Ok(()))
    }

    /// Interns `values` as [`Self::intern`] does, then calls `each` with the
    /// key of every value in order (`None` for a null value). `raw`: the
    /// kind and raw bytes of the values (the array `values` encodes), kept
    /// for decoding.
    ///
    /// One hash lookup per value (none while the interner is empty); new
    /// values are sorted once and get their keys during the merge.
    ///
    /// # Errors
    /// As [`Self::intern`], and whatever `each` returns.
    pub(crate) fn intern_keys(
        &mut self,
        values: &Rows<A>,
        sentinel: u8,
        raw: (RawKind, &RawSource<'_>),
        alloc: &A,
        mut each: impl FnMut(Option<&[u8]>) -> Result<()>,
    ) -> Result<()>
    where
        A: Clone,
    {
        let keep_raw = self.raw.begin(raw.0);
        let n = values.len();
        if n >= u32::MAX as usize {
            return Err(Error::CapacityOverflow);
        }
        let offsets = values.offsets();
        let data = values.data();
        let row = |i: usize| match (offsets.get(i), offsets.get(i + 1)) {
            (Some(&a), Some(&b)) => data.get(a..b).unwrap_or(&[]),
            _ => &[],
        };
        let empty = self.len() == 0;
        if !empty {
            self.refresh_values()?;
        }
        // Each value's entry position + 1 (0: null value or not interned
        // yet), and the values not interned yet, as (prefix, index) pairs.
        let mut fresh = MutableBuffer::new_in(alloc.clone());
        fresh.try_extend_zeros(n.checked_mul(16).ok_or(Error::CapacityOverflow)?)?;
        let mut found = MutableBuffer::new_in(alloc.clone());
        found.try_extend_zeros(n * 4)?;
        let mut count = 0usize;
        {
            let found: &mut [u32] = found.typed_mut()?;
            let pairs: &mut [u128] = if n == 0 {
                &mut []
            } else {
                bytemuck::try_cast_slice_mut(fresh.as_slice_mut()).map_err(|_| Error::Misaligned)?
            };
            for (i, slot) in found.iter_mut().enumerate() {
                let v = row(i);
                if is_null_value(v, sentinel) {
                    continue;
                }
                match (!empty).then(|| self.position_of(v)).flatten() {
                    Some(p) => *slot = u32::try_from(p + 1).map_err(|_| Error::CapacityOverflow)?,
                    None => {
                        let pair = pairs.get_mut(count).ok_or(Error::OutOfBounds)?;
                        *pair = (u128::from(prefix(v)) << 64) | i as u128;
                        count += 1;
                    }
                }
            }
        }
        fresh.truncate(count * 16);
        if count > 0 {
            // Mostly new values: their encodings (and raw bytes) are
            // appended whole, entries point into them; otherwise each new
            // value is copied on its own.
            let bulk = if count * 2 >= n {
                let value_base = self.values.len();
                self.values.try_extend_from_slice(data)?;
                let raw_base = match (keep_raw, raw.1.whole()) {
                    (true, Some((bytes, origin))) => Some((self.raw.push(bytes)?, origin)),
                    _ => None,
                };
                Some((value_base, raw_base))
            } else {
                None
            };
            let place = Placement {
                row: &row,
                offsets,
                raw: (keep_raw, raw.1),
                bulk,
            };
            self.merge(&place, fresh, found.typed_mut()?, alloc)?;
        }
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
        Ok(())
    }

    /// Merges the values `fresh` (`prefix << 64 | index` of values not
    /// interned yet) into the entries, giving them keys; updates `found`
    /// (old positions move up, new values get theirs).
    fn merge<'v, R: Fn(usize) -> &'v [u8]>(
        &mut self,
        place: &Placement<'_, '_, R>,
        mut fresh: MutableBuffer<A>,
        found: &mut [u32],
        alloc: &A,
    ) -> Result<()>
    where
        A: Clone,
    {
        let row = place.row;
        let fresh: &mut [u128] =
            bytemuck::try_cast_slice_mut(fresh.as_slice_mut()).map_err(|_| Error::Misaligned)?;
        // By prefix (then index); runs of equal prefixes by their values.
        fresh.sort_unstable();
        let full = |a: &u128, b: &u128| row(*a as u64 as usize).cmp(row(*b as u64 as usize));
        let mut i = 0;
        while i < fresh.len() {
            let p = fresh.get(i).map_or(0, |f| f >> 64);
            let run = fresh.get(i..).unwrap_or(&[]);
            let len = run.iter().take_while(|f| *f >> 64 == p).count();
            if len > 1 {
                if let Some(r) = fresh.get_mut(i..i + len) {
                    r.sort_unstable_by(full);
                }
            }
            i += len.max(1);
        }

        let old_len = self.len();
        // New position + 1 of each old entry.
        let mut moved = MutableBuffer::new_in(alloc.clone());
        moved.try_extend_zeros(old_len.checked_mul(4).ok_or(Error::CapacityOverflow)?)?;
        let moved: &mut [u32] = moved.typed_mut()?;
        let mut merged = MutableBuffer::new_in(alloc.clone());
        let bytes = old_len
            .checked_add(fresh.len())
            .and_then(|n| n.checked_mul(core::mem::size_of::<Entry>()))
            .ok_or(Error::CapacityOverflow)?;
        merged.try_extend_zeros(bytes)?;
        let out: &mut [Entry] =
            bytemuck::try_cast_slice_mut(merged.as_slice_mut()).map_err(|_| Error::Misaligned)?;
        let mut w = 0usize;
        // Entry position + 1 of each fresh value.
        let mut assigned = MutableBuffer::new_in(alloc.clone());
        assigned.try_extend_zeros(fresh.len() * 4)?;
        if place.bulk.is_none() {
            let value_bytes: usize = fresh.iter().map(|&f| row(f as u64 as usize).len()).sum();
            self.values.try_reserve(value_bytes)?;
        }

        let mut j = 0;
        let mut prev: Option<Entry> = None;
        for i in 0..=old_len {
            let next = entries_of(&self.entries).get(i).copied();
            // The fresh values below `next`.
            let run_start = j;
            while let Some(&f) = fresh.get(j) {
                if next.is_some_and(|e| row(f as u64 as usize) >= self.value(&e)) {
                    break;
                }
                j += 1;
            }
            if let (Some(run), Some(to)) = (
                fresh.get(run_start..j),
                assigned.typed_mut::<u32>()?.get_mut(run_start..j),
            ) {
                self.insert_run(run, place, (prev, next), (&mut *out, &mut w), to)?;
                if let Some(last) = w.checked_sub(1).and_then(|l| out.get(l)) {
                    prev = Some(*last);
                }
            }
            if let Some(e) = next {
                w += 1;
                if let Some(m) = moved.get_mut(i) {
                    *m = u32::try_from(w).map_err(|_| Error::CapacityOverflow)?;
                }
                *out.get_mut(w - 1).ok_or(Error::OutOfBounds)? = e;
                prev = Some(e);
            }
        }
        merged.truncate(w * core::mem::size_of::<Entry>());
        // Values found before the merge: their old positions moved; then
        // the new values' positions.
        for f in found.iter_mut() {
            if let Some(old) = f.checked_sub(1) {
                *f = moved.get(old as usize).copied().ok_or(Error::OutOfBounds)?;
            }
        }
        for (&f, &p) in fresh.iter().zip(assigned.typed::<u32>()?) {
            if let Some(slot) = found.get_mut(f as u64 as usize) {
                *slot = p;
            }
        }
        self.entries = merged;
        self.reindex()
    }
}

/// Where the new values of a batch come from and where their bytes go.
struct Placement<'p, 'v, R> {
    /// Encoded value `i` of the batch.
    row: &'p R,
    /// The batch's row offsets (for values appended whole).
    offsets: &'p [usize],
    /// Whether raw values are kept, and their source.
    raw: (bool, &'p RawSource<'v>),
    /// `Some((value_base, raw))` when the batch's encodings were appended
    /// whole at `value_base` (and its raw bytes at `raw = (base, origin)`:
    /// raw byte `origin` of the source is at `base`).
    bulk: Option<(usize, Option<(usize, usize)>)>,
}

/// Key number `n` (from 1) of `k` spread evenly over `cap` places:
/// `n * cap / (k + 1)`.
#[inline]
fn spread(n: u128, cap: u128, k: u128) -> Result<u128> {
    if let (Ok(n64), Ok(cap64)) = (u64::try_from(n), u64::try_from(cap)) {
        if let Some(x) = n64.checked_mul(cap64) {
            return Ok(u128::from(x / (k as u64 + 1)));
        }
    }
    n.checked_mul(cap)
        .map(|x| x / (k + 1))
        .ok_or(Error::CapacityOverflow)
}

impl<A: Allocator> Interner<A> {
    /// Gives keys between the entries `bounds` (`None`: unbounded) to the
    /// sorted values `run` (`prefix << 64 | index`; repeats share a key),
    /// writes their entries at `out.1` on in `out.0` and their position + 1
    /// to `to`.
    fn insert_run<'v, R: Fn(usize) -> &'v [u8]>(
        &mut self,
        run: &[u128],
        place: &Placement<'_, '_, R>,
        bounds: (Option<Entry>, Option<Entry>),
        out: (&mut [Entry], &mut usize),
        to: &mut [u32],
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
        let mut last: Option<u128> = None;
        for (&f, slot) in run.iter().zip(to.iter_mut()) {
            if last.is_some_and(|l| same(l, f)) {
                *slot = u32::try_from(*w).map_err(|_| Error::CapacityOverflow)?;
                continue;
            }
            last = Some(f);
            let i = f as u64 as usize;
            let v = row(i);
            // Spread evenly: the n-th of k keys at index n * cap / (k + 1).
            n += 1;
            let idx = spread(n, cap, k)?;
            let key_start = keys_base + (n as usize - 1) * key_len;
            let key = new_keys.next().ok_or(Error::OutOfBounds)?;
            let (head, tail) = key.split_at_mut(g.prefix_len);
            head.copy_from_slice(prefix);
            write_key_tail(tail, g, m, idx)?;
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
            *slot = u32::try_from(*w).map_err(|_| Error::CapacityOverflow)?;
        }
        Ok(())
    }
}

/// Reads the keys of a dictionary column's rows (see
/// [`Interner::reader`]).
pub(crate) struct Reader<'i, A: Allocator> {
    interner: &'i Interner<A>,
    /// `[start, len]` of each entry's raw bytes.
    spans: &'i [[u32; 2]],
    /// The same of the one-byte keys, by byte.
    one_spans: &'i [[u32; 2]],
    /// The same of the two-byte keys, by rank.
    two_spans: &'i [[u32; 2]],
    tables: KeyTables<'i>,
    /// `0xFF` when descending (keys and terminator inverted).
    flip: u8,
    /// The column's null sentinel.
    null: u8,
    /// An inverted long key.
    scratch: MutableBuffer<A>,
}

impl<A: Allocator> Reader<'_, A> {
    /// Reads the dictionary piece at the start of `row` (`0x01`, key,
    /// terminator; or the null sentinel) and moves `row` past it: the
    /// key's entry position, `None` for a null.
    ///
    /// # Errors
    /// [`Error::InvalidRow`] for a malformed piece;
    /// [`Error::UnknownDictionaryKey`] for a key never issued.
    #[inline(always)]
    pub(crate) fn next(&mut self, row: &mut &[u8]) -> Result<Option<usize>> {
        let (&first, rest) = row.split_first().ok_or(Error::InvalidRow)?;
        *row = rest;
        match first {
            1 => {}
            b if b == self.null => return Ok(None),
            _ => return Err(Error::InvalidRow),
        }
        let t = self.flip;
        let found = match **row {
            [a, x, ..] if a != t && x == t => (2, self.tables.find_one(a ^ t)),
            [a, b, x, ..] if a != t && b != t && x == t => (3, self.tables.find_two(a ^ t, b ^ t)),
            _ => (0, Short::Long),
        };
        match found {
            (skip, Short::Found(p)) => {
                *row = row.get(skip..).unwrap_or(&[]);
                return Ok(Some(p));
            }
            (_, Short::Unknown) => return Err(Error::UnknownDictionaryKey),
            (_, Short::Long) => {}
        }
        self.long(row).map(Some)
    }

    /// As [`Self::next`], giving the raw span (`[start, len]`) of the
    /// key's entry.
    ///
    /// # Errors
    /// As [`Self::next`].
    #[inline(always)]
    pub(crate) fn next_span(&mut self, row: &mut &[u8]) -> Result<Option<[u32; 2]>> {
        let (&first, rest) = row.split_first().ok_or(Error::InvalidRow)?;
        match first {
            1 => {}
            b if b == self.null => {
                *row = rest;
                return Ok(None);
            }
            _ => return Err(Error::InvalidRow),
        }
        let t = self.flip;
        let span = match *rest {
            [a, x, ..] if a != t && x == t => match self.one_spans.get(usize::from(a ^ t)) {
                // No such key (see `short_spans`).
                Some(&[_, u32::MAX]) => return Err(Error::UnknownDictionaryKey),
                span => {
                    *row = rest.get(2..).unwrap_or(&[]);
                    span
                }
            },
            [a, b, x, ..] if a != t && b != t && x == t => match self.tables.rank_two(a ^ t, b ^ t)
            {
                Ok(rank) => {
                    *row = rest.get(3..).unwrap_or(&[]);
                    self.two_spans.get(rank)
                }
                Err(Short::Unknown) => return Err(Error::UnknownDictionaryKey),
                Err(_) => None,
            },
            _ => None,
        };
        if let Some(&span) = span {
            return Ok(Some(span));
        }
        match self.next(row)? {
            None => Ok(None),
            Some(p) => self
                .raw_span(p)
                .map(Some)
                .ok_or(Error::UnknownDictionaryKey),
        }
    }

    /// The entry of a key that is not one or two bytes long.
    #[cold]
    #[inline(never)]
    fn long(&mut self, row: &mut &[u8]) -> Result<usize> {
        let t = self.flip;
        let len = row.iter().position(|&b| b == t).ok_or(Error::InvalidRow)?;
        let k = row.get(..len).ok_or(Error::InvalidRow)?;
        *row = row.get(len + 1..).unwrap_or(&[]);
        let k = if t == 0 {
            k
        } else {
            self.scratch.clear();
            self.scratch.try_extend_from_slice(k)?;
            self.scratch.as_slice_mut().iter_mut().for_each(|b| *b ^= t);
            self.scratch.as_slice()
        };
        self.interner
            .position_of_key(k)
            .ok_or(Error::UnknownDictionaryKey)
    }

    /// Where the raw bytes of the entry at `position` are in
    /// [`Interner::raw`]'s bytes, as `[start, len]`.
    #[inline(always)]
    pub(crate) fn raw_span(&self, position: usize) -> Option<[u32; 2]> {
        self.spans.get(position).copied()
    }
}

/// Writes the byte after the prefix and the `m` suffix bytes of key number
/// `idx` of gap `g` into `out` (`1 + m` bytes).
fn write_key_tail(out: &mut [u8], g: Gap, m: u32, idx: u128) -> Result<()> {
    let (first, rest) = out.split_first_mut().ok_or(Error::OutOfBounds)?;
    let low = u128::from(g.low);
    let b = if m == 0 {
        (low + 1).max(2) + idx
    } else if let (Ok(mut r), Some(scale)) = (u64::try_from(idx), (DIGITS as u64).checked_pow(m)) {
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
