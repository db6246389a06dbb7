//! [`filter()`] and [`filter_record_batch()`]: keep the slots where a
//! boolean predicate is true.
//!
//! Two strategies, chosen by selectivity (the share of true slots): above
//! 80 % the kept slots are copied run by run (long runs of true become one
//! copy each); below, the kept positions are visited one by one (fixed-width
//! values and views with their validity bits in one walk of the predicate's
//! words, `filter_values`, or from a list of the kept positions when at most
//! 1 in 16 is kept; byte arrays and the other layouts through the gathers
//! of [`super::take()`] by the kept positions). Structs filter each
//! child with the same predicate; dictionaries filter their keys.
//!
//! This file is the dispatcher, one arm per layout; the leaves:
//!
//! | file | what |
//! |---|---|
//! | `mask.rs` | the predicate as a mask: its bits, count and (at low selectivity) kept positions |
//! | `runs.rs` | the runs of kept slots |
//! | `values.rs` | fixed-width values and their validity in one walk of the mask |
//! | `nulls.rs` | a validity bitmap filtered |
//! | `flat.rs` | primitive and view arrays |
//! | `bytes.rs` | binary and string arrays with offsets |
//! | `nested.rs` | structs and dictionaries (their children and keys through [`filter_mask`]) |

mod bytes;
mod flat;
mod mask;
#[cfg(any(feature = "nested", feature = "dictionary"))]
mod nested;
mod nulls;
mod runs;
mod values;

use allocator_api2::alloc::Allocator;

use super::empty::new_empty;
use super::indices::Idx;
use super::set_bits::list_set_bits;
use super::take::take_idx;
use crate::array::{dispatch_primitive, Array, ArrayRef, BooleanArray, RecordBatch};
use crate::buffer::{SharedSlice, TryVec};
use crate::error::{Error, Result};
use bytes::filter_bytes;
use flat::filter_primitive;
#[cfg(feature = "views")]
use flat::filter_views;
use mask::{listing, Listing, Mask};
#[cfg(feature = "dictionary")]
use nested::filter_dictionary;
#[cfg(feature = "nested")]
use nested::filter_struct;

/// Keeps the slots of `array` where `predicate` is true, in order ("filter"):
/// the result has `predicate.true_count()` slots (a null in the predicate
/// drops the slot, as false). Every layout of the columnar format; `array`
/// and `predicate` may be slices.
///
/// What is shared with `array` rather than copied: all of it when every
/// slot is kept (the result is `array` itself); otherwise as for
/// [`super::take()`] (a dictionary's values, a view array's data buffers, a
/// list view's child). New buffers come from `alloc`.
///
/// ```
/// use alkaid::array::{Array, BooleanArray, Int32Array};
/// use alkaid::compute::filter_in;
/// use alkaid::Global;
///
/// let a = Int32Array::from(vec![Some(1), None, Some(3), Some(4)]).into_array_ref();
/// let keep = BooleanArray::from(vec![Some(true), Some(true), None, Some(true)]);
/// let f = filter_in(&a, &keep, Global)?;
/// assert_eq!(f, Int32Array::from(vec![Some(1), None, Some(4)]).into_array_ref());
/// # Ok::<(), alkaid::Error>(())
/// ```
///
/// # Errors
/// [`Error::LengthMismatch`] when `predicate.len() != array.len()`;
/// [`Error::AllocationFailed`]; otherwise as [`super::take_in`].
pub fn filter_in<'a, A: Allocator + Clone>(
    array: &ArrayRef<'a, A>,
    predicate: &BooleanArray<'_, A>,
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    if predicate.len() != array.len() {
        return Err(Error::LengthMismatch);
    }
    let anded = Mask::anded(predicate, alloc.clone())?;
    let mask = Mask::of(predicate, anded.as_ref());
    let kept = mask.kept_positions(listing(array), alloc.clone())?;
    let mask = mask.with_kept(kept.as_deref());
    filter_mask(array, &mask, alloc)
}

