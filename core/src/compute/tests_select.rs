//! Tests of [`super::take_in`] and [`super::filter_in`] on one fixture per
//! layout (unions included, which the value model of the property tests
//! does not build): slot by slot against the input's rendered slots,
//! sliced inputs, out-of-bounds indices, what is shared rather than copied,
//! and every allocation failure.

use std::string::String;
use std::vec::Vec;

use crate::Global;
use allocator_api2::alloc::Allocator;

use super::tests::slots;
use super::tests_nested::{
    dense, dictionary, ints, list, map_of, runs, sparse, strings, struct_of,
};
use super::{filter_in, filter_record_batch_in, take_in};
use crate::array::{
    Array, ArrayRef, BooleanArray, BooleanBuilder, FixedSizeBinaryArray, FixedSizeListBuilder,
    GenericListViewBuilder, NullArray, PrimitiveArray, PrimitiveBuilder, RecordBatch,
    StringViewArray, ValidationLevel,
};
use crate::buffer::SharedSlice;
use crate::datatypes::{DataType, Field, Schema};
use crate::error::{Error, ErrorKind, Result};
use crate::test_support::{check_every_failure, counting, TestAlloc};

fn list_view<A: Allocator + Clone>(alloc: A) -> ArrayRef<'static, A> {
    let mut b = GenericListViewBuilder::<i32, _, A>::new_in(
        PrimitiveBuilder::<i32, A>::new_in(alloc.clone()),
        alloc,
    );
    b.values().try_append_slice(&[1, 2, 3, 4]).unwrap();
    b.try_append_view(2, 2, true).unwrap();
    b.try_append_view(0, 0, false).unwrap();
    b.try_append_view(0, 3, true).unwrap();
    b.try_append_view(1, 1, true).unwrap();
    b.try_finish().unwrap().into_array_ref()
}

fn fixed_size_list<A: Allocator + Clone>(alloc: A) -> ArrayRef<'static, A> {
    let mut b =
        FixedSizeListBuilder::new_in(PrimitiveBuilder::<i16, A>::new_in(alloc.clone()), 2, alloc);
    for i in 0..5i16 {
        if i == 1 {
            b.try_append_null().unwrap();
        } else {
            b.values().try_append_slice(&[i, -i]).unwrap();
            b.try_append(true).unwrap();
        }
    }
    b.try_finish().unwrap().into_array_ref()
}

fn views<A: Allocator + Clone>(alloc: A) -> ArrayRef<'static, A> {
    StringViewArray::<A>::try_from_options_in(
        &[
            Some("a string longer than twelve bytes"),
            None,
            Some("short"),
            Some("another string longer than twelve"),
            Some(""),
        ],
        alloc,
    )
    .unwrap()
    .into_array_ref()
}

fn booleans<A: Allocator + Clone>(alloc: A) -> ArrayRef<'static, A> {
    let mut b = BooleanBuilder::new_in(alloc);
    for i in 0..11 {
        b.try_append_option((i % 4 != 2).then_some(i % 3 == 0))
            .unwrap();
    }
    b.finish().into_array_ref()
}

fn fixed_binary<A: Allocator + Clone>(alloc: A) -> ArrayRef<'static, A> {
    let v: [Option<&[u8]>; 4] = [Some(b"abc"), None, Some(b"xyz"), Some(b"\0\x01\x02")];
    FixedSizeBinaryArray::try_from_iter_in(3, v, alloc)
        .unwrap()
        .into_array_ref()
}

pub(super) type Build = fn(TestAlloc) -> ArrayRef<'static, TestAlloc>;

/// One array per layout.
pub(super) fn fixtures() -> [Build; 16] {
    [
        |_| NullArray::new(4).into_array_ref(),
        booleans,
        |a| ints(&[Some(1), None, Some(3), Some(4), None, Some(6)], a),
        |a| strings(&[Some("ab"), None, Some("cde"), Some("")], a),
        views,
        fixed_binary,
        |a| list::<i32, _>(&[Some(&[1, 2]), None, Some(&[3]), Some(&[])], a),
        |a| list::<i64, _>(&[Some(&[1]), Some(&[]), Some(&[5, 6, 7])], a),
        list_view,
        fixed_size_list,
        |a| struct_of(7, a),
        map_of,
        sparse,
        dense,
        |a| {
            dictionary(
                &[Some(1), None, Some(0), Some(2)],
                &[Some("x"), Some("y"), None],
                a,
            )
        },
        runs,
    ]
}

