//! Bitmaps a word at a time, in the LSB bit order of the columnar format:
//! 64 bits read from any bit offset, bits ORed in at any offset, ranges of
//! bits copied, and [`BitWriter`], a bitmap written range by range.

use allocator_api2::alloc::Allocator;

use crate::buffer::{BooleanBuffer, MutableBuffer};
use crate::error::Result;

/// Number of bytes holding `bits` bits.
#[inline]
pub(super) const fn bytes_for_bits(bits: usize) -> usize {
    bits.div_ceil(8)
}

/// Reads 64 bits (LSB order) from bit `start` of `src`; bits past the end
/// of `src` read as zero.
#[inline]
pub(super) fn read_bits(src: &[u8], start: usize) -> u64 {
    let byte = start / 8;
    let shift = start % 8;
    if let Some(eight) = src.get(byte..byte.wrapping_add(8)) {
        let mut b = [0u8; 8];
        b.copy_from_slice(eight);
        let lo = u64::from_le_bytes(b);
        if shift == 0 {
            return lo;
        }
        let hi = src.get(byte + 8).map_or(0, |h| u64::from(*h));
        return (lo >> shift) | (hi << (64 - shift));
    }
    let mut w = 0u128;
    for i in 0..9 {
        if let Some(b) = src.get(byte + i) {
            w |= u128::from(*b) << (8 * i);
        }
    }
    (w >> (start % 8)) as u64
}

/// ORs the low `n <= 64` bits of `v` into `dst` from bit `start` (LSB
/// order); bits past the end of `dst` are dropped.
pub(super) fn or_bits(dst: &mut [u8], start: usize, v: u64, n: usize) {
    let byte = start / 8;
    let shift = start % 8;
    let v = if n >= 64 { v } else { v & ((1u64 << n) - 1) };
    let w = u128::from(v) << shift;
    for i in 0..bytes_for_bits(shift + n) {
        if let Some(b) = dst.get_mut(byte + i) {
            *b |= (w >> (8 * i)) as u8;
        }
    }
}

/// ORs `len` bits of `src` from bit `src_start` into the (zeroed) `dst`
/// from bit `dst_start`; whole bytes are copied when both starts are
/// byte-aligned.
pub(super) fn copy_bits(
    dst: &mut [u8],
    dst_start: usize,
    src: &[u8],
    src_start: usize,
    len: usize,
) {
    let mut done = 0;
    if dst_start % 8 == 0 && src_start % 8 == 0 {
        let whole = len / 8;
        let d = dst.get_mut(dst_start / 8..dst_start / 8 + whole);
        let s = src.get(src_start / 8..src_start / 8 + whole);
        if let (Some(d), Some(s)) = (d, s) {
            d.copy_from_slice(s);
            done = whole * 8;
        }
    }
    while done < len {
        let n = (len - done).min(64);
        let v = read_bits(src, src_start + done);
        or_bits(dst, dst_start + done, v, n);
        done += n;
    }
}

/// Writes a bitmap of a known number of bits, range by range.
pub(super) struct BitWriter<A: Allocator> {
    buf: MutableBuffer<A>,
    len: usize,
}

impl<A: Allocator> BitWriter<A> {
    /// A zeroed bitmap with room for `bits` bits (no allocation for 0 bits).
    pub(super) fn try_new(bits: usize, alloc: A) -> Result<Self> {
        let mut buf = MutableBuffer::new_in(alloc);
        let bytes = bytes_for_bits(bits);
        buf.try_reserve_exact(bytes)?;
        buf.try_extend_zeros(bytes)?;
        Ok(BitWriter { buf, len: 0 })
    }

    /// Appends the bits of `bits`.
    pub(super) fn append(&mut self, bits: &BooleanBuffer<'_, A>) {
        copy_bits(
            self.buf.as_slice_mut(),
            self.len,
            bits.inner().as_slice(),
            bits.offset(),
            bits.len(),
        );
        self.len += bits.len();
    }

    /// Appends `n` set bits.
    pub(super) fn append_ones(&mut self, n: usize) {
        let mut done = 0;
        while done < n {
            let k = (n - done).min(64);
            or_bits(self.buf.as_slice_mut(), self.len + done, u64::MAX, k);
            done += k;
        }
        self.len += n;
    }

    /// The bits written.
    ///
    /// # Errors
    /// `Error::BufferTooSmall` when more bits were appended than reserved.
    pub(super) fn finish(self) -> Result<BooleanBuffer<'static, A>> {
        let len = self.len;
        BooleanBuffer::try_new(self.buf.into_buffer(), 0, len)
    }
}
