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

use super::test_model::{field, reference_cmp, value_at, Dt, Seeded, G, V};
#[cfg(feature = "union")]
use super::test_strategies::union_of;
use super::test_strategies::{
    column, data_type, dictionary_of, leaf_type, sliced, struct_of, INDEX_TYPES,
};
use super::{Row, RowConverter, RowEncoding, Rows, SortField, SortOptions};
use crate::array::{Array, ArrayRef};
use crate::datatypes::DataType;

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
            .map(|(t, vals)| sliced(t, vals, &V::Null))
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
