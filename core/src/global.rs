//! [`Global`]: the default allocator (feature `alloc`), the global heap with
//! the 64-byte alignment of Arrow buffers made by over-allocating.
//!
//! Every owned buffer asks its allocator for 64-byte alignment
//! ([`crate::buffer::ALIGNMENT`]). The global allocator serves alignments
//! above its minimum (16 bytes on 64-bit targets) through an aligned
//! allocation call: in glibc that is `posix_memalign`, which on this
//! project's machines (glibc 2.36) skips the per-thread cache, takes the
//! arena's lock and splits a chunk on every call, and leaves the split-off
//! pieces in the bins for later calls to sort through. A decode of 10 short
//! lists spent about 1,400 of its 7,600 instructions there, and its time
//! moved by a fifth with what earlier calls had left in the heap.
//!
//! So [`Global`] asks the global allocator for `size + align` bytes at its
//! minimum alignment and places the data at the first `align` boundary past
//! the block's start, keeping that distance in the `usize` just before the
//! data; `grow` and `shrink` allocate, copy and free, as the global
//! allocator's aligned path does. Alignments up to the minimum and zero-sized
//! layouts go to the global allocator unchanged. The cost is `align` bytes per over-aligned allocation
//! (64 bytes a buffer). [`allocator_api2::alloc::Global`], the global heap
//! without this, serves every type of the crate as well; the two must not
//! free each other's memory.

use core::alloc::Layout;
use core::ptr::NonNull;

use allocator_api2::alloc::{AllocError, Allocator, Global as Heap};

/// The alignment asked of the global allocator for an over-aligned block:
/// the minimum its `malloc` path gives on common targets (16 bytes on
/// 64-bit, 8 on 32-bit ones).
const BLOCK_ALIGN: usize = 2 * size_of::<usize>();

/// The bytes before the data that hold its distance from the block's start.
const SLOT: usize = size_of::<usize>();

/// The block size from which a zeroed over-aligned allocation asks the
/// global allocator for zeroed memory (`calloc`, which gets fresh pages
/// zeroed from the system) rather than for memory it then zeroes itself:
/// glibc's default `mmap` threshold. Below it, `calloc` bypasses glibc's
/// per-thread cache (in 2.36) and `malloc` followed by zeroing is cheaper.
const CALLOC_FROM: usize = 128 * 1024;

/// The default allocator with feature `alloc`: the global heap
/// (`#[global_allocator]`, or the system's), with alignments above 16 bytes
/// (8 on 32-bit targets) made by over-allocating, so that 64-byte aligned
/// buffers come from the allocator's ordinary, cached path.
///
/// An allocation of `size` bytes aligned to `align` > 16 takes a block of
/// `size + align` bytes aligned to 16 and starts `align - start % align`
/// bytes into it (16 to `align` bytes); `grow` and `shrink` move it to a
/// new block. Other layouts go to [`allocator_api2::alloc::Global`] as
/// they are.
///
/// # Errors
/// Every method returns [`AllocError`] where the global allocator fails,
/// and where `size + align` overflows or exceeds `isize::MAX`.
///
/// ```
/// use alkaid::allocator_api2::alloc::{Allocator, Layout};
/// use alkaid::Global;
///
/// let layout = Layout::from_size_align(100, 64).unwrap();
/// let block = Global.allocate(layout).unwrap();
/// assert_eq!(block.as_ptr() as *mut u8 as usize % 64, 0);
/// assert_eq!(block.len(), 100);
/// // SAFETY: `block` came from `Global.allocate(layout)`.
/// unsafe { Global.deallocate(block.cast(), layout) };
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Global;

/// Whether `layout` is served by over-allocating.
fn over_aligned(layout: Layout) -> bool {
    layout.align() > BLOCK_ALIGN && layout.size() != 0
}

