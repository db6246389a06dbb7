//! The LZ4 frame format, the `LZ4_FRAME` codec of Arrow IPC body compression.
//!
//! The spec text says the lz4 codec "refers to the LZ4 frame format, not the
//! raw (block) format". A frame is
//!
//! ```text
//! magic 0x184D2204 (u32 LE)
//! FLG  bits 7-6 version (01), 5 block independence, 4 block checksum,
//!      3 content size, 2 content checksum, 1 reserved (0), 0 dictionary id
//! BD   bits 6-4 block maximum size (4: 64 KiB, 5: 256 KiB, 6: 1 MiB, 7: 4 MiB),
//!      other bits reserved (0)
//! [content size, u64 LE]  [dictionary id, u32 LE]
//! HC   (xxh32(FLG ..= last descriptor byte, seed 0) >> 8) & 0xFF
//! blocks: size u32 LE (bit 31 set: stored uncompressed), the data,
//!         [xxh32(data, 0), u32 LE]
//! end mark 0x00000000
//! [content checksum: xxh32(all decompressed content, 0), u32 LE]
//! ```
//!
//! Blocks are LZ4 blocks (decoded by `lz4_flex`'s `no_std` block API, in
//! its safe variant). With block independence off ("linked blocks", the
//! reference library's default and what pyarrow writes) a block may copy from
//! the 64 KiB of content decoded before it in the same frame: the decoder
//! writes straight into the output slice and hands that earlier output to the
//! block decoder as its dictionary.
//!
//! The decoder accepts every flag combination, concatenated frames and
//! skippable frames (magic 0x184D2A50–0x184D2A5F, skipped). A dictionary id
//! is accepted and ignored: a block that refers to a dictionary fails as
//! corrupt. Every malformation is an [`Error`], never a panic, and decoding
//! never writes past the caller's slice.
//!
//! The encoder ([`Lz4FrameCodec`]) writes independent blocks of up to
//! [`FrameOptions::block_size`] and the content size; content and block
//! checksums are options (off by default, as in the reference library's
//! default preferences, Arrow C++/pyarrow and arrow-rs). It stores a block
//! uncompressed when LZ4 does not shrink it.

use core::fmt;
use core::hash::Hasher;

use allocator_api2::alloc::Allocator;
use lz4_flex::block::{self as lz4_block, CompressTable, DecompressError};
use twox_hash::XxHash32;

use super::Codec;
use crate::buffer::{Buffer, MutableBuffer};
use crate::error::{Error, Result};
use crate::ipc::message::CompressionCodec;

/// The magic number that opens an LZ4 frame (little-endian on the wire).
pub const MAGIC: u32 = 0x184D_2204;
/// The magic numbers of skippable frames are `SKIPPABLE_MAGIC..=SKIPPABLE_MAGIC + 15`.
pub const SKIPPABLE_MAGIC: u32 = 0x184D_2A50;

const FLG_VERSION_MASK: u8 = 0xC0;
const FLG_VERSION_01: u8 = 0x40;
const FLG_BLOCK_INDEPENDENT: u8 = 0x20;
const FLG_BLOCK_CHECKSUM: u8 = 0x10;
const FLG_CONTENT_SIZE: u8 = 0x08;
const FLG_CONTENT_CHECKSUM: u8 = 0x04;
const FLG_RESERVED: u8 = 0x02;
const FLG_DICT_ID: u8 = 0x01;
const BD_RESERVED: u8 = 0x8F;
const BLOCK_UNCOMPRESSED: u32 = 0x8000_0000;
/// How far back an LZ4 match may reach (the dictionary of a linked block).
const WINDOW: usize = 64 * 1024;
/// The most one byte of an LZ4 block can expand to (a match-length byte of 255).
const MAX_EXPANSION: usize = 255;
/// Magic, FLG, BD, content size, dictionary id, header checksum.
const MAX_HEADER_LEN: usize = 4 + 2 + 8 + 4 + 1;

/// The largest block a frame may hold (the BD byte's "block maximum size").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BlockSize {
    /// 64 KiB (id 4), the reference library's default.
    #[default]
    Max64KiB,
    /// 256 KiB (id 5).
    Max256KiB,
    /// 1 MiB (id 6).
    Max1MiB,
    /// 4 MiB (id 7).
    Max4MiB,
}

