//! The C Data Interface on the device, with no global allocator: a batch
//! over `static` sample memory in flash and an arena column exported as
//! `FFI_ArrowSchema` / `FFI_ArrowArray` (the bookkeeping in a static arena)
//! and imported back without copying; every byte returns to the arena once
//! the structs are released.

#![no_std]
#![no_main]

use alkaid::array::{Array, ArrayRef, PrimitiveArray, PrimitiveBuilder, RecordBatch};
use alkaid::buffer::{Misaligned, SharedSlice};
use alkaid::datatypes::{DataType, Field, Schema};
use alkaid::ffi::{
    import_array_in, import_schema_in, ArrowArrayStreamReader, FFI_ArrowArray,
    FFI_ArrowArrayStream, FFI_ArrowSchema,
};
use alkaid_alloc::{Counting, StaticArena};
use alkaid_qemu_cortex_m4::{entry, in_flash, Harness};

const ARENA_BYTES: usize = 32 * 1024;
static ARENA_MEMORY: StaticArena<ARENA_BYTES> = StaticArena::new();
/// The arena, counting what is outstanding (an arena frees out of order
/// only lazily, so the count, not its fill level, shows leaks).
static ARENA: Counting<&'static StaticArena<ARENA_BYTES>> = Counting::new(&ARENA_MEMORY);
type A = &'static Counting<&'static StaticArena<ARENA_BYTES>>;

/// Sensor samples in flash.
static SAMPLES: [i16; 6] = [-40, -12, 0, 7, 19, 23];

static FIELDS: [Field<'static, A>; 2] = [
    Field::new("temperature", DataType::Int16, false),
    Field::new("flag", DataType::UInt8, true),
];

fn batch() -> alkaid::Result<RecordBatch<'static, A>> {
    let temps = PrimitiveArray::<i16, A>::from_slice(&SAMPLES).into_array_ref();
    let mut flags = PrimitiveBuilder::<u8, A>::new_in(&ARENA);
    for v in [Some(1), None, Some(3), Some(4), None, Some(6)] {
        flags.try_append_option(v)?;
    }
    let columns = SharedSlice::try_from_iter_in([temps, flags.finish().into_array_ref()], &ARENA)?;
    RecordBatch::try_new(Schema::new(SharedSlice::borrowed(&FIELDS)), columns)
}

#[entry]
fn main() -> ! {
    let mut h = Harness::new("ffi");

    h.test("static_samples_export_and_import_without_copy", |t| {
        let before = ARENA.bytes_outstanding();
        {
            let b = batch()?;
            let col: &ArrayRef<'static, A> = &b.columns()[0];
            let a = FFI_ArrowArray::try_from_array_in(col, &ARENA)?;
            let s = FFI_ArrowSchema::try_from_field_in(&FIELDS[0], &ARENA)?;
            // SAFETY: two buffer entries were exported.
            let values = unsafe { *a.buffers.add(1) };
            t.check("exported values point at flash", in_flash(values));
            t.eq("exported address", &values.cast::<i16>(), &SAMPLES.as_ptr());
            // SAFETY: structs alkaid just made.
            let (field, back) = unsafe { import_array_in(a, &s, &ARENA) }?;
            t.eq("field", &field, &FIELDS[0]);
            t.check("values equal", back == *col);
            let ArrayRef::Int16(p) = &back else {
                return Err(alkaid::Error::TypeMismatch);
            };
            t.check(
                "imported values still in flash",
                in_flash(p.values().as_ptr()),
            );
            t.eq("imported values", p.values(), &SAMPLES[..]);
            let sliced = b.columns()[1].slice(1, 4)?;
            let a = FFI_ArrowArray::try_from_array_in(&sliced, &ARENA)?;
            // SAFETY: as above.
            let back = unsafe { a.import_with_field_in(&FIELDS[1], Misaligned::Refuse, &ARENA) }?;
            t.check("sliced column equal", back == sliced);
            t.eq("null count", &back.null_count(), &2);
        }
        t.eq("every byte returned", &ARENA.bytes_outstanding(), &before);
        Ok(())
    });

    h.test("batch_stream_round_trip", |t| {
        let before = ARENA.bytes_outstanding();
        {
            let b = batch()?;
            let schema = b.schema().clone();
            let stream = FFI_ArrowArrayStream::try_from_batches_in(
                schema,
                [Ok(b.clone()), Ok(b.clone())].into_iter(),
                &ARENA,
            )?;
            // SAFETY: a stream alkaid just made.
            let reader = unsafe { ArrowArrayStreamReader::try_new_in(stream, &ARENA) }?;
            t.eq("schema", reader.schema().fields().as_ref(), &FIELDS[..]);
            let mut n = 0;
            for got in reader {
                t.check("batch equal", got? == b);
                n += 1;
            }
            t.eq("batches", &n, &2);
            let s = FFI_ArrowSchema::try_from_schema_in(b.schema(), &ARENA)?;
            // SAFETY: a schema alkaid just made.
            let back = unsafe { import_schema_in(&s, &ARENA) }?;
            t.eq("schema round trip", back.fields().as_ref(), &FIELDS[..]);
        }
        t.eq("every byte returned", &ARENA.bytes_outstanding(), &before);
        Ok(())
    });

    h.finish()
}
