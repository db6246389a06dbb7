//! The public sans-IO encoders, [`StreamEncoder`] and [`FileEncoder`]:
//! thin wrappers over the shared [`Encoder`] whose outputs are
//! [`EncodedMessage`] pieces ("IPC Streaming Format", "IPC File Format").

use allocator_api2::alloc::Allocator;

use super::encoder::{Encoder, File, Stream};
use super::pieces::EncodedMessage;
use super::staging::Staging;
use super::IpcWriteOptions;
use crate::array::RecordBatch;
use crate::datatypes::{Metadata, Schema};
#[allow(unused_imports)]
use crate::error::{Error, Result};
use crate::ipc::compression::{BuiltinCodecs, CodecSet};

/// The constructors and methods both encoders share; `$format` is the
/// shared encoder's format, `$what` what it encodes (in the docs).
macro_rules! encoder_common {
    ($ty:ident, $format:ty, $what:literal) => {
        impl<'a, A: Allocator + Clone> $ty<'a, A> {
            #[doc = concat!("An encoder of ", $what, " with scratch memory from `alloc`")]
            /// and the core's [`BuiltinCodecs`].
            ///
            /// # Errors
            /// [`Error::InvalidArgument`] for a bad alignment;
            /// [`Error::Lz4CodecMissing`] / [`Error::ZstdCodecMissing`] for a
            /// compression codec not built in.
            pub fn try_new_in(
                schema: &Schema<'a, A>,
                options: IpcWriteOptions,
                alloc: A,
            ) -> Result<Self> {
                Self::try_new_with_codecs_in(schema, options, BuiltinCodecs::new(), alloc)
            }
        }

        #[cfg(feature = "alloc")]
        impl<'a> $ty<'a> {
            /// An encoder with the default options and the global heap.
            ///
            /// # Errors
            #[doc = concat!("As [`", stringify!($ty), "::try_new_in`].")]
            pub fn try_new(schema: &Schema<'a, crate::Global>) -> Result<Self> {
                Self::try_new_in(schema, IpcWriteOptions::default(), crate::Global)
            }
        }

        impl<'a, A: Allocator + Clone, S: CodecSet> $ty<'a, A, S> {
            #[doc = concat!("As [`", stringify!($ty), "::try_new_in`] with the codecs of `codecs`.")]
            ///
            /// # Errors
            #[doc = concat!("As [`", stringify!($ty), "::try_new_in`].")]
            pub fn try_new_with_codecs_in(
                schema: &Schema<'a, A>,
                options: IpcWriteOptions,
                codecs: S,
                alloc: A,
            ) -> Result<Self> {
                Ok($ty {
                    inner: Encoder::new_in(schema, options, codecs, alloc.clone())?,
                    stage: Staging::new_in(alloc),
                })
            }

            encoder_methods!($format);
        }
    };
}

/// The methods both encoders share.
macro_rules! encoder_methods {
    ($format:ty) => {
        /// The schema message, to be written first (the file format: the
        /// magic and its padding, then the schema message). Optional: the
        /// first [`Self::encode_batch`] or [`Self::finish`] includes it
        /// when it was not asked for.
        ///
        /// # Errors
        /// [`Error::InvalidBuilderState`] when already produced;
        /// [`Error::UnsupportedType`] for a field type the IPC format cannot
        /// carry; [`Error::LimitExceeded`] when the flatbuffer outgrows
        /// [`IpcWriteOptions::max_metadata_size`]; allocation errors.
        pub fn encode_schema(&mut self) -> Result<EncodedMessage<'_>> {
            if self.inner.started() || self.inner.finished {
                return Err(Error::InvalidBuilderState);
            }
            self.output(|_, _| Ok(()))
        }

        /// The messages of one record batch: the dictionary batches it needs
        /// (new, delta or replacement), then the record batch. Its body
        /// buffers are borrowed from the arrays.
        ///
        /// # Errors
        /// [`Error::SchemaMismatch`] when the batch's fields differ from the
        /// schema's; [`Error::InvalidBuilderState`] after [`Self::finish`] or
        /// an earlier error; compression, metadata size and allocation
        /// errors.
        pub fn encode_batch<'e>(
            &'e mut self,
            batch: &'e RecordBatch<'a, A>,
        ) -> Result<EncodedMessage<'e>> {
            self.encode_batch_with_metadata(batch, None)
        }

        /// As [`Self::encode_batch`], with custom metadata on the record
        /// batch's message (`Message.custom_metadata`).
        ///
        /// # Errors
        /// As [`Self::encode_batch`].
        pub fn encode_batch_with_metadata<'e>(
            &'e mut self,
            batch: &'e RecordBatch<'a, A>,
            metadata: Option<&Metadata<'_, A>>,
        ) -> Result<EncodedMessage<'e>> {
            self.inner.check(batch)?;
            self.output(|e, s| e.record_batch(s, batch, metadata))
        }

        /// The last output: what ends the stream or file (see the
        /// type's docs), after the schema when nothing was encoded yet;
        /// empty when already finished.
        ///
        /// # Errors
        /// [`Error::InvalidBuilderState`] after an earlier error; as
        /// [`Self::encode_schema`].
        pub fn finish(&mut self) -> Result<EncodedMessage<'_>> {
            self.output(|e, s| e.close(s))
        }

        /// One output: the schema first when not produced yet, then
        /// `step`, staged.
        fn output<F>(&mut self, step: F) -> Result<EncodedMessage<'_>>
        where
            F: FnOnce(&mut Encoder<'a, A, S, $format>, &mut Staging<A>) -> Result<()>,
        {
            self.stage.clear();
            let (inner, stage) = (&mut self.inner, &mut self.stage);
            inner.begin()?;
            let r = inner.start(stage, None).and_then(|()| step(inner, stage));
            inner.end(r)?;
            Ok(self.inner.message(&self.stage))
        }

        /// Bytes of every output so far (where the next one goes).
        pub fn position(&self) -> u64 {
            self.inner.position
        }

        /// The schema.
        pub fn schema(&self) -> &Schema<'a, A> {
            &self.inner.schema
        }

        /// The options.
        pub fn options(&self) -> &IpcWriteOptions {
            &self.inner.options
        }
    };
}

