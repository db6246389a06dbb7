//! The order-preserving interner of dictionary columns (the seed's
//! explicit option, [`RowEncoding::Seed`](super::RowEncoding::Seed)).
//!
//! Dictionary columns are not encoded by value (that would cost the value's
//! full encoding in every row) but by a short key per distinct value. The
//! keys must order like the values, for every batch, whatever its
//! dictionary: the interner keeps every value it has seen (as the bytes of
//! its ascending row encoding, which order like the values) next to its key,
//! in one array sorted by value, and so by key. A batch's new values are
//! sorted, merged in, and given keys that fall between their neighbours'
//! keys ([`keys`]); existing keys never change, so rows encoded earlier stay
//! comparable with later ones.
//!
//! Keys are byte strings over `0x01..=0xFF`, written in rows after `0x01`
//! and followed by a `0x00` terminator (key and terminator inverted when
//! descending). Both lookups, value to key when encoding and key to value
//! when decoding, are binary searches of the one sorted array: a
//! logarithmic number of comparisons whatever the input.

use allocator_api2::alloc::Allocator;

mod cache;
mod keys;
#[cfg(test)]
mod pinned;
#[cfg(test)]
mod tests;

use super::{Rows, SortOptions};
use crate::buffer::TryVec;
use crate::error::{Error, Result};
use core::cmp::Ordering;

/// One interned value: where its value bytes and key bytes are, and their
/// [`prefix`]es (most comparisons need nothing else).
#[derive(Clone, Copy, Debug)]
struct Entry {
    value_prefix: u64,
    key_prefix: u64,
    value_start: u32,
    value_len: u32,
    key_start: u32,
    key_len: u32,
}

/// The first 8 bytes (zero-padded) as a big-endian number: a smaller one
/// means smaller bytes, equal ones decide nothing.
fn prefix(bytes: impl Iterator<Item = u8>) -> u64 {
    bytes
        .take(8)
        .zip((0..8).rev())
        .fold(0, |p, (b, i)| p | u64::from(b) << (8 * i))
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
/// full encoding (32-byte blocks for strings): rows are shorter, and
/// compare faster. It costs a binary search of the interned values per
/// dictionary value in every batch (and per row when decoding), a sort and
/// merge for every batch with new values, and memory that grows with every
/// distinct value seen (it never shrinks); keys grow longer as values
/// arrive between existing ones. Short or rarely repeated values are
/// better encoded by value.
///
/// Measured against arrow-row 60 (which encodes dictionaries by value) on
/// 4,096 rows (BENCHMARKS.md, "Row format"): a batch whose dictionary the
/// interner has seen before (the same contents: a one-entry cache per
/// column) encodes 2.1–5.2× faster; a fresh interner on 4,096 distinct
/// values 0.2–0.3× (on 10 values 2.8–4.5×); decoding is 0.4–0.9× of
/// arrow-row's by-value decode (each row's key is looked up, then its
/// value's encoding decoded row by row).
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
    /// Encoded values, back to back (append-only).
    values: TryVec<u8, A>,
    /// Keys, back to back (append-only: old keys never move).
    keys: TryVec<u8, A>,
    /// Sorted by value (and so by key).
    entries: TryVec<Entry, A>,
    /// `first[b]`: the position of the first entry whose key's first
    /// byte is at least `b` (keys are never empty), for `b` in `0..=256`.
    first: [u32; 257],
    /// The last dictionary's table of keys ([`cache`]).
    pub(crate) cache: cache::TableCache<A>,
}

