//! IPC writers: [`StreamWriter`] and [`FileWriter`] over `embedded_io::Write`
//! ("IPC Streaming Format" and "IPC File Format").
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

mod body;
#[cfg(feature = "dictionary")]
mod dictionary;

use allocator_api2::alloc::Allocator;
use embedded_io::Write;

#[cfg(feature = "compression")]
use self::body::Compressing;
use self::body::{visit_array, BodyWriter, Planner};
#[cfg(feature = "dictionary")]
use self::dictionary::{DictionaryAction, DictionaryTracker};
use super::compression::{BuiltinCodecs, CodecSet};
use super::io::PositionWriter;
#[cfg(feature = "compression")]
use super::message::BufferSpec;
/// The body compression codecs [`IpcWriteOptions::compression`] names.
pub use super::message::CompressionCodec;
use super::message::{
    encode_dictionary_batch_message, encode_footer, encode_record_batch_message,
    encode_schema_message, Block, RecordBatchHeader,
};
use super::Endianness;
use crate::array::{ArrayRef, RecordBatch};
use crate::buffer::{MutableBuffer, TryVec};
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

/// Whether a writer may take `batch`: [`Error::InvalidBuilderState`] once
/// finished, [`Error::SchemaMismatch`] when the batch's fields are not the
/// writer's.
fn check_batch<A: Allocator + Clone>(
    finished: bool,
    schema: &Schema<'_, A>,
    batch: &RecordBatch<'_, A>,
) -> Result<()> {
    if finished {
        return Err(Error::InvalidBuilderState);
    }
    if batch.schema().fields() != schema.fields() {
        return Err(Error::SchemaMismatch);
    }
    Ok(())
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
    fn check(&self) -> Result<()> {
        if !matches!(self.alignment, 8 | 16 | 32 | 64) {
            return Err(Error::InvalidArgument);
        }
        Ok(())
    }
}

/// Runs `encode` over `scratch`, growing it through its allocator until the
/// flatbuffer fits; returns where the flatbuffer starts in the scratch.
fn encode_in<A: Allocator, F>(
    scratch: &mut MutableBuffer<A>,
    options: &IpcWriteOptions,
    mut encode: F,
) -> Result<usize>
where
    F: FnMut(&mut [u8]) -> Result<usize>,
{
    if scratch.is_empty() {
        scratch.try_extend_zeros(options.initial_scratch.max(256))?;
    }
    loop {
        match encode(scratch.as_slice_mut()) {
            Err(Error::ScratchTooSmall) => {
                let n = scratch.len();
                if n >= options.max_metadata_size {
                    return Err(Error::LimitExceeded);
                }
                scratch.try_extend_zeros(n)?;
            }
            r => return r,
        }
    }
}

/// What both writers share: options, metadata scratch, the body planner and
/// the dictionary tracker.
struct Encoder<'a, A: Allocator + Clone, S: CodecSet> {
    options: IpcWriteOptions,
    scratch: MutableBuffer<A>,
    planner: Planner<A>,
    #[cfg(feature = "dictionary")]
    dictionaries: DictionaryTracker<'a, A>,
    /// The lifetime of the dictionaries the tracker keeps.
    #[cfg(not(feature = "dictionary"))]
    dictionaries: core::marker::PhantomData<&'a ()>,
    #[cfg_attr(not(feature = "compression"), allow(dead_code))]
    codecs: S,
    /// Compressed path: the body (reused, never cleared: see
    /// [`Compressing`]), one materialised buffer, the buffer extents.
    #[cfg(feature = "compression")]
    body: MutableBuffer<A>,
    #[cfg(feature = "compression")]
    tmp: MutableBuffer<A>,
    #[cfg(feature = "compression")]
    specs: TryVec<BufferSpec, A>,
}

impl<'a, A: Allocator + Clone, S: CodecSet> Encoder<'a, A, S> {
    fn new_in(options: IpcWriteOptions, mut codecs: S, alloc: A) -> Result<Self> {
        options.check()?;
        if let Some(c) = options.compression {
            // Without the `compression` feature no codec is usable.
            #[cfg(not(feature = "compression"))]
            let _ = (c, &mut codecs);
            #[cfg(feature = "compression")]
            let usable = codecs.get(c).is_some_and(|codec| codec.can_compress());
            #[cfg(not(feature = "compression"))]
            let usable = false;
            if !usable {
                return Err(Error::UnsupportedType);
            }
        }
        Ok(Encoder {
            options,
            scratch: MutableBuffer::new_in(alloc.clone()),
            planner: Planner::new_in(alloc.clone(), options.alignment),
            #[cfg(feature = "dictionary")]
            dictionaries: DictionaryTracker::new_in(alloc.clone()),
            #[cfg(not(feature = "dictionary"))]
            dictionaries: core::marker::PhantomData,
            codecs,
            #[cfg(feature = "compression")]
            body: MutableBuffer::new_in(alloc.clone()),
            #[cfg(feature = "compression")]
            tmp: MutableBuffer::new_in(alloc.clone()),
            #[cfg(feature = "compression")]
            specs: TryVec::new_in(alloc),
        })
    }

