//! Memory: aligned owned buffers, borrowed views, typed views, bitmaps, offsets.
//!
//! Implements "Physical Memory Layout → Buffer Alignment and Padding" of the
//! Arrow columnar format: buffers made here start on 64-byte boundaries and
//! their capacity is padded to a multiple of 64 bytes with zeroes.
//!
//! | type | what |
//! |---|---|
//! | [`SharedSlice`], [`SharedBox`], [`SharedStr`] | borrowed-or-shared immutable memory (the ownership primitive) |
//! | [`MemoryOwner`] | what keeps shared memory alive: an allocation of the core, or a keeper of memory from elsewhere (a C Data Interface producer's) |
//! | [`MutableBuffer`] | growable aligned bytes that builders write into |
//! | [`Buffer`] | immutable bytes, borrowed or shared; zero-copy `slice` |
//! | [`ScalarBuffer`] | a [`Buffer`] known to hold aligned `T`s |
//! | [`BooleanBuffer`], [`NullBuffer`] | bit-packed values and validity bitmaps (LSB bit order) |
//! | [`OffsetBuffer`] | monotonic i32/i64 offsets of variable-size layouts |
//! | [`TryVec`] | a fallible growable vector for bookkeeping |

mod bitmap;
mod mutable;
mod offsets;
mod offsets_builder;
mod scalar;
mod shared;
mod vec;

pub(crate) use bitmap::slice_nulls;
pub use bitmap::{BooleanBuffer, BooleanBufferBuilder, NullBuffer, NullBufferBuilder};
cfg_row_format! {
    pub(crate) use mutable::Appender;
}
pub use mutable::MutableBuffer;
pub use offsets::{check_offsets, OffsetBuffer, OffsetSize};
pub(crate) use offsets_builder::OffsetsBuilder;
pub use scalar::ScalarBuffer;
pub use shared::{MemoryOwner, SharedBox, SharedSlice, SharedStr, ALIGNMENT};
pub use vec::TryVec;

use core::fmt;

use allocator_api2::alloc::Allocator;

use crate::error::{Error, Result};
use crate::native::NativeType;

/// What to do with a borrowed byte region that is not aligned for its element type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Misaligned {
    /// Refuse it with [`Error::Misaligned`].
    Refuse,
    /// Copy it into a new 64-byte aligned allocation.
    Copy,
}

/// Immutable bytes, either borrowed from the caller for `'a` or shared in an
/// allocation from `A` (64-byte aligned, zero padded to 64 bytes).
///
/// Cloning and slicing never copy. Bytes are in native endianness.
///
/// ```
/// use alkaid::buffer::Buffer;
/// use alkaid::Global;
///
/// let owned = Buffer::try_copy_in(&[1, 0, 0, 0, 2, 0, 0, 0], Global)?;
/// assert_eq!(owned.as_ptr() as usize % 64, 0); // 64-byte aligned
/// assert!(owned.is_owned());
/// let tail = owned.slice(4, 4)?; // shares the allocation
/// assert_eq!(tail.as_slice(), &[2, 0, 0, 0]);
/// assert_eq!(tail.as_ptr(), owned.as_ptr().wrapping_add(4));
/// assert_eq!(owned.typed::<u32>()?, &[u32::from_ne_bytes([1, 0, 0, 0]), u32::from_ne_bytes([2, 0, 0, 0])]);
/// assert!(owned.slice(6, 4).is_err()); // Error::OutOfBounds
///
/// // Or a view of caller memory, no allocation.
/// static FLASH: [u8; 3] = [7, 8, 9];
/// let borrowed: Buffer<'static> = Buffer::from_slice_ref(&FLASH);
/// assert!(!borrowed.is_owned());
/// # Ok::<(), alkaid::Error>(())
/// ```
#[derive_where::derive_where(Clone, PartialEq, Eq, Hash)]
pub struct Buffer<
    'a,
    #[cfg(feature = "alloc")] A: Allocator = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator,
