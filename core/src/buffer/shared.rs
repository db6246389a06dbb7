//! Reference-counted, allocator-generic slices that may also borrow caller memory.
//!
//! [`SharedSlice<'a, T, A>`] is the one ownership primitive of the core. It is
//! either
//! - **borrowed**: a view of a `&'a [T]` the caller owns (a firmware's sample
//!   array, a region of an IPC message, a `static` schema in flash), with no
//!   allocation at all; or
//! - **owned**: a view into one allocation made through `A`, shared by every
//!   clone and slice with an atomic reference count stored in a header in front
//!   of the data. The allocation is returned to the allocator that made it when
//!   the last view is dropped.
//!
//! Owned allocations of plain data (element types without drop glue: bytes,
//! primitives, views) are aligned to [`ALIGNMENT`] (64 bytes) as the Arrow
//! columnar format recommends, so byte buffers built on this type can be
//! reinterpreted as any primitive element type. Allocations of types with
//! drop glue (arrays, fields, children lists) are never array data: they
//! take their natural alignment, which an allocator serves from its common
//! path (glibc's `posix_memalign` for 64 bytes costs several times a
//! `malloc`).

use core::alloc::Layout;
use core::fmt;
use core::marker::PhantomData;
use core::mem::{align_of, size_of};
use core::ops::Deref;
use core::ptr::{self, NonNull};

#[cfg(not(target_has_atomic = "ptr"))]
use portable_atomic::{fence, AtomicUsize, Ordering};

#[cfg(target_has_atomic = "ptr")]
use core::sync::atomic::{fence, AtomicUsize, Ordering};

use allocator_api2::alloc::Allocator;

use crate::error::{Error, Result};

/// Alignment in bytes of every allocation the core makes for array data
/// (the 64-byte alignment recommended by the Arrow columnar format,
/// "Buffer Alignment and Padding").
pub const ALIGNMENT: usize = 64;

/// Rounds `n` up to a multiple of `to` (a power of two); `None` on overflow.
#[inline]
pub(crate) const fn round_up(n: usize, to: usize) -> Option<usize> {
    match n.checked_add(to - 1) {
        Some(v) => Some(v & !(to - 1)),
        None => None,
    }
}

/// The header that precedes the contents of every owned allocation.
#[repr(C)]
pub(crate) struct Header<A> {
    /// Number of live views of this allocation.
    refs: AtomicUsize,
    /// Number of initialised elements to drop when the allocation is freed.
    len: usize,
    /// Layout of the whole allocation (header + data), for `deallocate`.
    layout: Layout,
    /// Drops the `len` elements that follow the header (given the
    /// allocation's base): the viewed elements of an owned slice, or the
    /// keeper of memory from elsewhere ([`MemoryOwner::try_new_in`]).
    drop_contents: unsafe fn(NonNull<u8>, usize),
    /// The allocator that made the allocation.
    alloc: A,
}

/// Drops the `len` `T`s that follow the header of the allocation at `base`.
///
/// # Safety
/// `base` must be an allocation laid out by [`init_header`] for `A` and `T`
/// with `len` initialised elements, none of which is used again.
unsafe fn drop_contents<A, T>(base: NonNull<u8>, len: usize) {
    // SAFETY: the caller's contract: `len` initialised `T`s start
    // `header_space` bytes after `base`.
    unsafe {
        let data = base.as_ptr().add(header_space::<A, T>()).cast::<T>();
        ptr::drop_in_place(ptr::slice_from_raw_parts_mut(data, len));
    }
}

/// Alignment of an owned allocation holding `T` elements behind a `Header<A>`:
/// [`ALIGNMENT`] for plain data (no drop glue: bytes and primitives, which
/// buffers reinterpret), the natural alignment of the header and `T`
/// otherwise.
#[inline]
pub(crate) const fn alloc_align<A, T>() -> usize {
    let mut a = if core::mem::needs_drop::<T>() {
        1
    } else {
        ALIGNMENT
    };
    if align_of::<Header<A>>() > a {
        a = align_of::<Header<A>>();
    }
    if align_of::<T>() > a {
        a = align_of::<T>();
    }
    a
}

