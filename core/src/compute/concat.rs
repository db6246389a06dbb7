//! [`concat()`]: the slots of several arrays of one data type, one after the
//! other, in new buffers; the flat layouts (primitive, boolean, binary and
//! string with offsets or views, fixed-size binary) are here, the nested ones
//! in `concat_nested`.

use core::mem::size_of;

use allocator_api2::alloc::Allocator;

#[cfg(feature = "dictionary")]
use super::concat_nested::concat_dictionary;
#[cfg(feature = "run-end")]
use super::concat_nested::concat_run_end;
#[cfg(feature = "union")]
use super::concat_nested::concat_union;
#[cfg(feature = "nested")]
use super::concat_nested::{
    concat_fixed_size_list, concat_list, concat_list_view, concat_map, concat_struct,
};
use super::{concat_nulls, total_len, BitWriter};
use crate::array::{
    dispatch_primitive, Array, ArrayRef, BinaryType, BooleanArray, ByteArrayType,
    FixedSizeBinaryArray, GenericByteArray, LargeBinaryType, LargeUtf8Type, NullArray,
    PrimitiveArray, PrimitiveType, Utf8Type,
};
#[cfg(feature = "views")]
use crate::array::{BinaryViewType, ByteView, ByteViewType, GenericByteViewArray, StringViewType};
#[cfg(feature = "views")]
use crate::buffer::{Buffer, SharedSlice};
use crate::buffer::{MutableBuffer, OffsetSize, ScalarBuffer, TryVec};
use crate::error::{Error, Result};

/// Concatenates `arrays`, which must all have the same data type, into one
/// new array of that type: its slots are those of `arrays[0]`, then those of
/// `arrays[1]`, and so on ("Physical Memory Layout" of the columnar format,
/// every layout).
///
/// The result's buffers are new allocations from `alloc` holding copies of
/// the inputs' slots (sliced inputs contribute only their slots), with these
/// exceptions that share memory with the inputs instead:
/// - the data buffers of view arrays (see below);
/// - a dictionary whose inputs all share one values array (the same
///   [`crate::buffer::SharedBox`]) keeps that dictionary and concatenates the
///   keys only; otherwise the dictionaries are concatenated and the keys of
///   each input are shifted by the lengths of the dictionaries before it;
/// - the data type (field names, metadata) is shared with `arrays[0]`.
///
/// Per layout: offsets (binary, string, list, map) are rebased to start at 0
/// and the referenced bytes or child ranges copied; list views keep their
/// offsets, shifted by the lengths of the previous inputs' children, which
/// are concatenated whole; views keep their bytes with the buffer index
/// re-pointed into one list of the inputs' data buffers, which are shared,
/// not copied (a buffer over the same bytes as an earlier one, e.g. the
/// same buffer of several slices of one array, is listed once; see
/// [`super::gc()`] to copy out only the bytes still referenced); dense unions shift offsets per child likewise;
/// sparse unions, structs and fixed-size lists concatenate their children
/// over each input's slot range; run-end encoded arrays shift run ends by the
/// previous inputs' lengths and copy the runs each input's view covers. The
/// validity bitmap is omitted when no input has a null.
///
/// One input gives a compacted copy of it.
///
/// ```
/// use alkaid::array::{Array, Int32Array, StringArray};
/// use alkaid::compute::concat;
/// use alkaid::Global;
///
/// let a = StringArray::from(vec![Some("x"), None]).into_array_ref();
/// let b = StringArray::from(vec!["yy", "zzz"]).into_array_ref().slice(1, 1)?;
/// let c = concat(&[&a, &b], Global)?;
/// let s = c.as_string().expect("Utf8");
/// assert_eq!(s.iter().collect::<Vec<_>>(), [Some("x"), None, Some("zzz")]);
/// assert_eq!(s.value_offsets(), &[0, 1, 1, 4]); // rebased from the slice
///
/// // Inputs must share one data type.
/// let n = Int32Array::from(vec![1]).into_array_ref();
/// assert!(concat(&[&a, &n], Global).is_err()); // Error::TypeMismatch
/// # Ok::<(), alkaid::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] when `arrays` is empty; [`Error::TypeMismatch`]
/// when the data types differ; [`Error::AllocationFailed`];
/// [`Error::CapacityOverflow`] when the total length, byte count, child length,
/// number of view buffers, shifted dictionary key or run end does not fit
/// its type (e.g. more than `i32::MAX` bytes of Utf8 data, or a key beyond
/// `i8::MAX` for Int8 keys); the inputs' own validation errors (offsets,
/// views, union type ids, keys) when an input is malformed.
pub fn concat<'a, A: Allocator + Clone>(
    arrays: &[&ArrayRef<'a, A>],
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    let mut owned = TryVec::new_in(alloc.clone());
    owned.try_reserve(arrays.len())?;
    for a in arrays {
        owned.try_push((*a).clone())?;
    }
    concat_arrays(&owned, alloc)
}

