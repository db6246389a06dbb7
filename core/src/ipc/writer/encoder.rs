//! The sans-IO IPC encoder: [`StreamEncoder`] and [`FileEncoder`] turn a
//! schema, a record batch (with the dictionary batches it needs) or the end
//! of the stream into the pieces of its encapsulated messages
//! ([`EncodedMessage`]) and touch no I/O trait. The sync writers
//! ([`StreamWriter`](super::StreamWriter), [`FileWriter`](super::FileWriter)),
//! the std shim's vectored writers and any async front-end write those
//! pieces in order and produce the same bytes ("IPC Streaming Format",
//! "IPC File Format", "Encapsulated message format").
//!
//! Every output must be written in full and in order: the encoder counts
//! the bytes it produced (the file footer's block offsets come from that
//! count). After an error part-way through a batch the encoder refuses
//! further work ([`Error::InvalidBuilderState`]): its dictionary state may
//! no longer match what a reader saw.

use allocator_api2::alloc::Allocator;

#[cfg(feature = "compression")]
use super::body::Compressing;
use super::body::{padded, visit_array, BodyWriter, Out, Planner, Sink};
#[cfg(feature = "dictionary")]
use super::dictionary::{DictionaryAction, DictionaryTracker};
use super::pieces::{push_piece, zeros, Collector, EncodedMessage, Piece};
use super::{IpcWriteOptions, ALKAID_MAGIC, ARROW_MAGIC, CONTINUATION};
use crate::array::{ArrayRef, RecordBatch};
use crate::buffer::{MutableBuffer, TryVec};
use crate::datatypes::{Metadata, Schema};
use crate::error::{Error, ErrorKind, Result};
use crate::ipc::compression::{BuiltinCodecs, CodecSet};
#[cfg(feature = "compression")]
use crate::ipc::message::BufferSpec;
use crate::ipc::message::{
    encode_dictionary_batch_message, encode_footer, encode_record_batch_message,
    encode_schema_message, Block, RecordBatchHeader,
};
use crate::ipc::Endianness;

/// The end-of-stream marker: a continuation marker and a zero length.
static END_OF_STREAM: [u8; 8] = [0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0];

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
            Err(e) if e.kind() == ErrorKind::ScratchTooSmall => {
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

/// What both encoders share: options, the metadata scratch, the side buffer
/// and pieces of the current output, the body planner, the dictionary
/// tracker, the compression scratch and the byte count.
///
/// Two ways out: [`EncodedMessage`] pieces (the public encoders), or a
/// [`Sink`] the bytes are passed to as they are encoded (the sync writers,
/// which then need no heap for pieces or transformed buffers).
pub(crate) struct Encoder<'a, A: Allocator + Clone, S: CodecSet> {
    pub(crate) options: IpcWriteOptions,
    schema: Schema<'a, A>,
    scratch: MutableBuffer<A>,
    planner: Planner<A>,
    #[cfg(feature = "dictionary")]
    dictionaries: DictionaryTracker<'a, A>,
    #[cfg_attr(not(feature = "compression"), allow(dead_code))]
    codecs: S,
    /// Compressed path: the bodies of the current output (reused, never
    /// cleared: see [`Compressing`]), one materialised buffer, the buffer
    /// extents.
    #[cfg(feature = "compression")]
    body: MutableBuffer<A>,
    #[cfg(feature = "compression")]
    tmp: MutableBuffer<A>,
    #[cfg(feature = "compression")]
    specs: TryVec<BufferSpec, A>,
    /// End of the compressed bodies of the current output in `body`.
    #[cfg(feature = "compression")]
    body_end: usize,
    /// Prefixes, flatbuffers and transformed body buffers of the current
    /// output.
    side: MutableBuffer<A>,
    pieces: TryVec<Piece, A>,
    /// Dictionary blocks: the current output's (stream), or every one so
    /// far (file: the footer needs them), the current output's from
    /// `first_block`.
    #[cfg(feature = "dictionary")]
    dictionary_blocks: TryVec<Block, A>,
    #[cfg(feature = "dictionary")]
    first_block: usize,
    /// Record batch blocks so far (file only).
    pub(crate) record_blocks: TryVec<Block, A>,
    record_block: Option<Block>,
    /// Bytes of every output so far, and at the start of the current one.
    pub(crate) position: u64,
    out_start: u64,
    file: bool,
    started: bool,
    finished: bool,
    failed: bool,
}

