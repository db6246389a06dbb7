//! Tests of the `no_std` ZSTD decoder: frames written by `ruzstd`'s encoder
//! and by hand, through [`decompress_buffer`] and the IPC readers; every
//! kind of corruption is an error (never a panic), and oversized claims are
//! refused before anything is allocated.

use super::super::zstd_frame::tests::{block_header, raw_frame, raw_frame_with, rle_frame};
use super::super::zstd_frame::{MAGIC, SKIPPABLE_MAGIC};
use super::super::{
    buffer_length, compress_buffer, decompress_buffer, BufferLength, BuiltinCodecs, CodecSet,
    WithCodec,
};
use super::*;
use crate::array::{Array, PrimitiveArray, RecordBatch, StringArray};
use crate::buffer::{Buffer, MutableBuffer, SharedSlice};
use crate::datatypes::{DataType, Field, Schema};
use crate::error::ErrorKind;
use crate::ipc::reader::{FileReader, IpcReadOptions, SliceStreamReader, StreamReader};
use crate::ipc::writer::{FileWriter, IpcWriteOptions, StreamWriter};
use crate::test_support::{counting, TestAlloc};
use crate::Global;
use ruzstd::encoding::{compress_to_vec, CompressionLevel};
use std::vec;
use std::vec::Vec;

/// Compressible bytes: words from a small vocabulary.
fn text(n: usize) -> Vec<u8> {
    let words: [&[u8]; 6] = [
        b"arrow ", b"column ", b"zstd ", b"buffer ", b"42 ", b"null ",
    ];
    let mut v = Vec::with_capacity(n);
    let mut i = 7usize;
    while v.len() < n {
        i = i.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        v.extend_from_slice(words[(i >> 16) % words.len()]);
    }
    v.truncate(n);
    v
}

/// Pseudo-random bytes.
fn noise(n: usize, mut seed: u64) -> Vec<u8> {
    (0..n)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed as u8
        })
        .collect()
}

/// An IPC body buffer: the 8-byte declared length, then `stream`.
fn framed(declared: i64, stream: &[u8]) -> Vec<u8> {
    let mut v = declared.to_le_bytes().to_vec();
    v.extend_from_slice(stream);
    v
}

fn decode(bytes: &[u8], limit: usize) -> (crate::Result<Vec<u8>>, TestAlloc) {
    let alloc = counting();
    let r = decompress_buffer(
        &mut ZstdDecoder::new(),
        &Buffer::<TestAlloc>::from_slice_ref(bytes),
        limit,
        alloc.clone(),
    );
    (r.map(|b| b.as_slice().to_vec()), alloc)
}

#[test]
fn decodes_ruzstd_frames_into_one_exact_allocation() {
    for data in [text(300_000), noise(70_000, 3), text(1), Vec::new()] {
        for level in [CompressionLevel::Fastest, CompressionLevel::Uncompressed] {
            let z = compress_to_vec(&data[..], level);
            let header = zstd_frame::read_frame_header(&z).unwrap();
            assert!(header.checksum, "ruzstd writes content checksums");
            let (got, alloc) = decode(&framed(data.len() as i64, &z), 1 << 20);
            if data.is_empty() {
                // A declared length of 0 is the empty buffer: not decoded.
                assert_eq!(got.unwrap(), data);
                assert_eq!(alloc.requests(), 0);
                continue;
            }
            assert_eq!(got.unwrap(), data);
            assert_eq!(alloc.requests(), 1);
            assert!(alloc.largest_request() >= data.len());
        }
    }
}