/// [`concat()`] over arrays held by value (the recursion for children).
pub(super) fn concat_arrays<'a, A: Allocator + Clone>(
    arrays: &[ArrayRef<'a, A>],
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    let Some(first) = arrays.first() else {
        return Err(Error::InvalidArgument);
    };
    if arrays.iter().any(|a| a.data_type() != first.data_type()) {
        return Err(Error::TypeMismatch);
    }
    let total = total_len(arrays)?;
    dispatch_primitive!(first; _: T => concat_primitive::<T, A>(arrays, total, alloc), {
        ArrayRef::Null(_) => Ok(NullArray::new(total).into_array_ref()),
        ArrayRef::Boolean(_) => concat_boolean(arrays, total, alloc),
        ArrayRef::FixedSizeBinary(_) => concat_fixed_size_binary(arrays, total, alloc),
        ArrayRef::Binary(_) => concat_bytes::<BinaryType, A>(arrays, total, alloc),
        ArrayRef::LargeBinary(_) => concat_bytes::<LargeBinaryType, A>(arrays, total, alloc),
        ArrayRef::Utf8(_) => concat_bytes::<Utf8Type, A>(arrays, total, alloc),
        ArrayRef::LargeUtf8(_) => concat_bytes::<LargeUtf8Type, A>(arrays, total, alloc),
        #[cfg(feature = "views")]
        ArrayRef::BinaryView(_) => concat_views::<BinaryViewType, A>(arrays, total, alloc),
        #[cfg(feature = "views")]
        ArrayRef::Utf8View(_) => concat_views::<StringViewType, A>(arrays, total, alloc),
        #[cfg(feature = "nested")]
        ArrayRef::List(_) => concat_list::<i32, A>(arrays, total, alloc),
        #[cfg(feature = "nested")]
        ArrayRef::LargeList(_) => concat_list::<i64, A>(arrays, total, alloc),
        #[cfg(feature = "nested")]
        ArrayRef::ListView(_) => concat_list_view::<i32, A>(arrays, total, alloc),
        #[cfg(feature = "nested")]
        ArrayRef::LargeListView(_) => concat_list_view::<i64, A>(arrays, total, alloc),
        #[cfg(feature = "nested")]
        ArrayRef::FixedSizeList(_) => concat_fixed_size_list(arrays, total, alloc),
        #[cfg(feature = "nested")]
        ArrayRef::Struct(_) => concat_struct(arrays, total, alloc),
        #[cfg(feature = "nested")]
        ArrayRef::Map(_) => concat_map(arrays, total, alloc),
        #[cfg(feature = "union")]
        ArrayRef::Union(_) => concat_union(arrays, total, alloc),
        #[cfg(feature = "dictionary")]
        ArrayRef::Dictionary(_) => concat_dictionary(arrays, total, alloc),
        #[cfg(feature = "run-end")]
        ArrayRef::RunEndEncoded(_) => concat_run_end(arrays, total, alloc),
    })
}

/// `n` bytes of room for whole `T`s: `count * size_of::<T>()`.
pub(super) fn byte_size<T>(count: usize) -> Result<usize> {
    count
        .checked_mul(size_of::<T>())
        .ok_or(Error::CapacityOverflow)
}

/// Freezes `m` into typed values (an empty buffer reads as no values).
pub(super) fn freeze<'a, T: crate::native::NativeType, A: Allocator>(
    m: MutableBuffer<A>,
) -> Result<ScalarBuffer<'a, T, A>> {
    ScalarBuffer::try_from_buffer(m.into_buffer())
}

fn concat_primitive<'a, T: PrimitiveType, A: Allocator + Clone>(
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

fn concat_boolean<'a, A: Allocator + Clone>(
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

fn concat_fixed_size_binary<'a, A: Allocator + Clone>(
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

/// The first and last offsets of `offsets` as `usize` (`0..0` when empty).
pub(super) fn offset_range<O: OffsetSize>(offsets: &[O]) -> Result<(usize, usize)> {
    let (Some(first), Some(last)) = (offsets.first(), offsets.last()) else {
        return Ok((0, 0));
    };
    let first = first.to_usize().ok_or(Error::OffsetOutOfBounds)?;
    let last = last.to_usize().ok_or(Error::OffsetOutOfBounds)?;
    if first > last {
        return Err(Error::OffsetsNotMonotonic);
    }
    Ok((first, last))
}

/// Appends `offsets` (after the first, rebased from it to `base`) to `out`.
pub(super) fn push_rebased<O: OffsetSize, A: Allocator>(
    out: &mut MutableBuffer<A>,
    offsets: &[O],
    base: usize,
) -> Result<()> {
    let (first, _) = offset_range(offsets)?;
    for o in offsets.iter().skip(1) {
        let rel = o
            .to_usize()
            .and_then(|o| o.checked_sub(first))
            .ok_or(Error::OffsetsNotMonotonic)?;
        let v = base
            .checked_add(rel)
            .and_then(O::from_usize)
            .ok_or(Error::CapacityOverflow)?;
        out.try_push(v)?;
    }
    Ok(())
}

fn concat_bytes<'a, T: ByteArrayType, A: Allocator + Clone>(
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
fn concat_views<'a, T: ByteViewType, A: Allocator + Clone>(
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
