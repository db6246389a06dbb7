//! Row format benchmark: alkaid's `RowConverter` against arrow-row 60 on the
//! cases of arrow-rs's own `row_format` benchmark (primitives, booleans,
//! strings, string views, dictionaries, run-end encoded, lists and large
//! lists, the mixed and the 53-column cases) and on 1,048,576 rows of
//! (Int64, Float64, Utf8), in one run (no assertions).
//!
//! `cargo bench -p alkaid-tests-arrow-rs --bench row`
//!
//! For every case: encode with a new converter (arrow-rs's
//! "convert_columns"), encode with a converter that already encoded the
//! columns once ("convert_columns_prepared"; ours holds no state, so this
//! only leaves out making the converter), and decode
//! ("convert_rows"; ours: `convert_all_rows` of the `Rows`). Cases with
//! dictionary columns also measure the seed's interner
//! (`RowEncoding::Seed`, `*_with_interner`) in the same comparison: a new
//! converter and a new `RowInterner` per call, then both reused, then
//! decode. Data comes from a seeded PRNG; both libraries get the same values.

mod util;

use std::collections::HashMap;
use std::hint::black_box;
use std::sync::Arc;

use alkaid::array::{
    Array, ArrayRef, BooleanBuilder, DictionaryArray, DictionaryKeys, LargeListArray, ListArray,
    PrimitiveArray, PrimitiveType, RunArray, RunEnds, StringArray, StringViewArray,
};
use alkaid::buffer::{OffsetBuffer, ScalarBuffer, SharedBox};
use alkaid::datatypes::{DataType, Field};
use alkaid::row::{RowConverter, RowEncoding, SortField};
use alkaid::Global as G;
use arrow_array as aa;
use util::{compare, speedup, verdict, vs, Budget, Rng, Table};

type Ours = ArrayRef<'static, G>;
type Theirs = aa::ArrayRef;

/// One column for both libraries.
struct Col {
    ours: Ours,
    theirs: Theirs,
}

fn u64s(rng: &mut Rng, n: usize, nulls: f64) -> Col {
    let v: Vec<Option<u64>> = (0..n)
        .map(|_| (!rng.chance(nulls)).then(|| rng.next_u64()))
        .collect();
    Col {
        ours: PrimitiveArray::<u64, G>::try_from_options_in(&v, G)
            .unwrap()
            .into_array_ref(),
        theirs: Arc::new(aa::UInt64Array::from(v)),
    }
}

fn i64s(rng: &mut Rng, n: usize, nulls: f64) -> Col {
    let v: Vec<Option<i64>> = (0..n)
        .map(|_| (!rng.chance(nulls)).then(|| rng.next_u64() as i64))
        .collect();
    Col {
        ours: PrimitiveArray::<i64, G>::try_from_options_in(&v, G)
            .unwrap()
            .into_array_ref(),
        theirs: Arc::new(aa::Int64Array::from(v)),
    }
}

fn f64s(rng: &mut Rng, n: usize, nulls: f64) -> Col {
    let v: Vec<Option<f64>> = (0..n)
        .map(|_| (!rng.chance(nulls)).then(|| rng.unit() * 2e6 - 1e6))
        .collect();
    Col {
        ours: PrimitiveArray::<f64, G>::try_from_options_in(&v, G)
            .unwrap()
            .into_array_ref(),
        theirs: Arc::new(aa::Float64Array::from(v)),
    }
}

fn bools(rng: &mut Rng, n: usize, nulls: f64, trues: f64) -> Col {
    let v: Vec<Option<bool>> = (0..n)
        .map(|_| (!rng.chance(nulls)).then(|| rng.chance(trues)))
        .collect();
    let mut b = BooleanBuilder::new_in(G);
    for x in &v {
        b.try_append_option(*x).unwrap();
    }
    Col {
        ours: b.finish().into_array_ref(),
        theirs: Arc::new(aa::BooleanArray::from(v)),
    }
}