#[test]
fn decodes_raw_rle_concatenated_and_skippable_frames() {
    let mut s = raw_frame(b"abc");
    s.extend_from_slice(&(SKIPPABLE_MAGIC + 15).to_le_bytes());
    s.extend_from_slice(&2u32.to_le_bytes());
    s.extend_from_slice(&[0xEE, 0xEE]);
    s.extend_from_slice(&rle_frame(b'z', 4));
    // A frame without content size: window 1 KiB, a raw then an RLE block.
    s.extend_from_slice(&MAGIC.to_le_bytes());
    s.extend_from_slice(&[0x00, 0x00]);
    s.extend_from_slice(&block_header(false, 0, 2));
    s.extend_from_slice(b"-!");
    s.extend_from_slice(&block_header(true, 1, 3));
    s.push(b'.');
    let mut d = ZstdDecoder::new();
    let mut out = [0u8; 12];
    assert_eq!(d.decompress(&s, &mut out), Ok(12));
    assert_eq!(&out, b"abczzzz-!...");
    // The same decoder is reused (its window stays allocated).
    let mut out = [0u8; 3];
    assert_eq!(d.decompress(&raw_frame(b"xyz"), &mut out), Ok(3));
    assert_eq!(&out, b"xyz");
    // An empty frame decodes to nothing.
    let mut out = [0u8; 0];
    assert_eq!(d.decompress(&raw_frame(b""), &mut out), Ok(0));
}

#[test]
fn the_decoder_does_not_compress() {
    let mut d = ZstdDecoder::default();
    assert_eq!(d.codec(), CompressionCodec::Zstd);
    assert!(!d.can_compress());
    assert_eq!(d.max_compressed_len(10), Err(Error::UnsupportedType));
    assert_eq!(
        d.compress(b"abc", &mut [0; 64]),
        Err(Error::UnsupportedType)
    );
    let mut out = MutableBuffer::new_in(Global);
    assert_eq!(
        compress_buffer(&mut d, b"abc", &mut out),
        Err(Error::UnsupportedType)
    );
    assert!(out.is_empty());
    assert_eq!(d.max_window_size(), DEFAULT_MAX_WINDOW_SIZE);
    assert_eq!(
        ZstdDecoder::with_max_window_size(4096).max_window_size(),
        4096
    );
    let mut set = BuiltinCodecs::new();
    assert!(!set.get(CompressionCodec::Zstd).unwrap().can_compress());
}

#[test]
fn bad_magic_is_corrupt_before_allocating() {
    let mut z = compress_to_vec(&text(1000)[..], CompressionLevel::Fastest);
    z[0] ^= 1;
    let (got, alloc) = decode(&framed(1000, &z), 1 << 20);
    assert_eq!(got, Err(Error::CorruptCompressedData));
    assert_eq!(alloc.requests(), 0);
    let mut out = vec![0u8; 1000];
    assert_eq!(
        ZstdDecoder::new().decompress(&z, &mut out),
        Err(Error::CorruptCompressedData)
    );
    // Garbage after a good frame.
    let mut s = raw_frame(b"ok");
    s.extend_from_slice(&[1, 2, 3, 4, 5]);
    assert_eq!(
        ZstdDecoder::new().decompress(&s, &mut [0; 2]),
        Err(Error::CorruptCompressedData)
    );
    // No frame at all.
    assert_eq!(
        ZstdDecoder::new().decompress(&[], &mut [0; 2]),
        Err(Error::CorruptCompressedData)
    );
}

#[test]
fn bad_checksum_is_a_checksum_mismatch() {
    let data = text(50_000);
    let mut z = compress_to_vec(&data[..], CompressionLevel::Fastest);
    let last = z.len() - 1;
    z[last] ^= 0x80;
    let (got, _) = decode(&framed(data.len() as i64, &z), 1 << 20);
    assert_eq!(got, Err(Error::CompressedChecksumMismatch));
    // A hand-made frame whose checksum field is wrong.
    let mut f = raw_frame_with(&[0x24, 3], b"abc");
    f.extend_from_slice(&[0, 0, 0, 0]);
    assert_eq!(decompress_3(&f), Err(Error::CompressedChecksumMismatch));
}

/// `f` decompressed into three bytes.
fn decompress_3(f: &[u8]) -> Result<usize> {
    ZstdDecoder::new().decompress(f, &mut [0; 3])
}

