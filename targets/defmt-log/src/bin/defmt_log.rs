//! defmt logging from an alkaid firmware: a small sensor batch is written
//! as an LZ4-compressed IPC stream into a byte array, read back zero-copy and
//! fully validated, a truncated copy is refused, and every step is logged
//! with `defmt` (the `alkaid::Error` values through the core's `defmt`
//! feature). The log leaves as defmt frames over semihosting and is decoded
//! on the host by `defmt-print` (see run.sh). No global allocator: the
//! arrays and the reader's metadata live in a `StaticArena`.
//!
//! The last line is `defmt_log: N passed, M failed`; the exit code is 0
//! when nothing failed, 1 otherwise (also on a panic or a hard fault, which
//! are logged).

#![no_std]
#![no_main]

use alkaid::array::{Array, ArrayRef, PrimitiveArray, RecordBatch};
use alkaid::buffer::SharedSlice;
use alkaid::datatypes::{DataType, Field, Schema};
use alkaid::ipc::message::CompressionCodec;
use alkaid::ipc::reader::{IpcReadOptions, SliceStreamReader};
use alkaid::ipc::writer::{IpcWriteOptions, StreamWriter};
use alkaid::Error;
use alkaid_alloc::StaticArena;
use cortex_m_rt::entry;
use cortex_m_semihosting::debug;
use defmt_semihosting as _; // the global defmt logger: semihosting stdout

const ARENA_BYTES: usize = 128 * 1024;
static ARENA: StaticArena<ARENA_BYTES> = StaticArena::new();
type A = &'static StaticArena<ARENA_BYTES>;

static FIELDS: [Field<'static, A>; 2] = [
    Field::new("t_ms", DataType::UInt32, false),
    Field::new("celsius", DataType::Float32, true),
];
static SCHEMA: Schema<'static, A> = Schema::from_fields(SharedSlice::borrowed(&FIELDS));

const ROWS: usize = 64;

/// 64-byte aligned output, so that the reader can borrow the buffers.
#[repr(C, align(64))]
struct Out([u8; 8192]);
static mut OUT: Out = Out([0; 8192]);

/// A sink over a byte array.
struct Sink<'s> {
    buf: &'s mut [u8],
    len: usize,
}

impl embedded_io::ErrorType for Sink<'_> {
    type Error = embedded_io::ErrorKind;
}

impl embedded_io::Write for Sink<'_> {
    fn write(&mut self, data: &[u8]) -> Result<usize, Self::Error> {
        let room = &mut self.buf[self.len..];
        let n = data.len().min(room.len());
        if n == 0 && !data.is_empty() {
            return Err(embedded_io::ErrorKind::OutOfMemory);
        }
        room[..n].copy_from_slice(&data[..n]);
        self.len += n;
        Ok(n)
    }
    fn flush(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}

fn celsius(i: usize) -> Option<f32> {
    (i % 10 != 7).then_some(20.0 + (i % 16) as f32 * 0.25)
}

fn batch() -> alkaid::Result<RecordBatch<'static, A>> {
    let mut t = [0u32; ROWS];
    let mut c = [None; ROWS];
    for i in 0..ROWS {
        t[i] = 1000 + 250 * i as u32;
        c[i] = celsius(i);
    }
    let cols = SharedSlice::try_from_iter_in(
        [
            PrimitiveArray::<u32, A>::try_from_options_in(&t.map(Some), &ARENA)?.into_array_ref(),
            PrimitiveArray::<f32, A>::try_from_options_in(&c, &ARENA)?.into_array_ref(),
        ],
        &ARENA,
    )?;
    RecordBatch::try_new(SCHEMA.clone(), cols)
}

