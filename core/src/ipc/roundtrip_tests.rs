//! Writer → reader round trips through every reader.

use std::vec::Vec;

use super::reader::{FileReader, IpcReadOptions, SliceStreamReader, StreamReader};
use super::writer::{FileWriter, IpcWriteOptions, StreamWriter};
use crate::array::*;
use crate::buffer::{SharedBox, SharedSlice};
use crate::datatypes::*;

use crate::Global as G;

fn field(name: &'static str, dt: DataType<'static, G>, nullable: bool) -> Field<'static, G> {
    Field::new(name, dt, nullable)
}

/// A batch with primitive, boolean, string, view, list and struct columns,
/// some of them sliced.
pub(crate) fn sample_batch(offset: usize) -> RecordBatch<'static, G> {
    let ints = PrimitiveArray::<i64, G>::try_from_options_in(
        &[Some(1), None, Some(3), Some(-4), None, Some(6), Some(7)],
        G,
    )
    .unwrap();
    let floats = PrimitiveArray::<f64, G>::try_from_options_in(
        &[
            Some(0.5),
            Some(1.5),
            None,
            Some(-2.0),
            Some(f64::NAN),
            Some(0.0),
            Some(9.0),
        ],
        G,
    )
    .unwrap();
    let mut bools = BooleanBuilder::new_in(G);
    for v in [
        Some(true),
        Some(false),
        None,
        Some(true),
        Some(true),
        None,
        Some(false),
    ] {
        bools.try_append_option(v).unwrap();
    }
    let strings = StringArray::<G>::try_from_options_in(
        &[
            Some("a"),
            Some(""),
            None,
            Some("hello"),
            Some("ü"),
            Some("xyz"),
            None,
        ],
        G,
    )
    .unwrap();
    let views = StringViewArray::<G>::try_from_options_in(
        &[
            Some("short"),
            Some("a string longer than twelve bytes"),
            None,
            Some(""),
            Some("another long string value!"),
            Some("x"),
            Some("y"),
        ],
        G,
    )
    .unwrap();
    let mut list = ListBuilder::new_in(PrimitiveBuilder::<i32, G>::new_in(G), G);
    for row in 0..7i32 {
        if row == 2 {
            list.try_append_null().unwrap();
            continue;
        }
        for k in 0..row % 3 {
            list.values().try_append_value(row * 10 + k).unwrap();
        }
        list.try_append(true).unwrap();
    }
    let list = list.try_finish().unwrap();
    let cols: Vec<ArrayRef<'static, G>> = std::vec![
        ints.into_array_ref(),
        floats.into_array_ref(),
        bools.finish().into_array_ref(),
        strings.into_array_ref(),
        views.into_array_ref(),
        list.into_array_ref(),
    ];
    let fields: Vec<Field<'static, G>> = cols
        .iter()
        .zip(["i", "f", "b", "s", "v", "l"])
        .map(|(c, n)| field(n, c.data_type().clone(), true))
        .collect();
    let len = 7 - offset;
    let cols: Vec<ArrayRef<'static, G>> =
        cols.iter().map(|c| c.slice(offset, len).unwrap()).collect();
    let schema = Schema::new(SharedSlice::try_from_iter_in(fields, G).unwrap());
    RecordBatch::try_new(schema, SharedSlice::try_from_iter_in(cols, G).unwrap()).unwrap()
}

fn assert_batches_eq(a: &RecordBatch<'_, G>, b: &RecordBatch<'_, G>) {
    assert_eq!(a.schema(), b.schema());
    assert_eq!(a.num_rows(), b.num_rows());
    for (x, y) in a.columns().iter().zip(b.columns()) {
        assert!(x == y, "{x:?} != {y:?}");
        assert_eq!(x.null_count(), y.null_count());
    }
}

