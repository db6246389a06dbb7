//! Bit-packed booleans: value bitmaps and validity bitmaps.
//!
//! Arrow stores bits least-significant-bit first ("Validity bitmaps": the bit
//! for slot `j` is bit `j % 8` of byte `j / 8`), a `1` meaning valid / true.
//! Views here carry a bit offset, so slicing never copies.

use core::fmt;

use allocator_api2::alloc::Allocator;
use bitvec::order::Lsb0;
use bitvec::slice::BitSlice;

use super::{Buffer, MutableBuffer};
use crate::error::{Error, Result};

/// A view of `len` bits starting at bit `offset` of a [`Buffer`] (LSB order).
///
/// ```
/// use alkaid::buffer::{BooleanBuffer, Buffer};
///
/// // 0b0000_0110: bits 1 and 2 set, least significant bit first.
/// let bits: BooleanBuffer = BooleanBuffer::try_new(Buffer::from_slice_ref(&[0b0000_0110]), 0, 4)?;
/// assert_eq!(bits.iter().collect::<Vec<_>>(), [false, true, true, false]);
/// assert_eq!(bits.count_set_bits(), 2);
/// let s = bits.slice(1, 3)?; // a bit offset, no copy
/// assert_eq!((s.offset(), s.get(0), s.get(3)), (1, Some(true), None));
/// assert!(BooleanBuffer::<alkaid::Global>::try_new(Buffer::from_slice_ref(&[0]), 0, 9).is_err()); // 9 bits > 1 byte
/// # Ok::<(), alkaid::Error>(())
/// ```
#[derive_where::derive_where(Clone)]
pub struct BooleanBuffer<
    'a,
    #[cfg(feature = "alloc")] A: Allocator = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator,
> {
    buffer: Buffer<'a, A>,
    offset: usize,
    len: usize,
}

/// Number of bytes holding `bits` bits.
#[inline]
pub(crate) const fn bytes_for_bits(bits: usize) -> usize {
    bits / 8 + (bits % 8 != 0) as usize
}

impl<'a, A: Allocator> BooleanBuffer<'a, A> {
    /// `len` bits from bit `offset` of `buffer`.
    ///
    /// # Errors
    /// [`Error::BufferTooSmall`] when the buffer holds fewer than `offset + len` bits.
    pub fn try_new(buffer: Buffer<'a, A>, offset: usize, len: usize) -> Result<Self> {
        let end = offset.checked_add(len).ok_or(Error::BufferTooSmall)?;
        if bytes_for_bits(end) > buffer.len() {
            return Err(Error::BufferTooSmall);
        }
        Ok(BooleanBuffer {
            buffer,
            offset,
            len,
        })
    }

    /// An empty bitmap.
    pub const fn empty() -> Self {
        BooleanBuffer {
            buffer: Buffer::empty(),
            offset: 0,
            len: 0,
        }
    }

    /// Number of bits.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// `true` when there are no bits.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bit offset into [`Self::inner`].
    #[inline]
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The underlying bytes (bit `offset` of these is bit 0 of this view).
    #[inline]
    pub fn inner(&self) -> &Buffer<'a, A> {
        &self.buffer
    }

    /// Bit `i`, or `None` when `i >= len`.
    #[inline]
    pub fn get(&self, i: usize) -> Option<bool> {
        if i >= self.len {
            return None;
        }
        let j = self.offset + i;
        self.buffer
            .as_slice()
            .get(j / 8)
            .map(|b| b & (1 << (j % 8)) != 0)
    }

    /// Bit `i`; `false` when `i >= len`.
    #[inline]
    pub fn value(&self, i: usize) -> bool {
        self.get(i).unwrap_or(false)
    }

    /// The bits as a `bitvec` slice, for callers who work with `bitvec`.
    /// (The core itself does not use it: `bitvec` 1.x does not pass Miri.)
    pub fn as_bitslice(&self) -> &BitSlice<u8, Lsb0> {
        let bits = BitSlice::<u8, Lsb0>::from_slice(self.buffer.as_slice());
        // `try_new` / `slice` keep `offset + len` within the buffer's bits.
        bits.get(self.offset..self.offset + self.len)
            .unwrap_or(BitSlice::empty())
    }

    /// Number of `1` bits (word-at-a-time population count).
    pub fn count_set_bits(&self) -> usize {
        count_ones(self.buffer.as_slice(), self.offset, self.offset + self.len)
    }

    /// Iterates the bits.
    pub fn iter(&self) -> impl Iterator<Item = bool> + '_ {
        (0..self.len).map(move |i| self.value(i))
    }

    /// `len` bits from bit `offset`, sharing the memory.
    ///
    /// # Errors
    /// [`Error::OutOfBounds`] when the range exceeds this view.
    pub fn slice(&self, offset: usize, len: usize) -> Result<Self> {
        let end = offset.checked_add(len).ok_or(Error::OutOfBounds)?;
        if end > self.len {
            return Err(Error::OutOfBounds);
        }
        Ok(BooleanBuffer {
            buffer: self.buffer.clone(),
            offset: self.offset + offset,
            len,
        })
    }
}

