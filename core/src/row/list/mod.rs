//! Lists: List, LargeList, ListView, LargeListView and Map (a list of
//! key-value entries), encode and decode.
//!
//! The elements of a column's lists are encoded to rows first
//! ([`ListChild`]: one child [`Rows`], or for elements of a fixed-width
//! leaf type encoded element by element their rows at a fixed stride), then
//! each list's piece is written from its elements' rows in one of two
//! layouts:
//!
//! - element by element ([`elements`]), the default ordered encoding, as
//!   arrow-row 52 and later;
//! - the seed's "canonical byte array" ([`canonical`]), for
//!   [`super::RowEncoding::Seed`] and for the unordered encoding.
//!
//! Decoding element by element reads lists of a primitive type (but
//! Decimal256) straight from the rows: every element then takes the same
//! number of bytes, and each value is read from its mini-blocks' words.
//! Any other elements' rows (and the seed layout's) are gathered into one
//! scratch buffer and the child decodes from it through a cursor per
//! element.

use core::ops::Range;

use allocator_api2::alloc::Allocator;

mod canonical;
pub(crate) mod elements;

use super::decode::{fixed_len, is_variable};
use super::fixed::{self, Layout};
use super::interner::Interner;
use super::{encode_to_rows, Encoder};
use super::{Kind, Node, Rows};
use crate::array::{
    Array, ArrayRef, GenericListArray, GenericListViewArray, ListOffsetSize, MapArray,
    ValidationLevel,
};
use crate::buffer::{
    MutableBuffer, NullBuffer, OffsetBuffer, OffsetSize, ScalarBuffer, SharedBox, TryVec,
};
use crate::datatypes::{DataType, FieldRef};
use crate::error::{Error, Result};

/// Where the elements of slot `i` are in the encoded child rows.
pub(crate) enum ListIndex<'c> {
    /// Offsets (`len + 1`), minus the first (the child was sliced there).
    List32(&'c [i32], usize),
    /// As `List32`, 64-bit.
    List64(&'c [i64], usize),
    /// Offsets and sizes of a list view over the whole child.
    View32(&'c [i32], &'c [i32]),
    /// As `View32`, 64-bit.
    View64(&'c [i64], &'c [i64]),
}

fn offsets_range<O: OffsetSize>(o: &[O], base: usize, i: usize) -> Option<Range<usize>> {
    let start = o.get(i)?.to_usize()?.checked_sub(base)?;
    let end = o.get(i.checked_add(1)?)?.to_usize()?.checked_sub(base)?;
    (start <= end).then_some(start..end)
}

fn view_range<O: OffsetSize>(o: &[O], s: &[O], i: usize) -> Option<Range<usize>> {
    let start = o.get(i)?.to_usize()?;
    let end = start.checked_add(s.get(i)?.to_usize()?)?;
    Some(start..end)
}

/// Calls the closure `$f` with `(i, range)` for the slots `0..$n` of the
/// [`ListIndex`] `$index` in order: `range` the child rows of slot `i`,
/// `None` for a null slot (`$nulls`). One loop per offset type, each with
/// its own copy of `$f` (so that it is inlined there).
///
/// Errors: [`Error::OffsetOutOfBounds`] for offsets out of range; `$f`'s.
macro_rules! for_each_list {
    ($index:expr, $nulls:expr, $n:expr, $f:expr) => {
        match $index {
            ListIndex::List32(o, b) => each_slot($nulls, $n, |i| offsets_range(o, *b, i), $f),
            ListIndex::List64(o, b) => each_slot($nulls, $n, |i| offsets_range(o, *b, i), $f),
            ListIndex::View32(o, s) => each_slot($nulls, $n, |i| view_range(o, s, i), $f),
            ListIndex::View64(o, s) => each_slot($nulls, $n, |i| view_range(o, s, i), $f),
        }
    };
}

/// [`for_each_list`] with the ranges from `range`.
#[inline(always)]
fn each_slot<A: Allocator>(
    nulls: Option<&NullBuffer<'_, A>>,
    n: usize,
    range: impl Fn(usize) -> Option<Range<usize>>,
    mut f: impl FnMut(usize, Option<Range<usize>>) -> Result<()>,
) -> Result<()> {
    for i in 0..n {
        let r = if is_valid(nulls, i) {
            Some(range(i).ok_or(Error::OffsetOutOfBounds)?)
        } else {
            None
        };
        f(i, r)?;
    }
    Ok(())
}

/// The offset types of lists, mapping offsets to a [`ListIndex`].
pub(crate) trait IndexOffset: ListOffsetSize {
    fn list(o: &[Self], base: usize) -> ListIndex<'_>;
    fn view<'c>(o: &'c [Self], s: &'c [Self]) -> ListIndex<'c>;
}

impl IndexOffset for i32 {
    fn list(o: &[Self], base: usize) -> ListIndex<'_> {
        ListIndex::List32(o, base)
    }
    fn view<'c>(o: &'c [Self], s: &'c [Self]) -> ListIndex<'c> {
        ListIndex::View32(o, s)
    }
}

