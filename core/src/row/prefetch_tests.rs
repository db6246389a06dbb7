//! The cursor decoders that prefetch rows ahead ([`crate::arch::prefetch::ahead`])
//! decode what was encoded past the prefetch distance (under Miri too,
//! which runs the prefetch).

use std::vec::Vec;

use crate::datatypes::DataType;
use crate::row::test_model::{build, value_at, V};
use crate::row::{RowConverter, SortField, SortOptions};

/// The three cursor decoders that prefetch (fixed width, boolean,
/// ordered bytes), side by side in one converter so each reads through
/// cursors: 150 rows (more than two validity words and the prefetch
/// distance) with nulls in each column, all four orders, decode to the
/// values encoded (under Miri, which runs the prefetch too: 70 rows, two
/// of the orders).
#[test]
fn cursor_decoders_round_trip_past_the_prefetch_distance() {
    let n: i128 = if cfg!(miri) { 70 } else { 150 };
    let ints: Vec<V> = (0..n)
        .map(|i| {
            if i % 7 == 3 {
                V::Null
            } else {
                V::I(i * 1_000_003 - 70_000)
            }
        })
        .collect();
    let bools: Vec<V> = (0..n)
        .map(|i| {
            if i % 5 == 1 {
                V::Null
            } else {
                V::Bool(i % 3 == 0)
            }
        })
        .collect();
    let strings: Vec<V> = (0..n)
        .map(|i| match i % 11 {
            4 => V::Null,
            5 => V::B(Vec::new()),
            k => V::B((0..k * 9).map(|j| b'a' + ((i + j) % 26) as u8).collect()),
        })
        .collect();
    let types = [DataType::Int64, DataType::Boolean, DataType::Utf8];
    let cols = [
        build(&types[0], &ints),
        build(&types[1], &bools),
        build(&types[2], &strings),
    ];
    for descending in [false, true] {
        for nulls_first in [false, true] {
            if cfg!(miri) && descending == nulls_first {
                continue;
            }
            let opts = SortOptions {
                descending,
                nulls_first,
            };
            let fields: Vec<_> = types
                .iter()
                .map(|t| SortField::new_with_options(t.clone(), opts))
                .collect();
            let c = RowConverter::try_new(&fields).unwrap();
            let rows = c.convert_columns(&cols).unwrap();
            let back = c.convert_all_rows(&rows).unwrap();
            let by_rows = c.convert_rows(rows.iter()).unwrap();
            for (k, want) in [&ints, &bools, &strings].into_iter().enumerate() {
                for out in [&back, &by_rows] {
                    let got: Vec<V> = (0..want.len()).map(|i| value_at(&out[k], i)).collect();
                    assert_eq!(&got, want, "column {k}, {opts:?}");
                }
            }
        }
    }
}
