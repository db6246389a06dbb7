//! Sort kernels benchmark: alkaid's `sort_to_indices_in` and
//! `lexsort_to_indices_in` against arrow-ord 60's `sort_to_indices` and
//! `lexsort_to_indices`, in one run (no assertions on time).
//!
//! `cargo bench -p alkaid-tests-arrow-rs --bench sort`
//!
//! Cases: one Int64 column with 10 % nulls (direct path on both sides), one
//! Utf8 column of 4 to 40 bytes (ours: 8-byte prefix keys, then the whole
//! strings; arrow-ord's string sort), and (Int64, Utf8) lexicographically on 1,048,576 rows; each
//! whole and as top-100 (`limit`). The same values on both sides; before
//! timing, the values in the two orders are checked equal (ours is stable;
//! arrow-ord may order equal keys differently).

mod util;

use std::hint::black_box;
use std::sync::Arc;

use alkaid::array::{Array, ArrayRef, PrimitiveArray, StringArray};
use alkaid::compute::{lexsort_to_indices_in, sort_to_indices_in, SortColumn};
use alkaid::Global as G;
use arrow_array as aa;
use util::{compare, verdict, vs, Budget, Rng, Table};

/// The rows of `cols` in the order `idx` gives (both sides' indices read
/// through arrow-rs's arrays), to compare two orders by value.
fn ordered(cols: &[&aa::ArrayRef], idx: &[u32]) -> Vec<aa::ArrayRef> {
    let idx = aa::UInt32Array::from(idx.to_vec());
    cols.iter()
        .map(|c| arrow_select::take::take(c.as_ref(), &idx, None).unwrap())
        .collect()
}

const ROWS: usize = 1 << 20;

fn main() {
    let mut rng = Rng::new(11);
    let ints: Vec<Option<i64>> = (0..ROWS)
        .map(|_| (!rng.chance(0.1)).then(|| rng.below(1 << 20) as i64))
        .collect();
    let strs: Vec<Option<String>> = (0..ROWS)
        .map(|_| {
            let len = 4 + rng.below(37) as usize;
            Some(rng.alnum(len))
        })
        .collect();
    let o_int: ArrayRef<'static, G> = PrimitiveArray::<i64, G>::try_from_options_in(&ints, G)
        .unwrap()
        .into_array_ref();
    let o_str: ArrayRef<'static, G> =
        StringArray::from_iter(strs.iter().map(|s| s.as_deref())).into_array_ref();
    let t_int: aa::ArrayRef = Arc::new(aa::Int64Array::from(ints.clone()));
    let t_str: aa::ArrayRef = Arc::new(aa::StringArray::from_iter(
        strs.iter().map(|s| s.as_deref()),
    ));

    println!(
        "alkaid vs arrow-ord 60, sort to indices of {ROWS} rows: median thread CPU time \
         of interleaved samples; speed-up = arrow-rs time / alkaid time (wall-clock in \
         parentheses); target ≥ 1.0×\n"
    );
    let table = Table::new(
        &[
            "case",
            "limit",
            "alkaid",
            "arrow-rs",
            "speed-up (wall)",
            "target",
        ],
        &[18, 6, 9, 9, 15, 13],
    );
    let budget = Budget {
        samples: 7,
        sample_time: std::time::Duration::from_millis(50),
    };
    for limit in [None, Some(100)] {
        let label = limit.map_or("all".to_string(), |l| l.to_string());
        // Int64, direct path.
        let ours = sort_to_indices_in(&o_int, None, limit, G).unwrap();
        let theirs = arrow_ord::sort::sort_to_indices(&t_int, None, limit).unwrap();
        assert_eq!(
            ordered(&[&t_int], ours.values()),
            ordered(&[&t_int], theirs.values()),
            "int64 {limit:?}"
        );
        let r = compare(
            &mut [
                &mut || {
                    black_box(sort_to_indices_in(&o_int, None, limit, G).unwrap());
                },
                &mut || {
                    black_box(arrow_ord::sort::sort_to_indices(&t_int, None, limit).unwrap());
                },
            ],
            budget,
        );
        let [a, b, ratio] = vs(r[0], r[1]);
        table.row(&[
            "int64 (10% null)".into(),
            label.clone(),
            a,
            b,
            ratio,
            verdict(util::speedup(r[0].cpu, r[1].cpu), 1.0),
        ]);

        // Utf8: prefix keys, then the whole strings on ties.
        let ours = sort_to_indices_in(&o_str, None, limit, G).unwrap();
        let theirs = arrow_ord::sort::sort_to_indices(&t_str, None, limit).unwrap();
        assert_eq!(
            ordered(&[&t_str], ours.values()),
            ordered(&[&t_str], theirs.values()),
            "utf8 {limit:?}"
        );
        let r = compare(
            &mut [
                &mut || {
                    black_box(sort_to_indices_in(&o_str, None, limit, G).unwrap());
                },
                &mut || {
                    black_box(arrow_ord::sort::sort_to_indices(&t_str, None, limit).unwrap());
                },
            ],
            budget,
        );
        let [a, b, ratio] = vs(r[0], r[1]);
        table.row(&[
            "utf8".into(),
            label.clone(),
            a,
            b,
            ratio,
            verdict(util::speedup(r[0].cpu, r[1].cpu), 1.0),
        ]);

        // (Int64, Utf8) lexicographically.
        let cols = [
            SortColumn {
                values: &o_int,
                options: None,
            },
            SortColumn {
                values: &o_str,
                options: None,
            },
        ];
        let tcols = [
            arrow_ord::sort::SortColumn {
                values: t_int.clone(),
                options: None,
            },
            arrow_ord::sort::SortColumn {
                values: t_str.clone(),
                options: None,
            },
        ];
        let ours = lexsort_to_indices_in(&cols, limit, G).unwrap();
        let theirs = arrow_ord::sort::lexsort_to_indices(&tcols, limit).unwrap();
        assert_eq!(
            ordered(&[&t_int, &t_str], ours.values()),
            ordered(&[&t_int, &t_str], theirs.values()),
            "lexsort {limit:?}"
        );
        let r = compare(
            &mut [
                &mut || {
                    black_box(lexsort_to_indices_in(&cols, limit, G).unwrap());
                },
                &mut || {
                    black_box(arrow_ord::sort::lexsort_to_indices(&tcols, limit).unwrap());
                },
            ],
            budget,
        );
        let [a, b, ratio] = vs(r[0], r[1]);
        table.row(&[
            "(int64, utf8)".into(),
            label,
            a,
            b,
            ratio,
            verdict(util::speedup(r[0].cpu, r[1].cpu), 1.0),
        ]);
    }
}
