//! File format readers: random access to any record batch through the footer.

use allocator_api2::alloc::Allocator;
use embedded_io::{Read, Seek, SeekFrom};

use super::block::{block_message, BlockKind};
use super::framing::body_of;
use super::{IpcReadOptions, ReadLimits, ReaderCore};
use crate::array::RecordBatch;
use crate::buffer::{Buffer, MutableBuffer};
use crate::datatypes::{Metadata, Schema};
use crate::error::{Error, InputKind, Result};
use crate::ipc::compression::{BuiltinCodecs, CodecSet};
use crate::ipc::io::{read_exact, read_up_to};
use crate::ipc::message::{Block, FooterView, MessageView};
use crate::ipc::schema::Decoder;
use crate::ipc::writer::{ALKAID_MAGIC, ARROW_MAGIC};
use crate::ipc::Endianness;

/// Which magic a file starts with, if any.
fn start_magic(head: &[u8]) -> Option<&'static [u8]> {
    [ARROW_MAGIC, ALKAID_MAGIC]
        .into_iter()
        .find(|m| head.starts_with(m))
}

/// Bytes of a file's start that [`footer_extent`] needs: the leading magic
/// and its padding.
const HEAD_BYTES: usize = 8;

/// Bytes of a file's end that [`footer_extent`] needs: the footer length
/// and the longest magic.
const TAIL_BYTES: usize = 4 + 7;

/// The one check of a file's frame that both file readers apply ("IPC File
/// Format": the magic, padded to 8 bytes, the messages, the footer, its
/// `int32` length, the magic): from the file's length and its first and
/// last bytes (`head`: the first [`HEAD_BYTES`], `tail`: the last
/// [`TAIL_BYTES`], fewer when the file is shorter), the footer's offset and
/// length.
///
/// # Errors
/// [`Error::InvalidMagic`] when the file does not start with a magic
/// (with what it looks like, [`Error::input`], when recognised: a stream,
/// Parquet, text, empty) or does not end with the same one, or is too
/// short to hold both and a footer length
/// ([`InputKind::TruncatedArrowFile`] at its length); [`Error::InvalidFooter`] for a negative footer length or
/// a footer that would start before the end of the leading magic;
/// [`Error::LimitExceeded`] for a footer longer than
/// `ReadLimits::max_metadata_size`.
fn footer_extent(
    head: &[u8],
    tail: &[u8],
    file_len: u64,
    limits: &ReadLimits,
) -> Result<(u64, usize)> {
    let magic = start_magic(head)
        .ok_or_else(|| Error::InvalidMagic.at_start(head, InputKind::ArrowFile))?;
    let m = magic.len();
    if file_len < (HEAD_BYTES + 4 + m) as u64 || !tail.ends_with(magic) {
        return Err(Error::InvalidMagic.truncated_file(file_len));
    }
    let at = tail.len().checked_sub(m + 4).ok_or(Error::InvalidMagic)?;
    let lb = tail.get(at..at + 4).ok_or(Error::InvalidMagic)?;
    let footer_len = usize::try_from(i32::from_le_bytes([lb[0], lb[1], lb[2], lb[3]]))
        .map_err(|_| Error::InvalidFooter)?;
    if footer_len > limits.max_metadata_size {
        return Err(Error::LimitExceeded);
    }
    // `file_len` holds the tail: this does not overflow.
    let len_at = file_len - (m + 4) as u64;
    let start = len_at
        .checked_sub(footer_len as u64)
        .ok_or(Error::InvalidFooter)?;
    if start < HEAD_BYTES as u64 {
        return Err(Error::InvalidFooter);
    }
    Ok((start, footer_len))
}

/// Reads the IPC file format from a byte slice (a whole file in memory, flash
/// or an mmap) with random access to its batches, without copying: buffers
/// point into the input when aligned, uncompressed and native-endian.
///
/// ```
/// use alkaid::array::{Array, RecordBatch, StringArray};
/// use alkaid::ipc::reader::FileReader;
/// use alkaid::ipc::writer::FileWriter;
///
/// let names = ["a", "b", "c"];
/// let batch = |s: &str| RecordBatch::try_from_iter([("s", StringArray::from(vec![s]).into_array_ref())]);
/// let mut w = FileWriter::try_new(Vec::new(), batch("a")?.schema())?;
/// for s in names {
///     w.write(&batch(s)?)?;
/// }
/// w.finish()?;
/// let bytes = w.into_inner();
///
/// let mut r = FileReader::try_new(&bytes)?;
/// assert_eq!(r.num_batches(), 3);
/// assert_eq!(r.batch(2)?, batch("c")?); // any order, through the footer
/// assert!(r.batch(3).is_err()); // Error::OutOfBounds
/// assert_eq!(r.batches().count(), 3);
/// // Not a file: the magic is checked.
/// assert!(FileReader::try_new(&bytes[1..]).is_err());
/// # Ok::<(), alkaid::Error>(())
/// ```
pub struct FileReader<
    'b,
    #[cfg(feature = "alloc")] A: Allocator + Clone + 'b = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator + Clone + 'b,
    S: CodecSet = BuiltinCodecs,
