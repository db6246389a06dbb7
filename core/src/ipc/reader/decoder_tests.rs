//! The push decoder against the slice reader: any chunking, both ways of
//! feeding it, truncations, limits, allocation failures.

use std::vec::Vec;

use allocator_api2::alloc::Allocator;

use crate::Global as G;

use super::{IpcReadOptions, ReadLimits, SliceStreamReader, StreamDecoder, StreamReader};
use crate::array::*;
use crate::buffer::{Buffer, SharedBox, SharedSlice};
use crate::datatypes::*;
use crate::ipc::message::MessageView;
use crate::ipc::roundtrip_tests::sample_batch;
use crate::ipc::writer::{IpcWriteOptions, StreamWriter};
use crate::test_support::{check_every_failure, counting, TestAlloc};
use crate::{Error, Result};

/// A stream of two sample batches and three dictionary-encoded ones (a
/// dictionary, a delta, a replacement), each a stream of its own schema,
/// so both are returned.
fn streams() -> [Vec<u8>; 2] {
    let batches = [sample_batch(0), sample_batch(3)];
    let mut w = StreamWriter::try_new_in(
        Vec::new(),
        batches[0].schema(),
        IpcWriteOptions::default(),
        G,
    )
    .unwrap();
    for b in &batches {
        w.write(b).unwrap();
    }
    w.finish().unwrap();
    let plain = w.into_inner();

    let dict_type = DataType::Dictionary(
        IndexType::Int8,
        SharedBox::try_new_in(DataType::Utf8, G).unwrap(),
        false,
    );
    let schema = Schema::new(
        SharedSlice::try_from_iter_in(
            [Field::new("d", dict_type.clone(), true).with_dict_id(5)],
            G,
        )
        .unwrap(),
    );
    let make = |values: &[&str], keys: &[Option<i8>]| {
        let opts: Vec<Option<&str>> = values.iter().map(|v| Some(*v)).collect();
        let v = StringArray::<G>::try_from_options_in(&opts, G).unwrap();
        let k = PrimitiveArray::<i8, G>::try_from_options_in(keys, G).unwrap();
        let d = DictionaryArray::try_new(
            dict_type.clone(),
            DictionaryKeys::Int8(k),
            SharedBox::try_new_in(v.into_array_ref(), G).unwrap(),
        )
        .unwrap();
        RecordBatch::try_new(
            schema.clone(),
            SharedSlice::try_from_iter_in([d.into_array_ref()], G).unwrap(),
        )
        .unwrap()
    };
    let mut w =
        StreamWriter::try_new_in(Vec::new(), &schema, IpcWriteOptions::default(), G).unwrap();
    w.write(&make(&["a", "b"], &[Some(0), Some(1), None]))
        .unwrap();
    w.write(&make(&["a", "b", "c"], &[Some(2), Some(0)]))
        .unwrap(); // delta
    w.write(&make(&["z"], &[Some(0)])).unwrap(); // replacement
    w.finish().unwrap();
    [plain, w.into_inner()]
}

fn slice_batches(bytes: &[u8]) -> Vec<RecordBatch<'_, G>> {
    SliceStreamReader::try_new_in(bytes, IpcReadOptions::default(), G)
        .unwrap()
        .map(|b| b.unwrap())
        .collect()
}

/// Pushes `bytes` in chunks of `chunk` bytes; the batches, then `finish`'s
/// outcome.
fn push<'b, A: Allocator + Clone + 'b>(
    bytes: &'b [u8],
    chunk: usize,
    options: IpcReadOptions,
    alloc: A,
) -> Result<Vec<RecordBatch<'b, A>>> {
    let mut d = StreamDecoder::try_new_in(options, alloc)?;
    let mut out = Vec::new();
    for piece in bytes.chunks(chunk.max(1)) {
        let mut piece = Buffer::from_slice_ref(piece);
        while !piece.is_empty() && !d.is_finished() {
            if let Some(b) = d.decode(&mut piece)? {
                out.push(b);
            }
        }
    }
    d.finish()?;
    Ok(out)
}

/// Fills the decoder's buffer `chunk` bytes at a time.
fn fill<'b, A: Allocator + Clone + 'b>(
    mut bytes: &[u8],
    chunk: usize,
    alloc: A,
) -> Result<Vec<RecordBatch<'b, A>>> {
    let mut d = StreamDecoder::try_new_in(IpcReadOptions::default(), alloc)?;
    let mut out = Vec::new();
    while !bytes.is_empty() && !d.is_finished() {
        let wanted = d.wanted();
        let room = d.buffer_mut()?;
        assert!(!room.is_empty() && room.len() <= wanted);
        let n = room.len().min(chunk).min(bytes.len());
        room[..n].copy_from_slice(&bytes[..n]);
        bytes = &bytes[n..];
        if let Some(b) = d.advance(n)? {
            out.push(b);
        }
    }
    d.finish()?;
    Ok(out)
}

