//! Tests of array export and import through the C structs, in one process.

use core::ffi::c_void;
use core::ptr;
use core::sync::atomic::{AtomicUsize, Ordering};
use std::vec::Vec;

use crate::Global as G;

use super::FFI_ArrowArray;
use crate::array::{Array, ArrayRef, PrimitiveArray, StringArray};
use crate::buffer::{Buffer, MemoryOwner, Misaligned};
use crate::compute::new_null;
use crate::datatypes::{DataType, Field};
use crate::error::Error;
use crate::test_support::{check_every_failure, TestAlloc};

/// Export then import, checking equality and that no buffer was copied.
fn round_trip(a: &ArrayRef<'static, G>) -> ArrayRef<'static, G> {
    let c = FFI_ArrowArray::try_from_array_in(a, G).unwrap();
    let field = Field::new("x", a.data_type().clone(), true);
    // SAFETY: a struct this module exported, whose memory is alive.
    let b = unsafe { c.import_with_field_in(&field, Misaligned::Refuse, G) }.unwrap();
    assert_eq!(&b, a, "round trip of {:?}", a.data_type());
    b
}

#[test]
fn sample_columns_round_trip_whole_and_sliced() {
    for offset in [0, 1, 3] {
        let batch = crate::ipc::roundtrip_tests::sample_batch(offset);
        for col in batch.columns() {
            round_trip(col);
            for (o, l) in [(0, 0), (1, 2), (2, col.len() - 2)] {
                round_trip(&col.slice(o, l).unwrap());
            }
        }
        let c = FFI_ArrowArray::try_from_record_batch_in(&batch, G).unwrap();
        assert_eq!(c.n_children, batch.num_columns() as i64);
        assert_eq!(c.length, batch.num_rows() as i64);
    }
}

#[test]
fn null_arrays_of_every_type_round_trip() {
    for dt in crate::compute::tests_empty::all_types(&G) {
        let a = new_null(&dt, 5, G).unwrap();
        round_trip(&a);
        round_trip(&a.slice(2, 3).unwrap());
    }
}

#[test]
fn export_and_import_are_zero_copy() {
    let a = StringArray::<G>::try_from_options_in(&[Some("ab"), None, Some("cde")], G).unwrap();
    let c = FFI_ArrowArray::try_from_array_in(&a.clone().into_array_ref(), G).unwrap();
    // SAFETY: three buffers were exported.
    let (offsets, data) = unsafe { (*c.buffers.add(1), *c.buffers.add(2)) };
    assert_eq!(offsets.cast::<u8>(), a.offsets().inner().as_ptr());
    assert_eq!(data.cast::<u8>(), a.values().as_ptr());
    let field = Field::new("s", DataType::Utf8, true);
    // SAFETY: as in `round_trip`.
    let b = unsafe { c.import_with_field_in(&field, Misaligned::Refuse, G) }.unwrap();
    let ArrayRef::Utf8(b) = b else { panic!() };
    assert_eq!(b.values().as_ptr(), a.values().as_ptr());
    assert_eq!(b.offsets().inner().as_ptr(), a.offsets().inner().as_ptr());
}

/// A producer's array made by hand: its buffers (`None`: a null pointer),
/// with a `release` that counts its calls.
struct Produced {
    data: Vec<Option<Vec<u64>>>,
    pointers: Vec<*const c_void>,
}

static RELEASES: AtomicUsize = AtomicUsize::new(0);

unsafe extern "C" fn count_release(a: *mut FFI_ArrowArray) {
    // SAFETY: called with the struct made by `produce_buffers`.
    let a = unsafe { &mut *a };
    // SAFETY: `private_data` is the boxed `Produced`.
    drop(unsafe { std::boxed::Box::from_raw(a.private_data.cast::<Produced>()) });
    a.release = None;
    RELEASES.fetch_add(1, Ordering::SeqCst);
}

/// A struct over copies of `buffers` (each in 8-byte aligned memory).
fn produce_buffers(buffers: &[Option<&[u8]>], length: i64, offset: i64) -> FFI_ArrowArray {
    let data = buffers
        .iter()
        .map(|b| {
            b.map(|b| {
                let mut words = std::vec![0u64; b.len().div_ceil(8)];
                bytemuck::cast_slice_mut::<u64, u8>(&mut words)[..b.len()].copy_from_slice(b);
                words
            })
        })
        .collect();
    let p = std::boxed::Box::into_raw(std::boxed::Box::new(Produced {
        data,
        pointers: Vec::new(),
    }));
    // SAFETY: `p` is the box just leaked; every pointer below is derived
    // from it, so the struct's entries stay valid until `count_release`.
    let pointers = unsafe {
        let ptrs: Vec<*const c_void> = (*p)
            .data
            .iter_mut()
            .map(|d| {
                d.as_mut()
                    .map_or(ptr::null(), |v| v.as_mut_ptr().cast_const().cast())
            })
            .collect();
        (*p).pointers = ptrs;
        (*p).pointers.as_mut_ptr()
    };
    FFI_ArrowArray {
        length,
        null_count: -1,
        offset,
        n_buffers: buffers.len() as i64,
        n_children: 0,
        buffers: pointers,
        children: ptr::null_mut(),
        dictionary: ptr::null_mut(),
        release: Some(count_release),
        private_data: p.cast(),
    }
}

/// An `i32` array with an optional validity bitmap.
fn produce(values: &[i32], validity: Option<&[u8]>, length: i64, offset: i64) -> FFI_ArrowArray {
    produce_buffers(
        &[validity, Some(bytemuck::cast_slice(values))],
        length,
        offset,
    )
}

/// The release tests share one counter: they run under one lock.
static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn producer_release_runs_once_when_the_last_view_drops() {
    let _g = LOCK.lock().unwrap();
    let before = RELEASES.load(Ordering::SeqCst);
    let field = Field::new("i", DataType::Int32, true);
    // Slots 1..4 of [1, null, 3, 4, 5].
    let c = produce(&[1, 2, 3, 4, 5], Some(&[0b1_1101]), 3, 1);
    // SAFETY: `produce` makes a valid struct.
    let a = unsafe { c.import_with_field_in(&field, Misaligned::Refuse, G) }.unwrap();
    let ArrayRef::Int32(p) = &a else { panic!() };
    assert_eq!(p.iter().collect::<Vec<_>>(), [None, Some(3), Some(4)]);
    let part = a.slice(1, 1).unwrap();
    drop(a);
    assert_eq!(RELEASES.load(Ordering::SeqCst), before);
    drop(part);
    assert_eq!(RELEASES.load(Ordering::SeqCst), before + 1);

    // Errors release at once, exactly once.
    let mut bad = produce(&[1, 2], None, 2, 0);
    bad.n_buffers = 1;
    // SAFETY: the struct's pointers are valid; its buffer count is wrong.
    let e = unsafe { bad.import_with_field_in(&field, Misaligned::Refuse, G) };
    assert!(e.is_err());
    assert_eq!(RELEASES.load(Ordering::SeqCst), before + 2);
}

#[test]
fn malformed_structs_give_distinct_errors() {
    let _g = LOCK.lock().unwrap();
    let field = Field::new("i", DataType::Int32, true);
    let import = |c: FFI_ArrowArray, f: &Field<'static, G>| {
        // SAFETY: every pointer the structs below carry is valid for what
        // they declare (or null); the numbers are what is under test.
        unsafe { c.import_with_field_in(f, Misaligned::Refuse, G) }.map(|_| ())
    };
    let mut c = produce(&[1, 2], None, 2, 0);
    c.length = -1;
    assert_eq!(import(c, &field), Err(Error::FfiNegativeCount));
    let mut c = produce(&[1, 2], None, 2, 0);
    c.offset = -3;
    assert_eq!(import(c, &field), Err(Error::FfiNegativeCount));
    let mut c = produce(&[1, 2], None, 2, 0);
    c.null_count = 3;
    assert_eq!(import(c, &field), Err(Error::FfiNegativeCount));
    let mut c = produce(&[1, 2], None, 2, 0);
    c.n_buffers = 1;
    assert_eq!(import(c, &field), Err(Error::FfiBufferCount));
    let mut c = produce(&[1, 2], None, 2, 0);
    c.n_children = 1;
    assert_eq!(import(c, &field), Err(Error::FfiNullBuffer));
    let mut c = produce(&[1, 2], None, 2, 0);
    c.null_count = 1; // a null count with no validity bitmap
    assert_eq!(import(c, &field), Err(Error::FfiNullBuffer));
    let c = produce(&[1, 2], None, 2, 0);
    // SAFETY: entry 1 of the two-entry buffer array.
    unsafe { *c.buffers.add(1) = ptr::null() };
    assert_eq!(import(c, &field), Err(Error::FfiNullBuffer));
    let c = produce(&[1, 2], None, 2, 0);
    let list = Field::new(
        "l",
        DataType::List(crate::buffer::SharedBox::try_new_in(field.clone(), G).unwrap()),
        true,
    );
    assert_eq!(import(c, &list), Err(Error::InvalidChildCount));
    let mut released = FFI_ArrowArray::empty();
    released.length = 2;
    assert_eq!(import(released, &field), Err(Error::FfiReleased));
    // Misaligned values: refused, or copied when asked.
    let c = produce(&[1, 2, 3], None, 2, 0);
    let d = produce(&[1, 2, 3], None, 2, 0);
    // SAFETY: entry 1 of the buffers; one byte into a 12-byte buffer,
    // 8 bytes are still readable after it.
    unsafe { *d.buffers.add(1) = (*d.buffers.add(1)).cast::<u8>().add(1).cast() };
    assert_eq!(import(d, &field), Err(Error::Misaligned));
    // SAFETY: as above.
    unsafe { *c.buffers.add(1) = (*c.buffers.add(1)).cast::<u8>().add(1).cast() };
    // SAFETY: as above.
    let a = unsafe { c.import_with_field_in(&field, Misaligned::Copy, G) }.unwrap();
    assert_eq!(a.len(), 2);
    assert!(a.validate(crate::array::ValidationLevel::Full).is_ok());
}

