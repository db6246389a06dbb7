//! [`super::concat()`] of the nested layouts: lists, list views, fixed-size
//! lists, structs, maps, unions, dictionaries and run-end encoded arrays.
//!
//! Children are concatenated recursively (through the dispatcher
//! [`super::concat_arrays`]); the parents' offsets, type ids, keys and run
//! ends are rebuilt here, and the parents assembled with `new_unchecked`
//! and checked at the Cheap level (`children::checked`): from inputs that hold
//! the Full-level invariants, these layouts' `new_unchecked` risks wrong
//! data, never memory safety, should an input break them.

use core::mem::size_of;

use allocator_api2::alloc::Allocator;

use super::concat_arrays;
use super::nulls::concat_nulls;
#[cfg(feature = "union")]
use crate::array::UnionArray;
#[cfg(feature = "dictionary")]
use crate::array::{index_data_type, DictionaryArray, DictionaryKeyType, DictionaryKeys};
use crate::array::{Array, ArrayRef, PrimitiveArray};
#[cfg(feature = "nested")]
use crate::array::{
    FixedSizeListArray, GenericListArray, GenericListViewArray, ListOffsetSize, MapArray,
    StructArray,
};
#[cfg(feature = "run-end")]
use crate::array::{RunArray, RunEndIndexType};
use crate::buffer::{MutableBuffer, OffsetBuffer, SharedBox, SharedSlice, TryVec};
use crate::compute::buffers::{byte_size, freeze, offset_range, push_rebased};
use crate::compute::children::checked;
#[cfg(feature = "union")]
use crate::compute::children::child_of_type_id;
use crate::datatypes::{DataType, IndexType, UnionMode};
use crate::error::{Error, Result};

/// Collects `n` arrays made by `f(0)`, `f(1)`, … into a vector from `alloc`.
fn collect_arrays<'a, A, F>(n: usize, alloc: A, mut f: F) -> Result<TryVec<ArrayRef<'a, A>, A>>
where
    A: Allocator,
    F: FnMut(usize) -> Result<ArrayRef<'a, A>>,
{
    let mut v = TryVec::new_in(alloc);
    v.try_reserve(n)?;
    for i in 0..n {
        v.try_push(f(i)?)?;
    }
    Ok(v)
}

/// `arrays[0]`, which the dispatcher guarantees to exist.
fn first<'b, 'a, A: Allocator>(arrays: &'b [ArrayRef<'a, A>]) -> Result<&'b ArrayRef<'a, A>> {
    arrays.first().ok_or(Error::InvalidArgument)
}

/// `arrays[i]`.
fn nth<'b, 'a, A: Allocator>(
    arrays: &'b [ArrayRef<'a, A>],
    i: usize,
) -> Result<&'b ArrayRef<'a, A>> {
    arrays.get(i).ok_or(Error::InvalidArgument)
}

/// Defines `fn $name(&ArrayRef) -> Result<&$ty>` matching one variant.
macro_rules! downcast_fn {
    ($name:ident, $ty:ty, $($variant:ident)|+) => {
        fn $name<'b, 'a, A: Allocator>(a: &'b ArrayRef<'a, A>) -> Result<&'b $ty> {
            match a {
                $(ArrayRef::$variant(x) => Ok(x),)+
                _ => Err(Error::TypeMismatch),
            }
        }
    };
}

