//! The generated code works: messages and footers built with
//! `FlatBufferBuilder` read back through the verifying readers with every
//! field intact, the schema's defaults and tag values are the format's, and
//! hostile bytes give `Err`, never a panic.

use alkaid_fbs::flatbuf::{
    root_as_footer, root_as_message, Block, BodyCompression, BodyCompressionArgs,
    BodyCompressionMethod, Buffer, CompressionType, Date, DateArgs, DateUnit, Decimal, DecimalArgs,
    DictionaryBatch, DictionaryBatchArgs, Duration, DurationArgs, Endianness, Feature, Field,
    FieldArgs, FieldNode, Footer, FooterArgs, Int, IntArgs, IntervalUnit, KeyValue, KeyValueArgs,
    Message, MessageArgs, MessageHeader, MetadataVersion, RecordBatch, RecordBatchArgs, Schema,
    SchemaArgs, Time, TimeArgs, TimeUnit, Type, UnionMode, Utf8View, Utf8ViewArgs,
};
use alkaid_fbs::flatbuffers::{FlatBufferBuilder, UnionWIPOffset, WIPOffset};

/// Builds the schema `{ id: Int32 (nullable), s: Utf8View (not null) }` with
/// one schema-level metadata entry and the COMPRESSED_BODY feature.
fn build_schema<'a>(fbb: &mut FlatBufferBuilder<'a>) -> WIPOffset<Schema<'a>> {
    let int32 = Int::create(
        fbb,
        &IntArgs {
            bitWidth: 32,
            is_signed: true,
        },
    );
    let name = fbb.create_string("id");
    let id = Field::create(
        fbb,
        &FieldArgs {
            name: Some(name),
            nullable: true,
            type_type: Type::Int,
            type_: Some(int32.as_union_value()),
            ..Default::default()
        },
    );
    let view = Utf8View::create(fbb, &Utf8ViewArgs {});
    let name = fbb.create_string("s");
    let s = Field::create(
        fbb,
        &FieldArgs {
            name: Some(name),
            nullable: false,
            type_type: Type::Utf8View,
            type_: Some(view.as_union_value()),
            ..Default::default()
        },
    );
    let fields = fbb.create_vector(&[id, s]);
    let key = fbb.create_string("origin");
    let value = fbb.create_string("sensor-7");
    let kv = KeyValue::create(
        fbb,
        &KeyValueArgs {
            key: Some(key),
            value: Some(value),
        },
    );
    let metadata = fbb.create_vector(&[kv]);
    let features = fbb.create_vector(&[Feature::COMPRESSED_BODY]);
    Schema::create(
        fbb,
        &SchemaArgs {
            endianness: Endianness::Little,
            fields: Some(fields),
            custom_metadata: Some(metadata),
            features: Some(features),
        },
    )
}

fn assert_schema(schema: Schema<'_>) {
    assert_eq!(schema.endianness(), Endianness::Little);
    let fields = schema.fields().expect("fields");
    assert_eq!(fields.len(), 2);

    let id = fields.get(0);
    assert_eq!(id.name(), Some("id"));
    assert!(id.nullable());
    assert_eq!(id.type_type(), Type::Int);
    let int = id.type__as_int().expect("Int type table");
    assert_eq!(int.bitWidth(), 32);
    assert!(int.is_signed());
    assert!(id.type__as_utf_8_view().is_none());
    assert!(id.dictionary().is_none());
    assert!(id.children().is_none());

    let s = fields.get(1);
    assert_eq!(s.name(), Some("s"));
    assert!(!s.nullable());
    assert_eq!(s.type_type(), Type::Utf8View);
    assert!(s.type__as_utf_8_view().is_some());

    let kv = schema.custom_metadata().expect("metadata").get(0);
    assert_eq!(kv.key(), Some("origin"));
    assert_eq!(kv.value(), Some("sensor-7"));
    let features: Vec<Feature> = schema.features().expect("features").iter().collect();
    assert_eq!(features, [Feature::COMPRESSED_BODY]);
}

