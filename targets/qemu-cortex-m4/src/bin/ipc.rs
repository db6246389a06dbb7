//! IPC on the MCU: a stream written into a static byte array (schema in
//! flash, columns in an arena), then read back zero-copy and fully
//! validated; the same with LZ4 frame compression; LZ4 round trips of raw
//! buffers. No global allocator.

#![no_std]
#![no_main]

use alkaid::array::{Array, ArrayRef, PrimitiveArray, RecordBatch, StringArray};
use alkaid::buffer::SharedSlice;
use alkaid::datatypes::{DataType, Field, Schema};
use alkaid::ipc::compression::lz4_frame::{FrameOptions, Lz4FrameCodec};
use alkaid::ipc::compression::Codec;
use alkaid::ipc::message::CompressionCodec;
use alkaid::ipc::reader::{IpcReadOptions, SliceStreamReader};
use alkaid::ipc::writer::{IpcWriteOptions, StreamWriter};
use alkaid_alloc::StaticArena;
use alkaid_qemu_cortex_m4::{entry, Harness};

const ARENA_BYTES: usize = 256 * 1024;
static ARENA: StaticArena<ARENA_BYTES> = StaticArena::new();
type A = &'static StaticArena<ARENA_BYTES>;

static FIELDS: [Field<'static, A>; 3] = [
    Field::new("t", DataType::UInt32, false),
    Field::new("value", DataType::Float32, true),
    Field::new("label", DataType::Utf8, true),
];
static SCHEMA: Schema<'static, A> = Schema::from_fields(SharedSlice::borrowed(&FIELDS));

static TIMES: [u32; 6] = [10, 20, 30, 40, 50, 60];

/// A sink over a byte array (the firmware's "file").
struct Sink<'s> {
    buf: &'s mut [u8],
    len: usize,
}

impl embedded_io::ErrorType for Sink<'_> {
    type Error = embedded_io::ErrorKind;
}

impl embedded_io::Write for Sink<'_> {
    fn write(&mut self, data: &[u8]) -> Result<usize, Self::Error> {
        let room = self.buf.len() - self.len;
        let n = data.len().min(room);
        self.buf[self.len..self.len + n].copy_from_slice(&data[..n]);
        self.len += n;
        Ok(n)
    }
    fn flush(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}

fn batch() -> alkaid::Result<RecordBatch<'static, A>> {
    let values = PrimitiveArray::<f32, A>::try_from_options_in(
        &[Some(1.5), None, Some(-2.25), Some(3.0), Some(0.0), None],
        &ARENA,
    )?;
    let labels = StringArray::<A>::try_from_options_in(
        &[
            Some("ok"),
            Some("ok"),
            None,
            Some("warn"),
            Some("ok"),
            Some("a longer label"),
        ],
        &ARENA,
    )?;
    let cols = SharedSlice::try_from_iter_in(
        [
            PrimitiveArray::<u32, A>::from_slice(&TIMES).into_array_ref(),
            values.into_array_ref(),
            labels.into_array_ref(),
        ],
        &ARENA,
    )?;
    RecordBatch::try_new(SCHEMA.clone(), cols)
}

fn round_trip(
    t: &mut alkaid_qemu_cortex_m4::Checks,
    options: IpcWriteOptions,
) -> alkaid::Result<()> {
    let b = batch()?;
    // The "file": a byte array on the stack.
    let mut out = [0u8; 16 * 1024];
    let mut w = StreamWriter::try_new_in(
        Sink {
            buf: &mut out,
            len: 0,
        },
        &SCHEMA,
        options,
        &ARENA,
    )?;
    w.write(&b)?;
    w.write(&b)?;
    w.finish()?;
    let n = w.into_inner().len;
    t.check("stream is a multiple of 8", n % 8 == 0);
    let bytes: &[u8] = &out[..n];
    let r = SliceStreamReader::try_new_in(bytes, IpcReadOptions::default(), &ARENA)?;
    t.eq("schema", r.schema(), &SCHEMA);
    let mut batches = 0;
    for got in r {
        let got = got?;
        t.check("batch equal", got == b);
        batches += 1;
        if let Some(ArrayRef::Utf8(s)) = got.column(2) {
            t.eq("label 5", &s.value(5), &Some("a longer label"));
        }
    }
    t.eq("batches", &batches, &2);
    Ok(())
}

#[entry]
fn main() -> ! {
    let mut h = Harness::new("ipc");

    h.test("stream_write_then_read_back", |t| {
        round_trip(t, IpcWriteOptions::default())?;
        // SAFETY: single-threaded; no arena allocation is alive.
        unsafe { ARENA.reset_unchecked() };
        Ok(())
    });

    h.test("lz4_compressed_stream", |t| {
        let options = IpcWriteOptions {
            compression: Some(CompressionCodec::Lz4Frame),
            ..IpcWriteOptions::default()
        };
        round_trip(t, options)?;
        // SAFETY: as above.
        unsafe { ARENA.reset_unchecked() };
        Ok(())
    });

    h.test("lz4_frame_round_trip", |t| {
        let mut input = [0u8; 4096];
        for (i, b) in input.iter_mut().enumerate() {
            *b = (i % 29) as u8 ^ (i / 512) as u8;
        }
        let mut codec = Lz4FrameCodec::new();
        let mut frame = [0u8; 8192];
        let n = codec.compress(&input, &mut frame)?;
        t.check("compressible data shrinks", n < input.len());
        let mut back = [0u8; 4096];
        let m = codec.decompress(&frame[..n], &mut back)?;
        t.eq("length", &m, &input.len());
        t.check("bytes", back == input);
        // Default frames carry no checksum (as the reference library's):
        // a corrupt one gives an error or other bytes, never a fault.
        frame[n / 2] ^= 0xFF;
        let _ = codec.decompress(&frame[..n], &mut back);
        // With a content checksum, the corruption is refused.
        let mut checked = Lz4FrameCodec::with_options(FrameOptions {
            content_checksum: true,
            ..FrameOptions::default()
        });
        let n = checked.compress(&input, &mut frame)?;
        let m = checked.decompress(&frame[..n], &mut back)?;
        t.check(
            "checksummed frame round trip",
            m == input.len() && back == input,
        );
        frame[n / 2] ^= 0xFF;
        t.check(
            "corrupt checksummed frame refused",
            checked.decompress(&frame[..n], &mut back).is_err(),
        );
        Ok(())
    });

    h.finish()
}