/// Bytes from the start of an allocation to its first element.
#[inline]
pub(crate) const fn header_space<A, T>() -> usize {
    // The header is small (a few words); rounding it up can only overflow for
    // absurd allocator types, which `Layout` construction would then reject.
    match round_up(size_of::<Header<A>>(), alloc_align::<A, T>()) {
        Some(v) => v,
        None => usize::MAX / 2,
    }
}

/// Layout of an allocation with room for `data_bytes` bytes of elements.
pub(crate) fn alloc_layout<A, T>(data_bytes: usize) -> Result<Layout> {
    let size = header_space::<A, T>()
        .checked_add(data_bytes)
        .ok_or(Error::CapacityOverflow)?;
    Layout::from_size_align(size, alloc_align::<A, T>()).map_err(|_| Error::CapacityOverflow)
}

/// Counts one more view of an allocation.
///
/// Not inlined, like [`release`]: on targets where atomics are
/// load/store-exclusive loops (Cortex-M) one copy serves every
/// `SharedSlice<T, A>` instead of one per clone site.
#[inline(never)]
fn retain(refs: &AtomicUsize) {
    refs.fetch_add(1, Ordering::Relaxed);
}

/// Counts one view fewer; `true` when it was the last one (the caller then
/// frees the allocation: everything other views did happens before).
///
/// The last view of an allocation that was never shared, or whose other
/// views are gone, sees a count of 1 and is done without a read-modify-write
/// (a locked instruction on x86-64, a retry loop on Cortex-M): no other view
/// exists to count up (that takes a view), and the acquiring load orders the
/// other views' releasing decrements before the free.
#[inline(never)]
fn release(refs: &AtomicUsize) -> bool {
    if refs.load(Ordering::Acquire) == 1 {
        return true;
    }
    if refs.fetch_sub(1, Ordering::Release) != 1 {
        return false;
    }
    fence(Ordering::Acquire);
    true
}

/// Writes the header at `base` and returns its one reference.
///
/// # Safety
/// `base` must be the start of an allocation of `layout` made by `alloc`, with
/// `header_space::<A, T>()` bytes reserved in front of `len` initialised `T`s.
pub(crate) unsafe fn init_header<A: Allocator, T>(
    base: NonNull<u8>,
    len: usize,
    layout: Layout,
    alloc: A,
) -> MemoryOwner<A> {
    let header = base.cast::<Header<A>>();
    // SAFETY: the caller reserved `header_space` bytes, at least
    // `size_of::<Header<A>>()`, at an address aligned for `Header<A>`.
    unsafe {
        header.as_ptr().write(Header {
            refs: AtomicUsize::new(1),
            len,
            layout,
            drop_contents: drop_contents::<A, T>,
            alloc,
        })
    };
    MemoryOwner { header }
}

/// One counted reference to an allocation made through `A`: what keeps the
/// memory of every owned [`SharedSlice`] (and so of every owned
/// [`crate::buffer::Buffer`]) alive.
///
/// The allocation holds either the viewed elements themselves (slices and
/// buffers built by the core) or a *keeper*: a value whose `Drop` releases
/// memory that `A` did not allocate, such as a C Data Interface producer's
/// buffers (its `release` callback), a memory map, or a database's page.
/// [`MemoryOwner::try_new_in`] makes the second kind; views of the kept
/// memory are made with [`SharedSlice::from_owner`] and
/// [`crate::buffer::Buffer::from_owner`]. Either way, cloning counts one
/// more reference, and dropping the last one drops the contents (so runs
/// the keeper's `Drop` exactly once) and returns the allocation to `A`.
pub struct MemoryOwner<
    #[cfg(feature = "alloc")] A: Allocator = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator,
