//! A `no_std` Zstandard *decoder* for the `ZSTD` codec of Arrow IPC body
//! compression (feature `zstd-decode`), so that a firmware or wasm build can
//! read ZSTD-compressed streams and files. It wraps the pure-Rust
//! [`ruzstd`] frame decoder; compression is left to a plug-in [`Codec`]
//! (the std shim's `ZstdCodec` binds the reference library).
//!
//! # Memory
//!
//! Unlike the rest of the core, `ruzstd` allocates through the `alloc`
//! crate: a build with this feature needs a global allocator
//! (`#[global_allocator]`) at link time, and an allocation failure inside the
//! decoder aborts (`handle_alloc_error`) rather than returning
//! [`Error::AllocationFailed`]. What it allocates is bounded: the window of
//! history a frame declares (refused above [`ZstdDecoder::max_window_size`],
//! or above the buffer's declared length when that is larger) plus up to
//! [`CHUNK`] bytes of decoded data and its decoding tables; the allocation is
//! kept and reused for the next buffer. The decompressed buffers themselves
//! go through the reader's allocator `A`, as with every codec.
//!
//! # Checks
//!
//! [`ZstdDecoder::check_declared_len`] walks the frame and block headers
//! ([`super::zstd_frame::check_declared_len`]) before the reader allocates:
//! declared content sizes must equal the buffer's declared length, the
//! blocks must be able to produce it, truncation is found there.
//! [`Codec::decompress`] walks them again ([`super::zstd_frame::scan`])
//! before decoding, for what `ruzstd` itself lets through and the reference
//! library refuses: a block larger than its frame's `Block_Maximum_Size`
//! and reserved bits in a sequences section's modes byte. While
//! decoding, the output never grows past the caller's slice, each frame's
//! declared content size and its content checksum (xxh64) are verified, and
//! every malformation is an [`Error`], never a panic.
//!
//! # Stricter than libzstd on 64-bit little-endian hosts
//!
//! A Huffman-coded literals stream must be consumed exactly by its share of
//! the literals (RFC 8878 §4.2.2: otherwise "the decoding process is
//! considered faulty"); `ruzstd` refuses one that runs out of bits early
//! ([`Error::CorruptCompressedData`]). libzstd's fast Huffman decoder, its
//! default on 64-bit little-endian hosts, checks only the count of literals
//! each stream produced, and decodes the missing ones from bits past the
//! stream's beginning; its generic decoder (big-endian and 32-bit hosts)
//! refuses such a frame as this one does. So a frame like that
//! (`core/tests/data/zstd/`) is read by the std shim's readers on x86-64 and
//! refused here. No pure-Rust decoder tried (`ruzstd` 0.9.1,
//! `structured-zstd` 0.2.6, `rusty_zstd`, `zstd-zero`, `zstd-nostd`) gives
//! libzstd's bytes for it: the format leaves them undefined.

use core::fmt;

use ruzstd::decoding::errors::FrameDecoderError;
use ruzstd::decoding::{BlockDecodingStrategy, FrameDecoder};
use ruzstd::io::Read as _;

use super::zstd_frame::{self, MAGIC, SKIPPABLE_MAGIC};
use super::Codec;
use crate::error::{Error, Result};
use crate::ipc::message::CompressionCodec;

/// The default of [`ZstdDecoder::max_window_size`]: 8 MiB (window log 23,
/// what the reference library uses up to level 19 for inputs of unknown
/// size; frames with a known content size use a window no larger than it).
pub const DEFAULT_MAX_WINDOW_SIZE: u64 = 8 << 20;

/// How many bytes the decoder decodes ahead before handing them to the
/// output slice (beyond the window it must keep).
pub const CHUNK: usize = 128 << 10;

/// The `no_std` ZSTD [`Codec`]: decompresses any Zstandard stream
/// (concatenated and skippable frames, with or without content size and
/// checksum; no dictionaries). [`Codec::compress`] returns
/// [`Error::UnsupportedType`]: a writer asked for ZSTD with only this codec
/// is refused when it is created.
pub struct ZstdDecoder {
    decoder: FrameDecoder,
    max_window_size: u64,
}

impl ZstdDecoder {
    /// A decoder accepting windows up to [`DEFAULT_MAX_WINDOW_SIZE`]
    /// (nothing is allocated until the first buffer).
    pub fn new() -> Self {
        Self::with_max_window_size(DEFAULT_MAX_WINDOW_SIZE)
    }

    /// A decoder accepting frames whose window is at most `bytes`, or at
    /// most the declared length of the buffer being decoded when that is
    /// larger (a frame never needs more history than its content).
    pub fn with_max_window_size(bytes: u64) -> Self {
        ZstdDecoder {
            decoder: FrameDecoder::new(),
            max_window_size: bytes,
        }
    }

    /// The largest window in bytes accepted beyond the buffer's own length.
    pub fn max_window_size(&self) -> u64 {
        self.max_window_size
    }

