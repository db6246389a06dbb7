//! Property tests of every layout against a plain model (`Vec<Option<T>>`):
//! build with the builder, read every slot back, slice (and slice slices),
//! validate at Full, and check logical equality: with a rebuilt array, with
//! other physical arrangements of the same slots, between a slice and the
//! array built from the model's slice, and inequality once one value or one
//! validity bit of the model changes. Every array lives in a counting
//! allocator that must have nothing outstanding at the end of each case.

mod common;

use core::fmt::Debug;

use alkaid::array::{
    logical_eq, values_equal, Array, ArrayRef, BinaryBuilder, BinaryViewArray, BooleanBuilder,
    ByteView, DictionaryArray, DictionaryBuilder, FixedSizeBinaryBuilder, FixedSizeListBuilder,
    GenericListArray, GenericListViewArray, LargeBinaryBuilder, LargeListBuilder,
    LargeStringBuilder, ListArray, ListBuilder, ListViewBuilder, MapArray, MapBuilder, NullArray,
    PrimitiveArray, PrimitiveBuilder, PrimitiveDictionaryBuilder, PrimitiveRunBuilder,
    PrimitiveType, RunArray, RunEnds, StringBuilder, StringViewArray, StringViewBuilder,
    StructArray, StructBuilder, UnionArray, ValidationLevel,
};
use alkaid::buffer::{OffsetBuffer, ScalarBuffer, SharedBox, SharedSlice};
use alkaid::datatypes::{DataType, Field, FieldRef, UnionFields, UnionMode};
use alkaid::native::{f16, i256, IntervalDayTime, IntervalMonthDayNano};
use common::counting;
use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;

use common::layout::{bitmap, buffer, cut, leak_checked, model, Layout, Model, A, R};

// ---------------------------------------------------------------- primitive

/// A primitive layout of `T` whose model values are `M` (bit patterns for
/// floats, so that the model compares bitwise too).
fn primitive<T: PrimitiveType, M: Clone + PartialEq + Debug>(
    model: &[Option<M>],
    cuts: [usize; 5],
    to: fn(&M) -> T,
    from: fn(T) -> M,
    other: fn(Option<&M>) -> M,
) -> Result<(), TestCaseError> {
    leak_checked(|alloc| {
        let build = |m: &[Option<M>]| {
            let mut b = PrimitiveBuilder::<T, A>::new_in(alloc.clone());
            for v in m {
                b.try_append_option(v.as_ref().map(to)).unwrap();
            }
            b.finish()
        };
        let read = |a: &PrimitiveArray<'static, T, A>, i| a.get(i).map(from);
        let layout = Layout {
            build: &build,
            read: &read,
            other: &other,
            logical_nulls: false,
        };
        layout.check(model, cuts)
    })
}

/// The largest Decimal128(38, _) value: 10^38 - 1.
const DECIMAL128_MAX: i128 = 10i128.pow(38) - 1;
/// 10^37: a bound on the high half of Decimal256(76, _) values.
const HIGH_76: i128 = 10i128.pow(37);

