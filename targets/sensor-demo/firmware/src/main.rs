//! The sensor demo: a Cortex-M4F firmware (QEMU mps2-an386) with **no global
//! allocator** samples simulated sensors (see `sensor-model`), fills Arrow
//! record batches in a static arena and streams them as Arrow IPC over
//! semihosting to `sensor.arrows` in QEMU's working directory.
//!
//! Memory: two static arenas behind counting allocators.
//! - `WRITER_HEAP`: the stream writer's metadata scratch, body plan and
//!   dictionary tracking (and, with LZ4, its compression scratch). It lives
//!   as long as the stream.
//! - `BATCH_HEAP`: one record batch's columns. Every batch is dropped after
//!   it is written and the arena is reset, so its size bounds one batch.
//!
//! The schema is a `static` in flash (borrowed names, no allocation); the
//! `status` column is dictionary encoded over a dictionary in flash, so the
//! writer sends the dictionary once and then only 1-byte keys.

#![no_std]
#![no_main]

use alkaid::array::{
    Array, ArrayRef, DictionaryBuilder, PrimitiveBuilder, RecordBatch, StringArray,
};
use alkaid::buffer::{Buffer, ScalarBuffer, SharedBox, SharedSlice, SharedStr};
use alkaid::datatypes::{DataType, Field, IndexType, Schema, TimeUnit};
use alkaid::ipc::message::CompressionCodec;
use alkaid::ipc::writer::{IpcWriteOptions, StreamWriter};
use alkaid::Error;
use alkaid_alloc::{Counting, StaticArena};
use cortex_m_rt::entry;
use semihosting::{c, println};
use sensor_model::{sample, BATCHES, BATCH_ROWS};

/// Bytes of each arena.
const ARENA_BYTES: usize = 32 * 1024;
/// The stream's file, relative to QEMU's working directory.
const OUTPUT: &core::ffi::CStr = c!("sensor.arrows");
/// Body compression: LZ4 frames with the `lz4` feature, none otherwise.
const COMPRESSION: Option<CompressionCodec> = if cfg!(feature = "lz4") {
    Some(CompressionCodec::Lz4Frame)
} else {
    None
};

static WRITER_ARENA: StaticArena<ARENA_BYTES> = StaticArena::new();
static BATCH_ARENA: StaticArena<ARENA_BYTES> = StaticArena::new();
static WRITER_HEAP: Counting<&'static StaticArena<ARENA_BYTES>> = Counting::new(&WRITER_ARENA);
static BATCH_HEAP: Counting<&'static StaticArena<ARENA_BYTES>> = Counting::new(&BATCH_ARENA);

/// The allocator type of every array and of the writer.
type A = &'static Counting<&'static StaticArena<ARENA_BYTES>>;

static UTF8: DataType<'static, A> = DataType::Utf8;
static FIELDS: [Field<'static, A>; 6] = [
    Field::new(
        "time",
        DataType::Timestamp(TimeUnit::Millisecond, Some(SharedStr::borrowed("UTC"))),
        false,
    ),
    Field::new("temperature", DataType::Float32, false),
    Field::new("humidity", DataType::Float32, true),
    Field::new("pressure", DataType::Float32, false),
    Field::new("vibration", DataType::Float32, false),
    Field::new(
        "status",
        DataType::Dictionary(IndexType::Int8, SharedBox::borrowed(&UTF8), false),
        false,
    )
    .with_dict_id(0),
];
static SCHEMA: Schema<'static, A> = Schema::from_fields(SharedSlice::borrowed(&FIELDS));

/// The status dictionary in flash: "ok", "warm", "vibration", "fault".
static STATUS_BYTES: &[u8] = b"okwarmvibrationfault";
static STATUS_OFFSETS: [i32; 5] = [0, 2, 6, 15, 20];

/// An `embedded_io::Write` over a semihosting file, buffered so that each
/// host call carries up to 512 bytes (the writer emits many small pieces:
/// prefixes, padding).
struct HostFile {
    file: semihosting::fs::File,
    buf: [u8; 512],
    len: usize,
}

impl HostFile {
    fn drain(&mut self) -> Result<(), semihosting::io::Error> {
        use semihosting::io::Write;
        self.file.write_all(&self.buf[..self.len])?;
        self.len = 0;
        Ok(())
    }
}

impl embedded_io::ErrorType for HostFile {
    type Error = embedded_io::ErrorKind;
}

impl embedded_io::Write for HostFile {
    fn write(&mut self, data: &[u8]) -> Result<usize, Self::Error> {
        if self.len == self.buf.len() {
            self.drain().map_err(|_| embedded_io::ErrorKind::Other)?;
        }
        let n = data.len().min(self.buf.len() - self.len);
        self.buf[self.len..self.len + n].copy_from_slice(&data[..n]);
        self.len += n;
        Ok(n)
    }

    fn flush(&mut self) -> Result<(), Self::Error> {
        self.drain().map_err(|_| embedded_io::ErrorKind::Other)
    }
}

