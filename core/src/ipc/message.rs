//! IPC messages: the `Message` flatbuffer (Message.fbs) with its
//! `RecordBatch` / `DictionaryBatch` / `Schema` headers, and the `Footer`
//! (File.fbs) — encoding into a scratch area and zero-copy decoded views.

use allocator_api2::alloc::Allocator;

use super::flatbuf::{FlatBufferBuilder, Table, Vector, WIPOffset};
use crate::datatypes::Metadata;
use crate::error::{Error, Result};

/// `MetadataVersion` of Message.fbs. Readers accept V4 and V5; writers write V5.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[repr(i16)]
pub enum MetadataVersion {
    /// 0.1.0 (Oct 2016).
    V1 = 0,
    /// 0.2.0 (Feb 2017).
    V2 = 1,
    /// 0.3.0 → 0.7.1.
    V3 = 2,
    /// ≥ 0.8.0 (Dec 2017).
    V4 = 3,
    /// ≥ 1.0.0 (Jul 2020): unions without a validity bitmap.
    V5 = 4,
}

impl MetadataVersion {
    /// From the wire value.
    ///
    /// # Errors
    /// [`Error::UnsupportedVersion`] for V1–V3 and unknown values.
    pub fn from_wire(v: i16) -> Result<Self> {
        match v {
            3 => Ok(MetadataVersion::V4),
            4 => Ok(MetadataVersion::V5),
            _ => Err(Error::UnsupportedVersion),
        }
    }
}

/// Body compression codec (`CompressionType` of Message.fbs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompressionCodec {
    /// LZ4 frame format.
    Lz4Frame,
    /// Zstandard.
    Zstd,
}

/// Length and null count of one array node, in slots (`FieldNode` of Message.fbs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FieldNode {
    /// Number of slots.
    pub length: i64,
    /// Number of null slots.
    pub null_count: i64,
}

/// Where a buffer lies in the message body, in bytes (`Buffer` of Schema.fbs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BufferSpec {
    /// Offset from the start of the body.
    pub offset: i64,
    /// Length in bytes (excluding padding).
    pub length: i64,
}

/// A message or record batch's place in an IPC file (`Block` of File.fbs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Block {
    /// Offset of the message (its continuation marker) from the file start.
    pub offset: i64,
    /// Length of the prefix, flatbuffer and padding, in bytes.
    pub meta_data_length: i32,
    /// Length of the body in bytes.
    pub body_length: i64,
}

impl Block {
    /// The 24 little-endian bytes of the struct (with its 4 padding bytes).
    pub fn to_bytes(&self) -> [u8; 24] {
        let mut b = [0u8; 24];
        b[..8].copy_from_slice(&self.offset.to_le_bytes());
        b[8..12].copy_from_slice(&self.meta_data_length.to_le_bytes());
        b[16..].copy_from_slice(&self.body_length.to_le_bytes());
        b
    }

    fn from_bytes(b: &[u8]) -> Result<Self> {
        let g = |r: core::ops::Range<usize>| b.get(r).ok_or(Error::InvalidFlatbuffer);
        let mut o = [0u8; 8];
        o.copy_from_slice(g(0..8)?);
        let mut m = [0u8; 4];
        m.copy_from_slice(g(8..12)?);
        let mut l = [0u8; 8];
        l.copy_from_slice(g(16..24)?);
        Ok(Block {
            offset: i64::from_le_bytes(o),
            meta_data_length: i32::from_le_bytes(m),
            body_length: i64::from_le_bytes(l),
        })
    }
}

// MessageHeader union ids.
const HEADER_SCHEMA: u8 = 1;
const HEADER_DICTIONARY_BATCH: u8 = 2;
const HEADER_RECORD_BATCH: u8 = 3;

/// The contents of a `RecordBatch` header to encode.
#[derive(Debug, Clone, Copy)]
pub struct RecordBatchHeader<'s> {
    /// Number of rows.
    pub length: i64,
    /// One node per array in depth-first order.
    pub nodes: &'s [FieldNode],
    /// One entry per buffer in depth-first order.
    pub buffers: &'s [BufferSpec],
    /// Codec of a compressed body.
    pub compression: Option<CompressionCodec>,
    /// Number of variadic data buffers of each view array, depth-first.
    pub variadic_buffer_counts: &'s [i64],
}

