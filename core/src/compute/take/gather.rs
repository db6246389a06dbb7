//! The two reads every gather makes: fixed-width values by index (the
//! values of primitives, views, list-view offsets and sizes, union type
//! ids), and the range of a slot in its offsets.

use allocator_api2::alloc::Allocator;

use crate::buffer::{MutableBuffer, OffsetSize};
use crate::compute::indices::{Idx, TakeIndex};
use crate::error::{Error, Result};

/// Gathers `values[idx[k]]` for every `k` (the default for a null index),
/// or the error for the first valid index out of bounds.
pub(super) fn gather<T: bytemuck::Pod, I: TakeIndex, A: Allocator>(
    values: &[T],
    idx: &Idx<'_, I>,
    alloc: A,
) -> Result<MutableBuffer<A>> {
    let mut out = MutableBuffer::new_in(alloc);
    let mut bad = None;
    // `values[j]` for slot `k`; out of bounds, zero (and `k` kept).
    let mut at = |k: usize, j: usize| match values.get(j) {
        Some(v) => *v,
        None => {
            bad.get_or_insert(k);
            T::zeroed()
        }
    };
    match idx.valid {
        None => out.try_extend_mapped(idx.values, |k, i| at(k, i.index()))?,
        Some(_) => out.try_extend_from_fn(idx.len(), |k| match idx.get(k) {
            None => T::zeroed(),
            Some(j) => at(k, j),
        })?,
    }
    match bad {
        Some(k) => Err(Error::TakeIndexOutOfBounds.with_row(k)),
        None => Ok(out),
    }
}

/// The byte range of slot `j` of offsets `offs` (`len + 1` entries).
#[inline]
pub(super) fn range_of<O: OffsetSize>(offs: &[O], j: usize) -> Result<(usize, usize)> {
    let start = offs.get(j).and_then(|o| o.to_usize());
    let end = offs.get(j.wrapping_add(1)).and_then(|o| o.to_usize());
    match (start, end) {
        (Some(s), Some(e)) if s <= e => Ok((s, e)),
        _ => Err(Error::OffsetOutOfBounds),
    }
}