> {
    header: NonNull<Header<A>>,
}

// SAFETY: the reference count is atomic; the contents are dropped by the
// thread that drops the last reference, with the allocator (`A: Send +
// Sync`, shared by the references). The contents are never accessed
// otherwise: owned elements are reached through `SharedSlice`, whose own
// `Send`/`Sync` impls require `T: Send + Sync`; a keeper is `Send` by
// `try_new_in`'s bound and never borrowed.
unsafe impl<A: Allocator + Send + Sync> Send for MemoryOwner<A> {}
// SAFETY: see `Send`: `&MemoryOwner` only allows cloning (an atomic increment).
unsafe impl<A: Allocator + Send + Sync> Sync for MemoryOwner<A> {}

impl<A: Allocator> MemoryOwner<A> {
    /// Moves `keeper` into a reference-counted allocation from `alloc`; the
    /// keeper is dropped when the last clone of the owner (and of every view
    /// made from it) is dropped, on whichever thread that happens.
    ///
    /// ```
    /// use alkaid::buffer::{Buffer, MemoryOwner};
    /// use alkaid::Global;
    ///
    /// // Memory the allocator did not make, released by the keeper's drop.
    /// struct Keeper(&'static mut [u8; 4]);
    /// let keeper = Keeper(Box::leak(Box::new([1, 2, 3, 4])));
    /// let ptr = keeper.0.as_ptr();
    /// let owner = MemoryOwner::try_new_in(keeper, Global)?;
    /// // SAFETY: the four bytes live, unchanged, as long as the keeper.
    /// let b = unsafe { Buffer::from_owner(ptr, 4, owner) };
    /// assert_eq!(b.as_slice(), &[1, 2, 3, 4]);
    /// assert_eq!(b.as_ptr(), ptr); // no copy
    /// # Ok::<(), alkaid::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::AllocationFailed`] when `alloc` cannot hold the keeper (the
    /// keeper is then dropped before returning).
    pub fn try_new_in<K: Send + 'static>(keeper: K, alloc: A) -> Result<Self> {
        let layout = alloc_layout::<A, K>(size_of::<K>())?;
        let base = match alloc.allocate(layout) {
            Ok(p) => p.cast::<u8>(),
            Err(_) => return Err(Error::AllocationFailed),
        };
        // SAFETY: the allocation has `header_space::<A, K>()` bytes of header
        // room, then room for one `K` aligned for it.
        unsafe {
            base.as_ptr()
                .add(header_space::<A, K>())
                .cast::<K>()
                .write(keeper);
            Ok(init_header::<A, K>(base, 1, layout, alloc))
        }
    }

    /// Number of live references (clones and views) of the allocation.
    pub fn strong_count(&self) -> usize {
        // SAFETY: the header is alive while we hold a reference.
        unsafe { self.header.as_ref() }.refs.load(Ordering::Acquire)
    }

    /// `true` when both are references to the same allocation.
    pub fn ptr_eq(&self, other: &Self) -> bool {
        self.header == other.header
    }
}

impl<A: Allocator> Clone for MemoryOwner<A> {
    fn clone(&self) -> Self {
        // SAFETY: we hold a reference, so the header is alive.
        retain(&unsafe { self.header.as_ref() }.refs);
        MemoryOwner {
            header: self.header,
        }
    }
}

impl<A: Allocator> Drop for MemoryOwner<A> {
    fn drop(&mut self) {
        let h = self.header;
        // SAFETY: we hold a reference, so the header is alive.
        if !release(&unsafe { h.as_ref() }.refs) {
            return;
        }
        // SAFETY: we were the last reference: nobody else can reach the
        // allocation. `init_header` recorded how to drop its contents.
        unsafe {
            let base = h.cast::<u8>();
            let header = h.as_ptr().read();
            (header.drop_contents)(base, header.len);
            header.alloc.deallocate(base, header.layout);
        }
    }
}

