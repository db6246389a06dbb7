//! Hints to the processor to start loading memory that is about to be
//! read at a place it cannot predict: a random gather (`take` of byte
//! values, `filter` at low selectivity), or the next rows of a row-format
//! column decoder.
//!
//! Decoding rows reads each column from every row in turn, so one column's
//! pass touches a cache line or two per row, rows hundreds of bytes apart
//! and unevenly spaced (their strings differ in length): the hardware's
//! stride prefetchers cannot follow that, and once the rows outgrow the L2
//! cache each row's first load waits for memory. Asking for the row
//! [`AHEAD`] places later overlaps those waits.
//!
//! The hint is `PREFETCHT0` on x86-64 (with SSE, part of its baseline) and
//! nothing on other targets. Miri runs it (as a no-op).

/// How many rows ahead of the one being decoded [`ahead`] gives the hint.
#[cfg(all(
    feature = "dictionary",
    feature = "nested",
    feature = "run-end",
    feature = "views"
))]
const AHEAD: usize = 12;

/// Asks the processor to bring the cache line holding `p` into its
/// caches, so that a load there a little later finds it. A hint only:
/// nothing is read architecturally and no address faults, so `p` may be
/// dangling or past the end of its allocation (computed with wrapping
/// arithmetic).
#[inline(always)]
pub(crate) fn prefetch<T>(p: *const T) {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse"))]
    // SAFETY: `_mm_prefetch` needs SSE, enabled for this build (the `cfg`
    // above); a prefetch only hints the cache and does not access memory,
    // so any address is allowed.
    unsafe {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(p.cast());
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse")))]
    let _ = p;
}

/// Hints the first two cache lines of the row [`AHEAD`] of row `i` of
/// `rows` (a cursor decoder about to read row `i`, so `i < rows.len()`: the
/// sum cannot overflow); nothing past the last row.
// For the row format (built with these layout families).
#[cfg(all(
    feature = "dictionary",
    feature = "nested",
    feature = "run-end",
    feature = "views"
))]
#[inline(always)]
pub(crate) fn ahead(rows: &[&[u8]], i: usize) {
    if let Some(r) = rows.get(i + AHEAD) {
        let p = r.as_ptr();
        prefetch(p);
        prefetch(p.wrapping_add(63));
    }
}

// The row format is built with these layout families.
#[cfg(all(
    test,
    feature = "dictionary",
    feature = "nested",
    feature = "run-end",
    feature = "views"
))]
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
