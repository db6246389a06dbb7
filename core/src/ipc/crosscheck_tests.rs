//! Cross-checks of our heap-free flatbuffers code against the flatc-generated
//! reader and builder of `alkaid-fbs` (the authoritative schema).

use crate::Global;
use alkaid_fbs::flatbuf as fb;
use alkaid_fbs::flatbuffers::FlatBufferBuilder as FbBuilder;

use super::message::*;
use super::schema::{decode_schema, DecodeLimits};
use super::Endianness;
use crate::datatypes::{DataType, Field};

fn check_field(ours: &Field<'static, Global>, theirs: fb::Field<'_>) {
    assert_eq!(theirs.name(), Some(ours.name()));
    assert_eq!(theirs.nullable(), ours.is_nullable());
    let n_children = theirs.children().map_or(0, |c| c.len());
    use DataType::*;
    let value_type = match ours.data_type() {
        Dictionary(index, v, ordered) => {
            let d = theirs.dictionary().expect("dictionary encoding");
            assert_eq!(Some(d.id()), ours.dict_id());
            assert_eq!(d.isOrdered(), *ordered);
            assert_eq!(
                d.indexType().unwrap().bitWidth() as usize,
                index.byte_width() * 8
            );
            &**v
        }
        t => t,
    };
    let tt = theirs.type_type();
    match value_type {
        Int32 => {
            let i = theirs.type__as_int().unwrap();
            assert_eq!((i.bitWidth(), i.is_signed()), (32, true));
        }
        UInt16 => {
            let i = theirs.type__as_int().unwrap();
            assert_eq!((i.bitWidth(), i.is_signed()), (16, false));
        }
        Float16 => assert_eq!(
            theirs.type__as_floating_point().unwrap().precision(),
            fb::Precision::HALF
        ),
        Decimal64(p, s) => {
            let d = theirs.type__as_decimal().unwrap();
            assert_eq!(
                (d.precision(), d.scale(), d.bitWidth()),
                (*p as i32, *s as i32, 64)
            );
        }
        Decimal128(p, s) => {
            let d = theirs.type__as_decimal().unwrap();
            assert_eq!(
                (d.precision(), d.scale(), d.bitWidth()),
                (*p as i32, *s as i32, 128)
            );
        }
        Date32 => assert_eq!(theirs.type__as_date().unwrap().unit(), fb::DateUnit::DAY),
        Date64 => assert_eq!(
            theirs.type__as_date().unwrap().unit(),
            fb::DateUnit::MILLISECOND
        ),
        Time64(_) => assert_eq!(theirs.type__as_time().unwrap().bitWidth(), 64),
        Timestamp(_, tz) => {
            assert_eq!(
                theirs.type__as_timestamp().unwrap().timezone(),
                tz.as_deref()
            );
        }
        FixedSizeBinary(w) => {
            assert_eq!(theirs.type__as_fixed_size_binary().unwrap().byteWidth(), *w)
        }
        FixedSizeList(_, n) => {
            assert_eq!(theirs.type__as_fixed_size_list().unwrap().listSize(), *n)
        }
        Map(_, sorted) => assert_eq!(theirs.type__as_map().unwrap().keysSorted(), *sorted),
        Union(u, mode) => {
            let t = theirs.type__as_union().unwrap();
            let ids: std::vec::Vec<i32> = t.typeIds().unwrap().iter().collect();
            let want: std::vec::Vec<i32> = u.type_ids().iter().map(|&i| i as i32).collect();
            assert_eq!(ids, want);
            let dense = *mode == crate::datatypes::UnionMode::Dense;
            assert_eq!(t.mode() == fb::UnionMode::Dense, dense);
        }
        BinaryView => assert_eq!(tt, fb::Type::BinaryView),
        Utf8View => assert_eq!(tt, fb::Type::Utf8View),
        ListView(_) => assert_eq!(tt, fb::Type::ListView),
        LargeListView(_) => assert_eq!(tt, fb::Type::LargeListView),
        RunEndEncoded(..) => assert_eq!((tt, n_children), (fb::Type::RunEndEncoded, 2)),
        Struct(fs) => assert_eq!((tt, n_children), (fb::Type::Struct_, fs.len())),
        Null => assert_eq!(tt, fb::Type::Null),
        _ => assert_ne!(tt, fb::Type::NONE),
    }
    if let Some(children) = theirs.children() {
        let mut ours_children = std::vec::Vec::new();
        collect_children(value_type, &mut ours_children);
        assert_eq!(children.len(), ours_children.len(), "{}", ours.name());
        for (o, t) in ours_children.iter().zip(children.iter()) {
            check_field(o, t);
        }
    }
    let md: std::vec::Vec<(&str, &str)> = theirs
        .custom_metadata()
        .map(|v| {
            v.iter()
                .map(|kv| (kv.key().unwrap(), kv.value().unwrap()))
                .collect()
        })
        .unwrap_or_default();
    let want: std::vec::Vec<(&str, &str)> = ours
        .metadata()
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    assert_eq!(md, want);
}

