//! The deterministic batches of the big-endian interop test.
//!
//! Every value is a formula of the row's index `i` in the stream (counting
//! across batches), so that the checkers on the host (`be_check`, and
//! `check.py` with pyarrow) recompute them without any shared file. The
//! columns cover every byte-swapping width of the IPC body: 1, 2, 4, 8 and
//! 16-byte values, 32- and 64-bit offsets, view structs, list offsets,
//! struct children, dictionary keys, validity bitmaps.
//!
//! | column | type | value at row `i` | null when |
//! |---|---|---|---|
//! | `i8` | Int8 | `(37 i mod 256) - 128` | never |
//! | `u16` | UInt16 | `(1009 i + 1) mod 65536` | never |
//! | `i32` | Int32 | `100003 i - 5000000` | `i mod 7 = 3` |
//! | `i64` | Int64 | `0x0102030405060708 + 1000000007 i` (negated for odd `i`) | never |
//! | `f32` | Float32 | `0.25 i - 3` | never |
//! | `f64` | Float64 | `1 / (i + 1)` | never |
//! | `ts` | Timestamp(ms, "UTC") | `1700000000000 + 250 i` | never |
//! | `date` | Date32 | `19000 + i` | never |
//! | `dec` | Decimal128(20, 3) | unscaled `123456789012345 i - 10^17` | never |
//! | `bool` | Boolean | `i mod 3 = 0` | `i mod 11 = 5` |
//! | `s` | Utf8 | `"row-{i}"` | `i mod 5 = 4` |
//! | `ls` | LargeUtf8 | `"é"` repeated `i mod 4` times | never |
//! | `view` | Utf8View | `"v{i}"` (even `i`), `"a long view string number {i}"` (odd) | never |
//! | `list` | List\<Int32\> | `[10 i + k for k in 0..i mod 4]` | `i mod 6 = 5` |
//! | `st` | Struct{a: Int16, b: Float64} | `a = i - 300`, `b = i / 2` | `i mod 9 = 8` |
//! | `status` | Dictionary\<Int16, Utf8\> | `["ok", "warn", "fault"][i mod 3]` | `i mod 13 = 12` |

use alkaid::array::{
    Array, ArrayRef, BooleanBuilder, DictionaryBuilder, LargeStringArray, ListBuilder,
    PrimitiveArray, PrimitiveBuilder, RecordBatch, StringArray, StringViewArray, StructArray,
};
use alkaid::buffer::{NullBuffer, SharedSlice, SharedStr};
use alkaid::datatypes::{DataType, Field, Schema, TimeUnit};
use alkaid::{Global, Result};

/// The allocator of this test (a host and an s390x Linux program).
pub type A = Global;

/// Rows of each record batch of the stream.
pub const BATCH_ROWS: [usize; 3] = [100, 37, 1];

/// The dictionary of the `status` column.
pub const STATUS: [&str; 3] = ["ok", "warn", "fault"];

/// The batches of the stream, in order.
///
/// # Errors
/// Allocation and validation errors of the builders (none expected).
pub fn batches() -> Result<Vec<RecordBatch<'static, A>>> {
    let mut out = Vec::new();
    let mut start = 0;
    for rows in BATCH_ROWS {
        out.push(batch(start, rows)?);
        start += rows;
    }
    Ok(out)
}

fn opt<T>(v: T, null: bool) -> Option<T> {
    (!null).then_some(v)
}

fn prim<T: alkaid::array::PrimitiveType>(
    rows: &[i64],
    f: impl Fn(i64) -> Option<T>,
) -> Result<PrimitiveArray<'static, T, A>> {
    let v: Vec<Option<T>> = rows.iter().map(|&i| f(i)).collect();
    PrimitiveArray::try_from_options_in(&v, Global)
}