macro_rules! int_other {
    ($t:ty) => {
        |v: Option<&$t>| v.map_or(0, |v| v.wrapping_add(1))
    };
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(192))]

    #[test]
    fn primitive_integers(
        m8 in model(any::<i8>()), m16 in model(any::<u16>()), m32 in model(any::<i32>()),
        // `i128` arrays default to Decimal128(38, 0): values within 38 digits.
        m64 in model(any::<i64>()), mu64 in model(any::<u64>()),
        m128 in model(-DECIMAL128_MAX..=DECIMAL128_MAX),
        cuts in any::<[usize; 5]>(),
    ) {
        primitive::<i8, i8>(&m8, cuts, |v| *v, |v| v, int_other!(i8))?;
        primitive::<u16, u16>(&m16, cuts, |v| *v, |v| v, int_other!(u16))?;
        primitive::<i32, i32>(&m32, cuts, |v| *v, |v| v, int_other!(i32))?;
        primitive::<i64, i64>(&m64, cuts, |v| *v, |v| v, int_other!(i64))?;
        primitive::<u64, u64>(&mu64, cuts, |v| *v, |v| v, int_other!(u64))?;
        primitive::<i128, i128>(&m128, cuts, |v| *v, |v| v, int_other!(i128))?;
    }

    #[test]
    fn primitive_floats_and_wide_values(
        h in model(any::<u16>()), f in model(any::<u32>()), d in model(any::<u64>()),
        // `i256` arrays default to Decimal256(76, 0): |high half| < 10^37
        // keeps a value below 10^37 * 2^128 < 10^76.
        wide in model((any::<u128>(), -HIGH_76..HIGH_76)), dt in model(any::<(i32, i32)>()),
        mdn in model(any::<(i32, i32, i64)>()), cuts in any::<[usize; 5]>(),
    ) {
        primitive::<f16, u16>(&h, cuts, |b| f16::from_bits(*b), f16::to_bits, int_other!(u16))?;
        primitive::<f32, u32>(&f, cuts, |b| f32::from_bits(*b), f32::to_bits, int_other!(u32))?;
        primitive::<f64, u64>(&d, cuts, |b| f64::from_bits(*b), f64::to_bits, int_other!(u64))?;
        primitive::<i256, (u128, i128)>(
            &wide, cuts, |&(l, h)| i256::from_parts(l, h), i256::to_parts,
            |v| v.map_or((0, 0), |&(l, h)| (l.wrapping_add(1), h)),
        )?;
        primitive::<IntervalDayTime, (i32, i32)>(
            &dt, cuts, |&(d, m)| IntervalDayTime::new(d, m), |v| (v.days, v.milliseconds),
            |v| v.map_or((0, 0), |&(d, m)| (d, m.wrapping_add(1))),
        )?;
        primitive::<IntervalMonthDayNano, (i32, i32, i64)>(
            &mdn, cuts, |&(m, d, n)| IntervalMonthDayNano::new(m, d, n),
            |v| (v.months, v.days, v.nanoseconds),
            |v| v.map_or((0, 0, 0), |&(m, d, n)| (m, d, n.wrapping_add(1))),
        )?;
    }

    #[test]
    fn boolean(m in model(any::<bool>()), cuts in any::<[usize; 5]>()) {
        leak_checked(|alloc| {
            let build = |m: &[Option<bool>]| {
                let mut b = BooleanBuilder::new_in(alloc.clone());
                for v in m {
                    b.try_append_option(*v).unwrap();
                }
                b.finish()
            };
            let read = |a: &alkaid::array::BooleanArray<'static, A>, i| a.get(i);
            let other = |v: Option<&bool>| !v.copied().unwrap_or(false);
            Layout { build: &build, read: &read, other: &other, logical_nulls: false }
                .check(&m, cuts)
        })?;
    }

    #[test]
    fn null_layout(n in 0usize..100, cuts in any::<[usize; 5]>()) {
        let a: R = NullArray::new(n).into_array_ref();
        prop_assert_eq!(a.null_count(), n);
        prop_assert!((0..n).all(|i| a.is_null(i)));
        prop_assert_eq!(a.validate(ValidationLevel::Full), Ok(()));
        let (o, l) = cut(n, cuts[0], cuts[1]);
        let s = a.slice(o, l).unwrap();
        prop_assert!(s == NullArray::new(l).into_array_ref());
        prop_assert_eq!(s.null_count(), l);
        prop_assert!(a != NullArray::new(n + 1).into_array_ref());
        let ints = PrimitiveArray::<i32, A>::try_from_options_in(&vec![None; n], counting())
            .unwrap()
            .into_array_ref();
        prop_assert!(a != ints && !values_equal(&a, &ints));
    }
}

// ------------------------------------------------------ variable-size binary

fn strings() -> impl Strategy<Value = Model<String>> {
    // Lengths on both sides of the 12-byte inline limit of views.
    model("[a-zé€]{0,20}")
}

fn other_string(v: Option<&String>) -> String {
    v.map_or_else(String::new, |s| format!("{s}x"))
}

fn other_bytes(v: Option<&Vec<u8>>) -> Vec<u8> {
    let mut v = v.cloned().unwrap_or_default();
    v.push(0);
    v
}

