//! Tests of [`crate::test_support`]: the check counts the requests of a run
//! and catches leaks and swallowed failures.

use crate::array::{Array, PrimitiveBuilder};
use crate::test_support::{check_every_failure, counting, TestAlloc};
use crate::Result;

fn build(a: TestAlloc) -> Result<usize> {
    let mut b = PrimitiveBuilder::<i32, _>::new_in(a);
    for v in 0..100 {
        b.try_append_value(v)?;
    }
    Ok(b.finish().len())
}

#[test]
fn counts_the_requests_of_a_run() {
    let a = counting();
    assert_eq!(build(a.clone()), Ok(100));
    let n = check_every_failure(build);
    assert_eq!(n, a.requests());
    assert!(n > 1, "a growing builder grows: {n}");
    assert_eq!(a.inner().bytes_outstanding(), 0);
    assert!(a.inner().peak_bytes() >= 400);
}

#[test]
#[cfg_attr(miri, ignore)] // leaks on purpose
#[should_panic(expected = "leak after refusing request")]
fn catches_a_leak_on_the_error_path() {
    use allocator_api2::alloc::Allocator;
    check_every_failure(|a| {
        let r = build(a.clone());
        if r.is_err() {
            // A block forgotten on the error path.
            let _ = a.inner().allocate(core::alloc::Layout::new::<u64>());
        }
        r
    });
}

#[test]
#[should_panic(expected = "the run succeeded")]
fn catches_a_swallowed_failure() {
    check_every_failure(|a| Ok(build(a).unwrap_or(0)));
}
