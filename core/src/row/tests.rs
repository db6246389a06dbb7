//! Tests of the row format: the spec's worked examples byte for byte,
//! round trips, and malformed rows.

use std::vec::Vec;

use crate::Global;

use super::*;
use crate::array::{Array, ArrayRef, PrimitiveArray, StringArray};
use crate::buffer::SharedSlice;

type G = Global;

fn rows_bytes(rows: &Rows<G>) -> Vec<Vec<u8>> {
    rows.iter().map(|r| r.data().to_vec()).collect()
}

fn convert(dt: DataType<'static, G>, opts: SortOptions, col: ArrayRef<'static, G>) -> Vec<Vec<u8>> {
    convert_with(RowEncoding::Ordered, dt, opts, col)
}

fn convert_with(
    encoding: RowEncoding,
    dt: DataType<'static, G>,
    opts: SortOptions,
    col: ArrayRef<'static, G>,
) -> Vec<Vec<u8>> {
    let field = SortField::new_with_options(dt, opts);
    let c = RowConverter::try_new_with_encoding(&[field], encoding).unwrap();
    let rows = c.convert_columns(&[col]).unwrap();
    rows_bytes(&rows)
}

/// "Unsigned Integer Encoding": 3, 258, 23423, NULL as u32.
#[test]
fn spec_unsigned_example() {
    let col = PrimitiveArray::<u32, G>::try_from_options_in(
        &[Some(3), Some(258), Some(23423), None],
        Global,
    )
    .unwrap()
    .into_array_ref();
    let got = convert(DataType::UInt32, SortOptions::default(), col.clone());
    assert_eq!(
        got,
        [
            [0x01, 0x00, 0x00, 0x00, 0x03],
            [0x01, 0x00, 0x00, 0x01, 0x02],
            [0x01, 0x00, 0x00, 0x5B, 0x7F],
            [0x00, 0x00, 0x00, 0x00, 0x00],
        ]
    );
    // Nulls last: the sentinel becomes 0xFF; descending inverts the value bytes.
    let got = convert(DataType::UInt32, SortOptions::new(true, false), col);
    assert_eq!(
        got,
        [
            [0x01, 0xFF, 0xFF, 0xFF, 0xFC],
            [0x01, 0xFF, 0xFF, 0xFE, 0xFD],
            [0x01, 0xFF, 0xFF, 0xA4, 0x80],
            [0xFF, 0x00, 0x00, 0x00, 0x00],
        ]
    );
}

/// "Signed Integer Encoding": 5 and -5 as i32.
#[test]
fn spec_signed_example() {
    let col = PrimitiveArray::<i32, G>::from_slice(&[5, -5]).into_array_ref();
    let got = convert(DataType::Int32, SortOptions::default(), col);
    assert_eq!(
        got,
        [
            [0x01, 0x80, 0x00, 0x00, 0x05],
            [0x01, 0x7F, 0xFF, 0xFF, 0xFB]
        ]
    );
}

/// "Variable Length Bytes (including Strings) Encoding" with the real
/// 32-byte blocks (the spec draws 4-byte blocks; those are checked in
/// `variable::tests`).
#[test]
fn spec_string_example() {
    let col = StringArray::<G>::try_from_options_in(
        &[Some("MEEP"), Some(""), None, Some("Defenestration")],
        Global,
    )
    .unwrap()
    .into_array_ref();
    let got = convert(DataType::Utf8, SortOptions::default(), col.clone());
    let mut meep = std::vec![0x02, b'M', b'E', b'E', b'P'];
    meep.resize(33, 0);
    meep.push(4);
    let mut def = std::vec![0x02];
    def.extend_from_slice(b"Defenestration");
    def.resize(33, 0);
    def.push(14);
    assert_eq!(
        got,
        [meep.clone(), std::vec![0x01], std::vec![0x00], def.clone()]
    );
    // Descending, nulls last: every byte of a value inverted, null = 0xFF.
    let got = convert(DataType::Utf8, SortOptions::new(true, false), col);
    let inv = |v: &[u8]| v.iter().map(|b| !b).collect::<Vec<u8>>();
    assert_eq!(
        got,
        [inv(&meep), std::vec![0xFE], std::vec![0xFF], inv(&def)]
    );
}

#[test]
fn long_string_blocks() {
    let s: std::string::String = core::iter::repeat_n('x', 70).collect();
    let col = StringArray::<G>::try_from_options_in(&[Some(&s)], Global)
        .unwrap()
        .into_array_ref();
    let got = convert(DataType::Utf8, SortOptions::default(), col);
    let r = &got[0];
    assert_eq!(r.len(), 1 + 3 * 33);
    assert_eq!(r[33], 0xFF);
    assert_eq!(r[66], 0xFF);
    assert_eq!(r[67..73], [b'x'; 6]);
    assert!(r[73..99].iter().all(|&b| b == 0));
    assert_eq!(r[99], 6);
}

use super::test_model::{build, field, Seeded, V};
use crate::datatypes::{Field, IndexType};
use crate::test_support::{check_every_failure, counting, TestAlloc};

