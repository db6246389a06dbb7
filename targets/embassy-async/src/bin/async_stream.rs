//! alkaid's async IPC front-ends on an Embassy executor (Cortex-M thread
//! mode, QEMU mps2-an386), with **no global allocator**: a writer task
//! writes two streams (uncompressed, then LZ4) through `AsyncStreamWriter`
//! into a 64-byte `embassy-sync` pipe and a reader task reads them back
//! through `AsyncStreamReader`. The pipe holds less than one message, so the
//! tasks take turns; the reader sees the first batch before the writer is
//! done. Prints `test async_stream::… ... ok` lines and
//! `async_stream: N passed, M failed`; exits 0 when all passed.

#![no_std]
#![no_main]

use core::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use alkaid::array::{Array, PrimitiveArray, RecordBatch, StringArray};
use alkaid::buffer::SharedSlice;
use alkaid::datatypes::{DataType, Field, Schema};
use alkaid::ipc::message::CompressionCodec;
use alkaid::ipc::reader::{AsyncStreamReader, IpcReadOptions};
use alkaid::ipc::writer::{AsyncStreamWriter, IpcWriteOptions};
use alkaid_alloc::StaticArena;
use embassy_executor::Spawner;
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::pipe::Pipe;
use semihosting::println;
// The critical-section implementation (single core) the pipe locks with.
use cortex_m as _;

const ARENA_BYTES: usize = 64 * 1024;
static WRITER_ARENA: StaticArena<ARENA_BYTES> = StaticArena::new();
static READER_ARENA: StaticArena<ARENA_BYTES> = StaticArena::new();
type A = &'static StaticArena<ARENA_BYTES>;

/// The channel between the tasks: smaller than any message.
static PIPE: Pipe<CriticalSectionRawMutex, 64> = Pipe::new();
/// Set by the writer once both streams are written.
static WRITER_DONE: AtomicBool = AtomicBool::new(false);
/// Bytes the writer wrote.
static WRITTEN: AtomicU32 = AtomicU32::new(0);

static FIELDS: [Field<'static, A>; 3] = [
    Field::new("t", DataType::UInt32, false),
    Field::new("value", DataType::Float32, true),
    Field::new("label", DataType::Utf8, true),
];
static SCHEMA: Schema<'static, A> = Schema::from_fields(SharedSlice::borrowed(&FIELDS));
static TIMES: [u32; 6] = [10, 20, 30, 40, 50, 60];
/// Batches per stream.
const BATCHES: u32 = 4;

/// The batch every stream carries, in `arena`.
fn batch(arena: A) -> alkaid::Result<RecordBatch<'static, A>> {
    let values = PrimitiveArray::<f32, A>::try_from_options_in(
        &[Some(1.5), None, Some(-2.25), Some(3.0), Some(0.0), None],
        arena,
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
        arena,
    )?;
    let cols = SharedSlice::try_from_iter_in(
        [
            PrimitiveArray::<u32, A>::from_slice(&TIMES).into_array_ref(),
            values.into_array_ref(),
            labels.into_array_ref(),
        ],
        arena,
    )?;
    RecordBatch::try_new(SCHEMA.clone(), cols)
}

fn options(compression: Option<CompressionCodec>) -> IpcWriteOptions {
    IpcWriteOptions {
        compression,
        ..IpcWriteOptions::default()
    }
}

async fn write_streams() -> alkaid::Result<()> {
    let b = batch(&WRITER_ARENA)?;
    for compression in [None, Some(CompressionCodec::Lz4Frame)] {
        let mut w =
            AsyncStreamWriter::try_new_in(&PIPE, &SCHEMA, options(compression), &WRITER_ARENA)
                .await?;
        for _ in 0..BATCHES {
            w.write(&b).await?;
        }
        w.finish().await?;
        WRITTEN.fetch_add(w.position() as u32, Ordering::Relaxed);
    }
    Ok(())
}

#[embassy_executor::task]
async fn writer() {
    if let Err(e) = write_streams().await {
        println!("writer: error {:?} ({})", e, e.message());
        semihosting::process::exit(1);
    }
    WRITER_DONE.store(true, Ordering::Relaxed);
}

/// Results of the reader's checks.
struct Report {
    passed: u32,
    failed: u32,
}

impl Report {
    fn test(&mut self, name: &str, ok: bool) {
        if ok {
            self.passed += 1;
            println!("test async_stream::{} ... ok", name);
        } else {
            self.failed += 1;
            println!("test async_stream::{} ... FAILED", name);
        }
    }
}

/// Reads one stream from the pipe: (batches equal to the expected one,
/// batches read, whether the first came before the writer was done).
async fn read_stream(want: &RecordBatch<'static, A>) -> alkaid::Result<(u32, u32, bool)> {
    let mut r =
        AsyncStreamReader::try_new_in(&PIPE, IpcReadOptions::default(), &READER_ARENA).await?;
    let (mut equal, mut read, mut early) = (0, 0, false);
    while let Some(got) = r.next_batch().await? {
        if read == 0 {
            early = !WRITER_DONE.load(Ordering::Relaxed);
        }
        read += 1;
        if &got == want && r.schema() == &SCHEMA {
            equal += 1;
        }
    }
    Ok((equal, read, early))
}

#[embassy_executor::task]
async fn reader() {
    let mut report = Report {
        passed: 0,
        failed: 0,
    };
    let want = match batch(&READER_ARENA) {
        Ok(b) => b,
        Err(e) => {
            println!("reader: error {:?}", e);
            semihosting::process::exit(1);
        }
    };
    for name in ["uncompressed", "lz4"] {
        match read_stream(&want).await {
            Ok((equal, read, early)) => {
                report.test(name, equal == BATCHES && read == BATCHES);
                if name == "uncompressed" {
                    report.test("reader_takes_turns_with_writer", early);
                }
            }
            Err(e) => {
                println!("    error: {:?} ({})", e, e.message());
                report.test(name, false);
            }
        }
    }
    report.test("writer_done", WRITER_DONE.load(Ordering::Relaxed));
    println!(
        "{} bytes through a {}-byte pipe",
        WRITTEN.load(Ordering::Relaxed),
        PIPE.capacity()
    );
    println!(
        "async_stream: {} passed, {} failed",
        report.passed, report.failed
    );
    semihosting::process::exit(if report.failed == 0 { 0 } else { 1 });
}

#[embassy_executor::main]
async fn main(spawner: Spawner) {
    println!("running async_stream (thumbv7em-none-eabihf, Embassy thread executor, no global allocator)");
    spawner.spawn(writer().expect("the writer task's storage is free at start"));
    spawner.spawn(reader().expect("the reader task's storage is free at start"));
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
