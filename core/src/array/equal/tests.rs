//! Unit tests of [`super::logical_eq`] and [`super::values_equal`]: every
//! pair of physical representations of the same slots, and malformed arrays.

use super::{logical_eq, values_equal};
use crate::array::{
    Array, ArrayRef, BinaryArray, BooleanBuilder, ByteView, DictionaryArray, DictionaryKeys,
    FixedSizeBinaryArray, LargeBinaryArray, LargeStringArray, NullArray, PrimitiveArray,
    PrimitiveRunBuilder, RunArray, RunEnds, StringArray, StringViewArray, UnionArray,
};
use crate::buffer::{
    Buffer, MutableBuffer, NullBufferBuilder, ScalarBuffer, SharedBox, SharedSlice,
};
use crate::datatypes::{DataType, Field, FieldRef, IndexType, TimeUnit, UnionFields, UnionMode};
use crate::native::{f16, i256, IntervalMonthDayNano, NativeType};
use crate::Global;
use crate::NoAlloc;
use std::vec::Vec;

pub(super) type G = Global;
pub(super) type R = ArrayRef<'static, G>;

pub(super) fn nulls(valid: &[bool]) -> Option<crate::buffer::NullBuffer<'static, G>> {
    let mut b = NullBufferBuilder::new_in(Global);
    for &v in valid {
        b.try_append(v).unwrap();
    }
    b.finish()
}

pub(super) fn prim<T: crate::array::PrimitiveType>(v: &[Option<T>]) -> R {
    PrimitiveArray::<T, G>::try_from_options_in(v, Global)
        .unwrap()
        .into_array_ref()
}

pub(super) fn strs(v: &[Option<&str>]) -> R {
    StringArray::<G>::try_from_options_in(v, Global)
        .unwrap()
        .into_array_ref()
}

pub(super) fn bytes_buffer(b: &[u8]) -> Buffer<'static, G> {
    let mut m = MutableBuffer::new_in(Global);
    m.try_extend_from_slice(b).unwrap();
    m.into_buffer()
}

pub(super) fn boxed(a: R) -> SharedBox<'static, R, G> {
    SharedBox::try_new_in(a, Global).unwrap()
}

/// Asserts `a` and `b` are equal under both functions, both ways.
#[track_caller]
pub(super) fn assert_equal(a: &R, b: &R) {
    assert!(logical_eq(a, b), "logical_eq\n{a:?}\n{b:?}");
    assert!(logical_eq(b, a), "logical_eq (swapped)");
    assert!(values_equal(a, b), "values_equal");
    assert!(values_equal(b, a), "values_equal (swapped)");
    assert_eq!(a, b);
}

/// Asserts `a` and `b` hold the same values but not the same type.
#[track_caller]
pub(super) fn assert_values_only(a: &R, b: &R) {
    assert!(!logical_eq(a, b) && !logical_eq(b, a), "logical_eq");
    assert!(values_equal(a, b), "values_equal\n{a:?}\n{b:?}");
    assert!(values_equal(b, a), "values_equal (swapped)");
}

/// Asserts `a` and `b` differ under both functions.
#[track_caller]
pub(super) fn assert_different(a: &R, b: &R) {
    assert!(!logical_eq(a, b) && !logical_eq(b, a), "logical_eq");
    assert!(!values_equal(a, b) && !values_equal(b, a), "values_equal");
    assert_ne!(a, b);
}

