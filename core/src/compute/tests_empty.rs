//! Tests of [`super::new_empty`] and [`super::new_null`] over a list of data
//! types covering every variant of [`DataType`] (and so every layout), and
//! of [`super::concat`] over their results.

use std::vec::Vec;

use crate::Global;
use allocator_api2::alloc::Allocator;

use super::tests::{concat_checked, slots};
use super::{concat, new_empty, new_null};
use crate::array::{Array, ArrayRef, ValidationLevel};
use crate::buffer::{SharedBox, SharedSlice, SharedStr};
use crate::datatypes::{DataType, Field, FieldRef, IndexType, TimeUnit, UnionFields, UnionMode};
use crate::error::Error;
use crate::test_support::{check_every_failure, counting, TestAlloc};
use crate::test_types::leaf_types;

fn field<'a, A: Allocator + Clone>(
    name: &'a str,
    dt: DataType<'a, A>,
    nullable: bool,
    alloc: &A,
) -> FieldRef<'a, A> {
    SharedBox::try_new_in(Field::new(name, dt, nullable), alloc.clone()).unwrap()
}

fn union<'a, A: Allocator + Clone>(mode: UnionMode, ids: &[i8], alloc: &A) -> DataType<'a, A> {
    let fields = SharedSlice::try_from_iter_in(
        [
            Field::new("i", DataType::Int32, true),
            Field::new("s", DataType::Utf8, true),
            Field::new("n", DataType::Null, true),
        ],
        alloc.clone(),
    )
    .unwrap();
    let ids = SharedSlice::try_from_slice_in(ids, alloc.clone()).unwrap();
    DataType::Union(UnionFields::try_new(ids, fields).unwrap(), mode)
}

/// One data type per variant of [`DataType`] (more for the nested ones).
pub(crate) fn all_types<'a, A: Allocator + Clone>(alloc: &A) -> Vec<DataType<'a, A>> {
    use DataType::*;
    let f = |name, dt, nullable| field(name, dt, nullable, alloc);
    let tz = SharedStr::try_from_str_in("+01:00", alloc.clone()).unwrap();
    let map_entries = |k: DataType<'a, A>, v: DataType<'a, A>| {
        let kv = SharedSlice::try_from_iter_in(
            [Field::new("key", k, false), Field::new("value", v, true)],
            alloc.clone(),
        )
        .unwrap();
        f("entries", Struct(kv), false)
    };
    let strukt = Struct(
        SharedSlice::try_from_iter_in(
            [
                Field::new("a", Int64, true),
                Field::new("b", Utf8View, true),
                Field::new("c", List(f("item", Boolean, true)), true),
                Field::new("d", FixedSizeList(f("item", Float16, true), 2), false),
            ],
            alloc.clone(),
        )
        .unwrap(),
    );
    let value_type = |dt| SharedBox::try_new_in(dt, alloc.clone()).unwrap();
    let mut types = std::vec![Null];
    types.extend(leaf_types());
    types.extend([
        Decimal64(18, -3),
        Decimal128(38, 10),
        Decimal256(76, 0),
        Timestamp(TimeUnit::Microsecond, Some(tz)),
        Timestamp(TimeUnit::Second, None),
        FixedSizeBinary(5),
        FixedSizeBinary(0),
        List(f("item", Int32, true)),
        LargeList(f("item", Utf8, false)),
        ListView(f("item", Int8, true)),
        LargeListView(f("item", Decimal128(10, 2), true)),
        FixedSizeList(f("item", Int16, true), 3),
        FixedSizeList(f("item", List(f("x", UInt8, true)), true), 0),
        strukt.clone(),
        Struct(SharedSlice::empty()),
        List(f("s", strukt, true)),
        Map(map_entries(Utf8, Int32), false),
        Map(map_entries(Int32, List(f("item", Utf8, true))), true),
        union(UnionMode::Sparse, &[5, 2, 0], alloc),
        union(UnionMode::Sparse, &[0, 1, 2], alloc),
        union(UnionMode::Dense, &[3, 1, 2], alloc),
        Dictionary(IndexType::Int8, value_type(Utf8), false),
        Dictionary(
            IndexType::UInt16,
            value_type(List(f("item", Int32, true))),
            true,
        ),
        Dictionary(IndexType::Int64, value_type(Float64), false),
        Dictionary(IndexType::UInt64, value_type(Boolean), false),
        RunEndEncoded(f("run_ends", Int16, false), f("values", Utf8, true)),
        RunEndEncoded(f("run_ends", Int32, false), f("values", Float32, true)),
        RunEndEncoded(
            f("run_ends", Int64, false),
            f("values", List(f("item", Int8, true)), true),
        ),
    ]);
    types
}