#[test]
fn every_chunk_size_gives_the_slice_readers_batches() {
    for bytes in streams() {
        let want = slice_batches(&bytes);
        assert!(want.len() >= 2);
        for chunk in (1..=80).chain([127, 512, 4096, bytes.len()]) {
            let got = push(&bytes, chunk, IpcReadOptions::default(), G).unwrap();
            assert_eq!(got, want, "push, chunks of {chunk}");
            let got = fill(&bytes, chunk, G).unwrap();
            assert_eq!(got, want, "fill, chunks of {chunk}");
        }
    }
}

#[test]
fn whole_messages_are_decoded_in_place() {
    let [bytes, _] = streams();
    // 64-byte aligned input, so that every buffer can be borrowed.
    let owned = Buffer::try_copy_in(&bytes, G).unwrap();
    let mut input = owned.clone();
    let mut d = StreamDecoder::try_new_in(IpcReadOptions::default(), G).unwrap();
    let b = d.decode(&mut input).unwrap().unwrap();
    let t = b.column(0).and_then(|c| c.as_primitive::<i64>()).unwrap();
    let inside = owned.as_slice().as_ptr_range();
    assert!(inside.contains(&t.values().as_ptr().cast()));
    assert!(d.decode(&mut input).unwrap().is_some());
    assert!(d.decode(&mut input).unwrap().is_none());
    assert!(d.is_finished() && input.is_empty());
    d.finish().unwrap();
}

#[test]
fn the_end_of_stream_marker_stops_consumption() {
    let [bytes, _] = streams();
    let mut with_tail = bytes.clone();
    with_tail.extend_from_slice(b"trailing bytes");
    let mut input = Buffer::<G>::from_slice_ref(&with_tail);
    let mut d = StreamDecoder::try_new_in(IpcReadOptions::default(), G).unwrap();
    let mut n = 0;
    while let Some(_b) = d.decode(&mut input).unwrap() {
        n += 1;
    }
    assert_eq!(n, 2);
    assert!(d.is_finished());
    assert_eq!(input.as_slice(), b"trailing bytes");
    assert_eq!(d.buffer_mut().unwrap().len(), 0);
    assert_eq!(d.wanted(), 0);
    assert!(d.decode(&mut input).unwrap().is_none());
    d.finish().unwrap();
}

/// The stream without continuation markers (the pre-0.15 framing).
fn legacy(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut at = 0;
    loop {
        assert_eq!(bytes[at..at + 4], [0xFF; 4]);
        let len = i32::from_le_bytes(bytes[at + 4..at + 8].try_into().unwrap()) as usize;
        out.extend_from_slice(&bytes[at + 4..at + 8]);
        if len == 0 {
            return out;
        }
        let meta = &bytes[at + 8..at + 8 + len];
        let body = MessageView::decode(meta).unwrap().body_length as usize;
        out.extend_from_slice(&bytes[at + 8..at + 8 + len + body]);
        at += 8 + len + body;
    }
}

/// Where each message of `bytes` ends (the schema's end first).
fn message_ends(bytes: &[u8]) -> Vec<usize> {
    let mut ends = Vec::new();
    let mut at = 0;
    loop {
        let len = i32::from_le_bytes(bytes[at + 4..at + 8].try_into().unwrap()) as usize;
        if len == 0 {
            return ends;
        }
        let meta = &bytes[at + 8..at + 8 + len];
        at += 8 + len + MessageView::decode(meta).unwrap().body_length as usize;
        ends.push(at);
    }
}

#[test]
fn legacy_framing_in_any_chunking() {
    for bytes in streams() {
        let old = legacy(&bytes);
        assert!(old.len() < bytes.len());
        let want = slice_batches(&bytes);
        for chunk in [1, 3, 7, 64, old.len()] {
            assert_eq!(
                push(&old, chunk, IpcReadOptions::default(), G).unwrap(),
                want
            );
            assert_eq!(fill(&old, chunk, G).unwrap(), want);
        }
    }
}

#[test]
fn every_truncation_is_an_error_at_finish_after_the_whole_batches() {
    for bytes in streams() {
        let want = slice_batches(&bytes);
        let boundaries = message_ends(&bytes);
        assert!(boundaries.len() >= 3);
        for n in 0..bytes.len() {
            for chunk in [1, 9, n.max(1)] {
                let mut d = StreamDecoder::try_new_in(IpcReadOptions::default(), G).unwrap();
                let mut got = Vec::new();
                for piece in bytes[..n].chunks(chunk) {
                    let mut piece = Buffer::<G>::from_slice_ref(piece);
                    while let Some(b) = d.decode(&mut piece).unwrap() {
                        got.push(b);
                    }
                    assert!(piece.is_empty());
                }
                assert_eq!(got[..], want[..got.len()], "cut at {n}");
                let end = d.finish();
                if boundaries.contains(&n) {
                    // Cut between two messages: a stream without its
                    // end-of-stream marker, a clean end (as for the readers).
                    assert_eq!(end, Ok(()), "cut at {n}");
                } else {
                    assert_eq!(end, Err(Error::UnexpectedEof), "cut at {n}");
                    assert_eq!(d.finish(), Err(Error::UnexpectedEof));
                }
            }
        }
    }
}

