//! The sans-IO IPC encoder behind [`StreamEncoder`](super::StreamEncoder) and [`FileEncoder`](super::FileEncoder)
//! (and the sync writers): it turns a
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
use super::collector::Collector;
#[cfg(feature = "dictionary")]
use super::dictionary::{DictionaryAction, DictionaryTracker};
use super::pieces::{push_piece, zeros, EncodedMessage, Piece};
use super::{IpcWriteOptions, ALKAID_MAGIC, ARROW_MAGIC, CONTINUATION};
use crate::array::{ArrayRef, RecordBatch};
use crate::buffer::{MutableBuffer, TryVec};
use crate::datatypes::{Metadata, Schema};
use crate::error::{Error, ErrorKind, Result};
use crate::ipc::compression::CodecSet;
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

/// The pieces of the current output: the public encoders' state, which
/// the sync writers (passing bytes to a sink as they are encoded) do without.
pub(crate) struct Staging<A: Allocator> {
    /// Prefixes, flatbuffers and transformed body buffers of the current
    /// output.
    side: MutableBuffer<A>,
    pieces: TryVec<Piece, A>,
    /// The current output's dictionary blocks start here in the encoder's.
    #[cfg(feature = "dictionary")]
    first_block: usize,
    /// The current output's record batch block.
    record_block: Option<Block>,
    /// Bytes of every output before the current one.
    out_start: u64,
}

/// Where an encoder keeps the pieces of its outputs: [`Staging`] (the
/// public encoders), or `()`, nothing (the sync writers), chosen at compile
/// time so that a program that only writes to a sink links none of it.
pub(crate) trait Stage<A: Allocator> {
    /// An empty stage.
    fn new_in(alloc: A) -> Self;
    /// The staging area, if any.
    fn get(&mut self) -> Option<&mut Staging<A>>;
    /// The staging area, if any.
    fn get_ref(&self) -> Option<&Staging<A>>;
}

impl<A: Allocator> Stage<A> for () {
    #[inline(always)]
    fn new_in(_: A) -> Self {}
    #[inline(always)]
    fn get(&mut self) -> Option<&mut Staging<A>> {
        None
    }
    #[inline(always)]
    fn get_ref(&self) -> Option<&Staging<A>> {
        None
    }
}

impl<A: Allocator + Clone> Stage<A> for Staging<A> {
    fn new_in(alloc: A) -> Self {
        Staging {
            side: MutableBuffer::new_in(alloc.clone()),
            pieces: TryVec::new_in(alloc),
            #[cfg(feature = "dictionary")]
            first_block: 0,
            record_block: None,
            out_start: 0,
        }
    }
    #[inline(always)]
    fn get(&mut self) -> Option<&mut Staging<A>> {
        Some(self)
    }
    #[inline(always)]
    fn get_ref(&self) -> Option<&Staging<A>> {
        Some(self)
    }
}

/// The format an encoder writes, chosen at compile time: [`Stream`], or
/// [`File`] with the record batch blocks its footer indexes (a stream
/// writer links and stores none of the file format's state).
pub(crate) trait Format<A: Allocator> {
    /// Whether this is the file format (magic, footer).
    const FILE: bool;
    /// The state before the first output.
    fn new_in(alloc: A) -> Self;
    /// The record batch blocks so far (file format only).
    fn record_blocks(&mut self) -> Option<&mut TryVec<Block, A>>;
    /// The record batch blocks so far (none for a stream).
    fn record_blocks_ref(&self) -> &[Block];
}

/// The IPC stream format.
pub(crate) struct Stream;

impl<A: Allocator> Format<A> for Stream {
    const FILE: bool = false;
    #[inline(always)]
    fn new_in(_: A) -> Self {
        Stream
    }
    #[inline(always)]
    fn record_blocks(&mut self) -> Option<&mut TryVec<Block, A>> {
        None
    }
    #[inline(always)]
    fn record_blocks_ref(&self) -> &[Block] {
        &[]
    }
}

/// The IPC file format, with the record batch blocks so far.
pub(crate) struct File<A: Allocator> {
    pub(crate) record_blocks: TryVec<Block, A>,
}

impl<A: Allocator> Format<A> for File<A> {
    const FILE: bool = true;
    fn new_in(alloc: A) -> Self {
        File {
            record_blocks: TryVec::new_in(alloc),
        }
    }
    #[inline(always)]
    fn record_blocks(&mut self) -> Option<&mut TryVec<Block, A>> {
        Some(&mut self.record_blocks)
    }
    #[inline(always)]
    fn record_blocks_ref(&self) -> &[Block] {
        self.record_blocks.as_slice()
    }
}

