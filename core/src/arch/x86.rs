//! Run-time detection of x86-64 instruction set extensions the selection
//! kernels (`crate::compute`) use, and their code that needs them:
//! - BMI1 and BMI2 (`TZCNT`, `BLSR`, `SHLX`, and `PEXT`, which packs the
//!   bits of a word at the set bits of a mask in one instruction), for the
//!   filter of fixed-width values: with them, a kept value costs a few
//!   instructions and its validity bit none (one `PEXT` per 64 slots);
//! - AVX2, whose `VPGATHERDD` reads the bitmap words of eight `u32`
//!   indices at once: take's validity, [`gather_bits_avx2`].
//!
//! `PEXT` is fast (3 cycles) on Intel since Haswell and on AMD since Zen 3
//! (family 0x19); on earlier AMD (and Hygon) processors it is microcoded
//! (tens to hundreds of cycles), so they count as not having it. Other targets, and
//! Miri (which has no `CPUID`), never have either, unless the build enables
//! them (`-C target-feature=+avx2,+bmi1,+bmi2`: how the Miri stage runs
//! this code a second time). This module is compiled only for x86-64.

use core::sync::atomic::{AtomicU8, Ordering};

/// Whether the processor has BMI1 and a fast BMI2 `PEXT`: `CPUID` is asked
/// once, the answer kept in a static (the same for every caller: it is a
/// fact of the machine, not a setting).
#[inline]
pub(crate) fn has_fast_pext() -> bool {
    static STATE: AtomicU8 = AtomicU8::new(0);
    cfg!(all(target_feature = "bmi1", target_feature = "bmi2")) || asked_once(&STATE, detect)
}

/// `detect()`'s answer, asked the first time only and kept in `state` (0:
/// not asked yet; 1: no; 2: yes). Two threads asking at once both ask:
/// the answer is the same.
#[inline]
fn asked_once(state: &AtomicU8, detect: fn() -> bool) -> bool {
    match state.load(Ordering::Relaxed) {
        1 => false,
        2 => true,
        _ => {
            let yes = detect();
            state.store(if yes { 2 } else { 1 }, Ordering::Relaxed);
            yes
        }
    }
}

/// Asks `CPUID` (leaf 0: the vendor; leaf 1: the family; leaf 7: the BMI
/// bits). The `unsafe` blocks are needed before Rust 1.87 (where the
/// `CPUID` intrinsics became safe), hence the `allow`.
#[allow(unused_unsafe)]
fn detect() -> bool {
    if cfg!(miri) {
        // No `CPUID` under Miri: only the features enabled at compile time.
        return false;
    }
    use core::arch::x86_64::{__cpuid, __cpuid_count};
    // SAFETY: every x86-64 processor has `CPUID` (it is part of the
    // architecture's baseline); leaves up to the reported maximum exist.
    let leaf0 = unsafe { __cpuid(0) };
    if leaf0.eax < 7 {
        return false;
    }
    // SAFETY: as above; leaf 7 is at most the maximum leaf (checked).
    let leaf7 = unsafe { __cpuid_count(7, 0) };
    let bmi1 = leaf7.ebx & (1 << 3) != 0;
    let bmi2 = leaf7.ebx & (1 << 8) != 0;
    // "AuthenticAMD" as EBX, EDX, ECX; "HygonGenuine" (Zen 1 cores, family
    // 0x18) counts as AMD.
    let vendor = (leaf0.ebx, leaf0.edx, leaf0.ecx);
    let amd = vendor == (0x6874_7541, 0x6974_6e65, 0x444d_4163)
        || vendor == (0x6f67_7948, 0x6e65_476e, 0x656e_6975);
    // SAFETY: as above; leaf 1 exists whenever leaf 7 does.
    let leaf1 = unsafe { __cpuid(1) };
    let base = (leaf1.eax >> 8) & 0xF;
    let family = if base == 0xF {
        base + ((leaf1.eax >> 20) & 0xFF)
    } else {
        base
    };
    bmi1 && bmi2 && !(amd && family < 0x19)
}

/// The bits of `x` at the set bits of `m`, packed towards bit 0 (`PEXT`).
///
/// # Safety
/// The processor has BMI2 ([`has_fast_pext`] returned `true`).
#[inline(always)]
pub(crate) unsafe fn pext(x: u64, m: u64) -> u64 {
    // SAFETY: the caller has checked that the processor has BMI2.
    unsafe { core::arch::x86_64::_pext_u64(x, m) }
}

