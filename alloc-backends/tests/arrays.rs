//! alkaid arrays built through the allocators of this crate (and bumpalo).

use std::panic::{catch_unwind, AssertUnwindSafe};

use alkaid::allocator_api2::alloc::{Allocator, Global};
use alkaid::array::{
    Array, ArrayRef, BooleanBuilder, PrimitiveArray, PrimitiveBuilder, RecordBatch,
};
use alkaid::buffer::SharedSlice;
use alkaid::datatypes::{DataType, Field, Schema};
use alkaid::Error;
use alkaid_alloc::{Arena, Counting, FailAt, FailMode, FixedPool, StaticArena};

const N: usize = 1000;

fn sample(i: usize) -> Option<i32> {
    (i % 7 != 3).then_some(i as i32 * 3 - 500)
}

/// 1000 slots, every 7th null, appended one at a time (the buffers grow
/// several times), then sliced.
fn build_primitive<'a, A: Allocator + Clone + 'a>(
    alloc: A,
) -> alkaid::Result<PrimitiveArray<'a, i32, A>> {
    let mut b = PrimitiveBuilder::<i32, A>::new_in(alloc);
    for i in 0..N {
        b.try_append_option(sample(i))?;
    }
    let a = b.finish();
    a.slice(0, N)
}

fn check_primitive<A: Allocator>(a: &PrimitiveArray<'_, i32, A>) {
    assert_eq!(a.len(), N);
    assert_eq!(a.null_count(), (0..N).filter(|i| i % 7 == 3).count());
    for i in 0..N {
        assert_eq!(a.get(i), sample(i), "slot {i}");
    }
    assert_eq!(a.values().as_ptr() as usize % 64, 0);
    let bitmap = a.nulls().unwrap().inner().inner().as_slice();
    // Slots 3 and 10 are null: 0b1111_0111, 0b1111_1011.
    assert_eq!(&bitmap[..2], &[0b1111_0111, 0b1111_1011]);
}

fn build_boolean<'a, A: Allocator + Clone + 'a>(
    alloc: A,
) -> alkaid::Result<alkaid::array::BooleanArray<'a, A>> {
    let mut b = BooleanBuilder::new_in(alloc);
    for i in 0..300 {
        b.try_append_option(if i % 5 == 0 { None } else { Some(i % 3 == 0) })?;
    }
    Ok(b.finish())
}

/// A two-column batch whose schema names are copied into `alloc` too.
fn build_batch<'a, A: Allocator + Clone + 'a>(alloc: A) -> alkaid::Result<RecordBatch<'a, A>> {
    let fields = [
        Field::try_new_in("reading", DataType::Int32, true, alloc.clone())?,
        Field::try_new_in("flag", DataType::Boolean, true, alloc.clone())?,
    ];
    let schema = Schema::new(SharedSlice::try_from_iter_in(fields, alloc.clone())?);
    let a = build_primitive(alloc.clone())?.slice(0, 300)?;
    let b = build_boolean(alloc.clone())?;
    let columns = SharedSlice::try_from_iter_in([a.into_array_ref(), b.into_array_ref()], alloc)?;
    RecordBatch::try_new(schema, columns)
}

#[test]
fn primitive_and_boolean_in_a_static_arena() {
    static ARENA: StaticArena<{ 16 * 1024 }> = StaticArena::new();
    let a = build_primitive(&ARENA).unwrap();
    check_primitive(&a);
    let b = build_boolean(&ARENA).unwrap();
    assert_eq!(b.len(), 300);
    assert_eq!(b.get(0), None);
    assert_eq!(b.get(3), Some(true));
    assert_eq!(b.get(4), Some(false));
    assert_eq!(b.values().inner().as_ptr() as usize % 64, 0);
    assert!(ARENA.used() >= 4000);
    assert!(ARENA.peak() >= ARENA.used());
}

#[test]
fn local_arena_exhaustion_is_allocation_failed_and_reset_reclaims() {
    let mut arena = StaticArena::<2048>::new();
    {
        let r = build_primitive(&arena);
        assert_eq!(r.unwrap_err(), Error::AllocationFailed);
    }
    arena.reset();
    let mut b = PrimitiveBuilder::<i32, _>::new_in(&arena);
    b.try_append_slice(&[1, 2, 3]).unwrap();
    let a = b.finish();
    assert_eq!(a.values(), &[1, 2, 3]);
    drop(a);
    // The array's buffer was the top allocation: freeing it gave it back.
    assert_eq!(arena.used(), 0);
}

#[test]
fn arena_over_a_caller_buffer() {
    let mut buf = [0u8; 8192];
    let arena = Arena::new(&mut buf);
    let a = build_primitive(&arena).unwrap();
    check_primitive(&a);
}

