//! IPC writers: [`StreamWriter`] and [`FileWriter`] over `embedded_io::Write`
//! ("IPC Streaming Format" and "IPC File Format"), and the sans-IO encoders
//! [`StreamEncoder`] and [`FileEncoder`], whose [`EncodedMessage`]s any I/O
//! (vectored, async) can write.
//!
//! There is one way to produce a message's pieces: the shared encoder's
//! steps, emitting into a `&mut dyn Emit`. The sans-IO encoders stage the
//! pieces and hand them out; the sync writers run the same steps with
//! their sink as the `Emit`, so each piece is written as it comes (no heap
//! for pieces or transformed buffers) and the bytes are the same.
//!
//! | file | what |
//! |---|---|
//! | `body.rs` | the body walk: which buffers an array contributes, the planner, the compressing visitor |
//! | `emit.rs` | where pieces go (`Emit`), the walk that emits the body |
//! | `pieces.rs` | [`EncodedMessage`], [`Pieces`] |
//! | `staging.rs` | the sans-IO encoders' `Emit`: the pieces kept |
//! | `dictionary.rs` | which dictionaries a batch needs |
//! | `parallel.rs` | a compressed body through a `BodyExecutor` |
//! | `encoder.rs` | the shared encoder and its steps |
//! | `encoders.rs` | [`StreamEncoder`], [`FileEncoder`] |
//! | `mod.rs` | options, [`StreamWriter`], [`FileWriter`] |
//! | `async_writer.rs` | `AsyncStreamWriter`, `AsyncFileWriter` (feature `async`) |
//!
//! - Messages are encapsulated: `0xFFFFFFFF`, the metadata length, the
//!   `Message` flatbuffer padded so that the message is a multiple of the
//!   alignment (64 by default, at least 8), then the body.
//! - Buffers go straight from array memory to the sink; only the metadata is
//!   encoded in a scratch area, which grows through `A` when a flatbuffer does
//!   not fit and is then reused: writing same-shaped batches allocates nothing
//!   after the first.
//! - Dictionaries: a dictionary batch precedes the first record batch that
//!   uses it; a dictionary that grew by appending is sent as a delta; any other
//!   change is a replacement (stream) or [`Error::DictionaryReplacementInFile`]
//!   (the file format allows one non-delta dictionary per id).
//! - The schema is marked with the machine's native endianness.

#[cfg(feature = "async")]
mod async_writer;
mod body;
#[cfg(feature = "dictionary")]
mod dictionary;
mod emit;
mod encoder;
#[cfg(all(test, feature = "dictionary", feature = "nested", feature = "views"))]
mod encoder_tests;
mod encoders;
#[cfg(feature = "compression")]
mod parallel;
#[cfg(all(
    test,
    feature = "lz4",
    feature = "dictionary",
    feature = "nested",
    feature = "views"
))]
mod parallel_tests;
mod pieces;
mod staging;

use allocator_api2::alloc::Allocator;
use embedded_io::Write;

#[cfg(feature = "async")]
pub use self::async_writer::{AsyncFileWriter, AsyncStreamWriter};
use self::emit::Emit;
use self::encoder::{Encoder, File, Stream};
pub use self::encoders::{FileEncoder, StreamEncoder};
pub use self::pieces::{EncodedMessage, Pieces};
use super::compression::{BuiltinCodecs, CodecSet};
use super::io::PositionWriter;
/// The body compression codecs [`IpcWriteOptions::compression`] names.
pub use super::message::CompressionCodec;
use crate::array::RecordBatch;
use crate::datatypes::{Metadata, Schema};
use crate::error::{Error, Result};

/// File magic of the standard spelling ("ARROW1"; 2 bytes of padding follow
/// it at the start of a file).
pub const ARROW_MAGIC: &[u8] = b"ARROW1";
/// File magic of the Alkaid spelling ("ALKAID1"; 1 byte of padding follows it
/// at the start of a file).
pub const ALKAID_MAGIC: &[u8] = b"ALKAID1";