fn schema_message_bytes() -> Vec<u8> {
    let mut fbb = FlatBufferBuilder::new();
    let schema = build_schema(&mut fbb);
    let message = Message::create(
        &mut fbb,
        &MessageArgs {
            version: MetadataVersion::V5,
            header_type: MessageHeader::Schema,
            header: Some(schema.as_union_value()),
            bodyLength: 0,
            custom_metadata: None,
        },
    );
    fbb.finish(message, None);
    fbb.finished_data().to_vec()
}

#[test]
fn schema_message_round_trips() {
    let bytes = schema_message_bytes();
    let message = root_as_message(&bytes).expect("valid message");
    assert_eq!(message.version(), MetadataVersion::V5);
    assert_eq!(message.header_type(), MessageHeader::Schema);
    assert_eq!(message.bodyLength(), 0);
    assert!(message.custom_metadata().is_none());
    assert!(message.header_as_record_batch().is_none());
    assert_schema(message.header_as_schema().expect("schema header"));
}

#[test]
fn record_batch_message_round_trips() {
    let mut fbb = FlatBufferBuilder::new();
    let nodes = fbb.create_vector(&[FieldNode::new(5, 2), FieldNode::new(5, 0)]);
    let buffers = fbb.create_vector(&[
        Buffer::new(0, 1),
        Buffer::new(64, 20),
        Buffer::new(128, 0),
        Buffer::new(128, 80),
        Buffer::new(256, 35),
    ]);
    let compression = BodyCompression::create(
        &mut fbb,
        &BodyCompressionArgs {
            codec: CompressionType::ZSTD,
            ..Default::default()
        },
    );
    let counts = fbb.create_vector(&[1i64]);
    let batch = RecordBatch::create(
        &mut fbb,
        &RecordBatchArgs {
            length: 5,
            nodes: Some(nodes),
            buffers: Some(buffers),
            compression: Some(compression),
            variadicBufferCounts: Some(counts),
        },
    );
    let message = Message::create(
        &mut fbb,
        &MessageArgs {
            version: MetadataVersion::V5,
            header_type: MessageHeader::RecordBatch,
            header: Some(batch.as_union_value()),
            bodyLength: 320,
            custom_metadata: None,
        },
    );
    fbb.finish(message, None);

    let message = root_as_message(fbb.finished_data()).expect("valid message");
    assert_eq!(message.header_type(), MessageHeader::RecordBatch);
    assert_eq!(message.bodyLength(), 320);
    let batch = message.header_as_record_batch().expect("record batch");
    assert_eq!(batch.length(), 5);
    let nodes: Vec<(i64, i64)> = batch
        .nodes()
        .expect("nodes")
        .iter()
        .map(|n| (n.length(), n.null_count()))
        .collect();
    assert_eq!(nodes, [(5, 2), (5, 0)]);
    let buffers: Vec<(i64, i64)> = batch
        .buffers()
        .expect("buffers")
        .iter()
        .map(|b| (b.offset(), b.length()))
        .collect();
    assert_eq!(buffers, [(0, 1), (64, 20), (128, 0), (128, 80), (256, 35)]);
    let compression = batch.compression().expect("compression");
    assert_eq!(compression.codec(), CompressionType::ZSTD);
    assert_eq!(compression.method(), BodyCompressionMethod::BUFFER);
    let counts: Vec<i64> = batch
        .variadicBufferCounts()
        .expect("counts")
        .iter()
        .collect();
    assert_eq!(counts, [1]);
}