/// `true` when slot `i` of `a` is null for its layout (the validity bitmap,
/// or the child value a union or run selects).
fn logically_null<A: Allocator>(a: &ArrayRef<'_, A>, i: usize) -> bool {
    match a {
        ArrayRef::Union(u) => u.is_logically_null(i),
        ArrayRef::RunEndEncoded(r) => r.is_logically_null(i),
        ArrayRef::Dictionary(d) => d.is_logically_null(i),
        a => a.is_null(i),
    }
}

#[test]
fn new_empty_of_every_type() {
    for dt in all_types(&Global) {
        let a = new_empty(&dt, Global).unwrap();
        assert_eq!(a.data_type(), &dt);
        assert_eq!((a.len(), a.null_count()), (0, 0), "{dt:?}");
        assert!(a.nulls().is_none());
        a.validate(ValidationLevel::Full).unwrap();
    }
}

#[test]
fn new_null_of_every_type() {
    for dt in all_types(&Global) {
        for len in [0, 1, 5, 70] {
            let a = new_null(&dt, len, Global).unwrap();
            assert_eq!(a.data_type(), &dt);
            assert_eq!(a.len(), len);
            a.validate(ValidationLevel::Full).unwrap();
            let bitmap = !matches!(a, ArrayRef::Union(_) | ArrayRef::RunEndEncoded(_));
            assert_eq!(a.null_count(), if bitmap { len } else { 0 }, "{dt:?}");
            assert!((0..len).all(|i| logically_null(&a, i)), "{dt:?}");
            assert!(slots(&a)
                .iter()
                .all(|s| s == "null" || s.ends_with(":null")));
        }
    }
}

#[test]
fn new_null_layout_details() {
    let dt = all_types::<Global>(&Global);
    let find = |pred: fn(&DataType<'_, Global>) -> bool| dt.iter().find(|d| pred(d)).unwrap();
    // Sparse: the first declared type id everywhere, children of `len` nulls.
    let s = new_null(
        find(|d| matches!(d, DataType::Union(_, UnionMode::Sparse))),
        3,
        Global,
    );
    let ArrayRef::Union(u) = s.unwrap() else {
        panic!()
    };
    assert_eq!(u.type_ids(), &[5, 5, 5]);
    assert!(u
        .children()
        .iter()
        .all(|c| c.len() == 3 && c.null_count() == 3));
    // Dense: all to the first child, offsets 0..len.
    let d = new_null(
        find(|d| matches!(d, DataType::Union(_, UnionMode::Dense))),
        4,
        Global,
    );
    let ArrayRef::Union(u) = d.unwrap() else {
        panic!()
    };
    assert_eq!(
        (u.type_ids(), u.offsets().unwrap()),
        (&[3i8; 4][..], &[0, 1, 2, 3][..])
    );
    assert_eq!(
        u.children().iter().map(|c| c.len()).collect::<Vec<_>>(),
        [4, 0, 0]
    );
    // Run-end encoded: one run over one null value.
    let r = new_null(
        find(|d| matches!(d, DataType::RunEndEncoded(..))),
        9,
        Global,
    );
    let ArrayRef::RunEndEncoded(r) = r.unwrap() else {
        panic!()
    };
    assert_eq!((r.run_ends().len(), r.run_ends().get(0)), (1, Some(9)));
    assert_eq!((r.values().len(), r.values().null_count()), (1, 1));
    // Fixed-size list: a child of `len * size` nulls.
    let f = new_null(
        find(|d| matches!(d, DataType::FixedSizeList(_, 3))),
        4,
        Global,
    );
    let ArrayRef::FixedSizeList(f) = f.unwrap() else {
        panic!()
    };
    assert_eq!((f.values().len(), f.values().null_count()), (12, 12));
    // Lists: zero offsets, empty child.
    let l = new_null(find(|d| matches!(d, DataType::List(_))), 3, Global).unwrap();
    let ArrayRef::List(l) = l else { panic!() };
    assert_eq!(
        (l.value_offsets(), l.values().len()),
        (&[0, 0, 0, 0][..], 0)
    );
    // Dictionary: null keys over an empty dictionary.
    let k = new_null(find(|d| matches!(d, DataType::Dictionary(..))), 3, Global).unwrap();
    let ArrayRef::Dictionary(k) = k else { panic!() };
    assert_eq!((k.keys().null_count(), k.values().len()), (3, 0));
}

#[test]
fn allocations_are_few() {
    let count = |f: &dyn Fn(TestAlloc) -> crate::Result<ArrayRef<'static, TestAlloc>>| {
        let a = counting();
        let r = f(a.clone()).unwrap();
        r.validate(ValidationLevel::Full).unwrap();
        a.requests()
    };
    // Flat layouts: nothing for empty arrays; one zeroed buffer shared by
    // the values and the bitmap for nulls.
    for dt in [
        DataType::Int64,
        DataType::Utf8,
        DataType::Boolean,
        DataType::BinaryView,
    ] {
        assert_eq!(count(&|a| new_empty(&dt, a)), 0, "{dt:?}");
        assert_eq!(count(&|a| new_null(&dt, 100, a)), 1, "{dt:?}");
    }
    // A struct of two primitives: the shared zeros and the children slice.
    let u = counting();
    let fields = SharedSlice::try_from_iter_in(
        [
            Field::new("a", DataType::Int8, true),
            Field::new("b", DataType::Float64, true),
        ],
        u,
    )
    .unwrap();
    let st = DataType::Struct(fields);
    assert_eq!(count(&|a| new_null(&st, 10, a)), 2);
    assert_eq!(count(&|a| new_empty(&st, a)), 1);
}