fn list_u8() -> DataType<'static, G> {
    DataType::List(field("item", DataType::UInt8, true))
}

/// The seed's "List Encoding" ([`RowEncoding::Seed`]): `[1, 2, 3]`,
/// `[1, null]`, `[]`, `null` of UInt8.
#[test]
fn spec_list_example() {
    let vals = [
        V::L(std::vec![V::U(1), V::U(2), V::U(3)]),
        V::L(std::vec![V::U(1), V::Null]),
        V::L(std::vec![]),
        V::Null,
    ];
    let got = convert_with(
        RowEncoding::Seed,
        list_u8(),
        SortOptions::default(),
        build(&list_u8(), &vals),
    );
    // The canonical byte arrays of the spec's table...
    let c0: [u8; 22] = [
        0x01, 0x01, 0x01, 0x02, 0x01, 0x03, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 3,
    ];
    let c1: [u8; 16] = [0x01, 0x01, 0x00, 0x00, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 2];
    // ...encoded as variable-length bytes (one 32-byte block each).
    let block = |c: &[u8]| {
        let mut r = std::vec![0x02];
        r.extend_from_slice(c);
        r.resize(33, 0);
        r.push(c.len() as u8);
        r
    };
    assert_eq!(
        got,
        [block(&c0), block(&c1), std::vec![0x01], std::vec![0x00]]
    );
    // And they decode back.
    let field = SortField::new(list_u8());
    let c = RowConverter::try_new_with_encoding(&[field], RowEncoding::Seed).unwrap();
    let rows = c.convert_columns(&[build(&list_u8(), &vals)]).unwrap();
    let back = c.convert_rows(rows.iter()).unwrap();
    for (i, v) in vals.iter().enumerate() {
        assert_eq!(&super::test_model::value_at(&back[0], i), v);
    }
}

/// The default ordered encoding of the same lists, element by element:
/// each element's row (`01 vv` valid, `00 00` null) as `0x02`, one 8-byte
/// mini-block and its length, then the terminator `0x01`.
#[test]
fn list_element_encoding_bytes() {
    let vals = [
        V::L(std::vec![V::U(1), V::U(2), V::U(3)]),
        V::L(std::vec![V::U(1), V::Null]),
        V::L(std::vec![V::U(7)]),
        V::L(std::vec![]),
        V::Null,
    ];
    let element = |row: [u8; 2]| {
        let mut e = std::vec![0x02, row[0], row[1], 0, 0, 0, 0, 0, 0, 0x02];
        e.truncate(10);
        e
    };
    let list = |rows: &[[u8; 2]]| {
        let mut l: Vec<u8> = rows.iter().flat_map(|&r| element(r)).collect();
        l.push(0x01);
        l
    };
    let asc = convert(list_u8(), SortOptions::default(), build(&list_u8(), &vals));
    assert_eq!(
        asc,
        [
            list(&[[1, 1], [1, 2], [1, 3]]),
            list(&[[1, 1], [0, 0]]),
            list(&[[1, 7]]),
            std::vec![0x01],
            std::vec![0x00],
        ]
    );
    // Descending, nulls last: elements ascending with nulls first, then every
    // byte of a valid list inverted; a null list is 0xFF.
    let desc = convert(
        list_u8(),
        SortOptions::new(true, false),
        build(&list_u8(), &vals),
    );
    let inv = |v: Vec<u8>| v.into_iter().map(|b| !b).collect::<Vec<u8>>();
    assert_eq!(desc[0], inv(list(&[[1, 1], [1, 2], [1, 3]])));
    assert_eq!(desc[3], std::vec![0xFE]);
    assert_eq!(desc[4], std::vec![0xFF]);
}

/// The seed's list encoding puts `[1, null]` before `[1]` when nulls sort
/// first (the length bytes `00 00 00 02` meet the null's `00 00`); with
/// nulls last the order is the element order. The default encoding orders
/// them by elements under every option.
#[test]
fn seed_list_encoding_prefix_caveat() {
    let vals = [V::L(std::vec![V::U(1)]), V::L(std::vec![V::U(1), V::Null])];
    let seed = |o| convert_with(RowEncoding::Seed, list_u8(), o, build(&list_u8(), &vals));
    let first = seed(SortOptions::default());
    assert!(first[1] < first[0], "seed encoding: [1, null] < [1]");
    let last = seed(SortOptions::new(false, false));
    assert!(last[0] < last[1], "nulls last: [1] < [1, null]");
    for (descending, nulls_first) in [(false, true), (false, false), (true, true), (true, false)] {
        let o = SortOptions::new(descending, nulls_first);
        let r = convert(list_u8(), o, build(&list_u8(), &vals));
        assert_eq!(r[0] < r[1], !descending, "{o:?}");
    }
}

