//! Writing IPC data to paths and `std::io` sinks: [`StreamWriter`],
//! [`FileWriter`], [`IpcWriter`], [`create_stream`], [`create_file`].
//!
//! These wrap the core writers of [`alkaid::ipc::writer`] over
//! [`embedded_io_adapters::std::FromStd`] and return the shim's [`Error`],
//! with the operating system's error when a write fails. Bodies are
//! compressed as [`IpcWriteOptions::compression`] asks, with [`StdCodecs`]
//! (LZ4 frame or ZSTD).

use std::fmt;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use alkaid::array::RecordBatch;
use alkaid::datatypes::Schema;
use alkaid::ipc::writer::{self as core_writer, IpcWriteOptions};
use alkaid::Global;

use crate::bridge::{ErrorSlot, Tracked};
use crate::codecs::StdCodecs;
use crate::error::Result;
use crate::read::IpcFormat;

/// Writes the IPC stream format to a `std::io::Write` sink: the schema at
/// once, then dictionary and record batches, then the end-of-stream marker
/// on [`Self::finish`]. A writer dropped without `finish` leaves the stream
/// without its end marker (readers accept that) and, for a `BufWriter`,
/// possibly unflushed.
pub struct StreamWriter<'a, W: Write> {
    inner: core_writer::StreamWriter<'a, Tracked<W>, Global, StdCodecs>,
    slot: ErrorSlot,
}

impl<'a, W: Write> StreamWriter<'a, W> {
    /// Starts a stream of batches of `schema` on `sink`, writing the schema
    /// message.
    ///
    /// # Errors
    /// [`alkaid::Error::InvalidArgument`] for a bad alignment in `options`;
    /// [`alkaid::Error::UnsupportedType`] for a compression the codecs cannot
    /// write; [`crate::Error::Io`] when the sink fails.
    pub fn try_new(sink: W, schema: &Schema<'a, Global>, options: IpcWriteOptions) -> Result<Self> {
        Self::try_new_with_codecs(sink, schema, options, StdCodecs::default())
    }

    /// As [`Self::try_new`] with the codecs `codecs` (e.g. ZSTD at another
    /// level: `WithCodec::new(ZstdCodec::with_level(9), BuiltinCodecs::new())`).
    ///
    /// # Errors
    /// As [`StreamWriter::try_new`].
    pub fn try_new_with_codecs(
        sink: W,
        schema: &Schema<'a, Global>,
        options: IpcWriteOptions,
        codecs: StdCodecs,
    ) -> Result<Self> {
        let slot = ErrorSlot::default();
        let inner = core_writer::StreamWriter::try_new_with_codecs_in(
            Tracked::new(sink, slot.clone()),
            schema,
            options,
            codecs,
            Global,
        )
        .map_err(|e| slot.lift(e))?;
        Ok(StreamWriter { inner, slot })
    }

    /// Writes a record batch (after the dictionary batches it needs).
    ///
    /// # Errors
    /// [`alkaid::Error::SchemaMismatch`] when the batch's fields differ from
    /// the stream's; [`crate::Error::Io`] when the sink fails.
    pub fn write(&mut self, batch: &RecordBatch<'a, Global>) -> Result<()> {
        self.inner.write(batch).map_err(|e| self.slot.lift(e))
    }

    /// Writes the end-of-stream marker and flushes the sink.
    ///
    /// # Errors
    /// [`crate::Error::Io`] when the sink fails.
    pub fn finish(&mut self) -> Result<()> {
        self.inner.finish().map_err(|e| self.slot.lift(e))
    }

    /// Bytes written so far.
    pub fn position(&self) -> u64 {
        self.inner.position()
    }

    /// The sink.
    pub fn get_ref(&self) -> &W {
        self.inner.get_ref().get_ref()
    }

    /// Unwraps the sink (without finishing the stream).
    pub fn into_inner(self) -> W {
        self.inner.into_inner().into_inner()
    }
}

impl<W: Write> fmt::Debug for StreamWriter<'_, W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

/// Writes the IPC file format to a `std::io::Write` sink (no `Seek` needed):
/// magic and schema at once, the batches, then the footer on
/// [`Self::finish`]. A file is unreadable without its footer: always finish.
pub struct FileWriter<'a, W: Write> {
    inner: core_writer::FileWriter<'a, Tracked<W>, Global, StdCodecs>,
    slot: ErrorSlot,
}

impl<'a, W: Write> FileWriter<'a, W> {
    /// Starts a file of batches of `schema` on `sink`, writing the magic and
    /// the schema message.
    ///
    /// # Errors
    /// As [`StreamWriter::try_new`].
    pub fn try_new(sink: W, schema: &Schema<'a, Global>, options: IpcWriteOptions) -> Result<Self> {
        Self::try_new_with_codecs(sink, schema, options, StdCodecs::default())
    }