/// The sans-IO encoder of the IPC stream format: schema, dictionary and
/// record batches, end-of-stream marker, as [`EncodedMessage`]s for any I/O
/// to write ("IPC Streaming Format"). [`StreamWriter`](super::StreamWriter)
/// runs the same encoder steps and writes the pieces as they come.
///
/// ```
/// use alkaid::array::{Array, Float64Array, RecordBatch};
/// use alkaid::ipc::writer::{StreamEncoder, StreamWriter};
///
/// let batch = RecordBatch::try_from_iter([("t", Float64Array::from(vec![20.5, 21.0]).into_array_ref())])?;
/// let mut enc = StreamEncoder::try_new(batch.schema())?;
/// let mut out = Vec::new();
/// for msg in [enc.encode_batch(&batch)?] {
///     // The schema message, then the record batch.
///     assert_eq!(msg.offset(), 0);
///     msg.pieces().for_each(|p| out.extend_from_slice(p));
/// }
/// enc.finish()?.pieces().for_each(|p| out.extend_from_slice(p));
///
/// let mut w = StreamWriter::try_new(Vec::new(), batch.schema())?;
/// w.write(&batch)?;
/// w.finish()?;
/// assert_eq!(out, w.into_inner());
/// # Ok::<(), alkaid::Error>(())
/// ```
pub struct StreamEncoder<
    'a,
    #[cfg(feature = "alloc")] A: Allocator + Clone = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator + Clone,
    S: CodecSet = BuiltinCodecs,
> {
    inner: Encoder<'a, A, S, Stream>,
    stage: Staging<A>,
}

encoder_common!(StreamEncoder, Stream, "batches of `schema`");

/// The sans-IO encoder of the IPC file format: magic and schema, dictionary
/// and record batches, then the footer, as [`EncodedMessage`]s ("IPC File
/// Format"). It counts the bytes it produced for the footer's blocks, so
/// every output must be written in full and in order.
/// [`FileWriter`](super::FileWriter) runs the same encoder steps and writes
/// the pieces as they come.
///
/// ```
/// use alkaid::array::{Array, Int64Array, RecordBatch};
/// use alkaid::ipc::reader::FileReader;
/// use alkaid::ipc::writer::FileEncoder;
///
/// let batch = RecordBatch::try_from_iter([("n", Int64Array::from(vec![1, 2, 3]).into_array_ref())])?;
/// let mut enc = FileEncoder::try_new(batch.schema())?;
/// let mut out = Vec::new();
/// enc.encode_schema()?.pieces().for_each(|p| out.extend_from_slice(p));
/// let msg = enc.encode_batch(&batch)?;
/// let block = msg.record_batch_block().ok_or(alkaid::Error::InvalidBuilderState)?;
/// assert_eq!(block.offset as usize, out.len());
/// msg.pieces().for_each(|p| out.extend_from_slice(p));
/// enc.finish()?.pieces().for_each(|p| out.extend_from_slice(p));
/// assert_eq!(FileReader::try_new(&out)?.batch(0)?, batch);
/// # Ok::<(), alkaid::Error>(())
/// ```
pub struct FileEncoder<
    'a,
    #[cfg(feature = "alloc")] A: Allocator + Clone = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator + Clone,
    S: CodecSet = BuiltinCodecs,
> {
    inner: Encoder<'a, A, S, File<A>>,
    stage: Staging<A>,
}

encoder_common!(FileEncoder, File<A>, "a file of batches of `schema`");

impl<'a, A: Allocator + Clone, S: CodecSet> FileEncoder<'a, A, S> {
    /// The number of record batches encoded.
    pub fn num_batches(&self) -> usize {
        self.inner.format.record_blocks.len()
    }
}

impl<A: Allocator + Clone, S: CodecSet> core::fmt::Debug for StreamEncoder<'_, A, S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("StreamEncoder")
            .field("position", &self.inner.position)
            .field("finished", &self.inner.finished)
            .finish()
    }
}

impl<A: Allocator + Clone, S: CodecSet> core::fmt::Debug for FileEncoder<'_, A, S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("FileEncoder")
            .field("position", &self.inner.position)
            .field("record_batches", &self.inner.format.record_blocks.len())
            .finish()
    }
}
