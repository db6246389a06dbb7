//! Where the bytes of a [`Rows`](super::Rows) came from: a [`Provenance`]
//! names the fields of the converter whose encoder wrote every byte, so
//! that a converter of the same fields can decode its strings without
//! checking their UTF-8 again (the encoder only ever wrote the bytes of
//! valid strings, and decoding gives back exactly the values encoded).
//!
//! The comparison is exact: two provenances are equal only when the
//! converters' fields have the same encoding, sort options and column type,
//! so the rows of a Binary converter never pass for a Utf8 converter's. A
//! provenance is recorded only for the converters whose decoder uses it:
//! one variable-length byte column (Binary, LargeBinary, Utf8, LargeUtf8,
//! BinaryView, Utf8View), or one dictionary of such values encoded by
//! value. Rows of any other converter, and rows with bytes from anywhere
//! else ([`super::Rows::try_push`]), have none and are checked in full.
//!
//! It is a few bytes copied into the rows per encode: no allocation, no
//! counter, no hash.

use allocator_api2::alloc::Allocator;

use super::{Kind, Node, RowEncoding, SortOptions};
use crate::datatypes::DataType;

/// The fields of the converter that wrote every byte of some rows (see the
/// [module](self) documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Provenance {
    encoding: RowEncoding,
    options: SortOptions,
    /// The one byte column's type.
    column: ByteColumn,
    /// The column is a dictionary (encoded by value) of `column` values.
    dictionary: bool,
}

/// The variable-length byte types, one by one (no data type borrowed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ByteColumn {
    Binary,
    LargeBinary,
    Utf8,
    LargeUtf8,
    BinaryView,
    Utf8View,
}

impl ByteColumn {
    fn of<A: Allocator>(dt: &DataType<'_, A>) -> Option<Self> {
        use DataType as D;
        Some(match dt {
            D::Binary => ByteColumn::Binary,
            D::LargeBinary => ByteColumn::LargeBinary,
            D::Utf8 => ByteColumn::Utf8,
            D::LargeUtf8 => ByteColumn::LargeUtf8,
            D::BinaryView => ByteColumn::BinaryView,
            D::Utf8View => ByteColumn::Utf8View,
            _ => return None,
        })
    }
}

impl Provenance {
    /// The provenance of rows written by a converter of `nodes` writing
    /// `encoding`; `None` for converters that record none.
    pub(crate) fn of<A: Allocator>(nodes: &[Node<'_, A>], encoding: RowEncoding) -> Option<Self> {
        let [node] = nodes else {
            return None;
        };
        let (leaf, dictionary) = match &node.kind {
            Kind::Leaf => (node, false),
            // By value only: a seed dictionary's rows hold interner keys.
            Kind::Dictionary(None, values) => match values.as_slice() {
                [v] if matches!(v.kind, Kind::Leaf) && v.options == node.options => (v, true),
                _ => return None,
            },
            _ => return None,
        };
        Some(Provenance {
            encoding,
            options: node.options,
            column: ByteColumn::of(&leaf.data_type)?,
            dictionary,
        })
    }
}

#[cfg(test)]
mod tests {
    use std::vec::Vec;

    use crate::Global;

    use super::*;
    use crate::array::{
        Array, ArrayRef, BinaryArray, BinaryViewArray, DictionaryArray, DictionaryKeys, Int32Array,
        LargeStringArray, StringArray, StringViewArray,
    };
    use crate::buffer::SharedBox;
    use crate::datatypes::IndexType;
    use crate::error::{ErrorKind, Result};
    use crate::row::{Row, RowConverter, Rows, SortField};

    type G = Global;

    fn modes() -> [(SortOptions, RowEncoding); 4] {
        [
            (SortOptions::default(), RowEncoding::Ordered),
            (SortOptions::new(true, false), RowEncoding::Ordered),
            (SortOptions::new(false, false), RowEncoding::Ordered),
            (SortOptions::default(), RowEncoding::Unordered),
        ]
    }

    fn converter(
        dt: DataType<'static, G>,
        mode: (SortOptions, RowEncoding),
    ) -> RowConverter<'static, G> {
        RowConverter::try_new_with_encoding(&[SortField::new_with_options(dt, mode.0)], mode.1)
            .unwrap()
    }

