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
//! bounded (`MAX_PROBE` in `hash_index`): an entry that does not fit marks its
//! index incomplete, and a lookup that finds nothing in an incomplete index
//! falls back to binary search, so crafted collisions cost at most
//! `MAX_PROBE` comparisons more than the search (no quadratic case).
//!
//! Each entry also records where the value's raw bytes are (see
//! [`gather`]), so decoding copies them instead of decoding the
//! value's encoding again.

use allocator_api2::alloc::Allocator;
use bytemuck::{Pod, Zeroable};

mod cache;
pub(crate) mod contiguous;
pub(crate) mod gather;
mod hash_index;
mod keys;
mod merge;
mod reader;
mod sort;
#[cfg(test)]
mod pinned;

use hash_index::{hash, HashIndex, Lookup};
use keys::{KeyIndex, Short};
use merge::Placement;
pub(crate) use reader::{Reader, ShortSpans};

use super::Rows;
use crate::buffer::{MutableBuffer, TryVec};
use crate::error::{Error, Result};
use gather::{RawKind, RawSource, RawStore};

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

/// The order-preserving mappings of a [`RowEncoding::Seed`] converter's
/// dictionary columns ("Dictionary encoding", spec 004): one per
/// dictionary column (nested ones included), each from the dictionary's
/// values (as their row encodings) to short keys that sort like them.
///
/// The caller owns it and passes it to
/// [`RowConverter::convert_columns_with_interner`] (which adds each batch's
/// new values) and [`RowConverter::convert_rows_with_interner`] (which
/// looks the keys up), so that the converter itself stays immutable. Rows
/// compare with each other only when encoded through the same interner.
///
/// It pays off when dictionary values are long and repeated: a key of one
/// to a few bytes stands for the whole value in every row, where the
/// default encoding ([`RowEncoding::Ordered`], by value) writes the value's
/// full encoding (32-byte blocks for strings). It costs a hash lookup per
/// distinct value, a sort and merge for every batch with new values, and
/// memory that grows with every distinct value seen (it never shrinks);
/// keys grow longer as values arrive between existing ones.
///
/// Made by [`RowConverter::try_new_interner`]:
///
/// ```
/// use alkaid::array::{Array, DictionaryArray, DictionaryKeys, Int32Array, StringArray};
/// use alkaid::datatypes::DataType;
/// use alkaid::row::{RowConverter, RowEncoding, SortField};
/// use alkaid::Global;
///
/// let long = "a long repeated value, longer than one 32-byte block";
/// let values = StringArray::from(vec![long, "short"]).into_array_ref();
/// let keys = DictionaryKeys::Int32(Int32Array::from(vec![0, 1, 0]));
/// let column = DictionaryArray::try_new_in(keys, values, false, Global)?.into_array_ref();
/// let field = SortField::new(column.data_type().clone());
///
/// let seed = RowConverter::try_new_with_encoding(&[field.clone()], RowEncoding::Seed)?;
/// let mut interner = seed.try_new_interner()?;
/// let rows = seed.convert_columns_with_interner(&mut interner, &[column.clone()])?;
/// assert!(rows.row(0) < rows.row(1)); // "a long ..." < "short"
/// assert_eq!(rows.row(0).map(|r| r.data().len()), Some(3)); // 0x01, key, 0x00
/// let back = seed.convert_rows_with_interner(&interner, rows.iter())?;
/// assert_eq!(back[0].len(), 3);
///
/// // By value, each row holds the whole value.
/// let ordered = RowConverter::try_new(&[field])?;
/// let by_value = ordered.convert_columns(&[column])?;
/// assert_eq!(by_value.row(0).map(|r| r.data().len()), Some(67));
/// # Ok::<(), alkaid::Error>(())
/// ```
///
/// [`RowEncoding::Seed`]: super::RowEncoding::Seed
/// [`RowEncoding::Ordered`]: super::RowEncoding::Ordered
/// [`RowConverter::convert_columns_with_interner`]: super::RowConverter::convert_columns_with_interner
/// [`RowConverter::convert_rows_with_interner`]: super::RowConverter::convert_rows_with_interner
/// [`RowConverter::try_new_interner`]: super::RowConverter::try_new_interner
pub struct RowInterner<
    #[cfg(feature = "alloc")] A: Allocator = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator,
