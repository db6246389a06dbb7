//! Reading IPC data from paths and `std::io` sources: [`open_ipc`],
//! [`read_ipc`], [`read_stream`], [`IpcInput`] and the batch iterator
//! [`IpcReader`].

use std::cell::Cell;
use std::fmt;
use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use alkaid::array::{RecordBatch, ValidationLevel};
use alkaid::buffer::{Buffer, MemoryOwner, MutableBuffer};
use alkaid::datatypes::Schema;
use alkaid::ipc::reader::{FileReader, IpcReadOptions, SliceStreamReader, StreamReader};
use alkaid::ipc::writer::{ALKAID_MAGIC, ARROW_MAGIC};
use alkaid::Global;
use memmap2::Mmap;

use crate::bridge::Tracked;
use crate::codecs::StdCodecs;
use crate::error::{Error, Result};
use crate::threads::ThreadedCodecs;

/// The two IPC formats ("IPC Streaming Format" and "IPC File Format").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IpcFormat {
    /// A sequence of encapsulated messages: schema, dictionaries and record
    /// batches, usually closed by an end-of-stream marker.
    Stream,
    /// The magic `ARROW1` (or `ALKAID1`), the stream's messages, a footer
    /// indexing the batches, and the magic again.
    File,
}

impl IpcFormat {
    /// The format of data starting with `head`: [`IpcFormat::File`] when it
    /// starts with the magic `ARROW1` or `ALKAID1` (a stream never does: its
    /// first bytes are the `0xFFFFFFFF` continuation or a little-endian
    /// length), [`IpcFormat::Stream`] otherwise. Needs at most 7 bytes.
    ///
    /// ```
    /// use alkaid_std::IpcFormat;
    /// assert_eq!(IpcFormat::detect(b"ARROW1\0\0"), IpcFormat::File);
    /// assert_eq!(IpcFormat::detect(&[0xFF, 0xFF, 0xFF, 0xFF]), IpcFormat::Stream);
    /// assert_eq!(IpcFormat::File.to_string(), "file");
    /// ```
    pub fn detect(head: &[u8]) -> IpcFormat {
        if head.starts_with(ARROW_MAGIC) || head.starts_with(ALKAID_MAGIC) {
            IpcFormat::File
        } else {
            IpcFormat::Stream
        }
    }

    /// Whether data starting with `head` (its first 8 bytes, or all of it
    /// when shorter) can be Arrow IPC at all: the file magic, the stream's
    /// `0xFFFFFFFF` continuation marker, or a legacy stream's metadata length
    /// (a positive multiple of 8, little-endian) followed by a flatbuffer
    /// root offset within it. Anything shorter than 8 bytes is given the
    /// benefit of the doubt (the readers then report a truncated input).
    ///
    /// ```
    /// use alkaid_std::IpcFormat;
    /// assert!(IpcFormat::plausible(&[0xFF, 0xFF, 0xFF, 0xFF, 0x78, 0, 0, 0]));
    /// assert!(IpcFormat::plausible(b"ARROW1\0\0"));
    /// assert!(!IpcFormat::plausible(b"id,name\n1,a\n"));
    /// ```
    pub fn plausible(head: &[u8]) -> bool {
        let Some(head) = head.get(..8) else {
            return true;
        };
        if head.starts_with(ARROW_MAGIC) || head.starts_with(ALKAID_MAGIC) {
            return true;
        }
        let word = |at: usize| {
            head.get(at..at + 4)
                .and_then(|b| b.try_into().ok())
                .map_or(0, u32::from_le_bytes)
        };
        let (first, second) = (word(0), word(4));
        first == u32::MAX || (first > 0 && first % 8 == 0 && first < 1 << 30 && second < first)
    }

    /// `"stream"` or `"file"`.
    pub fn name(self) -> &'static str {
        match self {
            IpcFormat::Stream => "stream",
            IpcFormat::File => "file",
        }
    }
}