    /// Writes an encapsulated message's prefix and padded flatbuffer; returns
    /// its metadata length (prefix + flatbuffer + padding).
    fn write_metadata<W: Write>(&self, out: &mut PositionWriter<W>, start: usize) -> Result<usize> {
        let fb = self
            .scratch
            .as_slice()
            .get(start..)
            .ok_or(Error::InvalidBuilderState)?;
        let total = body::padded(8 + fb.len(), self.options.alignment);
        let len = i32::try_from(total - 8).map_err(|_| Error::LimitExceeded)?;
        out.write_all(&CONTINUATION)?;
        out.write_all(&len.to_le_bytes())?;
        out.write_all(fb)?;
        out.write_zeros(total - 8 - fb.len())?;
        Ok(total)
    }

    fn write_schema<W: Write>(
        &mut self,
        out: &mut PositionWriter<W>,
        schema: &Schema<'_, A>,
    ) -> Result<()> {
        for f in schema.fields().iter() {
            super::check_layouts(f.data_type(), 0)?;
        }
        let alkaid = self.options.alkaid;
        let start = encode_in(&mut self.scratch, &self.options, |buf| {
            let n = buf.len();
            Ok(n - encode_schema_message(buf, schema, Endianness::NATIVE, alkaid)?.len())
        })?;
        self.write_metadata(out, start)?;
        Ok(())
    }

