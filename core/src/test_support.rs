//! What the core's tests share: one failing and counting allocator
//! ([`TestAlloc`], built from `alkaid-alloc`'s [`FailAt`] and [`Counting`])
//! and one check that every allocation failure of an operation is an error
//! that leaks nothing ([`check_every_failure`]).
//!
//! The unit tests reach it as `crate::test_support`; the integration tests
//! include this same file (`tests/common/mod.rs`), which is why it names the
//! crate `alkaid` (the library declares `extern crate self as alkaid` for
//! its tests).

use core::panic::Location;

use alkaid::Global;
use alkaid::{Error, Result};

pub(crate) use alkaid_alloc::FailMode;
use alkaid_alloc::{Counting, FailAt, Shared};

/// The tests' allocator: `Global` behind a [`Counting`] (bytes and
/// allocations outstanding, peak) behind a [`FailAt`] (requests made, the
/// largest one, the failing request), in a [`Shared`] handle so that it is
/// `Clone + Send + Sync + 'static` (the C Data Interface exports need that)
/// and every clone counts into the same counters.
///
/// A *request* is an `allocate`, `allocate_zeroed`, `grow`, `grow_zeroed` or
/// `shrink` (see [`FailAt`]); read them with `a.requests()`, the bytes still
/// allocated with `a.inner().bytes_outstanding()`.
pub(crate) type TestAlloc = Shared<FailAt<Counting<Global>>>;

/// A [`TestAlloc`] refusing request number `k` (from 0), and per `mode`
/// every later one.
pub(crate) fn failing_at(k: usize, mode: FailMode) -> TestAlloc {
    Shared::new(FailAt::new(Counting::new(Global), k, mode))
}

/// A [`TestAlloc`] that refuses nothing (it only counts); its failing
/// request can be set later with `a.set_fail_at(k)` (mode `From`: request
/// `k` and all later ones fail).
pub(crate) fn counting() -> TestAlloc {
    failing_at(usize::MAX, FailMode::From)
}

/// Checks that `run` handles every allocation failure, and returns the
/// number of requests a run without failures makes (callers that expect
/// allocations assert on it).
///
/// First runs `run` with an allocator that refuses nothing: it must succeed,
/// and after its value is dropped no byte may stay allocated. Then, for
/// every request `k` of that run, twice more:
/// - memory runs out for good at request `k` ([`FailMode::From`]): the run
///   must return `Err(Error::AllocationFailed)`;
/// - only request `k` is refused ([`FailMode::Once`]): the run may recover
///   (a fallback that needs less memory) or return
///   `Err(Error::AllocationFailed)`.
///
/// Each of these runs must reach request `k` (runs are deterministic), must
/// not panic, and must leave nothing allocated (no byte, no block) once its
/// value is dropped. Failure messages name the caller's line.
#[track_caller]
pub(crate) fn check_every_failure<R>(mut run: impl FnMut(TestAlloc) -> Result<R>) -> usize {
    let at = Location::caller();
    let probe = counting();
    let r = run(probe.clone());
    assert!(
        r.is_ok(),
        "{at}: the run without failures failed: {:?}",
        r.err()
    );
    drop(r);
    assert_eq!(
        probe.inner().bytes_outstanding(),
        0,
        "{at}: leak after the run without failures"
    );
    let needed = probe.requests();
    // Under Miri (whose stage checks the error paths for undefined
    // behaviour, at ~1000× the native cost) the requests that fail alone
    // are left to the native run.
    let modes: &[FailMode] = if cfg!(miri) {
        &[FailMode::From]
    } else {
        &[FailMode::From, FailMode::Once]
    };
    for k in 0..needed {
        for &mode in modes {
            let a = failing_at(k, mode);
            match run(a.clone()) {
                Err(e) => assert_eq!(
                    e,
                    Error::AllocationFailed,
                    "{at}: {mode:?} request {k} of {needed}"
                ),
                Ok(v) => {
                    assert_eq!(
                        mode,
                        FailMode::Once,
                        "{at}: memory ran out at request {k} of {needed} and the run succeeded"
                    );
                    drop(v);
                }
            }
            assert!(
                a.triggered(),
                "{at}: {mode:?}: request {k} of {needed} was never made"
            );
            assert_eq!(
                (
                    a.inner().bytes_outstanding(),
                    a.inner().allocations_outstanding()
                ),
                (0, 0),
                "{at}: leak after refusing request {k} of {needed} ({mode:?})"
            );
        }
    }
    needed
}

/// Deterministic pseudo-random numbers for tests (xorshift64 from `s`,
/// which must not be 0).
pub(crate) fn rng(mut s: u64) -> impl FnMut() -> u64 {
    move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    }
}