/// Samples `BATCH_ROWS` readings starting at sample `first` into a batch
/// whose columns live in `BATCH_HEAP`.
fn sample_batch(first: u32) -> alkaid::Result<RecordBatch<'static, A>> {
    let h = &BATCH_HEAP;
    let mut time = PrimitiveBuilder::<i64, A>::new_in(h);
    let mut temperature = PrimitiveBuilder::<f32, A>::new_in(h);
    let mut humidity = PrimitiveBuilder::<f32, A>::new_in(h);
    let mut pressure = PrimitiveBuilder::<f32, A>::new_in(h);
    let mut vibration = PrimitiveBuilder::<f32, A>::new_in(h);
    let labels = StringArray::<A>::try_new(
        ScalarBuffer::from_slice_ref(&STATUS_OFFSETS),
        Buffer::from_slice_ref(STATUS_BYTES),
        None,
    )?;
    let mut status = DictionaryBuilder::<i8, A>::try_new_in(labels.into_array_ref(), h)?;
    for i in first..first + BATCH_ROWS {
        let s = sample(i);
        time.try_append_value(s.time_ms)?;
        temperature.try_append_value(s.temperature)?;
        humidity.try_append_option(s.humidity)?;
        pressure.try_append_value(s.pressure)?;
        vibration.try_append_value(s.vibration)?;
        status.try_append_key(usize::from(s.status))?;
    }
    let time_type = FIELDS[0].data_type().clone();
    let columns = [
        time.finish().with_data_type(time_type)?.into_array_ref(),
        temperature.finish().into_array_ref(),
        humidity.finish().into_array_ref(),
        pressure.finish().into_array_ref(),
        vibration.finish().into_array_ref(),
        status.finish().into_array_ref(),
    ];
    let columns: SharedSlice<'static, ArrayRef<'static, A>, A> =
        SharedSlice::try_from_iter_in(columns, h)?;
    RecordBatch::try_new(SCHEMA.clone(), columns)
}

fn run() -> alkaid::Result<()> {
    let file = semihosting::fs::File::create(OUTPUT).map_err(|_| Error::Io)?;
    let sink = HostFile {
        file,
        buf: [0; 512],
        len: 0,
    };
    let options = IpcWriteOptions {
        compression: COMPRESSION,
        ..IpcWriteOptions::default()
    };
    let mut w = StreamWriter::try_new_in(sink, &SCHEMA, options, &WRITER_HEAP)?;
    println!(
        "sensor-demo: {} batches of {} samples, compression {:?}, writing {:?}",
        BATCHES, BATCH_ROWS, COMPRESSION, OUTPUT
    );
    let mut after_first = 0;
    for k in 0..BATCHES {
        let batch = sample_batch(k * BATCH_ROWS)?;
        let before = w.position();
        w.write(&batch)?;
        println!(
            "batch {}: {} rows, {} bytes (batch arena: {} B in {} allocations)",
            k,
            batch.num_rows(),
            w.position() - before,
            BATCH_HEAP.bytes_outstanding(),
            BATCH_HEAP.allocations_outstanding()
        );
        drop(batch);
        if BATCH_HEAP.bytes_outstanding() != 0 {
            // Something still holds batch memory: resetting would be unsound.
            return Err(Error::InvalidBuilderState);
        }
        // SAFETY: single-threaded, and nothing allocated from the batch arena
        // is alive (checked just above through the counting wrapper).
        unsafe { BATCH_ARENA.reset_unchecked() };
        if k == 0 {
            after_first = WRITER_HEAP.bytes_outstanding();
        }
    }
    w.finish()?;
    println!(
        "stream: {} bytes, {} samples",
        w.position(),
        BATCHES * BATCH_ROWS
    );
    println!(
        "writer heap: peak {} B, {} B held after the first batch and {} B at the end",
        WRITER_HEAP.peak_bytes(),
        after_first,
        WRITER_HEAP.bytes_outstanding()
    );
    println!(
        "batch heap: peak {} B per batch (arena high-water mark {} B of {} B)",
        BATCH_HEAP.peak_bytes(),
        BATCH_ARENA.peak(),
        ARENA_BYTES
    );
    Ok(())
}

#[entry]
fn main() -> ! {
    match run() {
        Ok(()) => {
            println!("sensor-demo: ok");
            semihosting::process::exit(0)
        }
        Err(e) => {
            println!("sensor-demo: error: {} ({:?})", e.message(), e);
            semihosting::process::exit(1)
        }
    }
}

#[panic_handler]
fn panic(info: &core::panic::PanicInfo<'_>) -> ! {
    println!("panicked: {}", info);
    semihosting::process::exit(101)
}

#[cortex_m_rt::exception]
unsafe fn HardFault(frame: &cortex_m_rt::ExceptionFrame) -> ! {
    println!("hard fault: {:?}", frame);
    semihosting::process::exit(3)
}
