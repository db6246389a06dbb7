//! Stream format readers: over `embedded_io::Read` (a loop over the push
//! decoder), and zero-copy over `&[u8]`.

use allocator_api2::alloc::Allocator;
use embedded_io::Read;

use super::framing::{split_message, split_metadata};
use super::{IpcReadOptions, ReaderCore, StreamDecoder};
use crate::array::RecordBatch;
use crate::buffer::Buffer;
use crate::datatypes::{Metadata, Schema};
use crate::error::{Error, InputKind, Result};
use crate::ipc::compression::{BuiltinCodecs, CodecSet};
use crate::ipc::Endianness;

/// Reads the IPC stream format from an `embedded_io::Read` source: a loop
/// over a [`StreamDecoder`] that reads into the decoder's buffer exactly
/// the bytes of the current part of a message (never past it).
///
/// Bodies are read into 64-byte aligned memory from `A`; the batches own
/// their buffers (`'static`). Iterate with [`StreamReader::next_batch`] or as
/// an [`Iterator`].
///
/// ```
/// use alkaid::array::{Array, BooleanArray, RecordBatch};
/// use alkaid::ipc::reader::StreamReader;
/// use alkaid::ipc::writer::StreamWriter;
///
/// let batch = RecordBatch::try_from_iter([("on", BooleanArray::from(vec![true, false]).into_array_ref())])?;
/// let mut w = StreamWriter::try_new(Vec::new(), batch.schema())?;
/// for _ in 0..3 {
///     w.write(&batch)?;
/// }
/// w.finish()?;
/// let bytes = w.into_inner();
///
/// // `&[u8]` is an `embedded_io::Read`; so are UARTs and sockets.
/// let mut reader = StreamReader::try_new(&bytes[..])?;
/// let mut rows = 0;
/// while let Some(b) = reader.next_batch()? {
///     rows += b.num_rows();
/// }
/// assert_eq!(rows, 6);
///
/// // A truncated stream is an error, never a panic.
/// let cut = &bytes[..bytes.len() / 2];
/// assert!(StreamReader::try_new(cut)?.any(|b| b.is_err()));
/// # Ok::<(), alkaid::Error>(())
/// ```
pub struct StreamReader<
    'a,
    R: Read,
    #[cfg(feature = "alloc")] A: Allocator + Clone + 'a = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator + Clone + 'a,
    S: CodecSet = BuiltinCodecs,
> {
    src: R,
    decoder: StreamDecoder<'a, A, S>,
    /// The schema (a shared copy of the decoder's).
    schema: Schema<'a, A>,
    done: bool,
}

impl<'a, R: Read, A: Allocator + Clone + 'a> StreamReader<'a, R, A> {
    /// Reads the schema message that opens the stream; compressed bodies are
    /// decoded with the core's [`BuiltinCodecs`].
    ///
    /// # Errors
    /// [`Error::UnexpectedEof`], [`Error::InvalidFlatbuffer`],
    /// [`Error::UnexpectedMessage`] when the first message is not a schema,
    /// [`Error::InvalidMessage`] when it has a body (both judged on its
    /// metadata, as every stream reader judges it),
    /// [`Error::UnsupportedVersion`], [`Error::LimitExceeded`], I/O and
    /// allocation errors.
    pub fn try_new_in(src: R, options: IpcReadOptions, alloc: A) -> Result<Self> {
        Self::try_new_with_codecs_in(src, options, BuiltinCodecs::new(), alloc)
    }
}

