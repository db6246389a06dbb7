//! Tests of the LZ4 frame encoder and decoder: round trips, frames written by
//! the reference library and by pyarrow, and corrupt input.

use super::*;
use crate::ipc::compression::tests::{noise, text};
use crate::test_support::counting;
use crate::Global;
use proptest::prelude::*;
use std::string::String;
use std::vec::Vec;

fn compress_with(options: FrameOptions, data: &[u8]) -> Vec<u8> {
    let mut c = Lz4FrameCodec::with_options(options);
    let mut out = std::vec![0u8; c.max_compressed_len(data.len()).unwrap()];
    let n = c.compress(data, &mut out).unwrap();
    out.truncate(n);
    out
}

fn compress(data: &[u8]) -> Vec<u8> {
    compress_with(FrameOptions::default(), data)
}

fn decompress(frame: &[u8], len: usize) -> Result<Vec<u8>> {
    let mut out = std::vec![0u8; len];
    let n = decompress_into(frame, &mut out)?;
    out.truncate(n);
    Ok(out)
}

fn all_options() -> Vec<FrameOptions> {
    let mut v = Vec::new();
    for block_size in [BlockSize::Max64KiB, BlockSize::Max256KiB] {
        for bits in 0..8u8 {
            v.push(FrameOptions {
                block_size,
                content_size: bits & 1 != 0,
                content_checksum: bits & 2 != 0,
                block_checksum: bits & 4 != 0,
            });
        }
    }
    v
}

/// A frame header with the given FLG and BD bytes, optional fields and a
/// correct header checksum.
fn header(flg: u8, bd: u8, content_size: Option<u64>, dict_id: Option<u32>) -> Vec<u8> {
    let mut v = MAGIC.to_le_bytes().to_vec();
    v.extend_from_slice(&[flg, bd]);
    if let Some(c) = content_size {
        v.extend_from_slice(&c.to_le_bytes());
    }
    if let Some(d) = dict_id {
        v.extend_from_slice(&d.to_le_bytes());
    }
    let hc = (XxHash32::oneshot(0, &v[4..]) >> 8) as u8;
    v.push(hc);
    v
}

fn stored_block(data: &[u8]) -> Vec<u8> {
    let mut v = (data.len() as u32 | BLOCK_UNCOMPRESSED)
        .to_le_bytes()
        .to_vec();
    v.extend_from_slice(data);
    v
}

// ----- round trips -----

#[test]
#[cfg_attr(miri, ignore)] // large inputs or fixture files
fn round_trips_of_many_sizes_and_options() {
    let sizes = [0usize, 1, 12, 13, 100, 65_535, 65_536, 65_537, 300_000];
    for options in all_options() {
        for &n in &sizes {
            for data in [text(n), noise(n, n as u64)] {
                let frame = compress_with(options, &data);
                let hdr = read_frame_header(&frame).unwrap();
                assert!(hdr.block_independent);
                assert_eq!(hdr.block_size, options.block_size);
                assert_eq!(hdr.block_checksum, options.block_checksum);
                assert_eq!(hdr.content_checksum, options.content_checksum);
                assert_eq!(hdr.content_size, options.content_size.then_some(n as u64));
                assert!(frame.len() <= max_compressed_len(n, &options).unwrap());
                assert_eq!(decompress(&frame, n).unwrap(), data, "{options:?} {n}");
            }
        }
    }
}

