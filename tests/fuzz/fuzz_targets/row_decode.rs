//! Row decoding of arbitrary bytes through the validating API
//! (`RowConverter::convert_rows` and `convert_all_rows`) for several
//! schemas: integers and strings, lists, structs, dictionaries (ordered,
//! with keys issued by a seed batch, and unordered), booleans, floats,
//! fixed-size binary, views.
//!
//! Input: byte 0 picks the schema, byte 1 the sort options and encoding,
//! then rows as `len: u8, bytes[len]`.
//!
//! Oracles: the two decode entry points agree (same columns or both
//! errors); decoded columns validate fully; re-encoding them and decoding
//! again gives the same columns, and (schemas without floats, which decode
//! normalised) the same bytes; allocations stay within `row_cap`; no global
//! heap.
#![no_main]

use alkaid::array::{
    Array, ArrayRef, DictionaryArray, DictionaryKeys, PrimitiveArray, StringArray, ValidationLevel,
};
use alkaid::buffer::SharedBox;
use alkaid::datatypes::{DataType, Field, IndexType, UnionFields, UnionMode};
use alkaid::row::{Row, RowConverter, RowEncoding, RowInterner, SortField, SortOptions};
use alkaid::Result;
use alkaid_alloc::Counting;
use alkaid_fuzz::*;
use libfuzzer_sys::fuzz_target;

const SCHEMAS: u8 = 12;

fn boxed<'a>(
    name: &'a str,
    dt: DataType<'a, Alloc<'a>>,
    a: Alloc<'a>,
) -> Result<SharedBox<'a, Field<'a, Alloc<'a>>, Alloc<'a>>> {
    SharedBox::try_new_in(Field::new(name, dt, true), a)
}

fn dict_type<'a>(a: Alloc<'a>) -> Result<DataType<'a, Alloc<'a>>> {
    Ok(DataType::Dictionary(
        IndexType::Int32,
        SharedBox::try_new_in(DataType::Utf8, a)?,
        false,
    ))
}

/// The data types of schema `k`, and whether its rows are canonical (no
/// floats: re-encoding gives the input bytes back).
fn schema<'a>(k: u8, a: Alloc<'a>) -> Result<(Vec<DataType<'a, Alloc<'a>>>, bool)> {
    use DataType::*;
    Ok(match k % SCHEMAS {
        0 => (vec![Int32, Utf8], true),
        1 => (vec![UInt64], true),
        2 => (vec![Utf8], true),
        3 => (vec![List(boxed("item", Int32, a)?)], true),
        4 => {
            let fields = alkaid::buffer::SharedSlice::try_from_iter_in(
                [Field::new("a", Int16, true), Field::new("b", Utf8, true)],
                a,
            )?;
            (vec![Struct(fields), Boolean], true)
        }
        5 => (vec![dict_type(a)?], true),
        6 => (vec![dict_type(a)?, Int64], true),
        7 => (vec![Boolean, Float64, FixedSizeBinary(3)], false),
        8 => (vec![Binary, LargeUtf8, BinaryView, Utf8View], true),
        10 | 11 => {
            let fields = alkaid::buffer::SharedSlice::try_from_iter_in(
                [
                    Field::new("i", Int32, true),
                    Field::new("s", Utf8, true),
                    Field::new("l", List(boxed("item", Int16, a)?), true),
                ],
                a,
            )?;
            let ids = alkaid::buffer::SharedSlice::try_from_iter_in([0i8, 5, 9], a)?;
            let mode = if k % SCHEMAS == 10 {
                UnionMode::Dense
            } else {
                UnionMode::Sparse
            };
            (
                vec![Union(UnionFields::try_new(ids, fields)?, mode), Int8],
                true,
            )
        }
        _ => (
            vec![
                FixedSizeList(boxed("item", Int32, a)?, 2),
                LargeList(boxed("item", Utf8, a)?),
            ],
            true,
        ),
    })
}

/// A dictionary column that issues the keys of "a", "bb", "ccc" (so that
/// ordered dictionary rows can decode).
fn seed_dictionary<'a>(a: Alloc<'a>) -> Result<ArrayRef<'a, Alloc<'a>>> {
    let keys = PrimitiveArray::<i32, Alloc<'a>>::try_from_options_in(
        &[Some(0), Some(1), Some(2), None],
        a,
    )?;
    let keys = DictionaryKeys::try_from(keys.into_array_ref())?;
    let values =
        StringArray::<Alloc<'a>>::try_from_options_in(&[Some("a"), Some("bb"), Some("ccc")], a)?;
    Ok(DictionaryArray::try_new_in(keys, values.into_array_ref(), false, a)?.into_array_ref())
}

