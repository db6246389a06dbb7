//! The sans-IO encoders against the sync writers: same bytes, body buffers
//! borrowed from array memory, block offsets, errors, and every allocation
//! failure.

use std::vec::Vec;

use super::{FileEncoder, FileWriter, IpcWriteOptions, StreamEncoder, StreamWriter};
use crate::array::*;
use crate::buffer::{SharedBox, SharedSlice};
use crate::datatypes::*;
use crate::error::Error;
use crate::ipc::reader::{FileReader, IpcReadOptions, SliceStreamReader};
use crate::ipc::roundtrip_tests::sample_batch;
use crate::test_support::{check_every_failure, counting, TestAlloc};

use crate::Global as G;

fn append(out: &mut Vec<u8>, msg: &super::EncodedMessage<'_>) {
    assert_eq!(msg.offset(), out.len() as u64);
    let before = out.len();
    for p in msg.pieces() {
        assert!(!p.is_empty());
        out.extend_from_slice(p);
    }
    assert_eq!((out.len() - before) as u64, msg.len());
}

/// A batch in allocator `A`: a sliced nullable Int64 column (its bitmap
/// shifted), a sliced Utf8 column (its offsets rebased) and a dictionary
/// column whose dictionary grows by `extra` values (a delta).
pub(crate) fn batch_in(alloc: TestAlloc, extra: usize) -> RecordBatch<'static, TestAlloc> {
    let dict_type = DataType::Dictionary(
        IndexType::Int8,
        SharedBox::try_new_in(DataType::Utf8, alloc.clone()).unwrap(),
        false,
    );
    let ints = PrimitiveArray::<i64, TestAlloc>::try_from_options_in(
        &[Some(1), None, Some(3), Some(4), None, Some(6)],
        alloc.clone(),
    )
    .unwrap()
    .slice(1, 5)
    .unwrap();
    let strs = StringArray::<TestAlloc>::try_from_options_in(
        &[
            Some("ab"),
            Some("c"),
            None,
            Some("def"),
            Some(""),
            Some("g"),
        ],
        alloc.clone(),
    )
    .unwrap()
    .slice(1, 5)
    .unwrap();
    let values: Vec<Option<&str>> = ["lo", "hi", "mid"][..2 + extra]
        .iter()
        .map(|v| Some(*v))
        .collect();
    let v = StringArray::<TestAlloc>::try_from_options_in(&values, alloc.clone())
        .unwrap()
        .into_array_ref();
    let k = PrimitiveArray::<i8, TestAlloc>::try_from_options_in(
        &[Some(0), Some(1), None, Some(0), Some(1)],
        alloc.clone(),
    )
    .unwrap();
    let d = DictionaryArray::try_new(
        dict_type.clone(),
        DictionaryKeys::Int8(k),
        SharedBox::try_new_in(v, alloc.clone()).unwrap(),
    )
    .unwrap();
    let schema = Schema::new(
        SharedSlice::try_from_iter_in(
            [
                Field::new("i", DataType::Int64, true),
                Field::new("s", DataType::Utf8, true),
                Field::new("d", dict_type, true).with_dict_id(1),
            ],
            alloc.clone(),
        )
        .unwrap(),
    );
    let cols = [
        ints.into_array_ref(),
        strs.into_array_ref(),
        d.into_array_ref(),
    ];
    RecordBatch::try_new(schema, SharedSlice::try_from_iter_in(cols, alloc).unwrap()).unwrap()
}

/// The stream and file encoders' pieces, appended, are the sync writers'
/// bytes, with and without compression and at every alignment.
#[test]
fn encoders_give_the_writers_bytes() {
    let batches = [sample_batch(0), sample_batch(2), sample_batch(1)];
    let schema = batches[0].schema().clone();
    let mut options = std::vec![IpcWriteOptions::default()];
    for alignment in [8, 16, 32] {
        options.push(IpcWriteOptions {
            alignment,
            ..Default::default()
        });
    }
    #[cfg(feature = "lz4")]
    options.push(IpcWriteOptions {
        compression: Some(super::CompressionCodec::Lz4Frame),
        ..Default::default()
    });
    for o in options {
        let mut w = StreamWriter::try_new_in(Vec::new(), &schema, o, G).unwrap();
        let mut e = StreamEncoder::try_new_in(&schema, o, G).unwrap();
        let mut out = Vec::new();
        append(&mut out, &e.encode_schema().unwrap());
        for b in &batches {
            w.write(b).unwrap();
            append(&mut out, &e.encode_batch(b).unwrap());
        }
        w.finish().unwrap();
        append(&mut out, &e.finish().unwrap());
        assert!(e.finish().unwrap().is_empty());
        assert_eq!(out, w.into_inner());
        assert_eq!(e.position(), out.len() as u64);

        let mut w = FileWriter::try_new_in(Vec::new(), &schema, o, G).unwrap();
        let mut e = FileEncoder::try_new_in(&schema, o, G).unwrap();
        let mut out = Vec::new();
        let mut blocks = Vec::new();
        // The first batch brings the magic and the schema along.
        for b in &batches {
            w.write(b).unwrap();
            let msg = e.encode_batch(b).unwrap();
            blocks.push(msg.record_batch_block().unwrap());
            append(&mut out, &msg);
        }
        w.finish().unwrap();
        append(&mut out, &e.finish().unwrap());
        assert_eq!(out, w.into_inner());
        assert_eq!(e.num_batches(), 3);
        // The blocks point at the record batch messages.
        let r = FileReader::try_new_in(&out, IpcReadOptions::default(), G).unwrap();
        assert_eq!(r.num_batches(), 3);
        for blk in &blocks {
            let at = blk.offset as usize;
            assert_eq!(out[at..at + 4], [0xFF; 4]);
            let meta = i32::from_le_bytes(out[at + 4..at + 8].try_into().unwrap());
            assert_eq!(meta as i64 + 8, blk.meta_data_length as i64);
        }
    }
}

