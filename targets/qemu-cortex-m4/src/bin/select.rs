//! Selection kernels on the MCU: `filter_in`, `take_in`, `sort_to_indices_in`
//! and `interleave_in`, a mask built by the comparison and mask kernels
//! (`cmp::gt_in`, `boolean::and_in`), with every result in a static arena,
//! and a failing arena reported as an error (no global allocator).

#![no_std]
#![no_main]

use alkaid::array::{Array, ArrayRef, BooleanBuilder, PrimitiveArray, StringArray};
use alkaid::compute::boolean::and_in;
use alkaid::compute::cmp::{gt_in, lt_eq_in, Datum};
use alkaid::compute::{filter_in, interleave_in, sort_to_indices_in, take_in};
use alkaid::row::SortOptions;
use alkaid::ErrorKind;
use alkaid_alloc::StaticArena;
use alkaid_qemu_cortex_m4::{entry, Harness};

const ARENA_BYTES: usize = 32 * 1024;
static ARENA: StaticArena<ARENA_BYTES> = StaticArena::new();
/// An arena too small for the results: allocation failures must be errors.
static TINY: StaticArena<64> = StaticArena::new();
type A = &'static StaticArena<ARENA_BYTES>;

static READINGS: [i32; 8] = [17, -3, 42, 8, 8, 0, 99, -50];

fn labels() -> alkaid::Result<ArrayRef<'static, A>> {
    Ok(StringArray::<A>::try_from_options_in(
        &[Some("ok"), None, Some("warm"), Some("ok"), Some("fault")],
        &ARENA,
    )?
    .into_array_ref())
}

#[entry]
fn main() -> ! {
    let mut h = Harness::new("select");

    h.test("filter_keeps_the_true_rows", |t| {
        let a = PrimitiveArray::<i32, A>::from_slice(&READINGS).into_array_ref();
        let mut keep = BooleanBuilder::new_in(&ARENA);
        for k in [
            Some(true),
            Some(false),
            Some(true),
            None,
            Some(true),
            Some(false),
            Some(true),
            Some(false),
        ] {
            keep.try_append_option(k)?;
        }
        let keep = keep.finish();
        let got = filter_in(&a, &keep, &ARENA)?;
        if let ArrayRef::Int32(p) = &got {
            t.eq("values", p.values(), &[17, 42, 8, 99][..]);
        } else {
            t.check("Int32 result", false);
        }
        Ok(())
    });

    h.test("a_mask_from_comparisons_filters", |t| {
        // 0 < reading <= 42: the comparisons' masks, ANDed, then filtered.
        let a = PrimitiveArray::<i32, A>::from_slice(&READINGS).into_array_ref();
        let zero = PrimitiveArray::<i32, A>::from_slice(&[0]).into_array_ref();
        let limit = PrimitiveArray::<i32, A>::from_slice(&[42]).into_array_ref();
        let above = gt_in(Datum::Array(&a), Datum::Scalar(&zero), &ARENA)?;
        let below = lt_eq_in(Datum::Array(&a), Datum::Scalar(&limit), &ARENA)?;
        let keep = and_in(&above, &below, &ARENA)?;
        t.eq("kept", &keep.true_count(), &4);
        let got = filter_in(&a, &keep, &ARENA)?;
        if let ArrayRef::Int32(p) = &got {
            t.eq("values", p.values(), &[17, 42, 8, 8][..]);
        } else {
            t.check("Int32 result", false);
        }
        let bad = gt_in(Datum::Array(&a), Datum::Scalar(&a), &ARENA);
        t.check(
            "a scalar of 8 slots is an error",
            matches!(bad, Err(e) if e.kind() == ErrorKind::InvalidArgument),
        );
        Ok(())
    });

    h.test("take_gathers_strings_with_nulls", |t| {
        let a = labels()?;
        let idx = PrimitiveArray::<u32, A>::try_from_options_in(
            &[Some(4), None, Some(0), Some(2)],
            &ARENA,
        )?;
        let got = take_in(&a, &idx, &ARENA)?;
        if let ArrayRef::Utf8(s) = &got {
            t.eq("0", &s.value(0), &Some("fault"));
            t.check("1 is null", s.is_null(1));
            t.eq("2", &s.value(2), &Some("ok"));
            t.eq("3", &s.value(3), &Some("warm"));
        } else {
            t.check("Utf8 result", false);
        }
        let bad = take_in(&a, &[0usize, 9][..], &ARENA);
        t.check(
            "index out of bounds is an error",
            matches!(bad, Err(e) if e.kind() == ErrorKind::TakeIndexOutOfBounds),
        );
        Ok(())
    });

    h.test("sort_then_take_orders_the_column", |t| {
        let a = PrimitiveArray::<i32, A>::from_slice(&READINGS).into_array_ref();
        let desc = SortOptions {
            descending: true,
            nulls_first: false,
        };
        let idx = sort_to_indices_in(&a, Some(desc), Some(3), &ARENA)?;
        t.eq("top 3 indices", idx.values(), &[6u32, 2, 0][..]);
        let top = take_in(&a, &idx, &ARENA)?;
        if let ArrayRef::Int32(p) = &top {
            t.eq("top 3 values", p.values(), &[99, 42, 17][..]);
        }
        Ok(())
    });

    h.test("interleave_merges_two_arrays", |t| {
        let a = PrimitiveArray::<i32, A>::from_slice(&READINGS[..3]).into_array_ref();
        let b = PrimitiveArray::<i32, A>::from_slice(&READINGS[5..]).into_array_ref();
        let got = interleave_in(&[&a, &b], &[(1, 2), (0, 0), (1, 0)], &ARENA)?;
        if let ArrayRef::Int32(p) = &got {
            t.eq("values", p.values(), &[-50, 17, 0][..]);
        }
        Ok(())
    });

    h.test("a_full_arena_is_an_error", |t| {
        let a =
            PrimitiveArray::<i32, &'static StaticArena<64>>::from_slice(&READINGS).into_array_ref();
        let r = sort_to_indices_in(&a, None, None, &TINY);
        t.check(
            "allocation failure reported",
            matches!(&r, Err(e) if e.kind() == ErrorKind::AllocationFailed),
        );
        Ok(())
    });

    h.finish()
}
