//! Writing IPC data to paths and `std::io` sinks: [`StreamWriter`],
//! [`FileWriter`] (one implementation, [`FormatWriter`]), [`IpcWriter`],
//! [`create_stream`], [`create_file`].
//!
//! These wrap the core writers of [`alkaid::ipc::writer`] over
//! embedded-io-adapters' [`FromStd`](https://docs.rs/embedded-io-adapters/0.7/embedded_io_adapters/std/struct.FromStd.html) and return the shim's [`Error`],
//! with the operating system's error when a write fails. Bodies are
//! compressed as [`IpcWriteOptions::compression`] asks, with [`StdCodecs`]
//! (LZ4 frame or ZSTD).

use std::fmt;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use alkaid::allocator_api2::alloc::Allocator;
use alkaid::array::RecordBatch;
use alkaid::datatypes::{Metadata, Schema};
use alkaid::ipc::writer::{self as core_writer, IpcWriteOptions};
use alkaid::Global;

use crate::bridge::Tracked;
use crate::codecs::StdCodecs;
use crate::error::Result;
use crate::read::IpcFormat;
use crate::threads::ThreadedCodecs;

/// Writes the IPC stream format to a `std::io::Write` sink: the schema at
/// once, then dictionary and record batches, then the end-of-stream marker
/// on [`FormatWriter::finish`]. A writer dropped without `finish` leaves the
/// stream without its end marker (readers accept that) and, for a
/// `BufWriter`, possibly unflushed.
///
/// ```
/// # use alkaid_std::array::{Array, Int64Array, RecordBatch};
/// # let batch = RecordBatch::try_from_iter([("v", Int64Array::from(vec![7, 8]).into_array_ref())])?;
/// use alkaid_std::{IpcFormat, StreamWriter};
///
/// let mut w = StreamWriter::try_new(Vec::new(), batch.schema())?;
/// w.write(&batch)?;
/// w.finish()?;
/// assert_eq!(w.format(), IpcFormat::Stream);
/// let bytes = w.into_inner();
/// assert_eq!(bytes.get(..4), Some(&[0xFF; 4][..])); // each message opens with a continuation marker
/// assert!(bytes.ends_with(&[0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0])); // the end-of-stream marker
///
/// let back = alkaid_std::read_stream(&bytes[..])?.collect::<alkaid_std::Result<Vec<_>>>()?;
/// assert_eq!(back, [batch]);
/// # Ok::<(), alkaid_std::Error>(())
/// ```
pub type StreamWriter<'a, W, A = Global> = FormatWriter<'a, W, StreamFormat, A>;

/// Writes the IPC file format to a `std::io::Write` sink (no `Seek` needed):
/// magic and schema at once, the batches, then the footer on
/// [`FormatWriter::finish`]. A file is unreadable without its footer: always
/// finish.
///
/// ```
/// # use alkaid_std::array::{Array, Int64Array, RecordBatch};
/// # let batch = RecordBatch::try_from_iter([("v", Int64Array::from(vec![7, 8]).into_array_ref())])?;
/// use alkaid_std::{FileWriter, IpcFormat, IpcInput};
///
/// let mut w = FileWriter::try_new(Vec::new(), batch.schema())?;
/// w.write(&batch)?;
/// w.write(&batch)?;
/// w.finish()?;
/// let bytes = w.into_inner();
/// assert!(bytes.starts_with(b"ARROW1") && bytes.ends_with(b"ARROW1"));
///
/// let input = IpcInput::from_bytes(&bytes)?;
/// assert_eq!(input.format(), IpcFormat::File);
/// assert_eq!(input.reader()?.num_batches(), Some(2));
/// # Ok::<(), alkaid_std::Error>(())
/// ```
pub type FileWriter<'a, W, A = Global> = FormatWriter<'a, W, FileFormat, A>;

/// The IPC stream format, as a type: [`StreamWriter`] is
/// `FormatWriter<'a, W, StreamFormat>`.
#[derive(Debug, Clone, Copy)]
pub enum StreamFormat {}

/// The IPC file format, as a type: [`FileWriter`] is
/// `FormatWriter<'a, W, FileFormat>`.
#[derive(Debug, Clone, Copy)]
pub enum FileFormat {}

