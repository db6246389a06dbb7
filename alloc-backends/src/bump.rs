//! Bump arenas: [`StaticArena`] (an internal, 64-byte aligned region that can
//! live in a `static`) and [`Arena`] (over a caller-given `&mut [u8]`).
//!
//! Both hand out memory by moving a cursor forward with a compare-and-swap,
//! so they can be shared between threads or interrupt handlers.
//! Deallocation only gives memory back when it frees the allocation at the
//! top of the arena (the one that ends at the cursor): freeing in LIFO order
//! reclaims everything except alignment gaps; any other free is a no-op until
//! the arena is reset. The top allocation also grows and shrinks in place,
//! which is what a single growing builder buffer needs.

use core::alloc::Layout;
use core::cell::UnsafeCell;
use core::fmt;
use core::marker::PhantomData;
use core::ptr::{self, NonNull};

use allocator_api2::alloc::{AllocError, Allocator};
use portable_atomic::{AtomicUsize, Ordering};

/// The cursor and high-water mark shared by both arenas. Offsets are in
/// bytes from the start of the region.
struct BumpState {
    /// Offset of the first free byte.
    cursor: AtomicUsize,
    /// Highest value the cursor has reached.
    peak: AtomicUsize,
}

impl BumpState {
    const fn new() -> Self {
        BumpState {
            cursor: AtomicUsize::new(0),
            peak: AtomicUsize::new(0),
        }
    }

    /// Reserves `layout` in a region of `cap` bytes at `base`; returns the
    /// offset of the reserved bytes.
    fn reserve(&self, base: *mut u8, cap: usize, layout: Layout) -> Result<usize, AllocError> {
        let base_addr = base as usize;
        let mut cur = self.cursor.load(Ordering::Relaxed);
        loop {
            let start = aligned_offset(base_addr, cur, layout.align()).ok_or(AllocError)?;
            let end = start.checked_add(layout.size()).ok_or(AllocError)?;
            if end > cap {
                return Err(AllocError);
            }
            // AcqRel: the bytes may have been written by whoever freed them
            // last (a LIFO free moved the cursor back with Release).
            match self
                .cursor
                .compare_exchange_weak(cur, end, Ordering::AcqRel, Ordering::Relaxed)
            {
                Ok(_) => {
                    self.peak.fetch_max(end, Ordering::Relaxed);
                    return Ok(start);
                }
                Err(now) => cur = now,
            }
        }
    }

    /// Gives back `offset..offset + size` if it is the top allocation.
    fn release(&self, offset: usize, size: usize) {
        if size == 0 {
            return;
        }
        let end = offset.saturating_add(size);
        // Not the top allocation (or another thread moved the cursor): the
        // bytes stay reserved until a reset.
        let _ = self
            .cursor
            .compare_exchange(end, offset, Ordering::AcqRel, Ordering::Relaxed);
    }

    /// Moves the end of the top allocation `offset..old_end` to `new_end`
    /// (growing or shrinking it) when it is the top one and fits in `cap`.
    fn resize_top(&self, offset: usize, old_size: usize, new_size: usize, cap: usize) -> bool {
        let (Some(old_end), Some(new_end)) =
            (offset.checked_add(old_size), offset.checked_add(new_size))
        else {
            return false;
        };
        if new_end > cap {
            return false;
        }
        if self
            .cursor
            .compare_exchange(old_end, new_end, Ordering::AcqRel, Ordering::Relaxed)
            .is_ok()
        {
            self.peak.fetch_max(new_end, Ordering::Relaxed);
            true
        } else {
            false
        }
    }

    fn used(&self) -> usize {
        self.cursor.load(Ordering::Relaxed)
    }

    fn peak(&self) -> usize {
        self.peak.load(Ordering::Relaxed)
    }
}

/// The offset at or after `cur` whose address (`base + offset`) is a multiple
/// of `align` (a power of two); `None` on overflow.
#[inline]
fn aligned_offset(base: usize, cur: usize, align: usize) -> Option<usize> {
    let addr = base.checked_add(cur)?;
    let aligned = addr.checked_add(align - 1)? & !(align - 1);
    Some(aligned - base)
}

