//! The column decoders of variable-length bytes (Binary, LargeBinary,
//! Utf8, LargeUtf8, BinaryView, Utf8View) through per-row cursors
//! ([`decode`]; views in [`super::views`]), and of a converter whose one column is
//! variable-length, each row one value ([`decode_single_column`]): values,
//! offsets and validity written in place into buffers sized beforehand
//! (the value decoding itself is [`super::decode_ordered_with`]'s).

use allocator_api2::alloc::Allocator;

use super::{decode_ordered_with, read_unordered, BlockSink};
use crate::arch::prefetch;
use crate::array::{validate_nulls, ByteArrayNativeType, ValidationLevel};
use crate::array::{
    Array, ArrayRef, BinaryType, BinaryViewType, ByteArrayType, GenericByteArray, LargeBinaryType,
    LargeUtf8Type, StringViewType, Utf8Type,
};
use crate::buffer::TryVec;
use crate::buffer::{
    check_offsets, Appender, BooleanBuffer, Buffer, MutableBuffer, NullBuffer, OffsetSize,
    ScalarBuffer, SharedSlice,
};
use crate::datatypes::DataType;
use crate::error::{Error, ErrorKind, Result};
use crate::row::decode::is_variable;
use crate::row::source::RowSource;
use crate::row::variable::{BLOCK_SIZE, CONTINUATION, NON_EMPTY, UNORDERED_NULL};
use crate::row::{Kind, Node, SortOptions};

/// Number of value bytes of the unordered value at the front of `row`
/// (an upper bound when the row is malformed: decoding checks it).
#[inline(always)]
fn decoded_len_unordered(row: &[u8]) -> usize {
    let len = row
        .first_chunk::<4>()
        .map_or(UNORDERED_NULL, |b| u32::from_le_bytes(*b));
    // Never more than the row holds: malformed lengths must not make us
    // allocate.
    if len == UNORDERED_NULL {
        0
    } else {
        (len as usize).min(row.len().saturating_sub(4))
    }
}

/// Number of value bytes of the ordered value at the front of `row` (an
/// upper bound when the row is malformed: decoding checks it); `null` is
/// the null sentinel, `flip` `0xFF` when descending.
#[inline(always)]
fn decoded_len_ordered(row: &[u8], null: u8, flip: u8) -> usize {
    match row.first() {
        Some(&b) if b != null && b ^ flip == NON_EMPTY => {}
        _ => return 0,
    }
    let mut len = 0;
    let mut marker_at = BLOCK_SIZE + 1;
    while let Some(&m) = row.get(marker_at) {
        if m ^ flip != CONTINUATION {
            return len + usize::from(m ^ flip).min(BLOCK_SIZE);
        }
        len += BLOCK_SIZE;
        marker_at += BLOCK_SIZE + 1;
    }
    len
}

/// Total of the value bytes at the front of `rows` (see [`decoded_len_ordered`]),
/// saturating: one loop per mode, the direction a constant in each.
pub(super) fn decoded_total(rows: &[&[u8]], opts: SortOptions, unordered: bool) -> usize {
    let null = opts.null_sentinel();
    if unordered {
        rows.iter()
            .fold(0usize, |t, r| t.saturating_add(decoded_len_unordered(r)))
    } else if opts.descending {
        rows.iter().fold(0usize, |t, r| {
            t.saturating_add(decoded_len_ordered(r, null, 0xFF))
        })
    } else {
        rows.iter().fold(0usize, |t, r| {
            t.saturating_add(decoded_len_ordered(r, null, 0))
        })
    }
}

/// A value's bytes written into `out` from `pos`, each block at its full
/// size (the padding of the last one lands past the value, where the next
/// value goes): `out` needs `BLOCK_SIZE` bytes of room past the value's end.
struct SliceSink<'o> {
    out: &'o mut [u8],
    pos: usize,
}

impl BlockSink for SliceSink<'_> {
    #[inline(always)]
    fn block(&mut self, block: &[u8; BLOCK_SIZE]) -> Result<()> {
        self.put(block)?;
        self.pos += BLOCK_SIZE;
        Ok(())
    }

    #[inline(always)]
    fn last(&mut self, block: &[u8; BLOCK_SIZE], n: usize) -> Result<()> {
        self.put(block)?;
        self.pos += n;
        Ok(())
    }
}