#[test]
fn footer_round_trips() {
    let mut fbb = FlatBufferBuilder::new();
    let schema = build_schema(&mut fbb);
    let dictionaries = fbb.create_vector::<Block>(&[]);
    let batches = fbb.create_vector(&[Block::new(8, 136, 64), Block::new(208, 152, 1024)]);
    let key = fbb.create_string("writer");
    let value = fbb.create_string("alkaid");
    let kv = KeyValue::create(
        &mut fbb,
        &KeyValueArgs {
            key: Some(key),
            value: Some(value),
        },
    );
    let metadata = fbb.create_vector(&[kv]);
    let footer = Footer::create(
        &mut fbb,
        &FooterArgs {
            version: MetadataVersion::V5,
            schema: Some(schema),
            dictionaries: Some(dictionaries),
            recordBatches: Some(batches),
            custom_metadata: Some(metadata),
        },
    );
    fbb.finish(footer, None);

    let footer = root_as_footer(fbb.finished_data()).expect("valid footer");
    assert_eq!(footer.version(), MetadataVersion::V5);
    assert_schema(footer.schema().expect("schema"));
    assert_eq!(footer.dictionaries().expect("dictionaries").len(), 0);
    let blocks: Vec<(i64, i32, i64)> = footer
        .recordBatches()
        .expect("record batches")
        .iter()
        .map(|b| (b.offset(), b.metaDataLength(), b.bodyLength()))
        .collect();
    assert_eq!(blocks, [(8, 136, 64), (208, 152, 1024)]);
    let kv = footer.custom_metadata().expect("metadata").get(0);
    assert_eq!((kv.key(), kv.value()), (Some("writer"), Some("alkaid")));
}

/// One field of type `type_table`, named `name`.
fn field<'a>(
    fbb: &mut FlatBufferBuilder<'a>,
    name: &str,
    type_type: Type,
    type_table: WIPOffset<UnionWIPOffset>,
) -> WIPOffset<Field<'a>> {
    let name = fbb.create_string(name);
    Field::create(
        fbb,
        &FieldArgs {
            name: Some(name),
            nullable: true,
            type_type,
            type_: Some(type_table),
            ..Default::default()
        },
    )
}

#[test]
fn absent_fields_read_as_the_schema_defaults() {
    let mut fbb = FlatBufferBuilder::new();
    // Values equal to a field's default are not written, so what comes back
    // is the reader's default: it must be the schema's.
    let decimal = Decimal::create(
        &mut fbb,
        &DecimalArgs {
            precision: 38,
            scale: 2,
            bitWidth: 128,
        },
    );
    let dec = field(&mut fbb, "dec", Type::Decimal, decimal.as_union_value());
    let time = Time::create(&mut fbb, &TimeArgs::default());
    let t = field(&mut fbb, "t", Type::Time, time.as_union_value());
    let date = Date::create(&mut fbb, &DateArgs::default());
    let d = field(&mut fbb, "d", Type::Date, date.as_union_value());
    let duration = Duration::create(&mut fbb, &DurationArgs::default());
    let span = field(&mut fbb, "span", Type::Duration, duration.as_union_value());
    let fields = fbb.create_vector(&[dec, t, d, span]);
    let schema = Schema::create(
        &mut fbb,
        &SchemaArgs {
            fields: Some(fields),
            ..Default::default()
        },
    );
    let message = Message::create(
        &mut fbb,
        &MessageArgs {
            header_type: MessageHeader::Schema,
            header: Some(schema.as_union_value()),
            ..Default::default()
        },
    );
    fbb.finish(message, None);

    let message = root_as_message(fbb.finished_data()).expect("valid message");
    assert_eq!(message.version(), MetadataVersion::V1, "first enum value");
    let schema = message.header_as_schema().expect("schema");
    assert_eq!(schema.endianness(), Endianness::Little);
    let fields = schema.fields().expect("fields");
    let decimal = fields.get(0).type__as_decimal().expect("decimal");
    assert_eq!((decimal.precision(), decimal.scale()), (38, 2));
    assert_eq!(decimal.bitWidth(), 128);
    let time = fields.get(1).type__as_time().expect("time");
    assert_eq!(time.unit(), TimeUnit::MILLISECOND);
    assert_eq!(time.bitWidth(), 32);
    let date = fields.get(2).type__as_date().expect("date");
    assert_eq!(date.unit(), DateUnit::MILLISECOND);
    let duration = fields.get(3).type__as_duration().expect("duration");
    assert_eq!(duration.unit(), TimeUnit::MILLISECOND);
}

