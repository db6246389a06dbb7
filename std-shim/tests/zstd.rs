//! `ZstdCodec` (the reference library) and the core's `no_std` decoder:
//! buffer round trips, levels and checksums, corrupt frames (errors, never
//! panics, nothing allocated for impossible claims), and ZSTD streams and
//! files through the shim's and the core's writers and readers.

mod common;

use std::alloc::Layout;
use std::cell::Cell;
use std::ptr::NonNull;
use std::rc::Rc;

use alkaid::allocator_api2::alloc::{AllocError, Allocator};
use alkaid::buffer::{Buffer, MutableBuffer};
use alkaid::ipc::compression::zstd_decode::ZstdDecoder;
use alkaid::ipc::compression::{
    compress_buffer, decompress_buffer, zstd_frame, BuiltinCodecs, Codec, CodecSet, WithCodec,
};
use alkaid::ipc::message::CompressionCodec;
use alkaid::ipc::reader::{FileReader, IpcReadOptions, SliceStreamReader, StreamReader};
use alkaid::{Error, Global};
use alkaid_std::{IpcFormat, IpcInput, IpcWriteOptions, StdCodecs, StreamWriter, ZstdCodec};

/// An allocator counting its allocations (none must happen for refused claims).
#[derive(Clone, Debug, Default)]
struct Counting(Rc<Cell<usize>>);

// SAFETY: every block comes from `Global` and goes back to it unchanged.
unsafe impl Allocator for Counting {
    fn allocate(&self, layout: Layout) -> Result<NonNull<[u8]>, AllocError> {
        self.0.set(self.0.get() + 1);
        Global.allocate(layout)
    }
    unsafe fn deallocate(&self, ptr: NonNull<u8>, layout: Layout) {
        // SAFETY: `ptr` was allocated by `Global` with `layout`.
        unsafe { Global.deallocate(ptr, layout) }
    }
}

fn text(n: usize) -> Vec<u8> {
    let words: [&[u8]; 5] = [b"int64 ", b"float64 ", b"utf8 ", b"null ", b"7 "];
    let mut v = Vec::with_capacity(n);
    let mut i = 1usize;
    while v.len() < n {
        i = i.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        v.extend_from_slice(words[(i >> 33) % words.len()]);
    }
    v.truncate(n);
    v
}

fn noise(n: usize, mut s: u64) -> Vec<u8> {
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s as u8
        })
        .collect()
}

/// `data` as one compressed body buffer (8-byte length, then the frame).
fn compress(codec: &mut ZstdCodec, data: &[u8]) -> Vec<u8> {
    let mut out = MutableBuffer::new_in(Global);
    compress_buffer(codec, data, &mut out).unwrap();
    out.as_slice().to_vec()
}

/// Decodes with `codec`: the result and the number of allocations made.
fn decode<C: Codec>(codec: &mut C, bytes: &[u8], limit: usize) -> (alkaid::Result<Vec<u8>>, usize) {
    let alloc = Counting::default();
    let r = decompress_buffer(
        codec,
        &Buffer::<Counting>::from_slice_ref(bytes),
        limit,
        alloc.clone(),
    );
    (r.map(|b| b.as_slice().to_vec()), alloc.0.get())
}

/// Both decoders give the same result on `bytes`.
fn decode_both(bytes: &[u8], limit: usize) -> (alkaid::Result<Vec<u8>>, usize) {
    let (a, na) = decode(&mut ZstdCodec::new(), bytes, limit);
    let (b, nb) = decode(&mut ZstdDecoder::new(), bytes, limit);
    assert_eq!(a, b, "the library and ruzstd disagree");
    assert_eq!(na, nb);
    (a, na)
}

#[test]
fn buffers_round_trip_at_every_kind_of_level() {
    let data = text(200_000);
    let mut sizes = Vec::new();
    for level in [-5, 1, ZstdCodec::DEFAULT_LEVEL, 9, 19] {
        let mut c = ZstdCodec::with_level(level);
        assert_eq!(c.level(), level);
        let z = compress(&mut c, &data);
        assert_eq!(&z[..8], &(data.len() as i64).to_le_bytes());
        let h = zstd_frame::read_frame_header(&z[8..]).unwrap();
        assert_eq!(h.content_size, Some(data.len() as u64));
        assert!(!h.checksum);
        let (got, allocs) = decode_both(&z, 1 << 20);
        assert_eq!(got.unwrap(), data, "level {level}");
        assert_eq!(allocs, 1);
        sizes.push(z.len());
    }
    // Higher levels compress at least as well here.
    assert!(sizes[0] > sizes[2] && sizes[2] >= sizes[4], "{sizes:?}");
    assert!(ZstdCodec::level_range().contains(&19));
    assert_eq!(ZstdCodec::default().level(), 3);
}