#[test]
fn primitive_slices_null_contents_lengths() {
    let whole = prim(&[Some(9), Some(1), None, Some(3), Some(9)]);
    let fresh = prim(&[Some(1), None, Some(3)]);
    assert_equal(&whole.slice(1, 3).unwrap(), &fresh);
    assert_equal(&whole, &whole.clone());
    // The null slot holds 77 instead of 0.
    let garbage = PrimitiveArray::<i32, G>::try_new(
        DataType::Int32,
        ScalarBuffer::try_copy_in(&[1, 77, 3], Global).unwrap(),
        nulls(&[true, false, true]),
    )
    .unwrap()
    .into_array_ref();
    assert_equal(&garbage, &fresh);
    // Slices of slices.
    let s = whole.slice(1, 4).unwrap().slice(1, 2).unwrap();
    assert_equal(&s, &prim::<i32>(&[None, Some(3)]));
    // A bitmap without nulls equals no bitmap.
    let all_valid = PrimitiveArray::<i32, G>::try_new(
        DataType::Int32,
        ScalarBuffer::try_copy_in(&[1, 2], Global).unwrap(),
        Some(crate::buffer::NullBuffer::new(
            crate::buffer::BooleanBuffer::try_new(bytes_buffer(&[0b11]), 0, 2).unwrap(),
        )),
    )
    .unwrap()
    .into_array_ref();
    assert_equal(&all_valid, &prim(&[Some(1), Some(2)]));
    // One value, one validity bit, the length.
    assert_different(&fresh, &prim(&[Some(1), None, Some(4)]));
    assert_different(&fresh, &prim(&[Some(1), Some(0), Some(3)]));
    assert_different(&fresh, &prim(&[None, None, Some(3)]));
    assert_different(&fresh, &prim(&[Some(1), None]));
    assert_equal(&prim::<i32>(&[]), &fresh.slice(3, 0).unwrap());
}

#[test]
fn primitive_types_and_widths() {
    let i = prim(&[Some(5i64), None]);
    let ts = PrimitiveArray::<i64, G>::try_from_options_in(&[Some(5), None], Global)
        .unwrap()
        .with_data_type(DataType::Timestamp(TimeUnit::Second, None))
        .unwrap()
        .into_array_ref();
    assert_different(&i, &ts);
    assert_different(&prim(&[Some(5i32)]), &prim(&[Some(5i64)]));
    assert_different(&prim(&[Some(5u8)]), &prim(&[Some(5i8)]));
    let big = i256::from_parts(7, -1);
    assert_equal(&prim(&[Some(big), None]), &prim(&[Some(big), None]));
    assert_different(&prim(&[Some(big)]), &prim(&[Some(i256::from_i128(7))]));
    let iv = IntervalMonthDayNano::new(1, 2, 3);
    assert_equal(&prim(&[None, Some(iv)]), &prim(&[None, Some(iv)]));
    assert_different(
        &prim(&[Some(iv)]),
        &prim(&[Some(IntervalMonthDayNano::new(1, 2, 4))]),
    );
}

#[test]
fn floats_compare_bitwise() {
    let nan = f64::NAN;
    let other_nan = f64::from_bits(nan.to_bits() | 1);
    assert!(nan.bits_eq(&nan) && !nan.bits_eq(&other_nan));
    assert_equal(&prim(&[Some(nan), None]), &prim(&[Some(nan), None]));
    assert_different(&prim(&[Some(nan)]), &prim(&[Some(other_nan)]));
    assert_different(&prim(&[Some(0.0f64)]), &prim(&[Some(-0.0f64)]));
    assert_different(&prim(&[Some(0.0f32)]), &prim(&[Some(-0.0f32)]));
    assert_equal(&prim(&[Some(f32::NAN)]), &prim(&[Some(f32::NAN)]));
    let h = f16::from_f32(1.5);
    assert_equal(&prim(&[Some(h)]), &prim(&[Some(h)]));
    assert_different(&prim(&[Some(f16::ZERO)]), &prim(&[Some(f16::NEG_ZERO)]));
    // With nulls (the slot-by-slot path).
    assert_different(&prim(&[None, Some(0.0f64)]), &prim(&[None, Some(-0.0f64)]));
}

#[test]
fn boolean_sliced_at_bit_offsets() {
    let mut b = BooleanBuilder::new_in(Global);
    let v = [
        Some(true),
        None,
        Some(false),
        Some(true),
        Some(true),
        None,
        Some(false),
        Some(false),
        Some(true),
        None,
        Some(true),
    ];
    for x in v {
        b.try_append_option(x).unwrap();
    }
    let whole = b.finish().into_array_ref();
    for start in 0..v.len() {
        for len in 0..=v.len() - start {
            let mut f = BooleanBuilder::new_in(Global);
            for x in &v[start..start + len] {
                f.try_append_option(*x).unwrap();
            }
            assert_equal(
                &whole.slice(start, len).unwrap(),
                &f.finish().into_array_ref(),
            );
        }
    }
    let mut f = BooleanBuilder::new_in(Global);
    for x in [Some(true), None, Some(true)] {
        f.try_append_option(x).unwrap();
    }
    assert_different(&whole.slice(0, 3).unwrap(), &f.finish().into_array_ref());
}