/// [`filter_in`] with the global allocator.
///
/// # Errors
/// As [`filter_in`].
#[cfg(feature = "alloc")]
pub fn filter<'a>(
    array: &ArrayRef<'a, crate::Global>,
    predicate: &BooleanArray<'_, crate::Global>,
) -> Result<ArrayRef<'a, crate::Global>> {
    filter_in(array, predicate, crate::Global)
}

/// Filters every column of `batch` by `predicate` ([`filter_in`]); the
/// schema is shared.
///
/// # Errors
/// [`Error::LengthMismatch`] when `predicate.len() != batch.num_rows()`;
/// otherwise as [`filter_in`], with the column's index in the location.
pub fn filter_record_batch_in<'a, A: Allocator + Clone>(
    batch: &RecordBatch<'a, A>,
    predicate: &BooleanArray<'_, A>,
    alloc: A,
) -> Result<RecordBatch<'a, A>> {
    if predicate.len() != batch.num_rows() {
        return Err(Error::LengthMismatch);
    }
    let anded = Mask::anded(predicate, alloc.clone())?;
    let mask = Mask::of(predicate, anded.as_ref());
    let list = match batch.num_columns() {
        1 => batch.column(0).map_or(Listing::Always, listing),
        _ => Listing::Always,
    };
    let kept = mask.kept_positions(list, alloc.clone())?;
    let mask = mask.with_kept(kept.as_deref());
    let n = batch.num_columns();
    let columns = if n == 0 {
        SharedSlice::empty()
    } else {
        SharedSlice::try_from_fn_in(n, alloc.clone(), |i| {
            let c = batch.column(i).ok_or(Error::SchemaMismatch)?;
            filter_mask(c, &mask, alloc.clone()).map_err(|e| e.with_field(i))
        })?
    };
    RecordBatch::try_new_with_rows(batch.schema().clone(), columns, mask.count)
}

/// [`filter_record_batch_in`] with the global allocator.
///
/// # Errors
/// As [`filter_record_batch_in`].
#[cfg(feature = "alloc")]
pub fn filter_record_batch<'a>(
    batch: &RecordBatch<'a, crate::Global>,
    predicate: &BooleanArray<'_, crate::Global>,
) -> Result<RecordBatch<'a, crate::Global>> {
    filter_record_batch_in(batch, predicate, crate::Global)
}

/// [`filter_in`] by a mask of `array.len()` bits.
fn filter_mask<'a, A: Allocator + Clone>(
    array: &ArrayRef<'a, A>,
    mask: &Mask<'_>,
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    if mask.len != array.len() {
        return Err(Error::LengthMismatch);
    }
    if mask.count == mask.len {
        return Ok(array.clone());
    }
    if mask.count == 0 {
        return new_empty(array.data_type(), alloc);
    }
    dispatch_primitive!(array; a: T => filter_primitive::<T, A>(a, mask, alloc), {
        ArrayRef::Binary(a) => filter_bytes(a, mask, alloc),
        ArrayRef::LargeBinary(a) => filter_bytes(a, mask, alloc),
        ArrayRef::Utf8(a) => filter_bytes(a, mask, alloc),
        ArrayRef::LargeUtf8(a) => filter_bytes(a, mask, alloc),
        #[cfg(feature = "views")]
        ArrayRef::BinaryView(a) => filter_views(a, mask, alloc),
        #[cfg(feature = "views")]
        ArrayRef::Utf8View(a) => filter_views(a, mask, alloc),
        #[cfg(feature = "nested")]
        ArrayRef::Struct(s) => filter_struct(s, mask, alloc),
        #[cfg(feature = "dictionary")]
        ArrayRef::Dictionary(d) => filter_dictionary(d, mask, alloc),
        other => match mask.kept {
            Some(kept) => take_idx(other, &Idx::all_valid(kept), alloc),
            None => {
                let mut kept = TryVec::new_in(alloc.clone());
                kept.try_reserve(mask.count)?;
                list_set_bits(mask.bits, mask.len, &mut kept)?;
                take_idx(other, &Idx::all_valid(kept.as_slice()), alloc)
            }
        },
    })
}