/// The continuation marker that starts every encapsulated message.
pub const CONTINUATION: [u8; 4] = [0xFF; 4];

/// The sync writers' side of the encoder's [`Emit`]: every piece is
/// written to the sink as it comes (no heap for pieces or transformed
/// buffers).
impl<W: Write> Emit for PositionWriter<W> {
    fn borrowed(&mut self, bytes: &[u8]) -> Result<()> {
        self.write_all(bytes)
    }

    fn copied(&mut self, bytes: &[u8]) -> Result<()> {
        self.write_all(bytes)
    }

    fn constant(&mut self, bytes: &'static [u8]) -> Result<()> {
        self.write_all(bytes)
    }

    #[cfg(feature = "compression")]
    fn compressed(&mut self, _at: usize, bytes: &[u8]) -> Result<()> {
        self.write_all(bytes)
    }
}

/// Options of the IPC writers.
///
/// Body compression with LZ4 frames (built into the core with feature
/// `lz4`; a ZSTD encoder is in the std shim), and the Alkaid spelling of the
/// file magic:
///
/// ```
/// use alkaid::array::{Array, Int32Array, RecordBatch};
/// use alkaid::ipc::reader::FileReader;
/// use alkaid::ipc::writer::{CompressionCodec, FileWriter, IpcWriteOptions, ALKAID_MAGIC};
///
/// let batch = RecordBatch::try_from_iter([
///     ("phase", Int32Array::from_iter_values((0..4096).map(|i| i % 16)).into_array_ref()),
/// ])?;
/// let options = IpcWriteOptions {
///     compression: Some(CompressionCodec::Lz4Frame),
///     alkaid: true,
///     ..Default::default()
/// };
/// assert_eq!(options.alignment, 64); // the default
/// let mut w = FileWriter::try_new_with_options(Vec::new(), batch.schema(), options)?;
/// w.write(&batch)?;
/// w.finish()?;
/// let bytes = w.into_inner();
/// assert!(bytes.starts_with(ALKAID_MAGIC));
/// assert!(bytes.len() < 4096 * 4 / 4); // 16 KiB of values, compressed
///
/// // Readers accept both spellings and decompress transparently.
/// let mut r = FileReader::try_new(&bytes)?;
/// assert_eq!(r.batch(0)?, batch);
/// # Ok::<(), alkaid::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IpcWriteOptions {
    /// Alignment of messages and body buffers in bytes: 8, 16, 32 or 64
    /// (default 64, the columnar format's recommendation).
    pub alignment: usize,
    /// Write the Alkaid spelling: file magic `ALKAID1` and `ALKAID:` metadata
    /// keys instead of `ARROW1` / `ARROW:` (readers accept both).
    pub alkaid: bool,
    /// Largest metadata flatbuffer the writer may grow its scratch to, in bytes.
    pub max_metadata_size: usize,
    /// Initial size of the metadata scratch area in bytes.
    pub initial_scratch: usize,
    /// Compress every body buffer with this codec ("Compression"): the body
    /// is then assembled in a scratch area from `A` (one batch body at most,
    /// reused) instead of being streamed from array memory.
    pub compression: Option<CompressionCodec>,
}

impl Default for IpcWriteOptions {
    fn default() -> Self {
        IpcWriteOptions {
            alignment: 64,
            alkaid: false,
            max_metadata_size: 64 << 20,
            initial_scratch: 1024,
            compression: None,
        }
    }
}

impl IpcWriteOptions {
    pub(crate) fn check(&self) -> Result<()> {
        if !matches!(self.alignment, 8 | 16 | 32 | 64) {
            return Err(Error::InvalidArgument);
        }
        Ok(())
    }
}

