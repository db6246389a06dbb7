//! The runs of set bits of a mask, as `(start, end)` positions: what
//! filter copies, one copy per run, when most slots are kept.

use crate::compute::bits::read_bits;
use crate::compute::indices::Bits;

/// The runs of set bits among the first `len` bits of `bits`, as
/// `(start, end)` positions.
pub(super) struct Runs<'b> {
    bits: Bits<'b>,
    len: usize,
    pos: usize,
}

impl<'b> Runs<'b> {
    pub(super) fn new(bits: Bits<'b>, len: usize) -> Self {
        Runs { bits, len, pos: 0 }
    }

    /// The first position `>= pos` whose bit is `set` (`len` if none).
    fn next_bit(&self, mut pos: usize, set: bool) -> usize {
        while pos < self.len {
            let mut w = read_bits(self.bits.bytes, self.bits.offset + pos);
            if !set {
                w = !w;
            }
            if w != 0 {
                return (pos + w.trailing_zeros() as usize).min(self.len);
            }
            pos += 64;
        }
        self.len
    }
}

impl Iterator for Runs<'_> {
    type Item = (usize, usize);

    fn next(&mut self) -> Option<(usize, usize)> {
        let start = self.next_bit(self.pos, true);
        if start >= self.len {
            self.pos = self.len;
            return None;
        }
        let end = self.next_bit(start, false);
        self.pos = end;
        Some((start, end))
    }
}