impl SliceSink<'_> {
    #[inline(always)]
    fn put(&mut self, block: &[u8; BLOCK_SIZE]) -> Result<()> {
        let dst: &mut [u8; BLOCK_SIZE] = self
            .out
            .get_mut(self.pos..self.pos + BLOCK_SIZE)
            .and_then(|d| d.try_into().ok())
            .ok_or(Error::OutOfBounds)?;
        *dst = *block;
        Ok(())
    }
}

/// Decodes one ordered value from the front of `row` into `out` at `pos`
/// (see [`decode_ordered_with`]): the new end of the values, or `None` for
/// a null. `out` needs `BLOCK_SIZE` bytes of room past the value's end.
///
/// # Errors
/// As [`decode_ordered_with`].
#[inline(always)]
fn decode_ordered_at(
    row: &mut &[u8],
    null: u8,
    flip: u8,
    out: &mut [u8],
    pos: usize,
) -> Result<Option<usize>> {
    let mut sink = SliceSink { out, pos };
    let valid = decode_ordered_with(row, null, flip, &mut sink)?;
    Ok(valid.then_some(sink.pos))
}

/// Decoded values, offsets and validity, and whether a row had bytes
/// left after its value (only looked at for whole rows).
type Decoded<A> = (
    MutableBuffer<A>,
    MutableBuffer<A>,
    Option<NullBuffer<'static, A>>,
    bool,
);

/// Decodes the value at the front of each row into `values` (bytes) and
/// `offsets` (`rows.len() + 1` of them, as `O`), and the validity.
///
/// `whole` is `None` for the column decoders: the rows advance past their
/// values, and ordered values are sized from a sample ([`fill_cursors`]);
/// for unordered ones a first pass reads only the lengths to size `values`
/// exactly (the 64-byte aligned growth of `Global` copies at every step),
/// values and offsets are then written in place. `Some(total)` when each
/// row is one value and nothing else (a converter of one column), `total`
/// its estimate of the value bytes ([`whole_row_len`], summed while the
/// rows were gathered: exact for well-formed rows): the rows are not
/// advanced, the last element of the result says whether one had bytes
/// left after its value, and values are sized by the estimate, falling back
/// to the exact pass when a malformed row needs more room.
fn decode_into<O: OffsetSize, A: Allocator + Clone>(
    rows: &mut [&[u8]],
    opts: SortOptions,
    unordered: bool,
    whole: Option<usize>,
    alloc: &A,
) -> Result<Decoded<A>> {
    if let Some(total) = whole {
        if let Some(d) = fill::<O, A, false>(rows, opts, unordered, total, alloc)? {
            return Ok(d);
        }
    } else if !unordered {
        return fill_cursors::<O, A>(rows, opts, alloc);
    }
    let total = decoded_total(rows, opts, unordered);
    let d = if whole.is_some() {
        fill::<O, A, false>(rows, opts, unordered, total, alloc)?
    } else {
        fill::<O, A, true>(rows, opts, unordered, total, alloc)?
    };
    // The exact size is always enough: only malformed rows fall short.
    d.ok_or(Error::InvalidRow)
}

/// Rows whose exact value bytes [`fill_cursors`] sums to estimate the
/// rest's.
const SAMPLE: usize = 64;

