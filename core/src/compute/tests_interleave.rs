//! `interleave_in` against a plain model: random (array, row) pairs over
//! arrays with nulls, slices included; bounds errors; allocation failures.

use alloc::vec;
use alloc::vec::Vec;

use super::interleave_in;
use crate::array::{Array, ArrayRef, Int32Array, StringArray};
use crate::error::Error;
use crate::test_support::check_every_failure;
use crate::Global;

#[test]
fn random_pairs_give_the_models_values() {
    let parts: Vec<Vec<Option<i32>>> = vec![
        vec![Some(1), None, Some(3)],
        vec![],
        vec![Some(10), Some(11), None, Some(13), Some(14)],
    ];
    let arrays: Vec<ArrayRef<'static>> = parts
        .iter()
        .map(|p| Int32Array::from(p.clone()).into_array_ref())
        .collect();
    let sliced = arrays[2].slice(1, 3).unwrap();
    let refs: Vec<&ArrayRef<'static>> = vec![&arrays[0], &arrays[1], &sliced];
    let views: Vec<&[Option<i32>]> = vec![&parts[0], &parts[1], &parts[2][1..4]];
    let mut s = 0x1234_5678u64;
    let mut pairs = Vec::new();
    for _ in 0..100 {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        let a = [0usize, 2][(s % 2) as usize];
        pairs.push((a, (s >> 8) as usize % views[a].len()));
    }
    let got = interleave_in(&refs, &pairs, Global).unwrap();
    let got = got.as_primitive::<i32>().unwrap();
    let want: Vec<Option<i32>> = pairs.iter().map(|&(a, r)| views[a][r]).collect();
    assert_eq!(got.iter().collect::<Vec<_>>(), want);
    got.validate(crate::array::ValidationLevel::Full).unwrap();
}

#[test]
fn out_of_bounds_pairs_are_errors_with_their_position() {
    let a = StringArray::from(vec!["x"]).into_array_ref();
    let e = interleave_in(&[&a], &[(0, 0), (0, 1)], Global).unwrap_err();
    assert_eq!(e, Error::TakeIndexOutOfBounds);
    assert_eq!(e.location().row(), Some(1));
    let e = interleave_in(&[&a], &[(1, 0)], Global).unwrap_err();
    assert_eq!(e, Error::TakeIndexOutOfBounds);
    assert_eq!(
        interleave_in::<Global>(&[], &[], Global).unwrap_err(),
        Error::InvalidArgument
    );
    let n = Int32Array::from(vec![1]).into_array_ref();
    assert_eq!(
        interleave_in(&[&a, &n], &[(0, 0)], Global).unwrap_err(),
        Error::TypeMismatch
    );
}

#[test]
fn every_allocation_failure_is_an_error() {
    check_every_failure(|alloc| {
        let a: ArrayRef<'static, _> =
            StringArray::try_from_options_in(&[Some("a"), None], alloc.clone())?.into_array_ref();
        let b: ArrayRef<'static, _> =
            StringArray::try_from_options_in(&[Some("bb")], alloc.clone())?.into_array_ref();
        interleave_in(&[&a, &b], &[(1, 0), (0, 1), (0, 0)], alloc)
    });
}