#[test]
fn lengths_beyond_the_limits_are_refused_before_allocating() {
    let limits = ReadLimits {
        max_metadata_size: 1024,
        max_body_size: 64,
        ..ReadLimits::default()
    };
    let options = IpcReadOptions::with_limits(limits);
    // A metadata length of 2^30 bytes.
    let a = counting();
    let mut d = StreamDecoder::try_new_in(options, a.clone()).unwrap();
    let mut input = Buffer::from_slice_ref(&[0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0x40]);
    assert_eq!(d.decode(&mut input).unwrap_err(), Error::LimitExceeded);
    assert_eq!(a.requests(), 0);
    assert_eq!(d.buffer_mut().unwrap_err(), Error::LimitExceeded);

    // A body larger than the limit: refused once the metadata is in, with
    // only the metadata allocated.
    let [bytes, _] = streams();
    let a = counting();
    let r = push(&bytes, 5, options, a.clone());
    assert_eq!(r.unwrap_err(), Error::LimitExceeded);
    let e = push(&bytes, 5, options, G).unwrap_err();
    assert_eq!(e.location().message(), Some(1));
}

#[test]
fn a_large_declared_body_grows_with_the_bytes_received() {
    // The schema, then a record batch message claiming a 64 MiB body, cut
    // after 100 bytes of it.
    let [bytes, _] = streams();
    let schema_end = {
        let len = i32::from_le_bytes(bytes[4..8].try_into().unwrap()) as usize;
        8 + len
    };
    let at = schema_end;
    let len = i32::from_le_bytes(bytes[at + 4..at + 8].try_into().unwrap()) as usize;
    let meta = &bytes[at + 8..at + 8 + len];
    let body_len = MessageView::decode(meta).unwrap().body_length;
    let pos = meta
        .windows(8)
        .position(|w| w == body_len.to_le_bytes())
        .unwrap();
    let mut hostile = bytes[..at + 8 + len].to_vec();
    hostile[at + 8 + pos..at + 16 + pos].copy_from_slice(&(64i64 << 20).to_le_bytes());
    hostile.extend_from_slice(&[0; 100]);
    let a = counting();
    let r = push(&hostile, 4096, IpcReadOptions::default(), a.clone());
    assert_eq!(r.unwrap_err(), Error::UnexpectedEof);
    assert!(
        a.inner().peak_bytes() < (1 << 20) + (64 << 10),
        "{}",
        a.inner().peak_bytes()
    );
}

#[test]
fn errors_stop_the_decoder_and_name_the_message() {
    let [bytes, _] = streams();
    let mut bad = bytes.clone();
    // The first batch's message: its metadata's first byte, made garbage.
    let len = i32::from_le_bytes(bytes[4..8].try_into().unwrap()) as usize;
    let at = 8 + len;
    bad[at + 8..at + 12].copy_from_slice(&[0xEE; 4]);
    let mut d = StreamDecoder::try_new_in(IpcReadOptions::default(), G).unwrap();
    let mut input = Buffer::<G>::from_slice_ref(&bad);
    let e = d.decode(&mut input).unwrap_err();
    assert_eq!(e.location().message(), Some(1));
    assert!(d.schema().is_some());
    assert_eq!(d.decode(&mut input).unwrap_err(), e);
    assert_eq!(d.advance(0).unwrap_err(), e);
    assert_eq!(d.finish().unwrap_err(), e);
    assert_eq!(d.wanted(), 0);

    // Advancing past the region handed out is refused.
    let mut d = StreamDecoder::try_new_in(IpcReadOptions::default(), G).unwrap();
    assert_eq!(d.buffer_mut().unwrap().len(), 4);
    assert_eq!(d.advance(5).unwrap_err(), Error::InvalidArgument);

    // No schema: an empty input, or an end-of-stream marker first.
    let mut d = StreamDecoder::try_new_in(IpcReadOptions::default(), G).unwrap();
    assert_eq!(d.finish(), Err(Error::UnexpectedEof));
    let mut d = StreamDecoder::try_new_in(IpcReadOptions::default(), G).unwrap();
    let mut eos = Buffer::<G>::from_slice_ref(&[0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0]);
    assert_eq!(d.decode(&mut eos), Err(Error::UnexpectedEof));
}

#[test]
fn every_allocation_failure_is_an_error_that_leaks_nothing() {
    for bytes in streams() {
        let want = slice_batches(&bytes);
        for chunk in [7, 64, bytes.len()] {
            let n = check_every_failure(|a: TestAlloc| {
                push(&bytes, chunk, IpcReadOptions::default(), a)
            });
            assert!(n > 0);
            let n = check_every_failure(|a: TestAlloc| fill(&bytes, chunk, a));
            assert!(n > 0);
        }
        let n = check_every_failure(|a: TestAlloc| {
            let r = StreamReader::try_new_in(&bytes[..], IpcReadOptions::default(), a)?;
            r.collect::<Result<Vec<_>>>()
        });
        assert!(n > 0);
        assert_eq!(push(&bytes, 7, IpcReadOptions::default(), G).unwrap(), want);
    }
}
