//! Tests of the Zstandard frame walker on hand-made frames (RFC 8878 §3.1).

use super::*;
use std::vec;
use std::vec::Vec;

const M: [u8; 4] = MAGIC.to_le_bytes();

/// A 3-byte block header: `last | type << 1 | size << 3`, little-endian.
pub(crate) fn block_header(last: bool, ty: u32, size: u32) -> [u8; 3] {
    let v = u32::from(last) | (ty << 1) | (size << 3);
    let b = v.to_le_bytes();
    [b[0], b[1], b[2]]
}

/// A single-segment frame (1-byte content size) holding one raw block.
pub(crate) fn raw_frame(content: &[u8]) -> Vec<u8> {
    assert!(content.len() < 256);
    raw_frame_with(&[0x20, content.len() as u8], content)
}

/// A frame of the header `descriptor` (after the magic: descriptor byte,
/// window, dictionary id, content size) holding one raw block.
pub(crate) fn raw_frame_with(descriptor: &[u8], content: &[u8]) -> Vec<u8> {
    let mut f = M.to_vec();
    f.extend_from_slice(descriptor);
    f.extend_from_slice(&block_header(true, 0, content.len() as u32));
    f.extend_from_slice(content);
    f
}

/// A single-segment frame (1-byte content size) holding one RLE block.
pub(crate) fn rle_frame(byte: u8, n: u8) -> Vec<u8> {
    let mut f = M.to_vec();
    f.extend_from_slice(&[0x20, n]);
    f.extend_from_slice(&block_header(true, 1, u32::from(n)));
    f.push(byte);
    f
}

#[test]
fn single_segment_header_with_one_byte_content_size() {
    let h = read_frame_header(&[0x28, 0xB5, 0x2F, 0xFD, 0x20, 5]).unwrap();
    assert_eq!(
        h,
        FrameHeader {
            header_len: 6,
            window_size: 5,
            content_size: Some(5),
            single_segment: true,
            checksum: false,
            dictionary_id: None,
        }
    );
    assert_eq!(h.block_maximum_size(), 5);
}

#[test]
fn window_descriptor_exponent_and_mantissa() {
    // No content size, no checksum; window log 10 + 0: 1 KiB.
    let h = read_frame_header(&[0x28, 0xB5, 0x2F, 0xFD, 0x00, 0x00]).unwrap();
    assert_eq!(
        (h.header_len, h.window_size, h.content_size),
        (6, 1024, None)
    );
    assert!(!h.single_segment);
    // 0x5B: exponent 11 (log 21, 2 MiB), mantissa 3: + 3 × 256 KiB.
    let h = read_frame_header(&[0x28, 0xB5, 0x2F, 0xFD, 0x04, 0x5B]).unwrap();
    assert_eq!(h.window_size, (2 << 20) + 3 * (256 << 10));
    assert!(h.checksum);
    assert_eq!(h.block_maximum_size(), 128 << 10);
}

#[test]
fn content_size_fields_of_each_width() {
    // 2 bytes: value + 256.
    let h = read_frame_header(&[0x28, 0xB5, 0x2F, 0xFD, 0x60, 0x00, 0x01]).unwrap();
    assert_eq!((h.header_len, h.content_size), (7, Some(512)));
    // 4 bytes.
    let h = read_frame_header(&[0x28, 0xB5, 0x2F, 0xFD, 0xA0, 1, 2, 3, 4]).unwrap();
    assert_eq!((h.header_len, h.content_size), (9, Some(0x0403_0201)));
    // 8 bytes, with a window descriptor before it.
    let mut f = vec![0x28, 0xB5, 0x2F, 0xFD, 0xC0, 0x00];
    f.extend_from_slice(&70_000u64.to_le_bytes());
    let h = read_frame_header(&f).unwrap();
    assert_eq!((h.header_len, h.content_size), (14, Some(70_000)));
    assert_eq!(h.window_size, 1024);
}

