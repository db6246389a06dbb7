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

mod keys;
#[cfg(test)]
mod pinned;
#[cfg(test)]
mod tests;

use super::{Rows, SortOptions};
use crate::buffer::{MutableBuffer, TryVec};
use crate::error::{Error, Result};
use core::cmp::Ordering;

/// One interned value: where its value bytes and key bytes are.
#[derive(Clone, Copy, Debug)]
struct Entry {
    value_start: u32,
    value_len: u32,
    key_start: u32,
    key_len: u32,
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
    values: MutableBuffer<A>,
    /// Keys, back to back (append-only: old keys never move).
    keys: MutableBuffer<A>,
    /// Sorted by value (and so by key).
    entries: TryVec<Entry, A>,
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

impl<A: Allocator> Interner<A> {
    /// An empty interner; allocates nothing yet.
    pub(crate) fn new_in(alloc: A) -> Self
    where
        A: Clone,
    {
        Interner {
            values: MutableBuffer::new_in(alloc.clone()),
            keys: MutableBuffer::new_in(alloc.clone()),
            entries: TryVec::new_in(alloc),
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

    /// Binary search of the entries: `Ok(position)` of the one for which
    /// `cmp` (entry against the wanted one) is equal, else `Err(position)`
    /// where it would go.
    fn search(&self, cmp: impl Fn(&Entry) -> Result<Ordering>) -> Result<Result<usize, usize>> {
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match cmp(self.entries.get(mid).ok_or(Error::InvalidRow)?)? {
                Ordering::Less => lo = mid + 1,
                Ordering::Greater => hi = mid,
                Ordering::Equal => return Ok(Ok(mid)),
            }
        }
        Ok(Err(lo))
    }

    /// The key of an interned value.
    #[cfg(test)]
    pub(crate) fn key_of(&self, value: &[u8]) -> Option<&[u8]> {
        let i = self.search(|e| Ok(self.value(e)?.cmp(value))).ok()?.ok()?;
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
        let found =
            self.search(|e| Ok(self.key(e)?.iter().copied().cmp(key.iter().map(|b| b ^ t))))?;
        found.map(Some).map_err(|_| Error::UnknownDictionaryKey)
    }

    /// Interns every non-null value of `values` (rows of the values'
    /// ascending encoding, whose nulls start with `sentinel`) that is not
    /// interned yet; returns the key of every value in order as
    /// `[start, len]` in [`Self::key_bytes`] (`len` 0: a null value). The
    /// first values interned keep their encodings in `values`' buffer (no
    /// copy).
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
        // Each value's key (`len` 0: null, or not interned yet) and the
        // values not interned yet, with their index.
        let mut spans = TryVec::new_in(alloc.clone());
        spans.try_reserve_exact(n)?;
        let mut fresh = TryVec::new_in(alloc.clone());
        for (i, row) in values.iter().enumerate() {
            let v = row.data();
            let mut span = [0, 0];
            if !is_null_value(v, sentinel) {
                match self.search(|e| Ok(self.value(e)?.cmp(v)))? {
                    Ok(p) => {
                        let e = self.entries.get(p).ok_or(Error::OutOfBounds)?;
                        span = [e.key_start, e.key_len];
                    }
                    Err(_) => fresh.try_push((v, i))?,
                }
            }
            spans.try_push(span)?;
        }
        if fresh.is_empty() {
            return Ok(spans);
        }
        fresh.as_mut_slice().sort_unstable_by(|a, b| a.0.cmp(b.0));
        // Entries point into the batch's buffer, which becomes the
        // interner's, when there are no values yet.
        let adopt = (self.len() == 0).then(|| values.offsets());
        self.merge(fresh.as_slice(), adopt, spans.as_mut_slice(), alloc)?;
        if adopt.is_some() {
            drop(fresh);
            self.values = values.into_data();
        }
        Ok(spans)
    }