/// Whether slot `i` of `a` reads as null whatever the layout.
fn logically_null<A: Allocator>(a: &ArrayRef<'_, A>, i: usize) -> bool {
    match a {
        ArrayRef::Union(u) => u.is_logically_null(i),
        _ => slots(a)[i] == "null",
    }
}

/// Takes `a` by `idx` and checks the result against the rendered slots.
pub(super) fn take_checked<A: Allocator + Clone>(
    a: &ArrayRef<'static, A>,
    idx: &[Option<u32>],
    alloc: A,
) {
    let indices = PrimitiveArray::<u32, A>::try_from_options_in(idx, alloc.clone()).unwrap();
    let t = take_in(a, &indices, alloc).unwrap();
    t.validate(ValidationLevel::Full).unwrap();
    assert_eq!(t.data_type(), a.data_type());
    let (src, got) = (slots(a), slots(&t));
    assert_eq!(got.len(), idx.len());
    for (k, i) in idx.iter().enumerate() {
        match i {
            Some(j) => assert_eq!(got[k], src[*j as usize], "slot {k} of {:?}", a.data_type()),
            None => assert!(
                logically_null(&t, k),
                "slot {k} of {:?}: {}",
                a.data_type(),
                got[k]
            ),
        }
    }
}

#[test]
fn take_every_layout_sliced_with_null_indices() {
    for build in fixtures() {
        let full = build(counting());
        for a in [full.clone(), full.slice(1, full.len() - 1).unwrap()] {
            let n = a.len() as u32;
            take_checked(
                &a,
                &[Some(n - 1), None, Some(0), Some(1), Some(0), None],
                counting(),
            );
            take_checked(&a, &[], counting());
            let all: Vec<Option<u32>> = (0..n).rev().map(Some).collect();
            take_checked(&a, &all, counting());
        }
    }
}

#[test]
fn take_index_out_of_bounds_is_an_error_with_its_position() {
    for build in fixtures() {
        let a = build(counting());
        let n = a.len() as u32;
        let idx = PrimitiveArray::<u32, TestAlloc>::try_from_options_in(
            &[Some(0), None, Some(n)],
            counting(),
        )
        .unwrap();
        let e = take_in(&a, &idx, counting()).unwrap_err();
        assert_eq!(
            e.kind(),
            ErrorKind::TakeIndexOutOfBounds,
            "{:?}",
            a.data_type()
        );
        assert_eq!(e.location().row(), Some(2), "{:?}", a.data_type());
        // Indices without nulls (the gathers without a branch per index):
        // the first bad one is reported, not a later one.
        let idx: &[u32] = &[0, 0, n, 0, n + 7];
        let e = take_in(&a, idx, counting()).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::TakeIndexOutOfBounds);
        assert_eq!(e.location().row(), Some(2), "{:?}", a.data_type());
        // A null index is not read, whatever its value.
        let idx =
            PrimitiveArray::<u64, TestAlloc>::try_from_options_in(&[Some(0), None], counting())
                .unwrap();
        let (values, _) = (idx.values().to_vec(), ());
        assert_eq!(values.len(), 2);
        assert!(take_in(&a, &idx, counting()).is_ok());
        let big: &[usize] = &[usize::MAX];
        assert_eq!(
            take_in(&a, big, counting()).unwrap_err(),
            Error::TakeIndexOutOfBounds
        );
    }
}

/// Predicates of `n` slots: mostly true (runs), sparse (set bits), with
/// nulls, all false, all true.
fn predicates(n: usize) -> Vec<Vec<Option<bool>>> {
    std::vec![
        (0..n).map(|i| Some(i % 7 != 3)).collect(),
        (0..n).map(|i| Some(i % 3 == 1)).collect(),
        (0..n)
            .map(|i| if i % 4 == 0 { None } else { Some(i % 2 == 0) })
            .collect(),
        std::vec![Some(false); n],
        std::vec![Some(true); n],
    ]
}