/// Lists of Null elements (whose rows are empty) keep their lengths.
#[test]
fn list_of_null_elements_round_trips() {
    let dt = DataType::List(field("item", DataType::Null, true));
    let vals = [
        V::L(std::vec![V::Null, V::Null]),
        V::L(std::vec![]),
        V::L(std::vec![V::Null]),
        V::Null,
    ];
    for o in [SortOptions::default(), SortOptions::new(true, false)] {
        let c = RowConverter::try_new(&[SortField::new_with_options(dt.clone(), o)]).unwrap();
        let rows = c.convert_columns(&[build(&dt, &vals)]).unwrap();
        let back = c.convert_rows(rows.iter()).unwrap();
        for (i, v) in vals.iter().enumerate() {
            assert_eq!(
                &super::test_model::value_at(&back[0], i),
                v,
                "{o:?} row {i}"
            );
        }
        let r = rows_bytes(&rows);
        assert_eq!(r[1] < r[2], !o.descending);
        assert_eq!(r[2] < r[0], !o.descending);
    }
}

/// "Struct Encoding": `Int32 │ Struct[Int32, Float32] │ Int32` flattens to
/// `Int32 │ validity │ Int32 │ Float32 │ Int32`; a null struct is one byte.
#[test]
fn spec_struct_example() {
    let st = DataType::Struct(
        SharedSlice::try_from_iter_in(
            [
                Field::new("a", DataType::Int32, true),
                Field::new("b", DataType::Float32, true),
            ],
            Global,
        )
        .unwrap(),
    );
    let fields = [
        SortField::new(DataType::Int32),
        SortField::new(st.clone()),
        SortField::new(DataType::Int32),
    ];
    let c = RowConverter::try_new(&fields).unwrap();
    let cols = [
        build(&DataType::Int32, &[V::I(7), V::I(8)]),
        build(
            &st,
            &[
                V::S(std::vec![V::I(1), super::test_model::float(2.0)]),
                V::Null,
            ],
        ),
        build(&DataType::Int32, &[V::I(9), V::I(10)]),
    ];
    let rows = c.convert_columns(&cols).unwrap();
    assert_eq!(
        rows.row(0).unwrap().data(),
        [
            0x01, 0x80, 0, 0, 7,    // Int32
            0x01, // struct valid
            0x01, 0x80, 0, 0, 1, // Int32
            0x01, 0xC0, 0, 0, 0, // Float32 2.0
            0x01, 0x80, 0, 0, 9, // Int32
        ]
    );
    assert_eq!(
        rows.row(1).unwrap().data(),
        [0x01, 0x80, 0, 0, 8, 0x00, 0x01, 0x80, 0, 0, 10]
    );
}

fn dict_utf8() -> DataType<'static, G> {
    DataType::Dictionary(
        IndexType::Int32,
        crate::buffer::SharedBox::try_new_in(DataType::Utf8, Global).unwrap(),
        false,
    )
}

fn strs(v: &[Option<&str>]) -> std::vec::Vec<V> {
    v.iter()
        .map(|s| s.map_or(V::Null, |s| V::B(s.as_bytes().to_vec())))
        .collect()
}

/// "Dictionary Encoding": `0x01`, a key of non-zero bytes and a `0x00`
/// terminator; batches with different, unsorted dictionaries sort together.
#[test]
fn dictionaries_with_different_dictionaries_compare_consistently() {
    for opts in [SortOptions::new(false, true), SortOptions::new(true, false)] {
        let mut c = Seeded::with_encoding(
            &[SortField::new_with_options(dict_utf8(), opts)],
            RowEncoding::Seed,
        );
        let b1 = strs(&[Some("Soup"), Some("Bar"), None, Some("ZZ")]);
        let b2 = strs(&[Some("Fabulous"), Some("Bar"), Some("Apple"), Some("Zebra")]);
        let mut rows = c.convert_columns(&[build(&dict_utf8(), &b1)]).unwrap();
        c.append(&mut rows, &[build(&dict_utf8(), &b2)]).unwrap();
        let r = |i: usize| rows.row(i).unwrap();
        // A value: 0x01, key bytes (non-zero; inverted when descending), terminator.
        let soup = r(0).data();
        assert_eq!(soup[0], 0x01);
        let term = if opts.descending { 0xFF } else { 0x00 };
        assert_eq!(*soup.last().unwrap(), term);
        assert!(soup[1..soup.len() - 1].iter().all(|&b| b != term));
        assert_eq!(r(2).data(), [opts.null_sentinel()]);
        assert_eq!(r(1), r(5), "Bar in both batches");
        let mut order: std::vec::Vec<usize> = (0..8).collect();
        order.sort_by_key(|&i| r(i));
        // Soup Bar null ZZ | Fabulous Bar Apple Zebra; "ZZ" < "Zebra" bytewise.
        let sorted = if opts.descending {
            [7, 3, 0, 4, 1, 5, 6, 2]
        } else {
            [2, 6, 1, 5, 4, 0, 3, 7]
        };
        assert_eq!(order, sorted);
        // Dictionaries decode to their value type.
        let back = c.convert_rows(rows.iter()).unwrap();
        let ArrayRef::Utf8(s) = &back[0] else {
            panic!("expected Utf8")
        };
        let got: std::vec::Vec<_> = s.iter().collect();
        assert_eq!(
            got,
            [
                Some("Soup"),
                Some("Bar"),
                None,
                Some("ZZ"),
                Some("Fabulous"),
                Some("Bar"),
                Some("Apple"),
                Some("Zebra")
            ]
        );
    }
}