    /// Decodes the Zstandard frame at the start of `*src` into
    /// `out[*pos..]`, advancing both.
    fn frame(&mut self, src: &mut &[u8], out: &mut [u8], pos: &mut usize) -> Result<()> {
        let header = zstd_frame::read_frame_header(src)?;
        let window_limit = self.max_window_size.max(out.len() as u64);
        if header.window_size > window_limit {
            return Err(Error::LimitExceeded);
        }
        self.decoder.set_max_window_size(window_limit);
        self.decoder.reset(&mut *src).map_err(map_error)?;
        let start = *pos;
        loop {
            self.decoder
                .decode_blocks(&mut *src, BlockDecodingStrategy::UptoBytes(CHUNK))
                .map_err(map_error)?;
            let dst = out.get_mut(*pos..).ok_or(Error::OutOfBounds)?;
            let n = self
                .decoder
                .read(dst)
                .map_err(|_| Error::CorruptCompressedData)?;
            *pos += n;
            if self.decoder.can_collect() > 0 {
                // More content than the output holds.
                return Err(Error::DecompressedSizeMismatch);
            }
            if self.decoder.is_finished() {
                break;
            }
        }
        let produced = (*pos - start) as u64;
        if header.content_size.is_some_and(|c| c != produced) {
            return Err(Error::DecompressedSizeMismatch);
        }
        if header.checksum {
            let stored = self.decoder.get_checksum_from_data();
            if stored.is_none() || stored != self.decoder.get_calculated_checksum() {
                return Err(Error::CompressedChecksumMismatch);
            }
        }
        Ok(())
    }
}

fn map_error(e: FrameDecoderError) -> Error {
    match e {
        FrameDecoderError::WindowSizeTooBig { .. } => Error::LimitExceeded,
        _ => Error::CorruptCompressedData,
    }
}

impl Default for ZstdDecoder {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for ZstdDecoder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ZstdDecoder")
            .field("max_window_size", &self.max_window_size)
            .finish_non_exhaustive()
    }
}

impl Codec for ZstdDecoder {
    fn codec(&self) -> CompressionCodec {
        CompressionCodec::Zstd
    }

    /// # Errors
    /// Always [`Error::UnsupportedType`]: this codec only decodes.
    fn max_compressed_len(&self, _input_len: usize) -> Result<usize> {
        Err(Error::UnsupportedType)
    }

    /// # Errors
    /// Always [`Error::UnsupportedType`]: this codec only decodes.
    fn compress(&mut self, _input: &[u8], _out: &mut [u8]) -> Result<usize> {
        Err(Error::UnsupportedType)
    }

    fn can_compress(&self) -> bool {
        false
    }

    /// Decodes every frame of `input` (skipping skippable frames) into
    /// `out`.
    ///
    /// # Errors
    /// [`Error::DecompressedSizeMismatch`] when the content would overflow
    /// `out` or differs from a frame's declared content size;
    /// [`Error::CompressedChecksumMismatch`] for a wrong content checksum;
    /// [`Error::LimitExceeded`] for a window above the limit (see
    /// [`ZstdDecoder::with_max_window_size`]); [`Error::CorruptCompressedData`]
    /// for anything malformed (bad magic, truncation, a dictionary frame,
    /// invalid entropy tables or sequences), and for an `input` without any
    /// frame; [`Error::ZstdBlockTooLarge`] and [`Error::ZstdReservedBitsSet`]
    /// for the block structure errors [`zstd_frame::scan`] finds before
    /// anything is decoded.
    fn decompress(&mut self, input: &[u8], out: &mut [u8]) -> Result<usize> {
        // `ruzstd` accepts blocks above the frame's Block_Maximum_Size and
        // reserved bits in the sequences' modes byte, which the reference
        // library refuses: the block structure is checked here first.
        zstd_frame::scan(input)?;
        let mut src = input;
        let mut pos = 0usize;
        let mut frames = 0usize;
        while !src.is_empty() {
            let magic = zstd_frame::u32_at(src, 0)?;
            if magic & 0xFFFF_FFF0 == SKIPPABLE_MAGIC {
                let len = zstd_frame::u32_at(src, 4)? as usize;
                src = src
                    .get(8usize.saturating_add(len)..)
                    .ok_or(Error::CorruptCompressedData)?;
                continue;
            }
            if magic != MAGIC {
                return Err(Error::CorruptCompressedData);
            }
            self.frame(&mut src, out, &mut pos)?;
            frames += 1;
        }
        if frames == 0 {
            return Err(Error::CorruptCompressedData);
        }
        Ok(pos)
    }

    /// [`zstd_frame::check_declared_len`] with this decoder's window limit.
    fn check_declared_len(&mut self, input: &[u8], declared_len: usize) -> Result<()> {
        zstd_frame::check_declared_len(input, declared_len, self.max_window_size)
    }
}

#[cfg(test)]
#[path = "zstd_decode_tests.rs"]
mod tests;