/// A buffer's frame does not depend on what the codec compressed before
/// (small buffers after a large one, whose 64 KiB blocks need the large
/// hash table): the parallel writers, one codec per thread, rely on it.
#[test]
#[cfg_attr(miri, ignore)] // large inputs
fn frames_do_not_depend_on_earlier_buffers() {
    // Letters from an 8-letter alphabet: compressible, irregular.
    let letters = |n, seed| -> Vec<u8> { noise(n, seed).iter().map(|b| b'a' + b % 8).collect() };
    let (small, large) = (letters(9_000, 1), letters(200_000, 2));
    let mut c = Lz4FrameCodec::new();
    let mut run = |data: &[u8]| {
        let mut out = std::vec![0u8; c.max_compressed_len(data.len()).unwrap()];
        let n = c.compress(data, &mut out).unwrap();
        out.truncate(n);
        out
    };
    let after_large = [run(&large), run(&small), run(&large)];
    assert_eq!(after_large[1], compress(&small));
    assert_eq!(after_large[2], after_large[0]);
    assert_eq!(after_large[0], compress(&large));
}

#[test]
#[cfg_attr(miri, ignore)] // large inputs or fixture files
fn one_mebibyte_round_trip_and_sizes() {
    let data = text(1 << 20);
    let frame = compress(&data);
    assert!(frame.len() < data.len() / 10, "{}", frame.len());
    assert_eq!(decompress(&frame, 1 << 20).unwrap(), data);
    let noisy = noise(1 << 20, 99);
    let frame = compress(&noisy);
    // 16 stored blocks: header (15) + 16 * (4 + 65536) + end mark (no
    // content checksum by default).
    assert_eq!(frame.len(), 15 + 16 * (4 + 65_536) + 4);
    assert_eq!(decompress(&frame, 1 << 20).unwrap(), noisy);
}

#[test]
fn exact_bytes_of_a_tiny_frame() {
    // 1 byte cannot be compressed: one stored block. Default options: FLG
    // 0x68 (version 01, independent blocks, content size), BD 0x40 (64 KiB),
    // header checksum 0x2C, no content checksum.
    let frame = compress(b"A");
    let mut expected = header(0x68, 0x40, Some(1), None);
    assert_eq!(expected.len(), 15);
    assert_eq!(expected[14], 0x2C);
    expected.extend_from_slice(&[0x01, 0x00, 0x00, 0x80, b'A']);
    expected.extend_from_slice(&[0, 0, 0, 0]);
    assert_eq!(frame, expected);
    // The empty frame is header + end mark.
    let empty = compress(b"");
    assert_eq!(&empty[15..], &[0, 0, 0, 0]);
    // With a content checksum: FLG 0x6C, then xxh32 after the end mark
    // (of nothing: 0x02CC5D05).
    let checked = FrameOptions {
        content_checksum: true,
        ..Default::default()
    };
    let frame = compress_with(checked, b"A");
    let mut expected = header(0x6C, 0x40, Some(1), None);
    expected.extend_from_slice(&[0x01, 0x00, 0x00, 0x80, b'A']);
    expected.extend_from_slice(&[0, 0, 0, 0]);
    expected.extend_from_slice(&XxHash32::oneshot(0, b"A").to_le_bytes());
    assert_eq!(frame, expected);
    let empty = compress_with(checked, b"");
    assert_eq!(&empty[15..], &[0, 0, 0, 0, 0x05, 0x5D, 0xCC, 0x02]);
}

#[test]
fn output_smaller_than_the_bound_stores_blocks() {
    let data = text(1000);
    let mut c = Lz4FrameCodec::new();
    // Room for the frame with the block stored, but not for the compressor.
    let mut out = std::vec![0u8; 15 + 4 + 1000 + 4];
    let n = c.compress(&data, &mut out).unwrap();
    assert_eq!(n, out.len());
    assert_eq!(decompress(&out, 1000).unwrap(), data);
    let mut tiny = [0u8; 20];
    assert_eq!(c.compress(&data, &mut tiny), Err(Error::OutOfBounds));
}

#[test]
#[cfg_attr(miri, ignore)] // large inputs or fixture files
fn decompress_to_buffer_with_and_without_content_size() {
    let data = text(200_000);
    for content_size in [true, false] {
        let options = FrameOptions {
            content_size,
            ..Default::default()
        };
        let frame = compress_with(options, &data);
        let alloc = counting();
        let buf = decompress_to_buffer(&frame, 1 << 20, alloc.clone()).unwrap();
        assert_eq!(buf.as_slice(), &data[..]);
        if content_size {
            assert_eq!(alloc.requests(), 1); // exactly the declared size, once
        }
        assert_eq!(
            decompress_to_buffer(&frame, 199_999, Global).err(),
            Some(Error::LimitExceeded)
        );
    }
}