/// The format a [`FormatWriter`] writes: [`StreamFormat`] or [`FileFormat`]
/// (sealed: the core's stream and file writers behind them).
pub trait WriterFormat: sealed::CoreWriter {}

impl WriterFormat for StreamFormat {}
impl WriterFormat for FileFormat {}

mod sealed {
    use super::*;

    /// The core writer of a format, and the calls the shim makes on it.
    pub trait CoreWriter {
        /// The core's writer over the shim's adapter.
        type Core<'a, W: Write, A: Allocator + Clone + 'a>: fmt::Debug;
        /// The runtime spelling of the format.
        const FORMAT: IpcFormat;
        fn try_new<'a, W: Write, A: Allocator + Clone + 'a>(
            sink: Tracked<W>,
            schema: &Schema<'a, A>,
            options: IpcWriteOptions,
            codecs: ThreadedCodecs,
            alloc: A,
        ) -> alkaid::Result<Self::Core<'a, W, A>>;
        fn write<'a, W: Write, A: Allocator + Clone + 'a>(
            w: &mut Self::Core<'a, W, A>,
            batch: &RecordBatch<'a, A>,
            metadata: Option<&Metadata<'_, A>>,
        ) -> alkaid::Result<()>;
        fn finish<'a, W: Write, A: Allocator + Clone + 'a>(
            w: &mut Self::Core<'a, W, A>,
        ) -> alkaid::Result<()>;
        fn position<'a, W: Write, A: Allocator + Clone + 'a>(w: &Self::Core<'a, W, A>) -> u64;
        fn sink<'w, 'a, W: Write, A: Allocator + Clone + 'a>(
            w: &'w Self::Core<'a, W, A>,
        ) -> &'w Tracked<W>;
        fn sink_mut<'w, 'a, W: Write, A: Allocator + Clone + 'a>(
            w: &'w mut Self::Core<'a, W, A>,
        ) -> &'w mut Tracked<W>;
        fn into_sink<'a, W: Write, A: Allocator + Clone + 'a>(
            w: Self::Core<'a, W, A>,
        ) -> Tracked<W>;
    }

    /// One [`CoreWriter`] impl per format: the core's writers share these
    /// methods by name, not by a trait.
    macro_rules! core_writer {
        ($format:ty, $core:ident, $tag:expr) => {
            impl CoreWriter for $format {
                type Core<'a, W: Write, A: Allocator + Clone + 'a> =
                    core_writer::$core<'a, Tracked<W>, A, ThreadedCodecs>;
                const FORMAT: IpcFormat = $tag;
                fn try_new<'a, W: Write, A: Allocator + Clone + 'a>(
                    sink: Tracked<W>,
                    schema: &Schema<'a, A>,
                    options: IpcWriteOptions,
                    codecs: ThreadedCodecs,
                    alloc: A,
                ) -> alkaid::Result<Self::Core<'a, W, A>> {
                    Self::Core::try_new_with_codecs_in(sink, schema, options, codecs, alloc)
                }
                fn write<'a, W: Write, A: Allocator + Clone + 'a>(
                    w: &mut Self::Core<'a, W, A>,
                    batch: &RecordBatch<'a, A>,
                    metadata: Option<&Metadata<'_, A>>,
                ) -> alkaid::Result<()> {
                    w.write_with_metadata(batch, metadata)
                }
                fn finish<'a, W: Write, A: Allocator + Clone + 'a>(
                    w: &mut Self::Core<'a, W, A>,
                ) -> alkaid::Result<()> {
                    w.finish()
                }
                fn position<'a, W: Write, A: Allocator + Clone + 'a>(
                    w: &Self::Core<'a, W, A>,
                ) -> u64 {
                    w.position()
                }
                fn sink<'w, 'a, W: Write, A: Allocator + Clone + 'a>(
                    w: &'w Self::Core<'a, W, A>,
                ) -> &'w Tracked<W> {
                    w.get_ref()
                }
                fn sink_mut<'w, 'a, W: Write, A: Allocator + Clone + 'a>(
                    w: &'w mut Self::Core<'a, W, A>,
                ) -> &'w mut Tracked<W> {
                    w.get_mut()
                }
                fn into_sink<'a, W: Write, A: Allocator + Clone + 'a>(
                    w: Self::Core<'a, W, A>,
                ) -> Tracked<W> {
                    w.into_inner()
                }
            }
        };
    }

    core_writer!(StreamFormat, StreamWriter, IpcFormat::Stream);
    core_writer!(FileFormat, FileWriter, IpcFormat::File);
}

