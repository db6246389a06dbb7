//! Lists: List, LargeList, ListView, LargeListView and Map (a list of
//! key-value entries).
//!
//! The default ordered encoding writes each list element by element
//! ([`super::list_elements`]). [`super::RowEncoding::Seed`] writes the seed's
//! layout, implemented here: the elements of a list are encoded to rows; a
//! "canonical byte array" is made of the elements' rows back to back, then
//! the length of each element row and the number of elements, as big-endian
//! `u32`s; that byte array is then encoded as variable-length bytes
//! ([`super::variable`]): a null list is the null sentinel, an empty list the
//! empty byte array (`0x01`), any other list `0x02` and 32-byte blocks. When
//! descending the whole encoding is inverted, so the elements are encoded
//! ascending, with nulls first exactly when the column wants nulls first
//! after inversion (`nulls_first != descending`).
//!
//! The unordered encoding writes the canonical byte array with a 4-byte
//! little-endian length prefix instead (`u32::MAX` for a null list).
//!
//! **Ordering defect of the seed's layout.** Lists compare element by
//! element, and a list that is a prefix of another sorts first — except when
//! the longer list's next element encodes starting with `0x00`, i.e. a null
//! element with nulls first in ascending order (or nulls last in descending
//! order): the shorter list's row-length bytes (`00 00 00 …`) then compete
//! with that null's bytes, and `[1, null]` sorts before `[1]`. The spec's own
//! example `[1_u8, null]` is in this case. The element-by-element encoding
//! has no such case.

use core::ops::Range;

use allocator_api2::alloc::Allocator;

use super::decode::decode_column;
use super::encode::{encode_to_rows, Encoder};
use super::interner::Interner;
use super::variable::{self, BlockWriter, BLOCK_SIZE, EMPTY, UNORDERED_NULL};
use super::{list_elements, typed, Node, Rows};
use crate::array::{
    Array, ArrayRef, GenericListArray, GenericListViewArray, ListOffsetSize, MapArray,
};
use crate::buffer::TryVec;
use crate::buffer::{
    MutableBuffer, NullBuffer, NullBufferBuilder, OffsetBuffer, OffsetSize, ScalarBuffer, SharedBox,
};
use crate::datatypes::DataType;
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

impl ListIndex<'_> {
    /// The child rows of slot `i`.
    fn range(&self, i: usize) -> Result<Range<usize>> {
        match self {
            ListIndex::List32(o, b) => offsets_range(o, *b, i),
            ListIndex::List64(o, b) => offsets_range(o, *b, i),
            ListIndex::View32(o, s) => view_range(o, s, i),
            ListIndex::View64(o, s) => view_range(o, s, i),
        }
        .ok_or(Error::OffsetOutOfBounds)
    }
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

