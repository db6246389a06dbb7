//! [`MutableBuffer`]: the growable, 64-byte aligned byte buffer builders write into.

use core::fmt;
use core::mem::size_of;
use core::ptr::{self, NonNull};

use allocator_api2::alloc::Allocator;

use super::shared::{alloc_layout, header_space, init_header, round_up, SharedSlice, ALIGNMENT};
use super::Buffer;
use crate::error::{Error, Result};
use crate::native::NativeType;

// Appends that skip the zero fill: the row format uses them all, the
// selection kernels (`crate::compute`) `try_extend_from_fn` only.
#[cfg_attr(
    not(all(
        feature = "dictionary",
        feature = "nested",
        feature = "run-end",
        feature = "views"
    )),
    allow(dead_code)
)]
mod append;
cfg_row_format! {
    pub(crate) use append::Appender;
}

/// A growable byte buffer in memory from `A`.
///
/// - The data starts on a 64-byte boundary ([`ALIGNMENT`]).
/// - The capacity is always a multiple of 64 bytes, and every byte between the
///   length and the capacity is zero (the padding the Arrow format asks for),
///   so the buffer can be written to an IPC body as-is.
/// - Every growth is fallible: `try_*` methods return [`Error::AllocationFailed`]
///   instead of aborting.
///
/// [`MutableBuffer::into_buffer`] freezes it into a shared [`Buffer`] without
/// copying (room for the reference-count header is reserved in front of the
/// data from the first allocation).
///
/// ```
/// use alkaid::buffer::MutableBuffer;
/// use alkaid::Global;
///
/// let mut m = MutableBuffer::new_in(Global);
/// m.try_push(1u16)?;
/// m.try_extend_from_typed(&[2u16, 3])?;
/// assert_eq!(m.len(), 6); // bytes
/// assert_eq!(m.capacity() % 64, 0);
/// assert_eq!(m.typed::<u16>()?, &[1, 2, 3]);
/// let data = m.as_slice().as_ptr();
/// let frozen = m.into_buffer(); // no copy
/// assert_eq!(frozen.as_ptr(), data);
/// assert_eq!(frozen.typed::<u16>()?, &[1, 2, 3]);
/// # Ok::<(), alkaid::Error>(())
/// ```
pub struct MutableBuffer<
    #[cfg(feature = "alloc")] A: Allocator = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator,
> {
    /// Start of the allocation (header space, then data); dangling when `cap == 0`.
    base: NonNull<u8>,
    len: usize,
    cap: usize,
    alloc: A,
}

// SAFETY: `MutableBuffer` uniquely owns plain bytes; moving it between threads
// moves the allocator with it.
unsafe impl<A: Allocator + Send> Send for MutableBuffer<A> {}
// SAFETY: `&MutableBuffer` only reads the bytes.
unsafe impl<A: Allocator + Sync> Sync for MutableBuffer<A> {}

impl<A: Allocator> MutableBuffer<A> {
    /// An empty buffer; allocates nothing until the first write.
    pub const fn new_in(alloc: A) -> Self {
        MutableBuffer {
            base: NonNull::dangling(),
            len: 0,
            cap: 0,
            alloc,
        }
    }

    /// An empty buffer with room for at least `capacity` bytes.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`], [`Error::CapacityOverflow`].
    pub fn try_with_capacity_in(capacity: usize, alloc: A) -> Result<Self> {
        let mut b = Self::new_in(alloc);
        b.try_reserve(capacity)?;
        Ok(b)
    }

    /// Length in bytes.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// `true` when no byte has been written.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Capacity in bytes (a multiple of 64).
    #[inline]
    pub fn capacity(&self) -> usize {
        self.cap
    }

    /// The allocator.
    pub fn allocator(&self) -> &A {
        &self.alloc
    }

    #[inline]
    fn data_ptr(&self) -> *mut u8 {
        if self.cap == 0 {
            NonNull::<u8>::dangling().as_ptr()
        } else {
            // SAFETY: with `cap > 0` the allocation holds `header_space` bytes
            // before the data.
            unsafe { self.base.as_ptr().add(header_space::<A, u8>()) }
        }
    }