impl IndexOffset for i64 {
    fn list(o: &[Self], base: usize) -> ListIndex<'_> {
        ListIndex::List64(o, base)
    }
    fn view<'c>(o: &'c [Self], s: &'c [Self]) -> ListIndex<'c> {
        ListIndex::View64(o, s)
    }
}

/// The element range `first..last` covered by `offsets`.
fn bounds<O: OffsetSize>(offsets: &[O]) -> Result<(usize, usize)> {
    let first = offsets.first().and_then(|o| o.to_usize()).unwrap_or(0);
    let last = offsets.last().and_then(|o| o.to_usize()).unwrap_or(0);
    if first > last {
        return Err(Error::OffsetsNotMonotonic);
    }
    Ok((first, last))
}

/// The elements' rows of a list column, as the list encoders read them.
pub(crate) enum ListChild<A: Allocator> {
    /// Rows of any type, with their offsets.
    Rows(Rows<A>),
    /// Rows of a fixed-width leaf type ([`row_width`] bytes each) back to
    /// back, without offsets, then [`elements::UNIFORM_PADDING`] zero bytes:
    /// all that the element-by-element encoding of such lists reads.
    Fixed(TryVec<u8, A>),
}

impl<A: Allocator> ListChild<A> {
    /// The rows' bytes, back to back.
    fn data(&self) -> &[u8] {
        match self {
            ListChild::Rows(r) => r.data(),
            ListChild::Fixed(d) => d.as_slice(),
        }
    }

    /// The rows with their offsets.
    ///
    /// # Errors
    /// [`Error::OutOfBounds`] for [`ListChild::Fixed`] (not made for the
    /// layouts that need offsets).
    fn rows(&self) -> Result<&Rows<A>> {
        match self {
            ListChild::Rows(r) => Ok(r),
            ListChild::Fixed(_) => Err(Error::OutOfBounds),
        }
    }
}

/// Encodes the elements `elements` of the list column `node`: straight
/// into a byte vector at a fixed stride when the lists are encoded element
/// by element and the elements are of a fixed-width leaf type, else into
/// [`Rows`].
fn encode_elements<A: Allocator + Clone>(
    node: &Node<'_, A>,
    dicts: &mut [Interner<A>],
    elements: &ArrayRef<'_, A>,
    alloc: &A,
) -> Result<ListChild<A>> {
    let child = node.child()?;
    if !node.unordered && !node.canonical_lists {
        if let Some(width) = row_width(node)? {
            if fixed::column_width(elements) != Some(width) {
                return Err(Error::TypeMismatch);
            }
            let opts = child.options;
            let total = width
                .checked_mul(elements.len())
                .ok_or(Error::CapacityOverflow)?;
            let padded = total
                .checked_add(elements::UNIFORM_PADDING)
                .ok_or(Error::CapacityOverflow)?;
            let mut data = TryVec::new_in(alloc.clone());
            data.try_extend_filled(padded, |fill| {
                let out = fill.zeroed_to(padded)?;
                let mut layout = Layout::Stride { width, offset: 0 };
                let rows = out.get_mut(..total).ok_or(Error::OutOfBounds)?;
                fixed::encode_column(elements, opts, rows, &mut layout)
            })?;
            return Ok(ListChild::Fixed(data));
        }
    }
    Ok(ListChild::Rows(encode_to_rows(
        core::slice::from_ref(child),
        dicts,
        core::slice::from_ref(elements),
        alloc,
    )?))
}