impl BlockSize {
    /// The size in bytes.
    pub const fn bytes(self) -> usize {
        match self {
            BlockSize::Max64KiB => 64 << 10,
            BlockSize::Max256KiB => 256 << 10,
            BlockSize::Max1MiB => 1 << 20,
            BlockSize::Max4MiB => 4 << 20,
        }
    }

    const fn id(self) -> u8 {
        match self {
            BlockSize::Max64KiB => 4,
            BlockSize::Max256KiB => 5,
            BlockSize::Max1MiB => 6,
            BlockSize::Max4MiB => 7,
        }
    }

    const fn from_id(id: u8) -> Option<Self> {
        match id {
            4 => Some(BlockSize::Max64KiB),
            5 => Some(BlockSize::Max256KiB),
            6 => Some(BlockSize::Max1MiB),
            7 => Some(BlockSize::Max4MiB),
            _ => None,
        }
    }
}

/// What the encoder writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameOptions {
    /// Largest block (the input is cut into blocks of this size). Default 64 KiB.
    pub block_size: BlockSize,
    /// Write the content size in the header. Default `true`.
    pub content_size: bool,
    /// Write an xxHash32 of the content after the end mark. Default `false`
    /// (the reference library's default preferences; what pyarrow and
    /// arrow-rs write): the hash costs about as much as decompressing
    /// again, and IPC readers validate the decoded arrays anyway.
    pub content_checksum: bool,
    /// Write an xxHash32 after every block. Default `false`.
    pub block_checksum: bool,
}

impl Default for FrameOptions {
    fn default() -> Self {
        FrameOptions {
            block_size: BlockSize::Max64KiB,
            content_size: true,
            content_checksum: false,
            block_checksum: false,
        }
    }
}

/// The decoded frame descriptor of one LZ4 frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameHeader {
    /// The largest block the frame may hold.
    pub block_size: BlockSize,
    /// `false` when blocks may refer to the content of earlier blocks.
    pub block_independent: bool,
    /// Every block is followed by its xxHash32.
    pub block_checksum: bool,
    /// The content is followed by its xxHash32.
    pub content_checksum: bool,
    /// The declared content size in bytes, if present.
    pub content_size: Option<u64>,
    /// The declared dictionary id, if present.
    pub dict_id: Option<u32>,
    /// Bytes from the magic number to the end of the header checksum.
    pub header_len: usize,
}

/// Takes `n` bytes at `*pos`, or fails as corrupt (truncated) input.
fn take<'b>(input: &'b [u8], pos: &mut usize, n: usize) -> Result<&'b [u8]> {
    let end = pos.checked_add(n).ok_or(Error::CorruptCompressedData)?;
    let s = input.get(*pos..end).ok_or(Error::CorruptCompressedData)?;
    *pos = end;
    Ok(s)
}

fn read_u32(input: &[u8], pos: &mut usize) -> Result<u32> {
    let b: [u8; 4] = take(input, pos, 4)?
        .try_into()
        .map_err(|_| Error::CorruptCompressedData)?;
    Ok(u32::from_le_bytes(b))
}

fn read_u64(input: &[u8], pos: &mut usize) -> Result<u64> {
    let b: [u8; 8] = take(input, pos, 8)?
        .try_into()
        .map_err(|_| Error::CorruptCompressedData)?;
    Ok(u64::from_le_bytes(b))
}

fn is_skippable(magic: u32) -> bool {
    magic & 0xFFFF_FFF0 == SKIPPABLE_MAGIC
}