/// [`decode_into`] for ordered values through cursors (the rows advance
/// past their values), without a sizing pass over every row: `values` is
/// sized from the exact value bytes of the first [`SAMPLE`] rows, scaled to
/// all the rows with a sixteenth more (never more than the bytes the rows
/// hold), and each value is written once, in order, into room that is not
/// zeroed first ([`MutableBuffer::try_extend_appended`]; what is left over
/// is zeroed at the end). Should a value not fit, the rest of the rows are
/// sized exactly ([`decoded_total`]) and the room grows once.
///
/// # Errors
/// As [`decode_ordered_with`]; [`Error::CapacityOverflow`] when the values
/// exceed `O`; [`Error::AllocationFailed`].
fn fill_cursors<O: OffsetSize, A: Allocator + Clone>(
    rows: &mut [&[u8]],
    opts: SortOptions,
    alloc: &A,
) -> Result<Decoded<A>> {
    let n = rows.len();
    let mut offsets = MutableBuffer::new_in(alloc.clone());
    let offset_bytes = n
        .checked_add(1)
        .and_then(|k| k.checked_mul(core::mem::size_of::<O>()))
        .ok_or(Error::CapacityOverflow)?;
    offsets.try_extend_zeros(offset_bytes)?;
    let mut validity = MutableBuffer::new_in(alloc.clone());
    validity.try_extend_zeros(n.div_ceil(8))?;
    let k = n.min(SAMPLE);
    let sampled = decoded_total(rows.get(..k).ok_or(Error::OutOfBounds)?, opts, false);
    // The bytes the rows hold, summed wrapping (it vectorises; faster than
    // saturating): a sum that wrapped only makes the estimate smaller.
    let bound = rows.iter().fold(0usize, |t, r| t.wrapping_add(r.len()));
    let scaled = sampled.saturating_mul(n) / k.max(1);
    let estimate = scaled.saturating_add(scaled / 16).min(bound);
    let mut room = estimate
        .checked_add(BLOCK_SIZE)
        .ok_or(Error::CapacityOverflow)?;
    let mut values = MutableBuffer::new_in(alloc.clone());
    let mut null_count = 0usize;
    let mut next = 0usize;
    let mut exact = false;
    let null = opts.null_sentinel();
    {
        let ends = offsets
            .typed_mut::<O>()?
            .get_mut(1..)
            .ok_or(Error::OutOfBounds)?;
        let bits = validity.as_slice_mut();
        loop {
            let stopped = values.try_extend_appended(room, |w| {
                if opts.descending {
                    append_rows::<O, 0xFF>(rows, next, null, w, ends, bits, &mut null_count)
                } else {
                    append_rows::<O, 0>(rows, next, null, w, ends, bits, &mut null_count)
                }
            })?;
            let Some((row, start)) = stopped else {
                break;
            };
            // The value of row `row` did not fit: drop the part of it that
            // was written, and make room for the rest of the rows, exactly.
            // The exact size is always enough: only malformed rows fall
            // short.
            if exact {
                return Err(Error::InvalidRow);
            }
            values.truncate(start);
            next = row;
            room = decoded_total(rows.get(row..).ok_or(Error::OutOfBounds)?, opts, false)
                .checked_add(BLOCK_SIZE)
                .ok_or(Error::CapacityOverflow)?;
            exact = true;
        }
    }
    let nulls = if null_count == 0 {
        None
    } else {
        let bits = BooleanBuffer::try_new(validity.into_buffer(), 0, n)?;
        Some(NullBuffer::try_new_with_count(bits, null_count)?)
    };
    Ok((values, offsets, nulls, false))
}

/// Decodes the ordered values of `rows` from row `first` on into `w`,
/// advancing the rows, setting their ends and validity bits and counting
/// the nulls, until one does not fit: then `Some((row, start))`, where
/// that row's value began (its bytes written so far are past `start`).
///
/// # Errors
/// As [`decode_ordered_with`] (not [`Error::OutOfBounds`]);
/// [`Error::CapacityOverflow`] when an end exceeds `O`.
#[inline(never)]
fn append_rows<O: OffsetSize, const FLIP: u8>(
    rows: &mut [&[u8]],
    first: usize,
    null: u8,
    w: &mut Appender<'_>,
    ends: &mut [O],
    bits: &mut [u8],
    null_count: &mut usize,
) -> Result<Option<(usize, usize)>> {
    let rows = rows.get_mut(first..).ok_or(Error::OutOfBounds)?;
    let ends = ends.get_mut(first..).ok_or(Error::OutOfBounds)?;
    for i in 0..rows.len().min(ends.len()) {
        prefetch::ahead(rows, i);
        let (Some(row), Some(end)) = (rows.get_mut(i), ends.get_mut(i)) else {
            break;
        };
        let start = w.pos();
        match decode_ordered_with(row, null, FLIP, w) {
            Ok(true) => {
                let i = first + i;
                if let Some(b) = bits.get_mut(i / 8) {
                    *b |= 1 << (i % 8);
                }
            }
            Ok(false) => *null_count += 1,
            Err(e) if e.kind() == ErrorKind::OutOfBounds => return Ok(Some((first + i, start))),
            Err(e) => return Err(e),
        }
        *end = O::from_usize(w.pos()).ok_or(Error::CapacityOverflow)?;
    }
    Ok(None)
}

