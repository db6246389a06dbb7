//! Tests of [`super::concat`] for the flat layouts, its errors and its
//! allocation failures, and the helper the other test modules share: a slot
//! renderer that reads every layout through its typed accessors.

use std::format;
use std::string::String;
use std::vec::Vec;

use crate::Global;
use allocator_api2::alloc::Allocator;

use super::{concat, new_empty, new_null};
use crate::array::{
    Array, ArrayRef, BinaryArray, BooleanBuilder, FixedSizeBinaryArray, LargeBinaryArray,
    LargeStringArray, NullArray, PrimitiveArray, StringArray, StringViewArray, ValidationLevel,
};
use crate::datatypes::DataType;
use crate::error::Error;
use crate::test_support::{check_every_failure, counting, TestAlloc};

/// Slot `i` of `a` as text, read through the typed accessors of its layout:
/// `null` for a (logically) null slot, nested values in brackets.
pub(super) fn render<A: Allocator>(a: &ArrayRef<'_, A>, i: usize) -> String {
    macro_rules! prim {
        ($p:expr) => {
            match $p.get(i) {
                Some(v) => format!("{v:?}"),
                None => "null".into(),
            }
        };
    }
    let list = |items: Option<ArrayRef<'_, A>>| match items {
        Some(c) => {
            let parts: Vec<String> = (0..c.len()).map(|j| render(&c, j)).collect();
            format!("[{}]", parts.join(", "))
        }
        None => "null".into(),
    };
    match a {
        ArrayRef::Null(_) => "null".into(),
        ArrayRef::Boolean(p) => prim!(p),
        ArrayRef::Int8(p) => prim!(p),
        ArrayRef::Int16(p) => prim!(p),
        ArrayRef::Int32(p) => prim!(p),
        ArrayRef::Int64(p) => prim!(p),
        ArrayRef::UInt8(p) => prim!(p),
        ArrayRef::UInt16(p) => prim!(p),
        ArrayRef::UInt32(p) => prim!(p),
        ArrayRef::UInt64(p) => prim!(p),
        ArrayRef::Float16(p) => prim!(p),
        ArrayRef::Float32(p) => prim!(p),
        ArrayRef::Float64(p) => prim!(p),
        ArrayRef::Int128(p) => prim!(p),
        ArrayRef::Int256(p) => prim!(p),
        ArrayRef::IntervalDayTime(p) => prim!(p),
        ArrayRef::IntervalMonthDayNano(p) => prim!(p),
        ArrayRef::FixedSizeBinary(p) => prim!(p),
        ArrayRef::Binary(p) => prim!(p),
        ArrayRef::LargeBinary(p) => prim!(p),
        ArrayRef::Utf8(p) => prim!(p),
        ArrayRef::LargeUtf8(p) => prim!(p),
        ArrayRef::BinaryView(p) => prim!(p),
        ArrayRef::Utf8View(p) => prim!(p),
        ArrayRef::List(l) => list(l.get(i)),
        ArrayRef::LargeList(l) => list(l.get(i)),
        ArrayRef::ListView(l) => list(l.get(i)),
        ArrayRef::LargeListView(l) => list(l.get(i)),
        ArrayRef::FixedSizeList(l) => list(l.get(i)),
        ArrayRef::Map(m) => list(m.get(i).map(Array::into_array_ref)),
        ArrayRef::Struct(s) if s.is_valid(i) => {
            let parts: Vec<String> = s.columns().map(|c| render(&c, i)).collect();
            format!("{{{}}}", parts.join(", "))
        }
        ArrayRef::Struct(_) => "null".into(),
        ArrayRef::Union(u) => match u.value(i) {
            Some((id, c, slot)) => format!("{id}:{}", render(&u.children()[c], slot)),
            None => "bad union slot".into(),
        },
        ArrayRef::Dictionary(d) => match d.key(i) {
            Some(k) => render(d.values(), k),
            None => "null".into(),
        },
        ArrayRef::RunEndEncoded(r) => match r.physical_index(i) {
            Some(j) => render(r.values(), j),
            None => "bad run".into(),
        },
    }
}

/// Every slot of `a`, rendered.
pub(super) fn slots<A: Allocator>(a: &ArrayRef<'_, A>) -> Vec<String> {
    (0..a.len()).map(|i| render(a, i)).collect()
}

/// Concatenates `inputs` and checks the result: valid at Full level, of the
/// inputs' type, and slot by slot the concatenation of the inputs' slots.
pub(super) fn concat_checked<'a, A: Allocator + Clone>(
    inputs: &[&ArrayRef<'a, A>],
    alloc: A,
) -> ArrayRef<'a, A> {
    let c = concat(inputs, alloc).unwrap();
    c.validate(ValidationLevel::Full).unwrap();
    assert_eq!(c.data_type(), inputs[0].data_type());
    let model: Vec<String> = inputs.iter().flat_map(|a| slots(a)).collect();
    assert_eq!(slots(&c), model);
    assert!(!model.is_empty() || c.is_empty());
    c
}

