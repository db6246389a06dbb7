//! Primitive arrays on the device: built in a static arena, with nulls,
//! sliced without copying, borrowed from flash, and failing cleanly when the
//! arena runs out.

#![no_std]
#![no_main]

use alkaid::array::{Array, PrimitiveArray, PrimitiveBuilder};
use alkaid::datatypes::{DataType, TimeUnit};
use alkaid::Error;
use alkaid_alloc::StaticArena;
use alkaid_qemu_cortex_m4::{entry, in_flash, in_ram, Harness};

static ARENA: StaticArena<{ 64 * 1024 }> = StaticArena::new();

/// Sensor samples in flash, read without copying.
static SAMPLES: [i16; 8] = [-40, -12, 0, 7, 19, 23, 31, 85];

#[entry]
fn main() -> ! {
    let mut h = Harness::new("primitive");

    h.test("spec_example_int32_with_nulls", |t| {
        // Columnar format, "Fixed-size Primitive Layout": [1, null, 2, 4, 8].
        let mut b = PrimitiveBuilder::<i32, _>::new_in(&ARENA);
        for v in [Some(1), None, Some(2), Some(4), Some(8)] {
            b.try_append_option(v)?;
        }
        let a = b.finish();
        t.eq("len", &a.len(), &5);
        t.eq("null_count", &a.null_count(), &1);
        t.eq("values", a.values(), &[1, 0, 2, 4, 8][..]);
        let bitmap = a.nulls().map(|n| n.inner().inner().as_slice());
        t.eq("validity bitmap", &bitmap, &Some(&[0b0001_1101u8][..]));
        t.eq("get(1)", &a.get(1), &None);
        t.eq("get(4)", &a.get(4), &Some(8));
        t.eq("get(5) out of bounds", &a.get(5), &None);
        t.check(
            "values 64-byte aligned",
            a.values().as_ptr() as usize % 64 == 0,
        );
        t.check("values in the arena (RAM)", in_ram(a.values().as_ptr()));
        Ok(())
    });

    h.test("slice_is_zero_copy", |t| {
        let mut b = PrimitiveBuilder::<u32, _>::new_in(&ARENA);
        for i in 0..100u32 {
            b.try_append_option(if i % 10 == 9 { None } else { Some(i * i) })?;
        }
        let a = b.finish();
        let used = ARENA.used();
        let s = a.slice(8, 5)?;
        t.eq("arena untouched by slice", &ARENA.used(), &used);
        t.eq(
            "slice shares values",
            &s.values().as_ptr(),
            &a.values()[8..].as_ptr(),
        );
        t.eq("sliced len", &s.len(), &5);
        t.eq("sliced null_count", &s.null_count(), &1);
        let got = [s.get(0), s.get(1), s.get(2), s.get(3), s.get(4)];
        t.eq(
            "sliced values",
            &got,
            &[Some(64), None, Some(100), Some(121), Some(144)],
        );
        t.eq(
            "slice out of bounds",
            &a.slice(98, 3).err(),
            &Some(Error::OutOfBounds),
        );
        Ok(())
    });

    h.test("borrowed_from_flash_without_allocation", |t| {
        let used = ARENA.used();
        let a = PrimitiveArray::<i16, &StaticArena<{ 64 * 1024 }>>::from_slice(&SAMPLES);
        t.eq("no allocation", &ARENA.used(), &used);
        t.check("values stay in flash", in_flash(a.values().as_ptr()));
        t.eq("values", a.values(), &SAMPLES[..]);
        t.eq("type", a.data_type(), &DataType::Int16);
        let s = a.slice(6, 2)?;
        t.eq("slice", s.values(), &[31i16, 85][..]);
        Ok(())
    });

    h.test("timestamps_and_floats", |t| {
        let mut ts = PrimitiveBuilder::<i64, _>::new_in(&ARENA)
            .with_data_type(DataType::Timestamp(TimeUnit::Millisecond, None))?;
        ts.try_append_slice(&[1_700_000_000_000, 1_700_000_000_250])?;
        ts.try_append_null()?;
        let ts = ts.finish();
        t.check(
            "timestamp type",
            matches!(
                ts.data_type(),
                DataType::Timestamp(TimeUnit::Millisecond, None)
            ),
        );
        t.eq("timestamp", &ts.get(1), &Some(1_700_000_000_250));
        let mut f = PrimitiveBuilder::<f32, _>::new_in(&ARENA);
        for i in 0..16 {
            f.try_append_value(i as f32 * 0.5)?;
        }
        let f = f.finish();
        t.eq("f32 value", &f.get(7), &Some(3.5));
        t.check("f32 no validity", f.nulls().is_none());
        Ok(())
    });

    h.test("arena_exhaustion_is_an_error", |t| {
        let small = StaticArena::<512>::new();
        let mut b = PrimitiveBuilder::<u64, _>::new_in(&small);
        let mut err = None;
        for i in 0..1000u64 {
            if let Err(e) = b.try_append_value(i) {
                err = Some((i, e));
                break;
            }
        }
        t.check("ran out before 1000 values", err.is_some());
        t.eq("error", &err.map(|e| e.1), &Some(Error::AllocationFailed));
        // The builder is still usable for what it holds.
        let n = b.len();
        let a = b.finish();
        t.eq("kept values", &a.len(), &n);
        t.eq("last kept value", &a.get(n - 1), &Some(n as u64 - 1));
        Ok(())
    });

    h.test("lifo_drop_returns_memory", |t| {
        let before = ARENA.used();
        {
            let mut b = PrimitiveBuilder::<i8, _>::new_in(&ARENA);
            b.try_append_slice(&[1, 2, 3])?;
            let a = b.finish();
            t.check("allocated", ARENA.used() > before);
            t.eq("values", a.values(), &[1i8, 2, 3][..]);
        }
        // Freed back to where the (64-byte aligned) allocation started.
        let aligned_before = (before + 63) & !63;
        t.eq(
            "top allocation freed on drop",
            &ARENA.used(),
            &aligned_before,
        );
        Ok(())
    });

    h.finish()
}
