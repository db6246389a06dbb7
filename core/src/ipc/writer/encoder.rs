//! The sans-IO IPC encoder behind [`StreamEncoder`](super::StreamEncoder) and
//! [`FileEncoder`](super::FileEncoder): it turns a schema, a record batch
//! (with the dictionary batches it needs) or the end of the stream into the
//! pieces of its encapsulated messages ([`EncodedMessage`]) and touches no
//! I/O trait. The sync writers ([`StreamWriter`](super::StreamWriter),
//! [`FileWriter`](super::FileWriter)), the async writers, the std shim's
//! vectored writers and the Flight client write those pieces in order, so
//! they all produce the same bytes ("IPC Streaming Format", "IPC File
//! Format", "Encapsulated message format").
//!
//! It produces the pieces of an output one way, into a `&mut dyn Emit`:
//! the public encoders' [`Staging`] keeps them,
//! the sync writers' sink writes them at once. Each output is
//! [`Encoder::begin`], its steps ([`Encoder::start`],
//! [`Encoder::record_batch`], [`Encoder::close`]), then [`Encoder::end`].
//!
//! Every output must be written in full and in order: the encoder counts
//! the bytes it produced (the file footer's block offsets come from that
//! count). After an encoding error part-way through a batch the encoder
//! refuses further work ([`Error::InvalidBuilderState`]): its dictionary
//! state may no longer match what a reader saw. After an I/O error of the
//! `Emit` it may be asked again (the sink reports its error again, e.g. a
//! closed pipe on `finish`).

use allocator_api2::alloc::Allocator;

#[cfg(feature = "compression")]
use super::body::Compressing;
use super::body::{padded, visit_array, Planner};
#[cfg(feature = "dictionary")]
use super::dictionary::{DictionaryAction, DictionaryTracker};
use super::emit::{BodyEmitter, Emit};
use super::pieces::{zeros, EncodedMessage};
use super::staging::Staging;
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

/// What both encoders and both sync writers share: options, the metadata
/// scratch, the body planner, the dictionary tracker, the compression
/// scratch and the byte count.
///
/// `F` selects the format ([`Stream`], [`File`]) at compile time, so a
/// stream writer links none of the file format's code.
pub(crate) struct Encoder<'a, A: Allocator + Clone, S: CodecSet, F: Format<A>> {
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
    /// Dictionary blocks: the current output's (stream), or every one so
    /// far (file: the footer needs them), the current output's from
    /// `first_block`.
    #[cfg(feature = "dictionary")]
    dictionary_blocks: TryVec<Block, A>,
    #[cfg(feature = "dictionary")]
    first_block: usize,
    /// The current output's record batch block.
    record_block: Option<Block>,
    /// Bytes of every output before the current one.
    out_start: u64,
    /// The format, and its state (file: the record batch blocks so far).
    pub(crate) format: F,
    /// Bytes of every output so far.
    pub(crate) position: u64,
    started: bool,
    pub(crate) finished: bool,
    failed: bool,
}

