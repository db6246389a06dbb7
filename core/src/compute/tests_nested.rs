//! Tests of [`super::concat`] for the nested layouts: every result is
//! checked at Full level and slot by slot against the inputs' slots
//! ([`concat_checked`]); the exact rebuilt buffers (offsets, type ids, keys,
//! run ends) are asserted too.

use std::format;
use std::string::String;
use std::vec::Vec;

use crate::Global;
use allocator_api2::alloc::Allocator;

use super::concat;
use super::tests::{concat_checked, slots};
use crate::array::{
    Array, ArrayRef, DictionaryArray, DictionaryKeys, FixedSizeListBuilder, GenericListBuilder,
    GenericListViewBuilder, ListArray, ListOffsetSize, MapBuilder, NullArray, PrimitiveArray,
    PrimitiveBuilder, RunArray, RunEnds, StringArray, StringBuilder, StructArray, UnionArray,
};
use crate::buffer::{OffsetBuffer, ScalarBuffer, SharedBox, SharedSlice};
use crate::datatypes::{DataType, Field, UnionFields, UnionMode};
use crate::error::{Error, Result};
use crate::test_support::{check_every_failure, counting, TestAlloc};

type Lists<'s> = &'s [Option<&'s [i32]>];

pub(super) fn list<O: ListOffsetSize, A: Allocator + Clone>(
    v: Lists<'_>,
    alloc: A,
) -> ArrayRef<'static, A> {
    let child = PrimitiveBuilder::<i32, A>::new_in(alloc.clone());
    let mut b = GenericListBuilder::<O, _, A>::new_in(child, alloc);
    for l in v {
        b.values().try_append_slice(l.unwrap_or(&[])).unwrap();
        b.try_append(l.is_some()).unwrap();
    }
    b.try_finish().unwrap().into_array_ref()
}

pub(super) fn strings<A: Allocator + Clone>(v: &[Option<&str>], alloc: A) -> ArrayRef<'static, A> {
    StringArray::<A>::try_from_options_in(v, alloc)
        .unwrap()
        .into_array_ref()
}

pub(super) fn ints<A: Allocator + Clone>(v: &[Option<i32>], alloc: A) -> ArrayRef<'static, A> {
    PrimitiveArray::<i32, A>::try_from_options_in(v, alloc)
        .unwrap()
        .into_array_ref()
}

#[test]
fn list_rebases_offsets_and_copies_child_ranges() {
    let a = list::<i32, _>(&[Some(&[1, 2]), None, Some(&[3])], Global);
    let b = list::<i32, _>(
        &[Some(&[4]), Some(&[]), Some(&[5, 6, 7]), Some(&[8])],
        Global,
    );
    let r = concat_checked(
        &[&a, &b.slice(1, 2).unwrap(), &a.slice(2, 1).unwrap()],
        Global,
    );
    let ArrayRef::List(l) = &r else { panic!() };
    assert_eq!(l.value_offsets(), &[0, 2, 2, 3, 3, 6, 7]);
    assert_eq!(slots(l.values()), ["1", "2", "3", "5", "6", "7", "3"]);
    assert_eq!(slots(&r)[1], "null");
    let la = list::<i64, _>(&[Some(&[9]), None], Global);
    let r = concat_checked(&[&la, &la.slice(1, 1).unwrap(), &la], Global);
    let ArrayRef::LargeList(l) = &r else { panic!() };
    assert_eq!(l.value_offsets(), &[0i64, 1, 1, 1, 2, 2]);
}

#[test]
fn list_of_lists_recurses() {
    let inner = PrimitiveBuilder::<i8, Global>::new_in(Global);
    let mid = GenericListBuilder::<i32, _, Global>::new_in(inner, Global);
    let mut b = GenericListBuilder::<i32, _, Global>::new_in(mid, Global);
    for (outer, lists) in [(true, 2), (false, 0), (true, 1), (true, 3)] {
        for k in 0..lists {
            b.values()
                .values()
                .try_append_slice(&[k as i8; 2][..k])
                .unwrap();
            b.values().try_append(k != 1).unwrap();
        }
        b.try_append(outer).unwrap();
    }
    let a = b.try_finish().unwrap().into_array_ref();
    concat_checked(
        &[&a.slice(2, 2).unwrap(), &a, &a.slice(1, 1).unwrap()],
        Global,
    );
}

