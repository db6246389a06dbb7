//! [`interleave_in`]: rows picked from several arrays of one data type, in
//! any order, into one array ("interleave" of `arrow-select`).

use allocator_api2::alloc::Allocator;

use super::{concat, take_in, Indices};
use crate::array::{Array, ArrayRef};
use crate::buffer::TryVec;
use crate::error::{Error, Result};

/// The array whose slot `i` is slot `indices[i].1` of `arrays[indices[i].0]`:
/// rows of several arrays of one data type merged in any order (after a
/// merge sort or a join, for instance), with the nulls they have.
///
/// The arrays are concatenated ([`concat()`], which shares the data buffers
/// of view arrays) and the rows taken from the result ([`take_in`]), so the
/// output shares what `take` shares (dictionary values, view data
/// buffers); the concatenation is a temporary copy of the inputs' values.
///
/// ```
/// use alkaid::array::{Array, Int32Array, StringArray};
/// use alkaid::compute::interleave_in;
/// use alkaid::Global;
///
/// let a = StringArray::from(vec!["a0", "a1"]).into_array_ref();
/// let b = StringArray::from(vec![Some("b0"), None]).into_array_ref();
/// let merged = interleave_in(&[&a, &b], &[(1, 0), (0, 1), (1, 1), (0, 0)], Global)?;
/// let s = merged.as_string().expect("Utf8");
/// assert_eq!(s.iter().collect::<Vec<_>>(), [Some("b0"), Some("a1"), None, Some("a0")]);
///
/// let e = interleave_in(&[&a, &b], &[(2, 0)], Global).unwrap_err();
/// assert_eq!(e, alkaid::Error::TakeIndexOutOfBounds);
/// # Ok::<(), alkaid::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] without arrays; [`Error::TypeMismatch`] when
/// their data types differ; [`Error::TakeIndexOutOfBounds`] (with the
/// pair's position as the row) for an array or row index out of bounds;
/// the errors of [`concat()`] and [`take_in`]; [`Error::AllocationFailed`].
pub fn interleave_in<'a, A: Allocator + Clone>(
    arrays: &[&ArrayRef<'a, A>],
    indices: &[(usize, usize)],
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    if arrays.is_empty() {
        return Err(Error::InvalidArgument);
    }
    // Where each array starts in the concatenation.
    let mut starts = TryVec::new_in(alloc.clone());
    starts.try_reserve(arrays.len())?;
    let mut total = 0usize;
    for a in arrays {
        starts.try_push(total)?;
        total = total.checked_add(a.len()).ok_or(Error::CapacityOverflow)?;
    }
    let mut flat = TryVec::new_in(alloc.clone());
    flat.try_reserve(indices.len())?;
    for (pos, &(array, row)) in indices.iter().enumerate() {
        let (Some(a), Some(&start)) = (arrays.get(array), starts.get(array)) else {
            return Err(Error::TakeIndexOutOfBounds.with_row(pos));
        };
        if row >= a.len() {
            return Err(Error::TakeIndexOutOfBounds.with_row(pos));
        }
        flat.try_push(start + row)?;
    }
    let all = concat(arrays, alloc.clone())?;
    take_in(&all, Indices::Usize(flat.as_slice()), alloc)
}

/// [`interleave_in`] with the global allocator.
///
/// # Errors
/// As [`interleave_in`].
#[cfg(feature = "alloc")]
pub fn interleave<'a>(
    arrays: &[&ArrayRef<'a, crate::Global>],
    indices: &[(usize, usize)],
) -> Result<ArrayRef<'a, crate::Global>> {
    interleave_in(arrays, indices, crate::Global)
}
