//! Test data shared by the integration tests: a small two-batch table and
//! its stream and file encodings, written with the alkaid writers.

#![allow(dead_code)]

use alkaid::array::{
    Array, ArrayRef, ListBuilder, PrimitiveArray, RecordBatch, StringArray, StringBuilder,
};
use alkaid::buffer::{SharedSlice, SharedStr};
use alkaid::datatypes::{DataType, Field, Schema, TimeUnit};
use alkaid::Global as G;
use alkaid_std::{IpcFormat, IpcWriteOptions, IpcWriter};

fn tags(rows: &[Option<&[&str]>]) -> ArrayRef<'static, G> {
    let mut b = ListBuilder::new_in(StringBuilder::new_in(G), G);
    for row in rows {
        match row {
            Some(items) => {
                for s in *items {
                    b.values().try_append_value(s).unwrap();
                }
                b.try_append(true).unwrap();
            }
            None => b.try_append_null().unwrap(),
        }
    }
    b.try_finish().unwrap().into_array_ref()
}

fn ts(v: &[Option<i64>]) -> ArrayRef<'static, G> {
    PrimitiveArray::<i64, G>::try_from_options_in(v, G)
        .unwrap()
        .with_data_type(DataType::Timestamp(
            TimeUnit::Millisecond,
            Some(SharedStr::borrowed("UTC")),
        ))
        .unwrap()
        .into_array_ref()
}

/// `id: int32 not null, name: string, score: double, tags: list<item:
/// string>, ts: timestamp[ms, tz=UTC]`, and two batches of 3 and 1 rows with
/// nulls.
pub fn sample() -> (Schema<'static, G>, Vec<RecordBatch<'static, G>>) {
    let cols1: Vec<ArrayRef<'static, G>> = vec![
        PrimitiveArray::<i32, G>::try_from_options_in(&[Some(1), Some(2), Some(3)], G)
            .unwrap()
            .into_array_ref(),
        StringArray::<G>::try_from_options_in(&[Some("alice"), None, Some("bob")], G)
            .unwrap()
            .into_array_ref(),
        PrimitiveArray::<f64, G>::try_from_options_in(&[Some(1.5), None, Some(-0.25)], G)
            .unwrap()
            .into_array_ref(),
        tags(&[Some(&["x", "y"]), Some(&[]), None]),
        ts(&[Some(0), None, Some(1_709_214_300_250)]),
    ];
    let cols2: Vec<ArrayRef<'static, G>> = vec![
        PrimitiveArray::<i32, G>::try_from_options_in(&[Some(4)], G)
            .unwrap()
            .into_array_ref(),
        StringArray::<G>::try_from_options_in(&[Some("dé")], G)
            .unwrap()
            .into_array_ref(),
        PrimitiveArray::<f64, G>::try_from_options_in(&[Some(2.0)], G)
            .unwrap()
            .into_array_ref(),
        tags(&[Some(&["z"])]),
        ts(&[Some(86_400_000)]),
    ];
    let names = ["id", "name", "score", "tags", "ts"];
    let fields = SharedSlice::try_from_iter_in(
        cols1
            .iter()
            .zip(names)
            .map(|(c, n)| Field::new(n, c.data_type().clone(), n != "id")),
        G,
    )
    .unwrap();
    let schema = Schema::new(fields);
    let batches = [cols1, cols2]
        .into_iter()
        .map(|cols| {
            RecordBatch::try_new(
                schema.clone(),
                SharedSlice::try_from_iter_in(cols, G).unwrap(),
            )
            .unwrap()
        })
        .collect();
    (schema, batches)
}

/// The sample encoded in `format` (8-byte alignment keeps it small).
pub fn encode(format: IpcFormat) -> Vec<u8> {
    let (schema, batches) = sample();
    let options = IpcWriteOptions {
        alignment: 8,
        ..Default::default()
    };
    let mut w = IpcWriter::try_new(Vec::new(), format, &schema, options).unwrap();
    for b in &batches {
        w.write(b).unwrap();
    }
    w.finish().unwrap();
    w.into_inner()
}

/// `schema` output of the sample.
pub const SCHEMA: &str = "\
id: int32 not null
name: string
score: double
tags: list<item: string>
ts: timestamp[ms, tz=UTC]
";

/// `cat` output of the sample.
pub const CAT: &str = "\
id | name  | score | tags       | ts
---+-------+-------+------------+-------------------------
 1 | alice |   1.5 | [\"x\", \"y\"] | 1970-01-01T00:00:00.000Z
 2 | null  |  null | []         | null
 3 | bob   | -0.25 | null       | 2024-02-29T13:45:00.250Z
 4 | dé    |   2.0 | [\"z\"]      | 1970-01-02T00:00:00.000Z
";

/// A fresh directory for one test under cargo's temporary directory.
pub fn temp_dir(test: &str) -> std::path::PathBuf {
    let d = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("alkaid-std-{test}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A compressible table: `n: int64` (nullable, repeating small values) and
/// `word: string` (a few words), two batches of `rows` rows.
pub fn compressible(rows: i64) -> (Schema<'static, G>, Vec<RecordBatch<'static, G>>) {
    let words = ["arrow", "zstd", "lz4", "", "columnar", "alkaid"];
    let fields = SharedSlice::try_from_iter_in(
        [
            Field::new("n", DataType::Int64, true),
            Field::new("word", DataType::Utf8, true),
        ],
        G,
    )
    .unwrap();
    let schema = Schema::new(fields);
    let batches = (0..2)
        .map(|k| {
            let n: Vec<Option<i64>> = (0..rows)
                .map(|i| (i % 11 != 0).then_some((i * (k + 1)) % 100))
                .collect();
            let w: Vec<Option<&str>> = (0..rows)
                .map(|i| (i % 13 != 0).then_some(words[(i as usize * 7 + k as usize) % 6]))
                .collect();
            let cols: Vec<ArrayRef<'static, G>> = vec![
                PrimitiveArray::<i64, G>::try_from_options_in(&n, G)
                    .unwrap()
                    .into_array_ref(),
                StringArray::<G>::try_from_options_in(&w, G)
                    .unwrap()
                    .into_array_ref(),
            ];
            RecordBatch::try_new(
                schema.clone(),
                SharedSlice::try_from_iter_in(cols, G).unwrap(),
            )
            .unwrap()
        })
        .collect();
    (schema, batches)
}

/// `batches` of `schema` written in `format` with `options`.
pub fn write_with(
    format: IpcFormat,
    schema: &Schema<'static, G>,
    batches: &[RecordBatch<'static, G>],
    options: IpcWriteOptions,
) -> Vec<u8> {
    let mut w = IpcWriter::try_new(Vec::new(), format, schema, options).unwrap();
    for b in batches {
        w.write(b).unwrap();
    }
    w.finish().unwrap();
    w.into_inner()
}
