//! The positions of the set bits of a bitmap (a filter's kept slots): one
//! at a time ([`SetBits`]) or all listed at once ([`list_set_bits`]).

use allocator_api2::alloc::Allocator;

use super::bits::read_bits;
use super::indices::Bits;
use crate::buffer::TryVec;
use crate::error::Result;

/// The positions of the set bits among the first `len` bits of `bits`.
pub(super) struct SetBits<'b> {
    bits: Bits<'b>,
    len: usize,
    /// Position of bit 0 of `word`.
    base: usize,
    word: u64,
}

impl<'b> SetBits<'b> {
    pub(super) fn new(bits: Bits<'b>, len: usize) -> Self {
        let mut s = SetBits {
            bits,
            len,
            base: 0,
            word: 0,
        };
        s.load();
        s
    }

    fn load(&mut self) {
        if self.base >= self.len {
            self.word = 0;
            return;
        }
        let w = read_bits(self.bits.bytes, self.bits.offset + self.base);
        let left = self.len - self.base;
        self.word = if left < 64 {
            w & ((1u64 << left) - 1)
        } else {
            w
        };
    }
}

impl Iterator for SetBits<'_> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        while self.word == 0 {
            if self.base >= self.len {
                return None;
            }
            self.base += 64;
            self.load();
        }
        let tz = self.word.trailing_zeros() as usize;
        self.word &= self.word - 1;
        Some(self.base + tz)
    }
}

/// Appends to `out` the positions of the set bits among the first `len`
/// bits of `bits`, in order. A byte-aligned bitmap is read a whole 64-bit
/// word at a time (no shift, no call per word); the last partial word, and
/// a bitmap that starts inside a byte, go through [`SetBits`].
///
/// # Errors
/// [`crate::Error::AllocationFailed`], [`crate::Error::CapacityOverflow`].
pub(super) fn list_set_bits<A: Allocator>(
    bits: Bits<'_>,
    len: usize,
    out: &mut TryVec<usize, A>,
) -> Result<()> {
    let mut done = 0;
    if bits.offset % 8 == 0 {
        let whole = bits
            .bytes
            .get(bits.offset / 8..)
            .unwrap_or(&[])
            .chunks_exact(8)
            .take(len / 64);
        for (w, chunk) in whole.enumerate() {
            let mut b = [0u8; 8];
            b.copy_from_slice(chunk);
            let mut word = u64::from_le_bytes(b);
            while word != 0 {
                out.try_push(w * 64 + word.trailing_zeros() as usize)?;
                word &= word - 1;
            }
            done = (w + 1) * 64;
        }
    }
    let rest = Bits {
        bytes: bits.bytes,
        offset: bits.offset + done,
    };
    for i in SetBits::new(rest, len - done) {
        out.try_push(done + i)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::vec::Vec;

    use crate::Global;

    use super::*;

    /// Both ways give the set bits, bit by bit, for aligned and unaligned
    /// starts, whole and partial words, and a bitmap shorter than `len`.
    #[test]
    fn miri_list_set_bits_equals_bit_by_bit() {
        let bytes: Vec<u8> = (0..40u32)
            .map(|i| (i.wrapping_mul(0x9d) ^ (i >> 1)) as u8)
            .collect();
        for offset in [0usize, 1, 7, 8, 13, 64] {
            for len in [0usize, 1, 63, 64, 65, 128, 200, 320 - offset, 330] {
                let bits = Bits {
                    bytes: &bytes,
                    offset,
                };
                let want: Vec<usize> = (0..len).filter(|&i| bits.get(i)).collect();
                let mut got = TryVec::<usize, Global>::new_in(Global);
                list_set_bits(bits, len, &mut got).unwrap();
                assert_eq!(got.as_slice(), &want[..], "offset {offset} len {len}");
                let one: Vec<usize> = SetBits::new(bits, len).collect();
                assert_eq!(one, want, "offset {offset} len {len}");
            }
        }
    }
}