> {
    input: Buffer<'b, A>,
    /// Where the footer starts: every message lies before it.
    data_end: usize,
    /// Where the footer ends (its length and the magic follow).
    footer_end: usize,
    /// Number of record batches in the footer.
    num_batches: usize,
    core: ReaderCore<'b, A, S>,
}

in_memory_constructors! {
    FileReader,
    "FileReader::try_new_in",
    /// Checks the magic at both ends, decodes the footer and the schema, and
    /// reads every dictionary batch.
    ///
    /// # Errors
    /// [`Error::InvalidMagic`] when the input does not start and end with
    /// the same magic (or is too short to hold them and a footer length);
    /// [`Error::InvalidFooter`] for a negative footer length or a footer
    /// that does not fit between the magics; [`Error::LimitExceeded`] for a
    /// footer longer than `ReadLimits::max_metadata_size`; footer, schema
    /// and dictionary errors, among them those of a footer block (as
    /// [`FileReader::batch`], and [`Error::UnexpectedMessage`] when a
    /// dictionary block's message is not a dictionary batch).
    try_new_in;
    /// Reads the file in `input`, a [`Buffer`] that may own its memory: the
    /// batches' buffers are slices of it, so they keep it alive. Over an
    /// owned buffer (bytes copied into `A`, or memory a
    /// [`crate::buffer::MemoryOwner`] keeps alive, such as a memory map) the
    /// batches are `'static`: they can outlive the function that opened the
    /// file, and be exported through the C Data Interface.
    try_from_buffer_in;
}

impl<'b, A: Allocator + Clone + 'b, S: CodecSet> FileReader<'b, A, S> {
    /// As [`FileReader::try_from_buffer_in`] with the codecs of `codecs`.
    ///
    /// # Errors
    /// As [`FileReader::try_new_in`].
    pub fn try_from_buffer_with_codecs_in(
        buffer: Buffer<'b, A>,
        options: IpcReadOptions,
        codecs: S,
        alloc: A,
    ) -> Result<Self> {
        let input = buffer.as_slice();
        let head = input.get(..HEAD_BYTES).unwrap_or(input);
        let tail = input
            .get(input.len().saturating_sub(TAIL_BYTES)..)
            .unwrap_or(input);
        let (start, footer_len) = footer_extent(head, tail, input.len() as u64, &options.limits)?;
        // Both lie inside `input` (checked by `footer_extent`).
        let start = usize::try_from(start).map_err(|_| Error::InvalidFooter)?;
        let len_at = start.checked_add(footer_len).ok_or(Error::InvalidFooter)?;
        let footer = FooterView::decode(input.get(start..len_at).ok_or(Error::InvalidFooter)?)?;
        let (schema, endianness) =
            Decoder::new(alloc.clone(), options.limits.schema).schema(&footer.schema)?;
        let mut core = ReaderCore::new(schema, endianness, options, codecs, alloc)?;
        for i in 0..footer.num_dictionaries() {
            let mut dictionary = || {
                let block = footer.dictionary(i)?;
                let (msg, body) =
                    message_at(input, start, &block, BlockKind::Dictionary, &options)?;
                core.process(&msg, body_of(&buffer, body)?)
            };
            dictionary().map_err(|e| e.with_message(i))?;
        }
        let num_batches = footer.num_record_batches();
        Ok(FileReader {
            input: buffer.clone(),
            data_end: start,
            footer_end: len_at,
            num_batches,
            core,
        })
    }

    /// Custom metadata of the message that carried the record batch last
    /// returned (`Message.custom_metadata`, Message.fbs), as key/value
    /// pairs in message order; `ALKAID:` keys are respelled `ARROW:`. Empty
    /// before the first batch, when that message has none, and after an
    /// error. The number of entries is bounded by
    /// `ReadLimits::schema.max_metadata_entries`.
    pub fn batch_metadata(&self) -> &Metadata<'b, A> {
        &self.core.batch_metadata
    }

    /// The file's schema.
    pub fn schema(&self) -> &Schema<'b, A> {
        &self.core.schema
    }

    /// The byte order the file was written in.
    pub fn endianness(&self) -> Endianness {
        self.core.endianness
    }

    /// Number of record batches.
    pub fn num_batches(&self) -> usize {
        self.num_batches
    }

    /// Record batch `i` (zero-copy where possible).
    ///
    /// An error names the message as the footer block it was read from:
    /// the file's dictionary blocks count first, so record batch `i` is
    /// message `num_dictionaries + i`.
    ///
    /// # Errors
    /// [`Error::OutOfBounds`] for `i >= num_batches()`; for a footer block
    /// that is inconsistent with the file or its message,
    /// [`Error::BlockOutOfFile`], [`Error::UnalignedBlock`],
    /// [`Error::BlockMessageMismatch`]; [`Error::UnexpectedMessage`] when
    /// the block's message is not a record batch; any malformed message or
    /// body.
    pub fn batch(&mut self, i: usize) -> Result<RecordBatch<'b, A>> {
        if i >= self.num_batches() {
            return Err(Error::OutOfBounds);
        }
        let input = self.input.as_slice();
        // The footer was verified at open; decoding its view again is O(1).
        let footer = input
            .get(self.data_end..self.footer_end)
            .ok_or(Error::InvalidFooter)?;
        let footer = FooterView::decode(footer)?;
        let message = footer.num_dictionaries().saturating_add(i);
        let block = footer
            .record_batch(i)
            .map_err(|e| e.with_message(message))?;
        let data_end = self.data_end;
        let mut read = || {
            let (msg, body) = message_at(
                input,
                data_end,
                &block,
                BlockKind::RecordBatch,
                &self.core.options,
            )?;
            let body = body_of(&self.input, body)?;
            self.core
                .process(&msg, body)?
                .ok_or(Error::UnexpectedMessage)
        };
        read().map_err(|e| e.with_message(message))
    }
}

