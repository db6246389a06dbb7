//! The values of a fixed-width buffer (primitive values, views, dictionary
//! keys) where a filter's mask is set, and their validity bits: by runs
//! when most slots are kept, by listed positions when few are, otherwise a
//! word of the mask at a time with the validity bits picked up in the same
//! walk of the mask's set bits (no separate compress of the bitmap).

use allocator_api2::alloc::Allocator;

use super::mask::Mask;
use super::nulls::filter_nulls;
use super::runs::Runs;
use crate::buffer::{BooleanBuffer, MutableBuffer, NullBuffer};
use crate::compute::bits::read_bits;
use crate::compute::buffers::byte_size;
use crate::compute::compress::packed;
use crate::compute::indices::Bits;
use crate::error::{Error, Result};

/// The values of `values` (`mask.len` of them) where the mask is set, and
/// the validity bits of `nulls` there (`None` when there is no null).
///
/// # Errors
/// [`Error::BufferTooSmall`] when `values` does not have `mask.len`
/// values; [`Error::AllocationFailed`]; [`Error::CapacityOverflow`].
pub(super) fn filter_values_nulls<T: bytemuck::Pod, A: Allocator + Clone>(
    values: &[T],
    nulls: Option<&NullBuffer<'_, A>>,
    mask: &Mask<'_>,
    alloc: A,
) -> Result<(MutableBuffer<A>, Option<NullBuffer<'static, A>>)> {
    if values.len() != mask.len {
        return Err(Error::BufferTooSmall);
    }
    let valid = nulls.filter(|n| n.null_count() > 0).map(Bits::of);
    if mask.use_runs() || mask.kept.is_some() || valid.is_none() {
        let out = filter_values(values, mask, alloc.clone())?;
        return Ok((out, filter_nulls(nulls, mask, alloc)?));
    }
    let mut bits_out = MutableBuffer::new_in(alloc.clone());
    let words = mask.count.div_ceil(64);
    bits_out.try_reserve_exact(words.checked_mul(8).ok_or(Error::CapacityOverflow)?)?;
    let mut packer = Packer {
        out: &mut bits_out,
        pending: 0,
        filled: 0,
        bad: None,
    };
    let mut out = MutableBuffer::new_in(alloc);
    out.try_extend_appended(byte_size::<T>(mask.count)?, |out| {
        staged(values, mask, valid, &mut |kept, valid_bits, n| {
            packer.push(valid_bits, n);
            out.put_slice(bytemuck::cast_slice(kept))
        })
    })?;
    packer.finish()?;
    let bits = BooleanBuffer::try_new(bits_out.into_buffer(), 0, mask.count)?;
    Ok((out, Some(NullBuffer::new(bits))))
}

/// Packs runs of up to 64 bits into little-endian words (the bitmap's byte
/// order on every host) pushed onto `out`, which has room for them all.
struct Packer<'o, A: Allocator> {
    out: &'o mut MutableBuffer<A>,
    /// The low `filled` bits are the next ones to write.
    pending: u128,
    filled: u32,
    bad: Option<Error>,
}