> {
    /// One mapping per seed dictionary column, by slot (depth first).
    pub(crate) dictionaries: crate::buffer::TryVec<Interner<A>, A>,
}

impl<A: Allocator> RowInterner<A> {
    /// Number of values interned over all dictionary columns.
    pub fn num_values(&self) -> usize {
        self.dictionaries.iter().map(Interner::len).sum()
    }
}

impl<A: Allocator> core::fmt::Debug for RowInterner<A> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RowInterner")
            .field("dictionaries", &self.dictionaries.len())
            .field("values", &self.num_values())
            .finish()
    }
}

/// An order-preserving mapping from encoded dictionary values to short keys.
pub(crate) struct Interner<A: Allocator> {
    /// Encoded values, back to back.
    values: MutableBuffer<A>,
    /// Keys, back to back (append-only: old keys never move).
    keys: MutableBuffer<A>,
    /// Sorted by value (and so by key).
    entries: TryVec<Entry, A>,
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
    /// `[start, len]` of each entry's raw bytes, by position.
    spans: TryVec<[u32; 2], A>,
    /// The same of the one-byte keys by byte (256 of them, or none when
    /// the raw bytes are not kept; `[0, u32::MAX]`: no such key).
    one_spans: TryVec<[u32; 2], A>,
    /// The same of the two-byte keys by rank (see [`keys`]).
    two_spans: TryVec<[u32; 2], A>,
    /// The table of the last dictionary encoded through this interner.
    pub(crate) cache: cache::TableCache<A>,
}

impl<A: Allocator + Clone> Interner<A> {
    /// An empty interner; allocates nothing yet.
    pub(crate) fn new_in(alloc: A) -> Self {
        Interner {
            values: MutableBuffer::new_in(alloc.clone()),
            keys: MutableBuffer::new_in(alloc.clone()),
            entries: TryVec::new_in(alloc.clone()),
            by_value: HashIndex::new_in(alloc.clone()),
            by_value_stale: false,
            by_key: HashIndex::new_in(alloc.clone()),
            short: KeyIndex::new_in(alloc.clone()),
            raw: RawStore::new_in(alloc.clone()),
            spans: TryVec::new_in(alloc.clone()),
            one_spans: TryVec::new_in(alloc.clone()),
            two_spans: TryVec::new_in(alloc.clone()),
            cache: cache::TableCache::new_in(alloc),
        }
    }
}