impl fmt::Display for IpcFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Where the bytes of an [`IpcInput`] are.
enum Data {
    /// A regular file mapped read-only (the map is kept alive by the
    /// buffer's owner, and so by every batch read from it).
    Mapped(Buffer<'static, Global>),
    /// 64-byte aligned memory from [`Global`].
    Owned(Buffer<'static, Global>),
    /// A stream-format source read as it is consumed (`None` once
    /// [`IpcInput::reader`] has taken it).
    Reader(Cell<Option<Box<dyn Read>>>),
}

/// IPC input whose format has been detected: a memory-mapped file, bytes in
/// aligned memory, or a stream-format source that is read as batches are
/// consumed. Get its batches with [`IpcInput::reader`].
///
/// Mapped and in-memory inputs are read without copying: the batches'
/// buffers point into the mapping (page aligned) whenever the data is
/// uncompressed and in native byte order.
pub struct IpcInput {
    data: Data,
    format: IpcFormat,
    /// [`IpcFormat::plausible`] of the first bytes.
    plausible: bool,
}

/// Opens the IPC file or stream at `path` and detects its format from its
/// first bytes ([`IpcFormat::detect`]).
///
/// A regular file is memory-mapped (read-only); anything else (a pipe, a
/// character device, `/dev/stdin`) is read like [`read_ipc`] does.
///
/// The mapping assumes that no one truncates or rewrites the file while it
/// is mapped: the operating system would then end the process with `SIGBUS`
/// on access, or the batches would change under the reader.
///
///
/// ```
/// # use alkaid_std::array::{Array, Int64Array, RecordBatch};
/// # let batch = RecordBatch::try_from_iter([("v", Int64Array::from(vec![7, 8]).into_array_ref())])?;
/// let path = std::env::temp_dir().join(format!("open-ipc-doc-{}.arrow", std::process::id()));
/// let mut w = alkaid_std::create_file(&path, batch.schema(), Default::default())?;
/// w.write(&batch)?;
/// w.finish()?;
/// drop(w);
///
/// let input = alkaid_std::open_ipc(&path)?;
/// assert_eq!(input.format(), alkaid_std::IpcFormat::File);
/// let mut reader = input.reader()?;
/// assert_eq!(reader.num_batches(), Some(1));
/// assert_eq!(reader.next_batch()?, Some(batch));
/// assert_eq!(reader.next_batch()?, None);
/// # std::fs::remove_file(&path)?;
/// # Ok::<(), alkaid_std::Error>(())
/// ```
///
/// # Errors
/// [`Error::Io`] when the file cannot be opened or mapped.
pub fn open_ipc(path: impl AsRef<Path>) -> Result<IpcInput> {
    let file = File::open(path.as_ref())?;
    if !file.metadata()?.is_file() {
        return read_ipc(file);
    }
    // SAFETY: the mapping is read-only and private to this process; the
    // caller is told (above) that the file must not be modified while it is
    // mapped, which is the invariant `Mmap::map` requires for the bytes it
    // hands out to stay valid and unchanged.
    let map = unsafe { Mmap::map(&file)? };
    let format = IpcFormat::detect(&map);
    let plausible = IpcFormat::plausible(&map);
    let (ptr, len) = (map.as_ptr(), map.len());
    let owner = MemoryOwner::try_new_in(map, Global)?;
    // SAFETY: the mapping's `len` bytes at `ptr` stay mapped, unchanged (see
    // above), for as long as the owner holds the map.
    let bytes = unsafe { Buffer::from_owner(ptr, len, owner) };
    Ok(IpcInput {
        data: Data::Mapped(bytes),
        format,
        plausible,
    })
}

/// Reads IPC data from any `std::io` source, detecting its format from the
/// first bytes: a file-format input is read to its end into aligned memory
/// (the footer is at the end); a stream-format input is read lazily, batch
/// by batch, as the [`IpcReader`] is consumed (so `producer | alkaid cat
/// --limit 1 -` stops early).
///
///
/// ```
/// # use alkaid_std::array::{Array, Int64Array, RecordBatch};
/// # let batch = RecordBatch::try_from_iter([("v", Int64Array::from(vec![7, 8]).into_array_ref())])?;
/// let mut w = alkaid_std::StreamWriter::try_new(Vec::new(), batch.schema())?;
/// w.write(&batch)?;
/// w.finish()?;
/// // Any `std::io::Read + 'static`: a pipe, a socket, stdin, a cursor.
/// let src = std::io::Cursor::new(w.into_inner());
/// let input = alkaid_std::read_ipc(src)?;
/// assert_eq!(input.format(), alkaid_std::IpcFormat::Stream);
/// assert_eq!(input.bytes(), None); // read as the batches are consumed
/// let batches: Vec<_> = input.reader()?.collect::<alkaid_std::Result<_>>()?;
/// assert_eq!(batches, [batch]);
/// # Ok::<(), alkaid_std::Error>(())
/// ```
///
/// # Errors
/// [`Error::Io`] on a read error; [`Error::Arrow`] with
/// [`alkaid::Error::AllocationFailed`] when the input does not fit in memory.
pub fn read_ipc(mut src: impl Read + 'static) -> Result<IpcInput> {
    let mut head = [0u8; 8];
    let n = read_up_to(&mut src, &mut head)?;
    let head = head.get(..n).unwrap_or(&[]);
    let format = IpcFormat::detect(head);
    let plausible = IpcFormat::plausible(head);
    let data = match format {
        IpcFormat::File => Data::Owned(read_all_aligned(head, &mut src)?),
        IpcFormat::Stream => Data::Reader(Cell::new(Some(Box::new(
            io::Cursor::new(head.to_vec()).chain(src),
        )))),
    };
    Ok(IpcInput {
        data,
        format,
        plausible,
    })
}

/// Reads until `buf` is full or the source ends; returns the bytes read.
fn read_up_to(src: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match src.read(buf.get_mut(n..).unwrap_or(&mut [])) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// `prefix` followed by everything `src` holds, in 64-byte aligned memory.
fn read_all_aligned(prefix: &[u8], src: &mut impl Read) -> Result<Buffer<'static, Global>> {
    const CHUNK: usize = 64 << 10;
    let mut buf = MutableBuffer::new_in(Global);
    buf.try_extend_from_slice(prefix)?;
    loop {
        let at = buf.len();
        let room = CHUNK.max(at);
        buf.try_extend_zeros(room)?;
        let got = read_up_to(src, buf.as_slice_mut().get_mut(at..).unwrap_or(&mut []));
        let got = match got {
            Ok(k) => k,
            Err(e) => return Err(Error::Io(e)),
        };
        buf.truncate(at + got);
        if got < room {
            return Ok(buf.into_buffer());
        }
    }
}

impl IpcInput {
    /// Copies `bytes` into 64-byte aligned memory and detects their format.
    ///
    /// ```
    /// # use alkaid_std::array::{Array, Int64Array, RecordBatch};
    /// # let batch = RecordBatch::try_from_iter([("v", Int64Array::from(vec![7, 8]).into_array_ref())])?;
    /// let mut w = alkaid_std::FileWriter::try_new(Vec::new(), batch.schema())?;
    /// w.write(&batch)?;
    /// w.finish()?;
    /// let input = alkaid_std::IpcInput::from_bytes(&w.into_inner())?;
    /// // The batches keep the copy alive: they outlive `input`.
    /// let batches: Vec<_> = input.reader()?.collect::<alkaid_std::Result<_>>()?;
    /// drop(input);
    /// assert_eq!(batches, [batch]);
    /// # Ok::<(), alkaid_std::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`alkaid::Error::AllocationFailed`].
    pub fn from_bytes(bytes: &[u8]) -> Result<IpcInput> {
        Ok(IpcInput {
            data: Data::Owned(Buffer::try_copy_in(bytes, Global)?),
            format: IpcFormat::detect(bytes),
            plausible: IpcFormat::plausible(bytes),
        })
    }

    /// The detected format.
    pub fn format(&self) -> IpcFormat {
        self.format
    }

    /// The whole input as a shared buffer (cloning it shares the mapping or
    /// memory); `None` for a stream-format source read lazily.
    pub(crate) fn buffer(&self) -> Option<Buffer<'static, Global>> {
        match &self.data {
            Data::Mapped(b) | Data::Owned(b) => Some(b.clone()),
            Data::Reader(_) => None,
        }
    }

    /// The whole input, for a mapped or in-memory input; `None` for a
    /// stream-format source read lazily (see [`read_ipc`]).
    pub fn bytes(&self) -> Option<&[u8]> {
        match &self.data {
            Data::Mapped(b) | Data::Owned(b) => Some(b.as_slice()),
            Data::Reader(_) => None,
        }
    }

    /// A reader of the batches with the default options (full validation,
    /// default limits); see [`Self::reader_with`].
    ///
    /// # Errors
    /// As [`Self::reader_with`].
    pub fn reader(&self) -> Result<IpcReader<'static>> {
        self.reader_with(IpcReadOptions::default())
    }