#[test]
fn list_view_shifts_offsets_by_whole_children() {
    let mut b = GenericListViewBuilder::<i32, _, Global>::new_in(
        PrimitiveBuilder::<i32, Global>::new_in(Global),
        Global,
    );
    b.values().try_append_slice(&[1, 2, 3, 4]).unwrap();
    // Out of order and overlapping: [3, 4], null, [1, 2, 3], [2].
    b.try_append_view(2, 2, true).unwrap();
    b.try_append_view(0, 0, false).unwrap();
    b.try_append_view(0, 3, true).unwrap();
    b.try_append_view(1, 1, true).unwrap();
    let a = b.try_finish().unwrap().into_array_ref();
    let r = concat_checked(&[&a.slice(2, 2).unwrap(), &a], Global);
    let ArrayRef::ListView(v) = &r else { panic!() };
    assert_eq!(v.value_offsets(), &[0, 1, 6, 4, 4, 5]);
    assert_eq!(v.value_sizes(), &[3, 1, 2, 0, 3, 1]);
    assert_eq!(v.values().len(), 8);
    let mut b = GenericListViewBuilder::<i64, _, Global>::new_in(
        PrimitiveBuilder::<i32, Global>::new_in(Global),
        Global,
    );
    b.values().try_append_slice(&[7, 8]).unwrap();
    b.try_append(true).unwrap();
    b.try_append_null().unwrap();
    let a = b.try_finish().unwrap().into_array_ref();
    concat_checked(&[&a, &a.slice(1, 1).unwrap(), &a], Global);
}

#[test]
fn fixed_size_list_slices_children() {
    let mut b =
        FixedSizeListBuilder::new_in(PrimitiveBuilder::<i16, Global>::new_in(Global), 2, Global);
    for (i, valid) in [true, false, true, true].into_iter().enumerate() {
        if valid {
            b.values()
                .try_append_slice(&[i as i16, -(i as i16)])
                .unwrap();
            b.try_append(true).unwrap();
        } else {
            b.try_append_null().unwrap();
        }
    }
    let a = b.try_finish().unwrap().into_array_ref();
    let r = concat_checked(
        &[&a.slice(1, 2).unwrap(), &a.slice(3, 1).unwrap(), &a],
        Global,
    );
    let ArrayRef::FixedSizeList(f) = &r else {
        panic!()
    };
    assert_eq!((f.len(), f.offset(), f.values().len()), (7, 0, 14));
    assert_eq!(r.null_count(), 2);
}

pub(super) fn struct_of<A: Allocator + Clone>(n: usize, alloc: A) -> ArrayRef<'static, A> {
    let ids: Vec<Option<i32>> = (0..n as i32).map(|i| (i % 3 != 1).then_some(i)).collect();
    let names: Vec<String> = (0..n).map(|i| format!("n{i}")).collect();
    let names: Vec<Option<&str>> = names.iter().map(|s| Some(s.as_str())).collect();
    let fields = SharedSlice::try_from_iter_in(
        [
            Field::new("id", DataType::Int32, true),
            Field::new("name", DataType::Utf8, true),
        ],
        alloc.clone(),
    )
    .unwrap();
    let children = SharedSlice::try_from_iter_in(
        [ints(&ids, alloc.clone()), strings(&names, alloc.clone())],
        alloc.clone(),
    )
    .unwrap();
    let valid: Vec<Option<i32>> = (0..n).map(|i| (i % 4 != 2).then_some(0)).collect();
    let nulls = PrimitiveArray::<i32, A>::try_from_options_in(&valid, alloc)
        .unwrap()
        .nulls()
        .cloned();
    StructArray::try_new(fields, children, nulls)
        .unwrap()
        .into_array_ref()
}

#[test]
fn struct_concatenates_each_column_over_its_view() {
    let a = struct_of(6, Global);
    let s = a.slice(2, 3).unwrap();
    let r = concat_checked(&[&s, &a, &s.slice(1, 1).unwrap()], Global);
    let ArrayRef::Struct(st) = &r else { panic!() };
    assert_eq!((st.len(), st.offset()), (10, 0));
    assert!(st.children().iter().all(|c| c.len() == 10));
    assert_eq!(
        slots(&st.children()[1])[..4],
        ["\"n2\"", "\"n3\"", "\"n4\"", "\"n0\""]
    );
    assert_eq!(r.null_count(), 2);
    // A struct without fields.
    let e = StructArray::<Global>::try_new_with_len(
        SharedSlice::empty(),
        SharedSlice::empty(),
        3,
        None,
    )
    .unwrap()
    .into_array_ref();
    let r = concat_checked(&[&e, &e.slice(1, 1).unwrap()], Global);
    assert_eq!(r.len(), 4);
}

