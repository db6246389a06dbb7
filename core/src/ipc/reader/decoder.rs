//! [`StreamDecoder`]: the IPC stream format decoded from bytes pushed as they
//! arrive, with no I/O of its own ("Serialization and Interprocess
//! Communication → IPC Streaming Format" of the columnar format).
//!
//! The decoder is a state machine over the encapsulated message format:
//! the length prefix (with or without the `0xFFFFFFFF` continuation), the
//! `Message` flatbuffer, then the body. Any I/O model drives it: a
//! blocking reader ([`super::StreamReader`] is a loop over it), an async
//! one, or a network stack handing over received segments.

use allocator_api2::alloc::Allocator;

use super::framing::{frame, split_message};
use super::{IpcReadOptions, ReaderCore};
use crate::array::RecordBatch;
use crate::buffer::{Buffer, MutableBuffer, SharedSlice};
use crate::datatypes::{Metadata, Schema};
use crate::error::{Error, ErrorKind, InputKind, Result};
use crate::ipc::compression::{BuiltinCodecs, CodecSet};
use crate::ipc::message::MessageView;
use crate::ipc::Endianness;

/// Bytes the metadata and body buffers grow by at least (then doubling), so
/// that a short input declaring a large message (within the limits) does
/// not make the decoder allocate the declared size up front.
const GROWTH_CHUNK: usize = 1 << 20;

/// Where the decoder is in the current message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// The length prefix: `need` is 4, or 8 once a continuation marker was
    /// read.
    Prefix { need: usize },
    /// The `Message` flatbuffer of `len` bytes.
    Metadata { len: usize },
    /// The body of `len` bytes (the metadata is complete in `meta`).
    Body { len: usize },
    /// The end-of-stream marker was read.
    Finished,
}

/// Decodes the IPC stream format from bytes pushed in chunks of any size,
/// down to one byte, yielding the schema, applying dictionary batches
/// (replacement and delta) and returning record batches, with the limits
/// and validation of [`IpcReadOptions`] (the same message decoding as
/// [`super::SliceStreamReader`] and [`super::StreamReader`]).
///
/// Two ways to feed it:
/// - **push** a [`Buffer`] with [`StreamDecoder::decode`]: a message that
///   lies whole in the buffer is decoded without copying (the batch's
///   buffers are slices of it, as with `SliceStreamReader`); the parts of
///   a message split across buffers are copied into buffers from `A`;
/// - **fill** the decoder's own buffer: [`StreamDecoder::buffer_mut`] gives
///   the region the next bytes of the stream belong in (never more than
///   the current part of the message), and [`StreamDecoder::advance`]
///   takes the count written. A reader reads straight into the body's
///   final memory, with no copy.
///
/// Memory: what a message makes the decoder allocate is bounded by
/// `ReadLimits::max_metadata_size` and `max_body_size`, checked on the
/// length prefix and the metadata before any allocation; buffers then grow
/// with the bytes received (by at least 1 MiB, doubling), not to the
/// declared size up front.
///
/// At the end of the input call [`StreamDecoder::finish`]: it fails when
/// the input stopped inside a message (a truncated stream) or before the
/// schema. After the end-of-stream marker the decoder consumes nothing
/// more ([`StreamDecoder::is_finished`]). After an error it returns that
/// error again from every call.
///
/// ```
/// use alkaid::array::{Array, Int32Array, RecordBatch};
/// use alkaid::buffer::Buffer;
/// use alkaid::ipc::reader::{IpcReadOptions, StreamDecoder};
/// use alkaid::ipc::writer::StreamWriter;
/// use alkaid::Global;
///
/// let batch = RecordBatch::try_from_iter([("x", Int32Array::from(vec![1, 2, 3]).into_array_ref())])?;
/// let mut w = StreamWriter::try_new(Vec::new(), batch.schema())?;
/// w.write(&batch)?;
/// w.write(&batch)?;
/// w.finish()?;
/// let bytes = w.into_inner();
///
/// // Push: the stream arrives in 10-byte pieces.
/// let mut decoder = StreamDecoder::try_new_in(IpcReadOptions::default(), Global)?;
/// let mut got = Vec::new();
/// for piece in bytes.chunks(10) {
///     let mut piece = Buffer::from_slice_ref(piece);
///     while !piece.is_empty() && !decoder.is_finished() {
///         if let Some(b) = decoder.decode(&mut piece)? {
///             got.push(b);
///         }
///     }
/// }
/// decoder.finish()?;
/// assert_eq!(got, [batch.clone(), batch.clone()]);
///
/// // Fill: the decoder says where the next bytes go (here 3 at a time).
/// let mut decoder = StreamDecoder::try_new_in(IpcReadOptions::default(), Global)?;
/// let mut input = &bytes[..];
/// let mut rows = 0;
/// while !input.is_empty() && !decoder.is_finished() {
///     let room = decoder.buffer_mut()?;
///     let n = room.len().min(3).min(input.len());
///     room[..n].copy_from_slice(&input[..n]);
///     input = &input[n..];
///     if let Some(b) = decoder.advance(n)? {
///         rows += b.num_rows();
///     }
/// }
/// decoder.finish()?;
/// assert_eq!(rows, 6);
///
/// // A stream cut inside a message is an error at `finish`.
/// let mut decoder = StreamDecoder::try_new_in(IpcReadOptions::default(), Global)?;
/// let mut cut = Buffer::from_slice_ref(&bytes[..bytes.len() - 20]);
/// while decoder.decode(&mut cut)?.is_some() {}
/// assert!(decoder.finish().is_err()); // Error::UnexpectedEof
/// # Ok::<(), alkaid::Error>(())
/// ```
pub struct StreamDecoder<
    'b,
    #[cfg(feature = "alloc")] A: Allocator + Clone + 'b = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator + Clone + 'b,
    S: CodecSet = BuiltinCodecs,