    /// Plans, encodes and writes one record or dictionary batch.
    fn write_batch<W: Write>(
        &mut self,
        out: &mut PositionWriter<W>,
        columns: &[ArrayRef<'_, A>],
        num_rows: usize,
        dictionary: Option<(i64, bool)>,
        metadata: Option<&Metadata<'_, A>>,
    ) -> Result<Block> {
        self.planner.clear();
        for c in columns {
            visit_array(&mut self.planner, c)?;
        }
        // Always `None` without the `compression` feature (`new_in`).
        let compression = self
            .options
            .compression
            .filter(|_| cfg!(feature = "compression"));
        #[cfg_attr(not(feature = "compression"), allow(unused_mut))]
        let mut body_len = self.planner.body_len;
        #[cfg(feature = "compression")]
        if let Some(codec) = compression {
            self.specs.clear();
            let codec = self.codecs.get(codec).ok_or(Error::UnsupportedType)?;
            let mut v = Compressing {
                codec,
                body: &mut self.body,
                tmp: &mut self.tmp,
                specs: &mut self.specs,
                alignment: self.options.alignment,
                end: 0,
            };
            v.reserve_for(&self.planner.buffers)?;
            for c in columns {
                visit_array(&mut v, c)?;
            }
            body_len = v.end;
        }
        let alkaid = self.options.alkaid;
        let offset = out.position() as i64;
        let planner = &self.planner;
        let header = RecordBatchHeader {
            length: num_rows as i64,
            nodes: &planner.nodes,
            buffers: match compression {
                #[cfg(feature = "compression")]
                Some(_) => &self.specs,
                _ => &planner.buffers,
            },
            compression,
            #[cfg(feature = "views")]
            variadic_buffer_counts: &planner.variadic,
            #[cfg(not(feature = "views"))]
            variadic_buffer_counts: &[],
        };
        let start = encode_in(&mut self.scratch, &self.options, |buf| {
            let n = buf.len();
            let fb = match dictionary {
                Some((id, delta)) => {
                    encode_dictionary_batch_message::<A>(buf, id, delta, &header, body_len as i64)?
                }
                None => {
                    encode_record_batch_message(buf, &header, body_len as i64, metadata, alkaid)?
                }
            };
            Ok(n - fb.len())
        })?;
        let meta_len = self.write_metadata(out, start)?;
        let before = out.position();
        match compression {
            #[cfg(feature = "compression")]
            Some(_) => {
                let body = self
                    .body
                    .as_slice()
                    .get(..body_len)
                    .ok_or(Error::InvalidBuilderState)?;
                out.write_all(body)?;
            }
            _ => {
                let mut w = BodyWriter {
                    out,
                    alignment: self.options.alignment,
                };
                for c in columns {
                    visit_array(&mut w, c)?;
                }
            }
        }
        if out.position() - before != body_len as u64 {
            return Err(Error::InvalidBuilderState);
        }
        Ok(Block {
            offset,
            meta_data_length: i32::try_from(meta_len).map_err(|_| Error::LimitExceeded)?,
            body_length: body_len as i64,
        })
    }

    /// Writes the dictionary batches `batch` needs; returns their blocks
    /// through `blocks` when given (file format).
    #[cfg(feature = "dictionary")]
    fn write_dictionaries<W: Write>(
        &mut self,
        out: &mut PositionWriter<W>,
        batch: &RecordBatch<'a, A>,
        file: bool,
        mut blocks: Option<&mut TryVec<Block, A>>,
    ) -> Result<()> {
        let mut pending = TryVec::new_in(self.scratch.allocator().clone());
        self.dictionaries.collect(batch, &mut pending)?;
        for (id, values) in pending.iter() {
            match self.dictionaries.action(*id, values, file)? {
                DictionaryAction::Skip => {}
                DictionaryAction::Write { delta_from } => {
                    let (delta, part) = match delta_from {
                        Some(old_len) => {
                            use crate::array::Array;
                            (true, values.slice(old_len, values.len() - old_len)?)
                        }
                        None => (false, values.clone()),
                    };
                    let rows = crate::array::Array::len(&part);
                    let block = self.write_batch(
                        out,
                        core::slice::from_ref(&part),
                        rows,
                        Some((*id, delta)),
                        None,
                    )?;
                    if let Some(b) = blocks.as_deref_mut() {
                        b.try_push(block)?;
                    }
                    self.dictionaries.record(*id, values.clone())?;
                }
            }
        }
        Ok(())
    }
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
    schema: Schema<'a, A>,
    enc: Encoder<'a, A, S>,
    finished: bool,
}

impl<'a, W: Write, A: Allocator + Clone> StreamWriter<'a, W, A> {
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
    pub fn try_new_in(
        sink: W,
        schema: &Schema<'a, A>,
        options: IpcWriteOptions,
        alloc: A,
    ) -> Result<Self> {
        Self::try_new_with_codecs_in(sink, schema, options, BuiltinCodecs::new(), alloc)
    }
}

impl<'a, W: Write, A: Allocator + Clone, S: CodecSet> StreamWriter<'a, W, A, S> {
    /// As [`StreamWriter::try_new_in`] with the codecs of `codecs` (e.g. a
    /// ZSTD codec from the std shim).
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
        let mut w = StreamWriter {
            out: PositionWriter::new(sink),
            schema: schema.clone(),
            enc: Encoder::new_in(options, codecs, alloc)?,
            finished: false,
        };
        w.enc.write_schema(&mut w.out, schema)?;
        Ok(w)
    }

    /// Writes a record batch (after the dictionary batches it needs).
    ///
    /// # Errors
    /// [`Error::SchemaMismatch`] when the batch's schema differs from the
    /// stream's; [`Error::InvalidBuilderState`] after [`Self::finish`]; I/O
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
        check_batch(self.finished, &self.schema, batch)?;
        #[cfg(feature = "dictionary")]
        self.enc
            .write_dictionaries(&mut self.out, batch, false, None)?;
        self.enc.write_batch(
            &mut self.out,
            batch.columns(),
            batch.num_rows(),
            None,
            metadata,
        )?;
        Ok(())
    }

    /// Writes the end-of-stream marker (`0xFFFFFFFF 0x00000000`) and flushes.
    ///
    /// # Errors
    /// I/O errors.
    pub fn finish(&mut self) -> Result<()> {
        if !self.finished {
            self.out.write_all(&CONTINUATION)?;
            self.out.write_all(&[0; 4])?;
            self.out.flush()?;
            self.finished = true;
        }
        Ok(())
    }

    /// Bytes written so far.
    pub fn position(&self) -> u64 {
        self.out.position()
    }

    /// The sink.
    pub fn get_ref(&self) -> &W {
        self.out.get_ref()
    }

    /// The sink, mutably (e.g. to take an error the sink kept; writing to
    /// it directly corrupts the stream).
    pub fn get_mut(&mut self) -> &mut W {
        self.out.get_mut()
    }

    /// Unwraps the sink (without finishing the stream).
    pub fn into_inner(self) -> W {
        self.out.into_inner()
    }
}