pub(super) fn filter_checked<A: Allocator + Clone>(
    a: &ArrayRef<'static, A>,
    p: &[Option<bool>],
    alloc: A,
) {
    let mut b = BooleanBuilder::new_in(alloc.clone());
    b.try_append_option(None).unwrap();
    for v in p {
        b.try_append_option(*v).unwrap();
    }
    let pred = b.finish().slice(1, p.len()).unwrap();
    let f = filter_in(a, &pred, alloc).unwrap();
    f.validate(ValidationLevel::Full).unwrap();
    assert_eq!(f.data_type(), a.data_type());
    let want: Vec<String> = slots(a)
        .into_iter()
        .zip(p)
        .filter(|(_, p)| **p == Some(true))
        .map(|(s, _)| s)
        .collect();
    assert_eq!(slots(&f), want, "{:?} by {p:?}", a.data_type());
}

#[test]
fn filter_every_layout_sliced() {
    for build in fixtures() {
        let full = build(counting());
        for a in [full.clone(), full.slice(1, full.len() - 1).unwrap()] {
            for p in predicates(a.len()) {
                filter_checked(&a, &p, counting());
            }
        }
    }
    // Long enough for several 64-bit words, at both strategies.
    let v: Vec<Option<i32>> = (0..300).map(|i| (i % 11 != 0).then_some(i)).collect();
    let a = ints(&v, Global).slice(5, 290).unwrap();
    let s: Vec<String> = (0..300).map(|i| std::format!("s{i}")).collect();
    let s: Vec<Option<&str>> = s.iter().map(|s| Some(s.as_str())).collect();
    let b = StringViewArray::<Global>::try_from_options_in(&s, Global)
        .unwrap()
        .into_array_ref();
    for p in predicates(290) {
        filter_checked(&a, &p, Global);
        filter_checked(&b.slice(3, 290).unwrap(), &p, Global);
        filter_checked(&struct_of(290, Global), &p, Global);
    }
}

#[test]
fn filter_length_mismatch() {
    let a = ints(&[Some(1), Some(2)], Global);
    let p = BooleanArray::from(std::vec![true]);
    assert_eq!(
        filter_in(&a, &p, Global).unwrap_err(),
        Error::LengthMismatch
    );
}

#[test]
fn filter_record_batch_filters_every_column() {
    let fields = SharedSlice::try_from_iter_in(
        [
            Field::new("i", DataType::Int32, true),
            Field::new("s", DataType::Utf8View, true),
        ],
        Global,
    )
    .unwrap();
    let schema = Schema::new(fields);
    let cols = [
        ints(&[Some(1), None, Some(3), Some(4), None], Global),
        views(Global),
    ];
    let batch =
        RecordBatch::try_new(schema, SharedSlice::try_from_iter_in(cols, Global).unwrap()).unwrap();
    let p = BooleanArray::from(std::vec![
        Some(true),
        Some(false),
        None,
        Some(true),
        Some(true)
    ]);
    let f = filter_record_batch_in(&batch, &p, Global).unwrap();
    assert_eq!(f.num_rows(), 3);
    assert_eq!(slots(&f.columns()[0]), ["1", "4", "null"]);
    assert_eq!(
        slots(&f.columns()[1])[1],
        "\"another string longer than twelve\""
    );
    let short = BooleanArray::from(std::vec![true]);
    assert_eq!(
        filter_record_batch_in(&batch, &short, Global).unwrap_err(),
        Error::LengthMismatch
    );
}