/// Decodes and checks the frame header at the start of `input` (which starts
/// with the magic number).
///
/// # Errors
/// [`Error::CorruptCompressedData`]: truncated header, wrong magic, version
/// other than 01, a reserved bit set, an unknown block size, or a header
/// checksum that does not match.
pub fn read_frame_header(input: &[u8]) -> Result<FrameHeader> {
    let mut pos = 0;
    if read_u32(input, &mut pos)? != MAGIC {
        return Err(Error::CorruptCompressedData);
    }
    let descriptor_start = pos;
    let flg_bd = take(input, &mut pos, 2)?;
    let (flg, bd) = match flg_bd {
        [flg, bd] => (*flg, *bd),
        _ => return Err(Error::CorruptCompressedData),
    };
    if flg & FLG_VERSION_MASK != FLG_VERSION_01 || flg & FLG_RESERVED != 0 || bd & BD_RESERVED != 0
    {
        return Err(Error::CorruptCompressedData);
    }
    let block_size = BlockSize::from_id(bd >> 4).ok_or(Error::CorruptCompressedData)?;
    let content_size = if flg & FLG_CONTENT_SIZE != 0 {
        Some(read_u64(input, &mut pos)?)
    } else {
        None
    };
    let dict_id = if flg & FLG_DICT_ID != 0 {
        Some(read_u32(input, &mut pos)?)
    } else {
        None
    };
    let descriptor = input
        .get(descriptor_start..pos)
        .ok_or(Error::CorruptCompressedData)?;
    let hc = take(input, &mut pos, 1)?;
    let expected = (XxHash32::oneshot(0, descriptor) >> 8) as u8;
    if hc != [expected] {
        return Err(Error::CorruptCompressedData);
    }
    Ok(FrameHeader {
        block_size,
        block_independent: flg & FLG_BLOCK_INDEPENDENT != 0,
        block_checksum: flg & FLG_BLOCK_CHECKSUM != 0,
        content_checksum: flg & FLG_CONTENT_CHECKSUM != 0,
        content_size,
        dict_id,
        header_len: pos,
    })
}

/// What a walk over the frames of an input found, without decoding blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameScan {
    /// The sum of the declared content sizes when every frame declares one.
    pub content_size: Option<u64>,
    /// The most the frames can decode to (block sizes, uncompressed blocks,
    /// and LZ4's maximum expansion of 255 bytes per input byte).
    pub max_content_size: u64,
}

/// Walks the frames of `input` (headers and block headers only; no block is
/// decoded and no checksum is verified): O(number of blocks), no allocation.
///
/// # Errors
/// [`Error::CorruptCompressedData`] for a malformed header, a block larger
/// than the frame's block size, truncated input, trailing bytes that are not
/// a frame, or an input without any LZ4 frame.
pub fn scan(input: &[u8]) -> Result<FrameScan> {
    let mut pos = 0;
    let mut frames = 0usize;
    let mut declared = Some(0u64);
    let mut max = 0u64;
    while pos < input.len() || frames == 0 {
        let Some(hdr) = next_frame(input, &mut pos)? else {
            continue;
        };
        frames += 1;
        declared = match (declared, hdr.content_size) {
            (Some(d), Some(c)) => d.checked_add(c),
            _ => None,
        };
        let block_max = hdr.block_size.bytes();
        loop {
            let word = read_u32(input, &mut pos)?;
            if word == 0 {
                break;
            }
            let size = (word & !BLOCK_UNCOMPRESSED) as usize;
            if size > block_max {
                return Err(Error::CorruptCompressedData);
            }
            take(input, &mut pos, size)?;
            if hdr.block_checksum {
                take(input, &mut pos, 4)?;
            }
            let out = if word & BLOCK_UNCOMPRESSED != 0 {
                size
            } else {
                size.saturating_mul(MAX_EXPANSION).min(block_max)
            };
            max = max.saturating_add(out as u64);
        }
        if hdr.content_checksum {
            take(input, &mut pos, 4)?;
        }
    }
    Ok(FrameScan {
        content_size: declared,
        max_content_size: max,
    })
}

/// Where decoded content goes: a fixed caller slice or a growing buffer.
trait Output {
    /// Makes `want` bytes from `at` writable if the output allows (a slice
    /// does nothing; a growing buffer grows, up to its limit).
    fn prepare(&mut self, at: usize, want: usize) -> Result<()>;
    /// Everything written so far and the room prepared after it.
    fn bytes(&mut self) -> &mut [u8];
    /// The error for content that does not fit.
    fn overflow(&self) -> Error;
}

impl Output for &mut [u8] {
    fn prepare(&mut self, _at: usize, _want: usize) -> Result<()> {
        Ok(())
    }
    fn bytes(&mut self) -> &mut [u8] {
        self
    }
    fn overflow(&self) -> Error {
        Error::DecompressedSizeMismatch
    }
}