/// Primitive values of random bits (`f` makes a value of them), for both
/// libraries (`theirs` builds arrow-rs's array).
fn prims<T: PrimitiveType>(
    rng: &mut Rng,
    n: usize,
    nulls: f64,
    f: impl Fn(u64) -> T,
    theirs: impl Fn(Vec<Option<T>>) -> Theirs,
) -> Col {
    let v: Vec<Option<T>> = (0..n)
        .map(|_| (!rng.chance(nulls)).then(|| f(rng.next_u64())))
        .collect();
    Col {
        ours: PrimitiveArray::<T, G>::try_from_options_in(&v, G)
            .unwrap()
            .into_array_ref(),
        theirs: theirs(v),
    }
}

/// Strings of `len` random alphanumerics (`len` = `None`: 0–23 bytes).
fn string_values(rng: &mut Rng, n: usize, nulls: f64, len: Option<usize>) -> Vec<Option<String>> {
    match len {
        Some(l) => string_values_in(rng, n, nulls, l..l + 1),
        None => string_values_in(rng, n, nulls, 0..24),
    }
}

/// Strings of random alphanumerics, their lengths uniform in `lens`.
fn string_values_in(
    rng: &mut Rng,
    n: usize,
    nulls: f64,
    lens: std::ops::Range<usize>,
) -> Vec<Option<String>> {
    (0..n)
        .map(|_| {
            (!rng.chance(nulls)).then(|| {
                let l = lens.start + rng.below((lens.end - lens.start) as u64) as usize;
                rng.alnum(l)
            })
        })
        .collect()
}

fn strings_in(rng: &mut Rng, n: usize, nulls: f64, lens: std::ops::Range<usize>) -> Col {
    let v = string_values_in(rng, n, nulls, lens);
    let opts: Vec<Option<&str>> = v.iter().map(|s| s.as_deref()).collect();
    Col {
        ours: StringArray::<G>::try_from_options_in(&opts, G)
            .unwrap()
            .into_array_ref(),
        theirs: Arc::new(aa::StringArray::from(opts)),
    }
}

/// Utf8View of random alphanumerics, lengths uniform in `lens`.
fn string_views(rng: &mut Rng, n: usize, nulls: f64, lens: std::ops::Range<usize>) -> Col {
    let v = string_values_in(rng, n, nulls, lens);
    let opts: Vec<Option<&str>> = v.iter().map(|s| s.as_deref()).collect();
    Col {
        ours: StringViewArray::<G>::try_from_options_in(&opts, G)
            .unwrap()
            .into_array_ref(),
        theirs: Arc::new(aa::StringViewArray::from(opts)),
    }
}

/// List<UInt64> (`large`: LargeList) of 0–4 random non-null values per
/// list, no null lists, the item field non-nullable (arrow-rs's
/// `create_random_array` of a non-nullable list field).
fn u64_lists(rng: &mut Rng, n: usize, large: bool) -> Col {
    let mut offsets = vec![0usize];
    let mut values = Vec::new();
    for _ in 0..n {
        for _ in 0..rng.below(5) {
            values.push(rng.next_u64());
        }
        offsets.push(values.len());
    }
    let item = SharedBox::try_new_in(Field::new("item", DataType::UInt64, false), G).unwrap();
    let ours_values = PrimitiveArray::<u64, G>::from(values.clone()).into_array_ref();
    let theirs_item = Arc::new(arrow_schema::Field::new_list_field(
        arrow_schema::DataType::UInt64,
        false,
    ));
    let theirs_values: Theirs = Arc::new(aa::UInt64Array::from(values));
    if large {
        let o: Vec<i64> = offsets.iter().map(|&o| o as i64).collect();
        Col {
            ours: LargeListArray::try_new_in(
                item,
                OffsetBuffer::try_new(ScalarBuffer::try_copy_in(&o, G).unwrap()).unwrap(),
                ours_values,
                None,
                G,
            )
            .unwrap()
            .into_array_ref(),
            theirs: Arc::new(aa::LargeListArray::new(
                theirs_item,
                arrow_buffer::OffsetBuffer::new(o.into()),
                theirs_values,
                None,
            )),
        }
    } else {
        let o: Vec<i32> = offsets.iter().map(|&o| o as i32).collect();
        Col {
            ours: ListArray::try_new_in(
                item,
                OffsetBuffer::try_new(ScalarBuffer::try_copy_in(&o, G).unwrap()).unwrap(),
                ours_values,
                None,
                G,
            )
            .unwrap()
            .into_array_ref(),
            theirs: Arc::new(aa::ListArray::new(
                theirs_item,
                arrow_buffer::OffsetBuffer::new(o.into()),
                theirs_values,
                None,
            )),
        }
    }
}

