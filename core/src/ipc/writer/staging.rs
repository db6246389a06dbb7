//! The public encoders' side of [`Emit`]: [`Staging`] keeps the pieces of
//! the current output for an [`EncodedMessage`] to hand out, copying only
//! the bytes that do not outlive the call (message prefixes, flatbuffers,
//! transformed body buffers) into its side buffer.

use allocator_api2::alloc::Allocator;

use super::emit::Emit;
use super::pieces::{push_piece, EncodedMessage, Piece, RawSlice};
use crate::buffer::{MutableBuffer, TryVec};
use crate::error::Result;
use crate::ipc::message::Block;

/// The pieces of the current output.
pub(crate) struct Staging<A: Allocator> {
    /// Prefixes, flatbuffers and transformed body buffers of the current
    /// output.
    side: MutableBuffer<A>,
    pieces: TryVec<Piece, A>,
}

impl<A: Allocator + Clone> Staging<A> {
    pub(crate) fn new_in(alloc: A) -> Self {
        Staging {
            side: MutableBuffer::new_in(alloc.clone()),
            pieces: TryVec::new_in(alloc),
        }
    }

    /// Forgets the previous output.
    pub(crate) fn clear(&mut self) {
        self.side.clear();
        self.pieces.clear();
    }

    /// The output staged, `len` bytes from `offset` of the stream or file,
    /// with `body` the encoder's compression scratch and the footer blocks
    /// of its messages.
    pub(crate) fn message<'e>(
        &'e self,
        offset: u64,
        len: u64,
        body: &'e [u8],
        dictionary_blocks: &'e [Block],
        record_block: Option<Block>,
    ) -> EncodedMessage<'e> {
        EncodedMessage {
            pieces: self.pieces.as_slice(),
            side: self.side.as_slice(),
            body,
            offset,
            len,
            dictionary_blocks,
            record_block,
        }
    }
}

impl<A: Allocator> Emit for Staging<A> {
    fn borrowed(&mut self, bytes: &[u8]) -> Result<()> {
        self.pieces.try_push(Piece::Borrowed(RawSlice::new(bytes)))
    }

    fn copied(&mut self, bytes: &[u8]) -> Result<()> {
        if bytes.is_empty() {
            return Ok(());
        }
        let start = self.side.len();
        self.side.try_extend_from_slice(bytes)?;
        push_piece(
            &mut self.pieces,
            Piece::Side {
                start,
                len: bytes.len(),
            },
        )
    }

    fn constant(&mut self, bytes: &'static [u8]) -> Result<()> {
        self.pieces.try_push(Piece::Static(bytes))
    }

    #[cfg(feature = "compression")]
    fn compressed(&mut self, at: usize, bytes: &[u8]) -> Result<()> {
        self.pieces.try_push(Piece::Body {
            start: at,
            len: bytes.len(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ipc::writer::body::{BodyVisitor, Planner};
    use crate::ipc::writer::emit::BodyEmitter;
    use crate::Global;
    use std::vec::Vec;

    /// The bytes staged for one bitmap, padded to 8.
    fn bitmap_bytes(bytes: &[u8], bit_offset: usize, len: usize) -> Vec<u8> {
        let mut planner = Planner::new_in(Global, 8);
        planner.bitmap(bytes, bit_offset, len).unwrap();
        let mut stage = Staging::new_in(Global);
        BodyEmitter {
            out: &mut stage,
            alignment: 8,
        }
        .bitmap(bytes, bit_offset, len)
        .unwrap();
        let msg = stage.message(0, 0, &[], &[], None);
        let out: Vec<u8> = msg.pieces().flatten().copied().collect();
        assert_eq!(out.len(), planner.body_len);
        // Whole bytes of a byte-aligned bitmap are borrowed, not copied.
        if bit_offset % 8 == 0 && len >= 8 && bytes.len() * 8 >= bit_offset + len {
            let p = msg.pieces().next().unwrap();
            assert_eq!(p.as_ptr(), bytes[bit_offset / 8..].as_ptr());
        }
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