#[test]
fn null_layout() {
    let n3: R = NullArray::new(3).into_array_ref();
    assert_equal(&n3, &NullArray::new(3).into_array_ref());
    assert_equal(
        &n3.slice(1, 2).unwrap(),
        &NullArray::new(2).into_array_ref(),
    );
    assert_different(&n3, &NullArray::new(4).into_array_ref());
    // An all-null Int32 array has another type.
    assert_different(&n3, &prim::<i32>(&[None, None, None]));
}

#[test]
fn variable_size_binary_offsets_base_and_null_bytes() {
    // ["joe", null, "mark"] with offsets starting at 5 and a null slot
    // spanning four bytes.
    let data = bytes_buffer(b"garbajoe!!!!mark");
    let offsets = ScalarBuffer::try_copy_in(&[5i32, 8, 12, 16], Global).unwrap();
    let odd = StringArray::<G>::try_new(offsets, data.clone(), nulls(&[true, false, true]))
        .unwrap()
        .into_array_ref();
    let fresh = strs(&[Some("joe"), None, Some("mark")]);
    assert_equal(&odd, &fresh);
    let offsets = ScalarBuffer::try_copy_in(&[5i64, 8, 12, 16], Global).unwrap();
    let large = LargeStringArray::<G>::try_new(offsets, data.clone(), nulls(&[true, false, true]))
        .unwrap()
        .into_array_ref();
    assert_values_only(&large, &fresh);
    let large_fresh =
        LargeStringArray::<G>::try_from_options_in(&[Some("joe"), None, Some("mark")], Global)
            .unwrap()
            .into_array_ref();
    assert_equal(&large, &large_fresh);
    // Binary: same bytes, another family.
    let offsets = ScalarBuffer::try_copy_in(&[5i32, 8, 12, 16], Global).unwrap();
    let bin = BinaryArray::<G>::try_new(offsets, data.clone(), nulls(&[true, false, true]))
        .unwrap()
        .into_array_ref();
    assert_different(&bin, &fresh);
    let bin_fresh =
        BinaryArray::<G>::try_from_options_in(&[Some(b"joe"), None, Some(b"mark")], Global)
            .unwrap()
            .into_array_ref();
    assert_equal(&bin, &bin_fresh);
    let offsets = ScalarBuffer::try_copy_in(&[5i64, 8, 12, 16], Global).unwrap();
    let large_bin = LargeBinaryArray::<G>::try_new(offsets, data, nulls(&[true, false, true]))
        .unwrap()
        .into_array_ref();
    assert_values_only(&large_bin, &bin_fresh);
    // Slices.
    assert_equal(&odd.slice(1, 2).unwrap(), &strs(&[None, Some("mark")]));
    assert_different(&odd, &strs(&[Some("joe"), None, Some("marks")]));
    assert_different(&odd, &strs(&[Some("joe"), Some(""), Some("mark")]));
    assert_different(&odd, &strs(&[Some("joe"), None, Some("mark"), None]));
    assert_different(&strs(&[Some("")]), &strs(&[None]));
}

#[test]
fn fixed_size_binary_slices_and_null_bytes() {
    let whole = FixedSizeBinaryArray::<G>::try_from_iter_in(
        2,
        [Some(&b"ab"[..]), None, Some(b"cd"), Some(b"ef")],
        Global,
    )
    .unwrap()
    .into_array_ref();
    let garbage = FixedSizeBinaryArray::<G>::try_new(
        DataType::FixedSizeBinary(2),
        3,
        bytes_buffer(b"zzcdef"),
        nulls(&[false, true, true]),
    )
    .unwrap()
    .into_array_ref();
    assert_equal(&whole.slice(1, 3).unwrap(), &garbage);
    let other = FixedSizeBinaryArray::<G>::try_from_iter_in(
        2,
        [None, Some(&b"cd"[..]), Some(b"eg")],
        Global,
    )
    .unwrap()
    .into_array_ref();
    assert_different(&garbage, &other);
    let width3 = FixedSizeBinaryArray::<G>::try_from_iter_in(3, [None, None], Global)
        .unwrap()
        .into_array_ref();
    assert_different(&whole.slice(1, 2).unwrap(), &width3.slice(0, 2).unwrap());
}