#[test]
fn dictionary_batch_defaults() {
    let mut fbb = FlatBufferBuilder::new();
    let compression = BodyCompression::create(&mut fbb, &BodyCompressionArgs::default());
    let data = RecordBatch::create(
        &mut fbb,
        &RecordBatchArgs {
            length: 3,
            compression: Some(compression),
            ..Default::default()
        },
    );
    let batch = DictionaryBatch::create(
        &mut fbb,
        &DictionaryBatchArgs {
            id: 7,
            data: Some(data),
            ..Default::default()
        },
    );
    let message = Message::create(
        &mut fbb,
        &MessageArgs {
            version: MetadataVersion::V5,
            header_type: MessageHeader::DictionaryBatch,
            header: Some(batch.as_union_value()),
            bodyLength: 64,
            custom_metadata: None,
        },
    );
    fbb.finish(message, None);

    let message = root_as_message(fbb.finished_data()).expect("valid message");
    let batch = message.header_as_dictionary_batch().expect("dictionary");
    assert_eq!(batch.id(), 7);
    assert!(!batch.isDelta());
    let data = batch.data().expect("data");
    assert_eq!(data.length(), 3);
    assert!(data.variadicBufferCounts().is_none());
    let compression = data.compression().expect("compression");
    assert_eq!(compression.codec(), CompressionType::LZ4_FRAME);
    assert_eq!(compression.method(), BodyCompressionMethod::BUFFER);
}

#[test]
fn tag_and_enum_values_are_the_formats() {
    // Union tags: 0 is NONE, then members in declaration order.
    assert_eq!(Type::Null.0, 1);
    assert_eq!(Type::Int.0, 2);
    assert_eq!(Type::Decimal.0, 7);
    assert_eq!(Type::Struct_.0, 13);
    assert_eq!(Type::Map.0, 17);
    assert_eq!(Type::LargeList.0, 21);
    assert_eq!(Type::RunEndEncoded.0, 22);
    assert_eq!(Type::BinaryView.0, 23);
    assert_eq!(Type::Utf8View.0, 24);
    assert_eq!(Type::ListView.0, 25);
    assert_eq!(Type::LargeListView.0, 26);
    assert_eq!(MessageHeader::Schema.0, 1);
    assert_eq!(MessageHeader::DictionaryBatch.0, 2);
    assert_eq!(MessageHeader::RecordBatch.0, 3);
    assert_eq!(MessageHeader::Tensor.0, 4);
    assert_eq!(MessageHeader::SparseTensor.0, 5);
    // Enums and their underlying widths.
    assert_eq!(MetadataVersion::V5.0, 4i16);
    assert_eq!(Feature::DICTIONARY_REPLACEMENT.0, 1i64);
    assert_eq!(Feature::COMPRESSED_BODY.0, 2i64);
    assert_eq!(CompressionType::ZSTD.0, 1i8);
    assert_eq!(Endianness::Big.0, 1i16);
    assert_eq!(UnionMode::Dense.0, 1i16);
    assert_eq!(IntervalUnit::MONTH_DAY_NANO.0, 2i16);
    assert_eq!(TimeUnit::NANOSECOND.0, 3i16);
    // Struct sizes on the wire.
    assert_eq!(core::mem::size_of::<Buffer>(), 16);
    assert_eq!(core::mem::size_of::<FieldNode>(), 16);
    assert_eq!(core::mem::size_of::<Block>(), 24);
}

#[test]
fn structs_are_little_endian_on_the_wire() {
    let block = Block::new(0x0102_0304_0506_0708, 0x1122_3344, -1);
    let mut expected = [0u8; 24];
    expected[0..8].copy_from_slice(&[8, 7, 6, 5, 4, 3, 2, 1]);
    expected[8..12].copy_from_slice(&[0x44, 0x33, 0x22, 0x11]);
    // bytes 12..16: alignment padding before the 8-byte bodyLength
    expected[16..24].copy_from_slice(&[0xFF; 8]);
    assert_eq!(block.0, expected);
}