#[test]
fn run_end_encoded_by_value_and_back() {
    let ree = DataType::RunEndEncoded(
        field("run_ends", DataType::Int32, false),
        field("values", DataType::Utf8, true),
    );
    let vals = strs(&[Some("b"), Some("b"), None, Some("a"), Some("a"), Some("a")]);
    let col = build(&ree, &vals);
    let plain = build(&DataType::Utf8, &vals);
    let got = convert(
        ree.clone(),
        SortOptions::default(),
        col.clone().slice(1, 4).unwrap(),
    );
    let want = convert(
        DataType::Utf8,
        SortOptions::default(),
        plain.slice(1, 4).unwrap(),
    );
    assert_eq!(got, want);
    let c = RowConverter::try_new(&[SortField::new(ree)]).unwrap();
    let rows = c.convert_columns(&[col]).unwrap();
    let back = c.convert_rows(rows.iter()).unwrap();
    let ArrayRef::RunEndEncoded(r) = &back[0] else {
        panic!("expected REE")
    };
    assert_eq!(r.run_ends().len(), 3);
    assert_eq!(r.run_ends().get(2), Some(6));
    let empty = c.convert_rows(rows.iter().take(0)).unwrap();
    assert_eq!(empty[0].len(), 0);
}

#[test]
fn column_errors() {
    let c = RowConverter::try_new(&[SortField::new(DataType::Int32)]).unwrap();
    let a = build(&DataType::Int32, &[V::I(1), V::I(2)]);
    let b = build(&DataType::Int64, &[V::I(1), V::I(2)]);
    assert_eq!(c.convert_columns(&[]).unwrap_err(), Error::SchemaMismatch);
    assert_eq!(c.convert_columns(&[b]).unwrap_err(), Error::TypeMismatch);
    let two = RowConverter::try_new(&[
        SortField::new(DataType::Int32),
        SortField::new(DataType::Int32),
    ])
    .unwrap();
    let short = a.slice(0, 1).unwrap();
    assert_eq!(
        two.convert_columns(&[a.clone(), short]).unwrap_err(),
        Error::LengthMismatch
    );
    // A failed append leaves the rows as they were.
    let mut rows = c.convert_columns(core::slice::from_ref(&a)).unwrap();
    let before: std::vec::Vec<_> = rows_bytes(&rows);
    assert!(c.append(&mut rows, &[a.clone(), a]).is_err());
    assert_eq!(rows_bytes(&rows), before);
    let union = DataType::Union(
        crate::datatypes::UnionFields::try_new(SharedSlice::empty(), SharedSlice::empty()).unwrap(),
        crate::datatypes::UnionMode::Sparse,
    );
    // Every type has a row encoding now, unions (even of no fields) too.
    assert!(RowConverter::try_new(&[SortField::new(union)]).is_ok());
    // An invalid type is refused however deep it is nested (the converter
    // validates each field's type whole).
    let bad = DataType::Decimal128(0, 0);
    let list = |dt| DataType::List(super::test_model::field("item", dt, true));
    for dt in [bad.clone(), list(bad.clone()), list(list(bad))] {
        for enc in [
            RowEncoding::Ordered,
            RowEncoding::Seed,
            RowEncoding::Unordered,
        ] {
            let r = RowConverter::try_new_with_encoding(&[SortField::new(dt.clone())], enc);
            assert_eq!(r.unwrap_err(), Error::InvalidDataType, "{dt:?} {enc:?}");
        }
    }
}

fn decode_err(dt: DataType<'static, G>, bytes: &[u8]) -> Error {
    decode_err_with(RowEncoding::Ordered, dt, bytes)
}

fn decode_err_with(encoding: RowEncoding, dt: DataType<'static, G>, bytes: &[u8]) -> Error {
    let c = Seeded::with_encoding(&[SortField::new(dt)], encoding);
    c.convert_rows([Row::new(bytes)]).unwrap_err()
}

