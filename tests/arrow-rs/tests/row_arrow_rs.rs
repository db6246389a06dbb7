//! The row format against arrow-rs 60's `arrow-row`.
//!
//! - Integer, decimal, temporal, interval, boolean and fixed-size binary
//!   columns (and floats other than NaN and `-0.0`): the bytes are equal, for
//!   every sort option, one column or several.
//! - Sparse and dense unions of integer children, ascending: the bytes are
//!   equal (descending, arrow-row leaves the child rows ascending).
//! - Lists, large lists and list views of Int32 (element by element, the
//!   default ordered encoding) and fixed-size lists of Int32: the bytes are
//!   equal, for every sort option.
//! - Strings, binary, views, floats, structs, dictionaries and run-end
//!   encoded columns: the order of rows agrees, except where the spec's rules
//!   differ from arrow-rs on purpose (floats: all NaNs equal and above
//!   infinity, `-0.0 == 0.0`).
//!
//! Nested integer columns (lists of Int64 and UInt16, dictionaries of
//! integers, lists of dictionaries, unions under every option) are compared
//! byte for byte in `row_bytes_arrow_rs.rs`.

use std::cmp::Ordering;
use std::sync::Arc;

use alkaid::array::{
    Array, ArrayRef, BinaryViewArray, BooleanArray, DictionaryArray, DictionaryKeys,
    FixedSizeBinaryArray, FixedSizeListArray, LargeListArray, ListArray, ListViewArray,
    PrimitiveArray, PrimitiveType, RunArray, RunEnds, StringArray, StringViewArray, StructArray,
};
use alkaid::buffer::{
    NullBuffer, NullBufferBuilder, OffsetBuffer, ScalarBuffer, SharedBox, SharedSlice,
};
use alkaid::datatypes::{DataType, Field, IntervalUnit, TimeUnit};
use alkaid::native::{f16, i256, IntervalDayTime, IntervalMonthDayNano};
use alkaid::row::{RowConverter, SortField, SortOptions};
use alkaid::Global as G;
use arrow_array as aa;
use arrow_array::types as at;
use proptest::collection::vec;
use proptest::prelude::*;

type Dt = DataType<'static, G>;
type ArrowI256 = <at::Decimal256Type as aa::ArrowPrimitiveType>::Native;

const OPTIONS: [SortOptions; 4] = [
    SortOptions::new(false, true),
    SortOptions::new(false, false),
    SortOptions::new(true, true),
    SortOptions::new(true, false),
];

fn theirs_options(o: SortOptions) -> arrow_schema::SortOptions {
    arrow_schema::SortOptions {
        descending: o.descending,
        nulls_first: o.nulls_first,
    }
}