/// Writes a vector of structs of two `i64` (`Buffer`, `FieldNode`).
fn pairs(
    b: &mut FlatBufferBuilder<'_>,
    items: impl DoubleEndedIterator<Item = (i64, i64)> + ExactSizeIterator,
) -> Result<WIPOffset> {
    b.start_vector(items.len(), 16, 8)?;
    for (x, y) in items.rev() {
        let mut e = [0u8; 16];
        e[..8].copy_from_slice(&x.to_le_bytes());
        e[8..].copy_from_slice(&y.to_le_bytes());
        b.push_element(&e)?;
    }
    b.end_vector()
}

fn encode_record_batch(
    b: &mut FlatBufferBuilder<'_>,
    h: &RecordBatchHeader<'_>,
) -> Result<WIPOffset> {
    let variadic = if h.variadic_buffer_counts.is_empty() {
        None
    } else {
        Some(b.create_vector_i64(h.variadic_buffer_counts)?)
    };
    let buffers = pairs(b, h.buffers.iter().map(|s| (s.offset, s.length)))?;
    let nodes = pairs(b, h.nodes.iter().map(|n| (n.length, n.null_count)))?;
    let compression = match h.compression {
        Some(c) => {
            b.start_table()?;
            b.add_u8(0, if c == CompressionCodec::Zstd { 1 } else { 0 }, 0)?;
            Some(b.end_table()?)
        }
        None => None,
    };
    b.start_table()?;
    b.add_i64(0, h.length, 0)?;
    b.add_offset(1, nodes)?;
    b.add_offset(2, buffers)?;
    if let Some(c) = compression {
        b.add_offset(3, c)?;
    }
    if let Some(v) = variadic {
        b.add_offset(4, v)?;
    }
    b.end_table()
}

fn encode_message<A: Allocator>(
    b: &mut FlatBufferBuilder<'_>,
    header_type: u8,
    header: WIPOffset,
    body_length: i64,
    metadata: Option<&Metadata<'_, A>>,
    alkaid: bool,
) -> Result<WIPOffset> {
    let md = match metadata {
        Some(m) => super::schema::encode_metadata(b, m, alkaid)?,
        None => None,
    };
    b.start_table()?;
    b.add_i16(0, MetadataVersion::V5 as i16, 0)?;
    b.add_u8(1, header_type, 0)?;
    b.add_offset(2, header)?;
    b.add_i64(3, body_length, 0)?;
    if let Some(m) = md {
        b.add_offset(4, m)?;
    }
    b.end_table()
}

/// Encodes a `Message` whose header is a `Schema`; returns the flatbuffer.
///
/// # Errors
/// [`Error::ScratchTooSmall`] and the errors of schema encoding.
pub fn encode_schema_message<'s, A: Allocator>(
    scratch: &'s mut [u8],
    schema: &crate::datatypes::Schema<'_, A>,
    endianness: super::Endianness,
    alkaid: bool,
) -> Result<&'s [u8]> {
    let mut b = FlatBufferBuilder::new(scratch);
    let s = super::schema::encode_schema(&mut b, schema, endianness, alkaid)?;
    let m = encode_message::<A>(&mut b, HEADER_SCHEMA, s, 0, None, alkaid)?;
    b.finish(m)
}

/// Encodes a `Message` whose header is a `RecordBatch`; returns the flatbuffer.
///
/// # Errors
/// [`Error::ScratchTooSmall`].
pub fn encode_record_batch_message<'s, A: Allocator>(
    scratch: &'s mut [u8],
    header: &RecordBatchHeader<'_>,
    body_length: i64,
    metadata: Option<&Metadata<'_, A>>,
    alkaid: bool,
) -> Result<&'s [u8]> {
    let mut b = FlatBufferBuilder::new(scratch);
    let rb = encode_record_batch(&mut b, header)?;
    let m = encode_message(
        &mut b,
        HEADER_RECORD_BATCH,
        rb,
        body_length,
        metadata,
        alkaid,
    )?;
    b.finish(m)
}

/// Encodes a `Message` whose header is a `DictionaryBatch`; returns the flatbuffer.
///
/// # Errors
/// [`Error::ScratchTooSmall`].
pub fn encode_dictionary_batch_message<'s, A: Allocator>(
    scratch: &'s mut [u8],
    id: i64,
    is_delta: bool,
    header: &RecordBatchHeader<'_>,
    body_length: i64,
) -> Result<&'s [u8]> {
    let mut b = FlatBufferBuilder::new(scratch);
    let rb = encode_record_batch(&mut b, header)?;
    b.start_table()?;
    b.add_i64(0, id, 0)?;
    b.add_offset(1, rb)?;
    b.add_bool(2, is_delta, false)?;
    let d = b.end_table()?;
    let m = encode_message::<A>(&mut b, HEADER_DICTIONARY_BATCH, d, body_length, None, false)?;
    b.finish(m)
}

