//! Comparison kernels benchmark: alkaid's `compute::cmp` against arrow-ord
//! 60's `cmp` kernels, in one run (no assertions but that both give the
//! same result).
//!
//! `cargo bench -p alkaid-tests-arrow-rs --bench cmp`
//!
//! 262,144 rows of Int64, Float64, Decimal128(38, 2) (10 % nulls, random
//! values), Utf8 and Utf8View (4 to 40 alphanumerics, 10 % nulls; every
//! 4th value shares its first 8 bytes with its neighbour on the other
//! side, so that prefixes do not decide every comparison): `eq` and `lt`
//! of two arrays, and of an array against a scalar. arrow-rs gets the very
//! same arrays (ours exported through the C Data Interface).
//! `CMP_BENCH_FILTER=<substring>` runs only the columns whose name holds it.

mod util;

use std::hint::black_box;

use alkaid::array::{Array, ArrayRef, PrimitiveArray, StringArray, StringViewArray};
use alkaid::compute::cmp::{eq_in, lt_in, Datum};
use alkaid::datatypes::DataType;
use alkaid::Global as G;
use arrow_array as aa;
use arrow_schema::DataType as Dt;
use util::{compare, verdict, vs, Budget, Rng, Table};

type Ours = ArrayRef<'static, G>;

const ROWS: usize = 1 << 18;

fn to_rs(a: &Ours, dt: &Dt) -> aa::ArrayRef {
    util::to_rs(a, dt, G)
}

fn strings(rng: &mut Rng, other: Option<&[Option<String>]>) -> Vec<Option<String>> {
    (0..ROWS)
        .map(|i| {
            let len = 4 + rng.below(37) as usize;
            let mut s = rng.alnum(len);
            if let Some(Some(o)) = other.map(|o| &o[i]) {
                if i % 4 == 0 && o.len() >= 8 && s.len() >= 8 {
                    s.replace_range(..8, &o[..8]);
                }
            }
            (!rng.chance(0.1)).then_some(s)
        })
        .collect()
}

/// (name, left, right, arrow-rs type) for every column type.
fn columns() -> Vec<(&'static str, Ours, Ours, Dt)> {
    let mut rng = Rng::new(42);
    let mut out = Vec::new();
    let ints = |rng: &mut Rng| -> Vec<Option<i64>> {
        (0..ROWS)
            .map(|_| (!rng.chance(0.1)).then(|| rng.below(1000) as i64 - 500))
            .collect()
    };
    let (l, r) = (ints(&mut rng), ints(&mut rng));
    let int = |v: &[Option<i64>]| {
        PrimitiveArray::<i64, G>::try_from_options_in(v, G)
            .unwrap()
            .into_array_ref()
    };
    out.push(("Int64", int(&l), int(&r), Dt::Int64));
    let floats = |v: &[Option<i64>]| {
        let f: Vec<Option<f64>> = v.iter().map(|x| x.map(|x| x as f64 / 7.0)).collect();
        PrimitiveArray::<f64, G>::try_from_options_in(&f, G)
            .unwrap()
            .into_array_ref()
    };
    out.push(("Float64", floats(&l), floats(&r), Dt::Float64));
    let dec = |v: &[Option<i64>]| {
        let d: Vec<Option<i128>> = v
            .iter()
            .map(|x| x.map(|x| i128::from(x) * 1_000_003))
            .collect();
        let p = PrimitiveArray::<i128, G>::try_from_options_in(&d, G).unwrap();
        let (values, nulls) = (p.values_buffer().clone(), p.nulls().cloned());
        PrimitiveArray::<i128, G>::try_new(DataType::Decimal128(38, 2), values, nulls)
            .unwrap()
            .into_array_ref()
    };
    out.push(("Decimal128", dec(&l), dec(&r), Dt::Decimal128(38, 2)));
    fn refs(v: &[Option<String>]) -> Vec<Option<&str>> {
        v.iter().map(|s| s.as_deref()).collect()
    }
    let ls = strings(&mut rng, None);
    let rs = strings(&mut rng, Some(&ls));
    let utf8 = |v: &[Option<String>]| {
        StringArray::<G>::try_from_options_in(&refs(v), G)
            .unwrap()
            .into_array_ref()
    };
    out.push(("Utf8", utf8(&ls), utf8(&rs), Dt::Utf8));
    let view = |v: &[Option<String>]| {
        StringViewArray::<G>::try_from_options_in(&refs(v), G)
            .unwrap()
            .into_array_ref()
    };
    out.push(("Utf8View", view(&ls), view(&rs), Dt::Utf8View));
    out
}

