//! [`FailAt`]: a fault-injecting allocator wrapper for out-of-memory tests.

use core::alloc::Layout;
use core::fmt;
use core::ptr::NonNull;

use allocator_api2::alloc::{AllocError, Allocator};
use portable_atomic::{AtomicUsize, Ordering};

/// Which requests a [`FailAt`] refuses once it reaches the failing one.
///
/// ```
/// use alkaid_alloc::{FailAt, FailMode};
/// use allocator_api2::alloc::{Allocator, Global, Layout};
///
/// let l = Layout::new::<u32>();
/// let outcomes = |mode| {
///     let f = FailAt::new(Global, 1, mode);
///     [0; 3].map(|_| match (&f).allocate(l) {
///         Ok(p) => {
///             unsafe { (&f).deallocate(p.cast(), l) };
///             true
///         }
///         Err(_) => false,
///     })
/// };
/// assert_eq!(outcomes(FailMode::Once), [true, false, true]);
/// assert_eq!(outcomes(FailMode::From), [true, false, false]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FailMode {
    /// Only request number `k` fails; later requests reach the inner allocator.
    Once,
    /// Request number `k` and every later one fail (memory ran out for good).
    From,
}

/// Wraps an allocator `A` and makes request number `k` fail (counting from 0:
/// requests `0..k` are forwarded), then, depending on [`FailMode`], every
/// later request or none.
///
/// A *request* is any call that can fail: `allocate`, `allocate_zeroed`,
/// `grow`, `grow_zeroed` and `shrink`. `deallocate` is always forwarded and
/// not counted. A refused `grow` leaves the old allocation intact, as the
/// [`Allocator`] contract requires.
///
/// Typical use: run an operation with `k = 0, 1, 2, ...` until it completes
/// without reaching request `k`, checking each time that it returns an error
/// (never panics) and, with a [`crate::Counting`] inside, that nothing leaked.
/// The counters are atomic: `FailAt<A>` is `Send + Sync` when `A` is, and
/// [`Self::set_fail_at`] moves the failing request of an allocator that is
/// already in use (or in a `static`).
///
/// Counting requests by hand:
///
/// ```
/// use alkaid_alloc::{FailAt, FailMode};
/// use allocator_api2::alloc::{Allocator, Global, Layout};
///
/// let f = FailAt::new(Global, 1, FailMode::Once);
/// let l = Layout::new::<u64>();
/// let a = (&f).allocate(l).unwrap(); // request 0
/// assert!((&f).allocate(l).is_err()); // request 1 fails
/// let b = (&f).allocate(l).unwrap(); // request 2
/// assert_eq!((f.requests(), f.failures()), (3, 1));
/// unsafe { (&f).deallocate(a.cast(), l); (&f).deallocate(b.cast(), l) };
/// ```
///
/// Every allocation failure of building an alkaid array is an error, and
/// none leaks (a [`crate::Counting`] inside sees every byte come back):
///
/// ```
/// use alkaid::array::{Array, PrimitiveBuilder};
/// use alkaid::Error;
/// use alkaid_alloc::{Counting, FailAt, FailMode};
/// use allocator_api2::alloc::Global;
///
/// fn build<A: allocator_api2::alloc::Allocator + Clone>(a: A) -> alkaid::Result<usize> {
///     let mut b = PrimitiveBuilder::<i64, _>::new_in(a);
///     for v in 0..1000 {
///         b.try_append_value(v)?;
///     }
///     Ok(b.finish().len())
/// }
///
/// // How many requests a successful run makes.
/// let counting = Counting::new(Global);
/// let probe = FailAt::new(&counting, usize::MAX, FailMode::Once);
/// assert_eq!(build(&probe)?, 1000);
/// let needed = probe.requests();
/// assert!(needed > 0);
///
/// // Each of them, refused in turn, makes the run fail cleanly.
/// for k in 0..needed {
///     let counting = Counting::new(Global);
///     let f = FailAt::new(&counting, k, FailMode::Once);
///     assert_eq!(build(&f), Err(Error::AllocationFailed), "request {k}");
///     assert!(f.triggered());
///     assert_eq!(counting.bytes_outstanding(), 0, "leak after request {k}");
/// }
/// # Ok::<(), Error>(())
/// ```
pub struct FailAt<A> {
    inner: A,
    fail_at: AtomicUsize,
    mode: FailMode,
    requests: AtomicUsize,
    failures: AtomicUsize,
    largest: AtomicUsize,
}