/// `col` sliced to `len` rows from `start`, both sides.
fn sliced(col: Col, start: usize, len: usize) -> Col {
    Col {
        ours: col.ours.slice(start, len).unwrap(),
        theirs: col.theirs.slice(start, len),
    }
}

/// RunEndEncoded<Int32, Int64> of `n` rows in `runs` runs of equal length
/// (the first `n % runs` one longer), run `s` holding `s` (arrow-rs's
/// `create_primitive_run_array`).
fn run_primitive(n: usize, runs: usize) -> Col {
    let (len, extra) = (n / runs, n % runs);
    let mut ends = Vec::with_capacity(runs);
    let mut end = 0i32;
    for s in 0..runs {
        end += (len + usize::from(s < extra)) as i32;
        ends.push(end);
    }
    let values: Vec<i64> = (0..runs as i64).collect();
    Col {
        ours: RunArray::try_new_in(
            RunEnds::Int32(PrimitiveArray::<i32, G>::from(ends.clone())),
            PrimitiveArray::<i64, G>::from(values.clone()).into_array_ref(),
            G,
        )
        .unwrap()
        .into_array_ref(),
        theirs: Arc::new(
            aa::RunArray::<arrow_array::types::Int32Type>::try_new(
                &aa::Int32Array::from(ends),
                &aa::Int64Array::from(values),
            )
            .unwrap(),
        ),
    }
}

/// arrow-rs's "53 columns" case: Int8, Int32, Int64 with 0/10/20/50%
/// nulls, 10 Int64, Utf8 of 0–50 bytes with 0/10/20/50% nulls, 3 each of
/// 0–10, 10–20 and 20–30 bytes, booleans with 0/10/20/50% nulls, 10 more
/// Int64, Float64 with 0/10/20/50% nulls.
fn columns_53(rng: &mut Rng, n: usize) -> Vec<Col> {
    const NULLS: [f64; 4] = [0.0, 0.1, 0.2, 0.5];
    let mut cols = Vec::new();
    for p in NULLS {
        cols.push(prims(
            rng,
            n,
            p,
            |x| x as i8,
            |v| Arc::new(aa::Int8Array::from(v)),
        ));
    }
    for p in NULLS {
        cols.push(prims(
            rng,
            n,
            p,
            |x| x as i32,
            |v| Arc::new(aa::Int32Array::from(v)),
        ));
    }
    for p in NULLS {
        cols.push(i64s(rng, n, p));
    }
    for _ in 0..10 {
        cols.push(i64s(rng, n, 0.0));
    }
    for p in NULLS {
        cols.push(strings_in(rng, n, p, 0..51));
    }
    for lens in [0..11, 10..21, 20..31] {
        for _ in 0..3 {
            cols.push(strings_in(rng, n, 0.0, lens.clone()));
        }
    }
    for p in NULLS {
        cols.push(bools(rng, n, p, 0.5));
    }
    for _ in 0..10 {
        cols.push(i64s(rng, n, 0.0));
    }
    for p in NULLS {
        cols.push(f64s(rng, n, p));
    }
    assert_eq!(cols.len(), 53);
    cols
}

fn strings(rng: &mut Rng, n: usize, nulls: f64, len: Option<usize>) -> Col {
    let v = string_values(rng, n, nulls, len);
    let opts: Vec<Option<&str>> = v.iter().map(|s| s.as_deref()).collect();
    Col {
        ours: StringArray::<G>::try_from_options_in(&opts, G)
            .unwrap()
            .into_array_ref(),
        theirs: Arc::new(aa::StringArray::from(opts)),
    }
}

