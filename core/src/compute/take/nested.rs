//! [`super::take()`] of the nested layouts: lists, list views, fixed-size
//! lists, structs, maps, unions, dictionaries and run-end encoded arrays.
//!
//! Children are taken recursively (through the dispatcher
//! [`super::take_idx`]); the parents' offsets, type ids, keys and run ends
//! are gathered here, and the parents assembled with `new_unchecked` and
//! checked at the Cheap level (`children::checked`): from inputs that hold
//! the Full-level invariants, these layouts' `new_unchecked` risks wrong
//! data, never memory safety, should an input break them.

use allocator_api2::alloc::Allocator;

use super::gather::{gather, range_of};
use super::nulls::take_nulls;
use super::take_idx;
#[cfg(feature = "union")]
use crate::array::UnionArray;
use crate::array::{Array, ArrayRef, PrimitiveArray};
#[cfg(feature = "dictionary")]
use crate::array::{DictionaryArray, DictionaryKeys};
#[cfg(feature = "nested")]
use crate::array::{
    FixedSizeListArray, GenericListArray, GenericListViewArray, ListOffsetSize, MapArray,
    StructArray,
};
#[cfg(feature = "run-end")]
use crate::array::{RunArray, RunEndIndexType};
use crate::buffer::{MutableBuffer, OffsetBuffer, OffsetSize, SharedBox, SharedSlice, TryVec};
use crate::compute::buffers::{byte_size, freeze};
use crate::compute::children::checked;
#[cfg(feature = "union")]
use crate::compute::children::child_of_type_id;
#[cfg(any(feature = "nested", feature = "union"))]
use crate::compute::children::map_children;
use crate::compute::indices::{check_bounds, sentinel_bits, Bits, Idx, TakeIndex};
use crate::datatypes::{DataType, UnionMode};
use crate::error::{Error, Result};

/// Takes `child` by indices that may hold `usize::MAX` for a null.
fn take_sentinel<'a, A: Allocator + Clone>(
    child: &ArrayRef<'a, A>,
    values: &[usize],
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    let bits = sentinel_bits(values, alloc.clone())?;
    let idx = Idx {
        values,
        valid: bits.as_ref().map(|b| Bits {
            bytes: b.as_slice(),
            offset: 0,
        }),
    };
    take_idx(child, &idx, alloc)
}

/// The offsets (from 0) of the lists selected by `idx` from `offs`, and
/// the child elements they cover, taken from `child`.
#[cfg(feature = "nested")]
fn take_offsets<'a, O: OffsetSize, I: TakeIndex, A: Allocator + Clone>(
    offs: &[O],
    child: &ArrayRef<'a, A>,
    idx: &Idx<'_, I>,
    alloc: A,
) -> Result<(OffsetBuffer<'a, O, A>, ArrayRef<'a, A>)> {
    let n = idx.len();
    let mut total = 0usize;
    for k in 0..n {
        if let Some(j) = idx.get(k) {
            let (s, e) = range_of(offs, j)?;
            total = total.checked_add(e - s).ok_or(Error::CapacityOverflow)?;
        }
    }
    O::from_usize(total).ok_or(Error::CapacityOverflow)?;
    let mut out = MutableBuffer::new_in(alloc.clone());
    out.try_reserve_exact(byte_size::<O>(
        n.checked_add(1).ok_or(Error::CapacityOverflow)?,
    )?)?;
    out.try_push(O::ZERO)?;
    let mut elements = TryVec::new_in(alloc.clone());
    elements.try_reserve(total)?;
    for k in 0..n {
        if let Some(j) = idx.get(k) {
            let (s, e) = range_of(offs, j)?;
            for e in s..e {
                elements.try_push(e)?;
            }
        }
        out.try_push(O::from_usize(elements.len()).ok_or(Error::CapacityOverflow)?)?;
    }
    let child = take_idx(child, &Idx::all_valid(elements.as_slice()), alloc)?;
    Ok((OffsetBuffer::try_new(freeze(out)?)?, child))
}

#[cfg(feature = "nested")]
pub(super) fn take_list<'a, O: ListOffsetSize, I: TakeIndex, A: Allocator + Clone>(
    l: &GenericListArray<'a, O, A>,
    idx: &Idx<'_, I>,
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    check_bounds(idx, l.len())?;
    let (offsets, child) = take_offsets(l.value_offsets(), l.values(), idx, alloc.clone())?;
    let nulls = take_nulls(l.nulls(), idx, alloc.clone())?;
    let values = SharedBox::try_new_in(child, alloc)?;
    // SAFETY: see the module docs; the child holds the elements the new
    // offsets cover, in order.
    let a = unsafe {
        GenericListArray::<O, A>::new_unchecked(l.field().clone(), offsets, values, nulls)
    };
    checked(a)
}

