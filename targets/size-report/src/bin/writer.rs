//! (a) The minimal IPC stream writer: a fixed schema in flash (u32
//! timestamp, f32 value, utf8 label), columns borrowed from sample tables in
//! flash (no copy), written to a sink that only hashes the bytes (standing
//! in for a UART). Heap: a counting allocator over a static arena, used only
//! by the writer's metadata scratch and plan.
//!
//! Prints the stream's length and FNV-1a hash, the heap figures after the
//! first batch and at the end, and checks that the steady state (every batch
//! after the first) allocates nothing.

#![no_std]
#![no_main]

use alkaid::array::{Array, ArrayRef, PrimitiveArray, RecordBatch, StringArray};
use alkaid::buffer::{Buffer, ScalarBuffer, SharedSlice};
use alkaid::datatypes::{DataType, Field, Schema};
use alkaid::ipc::writer::{IpcWriteOptions, StreamWriter};
use alkaid_size_report::{entry, exit, put, report, report_heap, A, HEAP};

/// Rows of the sample tables.
const ROWS: usize = 63;
/// Each of the batches below is written this many times.
const ROUNDS: usize = 4;

static FIELDS: [Field<'static, A>; 3] = [
    Field::new("timestamp", DataType::UInt32, false),
    Field::new("value", DataType::Float32, false),
    Field::new("label", DataType::Utf8, false),
];
static SCHEMA: Schema<'static, A> = Schema::from_fields(SharedSlice::borrowed(&FIELDS));

static TIMESTAMPS: [u32; ROWS] = {
    let mut a = [0; ROWS];
    let mut i = 0;
    while i < ROWS {
        a[i] = 1000 + 100 * i as u32;
        i += 1;
    }
    a
};
static VALUES: [f32; ROWS] = {
    let mut a = [0.0; ROWS];
    let mut i = 0;
    while i < ROWS {
        a[i] = 0.5 * i as f32;
        i += 1;
    }
    a
};
/// Labels `ok`, `warn`, `hot`, repeating.
const PATTERN: &[u8; 9] = b"okwarnhot";
static LABEL_BYTES: [u8; ROWS / 3 * 9] = {
    let mut a = [0; ROWS / 3 * 9];
    let mut i = 0;
    while i < a.len() {
        a[i] = PATTERN[i % 9];
        i += 1;
    }
    a
};
static LABEL_OFFSETS: [i32; ROWS + 1] = {
    let mut a = [0; ROWS + 1];
    let mut i = 0;
    while i < ROWS {
        a[i + 1] = a[i] + [2, 4, 3][i % 3];
        i += 1;
    }
    a
};

/// A sink that keeps nothing: it counts and hashes (FNV-1a, 32-bit).
struct HashSink {
    len: usize,
    hash: u32,
}

impl embedded_io::ErrorType for HashSink {
    type Error = core::convert::Infallible;
}

impl embedded_io::Write for HashSink {
    fn write(&mut self, buf: &[u8]) -> Result<usize, Self::Error> {
        for &b in buf {
            self.hash = (self.hash ^ b as u32).wrapping_mul(0x0100_0193);
        }
        self.len += buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}

/// The columns of rows `offset..offset + len`, borrowing the tables.
fn window(offset: usize, len: usize) -> alkaid::Result<[ArrayRef<'static, A>; 3]> {
    let rows = offset..offset + len;
    let labels = StringArray::<A>::try_new(
        // Offsets may start above zero: the values are not re-based.
        ScalarBuffer::from_slice_ref(&LABEL_OFFSETS[offset..=offset + len]),
        Buffer::from_slice_ref(&LABEL_BYTES),
        None,
    )?;
    Ok([
        PrimitiveArray::<u32, A>::from_slice(&TIMESTAMPS[rows.clone()]).into_array_ref(),
        PrimitiveArray::<f32, A>::from_slice(&VALUES[rows]).into_array_ref(),
        labels.into_array_ref(),
    ])
}

/// The windows of the tables written as batches: 16, 24 and 23 rows.
const WINDOWS: [(usize, usize); 3] = [(0, 16), (16, 24), (40, 23)];

fn run() -> alkaid::Result<bool> {
    // The columns of each window borrow the tables (no copy, no allocation);
    // they outlive the writer, which may keep what it wrote (dictionaries).
    let parts = [
        window(WINDOWS[0].0, WINDOWS[0].1)?,
        window(WINDOWS[1].0, WINDOWS[1].1)?,
        window(WINDOWS[2].0, WINDOWS[2].1)?,
    ];
    let sink = HashSink {
        len: 0,
        hash: 0x811C_9DC5,
    };
    let mut w = StreamWriter::try_new_in(sink, &SCHEMA, IpcWriteOptions::default(), &HEAP)?;
    // Each batch is built just before it is written (allocating nothing).
    let mut rows = 0;
    let (mut allocations, mut outstanding) = (0, 0);
    for round in 0..ROUNDS {
        for (k, columns) in parts.iter().enumerate() {
            let batch = RecordBatch::try_new(SCHEMA.clone(), SharedSlice::borrowed(columns))?;
            w.write(&batch)?;
            rows += batch.num_rows();
            if round == 0 && k == 0 {
                report_heap("first_batch");
                allocations = HEAP.total_allocations();
                outstanding = HEAP.bytes_outstanding();
            }
        }
    }
    w.finish()?;
    let steady_allocations = HEAP.total_allocations() - allocations;
    let steady_growth = HEAP.bytes_outstanding().saturating_sub(outstanding);
    report("batches", ROUNDS * WINDOWS.len());
    report("rows", rows);
    report("stream_bytes", w.position() as usize);
    report("stream_fnv1a", w.get_ref().hash as usize);
    report_heap("end");
    report("steady_state_allocations", steady_allocations);
    report("steady_state_heap_growth_bytes", steady_growth);
    drop(w);
    report(
        "after_drop_heap_outstanding_bytes",
        HEAP.bytes_outstanding(),
    );
    Ok(steady_allocations == 0 && steady_growth == 0 && HEAP.bytes_outstanding() == 0)
}

#[entry]
fn main() -> ! {
    match run() {
        Ok(true) => {
            put("writer: ok\n");
            exit(0)
        }
        Ok(false) => {
            put("writer: FAILED (allocations in the steady state or a leak)\n");
            exit(1)
        }
        Err(_) => {
            put("writer: FAILED (error)\n");
            exit(1)
        }
    }
}
