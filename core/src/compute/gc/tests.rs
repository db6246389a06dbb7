//! [`super::gc_array_in`] and [`super::gc_batch_in`]: view columns nested
//! in structs and lists keep only the bytes of their visible long values;
//! arrays without views come back sharing their buffers.

use std::string::String;
use std::vec;
use std::vec::Vec;

use super::{gc_array_in, gc_batch_in};
use crate::array::{
    Array, ArrayRef, Int32Array, ListArray, RecordBatch, StringViewArray, StructArray,
};
use crate::buffer::{OffsetBuffer, SharedBox, SharedSlice};
use crate::datatypes::{DataType, Field};
use crate::Global;

/// Five values: four long (20 to 23 bytes, not inline) and one inline.
fn model() -> Vec<String> {
    vec![
        "a".repeat(20),
        "b".repeat(21),
        String::from("short"),
        "c".repeat(22),
        "d".repeat(23),
    ]
}

fn views(model: &[String]) -> ArrayRef<'static, Global> {
    let v: Vec<&str> = model.iter().map(String::as_str).collect();
    StringViewArray::from(v).into_array_ref()
}

fn as_views<'b>(a: &'b ArrayRef<'static, Global>) -> &'b StringViewArray<'static, Global> {
    a.as_string_view().expect("Utf8View")
}

fn data_bytes(a: &StringViewArray<'static, Global>) -> usize {
    a.data_buffers().iter().map(|b| b.len()).sum()
}

fn values(a: &StringViewArray<'static, Global>) -> Vec<Option<String>> {
    a.iter().map(|v| v.map(String::from)).collect()
}

fn struct_of(
    ids: ArrayRef<'static, Global>,
    names: ArrayRef<'static, Global>,
) -> ArrayRef<'static, Global> {
    let fields = SharedSlice::from(vec![
        Field::new("id", ids.data_type().clone(), false),
        Field::new("name", names.data_type().clone(), false),
    ]);
    let children = SharedSlice::from(vec![ids, names]);
    StructArray::try_new(fields, children, None)
        .unwrap()
        .into_array_ref()
}

#[test]
fn sliced_struct_keeps_visible_long_values() {
    let m = model();
    let ids = Int32Array::from(vec![0, 1, 2, 3, 4]).into_array_ref();
    let s = struct_of(ids, views(&m)).slice(1, 3).unwrap();
    let g = gc_array_in(&s, Global).unwrap();
    let g = g.as_struct().expect("Struct");
    assert_eq!(g.len(), 3);
    let name = as_views(&g.children()[1]);
    // "b" * 21 and "c" * 22; "short" is inline.
    assert_eq!(data_bytes(name), 43);
    assert_eq!(
        values(name),
        [
            Some("b".repeat(21)),
            Some(String::from("short")),
            Some("c".repeat(22))
        ]
    );
    let id = g.children()[0].as_primitive::<i32>().expect("Int32");
    assert_eq!(id.values(), &[1, 2, 3]);
}

#[test]
fn sliced_list_keeps_visible_long_values() {
    let m = model();
    let offsets = Int32Array::from(vec![0, 2, 3, 5]).values_buffer().clone();
    let field = Field::new("item", DataType::Utf8View, false);
    let l = ListArray::try_new_in(
        SharedBox::try_new_in(field, Global).unwrap(),
        OffsetBuffer::try_new(offsets).unwrap(),
        views(&m),
        None,
        Global,
    )
    .unwrap()
    .into_array_ref()
    .slice(1, 2)
    .unwrap();
    let g = gc_array_in(&l, Global).unwrap();
    let g = g.as_list().expect("List");
    assert_eq!(g.value_offsets(), &[0, 1, 3]);
    let child = as_views(g.values());
    // "short" is inline; "c" * 22 and "d" * 23.
    assert_eq!(data_bytes(child), 45);
    assert_eq!(
        values(child),
        [
            Some(String::from("short")),
            Some("c".repeat(22)),
            Some("d".repeat(23))
        ]
    );
}

#[test]
fn arrays_without_views_share_their_buffers() {
    let ids = Int32Array::from(vec![7, 8, 9]).into_array_ref();
    let g = gc_array_in(&ids, Global).unwrap();
    let (a, b) = (
        ids.as_primitive::<i32>().unwrap(),
        g.as_primitive::<i32>().unwrap(),
    );
    assert_eq!(a.values().as_ptr(), b.values().as_ptr());

    let names = crate::array::StringArray::from(vec!["x", "y", "z"]).into_array_ref();
    let s = struct_of(ids.clone(), names);
    let g = gc_array_in(&s, Global).unwrap();
    let (a, b) = (s.as_struct().unwrap(), g.as_struct().unwrap());
    for (x, y) in a.children().iter().zip(b.children()) {
        let (x, y) = (
            x.as_string().map(|s| s.values().as_ptr()),
            y.as_string().map(|s| s.values().as_ptr()),
        );
        assert_eq!(x, y);
    }
    let x = a.children()[0]
        .as_primitive::<i32>()
        .unwrap()
        .values()
        .as_ptr();
    let y = b.children()[0]
        .as_primitive::<i32>()
        .unwrap()
        .values()
        .as_ptr();
    assert_eq!(x, y);
}

#[test]
fn batch_columns_are_compacted_and_schema_shared() {
    let m = model();
    let ids = Int32Array::from(vec![0, 1, 2, 3, 4]).into_array_ref();
    let b = RecordBatch::try_from_iter([("id", ids), ("name", views(&m))])
        .unwrap()
        .slice(3, 2)
        .unwrap();
    let g = gc_batch_in(&b, Global).unwrap();
    assert_eq!(g.schema(), b.schema());
    assert_eq!(g.num_rows(), 2);
    let name = as_views(&g.columns()[1]);
    assert_eq!(data_bytes(name), 45);
    assert_eq!(values(name), [Some("c".repeat(22)), Some("d".repeat(23))]);
    let x = b.columns()[0]
        .as_primitive::<i32>()
        .unwrap()
        .values()
        .as_ptr();
    let y = g.columns()[0]
        .as_primitive::<i32>()
        .unwrap()
        .values()
        .as_ptr();
    assert_eq!(x, y);
}