// ----- frames from the reference library and from pyarrow -----

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/lz4/");

/// The generator of `generate.py` (a 64-bit LCG), for the fixture contents.
fn fixture_content(kind: &str, n: usize) -> Vec<u8> {
    const MUL: u64 = 6364136223846793005;
    const INC: u64 = 1442695040888963407;
    fn text(n: usize) -> Vec<u8> {
        let mut x: u64 = 0x853C49E6748FEA9B;
        let mut out = Vec::new();
        while out.len() < n {
            x = x.wrapping_mul(MUL).wrapping_add(INC);
            let r = x >> 33;
            if r % 16 == 0 {
                let line = std::format!("sensor {} reading {}\n", r % 5, (r >> 8) % 1000);
                out.extend_from_slice(line.as_bytes());
            } else {
                out.extend_from_slice(b"sensor ok; status nominal; battery good\n");
            }
        }
        out.truncate(n);
        out
    }
    fn random(n: usize) -> Vec<u8> {
        let mut x: u64 = 0x2545F4914F6CDD1D;
        (0..n)
            .map(|_| {
                x = x.wrapping_mul(MUL).wrapping_add(INC);
                (x >> 56) as u8
            })
            .collect()
    }
    match kind {
        "text" => text(n),
        "random" => random(n),
        "mixed" => {
            let mut v = text(65536);
            v.extend(random(65536));
            v.extend(text(n - 131072));
            v
        }
        _ => panic!("unknown fixture kind {kind}"),
    }
}

fn fixtures() -> Vec<(String, Vec<u8>, Vec<u8>)> {
    let manifest = std::fs::read_to_string(std::format!("{FIXTURES}manifest.txt")).unwrap();
    manifest
        .lines()
        .map(|line| {
            let mut it = line.split(' ');
            let (name, kind, n) = (it.next().unwrap(), it.next().unwrap(), it.next().unwrap());
            let frame = std::fs::read(std::format!("{FIXTURES}{name}")).unwrap();
            (
                String::from(name),
                frame,
                fixture_content(kind, n.parse().unwrap()),
            )
        })
        .collect()
}

#[test]
#[cfg_attr(miri, ignore)] // large inputs or fixture files
fn reference_frames_decode_with_every_flag_combination() {
    let all = fixtures();
    assert_eq!(all.len(), 16 + 6 + 2 + 1 + 2 + 3);
    let mut linked = 0;
    for (name, frame, content) in &all {
        let hdr = read_frame_header(frame).unwrap();
        if let Some(flags) = name.strip_prefix("ref_") {
            // e.g. text150000_b4_l1_bc0_cc1_cs1.lz4
            let f: Vec<&str> = flags.trim_end_matches(".lz4").split('_').collect();
            assert_eq!(
                std::format!("b{}", hdr.block_size as u8 + 4),
                f[1],
                "{name}"
            );
            // The reference switches to independent blocks when the content
            // fits one block.
            let one_block = content.len() <= hdr.block_size.bytes();
            assert_eq!(f[2] == "l1" && !one_block, !hdr.block_independent, "{name}");
            assert_eq!(f[3] == "bc1", hdr.block_checksum, "{name}");
            assert_eq!(f[4] == "cc1", hdr.content_checksum, "{name}");
            // A content size of 0 means "unknown" to the reference: not written.
            assert_eq!(
                hdr.content_size,
                (f[5] == "cs1" && !content.is_empty()).then_some(content.len() as u64),
                "{name}"
            );
        }
        if !hdr.block_independent {
            linked += 1;
        }
        assert_eq!(
            &decompress(frame, content.len()).unwrap(),
            content,
            "{name}"
        );
        let buf = decompress_to_buffer(frame, content.len(), Global).unwrap();
        assert_eq!(buf.as_slice(), &content[..], "{name}");
        assert_eq!(hdr.dict_id, None);
        // One byte less room than the content: refused.
        if !content.is_empty() {
            let mut short = std::vec![0u8; content.len() - 1];
            assert_eq!(
                decompress_into(frame, &mut short),
                Err(Error::DecompressedSizeMismatch),
                "{name}"
            );
        }
    }
    assert_eq!(linked, 8 + 3, "{linked}"); // 8 flag combinations, mixed, 256 KiB, pyarrow
}