    /// Merges the sorted new values `fresh` (value, index in the batch)
    /// into the entries, giving them keys, and writes the `[start, len]`
    /// of each one's key to `spans` (by index). `adopt`: the batch's
    /// offsets, when its buffer will be the interner's values.
    fn merge(
        &mut self,
        fresh: &[(&[u8], usize)],
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
        let mut rest = fresh;
        // Each old entry, after the new values below it; then the values
        // above the last.
        for next in old.iter().map(Some).chain([None]) {
            let below = match next {
                Some(e) => {
                    let v = self.value(e)?;
                    rest.iter().take_while(|f| f.0 < v).count()
                }
                None => rest.len(),
            };
            let (run, tail) = rest.split_at_checked(below).ok_or(Error::OutOfBounds)?;
            rest = tail;
            self.insert_run(run, next.copied(), adopt, spans)?;
            if let Some(&e) = next {
                self.entries.try_push(e)?;
            }
        }
        Ok(())
    }

    /// Gives keys between the last entry and `next` (`None`: unbounded)
    /// to the sorted values `run` (repeats share a key), appending their
    /// entries and writing their keys to `spans` (values as [`Self::merge`]).
    fn insert_run(
        &mut self,
        run: &[(&[u8], usize)],
        next: Option<Entry>,
        adopt: Option<&[usize]>,
        spans: &mut [[u32; 2]],
    ) -> Result<()> {
        if run.is_empty() {
            return Ok(());
        }
        let prev = self.entries.as_slice().last().copied();
        let distinct = 1 + run.windows(2).filter(|w| w[0].0 != w[1].0).count();
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
        let prefix = prefix_start..prefix_start + g.prefix_len;
        let key_len = g.prefix_len + 1 + m as usize;
        self.keys.try_reserve(
            distinct
                .checked_mul(key_len)
                .ok_or(Error::CapacityOverflow)?,
        )?;
        let mut n = 0u128;
        let mut last: Option<&[u8]> = None;
        let mut key_span = [0u32; 2];
        for &(v, i) in run {
            if last != Some(v) {
                last = Some(v);
                // The n-th of k keys at place n * cap / (k + 1).
                n += 1;
                let place = n.checked_mul(cap).ok_or(Error::CapacityOverflow)? / (k + 1);
                let key_start = self.keys.len();
                self.keys.try_extend_zeros(key_len)?;
                let (old, new) = self.keys.as_slice_mut().split_at_mut(key_start);
                let (head, tail) = new
                    .split_at_mut_checked(g.prefix_len)
                    .ok_or(Error::OutOfBounds)?;
                head.copy_from_slice(old.get(prefix.clone()).ok_or(Error::OutOfBounds)?);
                keys::write_tail(tail, g, m, place)?;
                let value_start = match adopt {
                    Some(offsets) => *offsets.get(i).ok_or(Error::OutOfBounds)?,
                    None => {
                        self.values.try_extend_from_slice(v)?;
                        self.values.len() - v.len()
                    }
                };
                key_span = [small(key_start)?, small(key_len)?];
                self.entries.try_push(Entry {
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

/// The rows of a converter of one seed dictionary column, back to back:
/// no path of their own; the caller decodes them row by row.
pub(crate) mod contiguous {
    use allocator_api2::alloc::Allocator;

    use super::Interner;
    use crate::array::ArrayRef;
    use crate::buffer::SharedSlice;
    use crate::error::Result;
    use crate::row::source::Contiguous;
    use crate::row::Node;

    /// Always `Ok(None)`: the caller decodes the rows one by one (through
    /// [`Interner::read`]).
    ///
    /// # Errors
    /// None.
    pub(crate) fn decode_all<'a, A: Allocator>(
        _node: &Node<'a, A>,
        _interner: &Interner<A>,
        _rows: Contiguous<'_>,
        _alloc: &A,
    ) -> Result<Option<SharedSlice<'a, ArrayRef<'a, A>, A>>> {
        Ok(None)
    }
}
