//! Compression of IPC body buffers ("Serialization and Interprocess
//! Communication → Compression" of the columnar format; `BodyCompression` of
//! Message.fbs).
//!
//! When a record batch or dictionary batch carries a `compression` field,
//! every buffer of its body is compressed on its own with the same codec and
//! framed as
//!
//! ```text
//! [8 bytes]  uncompressed length, i64 little-endian
//!            (-1: the bytes that follow are stored uncompressed)
//! [n bytes]  the compressed stream (LZ4 frame or ZSTD frame), or the raw bytes
//! ```
//!
//! A buffer of length 0 is written as 0 bytes (no prefix) and read back as an
//! empty buffer; a prefix of 0 is also read as an empty buffer.
//!
//! [`Codec`] is the plug-in point for a compression implementation: the core
//! ships the LZ4 frame codec ([`lz4_frame::Lz4FrameCodec`], feature `lz4`)
//! and a ZSTD *decoder* (`zstd_decode::ZstdDecoder`, feature `zstd-decode`,
//! which needs a global allocator); the std shim adds a ZSTD codec that also
//! compresses, and any other implementation can be plugged in by implementing
//! the trait ([`CodecSet`], [`WithCodec`]). [`zstd_frame`] reads the structure
//! of ZSTD frames for any ZSTD codec's [`Codec::check_declared_len`]. [`compress_buffer`] and [`decompress_buffer`] add and check the
//! 8-byte framing around any codec; [`decompress_buffer`] refuses declared
//! lengths above a caller-set limit before allocating anything.

#[cfg(feature = "compression")]
mod jobs;
#[cfg(feature = "lz4")]
pub mod lz4_frame;
mod set;
#[cfg(feature = "zstd-decode")]
pub mod zstd_decode;
pub mod zstd_frame;

#[cfg(feature = "compression")]
pub(crate) use jobs::room;
#[cfg(feature = "compression")]
pub use jobs::{run_sequentially, BodyExecutor, BodyJob};
#[cfg(feature = "compression")]
pub(crate) use set::codec_of;
pub(crate) use set::missing;
pub use set::{BuiltinCodecs, CodecSet, WithCodec};

use allocator_api2::alloc::Allocator;

use crate::buffer::{Buffer, MutableBuffer};
use crate::error::{Error, Result};
use crate::ipc::message::CompressionCodec;

/// Size in bytes of the uncompressed-length prefix of every non-empty
/// compressed body buffer.
pub const LENGTH_PREFIX_BYTES: usize = 8;

/// The length prefix value that marks a buffer stored uncompressed.
pub const NO_COMPRESSION_LENGTH: i64 = -1;

/// A compression implementation for IPC body buffers.
///
/// The trait is object safe (`&mut dyn Codec`), so that a reader can hold one
/// codec per [`CompressionCodec`] and choose by the message's header. Methods
/// take `&mut self` so that an implementation can keep and reuse state (a hash
/// table, a ZSTD context) between buffers.
///
/// Implementations must treat the input of [`Codec::decompress`] as hostile:
/// return an error, never panic, never write past `out`.
pub trait Codec {
    /// The codec identifier written to (and expected in) the message's
    /// `BodyCompression` table.
    fn codec(&self) -> CompressionCodec;

    /// An upper bound in bytes of what [`Codec::compress`] writes for an input
    /// of `input_len` bytes.
    ///
    /// # Errors
    /// [`Error::CapacityOverflow`] when the bound does not fit `usize`.
    fn max_compressed_len(&self, input_len: usize) -> Result<usize>;

    /// Compresses `input` into the start of `out`, which holds at least
    /// [`Codec::max_compressed_len`]`(input.len())` bytes, and returns the
    /// number of bytes written. The output is one complete compressed stream
    /// (for LZ4, a frame) that [`Codec::decompress`] of any conforming
    /// implementation reads back.
    ///
    /// # Errors
    /// [`Error::OutOfBounds`] when `out` is too small; implementation errors.
    fn compress(&mut self, input: &[u8], out: &mut [u8]) -> Result<usize>;

    /// Decompresses the complete compressed stream `input` into the start of
    /// `out` and returns the number of bytes produced (at most `out.len()`).
    /// The caller sizes `out` to the declared uncompressed length and checks
    /// that the count returned equals it.
    ///
    /// # Errors
    /// [`Error::DecompressedSizeMismatch`] when the data would not fit `out`
    /// (or a size the stream declares differs from `out.len()`);
    /// [`Error::CorruptCompressedData`], [`Error::CompressedChecksumMismatch`]
    /// for malformed input.
    fn decompress(&mut self, input: &[u8], out: &mut [u8]) -> Result<usize>;