impl<'a, A: Allocator + Clone, S: CodecSet, F: Format<A>> Encoder<'a, A, S, F> {
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
                return Err(crate::ipc::compression::missing(c));
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
            #[cfg(feature = "dictionary")]
            dictionary_blocks: TryVec::new_in(alloc.clone()),
            #[cfg(feature = "dictionary")]
            first_block: 0,
            record_block: None,
            out_start: 0,
            format: F::new_in(alloc),
            position: 0,
            started: false,
            finished: false,
            failed: false,
        })
    }

    /// Starts an output.
    pub(crate) fn begin(&mut self) -> Result<()> {
        if self.failed {
            return Err(Error::InvalidBuilderState);
        }
        #[cfg(feature = "dictionary")]
        {
            if !F::FILE {
                self.dictionary_blocks.clear();
            }
            self.first_block = self.dictionary_blocks.len();
        }
        self.record_block = None;
        self.out_start = self.position;
        #[cfg(feature = "compression")]
        {
            self.body_end = 0;
        }
        Ok(())
    }

    /// Ends an output with the outcome `r` of its encoding: on error,
    /// forgets the bytes produced, and after an encoding error (not an I/O
    /// error of the `Emit`) refuses further work.
    pub(crate) fn end(&mut self, r: Result<()>) -> Result<()> {
        if let Err(e) = r {
            if !matches!(e.kind(), ErrorKind::Io | ErrorKind::WriteZero) {
                self.failed = true;
            }
            self.position = self.out_start;
        }
        r
    }

    /// The current output as `stage` holds it.
    pub(crate) fn message<'e>(&'e self, stage: &'e Staging<A>) -> EncodedMessage<'e> {
        stage.message(
            self.out_start,
            self.position - self.out_start,
            #[cfg(feature = "compression")]
            self.body.as_slice(),
            #[cfg(not(feature = "compression"))]
            &[],
            #[cfg(feature = "dictionary")]
            self.dictionary_blocks
                .as_slice()
                .get(self.first_block..)
                .unwrap_or(&[]),
            #[cfg(not(feature = "dictionary"))]
            &[],
            self.record_block,
        )
    }

    /// Emits constant bytes.
    fn emit_static(&mut self, out: &mut dyn Emit, bytes: &'static [u8]) -> Result<()> {
        if bytes.is_empty() {
            return Ok(());
        }
        out.constant(bytes)?;
        self.position += bytes.len() as u64;
        Ok(())
    }

    /// Emits an encapsulated message's prefix and the padded flatbuffer at
    /// `start` of the scratch. Returns the metadata length (prefix +
    /// flatbuffer + padding), not yet counted in the position.
    fn metadata(&mut self, out: &mut dyn Emit, start: usize) -> Result<usize> {
        let fb = self
            .scratch
            .as_slice()
            .get(start..)
            .ok_or(Error::InvalidBuilderState)?;
        let total = padded(8 + fb.len(), self.options.alignment);
        let len = i32::try_from(total - 8).map_err(|_| Error::LimitExceeded)?;
        // The continuation marker and the metadata length.
        let mut prefix = [0; 8];
        prefix[..4].copy_from_slice(&CONTINUATION);
        prefix[4..].copy_from_slice(&len.to_le_bytes());
        out.copied(&prefix)?;
        out.copied(fb)?;
        // Copied, not constant: one piece with the flatbuffer.
        out.copied(zeros(total - 8 - fb.len()))?;
        Ok(total)
    }

    /// The file magic and its padding (file format), then the schema
    /// message, unless already produced.
    ///
    /// `given`, when given, is the encoder's own schema and options (the
    /// caller's, which they were copied from: a schema in flash and constant
    /// options stay visible to the compiler, which can then drop what they
    /// do not use, e.g. metadata and the Alkaid spelling of its keys).
    ///
    /// The drivers call it: the sync writers once, when they are created
    /// (so a firmware links the schema step once, for that one call site),
    /// the public encoders at the start of every output (the first one
    /// includes the schema when it was not asked for).
    pub(crate) fn start(
        &mut self,
        out: &mut dyn Emit,
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
        let len = self.metadata(out, start)?;
        self.position += len as u64;
        self.started = true;
        Ok(())
    }

    /// Whether the schema was produced.
    pub(crate) fn started(&self) -> bool {
        self.started
    }

    fn magic(&self) -> &'static [u8] {
        if self.options.alkaid {
            ALKAID_MAGIC
        } else {
            ARROW_MAGIC
        }
    }

    /// Whether `batch` may be encoded.
    pub(crate) fn check(&self, batch: &RecordBatch<'a, A>) -> Result<()> {
        if self.finished {
            return Err(Error::InvalidBuilderState);
        }
        if batch.schema().fields() != self.schema.fields() {
            return Err(Error::SchemaMismatch);
        }
        Ok(())
    }

    /// The dictionary batches `batch` needs and the record batch (after
    /// [`Self::start`] and [`Self::check`]).
    pub(crate) fn record_batch(
        &mut self,
        out: &mut dyn Emit,
        batch: &RecordBatch<'a, A>,
        metadata: Option<&Metadata<'_, A>>,
    ) -> Result<()> {
        #[cfg(feature = "dictionary")]
        self.dictionaries(out, batch)?;
        let block = self.batch(out, batch.columns(), batch.num_rows(), None, metadata)?;
        if let Some(blocks) = self.format.record_blocks() {
            blocks.try_push(block)?;
        }
        self.record_block = Some(block);
        Ok(())
    }

    /// What ends the output (after [`Self::start`]): the stream format's
    /// end-of-stream marker; the file format's marker, footer, footer
    /// length and closing magic. Nothing once finished.
    pub(crate) fn close(&mut self, out: &mut dyn Emit) -> Result<()> {
        if self.finished {
            return Ok(());
        }
        self.emit_static(out, &END_OF_STREAM)?;
        if F::FILE {
            self.footer(out)?;
        }
        self.finished = true;
        Ok(())
    }

    /// The footer indexing every dictionary and record batch, its length
    /// and the closing magic.
    fn footer(&mut self, out: &mut dyn Emit) -> Result<()> {
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
        out.copied(footer)?;
        out.copied(&len.to_le_bytes())?;
        self.position += (footer.len() + 4) as u64;
        let magic = self.magic();
        self.emit_static(out, magic)
    }

    /// Plans and encodes one record or dictionary batch: the planner's walk,
    /// the metadata, then the body.
    fn batch(
        &mut self,
        out: &mut dyn Emit,
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
        for c in columns {
            visit_array(&mut self.planner, c)?;
        }
        let body_len = match compression {
            #[cfg(feature = "compression")]
            Some(codec) => {
                self.specs.clear();
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
                        let codec = crate::ipc::compression::codec_of(&mut self.codecs, codec)?;
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
            _ => self.planner.body_len,
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
        let meta_len = self.metadata(out, start)?;
        match compression {
            #[cfg(feature = "compression")]
            Some(_) => {
                let at = self.body_end - body_len;
                if body_len > 0 {
                    let body = self
                        .body
                        .as_slice()
                        .get(at..self.body_end)
                        .ok_or(Error::InvalidBuilderState)?;
                    out.compressed(at, body)?;
                }
            }
            _ => {
                let mut w = BodyEmitter {
                    out,
                    alignment: self.options.alignment,
                };
                for c in columns {
                    visit_array(&mut w, c)?;
                }
            }
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
    fn dictionaries(&mut self, out: &mut dyn Emit, batch: &RecordBatch<'a, A>) -> Result<()> {
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
