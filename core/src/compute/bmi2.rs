//! Run-time detection of the x86-64 bit-manipulation instructions BMI1 and
//! BMI2 (`TZCNT`, `BLSR`, `SHLX`, and `PEXT`, which packs the bits of a
//! word at the set bits of a mask in one instruction), for the filter of
//! fixed-width values: with them, a kept value costs a few instructions
//! and its validity bit none (one `PEXT` per 64 slots).
//!
//! `PEXT` is fast (3 cycles) on Intel since Haswell and on AMD since Zen 3
//! (family 0x19); on earlier AMD (and Hygon) processors it is microcoded
//! (tens to hundreds of cycles), so they count as not having it. Other targets, and
//! Miri (which has no `CPUID`), never have it.

#[cfg(all(target_arch = "x86_64", not(miri)))]
use core::sync::atomic::{AtomicU8, Ordering};

/// Whether the processor has BMI1 and a fast BMI2 `PEXT`: `CPUID` is asked
/// once, the answer kept in a static (the same for every caller: it is a
/// fact of the machine, not a setting).
#[cfg(all(target_arch = "x86_64", not(miri)))]
#[inline]
pub(super) fn has_fast_pext() -> bool {
    /// 0: not asked yet; 1: no; 2: yes.
    static STATE: AtomicU8 = AtomicU8::new(0);
    if cfg!(all(target_feature = "bmi1", target_feature = "bmi2")) {
        return true;
    }
    match STATE.load(Ordering::Relaxed) {
        1 => false,
        2 => true,
        _ => {
            let yes = detect();
            STATE.store(if yes { 2 } else { 1 }, Ordering::Relaxed);
            yes
        }
    }
}

/// Asks `CPUID` (leaf 0: the vendor; leaf 1: the family; leaf 7: the BMI
/// bits). The `unsafe` blocks are needed before Rust 1.87 (where the
/// `CPUID` intrinsics became safe), hence the `allow`.
#[cfg(all(target_arch = "x86_64", not(miri)))]
#[allow(unused_unsafe)]
fn detect() -> bool {
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
#[cfg(all(target_arch = "x86_64", not(miri)))]
#[inline(always)]
pub(super) unsafe fn pext(x: u64, m: u64) -> u64 {
    // SAFETY: the caller has checked that the processor has BMI2.
    unsafe { core::arch::x86_64::_pext_u64(x, m) }
}

#[cfg(all(test, target_arch = "x86_64", not(miri)))]
mod tests {
    use super::*;

    /// `CPUID` as read here agrees with std's detection, and `PEXT` (where
    /// used) packs like the portable compress.
    #[test]
    fn detection_agrees_with_std_and_pext_with_compress() {
        let fast = has_fast_pext();
        let std_has =
            std::is_x86_feature_detected!("bmi1") && std::is_x86_feature_detected!("bmi2");
        assert!(!fast || std_has, "fast PEXT claimed without BMI1/BMI2");
        // Asked twice: the kept answer is the same.
        assert_eq!(has_fast_pext(), fast);
        if fast {
            let mut x = 0x0123_4567_89AB_CDEFu64;
            for _ in 0..1000 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let m = x.rotate_left(23) ^ (x >> 3);
                // SAFETY: the processor has BMI2 (`fast`).
                let p = unsafe { pext(x, m) };
                assert_eq!(p, super::super::compress::compress(x, m), "{x:#x} {m:#x}");
            }
        }
    }
}