/// Encodes the elements of a List/LargeList view into rows.
pub(crate) fn prepare_list<'c, 'b, O: IndexOffset, A: Allocator + Clone>(
    child: &[Node<'_, A>],
    dicts: &mut [Interner<A>],
    l: &'c GenericListArray<'b, O, A>,
    alloc: &A,
) -> Result<Encoder<'c, 'b, A>> {
    let o = l.value_offsets();
    let (first, last) = bounds(o)?;
    let elements = l.values().slice(first, last - first)?;
    Ok(Encoder::List {
        nulls: l.nulls(),
        index: O::list(o, first),
        child: encode_to_rows(child, dicts, core::slice::from_ref(&elements), alloc)?,
    })
}

/// Encodes the whole child of a ListView/LargeListView into rows.
pub(crate) fn prepare_list_view<'c, 'b, O: IndexOffset, A: Allocator + Clone>(
    child: &[Node<'_, A>],
    dicts: &mut [Interner<A>],
    l: &'c GenericListViewArray<'b, O, A>,
    alloc: &A,
) -> Result<Encoder<'c, 'b, A>> {
    Ok(Encoder::List {
        nulls: l.nulls(),
        index: O::view(l.value_offsets(), l.value_sizes()),
        child: encode_to_rows(child, dicts, core::slice::from_ref(l.values()), alloc)?,
    })
}

/// Encodes the entries of a map view into rows.
pub(crate) fn prepare_map<'c, 'b, A: Allocator + Clone>(
    child: &[Node<'_, A>],
    dicts: &mut [Interner<A>],
    m: &'c MapArray<'b, A>,
    alloc: &A,
) -> Result<Encoder<'c, 'b, A>> {
    prepare_list(child, dicts, m.list(), alloc)
}

#[inline]
fn is_valid<A: Allocator>(nulls: Option<&NullBuffer<'_, A>>, i: usize) -> bool {
    nulls.is_none_or(|n| n.is_valid(i))
}

/// Length of the canonical byte array of `count` elements of `bytes` bytes.
fn canonical_len(count: usize, bytes: usize) -> Result<usize> {
    if count == 0 {
        return Ok(0);
    }
    if u32::try_from(count).is_err() {
        return Err(Error::CapacityOverflow);
    }
    count
        .checked_add(1)
        .and_then(|n| n.checked_mul(4))
        .and_then(|n| n.checked_add(bytes))
        .ok_or(Error::CapacityOverflow)
}

/// Adds each list's encoded size to `lengths`.
pub(crate) fn add_lengths<A: Allocator>(
    nulls: Option<&NullBuffer<'_, A>>,
    index: &ListIndex<'_>,
    child: &Rows<A>,
    node: &Node<'_, A>,
    lengths: &mut [usize],
) -> Result<()> {
    let unordered = node.unordered;
    if !unordered && !node.canonical_lists {
        for (i, l) in lengths.iter_mut().enumerate() {
            let n = if is_valid(nulls, i) {
                list_elements::list_len(child, index.range(i)?)?
            } else {
                1
            };
            *l = l.checked_add(n).ok_or(Error::CapacityOverflow)?;
        }
        return Ok(());
    }
    for (i, l) in lengths.iter_mut().enumerate() {
        let canonical = if is_valid(nulls, i) {
            let r = index.range(i)?;
            Some(canonical_len(r.len(), child.span(r.start, r.end)?)?)
        } else {
            None
        };
        let n = variable::value_len(canonical, unordered)?;
        *l = l.checked_add(n).ok_or(Error::CapacityOverflow)?;
    }
    Ok(())
}

/// The pieces of a canonical byte array, written in order by `write`.
fn write_canonical<A: Allocator>(
    child: &Rows<A>,
    r: Range<usize>,
    mut write: impl FnMut(&[u8]) -> Result<()>,
) -> Result<()> {
    write(child.span_bytes(r.start, r.end)?)?;
    for j in r.clone() {
        let len = child.span(j, j + 1)?;
        let len = u32::try_from(len).map_err(|_| Error::CapacityOverflow)?;
        write(&len.to_be_bytes())?;
    }
    let count = u32::try_from(r.len()).map_err(|_| Error::CapacityOverflow)?;
    write(&count.to_be_bytes())
}

/// Writes each list's encoding.
pub(crate) fn encode<A: Allocator>(
    nulls: Option<&NullBuffer<'_, A>>,
    index: &ListIndex<'_>,
    child: &Rows<A>,
    node: &Node<'_, A>,
    data: &mut [u8],
    cursors: &mut [usize],
) -> Result<()> {
    let (opts, unordered) = (node.options, node.unordered);
    let elementwise = !unordered && !node.canonical_lists;
    for (i, c) in cursors.iter_mut().enumerate() {
        let out = data.get_mut(*c..).ok_or(Error::OutOfBounds)?;
        let range = if is_valid(nulls, i) {
            Some(index.range(i)?)
        } else {
            None
        };
        let n = match (range, unordered) {
            (None, false) => {
                *out.first_mut().ok_or(Error::OutOfBounds)? = opts.null_sentinel();
                1
            }
            (None, true) => {
                write_at(out, 0, &UNORDERED_NULL.to_le_bytes())?;
                4
            }
            (Some(r), false) if elementwise => list_elements::encode_list(child, r, opts, out)?,
            (Some(r), false) if r.is_empty() => {
                let flip = if opts.descending { 0xFF } else { 0 };
                *out.first_mut().ok_or(Error::OutOfBounds)? = EMPTY ^ flip;
                1
            }
            (Some(r), false) => {
                let mut w = BlockWriter::<BLOCK_SIZE>::new(out)?;
                write_canonical(child, r, |b| w.write(b))?;
                let n = w.finish()?;
                if opts.descending {
                    out.get_mut(..n)
                        .ok_or(Error::OutOfBounds)?
                        .iter_mut()
                        .for_each(|b| *b = !*b);
                }
                n
            }
            (Some(r), true) => {
                let len = canonical_len(r.len(), child.span(r.start, r.end)?)?;
                let len32 = u32::try_from(len)
                    .ok()
                    .filter(|&l| l != UNORDERED_NULL)
                    .ok_or(Error::CapacityOverflow)?;
                write_at(out, 0, &len32.to_le_bytes())?;
                let mut pos = 4;
                if !r.is_empty() {
                    write_canonical(child, r, |b| {
                        write_at(out, pos, b)?;
                        pos += b.len();
                        Ok(())
                    })?;
                }
                pos
            }
        };
        *c += n;
    }
    Ok(())
}

#[inline]
fn write_at(out: &mut [u8], pos: usize, bytes: &[u8]) -> Result<()> {
    out.get_mut(pos..pos + bytes.len())
        .ok_or(Error::OutOfBounds)?
        .copy_from_slice(bytes);
    Ok(())
}

/// Reads a big-endian `u32` at `pos` of `bytes` as a `usize`.
fn be_u32(bytes: &[u8], pos: usize) -> Result<usize> {
    let b = bytes.get(pos..pos + 4).ok_or(Error::InvalidRow)?;
    let v = u32::from_be_bytes(b.try_into().map_err(|_| Error::InvalidRow)?);
    usize::try_from(v).map_err(|_| Error::InvalidRow)
}

/// Checks a canonical byte array and returns its number of elements.
fn parse_canonical(c: &[u8]) -> Result<usize> {
    if c.is_empty() {
        return Ok(0);
    }
    let count = be_u32(c, c.len().checked_sub(4).ok_or(Error::InvalidRow)?)?;
    if count == 0 {
        return Err(Error::InvalidRow);
    }
    let tail = canonical_len(count, 0).map_err(|_| Error::InvalidRow)?;
    let data_len = c.len().checked_sub(tail).ok_or(Error::InvalidRow)?;
    let mut sum = 0usize;
    for j in 0..count {
        sum = sum
            .checked_add(be_u32(c, data_len + 4 * j)?)
            .ok_or(Error::InvalidRow)?;
    }
    if sum != data_len {
        return Err(Error::InvalidRow);
    }
    Ok(count)
}

/// The element rows of the canonical arrays `scratch[ends[r - 1]..ends[r]]`, in order.
struct Elements<'s> {
    scratch: &'s [u8],
    ends: &'s [usize],
    row: usize,
    start: usize,
    pos: usize,
    k: usize,
}

impl<'s> Elements<'s> {
    fn next(&mut self) -> Result<&'s [u8]> {
        loop {
            let end = *self.ends.get(self.row).ok_or(Error::InvalidRow)?;
            let c = self.scratch.get(self.start..end).ok_or(Error::InvalidRow)?;
            let count = parse_count(c)?;
            if self.k < count {
                let lengths_at = c
                    .len()
                    .checked_sub(canonical_len(count, 0)?)
                    .ok_or(Error::InvalidRow)?;
                let len = be_u32(c, lengths_at + 4 * self.k)?;
                self.k += 1;
                let e = c.get(self.pos..self.pos + len).ok_or(Error::InvalidRow)?;
                self.pos += len;
                return Ok(e);
            }
            self.row += 1;
            self.start = end;
            self.pos = 0;
            self.k = 0;
        }
    }
}

/// The element count of an already checked canonical array.
fn parse_count(c: &[u8]) -> Result<usize> {
    if c.is_empty() {
        Ok(0)
    } else {
        be_u32(c, c.len() - 4)
    }
}

/// A decoded list column: element counts per slot, validity and elements.
pub(crate) struct Decoded<'a, A: Allocator> {
    counts: MutableBuffer<A>,
    nulls: Option<NullBuffer<'static, A>>,
    values: ArrayRef<'a, A>,
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
        return decode_element_lists(node, child, dicts, rows, alloc);
    }
    let mut scratch = MutableBuffer::new_in(alloc.clone());
    let mut ends = MutableBuffer::new_in(alloc.clone());
    let mut counts = MutableBuffer::new_in(alloc.clone());
    let mut nulls = NullBufferBuilder::new_in(alloc.clone());
    let mut total = 0usize;
    for row in rows.iter_mut() {
        let start = scratch.len();
        let valid = if node.unordered {
            variable::decode_unordered(row, &mut scratch)?
        } else {
            variable::decode_ordered::<BLOCK_SIZE, A>(row, node.options, &mut scratch)?
        };
        let count = parse_canonical(scratch.as_slice().get(start..).ok_or(Error::OutOfBounds)?)?;
        total = total.checked_add(count).ok_or(Error::InvalidRow)?;
        ends.try_extend_from_slice(&scratch.len().to_ne_bytes())?;
        counts.try_extend_from_slice(&count.to_ne_bytes())?;
        nulls.try_append(valid)?;
    }
    let ends: &[usize] = typed(ends.as_slice())?;
    let mut it = Elements {
        scratch: scratch.as_slice(),
        ends,
        row: 0,
        start: 0,
        pos: 0,
        k: 0,
    };
    let mut cursors = TryVec::try_from_fn_in(total, alloc.clone(), |_| it.next())?;
    let values = decode_column(child, dicts, &mut cursors, alloc)?;
    if cursors.iter().any(|c| !c.is_empty()) {
        return Err(Error::InvalidRow);
    }
    Ok(Decoded {
        counts,
        nulls: nulls.finish(),
        values,
    })
}