/// Bump allocation over the region `base..base + cap` tracked by `state`.
///
/// # Safety
/// `base..base + cap` must be valid for reads and writes for as long as any
/// allocation made here is live, and only be accessed through allocations
/// reserved in `state`.
unsafe fn bump_allocate(
    state: &BumpState,
    base: *mut u8,
    cap: usize,
    layout: Layout,
) -> Result<NonNull<[u8]>, AllocError> {
    let start = state.reserve(base, cap, layout)?;
    // SAFETY: `start + size <= cap`, so the pointer stays within the region.
    let p = unsafe { base.add(start) };
    let p = NonNull::new(p).ok_or(AllocError)?;
    Ok(NonNull::slice_from_raw_parts(p, layout.size()))
}

/// Offset of `ptr` from `base`.
#[inline]
fn offset_of(base: *mut u8, ptr: NonNull<u8>) -> usize {
    (ptr.as_ptr() as usize).wrapping_sub(base as usize)
}

/// Resizes the allocation at `ptr` (of `old`) to `new`, in place when it is
/// the top allocation and stays aligned, by moving it otherwise. New bytes are
/// zeroed when `zero` is set.
///
/// # Safety
/// As [`bump_allocate`]; `ptr` must be a live allocation of `old` from this
/// region.
unsafe fn bump_resize(
    state: &BumpState,
    base: *mut u8,
    cap: usize,
    ptr: NonNull<u8>,
    old: Layout,
    new: Layout,
    zero: bool,
) -> Result<NonNull<[u8]>, AllocError> {
    let offset = offset_of(base, ptr);
    let aligned = (ptr.as_ptr() as usize) % new.align() == 0;
    let in_place = if new.size() <= old.size() {
        // Shrinking: always possible in place when aligned; the cursor moves
        // back only for the top allocation.
        if aligned {
            state.resize_top(offset, old.size(), new.size(), cap);
        }
        aligned
    } else {
        aligned && state.resize_top(offset, old.size(), new.size(), cap)
    };
    if in_place {
        if zero && new.size() > old.size() {
            // SAFETY: `offset + new.size() <= cap` (checked by `resize_top`)
            // and the bytes now belong to this allocation.
            unsafe { ptr::write_bytes(ptr.as_ptr().add(old.size()), 0, new.size() - old.size()) };
        }
        return Ok(NonNull::slice_from_raw_parts(ptr, new.size()));
    }
    // SAFETY: forwarded from the caller.
    let fresh = unsafe { bump_allocate(state, base, cap, new)? };
    let keep = old.size().min(new.size());
    // SAFETY: both are live allocations of at least `keep` bytes in the
    // region; a fresh allocation never overlaps a live one.
    unsafe { ptr::copy_nonoverlapping(ptr.as_ptr(), fresh.cast::<u8>().as_ptr(), keep) };
    if zero && new.size() > keep {
        // SAFETY: the fresh allocation holds `new.size()` bytes.
        unsafe { ptr::write_bytes(fresh.cast::<u8>().as_ptr().add(keep), 0, new.size() - keep) };
    }
    state.release(offset, old.size());
    Ok(fresh)
}

/// The region of a [`StaticArena`]: `N` bytes starting on a 64-byte boundary.
#[repr(C, align(64))]
struct Region<const N: usize>(UnsafeCell<[u8; N]>);

