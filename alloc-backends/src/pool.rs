//! [`FixedPool`]: a pool of `N` fixed-size, 64-byte aligned blocks.

use core::alloc::Layout;
use core::cell::UnsafeCell;
use core::fmt;
use core::mem::size_of;
use core::ptr::{self, NonNull};

use allocator_api2::alloc::{AllocError, Allocator};
use portable_atomic::{AtomicBool, AtomicUsize, Ordering};

/// Alignment of every block of a [`FixedPool`], in bytes.
///
/// ```
/// use alkaid_alloc::{FixedPool, BLOCK_ALIGN};
/// use allocator_api2::alloc::{Allocator, Layout};
///
/// static POOL: FixedPool<100, 2> = FixedPool::new();
/// let ok = Layout::from_size_align(100, BLOCK_ALIGN).unwrap();
/// let p = (&POOL).allocate(ok).unwrap();
/// assert_eq!(p.cast::<u8>().as_ptr() as usize % BLOCK_ALIGN, 0);
/// // Stricter alignment than a block has is refused.
/// assert!((&POOL).allocate(Layout::from_size_align(8, 2 * BLOCK_ALIGN).unwrap()).is_err());
/// unsafe { (&POOL).deallocate(p.cast(), ok) };
/// ```
pub const BLOCK_ALIGN: usize = 64;

/// One block: `B` bytes, 64-byte aligned (its size is rounded up to 64).
#[repr(C, align(64))]
struct Block<const B: usize>([u8; B]);

/// A pool of `N` blocks of `BLOCK` bytes each, every block 64-byte aligned,
/// meant to live in a `static` (its bytes go to `.bss`).
///
/// Every allocation takes one whole block, whatever its size; a layout larger
/// than `BLOCK` bytes or aligned to more than [`BLOCK_ALIGN`] fails with
/// [`AllocError`], as does an allocation when all blocks are taken. Grows and
/// shrinks within `BLOCK` bytes happen in place. Freed blocks are reused.
///
/// Block ownership is a map of `N` atomic flags claimed by compare-and-swap
/// (lock-free; scanning starts after the last block handed out). The allocator
/// is `&FixedPool` (`Copy`): moving the pool would move its blocks.
///
/// `BLOCK` and `N` must be non-zero (checked at compile time).
///
/// ```
/// use alkaid_alloc::FixedPool;
/// use allocator_api2::alloc::{Allocator, Layout};
///
/// static POOL: FixedPool<256, 4> = FixedPool::new();
/// let l = Layout::from_size_align(200, 8).unwrap();
/// let p = (&POOL).allocate(l).unwrap();
/// assert_eq!(p.cast::<u8>().as_ptr() as usize % 64, 0);
/// assert!((&POOL).allocate(Layout::from_size_align(257, 8).unwrap()).is_err());
/// assert_eq!(POOL.blocks_in_use(), 1);
/// unsafe { (&POOL).deallocate(p.cast(), l) };
/// assert_eq!(POOL.blocks_in_use(), 0);
/// ```
///
/// Arrays in a pool: every buffer takes a block, a buffer larger than a
/// block is `Error::AllocationFailed`, and dropping an array gives its blocks
/// back:
///
/// ```
/// use alkaid::array::{Array, PrimitiveArray};
/// use alkaid::Error;
/// use alkaid_alloc::FixedPool;
///
/// static POOL: FixedPool<512, 8> = FixedPool::new();
///
/// let a = PrimitiveArray::<i32, _>::try_from_options_in(&[Some(1), None, Some(3)], &POOL)?;
/// assert_eq!(a.get(1), None);
/// assert!(POOL.blocks_in_use() >= 1);
///
/// let big = PrimitiveArray::<i64, _>::try_from_options_in(&[Some(0); 200], &POOL);
/// assert_eq!(big.err(), Some(Error::AllocationFailed)); // 1600 bytes > 512
///
/// drop(a);
/// assert_eq!(POOL.blocks_in_use(), 0);
/// assert!(POOL.peak_blocks() >= 1);
/// # Ok::<(), Error>(())
/// ```
pub struct FixedPool<const BLOCK: usize, const N: usize> {
    blocks: UnsafeCell<[Block<BLOCK>; N]>,
    taken: [AtomicBool; N],
    /// Where the next search starts.
    hint: AtomicUsize,
    in_use: AtomicUsize,
    peak: AtomicUsize,
}

