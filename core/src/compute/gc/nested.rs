//! [`super::gc_array_in`] of the nested layouts: structs, lists, list
//! views, fixed-size lists, maps, unions, dictionaries and run-end encoded
//! arrays.
//!
//! Children are compacted recursively (through the dispatcher
//! [`super::gc_array_in`]); the parents keep their validity, sizes, type
//! ids, keys and run ends, and are assembled with `new_unchecked` and
//! checked at the Cheap level (`children::checked`): from inputs that hold
//! the Full-level invariants, these layouts' `new_unchecked` risks wrong
//! data, never memory safety, should an input break them.

use allocator_api2::alloc::Allocator;

use super::gc_array_in;
#[cfg(feature = "union")]
use crate::array::UnionArray;
use crate::array::{Array, ArrayRef};
#[cfg(feature = "dictionary")]
use crate::array::DictionaryArray;
#[cfg(feature = "nested")]
use crate::array::{
    FixedSizeListArray, GenericListArray, GenericListViewArray, ListOffsetSize, MapArray,
    StructArray,
};
#[cfg(feature = "run-end")]
use crate::array::RunArray;
use crate::buffer::{MutableBuffer, OffsetBuffer, OffsetSize, SharedBox};
use crate::compute::buffers::{byte_size, freeze, offset_range, push_rebased};
use crate::compute::children::checked;
#[cfg(any(feature = "nested", feature = "union"))]
use crate::compute::children::map_children;
use crate::datatypes::UnionMode;
use crate::error::{Error, Result};

/// A list's offsets and its child.
#[cfg(feature = "nested")]
type Covered<'a, O, A> = (OffsetBuffer<'a, O, A>, SharedBox<'a, ArrayRef<'a, A>, A>);

/// The child elements `offsets` cover, compacted, and `offsets` rebased to
/// start at 0 (new offsets from `alloc`).
#[cfg(feature = "nested")]
fn gc_covered<'a, O: OffsetSize, A: Allocator + Clone>(
    offsets: &[O],
    child: &ArrayRef<'a, A>,
    alloc: A,
) -> Result<Covered<'a, O, A>> {
    let (first, last) = offset_range(offsets)?;
    let child = gc_array_in(&child.slice(first, last - first)?, alloc.clone())?;
    let mut out = MutableBuffer::new_in(alloc.clone());
    out.try_reserve_exact(byte_size::<O>(offsets.len().max(1))?)?;
    out.try_push(O::ZERO)?;
    push_rebased(&mut out, offsets, 0)?;
    Ok((
        OffsetBuffer::try_new(freeze(out)?)?,
        SharedBox::try_new_in(child, alloc)?,
    ))
}

#[cfg(feature = "nested")]
pub(super) fn gc_struct<'a, A: Allocator + Clone>(
    s: &StructArray<'a, A>,
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    let fields = s.fields().clone();
    let range = (s.offset(), s.len());
    let children = map_children(s.children(), fields.len(), range, alloc.clone(), |child| {
        gc_array_in(child, alloc.clone())
    })?;
    Ok(StructArray::try_new_cheap(fields, children, s.len(), s.nulls().cloned())?.into_array_ref())
}

#[cfg(feature = "nested")]
pub(super) fn gc_list<'a, O: ListOffsetSize, A: Allocator + Clone>(
    l: &GenericListArray<'a, O, A>,
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    let (offsets, values) = gc_covered(l.value_offsets(), l.values(), alloc)?;
    // SAFETY: see the module docs; the child holds exactly the elements
    // the rebased offsets cover, in order.
    let a = unsafe {
        GenericListArray::<O, A>::new_unchecked(
            l.field().clone(),
            offsets,
            values,
            l.nulls().cloned(),
        )
    };
    checked(a)
}