    /// The written bytes.
    #[inline]
    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: `len` bytes from the data pointer are initialised (the
        // allocation is zeroed); with `len == 0` a dangling pointer is fine.
        unsafe { core::slice::from_raw_parts(self.data_ptr(), self.len) }
    }

    /// The written bytes, mutably.
    #[inline]
    pub fn as_slice_mut(&mut self) -> &mut [u8] {
        // SAFETY: as `as_slice`, and we have unique access.
        unsafe { core::slice::from_raw_parts_mut(self.data_ptr(), self.len) }
    }

    /// The written bytes as `T`s.
    ///
    /// # Errors
    /// [`Error::BufferLengthNotMultiple`] when the length is not a multiple of `T`'s size.
    pub fn typed<T: NativeType>(&self) -> Result<&[T]> {
        if self.is_empty() {
            // Nothing allocated yet: the pointer may be byte aligned only.
            return Ok(&[]);
        }
        bytemuck::try_cast_slice(self.as_slice()).map_err(|_| Error::BufferLengthNotMultiple)
    }

    /// The written bytes as `T`s, mutably.
    ///
    /// # Errors
    /// [`Error::BufferLengthNotMultiple`] when the length is not a multiple of `T`'s size.
    pub fn typed_mut<T: NativeType>(&mut self) -> Result<&mut [T]> {
        if self.is_empty() {
            return Ok(&mut []);
        }
        bytemuck::try_cast_slice_mut(self.as_slice_mut())
            .map_err(|_| Error::BufferLengthNotMultiple)
    }

    /// Makes room for at least `additional` more bytes (growing geometrically).
    ///
    /// # Errors
    /// [`Error::AllocationFailed`], [`Error::CapacityOverflow`].
    pub fn try_reserve(&mut self, additional: usize) -> Result<()> {
        let Some(need) = self.beyond_capacity(additional)? else {
            return Ok(());
        };
        let doubled = self.cap.saturating_mul(2);
        let target = if doubled > need { doubled } else { need };
        self.grow_to(target)
    }

    /// `len + additional` bytes when that exceeds the capacity, `None` when
    /// it fits.
    ///
    /// # Errors
    /// [`Error::CapacityOverflow`] when the sum overflows `usize`.
    fn beyond_capacity(&self, additional: usize) -> Result<Option<usize>> {
        let need = self
            .len
            .checked_add(additional)
            .ok_or(Error::CapacityOverflow)?;
        Ok((need > self.cap).then_some(need))
    }

    /// Makes room for exactly `additional` more bytes (rounded up to 64).
    ///
    /// # Errors
    /// [`Error::AllocationFailed`], [`Error::CapacityOverflow`].
    pub fn try_reserve_exact(&mut self, additional: usize) -> Result<()> {
        match self.beyond_capacity(additional)? {
            Some(need) => self.grow_to(need),
            None => Ok(()),
        }
    }

    fn grow_to(&mut self, bytes: usize) -> Result<()> {
        let new_cap = round_up(bytes, ALIGNMENT).ok_or(Error::CapacityOverflow)?;
        let new_layout = alloc_layout::<A, u8>(new_cap)?;
        let new_base = if self.cap == 0 {
            self.alloc.allocate_zeroed(new_layout)?
        } else {
            let old_layout = alloc_layout::<A, u8>(self.cap)?;
            // SAFETY: `base` was allocated by `alloc` with `old_layout`, and
            // `new_layout` is at least as large with the same alignment.
            let p = unsafe { self.alloc.grow(self.base, old_layout, new_layout)? };
            // Zero the new bytes (the padding invariant). `grow` rather than
            // `grow_zeroed`, which allocators implement as `grow` + this
            // anyway: one growth path fewer to link.
            // SAFETY: the allocation holds `new_layout.size()` bytes, the old
            // ones first.
            unsafe {
                let base = p.cast::<u8>().as_ptr();
                let old = old_layout.size();
                ptr::write_bytes(base.add(old), 0, new_layout.size() - old);
            }
            p
        };
        self.base = new_base.cast();
        self.cap = new_cap;
        Ok(())
    }

