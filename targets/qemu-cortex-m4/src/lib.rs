//! Test harness shared by the firmware test binaries in `src/bin/`.
//!
//! Each binary is a `#![no_std]`, `#![no_main]` firmware for QEMU's
//! mps2-an386 (Cortex-M4F) with **no `#[global_allocator]`**: every array
//! lives in a [`alkaid_alloc::StaticArena`] in `.bss`, or borrows `static`
//! data in flash. Output and the exit code go through semihosting:
//!
//! ```text
//! test primitive::spec_example ... ok
//! ...
//! primitive: 6 passed, 0 failed
//! ```
//!
//! The process exits with 0 when every test passed, 1 otherwise, 101 on a
//! panic and 3 on a hard fault.

#![no_std]

use core::fmt::Debug;

pub use alkaid;
pub use alkaid_alloc;
pub use cortex_m_rt::entry;
pub use semihosting::println;

/// Start of the mps2-an386 code memory (SSRAM1, our "flash"); see memory.x.
pub const FLASH_START: usize = 0x0000_0000;
/// End (exclusive) of the code memory.
pub const FLASH_END: usize = 0x0040_0000;
/// Start of the data memory (SSRAM2&3).
pub const RAM_START: usize = 0x2000_0000;
/// End (exclusive) of the data memory.
pub const RAM_END: usize = 0x2040_0000;

/// `true` when `p` points into the code memory (flash).
pub fn in_flash<T: ?Sized>(p: *const T) -> bool {
    let a = p.cast::<u8>() as usize;
    (FLASH_START..FLASH_END).contains(&a)
}

/// `true` when `p` points into the data memory (RAM).
pub fn in_ram<T: ?Sized>(p: *const T) -> bool {
    let a = p.cast::<u8>() as usize;
    (RAM_START..RAM_END).contains(&a)
}

/// Runs named tests, counts results and exits through semihosting.
#[derive(Debug)]
pub struct Harness {
    suite: &'static str,
    passed: u32,
    failed: u32,
}

/// The checks of one test: a failed check marks the test failed and prints
/// what was expected.
#[derive(Debug)]
pub struct Checks {
    failures: u32,
}

impl Checks {
    /// Checks that `cond` holds.
    pub fn check(&mut self, what: &str, cond: bool) {
        if !cond {
            self.failures += 1;
            println!("    check failed: {}", what);
        }
    }

    /// Checks that `got == want`.
    pub fn eq<T: PartialEq + Debug + ?Sized>(&mut self, what: &str, got: &T, want: &T) {
        if got != want {
            self.failures += 1;
            println!("    check failed: {}: got {:?}, want {:?}", what, got, want);
        }
    }
}

impl Harness {
    /// A harness for the test binary `suite`.
    pub fn new(suite: &'static str) -> Self {
        println!(
            "running {} (thumbv7em-none-eabihf, no global allocator)",
            suite
        );
        Harness {
            suite,
            passed: 0,
            failed: 0,
        }
    }

    /// Runs one test: it passes when it returns `Ok` and no check failed.
    pub fn test(&mut self, name: &str, f: impl FnOnce(&mut Checks) -> alkaid::Result<()>) {
        let mut c = Checks { failures: 0 };
        let r = f(&mut c);
        if let Err(e) = r {
            println!("    error: {:?} ({})", e, e.message());
            c.failures += 1;
        }
        if c.failures == 0 {
            self.passed += 1;
            println!("test {}::{} ... ok", self.suite, name);
        } else {
            self.failed += 1;
            println!("test {}::{} ... FAILED", self.suite, name);
        }
    }

    /// Prints `N passed, M failed` and exits: 0 when nothing failed, 1 otherwise.
    pub fn finish(self) -> ! {
        println!(
            "{}: {} passed, {} failed",
            self.suite, self.passed, self.failed
        );
        semihosting::process::exit(if self.failed == 0 { 0 } else { 1 })
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