fn ints<A: Allocator + Clone>(v: &[Option<i32>], alloc: A) -> ArrayRef<'static, A> {
    PrimitiveArray::<i32, A>::try_from_options_in(v, alloc)
        .unwrap()
        .into_array_ref()
}

fn validity_bytes<A: Allocator>(a: &ArrayRef<'_, A>) -> Option<Vec<u8>> {
    let n = a.nulls()?.inner();
    assert_eq!(n.offset(), 0);
    Some(n.inner().as_slice().to_vec())
}

#[test]
fn primitive_with_slices_and_nulls() {
    let a = ints(&[Some(1), None, Some(3)], Global);
    let big = ints(&[Some(10), Some(20), Some(30), Some(40)], Global);
    let b = big.slice(1, 2).unwrap();
    let c = ints(&[None, Some(7)], Global);
    let r = concat_checked(&[&a, &b, &c], Global);
    let ArrayRef::Int32(p) = &r else {
        panic!("not Int32: {r:?}")
    };
    assert_eq!(p.values(), &[1, 0, 3, 20, 30, 0, 7]);
    assert_eq!(p.null_count(), 2);
    // Validity 1 0 1 1 1 0 1 (LSB first).
    assert_eq!(validity_bytes(&r).unwrap(), [0b0101_1101]);
    assert_eq!(p.values_buffer().inner().as_ptr() as usize % 64, 0);
    assert!(p.values_buffer().inner().is_owned());
}

#[test]
fn primitive_without_nulls_has_no_bitmap() {
    // Whole days: full validation refuses other Date64 values.
    const D: i64 = 86_400_000;
    let data = [D, 2 * D, 3 * D, 4 * D, 5 * D];
    let a = PrimitiveArray::<i64, Global>::from_slice(&data)
        .with_data_type(DataType::Date64)
        .unwrap()
        .into_array_ref();
    let r = concat_checked(&[&a.slice(3, 2).unwrap(), &a], Global);
    assert!(r.nulls().is_none());
    assert_eq!(r.data_type(), &DataType::Date64);
    let ArrayRef::Int64(p) = &r else { panic!() };
    assert_eq!(p.values(), &[4 * D, 5 * D, D, 2 * D, 3 * D, 4 * D, 5 * D]);
    // A copy, not a view of the caller's memory.
    assert_ne!(p.values().as_ptr(), data.as_ptr());
}

#[test]
fn boolean_at_arbitrary_bit_offsets() {
    let model: Vec<Option<bool>> = (0..150)
        .map(|i| (i % 7 != 3).then_some(i % 3 == 0 || i % 5 == 1))
        .collect();
    let mut b = BooleanBuilder::new_in(Global);
    for v in &model {
        b.try_append_option(*v).unwrap();
    }
    let full = b.finish().into_array_ref();
    for (s1, l1, s2, l2) in [
        (0, 150, 0, 150),
        (3, 70, 11, 90),
        (5, 1, 9, 130),
        (8, 64, 1, 0),
    ] {
        let x = full.slice(s1, l1).unwrap();
        let y = full.slice(s2, l2).unwrap();
        let r = concat_checked(&[&x, &y, &x], Global);
        let ArrayRef::Boolean(r) = r else { panic!() };
        let want: Vec<_> = model[s1..s1 + l1]
            .iter()
            .chain(&model[s2..s2 + l2])
            .chain(&model[s1..s1 + l1])
            .copied()
            .collect();
        assert_eq!(r.iter().collect::<Vec<_>>(), want);
    }
}

#[test]
fn strings_rebase_offsets() {
    let a = StringArray::<Global>::try_from_options_in(&[Some("ab"), None, Some("cde")], Global)
        .unwrap()
        .into_array_ref();
    let b = StringArray::<Global>::try_from_options_in(
        &[Some("x"), Some("héllo"), Some(""), Some("yz")],
        Global,
    )
    .unwrap()
    .into_array_ref();
    let b = b.slice(1, 3).unwrap();
    let r = concat_checked(&[&a, &b], Global);
    let ArrayRef::Utf8(s) = &r else { panic!() };
    assert_eq!(s.value_offsets(), &[0, 2, 2, 5, 11, 11, 13]);
    assert_eq!(s.values().as_slice(), "abcdehélloyz".as_bytes());
    assert_eq!(validity_bytes(&r).unwrap(), [0b0011_1101]);
}