/// A bump arena over an internal `N`-byte region aligned to 64 bytes, meant
/// to live in a `static` (its bytes go to `.bss`).
///
/// The allocator is `&StaticArena<N>` (a `Copy` reference, as builders need
/// `A: Clone`); the arena itself is not an allocator because moving it would
/// move the memory it handed out.
///
/// - Allocation moves an atomic cursor (lock-free; on targets without
///   compare-and-swap through `portable-atomic`'s critical-section fallback).
/// - Deallocation frees only the top allocation (LIFO frees reclaim memory);
///   the top allocation grows and shrinks in place.
/// - Exhaustion returns [`AllocError`] (`alkaid::Error::AllocationFailed`).
///
/// ```
/// use alkaid_alloc::StaticArena;
/// use allocator_api2::alloc::{Allocator, Layout};
///
/// static ARENA: StaticArena<1024> = StaticArena::new();
///
/// let a = (&ARENA).allocate(Layout::from_size_align(100, 8).unwrap()).unwrap();
/// assert_eq!(a.cast::<u8>().as_ptr() as usize % 64, 0);
/// assert_eq!(ARENA.used(), 100);
/// assert!((&ARENA).allocate(Layout::from_size_align(2000, 8).unwrap()).is_err());
/// ```
///
/// A string column in a static arena; a request the arena cannot hold is
/// `Error::AllocationFailed`; once nothing from the arena is alive, it
/// starts over:
///
/// ```
/// use alkaid::array::{Array, PrimitiveArray, StringArray};
/// use alkaid::Error;
/// use alkaid_alloc::StaticArena;
///
/// static ARENA: StaticArena<2048> = StaticArena::new();
///
/// let names = StringArray::try_from_options_in(&[Some("ada"), None, Some("grace")], &ARENA)?;
/// assert_eq!(names.value(2), Some("grace"));
/// assert_eq!(names.null_count(), 1);
/// assert!(ARENA.used() >= 2 * 64); // offsets and bytes, 64-byte aligned and padded
///
/// let too_big = PrimitiveArray::<u64, _>::try_from_options_in(&[Some(7); 1000], &ARENA);
/// assert_eq!(too_big.err(), Some(Error::AllocationFailed)); // 8000 bytes
///
/// drop(names);
/// // SAFETY: nothing allocated from `ARENA` is alive, no other thread uses it.
/// unsafe { ARENA.reset_unchecked() };
/// assert_eq!(ARENA.used(), 0);
/// assert!(ARENA.peak() >= 2 * 64);
/// # Ok::<(), Error>(())
/// ```
pub struct StaticArena<const N: usize> {
    region: Region<N>,
    state: BumpState,
}

// SAFETY: the region is only accessed through allocations, and every byte
// range is handed out to one allocation at a time by the atomic cursor.
unsafe impl<const N: usize> Sync for StaticArena<N> {}

impl<const N: usize> StaticArena<N> {
    /// An empty arena of `N` bytes (usable in a `static`).
    pub const fn new() -> Self {
        StaticArena {
            region: Region(UnsafeCell::new([0; N])),
            state: BumpState::new(),
        }
    }

    #[inline]
    fn base(&self) -> *mut u8 {
        self.region.0.get().cast::<u8>()
    }

    /// Size of the region in bytes (`N`).
    pub const fn capacity(&self) -> usize {
        N
    }

    /// Bytes in use: the cursor's offset, including alignment gaps and freed
    /// allocations below the top.
    pub fn used(&self) -> usize {
        self.state.used()
    }

    /// Bytes still available at the cursor (before alignment).
    pub fn remaining(&self) -> usize {
        N.saturating_sub(self.used())
    }

    /// The highest [`Self::used`] since the arena was created.
    pub fn peak(&self) -> usize {
        self.state.peak()
    }

    /// Frees everything: the next allocation starts at offset 0 again. The
    /// peak is kept. `&mut self` proves no allocation is live.
    pub fn reset(&mut self) {
        *self.state.cursor.get_mut() = 0;
    }

    /// Frees everything through a shared reference (an arena in a `static`).
    ///
    /// # Safety
    /// No allocation from this arena may be live (every buffer, array and
    /// builder using it must have been dropped), and no other thread may
    /// allocate concurrently.
    pub unsafe fn reset_unchecked(&self) {
        self.state.cursor.store(0, Ordering::Release);
    }
}

impl<const N: usize> Default for StaticArena<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> fmt::Debug for StaticArena<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StaticArena")
            .field("capacity", &N)
            .field("used", &self.used())
            .field("peak", &self.peak())
            .finish()
    }
}

