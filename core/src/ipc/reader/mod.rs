//! IPC readers: [`StreamDecoder`] fed bytes as they arrive (no I/O of its
//! own), [`StreamReader`] over `embedded_io::Read` (a loop over it),
//! [`SliceStreamReader`] and [`FileReader`] over a `&[u8]` (zero copy),
//! [`FileSeekReader`] over `Read + Seek`.
//!
//! Input is untrusted: every message is verified, every node and buffer is
//! checked against the header and the body, arrays are validated fully, and
//! what input can make us allocate is bounded by [`ReadLimits`]. The readers
//! accept metadata V4 and V5, the legacy framing without the `0xFFFFFFFF`
//! continuation, big-endian input (byte-swapped to native), the `ARROW1` and
//! `ALKAID1` file magics, and dictionary batches (replacement and delta).

#[cfg(feature = "async")]
mod async_reader;
mod block;
mod decode;
mod decoder;
#[cfg(test)]
mod decoder_tests;
#[cfg(feature = "dictionary")]
mod dictionary;
mod file;
#[cfg(feature = "compression")]
mod parallel;
mod stream;

#[cfg(feature = "async")]
pub use async_reader::AsyncStreamReader;
pub use decoder::StreamDecoder;
pub use file::{FileReader, FileSeekReader};
pub use stream::{SliceStreamReader, StreamReader};

use allocator_api2::alloc::Allocator;

use self::decode::BodyDecoder;
#[cfg(feature = "dictionary")]
use self::dictionary::DictionaryStore;
use super::compression::{BuiltinCodecs, CodecSet};
use super::message::{MessageHeader, MessageView, MetadataVersion, RecordBatchView};
use super::schema::{DecodeLimits, Decoder};
use super::Endianness;
#[cfg(feature = "dictionary")]
use crate::array::ArrayRef;
use crate::array::{RecordBatch, ValidationLevel};
use crate::buffer::{Buffer, SharedSlice};
#[cfg(feature = "dictionary")]
use crate::datatypes::DataType;
use crate::datatypes::{Metadata, Schema};
use crate::error::{Error, Result};

/// Bounds on what untrusted input can make a reader allocate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadLimits {
    /// Largest metadata flatbuffer of one message, in bytes.
    pub max_metadata_size: usize,
    /// Largest message body, in bytes.
    pub max_body_size: usize,
    /// Largest decompressed buffer, in bytes.
    pub max_buffer_size: usize,
    /// Most values one dictionary may hold after deltas.
    pub max_dictionary_len: usize,
    /// Schema limits: nesting depth, number of fields, metadata entries.
    pub schema: DecodeLimits,
}

/// 4 GiB, or `isize::MAX` bytes on targets whose address space is smaller
/// (computed in `u64`: `4 << 30` overflows a 32-bit `usize`).
const FOUR_GIB_OR_ISIZE_MAX: usize = if (isize::MAX as u64) < (4u64 << 30) {
    isize::MAX as usize
} else {
    (4u64 << 30) as usize
};

impl Default for ReadLimits {
    fn default() -> Self {
        ReadLimits {
            max_metadata_size: 16 << 20,
            max_body_size: FOUR_GIB_OR_ISIZE_MAX,
            max_buffer_size: FOUR_GIB_OR_ISIZE_MAX,
            max_dictionary_len: 1 << 30,
            schema: DecodeLimits::default(),
        }
    }
}

/// Options of the IPC readers.
///
/// By default readers validate every decoded array fully
/// ([`ValidationLevel::Full`]) and bound what input may make them allocate
/// with [`ReadLimits`]. Lower limits refuse larger input before allocating;
/// lowering validation is `unsafe` (for input the program wrote itself).
///
/// ```
/// use alkaid::array::{Array, Int64Array, RecordBatch, ValidationLevel};
/// use alkaid::ipc::reader::{IpcReadOptions, ReadLimits, SliceStreamReader};
/// use alkaid::ipc::writer::StreamWriter;
/// use alkaid::Global;
///
/// let batch = RecordBatch::try_from_iter([("t", Int64Array::from_iter_values(0..1000).into_array_ref())])?;
/// let mut w = StreamWriter::try_new(Vec::new(), batch.schema())?;
/// w.write(&batch)?;
/// w.finish()?;
/// let bytes = w.into_inner();
///
/// // A body of 8000 bytes exceeds a 4 KiB limit: refused, nothing allocated.
/// let small = IpcReadOptions::with_limits(ReadLimits { max_body_size: 4096, ..Default::default() });
/// let mut r = SliceStreamReader::try_new_in(&bytes, small, Global)?;
/// assert!(r.next().is_some_and(|b| b.is_err())); // Error::LimitExceeded
///
/// // Our own bytes: O(1) checks per array instead of O(n).
/// // SAFETY: `bytes` was written by this program's `StreamWriter`.
/// let trusted = unsafe { IpcReadOptions::default().with_validation(ValidationLevel::Cheap) };
/// assert_eq!(trusted.validation(), ValidationLevel::Cheap);
/// let mut r = SliceStreamReader::try_new_in(&bytes, trusted, Global)?;
/// assert_eq!(r.next().transpose()?, Some(batch));
/// # Ok::<(), alkaid::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct IpcReadOptions {
    /// Allocation bounds.
    pub limits: ReadLimits,
    /// How much of each decoded array is checked (Full by default; Strict
    /// through [`Self::with_strict_validation`]).
    validation: ValidationLevel,
}