/// The constructors and methods both blocking writers share, around their
/// `out` (the sink with its position) and `enc` (the shared encoder whose
/// pieces they write as they come); `$output` names what they write in the
/// docs, the attributes are `try_new_in`'s docs.
///
/// After an encoding error the writer refuses further work (the encoder
/// does); after an I/O error it may be asked again (the sink reports its
/// error again, e.g. a closed pipe on `finish`).
macro_rules! sync_writer_common {
    ($ty:ident, $output:literal, $(#[$new_doc:meta])*) => {
        impl<'a, W: Write, A: Allocator + Clone> $ty<'a, W, A> {
            $(#[$new_doc])*
            pub fn try_new_in(
                sink: W,
                schema: &Schema<'a, A>,
                options: IpcWriteOptions,
                alloc: A,
            ) -> Result<Self> {
                Self::try_new_with_codecs_in(sink, schema, options, BuiltinCodecs::new(), alloc)
            }
        }

        impl<'a, W: Write, A: Allocator + Clone, S: CodecSet> $ty<'a, W, A, S> {
            sync_writer_methods!($output);
        }
    };
}

/// The methods of `sync_writer_common`; `$output` names what the writer
/// writes in the docs.
macro_rules! sync_writer_methods {
    ($output:literal) => {
        /// As `try_new_in` with the codecs of `codecs` (e.g. a ZSTD codec
        /// from the std shim, or its `ThreadedCodecs`).
        ///
        /// # Errors
        /// As [`StreamWriter::try_new_in`].
        pub fn try_new_with_codecs_in(
            sink: W,
            schema: &Schema<'a, A>,
            options: IpcWriteOptions,
            codecs: S,
            alloc: A,
        ) -> Result<Self> {
            let mut enc = Encoder::new_in(schema, options, codecs, alloc)?;
            let mut out = PositionWriter::new(sink);
            enc.begin()?;
            let r = enc.start(&mut out, Some((schema, &options)));
            enc.end(r)?;
            Ok(Self { out, enc })
        }

        /// Writes a record batch (after the dictionary batches it needs).
        ///
        /// # Errors
        /// [`Error::SchemaMismatch`] when the batch's schema differs from
        /// the writer's; [`Error::InvalidBuilderState`] after
        /// [`Self::finish`]; [`Error::DictionaryReplacementInFile`] (file
        /// format) when a dictionary changes other than by appending; I/O
        /// and allocation errors.
        pub fn write(&mut self, batch: &RecordBatch<'a, A>) -> Result<()> {
            self.write_with_metadata(batch, None)
        }

        /// As [`Self::write`], with custom metadata on the record batch's
        /// message (`Message.custom_metadata`, read back by the readers'
        /// `batch_metadata`).
        ///
        /// # Errors
        /// As [`Self::write`].
        pub fn write_with_metadata(
            &mut self,
            batch: &RecordBatch<'a, A>,
            metadata: Option<&Metadata<'_, A>>,
        ) -> Result<()> {
            self.enc.check(batch)?;
            self.enc.begin()?;
            let r = self.enc.record_batch(&mut self.out, batch, metadata);
            self.enc.end(r)
        }

        /// Writes what ends the output (the stream format: the
        /// end-of-stream marker `0xFFFFFFFF 0x00000000`; the file format:
        /// that marker, the footer, its length and the closing magic) and
        /// flushes.
        ///
        /// # Errors
        /// I/O and allocation errors.
        pub fn finish(&mut self) -> Result<()> {
            self.enc.begin()?;
            let r = self.enc.close(&mut self.out);
            self.enc.end(r)?;
            self.out.flush()
        }

        /// Bytes written so far.
        pub fn position(&self) -> u64 {
            self.out.position()
        }

        /// The sink.
        pub fn get_ref(&self) -> &W {
            self.out.get_ref()
        }

        #[doc = concat!(
                            "The sink, mutably (e.g. to take an error the sink kept; writing to\n",
                            "it directly corrupts the ", $output, ")."
                        )]
        pub fn get_mut(&mut self) -> &mut W {
            self.out.get_mut()
        }

        #[doc = concat!("Unwraps the sink (without finishing the ", $output, ").")]
        pub fn into_inner(self) -> W {
            self.out.into_inner()
        }
    };
}