impl<'a, A: Allocator + Clone, S: CodecSet> Encoder<'a, A, S> {
    pub(crate) fn new_in(
        schema: &Schema<'a, A>,
        options: IpcWriteOptions,
        mut codecs: S,
        alloc: A,
        file: bool,
    ) -> Result<Self> {
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
            schema: schema.clone(),
            scratch: MutableBuffer::new_in(alloc.clone()),
            planner: Planner::new_in(alloc.clone(), options.alignment),
            #[cfg(feature = "dictionary")]
            dictionaries: DictionaryTracker::new_in(alloc.clone()),
            codecs,
            #[cfg(feature = "compression")]
            body: MutableBuffer::new_in(alloc.clone()),
            #[cfg(feature = "compression")]
            tmp: MutableBuffer::new_in(alloc.clone()),
            #[cfg(feature = "compression")]
            specs: TryVec::new_in(alloc.clone()),
            #[cfg(feature = "compression")]
            body_end: 0,
            side: MutableBuffer::new_in(alloc.clone()),
            pieces: TryVec::new_in(alloc.clone()),
            #[cfg(feature = "dictionary")]
            dictionary_blocks: TryVec::new_in(alloc.clone()),
            #[cfg(feature = "dictionary")]
            first_block: 0,
            record_blocks: TryVec::new_in(alloc),
            record_block: None,
            position: 0,
            out_start: 0,
            file,
            started: false,
            finished: false,
            failed: false,
        })
    }

    /// Starts an output: clears the previous one.
    fn begin(&mut self) -> Result<()> {
        self.begin_check()?;
        self.side.clear();
        self.pieces.clear();
        #[cfg(feature = "compression")]
        {
            self.body_end = 0;
        }
        #[cfg(feature = "dictionary")]
        {
            if !self.file {
                self.dictionary_blocks.clear();
            }
            self.first_block = self.dictionary_blocks.len();
        }
        self.record_block = None;
        self.out_start = self.position;
        Ok(())
    }

    /// Ends an output with the outcome `r` of its encoding: on error,
    /// forgets the bytes produced and refuses further work.
    fn end(&mut self, r: Result<()>) -> Result<EncodedMessage<'_>> {
        if let Err(e) = r {
            self.failed = true;
            self.position = self.out_start;
            self.pieces.clear();
            return Err(e);
        }
        Ok(EncodedMessage {
            pieces: self.pieces.as_slice(),
            side: self.side.as_slice(),
            #[cfg(feature = "compression")]
            body: self.body.as_slice(),
            #[cfg(not(feature = "compression"))]
            body: &[],
            offset: self.out_start,
            len: self.position - self.out_start,
            #[cfg(feature = "dictionary")]
            dictionary_blocks: self
                .dictionary_blocks
                .as_slice()
                .get(self.first_block..)
                .unwrap_or(&[]),
            #[cfg(not(feature = "dictionary"))]
            dictionary_blocks: &[],
            record_block: self.record_block,
        })
    }

    /// Ends a sync writer's output: an encoding error refuses further
    /// work; after an I/O error the writer may be asked again (the sink
    /// reports its error again, e.g. a closed pipe on `finish`).
    fn settle(&mut self, r: Result<()>) -> Result<()> {
        if let Err(e) = r {
            if !matches!(e.kind(), ErrorKind::Io | ErrorKind::WriteZero) {
                self.failed = true;
            }
        }
        r
    }

    /// Emits constant bytes: to the sink, or as a piece.
    fn emit_static<O: Out>(&mut self, out: &mut O, bytes: &'static [u8]) -> Result<()> {
        if bytes.is_empty() {
            return Ok(());
        }
        match out.sink() {
            Some(f) => f(bytes)?,
            None => self.pieces.try_push(Piece::Static(bytes))?,
        }
        self.position += bytes.len() as u64;
        Ok(())
    }

    /// Emits an encapsulated message's prefix and the padded flatbuffer at
    /// `start` of the scratch: to the sink, or staged in the side buffer as
    /// a piece (placed at `at`, a placeholder, or appended). Returns the
    /// metadata length (prefix + flatbuffer + padding), not yet counted in
    /// the position.
    fn metadata<O: Out>(&mut self, out: &mut O, start: usize, at: Option<usize>) -> Result<usize> {
        let fb = self
            .scratch
            .as_slice()
            .get(start..)
            .ok_or(Error::InvalidBuilderState)?;
        let total = padded(8 + fb.len(), self.options.alignment);
        let len = i32::try_from(total - 8).map_err(|_| Error::LimitExceeded)?;
        let pad = zeros(total - 8 - fb.len());
        if let Some(f) = out.sink() {
            f(&CONTINUATION)?;
            f(&len.to_le_bytes())?;
            f(fb)?;
            f(pad)?;
            return Ok(total);
        }
        let side_at = self.side.len();
        self.side.try_extend_from_slice(&CONTINUATION)?;
        self.side.try_extend_from_slice(&len.to_le_bytes())?;
        self.side.try_extend_from_slice(fb)?;
        self.side.try_extend_from_slice(pad)?;
        let piece = Piece::Side {
            start: side_at,
            len: total,
        };
        match at {
            Some(i) => {
                *self
                    .pieces
                    .as_mut_slice()
                    .get_mut(i)
                    .ok_or(Error::InvalidBuilderState)? = piece
            }
            None => push_piece(&mut self.pieces, piece)?,
        }
        Ok(total)
    }

    /// The file magic and its padding (file format), then the schema
    /// message, unless already produced.
    fn start<O: Out>(&mut self, out: &mut O) -> Result<()> {
        if self.started {
            return Ok(());
        }
        if self.file {
            let magic = self.magic();
            self.emit_static(out, magic)?;
            self.emit_static(out, zeros(8 - magic.len()))?;
        }
        let schema = &self.schema;
        for f in schema.fields().iter() {
            crate::ipc::check_layouts(f.data_type(), 0)?;
        }
        let alkaid = self.options.alkaid;
        let start = encode_in(&mut self.scratch, &self.options, |buf| {
            let n = buf.len();
            Ok(n - encode_schema_message(buf, schema, Endianness::NATIVE, alkaid)?.len())
        })?;
        let len = self.metadata(out, start, None)?;
        self.position += len as u64;
        self.started = true;
        Ok(())
    }

    fn magic(&self) -> &'static [u8] {
        if self.options.alkaid {
            ALKAID_MAGIC
        } else {
            ARROW_MAGIC
        }
    }

    /// The schema message (after the magic, for the file format).
    pub(crate) fn encode_schema(&mut self) -> Result<EncodedMessage<'_>> {
        if self.started || self.finished {
            return Err(Error::InvalidBuilderState);
        }
        self.begin()?;
        let r = self.start(&mut ());
        self.end(r)
    }

    /// [`Self::encode_schema`] into `sink`.
    pub(crate) fn write_schema(&mut self, sink: Sink<'_>) -> Result<()> {
        if self.started || self.finished {
            return Err(Error::InvalidBuilderState);
        }
        self.begin()?;
        let r = self.start(&mut { sink });
        self.settle(r)
    }

    /// Whether a batch may be encoded.
    fn check(&self, batch: &RecordBatch<'a, A>) -> Result<()> {
        if self.finished {
            return Err(Error::InvalidBuilderState);
        }
        if batch.schema().fields() != self.schema.fields() {
            return Err(Error::SchemaMismatch);
        }
        self.begin_check()
    }

    fn begin_check(&self) -> Result<()> {
        if self.failed {
            return Err(Error::InvalidBuilderState);
        }
        Ok(())
    }

    /// The dictionary batches `batch` needs and the record batch (after the
    /// schema, the first time).
    pub(crate) fn encode_batch<'e>(
        &'e mut self,
        batch: &'e RecordBatch<'a, A>,
        metadata: Option<&Metadata<'_, A>>,
    ) -> Result<EncodedMessage<'e>> {
        self.check(batch)?;
        self.begin()?;
        let r = self.record_batch(&mut (), batch, metadata);
        self.end(r)
    }

    /// [`Self::encode_batch`] into `sink`.
    pub(crate) fn write_batch(
        &mut self,
        batch: &RecordBatch<'a, A>,
        metadata: Option<&Metadata<'_, A>>,
        sink: Sink<'_>,
    ) -> Result<()> {
        self.check(batch)?;
        self.begin()?;
        let r = self.record_batch(&mut { sink }, batch, metadata);
        self.settle(r)
    }

    fn record_batch<O: Out>(
        &mut self,
        out: &mut O,
        batch: &RecordBatch<'a, A>,
        metadata: Option<&Metadata<'_, A>>,
    ) -> Result<()> {
        self.start(out)?;
        #[cfg(feature = "dictionary")]
        self.dictionaries(out, batch)?;
        let block = self.batch(out, batch.columns(), batch.num_rows(), None, metadata)?;
        if self.file {
            self.record_blocks.try_push(block)?;
        }
        self.record_block = Some(block);
        Ok(())
    }

    /// The end-of-stream marker (after the schema if nothing was encoded);
    /// nothing once finished.
    pub(crate) fn finish_stream(&mut self) -> Result<EncodedMessage<'_>> {
        self.begin()?;
        let r = self.stream_end(&mut ());
        self.end(r)
    }

    /// [`Self::finish_stream`] into `sink`.
    pub(crate) fn write_finish_stream(&mut self, sink: Sink<'_>) -> Result<()> {
        self.begin()?;
        let r = self.stream_end(&mut { sink });
        self.settle(r)
    }

    fn stream_end<O: Out>(&mut self, out: &mut O) -> Result<()> {
        if self.finished {
            return Ok(());
        }
        self.start(out)?;
        self.emit_static(out, &END_OF_STREAM)?;
        self.finished = true;
        Ok(())
    }

    /// The end-of-stream marker, the footer, its length and the closing
    /// magic (after the magic and schema if nothing was encoded); nothing
    /// once finished.
    pub(crate) fn finish_file(&mut self) -> Result<EncodedMessage<'_>> {
        self.begin()?;
        let r = self.footer(&mut ());
        self.end(r)
    }

    /// [`Self::finish_file`] into `sink`.
    pub(crate) fn write_finish_file(&mut self, sink: Sink<'_>) -> Result<()> {
        self.begin()?;
        let r = self.footer(&mut { sink });
        self.settle(r)
    }

    fn footer<O: Out>(&mut self, out: &mut O) -> Result<()> {
        if self.finished {
            return Ok(());
        }
        self.start(out)?;
        self.emit_static(out, &END_OF_STREAM)?;
        let alkaid = self.options.alkaid;
        #[cfg(feature = "dictionary")]
        let dicts = self.dictionary_blocks.as_slice();
        #[cfg(not(feature = "dictionary"))]
        let dicts: &[Block] = &[];
        let (schema, records) = (&self.schema, &self.record_blocks);
        let start = encode_in(&mut self.scratch, &self.options, |buf| {
            let n = buf.len();
            Ok(n - encode_footer(buf, schema, Endianness::NATIVE, dicts, records, alkaid)?.len())
        })?;
        let footer = self
            .scratch
            .as_slice()
            .get(start..)
            .ok_or(Error::InvalidBuilderState)?;
        let len = i32::try_from(footer.len()).map_err(|_| Error::LimitExceeded)?;
        let n = footer.len() + 4;
        match out.sink() {
            Some(f) => {
                f(footer)?;
                f(&len.to_le_bytes())?;
            }
            None => {
                let at = self.side.len();
                self.side.try_extend_from_slice(footer)?;
                self.side.try_extend_from_slice(&len.to_le_bytes())?;
                push_piece(&mut self.pieces, Piece::Side { start: at, len: n })?;
            }
        }
        self.position += n as u64;
        let magic = self.magic();
        self.emit_static(out, magic)?;
        self.finished = true;
        Ok(())
    }

    /// Plans and encodes one record or dictionary batch: into pieces, or to
    /// the sink.
    fn batch<O: Out>(
        &mut self,
        out: &mut O,
        columns: &[ArrayRef<'_, A>],
        num_rows: usize,
        dictionary: Option<(i64, bool)>,
        metadata: Option<&Metadata<'_, A>>,
    ) -> Result<Block> {
        let offset = self.position;
        self.planner.clear();
        // Always `None` without the `compression` feature (`new_in`).
        let compression = self
            .options
            .compression
            .filter(|_| cfg!(feature = "compression"));
        // Pieces: the metadata goes first but depends on the body, so a
        // placeholder holds its place.
        let header_at = self.pieces.len();
        if out.sink().is_none() {
            self.pieces.try_push(Piece::Static(&[]))?;
        }
        let body_len;
        match compression {
            #[cfg(feature = "compression")]
            Some(codec) => {
                for c in columns {
                    visit_array(&mut self.planner, c)?;
                }
                self.specs.clear();
                let codec = self.codecs.get(codec).ok_or(Error::UnsupportedType)?;
                let mut v = Compressing {
                    codec,
                    body: &mut self.body,
                    tmp: &mut self.tmp,
                    specs: &mut self.specs,
                    alignment: self.options.alignment,
                    start: self.body_end,
                    end: self.body_end,
                };
                v.reserve_for(&self.planner.buffers)?;
                for c in columns {
                    visit_array(&mut v, c)?;
                }
                body_len = v.end - v.start;
                self.body_end = v.end;
            }
            _ if out.sink().is_some() => {
                for c in columns {
                    visit_array(&mut self.planner, c)?;
                }
                body_len = self.planner.body_len;
            }
            _ => {
                let mut v = Collector {
                    planner: &mut self.planner,
                    side: &mut self.side,
                    pieces: &mut self.pieces,
                    alignment: self.options.alignment,
                };
                for c in columns {
                    visit_array(&mut v, c)?;
                }
                body_len = self.planner.body_len;
            }
        }
        let alkaid = self.options.alkaid;
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
        let meta_len = self.metadata(out, start, Some(header_at))?;
        match out.sink() {
            Some(f) => match compression {
                #[cfg(feature = "compression")]
                Some(_) => {
                    let body = self
                        .body
                        .as_slice()
                        .get(self.body_end - body_len..self.body_end)
                        .ok_or(Error::InvalidBuilderState)?;
                    f(body)?;
                }
                _ => {
                    let mut w = BodyWriter {
                        out: f,
                        alignment: self.options.alignment,
                    };
                    for c in columns {
                        visit_array(&mut w, c)?;
                    }
                }
            },
            #[cfg(feature = "compression")]
            None if compression.is_some() && body_len > 0 => {
                self.pieces.try_push(Piece::Body {
                    start: self.body_end - body_len,
                    len: body_len,
                })?;
            }
            None => {}
        }
        self.position += (meta_len + body_len) as u64;
        Ok(Block {
            offset: offset as i64,
            meta_data_length: i32::try_from(meta_len).map_err(|_| Error::LimitExceeded)?,
            body_length: body_len as i64,
        })
    }

    /// Encodes the dictionary batches `batch` needs, recording their
    /// blocks.
    #[cfg(feature = "dictionary")]
    fn dictionaries<O: Out>(&mut self, out: &mut O, batch: &RecordBatch<'a, A>) -> Result<()> {
        let mut pending = TryVec::new_in(self.scratch.allocator().clone());
        self.dictionaries.collect(batch, &mut pending)?;
        for (id, values) in pending.iter() {
            match self.dictionaries.action(*id, values, self.file)? {
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
                    let block = self.batch(
                        out,
                        core::slice::from_ref(&part),
                        rows,
                        Some((*id, delta)),
                        None,
                    )?;
                    self.dictionary_blocks.try_push(block)?;
                    self.dictionaries.record(*id, values.clone())?;
                }
            }
        }
        Ok(())
    }
}