/// The block behind an over-aligned allocation of `layout`.
fn block_layout(layout: Layout) -> Result<Layout, AllocError> {
    let size = layout
        .size()
        .checked_add(layout.align())
        .ok_or(AllocError)?;
    Layout::from_size_align(size, BLOCK_ALIGN).map_err(|_| AllocError)
}

/// The distance from `block` to the first multiple of `align` past it:
/// `BLOCK_ALIGN..=align`, since `block` is a multiple of `BLOCK_ALIGN` and
/// `align` a larger power of two.
fn shift(block: NonNull<u8>, align: usize) -> usize {
    align - (block.as_ptr().addr() & (align - 1))
}

/// Writes the data's distance `shift` from the block's start into the
/// slot before the data and returns the data's start.
///
/// # Safety
/// `block` is valid for writes of `shift` bytes, and `shift` is a multiple
/// of `BLOCK_ALIGN` of at least `BLOCK_ALIGN`.
unsafe fn place(block: NonNull<u8>, shift: usize) -> NonNull<u8> {
    // SAFETY: `shift` bytes are in the block (the caller's contract), so
    // the data's start and the `SLOT` bytes before it are too; the slot is
    // aligned for `usize`, as the block and `shift` are multiples of
    // `BLOCK_ALIGN`.
    unsafe {
        let data = block.add(shift);
        data.sub(SLOT).cast::<usize>().write(shift);
        data
    }
}

/// The start of the block behind `data`.
///
/// # Safety
/// `data` was returned by [`place`] and its block is still allocated.
unsafe fn block_of(data: NonNull<u8>) -> NonNull<u8> {
    // SAFETY: `place` wrote the distance into the slot before `data`, inside
    // the same block; `data` minus it is the block's start.
    unsafe { data.sub(data.sub(SLOT).cast::<usize>().read()) }
}

impl Global {
    /// Allocates an over-aligned `layout`, zeroed or not.
    fn allocate_over(&self, layout: Layout, zeroed: bool) -> Result<NonNull<[u8]>, AllocError> {
        let outer = block_layout(layout)?;
        let calloc = zeroed && outer.size() >= CALLOC_FROM;
        let block = if calloc {
            Heap.allocate_zeroed(outer)?
        } else {
            Heap.allocate(outer)?
        }
        .cast::<u8>();
        // SAFETY: the block holds `size + align` bytes aligned to
        // `BLOCK_ALIGN`, and `shift` is at most `align`, a multiple of
        // `BLOCK_ALIGN`, at least `BLOCK_ALIGN`; the data's `size` bytes
        // follow it inside the block.
        let data = unsafe {
            let data = place(block, shift(block, layout.align()));
            if zeroed && !calloc {
                data.write_bytes(0, layout.size());
            }
            data
        };
        Ok(NonNull::slice_from_raw_parts(data, layout.size()))
    }

    /// Moves an allocation to a new layout, over-aligned on either side:
    /// allocate, copy, free. (One copy, as the global allocator's own
    /// aligned `realloc` makes; a `realloc` of the block could move it and
    /// then need a second copy to the new alignment boundary.)
    ///
    /// # Safety
    /// `ptr` was allocated by `self` with `old`.
    unsafe fn reallocate(
        &self,
        ptr: NonNull<u8>,
        old: Layout,
        new: Layout,
    ) -> Result<NonNull<[u8]>, AllocError> {
        let fresh = self.allocate(new)?;
        // SAFETY: `ptr` holds `old.size()` bytes; the new block is another
        // allocation of `new.size()` bytes; `ptr` is freed with its layout.
        unsafe {
            let len = old.size().min(new.size());
            core::ptr::copy_nonoverlapping(ptr.as_ptr(), fresh.cast::<u8>().as_ptr(), len);
            self.deallocate(ptr, old);
        }
        Ok(fresh)
    }
}