impl<A: Allocator> fmt::Debug for MemoryOwner<A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemoryOwner")
            .field("strong_count", &self.strong_count())
            .finish()
    }
}

/// A slice of `T` that is either borrowed for `'a` or owned (shared, reference
/// counted) in memory from the allocator `A`.
///
/// Cloning and [`SharedSlice::slice`] never allocate or copy: they share the
/// allocation and bump its reference count. The elements are immutable.
///
/// ```
/// use alkaid::buffer::SharedSlice;
/// use alkaid::Global;
///
/// let owned = SharedSlice::try_from_slice_in(&["a", "b", "c"], Global)?;
/// let tail = owned.slice(1, 2)?;
/// assert_eq!(&tail[..], &["b", "c"]);
/// assert_eq!(owned.strong_count(), Some(2)); // one allocation, two views
///
/// static NAMES: [&str; 2] = ["x", "y"];
/// let borrowed: SharedSlice<'static, &str> = SharedSlice::borrowed(&NAMES);
/// assert!(!borrowed.is_owned());
/// assert_eq!(borrowed.strong_count(), None);
/// # Ok::<(), alkaid::Error>(())
/// ```
pub struct SharedSlice<
    'a,
    T,
    #[cfg(feature = "alloc")] A: Allocator = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator,
> {
    ptr: NonNull<T>,
    len: usize,
    owner: Option<MemoryOwner<A>>,
    _marker: PhantomData<(&'a [T], A)>,
}

// SAFETY: a `SharedSlice` gives shared access to `T`s (needs `T: Sync`) that may
// be dropped on whichever thread drops the last view (needs `T: Send`); the
// allocator is used from that thread (`A: Send`) and shared between views
// (`A: Sync`). The reference count is atomic.
unsafe impl<T: Send + Sync, A: Allocator + Send + Sync> Send for SharedSlice<'_, T, A> {}
// SAFETY: see the `Send` impl; `&SharedSlice` only hands out `&T` and clones.
unsafe impl<T: Send + Sync, A: Allocator + Send + Sync> Sync for SharedSlice<'_, T, A> {}

impl<'a, T, A: Allocator> From<&'a [T]> for SharedSlice<'a, T, A> {
    /// A view of `slice` ([`SharedSlice::borrowed`]); no allocation.
    fn from(slice: &'a [T]) -> Self {
        SharedSlice::borrowed(slice)
    }
}

impl<'a, T, A: Allocator, const N: usize> From<&'a [T; N]> for SharedSlice<'a, T, A> {
    /// A view of `array` ([`SharedSlice::borrowed`]); no allocation.
    fn from(array: &'a [T; N]) -> Self {
        SharedSlice::borrowed(array)
    }
}

impl<'a, T, A: Allocator> SharedSlice<'a, T, A> {
    /// A view of caller memory; no allocation. Usable in `const` and `static`
    /// items (a schema in flash).
    pub const fn borrowed(slice: &'a [T]) -> Self {
        // SAFETY: a slice pointer is never null.
        let ptr = unsafe { NonNull::new_unchecked(slice.as_ptr() as *mut T) };
        SharedSlice {
            ptr,
            len: slice.len(),
            owner: None,
            _marker: PhantomData,
        }
    }

    /// The empty slice (no allocation).
    pub const fn empty() -> Self {
        Self::borrowed(&[])
    }