    /// As [`Self::try_new`] with the codecs `codecs` (e.g. ZSTD at another
    /// level: `WithCodec::new(ZstdCodec::with_level(9), BuiltinCodecs::new())`).
    ///
    /// # Errors
    /// As [`StreamWriter::try_new`].
    pub fn try_new_with_codecs(
        sink: W,
        schema: &Schema<'a, Global>,
        options: IpcWriteOptions,
        codecs: StdCodecs,
    ) -> Result<Self> {
        let slot = ErrorSlot::default();
        let inner = core_writer::FileWriter::try_new_with_codecs_in(
            Tracked::new(sink, slot.clone()),
            schema,
            options,
            codecs,
            Global,
        )
        .map_err(|e| slot.lift(e))?;
        Ok(FileWriter { inner, slot })
    }

    /// Writes a record batch (after the dictionary batches it needs).
    ///
    /// # Errors
    /// As [`StreamWriter::write`], and
    /// [`alkaid::Error::DictionaryReplacementInFile`] when a dictionary
    /// changes other than by appending.
    pub fn write(&mut self, batch: &RecordBatch<'a, Global>) -> Result<()> {
        self.inner.write(batch).map_err(|e| self.slot.lift(e))
    }

    /// Writes the end-of-stream marker, the footer and the closing magic,
    /// and flushes the sink.
    ///
    /// # Errors
    /// [`crate::Error::Io`] when the sink fails.
    pub fn finish(&mut self) -> Result<()> {
        self.inner.finish().map_err(|e| self.slot.lift(e))
    }

    /// Bytes written so far.
    pub fn position(&self) -> u64 {
        self.inner.position()
    }

    /// Unwraps the sink (without finishing the file).
    pub fn into_inner(self) -> W {
        self.inner.into_inner().into_inner()
    }
}

impl<W: Write> fmt::Debug for FileWriter<'_, W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

/// A [`StreamWriter`] or a [`FileWriter`], for a format chosen at run time.
#[derive(Debug)]
pub enum IpcWriter<'a, W: Write> {
    /// The stream format.
    Stream(StreamWriter<'a, W>),
    /// The file format.
    File(FileWriter<'a, W>),
}

impl<'a, W: Write> IpcWriter<'a, W> {
    /// Starts writing `format` on `sink`.
    ///
    /// # Errors
    /// As [`StreamWriter::try_new`].
    pub fn try_new(
        sink: W,
        format: IpcFormat,
        schema: &Schema<'a, Global>,
        options: IpcWriteOptions,
    ) -> Result<Self> {
        Ok(match format {
            IpcFormat::Stream => IpcWriter::Stream(StreamWriter::try_new(sink, schema, options)?),
            IpcFormat::File => IpcWriter::File(FileWriter::try_new(sink, schema, options)?),
        })
    }

    /// The format being written.
    pub fn format(&self) -> IpcFormat {
        match self {
            IpcWriter::Stream(_) => IpcFormat::Stream,
            IpcWriter::File(_) => IpcFormat::File,
        }
    }

    /// Writes a record batch.
    ///
    /// # Errors
    /// As [`FileWriter::write`].
    pub fn write(&mut self, batch: &RecordBatch<'a, Global>) -> Result<()> {
        match self {
            IpcWriter::Stream(w) => w.write(batch),
            IpcWriter::File(w) => w.write(batch),
        }
    }

    /// Finishes the stream or file and flushes the sink.
    ///
    /// # Errors
    /// [`crate::Error::Io`] when the sink fails.
    pub fn finish(&mut self) -> Result<()> {
        match self {
            IpcWriter::Stream(w) => w.finish(),
            IpcWriter::File(w) => w.finish(),
        }
    }

    /// Unwraps the sink (without finishing).
    pub fn into_inner(self) -> W {
        match self {
            IpcWriter::Stream(w) => w.into_inner(),
            IpcWriter::File(w) => w.into_inner(),
        }
    }
}

/// Creates (or truncates) the file at `path` and starts an IPC stream of
/// batches of `schema` in it, through a [`BufWriter`]. Call
/// [`StreamWriter::finish`] to write the end marker and flush.
///
/// # Errors
/// [`crate::Error::Io`] when the file cannot be created or written; as
/// [`StreamWriter::try_new`].
pub fn create_stream<'a>(
    path: impl AsRef<Path>,
    schema: &Schema<'a, Global>,
    options: IpcWriteOptions,
) -> Result<StreamWriter<'a, BufWriter<File>>> {
    let file = File::create(path.as_ref())?;
    StreamWriter::try_new(BufWriter::new(file), schema, options)
}

/// Creates (or truncates) the file at `path` and starts an IPC file of
/// batches of `schema` in it, through a [`BufWriter`]. Call
/// [`FileWriter::finish`] to write the footer and flush.
///
/// # Errors
/// As [`create_stream`].
pub fn create_file<'a>(
    path: impl AsRef<Path>,
    schema: &Schema<'a, Global>,
    options: IpcWriteOptions,
) -> Result<FileWriter<'a, BufWriter<File>>> {
    let file = File::create(path.as_ref())?;
    FileWriter::try_new(BufWriter::new(file), schema, options)
}