// SAFETY: allocations are disjoint ranges of the region (reserved by the
// atomic cursor), valid while the arena is borrowed, i.e. for as long as this
// reference and its copies live; the arena cannot move while borrowed.
unsafe impl<const N: usize> Allocator for &StaticArena<N> {
    fn allocate(&self, layout: Layout) -> Result<NonNull<[u8]>, AllocError> {
        // SAFETY: the region is ours and only reached through reservations.
        unsafe { bump_allocate(&self.state, self.base(), N, layout) }
    }

    unsafe fn deallocate(&self, ptr: NonNull<u8>, layout: Layout) {
        self.state
            .release(offset_of(self.base(), ptr), layout.size());
    }

    unsafe fn grow(
        &self,
        ptr: NonNull<u8>,
        old: Layout,
        new: Layout,
    ) -> Result<NonNull<[u8]>, AllocError> {
        // SAFETY: the caller passes a live allocation of `old` from us.
        unsafe { bump_resize(&self.state, self.base(), N, ptr, old, new, false) }
    }

    unsafe fn grow_zeroed(
        &self,
        ptr: NonNull<u8>,
        old: Layout,
        new: Layout,
    ) -> Result<NonNull<[u8]>, AllocError> {
        // SAFETY: as `grow`.
        unsafe { bump_resize(&self.state, self.base(), N, ptr, old, new, true) }
    }

    unsafe fn shrink(
        &self,
        ptr: NonNull<u8>,
        old: Layout,
        new: Layout,
    ) -> Result<NonNull<[u8]>, AllocError> {
        // SAFETY: as `grow`.
        unsafe { bump_resize(&self.state, self.base(), N, ptr, old, new, false) }
    }
}

/// A bump arena over a byte region the caller lends for `'a` (a stack array,
/// a linker section, a slice of a larger buffer).
///
/// Same behaviour as [`StaticArena`]; allocations are aligned by address, so
/// the region itself needs no particular alignment. `Arena` is an allocator by
/// value (the memory does not move with it) and `&Arena` is the `Copy`
/// allocator to give to builders.
///
/// ```
/// use alkaid_alloc::Arena;
/// use allocator_api2::alloc::{Allocator, Layout};
///
/// let mut buf = [0u8; 512];
/// let arena = Arena::new(&mut buf);
/// let p = (&arena).allocate(Layout::from_size_align(10, 64).unwrap()).unwrap();
/// assert_eq!(p.cast::<u8>().as_ptr() as usize % 64, 0);
/// ```
///
/// Columns in a stack buffer, the buffer reused for the next batch:
///
/// ```
/// use alkaid::array::{Array, PrimitiveBuilder};
/// use alkaid_alloc::Arena;
///
/// let mut region = [0u8; 1024];
/// let mut arena = Arena::new(&mut region);
/// for batch in 0..3 {
///     let mut b = PrimitiveBuilder::<f32, _>::new_in(&arena);
///     b.try_append_slice(&[1.5, 2.5, batch as f32])?;
///     let a = b.finish();
///     assert_eq!(a.values(), &[1.5, 2.5, batch as f32]);
///     assert!(arena.used() >= 64);
///     drop(a);
///     arena.reset(); // `&mut`: the borrow checker proves `a` is gone
///     assert_eq!(arena.used(), 0);
/// }
/// assert!(arena.peak() >= 64);
/// # Ok::<(), alkaid::Error>(())
/// ```
pub struct Arena<'a> {
    base: NonNull<u8>,
    cap: usize,
    state: BumpState,
    _region: PhantomData<&'a mut [u8]>,
}

// SAFETY: the arena holds the unique borrow of its region; bytes are handed
// out to one allocation at a time by the atomic cursor.
unsafe impl Send for Arena<'_> {}
// SAFETY: as `Send`; shared use only reserves disjoint ranges.
unsafe impl Sync for Arena<'_> {}

