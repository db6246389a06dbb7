//! Tests of the per-buffer framing ([`compress_buffer`], [`decompress_buffer`])
//! and of the [`Codec`] plug-in interface.

use super::lz4_frame::Lz4FrameCodec;
use super::*;
use crate::test_support::{check_every_failure, counting, TestAlloc};
use crate::Global;
use std::vec::Vec;

/// Sensor-log-like text: compressible.
pub(crate) fn text(n: usize) -> Vec<u8> {
    let mut v = Vec::with_capacity(n);
    let mut i = 0usize;
    while v.len() < n {
        v.extend_from_slice(b"temperature=");
        v.extend_from_slice(std::format!("{} ", (i * 7) % 50).as_bytes());
        i += 1;
    }
    v.truncate(n);
    v
}

/// Pseudo-random bytes: incompressible.
pub(crate) fn noise(n: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

fn framed(prefix: i64, body: &[u8]) -> Vec<u8> {
    let mut v = prefix.to_le_bytes().to_vec();
    v.extend_from_slice(body);
    v
}

#[test]
fn empty_buffer_stays_empty() {
    let mut out = MutableBuffer::new_in(Global);
    let n = compress_buffer(&mut Lz4FrameCodec::new(), &[], &mut out).unwrap();
    assert_eq!(n, 0);
    assert!(out.is_empty());
    let back = decompress_buffer(
        &mut Lz4FrameCodec::new(),
        &Buffer::<Global>::from_slice_ref(&[]),
        0,
        Global,
    )
    .unwrap();
    assert!(back.is_empty());
}

#[test]
fn compressible_buffer_gets_length_prefix_and_frame() {
    let data = text(10_000);
    let mut out = MutableBuffer::new_in(Global);
    out.try_extend_from_slice(b"xyz").unwrap(); // appends after what is there
    let n = compress_buffer(&mut Lz4FrameCodec::new(), &data, &mut out).unwrap();
    let bytes = out.as_slice();
    assert_eq!(n, bytes.len() - 3);
    assert!(n < data.len() / 4, "{n}");
    assert_eq!(&bytes[..3], b"xyz");
    assert_eq!(&bytes[3..11], &10_000i64.to_le_bytes());
    assert_eq!(&bytes[11..15], &[0x04, 0x22, 0x4D, 0x18]); // LZ4 frame magic
                                                           // The padding after the length stays zero.
    let cap = out.capacity();
    out.try_extend_zeros(cap - out.len()).unwrap();
    assert!(out.as_slice()[3 + n..].iter().all(|&b| b == 0));

    let input = Buffer::<Global>::from_slice_ref(&out.as_slice()[3..3 + n]);
    let back = decompress_buffer(&mut Lz4FrameCodec::new(), &input, 10_000, Global).unwrap();
    assert_eq!(back.as_slice(), &data[..]);
    assert!(back.is_owned());
    assert_eq!(back.as_ptr() as usize % 64, 0);
}

#[test]
fn incompressible_buffer_is_stored_raw_with_minus_one() {
    let data = noise(300, 7);
    let mut out = MutableBuffer::new_in(Global);
    let n = compress_buffer(&mut Lz4FrameCodec::new(), &data, &mut out).unwrap();
    assert_eq!(n, 308);
    assert_eq!(&out.as_slice()[..8], &[0xFF; 8]);
    assert_eq!(&out.as_slice()[8..], &data[..]);

    // Reading it back borrows the raw bytes: no copy, no allocation.
    let alloc = counting();
    let input = Buffer::<TestAlloc>::from_slice_ref(out.as_slice());
    let back = decompress_buffer(&mut Lz4FrameCodec::new(), &input, 0, alloc.clone()).unwrap();
    assert_eq!(back.as_slice(), &data[..]);
    assert!(!back.is_owned());
    assert_eq!(back.as_ptr(), out.as_slice()[8..].as_ptr());
    assert_eq!(alloc.requests(), 0);
}

#[test]
fn raw_slice_of_an_owned_buffer_shares_it() {
    let data = noise(100, 3);
    let owned = Buffer::try_copy_in(&framed(-1, &data), Global).unwrap();
    let back = decompress_buffer(&mut Lz4FrameCodec::new(), &owned, 0, Global).unwrap();
    assert!(back.is_owned());
    assert_eq!(back.as_ptr(), owned.as_slice()[8..].as_ptr());
    assert_eq!(back.as_slice(), &data[..]);
}

#[test]
fn prefix_zero_reads_as_empty() {
    let v = framed(0, &[]);
    let back = decompress_buffer(
        &mut Lz4FrameCodec::new(),
        &Buffer::<Global>::from_slice_ref(&v),
        0,
        Global,
    )
    .unwrap();
    assert!(back.is_empty());
    assert_eq!(buffer_length(&v), Ok(BufferLength::Empty));
}

#[test]
fn buffer_length_reads_the_prefix() {
    assert_eq!(buffer_length(&[]), Ok(BufferLength::Empty));
    assert_eq!(
        buffer_length(&framed(-1, b"abc")),
        Ok(BufferLength::Uncompressed(3))
    );
    assert_eq!(
        buffer_length(&framed(1 << 40, b"")),
        Ok(BufferLength::Compressed(1 << 40))
    );
    for short in 1..8 {
        assert_eq!(
            buffer_length(&[0xFF; 8][..short]),
            Err(Error::CorruptCompressedData)
        );
    }
    assert_eq!(
        buffer_length(&framed(-2, b"abc")),
        Err(Error::CorruptCompressedData)
    );
    assert_eq!(
        buffer_length(&framed(i64::MIN, b"")),
        Err(Error::CorruptCompressedData)
    );
}

#[test]
fn short_or_negative_prefix_is_corrupt() {
    let mut c = Lz4FrameCodec::new();
    for bad in [&[1u8, 0, 0][..], &framed(-5, b"abcd")[..]] {
        let r = decompress_buffer(&mut c, &Buffer::<Global>::from_slice_ref(bad), 100, Global);
        assert_eq!(r.err(), Some(Error::CorruptCompressedData));
    }
}

#[test]
fn huge_declared_length_is_refused_before_allocating() {
    let alloc = counting();
    let mut c = Lz4FrameCodec::new();
    // A 20-byte frame (header + end mark) behind a prefix declaring 1 TiB.
    let mut frame = Vec::new();
    let mut codec = Lz4FrameCodec::with_options(lz4_frame::FrameOptions {
        content_checksum: false,
        ..Default::default()
    });
    let mut tmp = [0u8; 64];
    let n = codec.compress(&[], &mut tmp).unwrap();
    frame.extend_from_slice(&tmp[..n]);
    assert!(frame.len() <= 20, "{}", frame.len());
    for declared in [1i64 << 40, i64::MAX] {
        let v = framed(declared, &frame);
        let r = decompress_buffer(&mut c, &Buffer::from_slice_ref(&v), 1 << 30, alloc.clone());
        assert_eq!(r.err(), Some(Error::LimitExceeded));
    }
    // Within the limit, but the frame cannot expand that far: refused by the
    // codec's check, still before allocating.
    let v = framed(1 << 29, &frame);
    let r = decompress_buffer(&mut c, &Buffer::from_slice_ref(&v), 1 << 30, alloc.clone());
    assert_eq!(r.err(), Some(Error::DecompressedSizeMismatch));
    assert_eq!(alloc.requests(), 0);
}

#[test]
fn declared_length_must_match_the_content() {
    let data = text(5000);
    let mut frame = std::vec![0u8; 8000];
    // A frame without content size, so only decoding can tell.
    let mut c = Lz4FrameCodec::with_options(lz4_frame::FrameOptions {
        content_size: false,
        ..Default::default()
    });
    let n = c.compress(&data, &mut frame).unwrap();
    frame.truncate(n);
    for declared in [4999i64, 5001, 6000] {
        let v = framed(declared, &frame);
        let r = decompress_buffer(
            &mut c,
            &Buffer::<Global>::from_slice_ref(&v),
            1 << 20,
            Global,
        );
        assert_eq!(r.err(), Some(Error::DecompressedSizeMismatch), "{declared}");
    }
    // With the content size in the frame, the mismatch is found before decoding.
    let alloc = counting();
    let mut out = MutableBuffer::new_in(Global);
    compress_buffer(&mut Lz4FrameCodec::new(), &data, &mut out).unwrap();
    let mut v = out.as_slice().to_vec();
    v[..8].copy_from_slice(&5001i64.to_le_bytes());
    let r = decompress_buffer(
        &mut Lz4FrameCodec::new(),
        &Buffer::from_slice_ref(&v),
        1 << 20,
        alloc.clone(),
    );
    assert_eq!(r.err(), Some(Error::DecompressedSizeMismatch));
    assert_eq!(alloc.requests(), 0);
}

/// A toy codec (run-length pairs `count, byte`) standing in for a
/// user-supplied implementation.
#[derive(Debug, Default)]
struct Rle {
    calls: usize,
}

impl Codec for Rle {
    fn codec(&self) -> CompressionCodec {
        CompressionCodec::Zstd
    }
    fn max_compressed_len(&self, input_len: usize) -> Result<usize> {
        input_len.checked_mul(2).ok_or(Error::CapacityOverflow)
    }
    fn compress(&mut self, input: &[u8], out: &mut [u8]) -> Result<usize> {
        self.calls += 1;
        let mut w = 0;
        let mut i = 0;
        while i < input.len() {
            let b = input[i];
            let mut run = 1;
            while i + run < input.len() && input[i + run] == b && run < 255 {
                run += 1;
            }
            let pair = out.get_mut(w..w + 2).ok_or(Error::OutOfBounds)?;
            pair.copy_from_slice(&[run as u8, b]);
            w += 2;
            i += run;
        }
        Ok(w)
    }
    fn decompress(&mut self, input: &[u8], out: &mut [u8]) -> Result<usize> {
        self.calls += 1;
        let mut w = 0;
        for pair in input.chunks(2) {
            let [run, b] = pair else {
                return Err(Error::CorruptCompressedData);
            };
            let dst = out
                .get_mut(w..w + *run as usize)
                .ok_or(Error::DecompressedSizeMismatch)?;
            dst.fill(*b);
            w += *run as usize;
        }
        Ok(w)
    }
}

#[test]
fn a_user_codec_plugs_in_through_dyn() {
    let mut rle = Rle::default();
    let codec: &mut dyn Codec = &mut rle;
    assert_eq!(codec.codec(), CompressionCodec::Zstd);
    let data = [7u8; 1000];
    let mut out = MutableBuffer::new_in(Global);
    let n = compress_buffer(codec, &data, &mut out).unwrap();
    assert_eq!(n, 8 + 8); // 1000 = 255 * 3 + 235: four pairs
    assert_eq!(&out.as_slice()[8..], &[255, 7, 255, 7, 255, 7, 235, 7]);
    let input = Buffer::<Global>::from_slice_ref(out.as_slice());
    let back = decompress_buffer(codec, &input, 1000, Global).unwrap();
    assert_eq!(back.as_slice(), &data[..]);
    // Through `&mut C` as well.
    let mut by_ref = &mut rle;
    let back = decompress_buffer(&mut by_ref, &input, 1000, Global).unwrap();
    assert_eq!(back.len(), 1000);
    assert_eq!(rle.calls, 3);
}

#[test]
fn codec_errors_leave_the_output_as_it_was() {
    struct Failing;
    impl Codec for Failing {
        fn codec(&self) -> CompressionCodec {
            CompressionCodec::Lz4Frame
        }
        fn max_compressed_len(&self, n: usize) -> Result<usize> {
            Ok(n)
        }
        fn compress(&mut self, _: &[u8], _: &mut [u8]) -> Result<usize> {
            Err(Error::Io)
        }
        fn decompress(&mut self, _: &[u8], _: &mut [u8]) -> Result<usize> {
            Err(Error::Io)
        }
    }
    let mut out = MutableBuffer::new_in(Global);
    out.try_extend_from_slice(b"keep").unwrap();
    assert_eq!(
        compress_buffer(&mut Failing, b"data", &mut out),
        Err(Error::Io)
    );
    assert_eq!(out.as_slice(), b"keep");
    let cap = out.capacity();
    out.try_extend_zeros(cap - out.len()).unwrap();
    assert!(out.as_slice()[4..].iter().all(|&b| b == 0));
}

#[test]
#[cfg_attr(miri, ignore)] // many runs over 20 KB
fn allocation_failures_are_reported() {
    let data = text(20_000);
    let run = |alloc: TestAlloc| -> Result<()> {
        let mut out = MutableBuffer::new_in(alloc.clone());
        compress_buffer(&mut Lz4FrameCodec::new(), &data, &mut out)?;
        let input = Buffer::from_slice_ref(out.as_slice());
        let back = decompress_buffer(&mut Lz4FrameCodec::new(), &input, 1 << 20, alloc)?;
        assert_eq!(back.as_slice(), &data[..]);
        Ok(())
    };
    let n = check_every_failure(run);
    assert!(n >= 2, "{n}");
}

/// Issue #14: the compressed writer grew its body scratch once per buffer
/// (a new 64-byte aligned allocation and a copy of everything compressed
/// so far each time: quadratic in the number of buffers). A batch with a
/// view column over 400 data buffers now costs a handful of allocations
/// for the first batch (the body sized once from the plan) and none for
/// the next ones.
#[test]
#[cfg(feature = "views")]
#[cfg_attr(miri, ignore)] // 400 buffers of 2 KB
fn compressed_writing_sizes_the_body_once_not_per_buffer() {
    use crate::array::{Array, ByteView, RecordBatch, StringViewArray};
    use crate::buffer::SharedSlice;
    use crate::datatypes::{DataType, Field, Schema};
    use crate::ipc::reader::{IpcReadOptions, SliceStreamReader};
    use crate::ipc::writer::{IpcWriteOptions, StreamWriter};

    const BUFFERS: usize = 400;
    let alloc = counting();
    let data = text(2_000);
    let mut views = Vec::new();
    for b in 0..BUFFERS {
        for at in (0..2_000).step_by(100) {
            views.extend(
                ByteView::try_new(&data[at..at + 100], b, at)
                    .unwrap()
                    .to_bytes(),
            );
        }
    }
    let buffers = SharedSlice::try_from_fn_in(BUFFERS, alloc.clone(), |_| {
        Buffer::try_copy_in(&data, alloc.clone())
    })
    .unwrap();
    let column = StringViewArray::try_new(
        Buffer::try_copy_in(&views, alloc.clone()).unwrap(),
        buffers,
        None,
    )
    .unwrap();
    let schema = Schema::new(
        SharedSlice::try_from_iter_in([Field::new("s", DataType::Utf8View, false)], alloc.clone())
            .unwrap(),
    );
    let batch = RecordBatch::try_new(
        schema.clone(),
        SharedSlice::try_from_iter_in([column.into_array_ref()], alloc.clone()).unwrap(),
    )
    .unwrap();
    let options = IpcWriteOptions {
        compression: Some(CompressionCodec::Lz4Frame),
        ..Default::default()
    };
    let mut sink = Vec::with_capacity(4 << 20);
    let mut w = StreamWriter::try_new_in(&mut sink, &schema, options, alloc.clone()).unwrap();
    let before = alloc.requests();
    w.write(&batch).unwrap();
    let first = alloc.requests() - before;
    assert!(first < 32, "{first} allocations and growths for one batch");
    w.write(&batch).unwrap();
    w.write(&batch).unwrap();
    assert_eq!(
        alloc.requests() - before,
        first,
        "the steady state allocates"
    );
    w.finish().unwrap();
    drop(w);
    let back: Vec<_> = SliceStreamReader::try_new_in(&sink[..], IpcReadOptions::default(), Global)
        .unwrap()
        .map(|b| b.unwrap())
        .collect();
    assert_eq!(back.len(), 3);
    let crate::array::ArrayRef::Utf8View(got) = &back[2].columns()[0] else {
        panic!("not a view column")
    };
    assert_eq!(got.len(), BUFFERS * 20);
    assert_eq!(got.data_buffers().len(), BUFFERS);
    for i in [0, 7, 19 * 20 + 3, BUFFERS * 20 - 1] {
        let at = (i % 20) * 100;
        assert_eq!(got.value_bytes(i), Some(&data[at..at + 100]), "value {i}");
    }
}

/// Appending many buffers with `compress_buffer` grows `out` geometrically
/// (it grew to the exact need per buffer: a copy of everything appended so
/// far each time, #14).
#[test]
fn appending_many_buffers_grows_geometrically() {
    let alloc = counting();
    let data = text(2_000);
    let mut out = MutableBuffer::new_in(alloc.clone());
    let mut total = 0;
    for _ in 0..500 {
        total += compress_buffer(&mut Lz4FrameCodec::new(), &data, &mut out).unwrap();
    }
    assert_eq!(out.len(), total);
    assert!(
        alloc.requests() <= 24,
        "{} allocations and growths",
        alloc.requests()
    );
}
