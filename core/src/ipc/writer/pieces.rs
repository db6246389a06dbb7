//! The pieces of encoded IPC messages: what [`StreamEncoder`] and
//! [`FileEncoder`] hand to the I/O ([`EncodedMessage`]). The encoder emits
//! them (`emit.rs`) and `staging.rs` keeps them.
//!
//! A piece is one of
//! - a range of the encoder's side buffer: message prefixes and flatbuffers,
//!   and the body buffers the walk must transform (shifted bitmaps, rebased
//!   offsets, clamped run ends);
//! - a range of the compression scratch (a compressed body);
//! - a `'static` slice (padding from a zero array, the file magic, the
//!   end-of-stream marker);
//! - array memory, borrowed (a body buffer as the array holds it).
//!
//! [`StreamEncoder`]: super::StreamEncoder
//! [`FileEncoder`]: super::FileEncoder

use allocator_api2::alloc::Allocator;

use crate::buffer::TryVec;
use crate::error::Result;
use crate::ipc::message::Block;

/// Zero bytes that padding pieces borrow (padding is always shorter than
/// the alignment, at most 64 bytes).
pub(crate) static ZEROS: [u8; 64] = [0; 64];

/// The first `n` bytes of [`ZEROS`] (all of them if `n > 64`, which no
/// caller asks for: padding is shorter than the alignment).
pub(crate) fn zeros(n: usize) -> &'static [u8] {
    ZEROS.get(..n).unwrap_or(&ZEROS)
}

/// Array memory a piece borrows, as a pointer and a length in bytes.
///
/// Only read through [`EncodedMessage`], which borrows the record batch the
/// memory belongs to for its whole life.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RawSlice {
    ptr: *const u8,
    len: usize,
}

// SAFETY: a `RawSlice` is a pointer and a length; the encoder that keeps it
// never dereferences it, only an `EncodedMessage` does, under a borrow of the
// batch that keeps the memory alive and immutable (see `Pieces::next`).
// Sending or sharing the encoder between threads moves only the address.
unsafe impl Send for RawSlice {}
// SAFETY: as for `Send`: shared access never dereferences the pointer
// outside an `EncodedMessage`.
unsafe impl Sync for RawSlice {}

/// One piece of an encoded message.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Piece {
    /// `len` bytes of the side buffer from `start`.
    Side { start: usize, len: usize },
    /// `len` bytes of the compression scratch from `start`.
    #[cfg(feature = "compression")]
    Body { start: usize, len: usize },
    /// Constant bytes.
    Static(&'static [u8]),
    /// Array memory.
    Borrowed(RawSlice),
}

impl RawSlice {
    pub(crate) fn new(bytes: &[u8]) -> Self {
        RawSlice {
            ptr: bytes.as_ptr(),
            len: bytes.len(),
        }
    }

    /// The length, in bytes.
    #[cfg(feature = "compression")]
    pub(crate) fn len(self) -> usize {
        self.len
    }

    /// The bytes.
    ///
    /// # Safety
    /// The memory must still be alive and unchanged: the caller holds a
    /// borrow of the batch whose walk recorded it (see `Collector`).
    pub(crate) unsafe fn get<'e>(self) -> &'e [u8] {
        // SAFETY: the caller's contract; the pointer and length come from a
        // `&[u8]` of that memory.
        unsafe { core::slice::from_raw_parts(self.ptr, self.len) }
    }
}

/// Appends `p`, joining it to the previous piece when both are adjacent
/// ranges of the side buffer (fewer pieces, fewer I/O vectors).
pub(crate) fn push_piece<A: Allocator>(pieces: &mut TryVec<Piece, A>, p: Piece) -> Result<()> {
    if let (Piece::Side { start, len }, Some(Piece::Side { start: s0, len: l0 })) =
        (p, pieces.as_mut_slice().last_mut())
    {
        if *s0 + *l0 == start {
            *l0 += len;
            return Ok(());
        }
    }
    pieces.try_push(p)
}

