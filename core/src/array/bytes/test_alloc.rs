//! A fault-injecting allocator for the builders' allocation-failure tests.

use allocator_api2::alloc::{AllocError, Allocator, Global};
use core::alloc::Layout;
use core::cell::Cell;
use core::ptr::NonNull;
use std::rc::Rc;

use crate::error::{Error, Result};

/// A test allocator over `Global` that fails every allocation after the
/// first `limit` (growth counts as an allocation).
#[derive(Clone, Debug)]
pub(crate) struct FailAfter {
    left: Rc<Cell<usize>>,
    made: Rc<Cell<usize>>,
}

impl FailAfter {
    pub(crate) fn new(limit: usize) -> Self {
        FailAfter {
            left: Rc::new(Cell::new(limit)),
            made: Rc::new(Cell::new(0)),
        }
    }

    /// Number of allocations made so far.
    pub(crate) fn made(&self) -> usize {
        self.made.get()
    }
}

// SAFETY: every block comes from `Global` and goes back to it unchanged.
unsafe impl Allocator for FailAfter {
    fn allocate(&self, layout: Layout) -> core::result::Result<NonNull<[u8]>, AllocError> {
        match self.left.get() {
            0 => Err(AllocError),
            n => {
                self.left.set(n - 1);
                self.made.set(self.made.get() + 1);
                Global.allocate(layout)
            }
        }
    }

    unsafe fn deallocate(&self, ptr: NonNull<u8>, layout: Layout) {
        // SAFETY: `ptr` was allocated by `Global` with `layout` (above).
        unsafe { Global.deallocate(ptr, layout) }
    }
}

/// Runs `build` with a budget of `k` allocations for every `k` below the
/// number a successful run makes: each must fail with `AllocationFailed`.
pub(crate) fn check_alloc_failures<R>(build: impl Fn(FailAfter) -> Result<R>) {
    let ok = FailAfter::new(usize::MAX);
    assert!(build(ok.clone()).is_ok());
    let n = ok.made();
    assert!(n > 0);
    for k in 0..n {
        let r = build(FailAfter::new(k));
        assert_eq!(r.err(), Some(Error::AllocationFailed), "budget {k} of {n}");
    }
}