/// [`decode_lists`] for the element-by-element encoding ([`list_elements`]).
fn decode_element_lists<'a, A: Allocator + Clone>(
    node: &Node<'a, A>,
    child: &Node<'a, A>,
    dicts: &[Interner<A>],
    rows: &mut [&[u8]],
    alloc: &A,
) -> Result<Decoded<'a, A>> {
    let mut scratch = MutableBuffer::new_in(alloc.clone());
    let mut ends = MutableBuffer::new_in(alloc.clone());
    let mut counts = MutableBuffer::new_in(alloc.clone());
    let mut nulls = NullBufferBuilder::new_in(alloc.clone());
    let mut total = 0usize;
    for row in rows.iter_mut() {
        let count = list_elements::decode_list(row, node.options, &mut scratch, &mut ends)?;
        nulls.try_append(count.is_some())?;
        let count = count.unwrap_or(0);
        total = total.checked_add(count).ok_or(Error::InvalidRow)?;
        counts.try_extend_from_slice(&count.to_ne_bytes())?;
    }
    let ends: &[usize] = typed(ends.as_slice())?;
    let bytes = scratch.as_slice();
    let mut cursors = TryVec::try_from_fn_in(total, alloc.clone(), |k| {
        let start = match k.checked_sub(1) {
            Some(p) => *ends.get(p).ok_or(Error::InvalidRow)?,
            None => 0,
        };
        let end = *ends.get(k).ok_or(Error::InvalidRow)?;
        bytes.get(start..end).ok_or(Error::InvalidRow)
    })?;
    let values = decode_column(child, dicts, &mut cursors, alloc)?;
    if cursors.iter().any(|c| !c.is_empty()) {
        return Err(Error::InvalidRow);
    }
    Ok(Decoded {
        counts,
        nulls: nulls.finish(),
        values,
    })
}

