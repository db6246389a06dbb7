//! [`Counting`]: an allocator wrapper that counts bytes and allocations and
//! can enforce a byte limit.

use core::alloc::Layout;
use core::fmt;
use core::ptr::NonNull;

use allocator_api2::alloc::{AllocError, Allocator};
use portable_atomic::{AtomicUsize, Ordering};

/// Wraps an allocator `A` and counts what goes through it.
///
/// - bytes and allocations outstanding (allocated and not yet freed; a grow
///   or shrink changes the bytes, not the number of allocations);
/// - the peak of outstanding bytes;
/// - the total number of successful allocations and of refused requests;
/// - an optional byte limit: a request that would take the outstanding bytes
///   above it fails with [`AllocError`] without reaching `A`.
///
/// Byte counts are the sizes of the requested [`Layout`]s. Counters are
/// atomic, so `&Counting<A>` is a `Copy` allocator that can be shared; the
/// wrapper is deliberately not `Clone` (clones would count separately).
///
/// ```
/// use alkaid_alloc::Counting;
/// use allocator_api2::alloc::{Allocator, Global, Layout};
///
/// let counting = Counting::with_limit(Global, 100);
/// let l = Layout::from_size_align(64, 8).unwrap();
/// let p = (&counting).allocate(l).unwrap();
/// assert_eq!(counting.bytes_outstanding(), 64);
/// assert!((&counting).allocate(l).is_err()); // 128 > 100
/// unsafe { (&counting).deallocate(p.cast(), l) };
/// assert_eq!(counting.bytes_outstanding(), 0);
/// assert_eq!(counting.peak_bytes(), 64);
/// ```
///
/// What an alkaid builder asks for: bytes outstanding while the array lives,
/// the peak reached while it grew, nothing left after the drop; with a
/// limit, a column that does not fit is `Error::AllocationFailed`:
///
/// ```
/// use alkaid::array::{Array, PrimitiveArray, PrimitiveBuilder};
/// use alkaid::Error;
/// use alkaid_alloc::Counting;
/// use allocator_api2::alloc::Global;
///
/// let counting = Counting::new(Global);
/// let mut b = PrimitiveBuilder::<i64, _>::new_in(&counting);
/// for v in 0..1000 {
///     b.try_append_value(v)?;
/// }
/// let a = b.finish();
/// assert!(counting.bytes_outstanding() >= 8000); // 1000 values of 8 bytes
/// assert!(counting.peak_bytes() >= counting.bytes_outstanding());
/// assert!(counting.total_allocations() >= 1);
/// drop(a);
/// assert_eq!(counting.bytes_outstanding(), 0);
/// assert_eq!(counting.allocations_outstanding(), 0);
///
/// let capped = Counting::with_limit(Global, 1024);
/// let r = PrimitiveArray::<i64, _>::try_from_options_in(&[Some(1); 1000], &capped);
/// assert_eq!(r.err(), Some(Error::AllocationFailed));
/// assert!(capped.failed_requests() >= 1);
/// assert_eq!(capped.bytes_outstanding(), 0);
/// # Ok::<(), Error>(())
/// ```
pub struct Counting<A> {
    inner: A,
    limit: usize,
    bytes: AtomicUsize,
    allocations: AtomicUsize,
    peak: AtomicUsize,
    total: AtomicUsize,
    refused: AtomicUsize,
}

impl<A> Counting<A> {
    /// Counts the requests made to `inner`, without a limit.
    pub const fn new(inner: A) -> Self {
        Self::with_limit(inner, usize::MAX)
    }

    /// Counts the requests made to `inner` and refuses any that would take
    /// the outstanding bytes above `limit` bytes.
    pub const fn with_limit(inner: A, limit: usize) -> Self {
        Counting {
            inner,
            limit,
            bytes: AtomicUsize::new(0),
            allocations: AtomicUsize::new(0),
            peak: AtomicUsize::new(0),
            total: AtomicUsize::new(0),
            refused: AtomicUsize::new(0),
        }
    }

    /// The wrapped allocator.
    pub fn inner(&self) -> &A {
        &self.inner
    }

    /// Unwraps the allocator.
    pub fn into_inner(self) -> A {
        self.inner
    }

    /// The byte limit, if one was set.
    pub fn limit(&self) -> Option<usize> {
        (self.limit != usize::MAX).then_some(self.limit)
    }

