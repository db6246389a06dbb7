//! The push decoder (`StreamDecoder`) on every golden stream: fed in chunks
//! of 1, 7, 64 and 4096 bytes and whole, pushed as buffers and written into
//! its own buffer, it gives what `SliceStreamReader` gives (the same
//! batches, batch metadata and error); and every truncation point of a few
//! golden streams (dictionaries, compression, big-endian, run ends) is an
//! error at `finish` after intact batches, or a clean end at a message
//! boundary.

use alkaid::array::RecordBatch;
use alkaid::buffer::Buffer;
use alkaid::datatypes::Metadata;
use alkaid::ipc::message::MessageView;
use alkaid::ipc::reader::{IpcReadOptions, SliceStreamReader, StreamDecoder};
use alkaid::{Error, Global as G};
use alkaid_tests::harness::{cases, golden_dir};

/// What a reader made of a stream: each batch with its message's custom
/// metadata, then the error that ended it (if any).
type Read<'b> = (Vec<(RecordBatch<'b, G>, Metadata<'b, G>)>, Option<Error>);

fn by_slice_reader(bytes: &[u8]) -> Read<'_> {
    let mut r = match SliceStreamReader::try_new_in(bytes, IpcReadOptions::default(), G) {
        Ok(r) => r,
        Err(e) => return (Vec::new(), Some(e)),
    };
    let mut out = Vec::new();
    loop {
        match r.next_batch() {
            Ok(Some(b)) => out.push((b, r.batch_metadata().clone())),
            Ok(None) => return (out, None),
            Err(e) => return (out, Some(e)),
        }
    }
}

/// Pushes `bytes` in chunks of `chunk` bytes, then calls `finish`.
fn pushed(bytes: &[u8], chunk: usize) -> Read<'_> {
    let mut d = StreamDecoder::try_new_in(IpcReadOptions::default(), G).unwrap();
    let mut out = Vec::new();
    for piece in bytes.chunks(chunk) {
        let mut piece = Buffer::from_slice_ref(piece);
        while !piece.is_empty() && !d.is_finished() {
            match d.decode(&mut piece) {
                Ok(Some(b)) => out.push((b, d.batch_metadata().clone())),
                Ok(None) => {}
                Err(e) => return (out, Some(e)),
            }
        }
    }
    (out, d.finish().err())
}

/// Writes `bytes` into the decoder's own buffer, at most `chunk` bytes at a
/// time, then calls `finish`.
fn filled(mut bytes: &[u8], chunk: usize) -> Read<'static> {
    let mut d = StreamDecoder::try_new_in(IpcReadOptions::default(), G).unwrap();
    let mut out = Vec::new();
    while !bytes.is_empty() && !d.is_finished() {
        let room = match d.buffer_mut() {
            Ok(r) => r,
            Err(e) => return (out, Some(e)),
        };
        let n = room.len().min(chunk).min(bytes.len());
        room[..n].copy_from_slice(&bytes[..n]);
        bytes = &bytes[n..];
        match d.advance(n) {
            Ok(Some(b)) => out.push((b, d.batch_metadata().clone())),
            Ok(None) => {}
            Err(e) => return (out, Some(e)),
        }
    }
    (out, d.finish().err())
}

#[test]
fn every_golden_stream_in_any_chunking_reads_as_the_slice_reader_reads_it() {
    let mut compared = 0;
    let mut batches = 0;
    let mut errors = 0;
    for case in cases(&golden_dir()) {
        let bytes = std::fs::read(case.stream_path()).unwrap();
        let want = by_slice_reader(&bytes);
        batches += want.0.len();
        errors += usize::from(want.1.is_some());
        for chunk in [1, 7, 64, 4096, bytes.len()] {
            let what = format!("{}/{} in chunks of {chunk}", case.dir, case.stem);
            let got = pushed(&bytes, chunk);
            assert!(got.0 == want.0, "{what}: pushed batches differ");
            assert_eq!(got.1, want.1, "{what}: pushed");
            let got = filled(&bytes, chunk);
            assert!(got.0 == want.0, "{what}: filled batches differ");
            assert_eq!(got.1, want.1, "{what}: filled");
            compared += 1;
        }
    }
    // 59 golden streams, five chunkings each; every one reads whole at the
    // default level (the three big-endian files whose values break the
    // value rules of `ValidationLevel::Strict` included).
    assert_eq!(compared, 59 * 5);
    assert_eq!(batches, 174);
    assert_eq!(errors, 0);
}

/// Where each message of a well-formed stream ends.
fn message_ends(stream: &[u8]) -> Vec<usize> {
    let word = |at: usize| u32::from_le_bytes(stream[at..at + 4].try_into().unwrap());
    let mut ends = Vec::new();
    let mut pos = 0;
    while pos + 4 <= stream.len() {
        let (len, meta) = if word(pos) == 0xFFFF_FFFF {
            (word(pos + 4) as usize, pos + 8)
        } else {
            (word(pos) as usize, pos + 4)
        };
        if len == 0 {
            break;
        }
        let m = MessageView::decode(&stream[meta..meta + len]).unwrap();
        pos = meta + len + m.body_length as usize;
        ends.push(pos);
    }
    ends
}

#[test]
fn every_truncation_of_golden_streams_is_an_error_at_finish() {
    let picks = [
        ("cpp-21.0.0", "generated_nested_dictionary"),
        ("cpp-21.0.0", "generated_run_end_encoded"),
        ("4.0.0-shareddict", "generated_shared_dict"),
        ("2.0.0-compression", "generated_lz4"),
        ("2.0.0-compression", "generated_zstd"),
        ("1.0.0-bigendian", "generated_dictionary"),
    ];
    let root = golden_dir();
    let mut cuts = 0;
    for (dir, stem) in picks {
        let bytes = std::fs::read(root.join(dir).join(format!("{stem}.stream"))).unwrap();
        let (want, end) = by_slice_reader(&bytes);
        assert_eq!(end, None, "{dir}/{stem}");
        let ends = message_ends(&bytes);
        for n in 0..bytes.len() {
            for chunk in [7, n.max(1)] {
                let (got, err) = pushed(&bytes[..n], chunk);
                let what = format!("{dir}/{stem} cut at {n} (chunks of {chunk})");
                assert!(got.len() <= want.len(), "{what}");
                assert!(got[..] == want[..got.len()], "{what}: batches differ");
                if ends.contains(&n) {
                    assert_eq!(err, None, "{what}: a message boundary");
                } else {
                    assert_eq!(err, Some(Error::UnexpectedEof), "{what}");
                }
                cuts += 1;
            }
        }
    }
    assert!(cuts > 20_000, "{cuts}");
}