fn collect_children<'s>(
    dt: &'s DataType<'static, Global>,
    out: &mut std::vec::Vec<&'s Field<'static, Global>>,
) {
    use DataType::*;
    match dt {
        List(f)
        | LargeList(f)
        | ListView(f)
        | LargeListView(f)
        | FixedSizeList(f, _)
        | Map(f, _) => out.push(f),
        Struct(fs) => out.extend(fs.iter()),
        Union(u, _) => out.extend(u.fields().iter()),
        RunEndEncoded(r, v) => {
            out.push(r);
            out.push(v)
        }
        _ => {}
    }
}

#[test]
fn our_schema_message_passes_the_generated_verifier() {
    let schema = super::schema::tests::every_type_schema();
    let mut scratch = std::vec![0u8; 16 * 1024];
    let bytes = encode_schema_message(&mut scratch, &schema, Endianness::Little, false).unwrap();
    let msg = fb::root_as_message(bytes).expect("verifies");
    assert_eq!(msg.version(), fb::MetadataVersion::V5);
    let s = msg.header_as_schema().unwrap();
    assert_eq!(s.endianness(), fb::Endianness::Little);
    let fields = s.fields().unwrap();
    assert_eq!(fields.len(), schema.fields().len());
    for (o, t) in schema.fields().iter().zip(fields.iter()) {
        check_field(o, t);
    }
    let md: std::vec::Vec<_> = s
        .custom_metadata()
        .unwrap()
        .iter()
        .map(|kv| kv.key().unwrap())
        .collect();
    assert_eq!(md, ["origin", "k2"]);
}

#[test]
fn our_record_batch_and_footer_pass_the_generated_verifier() {
    let nodes = [FieldNode {
        length: 7,
        null_count: 2,
    }];
    let buffers = [
        BufferSpec {
            offset: 0,
            length: 1,
        },
        BufferSpec {
            offset: 64,
            length: 28,
        },
    ];
    let h = RecordBatchHeader {
        length: 7,
        nodes: &nodes,
        buffers: &buffers,
        compression: Some(CompressionCodec::Lz4Frame),
        variadic_buffer_counts: &[2, 0],
    };
    let mut scratch = [0u8; 1024];
    let bytes = encode_record_batch_message::<Global>(&mut scratch, &h, 128, None, false).unwrap();
    let m = fb::root_as_message(bytes).unwrap();
    assert_eq!(m.bodyLength(), 128);
    let rb = m.header_as_record_batch().unwrap();
    assert_eq!(rb.length(), 7);
    let n = rb.nodes().unwrap().get(0);
    assert_eq!((n.length(), n.null_count()), (7, 2));
    let b = rb.buffers().unwrap().get(1);
    assert_eq!((b.offset(), b.length()), (64, 28));
    assert_eq!(
        rb.compression().unwrap().codec(),
        fb::CompressionType::LZ4_FRAME
    );
    assert_eq!(
        rb.variadicBufferCounts()
            .unwrap()
            .iter()
            .collect::<std::vec::Vec<_>>(),
        [2, 0]
    );

    let mut scratch = [0u8; 1024];
    let bytes = encode_dictionary_batch_message::<Global>(&mut scratch, 9, true, &h, 128).unwrap();
    let d = fb::root_as_message(bytes)
        .unwrap()
        .header_as_dictionary_batch()
        .unwrap();
    assert_eq!(
        (d.id(), d.isDelta(), d.data().unwrap().length()),
        (9, true, 7)
    );

    let schema = super::schema::tests::every_type_schema();
    let blocks = [
        Block {
            offset: 8,
            meta_data_length: 256,
            body_length: 64,
        },
        Block {
            offset: 328,
            meta_data_length: 128,
            body_length: 0,
        },
    ];
    let mut scratch = std::vec![0u8; 16 * 1024];
    let bytes = encode_footer(
        &mut scratch,
        &schema,
        Endianness::Big,
        &blocks[..1],
        &blocks,
        false,
    )
    .unwrap();
    let f = fb::root_as_footer(bytes).unwrap();
    assert_eq!(f.schema().unwrap().endianness(), fb::Endianness::Big);
    let rbs = f.recordBatches().unwrap();
    assert_eq!(rbs.len(), 2);
    assert_eq!(
        (
            rbs.get(1).offset(),
            rbs.get(1).metaDataLength(),
            rbs.get(1).bodyLength()
        ),
        (328, 128, 0)
    );
    assert_eq!(f.dictionaries().unwrap().len(), 1);
}