macro_rules! bytes_layout {
    ($alloc:expr, $builder:ident, $m:expr, $cuts:expr, $conv:expr, $read:expr, $other:expr) => {{
        let build = |m: &[Option<_>]| {
            let mut b = $builder::new_in($alloc.clone());
            for v in m {
                b.try_append_option(v.as_ref().map($conv)).unwrap();
            }
            b.finish()
        };
        Layout {
            build: &build,
            read: &$read,
            other: &$other,
            logical_nulls: false,
        }
        .check(&$m, $cuts)
    }};
}

/// A view array whose long values each get their own data buffer, in reverse
/// order and after some unrelated bytes, and whose null slots view garbage.
fn scattered_views(m: &[Option<String>], alloc: &A) -> R {
    let mut views = Vec::new();
    let mut buffers = Vec::new();
    for (i, v) in m.iter().enumerate().rev() {
        let view = match v {
            Some(s) if s.len() > ByteView::MAX_INLINE_LEN => {
                let mut bytes = vec![b'#'; i % 5];
                bytes.extend_from_slice(s.as_bytes());
                buffers.push(buffer(&bytes, alloc));
                ByteView::try_new(s.as_bytes(), buffers.len() - 1, i % 5).unwrap()
            }
            Some(s) => ByteView::try_new_inline(s.as_bytes()).unwrap(),
            None => ByteView::try_new_inline(b"null!").unwrap(),
        };
        views.push(view);
    }
    views.reverse();
    let buffers = SharedSlice::try_from_iter_in(buffers, alloc.clone()).unwrap();
    StringViewArray::try_new(
        buffer(ByteView::slice_as_bytes(&views), alloc),
        buffers,
        bitmap(m.iter().map(Option::is_some), alloc),
    )
    .unwrap()
    .into_array_ref()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn variable_size_binary(
        s in strings(), b in model(vec(any::<u8>(), 0..20)), cuts in any::<[usize; 5]>(),
    ) {
        leak_checked(|alloc| {
            let read_s = |a: &alkaid::array::StringArray<'static, A>, i| a.get(i).map(str::to_owned);
            bytes_layout!(alloc, StringBuilder, s, cuts, String::as_str, read_s, other_string)?;
            let read_ls =
                |a: &alkaid::array::LargeStringArray<'static, A>, i| a.get(i).map(str::to_owned);
            bytes_layout!(alloc, LargeStringBuilder, s, cuts, String::as_str, read_ls, other_string)?;
            let read_b = |a: &alkaid::array::BinaryArray<'static, A>, i| a.get(i).map(<[u8]>::to_vec);
            bytes_layout!(alloc, BinaryBuilder, b, cuts, Vec::as_slice, read_b, other_bytes)?;
            let read_lb =
                |a: &alkaid::array::LargeBinaryArray<'static, A>, i| a.get(i).map(<[u8]>::to_vec);
            bytes_layout!(alloc, LargeBinaryBuilder, b, cuts, Vec::as_slice, read_lb, other_bytes)
        })?;
    }

    #[test]
    fn views(s in strings(), b in model(vec(any::<u8>(), 0..30)), cuts in any::<[usize; 5]>()) {
        leak_checked(|alloc| {
            let build_s = |m: &[Option<String>]| {
                let mut b = StringViewBuilder::new_in(alloc.clone());
                for v in m {
                    b.try_append_option(v.as_deref()).unwrap();
                }
                b.finish().unwrap()
            };
            let read_s = |a: &StringViewArray<'static, A>, i| a.get(i).map(str::to_owned);
            let strings = Layout {
                build: &build_s, read: &read_s, other: &other_string, logical_nulls: false,
            };
            strings.check(&s, cuts)?;
            // Other buffer arrangements, and the offsets layouts, by value.
            let views = strings.array_ref(&s);
            prop_assert!(views == scattered_views(&s, alloc));
            let mut plain = StringBuilder::new_in(alloc.clone());
            let mut large = LargeStringBuilder::new_in(alloc.clone());
            for v in &s {
                plain.try_append_option(v.as_deref()).unwrap();
                large.try_append_option(v.as_deref()).unwrap();
            }
            let (plain, large) = (plain.finish().into_array_ref(), large.finish().into_array_ref());
            prop_assert!(views != plain && values_equal(&views, &plain));
            prop_assert!(values_equal(&large, &views) && values_equal(&plain, &large));
            let read_b = |a: &BinaryViewArray<'static, A>, i| a.get(i).map(<[u8]>::to_vec);
            let build_b = |m: &[Option<Vec<u8>>]| {
                BinaryViewArray::try_from_iter_in(m.iter().map(|v| v.as_deref()), alloc.clone())
                    .unwrap()
            };
            Layout { build: &build_b, read: &read_b, other: &other_bytes, logical_nulls: false }
                .check(&b, cuts)
        })?;
    }

    #[test]
    fn fixed_size_binary(
        (w, m) in (0usize..5).prop_flat_map(|w| (Just(w), model(vec(any::<u8>(), w)))),
        cuts in any::<[usize; 5]>(),
    ) {
        leak_checked(|alloc| {
            let build = |m: &[Option<Vec<u8>>]| {
                let mut b = FixedSizeBinaryBuilder::try_new_in(w as i32, alloc.clone()).unwrap();
                for v in m {
                    b.try_append_option(v.as_deref()).unwrap();
                }
                b.finish()
            };
            let read = |a: &alkaid::array::FixedSizeBinaryArray<'static, A>, i| {
                a.get(i).map(<[u8]>::to_vec)
            };
            let other = |v: Option<&Vec<u8>>| {
                let mut v = v.cloned().unwrap_or_else(|| vec![0; w]);
                if let Some(b) = v.first_mut() {
                    *b = b.wrapping_add(1);
                }
                v
            };
            Layout { build: &build, read: &read, other: &other, logical_nulls: false }
                .check(&m, cuts)
        })?;
    }
}