    /// Bytes allocated and not yet freed.
    pub fn bytes_outstanding(&self) -> usize {
        self.bytes.load(Ordering::Acquire)
    }

    /// Allocations made and not yet freed.
    pub fn allocations_outstanding(&self) -> usize {
        self.allocations.load(Ordering::Acquire)
    }

    /// The highest [`Self::bytes_outstanding`] seen.
    pub fn peak_bytes(&self) -> usize {
        self.peak.load(Ordering::Acquire)
    }

    /// Number of successful allocations (`allocate`/`allocate_zeroed`) so far.
    pub fn total_allocations(&self) -> usize {
        self.total.load(Ordering::Acquire)
    }

    /// Number of requests (allocations and grows) that failed, because of the
    /// limit or because the inner allocator failed.
    pub fn failed_requests(&self) -> usize {
        self.refused.load(Ordering::Acquire)
    }

    /// Adds `n` outstanding bytes unless that passes the limit; returns the
    /// new outstanding total.
    fn charge(&self, n: usize) -> Result<usize, AllocError> {
        let limit = self.limit;
        match self
            .bytes
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |b| {
                b.checked_add(n).filter(|&t| t <= limit)
            }) {
            Ok(prev) => Ok(prev + n),
            Err(_) => {
                self.refused.fetch_add(1, Ordering::AcqRel);
                Err(AllocError)
            }
        }
    }

    fn refund(&self, n: usize) {
        self.bytes.fetch_sub(n, Ordering::AcqRel);
    }

    /// Charges `layout`, runs `f`, and undoes the charge if `f` fails.
    fn counted_alloc(
        &self,
        layout: Layout,
        f: impl FnOnce() -> Result<NonNull<[u8]>, AllocError>,
    ) -> Result<NonNull<[u8]>, AllocError> {
        let total = self.charge(layout.size())?;
        match f() {
            Ok(p) => {
                self.peak.fetch_max(total, Ordering::AcqRel);
                self.allocations.fetch_add(1, Ordering::AcqRel);
                self.total.fetch_add(1, Ordering::AcqRel);
                Ok(p)
            }
            Err(e) => {
                self.refund(layout.size());
                self.refused.fetch_add(1, Ordering::AcqRel);
                Err(e)
            }
        }
    }

    /// Charges the growth `old -> new`, runs `f`, undoes the charge on failure.
    fn counted_grow(
        &self,
        old: Layout,
        new: Layout,
        f: impl FnOnce() -> Result<NonNull<[u8]>, AllocError>,
    ) -> Result<NonNull<[u8]>, AllocError> {
        let extra = new.size().saturating_sub(old.size());
        let total = self.charge(extra)?;
        match f() {
            Ok(p) => {
                self.peak.fetch_max(total, Ordering::AcqRel);
                Ok(p)
            }
            Err(e) => {
                self.refund(extra);
                self.refused.fetch_add(1, Ordering::AcqRel);
                Err(e)
            }
        }
    }
}

impl<A: fmt::Debug> fmt::Debug for Counting<A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Counting")
            .field("inner", &self.inner)
            .field("limit", &self.limit())
            .field("bytes_outstanding", &self.bytes_outstanding())
            .field("allocations_outstanding", &self.allocations_outstanding())
            .field("peak_bytes", &self.peak_bytes())
            .field("total_allocations", &self.total_allocations())
            .field("failed_requests", &self.failed_requests())
            .finish()
    }
}

// SAFETY: every request is forwarded unchanged to `inner`, whose guarantees
// carry over; the wrapper only updates counters.
//
// `deallocate` is not inlined: every drop site of the core would otherwise
// get its own copy of the bookkeeping (atomic read-modify-writes, loops on
// Cortex-M); one copy is enough. `allocate_zeroed` is the trait's default
// (`allocate`, then zeroing), for the same reason: one counted allocation
// path instead of two.
unsafe impl<A: Allocator> Allocator for Counting<A> {
    fn allocate(&self, layout: Layout) -> Result<NonNull<[u8]>, AllocError> {
        self.counted_alloc(layout, || self.inner.allocate(layout))
    }

