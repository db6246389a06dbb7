//! The schema half of the C Data Interface against arrow-rs 60
//! (`arrow_schema::ffi::FFI_ArrowSchema`), in-process, both ways:
//!
//! - alkaid exports a field (every type), arrow-rs reads the very same
//!   memory (both structs are `repr(C)` with the specification's fields, so a
//!   pointer to one is a pointer to the other) and must find the arrow-rs
//!   field we expect: name, type, nullability, metadata, ordered flag;
//! - arrow-rs exports the arrow-rs field, alkaid imports it and must find
//!   the alkaid field we started from;
//! - ownership moves across: a struct exported by one side and moved into
//!   the other's struct is released by the other's `Drop`, through the
//!   producer's callback (a counting allocator shows alkaid's memory back to
//!   zero).
//!
//! Needs nothing outside the process: runs with every `cargo test`.

use std::alloc::Layout;
use std::collections::HashMap;
use std::ptr::{self, NonNull};
use std::sync::atomic::{AtomicIsize, Ordering};
use std::sync::Arc;

use alkaid::allocator_api2::alloc::{AllocError, Allocator};
use alkaid::buffer::{SharedBox, SharedSlice, SharedStr};
use alkaid::datatypes::{
    DataType, Field, IndexType, IntervalUnit, Schema, TimeUnit, UnionFields, UnionMode,
};
use alkaid::ffi::{import_field, import_field_in, import_schema, FFI_ArrowSchema};
use alkaid::Global;
use arrow_schema::ffi::FFI_ArrowSchema as RsFfiSchema;
use arrow_schema::{
    DataType as RsType, Field as RsField, IntervalUnit as RsInterval, Schema as RsSchema,
    TimeUnit as RsUnit, UnionFields as RsUnionFields, UnionMode as RsUnionMode,
};

type F = Field<'static, Global>;

fn boxed(f: F) -> SharedBox<'static, F, Global> {
    SharedBox::try_new_in(f, Global).unwrap()
}

fn fields(fs: Vec<F>) -> SharedSlice<'static, F, Global> {
    SharedSlice::try_from_iter_in(fs, Global).unwrap()
}

fn tz(s: &str) -> Option<SharedStr<'static, Global>> {
    Some(SharedStr::try_from_str_in(s, Global).unwrap())
}