fn write_stream(batches: &[RecordBatch<'static, G>], options: IpcWriteOptions) -> Vec<u8> {
    let mut w = StreamWriter::try_new_in(Vec::new(), batches[0].schema(), options, G).unwrap();
    for b in batches {
        w.write(b).unwrap();
    }
    w.finish().unwrap();
    w.into_inner()
}

#[test]
fn stream_round_trip_through_both_stream_readers() {
    let batches = [sample_batch(0), sample_batch(3)];
    let bytes = write_stream(&batches, IpcWriteOptions::default());
    assert_eq!(bytes.len() % 8, 0);
    assert_eq!(
        &bytes[bytes.len() - 8..],
        &[0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0]
    );

    let mut r = StreamReader::try_new_in(&bytes[..], IpcReadOptions::default(), G).unwrap();
    assert_eq!(r.schema(), batches[0].schema());
    for b in &batches {
        assert_batches_eq(&r.next_batch().unwrap().unwrap(), b);
    }
    assert!(r.next_batch().unwrap().is_none());

    let r = SliceStreamReader::try_new_in(&bytes, IpcReadOptions::default(), G).unwrap();
    let got: Vec<_> = r.map(|b| b.unwrap()).collect();
    assert_eq!(got.len(), 2);
    assert_batches_eq(&got[1], &batches[1]);
}

#[test]
fn file_round_trip_with_random_access() {
    let batches = [sample_batch(0), sample_batch(1), sample_batch(5)];
    for alkaid in [false, true] {
        let options = IpcWriteOptions {
            alkaid,
            ..Default::default()
        };
        let mut w = FileWriter::try_new_in(Vec::new(), batches[0].schema(), options, G).unwrap();
        for b in &batches {
            w.write(b).unwrap();
        }
        w.finish().unwrap();
        let bytes = w.into_inner();
        let magic: &[u8] = if alkaid { b"ALKAID1" } else { b"ARROW1" };
        assert!(bytes.starts_with(magic) && bytes.ends_with(magic));
        let mut r = FileReader::try_new_in(&bytes, IpcReadOptions::default(), G).unwrap();
        assert_eq!(r.num_batches(), 3);
        assert_batches_eq(&r.batch(2).unwrap(), &batches[2]);
        assert_batches_eq(&r.batch(0).unwrap(), &batches[0]);
        assert!(r.batch(3).is_err());
        let all: Vec<_> = r.batches().map(|b| b.unwrap()).collect();
        assert_eq!(all.len(), 3);
        assert_batches_eq(&all[1], &batches[1]);
    }
}

#[test]
fn slice_reader_is_zero_copy() {
    let batch = sample_batch(0);
    let bytes = write_stream(core::slice::from_ref(&batch), IpcWriteOptions::default());
    // Copy into 64-byte aligned memory so every buffer can be borrowed.
    let aligned = crate::buffer::Buffer::try_copy_in(&bytes, G).unwrap();
    let input = aligned.as_slice();
    let mut r = SliceStreamReader::try_new_in(input, IpcReadOptions::default(), G).unwrap();
    let got = r.next_batch().unwrap().unwrap();
    let range = input.as_ptr_range();
    let ArrayRef::Int64(ints) = &got.columns()[0] else {
        panic!()
    };
    assert!(range.contains(&ints.values().as_ptr().cast()));
    let ArrayRef::Utf8(s) = &got.columns()[3] else {
        panic!()
    };
    assert!(range.contains(&s.values().as_ptr()));
    assert!(!s.values().is_owned());
}

#[test]
fn steady_state_writing_allocates_nothing_per_batch() {
    use crate::test_support::{counting, TestAlloc};
    // Counts every allocation request (allocations and growths).
    let alloc = counting();
    type C = TestAlloc;
    let ints =
        PrimitiveArray::<i64, C>::try_from_options_in(&[Some(1), None, Some(3)], alloc.clone())
            .unwrap();
    let strs =
        StringArray::<C>::try_from_options_in(&[Some("a"), None, Some("ccc")], alloc.clone())
            .unwrap();
    let mut list = ListBuilder::new_in(
        PrimitiveBuilder::<i32, C>::new_in(alloc.clone()),
        alloc.clone(),
    );
    for n in 0..3 {
        for k in 0..n {
            list.values().try_append_value(k).unwrap();
        }
        list.try_append(true).unwrap();
    }
    let cols = [
        ints.into_array_ref(),
        strs.into_array_ref(),
        list.try_finish().unwrap().into_array_ref(),
    ];
    let fields: Vec<Field<'static, C>> = cols
        .iter()
        .zip(["i", "s", "l"])
        .map(|(c, n)| Field::new(n, c.data_type().clone(), true))
        .collect();
    let schema = Schema::new(SharedSlice::try_from_iter_in(fields, alloc.clone()).unwrap());
    let batch = RecordBatch::try_new(
        schema,
        SharedSlice::try_from_iter_in(cols, alloc.clone()).unwrap(),
    )
    .unwrap();
    let mut sink = Vec::with_capacity(1 << 20);
    let mut w = StreamWriter::try_new_in(
        &mut sink,
        batch.schema(),
        IpcWriteOptions::default(),
        alloc.clone(),
    )
    .unwrap();
    let at_start = alloc.requests();
    w.write(&batch).unwrap();
    let after_first = alloc.requests();
    // The first batch sizes the planner's lists.
    assert!(after_first > at_start);
    for _ in 0..10 {
        w.write(&batch).unwrap();
    }
    assert_eq!(alloc.requests(), after_first);
    w.finish().unwrap();
    drop(w);
    let got: Vec<_> = SliceStreamReader::try_new_in(&sink, IpcReadOptions::default(), G)
        .unwrap()
        .map(|b| b.unwrap())
        .collect();
    assert_eq!(got.len(), 11);
    drop(batch);
    assert_eq!(alloc.inner().bytes_outstanding(), 0);
}

#[test]
fn every_truncation_of_a_stream_is_an_error_or_fewer_batches() {
    let batches = [sample_batch(0), sample_batch(4)];
    let bytes = write_stream(&batches, IpcWriteOptions::default());
    for n in 0..bytes.len() {
        let cut = &bytes[..n];
        if let Ok(r) = SliceStreamReader::try_new_in(cut, IpcReadOptions::default(), G) {
            for b in r {
                if b.is_err() {
                    break;
                }
            }
        }
        if let Ok(r) = StreamReader::try_new_in(cut, IpcReadOptions::default(), G) {
            for b in r {
                if b.is_err() {
                    break;
                }
            }
        }
    }
}

#[test]
fn single_byte_corruptions_never_panic() {
    let bytes = write_stream(
        &[sample_batch(1)],
        IpcWriteOptions {
            alignment: 8,
            ..Default::default()
        },
    );
    let step = if cfg!(miri) { 61 } else { 1 };
    for i in (0..bytes.len()).step_by(step) {
        for x in [0x00u8, 0x01, 0x7F, 0x80, 0xFF] {
            let mut bad = bytes.clone();
            bad[i] ^= x;
            if let Ok(r) = SliceStreamReader::try_new_in(&bad, IpcReadOptions::default(), G) {
                for b in r {
                    if let Ok(b) = b {
                        b.validate(ValidationLevel::Full).unwrap();
                    } else {
                        break;
                    }
                }
            };
        }
    }
}

#[test]
fn dictionaries_replacement_and_delta() {
    let dict_type = DataType::Dictionary(
        IndexType::Int8,
        SharedBox::try_new_in(DataType::Utf8, G).unwrap(),
        false,
    );
    let schema = Schema::new(
        SharedSlice::try_from_iter_in([field("d", dict_type.clone(), true).with_dict_id(3)], G)
            .unwrap(),
    );
    let make = |values: &[&str], keys: &[Option<i8>]| {
        let opts: Vec<Option<&str>> = values.iter().map(|v| Some(*v)).collect();
        let v = StringArray::<G>::try_from_options_in(&opts, G)
            .unwrap()
            .into_array_ref();
        let k = PrimitiveArray::<i8, G>::try_from_options_in(keys, G).unwrap();
        let d = DictionaryArray::try_new(
            dict_type.clone(),
            DictionaryKeys::Int8(k),
            SharedBox::try_new_in(v, G).unwrap(),
        )
        .unwrap();
        RecordBatch::try_new(
            schema.clone(),
            SharedSlice::try_from_iter_in([d.into_array_ref()], G).unwrap(),
        )
        .unwrap()
    };
    let b1 = make(&["a", "b"], &[Some(0), Some(1), None]);
    let b2 = make(&["x"], &[Some(0)]); // replacement
    let mut w =
        StreamWriter::try_new_in(Vec::new(), &schema, IpcWriteOptions::default(), G).unwrap();
    w.write(&b1).unwrap();
    w.write(&b1).unwrap(); // same dictionary: not resent
    w.write(&b2).unwrap();
    w.finish().unwrap();
    let bytes = w.into_inner();
    let got: Vec<_> = SliceStreamReader::try_new_in(&bytes, IpcReadOptions::default(), G)
        .unwrap()
        .map(|b| b.unwrap())
        .collect();
    assert_eq!(got.len(), 3);
    let ArrayRef::Dictionary(d) = &got[2].columns()[0] else {
        panic!()
    };
    let ArrayRef::Utf8(v) = d.values() else {
        panic!()
    };
    assert_eq!(v.value(0), Some("x"));

    // The file format refuses a replacement.
    let mut fw =
        FileWriter::try_new_in(Vec::new(), &schema, IpcWriteOptions::default(), G).unwrap();
    fw.write(&b1).unwrap();
    assert_eq!(
        fw.write(&b2).unwrap_err(),
        crate::Error::DictionaryReplacementInFile
    );
}

#[cfg(feature = "lz4")]
#[test]
fn lz4_compressed_stream_and_file_round_trip() {
    use crate::ipc::message::CompressionCodec;
    let batches = [sample_batch(0), sample_batch(2)];
    let options = IpcWriteOptions {
        compression: Some(CompressionCodec::Lz4Frame),
        ..Default::default()
    };
    let bytes = write_stream(&batches, options);
    let plain = write_stream(&batches, IpcWriteOptions::default());
    assert_ne!(bytes, plain);
    let got: Vec<_> = SliceStreamReader::try_new_in(&bytes, IpcReadOptions::default(), G)
        .unwrap()
        .map(|b| b.unwrap())
        .collect();
    assert_eq!(got.len(), 2);
    for (g, b) in got.iter().zip(&batches) {
        assert_eq!(g, b);
    }
    let mut w = FileWriter::try_new_in(Vec::new(), batches[0].schema(), options, G).unwrap();
    w.write(&batches[1]).unwrap();
    w.finish().unwrap();
    let file = w.into_inner();
    let mut r = FileReader::try_new_in(&file, IpcReadOptions::default(), G).unwrap();
    assert_eq!(r.batch(0).unwrap(), batches[1]);
}

/// The compressed body is reused from batch to batch without being cleared:
/// a batch written after a larger one is byte for byte the batch written by
/// a fresh writer (no stale byte of the earlier body in buffers or padding).
#[cfg(feature = "lz4")]
#[test]
fn reused_compressed_body_leaks_nothing_from_earlier_batches() {
    use crate::ipc::message::CompressionCodec;
    let options = IpcWriteOptions {
        compression: Some(CompressionCodec::Lz4Frame),
        ..Default::default()
    };
    let (big, small) = (sample_batch(0), sample_batch(4));
    let both = write_stream(&[big.clone(), small.clone()], options);
    let alone = write_stream(core::slice::from_ref(&small), options);
    let mut w = StreamWriter::try_new_in(Vec::new(), small.schema(), options, G).unwrap();
    w.finish().unwrap();
    // Schema message + 8-byte end-of-stream marker.
    let schema_len = w.into_inner().len() - 8;
    let tail = &alone[schema_len..];
    assert!(both.len() > alone.len());
    assert_eq!(&both[both.len() - tail.len()..], tail);
    let got: Vec<_> = SliceStreamReader::try_new_in(&both, IpcReadOptions::default(), G)
        .unwrap()
        .map(|b| b.unwrap())
        .collect();
    assert_eq!(got, [big, small]);
}

#[test]
fn unsupported_compression_is_refused_up_front() {
    use crate::ipc::message::CompressionCodec;
    let b = sample_batch(0);
    let options = IpcWriteOptions {
        compression: Some(CompressionCodec::Zstd),
        ..Default::default()
    };
    let r = StreamWriter::try_new_in(Vec::new(), b.schema(), options, G);
    assert_eq!(r.err(), Some(crate::Error::ZstdCodecMissing));
}

/// A reader whose codec set lacks the codec a body was compressed with
/// says which codec is missing.
#[cfg(feature = "lz4")]
#[test]
fn a_missing_codec_is_named() {
    use crate::ipc::compression::{Codec, CodecSet};
    use crate::ipc::message::CompressionCodec;
    struct NoCodecs;
    impl CodecSet for NoCodecs {
        fn get(&mut self, _: CompressionCodec) -> Option<&mut dyn Codec> {
            None
        }
    }
    let options = IpcWriteOptions {
        compression: Some(CompressionCodec::Lz4Frame),
        ..Default::default()
    };
    let bytes = write_stream(&[sample_batch(0)], options);
    let mut r =
        SliceStreamReader::try_new_with_codecs_in(&bytes, IpcReadOptions::default(), NoCodecs, G)
            .unwrap();
    let e = r.next().unwrap().unwrap_err();
    assert_eq!(e.kind(), crate::ErrorKind::Lz4CodecMissing);
    assert!(
        std::format!("{e}").starts_with("LZ4-compressed body: no LZ4 codec"),
        "{e}"
    );
}

/// The example of the README, kept compiling and passing.
#[test]
fn readme_example() -> crate::Result<()> {
    use crate::Global;
    static FIELDS: [Field<'static, Global>; 2] = [
        Field::new("t", DataType::UInt32, false),
        Field::new("label", DataType::Utf8, true),
    ];
    let schema = Schema::new(SharedSlice::borrowed(&FIELDS));
    let t = [1u32, 2, 3];
    let columns = [
        PrimitiveArray::from_slice(&t).into_array_ref(),
        StringArray::try_from_options_in(&[Some("a"), None, Some("c")], Global)?.into_array_ref(),
    ];
    let batch = RecordBatch::try_new(schema.clone(), SharedSlice::borrowed(&columns))?;

    let mut w = StreamWriter::try_new_in(Vec::new(), &schema, IpcWriteOptions::default(), Global)?;
    w.write(&batch)?;
    w.finish()?;
    let bytes = w.into_inner();

    let mut n = 0;
    for b in SliceStreamReader::try_new_in(&bytes, IpcReadOptions::default(), Global)? {
        assert_eq!(b?, batch);
        n += 1;
    }
    assert_eq!(n, 1);
    Ok(())
}

#[test]
fn cheap_validation_reads_valid_input_identically_and_skips_data_checks() {
    let batches = [sample_batch(0), sample_batch(3)];
    let bytes = write_stream(&batches, IpcWriteOptions::default());
    // SAFETY: we wrote these bytes ourselves.
    let cheap = unsafe { IpcReadOptions::default().with_validation(ValidationLevel::Cheap) };
    let got: Vec<_> = SliceStreamReader::try_new_in(&bytes, cheap, G)
        .unwrap()
        .map(|b| b.unwrap())
        .collect();
    assert_eq!(got.len(), 2);
    for (g, b) in got.iter().zip(&batches) {
        assert_eq!(g, b);
    }

    // A string column whose bytes are not UTF-8: Full refuses it, Cheap does
    // not read the data (the caller vouched for it).
    let s = StringArray::<G>::try_from_options_in(&[Some("abc")], G).unwrap();
    let schema =
        Schema::new(SharedSlice::try_from_iter_in([field("s", DataType::Utf8, true)], G).unwrap());
    let batch = RecordBatch::try_new(
        schema,
        SharedSlice::try_from_iter_in([s.into_array_ref()], G).unwrap(),
    )
    .unwrap();
    let mut bytes = write_stream(core::slice::from_ref(&batch), IpcWriteOptions::default());
    let at = bytes.windows(3).rposition(|w| w == b"abc").unwrap();
    bytes[at] = 0xFF;
    let full = SliceStreamReader::try_new_in(&bytes, IpcReadOptions::default(), G)
        .unwrap()
        .next_batch();
    assert_eq!(full.unwrap_err(), crate::Error::InvalidUtf8);
    let lax = SliceStreamReader::try_new_in(&bytes, cheap, G)
        .unwrap()
        .next_batch();
    assert!(lax.unwrap().is_some());
    // Bounds are still checked at Cheap: a cut body is an error.
    assert!(
        SliceStreamReader::try_new_in(&bytes[..bytes.len() - 24], cheap, G)
            .unwrap()
            .next_batch()
            .is_err()
    );
}

/// Message-level custom metadata: written per record batch by both writers,
/// read back by all four readers (and reset for a batch without any).
#[test]
fn message_custom_metadata_round_trips() {
    use crate::buffer::SharedStr;
    let kv = |k: &'static str, v: &'static str| (SharedStr::borrowed(k), SharedStr::borrowed(v));
    let m0: Metadata<'static, G> =
        SharedSlice::try_from_iter_in([kv("batch", "0"), kv("ALKAID:origin", "sensor")], G)
            .unwrap();
    let batches = [sample_batch(0), sample_batch(1)];
    let schema = batches[0].schema().clone();
    let check = |meta: &Metadata<'_, G>, i: usize| {
        let got: Vec<(&str, &str)> = meta.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        if i == 0 {
            assert_eq!(got, [("batch", "0"), ("ARROW:origin", "sensor")]);
        } else {
            assert!(got.is_empty(), "{got:?}");
        }
    };

    let mut w =
        StreamWriter::try_new_in(Vec::new(), &schema, IpcWriteOptions::default(), G).unwrap();
    w.write_with_metadata(&batches[0], Some(&m0)).unwrap();
    w.write(&batches[1]).unwrap();
    w.finish().unwrap();
    let stream = w.into_inner();
    let mut r = SliceStreamReader::try_new_in(&stream, IpcReadOptions::default(), G).unwrap();
    assert!(r.batch_metadata().is_empty());
    for i in 0..2 {
        r.next_batch().unwrap().unwrap();
        check(r.batch_metadata(), i);
    }
    let mut r = StreamReader::try_new_in(stream.as_slice(), IpcReadOptions::default(), G).unwrap();
    for i in 0..2 {
        r.next_batch().unwrap().unwrap();
        check(r.batch_metadata(), i);
    }

    let mut w = FileWriter::try_new_in(Vec::new(), &schema, IpcWriteOptions::default(), G).unwrap();
    w.write_with_metadata(&batches[0], Some(&m0)).unwrap();
    w.write(&batches[1]).unwrap();
    w.finish().unwrap();
    let file = w.into_inner();
    let mut r = FileReader::try_new_in(&file, IpcReadOptions::default(), G).unwrap();
    for i in [1, 0, 1] {
        r.batch(i).unwrap();
        check(r.batch_metadata(), i);
    }
}