#[test]
fn allocation_failures_of_every_type() {
    let u = counting();
    for dt in all_types(&u) {
        check_every_failure(|a| new_empty(&dt, a));
        check_every_failure(|a| new_null(&dt, 7, a));
    }
}

#[test]
fn concat_of_every_type() {
    for dt in all_types(&Global) {
        let n2 = new_null(&dt, 2, Global).unwrap();
        let n3 = new_null(&dt, 3, Global).unwrap();
        let e = new_empty(&dt, Global).unwrap();
        let r = concat_checked(&[&n2, &e, &n3.slice(1, 2).unwrap()], Global);
        assert_eq!(r.len(), 4);
        concat_checked(&[&e], Global);
    }
    let u = counting();
    for dt in all_types(&u) {
        let n = new_null(&dt, 3, u.clone()).unwrap();
        let e = new_empty(&dt, u.clone()).unwrap();
        check_every_failure(|a| concat(&[&n, &e, &n.slice(1, 1)?], a));
    }
}

#[test]
fn new_null_errors() {
    use DataType::*;
    let f = |name, dt, nullable| field(name, dt, nullable, &Global);
    let ree = RunEndEncoded(f("run_ends", Int16, false), f("values", Int8, true));
    assert!(new_null(&ree, 32_767, Global).is_ok());
    assert_eq!(
        new_null(&ree, 32_768, Global).unwrap_err(),
        Error::CapacityOverflow
    );
    let empty_union = DataType::<Global>::Union(
        UnionFields::try_new(SharedSlice::empty(), SharedSlice::empty()).unwrap(),
        UnionMode::Sparse,
    );
    assert!(new_empty(&empty_union, Global).is_ok());
    assert_eq!(
        new_null(&empty_union, 1, Global).unwrap_err(),
        Error::UnionTypeIdUndeclared
    );
    assert_eq!(
        new_empty(&Decimal128(0, 0), Global).unwrap_err(),
        Error::InvalidDataType
    );
    assert_eq!(
        new_null(&FixedSizeBinary(-1), 2, Global).unwrap_err(),
        Error::InvalidDataType
    );
    let bad_map = Map(f("entries", Int32, false), false);
    assert_eq!(
        new_null(&bad_map, 2, Global).unwrap_err(),
        Error::MapEntriesInvalid
    );
    assert_eq!(
        new_null(&Int32, usize::MAX / 2, Global).unwrap_err(),
        Error::CapacityOverflow
    );
}