#[test]
#[cfg_attr(miri, ignore)] // large inputs or fixture files
fn pyarrow_writes_linked_blocks_without_content_size() {
    let all = fixtures();
    let (_, frame, content) = all
        .iter()
        .find(|(n, _, _)| n == "pyarrow_text150000.lz4")
        .unwrap();
    let hdr = read_frame_header(frame).unwrap();
    assert!(!hdr.block_independent);
    assert!(!hdr.content_checksum && !hdr.block_checksum);
    assert_eq!(hdr.content_size, None);
    assert_eq!(hdr.block_size, BlockSize::Max64KiB);
    // The second block refers back into the first: decoding it without the
    // first block's content as dictionary fails.
    assert_eq!(&decompress(frame, 150_000).unwrap(), content);
    let mut independent = frame.clone();
    independent[4] |= FLG_BLOCK_INDEPENDENT;
    independent[6] = (XxHash32::oneshot(0, &independent[4..6]) >> 8) as u8;
    assert_eq!(
        decompress(&independent, 150_000),
        Err(Error::CorruptCompressedData)
    );
}

#[test]
#[cfg_attr(miri, ignore)] // large inputs or fixture files
fn concatenated_and_skippable_frames() {
    let a = compress(&text(70_000));
    let all = fixtures();
    let (_, b, b_content) = &all[12]; // a linked reference frame
    let mut input = a.clone();
    input.extend_from_slice(&(SKIPPABLE_MAGIC + 7).to_le_bytes());
    input.extend_from_slice(&3u32.to_le_bytes());
    input.extend_from_slice(b"xyz");
    input.extend_from_slice(b);
    let mut expected = text(70_000);
    expected.extend_from_slice(b_content);
    assert_eq!(decompress(&input, expected.len()).unwrap(), expected);
    let s = scan(&input).unwrap();
    assert!(s.max_content_size >= expected.len() as u64);
    // A linked block of the second frame cannot reach into the first frame.
    let mut cross = compress(&text(10)); // 10 bytes, stored
    let mut tail = header(0x40, 0x40, None, None);
    // Token 0x04: no literals, match of 8 at offset 5 (before the frame).
    tail.extend_from_slice(&5u32.to_le_bytes());
    tail.extend_from_slice(&[0x04, 0x05, 0x00, 0x00, 0x00]);
    tail.extend_from_slice(&0u32.to_le_bytes());
    cross.extend_from_slice(&tail);
    assert_eq!(decompress(&cross, 100), Err(Error::CorruptCompressedData));
}

#[test]
fn dictionary_id_is_accepted_when_unused() {
    let mut frame = header(0x61, 0x40, None, Some(0xDEAD_BEEF));
    frame.extend_from_slice(&stored_block(b"hello"));
    frame.extend_from_slice(&0u32.to_le_bytes());
    assert_eq!(
        read_frame_header(&frame).unwrap().dict_id,
        Some(0xDEAD_BEEF)
    );
    assert_eq!(decompress(&frame, 5).unwrap(), b"hello");
}

// ----- corrupt frames: one rule, one error -----