impl<A: Allocator> PartialEq for BooleanBuffer<'_, A> {
    fn eq(&self, other: &Self) -> bool {
        self.as_bitslice() == other.as_bitslice()
    }
}

impl<A: Allocator> fmt::Debug for BooleanBuffer<'_, A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.iter().map(|b| b as u8))
            .finish()
    }
}

/// A validity bitmap: a [`BooleanBuffer`] where `1` means valid, with its
/// null count (number of `0` bits) computed once.
///
/// ```
/// use alkaid::buffer::{BooleanBuffer, Buffer, NullBuffer};
///
/// // Slots 0, 2 and 3 valid, slot 1 null.
/// let bits: BooleanBuffer = BooleanBuffer::try_new(Buffer::from_slice_ref(&[0b1101]), 0, 4)?;
/// let validity = NullBuffer::new(bits);
/// assert_eq!((validity.len(), validity.null_count()), (4, 1));
/// assert!(validity.is_null(1) && validity.is_valid(2));
/// assert_eq!(validity.slice(2, 2)?.null_count(), 0);
/// assert_eq!(validity.slice(0, 4)?.null_count(), 1);
/// assert_eq!(validity.slice(0, 2)?.null_count(), 1);
/// # Ok::<(), alkaid::Error>(())
/// ```
#[derive_where::derive_where(Clone)]
pub struct NullBuffer<
    'a,
    #[cfg(feature = "alloc")] A: Allocator = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator,
> {
    bits: BooleanBuffer<'a, A>,
    null_count: usize,
}

impl<'a, A: Allocator> NullBuffer<'a, A> {
    /// Wraps a bitmap, counting its nulls (O(n)).
    pub fn new(bits: BooleanBuffer<'a, A>) -> Self {
        let null_count = bits.len() - bits.count_set_bits();
        NullBuffer { bits, null_count }
    }

    /// Wraps a bitmap with a null count the caller vouches for.
    ///
    /// # Safety
    /// `null_count` must equal the number of `0` bits of `bits`; code relies on
    /// it to skip the bitmap when it is zero.
    pub unsafe fn new_unchecked(bits: BooleanBuffer<'a, A>, null_count: usize) -> Self {
        NullBuffer { bits, null_count }
    }

    /// Wraps a bitmap with a declared null count, checking it.
    ///
    /// # Errors
    /// [`Error::NullCountMismatch`] when the count is wrong.
    pub fn try_new_with_count(bits: BooleanBuffer<'a, A>, null_count: usize) -> Result<Self> {
        let n = Self::new(bits);
        if n.null_count != null_count {
            return Err(Error::NullCountMismatch);
        }
        Ok(n)
    }

    /// Number of slots.
    #[inline]
    pub fn len(&self) -> usize {
        self.bits.len()
    }

    /// `true` when there are no slots.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.bits.is_empty()
    }

    /// Number of null slots.
    #[inline]
    pub fn null_count(&self) -> usize {
        self.null_count
    }

    /// `true` when slot `i` is valid; `false` when null or out of range.
    #[inline]
    pub fn is_valid(&self, i: usize) -> bool {
        self.bits.value(i)
    }

    /// `true` when slot `i` is null (or out of range).
    #[inline]
    pub fn is_null(&self, i: usize) -> bool {
        !self.is_valid(i)
    }

    /// The bits.
    #[inline]
    pub fn inner(&self) -> &BooleanBuffer<'a, A> {
        &self.bits
    }

    /// `len` slots from slot `offset`, recounting nulls (unless the slice
    /// is the whole bitmap).
    ///
    /// # Errors
    /// [`Error::OutOfBounds`] when the range exceeds this bitmap.
    pub fn slice(&self, offset: usize, len: usize) -> Result<Self> {
        let bits = self.bits.slice(offset, len)?;
        // The whole bitmap keeps its count (no pass over the bits).
        Ok(
            if self.null_count == 0 || (offset == 0 && len == self.bits.len()) {
                NullBuffer {
                    bits,
                    null_count: self.null_count,
                }
            } else {
                Self::new(bits)
            },
        )
    }
}