impl<W: Write, A: Allocator + Clone, S: CodecSet> core::fmt::Debug for StreamWriter<'_, W, A, S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("StreamWriter")
            .field("position", &self.out.position())
            .field("finished", &self.finished)
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
    schema: Schema<'a, A>,
    enc: Encoder<'a, A, S>,
    dictionary_blocks: TryVec<Block, A>,
    record_blocks: TryVec<Block, A>,
    finished: bool,
}

impl<'a, W: Write, A: Allocator + Clone> FileWriter<'a, W, A> {
    /// Starts a file of batches of `schema`: writes the magic and the schema.
    ///
    /// # Errors
    /// As [`StreamWriter::try_new_in`].
    pub fn try_new_in(
        sink: W,
        schema: &Schema<'a, A>,
        options: IpcWriteOptions,
        alloc: A,
    ) -> Result<Self> {
        Self::try_new_with_codecs_in(sink, schema, options, BuiltinCodecs::new(), alloc)
    }
}

impl<'a, W: Write, A: Allocator + Clone, S: CodecSet> FileWriter<'a, W, A, S> {
    /// As [`FileWriter::try_new_in`] with the codecs of `codecs`.
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
        let mut w = FileWriter {
            out: PositionWriter::new(sink),
            schema: schema.clone(),
            enc: Encoder::new_in(options, codecs, alloc.clone())?,
            dictionary_blocks: TryVec::new_in(alloc.clone()),
            record_blocks: TryVec::new_in(alloc),
            finished: false,
        };
        let magic = if options.alkaid {
            ALKAID_MAGIC
        } else {
            ARROW_MAGIC
        };
        w.out.write_all(magic)?;
        w.out.write_zeros(8 - magic.len())?;
        w.enc.write_schema(&mut w.out, schema)?;
        Ok(w)
    }

    /// Writes a record batch (after the dictionary batches it needs).
    ///
    /// # Errors
    /// As [`StreamWriter::write`], and [`Error::DictionaryReplacementInFile`]
    /// when a dictionary changes other than by appending.
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
        check_batch(self.finished, &self.schema, batch)?;
        #[cfg(feature = "dictionary")]
        self.enc.write_dictionaries(
            &mut self.out,
            batch,
            true,
            Some(&mut self.dictionary_blocks),
        )?;
        let block = self.enc.write_batch(
            &mut self.out,
            batch.columns(),
            batch.num_rows(),
            None,
            metadata,
        )?;
        self.record_blocks.try_push(block)
    }

    /// Writes the end-of-stream marker, the footer, its length and the
    /// closing magic, and flushes.
    ///
    /// # Errors
    /// I/O and allocation errors.
    pub fn finish(&mut self) -> Result<()> {
        if self.finished {
            return Ok(());
        }
        self.out.write_all(&CONTINUATION)?;
        self.out.write_all(&[0; 4])?;
        let alkaid = self.enc.options.alkaid;
        let (schema, dicts, records) = (&self.schema, &self.dictionary_blocks, &self.record_blocks);
        let start = encode_in(&mut self.enc.scratch, &self.enc.options, |buf| {
            let n = buf.len();
            Ok(n - encode_footer(buf, schema, Endianness::NATIVE, dicts, records, alkaid)?.len())
        })?;
        let footer = self
            .enc
            .scratch
            .as_slice()
            .get(start..)
            .ok_or(Error::InvalidBuilderState)?;
        let len = i32::try_from(footer.len()).map_err(|_| Error::LimitExceeded)?;
        self.out.write_all(footer)?;
        self.out.write_all(&len.to_le_bytes())?;
        self.out
            .write_all(if alkaid { ALKAID_MAGIC } else { ARROW_MAGIC })?;
        self.out.flush()?;
        self.finished = true;
        Ok(())
    }

    /// Bytes written so far.
    pub fn position(&self) -> u64 {
        self.out.position()
    }

    /// The sink.
    pub fn get_ref(&self) -> &W {
        self.out.get_ref()
    }

    /// The sink, mutably (e.g. to take an error the sink kept; writing to
    /// it directly corrupts the file).
    pub fn get_mut(&mut self) -> &mut W {
        self.out.get_mut()
    }

    /// Unwraps the sink (without finishing the file).
    pub fn into_inner(self) -> W {
        self.out.into_inner()
    }
}

impl<W: Write, A: Allocator + Clone, S: CodecSet> core::fmt::Debug for FileWriter<'_, W, A, S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("FileWriter")
            .field("position", &self.out.position())
            .field("record_batches", &self.record_blocks.len())
            .finish()
    }
}