#[test]
fn dictionary_ids() {
    let h = read_frame_header(&[0x28, 0xB5, 0x2F, 0xFD, 0x21, 7, 9]).unwrap();
    assert_eq!(
        (h.header_len, h.dictionary_id, h.content_size),
        (7, Some(7), Some(9))
    );
    let h = read_frame_header(&[0x28, 0xB5, 0x2F, 0xFD, 0x23, 1, 0, 0, 1, 9]).unwrap();
    assert_eq!(h.dictionary_id, Some(0x0100_0001));
    // Id 0 means "no dictionary".
    let h = read_frame_header(&[0x28, 0xB5, 0x2F, 0xFD, 0x22, 0, 0, 9]).unwrap();
    assert_eq!(h.dictionary_id, None);
}

#[test]
fn malformed_headers_are_corrupt() {
    let corrupt = Err(Error::CorruptCompressedData);
    // Bad magic.
    assert_eq!(
        read_frame_header(&[0x28, 0xB5, 0x2F, 0xFE, 0x20, 5]),
        corrupt
    );
    // Reserved bit.
    assert_eq!(
        read_frame_header(&[0x28, 0xB5, 0x2F, 0xFD, 0x28, 5]),
        corrupt
    );
    // Every truncation of an 8-byte content-size header.
    let mut f = vec![0x28, 0xB5, 0x2F, 0xFD, 0xE0];
    f.extend_from_slice(&1u64.to_le_bytes());
    assert!(read_frame_header(&f).is_ok());
    for n in 0..f.len() {
        assert_eq!(read_frame_header(&f[..n]), corrupt, "prefix {n}");
    }
    // The largest window a descriptor can express: exponent 31, mantissa 7.
    assert_eq!(
        read_frame_header(&[0x28, 0xB5, 0x2F, 0xFD, 0x00, 0xFF])
            .unwrap()
            .window_size,
        MAX_WINDOW_SIZE
    );
}

#[test]
fn scan_sums_frames_and_skips_skippable_ones() {
    let mut s = raw_frame(b"hello");
    s.extend_from_slice(&(SKIPPABLE_MAGIC + 7).to_le_bytes());
    s.extend_from_slice(&3u32.to_le_bytes());
    s.extend_from_slice(b"abc");
    s.extend_from_slice(&rle_frame(b'x', 200));
    let r = scan(&s).unwrap();
    assert_eq!(
        r,
        FrameScan {
            frames: 2,
            content_size: Some(205),
            max_content_size: 205,
            max_window_size: 200,
        }
    );
}

#[test]
fn scan_bounds_frames_without_content_size() {
    // Window 1 KiB, two compressed blocks (only their section headers are
    // read: raw literals, no sequences) and a checksum: at most 2 × 1 KiB.
    let mut f = M.to_vec();
    f.extend_from_slice(&[0x04, 0x00]);
    f.extend_from_slice(&block_header(false, 2, 4));
    f.extend_from_slice(&[2 << 3, 2, 3, 0]);
    f.extend_from_slice(&block_header(true, 2, 2));
    f.extend_from_slice(&[0, 0]);
    f.extend_from_slice(&[0xAA; 4]);
    let r = scan(&f).unwrap();
    assert_eq!(
        (
            r.frames,
            r.content_size,
            r.max_content_size,
            r.max_window_size
        ),
        (1, None, 2048, 1024)
    );
    // Every truncation is found without decoding.
    for n in 0..f.len() {
        assert_eq!(scan(&f[..n]), Err(Error::CorruptCompressedData), "{n}");
    }
    // Trailing bytes that are not a frame.
    f.extend_from_slice(&[1, 2]);
    assert_eq!(scan(&f), Err(Error::CorruptCompressedData));
}

