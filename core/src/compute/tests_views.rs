//! View arrays through the selection kernels and `concat`: data buffers
//! are shared (memory bounded by the input's buffers plus the new views),
//! listed once however many inputs share them, and [`super::gc_in`]
//! copies out only the bytes still referenced.

use std::format;
use std::string::String;
use std::vec::Vec;

use crate::Global;

use super::tests::slots;
use super::{concat, filter_in, gc_in, take_in};
use crate::array::{Array, ArrayRef, BooleanArray, StringViewArray, ValidationLevel};
use crate::test_support::{check_every_failure, counting, TestAlloc};

/// `rows` strings of 20 to 40 bytes in `buffers` data buffers (one array
/// built per buffer, then concatenated: concat shares them).
fn many_buffers(rows: usize, buffers: usize) -> (ArrayRef<'static, Global>, Vec<String>) {
    let model: Vec<String> = (0..rows)
        .map(|i| format!("row {i:>8} {}", "x".repeat(i % 21)))
        .collect();
    let per = rows / buffers;
    let parts: Vec<ArrayRef<'static, Global>> = model
        .chunks(per)
        .map(|c| {
            let v: Vec<Option<&str>> = c.iter().map(|s| Some(s.as_str())).collect();
            StringViewArray::<Global>::try_from_options_in(&v, Global)
                .unwrap()
                .into_array_ref()
        })
        .collect();
    let refs: Vec<&ArrayRef<'static, Global>> = parts.iter().collect();
    let a = concat(&refs, Global).unwrap();
    (a, model)
}

fn as_views<'b>(a: &'b ArrayRef<'static, Global>) -> &'b StringViewArray<'static, Global> {
    let ArrayRef::Utf8View(v) = a else {
        panic!("not Utf8View")
    };
    v
}

#[test]
fn keep_one_percent_of_120k_rows_shares_the_50_buffers() {
    let (a, model) = many_buffers(120_000, 50);
    let input = as_views(&a);
    assert_eq!(input.data_buffers().len(), 50);
    let keep: Vec<bool> = (0..120_000).map(|i| i % 100 == 7).collect();
    let p = BooleanArray::from(keep.clone());
    let f = filter_in(&a, &p, Global).unwrap();
    f.validate(ValidationLevel::Full).unwrap();
    let out = as_views(&f);
    assert_eq!(out.len(), 1_200);
    assert!(out.data_buffers().ptr_eq(input.data_buffers()));
    let want: Vec<&str> = model
        .iter()
        .zip(&keep)
        .filter(|(_, k)| **k)
        .map(|(s, _)| s.as_str())
        .collect();
    assert_eq!(out.iter().map(Option::unwrap).collect::<Vec<_>>(), want);
    // The scenario: one-row slices concatenated share the buffers
    // (listed once each), instead of copying every buffer per slice.
    let slices: Vec<ArrayRef<'static, Global>> = (0..120_000)
        .step_by(100)
        .map(|i| a.slice(i + 7, 1).unwrap())
        .collect();
    let refs: Vec<&ArrayRef<'static, Global>> = slices.iter().collect();
    let c = concat(&refs, Global).unwrap();
    assert_eq!(as_views(&c).data_buffers().len(), 50);
    assert_eq!(slots(&c), slots(&f));
    // gc copies out the 1,200 values only.
    let g = gc_in(out, Global).unwrap();
    g.validate(ValidationLevel::Full).unwrap();
    let bytes: usize = want.iter().map(|s| s.len()).sum();
    assert_eq!(g.data_buffers().len(), 1);
    assert_eq!(g.data_buffers()[0].len(), bytes);
    assert_eq!(g.iter().map(Option::unwrap).collect::<Vec<_>>(), want);
}