/// Writes two batches as an LZ4 stream; returns its length in bytes.
fn write(out: &mut [u8]) -> alkaid::Result<usize> {
    let b = batch()?;
    let options = IpcWriteOptions {
        compression: Some(CompressionCodec::Lz4Frame),
        ..IpcWriteOptions::default()
    };
    let mut w = StreamWriter::try_new_in(Sink { buf: out, len: 0 }, &SCHEMA, options, &ARENA)?;
    w.write(&b)?;
    w.write(&b)?;
    w.finish()?;
    let n = w.into_inner().len;
    defmt::info!(
        "wrote {=usize} rows in 2 batches: {=usize} bytes (LZ4 frame bodies)",
        2 * ROWS,
        n
    );
    Ok(n)
}

/// Reads the stream back; returns the number of wrong values.
fn read(stream: &[u8]) -> alkaid::Result<usize> {
    let mut r = SliceStreamReader::try_new_in(stream, IpcReadOptions::default(), &ARENA)?;
    let mut wrong = 0;
    let mut batches = 0;
    while let Some(b) = r.next_batch()? {
        let (Some(ArrayRef::UInt32(t)), Some(ArrayRef::Float32(c))) = (b.column(0), b.column(1))
        else {
            return Err(Error::SchemaMismatch);
        };
        for i in 0..b.num_rows() {
            let ok = t.get(i) == Some(1000 + 250 * i as u32) && c.get(i) == celsius(i);
            wrong += usize::from(!ok);
        }
        defmt::info!(
            "batch {=usize}: {=usize} rows, {=usize} nulls in celsius, first {=u32} ms",
            batches,
            b.num_rows(),
            c.null_count(),
            t.get(0).unwrap_or(0)
        );
        batches += 1;
    }
    Ok(wrong)
}

#[entry]
fn main() -> ! {
    defmt::info!("alkaid defmt log on thumbv7em-none-eabihf, no global allocator");
    let mut passed = 0u32;
    let mut failed = 0u32;
    let mut verdict = |name: &str, ok: bool| {
        if ok {
            passed += 1;
            defmt::info!("test defmt_log::{=str} ... ok", name);
        } else {
            failed += 1;
            defmt::error!("test defmt_log::{=str} ... FAILED", name);
        }
    };

    // SAFETY: `OUT` is only touched here, by the one thread of the firmware.
    let out: &'static mut [u8] = unsafe { &mut (*core::ptr::addr_of_mut!(OUT)).0 };
    match write(out) {
        Ok(n) => {
            verdict("write_lz4_stream", true);
            let stream = &out[..n];
            match read(stream) {
                Ok(wrong) => {
                    defmt::info!("read back: {=usize} wrong values", wrong);
                    verdict("read_back_validated", wrong == 0);
                }
                Err(e) => {
                    defmt::error!("read failed: {}", e);
                    verdict("read_back_validated", false);
                }
            }
            // A truncated stream must be refused with an error, logged
            // through `alkaid::Error`'s `defmt::Format`.
            match read(&stream[..n / 2]) {
                Ok(_) => verdict("truncated_stream_refused", false),
                Err(e) => {
                    defmt::warn!("truncated stream refused: {}", e);
                    verdict("truncated_stream_refused", e == Error::UnexpectedEof);
                }
            }
        }
        Err(e) => {
            defmt::error!("write failed: {}", e);
            verdict("write_lz4_stream", false);
        }
    }
    defmt::info!("arena: {=usize} bytes used", ARENA.used());
    defmt::info!("defmt_log: {=u32} passed, {=u32} failed", passed, failed);
    exit(if failed == 0 {
        debug::EXIT_SUCCESS
    } else {
        debug::EXIT_FAILURE
    })
}

/// Ends the QEMU run with `code` (semihosting `SYS_EXIT`).
fn exit(code: debug::ExitStatus) -> ! {
    debug::exit(code);
    loop {
        cortex_m::asm::wfi();
    }
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    defmt::error!("panicked");
    exit(debug::EXIT_FAILURE)
}

#[cortex_m_rt::exception]
unsafe fn HardFault(_: &cortex_m_rt::ExceptionFrame) -> ! {
    defmt::error!("hard fault");
    exit(debug::EXIT_FAILURE)
}