/// A converter for schema `k` and its interner, with dictionary keys issued.
fn converter<'a>(
    k: u8,
    opts: u8,
    a: Alloc<'a>,
) -> Result<(
    RowConverter<'a, Alloc<'a>>,
    RowInterner<Alloc<'a>>,
    bool,
    bool,
)> {
    let (types, canonical) = schema(k, a)?;
    let options = SortOptions::new(opts & 1 != 0, opts & 2 != 0);
    let unordered = opts & 4 != 0;
    let has_dict = types.iter().any(|t| matches!(t, DataType::Dictionary(..)));
    let fields: Vec<_> = types
        .into_iter()
        .map(|t| SortField::new_with_options(t, options))
        .collect();
    let encoding = if unordered {
        RowEncoding::Unordered
    } else if opts & 8 != 0 {
        RowEncoding::Seed
    } else {
        RowEncoding::Ordered
    };
    let conv = RowConverter::try_new_with_encoding_in(&fields, encoding, a)?;
    let mut interner = conv.try_new_interner()?;
    if has_dict {
        // One seed row batch: every dictionary column gets the seed values,
        // the other columns nulls of their type.
        let mut cols = Vec::new();
        for f in &fields {
            cols.push(match f.data_type() {
                DataType::Dictionary(..) => seed_dictionary(a)?,
                DataType::Int64 => PrimitiveArray::<i64, Alloc<'a>>::try_from_options_in(
                    &[None, Some(1), Some(-1), None],
                    a,
                )?
                .into_array_ref(),
                _ => return Err(alkaid::Error::InvalidArgument),
            });
        }
        conv.convert_columns_with_interner(&mut interner, &cols)?;
    }
    Ok((conv, interner, canonical, has_dict))
}

fn same(
    x: &Result<alkaid::buffer::SharedSlice<'_, ArrayRef<'_, Alloc<'_>>, Alloc<'_>>>,
    y: &Result<alkaid::buffer::SharedSlice<'_, ArrayRef<'_, Alloc<'_>>, Alloc<'_>>>,
) -> bool {
    match (x, y) {
        (Ok(a), Ok(b)) => a.as_slice() == b.as_slice(),
        (Err(a), Err(b)) => a.kind() == b.kind(),
        _ => false,
    }
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 2 {
        return;
    }
    let (k, opts, mut rest) = (data[0], data[1], &data[2..]);
    let budget = Budget::new("RowConverter", row_cap(data.len()));
    let oracle = Counting::new(Direct);
    {
        let a = budget.alloc();
        let Ok((conv, interner, canonical, has_dict)) = converter(k, opts, a) else {
            panic!("schema {k} has no converter");
        };
        let mut rows = match conv.empty_rows(0, 0) {
            Ok(r) => r,
            Err(e) => panic!("empty_rows: {e:?}"),
        };
        let mut pieces: Vec<&[u8]> = Vec::new();
        while let Some((&len, tail)) = rest.split_first() {
            let len = (len as usize).min(tail.len());
            pieces.push(&tail[..len]);
            rest = &tail[len..];
        }
        for p in &pieces {
            if rows.try_push(Row::new(p)).is_err() {
                panic!("Rows::try_push within the cap failed");
            }
        }
        let by_iter = global_scope("convert_rows", 0, || {
            conv.convert_rows_with_interner(&interner, rows.iter())
        });
        let all = global_scope("convert_all_rows", 0, || {
            conv.convert_all_rows_with_interner(&interner, &rows)
        });
        assert!(
            same(&by_iter, &all),
            "convert_rows and convert_all_rows disagree: {:?} vs {:?}",
            by_iter.as_ref().err(),
            all.as_ref().err()
        );
        if let Ok(columns) = by_iter {
            for c in columns.iter() {
                if let Err(e) = c.validate(ValidationLevel::Full) {
                    panic!("decoded column does not validate: {e:?}");
                }
                assert_eq!(c.len(), pieces.len(), "decoded column length");
            }
            if !has_dict {
                // Re-encode with an identical converter from the oracle's memory.
                let (conv2, _, _, _) = converter(k, opts, &oracle).expect("oracle converter");
                let again = match conv2.convert_columns(columns.as_slice()) {
                    Ok(r) => r,
                    Err(e) => panic!("decoded columns do not encode: {e:?}"),
                };
                let columns2 = match conv2.convert_rows(again.iter()) {
                    Ok(c) => c,
                    Err(e) => panic!("re-encoded rows do not decode: {e:?}"),
                };
                assert!(
                    columns2.as_slice() == columns.as_slice(),
                    "columns differ after re-encoding"
                );
                if canonical {
                    for (i, p) in pieces.iter().enumerate() {
                        let r = again.row(i).expect("row");
                        assert!(
                            r.data() == *p,
                            "row {i} re-encodes to other bytes: {:?} vs {:?}",
                            r.data(),
                            p
                        );
                    }
                }
            }
        }
        drop(rows);
        drop(interner);
    }
    budget.check();
});
