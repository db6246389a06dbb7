//! [`take()`]: gather the slots of an array by index, into new buffers;
//! the flat layouts (primitive, boolean, binary and string with offsets or
//! views, fixed-size binary, null) are here, the nested ones in
//! `take_nested`.

use allocator_api2::alloc::Allocator;

use super::indices::{check_bounds, Bits, Idx, Indices, TakeIndex};
use super::read_bits;
use super::take_bytes::{copy_values, take_bytes};
#[cfg(feature = "dictionary")]
use super::take_nested::take_dictionary;
#[cfg(feature = "run-end")]
use super::take_nested::take_run_end;
#[cfg(feature = "union")]
use super::take_nested::take_union;
#[cfg(feature = "nested")]
use super::take_nested::{take_fixed_size_list, take_list, take_list_view, take_map, take_struct};
#[cfg(feature = "views")]
use crate::arch::View16;
use crate::array::{
    dispatch_primitive, Array, ArrayRef, BinaryType, BooleanArray, FixedSizeBinaryArray,
    LargeBinaryType, LargeUtf8Type, NullArray, PrimitiveArray, PrimitiveType, Utf8Type,
};
#[cfg(feature = "views")]
use crate::array::{BinaryViewType, ByteView, ByteViewType, GenericByteViewArray, StringViewType};
use crate::buffer::{BooleanBuffer, MutableBuffer, NullBuffer, OffsetSize, ScalarBuffer, TryVec};
use crate::error::{Error, Result};

/// Gathers slots of `array` by index into a new array of the same data type
/// ("take"): slot `i` of the result is slot `indices[i]` of `array`, null
/// where that slot is null or the index itself is null. Indices may repeat
/// and come in any order; `array` may be a slice.
///
/// Every layout of the columnar format ("Physical Memory Layout"): values,
/// offsets, views, type ids, keys and children are gathered into new
/// buffers from `alloc`, except what is shared with `array` (no copy):
/// - a dictionary's values (only the keys are gathered);
/// - a view array's data buffers (only the 16-byte views are gathered;
///   see [`super::gc()`] to copy out the bytes still referenced);
/// - a list view's child (only the offsets and sizes are gathered).
///
/// Lists, maps and fixed-size lists gather their child's elements; structs
/// and sparse unions take every child with the same indices; dense unions
/// take each child by the offsets of the slots selected in it; run-end
/// encoded arrays get one run per consecutive equal physical slot. A null
/// index gives a null slot: null in the validity bitmap, a null child slot
/// for a union (its first declared child), a null value run for run-end
/// encoding.
///
/// ```
/// use alkaid::array::{Array, StringArray, UInt32Array};
/// use alkaid::compute::take_in;
/// use alkaid::Global;
///
/// let a = StringArray::from(vec![Some("a"), None, Some("ccc")]).into_array_ref();
/// let idx = UInt32Array::from(vec![Some(2), None, Some(0), Some(2)]);
/// let t = take_in(&a, &idx, Global)?;
/// let s = t.as_string().expect("Utf8");
/// assert_eq!(s.iter().collect::<Vec<_>>(), [Some("ccc"), None, Some("a"), Some("ccc")]);
///
/// // A valid index past the end is an error; its position is the row.
/// let e = take_in(&a, &[0usize, 3][..], Global).unwrap_err();
/// assert_eq!(e, alkaid::Error::TakeIndexOutOfBounds);
/// assert_eq!(e.location().row(), Some(1));
/// # Ok::<(), alkaid::Error>(())
/// ```
///
/// # Errors
/// [`Error::TakeIndexOutOfBounds`] (with the index's position as the row)
/// when a valid index is not less than `array.len()`;
/// [`Error::AllocationFailed`]; [`Error::CapacityOverflow`] when the
/// gathered bytes or child elements do not fit the offset type (e.g. more
/// than `i32::MAX` bytes of Utf8 data); the array's own validation errors
/// when it is malformed (offsets, run ends, union type ids).
pub fn take_in<'a, 'b, 'i, A>(
    array: &ArrayRef<'a, A>,
    indices: impl Into<Indices<'b, 'i, A>>,
    alloc: A,
) -> Result<ArrayRef<'a, A>>
where
    'i: 'b,
    A: Allocator + Clone + 'i,
{
    match indices.into() {
        Indices::UInt32(p) => take_idx(array, &idx_of(p), alloc),
        Indices::UInt64(p) => take_idx(array, &idx_of(p), alloc),
        Indices::U32Slice(s) => take_idx(array, &Idx::all_valid(s), alloc),
        Indices::Usize(s) => take_idx(array, &Idx::all_valid(s), alloc),
    }
}