/// Runs of slices of one array and slices of other arrays, interleaved:
/// every distinct buffer is listed once, the values are the inputs', and
/// concat's scratch stays in proportion to the distinct buffer lists, not
/// to slices × buffers.
#[test]
fn concat_of_interleaved_slice_runs_lists_each_buffer_once() {
    let (a, _) = many_buffers(6_000, 50);
    let (b, _) = many_buffers(600, 3);
    let mut parts = Vec::new();
    for i in 0..400 {
        parts.push(a.slice(i * 13 % 6_000, 2).unwrap());
        if i % 50 == 0 {
            parts.push(b.slice(i % 600, 3).unwrap());
            parts.push(b.slice(7, 1).unwrap());
        }
    }
    let want: Vec<String> = parts.iter().flat_map(|p| slots(p)).collect();
    let refs: Vec<&ArrayRef<'static, Global>> = parts.iter().collect();
    let c = concat(&refs, Global).unwrap();
    c.validate(ValidationLevel::Full).unwrap();
    assert_eq!(slots(&c), want);
    assert_eq!(as_views(&c).data_buffers().len(), 53);

    // 1,000 one-row slices of a 50-buffer array, concatenated in a counting
    // allocator: the peak is concat's copy of the input list, the 1,000
    // views and a base per input; a table of slices × buffers (50,000
    // entries of 24 bytes, as before) would not fit under it.
    let blocks: Vec<ArrayRef<'static, TestAlloc>> = (0..50)
        .map(|k| {
            let s: Vec<String> = (0..40)
                .map(|i| format!("block {k:>3} row {i:>8}"))
                .collect();
            let v: Vec<Option<&str>> = s.iter().map(|s| Some(s.as_str())).collect();
            StringViewArray::<TestAlloc>::try_from_options_in(&v, counting())
                .unwrap()
                .into_array_ref()
        })
        .collect();
    let refs: Vec<&ArrayRef<'static, TestAlloc>> = blocks.iter().collect();
    let one = concat(&refs, counting()).unwrap();
    let slices: Vec<ArrayRef<'static, TestAlloc>> =
        (0..1_000).map(|i| one.slice(i * 2, 1).unwrap()).collect();
    let refs: Vec<&ArrayRef<'static, TestAlloc>> = slices.iter().collect();
    let probe = counting();
    let c = concat(&refs, probe.clone()).unwrap();
    assert_eq!(as_views_of(&c).data_buffers().len(), 50);
    let peak = probe.inner().peak_bytes();
    let bound = 1_000 * (core::mem::size_of::<ArrayRef<'static, TestAlloc>>() + 16 + 8) + 8_192;
    assert!(peak < bound, "peak {peak} bytes, bound {bound}");
    assert!(
        bound < 50_000 * 24,
        "the bound must exclude a per-slice table"
    );
}

fn as_views_of<'b>(a: &'b ArrayRef<'static, TestAlloc>) -> &'b StringViewArray<'static, TestAlloc> {
    let ArrayRef::Utf8View(v) = a else {
        panic!("not Utf8View")
    };
    v
}

#[test]
fn filter_and_take_allocate_only_views_and_bitmap() {
    let rows = 12_000;
    let model: Vec<String> = (0..rows).map(|i| format!("value number {i:>10}")).collect();
    let v: Vec<Option<&str>> = model
        .iter()
        .enumerate()
        .map(|(i, s)| (i % 13 != 0).then_some(s.as_str()))
        .collect();
    let a = StringViewArray::<TestAlloc>::try_from_options_in(&v, counting())
        .unwrap()
        .into_array_ref();
    let data: usize = model.iter().map(|s| s.len()).sum();
    let mut b = crate::array::BooleanBuilder::new_in(counting());
    for i in 0..rows {
        b.try_append_value(i % 100 == 3).unwrap();
    }
    let p = b.finish();
    let probe = counting();
    let f = filter_in(&a, &p, probe.clone()).unwrap();
    let used = probe.inner().bytes_outstanding();
    // 120 views of 16 bytes and a 15-byte bitmap padded to 64 bytes, and
    // each allocation's 64-byte header (its reference count).
    assert_eq!(used, 120 * 16 + 64 + 2 * 64, "{used} bytes");
    assert!(used < data / 100);
    let ArrayRef::Utf8View(out) = &f else {
        panic!()
    };
    let ArrayRef::Utf8View(input) = &a else {
        panic!()
    };
    assert!(out.data_buffers().ptr_eq(input.data_buffers()));
    drop(f);
    let idx: Vec<usize> = (0..120).map(|i| (i * 97) % rows).collect();
    let probe = counting();
    let t = take_in(&a, &idx[..], probe.clone()).unwrap();
    assert_eq!(probe.inner().bytes_outstanding(), 120 * 16 + 64 + 2 * 64);
    let want: Vec<String> = idx.iter().map(|&i| slots(&a)[i].clone()).collect();
    assert_eq!(slots(&t), want);
}

#[test]
fn gc_keeps_inline_views_and_nulls() {
    let long = "a value well over twelve bytes";
    let a = StringViewArray::<Global>::try_from_options_in(
        &[Some("tiny"), None, Some(long), Some(long), Some("")],
        Global,
    )
    .unwrap();
    let g = gc_in(&a, Global).unwrap();
    g.validate(ValidationLevel::Full).unwrap();
    assert_eq!(g.iter().collect::<Vec<_>>(), a.iter().collect::<Vec<_>>());
    assert_eq!(g.data_buffers().len(), 1);
    assert_eq!(g.data_buffers()[0].len(), 2 * long.len());
    assert_eq!(g.view(0), a.view(0));
    assert_eq!(g.view(1).unwrap().to_u128(), 0);
    let empty = StringViewArray::<Global>::try_from_options_in(&[Some("s"), None], Global).unwrap();
    assert!(gc_in(&empty, Global).unwrap().data_buffers().is_empty());
}

#[test]
fn allocation_failures_views() {
    let long = "a value well over twelve bytes";
    let a = StringViewArray::<TestAlloc>::try_from_options_in(
        &[Some("tiny"), None, Some(long), Some(long), Some("")],
        counting(),
    )
    .unwrap();
    check_every_failure(|alloc| gc_in(&a, alloc));
    let r = a.clone().into_array_ref();
    check_every_failure(|alloc| concat(&[&r, &r.slice(2, 2)?, &r], alloc));
}