#[test]
fn shared_not_copied() {
    let v = views(Global);
    let t = take_in(&v, &[3usize, 0][..], Global).unwrap();
    let (ArrayRef::Utf8View(a), ArrayRef::Utf8View(b)) = (&v, &t) else {
        panic!()
    };
    assert!(a.data_buffers().ptr_eq(b.data_buffers()));
    let d = dictionary(&[Some(1), None, Some(0)], &[Some("x"), Some("y")], Global);
    let p = BooleanArray::from(std::vec![true, false, true]);
    for r in [
        take_in(&d, &[2usize][..], Global).unwrap(),
        filter_in(&d, &p, Global).unwrap(),
    ] {
        let (ArrayRef::Dictionary(a), ArrayRef::Dictionary(b)) = (&d, &r) else {
            panic!()
        };
        assert!(a.values_shared().ptr_eq(b.values_shared()));
    }
    let l = list_view(Global);
    let t = take_in(&l, &[2usize, 2][..], Global).unwrap();
    let (ArrayRef::ListView(a), ArrayRef::ListView(b)) = (&l, &t) else {
        panic!()
    };
    assert_eq!(a.values().len(), b.values().len());
    assert_eq!(b.value_offsets(), &[0, 0]);
}

#[test]
fn allocation_failures_select() {
    for build in fixtures() {
        let a = build(counting());
        let a = a.slice(1, a.len() - 1).unwrap();
        let n = a.len() as u32;
        let idx = PrimitiveArray::<u32, TestAlloc>::try_from_options_in(
            &[Some(n - 1), None, Some(0), Some(n - 1)],
            counting(),
        )
        .unwrap();
        check_every_failure(|alloc| -> Result<ArrayRef<'static, TestAlloc>> {
            take_in(&a, &idx, alloc)
        });
        for p in predicates(a.len()) {
            let mut b = BooleanBuilder::new_in(counting());
            for v in &p {
                b.try_append_option(*v).unwrap();
            }
            let p = b.finish();
            check_every_failure(|alloc| filter_in(&a, &p, alloc));
        }
    }
}

#[test]
fn allocation_failures_filter_record_batch() {
    let fields = SharedSlice::try_from_iter_in(
        [
            Field::new("i", DataType::Int32, true),
            Field::new("s", DataType::Utf8View, true),
        ],
        counting(),
    )
    .unwrap();
    let cols = [
        ints(&[Some(1), None, Some(3), Some(4), None], counting()),
        views(counting()),
    ];
    let batch = RecordBatch::try_new(
        Schema::new(fields),
        SharedSlice::try_from_iter_in(cols, counting()).unwrap(),
    )
    .unwrap();
    for p in predicates(5) {
        let mut b = BooleanBuilder::new_in(counting());
        for v in &p {
            b.try_append_option(*v).unwrap();
        }
        let p = b.finish();
        check_every_failure(|alloc| filter_record_batch_in(&batch, &p, alloc));
    }
}

/// Utf8 values of every length from 0 to 80 bytes, so that take and filter
/// copy short values (a fixed-size move past the value's end), long ones,
/// and the last values of the data (no room for the fixed-size move),
/// from a sliced array, with null indices and a null slot.
#[test]
fn take_and_filter_strings_of_every_length_up_to_80_bytes() {
    let owned: Vec<Option<String>> = (0..81usize)
        .map(|len| {
            (len != 40).then(|| {
                (0..len)
                    .map(|i| char::from(b'a' + ((len + i) % 26) as u8))
                    .collect()
            })
        })
        .collect();
    let refs: Vec<Option<&str>> = owned.iter().map(|s| s.as_deref()).collect();
    let full = strings(&refs, Global);
    for a in [full.clone(), full.slice(3, 78).unwrap()] {
        let n = a.len() as u32;
        let mut idx: Vec<Option<u32>> = (0..n).rev().map(Some).collect();
        idx.extend((0..n).step_by(3).map(|i| (i % 2 == 0).then_some(i)));
        idx.extend([Some(n - 1), Some(n - 2), Some(0), Some(n - 1)]);
        take_checked(&a, &idx, Global);
        for p in predicates(a.len()) {
            filter_checked(&a, &p, Global);
        }
        // Few kept slots (listed positions), and every slot but one.
        let sparse: Vec<Option<bool>> = (0..a.len()).map(|i| Some(i % 11 == 5)).collect();
        filter_checked(&a, &sparse, Global);
        let dense: Vec<Option<bool>> = (0..a.len()).map(|i| Some(i != 4)).collect();
        filter_checked(&a, &dense, Global);
    }
}
