//! [`super::take()`] of the flat fixed-width layouts: primitive, boolean,
//! fixed-size binary and views (binary and string views: only the 16-byte
//! views are gathered, over the same data buffers).

use allocator_api2::alloc::Allocator;

use super::gather::gather;
use super::nulls::take_nulls;
#[cfg(feature = "views")]
use crate::arch::View16;
use crate::array::{
    Array, ArrayRef, BooleanArray, FixedSizeBinaryArray, PrimitiveArray, PrimitiveType,
};
#[cfg(feature = "views")]
use crate::array::{ByteView, ByteViewType, GenericByteViewArray};
use crate::buffer::{BooleanBuffer, MutableBuffer, ScalarBuffer};
use crate::compute::indices::{check_bounds, Bits, Idx, TakeIndex};
use crate::error::{Error, Result};

pub(super) fn take_primitive<'a, T: PrimitiveType, I: TakeIndex, A: Allocator + Clone>(
    p: &PrimitiveArray<'a, T, A>,
    idx: &Idx<'_, I>,
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    let values = gather(p.values(), idx, alloc.clone())?;
    let nulls = take_nulls(p.nulls(), idx, alloc)?;
    let values = ScalarBuffer::<T, A>::try_from_buffer(values.into_buffer())?;
    // SAFETY: `T` stores the input's data type, and the bitmap (if any) has
    // one bit per gathered value.
    let a = unsafe { PrimitiveArray::new_unchecked(p.data_type().clone(), values, nulls) };
    Ok(a.into_array_ref())
}

pub(super) fn take_boolean<'a, I: TakeIndex, A: Allocator + Clone>(
    b: &BooleanArray<'a, A>,
    idx: &Idx<'_, I>,
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    check_bounds(idx, b.len())?;
    let src = Bits {
        bytes: b.values().inner().as_slice(),
        offset: b.values().offset(),
    };
    let n = idx.len();
    let mut out = MutableBuffer::new_in(alloc.clone());
    let mut byte_index = 0usize;
    out.try_extend_from_fn(n.div_ceil(8), |_| {
        let mut byte = 0u8;
        let base = byte_index * 8;
        for k in 0..8 {
            let bit = idx.get(base + k).is_some_and(|j| src.get(j));
            byte |= u8::from(bit) << k;
        }
        byte_index += 1;
        byte
    })?;
    let nulls = take_nulls(b.nulls(), idx, alloc)?;
    let values = BooleanBuffer::try_new(out.into_buffer(), 0, n)?;
    Ok(BooleanArray::try_new(values, nulls)?.into_array_ref())
}

pub(super) fn take_fixed_size_binary<'a, I: TakeIndex, A: Allocator + Clone>(
    f: &FixedSizeBinaryArray<'a, A>,
    idx: &Idx<'_, I>,
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    check_bounds(idx, f.len())?;
    let w = f.value_length();
    let n = idx.len();
    let mut out = MutableBuffer::new_in(alloc.clone());
    out.try_reserve_exact(n.checked_mul(w).ok_or(Error::CapacityOverflow)?)?;
    for k in 0..n {
        match idx.get(k) {
            Some(j) => {
                let v = f.value(j).ok_or(Error::BufferTooSmall)?;
                out.try_extend_from_slice(v)?;
            }
            None => out.try_extend_zeros(w)?,
        }
    }
    let nulls = take_nulls(f.nulls(), idx, alloc)?;
    let dt = f.data_type().clone();
    Ok(FixedSizeBinaryArray::try_new(dt, n, out.into_buffer(), nulls)?.into_array_ref())
}

#[cfg(feature = "views")]
pub(super) fn take_views<'a, T: ByteViewType, I: TakeIndex, A: Allocator + Clone>(
    v: &GenericByteViewArray<'a, T, A>,
    idx: &Idx<'_, I>,
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    // Moved as `u128` when the views are 16-byte aligned (as our buffers
    // are): the compiler keeps a `u128` in registers where it sends a
    // `[u8; 16]` through the stack.
    let views = match bytemuck::try_cast_slice::<ByteView, View16>(v.views()) {
        Ok(wide) => gather::<View16, I, A>(wide, idx, alloc.clone())?,
        Err(_) => gather::<ByteView, I, A>(v.views(), idx, alloc.clone())?,
    };
    let nulls = take_nulls(v.nulls(), idx, alloc)?;
    // SAFETY: every view is a copy of a view of the (valid) input, over the
    // same data buffers, or the all-zero view (empty, inline) for a null
    // index.
    let a = unsafe {
        GenericByteViewArray::<T, A>::new_unchecked(
            views.into_buffer(),
            v.data_buffers().clone(),
            nulls,
        )
    };
    Ok(a.into_array_ref())
}
