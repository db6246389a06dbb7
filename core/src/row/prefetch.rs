//! A hint to the processor to start loading the bytes of a row that a
//! column decoder will read a few rows later.
//!
//! Decoding reads each column from every row in turn (see `source.rs`), so
//! one column's pass touches a cache line or two per row, rows hundreds of
//! bytes apart and unevenly spaced (their strings differ in length): the
//! hardware's stride prefetchers cannot follow that, and once the rows
//! outgrow the L2 cache each row's first load waits for memory. Asking for
//! the row `AHEAD` places later overlaps those waits.

/// How many rows ahead of the one being decoded the hint is given.
const AHEAD: usize = 12;

/// Hints the row [`AHEAD`] of row `i` of `rows` (a cursor decoder about to
/// read row `i`, so `i < rows.len()`: the sum cannot overflow); nothing
/// past the last row.
#[inline(always)]
pub(crate) fn ahead(rows: &[&[u8]], i: usize) {
    if let Some(r) = rows.get(i + AHEAD) {
        row(r);
    }
}

/// Hints that the first two cache lines of `row` will be read soon. Never
/// reads them itself and never faults (a prefetch of any address is
/// harmless); a no-op on targets other than x86-64 with SSE (and under
/// Miri, which runs it).
#[inline(always)]
fn row(row: &[u8]) {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse"))]
    {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let p = row.as_ptr().cast::<i8>();
        // SAFETY: `_mm_prefetch` needs SSE, enabled for this build (the
        // `cfg` above); a prefetch only hints the cache and does not access
        // memory, so any address (here one inside or just past `row`,
        // computed with wrapping arithmetic) is allowed.
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(p);
            _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(63));
        }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse")))]
    let _ = row;
}

#[cfg(test)]
mod tests {
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
}
