//! Bit compress (the x86 `PEXT` operation): the bits of a word at the set
//! bits of a mask, packed towards bit 0; and a bitmap compressed by a
//! filter's mask, 64 slots at a time. `PEXT` itself on x86-64 processors
//! that have a fast one ([`crate::arch::x86`]), portable shift networks
//! elsewhere.

use allocator_api2::alloc::Allocator;

use super::bits::read_bits;
use super::indices::Bits;
use crate::buffer::MutableBuffer;
use crate::error::{Error, Result};

/// Appends to `out` the bits of `src` at the set bits of `mask` (`count`
/// of the first `len`), packed, as little-endian 64-bit words (the
/// bitmap's byte order on every host): `count.div_ceil(64)` words, zero
/// past the last bit.
///
/// # Errors
/// [`Error::AllocationFailed`]; [`Error::OutOfBounds`] when `mask` has more
/// than `count` set bits.
pub(super) fn compress_bitmap<A: Allocator>(
    mask: Bits<'_>,
    src: Bits<'_>,
    len: usize,
    count: usize,
    out: &mut MutableBuffer<A>,
) -> Result<()> {
    #[cfg(target_arch = "x86_64")]
    if crate::arch::x86::has_fast_pext() {
        // SAFETY: the processor has BMI1 and BMI2 (just asked).
        return unsafe { compress_bitmap_bmi2(mask, src, len, count, out) };
    }
    compress_bitmap_with::<A, false>(mask, src, len, count, out)
}

/// [`compress_bitmap`] compiled for BMI1 and BMI2.
///
/// # Safety
/// The processor has BMI1 and BMI2 ([`crate::arch::x86::has_fast_pext`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi1,bmi2")]
unsafe fn compress_bitmap_bmi2<A: Allocator>(
    mask: Bits<'_>,
    src: Bits<'_>,
    len: usize,
    count: usize,
    out: &mut MutableBuffer<A>,
) -> Result<()> {
    compress_bitmap_with::<A, true>(mask, src, len, count, out)
}

/// [`compress_bitmap`], each word by [`packed`].
#[inline(always)]
fn compress_bitmap_with<A: Allocator, const PEXT: bool>(
    mask: Bits<'_>,
    src: Bits<'_>,
    len: usize,
    count: usize,
    out: &mut MutableBuffer<A>,
) -> Result<()> {
    let words = count.div_ceil(64);
    out.try_extend_appended(words.checked_mul(8).ok_or(Error::CapacityOverflow)?, |w| {
        // The low `filled` bits of `pending` are the next to write.
        let (mut pending, mut filled) = (0u128, 0u32);
        for at in (0..len).step_by(64) {
            let mut m = read_bits(mask.bytes, mask.offset + at);
            if len - at < 64 {
                m &= (1u64 << (len - at)) - 1;
            }
            if m == 0 {
                continue;
            }
            let v = read_bits(src.bytes, src.offset + at);
            pending |= u128::from(packed::<PEXT>(v, m)) << filled;
            filled += m.count_ones();
            if filled >= 64 {
                w.put(&(pending as u64).to_le_bytes())?;
                pending >>= 64;
                filled -= 64;
            }
        }
        if filled > 0 {
            w.put(&(pending as u64).to_le_bytes())?;
        }
        Ok(())
    })
}

/// The bits of `x` at the set bits of `m`, packed towards bit 0: `PEXT`
/// where `PEXT` is true (only ever so on x86-64 with a fast `PEXT`: the
/// caller is compiled for BMI2), else [`compress`] with fast paths for
/// masks with few clear or few set bits.
#[inline(always)]
pub(super) fn packed<const PEXT: bool>(x: u64, m: u64) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if PEXT {
        // SAFETY: `PEXT` is true only in code that runs after
        // `has_fast_pext` returned true: the processor has BMI2.
        return unsafe { crate::arch::x86::pext(x, m) };
    }
    match m.count_ones() {
        64 => x,
        60.. => compress_dense(x, m),
        ..=4 => compress_sparse(x, m),
        _ => compress(x, m),
    }
}