/// The one implementation of [`StreamWriter`] and [`FileWriter`]: the
/// core's writer of format `F` over a `std::io::Write` sink, returning the
/// shim's [`Error`](crate::Error) with the operating system's error when
/// the sink fails.
///
/// Batches, schema and the writer's own memory are in the allocator `A`
/// ([`Global`] unless the writer is made with [`FormatWriter::try_new_in`]):
/// a program whose batches live in an arena writes them with ZSTD or LZ4
/// through the shim as through the core's writers.
pub struct FormatWriter<'a, W: Write, F: WriterFormat, A: Allocator + Clone + 'a = Global> {
    inner: F::Core<'a, W, A>,
}

impl<'a, W: Write, F: WriterFormat> FormatWriter<'a, W, F, Global> {
    /// Starts a stream or file of batches of `schema` on `sink` with the
    /// default options (uncompressed, 8-byte alignment, the `ARROW`
    /// spelling), writing the schema message (after the magic, for the
    /// file format).
    ///
    /// # Errors
    /// [`Error::Io`](crate::Error::Io) when the sink fails;
    /// [`alkaid::Error::AllocationFailed`].
    pub fn try_new(sink: W, schema: &Schema<'a, Global>) -> Result<Self> {
        Self::try_new_with_options(sink, schema, IpcWriteOptions::default())
    }

    /// As [`Self::try_new`] with `options` (compression, alignment,
    /// spelling); compressed bodies use [`StdCodecs`] (LZ4 frame, ZSTD at
    /// level 3).
    ///
    /// ```
    /// # use alkaid_std::array::{Array, Int64Array, RecordBatch};
    /// # let batch = RecordBatch::try_from_iter([("n", Int64Array::from(vec![1i64; 1000]).into_array_ref())])?;
    /// use alkaid_std::{CompressionCodec, IpcWriteOptions, StreamWriter};
    ///
    /// let options = IpcWriteOptions {
    ///     compression: Some(CompressionCodec::Zstd),
    ///     ..Default::default()
    /// };
    /// let mut w = StreamWriter::try_new_with_options(Vec::new(), batch.schema(), options)?;
    /// w.write(&batch)?;
    /// w.finish()?;
    /// assert!(w.position() < 1000); // 8,000 bytes of values, compressed
    /// let bytes = w.into_inner();
    /// let back: Vec<_> = alkaid_std::read_stream(&bytes[..])?.collect::<Result<_, _>>()?;
    /// assert_eq!(back, [batch]);
    /// # Ok::<(), alkaid_std::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Self::try_new`]; [`alkaid::Error::InvalidArgument`] for a bad
    /// alignment in `options`.
    pub fn try_new_with_options(
        sink: W,
        schema: &Schema<'a, Global>,
        options: IpcWriteOptions,
    ) -> Result<Self> {
        Self::try_new_with_codecs(sink, schema, options, StdCodecs::default())
    }

    /// As [`Self::try_new_with_options`] with the codecs `codecs`: a
    /// [`StdCodecs`] (e.g. ZSTD at another level:
    /// `WithCodec::new(ZstdCodec::with_level(9), BuiltinCodecs::new())`),
    /// used on the calling thread, or a [`ThreadedCodecs`] that compresses
    /// each batch's buffers on several threads. The bytes written are the
    /// same either way.
    ///
    /// ```
    /// # use alkaid_std::array::{Array, Int64Array, RecordBatch};
    /// # let batch = RecordBatch::try_from_iter([("n", Int64Array::from_iter_values((0..200_000).map(|v| v % 9)).into_array_ref()), ("m", Int64Array::from_iter_values(0..200_000).into_array_ref())])?;
    /// use alkaid_std::{CompressionCodec, IpcWriteOptions, StdCodecs, StreamWriter, ThreadedCodecs};
    ///
    /// let options = IpcWriteOptions { compression: Some(CompressionCodec::Lz4Frame), ..Default::default() };
    /// let mut one = StreamWriter::try_new_with_codecs(Vec::new(), batch.schema(), options, StdCodecs::default())?;
    /// let mut four = StreamWriter::try_new_with_codecs(Vec::new(), batch.schema(), options, ThreadedCodecs::new(4))?;
    /// for w in [&mut one, &mut four] {
    ///     w.write(&batch)?;
    ///     w.finish()?;
    /// }
    /// assert_eq!(one.into_inner(), four.into_inner());
    /// # Ok::<(), alkaid_std::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Self::try_new_with_options`];
    /// [`alkaid::Error::Lz4CodecMissing`] / [`alkaid::Error::ZstdCodecMissing`]
    /// for a compression the codecs cannot write.
    pub fn try_new_with_codecs(
        sink: W,
        schema: &Schema<'a, Global>,
        options: IpcWriteOptions,
        codecs: impl Into<ThreadedCodecs>,
    ) -> Result<Self> {
        Self::try_new_with_codecs_in(sink, schema, options, codecs, Global)
    }
}

