//! Async IPC writers over `embedded_io_async::Write` (feature `async`):
//! [`AsyncStreamWriter`] and [`AsyncFileWriter`], loops over the sans-IO
//! [`StreamEncoder`] and [`FileEncoder`] that write each message's pieces
//! (metadata, padding, body buffers borrowed from the arrays) as they are,
//! so they produce exactly the bytes of the sync writers.

use allocator_api2::alloc::Allocator;
use embedded_io_async::Write;

use super::{EncodedMessage, FileEncoder, IpcWriteOptions, StreamEncoder};
use crate::array::RecordBatch;
use crate::datatypes::{Metadata, Schema};
use crate::error::{Error, Result};
use crate::ipc::compression::{BuiltinCodecs, CodecSet};

/// Writes every piece of `msg`; the number of bytes written.
///
/// # Errors
/// [`Error::WriteZero`] when the sink accepts nothing, [`Error::Io`] on a
/// sink error.
async fn write_message<W: Write>(sink: &mut W, msg: EncodedMessage<'_>) -> Result<u64> {
    let mut n = 0u64;
    for mut piece in msg.pieces() {
        while !piece.is_empty() {
            match sink.write(piece).await {
                Ok(0) => return Err(Error::WriteZero),
                Ok(k) => {
                    n += k as u64;
                    piece = piece.get(k..).unwrap_or(&[]);
                }
                Err(_) => return Err(Error::Io),
            }
        }
    }
    Ok(n)
}

/// The constructors and methods both async writers share, around their
/// `encoder` field (a [`StreamEncoder`] or a [`FileEncoder`], `$encoder`);
/// the formats differ only in what the encoder produces, the first message
/// of which `$first` names in the docs.
macro_rules! async_writer_common {
    ($ty:ident, $encoder:ident, $first:literal) => {
        #[cfg(feature = "alloc")]
        impl<'a, W: Write> $ty<'a, W> {
            #[doc = concat!("A writer with the default options over the global heap; writes ", $first, ".")]
            ///
            /// # Errors
            #[doc = concat!("As [`", stringify!($ty), "::try_new_in`].")]
            pub async fn try_new(sink: W, schema: &Schema<'a, crate::Global>) -> Result<Self> {
                Self::try_new_in(sink, schema, IpcWriteOptions::default(), crate::Global).await
            }
        }

        impl<'a, W: Write, A: Allocator + Clone> $ty<'a, W, A> {
            /// A writer of batches of `schema` with scratch memory from
            #[doc = concat!("`alloc` and the core's [`BuiltinCodecs`]; writes ", $first, ".")]
            ///
            /// # Errors
            /// [`Error::InvalidArgument`] for a bad alignment;
            /// [`Error::UnsupportedType`] for a field type the writer cannot
            /// encode; [`Error::Lz4CodecMissing`] / [`Error::ZstdCodecMissing`]
            /// for a codec it lacks; I/O and allocation errors.
            pub async fn try_new_in(
                sink: W,
                schema: &Schema<'a, A>,
                options: IpcWriteOptions,
                alloc: A,
            ) -> Result<Self> {
                Self::try_new_with_codecs_in(sink, schema, options, BuiltinCodecs::new(), alloc)
                    .await
            }
        }

        impl<'a, W: Write, A: Allocator + Clone, S: CodecSet> $ty<'a, W, A, S> {
            #[doc = concat!("As [`", stringify!($ty), "::try_new_in`] with the codecs of `codecs`.")]
            ///
            /// # Errors
            #[doc = concat!("As [`", stringify!($ty), "::try_new_in`].")]
            pub async fn try_new_with_codecs_in(
                sink: W,
                schema: &Schema<'a, A>,
                options: IpcWriteOptions,
                codecs: S,
                alloc: A,
            ) -> Result<Self> {
                let w = $ty {
                    sink,
                    encoder: $encoder::try_new_with_codecs_in(schema, options, codecs, alloc)?,
                    position: 0,
                    failed: false,
                };
                w.start().await
            }

            async_writer_methods!();
        }

        impl<W: Write, A: Allocator + Clone, S: CodecSet> core::fmt::Debug for $ty<'_, W, A, S> {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.debug_struct(stringify!($ty))
                    .field("position", &self.position)
                    .field("failed", &self.failed)
                    .finish_non_exhaustive()
            }
        }
    };
}