/// A sliced run-end encoded array of each run-end width is written with its
/// run ends shifted to the slice and the last one clamped to its length, and
/// reads back equal to the slice.
#[test]
fn sliced_run_end_arrays_round_trip() {
    fn check(a: ArrayRef<'static, G>) {
        // Runs of 2, 3 and 4 slots; the slice starts inside the first run and
        // ends inside the last one.
        let a = a.slice(1, 6).unwrap();
        let schema = Schema::new(
            SharedSlice::try_from_iter_in([field("r", a.data_type().clone(), true)], G).unwrap(),
        );
        let batch =
            RecordBatch::try_new(schema, SharedSlice::try_from_iter_in([a], G).unwrap()).unwrap();
        let bytes = write_stream(core::slice::from_ref(&batch), IpcWriteOptions::default());
        let mut r = SliceStreamReader::try_new_in(&bytes, IpcReadOptions::default(), G).unwrap();
        let back = r.next_batch().unwrap().unwrap();
        assert_batches_eq(&batch, &back);
        let Some(ArrayRef::RunEndEncoded(run)) = back.column(0) else {
            panic!("not run-end encoded");
        };
        assert_eq!(run.len(), 6);
        assert_eq!(run.get_physical_range(), 0..3);
    }
    macro_rules! runs {
        ($r:ty) => {{
            let mut b = PrimitiveRunBuilder::<$r, i64, G>::new_in(G);
            b.try_append_run(Some(10), 2).unwrap();
            b.try_append_run(None, 3).unwrap();
            b.try_append_run(Some(30), 4).unwrap();
            b.finish().unwrap().into_array_ref()
        }};
    }
    check(runs!(i16));
    check(runs!(i32));
    check(runs!(i64));
}

