//! Boolean arrays on the device: LSB-first bit packing, validity, slicing.

#![no_std]
#![no_main]

use alkaid::array::{Array, BooleanBuilder};
use alkaid::Error;
use alkaid_alloc::StaticArena;
use alkaid_qemu_cortex_m4::{entry, Harness};

static ARENA: StaticArena<{ 16 * 1024 }> = StaticArena::new();

#[entry]
fn main() -> ! {
    let mut h = Harness::new("boolean");

    h.test("bits_and_validity", |t| {
        let mut b = BooleanBuilder::new_in(&ARENA);
        for v in [Some(true), None, Some(false), Some(true)] {
            b.try_append_option(v)?;
        }
        let a = b.finish();
        t.eq(
            "values bits",
            &a.values().inner().as_slice(),
            &&[0b1001u8][..],
        );
        let validity = a.nulls().map(|n| n.inner().inner().as_slice());
        t.eq("validity bits", &validity, &Some(&[0b1101u8][..]));
        t.eq("true_count", &a.true_count(), &2);
        t.eq("null_count", &a.null_count(), &1);
        t.eq(
            "get",
            &[a.get(0), a.get(1), a.get(2), a.get(3), a.get(4)],
            &[Some(true), None, Some(false), Some(true), None],
        );
        t.check("aligned", a.values().inner().as_ptr() as usize % 64 == 0);
        Ok(())
    });

    h.test("many_bits_and_slicing", |t| {
        let mut b = BooleanBuilder::new_in(&ARENA);
        for i in 0..1000u32 {
            if i % 17 == 0 {
                b.try_append_null()?;
            } else {
                b.try_append_value(i % 3 == 0)?;
            }
        }
        let a = b.finish();
        t.eq("len", &a.len(), &1000);
        t.eq("null_count", &a.null_count(), &59);
        let valid_true = (0..1000u32).filter(|i| i % 17 != 0 && i % 3 == 0).count();
        t.eq("true_count", &a.true_count(), &valid_true);
        // A slice at a bit offset that is not a byte boundary.
        let s = a.slice(13, 9)?;
        let got = [s.get(0), s.get(1), s.get(2), s.get(3), s.get(4), s.get(8)];
        // slots 13..22: 13 F, 14 F, 15 T, 16 F, 17 null, 21 T
        t.eq(
            "sliced",
            &got,
            &[
                Some(false),
                Some(false),
                Some(true),
                Some(false),
                None,
                Some(true),
            ],
        );
        t.eq("sliced null_count", &s.null_count(), &1);
        t.eq(
            "out of bounds",
            &a.slice(995, 6).err(),
            &Some(Error::OutOfBounds),
        );
        Ok(())
    });

    h.test("without_nulls_has_no_bitmap", |t| {
        let mut b = BooleanBuilder::new_in(&ARENA);
        for i in 0..10 {
            b.try_append_value(i % 2 == 0)?;
        }
        let a = b.finish();
        t.check("no validity bitmap", a.nulls().is_none());
        t.eq(
            "bits",
            &a.values().inner().as_slice(),
            &&[0b0101_0101u8, 0b01][..],
        );
        Ok(())
    });

    h.finish()
}