/// The methods both async writers share.
macro_rules! async_writer_methods {
    () => {
        /// Writes a record batch, after the dictionary batches it needs.
        ///
        /// # Errors
        /// [`Error::SchemaMismatch`] when the batch's fields differ from the
        /// schema's; [`Error::InvalidBuilderState`] after [`Self::finish`] or
        /// a sink error; [`Error::DictionaryReplacementInFile`] (file format)
        /// when a dictionary changes other than by appending; I/O and
        /// allocation errors.
        pub async fn write(&mut self, batch: &RecordBatch<'a, A>) -> Result<()> {
            self.write_with_metadata(batch, None).await
        }

        /// As [`Self::write`], with custom metadata on the record batch's
        /// message (`Message.custom_metadata`).
        ///
        /// # Errors
        /// As [`Self::write`].
        pub async fn write_with_metadata(
            &mut self,
            batch: &RecordBatch<'a, A>,
            metadata: Option<&Metadata<'_, A>>,
        ) -> Result<()> {
            if self.failed {
                return Err(Error::InvalidBuilderState);
            }
            let msg = self.encoder.encode_batch_with_metadata(batch, metadata)?;
            match write_message(&mut self.sink, msg).await {
                Ok(n) => {
                    self.position += n;
                    Ok(())
                }
                Err(e) => {
                    self.failed = true;
                    Err(e)
                }
            }
        }

        /// Writes what ends the output (the stream format: the
        /// end-of-stream marker `0xFFFFFFFF 0x00000000`; the file format:
        /// that marker, the footer and the closing magic) and flushes the
        /// sink.
        ///
        /// # Errors
        /// [`Error::InvalidBuilderState`] after a sink error; I/O and
        /// allocation errors.
        pub async fn finish(&mut self) -> Result<()> {
            if self.failed {
                return Err(Error::InvalidBuilderState);
            }
            let msg = self.encoder.finish()?;
            self.position += write_message(&mut self.sink, msg).await?;
            self.sink.flush().await.map_err(|_| Error::Io)
        }

        /// Bytes written so far.
        pub fn position(&self) -> u64 {
            self.position
        }

        /// The sink.
        pub fn get_ref(&self) -> &W {
            &self.sink
        }

        /// Unwraps the sink without finishing the output (a file without
        /// its footer is unreadable).
        pub fn into_inner(self) -> W {
            self.sink
        }

        /// Writes the first message of a new writer (the schema; the file
        /// format: the magic first).
        async fn start(mut self) -> Result<Self> {
            let msg = self.encoder.encode_schema()?;
            self.position += write_message(&mut self.sink, msg).await?;
            Ok(self)
        }
    };
}

/// Writes the IPC stream format to an `embedded_io_async::Write` sink (a
/// UART, a USB or TCP socket, an `embassy-sync` pipe, or a tokio stream
/// through `embedded-io-adapters`): the schema when created, then
/// dictionary and record batches, then the end-of-stream marker on
/// [`Self::finish`]. The bytes are those of [`super::StreamWriter`]. No
/// executor is assumed; memory comes from `A` only.
///
/// A sink error leaves a message partly written: the writer then refuses
/// further batches ([`Error::InvalidBuilderState`]).
///
/// ```
/// # pollster::block_on(async {
/// use alkaid::array::{Array, Int32Array, RecordBatch};
/// use alkaid::ipc::reader::AsyncStreamReader;
/// use alkaid::ipc::writer::AsyncStreamWriter;
///
/// let batch = RecordBatch::try_from_iter([("x", Int32Array::from(vec![1, 2]).into_array_ref())])?;
/// let mut bytes = Vec::new();
/// let mut w = AsyncStreamWriter::try_new(&mut bytes, batch.schema()).await?;
/// w.write(&batch).await?;
/// w.finish().await?;
///
/// let mut r = AsyncStreamReader::try_new(&bytes[..]).await?;
/// assert_eq!(r.next_batch().await?, Some(batch));
/// assert_eq!(r.next_batch().await?, None);
/// # Ok::<(), alkaid::Error>(())
/// # }).unwrap();
/// ```
pub struct AsyncStreamWriter<
    'a,
    W: Write,
    #[cfg(feature = "alloc")] A: Allocator + Clone = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator + Clone,
    S: CodecSet = BuiltinCodecs,
> {
    sink: W,
    encoder: StreamEncoder<'a, A, S>,
    position: u64,
    failed: bool,
}

async_writer_common!(AsyncStreamWriter, StreamEncoder, "the schema message");

/// Writes the IPC file format to an `embedded_io_async::Write` sink (no
/// seeking: the encoder counts the bytes for the footer's blocks): magic and
/// schema when created, the batches, then the footer on [`Self::finish`].
/// The bytes are those of [`super::FileWriter`].
///
/// ```
/// # pollster::block_on(async {
/// use alkaid::array::{Array, Int64Array, RecordBatch};
/// use alkaid::ipc::reader::FileReader;
/// use alkaid::ipc::writer::AsyncFileWriter;
///
/// let batch = RecordBatch::try_from_iter([("n", Int64Array::from(vec![7, 8]).into_array_ref())])?;
/// let mut bytes = Vec::new();
/// let mut w = AsyncFileWriter::try_new(&mut bytes, batch.schema()).await?;
/// w.write(&batch).await?;
/// w.finish().await?;
/// assert_eq!(FileReader::try_new(&bytes)?.batch(0)?, batch);
/// # Ok::<(), alkaid::Error>(())
/// # }).unwrap();
/// ```
pub struct AsyncFileWriter<
    'a,
    W: Write,
    #[cfg(feature = "alloc")] A: Allocator + Clone = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator + Clone,
    S: CodecSet = BuiltinCodecs,
> {
    sink: W,
    encoder: FileEncoder<'a, A, S>,
    position: u64,
    failed: bool,
}

async_writer_common!(
    AsyncFileWriter,
    FileEncoder,
    "the magic and the schema message"
);
