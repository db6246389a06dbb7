//! The core's `no_std` ZSTD decoder (`ZstdDecoder`, over `ruzstd`) against
//! the reference library (libzstd through the `zstd` crate) on frames the
//! library refuses: a block larger than its frame's Block_Maximum_Size (RFC
//! 8878 §3.1.1.2.4) and reserved bits in a sequences section's
//! Symbol_Compression_Modes byte (§3.1.1.3.2.1). Valid frames of several
//! sizes still decode to the same bytes, and a differential run of random
//! mutations checks that whenever the library refuses a frame, so do we.
//!
//! The other way round, case F2 of issue 37: a frame that libzstd's fast
//! Huffman decoder reads and RFC 8878 §4.2.2 calls faulty, which the core
//! refuses; every reader of the std shim gives the library's verdict.

mod common;

use alkaid::array::{Array, PrimitiveArray, RecordBatch};
use alkaid::ipc::compression::zstd_decode::ZstdDecoder;
use alkaid::ipc::compression::{zstd_frame, Codec, WithCodec};
use alkaid::ipc::message::CompressionCodec;
use alkaid::ipc::reader::{FileReader, IpcReadOptions, SliceStreamReader};
use alkaid::ipc::writer::{FileWriter, StreamWriter};
use alkaid::{Error, Global};
use alkaid_std::{
    FileSeekReader, IpcFormat, IpcInput, IpcWriteOptions, StdCodecs, ThreadedCodecs, ZstdCodec,
};
use zstd::zstd_safe::{CCtx, CParameter, DCtx};

/// Compresses `data` with the library: `level`, window log `window_log`
/// (0: the level's default), with or without content size and checksum.
fn lib_compress(
    data: &[u8],
    level: i32,
    window_log: u32,
    content_size: bool,
    checksum: bool,
) -> Vec<u8> {
    let mut c = CCtx::create();
    c.set_parameter(CParameter::CompressionLevel(level))
        .unwrap();
    if window_log != 0 {
        c.set_parameter(CParameter::WindowLog(window_log)).unwrap();
    }
    c.set_parameter(CParameter::ContentSizeFlag(content_size))
        .unwrap();
    c.set_parameter(CParameter::ChecksumFlag(checksum)).unwrap();
    let mut out = Vec::with_capacity(zstd::zstd_safe::compress_bound(data.len()));
    c.compress2(&mut out, data).unwrap();
    out
}

/// The library's streaming decoder (`ZSTD_decompressStream`), which checks
/// every block header against Block_Maximum_Size (its one-shot
/// `ZSTD_decompressDCtx` checks compressed blocks only).
fn lib_stream_decode(frame: &[u8]) -> Result<Vec<u8>, String> {
    zstd::stream::decode_all(frame).map_err(|e| e.to_string())
}

/// The library's one-shot decoding of `frame` into at most `cap` bytes.
fn lib_decode(frame: &[u8], cap: usize) -> Result<Vec<u8>, String> {
    let mut d = DCtx::create();
    let mut out = vec![0u8; cap];
    match d.decompress(&mut out[..], frame) {
        Ok(n) => {
            out.truncate(n);
            Ok(out)
        }
        Err(code) => Err(zstd::zstd_safe::get_error_name(code).to_string()),
    }
}

/// Our decoding of `frame` into at most `cap` bytes.
fn our_decode(frame: &[u8], cap: usize) -> Result<Vec<u8>, Error> {
    let mut out = vec![0u8; cap];
    let n = ZstdDecoder::new().decompress(frame, &mut out)?;
    out.truncate(n);
    Ok(out)
}

fn text(n: usize, seed: u64) -> Vec<u8> {
    let words: [&[u8]; 7] = [
        b"arrow ", b"int64 ", b"null ", b"utf8 ", b"7 ", b"zstd ", b"\n",
    ];
    let mut s = seed;
    let mut v = Vec::with_capacity(n);
    while v.len() < n {
        s = s.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        v.extend_from_slice(words[(s >> 33) as usize % words.len()]);
    }
    v.truncate(n);
    v
}