#[test]
fn every_truncation_is_an_error_without_allocating() {
    let data = text(20_000);
    let z = compress_to_vec(&data[..], CompressionLevel::Fastest);
    let full = framed(data.len() as i64, &z);
    for n in 1..full.len() {
        let (got, alloc) = decode(&full[..n], 1 << 20);
        assert_eq!(got, Err(Error::CorruptCompressedData), "prefix {n}");
        assert_eq!(alloc.requests(), 0, "prefix {n}");
    }
    // The decoder alone (no header walk first) errors as well.
    let mut out = vec![0u8; data.len()];
    let mut d = ZstdDecoder::new();
    for n in 0..z.len() {
        let r = d.decompress(&z[..n], &mut out);
        assert!(r.is_err(), "prefix {n}: {r:?}");
    }
    assert_eq!(d.decompress(&z, &mut out), Ok(data.len()));
    assert_eq!(out, data);
}

#[test]
fn declared_size_mismatches() {
    let data = text(10_000);
    let z = compress_to_vec(&data[..], CompressionLevel::Fastest);
    // ruzstd writes no content size: the walk accepts both, decoding finds out.
    for declared in [data.len() - 1, data.len() + 1, data.len() * 2] {
        let (got, _) = decode(&framed(declared as i64, &z), 1 << 20);
        assert_eq!(got, Err(Error::DecompressedSizeMismatch), "{declared}");
    }
    // A frame with a content size is checked before allocating.
    let f = raw_frame(b"hello");
    let (got, alloc) = decode(&framed(6, &f), 1 << 20);
    assert_eq!(got, Err(Error::DecompressedSizeMismatch));
    assert_eq!(alloc.requests(), 0);
    // A content size that lies (3) about its blocks (5 bytes), caught when
    // decoding.
    // (4-byte content size, window 1 KiB).
    let mut f = MAGIC.to_le_bytes().to_vec();
    f.extend_from_slice(&[0x80, 0x00, 3, 0, 0, 0]);
    f.extend_from_slice(&block_header(true, 1, 3));
    f.push(b'q');
    f.extend_from_slice(&rle_frame(b'r', 2));
    let mut out = [0u8; 5];
    assert_eq!(ZstdDecoder::new().decompress(&f, &mut out), Ok(5));
    assert_eq!(&out, b"qqqrr");
    f[6] = 2; // content size 2, block still 3
    assert_eq!(
        ZstdDecoder::new().decompress(&f, &mut out),
        Err(Error::DecompressedSizeMismatch)
    );
}

#[test]
fn oversized_declared_lengths_are_refused_before_allocating() {
    let z = compress_to_vec(&text(1000)[..], CompressionLevel::Fastest);
    // Above the caller's limit.
    let (got, alloc) = decode(&framed(1 << 40, &z), 1 << 20);
    assert_eq!(got, Err(Error::LimitExceeded));
    assert_eq!(alloc.requests(), 0);
    let (got, alloc) = decode(&framed(i64::MAX, &z), usize::MAX);
    assert!(matches!(
        got.map_err(|e| e.kind()),
        Err(ErrorKind::LimitExceeded | ErrorKind::DecompressedSizeMismatch)
    ));
    assert_eq!(alloc.requests(), 0);
    // Under the limit, but more than the frame's blocks can produce.
    let (got, alloc) = decode(&framed(1 << 30, &z), 1 << 31);
    assert_eq!(got, Err(Error::DecompressedSizeMismatch));
    assert_eq!(alloc.requests(), 0);
}

#[test]
fn windows_above_the_limit_are_refused() {
    // Window 1 GiB for 100 bytes of RLE.
    let mut w = MAGIC.to_le_bytes().to_vec();
    w.extend_from_slice(&[0x00, 20 << 3]);
    w.extend_from_slice(&block_header(true, 1, 100));
    w.push(7);
    let (got, alloc) = decode(&framed(100, &w), 1 << 20);
    assert_eq!(got, Err(Error::LimitExceeded));
    assert_eq!(alloc.requests(), 0);
    let mut out = [0u8; 100];
    assert_eq!(
        ZstdDecoder::new().decompress(&w, &mut out),
        Err(Error::LimitExceeded)
    );
    // Accepted when the limit allows it (ruzstd reserves the window).
    w[5] = 12 << 3; // 4 MiB
    assert_eq!(ZstdDecoder::new().decompress(&w, &mut out), Ok(100));
    assert_eq!(out, [7; 100]);
    assert_eq!(
        ZstdDecoder::with_max_window_size(1 << 20).decompress(&w, &mut out),
        Err(Error::LimitExceeded)
    );
}