    /// Moves the items of `iter` into a new allocation made through `alloc`.
    ///
    /// The iterator's reported length bounds the allocation; items beyond it
    /// are dropped, fewer items shorten the slice.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`] when `alloc` fails, [`Error::CapacityOverflow`]
    /// when the size overflows.
    pub fn try_from_iter_in<I>(iter: I, alloc: A) -> Result<Self>
    where
        I: IntoIterator<Item = T>,
        I::IntoIter: ExactSizeIterator,
    {
        let iter = iter.into_iter();
        let cap = iter.len();
        let bytes = size_of::<T>()
            .checked_mul(cap)
            .ok_or(Error::CapacityOverflow)?;
        let layout = alloc_layout::<A, T>(bytes)?;
        let base = alloc.allocate(layout)?.cast::<u8>();
        let hs = header_space::<A, T>();
        // SAFETY: `hs` lies within the allocation of `layout` (size >= hs).
        let data = unsafe { base.as_ptr().add(hs) }.cast::<T>();
        let mut n = 0;
        for item in iter.take(cap) {
            // SAFETY: `n < cap`, the slot lies within the allocation and is
            // aligned for `T` (the data starts at an `alloc_align` boundary).
            unsafe { data.add(n).write(item) };
            n += 1;
        }
        // SAFETY: `base` was allocated with `layout` by `alloc`; `n` elements
        // are initialised after `hs` bytes of header space.
        let owner = unsafe { init_header::<A, T>(base, n, layout, alloc) };
        Ok(SharedSlice {
            // SAFETY: `data` is derived from a non-null allocation pointer.
            ptr: unsafe { NonNull::new_unchecked(data) },
            len: n,
            owner: Some(owner),
            _marker: PhantomData,
        })
    }

    /// Builds `len` elements with `f(0)`, `f(1)`, … in a new allocation made
    /// through `alloc`, stopping at the first error (the elements made so far
    /// are dropped and the memory returned).
    ///
    /// # Errors
    /// The first error of `f`; [`Error::AllocationFailed`]; [`Error::CapacityOverflow`].
    pub fn try_from_fn_in<F>(len: usize, alloc: A, mut f: F) -> Result<Self>
    where
        F: FnMut(usize) -> Result<T>,
    {
        let bytes = size_of::<T>()
            .checked_mul(len)
            .ok_or(Error::CapacityOverflow)?;
        let layout = alloc_layout::<A, T>(bytes)?;
        let base = alloc.allocate(layout)?.cast::<u8>();
        let hs = header_space::<A, T>();
        // SAFETY: `hs` lies within the allocation of `layout` (size >= hs).
        let data = unsafe { base.as_ptr().add(hs) }.cast::<T>();
        // The header is written first with a count of 0 and updated as elements
        // are made, so that dropping the partial slice on error is the same
        // code path as dropping a finished one.
        // SAFETY: `base` was allocated with `layout` by `alloc`, with `hs`
        // bytes of header space; zero elements are initialised so far.
        let owner = unsafe { init_header::<A, T>(base, 0, layout, alloc) };
        let header = owner.header;
        let mut partial = SharedSlice {
            // SAFETY: derived from a non-null allocation pointer.
            ptr: unsafe { NonNull::new_unchecked(data) },
            len: 0,
            owner: Some(owner),
            _marker: PhantomData,
        };
        for i in 0..len {
            let item = f(i)?;
            // SAFETY: `i < len` fits the allocation and is aligned for `T`;
            // we are the only view, so updating the header count is unshared.
            unsafe {
                data.add(i).write(item);
                (*header.as_ptr()).len = i + 1;
            }
            partial.len = i + 1;
        }
        Ok(partial)
    }

    /// Clones the items of `items` into a new allocation made through `alloc`.
    ///
    /// # Errors
    /// As [`SharedSlice::try_from_iter_in`].
    pub fn try_from_slice_in(items: &[T], alloc: A) -> Result<Self>
    where
        T: Clone,
    {
        Self::try_from_iter_in(items.iter().cloned(), alloc)
    }

