//! Top-k selection for the sort kernels: a bounded max-heap that keeps the
//! `k` smallest items offered to it (by a total order), so that a sort with
//! a small `limit` reads every row once and keeps only `k` candidates
//! instead of building and partially sorting a key per row.

use core::cmp::Ordering;

use allocator_api2::alloc::Allocator;

use crate::buffer::TryVec;
use crate::error::Result;

/// At most `cap` items, the largest (per the order given to each call) at
/// the root: a new item enters only when it is smaller than the root.
pub(super) struct BoundedHeap<T, A: Allocator> {
    items: TryVec<T, A>,
    cap: usize,
}

/// `true` when the top-k path pays: `k` candidates of `n` rows, at most a
/// tenth (a larger `k` makes heap upkeep dearer than a partial sort).
pub(super) fn use_heap(k: usize, n: usize) -> bool {
    k <= n / 10
}

impl<T: Copy, A: Allocator> BoundedHeap<T, A> {
    /// An empty heap of capacity `cap` items (allocated at once).
    ///
    /// # Errors
    /// [`crate::Error::AllocationFailed`], [`crate::Error::CapacityOverflow`].
    pub(super) fn try_new_in(cap: usize, alloc: A) -> Result<Self> {
        let mut items = TryVec::new_in(alloc);
        items.try_reserve(cap)?;
        Ok(BoundedHeap { items, cap })
    }

    /// The capacity (`k`).
    pub(super) fn capacity(&self) -> usize {
        self.cap
    }

    /// The largest item kept, once the heap is full (`None` before: every
    /// item offered is then kept).
    #[inline]
    pub(super) fn worst_if_full(&self) -> Option<&T> {
        if self.items.len() < self.cap {
            None
        } else {
            self.items.as_slice().first()
        }
    }

    /// Offers `item`: kept when the heap is not full, or in place of the
    /// root when `cmp(item, root)` is `Less` (the root is then dropped).
    /// `cmp` must be a total order (ties broken, e.g. by row index), the
    /// same on every call.
    ///
    /// # Errors
    /// [`crate::Error::AllocationFailed`] (not when the capacity was
    /// reserved, as [`Self::try_new_in`] does).
    #[inline]
    pub(super) fn offer(
        &mut self,
        item: T,
        cmp: &mut impl FnMut(&T, &T) -> Ordering,
    ) -> Result<()> {
        if self.items.len() < self.cap {
            self.items.try_push(item)?;
            let last = self.items.len() - 1;
            sift_up(self.items.as_mut_slice(), last, cmp);
        } else if let Some(root) = self.items.as_mut_slice().first_mut() {
            if cmp(&item, root) == Ordering::Less {
                *root = item;
                sift_down(self.items.as_mut_slice(), 0, cmp);
            }
        }
        Ok(())
    }

    /// The items kept, smallest first.
    pub(super) fn into_sorted(mut self, cmp: &mut impl FnMut(&T, &T) -> Ordering) -> TryVec<T, A> {
        self.items.as_mut_slice().sort_unstable_by(|a, b| cmp(a, b));
        self.items
    }
}

/// Moves item `pos` towards the root while it is larger than its parent.
fn sift_up<T>(heap: &mut [T], mut pos: usize, cmp: &mut impl FnMut(&T, &T) -> Ordering) {
    while pos > 0 {
        let parent = (pos - 1) / 2;
        match (heap.get(parent), heap.get(pos)) {
            (Some(p), Some(c)) if cmp(p, c) == Ordering::Less => heap.swap(parent, pos),
            _ => return,
        }
        pos = parent;
    }
}

/// Moves item `pos` down while a child is larger, swapping with the larger
/// child.
fn sift_down<T>(heap: &mut [T], mut pos: usize, cmp: &mut impl FnMut(&T, &T) -> Ordering) {
    loop {
        let left = 2 * pos + 1;
        let Some(l) = heap.get(left) else {
            return;
        };
        let larger = match heap.get(left + 1) {
            Some(r) if cmp(l, r) == Ordering::Less => left + 1,
            _ => left,
        };
        match (heap.get(pos), heap.get(larger)) {
            (Some(p), Some(c)) if cmp(p, c) == Ordering::Less => heap.swap(pos, larger),
            _ => return,
        }
        pos = larger;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Global;

    use crate::test_support::rng;

    #[test]
    fn keeps_the_k_smallest_in_order_ties_by_position() {
        let mut next = rng(3);
        let keys: std::vec::Vec<u8> = (0..500).map(|_| (next() % 17) as u8).collect();
        for k in [0usize, 1, 2, 7, 50, 499, 500, 600] {
            let mut cmp = |a: &(u8, u32), b: &(u8, u32)| a.0.cmp(&b.0).then_with(|| a.1.cmp(&b.1));
            let mut heap = BoundedHeap::try_new_in(k, Global).unwrap();
            for (i, &key) in keys.iter().enumerate() {
                heap.offer((key, i as u32), &mut cmp).unwrap();
            }
            let got: std::vec::Vec<u32> = heap
                .into_sorted(&mut cmp)
                .as_slice()
                .iter()
                .map(|p| p.1)
                .collect();
            let mut want: std::vec::Vec<u32> = (0..keys.len() as u32).collect();
            want.sort_by_key(|&i| keys[i as usize]);
            want.truncate(k);
            assert_eq!(got, want, "k = {k}");
        }
    }
}