impl<'a, W: Write, F: WriterFormat, A: Allocator + Clone + 'a> FormatWriter<'a, W, F, A> {
    /// As [`FormatWriter::try_new_with_options`] for batches in the
    /// allocator `alloc` (the writer's own memory comes from it too);
    /// compressed bodies use [`StdCodecs`] (LZ4 frame, ZSTD at level 3).
    ///
    /// ```
    /// use alkaid_alloc::Arena;
    /// use alkaid_std::alkaid::ipc::reader::{IpcReadOptions, StreamReader};
    /// use alkaid_std::{CompressionCodec, IpcWriteOptions, StreamWriter};
    /// # use alkaid_std::array::{Array, Int64Array, RecordBatch};
    /// # let batch = RecordBatch::try_from_iter([("n", Int64Array::from(vec![1i64; 1000]).into_array_ref())])?;
    /// # let mut w = StreamWriter::try_new(Vec::new(), batch.schema())?;
    /// # w.write(&batch)?;
    /// # w.finish()?;
    /// # let bytes = w.into_inner();
    ///
    /// // Batches read into a 1 MiB arena, written again compressed with ZSTD.
    /// let mut region = vec![0u8; 1 << 20];
    /// let arena = Arena::new(&mut region);
    /// let mut reader = StreamReader::try_new_in(&bytes[..], IpcReadOptions::default(), &arena)?;
    /// let options = IpcWriteOptions { compression: Some(CompressionCodec::Zstd), ..Default::default() };
    /// let mut w = StreamWriter::try_new_in(Vec::new(), reader.schema(), options, &arena)?;
    /// while let Some(b) = reader.next_batch()? {
    ///     w.write(&b)?;
    /// }
    /// w.finish()?;
    /// let zstd = w.into_inner();
    /// assert!(zstd.len() < bytes.len());
    /// let back: Vec<_> = alkaid_std::read_stream(&zstd[..])?.collect::<Result<_, _>>()?;
    /// assert_eq!(back, [batch]);
    /// # Ok::<(), alkaid_std::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`FormatWriter::try_new_with_options`].
    pub fn try_new_in(
        sink: W,
        schema: &Schema<'a, A>,
        options: IpcWriteOptions,
        alloc: A,
    ) -> Result<Self> {
        Self::try_new_with_codecs_in(sink, schema, options, StdCodecs::default(), alloc)
    }

    /// As [`FormatWriter::try_new_with_codecs`] for batches in the
    /// allocator `alloc`.
    ///
    /// # Errors
    /// As [`FormatWriter::try_new_with_codecs`].
    pub fn try_new_with_codecs_in(
        sink: W,
        schema: &Schema<'a, A>,
        options: IpcWriteOptions,
        codecs: impl Into<ThreadedCodecs>,
        alloc: A,
    ) -> Result<Self> {
        let codecs = codecs.into();
        // The core writes the opening bytes into memory (it drops the sink
        // if it fails); the shim then writes them itself, so that a failing
        // sink's error is returned with its cause.
        let mut inner = F::try_new(Tracked::staging(sink), schema, options, codecs, alloc)?;
        F::sink_mut(&mut inner).unstage()?;
        Ok(FormatWriter { inner })
    }

    /// The format written.
    pub fn format(&self) -> IpcFormat {
        F::FORMAT
    }

    /// Writes a record batch (after the dictionary batches it needs).
    ///
    /// # Errors
    /// [`alkaid::Error::SchemaMismatch`] when the batch's fields differ from
    /// the schema's; [`alkaid::Error::InvalidBuilderState`] after
    /// [`Self::finish`]; for the file format,
    /// [`alkaid::Error::DictionaryReplacementInFile`] when a dictionary
    /// changes other than by appending; [`Error::Io`](crate::Error::Io)
    /// when the sink fails.
    pub fn write(&mut self, batch: &RecordBatch<'a, A>) -> Result<()> {
        self.write_with_metadata(batch, None)
    }

    /// As [`Self::write`], with custom metadata on the record batch's
    /// message (`Message.custom_metadata`).
    ///
    /// # Errors
    /// As [`Self::write`].
    pub fn write_with_metadata(
        &mut self,
        batch: &RecordBatch<'a, A>,
        metadata: Option<&Metadata<'_, A>>,
    ) -> Result<()> {
        F::write(&mut self.inner, batch, metadata).map_err(|e| self.lift(e))
    }

    /// Writes the end-of-stream marker (and, for the file format, the
    /// footer and the closing magic) and flushes the sink. Calling it again
    /// does nothing.
    ///
    /// # Errors
    /// [`Error::Io`](crate::Error::Io) when the sink fails;
    /// [`alkaid::Error::AllocationFailed`] (the file footer).
    pub fn finish(&mut self) -> Result<()> {
        F::finish(&mut self.inner).map_err(|e| self.lift(e))
    }

    /// Bytes written so far.
    pub fn position(&self) -> u64 {
        F::position(&self.inner)
    }

    /// The sink.
    pub fn get_ref(&self) -> &W {
        F::sink(&self.inner).get_ref()
    }

    /// Unwraps the sink (without finishing).
    pub fn into_inner(self) -> W {
        F::into_sink(self.inner).into_inner()
    }

    fn lift(&mut self, e: alkaid::Error) -> crate::Error {
        F::sink_mut(&mut self.inner).lift(e)
    }
}

