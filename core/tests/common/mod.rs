//! A test allocator shared by the integration tests: counts allocation
//! attempts and bytes outstanding, and can fail one chosen allocation; and
//! ([`layout`]) the harness of the layout property tests.

#![allow(dead_code)]

pub mod layout;

use core::alloc::Layout;
use core::cell::Cell;
use core::ptr::NonNull;
use std::rc::Rc;

use alkaid::allocator_api2::alloc::{AllocError, Allocator, Global};

std::thread_local! {
    /// Allocation attempts of every [`TestAlloc`] on this thread.
    static THREAD_ATTEMPTS: Cell<usize> = const { Cell::new(0) };
}

/// Allocation attempts made through any [`TestAlloc`] on this thread so far
/// (to show that an operation allocates nothing).
pub fn thread_attempts() -> usize {
    THREAD_ATTEMPTS.with(Cell::get)
}

#[derive(Debug, Default)]
struct State {
    /// Attempt number (from 0) that fails, if any.
    fail_at: Option<usize>,
    /// Allocation attempts so far (growth and shrinking count: the default
    /// `grow`/`shrink` of the trait allocate anew).
    attempts: Cell<usize>,
    /// Bytes allocated and not yet freed.
    live_bytes: Cell<usize>,
    /// Blocks allocated and not yet freed.
    live_blocks: Cell<usize>,
}

/// Forwards to `Global`, counting; fails the `k`-th attempt when built with
/// [`TestAlloc::failing_at`]. Clones share the counters.
#[derive(Clone, Debug, Default)]
pub struct TestAlloc(Rc<State>);

impl TestAlloc {
    /// Never fails.
    pub fn new() -> Self {
        Self::default()
    }

    /// Fails allocation attempt number `k` (from 0), and only that one.
    pub fn failing_at(k: usize) -> Self {
        TestAlloc(Rc::new(State {
            fail_at: Some(k),
            ..State::default()
        }))
    }

    /// Allocation attempts so far.
    pub fn attempts(&self) -> usize {
        self.0.attempts.get()
    }

    /// Bytes allocated and not yet freed.
    pub fn live_bytes(&self) -> usize {
        self.0.live_bytes.get()
    }

    /// Blocks allocated and not yet freed.
    pub fn live_blocks(&self) -> usize {
        self.0.live_blocks.get()
    }
}

// SAFETY: every block comes from `Global` and is returned to it with the
// same layout; the counters are bookkeeping only.
unsafe impl Allocator for TestAlloc {
    fn allocate(&self, layout: Layout) -> Result<NonNull<[u8]>, AllocError> {
        let k = self.0.attempts.get();
        self.0.attempts.set(k + 1);
        THREAD_ATTEMPTS.with(|t| t.set(t.get() + 1));
        if self.0.fail_at == Some(k) {
            return Err(AllocError);
        }
        let p = Global.allocate(layout)?;
        self.0
            .live_bytes
            .set(self.0.live_bytes.get() + layout.size());
        self.0.live_blocks.set(self.0.live_blocks.get() + 1);
        Ok(p)
    }

    unsafe fn deallocate(&self, ptr: NonNull<u8>, layout: Layout) {
        self.0
            .live_bytes
            .set(self.0.live_bytes.get() - layout.size());
        self.0.live_blocks.set(self.0.live_blocks.get() - 1);
        // SAFETY: `ptr` was allocated by `Global` with `layout` (above).
        unsafe { Global.deallocate(ptr, layout) }
    }
}

/// Runs `build` once with a never-failing [`TestAlloc`] to count the `n`
/// allocation attempts of a successful build, then for every `k` in `0..n`
/// with an allocator failing attempt `k`: each run must return
/// `Err(AllocationFailed)`, and once its result is dropped no byte may be
/// left allocated. A run failing at `n` must succeed. Returns `n`.
#[track_caller]
pub fn check_every_failure<T>(name: &str, build: impl Fn(TestAlloc) -> alkaid::Result<T>) -> usize {
    let ok = TestAlloc::new();
    let r = build(ok.clone());
    assert!(
        r.is_ok(),
        "{name}: the build without failures failed: {:?}",
        r.err()
    );
    drop(r);
    assert_eq!(ok.live_bytes(), 0, "{name}: leak after a successful build");
    let n = ok.attempts();
    for k in 0..n {
        let alloc = TestAlloc::failing_at(k);
        let r = build(alloc.clone());
        assert_eq!(
            r.as_ref().err(),
            Some(&alkaid::Error::AllocationFailed),
            "{name}: failing allocation {k} of {n}"
        );
        drop(r);
        assert_eq!(
            alloc.live_bytes(),
            0,
            "{name}: leak after failing allocation {k} of {n}"
        );
        assert_eq!(
            alloc.live_blocks(),
            0,
            "{name}: blocks leaked at {k} of {n}"
        );
    }
    let alloc = TestAlloc::failing_at(n);
    let r = build(alloc.clone());
    assert!(
        r.is_ok(),
        "{name}: failing past the last allocation must not matter"
    );
    drop(r);
    assert_eq!(alloc.live_bytes(), 0);
    n
}