fn sample() -> (Vec<u8>, Vec<u8>) {
    let data = text(if cfg!(miri) { 2_000 } else { 150_000 });
    let options = FrameOptions {
        block_checksum: true,
        content_checksum: true,
        ..Default::default()
    };
    (compress_with(options, &data), data)
}

#[test]
fn bad_magic() {
    let (mut f, d) = sample();
    f[0] ^= 1;
    assert_eq!(decompress(&f, d.len()), Err(Error::CorruptCompressedData));
    assert_eq!(decompress(&[], 0), Err(Error::CorruptCompressedData));
    assert_eq!(
        decompress(b"\x04\x22\x4d", 0),
        Err(Error::CorruptCompressedData)
    );
}

#[test]
fn bad_version_reserved_bits_and_block_size_id() {
    let body = [stored_block(b"x"), 0u32.to_le_bytes().to_vec()].concat();
    for (flg, bd) in [
        (0x00, 0x40), // version 00
        (0x80, 0x40), // version 10
        (0x62, 0x40), // FLG reserved bit 1
        (0x60, 0xC0), // BD reserved bit 7
        (0x60, 0x41), // BD reserved bit 0
        (0x60, 0x30), // block size id 3
        (0x60, 0x00), // block size id 0
    ] {
        let f = [header(flg, bd, None, None), body.clone()].concat();
        assert_eq!(
            read_frame_header(&f).err(),
            Some(Error::CorruptCompressedData),
            "{flg:#x} {bd:#x}"
        );
        assert_eq!(decompress(&f, 1), Err(Error::CorruptCompressedData));
    }
    let good = [header(0x60, 0x40, None, None), body].concat();
    assert_eq!(decompress(&good, 1).unwrap(), b"x");
}

#[test]
fn bad_header_checksum() {
    let (mut f, d) = sample();
    f[14] ^= 0x10;
    assert_eq!(decompress(&f, d.len()), Err(Error::CorruptCompressedData));
}

#[test]
fn block_larger_than_the_declared_maximum() {
    let big = std::vec![0u8; 65_537];
    let f = [
        header(0x60, 0x40, None, None),
        stored_block(&big),
        0u32.to_le_bytes().to_vec(),
    ]
    .concat();
    assert_eq!(decompress(&f, 70_000), Err(Error::CorruptCompressedData));
    assert_eq!(scan(&f).err(), Some(Error::CorruptCompressedData));
}

#[test]
fn bad_block_checksum() {
    let (mut f, d) = sample();
    let first_block = u32::from_le_bytes(f[15..19].try_into().unwrap()) as usize;
    f[19 + first_block] ^= 0x01; // first byte of the block checksum
    assert_eq!(
        decompress(&f, d.len()),
        Err(Error::CompressedChecksumMismatch)
    );
}

#[test]
fn bad_content_checksum() {
    let (mut f, d) = sample();
    let last = f.len() - 1;
    f[last] ^= 0x80;
    assert_eq!(
        decompress(&f, d.len()),
        Err(Error::CompressedChecksumMismatch)
    );
}

#[test]
fn content_size_mismatch() {
    for declared in [4u64, 6, 1 << 40] {
        let f = [
            header(0x68, 0x40, Some(declared), None),
            stored_block(b"hello"),
            0u32.to_le_bytes().to_vec(),
        ]
        .concat();
        assert_eq!(
            decompress(&f, 100),
            Err(Error::DecompressedSizeMismatch),
            "{declared}"
        );
    }
}

#[test]
#[cfg_attr(miri, ignore)] // large inputs or fixture files
fn output_overflow() {
    let data = text(100_000);
    let options = FrameOptions {
        content_size: false,
        ..Default::default()
    };
    let f = compress_with(options, &data);
    for room in [0, 10, 65_536, 99_999] {
        assert_eq!(
            decompress(&f, room),
            Err(Error::DecompressedSizeMismatch),
            "{room}"
        );
    }
    assert_eq!(decompress(&f, 100_001).unwrap(), data);
}