/// Dictionary<Int32, Utf8> of the distinct values in order of appearance
/// (as arrow-rs's `create_string_dict_array` collects them).
fn string_dict(rng: &mut Rng, n: usize, nulls: f64, len: usize) -> Col {
    let v = string_values(rng, n, nulls, Some(len));
    let mut index: HashMap<&str, i32> = HashMap::new();
    let mut dict: Vec<Option<&str>> = Vec::new();
    let keys: Vec<Option<i32>> = v
        .iter()
        .map(|s| {
            s.as_deref().map(|s| {
                *index.entry(s).or_insert_with(|| {
                    dict.push(Some(s));
                    dict.len() as i32 - 1
                })
            })
        })
        .collect();
    let ours = DictionaryArray::try_new_in(
        DictionaryKeys::Int32(PrimitiveArray::try_from_options_in(&keys, G).unwrap()),
        StringArray::<G>::try_from_options_in(&dict, G)
            .unwrap()
            .into_array_ref(),
        false,
        G,
    )
    .unwrap();
    let theirs = aa::DictionaryArray::<arrow_array::types::Int32Type>::try_new(
        aa::Int32Array::from(keys),
        Arc::new(aa::StringArray::from(dict)),
    )
    .unwrap();
    Col {
        ours: ours.into_array_ref(),
        theirs: Arc::new(theirs),
    }
}

/// Dictionary<Int32, Utf8> of 10 values of `len` bytes, keys uniform
/// (arrow-rs's `string_dictionary_low_cardinality` cases).
fn string_dict_low(rng: &mut Rng, n: usize, len: usize) -> Col {
    let values = string_values(rng, 10, 0.0, Some(len));
    let dict: Vec<Option<&str>> = values.iter().map(|s| s.as_deref()).collect();
    let keys: Vec<Option<i32>> = (0..n).map(|_| Some(rng.below(10) as i32)).collect();
    let ours = DictionaryArray::try_new_in(
        DictionaryKeys::Int32(PrimitiveArray::try_from_options_in(&keys, G).unwrap()),
        StringArray::<G>::try_from_options_in(&dict, G)
            .unwrap()
            .into_array_ref(),
        false,
        G,
    )
    .unwrap();
    let theirs = aa::DictionaryArray::<arrow_array::types::Int32Type>::try_new(
        aa::Int32Array::from(keys),
        Arc::new(aa::StringArray::from(dict)),
    )
    .unwrap();
    Col {
        ours: ours.into_array_ref(),
        theirs: Arc::new(theirs),
    }
}

/// A case: name and columns.
struct Case {
    name: &'static str,
    cols: Vec<Col>,
    budget: Budget,
}