    /// A cheap plausibility check of a compressed stream against the length
    /// its buffer declares, made by [`decompress_buffer`] *before* it
    /// allocates `declared_len` bytes (for LZ4 frames: the frame headers'
    /// content sizes and the most the blocks can expand to). The default
    /// accepts everything.
    ///
    /// # Errors
    /// [`Error::DecompressedSizeMismatch`] when `input` cannot produce
    /// `declared_len` bytes; [`Error::CorruptCompressedData`] when its headers
    /// are malformed.
    fn check_declared_len(&mut self, input: &[u8], declared_len: usize) -> Result<()> {
        let _ = (input, declared_len);
        Ok(())
    }

    /// `false` for a decode-only implementation (whose [`Codec::compress`]
    /// always fails): writers refuse to be created with such a codec for
    /// their compression. The default is `true`.
    fn can_compress(&self) -> bool {
        true
    }
}

impl<C: Codec + ?Sized> Codec for &mut C {
    fn codec(&self) -> CompressionCodec {
        (**self).codec()
    }
    fn max_compressed_len(&self, input_len: usize) -> Result<usize> {
        (**self).max_compressed_len(input_len)
    }
    fn compress(&mut self, input: &[u8], out: &mut [u8]) -> Result<usize> {
        (**self).compress(input, out)
    }
    fn decompress(&mut self, input: &[u8], out: &mut [u8]) -> Result<usize> {
        (**self).decompress(input, out)
    }
    fn check_declared_len(&mut self, input: &[u8], declared_len: usize) -> Result<()> {
        (**self).check_declared_len(input, declared_len)
    }
    fn can_compress(&self) -> bool {
        (**self).can_compress()
    }
}

/// Appends `input` to `out` as one compressed body buffer: the 8-byte
/// little-endian uncompressed length, then the codec's stream. When the
/// stream would not be smaller than `input`, writes the length -1 and the raw
/// bytes instead; an empty `input` appends nothing. Returns the number of
/// bytes appended (the buffer's length in the message's `Buffer` entry;
/// padding to 8 bytes is the writer's business).
///
/// `out` temporarily grows by [`Codec::max_compressed_len`] + 8 bytes.
///
/// # Errors
/// [`Error::AllocationFailed`], [`Error::CapacityOverflow`], the codec's
/// errors. On error `out` is restored to its previous length.
pub fn compress_buffer<C: Codec + ?Sized, A: Allocator>(
    codec: &mut C,
    input: &[u8],
    out: &mut MutableBuffer<A>,
) -> Result<usize> {
    let start = out.len();
    match compress_buffer_at(codec, input, out, start) {
        Ok(n) => {
            out.truncate(start + n);
            Ok(n)
        }
        Err(e) => {
            out.truncate(start);
            Err(e)
        }
    }
}

/// [`compress_buffer`] writing at byte `at` of `out` rather than appending:
/// `out` is grown (never shrunk) to hold `at` + 8 + the codec's bound, the
/// framed buffer is written at `at..at + n` and `n` is returned. The bytes of
/// `out` after `at + n` are left as the codec left them (not zeroed), so a
/// caller reusing `out` for a sequence of buffers (the IPC writer's body)
/// tracks its own end and pays no zeroing for the codec's scratch room.
///
/// # Errors
/// As [`compress_buffer`]; `out` may have grown.
pub(crate) fn compress_buffer_at<C: Codec + ?Sized, A: Allocator>(
    codec: &mut C,
    input: &[u8],
    out: &mut MutableBuffer<A>,
    at: usize,
) -> Result<usize> {
    if input.is_empty() {
        return Ok(0);
    }
    let bound = codec.max_compressed_len(input.len())?;
    let end = at
        .checked_add(LENGTH_PREFIX_BYTES)
        .and_then(|e| e.checked_add(bound.max(input.len())))
        .ok_or(Error::CapacityOverflow)?;
    if end > out.len() {
        // Geometric growth, so that appending buffer after buffer
        // ([`compress_buffer`]) copies each byte O(1) times; a first
        // growth is exact. The IPC writer sizes `out` for the whole batch
        // beforehand and never grows it here. The bytes past the length
        // are already zero.
        out.try_extend_zeros(end - out.len())?;
    }
    let frame = out
        .as_slice_mut()
        .get_mut(at..end)
        .ok_or(Error::OutOfBounds)?;
    compress_into(codec, input, frame)
}

