//! Miri-sized tests of the kernels whose results are built with an
//! `unsafe` `new_unchecked` constructor (take, filter, concat of nested
//! layouts, sort to indices, interleave): one small call per layout, each
//! result validated at `Full` and read back slot by slot, so that Miri
//! (CI's `miri` stage runs `compute::tests_miri`) checks every read of the
//! buffers those constructors trust. The larger tests beside them cover the
//! same kernels natively but take minutes under Miri.

use std::string::String;
use std::vec::Vec;

use super::tests::slots;
use super::tests_nested::{ints, strings};
use super::tests_select::{filter_checked, fixtures, take_checked};
use super::{concat, interleave_in, lexsort_to_indices_in, sort_to_indices_in, SortColumn};
use crate::array::{Array, ArrayRef, ValidationLevel};
use crate::row::SortOptions;
use crate::test_support::counting;
use crate::Global;

#[test]
fn take_every_layout() {
    for build in fixtures() {
        let full = build(counting());
        let a = full.slice(1, full.len() - 1).unwrap();
        let n = a.len() as u32;
        take_checked(&a, &[Some(n - 1), None, Some(0)], counting());
    }
}

#[test]
fn filter_every_layout() {
    for build in fixtures() {
        let full = build(counting());
        let a = full.slice(1, full.len() - 1).unwrap();
        let p: Vec<Option<bool>> = (0..a.len())
            .map(|i| (i != 1).then_some(i % 2 == 0))
            .collect();
        filter_checked(&a, &p, counting());
    }
}

#[test]
fn concat_every_layout() {
    for build in fixtures() {
        let full = build(counting());
        let tail = full.slice(1, full.len() - 1).unwrap();
        let c = concat(&[&full, &tail], counting()).unwrap();
        c.validate(ValidationLevel::Full).unwrap();
        let mut want = slots(&full);
        want.extend(slots(&tail));
        assert_eq!(slots(&c), want, "{:?}", full.data_type());
    }
}

#[test]
fn interleave_every_layout() {
    for build in fixtures() {
        let a = build(counting());
        let b = a.slice(1, a.len() - 1).unwrap();
        let pairs = [(1, 0), (0, 2), (1, b.len() - 1), (0, 0)];
        let got = interleave_in(&[&a, &b], &pairs, counting()).unwrap();
        got.validate(ValidationLevel::Full).unwrap();
        let (sa, sb) = (slots(&a), slots(&b));
        let want: Vec<String> = pairs
            .iter()
            .map(|&(k, i)| if k == 0 { sa[i].clone() } else { sb[i].clone() })
            .collect();
        assert_eq!(slots(&got), want, "{:?}", a.data_type());
    }
}

#[test]
fn sort_and_lexsort_small() {
    let a = ints(&[Some(3), None, Some(-1), Some(3), Some(0)], Global);
    let desc = SortOptions {
        descending: true,
        nulls_first: false,
    };
    let got = sort_to_indices_in(&a, Some(desc), None, Global).unwrap();
    assert_eq!(got.values(), &[0, 3, 4, 2, 1]);
    let top = sort_to_indices_in(&a, None, Some(2), Global).unwrap();
    assert_eq!(top.values(), &[1, 2]);
    // Two columns go through the row format.
    let s: ArrayRef<'static, Global> =
        strings(&[Some("b"), Some("z"), None, Some("a"), Some("")], Global);
    let columns = [
        SortColumn {
            values: &a,
            options: Some(desc),
        },
        SortColumn {
            values: &s,
            options: None,
        },
    ];
    let got = lexsort_to_indices_in(&columns, None, Global).unwrap();
    assert_eq!(got.values(), &[3, 0, 4, 2, 1]);
}
