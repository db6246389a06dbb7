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

use super::select_model::{build, field, float, value_at, with_validity, Dt, G, V};
#[cfg(feature = "union")]
use super::select_model::{union_ids, union_of, union_value};
use super::{filter_in, take_in};
use crate::array::{Array, ArrayRef, BooleanArray, PrimitiveArray, ValidationLevel};
use crate::buffer::{SharedBox, SharedSlice};
use crate::datatypes::{DataType, Field, IndexType, IntervalUnit, TimeUnit};
use crate::native::i256;
use crate::Global;

pub(super) fn leaf_type() -> BoxedStrategy<Dt> {
    use DataType::*;
    prop::sample::select(std::vec![
        Boolean,
        Int8,
        Int16,
        Int32,
        Int64,
        UInt8,
        UInt32,
        UInt64,
        Float16,
        Float32,
        Float64,
        Decimal128(38, 2),
        Decimal256(76, 2),
        Date32,
        Time32(TimeUnit::Millisecond),
        Timestamp(TimeUnit::Microsecond, None),
        Interval(IntervalUnit::DayTime),
        Interval(IntervalUnit::MonthDayNano),
        FixedSizeBinary(3),
        Binary,
        LargeBinary,
        Utf8,
        LargeUtf8,
        BinaryView,
        Utf8View,
    ])
    .boxed()
}

const NAMES: [&str; 3] = ["f0", "f1", "f2"];

fn data_type() -> BoxedStrategy<Dt> {
    use DataType::*;
    let t = leaf_type().prop_recursive(2, 12, 3, |inner| {
        prop_oneof![
            vec(inner.clone(), 1..=3).prop_map(|ts| {
                let fields = SharedSlice::try_from_fn_in(ts.len(), Global, |i| {
                    Ok(Field::new(NAMES[i], ts[i].clone(), true))
                })
                .unwrap();
                Struct(fields)
            }),
            inner.clone().prop_map(|t| List(field("item", t, true))),
            inner
                .clone()
                .prop_map(|t| LargeList(field("item", t, true))),
            inner.clone().prop_map(|t| ListView(field("item", t, true))),
            inner
                .clone()
                .prop_map(|t| LargeListView(field("item", t, true))),
            inner
                .clone()
                .prop_map(|t| FixedSizeList(field("item", t, true), 2)),
            inner.clone().prop_map(|t| {
                let kv = SharedSlice::try_from_iter_in(
                    [
                        Field::new("key", Int32, false),
                        Field::new("value", t, true),
                    ],
                    Global,
                )
                .unwrap();
                Map(field("entries", Struct(kv), false), false)
            }),
            (
                inner.clone(),
                prop::sample::select(std::vec![IndexType::Int32, IndexType::UInt16])
            )
                .prop_map(|(t, k)| Dictionary(
                    k,
                    SharedBox::try_new_in(with_validity(t), Global).unwrap(),
                    false
                )),
            inner.clone().prop_map(|t| RunEndEncoded(
                field("run_ends", Int32, false),
                field("values", with_validity(t), true)
            )),
            unions(inner),
        ]
    });
    prop_oneof![1 => Just(DataType::Null), 12 => t].boxed()
}

