//! A firmware's job, run on the host: sensor columns borrowed from sample
//! arrays (no copy), written as an Arrow IPC stream into a fixed 4 KiB
//! buffer, every allocation of alkaid from a 16 KiB static arena (no global
//! heap is asked for anything), then read back from that buffer, zero copy.
//!
//! ```sh
//! cargo run -p alkaid-alloc --example firmware_stream
//! ```

use alkaid::array::{Array, PrimitiveArray, RecordBatch};
use alkaid::buffer::SharedSlice;
use alkaid::datatypes::{DataType, Field, Schema};
use alkaid::ipc::reader::{IpcReadOptions, SliceStreamReader};
use alkaid::ipc::writer::{IpcWriteOptions, StreamWriter};
use alkaid_alloc::StaticArena;

/// The heap of the firmware: 16 KiB in `.bss`, 64-byte aligned.
static ARENA: StaticArena<{ 16 * 1024 }> = StaticArena::new();
/// The allocator every alkaid type is given.
type A = &'static StaticArena<{ 16 * 1024 }>;

/// The schema, in flash (`Schema::from_fields` is `const`).
static FIELDS: [Field<'static, A>; 2] = [
    Field::new("t_ms", DataType::UInt32, false),
    Field::new("celsius", DataType::Float32, false),
];
static SCHEMA: Schema<'static, A> = Schema::from_fields(SharedSlice::borrowed(&FIELDS));

/// One batch of samples, as a firmware's sampling loop leaves them.
static T_MS: [u32; 8] = [0, 100, 200, 300, 400, 500, 600, 700];
static CELSIUS: [f32; 8] = [21.0, 21.1, 21.1, 21.3, 21.2, 21.4, 21.5, 21.5];

fn main() -> Result<(), alkaid::Error> {
    let columns = [
        PrimitiveArray::<u32, A>::from_slice(&T_MS).into_array_ref(),
        PrimitiveArray::<f32, A>::from_slice(&CELSIUS).into_array_ref(),
    ];
    let batch = RecordBatch::try_new(SCHEMA.clone(), SharedSlice::borrowed(&columns))?;

    // The stream goes into a fixed buffer (a UART or a flash page would do).
    const CAPACITY: usize = 4096;
    let mut out = [0u8; CAPACITY];
    let mut sink: &mut [u8] = &mut out;
    let mut w = StreamWriter::try_new_in(&mut sink, &SCHEMA, IpcWriteOptions::default(), &ARENA)?;
    for _ in 0..3 {
        w.write(&batch)?;
    }
    w.finish()?;
    drop(w);
    let written = CAPACITY - sink.len();
    let peak = ARENA.peak();

    // Read back: the values point into `out`, nothing of them is copied.
    let reader = SliceStreamReader::try_new_in(&out[..written], IpcReadOptions::default(), &ARENA)?;
    let mut rows = 0;
    for b in reader {
        let b = b?;
        assert_eq!(b, batch);
        rows += b.num_rows();
    }
    assert_eq!(rows, 3 * T_MS.len());
    println!(
        "{written} bytes of IPC stream, {rows} rows read back; arena peak {peak} of {} bytes",
        ARENA.capacity()
    );
    Ok(())
}