impl<'a, W: Write, F: WriterFormat, A: Allocator + Clone + 'a> fmt::Debug
    for FormatWriter<'a, W, F, A>
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

/// A [`StreamWriter`] or a [`FileWriter`], for a format chosen at run time.
///
/// ```
/// # use alkaid_std::array::{Array, Int64Array, RecordBatch};
/// # let batch = RecordBatch::try_from_iter([("v", Int64Array::from(vec![7, 8]).into_array_ref())])?;
/// use alkaid_std::{IpcFormat, IpcInput, IpcWriter};
///
/// for format in [IpcFormat::Stream, IpcFormat::File] {
///     let mut w = IpcWriter::try_new(Vec::new(), format, batch.schema(), Default::default())?;
///     w.write(&batch)?;
///     w.finish()?;
///     assert_eq!(w.format(), format);
///     let input = IpcInput::from_bytes(&w.into_inner())?;
///     assert_eq!(input.format(), format);
///     assert_eq!(input.reader()?.next_batch()?, Some(batch.clone()));
/// }
/// # Ok::<(), alkaid_std::Error>(())
/// ```
#[derive(Debug)]
pub enum IpcWriter<'a, W: Write, A: Allocator + Clone + 'a = Global> {
    /// The stream format.
    Stream(StreamWriter<'a, W, A>),
    /// The file format.
    File(FileWriter<'a, W, A>),
}

impl<'a, W: Write> IpcWriter<'a, W, Global> {
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
        Self::try_new_with_codecs(sink, format, schema, options, StdCodecs::default())
    }

    /// As [`Self::try_new`], compressing with `codecs` (see
    /// [`StreamWriter::try_new_with_codecs`]: a [`ThreadedCodecs`] spreads
    /// each batch's buffers over several threads, with the same bytes).
    ///
    /// # Errors
    /// As [`StreamWriter::try_new_with_codecs`].
    pub fn try_new_with_codecs(
        sink: W,
        format: IpcFormat,
        schema: &Schema<'a, Global>,
        options: IpcWriteOptions,
        codecs: impl Into<ThreadedCodecs>,
    ) -> Result<Self> {
        Self::try_new_with_codecs_in(sink, format, schema, options, codecs, Global)
    }
}

impl<'a, W: Write, A: Allocator + Clone + 'a> IpcWriter<'a, W, A> {
    /// As [`IpcWriter::try_new`] for batches in the allocator `alloc` (see
    /// [`FormatWriter::try_new_in`]).
    ///
    /// # Errors
    /// As [`StreamWriter::try_new`].
    pub fn try_new_in(
        sink: W,
        format: IpcFormat,
        schema: &Schema<'a, A>,
        options: IpcWriteOptions,
        alloc: A,
    ) -> Result<Self> {
        Self::try_new_with_codecs_in(sink, format, schema, options, StdCodecs::default(), alloc)
    }