    /// A reader of the batches: reads the schema (and, for the file format,
    /// the footer and every dictionary). A mapped or in-memory input can be
    /// read any number of times; a lazily read source only once.
    ///
    /// # Errors
    /// [`Error::NotIpc`] when the input does not start like Arrow IPC data
    /// ([`IpcFormat::plausible`]) and the schema could not be read; else any
    /// error of the core readers for a malformed start of input
    /// ([`alkaid::Error::UnexpectedEof`], [`alkaid::Error::InvalidMagic`],
    /// [`alkaid::Error::InvalidFlatbuffer`], …); [`Error::Io`] on a read
    /// error, or when a lazily read source was already consumed.
    pub fn reader_with(&self, options: IpcReadOptions) -> Result<IpcReader<'static>> {
        self.reader_with_codecs(options, StdCodecs::default())
    }

    /// As [`Self::reader_with`], decompressing with `codecs`: a
    /// [`StdCodecs`] on the calling thread, or a [`ThreadedCodecs`] that
    /// decompresses each batch's buffers on several threads (the batches
    /// are the same).
    ///
    /// ```
    /// # use alkaid_std::array::{Array, Int64Array, RecordBatch};
    /// # let batch = RecordBatch::try_from_iter([("n", Int64Array::from_iter_values((0..200_000).map(|v| v % 9)).into_array_ref()), ("m", Int64Array::from_iter_values(0..200_000).into_array_ref())])?;
    /// use alkaid_std::{CompressionCodec, IpcInput, IpcReadOptions, IpcWriteOptions, StreamWriter, ThreadedCodecs};
    ///
    /// let options = IpcWriteOptions { compression: Some(CompressionCodec::Zstd), ..Default::default() };
    /// let mut w = StreamWriter::try_new_with_options(Vec::new(), batch.schema(), options)?;
    /// w.write(&batch)?;
    /// w.finish()?;
    /// let input = IpcInput::from_bytes(&w.into_inner())?;
    /// let mut reader = input.reader_with_codecs(IpcReadOptions::default(), ThreadedCodecs::new(2))?;
    /// assert_eq!(reader.next_batch()?, Some(batch));
    /// # Ok::<(), alkaid_std::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Self::reader_with`].
    pub fn reader_with_codecs(
        &self,
        options: IpcReadOptions,
        codecs: impl Into<ThreadedCodecs>,
    ) -> Result<IpcReader<'static>> {
        self.open_reader(options, codecs.into())
            .map_err(|e| match e {
                // A core error that says what the input is keeps saying it.
                Error::Arrow(e) if !self.plausible && e.input().is_none() => Error::NotIpc,
                e => e,
            })
    }

    fn open_reader(
        &self,
        options: IpcReadOptions,
        codecs: ThreadedCodecs,
    ) -> Result<IpcReader<'static>> {
        let bytes = match &self.data {
            Data::Mapped(b) | Data::Owned(b) => b.clone(),
            Data::Reader(r) => {
                let src = r
                    .take()
                    .ok_or_else(|| io::Error::other("input stream already consumed"))?;
                return read_stream_with_codecs(src, options, codecs);
            }
        };
        let inner = match self.format {
            IpcFormat::Stream => Inner::Slice(SliceStreamReader::try_from_buffer_with_codecs_in(
                bytes, options, codecs, Global,
            )?),
            IpcFormat::File => Inner::File {
                reader: FileReader::try_from_buffer_with_codecs_in(bytes, options, codecs, Global)?,
                next: 0,
            },
        };
        Ok(IpcReader {
            inner,
            validated: options.validation(),
        })
    }
}