/// [`take_in`] with the global allocator.
///
/// # Errors
/// As [`take_in`].
#[cfg(feature = "alloc")]
pub fn take<'a, 'b, 'i>(
    array: &ArrayRef<'a, crate::Global>,
    indices: impl Into<Indices<'b, 'i, crate::Global>>,
) -> Result<ArrayRef<'a, crate::Global>>
where
    'i: 'b,
{
    take_in(array, indices, crate::Global)
}

/// The [`Idx`] of an index array (its bitmap only when it has nulls).
fn idx_of<'b, T: TakeIndex + PrimitiveType, A: Allocator>(
    p: &'b PrimitiveArray<'_, T, A>,
) -> Idx<'b, T> {
    Idx {
        values: p.values(),
        valid: p.nulls().filter(|n| n.null_count() > 0).map(Bits::of),
    }
}

/// [`take_in`] by read indices (the recursion for children).
pub(super) fn take_idx<'a, I: TakeIndex, A: Allocator + Clone>(
    array: &ArrayRef<'a, A>,
    idx: &Idx<'_, I>,
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    dispatch_primitive!(array; a: T => take_primitive::<T, I, A>(a, idx, alloc), {
        ArrayRef::Null(a) => {
            check_bounds(idx, a.len())?;
            Ok(NullArray::new(idx.len()).into_array_ref())
        }
        ArrayRef::Boolean(a) => take_boolean(a, idx, alloc),
        ArrayRef::FixedSizeBinary(a) => take_fixed_size_binary(a, idx, alloc),
        ArrayRef::Binary(a) => take_bytes::<BinaryType, I, A>(a, idx, alloc),
        ArrayRef::LargeBinary(a) => take_bytes::<LargeBinaryType, I, A>(a, idx, alloc),
        ArrayRef::Utf8(a) => take_bytes::<Utf8Type, I, A>(a, idx, alloc),
        ArrayRef::LargeUtf8(a) => take_bytes::<LargeUtf8Type, I, A>(a, idx, alloc),
        #[cfg(feature = "views")]
        ArrayRef::BinaryView(a) => take_views::<BinaryViewType, I, A>(a, idx, alloc),
        #[cfg(feature = "views")]
        ArrayRef::Utf8View(a) => take_views::<StringViewType, I, A>(a, idx, alloc),
        #[cfg(feature = "nested")]
        ArrayRef::List(a) => take_list(a, idx, alloc),
        #[cfg(feature = "nested")]
        ArrayRef::LargeList(a) => take_list(a, idx, alloc),
        #[cfg(feature = "nested")]
        ArrayRef::ListView(a) => take_list_view(a, idx, alloc),
        #[cfg(feature = "nested")]
        ArrayRef::LargeListView(a) => take_list_view(a, idx, alloc),
        #[cfg(feature = "nested")]
        ArrayRef::FixedSizeList(a) => take_fixed_size_list(a, idx, alloc),
        #[cfg(feature = "nested")]
        ArrayRef::Struct(a) => take_struct(a, idx, alloc),
        #[cfg(feature = "nested")]
        ArrayRef::Map(a) => take_map(a, idx, alloc),
        #[cfg(feature = "union")]
        ArrayRef::Union(a) => take_union(a, idx, alloc),
        #[cfg(feature = "dictionary")]
        ArrayRef::Dictionary(a) => take_dictionary(a, idx, alloc),
        #[cfg(feature = "run-end")]
        ArrayRef::RunEndEncoded(a) => take_run_end(a, idx, alloc),
    })
}

