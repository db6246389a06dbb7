//! What the two size-report firmwares share: a counting heap over a static
//! arena, and a report printed over semihosting **without `core::fmt`**
//! (formatting machinery would dominate a budget of a few KiB and is not
//! what is being measured).
//!
//! Each firmware prints `key=value` lines that `report.sh` collects, and
//! exits 0 when its own checks pass (1 otherwise, 101 on a panic, 3 on a
//! hard fault).

#![no_std]

pub use alkaid;
pub use alkaid_alloc;
pub use cortex_m_rt::entry;

use alkaid_alloc::{Counting, StaticArena};
use semihosting::io::Write;

/// Bytes of the static arena behind the heap.
pub const ARENA_BYTES: usize = 16 * 1024;

/// The arena behind the heap (in `.bss`).
pub static ARENA: StaticArena<ARENA_BYTES> = StaticArena::new();

/// The heap: every allocation of the firmware goes through this counter.
pub static HEAP: Counting<&'static StaticArena<ARENA_BYTES>> = Counting::new(&ARENA);

/// The allocator type of the firmwares.
pub type A = &'static Counting<&'static StaticArena<ARENA_BYTES>>;

/// Writes `s` to the host's standard output.
pub fn put(s: &str) {
    if let Ok(mut out) = semihosting::io::stdout() {
        let _ = out.write_all(s.as_bytes());
    }
}

/// Writes `n` in decimal (32-bit: no 64-bit division routine linked).
pub fn put_u32(n: u32) {
    let mut buf = [0u8; 10];
    let mut i = buf.len();
    let mut n = n;
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    if let Ok(mut out) = semihosting::io::stdout() {
        let _ = out.write_all(&buf[i..]);
    }
}

/// Prints `key=value\n`.
pub fn report(key: &str, value: usize) {
    put(key);
    put("=");
    put_u32(value as u32);
    put("\n");
}

/// Prints the heap's figures: `<prefix>_heap_peak`, `<prefix>_heap_outstanding`,
/// `<prefix>_heap_allocations`.
pub fn report_heap(prefix: &str) {
    put(prefix);
    report("_heap_peak_bytes", HEAP.peak_bytes());
    put(prefix);
    report("_heap_outstanding_bytes", HEAP.bytes_outstanding());
    put(prefix);
    report("_heap_allocations", HEAP.total_allocations());
}

/// Exits through semihosting with `code`.
pub fn exit(code: i32) -> ! {
    semihosting::process::exit(code)
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    put("panicked\n");
    exit(101)
}

#[cortex_m_rt::exception]
unsafe fn HardFault(_: &cortex_m_rt::ExceptionFrame) -> ! {
    put("hard fault\n");
    exit(3)
}
