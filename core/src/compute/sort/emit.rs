//! The result of a sort: the sorted valid rows' indices with the null
//! rows' before or after them, as a UInt32 array.

use allocator_api2::alloc::Allocator;

use crate::array::PrimitiveArray;
use crate::buffer::{MutableBuffer, ScalarBuffer};
use crate::datatypes::DataType;
use crate::error::{Error, Result};

/// The row count as `u32` indices.
pub(super) fn row_count(len: usize) -> Result<u32> {
    u32::try_from(len).map_err(|_| Error::CapacityOverflow)
}

/// The `keep` sorted indices: the null rows' (`nulls`, the first of
/// `null_total` in index order) before or after the sorted valid rows'
/// (`index` of each of `valid`, the first ones up to `keep`).
pub(super) fn emit<'a, K, A: Allocator + Clone>(
    valid: &[K],
    index: impl Fn(&K) -> u32,
    nulls: &[u32],
    null_total: usize,
    keep: usize,
    nulls_first: bool,
    alloc: A,
) -> Result<PrimitiveArray<'a, u32, A>> {
    let before = if nulls_first { keep.min(null_total) } else { 0 };
    let valid = valid.get(..keep - before).unwrap_or(valid);
    let after = keep - before - valid.len();
    let mut out = MutableBuffer::new_in(alloc);
    out.try_reserve_exact(keep.checked_mul(4).ok_or(Error::CapacityOverflow)?)?;
    out.try_extend_from_typed(nulls.get(..before).unwrap_or(nulls))?;
    out.try_extend_mapped(valid, |_, v| index(v))?;
    out.try_extend_from_typed(nulls.get(..after).unwrap_or(nulls))?;
    let values = ScalarBuffer::try_from_buffer(out.into_buffer())?;
    // SAFETY: `u32` stores UInt32; no bitmap.
    Ok(unsafe { PrimitiveArray::new_unchecked(DataType::UInt32, values, None) })
}