/// The validity of a take: bit `k` set when index `k` is valid and selects
/// a valid slot of `src` (`None` when neither has a null).
///
/// # Errors
/// [`Error::AllocationFailed`].
pub(super) fn take_nulls<I: TakeIndex, A: Allocator>(
    src: Option<&NullBuffer<'_, A>>,
    idx: &Idx<'_, I>,
    alloc: A,
) -> Result<Option<NullBuffer<'static, A>>> {
    let src = src.filter(|n| n.null_count() > 0).map(Bits::of);
    if src.is_none() && !idx.has_nulls() {
        return Ok(None);
    }
    let n = idx.len();
    let mut out = MutableBuffer::new_in(alloc);
    #[cfg(target_arch = "x86_64")]
    if let (Some(s), Some(u32s)) = (src, I::as_u32s(idx.values)) {
        if s.offset % 8 == 0 && crate::arch::x86::has_avx2() {
            out.try_extend_zeros(n.div_ceil(64) * 8)?;
            let words = out.typed_mut::<u64>()?;
            let bits = s.bytes.get(s.offset / 8..).unwrap_or(&[]);
            // SAFETY: the processor has AVX2 (just asked).
            unsafe { crate::arch::x86::gather_bits_avx2(bits, u32s, words) };
            if let Some(v) = idx.valid {
                for (w, word) in words.iter_mut().enumerate() {
                    *word &= read_bits(v.bytes, v.offset + 64 * w);
                }
            }
            if let Some(last) = words.last_mut() {
                if n % 64 != 0 {
                    *last &= (1u64 << (n % 64)) - 1;
                }
            }
            return Ok(Some(NullBuffer::new(BooleanBuffer::try_new(
                out.into_buffer(),
                0,
                n,
            )?)));
        }
    }
    // 64 output bits at a time, stored as little-endian words (the bitmap's
    // byte order on every host).
    let mut chunks = idx.values.chunks(64);
    let mut base = 0usize;
    out.try_extend_from_fn(n.div_ceil(64), |_| {
        let chunk = chunks.next().unwrap_or(&[]);
        let live = match chunk.len() {
            64 => u64::MAX,
            k => (1u64 << k) - 1,
        };
        let valid = idx
            .valid
            .map_or(live, |v| read_bits(v.bytes, v.offset + base) & live);
        base += 64;
        let word = match src {
            None => valid,
            // A null index reads some bit (in bounds or 0), then masked.
            Some(s) => gather_bits(s, chunk) & valid,
        };
        word.to_le()
    })?;
    Ok(Some(NullBuffer::new(BooleanBuffer::try_new(
        out.into_buffer(),
        0,
        n,
    )?)))
}

/// Bit `b` of the result is bit `chunk[b]` of `src`, for the up to 64
/// indices of `chunk` (an index out of bounds gives 0).
#[inline(always)]
fn gather_bits<I: TakeIndex>(src: Bits<'_>, chunk: &[I]) -> u64 {
    let mut word = 0u64;
    let mut eights = chunk.chunks_exact(8);
    // Eight at a time with constant shifts: the loop unrolls and the eight
    // loads of a byte are in flight together.
    for (b, eight) in eights.by_ref().enumerate() {
        let mut byte = 0u64;
        for (t, i) in eight.iter().enumerate() {
            byte |= u64::from(src.get(i.index())) << t;
        }
        word |= byte << (8 * b);
    }
    let done = chunk.len() - eights.remainder().len();
    for (t, i) in eights.remainder().iter().enumerate() {
        word |= u64::from(src.get(i.index())) << (done + t);
    }
    word
}

/// Gathers `values[idx[k]]` for every `k` (the default for a null index),
/// or the error for the first valid index out of bounds.
pub(super) fn gather<T: bytemuck::Pod, I: TakeIndex, A: Allocator>(
    values: &[T],
    idx: &Idx<'_, I>,
    alloc: A,
) -> Result<MutableBuffer<A>> {
    let mut out = MutableBuffer::new_in(alloc);
    match idx.valid {
        None => {
            let mut bad = None;
            out.try_extend_mapped(idx.values, |k, i| match values.get(i.index()) {
                Some(v) => *v,
                None => {
                    bad.get_or_insert(k);
                    T::zeroed()
                }
            })?;
            match bad {
                Some(k) => Err(Error::TakeIndexOutOfBounds.with_row(k)),
                None => Ok(out),
            }
        }
        Some(_) => {
            let mut bad = None;
            out.try_extend_from_fn(idx.len(), |k| match idx.get(k) {
                None => T::zeroed(),
                Some(j) => match values.get(j) {
                    Some(v) => *v,
                    None => {
                        bad.get_or_insert(k);
                        T::zeroed()
                    }
                },
            })?;
            match bad {
                Some(k) => Err(Error::TakeIndexOutOfBounds.with_row(k)),
                None => Ok(out),
            }
        }
    }
}

fn take_primitive<'a, T: PrimitiveType, I: TakeIndex, A: Allocator + Clone>(
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

fn take_boolean<'a, I: TakeIndex, A: Allocator + Clone>(
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

