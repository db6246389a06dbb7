//! The structure of Zstandard frames (RFC 8878, "Zstandard Compression and
//! the application/zstd Media Type", section 3.1), for the `ZSTD` codec of
//! Arrow IPC body compression: reading frame headers and walking the block
//! headers of a compressed stream *without decompressing it*, so that a
//! reader can check the length a buffer declares before it allocates it.
//!
//! ```text
//! frame:     magic 0xFD2FB528 (u32 LE)
//!            Frame_Header_Descriptor: bits 7-6 FCS_Field_Size flag,
//!                5 Single_Segment, 4 unused, 3 reserved (0), 2 Content_Checksum,
//!                1-0 Dictionary_ID flag
//!            [Window_Descriptor, 1 byte: exponent bits 7-3, mantissa bits 2-0;
//!             absent when Single_Segment]
//!            [Dictionary_ID: 0, 1, 2 or 4 bytes LE]
//!            [Frame_Content_Size: 0, 1, 2 (value + 256), 4 or 8 bytes LE]
//!            blocks: 3-byte header LE (bit 0 Last_Block, bits 2-1 Block_Type
//!                    0 raw / 1 RLE / 2 compressed / 3 reserved, bits 23-3
//!                    Block_Size), then Block_Size bytes (1 byte for RLE)
//!            [content checksum: low 32 bits of xxh64(content, 0), u32 LE]
//! skippable: magic 0x184D2A50..=0x184D2A5F, length u32 LE, that many bytes
//! ```
//!
//! A raw block holds `Block_Size` bytes of content, an RLE block repeats one
//! byte `Block_Size` times, a compressed block decompresses to at most
//! `Block_Maximum_Size = min(Window_Size, 128 KiB)`. Everything here is pure
//! parsing (no allocation, no dependency): the decoders are
//! `zstd_decode::ZstdDecoder` (feature `zstd-decode`) and the std
//! shim's `ZstdCodec`.

use crate::error::{Error, Result};

/// The magic number that opens a Zstandard frame (little-endian on the wire).
pub const MAGIC: u32 = 0xFD2F_B528;
/// The magic numbers of skippable frames are `SKIPPABLE_MAGIC..=SKIPPABLE_MAGIC + 15`.
pub const SKIPPABLE_MAGIC: u32 = 0x184D_2A50;
/// The largest content of one block, in bytes (128 KiB).
pub const MAX_BLOCK_SIZE: u64 = 128 << 10;
/// The largest window a frame may declare (window log 41 with mantissa 7).
pub const MAX_WINDOW_SIZE: u64 = (1 << 41) + 7 * (1 << 38);

const FHD_SINGLE_SEGMENT: u8 = 0x20;
const FHD_RESERVED: u8 = 0x08;
const FHD_CHECKSUM: u8 = 0x04;
const BLOCK_HEADER_LEN: usize = 3;
const CHECKSUM_LEN: usize = 4;

/// A frame header (everything from the magic to the first block header).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameHeader {
    /// Length in bytes of the header, magic included (6 to 18).
    pub header_len: usize,
    /// The window the decoder needs, in bytes: from the window descriptor,
    /// or the content size for a single-segment frame.
    pub window_size: u64,
    /// The declared decompressed size in bytes, when the header has one.
    pub content_size: Option<u64>,
    /// `Single_Segment`: the content is decoded as one segment and the
    /// window is the whole content.
    pub single_segment: bool,
    /// A 4-byte content checksum follows the last block.
    pub checksum: bool,
    /// The dictionary the frame needs (`None` for none, or id 0).
    pub dictionary_id: Option<u32>,
}

impl FrameHeader {
    /// The largest content of one block of this frame in bytes:
    /// `min(window_size, 128 KiB)`.
    pub fn block_maximum_size(&self) -> u64 {
        self.window_size.min(MAX_BLOCK_SIZE)
    }
}

fn le(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .rev()
        .fold(0u64, |acc, &b| (acc << 8) | u64::from(b))
}

/// The u32 LE at `at`; [`Error::CorruptCompressedData`] past the end.
pub(super) fn u32_at(input: &[u8], at: usize) -> Result<u32> {
    let b: [u8; 4] = input
        .get(at..at.saturating_add(4))
        .and_then(|b| b.try_into().ok())
        .ok_or(Error::CorruptCompressedData)?;
    Ok(u32::from_le_bytes(b))
}

