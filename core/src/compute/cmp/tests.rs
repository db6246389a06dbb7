//! The comparison and mask kernels against the plain value model: random
//! columns of every leaf type, of dictionaries and of run-end encoded
//! arrays (nulls, slices with
//! offsets, runs of equal values), every operator, array against array,
//! array against scalar and scalar against array; plus the edge cases the
//! model does not generate (floats' `totalOrder`, view prefixes, null
//! scalars, the errors).

use core::cmp::Ordering;
use std::vec;
use std::vec::Vec;

use proptest::prelude::*;

use super::{eq_in, gt_eq_in, gt_in, lt_eq_in, lt_in, neq_in, Datum};
use crate::array::{
    Array, ArrayRef, BooleanArray, Float64Array, Int32Array, Int64Array, StringArray,
    StringViewArray, ValidationLevel,
};
use crate::buffer::SharedBox;
use crate::compute::boolean::{and_in, is_not_null_in, is_null_in, not_in, or_in};
use crate::compute::select_model::{column, field, leaf_type, sliced, value_at, Dt, G, V};
use crate::datatypes::{DataType, IndexType};
use crate::row::test_model::reference_cmp;
use crate::row::SortOptions;
use crate::{Error, Global};

type Kernel = fn(Datum<'_, '_, G>, Datum<'_, '_, G>, G) -> crate::Result<BooleanArray<'static, G>>;

/// The six kernels with the orderings each one is true for.
/// What an operator is true for.
type Holds = fn(Ordering) -> bool;

const OPS: [(&str, Kernel, Holds); 6] = [
    ("eq", eq_in, Ordering::is_eq),
    ("neq", neq_in, Ordering::is_ne),
    ("lt", lt_in, Ordering::is_lt),
    ("lt_eq", lt_eq_in, Ordering::is_le),
    ("gt", gt_in, Ordering::is_gt),
    ("gt_eq", gt_eq_in, Ordering::is_ge),
];

fn cmp_type() -> BoxedStrategy<Dt> {
    let leaf = leaf_type();
    prop_oneof![
        4 => leaf.clone(),
        1 => (leaf.clone(), prop::sample::select(std::vec![IndexType::Int32, IndexType::UInt8]))
            .prop_map(|(t, k)| DataType::Dictionary(k, SharedBox::try_new_in(t, Global).unwrap(), false)),
        1 => leaf.prop_map(|t| DataType::RunEndEncoded(
            field("run_ends", DataType::Int32, false),
            field("values", t, true),
        )),
    ]
    .boxed()
}

fn results(b: &BooleanArray<'_, G>) -> Vec<Option<bool>> {
    b.iter().collect()
}

fn model(dt: &Dt, l: &V, r: &V, holds: fn(Ordering) -> bool) -> Option<bool> {
    if *l == V::Null || *r == V::Null {
        return None;
    }
    Some(holds(reference_cmp(dt, SortOptions::default(), l, r)))
}

/// The model's logical value of slot `i` (a dictionary's resolved value).
fn logical(a: &ArrayRef<'_, G>, i: usize) -> V {
    value_at(a, i)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn kernels_equal_the_model(
        (dt, l, r, k) in cmp_type().prop_flat_map(|dt| {
            (1usize..80).prop_flat_map(move |n| {
                (Just(dt.clone()), column(&dt, n), column(&dt, n), 0..n)
            })
        })
    ) {
        let pad = l[0].clone();
        let (la, ra) = (sliced(&dt, &l, &pad), sliced(&dt, &r, &pad));
        let (lv, rv): (Vec<V>, Vec<V>) =
            ((0..l.len()).map(|i| logical(&la, i)).collect(), (0..r.len()).map(|i| logical(&ra, i)).collect());
        let scalar = ra.slice(k, 1).unwrap();
        for (name, kernel, holds) in OPS {
            let got = kernel(Datum::Array(&la), Datum::Array(&ra), Global).unwrap();
            got.validate(ValidationLevel::Full).unwrap();
            let want: Vec<_> = lv.iter().zip(&rv).map(|(a, b)| model(&dt, a, b, holds)).collect();
            prop_assert_eq!(results(&got), want, "{} array-array", name);

            let got = kernel(Datum::Array(&la), Datum::Scalar(&scalar), Global).unwrap();
            let want: Vec<_> = lv.iter().map(|a| model(&dt, a, &rv[k], holds)).collect();
            prop_assert_eq!(results(&got), want, "{} array-scalar", name);

            let got = kernel(Datum::Scalar(&scalar), Datum::Array(&la), Global).unwrap();
            let want: Vec<_> = lv.iter().map(|a| model(&dt, &rv[k], a, holds)).collect();
            prop_assert_eq!(results(&got), want, "{} scalar-array", name);
        }
    }

    #[test]
    fn masks_equal_the_model(
        (l, r) in (0usize..150).prop_flat_map(|n| (
            prop::collection::vec(prop::option::weighted(0.8, any::<bool>()), n),
            prop::collection::vec(prop::option::weighted(0.8, any::<bool>()), n),
        )),
        off in 0usize..9,
    ) {
        let build = |v: &[Option<bool>]| {
            let mut padded = std::vec![Some(true); off];
            padded.extend_from_slice(v);
            let a = BooleanArray::from(padded).into_array_ref();
            match a.slice(off, v.len()).unwrap() {
                ArrayRef::Boolean(b) => b,
                _ => unreachable!(),
            }
        };
        let (a, b) = (build(&l), build(&r));
        let both = |f: fn(bool, bool) -> bool| -> Vec<Option<bool>> {
            l.iter().zip(&r).map(|(x, y)| Some(f((*x)?, (*y)?))).collect()
        };
        prop_assert_eq!(results(&and_in(&a, &b, Global).unwrap()), both(|x, y| x & y));
        prop_assert_eq!(results(&or_in(&a, &b, Global).unwrap()), both(|x, y| x | y));
        let not: Vec<_> = l.iter().map(|x| x.map(|x| !x)).collect();
        prop_assert_eq!(results(&not_in(&a, Global).unwrap()), not);
        let a = a.into_array_ref();
        let nulls: Vec<_> = l.iter().map(|x| Some(x.is_none())).collect();
        prop_assert_eq!(results(&is_null_in(&a, Global).unwrap()), nulls);
        let valid: Vec<_> = l.iter().map(|x| Some(x.is_some())).collect();
        prop_assert_eq!(results(&is_not_null_in(&a, Global).unwrap()), valid);
    }
}