macro_rules! encoder_common {
    () => {
        /// The schema message, to be written first (the file format: the
        /// magic and its padding, then the schema message). Optional: the
        /// first [`Self::encode_batch`] or [`Self::finish`] includes it
        /// when it was not asked for.
        ///
        /// # Errors
        /// [`Error::InvalidBuilderState`] when already produced;
        /// [`Error::UnsupportedType`] for a field type the IPC format cannot
        /// carry; [`Error::LimitExceeded`] when the flatbuffer outgrows
        /// [`IpcWriteOptions::max_metadata_size`]; allocation errors.
        pub fn encode_schema(&mut self) -> Result<EncodedMessage<'_>> {
            self.inner.encode_schema()
        }

        /// The messages of one record batch: the dictionary batches it needs
        /// (new, delta or replacement), then the record batch. Its body
        /// buffers are borrowed from the arrays.
        ///
        /// # Errors
        /// [`Error::SchemaMismatch`] when the batch's fields differ from the
        /// schema's; [`Error::InvalidBuilderState`] after [`Self::finish`] or
        /// an earlier error; compression, metadata size and allocation
        /// errors.
        pub fn encode_batch<'e>(
            &'e mut self,
            batch: &'e RecordBatch<'a, A>,
        ) -> Result<EncodedMessage<'e>> {
            self.inner.encode_batch(batch, None)
        }

        /// As [`Self::encode_batch`], with custom metadata on the record
        /// batch's message (`Message.custom_metadata`).
        ///
        /// # Errors
        /// As [`Self::encode_batch`].
        pub fn encode_batch_with_metadata<'e>(
            &'e mut self,
            batch: &'e RecordBatch<'a, A>,
            metadata: Option<&Metadata<'_, A>>,
        ) -> Result<EncodedMessage<'e>> {
            self.inner.encode_batch(batch, metadata)
        }

        /// Bytes of every output so far (where the next one goes).
        pub fn position(&self) -> u64 {
            self.inner.position
        }

        /// The schema.
        pub fn schema(&self) -> &Schema<'a, A> {
            &self.inner.schema
        }

        /// The options.
        pub fn options(&self) -> &IpcWriteOptions {
            &self.inner.options
        }
    };
}