fn main() {
    let started = std::time::Instant::now();
    println!(
        "alkaid vs arrow-ord 60, comparisons of {ROWS} rows: median thread CPU time of \
         interleaved samples; speed-up = arrow-rs time / alkaid time (wall-clock speed-up in \
         parentheses); target ≥ 1.0×\n"
    );
    let table = Table::new(
        &[
            "column",
            "kernel",
            "rhs",
            "alkaid",
            "arrow-rs",
            "speed-up (wall)",
            "target",
        ],
        &[11, 6, 6, 9, 9, 15, 13],
    );
    let budget = Budget {
        samples: 11,
        sample_time: std::time::Duration::from_millis(20),
    };
    let filter_env = std::env::var("CMP_BENCH_FILTER").unwrap_or_default();
    for (name, l, r, dt) in columns() {
        if !name.contains(&filter_env) {
            continue;
        }
        let (tl, tr) = (to_rs(&l, &dt), to_rs(&r, &dt));
        // A valid slot as the scalar (a null one makes every slot null).
        let k = (0..r.len()).find(|&i| r.is_valid(i)).unwrap();
        let scalar = r.slice(k, 1).unwrap();
        let ts = aa::Scalar::new(tr.slice(k, 1));
        type OurKernel = fn(
            Datum<'_, '_, G>,
            Datum<'_, '_, G>,
            G,
        ) -> alkaid::Result<alkaid::array::BooleanArray<'static, G>>;
        type RsKernel = fn(
            &dyn aa::Datum,
            &dyn aa::Datum,
        ) -> Result<aa::BooleanArray, arrow_schema::ArrowError>;
        let kernels: [(&str, OurKernel, RsKernel); 2] = [
            ("eq", eq_in, arrow_ord::cmp::eq),
            ("lt", lt_in, arrow_ord::cmp::lt),
        ];
        for (kernel, ours, theirs) in kernels {
            for rhs in ["array", "scalar"] {
                let od = if rhs == "array" {
                    Datum::Array(&r)
                } else {
                    Datum::Scalar(&scalar)
                };
                let td: &dyn aa::Datum = if rhs == "array" { &tr } else { &ts };
                // Same results on both sides before timing.
                let o = ours(Datum::Array(&l), od, G).unwrap().into_array_ref();
                let t = theirs(&tl, td).unwrap();
                let o = to_rs(&o, &Dt::Boolean);
                let o = o.as_any().downcast_ref::<aa::BooleanArray>().unwrap();
                assert_eq!(
                    o.iter().collect::<Vec<_>>(),
                    t.iter().collect::<Vec<_>>(),
                    "{name} {kernel} {rhs}"
                );
                let m = compare(
                    &mut [
                        &mut || {
                            black_box(ours(Datum::Array(&l), od, G).unwrap());
                        },
                        &mut || {
                            black_box(theirs(&tl, td).unwrap());
                        },
                    ],
                    budget,
                );
                let [a, b, ratio] = vs(m[0], m[1]);
                let s = m[1].cpu.as_secs_f64() / m[0].cpu.as_secs_f64();
                table.row(&[
                    name.into(),
                    kernel.into(),
                    rhs.into(),
                    a,
                    b,
                    ratio,
                    verdict((s * 100.0).round() / 100.0, 1.0),
                ]);
            }
        }
    }
    println!("\n({:.0} s)", started.elapsed().as_secs_f64());
}