#[cfg(feature = "nested")]
pub(super) fn take_map<'a, I: TakeIndex, A: Allocator + Clone>(
    m: &MapArray<'a, A>,
    idx: &Idx<'_, I>,
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    check_bounds(idx, m.len())?;
    let (offsets, entries) =
        take_offsets(m.value_offsets(), m.list().values(), idx, alloc.clone())?;
    let nulls = take_nulls(m.nulls(), idx, alloc.clone())?;
    let entries = SharedBox::try_new_in(entries, alloc)?;
    // SAFETY: see the module docs; the entries are those the offsets cover.
    let a = unsafe {
        MapArray::new_unchecked(m.field().clone(), offsets, entries, nulls, m.keys_sorted())
    };
    checked(a)
}

#[cfg(feature = "nested")]
pub(super) fn take_list_view<'a, O: ListOffsetSize, I: TakeIndex, A: Allocator + Clone>(
    l: &GenericListViewArray<'a, O, A>,
    idx: &Idx<'_, I>,
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    let offsets = gather(l.value_offsets(), idx, alloc.clone())?;
    let sizes = gather(l.value_sizes(), idx, alloc.clone())?;
    let nulls = take_nulls(l.nulls(), idx, alloc)?;
    let (field, _, _, values, _) = l.clone().into_parts();
    // SAFETY: see the module docs; each (offset, size) is an input's, over
    // the same (shared) child, or (0, 0) for a null index.
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
pub(super) fn take_fixed_size_list<'a, I: TakeIndex, A: Allocator + Clone>(
    l: &FixedSizeListArray<'a, A>,
    idx: &Idx<'_, I>,
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    check_bounds(idx, l.len())?;
    let size = usize::try_from(l.value_length()).map_err(|_| Error::InvalidDataType)?;
    let n = idx.len();
    let mut elements = TryVec::new_in(alloc.clone());
    elements.try_reserve(n.checked_mul(size).ok_or(Error::CapacityOverflow)?)?;
    for k in 0..n {
        match idx.get(k) {
            Some(j) => {
                let start = l.value_offset(j).ok_or(Error::FixedSizeListChildTooShort)?;
                for e in start..start.checked_add(size).ok_or(Error::CapacityOverflow)? {
                    elements.try_push(e)?;
                }
            }
            None => {
                for _ in 0..size {
                    elements.try_push(usize::MAX)?;
                }
            }
        }
    }
    let child = take_sentinel(l.values(), elements.as_slice(), alloc.clone())?;
    let nulls = take_nulls(l.nulls(), idx, alloc.clone())?;
    let values = SharedBox::try_new_in(child, alloc)?;
    // SAFETY: see the module docs; the child holds `n * size` elements.
    let a = unsafe {
        FixedSizeListArray::new_unchecked(l.field().clone(), l.value_length(), n, values, nulls)
    };
    checked(a)
}

#[cfg(feature = "nested")]
pub(super) fn take_struct<'a, I: TakeIndex, A: Allocator + Clone>(
    s: &StructArray<'a, A>,
    idx: &Idx<'_, I>,
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    check_bounds(idx, s.len())?;
    let fields = s.fields().clone();
    let range = (s.offset(), s.len());
    let children = map_children(s.children(), fields.len(), range, alloc.clone(), |child| {
        take_idx(child, idx, alloc.clone())
    })?;
    let nulls = take_nulls(s.nulls(), idx, alloc)?;
    Ok(StructArray::try_new_cheap(fields, children, idx.len(), nulls)?.into_array_ref())
}