impl<'b, A: Allocator + Clone + 'b, S: CodecSet> FileReader<'b, A, S> {
    /// Iterates the record batches in file order.
    pub fn batches(&mut self) -> impl Iterator<Item = Result<RecordBatch<'b, A>>> + '_ {
        (0..self.num_batches()).map(move |i| self.batch(i))
    }

    /// The record batches in file order, consuming the reader (to hand them
    /// on, e.g. to [`crate::ffi::FFI_ArrowArrayStream::try_from_batches_in`]).
    pub fn into_batches(mut self) -> impl Iterator<Item = Result<RecordBatch<'b, A>>> {
        (0..self.num_batches()).map(move |i| self.batch(i))
    }
}

impl<'b, A: Allocator + Clone + 'b, S: CodecSet> core::fmt::Debug for FileReader<'b, A, S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("FileReader")
            .field("batches", &self.num_batches())
            .finish()
    }
}

/// The message of a footer block of list `kind` (checked by
/// [`block_message`]) of the file `input` whose footer starts at
/// `data_end`: metadata and body.
fn message_at<'b>(
    input: &'b [u8],
    data_end: usize,
    block: &Block,
    kind: BlockKind,
    options: &IpcReadOptions,
) -> Result<(MessageView<'b>, &'b [u8])> {
    let at = |off: u64, len: usize| {
        let off = usize::try_from(off).map_err(|_| Error::BlockOutOfFile)?;
        let end = off.checked_add(len).ok_or(Error::BlockOutOfFile)?;
        input.get(off..end).ok_or(Error::BlockOutOfFile)
    };
    let m = block_message(block, kind, data_end as u64, &options.limits, at)?;
    Ok((m.message, at(m.body_offset, m.body_length)?))
}