#[test]
fn incompressible_and_tiny_buffers() {
    let mut c = ZstdCodec::new();
    // Noise does not shrink: stored raw with the -1 prefix.
    let n = noise(10_000, 9);
    let z = compress(&mut c, &n);
    assert_eq!(&z[..8], &(-1i64).to_le_bytes());
    assert_eq!(&z[8..], &n[..]);
    let (got, allocs) = decode_both(&z, 1 << 20);
    assert_eq!(got.unwrap(), n);
    assert_eq!(allocs, 0, "raw bytes are shared, not copied");
    // Empty input: nothing at all.
    assert!(compress(&mut c, &[]).is_empty());
    // A frame of one byte still decodes (called directly).
    let mut out = [0u8; 64];
    let k = c.compress(b"x", &mut out).unwrap();
    let mut one = [0u8; 1];
    assert_eq!(c.decompress(&out[..k], &mut one), Ok(1));
    assert_eq!(ZstdDecoder::new().decompress(&out[..k], &mut one), Ok(1));
    assert_eq!(&one, b"x");
}

#[test]
fn checksums_are_written_on_request_and_verified_by_both() {
    let data = text(30_000);
    let mut c = ZstdCodec::new().with_checksum(true);
    assert!(c.checksum());
    let mut z = compress(&mut c, &data);
    assert!(zstd_frame::read_frame_header(&z[8..]).unwrap().checksum);
    assert_eq!(decode_both(&z, 1 << 20).0.unwrap(), data);
    let last = z.len() - 1;
    z[last] ^= 0x01;
    let (got, _) = decode_both(&z, 1 << 20);
    assert_eq!(got, Err(Error::CompressedChecksumMismatch));
}

#[test]
fn bad_magic_and_garbage_are_corrupt_before_allocating() {
    let data = text(5000);
    let mut z = compress(&mut ZstdCodec::new(), &data);
    z[8] ^= 0xFF;
    assert_eq!(
        decode_both(&z, 1 << 20),
        (Err(Error::CorruptCompressedData), 0)
    );
    let mut out = vec![0u8; data.len()];
    assert_eq!(
        ZstdCodec::new().decompress(&z[8..], &mut out),
        Err(Error::CorruptCompressedData)
    );
    assert_eq!(
        ZstdCodec::new().decompress(&[], &mut out),
        Err(Error::CorruptCompressedData)
    );
    let mut g = 5000i64.to_le_bytes().to_vec();
    g.extend_from_slice(&noise(300, 4));
    assert_eq!(
        decode_both(&g, 1 << 20),
        (Err(Error::CorruptCompressedData), 0)
    );
}

#[test]
fn every_truncation_is_an_error_without_allocating() {
    for data in [text(50_000), text(300)] {
        let z = compress(&mut ZstdCodec::new().with_checksum(true), &data);
        for n in 1..z.len() {
            let (got, allocs) = decode_both(&z[..n], 1 << 20);
            assert_eq!(got, Err(Error::CorruptCompressedData), "prefix {n}");
            assert_eq!(allocs, 0, "prefix {n}");
        }
        // Straight to the codecs, without the header walk.
        let mut out = vec![0u8; data.len()];
        for n in (0..z.len() - 8).step_by(7) {
            let s = &z[8..8 + n];
            assert!(ZstdCodec::new().decompress(s, &mut out).is_err(), "{n}");
            assert!(ZstdDecoder::new().decompress(s, &mut out).is_err(), "{n}");
        }
    }
}

#[test]
fn declared_size_mismatches_are_refused_before_allocating() {
    let data = text(10_000);
    let z = compress(&mut ZstdCodec::new(), &data);
    for declared in [data.len() - 1, data.len() + 1, 1] {
        let mut m = z.clone();
        m[..8].copy_from_slice(&(declared as i64).to_le_bytes());
        assert_eq!(
            decode_both(&m, 1 << 20),
            (Err(Error::DecompressedSizeMismatch), 0),
            "{declared}"
        );
    }
    // Straight to the codecs: the output slice is too small or too large.
    let mut small = vec![0u8; data.len() - 1];
    assert_eq!(
        ZstdCodec::new().decompress(&z[8..], &mut small),
        Err(Error::DecompressedSizeMismatch)
    );
    assert_eq!(
        ZstdDecoder::new().decompress(&z[8..], &mut small),
        Err(Error::DecompressedSizeMismatch)
    );
    // A larger slice is filled in part: the count tells (and
    // `decompress_buffer` refuses the difference, above).
    let mut large = vec![0u8; data.len() + 1];
    assert_eq!(
        ZstdDecoder::new().decompress(&z[8..], &mut large),
        Ok(data.len())
    );
    assert_eq!(
        ZstdCodec::new().decompress(&z[8..], &mut large),
        Ok(data.len())
    );
}

#[test]
fn oversized_declared_lengths_are_refused_before_allocating() {
    let z = compress(&mut ZstdCodec::new(), &text(1000));
    let mut m = z.clone();
    m[..8].copy_from_slice(&(1i64 << 40).to_le_bytes());
    assert_eq!(decode_both(&m, 1 << 30), (Err(Error::LimitExceeded), 0));
    m[..8].copy_from_slice(&i64::MAX.to_le_bytes());
    assert_eq!(decode_both(&m, 1 << 30), (Err(Error::LimitExceeded), 0));
    // Under the limit but not what the frame holds.
    m[..8].copy_from_slice(&(1i64 << 29).to_le_bytes());
    assert_eq!(
        decode_both(&m, 1 << 30),
        (Err(Error::DecompressedSizeMismatch), 0)
    );
}