    /// A view of `len` elements at `ptr` kept alive by `owner`: the
    /// elements of an allocation of the core, or memory that a keeper
    /// ([`MemoryOwner::try_new_in`]) keeps alive. No copy; `ptr` may be null
    /// when `len` is 0.
    ///
    /// # Safety
    /// `ptr..ptr + len` must be initialised `T`s, aligned for `T`, readable
    /// and unchanged for as long as `owner` (any clone of it) lives; `ptr`
    /// may be null only when `len` is 0.
    pub unsafe fn from_owner(
        ptr: *const T,
        len: usize,
        owner: MemoryOwner<A>,
    ) -> SharedSlice<'static, T, A> {
        let ptr = NonNull::new(ptr as *mut T).unwrap_or(NonNull::dangling());
        SharedSlice {
            ptr,
            len,
            owner: Some(owner),
            _marker: PhantomData,
        }
    }

    /// The owner keeping the elements alive (`None` when borrowed).
    pub fn owner(&self) -> Option<&MemoryOwner<A>> {
        self.owner.as_ref()
    }

    /// Number of elements.
    #[inline]
    pub const fn len(&self) -> usize {
        self.len
    }

    /// `true` when there are no elements.
    #[inline]
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The elements as a slice.
    #[inline]
    pub fn as_slice(&self) -> &[T] {
        // SAFETY: `ptr..ptr+len` are initialised `T`s kept alive either by the
        // borrow `'a` or by our reference to the owning allocation.
        unsafe { core::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }

    /// `true` when the elements live in an allocation made through `A`,
    /// `false` when they borrow caller memory.
    pub const fn is_owned(&self) -> bool {
        self.owner.is_some()
    }

    /// A view of `len` elements starting at `offset`, sharing the memory.
    ///
    /// # Errors
    /// [`Error::OutOfBounds`] when `offset + len` exceeds [`Self::len`].
    pub fn slice(&self, offset: usize, len: usize) -> Result<Self> {
        let end = offset.checked_add(len).ok_or(Error::OutOfBounds)?;
        if end > self.len {
            return Err(Error::OutOfBounds);
        }
        let mut s = self.clone();
        // SAFETY: `offset <= self.len`, so the pointer stays within (or one
        // past) the viewed elements.
        s.ptr = unsafe { NonNull::new_unchecked(self.ptr.as_ptr().add(offset)) };
        s.len = len;
        Ok(s)
    }

    /// `true` when both are views of the same memory with the same length.
    pub fn ptr_eq(&self, other: &Self) -> bool {
        self.ptr == other.ptr && self.len == other.len
    }

    /// Number of live views of the owning allocation (`None` when borrowed).
    pub fn strong_count(&self) -> Option<usize> {
        self.owner.as_ref().map(MemoryOwner::strong_count)
    }
}

impl<T, A: Allocator> Clone for SharedSlice<'_, T, A> {
    fn clone(&self) -> Self {
        SharedSlice {
            ptr: self.ptr,
            len: self.len,
            owner: self.owner.clone(),
            _marker: PhantomData,
        }
    }
}

impl<T, A: Allocator> Deref for SharedSlice<'_, T, A> {
    type Target = [T];
    #[inline]
    fn deref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T, A: Allocator> AsRef<[T]> for SharedSlice<'_, T, A> {
    fn as_ref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T: fmt::Debug, A: Allocator> fmt::Debug for SharedSlice<'_, T, A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl<T: PartialEq, A: Allocator> PartialEq for SharedSlice<'_, T, A> {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<T: Eq, A: Allocator> Eq for SharedSlice<'_, T, A> {}

impl<T: core::hash::Hash, A: Allocator> core::hash::Hash for SharedSlice<'_, T, A> {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        self.as_slice().hash(state)
    }
}

/// A single shared value: a [`SharedSlice`] of length one that dereferences to `T`.
///
/// Used for recursive metadata (a list's child field, a dictionary's value
/// type) and for child arrays, without `alloc::boxed::Box`.
pub struct SharedBox<
    'a,
    T,
    #[cfg(feature = "alloc")] A: Allocator = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator,
