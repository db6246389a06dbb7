//! [`filter()`] and [`filter_record_batch()`]: keep the slots where a
//! boolean predicate is true.
//!
//! Two strategies, chosen by selectivity (the share of true slots): above
//! 80 % the kept slots are copied run by run (long runs of true become one
//! copy each); below, the kept positions are visited one by one (fixed-width
//! values and views with their validity bits in one walk of the predicate's
//! words, `filter_values`, or from a list of the kept positions when at most
//! 1 in 16 is kept; byte arrays and the other layouts through the gathers
//! of [`super::take()`] by the kept positions). Structs filter each
//! child with the same predicate; dictionaries filter their keys.

use allocator_api2::alloc::Allocator;

use super::compress::compress_bitmap;
use super::empty::new_empty;
use super::filter_values::filter_values_nulls;
use super::indices::{Bits, Idx};
use super::read_bits;
use super::set_bits::{list_set_bits, SetBits};
use super::take::{gather_bytes, take_idx};
#[cfg(feature = "views")]
use crate::arch::View16;
#[cfg(feature = "nested")]
use crate::array::StructArray;
use crate::array::{
    dispatch_primitive, Array, ArrayRef, BooleanArray, ByteArrayType, GenericByteArray,
    PrimitiveArray, PrimitiveType, RecordBatch,
};
#[cfg(feature = "views")]
use crate::array::{ByteView, ByteViewType, GenericByteViewArray};
#[cfg(feature = "dictionary")]
use crate::array::{DictionaryArray, DictionaryKeys};
use crate::buffer::{
    BooleanBuffer, MutableBuffer, NullBuffer, OffsetSize, ScalarBuffer, SharedSlice, TryVec,
};
use crate::error::{Error, Result};

/// Keeps the slots of `array` where `predicate` is true, in order ("filter"):
/// the result has `predicate.true_count()` slots (a null in the predicate
/// drops the slot, as false). Every layout of the columnar format; `array`
/// and `predicate` may be slices.
///
/// What is shared with `array` rather than copied: all of it when every
/// slot is kept (the result is `array` itself); otherwise as for
/// [`super::take()`] (a dictionary's values, a view array's data buffers, a
/// list view's child). New buffers come from `alloc`.
///
/// ```
/// use alkaid::array::{Array, BooleanArray, Int32Array};
/// use alkaid::compute::filter_in;
/// use alkaid::Global;
///
/// let a = Int32Array::from(vec![Some(1), None, Some(3), Some(4)]).into_array_ref();
/// let keep = BooleanArray::from(vec![Some(true), Some(true), None, Some(true)]);
/// let f = filter_in(&a, &keep, Global)?;
/// assert_eq!(f, Int32Array::from(vec![Some(1), None, Some(4)]).into_array_ref());
/// # Ok::<(), alkaid::Error>(())
/// ```
///
/// # Errors
/// [`Error::LengthMismatch`] when `predicate.len() != array.len()`;
/// [`Error::AllocationFailed`]; otherwise as [`super::take_in`].
pub fn filter_in<'a, A: Allocator + Clone>(
    array: &ArrayRef<'a, A>,
    predicate: &BooleanArray<'_, A>,
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    if predicate.len() != array.len() {
        return Err(Error::LengthMismatch);
    }
    let anded = Mask::anded(predicate, alloc.clone())?;
    let mask = Mask::of(predicate, anded.as_ref());
    let kept = mask.kept_positions(listing(array), alloc.clone())?;
    let mask = mask.with_kept(kept.as_deref());
    filter_mask(array, &mask, alloc)
}

/// [`filter_in`] with the global allocator.
///
/// # Errors
/// As [`filter_in`].
#[cfg(feature = "alloc")]
pub fn filter<'a>(
    array: &ArrayRef<'a, crate::Global>,
    predicate: &BooleanArray<'_, crate::Global>,
) -> Result<ArrayRef<'a, crate::Global>> {
    filter_in(array, predicate, crate::Global)
}

