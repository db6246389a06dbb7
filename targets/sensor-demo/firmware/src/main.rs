//! The sensor demo: a Cortex-M4F firmware (QEMU mps2-an386) with **no global
//! allocator** samples simulated sensors (see `sensor-model`) every 2 ms
//! into a fixed-capacity ring (`heapless::Deque`), fills Arrow record
//! batches from it in a static arena and streams them as Arrow IPC over
//! UART0 (the board's CMSDK APB UART; QEMU connects it to a host file,
//! socket or pipe). Semihosting carries only the log lines and the exit
//! code. With the feature `unpaced` it samples as fast as the UART takes the
//! stream, to measure throughput.
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
use core::sync::atomic::{AtomicU32, Ordering};
use cortex_m::peripheral::syst::SystClkSource;
use cortex_m_rt::{entry, exception};
use heapless::Deque;
use semihosting::println;
use sensor_model::{sample, Sample, BATCHES, BATCH_ROWS};

/// Bytes of each arena.
const ARENA_BYTES: usize = 32 * 1024;
/// Capacity of the sample ring, in samples: a batch and some slack.
const RING: usize = 128;
/// Real time between two samples, in milliseconds (0: unpaced).
const SAMPLE_PERIOD_MS: u32 = if cfg!(feature = "unpaced") { 0 } else { 2 };
/// The mps2-an386 core clock, which drives SysTick: 25 MHz.
const CORE_HZ: u32 = 25_000_000;
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

/// Milliseconds since boot, counted by the SysTick exception.
static MILLIS: AtomicU32 = AtomicU32::new(0);

#[exception]
fn SysTick() {
    MILLIS.fetch_add(1, Ordering::Relaxed);
}

fn millis() -> u32 {
    MILLIS.load(Ordering::Relaxed)
}

/// UART0 of the mps2-an386: an ARM CMSDK APB UART at `0x4000_4000`
/// (registers DATA `+0x0`, STATE `+0x4` with bit 0 "transmit buffer full",
/// CTRL `+0x8` with bit 0 "transmit enable", BAUDDIV `+0x10`), written by
/// polling. An `embedded_io::Write` that takes every byte it is given.
struct Uart0;

impl Uart0 {
    const BASE: usize = 0x4000_4000;
    const DATA: *mut u32 = Self::BASE as *mut u32;
    const STATE: *const u32 = (Self::BASE + 0x4) as *const u32;
    const CTRL: *mut u32 = (Self::BASE + 0x8) as *mut u32;
    const BAUDDIV: *mut u32 = (Self::BASE + 0x10) as *mut u32;

    /// Enables the transmitter (the smallest valid baud divider: QEMU sends
    /// as fast as its character device takes the bytes).
    fn new() -> Self {
        // SAFETY: these are the UART0 registers of this board's memory map;
        // this firmware is single-threaded and only `Uart0` touches them.
        unsafe {
            core::ptr::write_volatile(Self::BAUDDIV, 16);
            core::ptr::write_volatile(Self::CTRL, 1);
        }
        Uart0
    }

    fn send(&mut self, byte: u8) {
        // SAFETY: as in `new`.
        unsafe {
            while core::ptr::read_volatile(Self::STATE) & 1 != 0 {}
            core::ptr::write_volatile(Self::DATA, u32::from(byte));
        }
    }
}

impl embedded_io::ErrorType for Uart0 {
    type Error = core::convert::Infallible;
}

impl embedded_io::Write for Uart0 {
    fn write(&mut self, data: &[u8]) -> Result<usize, Self::Error> {
        for &b in data {
            self.send(b);
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}

/// A batch of the `BATCH_ROWS` oldest samples of `ring` (removed from it),
/// whose columns live in `BATCH_HEAP`.
fn sample_batch(ring: &mut Deque<Sample, RING>) -> alkaid::Result<RecordBatch<'static, A>> {
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
    for _ in 0..BATCH_ROWS {
        let s = ring.pop_front().ok_or(Error::InvalidArgument)?;
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
    let mut core = cortex_m::Peripherals::take().ok_or(Error::InvalidBuilderState)?;
    core.SYST.set_clock_source(SystClkSource::Core);
    core.SYST.set_reload(CORE_HZ / 1000 - 1);
    core.SYST.clear_current();
    core.SYST.enable_interrupt();
    core.SYST.enable_counter();

    let options = IpcWriteOptions {
        compression: COMPRESSION,
        ..IpcWriteOptions::default()
    };
    let mut w = StreamWriter::try_new_in(Uart0::new(), &SCHEMA, options, &WRITER_HEAP)?;
    println!(
        "sensor-demo: {} batches of {} samples every {} ms, compression {:?}, streaming on UART0",
        BATCHES, BATCH_ROWS, SAMPLE_PERIOD_MS, COMPRESSION
    );
    let mut ring: Deque<Sample, RING> = Deque::new();
    let mut after_first = 0;
    let start = millis();
    let mut batches = 0;
    for i in 0..BATCHES * BATCH_ROWS {
        // The sampler: one reading per period into the ring.
        let due = start.wrapping_add(i.wrapping_mul(SAMPLE_PERIOD_MS));
        while SAMPLE_PERIOD_MS > 0 && millis().wrapping_sub(due) > u32::MAX / 2 {
            cortex_m::asm::wfi();
        }
        ring.push_back(sample(i))
            .map_err(|_| Error::CapacityOverflow)?;
        if ring.len() < BATCH_ROWS as usize {
            continue;
        }
        let batch = sample_batch(&mut ring)?;
        let before = w.position();
        w.write(&batch)?;
        println!(
            "batch {} sent at {} ms: {} rows, {} bytes (batch arena: {} B in {} allocations)",
            batches,
            millis().wrapping_sub(start),
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
        if batches == 0 {
            after_first = WRITER_HEAP.bytes_outstanding();
        }
        batches += 1;
    }
    w.finish()?;
    let elapsed = millis().wrapping_sub(start).max(1);
    let samples = BATCHES * BATCH_ROWS;
    println!(
        "stream: {} bytes, {} samples in {} ms: {} samples/s, {}.{:02} bytes/sample",
        w.position(),
        samples,
        elapsed,
        u64::from(samples) * 1000 / u64::from(elapsed),
        w.position() / u64::from(samples),
        w.position() % u64::from(samples) * 100 / u64::from(samples)
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