#[test]
fn utf8_with_bad_offsets_or_bytes_is_refused() {
    let _g = LOCK.lock().unwrap();
    let field = Field::new("s", DataType::Utf8, true);
    let import = |offsets: &[i32], data: &[u8]| {
        let c = produce_buffers(
            &[None, Some(bytemuck::cast_slice(offsets)), Some(data)],
            2,
            0,
        );
        // SAFETY: the buffers hold what the offsets say (or less, which
        // must be found before reading).
        unsafe { c.import_with_field_in(&field, Misaligned::Refuse, G) }.map(|_| ())
    };
    assert_eq!(import(&[0, 2, 3], b"abc"), Ok(()));
    assert_eq!(import(&[0, 2, 1], b"abc"), Err(Error::OffsetsNotMonotonic));
    assert_eq!(import(&[0, 2, -1], b"abc"), Err(Error::OffsetOutOfBounds));
    assert_eq!(import(&[0, 1, 3], b"a\xffc"), Err(Error::InvalidUtf8));
}

#[test]
fn every_allocation_failure_of_export_and_import_is_an_error_and_leaks_nothing() {
    for which in 0..2 {
        // Arrays, export bookkeeping and import owner all in the failing
        // allocator; `check_every_failure` fails request k for every k.
        let needed = check_every_failure(|a| {
            let arr = if which == 0 {
                PrimitiveArray::<i64, TestAlloc>::try_from_options_in(
                    &[Some(1), None, Some(3)],
                    a.clone(),
                )?
                .into_array_ref()
            } else {
                crate::array::StringViewArray::<TestAlloc>::try_from_options_in(
                    &[Some("a string longer than twelve"), None, Some("x")],
                    a.clone(),
                )?
                .into_array_ref()
            };
            let arr = arr.slice(1, 2)?;
            let c = FFI_ArrowArray::try_from_array_in(&arr, a.clone())?;
            let f = Field::new("x", arr.data_type().clone(), true);
            // SAFETY: a struct this module exported.
            let back = unsafe { c.import_with_field_in(&f, Misaligned::Refuse, a) }?;
            assert_eq!(back, arr);
            Ok(back)
        });
        assert!(needed > 3, "building, export and import allocate");
    }
}