/// A [`MutableBuffer`] that grows block by block up to `limit` bytes.
struct Growing<A: Allocator> {
    buf: MutableBuffer<A>,
    limit: usize,
}

impl<A: Allocator> Output for Growing<A> {
    fn prepare(&mut self, at: usize, want: usize) -> Result<()> {
        let target = at.saturating_add(want).min(self.limit);
        let len = self.buf.len();
        if target <= len {
            return Ok(());
        }
        if target > self.buf.capacity() {
            // Grow geometrically, but never past the limit.
            let doubled = self.buf.capacity().saturating_mul(2).min(self.limit);
            self.buf.try_reserve_exact(target.max(doubled) - len)?;
        }
        self.buf.try_extend_zeros(target - len)
    }
    fn bytes(&mut self) -> &mut [u8] {
        self.buf.as_slice_mut()
    }
    fn overflow(&self) -> Error {
        Error::LimitExceeded
    }
}

/// Reads the frame at `pos` of `input`: a skippable frame is skipped
/// (`None`, `pos` after it); an LZ4 frame gives its header (`pos` after the
/// header, at the first block).
///
/// # Errors
/// [`Error::CorruptCompressedData`] when `pos` is past the end or the frame
/// (or its header) is cut short or malformed.
fn next_frame(input: &[u8], pos: &mut usize) -> Result<Option<FrameHeader>> {
    let rest = input.get(*pos..).ok_or(Error::CorruptCompressedData)?;
    let magic = read_u32(rest, &mut 0)?;
    if is_skippable(magic) {
        *pos += 4;
        let size = read_u32(input, pos)? as usize;
        take(input, pos, size)?;
        return Ok(None);
    }
    let hdr = read_frame_header(rest)?;
    *pos += hdr.header_len;
    Ok(Some(hdr))
}

/// Decodes every frame of `input` into `out` from offset 0; returns the
/// number of content bytes.
fn decode_frames<O: Output>(input: &[u8], out: &mut O) -> Result<usize> {
    let mut pos = 0;
    let mut at = 0;
    let mut frames = 0usize;
    while pos < input.len() || frames == 0 {
        let Some(hdr) = next_frame(input, &mut pos)? else {
            continue;
        };
        at = decode_frame(&hdr, input, &mut pos, out, at)?;
        frames += 1;
    }
    Ok(at)
}

/// Decodes the blocks of one frame (after its header) at `*pos`, writing from
/// `start`; returns the end of the content written.
fn decode_frame<O: Output>(
    hdr: &FrameHeader,
    input: &[u8],
    pos: &mut usize,
    out: &mut O,
    start: usize,
) -> Result<usize> {
    // With a declared content size, the frame may not write past `frame_end`.
    let frame_end = match hdr.content_size {
        Some(declared) => {
            let declared = usize::try_from(declared).map_err(|_| out.overflow())?;
            out.prepare(start, declared)?;
            if declared > out.bytes().len().saturating_sub(start) {
                return Err(out.overflow());
            }
            Some(start + declared)
        }
        None => None,
    };
    let block_max = hdr.block_size.bytes();
    let mut hasher = XxHash32::with_seed(0);
    let mut at = start;
    loop {
        let word = read_u32(input, pos)?;
        if word == 0 {
            break;
        }
        let stored = word & BLOCK_UNCOMPRESSED != 0;
        let size = (word & !BLOCK_UNCOMPRESSED) as usize;
        if size > block_max {
            return Err(Error::CorruptCompressedData);
        }
        let data = take(input, pos, size)?;
        if hdr.block_checksum && read_u32(input, pos)? != XxHash32::oneshot(0, data) {
            return Err(Error::CompressedChecksumMismatch);
        }
        let mut want = if stored {
            size
        } else {
            size.saturating_mul(MAX_EXPANSION).min(block_max)
        };
        if let Some(end) = frame_end {
            want = want.min(end - at);
        }
        out.prepare(at, want)?;
        // The window the block may fill, and the error when it overflows it.
        let mut too_small = out.overflow();
        let bytes = out.bytes();
        let (before, after) = bytes
            .split_at_mut_checked(at)
            .ok_or(Error::DecompressedSizeMismatch)?;
        let mut window_len = after.len().min(block_max);
        if let Some(end) = frame_end {
            if end - at < window_len {
                window_len = end - at;
                too_small = Error::DecompressedSizeMismatch;
            }
        }
        let window = after.get_mut(..window_len).ok_or(too_small)?;
        let n = if stored {
            window
                .get_mut(..size)
                .ok_or(too_small)?
                .copy_from_slice(data);
            size
        } else {
            let r = if hdr.block_independent {
                lz4_block::decompress_into(data, window)
            } else {
                let dict_from = start.max(at.saturating_sub(WINDOW));
                let dict = before
                    .get(dict_from..)
                    .ok_or(Error::CorruptCompressedData)?;
                lz4_block::decompress_into_with_dict(data, window, dict)
            };
            match r {
                Ok(n) => n,
                Err(DecompressError::OutputTooSmall { .. }) if window_len < block_max => {
                    return Err(too_small)
                }
                Err(_) => return Err(Error::CorruptCompressedData),
            }
        };
        if hdr.content_checksum {
            hasher.write(window.get(..n).ok_or(Error::CorruptCompressedData)?);
        }
        at += n;
    }
    if hdr.content_checksum && read_u32(input, pos)? != hasher.finish_32() {
        return Err(Error::CompressedChecksumMismatch);
    }
    if frame_end.is_some_and(|end| end != at) {
        return Err(Error::DecompressedSizeMismatch);
    }
    Ok(at)
}