/// `len` slots from slot `offset` of an optional validity bitmap (no bitmap
/// stays no bitmap): what every array's `slice` does with its nulls.
///
/// # Errors
/// [`Error::OutOfBounds`] when the range exceeds the bitmap.
pub(crate) fn slice_nulls<'a, A: Allocator>(
    nulls: Option<&NullBuffer<'a, A>>,
    offset: usize,
    len: usize,
) -> Result<Option<NullBuffer<'a, A>>> {
    nulls.map(|n| n.slice(offset, len)).transpose()
}

impl<A: Allocator> PartialEq for NullBuffer<'_, A> {
    fn eq(&self, other: &Self) -> bool {
        self.bits == other.bits
    }
}

impl<A: Allocator> fmt::Debug for NullBuffer<'_, A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NullBuffer")
            .field("null_count", &self.null_count)
            .field("bits", &self.bits)
            .finish()
    }
}

/// Number of set bits in bit range `start..end` (LSB order) of `bytes`;
/// bits beyond `bytes` count as zero.
pub(crate) fn count_ones(bytes: &[u8], start: usize, end: usize) -> usize {
    let mut n = 0usize;
    let mut i = start;
    while i < end && i % 8 != 0 {
        n += bytes
            .get(i / 8)
            .map_or(0, |b| ((b >> (i % 8)) & 1) as usize);
        i += 1;
    }
    let whole_end = i + (end - i) / 8 * 8;
    if let Some(whole) = bytes.get(i / 8..whole_end / 8) {
        let mut chunks = whole.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            n += u64::from_ne_bytes(w).count_ones() as usize;
        }
        n += chunks
            .remainder()
            .iter()
            .map(|b| b.count_ones() as usize)
            .sum::<usize>();
    }
    i = whole_end;
    while i < end {
        n += bytes
            .get(i / 8)
            .map_or(0, |b| ((b >> (i % 8)) & 1) as usize);
        i += 1;
    }
    n
}

/// Sets bits `start..end` (LSB order) of `bytes`; bits beyond `bytes` are ignored.
fn set_bits(bytes: &mut [u8], start: usize, end: usize) {
    let mut i = start;
    // Leading partial byte, whole bytes, trailing partial byte.
    while i < end && i % 8 != 0 {
        if let Some(b) = bytes.get_mut(i / 8) {
            *b |= 1 << (i % 8);
        }
        i += 1;
    }
    let whole_end = i + (end - i) / 8 * 8;
    if let Some(r) = bytes.get_mut(i / 8..whole_end / 8) {
        r.fill(0xFF);
    }
    i = whole_end;
    while i < end {
        if let Some(b) = bytes.get_mut(i / 8) {
            *b |= 1 << (i % 8);
        }
        i += 1;
    }
}

/// Builds a bit-packed [`BooleanBuffer`] one bit at a time, in memory from `A`.
///
/// ```
/// use alkaid::buffer::BooleanBufferBuilder;
/// use alkaid::Global;
///
/// let mut b = BooleanBufferBuilder::new_in(Global);
/// b.try_append_slice(&[true, false, true])?;
/// b.try_append_n(6, true)?;
/// let bits = b.finish();
/// assert_eq!((bits.len(), bits.count_set_bits()), (9, 8));
/// assert_eq!(&bits.inner().as_slice()[..2], &[0b1111_1101, 0b1]); // LSB first
/// # Ok::<(), alkaid::Error>(())
/// ```
#[derive(Debug)]
pub struct BooleanBufferBuilder<
    #[cfg(feature = "alloc")] A: Allocator = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator,
> {
    buffer: MutableBuffer<A>,
    len: usize,
}

impl<A: Allocator> BooleanBufferBuilder<A> {
    /// An empty builder; allocates nothing until the first bit.
    pub const fn new_in(alloc: A) -> Self {
        BooleanBufferBuilder {
            buffer: MutableBuffer::new_in(alloc),
            len: 0,
        }
    }

    /// Number of bits appended.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// `true` when no bit was appended.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Makes room for `additional` more bits.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`], [`Error::CapacityOverflow`].
    pub fn try_reserve(&mut self, additional: usize) -> Result<()> {
        let bits = self
            .len
            .checked_add(additional)
            .ok_or(Error::CapacityOverflow)?;
        let need = bytes_for_bits(bits);
        self.buffer
            .try_reserve(need.saturating_sub(self.buffer.len()))
    }