#[cfg(feature = "union")]
pub(super) fn take_union<'a, I: TakeIndex, A: Allocator + Clone>(
    u: &UnionArray<'a, A>,
    idx: &Idx<'_, I>,
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    check_bounds(idx, u.len())?;
    let fields = u.fields().clone();
    let first_id = fields.type_ids().first().copied();
    if idx.has_nulls() && first_id.is_none() {
        return Err(Error::InvalidDataType);
    }
    let mut ids = gather(u.type_ids(), idx, alloc.clone())?;
    if let (Some(v), Some(id)) = (idx.valid, first_id) {
        let t: &mut [i8] = ids.typed_mut()?;
        for (k, t) in t.iter_mut().enumerate() {
            if !v.get(k) {
                *t = id;
            }
        }
    }
    let n_children = fields.len();
    let (offsets, children) = match u.mode() {
        UnionMode::Sparse => {
            let range = (u.child_offset(), u.len());
            let children = map_children(u.children(), n_children, range, alloc.clone(), |child| {
                take_idx(child, idx, alloc.clone())
            })?;
            (None, children)
        }
        UnionMode::Dense => {
            let index = child_of_type_id(&fields)?;
            let offs = u.offsets().ok_or(Error::UnionOffsetsPresence)?;
            let mut lists = TryVec::new_in(alloc.clone());
            lists.try_reserve(n_children)?;
            for _ in 0..n_children {
                lists.try_push(TryVec::new_in(alloc.clone()))?;
            }
            let mut out = MutableBuffer::new_in(alloc.clone());
            out.try_reserve_exact(byte_size::<i32>(idx.len())?)?;
            for k in 0..idx.len() {
                let (c, entry) = match idx.get(k) {
                    None => (0usize, usize::MAX),
                    Some(j) => {
                        let id = u.type_ids().get(j).copied().ok_or(Error::BufferTooSmall)?;
                        let c = usize::try_from(id)
                            .ok()
                            .and_then(|id| index.get(id).copied())
                            .filter(|&c| c != u8::MAX)
                            .ok_or(Error::UnionTypeIdUndeclared)?;
                        let off = offs.get(j).copied().ok_or(Error::BufferTooSmall)?;
                        let off =
                            usize::try_from(off).map_err(|_| Error::UnionOffsetOutOfBounds)?;
                        (usize::from(c), off)
                    }
                };
                let list: &mut TryVec<usize, A> = lists.get_mut(c).ok_or(Error::TypeMismatch)?;
                out.try_push(i32::try_from(list.len()).map_err(|_| Error::CapacityOverflow)?)?;
                list.try_push(entry)?;
            }
            let children = SharedSlice::try_from_fn_in(n_children, alloc.clone(), |c| {
                let child = u.children().get(c).ok_or(Error::TypeMismatch)?;
                let list = lists.get(c).ok_or(Error::TypeMismatch)?;
                take_sentinel(child, list.as_slice(), alloc.clone()).map_err(|e| e.in_child(c))
            })?;
            (Some(freeze(out)?), children)
        }
    };
    // SAFETY: see the module docs; type ids are the input's (or its first
    // declared one), dense offsets index the gathered children.
    let a = unsafe { UnionArray::new_unchecked(fields, u.mode(), freeze(ids)?, offsets, children) };
    checked(a)
}

#[cfg(feature = "dictionary")]
pub(super) fn take_dictionary<'a, I: TakeIndex, A: Allocator + Clone>(
    d: &DictionaryArray<'a, A>,
    idx: &Idx<'_, I>,
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    let keys = take_idx(&d.keys().clone().into_array_ref(), idx, alloc)?;
    let keys = DictionaryKeys::try_from(keys)?;
    // SAFETY: see the module docs; every valid key is one of the input's,
    // over the same (shared) dictionary.
    let a = unsafe {
        DictionaryArray::new_unchecked(d.data_type().clone(), keys, d.values_shared().clone())
    };
    checked(a)
}

#[cfg(feature = "run-end")]
pub(super) fn take_run_end<'a, I: TakeIndex, A: Allocator + Clone>(
    r: &RunArray<'a, A>,
    idx: &Idx<'_, I>,
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    let DataType::RunEndEncoded(ends, _) = r.data_type() else {
        return Err(Error::TypeMismatch);
    };
    match ends.data_type() {
        DataType::Int16 => take_runs::<i16, I, A>(r, idx, alloc),
        DataType::Int32 => take_runs::<i32, I, A>(r, idx, alloc),
        DataType::Int64 => take_runs::<i64, I, A>(r, idx, alloc),
        _ => Err(Error::InvalidDataType),
    }
}

#[cfg(feature = "run-end")]
fn take_runs<'a, R: RunEndIndexType, I: TakeIndex, A: Allocator + Clone>(
    r: &RunArray<'a, A>,
    idx: &Idx<'_, I>,
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    check_bounds(idx, r.len())?;
    let mut physical = TryVec::new_in(alloc.clone());
    let mut ends = MutableBuffer::new_in(alloc.clone());
    for k in 0..idx.len() {
        let p = match idx.get(k) {
            Some(j) => r.physical_index(j).ok_or(Error::RunEndsTooShort)?,
            None => usize::MAX,
        };
        let end = R::from_usize(k + 1).ok_or(Error::CapacityOverflow)?;
        if physical.last() == Some(&p) {
            let last: &mut [R] = ends.typed_mut()?;
            if let Some(e) = last.last_mut() {
                *e = end;
            }
        } else {
            physical.try_push(p)?;
            ends.try_push(end)?;
        }
    }
    let values = take_sentinel(r.values(), physical.as_slice(), alloc.clone())?;
    let DataType::RunEndEncoded(ends_field, _) = r.data_type() else {
        return Err(Error::TypeMismatch);
    };
    let ends =
        PrimitiveArray::<R, A>::try_new(ends_field.data_type().clone(), freeze(ends)?, None)?;
    let values = SharedBox::try_new_in(values, alloc)?;
    // SAFETY: see the module docs; one strictly increasing run end per
    // physical value, the last one the number of indices.
    let a = unsafe {
        RunArray::new_unchecked(
            r.data_type().clone(),
            R::into_run_ends(ends),
            values,
            0,
            idx.len(),
        )
    };
    checked(a)
}
