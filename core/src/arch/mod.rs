//! What the kernels ask of the processor: which instruction set extensions
//! it has, cache hints, and the register that moves a 16-byte view. Crate
//! private; every item has a portable stand-in, so callers need a `cfg`
//! only to reach the x86-64 code itself.
//!
//! | file | what |
//! |---|---|
//! | `mod.rs` | [`View16`] |
//! | `prefetch.rs` | [`prefetch::prefetch`] (one cache line) and [`prefetch::ahead`] (a row a few rows on) |
//! | `x86.rs` | run-time detection of BMI1/BMI2 (`PEXT`) and AVX2, and the AVX2 bit gather (x86-64 only) |

pub(crate) mod prefetch;
#[cfg(target_arch = "x86_64")]
pub(crate) mod x86;

/// A 16-byte view as the gathers of `take` and `filter` move it: one SSE
/// register on x86-64 (one 16-byte load and store), a `u128` elsewhere.
/// Either keeps the view in registers where a `[u8; 16]` goes through the
/// stack.
#[cfg(all(feature = "views", target_arch = "x86_64"))]
pub(crate) type View16 = core::arch::x86_64::__m128i;
/// A 16-byte view as the gathers of `take` and `filter` move it: one SSE
/// register on x86-64, a `u128` elsewhere (here).
#[cfg(all(feature = "views", not(target_arch = "x86_64")))]
pub(crate) type View16 = u128;