    /// Appends bytes.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`], [`Error::CapacityOverflow`].
    #[inline]
    pub fn try_extend_from_slice(&mut self, bytes: &[u8]) -> Result<()> {
        self.try_reserve(bytes.len())?;
        // SAFETY: capacity covers `len + bytes.len()`; the regions do not
        // overlap (we uniquely own ours).
        unsafe {
            core::ptr::copy_nonoverlapping(
                bytes.as_ptr(),
                self.data_ptr().add(self.len),
                bytes.len(),
            )
        };
        self.len += bytes.len();
        Ok(())
    }

    /// Appends the bytes of `values` (native endianness).
    ///
    /// # Errors
    /// [`Error::AllocationFailed`], [`Error::CapacityOverflow`].
    #[inline]
    pub fn try_extend_from_typed<T: NativeType>(&mut self, values: &[T]) -> Result<()> {
        self.try_extend_from_slice(bytemuck::cast_slice(values))
    }

    /// Appends one value (native endianness).
    ///
    /// # Errors
    /// [`Error::AllocationFailed`], [`Error::CapacityOverflow`].
    #[inline]
    pub fn try_push<T: NativeType>(&mut self, value: T) -> Result<()> {
        let n = size_of::<T>();
        if self.cap - self.len < n {
            self.try_reserve(n)?;
        }
        // SAFETY: capacity covers `len + n`; unaligned write of a `Pod` value.
        unsafe {
            self.data_ptr()
                .add(self.len)
                .cast::<T>()
                .write_unaligned(value)
        };
        self.len += n;
        Ok(())
    }

    /// Appends `n` zero bytes.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`], [`Error::CapacityOverflow`].
    pub fn try_extend_zeros(&mut self, n: usize) -> Result<()> {
        self.try_reserve(n)?;
        // The bytes past `len` are already zero (padding invariant).
        self.len += n;
        Ok(())
    }

    /// Shortens to `len` bytes (no effect when already shorter), zeroing the
    /// bytes given up so that the padding stays zero.
    pub fn truncate(&mut self, len: usize) {
        if len < self.len {
            let old = self.len;
            self.len = len;
            // SAFETY: `len..old` lies within the initialised data.
            unsafe { core::ptr::write_bytes(self.data_ptr().add(len), 0, old - len) };
        }
    }

    /// Empties the buffer, keeping its capacity (and zero padding).
    pub fn clear(&mut self) {
        self.truncate(0)
    }

    /// Freezes into an immutable, shareable [`Buffer`] without copying.
    pub fn into_buffer(self) -> Buffer<'static, A> {
        let me = core::mem::ManuallyDrop::new(self);
        // SAFETY: we take the allocator out of `me`, which is never used or
        // dropped again.
        let alloc = unsafe { core::ptr::read(&me.alloc) };
        if me.cap == 0 {
            drop(alloc);
            return Buffer::empty();
        }
        let Ok(layout) = alloc_layout::<A, u8>(me.cap) else {
            // The layout was valid when the allocation was made; computing it
            // again cannot fail. Leak rather than misuse the allocator.
            return Buffer::empty();
        };
        // SAFETY: `base` is our allocation of `layout` from `alloc`, with the
        // header space reserved in front of `len` initialised bytes; one
        // reference is transferred to the new `SharedSlice`.
        unsafe {
            let owner = init_header::<A, u8>(me.base, 0, layout, alloc);
            Buffer::from_shared(SharedSlice::from_owner(me.data_ptr(), me.len, owner))
        }
    }
}

impl<A: Allocator> Drop for MutableBuffer<A> {
    fn drop(&mut self) {
        if self.cap == 0 {
            return;
        }
        if let Ok(layout) = alloc_layout::<A, u8>(self.cap) {
            // SAFETY: `base` was allocated by `alloc` with this layout.
            unsafe { self.alloc.deallocate(self.base, layout) };
        }
    }
}

impl<A: Allocator> fmt::Debug for MutableBuffer<A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MutableBuffer")
            .field("len", &self.len)
            .field("capacity", &self.cap)
            .finish()
    }
}
