//! [`super::filter()`] of primitive and view arrays: their fixed-width
//! values with their validity ([`super::values`]); views over the same
//! (shared) data buffers.

use allocator_api2::alloc::Allocator;

use super::mask::Mask;
use super::values::filter_values_nulls;
#[cfg(feature = "views")]
use crate::arch::View16;
use crate::array::{Array, ArrayRef, PrimitiveArray, PrimitiveType};
#[cfg(feature = "views")]
use crate::array::{ByteView, ByteViewType, GenericByteViewArray};
use crate::buffer::ScalarBuffer;
use crate::error::Result;

pub(super) fn filter_primitive<'a, T: PrimitiveType, A: Allocator + Clone>(
    p: &PrimitiveArray<'a, T, A>,
    mask: &Mask<'_>,
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    let (values, nulls) = filter_values_nulls(p.values(), p.nulls(), mask, alloc)?;
    let values = ScalarBuffer::<T, A>::try_from_buffer(values.into_buffer())?;
    // SAFETY: `T` stores the input's data type; one bit per kept value.
    let a = unsafe { PrimitiveArray::new_unchecked(p.data_type().clone(), values, nulls) };
    Ok(a.into_array_ref())
}

#[cfg(feature = "views")]
pub(super) fn filter_views<'a, T: ByteViewType, A: Allocator + Clone>(
    v: &GenericByteViewArray<'a, T, A>,
    mask: &Mask<'_>,
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    // As one 16-byte register when 16-byte aligned (as our buffers are),
    // where a `[u8; 16]` goes through the stack.
    let (views, nulls) = match bytemuck::try_cast_slice::<ByteView, View16>(v.views()) {
        Ok(wide) => filter_values_nulls::<View16, A>(wide, v.nulls(), mask, alloc)?,
        Err(_) => filter_values_nulls::<ByteView, A>(v.views(), v.nulls(), mask, alloc)?,
    };
    // SAFETY: every view is one of the (valid) input's, over the same
    // (shared) data buffers.
    let a = unsafe {
        GenericByteViewArray::<T, A>::new_unchecked(
            views.into_buffer(),
            v.data_buffers().clone(),
            nulls,
        )
    };
    Ok(a.into_array_ref())
}
