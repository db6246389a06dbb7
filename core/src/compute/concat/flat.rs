//! [`super::concat()`] of the flat layouts: primitive, boolean,
//! fixed-size binary, and binary and string arrays with offsets or views
//! (whose data buffers are shared, each distinct one once).

use allocator_api2::alloc::Allocator;

use super::nulls::concat_nulls;
use crate::array::{
    Array, ArrayRef, BooleanArray, ByteArrayType, FixedSizeBinaryArray, GenericByteArray,
    PrimitiveArray, PrimitiveType,
};
#[cfg(feature = "views")]
use crate::array::{ByteView, ByteViewType, GenericByteViewArray};
#[cfg(feature = "views")]
use crate::buffer::TryVec;
#[cfg(feature = "views")]
use crate::buffer::{Buffer, SharedSlice};
use crate::buffer::{MutableBuffer, OffsetSize};
use crate::compute::bits::BitWriter;
use crate::compute::buffers::{byte_size, freeze, offset_range, push_rebased};
use crate::error::{Error, Result};

pub(super) fn concat_primitive<'a, T: PrimitiveType, A: Allocator + Clone>(
    arrays: &[ArrayRef<'a, A>],
    total: usize,
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    let mut values = MutableBuffer::new_in(alloc.clone());
    values.try_reserve_exact(byte_size::<T>(total)?)?;
    for a in arrays {
        let p = T::downcast(a).ok_or(Error::TypeMismatch)?;
        values.try_extend_from_typed(p.values())?;
    }
    let nulls = concat_nulls(arrays, total, alloc)?;
    let data_type = arrays
        .first()
        .ok_or(Error::InvalidArgument)?
        .data_type()
        .clone();
    Ok(PrimitiveArray::<T, A>::try_new(data_type, freeze(values)?, nulls)?.into_array_ref())
}

pub(super) fn concat_boolean<'a, A: Allocator + Clone>(
    arrays: &[ArrayRef<'a, A>],
    total: usize,
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    let mut values = BitWriter::try_new(total, alloc.clone())?;
    for a in arrays {
        let ArrayRef::Boolean(b) = a else {
            return Err(Error::TypeMismatch);
        };
        values.append(b.values());
    }
    let nulls = concat_nulls(arrays, total, alloc)?;
    Ok(BooleanArray::try_new(values.finish()?, nulls)?.into_array_ref())
}

pub(super) fn concat_fixed_size_binary<'a, A: Allocator + Clone>(
    arrays: &[ArrayRef<'a, A>],
    total: usize,
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    let mut values = MutableBuffer::new_in(alloc.clone());
    let mut data_type = None;
    for a in arrays {
        let ArrayRef::FixedSizeBinary(f) = a else {
            return Err(Error::TypeMismatch);
        };
        if data_type.is_none() {
            let bytes = total
                .checked_mul(f.value_length())
                .ok_or(Error::CapacityOverflow)?;
            values.try_reserve_exact(bytes)?;
            data_type = Some(f.data_type().clone());
        }
        let n = f
            .len()
            .checked_mul(f.value_length())
            .ok_or(Error::BufferTooSmall)?;
        let bytes = f.values().get(..n).ok_or(Error::BufferTooSmall)?;
        values.try_extend_from_slice(bytes)?;
    }
    let data_type = data_type.ok_or(Error::InvalidArgument)?;
    let nulls = concat_nulls(arrays, total, alloc)?;
    let a = FixedSizeBinaryArray::try_new(data_type, total, values.into_buffer(), nulls)?;
    Ok(a.into_array_ref())
}