/// Decodes the LZ4 frame(s) in `input` into the start of `out`; returns the
/// number of bytes written. Concatenated frames are decoded one after the
/// other; skippable frames are skipped. No allocation.
///
/// # Errors
/// [`Error::DecompressedSizeMismatch`] when the content does not fit `out`
/// or differs from a frame's declared content size;
/// [`Error::CompressedChecksumMismatch`] when a block or content checksum
/// differs; [`Error::CorruptCompressedData`] for any other malformation
/// (see [`read_frame_header`], truncation, invalid LZ4 sequences, a block
/// larger than the frame's block size, trailing bytes, no frame at all).
pub fn decompress_into(input: &[u8], out: &mut [u8]) -> Result<usize> {
    let mut out = out;
    decode_frames(input, &mut out)
}

/// Decodes the LZ4 frame(s) in `input` into a new 64-byte aligned buffer from
/// `alloc`, holding at most `limit` bytes. A frame that declares its content
/// size gets exactly that much memory (refused with
/// [`Error::LimitExceeded`] before allocating when above `limit`); otherwise
/// the buffer grows block by block, never by more than what the block just
/// read can expand to.
///
/// # Errors
/// [`Error::LimitExceeded`] when the content exceeds `limit`;
/// [`Error::AllocationFailed`]; the errors of [`decompress_into`].
pub fn decompress_to_buffer<A: Allocator>(
    input: &[u8],
    limit: usize,
    alloc: A,
) -> Result<Buffer<'static, A>> {
    let scan = scan(input)?;
    let mut out = Growing {
        buf: MutableBuffer::new_in(alloc),
        limit,
    };
    if let Some(n) = scan.content_size {
        match usize::try_from(n) {
            Ok(n) if n <= limit => out.buf.try_reserve_exact(n)?,
            _ => return Err(Error::LimitExceeded),
        }
    }
    let n = decode_frames(input, &mut out)?;
    out.buf.truncate(n);
    Ok(out.buf.into_buffer())
}

/// An upper bound in bytes of the frame [`Lz4FrameCodec::compress`] writes
/// for `input_len` bytes with `options`: the header, every block stored
/// uncompressed with its size and checksum, the end mark, the content
/// checksum, and the slack the block compressor needs for one block.
///
/// # Errors
/// [`Error::CapacityOverflow`].
pub fn max_compressed_len(input_len: usize, options: &FrameOptions) -> Result<usize> {
    let block = options.block_size.bytes();
    let blocks = input_len.div_ceil(block);
    let per_block = if options.block_checksum { 8 } else { 4 };
    let first = input_len.min(block);
    let slack = lz4_block::get_maximum_output_size(first) - first;
    blocks
        .checked_mul(per_block)
        .and_then(|b| b.checked_add(input_len))
        .and_then(|b| b.checked_add(MAX_HEADER_LEN + 8 + slack))
        .ok_or(Error::CapacityOverflow)
}

