//! Unit tests of equality over the nested layouts.

use super::super::tests::{
    assert_different, assert_equal, assert_values_only, boxed, keys_i8, nulls, prim, strs, G, R,
};
use super::super::{logical_eq, values_equal};
use crate::array::{
    Array, DictionaryBuilder, FixedSizeListArray, FixedSizeListBuilder, LargeListBuilder,
    ListArray, ListBuilder, ListViewBuilder, MapBuilder, PrimitiveBuilder, StringBuilder,
    StructArray, StructBuilder,
};
use crate::buffer::{OffsetBuffer, ScalarBuffer, SharedSlice};
use crate::datatypes::{DataType, Field, FieldRef};
use crate::Global;

type Lists<'s> = &'s [Option<&'s [Option<i32>]>];

fn int_list(lists: Lists<'_>) -> R {
    let mut b = ListBuilder::new_in(PrimitiveBuilder::<i32, G>::new_in(Global), Global);
    for l in lists {
        for x in l.unwrap_or(&[]) {
            b.values().try_append_option(*x).unwrap();
        }
        b.try_append(l.is_some()).unwrap();
    }
    b.try_finish().unwrap().into_array_ref()
}

fn large_int_list(lists: Lists<'_>) -> R {
    let mut b = LargeListBuilder::new_in(PrimitiveBuilder::<i32, G>::new_in(Global), Global);
    for l in lists {
        for x in l.unwrap_or(&[]) {
            b.values().try_append_option(*x).unwrap();
        }
        b.try_append(l.is_some()).unwrap();
    }
    b.try_finish().unwrap().into_array_ref()
}

fn int_list_view(lists: Lists<'_>) -> R {
    let mut b = ListViewBuilder::new_in(PrimitiveBuilder::<i32, G>::new_in(Global), Global);
    for l in lists {
        for x in l.unwrap_or(&[]) {
            b.values().try_append_option(*x).unwrap();
        }
        b.try_append(l.is_some()).unwrap();
    }
    b.try_finish().unwrap().into_array_ref()
}

fn item_field(dt: DataType<'static, G>) -> FieldRef<'static, G> {
    FieldRef::try_new_in(Field::new("item", dt, true), Global).unwrap()
}

/// `[[1, 2], null, [], [3]]` as the builders make it.
const MODEL: Lists<'static> = &[Some(&[Some(1), Some(2)]), None, Some(&[]), Some(&[Some(3)])];

#[test]
fn lists_by_element_ranges() {
    let built = int_list(MODEL);
    // Offsets from 2 into a child with other elements, a null slot spanning
    // three elements.
    let child = prim(&[
        Some(9),
        Some(9),
        Some(1),
        Some(2),
        Some(5),
        None,
        Some(5),
        Some(3),
    ]);
    let offsets =
        OffsetBuffer::try_new(ScalarBuffer::try_copy_in(&[2i32, 4, 7, 7, 8], Global).unwrap())
            .unwrap();
    let odd = ListArray::try_new(
        item_field(DataType::Int32),
        offsets,
        boxed(child),
        nulls(&[true, false, true, true]),
    )
    .unwrap()
    .into_array_ref();
    assert_equal(&built, &odd);
    for start in 0..MODEL.len() {
        for len in 0..=MODEL.len() - start {
            let fresh = int_list(&MODEL[start..start + len]);
            assert_equal(&odd.slice(start, len).unwrap(), &fresh);
            assert_values_only(&fresh, &int_list_view(&MODEL[start..start + len]));
        }
    }
    assert_values_only(&built, &large_int_list(MODEL));
    assert_equal(&large_int_list(MODEL), &large_int_list(MODEL));
    // One element, one length, one list validity, one element validity.
    let one = |l: Lists<'_>| assert_different(&built, &int_list(l));
    one(&[Some(&[Some(1), Some(3)]), None, Some(&[]), Some(&[Some(3)])]);
    one(&[Some(&[Some(1)]), None, Some(&[]), Some(&[Some(3)])]);
    one(&[Some(&[Some(1), Some(2)]), None, None, Some(&[Some(3)])]);
    one(&[
        Some(&[Some(1), Some(2)]),
        Some(&[]),
        Some(&[]),
        Some(&[Some(3)]),
    ]);
    one(&[Some(&[Some(1), None]), None, Some(&[]), Some(&[Some(3)])]);
    // Elements of another type.
    let mut b = ListBuilder::new_in(PrimitiveBuilder::<i64, G>::new_in(Global), Global);
    b.try_append(true).unwrap();
    let other = b.try_finish().unwrap().into_array_ref();
    assert_different(&int_list(&[Some(&[])]), &other);
}

#[test]
fn list_views_in_any_order() {
    // Child [3, 1, 2, 7]; slots (1, 2), null (0, 4), (3, 0), (0, 1).
    let mut b = ListViewBuilder::new_in(PrimitiveBuilder::<i32, G>::new_in(Global), Global);
    for x in [3, 1, 2, 7] {
        b.values().try_append_value(x).unwrap();
    }
    for (o, s, v) in [(1, 2, true), (0, 4, false), (3, 0, true), (0, 1, true)] {
        b.try_append_view(o, s, v).unwrap();
    }
    let scattered = b.try_finish().unwrap().into_array_ref();
    assert_equal(&scattered, &int_list_view(MODEL));
    assert_values_only(&scattered, &int_list(MODEL));
    assert_equal(&scattered.slice(1, 3).unwrap(), &int_list_view(&MODEL[1..]));
    assert_values_only(&scattered.slice(2, 2).unwrap(), &int_list(&MODEL[2..]));
    assert_different(
        &scattered,
        &int_list_view(&[Some(&[Some(2), Some(1)]), None, Some(&[]), Some(&[Some(3)])]),
    );
}

#[test]
fn lists_of_dictionaries_decode() {
    let mut b = ListBuilder::new_in(
        DictionaryBuilder::<i8, G>::try_new_in(strs(&[Some("a"), Some("b")]), Global).unwrap(),
        Global,
    );
    for k in [Some(1), None, Some(0)] {
        b.values().try_append_option(k).unwrap();
    }
    b.try_append(true).unwrap();
    b.try_append(false).unwrap();
    let dicts = b.try_finish().unwrap().into_array_ref();
    let mut b = ListBuilder::new_in(StringBuilder::<G>::new_in(Global), Global);
    for v in [Some("b"), None, Some("a")] {
        b.values().try_append_option(v).unwrap();
    }
    b.try_append(true).unwrap();
    b.try_append(false).unwrap();
    let plain = b.try_finish().unwrap().into_array_ref();
    assert_values_only(&dicts, &plain);
    assert_equal(&dicts, &dicts.clone());
}

fn fsl(items: &[Option<[Option<i16>; 2]>]) -> R {
    let mut b = FixedSizeListBuilder::new_in(PrimitiveBuilder::<i16, G>::new_in(Global), 2, Global);
    for l in items {
        match l {
            Some(xs) => {
                for x in xs {
                    b.values().try_append_option(*x).unwrap();
                }
                b.try_append(true).unwrap();
            }
            None => b.try_append_null().unwrap(),
        }
    }
    b.try_finish().unwrap().into_array_ref()
}

#[test]
fn fixed_size_lists_sliced_and_null_elements() {
    let model = [
        Some([Some(1), Some(2)]),
        None,
        Some([Some(3), None]),
        Some([None, None]),
    ];
    let built = fsl(&model);
    let child = prim(&[
        Some(1i16),
        Some(2),
        Some(8),
        Some(8),
        Some(3),
        None,
        None,
        None,
    ]);
    let odd = FixedSizeListArray::try_new(
        item_field(DataType::Int16),
        2,
        4,
        boxed(child),
        nulls(&[true, false, true, true]),
    )
    .unwrap()
    .into_array_ref();
    assert_equal(&built, &odd);
    for start in 0..model.len() {
        for len in 0..=model.len() - start {
            let s = odd.slice(start, len).unwrap();
            assert_equal(&s, &fsl(&model[start..start + len]));
            assert_equal(
                &s.slice(0, len / 2).unwrap(),
                &fsl(&model[start..start + len / 2]),
            );
        }
    }
    assert_different(
        &built,
        &fsl(&[model[0], model[1], model[2], Some([None, Some(0)])]),
    );
    assert_different(
        &built,
        &fsl(&[model[0], Some([None, None]), model[2], model[3]]),
    );
    // Size 1 lists of the same elements are another type.
    let mut b = FixedSizeListBuilder::new_in(PrimitiveBuilder::<i16, G>::new_in(Global), 1, Global);
    b.values().try_append_value(1).unwrap();
    b.try_append(true).unwrap();
    let one = b.try_finish().unwrap().into_array_ref();
    assert_different(&one, &fsl(&[Some([Some(1), None])]));
    assert_different(&fsl(&[]), &int_list(&[]));
}

fn ab_fields() -> crate::datatypes::Fields<'static, G> {
    SharedSlice::try_from_iter_in(
        [
            Field::new("a", DataType::Int32, true),
            Field::new("b", DataType::Utf8, true),
        ],
        Global,
    )
    .unwrap()
}

fn structs(rows: &[Option<(Option<i32>, Option<&str>)>]) -> R {
    let children = (
        PrimitiveBuilder::<i32, G>::new_in(Global),
        StringBuilder::<G>::new_in(Global),
    );
    let mut b = StructBuilder::new_in(ab_fields(), children, Global);
    for r in rows {
        match r {
            Some((a, s)) => {
                b.children().0.try_append_option(*a).unwrap();
                b.children().1.try_append_option(*s).unwrap();
                b.try_append(true).unwrap();
            }
            None => b.try_append_null().unwrap(),
        }
    }
    b.try_finish().unwrap().into_array_ref()
}

#[test]
fn structs_child_by_child() {
    let model = [
        Some((Some(1), Some("x"))),
        None,
        Some((None, Some("y"))),
        Some((Some(3), None)),
    ];
    let built = structs(&model);
    // Other content under the null slot.
    let children = SharedSlice::try_from_iter_in(
        [
            prim(&[Some(1), Some(42), None, Some(3)]),
            strs(&[Some("x"), Some("garbage"), Some("y"), None]),
        ],
        Global,
    )
    .unwrap();
    let odd = StructArray::try_new(ab_fields(), children, nulls(&[true, false, true, true]))
        .unwrap()
        .into_array_ref();
    assert_equal(&built, &odd);
    for start in 0..model.len() {
        for len in 0..=model.len() - start {
            assert_equal(
                &odd.slice(start, len).unwrap(),
                &structs(&model[start..start + len]),
            );
        }
    }
    // Without a bitmap (the child-by-child fast path).
    let dense = structs(&[model[0], model[2], model[3]]);
    assert_equal(&dense.slice(1, 2).unwrap(), &structs(&model[2..]));
    assert_different(
        &dense,
        &structs(&[model[0], model[2], Some((Some(3), Some("")))]),
    );
    // A valid slot of null children is not a null slot.
    assert_different(&structs(&[None]), &structs(&[Some((None, None))]));
    assert_different(
        &built,
        &structs(&[model[0], model[1], Some((Some(0), Some("y"))), model[3]]),
    );
    // Other field names: another type, other values.
    let renamed = SharedSlice::try_from_iter_in(
        [
            Field::new("a", DataType::Int32, true),
            Field::new("c", DataType::Utf8, true),
        ],
        Global,
    )
    .unwrap();
    let children =
        SharedSlice::try_from_iter_in([prim(&[Some(1)]), strs(&[Some("x")])], Global).unwrap();
    let r = StructArray::try_new(renamed, children, None)
        .unwrap()
        .into_array_ref();
    assert_different(&r, &structs(&model[..1]));
    // A dictionary-encoded child equals a plain one by value.
    let fields = SharedSlice::try_from_iter_in(
        [
            Field::new("a", DataType::Int32, true),
            Field::new(
                "b",
                super::super::tests::dict(keys_i8(&[Some(0)]), strs(&[Some("x")]))
                    .data_type()
                    .clone(),
                true,
            ),
        ],
        Global,
    )
    .unwrap();
    let children = SharedSlice::try_from_iter_in(
        [
            prim(&[Some(1)]),
            super::super::tests::dict(keys_i8(&[Some(0)]), strs(&[Some("x")])),
        ],
        Global,
    )
    .unwrap();
    let d = StructArray::try_new(fields, children, None)
        .unwrap()
        .into_array_ref();
    assert_values_only(&d, &structs(&model[..1]));
}

type Entries<'s> = &'s [(&'s str, Option<i32>)];

fn maps(rows: &[Option<Entries<'_>>]) -> R {
    let mut b = MapBuilder::new_in(
        StringBuilder::<G>::new_in(Global),
        PrimitiveBuilder::<i32, G>::new_in(Global),
        Global,
    );
    for r in rows {
        for (k, v) in r.unwrap_or(&[]) {
            b.keys().try_append_value(k).unwrap();
            b.values().try_append_option(*v).unwrap();
        }
        b.try_append(r.is_some()).unwrap();
    }
    b.try_finish().unwrap().into_array_ref()
}

#[test]
fn maps_by_entry_ranges() {
    let model: [Option<Entries<'_>>; 4] = [
        Some(&[("a", Some(1)), ("b", Some(2))]),
        None,
        Some(&[]),
        Some(&[("c", None)]),
    ];
    let built = maps(&model);
    // A first map sliced away, and entries under the null slot.
    let odd = maps(&[
        Some(&[("z", Some(0))]),
        model[0],
        Some(&[("q", Some(7))]),
        model[2],
        model[3],
    ]);
    let mut b = MapBuilder::new_in(
        StringBuilder::<G>::new_in(Global),
        PrimitiveBuilder::<i32, G>::new_in(Global),
        Global,
    );
    for (k, v) in [
        ("z", Some(0)),
        ("a", Some(1)),
        ("b", Some(2)),
        ("q", Some(7)),
    ] {
        b.keys().try_append_value(k).unwrap();
        b.values().try_append_option(v).unwrap();
        if k != "a" {
            b.try_append(k != "q").unwrap();
        }
    }
    b.try_append(true).unwrap();
    b.keys().try_append_value("c").unwrap();
    b.values().try_append_null().unwrap();
    b.try_append(true).unwrap();
    let with_garbage = b.try_finish().unwrap().into_array_ref();
    assert_equal(&with_garbage.slice(1, 4).unwrap(), &built);
    assert_different(&odd.slice(1, 4).unwrap(), &built);
    for start in 0..model.len() {
        for len in 0..=model.len() - start {
            assert_equal(
                &with_garbage.slice(1 + start, len).unwrap(),
                &maps(&model[start..start + len]),
            );
        }
    }
    assert_different(
        &built,
        &maps(&[model[0], model[1], model[2], Some(&[("c", Some(0))])]),
    );
    assert_different(
        &built,
        &maps(&[model[0], model[1], model[2], Some(&[("d", None)])]),
    );
    assert_different(&built, &maps(&[model[0], model[1], None, model[3]]));
}

#[test]
fn malformed_nested_arrays_are_unequal() {
    // Offsets beyond the child.
    let offsets =
        OffsetBuffer::try_new(ScalarBuffer::try_copy_in(&[0i32, 5], Global).unwrap()).unwrap();
    // SAFETY: deliberately malformed (the child has 1 element).
    let bad = unsafe {
        ListArray::new_unchecked(
            item_field(DataType::Int32),
            offsets,
            boxed(prim(&[Some(1)])),
            None,
        )
    }
    .into_array_ref();
    assert!(!logical_eq(&bad, &bad));
    assert!(!values_equal(&bad, &int_list(&[Some(&[Some(1)])])));
    // A fixed-size list whose child is too short.
    // SAFETY: deliberately malformed.
    let bad = unsafe {
        FixedSizeListArray::new_unchecked(
            item_field(DataType::Int16),
            2,
            2,
            boxed(prim(&[Some(1i16), Some(2)])),
            None,
        )
    }
    .into_array_ref();
    assert!(!logical_eq(&bad, &bad));
    assert!(logical_eq(
        &bad.slice(0, 1).unwrap(),
        &fsl(&[Some([Some(1), Some(2)])])
    ));
    // A struct with a child missing.
    let children = SharedSlice::try_from_iter_in([prim(&[Some(1)])], Global).unwrap();
    // SAFETY: deliberately malformed (two fields, one child).
    let bad =
        unsafe { StructArray::new_unchecked(ab_fields(), children, 1, None) }.into_array_ref();
    assert!(!logical_eq(&bad, &structs(&[Some((Some(1), None))])));
    // A struct longer than its children.
    let children =
        SharedSlice::try_from_iter_in([prim(&[Some(1)]), strs(&[None])], Global).unwrap();
    // SAFETY: deliberately malformed (length 3, children of 1).
    let bad =
        unsafe { StructArray::new_unchecked(ab_fields(), children, 3, None) }.into_array_ref();
    assert!(!logical_eq(&bad, &bad));
    assert!(logical_eq(
        &bad.slice(0, 1).unwrap(),
        &structs(&[Some((Some(1), None))])
    ));
}
