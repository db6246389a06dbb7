//! The row format's nested integer columns against arrow-rs 60's `arrow-row`,
//! byte for byte, under all four [`SortOptions`]:
//!
//! - lists of Int64, large lists of UInt16, fixed-size lists of Int64 and
//!   lists of dictionaries of Int64 (nulls at both levels, empty lists,
//!   sliced arrays): equal bytes;
//! - dictionaries with Int32, UInt16 and Int64 keys over Int64 and UInt16
//!   values, with null keys, null values, repeated and unused values:
//!   equal bytes (both encode a dictionary by value);
//! - sparse and dense unions of Int32, Int64 and UInt16 children with
//!   shuffled type ids: equal bytes ascending. Descending, arrow-row 60
//!   inverts only the type id byte and leaves the child's row encoded
//!   ascending with `nulls_first` flipped (so inside one type its rows sort
//!   ascending, and with nulls first asked its nulls come last); ours
//!   encodes the child with the union's own options. The test checks that
//!   exact relation: both rows are the inverted type id followed by the
//!   child's row, ours under the union's options and arrow-row's under
//!   (ascending, `nulls_first != descending`).

use std::sync::Arc;

use alkaid::array::{
    Array, ArrayRef, DictionaryArray, DictionaryKeys, FixedSizeListArray, LargeListArray,
    ListArray, PrimitiveArray, PrimitiveType, UnionArray,
};
use alkaid::buffer::SharedSlice;
use alkaid::buffer::{NullBuffer, NullBufferBuilder, OffsetBuffer, ScalarBuffer, SharedBox};
use alkaid::datatypes::{DataType, Field, UnionFields, UnionMode};
use alkaid::row::{RowConverter, SortField, SortOptions};
use alkaid::Global as G;
use arrow_array as aa;
use arrow_array::types as at;
use arrow_schema::DataType as ADt;
use proptest::collection::vec;
use proptest::prelude::*;

type Dt = DataType<'static, G>;
type Ours = ArrayRef<'static, G>;

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

/// Our rows of one column.
fn ours(col: &Ours, o: SortOptions) -> Vec<Vec<u8>> {
    let field = SortField::new_with_options(col.data_type().clone(), o);
    let c = RowConverter::try_new(&[field]).unwrap();
    let rows = c.convert_columns(std::slice::from_ref(col)).unwrap();
    rows.iter().map(|r| r.data().to_vec()).collect()
}

/// arrow-row's rows of one column.
fn theirs(col: &aa::ArrayRef, o: SortOptions) -> Vec<Vec<u8>> {
    let field = arrow_row::SortField::new_with_options(col.data_type().clone(), theirs_options(o));
    let c = arrow_row::RowConverter::new(vec![field]).unwrap();
    let rows = c.convert_columns(std::slice::from_ref(col)).unwrap();
    rows.iter().map(|r| r.as_ref().to_vec()).collect()
}

fn nulls(valid: impl Iterator<Item = bool>) -> Option<NullBuffer<'static, G>> {
    let mut b = NullBufferBuilder::new_in(G);
    for v in valid {
        b.try_append(v).unwrap();
    }
    b.finish()
}

fn arrow_nulls(valid: impl Iterator<Item = bool>) -> Option<arrow_buffer::NullBuffer> {
    let v: Vec<bool> = valid.collect();
    v.iter()
        .any(|b| !b)
        .then(|| arrow_buffer::NullBuffer::from(v))
}