fn put(out: &mut [u8], pos: &mut usize, bytes: &[u8]) -> Result<()> {
    let end = pos.checked_add(bytes.len()).ok_or(Error::OutOfBounds)?;
    out.get_mut(*pos..end)
        .ok_or(Error::OutOfBounds)?
        .copy_from_slice(bytes);
    *pos = end;
    Ok(())
}

/// The LZ4 frame [`Codec`]: compresses with [`FrameOptions`] (independent
/// blocks), decompresses any frame (see [`decompress_into`]).
///
/// It keeps the block compressor's hash table (16 KiB for 64 KiB blocks, made
/// on the first compression), so place the codec where that memory should
/// live (a `static` on a firmware) rather than on a small stack. What it
/// writes for a buffer depends on that buffer and the options alone, not on
/// what it compressed before.
///
/// One IPC body buffer, framed (8-byte uncompressed length, then an LZ4
/// frame) and read back:
///
/// ```
/// use alkaid::buffer::MutableBuffer;
/// use alkaid::ipc::compression::lz4_frame::Lz4FrameCodec;
/// use alkaid::ipc::compression::{compress_buffer, decompress_buffer};
/// use alkaid::Global;
///
/// let mut codec = Lz4FrameCodec::new();
/// let input = [42u8; 4096];
/// let mut body = MutableBuffer::new_in(Global);
/// let n = compress_buffer(&mut codec, &input, &mut body)?;
/// assert!(n < 100); // 4096 equal bytes compress well
/// assert_eq!(&body.as_slice()[..8], &4096i64.to_le_bytes()); // the length prefix
///
/// let framed = body.into_buffer();
/// let back = decompress_buffer(&mut codec, &framed, 1 << 20, Global)?;
/// assert_eq!(back.as_slice(), &input[..]);
/// // A declared length above the caller's limit is refused before allocating.
/// assert!(decompress_buffer(&mut codec, &framed, 1024, Global).is_err()); // Error::LimitExceeded
/// # Ok::<(), alkaid::Error>(())
/// ```
pub struct Lz4FrameCodec {
    options: FrameOptions,
    table: Option<CompressTable>,
}

impl Lz4FrameCodec {
    /// A codec writing frames with [`FrameOptions::default`].
    pub fn new() -> Self {
        Self::with_options(FrameOptions::default())
    }

    /// A codec writing frames with `options`.
    pub fn with_options(options: FrameOptions) -> Self {
        Lz4FrameCodec {
            options,
            table: None,
        }
    }

    /// The options frames are written with.
    pub fn options(&self) -> &FrameOptions {
        &self.options
    }

    fn write_block(&mut self, chunk: &[u8], out: &mut [u8], pos: &mut usize) -> Result<()> {
        let size_at = *pos;
        put(out, pos, &[0; 4])?;
        let data_at = *pos;
        let mut compressed = None;
        // A block that does not leave the compressor its worst-case room, or
        // that LZ4 cannot shrink, is stored as is.
        let room = out.len().saturating_sub(data_at);
        if room >= lz4_block::get_maximum_output_size(chunk.len()) {
            // The table is the one the block's size calls for, whatever
            // the codec compressed before (lz4_flex hashes differently with
            // each, and turns a small table into a large one for a large
            // block): a buffer's bytes depend on the buffer alone, so
            // writers running one codec per thread write the same bytes.
            let small = chunk.len() < SMALL_TABLE_MAX;
            if self
                .table
                .as_ref()
                .is_some_and(|t| matches!(t, CompressTable::Small(_)) != small)
            {
                self.table = None;
            }
            let table = self.table.get_or_insert_with(|| {
                if small {
                    CompressTable::small()
                } else {
                    CompressTable::large()
                }
            });
            let dst = out.get_mut(data_at..).ok_or(Error::OutOfBounds)?;
            if let Ok(n) = lz4_block::compress_into_with_table(chunk, dst, table) {
                if n < chunk.len() {
                    compressed = Some(n);
                }
            }
        }
        let word = match compressed {
            Some(n) => {
                *pos = data_at + n;
                n as u32
            }
            None => {
                put(out, pos, chunk)?;
                chunk.len() as u32 | BLOCK_UNCOMPRESSED
            }
        };
        let mut p = size_at;
        put(out, &mut p, &word.to_le_bytes())?;
        if self.options.block_checksum {
            let data = out.get(data_at..*pos).ok_or(Error::OutOfBounds)?;
            let sum = XxHash32::oneshot(0, data);
            put(out, pos, &sum.to_le_bytes())?;
        }
        Ok(())
    }
}