    /// Appends one bit.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`], [`Error::CapacityOverflow`].
    #[inline]
    pub fn try_append(&mut self, v: bool) -> Result<()> {
        if self.len % 8 == 0 {
            self.buffer.try_push(0u8)?;
        }
        if v {
            let i = self.len;
            if let Some(b) = self.buffer.as_slice_mut().get_mut(i / 8) {
                *b |= 1 << (i % 8);
            }
        }
        self.len += 1;
        Ok(())
    }

    /// Appends `n` copies of `v`.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`], [`Error::CapacityOverflow`].
    pub fn try_append_n(&mut self, n: usize, v: bool) -> Result<()> {
        let new_len = self.len.checked_add(n).ok_or(Error::CapacityOverflow)?;
        let new_bytes = bytes_for_bits(new_len);
        self.buffer
            .try_extend_zeros(new_bytes - self.buffer.len())?;
        if v {
            set_bits(self.buffer.as_slice_mut(), self.len, new_len);
        }
        self.len = new_len;
        Ok(())
    }

    /// Appends the bits of `values`.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`], [`Error::CapacityOverflow`].
    pub fn try_append_slice(&mut self, values: &[bool]) -> Result<()> {
        self.try_reserve(values.len())?;
        for &v in values {
            self.try_append(v)?;
        }
        Ok(())
    }

    /// Bit `i` so far, or `None` when `i >= len`.
    pub fn get(&self, i: usize) -> Option<bool> {
        if i >= self.len {
            return None;
        }
        self.buffer
            .as_slice()
            .get(i / 8)
            .map(|b| b & (1 << (i % 8)) != 0)
    }

    /// Forgets every bit, keeping the capacity.
    pub fn clear(&mut self) {
        self.buffer.clear();
        self.len = 0;
    }

    /// The allocator.
    pub fn allocator(&self) -> &A {
        self.buffer.allocator()
    }

    /// Freezes the bits into a [`BooleanBuffer`] (no copy).
    pub fn finish(self) -> BooleanBuffer<'static, A> {
        BooleanBuffer {
            len: self.len,
            offset: 0,
            buffer: self.buffer.into_buffer(),
        }
    }
}

/// Builds an optional validity bitmap: no memory is allocated until the first
/// null is appended, and [`NullBufferBuilder::finish`] returns `None` when
/// there was none (the Arrow format lets an array without nulls omit its bitmap).
///
/// ```
/// use alkaid::buffer::NullBufferBuilder;
/// use alkaid::Global;
///
/// let mut all_valid = NullBufferBuilder::new_in(Global);
/// all_valid.try_append_n_non_nulls(100)?;
/// assert!(all_valid.finish().is_none()); // no bitmap needed
///
/// let mut some_null = NullBufferBuilder::new_in(Global);
/// some_null.try_append_n_non_nulls(3)?;
/// some_null.try_append_null()?;
/// let validity = some_null.finish().expect("one null");
/// assert_eq!((validity.len(), validity.null_count()), (4, 1));
/// # Ok::<(), alkaid::Error>(())
/// ```
#[derive(Debug)]
pub struct NullBufferBuilder<
    #[cfg(feature = "alloc")] A: Allocator + Clone = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator + Clone,
> {
    bits: Option<BooleanBufferBuilder<A>>,
    len: usize,
    alloc: A,
}

impl<A: Allocator + Clone> NullBufferBuilder<A> {
    /// An empty builder.
    pub const fn new_in(alloc: A) -> Self {
        NullBufferBuilder {
            bits: None,
            len: 0,
            alloc,
        }
    }

    /// Number of slots appended.
    #[inline]
    pub fn len(&self) -> usize {
        match &self.bits {
            Some(b) => b.len(),
            None => self.len,
        }
    }