#[test]
fn binary_and_large_layouts() {
    let v: [Option<&[u8]>; 4] = [Some(b"\x00\x01"), None, Some(b""), Some(b"\xff")];
    let a = BinaryArray::<Global>::try_from_options_in(&v, Global).unwrap();
    let a = a.into_array_ref();
    let r = concat_checked(&[&a.slice(2, 2).unwrap(), &a], Global);
    let ArrayRef::Binary(b) = &r else { panic!() };
    assert_eq!(b.value_offsets(), &[0, 0, 1, 3, 3, 3, 4]);
    let a = LargeBinaryArray::<Global>::try_from_options_in(&v, Global).unwrap();
    let a = a.into_array_ref();
    concat_checked(&[&a, &a.slice(1, 3).unwrap()], Global);
    let s = LargeStringArray::<Global>::try_from_options_in(&[Some("ok"), None], Global).unwrap();
    let s = s.into_array_ref();
    let r = concat_checked(&[&s, &s, &s.slice(1, 1).unwrap()], Global);
    let ArrayRef::LargeUtf8(l) = &r else { panic!() };
    assert_eq!(l.value_offsets(), &[0i64, 2, 2, 4, 4, 4]);
}

#[test]
fn views_share_buffers_once_each_and_repoint_views() {
    let long1 = "a string longer than twelve bytes";
    let long2 = "another long string, in buffer one";
    let a = StringViewArray::<Global>::try_from_options_in(
        &[Some("short"), Some(long1), None, Some(long2)],
        Global,
    )
    .unwrap()
    .into_array_ref();
    let b = StringViewArray::<Global>::try_from_options_in(
        &[Some(long2), Some("tiny"), Some(long1)],
        Global,
    )
    .unwrap()
    .into_array_ref();
    let (ArrayRef::Utf8View(va), ArrayRef::Utf8View(vb)) = (&a, &b) else {
        panic!()
    };
    let (na, nb) = (va.data_buffers().len(), vb.data_buffers().len());
    assert!(na >= 1 && nb >= 1);
    let r = concat_checked(&[&a.slice(1, 3).unwrap(), &b, &a], Global);
    let ArrayRef::Utf8View(v) = &r else { panic!() };
    // `a`'s buffers are listed once though `a` comes twice; none is copied.
    assert_eq!(v.data_buffers().len(), na + nb);
    for (i, buf) in va
        .data_buffers()
        .iter()
        .chain(vb.data_buffers().iter())
        .enumerate()
    {
        assert_eq!(v.data_buffers()[i].as_ptr(), buf.as_ptr());
        assert_eq!(v.data_buffers()[i].len(), buf.len());
    }
    // Inline views are unchanged; references move past the earlier buffers.
    assert_eq!(
        v.view(0).unwrap().buffer_index(),
        va.view(1).unwrap().buffer_index()
    );
    let shifted = vb.view(0).unwrap().buffer_index() + na as i32;
    assert_eq!(v.view(3).unwrap().buffer_index(), shifted);
    assert_eq!(v.view(4).unwrap(), vb.view(1).unwrap());
    // The second `a` points at the first one's buffers.
    assert_eq!(v.view(9).unwrap(), va.view(3).unwrap());
}

#[test]
fn fixed_size_binary_and_null() {
    let v: [Option<&[u8]>; 3] = [Some(b"abc"), None, Some(b"xyz")];
    let a = FixedSizeBinaryArray::<Global>::try_from_iter_in(3, v, Global).unwrap();
    let a = a.into_array_ref();
    let r = concat_checked(&[&a.slice(1, 2).unwrap(), &a], Global);
    let ArrayRef::FixedSizeBinary(f) = &r else {
        panic!()
    };
    assert_eq!(f.values().as_slice(), b"\0\0\0xyzabc\0\0\0xyz");
    assert_eq!(validity_bytes(&r).unwrap(), [0b0001_0110]);
    let n = NullArray::<Global>::new(3).into_array_ref();
    let r = concat_checked(&[&n, &n.slice(1, 1).unwrap()], Global);
    assert_eq!((r.len(), r.null_count()), (4, 4));
}

#[test]
fn one_input_is_a_compacted_copy() {
    let s =
        StringArray::<Global>::try_from_options_in(&[Some("abc"), Some("de"), Some("f")], Global)
            .unwrap()
            .into_array_ref();
    let r = concat_checked(&[&s.slice(1, 1).unwrap()], Global);
    let ArrayRef::Utf8(u) = &r else { panic!() };
    assert_eq!(u.value_offsets(), &[0, 2]);
    assert_eq!(u.values().as_slice(), b"de");
}

#[test]
fn empty_inputs() {
    assert_eq!(
        concat::<Global>(&[], Global).unwrap_err(),
        Error::InvalidArgument
    );
    let e = new_empty(&DataType::<Global>::Utf8, Global).unwrap();
    let r = concat_checked(&[&e, &e], Global);
    assert!(r.is_empty());
}