/// Bytes from a 16-letter alphabet: Huffman-coded literals, few matches.
fn letters(n: usize, mut s: u64) -> Vec<u8> {
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            b'a' + (s % 16) as u8
        })
        .collect()
}

/// Where the first compressed block of the single frame `frame` has its
/// Symbol_Compression_Modes byte (`None`: no compressed block with
/// sequences). A reading of RFC 8878 §3.1.1.3 written for this test,
/// independent of the core's.
fn modes_byte_offset(frame: &[u8]) -> Option<usize> {
    let h = zstd_frame::read_frame_header(frame).ok()?;
    let mut pos = h.header_len;
    loop {
        let bh = u32::from_le_bytes([frame[pos], frame[pos + 1], frame[pos + 2], 0]);
        let (last, ty, size) = (bh & 1, (bh >> 1) & 3, (bh >> 3) as usize);
        let body = pos + 3;
        if ty == 2 {
            let b = &frame[body..body + size];
            let lit_end = match (b[0] & 3, (b[0] >> 2) & 3) {
                (0, 0 | 2) => 1 + (b[0] >> 3) as usize,
                (1, 0 | 2) => 2,
                (0, 1) => 2 + ((b[0] >> 4) as usize | (b[1] as usize) << 4),
                (1, 1) => 3,
                (0, _) => 3 + ((b[0] >> 4) as usize | (b[1] as usize) << 4 | (b[2] as usize) << 12),
                (1, _) => 4,
                (_, sf) => {
                    let (hl, bits) = match sf {
                        0 | 1 => (3, 10),
                        2 => (4, 14),
                        _ => (5, 18),
                    };
                    let mut v = 0u64;
                    for (i, x) in b[..hl].iter().enumerate() {
                        v |= u64::from(*x) << (8 * i);
                    }
                    hl + ((v >> (4 + bits)) & ((1 << bits) - 1)) as usize
                }
            };
            let nb = match b[lit_end] {
                0 => None,
                1..=127 => Some(1),
                128..=254 => Some(2),
                255 => Some(3),
            };
            if let Some(nb) = nb {
                return Some(body + lit_end + nb);
            }
        }
        pos = body + if ty == 1 { 1 } else { size };
        if last == 1 {
            return None;
        }
    }
}

/// Valid frames of several sizes, levels and flags decode to the same bytes
/// with both decoders (the new checks refuse nothing the library accepts).
#[test]
fn valid_frames_of_several_sizes_still_decode() {
    let mut n = 0;
    for size in [
        0usize, 1, 100, 1024, 4096, 65_536, 131_072, 131_073, 400_000,
    ] {
        for data in [text(size, 3), letters(size, 5)] {
            for (level, window_log, content_size, checksum) in [
                (1, 0, true, false),
                (3, 10, false, true),
                (9, 17, true, true),
                (19, 0, false, false),
            ] {
                let f = lib_compress(&data, level, window_log, content_size, checksum);
                assert_eq!(lib_decode(&f, size).as_deref(), Ok(&data[..]));
                assert_eq!(
                    our_decode(&f, size).as_deref(),
                    Ok(&data[..]),
                    "size {size} level {level} window log {window_log}"
                );
                n += 1;
            }
        }
    }
    assert_eq!(n, 72);
}

