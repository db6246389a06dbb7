//! Tests of the row format: the spec's worked examples byte for byte,
//! round trips, and malformed rows.

use std::vec::Vec;

use allocator_api2::alloc::Global;

use super::*;
use crate::array::{Array, PrimitiveArray, StringArray};

type G = Global;

fn rows_bytes(rows: &Rows<G>) -> Vec<Vec<u8>> {
    rows.iter().map(|r| r.data().to_vec()).collect()
}

fn convert(dt: DataType<'static, G>, opts: SortOptions, col: ArrayRef<'static, G>) -> Vec<Vec<u8>> {
    let mut c = RowConverter::try_new(&[SortField::new_with_options(dt, opts)]).unwrap();
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
