//! Property-test strategies shared by the row format's and the selection
//! kernels' property tests: random data types (the leaves of
//! [`crate::test_types::leaf_types`], nested up to two levels in every
//! layout), random values of any type in the plain value model
//! ([`super::test_model::V`]), and columns of them.

use std::vec::Vec;

use proptest::collection::vec;
use proptest::prelude::*;

use super::test_model::{build, field, float, Dt, G, V};
use crate::array::{Array, ArrayRef};
use crate::buffer::{SharedBox, SharedSlice};
use crate::datatypes::{DataType, Field, IndexType, IntervalUnit, TimeUnit};
use crate::native::{f16, i256};
use crate::test_types::leaf_types;
use crate::Global;

/// One of [`leaf_types`].
pub(crate) fn leaf_type() -> BoxedStrategy<Dt> {
    prop::sample::select(leaf_types()).boxed()
}

const NAMES: [&str; 3] = ["f0", "f1", "f2"];

pub(crate) fn struct_of(ts: &[Dt]) -> Dt {
    let fields = SharedSlice::try_from_fn_in(ts.len(), Global, |i| {
        Ok(Field::new(NAMES[i], ts[i].clone(), true))
    })
    .unwrap();
    DataType::Struct(fields)
}

pub(crate) fn dictionary_of(t: Dt, k: IndexType) -> Dt {
    DataType::Dictionary(k, SharedBox::try_new_in(t, Global).unwrap(), false)
}

/// A union of `ts` with the type ids `ids` (any order), sparse or dense.
#[cfg(feature = "union")]
pub(crate) fn union_of(ts: &[Dt], ids: &[i8], dense: bool) -> Dt {
    use crate::datatypes::{UnionFields, UnionMode};
    let fields = SharedSlice::try_from_fn_in(ts.len(), Global, |i| {
        Ok(Field::new(NAMES[i], ts[i].clone(), true))
    })
    .unwrap();
    let ids = SharedSlice::try_from_iter_in(ids.iter().copied(), Global).unwrap();
    let mode = if dense {
        UnionMode::Dense
    } else {
        UnionMode::Sparse
    };
    DataType::Union(UnionFields::try_new(ids, fields).unwrap(), mode)
}

/// Type ids of a union of `n` children: distinct, shuffled, from both ends
/// of `0..=127`.
#[cfg(feature = "union")]
pub(crate) fn union_ids(n: usize) -> BoxedStrategy<Vec<i8>> {
    prop::sample::subsequence(std::vec![0i8, 1, 2, 5, 64, 127], n)
        .prop_shuffle()
        .boxed()
}

/// Values of a union `u`: one child's value under its type id, the values
/// of each child from `value`. A union slot is never null itself.
pub(crate) fn union_value(
    u: &crate::datatypes::UnionFields<'static, G>,
    value: impl Fn(&Dt) -> BoxedStrategy<V>,
) -> BoxedStrategy<V> {
    let alternatives: Vec<BoxedStrategy<V>> = u
        .type_ids()
        .iter()
        .zip(u.fields().iter())
        .map(|(&id, f)| {
            value(f.data_type())
                .prop_map(move |v| V::T(id, std::boxed::Box::new(v)))
                .boxed()
        })
        .collect();
    prop::strategy::Union::new(alternatives).boxed()
}

/// A union has no validity of its own, so the null slot of a dictionary or
/// run-end encoded column cannot be one: such values are wrapped in a struct.
pub(crate) fn with_validity(t: Dt) -> Dt {
    if matches!(t, DataType::Union(..)) {
        struct_of(&[t])
    } else {
        t
    }
}

pub(crate) const INDEX_TYPES: [IndexType; 3] =
    [IndexType::Int32, IndexType::UInt16, IndexType::Int64];

pub(crate) fn data_type() -> BoxedStrategy<Dt> {
    use DataType::*;
    leaf_type()
        .prop_recursive(2, 12, 3, |inner| {
            let unions = {
                #[cfg(feature = "union")]
                {
                    (vec(inner.clone(), 1..=3), any::<bool>())
                        .prop_flat_map(|(ts, dense)| {
                            let n = ts.len();
                            (Just(ts), Just(dense), union_ids(n))
                        })
                        .prop_map(|(ts, dense, ids)| union_of(&ts, &ids, dense))
                        .boxed()
                }
                #[cfg(not(feature = "union"))]
                {
                    vec(inner.clone(), 1..=3)
                        .prop_map(|ts| struct_of(&ts))
                        .boxed()
                }
            };
            prop_oneof![
                vec(inner.clone(), 1..=3).prop_map(|ts| struct_of(&ts)),
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
                (inner.clone(), prop::sample::select(INDEX_TYPES.to_vec()))
                    .prop_map(|(t, k)| dictionary_of(with_validity(t), k)),
                inner.prop_map(|t| RunEndEncoded(
                    field("run_ends", Int32, false),
                    field("values", with_validity(t), true)
                )),
                unions,
            ]
        })
        .boxed()
}

fn small_or(range: core::ops::RangeInclusive<i128>) -> BoxedStrategy<V> {
    prop_oneof![(-2i128..3).prop_map(V::I), range.prop_map(V::I)].boxed()
}

fn unsigned(max: u64) -> BoxedStrategy<V> {
    prop_oneof![(0u64..3).prop_map(V::U), (0..=max).prop_map(V::U)].boxed()
}