> {
    options: IpcReadOptions,
    alloc: A,
    /// The codecs, then the schema, dictionaries and codecs.
    setup: Setup<'b, A, S>,
    state: State,
    /// The length prefix read so far.
    prefix: [u8; 8],
    /// The current message's metadata (reused from message to message).
    meta: MutableBuffer<A>,
    /// The current message's body (becomes the batch's memory).
    body: MutableBuffer<A>,
    /// Bytes of the current part (prefix, metadata or body) received.
    filled: usize,
    /// Index of the message being decoded (the schema is message 0).
    message: usize,
    /// The first error; returned again by every later call.
    error: Option<Error>,
    /// What [`StreamDecoder::batch_metadata`] returns before the schema.
    no_metadata: Metadata<'b, A>,
}

impl<'b, A: Allocator + Clone + 'b> StreamDecoder<'b, A> {
    /// A decoder waiting for the schema message; compressed bodies are
    /// decoded with the core's [`BuiltinCodecs`]. Allocates nothing.
    ///
    /// # Errors
    /// None today (the `Result` leaves room for options checked up front).
    pub fn try_new_in(options: IpcReadOptions, alloc: A) -> Result<Self> {
        Self::try_new_with_codecs_in(options, BuiltinCodecs::new(), alloc)
    }
}

