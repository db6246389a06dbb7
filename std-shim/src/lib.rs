//! `alkaid-std`: the `std` side of [`alkaid`].
//!
//! - Reading: [`open_ipc`] memory-maps a file and detects the stream or file
//!   format from its first bytes; [`read_ipc`] does the same for any
//!   `std::io::Read`; [`read_stream`] reads the stream format from one.
//!   [`IpcInput::reader`] gives an [`IpcReader`], an iterator over the record
//!   batches (zero copy over the mapping, fully validated by the core).
//! - Writing: [`create_stream`] and [`create_file`] write to a path through a
//!   `BufWriter`; [`StreamWriter`], [`FileWriter`] and [`IpcWriter`] write to
//!   any `std::io::Write`.
//! - The `std::io` ↔ `embedded-io` bridge is
//!   [`embedded_io_adapters::std::FromStd`]; errors are [`Error`], which
//!   wraps [`alkaid::Error`] and [`std::io::Error`] (with the operating
//!   system's error when a read or write fails) and converts into both.
//! - [`format`](mod@format): data types, schemas and values as text, as the `alkaid`
//!   command-line tool prints them.
//! - In-process interop: [`IpcInput::to_ffi_stream`] exports what a file
//!   holds as an [`alkaid::ffi::FFI_ArrowArrayStream`] (C Stream Interface)
//!   for pyarrow, arrow-rs, polars or DuckDB in the same process, without
//!   copying a buffer; [`IpcInput::reader`]'s batches are `'static` (they
//!   keep the mapping alive), so a function can open a file and return them.
//! - Compression: every reader and writer here uses [`StdCodecs`], so LZ4
//!   frame (from the core) and ZSTD ([`ZstdCodec`], the reference library)
//!   bodies are read, and written when [`IpcWriteOptions::compression`] asks
//!   for them.
//!
//! Memory comes from [`alkaid::Global`].
//!
//! ```
//! use alkaid::array::{Array, PrimitiveArray, RecordBatch};
//! use alkaid::buffer::SharedSlice;
//! use alkaid::datatypes::{DataType, Field, Schema};
//! use alkaid::Global;
//! use alkaid_std::{IpcFormat, IpcInput, IpcWriter};
//!
//! let col = PrimitiveArray::<i32, Global>::try_from_options_in(&[Some(1), None], Global)?;
//! let fields = SharedSlice::try_from_iter_in([Field::new("x", DataType::Int32, true)], Global)?;
//! let schema = Schema::new(fields);
//! let batch = RecordBatch::try_new(
//!     schema.clone(),
//!     SharedSlice::try_from_iter_in([col.into_array_ref()], Global)?,
//! )?;
//!
//! let mut w = IpcWriter::try_new(Vec::new(), IpcFormat::File, &schema, Default::default())?;
//! w.write(&batch)?;
//! w.finish()?;
//! let bytes = w.into_inner();
//!
//! let mut input = IpcInput::from_bytes(&bytes)?;
//! assert_eq!(input.format(), IpcFormat::File);
//! let mut reader = input.reader()?;
//! let got = reader.next_batch()?.expect("one batch");
//! assert_eq!(got, batch);
//! assert_eq!(alkaid_std::format::table(&got, 0..2).to_string(), "x\n----\n1\nnull\n");
//! # Ok::<(), alkaid_std::Error>(())
//! ```
#![deny(missing_docs)]

pub use alkaid;
pub use alkaid::ipc::reader::IpcReadOptions;
pub use alkaid::ipc::writer::IpcWriteOptions;

mod bridge;
mod codecs;
mod error;
mod ffi;
pub mod format;
mod read;
mod write;

pub use codecs::{StdCodecs, ZstdCodec};
pub use error::{Error, Result};
pub use read::{open_ipc, read_ipc, read_stream, read_stream_with, IpcFormat, IpcInput, IpcReader};
pub use write::{create_file, create_stream, FileWriter, IpcWriter, StreamWriter};