/// The sans-IO encoder of the IPC stream format: schema, dictionary and
/// record batches, end-of-stream marker, as [`EncodedMessage`]s for any I/O
/// to write ("IPC Streaming Format"). [`StreamWriter`](super::StreamWriter)
/// is a loop over it.
///
/// ```
/// use alkaid::array::{Array, Float64Array, RecordBatch};
/// use alkaid::ipc::writer::{StreamEncoder, StreamWriter};
///
/// let batch = RecordBatch::try_from_iter([("t", Float64Array::from(vec![20.5, 21.0]).into_array_ref())])?;
/// let mut enc = StreamEncoder::try_new(batch.schema())?;
/// let mut out = Vec::new();
/// for msg in [enc.encode_batch(&batch)?] {
///     // The schema message, then the record batch.
///     assert_eq!(msg.offset(), 0);
///     msg.pieces().for_each(|p| out.extend_from_slice(p));
/// }
/// enc.finish()?.pieces().for_each(|p| out.extend_from_slice(p));
///
/// let mut w = StreamWriter::try_new(Vec::new(), batch.schema())?;
/// w.write(&batch)?;
/// w.finish()?;
/// assert_eq!(out, w.into_inner());
/// # Ok::<(), alkaid::Error>(())
/// ```
pub struct StreamEncoder<
    'a,
    #[cfg(feature = "alloc")] A: Allocator + Clone = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator + Clone,
    S: CodecSet = BuiltinCodecs,