#[test]
fn overflowing_the_output_is_a_size_mismatch() {
    // An RLE "bomb": 64 blocks of 128 KiB from 4 bytes each, no content size.
    let mut b = MAGIC.to_le_bytes().to_vec();
    b.extend_from_slice(&[0x00, 0x38]); // window 256 KiB
    for i in 0..64 {
        b.extend_from_slice(&block_header(i == 63, 1, 128 << 10));
        b.push(0xAB);
    }
    let mut out = vec![0u8; 1000];
    assert_eq!(
        ZstdDecoder::new().decompress(&b, &mut out),
        Err(Error::DecompressedSizeMismatch)
    );
    let mut out = vec![0u8; 64 << 17];
    assert_eq!(ZstdDecoder::new().decompress(&b, &mut out), Ok(64 << 17));
    assert!(out.iter().all(|&x| x == 0xAB));
}

#[test]
fn dictionary_frames_are_refused() {
    let f = raw_frame_with(&[0x21, 5, 3], b"abc");
    assert_eq!(decompress_3(&f), Err(Error::CorruptCompressedData));
}

#[test]
fn byte_flips_give_errors_or_the_original_never_a_panic() {
    let data = text(3000);
    for level in [CompressionLevel::Fastest, CompressionLevel::Uncompressed] {
        let z = compress_to_vec(&data[..], level);
        let mut d = ZstdDecoder::new();
        let mut out = vec![0u8; data.len()];
        for i in 0..z.len() {
            for mask in [0x01u8, 0x10, 0x80, 0xFF] {
                let mut c = z.clone();
                c[i] ^= mask;
                let framed = framed(data.len() as i64, &c);
                let (got, _) = decode(&framed, 1 << 20);
                if let Ok(got) = got {
                    assert_eq!(got, data, "flip {i} ^ {mask:#x}");
                }
                if let Ok(n) = d.decompress(&c, &mut out) {
                    assert_eq!(&out[..n], &data[..], "flip {i} ^ {mask:#x}");
                }
            }
        }
        // The decoder still works after all that.
        assert_eq!(d.decompress(&z, &mut out), Ok(data.len()));
    }
}

#[test]
fn noise_never_panics() {
    let mut d = ZstdDecoder::new();
    let mut out = vec![0u8; 4096];
    for seed in 1..3000u64 {
        let mut n = noise(64 + (seed as usize % 200), seed);
        // Half of the inputs start like a frame.
        if seed % 2 == 0 {
            n[..4].copy_from_slice(&MAGIC.to_le_bytes());
        }
        let _ = d.check_declared_len(&n, 4096);
        let _ = d.decompress(&n, &mut out);
    }
}

/// A test-only ZSTD compressor (ruzstd's encoder) standing in for a
/// user-supplied codec: the writer compresses with it, the readers decode
/// with the built-in decoder.
#[derive(Debug, Default)]
struct RuzstdCompressor;

impl Codec for RuzstdCompressor {
    fn codec(&self) -> CompressionCodec {
        CompressionCodec::Zstd
    }
    fn max_compressed_len(&self, input_len: usize) -> crate::Result<usize> {
        Ok(input_len + input_len / 64 + 256)
    }
    fn compress(&mut self, input: &[u8], out: &mut [u8]) -> crate::Result<usize> {
        let z = compress_to_vec(input, CompressionLevel::Fastest);
        out.get_mut(..z.len())
            .ok_or(Error::OutOfBounds)?
            .copy_from_slice(&z);
        Ok(z.len())
    }
    fn decompress(&mut self, _: &[u8], _: &mut [u8]) -> crate::Result<usize> {
        Err(Error::UnsupportedType)
    }
}

