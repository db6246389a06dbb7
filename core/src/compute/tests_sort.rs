//! `sort_to_indices_in` and `lexsort_to_indices_in` against a plain model
//! (a stable sort of the indices by an `Option` key), under every
//! `SortOptions` and several limits; floats in IEEE `totalOrder`; the row
//! format path for strings and several columns; every allocation failure.

use core::cmp::Ordering;

use alloc::vec;
use alloc::vec::Vec;

use super::{lexsort_to_indices_in, sort_to_indices_in, SortColumn};
use crate::array::{Array, ArrayRef, Float64Array, Int32Array, Int64Array, StringArray};
use crate::error::Error;
use crate::row::SortOptions;
use crate::test_support::check_every_failure;
use crate::Global;

/// Every combination of the two sort flags.
pub(super) const OPTIONS: [SortOptions; 4] = [
    SortOptions {
        descending: false,
        nulls_first: true,
    },
    SortOptions {
        descending: false,
        nulls_first: false,
    },
    SortOptions {
        descending: true,
        nulls_first: true,
    },
    SortOptions {
        descending: true,
        nulls_first: false,
    },
];

use crate::test_support::rng;

/// The model: indices stably sorted by `keys` under `o` (nulls placed by
/// `o`), the first `limit`.
pub(super) fn model<K>(
    keys: &[Option<K>],
    o: SortOptions,
    limit: Option<usize>,
    cmp: impl Fn(&K, &K) -> Ordering,
) -> Vec<u32> {
    let mut idx: Vec<u32> = (0..keys.len() as u32).collect();
    idx.sort_by(|&a, &b| match (&keys[a as usize], &keys[b as usize]) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) if o.nulls_first => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (Some(_), None) if o.nulls_first => Ordering::Greater,
        (Some(_), None) => Ordering::Less,
        (Some(x), Some(y)) if o.descending => cmp(y, x),
        (Some(x), Some(y)) => cmp(x, y),
    });
    idx.truncate(limit.unwrap_or(idx.len()));
    idx
}

#[test]
fn integers_with_nulls_match_the_model_under_every_option_and_limit() {
    let mut next = rng(0x9e37_79b9_7f4a_7c15);
    for n in [0usize, 1, 2, 7, 64, 300] {
        let keys: Vec<Option<i32>> = (0..n)
            .map(|_| {
                let r = next();
                (r % 5 != 0).then_some((r >> 8) as i32 % 20 - 10)
            })
            .collect();
        let a = Int32Array::from(keys.clone()).into_array_ref();
        // A slice too: offsets into the parent must not leak into indices.
        let sliced = if n > 2 {
            Some(a.slice(1, n - 2).unwrap())
        } else {
            None
        };
        for o in OPTIONS {
            for limit in [None, Some(0), Some(1), Some(5), Some(n)] {
                let got = sort_to_indices_in(&a, Some(o), limit, Global).unwrap();
                assert_eq!(
                    got.values(),
                    &model(&keys, o, limit, i32::cmp)[..],
                    "{n} {o:?} {limit:?}"
                );
                if let Some(s) = &sliced {
                    let got = sort_to_indices_in(s, Some(o), limit, Global).unwrap();
                    let want = model(&keys[1..n - 1], o, limit, i32::cmp);
                    assert_eq!(got.values(), &want[..], "sliced {n} {o:?} {limit:?}");
                }
            }
        }
    }
}

#[test]
fn floats_in_total_order() {
    let v = [
        f64::NAN,
        -0.0,
        0.0,
        f64::NEG_INFINITY,
        1.5,
        -f64::NAN,
        f64::INFINITY,
        -2.0,
    ];
    let a = Float64Array::from(v.to_vec()).into_array_ref();
    let got = sort_to_indices_in(&a, None, None, Global).unwrap();
    // -NaN < -inf < -2 < -0 < +0 < 1.5 < inf < NaN
    assert_eq!(got.values(), [5, 3, 7, 1, 2, 4, 6, 0]);
    let keys: Vec<Option<f64>> = v.iter().map(|&x| Some(x)).collect();
    for o in OPTIONS {
        let got = sort_to_indices_in(&a, Some(o), None, Global).unwrap();
        assert_eq!(got.values(), &model(&keys, o, None, f64::total_cmp)[..]);
    }
}