    fn dictionary_of_utf8() -> DataType<'static, G> {
        DataType::Dictionary(
            IndexType::Int32,
            SharedBox::try_new_in(DataType::Utf8, Global).unwrap(),
            false,
        )
    }

    /// The string types, and a dictionary of strings (encoded by value).
    fn string_types() -> [DataType<'static, G>; 4] {
        [
            DataType::Utf8,
            DataType::LargeUtf8,
            DataType::Utf8View,
            dictionary_of_utf8(),
        ]
    }

    /// Batches of Binary values that are not all UTF-8: a bad byte in a
    /// value short enough to live in its view, one at the end of a long
    /// value, and two long values that are UTF-8 together but not apart
    /// (a character split between them).
    fn not_utf8() -> Vec<Vec<Vec<u8>>> {
        let mut long = std::vec![b'x'; 40];
        long[35] = 0xFF;
        let mut head = std::vec![b'y'; 30];
        head.push(0xC3);
        let mut tail = std::vec![0xA9];
        tail.extend([b'z'; 30]);
        std::vec![
            std::vec![b"ok".to_vec(), std::vec![0xFF]],
            std::vec![b"ab\xC3".to_vec()],
            std::vec![long],
            std::vec![head, tail],
        ]
    }

    fn binary(values: &[Vec<u8>]) -> ArrayRef<'static, G> {
        let v: Vec<Option<&[u8]>> = values.iter().map(|v| Some(v.as_slice())).collect();
        BinaryArray::from(v).into_array_ref()
    }

    /// Strings (some not ASCII, short and long, a null) as a column of
    /// `dt`, and the column they decode to.
    fn strings(dt: &DataType<'static, G>) -> (ArrayRef<'static, G>, ArrayRef<'static, G>) {
        let long = "ü".repeat(20);
        let v = std::vec![
            Some("héllo"),
            None,
            Some(""),
            Some(long.as_str()),
            Some("a")
        ];
        let utf8 = StringArray::from(v.clone()).into_array_ref();
        let column = match dt {
            DataType::Utf8 => utf8.clone(),
            DataType::LargeUtf8 => LargeStringArray::from(v).into_array_ref(),
            DataType::Utf8View => StringViewArray::from(v).into_array_ref(),
            // A dictionary decodes to its values' type.
            _ => {
                let keys: Vec<Option<i32>> = (0..5).map(Some).collect();
                let keys = DictionaryKeys::Int32(Int32Array::from(keys));
                let column = DictionaryArray::try_new_in(keys, utf8.clone(), false, Global)
                    .unwrap()
                    .into_array_ref();
                return (column, utf8);
            }
        };
        (column.clone(), column)
    }

    /// Both decodes of `rows`: all of them straight from their buffer, and
    /// one by one.
    fn decode_both(
        c: &RowConverter<'static, G>,
        rows: &Rows<G>,
    ) -> [Result<ArrayRef<'static, G>>; 2] {
        [
            c.convert_all_rows(rows).map(|cols| cols[0].clone()),
            c.convert_rows(rows.iter()).map(|cols| cols[0].clone()),
        ]
    }

    fn assert_not_utf8(c: &RowConverter<'static, G>, rows: &Rows<G>, case: &str) {
        for r in decode_both(c, rows) {
            assert_eq!(
                r.map(|_| ()).map_err(|e| e.kind()),
                Err(ErrorKind::InvalidUtf8),
                "{case}"
            );
        }
    }

    /// The rows of a Binary (or BinaryView) converter, of the same options
    /// and encoding, holding bytes that are not UTF-8: a string converter
    /// checks them, from a `Rows` as from single rows.
    #[test]
    fn binary_rows_are_checked_by_string_converters() {
        for mode in modes() {
            for bin_type in [DataType::Binary, DataType::BinaryView] {
                let bin = converter(bin_type.clone(), mode);
                for values in not_utf8() {
                    let col = match bin_type {
                        DataType::Binary => binary(&values),
                        _ => {
                            let v: Vec<Option<&[u8]>> =
                                values.iter().map(|v| Some(v.as_slice())).collect();
                            BinaryViewArray::from(v).into_array_ref()
                        }
                    };
                    let rows = bin.convert_columns(&[col]).unwrap();
                    assert!(rows.written_by().is_some());
                    for dt in string_types() {
                        let c = converter(dt.clone(), mode);
                        assert_not_utf8(
                            &c,
                            &rows,
                            &std::format!("{mode:?} {bin_type:?} {dt:?} {values:?}"),
                        );
                        assert_ne!(rows.written_by(), c.provenance);
                    }
                }
            }
        }
    }

    /// Rows a string converter wrote are taken as UTF-8 by a converter of
    /// the same field, and decode to the strings encoded, batch after batch.
    #[test]
    fn own_rows_decode_equal_unchecked() {
        for mode in modes() {
            for dt in string_types() {
                let c = converter(dt.clone(), mode);
                let (column, want) = strings(&dt);
                let mut rows = c.convert_columns(core::slice::from_ref(&column)).unwrap();
                c.append(&mut rows, core::slice::from_ref(&column)).unwrap();
                assert!(rows.written_by().is_some(), "{dt:?}");
                assert_eq!(rows.written_by(), c.provenance);
                // Another converter of the same field takes them too.
                let same = converter(dt.clone(), mode);
                let twice = crate::compute::concat(&[&want, &want], Global).unwrap();
                for r in decode_both(&same, &rows) {
                    assert_eq!(r.unwrap(), twice, "{mode:?} {dt:?}");
                }
            }
        }
    }

    /// One pushed row (bytes from anywhere) makes the rows checked in full
    /// until they are cleared.
    #[test]
    fn try_push_makes_rows_checked() {
        for mode in modes() {
            let bin = converter(DataType::Binary, mode);
            for values in not_utf8() {
                let bad = bin.convert_columns(&[binary(&values)]).unwrap();
                for dt in string_types() {
                    let c = converter(dt.clone(), mode);
                    let (column, _) = strings(&dt);
                    let mut rows = c.convert_columns(core::slice::from_ref(&column)).unwrap();
                    for row in bad.iter() {
                        rows.try_push(row).unwrap();
                    }
                    assert_not_utf8(&c, &rows, &std::format!("{mode:?} {dt:?} {values:?}"));
                    assert_eq!(rows.written_by(), None);
                    // Appending own rows later does not make them trusted.
                    c.append(&mut rows, core::slice::from_ref(&column)).unwrap();
                    assert_not_utf8(&c, &rows, &std::format!("{mode:?} {dt:?} {values:?}"));
                    rows.clear();
                    c.append(&mut rows, core::slice::from_ref(&column)).unwrap();
                    assert_eq!(rows.written_by(), c.provenance);
                }
            }
        }
    }

    /// Rows that a converter of other fields appended to (or that it
    /// started) are checked in full.
    #[test]
    fn append_of_other_fields_makes_rows_checked() {
        for mode in modes() {
            let bin = converter(DataType::Binary, mode);
            for values in not_utf8() {
                for dt in string_types() {
                    let c = converter(dt.clone(), mode);
                    let (column, _) = strings(&dt);
                    let case = std::format!("{mode:?} {dt:?} {values:?}");
                    // Strings first, then bytes that are not UTF-8.
                    let mut rows = c.convert_columns(core::slice::from_ref(&column)).unwrap();
                    bin.append(&mut rows, &[binary(&values)]).unwrap();
                    assert_not_utf8(&c, &rows, &case);
                    assert_eq!(rows.written_by(), None);
                    // Bytes first (into blank rows), then strings.
                    let mut rows = Rows::new_in(Global);
                    bin.append(&mut rows, &[binary(&values)]).unwrap();
                    c.append(&mut rows, core::slice::from_ref(&column)).unwrap();
                    assert_not_utf8(&c, &rows, &case);
                    assert_eq!(rows.written_by(), None);
                }
            }
        }
    }

    /// Which converters record a provenance, and that it tells fields apart.
    #[test]
    fn provenance_by_fields() {
        let asc = (SortOptions::default(), RowEncoding::Ordered);
        let p = |dt: DataType<'static, G>, mode| converter(dt, mode).provenance;
        assert!(p(DataType::Int32, asc).is_none());
        assert!(p(DataType::Utf8, (SortOptions::default(), RowEncoding::Seed)).is_some());
        assert!(p(
            dictionary_of_utf8(),
            (SortOptions::default(), RowEncoding::Seed)
        )
        .is_none());
        let two = RowConverter::try_new(&[
            SortField::new(DataType::Utf8),
            SortField::new(DataType::Utf8),
        ])
        .unwrap();
        assert!(two.provenance.is_none());
        let mut seen: Vec<Provenance> = Vec::new();
        for mode in modes() {
            for dt in [
                DataType::Binary,
                DataType::LargeBinary,
                DataType::BinaryView,
            ]
            .into_iter()
            .chain(string_types())
            {
                let q = p(dt, mode).unwrap();
                assert!(!seen.contains(&q));
                seen.push(q);
            }
        }
        // Row by row: never trusted, whatever made the rows.
        let c = converter(DataType::Utf8, asc);
        let mut row = std::vec![0x02, 0xFF];
        row.extend([0; 31]);
        row.push(1);
        assert_eq!(
            c.convert_rows([Row::new(&row)])
                .map(|_| ())
                .map_err(|e| e.kind()),
            Err(ErrorKind::InvalidUtf8)
        );
    }
}