>(SharedSlice<'a, u8, A>);

impl<'a, A: Allocator> Buffer<'a, A> {
    /// The empty buffer (no allocation).
    pub const fn empty() -> Self {
        Buffer(SharedSlice::empty())
    }

    /// A view of caller bytes; no allocation, no copy.
    pub const fn from_slice_ref(bytes: &'a [u8]) -> Self {
        Buffer(SharedSlice::borrowed(bytes))
    }

    /// A view of caller values as bytes; no allocation, no copy.
    pub fn from_typed_ref<T: NativeType>(values: &'a [T]) -> Self {
        Buffer(SharedSlice::borrowed(bytemuck::cast_slice(values)))
    }

    pub(crate) fn from_shared(s: SharedSlice<'a, u8, A>) -> Self {
        Buffer(s)
    }

    /// A view of `len` bytes at `ptr` that `owner` keeps alive (memory from
    /// elsewhere, see [`MemoryOwner::try_new_in`]); no copy.
    ///
    /// # Safety
    /// `ptr..ptr + len` must be readable and unchanged for as long as
    /// `owner` (any clone of it) lives; `ptr` may be null only when `len` is 0.
    pub unsafe fn from_owner(
        ptr: *const u8,
        len: usize,
        owner: MemoryOwner<A>,
    ) -> Buffer<'static, A> {
        // SAFETY: the caller's contract; bytes need no alignment.
        Buffer(unsafe { SharedSlice::from_owner(ptr, len, owner) })
    }

    /// The owner keeping the bytes alive (`None` when borrowed).
    pub fn owner(&self) -> Option<&MemoryOwner<A>> {
        self.0.owner()
    }

    /// Copies `bytes` into a new 64-byte aligned, zero-padded allocation from `alloc`.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`], [`Error::CapacityOverflow`].
    pub fn try_copy_in(bytes: &[u8], alloc: A) -> Result<Buffer<'static, A>> {
        let mut m = MutableBuffer::new_in(alloc);
        m.try_reserve_exact(bytes.len())?;
        m.try_extend_from_slice(bytes)?;
        Ok(m.into_buffer())
    }

    /// A view of caller bytes that will be read as elements aligned to `align`
    /// bytes (a power of two). Aligned input is borrowed without a copy;
    /// misaligned input is copied into `alloc` or refused, as `policy` says.
    ///
    /// # Errors
    /// [`Error::Misaligned`] when misaligned and `policy` is [`Misaligned::Refuse`];
    /// [`Error::AllocationFailed`] when the copy cannot be allocated.
    pub fn try_from_region(
        bytes: &'a [u8],
        align: usize,
        policy: Misaligned,
        alloc: A,
    ) -> Result<Self> {
        if align <= 1 || (bytes.as_ptr() as usize) % align == 0 {
            return Ok(Self::from_slice_ref(bytes));
        }
        match policy {
            Misaligned::Refuse => Err(Error::Misaligned),
            Misaligned::Copy => Self::try_copy_in(bytes, alloc),
        }
    }

    /// Length in bytes.
    #[inline]
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// `true` when empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The bytes.
    #[inline]
    pub fn as_slice(&self) -> &[u8] {
        self.0.as_slice()
    }

    /// Address of the first byte (for zero-copy checks).
    pub fn as_ptr(&self) -> *const u8 {
        self.0.as_slice().as_ptr()
    }

    /// `true` when the bytes are kept alive by a [`MemoryOwner`] (an
    /// allocation from `A`, or memory from elsewhere that an owner keeps
    /// alive) rather than borrowing caller memory for `'a`.
    pub fn is_owned(&self) -> bool {
        self.0.is_owned()
    }

    /// `len` bytes from `offset`, sharing the memory.
    ///
    /// # Errors
    /// [`Error::OutOfBounds`] when the range exceeds the buffer.
    pub fn slice(&self, offset: usize, len: usize) -> Result<Self> {
        Ok(Buffer(self.0.slice(offset, len)?))
    }

    /// The bytes as `T`s.
    ///
    /// # Errors
    /// [`Error::Misaligned`] or [`Error::BufferLengthNotMultiple`].
    pub fn typed<T: NativeType>(&self) -> Result<&[T]> {
        if self.is_empty() {
            return Ok(&[]);
        }
        bytemuck::try_cast_slice(self.as_slice()).map_err(|e| match e {
            bytemuck::PodCastError::TargetAlignmentGreaterAndInputNotAligned => Error::Misaligned,
            _ => Error::BufferLengthNotMultiple,
        })
    }
}

impl<A: Allocator> core::ops::Deref for Buffer<'_, A> {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        self.as_slice()
    }
}

impl<A: Allocator> fmt::Debug for Buffer<'_, A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Buffer({:?})", self.as_slice())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Global;

    #[test]
    fn regions_are_borrowed_when_aligned_else_copied_or_refused() {
        let owned = Buffer::try_copy_in(&[1u8, 0, 0, 0, 2, 0, 0, 0, 3], Global).unwrap();
        let aligned = &owned.as_slice()[..8];
        let b = Buffer::try_from_region(aligned, 4, Misaligned::Refuse, Global).unwrap();
        assert!(!b.is_owned());
        assert_eq!(b.as_ptr(), aligned.as_ptr());
        assert_eq!(
            b.typed::<u32>().unwrap(),
            &[
                u32::from_ne_bytes([1, 0, 0, 0]),
                u32::from_ne_bytes([2, 0, 0, 0])
            ]
        );

        let odd = &owned.as_slice()[1..9];
        assert_eq!(
            Buffer::try_from_region(odd, 4, Misaligned::Refuse, Global).unwrap_err(),
            Error::Misaligned
        );
        let copied = Buffer::try_from_region(odd, 4, Misaligned::Copy, Global).unwrap();
        assert!(copied.is_owned());
        assert_eq!(copied.as_ptr() as usize % ALIGNMENT, 0);
        assert_eq!(copied.as_slice(), odd);
        assert_eq!(
            Buffer::try_from_region(odd, 4, Misaligned::Copy, crate::NoAlloc).unwrap_err(),
            Error::AllocationFailed
        );
        // Byte-aligned element types never need a copy.
        assert!(!Buffer::try_from_region(odd, 1, Misaligned::Refuse, Global)
            .unwrap()
            .is_owned());
    }

    #[test]
    fn owned_buffers_are_padded_with_zeros() {
        let mut m = MutableBuffer::new_in(Global);
        m.try_extend_from_slice(&[0xAB; 70]).unwrap();
        assert_eq!(m.capacity(), 128);
        // Growing into the padding writes nothing: what appears is the
        // padding itself, which must be zero; so must bytes given up.
        m.try_extend_zeros(58).unwrap();
        assert!(m.as_slice()[70..].iter().all(|&x| x == 0));
        m.truncate(10);
        m.try_extend_zeros(118).unwrap();
        assert!(m.as_slice()[10..].iter().all(|&x| x == 0));
        let b = m.into_buffer();
        assert_eq!(b.as_ptr() as usize % ALIGNMENT, 0);
        let typed_err = Buffer::try_copy_in(&[0u8; 3], Global).unwrap();
        assert_eq!(
            typed_err.typed::<u16>().unwrap_err(),
            Error::BufferLengthNotMultiple
        );
    }
}