#[test]
fn scan_refuses_reserved_and_oversized_blocks() {
    let mut f = M.to_vec();
    f.extend_from_slice(&[0x20, 4]);
    f.extend_from_slice(&block_header(true, 3, 4));
    f.extend_from_slice(&[0; 4]);
    assert_eq!(scan(&f), Err(Error::CorruptCompressedData));
    // A raw block larger than the frame's window (here its content size, 4).
    let mut f = M.to_vec();
    f.extend_from_slice(&[0x20, 4]);
    f.extend_from_slice(&block_header(true, 0, 5));
    f.extend_from_slice(&[0; 5]);
    assert_eq!(scan(&f), Err(Error::ZstdBlockTooLarge));
    // An RLE block larger than 128 KiB.
    let mut f = M.to_vec();
    f.extend_from_slice(&[0x00, 0x58]); // window 2 MiB
    f.extend_from_slice(&block_header(true, 1, (128 << 10) + 1));
    f.push(0);
    assert_eq!(scan(&f), Err(Error::ZstdBlockTooLarge));
    // Empty input and a lone skippable frame hold no Zstandard frame.
    assert_eq!(scan(&[]), Err(Error::CorruptCompressedData));
    let mut s = SKIPPABLE_MAGIC.to_le_bytes().to_vec();
    s.extend_from_slice(&0u32.to_le_bytes());
    assert_eq!(scan(&s), Err(Error::CorruptCompressedData));
    // A skippable frame longer than the input.
    s[4] = 1;
    assert_eq!(scan(&s), Err(Error::CorruptCompressedData));
}

#[test]
fn declared_length_checks() {
    let f = raw_frame(b"hello");
    assert_eq!(check_declared_len(&f, 5, 0), Ok(()));
    assert_eq!(
        check_declared_len(&f, 6, 0),
        Err(Error::DecompressedSizeMismatch)
    );
    assert_eq!(
        check_declared_len(&f, 4, 0),
        Err(Error::DecompressedSizeMismatch)
    );
    // A tiny frame without content size cannot claim 1 GiB: refused before
    // anything is allocated.
    let mut g = M.to_vec();
    g.extend_from_slice(&[0x00, 0x00]);
    g.extend_from_slice(&block_header(true, 2, 3));
    g.extend_from_slice(&[1 << 3, 2, 0]);
    assert_eq!(check_declared_len(&g, 1024, u64::MAX), Ok(()));
    assert_eq!(
        check_declared_len(&g, 1 << 30, u64::MAX),
        Err(Error::DecompressedSizeMismatch)
    );
    // A window (1 GiB: exponent 20) above both the limit and the length.
    let mut w = M.to_vec();
    w.extend_from_slice(&[0x00, 20 << 3]);
    w.extend_from_slice(&block_header(true, 1, 100));
    w.push(7);
    assert_eq!(check_declared_len(&w, 100, u64::MAX), Ok(()));
    assert_eq!(
        check_declared_len(&w, 100, 8 << 20),
        Err(Error::LimitExceeded)
    );
}

/// A frame (window 1 KiB, no content size) holding one compressed block
/// with `block` as its content.
fn compressed_frame(block: &[u8]) -> Vec<u8> {
    let mut f = M.to_vec();
    f.extend_from_slice(&[0x00, 0x00]);
    f.extend_from_slice(&block_header(true, 2, block.len() as u32));
    f.extend_from_slice(block);
    f
}