impl IpcReadOptions {
    /// Default options with `limits`.
    pub fn with_limits(limits: ReadLimits) -> Self {
        IpcReadOptions {
            limits,
            ..Self::default()
        }
    }

    /// The validation level applied to decoded arrays.
    pub fn validation(&self) -> ValidationLevel {
        self.validation
    }

    /// Raises the validation of decoded arrays to [`ValidationLevel::Strict`]:
    /// the value-domain rules (decimal precision, whole-day Date64, time of
    /// day, no null in a non-nullable child) on top of the default
    /// [`ValidationLevel::Full`], as pyarrow's `validate(full=True)`. A batch
    /// that breaks one is refused with the rule and its location (message,
    /// field, buffer).
    ///
    /// ```
    /// use alkaid::ipc::reader::IpcReadOptions;
    /// use alkaid::array::ValidationLevel;
    ///
    /// let strict = IpcReadOptions::default().with_strict_validation();
    /// assert_eq!(strict.validation(), ValidationLevel::Strict);
    /// ```
    pub fn with_strict_validation(mut self) -> Self {
        self.validation = ValidationLevel::Strict;
        self
    }

    /// Lowers the validation of decoded arrays to `level`.
    ///
    /// With [`ValidationLevel::Cheap`] the reader still checks every message,
    /// node and buffer extent, and each array's O(1) invariants (types, buffer
    /// sizes, first and last offsets), but reads no data value: decoding time
    /// no longer depends on the body size. Framing, limits and bounds checks
    /// are never skipped.
    ///
    /// # Safety
    /// The caller vouches that the input is valid Arrow data (e.g. it wrote it
    /// itself): accessors of arrays with invalid offsets, UTF-8, views, union
    /// ids, run ends, dictionary keys or null counts may return wrong values
    /// or panic.
    pub unsafe fn with_validation(mut self, level: ValidationLevel) -> Self {
        self.validation = level;
        self
    }
}

/// An empty array of `dt` (the dictionary of an all-null column whose
/// dictionary batch has not arrived yet).
#[cfg(feature = "dictionary")]
fn empty_values<'b, A: Allocator + Clone>(
    dt: &DataType<'b, A>,
    alloc: &A,
) -> Result<ArrayRef<'b, A>> {
    crate::compute::new_empty(dt, alloc.clone())
}

/// `old ++ delta` for a delta dictionary batch.
#[cfg(feature = "dictionary")]
fn concat_values<'b, A: Allocator + Clone>(
    old: &ArrayRef<'b, A>,
    delta: &ArrayRef<'b, A>,
    alloc: &A,
) -> Result<ArrayRef<'b, A>> {
    crate::compute::concat(&[old, delta], alloc.clone())
}

/// Slot of `Message.custom_metadata` (Message.fbs).
const MESSAGE_CUSTOM_METADATA: u16 = 4;

/// The state every reader shares: schema, dictionaries, options.
pub(crate) struct ReaderCore<'b, A: Allocator + Clone + 'b, S: CodecSet = BuiltinCodecs> {
    alloc: A,
    #[cfg_attr(not(feature = "compression"), allow(dead_code))]
    codecs: S,
    options: IpcReadOptions,
    schema: Schema<'b, A>,
    endianness: Endianness,
    #[cfg(feature = "dictionary")]
    dictionaries: DictionaryStore<'b, A>,
    /// Custom metadata of the message of the last record batch returned
    /// (empty, with no allocation, when that message has none).
    batch_metadata: Metadata<'b, A>,
}