/// Reserved bits in the modes byte of a compressed block with sequences:
/// the library refuses each of the three settings, and so do we, with
/// `ZstdReservedBitsSet`.
#[test]
fn reserved_modes_bits_are_refused_like_the_library() {
    let mut checked = 0;
    for (data, level) in [
        (text(5000, 1), 1),
        (text(100_000, 2), 3),
        (text(300, 4), 19),
    ] {
        for checksum in [false, true] {
            let f = lib_compress(&data, level, 0, true, checksum);
            let at = modes_byte_offset(&f).expect("a compressed block with sequences");
            assert_eq!(f[at] & 3, 0);
            assert_eq!(our_decode(&f, data.len()).as_deref(), Ok(&data[..]));
            for bits in 1..=3u8 {
                let mut g = f.clone();
                g[at] |= bits;
                let lib = lib_decode(&g, data.len());
                assert!(lib.is_err(), "the library accepted reserved bits {bits}");
                assert_eq!(
                    our_decode(&g, data.len()).map(|v| v.len()),
                    Err(Error::ZstdReservedBitsSet),
                    "bits {bits}, library: {:?}",
                    lib.map(|v| v.len())
                );
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 18);
}

/// A block larger than its frame's Block_Maximum_Size, raw, RLE or
/// compressed: the library refuses it (raw and RLE blocks in its streaming
/// decoder only: its one-shot decoder lets them through) and so do we, with
/// `ZstdBlockTooLarge`; the same block under a large enough window passes.
#[test]
fn oversized_blocks_are_refused_like_the_library() {
    // Raw and RLE blocks of 1025 bytes in a frame whose window is 1 KiB
    // (window descriptor 0, no content size), then in one of 2 KiB.
    for (ty, body) in [(0u32, vec![b'x'; 1025]), (1, vec![b'x'])] {
        for (wd, ok) in [(0x00u8, false), (0x08, true)] {
            let mut f = zstd_frame::MAGIC.to_le_bytes().to_vec();
            f.extend_from_slice(&[0x00, wd]);
            let h = 1 | (ty << 1) | (1025 << 3);
            f.extend_from_slice(&h.to_le_bytes()[..3]);
            f.extend_from_slice(&body);
            let want = vec![b'x'; 1025];
            let lib = lib_stream_decode(&f);
            if ok {
                assert_eq!(lib.as_deref(), Ok(&want[..]));
                assert_eq!(our_decode(&f, 4096).as_deref(), Ok(&want[..]));
            } else {
                assert!(lib.is_err(), "type {ty}: the library accepted it");
                assert_eq!(our_decode(&f, 4096), Err(Error::ZstdBlockTooLarge));
            }
        }
    }
    // A compressed block of more than 1 KiB (Huffman-coded letters, window
    // 4 KiB, no content size) whose window descriptor is lowered to 1 KiB.
    let data = letters(3000, 9);
    let f = lib_compress(&data, 1, 12, false, false);
    let h = zstd_frame::read_frame_header(&f).unwrap();
    assert!(!h.single_segment);
    assert_eq!(h.window_size, 4096);
    let bh = u32::from_le_bytes([f[h.header_len], f[h.header_len + 1], f[h.header_len + 2], 0]);
    assert_eq!((bh >> 1) & 3, 2, "a compressed block");
    assert!((bh >> 3) > 1024, "block of {} bytes", bh >> 3);
    assert_eq!(our_decode(&f, 3000).as_deref(), Ok(&data[..]));
    let mut g = f.clone();
    g[5] = 0x00;
    assert!(lib_decode(&g, 3000).is_err());
    assert!(lib_stream_decode(&g).is_err());
    assert_eq!(our_decode(&g, 3000), Err(Error::ZstdBlockTooLarge));
}

/// Many random mutations of a few valid frames, each decoded by both (the
/// library's one-shot decoder, as the std shim's `ZstdCodec` uses it): when
/// the library refuses a frame we must refuse it too. When both accept,
/// the bytes may differ only for a frame without a content checksum (a
/// corrupt frame that nothing marks as corrupt). Prints the counts.
#[test]
fn random_mutations_refused_by_the_library_are_refused_by_us() {
    let mut seed = 0x0123_4567_89AB_CDEFu64;
    let mut rnd = move |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    let sources = [
        (text(3000, 11), 3, true, true),
        (letters(2000, 12), 1, true, false),
        (text(20_000, 13), 19, false, true),
        ([text(700, 14), letters(700, 15)].concat(), 5, true, false),
    ];
    let (mut both_ok, mut both_err, mut only_lib_err, mut only_ours_err, mut differ) =
        (0, 0, 0, 0, 0);
    let mut only_lib_examples = Vec::new();
    for (data, level, content_size, checksum) in &sources {
        let f = lib_compress(data, *level, 0, *content_size, *checksum);
        for _ in 0..1500 {
            let mut g = f.clone();
            // 1 to 3 edits: flip a bit, set a byte, or (rarely) cut the tail.
            for _ in 0..1 + rnd(3) {
                let i = rnd(g.len());
                match rnd(8) {
                    0..=4 => g[i] ^= 1 << rnd(8),
                    5 | 6 => g[i] = rnd(256) as u8,
                    _ => g.truncate(i.max(1)),
                }
            }
            let lib = lib_decode(&g, data.len());
            let ours = our_decode(&g, data.len());
            match (&lib, &ours) {
                (Ok(a), Ok(b)) if a == b => both_ok += 1,
                (Ok(_), Ok(_)) => {
                    differ += 1;
                    // Without a content checksum nothing tells a corrupt
                    // frame from a valid one: the two decoders may then
                    // rebuild different bytes. With one, they cannot both
                    // accept different content.
                    let h = zstd_frame::read_frame_header(&g);
                    assert!(h.is_ok_and(|h| !h.checksum), "{g:02x?}");
                }
                (Err(_), Err(_)) => both_err += 1,
                (Ok(_), Err(_)) => only_ours_err += 1,
                (Err(e), Ok(_)) => {
                    only_lib_err += 1;
                    if only_lib_examples.len() < 5 {
                        only_lib_examples.push(e.clone());
                    }
                }
            }
        }
    }
    println!(
        "{} mutations: both decode (equal) {both_ok}, both refuse {both_err}, \
         only the library refuses {only_lib_err}, only we refuse {only_ours_err}, \
         both decode but differ {differ}",
        sources.len() * 1500
    );
    assert_eq!(
        only_lib_err, 0,
        "frames the library refuses and we decode: {only_lib_examples:?}"
    );
    // 4 with this seed: corrupt frames without a checksum that both decode.
    assert!(differ <= 10, "{differ}");
}

// ----- case F2 of issue 37 (core/tests/data/zstd/README.md) -----

/// One frame (content size 4,000) whose fourth Huffman literals stream runs
/// out of bits two literals before its share.
const F2: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../core/tests/data/zstd/f2-huffman-stream-short.zst"
));