impl fmt::Debug for IpcInput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let source = match &self.data {
            Data::Mapped(_) => "mapped",
            Data::Owned(_) => "memory",
            Data::Reader(_) => "reader",
        };
        f.debug_struct("IpcInput")
            .field("format", &self.format)
            .field("source", &source)
            .field("len", &self.bytes().map(<[u8]>::len))
            .finish()
    }
}

/// Reads the IPC stream format from a `std::io` source (through
/// embedded-io-adapters' [`FromStd`](https://docs.rs/embedded-io-adapters/0.7/embedded_io_adapters/std/struct.FromStd.html)), batch by batch; the batches own
/// their buffers. Wrap a slow source in a [`std::io::BufReader`]: the reader
/// makes small reads for message prefixes.
///
///
/// ```
/// # use alkaid_std::array::{Array, Int64Array, RecordBatch};
/// # let batch = RecordBatch::try_from_iter([("v", Int64Array::from(vec![7, 8]).into_array_ref())])?;
/// let mut w = alkaid_std::StreamWriter::try_new(Vec::new(), batch.schema())?;
/// w.write(&batch)?;
/// w.finish()?;
/// let bytes = w.into_inner();
///
/// let mut reader = alkaid_std::read_stream(std::io::BufReader::new(&bytes[..]))?;
/// assert_eq!(reader.schema(), batch.schema());
/// assert_eq!(reader.num_batches(), None); // unknown until the end of a stream
/// assert_eq!(reader.next().transpose()?, Some(batch));
/// assert!(reader.next().is_none());
///
/// // A truncated stream: the core's error, after which the reader stops.
/// let mut reader = alkaid_std::read_stream(&bytes[..bytes.len() - 20])?;
/// let err = reader.next_batch().unwrap_err();
/// assert_eq!(err.as_arrow(), Some(alkaid::Error::UnexpectedEof));
/// # Ok::<(), alkaid_std::Error>(())
/// ```
///
/// # Errors
/// As [`IpcInput::reader_with`].
pub fn read_stream<'r>(src: impl Read + 'r) -> Result<IpcReader<'r>> {
    read_stream_with(src, IpcReadOptions::default())
}