/// Whether the processor has AVX2 and the operating system saves the
/// 256-bit registers (`CPUID` leaf 1: OSXSAVE and AVX; `XGETBV`: XMM and
/// YMM state; leaf 7: AVX2), asked once like [`has_fast_pext`].
#[inline]
pub(crate) fn has_avx2() -> bool {
    static STATE: AtomicU8 = AtomicU8::new(0);
    cfg!(target_feature = "avx2") || asked_once(&STATE, detect_avx2)
}

/// Asks `CPUID` and `XGETBV` for AVX2 (see [`has_avx2`]).
#[allow(unused_unsafe)]
fn detect_avx2() -> bool {
    if cfg!(miri) {
        return false;
    }
    use core::arch::x86_64::{__cpuid, __cpuid_count};
    // SAFETY: every x86-64 processor has `CPUID`.
    let leaf0 = unsafe { __cpuid(0) };
    if leaf0.eax < 7 {
        return false;
    }
    // SAFETY: as above; leaves 1 and 7 are at most the maximum (checked).
    let (leaf1, leaf7) = unsafe { (__cpuid(1), __cpuid_count(7, 0)) };
    let osxsave_and_avx = (1 << 27) | (1 << 28);
    if leaf1.ecx & osxsave_and_avx != osxsave_and_avx {
        return false;
    }
    // SAFETY: OSXSAVE is set (checked): the OS has enabled `XGETBV`.
    let xcr0 = unsafe { xgetbv0() };
    xcr0 & 0b110 == 0b110 && leaf7.ebx & (1 << 5) != 0
}

/// `XGETBV` of register 0 (the state components the OS saves).
///
/// # Safety
/// `CPUID` reports OSXSAVE.
#[target_feature(enable = "xsave")]
unsafe fn xgetbv0() -> u64 {
    // SAFETY: the caller checked OSXSAVE.
    unsafe { core::arch::x86_64::_xgetbv(0) }
}