#[test]
fn invalid_lz4_sequences() {
    for block in [
        &[0x04u8, 0x00, 0x00][..],           // match offset 0
        &[0x10, b'a', 0x09, 0x00][..],       // match offset beyond the output
        &[0xF0, 0xFF][..],                   // literal length runs off the end
        &[0x50, b'a', b'b'][..],             // 5 literals, 2 present
        &[0x14, b'a', 0x01, 0x00, 0x00][..], // match with no final literals
    ] {
        let mut f = header(0x60, 0x40, None, None);
        f.extend_from_slice(&(block.len() as u32).to_le_bytes());
        f.extend_from_slice(block);
        f.extend_from_slice(&0u32.to_le_bytes());
        let r = decompress(&f, 1000);
        assert!(
            r.is_err() || r.as_ref().is_ok_and(|v| v.len() <= 1000),
            "{block:?}"
        );
        if block[0] != 0x14 {
            assert_eq!(r, Err(Error::CorruptCompressedData), "{block:?}");
        }
    }
}

#[test]
fn trailing_bytes_after_the_frame() {
    let mut f = compress(b"hello");
    f.extend_from_slice(&[0, 0, 0]);
    assert_eq!(decompress(&f, 5), Err(Error::CorruptCompressedData));
    let mut f = compress(b"hello");
    f.extend_from_slice(&[1, 2, 3, 4, 5]);
    assert_eq!(decompress(&f, 5), Err(Error::CorruptCompressedData));
}

#[test]
#[cfg_attr(miri, ignore)] // large inputs or fixture files
fn every_truncation_is_an_error() {
    let data = text(70_000);
    let mut frames = std::vec![compress_with(
        FrameOptions {
            block_checksum: true,
            ..Default::default()
        },
        &data
    )];
    let no_flags = FrameOptions {
        content_size: false,
        content_checksum: false,
        ..Default::default()
    };
    frames.push(compress_with(no_flags, &data));
    for f in &frames {
        for cut in 0..f.len() {
            let r = decompress(&f[..cut], data.len());
            assert!(r.is_err(), "cut at {cut} of {}", f.len());
            assert!(scan(&f[..cut]).is_err(), "cut at {cut}");
        }
        assert_eq!(decompress(f, data.len()).unwrap(), data);
    }
}

#[test]
#[cfg_attr(miri, ignore)] // large inputs or fixture files
fn every_single_byte_corruption_with_checksums_is_an_error() {
    let data = text(70_000);
    let options = FrameOptions {
        block_checksum: true,
        ..Default::default()
    };
    let f = compress_with(options, &data);
    let mut out = std::vec![0u8; data.len()];
    for i in 0..f.len() {
        for mask in [0x01u8, 0x80, 0xFF] {
            let mut g = f.clone();
            g[i] ^= mask;
            assert!(
                decompress_into(&g, &mut out).is_err(),
                "byte {i} ^ {mask:#x}"
            );
        }
    }
}

#[test]
#[cfg_attr(miri, ignore)] // large inputs or fixture files
fn corruption_of_reference_frames_never_panics() {
    for (name, frame, content) in fixtures() {
        let step = (frame.len() / 40).max(1);
        let mut out = std::vec![0u8; content.len()];
        for i in (0..frame.len()).step_by(step) {
            let mut g = frame.clone();
            g[i] = g[i].wrapping_add(0x5B);
            if let Ok(n) = decompress_into(&g, &mut out) {
                assert!(n <= content.len(), "{name}");
            }
            let _ = decompress_to_buffer(&g, content.len(), Global);
        }
    }
}

// ----- limits -----