/// The converter is immutable: dictionary columns of the seed encoding
/// need the caller's `RowInterner`, and only one made by their converter
/// (same number of dictionary columns, nested ones counted); every other
/// column encodes and decodes through `&self`, from several threads.
#[test]
fn seed_dictionaries_need_their_interner() {
    let col = build(&dict_utf8(), &strs(&[Some("b"), Some("a"), None]));
    let seed =
        RowConverter::try_new_with_encoding(&[SortField::new(dict_utf8())], RowEncoding::Seed)
            .unwrap();
    assert_eq!(
        seed.convert_columns(core::slice::from_ref(&col))
            .unwrap_err(),
        Error::RowInternerRequired
    );
    let mut interner = seed.try_new_interner().unwrap();
    let rows = seed
        .convert_columns_with_interner(&mut interner, core::slice::from_ref(&col))
        .unwrap();
    assert_eq!(interner.num_values(), 2); // "a" and "b"
    assert_eq!(
        seed.convert_rows(rows.iter()).unwrap_err(),
        Error::RowInternerRequired
    );
    assert_eq!(
        seed.convert_all_rows(&rows).unwrap_err(),
        Error::RowInternerRequired
    );
    let back = seed
        .convert_all_rows_with_interner(&interner, &rows)
        .unwrap();
    assert_eq!(
        back[0],
        build(&DataType::Utf8, &strs(&[Some("b"), Some("a"), None]))
    );
    // A struct of two dictionaries: two mappings; the one-column interner
    // does not fit it, nor an empty one.
    let pair = DataType::Struct(
        crate::buffer::SharedSlice::try_from_fn_in(2, Global, |i| {
            Ok(Field::new(["x", "y"][i], dict_utf8(), true))
        })
        .unwrap(),
    );
    let two =
        RowConverter::try_new_with_encoding(&[SortField::new(pair)], RowEncoding::Seed).unwrap();
    assert_eq!(
        two.convert_rows_with_interner(&interner, rows.iter())
            .unwrap_err(),
        Error::RowInternerMismatch
    );
    assert_eq!(two.try_new_interner().unwrap().dictionaries.len(), 2);
    let ordered = RowConverter::try_new(&[SortField::new(dict_utf8())]).unwrap();
    let mut none = ordered.try_new_interner().unwrap();
    assert_eq!(
        seed.convert_columns_with_interner(&mut none, core::slice::from_ref(&col))
            .unwrap_err(),
        Error::RowInternerMismatch
    );
    // By value, one converter shared by threads gives the same rows.
    let want = ordered
        .convert_columns(core::slice::from_ref(&col))
        .unwrap();
    let want: std::vec::Vec<_> = want.iter().map(|r| r.data().to_vec()).collect();
    std::thread::scope(|s| {
        let runs: std::vec::Vec<_> = (0..2)
            .map(|_| {
                s.spawn(|| {
                    let rows = ordered
                        .convert_columns(core::slice::from_ref(&col))
                        .unwrap();
                    rows.iter()
                        .map(|r| r.data().to_vec())
                        .collect::<std::vec::Vec<_>>()
                })
            })
            .collect();
        for r in runs {
            assert_eq!(r.join().unwrap(), want);
        }
    });
}

#[test]
fn malformed_rows_are_errors() {
    use DataType::*;
    assert_eq!(decode_err(Int32, &[0x01, 0, 0]), Error::InvalidRow);
    assert_eq!(decode_err(Int32, &[0x02, 0, 0, 0, 0]), Error::InvalidRow);
    assert_eq!(decode_err(Int32, &[0x00, 0, 0, 0, 1]), Error::InvalidRow);
    assert_eq!(decode_err(Int32, &[0x01, 0, 0, 0, 1, 7]), Error::InvalidRow);
    assert_eq!(decode_err(Boolean, &[0x01, 2]), Error::InvalidRow);
    assert_eq!(decode_err(Utf8, &[0x02, 0xFF]), Error::InvalidRow);
    let mut bad_utf8 = std::vec![0x02, 0xC3];
    bad_utf8.resize(33, 0);
    bad_utf8.push(1);
    assert_eq!(decode_err(Utf8, &bad_utf8), Error::InvalidUtf8);
    // A list whose lengths disagree with its bytes.
    let mut list = std::vec![0x02, 0x01, 0x05, 0, 0, 0, 3, 0, 0, 0, 1];
    list.resize(33, 0);
    list.push(10);
    assert_eq!(
        decode_err_with(RowEncoding::Seed, list_u8(), &list),
        Error::InvalidRow
    );
    // Element-wise lists: no terminator, a bad length byte, non-zero
    // padding, a zero length after a first block, an unknown marker.
    let element = [0x02, 0x01, 0x05, 0, 0, 0, 0, 0, 0, 0x02];
    assert_eq!(decode_err(list_u8(), &element), Error::InvalidRow);
    let mut bad = element.to_vec();
    bad[9] = 9;
    bad.push(0x01);
    assert_eq!(decode_err(list_u8(), &bad), Error::InvalidRow);
    let mut bad = element.to_vec();
    bad[8] = 7;
    bad.push(0x01);
    assert_eq!(decode_err(list_u8(), &bad), Error::InvalidRow);
    let mut bad = element.to_vec();
    bad[9] = 0xFF;
    bad.extend([0; 9]);
    bad.push(0x01);
    assert_eq!(decode_err(list_u8(), &bad), Error::InvalidRow);
    assert_eq!(decode_err(list_u8(), &[0x03, 0x01]), Error::InvalidRow);
    // A key this converter never issued (the seed's interned dictionaries).
    assert_eq!(
        decode_err_with(RowEncoding::Seed, dict_utf8(), &[0x01, 0x42, 0x00]),
        Error::UnknownDictionaryKey
    );
    assert_eq!(
        decode_err_with(RowEncoding::Seed, dict_utf8(), &[0x01, 0x42]),
        Error::InvalidRow
    );
    // By value (the default), a dictionary row is its value's row.
    assert_eq!(decode_err(dict_utf8(), &[0x07]), Error::InvalidRow);
}