/// The literals section header of each literals type and size format is
/// skipped to reach the sequences section header, whose modes byte must
/// have its two low (reserved) bits clear.
#[test]
fn sequences_modes_reserved_bits() {
    // (literals section, header included) of every type and size format:
    // raw 1/2/3-byte headers, RLE, compressed 3/4/5-byte headers (with a
    // stand-in payload: only the sizes are read).
    let mut raw3 = vec![0b1100 | (3 << 4), 0, 0];
    raw3.extend_from_slice(&[7; 3]);
    let literals: Vec<Vec<u8>> = vec![
        vec![3 << 3, b'a', b'b', b'c'],         // raw, 1-byte header, 3 bytes
        vec![0b0100 | (2 << 4), 0, b'x', b'y'], // raw, 2-byte header, 2 bytes
        raw3,                                   // raw, 3-byte header, 3 bytes
        vec![1 | (9 << 3), b'z'],               // RLE, 9 times
        {
            // compressed, 1 stream, 3-byte header: regenerated 20, compressed 4
            let h: u32 = 2 | (20 << 4) | (4 << 14);
            let mut v = h.to_le_bytes()[..3].to_vec();
            v.extend_from_slice(&[1, 2, 3, 4]);
            v
        },
        {
            // treeless, 4 streams, 4-byte header: compressed 12
            let h: u32 = 3 | (2 << 2) | (30 << 4) | (12 << 18);
            let mut v = h.to_le_bytes().to_vec();
            v.extend_from_slice(&[9; 12]);
            v
        },
        {
            // compressed, 4 streams, 5-byte header: compressed 6
            let h: u64 = 2 | (3 << 2) | (40 << 4) | (6 << 22);
            let mut v = h.to_le_bytes()[..5].to_vec();
            v.extend_from_slice(&[5; 6]);
            v
        },
    ];
    // Number_of_Sequences in 1, 2 and 3 bytes.
    let counts: [&[u8]; 3] = [&[5], &[0x80, 1], &[0xFF, 1, 0]];
    for lit in &literals {
        for n in counts {
            for modes in 0..=255u8 {
                let mut block = lit.clone();
                block.extend_from_slice(n);
                block.push(modes);
                block.extend_from_slice(&[0; 4]);
                let want = if modes & 3 == 0 {
                    Ok(())
                } else {
                    Err(Error::ZstdReservedBitsSet)
                };
                assert_eq!(
                    scan(&compressed_frame(&block)).map(|_| ()),
                    want,
                    "{lit:?} {n:?} {modes}"
                );
            }
        }
        // No sequences: no modes byte; whatever follows is not read as one.
        let mut block = lit.clone();
        block.extend_from_slice(&[0, 3]);
        assert_eq!(scan(&compressed_frame(&block)).map(|_| ()), Ok(()));
        // The sequences header or its modes byte cut off by the block's end.
        for cut in [lit.len(), lit.len() + 1] {
            let mut block = lit.clone();
            block.extend_from_slice(&[0x80, 1, 0]);
            block.truncate(cut);
            assert_eq!(
                scan(&compressed_frame(&block)),
                Err(Error::CorruptCompressedData),
                "{lit:?} {cut}"
            );
        }
    }
    // Literals longer than the block.
    assert_eq!(
        scan(&compressed_frame(&[10 << 3, 1, 2])),
        Err(Error::CorruptCompressedData)
    );
    // An empty compressed block.
    assert_eq!(
        scan(&compressed_frame(&[])),
        Err(Error::CorruptCompressedData)
    );
}

/// Block_Maximum_Size is min(Window_Size, 128 KiB): a block of exactly that
/// size passes, one byte more is refused, for each block type.
#[test]
fn block_maximum_size_boundaries() {
    for (window_byte, window) in [
        (0x00u8, 1024u32),
        (0x08, 2048),
        (0x38, 128 << 10),
        (0x58, 128 << 10),
    ] {
        for ty in [0u32, 1, 2] {
            for size in [window, window + 1] {
                let mut f = M.to_vec();
                f.extend_from_slice(&[0x00, window_byte]);
                f.extend_from_slice(&block_header(true, ty, size));
                match ty {
                    0 => f.extend(std::iter::repeat_n(0u8, size as usize)),
                    1 => f.push(0),
                    _ => {
                        // Raw literals of size - 4 bytes (3-byte header), no
                        // sequences.
                        let lits = size - 4;
                        let h = 0b1100 | (lits << 4);
                        f.extend_from_slice(&h.to_le_bytes()[..3]);
                        f.extend(std::iter::repeat_n(0u8, lits as usize));
                        f.push(0);
                    }
                }
                let want = if size <= window {
                    Ok(())
                } else {
                    Err(Error::ZstdBlockTooLarge)
                };
                assert_eq!(
                    scan(&f).map(|_| ()),
                    want,
                    "window {window} type {ty} size {size}"
                );
            }
        }
    }
}
