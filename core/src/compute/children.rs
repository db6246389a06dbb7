//! What the kernels of the nested layouts (`take`, `filter`, `concat`)
//! share: a parent checked once it is assembled, the children of a struct
//! or sparse union mapped through a kernel, and a union's child by type id.

use allocator_api2::alloc::Allocator;

use crate::array::{Array, ArrayRef, ValidationLevel};
#[cfg(any(feature = "nested", feature = "union"))]
use crate::buffer::SharedSlice;
#[cfg(any(feature = "nested", feature = "union"))]
use crate::error::Error;
use crate::error::Result;

/// Checks `a` at [`ValidationLevel::Cheap`] and wraps it: the parents of
/// the nested kernels are assembled with `new_unchecked` from inputs that
/// hold the Full-level invariants, and their `new_unchecked` only risks
/// wrong data, never memory safety, should an input break them.
pub(super) fn checked<'a, A: Allocator, T: Array<'a, A>>(a: T) -> Result<ArrayRef<'a, A>> {
    a.validate(ValidationLevel::Cheap)?;
    Ok(a.into_array_ref())
}

/// `f` of each of the `n` first `children`, each sliced to the parent's
/// `offset` and `len` (a struct's or sparse union's slots); an error names
/// its child. No allocation when `n` is 0.
///
/// # Errors
/// [`Error::TypeMismatch`] when there are fewer than `n` children; the
/// slice's and `f`'s errors; [`Error::AllocationFailed`].
#[cfg(any(feature = "nested", feature = "union"))]
pub(super) fn map_children<'a, A: Allocator + Clone>(
    children: &[ArrayRef<'a, A>],
    n: usize,
    (offset, len): (usize, usize),
    alloc: A,
    mut f: impl FnMut(&ArrayRef<'a, A>) -> Result<ArrayRef<'a, A>>,
) -> Result<SharedSlice<'a, ArrayRef<'a, A>, A>> {
    if n == 0 {
        return Ok(SharedSlice::empty());
    }
    SharedSlice::try_from_fn_in(n, alloc, |c| {
        let child = children.get(c).ok_or(Error::TypeMismatch)?;
        let child = child.slice(offset, len)?;
        f(&child).map_err(|e| e.in_child(c))
    })
}

/// Child index of every type id of `fields` (`u8::MAX` = undeclared).
///
/// # Errors
/// [`Error::InvalidDataType`] for a type id outside 0..128 or more than 255
/// children.
#[cfg(feature = "union")]
pub(super) fn child_of_type_id<A: Allocator>(
    fields: &crate::datatypes::UnionFields<'_, A>,
) -> Result<[u8; 128]> {
    let mut index = [u8::MAX; 128];
    for (c, &id) in fields.type_ids().iter().enumerate() {
        let slot = usize::try_from(id)
            .ok()
            .and_then(|id| index.get_mut(id))
            .ok_or(Error::InvalidDataType)?;
        *slot = u8::try_from(c).map_err(|_| Error::InvalidDataType)?;
    }
    Ok(index)
}