/// Frames `input` as one compressed body buffer at the start of `frame`
/// (which holds [`LENGTH_PREFIX_BYTES`] plus the larger of `input.len()`
/// and the codec's bound): the little-endian uncompressed length and the
/// codec's stream, or -1 and the raw bytes when the stream is not smaller;
/// nothing for an empty input. Returns the bytes written.
///
/// # Errors
/// [`Error::OutOfBounds`] when `frame` is too small;
/// [`Error::CapacityOverflow`]; the codec's errors.
pub(crate) fn compress_into<C: Codec + ?Sized>(
    codec: &mut C,
    input: &[u8],
    frame: &mut [u8],
) -> Result<usize> {
    if input.is_empty() {
        return Ok(0);
    }
    let declared = i64::try_from(input.len()).map_err(|_| Error::CapacityOverflow)?;
    let bound = codec.max_compressed_len(input.len())?;
    let (prefix, rest) = frame
        .split_at_mut_checked(LENGTH_PREFIX_BYTES)
        .ok_or(Error::OutOfBounds)?;
    let dst = rest.get_mut(..bound).ok_or(Error::OutOfBounds)?;
    let written = codec.compress(input, dst)?;
    if written > bound {
        return Err(Error::OutOfBounds);
    }
    if written < input.len() {
        prefix.copy_from_slice(&declared.to_le_bytes());
        Ok(LENGTH_PREFIX_BYTES + written)
    } else {
        prefix.copy_from_slice(&NO_COMPRESSION_LENGTH.to_le_bytes());
        rest.get_mut(..input.len())
            .ok_or(Error::OutOfBounds)?
            .copy_from_slice(input);
        Ok(LENGTH_PREFIX_BYTES + input.len())
    }
}

/// What the length prefix of a compressed body buffer says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BufferLength {
    /// The buffer is empty (0 bytes, or a prefix of 0).
    Empty,
    /// Prefix -1: this many raw bytes follow the prefix.
    Uncompressed(usize),
    /// This many bytes once decompressed (as declared; not yet checked).
    Compressed(u64),
}

/// Reads the length prefix of the compressed body buffer `input` (the
/// buffer's bytes as the message's `Buffer` entry delimits them).
///
/// # Errors
/// [`Error::CorruptCompressedData`] when `input` is 1–7 bytes long or the
/// prefix is below -1.
pub fn buffer_length(input: &[u8]) -> Result<BufferLength> {
    if input.is_empty() {
        return Ok(BufferLength::Empty);
    }
    let prefix: [u8; LENGTH_PREFIX_BYTES] = input
        .get(..LENGTH_PREFIX_BYTES)
        .and_then(|p| p.try_into().ok())
        .ok_or(Error::CorruptCompressedData)?;
    match i64::from_le_bytes(prefix) {
        0 => Ok(BufferLength::Empty),
        NO_COMPRESSION_LENGTH => Ok(BufferLength::Uncompressed(
            input.len() - LENGTH_PREFIX_BYTES,
        )),
        n => u64::try_from(n)
            .map(BufferLength::Compressed)
            .map_err(|_| Error::CorruptCompressedData),
    }
}

/// Decodes one compressed body buffer.
///
/// - empty input, or a prefix of 0: the empty buffer;
/// - prefix -1: the bytes after the prefix, shared with `input` without a
///   copy (they start 8 bytes into the buffer, so they are 8-byte aligned when
///   the buffer is);
/// - otherwise the declared length is checked against `limit` and against the
///   codec's [`Codec::check_declared_len`] *before* anything is allocated,
///   then the stream is decompressed into a new 64-byte aligned allocation
///   from `alloc`, which must be filled exactly.
///
/// # Errors
/// [`Error::LimitExceeded`] when the declared length exceeds `limit`;
/// [`Error::CorruptCompressedData`], [`Error::CompressedChecksumMismatch`],
/// [`Error::DecompressedSizeMismatch`] for malformed input;
/// [`Error::AllocationFailed`].
pub fn decompress_buffer<'a, C: Codec + ?Sized, A: Allocator>(
    codec: &mut C,
    input: &Buffer<'a, A>,
    limit: usize,
    alloc: A,
) -> Result<Buffer<'a, A>> {
    let len = match buffer_length(input.as_slice())? {
        BufferLength::Empty => return Ok(Buffer::empty()),
        BufferLength::Uncompressed(n) => return input.slice(LENGTH_PREFIX_BYTES, n),
        BufferLength::Compressed(n) => n,
    };
    let len = match usize::try_from(len) {
        Ok(n) if n <= limit => n,
        _ => return Err(Error::LimitExceeded),
    };
    let stream = input
        .as_slice()
        .get(LENGTH_PREFIX_BYTES..)
        .ok_or(Error::CorruptCompressedData)?;
    codec.check_declared_len(stream, len)?;
    let mut out = MutableBuffer::new_in(alloc);
    out.try_reserve_exact(len)?;
    out.try_extend_zeros(len)?;
    let produced = codec.decompress(stream, out.as_slice_mut())?;
    if produced != len {
        return Err(Error::DecompressedSizeMismatch);
    }
    Ok(out.into_buffer())
}

#[cfg(all(test, feature = "lz4"))]
#[path = "tests.rs"]
mod tests;
