//! Where the encoder's pieces go ([`Emit`]), and the uncompressed body walk
//! that emits every buffer of a record batch body in order ([`BodyEmitter`]):
//! array memory as it is, transformed bytes (shifted bitmaps, rebased
//! offsets, clamped run ends) through a small stack buffer, padding from a
//! static zero array.
//!
//! The encoder produces a message's pieces one way, through `&mut dyn Emit`;
//! what takes them decides what becomes of them: the public encoders'
//! staging keeps them as the pieces of an [`EncodedMessage`], the sync
//! writers write them to their sink at once (no heap for pieces or
//! transformed buffers).
//!
//! [`EncodedMessage`]: super::EncodedMessage

use super::body::{bitmap_chunks, padded, BodyVisitor, Shift};
use super::pieces::zeros;
use crate::error::Result;

/// Takes the pieces of the encoder's outputs, in order.
pub(crate) trait Emit {
    /// Bytes that live as long as the batch being encoded: array memory
    /// (or its zero-copy slices'), borrowed.
    fn borrowed(&mut self, bytes: &[u8]) -> Result<()>;
    /// Bytes that live only during the call (a stack buffer, the metadata
    /// scratch): to be copied if kept.
    fn copied(&mut self, bytes: &[u8]) -> Result<()>;
    /// Constant bytes (padding, the file magic, the end-of-stream marker).
    fn constant(&mut self, bytes: &'static [u8]) -> Result<()>;
    /// A compressed body: `bytes`, which start at `at` of the encoder's
    /// compression scratch (kept until the end of the output).
    #[cfg(feature = "compression")]
    fn compressed(&mut self, at: usize, bytes: &[u8]) -> Result<()>;
}

/// The uncompressed body walk (after the planner's): emits every buffer,
/// each padded to the alignment.
///
/// Every `buffer` and whole-byte `bitmap` slice the walk passes here is
/// memory of the arrays walked (or `'static`): `visit_array` reads it from
/// the arrays and their zero-copy slices ([`Array::slice`] never copies), so
/// it lives as long as the batch and is emitted as [`Emit::borrowed`].
///
/// [`Array::slice`]: crate::array::Array::slice
pub(crate) struct BodyEmitter<'x> {
    pub(crate) out: &'x mut dyn Emit,
    pub(crate) alignment: usize,
}

impl BodyEmitter<'_> {
    fn pad(&mut self, written: usize) -> Result<()> {
        let n = padded(written, self.alignment) - written;
        if n == 0 {
            return Ok(());
        }
        self.out.constant(zeros(n))
    }

    fn borrowed(&mut self, bytes: &[u8]) -> Result<()> {
        if bytes.is_empty() {
            return Ok(());
        }
        self.out.borrowed(bytes)
    }
}

impl BodyVisitor for BodyEmitter<'_> {
    fn node(&mut self, _length: usize, _null_count: usize) -> Result<()> {
        Ok(())
    }

    fn buffer(&mut self, bytes: &[u8]) -> Result<()> {
        self.borrowed(bytes)?;
        self.pad(bytes.len())
    }

    fn bitmap(&mut self, bytes: &[u8], bit_offset: usize, len: usize) -> Result<()> {
        // Byte-aligned: the whole bytes as they are; the rest (all of a
        // shifted bitmap, or the last partial byte, whose bits past `len`
        // must be zero) through the chunk buffer.
        let start = bit_offset / 8;
        let done = match bytes.get(start..start + len / 8) {
            Some(whole) if bit_offset % 8 == 0 => {
                self.borrowed(whole)?;
                whole.len() * 8
            }
            _ => 0,
        };
        if done < len {
            let out = &mut *self.out;
            bitmap_chunks(bytes, bit_offset + done, len - done, |c| out.copied(c))?;
        }
        self.pad(len.div_ceil(8))
    }

    fn mapped(&mut self, values: &[u8], shift: Shift) -> Result<()> {
        // 512 bytes: a whole number of values of every width.
        let mut chunk = [0u8; 512];
        for part in values.chunks(chunk.len()) {
            let out = chunk.get_mut(..part.len()).unwrap_or(&mut []);
            shift.apply(part, out);
            self.out.copied(out)?;
        }
        self.pad(values.len())
    }

    #[cfg(feature = "views")]
    fn variadic_count(&mut self, _n: usize) -> Result<()> {
        Ok(())
    }
}