// SAFETY: every block comes from the global allocator (`Heap`) and goes back
// to it with the layout it was allocated with: plain layouts unchanged,
// over-aligned ones as `block_layout(layout)` at the block's start, which
// `block_of` finds from the data's start. The data lies inside its block:
// `shift + size <= align + size`, the block's size. Memory stays valid until
// `deallocate`, `grow` or `shrink`, and a failed `grow` or `shrink` leaves
// the old allocation as it was (it is freed only after the copy). Copies of
// `Global` are interchangeable.
unsafe impl Allocator for Global {
    fn allocate(&self, layout: Layout) -> Result<NonNull<[u8]>, AllocError> {
        if over_aligned(layout) {
            self.allocate_over(layout, false)
        } else {
            Heap.allocate(layout)
        }
    }

    fn allocate_zeroed(&self, layout: Layout) -> Result<NonNull<[u8]>, AllocError> {
        if over_aligned(layout) {
            self.allocate_over(layout, true)
        } else {
            Heap.allocate_zeroed(layout)
        }
    }

    unsafe fn deallocate(&self, ptr: NonNull<u8>, layout: Layout) {
        // SAFETY: the caller's contract: `ptr` was allocated by `self` with
        // `layout`, so by `Heap` with it, or by `allocate_over`.
        unsafe {
            if !over_aligned(layout) {
                Heap.deallocate(ptr, layout);
            } else if let Ok(outer) = block_layout(layout) {
                // (`block_layout` succeeded when `ptr` was allocated.)
                Heap.deallocate(block_of(ptr), outer);
            }
        }
    }

    unsafe fn grow(
        &self,
        ptr: NonNull<u8>,
        old: Layout,
        new: Layout,
    ) -> Result<NonNull<[u8]>, AllocError> {
        // SAFETY: the caller's contract, passed on; each branch matches how
        // `ptr` was allocated.
        unsafe {
            match (over_aligned(old), over_aligned(new)) {
                (false, false) => Heap.grow(ptr, old, new),
                _ => self.reallocate(ptr, old, new),
            }
        }
    }

    unsafe fn grow_zeroed(
        &self,
        ptr: NonNull<u8>,
        old: Layout,
        new: Layout,
    ) -> Result<NonNull<[u8]>, AllocError> {
        // SAFETY: the caller's contract, passed on; the bytes past
        // `old.size()` are inside the grown allocation of `new.size()`.
        unsafe {
            let grown = self.grow(ptr, old, new)?;
            let start = grown.cast::<u8>().add(old.size());
            start.write_bytes(0, new.size() - old.size());
            Ok(grown)
        }
    }