pub(super) fn map_of<A: Allocator + Clone>(alloc: A) -> ArrayRef<'static, A> {
    let mut b = MapBuilder::new_in(
        StringBuilder::new_in(alloc.clone()),
        PrimitiveBuilder::<i32, A>::new_in(alloc.clone()),
        alloc,
    );
    for (i, n) in [2, 0, 1, 3].into_iter().enumerate() {
        for k in 0..n {
            b.keys().try_append_value(&format!("k{k}")).unwrap();
            b.values()
                .try_append_option((k != 1).then_some(i as i32))
                .unwrap();
        }
        b.try_append(i != 1).unwrap();
    }
    b.try_finish().unwrap().into_array_ref()
}

#[test]
fn map_rebases_offsets_over_entries() {
    let a = map_of(Global);
    let r = concat_checked(
        &[&a.slice(2, 2).unwrap(), &a, &a.slice(0, 1).unwrap()],
        Global,
    );
    let ArrayRef::Map(m) = &r else { panic!() };
    assert_eq!(m.value_offsets(), &[0, 1, 4, 6, 6, 7, 10, 12]);
    assert_eq!(m.entries().unwrap().len(), 12);
}

/// `Union<i: Int32 = 5, s: Utf8 = 2>`.
fn union_fields<A: Allocator + Clone>(alloc: A) -> UnionFields<'static, A> {
    let fields = SharedSlice::try_from_iter_in(
        [
            Field::new("i", DataType::Int32, true),
            Field::new("s", DataType::Utf8, true),
        ],
        alloc.clone(),
    )
    .unwrap();
    UnionFields::try_new(
        SharedSlice::try_from_slice_in(&[5, 2], alloc).unwrap(),
        fields,
    )
    .unwrap()
}

pub(super) fn sparse<A: Allocator + Clone>(alloc: A) -> ArrayRef<'static, A> {
    let i = ints(&[Some(1), None, None, Some(4)], alloc.clone());
    let s = strings(&[None, Some("b"), None, None], alloc.clone());
    let children = SharedSlice::try_from_iter_in([i, s], alloc.clone()).unwrap();
    let ids = ScalarBuffer::try_copy_in(&[5, 2, 2, 5], alloc.clone()).unwrap();
    UnionArray::try_new(union_fields(alloc), UnionMode::Sparse, ids, None, children)
        .unwrap()
        .into_array_ref()
}

pub(super) fn dense<A: Allocator + Clone>(alloc: A) -> ArrayRef<'static, A> {
    let i = ints(&[Some(1), Some(4), None], alloc.clone());
    let s = strings(&[Some("b"), None], alloc.clone());
    let children = SharedSlice::try_from_iter_in([i, s], alloc.clone()).unwrap();
    let ids = ScalarBuffer::try_copy_in(&[5, 2, 5, 2, 5], alloc.clone()).unwrap();
    let offsets = ScalarBuffer::try_copy_in(&[0, 0, 1, 1, 2], alloc.clone()).unwrap();
    UnionArray::try_new(
        union_fields(alloc),
        UnionMode::Dense,
        ids,
        Some(offsets),
        children,
    )
    .unwrap()
    .into_array_ref()
}

#[test]
fn sparse_union_concatenates_children_over_each_view() {
    let a = sparse(Global);
    let r = concat_checked(&[&a.slice(1, 3).unwrap(), &a], Global);
    let ArrayRef::Union(u) = &r else { panic!() };
    assert_eq!(u.type_ids(), &[2, 2, 5, 5, 2, 2, 5]);
    assert_eq!((u.child_offset(), u.children()[0].len()), (0, 7));
    assert_eq!(
        slots(&r),
        ["2:\"b\"", "2:null", "5:4", "5:1", "2:\"b\"", "2:null", "5:4"]
    );
}