const LONG1: &str = "this is a long string";
const LONG2: &str = "another long value!!";

/// `["hi", LONG1, null, LONG2]` with LONG1 in data buffer 1 and LONG2 in
/// buffer 0, the null slot viewing other bytes of buffer 0.
fn scattered_views() -> R {
    let mut b0 = Vec::from(&b"garbage garbage!...."[..]);
    b0.extend_from_slice(LONG2.as_bytes());
    let mut b1 = Vec::from(&b"xyz"[..]);
    b1.extend_from_slice(LONG1.as_bytes());
    let views = [
        ByteView::try_new(b"hi", 0, 0).unwrap(),
        ByteView::try_new(LONG1.as_bytes(), 1, 3).unwrap(),
        ByteView::try_new(b"garbage garbage!", 0, 0).unwrap(),
        ByteView::try_new(LONG2.as_bytes(), 0, 20).unwrap(),
    ];
    let buffers =
        SharedSlice::try_from_iter_in([bytes_buffer(&b0), bytes_buffer(&b1)], Global).unwrap();
    StringViewArray::<G>::try_new(
        bytes_buffer(ByteView::slice_as_bytes(&views)),
        buffers,
        nulls(&[true, true, false, true]),
    )
    .unwrap()
    .into_array_ref()
}

#[test]
fn views_with_any_buffer_arrangement() {
    let values = [Some("hi"), Some(LONG1), None, Some(LONG2)];
    let scattered = scattered_views();
    let built = StringViewArray::<G>::try_from_options_in(&values, Global)
        .unwrap()
        .into_array_ref();
    assert_equal(&scattered, &built);
    assert_equal(&scattered.slice(1, 3).unwrap(), &built.slice(1, 3).unwrap());
    assert_values_only(&scattered, &strs(&values));
    let large = LargeStringArray::<G>::try_from_options_in(&values, Global)
        .unwrap()
        .into_array_ref();
    assert_values_only(&scattered, &large);
    assert_different(
        &scattered,
        &strs(&[Some("hi"), Some(LONG1), None, Some(LONG1)]),
    );
    let bin = crate::array::BinaryViewArray::<G>::try_from_iter_in(
        values.iter().map(|v| v.map(str::as_bytes)),
        Global,
    )
    .unwrap()
    .into_array_ref();
    assert_different(&scattered, &bin);
    let bin_plain =
        BinaryArray::<G>::try_from_iter_in(values.iter().map(|v| v.map(str::as_bytes)), Global)
            .unwrap()
            .into_array_ref();
    assert_values_only(&bin, &bin_plain);
}

pub(super) fn dict(keys: DictionaryKeys<'static, G>, values: R) -> R {
    DictionaryArray::try_new_in(keys, values, false, Global)
        .unwrap()
        .into_array_ref()
}

pub(super) fn keys_i8(k: &[Option<i8>]) -> DictionaryKeys<'static, G> {
    DictionaryKeys::Int8(PrimitiveArray::try_from_options_in(k, Global).unwrap())
}