/// Filters every column of `batch` by `predicate` ([`filter_in`]); the
/// schema is shared.
///
/// # Errors
/// [`Error::LengthMismatch`] when `predicate.len() != batch.num_rows()`;
/// otherwise as [`filter_in`], with the column's index in the location.
pub fn filter_record_batch_in<'a, A: Allocator + Clone>(
    batch: &RecordBatch<'a, A>,
    predicate: &BooleanArray<'_, A>,
    alloc: A,
) -> Result<RecordBatch<'a, A>> {
    if predicate.len() != batch.num_rows() {
        return Err(Error::LengthMismatch);
    }
    let anded = Mask::anded(predicate, alloc.clone())?;
    let mask = Mask::of(predicate, anded.as_ref());
    let list = match batch.num_columns() {
        1 => batch.column(0).map_or(Listing::Always, listing),
        _ => Listing::Always,
    };
    let kept = mask.kept_positions(list, alloc.clone())?;
    let mask = mask.with_kept(kept.as_deref());
    let n = batch.num_columns();
    let columns = if n == 0 {
        SharedSlice::empty()
    } else {
        SharedSlice::try_from_fn_in(n, alloc.clone(), |i| {
            let c = batch.column(i).ok_or(Error::SchemaMismatch)?;
            filter_mask(c, &mask, alloc.clone()).map_err(|e| e.with_field(i))
        })?
    };
    RecordBatch::try_new_with_rows(batch.schema().clone(), columns, mask.count)
}

/// [`filter_record_batch_in`] with the global allocator.
///
/// # Errors
/// As [`filter_record_batch_in`].
#[cfg(feature = "alloc")]
pub fn filter_record_batch<'a>(
    batch: &RecordBatch<'a, crate::Global>,
    predicate: &BooleanArray<'_, crate::Global>,
) -> Result<RecordBatch<'a, crate::Global>> {
    filter_record_batch_in(batch, predicate, crate::Global)
}

/// The slots to keep: bit `i` of `bits` for `i < len`, `count` of them set.
#[derive(Clone, Copy, Debug)]
pub(super) struct Mask<'b> {
    pub(super) bits: Bits<'b>,
    pub(super) len: usize,
    pub(super) count: usize,
    /// The kept positions, listed once up front when slots are visited one
    /// by one (low selectivity), so that every buffer and child reuses them.
    pub(super) kept: Option<&'b [usize]>,
}

impl<'b> Mask<'b> {
    /// The bits of a predicate with nulls: its values ANDed with its
    /// validity, in 64-bit words (`None` when it has no null: the values
    /// are the mask).
    fn anded<A: Allocator>(p: &BooleanArray<'_, A>, alloc: A) -> Result<Option<MutableBuffer<A>>> {
        let Some(n) = p.nulls().filter(|n| n.null_count() > 0) else {
            return Ok(None);
        };
        let (values, valid, len) = (p.values(), Bits::of(n), p.len());
        let vbytes = values.inner().as_slice();
        let mut out = MutableBuffer::new_in(alloc);
        out.try_extend_from_fn(len.div_ceil(64), |w| {
            let at = w * 64;
            let word =
                read_bits(vbytes, values.offset() + at) & read_bits(valid.bytes, valid.offset + at);
            let left = len - at;
            let word = if left < 64 {
                word & ((1u64 << left) - 1)
            } else {
                word
            };
            // Bitmaps are little-endian bytes: the word's bytes in that
            // order on every host (the buffer stores `u64`s natively).
            word.to_le()
        })?;
        Ok(Some(out))
    }

    /// The mask of predicate `p`, whose [`Self::anded`] bits are `anded`.
    fn of<A: Allocator>(p: &'b BooleanArray<'_, A>, anded: Option<&'b MutableBuffer<A>>) -> Self {
        let len = p.len();
        match anded {
            None => Mask {
                bits: Bits {
                    bytes: p.values().inner().as_slice(),
                    offset: p.values().offset(),
                },
                len,
                count: p.values().count_set_bits(),
                kept: None,
            },
            Some(b) => Mask {
                bits: Bits {
                    bytes: b.as_slice(),
                    offset: 0,
                },
                len,
                count: b.as_slice().iter().map(|x| x.count_ones() as usize).sum(),
                kept: None,
            },
        }
    }

    /// The kept positions, listed when slots are visited one by one, there
    /// is something to filter, and the list pays (`list`). `None` otherwise.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`].
    fn kept_positions<A: Allocator>(
        &self,
        list: Listing,
        alloc: A,
    ) -> Result<Option<TryVec<usize, A>>> {
        if self.use_runs() || self.count == 0 || self.count == self.len || self.kept.is_some() {
            return Ok(None);
        }
        let pays = match list {
            Listing::Always => true,
            Listing::WhenSparse => self.count.saturating_mul(8) <= self.len,
            Listing::WhenVerySparse => self.count.saturating_mul(16) <= self.len,
        };
        if !pays {
            return Ok(None);
        }
        let mut kept = TryVec::new_in(alloc);
        kept.try_reserve(self.count)?;
        list_set_bits(self.bits, self.len, &mut kept)?;
        Ok(Some(kept))
    }

