//! Unions in the row format: exact bytes, order and round trips.

use std::vec::Vec;

use super::*;
use crate::array::{Array, ArrayRef, Int32Array, StringArray, UnionArray};
use crate::buffer::{ScalarBuffer, SharedSlice};
use crate::datatypes::{DataType, Field, UnionFields, UnionMode};
use crate::Global;

const OPTIONS: [SortOptions; 4] = [
    SortOptions::new(false, true),
    SortOptions::new(false, false),
    SortOptions::new(true, true),
    SortOptions::new(true, false),
];

/// Union<0: Int32, 5: Utf8>.
fn fields() -> UnionFields<'static> {
    UnionFields::try_new(
        SharedSlice::from(std::vec![0i8, 5]),
        SharedSlice::from(std::vec![
            Field::new("i", DataType::Int32, true),
            Field::new("s", DataType::Utf8, true),
        ]),
    )
    .unwrap()
}

/// The logical values of the test unions: `(type id, value)`, `None` a null.
#[derive(Debug, Clone, PartialEq, PartialOrd)]
enum V {
    I(Option<i32>),
    S(Option<&'static str>),
}

const VALUES: [V; 8] = [
    V::I(Some(3)),
    V::S(Some("abc")),
    V::I(None),
    V::S(None),
    V::I(Some(-7)),
    V::S(Some("ab")),
    V::I(Some(3)),
    V::S(Some("b")),
];

fn sparse() -> ArrayRef<'static> {
    let ints: Vec<Option<i32>> = VALUES
        .iter()
        .map(|v| if let V::I(x) = v { *x } else { Some(99) })
        .collect();
    let strs: Vec<Option<&str>> = VALUES
        .iter()
        .map(|v| if let V::S(x) = v { *x } else { Some("zz") })
        .collect();
    let ids: Vec<i8> = VALUES
        .iter()
        .map(|v| if matches!(v, V::I(_)) { 0 } else { 5 })
        .collect();
    UnionArray::try_new(
        fields(),
        UnionMode::Sparse,
        ScalarBuffer::try_copy_in(&ids, Global).unwrap(),
        None,
        SharedSlice::from(std::vec![
            Int32Array::from(ints).into_array_ref(),
            StringArray::from(strs).into_array_ref(),
        ]),
    )
    .unwrap()
    .into_array_ref()
}

fn dense() -> ArrayRef<'static> {
    let (mut ints, mut strs, mut ids, mut offsets) = (
        Vec::new(),
        Vec::<Option<&str>>::new(),
        Vec::new(),
        Vec::new(),
    );
    for v in &VALUES {
        match v {
            V::I(x) => {
                ids.push(0i8);
                offsets.push(ints.len() as i32);
                ints.push(*x);
            }
            V::S(x) => {
                ids.push(5);
                offsets.push(strs.len() as i32);
                strs.push(*x);
            }
        }
    }
    UnionArray::try_new(
        fields(),
        UnionMode::Dense,
        ScalarBuffer::try_copy_in(&ids, Global).unwrap(),
        Some(ScalarBuffer::try_copy_in(&offsets, Global).unwrap()),
        SharedSlice::from(std::vec![
            Int32Array::from(ints).into_array_ref(),
            StringArray::from(strs).into_array_ref(),
        ]),
    )
    .unwrap()
    .into_array_ref()
}

/// The order of `a` and `b` under `o`: by type id, then by the value with
/// nulls placed as `o` says.
fn model_cmp(a: &V, b: &V, o: SortOptions) -> core::cmp::Ordering {
    use core::cmp::Ordering;
    fn inner<T: PartialOrd>(x: &Option<T>, y: &Option<T>, nulls_first: bool) -> Ordering {
        match (x, y) {
            (None, None) => Ordering::Equal,
            (None, Some(_)) if nulls_first => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (Some(_), None) => inner(y, x, nulls_first).reverse(),
            (Some(p), Some(q)) => p.partial_cmp(q).unwrap_or(Ordering::Equal),
        }
    }
    // Nulls stay where `nulls_first` puts them whatever the direction.
    let value = |x: Ordering, null_involved: bool| {
        if o.descending && !null_involved {
            x.reverse()
        } else {
            x
        }
    };
    match (a, b) {
        (V::I(x), V::I(y)) => value(inner(x, y, o.nulls_first), x.is_none() || y.is_none()),
        (V::S(x), V::S(y)) => value(inner(x, y, o.nulls_first), x.is_none() || y.is_none()),
        (V::I(_), V::S(_)) if o.descending => Ordering::Greater,
        (V::I(_), V::S(_)) => Ordering::Less,
        _ => model_cmp(b, a, o).reverse(),
    }
}