impl<'b, A: Allocator + Clone + 'b, S: CodecSet> ReaderCore<'b, A, S> {
    /// From the schema message that opens a stream, judged on its metadata
    /// alone (every stream reader decides here, before any byte of a body
    /// is read): a header that is not a `Schema` is
    /// [`Error::UnexpectedMessage`], a schema message with a body (a
    /// non-zero `bodyLength`) [`Error::InvalidMessage`].
    fn from_message(
        msg: &MessageView<'_>,
        options: IpcReadOptions,
        codecs: S,
        alloc: A,
    ) -> Result<Self> {
        let MessageHeader::Schema(t) = msg.header else {
            return Err(Error::UnexpectedMessage);
        };
        if msg.body_length != 0 {
            return Err(Error::InvalidMessage);
        }
        let (schema, endianness) = Decoder::new(alloc.clone(), options.limits.schema).schema(&t)?;
        Self::new(schema, endianness, options, codecs, alloc)
    }

    fn new(
        schema: Schema<'b, A>,
        endianness: Endianness,
        options: IpcReadOptions,
        codecs: S,
        alloc: A,
    ) -> Result<Self> {
        for f in schema.fields().iter() {
            crate::ipc::check_layouts(f.data_type(), 0)?;
        }
        #[cfg(feature = "dictionary")]
        let dictionaries = DictionaryStore::try_new_in(schema.fields(), alloc.clone())?;
        Ok(ReaderCore {
            alloc,
            codecs,
            options,
            schema,
            endianness,
            #[cfg(feature = "dictionary")]
            dictionaries,
            batch_metadata: SharedSlice::empty(),
        })
    }

    fn decoder<'m, 'd>(
        &'d mut self,
        header: RecordBatchView<'m>,
        body: Buffer<'b, A>,
        version: MetadataVersion,
    ) -> Result<BodyDecoder<'m, 'b, 'd, A>> {
        #[cfg(feature = "compression")]
        let ready = match header.compression {
            Some(c) => parallel::predecode(
                &mut self.codecs,
                c,
                &header,
                &body,
                self.options.limits.max_buffer_size,
                &self.alloc,
            ),
            None => None,
        };
        #[cfg(feature = "compression")]
        let decompressor = match header.compression {
            Some(c) => Some(self.codecs.get(c).ok_or(Error::UnsupportedType)?),
            None => None,
        };
        // Without the `compression` feature no codec is usable.
        #[cfg(not(feature = "compression"))]
        if header.compression.is_some() {
            return Err(Error::UnsupportedType);
        }
        Ok(BodyDecoder {
            header,
            body,
            version,
            swap: self.endianness != Endianness::NATIVE,
            alloc: self.alloc.clone(),
            #[cfg(feature = "dictionary")]
            dictionaries: &self.dictionaries,
            #[cfg(feature = "compression")]
            decompressor,
            #[cfg(feature = "compression")]
            ready,
            level: self.options.validation,
            max_buffer_size: self.options.limits.max_buffer_size,
            _d: core::marker::PhantomData,
            node: 0,
            buffer: 0,
            variadic: 0,
        })
    }

    /// Handles a dictionary or record batch message whose body is `body`:
    /// returns the record batch, or `None` after storing a dictionary.
    fn process(
        &mut self,
        msg: &MessageView<'_>,
        body: Buffer<'b, A>,
    ) -> Result<Option<RecordBatch<'b, A>>> {
        self.batch_metadata = SharedSlice::empty();
        match msg.header {
            MessageHeader::Schema(_) => Err(Error::UnexpectedMessage),
            #[cfg(not(feature = "dictionary"))]
            MessageHeader::DictionaryBatch { .. } => Err(Error::UnsupportedType),
            #[cfg(feature = "dictionary")]
            MessageHeader::DictionaryBatch { id, data, is_delta } => {
                let field = self.dictionaries.field(id)?.clone();
                let values = {
                    let mut d = self.decoder(data, body, msg.version)?;
                    let v = d.array(&field)?;
                    d.finish()?;
                    v
                };
                if usize::try_from(data.length).ok() != Some(crate::array::Array::len(&values)) {
                    return Err(Error::LengthMismatch);
                }
                let max = self.options.limits.max_dictionary_len;
                let alloc = self.alloc.clone();
                self.dictionaries
                    .insert(id, values, is_delta, max, &alloc)?;
                Ok(None)
            }
            MessageHeader::RecordBatch(rb) => {
                let rows = usize::try_from(rb.length).map_err(|_| Error::InvalidFieldNode)?;
                let schema: Schema<'b, A> = self.schema.clone();
                let columns = {
                    let alloc = self.alloc.clone();
                    let mut d = self.decoder(rb, body, msg.version)?;
                    let fields = schema.fields().clone();
                    let c = SharedSlice::try_from_fn_in(fields.len(), alloc, |i| {
                        match fields.get(i) {
                            Some(f) => d.array(f).map_err(|e| e.with_field(i)),
                            None => Err(Error::InvalidChildCount),
                        }
                    })?;
                    d.finish()?;
                    c
                };
                let batch = RecordBatch::try_new_with_rows(schema, columns, rows)?;
                self.batch_metadata = Decoder::new(self.alloc.clone(), self.options.limits.schema)
                    .metadata(msg.table(), MESSAGE_CUSTOM_METADATA)?;
                Ok(Some(batch))
            }
        }
    }
}

/// Reads a message's framing at the start of `input`: returns the metadata
/// flatbuffer, the total length of prefix + metadata, or `None` at an
/// end-of-stream marker. Accepts the legacy framing (no continuation).
pub(crate) fn frame(input: &[u8], limits: &ReadLimits) -> Result<Option<(usize, usize)>> {
    let first = input.get(..4).ok_or(Error::UnexpectedEof)?;
    let (len_at, prefix) = if first == [0xFF; 4] { (4, 8) } else { (0, 4) };
    let lb = input.get(len_at..len_at + 4).ok_or(Error::UnexpectedEof)?;
    let len = i32::from_le_bytes([lb[0], lb[1], lb[2], lb[3]]);
    if len == 0 {
        return Ok(None);
    }
    let len = usize::try_from(len).map_err(|_| Error::InvalidMessage)?;
    if len > limits.max_metadata_size {
        return Err(Error::LimitExceeded);
    }
    Ok(Some((prefix, len)))
}