impl<A: Allocator> Packer<'_, A> {
    /// Appends the low `n <= 64` bits of `bits` (the others are zero).
    #[inline(always)]
    fn push(&mut self, bits: u64, n: u32) {
        self.pending |= u128::from(bits) << self.filled;
        self.filled += n;
        if self.filled >= 64 {
            if let Err(e) = self.out.try_push((self.pending as u64).to_le()) {
                self.bad.get_or_insert(e);
            }
            self.pending >>= 64;
            self.filled -= 64;
        }
    }

    /// Writes the last, partial word.
    fn finish(mut self) -> Result<()> {
        if self.filled > 0 {
            let last = (self.pending as u64).to_le();
            if let Err(e) = self.out.try_push(last) {
                self.bad.get_or_insert(e);
            }
        }
        match self.bad.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// Walks the mask a 64-bit word at a time: `emit(kept, valid, n)` gets the
/// `n` kept values of each word with any (in order) and, in the low `n`
/// bits of `valid`, their bits of `valid_src` (all set when `None`).
///
/// On x86-64 processors with a fast `PEXT` (asked at run time,
/// [`crate::arch::x86`]) the walk is compiled for BMI1/BMI2: a kept value is
/// then a `TZCNT`, a load, a store and a `BLSR`, and the validity bits of
/// a word one `PEXT`, instead of a bit extracted per kept value.
fn staged<T: bytemuck::Pod>(
    values: &[T],
    mask: &Mask<'_>,
    valid_src: Option<Bits<'_>>,
    emit: &mut impl FnMut(&[T], u64, u32) -> Result<()>,
) -> Result<()> {
    #[cfg(target_arch = "x86_64")]
    if crate::arch::x86::has_fast_pext() {
        // SAFETY: the processor has BMI1 and BMI2 (just asked).
        return unsafe { staged_bmi2(values, mask, valid_src, emit) };
    }
    staged_with::<T, false>(values, mask, valid_src, emit)
}

/// [`staged`] compiled for BMI1 and BMI2.
///
/// # Safety
/// The processor has BMI1 and BMI2 ([`crate::arch::x86::has_fast_pext`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi1,bmi2")]
unsafe fn staged_bmi2<T: bytemuck::Pod>(
    values: &[T],
    mask: &Mask<'_>,
    valid_src: Option<Bits<'_>>,
    emit: &mut impl FnMut(&[T], u64, u32) -> Result<()>,
) -> Result<()> {
    staged_with::<T, true>(values, mask, valid_src, emit)
}

/// [`staged`], with the validity bits of a word packed by [`packed`] when
/// `PEXT` (else extracted one per kept value, in the same loop).
#[inline(always)]
fn staged_with<T: bytemuck::Pod, const PEXT: bool>(
    values: &[T],
    mask: &Mask<'_>,
    valid_src: Option<Bits<'_>>,
    emit: &mut impl FnMut(&[T], u64, u32) -> Result<()>,
) -> Result<()> {
    let mut block = [T::zeroed(); 64];
    for (w, chunk) in values.chunks(64).enumerate() {
        let at = w * 64;
        let m = read_bits(mask.bits.bytes, mask.bits.offset + at);
        let m = if chunk.len() < 64 {
            m & ((1u64 << chunk.len()) - 1)
        } else {
            m
        };
        if m == 0 {
            continue;
        }
        if m & (m - 1) == 0 {
            // One kept value (common when few are kept): no staging, and
            // only its own validity bit read.
            let b = m.trailing_zeros() as usize;
            if let Some(x) = chunk.get(b) {
                let valid = valid_src.map_or(1, |s| u64::from(s.get(at + b)));
                emit(core::slice::from_ref(x), valid, 1)?;
            }
            continue;
        }
        let v = valid_src.map_or(u64::MAX, |s| read_bits(s.bytes, s.offset + at));
        if m == u64::MAX {
            emit(chunk, v, 64)?;
            continue;
        }
        let (mut k, mut bits, mut kept_valid) = (0usize, m, 0u64);
        if let (true, Ok(whole)) = (PEXT, <&[T; 64]>::try_from(chunk)) {
            while bits != 0 {
                let b = bits.trailing_zeros() as usize & 63;
                block[k & 63] = whole[b];
                k += 1;
                bits &= bits - 1;
            }
            if valid_src.is_some() {
                kept_valid = packed::<PEXT>(v, m);
            }
        } else if let Ok(whole) = <&[T; 64]>::try_from(chunk) {
            // Positions below 64 by construction: no bounds checks.
            while bits != 0 {
                let b = bits.trailing_zeros() as usize & 63;
                block[k & 63] = whole[b];
                kept_valid |= ((v >> b) & 1) << (k & 63);
                k += 1;
                bits &= bits - 1;
            }
        } else {
            while bits != 0 {
                let b = bits.trailing_zeros() as usize & 63;
                if let (Some(slot), Some(x)) = (block.get_mut(k & 63), chunk.get(b)) {
                    *slot = *x;
                }
                kept_valid |= ((v >> b) & 1) << (k & 63);
                k += 1;
                bits &= bits - 1;
            }
        }
        emit(block.get(..k).unwrap_or(&[]), kept_valid, k as u32)?;
    }
    Ok(())
}

/// The values of `values` (`mask.len` of them) where the mask is set,
/// written into memory that is not zero-filled first.
///
/// # Errors
/// [`Error::BufferTooSmall`] when `values` does not have `mask.len`
/// values; [`Error::AllocationFailed`]; [`Error::CapacityOverflow`].
pub(super) fn filter_values<T: bytemuck::Pod, A: Allocator>(
    values: &[T],
    mask: &Mask<'_>,
    alloc: A,
) -> Result<MutableBuffer<A>> {
    if values.len() != mask.len {
        return Err(Error::BufferTooSmall);
    }
    let mut out = MutableBuffer::new_in(alloc);
    if mask.use_runs() {
        out.try_extend_appended(byte_size::<T>(mask.count)?, |out| {
            for (s, e) in Runs::new(mask.bits, mask.len) {
                out.put_slice(bytemuck::cast_slice(
                    values.get(s..e).ok_or(Error::BufferTooSmall)?,
                ))?;
            }
            Ok(())
        })?;
    } else if let Some(kept) = mask.kept {
        out.try_extend_mapped(kept, |_, &i| {
            values.get(i).copied().unwrap_or_else(T::zeroed)
        })?;
    } else {
        // The kept values of a word of the mask are gathered by its set
        // bits into a staging block, appended at once.
        out.try_extend_appended(byte_size::<T>(mask.count)?, |out| {
            staged(values, mask, None, &mut |kept, _, _| {
                out.put_slice(bytemuck::cast_slice(kept))
            })
        })?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::vec;
    use std::vec::Vec;

    /// The kept `(value, valid)` pairs `staged_with::<_, PEXT>` emits.
    fn walk<const PEXT: bool>(
        values: &[u64],
        mask: &Mask<'_>,
        valid: Option<Bits<'_>>,
    ) -> Vec<(u64, bool)> {
        let mut got = Vec::new();
        staged_with::<u64, PEXT>(values, mask, valid, &mut |kept, bits, n| {
            assert_eq!(kept.len(), n as usize);
            for (k, v) in kept.iter().enumerate() {
                got.push((*v, (bits >> k) & 1 == 1));
            }
            Ok(())
        })
        .unwrap();
        got
    }

    /// `filter_in` of a nullable Int64 column of several words equals the
    /// model for masks from nearly empty (most words keep nothing or one
    /// value, the path without a branch on which) to nearly full, with the
    /// kept validity bits packed across words.
    #[test]
    fn filter_of_many_words_equals_the_model() {
        use crate::array::{Array, Int64Array};
        use crate::Global;
        let len = 64 * 9 + 5;
        let mut next = crate::test_support::rng(0x2545_F491_4F6C_DD1Du64);
        let vals: Vec<Option<i64>> = (0..len as i64)
            .map(|i| (next() % 3 != 0).then_some(i))
            .collect();
        let a = Int64Array::from(vals.clone()).into_array_ref();
        for per_64 in [1u64, 2, 8, 32, 60] {
            let keep: Vec<bool> = (0..len).map(|_| next() % 64 < per_64).collect();
            let p = crate::array::BooleanArray::from(keep.clone());
            let f = crate::compute::filter_in(&a, &p, Global).unwrap();
            let got: Vec<Option<i64>> = f.as_primitive::<i64>().unwrap().iter().collect();
            let want: Vec<Option<i64>> = vals
                .iter()
                .zip(&keep)
                .filter(|(_, k)| **k)
                .map(|(v, _)| *v)
                .collect();
            assert_eq!(got, want, "{per_64} of 64 kept");
        }
    }

    /// Both walks (bit by bit, and by `PEXT` or its portable stand-in)
    /// give the model's kept values and validity bits, for masks from
    /// nearly empty to nearly full, from a bit offset, with a short last
    /// word. On x86-64 without BMI2 `staged_with::<_, true>` would take
    /// `PEXT`, so it runs only where the processor has it (elsewhere it is
    /// the portable compress, run everywhere).
    #[test]
    fn both_walks_equal_the_model() {
        let len: usize = 64 * 7 + 13;
        let values: Vec<u64> = (0..len as u64).map(|i| i * 3 + 1).collect();
        let mut next = crate::test_support::rng(0x9E37_79B9_7F4A_7C15u64);
        for density in [1u64, 8, 32, 56, 63] {
            let offset: usize = 3;
            let mut mask_bytes = vec![0u8; (len + offset).div_ceil(8) + 8];
            let mut valid_bytes = vec![0u8; len.div_ceil(8) + 8];
            let mut model = Vec::new();
            for i in 0..len {
                let keep = next() % 64 < density;
                let valid = next() % 4 != 0;
                if keep {
                    mask_bytes[(i + offset) / 8] |= 1 << ((i + offset) % 8);
                    model.push((values[i], valid));
                }
                if valid {
                    valid_bytes[i / 8] |= 1 << (i % 8);
                }
            }
            let mask = Mask {
                bits: Bits {
                    bytes: &mask_bytes,
                    offset,
                },
                len,
                count: model.len(),
                kept: None,
            };
            let valid = Some(Bits {
                bytes: &valid_bytes,
                offset: 0,
            });
            assert_eq!(walk::<false>(&values, &mask, valid), model, "{density}");
            #[cfg(target_arch = "x86_64")]
            let pext = crate::arch::x86::has_fast_pext();
            #[cfg(not(target_arch = "x86_64"))]
            let pext = true;
            if pext {
                assert_eq!(walk::<true>(&values, &mask, valid), model, "{density}");
            }
        }
    }
}
