//! Property tests: random multi-column inputs of every supported type and
//! every [`SortOptions`] combination, in two batches whose dictionaries differ.
//! Types nest up to two levels at random (structs, every list kind, maps,
//! dictionaries, run-end encoded columns, sparse and dense unions with
//! shuffled type ids), and a quarter of the columns take one of the shapes
//! that must never be missed: lists of structs, structs of lists,
//! dictionaries inside lists, unions of lists and dictionaries, lists of
//! unions. No generated case is discarded and no pair of rows is left out.
//!
//! - sorting rows by `memcmp` gives the order of the reference comparator
//!   (`test_model::reference_cmp`), across both batches;
//! - decoding the rows gives the values back;
//! - unordered rows are equal exactly when the values are;
//! - seed rows (`RowEncoding::Seed`, with a `RowInterner`) are equal exactly
//!   when the values are and decode to them;
//! - arbitrary bytes, and valid rows with bytes changed or cut, decode to
//!   an error or to columns, never to a panic.

use core::cmp::Ordering;
use std::vec::Vec;

use proptest::collection::vec;
use proptest::prelude::*;

use super::test_model::{build, field, float, reference_cmp, value_at, Dt, Seeded, G, V};
use super::{Row, RowConverter, RowEncoding, Rows, SortField, SortOptions};
use crate::array::{Array, ArrayRef};
use crate::buffer::{SharedBox, SharedSlice};
use crate::datatypes::{DataType, Field, IndexType, IntervalUnit, TimeUnit};
use crate::native::{f16, i256};
use crate::Global;

