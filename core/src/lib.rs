//! # alkaid
//!
//! A `no_std` implementation of the [Apache Arrow] columnar format for
//! firmware, edge devices and databases with their own allocators.
//!
//! - Every allocation goes through a type parameter `A:`
//!   [`allocator_api2::alloc::Allocator`] and can fail ([`Error::AllocationFailed`]);
//!   nothing needs a `#[global_allocator]`.
//! - Buffers are 64-byte aligned and zero padded to 64 bytes ([`buffer`]), or
//!   borrow caller memory (a firmware's sample arrays, an IPC message in flash)
//!   without copying.
//! - Every physical layout of the format ([`mod@array`]) with validation levels.
//!
//! Feature `alloc` (default) adds the `Global` allocator; `error-location`
//! (default, implied by `alloc`) gives each [`Error`] a [`Location`] (field
//! path, IPC message, buffer, row or byte offset) shown by its `Display`;
//! `defmt` derives `defmt::Format` for [`Error`]. The default features `dictionary`,
//! `nested`, `union`, `views` and `run-end` are the optional layout families
//! and `compression` the IPC body compression: a firmware turns off what it
//! does not use so that its code is not linked (a reader or writer then
//! refuses schemas of a disabled family with [`Error::UnsupportedType`]).
//!
//! [Apache Arrow]: https://arrow.apache.org/docs/format/Columnar.html

#![no_std]
#![deny(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(test)]
extern crate std;

pub mod array;
pub mod buffer;
pub mod compute;
pub mod datatypes;
mod error;
pub mod extension;
#[cfg(feature = "ffi")]
pub mod ffi;
pub mod ipc;
pub mod native;
// The row format handles dictionary, nested, view and run-end encoded
// columns: it is built with those layout families.
#[cfg(all(
    feature = "dictionary",
    feature = "nested",
    feature = "run-end",
    feature = "views"
))]
pub mod row;

pub use allocator_api2;
pub use error::{Error, ErrorKind, Location, Result};

#[cfg(feature = "alloc")]
pub use allocator_api2::alloc::Global;

/// An allocator that always fails: the allocator type of arrays and schemas
/// that only borrow caller memory (a `static` schema in flash, columns over
/// sample arrays) and must never allocate.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NoAlloc;

// SAFETY: `allocate` never returns memory, so `deallocate` is never called
// with memory of ours; the contract holds vacuously.
unsafe impl allocator_api2::alloc::Allocator for NoAlloc {
    fn allocate(
        &self,
        _layout: core::alloc::Layout,
    ) -> core::result::Result<core::ptr::NonNull<[u8]>, allocator_api2::alloc::AllocError> {
        Err(allocator_api2::alloc::AllocError)
    }

    unsafe fn deallocate(&self, _ptr: core::ptr::NonNull<u8>, _layout: core::alloc::Layout) {}
}