/// Reads the IPC file format from a `Read + Seek` source, one batch at a time.
///
/// The footer is kept in memory from `A`; each batch's body is read into
/// aligned memory from `A` (batches own their buffers).
///
/// Any `embedded_io::Read + Seek` source works (on a host,
/// `embedded_io_adapters::std::FromStd` adapts a `std::fs::File`); here a
/// minimal one over bytes, as a firmware would read external flash:
///
/// ```
/// use alkaid::array::{Array, RecordBatch, UInt32Array};
/// use alkaid::ipc::reader::FileSeekReader;
/// use alkaid::ipc::writer::FileWriter;
/// use embedded_io::{ErrorType, Read, Seek, SeekFrom};
///
/// struct Flash<'a> { bytes: &'a [u8], pos: usize }
/// impl ErrorType for Flash<'_> { type Error = core::convert::Infallible; }
/// impl Read for Flash<'_> {
///     fn read(&mut self, buf: &mut [u8]) -> Result<usize, Self::Error> {
///         let n = buf.len().min(self.bytes.len().saturating_sub(self.pos));
///         buf[..n].copy_from_slice(&self.bytes[self.pos..self.pos + n]);
///         self.pos += n;
///         Ok(n)
///     }
/// }
/// impl Seek for Flash<'_> {
///     fn seek(&mut self, to: SeekFrom) -> Result<u64, Self::Error> {
///         let len = self.bytes.len() as i64;
///         self.pos = match to {
///             SeekFrom::Start(n) => n as i64,
///             SeekFrom::End(d) => len + d,
///             SeekFrom::Current(d) => self.pos as i64 + d,
///         }
///         .clamp(0, len) as usize;
///         Ok(self.pos as u64)
///     }
/// }
///
/// let batch = RecordBatch::try_from_iter([("n", UInt32Array::from(vec![1, 2, 3]).into_array_ref())])?;
/// let mut w = FileWriter::try_new(Vec::new(), batch.schema())?;
/// w.write(&batch)?;
/// w.write(&batch)?;
/// w.finish()?;
/// let bytes = w.into_inner();
///
/// let mut r = FileSeekReader::try_new(Flash { bytes: &bytes, pos: 0 })?;
/// assert_eq!(r.num_batches(), 2);
/// assert_eq!(r.batch(1)?, batch);
/// # Ok::<(), alkaid::Error>(())
/// ```
pub struct FileSeekReader<
    'a,
    R: Read + Seek,
    #[cfg(feature = "alloc")] A: Allocator + Clone + 'a = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator + Clone + 'a,
    S: CodecSet = BuiltinCodecs,
> {
    src: R,
    /// Where the footer starts: every message lies before it.
    data_end: u64,
    footer: MutableBuffer<A>,
    core: ReaderCore<'a, A, S>,
    metadata: MutableBuffer<A>,
}

impl<'a, R: Read + Seek, A: Allocator + Clone + 'a> FileSeekReader<'a, R, A> {
    /// Checks the magic, reads the footer, the schema and every dictionary.
    ///
    /// # Errors
    /// As [`FileReader::try_new_in`] (the same checks, in the same order,
    /// give the same [`crate::ErrorKind`]), plus I/O errors and
    /// [`Error::UnexpectedEof`] when the source ends before the length its
    /// `Seek` reports.
    pub fn try_new_in(src: R, options: IpcReadOptions, alloc: A) -> Result<Self> {
        Self::try_new_with_codecs_in(src, options, BuiltinCodecs::new(), alloc)
    }
}