// ------------------------------------------------------------------- unions

#[derive(Clone, Debug, PartialEq)]
enum UVal {
    I(i32),
    S(String),
}

fn uvals() -> impl Strategy<Value = Model<UVal>> {
    model(prop_oneof![
        any::<i32>().prop_map(UVal::I),
        "[a-z]{0,6}".prop_map(UVal::S)
    ])
}

/// `Union<i: Int32 (id 3), s: Utf8 (id 7)>`; a null slot selects a null of
/// child `i` on even slots, of `s` on odd ones. Sparse unions put `garbage`
/// (or nulls) in the slots the type ids do not select.
fn union(m: &[Option<UVal>], mode: UnionMode, garbage: bool, alloc: &A) -> UnionArray<'static, A> {
    let fields = SharedSlice::try_from_iter_in(
        [
            Field::new("i", DataType::Int32, true),
            Field::new("s", DataType::Utf8, true),
        ],
        alloc.clone(),
    )
    .unwrap();
    let fields = UnionFields::try_new(SharedSlice::borrowed(&[3, 7]), fields).unwrap();
    let mut ids = Vec::new();
    let mut offsets = Vec::new();
    let mut ints = PrimitiveBuilder::<i32, A>::new_in(alloc.clone());
    let mut strs = StringBuilder::new_in(alloc.clone());
    for (k, v) in m.iter().enumerate() {
        let (int, s) = match v {
            Some(UVal::I(x)) => (Some(Some(*x)), None),
            Some(UVal::S(x)) => (None, Some(Some(x.as_str()))),
            None if k % 2 == 0 => (Some(None), None),
            None => (None, Some(None)),
        };
        ids.push(if int.is_some() { 3i8 } else { 7 });
        match mode {
            UnionMode::Sparse => {
                let int_garbage = garbage.then_some(k as i32);
                ints.try_append_option(int.unwrap_or(int_garbage)).unwrap();
                strs.try_append_option(s.unwrap_or(garbage.then_some("garbage")))
                    .unwrap();
            }
            UnionMode::Dense => {
                if let Some(x) = int {
                    offsets.push(ints.len() as i32);
                    ints.try_append_option(x).unwrap();
                }
                if let Some(x) = s {
                    offsets.push(strs.len() as i32);
                    strs.try_append_option(x).unwrap();
                }
            }
        }
    }
    let children = SharedSlice::try_from_iter_in(
        [
            ints.finish().into_array_ref(),
            strs.finish().into_array_ref(),
        ],
        alloc.clone(),
    )
    .unwrap();
    let offsets = (mode == UnionMode::Dense)
        .then(|| ScalarBuffer::try_copy_in(&offsets, alloc.clone()).unwrap());
    UnionArray::try_new(
        fields,
        mode,
        ScalarBuffer::try_copy_in(&ids, alloc.clone()).unwrap(),
        offsets,
        children,
    )
    .unwrap()
}