>(SharedSlice<'a, T, A>);

impl<'a, T, A: Allocator> SharedBox<'a, T, A> {
    /// A view of a value the caller owns; no allocation.
    pub const fn borrowed(value: &'a T) -> Self {
        SharedBox(SharedSlice::borrowed(core::slice::from_ref(value)))
    }

    /// Moves `value` into an allocation made through `alloc`.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`] when `alloc` fails.
    pub fn try_new_in(value: T, alloc: A) -> Result<Self> {
        let s = SharedSlice::try_from_iter_in(core::iter::once(value), alloc)?;
        Ok(SharedBox(s))
    }

    /// `true` when both point at the same value.
    pub fn ptr_eq(&self, other: &Self) -> bool {
        self.0.ptr_eq(&other.0)
    }
}

impl<T, A: Allocator> Clone for SharedBox<'_, T, A> {
    fn clone(&self) -> Self {
        SharedBox(self.0.clone())
    }
}

impl<T, A: Allocator> Deref for SharedBox<'_, T, A> {
    type Target = T;
    #[inline]
    fn deref(&self) -> &T {
        // `SharedBox` is only built with exactly one element.
        &self.0.as_slice()[0]
    }
}

impl<T: fmt::Debug, A: Allocator> fmt::Debug for SharedBox<'_, T, A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: PartialEq, A: Allocator> PartialEq for SharedBox<'_, T, A> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl<T: Eq, A: Allocator> Eq for SharedBox<'_, T, A> {}

impl<T: core::hash::Hash, A: Allocator> core::hash::Hash for SharedBox<'_, T, A> {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        (**self).hash(state)
    }
}

/// An immutable UTF-8 string, borrowed or shared like [`SharedSlice`].
#[derive_where::derive_where(Clone)]
pub struct SharedStr<
    'a,
    #[cfg(feature = "alloc")] A: Allocator = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator,