/// Encodes a file `Footer`; returns the flatbuffer.
///
/// # Errors
/// [`Error::ScratchTooSmall`] and the errors of schema encoding.
pub fn encode_footer<'s, A: Allocator>(
    scratch: &'s mut [u8],
    schema: &crate::datatypes::Schema<'_, A>,
    endianness: super::Endianness,
    dictionaries: &[Block],
    record_batches: &[Block],
    alkaid: bool,
) -> Result<&'s [u8]> {
    let mut b = FlatBufferBuilder::new(scratch);
    let blocks = |b: &mut FlatBufferBuilder<'_>, v: &[Block]| -> Result<WIPOffset> {
        b.start_vector(v.len(), 24, 8)?;
        for blk in v.iter().rev() {
            b.push_element(&blk.to_bytes())?;
        }
        b.end_vector()
    };
    let rbs = blocks(&mut b, record_batches)?;
    let dicts = blocks(&mut b, dictionaries)?;
    let s = super::schema::encode_schema(&mut b, schema, endianness, alkaid)?;
    b.start_table()?;
    b.add_i16(0, MetadataVersion::V5 as i16, 0)?;
    b.add_offset(1, s)?;
    b.add_offset(2, dicts)?;
    b.add_offset(3, rbs)?;
    let f = b.end_table()?;
    b.finish(f)
}

/// A decoded `RecordBatch` header: views into the message bytes.
#[derive(Debug, Clone, Copy)]
pub struct RecordBatchView<'b> {
    /// Number of rows.
    pub length: i64,
    nodes: Option<Vector<'b>>,
    buffers: Option<Vector<'b>>,
    /// Codec when the body is compressed.
    pub compression: Option<CompressionCodec>,
    variadic: Option<Vector<'b>>,
}

impl<'b> RecordBatchView<'b> {
    fn decode(t: &Table<'b>) -> Result<Self> {
        let compression = match t.get_table(3)? {
            Some(c) => {
                if c.get_u8(1, 0)? != 0 {
                    return Err(Error::UnsupportedType);
                }
                Some(match c.get_u8(0, 0)? {
                    0 => CompressionCodec::Lz4Frame,
                    1 => CompressionCodec::Zstd,
                    _ => return Err(Error::UnsupportedType),
                })
            }
            None => None,
        };
        Ok(RecordBatchView {
            length: t.get_i64(0, 0)?,
            nodes: t.get_vector(1, 16)?,
            buffers: t.get_vector(2, 16)?,
            compression,
            variadic: t.get_vector(4, 8)?,
        })
    }

    /// Number of field nodes.
    pub fn num_nodes(&self) -> usize {
        self.nodes.map_or(0, |v| v.len())
    }

    /// Field node `i`.
    ///
    /// # Errors
    /// [`Error::InvalidFlatbuffer`] when `i` is out of range.
    pub fn node(&self, i: usize) -> Result<FieldNode> {
        let e = self.nodes.ok_or(Error::InvalidFlatbuffer)?.element(i)?;
        let (a, b) = pair_i64(e)?;
        Ok(FieldNode {
            length: a,
            null_count: b,
        })
    }

    /// Number of buffers.
    pub fn num_buffers(&self) -> usize {
        self.buffers.map_or(0, |v| v.len())
    }

    /// Buffer `i`.
    ///
    /// # Errors
    /// [`Error::InvalidFlatbuffer`] when `i` is out of range.
    pub fn buffer(&self, i: usize) -> Result<BufferSpec> {
        let e = self.buffers.ok_or(Error::InvalidFlatbuffer)?.element(i)?;
        let (a, b) = pair_i64(e)?;
        Ok(BufferSpec {
            offset: a,
            length: b,
        })
    }

    /// Number of variadic buffer counts.
    pub fn num_variadic_counts(&self) -> usize {
        self.variadic.map_or(0, |v| v.len())
    }

    /// Variadic buffer count `i`.
    ///
    /// # Errors
    /// [`Error::InvalidFlatbuffer`] when `i` is out of range.
    pub fn variadic_count(&self, i: usize) -> Result<i64> {
        self.variadic.ok_or(Error::InvalidFlatbuffer)?.get_i64(i)
    }
}