fn cases() -> Vec<Case> {
    let n = 4096;
    let small = Budget {
        samples: 15,
        sample_time: std::time::Duration::from_millis(8),
    };
    let mut rng = Rng::new(7);
    let c = |name, cols: Vec<Col>| Case {
        name,
        cols,
        budget: small,
    };
    let mut v = vec![
        c("4096 u64(0)", vec![u64s(&mut rng, n, 0.0)]),
        c("4096 u64(0.3)", vec![u64s(&mut rng, n, 0.3)]),
        c("4096 i64(0)", vec![i64s(&mut rng, n, 0.0)]),
        c("4096 i64(0.3)", vec![i64s(&mut rng, n, 0.3)]),
        c("4096 bool(0, 0.5)", vec![bools(&mut rng, n, 0.0, 0.5)]),
        c("4096 bool(0.3, 0.5)", vec![bools(&mut rng, n, 0.3, 0.5)]),
        c(
            "4096 string(10, 0)",
            vec![strings(&mut rng, n, 0.0, Some(10))],
        ),
        c(
            "4096 string(30, 0)",
            vec![strings(&mut rng, n, 0.0, Some(30))],
        ),
        c(
            "4096 string(100, 0)",
            vec![strings(&mut rng, n, 0.0, Some(100))],
        ),
        c(
            "4096 string(100, 0.5)",
            vec![strings(&mut rng, n, 0.5, Some(100))],
        ),
        c(
            "4096 string view(10, 0)",
            vec![string_views(&mut rng, n, 0.0, 10..11)],
        ),
        c(
            "4096 string view(30, 0)",
            vec![string_views(&mut rng, n, 0.0, 30..31)],
        ),
        c(
            "4096 string view(100, 0)",
            vec![string_views(&mut rng, n, 0.0, 100..101)],
        ),
        c(
            "4096 string view(100, 0.5)",
            vec![string_views(&mut rng, n, 0.5, 100..101)],
        ),
        c(
            "4096 string view(1..100, 0)",
            vec![string_views(&mut rng, n, 0.0, 0..100)],
        ),
        c(
            "4096 string view(1..100, 0.5)",
            vec![string_views(&mut rng, n, 0.5, 0..100)],
        ),
        c(
            "4096 string_dictionary(10, 0)",
            vec![string_dict(&mut rng, n, 0.0, 10)],
        ),
        c(
            "4096 string_dictionary(30, 0)",
            vec![string_dict(&mut rng, n, 0.0, 30)],
        ),
        c(
            "4096 string_dictionary(100, 0)",
            vec![string_dict(&mut rng, n, 0.0, 100)],
        ),
        c(
            "4096 string_dictionary(100, 0.5)",
            vec![string_dict(&mut rng, n, 0.5, 100)],
        ),
        c(
            "4096 string_dictionary_low_cardinality(10, 0)",
            vec![string_dict_low(&mut rng, n, 10)],
        ),
        c(
            "4096 string_dictionary_low_cardinality(30, 0)",
            vec![string_dict_low(&mut rng, n, 30)],
        ),
        c(
            "4096 string_dictionary_low_cardinality(100, 0)",
            vec![string_dict_low(&mut rng, n, 100)],
        ),
        c(
            "4096 string(20, 0.5), string(30, 0), string(100, 0), i64(0)",
            vec![
                strings(&mut rng, n, 0.5, Some(20)),
                strings(&mut rng, n, 0.0, Some(30)),
                strings(&mut rng, n, 0.0, Some(100)),
                i64s(&mut rng, n, 0.0),
            ],
        ),
        c(
            "4096 string_dictionary(20, 0.5), (30, 0), (100, 0), i64(0)",
            vec![
                string_dict(&mut rng, n, 0.5, 20),
                string_dict(&mut rng, n, 0.0, 30),
                string_dict(&mut rng, n, 0.0, 100),
                i64s(&mut rng, n, 0.0),
            ],
        ),
        c(
            "4096 run_primitive(1024 physical)",
            vec![run_primitive(n, 1024)],
        ),
        c(
            "4096 run_primitive(512 physical)",
            vec![run_primitive(n, 512)],
        ),
        c(
            "4096 run_primitive(256 physical)",
            vec![run_primitive(n, 256)],
        ),
        c(
            "4096 list(0) of u64(0)",
            vec![u64_lists(&mut rng, n, false)],
        ),
        c(
            "4096 large_list(0) of u64(0)",
            vec![u64_lists(&mut rng, n, true)],
        ),
        c("10 list(0) of u64(0)", vec![u64_lists(&mut rng, 10, false)]),
        c(
            "10 large_list(0) of u64(0)",
            vec![u64_lists(&mut rng, 10, true)],
        ),
        c(
            "4096 list(0) sliced to 10 of u64(0)",
            vec![sliced(u64_lists(&mut rng, n, false), 10, 20)],
        ),
        c(
            "4096 large_list(0) sliced to 10 of u64(0)",
            vec![sliced(u64_lists(&mut rng, n, true), 10, 20)],
        ),
        c("4096 53 columns", columns_53(&mut rng, n)),
        c("8192 53 columns", columns_53(&mut rng, 2 * n)),
    ];
    let big = 1 << 20;
    v.push(Case {
        name: "1048576 i64(0), f64(0), string(0–23, 0)",
        cols: vec![
            i64s(&mut rng, big, 0.0),
            f64s(&mut rng, big, 0.0),
            strings(&mut rng, big, 0.0, None),
        ],
        budget: Budget {
            samples: 7,
            sample_time: std::time::Duration::from_millis(1),
        },
    });
    v
}

fn ours_fields(cols: &[Ours]) -> Vec<SortField<'static, G>> {
    cols.iter()
        .map(|c| SortField::new(c.data_type().clone()))
        .collect()
}

fn theirs_fields(cols: &[Theirs]) -> Vec<arrow_row::SortField> {
    cols.iter()
        .map(|c| arrow_row::SortField::new(c.data_type().clone()))
        .collect()
}