// SAFETY: a block is only accessed by the one allocation that claimed its flag
// with a compare-and-swap; the flags are atomic.
unsafe impl<const BLOCK: usize, const N: usize> Sync for FixedPool<BLOCK, N> {}

impl<const BLOCK: usize, const N: usize> FixedPool<BLOCK, N> {
    const NON_EMPTY: () = assert!(BLOCK > 0 && N > 0, "FixedPool needs BLOCK > 0 and N > 0");

    /// Distance between two blocks in bytes (`BLOCK` rounded up to 64).
    const STRIDE: usize = size_of::<Block<BLOCK>>();

    /// An empty pool (usable in a `static`).
    pub const fn new() -> Self {
        #[allow(clippy::let_unit_value)]
        let () = Self::NON_EMPTY;
        FixedPool {
            blocks: UnsafeCell::new([const { Block([0; BLOCK]) }; N]),
            taken: [const { AtomicBool::new(false) }; N],
            hint: AtomicUsize::new(0),
            in_use: AtomicUsize::new(0),
            peak: AtomicUsize::new(0),
        }
    }

    /// Bytes per block (`BLOCK`).
    pub const fn block_size(&self) -> usize {
        BLOCK
    }

    /// Number of blocks (`N`).
    pub const fn capacity(&self) -> usize {
        N
    }

    /// Blocks currently allocated.
    pub fn blocks_in_use(&self) -> usize {
        self.in_use.load(Ordering::Acquire)
    }

    /// The highest [`Self::blocks_in_use`] seen.
    pub fn peak_blocks(&self) -> usize {
        self.peak.load(Ordering::Acquire)
    }

    #[inline]
    fn base(&self) -> *mut u8 {
        self.blocks.get().cast::<u8>()
    }

    fn fits(layout: Layout) -> bool {
        layout.size() <= BLOCK && layout.align() <= BLOCK_ALIGN
    }

    /// Index of the block at `ptr`, if it is one of ours.
    fn index_of(&self, ptr: NonNull<u8>) -> Option<usize> {
        let off = (ptr.as_ptr() as usize).checked_sub(self.base() as usize)?;
        let i = off / Self::STRIDE;
        (off % Self::STRIDE == 0 && i < N).then_some(i)
    }

    fn claim(&self) -> Option<usize> {
        let start = self.hint.load(Ordering::Relaxed);
        for j in 0..N {
            let i = (start + j) % N;
            let flag = self.taken.get(i)?;
            if flag
                .compare_exchange(false, true, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
            {
                self.hint.store((i + 1) % N, Ordering::Relaxed);
                let now = self.in_use.fetch_add(1, Ordering::AcqRel) + 1;
                self.peak.fetch_max(now, Ordering::AcqRel);
                return Some(i);
            }
        }
        None
    }
}

impl<const BLOCK: usize, const N: usize> Default for FixedPool<BLOCK, N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const BLOCK: usize, const N: usize> fmt::Debug for FixedPool<BLOCK, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FixedPool")
            .field("block_size", &BLOCK)
            .field("capacity", &N)
            .field("blocks_in_use", &self.blocks_in_use())
            .field("peak_blocks", &self.peak_blocks())
            .finish()
    }
}

// SAFETY: each allocation is a whole block claimed by an atomic flag, so live
// allocations never overlap; blocks are valid while the pool is borrowed (it
// cannot move meanwhile); resizes stay within the block.
unsafe impl<const BLOCK: usize, const N: usize> Allocator for &FixedPool<BLOCK, N> {
    fn allocate(&self, layout: Layout) -> Result<NonNull<[u8]>, AllocError> {
        if !FixedPool::<BLOCK, N>::fits(layout) {
            return Err(AllocError);
        }
        let i = self.claim().ok_or(AllocError)?;
        // SAFETY: `i < N`, so the block lies within the array.
        let p = unsafe { self.base().add(i * FixedPool::<BLOCK, N>::STRIDE) };
        let p = NonNull::new(p).ok_or(AllocError)?;
        Ok(NonNull::slice_from_raw_parts(p, layout.size()))
    }