/// What both encoders share: options, the metadata scratch, the body
/// planner, the dictionary tracker, the compression scratch, the byte count
/// and the stage `P` of the current output's pieces.
///
/// `F` selects the format ([`Stream`], [`File`]) at compile time, so a
/// stream writer links none of the file format's code.
///
/// Two ways out: [`EncodedMessage`] pieces (the public encoders, with a
/// [`Staging`]), or a [`Sink`] the bytes are passed to as they are encoded
/// (the sync writers, stage `()`, which then need no heap for pieces or
/// transformed buffers).
pub(crate) struct Encoder<'a, A: Allocator + Clone, S: CodecSet, F: Format<A>, P: Stage<A>> {
    pub(crate) options: IpcWriteOptions,
    pub(crate) schema: Schema<'a, A>,
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
    /// The pieces of the current output (public encoders only).
    stage: P,
    /// Dictionary blocks: the current output's (stream), or every one so
    /// far (file: the footer needs them), the current output's from
    /// `Staging::first_block`.
    #[cfg(feature = "dictionary")]
    dictionary_blocks: TryVec<Block, A>,
    /// The format, and its state (file: the record batch blocks so far).
    pub(crate) format: F,
    /// Bytes of every output so far.
    pub(crate) position: u64,
    started: bool,
    pub(crate) finished: bool,
    failed: bool,
}