/// Our decoded columns equal the input (dictionaries decode to their values).
fn sanity_check(case: &Case) {
    let cols: Vec<Ours> = case.cols.iter().map(|c| c.ours.clone()).collect();
    let conv = RowConverter::try_new(&ours_fields(&cols)).unwrap();
    let rows = conv.convert_columns(&cols).unwrap();
    let back = conv.convert_rows(rows.iter()).unwrap();
    // The measured decoder (straight from the `Rows`) gives the same columns.
    let all = conv.convert_all_rows(&rows).unwrap();
    assert_eq!(all.len(), back.len());
    for (a, b) in all.iter().zip(back.iter()) {
        assert!(a == b, "{}: convert_all_rows differs", case.name);
    }
    for (b, c) in back.iter().zip(&cols) {
        match c {
            ArrayRef::Dictionary(d) => {
                assert_eq!(b.len(), d.len());
                assert_eq!(b.null_count(), d.keys().null_count());
            }
            c => assert!(b == c, "{}: decoded column differs", case.name),
        }
    }
    let theirs: Vec<Theirs> = case.cols.iter().map(|c| c.theirs.clone()).collect();
    let tc = arrow_row::RowConverter::new(theirs_fields(&theirs)).unwrap();
    let trows = tc.convert_columns(&theirs).unwrap();
    assert_eq!(trows.num_rows(), rows.len());
}

fn main() {
    let started = std::time::Instant::now();
    println!(
        "alkaid vs arrow-row 60, row format: median thread CPU time of interleaved \
         samples; speed-up = arrow-rs time / alkaid time (wall-clock speed-up in \
         parentheses); targets: encode ≥ 1.5×, decode ≥ 1.5×; bytes/row: \
         encoded row size, alkaid / arrow-rs\n"
    );
    let table = Table::new(
        &[
            "case",
            "op",
            "alkaid",
            "arrow-rs",
            "speed-up (wall)",
            "target",
            "bytes/row",
        ],
        &[60, 24, 9, 9, 15, 18, 13],
    );
    // `ROW_BENCH_FILTER=string` runs only the cases whose name contains it.
    let filter = std::env::var("ROW_BENCH_FILTER").unwrap_or_default();
    let cases: Vec<Case> = cases()
        .into_iter()
        .filter(|c| c.name.contains(&filter))
        .collect();
    for case in &cases {
        run_case(&table, case, "");
    }
    // The large case again with memory reused across calls: with glibc's
    // defaults every call's rows (53 MB ours, 38 MB arrow-rs's) are freshly
    // mmapped, so both sides pay a page fault per 4 KiB written and the
    // figure above measures the kernel as much as the code. Raising the
    // mmap threshold and never trimming keeps freed rows in the heap (what a
    // long-running process with a caching allocator sees). Last, because it
    // is process-wide.
    if let Some(large) = cases.iter().find(|c| c.name.starts_with("1048576")) {
        pin_malloc();
        run_case(&table, large, " [memory reused]");
    }
    println!(
        "\ntotal bench time {:.1} s",
        started.elapsed().as_secs_f64()
    );
}