#[test]
fn garbage_is_rejected_without_panicking() {
    assert!(root_as_message(&[]).is_err());
    assert!(root_as_message(&[1, 2, 3]).is_err());
    // Root offset far past the end of the buffer.
    assert!(root_as_message(&[0xF0, 0xFF, 0xFF, 0x7F, 0, 0, 0, 0]).is_err());
    assert!(root_as_message(&[0xFF; 64]).is_err());
    assert!(root_as_footer(&[0xFF; 64]).is_err());
    // Table at 4 whose vtable offset (8) points before the buffer start.
    assert!(root_as_message(&[4, 0, 0, 0, 8, 0, 0, 0]).is_err());
    // By contrast, 8 bytes can be a *valid* empty Message: table at 4, vtable
    // at 0 of 4 bytes and no fields. Every field reads as its default, so the
    // header is NONE: IPC readers must check it, the verifier cannot.
    let empty = root_as_message(&[4, 0, 0, 0, 4, 0, 0, 0]).expect("empty table");
    assert_eq!(empty.header_type(), MessageHeader::NONE);
    assert!(empty.header_as_schema().is_none());
    // ASCII text.
    assert!(root_as_message(b"ARROW1\0\0this is not a flatbuffer at all").is_err());
}

#[test]
fn truncated_messages_are_rejected() {
    let bytes = schema_message_bytes();
    assert!(root_as_message(&bytes).is_ok());
    for len in 0..bytes.len() {
        assert!(
            root_as_message(&bytes[..len]).is_err(),
            "prefix of {len} of {} bytes accepted",
            bytes.len()
        );
    }
}

/// Reads every field the schema message has; must not panic on a buffer the
/// verifier accepted.
fn walk(message: Message<'_>) -> usize {
    let mut seen = message.bodyLength() as usize;
    if let Some(schema) = message.header_as_schema() {
        for field in schema.fields().into_iter().flatten() {
            seen += field.name().map_or(0, str::len);
            seen += field.type_type().0 as usize;
            if let Some(int) = field.type__as_int() {
                seen += int.bitWidth() as usize;
            }
            seen += field.children().map_or(0, |c| c.len());
        }
        for kv in schema.custom_metadata().into_iter().flatten() {
            seen += kv.key().map_or(0, str::len) + kv.value().map_or(0, str::len);
        }
        seen += schema.features().map_or(0, |f| f.iter().count());
    }
    seen
}

#[test]
fn corrupted_messages_never_panic() {
    let bytes = schema_message_bytes();
    let mut accepted = 0;
    let mut rejected = 0;
    for i in 0..bytes.len() {
        for value in [0x00, 0x01, 0x7F, 0x80, 0xFF, bytes[i] ^ 0x10] {
            let mut corrupt = bytes.clone();
            corrupt[i] = value;
            match root_as_message(&corrupt) {
                Ok(message) => {
                    walk(message);
                    accepted += 1;
                }
                Err(_) => rejected += 1,
            }
        }
    }
    // Both outcomes occur: some bytes are free (values, padding), others are
    // offsets whose corruption the verifier must catch.
    assert!(accepted > 0 && rejected > 0, "{accepted} / {rejected}");
}

#[test]
fn pseudo_random_bytes_never_panic() {
    // xorshift64: deterministic, no dependency.
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for round in 0..2000 {
        let len = (next() % 256) as usize;
        let mut bytes: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        if round % 2 == 0 && len >= 4 {
            // A plausible small root offset makes the verifier go deeper.
            bytes[0..4].copy_from_slice(&((next() % 64) as u32).to_le_bytes());
        }
        if let Ok(message) = root_as_message(&bytes) {
            walk(message);
        }
        let _ = root_as_footer(&bytes);
    }
}
