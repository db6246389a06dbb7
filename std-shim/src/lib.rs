//! `alkaid-std`: the `std` side of [`alkaid`], a `no_std` implementation of
//! the Apache Arrow columnar format: files, memory maps, `std::io` adapters,
//! ZSTD and the `alkaid` command-line tool.
//!
//! # Example
//!
//! Write a stream to a file, read it back, and write a function that
//! returns the batches of a file it opens by path (they keep their memory
//! alive, so nothing borrows from the function's locals):
//!
//! ```
//! use std::path::Path;
//!
//! use alkaid_std::array::{Array, Float64Array, Int32Array};
//! use alkaid_std::{FileSeekReader, RecordBatch};
//!
//! fn load(path: &Path) -> Result<Vec<RecordBatch<'static>>, alkaid_std::Error> {
//!     // Memory-mapped, zero copy; `FileSeekReader::open` reads without a map.
//!     alkaid_std::open_ipc(path)?.reader()?.collect()
//! }
//!
//! let batch = RecordBatch::try_from_iter([
//!     ("id", Int32Array::from(vec![1, 2, 3]).into_array_ref()),
//!     ("temp", Float64Array::from(vec![21.5, 19.0, 20.25]).into_array_ref()),
//! ])?;
//!
//! let dir = std::env::temp_dir();
//! let stream = dir.join(format!("alkaid-std-example-{}.arrows", std::process::id()));
//! let mut writer = alkaid_std::create_stream(&stream, batch.schema(), Default::default())?;
//! writer.write(&batch)?;
//! writer.write(&batch)?;
//! writer.finish()?; // the end-of-stream marker, and a flush
//! drop(writer);
//! assert_eq!(load(&stream)?, [batch.clone(), batch.clone()]);
//!
//! // The file format, read by seeking instead of mapping.
//! let file = dir.join(format!("alkaid-std-example-{}.arrow", std::process::id()));
//! let mut writer = alkaid_std::create_file(&file, batch.schema(), Default::default())?;
//! writer.write(&batch)?;
//! writer.finish()?; // the footer: a file is unreadable without it
//! drop(writer);
//! let batches = FileSeekReader::open(&file)?.collect::<alkaid_std::Result<Vec<_>>>()?;
//! assert_eq!(batches, [batch]);
//! # std::fs::remove_file(&stream)?;
//! # std::fs::remove_file(&file)?;
//! # Ok::<(), alkaid_std::Error>(())
//! ```
//!
//! # Contents
//!
//! - Reading: [`open_ipc`] memory-maps a file and detects the stream or file
//!   format from its first bytes; [`read_ipc`] does the same for any
//!   `std::io::Read`; [`read_stream`] reads the stream format from one;
//!   [`FileSeekReader`] reads the file format from a [`std::fs::File`] by
//!   seeking, without a map. [`IpcInput::reader`] gives an [`IpcReader`],
//!   an iterator over the record batches (zero copy over the mapping, fully
//!   validated by the core), whose batches are `'static`: they keep the
//!   mapping alive.
//! - Writing: [`create_stream`] and [`create_file`] write to a path through a
//!   `BufWriter`; [`StreamWriter`] and [`FileWriter`] (one implementation,
//!   [`FormatWriter`]) and [`IpcWriter`] (the format chosen at run time)
//!   write to any `std::io::Write`; [`VectoredStreamWriter`] and
//!   [`VectoredFileWriter`] write the same bytes with one `write_vectored`
//!   per batch, body buffers straight from array memory.
//! - Errors are [`Error`]: a core error ([`alkaid::Error`](Error::Arrow)) or
//!   the operating system's [`std::io::Error`] when a read or write fails
//!   (kept by the adapter between `std::io` and the core's `embedded-io`
//!   traits, and returned as the error's
//!   [`source`](std::error::Error::source)); it converts into both.
//! - [`format`](mod@format): data types, schemas and values as text, as the
//!   `alkaid` command-line tool prints them.
//! - In-process interop: [`IpcInput::to_ffi_stream`] exports what a file
//!   holds through the C Stream Interface for pyarrow, arrow-rs, polars or
//!   DuckDB in the same process, without copying a buffer.
//! - Compression: every reader and writer here uses [`StdCodecs`], so LZ4
//!   frame (from the core) and ZSTD ([`ZstdCodec`], the reference library)
//!   bodies are read, and written when [`IpcWriteOptions`] name a
//!   [`CompressionCodec`].
//!
//! The types the examples need are re-exported here: the core crate as
//! [`alkaid`], its [`array`](mod@array) and [`datatypes`] modules, and [`RecordBatch`],
//! [`Schema`], [`Field`], [`DataType`], [`IpcWriteOptions`],
//! [`IpcReadOptions`] and [`CompressionCodec`]. Memory comes from
//! `Global` (the global heap).
//!
//! # Features
//!
//! - `cli` (default): the `alkaid` command-line tool (`alkaid schema`,
//!   `cat`, `validate`, `convert`, …) and its dependency on `clap`. A
//!   program that uses this crate as a library can turn it off
//!   (`default-features = false`).

#![deny(missing_docs)]

pub use alkaid;
#[doc(no_inline)]
pub use alkaid::array::{self, Array, ArrayRef, RecordBatch, ValidationLevel};
#[doc(no_inline)]
pub use alkaid::datatypes::{self, DataType, Field, Schema};
#[doc(no_inline)]
pub use alkaid::ipc::reader::IpcReadOptions;
#[doc(no_inline)]
pub use alkaid::ipc::writer::{CompressionCodec, IpcWriteOptions};
#[doc(no_inline)]
pub use alkaid::Global;

mod bridge;
mod codecs;
mod error;
mod ffi;
#[cfg(feature = "flight")]
pub mod flight;
mod follow;
pub mod format;
mod read;
mod seek;
mod threads;
mod vectored;
mod write;

pub use codecs::{StdCodecs, ZstdCodec};
pub use error::{Error, Result};
pub use follow::Follow;
pub use read::{open_ipc, read_ipc, read_stream, read_stream_with, IpcFormat, IpcInput, IpcReader};
pub use seek::FileSeekReader;
pub use threads::ThreadedCodecs;
pub use vectored::{VectoredFileWriter, VectoredStreamWriter};
pub use write::{
    create_file, create_stream, FileFormat, FileWriter, FormatWriter, IpcWriter, StreamFormat,
    StreamWriter, WriterFormat,
};