    /// This mask with its kept positions `kept` (if any).
    fn with_kept(self, kept: Option<&'b [usize]>) -> Self {
        Mask {
            kept: kept.or(self.kept),
            ..self
        }
    }

    /// The kept positions, one by one.
    fn positions(&self) -> Positions<'b> {
        match self.kept {
            Some(k) => Positions::Listed(k.iter()),
            None => Positions::Bits(SetBits::new(self.bits, self.len)),
        }
    }

    /// `true` when copying runs beats visiting slots one by one.
    pub(super) fn use_runs(&self) -> bool {
        self.count.saturating_mul(5) > self.len.saturating_mul(4)
    }
}

/// When a list of the kept positions pays for filtering an array at low
/// selectivity ([`Mask::kept_positions`]).
#[derive(Clone, Copy, Debug)]
enum Listing {
    /// Several buffers or columns walk it (a struct's children, a batch).
    Always,
    /// Only when few slots are kept (at most 1 in 8): the offsets and the
    /// validity of byte arrays, and the layouts filtered through `take`,
    /// each walk it, and the walk of the predicate's bits (mostly zero
    /// words) is done once.
    WhenSparse,
    /// Only when very few slots are kept (at most 1 in 16): fixed-width
    /// values (primitives, views, dictionary keys). Above that they take
    /// their values and validity bits in one walk of the predicate's words;
    /// below, the list lets the gather of values (each a likely cache miss)
    /// run ahead without the walk's mispredicted branches. Measured on
    /// 262,144 rows with 10% nulls against that walk: Utf8View 1% kept 17.5–18.0
    /// to 12.7–14.9 µs, 5% 46 to 34 µs; Int64 5% 41–50 to 32 µs; Int64 and
    /// dictionary keys 10% 41–49 to 54–62 µs (slower: the walk keeps them).
    WhenVerySparse,
}

/// The [`Listing`] for filtering `array`.
fn listing<A: Allocator>(array: &ArrayRef<'_, A>) -> Listing {
    dispatch_primitive!(array; _: T => Listing::WhenVerySparse, {
        #[cfg(feature = "nested")]
        ArrayRef::Struct(_) => Listing::Always,
        #[cfg(feature = "views")]
        ArrayRef::BinaryView(_) | ArrayRef::Utf8View(_) => Listing::WhenVerySparse,
        #[cfg(feature = "dictionary")]
        ArrayRef::Dictionary(_) => Listing::WhenVerySparse,
        _ => Listing::WhenSparse,
    })
}

/// The kept positions of a mask: listed, or read from its bits.
enum Positions<'b> {
    Listed(core::slice::Iter<'b, usize>),
    Bits(SetBits<'b>),
}

impl Iterator for Positions<'_> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        match self {
            Positions::Listed(it) => it.next().copied(),
            Positions::Bits(it) => it.next(),
        }
    }
}

/// The runs of set bits among the first `len` bits of `bits`, as
/// `(start, end)` positions.
pub(super) struct Runs<'b> {
    bits: Bits<'b>,
    len: usize,
    pos: usize,
}

impl<'b> Runs<'b> {
    pub(super) fn new(bits: Bits<'b>, len: usize) -> Self {
        Runs { bits, len, pos: 0 }
    }

    /// The first position `>= pos` whose bit is `set` (`len` if none).
    fn next_bit(&self, mut pos: usize, set: bool) -> usize {
        while pos < self.len {
            let mut w = read_bits(self.bits.bytes, self.bits.offset + pos);
            if !set {
                w = !w;
            }
            if w != 0 {
                return (pos + w.trailing_zeros() as usize).min(self.len);
            }
            pos += 64;
        }
        self.len
    }
}

impl Iterator for Runs<'_> {
    type Item = (usize, usize);

    fn next(&mut self) -> Option<(usize, usize)> {
        let start = self.next_bit(self.pos, true);
        if start >= self.len {
            self.pos = self.len;
            return None;
        }
        let end = self.next_bit(start, false);
        self.pos = end;
        Some((start, end))
    }
}