#[test]
fn type_mismatch() {
    let a = ints(&[Some(1)], Global);
    let b = PrimitiveArray::<i64, Global>::from_slice(&[1]).into_array_ref();
    assert_eq!(concat(&[&a, &b], Global).unwrap_err(), Error::TypeMismatch);
    // Same physical layout, different logical type.
    let d = PrimitiveArray::<i32, Global>::from_slice(&[1])
        .with_data_type(DataType::Date32)
        .unwrap()
        .into_array_ref();
    assert_eq!(concat(&[&a, &d], Global).unwrap_err(), Error::TypeMismatch);
    let s = new_null(&DataType::<Global>::Utf8, 2, Global).unwrap();
    assert_eq!(concat(&[&s, &a], Global).unwrap_err(), Error::TypeMismatch);
}

#[test]
fn allocation_failures_flat() {
    let u = counting();
    let a = ints(&[Some(1), None, Some(3)], u.clone());
    let b = ints(&[Some(4)], u.clone());
    let n = check_every_failure(|f| concat(&[&a, &b.slice(0, 1)?], f));
    // A vector of the inputs, the values, the bitmap.
    assert_eq!(n, 3);
    let s = StringViewArray::<TestAlloc>::try_from_options_in(
        &[Some("a string longer than twelve bytes"), None, Some("x")],
        u.clone(),
    )
    .unwrap()
    .into_array_ref();
    check_every_failure(|f| concat(&[&s, &s.slice(1, 2)?, &s], f));
    let t = StringArray::<TestAlloc>::try_from_options_in(&[Some("ab"), None], u.clone())
        .unwrap()
        .into_array_ref();
    check_every_failure(|f| concat(&[&t, &t], f));
    let mut bb = BooleanBuilder::new_in(u.clone());
    for i in 0..20 {
        bb.try_append_option((i % 4 != 0).then_some(i % 2 == 0))
            .unwrap();
    }
    let bo = bb.finish().into_array_ref();
    check_every_failure(|f| concat(&[&bo.slice(3, 9)?, &bo], f));
    let fs = FixedSizeBinaryArray::<TestAlloc>::try_from_iter_in(2, [Some(&b"ab"[..]), None], u)
        .unwrap()
        .into_array_ref();
    check_every_failure(|f| concat(&[&fs, &fs], f));
}

/// `concat_batches_in`: rows in order, zero batches give zero rows, and a
/// batch of other columns is refused with the column's index; a batch's
/// `slice_in` and `project_in` share the columns.
#[test]
fn batches_concatenate_slice_and_project() {
    use crate::array::{Int32Array, RecordBatch, StringArray};
    use crate::datatypes::{Field, Schema};
    let schema = Schema::new(std::vec![
        Field::new("x", DataType::Int32, true),
        Field::new("s", DataType::Utf8, true),
    ]);
    let batch = |x: Vec<i32>, s: Vec<&str>| {
        RecordBatch::try_new(
            schema.clone(),
            std::vec![
                Int32Array::from(x).into_array_ref(),
                StringArray::from(s).into_array_ref()
            ],
        )
        .unwrap()
    };
    let (a, b) = (
        batch(std::vec![1, 2], std::vec!["a", "b"]),
        batch(std::vec![3], std::vec!["c"]),
    );
    let ab = super::concat_batches_in(&schema, &[a.clone(), b.clone()], Global).unwrap();
    assert_eq!(ab, batch(std::vec![1, 2, 3], std::vec!["a", "b", "c"]));
    let none = super::concat_batches_in(&schema, &[], Global).unwrap();
    assert_eq!((none.num_rows(), none.num_columns()), (0, 2));
    let other = Schema::new(std::vec![
        Field::new("x", DataType::Int32, true),
        Field::new("s", DataType::LargeUtf8, true),
    ]);
    let e = super::concat_batches_in(&other, core::slice::from_ref(&a), Global).unwrap_err();
    assert_eq!(
        (e.kind(), e.location().field_path()),
        (Error::SchemaMismatch.kind(), &[1][..])
    );
    let tail = ab.slice_in(1, 2, Global).unwrap();
    assert_eq!(tail, batch(std::vec![2, 3], std::vec!["b", "c"]));
    assert_eq!(ab.slice_in(2, 2, Global).unwrap_err(), Error::OutOfBounds);
    let s = ab.project_in(&[1, 1], Global).unwrap();
    assert_eq!(
        (s.num_columns(), s.column(0), s.column(1)),
        (2, ab.column(1), ab.column(1))
    );
    assert_eq!(
        ab.project_in(&[0, 5], Global).unwrap_err().kind(),
        Error::SchemaMismatch.kind()
    );
}