fn batch(n: i64) -> RecordBatch<'static, Global> {
    let ints: Vec<Option<i64>> = (0..n).map(|i| (i % 7 != 0).then_some(i * 3)).collect();
    let strs: Vec<Option<&str>> = (0..n)
        .map(|i| match i % 5 {
            0 => None,
            1 => Some(""),
            _ => Some("zstd compressed utf8"),
        })
        .collect();
    let fields = SharedSlice::try_from_iter_in(
        [
            Field::new("i", DataType::Int64, true),
            Field::new("s", DataType::Utf8, true),
        ],
        Global,
    )
    .unwrap();
    let cols = SharedSlice::try_from_iter_in(
        [
            PrimitiveArray::<i64, Global>::try_from_options_in(&ints, Global)
                .unwrap()
                .into_array_ref(),
            StringArray::<Global>::try_from_options_in(&strs, Global)
                .unwrap()
                .into_array_ref(),
        ],
        Global,
    )
    .unwrap();
    RecordBatch::try_new(Schema::new(fields), cols).unwrap()
}

#[test]
fn writer_with_a_plugged_compressor_and_readers_with_the_builtin_decoder() {
    let b = batch(5000);
    let b2 = batch(17);
    let options = IpcWriteOptions {
        compression: Some(CompressionCodec::Zstd),
        ..Default::default()
    };
    // Only the decoder: the writer is refused up front, naming the codec.
    let r = StreamWriter::try_new_in(Vec::new(), b.schema(), options, Global);
    assert_eq!(r.err(), Some(Error::ZstdCodecMissing));

    let codecs = || WithCodec::new(RuzstdCompressor, BuiltinCodecs::new());
    let mut w =
        StreamWriter::try_new_with_codecs_in(Vec::new(), b.schema(), options, codecs(), Global)
            .unwrap();
    w.write(&b).unwrap();
    w.write(&b2).unwrap();
    w.finish().unwrap();
    let stream = w.into_inner();
    let opts = IpcReadOptions::default();
    let got: Vec<_> = SliceStreamReader::try_new_in(&stream[..], opts, Global)
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    assert_eq!(got.len(), 2);
    assert_eq!(got[0], b);
    assert_eq!(got[1], b2);
    let got: Vec<_> = StreamReader::try_new_in(&stream[..], opts, Global)
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    assert_eq!(got[0], b);

    let mut w =
        FileWriter::try_new_with_codecs_in(Vec::new(), b.schema(), options, codecs(), Global)
            .unwrap();
    w.write(&b).unwrap();
    w.finish().unwrap();
    let file = w.into_inner();
    let mut r = FileReader::try_new_in(&file[..], opts, Global).unwrap();
    assert_eq!(r.batch(0).unwrap(), b);

    // The bodies really are ZSTD frames: the uncompressed stream is larger.
    let mut plain =
        StreamWriter::try_new_in(Vec::new(), b.schema(), Default::default(), Global).unwrap();
    plain.write(&b).unwrap();
    assert!(plain.into_inner().len() > stream.len());
    // And a body buffer starts with its length, then a frame.
    let mut out = MutableBuffer::new_in(Global);
    compress_buffer(&mut RuzstdCompressor, &text(5000), &mut out).unwrap();
    assert_eq!(
        buffer_length(out.as_slice()),
        Ok(BufferLength::Compressed(5000))
    );
    assert_eq!(&out.as_slice()[8..12], &MAGIC.to_le_bytes());
}

// ----- case F2 of issue 37: a frame only libzstd's fast path decodes -----

/// One frame (content size 4,000, one compressed block) whose fourth
/// Huffman literal stream holds the bits of 593 of its 595 literals. RFC
/// 8878 §4.2.2 calls its decoding faulty; libzstd's fast Huffman decoder
/// (64-bit little-endian) decodes it anyway. `tests/data/zstd/README.md`
/// says where it comes from and which decoders accept it.
const F2: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/zstd/f2-huffman-stream-short.zst"
));

/// What `zstd -d` (libzstd's fast path) gives for [`F2`].
const F2_LIBZSTD: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/zstd/f2-huffman-stream-short.libzstd"
));