/// Opens a stream from bytes that the caller drops: the batches returned
/// own (share) a copy of the input, so they outlive it.
fn batches_of(bytes: &[u8]) -> crate::Result<Vec<RecordBatch<'static, G>>> {
    let owned = crate::buffer::Buffer::try_copy_in(bytes, G)?;
    let r = SliceStreamReader::try_from_buffer_in(owned, IpcReadOptions::default(), G)?;
    r.collect()
}

#[test]
fn slice_reader_over_an_owned_buffer_gives_batches_that_outlive_the_input() {
    let batches = [sample_batch(0), sample_batch(2)];
    let bytes = write_stream(&batches, IpcWriteOptions::default());
    let got = batches_of(&bytes.clone()).unwrap();
    drop(bytes);
    assert_eq!(got.len(), 2);
    assert_batches_eq(&got[0], &batches[0]);
    assert_batches_eq(&got[1], &batches[1]);
    // The columns point into the one shared input buffer.
    let ArrayRef::Int64(a) = &got[0].columns()[0] else {
        panic!()
    };
    let ArrayRef::Int64(b) = &got[1].columns()[0] else {
        panic!()
    };
    let (oa, ob) = (
        a.values_buffer().inner().owner(),
        b.values_buffer().inner().owner(),
    );
    assert!(oa.zip(ob).is_some_and(|(x, y)| x.ptr_eq(y)));
}