#[test]
fn binary_decodes_any_bytes() {
    let c = RowConverter::try_new(&[SortField::new(DataType::Binary)]).unwrap();
    let mut r = std::vec![0x02, 0xC3];
    r.resize(33, 0);
    r.push(1);
    let back = c.convert_rows([Row::new(&r)]).unwrap();
    let ArrayRef::Binary(b) = &back[0] else {
        panic!()
    };
    assert_eq!(b.value(0), Some(&[0xC3u8][..]));
}

#[test]
fn rows_api() {
    let c = RowConverter::try_new(&[SortField::new(DataType::UInt8)]).unwrap();
    let rows = c
        .convert_columns(&[build(&DataType::UInt8, &[V::U(3), V::U(1), V::Null])])
        .unwrap();
    assert_eq!(rows.len(), 3);
    assert_eq!(rows.size(), 6);
    assert_eq!(rows.offsets(), [0, 2, 4, 6]);
    assert_eq!(rows.row(3), None);
    let mut sorted: std::vec::Vec<Row<'_>> = rows.iter().collect();
    sorted.sort();
    let mut other = c.empty_rows(3, 6).unwrap();
    for r in sorted.iter().rev() {
        other.try_push(*r).unwrap();
    }
    assert_eq!(rows_bytes(&other), [[1, 3], [1, 1], [0, 0]]);
    assert_eq!(other.iter().next_back().unwrap().as_ref(), [0, 0]);
    let back = c.convert_rows(&other).unwrap();
    assert_eq!(super::test_model::value_at(&back[0], 1), V::U(1));
    other.clear();
    assert!(other.is_empty());
}

#[test]
fn every_allocation_failure_is_an_error() {
    use crate::array::{DictionaryArray, DictionaryKeys, ListArray};
    use crate::buffer::{OffsetBuffer, ScalarBuffer, SharedBox};
    let big = counting();
    let strings = StringArray::try_from_options_in(
        &[Some("x"), None, Some("a long string of more than 32 bytes")],
        big.clone(),
    )
    .unwrap()
    .into_array_ref();
    let item =
        SharedBox::try_new_in(Field::new("item", DataType::Int32, true), big.clone()).unwrap();
    let ints = PrimitiveArray::<i32, TestAlloc>::try_from_options_in(
        &[Some(1), None, Some(3)],
        big.clone(),
    )
    .unwrap()
    .into_array_ref();
    let list = ListArray::try_new_in(
        item,
        OffsetBuffer::try_new(ScalarBuffer::try_copy_in(&[0, 1, 1, 3], big.clone()).unwrap())
            .unwrap(),
        ints.clone(),
        None,
        big.clone(),
    )
    .unwrap()
    .into_array_ref();
    let keys = DictionaryKeys::Int32(
        PrimitiveArray::try_from_options_in(&[Some(2), Some(0), None], big.clone()).unwrap(),
    );
    let dict = DictionaryArray::try_new_in(keys, strings.clone(), false, big.clone())
        .unwrap()
        .into_array_ref();
    let cols = [strings, list, dict];
    let n = check_every_failure(|a| {
        let fields: std::vec::Vec<_> = cols
            .iter()
            .map(|c| SortField::new(c.data_type().clone()))
            .collect();
        let conv = RowConverter::try_new_in(&fields, a)?;
        let rows = conv.convert_columns(&cols)?;
        conv.convert_rows(rows.iter())
    });
    assert!(n > 10, "{n}");
}

/// The same for the decoders without cursors: fixed-width converters (one
/// column and several) and a converter of one string column.
#[test]
fn every_allocation_failure_is_an_error_without_cursors() {
    let big = counting();
    let strings = StringArray::try_from_options_in(
        &[Some("x"), None, Some("a long string of more than 32 bytes")],
        big.clone(),
    )
    .unwrap()
    .into_array_ref();
    let ints = PrimitiveArray::<i64, TestAlloc>::try_from_options_in(
        &[Some(1), None, Some(3)],
        big.clone(),
    )
    .unwrap()
    .into_array_ref();
    let mut b = crate::array::BooleanBuilder::new_in(big.clone());
    for v in [Some(true), Some(false), None] {
        b.try_append_option(v).unwrap();
    }
    let bools = b.finish().into_array_ref();
    for cols in [
        std::vec![strings],
        std::vec![ints.clone()],
        std::vec![ints, bools],
    ] {
        let run = |a: TestAlloc| {
            let fields: std::vec::Vec<_> = cols
                .iter()
                .map(|c| SortField::new(c.data_type().clone()))
                .collect();
            let conv = RowConverter::try_new_in(&fields, a)?;
            let rows = conv.convert_columns(&cols)?;
            conv.convert_rows(rows.iter())
        };
        let n = check_every_failure(|a| {
            let r = run(a)?;
            assert_eq!(r.len(), cols.len());
            Ok(r)
        });
        assert!(n > 4, "{n}");
    }
}