#[test]
fn memory_owner_keeps_foreign_memory_alive_until_the_last_view() {
    static DROPS: AtomicUsize = AtomicUsize::new(0);
    struct Keeper(Vec<u8>);
    impl Drop for Keeper {
        fn drop(&mut self) {
            DROPS.fetch_add(1, Ordering::SeqCst);
        }
    }
    let k = Keeper(std::vec![1, 2, 3, 4, 5]);
    let p = k.0.as_ptr();
    let owner = MemoryOwner::try_new_in(k, G).unwrap();
    // SAFETY: the bytes live as long as the keeper.
    let b = unsafe { Buffer::from_owner(p, 5, owner.clone()) };
    let c = b.slice(1, 3).unwrap();
    assert_eq!(owner.strong_count(), 3);
    drop(owner);
    drop(b);
    assert_eq!(DROPS.load(Ordering::SeqCst), 0);
    assert_eq!(c.as_slice(), &[2, 3, 4]);
    drop(c);
    assert_eq!(DROPS.load(Ordering::SeqCst), 1);
    assert_eq!(
        MemoryOwner::try_new_in(Keeper(std::vec![]), crate::NoAlloc).unwrap_err(),
        Error::AllocationFailed
    );
    assert_eq!(DROPS.load(Ordering::SeqCst), 2, "refused keeper dropped");
}

#[test]
fn a_child_moved_out_outlives_its_parent() {
    let batch = crate::ipc::roundtrip_tests::sample_batch(1);
    let c = FFI_ArrowArray::try_from_record_batch_in(&batch, G).unwrap();
    // Move the string column's struct out, as a consumer may: copy it and
    // mark the original released.
    // SAFETY: the exporter made `n_children` valid child pointers; the
    // original is only skipped by the parent's release afterwards.
    let moved = unsafe {
        let slot = *c.children.add(3);
        let moved = ptr::read(slot);
        (*slot).release = None;
        moved
    };
    drop(c);
    let col = &batch.columns()[3];
    let field = Field::new("s", col.data_type().clone(), true);
    // SAFETY: the moved struct is a complete export of its own.
    let back = unsafe { moved.import_with_field_in(&field, Misaligned::Refuse, G) }.unwrap();
    assert_eq!(&back, col);
}