/// Every type arrow-rs 60 reads and writes through the interface, as an
/// alkaid field and the arrow-rs field it must be.
fn cases() -> Vec<(F, RsField)> {
    use DataType as D;
    use RsType as R;
    use TimeUnit::*;
    let item = || boxed(Field::new("item", D::Int32, true));
    let rs_item = || Arc::new(RsField::new("item", R::Int32, true));
    let kv = || {
        fields(vec![
            Field::new("key", D::Utf8, false),
            Field::new("value", D::Float64, true),
        ])
    };
    let rs_kv = || {
        vec![
            RsField::new("key", R::Utf8, false),
            RsField::new("value", R::Float64, true),
        ]
    };
    let union = |ids: &[i8], mode| {
        let fs = fields(vec![
            Field::new("x", D::Float64, true),
            Field::new("y", D::Utf8, true),
        ]);
        let ids = SharedSlice::try_from_slice_in(ids, Global).unwrap();
        D::Union(UnionFields::try_new(ids, fs).unwrap(), mode)
    };
    let rs_union = |ids: &[i8], mode| {
        let fs = vec![
            RsField::new("x", R::Float64, true),
            RsField::new("y", R::Utf8, true),
        ];
        R::Union(RsUnionFields::try_new(ids.to_vec(), fs).unwrap(), mode)
    };
    let types: Vec<(DataType<'static, Global>, RsType)> = vec![
        (D::Null, R::Null),
        (D::Boolean, R::Boolean),
        (D::Int8, R::Int8),
        (D::Int16, R::Int16),
        (D::Int32, R::Int32),
        (D::Int64, R::Int64),
        (D::UInt8, R::UInt8),
        (D::UInt16, R::UInt16),
        (D::UInt32, R::UInt32),
        (D::UInt64, R::UInt64),
        (D::Float16, R::Float16),
        (D::Float32, R::Float32),
        (D::Float64, R::Float64),
        (D::Decimal32(9, 2), R::Decimal32(9, 2)),
        (D::Decimal64(18, -3), R::Decimal64(18, -3)),
        (D::Decimal128(38, 10), R::Decimal128(38, 10)),
        (D::Decimal256(76, 5), R::Decimal256(76, 5)),
        (D::Date32, R::Date32),
        (D::Date64, R::Date64),
        (D::Time32(Second), R::Time32(RsUnit::Second)),
        (D::Time32(Millisecond), R::Time32(RsUnit::Millisecond)),
        (D::Time64(Microsecond), R::Time64(RsUnit::Microsecond)),
        (D::Time64(Nanosecond), R::Time64(RsUnit::Nanosecond)),
        (
            D::Timestamp(Second, None),
            R::Timestamp(RsUnit::Second, None),
        ),
        (
            D::Timestamp(Microsecond, tz("Europe/Paris")),
            R::Timestamp(RsUnit::Microsecond, Some("Europe/Paris".into())),
        ),
        (
            D::Timestamp(Nanosecond, tz("+07:30")),
            R::Timestamp(RsUnit::Nanosecond, Some("+07:30".into())),
        ),
        (D::Duration(Second), R::Duration(RsUnit::Second)),
        (D::Duration(Millisecond), R::Duration(RsUnit::Millisecond)),
        (D::Duration(Microsecond), R::Duration(RsUnit::Microsecond)),
        (D::Duration(Nanosecond), R::Duration(RsUnit::Nanosecond)),
        (
            D::Interval(IntervalUnit::YearMonth),
            R::Interval(RsInterval::YearMonth),
        ),
        (
            D::Interval(IntervalUnit::DayTime),
            R::Interval(RsInterval::DayTime),
        ),
        (
            D::Interval(IntervalUnit::MonthDayNano),
            R::Interval(RsInterval::MonthDayNano),
        ),
        (D::FixedSizeBinary(16), R::FixedSizeBinary(16)),
        (D::Binary, R::Binary),
        (D::LargeBinary, R::LargeBinary),
        (D::Utf8, R::Utf8),
        (D::LargeUtf8, R::LargeUtf8),
        (D::BinaryView, R::BinaryView),
        (D::Utf8View, R::Utf8View),
        (D::List(item()), R::List(rs_item())),
        (D::LargeList(item()), R::LargeList(rs_item())),
        (D::ListView(item()), R::ListView(rs_item())),
        (D::LargeListView(item()), R::LargeListView(rs_item())),
        (D::FixedSizeList(item(), 3), R::FixedSizeList(rs_item(), 3)),
        (D::Struct(kv()), R::Struct(rs_kv().into())),
        (
            D::Map(boxed(Field::new("entries", D::Struct(kv()), false)), true),
            R::Map(
                Arc::new(RsField::new("entries", R::Struct(rs_kv().into()), false)),
                true,
            ),
        ),
        (
            D::Map(boxed(Field::new("entries", D::Struct(kv()), false)), false),
            R::Map(
                Arc::new(RsField::new("entries", R::Struct(rs_kv().into()), false)),
                false,
            ),
        ),
        (
            union(&[3, 7], UnionMode::Dense),
            rs_union(&[3, 7], RsUnionMode::Dense),
        ),
        (
            union(&[0, 1], UnionMode::Sparse),
            rs_union(&[0, 1], RsUnionMode::Sparse),
        ),
        (
            D::Dictionary(
                IndexType::Int16,
                SharedBox::try_new_in(D::Utf8, Global).unwrap(),
                true,
            ),
            R::Dictionary(Box::new(R::Int16), Box::new(R::Utf8)),
        ),
        (
            D::Dictionary(
                IndexType::UInt32,
                SharedBox::try_new_in(D::LargeUtf8, Global).unwrap(),
                false,
            ),
            R::Dictionary(Box::new(R::UInt32), Box::new(R::LargeUtf8)),
        ),
        (
            D::RunEndEncoded(
                boxed(Field::new("run_ends", D::Int32, false)),
                boxed(Field::new("values", D::Utf8, true)),
            ),
            R::RunEndEncoded(
                Arc::new(RsField::new("run_ends", R::Int32, false)),
                Arc::new(RsField::new("values", R::Utf8, true)),
            ),
        ),
    ];
    let mut out = Vec::new();
    for (i, (ours, theirs)) in types.into_iter().enumerate() {
        let nullable = i % 3 != 0;
        let ordered = matches!(ours, D::Dictionary(_, _, true));
        out.push((
            Field::new("column", ours, nullable),
            RsField::new("column", theirs, nullable).with_dict_is_ordered(ordered),
        ));
    }
    // An extension type: its name and parameters travel in the metadata.
    let md = [
        ("ARROW:extension:name", "arrow.uuid"),
        ("ARROW:extension:metadata", ""),
    ];
    let ours = Field::new("id", D::FixedSizeBinary(16), false).with_metadata(
        SharedSlice::try_from_iter_in(
            md.iter()
                .map(|&(k, v)| (SharedStr::borrowed(k), SharedStr::borrowed(v))),
            Global,
        )
        .unwrap(),
    );
    let theirs = RsField::new("id", R::FixedSizeBinary(16), false).with_metadata(
        md.iter()
            .map(|&(k, v)| (k.to_string(), v.to_string()))
            .collect::<HashMap<_, _>>(),
    );
    out.push((ours, theirs));
    out
}

