//! Hints to the processor to start loading memory that is about to be
//! read at a place it cannot predict: a random gather (`take` of byte
//! values, `filter` at low selectivity), or the next rows of a row-format
//! column decoder.
//!
//! Decoding rows reads each column from every row in turn, so one column's
//! pass touches a cache line or two per row, rows hundreds of bytes apart
//! and unevenly spaced (their strings differ in length): the hardware's
//! stride prefetchers cannot follow that, and once the rows outgrow the L2
//! cache each row's first load waits for memory. Asking for the row a
//! dozen places later overlaps those waits.
//!
//! The hint is `PREFETCHT0` on x86-64 (with SSE, part of its baseline) and
//! nothing on other targets. Miri runs it (as a no-op).

/// Asks the processor to bring the cache line holding `p` into its
/// caches, so that a load there a little later finds it. A hint only:
/// nothing is read architecturally and no address faults, so `p` may be
/// dangling or past the end of its allocation (computed with wrapping
/// arithmetic).
#[inline(always)]
pub(crate) fn prefetch<T>(p: *const T) {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse"))]
    // SAFETY: `_mm_prefetch` needs SSE, enabled for this build (the `cfg`
    // above); a prefetch only hints the cache and does not access memory,
    // so any address is allowed.
    unsafe {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(p.cast());
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse")))]
    let _ = p;
}

// For the row format.
cfg_row_format! {
    /// Hints the first two cache lines of the row `AHEAD` (12) rows after row
    /// `i` of `rows` (a cursor decoder about to read row `i`, so `i <
    /// rows.len()`: the sum cannot overflow); nothing past the last row.
    #[inline(always)]
    pub(crate) fn ahead(rows: &[&[u8]], i: usize) {
        /// How many rows ahead of the one being decoded the hint is given.
        const AHEAD: usize = 12;
        if let Some(r) = rows.get(i + AHEAD) {
            let p = r.as_ptr();
            prefetch(p);
            prefetch(p.wrapping_add(63));
        }
    }
}