/// [`filter_in`] by a mask of `array.len()` bits.
pub(super) fn filter_mask<'a, A: Allocator + Clone>(
    array: &ArrayRef<'a, A>,
    mask: &Mask<'_>,
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    if mask.len != array.len() {
        return Err(Error::LengthMismatch);
    }
    if mask.count == mask.len {
        return Ok(array.clone());
    }
    if mask.count == 0 {
        return new_empty(array.data_type(), alloc);
    }
    dispatch_primitive!(array; a: T => filter_primitive::<T, A>(a, mask, alloc), {
        ArrayRef::Binary(a) => filter_bytes(a, mask, alloc),
        ArrayRef::LargeBinary(a) => filter_bytes(a, mask, alloc),
        ArrayRef::Utf8(a) => filter_bytes(a, mask, alloc),
        ArrayRef::LargeUtf8(a) => filter_bytes(a, mask, alloc),
        #[cfg(feature = "views")]
        ArrayRef::BinaryView(a) => filter_views(a, mask, alloc),
        #[cfg(feature = "views")]
        ArrayRef::Utf8View(a) => filter_views(a, mask, alloc),
        #[cfg(feature = "nested")]
        ArrayRef::Struct(s) => filter_struct(s, mask, alloc),
        #[cfg(feature = "dictionary")]
        ArrayRef::Dictionary(d) => filter_dictionary(d, mask, alloc),
        other => match mask.kept {
            Some(kept) => take_idx(other, &Idx::all_valid(kept), alloc),
            None => {
                let mut kept = TryVec::new_in(alloc.clone());
                kept.try_reserve(mask.count)?;
                list_set_bits(mask.bits, mask.len, &mut kept)?;
                take_idx(other, &Idx::all_valid(kept.as_slice()), alloc)
            }
        },
    })
}

/// The validity bits of `nulls` where the mask is set (`None` when there
/// is no null).
pub(super) fn filter_nulls<A: Allocator>(
    nulls: Option<&NullBuffer<'_, A>>,
    mask: &Mask<'_>,
    alloc: A,
) -> Result<Option<NullBuffer<'static, A>>> {
    let Some(n) = nulls.filter(|n| n.null_count() > 0) else {
        return Ok(None);
    };
    let src = Bits::of(n);
    let mut out = MutableBuffer::new_in(alloc);
    if let Some(kept) = mask.kept {
        // Few kept slots: their bits one by one.
        let mut it = kept.iter();
        out.try_extend_from_fn(mask.count.div_ceil(8), |_| {
            let mut byte = 0u8;
            for (b, i) in it.by_ref().take(8).enumerate() {
                byte |= u8::from(src.get(*i)) << b;
            }
            byte
        })?;
    } else {
        compress_bitmap(mask.bits, src, mask.len, mask.count, &mut out)?;
    }
    let bits = BooleanBuffer::try_new(out.into_buffer(), 0, mask.count)?;
    Ok(Some(NullBuffer::new(bits)))
}

fn filter_primitive<'a, T: PrimitiveType, A: Allocator + Clone>(
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

fn filter_bytes<'a, T: ByteArrayType, A: Allocator + Clone>(
    b: &GenericByteArray<'a, T, A>,
    mask: &Mask<'_>,
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    let offs = b.value_offsets();
    if offs.len() != mask.len + 1 {
        return Err(Error::OffsetsLength);
    }
    let data = b.values().as_slice();
    let (offsets, values) = if mask.use_runs() {
        filter_byte_runs::<T::Offset, A>(offs, data, mask, alloc.clone())?
    } else {
        // Kept slots one by one: the gather of `take` by the kept positions.
        match mask.kept {
            // Listed: each slot's offsets asked for `OFFSETS_AHEAD` slots
            // ahead, as `take` does (1 % of 4–40-byte strings: 28–30 →
            // 24 µs).
            Some(list) => gather_bytes(
                offs,
                data,
                mask.count,
                |k| {
                    if let Some(&a) = list.get(k + super::take_bytes::OFFSETS_AHEAD) {
                        crate::arch::prefetch::prefetch(offs.as_ptr().wrapping_add(a));
                    }
                    list.get(k).copied()
                },
                alloc.clone(),
            )?,
            None => {
                let mut kept = mask.positions();
                gather_bytes(offs, data, mask.count, |_| kept.next(), alloc.clone())?
            }
        }
    };
    let nulls = filter_nulls(b.nulls(), mask, alloc)?;
    let offsets = ScalarBuffer::<T::Offset, A>::try_from_buffer(offsets.into_buffer())?;
    // SAFETY: the offsets start at 0 and grow by each kept value's length up
    // to the values' length; the values are whole values of a valid input
    // (UTF-8 for strings, a type invariant of safely built arrays).
    let a =
        unsafe { GenericByteArray::<T, A>::new_unchecked(offsets, values.into_buffer(), nulls) };
    Ok(a.into_array_ref())
}