/// Measures encode (new converter, prepared) and decode of one case and
/// prints its three table rows; `suffix` is appended to the case name.
fn run_case(table: &Table, case: &Case, suffix: &str) {
    let name = format!("{}{suffix}", case.name);
    sanity_check(case);
    let ours: Vec<Ours> = case.cols.iter().map(|c| c.ours.clone()).collect();
    let theirs: Vec<Theirs> = case.cols.iter().map(|c| c.theirs.clone()).collect();
    let (of, tf) = (ours_fields(&ours), theirs_fields(&theirs));

    let oc = RowConverter::try_new(&of).unwrap();
    let orows = oc.convert_columns(&ours).unwrap();
    let tc = arrow_row::RowConverter::new(tf.clone()).unwrap();
    let trows = tc.convert_columns(&theirs).unwrap();
    let per_row = |total: usize| total as f64 / orows.len().max(1) as f64;
    let sizes = format!(
        "{:.1} / {:.1}",
        per_row(orows.data().len()),
        per_row(trows.iter().map(|r| r.as_ref().len()).sum())
    );

    // The seed's interner, for cases with dictionary columns: a converter,
    // its interner (filled by one encode) and its rows.
    let has_dict = ours.iter().any(|c| matches!(c, ArrayRef::Dictionary(_)));
    let mut seed = has_dict.then(|| {
        let sc = RowConverter::try_new_with_encoding(&of, RowEncoding::Seed).unwrap();
        let mut si = sc.try_new_interner().unwrap();
        let srows = sc.convert_columns_with_interner(&mut si, &ours).unwrap();
        let back = sc.convert_all_rows_with_interner(&si, &srows).unwrap();
        let default = oc.convert_all_rows(&orows).unwrap();
        assert!(
            back.iter().zip(default.iter()).all(|(a, b)| a == b),
            "{}: the seed rows decode to other columns",
            case.name
        );
        (sc, si, srows)
    });

    let mut encode: Vec<Box<dyn FnMut() + '_>> = vec![
        Box::new(|| {
            let c = RowConverter::try_new(&of).unwrap();
            black_box(c.convert_columns(&ours).unwrap());
        }),
        Box::new(|| {
            let c = arrow_row::RowConverter::new(tf.clone()).unwrap();
            black_box(c.convert_columns(&theirs).unwrap());
        }),
        Box::new(|| {
            black_box(oc.convert_columns(&ours).unwrap());
        }),
        Box::new(|| {
            black_box(tc.convert_columns(&theirs).unwrap());
        }),
    ];
    if let Some((sc, si, _)) = seed.as_mut() {
        let sc = &*sc;
        encode.push(Box::new(|| {
            let c = RowConverter::try_new_with_encoding(&of, RowEncoding::Seed).unwrap();
            let mut i = c.try_new_interner().unwrap();
            black_box(c.convert_columns_with_interner(&mut i, &ours).unwrap());
        }));
        let ours = &ours;
        encode.push(Box::new(move || {
            black_box(sc.convert_columns_with_interner(si, ours).unwrap());
        }));
    }
    let t = compare(
        &mut encode
            .iter_mut()
            .map(|f| &mut **f as &mut dyn FnMut())
            .collect::<Vec<_>>(),
        case.budget,
    );
    drop(encode);
    let mut decode: Vec<Box<dyn FnMut() + '_>> = vec![
        Box::new(|| {
            black_box(oc.convert_all_rows(&orows).unwrap());
        }),
        Box::new(|| {
            black_box(tc.convert_rows(&trows).unwrap());
        }),
    ];
    if let Some((sc, si, srows)) = seed.as_ref() {
        decode.push(Box::new(move || {
            black_box(sc.convert_all_rows_with_interner(si, srows).unwrap());
        }));
    }
    let d = compare(
        &mut decode
            .iter_mut()
            .map(|f| &mut **f as &mut dyn FnMut())
            .collect::<Vec<_>>(),
        case.budget,
    );
    drop(decode);
    let mut lines = vec![
        ("encode (new conv.)", t[0], t[1], sizes),
        ("encode (prepared)", t[2], t[3], String::new()),
        ("decode", d[0], d[1], String::new()),
    ];
    if let Some((_, _, srows)) = &seed {
        let seed_sizes = format!(
            "{:.1} / {:.1}",
            per_row(srows.data().len()),
            per_row(trows.iter().map(|r| r.as_ref().len()).sum())
        );
        lines.push(("seed: encode (new conv.)", t[4], t[1], seed_sizes));
        lines.push(("seed: encode (prepared)", t[5], t[3], String::new()));
        lines.push(("seed: decode", d[2], d[1], String::new()));
    }
    for (i, (op, o, th, size)) in lines.into_iter().enumerate() {
        let [a, b, r] = vs(o, th);
        table.row(&[
            if i == 0 { name.clone() } else { "".into() },
            op.into(),
            a,
            b,
            r,
            verdict(speedup(o.cpu, th.cpu), 1.5),
            size,
        ]);
    }
}

/// glibc: no allocation below 256 MiB is mmapped and the heap is never
/// trimmed, so memory freed by one call is reused by the next.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn pin_malloc() {
    // SAFETY: `mallopt` only sets glibc allocator parameters; the benchmark
    // is single-threaded.
    unsafe {
        assert_eq!(libc::mallopt(libc::M_MMAP_THRESHOLD, 256 << 20), 1);
        assert_eq!(libc::mallopt(libc::M_TRIM_THRESHOLD, libc::c_int::MAX), 1);
    }
}

/// Other allocators: nothing to pin.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn pin_malloc() {}