    /// `true` when no slot was appended.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn materialize(&mut self) -> Result<&mut BooleanBufferBuilder<A>> {
        if self.bits.is_none() {
            let mut b = BooleanBufferBuilder::new_in(self.alloc.clone());
            b.try_append_n(self.len, true)?;
            self.bits = Some(b);
        }
        self.bits.as_mut().ok_or(Error::InvalidBuilderState)
    }

    /// Appends one valid slot.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`] once a bitmap exists and cannot grow.
    #[inline]
    pub fn try_append_non_null(&mut self) -> Result<()> {
        match &mut self.bits {
            Some(b) => b.try_append(true),
            None => {
                self.len += 1;
                Ok(())
            }
        }
    }

    /// Appends `n` valid slots.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`] once a bitmap exists and cannot grow.
    pub fn try_append_n_non_nulls(&mut self, n: usize) -> Result<()> {
        match &mut self.bits {
            Some(b) => b.try_append_n(n, true),
            None => {
                self.len = self.len.checked_add(n).ok_or(Error::CapacityOverflow)?;
                Ok(())
            }
        }
    }

    /// Appends one null slot (allocating the bitmap on the first one).
    ///
    /// # Errors
    /// [`Error::AllocationFailed`], [`Error::CapacityOverflow`].
    pub fn try_append_null(&mut self) -> Result<()> {
        self.materialize()?.try_append(false)
    }

    /// Appends `n` null slots.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`], [`Error::CapacityOverflow`].
    pub fn try_append_n_nulls(&mut self, n: usize) -> Result<()> {
        if n == 0 {
            return Ok(());
        }
        self.materialize()?.try_append_n(n, false)
    }

    /// Appends a valid (`true`) or null (`false`) slot.
    ///
    /// # Errors
    /// As [`Self::try_append_null`].
    #[inline]
    pub fn try_append(&mut self, valid: bool) -> Result<()> {
        if valid {
            self.try_append_non_null()
        } else {
            self.try_append_null()
        }
    }

    /// Whether slot `i` is valid so far (`None` when `i >= len`).
    pub fn is_valid(&self, i: usize) -> Option<bool> {
        match &self.bits {
            Some(b) => b.get(i),
            None => (i < self.len).then_some(true),
        }
    }

    /// The allocator.
    pub fn allocator(&self) -> &A {
        &self.alloc
    }

    /// The bitmap, or `None` when every slot is valid.
    pub fn finish(self) -> Option<NullBuffer<'static, A>> {
        self.bits.map(|b| NullBuffer::new(b.finish()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Global;

    #[test]
    fn lsb_bit_order_and_slicing() {
        let mut b = BooleanBufferBuilder::new_in(Global);
        for v in [true, false, true, true, false, false, false, false, true] {
            b.try_append(v).unwrap();
        }
        let bits = b.finish();
        assert_eq!(bits.inner().as_slice(), &[0b0000_1101, 0b0000_0001]);
        assert_eq!(bits.count_set_bits(), 4);
        let s = bits.slice(2, 7).unwrap();
        assert_eq!(s.count_set_bits(), 3);
        assert_eq!(s.get(0), Some(true));
        assert_eq!(s.get(7), None);
        assert!(bits.slice(5, 5).is_err());
    }

    #[test]
    fn null_builder_allocates_only_on_first_null() {
        let mut n = NullBufferBuilder::new_in(Global);
        n.try_append_n_non_nulls(10).unwrap();
        assert!(n.bits.is_none());
        n.try_append_null().unwrap();
        n.try_append_non_null().unwrap();
        let nb = n.finish().unwrap();
        assert_eq!(nb.len(), 12);
        assert_eq!(nb.null_count(), 1);
        assert!(nb.is_null(10));
        assert!(nb.is_valid(11));
        assert_eq!(nb.inner().inner().as_slice(), &[0xFF, 0b0000_1011]);
    }

    #[test]
    fn count_ones_matches_naive_at_every_offset() {
        let bytes: [u8; 21] = core::array::from_fn(|i| (i as u8).wrapping_mul(37) ^ 0x5A);
        let (starts, ends) = if cfg!(miri) {
            (0..9, 80)
        } else {
            (0..40, bytes.len() * 8)
        };
        for start in starts {
            for end in start..ends {
                let naive = (start..end)
                    .filter(|&i| bytes[i / 8] & (1 << (i % 8)) != 0)
                    .count();
                assert_eq!(count_ones(&bytes, start, end), naive, "{start}..{end}");
            }
        }
    }

    #[test]
    #[cfg_attr(miri, ignore = "bitvec 1.x is not Stacked-Borrows clean")]
    fn bitslice_view() {
        let mut b = BooleanBufferBuilder::new_in(Global);
        b.try_append_slice(&[true, false, true]).unwrap();
        let bits = b.finish();
        assert_eq!(bits.slice(1, 2).unwrap().as_bitslice().count_ones(), 1);
    }

    #[test]
    fn append_n_bits() {
        let mut b = BooleanBufferBuilder::new_in(Global);
        b.try_append(false).unwrap();
        b.try_append_n(10, true).unwrap();
        b.try_append_n(3, false).unwrap();
        let bits = b.finish();
        assert_eq!(bits.len(), 14);
        assert_eq!(bits.inner().as_slice(), &[0b1111_1110, 0b0000_0111]);
    }
}
