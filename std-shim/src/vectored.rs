//! Vectored IPC writers: [`VectoredStreamWriter`] and [`VectoredFileWriter`]
//! write each message (a record batch with the dictionary batches it needs,
//! the schema, the end) with `write_vectored` over the pieces of the core's
//! sans-IO encoder ([`StreamEncoder`], [`FileEncoder`]): a `File`, a
//! `TcpStream` or a pipe gets one `writev` per batch when it takes it whole,
//! and no body byte is copied in user space (buffers go from array memory to
//! the kernel; only rebased offsets, shifted bitmaps and compressed bodies
//! are staged by the encoder).
//!
//! Partial writes continue from where the sink stopped (`IoSlice::advance_slices`);
//! `Interrupted` is retried. The bytes are those of
//! [`StreamWriter`](crate::StreamWriter) and [`FileWriter`](crate::FileWriter).

use std::io::{self, IoSlice, Write};

use alkaid::allocator_api2::alloc::Allocator;
use alkaid::array::RecordBatch;
use alkaid::datatypes::{Metadata, Schema};
use alkaid::ipc::compression::CodecSet;
use alkaid::ipc::writer::{EncodedMessage, FileEncoder, IpcWriteOptions, StreamEncoder};
use alkaid::Global;

use crate::codecs::StdCodecs;
use crate::error::Result;

/// Writes all of `msg` to `w` with `write_vectored`, continuing after
/// partial writes and retrying `Interrupted`; returns the bytes written.
///
/// # Errors
/// `WriteZero` when the sink takes nothing; `InvalidData` when it claims
/// more bytes than it was given; the sink's errors.
fn write_message<W: Write>(w: &mut W, msg: &EncodedMessage<'_>) -> io::Result<u64> {
    let mut slices: Vec<IoSlice<'_>> = msg.pieces().map(IoSlice::new).collect();
    let mut bufs = &mut slices[..];
    let mut left = msg.len();
    while left > 0 {
        match w.write_vectored(bufs) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) if n as u64 > left => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "write_vectored reported more bytes than it was given",
                ))
            }
            Ok(n) => {
                left -= n as u64;
                IoSlice::advance_slices(&mut bufs, n);
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(msg.len())
}

macro_rules! vectored_writer {
    ($(#[$doc:meta])* $name:ident, $encoder:ident) => {
        $(#[$doc])*
        pub struct $name<
            'a,
            W: Write,
            S: CodecSet = StdCodecs,
            A: Allocator + Clone + 'a = Global,
        > {
            sink: W,
            enc: $encoder<'a, A, S>,
            position: u64,
        }

        impl<'a, W: Write> $name<'a, W> {
            /// Starts writing batches of `schema` to `sink` with the default
            /// options, writing the opening bytes (the schema message; for
            /// the file format, the magic first) at once.
            ///
            /// # Errors
            /// [`Error::Io`](crate::Error::Io) when the sink fails;
            /// [`alkaid::Error::UnsupportedType`] for a field type the IPC
            /// format cannot carry.
            pub fn try_new(sink: W, schema: &Schema<'a, Global>) -> Result<Self> {
                Self::try_new_with_options(sink, schema, IpcWriteOptions::default())
            }

            /// As [`Self::try_new`] with `options` (compression with
            /// [`StdCodecs`], alignment, spelling).
            ///
            /// # Errors
            /// As [`Self::try_new`]; [`alkaid::Error::InvalidArgument`] for a
            /// bad alignment.
            pub fn try_new_with_options(
                sink: W,
                schema: &Schema<'a, Global>,
                options: IpcWriteOptions,
            ) -> Result<Self> {
                Self::try_new_with_codecs(sink, schema, options, StdCodecs::default())
            }
        }

        impl<'a, W: Write, S: CodecSet> $name<'a, W, S, Global> {
            /// As [`Self::try_new_with_options`] with the codecs `codecs`
            /// (e.g. [`ThreadedCodecs`](crate::ThreadedCodecs), which
            /// compresses each batch's buffers on several threads: the same
            /// bytes).
            ///
            /// # Errors
            /// As [`Self::try_new_with_options`];
            /// [`alkaid::Error::Lz4CodecMissing`] /
            /// [`alkaid::Error::ZstdCodecMissing`] for a compression the
            /// codecs cannot write.
            pub fn try_new_with_codecs(
                sink: W,
                schema: &Schema<'a, Global>,
                options: IpcWriteOptions,
                codecs: S,
            ) -> Result<Self> {
                Self::try_new_with_codecs_in(sink, schema, options, codecs, Global)
            }
        }

        impl<'a, W: Write, S: CodecSet, A: Allocator + Clone + 'a> $name<'a, W, S, A> {
            /// As [`Self::try_new_with_codecs`] for batches in the allocator
            /// `alloc` (the encoder's own memory comes from it too).
            ///
            /// # Errors
            /// As [`Self::try_new_with_codecs`].
            pub fn try_new_with_codecs_in(
                mut sink: W,
                schema: &Schema<'a, A>,
                options: IpcWriteOptions,
                codecs: S,
                alloc: A,
            ) -> Result<Self> {
                let mut enc = $encoder::try_new_with_codecs_in(schema, options, codecs, alloc)?;
                let position = write_message(&mut sink, &enc.encode_schema()?)?;
                Ok($name {
                    sink,
                    enc,
                    position,
                })
            }

            /// Writes a record batch, after the dictionary batches it needs,
            /// with one `write_vectored` call when the sink takes it whole.
            ///
            /// # Errors
            /// [`alkaid::Error::SchemaMismatch`] when the batch's fields
            /// differ from the schema's; [`alkaid::Error::InvalidBuilderState`]
            /// after [`Self::finish`] or an earlier error;
            /// [`Error::Io`](crate::Error::Io) when the sink fails.
            pub fn write(&mut self, batch: &RecordBatch<'a, A>) -> Result<()> {
                self.write_with_metadata(batch, None)
            }

            /// As [`Self::write`], with custom metadata on the record
            /// batch's message (`Message.custom_metadata`).
            ///
            /// # Errors
            /// As [`Self::write`].
            pub fn write_with_metadata(
                &mut self,
                batch: &RecordBatch<'a, A>,
                metadata: Option<&Metadata<'_, A>>,
            ) -> Result<()> {
                let msg = self.enc.encode_batch_with_metadata(batch, metadata)?;
                self.position += write_message(&mut self.sink, &msg)?;
                Ok(())
            }

            /// Writes the end (see the type's documentation) and flushes
            /// the sink. Calling it again only flushes.
            ///
            /// # Errors
            /// [`Error::Io`](crate::Error::Io) when the sink fails;
            /// [`alkaid::Error::AllocationFailed`].
            pub fn finish(&mut self) -> Result<()> {
                let msg = self.enc.finish()?;
                self.position += write_message(&mut self.sink, &msg)?;
                self.sink.flush()?;
                Ok(())
            }

            /// Bytes written so far.
            pub fn position(&self) -> u64 {
                self.position
            }

            /// The sink.
            pub fn get_ref(&self) -> &W {
                &self.sink
            }

            /// Unwraps the sink (without finishing).
            pub fn into_inner(self) -> W {
                self.sink
            }
        }

        impl<'a, W: Write, S: CodecSet, A: Allocator + Clone + 'a> std::fmt::Debug
            for $name<'a, W, S, A>
        {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($name))
                    .field("position", &self.position)
                    .finish()
            }
        }
    };
}