#[cfg(feature = "nested")]
pub(super) fn gc_map<'a, A: Allocator + Clone>(
    m: &MapArray<'a, A>,
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    let (offsets, entries) = gc_covered(m.value_offsets(), m.list().values(), alloc)?;
    // SAFETY: see the module docs; the entries are those the offsets cover.
    let a = unsafe {
        MapArray::new_unchecked(
            m.field().clone(),
            offsets,
            entries,
            m.nulls().cloned(),
            m.keys_sorted(),
        )
    };
    checked(a)
}

#[cfg(feature = "nested")]
pub(super) fn gc_list_view<'a, O: ListOffsetSize, A: Allocator + Clone>(
    l: &GenericListViewArray<'a, O, A>,
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    let (field, offsets, sizes, values, nulls) = l.clone().into_parts();
    let values = SharedBox::try_new_in(gc_array_in(&values, alloc.clone())?, alloc)?;
    // SAFETY: see the module docs; the offsets and sizes are the input's
    // over a child of the same length and values.
    let a = unsafe { GenericListViewArray::<O, A>::new_unchecked(field, offsets, sizes, values, nulls) };
    checked(a)
}

#[cfg(feature = "nested")]
pub(super) fn gc_fixed_size_list<'a, A: Allocator + Clone>(
    l: &FixedSizeListArray<'a, A>,
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    let size = usize::try_from(l.value_length()).map_err(|_| Error::InvalidDataType)?;
    let start = l.offset().checked_mul(size).ok_or(Error::CapacityOverflow)?;
    let n = l.len().checked_mul(size).ok_or(Error::CapacityOverflow)?;
    let child = gc_array_in(&l.values().slice(start, n)?, alloc.clone())?;
    let values = SharedBox::try_new_in(child, alloc)?;
    // SAFETY: see the module docs; the child holds the `len * size`
    // elements of the input's slots, from the first.
    let a = unsafe {
        FixedSizeListArray::new_unchecked(
            l.field().clone(),
            l.value_length(),
            l.len(),
            values,
            l.nulls().cloned(),
        )
    };
    checked(a)
}

#[cfg(feature = "union")]
pub(super) fn gc_union<'a, A: Allocator + Clone>(
    u: &UnionArray<'a, A>,
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    let n = u.fields().len();
    let range = (u.child_offset(), u.len());
    let (fields, mode, type_ids, offsets, children, _) = u.clone().into_parts();
    let children = match mode {
        UnionMode::Sparse => map_children(&children, n, range, alloc.clone(), |child| {
            gc_array_in(child, alloc.clone())
        })?,
        UnionMode::Dense => {
            crate::buffer::SharedSlice::try_from_fn_in(n, alloc.clone(), |c| {
                let child = children.get(c).ok_or(Error::TypeMismatch)?;
                gc_array_in(child, alloc.clone()).map_err(|e| e.in_child(c))
            })?
        }
    };
    // SAFETY: see the module docs; type ids and dense offsets are the
    // input's, over children of the same lengths and values (a sparse
    // union's sliced to its slots).
    let a = unsafe { UnionArray::new_unchecked(fields, mode, type_ids, offsets, children) };
    checked(a)
}

#[cfg(feature = "dictionary")]
pub(super) fn gc_dictionary<'a, A: Allocator + Clone>(
    d: &DictionaryArray<'a, A>,
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    let (data_type, keys, values) = d.clone().into_parts();
    let values = SharedBox::try_new_in(gc_array_in(&values, alloc.clone())?, alloc)?;
    // SAFETY: see the module docs; the keys are the input's over values of
    // the same length.
    let a = unsafe { DictionaryArray::new_unchecked(data_type, keys, values) };
    checked(a)
}

#[cfg(feature = "run-end")]
pub(super) fn gc_run_end<'a, A: Allocator + Clone>(
    r: &RunArray<'a, A>,
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    let (data_type, run_ends, values, offset, len) = r.clone().into_parts();
    let values = SharedBox::try_new_in(gc_array_in(&values, alloc.clone())?, alloc)?;
    // SAFETY: see the module docs; the run ends, offset and length are the
    // input's over values of the same length.
    let a = unsafe { RunArray::new_unchecked(data_type, run_ends, values, offset, len) };
    checked(a)
}