/// [`decode_into`] with `values` sized for `total` bytes: `None` when that
/// is too little. `ADVANCE`: the rows advance past their values (else a
/// row not consumed whole is reported).
fn fill<O: OffsetSize, A: Allocator + Clone, const ADVANCE: bool>(
    rows: &mut [&[u8]],
    opts: SortOptions,
    unordered: bool,
    total: usize,
    alloc: &A,
) -> Result<Option<Decoded<A>>> {
    // Room for the fixed-size block copies past the last value.
    let room = total
        .checked_add(BLOCK_SIZE)
        .ok_or(Error::CapacityOverflow)?;
    let mut values = MutableBuffer::new_in(alloc.clone());
    values.try_extend_zeros(room)?;
    let mut offsets = MutableBuffer::new_in(alloc.clone());
    let n = rows
        .len()
        .checked_add(1)
        .and_then(|n| n.checked_mul(core::mem::size_of::<O>()))
        .ok_or(Error::CapacityOverflow)?;
    offsets.try_extend_zeros(n)?;
    let mut validity = MutableBuffer::new_in(alloc.clone());
    validity.try_extend_zeros(rows.len().div_ceil(8))?;
    let mut null_count = 0;
    let mut trailing = false;
    let (null, flip) = (opts.null_sentinel(), if opts.descending { 0xFF } else { 0 });
    let mut pos = 0usize;
    {
        let bits = validity.as_slice_mut();
        let out = values.as_slice_mut();
        let ends = offsets
            .typed_mut::<O>()?
            .get_mut(1..)
            .ok_or(Error::OutOfBounds)?;
        // One loop per mode, the flip a constant in each (the byte
        // transforms vanish when ascending).
        macro_rules! rows {
            ($decode:expr) => {
                for (i, (row, end)) in rows.iter_mut().zip(ends.iter_mut()).enumerate() {
                    let mut r: &[u8] = row;
                    let decoded = match $decode(&mut r, pos) {
                        Err(e) if e.kind() == ErrorKind::OutOfBounds && !ADVANCE => {
                            return Ok(None)
                        }
                        Err(e) if e.kind() == ErrorKind::OutOfBounds => {
                            return Err(Error::InvalidRow)
                        }
                        d => d?,
                    };
                    if ADVANCE {
                        *row = r;
                    } else {
                        trailing |= !r.is_empty();
                    }
                    match decoded {
                        Some(p) => {
                            pos = p;
                            if let Some(b) = bits.get_mut(i / 8) {
                                *b |= 1 << (i % 8);
                            }
                        }
                        None => null_count += 1,
                    }
                    *end = O::from_usize(pos).ok_or(Error::CapacityOverflow)?;
                }
            };
        }
        if unordered {
            rows!(|row: &mut &[u8], pos: usize| -> Result<Option<usize>> {
                let mut r: &[u8] = row;
                match read_unordered(&mut r)? {
                    None => {
                        *row = r;
                        Ok(None)
                    }
                    Some(v) => {
                        let e = pos + v.len();
                        out.get_mut(pos..e)
                            .ok_or(Error::OutOfBounds)?
                            .copy_from_slice(v);
                        *row = r;
                        Ok(Some(e))
                    }
                }
            });
        } else if flip == 0 {
            rows!(|row: &mut &[u8], pos| decode_ordered_at(row, null, 0, out, pos));
        } else {
            rows!(|row: &mut &[u8], pos| decode_ordered_at(row, null, 0xFF, out, pos));
        }
    }
    values.truncate(pos);
    let nulls = if null_count == 0 {
        None
    } else {
        let bits = BooleanBuffer::try_new(validity.into_buffer(), 0, rows.len())?;
        Some(NullBuffer::try_new_with_count(bits, null_count)?)
    };
    Ok(Some((values, offsets, nulls, trailing)))
}