/// Encodes the elements of the List/LargeList column `node` (view `l`).
pub(crate) fn prepare_list<'c, 'b, O: IndexOffset, A: Allocator + Clone>(
    node: &Node<'_, A>,
    dicts: &mut [Interner<A>],
    l: &'c GenericListArray<'b, O, A>,
    alloc: &A,
) -> Result<Encoder<'c, 'b, A>> {
    let o = l.value_offsets();
    let (first, last) = bounds(o)?;
    // The child is sliced only when the lists use part of it (a slice of
    // an `ArrayRef` is not free: a short batch of lists felt it).
    let values = l.values();
    let sliced;
    let elements = if first == 0 && last == values.len() {
        values
    } else {
        sliced = values.slice(first, last - first)?;
        &sliced
    };
    Ok(Encoder::List {
        nulls: l.nulls(),
        index: O::list(o, first),
        child: encode_elements(node, dicts, elements, alloc)?,
    })
}

/// Encodes the whole child of the ListView/LargeListView column `node`.
pub(crate) fn prepare_list_view<'c, 'b, O: IndexOffset, A: Allocator + Clone>(
    node: &Node<'_, A>,
    dicts: &mut [Interner<A>],
    l: &'c GenericListViewArray<'b, O, A>,
    alloc: &A,
) -> Result<Encoder<'c, 'b, A>> {
    Ok(Encoder::List {
        nulls: l.nulls(),
        index: O::view(l.value_offsets(), l.value_sizes()),
        child: encode_elements(node, dicts, l.values(), alloc)?,
    })
}

/// Encodes the entries of the Map column `node`.
pub(crate) fn prepare_map<'c, 'b, A: Allocator + Clone>(
    node: &Node<'_, A>,
    dicts: &mut [Interner<A>],
    m: &'c MapArray<'b, A>,
    alloc: &A,
) -> Result<Encoder<'c, 'b, A>> {
    prepare_list(node, dicts, m.list(), alloc)
}

#[inline]
fn is_valid<A: Allocator>(nulls: Option<&NullBuffer<'_, A>>, i: usize) -> bool {
    nulls.is_none_or(|n| n.is_valid(i))
}

/// Adds each list's encoded size to `lengths`.
pub(crate) fn add_lengths<A: Allocator>(
    nulls: Option<&NullBuffer<'_, A>>,
    index: &ListIndex<'_>,
    child: &ListChild<A>,
    node: &Node<'_, A>,
    lengths: &mut [usize],
) -> Result<()> {
    let unordered = node.unordered;
    let elementwise = !unordered && !node.canonical_lists;
    let element = match row_width(node)? {
        Some(w) => Some((w, elements::element_len(w)?)),
        None => None,
    };
    let n = lengths.len();
    let mut add = |i: usize, n: usize| -> Result<()> {
        let l = lengths.get_mut(i).ok_or(Error::OutOfBounds)?;
        *l = l.checked_add(n).ok_or(Error::CapacityOverflow)?;
        Ok(())
    };
    // One loop per layout, each small enough to be inlined.
    match (elementwise, element) {
        (false, _) => {
            let child = child.rows()?;
            for_each_list!(index, nulls, n, |i, range| {
                add(i, canonical::list_len(child, range, unordered)?)
            })
        }
        (true, Some((w, e))) => {
            // At least the elements' number (their rows and the padding).
            let limit = child.data().len() / w.max(1);
            match index {
                ListIndex::List32(o, _) => add_uniform(
                    lengths,
                    nulls,
                    e,
                    (o.len().saturating_sub(1), limit),
                    slot_counts(o),
                ),
                ListIndex::List64(o, _) => add_uniform(
                    lengths,
                    nulls,
                    e,
                    (o.len().saturating_sub(1), limit),
                    slot_counts(o),
                ),
                ListIndex::View32(_, s) => {
                    add_uniform(lengths, nulls, e, (s.len(), limit), s.iter().map(count))
                }
                ListIndex::View64(_, s) => {
                    add_uniform(lengths, nulls, e, (s.len(), limit), s.iter().map(count))
                }
            }
        }
        (true, None) => {
            let offsets = child.rows()?.offsets();
            for_each_list!(index, nulls, n, |i, range| {
                let len = match range {
                    Some(r) => elements::list_len(offsets, r)?,
                    None => 1,
                };
                add(i, len)
            })
        }
    }
}

/// An offset or size as a count, `usize::MAX` for a malformed one (which
/// saturates the sizes it is part of; the ranges are checked when the
/// lists are written).
#[inline(always)]
fn count<O: OffsetSize>(o: &O) -> usize {
    o.to_usize().unwrap_or(usize::MAX)
}

/// The element counts of the slots of a list's `offsets` ([`count`]).
fn slot_counts<O: OffsetSize>(offsets: &[O]) -> impl Iterator<Item = usize> + '_ {
    offsets.windows(2).map(|w| match w {
        [a, b] => count(b).saturating_sub(count(a)),
        _ => 0,
    })
}