#[test]
fn strings_sort_by_prefix_then_whole_bytes() {
    let keys = [
        Some("pear"),
        None,
        Some("apple"),
        Some(""),
        Some("pear"),
        None,
        Some("fig"),
    ];
    let a = StringArray::from(keys.to_vec()).into_array_ref();
    for o in OPTIONS {
        for limit in [None, Some(3)] {
            let got = sort_to_indices_in(&a, Some(o), limit, Global).unwrap();
            let want = model(&keys, o, limit, |x: &&str, y: &&str| x.cmp(y));
            assert_eq!(got.values(), &want[..], "{o:?} {limit:?}");
        }
    }
}

#[test]
fn several_columns_sort_lexicographically() {
    let mut next = rng(7);
    let n = 200;
    let ints: Vec<Option<i64>> = (0..n).map(|_| Some((next() % 4) as i64)).collect();
    let words = ["b", "a", "c"];
    let strs: Vec<Option<&str>> = (0..n)
        .map(|_| {
            let r = next();
            (r % 7 != 0).then(|| words[(r % 3) as usize])
        })
        .collect();
    let a = Int64Array::from(ints.clone()).into_array_ref();
    let b = StringArray::from(strs.clone()).into_array_ref();
    let keys: Vec<Option<(i64, Option<&str>)>> = ints
        .iter()
        .zip(&strs)
        .map(|(i, s)| Some(((*i).unwrap_or(0), *s)))
        .collect();
    for oa in OPTIONS {
        for ob in OPTIONS {
            let got = lexsort_to_indices_in(
                &[
                    SortColumn {
                        values: &a,
                        options: Some(oa),
                    },
                    SortColumn {
                        values: &b,
                        options: Some(ob),
                    },
                ],
                Some(50),
                Global,
            )
            .unwrap();
            let cmp = |x: &(i64, Option<&str>), y: &(i64, Option<&str>)| {
                let first = if oa.descending {
                    y.0.cmp(&x.0)
                } else {
                    x.0.cmp(&y.0)
                };
                first.then_with(|| match (x.1, y.1) {
                    (None, None) => Ordering::Equal,
                    (None, Some(_)) => {
                        if ob.nulls_first {
                            Ordering::Less
                        } else {
                            Ordering::Greater
                        }
                    }
                    (Some(_), None) => {
                        if ob.nulls_first {
                            Ordering::Greater
                        } else {
                            Ordering::Less
                        }
                    }
                    (Some(p), Some(q)) => {
                        if ob.descending {
                            q.cmp(p)
                        } else {
                            p.cmp(q)
                        }
                    }
                })
            };
            let asc = SortOptions::default();
            assert_eq!(
                got.values(),
                &model(&keys, asc, Some(50), cmp)[..],
                "{oa:?} {ob:?}"
            );
        }
    }
}

#[test]
fn bad_arguments_are_errors() {
    let a = Int32Array::from(vec![1, 2]).into_array_ref();
    let b = Int32Array::from(vec![1]).into_array_ref();
    let e = lexsort_to_indices_in::<Global>(&[], None, Global).unwrap_err();
    assert_eq!(e, Error::InvalidArgument);
    let cols = [
        SortColumn {
            values: &a,
            options: None,
        },
        SortColumn {
            values: &b,
            options: None,
        },
    ];
    assert_eq!(
        lexsort_to_indices_in(&cols, None, Global).unwrap_err(),
        Error::ChildLengthMismatch
    );
}

#[test]
fn every_allocation_failure_is_an_error() {
    check_every_failure(|alloc| {
        let a: ArrayRef<'static, _> = crate::array::PrimitiveArray::<i64, _>::try_from_options_in(
            &[Some(3), None, Some(1)],
            alloc.clone(),
        )?
        .into_array_ref();
        sort_to_indices_in(&a, None, Some(2), alloc)
    });
    // Enough strings for the bucketed prefix sort (its own buffers).
    let words: Vec<std::string::String> = (0..5000)
        .map(|i| std::format!("w{}", i * 7 % 5000))
        .collect();
    let words: Vec<Option<&str>> = words.iter().map(|w| Some(w.as_str())).collect();
    check_every_failure(|alloc| {
        let a: ArrayRef<'static, _> =
            crate::array::StringArray::try_from_options_in(&words, alloc.clone())?.into_array_ref();
        sort_to_indices_in(&a, None, None, alloc)
    });
    check_every_failure(|alloc| {
        let a: ArrayRef<'static, _> = crate::array::StringArray::try_from_options_in(
            &[Some("b"), None, Some("a")],
            alloc.clone(),
        )?
        .into_array_ref();
        lexsort_to_indices_in(
            &[SortColumn {
                values: &a,
                options: None,
            }],
            None,
            alloc,
        )
    });
}
