//! Writing the rows of one byte column in order through an [`Appender`]
//! (no sizes pass, no zeroing first): offsets-based columns and views,
//! the rows of mostly inline views one row-sized copy each (see [`super`]
//! for the encoding).

use allocator_api2::alloc::Allocator;

use super::{mask, put_block, valid_bit, SortOptions, BLOCK_SIZE, CONTINUATION, EMPTY, NON_EMPTY};
use crate::array::{Array, ArrayRef, ByteView};
use crate::buffer::{Appender, NullBuffer, OffsetSize};
use crate::error::{Error, Result};

/// Writes the rows of a byte column (Binary, Utf8, their `Large` and
/// `View` forms), encoded ordered, through `w` (see [`append_offsets`],
/// [`append_views`]).
///
/// # Errors
/// [`Error::UnsupportedType`] for other columns; as [`append_offsets`] and
/// [`append_views`].
pub(crate) fn append_column<A: Allocator>(
    column: &ArrayRef<'_, A>,
    opts: SortOptions,
    w: &mut Appender<'_>,
    cursors: &mut [usize],
) -> Result<()> {
    macro_rules! append {
        ($a:expr) => {
            append_offsets(
                w,
                cursors,
                $a.value_offsets(),
                $a.values().as_slice(),
                $a.nulls(),
                opts,
            )
        };
    }
    macro_rules! views {
        ($a:expr) => {
            append_views(w, cursors, $a.views(), $a.data_buffers(), $a.nulls(), opts)
        };
    }
    match column {
        ArrayRef::Binary(a) => append!(a),
        ArrayRef::LargeBinary(a) => append!(a),
        ArrayRef::Utf8(a) => append!(a),
        ArrayRef::LargeUtf8(a) => append!(a),
        ArrayRef::BinaryView(a) => views!(a),
        ArrayRef::Utf8View(a) => views!(a),
        _ => Err(Error::UnsupportedType),
    }
}

/// Encodes slots of an offsets-based array like [`super::encode_offsets`]
/// (ordered) one row after another through `w`, for rows that hold this
/// column only: `cursors[i]` becomes the end of row `i`.
///
/// # Errors
/// [`Error::OffsetsLength`] when there are too few offsets;
/// [`Error::OffsetOutOfBounds`] for negative or decreasing offsets;
/// [`Error::OutOfBounds`] when a row does not fit or an offset lies
/// outside `values`.
pub(crate) fn append_offsets<O: OffsetSize, A: Allocator>(
    w: &mut Appender<'_>,
    cursors: &mut [usize],
    offsets: &[O],
    values: &[u8],
    nulls: Option<&NullBuffer<'_, A>>,
    opts: SortOptions,
) -> Result<()> {
    let offsets = offsets
        .get(..cursors.len() + 1)
        .ok_or(Error::OffsetsLength)?;
    // Checked for every slot, null or not, as the general path's starts
    // pass does.
    let slots = offsets.windows(2).map(|o| {
        let start = o[0].to_usize().ok_or(Error::OffsetOutOfBounds)?;
        let end = o[1]
            .to_usize()
            .filter(|&e| e >= start)
            .ok_or(Error::OffsetOutOfBounds)?;
        Ok((start, end))
    });
    append_slots(w, cursors, slots, |v| Ok((values, v.0, v.1)), nulls, opts)
}