/// What `zstd -d` (libzstd's fast Huffman decoder) gives for [`F2`].
const F2_LIBZSTD: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../core/tests/data/zstd/f2-huffman-stream-short.libzstd"
));

/// Writes [`F2`] for the body buffer holding [`F2_LIBZSTD`], the library's
/// frame for any other.
struct ReplayF2(ZstdCodec);

impl Codec for ReplayF2 {
    fn codec(&self) -> CompressionCodec {
        CompressionCodec::Zstd
    }
    fn max_compressed_len(&self, input_len: usize) -> alkaid::Result<usize> {
        Ok(self.0.max_compressed_len(input_len)?.max(F2.len()))
    }
    fn compress(&mut self, input: &[u8], out: &mut [u8]) -> alkaid::Result<usize> {
        if input != F2_LIBZSTD {
            return self.0.compress(input, out);
        }
        out.get_mut(..F2.len())
            .ok_or(Error::OutOfBounds)?
            .copy_from_slice(F2);
        Ok(F2.len())
    }
    fn decompress(&mut self, input: &[u8], out: &mut [u8]) -> alkaid::Result<usize> {
        self.0.decompress(input, out)
    }
}

/// `batch` written in `format` (by the core's writers) with [`F2`] as the
/// body of its one column.
fn with_f2_body(format: IpcFormat, batch: &RecordBatch<'static, Global>) -> Vec<u8> {
    let options = IpcWriteOptions {
        compression: Some(CompressionCodec::Zstd),
        ..Default::default()
    };
    let codecs = || WithCodec::new(ReplayF2(ZstdCodec::new()), StdCodecs::default());
    let schema = batch.schema();
    let bytes = match format {
        IpcFormat::File => {
            let mut w =
                FileWriter::try_new_with_codecs_in(Vec::new(), schema, options, codecs(), Global)
                    .unwrap();
            w.write(batch).unwrap();
            w.finish().unwrap();
            w.into_inner()
        }
        IpcFormat::Stream => {
            let mut w =
                StreamWriter::try_new_with_codecs_in(Vec::new(), schema, options, codecs(), Global)
                    .unwrap();
            w.write(batch).unwrap();
            w.finish().unwrap();
            w.into_inner()
        }
    };
    assert!(bytes.windows(F2.len()).any(|w| w == F2), "{format}");
    bytes
}

