//! The selection kernels against arrow-rs 60's `arrow-select` on every
//! column of every little-endian golden file (every layout the golden sets
//! hold), whole and sliced: our `take_in` (nullable `u32` indices, repeats,
//! reversed order) and `filter_in` (a predicate with nulls and runs),
//! exported to arrow-rs through the C Data Interface, equal arrow-rs's
//! `take` and `filter` of arrow-rs's own reading of the same column.

use alkaid::array::{Array, ArrayRef, BooleanArray, PrimitiveArray};
use alkaid::compute::{filter_in, take_in};
use alkaid::ffi::FFI_ArrowArray;
use alkaid::ipc::reader::{FileReader, IpcReadOptions};
use alkaid::Global;
use alkaid_tests::harness::{cases, golden_dir};
use arrow_array::ffi::{from_ffi_and_data_type, FFI_ArrowArray as RsFfiArray};
use arrow_array::{make_array, Array as _, ArrayRef as RsArrayRef};
use arrow_ipc::reader::FileReader as RsFileReader;

/// Our struct handed to arrow-rs (same `repr(C)` layout, ownership moves).
fn to_rs(a: FFI_ArrowArray) -> RsFfiArray {
    // SAFETY: both are the C Data Interface's `struct ArrowArray`, field for
    // field; the value moves (ours is not dropped).
    unsafe { std::mem::transmute::<FFI_ArrowArray, RsFfiArray>(a) }
}

fn ours_to_rs(col: &ArrayRef<'static, Global>, dt: &arrow_schema::DataType) -> RsArrayRef {
    let c = FFI_ArrowArray::try_from_array_in(col, Global).expect("export");
    // SAFETY: a struct we exported, describing an array of type `dt`.
    let data = unsafe { from_ffi_and_data_type(to_rs(c), dt.clone()) }.expect("arrow-rs import");
    make_array(data)
}

/// `m` indices into `n` slots: every 5th null, the rest spread, repeated
/// and out of order.
fn indices(n: usize, m: usize, nulls: bool) -> Vec<Option<u32>> {
    (0..m)
        .map(|k| {
            if nulls && k % 5 == 2 {
                None
            } else {
                Some(((k * 7919 + 3) % n) as u32)
            }
        })
        .collect()
}

/// A predicate of `n` slots: runs of true, single falses, some nulls.
fn predicate(n: usize) -> Vec<Option<bool>> {
    (0..n)
        .map(|i| match i % 11 {
            3 => None,
            5 | 9 => Some(false),
            _ => Some(i % 23 < 19),
        })
        .collect()
}

#[test]
fn take_and_filter_equal_arrow_select_on_golden_columns() {
    let root = golden_dir();
    let (mut takes, mut filters) = (0usize, 0usize);
    let mut refused_by_arrow_rs = Vec::new();
    for case in cases(&root) {
        if case.dir.contains("bigendian") {
            continue;
        }
        let bytes: &'static [u8] =
            Box::leak(std::fs::read(case.file_path()).unwrap().into_boxed_slice());
        let mut ours = FileReader::try_new_in(bytes, IpcReadOptions::default(), Global)
            .unwrap_or_else(|e| panic!("{}: {e}", case.file_path().display()));
        let our_batches: Vec<_> = match ours.batches().collect::<Result<_, _>>() {
            Ok(b) => b,
            Err(e) => panic!("{}: {e}", case.file_path().display()),
        };
        let r = RsFileReader::try_new(std::io::Cursor::new(bytes), None).unwrap();
        let rs_batches: Vec<_> = r.collect::<Result<_, _>>().unwrap();
        for (b, batch) in our_batches.iter().enumerate() {
            for (i, col) in batch.columns().iter().enumerate() {
                let name = format!("{}/{} batch {b} column {i}", case.dir, case.stem);
                let n = col.len();
                let mut ranges = vec![(0, n)];
                if n >= 3 {
                    ranges.push((1, n - 2));
                }
                for (o, l) in ranges {
                    let ours_col = col.slice(o, l).unwrap();
                    let rs_col: RsArrayRef = rs_batches[b].column(i).slice(o, l);
                    let dt = rs_col.data_type().clone();
                    if l > 0 {
                        let is_union = matches!(dt, arrow_schema::DataType::Union(..));
                        // arrow-rs's union take reads null indices' values;
                        // give it indices without nulls.
                        let idx = indices(l, l + 5, !is_union);
                        let ours_idx =
                            PrimitiveArray::<u32, Global>::try_from_options_in(&idx, Global)
                                .unwrap();
                        let rs_idx = arrow_array::UInt32Array::from(idx.clone());
                        match arrow_select::take::take(&rs_col, &rs_idx, None) {
                            Ok(want) => {
                                let got = take_in(&ours_col, &ours_idx, Global)
                                    .unwrap_or_else(|e| panic!("{name}: take: {e}"));
                                let got = ours_to_rs(&got, &dt);
                                assert_eq!(got.to_data(), want.to_data(), "{name} [{o}+{l}] take");
                                takes += 1;
                            }
                            Err(e) => refused_by_arrow_rs.push(format!("{name} take: {e}")),
                        }
                    }
                    let p = predicate(l);
                    let ours_p = BooleanArray::from(p.clone());
                    let rs_p = arrow_array::BooleanArray::from(p);
                    match arrow_select::filter::filter(&rs_col, &rs_p) {
                        Ok(want) => {
                            let got = filter_in(&ours_col, &ours_p, Global)
                                .unwrap_or_else(|e| panic!("{name}: filter: {e}"));
                            let got = ours_to_rs(&got, &dt);
                            assert_eq!(got.to_data(), want.to_data(), "{name} [{o}+{l}] filter");
                            filters += 1;
                        }
                        Err(e) => refused_by_arrow_rs.push(format!("{name} filter: {e}")),
                    }
                }
            }
        }
    }
    println!(
        "take/filter equal arrow-select 60: {takes} takes, {filters} filters; arrow-rs refused {}:",
        refused_by_arrow_rs.len()
    );
    for r in &refused_by_arrow_rs {
        println!("  {r}");
    }
    assert!(
        takes >= 300 && filters >= 300,
        "{takes} takes, {filters} filters"
    );
}