#[test]
fn dictionaries_compare_decoded_slots() {
    // ["a", "c", null, "b"] three ways.
    let d1 = dict(
        keys_i8(&[Some(0), Some(2), None, Some(1)]),
        strs(&[Some("a"), Some("b"), Some("c")]),
    );
    let d2 = dict(
        keys_i8(&[Some(3), Some(0), None, Some(2)]),
        strs(&[Some("c"), Some("x"), Some("b"), Some("a")]),
    );
    // Null through a null dictionary value rather than a null key.
    let d3 = dict(
        keys_i8(&[Some(0), Some(2), Some(1), Some(3)]),
        strs(&[Some("a"), None, Some("c"), Some("b")]),
    );
    assert_equal(&d1, &d2);
    assert_equal(&d1, &d3);
    assert_equal(&d2.slice(1, 3).unwrap(), &d3.slice(1, 3).unwrap());
    let plain = strs(&[Some("a"), Some("c"), None, Some("b")]);
    assert_values_only(&d1, &plain);
    assert_values_only(&d3, &plain);
    // Another key type: another data type.
    let d16 = dict(
        DictionaryKeys::Int16(
            PrimitiveArray::try_from_options_in(&[Some(0), Some(2), None, Some(1)], Global)
                .unwrap(),
        ),
        strs(&[Some("a"), Some("b"), Some("c")]),
    );
    assert_values_only(&d1, &d16);
    // A dictionary over a view array equals one over Utf8 by value only.
    let dv = dict(
        keys_i8(&[Some(0), Some(2), None, Some(1)]),
        StringViewArray::<G>::try_from_options_in(&[Some("a"), Some("b"), Some("c")], Global)
            .unwrap()
            .into_array_ref(),
    );
    assert_values_only(&d1, &dv);
    // One decoded value or validity changed.
    let d4 = dict(
        keys_i8(&[Some(0), Some(1), None, Some(1)]),
        strs(&[Some("a"), Some("b"), Some("c")]),
    );
    assert_different(&d1, &d4);
    let d5 = dict(
        keys_i8(&[Some(0), Some(2), Some(0), Some(1)]),
        strs(&[Some("a"), Some("b"), Some("c")]),
    );
    assert_different(&d1, &d5);
    assert_different(&d5, &strs(&[Some("a"), Some("c"), None, Some("b")]));
    // A dictionary of a dictionary decodes twice.
    let inner = dict(
        keys_i8(&[Some(2), Some(1), Some(0)]),
        strs(&[Some("c"), Some("b"), Some("a")]),
    );
    let dd = dict(keys_i8(&[Some(0), Some(2), None, Some(1)]), inner);
    assert_values_only(&dd, &plain);
}

fn ree_i64(run_ends: &[i32], values: &[Option<i64>]) -> R {
    let ends = RunEnds::Int32(
        PrimitiveArray::try_from_options_in(
            &run_ends.iter().map(|&e| Some(e)).collect::<Vec<_>>(),
            Global,
        )
        .unwrap(),
    );
    RunArray::try_new_in(ends, prim(values), Global)
        .unwrap()
        .into_array_ref()
}

#[test]
fn run_end_encoded_with_any_boundaries() {
    let model = [
        Some(1i64),
        Some(1),
        Some(2),
        Some(2),
        Some(2),
        None,
        Some(3),
    ];
    let mut b = PrimitiveRunBuilder::<i32, i64, G>::new_in(Global);
    for v in model {
        b.try_append_option(v).unwrap();
    }
    let built = b.finish().unwrap().into_array_ref();
    let split = ree_i64(
        &[1, 2, 4, 5, 6, 7],
        &[Some(1), Some(1), Some(2), Some(2), None, Some(3)],
    );
    assert_equal(&built, &split);
    assert_values_only(&built, &prim(&model));
    for start in 0..model.len() {
        for len in 0..=model.len() - start {
            let s = built.slice(start, len).unwrap();
            assert_values_only(&s, &prim(&model[start..start + len]));
            assert_equal(&s, &split.slice(start, len).unwrap());
        }
    }
    let changed = ree_i64(&[2, 5, 6, 7], &[Some(1), Some(2), None, Some(4)]);
    assert_different(&built, &changed);
    let unnulled = ree_i64(&[2, 5, 6, 7], &[Some(1), Some(2), Some(0), Some(3)]);
    assert_different(&built, &unnulled);
    let short = ree_i64(&[2, 5, 6], &[Some(1), Some(2), None]);
    assert_different(&built, &short);
    // Int16 run ends: another type, the same values.
    let mut b = PrimitiveRunBuilder::<i16, i64, G>::new_in(Global);
    for v in model {
        b.try_append_option(v).unwrap();
    }
    assert_values_only(&built, &b.finish().unwrap().into_array_ref());
    // A run-end encoded dictionary.
    let d = dict(keys_i8(&[Some(1), Some(0)]), prim(&[Some(2i64), Some(1)]));
    let ends = RunEnds::Int32(PrimitiveArray::from_slice(&[2, 5]));
    let rd = RunArray::try_new_in(ends, d, Global)
        .unwrap()
        .into_array_ref();
    assert_values_only(&rd, &prim(&model[..5]));
}

fn fi_fields() -> UnionFields<'static, G> {
    let fields = SharedSlice::try_from_iter_in(
        [
            Field::new("f", DataType::Float32, true),
            Field::new("i", DataType::Int32, true),
        ],
        Global,
    )
    .unwrap();
    UnionFields::try_new(SharedSlice::borrowed(&[0, 1]), fields).unwrap()
}