/// Offsets (`len + 1`, from 0) of the element counts.
fn offsets_of<O: OffsetSize, A: Allocator + Clone>(
    counts: &MutableBuffer<A>,
    alloc: &A,
) -> Result<OffsetBuffer<'static, O, A>> {
    let counts: &[usize] = typed(counts.as_slice())?;
    let mut o = MutableBuffer::new_in(alloc.clone());
    o.try_reserve_exact((counts.len() + 1) * core::mem::size_of::<O>())?;
    o.try_push(O::ZERO)?;
    let mut sum = 0usize;
    for &c in counts {
        sum = sum.checked_add(c).ok_or(Error::CapacityOverflow)?;
        o.try_push(O::from_usize(sum).ok_or(Error::CapacityOverflow)?)?;
    }
    OffsetBuffer::try_new(ScalarBuffer::try_from_buffer(o.into_buffer())?)
}

/// Starts and sizes of list views over contiguous elements.
fn views_of<O: OffsetSize, A: Allocator + Clone>(
    counts: &MutableBuffer<A>,
    alloc: &A,
) -> Result<(ScalarBuffer<'static, O, A>, ScalarBuffer<'static, O, A>)> {
    let counts: &[usize] = typed(counts.as_slice())?;
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
    Ok(match &node.decoded {
        DataType::List(f) => GenericListArray::<i32, A>::try_new(
            f.clone(),
            offsets_of(&d.counts, alloc)?,
            boxed(d.values)?,
            d.nulls,
        )?
        .into_array_ref(),
        DataType::LargeList(f) => GenericListArray::<i64, A>::try_new(
            f.clone(),
            offsets_of(&d.counts, alloc)?,
            boxed(d.values)?,
            d.nulls,
        )?
        .into_array_ref(),
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
