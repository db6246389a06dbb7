//! Radix sorts of sort keys: an order-preserving 64-bit value beside a
//! 32-bit row index.
//!
//! - [`radix_sort`]: least-significant digit first, of keys packed in a
//!   `u128` (the value above the index), by the value's bytes only: each
//!   pass is stable and the keys start in index order, so equal values stay
//!   in index order. Bytes equal in every key are skipped. For integers,
//!   whose high bytes are often all alike.
//! - [`bucket_sort_prefixes`]: most-significant bits first, one pass into
//!   buckets by the value's top bits, then each bucket sorted in the cache.
//!   For string prefixes, whose every byte varies (eight LSD passes over
//!   the keys measured slower than a comparison sort).

use allocator_api2::alloc::Allocator;

use crate::buffer::TryVec;
use crate::error::Result;

/// Fewer keys than this are sorted by comparisons (the counting passes and
/// the second buffer do not pay).
pub(in crate::compute) const MIN_RADIX_LEN: usize = 1 << 12;

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

/// Sorts `keys` (`(value, index)`, in index order) by value, equal values
/// in index order: each key goes into a bucket by its value's top bits
/// (about 16 keys a bucket, at most 2^16 buckets; one counting pass and one
/// scatter into a second buffer of packed `value << 32 | index` keys), and
/// each bucket is then sorted as integers while it is in the cache.
///
/// # Errors
/// [`crate::Error::AllocationFailed`], [`crate::Error::CapacityOverflow`].
pub(super) fn bucket_sort_prefixes<A: Allocator>(keys: &mut [(u64, u32)], alloc: A) -> Result<()> {
    let n = keys.len();
    // `log2(n) - 4` bits, 8 to 16.
    let bits = (usize::BITS - n.leading_zeros())
        .saturating_sub(4)
        .clamp(8, 16);
    let bucket = |v: u64| (v >> (64 - bits)) as usize;
    let buckets = 1usize << bits;
    // `starts[b]..starts[b + 1]`: bucket `b`'s keys in the sorted order.
    let mut starts = TryVec::try_from_fn_in(buckets + 1, &alloc, |_| Ok(0usize))?;
    for &(v, _) in keys.iter() {
        if let Some(c) = starts.get_mut(bucket(v) + 1) {
            *c += 1;
        }
    }
    let mut sum = 0usize;
    for c in starts.as_mut_slice() {
        sum += *c;
        *c = sum;
    }
    let mut next =
        TryVec::try_from_fn_in(buckets, &alloc, |b| Ok(starts.get(b).copied().unwrap_or(0)))?;
    let mut packed = TryVec::try_from_fn_in(n, &alloc, |_| Ok(0u128))?;
    for &(v, index) in keys.iter() {
        if let Some(at) = next.get_mut(bucket(v)) {
            if let Some(d) = packed.get_mut(*at) {
                *d = (u128::from(v) << 32) | u128::from(index);
            }
            *at += 1;
        }
    }
    for w in starts.windows(2) {
        if let &[a, b] = w {
            if let Some(keys) = packed.get_mut(a..b).filter(|k| k.len() > 1) {
                keys.sort_unstable();
            }
        }
    }
    for (k, &p) in keys.iter_mut().zip(packed.iter()) {
        *k = ((p >> 32) as u64, p as u32);
    }
    Ok(())
}
