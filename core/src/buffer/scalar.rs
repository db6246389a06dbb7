//! [`ScalarBuffer`]: a [`Buffer`] known to hold aligned values of one native type.

use core::fmt;
use core::marker::PhantomData;
use core::mem::size_of;

use allocator_api2::alloc::Allocator;

use super::{Buffer, MutableBuffer};
use crate::error::{Error, Result};
use crate::native::NativeType;

/// Immutable `T` values (native endianness), borrowed or shared like [`Buffer`].
///
/// Invariant: the bytes are aligned for `T` and their length is a multiple of
/// `size_of::<T>()`, so [`ScalarBuffer::as_slice`] cannot fail. Lengths and
/// offsets of this type are in elements, not bytes.
///
/// ```
/// use alkaid::buffer::{Buffer, ScalarBuffer};
/// use alkaid::Global;
///
/// let s = ScalarBuffer::try_copy_in(&[10i64, 20, 30], Global)?;
/// assert_eq!((s.len(), s.inner().len()), (3, 24)); // elements vs bytes
/// assert_eq!(s.slice(1, 2)?.as_slice(), &[20, 30]);
///
/// // From bytes: the length must be a whole number of elements.
/// let bytes = Buffer::try_copy_in(&[0u8; 12], Global)?;
/// assert!(ScalarBuffer::<i64>::try_from_buffer(bytes.clone()).is_err()); // Error::BufferLengthNotMultiple
/// assert_eq!(ScalarBuffer::<i32>::try_from_buffer(bytes)?.as_slice(), &[0, 0, 0]);
/// # Ok::<(), alkaid::Error>(())
/// ```
pub struct ScalarBuffer<
    'a,
    T: NativeType,
    #[cfg(feature = "alloc")] A: Allocator = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator,
> {
    buffer: Buffer<'a, A>,
    _t: PhantomData<T>,
}

impl<'a, T: NativeType, A: Allocator> ScalarBuffer<'a, T, A> {
    /// The empty buffer.
    pub const fn empty() -> Self {
        ScalarBuffer {
            buffer: Buffer::empty(),
            _t: PhantomData,
        }
    }

    /// A view of caller values; no allocation, no copy.
    pub fn from_slice_ref(values: &'a [T]) -> Self {
        ScalarBuffer {
            buffer: Buffer::from_typed_ref(values),
            _t: PhantomData,
        }
    }

    /// Reinterprets a byte buffer as `T`s.
    ///
    /// # Errors
    /// [`Error::Misaligned`] when the bytes are not aligned for `T`;
    /// [`Error::BufferLengthNotMultiple`] when the length is not a multiple of its size.
    pub fn try_from_buffer(buffer: Buffer<'a, A>) -> Result<Self> {
        // An empty buffer may sit at any address (e.g. `&[]` of bytes); it is
        // read as the empty slice, so only non-empty ones must be aligned.
        if !buffer.is_empty() {
            buffer.typed::<T>()?;
        }
        Ok(ScalarBuffer {
            buffer,
            _t: PhantomData,
        })
    }

    /// Copies `values` into a new aligned allocation from `alloc`.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`], [`Error::CapacityOverflow`].
    pub fn try_copy_in(values: &[T], alloc: A) -> Result<ScalarBuffer<'static, T, A>> {
        let mut m = MutableBuffer::new_in(alloc);
        m.try_reserve_exact(core::mem::size_of_val(values))?;
        m.try_extend_from_typed(values)?;
        ScalarBuffer::try_from_buffer(m.into_buffer())
    }

    /// Number of elements.
    #[inline]
    pub fn len(&self) -> usize {
        // Zero-sized native types do not exist (every `NativeType` has a size).
        self.buffer.len() / size_of::<T>()
    }

    /// `true` when there are no elements.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.buffer.is_empty()
    }

    /// The values.
    #[inline]
    pub fn as_slice(&self) -> &[T] {
        if self.buffer.is_empty() {
            return &[];
        }
        // SAFETY: invariant of the type: aligned for `T`, length a multiple of
        // `size_of::<T>()`, and every bit pattern is a valid `T` (`Pod`).
        unsafe { core::slice::from_raw_parts(self.buffer.as_ptr().cast::<T>(), self.len()) }
    }

    /// `len` elements from element `offset`, sharing the memory.
    ///
    /// # Errors
    /// [`Error::OutOfBounds`] when the range exceeds the buffer.
    pub fn slice(&self, offset: usize, len: usize) -> Result<Self> {
        let n = size_of::<T>();
        let off = offset.checked_mul(n).ok_or(Error::OutOfBounds)?;
        let l = len.checked_mul(n).ok_or(Error::OutOfBounds)?;
        Ok(ScalarBuffer {
            buffer: self.buffer.slice(off, l)?,
            _t: PhantomData,
        })
    }

    /// The underlying bytes.
    pub fn inner(&self) -> &Buffer<'a, A> {
        &self.buffer
    }

    /// The underlying bytes, by value.
    pub fn into_inner(self) -> Buffer<'a, A> {
        self.buffer
    }
}

impl<T: NativeType, A: Allocator> Clone for ScalarBuffer<'_, T, A> {
    fn clone(&self) -> Self {
        ScalarBuffer {
            buffer: self.buffer.clone(),
            _t: PhantomData,
        }
    }
}

impl<T: NativeType, A: Allocator> core::ops::Deref for ScalarBuffer<'_, T, A> {
    type Target = [T];
    #[inline]
    fn deref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T: NativeType, A: Allocator> fmt::Debug for ScalarBuffer<'_, T, A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl<T: NativeType, A: Allocator> PartialEq for ScalarBuffer<'_, T, A> {
    fn eq(&self, other: &Self) -> bool {
        self.buffer.as_slice() == other.buffer.as_slice()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::native::i256;
    use crate::Global;

    /// Regression: `Buffer::empty()` and an unallocated `MutableBuffer` are
    /// byte aligned only (address 1). Their typed views must be the empty
    /// slice for every native type: `ScalarBuffer::as_slice` used to build a
    /// misaligned `&[T]` (undefined behaviour) and `try_from_buffer` /
    /// `MutableBuffer::typed` refused them, so that finishing an empty
    /// `PrimitiveRunBuilder` or dense `UnionBuilder` failed with `Misaligned`.
    #[test]
    fn empty_buffers_are_aligned_for_every_type() {
        assert_eq!(
            ScalarBuffer::<i64, Global>::empty().as_slice(),
            &[] as &[i64]
        );
        assert_eq!(ScalarBuffer::<i256, Global>::empty().len(), 0);
        let b = ScalarBuffer::<i64, Global>::try_from_buffer(Buffer::empty()).unwrap();
        assert!(b.as_slice().is_empty());
        let m = MutableBuffer::new_in(Global);
        assert_eq!(m.typed::<u64>(), Ok(&[] as &[u64]));
        let b = ScalarBuffer::<i128, Global>::try_from_buffer(m.into_buffer()).unwrap();
        assert!(b.is_empty() && b.slice(0, 0).unwrap().as_slice().is_empty());
        // Non-empty misaligned bytes are still refused.
        let bytes = [0u8; 9];
        let odd = Buffer::<Global>::from_slice_ref(&bytes[1..]);
        let r = ScalarBuffer::<u64, Global>::try_from_buffer(odd);
        if bytes[1..].as_ptr() as usize % 8 != 0 {
            assert_eq!(r.err(), Some(Error::Misaligned));
        }
    }
}