impl<'a, R: Read, A: Allocator + Clone + 'a, S: CodecSet> StreamReader<'a, R, A, S> {
    /// As [`StreamReader::try_new_in`] with the codecs of `codecs`.
    ///
    /// # Errors
    /// As [`StreamReader::try_new_in`].
    pub fn try_new_with_codecs_in(
        src: R,
        options: IpcReadOptions,
        codecs: S,
        alloc: A,
    ) -> Result<Self> {
        let mut decoder = StreamDecoder::try_new_with_codecs_in(options, codecs, alloc)?;
        let mut src = src;
        let schema = loop {
            if let Some(s) = decoder.schema() {
                break s.clone();
            }
            // No batch precedes the schema (the decoder refuses one), and
            // the end of the input here is an error from `finish`.
            match pull(&mut src, &mut decoder)? {
                Pulled::More => {}
                Pulled::Batch(_) => return Err(Error::UnexpectedMessage),
                Pulled::End => {
                    decoder.finish()?;
                    return Err(Error::UnexpectedEof);
                }
            }
        };
        Ok(StreamReader {
            src,
            decoder,
            schema,
            done: false,
        })
    }

    /// Custom metadata of the message that carried the record batch last
    /// returned (`Message.custom_metadata`, Message.fbs), as key/value
    /// pairs in message order; `ALKAID:` keys are respelled `ARROW:`. Empty
    /// before the first batch, when that message has none, and after an
    /// error. The number of entries is bounded by
    /// `ReadLimits::schema.max_metadata_entries`.
    pub fn batch_metadata(&self) -> &Metadata<'a, A> {
        self.decoder.batch_metadata()
    }

    /// The stream's schema.
    pub fn schema(&self) -> &Schema<'a, A> {
        &self.schema
    }

    /// The source, mutably (e.g. to take an error the source kept; reading
    /// from it directly desynchronizes the reader).
    pub fn get_mut(&mut self) -> &mut R {
        &mut self.src
    }

    /// The byte order the stream was written in (batches are returned in the
    /// native order).
    pub fn endianness(&self) -> Endianness {
        self.decoder.endianness().unwrap_or(Endianness::NATIVE)
    }

    /// The next record batch, or `None` at the end of the stream (an
    /// end-of-stream marker or the end of the input at a message boundary).
    ///
    /// # Errors
    /// Any malformed message or body, with the index of its message (the
    /// schema is message 0); the reader is finished after an error.
    pub fn next_batch(&mut self) -> Result<Option<RecordBatch<'a, A>>> {
        while !self.done {
            match self.step() {
                Ok(Some(b)) => return Ok(Some(b)),
                Ok(None) => self.done = true,
                Err(e) => {
                    self.done = true;
                    return Err(e);
                }
            }
        }
        Ok(None)
    }

    /// Reads until the decoder completes a record batch; `None` at the end.
    fn step(&mut self) -> Result<Option<RecordBatch<'a, A>>> {
        while !self.decoder.is_finished() {
            match pull(&mut self.src, &mut self.decoder)? {
                Pulled::Batch(b) => return Ok(Some(b)),
                Pulled::More => {}
                Pulled::End => {
                    self.decoder.finish()?;
                    return Ok(None);
                }
            }
        }
        Ok(None)
    }
}

/// What one read did.
enum Pulled<'a, A: Allocator> {
    /// The input ended.
    End,
    /// The decoder took the bytes and needs more.
    More,
    /// The decoder completed a record batch.
    Batch(RecordBatch<'a, A>),
}

/// Reads once from `src` into the decoder's buffer (at most the rest of the
/// current part of a message) and hands the bytes to the decoder.
fn pull<'a, R: Read, A: Allocator + Clone + 'a, S: CodecSet>(
    src: &mut R,
    decoder: &mut StreamDecoder<'a, A, S>,
) -> Result<Pulled<'a, A>> {
    let room = decoder.buffer_mut()?;
    let n = match src.read(room) {
        Ok(0) => return Ok(Pulled::End),
        Ok(n) => n,
        Err(_) => return Err(decoder.fail(Error::Io)),
    };
    Ok(match decoder.advance(n)? {
        Some(b) => Pulled::Batch(b),
        None => Pulled::More,
    })
}

impl<'a, R: Read, A: Allocator + Clone + 'a, S: CodecSet> Iterator for StreamReader<'a, R, A, S> {
    type Item = Result<RecordBatch<'a, A>>;
    fn next(&mut self) -> Option<Self::Item> {
        self.next_batch().transpose()
    }
}

impl<'a, R: Read, A: Allocator + Clone + 'a, S: CodecSet> core::fmt::Debug
    for StreamReader<'a, R, A, S>
{
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("StreamReader")
            .field("done", &self.done)
            .finish()
    }
}

/// Reads the IPC stream format from a byte slice without copying: the
/// batches' buffers point into `input` when it is aligned (8 bytes suffice
/// for every type but views' 16-byte structs, which are read bytewise),
/// uncompressed and in native byte order.
///
/// ```
/// use alkaid::array::{Array, Int64Array, RecordBatch};
/// use alkaid::ipc::reader::SliceStreamReader;
/// use alkaid::ipc::writer::StreamWriter;
///
/// let batch = RecordBatch::try_from_iter([("t", Int64Array::from(vec![10, 20, 30]).into_array_ref())])?;
/// let mut w = StreamWriter::try_new(Vec::new(), batch.schema())?;
/// w.write(&batch)?;
/// w.finish()?;
/// let bytes = w.into_inner();
///
/// let mut reader = SliceStreamReader::try_new(&bytes)?;
/// assert_eq!(reader.schema().field(0).map(|f| f.name()), Some("t"));
/// let read = reader.next_batch()?.expect("one batch");
/// let t = read.column(0).and_then(|c| c.as_primitive::<i64>()).expect("an Int64 column");
/// assert_eq!(t.values(), &[10, 20, 30]);
/// if bytes.as_ptr() as usize % 8 == 0 {
///     // Zero copy: the values are read in place, inside `bytes`.
///     assert!(bytes.as_ptr_range().contains(&t.values().as_ptr().cast()));
/// }
/// assert!(reader.next_batch()?.is_none());
/// # Ok::<(), alkaid::Error>(())
/// ```
pub struct SliceStreamReader<
    'b,
    #[cfg(feature = "alloc")] A: Allocator + Clone + 'b = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator + Clone + 'b,
    S: CodecSet = BuiltinCodecs,