fn read_union(u: &UnionArray<'static, A>, i: usize) -> Option<UVal> {
    let (_, c, s) = u.value(i)?;
    match u.children().get(c)? {
        ArrayRef::Int32(a) => a.get(s).map(UVal::I),
        ArrayRef::Utf8(a) => a.get(s).map(|x| UVal::S(x.to_owned())),
        _ => None,
    }
}

fn other_uval(v: Option<&UVal>) -> UVal {
    match v {
        Some(UVal::I(x)) => UVal::I(x.wrapping_add(1)),
        Some(UVal::S(s)) => UVal::S(format!("{s}x")),
        None => UVal::I(0),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn unions(m in uvals(), cuts in any::<[usize; 5]>()) {
        leak_checked(|alloc| {
            for mode in [UnionMode::Sparse, UnionMode::Dense] {
                let build = |m: &[Option<UVal>]| union(m, mode, false, alloc);
                let layout = Layout {
                    build: &build, read: &read_union, other: &other_uval, logical_nulls: true,
                };
                layout.check(&m, cuts)?;
                prop_assert_eq!(
                    build(&m).logical_null_count(),
                    m.iter().filter(|v| v.is_none()).count()
                );
            }
            let sparse = union(&m, UnionMode::Sparse, false, alloc).into_array_ref();
            let garbage = union(&m, UnionMode::Sparse, true, alloc).into_array_ref();
            let dense = union(&m, UnionMode::Dense, false, alloc).into_array_ref();
            prop_assert!(sparse == garbage);
            prop_assert!(!logical_eq(&sparse, &dense) && values_equal(&sparse, &dense));
            Ok(())
        })?;
    }
}

// ----------------------------------------------------- dictionary, run-end

/// Utf8 values dictionary-encoded with `i16` keys over the distinct values
/// (in order of appearance, or reversed, plus one unused entry).
fn string_dictionary(
    m: &[Option<String>],
    reversed: bool,
    alloc: &A,
) -> DictionaryArray<'static, A> {
    let mut distinct: Vec<&str> = Vec::new();
    for s in m.iter().flatten() {
        if !distinct.contains(&s.as_str()) {
            distinct.push(s);
        }
    }
    if reversed {
        distinct.reverse();
        distinct.insert(0, "unused");
    }
    let mut values = StringBuilder::new_in(alloc.clone());
    for s in &distinct {
        values.try_append_value(s).unwrap();
    }
    let mut b =
        DictionaryBuilder::<i16, A>::try_new_in(values.finish().into_array_ref(), alloc.clone())
            .unwrap();
    for v in m {
        let key = v
            .as_ref()
            .and_then(|s| distinct.iter().position(|d| d == s));
        b.try_append_option(key).unwrap();
    }
    b.finish()
}

fn read_string_dictionary(d: &DictionaryArray<'static, A>, i: usize) -> Option<String> {
    let k = d.key(i)?;
    match d.values() {
        ArrayRef::Utf8(v) => v.get(k).map(str::to_owned),
        _ => None,
    }
}

fn ree(m: &[Option<i64>], alloc: &A) -> RunArray<'static, A> {
    let mut b = PrimitiveRunBuilder::<i32, i64, A>::new_in(alloc.clone());
    for v in m {
        b.try_append_option(*v).unwrap();
    }
    b.finish().unwrap()
}

/// One run per slot (run ends `1..=n`).
fn ree_unmerged(m: &[Option<i64>], alloc: &A) -> R {
    let ends: Vec<i32> = (1..=m.len() as i32).collect();
    let ends = PrimitiveArray::try_new(
        DataType::Int32,
        ScalarBuffer::try_copy_in(&ends, alloc.clone()).unwrap(),
        None,
    )
    .unwrap();
    let values = PrimitiveArray::<i64, A>::try_from_options_in(m, alloc.clone()).unwrap();
    RunArray::try_new_in(RunEnds::Int32(ends), values.into_array_ref(), alloc.clone())
        .unwrap()
        .into_array_ref()
}

