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
//! # Example
//!
//! Build a batch, write it as an IPC stream, read it back and sort it with
//! the row format. With the `alloc` feature every type defaults to the
//! global heap; each constructor has an `*_in` twin taking an allocator.
//!
//! ```
//! use alkaid::array::{Array, Float64Array, RecordBatch, StringArray};
//! use alkaid::ipc::reader::SliceStreamReader;
//! use alkaid::ipc::writer::StreamWriter;
//! use alkaid::row::{RowConverter, SortField, SortOptions};
//!
//! let batch = RecordBatch::try_from_iter([
//!     ("station", StringArray::from(vec!["b", "a", "b", "a"]).into_array_ref()),
//!     ("temp", Float64Array::from(vec![21.5, 19.0, 20.25, 18.5]).into_array_ref()),
//! ])?;
//!
//! // Write an IPC stream into any `embedded_io::Write` (here a `Vec<u8>`).
//! let mut writer = StreamWriter::try_new(Vec::new(), batch.schema())?;
//! writer.write(&batch)?;
//! writer.finish()?;
//! let bytes = writer.into_inner();
//!
//! // Read it back; aligned buffers point into `bytes` (zero copy).
//! let read: Vec<RecordBatch> = SliceStreamReader::try_new(&bytes)?.collect::<Result<_, _>>()?;
//! assert_eq!(read, [batch.clone()]);
//!
//! // Sort by station, then by temperature descending: rows compare as bytes.
//! let fields = [
//!     SortField::new(batch.schema().fields()[0].data_type().clone()),
//!     SortField::new_with_options(
//!         batch.schema().fields()[1].data_type().clone(),
//!         SortOptions::new(true, false),
//!     ),
//! ];
//! let mut converter = RowConverter::try_new(&fields)?;
//! let rows = converter.convert_columns(batch.columns())?;
//! let mut order: Vec<usize> = (0..rows.len()).collect();
//! order.sort_by_key(|&i| rows.row(i));
//! assert_eq!(order, [1, 3, 0, 2]); // a 19.0, a 18.5, b 21.5, b 20.25
//! # Ok::<(), alkaid::Error>(())
//! ```
//!
//! Files, memory maps, `std::io` adapters, ZSTD and the `alkaid` command line
//! tool are in the companion crate [`alkaid-std`](../alkaid_std/index.html);
//! fixed-capacity allocators for firmware (a static arena, a pool, a bump
//! allocator) and the `Counting` and `FailAt` wrappers are in
//! [`alkaid-alloc`](../alkaid_alloc/index.html).
//!
//! [Apache Arrow]: https://arrow.apache.org/docs/format/Columnar.html

#![no_std]
#![deny(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(feature = "alloc")]
extern crate alloc;
#[cfg(test)]
extern crate std;
// `test_support` is shared with the integration tests, which name the crate.
#[cfg(test)]
extern crate self as alkaid;

/// Keeps each item only when the row format is built, that is with the
/// layout families it handles: `dictionary`, `nested`, `run-end` and
/// `views` (the one spelling of that feature set).
macro_rules! cfg_row_format {
    ($($item:item)*) => {
        $(
            #[cfg(all(
                feature = "dictionary",
                feature = "nested",
                feature = "run-end",
                feature = "views"
            ))]
            $item
        )*
    };
}

mod arch;
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
cfg_row_format! {
    pub mod row;
}
#[cfg(test)]
mod test_support;
#[cfg(test)]
mod test_support_tests;
#[cfg(test)]
mod test_types;

/// The README's code blocks, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;

/// The programs of the `docs/` pages the README moved there, run as doc
/// tests like the README's.
#[cfg(doctest)]
#[doc = include_str!("../../docs/io-and-cli.md")]
pub struct DocsIoDoctests;

/// See [`DocsIoDoctests`].
#[cfg(doctest)]
#[doc = include_str!("../../docs/allocators.md")]
pub struct DocsAllocatorsDoctests;

/// See [`DocsIoDoctests`].
#[cfg(doctest)]
#[doc = include_str!("../../docs/ffi.md")]
pub struct DocsFfiDoctests;

pub use allocator_api2;
pub use error::{Error, ErrorKind, InputKind, Location, Result};

#[cfg(feature = "alloc")]
mod global;
#[cfg(feature = "alloc")]
pub use global::Global;

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