> {
    inner: Encoder<'a, A, S>,
}

impl<'a, A: Allocator + Clone> StreamEncoder<'a, A> {
    /// An encoder of batches of `schema` with scratch memory from `alloc`
    /// and the core's [`BuiltinCodecs`].
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a bad alignment;
    /// [`Error::UnsupportedType`] for a compression codec not built in.
    pub fn try_new_in(schema: &Schema<'a, A>, options: IpcWriteOptions, alloc: A) -> Result<Self> {
        Self::try_new_with_codecs_in(schema, options, BuiltinCodecs::new(), alloc)
    }
}

#[cfg(feature = "alloc")]
impl<'a> StreamEncoder<'a> {
    /// An encoder with the default options and the global heap.
    ///
    /// # Errors
    /// As [`StreamEncoder::try_new_in`].
    pub fn try_new(schema: &Schema<'a, crate::Global>) -> Result<Self> {
        Self::try_new_in(schema, IpcWriteOptions::default(), crate::Global)
    }
}

impl<'a, A: Allocator + Clone, S: CodecSet> StreamEncoder<'a, A, S> {
    /// As [`StreamEncoder::try_new_in`] with the codecs of `codecs`.
    ///
    /// # Errors
    /// As [`StreamEncoder::try_new_in`].
    pub fn try_new_with_codecs_in(
        schema: &Schema<'a, A>,
        options: IpcWriteOptions,
        codecs: S,
        alloc: A,
    ) -> Result<Self> {
        Ok(StreamEncoder {
            inner: Encoder::new_in(schema, options, codecs, alloc, false)?,
        })
    }