#[test]
fn a_tiny_frame_declaring_a_huge_content_size_allocates_nothing() {
    for declared in [1u64 << 40, u64::MAX, (1 << 30) + 1] {
        let f = [
            header(0x68, 0x40, Some(declared), None),
            0u32.to_le_bytes().to_vec(),
        ]
        .concat();
        assert_eq!(f.len(), 19);
        let alloc = counting();
        assert_eq!(
            decompress_to_buffer(&f, 1 << 30, alloc.clone()).err(),
            Some(Error::LimitExceeded)
        );
        assert_eq!(alloc.requests(), 0);
        let mut c = Lz4FrameCodec::new();
        assert_eq!(
            c.check_declared_len(&f, 1 << 20),
            Err(Error::DecompressedSizeMismatch)
        );
    }
}

#[test]
fn growth_without_content_size_is_bounded_by_the_input() {
    // Stored blocks of 10 bytes each can only ever need 10 bytes each.
    let mut f = header(0x60, 0x40, None, None);
    for _ in 0..100 {
        f.extend_from_slice(&stored_block(b"0123456789"));
    }
    f.extend_from_slice(&0u32.to_le_bytes());
    let alloc = counting();
    let buf = decompress_to_buffer(&f, 1 << 30, alloc.clone()).unwrap();
    assert_eq!(buf.len(), 1000);
    assert!(
        alloc.largest_request() < 4096,
        "{}",
        alloc.largest_request()
    );
    // Over the limit: refused, having allocated at most about the limit.
    let alloc = counting();
    assert_eq!(
        decompress_to_buffer(&f, 995, alloc.clone()).err(),
        Some(Error::LimitExceeded)
    );
    assert!(
        alloc.largest_request() < 2048,
        "{}",
        alloc.largest_request()
    );
}

#[test]
#[cfg_attr(miri, ignore)] // 1 MiB of input
fn growth_never_allocates_past_the_limit() {
    // 1 MiB in stored blocks, no content size: the buffer grows to the limit
    // (doubling would overshoot it) and then refuses.
    let frame = compress_with(
        FrameOptions {
            content_size: false,
            ..Default::default()
        },
        &noise(1 << 20, 1),
    );
    let limit = 600_000;
    let alloc = counting();
    assert_eq!(
        decompress_to_buffer(&frame, limit, alloc.clone()).err(),
        Some(Error::LimitExceeded)
    );
    // The limit plus the buffer's header and 64-byte rounding.
    assert!(
        alloc.largest_request() <= limit + 128,
        "{}",
        alloc.largest_request()
    );
}

// ----- properties -----

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    #[cfg_attr(miri, ignore)]
    fn prop_round_trip(
        data in proptest::collection::vec(any::<u8>(), 0..3000),
        repeat in 1usize..40,
        bits in 0u8..8,
    ) {
        // Repeat the random bytes to get compressible input of many shapes.
        let input: Vec<u8> = data.iter().copied().cycle().take(data.len() * repeat).collect();
        let options = FrameOptions {
            content_size: bits & 1 != 0,
            content_checksum: bits & 2 != 0,
            block_checksum: bits & 4 != 0,
            ..Default::default()
        };
        let f = compress_with(options, &input);
        prop_assert_eq!(decompress(&f, input.len()).unwrap(), input);
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn prop_arbitrary_input_never_panics(
        data in proptest::collection::vec(any::<u8>(), 0..200),
        flg in any::<u8>(),
        room in 0usize..5000,
    ) {
        let mut f = header(flg & !FLG_RESERVED | FLG_VERSION_01, 0x40, None, None);
        f.truncate(7.min(f.len()));
        f.extend_from_slice(&data);
        let _ = decompress(&f, room);
        let _ = decompress(&data, room);
        let _ = scan(&data);
        let _ = decompress_to_buffer(&f, room, Global);
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn prop_mutated_frames_never_panic(
        edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..8),
    ) {
        let data = text(5000);
        let mut f = compress_with(FrameOptions { content_checksum: false, ..Default::default() }, &data);
        for (at, b) in edits {
            let i = at % f.len();
            f[i] = b;
        }
        if let Ok(out) = decompress(&f, data.len()) {
            prop_assert!(out.len() <= data.len());
        }
    }
}