/// [`read_stream`] with explicit options.
///
/// ```
/// # use alkaid_std::array::{Array, Int64Array, RecordBatch};
/// # let batch = RecordBatch::try_from_iter([("v", Int64Array::from(vec![7, 8]).into_array_ref())])?;
/// use alkaid_std::{IpcReadOptions, ValidationLevel};
///
/// let mut w = alkaid_std::StreamWriter::try_new(Vec::new(), batch.schema())?;
/// w.write(&batch)?;
/// w.finish()?;
/// let bytes = w.into_inner();
/// let options = IpcReadOptions::default();
/// assert_eq!(options.validation(), ValidationLevel::Full);
/// let (batches, rows) = alkaid_std::read_stream_with(&bytes[..], options)?
///     .validate_all(ValidationLevel::Full)?;
/// assert_eq!((batches, rows), (1, 2));
/// # Ok::<(), alkaid_std::Error>(())
/// ```
///
/// # Errors
/// As [`IpcInput::reader_with`].
pub fn read_stream_with<'r>(src: impl Read + 'r, options: IpcReadOptions) -> Result<IpcReader<'r>> {
    read_stream_with_codecs(src, options, StdCodecs::default().into())
}

/// [`read_stream_with`] decompressing with `codecs`.
fn read_stream_with_codecs<'r>(
    src: impl Read + 'r,
    options: IpcReadOptions,
    codecs: ThreadedCodecs,
) -> Result<IpcReader<'r>> {
    let boxed: Box<dyn Read + 'r> = Box::new(src);
    // The shim reads the schema message itself (the core's constructor
    // drops its source, and any error kept there, when it fails).
    let tracked = Tracked::prefetch_message(boxed, options.limits.max_metadata_size)?;
    let reader = StreamReader::try_new_with_codecs_in(tracked, options, codecs, Global)?;
    Ok(IpcReader {
        inner: Inner::Read(Box::new(reader)),
        validated: options.validation(),
    })
}