/// The value bytes of a row that is one value of the ordered or unordered
/// encoding and nothing else, from its length and last byte (exact when
/// the row is well-formed; never more than the row's length).
#[inline(always)]
pub(crate) fn whole_row_len(row: &[u8], flip: u8, unordered: bool) -> usize {
    if unordered {
        return decoded_len_unordered(row);
    }
    // `0x02`, then `k` blocks of `BLOCK_SIZE + 1` bytes, the last one's
    // final byte the length of its data.
    let k = row.len().saturating_sub(1) / (BLOCK_SIZE + 1);
    match row.last() {
        Some(&m) if k > 0 => (k - 1) * BLOCK_SIZE + usize::from(m ^ flip).min(BLOCK_SIZE),
        _ => 0,
    }
}

/// Decodes a Binary/LargeBinary/Utf8/LargeUtf8 column.
///
/// # Errors
/// [`Error::InvalidRow`]; [`Error::InvalidUtf8`] for a UTF-8 type;
/// [`Error::CapacityOverflow`] when the values exceed the offset type;
/// [`Error::AllocationFailed`].
pub(crate) fn decode<'a, T: ByteArrayType, A: Allocator + Clone>(
    rows: &mut [&[u8]],
    opts: SortOptions,
    unordered: bool,
    alloc: &A,
) -> Result<GenericByteArray<'a, T, A>> {
    Ok(decode_bytes(rows, opts, unordered, None, false, alloc)?.0)
}

/// [`decode`] with `whole` as [`decode_into`] takes it and `trusted` as
/// [`byte_array`] does; also whether a row had bytes left (for whole rows).
fn decode_bytes<'a, T: ByteArrayType, A: Allocator + Clone>(
    rows: &mut [&[u8]],
    opts: SortOptions,
    unordered: bool,
    whole: Option<usize>,
    trusted: bool,
    alloc: &A,
) -> Result<(GenericByteArray<'a, T, A>, bool)> {
    let (values, offsets, nulls, trailing) =
        decode_into::<T::Offset, A>(rows, opts, unordered, whole, alloc)?;
    let offsets = ScalarBuffer::try_from_buffer(offsets.into_buffer())?;
    let array = byte_array(offsets, values.into_buffer(), nulls, trusted)?;
    Ok((array, trailing))
}

/// The decoded array of `T` over `offsets`, `values` and `nulls`, checked
/// as [`GenericByteArray::try_new`] checks it, except for the UTF-8 of the
/// values when `trusted`: the values were decoded from rows that an
/// encoder of the same fields wrote (see `row/provenance.rs`), so they are
/// the very strings it encoded.
///
/// # Errors
/// As [`GenericByteArray::try_new`].
pub(crate) fn byte_array<'a, T: ByteArrayType, A: Allocator>(
    offsets: ScalarBuffer<'a, T::Offset, A>,
    values: Buffer<'a, A>,
    nulls: Option<NullBuffer<'a, A>>,
    trusted: bool,
) -> Result<GenericByteArray<'a, T, A>> {
    if !trusted || !T::Native::IS_UTF8 {
        return GenericByteArray::try_new(offsets, values, nulls);
    }
    let len = offsets.len().saturating_sub(1);
    // Everything `try_new` checks but UTF-8.
    check_offsets(offsets.as_slice(), len, values.len(), true)?;
    validate_nulls(nulls.as_ref(), len, ValidationLevel::Full)?;
    // SAFETY: the offsets (`len + 1` of them, in bounds, non-decreasing)
    // and the validity were checked as `ValidationLevel::Full` checks them.
    // Every slot is UTF-8: `trusted` means every byte of the rows was
    // written by an encoder of these fields from valid strings, and
    // decoding those rows gives back exactly the values encoded, each slot
    // one whole value (the row format's round trip).
    Ok(unsafe { GenericByteArray::new_unchecked(offsets, values, nulls) })
}

/// The node of a converter whose one column is a variable-length leaf
/// (Binary, LargeBinary, Utf8, LargeUtf8, BinaryView, Utf8View).
pub(crate) fn single_variable<'n, 'a, A: Allocator>(
    nodes: &'n [Node<'a, A>],
) -> Option<&'n Node<'a, A>> {
    match nodes {
        [node] if matches!(node.kind, Kind::Leaf) && is_variable(&node.data_type) => Some(node),
        _ => None,
    }
}