impl<'b, A: Allocator + Clone + 'b, S: CodecSet> StreamDecoder<'b, A, S> {
    /// As [`StreamDecoder::try_new_in`] with the codecs of `codecs`.
    ///
    /// # Errors
    /// As [`StreamDecoder::try_new_in`].
    pub fn try_new_with_codecs_in(options: IpcReadOptions, codecs: S, alloc: A) -> Result<Self> {
        Ok(StreamDecoder {
            options,
            meta: MutableBuffer::new_in(alloc.clone()),
            body: MutableBuffer::new_in(alloc.clone()),
            alloc,
            setup: Setup::Waiting(codecs),
            state: State::Prefix { need: 4 },
            prefix: [0; 8],
            filled: 0,
            message: 0,
            error: None,
            no_metadata: SharedSlice::empty(),
        })
    }

    fn core(&self) -> Option<&ReaderCore<'b, A, S>> {
        match &self.setup {
            Setup::Ready(c) => Some(c),
            _ => None,
        }
    }

    /// The stream's schema, once its message (the first) is decoded.
    pub fn schema(&self) -> Option<&Schema<'b, A>> {
        self.core().map(|c| &c.schema)
    }

    /// The byte order the stream was written in, once the schema is
    /// decoded (batches are returned in the native order).
    pub fn endianness(&self) -> Option<Endianness> {
        self.core().map(|c| c.endianness)
    }

    /// Custom metadata of the message that carried the record batch last
    /// returned (`Message.custom_metadata`, Message.fbs), as key/value
    /// pairs in message order; `ALKAID:` keys are respelled `ARROW:`. Empty
    /// before the first batch and when that message has none.
    pub fn batch_metadata(&self) -> &Metadata<'b, A> {
        self.core().map_or(&self.no_metadata, |c| &c.batch_metadata)
    }

    /// `true` once the end-of-stream marker is decoded: the decoder takes no
    /// more bytes.
    pub fn is_finished(&self) -> bool {
        self.state == State::Finished
    }

    /// Index of the message being decoded (the schema is message 0): the
    /// index errors carry.
    pub fn message_index(&self) -> usize {
        self.message
    }

    /// Bytes still missing from the current part of the message (the
    /// length prefix, the metadata or the body); 0 when finished or failed.
    /// A reader that reads this much reads no byte past the message.
    pub fn wanted(&self) -> usize {
        if self.error.is_some() {
            return 0;
        }
        let total = match self.state {
            State::Prefix { need } => need,
            State::Metadata { len } | State::Body { len } => len,
            State::Finished => 0,
        };
        total.saturating_sub(self.filled)
    }

    /// The region the next bytes of the stream go into: write up to its
    /// length, then call [`StreamDecoder::advance`] with the count. Never
    /// longer than [`StreamDecoder::wanted`]; empty once finished. The
    /// metadata and body buffers grow here, by at least 1 MiB (doubling)
    /// and never past the message's declared size.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`], or the error that stopped the decoder.
    pub fn buffer_mut(&mut self) -> Result<&mut [u8]> {
        if let Some(e) = self.error {
            return Err(e);
        }
        let filled = self.filled;
        let r = match self.state {
            State::Prefix { need } => Ok(self.prefix.get_mut(filled..need).unwrap_or(&mut [])),
            State::Metadata { len } => room(&mut self.meta, filled, len),
            State::Body { len } => room(&mut self.body, filled, len),
            State::Finished => Ok(<&mut [u8]>::default()),
        };
        match r {
            Ok(s) => Ok(s),
            Err(e) => {
                let e = e.with_message(self.message);
                self.error = Some(e);
                Err(e)
            }
        }
    }

    /// Takes the `n` bytes written at the start of the region
    /// [`StreamDecoder::buffer_mut`] returned, and decodes the message when
    /// it is complete: returns its record batch, or `None` (more bytes
    /// needed, or a schema or dictionary batch was decoded).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `n` exceeds that region; otherwise as
    /// [`StreamDecoder::decode`].
    pub fn advance(&mut self, n: usize) -> Result<Option<RecordBatch<'b, A>>> {
        if let Some(e) = self.error {
            return Err(e);
        }
        let r = self.commit(n);
        self.settle(r)
    }

    /// Decodes from the front of `input` and advances it past the bytes
    /// used; returns at the first record batch completed, or `None` once
    /// `input` is used up (or the end-of-stream marker read, after which
    /// `input` is left as it is). Schema and dictionary batch messages are
    /// applied on the way. A message wholly in `input` is decoded without
    /// copying; a body that starts a chunk and fits in it too.
    ///
    /// # Errors
    /// Any malformed message or body, with its message index (the schema is
    /// message 0): [`Error::InvalidFlatbuffer`], [`Error::InvalidMessage`],
    /// [`Error::UnexpectedMessage`] when the first message is not a schema
    /// or a later one is, [`Error::UnsupportedVersion`],
    /// [`Error::UnexpectedEof`] for an end-of-stream marker before the
    /// schema, [`Error::LimitExceeded`] (before allocating), the
    /// validation errors of the arrays, and allocation errors. The decoder
    /// is stopped after an error.
    pub fn decode(&mut self, input: &mut Buffer<'b, A>) -> Result<Option<RecordBatch<'b, A>>> {
        if let Some(e) = self.error {
            return Err(e);
        }
        let r = self.decode_inner(input);
        self.settle(r)
    }

    /// Ends the input: `Ok` when the schema was read and the input stopped
    /// at a message boundary or after the end-of-stream marker.
    ///
    /// # Errors
    /// [`Error::UnexpectedEof`] when the input stopped inside a message or
    /// before the schema; the error that stopped the decoder.
    pub fn finish(&mut self) -> Result<()> {
        if let Some(e) = self.error {
            return Err(e);
        }
        let boundary = self.state == State::Finished
            || (self.state == State::Prefix { need: 4 } && self.filled == 0);
        if boundary && self.core().is_some() {
            return Ok(());
        }
        let mut e = Error::UnexpectedEof.with_message(self.message);
        if let State::Prefix { .. } = self.state {
            // Nothing (or less than a length prefix) came before the end.
            e = self.at_start(e, self.prefix.get(..self.filled).unwrap_or(&[]));
        }
        self.error = Some(e);
        Err(e)
    }

    /// `e` with what the input looks like ([`Error::at_start`]) when it
    /// stopped the first message before the schema was read, `head` being
    /// the input's first bytes.
    fn at_start(&self, e: Error, head: &[u8]) -> Error {
        if self.message == 0 && self.core().is_none() {
            e.at_start(head, InputKind::ArrowStream)
        } else {
            e
        }
    }

    /// Stops the decoder with `e` (an error of the I/O driving it), located
    /// at the current message; returns the located error.
    pub(crate) fn fail(&mut self, e: Error) -> Error {
        let e = e.with_message(self.message);
        self.error = Some(e);
        e
    }

    /// Records an error (located at the current message) before returning it.
    fn settle<T>(&mut self, r: Result<T>) -> Result<T> {
        r.map_err(|e| self.fail(e))
    }

    fn decode_inner(&mut self, input: &mut Buffer<'b, A>) -> Result<Option<RecordBatch<'b, A>>> {
        while !input.is_empty() && self.state != State::Finished {
            // At a message boundary: the whole message in `input`, zero copy.
            if self.state == (State::Prefix { need: 4 }) && self.filled == 0 {
                let whole = match split_message(input, 0, &self.options.limits) {
                    Ok(Some((msg, body, next))) => {
                        let r = on_message(self.core_parts(), &msg, body)?;
                        Some((r, next))
                    }
                    // An end-of-stream marker: read it below.
                    Ok(None) => None,
                    Err(e) if e.kind() == ErrorKind::UnexpectedEof => None,
                    Err(e) => return Err(self.at_start(e, input.as_slice())),
                };
                if let Some((r, next)) = whole {
                    *input = input.slice(next, input.len().saturating_sub(next))?;
                    self.message = self.message.saturating_add(1);
                    match r {
                        Some(b) => return Ok(Some(b)),
                        None => continue,
                    }
                }
            }
            // A body that starts here and is whole: zero copy.
            if let State::Body { len } = self.state {
                if self.filled == 0 && input.len() >= len {
                    let body = input.slice(0, len)?;
                    *input = input.slice(len, input.len() - len)?;
                    let r = self.message_done(Some(body))?;
                    if r.is_some() {
                        return Ok(r);
                    }
                    continue;
                }
            }
            // Otherwise copy what the current part needs.
            let room = self.buffer_mut()?;
            let k = room.len().min(input.len());
            let src = input.as_slice().get(..k).ok_or(Error::OutOfBounds)?;
            room.get_mut(..k)
                .ok_or(Error::OutOfBounds)?
                .copy_from_slice(src);
            *input = input.slice(k, input.len() - k)?;
            if let Some(b) = self.commit(k)? {
                return Ok(Some(b));
            }
        }
        Ok(None)
    }

    /// The parts [`on_message`] works on, borrowed apart from the metadata.
    fn core_parts(&mut self) -> Parts<'_, 'b, A, S> {
        Parts {
            setup: &mut self.setup,
            options: self.options,
            alloc: &self.alloc,
        }
    }

    /// `n` more bytes of the current part were written; moves on when the
    /// part is complete.
    fn commit(&mut self, n: usize) -> Result<Option<RecordBatch<'b, A>>> {
        if n > self.wanted() {
            return Err(Error::InvalidArgument);
        }
        self.filled += n;
        match self.state {
            State::Prefix { need } => {
                if self.filled < need {
                    return Ok(None);
                }
                if need == 4 && self.prefix.starts_with(&[0xFF; 4]) {
                    self.state = State::Prefix { need: 8 };
                    return Ok(None);
                }
                self.filled = 0;
                let prefix = self.prefix.get(..need).unwrap_or(&[]);
                let framed = frame(prefix, &self.options.limits);
                match framed.map_err(|e| self.at_start(e, prefix))? {
                    None if self.core().is_none() => Err(Error::UnexpectedEof),
                    None => {
                        self.state = State::Finished;
                        Ok(None)
                    }
                    Some((_, len)) => {
                        self.meta.clear();
                        self.state = State::Metadata { len };
                        Ok(None)
                    }
                }
            }
            State::Metadata { len } if self.filled == len => self.message_done(None),
            State::Body { len } if self.filled == len => {
                let body =
                    core::mem::replace(&mut self.body, MutableBuffer::new_in(self.alloc.clone()));
                self.message_done(Some(body.into_buffer()))
            }
            _ => Ok(None),
        }
    }

    /// The metadata (`body` is `None`) or the body is complete: decode a
    /// schema or a body-less message, or a message with its body; else wait
    /// for the body. One function for both, so that the message is decoded
    /// in one place.
    fn message_done(&mut self, body: Option<Buffer<'b, A>>) -> Result<Option<RecordBatch<'b, A>>> {
        let msg = MessageView::decode(self.meta.as_slice())?;
        let body = match body {
            Some(b) => b,
            None => {
                let len = usize::try_from(msg.body_length).map_err(|_| Error::InvalidMessage)?;
                if len > self.options.limits.max_body_size {
                    return Err(Error::LimitExceeded);
                }
                self.filled = 0;
                if len != 0 && matches!(self.setup, Setup::Ready(_)) {
                    self.body.clear();
                    self.state = State::Body { len };
                    return Ok(None);
                }
                Buffer::empty()
            }
        };
        let parts = Parts {
            setup: &mut self.setup,
            options: self.options,
            alloc: &self.alloc,
        };
        let r = on_message(parts, &msg, body)?;
        self.next_message();
        Ok(r)
    }

    fn next_message(&mut self) {
        self.state = State::Prefix { need: 4 };
        self.filled = 0;
        self.message = self.message.saturating_add(1);
    }
}

/// The codecs until the schema message arrives, then the reader state
/// built from it (which holds the codecs: they are never held twice).
enum Setup<'b, A: Allocator + Clone + 'b, S: CodecSet> {
    /// Before the schema.
    Waiting(S),
    /// After it.
    Ready(ReaderCore<'b, A, S>),
    /// The schema message failed.
    Spent,
}

/// The decoder's fields a message is applied to.
struct Parts<'p, 'b, A: Allocator + Clone + 'b, S: CodecSet> {
    setup: &'p mut Setup<'b, A, S>,
    options: IpcReadOptions,
    alloc: &'p A,
}

/// Applies one message: the schema (the first message, body-less), a
/// dictionary batch, or a record batch (returned).
fn on_message<'b, A: Allocator + Clone + 'b, S: CodecSet>(
    p: Parts<'_, 'b, A, S>,
    msg: &MessageView<'_>,
    body: Buffer<'b, A>,
) -> Result<Option<RecordBatch<'b, A>>> {
    if let Setup::Ready(core) = p.setup {
        return core.process(msg, body);
    }
    let Setup::Waiting(codecs) = core::mem::replace(p.setup, Setup::Spent) else {
        return Err(Error::UnexpectedMessage);
    };
    // A schema message has no body: `from_message` refuses a `bodyLength`
    // other than 0, and `body` is a slice of that length.
    let core = ReaderCore::from_message(msg, p.options, codecs, p.alloc.clone())?;
    *p.setup = Setup::Ready(core);
    Ok(None)
}

/// The unfilled part of `buf` after `filled` bytes of a part of `total`
/// bytes, growing `buf` when it is full: by the rest of the part, at most
/// the larger of [`GROWTH_CHUNK`] and what it holds.
fn room<A: Allocator>(
    buf: &mut MutableBuffer<A>,
    filled: usize,
    total: usize,
) -> Result<&mut [u8]> {
    if buf.len() <= filled {
        let k = total.saturating_sub(filled).min(GROWTH_CHUNK.max(filled));
        buf.try_reserve_exact(k)?;
        buf.try_extend_zeros(k)?;
    }
    Ok(buf.as_slice_mut().get_mut(filled..).unwrap_or(&mut []))
}

impl<'b, A: Allocator + Clone + 'b, S: CodecSet> core::fmt::Debug for StreamDecoder<'b, A, S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("StreamDecoder")
            .field("state", &self.state)
            .field("filled", &self.filled)
            .field("message", &self.message)
            .field("error", &self.error)
            .finish()
    }
}