fn read_ree(r: &RunArray<'static, A>, i: usize) -> Option<i64> {
    match r.values() {
        ArrayRef::Int64(v) => v.get(r.physical_index(i)?),
        _ => None,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn dictionaries(
        s in model("[a-c]{0,2}"), p in model(0i32..6), cuts in any::<[usize; 5]>(),
    ) {
        leak_checked(|alloc| {
            let build = |m: &[Option<String>]| string_dictionary(m, false, alloc);
            let layout = Layout {
                build: &build, read: &read_string_dictionary, other: &other_string,
                logical_nulls: false,
            };
            layout.check(&s, cuts)?;
            let d = layout.array_ref(&s);
            prop_assert!(d == string_dictionary(&s, true, alloc).into_array_ref());
            let mut plain = StringBuilder::new_in(alloc.clone());
            for v in &s {
                plain.try_append_option(v.as_deref()).unwrap();
            }
            let plain = plain.finish().into_array_ref();
            prop_assert!(d != plain && values_equal(&d, &plain));
            // Primitive values, deduplicated by the builder.
            let build = |m: &[Option<i32>]| {
                let mut b = PrimitiveDictionaryBuilder::<u8, i32, A>::new_in(alloc.clone());
                for v in m {
                    b.try_append_option(*v).unwrap();
                }
                b.finish().unwrap()
            };
            let read = |d: &DictionaryArray<'static, A>, i| match (d.key(i), d.values()) {
                (Some(k), ArrayRef::Int32(v)) => v.get(k),
                _ => None,
            };
            let other = |v: Option<&i32>| v.map_or(0, |v| v + 1);
            let layout = Layout { build: &build, read: &read, other: &other, logical_nulls: false };
            layout.check(&p, cuts)?;
            let plain = PrimitiveArray::<i32, A>::try_from_options_in(&p, alloc.clone()).unwrap();
            prop_assert!(values_equal(&layout.array_ref(&p), &plain.into_array_ref()));
            Ok(())
        })?;
    }

    #[test]
    fn run_end_encoded(m in model(0i64..3), cuts in any::<[usize; 5]>()) {
        leak_checked(|alloc| {
            let build = |m: &[Option<i64>]| ree(m, alloc);
            let other = |v: Option<&i64>| v.map_or(0, |v| v + 1);
            let layout = Layout { build: &build, read: &read_ree, other: &other, logical_nulls: true };
            layout.check(&m, cuts)?;
            let r = layout.array_ref(&m);
            prop_assert!(r == ree_unmerged(&m, alloc));
            let (o, l) = cut(m.len(), cuts[1], cuts[3]);
            prop_assert!(r.slice(o, l).unwrap() == ree_unmerged(&m[o..o + l], alloc));
            let plain = PrimitiveArray::<i64, A>::try_from_options_in(&m, alloc.clone()).unwrap();
            let plain = plain.into_array_ref();
            prop_assert!(r != plain && values_equal(&r, &plain));
            Ok(())
        })?;
    }
}

// ------------------------------------------------------------------- nested

type Items = Vec<Option<i32>>;

fn items() -> impl Strategy<Value = Model<Items>> {
    model(vec(option::weighted(0.8, any::<i32>()), 0..5))
}

fn other_items(v: Option<&Items>) -> Items {
    let mut v = v.cloned().unwrap_or_default();
    v.push(Some(0));
    v
}

/// The `Int32` elements of a child slice (`None` for anything else).
fn ints(a: ArrayRef<'static, A>) -> Option<Items> {
    match a {
        ArrayRef::Int32(p) => Some(p.iter().collect()),
        _ => None,
    }
}

macro_rules! list_builder_fn {
    ($alloc:expr, $builder:ident) => {
        |m: &[Option<Items>]| {
            let mut b = $builder::new_in(
                PrimitiveBuilder::<i32, A>::new_in($alloc.clone()),
                $alloc.clone(),
            );
            for l in m {
                for x in l.iter().flatten() {
                    b.values().try_append_option(*x).unwrap();
                }
                b.try_append(l.is_some()).unwrap();
            }
            b.try_finish().unwrap()
        }
    };
}