#[test]
fn union_rows_order_and_round_trip() {
    for column in [sparse(), dense()] {
        for o in OPTIONS {
            let field = SortField::new_with_options(column.data_type().clone(), o);
            let c = RowConverter::try_new(core::slice::from_ref(&field)).unwrap();
            let rows = c.convert_columns(core::slice::from_ref(&column)).unwrap();
            for (i, a) in VALUES.iter().enumerate() {
                for (j, b) in VALUES.iter().enumerate() {
                    let got = rows.row(i).cmp(&rows.row(j));
                    assert_eq!(got, model_cmp(a, b, o), "{o:?} rows {i} {j}: {a:?} {b:?}");
                }
            }
            let back = c.convert_rows(rows.iter()).unwrap();
            let back = back.first().unwrap();
            assert_eq!(back.data_type(), column.data_type());
            assert!(
                crate::array::logical_eq(back, &column),
                "{o:?}: {back:?} != {column:?}"
            );
        }
    }
}

#[test]
fn union_row_bytes() {
    let c = RowConverter::try_new(&[SortField::new(sparse().data_type().clone())]).unwrap();
    let rows = c.convert_columns(&[sparse()]).unwrap();
    // 3 as Int32 (type id 0): the id, then the signed integer encoding.
    assert_eq!(rows.row(0).unwrap().data(), &[0x00, 0x01, 0x80, 0, 0, 3]);
    // A null Int32: the id, then the null sentinel and zeros.
    assert_eq!(rows.row(2).unwrap().data(), &[0x00, 0x00, 0, 0, 0, 0]);
    // A null Utf8 (type id 5).
    assert_eq!(rows.row(3).unwrap().data(), &[0x05, 0x00]);
    // Descending: the id inverted, the value's encoding descending.
    let desc = SortOptions::new(true, false);
    let field = SortField::new_with_options(sparse().data_type().clone(), desc);
    let c = RowConverter::try_new(&[field]).unwrap();
    let rows = c.convert_columns(&[sparse()]).unwrap();
    assert_eq!(
        rows.row(0).unwrap().data(),
        &[0xFF, 0x01, 0x7F, 0xFF, 0xFF, 0xFC]
    );
}

#[test]
fn malformed_union_rows_are_errors() {
    let c = RowConverter::try_new(&[SortField::new(dense().data_type().clone())]).unwrap();
    // An undeclared type id, a truncated value, nothing at all.
    for bad in [&[0x03, 0x01, 0x80, 0, 0, 3][..], &[0x00, 0x01, 0x80], &[]] {
        assert_eq!(
            c.convert_rows([Row::new(bad)]).unwrap_err(),
            Error::InvalidRow,
            "{bad:?}"
        );
    }
}

#[test]
fn unions_nested_in_lists_round_trip() {
    use crate::array::ListArray;
    use crate::buffer::{OffsetBuffer, SharedBox};
    let u = dense();
    let item =
        SharedBox::try_new_in(Field::new("item", u.data_type().clone(), true), Global).unwrap();
    let offsets =
        OffsetBuffer::try_new(ScalarBuffer::try_copy_in(&[0i32, 3, 3, 8], Global).unwrap())
            .unwrap();
    let lists = ListArray::try_new_in(item, offsets, u, None, Global)
        .unwrap()
        .into_array_ref();
    for o in OPTIONS {
        let field = SortField::new_with_options(lists.data_type().clone(), o);
        let c = RowConverter::try_new(core::slice::from_ref(&field)).unwrap();
        let rows = c.convert_columns(core::slice::from_ref(&lists)).unwrap();
        let back = c.convert_rows(rows.iter()).unwrap();
        assert!(crate::array::logical_eq(&back[0], &lists), "{o:?}");
        // [] sorts before any non-empty list ascending.
        assert_eq!(rows.row(1) < rows.row(0), !o.descending, "{o:?}");
    }
}