#[test]
fn generated_builder_output_reads_with_our_decoder() {
    let mut b = FbBuilder::new();
    let name = b.create_string("ts");
    let tz = b.create_string("UTC");
    let ts = fb::Timestamp::create(
        &mut b,
        &fb::TimestampArgs {
            unit: fb::TimeUnit::NANOSECOND,
            timezone: Some(tz),
        },
    );
    let child_name = b.create_string("item");
    let int = fb::Int::create(
        &mut b,
        &fb::IntArgs {
            bitWidth: 8,
            is_signed: true,
        },
    );
    let no_children = b.create_vector::<alkaid_fbs::flatbuffers::WIPOffset<fb::Field>>(&[]);
    let child = fb::Field::create(
        &mut b,
        &fb::FieldArgs {
            name: Some(child_name),
            nullable: true,
            type_type: fb::Type::Int,
            type_: Some(int.as_union_value()),
            children: Some(no_children),
            ..Default::default()
        },
    );
    let list_name = b.create_string("l");
    let list = fb::List::create(&mut b, &fb::ListArgs {});
    let kids = b.create_vector(&[child]);
    let list_field = fb::Field::create(
        &mut b,
        &fb::FieldArgs {
            name: Some(list_name),
            nullable: false,
            type_type: fb::Type::List,
            type_: Some(list.as_union_value()),
            children: Some(kids),
            ..Default::default()
        },
    );
    let ts_field = fb::Field::create(
        &mut b,
        &fb::FieldArgs {
            name: Some(name),
            nullable: true,
            type_type: fb::Type::Timestamp,
            type_: Some(ts.as_union_value()),
            ..Default::default()
        },
    );
    let fields = b.create_vector(&[ts_field, list_field]);
    let schema = fb::Schema::create(
        &mut b,
        &fb::SchemaArgs {
            endianness: fb::Endianness::Big,
            fields: Some(fields),
            ..Default::default()
        },
    );
    b.finish(schema, None);
    let (s, e) = decode_schema(b.finished_data(), Global, DecodeLimits::default()).unwrap();
    assert_eq!(e, Endianness::Big);
    assert_eq!(s.fields().len(), 2);
    match s.fields()[0].data_type() {
        DataType::Timestamp(crate::datatypes::TimeUnit::Nanosecond, Some(z)) => {
            assert_eq!(z.as_str(), "UTC")
        }
        other => panic!("{other:?}"),
    }
    match s.fields()[1].data_type() {
        DataType::List(f) => {
            assert_eq!(f.name(), "item");
            assert_eq!(f.data_type(), &DataType::Int8);
        }
        other => panic!("{other:?}"),
    }
    assert!(!s.fields()[1].is_nullable());
}
