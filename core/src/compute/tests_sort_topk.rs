//! The top-k paths of the sort kernels (a limit of at most a tenth of the
//! rows: one pass with a bounded heap) against the plain model and against
//! the paths without a limit: single columns of every directly sorted kind,
//! lexicographic sorts whose columns are compared directly or through their
//! own rows, float special values, slices, every allocation failure.

use core::cmp::Ordering;

use alloc::vec::Vec;

use super::tests_nested::dictionary;
use super::tests_sort::{model, OPTIONS};
use super::{lexsort_to_indices_in, sort_to_indices_in, SortColumn};
use crate::array::{
    Array, ArrayRef, BinaryArray, BooleanArray, Float64Array, Int32Array, Int64Array, StringArray,
    StringViewArray,
};
use crate::test_support::check_every_failure;
use crate::Global;

/// Rows per column: limits up to 200 take the heap path.
const N: usize = 2000;
/// Limits on both sides of the heap threshold (N / 10), and the whole.
const LIMITS: [Option<usize>; 8] = [
    Some(0),
    Some(1),
    Some(7),
    Some(100),
    Some(200),
    Some(201),
    Some(1500),
    None,
];

use crate::test_support::rng;

/// `N` keys: a null with probability `nulls` in 1/8ths, else `make(r)`.
fn keys<K>(seed: u64, nulls: u64, make: impl Fn(u64) -> K) -> Vec<Option<K>> {
    let mut next = rng(seed);
    (0..N)
        .map(|_| {
            let r = next();
            (r % 8 >= nulls).then(|| make(r >> 3))
        })
        .collect()
}

/// `sort_to_indices_in` of `a` equals the model of `keys` at every option
/// and limit, and so does its slice of rows `1..N - 1`.
fn check_single<K>(
    a: &ArrayRef<'static, Global>,
    keys: &[Option<K>],
    cmp: impl Fn(&K, &K) -> Ordering + Copy,
) {
    let s = a.slice(1, N - 2).unwrap();
    for o in OPTIONS {
        for limit in LIMITS {
            let got = sort_to_indices_in(a, Some(o), limit, Global).unwrap();
            assert_eq!(
                got.values(),
                &model(keys, o, limit, cmp)[..],
                "{o:?} {limit:?}"
            );
            let got = sort_to_indices_in(&s, Some(o), limit, Global).unwrap();
            let want = model(&keys[1..N - 1], o, limit, cmp);
            assert_eq!(got.values(), &want[..], "sliced {o:?} {limit:?}");
        }
    }
}

#[test]
fn integers_every_option_and_limit() {
    // Few distinct values: many ties, broken by index.
    let k = keys(1, 2, |r| (r % 41) as i32 - 20);
    check_single(&Int32Array::from(k.clone()).into_array_ref(), &k, i32::cmp);
    let k = keys(2, 0, |r| r as i64);
    check_single(&Int64Array::from(k.clone()).into_array_ref(), &k, i64::cmp);
    // Most rows null: fewer valid rows than some limits.
    let k = keys(3, 7, |r| (r % 5) as i64);
    check_single(&Int64Array::from(k.clone()).into_array_ref(), &k, i64::cmp);
    let k = keys(4, 1, |r| i128::from(r % 9) << 70);
    check_single(
        &crate::array::PrimitiveArray::<i128, Global>::from(k.clone()).into_array_ref(),
        &k,
        i128::cmp,
    );
}

#[test]
fn floats_in_total_order_every_limit() {
    let special = [
        f64::NAN,
        -f64::NAN,
        -0.0,
        0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ];
    let k = keys(5, 1, |r| match r % 10 {
        x @ 0..=5 => special[x as usize],
        x => x as f64 - 7.5,
    });
    check_single(
        &Float64Array::from(k.clone()).into_array_ref(),
        &k,
        f64::total_cmp,
    );
}

#[test]
fn strings_and_bytes_every_option_and_limit() {
    // Shared 8-byte prefixes, prefixes of each other, empty strings.
    let words = [
        "",
        "a",
        "abcdefgh",
        "abcdefgh",
        "abcdefghi",
        "abcdefgz",
        "b\u{e9}",
        "zz",
    ];
    let k = keys(6, 2, |r| {
        let mut s = std::string::String::from(words[(r % 8) as usize]);
        s.push_str(["", "x", "\0"][((r >> 3) % 3) as usize]);
        s
    });
    let strs: Vec<Option<&str>> = k.iter().map(|s| s.as_deref()).collect();
    let cmp = |x: &&str, y: &&str| x.cmp(y);
    check_single(
        &StringArray::from(strs.clone()).into_array_ref(),
        &strs,
        cmp,
    );
    check_single(
        &StringViewArray::from(strs.clone()).into_array_ref(),
        &strs,
        cmp,
    );
    let bytes: Vec<Option<&[u8]>> = strs.iter().map(|s| s.map(str::as_bytes)).collect();
    let cmp = |x: &&[u8], y: &&[u8]| x.cmp(y);
    check_single(
        &BinaryArray::from(bytes.clone()).into_array_ref(),
        &bytes,
        cmp,
    );
}