/// A list array over a child with three leading elements and one element
/// under every null slot.
fn padded_list(m: &[Option<Items>], alloc: &A) -> R {
    let mut child = PrimitiveBuilder::<i32, A>::new_in(alloc.clone());
    let mut offsets = vec![3i32];
    for x in [7, 8, 9] {
        child.try_append_value(x).unwrap();
    }
    for l in m {
        match l {
            Some(xs) => xs.iter().for_each(|x| child.try_append_option(*x).unwrap()),
            None => child.try_append_value(-1).unwrap(),
        }
        offsets.push(child.len() as i32);
    }
    let field = FieldRef::try_new_in(Field::new("item", DataType::Int32, true), alloc.clone());
    ListArray::try_new(
        field.unwrap(),
        OffsetBuffer::try_new(ScalarBuffer::try_copy_in(&offsets, alloc.clone()).unwrap()).unwrap(),
        SharedBox::try_new_in(child.finish().into_array_ref(), alloc.clone()).unwrap(),
        bitmap(m.iter().map(Option::is_some), alloc),
    )
    .unwrap()
    .into_array_ref()
}

type Row = (Option<i32>, Option<String>);
type Entries = Vec<(String, Option<i32>)>;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(192))]

    #[test]
    fn lists(m in items(), cuts in any::<[usize; 5]>()) {
        leak_checked(|alloc| {
            let build = list_builder_fn!(alloc, ListBuilder);
            let read = |a: &GenericListArray<'static, i32, A>, i| a.get(i).and_then(ints);
            let list = Layout { build: &build, read: &read, other: &other_items, logical_nulls: false };
            list.check(&m, cuts)?;
            let build_large = list_builder_fn!(alloc, LargeListBuilder);
            let read_large = |a: &GenericListArray<'static, i64, A>, i| a.get(i).and_then(ints);
            Layout { build: &build_large, read: &read_large, other: &other_items, logical_nulls: false }
                .check(&m, cuts)?;
            let build_view = list_builder_fn!(alloc, ListViewBuilder);
            let read_view = |a: &GenericListViewArray<'static, i32, A>, i| a.get(i).and_then(ints);
            let view = Layout { build: &build_view, read: &read_view, other: &other_items, logical_nulls: false };
            view.check(&m, cuts)?;
            let l = list.array_ref(&m);
            prop_assert!(l == padded_list(&m, alloc));
            let large = build_large(&m).into_array_ref();
            let v = view.array_ref(&m);
            prop_assert!(l != large && values_equal(&l, &large));
            prop_assert!(l != v && values_equal(&l, &v) && values_equal(&v, &large));
            Ok(())
        })?;
    }

    #[test]
    fn fixed_size_lists(
        m in model(vec(option::weighted(0.8, any::<i32>()), 3)), cuts in any::<[usize; 5]>(),
    ) {
        leak_checked(|alloc| {
            let build = |m: &[Option<Items>]| {
                let mut b = FixedSizeListBuilder::new_in(
                    PrimitiveBuilder::<i32, A>::new_in(alloc.clone()), 3, alloc.clone());
                for l in m {
                    match l {
                        Some(xs) => {
                            xs.iter().for_each(|x| b.values().try_append_option(*x).unwrap());
                            b.try_append(true).unwrap();
                        }
                        None => b.try_append_null().unwrap(),
                    }
                }
                b.try_finish().unwrap()
            };
            let read = |a: &alkaid::array::FixedSizeListArray<'static, A>, i| a.get(i).and_then(ints);
            let other = |v: Option<&Items>| {
                let mut v = v.cloned().unwrap_or_else(|| vec![None; 3]);
                v[0] = Some(v[0].map_or(0, |x| x.wrapping_add(1)));
                v
            };
            Layout { build: &build, read: &read, other: &other, logical_nulls: false }.check(&m, cuts)
        })?;
    }

    #[test]
    fn structs(
        m in model((option::of(any::<i32>()), option::of("[a-z]{0,4}"))), cuts in any::<[usize; 5]>(),
    ) {
        leak_checked(|alloc| {
            let build = |m: &[Option<Row>]| {
                let fields = SharedSlice::try_from_iter_in(
                    [Field::new("a", DataType::Int32, true), Field::new("b", DataType::Utf8, true)],
                    alloc.clone(),
                ).unwrap();
                let children = (
                    PrimitiveBuilder::<i32, A>::new_in(alloc.clone()),
                    StringBuilder::new_in(alloc.clone()),
                );
                let mut b = StructBuilder::new_in(fields, children, alloc.clone());
                for r in m {
                    match r {
                        Some((x, s)) => {
                            b.children().0.try_append_option(*x).unwrap();
                            b.children().1.try_append_option(s.as_deref()).unwrap();
                            b.try_append(true).unwrap();
                        }
                        None => b.try_append_null().unwrap(),
                    }
                }
                b.try_finish().unwrap()
            };
            let read = |a: &StructArray<'static, A>, i: usize| -> Option<Row> {
                if !a.is_valid(i) {
                    return None;
                }
                match (a.column(0)?, a.column(1)?) {
                    (ArrayRef::Int32(x), ArrayRef::Utf8(s)) => {
                        Some((x.get(i), s.get(i).map(str::to_owned)))
                    }
                    _ => None,
                }
            };
            let other = |v: Option<&Row>| match v {
                Some((x, s)) => (Some(x.map_or(0, |x| x.wrapping_add(1))), s.clone()),
                None => (None, None),
            };
            Layout { build: &build, read: &read, other: &other, logical_nulls: false }.check(&m, cuts)
        })?;
    }

    #[test]
    fn maps(
        m in model(vec(("[a-z]{1,3}", option::of(any::<i32>())), 0..4)), cuts in any::<[usize; 5]>(),
    ) {
        leak_checked(|alloc| {
            let build = |m: &[Option<Entries>]| {
                let mut b = MapBuilder::new_in(
                    StringBuilder::new_in(alloc.clone()),
                    PrimitiveBuilder::<i32, A>::new_in(alloc.clone()),
                    alloc.clone(),
                );
                for r in m {
                    for (k, v) in r.iter().flatten() {
                        b.keys().try_append_value(k).unwrap();
                        b.values().try_append_option(*v).unwrap();
                    }
                    b.try_append(r.is_some()).unwrap();
                }
                b.try_finish().unwrap()
            };
            let read = |a: &MapArray<'static, A>, i| -> Option<Entries> {
                let e = a.get(i)?;
                match (e.column(0)?, e.column(1)?) {
                    (ArrayRef::Utf8(k), ArrayRef::Int32(v)) => Some(
                        (0..e.len()).map(|j| Some((k.get(j)?.to_owned(), v.get(j)))).collect::<Option<_>>()?,
                    ),
                    _ => None,
                }
            };
            let other = |v: Option<&Entries>| {
                let mut v = v.cloned().unwrap_or_default();
                v.push(("new".to_owned(), None));
                v
            };
            Layout { build: &build, read: &read, other: &other, logical_nulls: false }.check(&m, cuts)
        })?;
    }
}

#[test]
fn dictionary_keys_of_every_width_agree() {
    // Not a property: one fixed case so that every key type is covered.
    let alloc = counting();
    let values = ["x", "y"];
    let mut refs = Vec::new();
    macro_rules! with_keys {
        ($($k:ty),*) => {$({
            let mut v = StringBuilder::new_in(alloc.clone());
            values.iter().for_each(|s| v.try_append_value(s).unwrap());
            let mut b = DictionaryBuilder::<$k, A>::try_new_in(v.finish().into_array_ref(), alloc.clone()).unwrap();
            for k in [Some(1), None, Some(0), Some(1)] {
                b.try_append_option(k).unwrap();
            }
            refs.push(b.finish().into_array_ref());
        })*};
    }
    with_keys!(i8, i16, i32, i64, u8, u16, u32, u64);
    for a in &refs {
        for b in &refs {
            assert!(values_equal(a, b));
            let same_keys = matches!(
                (a, b),
                (ArrayRef::Dictionary(x), ArrayRef::Dictionary(y)) if x.index_type() == y.index_type()
            );
            assert_eq!(logical_eq(a, b), same_keys);
        }
    }
    drop(refs);
    assert_eq!(alloc.inner().bytes_outstanding(), 0);
}