#[test]
fn byte_flips_are_errors_or_the_original_never_a_panic() {
    let data = text(4000);
    let z = compress(&mut ZstdCodec::with_level(9).with_checksum(true), &data);
    let mut lib = ZstdCodec::new();
    let mut ours = ZstdDecoder::new();
    for i in 8..z.len() {
        for mask in [0x01u8, 0x20, 0xFF] {
            let mut c = z.clone();
            c[i] ^= mask;
            let results = [
                decode(&mut lib, &c, 1 << 20).0,
                decode(&mut ours, &c, 1 << 20).0,
            ];
            for got in results.into_iter().flatten() {
                assert_eq!(got, data, "flip {i} ^ {mask:#x}");
            }
        }
    }
}

fn zstd_options() -> IpcWriteOptions {
    IpcWriteOptions {
        compression: Some(CompressionCodec::Zstd),
        ..Default::default()
    }
}

#[test]
fn zstd_streams_and_files_through_the_shim_and_the_core_readers() {
    let (schema, batches) = common::compressible(20_000);
    let plain = common::write_with(IpcFormat::Stream, &schema, &batches, Default::default());
    let opts = IpcReadOptions::default();
    for format in [IpcFormat::Stream, IpcFormat::File] {
        let bytes = common::write_with(format, &schema, &batches, zstd_options());
        assert!(bytes.len() * 4 < plain.len(), "{format}: {}", bytes.len());
        // The shim's readers (StdCodecs, the library).
        let input = IpcInput::from_bytes(&bytes).unwrap();
        let got: Vec<_> = input.reader().unwrap().map(Result::unwrap).collect();
        assert_eq!(got, batches);
        // The core's readers with only the built-in codecs (ruzstd).
        let got: Vec<_> = match format {
            IpcFormat::Stream => {
                let a: Vec<_> = SliceStreamReader::try_new_in(&bytes[..], opts, Global)
                    .unwrap()
                    .map(Result::unwrap)
                    .collect();
                let b: Vec<_> = StreamReader::try_new_in(&bytes[..], opts, Global)
                    .unwrap()
                    .map(Result::unwrap)
                    .collect();
                assert_eq!(a, b);
                a
            }
            IpcFormat::File => {
                let mut r = FileReader::try_new_in(&bytes[..], opts, Global).unwrap();
                (0..r.num_batches()).map(|i| r.batch(i).unwrap()).collect()
            }
        };
        assert_eq!(got, batches);
    }
    // The lazily read std::io stream reader.
    let bytes = common::write_with(IpcFormat::Stream, &schema, &batches, zstd_options());
    let got: Vec<_> = alkaid_std::read_stream(std::io::Cursor::new(bytes))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(got, batches);
}

#[test]
fn levels_and_checksums_through_the_writer() {
    let (schema, batches) = common::compressible(20_000);
    let mut sizes = Vec::new();
    for (level, checksum) in [(1, false), (19, true)] {
        let codecs: StdCodecs = WithCodec::new(
            ZstdCodec::with_level(level).with_checksum(checksum),
            BuiltinCodecs::new(),
        );
        let mut w =
            StreamWriter::try_new_with_codecs(Vec::new(), &schema, zstd_options(), codecs).unwrap();
        for b in &batches {
            w.write(b).unwrap();
        }
        w.finish().unwrap();
        let bytes = w.into_inner();
        sizes.push(bytes.len());
        let got: Vec<_> =
            SliceStreamReader::try_new_in(&bytes[..], IpcReadOptions::default(), Global)
                .unwrap()
                .map(Result::unwrap)
                .collect();
        assert_eq!(got, batches, "level {level}");
    }
    assert!(sizes[1] < sizes[0], "{sizes:?}");
}

#[test]
fn std_codecs_choose_by_codec() {
    let mut set = StdCodecs::default();
    let z = set.get(CompressionCodec::Zstd).unwrap();
    assert!(z.can_compress());
    assert_eq!(z.codec(), CompressionCodec::Zstd);
    assert_eq!(
        set.get(CompressionCodec::Lz4Frame).unwrap().codec(),
        CompressionCodec::Lz4Frame
    );
    // LZ4 through the shim's writer too.
    let (schema, batches) = common::compressible(3000);
    let options = IpcWriteOptions {
        compression: Some(CompressionCodec::Lz4Frame),
        ..Default::default()
    };
    let bytes = common::write_with(IpcFormat::File, &schema, &batches, options);
    let input = IpcInput::from_bytes(&bytes).unwrap();
    let got: Vec<_> = input.reader().unwrap().map(Result::unwrap).collect();
    assert_eq!(got, batches);
}
