//! [`Shared`]: a reference-counted handle to an allocator (feature `alloc`).

use alloc::sync::Arc;
use core::alloc::Layout;
use core::fmt;
use core::ops::Deref;
use core::ptr::NonNull;

use allocator_api2::alloc::{AllocError, Allocator};

/// A cloneable, `'static` handle to an allocator `A` kept in an [`Arc`] on
/// the global heap: every clone forwards to the same `A`.
///
/// A stateful wrapper such as [`crate::Counting`] or [`crate::FailAt`] is
/// shared by reference (`&Counting<A>`), which ties the arrays built with it
/// to the wrapper's scope. Some owners need an allocator that is `'static`
/// and `Send + Sync` — an array exported through the C Data Interface, a
/// batch handed to another thread, a value returned from the function that
/// made the allocator. On a host, `Shared<Counting<A>>` is that allocator;
/// on a firmware, a `static` and `&'static Counting<A>` are.
///
/// `Shared<A>` dereferences to `A`, so the wrapper's counters read as
/// `shared.bytes_outstanding()`. It is `Send + Sync` when `A` is. Needs the
/// `alloc` feature (and a global allocator for the handle itself; the
/// memory handed out still comes from `A`).
///
/// ```
/// use alkaid::array::{Array, PrimitiveArray};
/// use alkaid_alloc::{Counting, Shared};
/// use allocator_api2::alloc::Global;
///
/// type Alloc = Shared<Counting<Global>>;
///
/// // The array outlives this function, and so does its allocator.
/// fn make(alloc: &Alloc) -> alkaid::Result<PrimitiveArray<'static, i32, Alloc>> {
///     PrimitiveArray::try_from_options_in(&[Some(1), None, Some(3)], alloc.clone())
/// }
///
/// let alloc = Shared::new(Counting::new(Global));
/// let a = make(&alloc)?;
/// let seen_by_thread = std::thread::spawn(move || a.null_count()).join().unwrap();
/// assert_eq!(seen_by_thread, 1);
/// assert_eq!(alloc.bytes_outstanding(), 0); // dropped on the other thread
/// assert!(alloc.peak_bytes() > 0);
/// # Ok::<(), alkaid::Error>(())
/// ```
pub struct Shared<A>(Arc<A>);

impl<A> Shared<A> {
    /// Moves `alloc` to the global heap behind a reference count.
    ///
    /// # Panics
    /// Aborts (as `Arc::new` does) when the global heap cannot hold the
    /// handle; the handle is a host convenience, not an out-of-memory path.
    pub fn new(alloc: A) -> Self {
        Shared(Arc::new(alloc))
    }

    /// `true` when `a` and `b` are handles to the same allocator.
    ///
    /// ```
    /// use alkaid_alloc::{Counting, Shared};
    /// use allocator_api2::alloc::Global;
    ///
    /// let a = Shared::new(Counting::new(Global));
    /// assert!(Shared::ptr_eq(&a, &a.clone()));
    /// assert!(!Shared::ptr_eq(&a, &Shared::new(Counting::new(Global))));
    /// ```
    pub fn ptr_eq(a: &Self, b: &Self) -> bool {
        Arc::ptr_eq(&a.0, &b.0)
    }
}

impl<A> Clone for Shared<A> {
    fn clone(&self) -> Self {
        Shared(Arc::clone(&self.0))
    }
}

impl<A> Deref for Shared<A> {
    type Target = A;

    fn deref(&self) -> &A {
        &self.0
    }
}

impl<A: fmt::Debug> fmt::Debug for Shared<A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Shared").field(&*self.0).finish()
    }
}

// SAFETY: every call is forwarded unchanged to the one `A` all clones share,
// so a block allocated through one clone may be freed or resized through
// any other, as the trait requires of clones.
unsafe impl<A: Allocator> Allocator for Shared<A> {
    fn allocate(&self, layout: Layout) -> Result<NonNull<[u8]>, AllocError> {
        self.0.allocate(layout)
    }

    fn allocate_zeroed(&self, layout: Layout) -> Result<NonNull<[u8]>, AllocError> {
        self.0.allocate_zeroed(layout)
    }

    unsafe fn deallocate(&self, ptr: NonNull<u8>, layout: Layout) {
        // SAFETY: forwarded from the caller.
        unsafe { self.0.deallocate(ptr, layout) }
    }

    unsafe fn grow(
        &self,
        ptr: NonNull<u8>,
        old: Layout,
        new: Layout,
    ) -> Result<NonNull<[u8]>, AllocError> {
        // SAFETY: forwarded from the caller.
        unsafe { self.0.grow(ptr, old, new) }
    }

    unsafe fn grow_zeroed(
        &self,
        ptr: NonNull<u8>,
        old: Layout,
        new: Layout,
    ) -> Result<NonNull<[u8]>, AllocError> {
        // SAFETY: forwarded from the caller.
        unsafe { self.0.grow_zeroed(ptr, old, new) }
    }

    unsafe fn shrink(
        &self,
        ptr: NonNull<u8>,
        old: Layout,
        new: Layout,
    ) -> Result<NonNull<[u8]>, AllocError> {
        // SAFETY: forwarded from the caller.
        unsafe { self.0.shrink(ptr, old, new) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Counting, FailAt, FailMode};
    use allocator_api2::alloc::Global;

    #[test]
    fn clones_share_one_allocator_across_threads() {
        fn static_send_sync<T: Clone + Send + Sync + 'static>(_: &T) {}
        let s = Shared::new(FailAt::new(Counting::new(Global), 2, FailMode::Once));
        static_send_sync(&s);
        let l = Layout::from_size_align(48, 16).unwrap();
        let p = s.allocate(l).unwrap().cast::<u8>().as_ptr() as usize;
        let t = s.clone();
        let moved = std::thread::spawn(move || {
            let p = NonNull::new(p as *mut u8).unwrap();
            // SAFETY: `p` is live with `l`; clones share the allocator.
            let q = unsafe { t.grow_zeroed(p, l, Layout::from_size_align(96, 16).unwrap()) };
            (
                q.map(|q| q.cast::<u8>().as_ptr() as usize),
                t.allocate(l).is_err(),
            )
        })
        .join()
        .unwrap();
        let (q, refused) = moved;
        assert!(refused, "request 2 fails, whichever clone makes it");
        let q = NonNull::new(q.unwrap() as *mut u8).unwrap();
        assert_eq!(s.inner().bytes_outstanding(), 96);
        // SAFETY: `q` is live with the grown layout.
        let q = unsafe { s.shrink(q, Layout::from_size_align(96, 16).unwrap(), l) }.unwrap();
        // SAFETY: `q` is live with `l`.
        unsafe { s.deallocate(q.cast(), l) };
        assert_eq!((s.requests(), s.failures()), (4, 1));
        assert_eq!(s.inner().bytes_outstanding(), 0);
        assert!(std::format!("{s:?}").starts_with("Shared(FailAt"));
    }
}
