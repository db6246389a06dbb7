//! A body's buffers as independent jobs, for an executor that may run them
//! on several threads ("Compression" of the IPC chapter: every buffer of a
//! body is compressed on its own, so buffers can be compressed, or
//! decompressed, in any order and at the same time).
//!
//! The core has no threads: a [`CodecSet`] may offer a
//! [`BodyExecutor`] ([`CodecSet::executor`],
//! `None` by default), and the writers and readers then hand it the jobs of
//! a batch body instead of running them one after the other. Each
//! [`BodyJob`] is one buffer: its input bytes and the output room that only
//! it writes to, so the executor can move jobs to other threads; the core
//! lays the outputs out in buffer order afterwards, so the bytes written are
//! exactly those of the sequential path (the std shim's `ThreadedCodecs`
//! runs them with `std::thread::scope`, with one codec set per thread).

use super::{compress_into, Codec, CodecSet, LENGTH_PREFIX_BYTES};
use crate::error::{Error, Result};
use crate::ipc::message::CompressionCodec;

/// Runs the jobs of one body: each a buffer whose input and output room
/// are its own, so that they may run on any thread and in any order.
///
/// Implementations must run every job exactly once with a codec set whose
/// codecs produce the same bytes as the set that offered the executor (the
/// same level and options), and may do so on any thread and in any order.
pub trait BodyExecutor {
    /// Whether a body of `jobs` jobs (non-empty buffers) with `bytes` input
    /// bytes in all is worth handing to [`BodyExecutor::execute`]; when
    /// `false` the caller runs them itself, one after the other, as without
    /// an executor (small bodies: threads would cost more than they save).
    fn wants(&self, jobs: usize, bytes: usize) -> bool;

    /// Runs every job of `jobs` once ([`BodyJob::run`]).
    ///
    /// # Errors
    /// [`Error::ExecutorFailed`] when a worker could not run its jobs (a
    /// panic). A job's own failure is kept in the job and reported by the
    /// caller (for the first failing buffer in body order).
    fn execute(&mut self, jobs: &mut [BodyJob<'_>]) -> Result<()>;
}

/// Whether a job compresses or decompresses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Direction {
    Compress,
    Decompress,
}

/// One buffer of a body to compress or decompress: input bytes in, output
/// bytes into room of its own. `Send`: it holds only the two slices.
#[derive(Debug)]
pub struct BodyJob<'j> {
    direction: Direction,
    codec: CompressionCodec,
    /// Position of the job among the body's jobs (checked after the run:
    /// an executor may not swap jobs).
    index: usize,
    input: &'j [u8],
    out: &'j mut [u8],
    /// `None` until run: the bytes written to `out`, or the error.
    outcome: Option<Result<usize>>,
}

impl<'j> BodyJob<'j> {
    /// A job compressing `input` with `codec` into `out` (the 8-byte
    /// length prefix, then the compressed stream or the raw bytes), which
    /// holds 8 bytes plus the larger of `input.len()` and the codec's bound.
    pub(crate) fn compress(
        codec: CompressionCodec,
        index: usize,
        input: &'j [u8],
        out: &'j mut [u8],
    ) -> Self {
        Self::new(Direction::Compress, codec, index, input, out)
    }

    /// A job decompressing the stream `input` with `codec` into all of
    /// `out` (its declared length).
    pub(crate) fn decompress(
        codec: CompressionCodec,
        index: usize,
        input: &'j [u8],
        out: &'j mut [u8],
    ) -> Self {
        Self::new(Direction::Decompress, codec, index, input, out)
    }

    fn new(
        direction: Direction,
        codec: CompressionCodec,
        index: usize,
        input: &'j [u8],
        out: &'j mut [u8],
    ) -> Self {
        BodyJob {
            direction,
            codec,
            index,
            input,
            out,
            outcome: None,
        }
    }

    /// The job's size, in bytes: its uncompressed length (the input of a
    /// compression, the output of a decompression), what its time grows
    /// with; executors balance their threads by it.
    pub fn cost(&self) -> usize {
        match self.direction {
            Direction::Compress => self.input.len(),
            Direction::Decompress => self.out.len(),
        }
    }

    /// Whether the job has run.
    pub fn is_done(&self) -> bool {
        self.outcome.is_some()
    }

    /// Runs the job with the codec `codecs` holds for it; the outcome is
    /// kept in the job (a codec missing from `codecs` is
    /// [`Error::Lz4CodecMissing`] or [`Error::ZstdCodecMissing`]).
    pub fn run(&mut self, codecs: &mut dyn CodecSet) {
        let outcome = match codecs.get(self.codec) {
            None => Err(super::missing(self.codec)),
            Some(c) => match self.direction {
                Direction::Compress => compress_into(c, self.input, self.out),
                Direction::Decompress => decompress_exact(c, self.input, self.out),
            },
        };
        self.outcome = Some(outcome);
    }

    /// The outcome of the job at position `index` (bytes written).
    ///
    /// # Errors
    /// The job's error; [`Error::ExecutorFailed`] when it was not run or
    /// was moved from its position.
    pub(crate) fn outcome(&self, index: usize) -> Result<usize> {
        if self.index != index {
            return Err(Error::ExecutorFailed);
        }
        self.outcome.unwrap_or(Err(Error::ExecutorFailed))
    }
}

/// Decompresses `input` into all of `out`.
fn decompress_exact(codec: &mut dyn Codec, input: &[u8], out: &mut [u8]) -> Result<usize> {
    let n = codec.decompress(input, out)?;
    if n != out.len() {
        return Err(Error::DecompressedSizeMismatch);
    }
    Ok(n)
}

/// Room, in bytes, that compressing a buffer of `n` bytes needs in a body
/// aligned to `alignment` (a power of two): the length prefix plus the
/// larger of `n` and the codec's bound, padded; 0 for an empty buffer.
///
/// # Errors
/// [`Error::CapacityOverflow`].
pub(crate) fn room(codec: &dyn Codec, n: usize, alignment: usize) -> Result<usize> {
    if n == 0 {
        return Ok(0);
    }
    let room = codec
        .max_compressed_len(n)?
        .max(n)
        .checked_add(LENGTH_PREFIX_BYTES)
        .and_then(|r| r.checked_add(alignment - 1))
        .ok_or(Error::CapacityOverflow)?;
    Ok(room & !(alignment - 1))
}

/// Runs `jobs` one after the other with `codecs` (the path without an
/// executor, and what a test executor can compare with).
pub fn run_sequentially(jobs: &mut [BodyJob<'_>], codecs: &mut dyn CodecSet) {
    for j in jobs {
        j.run(codecs);
    }
}