/// The batch of rows `start..start + rows`.
///
/// # Errors
/// As [`batches`].
pub fn batch(start: usize, rows: usize) -> Result<RecordBatch<'static, A>> {
    let idx: Vec<i64> = (start..start + rows).map(|i| i as i64).collect();

    let i8s = prim(&idx, |i| Some(((37 * i).rem_euclid(256) - 128) as i8))?;
    let u16s = prim(&idx, |i| Some(((1009 * i + 1) % 65536) as u16))?;
    let i32s = prim(&idx, |i| opt((100_003 * i - 5_000_000) as i32, i % 7 == 3))?;
    let i64s = prim(&idx, |i| {
        let v = 1_000_000_007 * i;
        Some(0x0102_0304_0506_0708 + if i % 2 == 1 { -v } else { v })
    })?;
    let f32s = prim(&idx, |i| Some(0.25 * i as f32 - 3.0))?;
    let f64s = prim(&idx, |i| Some(1.0 / (i + 1) as f64))?;
    let ts = prim(&idx, |i| Some(1_700_000_000_000 + 250 * i))?.with_data_type(
        DataType::Timestamp(TimeUnit::Millisecond, Some(SharedStr::borrowed("UTC"))),
    )?;
    let date = prim(&idx, |i| Some((19_000 + i) as i32))?.with_data_type(DataType::Date32)?;
    let dec = prim(&idx, |i| {
        Some(123_456_789_012_345_i128 * i as i128 - 100_000_000_000_000_000)
    })?
    .with_data_type(DataType::Decimal128(20, 3))?;

    let mut bools = BooleanBuilder::new_in(Global);
    for &i in &idx {
        bools.try_append_option(opt(i % 3 == 0, i % 11 == 5))?;
    }

    let s: Vec<Option<String>> = idx
        .iter()
        .map(|&i| opt(format!("row-{i}"), i % 5 == 4))
        .collect();
    let s: Vec<Option<&str>> = s.iter().map(|v| v.as_deref()).collect();
    let s = StringArray::try_from_options_in(&s, Global)?;

    let ls: Vec<String> = idx.iter().map(|&i| "é".repeat((i % 4) as usize)).collect();
    let ls: Vec<Option<&str>> = ls.iter().map(|v| Some(v.as_str())).collect();
    let ls = LargeStringArray::try_from_options_in(&ls, Global)?;

    let view: Vec<String> = idx
        .iter()
        .map(|&i| {
            if i % 2 == 0 {
                format!("v{i}")
            } else {
                format!("a long view string number {i}")
            }
        })
        .collect();
    let view: Vec<Option<&str>> = view.iter().map(|v| Some(v.as_str())).collect();
    let view = StringViewArray::try_from_options_in(&view, Global)?;

    let mut list = ListBuilder::new_in(PrimitiveBuilder::<i32, A>::new_in(Global), Global);
    for &i in &idx {
        if i % 6 == 5 {
            list.try_append_null()?;
            continue;
        }
        for k in 0..i % 4 {
            list.values().try_append_value((10 * i + k) as i32)?;
        }
        list.try_append(true)?;
    }
    let list = list.try_finish()?;

    let st_fields = SharedSlice::try_from_iter_in(
        [
            Field::new("a", DataType::Int16, false),
            Field::new("b", DataType::Float64, false),
        ],
        Global,
    )?;
    let a = prim(&idx, |i| Some((i - 300) as i16))?;
    let b = prim(&idx, |i| Some(i as f64 / 2.0))?;
    let mut valid = alkaid::buffer::NullBufferBuilder::new_in(Global);
    for &i in &idx {
        valid.try_append(i % 9 != 8)?;
    }
    let st_nulls: Option<NullBuffer<'static, A>> = valid.finish();
    let st = StructArray::try_new(
        st_fields.clone(),
        SharedSlice::try_from_iter_in([a.into_array_ref(), b.into_array_ref()], Global)?,
        st_nulls,
    )?;

    let dict_values = StringArray::try_from_options_in(&STATUS.map(Some), Global)?;
    let mut status = DictionaryBuilder::<i16, A>::try_new_in(dict_values.into_array_ref(), Global)?;
    for &i in &idx {
        status.try_append_option(opt((i % 3) as usize, i % 13 == 12))?;
    }

    let columns: Vec<ArrayRef<'static, A>> = vec![
        i8s.into_array_ref(),
        u16s.into_array_ref(),
        i32s.into_array_ref(),
        i64s.into_array_ref(),
        f32s.into_array_ref(),
        f64s.into_array_ref(),
        ts.into_array_ref(),
        date.into_array_ref(),
        dec.into_array_ref(),
        bools.finish().into_array_ref(),
        s.into_array_ref(),
        ls.into_array_ref(),
        view.into_array_ref(),
        list.into_array_ref(),
        st.into_array_ref(),
        status.finish().into_array_ref(),
    ];
    let names = [
        "i8", "u16", "i32", "i64", "f32", "f64", "ts", "date", "dec", "bool", "s", "ls", "view",
        "list", "st", "status",
    ];
    let fields: Vec<Field<'static, A>> = columns
        .iter()
        .zip(names)
        .map(|(c, n)| {
            let f = Field::new(n, c.data_type().clone(), nullable(n));
            // IPC: a dictionary-encoded field names the dictionary feeding it.
            if n == "status" {
                f.with_dict_id(0)
            } else {
                f
            }
        })
        .collect();
    let schema = Schema::new(SharedSlice::try_from_iter_in(fields, Global)?);
    RecordBatch::try_new(schema, SharedSlice::try_from_iter_in(columns, Global)?)
}

/// Whether a column may hold nulls (fixed by name, not by the batch: every
/// batch must have the same schema).
fn nullable(name: &str) -> bool {
    matches!(name, "i32" | "bool" | "s" | "list" | "st" | "status")
}