/// Bit `b` of word `w` of `out` is bit `indices[64 * w + b]` of `bits` (LSB
/// order from bit 0 of `bits`; 0 for an index past its end), for every
/// index (`out` has `indices.len().div_ceil(64)` words; others are left
/// alone). Eight indices at a time: each one's 32-bit word of `bits` is
/// read by one `VPGATHERDD` and shifted by a variable shift, the eight bits
/// taken by `VMOVMSKPS`; when one of the eight words is not wholly inside
/// `bits` (the bitmap's last bytes, or an index out of bounds), those eight
/// are read one by one.
///
/// # Safety
/// The processor has AVX2 ([`has_avx2`]).
#[target_feature(enable = "avx2")]
#[allow(unused_unsafe)]
pub(crate) unsafe fn gather_bits_avx2(bits: &[u8], indices: &[u32], out: &mut [u64]) {
    use core::arch::x86_64::{
        _mm256_and_si256, _mm256_castsi256_ps, _mm256_cmpgt_epi32, _mm256_i32gather_epi32,
        _mm256_loadu_si256, _mm256_movemask_ps, _mm256_set1_epi32, _mm256_slli_epi32,
        _mm256_srli_epi32, _mm256_srlv_epi32,
    };
    let one_by_one = |i: u32| -> u64 {
        let i = i as usize;
        bits.get(i / 8).map_or(0, |b| u64::from((b >> (i % 8)) & 1))
    };
    // Words of `bits` wholly inside it; an index's word must be below.
    let whole = i32::try_from(bits.len() / 4).unwrap_or(i32::MAX);
    // SAFETY: the intrinsics in this block need AVX2, which the processor
    // has (the caller's contract); the load reads the 32 bytes of `eight`; the
    // gather reads 4 bytes at `bits + 4 * at` only when every lane's `at` is
    // below `bits.len() / 4` (checked just before), so inside `bits`; the
    // rest work on registers only. (The block is needed before Rust 1.87,
    // where these intrinsics became safe in an AVX2 function.)
    unsafe {
        let whole = _mm256_set1_epi32(whole);
        let low5 = _mm256_set1_epi32(31);
        for (chunk, word) in indices.chunks(64).zip(out.iter_mut()) {
            let mut w = 0u64;
            let mut eights = chunk.chunks_exact(8);
            for (e, eight) in eights.by_ref().enumerate() {
                let idx = _mm256_loadu_si256(eight.as_ptr().cast());
                // Below 2^27: the signed compare is right.
                let at = _mm256_srli_epi32::<5>(idx);
                let inside = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(whole, at)));
                let byte = if inside == 0xFF {
                    let words = _mm256_i32gather_epi32::<4>(bits.as_ptr().cast(), at);
                    let shifted = _mm256_srlv_epi32(words, _mm256_and_si256(idx, low5));
                    let top = _mm256_slli_epi32::<31>(shifted);
                    _mm256_movemask_ps(_mm256_castsi256_ps(top)) as u8 as u64
                } else {
                    let mut b = 0u64;
                    for (t, i) in eight.iter().enumerate() {
                        b |= one_by_one(*i) << t;
                    }
                    b
                };
                w |= byte << (8 * e);
            }
            let done = chunk.len() - eights.remainder().len();
            for (t, i) in eights.remainder().iter().enumerate() {
                w |= one_by_one(*i) << (done + t);
            }
            *word = w;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `CPUID` as read here agrees with std's detection (`PEXT` itself is
    /// checked against the portable compress in `compute::compress`).
    #[test]
    fn detection_agrees_with_std() {
        let fast = has_fast_pext();
        let std_has =
            std::is_x86_feature_detected!("bmi1") && std::is_x86_feature_detected!("bmi2");
        assert!(!fast || std_has, "fast PEXT claimed without BMI1/BMI2");
        // Asked twice: the kept answer is the same.
        assert_eq!(has_fast_pext(), fast);
    }

    /// `gather_bits_avx2` equals a bit-by-bit read for bitmaps of 0 to 70
    /// bytes (whole 32-bit words or not) and indices inside, in the last
    /// partial word, just past the end and far past it, 0 to 200 of them.
    #[test]
    fn gather_bits_avx2_equals_bit_by_bit() {
        if !has_avx2() {
            return;
        }
        let mut next = crate::test_support::rng(0x9E37_79B9_7F4A_7C15);
        // Every length natively; every fifth under Miri (time budget).
        let step = if cfg!(miri) { 5 } else { 1 };
        for bytes in (0usize..71).step_by(step) {
            let bits: std::vec::Vec<u8> = (0..bytes).map(|_| next() as u8).collect();
            for n in [0usize, 1, 7, 8, 9, 63, 64, 65, 200] {
                let indices: std::vec::Vec<u32> = (0..n)
                    .map(|_| match next() % 8 {
                        0 => u32::MAX - (next() % 4) as u32,
                        1 => (bytes * 8 + (next() % 40) as usize) as u32,
                        _ => (next() % (bytes * 8 + 1) as u64) as u32,
                    })
                    .collect();
                let mut out = std::vec![0u64; n.div_ceil(64)];
                // SAFETY: the processor has AVX2 (checked above).
                unsafe { gather_bits_avx2(&bits, &indices, &mut out) };
                for (k, i) in indices.iter().enumerate() {
                    let i = *i as usize;
                    let want = bits.get(i / 8).is_some_and(|b| b >> (i % 8) & 1 == 1);
                    let got = out[k / 64] >> (k % 64) & 1 == 1;
                    assert_eq!(got, want, "{bytes} bytes, index {i} at {k}");
                }
                for (w, word) in out.iter().enumerate() {
                    let live = n - 64 * w;
                    if live < 64 {
                        assert_eq!(word >> live, 0, "bits past the last index");
                    }
                }
            }
        }
    }

    /// `take_in` by `u32` indices (some null) of a nullable Int64 column of
    /// several words, whole and sliced (bit offsets 0, 8, 3), equals the
    /// model: the validity from the AVX2 gather where the offset is a whole
    /// byte, bit by bit elsewhere.
    #[test]
    fn take_of_many_words_equals_the_model() {
        use crate::array::{Array, Int64Array, UInt32Array};
        use crate::Global;
        let mut next = crate::test_support::rng(0x2545_F491_4F6C_DD1D);
        let len = 64 * 11 + 9;
        let vals: std::vec::Vec<Option<i64>> = (0..len as i64)
            // Slots 0 and 8 (where the null indices, 0, point) valid, so
            // that a null index is null only through its own bit.
            .map(|i| (i % 8 == 0 || next() % 3 != 0).then_some(i * 7))
            .collect();
        let whole = Int64Array::from(vals.clone()).into_array_ref();
        for offset in [0usize, 8, 3] {
            let a = whole.slice(offset, len - offset).unwrap();
            let model = &vals[offset..];
            for n in [5usize, 64, 300, 2 * len] {
                if cfg!(miri) && n > 300 {
                    continue;
                }
                let idx: std::vec::Vec<Option<u32>> = (0..n)
                    .map(|_| (next() % 5 != 0).then(|| (next() % model.len() as u64) as u32))
                    .collect();
                let t =
                    crate::compute::take_in(&a, &UInt32Array::from(idx.clone()), Global).unwrap();
                let got: std::vec::Vec<Option<i64>> =
                    t.as_primitive::<i64>().unwrap().iter().collect();
                let want: std::vec::Vec<Option<i64>> = idx
                    .iter()
                    .map(|i| i.and_then(|i| model[i as usize]))
                    .collect();
                assert_eq!(got, want, "offset {offset}, {n} indices");
            }
        }
    }
}
