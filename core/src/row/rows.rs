//! [`Rows`] (many encoded rows in one buffer) and [`Row`] (one of them).

use core::fmt;

use allocator_api2::alloc::Allocator;

use super::provenance::Provenance;
use crate::buffer::TryVec;
use crate::error::{Error, Result};

/// Encoded rows: one contiguous byte vector and `len + 1` offsets (in bytes,
/// native `usize`s), both in memory from `A`. The bytes are no Arrow buffer:
/// they take the natural alignment of bytes (a plain allocation, no
/// 64-byte alignment). Row `i` is
/// `buffer[offsets[i]..offsets[i + 1]]`.
///
/// Made by [`super::RowConverter::convert_columns`] and grown by
/// [`super::RowConverter::append`]. Rows compare with `memcmp`: sorting
/// [`Row`]s sorts the original columns as the converter's
/// [`super::SortOptions`] say.
///
/// ```
/// use alkaid::array::{Array, UInt32Array};
/// use alkaid::datatypes::DataType;
/// use alkaid::row::{RowConverter, SortField};
///
/// let mut converter = RowConverter::try_new(&[SortField::new(DataType::UInt32)])?;
/// let rows = converter.convert_columns(&[UInt32Array::from(vec![Some(258), None]).into_array_ref()])?;
/// // A valid u32: 0x01, then big-endian bytes. A null: 0x00 and zeros.
/// assert_eq!(rows.data(), &[1, 0, 0, 1, 2, 0, 0, 0, 0, 0]);
/// assert_eq!(rows.offsets(), &[0, 5, 10]);
/// assert!(rows.row(1) < rows.row(0)); // nulls first
/// # Ok::<(), alkaid::Error>(())
/// ```
pub struct Rows<
    #[cfg(feature = "alloc")] A: Allocator = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator,
> {
    buffer: TryVec<u8, A>,
    /// `len + 1` offsets once a row was added; empty before (zero rows).
    offsets: TryVec<usize, A>,
    /// The fields whose encoder wrote every byte, when known: set only by
    /// [`super::RowConverter::append`] after it encoded a batch, cleared
    /// by every other way in which bytes or offsets change.
    written_by: Option<Provenance>,
}

impl<A: Allocator> Rows<A> {
    /// No rows; allocates nothing.
    pub fn new_in(alloc: A) -> Self
    where
        A: Clone,
    {
        Rows {
            buffer: TryVec::new_in(alloc.clone()),
            offsets: TryVec::new_in(alloc),
            written_by: None,
        }
    }

    /// No rows, with room for `rows` rows of `bytes` bytes in total.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`], [`Error::CapacityOverflow`].
    pub fn try_with_capacity_in(rows: usize, bytes: usize, alloc: A) -> Result<Self>
    where
        A: Clone,
    {
        let mut r = Self::new_in(alloc);
        r.buffer.try_reserve_exact(bytes)?;
        let n = rows.checked_add(1).ok_or(Error::CapacityOverflow)?;
        r.offsets.try_reserve_exact(n)?;
        Ok(r)
    }

    /// Number of rows.
    #[inline]
    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// `true` when there are no rows.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The `len + 1` offsets (bytes into [`Self::data`]); empty when there are no rows.
    #[inline]
    pub fn offsets(&self) -> &[usize] {
        self.offsets.as_slice()
    }

    /// All row bytes, back to back.
    #[inline]
    pub fn data(&self) -> &[u8] {
        self.buffer.as_slice()
    }

    /// Total size of the row bytes (without the offsets).
    pub fn size(&self) -> usize {
        self.buffer.len()
    }