/// Uncompressed, the values of an unsliced column are a piece of the
/// array's own memory; a sliced column's bitmap and offsets are transformed
/// (side buffer) and its string bytes still borrowed.
#[test]
fn body_buffers_are_borrowed_from_the_arrays() {
    let b = batch_in(counting(), 0);
    let mut e =
        StreamEncoder::try_new_in(b.schema(), IpcWriteOptions::default(), counting()).unwrap();
    let msg = e.encode_batch(&b).unwrap();
    let ArrayRef::Utf8(s) = &b.columns()[1] else {
        panic!("not utf8")
    };
    let ArrayRef::Int64(i) = &b.columns()[0] else {
        panic!("not int64")
    };
    let chars = s.values().as_slice();
    let ints: &[u8] = bytemuck::cast_slice(i.values());
    let ptrs: Vec<(usize, usize)> = msg
        .pieces()
        .map(|p| (p.as_ptr() as usize, p.len()))
        .collect();
    assert!(ptrs.contains(&(ints.as_ptr() as usize, 40)));
    // "c", "", "def", "", "g": bytes 2..7 of the values.
    assert!(ptrs.contains(&(chars[2..].as_ptr() as usize, 5)));
    // Schema, a dictionary batch, the record batch.
    let blocks = msg.dictionary_blocks();
    assert_eq!(blocks.len(), 1);
    assert!(msg.record_batch_block().unwrap().offset > blocks[0].offset);
}

/// A delta dictionary, then errors: a batch of another schema is refused
/// without harm; after `finish` nothing more is encoded.
#[test]
fn deltas_and_errors() {
    let (b1, b2) = (batch_in(counting(), 0), batch_in(counting(), 1));
    let mut e =
        StreamEncoder::try_new_in(b1.schema(), IpcWriteOptions::default(), counting()).unwrap();
    let mut out = Vec::new();
    append(&mut out, &e.encode_batch(&b1).unwrap());
    assert!(e.encode_schema().is_err());
    let msg = e.encode_batch(&b2).unwrap();
    assert_eq!(msg.dictionary_blocks().len(), 1); // the delta
    append(&mut out, &msg);
    let other = batch_in(counting(), 0);
    let other = RecordBatch::try_new(
        Schema::new(
            SharedSlice::try_from_iter_in([Field::new("x", DataType::Int64, true)], counting())
                .unwrap(),
        ),
        SharedSlice::try_from_iter_in([other.columns()[0].clone()], counting()).unwrap(),
    )
    .unwrap();
    assert_eq!(e.encode_batch(&other).unwrap_err(), Error::SchemaMismatch);
    append(&mut out, &e.encode_batch(&b2).unwrap());
    append(&mut out, &e.finish().unwrap());
    assert_eq!(e.encode_batch(&b1).unwrap_err(), Error::InvalidBuilderState);
    let got: Vec<_> = SliceStreamReader::try_new_in(&out, IpcReadOptions::default(), counting())
        .unwrap()
        .map(|b| b.unwrap())
        .collect();
    assert_eq!(got.len(), 3);
    assert_eq!(got[1].columns(), b2.columns());
}

/// Every allocation of the encoders (scratch, side buffer, pieces,
/// dictionary tracker, blocks, footer) refused in turn: an error, no panic,
/// no leak; and after a failure part-way the encoder refuses more work.
#[test]
fn every_allocation_failure_of_the_encoders() {
    let (b1, b2) = (batch_in(counting(), 0), batch_in(counting(), 1));
    let n = check_every_failure(|a: TestAlloc| {
        let mut e = StreamEncoder::try_new_in(b1.schema(), IpcWriteOptions::default(), a)?;
        let mut len = e.encode_batch(&b1)?.len();
        len += e.encode_batch(&b2)?.len();
        len += e.finish()?.len();
        Ok(len)
    });
    assert!(n > 0);
    let n = check_every_failure(|a: TestAlloc| {
        let mut e = FileEncoder::try_new_in(b1.schema(), IpcWriteOptions::default(), a)?;
        let mut len = e.encode_batch(&b1)?.len();
        len += e.encode_batch(&b2)?.len();
        len += e.finish()?.len();
        Ok(len)
    });
    assert!(n > 0);
    // A failure part-way: the encoder is done.
    let a = crate::test_support::failing_at(3, crate::test_support::FailMode::Once);
    let mut e = FileEncoder::try_new_in(b1.schema(), IpcWriteOptions::default(), a).unwrap();
    let mut failed = false;
    for _ in 0..4 {
        match e.encode_batch(&b1) {
            Err(err) if err == Error::AllocationFailed => failed = true,
            Err(err) => {
                assert!(failed);
                assert_eq!(err, Error::InvalidBuilderState);
            }
            Ok(_) => assert!(!failed),
        }
    }
    assert!(failed);
}