#[test]
fn fixed_pool_holds_small_arrays_and_refuses_big_ones() {
    static POOL: FixedPool<512, 4> = FixedPool::new();
    let mut b = PrimitiveBuilder::<i64, _>::new_in(&POOL);
    b.try_append_slice(&[10, 20, 30]).unwrap();
    b.try_append_null().unwrap();
    let a = b.finish();
    assert_eq!(a.get(2), Some(30));
    assert_eq!(a.get(3), None);
    assert_eq!(POOL.blocks_in_use(), 2, "values + validity bitmap");
    assert_eq!(build_primitive(&POOL).unwrap_err(), Error::AllocationFailed);
    drop(a);
    assert_eq!(POOL.blocks_in_use(), 0);
}

#[test]
fn counting_shows_zero_outstanding_after_drops() {
    let counting = Counting::new(Global);
    {
        let a = build_primitive(&counting).unwrap();
        let batch = build_batch(&counting).unwrap();
        assert!(counting.bytes_outstanding() > 4000);
        assert!(counting.allocations_outstanding() >= 4);
        let copy = batch.clone();
        drop(batch);
        assert_eq!(copy.num_rows(), 300);
        assert_eq!(copy.column_by_name("flag").unwrap().len(), 300);
        check_primitive(&a);
    }
    assert_eq!(counting.bytes_outstanding(), 0);
    assert_eq!(counting.allocations_outstanding(), 0);
    assert!(counting.peak_bytes() > 4000);
    assert!(counting.total_allocations() >= 8);
}

#[test]
fn counting_limit_fails_the_builder_cleanly() {
    let counting = Counting::with_limit(Global, 1024);
    assert_eq!(
        build_primitive(&counting).unwrap_err(),
        Error::AllocationFailed
    );
    assert_eq!(counting.bytes_outstanding(), 0);
    assert!(counting.failed_requests() >= 1);
    assert!(counting.peak_bytes() <= 1024);
}

/// Runs `build` (which builds and checks) with request `k` failing, for
/// every `k` until the build completes without reaching it: each run must
/// return `Ok` or `Err(AllocationFailed)`, never panic, and leave nothing
/// allocated. Returns the number of requests of the complete build.
fn every_k(
    mode: FailMode,
    build: impl Fn(&FailAt<&Counting<Global>>) -> alkaid::Result<()>,
) -> usize {
    for k in 0.. {
        let counting = Counting::new(Global);
        let fail = FailAt::new(&counting, k, mode);
        let outcome = catch_unwind(AssertUnwindSafe(|| build(&fail)));
        let r = outcome.unwrap_or_else(|_| panic!("panicked with request {k} failing ({mode:?})"));
        if let Err(e) = r {
            assert_eq!(e, Error::AllocationFailed, "request {k} failing ({mode:?})");
        }
        assert_eq!(
            counting.bytes_outstanding(),
            0,
            "leak with request {k} failing"
        );
        assert_eq!(counting.allocations_outstanding(), 0);
        if !fail.triggered() {
            assert!(r.is_ok(), "succeeds when no request fails");
            return k;
        }
    }
    unreachable!()
}

#[test]
fn fail_at_every_k_primitive() {
    for mode in [FailMode::Once, FailMode::From] {
        let requests = every_k(mode, |f| build_primitive(f).map(|a| check_primitive(&a)));
        // Values buffer growth (4 KiB by doubling) plus the bitmap: several requests.
        assert!(requests >= 5, "{mode:?}: only {requests} requests");
    }
}

#[test]
fn fail_at_every_k_boolean_and_batch() {
    for mode in [FailMode::Once, FailMode::From] {
        every_k(mode, |f| build_boolean(f).map(|b| assert_eq!(b.len(), 300)));
        let requests = every_k(mode, |f| {
            let batch = build_batch(f)?;
            assert_eq!(batch.num_rows(), 300);
            assert_eq!(batch.num_columns(), 2);
            Ok(())
        });
        assert!(requests >= 8, "{mode:?}: only {requests} requests");
    }
}

#[test]
fn bumpalo_bump_holds_alkaid_arrays() {
    let bump = bumpalo::Bump::new();
    let a = build_primitive(&bump).unwrap();
    check_primitive(&a);
    let batch = build_batch(&bump).unwrap();
    let col = batch.column(0).unwrap();
    assert!(matches!(col, ArrayRef::Int32(_)));
    assert_eq!(col.null_count(), (0..300).filter(|i| i % 7 == 3).count());
    // Counting on top of the bump sees alkaid's requests.
    let counting = Counting::new(&bump);
    {
        let b = build_boolean(&counting).unwrap();
        assert_eq!(b.len(), 300);
        assert!(counting.bytes_outstanding() > 0);
    }
    assert_eq!(counting.bytes_outstanding(), 0);
    assert!(bump.allocated_bytes() > 4000);
}
