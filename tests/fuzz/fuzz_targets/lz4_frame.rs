//! The LZ4 frame decoder (`LZ4_FRAME` IPC body compression) with a small
//! output limit: `decompress_to_buffer` (growing through `A`),
//! `decompress_into` (caller slice) and `decompress_buffer` (the IPC body
//! buffer path: 8-byte length prefix, declared-length check, exact fill).
//!
//! Oracles: the three entry points agree; what decodes re-encodes with
//! `Lz4FrameCodec` and decodes back to the same bytes; the decoder holds at
//! most the limit (plus one block of slack) from `A` and nothing from the
//! global heap.
#![no_main]

use alkaid::buffer::{Buffer, MutableBuffer};
use alkaid::ipc::compression::lz4_frame::{decompress_into, decompress_to_buffer, Lz4FrameCodec};
use alkaid::ipc::compression::{compress_buffer, decompress_buffer};
use alkaid_alloc::Counting;
use alkaid_fuzz::*;
use libfuzzer_sys::fuzz_target;

/// Decompressed bytes allowed.
const LIMIT: usize = 64 << 10;

fuzz_target!(|data: &[u8]| {
    let budget = Budget::new("lz4_frame", lz4_cap(LIMIT));
    let oracle = Counting::new(Direct);
    {
        let a = budget.alloc();
        let grown = global_scope("lz4 decompress_to_buffer", 0, || {
            decompress_to_buffer(data, LIMIT, a)
        });
        let mut slice = vec![0u8; LIMIT];
        let into = global_scope("lz4 decompress_into", 0, || {
            decompress_into(data, &mut slice)
        });
        if let Ok(buf) = &grown {
            match &into {
                Ok(n) => assert!(
                    slice[..*n] == *buf.as_slice(),
                    "decompress_into and decompress_to_buffer differ"
                ),
                Err(e) => {
                    panic!("decompress_to_buffer accepts what decompress_into refuses: {e:?}")
                }
            }
            // The IPC body buffer path with the true length declared.
            let mut framed = Vec::with_capacity(8 + data.len());
            framed.extend_from_slice(&(buf.len() as i64).to_le_bytes());
            framed.extend_from_slice(data);
            let input = Buffer::from_slice_ref(&framed);
            let mut codec = Lz4FrameCodec::new();
            if !buf.is_empty() {
                match global_scope("lz4 decompress_buffer", 0, || {
                    decompress_buffer(&mut codec, &input, LIMIT, a)
                }) {
                    Ok(b) => assert!(b.as_slice() == buf.as_slice(), "decompress_buffer differs"),
                    Err(e) => panic!("decompress_buffer refuses a frame that decodes: {e:?}"),
                }
            }
            // Round trip through our encoder.
            let mut out = MutableBuffer::new_in(&oracle);
            compress_buffer(&mut codec, buf.as_slice(), &mut out).expect("compress");
            let again = decompress_buffer(
                &mut codec,
                &Buffer::from_slice_ref(out.as_slice()),
                LIMIT,
                &oracle,
            )
            .expect("our own frame decodes");
            assert!(again.as_slice() == buf.as_slice(), "LZ4 round trip differs");
        }
    }
    budget.check();
});