impl<'a, R: Read + Seek, A: Allocator + Clone + 'a, S: CodecSet> FileSeekReader<'a, R, A, S> {
    /// As [`FileSeekReader::try_new_in`] with the codecs of `codecs`.
    ///
    /// # Errors
    /// As [`FileSeekReader::try_new_in`].
    pub fn try_new_with_codecs_in(
        mut src: R,
        options: IpcReadOptions,
        codecs: S,
        alloc: A,
    ) -> Result<Self> {
        // The file's first bytes, its length and its last bytes (fewer when
        // it is shorter), then the one check of the frame `FileReader`
        // applies.
        let mut head = [0u8; HEAD_BYTES];
        src.seek(SeekFrom::Start(0)).map_err(|_| Error::Io)?;
        let n = read_up_to(&mut src, &mut head)?;
        let head = head.get(..n).unwrap_or_default();
        let end = src.seek(SeekFrom::End(0)).map_err(|_| Error::Io)?;
        let mut tail = [0u8; TAIL_BYTES];
        let tail = tail
            .get_mut(..usize::try_from(end).map_or(TAIL_BYTES, |n| n.min(TAIL_BYTES)))
            .unwrap_or_default();
        src.seek(SeekFrom::Start(end - tail.len() as u64))
            .map_err(|_| Error::Io)?;
        read_exact(&mut src, tail)?;
        let (data_end, footer_len) = footer_extent(head, tail, end, &options.limits)?;
        src.seek(SeekFrom::Start(data_end)).map_err(|_| Error::Io)?;
        let mut footer = MutableBuffer::new_in(alloc.clone());
        footer.try_extend_zeros(footer_len)?;
        read_exact(&mut src, footer.as_slice_mut())?;
        let view = FooterView::decode(footer.as_slice())?;
        let (schema, endianness) =
            Decoder::new(alloc.clone(), options.limits.schema).schema(&view.schema)?;
        let core = ReaderCore::new(schema, endianness, options, codecs, alloc.clone())?;
        let mut r = FileSeekReader {
            src,
            data_end,
            footer,
            core,
            metadata: MutableBuffer::new_in(alloc),
        };
        let n = FooterView::decode(r.footer.as_slice())?.num_dictionaries();
        for i in 0..n {
            let block = FooterView::decode(r.footer.as_slice())?.dictionary(i)?;
            match r.read_block(&block, BlockKind::Dictionary) {
                Ok(None) => {}
                Ok(Some(_)) => return Err(Error::UnexpectedMessage.with_message(i)),
                Err(e) => return Err(e.with_message(i)),
            }
        }
        Ok(r)
    }

    /// Custom metadata of the message that carried the record batch last
    /// returned (`Message.custom_metadata`, Message.fbs), as key/value
    /// pairs in message order; `ALKAID:` keys are respelled `ARROW:`. Empty
    /// before the first batch, when that message has none, and after an
    /// error. The number of entries is bounded by
    /// `ReadLimits::schema.max_metadata_entries`.
    pub fn batch_metadata(&self) -> &Metadata<'a, A> {
        &self.core.batch_metadata
    }

    /// The file's schema.
    pub fn schema(&self) -> &Schema<'a, A> {
        &self.core.schema
    }

    /// The source, mutably (e.g. to take an error the source kept).
    pub fn get_mut(&mut self) -> &mut R {
        &mut self.src
    }

    /// Number of record batches.
    pub fn num_batches(&self) -> usize {
        FooterView::decode(self.footer.as_slice()).map_or(0, |f| f.num_record_batches())
    }

    /// Record batch `i`. Its body is read into memory from `A`, at most
    /// the bytes the source holds before the footer.
    ///
    /// # Errors
    /// As [`FileReader::batch`]; I/O errors. An error names the message as
    /// [`FileReader::batch`] does.
    pub fn batch(&mut self, i: usize) -> Result<RecordBatch<'a, A>> {
        let footer = FooterView::decode(self.footer.as_slice())?;
        if i >= footer.num_record_batches() {
            return Err(Error::OutOfBounds);
        }
        let message = footer.num_dictionaries().saturating_add(i);
        let block = footer
            .record_batch(i)
            .map_err(|e| e.with_message(message))?;
        self.read_block(&block, BlockKind::RecordBatch)
            .and_then(|b| b.ok_or(Error::UnexpectedMessage))
            .map_err(|e| e.with_message(message))
    }

    /// Reads the message of `block`, a block of the footer's list `kind`,
    /// checked by [`block_message`]: the body read (and allocated) is at
    /// most what the source holds before the footer.
    fn read_block(&mut self, block: &Block, kind: BlockKind) -> Result<Option<RecordBatch<'a, A>>> {
        let opts = self.core.options;
        let (src, metadata) = (&mut self.src, &mut self.metadata);
        let m = block_message(block, kind, self.data_end, &opts.limits, move |off, len| {
            src.seek(SeekFrom::Start(off)).map_err(|_| Error::Io)?;
            metadata.clear();
            metadata.try_extend_zeros(len)?;
            read_exact(&mut *src, metadata.as_slice_mut())?;
            Ok(metadata.as_slice())
        })?;
        let mut body = MutableBuffer::new_in(self.core.alloc.clone());
        body.try_reserve_exact(m.body_length)?;
        body.try_extend_zeros(m.body_length)?;
        self.src
            .seek(SeekFrom::Start(m.body_offset))
            .map_err(|_| Error::Io)?;
        read_exact(&mut self.src, body.as_slice_mut())?;
        self.core.process(&m.message, body.into_buffer())
    }
}

impl<'a, R: Read + Seek, A: Allocator + Clone + 'a, S: CodecSet> core::fmt::Debug
    for FileSeekReader<'a, R, A, S>
{
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("FileSeekReader")
            .field("batches", &self.num_batches())
            .finish()
    }
}