fn take_fixed_size_binary<'a, I: TakeIndex, A: Allocator + Clone>(
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

/// The byte range of slot `j` of offsets `offs` (`len + 1` entries).
#[inline]
pub(super) fn range_of<O: OffsetSize>(offs: &[O], j: usize) -> Result<(usize, usize)> {
    let start = offs.get(j).and_then(|o| o.to_usize());
    let end = offs.get(j.wrapping_add(1)).and_then(|o| o.to_usize());
    match (start, end) {
        (Some(s), Some(e)) if s <= e => Ok((s, e)),
        _ => Err(Error::OffsetOutOfBounds),
    }
}

/// A gather of `n` byte values (the values at input slots `slot(0)`,
/// `slot(1)`, … of offsets `offs` over `data`; `None`: an empty value, for
/// a null index): the new offsets (from 0, as `O`) and the values' bytes,
/// in two passes ([`byte_offsets`], then [`copy_values`]). Used by
/// `filter` at low selectivity.
///
/// # Errors
/// As [`byte_offsets`] and [`copy_values`].
pub(super) fn gather_bytes<O: OffsetSize, A: Allocator + Clone>(
    offs: &[O],
    data: &[u8],
    n: usize,
    slot: impl FnMut(usize) -> Option<usize>,
    alloc: A,
) -> Result<(MutableBuffer<A>, MutableBuffer<A>)> {
    let (offsets, starts, total) = byte_offsets(offs, n, slot, alloc.clone())?;
    let new_offs = offsets.typed::<O>()?;
    let values =
        copy_values::<SHORT_COPY, _, _>(data, starts.iter().copied(), new_offs, total, alloc)?;
    Ok((offsets, values))
}

/// Bytes moved per short value by [`copy_values`] in a gather: 48 (take's
/// width) was within the noise for filter's.
const SHORT_COPY: usize = 32;

/// The first pass of a gather of `n` byte values: the new offsets (from
/// 0) of the values at input slots `slot(0)`, `slot(1)`, … (`None`: an
/// empty value, for a null index) of offsets `offs`, each value's start in
/// the input's data, and the total bytes. Two passes, as the output's size
/// is known only after this one; [`copy_values`] then reads the starts and
/// the new offsets in order instead of the input's offsets at random a
/// second time.
///
/// # Errors
/// [`Error::TakeIndexOutOfBounds`] (with `k` as the row) when `slot(k)` is
/// not a slot of `offs` (the first such `k`); [`Error::OffsetOutOfBounds`]
/// when its offsets decrease; [`Error::CapacityOverflow`] when the total does not fit `O`;
/// [`Error::AllocationFailed`].
fn byte_offsets<O: OffsetSize, A: Allocator + Clone>(
    offs: &[O],
    n: usize,
    mut slot: impl FnMut(usize) -> Option<usize>,
    alloc: A,
) -> Result<(MutableBuffer<A>, TryVec<usize, A>, usize)> {
    let mut offsets = MutableBuffer::new_in(alloc.clone());
    offsets.try_reserve_exact(super::concat::byte_size::<O>(
        n.checked_add(1).ok_or(Error::CapacityOverflow)?,
    )?)?;
    offsets.try_push(O::ZERO)?;
    let mut starts = TryVec::<usize, A>::new_in(alloc);
    starts.try_reserve_exact(n)?;
    let mut total = 0usize;
    let mut bad = None;
    let slots = offs.len().saturating_sub(1);
    offsets.try_extend_from_fn(n, |k| {
        let mut start = 0;
        if let Some(j) = slot(k) {
            if j >= slots {
                bad.get_or_insert(Error::TakeIndexOutOfBounds.with_row(k));
            }
            match range_of(offs, j) {
                Ok((s, e)) => {
                    start = s;
                    total = total.saturating_add(e - s);
                }
                Err(e) => {
                    bad.get_or_insert(e);
                }
            }
        }
        if let Err(e) = starts.try_push(start) {
            bad.get_or_insert(e);
        }
        O::from_usize(total).unwrap_or(O::ZERO)
    })?;
    if let Some(e) = bad {
        return Err(e);
    }
    O::from_usize(total).ok_or(Error::CapacityOverflow)?;
    Ok((offsets, starts, total))
}

#[cfg(feature = "views")]
fn take_views<'a, T: ByteViewType, I: TakeIndex, A: Allocator + Clone>(
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