fn float_value(f: impl Fn(f64) -> f64 + 'static) -> BoxedStrategy<V> {
    prop_oneof![
        prop::sample::select(std::vec![
            f64::NAN,
            -f64::NAN,
            f64::from_bits(0x7FF0_0000_0000_0001),
            0.0,
            -0.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            1.5,
            -1.5
        ]),
        any::<f64>(),
        (-3i32..3).prop_map(f64::from),
    ]
    .prop_map(move |x| float(f(x)))
    .boxed()
}

fn bytes_value(max: usize) -> BoxedStrategy<V> {
    vec(
        prop::sample::select(std::vec![0u8, 1, 2, b'a', 0xFE, 0xFF]),
        0..max,
    )
    .prop_map(V::B)
    .boxed()
}

/// Units of `unit` in one day (the range of Time32/Time64 values).
pub(crate) fn time_units_per_day(unit: TimeUnit) -> i128 {
    match unit {
        TimeUnit::Second => 86_400,
        TimeUnit::Millisecond => 86_400_000,
        TimeUnit::Microsecond => 86_400_000_000,
        TimeUnit::Nanosecond => 86_400_000_000_000,
    }
}

/// Values of `dt` (nulls included).
pub(crate) fn value(dt: &Dt) -> BoxedStrategy<V> {
    use DataType::*;
    let non_null = match dt {
        Null => return Just(V::Null).boxed(),
        Boolean => any::<bool>().prop_map(V::Bool).boxed(),
        Int8 => small_or(i8::MIN.into()..=i8::MAX.into()),
        Int16 => small_or(i16::MIN.into()..=i16::MAX.into()),
        // Decimals within their precision, Date64 whole days: full
        // validation refuses other values.
        Decimal32(p, _) | Decimal64(p, _) | Decimal128(p, _) => {
            let max = 10i128.pow(u32::from(*p)) - 1;
            small_or(-max..=max)
        }
        Date64 => {
            const DAY: i128 = 86_400_000;
            (i128::from(i64::MIN) / DAY..=i128::from(i64::MAX) / DAY)
                .prop_map(|d| V::I(d * DAY))
                .boxed()
        }
        // Times within one day: full validation refuses other values.
        Time32(u) | Time64(u) => {
            let last = time_units_per_day(*u) - 1;
            prop_oneof![(0i128..3).prop_map(V::I), (0..=last).prop_map(V::I)].boxed()
        }
        Int32 | Date32 | Interval(IntervalUnit::YearMonth) => {
            small_or(i32::MIN.into()..=i32::MAX.into())
        }
        Int64 | Timestamp(..) | Duration(_) => small_or(i64::MIN.into()..=i64::MAX.into()),
        UInt8 => unsigned(u8::MAX.into()),
        UInt16 => unsigned(u16::MAX.into()),
        UInt32 => unsigned(u32::MAX.into()),
        UInt64 => unsigned(u64::MAX),
        Float16 => float_value(|x| f16::from_f64(x).to_f64()),
        Float32 => float_value(|x| f64::from(x as f32)),
        Float64 => float_value(|x| x),
        Decimal256(p, _) if *p <= 38 => {
            let max = 10i128.pow(u32::from(*p)) - 1;
            prop_oneof![
                (-2i128..3).prop_map(|x| V::W(i256::from_i128(x))),
                (-max..=max).prop_map(|x| V::W(i256::from_i128(x))),
            ]
            .boxed()
        }
        Decimal256(p, _) => {
            // |high| < 10^(p - 39) keeps |value| < 10^(p - 39) * 2^128 < 10^p.
            let high = 10i128.pow(u32::from(*p - 39));
            prop_oneof![
                (-2i128..3).prop_map(|x| V::W(i256::from_i128(x))),
                (any::<u128>(), -high..high).prop_map(|(l, h)| V::W(i256::from_parts(l, h))),
            ]
            .boxed()
        }
        Interval(IntervalUnit::DayTime) => vec(-2i64..3, 2).prop_map(V::Iv).boxed(),
        Interval(IntervalUnit::MonthDayNano) => (vec(-2i64..3, 2), any::<i64>())
            .prop_map(|(mut f, n)| {
                f.push(n % 3);
                V::Iv(f)
            })
            .boxed(),
        FixedSizeBinary(w) => vec(prop::sample::select(std::vec![0u8, 1, 0xFF]), *w as usize)
            .prop_map(V::B)
            .boxed(),
        Binary | LargeBinary | BinaryView => bytes_value(40),
        Utf8 | LargeUtf8 | Utf8View => "[ab\u{e9}\u{0}]{0,40}"
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
                panic!()
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
        // A union slot is never null (its child value may be).
        Union(u, _) => {
            return union_value(u, value);
        }
    };
    prop_oneof![1 => Just(V::Null), 4 => non_null].boxed()
}

/// `n` values, repeating the previous one now and then (runs, dictionary hits).
pub(crate) fn column(dt: &Dt, n: usize) -> BoxedStrategy<Vec<V>> {
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

/// A column built with `pad` before and after, then sliced to `vals`.
pub(crate) fn sliced(dt: &Dt, vals: &[V], pad: &V) -> ArrayRef<'static, G> {
    let mut padded = std::vec![pad.clone()];
    padded.extend(vals.iter().cloned());
    padded.push(pad.clone());
    build(dt, &padded).slice(1, vals.len()).unwrap()
}
