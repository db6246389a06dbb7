//! A test allocator for the C Data Interface tests: `Send + Sync` (exported
//! structs need it), fails exactly at its `k`-th allocation, counts the
//! bytes still allocated.

use core::alloc::Layout;
use core::ptr::NonNull;
use core::sync::atomic::{AtomicIsize, AtomicUsize, Ordering};
use std::sync::Arc;

use allocator_api2::alloc::{AllocError, Allocator, Global};

#[derive(Debug, Default)]
struct State {
    attempts: AtomicUsize,
    live: AtomicIsize,
}

/// Fails allocation number `fail_at` (from 0), forwards the others to
/// `Global`; every clone shares the counters.
#[derive(Clone, Debug)]
pub(crate) struct FailAt {
    fail_at: usize,
    state: Arc<State>,
}

impl FailAt {
    /// Fails at allocation `k`.
    pub(crate) fn new(k: usize) -> Self {
        FailAt {
            fail_at: k,
            state: Arc::default(),
        }
    }

    /// Never fails (a counting allocator).
    pub(crate) fn never() -> Self {
        Self::new(usize::MAX)
    }

    /// Allocations attempted so far.
    pub(crate) fn attempts(&self) -> usize {
        self.state.attempts.load(Ordering::Relaxed)
    }

    /// Bytes allocated and not yet freed.
    pub(crate) fn live_bytes(&self) -> isize {
        self.state.live.load(Ordering::Relaxed)
    }
}

// SAFETY: forwards to `Global`, which upholds the contract.
unsafe impl Allocator for FailAt {
    fn allocate(&self, layout: Layout) -> Result<NonNull<[u8]>, AllocError> {
        let k = self.state.attempts.fetch_add(1, Ordering::Relaxed);
        if k == self.fail_at {
            return Err(AllocError);
        }
        let p = Global.allocate(layout)?;
        self.state
            .live
            .fetch_add(layout.size() as isize, Ordering::Relaxed);
        Ok(p)
    }

    unsafe fn deallocate(&self, ptr: NonNull<u8>, layout: Layout) {
        self.state
            .live
            .fetch_sub(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: `ptr` was allocated by `Global` with `layout` (above).
        unsafe { Global.deallocate(ptr, layout) }
    }
}

/// Runs `build` with an allocator failing at allocation `k`, for `k = 0, 1,
/// …` until it succeeds; asserts that every failure is
/// `Error::AllocationFailed` and that nothing stays allocated (after the
/// success, once its value is dropped). Returns the allocations it needed.
pub(crate) fn check_every_failure<T>(mut build: impl FnMut(FailAt) -> crate::Result<T>) -> usize {
    for k in 0..10_000 {
        let alloc = FailAt::new(k);
        match build(alloc.clone()) {
            Ok(v) => {
                drop(v);
                // The run failing at `k - 1` made at least `k` attempts; this
                // one, deterministic, made exactly `k`.
                assert_eq!(alloc.attempts(), k, "allocation count");
                assert_eq!(alloc.live_bytes(), 0, "leak after success");
                return k;
            }
            Err(e) => {
                assert_eq!(e, crate::Error::AllocationFailed, "failing at {k}");
                assert_eq!(alloc.live_bytes(), 0, "leak after failing at {k}");
            }
        }
    }
    panic!("never succeeded");
}
