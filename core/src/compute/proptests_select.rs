//! Property tests of [`super::take_in`] and [`super::filter_in`] against
//! the plain value model (`select_model`): random columns of every layout
//! the model builds (leaf types, structs, lists, large lists, list views,
//! fixed-size lists, maps, dictionaries, run-end encoded, sparse and dense
//! unions; nested twice),
//! sliced, taken by random nullable `u32` / `u64` / `usize` indices and
//! filtered by random nullable predicates. The result validates at Full,
//! has the input's data type, the model's values slot by slot, and the
//! model's validity and null count (layouts with a validity bitmap).

use std::vec::Vec;

use proptest::collection::vec;
use proptest::prelude::*;

use super::select_model::{column, data_type, sliced, value, value_at, Dt, G, V};
use super::{filter_in, take_in};
use crate::array::{Array, ArrayRef, BooleanArray, PrimitiveArray, ValidationLevel};
use crate::datatypes::DataType;
use crate::Global;

/// A column type: `Null` now and then, else [`data_type`].
fn column_type() -> BoxedStrategy<Dt> {
    prop_oneof![1 => Just(DataType::Null), 12 => data_type()].boxed()
}

/// What a null index takes: a null slot, or for a union (which has no
/// validity of its own) a null of its first declared child.
fn null_of(dt: &Dt) -> V {
    match dt {
        #[cfg(feature = "union")]
        DataType::Union(u, _) => match (u.type_ids().first(), u.fields().first()) {
            (Some(&id), Some(f)) => V::T(id, std::boxed::Box::new(null_of(f.data_type()))),
            _ => V::Null,
        },
        _ => V::Null,
    }
}

#[derive(Debug, Clone)]
struct Case {
    dt: Dt,
    vals: Vec<V>,
    pad: V,
    /// Positions into `vals` (`None` = null index).
    indices: Vec<Option<usize>>,
    /// One per value; `None` = null predicate slot.
    predicate: Vec<Option<bool>>,
    /// 0: u32 array, 1: u64 array, 2: usize slice (no nulls).
    index_kind: u8,
}

fn case() -> impl Strategy<Value = Case> {
    (column_type(), 0usize..24)
        .prop_flat_map(|(dt, n)| {
            let idx = if n == 0 {
                Just(Vec::new()).boxed()
            } else {
                vec(prop::option::weighted(0.85, 0..n), 0..30).boxed()
            };
            let dense = prop::bool::weighted(0.5).prop_flat_map(move |dense| {
                let p = if dense { 0.95 } else { 0.3 };
                vec(prop::option::weighted(0.9, prop::bool::weighted(p)), n)
            });
            (
                Just(dt.clone()),
                column(&dt, n),
                value(&dt),
                idx,
                dense,
                0u8..3,
            )
        })
        .prop_map(|(dt, vals, pad, indices, predicate, index_kind)| Case {
            dt,
            vals,
            pad,
            indices,
            predicate,
            index_kind,
        })
}

/// Whether the layout of `a` marks nulls in a validity bitmap.
fn has_bitmap(a: &ArrayRef<'_, G>) -> bool {
    !matches!(
        a,
        ArrayRef::Null(_)
            | ArrayRef::Dictionary(_)
            | ArrayRef::RunEndEncoded(_)
            | ArrayRef::Union(_)
    )
}

/// Checks `got` against the model values `want`.
fn check(got: &ArrayRef<'_, G>, dt: &Dt, want: &[V]) -> Result<(), TestCaseError> {
    got.validate(ValidationLevel::Full)
        .map_err(|e| TestCaseError::fail(std::format!("invalid result: {e}")))?;
    prop_assert_eq!(got.data_type(), dt);
    prop_assert_eq!(got.len(), want.len());
    for (k, w) in want.iter().enumerate() {
        prop_assert_eq!(&value_at(got, k), w, "slot {}", k);
        if has_bitmap(got) {
            prop_assert_eq!(got.is_valid(k), *w != V::Null, "validity of slot {}", k);
        }
    }
    if has_bitmap(got) {
        let nulls = want.iter().filter(|v| **v == V::Null).count();
        prop_assert_eq!(got.null_count(), nulls);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(if cfg!(miri) { 4 } else { 512 }))]

    #[test]
    fn take_gives_the_models_values(c in case()) {
        let a = sliced(&c.dt, &c.vals, &c.pad);
        let want: Vec<V> = c
            .indices
            .iter()
            .map(|i| i.map_or_else(|| null_of(&c.dt), |j| c.vals[j].clone()))
            .collect();
        let got = match c.index_kind {
            0 => {
                let v: Vec<Option<u32>> = c.indices.iter().map(|i| i.map(|j| j as u32)).collect();
                let idx = PrimitiveArray::<u32, G>::try_from_options_in(&v, Global).unwrap();
                take_in(&a, &idx, Global)
            }
            1 => {
                let v: Vec<Option<u64>> = c.indices.iter().map(|i| i.map(|j| j as u64)).collect();
                let idx = PrimitiveArray::<u64, G>::try_from_options_in(&v, Global).unwrap();
                take_in(&a, &idx, Global)
            }
            _ => {
                let v: Vec<usize> = c.indices.iter().map(|i| i.unwrap_or(0)).collect();
                let got = take_in(&a, &v[..], Global).unwrap();
                let want: Vec<V> = v.iter().map(|&j| c.vals[j].clone()).collect();
                return check(&got, &c.dt, &want);
            }
        };
        check(&got.unwrap(), &c.dt, &want)?;
    }

    #[test]
    fn filter_gives_the_models_values(c in case()) {
        let a = sliced(&c.dt, &c.vals, &c.pad);
        // The predicate sliced too: one slot before.
        let mut p = std::vec![Some(true)];
        p.extend(c.predicate.iter().copied());
        let p = BooleanArray::from(p).slice(1, c.vals.len()).unwrap();
        let want: Vec<V> = c
            .vals
            .iter()
            .zip(&c.predicate)
            .filter(|(_, p)| **p == Some(true))
            .map(|(v, _)| v.clone())
            .collect();
        let got = filter_in(&a, &p, Global).unwrap();
        check(&got, &c.dt, &want)?;
    }
}
