//! The C Data Interface with arrow-rs 60 (`arrow_array::ffi`) in the same
//! process, on every batch of every golden file (all four sets), whole and
//! sliced:
//!
//! - alkaid → arrow-rs: our reading of the file, exported as
//!   `FFI_ArrowArray`s and imported by arrow-rs (`from_ffi_and_data_type`),
//!   equals arrow-rs's own reading;
//! - arrow-rs → alkaid: arrow-rs's reading, exported by arrow-rs (`to_ffi`)
//!   and imported by us, equals our own reading.
//!
//! arrow-rs cannot read the big-endian set: there our export goes to
//! arrow-rs, back out of arrow-rs (`to_ffi`) and into alkaid again, and must
//! equal what we read.

use std::sync::Arc;

use alkaid::array::{Array, ArrayRef};
use alkaid::buffer::Misaligned;
use alkaid::ffi::FFI_ArrowArray;
use alkaid::ipc::reader::{FileReader, IpcReadOptions};
use alkaid::Global;
use alkaid_tests::harness::{cases, golden_dir};
use arrow_array::ffi::{from_ffi_and_data_type, to_ffi, FFI_ArrowArray as RsFfiArray};
use arrow_array::{make_array, Array as _, ArrayRef as RsArrayRef};
use arrow_ipc::reader::FileReader as RsFileReader;

/// Our struct handed to arrow-rs (same `repr(C)` layout, ownership moves).
fn to_rs(a: FFI_ArrowArray) -> RsFfiArray {
    // SAFETY: both are the C Data Interface's `struct ArrowArray`, field for
    // field; the value moves (ours is not dropped).
    unsafe { std::mem::transmute::<FFI_ArrowArray, RsFfiArray>(a) }
}

/// arrow-rs's struct handed to us.
fn from_rs(a: RsFfiArray) -> FFI_ArrowArray {
    // SAFETY: as in `to_rs`.
    unsafe { std::mem::transmute::<RsFfiArray, FFI_ArrowArray>(a) }
}

fn ours_to_rs(col: &ArrayRef<'static, Global>, dt: &arrow_schema::DataType) -> RsArrayRef {
    let c = FFI_ArrowArray::try_from_array_in(col, Global).expect("export");
    // SAFETY: a struct we exported, describing an array of type `dt`.
    let data = unsafe { from_ffi_and_data_type(to_rs(c), dt.clone()) }.expect("arrow-rs import");
    make_array(data)
}

fn rs_to_ours(
    col: &RsArrayRef,
    field: &alkaid::datatypes::Field<'static, Global>,
) -> alkaid::Result<ArrayRef<'static, Global>> {
    let (array, _schema) = to_ffi(&col.to_data()).expect("arrow-rs export");
    // SAFETY: arrow-rs made the struct from a live array of `field`'s type.
    unsafe { from_rs(array).import_with_field_in(field, Misaligned::Refuse, Global) }
}

/// The slices each column is also checked at (offset, length).
fn slices(len: usize) -> Vec<(usize, usize)> {
    let mut v = vec![(0, len)];
    if len >= 3 {
        v.push((1, len - 2));
        v.push((len / 2, len - len / 2));
    }
    v
}

#[test]
fn golden_batches_cross_the_c_data_interface_both_ways() {
    let root = golden_dir();
    let (mut columns, mut files) = (0usize, 0usize);
    let all = cases(&root);
    for case in &all {
        let bytes: &'static [u8] =
            Box::leak(std::fs::read(case.file_path()).unwrap().into_boxed_slice());
        let mut ours = match FileReader::try_new_in(bytes, IpcReadOptions::default(), Global) {
            Ok(r) => r,
            Err(e) => panic!("{}: {e}", case.file_path().display()),
        };
        let our_batches: Vec<_> = match ours.batches().collect::<Result<_, _>>() {
            Ok(b) => b,
            Err(e) => panic!("{}: {e}", case.file_path().display()),
        };
        let fields = ours.schema().fields().clone();
        let big_endian = case.dir.contains("bigendian");
        let rs_batches: Option<Vec<_>> = if big_endian {
            None
        } else {
            let r = RsFileReader::try_new(std::io::Cursor::new(bytes), None).unwrap();
            Some(r.collect::<Result<_, _>>().unwrap())
        };
        files += 1;
        for (b, batch) in our_batches.iter().enumerate() {
            for (i, col) in batch.columns().iter().enumerate() {
                let field = &fields[i];
                let name = format!("{}/{} batch {b} column {i}", case.dir, case.stem);
                for (o, l) in slices(col.len()) {
                    let ours_sliced = col.slice(o, l).unwrap();
                    match &rs_batches {
                        Some(rs) => {
                            let rs_col: RsArrayRef = rs[b].column(i).slice(o, l);
                            let got = ours_to_rs(&ours_sliced, rs_col.data_type());
                            assert_eq!(
                                got.to_data(),
                                rs_col.to_data(),
                                "{name} [{o}+{l}] alkaid→arrow-rs"
                            );
                            let back = rs_to_ours(&rs_col, field).unwrap_or_else(|e| {
                                panic!("{name} [{o}+{l}] arrow-rs→alkaid: {e}")
                            });
                            assert_eq!(back, ours_sliced, "{name} [{o}+{l}] arrow-rs→alkaid");
                        }
                        None => {
                            let dt = arrow_type_of(&ours_sliced);
                            let Some(dt) = dt else { continue };
                            let rs_col = ours_to_rs(&ours_sliced, &dt);
                            let back = rs_to_ours(&rs_col, field)
                                .unwrap_or_else(|e| panic!("{name} [{o}+{l}] round trip: {e}"));
                            assert_eq!(
                                back, ours_sliced,
                                "{name} [{o}+{l}] alkaid→arrow-rs→alkaid"
                            );
                        }
                    }
                    columns += 1;
                }
            }
        }
    }
    println!(
        "C Data Interface with arrow-rs: {files} golden files, {columns} column slices, both \
         ways"
    );
    // Every golden file, none skipped.
    assert_eq!(files, all.len());
    assert!(
        files >= 40 && columns >= 500,
        "{files} files, {columns} columns"
    );
}

/// arrow-rs's type for a column read from a big-endian file, through the IPC
/// stream: we write the column's batch and arrow-rs reads its schema.
fn arrow_type_of(col: &ArrayRef<'static, Global>) -> Option<arrow_schema::DataType> {
    use alkaid::datatypes::{Field, Schema};
    use alkaid::ipc::writer::{IpcWriteOptions, StreamWriter};
    let fields = alkaid::buffer::SharedSlice::try_from_iter_in(
        [Field::new("c", col.data_type().clone(), true)],
        Global,
    )
    .ok()?;
    let schema = Schema::new(fields);
    let w =
        StreamWriter::try_new_in(Vec::new(), &schema, IpcWriteOptions::default(), Global).ok()?;
    let mut w = w;
    w.finish().ok()?;
    let bytes = w.into_inner();
    let r = arrow_ipc::reader::StreamReader::try_new(std::io::Cursor::new(bytes), None).ok()?;
    let s: Arc<arrow_schema::Schema> = r.schema();
    Some(s.field(0).data_type().clone())
}