fn field(name: &'static str, dt: Dt) -> alkaid::datatypes::FieldRef<'static, G> {
    SharedBox::try_new_in(Field::new(name, dt, true), G).unwrap()
}

fn prim<T: PrimitiveType>(v: Vec<Option<T>>) -> Ours {
    PrimitiveArray::<T, G>::from(v).into_array_ref()
}

/// Integers: small ones (ties, signs) and any.
fn int() -> impl Strategy<Value = Option<i64>> {
    prop_oneof![
        1 => Just(None),
        2 => (-3i64..3).prop_map(Some),
        3 => any::<i64>().prop_map(Some),
    ]
}

fn lists_of<T>(
    lists: &[Option<Vec<Option<i64>>>],
    f: impl Fn(i64) -> T,
) -> (Vec<usize>, Vec<Option<T>>) {
    let mut offsets = vec![0];
    let mut items = Vec::new();
    for l in lists {
        items.extend(l.iter().flatten().map(|x| x.map(&f)));
        offsets.push(items.len());
    }
    (offsets, items)
}

// ----- lists -----

#[derive(Debug, Clone)]
struct Lists {
    lists: Vec<Option<Vec<Option<i64>>>>,
    fixed: Vec<Option<[Option<i64>; 3]>>,
    /// Start and length of the slice of the list columns.
    slice: (usize, usize),
}

fn lists() -> impl Strategy<Value = Lists> {
    (0usize..14).prop_flat_map(|n| {
        let l = prop::option::of(vec(int(), 0..5));
        let x = prop::option::of([int(), int(), int()]);
        (vec(l, n), vec(x, n), 0..=n, 0..=n).prop_map(move |(lists, fixed, a, b)| Lists {
            lists,
            fixed,
            slice: (a.min(b), a.max(b) - a.min(b)),
        })
    })
}

/// List<Int64>, LargeList<UInt16>, FixedSizeList<Int64, 3>: ours and theirs.
fn list_columns(m: &Lists) -> Vec<(Ours, aa::ArrayRef)> {
    let valid = || m.lists.iter().map(Option::is_some);
    let (offsets, items) = lists_of(&m.lists, |x| x);
    let o32: Vec<i32> = offsets.iter().map(|&o| o as i32).collect();
    let ours_list = ListArray::try_new_in(
        field("item", DataType::Int64),
        OffsetBuffer::try_new(ScalarBuffer::try_copy_in(&o32, G).unwrap()).unwrap(),
        prim(items),
        nulls(valid()),
        G,
    )
    .unwrap()
    .into_array_ref();
    let theirs_list = aa::ListArray::from_iter_primitive::<at::Int64Type, _, _>(m.lists.clone());

    let (offsets, items) = lists_of(&m.lists, |x| x as u16);
    let o64: Vec<i64> = offsets.iter().map(|&o| o as i64).collect();
    let ours_large = LargeListArray::try_new_in(
        field("item", DataType::UInt16),
        OffsetBuffer::try_new(ScalarBuffer::try_copy_in(&o64, G).unwrap()).unwrap(),
        prim(items),
        nulls(valid()),
        G,
    )
    .unwrap()
    .into_array_ref();
    let theirs_large = aa::LargeListArray::from_iter_primitive::<at::UInt16Type, _, _>(
        m.lists
            .iter()
            .map(|l| l.as_ref().map(|l| l.iter().map(|x| x.map(|x| x as u16)))),
    );

    let flat: Vec<Option<i64>> = m
        .fixed
        .iter()
        .flat_map(|x| x.unwrap_or([None, Some(7), None]))
        .collect();
    let ours_fixed = FixedSizeListArray::try_new(
        field("item", DataType::Int64),
        3,
        m.fixed.len(),
        SharedBox::try_new_in(prim(flat.clone()), G).unwrap(),
        nulls(m.fixed.iter().map(Option::is_some)),
    )
    .unwrap()
    .into_array_ref();
    let theirs_fixed = aa::FixedSizeListArray::try_new(
        Arc::new(arrow_schema::Field::new("item", ADt::Int64, true)),
        3,
        Arc::new(aa::Int64Array::from(flat)),
        arrow_nulls(m.fixed.iter().map(Option::is_some)),
    )
    .unwrap();

    let (start, len) = m.slice;
    vec![
        (
            ours_list.clone(),
            Arc::new(theirs_list.clone()) as aa::ArrayRef,
        ),
        (ours_large, Arc::new(theirs_large)),
        (ours_fixed, Arc::new(theirs_fixed)),
        (
            ours_list.slice(start, len).unwrap(),
            Arc::new(theirs_list.slice(start, len)),
        ),
    ]
}

// ----- dictionaries -----

#[derive(Debug, Clone)]
struct Dicts {
    /// Dictionary values (nulls, repeats and unused ones included).
    values: Vec<Option<i64>>,
    /// Keys into `values` (`None`: a null key).
    keys: Vec<Option<usize>>,
    /// Lists of keys, for List<Dictionary<Int32, Int64>>.
    lists: Vec<Option<Vec<Option<usize>>>>,
}

fn dicts() -> impl Strategy<Value = Dicts> {
    (vec(int(), 1..8), 0usize..16, 0usize..8).prop_flat_map(|(values, n, m)| {
        let d = values.len();
        let key = prop::option::weighted(0.8, 0..d);
        let list = prop::option::of(vec(key.clone(), 0..4));
        (Just(values), vec(key, n), vec(list, m)).prop_map(|(values, keys, lists)| Dicts {
            values,
            keys,
            lists,
        })
    })
}

/// Our dictionary of `values` under `keys`, with keys of type `k`.
fn ours_dict(k: ADt, keys: &[Option<usize>], values: Ours) -> Ours {
    let keys = match k {
        ADt::Int32 => DictionaryKeys::Int32(PrimitiveArray::from(
            keys.iter().map(|k| k.map(|k| k as i32)).collect::<Vec<_>>(),
        )),
        ADt::UInt16 => DictionaryKeys::UInt16(PrimitiveArray::from(
            keys.iter().map(|k| k.map(|k| k as u16)).collect::<Vec<_>>(),
        )),
        _ => DictionaryKeys::Int64(PrimitiveArray::from(
            keys.iter().map(|k| k.map(|k| k as i64)).collect::<Vec<_>>(),
        )),
    };
    DictionaryArray::try_new_in(keys, values, false, G)
        .unwrap()
        .into_array_ref()
}

/// arrow-rs's dictionary of `values` under `keys`, with keys of type `k`.
fn theirs_dict(k: ADt, keys: &[Option<usize>], values: aa::ArrayRef) -> aa::ArrayRef {
    match k {
        ADt::Int32 => Arc::new(
            aa::DictionaryArray::<at::Int32Type>::try_new(
                keys.iter().map(|k| k.map(|k| k as i32)).collect(),
                values,
            )
            .unwrap(),
        ),
        ADt::UInt16 => Arc::new(
            aa::DictionaryArray::<at::UInt16Type>::try_new(
                keys.iter().map(|k| k.map(|k| k as u16)).collect(),
                values,
            )
            .unwrap(),
        ),
        _ => Arc::new(
            aa::DictionaryArray::<at::Int64Type>::try_new(
                keys.iter().map(|k| k.map(|k| k as i64)).collect(),
                values,
            )
            .unwrap(),
        ),
    }
}

/// Dictionaries (Int32, UInt16, Int64 keys; Int64 and UInt16 values) and a
/// List<Dictionary<Int32, Int64>>: ours and theirs.
fn dict_columns(m: &Dicts) -> Vec<(Ours, aa::ArrayRef)> {
    let i64s = || prim(m.values.clone());
    let u16s: Vec<Option<u16>> = m.values.iter().map(|x| x.map(|x| x as u16)).collect();
    let mut out = Vec::new();
    for k in [ADt::Int32, ADt::UInt16, ADt::Int64] {
        out.push((
            ours_dict(k.clone(), &m.keys, i64s()),
            theirs_dict(
                k.clone(),
                &m.keys,
                Arc::new(aa::Int64Array::from(m.values.clone())),
            ),
        ));
    }
    out.push((
        ours_dict(ADt::Int32, &m.keys, prim(u16s.clone())),
        theirs_dict(ADt::Int32, &m.keys, Arc::new(aa::UInt16Array::from(u16s))),
    ));

    let mut offsets = vec![0i32];
    let mut keys = Vec::new();
    for l in &m.lists {
        keys.extend(l.iter().flatten().copied());
        offsets.push(keys.len() as i32);
    }
    let valid = || m.lists.iter().map(Option::is_some);
    let ours_items = ours_dict(ADt::Int32, &keys, i64s());
    let theirs_items = theirs_dict(
        ADt::Int32,
        &keys,
        Arc::new(aa::Int64Array::from(m.values.clone())),
    );
    let ours_list = ListArray::try_new_in(
        field("item", ours_items.data_type().clone()),
        OffsetBuffer::try_new(ScalarBuffer::try_copy_in(&offsets, G).unwrap()).unwrap(),
        ours_items,
        nulls(valid()),
        G,
    )
    .unwrap()
    .into_array_ref();
    let theirs_list = aa::ListArray::try_new(
        Arc::new(arrow_schema::Field::new(
            "item",
            theirs_items.data_type().clone(),
            true,
        )),
        arrow_buffer::OffsetBuffer::new(offsets.into()),
        theirs_items,
        arrow_nulls(valid()),
    )
    .unwrap();
    out.push((ours_list, Arc::new(theirs_list)));
    out
}

// ----- unions -----

#[derive(Debug, Clone)]
struct Unions {
    /// The type ids of the Int32, Int64 and UInt16 children.
    ids: Vec<i8>,
    /// Each slot: the selected child (0..3) and its value.
    slots: Vec<(usize, Option<i64>)>,
    /// Values of the sparse children's unselected slots.
    filler: Vec<Option<i64>>,
}

fn unions() -> impl Strategy<Value = Unions> {
    (0usize..16).prop_flat_map(|n| {
        (
            prop::sample::subsequence(vec![0i8, 1, 5, 7, 127], 3).prop_shuffle(),
            vec((0usize..3, int()), n),
            vec(int(), n),
        )
            .prop_map(|(ids, slots, filler)| Unions { ids, slots, filler })
    })
}

const CHILD_NAMES: [&str; 3] = ["i32", "i64", "u16"];

/// The child `k`'s arrays (Int32, Int64 or UInt16) of `v`: ours and theirs.
fn child(k: usize, v: Vec<Option<i64>>) -> (Ours, aa::ArrayRef) {
    match k {
        0 => {
            let v: Vec<Option<i32>> = v.iter().map(|x| x.map(|x| x as i32)).collect();
            (prim(v.clone()), Arc::new(aa::Int32Array::from(v)))
        }
        1 => (prim(v.clone()), Arc::new(aa::Int64Array::from(v))),
        _ => {
            let v: Vec<Option<u16>> = v.iter().map(|x| x.map(|x| x as u16)).collect();
            (prim(v.clone()), Arc::new(aa::UInt16Array::from(v)))
        }
    }
}

/// A union of `m` in `mode`, ours and theirs, and the row of child `k` that
/// each slot selects.
fn union_column(m: &Unions, mode: UnionMode) -> (Ours, aa::ArrayRef, Vec<usize>) {
    let ours_fields = UnionFields::try_new(
        SharedSlice::from(m.ids.clone()),
        SharedSlice::from(
            (0..3)
                .map(|k| Field::new(CHILD_NAMES[k], child_type(k), true))
                .collect::<Vec<_>>(),
        ),
    )
    .unwrap();
    let theirs_fields = arrow_schema::UnionFields::try_new(
        m.ids.clone(),
        (0..3).map(|k| {
            arrow_schema::Field::new(
                CHILD_NAMES[k],
                [ADt::Int32, ADt::Int64, ADt::UInt16][k].clone(),
                true,
            )
        }),
    )
    .unwrap();
    let type_ids: Vec<i8> = m.slots.iter().map(|&(k, _)| m.ids[k]).collect();
    let mut child_rows = Vec::new();
    let (mut values, offsets): (Vec<Vec<Option<i64>>>, Option<Vec<i32>>) = match mode {
        UnionMode::Sparse => {
            let mut values = vec![m.filler.clone(); 3];
            for (i, &(k, x)) in m.slots.iter().enumerate() {
                values[k][i] = x;
                child_rows.push(i);
            }
            (values, None)
        }
        UnionMode::Dense => {
            let mut values = vec![Vec::new(); 3];
            let mut offsets = Vec::new();
            for &(k, x) in &m.slots {
                offsets.push(values[k].len() as i32);
                child_rows.push(values[k].len());
                values[k].push(x);
            }
            (values, Some(offsets))
        }
    };
    let (ours_children, theirs_children): (Vec<Ours>, Vec<aa::ArrayRef>) = values
        .drain(..)
        .enumerate()
        .map(|(k, v)| child(k, v))
        .unzip();
    let ours_u = UnionArray::try_new(
        ours_fields,
        mode,
        ScalarBuffer::try_copy_in(&type_ids, G).unwrap(),
        offsets
            .as_ref()
            .map(|o| ScalarBuffer::try_copy_in(o, G).unwrap()),
        SharedSlice::from(ours_children),
    )
    .unwrap()
    .into_array_ref();
    let theirs_u = aa::UnionArray::try_new(
        theirs_fields,
        type_ids.into(),
        offsets.map(Into::into),
        theirs_children,
    )
    .unwrap();
    (ours_u, Arc::new(theirs_u), child_rows)
}

fn child_type(k: usize) -> Dt {
    [DataType::Int32, DataType::Int64, DataType::UInt16][k].clone()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn integer_list_bytes_equal_arrow_row(m in lists()) {
        for (mine, arrow) in list_columns(&m) {
            for o in OPTIONS {
                prop_assert_eq!(ours(&mine, o), theirs(&arrow, o), "{:?} {:?}", mine.data_type(), o);
            }
        }
    }

    #[test]
    fn integer_dictionary_bytes_equal_arrow_row(m in dicts()) {
        for (mine, arrow) in dict_columns(&m) {
            for o in OPTIONS {
                prop_assert_eq!(ours(&mine, o), theirs(&arrow, o), "{:?} {:?}", mine.data_type(), o);
            }
        }
    }

    #[test]
    fn integer_union_bytes_against_arrow_row(m in unions()) {
        for mode in [UnionMode::Sparse, UnionMode::Dense] {
            let (mine, arrow, child_rows) = union_column(&m, mode);
            let theirs_union = arrow.as_any().downcast_ref::<aa::UnionArray>().unwrap();
            let ArrayRef::Union(ours_union) = &mine else { panic!("not a union") };
            for o in OPTIONS {
                let (a, b) = (ours(&mine, o), theirs(&arrow, o));
                if !o.descending {
                    prop_assert_eq!(&a, &b, "{:?} {:?}", mode, o);
                    continue;
                }
                // Descending: the inverted type id, then the child's row
                // (ours: the union's options; arrow-row: ascending with
                // nulls_first flipped).
                let flipped = SortOptions::new(false, o.nulls_first != o.descending);
                for (i, &(k, _)) in m.slots.iter().enumerate() {
                    let ours_child = ours(&ours_union.children()[k], o);
                    let theirs_child = theirs(theirs_union.child(m.ids[k]), flipped);
                    let id = !(m.ids[k] as u8);
                    let mut want_ours = vec![id];
                    want_ours.extend_from_slice(&ours_child[child_rows[i]]);
                    let mut want_theirs = vec![id];
                    want_theirs.extend_from_slice(&theirs_child[child_rows[i]]);
                    prop_assert_eq!(&a[i], &want_ours, "{:?} {:?} slot {}", mode, o, i);
                    prop_assert_eq!(&b[i], &want_theirs, "{:?} {:?} slot {}", mode, o, i);
                }
            }
        }
    }
}

/// Descending with nulls first, arrow-row 60 puts a union child's null after
/// that child's values and sorts the values ascending; ours follows the
/// options. Union<0: Int32> of [1, 2, null].
#[test]
fn union_descending_differs_from_arrow_row_as_documented() {
    let m = Unions {
        ids: vec![0, 1, 5],
        slots: vec![(0, Some(1)), (0, Some(2)), (0, None)],
        filler: vec![None; 3],
    };
    let (mine, arrow, _) = union_column(&m, UnionMode::Dense);
    let o = SortOptions::new(true, true);
    let (a, b) = (ours(&mine, o), theirs(&arrow, o));
    // Ours: null, 2, 1.
    assert!(a[2] < a[1] && a[1] < a[0]);
    // arrow-row: 1, 2, null.
    assert!(b[0] < b[1] && b[1] < b[2]);
}