/// Reads the header of the Zstandard frame at the start of `input` (magic
/// included).
///
/// # Errors
/// [`Error::CorruptCompressedData`] when `input` is too short, does not start
/// with [`MAGIC`], sets the reserved bit, or declares a window below 1 KiB
/// or above [`MAX_WINDOW_SIZE`].
pub fn read_frame_header(input: &[u8]) -> Result<FrameHeader> {
    if u32_at(input, 0)? != MAGIC {
        return Err(Error::CorruptCompressedData);
    }
    let fhd = *input.get(4).ok_or(Error::CorruptCompressedData)?;
    if fhd & FHD_RESERVED != 0 {
        return Err(Error::CorruptCompressedData);
    }
    let single_segment = fhd & FHD_SINGLE_SEGMENT != 0;
    let mut pos = 5;
    let mut window = None;
    if !single_segment {
        let wd = *input.get(pos).ok_or(Error::CorruptCompressedData)?;
        pos += 1;
        let log = 10 + u32::from(wd >> 3);
        let base = 1u64 << log;
        window = Some(base + (base / 8) * u64::from(wd & 7));
    }
    let dict_len = [0, 1, 2, 4][usize::from(fhd & 3)];
    let dict = le(input
        .get(pos..pos + dict_len)
        .ok_or(Error::CorruptCompressedData)?);
    pos += dict_len;
    let fcs_len = match fhd >> 6 {
        0 if single_segment => 1,
        0 => 0,
        1 => 2,
        2 => 4,
        _ => 8,
    };
    let fcs = le(input
        .get(pos..pos + fcs_len)
        .ok_or(Error::CorruptCompressedData)?);
    pos += fcs_len;
    let content_size = match fcs_len {
        0 => None,
        2 => Some(fcs + 256),
        _ => Some(fcs),
    };
    let window_size = match (window, content_size) {
        (Some(w), _) => {
            if !(1 << 10..=MAX_WINDOW_SIZE).contains(&w) {
                return Err(Error::CorruptCompressedData);
            }
            w
        }
        (None, Some(c)) => c,
        (None, None) => return Err(Error::CorruptCompressedData),
    };
    Ok(FrameHeader {
        header_len: pos,
        window_size,
        content_size,
        single_segment,
        checksum: fhd & FHD_CHECKSUM != 0,
        dictionary_id: u32::try_from(dict).ok().filter(|&d| d != 0),
    })
}

/// What [`scan`] found in a compressed stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FrameScan {
    /// Number of Zstandard frames (skippable frames not counted).
    pub frames: usize,
    /// The sum of the frames' declared content sizes, when every frame
    /// declares one.
    pub content_size: Option<u64>,
    /// The most the frames can decompress to, in bytes: raw and RLE blocks
    /// count their size, compressed blocks their frame's
    /// [`FrameHeader::block_maximum_size`] (and a frame at most its declared
    /// content size).
    pub max_content_size: u64,
    /// The largest window of any frame, in bytes.
    pub max_window_size: u64,
}

/// Walks the frames of `input` (Zstandard and skippable, concatenated) and
/// their block headers, without decompressing anything. O(number of blocks).
///
/// Inside each compressed block, the literals and sequences section headers
/// are read (not decoded) to check the reserved bits of the
/// `Symbol_Compression_Modes` byte (RFC 8878 section 3.1.1.3.2.1).
///
/// # Errors
/// [`Error::ZstdBlockTooLarge`] for a block whose `Block_Size` exceeds the
/// frame's `Block_Maximum_Size` (section 3.1.1.2.4);
/// [`Error::ZstdReservedBitsSet`] for reserved bits set in a sequences
/// section's modes byte; [`Error::CorruptCompressedData`] when `input` holds
/// no Zstandard frame, a header is malformed (see [`read_frame_header`]), a
/// block has the reserved type, a compressed block's section headers do not
/// fit in it, or the input ends inside a frame (truncation).
pub fn scan(input: &[u8]) -> Result<FrameScan> {
    let mut s = FrameScan {
        content_size: Some(0),
        ..FrameScan::default()
    };
    let mut rest = input;
    while !rest.is_empty() {
        let magic = u32_at(rest, 0)?;
        if magic & 0xFFFF_FFF0 == SKIPPABLE_MAGIC {
            let len = u32_at(rest, 4)? as usize;
            rest = rest
                .get(8usize.saturating_add(len)..)
                .ok_or(Error::CorruptCompressedData)?;
            continue;
        }
        let header = read_frame_header(rest)?;
        let (used, max) = scan_blocks(rest, &header)?;
        rest = rest.get(used..).ok_or(Error::CorruptCompressedData)?;
        let max = header.content_size.map_or(max, |c| c.min(max));
        s.frames += 1;
        s.max_content_size = s.max_content_size.saturating_add(max);
        s.max_window_size = s.max_window_size.max(header.window_size);
        s.content_size = match (s.content_size, header.content_size) {
            (Some(a), Some(b)) => a.checked_add(b),
            _ => None,
        };
    }
    if s.frames == 0 {
        return Err(Error::CorruptCompressedData);
    }
    Ok(s)
}