pub(super) fn concat_bytes<'a, T: ByteArrayType, A: Allocator + Clone>(
    arrays: &[ArrayRef<'a, A>],
    total: usize,
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    let mut bytes = 0usize;
    for a in arrays {
        let b = T::downcast(a).ok_or(Error::TypeMismatch)?;
        let (first, last) = offset_range(b.value_offsets())?;
        bytes = bytes
            .checked_add(last - first)
            .ok_or(Error::CapacityOverflow)?;
    }
    T::Offset::from_usize(bytes).ok_or(Error::CapacityOverflow)?;
    let mut offsets = MutableBuffer::new_in(alloc.clone());
    offsets.try_reserve_exact(byte_size::<T::Offset>(
        total.checked_add(1).ok_or(Error::CapacityOverflow)?,
    )?)?;
    offsets.try_push(T::Offset::ZERO)?;
    let mut values = MutableBuffer::new_in(alloc.clone());
    values.try_reserve_exact(bytes)?;
    for a in arrays {
        let b = T::downcast(a).ok_or(Error::TypeMismatch)?;
        let (first, last) = offset_range(b.value_offsets())?;
        push_rebased(&mut offsets, b.value_offsets(), values.len())?;
        let data = b
            .values()
            .get(first..last)
            .ok_or(Error::OffsetOutOfBounds)?;
        values.try_extend_from_slice(data)?;
    }
    let nulls = concat_nulls(arrays, total, alloc)?;
    let a = GenericByteArray::<T, A>::try_new(freeze(offsets)?, values.into_buffer(), nulls)?;
    Ok(a.into_array_ref())
}

#[cfg(feature = "views")]
pub(super) fn concat_views<'a, T: ByteViewType, A: Allocator + Clone>(
    arrays: &[ArrayRef<'a, A>],
    total: usize,
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    let shared = shared_buffers::<T, A>(arrays, alloc.clone())?;
    let mut views = MutableBuffer::new_in(alloc.clone());
    views.try_reserve_exact(byte_size::<ByteView>(total)?)?;
    for (k, a) in arrays.iter().enumerate() {
        let v = T::downcast(a).ok_or(Error::TypeMismatch)?;
        let base = shared.bases.get(k).copied().ok_or(Error::InvalidArgument)?;
        for view in v.views() {
            let view = if view.length() <= ByteView::MAX_INLINE_LEN as i32 {
                *view
            } else {
                let index = usize::try_from(view.buffer_index())
                    .ok()
                    .filter(|&i| i < v.data_buffers().len())
                    .and_then(|i| shared.combined.get(base + i))
                    .ok_or(Error::ViewBufferIndexOutOfBounds)?;
                let index = i32::try_from(*index).map_err(|_| Error::CapacityOverflow)?;
                ByteView::from_parts(view.length(), view.prefix(), index, view.offset())
            };
            views.try_extend_from_slice(view.as_bytes())?;
        }
    }
    let nulls = concat_nulls(arrays, total, alloc)?;
    let a = GenericByteViewArray::<T, A>::try_new(views.into_buffer(), shared.buffers, nulls)?;
    Ok(a.into_array_ref())
}

/// The data buffers of the inputs of a view concatenation, shared, and how
/// the inputs' buffer indices map into them.
#[cfg(feature = "views")]
struct SharedBuffers<'a, A: Allocator> {
    /// Each distinct data buffer once, at the place of its first occurrence.
    buffers: SharedSlice<'a, Buffer<'a, A>, A>,
    /// For every buffer of every *leading* input (one whose buffer list
    /// differs from the previous input's), in order: its index in `buffers`.
    combined: TryVec<usize, A>,
    /// For every input: where its buffers start in `combined` (an input
    /// with the same buffer list as the one before it shares its entries).
    bases: TryVec<usize, A>,
}

/// Whether two inputs point at the same data buffers (same addresses and
/// lengths, in order), as slices of one array do.
#[cfg(feature = "views")]
fn same_buffers<A: Allocator>(x: &[Buffer<'_, A>], y: &[Buffer<'_, A>]) -> bool {
    x.len() == y.len()
        && x.iter()
            .zip(y)
            .all(|(p, q)| (p.as_ptr(), p.len()) == (q.as_ptr(), q.len()))
}