/// Encodes the slots of a view array (BinaryView, Utf8View) like
/// [`super::encode_views`] one row after another through `w`, for rows that hold
/// this column only: `cursors[i]` becomes the end of row `i`.
///
/// # Errors
/// [`Error::OutOfBounds`] when a row does not fit, a valid slot's view
/// points outside its data buffers or there are fewer views than cursors.
pub(crate) fn append_views<A: Allocator>(
    w: &mut Appender<'_>,
    cursors: &mut [usize],
    views: &[crate::array::ByteView],
    buffers: &[crate::buffer::Buffer<'_, A>],
    nulls: Option<&NullBuffer<'_, A>>,
    opts: SortOptions,
) -> Result<()> {
    let views = views.get(..cursors.len()).ok_or(Error::OutOfBounds)?;
    // Fewer buffered bytes than 12 a view: mostly inline values, each
    // written as one row-sized copy ([`append_inline_views`]); else inline
    // values go the way of the others (the loop of long values measured
    // slower with that case in it).
    let buffered = buffers
        .iter()
        .fold(0usize, |t, b| t.saturating_add(b.len()));
    if buffered < views.len().saturating_mul(ByteView::MAX_INLINE_LEN) {
        return append_inline_views(w, cursors, views, buffers, nulls, opts);
    }
    // A view is only read for a valid slot.
    let resolve = |view| view_value(view, buffers);
    append_slots(w, cursors, views.iter().map(Ok), resolve, nulls, opts)
}

/// [`append_views`] for views whose values are mostly inline: an inline
/// one is written by [`append_inline`], the others as [`append_slots`]
/// writes them. One loop per direction and validity.
///
/// # Errors
/// As [`append_views`].
fn append_inline_views<A: Allocator>(
    w: &mut Appender<'_>,
    cursors: &mut [usize],
    views: &[ByteView],
    buffers: &[crate::buffer::Buffer<'_, A>],
    nulls: Option<&NullBuffer<'_, A>>,
    opts: SortOptions,
) -> Result<()> {
    let null = opts.null_sentinel();
    let bits = nulls.map(|n| (n.inner().inner().as_slice(), n.inner().offset()));
    let (c, v, b) = (cursors, views, buffers);
    match (bits, opts.descending) {
        (None, false) => inline_rows(w, c, v, b, |_| true, 0, null),
        (None, true) => inline_rows(w, c, v, b, |_| true, 0xFF, null),
        (Some((bytes, offset)), desc) => inline_rows(
            w,
            c,
            v,
            b,
            valid_bit(bytes, offset),
            if desc { 0xFF } else { 0 },
            null,
        ),
    }
}

/// The loop of [`append_inline_views`] for one direction and validity.
#[inline(always)]
fn inline_rows<A: Allocator>(
    w: &mut Appender<'_>,
    cursors: &mut [usize],
    views: &[ByteView],
    buffers: &[crate::buffer::Buffer<'_, A>],
    valid: impl Fn(usize) -> bool,
    flip: u8,
    null: u8,
) -> Result<()> {
    for (i, (c, view)) in cursors.iter_mut().zip(views).enumerate() {
        let len = usize::try_from(view.length()).unwrap_or(usize::MAX);
        if !valid(i) {
            w.put(&[null])?;
        } else if len == 0 {
            w.put(&[EMPTY ^ flip])?;
        } else if len <= ByteView::MAX_INLINE_LEN {
            append_inline(w, view.to_bytes(), len, flip)?;
        } else {
            let (values, start, end) = view_value(view, buffers)?;
            append_value(w, values, start, end, flip)?;
        }
        *c = w.pos();
    }
    Ok(())
}

/// The row of a value of 1 to 12 bytes `len` held in `view` (its bytes 4
/// to 16): the non-empty marker, one block (the value, zero padding
/// whatever the view holds past it) and its length, built in registers and
/// written as one 34-byte copy.
///
/// # Errors
/// [`Error::OutOfBounds`] when `len` is past 12 or the row does not fit.
#[inline(always)]
fn append_inline(w: &mut Appender<'_>, view: [u8; 16], len: usize, flip: u8) -> Result<()> {
    if len > ByteView::MAX_INLINE_LEN {
        return Err(Error::OutOfBounds);
    }
    let keep = (1u128 << (8 * len)) - 1;
    let value = (u128::from_le_bytes(view) >> 32) & keep;
    let value = (value ^ u128::from_ne_bytes([flip; 16])).to_le_bytes();
    let mut row = [flip; 2 + BLOCK_SIZE];
    row[0] = NON_EMPTY ^ flip;
    if let Some(d) = row
        .get_mut(1..17)
        .and_then(|d| <&mut [u8; 16]>::try_from(d).ok())
    {
        *d = value;
    }
    row[1 + BLOCK_SIZE] = (len as u8) ^ flip;
    w.put(&row)
}

/// The value of a valid slot's view as `values[start..end]`: the view's
/// inline bytes (zero padded to 12) or a range of its data buffer.
///
/// # Errors
/// [`Error::OutOfBounds`] for a negative length or offset or a buffer
/// index out of range (the range itself is checked by the caller).
fn view_value<'v, A: Allocator>(
    view: &'v crate::array::ByteView,
    buffers: &'v [crate::buffer::Buffer<'_, A>],
) -> Result<(&'v [u8], usize, usize)> {
    let len = usize::try_from(view.length()).map_err(|_| Error::OutOfBounds)?;
    if len <= crate::array::ByteView::MAX_INLINE_LEN {
        let inline = view.as_bytes().get(4..).ok_or(Error::OutOfBounds)?;
        return Ok((inline, 0, len));
    }
    let buffer = usize::try_from(view.buffer_index())
        .ok()
        .and_then(|b| buffers.get(b))
        .ok_or(Error::OutOfBounds)?;
    let start = usize::try_from(view.offset()).map_err(|_| Error::OutOfBounds)?;
    let end = start.checked_add(len).ok_or(Error::OutOfBounds)?;
    Ok((buffer.as_slice(), start, end))
}

/// The loop of [`append_offsets`] and [`append_views`]: `slots` gives each
/// slot (an error stops the loop), `resolve` turns a valid one into its
/// value `values[start..end]`. One loop per direction and validity (see
/// [`super::ordered_offsets`]).
#[inline(always)]
pub(super) fn append_slots<'v, S, A: Allocator>(
    w: &mut Appender<'_>,
    cursors: &mut [usize],
    slots: impl Iterator<Item = Result<S>>,
    resolve: impl Fn(S) -> Result<(&'v [u8], usize, usize)>,
    nulls: Option<&NullBuffer<'_, A>>,
    opts: SortOptions,
) -> Result<()> {
    let null = opts.null_sentinel();
    let bits = nulls.map(|n| (n.inner().inner().as_slice(), n.inner().offset()));
    match (bits, opts.descending) {
        (None, false) => append_rows(w, cursors, slots, &resolve, |_| true, 0, null),
        (None, true) => append_rows(w, cursors, slots, &resolve, |_| true, 0xFF, null),
        (Some((bytes, offset)), desc) => append_rows(
            w,
            cursors,
            slots,
            &resolve,
            valid_bit(bytes, offset),
            if desc { 0xFF } else { 0 },
            null,
        ),
    }
}

/// The loop of [`append_slots`] for one direction and validity.
#[inline(always)]
fn append_rows<'v, S>(
    w: &mut Appender<'_>,
    cursors: &mut [usize],
    slots: impl Iterator<Item = Result<S>>,
    resolve: &impl Fn(S) -> Result<(&'v [u8], usize, usize)>,
    valid: impl Fn(usize) -> bool,
    flip: u8,
    null: u8,
) -> Result<()> {
    for (i, (c, slot)) in cursors.iter_mut().zip(slots).enumerate() {
        let slot = slot?;
        if !valid(i) {
            w.put(&[null])?;
        } else {
            let (values, start, end) = resolve(slot)?;
            if start == end {
                w.put(&[EMPTY ^ flip])?;
            } else {
                append_value(w, values, start, end, flip)?;
            }
        }
        *c = w.pos();
    }
    Ok(())
}

/// [`super::write_value`] through an [`Appender`]: each block built in registers
/// and written at its fixed size.
#[inline(always)]
fn append_value(
    w: &mut Appender<'_>,
    values: &[u8],
    start: usize,
    end: usize,
    flip: u8,
) -> Result<()> {
    const B: usize = BLOCK_SIZE;
    let src = values.get(start..end).ok_or(Error::OutOfBounds)?;
    let whole = src.len().checked_sub(1).ok_or(Error::OutOfBounds)? / B;
    w.put(&[NON_EMPTY ^ flip])?;
    let mut from = src;
    for _ in 0..whole {
        let (s, rest) = from.split_first_chunk::<B>().ok_or(Error::OutOfBounds)?;
        let mut block = [0u8; B + 1];
        for j in 0..B {
            block[j] = s[j] ^ flip;
        }
        block[B] = CONTINUATION ^ flip;
        w.put(&block)?;
        from = rest;
    }
    // `from` is the last block's `1..=B` bytes.
    let last = from.len();
    let mut padded = [0u8; B];
    let at = start + whole * B;
    let src: &[u8; B] = match values.get(at..at + B) {
        Some(s) => s.try_into().map_err(|_| Error::OutOfBounds)?,
        None => {
            // Near the end of `values` (or an inline view's 12 bytes):
            // copy the bytes there are, 12 at once when there are.
            match values.get(at..).and_then(<[u8]>::first_chunk::<12>) {
                Some(s) if last <= 12 => {
                    if let Some(d) = padded.first_chunk_mut::<12>() {
                        *d = *s;
                    }
                }
                _ => padded
                    .get_mut(..last)
                    .ok_or(Error::OutOfBounds)?
                    .copy_from_slice(from),
            }
            &padded
        }
    };
    let mut block = [0u8; B + 1];
    put_block(&mut block, src, mask(last)?, last as u8, flip);
    w.put(&block)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Global;

    /// View rows of mostly inline values (the row-sized copy of
    /// `append_inline_views`: every length 0 to 12, nulls, a few longer
    /// values among them) are the rows of the same values as Binary (the
    /// offsets path), every direction and null order.
    #[test]
    fn inline_view_rows_are_the_binary_rows() {
        use crate::array::{BinaryArray, BinaryViewArray};
        use crate::row::{RowConverter, SortField};
        let long = [b'L'; 45];
        let mut values: std::vec::Vec<Option<&[u8]>> = (0..200usize)
            .map(|i| {
                let len = i % 14;
                (len != 13).then_some(&b"abcdefghijkl\xFF"[..len.min(12)])
            })
            .collect();
        values[7] = Some(&long);
        values[150] = Some(&long[..13]);
        let views = BinaryViewArray::<Global>::try_from_options_in(&values, Global).unwrap();
        assert!(views.data_buffers().iter().map(|b| b.len()).sum::<usize>() < 12 * 200);
        let views = views.into_array_ref();
        let binary = BinaryArray::<Global>::try_from_options_in(&values, Global)
            .unwrap()
            .into_array_ref();
        for (desc, nulls_first) in [(false, true), (false, false), (true, true), (true, false)] {
            let o = SortOptions::new(desc, nulls_first);
            let rows = |col: &crate::array::ArrayRef<'static, Global>| {
                let f = SortField::new_with_options(col.data_type().clone(), o);
                let c = RowConverter::try_new(&[f]).unwrap();
                c.convert_columns(core::slice::from_ref(col)).unwrap()
            };
            let (v, b) = (rows(&views), rows(&binary));
            assert_eq!(v.offsets(), b.offsets(), "{o:?}");
            assert_eq!(v.data(), b.data(), "{o:?}");
        }
    }
}