/// `f` with its metadata sorted by key (arrow-rs keeps metadata in a
/// `HashMap`, so its order is arbitrary; the interface keeps the order).
fn sorted(f: F) -> F {
    let mut md: Vec<_> = f.metadata().iter().cloned().collect();
    md.sort_by(|a, b| a.0.as_str().cmp(b.0.as_str()));
    let md = SharedSlice::try_from_iter_in(md, Global).unwrap();
    // The interface carries no dictionary ids (the import numbers them).
    F::from_parts(
        f.name_shared().clone(),
        f.data_type().clone(),
        f.is_nullable(),
        md,
        None,
    )
}

/// arrow-rs's view of a struct of ours: the same memory, the same layout.
fn as_rs(s: &FFI_ArrowSchema) -> &RsFfiSchema {
    // SAFETY: both types are `repr(C)` structs of the specification's nine
    // fields in the same order and types (checked by size below).
    unsafe { &*ptr::from_ref(s).cast::<RsFfiSchema>() }
}

/// Our view of a struct of arrow-rs's.
fn as_ours(s: &RsFfiSchema) -> &FFI_ArrowSchema {
    // SAFETY: as in `as_rs`.
    unsafe { &*ptr::from_ref(s).cast::<FFI_ArrowSchema>() }
}

#[test]
fn the_structs_have_one_layout() {
    assert_eq!(size_of::<FFI_ArrowSchema>(), size_of::<RsFfiSchema>());
    assert_eq!(size_of::<FFI_ArrowSchema>(), 72);
    assert_eq!(align_of::<FFI_ArrowSchema>(), align_of::<RsFfiSchema>());
}

#[test]
fn arrow_rs_reads_what_alkaid_exports() {
    for (ours, theirs) in cases() {
        let exported = FFI_ArrowSchema::try_from_field(&ours).unwrap();
        let got = RsField::try_from(as_rs(&exported)).unwrap();
        assert_eq!(got, theirs, "{:?}", ours.data_type());
        assert_eq!(got.dict_is_ordered(), theirs.dict_is_ordered());
        assert_eq!(
            RsType::try_from(as_rs(&exported)).unwrap(),
            *theirs.data_type()
        );
    }
}

#[test]
fn alkaid_reads_what_arrow_rs_exports() {
    for (ours, theirs) in cases() {
        let exported = RsFfiSchema::try_from(&theirs).unwrap();
        // SAFETY: a struct arrow-rs exported, alive for the call.
        let got = unsafe { import_field(as_ours(&exported)) }.unwrap();
        assert_eq!(sorted(got), sorted(ours), "{:?}", theirs.data_type());
    }
}