/// Sparse and dense unions of 1 to 3 of `inner`'s types with shuffled
/// type ids (structs of them without the `union` feature).
fn unions(inner: BoxedStrategy<Dt>) -> BoxedStrategy<Dt> {
    #[cfg(feature = "union")]
    {
        (vec(inner, 1..=3), any::<bool>())
            .prop_flat_map(|(ts, dense)| {
                let n = ts.len();
                (Just(ts), Just(dense), union_ids(n))
            })
            .prop_map(|(ts, dense, ids)| union_of(&ts, &ids, dense))
            .boxed()
    }
    #[cfg(not(feature = "union"))]
    {
        inner
            .prop_map(|t| {
                DataType::Struct(
                    SharedSlice::try_from_iter_in([Field::new("f0", t, true)], Global).unwrap(),
                )
            })
            .boxed()
    }
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

fn bytes_value(max: usize) -> BoxedStrategy<V> {
    vec(prop::sample::select(std::vec![0u8, 1, b'a', 0xFF]), 0..max)
        .prop_map(V::B)
        .boxed()
}

/// Values of `dt` (nulls included), within what full validation accepts.
fn value(dt: &Dt) -> BoxedStrategy<V> {
    use DataType::*;
    let non_null = match dt {
        Null => return Just(V::Null).boxed(),
        Boolean => any::<bool>().prop_map(V::Bool).boxed(),
        Int8 => (-128i128..128).prop_map(V::I).boxed(),
        Int16 => (-3i128..3).prop_map(V::I).boxed(),
        Int32 | Date32 | Interval(IntervalUnit::YearMonth) => {
            any::<i32>().prop_map(|x| V::I(x.into())).boxed()
        }
        Time32(_) => (0i128..86_400_000).prop_map(V::I).boxed(),
        Int64 | Timestamp(..) => any::<i64>().prop_map(|x| V::I(x.into())).boxed(),
        Decimal128(..) => (-99_999i128..99_999).prop_map(V::I).boxed(),
        UInt8 => (0u64..256).prop_map(V::U).boxed(),
        UInt16 | UInt32 => (0u64..65_536).prop_map(V::U).boxed(),
        UInt64 => any::<u64>().prop_map(V::U).boxed(),
        Float16 => (-8i32..8).prop_map(|x| float(f64::from(x) / 2.0)).boxed(),
        Float32 | Float64 => (-1000i32..1000)
            .prop_map(|x| float(f64::from(x) / 4.0))
            .boxed(),
        Decimal256(..) => (-99_999i128..99_999)
            .prop_map(|x| V::W(i256::from_i128(x)))
            .boxed(),
        Interval(IntervalUnit::DayTime) => vec(-2i64..3, 2).prop_map(V::Iv).boxed(),
        Interval(IntervalUnit::MonthDayNano) => vec(-2i64..3, 3).prop_map(V::Iv).boxed(),
        FixedSizeBinary(w) => vec(prop::sample::select(std::vec![0u8, 1, 0xFF]), *w as usize)
            .prop_map(V::B)
            .boxed(),
        Binary | LargeBinary | BinaryView => bytes_value(30),
        Utf8 | LargeUtf8 | Utf8View => "[ab\u{e9}]{0,30}"
            .prop_map(|s| V::B(s.into_bytes()))
            .boxed(),
        Struct(fields) => fields
            .iter()
            .map(|f| value(f.data_type()))
            .collect::<Vec<_>>()
            .prop_map(V::S)
            .boxed(),
        List(f) | LargeList(f) | ListView(f) | LargeListView(f) => {
            vec(value(f.data_type()), 0..4).prop_map(V::L).boxed()
        }
        FixedSizeList(f, n) => vec(value(f.data_type()), *n as usize)
            .prop_map(V::L)
            .boxed(),
        Map(f, _) => {
            let DataType::Struct(kv) = f.data_type() else {
                panic!("map entries are a struct")
            };
            vec((-2i128..3, value(kv[1].data_type())), 0..3)
                .prop_map(|es| {
                    V::L(
                        es.into_iter()
                            .map(|(k, v)| V::S(std::vec![V::I(k), v]))
                            .collect(),
                    )
                })
                .boxed()
        }
        Dictionary(_, v, _) => value(v),
        RunEndEncoded(_, v) => value(v.data_type()),
        // A union slot is never null itself (its child's value may be).
        #[cfg(feature = "union")]
        Union(u, _) => {
            return union_value(u, value);
        }
        other => panic!("no values for {other:?}"),
    };
    prop_oneof![1 => Just(V::Null), 4 => non_null].boxed()
}

/// `n` values, repeating the previous one now and then (runs).
pub(super) fn column(dt: &Dt, n: usize) -> BoxedStrategy<Vec<V>> {
    vec((value(dt), prop::bool::weighted(0.3)), n)
        .prop_map(|vs| {
            let mut out: Vec<V> = Vec::with_capacity(vs.len());
            for (v, repeat) in vs {
                let v = match (repeat, out.last()) {
                    (true, Some(prev)) => prev.clone(),
                    _ => v,
                };
                out.push(v);
            }
            out
        })
        .boxed()
}

/// A column built with a slot before and after, then sliced to `vals`.
pub(super) fn sliced(dt: &Dt, vals: &[V], pad: &V) -> ArrayRef<'static, G> {
    let mut padded = std::vec![pad.clone()];
    padded.extend(vals.iter().cloned());
    padded.push(pad.clone());
    build(dt, &padded).slice(1, vals.len()).unwrap()
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
    (data_type(), 0usize..24)
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