impl<A> FailAt<A> {
    /// Fails request number `k` (0-based) of `inner`, and later ones per `mode`.
    pub const fn new(inner: A, k: usize, mode: FailMode) -> Self {
        FailAt {
            inner,
            fail_at: AtomicUsize::new(k),
            mode,
            requests: AtomicUsize::new(0),
            failures: AtomicUsize::new(0),
            largest: AtomicUsize::new(0),
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

    /// Index of the first request that fails (counting from 0 over the
    /// requests made since the allocator was created).
    pub fn fail_at(&self) -> usize {
        self.fail_at.load(Ordering::Acquire)
    }

    /// Makes request number `k` (counted from the creation of the
    /// allocator, as [`Self::requests`]) the failing one, from now on;
    /// `usize::MAX` disarms it. Requests already made are not revisited: a
    /// `k` at or below [`Self::requests`] fails the next request in
    /// [`FailMode::From`] and none in [`FailMode::Once`]. The counters keep
    /// running, so `f.set_fail_at(f.requests() + n)` lets the next `n`
    /// requests through and fails the one after.
    ///
    /// ```
    /// use alkaid_alloc::{FailAt, FailMode};
    /// use allocator_api2::alloc::{Allocator, Global, Layout};
    ///
    /// static F: FailAt<Global> = FailAt::new(Global, usize::MAX, FailMode::Once);
    /// let l = Layout::new::<u8>();
    /// let p = (&F).allocate(l).unwrap();
    /// F.set_fail_at(F.requests() + 1); // the next one goes through, then one fails
    /// let q = (&F).allocate(l).unwrap();
    /// assert!((&F).allocate(l).is_err());
    /// assert_eq!(F.failures(), 1);
    /// unsafe { (&F).deallocate(p.cast(), l); (&F).deallocate(q.cast(), l) };
    /// ```
    pub fn set_fail_at(&self, k: usize) {
        self.fail_at.store(k, Ordering::Release);
    }

    /// The mode.
    pub fn mode(&self) -> FailMode {
        self.mode
    }

    /// Number of requests seen so far (failed ones included).
    pub fn requests(&self) -> usize {
        self.requests.load(Ordering::Acquire)
    }

    /// Number of requests refused so far.
    pub fn failures(&self) -> usize {
        self.failures.load(Ordering::Acquire)
    }

    /// The largest size in bytes asked for by one request so far (the
    /// layout of an allocation, the new layout of a grow or shrink), refused
    /// requests included: a bound on what an operation tries to allocate
    /// at once.
    ///
    /// ```
    /// use alkaid::array::PrimitiveArray;
    /// use alkaid_alloc::{FailAt, FailMode};
    /// use allocator_api2::alloc::Global;
    ///
    /// let f = FailAt::new(Global, usize::MAX, FailMode::Once);
    /// let a = PrimitiveArray::<u16, _>::try_from_options_in(&[Some(1); 100], &f)?;
    /// assert_eq!(a.values(), &[1; 100]);
    /// assert!(f.largest_request() >= 200); // 100 values of 2 bytes
    /// # Ok::<(), alkaid::Error>(())
    /// ```
    pub fn largest_request(&self) -> usize {
        self.largest.load(Ordering::Acquire)
    }

    /// `true` once request number `k` has been made (and refused).
    pub fn triggered(&self) -> bool {
        self.failures() > 0
    }

    /// Counts one request of `size` bytes; `Err` when it must fail.
    fn admit(&self, size: usize) -> Result<(), AllocError> {
        self.largest.fetch_max(size, Ordering::AcqRel);
        let n = self.requests.fetch_add(1, Ordering::AcqRel);
        let k = self.fail_at();
        let fail = match self.mode {
            FailMode::Once => n == k,
            FailMode::From => n >= k,
        };
        if fail {
            self.failures.fetch_add(1, Ordering::AcqRel);
            Err(AllocError)
        } else {
            Ok(())
        }
    }
}

impl<A: fmt::Debug> fmt::Debug for FailAt<A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FailAt")
            .field("inner", &self.inner)
            .field("fail_at", &self.fail_at())
            .field("mode", &self.mode)
            .field("requests", &self.requests())
            .field("failures", &self.failures())
            .field("largest_request", &self.largest_request())
            .finish()
    }
}

// SAFETY: admitted requests are forwarded unchanged to `inner`; refused ones
// return an error without touching memory.
unsafe impl<A: Allocator> Allocator for FailAt<A> {
    fn allocate(&self, layout: Layout) -> Result<NonNull<[u8]>, AllocError> {
        self.admit(layout.size())?;
        self.inner.allocate(layout)
    }

    fn allocate_zeroed(&self, layout: Layout) -> Result<NonNull<[u8]>, AllocError> {
        self.admit(layout.size())?;
        self.inner.allocate_zeroed(layout)
    }

    unsafe fn deallocate(&self, ptr: NonNull<u8>, layout: Layout) {
        // SAFETY: forwarded from the caller.
        unsafe { self.inner.deallocate(ptr, layout) }
    }

