//! Selection kernels benchmark: alkaid's `take_in` and `filter_in` against
//! arrow-select 60's `take` and `filter`, in one run (no assertions).
//!
//! `cargo bench -p alkaid-tests-arrow-rs --bench select`
//!
//! 262,144 rows of each column type (Int64 with 10 % nulls; Utf8 of 4 to 40
//! bytes with 10 % nulls; Utf8View of the same strings; Dictionary(Int32,
//! Utf8) of 100 values; Struct(Int32, Utf8)), at 1 %, 50 % and 99 %
//! selectivity: `filter` by a random predicate keeping that share of the
//! rows, `take` by that many random `u32` indices. arrow-rs gets the very
//! same arrays (our arrays exported through the C Data Interface). Data
//! comes from a seeded PRNG.
//!
//! `SELECT_BENCH_FILTER=<substring>` runs only the columns whose name holds
//! it; `SELECT_BENCH_FILTER==<name>` only the column of that exact name;
//! `SELECT_BENCH_KEPT=<1|50|99>` only that selectivity;
//! `SELECT_BENCH_KERNEL=<take|filter>` only that kernel (for profiling).

mod util;

use std::hint::black_box;

use alkaid::array::{Array, ArrayRef, BooleanArray, PrimitiveArray, StringArray, StringViewArray};
use alkaid::compute::{filter_in, take_in};
use alkaid::ffi::FFI_ArrowArray;
use alkaid::Global as G;
use arrow_array as aa;
use arrow_array::ffi::FFI_ArrowArray as RsFfiArray;
use util::{compare, verdict, vs, Budget, Rng, Table};

type Ours = ArrayRef<'static, G>;

const ROWS: usize = 1 << 18;

fn to_rs(a: &Ours, dt: &arrow_schema::DataType) -> aa::ArrayRef {
    util::to_rs(a, dt, G)
}

fn strings(rng: &mut Rng) -> Vec<Option<String>> {
    (0..ROWS)
        .map(|_| {
            let len = 4 + rng.below(37) as usize;
            (!rng.chance(0.1)).then(|| rng.alnum(len))
        })
        .collect()
}

/// (name, ours, theirs) for every column type.
fn columns() -> Vec<(&'static str, Ours, aa::ArrayRef)> {
    use arrow_schema::{DataType as Dt, Field, Fields};
    use std::sync::Arc;
    let mut rng = Rng::new(42);
    let ints: Vec<Option<i64>> = (0..ROWS)
        .map(|_| (!rng.chance(0.1)).then(|| rng.next_u64() as i64))
        .collect();
    let ints = PrimitiveArray::<i64, G>::try_from_options_in(&ints, G)
        .unwrap()
        .into_array_ref();
    let s = strings(&mut rng);
    let s: Vec<Option<&str>> = s.iter().map(|s| s.as_deref()).collect();
    let utf8 = StringArray::<G>::try_from_options_in(&s, G)
        .unwrap()
        .into_array_ref();
    let views = StringViewArray::<G>::try_from_options_in(&s, G)
        .unwrap()
        .into_array_ref();
    // A dictionary of 100 values, keys through the arrow-rs builder then
    // imported (the same memory on both sides).
    let values: Vec<String> = (0..100).map(|_| rng.alnum(12)).collect();
    let keys: Vec<Option<i32>> = (0..ROWS)
        .map(|_| (!rng.chance(0.1)).then(|| rng.below(100) as i32))
        .collect();
    let dict_rs: aa::ArrayRef = Arc::new(
        aa::DictionaryArray::<aa::types::Int32Type>::try_new(
            aa::Int32Array::from(keys),
            Arc::new(aa::StringArray::from(values)),
        )
        .unwrap(),
    );
    let dict = {
        let (array, schema) = arrow_array::ffi::to_ffi(&dict_rs.to_data()).unwrap();
        // SAFETY: both are the C Data Interface's structs.
        let (array, schema) = unsafe {
            (
                std::mem::transmute::<RsFfiArray, FFI_ArrowArray>(array),
                std::mem::transmute::<
                    arrow_schema::ffi::FFI_ArrowSchema,
                    alkaid::ffi::FFI_ArrowSchema,
                >(schema),
            )
        };
        // SAFETY: arrow-rs made both structs from one live array.
        unsafe { alkaid::ffi::import_array_in(array, &schema, G) }
            .unwrap()
            .1
    };
    let small: Vec<Option<i32>> = (0..ROWS)
        .map(|_| (!rng.chance(0.1)).then(|| rng.next_u64() as i32))
        .collect();
    let small = PrimitiveArray::<i32, G>::try_from_options_in(&small, G)
        .unwrap()
        .into_array_ref();
    let fields = alkaid::buffer::SharedSlice::try_from_iter_in(
        [
            alkaid::datatypes::Field::new("i", alkaid::datatypes::DataType::Int32, true),
            alkaid::datatypes::Field::new("s", alkaid::datatypes::DataType::Utf8, true),
        ],
        G,
    )
    .unwrap();
    let children = alkaid::buffer::SharedSlice::try_from_iter_in([small, utf8.clone()], G).unwrap();
    let st = alkaid::array::StructArray::try_new(fields, children, None)
        .unwrap()
        .into_array_ref();
    let st_dt = Dt::Struct(Fields::from(vec![
        Field::new("i", Dt::Int32, true),
        Field::new("s", Dt::Utf8, true),
    ]));
    vec![
        ("Int64", ints.clone(), to_rs(&ints, &Dt::Int64)),
        ("Utf8", utf8.clone(), to_rs(&utf8, &Dt::Utf8)),
        ("Utf8View", views.clone(), to_rs(&views, &Dt::Utf8View)),
        ("Dictionary(Int32, Utf8)", dict, dict_rs),
        ("Struct(Int32, Utf8)", st.clone(), to_rs(&st, &st_dt)),
    ]
}