/// Walks the blocks of the frame at the start of `frame`: returns the
/// frame's length in bytes (checksum included) and the most it can
/// decompress to.
fn scan_blocks(frame: &[u8], header: &FrameHeader) -> Result<(usize, u64)> {
    let block_max = header.block_maximum_size();
    let mut pos = header.header_len;
    let mut max = 0u64;
    loop {
        let h = frame
            .get(pos..pos + BLOCK_HEADER_LEN)
            .ok_or(Error::CorruptCompressedData)?;
        let h = le(h);
        pos += BLOCK_HEADER_LEN;
        let last = h & 1 != 0;
        let size = h >> 3;
        let block_type = (h >> 1) & 3;
        let (stored, produced) = match block_type {
            0 => (size, size),
            1 => (1, size),
            2 => (size, block_max),
            _ => return Err(Error::CorruptCompressedData),
        };
        if size > block_max {
            return Err(Error::ZstdBlockTooLarge);
        }
        let end = pos
            .checked_add(stored as usize)
            .filter(|&p| p <= frame.len())
            .ok_or(Error::CorruptCompressedData)?;
        if block_type == 2 {
            check_compressed_block(frame.get(pos..end).ok_or(Error::CorruptCompressedData)?)?;
        }
        pos = end;
        max = max.saturating_add(produced);
        if last {
            break;
        }
    }
    if header.checksum {
        pos += CHECKSUM_LEN;
        if pos > frame.len() {
            return Err(Error::CorruptCompressedData);
        }
    }
    Ok((pos, max))
}

/// The `Size_Format` field of a literals section header (bits 3-2 of its
/// first byte).
const fn size_format(b0: u8) -> u8 {
    (b0 >> 2) & 3
}

/// Checks the headers inside one compressed block (`block`: its
/// `Block_Size` bytes): the literals section header (RFC 8878 section
/// 3.1.1.3.1.1) gives the length of the literals section; the sequences
/// section header after it (section 3.1.1.3.2.1) gives the number of
/// sequences and, when there are any, the `Symbol_Compression_Modes` byte,
/// whose two low bits are reserved and must be zero. O(1): nothing is
/// decoded.
///
/// # Errors
/// [`Error::ZstdReservedBitsSet`] for reserved mode bits;
/// [`Error::CorruptCompressedData`] when a header or the literals section
/// does not fit in the block.
fn check_compressed_block(block: &[u8]) -> Result<()> {
    let corrupt = Error::CorruptCompressedData;
    let b0 = *block.first().ok_or(corrupt)?;
    let header = |n: usize| block.get(..n).map(le).ok_or(corrupt);
    // (header length, length of the literals that follow it) in bytes.
    let (header_len, literals_len) = match b0 & 3 {
        // Raw (0) or RLE (1) literals: Regenerated_Size in 5, 12 or 20 bits.
        kind @ (0 | 1) => {
            let (n, regenerated) = match size_format(b0) {
                0 | 2 => (1, u64::from(b0 >> 3)),
                1 => (2, header(2)? >> 4),
                _ => (3, header(3)? >> 4),
            };
            (n, if kind == 0 { regenerated } else { 1 })
        }
        // Compressed (2) or treeless (3) literals: Regenerated_Size then
        // Compressed_Size, 10, 14 or 18 bits each.
        _ => {
            let (n, bits) = match size_format(b0) {
                0 | 1 => (3, 10),
                2 => (4, 14),
                _ => (5, 18),
            };
            (n, (header(n)? >> (4 + bits)) & ((1 << bits) - 1))
        }
    };
    let sequences = usize::try_from(literals_len)
        .ok()
        .and_then(|l| l.checked_add(header_len))
        .and_then(|start| block.get(start..))
        .ok_or(corrupt)?;
    // Number_of_Sequences: 1, 2 or 3 bytes; the modes byte follows unless
    // there are no sequences.
    let modes_at = match *sequences.first().ok_or(corrupt)? {
        0 => return Ok(()),
        1..=127 => 1,
        128..=254 => 2,
        255 => 3,
    };
    let modes = *sequences.get(modes_at).ok_or(corrupt)?;
    if modes & 3 != 0 {
        return Err(Error::ZstdReservedBitsSet);
    }
    Ok(())
}

/// Checks a ZSTD-compressed buffer against the uncompressed length it
/// declares, before anything is allocated: the frames' declared content
/// sizes, when all present, must add up to `declared_len`, their blocks must
/// be able to produce it, and no frame may need a window larger than
/// `max(max_window_size, declared_len)` (a decoder keeps a window of history;
/// pass `u64::MAX` for a decoder that writes straight into the output).
///
/// # Errors
/// [`Error::DecompressedSizeMismatch`] when the stream cannot produce
/// `declared_len` bytes; [`Error::LimitExceeded`] for a window above the
/// limit; [`Error::ZstdBlockTooLarge`], [`Error::ZstdReservedBitsSet`],
/// [`Error::CorruptCompressedData`] as [`scan`].
pub fn check_declared_len(input: &[u8], declared_len: usize, max_window_size: u64) -> Result<()> {
    let s = scan(input)?;
    let declared = declared_len as u64;
    if s.content_size.is_some_and(|c| c != declared) || s.max_content_size < declared {
        return Err(Error::DecompressedSizeMismatch);
    }
    if s.max_window_size > max_window_size.max(declared) {
        return Err(Error::LimitExceeded);
    }
    Ok(())
}

#[cfg(test)]
#[path = "zstd_frame_tests.rs"]
pub(crate) mod tests;