/// Rows of several columns, ours.
fn ours(cols: &[(Dt, ArrayRef<'static, G>)], o: SortOptions) -> Vec<Vec<u8>> {
    let fields: Vec<_> = cols
        .iter()
        .map(|(t, _)| SortField::new_with_options(t.clone(), o))
        .collect();
    let arrays: Vec<_> = cols.iter().map(|(_, a)| a.clone()).collect();
    let c = RowConverter::try_new(&fields).unwrap();
    let rows = c.convert_columns(&arrays).unwrap();
    rows.iter().map(|r| r.data().to_vec()).collect()
}

/// Rows of several columns, arrow-rs.
fn theirs(cols: &[aa::ArrayRef], o: SortOptions) -> Vec<Vec<u8>> {
    let fields = cols
        .iter()
        .map(|a| arrow_row::SortField::new_with_options(a.data_type().clone(), theirs_options(o)))
        .collect();
    let c = arrow_row::RowConverter::new(fields).unwrap();
    let rows = c.convert_columns(cols).unwrap();
    rows.iter().map(|r| r.as_ref().to_vec()).collect()
}

fn prim<T: PrimitiveType>(dt: Dt, v: &[Option<T>]) -> (Dt, ArrayRef<'static, G>) {
    let a = PrimitiveArray::<T, G>::try_from_options_in(v, G)
        .unwrap()
        .with_data_type(dt.clone())
        .unwrap();
    (dt, a.into_array_ref())
}

fn map<T: Copy, U>(v: &[Option<T>], f: impl Fn(T) -> U) -> Vec<Option<U>> {
    v.iter().map(|x| x.map(&f)).collect()
}

/// Every fixed-width type, ours and theirs, from the same `i64`s.
fn fixed_columns(v: &[Option<i64>]) -> Vec<((Dt, ArrayRef<'static, G>), aa::ArrayRef)> {
    use DataType as D;
    let i32s = map(v, |x| x as i32);
    let u64s = map(v, |x| x as u64);
    let fsb: Vec<Option<[u8; 3]>> = map(v, |x| {
        let b = x.to_le_bytes();
        [b[0], b[1], b[7]]
    });
    let mut out: Vec<((Dt, ArrayRef<'static, G>), aa::ArrayRef)> = vec![
        (
            prim(D::Int8, &map(v, |x| x as i8)),
            Arc::new(aa::Int8Array::from(map(v, |x| x as i8))),
        ),
        (
            prim(D::Int16, &map(v, |x| x as i16)),
            Arc::new(aa::Int16Array::from(map(v, |x| x as i16))),
        ),
        (
            prim(D::Int32, &i32s),
            Arc::new(aa::Int32Array::from(i32s.clone())),
        ),
        (
            prim(D::Int64, v),
            Arc::new(aa::Int64Array::from(v.to_vec())),
        ),
        (
            prim(D::UInt8, &map(v, |x| x as u8)),
            Arc::new(aa::UInt8Array::from(map(v, |x| x as u8))),
        ),
        (
            prim(D::UInt16, &map(v, |x| x as u16)),
            Arc::new(aa::UInt16Array::from(map(v, |x| x as u16))),
        ),
        (
            prim(D::UInt32, &map(v, |x| x as u32)),
            Arc::new(aa::UInt32Array::from(map(v, |x| x as u32))),
        ),
        (
            prim(D::UInt64, &u64s),
            Arc::new(aa::UInt64Array::from(u64s.clone())),
        ),
        (
            prim(D::Date32, &i32s),
            Arc::new(aa::Date32Array::from(i32s.clone())),
        ),
        (
            prim(D::Date64, v),
            Arc::new(aa::Date64Array::from(v.to_vec())),
        ),
        (
            prim(D::Time32(TimeUnit::Millisecond), &i32s),
            Arc::new(aa::Time32MillisecondArray::from(i32s.clone())),
        ),
        (
            prim(D::Time64(TimeUnit::Nanosecond), v),
            Arc::new(aa::Time64NanosecondArray::from(v.to_vec())),
        ),
        (
            prim(D::Timestamp(TimeUnit::Microsecond, None), v),
            Arc::new(aa::TimestampMicrosecondArray::from(v.to_vec())),
        ),
        (
            prim(D::Duration(TimeUnit::Second), v),
            Arc::new(aa::DurationSecondArray::from(v.to_vec())),
        ),
        (
            prim(D::Decimal32(9, 2), &i32s),
            Arc::new(
                aa::Decimal32Array::from(i32s.clone())
                    .with_precision_and_scale(9, 2)
                    .unwrap(),
            ),
        ),
        (
            prim(D::Decimal64(18, 2), v),
            Arc::new(
                aa::Decimal64Array::from(v.to_vec())
                    .with_precision_and_scale(18, 2)
                    .unwrap(),
            ),
        ),
        (
            prim(
                D::Decimal128(38, 2),
                &map(v, |x| i128::from(x) * 0x1_0000_0001),
            ),
            Arc::new(
                aa::Decimal128Array::from(map(v, |x| i128::from(x) * 0x1_0000_0001))
                    .with_precision_and_scale(38, 2)
                    .unwrap(),
            ),
        ),
        (
            prim(
                D::Decimal256(76, 2),
                &map(v, |x| i256::from_parts(x as u128, i128::from(x) >> 3)),
            ),
            Arc::new(
                aa::Decimal256Array::from(map(v, |x| {
                    ArrowI256::from_parts(x as u128, i128::from(x) >> 3)
                }))
                .with_precision_and_scale(76, 2)
                .unwrap(),
            ),
        ),
        (
            prim(D::Interval(IntervalUnit::YearMonth), &i32s),
            Arc::new(aa::IntervalYearMonthArray::from(i32s.clone())),
        ),
        (
            prim(
                D::Interval(IntervalUnit::DayTime),
                &map(v, |x| IntervalDayTime::new(x as i32 % 3, (x >> 32) as i32)),
            ),
            Arc::new(aa::IntervalDayTimeArray::from(map(v, |x| {
                at::IntervalDayTime::new(x as i32 % 3, (x >> 32) as i32)
            }))),
        ),
        (
            prim(
                D::Interval(IntervalUnit::MonthDayNano),
                &map(v, |x| {
                    IntervalMonthDayNano::new(x as i32 % 2, (x >> 40) as i32, x)
                }),
            ),
            Arc::new(aa::IntervalMonthDayNanoArray::from(map(v, |x| {
                at::IntervalMonthDayNano::new(x as i32 % 2, (x >> 40) as i32, x)
            }))),
        ),
    ];
    let bools = map(v, |x| x & 1 == 1);
    let mut b = alkaid::array::BooleanBuilder::new_in(G);
    for x in &bools {
        b.try_append_option(*x).unwrap();
    }
    let ours_bool: BooleanArray<'static, G> = b.finish();
    out.push((
        (D::Boolean, ours_bool.into_array_ref()),
        Arc::new(aa::BooleanArray::from(bools)),
    ));
    let fsb_ours = FixedSizeBinaryArray::try_from_iter_in(
        3,
        fsb.iter().map(|x| x.as_ref().map(|b| &b[..])),
        G,
    )
    .unwrap();
    let fsb_theirs =
        aa::FixedSizeBinaryArray::try_from_sparse_iter_with_size(fsb.iter().copied(), 3).unwrap();
    out.push((
        (D::FixedSizeBinary(3), fsb_ours.into_array_ref()),
        Arc::new(fsb_theirs),
    ));
    out
}

fn ints() -> impl Strategy<Value = Vec<Option<i64>>> {
    vec(
        prop_oneof![
            1 => Just(None),
            2 => (-3i64..3).prop_map(Some),
            4 => any::<i64>().prop_map(Some),
        ],
        0..20,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Byte-for-byte equality with arrow-row for every fixed-width type.
    #[test]
    fn fixed_width_bytes_equal_arrow_row(v in ints()) {
        let cols = fixed_columns(&v);
        for o in OPTIONS {
            for (mine, arrow) in &cols {
                let a = ours(std::slice::from_ref(mine), o);
                let b = theirs(std::slice::from_ref(arrow), o);
                prop_assert_eq!(a, b, "{:?} {:?}", mine.0, o);
            }
            // All columns in one row.
            let (mine, arrow): (Vec<_>, Vec<_>) = cols.iter().cloned().unzip();
            prop_assert_eq!(ours(&mine, o), theirs(&arrow, o));
        }
    }

    /// Floats: equal bytes except for NaNs and `-0.0`, which the spec normalises.
    #[test]
    fn float_bytes_equal_arrow_row_for_ordinary_values(
        v in vec(prop::option::of(any::<f64>().prop_filter("ordinary", |x| !x.is_nan() && x.to_bits() != (-0.0f64).to_bits())), 0..20)
    ) {
        let v32 = map(&v, |x| x as f32);
        let v16 = map(&v, f16::from_f64);
        for o in OPTIONS {
            prop_assert_eq!(
                ours(&[prim(DataType::Float64, &v)], o),
                theirs(&[Arc::new(aa::Float64Array::from(v.clone()))], o)
            );
            let v32: Vec<_> = v32.iter().map(|x| x.filter(|f| f.to_bits() != (-0.0f32).to_bits())).collect();
            prop_assert_eq!(
                ours(&[prim(DataType::Float32, &v32)], o),
                theirs(&[Arc::new(aa::Float32Array::from(v32.clone()))], o)
            );
            let v16: Vec<_> = v16.iter().map(|x| x.filter(|f| !f.is_nan() && f.to_bits() != 0x8000)).collect();
            prop_assert_eq!(
                ours(&[prim(DataType::Float16, &v16)], o),
                theirs(&[Arc::new(aa::Float16Array::from(v16.clone()))], o)
            );
        }
    }
}

/// The spec's float rules where they differ from arrow-row's IEEE total order.
#[test]
fn float_rules_differ_from_arrow_row_on_purpose() {
    let v = [
        Some(-0.0f64),
        Some(0.0),
        Some(f64::NAN),
        Some(-f64::NAN),
        Some(f64::NEG_INFINITY),
    ];
    let o = SortOptions::default();
    let a = ours(&[prim(DataType::Float64, &v)], o);
    let b = theirs(&[Arc::new(aa::Float64Array::from(v.to_vec()))], o);
    assert_eq!(a[0], a[1], "ours: -0.0 == 0.0");
    assert!(b[0] < b[1], "arrow-row: -0.0 < 0.0");
    assert_eq!(a[2], b[2], "the canonical NaN: the same bytes");
    assert_eq!(a[1], b[1], "0.0: the same bytes");
    assert_eq!(a[2], a[3], "ours: all NaNs equal");
    assert_ne!(b[2], b[3], "arrow-row: NaN signs distinct");
    assert!(a[3] > a[4], "ours: NaN above everything");
    assert!(b[3] < b[4], "arrow-row: -NaN below -inf");
}

// ----- order agreement for the other types -----

/// One column of every other type, from the same model values.
#[derive(Debug, Clone)]
struct Model {
    strs: Vec<Option<String>>,
    floats: Vec<Option<f64>>,
    lists: Vec<Option<Vec<Option<i32>>>>,
    pairs: Vec<Option<(Option<i32>, Option<String>)>>,
    fixed: Vec<Option<[Option<i32>; 2]>>,
}

fn model() -> impl Strategy<Value = Model> {
    (0usize..16).prop_flat_map(|n| {
        let s = prop::option::of("[ab\u{e9}]{0,40}");
        let f = prop::option::of(prop_oneof![
            Just(f64::INFINITY),
            Just(f64::NEG_INFINITY),
            Just(1.0),
            any::<f64>().prop_filter("ordinary", |x| !x.is_nan() && *x != 0.0),
        ]);
        let item = prop::option::of(-2i32..3);
        let l = prop::option::of(vec(item.clone(), 0..4));
        let p = prop::option::of((item.clone(), prop::option::of("[ab]{0,3}")));
        let x = prop::option::of([item.clone(), item]);
        (vec(s, n), vec(f, n), vec(l, n), vec(p, n), vec(x, n)).prop_map(
            |(strs, floats, lists, pairs, fixed)| Model {
                strs,
                floats,
                lists,
                pairs,
                fixed,
            },
        )
    })
}

fn nulls(valid: impl Iterator<Item = bool>) -> Option<NullBuffer<'static, G>> {
    let mut b = NullBufferBuilder::new_in(G);
    for v in valid {
        b.try_append(v).unwrap();
    }
    b.finish()
}

fn field(name: &'static str, dt: Dt) -> alkaid::datatypes::FieldRef<'static, G> {
    SharedBox::try_new_in(Field::new(name, dt, true), G).unwrap()
}

/// Pairs of (our column, arrow-rs column) built from the model, with a flag
/// for the columns whose row bytes must equal arrow-row's.
fn other_columns(m: &Model) -> Vec<((Dt, ArrayRef<'static, G>), aa::ArrayRef, bool)> {
    let mut out = Vec::new();
    let strs: Vec<Option<&str>> = m.strs.iter().map(|s| s.as_deref()).collect();
    out.push((
        (
            DataType::Utf8,
            StringArray::try_from_options_in(&strs, G)
                .unwrap()
                .into_array_ref(),
        ),
        Arc::new(aa::StringArray::from(strs.clone())) as aa::ArrayRef,
        false,
    ));
    out.push((
        (
            DataType::Utf8View,
            StringViewArray::try_from_options_in(&strs, G)
                .unwrap()
                .into_array_ref(),
        ),
        Arc::new(aa::StringViewArray::from(strs.clone())),
        false,
    ));
    let bins: Vec<Option<&[u8]>> = strs.iter().map(|s| s.map(str::as_bytes)).collect();
    out.push((
        (
            DataType::BinaryView,
            BinaryViewArray::try_from_options_in(&bins, G)
                .unwrap()
                .into_array_ref(),
        ),
        Arc::new(aa::BinaryViewArray::from(bins.clone())),
        false,
    ));
    out.push((
        prim(DataType::Float64, &m.floats),
        Arc::new(aa::Float64Array::from(m.floats.clone())),
        false,
    ));

    // List<Int32>.
    let mut offsets = vec![0i32];
    let mut items = Vec::new();
    for l in &m.lists {
        items.extend(l.iter().flatten().copied());
        offsets.push(items.len() as i32);
    }
    let list_t = DataType::List(field("item", DataType::Int32));
    let ours_list = ListArray::try_new_in(
        field("item", DataType::Int32),
        OffsetBuffer::try_new(ScalarBuffer::try_copy_in(&offsets, G).unwrap()).unwrap(),
        PrimitiveArray::<i32, G>::try_from_options_in(&items, G)
            .unwrap()
            .into_array_ref(),
        nulls(m.lists.iter().map(Option::is_some)),
        G,
    )
    .unwrap();
    let theirs_list = aa::ListArray::from_iter_primitive::<at::Int32Type, _, _>(m.lists.clone());
    let large_offsets: Vec<i64> = offsets.iter().map(|&o| i64::from(o)).collect();
    let ours_large = LargeListArray::try_new_in(
        field("item", DataType::Int32),
        OffsetBuffer::try_new(ScalarBuffer::try_copy_in(&large_offsets, G).unwrap()).unwrap(),
        ours_list.values().clone(),
        nulls(m.lists.iter().map(Option::is_some)),
        G,
    )
    .unwrap();
    let theirs_large =
        aa::LargeListArray::from_iter_primitive::<at::Int32Type, _, _>(m.lists.clone());
    // A list view whose lists are stored in reverse order in the child.
    let (view_offsets, view_sizes, view_items) = reversed_views(&m.lists);
    let ours_view = ListViewArray::try_new(
        field("item", DataType::Int32),
        ScalarBuffer::try_copy_in(&view_offsets, G).unwrap(),
        ScalarBuffer::try_copy_in(&view_sizes, G).unwrap(),
        SharedBox::try_new_in(
            PrimitiveArray::<i32, G>::try_from_options_in(&view_items, G)
                .unwrap()
                .into_array_ref(),
            G,
        )
        .unwrap(),
        nulls(m.lists.iter().map(Option::is_some)),
    )
    .unwrap();
    let theirs_view = aa::ListViewArray::new(
        Arc::new(arrow_schema::Field::new(
            "item",
            arrow_schema::DataType::Int32,
            true,
        )),
        arrow_buffer::ScalarBuffer::from(view_offsets),
        arrow_buffer::ScalarBuffer::from(view_sizes),
        Arc::new(aa::Int32Array::from(view_items)),
        arrow_nulls(m.lists.iter().map(Option::is_some)),
    );
    out.push((
        (ours_large.data_type().clone(), ours_large.into_array_ref()),
        Arc::new(theirs_large),
        true,
    ));
    out.push((
        (ours_view.data_type().clone(), ours_view.into_array_ref()),
        Arc::new(theirs_view),
        true,
    ));
    out.push((
        (list_t, ours_list.into_array_ref()),
        Arc::new(theirs_list),
        true,
    ));

    // Struct<Int32, Utf8>.
    let a: Vec<Option<i32>> = m
        .pairs
        .iter()
        .map(|p| p.as_ref().and_then(|p| p.0))
        .collect();
    let b: Vec<Option<&str>> = m
        .pairs
        .iter()
        .map(|p| p.as_ref().and_then(|p| p.1.as_deref()))
        .collect();
    let fields = SharedSlice::try_from_iter_in(
        [
            Field::new("a", DataType::Int32, true),
            Field::new("b", DataType::Utf8, true),
        ],
        G,
    )
    .unwrap();
    let children = SharedSlice::try_from_iter_in(
        [
            PrimitiveArray::<i32, G>::try_from_options_in(&a, G)
                .unwrap()
                .into_array_ref(),
            StringArray::try_from_options_in(&b, G)
                .unwrap()
                .into_array_ref(),
        ],
        G,
    )
    .unwrap();
    let valid: Vec<bool> = m.pairs.iter().map(Option::is_some).collect();
    let ours_struct = StructArray::try_new_with_len(
        fields.clone(),
        children,
        m.pairs.len(),
        nulls(valid.iter().copied()),
    )
    .unwrap();
    let theirs_struct = aa::StructArray::try_new(
        vec![
            arrow_schema::Field::new("a", arrow_schema::DataType::Int32, true),
            arrow_schema::Field::new("b", arrow_schema::DataType::Utf8, true),
        ]
        .into(),
        vec![
            Arc::new(aa::Int32Array::from(a)),
            Arc::new(aa::StringArray::from(b)),
        ],
        Some(valid.into()),
    )
    .unwrap();
    out.push((
        (DataType::Struct(fields), ours_struct.into_array_ref()),
        Arc::new(theirs_struct),
        false,
    ));

    // FixedSizeList<Int32, 2>.
    let flat: Vec<Option<i32>> = m
        .fixed
        .iter()
        .flat_map(|x| x.unwrap_or([None, None]))
        .collect();
    let fsl_t = DataType::FixedSizeList(field("item", DataType::Int32), 2);
    let ours_fsl = FixedSizeListArray::try_new(
        field("item", DataType::Int32),
        2,
        m.fixed.len(),
        SharedBox::try_new_in(
            PrimitiveArray::<i32, G>::try_from_options_in(&flat, G)
                .unwrap()
                .into_array_ref(),
            G,
        )
        .unwrap(),
        nulls(m.fixed.iter().map(Option::is_some)),
    )
    .unwrap();
    let theirs_fsl = aa::FixedSizeListArray::from_iter_primitive::<at::Int32Type, _, _>(
        m.fixed.iter().map(|x| x.map(|a| a.to_vec())),
        2,
    );
    out.push((
        (fsl_t, ours_fsl.into_array_ref()),
        Arc::new(theirs_fsl),
        true,
    ));

    // Dictionary<Int32, Utf8> over a reversed dictionary, and REE<Int32, Utf8>.
    let mut dict: Vec<&str> = Vec::new();
    for s in strs.iter().flatten() {
        if !dict.contains(s) {
            dict.push(s);
        }
    }
    dict.reverse();
    let keys: Vec<Option<i32>> = strs
        .iter()
        .map(|s| s.map(|s| dict.iter().position(|d| *d == s).unwrap() as i32))
        .collect();
    let dict_opts: Vec<Option<&str>> = dict.iter().map(|d| Some(*d)).collect();
    let ours_dict = DictionaryArray::try_new_in(
        DictionaryKeys::Int32(PrimitiveArray::try_from_options_in(&keys, G).unwrap()),
        StringArray::try_from_options_in(&dict_opts, G)
            .unwrap()
            .into_array_ref(),
        false,
        G,
    )
    .unwrap();
    let theirs_dict = aa::DictionaryArray::<at::Int32Type>::try_new(
        aa::Int32Array::from(keys),
        Arc::new(aa::StringArray::from(dict_opts)),
    )
    .unwrap();
    out.push((
        (ours_dict.data_type().clone(), ours_dict.into_array_ref()),
        Arc::new(theirs_dict),
        false,
    ));

    let mut ends: Vec<i32> = Vec::new();
    let mut heads: Vec<Option<&str>> = Vec::new();
    for (i, s) in strs.iter().enumerate() {
        if i > 0 && heads.last() == Some(s) {
            *ends.last_mut().unwrap() = i as i32 + 1;
        } else {
            heads.push(*s);
            ends.push(i as i32 + 1);
        }
    }
    let ours_ree = RunArray::try_new_in(
        RunEnds::Int32(
            PrimitiveArray::try_from_options_in(
                &ends.iter().map(|e| Some(*e)).collect::<Vec<_>>(),
                G,
            )
            .unwrap(),
        ),
        StringArray::try_from_options_in(&heads, G)
            .unwrap()
            .into_array_ref(),
        G,
    )
    .unwrap();
    let theirs_ree = aa::RunArray::<at::Int32Type>::try_new(
        &aa::Int32Array::from(ends),
        &aa::StringArray::from(heads),
    )
    .unwrap();
    out.push((
        (ours_ree.data_type().clone(), ours_ree.into_array_ref()),
        Arc::new(theirs_ree),
        false,
    ));
    out
}

/// Offsets, sizes and items of a list view of `lists` whose lists are
/// stored back to front in the child (nulls and empty lists at offset 0).
fn reversed_views(lists: &[Option<Vec<Option<i32>>>]) -> (Vec<i32>, Vec<i32>, Vec<Option<i32>>) {
    let mut items = Vec::new();
    let mut offsets = vec![0; lists.len()];
    let mut sizes = vec![0; lists.len()];
    for (i, l) in lists.iter().enumerate().rev() {
        if let Some(l) = l {
            offsets[i] = items.len() as i32;
            sizes[i] = l.len() as i32;
            items.extend(l.iter().copied());
        }
    }
    (offsets, sizes, items)
}

/// arrow-rs's validity of `valid` (`None` when all are valid).
fn arrow_nulls(valid: impl Iterator<Item = bool>) -> Option<arrow_buffer::NullBuffer> {
    let v: Vec<bool> = valid.collect();
    v.iter()
        .any(|b| !b)
        .then(|| arrow_buffer::NullBuffer::from(v))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn order_agrees_with_arrow_row(m in model()) {
        for o in OPTIONS {
            for (mine, arrow, same_bytes) in other_columns(&m) {
                let a = ours(std::slice::from_ref(&mine), o);
                let b = theirs(std::slice::from_ref(&arrow), o);
                if same_bytes {
                    prop_assert_eq!(&a, &b, "{:?} {:?}", mine.0, o);
                }
                for i in 0..a.len() {
                    for j in 0..a.len() {
                        let (x, y): (Ordering, Ordering) = (a[i].cmp(&a[j]), b[i].cmp(&b[j]));
                        prop_assert_eq!(x, y, "{:?} {:?} rows {} {}", mine.0, o, i, j);
                    }
                }
            }
        }
    }
}

/// A dense and a sparse union of two integer children (type ids 0 and 7):
/// the bytes equal arrow-row's for ascending options. Descending, arrow-row
/// leaves each child's row ascending, so only the type id bytes and the
/// order across types agree; inside one type our rows sort descending.
#[test]
fn union_bytes_equal_arrow_row_ascending() {
    use alkaid::array::{Int64Array, UnionArray};
    use alkaid::datatypes::{UnionFields, UnionMode};
    let ints: Vec<Option<i32>> = vec![Some(3), None, Some(-5), Some(3), Some(i32::MIN)];
    let longs: Vec<Option<i64>> = vec![Some(9), Some(-1), None, Some(i64::MAX), Some(0)];
    let ids: Vec<i8> = vec![0, 7, 7, 0, 7];
    let ours_fields = || {
        UnionFields::try_new(
            SharedSlice::from(vec![0i8, 7]),
            SharedSlice::from(vec![
                Field::new("i", DataType::Int32, true),
                Field::new("l", DataType::Int64, true),
            ]),
        )
        .unwrap()
    };
    let theirs_fields = || {
        arrow_schema::UnionFields::try_new(
            [0i8, 7],
            [
                arrow_schema::Field::new("i", arrow_schema::DataType::Int32, true),
                arrow_schema::Field::new("l", arrow_schema::DataType::Int64, true),
            ],
        )
        .unwrap()
    };
    // Sparse: both children as long as the union.
    let ours_sparse = UnionArray::try_new(
        ours_fields(),
        UnionMode::Sparse,
        ScalarBuffer::try_copy_in(&ids, G).unwrap(),
        None,
        SharedSlice::from(vec![
            PrimitiveArray::<i32, G>::from(ints.clone()).into_array_ref(),
            Int64Array::from(longs.clone()).into_array_ref(),
        ]),
    )
    .unwrap();
    let theirs_sparse = aa::UnionArray::try_new(
        theirs_fields(),
        arrow_buffer::ScalarBuffer::from(ids.clone()),
        None,
        vec![
            Arc::new(aa::Int32Array::from(ints.clone())) as aa::ArrayRef,
            Arc::new(aa::Int64Array::from(longs.clone())),
        ],
    )
    .unwrap();
    // Dense: each child holds only its own values.
    let (mut di, mut dl, mut offsets) = (Vec::new(), Vec::new(), Vec::new());
    for (k, &id) in ids.iter().enumerate() {
        if id == 0 {
            offsets.push(di.len() as i32);
            di.push(ints[k]);
        } else {
            offsets.push(dl.len() as i32);
            dl.push(longs[k]);
        }
    }
    let ours_dense = UnionArray::try_new(
        ours_fields(),
        UnionMode::Dense,
        ScalarBuffer::try_copy_in(&ids, G).unwrap(),
        Some(ScalarBuffer::try_copy_in(&offsets, G).unwrap()),
        SharedSlice::from(vec![
            PrimitiveArray::<i32, G>::from(di.clone()).into_array_ref(),
            Int64Array::from(dl.clone()).into_array_ref(),
        ]),
    )
    .unwrap();
    let theirs_dense = aa::UnionArray::try_new(
        theirs_fields(),
        arrow_buffer::ScalarBuffer::from(ids.clone()),
        Some(arrow_buffer::ScalarBuffer::from(offsets)),
        vec![
            Arc::new(aa::Int32Array::from(di)) as aa::ArrayRef,
            Arc::new(aa::Int64Array::from(dl)),
        ],
    )
    .unwrap();
    for (ours_u, theirs_u) in [
        (
            ours_sparse.into_array_ref(),
            Arc::new(theirs_sparse) as aa::ArrayRef,
        ),
        (
            ours_dense.into_array_ref(),
            Arc::new(theirs_dense) as aa::ArrayRef,
        ),
    ] {
        let dt = ours_u.data_type().clone();
        for o in [
            SortOptions::new(false, true),
            SortOptions::new(false, false),
        ] {
            let a = ours(&[(dt.clone(), ours_u.clone())], o);
            let b = theirs(std::slice::from_ref(&theirs_u), o);
            assert_eq!(a, b, "{o:?}");
        }
        for o in [SortOptions::new(true, true), SortOptions::new(true, false)] {
            let a = ours(&[(dt.clone(), ours_u.clone())], o);
            let b = theirs(std::slice::from_ref(&theirs_u), o);
            for (x, y) in a.iter().zip(&b) {
                assert_eq!(x[0], y[0], "{o:?}: type id byte");
            }
            // Rows 0 and 3 are both Int32 3: equal on both sides; rows 2
            // and 1 (Int64 null, -1) order as the options say on our side.
            assert_eq!(a[0], a[3]);
            assert_eq!(a[2] < a[1], o.nulls_first, "{o:?}");
        }
    }
}
