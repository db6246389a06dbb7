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

use hash_index::{hash, HashIndex, Lookup};
use keys::{KeyIndex, Short};
use merge::Placement;
pub(crate) use reader::{Reader, ShortSpans};

use super::Rows;
use crate::buffer::MutableBuffer;
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
    /// The same of the one-byte keys by byte (256 of them; `[0, u32::MAX]`:
    /// no such key), then of the two-byte keys by rank (see [`keys`]).
    short_spans: MutableBuffer<A>,
    /// The table of the last dictionary encoded through this interner.
    pub(crate) cache: cache::TableCache<A>,
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
            short_spans: MutableBuffer::new_in(alloc.clone()),
            cache: cache::TableCache::new_in(alloc),
        }
    }
}

fn entries_of<A: Allocator>(buf: &MutableBuffer<A>) -> &[Entry] {
    // 64-byte aligned, grown by whole entries.
    bytemuck::try_cast_slice(buf.as_slice()).unwrap_or(&[])
}

/// A buffer of `[u32; 2]`, mutably (empty when unallocated).
fn spans_mut<A: Allocator>(b: &mut MutableBuffer<A>) -> Result<&mut [[u32; 2]]> {
    if b.is_empty() {
        Ok(&mut [])
    } else {
        bytemuck::try_cast_slice_mut(b.as_slice_mut()).map_err(|_| Error::Misaligned)
    }
}

/// A buffer of `[u32; 2]` (empty when unallocated).
pub(crate) fn pairs<A: Allocator>(b: &MutableBuffer<A>) -> &[[u32; 2]] {
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
            for (s, e) in spans.iter_mut().zip(entries) {
                if e.raw_len == u32::MAX {
                    self.raw.kind = RawKind::Off;
                }
                *s = [e.raw_start, e.raw_len];
            }
        }
        let two = entries.iter().filter(|e| e.key_len == 2).count();
        self.short.rebuild_counted(entries.len(), two, |i| {
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
            self.short_spans.try_extend_zeros(count * 8)?;
            let out: &mut [[u32; 2]] =
                bytemuck::try_cast_slice_mut(self.short_spans.as_slice_mut())
                    .map_err(|_| Error::Misaligned)?;
            // One-byte keys: position + 1 (0: none); two-byte keys: position.
            let one = one.iter().map(|&p| p.checked_sub(1));
            for (p, out) in one.chain(two.iter().map(|&p| Some(p))).zip(out) {
                *out = p
                    .and_then(|p| spans.get(p as usize))
                    .copied()
                    .unwrap_or([0, u32::MAX]);
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
    ) -> Result<MutableBuffer<A>>
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
        // An interner without values takes the batch's encodings whole
        // (entries point into them) when most values are new.
        let mut adopt = false;
        if !empty {
            self.refresh_values()?;
        }
        // Each value's key as `[start, len]` (`len` 0: null value or not
        // interned yet), and the values not interned yet, as (prefix,
        // index) pairs.
        let mut fresh = MutableBuffer::new_in(alloc.clone());
        fresh.try_extend_zeros(n.checked_mul(16).ok_or(Error::CapacityOverflow)?)?;
        let mut spans = MutableBuffer::new_in(alloc.clone());
        spans.try_extend_zeros(n * 8)?;
        let mut count = 0usize;
        {
            let pairs: &mut [u128] = if n == 0 {
                &mut []
            } else {
                bytemuck::try_cast_slice_mut(fresh.as_slice_mut()).map_err(|_| Error::Misaligned)?
            };
            let entries = entries_of(&self.entries);
            for (i, slot) in spans_mut(&mut spans)?.iter_mut().enumerate() {
                let v = row(i);
                if is_null_value(v, sentinel) {
                    continue;
                }
                match (!empty).then(|| self.position_of(v)).flatten() {
                    Some(p) => {
                        let e = entries.get(p).ok_or(Error::OutOfBounds)?;
                        *slot = [e.key_start, e.key_len];
                    }
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
            self.merge(&place, fresh, spans_mut(&mut spans)?, alloc)?;
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

    /// `intern_keys` hands back every value's key span: values interned
    /// before, new ones (also repeated), nulls; on an empty interner (the
    /// batch's encodings adopted) and on a second batch.
    #[test]
    fn key_spans_of_a_batch() {
        let mut i = Interner::new_in(Global);
        let first: [&[u8]; 4] = [b"\x01m", b"\x00", b"\x01c", b"\x01m"];
        let raw = (RawKind::Off, &RawSource::None);
        let spans = i.intern_keys(rows_of(&first), 0, raw, &Global).unwrap();
        let check = |i: &Interner<Global>, batch: &[&[u8]], spans: &MutableBuffer<Global>| {
            let spans = pairs(spans);
            assert_eq!(spans.len(), batch.len());
            for (v, &[start, len]) in batch.iter().zip(spans) {
                if v[0] == 0 {
                    assert_eq!(len, 0);
                } else {
                    assert_eq!(Some(bytes_at(&i.keys, start, len)), i.key_of(v), "{v:?}");
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