    #[inline(never)]
    unsafe fn deallocate(&self, ptr: NonNull<u8>, layout: Layout) {
        // SAFETY: forwarded from the caller.
        unsafe { self.inner.deallocate(ptr, layout) };
        self.refund(layout.size());
        self.allocations.fetch_sub(1, Ordering::AcqRel);
    }

    unsafe fn grow(
        &self,
        ptr: NonNull<u8>,
        old: Layout,
        new: Layout,
    ) -> Result<NonNull<[u8]>, AllocError> {
        // SAFETY: forwarded from the caller.
        self.counted_grow(old, new, || unsafe { self.inner.grow(ptr, old, new) })
    }

    unsafe fn grow_zeroed(
        &self,
        ptr: NonNull<u8>,
        old: Layout,
        new: Layout,
    ) -> Result<NonNull<[u8]>, AllocError> {
        // SAFETY: forwarded from the caller.
        self.counted_grow(old, new, || unsafe {
            self.inner.grow_zeroed(ptr, old, new)
        })
    }

    unsafe fn shrink(
        &self,
        ptr: NonNull<u8>,
        old: Layout,
        new: Layout,
    ) -> Result<NonNull<[u8]>, AllocError> {
        // SAFETY: forwarded from the caller.
        let p = unsafe { self.inner.shrink(ptr, old, new) }?;
        self.refund(old.size().saturating_sub(new.size()));
        Ok(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use allocator_api2::alloc::Global;

    fn layout(size: usize) -> Layout {
        Layout::from_size_align(size, 8).unwrap()
    }

    #[test]
    fn counts_allocations_grows_and_frees() {
        let c = Counting::new(Global);
        let a = &c;
        let p = a.allocate(layout(10)).unwrap();
        let q = a.allocate_zeroed(layout(20)).unwrap();
        assert_eq!(c.bytes_outstanding(), 30);
        assert_eq!(c.allocations_outstanding(), 2);
        // SAFETY: `q` is live with `layout(20)`.
        let q = unsafe { a.grow(q.cast(), layout(20), layout(100)) }.unwrap();
        assert_eq!(c.bytes_outstanding(), 110);
        assert_eq!(c.allocations_outstanding(), 2);
        // SAFETY: `q` is live with `layout(100)`.
        let q = unsafe { a.shrink(q.cast(), layout(100), layout(40)) }.unwrap();
        assert_eq!(c.bytes_outstanding(), 50);
        // SAFETY: both live with these layouts.
        unsafe {
            a.deallocate(p.cast(), layout(10));
            a.deallocate(q.cast(), layout(40));
        }
        assert_eq!(c.bytes_outstanding(), 0);
        assert_eq!(c.allocations_outstanding(), 0);
        assert_eq!(c.peak_bytes(), 110);
        assert_eq!(c.total_allocations(), 2);
        assert_eq!(c.failed_requests(), 0);
        assert_eq!(c.limit(), None);
    }

    #[test]
    fn limit_refuses_allocations_and_grows() {
        let c = Counting::with_limit(Global, 64);
        let a = &c;
        let p = a.allocate(layout(60)).unwrap();
        assert_eq!(a.allocate(layout(5)), Err(AllocError));
        // SAFETY: `p` is live with `layout(60)`.
        let refused = unsafe { a.grow(p.cast(), layout(60), layout(65)) };
        assert_eq!(refused, Err(AllocError));
        // SAFETY: `p` is still live after a failed grow.
        let p = unsafe { a.grow(p.cast(), layout(60), layout(64)) }.unwrap();
        assert_eq!(c.bytes_outstanding(), 64);
        assert_eq!(c.failed_requests(), 2);
        // SAFETY: live with `layout(64)`.
        unsafe { a.deallocate(p.cast(), layout(64)) };
        assert_eq!(c.bytes_outstanding(), 0);
        assert_eq!(c.limit(), Some(64));
    }

    #[test]
    fn inner_failure_is_refunded() {
        let arena = crate::StaticArena::<64>::new();
        let c = Counting::new(&arena);
        assert_eq!(c.allocate(layout(100)), Err(AllocError));
        assert_eq!(c.bytes_outstanding(), 0);
        assert_eq!(c.allocations_outstanding(), 0);
        assert_eq!(c.total_allocations(), 0);
        assert_eq!(c.failed_requests(), 1);
        assert_eq!(c.peak_bytes(), 0, "failed requests do not raise the peak");
    }
}