/// Adds the encoded size of each list of elements of one encoded size
/// `element` (a list of `k` elements: `1 + element × k` bytes; a null list,
/// like `[]`, 1 byte) to `lengths`; `counts`: each slot's elements, of
/// which there are `slots`, each at most `limit` (the child's elements;
/// a larger count, from malformed offsets, is taken as `limit`: the ranges
/// are checked when the lists are written). Saturating: a saturated length
/// makes the running total overflow ([`Error::CapacityOverflow`]).
///
/// # Errors
/// [`Error::OffsetOutOfBounds`] when there are fewer `slots` than
/// `lengths`; [`Error::CapacityOverflow`] when a list of `limit` elements
/// would not fit a `usize`.
fn add_uniform<A: Allocator>(
    lengths: &mut [usize],
    nulls: Option<&NullBuffer<'_, A>>,
    element: usize,
    (slots, limit): (usize, usize),
    counts: impl Iterator<Item = usize>,
) -> Result<()> {
    if slots < lengths.len() {
        return Err(Error::OffsetOutOfBounds);
    }
    element
        .checked_mul(limit)
        .and_then(|n| n.checked_add(1))
        .ok_or(Error::CapacityOverflow)?;
    // No overflow but the lengths' own (saturated).
    let size = |c: usize| element * c.min(limit) + 1;
    match nulls {
        None => lengths
            .iter_mut()
            .zip(counts)
            .for_each(|(l, c)| *l = l.saturating_add(size(c))),
        Some(nulls) => lengths
            .iter_mut()
            .zip(counts)
            .enumerate()
            .for_each(|(i, (l, c))| {
                *l = l.saturating_add(size(if nulls.is_valid(i) { c } else { 0 }))
            }),
    }
    Ok(())
}

/// The width of every element's row when the elements are of a
/// fixed-width leaf type (their rows back to back, all that long).
fn row_width<A: Allocator>(node: &Node<'_, A>) -> Result<Option<usize>> {
    Ok(match node.child()? {
        c if matches!(c.kind, Kind::Leaf) && !is_variable(&c.data_type) => {
            Some(fixed_len(&c.data_type)?)
        }
        _ => None,
    })
}

/// Writes each list's encoding.
pub(crate) fn encode<A: Allocator>(
    nulls: Option<&NullBuffer<'_, A>>,
    index: &ListIndex<'_>,
    child: &ListChild<A>,
    node: &Node<'_, A>,
    data: &mut [u8],
    cursors: &mut [usize],
) -> Result<()> {
    let (opts, unordered) = (node.options, node.unordered);
    let elementwise = !unordered && !node.canonical_lists;
    let bytes = child.data();
    let n = cursors.len();
    let null = opts.null_sentinel();
    if !elementwise {
        let child = child.rows()?;
        return for_each_list!(index, nulls, n, |i, range| {
            let c = cursors.get_mut(i).ok_or(Error::OutOfBounds)?;
            let out = data.get_mut(*c..).ok_or(Error::OutOfBounds)?;
            *c += canonical::encode_list(child, range, opts, unordered, out)?;
            Ok(())
        });
    }
    // One loop per shape of fixed-width elements (1 to 4 mini-blocks).
    macro_rules! uniform {
        ($u:expr, $m:literal, $e:literal, $s:literal) => {
            for_each_list!(index, nulls, n, |i, range| {
                put_list(cursors, data, i, range, null, |r, out| {
                    elements::encode_uniform::<$m, $e, $s>(bytes, $u, r, opts, out)
                })
            })
        };
    }
    match row_width(node)? {
        Some(w) => {
            let u = elements::Uniform::new(w)?;
            match u.minis {
                1 => uniform!(u, 1, 10, 8),
                2 => uniform!(u, 2, 19, 16),
                3 => uniform!(u, 3, 28, 24),
                4 => uniform!(u, 4, 37, 32),
                _ => for_each_list!(index, nulls, n, |i, range| {
                    put_list(cursors, data, i, range, null, |r, out| {
                        elements::encode_uniform_blocks(bytes, w, r, opts, out)
                    })
                }),
            }
        }
        None => {
            let offsets = child.rows()?.offsets();
            for_each_list!(index, nulls, n, |i, range| {
                put_list(cursors, data, i, range, null, |r, out| {
                    elements::encode_list(bytes, offsets, r, opts, out)
                })
            })
        }
    }
}