> {
    input: Buffer<'b, A>,
    pos: usize,
    core: ReaderCore<'b, A, S>,
    done: bool,
    /// Index of the message last split (the schema is message 0).
    message: usize,
}

in_memory_constructors! {
    SliceStreamReader,
    "StreamReader::try_new_in",
    /// Reads the schema message at the start of `input`.
    ///
    /// # Errors
    /// As [`StreamReader::try_new_in`].
    try_new_in;
    /// Reads the stream in `input`, a [`Buffer`] that may own its memory:
    /// the batches' buffers are slices of it, so they keep it alive. Over
    /// an owned buffer (bytes copied into `A`, or memory a
    /// [`crate::buffer::MemoryOwner`] keeps alive, such as a memory map)
    /// the batches are `'static`: they can outlive the function that opened
    /// the input, and be exported through the C Data Interface.
    ///
    /// ```
    /// use alkaid::buffer::Buffer;
    /// use alkaid::ipc::reader::{IpcReadOptions, SliceStreamReader};
    /// use alkaid::Global;
    ///
    /// fn open(bytes: &[u8]) -> alkaid::Result<SliceStreamReader<'static, Global>> {
    ///     let owned = Buffer::try_copy_in(bytes, Global)?; // 64-byte aligned
    ///     SliceStreamReader::try_from_buffer_in(owned, IpcReadOptions::default(), Global)
    /// }
    /// # let schema_only: &[u8] = &[];
    /// # assert!(open(schema_only).is_err());
    /// ```
    try_from_buffer_in;
}

impl<'b, A: Allocator + Clone + 'b, S: CodecSet> SliceStreamReader<'b, A, S> {
    /// As [`SliceStreamReader::try_from_buffer_in`] with the codecs of `codecs`.
    ///
    /// # Errors
    /// As [`StreamReader::try_new_in`].
    pub fn try_from_buffer_with_codecs_in(
        input: Buffer<'b, A>,
        options: IpcReadOptions,
        codecs: S,
        alloc: A,
    ) -> Result<Self> {
        // The schema message is judged on its metadata, as the other
        // stream readers judge it (`ReaderCore::from_message`): it has no
        // body, so the next message starts where its body would.
        let open = || {
            let (msg, pos, _) = split_metadata(input.as_slice(), 0, &options.limits)?
                .ok_or(Error::UnexpectedEof)?;
            Ok((ReaderCore::from_message(&msg, options, codecs, alloc)?, pos))
        };
        let (core, pos) = open().map_err(|e: Error| {
            e.with_message(0)
                .at_start(input.as_slice(), InputKind::ArrowStream)
        })?;
        Ok(SliceStreamReader {
            input: input.clone(),
            pos,
            core,
            done: false,
            message: 0,
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

    /// The stream's schema.
    pub fn schema(&self) -> &Schema<'b, A> {
        &self.core.schema
    }

    /// The byte order the stream was written in.
    pub fn endianness(&self) -> Endianness {
        self.core.endianness
    }

    /// The next record batch, or `None` at the end.
    ///
    /// # Errors
    /// Any malformed message or body, with the index of its message (the
    /// schema is message 0); the reader is finished after an error.
    pub fn next_batch(&mut self) -> Result<Option<RecordBatch<'b, A>>> {
        while !self.done {
            self.message = self.message.saturating_add(1);
            let r = match split_message(&self.input, self.pos, &self.core.options.limits) {
                Ok(Some((msg, body, next))) => {
                    self.pos = next;
                    self.core.process(&msg, body)
                }
                Ok(None) => {
                    self.done = true;
                    Ok(None)
                }
                Err(e) => Err(e),
            };
            match r {
                Ok(Some(b)) => return Ok(Some(b)),
                Ok(None) => {}
                Err(e) => {
                    self.done = true;
                    return Err(e.with_message(self.message));
                }
            }
        }
        Ok(None)
    }
}

impl<'b, A: Allocator + Clone + 'b, S: CodecSet> Iterator for SliceStreamReader<'b, A, S> {
    type Item = Result<RecordBatch<'b, A>>;
    fn next(&mut self) -> Option<Self::Item> {
        self.next_batch().transpose()
    }
}

impl<'b, A: Allocator + Clone + 'b, S: CodecSet> core::fmt::Debug for SliceStreamReader<'b, A, S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SliceStreamReader")
            .field("pos", &self.pos)
            .field("done", &self.done)
            .finish()
    }
}
