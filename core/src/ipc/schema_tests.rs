//! Tests of schema encoding and decoding.

use super::*;
use crate::datatypes::*;
use crate::Global;
use std::vec::Vec;

type F = Field<'static, Global>;

fn boxed(f: F) -> FieldRef<'static, Global> {
    SharedBox::try_new_in(f, Global).unwrap()
}

fn fields(v: Vec<F>) -> Fields<'static, Global> {
    SharedSlice::try_from_iter_in(v, Global).unwrap()
}

fn md(kv: &[(&'static str, &'static str)]) -> Metadata<'static, Global> {
    SharedSlice::try_from_iter_in(
        kv.iter()
            .map(|(k, v)| (SharedStr::borrowed(k), SharedStr::borrowed(v))),
        Global,
    )
    .unwrap()
}

/// One field of every data type, nested ones included.
pub(crate) fn every_type_schema() -> Schema<'static, Global> {
    use DataType::*;
    let item = || F::new("item", Int32, true);
    let entries = F::new(
        "entries",
        Struct(fields(std::vec![
            F::new("key", Utf8, false),
            F::new("value", Float64, true)
        ])),
        false,
    );
    let mut v = std::vec![
        F::new("null", Null, true),
        F::new("bool", Boolean, false),
        F::new("i8", Int8, true),
        F::new("i16", Int16, true),
        F::new("i32", Int32, true),
        F::new("i64", Int64, true),
        F::new("u8", UInt8, true),
        F::new("u16", UInt16, true),
        F::new("u32", UInt32, true),
        F::new("u64", UInt64, true),
        F::new("f16", Float16, true),
        F::new("f32", Float32, true),
        F::new("f64", Float64, true),
        F::new("d32", Decimal32(9, 2), true),
        F::new("d64", Decimal64(18, -3), true),
        F::new("d128", Decimal128(38, 10), true),
        F::new("d256", Decimal256(76, 0), true),
        F::new("date32", Date32, true),
        F::new("date64", Date64, true),
        F::new("t32", Time32(TimeUnit::Millisecond), true),
        F::new("t64", Time64(TimeUnit::Nanosecond), true),
        F::new(
            "ts",
            Timestamp(
                TimeUnit::Microsecond,
                Some(SharedStr::borrowed("Europe/Paris"))
            ),
            true
        ),
        F::new("ts_naive", Timestamp(TimeUnit::Second, None), true),
        F::new("iv_ym", Interval(IntervalUnit::YearMonth), true),
        F::new("iv_dt", Interval(IntervalUnit::DayTime), true),
        F::new("iv_mdn", Interval(IntervalUnit::MonthDayNano), true),
        F::new("dur", Duration(TimeUnit::Second), true),
        F::new("fsb", FixedSizeBinary(16), true),
        F::new("bin", Binary, true),
        F::new("lbin", LargeBinary, true),
        F::new("utf8", Utf8, true),
        F::new("lutf8", LargeUtf8, true),
        F::new("binview", BinaryView, true),
        F::new("utf8view", Utf8View, true),
        F::new("list", List(boxed(item())), true),
        F::new("llist", LargeList(boxed(item())), true),
        F::new("listview", ListView(boxed(item())), true),
        F::new("llistview", LargeListView(boxed(item())), true),
        F::new("fsl", FixedSizeList(boxed(item()), 3), true),
        F::new(
            "struct",
            Struct(fields(std::vec![item(), F::new("s", Utf8, false)])),
            true
        ),
        F::new("map", Map(boxed(entries), true), true),
        F::new(
            "sparse",
            Union(
                UnionFields::try_new(
                    SharedSlice::try_from_slice_in(&[5, 2], Global).unwrap(),
                    fields(std::vec![item(), F::new("s", Utf8, true)]),
                )
                .unwrap(),
                UnionMode::Sparse,
            ),
            true,
        ),
        F::new(
            "dense",
            Union(
                UnionFields::try_new(
                    SharedSlice::try_from_slice_in(&[0, 1], Global).unwrap(),
                    fields(std::vec![item(), F::new("f", Float32, true)]),
                )
                .unwrap(),
                UnionMode::Dense,
            ),
            true,
        ),
        F::new(
            "ree",
            RunEndEncoded(
                boxed(F::new("run_ends", Int32, false)),
                boxed(F::new("values", Utf8, true))
            ),
            true,
        ),
        F::new(
            "dict",
            Dictionary(
                IndexType::Int16,
                SharedBox::try_new_in(Utf8, Global).unwrap(),
                true
            ),
            true,
        )
        .with_dict_id(7),
        F::new(
            "dict_list",
            Dictionary(
                IndexType::UInt32,
                SharedBox::try_new_in(List(boxed(item())), Global).unwrap(),
                false
            ),
            true,
        )
        .with_dict_id(8),
    ];
    v[4] = v[4].clone().with_metadata(md(&[
        ("ARROW:extension:name", "my.ext"),
        ("ARROW:extension:metadata", "{}"),
    ]));
    Schema::new(fields(v)).with_metadata(md(&[("origin", "test"), ("k2", "")]))
}