fn leaf_type() -> BoxedStrategy<Dt> {
    use DataType::*;
    prop::sample::select(std::vec![
        Boolean,
        Int8,
        Int16,
        Int32,
        Int64,
        UInt8,
        UInt16,
        UInt32,
        UInt64,
        Float16,
        Float32,
        Float64,
        Decimal32(9, 2),
        Decimal64(18, 2),
        Decimal128(38, 2),
        Decimal256(76, 2),
        Date32,
        Date64,
        Time32(TimeUnit::Millisecond),
        Time64(TimeUnit::Nanosecond),
        Timestamp(TimeUnit::Microsecond, None),
        Duration(TimeUnit::Second),
        Interval(IntervalUnit::YearMonth),
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

fn struct_of(ts: &[Dt]) -> Dt {
    let fields = SharedSlice::try_from_fn_in(ts.len(), Global, |i| {
        Ok(Field::new(NAMES[i], ts[i].clone(), true))
    })
    .unwrap();
    DataType::Struct(fields)
}

fn dictionary_of(t: Dt, k: IndexType) -> Dt {
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

const INDEX_TYPES: [IndexType; 3] = [IndexType::Int32, IndexType::UInt16, IndexType::Int64];

fn data_type() -> BoxedStrategy<Dt> {
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

/// The nested shapes every run must meet, with random leaves: lists of
/// structs, structs of lists, dictionaries inside lists (and list views),
/// unions (sparse and dense) of lists and dictionaries, lists of unions.
fn required_shape() -> BoxedStrategy<Dt> {
    use DataType::*;
    let index = prop::sample::select(INDEX_TYPES.to_vec());
    (leaf_type(), leaf_type(), index, any::<bool>(), 0u8..6)
        .prop_map(|(a, b, k, flag, which)| {
            let list = |t: Dt| List(field("item", t, true));
            match which {
                0 => list(struct_of(&[a, b])),
                1 => struct_of(&[list(a), b]),
                2 if flag => list(dictionary_of(a, k)),
                2 => ListView(field("item", dictionary_of(a, k), true)),
                #[cfg(feature = "union")]
                3 => union_of(&[list(a), dictionary_of(b, k)], &[5, 1], flag),
                #[cfg(feature = "union")]
                4 => union_of(
                    &[dictionary_of(a.clone(), k), list(dictionary_of(b, k)), a],
                    &[127, 0, 2],
                    flag,
                ),
                #[cfg(feature = "union")]
                _ => list(union_of(&[a, list(b)], &[3, 0], flag)),
                #[cfg(not(feature = "union"))]
                _ => list(list(a)),
            }
        })
        .boxed()
}

fn column_type() -> BoxedStrategy<Dt> {
    prop_oneof![1 => Just(DataType::Null), 12 => data_type(), 4 => required_shape()].boxed()
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
fn value(dt: &Dt) -> BoxedStrategy<V> {
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
fn column(dt: &Dt, n: usize) -> BoxedStrategy<Vec<V>> {
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

/// A column built with a null slot before and after, then sliced to `vals`.
fn sliced(dt: &Dt, vals: &[V]) -> ArrayRef<'static, G> {
    let mut padded = std::vec![V::Null];
    padded.extend(vals.iter().cloned());
    padded.push(V::Null);
    build(dt, &padded).slice(1, vals.len()).unwrap()
}

#[derive(Debug, Clone)]
struct Case {
    types: Vec<Dt>,
    options: Vec<SortOptions>,
    batches: [Vec<Vec<V>>; 2],
}

fn case() -> impl Strategy<Value = Case> {
    vec((column_type(), any::<bool>(), any::<bool>()), 1..4)
        .prop_flat_map(|cols| {
            let types: Vec<Dt> = cols.iter().map(|c| c.0.clone()).collect();
            let options: Vec<SortOptions> =
                cols.iter().map(|c| SortOptions::new(c.1, c.2)).collect();
            (Just(types), Just(options), (0usize..10, 0usize..10)).prop_flat_map(
                |(t, o, (n1, n2))| {
                    let batch = |n: usize| t.iter().map(|t| column(t, n)).collect::<Vec<_>>();
                    let (b1, b2) = (batch(n1), batch(n2));
                    (Just(t), Just(o), b1, b2)
                },
            )
        })
        .prop_map(|(types, options, b1, b2)| Case {
            types,
            options,
            batches: [b1, b2],
        })
}

fn fields(c: &Case) -> Vec<SortField<'static, G>> {
    c.types
        .iter()
        .zip(&c.options)
        .map(|(t, o)| SortField::new_with_options(t.clone(), *o))
        .collect()
}

/// Encodes both batches (the second appended) and returns the rows with the
/// values of every row, column by column.
fn encode(conv: &mut RowConverter<'static, G>, c: &Case) -> (Rows<G>, Vec<Vec<V>>) {
    let rows = conv.empty_rows(0, 0).unwrap();
    encode_with(rows, c, |rows, cols| conv.append(rows, cols).unwrap())
}

/// As [`encode`], appending with `append`.
fn encode_with(
    mut rows: Rows<G>,
    c: &Case,
    mut append: impl FnMut(&mut Rows<G>, &[ArrayRef<'static, G>]),
) -> (Rows<G>, Vec<Vec<V>>) {
    let mut all: Vec<Vec<V>> = std::vec![Vec::new(); c.types.len()];
    for batch in &c.batches {
        let cols: Vec<ArrayRef<'static, G>> = c
            .types
            .iter()
            .zip(batch)
            .map(|(t, vals)| sliced(t, vals))
            .collect();
        append(&mut rows, &cols);
        for (k, vals) in batch.iter().enumerate() {
            all[k].extend(vals.iter().cloned());
        }
    }
    (rows, all)
}

fn check_round_trip(conv: &RowConverter<'static, G>, rows: &Rows<G>, all: &[Vec<V>]) {
    let decoded = conv.convert_rows(rows.iter()).unwrap();
    check_decoded(conv, &decoded, rows.len(), all);
}

/// The decoded columns have the converter's decoded types and the values.
fn check_decoded(
    conv: &RowConverter<'static, G>,
    decoded: &[ArrayRef<'static, G>],
    n: usize,
    all: &[Vec<V>],
) {
    assert_eq!(decoded.len(), all.len());
    for (k, col) in decoded.iter().enumerate() {
        assert_eq!(Some(col.data_type()), conv.decoded_type(k));
        assert_eq!(col.len(), n);
        for (i, v) in all[k].iter().enumerate() {
            assert_eq!(&value_at(col, i), v, "column {k} row {i}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn rows_sort_like_the_values(c in case()) {
        let mut conv = RowConverter::try_new(&fields(&c)).unwrap();
        let (rows, all) = encode(&mut conv, &c);
        let n = rows.len();
        for i in 0..n {
            for j in 0..n {
                let expected = c
                    .types
                    .iter()
                    .zip(&c.options)
                    .enumerate()
                    .map(|(k, (t, o))| reference_cmp(t, *o, &all[k][i], &all[k][j]))
                    .find(|o| o.is_ne())
                    .unwrap_or(Ordering::Equal);
                let got = rows.row(i).unwrap().cmp(&rows.row(j).unwrap());
                prop_assert_eq!(got, expected, "rows {} and {}: {:?} vs {:?}", i, j,
                    all.iter().map(|c| &c[i]).collect::<Vec<_>>(),
                    all.iter().map(|c| &c[j]).collect::<Vec<_>>());
            }
        }
        check_round_trip(&conv, &rows, &all);
    }

    #[test]
    fn unordered_rows_are_equal_exactly_when_values_are(c in case()) {
        let mut conv = RowConverter::try_new_unordered(&fields(&c)).unwrap();
        let (rows, all) = encode(&mut conv, &c);
        let n = rows.len();
        for i in 0..n {
            for j in 0..n {
                let same = all.iter().all(|col| col[i] == col[j]);
                prop_assert_eq!(rows.row(i) == rows.row(j), same, "rows {} and {}", i, j);
            }
        }
        check_round_trip(&conv, &rows, &all);
    }

    /// The seed encoding (canonical-byte-array lists, dictionaries through a
    /// `RowInterner` that grows with the second batch): rows are equal
    /// exactly when the values are, and decode (row by row and straight from
    /// the `Rows`) to the values. Its order is not checked: it has the list
    /// defect `RowEncoding::Seed` documents.
    #[test]
    fn seed_rows_round_trip(c in case()) {
        let mut s = Seeded::with_encoding(&fields(&c), RowEncoding::Seed);
        let empty = s.empty_rows(0, 0).unwrap();
        let (rows, all) = encode_with(empty, &c, |rows, cols| s.append(rows, cols).unwrap());
        let n = rows.len();
        for i in 0..n {
            for j in 0..n {
                let same = all.iter().all(|col| col[i] == col[j]);
                prop_assert_eq!(rows.row(i) == rows.row(j), same, "rows {} and {}", i, j);
            }
        }
        check_decoded(&s, &s.convert_rows(rows.iter()).unwrap(), n, &all);
        check_decoded(&s, &s.convert_all_rows(&rows).unwrap(), n, &all);
    }
}

/// Decodes rows one at a time and all together; only checks that nothing panics.
fn decode_all(conv: &RowConverter<'static, G>, rows: &[Vec<u8>]) {
    let _ = conv.convert_rows(rows.iter().map(|r| Row::new(r)));
    for r in rows {
        let _ = conv.convert_rows([Row::new(r)]);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn malformed_rows_never_panic(
        c in case(),
        unordered in any::<bool>(),
        noise in vec(vec(any::<u8>(), 0..80), 0..4),
        edits in vec((any::<usize>(), any::<usize>(), any::<u8>(), 0u8..3), 1..4),
    ) {
        let fields = fields(&c);
        let mut conv = if unordered {
            RowConverter::try_new_unordered(&fields).unwrap()
        } else {
            RowConverter::try_new(&fields).unwrap()
        };
        let (rows, _) = encode(&mut conv, &c);
        decode_all(&conv, &noise);
        let mut bytes: Vec<Vec<u8>> = rows.iter().map(|r| r.data().to_vec()).collect();
        if bytes.is_empty() {
            // No rows to corrupt: the edits make one out of nothing.
            bytes.push(Vec::new());
        }
        for (row, pos, b, how) in edits {
            let n = bytes.len();
            let r = &mut bytes[row % n];
            if r.is_empty() {
                r.push(b);
                continue;
            }
            let at = pos % r.len();
            match how {
                0 => r[at] = b,
                1 => r.truncate(at),
                _ => r.insert(at, b),
            }
        }
        decode_all(&conv, &bytes);
    }
}
