//! The sort of one column's rows by their keys ([`super::keys`]): nulls
//! placed, a top-k heap or a partial selection under a limit, then the
//! indices emitted.

use allocator_api2::alloc::Allocator;

use super::emit::{emit, row_count};
use super::keys::{Packed, Pairs, Prefixed, SortKeys};
use super::topk::{self, BoundedHeap};
use super::value::SortValue;
use crate::array::{Array, PrimitiveArray};
use crate::buffer::{NullBuffer, TryVec};
use crate::compute::indices::Bits;
use crate::error::Result;
use crate::row::SortOptions;

/// The rows of a column to sort: how many, and which are null (`nulls`
/// with `null_count` of them; `None` when none is).
#[derive(Clone, Copy)]
pub(super) struct Column<'b> {
    pub(super) len: usize,
    pub(super) nulls: Option<Bits<'b>>,
    pub(super) null_count: usize,
}

impl<'b> Column<'b> {
    fn of<A: Allocator>(len: usize, nulls: Option<&'b NullBuffer<'_, A>>) -> Self {
        let nulls = nulls.filter(|n| n.null_count() > 0);
        Column {
            len,
            nulls: nulls.map(Bits::of),
            null_count: nulls.map_or(0, |n| n.null_count()),
        }
    }
}

/// The sorted indices of a column (see `sort_to_indices_in`): the null
/// rows in index order before or after the valid ones sorted by `keys`, the
/// first `limit` kept. With a limit of at most a tenth of the rows, one
/// pass offers every row to a heap of `limit` candidates (top-k); otherwise
/// every valid row's key is made, partially selected when the limit leaves
/// some out, and sorted.
pub(super) fn sort_rows<'a, K: SortKeys, A: Allocator + Clone>(
    keys: &K,
    col: Column<'_>,
    options: SortOptions,
    limit: Option<usize>,
    alloc: A,
) -> Result<PrimitiveArray<'a, u32, A>> {
    let n = row_count(col.len)?;
    let keep = limit.unwrap_or(col.len).min(col.len);
    let valid_rows = col.len - col.null_count.min(col.len);
    // Valid rows the result holds (the null count is exact for a validated
    // array; a larger real one only lowers this).
    let wanted = if options.nulls_first {
        keep - keep.min(col.null_count)
    } else {
        keep.min(valid_rows)
    };
    let cmp = |a: &K::Key, b: &K::Key| keys.cmp(a, b);
    let mut nulls = TryVec::new_in(alloc.clone());
    nulls.try_reserve(keep.min(col.null_count))?;
    let mut null_total = 0usize;
    if limit.is_some() && topk::use_heap(wanted, valid_rows) {
        let mut heap = BoundedHeap::try_new_in(wanted, alloc.clone())?;
        let mut cmp = cmp;
        for i in 0..n {
            if col.nulls.is_some_and(|b| !b.get(i as usize)) {
                null_total += 1;
                if nulls.len() < keep {
                    nulls.try_push(i)?;
                } else if heap.capacity() == 0 {
                    break; // `keep` nulls and no valid row wanted
                }
            } else if heap.capacity() > 0 {
                heap.offer(keys.key(i), &mut cmp)?;
            }
        }
        let sorted = heap.into_sorted(&mut cmp);
        return emit(
            sorted.as_slice(),
            K::index,
            nulls.as_slice(),
            null_total,
            keep,
            options.nulls_first,
            alloc,
        );
    }
    let mut valid = match col.nulls {
        None => TryVec::try_from_fn_in(col.len, alloc.clone(), |i| Ok(keys.key(i as u32)))?,
        Some(b) => {
            let mut v = TryVec::new_in(alloc.clone());
            v.try_reserve(valid_rows)?;
            for i in 0..n {
                if b.get(i as usize) {
                    v.try_push(keys.key(i))?;
                } else {
                    null_total += 1;
                    if nulls.len() < keep {
                        nulls.try_push(i)?;
                    }
                }
            }
            v
        }
    };
    let nulls_before = if options.nulls_first {
        keep.min(null_total)
    } else {
        0
    };
    let wanted = (keep - nulls_before).min(valid.len());
    let pairs = valid.as_mut_slice();
    let head = if wanted == pairs.len() {
        keys.sort_all(pairs, alloc.clone())?;
        pairs
    } else {
        if wanted > 0 {
            pairs.select_nth_unstable_by(wanted - 1, cmp);
        }
        let head = pairs.get_mut(..wanted).unwrap_or(&mut []);
        head.sort_unstable_by(cmp);
        head
    };
    emit(
        head,
        K::index,
        nulls.as_slice(),
        null_total,
        keep,
        options.nulls_first,
        alloc,
    )
}

pub(super) fn sort_primitive<'a, T: SortValue, A: Allocator + Clone>(
    p: &PrimitiveArray<'_, T, A>,
    options: SortOptions,
    limit: Option<usize>,
    alloc: A,
) -> Result<PrimitiveArray<'a, u32, A>> {
    let col = Column::of(p.len(), p.nulls());
    let values = p.values();
    if T::PACKS {
        let flip = if options.descending { u64::MAX } else { 0 };
        sort_rows(&Packed { values, flip }, col, options, limit, alloc)
    } else {
        let descending = options.descending;
        sort_rows(&Pairs { values, descending }, col, options, limit, alloc)
    }
}

/// Binary and string columns (offsets or views): by their bytes, which for
/// UTF-8 is the order of the strings.
pub(super) fn sort_bytes<'a, 'r, 'v, A: Allocator + Clone>(
    array: &impl Array<'r, A>,
    value: impl Fn(usize) -> Option<&'v [u8]>,
    options: SortOptions,
    limit: Option<usize>,
    alloc: A,
) -> Result<PrimitiveArray<'a, u32, A>> {
    let keys = Prefixed {
        value: |i| value(i).unwrap_or(&[]),
        descending: options.descending,
    };
    sort_rows(
        &keys,
        Column::of(array.len(), array.nulls()),
        options,
        limit,
        alloc,
    )
}