fn pair_i64(e: &[u8]) -> Result<(i64, i64)> {
    let mut a = [0u8; 8];
    let mut b = [0u8; 8];
    a.copy_from_slice(e.get(..8).ok_or(Error::InvalidFlatbuffer)?);
    b.copy_from_slice(e.get(8..16).ok_or(Error::InvalidFlatbuffer)?);
    Ok((i64::from_le_bytes(a), i64::from_le_bytes(b)))
}

/// The header of a decoded message.
#[derive(Debug, Clone, Copy)]
pub enum MessageHeader<'b> {
    /// A schema (decode with [`super::schema`]).
    Schema(Table<'b>),
    /// A record batch.
    RecordBatch(RecordBatchView<'b>),
    /// A dictionary batch: id, data, and whether it appends to the previous one.
    DictionaryBatch {
        /// Dictionary id.
        id: i64,
        /// The dictionary's values as a one-column batch.
        data: RecordBatchView<'b>,
        /// `true` when the values extend the existing dictionary.
        is_delta: bool,
    },
}

/// A decoded `Message`: views into the metadata bytes (zero copy).
#[derive(Debug, Clone, Copy)]
pub struct MessageView<'b> {
    /// Metadata version (V4 or V5).
    pub version: MetadataVersion,
    /// The header.
    pub header: MessageHeader<'b>,
    /// Length of the body that follows, in bytes.
    pub body_length: i64,
    table: Table<'b>,
}

impl<'b> MessageView<'b> {
    /// Decodes and verifies a `Message` flatbuffer.
    ///
    /// # Errors
    /// [`Error::InvalidFlatbuffer`]; [`Error::UnsupportedVersion`] for V1–V3;
    /// [`Error::UnsupportedType`] for tensors and unknown headers or codecs.
    pub fn decode(flatbuffer: &'b [u8]) -> Result<Self> {
        let t = Table::root(flatbuffer)?;
        let version = MetadataVersion::from_wire(t.get_i16(0, 0)?)?;
        let header_type = t.get_u8(1, 0)?;
        let h = t.get_table(2)?.ok_or(Error::InvalidFlatbuffer)?;
        let header = match header_type {
            HEADER_SCHEMA => MessageHeader::Schema(h),
            HEADER_RECORD_BATCH => MessageHeader::RecordBatch(RecordBatchView::decode(&h)?),
            HEADER_DICTIONARY_BATCH => MessageHeader::DictionaryBatch {
                id: h.get_i64(0, 0)?,
                data: RecordBatchView::decode(&h.get_table(1)?.ok_or(Error::InvalidFlatbuffer)?)?,
                is_delta: h.get_bool(2, false)?,
            },
            _ => return Err(Error::UnsupportedType),
        };
        let body_length = t.get_i64(3, 0)?;
        if body_length < 0 {
            return Err(Error::InvalidFlatbuffer);
        }
        Ok(MessageView {
            version,
            header,
            body_length,
            table: t,
        })
    }

    /// The `Message` table itself (its slot 4 holds the message's custom metadata).
    pub fn table(&self) -> &Table<'b> {
        &self.table
    }
}

/// A decoded file `Footer`: views into the footer bytes.
#[derive(Debug, Clone, Copy)]
pub struct FooterView<'b> {
    /// The footer's metadata version when it names V4 or V5; `None` when
    /// the field is absent (older writers left it out: it then reads as
    /// the flatbuffer default, V1) or names an older version. The readers
    /// do not rely on it: each message carries its own version, which they
    /// check.
    pub version: Option<MetadataVersion>,
    /// The schema table.
    pub schema: Table<'b>,
    dictionaries: Option<Vector<'b>>,
    record_batches: Option<Vector<'b>>,
}

impl<'b> FooterView<'b> {
    /// Decodes and verifies a `Footer` flatbuffer. Its `version` is not
    /// checked (see [`FooterView::version`]).
    ///
    /// # Errors
    /// [`Error::InvalidFlatbuffer`].
    pub fn decode(flatbuffer: &'b [u8]) -> Result<Self> {
        let t = Table::root(flatbuffer)?;
        Ok(FooterView {
            version: MetadataVersion::from_wire(t.get_i16(0, 0)?).ok(),
            schema: t.get_table(1)?.ok_or(Error::InvalidFlatbuffer)?,
            dictionaries: t.get_vector(2, 24)?,
            record_batches: t.get_vector(3, 24)?,
        })
    }