#[test]
fn dense_union_shifts_offsets_per_child() {
    let a = dense(Global);
    let r = concat_checked(
        &[&a, &a.slice(2, 3).unwrap(), &a.slice(1, 1).unwrap()],
        Global,
    );
    let ArrayRef::Union(u) = &r else { panic!() };
    assert_eq!(u.type_ids(), &[5, 2, 5, 2, 5, 5, 2, 5, 2]);
    assert_eq!(u.offsets().unwrap(), &[0, 0, 1, 1, 2, 4, 3, 5, 4]);
    assert_eq!(u.children()[0].len(), 9);
    assert_eq!(u.children()[1].len(), 6);
}

pub(super) fn dictionary<A: Allocator + Clone>(
    keys: &[Option<i8>],
    values: &[Option<&str>],
    alloc: A,
) -> ArrayRef<'static, A> {
    let keys = PrimitiveArray::<i8, A>::try_from_options_in(keys, alloc.clone()).unwrap();
    let values = strings(values, alloc.clone());
    DictionaryArray::try_new_in(DictionaryKeys::Int8(keys), values, false, alloc)
        .unwrap()
        .into_array_ref()
}

#[test]
fn dictionary_with_shared_values_keeps_them() {
    let a = dictionary(
        &[Some(1), None, Some(0), Some(1)],
        &[Some("x"), Some("y")],
        Global,
    );
    let r = concat_checked(&[&a.slice(1, 3).unwrap(), &a], Global);
    let (ArrayRef::Dictionary(d), ArrayRef::Dictionary(da)) = (&r, &a) else {
        panic!()
    };
    assert!(d.values_shared().ptr_eq(da.values_shared()));
    let DictionaryKeys::Int8(k) = d.keys() else {
        panic!()
    };
    assert_eq!(k.values(), &[0, 0, 1, 1, 0, 0, 1]);
    assert_eq!(r.null_count(), 2);
}

#[test]
fn dictionary_with_different_values_shifts_keys() {
    let a = dictionary(&[Some(1), None, Some(0)], &[Some("x"), Some("y")], Global);
    let b = dictionary(
        &[Some(2), Some(0), Some(1)],
        &[Some("p"), None, Some("q")],
        Global,
    );
    let r = concat_checked(
        &[&a, &b.slice(1, 2).unwrap(), &a.slice(2, 1).unwrap()],
        Global,
    );
    let ArrayRef::Dictionary(d) = &r else {
        panic!()
    };
    assert_eq!(
        slots(d.values()),
        ["\"x\"", "\"y\"", "\"p\"", "null", "\"q\"", "\"x\"", "\"y\""]
    );
    let DictionaryKeys::Int8(k) = d.keys() else {
        panic!()
    };
    assert_eq!(k.values(), &[1, 0, 0, 2, 3, 5]);
    assert_eq!(
        slots(&r),
        ["\"y\"", "null", "\"x\"", "\"p\"", "null", "\"x\""]
    );
}

#[test]
fn dictionary_keys_must_fit_the_key_type() {
    let names: Vec<String> = (0..100).map(|i| format!("v{i}")).collect();
    let names: Vec<Option<&str>> = names.iter().map(|s| Some(s.as_str())).collect();
    let a = dictionary(&[Some(99)], &names, Global);
    let b = dictionary(&[Some(27), None], &names, Global);
    // 100 + 27 = 127 still fits `i8`; 100 + 99 does not.
    concat_checked(&[&a, &b], Global);
    let c = dictionary(&[Some(99)], &names, Global);
    assert_eq!(
        concat(&[&a, &c], Global).unwrap_err(),
        Error::CapacityOverflow
    );
}

pub(super) fn runs<A: Allocator + Clone>(alloc: A) -> ArrayRef<'static, A> {
    // ["a", "a", null, null, null, "c"]
    let ends =
        PrimitiveArray::<i32, A>::try_from_options_in(&[Some(2), Some(5), Some(6)], alloc.clone())
            .unwrap();
    let values = strings(&[Some("a"), None, Some("c")], alloc.clone());
    RunArray::try_new_in(RunEnds::Int32(ends), values, alloc)
        .unwrap()
        .into_array_ref()
}