    unsafe fn shrink(
        &self,
        ptr: NonNull<u8>,
        old: Layout,
        new: Layout,
    ) -> Result<NonNull<[u8]>, AllocError> {
        // SAFETY: the caller's contract, passed on; each branch matches how
        // `ptr` was allocated.
        unsafe {
            match (over_aligned(old), over_aligned(new)) {
                (false, false) => Heap.shrink(ptr, old, new),
                _ => self.reallocate(ptr, old, new),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fills `len` bytes at `ptr` with a pattern that starts at `seed`.
    fn fill(ptr: NonNull<[u8]>, len: usize, seed: u8) {
        // SAFETY: the callers pass allocations of at least `len` bytes.
        let bytes = unsafe { core::slice::from_raw_parts_mut(ptr.cast::<u8>().as_ptr(), len) };
        for (i, b) in bytes.iter_mut().enumerate() {
            *b = seed.wrapping_add(i as u8);
        }
    }

    /// Whether the `len` bytes at `ptr` still hold `fill`'s pattern.
    fn holds(ptr: NonNull<[u8]>, len: usize, seed: u8) -> bool {
        // SAFETY: the callers pass allocations of at least `len` bytes.
        let bytes = unsafe { core::slice::from_raw_parts(ptr.cast::<u8>().as_ptr(), len) };
        bytes
            .iter()
            .enumerate()
            .all(|(i, &b)| b == seed.wrapping_add(i as u8))
    }

    fn aligned(ptr: NonNull<[u8]>, align: usize) -> bool {
        ptr.cast::<u8>().as_ptr().addr() % align == 0
    }

    /// Allocations of every alignment from 1 to 4,096 bytes start on their
    /// boundary, hold their bytes, zero when asked, and free.
    #[test]
    fn allocations_are_aligned_and_hold_their_bytes() {
        for align in [1, 8, 16, 32, 64, 128, 4096] {
            for size in [1, 7, 64, 100, 300] {
                let layout = Layout::from_size_align(size, align).unwrap();
                let p = Global.allocate(layout).unwrap();
                assert!(aligned(p, align), "size {size} align {align}");
                assert_eq!(p.len(), size);
                fill(p, size, 3);
                assert!(holds(p, size, 3));
                let z = Global.allocate_zeroed(layout).unwrap();
                assert!(aligned(z, align));
                // SAFETY: `z` holds `size` bytes.
                let zs = unsafe { core::slice::from_raw_parts(z.cast::<u8>().as_ptr(), size) };
                assert!(zs.iter().all(|&b| b == 0));
                assert!(holds(p, size, 3), "the zeroed block overlaps");
                // SAFETY: both come from `Global` with `layout`.
                unsafe {
                    Global.deallocate(p.cast(), layout);
                    Global.deallocate(z.cast(), layout);
                }
            }
        }
    }

    /// Zero-sized layouts, of any alignment, give an aligned dangling
    /// pointer that grows into a real allocation and shrinks back.
    #[test]
    fn zero_sized_layouts_grow_and_shrink() {
        let empty = Layout::from_size_align(0, 64).unwrap();
        let p = Global.allocate(empty).unwrap();
        assert!(aligned(p, 64));
        assert_eq!(p.len(), 0);
        let big = Layout::from_size_align(200, 64).unwrap();
        // SAFETY: `p` came from `Global` with `empty`; the sizes grow, then shrink.
        unsafe {
            let g = Global.grow(p.cast(), empty, big).unwrap();
            assert!(aligned(g, 64));
            fill(g, 200, 9);
            assert!(holds(g, 200, 9));
            let s = Global.shrink(g.cast(), big, empty).unwrap();
            assert!(aligned(s, 64));
            Global.deallocate(s.cast(), empty);
        }
    }

    /// Growing and shrinking an over-aligned allocation keeps its bytes and
    /// its alignment, by small steps and by large ones, each into a new
    /// block at its own distance from the boundary.
    #[test]
    fn grow_and_shrink_keep_bytes_and_alignment() {
        for align in [32, 64, 256] {
            let mut layout = Layout::from_size_align(8, align).unwrap();
            let mut p = Global.allocate(layout).unwrap();
            fill(p, 8, 1);
            for size in [24, 64, 65, 300, 301, 2000] {
                let next = Layout::from_size_align(size, align).unwrap();
                // SAFETY: `p` came from `Global` with `layout`; `size` grows.
                p = unsafe { Global.grow(p.cast(), layout, next) }.unwrap();
                assert!(aligned(p, align), "grow to {size} align {align}");
                assert!(holds(p, layout.size(), 1), "grow to {size} align {align}");
                fill(p, size, 1);
                layout = next;
            }
            for size in [1000, 100, 1] {
                let next = Layout::from_size_align(size, align).unwrap();
                // SAFETY: `p` came from `Global` with `layout`; `size` shrinks.
                p = unsafe { Global.shrink(p.cast(), layout, next) }.unwrap();
                assert!(aligned(p, align), "shrink to {size} align {align}");
                assert!(holds(p, size, 1), "shrink to {size} align {align}");
                layout = next;
            }
            // SAFETY: `p` came from `Global` with `layout`.
            unsafe { Global.deallocate(p.cast(), layout) };
        }
    }

    /// `grow_zeroed` zeroes exactly the new bytes, and a change of alignment
    /// (plain to over-aligned and back) moves the bytes.
    #[test]
    fn grow_zeroed_and_alignment_changes() {
        let small = Layout::from_size_align(40, 64).unwrap();
        let large = Layout::from_size_align(1000, 64).unwrap();
        let p = Global.allocate(small).unwrap();
        fill(p, 40, 7);
        // SAFETY: `p` came from `Global` with `small`; the size grows.
        let g = unsafe { Global.grow_zeroed(p.cast(), small, large) }.unwrap();
        assert!(holds(g, 40, 7));
        // SAFETY: `g` holds 1,000 bytes.
        let tail = unsafe { core::slice::from_raw_parts(g.cast::<u8>().as_ptr().add(40), 960) };
        assert!(tail.iter().all(|&b| b == 0));
        let plain = Layout::from_size_align(1000, 8).unwrap();
        let wider = Layout::from_size_align(2000, 128).unwrap();
        // SAFETY: each pointer came from `Global` with the layout passed as old.
        unsafe {
            let q = Global.shrink(g.cast(), large, plain).unwrap();
            assert!(holds(q, 40, 7));
            let r = Global.grow(q.cast(), plain, wider).unwrap();
            assert!(aligned(r, 128));
            assert!(holds(r, 40, 7));
            Global.deallocate(r.cast(), wider);
        }
    }

    /// Zeroed allocations on both sides of `CALLOC_FROM` (zeroed by us
    /// below it, by the global allocator from it) are zero where a freed,
    /// written block of the same size was.
    #[test]
    fn zeroed_allocations_are_zero_on_both_paths() {
        for size in [CALLOC_FROM - 200, CALLOC_FROM + 100] {
            let layout = Layout::from_size_align(size, 64).unwrap();
            let dirty = Global.allocate(layout).unwrap();
            // Every 61st byte and the last (a whole fill is slow under Miri).
            // SAFETY: `dirty` holds `size` bytes.
            let d = unsafe { core::slice::from_raw_parts_mut(dirty.cast::<u8>().as_ptr(), size) };
            d.iter_mut().step_by(61).for_each(|b| *b = 0xA5);
            d[size - 1] = 0xA5;
            // SAFETY: `dirty` came from `Global` with `layout`.
            unsafe { Global.deallocate(dirty.cast(), layout) };
            let z = Global.allocate_zeroed(layout).unwrap();
            assert!(aligned(z, 64));
            // SAFETY: `z` holds `size` bytes.
            let bytes = unsafe { core::slice::from_raw_parts(z.cast::<u8>().as_ptr(), size) };
            assert!(bytes.iter().step_by(61).all(|&b| b == 0), "size {size}");
            assert_eq!(bytes.last(), Some(&0));
            // SAFETY: `z` came from `Global` with `layout`.
            unsafe { Global.deallocate(z.cast(), layout) };
        }
    }

    /// A size whose block would pass `isize::MAX` is an error, not a panic.
    #[test]
    fn oversized_layouts_fail() {
        let layout = Layout::from_size_align(isize::MAX as usize - 63, 64).unwrap();
        assert_eq!(Global.allocate(layout), Err(AllocError));
        assert_eq!(Global.allocate_zeroed(layout), Err(AllocError));
        let small = Layout::from_size_align(16, 64).unwrap();
        let p = Global.allocate(small).unwrap();
        fill(p, 16, 5);
        // SAFETY: `p` came from `Global` with `small`; the size grows.
        let grown = unsafe { Global.grow(p.cast(), small, layout) };
        assert_eq!(grown, Err(AllocError));
        assert!(holds(p, 16, 5), "a failed grow leaves the block as it was");
        // SAFETY: `p` is still allocated with `small`.
        unsafe { Global.deallocate(p.cast(), small) };
    }
}
