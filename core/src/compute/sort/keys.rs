//! [`SortKeys`]: what the rows of a column are sorted by, one key per
//! valid row with its index: values packed into a `u64` with the index,
//! (value, index) pairs, an 8-byte prefix of byte values, or rows of the
//! row format.

use core::cmp::Ordering;

use allocator_api2::alloc::Allocator;

use super::radix;
use super::value::SortValue;
use crate::error::Result;

/// The rows of one column, as `sort_rows` reads them: a key per valid
/// row and a total order of the keys that includes the direction and puts
/// equal values in index order (so that any sort of the keys is stable).
pub(super) trait SortKeys {
    /// What a valid row is sorted by (its index included).
    type Key: Copy;
    /// The key of valid row `i`.
    fn key(&self, i: u32) -> Self::Key;
    /// The total order of keys.
    fn cmp(&self, a: &Self::Key, b: &Self::Key) -> Ordering;
    /// The row index in a key.
    fn index(k: &Self::Key) -> u32;
    /// Sorts all of `keys` (made in index order) by [`Self::cmp`].
    ///
    /// # Errors
    /// `Error::AllocationFailed` (of the sorts that need memory).
    fn sort_all<A: Allocator>(&self, keys: &mut [Self::Key], alloc: A) -> Result<()> {
        let _ = alloc;
        keys.sort_unstable_by(|a, b| self.cmp(a, b));
        Ok(())
    }
}

/// Values of at most 64 bits with their index in one `u128`: the value's
/// order-preserving `u64` (inverted when descending) above the index, so
/// that integer order is the sort order, ties by index.
pub(super) struct Packed<'x, T> {
    pub(super) values: &'x [T],
    pub(super) flip: u64,
}

impl<T: SortValue> SortKeys for Packed<'_, T> {
    type Key = u128;
    #[inline(always)]
    fn key(&self, i: u32) -> u128 {
        let v = self.values.get(i as usize).copied().unwrap_or_default();
        (u128::from(v.ordered() ^ self.flip) << 32) | u128::from(i)
    }
    #[inline(always)]
    fn cmp(&self, a: &u128, b: &u128) -> Ordering {
        a.cmp(b)
    }
    #[inline(always)]
    fn index(k: &u128) -> u32 {
        *k as u32
    }
    fn sort_all<A: Allocator>(&self, keys: &mut [u128], alloc: A) -> Result<()> {
        if keys.len() < radix::MIN_RADIX_LEN {
            keys.sort_unstable();
            Ok(())
        } else {
            radix::radix_sort(keys, alloc)
        }
    }
}

/// Values wider than 64 bits beside their index.
pub(super) struct Pairs<'x, T> {
    pub(super) values: &'x [T],
    pub(super) descending: bool,
}

impl<T: SortValue> SortKeys for Pairs<'_, T> {
    type Key = (T, u32);
    fn key(&self, i: u32) -> (T, u32) {
        (self.values.get(i as usize).copied().unwrap_or_default(), i)
    }
    fn cmp(&self, a: &(T, u32), b: &(T, u32)) -> Ordering {
        let o = T::compare(a.0, b.0);
        let o = if self.descending { o.reverse() } else { o };
        o.then_with(|| a.1.cmp(&b.1))
    }
    fn index(k: &(T, u32)) -> u32 {
        k.1
    }
}

/// The first 8 bytes of `bytes` as a big-endian integer, zero padded:
/// integer order agrees with byte order wherever two prefixes differ
/// (zero padding can only make a prefix look equal, never reorder).
#[inline(always)]
pub(super) fn prefix(bytes: &[u8]) -> u64 {
    if let Some(head) = bytes.first_chunk::<8>() {
        return u64::from_be_bytes(*head);
    }
    let mut head = [0u8; 8];
    if let Some(h) = head.get_mut(..bytes.len()) {
        h.copy_from_slice(bytes);
    }
    u64::from_be_bytes(head)
}

/// Binary and string values: the 8-byte [`prefix`] (inverted when
/// descending) beside the index, the whole bytes read only when prefixes
/// are equal.
pub(super) struct Prefixed<F> {
    pub(super) value: F,
    pub(super) descending: bool,
}

impl<'v, F: Fn(usize) -> &'v [u8]> SortKeys for Prefixed<F> {
    type Key = (u64, u32);
    #[inline(always)]
    fn key(&self, i: u32) -> (u64, u32) {
        let p = prefix((self.value)(i as usize));
        (if self.descending { !p } else { p }, i)
    }
    #[inline(always)]
    fn cmp(&self, a: &(u64, u32), b: &(u64, u32)) -> Ordering {
        a.0.cmp(&b.0)
            .then_with(|| {
                let o = (self.value)(a.1 as usize).cmp((self.value)(b.1 as usize));
                if self.descending {
                    o.reverse()
                } else {
                    o
                }
            })
            .then_with(|| a.1.cmp(&b.1))
    }
    #[inline(always)]
    fn index(k: &(u64, u32)) -> u32 {
        k.1
    }
    /// Many keys: by prefix ([`radix::bucket_sort_prefixes`]: equal
    /// prefixes stay in index order), then each run of equal prefixes by the
    /// whole values (runs are short: prefixes of 8 bytes mostly differ).
    fn sort_all<A: Allocator>(&self, keys: &mut [(u64, u32)], alloc: A) -> Result<()> {
        if keys.len() < radix::MIN_RADIX_LEN {
            keys.sort_unstable_by(|a, b| self.cmp(a, b));
            return Ok(());
        }
        radix::bucket_sort_prefixes(keys, alloc)?;
        for run in keys.chunk_by_mut(|a, b| a.0 == b.0) {
            if run.len() > 1 {
                run.sort_unstable_by(|a, b| self.cmp(a, b));
            }
        }
        Ok(())
    }
}

/// Rows of the row format: their first 16 bytes as two big-endian
/// integers beside the index (rows of several columns often share their
/// first 8 bytes, e.g. a null marker and the high bytes of an integer), the
/// whole rows read only when those are equal.
pub(super) struct RowKeys<F> {
    pub(super) row: F,
}

impl<'v, F: Fn(usize) -> &'v [u8]> SortKeys for RowKeys<F> {
    type Key = (u64, u64, u32);
    #[inline(always)]
    fn key(&self, i: u32) -> (u64, u64, u32) {
        let r = (self.row)(i as usize);
        (prefix(r), prefix(r.get(8..).unwrap_or(&[])), i)
    }
    #[inline(always)]
    fn cmp(&self, a: &(u64, u64, u32), b: &(u64, u64, u32)) -> Ordering {
        (a.0, a.1)
            .cmp(&(b.0, b.1))
            .then_with(|| (self.row)(a.2 as usize).cmp((self.row)(b.2 as usize)))
            .then_with(|| a.2.cmp(&b.2))
    }
    #[inline(always)]
    fn index(k: &(u64, u64, u32)) -> u32 {
        k.2
    }
}
