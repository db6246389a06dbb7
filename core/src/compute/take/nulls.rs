//! The validity of a take: a slot is valid when its index is and the slot
//! it selects is. 64 output bits at a time, or, on x86-64 with AVX2 and
//! `u32` indices, eight bitmap words per `VPGATHERDD`
//! ([`crate::arch::x86::gather_bits_avx2`]).

use allocator_api2::alloc::Allocator;

use crate::buffer::{BooleanBuffer, MutableBuffer, NullBuffer};
use crate::compute::bits::read_bits;
use crate::compute::indices::{Bits, Idx, TakeIndex};
use crate::error::Result;

/// The validity of a take: bit `k` set when index `k` is valid and selects
/// a valid slot of `src` (`None` when neither has a null).
///
/// # Errors
/// `Error::AllocationFailed`.
pub(in crate::compute) fn take_nulls<I: TakeIndex, A: Allocator>(
    src: Option<&NullBuffer<'_, A>>,
    idx: &Idx<'_, I>,
    alloc: A,
) -> Result<Option<NullBuffer<'static, A>>> {
    let src = src.filter(|n| n.null_count() > 0).map(Bits::of);
    if src.is_none() && !idx.has_nulls() {
        return Ok(None);
    }
    let n = idx.len();
    let mut out = MutableBuffer::new_in(alloc);
    #[cfg(target_arch = "x86_64")]
    if let (Some(s), Some(u32s)) = (src, I::as_u32s(idx.values)) {
        if s.offset % 8 == 0 && crate::arch::x86::has_avx2() {
            out.try_extend_zeros(n.div_ceil(64) * 8)?;
            let words = out.typed_mut::<u64>()?;
            let bits = s.bytes.get(s.offset / 8..).unwrap_or(&[]);
            // SAFETY: the processor has AVX2 (just asked).
            unsafe { crate::arch::x86::gather_bits_avx2(bits, u32s, words) };
            if let Some(v) = idx.valid {
                for (w, word) in words.iter_mut().enumerate() {
                    *word &= read_bits(v.bytes, v.offset + 64 * w);
                }
            }
            if let Some(last) = words.last_mut() {
                if n % 64 != 0 {
                    *last &= (1u64 << (n % 64)) - 1;
                }
            }
            return Ok(Some(NullBuffer::new(BooleanBuffer::try_new(
                out.into_buffer(),
                0,
                n,
            )?)));
        }
    }
    // 64 output bits at a time, stored as little-endian words (the bitmap's
    // byte order on every host).
    let mut chunks = idx.values.chunks(64);
    let mut base = 0usize;
    out.try_extend_from_fn(n.div_ceil(64), |_| {
        let chunk = chunks.next().unwrap_or(&[]);
        let live = match chunk.len() {
            64 => u64::MAX,
            k => (1u64 << k) - 1,
        };
        let valid = idx
            .valid
            .map_or(live, |v| read_bits(v.bytes, v.offset + base) & live);
        base += 64;
        let word = match src {
            None => valid,
            // A null index reads some bit (in bounds or 0), then masked.
            Some(s) => gather_bits(s, chunk) & valid,
        };
        word.to_le()
    })?;
    Ok(Some(NullBuffer::new(BooleanBuffer::try_new(
        out.into_buffer(),
        0,
        n,
    )?)))
}

/// Bit `b` of the result is bit `chunk[b]` of `src`, for the up to 64
/// indices of `chunk` (an index out of bounds gives 0).
#[inline(always)]
fn gather_bits<I: TakeIndex>(src: Bits<'_>, chunk: &[I]) -> u64 {
    let mut word = 0u64;
    let mut eights = chunk.chunks_exact(8);
    // Eight at a time with constant shifts: the loop unrolls and the eight
    // loads of a byte are in flight together.
    for (b, eight) in eights.by_ref().enumerate() {
        let mut byte = 0u64;
        for (t, i) in eight.iter().enumerate() {
            byte |= u64::from(src.get(i.index())) << t;
        }
        word |= byte << (8 * b);
    }
    let done = chunk.len() - eights.remainder().len();
    for (t, i) in eights.remainder().iter().enumerate() {
        word |= u64::from(src.get(i.index())) << (done + t);
    }
    word
}