/// The offsets and bytes of the runs of kept slots of byte values with
/// offsets `offs` over `data` (a copy per run).
///
/// # Errors
/// [`Error::OffsetOutOfBounds`], [`Error::OffsetsNotMonotonic`] and
/// [`Error::OffsetsLength`] on malformed offsets;
/// [`Error::CapacityOverflow`]; [`Error::AllocationFailed`].
fn filter_byte_runs<O: OffsetSize, A: Allocator + Clone>(
    offs: &[O],
    data: &[u8],
    mask: &Mask<'_>,
    alloc: A,
) -> Result<(MutableBuffer<A>, MutableBuffer<A>)> {
    let at = |i: usize| {
        offs.get(i)
            .and_then(|o| o.to_usize())
            .ok_or(Error::OffsetOutOfBounds)
    };
    // Bytes kept, to allocate them at once.
    let mut total = 0usize;
    for (s, e) in Runs::new(mask.bits, mask.len) {
        let (s, e) = (at(s)?, at(e)?);
        total = total
            .checked_add(e.checked_sub(s).ok_or(Error::OffsetsNotMonotonic)?)
            .ok_or(Error::CapacityOverflow)?;
    }
    O::from_usize(total).ok_or(Error::CapacityOverflow)?;
    let mut offsets = MutableBuffer::new_in(alloc.clone());
    offsets.try_reserve_exact(super::concat::byte_size::<O>(mask.count + 1)?)?;
    offsets.try_push(O::ZERO)?;
    let mut values = MutableBuffer::new_in(alloc);
    values.try_extend_appended(total, |out| {
        for (s, e) in Runs::new(mask.bits, mask.len) {
            let range = offs.get(s..=e).ok_or(Error::OffsetsLength)?;
            super::concat::push_rebased(&mut offsets, range, out.pos())?;
            out.put_slice(data.get(at(s)?..at(e)?).ok_or(Error::OffsetOutOfBounds)?)?;
        }
        Ok(())
    })?;
    if values.len() != total {
        return Err(Error::OffsetOutOfBounds);
    }
    Ok((offsets, values))
}

#[cfg(feature = "views")]
fn filter_views<'a, T: ByteViewType, A: Allocator + Clone>(
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

#[cfg(feature = "nested")]
fn filter_struct<'a, A: Allocator + Clone>(
    s: &StructArray<'a, A>,
    mask: &Mask<'_>,
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    let fields = s.fields().clone();
    let children = if fields.is_empty() {
        SharedSlice::empty()
    } else {
        SharedSlice::try_from_fn_in(fields.len(), alloc.clone(), |c| {
            let child = s.children().get(c).ok_or(Error::TypeMismatch)?;
            let child = child.slice(s.offset(), s.len())?;
            filter_mask(&child, mask, alloc.clone()).map_err(|e| e.in_child(c))
        })?
    };
    let nulls = filter_nulls(s.nulls(), mask, alloc)?;
    Ok(StructArray::try_new_cheap(fields, children, mask.count, nulls)?.into_array_ref())
}

#[cfg(feature = "dictionary")]
fn filter_dictionary<'a, A: Allocator + Clone>(
    d: &DictionaryArray<'a, A>,
    mask: &Mask<'_>,
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    let keys = filter_mask(&d.keys().clone().into_array_ref(), mask, alloc)?;
    let keys = DictionaryKeys::try_from(keys)?;
    // SAFETY: every valid key is one of the input's, over the same (shared)
    // dictionary.
    let a = unsafe {
        DictionaryArray::new_unchecked(d.data_type().clone(), keys, d.values_shared().clone())
    };
    a.validate(crate::array::ValidationLevel::Cheap)?;
    Ok(a.into_array_ref())
}