vectored_writer!(
    /// Writes the IPC stream format to a `std::io::Write` sink with one
    /// `write_vectored` per batch: the schema at once, then dictionary and
    /// record batches, then the end-of-stream marker on [`Self::finish`].
    /// Same bytes as [`StreamWriter`](crate::StreamWriter); no body byte is
    /// copied on the way.
    ///
    /// ```
    /// # use alkaid_std::array::{Array, Int64Array, RecordBatch};
    /// # let batch = RecordBatch::try_from_iter([("v", Int64Array::from(vec![7, 8]).into_array_ref())])?;
    /// use alkaid_std::{StreamWriter, VectoredStreamWriter};
    ///
    /// let mut w = VectoredStreamWriter::try_new(Vec::new(), batch.schema())?;
    /// w.write(&batch)?;
    /// w.finish()?;
    /// let mut s = StreamWriter::try_new(Vec::new(), batch.schema())?;
    /// s.write(&batch)?;
    /// s.finish()?;
    /// assert_eq!(w.into_inner(), s.into_inner());
    /// # Ok::<(), alkaid_std::Error>(())
    /// ```
    VectoredStreamWriter,
    StreamEncoder
);

vectored_writer!(
    /// Writes the IPC file format to a `std::io::Write` sink with one
    /// `write_vectored` per batch (no `Seek` needed): magic and schema at
    /// once, the batches, then the footer on [`Self::finish`]. Same bytes
    /// as [`FileWriter`](crate::FileWriter). A file is unreadable without
    /// its footer: always finish.
    ///
    /// ```
    /// # use alkaid_std::array::{Array, Int64Array, RecordBatch};
    /// # let batch = RecordBatch::try_from_iter([("v", Int64Array::from(vec![7, 8]).into_array_ref())])?;
    /// use alkaid_std::{IpcInput, VectoredFileWriter};
    ///
    /// let mut w = VectoredFileWriter::try_new(Vec::new(), batch.schema())?;
    /// w.write(&batch)?;
    /// w.finish()?;
    /// let bytes = w.into_inner();
    /// assert_eq!(IpcInput::from_bytes(&bytes)?.reader()?.next_batch()?, Some(batch));
    /// # Ok::<(), alkaid_std::Error>(())
    /// ```
    VectoredFileWriter,
    FileEncoder
);