/// Writes list `i` (`None`: null, its sentinel `null`; else the child
/// rows `range`, by `f`) at `data[cursors[i]..]`, advancing the cursor.
#[inline(always)]
fn put_list(
    cursors: &mut [usize],
    data: &mut [u8],
    i: usize,
    range: Option<Range<usize>>,
    null: u8,
    f: impl FnOnce(Range<usize>, &mut [u8]) -> Result<usize>,
) -> Result<()> {
    let c = cursors.get_mut(i).ok_or(Error::OutOfBounds)?;
    let out = data.get_mut(*c..).ok_or(Error::OutOfBounds)?;
    *c += match range {
        Some(r) => f(r, out)?,
        None => {
            *out.first_mut().ok_or(Error::OutOfBounds)? = null;
            1
        }
    };
    Ok(())
}

/// A decoded list column: element counts per slot, validity and elements.
pub(crate) struct Decoded<'a, A: Allocator> {
    pub(super) counts: TryVec<usize, A>,
    pub(super) nulls: Option<NullBuffer<'static, A>>,
    pub(super) values: ArrayRef<'a, A>,
}

/// Decodes the lists at the front of each row.
///
/// # Errors
/// [`Error::InvalidRow`] (bad blocks, lengths that disagree, element rows
/// with bytes left over) and the elements' decoding errors.
fn decode_lists<'a, A: Allocator + Clone>(
    node: &Node<'a, A>,
    child: &Node<'a, A>,
    dicts: &[Interner<A>],
    rows: &mut [&[u8]],
    alloc: &A,
) -> Result<Decoded<'a, A>> {
    if !node.unordered && !node.canonical_lists {
        elements::decode_lists(node, child, dicts, rows, alloc)
    } else {
        canonical::decode_lists(node, child, dicts, rows, alloc)
    }
}

/// Offsets (`len + 1`, from 0) of the element counts.
fn offsets_of<O: OffsetSize, A: Allocator + Clone>(
    counts: &[usize],
    alloc: &A,
) -> Result<OffsetBuffer<'static, O, A>> {
    let mut o = MutableBuffer::new_in(alloc.clone());
    o.try_reserve_exact((counts.len() + 1) * core::mem::size_of::<O>())?;
    o.try_push(O::ZERO)?;
    let mut sum = 0usize;
    for &c in counts {
        sum = sum.checked_add(c).ok_or(Error::CapacityOverflow)?;
        o.try_push(O::from_usize(sum).ok_or(Error::CapacityOverflow)?)?;
    }
    let o = ScalarBuffer::try_from_buffer(o.into_buffer())?;
    // SAFETY: non-empty (0, then one offset per count), non-negative
    // (`O::from_usize`) and non-decreasing (running sums of counts).
    Ok(unsafe { OffsetBuffer::new_unchecked(o) })
}

/// A List or LargeList of the decoded lists `d` (offsets from
/// [`offsets_of`]), checked in O(1): [`ValidationLevel::Cheap`] (the
/// elements' type is the field's, one validity bit per slot, the last
/// offset within the elements), not every offset again nor the elements
/// (checked as they were decoded).
///
/// # Errors
/// [`Error::CapacityOverflow`] when the elements exceed `O`;
/// [`Error::AllocationFailed`]; the cheap validation's errors.
fn list_of<'a, O: ListOffsetSize, A: Allocator + Clone>(
    field: &FieldRef<'a, A>,
    d: Decoded<'a, A>,
    alloc: &A,
) -> Result<ArrayRef<'a, A>> {
    let offsets = offsets_of::<O, A>(&d.counts, alloc)?;
    let values = SharedBox::try_new_in(d.values, alloc.clone())?;
    // SAFETY: the offsets are non-decreasing (`offsets_of`); the rest of
    // `new_unchecked`'s contract (types, validity length, offsets within
    // the elements) is checked just below, before the array is returned.
    let list =
        unsafe { GenericListArray::<O, A>::new_unchecked(field.clone(), offsets, values, d.nulls) };
    list.validate(ValidationLevel::Cheap)?;
    Ok(list.into_array_ref())
}

