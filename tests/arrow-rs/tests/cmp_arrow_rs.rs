//! The comparison kernels against arrow-rs 60's `arrow-ord` on every column
//! of every little-endian golden file (every layout the golden sets hold),
//! whole and sliced: our `eq_in`, `neq_in`, `lt_in`, `lt_eq_in`, `gt_in`
//! and `gt_eq_in` of the column against its own slots in reverse order and
//! against one of its slots as a scalar (both orders) give arrow-ord's
//! result of arrow-rs's own reading of the same column, slot for slot,
//! nulls included. Where arrow-ord refuses a type (nested, union, run-end)
//! ours must refuse it too.

use alkaid::array::{Array, BooleanArray};
use alkaid::compute::cmp::{eq_in, gt_eq_in, gt_in, lt_eq_in, lt_in, neq_in, Datum};
use alkaid::compute::take_in;
use alkaid::ipc::reader::{FileReader, IpcReadOptions};
use alkaid::Global;
use alkaid_tests::harness::{cases, golden_dir};
use arrow_array::{Array as _, ArrayRef as RsArrayRef, Scalar};
use arrow_ipc::reader::FileReader as RsFileReader;

type Ours = fn(
    Datum<'_, '_, Global>,
    Datum<'_, '_, Global>,
    Global,
) -> alkaid::Result<BooleanArray<'static, Global>>;
type Theirs = fn(
    &dyn arrow_array::Datum,
    &dyn arrow_array::Datum,
) -> Result<arrow_array::BooleanArray, arrow_schema::ArrowError>;

/// One comparison: its name, our two operands and arrow-rs's.
type Pair<'c> = (
    &'static str,
    Datum<'c, 'static, Global>,
    Datum<'c, 'static, Global>,
    &'c dyn arrow_array::Datum,
    &'c dyn arrow_array::Datum,
);

const OPS: [(&str, Ours, Theirs); 6] = [
    ("eq", eq_in, arrow_ord::cmp::eq),
    ("neq", neq_in, arrow_ord::cmp::neq),
    ("lt", lt_in, arrow_ord::cmp::lt),
    ("lt_eq", lt_eq_in, arrow_ord::cmp::lt_eq),
    ("gt", gt_in, arrow_ord::cmp::gt),
    ("gt_eq", gt_eq_in, arrow_ord::cmp::gt_eq),
];

#[test]
fn comparisons_equal_arrow_ord_on_golden_columns() {
    let root = golden_dir();
    let (mut agreed, mut both_refused) = (0usize, Vec::new());
    for case in cases(&root) {
        if case.dir.contains("bigendian") {
            continue;
        }
        let bytes: &'static [u8] =
            Box::leak(std::fs::read(case.file_path()).unwrap().into_boxed_slice());
        let mut ours = FileReader::try_new_in(bytes, IpcReadOptions::default(), Global).unwrap();
        let our_batches: Vec<_> = ours.batches().collect::<Result<_, _>>().unwrap();
        let r = RsFileReader::try_new(std::io::Cursor::new(bytes), None).unwrap();
        let rs_batches: Vec<_> = r.collect::<Result<_, _>>().unwrap();
        for (b, batch) in our_batches.iter().enumerate() {
            for (i, col) in batch.columns().iter().enumerate() {
                let n = col.len();
                let name = format!("{}/{} batch {b} column {i}", case.dir, case.stem);
                let mut ranges = vec![(0, n)];
                if n >= 3 {
                    ranges.push((1, n - 2));
                }
                for (o, l) in ranges {
                    if l == 0 {
                        continue;
                    }
                    let col = col.slice(o, l).unwrap();
                    let rs_col: RsArrayRef = rs_batches[b].column(i).slice(o, l);
                    let rev: Vec<usize> = (0..l).rev().collect();
                    let our_rev = take_in(&col, rev.as_slice(), Global).unwrap();
                    let rs_rev = arrow_select::take::take(
                        &rs_col,
                        &arrow_array::UInt64Array::from_iter_values(rev.iter().map(|&x| x as u64)),
                        None,
                    )
                    .unwrap();
                    let k = l / 2;
                    let our_scalar = col.slice(k, 1).unwrap();
                    let rs_scalar = Scalar::new(rs_col.slice(k, 1));
                    for (op, ours, theirs) in OPS {
                        let pairs: [Pair<'_>; 3] = [
                            (
                                "reversed",
                                Datum::Array(&col),
                                Datum::Array(&our_rev),
                                &rs_col,
                                &rs_rev,
                            ),
                            (
                                "scalar",
                                Datum::Array(&col),
                                Datum::Scalar(&our_scalar),
                                &rs_col,
                                &rs_scalar,
                            ),
                            (
                                "scalar first",
                                Datum::Scalar(&our_scalar),
                                Datum::Array(&col),
                                &rs_scalar,
                                &rs_col,
                            ),
                        ];
                        for (how, ol, or, tl, tr) in pairs {
                            let what = format!("{name} [{o}+{l}] {op} {how}");
                            match (ours(ol, or, Global), theirs(tl, tr)) {
                                (Ok(got), Ok(want)) => {
                                    let got: Vec<_> = got.iter().collect();
                                    let want: Vec<_> = want.iter().collect();
                                    assert_eq!(got, want, "{what}");
                                    agreed += 1;
                                }
                                (Err(_), Err(e)) => both_refused.push(format!("{what}: {e}")),
                                (Ok(_), Err(e)) => {
                                    panic!("{what}: arrow-ord refuses ({e}), we compare")
                                }
                                (Err(e), Ok(_)) => {
                                    panic!("{what}: arrow-ord compares, we refuse ({e})")
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    println!(
        "comparisons equal arrow-ord 60: {agreed}; refused by both: {}",
        both_refused.len()
    );
    for r in both_refused.iter().step_by(18) {
        println!("  {r}");
    }
    assert!(agreed >= 1000, "{agreed} comparisons");
}