fn main() {
    let started = std::time::Instant::now();
    println!(
        "alkaid vs arrow-select 60, take and filter of {ROWS} rows: median thread CPU time \
         of interleaved samples; speed-up = arrow-rs time / alkaid time (wall-clock \
         speed-up in parentheses); target ≥ 1.0×\n"
    );
    let table = Table::new(
        &[
            "column",
            "kernel",
            "kept",
            "alkaid",
            "arrow-rs",
            "speed-up (wall)",
            "target",
        ],
        &[23, 6, 4, 9, 9, 15, 13],
    );
    let budget = Budget {
        samples: 11,
        sample_time: std::time::Duration::from_millis(20),
    };
    let filter_env = std::env::var("SELECT_BENCH_FILTER").unwrap_or_default();
    for (name, ours, theirs) in columns() {
        let wanted = match filter_env.strip_prefix('=') {
            Some(exact) => name == exact,
            None => name.contains(&filter_env),
        };
        if !wanted {
            continue;
        }
        let kept_env = std::env::var("SELECT_BENCH_KEPT").unwrap_or_default();
        for sel in [0.01, 0.5, 0.99] {
            if !kept_env.is_empty() && kept_env != format!("{:.0}", sel * 100.0) {
                continue;
            }
            let mut rng = Rng::new(7);
            let keep: Vec<bool> = (0..ROWS).map(|_| rng.chance(sel)).collect();
            let (op, tp) = (
                BooleanArray::from(keep.clone()),
                aa::BooleanArray::from(keep),
            );
            let m = (ROWS as f64 * sel) as usize;
            let idx: Vec<u32> = (0..m).map(|_| rng.below(ROWS as u64) as u32).collect();
            let oi = PrimitiveArray::<u32, G>::from_slice(&idx);
            let ti = aa::UInt32Array::from(idx.clone());
            // Same results on both sides before timing.
            let of = filter_in(&ours, &op, G).unwrap();
            let tf = arrow_select::filter::filter(&theirs, &tp).unwrap();
            assert_eq!(
                to_rs(&of, theirs.data_type()).to_data(),
                tf.to_data(),
                "{name} filter"
            );
            let ot = take_in(&ours, &oi, G).unwrap();
            let tt = arrow_select::take::take(&theirs, &ti, None).unwrap();
            assert_eq!(
                to_rs(&ot, theirs.data_type()).to_data(),
                tt.to_data(),
                "{name} take"
            );
            let kernel_env = std::env::var("SELECT_BENCH_KERNEL").unwrap_or_default();
            let (skip_filter, skip_take) = (kernel_env == "take", kernel_env == "filter");
            let r = compare(
                &mut [
                    &mut || {
                        if !skip_filter {
                            black_box(filter_in(&ours, &op, G).unwrap());
                        }
                    },
                    &mut || {
                        if !skip_filter {
                            black_box(arrow_select::filter::filter(&theirs, &tp).unwrap());
                        }
                    },
                    &mut || {
                        if !skip_take {
                            black_box(take_in(&ours, &oi, G).unwrap());
                        }
                    },
                    &mut || {
                        if !skip_take {
                            black_box(arrow_select::take::take(&theirs, &ti, None).unwrap());
                        }
                    },
                ],
                budget,
            );
            for (kernel, o, t) in [("filter", r[0], r[1]), ("take", r[2], r[3])] {
                if (kernel == "filter" && skip_filter) || (kernel == "take" && skip_take) {
                    continue;
                }
                let [a, b, ratio] = vs(o, t);
                let s = t.cpu.as_secs_f64() / o.cpu.as_secs_f64();
                table.row(&[
                    name.into(),
                    kernel.into(),
                    format!("{:.0}%", sel * 100.0),
                    a,
                    b,
                    ratio,
                    verdict((s * 100.0).round() / 100.0, 1.0),
                ]);
            }
        }
    }
    println!(
        "\ntotal bench time {:.1} s",
        started.elapsed().as_secs_f64()
    );
}