/// Fields may share a dictionary id only with the same value type: a schema
/// where they do not is refused when read (found by the `ipc_stream` fuzz
/// target: the dictionary batch of the id decoded as the first field's type
/// became the values of the other). Sharing with one value type is read.
#[test]
fn shared_dictionary_id_needs_one_value_type() {
    let dict = |v: DataType<'static, G>| {
        DataType::Dictionary(
            IndexType::Int32,
            SharedBox::try_new_in(v, G).unwrap(),
            false,
        )
    };
    let stream = |second: DataType<'static, G>| {
        let schema = Schema::new(
            SharedSlice::try_from_iter_in(
                [
                    field("a", dict(DataType::Utf8), true).with_dict_id(0),
                    field("b", dict(second), true).with_dict_id(0),
                ],
                G,
            )
            .unwrap(),
        );
        let mut out = Vec::new();
        StreamWriter::try_new_in(&mut out, &schema, IpcWriteOptions::default(), G)
            .unwrap()
            .finish()
            .unwrap();
        out
    };
    let same = stream(DataType::Utf8);
    let r = SliceStreamReader::try_new_in(&same, IpcReadOptions::default(), G).unwrap();
    assert_eq!(r.schema().fields().len(), 2);
    let other = stream(DataType::Utf8View);
    assert_eq!(
        SliceStreamReader::try_new_in(&other, IpcReadOptions::default(), G).err(),
        Some(crate::Error::InvalidDataType)
    );
    assert_eq!(
        StreamReader::try_new_in(&other[..], IpcReadOptions::default(), G).err(),
        Some(crate::Error::InvalidDataType)
    );
}