/// The stream reader over a `std::io::Read` source.
type ReadStream<'b> = StreamReader<'b, Tracked<Box<dyn Read + 'b>>, Global, ThreadedCodecs>;

enum Inner<'b> {
    Slice(SliceStreamReader<'b, Global, ThreadedCodecs>),
    File {
        reader: FileReader<'b, Global, ThreadedCodecs>,
        next: usize,
    },
    /// Boxed: the push decoder's buffers make it the largest variant.
    Read(Box<ReadStream<'b>>),
}

/// The record batches of an IPC stream or file, in order: an [`Iterator`] of
/// `Result<RecordBatch>` that ends after the first error.
///
/// Batches are validated fully by the core readers
/// ([`ValidationLevel::Full`]); their lifetime `'b` is that of the input.
/// Compressed bodies (LZ4 frame, ZSTD) are decompressed with [`StdCodecs`],
/// on several threads when opened with a [`ThreadedCodecs`]
/// ([`IpcInput::reader_with_codecs`]).
pub struct IpcReader<'b> {
    inner: Inner<'b>,
    /// The level the core reader validates every batch at as it decodes it.
    validated: ValidationLevel,
}

impl<'b> IpcReader<'b> {
    /// The schema of every batch.
    pub fn schema(&self) -> &Schema<'b, Global> {
        match &self.inner {
            Inner::Slice(r) => r.schema(),
            Inner::File { reader, .. } => reader.schema(),
            Inner::Read(r) => r.schema(),
        }
    }

    /// The format being read.
    pub fn format(&self) -> IpcFormat {
        match &self.inner {
            Inner::File { .. } => IpcFormat::File,
            _ => IpcFormat::Stream,
        }
    }

    /// The number of record batches, known up front for the file format only.
    pub fn num_batches(&self) -> Option<usize> {
        match &self.inner {
            Inner::File { reader, .. } => Some(reader.num_batches()),
            _ => None,
        }
    }

    /// The next record batch, `None` at the end.
    ///
    /// # Errors
    /// Any error of the core readers (malformed message or body, validation
    /// error, limit); [`Error::Io`] on a read error. Reading stops after an
    /// error.
    pub fn next_batch(&mut self) -> Result<Option<RecordBatch<'b, Global>>> {
        match &mut self.inner {
            Inner::Slice(r) => Ok(r.next_batch()?),
            Inner::Read(r) => r.next_batch().map_err(|e| r.get_mut().lift(e)),
            Inner::File { reader, next } => {
                if *next >= reader.num_batches() {
                    return Ok(None);
                }
                let b = reader.batch(*next);
                *next = if b.is_ok() {
                    *next + 1
                } else {
                    reader.num_batches()
                };
                Ok(Some(b?))
            }
        }
    }

    /// Reads every remaining batch, checked at `level` at least: the core
    /// readers validate each batch as they decode it (fully unless the
    /// options lowered it), and a batch is checked a second time only when
    /// `level` asks for more than that. Returns the number of batches and
    /// of rows.
    ///
    /// # Errors
    /// The first error met.
    pub fn validate_all(&mut self, level: ValidationLevel) -> Result<(usize, usize)> {
        let (mut batches, mut rows) = (0usize, 0usize);
        let again = level > self.validated;
        while let Some(b) = self.next_batch()? {
            if again {
                b.validate(level)?;
            }
            batches += 1;
            rows = rows.saturating_add(b.num_rows());
        }
        Ok((batches, rows))
    }
}

impl<'b> Iterator for IpcReader<'b> {
    type Item = Result<RecordBatch<'b, Global>>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_batch().transpose()
    }
}

impl fmt::Debug for IpcReader<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IpcReader")
            .field("format", &self.format())
            .field("num_batches", &self.num_batches())
            .finish()
    }
}