    /// Number of dictionary blocks.
    pub fn num_dictionaries(&self) -> usize {
        self.dictionaries.map_or(0, |v| v.len())
    }

    /// Dictionary block `i`.
    ///
    /// # Errors
    /// [`Error::InvalidFlatbuffer`] when out of range.
    pub fn dictionary(&self, i: usize) -> Result<Block> {
        Block::from_bytes(
            self.dictionaries
                .ok_or(Error::InvalidFlatbuffer)?
                .element(i)?,
        )
    }

    /// Number of record batch blocks.
    pub fn num_record_batches(&self) -> usize {
        self.record_batches.map_or(0, |v| v.len())
    }

    /// Record batch block `i`.
    ///
    /// # Errors
    /// [`Error::InvalidFlatbuffer`] when out of range.
    pub fn record_batch(&self, i: usize) -> Result<Block> {
        Block::from_bytes(
            self.record_batches
                .ok_or(Error::InvalidFlatbuffer)?
                .element(i)?,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ipc::Endianness;
    use crate::Global;

    #[test]
    fn record_batch_message_round_trip() {
        let nodes = [
            FieldNode {
                length: 5,
                null_count: 1,
            },
            FieldNode {
                length: 5,
                null_count: 0,
            },
        ];
        let buffers = [
            BufferSpec {
                offset: 0,
                length: 1,
            },
            BufferSpec {
                offset: 64,
                length: 20,
            },
            BufferSpec {
                offset: 128,
                length: 0,
            },
        ];
        let h = RecordBatchHeader {
            length: 5,
            nodes: &nodes,
            buffers: &buffers,
            compression: Some(CompressionCodec::Zstd),
            variadic_buffer_counts: &[3],
        };
        let mut scratch = [0u8; 1024];
        let fb = encode_record_batch_message::<Global>(&mut scratch, &h, 192, None, false).unwrap();
        let m = MessageView::decode(fb).unwrap();
        assert_eq!(m.version, MetadataVersion::V5);
        assert_eq!(m.body_length, 192);
        let MessageHeader::RecordBatch(rb) = m.header else {
            panic!("not a record batch")
        };
        assert_eq!(rb.length, 5);
        assert_eq!(rb.num_nodes(), 2);
        assert_eq!(rb.node(0).unwrap(), nodes[0]);
        assert_eq!(rb.num_buffers(), 3);
        assert_eq!(rb.buffer(1).unwrap(), buffers[1]);
        assert!(rb.buffer(3).is_err());
        assert_eq!(rb.compression, Some(CompressionCodec::Zstd));
        assert_eq!(rb.variadic_count(0).unwrap(), 3);
    }

    #[test]
    fn dictionary_and_footer_round_trip() {
        let nodes = [FieldNode {
            length: 3,
            null_count: 0,
        }];
        let h = RecordBatchHeader {
            length: 3,
            nodes: &nodes,
            buffers: &[],
            compression: None,
            variadic_buffer_counts: &[],
        };
        let mut scratch = [0u8; 1024];
        let fb = encode_dictionary_batch_message::<Global>(&mut scratch, 42, true, &h, 0).unwrap();
        match MessageView::decode(fb).unwrap().header {
            MessageHeader::DictionaryBatch { id, data, is_delta } => {
                assert_eq!((id, is_delta, data.length), (42, true, 3));
            }
            other => panic!("{other:?}"),
        }
        let schema = crate::ipc::schema::tests::every_type_schema();
        let blocks = [Block {
            offset: 8,
            meta_data_length: 200,
            body_length: 64,
        }];
        let mut big = std::vec![0u8; 16 * 1024];
        let fb = encode_footer(&mut big, &schema, Endianness::Little, &[], &blocks, false).unwrap();
        let f = FooterView::decode(fb).unwrap();
        assert_eq!(f.num_dictionaries(), 0);
        assert_eq!(f.num_record_batches(), 1);
        assert_eq!(f.record_batch(0).unwrap(), blocks[0]);
        let (s, _) = crate::ipc::schema::Decoder::new(Global, Default::default())
            .schema(&f.schema)
            .unwrap();
        assert_eq!(s, schema);
    }

    #[test]
    fn old_versions_are_refused() {
        assert_eq!(
            MetadataVersion::from_wire(2),
            Err(Error::UnsupportedVersion)
        );
        assert_eq!(
            MetadataVersion::from_wire(0),
            Err(Error::UnsupportedVersion)
        );
        assert_eq!(MetadataVersion::from_wire(3), Ok(MetadataVersion::V4));
    }
}