/// Starts and sizes of list views over contiguous elements.
fn views_of<O: OffsetSize, A: Allocator + Clone>(
    counts: &[usize],
    alloc: &A,
) -> Result<(ScalarBuffer<'static, O, A>, ScalarBuffer<'static, O, A>)> {
    let mut starts = MutableBuffer::new_in(alloc.clone());
    let mut sizes = MutableBuffer::new_in(alloc.clone());
    let mut sum = 0usize;
    for &c in counts {
        starts.try_push(O::from_usize(sum).ok_or(Error::CapacityOverflow)?)?;
        sizes.try_push(O::from_usize(c).ok_or(Error::CapacityOverflow)?)?;
        sum = sum.checked_add(c).ok_or(Error::CapacityOverflow)?;
    }
    Ok((
        ScalarBuffer::try_from_buffer(starts.into_buffer())?,
        ScalarBuffer::try_from_buffer(sizes.into_buffer())?,
    ))
}

/// Decodes a List, LargeList, ListView, LargeListView or Map column.
///
/// # Errors
/// As `decode_lists`; [`Error::CapacityOverflow`] when the elements exceed
/// the offset type.
pub(crate) fn decode<'a, A: Allocator + Clone>(
    node: &Node<'a, A>,
    child: &Node<'a, A>,
    dicts: &[Interner<A>],
    rows: &mut [&[u8]],
    alloc: &A,
) -> Result<ArrayRef<'a, A>> {
    let d = decode_lists(node, child, dicts, rows, alloc)?;
    let boxed = |v: ArrayRef<'a, A>| SharedBox::try_new_in(v, alloc.clone());
    Ok(match node.decoded() {
        DataType::List(f) => list_of::<i32, A>(f, d, alloc)?,
        DataType::LargeList(f) => list_of::<i64, A>(f, d, alloc)?,
        DataType::ListView(f) => {
            let (o, s) = views_of::<i32, A>(&d.counts, alloc)?;
            GenericListViewArray::try_new(f.clone(), o, s, boxed(d.values)?, d.nulls)?
                .into_array_ref()
        }
        DataType::LargeListView(f) => {
            let (o, s) = views_of::<i64, A>(&d.counts, alloc)?;
            GenericListViewArray::try_new(f.clone(), o, s, boxed(d.values)?, d.nulls)?
                .into_array_ref()
        }
        DataType::Map(f, sorted) => MapArray::try_new(
            f.clone(),
            offsets_of(&d.counts, alloc)?,
            boxed(d.values)?,
            d.nulls,
            *sorted,
        )?
        .into_array_ref(),
        _ => return Err(Error::TypeMismatch),
    })
}

#[cfg(test)]
mod tests {
    use super::{add_uniform, slot_counts};
    use crate::buffer::{NullBuffer, NullBufferBuilder};
    use crate::error::Error;
    use crate::Global;

    /// Lists of one element size: `1 + element × count` bytes, a null list
    /// 1 byte; counts past the child's elements (malformed offsets) are
    /// taken as that many; too few slots, or a list of all the elements
    /// that would overflow, are errors.
    #[test]
    fn uniform_list_sizes() {
        let mut b = NullBufferBuilder::new_in(Global);
        for valid in [true, false, true, true] {
            b.try_append(valid).unwrap();
        }
        let nulls: NullBuffer<'_, Global> = b.finish().unwrap();
        let offsets: [i32; 5] = [3, 5, 9, 9, 1];
        let counts: std::vec::Vec<usize> = slot_counts(&offsets).collect();
        assert_eq!(counts, [2, 4, 0, 0]);
        let mut lengths = [10usize; 4];
        add_uniform(
            &mut lengths,
            Some(&nulls),
            19,
            (4, 8),
            counts.iter().copied(),
        )
        .unwrap();
        assert_eq!(lengths, [10 + 39, 10 + 1, 10 + 1, 10 + 1]);
        let mut lengths = [0usize; 3];
        let sizes = [1usize, 100, 0];
        add_uniform::<Global>(&mut lengths, None, 10, (3, 7), sizes.iter().copied()).unwrap();
        assert_eq!(lengths, [11, 71, 1]);
        assert_eq!(
            add_uniform::<Global>(&mut [0; 3], None, 10, (2, 7), sizes.iter().copied()),
            Err(Error::OffsetOutOfBounds)
        );
        assert_eq!(
            add_uniform::<Global>(&mut [0; 1], None, usize::MAX / 2, (1, 3), [1].into_iter()),
            Err(Error::CapacityOverflow)
        );
        let mut full = [usize::MAX - 5];
        add_uniform::<Global>(&mut full, None, 10, (1, 7), [1].into_iter()).unwrap();
        assert_eq!(full, [usize::MAX]);
    }
}