/// Bytes `start..start + len` of `buf`; an entry pointing past them (a
/// broken invariant) is [`Error::InvalidRow`], never empty bytes.
fn bytes_at<A: Allocator>(buf: &TryVec<u8, A>, start: u32, len: u32) -> Result<&[u8]> {
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

impl<A: Allocator> Interner<A> {
    /// An empty interner; allocates nothing yet.
    pub(crate) fn new_in(alloc: A) -> Self
    where
        A: Clone,
    {
        Interner {
            values: TryVec::new_in(alloc.clone()),
            keys: TryVec::new_in(alloc.clone()),
            entries: TryVec::new_in(alloc.clone()),
            first: [0; 257],
            cache: cache::TableCache::new_in(alloc),
        }
    }

    /// Number of interned values.
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    fn value(&self, e: &Entry) -> Result<&[u8]> {
        bytes_at(&self.values, e.value_start, e.value_len)
    }

    fn key(&self, e: &Entry) -> Result<&[u8]> {
        bytes_at(&self.keys, e.key_start, e.key_len)
    }

    /// Binary search of `entries` from `lo` on: `Ok(position)` of the one
    /// for which `cmp` (entry against the wanted one) is equal, else
    /// `Err(position)` where it would go.
    fn search(
        entries: &[Entry],
        mut lo: usize,
        cmp: impl Fn(&Entry) -> Result<Ordering>,
    ) -> Result<Result<usize, usize>> {
        let mut hi = entries.len();
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match cmp(entries.get(mid).ok_or(Error::InvalidRow)?)? {
                Ordering::Less => lo = mid + 1,
                Ordering::Greater => hi = mid,
                Ordering::Equal => return Ok(Ok(mid)),
            }
        }
        Ok(Err(lo))
    }

    /// The entry of key prefix `p` whose key `full` compares (entry against
    /// the wanted one) as equal, as [`Self::search`] gives it: the first
    /// entry of that prefix (through `partition_point` over the entries of
    /// the key's first byte, [`Self::first`]; measured twice as fast as
    /// [`Self::search`] for keys), else (keys that share their
    /// first 8 bytes) a search of those after it.
    fn find_key(
        &self,
        p: u64,
        full: impl Fn(&Entry) -> Result<Ordering>,
    ) -> Result<Result<usize, usize>> {
        let entries = self.entries.as_slice();
        // Only the entries of the key's first byte (whole when stale).
        let b = (p >> 56) as usize;
        let at = |b: usize| self.first.get(b).map_or(0, |&x| x as usize);
        let (start, part) = entries
            .get(at(b)..at(b + 1))
            .map_or((0, entries), |part| (at(b), part));
        let lo = start + part.partition_point(|e| e.key_prefix < p);
        let first = match entries.get(lo) {
            Some(e) if e.key_prefix == p => full(e)?,
            _ => Ordering::Greater,
        };
        match first {
            Ordering::Equal => Ok(Ok(lo)),
            Ordering::Greater => Ok(Err(lo)),
            Ordering::Less => Self::search(entries, lo + 1, |e| match e.key_prefix.cmp(&p) {
                Ordering::Equal => full(e),
                o => Ok(o),
            }),
        }
    }

    /// [`Self::search`] from `lo` on for an encoded value of prefix `p`
    /// (measured: for a batch's sorted values, faster than the
    /// `partition_point` of [`Self::find_key`]).
    fn find_value(&self, lo: usize, v: &[u8], p: u64) -> Result<Result<usize, usize>> {
        Self::search(self.entries.as_slice(), lo, |e| {
            match e.value_prefix.cmp(&p) {
                Ordering::Equal => Ok(self.value(e)?.cmp(v)),
                o => Ok(o),
            }
        })
    }

    /// The key of an interned value.
    #[cfg(test)]
    pub(crate) fn key_of(&self, value: &[u8]) -> Option<&[u8]> {
        let p = prefix(value.iter().copied());
        let i = self.find_value(0, value, p).ok()?.ok()?;
        self.key(self.entries.get(i)?).ok()
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

    /// Reads the dictionary piece at the start of `row` (`0x01`, key,
    /// terminator, inverted when descending; or the null sentinel) of a
    /// column sorted by `opts`, and moves `row` past it: the position of
    /// the key's entry (see [`Self::value_at`]), `None` for a null.
    ///
    /// # Errors
    /// [`Error::InvalidRow`] for a malformed piece;
    /// [`Error::UnknownDictionaryKey`] for a key never issued.
    pub(crate) fn read(&self, row: &mut &[u8], opts: SortOptions) -> Result<Option<usize>> {
        let (&first, rest) = row.split_first().ok_or(Error::InvalidRow)?;
        if first != 1 {
            if first != opts.null_sentinel() {
                return Err(Error::InvalidRow);
            }
            *row = rest;
            return Ok(None);
        }
        let t = if opts.descending { 0xFF } else { 0 };
        let len = rest.iter().position(|&b| b == t).ok_or(Error::InvalidRow)?;
        let key = rest.get(..len).ok_or(Error::InvalidRow)?;
        *row = rest.get(len + 1..).ok_or(Error::InvalidRow)?;
        let unflipped = || key.iter().map(|b| b ^ t);
        let p = prefix(unflipped());
        // Key bytes are never 0: a key of up to 8 bytes is its prefix
        // and length.
        let found = self.find_key(p, |e| match len {
            0..=8 => Ok((e.key_len as usize).cmp(&len)),
            _ => Ok(self.key(e)?.iter().copied().cmp(unflipped())),
        })?;
        found.map(Some).map_err(|_| Error::UnknownDictionaryKey)
    }

    /// Interns every non-null value of `values` (rows of the values'
    /// ascending encoding, whose nulls start with `sentinel`) that is not
    /// interned yet; returns the key of every value in order as
    /// `[start, len]` in [`Self::key_bytes`] (`len` 0: a null value). The
    /// first values interned keep their encodings in `values`' buffer (no
    /// copy).
    ///
    /// The batch's values are sorted, then looked up in order (each search
    /// starting where the last one ended); the new ones are merged in.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`], [`Error::CapacityOverflow`].
    pub(crate) fn intern_keys(
        &mut self,
        values: Rows<A>,
        sentinel: u8,
        alloc: &A,
    ) -> Result<TryVec<[u32; 2], A>>
    where
        A: Clone,
    {
        let n = values.len();
        if n >= u32::MAX as usize {
            return Err(Error::CapacityOverflow);
        }
        // Each value's key (`len` 0: null, or not interned yet), and the
        // non-null values as (prefix, bytes, index), sorted.
        let mut spans = TryVec::new_in(alloc.clone());
        spans.try_reserve_exact(n)?;
        spans.try_extend_from_fn(n, |_| [0, 0])?;
        let mut batch = TryVec::new_in(alloc.clone());
        for (i, row) in values.iter().enumerate() {
            let v = row.data();
            if !is_null_value(v, sentinel) {
                batch.try_push((prefix(v.iter().copied()), v, i))?;
            }
        }
        let sorted = batch.as_mut_slice();
        sorted.sort_unstable_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(b.1)));
        // The new values, with the position of the entry above them.
        let mut fresh = TryVec::new_in(alloc.clone());
        let mut lo = 0;
        for &(p, v, i) in sorted.iter() {
            match self.find_value(lo, v, p)? {
                Ok(at) => {
                    let e = self.entries.get(at).ok_or(Error::OutOfBounds)?;
                    *spans.get_mut(i).ok_or(Error::OutOfBounds)? = [e.key_start, e.key_len];
                    lo = at;
                }
                Err(at) => {
                    fresh.try_push((at, v, i))?;
                    lo = at;
                }
            }
        }
        if fresh.is_empty() {
            return Ok(spans);
        }
        // Entries point into the batch's buffer, which becomes the
        // interner's, when there are no values yet.
        let adopt = (self.len() == 0).then(|| values.offsets());
        let merged = self.merge(fresh.as_slice(), adopt, spans.as_mut_slice(), alloc);
        self.index_first_bytes();
        merged?;
        if adopt.is_some() {
            drop((fresh, batch));
            self.values = values.into_data();
        }
        Ok(spans)
    }

    /// Rebuilds [`Self::first`] from the entries.
    fn index_first_bytes(&mut self) {
        // One pass: each entry starts the first bytes up to its own.
        let mut b = 0;
        for (i, e) in self.entries.iter().enumerate() {
            let f = (e.key_prefix >> 56) as usize;
            let i = u32::try_from(i).unwrap_or(u32::MAX);
            self.first.get_mut(b..=f).unwrap_or_default().fill(i);
            b = b.max(f + 1);
        }
        let n = u32::try_from(self.len()).unwrap_or(u32::MAX);
        self.first.get_mut(b..).unwrap_or_default().fill(n);
    }

    /// Merges the new values `fresh` (sorted, each with the position of
    /// the entry above it and its index in the batch) into the entries,
    /// giving them keys, and writes the `[start, len]` of each one's key to
    /// `spans` (by index). `adopt`: the batch's offsets, when its buffer
    /// will be the interner's values.
    fn merge(
        &mut self,
        fresh: &[(usize, &[u8], usize)],
        adopt: Option<&[usize]>,
        spans: &mut [[u32; 2]],
        alloc: &A,
    ) -> Result<()>
    where
        A: Clone,
    {
        let old = core::mem::replace(&mut self.entries, TryVec::new_in(alloc.clone()));
        let total = old.len().checked_add(fresh.len());
        self.entries
            .try_reserve_exact(total.ok_or(Error::CapacityOverflow)?)?;
        let (mut copied, mut rest) = (0, fresh);
        while let Some(&(at, ..)) = rest.first() {
            // The old entries below, then the run of new values below `at`.
            let below = old.get(copied..at).ok_or(Error::OutOfBounds)?;
            self.entries.try_extend_from_slice(below)?;
            copied = at;
            let len = rest.iter().take_while(|f| f.0 == at).count();
            let (run, tail) = rest.split_at_checked(len).ok_or(Error::OutOfBounds)?;
            self.insert_run(run, old.get(at).copied(), adopt, spans)?;
            rest = tail;
        }
        let above = old.get(copied..).ok_or(Error::OutOfBounds)?;
        self.entries.try_extend_from_slice(above)
    }

    /// Gives keys between the last entry and `next` (`None`: unbounded)
    /// to the sorted values `run` (repeats share a key), appending their
    /// entries and writing their keys to `spans` (values as [`Self::merge`]).
    fn insert_run(
        &mut self,
        run: &[(usize, &[u8], usize)],
        next: Option<Entry>,
        adopt: Option<&[usize]>,
        spans: &mut [[u32; 2]],
    ) -> Result<()> {
        if run.is_empty() {
            return Ok(());
        }
        let prev = self.entries.as_slice().last().copied();
        let distinct = 1 + run.windows(2).filter(|w| w[0].1 != w[1].1).count();
        let g = keys::gap(
            prev.as_ref().map(|e| self.key(e)).transpose()?,
            next.as_ref().map(|e| self.key(e)).transpose()?,
        )?;
        let k = distinct as u128;
        let (m, cap) = keys::places(g, k)?;
        let prefix_start = match (g.from_high, prev, next) {
            (false, Some(e), _) | (true, _, Some(e)) => e.key_start as usize,
            _ => 0,
        };
        let shared = prefix_start..prefix_start + g.prefix_len;
        let key_len = g.prefix_len + 1 + m as usize;
        self.keys.try_reserve(
            distinct
                .checked_mul(key_len)
                .ok_or(Error::CapacityOverflow)?,
        )?;
        let mut n = 0u128;
        let mut last: Option<&[u8]> = None;
        let mut key_span = [0u32; 2];
        for &(_, v, i) in run {
            if last != Some(v) {
                last = Some(v);
                // The n-th of k keys at place n * cap / (k + 1).
                n += 1;
                let place = keys::place(n, cap, k)?;
                let key_start = self.keys.len();
                self.keys.try_extend_zeros(key_len)?;
                let (old, new) = self.keys.as_mut_slice().split_at_mut(key_start);
                let (head, tail) = new
                    .split_at_mut_checked(g.prefix_len)
                    .ok_or(Error::OutOfBounds)?;
                head.copy_from_slice(old.get(shared.clone()).ok_or(Error::OutOfBounds)?);
                keys::write_tail(tail, g, m, place)?;
                let value_start = match adopt {
                    Some(offsets) => *offsets.get(i).ok_or(Error::OutOfBounds)?,
                    None => {
                        self.values.try_extend_from_slice(v)?;
                        self.values.len() - v.len()
                    }
                };
                key_span = [small(key_start)?, small(key_len)?];
                let key = self.keys.as_slice().get(key_start..key_start + key_len);
                self.entries.try_push(Entry {
                    value_prefix: prefix(v.iter().copied()),
                    key_prefix: prefix(key.ok_or(Error::OutOfBounds)?.iter().copied()),
                    value_start: small(value_start)?,
                    value_len: small(v.len())?,
                    key_start: key_span[0],
                    key_len: key_span[1],
                })?;
            }
            *spans.get_mut(i).ok_or(Error::OutOfBounds)? = key_span;
        }
        Ok(())
    }
}