/// The bytes of one encoder call, in order, as pieces: the message(s) of a
/// schema, of a record batch (after the dictionary batches it needs), or the
/// end of a stream or file. Writing every piece of every output, in order,
/// gives the stream or file; nothing in it has been written anywhere yet.
///
/// Body buffers are borrowed from the batch's arrays (or from the
/// compression scratch), so the message borrows both the encoder and the
/// batch. Padding pieces borrow a static zero array.
///
/// ```
/// use alkaid::array::{Array, Int32Array, RecordBatch};
/// use alkaid::ipc::reader::SliceStreamReader;
/// use alkaid::ipc::writer::StreamEncoder;
///
/// let values: Vec<i32> = (0..1000).collect();
/// let batch = RecordBatch::try_from_iter([("x", Int32Array::from(values).into_array_ref())])?;
/// let mut enc = StreamEncoder::try_new(batch.schema())?;
/// let mut out = Vec::new();
/// for piece in enc.encode_schema()?.pieces() {
///     out.extend_from_slice(piece);
/// }
/// let msg = enc.encode_batch(&batch)?;
/// // The values go out as the array holds them: one piece is its memory.
/// let column = batch.column(0).and_then(|c| c.as_primitive::<i32>());
/// let values = column.ok_or(alkaid::Error::TypeMismatch)?.values();
/// assert!(msg.pieces().any(|p| p.as_ptr() == values.as_ptr().cast() && p.len() == 4000));
/// assert_eq!(msg.offset(), out.len() as u64);
/// let n = msg.len();
/// for piece in msg.pieces() {
///     out.extend_from_slice(piece);
/// }
/// assert_eq!(out.len() as u64, enc.position());
/// assert!(n > 4000);
/// for piece in enc.finish()?.pieces() {
///     out.extend_from_slice(piece);
/// }
/// let back: Vec<_> = SliceStreamReader::try_new(&out)?.collect::<Result<_, _>>()?;
/// assert_eq!(back, [batch]);
/// # Ok::<(), alkaid::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct EncodedMessage<'e> {
    pub(crate) pieces: &'e [Piece],
    pub(crate) side: &'e [u8],
    pub(crate) body: &'e [u8],
    pub(crate) offset: u64,
    pub(crate) len: u64,
    pub(crate) dictionary_blocks: &'e [Block],
    pub(crate) record_block: Option<Block>,
}

impl<'e> EncodedMessage<'e> {
    /// The pieces, in order (none empty).
    pub fn pieces(&self) -> Pieces<'e> {
        Pieces {
            iter: self.pieces.iter(),
            side: self.side,
            body: self.body,
        }
    }

    /// The number of pieces.
    pub fn num_pieces(&self) -> usize {
        self.pieces.len()
    }

    /// The total length of the pieces in bytes.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// `true` when there is nothing to write (e.g. a second `finish`).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Where the first byte goes: the bytes of every earlier output of the
    /// encoder, from the start of the stream or file.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The dictionary batches in this output, as the file footer indexes
    /// them (offsets from the start of the file; "IPC File Format").
    pub fn dictionary_blocks(&self) -> &'e [Block] {
        self.dictionary_blocks
    }

    /// The record batch in this output, if any, as the file footer indexes
    /// it.
    pub fn record_batch_block(&self) -> Option<Block> {
        self.record_block
    }
}

/// The pieces of an [`EncodedMessage`], as byte slices in writing order.
#[derive(Debug, Clone)]
pub struct Pieces<'e> {
    iter: core::slice::Iter<'e, Piece>,
    side: &'e [u8],
    /// The compression scratch (unused without feature `compression`).
    #[cfg_attr(not(feature = "compression"), allow(dead_code))]
    body: &'e [u8],
}

impl<'e> Iterator for Pieces<'e> {
    type Item = &'e [u8];

    fn next(&mut self) -> Option<&'e [u8]> {
        let p = *self.iter.next()?;
        Some(match p {
            Piece::Side { start, len } => self.side.get(start..start + len).unwrap_or(&[]),
            #[cfg(feature = "compression")]
            Piece::Body { start, len } => self.body.get(start..start + len).unwrap_or(&[]),
            Piece::Static(s) => s,
            // SAFETY: the pointer and length come from a `&[u8]` that
            // `Collector` received from the body walk of the batch that the
            // `EncodedMessage` this iterator comes from borrows for `'e`
            // (`encode_batch` ties both borrows to `'e`). That memory is
            // the arrays' (or their zero-copy slices', which share it) or
            // `'static`: it stays allocated while the batch lives, and
            // nothing mutates it while the batch is borrowed (shared array
            // memory is immutable).
            Piece::Borrowed(r) => unsafe { r.get() },
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.iter.size_hint()
    }
}

impl ExactSizeIterator for Pieces<'_> {}