fn union(
    mode: UnionMode,
    ids: &[i8],
    offsets: Option<&[i32]>,
    f: &[Option<f32>],
    i: &[Option<i32>],
) -> R {
    UnionArray::try_new(
        fi_fields(),
        mode,
        ScalarBuffer::try_copy_in(ids, Global).unwrap(),
        offsets.map(|o| ScalarBuffer::try_copy_in(o, Global).unwrap()),
        SharedSlice::try_from_iter_in([prim(f), prim(i)], Global).unwrap(),
    )
    .unwrap()
    .into_array_ref()
}

#[test]
fn unions_compare_type_ids_and_selected_values() {
    // [{f=1.5}, {i=7}, null (f), {i=9}]
    let s1 = union(
        UnionMode::Sparse,
        &[0, 1, 0, 1],
        None,
        &[Some(1.5), None, None, None],
        &[None, Some(7), None, Some(9)],
    );
    // Other content in the slots the type ids do not select.
    let s2 = union(
        UnionMode::Sparse,
        &[0, 1, 0, 1],
        None,
        &[Some(1.5), Some(8.0), None, Some(2.0)],
        &[Some(4), Some(7), Some(5), Some(9)],
    );
    assert_equal(&s1, &s2);
    // The null slot selects a null i value instead of a null f value.
    let s3 = union(
        UnionMode::Sparse,
        &[0, 1, 1, 1],
        None,
        &[Some(1.5), None, None, None],
        &[None, Some(7), None, Some(9)],
    );
    assert_equal(&s1, &s3);
    // Dense, children in another order and with extra values.
    let d1 = union(
        UnionMode::Dense,
        &[0, 1, 0, 1],
        Some(&[2, 1, 0, 0]),
        &[None, Some(3.0), Some(1.5)],
        &[Some(9), Some(7)],
    );
    let d2 = union(
        UnionMode::Dense,
        &[0, 1, 0, 1],
        Some(&[0, 0, 1, 1]),
        &[Some(1.5), None],
        &[Some(7), Some(9)],
    );
    assert_equal(&d1, &d2);
    assert_values_only(&s1, &d1);
    // Sliced sparse (child offset) against fresh arrays.
    let sliced = s2.slice(1, 3).unwrap();
    let fresh = union(
        UnionMode::Sparse,
        &[1, 0, 1],
        None,
        &[None, None, None],
        &[Some(7), None, Some(9)],
    );
    assert_equal(&sliced, &fresh);
    assert_values_only(&sliced, &d2.slice(1, 3).unwrap());
    assert_equal(&sliced.slice(1, 2).unwrap(), &fresh.slice(1, 2).unwrap());
    // Same number, other type id: different.
    let other_id = union(
        UnionMode::Sparse,
        &[0, 0, 0, 1],
        None,
        &[Some(1.5), Some(7.0), None, None],
        &[None, Some(7), None, Some(9)],
    );
    assert_different(&s1, &other_id);
    let other_value = union(
        UnionMode::Dense,
        &[0, 1, 0, 1],
        Some(&[0, 0, 1, 1]),
        &[Some(1.5), None],
        &[Some(7), Some(8)],
    );
    assert_different(&d2, &other_value);
    let not_null = union(
        UnionMode::Dense,
        &[0, 1, 0, 1],
        Some(&[0, 0, 1, 1]),
        &[Some(1.5), Some(0.0)],
        &[Some(7), Some(9)],
    );
    assert_different(&d2, &not_null);
}

