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
//!
//! | file | what |
//! |---|---|
//! | `options.rs` | [`IpcReadOptions`], [`ReadLimits`] |
//! | `framing.rs` | the encapsulated message framing every reader splits messages with |
//! | `block.rs` | a file footer block's message, checked |
//! | `decode.rs` | a record batch body decoded into arrays |
//! | `dictionary.rs` | the dictionaries received so far |
//! | `parallel.rs` | compressed buffers decompressed ahead through a `BodyExecutor` |
//! | `mod.rs` | the state every reader shares: schema, dictionaries, codecs |
//! | `decoder.rs` | [`StreamDecoder`], the push decoder |
//! | `stream.rs` | [`StreamReader`] (a loop over the decoder), [`SliceStreamReader`] |
//! | `async_reader.rs` | `AsyncStreamReader` (feature `async`) |
//! | `file.rs` | [`FileReader`], [`FileSeekReader`] |

#[macro_use]
mod in_memory;
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
mod framing;
#[cfg(all(test, feature = "error-location"))]
mod input_tests;
mod options;
#[cfg(feature = "compression")]
mod parallel;
mod stream;

#[cfg(feature = "async")]
pub use async_reader::AsyncStreamReader;
pub use decoder::StreamDecoder;
pub use file::{FileReader, FileSeekReader};
pub use options::{IpcReadOptions, ReadLimits};
pub use stream::{SliceStreamReader, StreamReader};

use allocator_api2::alloc::Allocator;

use self::decode::BodyDecoder;
#[cfg(feature = "dictionary")]
use self::dictionary::DictionaryStore;
use super::compression::{BuiltinCodecs, CodecSet};
use super::message::{MessageHeader, MessageView, MetadataVersion, RecordBatchView};
use super::schema::Decoder;
use super::Endianness;
#[cfg(feature = "dictionary")]
use crate::array::ArrayRef;
use crate::array::RecordBatch;
use crate::buffer::{Buffer, SharedSlice};
#[cfg(feature = "dictionary")]
use crate::datatypes::DataType;
use crate::datatypes::{Metadata, Schema};
use crate::error::{Error, Result};

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
            Some(c) => Some(crate::ipc::compression::codec_of(&mut self.codecs, c)?),
            None => None,
        };
        // Without the `compression` feature no codec is usable.
        #[cfg(not(feature = "compression"))]
        if let Some(c) = header.compression {
            return Err(crate::ipc::compression::missing(c));
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
            level: self.options.validation(),
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