#[test]
fn run_end_encoded_honours_slices() {
    let a = runs(Global);
    let r = concat_checked(
        &[
            &a.slice(1, 3).unwrap(),
            &a,
            &a.slice(5, 1).unwrap(),
            &a.slice(3, 0).unwrap(),
        ],
        Global,
    );
    let ArrayRef::RunEndEncoded(re) = &r else {
        panic!()
    };
    let RunEnds::Int32(ends) = re.run_ends() else {
        panic!()
    };
    assert_eq!(ends.values(), &[1, 3, 5, 8, 9, 10]);
    assert_eq!(
        slots(re.values()),
        ["\"a\"", "null", "\"a\"", "null", "\"c\"", "\"c\""]
    );
    assert_eq!((re.offset(), re.len()), (0, 10));
}

#[test]
fn run_ends_must_fit_their_type() {
    let ends = PrimitiveArray::<i16, Global>::from_slice(&[20_000]);
    let values = ints(&[Some(1)], Global);
    let a = RunArray::try_new_in(RunEnds::Int16(ends), values, Global)
        .unwrap()
        .into_array_ref();
    concat_checked(&[&a, &a.slice(0, 12_767).unwrap()], Global);
    assert_eq!(
        concat(&[&a, &a], Global).unwrap_err(),
        Error::CapacityOverflow
    );
}

#[test]
fn list_child_length_must_fit_the_offsets() {
    // `List<Null>` costs no memory for its child, so a child of `i32::MAX`
    // elements is cheap; two of them do not fit `i32` offsets.
    static OFFSETS: [i32; 2] = [0, i32::MAX];
    let field = SharedBox::try_new_in(Field::new("item", DataType::Null, true), Global).unwrap();
    let child = NullArray::<Global>::new(i32::MAX as usize).into_array_ref();
    let offsets = OffsetBuffer::try_new(ScalarBuffer::from_slice_ref(&OFFSETS)).unwrap();
    let a = ListArray::try_new_in(field, offsets, child, None, Global)
        .unwrap()
        .into_array_ref();
    assert_eq!(
        concat(&[&a, &a], Global).unwrap_err(),
        Error::CapacityOverflow
    );
    // (Not rendered: the child has `i32::MAX` slots.)
    let r = concat(&[&a, &a.slice(1, 0).unwrap()], Global).unwrap();
    r.validate(crate::array::ValidationLevel::Full).unwrap();
    let ArrayRef::List(l) = &r else { panic!() };
    assert_eq!(l.value_offsets(), &[0, i32::MAX]);
}

#[test]
fn nested_type_mismatch() {
    let a = list::<i32, _>(&[Some(&[1])], Global);
    let b = list::<i64, _>(&[Some(&[1])], Global);
    assert_eq!(concat(&[&a, &b], Global).unwrap_err(), Error::TypeMismatch);
    let d1 = dictionary(&[Some(0)], &[Some("x")], Global);
    let keys = PrimitiveArray::<i8, Global>::from_slice(&[0]);
    let d2 = DictionaryArray::try_new_in(
        DictionaryKeys::Int8(keys),
        ints(&[Some(1)], Global),
        false,
        Global,
    )
    .unwrap()
    .into_array_ref();
    assert_eq!(
        concat(&[&d1, &d2], Global).unwrap_err(),
        Error::TypeMismatch
    );
    assert_eq!(
        concat(&[&sparse(Global), &dense(Global)], Global).unwrap_err(),
        Error::TypeMismatch
    );
}

#[test]
fn allocation_failures_nested() {
    type Build = fn(TestAlloc) -> ArrayRef<'static, TestAlloc>;
    let builders: [Build; 8] = [
        |a| list::<i32, _>(&[Some(&[1, 2]), None, Some(&[3])], a),
        |a| list::<i64, _>(&[Some(&[1]), Some(&[])], a),
        |a| struct_of(5, a),
        map_of,
        sparse,
        dense,
        |a| dictionary(&[Some(1), None, Some(0)], &[Some("x"), Some("y")], a),
        runs,
    ];
    for build in builders {
        let a = build(counting());
        let b = build(counting());
        let f = |alloc: TestAlloc| -> Result<ArrayRef<'static, TestAlloc>> {
            concat(&[&a.slice(1, a.len() - 1)?, &b, &a], alloc)
        };
        let n = check_every_failure(f);
        assert!(n >= 3, "{n} allocations for {:?}", a.data_type());
    }
    // Shared dictionary values.
    let d = dictionary(&[Some(1), None], &[Some("x"), Some("y")], counting());
    check_every_failure(|f| concat(&[&d, &d.slice(1, 1)?], f));
}