fn encode(schema: &Schema<'static, Global>, alkaid: bool) -> Vec<u8> {
    let mut scratch = std::vec![0u8; 16 * 1024];
    let mut b = FlatBufferBuilder::new(&mut scratch);
    let root = encode_schema(&mut b, schema, Endianness::Big, alkaid).unwrap();
    b.finish(root).unwrap().to_vec()
}

#[test]
fn every_type_round_trips() {
    let schema = every_type_schema();
    let bytes = encode(&schema, false);
    let (back, end) = decode_schema(&bytes, Global, DecodeLimits::default()).unwrap();
    assert_eq!(end, Endianness::Big);
    for (a, b) in schema.fields().iter().zip(back.fields().iter()) {
        assert_eq!(a, b, "field {}", a.name());
    }
    assert_eq!(back, schema);
}

#[test]
fn alkaid_spelling_is_written_and_read_back_as_arrow() {
    let schema = every_type_schema();
    let bytes = encode(&schema, true);
    let needle = b"ALKAID:extension:name";
    assert!(bytes.windows(needle.len()).any(|w| w == needle));
    assert!(!bytes.windows(6).any(|w| w == b"ARROW:"));
    let (back, _) = decode_schema(&bytes, Global, DecodeLimits::default()).unwrap();
    assert_eq!(back, schema);
    assert_eq!(back.fields()[4].extension_name(), Some("my.ext"));
}

#[test]
fn limits_are_enforced() {
    let bytes = encode(&every_type_schema(), false);
    let small = DecodeLimits {
        max_fields: 10,
        ..DecodeLimits::default()
    };
    assert_eq!(
        decode_schema(&bytes, Global, small).err(),
        Some(Error::LimitExceeded)
    );
    let shallow = DecodeLimits {
        max_depth: 1,
        ..DecodeLimits::default()
    };
    assert_eq!(
        decode_schema(&bytes, Global, shallow).err(),
        Some(Error::LimitExceeded)
    );
    let few_md = DecodeLimits {
        max_metadata_entries: 1,
        ..DecodeLimits::default()
    };
    assert_eq!(
        decode_schema(&bytes, Global, few_md).err(),
        Some(Error::LimitExceeded)
    );
}

#[test]
fn scratch_too_small_reports_error() {
    let schema = every_type_schema();
    let mut scratch = std::vec![0u8; 512];
    let mut b = FlatBufferBuilder::new(&mut scratch);
    assert_eq!(
        encode_schema(&mut b, &schema, Endianness::Little, false).err(),
        Some(Error::ScratchTooSmall)
    );
}

#[test]
fn corrupted_schema_bytes_never_panic() {
    let bytes = encode(&every_type_schema(), false);
    for n in (0..bytes.len()).step_by(7) {
        let _ = decode_schema(&bytes[..n], Global, DecodeLimits::default());
    }
    let step = if cfg!(miri) { 97 } else { 1 };
    for i in (0..bytes.len()).step_by(step) {
        for x in [0x00u8, 0x01, 0x7F, 0xFF] {
            let mut bad = bytes.clone();
            bad[i] = x;
            let _ = decode_schema(&bad, Global, DecodeLimits::default());
        }
    }
}