#[test]
fn values_equal_type_rules() {
    let a = prim(&[Some(1i32)]);
    let date = PrimitiveArray::<i32, G>::try_from_options_in(&[Some(1)], Global)
        .unwrap()
        .with_data_type(DataType::Date32)
        .unwrap()
        .into_array_ref();
    assert_different(&a, &date);
    assert_different(&strs(&[Some("a")]), &prim(&[Some(b'a')]));
    // Ordered flag and index type ignored by values_equal.
    let values = strs(&[Some("a")]);
    let d = DictionaryArray::try_new_in(keys_i8(&[Some(0)]), values.clone(), true, Global)
        .unwrap()
        .into_array_ref();
    let e = DictionaryArray::try_new_in(keys_i8(&[Some(0)]), values, false, Global)
        .unwrap()
        .into_array_ref();
    assert_values_only(&d, &e);
    // Union field names matter, child nullability does not.
    let named = |name: &'static str, nullable: bool| -> R {
        let fields =
            SharedSlice::try_from_iter_in([Field::new(name, DataType::Int32, nullable)], Global)
                .unwrap();
        let uf = UnionFields::try_new(SharedSlice::borrowed(&[3]), fields).unwrap();
        UnionArray::try_new(
            uf,
            UnionMode::Sparse,
            ScalarBuffer::try_copy_in(&[3], Global).unwrap(),
            None,
            SharedSlice::try_from_iter_in([prim(&[Some(1i32)])], Global).unwrap(),
        )
        .unwrap()
        .into_array_ref()
    };
    assert_values_only(&named("x", true), &named("x", false));
    assert_different(&named("x", true), &named("y", true));
    // REE field names are ignored.
    let ree = |name: &'static str| -> R {
        let dt = DataType::RunEndEncoded(
            FieldRef::try_new_in(Field::new("run_ends", DataType::Int32, false), Global).unwrap(),
            FieldRef::try_new_in(Field::new(name, DataType::Int32, true), Global).unwrap(),
        );
        let ends = RunEnds::Int32(PrimitiveArray::from_slice(&[1]));
        RunArray::try_new(dt, ends, boxed(prim(&[Some(1i32)])))
            .unwrap()
            .into_array_ref()
    };
    assert_values_only(&ree("values"), &ree("v"));
    assert_equal(&ree("v"), &ree("v"));
}

