//! (b) The minimal IPC stream reader with full validation: a stream written
//! by pyarrow (data/sensor.arrows, see gen_fixture.py) sits in flash and is
//! read without copying by `SliceStreamReader` (every message verified, every
//! array validated at `Full`). Heap: a counting allocator over a static
//! arena (schema, batch and array metadata).
//!
//! Checks every value against the fixture's formulas and prints the heap's
//! peak and what is left after the reader is dropped.

#![no_std]
#![no_main]

use alkaid::array::ArrayRef;
use alkaid::ipc::reader::{IpcReadOptions, ReadLimits, SliceStreamReader};
use alkaid::ipc::schema::DecodeLimits;
use alkaid::Error;
use alkaid_size_report::{entry, exit, put, report, report_heap, HEAP};

/// 64-byte aligned storage, so that the reader can borrow the buffers.
#[repr(C, align(64))]
struct Aligned<T: ?Sized>(T);

static STREAM: &Aligned<[u8]> = &Aligned(*include_bytes!("../../data/sensor.arrows"));
const LABELS: [&str; 3] = ["ok", "warn", "hot"];

/// Bounds sized for this device (the defaults allow bodies of up to 2 GiB on
/// a 32-bit target).
const LIMITS: ReadLimits = ReadLimits {
    max_metadata_size: 4096,
    max_body_size: 64 * 1024,
    max_buffer_size: 64 * 1024,
    max_dictionary_len: 1024,
    schema: DecodeLimits {
        max_depth: 4,
        max_fields: 16,
        max_metadata_entries: 16,
    },
};

fn run() -> alkaid::Result<bool> {
    let options = IpcReadOptions::with_limits(LIMITS);
    let mut r = SliceStreamReader::try_new_in(&STREAM.0, options, &HEAP)?;
    let mut row = 0usize;
    let mut bad = 0usize;
    let mut batches = 0usize;
    while let Some(b) = r.next_batch()? {
        batches += 1;
        let (Some(ArrayRef::UInt32(t)), Some(ArrayRef::Float32(v)), Some(ArrayRef::Utf8(l))) =
            (b.column(0), b.column(1), b.column(2))
        else {
            return Err(Error::SchemaMismatch);
        };
        for i in 0..b.num_rows() {
            let n = (row + i) as u32;
            let ok = t.get(i) == Some(1000 + 100 * n)
                && v.get(i) == Some(0.5 * n as f32)
                && l.get(i) == Some(LABELS[(n % 3) as usize]);
            bad += usize::from(!ok);
        }
        row += b.num_rows();
    }
    report("batches", batches);
    report("rows", row);
    report("wrong_values", bad);
    report_heap("end");
    drop(r);
    report(
        "after_drop_heap_outstanding_bytes",
        HEAP.bytes_outstanding(),
    );
    Ok(bad == 0 && row == 128 && HEAP.bytes_outstanding() == 0)
}

#[entry]
fn main() -> ! {
    match run() {
        Ok(true) => {
            put("reader: ok\n");
            exit(0)
        }
        Ok(false) => {
            put("reader: FAILED (wrong values or a leak)\n");
            exit(1)
        }
        Err(_) => {
            put("reader: FAILED (error)\n");
            exit(1)
        }
    }
}