    /// As [`IpcWriter::try_new_with_codecs`] for batches in the allocator
    /// `alloc`.
    ///
    /// # Errors
    /// As [`StreamWriter::try_new_with_codecs`].
    pub fn try_new_with_codecs_in(
        sink: W,
        format: IpcFormat,
        schema: &Schema<'a, A>,
        options: IpcWriteOptions,
        codecs: impl Into<ThreadedCodecs>,
        alloc: A,
    ) -> Result<Self> {
        Ok(match format {
            IpcFormat::Stream => IpcWriter::Stream(FormatWriter::try_new_with_codecs_in(
                sink, schema, options, codecs, alloc,
            )?),
            IpcFormat::File => IpcWriter::File(FormatWriter::try_new_with_codecs_in(
                sink, schema, options, codecs, alloc,
            )?),
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
    pub fn write(&mut self, batch: &RecordBatch<'a, A>) -> Result<()> {
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
///
/// ```
/// # use alkaid_std::array::{Array, Int64Array, RecordBatch};
/// # let batch = RecordBatch::try_from_iter([("v", Int64Array::from(vec![7, 8]).into_array_ref())])?;
/// use alkaid_std::{CompressionCodec, IpcWriteOptions};
///
/// let path = std::env::temp_dir().join(format!("create-stream-doc-{}.arrows", std::process::id()));
/// let options = IpcWriteOptions { compression: Some(CompressionCodec::Lz4Frame), ..Default::default() };
/// let mut w = alkaid_std::create_stream(&path, batch.schema(), options)?;
/// w.write(&batch)?;
/// w.finish()?;
/// drop(w); // closes the file
/// let got: Vec<_> = alkaid_std::open_ipc(&path)?.reader()?.collect::<alkaid_std::Result<_>>()?;
/// assert_eq!(got, [batch]);
///
/// // A directory that does not exist: the operating system's error.
/// let err = alkaid_std::create_stream("/nonexistent/x.arrows", got[0].schema(), Default::default())
///     .unwrap_err();
/// assert_eq!(err.as_io().map(|e| e.kind()), Some(std::io::ErrorKind::NotFound));
/// # std::fs::remove_file(&path)?;
/// # Ok::<(), alkaid_std::Error>(())
/// ```
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
    StreamWriter::try_new_with_options(BufWriter::new(file), schema, options)
}

/// Creates (or truncates) the file at `path` and starts an IPC file of
/// batches of `schema` in it, through a [`BufWriter`]. Call
/// [`FileWriter::finish`] to write the footer and flush.
///
///
/// ```
/// # use alkaid_std::array::{Array, Int64Array, RecordBatch};
/// # let batch = RecordBatch::try_from_iter([("v", Int64Array::from(vec![7, 8]).into_array_ref())])?;
/// let path = std::env::temp_dir().join(format!("create-file-doc-{}.arrow", std::process::id()));
/// let mut w = alkaid_std::create_file(&path, batch.schema(), Default::default())?;
/// w.write(&batch)?;
/// w.finish()?;
/// assert_eq!(w.position(), std::fs::metadata(&path)?.len());
/// drop(w);
/// let mut r = alkaid_std::FileSeekReader::open(&path)?;
/// assert_eq!(r.batch(0)?, batch);
/// # std::fs::remove_file(&path)?;
/// # Ok::<(), alkaid_std::Error>(())
/// ```
///
/// # Errors
/// As [`create_stream`].
pub fn create_file<'a>(
    path: impl AsRef<Path>,
    schema: &Schema<'a, Global>,
    options: IpcWriteOptions,
) -> Result<FileWriter<'a, BufWriter<File>>> {
    let file = File::create(path.as_ref())?;
    FileWriter::try_new_with_options(BufWriter::new(file), schema, options)
}