    /// Row `i`, or `None` when `i >= len`.
    #[inline]
    pub fn row(&self, i: usize) -> Option<Row<'_>> {
        let o = self.offsets();
        let start = *o.get(i)?;
        let end = *o.get(i.checked_add(1)?)?;
        Some(Row {
            data: self.buffer.as_slice().get(start..end)?,
        })
    }

    /// Iterates the rows in order.
    pub fn iter(&self) -> RowsIter<'_, A> {
        RowsIter {
            windows: self.offsets().windows(2),
            data: self.data(),
            _rows: core::marker::PhantomData,
        }
    }

    /// Removes every row, keeping the memory.
    pub fn clear(&mut self) {
        self.buffer.clear();
        self.offsets.clear();
        self.written_by = None;
    }

    /// Copies one row (of any `Rows` made by the same converter) to the end.
    ///
    /// The row may hold any bytes: from then on these rows are checked in
    /// full when decoded (UTF-8 included).
    ///
    /// # Errors
    /// [`Error::AllocationFailed`], [`Error::CapacityOverflow`].
    pub fn try_push(&mut self, row: Row<'_>) -> Result<()> {
        self.written_by = None;
        let (buffer_len, offsets_len) = (self.buffer.len(), self.offsets.len());
        let r = self.try_push_inner(row.data);
        if r.is_err() {
            self.buffer.truncate(buffer_len);
            self.offsets.truncate(offsets_len);
        }
        r
    }

    fn try_push_inner(&mut self, bytes: &[u8]) -> Result<()> {
        if self.offsets.is_empty() {
            self.offsets.try_push(0)?;
        }
        self.buffer.try_extend_from_slice(bytes)?;
        self.offsets.try_push(self.buffer.len())
    }

    /// The rows' bytes, back to back (row `i` at `offsets()[i]..offsets()[i + 1]`).
    pub(crate) fn into_data(self) -> TryVec<u8, A> {
        self.buffer
    }

    /// Total length of rows `start..end` (0 when the range is empty).
    ///
    /// # Errors
    /// [`Error::OutOfBounds`] when the range exceeds the rows.
    #[inline]
    pub(crate) fn span(&self, start: usize, end: usize) -> Result<usize> {
        if start == end {
            return Ok(0);
        }
        let o = self.offsets();
        match (o.get(start), o.get(end)) {
            (Some(&a), Some(&b)) if a <= b => Ok(b - a),
            _ => Err(Error::OutOfBounds),
        }
    }

    /// The bytes of rows `start..end`, back to back.
    ///
    /// # Errors
    /// [`Error::OutOfBounds`] when the range exceeds the rows.
    #[inline]
    pub(crate) fn span_bytes(&self, start: usize, end: usize) -> Result<&[u8]> {
        if start == end {
            return Ok(&[]);
        }
        let o = self.offsets();
        match (o.get(start), o.get(end)) {
            (Some(&a), Some(&b)) => self.buffer.as_slice().get(a..b).ok_or(Error::OutOfBounds),
            _ => Err(Error::OutOfBounds),
        }
    }

    /// Adds `n` rows whose lengths the caller will write: returns the new
    /// offsets (`n` of them, zeroed) to be filled with lengths.
    pub(crate) fn try_grow_offsets(&mut self, n: usize) -> Result<()> {
        self.try_extend_offsets_with(n, || 0)
    }

    /// Adds `n` rows whose offsets (or, for the caller to turn into
    /// offsets, lengths) are the next `n` values of `next`, written once
    /// (no zeroing first).
    ///
    /// # Errors
    /// [`Error::AllocationFailed`], [`Error::CapacityOverflow`].
    pub(crate) fn try_extend_offsets_with(
        &mut self,
        n: usize,
        mut next: impl FnMut() -> usize,
    ) -> Result<()> {
        self.written_by = None;
        if self.offsets.is_empty() {
            // The leading zero and the new offsets in one allocation.
            let k = n.checked_add(1).ok_or(Error::CapacityOverflow)?;
            self.offsets.try_reserve_exact(k)?;
            self.offsets.try_push(0)?;
        }
        self.offsets.try_extend_from_fn(n, move |_| next())
    }

    /// The byte buffer and the offsets together, mutably.
    pub(crate) fn parts_mut(&mut self) -> (&mut TryVec<u8, A>, &mut [usize]) {
        self.written_by = None;
        (&mut self.buffer, self.offsets.as_mut_slice())
    }

    /// The fields whose encoder wrote every byte of these rows, when known.
    #[inline]
    pub(crate) fn written_by(&self) -> Option<Provenance> {
        self.written_by
    }

    /// `true` when the rows hold no row and no byte.
    fn is_blank(&self) -> bool {
        self.offsets.is_empty() && self.buffer.is_empty()
    }

    /// Byte length, offset count and provenance, to roll back a failed
    /// append or to record a successful one ([`Self::appended`]).
    pub(crate) fn mark(&self) -> RowsMark {
        RowsMark {
            bytes: self.buffer.len(),
            offsets: self.offsets.len(),
            written_by: self.written_by,
            blank: self.is_blank(),
        }
    }

    /// Rolls back to a [`Self::mark`] (its provenance too).
    pub(crate) fn reset(&mut self, mark: RowsMark) {
        self.buffer.truncate(mark.bytes);
        self.offsets.truncate(mark.offsets);
        self.written_by = mark.written_by;
    }

    /// Records that an encoder of `by` wrote every byte added since `mark`:
    /// the rows keep (or, when they were blank, take) provenance `by` when
    /// every earlier byte was also written by it, and have none otherwise.
    /// The encoder's own writes cleared it ([`Self::parts_mut`]); this is
    /// the only place that sets it.
    pub(crate) fn appended(&mut self, mark: RowsMark, by: Option<Provenance>) {
        let before = if mark.blank { by } else { mark.written_by };
        self.written_by = if before == by { by } else { None };
    }
}