#[cfg(feature = "nested")]
downcast_fn!(as_map, MapArray<'a, A>, Map);
#[cfg(feature = "nested")]
downcast_fn!(as_fixed_size_list, FixedSizeListArray<'a, A>, FixedSizeList);
#[cfg(feature = "nested")]
downcast_fn!(as_struct, StructArray<'a, A>, Struct);
#[cfg(feature = "union")]
downcast_fn!(as_union, UnionArray<'a, A>, Union);
#[cfg(feature = "dictionary")]
downcast_fn!(as_dictionary, DictionaryArray<'a, A>, Dictionary);
#[cfg(feature = "run-end")]
downcast_fn!(as_run, RunArray<'a, A>, RunEndEncoded);

#[cfg(feature = "nested")]
fn as_list<'b, 'a, O: ListOffsetSize, A: Allocator>(
    a: &'b ArrayRef<'a, A>,
) -> Result<&'b GenericListArray<'a, O, A>> {
    GenericListArray::<O, A>::downcast_ref(a).ok_or(Error::TypeMismatch)
}

#[cfg(feature = "nested")]
fn as_list_view<'b, 'a, O: ListOffsetSize, A: Allocator>(
    a: &'b ArrayRef<'a, A>,
) -> Result<&'b GenericListViewArray<'a, O, A>> {
    GenericListViewArray::<O, A>::downcast_ref(a).ok_or(Error::TypeMismatch)
}

/// The offsets of list-like inputs (`len + 1` each, given by `offsets_of`)
/// one after the other, rebased to start at 0, and the concatenation of
/// the ranges of their children (given by `values_of`) that they cover.
#[cfg(feature = "nested")]
fn offsets_and_child<'a, O, A, F, G>(
    arrays: &[ArrayRef<'a, A>],
    total: usize,
    alloc: A,
    offsets_of: F,
    values_of: G,
) -> Result<(OffsetBuffer<'a, O, A>, ArrayRef<'a, A>)>
where
    O: ListOffsetSize,
    A: Allocator + Clone,
    F: for<'b> Fn(&'b ArrayRef<'a, A>) -> Result<&'b [O]>,
    G: for<'b> Fn(&'b ArrayRef<'a, A>) -> Result<&'b ArrayRef<'a, A>>,
{
    let mut parts = TryVec::new_in(alloc.clone());
    parts.try_reserve(arrays.len())?;
    let mut offsets = MutableBuffer::new_in(alloc.clone());
    offsets.try_reserve_exact(byte_size::<O>(
        total.checked_add(1).ok_or(Error::CapacityOverflow)?,
    )?)?;
    offsets.try_push(O::ZERO)?;
    let mut base = 0usize;
    for a in arrays {
        let o = offsets_of(a)?;
        let (start, end) = offset_range(o)?;
        push_rebased(&mut offsets, o, base)?;
        parts.try_push(values_of(a)?.slice(start, end - start)?)?;
        base = base
            .checked_add(end - start)
            .ok_or(Error::CapacityOverflow)?;
    }
    let offsets = OffsetBuffer::try_new(freeze(offsets)?)?;
    Ok((offsets, concat_arrays(&parts, alloc)?))
}

#[cfg(feature = "nested")]
pub(super) fn concat_list<'a, O: ListOffsetSize, A: Allocator + Clone>(
    arrays: &[ArrayRef<'a, A>],
    total: usize,
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    let (offsets, child) = offsets_and_child::<O, A, _, _>(
        arrays,
        total,
        alloc.clone(),
        |a| Ok(as_list::<O, A>(a)?.value_offsets()),
        |a| Ok(as_list::<O, A>(a)?.values()),
    )?;
    let nulls = concat_nulls(arrays, total, alloc.clone())?;
    let field = as_list::<O, A>(first(arrays)?)?.field().clone();
    let values = SharedBox::try_new_in(child, alloc)?;
    // SAFETY: see the module docs; the offsets are rebased from the inputs'
    // and the child is the concatenation of the ranges they covered.
    let a = unsafe { GenericListArray::<O, A>::new_unchecked(field, offsets, values, nulls) };
    checked(a)
}

#[cfg(feature = "nested")]
pub(super) fn concat_map<'a, A: Allocator + Clone>(
    arrays: &[ArrayRef<'a, A>],
    total: usize,
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    let (offsets, entries) = offsets_and_child::<i32, A, _, _>(
        arrays,
        total,
        alloc.clone(),
        |a| Ok(as_map(a)?.value_offsets()),
        |a| Ok(as_map(a)?.list().values()),
    )?;
    let entries = SharedBox::try_new_in(entries, alloc.clone())?;
    let nulls = concat_nulls(arrays, total, alloc)?;
    let m = as_map(first(arrays)?)?;
    // SAFETY: see the module docs; the offsets are rebased from the inputs'
    // and the entries are the concatenation of the ranges they covered.
    let a = unsafe {
        MapArray::new_unchecked(m.field().clone(), offsets, entries, nulls, m.keys_sorted())
    };
    checked(a)
}

#[cfg(feature = "nested")]
pub(super) fn concat_list_view<'a, O: ListOffsetSize, A: Allocator + Clone>(
    arrays: &[ArrayRef<'a, A>],
    total: usize,
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    let bytes = byte_size::<O>(total)?;
    let mut offsets = MutableBuffer::new_in(alloc.clone());
    offsets.try_reserve_exact(bytes)?;
    let mut sizes = MutableBuffer::new_in(alloc.clone());
    sizes.try_reserve_exact(bytes)?;
    let parts = collect_arrays(arrays.len(), alloc.clone(), |i| {
        let v = as_list_view::<O, A>(nth(arrays, i)?)?;
        Ok(v.values().clone())
    })?;
    let mut base = 0usize;
    for a in arrays {
        let v = as_list_view::<O, A>(a)?;
        if v.value_sizes().len() != v.len() {
            return Err(Error::BufferTooSmall);
        }
        for o in v.value_offsets() {
            let o = o
                .to_usize()
                .and_then(|o| o.checked_add(base))
                .ok_or(Error::ListViewOutOfBounds)?;
            offsets.try_push(O::from_usize(o).ok_or(Error::CapacityOverflow)?)?;
        }
        sizes.try_extend_from_typed(v.value_sizes())?;
        base = base
            .checked_add(v.values().len())
            .ok_or(Error::CapacityOverflow)?;
    }
    O::from_usize(base).ok_or(Error::CapacityOverflow)?;
    let child = concat_arrays(&parts, alloc.clone())?;
    let nulls = concat_nulls(arrays, total, alloc.clone())?;
    let field = as_list_view::<O, A>(first(arrays)?)?.field().clone();
    let values = SharedBox::try_new_in(child, alloc)?;
    // SAFETY: see the module docs; each range is an input's, moved by the
    // length of the children before its own in the concatenated child.
    let a = unsafe {
        GenericListViewArray::<O, A>::new_unchecked(
            field,
            freeze(offsets)?,
            freeze(sizes)?,
            values,
            nulls,
        )
    };
    checked(a)
}

#[cfg(feature = "nested")]
pub(super) fn concat_fixed_size_list<'a, A: Allocator + Clone>(
    arrays: &[ArrayRef<'a, A>],
    total: usize,
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    let f0 = as_fixed_size_list(first(arrays)?)?;
    let size = f0.value_length();
    let n = usize::try_from(size).map_err(|_| Error::InvalidDataType)?;
    let parts = collect_arrays(arrays.len(), alloc.clone(), |i| {
        let l = as_fixed_size_list(nth(arrays, i)?)?;
        let start = l.offset().checked_mul(n).ok_or(Error::OutOfBounds)?;
        let len = l.len().checked_mul(n).ok_or(Error::OutOfBounds)?;
        l.values().slice(start, len)
    })?;
    let child = concat_arrays(&parts, alloc.clone())?;
    let nulls = concat_nulls(arrays, total, alloc.clone())?;
    let values = SharedBox::try_new_in(child, alloc)?;
    // SAFETY: see the module docs; the child holds `len * size` elements of
    // the field's type.
    let a = unsafe {
        FixedSizeListArray::new_unchecked(f0.field().clone(), size, total, values, nulls)
    };
    checked(a)
}

#[cfg(feature = "nested")]
pub(super) fn concat_struct<'a, A: Allocator + Clone>(
    arrays: &[ArrayRef<'a, A>],
    total: usize,
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    let fields = as_struct(first(arrays)?)?.fields().clone();
    let children = if fields.is_empty() {
        SharedSlice::empty()
    } else {
        SharedSlice::try_from_fn_in(fields.len(), alloc.clone(), |c| {
            let parts = collect_arrays(arrays.len(), alloc.clone(), |i| {
                let s = as_struct(nth(arrays, i)?)?;
                let child = s.children().get(c).ok_or(Error::TypeMismatch)?;
                child.slice(s.offset(), s.len())
            })?;
            concat_arrays(&parts, alloc.clone())
        })?
    };
    let nulls = concat_nulls(arrays, total, alloc)?;
    Ok(StructArray::try_new_cheap(fields, children, total, nulls)?.into_array_ref())
}

#[cfg(feature = "union")]
pub(super) fn concat_union<'a, A: Allocator + Clone>(
    arrays: &[ArrayRef<'a, A>],
    total: usize,
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    let u0 = as_union(first(arrays)?)?;
    let (fields, mode) = (u0.fields().clone(), u0.mode());
    let n_children = fields.len();
    let mut type_ids = MutableBuffer::new_in(alloc.clone());
    type_ids.try_reserve_exact(total)?;
    for a in arrays {
        type_ids.try_extend_from_typed(as_union(a)?.type_ids())?;
    }
    let mut offsets = None;
    let child = |c: usize, u: &UnionArray<'a, A>| -> Result<ArrayRef<'a, A>> {
        u.children().get(c).cloned().ok_or(Error::TypeMismatch)
    };
    let children = match mode {
        UnionMode::Sparse => SharedSlice::try_from_fn_in(n_children, alloc.clone(), |c| {
            let parts = collect_arrays(arrays.len(), alloc.clone(), |i| {
                let u = as_union(nth(arrays, i)?)?;
                child(c, u)?.slice(u.child_offset(), u.len())
            })?;
            concat_arrays(&parts, alloc.clone())
        })?,
        UnionMode::Dense => {
            offsets = Some(dense_offsets(arrays, &fields, total, alloc.clone())?);
            SharedSlice::try_from_fn_in(n_children, alloc.clone(), |c| {
                let parts = collect_arrays(arrays.len(), alloc.clone(), |i| {
                    child(c, as_union(nth(arrays, i)?)?)
                })?;
                concat_arrays(&parts, alloc.clone())
            })?
        }
    };
    // SAFETY: see the module docs; type ids are the inputs', dense offsets
    // moved by the lengths of the same child in the inputs before.
    let a =
        unsafe { UnionArray::new_unchecked(fields, mode, freeze(type_ids)?, offsets, children) };
    checked(a)
}

/// The offsets of a dense union concatenation: each input's offset into
/// child `c` plus the lengths of child `c` in the inputs before it.
#[cfg(feature = "union")]
fn dense_offsets<'a, A: Allocator + Clone>(
    arrays: &[ArrayRef<'a, A>],
    fields: &crate::datatypes::UnionFields<'a, A>,
    total: usize,
    alloc: A,
) -> Result<crate::buffer::ScalarBuffer<'a, i32, A>> {
    let index = child_of_type_id(fields)?;
    let mut bases = TryVec::new_in(alloc.clone());
    bases.try_reserve(fields.len())?;
    for _ in 0..fields.len() {
        bases.try_push(0usize)?;
    }
    let mut out = MutableBuffer::new_in(alloc);
    out.try_reserve_exact(byte_size::<i32>(total)?)?;
    for a in arrays {
        let ArrayRef::Union(u) = a else {
            return Err(Error::TypeMismatch);
        };
        let offs = u.offsets().ok_or(Error::UnionOffsetsPresence)?;
        if offs.len() != u.len() {
            return Err(Error::BufferTooSmall);
        }
        for (&id, &off) in u.type_ids().iter().zip(offs) {
            let c = usize::try_from(id)
                .ok()
                .and_then(|id| index.get(id).copied())
                .filter(|&c| c != u8::MAX)
                .ok_or(Error::UnionTypeIdUndeclared)?;
            let base = bases.get(usize::from(c)).ok_or(Error::TypeMismatch)?;
            let off = usize::try_from(off)
                .ok()
                .and_then(|o| o.checked_add(*base))
                .ok_or(Error::UnionOffsetOutOfBounds)?;
            out.try_push(i32::try_from(off).map_err(|_| Error::CapacityOverflow)?)?;
        }
        for (base, c) in bases.iter_mut().zip(u.children()) {
            *base = base.checked_add(c.len()).ok_or(Error::CapacityOverflow)?;
        }
    }
    freeze(out)
}

#[cfg(feature = "dictionary")]
pub(super) fn concat_dictionary<'a, A: Allocator + Clone>(
    arrays: &[ArrayRef<'a, A>],
    total: usize,
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    let d0 = as_dictionary(first(arrays)?)?;
    let mut same = true;
    for a in arrays {
        same &= as_dictionary(a)?.values_shared().ptr_eq(d0.values_shared());
    }
    let (keys, values) = if same {
        let parts = collect_arrays(arrays.len(), alloc.clone(), |i| {
            let d = as_dictionary(nth(arrays, i)?)?;
            Ok(d.keys().clone().into_array_ref())
        })?;
        let keys = DictionaryKeys::try_from(concat_arrays(&parts, alloc.clone())?)?;
        (keys, d0.values_shared().clone())
    } else {
        let parts = collect_arrays(arrays.len(), alloc.clone(), |i| {
            Ok(as_dictionary(nth(arrays, i)?)?.values().clone())
        })?;
        let values = concat_arrays(&parts, alloc.clone())?;
        let keys = match d0.index_type() {
            IndexType::Int8 => shifted_keys::<i8, A>(arrays, total, alloc.clone())?,
            IndexType::Int16 => shifted_keys::<i16, A>(arrays, total, alloc.clone())?,
            IndexType::Int32 => shifted_keys::<i32, A>(arrays, total, alloc.clone())?,
            IndexType::Int64 => shifted_keys::<i64, A>(arrays, total, alloc.clone())?,
            IndexType::UInt8 => shifted_keys::<u8, A>(arrays, total, alloc.clone())?,
            IndexType::UInt16 => shifted_keys::<u16, A>(arrays, total, alloc.clone())?,
            IndexType::UInt32 => shifted_keys::<u32, A>(arrays, total, alloc.clone())?,
            IndexType::UInt64 => shifted_keys::<u64, A>(arrays, total, alloc.clone())?,
        };
        (keys, SharedBox::try_new_in(values, alloc)?)
    };
    // SAFETY: see the module docs; every valid key indexes the dictionary
    // (kept, or concatenated with the key moved by the lengths before it).
    let a = unsafe { DictionaryArray::new_unchecked(d0.data_type().clone(), keys, values) };
    checked(a)
}

/// The keys of dictionary arrays over the concatenation of their
/// dictionaries: each valid key plus the lengths of the dictionaries before
/// it (null slots get key 0).
#[cfg(feature = "dictionary")]
fn shifted_keys<'a, K: DictionaryKeyType, A: Allocator + Clone>(
    arrays: &[ArrayRef<'a, A>],
    total: usize,
    alloc: A,
) -> Result<DictionaryKeys<'a, A>> {
    let mut out = MutableBuffer::new_in(alloc.clone());
    out.try_reserve_exact(byte_size::<K>(total)?)?;
    let mut base = 0usize;
    for a in arrays {
        let ArrayRef::Dictionary(d) = a else {
            return Err(Error::TypeMismatch);
        };
        let keys = d.keys();
        for i in 0..keys.len() {
            let k = if keys.is_valid(i) {
                let k = keys.value(i).ok_or(Error::DictionaryKeyOutOfBounds)?;
                let k = k.checked_add(base).ok_or(Error::CapacityOverflow)?;
                K::from_index(k).ok_or(Error::CapacityOverflow)?
            } else {
                K::default()
            };
            out.try_push(k)?;
        }
        base = base
            .checked_add(d.values().len())
            .ok_or(Error::CapacityOverflow)?;
    }
    let nulls = concat_nulls(arrays, total, alloc)?;
    let keys =
        PrimitiveArray::<K, A>::try_new(index_data_type(K::INDEX_TYPE), freeze(out)?, nulls)?;
    Ok(K::into_keys(keys))
}

#[cfg(feature = "run-end")]
pub(super) fn concat_run_end<'a, A: Allocator + Clone>(
    arrays: &[ArrayRef<'a, A>],
    total: usize,
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    let DataType::RunEndEncoded(ends, _) = first(arrays)?.data_type() else {
        return Err(Error::TypeMismatch);
    };
    match ends.data_type() {
        DataType::Int16 => concat_runs::<i16, A>(arrays, total, alloc),
        DataType::Int32 => concat_runs::<i32, A>(arrays, total, alloc),
        DataType::Int64 => concat_runs::<i64, A>(arrays, total, alloc),
        _ => Err(Error::InvalidDataType),
    }
}

#[cfg(feature = "run-end")]
fn concat_runs<'a, R: RunEndIndexType, A: Allocator + Clone>(
    arrays: &[ArrayRef<'a, A>],
    total: usize,
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    let mut n_runs = 0usize;
    for a in arrays {
        n_runs = n_runs
            .checked_add(as_run(a)?.get_physical_range().len())
            .ok_or(Error::CapacityOverflow)?;
    }
    let mut ends = MutableBuffer::new_in(alloc.clone());
    ends.try_reserve_exact(
        n_runs
            .checked_mul(size_of::<R>())
            .ok_or(Error::CapacityOverflow)?,
    )?;
    let mut base = 0usize;
    for a in arrays {
        let r = as_run(a)?;
        for j in r.get_physical_range() {
            // Run `j` ends after the view's first slot; the last one may end
            // after the view's last slot.
            let end = r
                .run_ends()
                .get(j)
                .and_then(|e| usize::try_from(e).ok())
                .ok_or(Error::RunEndsTooShort)?;
            let end = end.saturating_sub(r.offset()).min(r.len());
            let end = base.checked_add(end).ok_or(Error::CapacityOverflow)?;
            ends.try_push(R::from_usize(end).ok_or(Error::CapacityOverflow)?)?;
        }
        base = base.checked_add(r.len()).ok_or(Error::CapacityOverflow)?;
    }
    let parts = collect_arrays(arrays.len(), alloc.clone(), |i| {
        let r = as_run(nth(arrays, i)?)?;
        let range = r.get_physical_range();
        r.values().slice(range.start, range.len())
    })?;
    let values = concat_arrays(&parts, alloc.clone())?;
    let r0 = as_run(first(arrays)?)?;
    let DataType::RunEndEncoded(ends_field, _) = r0.data_type() else {
        return Err(Error::TypeMismatch);
    };
    let ends =
        PrimitiveArray::<R, A>::try_new(ends_field.data_type().clone(), freeze(ends)?, None)?;
    let values = SharedBox::try_new_in(values, alloc)?;
    // SAFETY: see the module docs; one run end per copied run, strictly
    // increasing, the last one `total`.
    let a = unsafe {
        RunArray::new_unchecked(
            r0.data_type().clone(),
            R::into_run_ends(ends),
            values,
            0,
            total,
        )
    };
    checked(a)
}