    encoder_common!();

    /// The end-of-stream marker (`0xFFFFFFFF 0x00000000`), after the schema
    /// when nothing was encoded yet; empty when already finished.
    ///
    /// # Errors
    /// [`Error::InvalidBuilderState`] after an earlier error; as
    /// [`Self::encode_schema`].
    pub fn finish(&mut self) -> Result<EncodedMessage<'_>> {
        self.inner.finish_stream()
    }
}

/// The sans-IO encoder of the IPC file format: magic and schema, dictionary
/// and record batches, then the footer, as [`EncodedMessage`]s ("IPC File
/// Format"). It counts the bytes it produced for the footer's blocks, so
/// every output must be written in full and in order.
/// [`FileWriter`](super::FileWriter) is a loop over it.
///
/// ```
/// use alkaid::array::{Array, Int64Array, RecordBatch};
/// use alkaid::ipc::reader::FileReader;
/// use alkaid::ipc::writer::FileEncoder;
///
/// let batch = RecordBatch::try_from_iter([("n", Int64Array::from(vec![1, 2, 3]).into_array_ref())])?;
/// let mut enc = FileEncoder::try_new(batch.schema())?;
/// let mut out = Vec::new();
/// enc.encode_schema()?.pieces().for_each(|p| out.extend_from_slice(p));
/// let msg = enc.encode_batch(&batch)?;
/// let block = msg.record_batch_block().ok_or(alkaid::Error::InvalidBuilderState)?;
/// assert_eq!(block.offset as usize, out.len());
/// msg.pieces().for_each(|p| out.extend_from_slice(p));
/// enc.finish()?.pieces().for_each(|p| out.extend_from_slice(p));
/// assert_eq!(FileReader::try_new(&out)?.batch(0)?, batch);
/// # Ok::<(), alkaid::Error>(())
/// ```
pub struct FileEncoder<
    'a,
    #[cfg(feature = "alloc")] A: Allocator + Clone = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator + Clone,
    S: CodecSet = BuiltinCodecs,