#[test]
fn a_huffman_literal_stream_short_of_its_literals_is_corrupt() {
    // The frame and block headers are sound: only decoding finds the fault.
    let header = zstd_frame::read_frame_header(F2).unwrap();
    assert_eq!(header.content_size, Some(F2_LIBZSTD.len() as u64));
    assert!(!header.checksum);
    let s = zstd_frame::scan(F2).unwrap();
    assert_eq!((s.frames, s.content_size), (1, Some(4000)));
    let mut d = ZstdDecoder::new();
    assert_eq!(d.check_declared_len(F2, 4000), Ok(()));

    let mut out = vec![0u8; 4000];
    assert_eq!(
        d.decompress(F2, &mut out),
        Err(Error::CorruptCompressedData)
    );
    // As a body buffer: refused after the one allocation of its declared
    // length, which is given back.
    let (got, alloc) = decode(&framed(4000, F2), 1 << 20);
    assert_eq!(got, Err(Error::CorruptCompressedData));
    assert_eq!(alloc.requests(), 1);
    // The decoder still decodes the next buffer.
    let mut out = [0u8; 3];
    assert_eq!(d.decompress(&raw_frame(b"xyz"), &mut out), Ok(3));
    assert_eq!(&out, b"xyz");
}

/// Writes [`F2`] for the body buffer holding [`F2_LIBZSTD`] (what libzstd
/// would read back from it), and `ruzstd`'s frame for any other.
struct ReplayF2;

impl Codec for ReplayF2 {
    fn codec(&self) -> CompressionCodec {
        CompressionCodec::Zstd
    }
    fn max_compressed_len(&self, input_len: usize) -> crate::Result<usize> {
        Ok(RuzstdCompressor
            .max_compressed_len(input_len)?
            .max(F2.len()))
    }
    fn compress(&mut self, input: &[u8], out: &mut [u8]) -> crate::Result<usize> {
        if input != F2_LIBZSTD {
            return RuzstdCompressor.compress(input, out);
        }
        out.get_mut(..F2.len())
            .ok_or(Error::OutOfBounds)?
            .copy_from_slice(F2);
        Ok(F2.len())
    }
    fn decompress(&mut self, _: &[u8], _: &mut [u8]) -> crate::Result<usize> {
        Err(Error::UnsupportedType)
    }
}

#[test]
fn readers_with_the_builtin_decoder_refuse_f2_in_a_body() {
    let fields =
        SharedSlice::try_from_iter_in([Field::new("f2", DataType::UInt8, false)], Global).unwrap();
    let cols = SharedSlice::try_from_iter_in(
        [PrimitiveArray::<u8, Global>::from_slice(F2_LIBZSTD).into_array_ref()],
        Global,
    )
    .unwrap();
    let b = RecordBatch::try_new(Schema::new(fields), cols).unwrap();
    let options = IpcWriteOptions {
        compression: Some(CompressionCodec::Zstd),
        ..Default::default()
    };
    let codecs = || WithCodec::new(ReplayF2, BuiltinCodecs::new());
    let opts = IpcReadOptions::default();
    let holds_f2 = |bytes: &[u8]| bytes.windows(F2.len()).any(|w| w == F2);

    let mut w =
        FileWriter::try_new_with_codecs_in(Vec::new(), b.schema(), options, codecs(), Global)
            .unwrap();
    w.write(&b).unwrap();
    w.finish().unwrap();
    let file = w.into_inner();
    assert!(holds_f2(&file));
    let mut r = FileReader::try_new_in(&file[..], opts, Global).unwrap();
    assert_eq!(r.batch(0).err(), Some(Error::CorruptCompressedData));

    let mut w =
        StreamWriter::try_new_with_codecs_in(Vec::new(), b.schema(), options, codecs(), Global)
            .unwrap();
    w.write(&b).unwrap();
    w.finish().unwrap();
    let stream = w.into_inner();
    assert!(holds_f2(&stream));
    let mut r = SliceStreamReader::try_new_in(&stream[..], opts, Global).unwrap();
    assert_eq!(
        r.next().map(|b| b.err()),
        Some(Some(Error::CorruptCompressedData))
    );
}