#[test]
fn floats_compare_by_total_order() {
    let a = Float64Array::from(vec![-0.0, 0.0, f64::NAN, f64::NAN, 1.0, f64::NEG_INFINITY])
        .into_array_ref();
    let b = Float64Array::from(vec![0.0, 0.0, f64::NAN, f64::INFINITY, f64::NAN, -1.0])
        .into_array_ref();
    let eq = eq_in(Datum::Array(&a), Datum::Array(&b), Global).unwrap();
    assert_eq!(
        results(&eq),
        [
            Some(false),
            Some(true),
            Some(true),
            Some(false),
            Some(false),
            Some(false)
        ]
    );
    let lt = lt_in(Datum::Array(&a), Datum::Array(&b), Global).unwrap();
    assert_eq!(
        results(&lt),
        [
            Some(true),
            Some(false),
            Some(false),
            Some(false),
            Some(true),
            Some(true)
        ]
    );
}

#[test]
fn views_order_by_prefix_and_bytes() {
    let l = [
        "apple",
        "apples and pears",
        "b",
        "",
        "zebra crossing!",
        "abc\0",
    ];
    let r = [
        "apples",
        "apples and pears",
        "a",
        "",
        "zebra crossing",
        "abc",
    ];
    let (lv, rv) = (
        StringViewArray::from(l.to_vec()),
        StringViewArray::from(r.to_vec()),
    );
    let (lo, ro) = (StringArray::from(l.to_vec()), StringArray::from(r.to_vec()));
    for (name, kernel, holds) in OPS {
        let want: Vec<_> = l
            .iter()
            .zip(&r)
            .map(|(a, b)| Some(holds(a.cmp(b))))
            .collect();
        let (lv, rv) = (lv.clone().into_array_ref(), rv.clone().into_array_ref());
        let got = kernel(Datum::Array(&lv), Datum::Array(&rv), Global).unwrap();
        assert_eq!(results(&got), want, "{name} views");
        let (lo, ro) = (lo.clone().into_array_ref(), ro.clone().into_array_ref());
        let got = kernel(Datum::Array(&lo), Datum::Array(&ro), Global).unwrap();
        assert_eq!(results(&got), want, "{name} offsets");
    }
}

#[test]
fn a_null_scalar_makes_every_slot_null() {
    let a = Int32Array::from(vec![1, 2, 3]).into_array_ref();
    let s = Int32Array::from(vec![None]).into_array_ref();
    let got = lt_in(Datum::Array(&a), Datum::Scalar(&s), Global).unwrap();
    assert_eq!(results(&got), [None, None, None]);
    let n = crate::array::NullArray::new(2).into_array_ref();
    let got = eq_in(Datum::Array(&n), Datum::Array(&n), Global).unwrap();
    assert_eq!(results(&got), [None, None]);
}

#[test]
fn mismatched_operands_are_refused() {
    let a = Int32Array::from(vec![1, 2, 3]).into_array_ref();
    let b = Int64Array::from(vec![1, 2, 3]).into_array_ref();
    let short = Int32Array::from(vec![1, 2]).into_array_ref();
    let date = Int32Array::from(vec![1, 2, 3]).into_array_ref();
    let date = match date {
        ArrayRef::Int32(p) => crate::array::PrimitiveArray::<i32, G>::try_new(
            DataType::Date32,
            p.values_buffer().clone(),
            None,
        )
        .unwrap()
        .into_array_ref(),
        _ => unreachable!(),
    };
    let e = |l, r| eq_in(l, r, Global).unwrap_err();
    assert_eq!(e(Datum::Array(&a), Datum::Array(&b)), Error::TypeMismatch);
    assert_eq!(
        e(Datum::Array(&a), Datum::Array(&date)),
        Error::TypeMismatch
    );
    assert_eq!(
        e(Datum::Array(&a), Datum::Array(&short)),
        Error::LengthMismatch
    );
    assert_eq!(
        e(Datum::Array(&a), Datum::Scalar(&short)),
        Error::InvalidArgument
    );
}
