//! The uncompressed body walk of the encoder ([`Collector`]): the buffers
//! of a record batch body as pieces of an [`EncodedMessage`], borrowed
//! straight from array memory where they can go as they are.
//!
//! [`EncodedMessage`]: super::pieces::EncodedMessage

use allocator_api2::alloc::Allocator;

use super::body::{bitmap_chunks, padded, BodyVisitor, Planner, Shift};
use super::pieces::{push_piece, zeros, Piece, RawSlice};
use crate::buffer::{MutableBuffer, TryVec};
use crate::error::Result;

/// The uncompressed body walk: records the plan (nodes, buffer extents) in
/// the [`Planner`] and, per buffer, the pieces that carry it: the array's
/// own memory when it can go as it is, else its transformed bytes in the
/// side buffer, then the padding to the alignment. No body byte is copied
/// except the transformed ones.
///
/// Every `buffer` and whole-byte `bitmap` slice the walk passes here is
/// memory of the arrays walked (or `'static`): `visit_array` reads it from
/// the arrays and their zero-copy slices ([`Array::slice`] never copies), so
/// it lives as long as the batch.
///
/// [`Array::slice`]: crate::array::Array::slice
pub(crate) struct Collector<'x, A: Allocator> {
    pub(crate) planner: &'x mut Planner<A>,
    pub(crate) side: &'x mut MutableBuffer<A>,
    pub(crate) pieces: &'x mut TryVec<Piece, A>,
    pub(crate) alignment: usize,
}

impl<A: Allocator + Clone> Collector<'_, A> {
    fn borrowed(&mut self, bytes: &[u8]) -> Result<()> {
        if bytes.is_empty() {
            return Ok(());
        }
        self.pieces.try_push(Piece::Borrowed(RawSlice::new(bytes)))
    }

    /// Records the side bytes from `start` to the end as a piece.
    fn side_from(&mut self, start: usize) -> Result<()> {
        let len = self.side.len() - start;
        if len == 0 {
            return Ok(());
        }
        push_piece(self.pieces, Piece::Side { start, len })
    }

    fn pad(&mut self, written: usize) -> Result<()> {
        let n = padded(written, self.alignment) - written;
        if n == 0 {
            return Ok(());
        }
        self.pieces.try_push(Piece::Static(zeros(n)))
    }
}

impl<A: Allocator + Clone> BodyVisitor for Collector<'_, A> {
    fn node(&mut self, length: usize, null_count: usize) -> Result<()> {
        self.planner.node(length, null_count)
    }

    fn buffer(&mut self, bytes: &[u8]) -> Result<()> {
        self.planner.buffer(bytes)?;
        self.borrowed(bytes)?;
        self.pad(bytes.len())
    }

    fn bitmap(&mut self, bytes: &[u8], bit_offset: usize, len: usize) -> Result<()> {
        self.planner.bitmap(bytes, bit_offset, len)?;
        // Byte-aligned: the whole bytes as they are; the rest (all of a
        // shifted bitmap, or the last partial byte, whose bits past `len`
        // must be zero) through the side buffer.
        let start = bit_offset / 8;
        let done = match bytes.get(start..start + len / 8) {
            Some(whole) if bit_offset % 8 == 0 => {
                self.borrowed(whole)?;
                whole.len() * 8
            }
            _ => 0,
        };
        if done < len {
            let at = self.side.len();
            let side = &mut *self.side;
            bitmap_chunks(bytes, bit_offset + done, len - done, |c| {
                side.try_extend_from_slice(c)
            })?;
            self.side_from(at)?;
        }
        self.pad(len.div_ceil(8))
    }

    fn mapped(&mut self, values: &[u8], shift: Shift) -> Result<()> {
        self.planner.mapped(values, shift)?;
        let at = self.side.len();
        self.side.try_extend_zeros(values.len())?;
        if let Some(out) = self.side.as_slice_mut().get_mut(at..) {
            shift.apply(values, out);
        }
        self.side_from(at)?;
        self.pad(values.len())
    }

    #[cfg(feature = "views")]
    fn variadic_count(&mut self, n: usize) -> Result<()> {
        self.planner.variadic_count(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ipc::writer::pieces::EncodedMessage;
    use crate::Global;
    use std::vec::Vec;

    /// The bytes the collector gives for one bitmap, padded to 8; the
    /// sync writers' `BodyWriter` gives the same.
    fn bitmap_bytes(bytes: &[u8], bit_offset: usize, len: usize) -> Vec<u8> {
        let mut planner = Planner::new_in(Global, 8);
        let mut side = MutableBuffer::new_in(Global);
        let mut pieces = TryVec::new_in(Global);
        Collector {
            planner: &mut planner,
            side: &mut side,
            pieces: &mut pieces,
            alignment: 8,
        }
        .bitmap(bytes, bit_offset, len)
        .unwrap();
        let msg = EncodedMessage {
            pieces: pieces.as_slice(),
            side: side.as_slice(),
            body: &[],
            offset: 0,
            len: 0,
            dictionary_blocks: &[],
            record_block: None,
        };
        let out: Vec<u8> = msg.pieces().flatten().copied().collect();
        assert_eq!(out.len(), planner.body_len);
        // Whole bytes of a byte-aligned bitmap are borrowed, not copied.
        if bit_offset % 8 == 0 && len >= 8 && bytes.len() * 8 >= bit_offset + len {
            let p = msg.pieces().next().unwrap();
            assert_eq!(p.as_ptr(), bytes[bit_offset / 8..].as_ptr());
        }
        let mut direct = Vec::new();
        let mut sink = |b: &[u8]| {
            direct.extend_from_slice(b);
            Ok(())
        };
        let mut sink: super::super::body::Sink<'_> = &mut sink;
        super::super::body::BodyWriter {
            out: &mut sink,
            alignment: 8,
        }
        .bitmap(bytes, bit_offset, len)
        .unwrap();
        assert_eq!(direct, out);
        out
    }

    /// Byte-aligned bitmaps are written as they are, bits past the length
    /// cleared; others are shifted to start at bit 0. Padded to 8 bytes.
    #[test]
    fn bitmap_aligned_and_shifted() {
        let src = [0b1010_1101u8, 0xFF, 0b0101_0110];
        assert_eq!(bitmap_bytes(&src, 0, 16), [0xAD, 0xFF, 0, 0, 0, 0, 0, 0]);
        assert_eq!(bitmap_bytes(&src, 8, 3), [0b0000_0111, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(
            bitmap_bytes(&src, 8, 12),
            [0xFF, 0b0000_0110, 0, 0, 0, 0, 0, 0]
        );
        assert_eq!(bitmap_bytes(&src, 0, 0), Vec::<u8>::new());
        // Bit offset 3: 0b10101 then the next byte's bits.
        assert_eq!(
            bitmap_bytes(&src, 3, 10),
            [0b1111_0101, 0b0000_0011, 0, 0, 0, 0, 0, 0]
        );
        // Past the end of the source: zero bits.
        assert_eq!(bitmap_bytes(&src, 16, 16), [0x56, 0, 0, 0, 0, 0, 0, 0]);
    }
}