> {
    inner: Encoder<'a, A, S>,
}

impl<'a, A: Allocator + Clone> FileEncoder<'a, A> {
    /// An encoder of a file of batches of `schema` with scratch memory from
    /// `alloc` and the core's [`BuiltinCodecs`].
    ///
    /// # Errors
    /// As [`StreamEncoder::try_new_in`].
    pub fn try_new_in(schema: &Schema<'a, A>, options: IpcWriteOptions, alloc: A) -> Result<Self> {
        Self::try_new_with_codecs_in(schema, options, BuiltinCodecs::new(), alloc)
    }
}

#[cfg(feature = "alloc")]
impl<'a> FileEncoder<'a> {
    /// An encoder with the default options and the global heap.
    ///
    /// # Errors
    /// As [`StreamEncoder::try_new_in`].
    pub fn try_new(schema: &Schema<'a, crate::Global>) -> Result<Self> {
        Self::try_new_in(schema, IpcWriteOptions::default(), crate::Global)
    }
}

impl<'a, A: Allocator + Clone, S: CodecSet> FileEncoder<'a, A, S> {
    /// As [`FileEncoder::try_new_in`] with the codecs of `codecs`.
    ///
    /// # Errors
    /// As [`StreamEncoder::try_new_in`].
    pub fn try_new_with_codecs_in(
        schema: &Schema<'a, A>,
        options: IpcWriteOptions,
        codecs: S,
        alloc: A,
    ) -> Result<Self> {
        Ok(FileEncoder {
            inner: Encoder::new_in(schema, options, codecs, alloc, true)?,
        })
    }

    encoder_common!();

    /// The end-of-stream marker, the footer indexing every dictionary and
    /// record batch, its length and the closing magic; empty when already
    /// finished.
    ///
    /// # Errors
    /// As [`StreamEncoder::finish`].
    pub fn finish(&mut self) -> Result<EncodedMessage<'_>> {
        self.inner.finish_file()
    }

    /// The number of record batches encoded.
    pub fn num_batches(&self) -> usize {
        self.inner.record_blocks.len()
    }
}

impl<A: Allocator + Clone, S: CodecSet> core::fmt::Debug for StreamEncoder<'_, A, S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("StreamEncoder")
            .field("position", &self.inner.position)
            .field("finished", &self.inner.finished)
            .finish()
    }
}

impl<A: Allocator + Clone, S: CodecSet> core::fmt::Debug for FileEncoder<'_, A, S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("FileEncoder")
            .field("position", &self.inner.position)
            .field("record_batches", &self.inner.record_blocks.len())
            .finish()
    }
}