impl<'a> Arena<'a> {
    /// An arena over `region` (borrowed mutably for `'a`).
    pub fn new(region: &'a mut [u8]) -> Self {
        let cap = region.len();
        Arena {
            base: NonNull::from(region).cast::<u8>(),
            cap,
            state: BumpState::new(),
            _region: PhantomData,
        }
    }

    /// Size of the region in bytes.
    pub fn capacity(&self) -> usize {
        self.cap
    }

    /// Bytes in use (see [`StaticArena::used`]).
    pub fn used(&self) -> usize {
        self.state.used()
    }

    /// Bytes still available at the cursor (before alignment).
    pub fn remaining(&self) -> usize {
        self.cap.saturating_sub(self.used())
    }

    /// The highest [`Self::used`] since the arena was created.
    pub fn peak(&self) -> usize {
        self.state.peak()
    }

    /// Frees everything; `&mut self` proves no allocation is live.
    pub fn reset(&mut self) {
        *self.state.cursor.get_mut() = 0;
    }
}

impl fmt::Debug for Arena<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Arena")
            .field("capacity", &self.cap)
            .field("used", &self.used())
            .field("peak", &self.peak())
            .finish()
    }
}

// SAFETY: allocations are disjoint ranges of the borrowed region, valid for
// `'a`, which outlives the arena; moving the arena does not move the region.
unsafe impl Allocator for Arena<'_> {
    fn allocate(&self, layout: Layout) -> Result<NonNull<[u8]>, AllocError> {
        // SAFETY: the region is uniquely borrowed by us.
        unsafe { bump_allocate(&self.state, self.base.as_ptr(), self.cap, layout) }
    }

    unsafe fn deallocate(&self, ptr: NonNull<u8>, layout: Layout) {
        self.state
            .release(offset_of(self.base.as_ptr(), ptr), layout.size());
    }

    unsafe fn grow(
        &self,
        ptr: NonNull<u8>,
        old: Layout,
        new: Layout,
    ) -> Result<NonNull<[u8]>, AllocError> {
        // SAFETY: the caller passes a live allocation of `old` from us.
        unsafe {
            bump_resize(
                &self.state,
                self.base.as_ptr(),
                self.cap,
                ptr,
                old,
                new,
                false,
            )
        }
    }

    unsafe fn grow_zeroed(
        &self,
        ptr: NonNull<u8>,
        old: Layout,
        new: Layout,
    ) -> Result<NonNull<[u8]>, AllocError> {
        // SAFETY: as `grow`.
        unsafe {
            bump_resize(
                &self.state,
                self.base.as_ptr(),
                self.cap,
                ptr,
                old,
                new,
                true,
            )
        }
    }

    unsafe fn shrink(
        &self,
        ptr: NonNull<u8>,
        old: Layout,
        new: Layout,
    ) -> Result<NonNull<[u8]>, AllocError> {
        // SAFETY: as `grow`.
        unsafe {
            bump_resize(
                &self.state,
                self.base.as_ptr(),
                self.cap,
                ptr,
                old,
                new,
                false,
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(size: usize, align: usize) -> Layout {
        Layout::from_size_align(size, align).unwrap()
    }

    #[test]
    fn region_and_allocations_are_64_aligned() {
        let arena = StaticArena::<4096>::new();
        let a = &arena;
        for size in [1usize, 3, 64, 100] {
            let p = a.allocate(layout(size, 64)).unwrap();
            assert_eq!(p.cast::<u8>().as_ptr() as usize % 64, 0);
            assert_eq!(p.len(), size);
        }
        assert_eq!(arena.base() as usize % 64, 0);
        // 1 -> 64 -> 128 -> 192 + 100
        assert_eq!(arena.used(), 292);
    }

    #[test]
    fn exhaustion_returns_alloc_error() {
        let arena = StaticArena::<256>::new();
        let a = &arena;
        a.allocate(layout(200, 8)).unwrap();
        assert_eq!(a.allocate(layout(57, 1)), Err(AllocError));
        a.allocate(layout(56, 1)).unwrap();
        assert_eq!(arena.remaining(), 0);
        assert_eq!(a.allocate(layout(1, 1)), Err(AllocError));
        // A size that overflows the address space is refused, not wrapped.
        assert_eq!(
            a.allocate(layout(isize::MAX as usize - 63, 64)),
            Err(AllocError)
        );
    }

    #[test]
    fn lifo_free_and_grow_in_place() {
        let arena = StaticArena::<1024>::new();
        let a = &arena;
        let first = a.allocate(layout(64, 64)).unwrap().cast::<u8>();
        let top = a.allocate(layout(64, 64)).unwrap().cast::<u8>();
        // SAFETY: `top` is the live top allocation of 64 bytes.
        unsafe { top.as_ptr().write_bytes(7, 64) };
        // SAFETY: as above; grows the top allocation.
        let grown = unsafe { a.grow_zeroed(top, layout(64, 64), layout(256, 64)) }.unwrap();
        assert_eq!(grown.cast::<u8>(), top, "top allocation grows in place");
        assert_eq!(arena.used(), 64 + 256);
        // SAFETY: `grown` holds 256 initialised bytes.
        let bytes = unsafe { core::slice::from_raw_parts(top.as_ptr(), 256) };
        assert!(bytes[..64].iter().all(|&b| b == 7));
        assert!(bytes[64..].iter().all(|&b| b == 0));
        // Growing a non-top allocation moves it and copies.
        // SAFETY: `first` is a live allocation of 64 bytes.
        let moved = unsafe { a.grow(first, layout(64, 64), layout(128, 64)) }.unwrap();
        assert_ne!(moved.cast::<u8>(), first);
        assert_eq!(arena.used(), 64 + 256 + 128);
        // LIFO frees give the memory back.
        // SAFETY: each pointer is live with the given layout.
        unsafe {
            a.deallocate(moved.cast(), layout(128, 64));
            assert_eq!(arena.used(), 320);
            a.deallocate(top, layout(256, 64));
            assert_eq!(arena.used(), 64);
            // `first` was already moved (and its non-top free was a no-op).
        }
        assert_eq!(arena.peak(), 448);
    }

    #[test]
    fn shrink_top_moves_cursor_back() {
        let arena = StaticArena::<512>::new();
        let a = &arena;
        let p = a.allocate(layout(300, 8)).unwrap().cast::<u8>();
        // SAFETY: `p` is live with 300 bytes.
        let s = unsafe { a.shrink(p, layout(300, 8), layout(100, 8)) }.unwrap();
        assert_eq!(s.cast::<u8>(), p);
        assert_eq!(arena.used(), 100);
    }

    #[test]
    fn reset_and_static_use() {
        static ARENA: StaticArena<128> = StaticArena::new();
        let p = (&ARENA).allocate(layout(128, 64)).unwrap();
        assert_eq!((&ARENA).allocate(layout(1, 1)), Err(AllocError));
        // SAFETY: `p` is the live top allocation.
        unsafe { (&ARENA).deallocate(p.cast(), layout(128, 64)) };
        // SAFETY: nothing from ARENA is live any more.
        unsafe { ARENA.reset_unchecked() };
        assert_eq!(ARENA.used(), 0);
        assert_eq!(ARENA.peak(), 128);

        let mut local = StaticArena::<64>::new();
        (&local).allocate(layout(64, 1)).unwrap();
        local.reset();
        assert_eq!(local.used(), 0);
    }

    #[test]
    fn borrowed_arena_aligns_by_address() {
        let mut buf = [0u8; 300];
        let mut arena = Arena::new(&mut buf[1..]);
        let a = &arena;
        let p = a.allocate(layout(10, 64)).unwrap();
        assert_eq!(p.cast::<u8>().as_ptr() as usize % 64, 0);
        let q = a.allocate(layout(1, 1)).unwrap();
        assert_eq!(
            q.cast::<u8>().as_ptr() as usize,
            p.cast::<u8>().as_ptr() as usize + 10
        );
        assert!(a.allocate(layout(400, 1)).is_err());
        arena.reset();
        assert_eq!(arena.used(), 0);
        assert_eq!(arena.capacity(), 299);
    }
}