/// The same for [`RowConverter::convert_all_rows`] (fixed-width columns
/// and a string column decoded straight from the `Rows`).
#[test]
fn every_allocation_failure_is_an_error_decoding_all_rows() {
    let big = counting();
    let ints = PrimitiveArray::<i64, TestAlloc>::try_from_options_in(
        &[Some(1), None, Some(3)],
        big.clone(),
    )
    .unwrap()
    .into_array_ref();
    let mut b = crate::array::BooleanBuilder::new_in(big.clone());
    for v in [Some(true), Some(false), None] {
        b.try_append_option(v).unwrap();
    }
    let bools = b.finish().into_array_ref();
    let strings = StringArray::try_from_options_in(
        &[Some("x"), None, Some("a long string of more than 32 bytes")],
        big.clone(),
    )
    .unwrap()
    .into_array_ref();
    for cols in [
        std::vec![bools.clone()],
        std::vec![ints.clone()],
        std::vec![ints, bools],
        std::vec![strings],
    ] {
        let fields: std::vec::Vec<_> = cols
            .iter()
            .map(|c| SortField::new(c.data_type().clone()))
            .collect();
        let conv = RowConverter::try_new_in(&fields, big.clone()).unwrap();
        let rows = conv.convert_columns(&cols).unwrap();
        let run = |a: TestAlloc| {
            let conv = RowConverter::try_new_in(&fields, a)?;
            conv.convert_all_rows(&rows)
        };
        let n = check_every_failure(|a| {
            let r = run(a)?;
            assert_eq!(r.len(), cols.len());
            Ok(r)
        });
        assert!(n > 3, "{n}");
    }
}

/// The same for a dictionary column decoded straight from the `Rows` (its
/// converter keeps the interner: each decode gets a smaller budget).
#[test]
fn every_allocation_failure_is_an_error_decoding_all_dictionary_rows() {
    use crate::array::{DictionaryArray, DictionaryKeys};
    let alloc = counting();
    let words: Vec<std::string::String> = (0..1500).map(|i| std::format!("w{i}")).collect();
    let mut opts: Vec<Option<&str>> = words.iter().map(|w| Some(w.as_str())).collect();
    opts.push(None);
    let values = StringArray::try_from_options_in(&opts, alloc.clone())
        .unwrap()
        .into_array_ref();
    let keys: Vec<Option<i32>> = (0..1600)
        .map(|i| (i % 7 != 0).then_some(i % 1501))
        .collect();
    let keys = PrimitiveArray::try_from_options_in(&keys, alloc.clone()).unwrap();
    let dict =
        DictionaryArray::try_new_in(DictionaryKeys::Int32(keys), values, false, alloc.clone())
            .unwrap()
            .into_array_ref();
    let fields = [SortField::new(dict.data_type().clone())];
    let conv = RowConverter::try_new_in(&fields, alloc.clone()).unwrap();
    let rows = conv.convert_columns(&[dict]).unwrap();
    let before = alloc.requests();
    assert_eq!(conv.convert_all_rows(&rows).unwrap()[0].null_count(), 230);
    let n = alloc.requests() - before;
    assert!(n > 3, "{n}");
    for k in 0..n {
        // Memory runs out after `k` more requests (the allocator fails
        // from then on).
        alloc.set_fail_at(alloc.requests() + k);
        let r = conv.convert_all_rows(&rows);
        assert_eq!(r.err(), Some(Error::AllocationFailed), "budget {k} of {n}");
    }
    alloc.set_fail_at(usize::MAX);
    assert!(conv.convert_all_rows(&rows).is_ok());
}

/// Types whose encodings are empty or nearly so.
#[test]
fn degenerate_types_round_trip() {
    let empty_struct = DataType::Struct(SharedSlice::empty());
    let fsl0 = DataType::FixedSizeList(field("item", DataType::Int8, true), 0);
    let cols = [
        (DataType::Null, std::vec![V::Null, V::Null, V::Null]),
        (
            empty_struct,
            std::vec![V::S(std::vec![]), V::Null, V::S(std::vec![])],
        ),
        (
            fsl0,
            std::vec![V::L(std::vec![]), V::L(std::vec![]), V::Null],
        ),
    ];
    let fields: std::vec::Vec<_> = cols
        .iter()
        .map(|(t, _)| SortField::new(t.clone()))
        .collect();
    let arrays: std::vec::Vec<_> = cols.iter().map(|(t, v)| build(t, v)).collect();
    let c = RowConverter::try_new(&fields).unwrap();
    let rows = c.convert_columns(&arrays).unwrap();
    assert_eq!(
        rows_bytes(&rows),
        [
            std::vec![0x01, 0x01],
            std::vec![0x00, 0x01],
            std::vec![0x01, 0x00]
        ]
    );
    let back = c.convert_rows(&rows).unwrap();
    for (k, (_, vals)) in cols.iter().enumerate() {
        for (i, v) in vals.iter().enumerate() {
            assert_eq!(&super::test_model::value_at(&back[k], i), v);
        }
    }
    // No columns: no rows.
    let none = RowConverter::try_new(&[]).unwrap();
    assert!(none.convert_columns(&[]).unwrap().is_empty());
}