impl<'a, A: Allocator + Clone, S: CodecSet, F: Format<A>, P: Stage<A>> Encoder<'a, A, S, F, P> {
    pub(crate) fn new_in(
        schema: &Schema<'a, A>,
        options: IpcWriteOptions,
        mut codecs: S,
        alloc: A,
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
            stage: P::new_in(alloc.clone()),
            #[cfg(feature = "dictionary")]
            dictionary_blocks: TryVec::new_in(alloc.clone()),
            format: F::new_in(alloc),
            position: 0,
            started: false,
            finished: false,
            failed: false,
        })
    }

    /// Starts an output: clears the previous one's pieces (a sink has
    /// none to clear).
    fn begin<O: Out>(&mut self, out: &mut O) -> Result<()> {
        self.begin_check()?;
        if out.sink().is_none() {
            #[cfg(feature = "dictionary")]
            if !F::FILE {
                self.dictionary_blocks.clear();
            }
            let st = self.stage.get().ok_or(Error::InvalidBuilderState)?;
            st.side.clear();
            st.pieces.clear();
            #[cfg(feature = "dictionary")]
            {
                st.first_block = self.dictionary_blocks.len();
            }
            st.record_block = None;
            st.out_start = self.position;
        }
        #[cfg(feature = "compression")]
        {
            self.body_end = 0;
        }
        Ok(())
    }

    /// Ends an output with the outcome `r` of its encoding: on error,
    /// forgets the bytes produced and refuses further work.
    fn end(&mut self, r: Result<()>) -> Result<EncodedMessage<'_>> {
        if let Err(e) = r {
            self.failed = true;
            if let Some(st) = self.stage.get() {
                self.position = st.out_start;
                st.pieces.clear();
            }
            return Err(e);
        }
        let st = self.stage.get_ref().ok_or(Error::InvalidBuilderState)?;
        Ok(EncodedMessage {
            pieces: st.pieces.as_slice(),
            side: st.side.as_slice(),
            #[cfg(feature = "compression")]
            body: self.body.as_slice(),
            #[cfg(not(feature = "compression"))]
            body: &[],
            offset: st.out_start,
            len: self.position - st.out_start,
            #[cfg(feature = "dictionary")]
            dictionary_blocks: self
                .dictionary_blocks
                .as_slice()
                .get(st.first_block..)
                .unwrap_or(&[]),
            #[cfg(not(feature = "dictionary"))]
            dictionary_blocks: &[],
            record_block: st.record_block,
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
            None => self
                .stage
                .get()
                .ok_or(Error::InvalidBuilderState)?
                .pieces
                .try_push(Piece::Static(bytes))?,
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
        // The continuation marker and the metadata length, in one piece.
        let mut prefix = [0; 8];
        prefix[..4].copy_from_slice(&CONTINUATION);
        prefix[4..].copy_from_slice(&len.to_le_bytes());
        if let Some(f) = out.sink() {
            f(&prefix)?;
            f(fb)?;
            f(pad)?;
            return Ok(total);
        }
        let st = self.stage.get().ok_or(Error::InvalidBuilderState)?;
        let side_at = st.side.len();
        st.side.try_extend_from_slice(&prefix)?;
        st.side.try_extend_from_slice(fb)?;
        st.side.try_extend_from_slice(pad)?;
        let piece = Piece::Side {
            start: side_at,
            len: total,
        };
        match at {
            Some(i) => {
                *st.pieces
                    .as_mut_slice()
                    .get_mut(i)
                    .ok_or(Error::InvalidBuilderState)? = piece
            }
            None => push_piece(&mut st.pieces, piece)?,
        }
        Ok(total)
    }

    /// The file magic and its padding (file format), then the schema
    /// message, unless already produced.
    ///
    /// `given`, when given, is the encoder's own schema and options (the
    /// caller's, which they were copied from: a schema in flash and constant
    /// options stay visible to the compiler, which can then drop what they
    /// do not use, e.g. metadata and the Alkaid spelling of its keys).
    fn start<O: Out>(
        &mut self,
        out: &mut O,
        given: Option<(&Schema<'a, A>, &IpcWriteOptions)>,
    ) -> Result<()> {
        if self.started {
            return Ok(());
        }
        if F::FILE {
            let magic = self.magic();
            self.emit_static(out, magic)?;
            self.emit_static(out, zeros(8 - magic.len()))?;
        }
        let (schema, options) = match given {
            Some(g) => g,
            None => (&self.schema, &self.options),
        };
        for f in schema.fields().iter() {
            crate::ipc::check_layouts(f.data_type(), 0)?;
        }
        let alkaid = options.alkaid;
        let start = encode_in(&mut self.scratch, options, |buf| {
            let n = buf.len();
            Ok(n - encode_schema_message(buf, schema, Endianness::NATIVE, alkaid)?.len())
        })?;
        let len = self.metadata(out, start, None)?;
        self.position += len as u64;
        self.started = true;
        Ok(())
    }

    /// [`Self::start`] on the pieces path. The sync writers produce the
    /// schema when they are created ([`Self::write_schema`]), so on their
    /// path it is only checked: the schema step is then compiled once, for
    /// its one call site (a firmware links it once, not per caller).
    fn ensure_started<O: Out>(&mut self, out: &mut O) -> Result<()> {
        if self.started {
            return Ok(());
        }
        if out.sink().is_some() {
            return Err(Error::InvalidBuilderState);
        }
        self.start(out, None)
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
        self.begin(&mut ())?;
        let r = self.start(&mut (), None);
        self.end(r)
    }

    /// [`Self::encode_schema`] into `sink`.
    /// `schema` and `options` are the ones the encoder was created with.
    pub(crate) fn write_schema(
        &mut self,
        schema: &Schema<'a, A>,
        options: &IpcWriteOptions,
        sink: Sink<'_>,
    ) -> Result<()> {
        if self.started || self.finished {
            return Err(Error::InvalidBuilderState);
        }
        let mut sink = sink;
        self.begin(&mut sink)?;
        let r = self.start(&mut sink, Some((schema, options)));
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
        self.begin(&mut ())?;
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
        let mut sink = sink;
        self.begin(&mut sink)?;
        let r = self.record_batch(&mut sink, batch, metadata);
        self.settle(r)
    }

    fn record_batch<O: Out>(
        &mut self,
        out: &mut O,
        batch: &RecordBatch<'a, A>,
        metadata: Option<&Metadata<'_, A>>,
    ) -> Result<()> {
        self.ensure_started(out)?;
        #[cfg(feature = "dictionary")]
        self.dictionaries(out, batch)?;
        let block = self.batch(out, batch.columns(), batch.num_rows(), None, metadata)?;
        if let Some(blocks) = self.format.record_blocks() {
            blocks.try_push(block)?;
        }
        if let Some(st) = self.stage.get() {
            st.record_block = Some(block);
        }
        Ok(())
    }

    /// The end-of-stream marker (after the schema if nothing was encoded);
    /// nothing once finished.
    pub(crate) fn finish_stream(&mut self) -> Result<EncodedMessage<'_>> {
        self.begin(&mut ())?;
        let r = self.stream_end(&mut ());
        self.end(r)
    }

    /// [`Self::finish_stream`] into `sink`.
    pub(crate) fn write_finish_stream(&mut self, sink: Sink<'_>) -> Result<()> {
        let mut sink = sink;
        self.begin(&mut sink)?;
        let r = self.stream_end(&mut sink);
        self.settle(r)
    }

    fn stream_end<O: Out>(&mut self, out: &mut O) -> Result<()> {
        if self.finished {
            return Ok(());
        }
        self.ensure_started(out)?;
        self.emit_static(out, &END_OF_STREAM)?;
        self.finished = true;
        Ok(())
    }

    /// The end-of-stream marker, the footer, its length and the closing
    /// magic (after the magic and schema if nothing was encoded); nothing
    /// once finished.
    pub(crate) fn finish_file(&mut self) -> Result<EncodedMessage<'_>> {
        self.begin(&mut ())?;
        let r = self.footer(&mut ());
        self.end(r)
    }

    /// [`Self::finish_file`] into `sink`.
    pub(crate) fn write_finish_file(&mut self, sink: Sink<'_>) -> Result<()> {
        let mut sink = sink;
        self.begin(&mut sink)?;
        let r = self.footer(&mut sink);
        self.settle(r)
    }

    fn footer<O: Out>(&mut self, out: &mut O) -> Result<()> {
        if self.finished {
            return Ok(());
        }
        self.ensure_started(out)?;
        self.emit_static(out, &END_OF_STREAM)?;
        let alkaid = self.options.alkaid;
        #[cfg(feature = "dictionary")]
        let dicts = self.dictionary_blocks.as_slice();
        #[cfg(not(feature = "dictionary"))]
        let dicts: &[Block] = &[];
        let (schema, records) = (&self.schema, self.format.record_blocks_ref());
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
                let st = self.stage.get().ok_or(Error::InvalidBuilderState)?;
                let at = st.side.len();
                st.side.try_extend_from_slice(footer)?;
                st.side.try_extend_from_slice(&len.to_le_bytes())?;
                push_piece(&mut st.pieces, Piece::Side { start: at, len: n })?;
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
        let mut header_at = 0;
        if out.sink().is_none() {
            let st = self.stage.get().ok_or(Error::InvalidBuilderState)?;
            header_at = st.pieces.len();
            st.pieces.try_push(Piece::Static(&[]))?;
        }
        let body_len = match compression {
            #[cfg(feature = "compression")]
            Some(codec) => {
                for c in columns {
                    visit_array(&mut self.planner, c)?;
                }
                self.specs.clear();
                if out.sink().is_some() {
                    // Written at once: the next body may reuse the scratch.
                    self.body_end = 0;
                }
                let start = self.body_end;
                let target = super::parallel::Target {
                    body: &mut self.body,
                    staged: &mut self.tmp,
                    specs: &mut self.specs,
                    alignment: self.options.alignment,
                    start,
                };
                let plan = &self.planner.buffers;
                let end = match super::parallel::compress_body(
                    &mut self.codecs,
                    codec,
                    columns,
                    plan,
                    target,
                )? {
                    Some(end) => end,
                    None => {
                        let codec = self.codecs.get(codec).ok_or(Error::UnsupportedType)?;
                        let mut v = Compressing {
                            codec,
                            body: &mut self.body,
                            tmp: &mut self.tmp,
                            specs: &mut self.specs,
                            alignment: self.options.alignment,
                            start,
                            end: start,
                        };
                        v.reserve_for(plan)?;
                        for c in columns {
                            visit_array(&mut v, c)?;
                        }
                        v.end
                    }
                };
                self.body_end = end;
                end - start
            }
            _ if out.sink().is_some() => {
                for c in columns {
                    visit_array(&mut self.planner, c)?;
                }
                self.planner.body_len
            }
            _ => {
                let st = self.stage.get().ok_or(Error::InvalidBuilderState)?;
                let mut v = Collector {
                    planner: &mut self.planner,
                    side: &mut st.side,
                    pieces: &mut st.pieces,
                    alignment: self.options.alignment,
                };
                for c in columns {
                    visit_array(&mut v, c)?;
                }
                self.planner.body_len
            }
        };
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
                let st = self.stage.get().ok_or(Error::InvalidBuilderState)?;
                st.pieces.try_push(Piece::Body {
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
            match self.dictionaries.action(*id, values, F::FILE)? {
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