/// Decodes the rows of `source` for a converter of the one variable-length
/// column `node` ([`single_variable`]): each row is one value. Rows back
/// to back (a [`crate::row::Rows`]) decode straight from their buffer
/// ([`crate::row::variable::contiguous`]); otherwise the rows are gathered
/// once, their value bytes estimated from their lengths and last bytes on
/// the way (no separate sizing pass), and the trailing-bytes check is made
/// in the decoding loop.
///
/// # Errors
/// As [`crate::row::RowConverter::convert_rows`]: [`Error::InvalidRow`] (also
/// for bytes after a value, once the column decoded),
/// [`Error::InvalidUtf8`], [`Error::LengthMismatch`] for an iterator
/// shorter than it said, [`Error::AllocationFailed`],
/// [`Error::CapacityOverflow`].
pub(crate) fn decode_single_column<'a, 'r, A, S>(
    node: &Node<'a, A>,
    source: S,
    trusted: bool,
    alloc: &A,
) -> Result<SharedSlice<'a, ArrayRef<'a, A>, A>>
where
    A: Allocator + Clone,
    S: RowSource<'r>,
{
    use DataType::*;
    if let Some(rows) = source.contiguous() {
        // Rows back to back: straight from their buffer, unless that path
        // leaves them to this one (no rows, a malformed row).
        let all = crate::row::variable::contiguous::decode_all(node, rows, trusted, alloc)?;
        if let Some(columns) = all {
            return Ok(columns);
        }
    }
    let rows = source.rows();
    let (opts, unordered) = (node.options, node.unordered);
    let flip = if opts.descending { 0xFF } else { 0 };
    let mut total = 0usize;
    let mut rows = TryVec::try_from_iter_in(
        rows.map(|r| {
            let d = r.data();
            total = total.saturating_add(whole_row_len(d, flip, unordered));
            d
        }),
        alloc.clone(),
    )?;
    let whole = Some(total);
    let (column, trailing) = match &node.data_type {
        Binary => {
            let (a, t) =
                decode_bytes::<BinaryType, A>(&mut rows, opts, unordered, whole, trusted, alloc)?;
            (a.into_array_ref(), t)
        }
        LargeBinary => {
            let (a, t) = decode_bytes::<LargeBinaryType, A>(
                &mut rows, opts, unordered, whole, trusted, alloc,
            )?;
            (a.into_array_ref(), t)
        }
        Utf8 => {
            let (a, t) =
                decode_bytes::<Utf8Type, A>(&mut rows, opts, unordered, whole, trusted, alloc)?;
            (a.into_array_ref(), t)
        }
        LargeUtf8 => {
            let (a, t) = decode_bytes::<LargeUtf8Type, A>(
                &mut rows, opts, unordered, whole, trusted, alloc,
            )?;
            (a.into_array_ref(), t)
        }
        BinaryView => {
            let (a, t) = super::views::decode_views::<BinaryViewType, A>(
                &mut rows, opts, unordered, whole, trusted, alloc,
            )?;
            (a.into_array_ref(), t)
        }
        Utf8View => {
            let (a, t) = super::views::decode_views::<StringViewType, A>(
                &mut rows, opts, unordered, whole, trusted, alloc,
            )?;
            (a.into_array_ref(), t)
        }
        _ => return Err(Error::UnsupportedType),
    };
    if trailing {
        return Err(Error::InvalidRow);
    }
    let mut column = Some(column);
    SharedSlice::try_from_fn_in(1, alloc.clone(), |_| {
        column.take().ok_or(Error::OutOfBounds)
    })
}

#[cfg(test)]
mod tests {
    use std::vec::Vec;

    use crate::row::Row;

    use crate::Global;

    use super::*;
    use crate::row::test_model::{
        decode_by_cursors, mutate_byte_row, one_column_converter as converter,
        random_binary_rows as random_rows, spec_ab_and_long_rows, Rng,
    };
    use crate::row::{RowConverter, RowEncoding};

    type G = Global;