/// Writes the IPC stream format: the schema, then dictionary and record
/// batches as they come, then the end-of-stream marker on [`Self::finish`].
///
/// ```
/// use alkaid::array::{Array, DictionaryBuilder, RecordBatch, StringArray, UInt16Array};
/// use alkaid::datatypes::{DataType, Field, Schema};
/// use alkaid::ipc::reader::StreamReader;
/// use alkaid::ipc::writer::StreamWriter;
///
/// // A dictionary-encoded column: its dictionary batch is written before
/// // the first record batch that uses it. Its field names the dictionary
/// // id the IPC messages refer to.
/// let levels = StringArray::from(vec!["ok", "warn"]).into_array_ref();
/// let mut level = DictionaryBuilder::<i8>::try_new(levels)?;
/// for k in [0, 0, 1] {
///     level.try_append_key(k)?;
/// }
/// let level = level.finish();
/// let schema = Schema::new(vec![
///     Field::new("code", DataType::UInt16, false),
///     Field::new("level", level.data_type().clone(), false).with_dict_id(0),
/// ]);
/// let batch = RecordBatch::try_new(schema, vec![
///     UInt16Array::from(vec![200, 200, 503]).into_array_ref(),
///     level.into_array_ref(),
/// ])?;
///
/// let mut w = StreamWriter::try_new(Vec::new(), batch.schema())?;
/// let start = w.position(); // bytes written: the schema message
/// w.write(&batch)?; // a dictionary batch, then the record batch
/// let first = w.position() - start;
/// w.write(&batch)?; // same dictionary: only the record batch
/// assert!(w.position() - start - first < first);
/// w.finish()?;
/// assert!(w.write(&batch).is_err()); // finished: Error::InvalidBuilderState
/// let bytes = w.into_inner();
/// // The end-of-stream marker: continuation token and a zero length.
/// assert!(bytes.ends_with(&[0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]));
///
/// let read: Vec<_> = StreamReader::try_new(&bytes[..])?.collect::<Result<_, _>>()?;
/// assert_eq!(read, [batch.clone(), batch]);
/// # Ok::<(), alkaid::Error>(())
/// ```
pub struct StreamWriter<
    'a,
    W: Write,
    #[cfg(feature = "alloc")] A: Allocator + Clone = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator + Clone,
    S: CodecSet = BuiltinCodecs,
> {
    out: PositionWriter<W>,
    /// The stream encoder whose pieces go to `out`.
    enc: Encoder<'a, A, S, Stream>,
}