>(SharedSlice<'a, u8, A>);

impl<'a, A: Allocator> SharedStr<'a, A> {
    /// A view of a string the caller owns; no allocation; usable in `const`.
    pub const fn borrowed(s: &'a str) -> Self {
        SharedStr(SharedSlice::borrowed(s.as_bytes()))
    }

    /// Copies `s` into an allocation made through `alloc`.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`] when `alloc` fails.
    pub fn try_from_str_in(s: &str, alloc: A) -> Result<Self> {
        Ok(SharedStr(SharedSlice::try_from_slice_in(
            s.as_bytes(),
            alloc,
        )?))
    }

    /// The string.
    #[inline]
    pub fn as_str(&self) -> &str {
        // SAFETY: both constructors take a `&str`, so the bytes are UTF-8.
        unsafe { core::str::from_utf8_unchecked(self.0.as_slice()) }
    }
}

impl<A: Allocator> Deref for SharedStr<'_, A> {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl<A: Allocator> fmt::Debug for SharedStr<'_, A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl<A: Allocator> fmt::Display for SharedStr<'_, A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl<A: Allocator> PartialEq for SharedStr<'_, A> {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl<A: Allocator> Eq for SharedStr<'_, A> {}

impl<A: Allocator> PartialEq<str> for SharedStr<'_, A> {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl<A: Allocator> core::hash::Hash for SharedStr<'_, A> {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state)
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::Global;
    use core::cell::Cell;

    /// Takes one off a shared counter when dropped (the tests add one per value made).
    pub(in crate::buffer) struct Counted<'c>(pub(in crate::buffer) &'c Cell<i32>);
    impl Drop for Counted<'_> {
        fn drop(&mut self) {
            self.0.set(self.0.get() - 1);
        }
    }

    #[test]
    fn shared_slice_clone_slice_drop() {
        let live = Cell::new(0);
        let s = SharedSlice::try_from_fn_in(5, Global, |_| {
            live.set(live.get() + 1);
            Ok(Counted(&live))
        })
        .unwrap();
        assert_eq!(live.get(), 5);
        // A type with drop glue is never array data: its natural alignment,
        // the header in front rounded to it only (not to 64 bytes).
        assert_eq!(s.as_slice().as_ptr() as usize % align_of::<Counted>(), 0);
        assert_eq!(
            header_space::<Global, Counted>(),
            size_of::<Header<Global>>()
        );
        // Plain data is 64-byte aligned, whatever its element type.
        let p = SharedSlice::try_from_slice_in(&[1u32, 2, 3], Global).unwrap();
        assert_eq!(p.as_slice().as_ptr() as usize % ALIGNMENT, 0);
        assert_eq!(header_space::<Global, u32>(), ALIGNMENT);
        let t = s.slice(1, 3).unwrap();
        assert_eq!(s.strong_count(), Some(2));
        drop(s);
        assert_eq!(live.get(), 5);
        assert_eq!(t.len(), 3);
        drop(t);
        assert_eq!(live.get(), 0);
    }

    #[test]
    fn failing_producer_drops_what_was_made() {
        let live = Cell::new(0);
        let r = SharedSlice::try_from_fn_in(5, Global, |i| {
            if i == 3 {
                return Err(Error::InvalidUtf8);
            }
            live.set(live.get() + 1);
            Ok(Counted(&live))
        });
        assert_eq!(r.err(), Some(Error::InvalidUtf8));
        assert_eq!(live.get(), 0);
    }

    /// Views dropped on several threads at once free the allocation once,
    /// after every thread's reads (Miri checks the ordering).
    #[test]
    fn views_dropped_on_several_threads_free_once() {
        use core::sync::atomic::AtomicUsize;
        static DROPS: AtomicUsize = AtomicUsize::new(0);
        struct Dropped(u64);
        impl Drop for Dropped {
            fn drop(&mut self) {
                DROPS.fetch_add(1, Ordering::Relaxed);
            }
        }
        for round in 0..4u64 {
            DROPS.store(0, Ordering::Relaxed);
            let s =
                SharedSlice::try_from_fn_in(3, Global, |i| Ok(Dropped(round + i as u64))).unwrap();
            let threads: std::vec::Vec<_> = (0..3)
                .map(|k| {
                    let view = s.slice(k, 1).unwrap();
                    std::thread::spawn(move || view.as_slice()[0].0)
                })
                .collect();
            let join = |threads: std::vec::Vec<std::thread::JoinHandle<u64>>| {
                threads
                    .into_iter()
                    .map(|t| t.join().unwrap())
                    .collect::<std::vec::Vec<u64>>()
            };
            // The threads' views last, or this one (then alone: count 1).
            let read = if round % 2 == 0 {
                drop(s);
                join(threads)
            } else {
                let read = join(threads);
                assert_eq!(s.strong_count(), Some(1));
                assert_eq!(DROPS.load(Ordering::Relaxed), 0);
                drop(s);
                read
            };
            assert_eq!(read, [round, round + 1, round + 2]);
            assert_eq!(DROPS.load(Ordering::Relaxed), 3);
        }
        // An allocation never shared is freed by its only view.
        let one = SharedSlice::try_from_fn_in(1, Global, |_| Ok(Dropped(9))).unwrap();
        DROPS.store(0, Ordering::Relaxed);
        assert_eq!(one.strong_count(), Some(1));
        drop(one);
        assert_eq!(DROPS.load(Ordering::Relaxed), 1);
    }

    #[test]
    fn borrowed_and_boxed() {
        static NAMES: [&str; 2] = ["a", "b"];
        let s: SharedSlice<'static, &str, Global> = SharedSlice::borrowed(&NAMES);
        assert!(!s.is_owned());
        assert_eq!(s.strong_count(), None);
        assert_eq!(s.slice(1, 1).unwrap().as_slice(), &["b"]);
        assert_eq!(s.slice(1, 2).err(), Some(Error::OutOfBounds));
        let b = SharedBox::try_new_in(7u64, Global).unwrap();
        let c = b.clone();
        assert!(b.ptr_eq(&c));
        assert_eq!(*c, 7);
        let st = SharedStr::try_from_str_in("héllo", Global).unwrap();
        assert_eq!(st.as_str(), "héllo");
        assert_eq!(st, SharedStr::borrowed("héllo"));
    }
}
