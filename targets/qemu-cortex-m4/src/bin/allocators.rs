//! The allocators of `alkaid-alloc` on the device: a fixed pool, counting
//! and limits over a static arena, and fault injection at every request.

#![no_std]
#![no_main]

use alkaid::array::{Array, PrimitiveArray, PrimitiveBuilder};
use alkaid::Error;
use alkaid_alloc::allocator_api2::alloc::Allocator;
use alkaid_alloc::{Counting, FailAt, FailMode, FixedPool, StaticArena};
use alkaid_qemu_cortex_m4::{entry, Harness};

static ARENA: StaticArena<{ 64 * 1024 }> = StaticArena::new();
static POOL: FixedPool<512, 8> = FixedPool::new();

fn build<'a, A: Allocator + Clone + 'a>(
    alloc: A,
    n: u32,
) -> alkaid::Result<PrimitiveArray<'a, u32, A>> {
    let mut b = PrimitiveBuilder::<u32, A>::new_in(alloc);
    for i in 0..n {
        b.try_append_option((i % 5 != 0).then_some(i))?;
    }
    Ok(b.finish())
}

#[entry]
fn main() -> ! {
    let mut h = Harness::new("allocators");

    h.test("fixed_pool", |t| {
        let a = build(&POOL, 40)?;
        t.eq("value", &a.get(39), &Some(39));
        t.eq("null", &a.get(35), &None);
        t.eq("blocks: values + bitmap", &POOL.blocks_in_use(), &2);
        t.eq(
            "too big for a block",
            &build(&POOL, 100).err(),
            &Some(Error::AllocationFailed),
        );
        drop(a);
        t.eq("all blocks back", &POOL.blocks_in_use(), &0);
        Ok(())
    });

    h.test("counting_over_the_arena", |t| {
        let counting = Counting::new(&ARENA);
        {
            let a = build(&counting, 500)?;
            t.eq("len", &a.len(), &500);
            t.check("bytes outstanding", counting.bytes_outstanding() >= 2000);
        }
        t.eq(
            "nothing outstanding after drop",
            &counting.bytes_outstanding(),
            &0,
        );
        t.eq(
            "no allocation outstanding",
            &counting.allocations_outstanding(),
            &0,
        );
        t.check("peak seen", counting.peak_bytes() >= 2000);
        Ok(())
    });

    h.test("byte_limit", |t| {
        let limited = Counting::with_limit(&ARENA, 1024);
        t.eq(
            "over the limit",
            &build(&limited, 500).err(),
            &Some(Error::AllocationFailed),
        );
        t.eq("released", &limited.bytes_outstanding(), &0);
        t.check("peak within limit", limited.peak_bytes() <= 1024);
        Ok(())
    });

    h.test("fail_at_every_request", |t| {
        for mode in [FailMode::Once, FailMode::From] {
            let mut k = 0;
            loop {
                let counting = Counting::new(&ARENA);
                let fail = FailAt::new(&counting, k, mode);
                match build(&fail, 300) {
                    Ok(a) => t.eq("value", &a.get(299), &Some(299)),
                    Err(e) => t.eq("error", &e, &Error::AllocationFailed),
                }
                t.eq("no leak", &counting.bytes_outstanding(), &0);
                if !fail.triggered() {
                    break;
                }
                k += 1;
            }
            t.check("several requests", k >= 4);
        }
        Ok(())
    });

    h.finish()
}