/// Blocks shorter than this (in bytes) are compressed with lz4_flex's
/// small hash table (4,096 `u16` entries, 8 KiB), longer ones with the
/// large one (4,096 `u32` entries, 16 KiB). The choice depends on the
/// block alone, so a buffer's bytes do not depend on what the codec
/// compressed before. Measured: 10,000-byte buffers compress in half the
/// time with the large table (`ipc_compression`'s many-buffers case, 2.8 →
/// 1.4 ms/MB), so the small one is kept for the short buffers of a
/// firmware's batches, where its 8 KiB matter. On big-endian hosts the
/// small table is kept up to 64 KiB: lz4_flex 0.14's large-table hash
/// (`hash5`) reads the wrong 5 bytes there and finds fewer matches (a
/// 10,000-byte text compresses to 31% instead of under 25%), while the
/// small table's 4-byte hash is right on both byte orders.
const SMALL_TABLE_MAX: usize = if cfg!(target_endian = "big") {
    u16::MAX as usize
} else {
    4 * 1024
};

impl Default for Lz4FrameCodec {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for Lz4FrameCodec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Lz4FrameCodec")
            .field("options", &self.options)
            .field("table", &self.table.is_some())
            .finish()
    }
}

impl Codec for Lz4FrameCodec {
    fn codec(&self) -> CompressionCodec {
        CompressionCodec::Lz4Frame
    }

    fn max_compressed_len(&self, input_len: usize) -> Result<usize> {
        max_compressed_len(input_len, &self.options)
    }

    /// Writes one frame. Blocks that LZ4 does not shrink, or that `out` has
    /// no worst-case room for, are stored uncompressed.
    ///
    /// # Errors
    /// [`Error::OutOfBounds`] when `out` cannot hold the frame.
    fn compress(&mut self, input: &[u8], out: &mut [u8]) -> Result<usize> {
        let o = self.options;
        let mut flg = FLG_VERSION_01 | FLG_BLOCK_INDEPENDENT;
        if o.block_checksum {
            flg |= FLG_BLOCK_CHECKSUM;
        }
        if o.content_size {
            flg |= FLG_CONTENT_SIZE;
        }
        if o.content_checksum {
            flg |= FLG_CONTENT_CHECKSUM;
        }
        let mut pos = 0;
        put(out, &mut pos, &MAGIC.to_le_bytes())?;
        put(out, &mut pos, &[flg, o.block_size.id() << 4])?;
        if o.content_size {
            put(out, &mut pos, &(input.len() as u64).to_le_bytes())?;
        }
        let descriptor = out.get(4..pos).ok_or(Error::OutOfBounds)?;
        let hc = (XxHash32::oneshot(0, descriptor) >> 8) as u8;
        put(out, &mut pos, &[hc])?;
        for chunk in input.chunks(o.block_size.bytes()) {
            self.write_block(chunk, out, &mut pos)?;
        }
        put(out, &mut pos, &0u32.to_le_bytes())?;
        if o.content_checksum {
            put(out, &mut pos, &XxHash32::oneshot(0, input).to_le_bytes())?;
        }
        Ok(pos)
    }

    fn decompress(&mut self, input: &[u8], out: &mut [u8]) -> Result<usize> {
        decompress_into(input, out)
    }

    /// Walks the frames ([`scan`]): the declared content sizes, when present,
    /// must equal `declared_len`, and the blocks must be able to expand to it.
    fn check_declared_len(&mut self, input: &[u8], declared_len: usize) -> Result<()> {
        let scan = scan(input)?;
        let declared = declared_len as u64;
        if scan.content_size.is_some_and(|c| c != declared) || declared > scan.max_content_size {
            return Err(Error::DecompressedSizeMismatch);
        }
        Ok(())
    }
}

#[cfg(test)]
#[path = "lz4_frame_tests.rs"]
mod tests;