/// The bits of `x` at the set bits of `m`, packed towards bit 0 (PEXT),
/// in six rounds of shifts whatever the number of set bits (the parallel
/// suffix method of "Hacker's Delight", 7-4): round `i` moves every kept
/// bit right by `2^i` when bit `i` of its distance to its final place is
/// set.
#[inline]
pub(super) fn compress(x: u64, m: u64) -> u64 {
    let (mut x, mut m) = (x & m, m);
    // Bit j of `mk`: a zero of the mask right of j (the distances' bits
    // come from the parity of these counts).
    let mut mk = !m << 1;
    for i in 0..6 {
        let mut mp = mk ^ (mk << 1);
        mp ^= mp << 2;
        mp ^= mp << 4;
        mp ^= mp << 8;
        mp ^= mp << 16;
        mp ^= mp << 32;
        let mv = mp & m;
        m = (m ^ mv) | (mv >> (1 << i));
        let t = x & mv;
        x = (x ^ t) | (t >> (1 << i));
        mk &= !mp;
    }
    x
}

/// [`compress`] for a mask with few clear bits: they are removed one at a
/// time, the highest first (the bits above each move down by one).
#[inline]
pub(super) fn compress_dense(x: u64, m: u64) -> u64 {
    let (mut x, mut dropped) = (x, !m);
    while dropped != 0 {
        let below = (1u64 << (63 - dropped.leading_zeros())) - 1;
        x = (x & below) | ((x >> 1) & !below);
        dropped &= below;
    }
    x
}

/// [`compress`] for a mask with few set bits: they are picked one at a
/// time, the lowest first.
#[inline]
pub(super) fn compress_sparse(x: u64, m: u64) -> u64 {
    let (mut out, mut m, mut k) = (0u64, m, 0u32);
    while m != 0 {
        out |= ((x >> m.trailing_zeros()) & 1) << k;
        k += 1;
        m &= m - 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{compress, compress_dense, compress_sparse};

    /// The bits of `x` where `m` is set, packed from bit 0, one at a time.
    fn model(x: u64, m: u64) -> u64 {
        let mut want = 0u64;
        let mut k = 0;
        for b in 0..64 {
            if m >> b & 1 == 1 {
                want |= (x >> b & 1) << k;
                k += 1;
            }
        }
        want
    }

    #[test]
    fn compress_packs_the_masked_bits_like_a_bit_by_bit_loop() {
        let mut next = crate::test_support::rng(0x2545_f491_4f6c_dd1du64);
        // Fewer under Miri (the whole stage has a time budget).
        let rounds = if cfg!(miri) { 200 } else { 2000 };
        for round in 0..rounds {
            let x = next();
            let m = match round % 4 {
                0 => next(),
                1 => next() & next(),
                2 => next() | next(),
                _ => [0, u64::MAX, 1 << 63, 1][round / 4 % 4],
            };
            let want = model(x, m);
            assert_eq!(compress(x, m), want, "{x:#x} {m:#x}");
            // The fast paths, on masks they are meant for and any other.
            assert_eq!(compress_dense(x, m), want, "{x:#x} {m:#x}");
            assert_eq!(compress_sparse(x, m), want, "{x:#x} {m:#x}");
            let (dense, sparse) = (m | (next() & next() & next()), m & next() & next() & next());
            for m in [dense, !(1u64 << (round % 64)), sparse, 1u64 << (round % 64)] {
                let want = model(x, m);
                assert_eq!(compress_dense(x, m), want, "{x:#x} {m:#x}");
                assert_eq!(compress_sparse(x, m), want, "{x:#x} {m:#x}");
            }
        }
    }

    /// `PEXT` (where the processor has a fast one) packs like the portable
    /// compress.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn pext_packs_like_compress() {
        use crate::arch::x86::{has_fast_pext, pext};
        if has_fast_pext() {
            let mut next = crate::test_support::rng(0x0123_4567_89AB_CDEF);
            for _ in 0..if cfg!(miri) { 100 } else { 1000 } {
                let x = next();
                let m = x.rotate_left(23) ^ (x >> 3);
                // SAFETY: the processor has BMI2 (`has_fast_pext`).
                let p = unsafe { pext(x, m) };
                assert_eq!(p, compress(x, m), "{x:#x} {m:#x}");
            }
        }
    }
}
