//! The validity of a concatenation: the inputs' bitmaps one after the
//! other (none when no input has a null).

use allocator_api2::alloc::Allocator;

use crate::array::{Array, ArrayRef};
use crate::buffer::NullBuffer;
use crate::compute::bits::BitWriter;
use crate::error::{Error, Result};

/// Sum of the lengths of `arrays`.
pub(super) fn total_len<A: Allocator>(arrays: &[ArrayRef<'_, A>]) -> Result<usize> {
    arrays.iter().try_fold(0usize, |n, a| {
        n.checked_add(a.len()).ok_or(Error::CapacityOverflow)
    })
}

/// The validity bitmaps of `arrays` one after the other (`total` bits), or
/// `None` when no array has a null.
pub(super) fn concat_nulls<'a, A: Allocator + Clone>(
    arrays: &[ArrayRef<'a, A>],
    total: usize,
    alloc: A,
) -> Result<Option<NullBuffer<'a, A>>> {
    if arrays
        .iter()
        .all(|a| a.nulls().is_none_or(|n| n.null_count() == 0))
    {
        return Ok(None);
    }
    let mut w = BitWriter::try_new(total, alloc)?;
    for a in arrays {
        match a.nulls() {
            Some(n) if n.len() == a.len() => w.append(n.inner()),
            Some(_) => return Err(Error::ValidityTooSmall),
            None => w.append_ones(a.len()),
        }
    }
    Ok(Some(NullBuffer::new(w.finish()?)))
}
