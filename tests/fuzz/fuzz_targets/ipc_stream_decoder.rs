//! `StreamDecoder` (the push decoder) fed the input after its first byte in
//! chunks whose sizes that byte draws (from 1 byte to 64 KiB), pushed as
//! buffers or written into the decoder's own buffer (its top bit), then
//! `finish`. Differentially against `SliceStreamReader` over the same
//! bytes: the same batches, both end in an error or both end cleanly, and
//! when both fail, with the same `ErrorKind` (one error for one defect,
//! whatever the chunking; `tests/tests/reader_agreement.rs` checks the same
//! over the committed corpus). Oracles as `ipc_stream`.
//!
//! The kinds are compared except [`ErrorKind::AllocationFailed`]: the
//! decoder allocates through its budget and the slice reader through the
//! unlimited oracle allocator, and the two allocate differently (the
//! decoder copies parts of messages into buffers it grows); a request the
//! budget refuses is a finding of its own, reported by `Budget::check`.
//! Every other kind, `LimitExceeded` included, comes from the input and the
//! options, which are the same for both.
#![no_main]

use alkaid::buffer::Buffer;
use alkaid::ipc::reader::{SliceStreamReader, StreamDecoder};
use alkaid::ErrorKind;
use alkaid_alloc::Counting;
use alkaid_fuzz::*;
use libfuzzer_sys::fuzz_target;

/// Chunk sizes drawn from `seed`: up to 1, 2, 8, 64, 512, 4096 or 65536
/// bytes, varying from chunk to chunk.
struct Chunks {
    state: u32,
    span: usize,
}

impl Chunks {
    fn new(seed: u8) -> Self {
        let span = [1, 2, 8, 64, 512, 4096, 65536][usize::from(seed & 0x7F) % 7];
        Chunks {
            state: u32::from(seed).wrapping_mul(0x9E37_79B9) | 1,
            span,
        }
    }

    fn next(&mut self) -> usize {
        // xorshift32
        self.state ^= self.state << 13;
        self.state ^= self.state >> 17;
        self.state ^= self.state << 5;
        1 + self.state as usize % self.span
    }
}

fuzz_target!(|input: &[u8]| {
    let Some((&seed, data)) = input.split_first() else {
        return;
    };
    let limits = fuzz_limits();
    let gcap = ipc_global_cap(&limits);
    let budget = Budget::new("StreamDecoder", ipc_cap(data.len(), &limits));
    let oracle = Counting::new(Direct);
    {
        let mut d = StreamDecoder::try_new_in(fuzz_options(), budget.alloc()).unwrap();
        let mut chunks = Chunks::new(seed);
        let fill = seed & 0x80 != 0;
        let mut batches = Vec::new();
        let mut rest = data;
        let mut error = None;
        'input: while !rest.is_empty() && !d.is_finished() && batches.len() < MAX_BATCHES {
            let (piece, after) = rest.split_at(chunks.next().min(rest.len()));
            rest = after;
            let mut piece = Buffer::from_slice_ref(piece);
            while !piece.is_empty() && !d.is_finished() && batches.len() < MAX_BATCHES {
                let r = global_scope("StreamDecoder", gcap, || {
                    if !fill {
                        return d.decode(&mut piece);
                    }
                    let room = d.buffer_mut()?;
                    let n = room.len().min(piece.len());
                    room[..n].copy_from_slice(&piece[..n]);
                    piece = piece.slice(n, piece.len() - n)?;
                    d.advance(n)
                });
                match r {
                    Ok(Some(b)) => {
                        check_batch(&b);
                        batches.push(b);
                    }
                    Ok(None) => {}
                    Err(e) => {
                        error = Some(e);
                        break 'input;
                    }
                }
            }
        }
        let complete = batches.len() < MAX_BATCHES;
        if error.is_none() && complete {
            error = d.finish().err();
        }
        // The zero-copy reader over the same bytes agrees.
        let mut theirs = Vec::new();
        let mut their_error = None;
        match SliceStreamReader::try_new_in(data, fuzz_options(), &oracle) {
            Ok(mut r) => {
                assert!(
                    d.schema() == Some(r.schema()),
                    "the decoder and the slice reader disagree on the schema"
                );
                while theirs.len() < MAX_BATCHES {
                    match r.next_batch() {
                        Ok(Some(b)) => theirs.push(b),
                        Ok(None) => break,
                        Err(e) => {
                            their_error = Some(e);
                            break;
                        }
                    }
                }
            }
            Err(e) => their_error = Some(e),
        }
        assert!(
            batches.len() == theirs.len() && batches.iter().zip(&theirs).all(|(a, b)| a == b),
            "the decoder and the slice reader disagree on the batches"
        );
        if complete && theirs.len() < MAX_BATCHES {
            assert_eq!(
                error.is_some(),
                their_error.is_some(),
                "one ends in an error, the other cleanly"
            );
            if let (Some(ours), Some(theirs)) = (error, their_error) {
                let budget = [ours.kind(), theirs.kind()].contains(&ErrorKind::AllocationFailed);
                assert!(
                    budget || ours.kind() == theirs.kind(),
                    "the decoder fails with {ours:?}, the slice reader with {theirs:?}"
                );
            }
        }
        if let Some(schema) = d.schema() {
            round_trip(schema, &batches, &oracle);
        }
    }
    budget.check();
});