    /// The general decoder: the reference.
    fn by_cursors(c: &RowConverter<'static, G>, rows: &[&[u8]]) -> Result<ArrayRef<'static, G>> {
        Ok(decode_by_cursors(c, rows)?.swap_remove(0))
    }

    fn whole(c: &RowConverter<'static, G>, rows: &[&[u8]]) -> Result<ArrayRef<'static, G>> {
        assert!(single_variable(&c.nodes).is_some());
        let cols = c.convert_rows(rows.iter().map(|r| Row::new(r)))?;
        Ok(cols.first().unwrap().clone())
    }

    fn modes() -> Vec<(SortOptions, RowEncoding)> {
        std::vec![
            (SortOptions::default(), RowEncoding::Ordered),
            (SortOptions::new(true, false), RowEncoding::Ordered),
            (SortOptions::new(false, false), RowEncoding::Ordered),
            (SortOptions::default(), RowEncoding::Unordered),
        ]
    }

    fn types() -> [DataType<'static, G>; 6] {
        use DataType::*;
        [Binary, LargeBinary, Utf8, LargeUtf8, BinaryView, Utf8View]
    }

    /// Whole-row decoding gives the cursor decoder's columns and errors,
    /// on well-formed rows and on rows with a byte changed, cut or added
    /// (so the length estimate is wrong, or bytes trail the value).
    #[test]
    fn same_results_as_the_cursor_decoder() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let mut seen = std::collections::BTreeMap::new();
        for (opts, enc) in modes() {
            for round in 0..120 {
                let n = [1, 3, 20][round % 3];
                let mut rows = random_rows(&mut rng, n, opts, enc);
                if round % 4 != 0 {
                    let victim = &mut rows[rng.below(n as u64) as usize];
                    mutate_byte_row(&mut rng, victim);
                }
                let refs: Vec<&[u8]> = rows.iter().map(|r| r.as_slice()).collect();
                for dt in types() {
                    let c = converter(dt.clone(), opts, enc);
                    let (got, want) = (whole(&c, &refs), by_cursors(&c, &refs));
                    match (&got, &want) {
                        (Ok(g), Ok(w)) => assert!(g == w, "{dt:?} {opts:?} {enc:?}: {rows:?}"),
                        (Err(g), Err(w)) => assert_eq!(g, w, "{dt:?} {opts:?} {enc:?}: {rows:?}"),
                        _ => panic!("{dt:?} {opts:?} {enc:?}: {rows:?}: {got:?} vs {want:?}"),
                    }
                    *seen
                        .entry(std::format!("{:?}", got.map(|_| ()).map_err(|e| e.kind())))
                        .or_insert(0) += 1;
                }
            }
        }
        // Every outcome was exercised.
        for k in ["Ok(())", "Err(InvalidRow)", "Err(InvalidUtf8)"] {
            assert!(seen.get(k).copied().unwrap_or(0) > 20, "{seen:?}");
        }
    }

    /// The cursor path without a sizing pass ([`fill_cursors`]) gives the
    /// exact-size path's values, offsets, validity, advanced rows and
    /// errors: rows with other columns' bytes after the value, sorted by
    /// length now and then (the first rows, the sample, the shortest: the
    /// later values outgrow the estimate), nulls, empty values, every sort
    /// option and both encodings, and rows with a byte changed or cut.
    #[test]
    fn cursor_path_same_results_as_the_exact_size_path() {
        let mut rng = Rng(0x2545_F491_4F6C_DD1D);
        let mut seen = std::collections::BTreeMap::new();
        let mut modes = std::vec![(SortOptions::new(true, true), RowEncoding::Ordered)];
        modes.extend(self::modes());
        for (opts, enc) in modes {
            let unordered = enc == RowEncoding::Unordered;
            for round in 0..60 {
                let n = [0, 1, 3, 70, 200][round % 5];
                let mut rows = random_rows(&mut rng, n, opts, enc);
                if round % 2 == 1 {
                    rows.sort_by_key(|r| r.len());
                }
                for r in rows.iter_mut() {
                    let junk = rng.below(9) as usize;
                    r.extend((0..junk).map(|_| rng.below(256) as u8));
                }
                if n > 0 && round % 3 != 0 {
                    let victim = &mut rows[rng.below(n as u64) as usize];
                    if rng.below(2) == 0 {
                        let at = rng.below(victim.len() as u64) as usize;
                        victim[at] = [0, 1, 2, 0x20, 0xFE, 0xFF][rng.below(6) as usize];
                    } else {
                        let keep = rng.below(victim.len() as u64) as usize;
                        victim.truncate(keep);
                    }
                }
                let mut new: Vec<&[u8]> = rows.iter().map(|r| r.as_slice()).collect();
                let mut old = new.clone();
                let got = decode_into::<i32, G>(&mut new, opts, unordered, None, &Global);
                let total = decoded_total(&old, opts, unordered);
                let want = fill::<i32, G, true>(&mut old, opts, unordered, total, &Global)
                    .and_then(|d| d.ok_or(Error::InvalidRow));
                match (&got, &want) {
                    (Ok(g), Ok(w)) => {
                        assert_eq!(g.0.as_slice(), w.0.as_slice(), "{opts:?} {enc:?}");
                        assert_eq!(g.1.as_slice(), w.1.as_slice(), "{opts:?} {enc:?}");
                        assert!(g.2 == w.2, "{opts:?} {enc:?}");
                        assert_eq!(new, old, "{opts:?} {enc:?}");
                    }
                    (Err(g), Err(w)) => assert_eq!(g, w, "{opts:?} {enc:?}: {rows:?}"),
                    _ => panic!(
                        "{opts:?} {enc:?}: {rows:?}: {:?} vs {:?}",
                        got.is_ok(),
                        want
                    ),
                }
                let k = match &got {
                    Ok(d) => std::format!("Ok(nulls: {})", d.2.is_some()),
                    Err(e) => std::format!("{:?}", e.kind()),
                };
                *seen.entry(k).or_insert(0) += 1;
            }
        }
        for k in ["Ok(nulls: true)", "Ok(nulls: false)", "InvalidRow"] {
            assert!(seen.get(k).copied().unwrap_or(0) > 10, "{seen:?}");
        }
    }

    #[test]
    fn whole_rows_exact_bytes() {
        let asc = SortOptions::default();
        let c = converter(DataType::Utf8, asc, RowEncoding::Ordered);
        // "ab", null, "", and 33 bytes (two blocks).
        let (ab, long) = spec_ab_and_long_rows();
        let rows: [&[u8]; 4] = [&ab, &[0x00], &[0x01], &long];
        let col = whole(&c, &rows).unwrap();
        let ArrayRef::Utf8(s) = &col else {
            panic!("{col:?}")
        };
        assert_eq!(s.value_offsets(), &[0, 2, 2, 2, 35]);
        assert_eq!(s.null_count(), 1);
        let want = std::format!("{}y", "x".repeat(32));
        assert_eq!(s.get(3), Some(want.as_str()));
        // Bytes after a value, a cut block, a bad marker, non-zero padding.
        let mut trailing = ab.clone();
        trailing.push(0);
        assert_eq!(whole(&c, &[&trailing]), Err(Error::InvalidRow));
        // Estimated at 0 bytes each (the last byte is the trailing zero):
        // the block copies outgrow the estimate, the exact pass decodes
        // them, then the leftovers are reported.
        let rows = [trailing.as_slice(); 5];
        assert_eq!(whole(&c, &rows), Err(Error::InvalidRow));
        assert_eq!(by_cursors(&c, &rows), Err(Error::InvalidRow));
        assert_eq!(whole(&c, &[&[0x00, 0x00]]), Err(Error::InvalidRow));
        assert_eq!(whole(&c, &[&ab[..33]]), Err(Error::InvalidRow));
        let mut marker = ab.clone();
        marker[33] = 33;
        assert_eq!(whole(&c, &[&marker]), Err(Error::InvalidRow));
        let mut padding = ab.clone();
        padding[10] = 1;
        assert_eq!(whole(&c, &[&padding]), Err(Error::InvalidRow));
        // Not UTF-8 wins over trailing bytes in a later row (the column is
        // built before the rows are checked for leftovers).
        let mut bad = ab.clone();
        bad[1] = 0xFF;
        assert_eq!(whole(&c, &[&bad, &trailing]), Err(Error::InvalidUtf8));
    }
}