/// A [`Rows`]' state before an append (see [`Rows::mark`]).
#[derive(Clone, Copy)]
pub(crate) struct RowsMark {
    bytes: usize,
    offsets: usize,
    written_by: Option<Provenance>,
    /// No row and no byte.
    blank: bool,
}

impl<A: Allocator> fmt::Debug for Rows<A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'r, A: Allocator> IntoIterator for &'r Rows<A> {
    type Item = Row<'r>;
    type IntoIter = RowsIter<'r, A>;
    fn into_iter(self) -> RowsIter<'r, A> {
        self.iter()
    }
}

/// Iterator over the rows of a [`Rows`] (exact size, double-ended).
#[derive(Debug)]
pub struct RowsIter<
    'r,
    #[cfg(feature = "alloc")] A: Allocator = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator,
> {
    /// The offsets of the rows still to come, as pairs (taken once, not per row).
    windows: core::slice::Windows<'r, usize>,
    data: &'r [u8],
    _rows: core::marker::PhantomData<&'r Rows<A>>,
}

impl<'r, A: Allocator> RowsIter<'r, A> {
    #[inline]
    fn row(&self, w: &[usize]) -> Option<Row<'r>> {
        match *w {
            [start, end] => Some(Row {
                data: self.data.get(start..end)?,
            }),
            _ => None,
        }
    }
}

impl<'r, A: Allocator> Iterator for RowsIter<'r, A> {
    type Item = Row<'r>;

    #[inline]
    fn next(&mut self) -> Option<Row<'r>> {
        let w = self.windows.next()?;
        self.row(w)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.windows.size_hint()
    }
}

impl<A: Allocator> ExactSizeIterator for RowsIter<'_, A> {}

impl<A: Allocator> DoubleEndedIterator for RowsIter<'_, A> {
    fn next_back(&mut self) -> Option<Self::Item> {
        let w = self.windows.next_back()?;
        self.row(w)
    }
}

/// One encoded row: bytes that compare (`Ord`, `memcmp`), hash and test for
/// equality exactly as the original values do under the converter's
/// [`super::SortOptions`] (see the module documentation for the encoding).
///
/// A `Row` may also wrap bytes from elsewhere (stored, sent over a network):
/// [`super::RowConverter::convert_rows`] validates them and returns
/// [`Error::InvalidRow`] rather than panicking on malformed input.
///
/// ```
/// use alkaid::array::{Array, Int32Array};
/// use alkaid::datatypes::DataType;
/// use alkaid::row::{Row, RowConverter, SortField};
///
/// let converter = RowConverter::try_new(&[SortField::new(DataType::Int32)])?;
/// // i32 -5: 0x01, then the sign bit flipped and big-endian bytes.
/// let stored: &[u8] = &[0x01, 0x7f, 0xff, 0xff, 0xfb];
/// let columns = converter.convert_rows([Row::new(stored)])?;
/// assert_eq!(columns[0], Int32Array::from(vec![-5]).into_array_ref());
/// assert!(converter.convert_rows([Row::new(&stored[..3])]).is_err()); // Error::InvalidRow
/// # Ok::<(), alkaid::Error>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Row<'r> {
    data: &'r [u8],
}

impl<'r> Row<'r> {
    /// Wraps encoded row bytes (checked only when decoded).
    pub const fn new(data: &'r [u8]) -> Self {
        Row { data }
    }

    /// The encoded bytes.
    pub const fn data(&self) -> &'r [u8] {
        self.data
    }
}

impl AsRef<[u8]> for Row<'_> {
    fn as_ref(&self) -> &[u8] {
        self.data
    }
}

impl fmt::Debug for Row<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Row({:02x?})", self.data)
    }
}
