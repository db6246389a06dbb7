//! # alkaid-alloc
//!
//! `no_std` allocators for `alkaid` arrays,
//! implementing [`allocator_api2::alloc::Allocator`] (the 0.2 line, the trait
//! the core's buffers are generic over). None of them needs a global heap.
//!
//! | type | what | allocator value to pass |
//! |---|---|---|
//! | [`StaticArena<N>`] | bump arena over an internal `N`-byte, 64-byte aligned region; `const fn new`, lives in a `static` | `&ARENA` |
//! | [`Arena<'a>`] | bump arena over a caller-given `&'a mut [u8]` | `&arena` |
//! | [`FixedPool<BLOCK, N>`] | `N` blocks of `BLOCK` bytes, 64-byte aligned; fails for larger layouts | `&POOL` |
//! | [`Counting<A>`] | counts bytes and allocations outstanding, peak bytes, totals; optional byte limit | `&counting` |
//! | [`FailAt<A>`] | fails the k-th request (once, or from then on) for out-of-memory tests | `&fail_at` |
//! | `Shared<A>` (feature `alloc`) | a `Clone + 'static` handle to one of the above on the global heap (`Send + Sync` when `A` is) | `shared.clone()` |
//!
//! Builders in `alkaid` need `A: Allocator + Clone`: pass a shared reference
//! (`&T` is an allocator whenever `T` is, and it is `Copy`). The arenas and
//! the pool implement the trait only for references because moving them
//! would move the memory they handed out.
//!
//! Failure is an [`AllocError`](allocator_api2::alloc::AllocError), which
//! `alkaid` reports as `alkaid::Error::AllocationFailed`.
//!
//! ## Example: an array in a static arena
//!
//! ```
//! use alkaid::array::{Array, PrimitiveBuilder};
//! use alkaid_alloc::StaticArena;
//!
//! static ARENA: StaticArena<4096> = StaticArena::new();
//!
//! let mut b = PrimitiveBuilder::<i32, _>::new_in(&ARENA);
//! b.try_append_value(1)?;
//! b.try_append_null()?;
//! let a = b.finish();
//! assert_eq!(a.get(0), Some(1));
//! assert_eq!(a.null_count(), 1);
//! assert_eq!(a.values().as_ptr() as usize % 64, 0);
//! # Ok::<(), alkaid::Error>(())
//! ```
//!
//! ## Example: how much heap a firmware needs
//!
//! A [`Counting`] over the arena, both in `static`s, measures what alkaid
//! asks for (the size report of the firmware targets does this):
//!
//! ```
//! use alkaid::array::{Array, StringArray};
//! use alkaid_alloc::{Counting, StaticArena};
//!
//! static ARENA: StaticArena<8192> = StaticArena::new();
//! static HEAP: Counting<&StaticArena<8192>> = Counting::new(&ARENA);
//!
//! let names = StringArray::try_from_options_in(&[Some("temperature"), None], &HEAP)?;
//! assert_eq!(names.len(), 2);
//! assert!(HEAP.bytes_outstanding() > 0);
//! assert!(HEAP.bytes_outstanding() <= ARENA.used()); // the arena adds alignment gaps
//! drop(names);
//! assert_eq!(HEAP.bytes_outstanding(), 0);
//! assert!(HEAP.peak_bytes() > 0); // the budget to give the arena
//! # Ok::<(), alkaid::Error>(())
//! ```
//!
//! ## Atomics
//!
//! Cursors, flags and counters are `portable_atomic` atomics. On targets with
//! compare-and-swap they are the `core` atomics; on targets without it
//! (`thumbv6m-none-eabi`, Cortex-M0) this crate enables portable-atomic's
//! `critical-section` feature, so the final binary must provide a
//! `critical-section` implementation (for a single-core Cortex-M: `cortex-m`
//! with feature `critical-section-single-core`). `alkaid` itself does the
//! same for its reference counts, so a thumbv6m firmware needs that
//! implementation anyway. The alternative, a critical section around every
//! allocation on every target, would make the common case slower and force
//! every user to provide one.
//!
//! ## Interop with `bumpalo`
//!
//! [`bumpalo`](https://docs.rs/bumpalo) implements the same trait for
//! `&bumpalo::Bump` when built with its `allocator-api2` feature, so a `Bump`
//! can hold alkaid arrays directly (bumpalo gets its chunks from the global
//! heap, so this is for hosts, not for firmware). Like [`StaticArena`], a
//! `Bump` only reclaims memory on `reset`; wrap it in [`Counting`] to watch
//! what alkaid asks of it.
//!
//! ```
//! use alkaid::array::{Array, PrimitiveBuilder};
//!
//! let bump = bumpalo::Bump::new();
//! let mut b = PrimitiveBuilder::<u16, _>::new_in(&bump);
//! b.try_append_slice(&[7, 8, 9])?;
//! let a = b.finish();
//! assert_eq!(a.values(), &[7, 8, 9]);
//! # Ok::<(), alkaid::Error>(())
//! ```

#![no_std]
#![deny(missing_docs)]

#[cfg(feature = "alloc")]
extern crate alloc;
#[cfg(test)]
extern crate std;

mod bump;
mod counting;
mod fail;
mod pool;
#[cfg(feature = "alloc")]
mod shared;

pub use allocator_api2;
pub use bump::{Arena, StaticArena};
pub use counting::Counting;
pub use fail::{FailAt, FailMode};
pub use pool::{FixedPool, BLOCK_ALIGN};
#[cfg(feature = "alloc")]
pub use shared::Shared;