#[test]
fn schemas_cross_with_their_metadata() {
    let (ours, theirs): (Vec<F>, Vec<RsField>) = cases().into_iter().unzip();
    let ours = Schema::new(fields(ours)).with_metadata(
        SharedSlice::try_from_iter_in(
            [(
                SharedStr::borrowed("origin"),
                SharedStr::borrowed("sensor 7"),
            )],
            Global,
        )
        .unwrap(),
    );
    let theirs = RsSchema::new(theirs).with_metadata(HashMap::from([(
        "origin".to_string(),
        "sensor 7".to_string(),
    )]));
    let exported = FFI_ArrowSchema::try_from_schema(&ours).unwrap();
    assert_eq!(RsSchema::try_from(as_rs(&exported)).unwrap(), theirs);
    let exported = RsFfiSchema::try_from(&theirs).unwrap();
    // SAFETY: a struct arrow-rs exported.
    let got = unsafe { import_schema(as_ours(&exported)) }.unwrap();
    assert_eq!(got.metadata(), ours.metadata());
    assert_eq!(got.fields().len(), ours.fields().len());
    for (g, o) in got.fields().iter().zip(ours.fields().iter()) {
        assert_eq!(sorted(g.clone()), sorted(o.clone()));
    }
}

/// `Global` with a count of the bytes alive (shared by clones).
#[derive(Clone, Debug, Default)]
struct Counting(Arc<AtomicIsize>);

// SAFETY: forwards to `Global`.
unsafe impl Allocator for Counting {
    fn allocate(&self, layout: Layout) -> Result<NonNull<[u8]>, AllocError> {
        let p = Global.allocate(layout)?;
        self.0.fetch_add(layout.size() as isize, Ordering::Relaxed);
        Ok(p)
    }

    unsafe fn deallocate(&self, ptr: NonNull<u8>, layout: Layout) {
        self.0.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: allocated by `Global` with `layout`.
        unsafe { Global.deallocate(ptr, layout) }
    }
}

#[test]
fn ownership_moves_across_and_each_release_runs() {
    for (ours, theirs) in cases() {
        // alkaid → arrow-rs: arrow-rs's `Drop` calls our `release`.
        let alloc = Counting::default();
        let ours_counted = {
            let exported = FFI_ArrowSchema::try_from_field(&ours).unwrap();
            // SAFETY: our own export; re-imported into the counting allocator.
            unsafe { import_field_in(&exported, alloc.clone()) }.unwrap()
        };
        let live = alloc.0.load(Ordering::Relaxed);
        let exported = FFI_ArrowSchema::try_from_field_in(&ours_counted, alloc.clone()).unwrap();
        assert!(alloc.0.load(Ordering::Relaxed) > live);
        // SAFETY: moved out bit for bit; the original is forgotten, so the
        // struct is released once, by arrow-rs.
        let moved: RsFfiSchema = unsafe { ptr::read(ptr::from_ref(as_rs(&exported))) };
        std::mem::forget(exported);
        assert_eq!(RsField::try_from(&moved).unwrap(), theirs);
        drop(moved);
        assert_eq!(alloc.0.load(Ordering::Relaxed), live);
        drop(ours_counted);
        assert_eq!(alloc.0.load(Ordering::Relaxed), 0);

        // arrow-rs → alkaid: our `Drop` calls arrow-rs's `release`, which
        // marks the struct released (arrow-rs's callback nulls `release`).
        let exported = RsFfiSchema::try_from(&theirs).unwrap();
        // SAFETY: as above, the other way.
        let mut moved: FFI_ArrowSchema = unsafe { ptr::read(ptr::from_ref(as_ours(&exported))) };
        std::mem::forget(exported);
        // SAFETY: a complete struct, ours now.
        let got = unsafe { import_field(&moved) }.unwrap();
        assert_eq!(sorted(got), sorted(ours));
        let release = moved.release.unwrap();
        // SAFETY: released once, here; `Drop` then sees it released.
        unsafe { release(&mut moved) };
        assert!(moved.is_released());
    }
}