/// The column's bytes of a reader's first batch, or its error.
fn values(
    batch: Result<Option<RecordBatch<'_, Global>>, alkaid_std::Error>,
) -> Result<Vec<u8>, Error> {
    match batch {
        Ok(Some(b)) => Ok(b
            .column(0)
            .unwrap()
            .as_primitive::<u8>()
            .unwrap()
            .values()
            .to_vec()),
        Ok(None) => panic!("no batch"),
        Err(e) => Err(e.as_arrow().unwrap()),
    }
}

/// The library decodes F2 to the `zstd` command's bytes on 64-bit
/// little-endian hosts (its fast Huffman decoder) and refuses it elsewhere
/// (its generic decoder checks that each stream is consumed exactly); the
/// core's decoder refuses it everywhere. Every reader of the std shim —
/// file and stream, in memory, mapped, seeking, lazily read, and the
/// multi-threaded codecs of the `alkaid` tool — gives the library's
/// verdict; the core's readers with only their built-in codecs refuse it.
#[test]
fn f2_every_std_reader_gives_the_library_verdict_the_core_refuses() {
    let mut out = vec![0u8; F2_LIBZSTD.len()];
    let library = ZstdCodec::new()
        .decompress(F2, &mut out)
        .map(|n| out[..n].to_vec());
    if cfg!(all(target_endian = "little", target_pointer_width = "64")) {
        assert_eq!(library.as_deref(), Ok(F2_LIBZSTD));
    } else {
        assert_eq!(library, Err(Error::CorruptCompressedData));
    }
    assert_eq!(
        our_decode(F2, F2_LIBZSTD.len()),
        Err(Error::CorruptCompressedData)
    );

    let batch = RecordBatch::try_from_iter([(
        "f2",
        PrimitiveArray::<u8, Global>::from_slice(F2_LIBZSTD).into_array_ref(),
    )])
    .unwrap();
    let file = with_f2_body(IpcFormat::File, &batch);
    let stream = with_f2_body(IpcFormat::Stream, &batch);
    let dir = common::temp_dir("zstd-f2");
    let path = dir.join("f2.arrow");
    std::fs::write(&path, &file).unwrap();

    for bytes in [&file, &stream] {
        let input = IpcInput::from_bytes(bytes).unwrap();
        assert_eq!(values(input.reader().unwrap().next_batch()), library);
        let mut threaded = input
            .reader_with_codecs(IpcReadOptions::default(), ThreadedCodecs::new(2))
            .unwrap();
        assert_eq!(values(threaded.next_batch()), library);
    }
    let mut lazy = alkaid_std::read_stream(std::io::Cursor::new(stream.clone())).unwrap();
    assert_eq!(values(lazy.next_batch()), library);
    let mut mapped = alkaid_std::open_ipc(&path).unwrap().reader().unwrap();
    assert_eq!(values(mapped.next_batch()), library);
    let mut seek = FileSeekReader::open(&path).unwrap();
    assert_eq!(values(seek.next_batch()), library);

    // The core's readers with the built-in codecs (ruzstd).
    let opts = IpcReadOptions::default();
    let mut r = FileReader::try_new_in(&file[..], opts, Global).unwrap();
    assert_eq!(r.batch(0).err(), Some(Error::CorruptCompressedData));
    let mut r = SliceStreamReader::try_new_in(&stream[..], opts, Global).unwrap();
    assert_eq!(
        r.next().map(|b| b.err()),
        Some(Some(Error::CorruptCompressedData))
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