    unsafe fn deallocate(&self, ptr: NonNull<u8>, _layout: Layout) {
        if let Some(flag) = self.index_of(ptr).and_then(|i| self.taken.get(i)) {
            if flag.swap(false, Ordering::AcqRel) {
                self.in_use.fetch_sub(1, Ordering::AcqRel);
            }
        }
    }

    unsafe fn grow(
        &self,
        ptr: NonNull<u8>,
        _old: Layout,
        new: Layout,
    ) -> Result<NonNull<[u8]>, AllocError> {
        if !FixedPool::<BLOCK, N>::fits(new) {
            return Err(AllocError);
        }
        Ok(NonNull::slice_from_raw_parts(ptr, new.size()))
    }

    unsafe fn grow_zeroed(
        &self,
        ptr: NonNull<u8>,
        old: Layout,
        new: Layout,
    ) -> Result<NonNull<[u8]>, AllocError> {
        // SAFETY: forwarded from the caller.
        let p = unsafe { self.grow(ptr, old, new) }?;
        // SAFETY: the block holds `BLOCK >= new.size()` bytes owned by this allocation.
        unsafe { ptr::write_bytes(ptr.as_ptr().add(old.size()), 0, new.size() - old.size()) };
        Ok(p)
    }

    unsafe fn shrink(
        &self,
        ptr: NonNull<u8>,
        _old: Layout,
        new: Layout,
    ) -> Result<NonNull<[u8]>, AllocError> {
        if new.align() > BLOCK_ALIGN {
            return Err(AllocError);
        }
        Ok(NonNull::slice_from_raw_parts(ptr, new.size()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_aligned_and_distinct() {
        let pool = FixedPool::<100, 3>::new();
        let p = &pool;
        let l = Layout::from_size_align(100, 64).unwrap();
        let a = p.allocate(l).unwrap().cast::<u8>();
        let b = p.allocate(l).unwrap().cast::<u8>();
        let c = p.allocate(Layout::new::<u8>()).unwrap().cast::<u8>();
        for x in [a, b, c] {
            assert_eq!(x.as_ptr() as usize % 64, 0);
        }
        assert_eq!(b.as_ptr() as usize - a.as_ptr() as usize, 128);
        assert_eq!(
            p.allocate(Layout::new::<u8>()),
            Err(AllocError),
            "pool is full"
        );
        // SAFETY: `b` is live.
        unsafe { p.deallocate(b, l) };
        let d = p.allocate(l).unwrap().cast::<u8>();
        assert_eq!(d, b, "a freed block is reused");
        assert_eq!(pool.blocks_in_use(), 3);
        assert_eq!(pool.peak_blocks(), 3);
    }

    #[test]
    fn too_big_or_too_aligned_fails() {
        let pool = FixedPool::<64, 2>::new();
        let p = &pool;
        assert!(p.allocate(Layout::from_size_align(65, 1).unwrap()).is_err());
        assert!(p
            .allocate(Layout::from_size_align(8, 128).unwrap())
            .is_err());
        let l = Layout::from_size_align(10, 8).unwrap();
        let a = p.allocate(l).unwrap().cast::<u8>();
        // SAFETY: `a` is live with `l`.
        unsafe { a.as_ptr().write_bytes(9, 10) };
        let big = Layout::from_size_align(64, 8).unwrap();
        // SAFETY: `a` is live with `l`.
        let g = unsafe { p.grow_zeroed(a, l, big) }.unwrap();
        assert_eq!(g.cast::<u8>(), a);
        // SAFETY: 64 bytes initialised.
        let bytes = unsafe { core::slice::from_raw_parts(a.as_ptr(), 64) };
        assert!(bytes[..10].iter().all(|&x| x == 9) && bytes[10..].iter().all(|&x| x == 0));
        let huge = Layout::from_size_align(65, 8).unwrap();
        // SAFETY: `a` is live with `big`.
        assert!(unsafe { p.grow(a, big, huge) }.is_err());
        // SAFETY: still live after the failed grow.
        unsafe { p.deallocate(a, big) };
        assert_eq!(pool.blocks_in_use(), 0);
    }
}