    unsafe fn grow(
        &self,
        ptr: NonNull<u8>,
        old: Layout,
        new: Layout,
    ) -> Result<NonNull<[u8]>, AllocError> {
        self.admit(new.size())?;
        // SAFETY: forwarded from the caller.
        unsafe { self.inner.grow(ptr, old, new) }
    }

    unsafe fn grow_zeroed(
        &self,
        ptr: NonNull<u8>,
        old: Layout,
        new: Layout,
    ) -> Result<NonNull<[u8]>, AllocError> {
        self.admit(new.size())?;
        // SAFETY: forwarded from the caller.
        unsafe { self.inner.grow_zeroed(ptr, old, new) }
    }

    unsafe fn shrink(
        &self,
        ptr: NonNull<u8>,
        old: Layout,
        new: Layout,
    ) -> Result<NonNull<[u8]>, AllocError> {
        self.admit(new.size())?;
        // SAFETY: forwarded from the caller.
        unsafe { self.inner.shrink(ptr, old, new) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Counting;
    use allocator_api2::alloc::Global;

    fn outcomes(f: &FailAt<&Counting<Global>>, n: usize) -> std::vec::Vec<bool> {
        let l = Layout::new::<u32>();
        let mut out = std::vec::Vec::new();
        for _ in 0..n {
            match f.allocate(l) {
                Ok(p) => {
                    out.push(true);
                    // SAFETY: `p` was just allocated with `l`.
                    unsafe { f.deallocate(p.cast(), l) };
                }
                Err(AllocError) => out.push(false),
            }
        }
        out
    }

    #[test]
    fn fails_exactly_at_k_once() {
        for k in 0..5 {
            let c = Counting::new(Global);
            let f = FailAt::new(&c, k, FailMode::Once);
            let got = outcomes(&f, 6);
            let want: std::vec::Vec<bool> = (0..6).map(|i| i != k).collect();
            assert_eq!(got, want, "k = {k}");
            assert_eq!(f.failures(), 1);
            assert_eq!(f.requests(), 6);
            assert_eq!(c.bytes_outstanding(), 0);
        }
    }

    #[test]
    fn fails_from_k_on() {
        let c = Counting::new(Global);
        let f = FailAt::new(&c, 2, FailMode::From);
        assert_eq!(outcomes(&f, 5), [true, true, false, false, false]);
        assert_eq!(f.failures(), 3);
        assert!(f.triggered());
        assert_eq!(c.total_allocations(), 2);
    }

    #[test]
    fn grow_counts_as_a_request_and_keeps_the_old_block() {
        let c = Counting::new(Global);
        let f = FailAt::new(&c, 1, FailMode::Once);
        let small = Layout::from_size_align(8, 8).unwrap();
        let big = Layout::from_size_align(64, 8).unwrap();
        let p = f.allocate(small).unwrap();
        // SAFETY: `p` is live with `small`.
        assert!(unsafe { f.grow(p.cast(), small, big) }.is_err());
        // SAFETY: the failed grow left `p` live; grow it again (request 2).
        let q = unsafe { f.grow_zeroed(p.cast(), small, big) }.unwrap();
        // SAFETY: `q` is live with `big`.
        unsafe { f.deallocate(q.cast(), big) };
        assert_eq!(c.bytes_outstanding(), 0);
        assert_eq!(f.requests(), 3);
        assert_eq!(f.largest_request(), 64, "refused grows count too");
    }

    #[test]
    fn set_fail_at_moves_the_failing_request() {
        let c = Counting::new(Global);
        let f = FailAt::new(&c, usize::MAX, FailMode::From);
        assert_eq!(outcomes(&f, 3), [true; 3]);
        f.set_fail_at(f.requests() + 2);
        assert_eq!(f.fail_at(), 5);
        assert_eq!(outcomes(&f, 4), [true, true, false, false]);
        f.set_fail_at(usize::MAX);
        assert_eq!(outcomes(&f, 2), [true, true]);
        assert_eq!((f.requests(), f.failures()), (9, 2));
        // Once, at a request already made: nothing fails any more.
        let g = FailAt::new(&c, usize::MAX, FailMode::Once);
        assert_eq!(outcomes(&g, 2), [true, true]);
        g.set_fail_at(1);
        assert_eq!(outcomes(&g, 2), [true, true]);
        assert_eq!(c.bytes_outstanding(), 0);
    }

    #[test]
    fn is_send_and_sync_across_threads() {
        fn send_sync<T: Send + Sync>(_: &T) {}
        let c = Counting::new(Global);
        let f = FailAt::new(&c, 3, FailMode::Once);
        send_sync(&f);
        std::thread::scope(|s| {
            for _ in 0..2 {
                s.spawn(|| outcomes(&f, 4));
            }
        });
        assert_eq!((f.requests(), f.failures()), (8, 1));
        assert_eq!(c.bytes_outstanding(), 0);
    }
}
