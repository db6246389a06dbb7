//! [`AsyncStreamReader`]: the IPC stream format from an
//! `embedded_io_async::Read` source (feature `async`), a loop over the push
//! decoder like the sync [`super::StreamReader`].

use allocator_api2::alloc::Allocator;
use embedded_io_async::Read;

use super::{IpcReadOptions, StreamDecoder};
use crate::array::RecordBatch;
use crate::datatypes::{Metadata, Schema};
use crate::error::{Error, Result};
use crate::ipc::compression::{BuiltinCodecs, CodecSet};
use crate::ipc::Endianness;

/// Reads the IPC stream format from an `embedded_io_async::Read` source (a
/// UART, a socket, an `embassy-sync` pipe, a tokio stream through
/// `embedded-io-adapters`): each read goes into the [`StreamDecoder`]'s
/// buffer and is at most the rest of the current part of a message, so the
/// reader never reads past a message. Limits, validation and errors are
/// those of the sync [`super::StreamReader`]; bodies land in 64-byte
/// aligned memory from `A` and the batches own their buffers.
///
/// ```
/// # pollster::block_on(async {
/// use alkaid::array::{Array, StringArray, RecordBatch};
/// use alkaid::ipc::reader::AsyncStreamReader;
/// use alkaid::ipc::writer::StreamWriter;
///
/// let batch = RecordBatch::try_from_iter([("s", StringArray::from(vec!["a", "bc"]).into_array_ref())])?;
/// let mut w = StreamWriter::try_new(Vec::new(), batch.schema())?;
/// w.write(&batch)?;
/// w.finish()?;
/// let bytes = w.into_inner();
///
/// let mut r = AsyncStreamReader::try_new(&bytes[..]).await?;
/// assert_eq!(r.schema(), batch.schema());
/// assert_eq!(r.next_batch().await?, Some(batch));
/// assert_eq!(r.next_batch().await?, None);
///
/// // A cut stream is an error at the cut, never a panic.
/// let mut r = AsyncStreamReader::try_new(&bytes[..bytes.len() - 20]).await?;
/// assert!(r.next_batch().await.is_err());
/// # Ok::<(), alkaid::Error>(())
/// # }).unwrap();
/// ```
pub struct AsyncStreamReader<
    'a,
    R: Read,
    #[cfg(feature = "alloc")] A: Allocator + Clone + 'a = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator + Clone + 'a,
    S: CodecSet = BuiltinCodecs,
> {
    src: R,
    decoder: StreamDecoder<'a, A, S>,
    schema: Schema<'a, A>,
    done: bool,
}

/// What one read did.
enum Pulled<'a, A: Allocator> {
    End,
    More,
    Batch(RecordBatch<'a, A>),
}

/// Reads once from `src` into the decoder's buffer and hands the bytes on.
async fn pull<'a, R: Read, A: Allocator + Clone + 'a, S: CodecSet>(
    src: &mut R,
    decoder: &mut StreamDecoder<'a, A, S>,
) -> Result<Pulled<'a, A>> {
    let room = decoder.buffer_mut()?;
    let n = match src.read(room).await {
        Ok(0) => return Ok(Pulled::End),
        Ok(n) => n,
        Err(_) => return Err(decoder.fail(Error::Io)),
    };
    Ok(match decoder.advance(n)? {
        Some(b) => Pulled::Batch(b),
        None => Pulled::More,
    })
}

#[cfg(feature = "alloc")]
impl<'a, R: Read> AsyncStreamReader<'a, R> {
    /// Reads the schema message with the default options over the global
    /// heap.
    ///
    /// # Errors
    /// As [`AsyncStreamReader::try_new_in`].
    pub async fn try_new(src: R) -> Result<Self> {
        Self::try_new_in(src, IpcReadOptions::default(), crate::Global).await
    }
}

impl<'a, R: Read, A: Allocator + Clone + 'a> AsyncStreamReader<'a, R, A> {
    /// Reads the schema message that opens the stream; compressed bodies are
    /// decoded with the core's [`BuiltinCodecs`].
    ///
    /// # Errors
    /// [`Error::UnexpectedEof`], [`Error::InvalidFlatbuffer`],
    /// [`Error::UnexpectedMessage`] when the first message is not a schema,
    /// [`Error::InvalidMessage`] when it has a body,
    /// [`Error::UnsupportedVersion`], [`Error::LimitExceeded`], I/O and
    /// allocation errors.
    pub async fn try_new_in(src: R, options: IpcReadOptions, alloc: A) -> Result<Self> {
        Self::try_new_with_codecs_in(src, options, BuiltinCodecs::new(), alloc).await
    }
}

impl<'a, R: Read, A: Allocator + Clone + 'a, S: CodecSet> AsyncStreamReader<'a, R, A, S> {
    /// As [`AsyncStreamReader::try_new_in`] with the codecs of `codecs`.
    ///
    /// # Errors
    /// As [`AsyncStreamReader::try_new_in`].
    pub async fn try_new_with_codecs_in(
        mut src: R,
        options: IpcReadOptions,
        codecs: S,
        alloc: A,
    ) -> Result<Self> {
        let mut decoder = StreamDecoder::try_new_with_codecs_in(options, codecs, alloc)?;
        let schema = loop {
            if let Some(s) = decoder.schema() {
                break s.clone();
            }
            match pull(&mut src, &mut decoder).await? {
                Pulled::More => {}
                Pulled::Batch(_) => return Err(Error::UnexpectedMessage),
                Pulled::End => {
                    decoder.finish()?;
                    return Err(Error::UnexpectedEof);
                }
            }
        };
        Ok(AsyncStreamReader {
            src,
            decoder,
            schema,
            done: false,
        })
    }

    /// The stream's schema.
    pub fn schema(&self) -> &Schema<'a, A> {
        &self.schema
    }

    /// Custom metadata of the message of the record batch last returned
    /// (as [`super::StreamReader::batch_metadata`]).
    pub fn batch_metadata(&self) -> &Metadata<'a, A> {
        self.decoder.batch_metadata()
    }

    /// The byte order the stream was written in (batches are returned in
    /// the native order).
    pub fn endianness(&self) -> Endianness {
        self.decoder.endianness().unwrap_or(Endianness::NATIVE)
    }

    /// The source, mutably (reading from it directly desynchronizes the
    /// reader).
    pub fn get_mut(&mut self) -> &mut R {
        &mut self.src
    }

    /// The next record batch, or `None` at the end of the stream (its
    /// end-of-stream marker, or the end of the input at a message
    /// boundary).
    ///
    /// # Errors
    /// Any malformed message or body, with the index of its message;
    /// [`Error::UnexpectedEof`] when the input ends inside a message; I/O
    /// errors. The reader is finished after an error.
    pub async fn next_batch(&mut self) -> Result<Option<RecordBatch<'a, A>>> {
        while !self.done {
            match self.step().await {
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

    async fn step(&mut self) -> Result<Option<RecordBatch<'a, A>>> {
        while !self.decoder.is_finished() {
            match pull(&mut self.src, &mut self.decoder).await? {
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

impl<R: Read, A: Allocator + Clone, S: CodecSet> core::fmt::Debug
    for AsyncStreamReader<'_, R, A, S>
{
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("AsyncStreamReader")
            .field("done", &self.done)
            .finish_non_exhaustive()
    }
}