/// The top-k of `columns` (heap) equals the first rows of the whole sort
/// (row format), for every limit.
fn check_lex(columns: &[SortColumn<'_, 'static, Global>]) {
    let all = lexsort_to_indices_in(columns, None, Global).unwrap();
    for limit in LIMITS {
        let got = lexsort_to_indices_in(columns, limit, Global).unwrap();
        let k = limit.unwrap_or(N);
        assert_eq!(got.values(), &all.values()[..k], "{limit:?}");
    }
}

#[test]
fn lexsort_top_k_equals_the_row_format_sort() {
    let ints = Int64Array::from(keys(7, 2, |r| (r % 6) as i64)).into_array_ref();
    let words = ["pear", "apple", "", "fig", "figs"];
    let strs: Vec<Option<&str>> = keys(8, 1, |r| words[(r % 5) as usize]);
    let utf8 = StringArray::from(strs.clone()).into_array_ref();
    let views = StringViewArray::from(strs).into_array_ref();
    // The row format's float rules: NaNs equal and last, -0 == +0.
    let special = [f64::NAN, -f64::NAN, -0.0, 0.0, 1.0, -1.0];
    let floats = Float64Array::from(keys(9, 1, |r| special[(r % 6) as usize])).into_array_ref();
    let bools = BooleanArray::from(keys(10, 2, |r| r % 2 == 0)).into_array_ref();
    let dict_keys: Vec<Option<i8>> = keys(11, 1, |r| (r % 3) as i8);
    let dict = dictionary(&dict_keys, &[Some("b"), None, Some("a")], Global);
    let sets: [&[&ArrayRef<'static, Global>]; 5] = [
        &[&ints, &utf8],
        &[&floats, &views, &ints],
        &[&bools, &dict, &ints],
        &[&dict, &floats],
        &[&utf8],
    ];
    for set in sets {
        for o1 in OPTIONS {
            for o2 in OPTIONS {
                let columns: Vec<SortColumn<'_, 'static, Global>> = set
                    .iter()
                    .enumerate()
                    .map(|(c, v)| SortColumn {
                        values: v,
                        options: Some(if c % 2 == 0 { o1 } else { o2 }),
                    })
                    .collect();
                check_lex(&columns);
            }
        }
    }
    // Slices: the comparators index the sliced values.
    let (i, u) = (ints.slice(3, N - 5).unwrap(), utf8.slice(2, N - 5).unwrap());
    let columns = [
        SortColumn {
            values: &i,
            options: None,
        },
        SortColumn {
            values: &u,
            options: None,
        },
    ];
    let all = lexsort_to_indices_in(&columns, None, Global).unwrap();
    let got = lexsort_to_indices_in(&columns, Some(50), Global).unwrap();
    assert_eq!(got.values(), &all.values()[..50]);
}

#[test]
fn top_k_allocation_failures_are_errors() {
    check_every_failure(|alloc| {
        let v: Vec<Option<i64>> = (0..40).map(|i| (i % 3 != 0).then_some(i % 7)).collect();
        let a: ArrayRef<'static, _> =
            crate::array::PrimitiveArray::<i64, _>::try_from_options_in(&v, alloc.clone())?
                .into_array_ref();
        sort_to_indices_in(&a, None, Some(3), alloc)
    });
    check_every_failure(|alloc| {
        let v: Vec<Option<&str>> = (0..40).map(|i| (i % 3 != 0).then_some("ab")).collect();
        let s: ArrayRef<'static, _> =
            StringArray::try_from_options_in(&v, alloc.clone())?.into_array_ref();
        let k = [Some(1i8), None, Some(0), Some(1)].repeat(10);
        let k = crate::array::PrimitiveArray::<i8, _>::try_from_options_in(&k, alloc.clone())?;
        let values = StringArray::try_from_options_in(&[Some("x"), Some("y")], alloc.clone())?;
        let d = crate::array::DictionaryArray::try_new_in(
            crate::array::DictionaryKeys::Int8(k),
            values.into_array_ref(),
            false,
            alloc.clone(),
        )?
        .into_array_ref();
        lexsort_to_indices_in(
            &[
                SortColumn {
                    values: &s,
                    options: None,
                },
                SortColumn {
                    values: &d,
                    options: None,
                },
            ],
            Some(3),
            alloc,
        )
    });
}

#[test]
fn long_integer_columns_sort_by_radix_stably() {
    // Past the radix threshold: random 64-bit values (every byte varies),
    // few values (ties), negative and small values (constant high bytes).
    let mut next = rng(12);
    let n = 3 * super::sort::radix::MIN_RADIX_LEN / 2;
    let cases: [Vec<Option<i64>>; 3] = [
        (0..n).map(|_| Some(next() as i64)).collect(),
        (0..n)
            .map(|_| {
                let r = next();
                (r % 9 != 0).then_some((r % 5) as i64 - 2)
            })
            .collect(),
        (0..n)
            .map(|_| {
                let r = next();
                (r % 3 != 0).then_some(-((r % 1000) as i64))
            })
            .collect(),
    ];
    for k in cases {
        let a = Int64Array::from(k.clone()).into_array_ref();
        for o in OPTIONS {
            for limit in [None, Some(n / 2)] {
                let got = sort_to_indices_in(&a, Some(o), limit, Global).unwrap();
                assert_eq!(got.values(), &model(&k, o, limit, i64::cmp)[..], "{o:?}");
            }
        }
    }
    let f: Vec<Option<f32>> = (0..n)
        .map(|_| Some(f32::from_bits(next() as u32)))
        .collect();
    let a = crate::array::PrimitiveArray::<f32, Global>::from(f.clone()).into_array_ref();
    for o in OPTIONS {
        let got = sort_to_indices_in(&a, Some(o), None, Global).unwrap();
        assert_eq!(
            got.values(),
            &model(&f, o, None, f32::total_cmp)[..],
            "{o:?}"
        );
    }
}

#[test]
fn long_byte_columns_sort_by_bucketed_prefixes_stably() {
    // Past the bucketing threshold: random values (prefixes differ), values
    // sharing 8-byte prefixes (whole values decide), short values and ones
    // that differ only past zero padding (`"ab"` < `"ab\0"`), duplicates
    // (index order), all in one bucket (`"zzzz…"`), and nulls.
    let mut next = rng(21);
    let n = 3 * super::sort::radix::MIN_RADIX_LEN / 2;
    let pool: [&[u8]; 6] = [
        b"",
        b"ab",
        b"ab\0",
        b"ab\0\0\0\0\0\0\x01",
        b"zzzzzzzzA",
        b"zzzzzzzz",
    ];
    let keys: Vec<Option<Vec<u8>>> = (0..n)
        .map(|_| {
            let r = next();
            match r % 6 {
                0 => None,
                1 => Some(pool[(r >> 8) as usize % pool.len()].to_vec()),
                2 => {
                    let mut v = b"sharedpf".to_vec();
                    v.extend((0..(r >> 8) % 5).map(|k| (r >> (16 + 8 * k)) as u8));
                    Some(v)
                }
                _ => Some((0..(r >> 8) % 20).map(|k| (r >> (3 * k)) as u8).collect()),
            }
        })
        .collect();
    let a =
        BinaryArray::from(keys.iter().map(|k| k.as_deref()).collect::<Vec<_>>()).into_array_ref();
    for o in OPTIONS {
        let got = sort_to_indices_in(&a, Some(o), None, Global).unwrap();
        let want = model(&keys, o, None, |x: &Vec<u8>, y: &Vec<u8>| x.cmp(y));
        assert_eq!(got.values(), &want[..], "{o:?}");
    }
    // Strings, more rows than buckets of 16 keys make (the bucket bits
    // grow with the rows).
    let n = 1 << 15;
    let words: Vec<Option<std::string::String>> = (0..n)
        .map(|_| {
            let r = next();
            (r % 10 != 0).then(|| std::format!("{:x}", r % 50_000))
        })
        .collect();
    let a =
        StringArray::from(words.iter().map(|w| w.as_deref()).collect::<Vec<_>>()).into_array_ref();
    for o in OPTIONS {
        let got = sort_to_indices_in(&a, Some(o), None, Global).unwrap();
        let want = model(&words, o, None, |x: &std::string::String, y| x.cmp(y));
        assert_eq!(got.values(), &want[..], "{o:?}");
    }
}