/// The data buffers of view arrays, shared (not copied) and each distinct
/// one once: buffers over the same bytes (same address and length, e.g.
/// the same buffer of slices of one array) are listed once, at the place of
/// their first occurrence. Runs of inputs with one buffer list (slices of
/// one array, the common case) are looked at once, so concatenating m
/// slices of an array with b buffers costs O(m · b) comparisons and
/// O(m + b) memory, not a sort of m · b entries.
#[cfg(feature = "views")]
fn shared_buffers<'a, T: ByteViewType, A: Allocator + Clone>(
    arrays: &[ArrayRef<'a, A>],
    alloc: A,
) -> Result<SharedBuffers<'a, A>> {
    let lists = || {
        arrays
            .iter()
            .map(|a| T::downcast(a).map(|v| v.data_buffers().as_slice()))
    };
    // bases[k]: where input k's buffers start among the leaders' buffers.
    let mut bases = TryVec::new_in(alloc.clone());
    bases.try_reserve(arrays.len())?;
    let mut n = 0usize;
    let mut previous: Option<&[Buffer<'a, A>]> = None;
    for list in lists() {
        let list = list.ok_or(Error::TypeMismatch)?;
        match previous {
            Some(p) if same_buffers(p, list) => {
                let last = bases.last().copied().ok_or(Error::InvalidArgument)?;
                bases.try_push(last)?;
            }
            _ => {
                bases.try_push(n)?;
                n = n.checked_add(list.len()).ok_or(Error::CapacityOverflow)?;
            }
        }
        previous = Some(list);
    }
    // The leaders' buffers, in order (g: position among them).
    let leaders = || {
        let mut previous: Option<&[Buffer<'a, A>]> = None;
        lists().flatten().flat_map(move |list| {
            let lead = !previous.is_some_and(|p| same_buffers(p, list));
            previous = Some(list);
            list.iter().filter(move |_| lead)
        })
    };
    // (address, length, position) of every leader buffer, sorted so that
    // equal buffers are adjacent with the first occurrence first.
    let mut keys = TryVec::new_in(alloc.clone());
    keys.try_reserve(n)?;
    for (g, b) in leaders().enumerate() {
        keys.try_push((b.as_ptr() as usize, b.len(), g))?;
    }
    keys.as_mut_slice().sort_unstable();
    // first[g]: the position of the first buffer equal to buffer g.
    let mut first = TryVec::new_in(alloc.clone());
    first.try_reserve(n)?;
    for _ in 0..n {
        first.try_push(0usize)?;
    }
    let mut group = (0usize, 0usize, 0usize);
    for (i, &(ptr, len, g)) in keys.iter().enumerate() {
        if i == 0 || (ptr, len) != (group.0, group.1) {
            group = (ptr, len, g);
        }
        if let Some(f) = first.get_mut(g) {
            *f = group.2;
        }
    }
    drop(keys);
    // combined[g]: the index of buffer g in the output list.
    let mut combined = TryVec::new_in(alloc.clone());
    combined.try_reserve(n)?;
    let mut distinct = 0usize;
    for g in 0..n {
        let f = first.get(g).copied().ok_or(Error::InvalidArgument)?;
        let c = if f == g {
            distinct += 1;
            distinct - 1
        } else {
            combined.get(f).copied().ok_or(Error::InvalidArgument)?
        };
        combined.try_push(c)?;
    }
    i32::try_from(distinct).map_err(|_| Error::CapacityOverflow)?;
    let buffers = if distinct == 0 {
        SharedSlice::empty()
    } else {
        let mut sources = leaders()
            .enumerate()
            .filter(|(g, _)| first.get(*g) == Some(g));
        SharedSlice::try_from_fn_in(distinct, alloc, |_| {
            let (_, b) = sources.next().ok_or(Error::InvalidArgument)?;
            Ok(b.clone())
        })?
    };
    Ok(SharedBuffers {
        buffers,
        combined,
        bases,
    })
}