#[test]
fn malformed_arrays_are_unequal_and_never_panic() {
    // A valid key beyond the dictionary.
    let keys = keys_i8(&[Some(0), Some(5)]);
    let values = strs(&[Some("a")]);
    let dt = DataType::Dictionary(
        IndexType::Int8,
        SharedBox::try_new_in(DataType::Utf8, Global).unwrap(),
        false,
    );
    // SAFETY: deliberately malformed; equality must cope.
    let bad = unsafe { DictionaryArray::new_unchecked(dt.clone(), keys, boxed(values.clone())) }
        .into_array_ref();
    assert!(!logical_eq(&bad, &bad));
    assert!(!values_equal(&bad, &strs(&[Some("a"), Some("a")])));
    // ... is fine when it is only under a null key.
    let keys = DictionaryKeys::Int8(
        PrimitiveArray::try_new(
            DataType::Int8,
            ScalarBuffer::try_copy_in(&[0, 99], Global).unwrap(),
            nulls(&[true, false]),
        )
        .unwrap(),
    );
    let ok = DictionaryArray::try_new(dt.clone(), keys, boxed(values.clone()))
        .unwrap()
        .into_array_ref();
    assert_equal(&ok, &ok.clone());
    assert_values_only(&ok, &strs(&[Some("a"), None]));
    // A negative key.
    // SAFETY: deliberately malformed.
    let bad = unsafe { DictionaryArray::new_unchecked(dt, keys_i8(&[Some(-1)]), boxed(values)) }
        .into_array_ref();
    assert!(!logical_eq(&bad, &bad));

    // Offsets beyond the data.
    let offsets = ScalarBuffer::try_copy_in(&[0i32, 2, 40], Global).unwrap();
    // SAFETY: deliberately malformed (value() is never called on it).
    let bad = unsafe { BinaryArray::<G>::new_unchecked(offsets, bytes_buffer(b"ab"), None) }
        .into_array_ref();
    assert!(!logical_eq(&bad, &bad));
    assert!(logical_eq(
        &bad.slice(0, 1).unwrap(),
        &bad.slice(0, 1).unwrap()
    ));
    // Decreasing offsets.
    let offsets = ScalarBuffer::try_copy_in(&[2i32, 0], Global).unwrap();
    // SAFETY: as above.
    let bad = unsafe { BinaryArray::<G>::new_unchecked(offsets, bytes_buffer(b"ab"), None) }
        .into_array_ref();
    assert!(!logical_eq(&bad, &bad));
    // No offsets at all: an empty array.
    // SAFETY: as above.
    let empty =
        unsafe { BinaryArray::<G>::new_unchecked(ScalarBuffer::empty(), Buffer::empty(), None) }
            .into_array_ref();
    assert_equal(&empty, &BinaryArray::<G>::new_empty().into_array_ref());

    // A view into a missing buffer.
    let views = [ByteView::from_parts(20, *b"abcd", 3, 0)];
    // SAFETY: deliberately malformed; only value_bytes is used.
    let bad = unsafe {
        crate::array::BinaryViewArray::<G>::new_unchecked(
            bytes_buffer(ByteView::slice_as_bytes(&views)),
            SharedSlice::empty(),
            None,
        )
    }
    .into_array_ref();
    assert!(!logical_eq(&bad, &bad));

    // Run ends that do not cover the length.
    let dt = DataType::RunEndEncoded(
        FieldRef::try_new_in(Field::new("run_ends", DataType::Int32, false), Global).unwrap(),
        FieldRef::try_new_in(Field::new("values", DataType::Int64, true), Global).unwrap(),
    );
    let ends = RunEnds::Int32(PrimitiveArray::from_slice(&[2]));
    // SAFETY: deliberately malformed: 4 slots, runs cover 2.
    let bad =
        unsafe { RunArray::new_unchecked(dt.clone(), ends, boxed(prim(&[Some(1i64)])), 0, 4) }
            .into_array_ref();
    assert!(!logical_eq(&bad, &bad));
    assert!(logical_eq(
        &bad.slice(0, 2).unwrap(),
        &bad.slice(0, 2).unwrap()
    ));
    // More runs than values.
    let ends2 = RunEnds::Int32(PrimitiveArray::from_slice(&[1, 2]));
    // SAFETY: deliberately malformed: two runs, one value.
    let bad = unsafe { RunArray::new_unchecked(dt, ends2, boxed(prim(&[Some(1i64)])), 0, 2) }
        .into_array_ref();
    assert!(!logical_eq(&bad, &bad));

    // Undeclared type id, dense offset beyond its child.
    let children =
        SharedSlice::try_from_iter_in([prim::<f32>(&[Some(1.0)]), prim::<i32>(&[Some(2)])], Global)
            .unwrap();
    for (ids, offsets) in [([5i8], None), ([1], Some([3i32]))] {
        let mode = if offsets.is_some() {
            UnionMode::Dense
        } else {
            UnionMode::Sparse
        };
        // SAFETY: deliberately malformed.
        let bad = unsafe {
            UnionArray::new_unchecked(
                fi_fields(),
                mode,
                ScalarBuffer::try_copy_in(&ids, Global).unwrap(),
                offsets.map(|o| ScalarBuffer::try_copy_in(&o, Global).unwrap()),
                children.clone(),
            )
        }
        .into_array_ref();
        assert!(!logical_eq(&bad, &bad));
    }

    // A validity bitmap shorter than the values: missing bits are nulls.
    let short = PrimitiveArray::<i32, G>::try_from_options_in(&[Some(1), None], Global)
        .unwrap()
        .nulls()
        .cloned();
    // SAFETY: deliberately malformed (bitmap of 2 bits for 3 values).
    let bad = unsafe {
        PrimitiveArray::<i32, G>::new_unchecked(
            DataType::Int32,
            ScalarBuffer::try_copy_in(&[1, 2, 3], Global).unwrap(),
            short,
        )
    }
    .into_array_ref();
    assert_equal(&bad, &prim(&[Some(1), None, None]));
    // A primitive array whose type its values cannot hold.
    // SAFETY: deliberately malformed.
    let bad = unsafe {
        PrimitiveArray::<i32, G>::new_unchecked(
            DataType::Utf8,
            ScalarBuffer::try_copy_in(&[1], Global).unwrap(),
            None,
        )
    }
    .into_array_ref();
    assert!(!logical_eq(&bad, &strs(&[Some("a")])));
    assert!(!values_equal(&bad, &strs(&[Some("a")])));
}

#[test]
fn borrowed_arrays_need_no_allocator() {
    static V: [i32; 3] = [1, 2, 3];
    let a: ArrayRef<'static, NoAlloc> = PrimitiveArray::from_slice(&V).into_array_ref();
    let b: ArrayRef<'static, NoAlloc> = PrimitiveArray::from_slice(&V[1..]).into_array_ref();
    assert!(logical_eq(&a.slice(1, 2).unwrap(), &b));
    assert!(values_equal(&a.slice(1, 2).unwrap(), &b));
    assert!(!logical_eq(&a, &b));
}
