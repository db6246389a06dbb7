//! A least-significant-digit radix sort of packed sort keys (`u128`: an
//! order-preserving 64-bit value above a 32-bit row index), by the value's
//! bytes only: each pass is stable and the keys start in index order, so
//! equal values stay in index order. Bytes equal in every key are skipped.

use allocator_api2::alloc::Allocator;

use crate::buffer::TryVec;
use crate::error::Result;

/// Fewer keys than this are sorted by comparisons (the counting passes and
/// the second buffer do not pay).
pub(super) const MIN_RADIX_LEN: usize = 1 << 12;

/// Sorts `keys` (in index order, each `value << 32 | index`) by value,
/// stably, with a second buffer of the same size from `alloc`.
///
/// # Errors
/// [`crate::Error::AllocationFailed`], [`crate::Error::CapacityOverflow`].
#[inline(never)] // its 9 KiB of counters stay off the callers' stack frames
pub(super) fn radix_sort<A: Allocator>(keys: &mut [u128], alloc: A) -> Result<()> {
    let n = keys.len();
    // One histogram per byte of the value, all in one pass.
    let mut counts = [[0u32; 256]; 8];
    for k in keys.iter() {
        let v = (k >> 32) as u64;
        for (b, c) in counts.iter_mut().enumerate() {
            let digit = (v >> (8 * b)) as u8;
            c[usize::from(digit)] += 1;
        }
    }
    let mut scratch = TryVec::try_from_fn_in(n, alloc, |_| Ok(0u128))?;
    let mut in_keys = true; // where the keys are now
    for (b, c) in counts.iter().enumerate() {
        if c.iter().any(|&x| x as usize == n) {
            continue; // the same byte in every key
        }
        let mut next = [0u32; 256];
        let mut sum = 0u32;
        for (slot, &count) in next.iter_mut().zip(c.iter()) {
            *slot = sum;
            sum = sum.wrapping_add(count);
        }
        let (src, dst): (&[u128], &mut [u128]) = if in_keys {
            (&*keys, scratch.as_mut_slice())
        } else {
            (scratch.as_slice(), &mut *keys)
        };
        for &k in src {
            let digit = usize::from((k >> (32 + 8 * b)) as u8);
            let at = &mut next[digit];
            if let Some(d) = dst.get_mut(*at as usize) {
                *d = k;
            }
            *at = at.wrapping_add(1);
        }
        in_keys = !in_keys;
    }
    if !in_keys {
        keys.copy_from_slice(scratch.as_slice());
    }
    Ok(())
}