/// Dictionaries by value whose rows all have one width (table rows of one
/// length, and no null key or nulls of that length) are written as a
/// fixed-width column, and alone with shorter nulls or rows longer than
/// `APPEND_WIDTH` in order (`append`):
/// the same bytes as their values' own rows, alone, beside a fixed-width
/// column and beside a string column, both directions; a key past the
/// dictionary is `DictionaryKeyOutOfBounds` on every path.
#[test]
fn fixed_width_dictionaries_write_their_values_rows() {
    use crate::array::{DictionaryArray, DictionaryKeys, Int32Array};
    let words = StringArray::<G>::try_from_options_in(
        &[Some("pear"), Some("fig"), Some("kiwi"), Some("apple")],
        Global,
    )
    .unwrap()
    .into_array_ref();
    let ints = PrimitiveArray::<i64, G>::try_from_options_in(&[Some(-3), Some(9), None], Global)
        .unwrap()
        .into_array_ref();
    let dict = |values: &ArrayRef<'static, G>, keys: &[Option<i32>]| {
        let keys = PrimitiveArray::<i32, G>::try_from_options_in(keys, Global).unwrap();
        DictionaryArray::try_new_in(DictionaryKeys::Int32(keys), values.clone(), false, Global)
            .unwrap()
            .into_array_ref()
    };
    let fruit = StringArray::<G>::try_from_options_in(
        &[Some("pear"), Some("kiwi"), Some("plum"), Some("lime")],
        Global,
    )
    .unwrap()
    .into_array_ref();
    // Rows of 67 bytes (two blocks): above `APPEND_WIDTH`, so alone and
    // without null keys they are appended in order too.
    let long: std::vec::Vec<std::string::String> = (0..4u8)
        .map(|i| core::iter::repeat_n(char::from(b'a' + i), 40).collect())
        .collect();
    let long: std::vec::Vec<Option<&str>> = long.iter().map(|s| Some(s.as_str())).collect();
    let long = StringArray::<G>::try_from_options_in(&long, Global)
        .unwrap()
        .into_array_ref();
    let keys = [Some(2), Some(0), Some(3), Some(1), Some(0)];
    let fruit_keys = [Some(1), None, Some(3), None, Some(0)];
    let int_keys = [Some(1), None, Some(0), Some(2), None];
    let other = Int32Array::from(std::vec![5, -1, 7, 0, 2]).into_array_ref();
    let text = StringArray::from(std::vec!["x", "", "yy", "z", "w"]).into_array_ref();
    for opts in [SortOptions::default(), SortOptions::new(true, false)] {
        for (values, keys) in [
            (&words, &keys[..]),
            (&ints, &int_keys[..]),
            (&fruit, &fruit_keys[..]),
            (&long, &keys[..]),
            (&long, &fruit_keys[..]),
        ] {
            let col = dict(values, keys);
            let taken: std::vec::Vec<usize> =
                keys.iter().map(|k| k.unwrap_or(0) as usize).collect();
            let plain = {
                let c = RowConverter::try_new(&[SortField::new_with_options(
                    values.data_type().clone(),
                    opts,
                )])
                .unwrap();
                let rows = c.convert_columns(core::slice::from_ref(values)).unwrap();
                let null = match values.data_type() {
                    DataType::Int64 => [opts.null_sentinel()].into_iter().chain([0; 8]).collect(),
                    _ => std::vec![opts.null_sentinel()],
                };
                keys.iter()
                    .zip(&taken)
                    .map(|(k, &t)| match k {
                        Some(_) => rows.row(t).unwrap().data().to_vec(),
                        None => null.clone(),
                    })
                    .collect::<Vec<_>>()
            };
            for beside in [None, Some(&other), Some(&text)] {
                let mut fields =
                    std::vec![SortField::new_with_options(col.data_type().clone(), opts)];
                let mut cols = std::vec![col.clone()];
                if let Some(b) = beside {
                    fields.push(SortField::new(b.data_type().clone()));
                    cols.push(b.clone());
                }
                let c = RowConverter::try_new(&fields).unwrap();
                let rows = c.convert_columns(&cols).unwrap();
                for (i, want) in plain.iter().enumerate() {
                    assert_eq!(&rows.row(i).unwrap().data()[..want.len()], &want[..]);
                }
                let back = c.convert_all_rows(&rows).unwrap();
                assert_eq!(back[0].len(), keys.len());
                // A key past the dictionary (an unchecked array).
                let bad = {
                    let k = PrimitiveArray::<i32, G>::try_from_options_in(
                        &[Some(0), None, Some(1), Some(9), Some(0)],
                        Global,
                    )
                    .unwrap();
                    let v = crate::buffer::SharedBox::try_new_in(values.clone(), Global).unwrap();
                    // SAFETY: the array is only encoded, which checks the keys.
                    unsafe {
                        DictionaryArray::new_unchecked(
                            col.data_type().clone(),
                            DictionaryKeys::Int32(k),
                            v,
                        )
                    }
                    .into_array_ref()
                };
                let mut bad_cols = cols.clone();
                bad_cols[0] = bad;
                assert_eq!(
                    c.convert_columns(&bad_cols).unwrap_err(),
                    Error::DictionaryKeyOutOfBounds
                );
            }
        }
    }
}