sync_writer_common! {
    StreamWriter,
    "stream",
    /// Starts a stream of batches of `schema` on `sink`, writing the schema
    /// message at once. Scratch memory comes from `alloc`; compression (if
    /// the options ask for it) uses the core's [`BuiltinCodecs`].
    ///
    /// The firmware case: a schema in flash, a column over the sample array,
    /// the writer's scratch in a static arena, the stream into a fixed
    /// buffer (any `embedded_io::Write`: a UART, a radio):
    ///
    /// ```
    /// use alkaid::array::{Array, ArrayRef, PrimitiveArray, RecordBatch};
    /// use alkaid::buffer::SharedSlice;
    /// use alkaid::datatypes::{DataType, Field, Schema};
    /// use alkaid::ipc::reader::SliceStreamReader;
    /// use alkaid::ipc::writer::{IpcWriteOptions, StreamWriter};
    /// use alkaid_alloc::StaticArena;
    ///
    /// type A = &'static StaticArena<8192>;
    /// static ARENA: StaticArena<8192> = StaticArena::new();
    /// static FIELDS: [Field<'static, A>; 1] = [Field::new("mv", DataType::Int16, false)];
    /// static SCHEMA: Schema<'static, A> = Schema::from_fields(SharedSlice::borrowed(&FIELDS));
    ///
    /// let samples: [i16; 4] = [1200, 1210, 1195, 1201];
    /// let columns: [ArrayRef<'_, A>; 1] = [PrimitiveArray::from_slice(&samples).into_array_ref()];
    /// let mut out = [0u8; 1024];
    /// let mut w = StreamWriter::try_new_in(&mut out[..], &SCHEMA, IpcWriteOptions::default(), &ARENA)?;
    /// w.write(&RecordBatch::try_new(SCHEMA.clone(), &columns[..])?)?;
    /// w.finish()?;
    /// let written = usize::try_from(w.position()).expect("fits");
    /// drop(w);
    /// assert!(ARENA.used() > 0); // the scratch, never the global heap
    ///
    /// // On the host: read the bytes back.
    /// let batch = SliceStreamReader::try_new(&out[..written])?.next().expect("a batch")?;
    /// let mv = batch.column(0).and_then(|c| c.as_primitive::<i16>()).expect("Int16");
    /// assert_eq!(mv.values(), &samples);
    /// # Ok::<(), alkaid::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a bad alignment; [`Error::UnsupportedType`]
    /// for a compression codec not built in (or decode-only, like the ZSTD
    /// decoder of feature `zstd-decode`); I/O and allocation errors.
}

impl<W: Write, A: Allocator + Clone, S: CodecSet> core::fmt::Debug for StreamWriter<'_, W, A, S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("StreamWriter")
            .field("position", &self.out.position())
            .field("encoded", &self.enc.position)
            .finish()
    }
}

/// Writes the IPC file format: magic, the stream format's messages, then a
/// footer indexing every dictionary and record batch (no `Seek` needed: the
/// writer counts its position).
///
/// ```
/// use alkaid::array::{Array, Float64Array, RecordBatch};
/// use alkaid::ipc::reader::FileReader;
/// use alkaid::ipc::writer::{FileWriter, ARROW_MAGIC};
///
/// let batches = [
///     RecordBatch::try_from_iter([("x", Float64Array::from(vec![1.0, 2.0]).into_array_ref())])?,
///     RecordBatch::try_from_iter([("x", Float64Array::from(vec![3.0]).into_array_ref())])?,
/// ];
/// let mut w = FileWriter::try_new(Vec::new(), batches[0].schema())?;
/// for b in &batches {
///     w.write(b)?;
/// }
/// w.finish()?; // writes the footer and the closing magic
/// let bytes = w.into_inner();
/// assert!(bytes.starts_with(ARROW_MAGIC) && bytes.ends_with(ARROW_MAGIC));
///
/// // Random access through the footer.
/// let mut r = FileReader::try_new(&bytes)?;
/// assert_eq!(r.num_batches(), 2);
/// assert_eq!(r.batch(1)?, batches[1]);
/// # Ok::<(), alkaid::Error>(())
/// ```
pub struct FileWriter<
    'a,
    W: Write,
    #[cfg(feature = "alloc")] A: Allocator + Clone = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator + Clone,
    S: CodecSet = BuiltinCodecs,
> {
    out: PositionWriter<W>,
    /// The file encoder whose pieces go to `out`.
    enc: Encoder<'a, A, S, File<A>>,
}

sync_writer_common! {
    FileWriter,
    "file",
    /// Starts a file of batches of `schema`: writes the magic and the schema.
    ///
    /// # Errors
    /// As [`StreamWriter::try_new_in`].
}

impl<W: Write, A: Allocator + Clone, S: CodecSet> core::fmt::Debug for FileWriter<'_, W, A, S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("FileWriter")
            .field("position", &self.out.position())
            .field("record_batches", &self.enc.format.record_blocks.len())
            .finish()
    }
}