/// Bytes `start..start + len` of `buf`; an entry pointing past them (a
/// broken invariant) is [`Error::InvalidRow`], never empty bytes.
fn bytes_at<A: Allocator>(buf: &MutableBuffer<A>, start: u32, len: u32) -> Result<&[u8]> {
    let start = start as usize;
    buf.as_slice()
        .get(start..start.saturating_add(len as usize))
        .ok_or(Error::InvalidRow)
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
        self.entries.as_slice().len()
    }

    fn value(&self, e: &Entry) -> Result<&[u8]> {
        bytes_at(&self.values, e.value_start, e.value_len)
    }

    fn key(&self, e: &Entry) -> Result<&[u8]> {
        bytes_at(&self.keys, e.key_start, e.key_len)
    }

    /// The key of an interned value.
    #[cfg(test)]
    pub(crate) fn key_of(&self, value: &[u8]) -> Option<&[u8]> {
        let i = self.position_of(value).ok()??;
        self.entries.get(i).and_then(|e| self.key(e).ok())
    }

    /// The position among the entries of an interned value.
    fn position_of(&self, value: &[u8]) -> Result<Option<usize>> {
        let found = if self.by_value_stale {
            Lookup::Unknown
        } else {
            self.by_value
                .find(hash(value), |i| self.bytes_of(i, Self::value, value))?
        };
        match found {
            Lookup::Found(i) => Ok(Some(i)),
            Lookup::Absent => Ok(None),
            Lookup::Unknown => self.search(Self::value, value),
        }
    }

    /// Whether entry `i`'s bytes (its value or key, as `part` picks) are `want`.
    fn bytes_of<'s>(
        &'s self,
        i: usize,
        part: fn(&'s Self, &Entry) -> Result<&'s [u8]>,
        want: &[u8],
    ) -> Result<bool> {
        let e = self.entries.get(i).ok_or(Error::InvalidRow)?;
        Ok(part(self, e)? == want)
    }

    /// Binary search of the entries for the one whose bytes (value or key,
    /// as `part` picks) are `want`.
    fn search<'s>(
        &'s self,
        part: fn(&'s Self, &Entry) -> Result<&'s [u8]>,
        want: &[u8],
    ) -> Result<Option<usize>> {
        let (mut lo, mut hi) = (0, self.entries.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let e = self.entries.get(mid).ok_or(Error::InvalidRow)?;
            match part(self, e)?.cmp(want) {
                core::cmp::Ordering::Less => lo = mid + 1,
                core::cmp::Ordering::Greater => hi = mid,
                core::cmp::Ordering::Equal => return Ok(Some(mid)),
            }
        }
        Ok(None)
    }

    /// The encoded value of a key.
    #[cfg(test)]
    pub(crate) fn value_of(&self, key: &[u8]) -> Option<&[u8]> {
        let i = self.position_of_key(key).ok()??;
        self.value_at(i).ok()
    }

    /// The position among the entries of the value of a key.
    ///
    /// # Errors
    /// [`Error::InvalidRow`] when an entry points past the keys.
    pub(crate) fn position_of_key(&self, key: &[u8]) -> Result<Option<usize>> {
        match self.short.tables().find(key) {
            Short::Found(i) => return Ok(Some(i)),
            Short::Unknown => return Ok(None),
            Short::Long => {}
        }
        match self
            .by_key
            .find(hash(key), |i| self.bytes_of(i, Self::key, key))?
        {
            Lookup::Found(i) => Ok(Some(i)),
            Lookup::Absent => Ok(None),
            Lookup::Unknown => self.search(Self::key, key),
        }
    }

    /// The encoded value of the entry at `position`.
    ///
    /// # Errors
    /// [`Error::UnknownDictionaryKey`] when there is no such entry;
    /// [`Error::InvalidRow`] when it points past the values.
    pub(crate) fn value_at(&self, position: usize) -> Result<&[u8]> {
        let e = self
            .entries
            .get(position)
            .ok_or(Error::UnknownDictionaryKey)?;
        self.value(e)
    }

    /// Every key, back to back (see [`Self::intern_keys`]).
    pub(crate) fn key_bytes(&self) -> &[u8] {
        self.keys.as_slice()
    }

    /// The kind of the raw values kept, and their bytes ([`RawKind::Off`]
    /// or [`RawKind::Unknown`]: none).
    pub(crate) fn raw(&self) -> (RawKind, &[u8]) {
        (self.raw.kind, self.raw.bytes())
    }

    /// Rebuilds the key indexes over the current entries; the value index
    /// is rebuilt when next needed.
    fn reindex(&mut self) -> Result<()> {
        let entries = self.entries.as_slice();
        let keys = &self.keys;
        self.by_value_stale = true;
        self.spans.clear();
        if self.raw.kind != RawKind::Off {
            self.spans.try_reserve_exact(entries.len())?;
            for e in entries {
                if e.raw_len == u32::MAX {
                    self.raw.kind = RawKind::Off;
                }
                self.spans.try_push([e.raw_start, e.raw_len])?;
            }
        }
        let key_of = |i: usize| {
            let e = entries.get(i).ok_or(Error::InvalidRow)?;
            bytes_at(keys, e.key_start, e.key_len)
        };
        let two = entries.iter().filter(|e| e.key_len == 2).count();
        self.short.rebuild_counted(entries.len(), two, key_of)?;
        self.by_key.rebuild(entries.len(), |i| {
            let k = key_of(i)?;
            Ok((k.len() > 2).then(|| hash(k)))
        })?;
        self.one_spans.clear();
        self.two_spans.clear();
        if self.raw.kind != RawKind::Off {
            let tables = self.short.tables();
            let (one, two) = tables.positions();
            let spans = self.spans.as_slice();
            // No such key: `[0, u32::MAX]`.
            let span = |p: Option<u32>| {
                p.and_then(|p| spans.get(p as usize))
                    .copied()
                    .unwrap_or([0, u32::MAX])
            };
            // One-byte keys: position + 1 (0: none); two-byte keys: position.
            let mut one = one.iter().map(|&p| span(p.checked_sub(1)));
            self.one_spans.try_reserve_exact(256)?;
            self.one_spans
                .try_extend_from_fn(256, |_| one.next().unwrap_or([0, u32::MAX]))?;
            let mut two = two.iter().map(|&p| span(Some(p)));
            let count = two.len();
            self.two_spans.try_reserve_exact(count)?;
            self.two_spans
                .try_extend_from_fn(count, |_| two.next().unwrap_or([0, u32::MAX]))?;
        }
        Ok(())
    }

    /// Rebuilds the value index when it misses values.
    fn refresh_values(&mut self) -> Result<()> {
        if !self.by_value_stale {
            return Ok(());
        }
        let entries = self.entries.as_slice();
        let values = &self.values;
        self.by_value.rebuild(entries.len(), |i| {
            let e = entries.get(i).ok_or(Error::InvalidRow)?;
            Ok(Some(hash(bytes_at(values, e.value_start, e.value_len)?)))
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
    pub(crate) fn intern(&mut self, values: Rows<A>, sentinel: u8, alloc: &A) -> Result<()>
    where
        A: Clone,
    {
        let raw = (RawKind::Off, &RawSource::None);
        self.intern_keys(values, sentinel, raw, alloc).map(|_| ())
    }

    /// Interns every non-null value of `values` (rows of the values'
    /// ascending encoding, whose nulls start with `sentinel`) that is not
    /// interned yet; returns the key of every value in order as
    /// `[start, len]` (`[u32; 2]`) in [`Self::key_bytes`] (`len` 0: a null
    /// value). `raw`: the kind and raw bytes of the values
    /// (the array `values` encodes), kept for decoding.
    ///
    /// One hash lookup per value (none while the interner is empty); new
    /// values are sorted once and get their keys during the merge. The
    /// first batch's encodings become the interner's when most of its
    /// values are new (no copy).
    ///
    /// # Errors
    /// [`Error::AllocationFailed`], [`Error::CapacityOverflow`].
    pub(crate) fn intern_keys(
        &mut self,
        values: Rows<A>,
        sentinel: u8,
        raw: (RawKind, &RawSource<'_>),
        alloc: &A,
    ) -> Result<TryVec<[u32; 2], A>>
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
        // Sorting needs an infallible row lookup: a row index past the
        // batch (a broken invariant) is noted and reported as an error
        // once the pass is over, never taken for an empty value.
        let broken = core::cell::Cell::new(false);
        let row = |i: usize| match values.row(i) {
            Some(r) => r.data(),
            None => {
                broken.set(true);
                &[]
            }
        };
        let empty = self.len() == 0;
        // An interner without values takes the batch's encodings whole
        // (entries point into them) when most values are new.
        let mut adopt = false;
        if !empty {
            self.refresh_values()?;
        }
        // Each value's key as `[start, len]` (`len` 0: null value or not
        // interned yet), and the values not interned yet, as (prefix,
        // index) pairs.
        let mut fresh = TryVec::new_in(alloc.clone());
        fresh.try_reserve_exact(n)?;
        let mut spans = TryVec::new_in(alloc.clone());
        spans.try_reserve_exact(n)?;
        for i in 0..n {
            let v = row(i);
            let mut span = [0, 0];
            if !is_null_value(v, sentinel) {
                let known = if empty { None } else { self.position_of(v)? };
                match known {
                    Some(p) => {
                        let e = self.entries.get(p).ok_or(Error::OutOfBounds)?;
                        span = [e.key_start, e.key_len];
                    }
                    None => fresh.try_push((u128::from(prefix(v)) << 64) | i as u128)?,
                }
            }
            spans.try_push(span)?;
        }
        if broken.get() {
            return Err(Error::InvalidRow);
        }
        let count = fresh.len();
        if count > 0 {
            // Mostly new values: their encodings (and raw bytes) are
            // appended whole, entries point into them; otherwise each new
            // value is copied on its own.
            let bulk = if count * 2 >= n {
                let value_base = self.values.len();
                adopt = value_base == 0 && empty;
                if !adopt {
                    self.values.try_extend_from_slice(data)?;
                }
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
            self.merge(&place, fresh, spans.as_mut_slice(), alloc)?;
            if broken.get() {
                return Err(Error::InvalidRow);
            }
            if adopt {
                self.values = values.into_data();
            }
        }
        Ok(spans)
    }
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
        let e = i.entries.as_slice();
        for w in e.windows(2) {
            assert!(i.value(&w[0]).unwrap() < i.value(&w[1]).unwrap());
            assert!(i.key(&w[0]).unwrap() < i.key(&w[1]).unwrap());
        }
        for x in e {
            let k = i.key(x).unwrap();
            assert!(k.iter().all(|&b| b != 0));
            assert!(*k.last().unwrap() >= 2);
            assert_eq!(i.value_of(k), Some(i.value(x).unwrap()));
        }
    }

    /// `intern_keys` hands back every value's key span: values interned
    /// before, new ones (also repeated), nulls; on an empty interner (the
    /// batch's encodings adopted) and on a second batch.
    #[test]
    fn key_spans_of_a_batch() {
        let mut i = Interner::new_in(Global);
        let first: [&[u8]; 4] = [b"\x01m", b"\x00", b"\x01c", b"\x01m"];
        let raw = (RawKind::Off, &RawSource::None);
        let spans = i.intern_keys(rows_of(&first), 0, raw, &Global).unwrap();
        let check = |i: &Interner<Global>, batch: &[&[u8]], spans: &TryVec<[u32; 2], Global>| {
            assert_eq!(spans.len(), batch.len());
            for (v, &[start, len]) in batch.iter().zip(spans.iter()) {
                if v[0] == 0 {
                    assert_eq!(len, 0);
                } else {
                    assert_eq!(bytes_at(&i.keys, start, len).ok(), i.key_of(v), "{v:?}");
                }
            }
        };
        check(&i, &first, &spans);
        check_sorted(&i);
        // Mostly old values: new ones copied one by one.
        let second: [&[u8]; 6] = [b"\x01c", b"\x01d", b"\x00", b"\x01m", b"\x01d", b"\x01c"];
        let spans = i.intern_keys(rows_of(&second), 0, raw, &Global).unwrap();
        check(&i, &second, &spans);
        // Mostly new values: appended whole.
        let third: [&[u8]; 4] = [b"\x01a", b"\x01z", b"\x01d", b"\x01b"];
        let spans = i.intern_keys(rows_of(&third), 0, raw, &Global).unwrap();
        check(&i, &third, &spans);
        assert_eq!(i.len(), 6);
        check_sorted(&i);
    }

    #[test]
    fn grows_consistently() {
        let mut i = Interner::new_in(Global);
        i.intern(
            rows_of(&[b"\x01m", b"\x01c", b"\x00", b"\x01x", b"\x01c"]),
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
        i.intern(rows_of(&refs), 0, &Global).unwrap();
        i.intern(rows_of(&[b"\x01a", b"\x01\xFF\xFF", b"\x01n"]), 0, &Global)
            .unwrap();
        assert_eq!(i.len(), 606);
        check_sorted(&i);
        assert_eq!(i.key_of(b"\x01m").unwrap(), &km[..]);
        // Repeated squeezing into the same gap keeps working.
        for round in 0..40u8 {
            let v = [1u8, b'm', round];
            i.intern(rows_of(&[&v]), 0, &Global).unwrap();
            let w = [1u8, b'c', 0xFF - round];
            i.intern(rows_of(&[&w]), 0, &Global).unwrap();
        }
        check_sorted(&i);
        assert_eq!(i.len(), 686);
    }
}
