//! Variable-length bytes: Binary, LargeBinary, Utf8, LargeUtf8, BinaryView,
//! Utf8View (and, through [`BlockWriter`], the canonical byte arrays of lists).
//!
//! Ordered encoding: a null is the null sentinel alone; an empty value is
//! `0x01`; any other value is `0x02` followed by its bytes cut into 32-byte
//! blocks, each followed by `0xFF` except the last, which is zero padded to
//! 32 bytes and followed by its unpadded length (1..=32) as one byte. Every
//! byte except a null's sentinel is inverted when descending.
//!
//! Unordered encoding: the length as 4 little-endian bytes, then the bytes;
//! a null is the length `u32::MAX` and nothing else.
//!
//! Here: both encodings of one value (its length, writing, reading and
//! skipping it, a value's blocks into a [`BlockSink`]) and the column
//! encoders; the column decoders are in [`columns`] (Binary, LargeBinary,
//! Utf8, LargeUtf8) and [`views`] (BinaryView, Utf8View).

use allocator_api2::alloc::Allocator;

mod columns;
pub(crate) mod sizes;
pub(crate) mod take;
mod views;

use super::{take, SortOptions};
use crate::array::{Array, ArrayRef};
use crate::buffer::{Appender, MutableBuffer, NullBuffer, OffsetSize};
use crate::error::{Error, Result};

/// Block size of the ordered encoding.
pub(crate) const BLOCK_SIZE: usize = 32;
/// First byte of an empty value (ascending).
pub(crate) const EMPTY: u8 = 0x01;
/// First byte of a non-empty value (ascending).
pub(crate) const NON_EMPTY: u8 = 0x02;
/// Byte after every block but the last (ascending).
pub(crate) const CONTINUATION: u8 = 0xFF;
/// The unordered encoding's length of a null.
pub(crate) const UNORDERED_NULL: u32 = u32::MAX;

/// Encoded size of a value of `len` bytes (`None`: a null) with blocks of `B` bytes.
///
/// # Errors
/// [`Error::CapacityOverflow`].
#[inline]
pub(crate) fn ordered_len<const B: usize>(len: Option<usize>) -> Result<usize> {
    match len {
        None | Some(0) => Ok(1),
        Some(n) => n
            .div_ceil(B)
            .checked_mul(B + 1)
            .and_then(|b| b.checked_add(1))
            .ok_or(Error::CapacityOverflow),
    }
}

/// Encoded size of a value of `len` bytes (`None`: a null), unordered.
///
/// # Errors
/// [`Error::CapacityOverflow`] when the value is `u32::MAX` bytes or longer.
#[inline]
pub(crate) fn unordered_len(len: Option<usize>) -> Result<usize> {
    match len {
        None => Ok(4),
        Some(n) if n < UNORDERED_NULL as usize => n.checked_add(4).ok_or(Error::CapacityOverflow),
        Some(_) => Err(Error::CapacityOverflow),
    }
}

/// Writes the block encoding of a non-empty value given in pieces: `0x02`,
/// then blocks of `B` bytes separated by `0xFF`, then the zero padding and
/// the length of the last block. Ascending; the caller inverts for descending.
pub(crate) struct BlockWriter<'o, const B: usize> {
    out: &'o mut [u8],
    pos: usize,
    fill: usize,
}

impl<'o, const B: usize> BlockWriter<'o, B> {
    /// Starts a value at the beginning of `out` (which must be exactly as
    /// long as [`ordered_len`] says).
    ///
    /// # Errors
    /// [`Error::OutOfBounds`] when `out` is empty.
    pub(crate) fn new(out: &'o mut [u8]) -> Result<Self> {
        *out.first_mut().ok_or(Error::OutOfBounds)? = NON_EMPTY;
        Ok(BlockWriter {
            out,
            pos: 1,
            fill: 0,
        })
    }

    /// Appends value bytes.
    ///
    /// # Errors
    /// [`Error::OutOfBounds`] when `out` is too short.
    #[inline]
    pub(crate) fn write(&mut self, mut bytes: &[u8]) -> Result<()> {
        while !bytes.is_empty() {
            if self.fill == B {
                *self.out.get_mut(self.pos).ok_or(Error::OutOfBounds)? = CONTINUATION;
                self.pos += 1;
                self.fill = 0;
            }
            let n = (B - self.fill).min(bytes.len());
            let (now, rest) = bytes.split_at(n);
            self.out
                .get_mut(self.pos..self.pos + n)
                .ok_or(Error::OutOfBounds)?
                .copy_from_slice(now);
            self.pos += n;
            self.fill += n;
            bytes = rest;
        }
        Ok(())
    }

    /// Pads the last block and writes its length; returns the bytes written.
    ///
    /// # Errors
    /// [`Error::OutOfBounds`] when `out` is too short or nothing was written.
    pub(crate) fn finish(self) -> Result<usize> {
        if self.fill == 0 {
            return Err(Error::OutOfBounds);
        }
        let end = self.pos + (B - self.fill);
        self.out
            .get_mut(self.pos..end)
            .ok_or(Error::OutOfBounds)?
            .fill(0);
        // `fill <= B <= 255` (the block sizes used are 32 and, in tests, 4).
        *self.out.get_mut(end).ok_or(Error::OutOfBounds)? = self.fill as u8;
        Ok(end + 1)
    }
}

/// Writes the ordered encoding of `value` at the start of `out`; returns its length.
///
/// # Errors
/// [`Error::OutOfBounds`] when `out` is too short.
#[inline]
pub(crate) fn encode_ordered<const B: usize>(
    out: &mut [u8],
    value: Option<&[u8]>,
    opts: SortOptions,
) -> Result<usize> {
    let flip = if opts.descending { 0xFF } else { 0 };
    match value {
        None => {
            *out.first_mut().ok_or(Error::OutOfBounds)? = opts.null_sentinel();
            Ok(1)
        }
        Some([]) => {
            *out.first_mut().ok_or(Error::OutOfBounds)? = EMPTY ^ flip;
            Ok(1)
        }
        Some(v) if B == BLOCK_SIZE => write_value(out, v, 0, v.len(), flip),
        Some(v) => {
            // Other block sizes (the spec's 4-byte diagrams, in tests).
            let mut w = BlockWriter::<B>::new(out)?;
            w.write(v)?;
            let n = w.finish()?;
            if flip != 0 {
                out.get_mut(..n)
                    .ok_or(Error::OutOfBounds)?
                    .iter_mut()
                    .for_each(|b| *b = !*b);
            }
            Ok(n)
        }
    }
}

/// Writes the unordered encoding of `value` at the start of `out`; returns its length.
///
/// # Errors
/// [`Error::OutOfBounds`] when `out` is too short; [`Error::CapacityOverflow`].
#[inline]
pub(crate) fn encode_unordered(out: &mut [u8], value: Option<&[u8]>) -> Result<usize> {
    let len = match value {
        None => UNORDERED_NULL,
        Some(v) => u32::try_from(v.len())
            .ok()
            .filter(|&l| l != UNORDERED_NULL)
            .ok_or(Error::CapacityOverflow)?,
    };
    out.get_mut(..4)
        .ok_or(Error::OutOfBounds)?
        .copy_from_slice(&len.to_le_bytes());
    let Some(v) = value else { return Ok(4) };
    let end = 4 + v.len();
    out.get_mut(4..end)
        .ok_or(Error::OutOfBounds)?
        .copy_from_slice(v);
    Ok(end)
}

/// Encoded size of one value in the mode given.
#[inline]
pub(crate) fn value_len(len: Option<usize>, unordered: bool) -> Result<usize> {
    if unordered {
        unordered_len(len)
    } else {
        ordered_len::<BLOCK_SIZE>(len)
    }
}

/// Encodes the values `get(0)`, `get(1)`, … (`None`: null), one per entry of
/// `offsets`, advancing each offset.
///
/// # Errors
/// [`Error::OutOfBounds`] when `data` is too short; [`Error::CapacityOverflow`].
pub(crate) fn encode<'v>(
    data: &mut [u8],
    offsets: &mut [usize],
    get: impl Fn(usize) -> Option<&'v [u8]>,
    opts: SortOptions,
    unordered: bool,
) -> Result<()> {
    for (i, off) in offsets.iter_mut().enumerate() {
        let out = data.get_mut(*off..).ok_or(Error::OutOfBounds)?;
        let n = if unordered {
            encode_unordered(out, get(i))?
        } else {
            encode_ordered::<BLOCK_SIZE>(out, get(i), opts)?
        };
        *off += n;
    }
    Ok(())
}

/// `0xFF` for the first [`BLOCK_SIZE`] bytes, then `0x00`: the window
/// `MASK[BLOCK_SIZE - n..][..BLOCK_SIZE]` keeps the first `n` bytes of a block.
static MASK: [u8; 2 * BLOCK_SIZE] = {
    let mut m = [0u8; 2 * BLOCK_SIZE];
    let mut i = 0;
    while i < BLOCK_SIZE {
        m[i] = 0xFF;
        i += 1;
    }
    m
};

/// The mask keeping the first `n` (`1..=BLOCK_SIZE`) bytes of a block.
#[inline(always)]
pub(super) fn mask(n: usize) -> Result<&'static [u8; BLOCK_SIZE]> {
    MASK.get(BLOCK_SIZE.wrapping_sub(n)..)
        .and_then(|m| m.get(..BLOCK_SIZE))
        .and_then(|m| m.try_into().ok())
        .ok_or(Error::OutOfBounds)
}

/// Writes one block (`BLOCK_SIZE` bytes then `marker`) at the start of
/// `out`: `src` masked to its first `n` bytes (all when `n == BLOCK_SIZE`),
/// every byte XORed with `flip`. Fixed-size loads and stores (vectorised).
#[inline(always)]
fn put_block(
    out: &mut [u8; BLOCK_SIZE + 1],
    src: &[u8; BLOCK_SIZE],
    keep: &[u8; BLOCK_SIZE],
    marker: u8,
    flip: u8,
) {
    let mut tmp = [0u8; BLOCK_SIZE + 1];
    for j in 0..BLOCK_SIZE {
        tmp[j] = (src[j] & keep[j]) ^ flip;
    }
    tmp[BLOCK_SIZE] = marker ^ flip;
    *out = tmp;
}

/// Writes the ordered encoding of the non-empty value `values[start..end]`
/// at the start of `out`; returns its length. The bounds are checked once
/// per value; blocks are copied at their fixed size: the last one too when
/// `values` has `BLOCK_SIZE` bytes from its start (the bytes past the value
/// are masked to zero), so a value of up to 32 bytes is one 32-byte load,
/// mask and store.
///
/// # Errors
/// [`Error::OutOfBounds`] when `out` is too short or the range is empty or
/// outside `values`.
#[inline(always)]
fn write_value(out: &mut [u8], values: &[u8], start: usize, end: usize, flip: u8) -> Result<usize> {
    const B: usize = BLOCK_SIZE;
    let src = values.get(start..end).ok_or(Error::OutOfBounds)?;
    let whole = src.len().checked_sub(1).ok_or(Error::OutOfBounds)? / B;
    let n = 1 + (whole + 1) * (B + 1);
    let out = out.get_mut(..n).ok_or(Error::OutOfBounds)?;
    let (first, rest) = out.split_first_mut().ok_or(Error::OutOfBounds)?;
    *first = NON_EMPTY ^ flip;
    // `rest` is `whole` blocks with their markers, then the last block and
    // its length byte; `src` is `whole` blocks, then `1..=B` bytes.
    let (mut body, mut from) = (rest, src);
    for _ in 0..whole {
        let (d, d_rest) = body
            .split_first_chunk_mut::<{ B + 1 }>()
            .ok_or(Error::OutOfBounds)?;
        let (s, s_rest) = from.split_first_chunk::<B>().ok_or(Error::OutOfBounds)?;
        // A whole block needs no mask; ascending (`flip == 0` after
        // inlining), it is a plain copy.
        for j in 0..B {
            d[j] = s[j] ^ flip;
        }
        d[B] = CONTINUATION ^ flip;
        (body, from) = (d_rest, s_rest);
    }
    // `body` is the last block and its length byte, `from` its `1..=B` bytes.
    let last = from.len();
    let dst: &mut [u8; B + 1] = body.try_into().map_err(|_| Error::OutOfBounds)?;
    let keep = mask(last)?;
    let mut padded = [0u8; B];
    let at = start + whole * B;
    let src: &[u8; B] = match values.get(at..at + B) {
        Some(s) => s.try_into().map_err(|_| Error::OutOfBounds)?,
        None => {
            // Near the end of `values`: copy the bytes there are.
            padded
                .get_mut(..last)
                .ok_or(Error::OutOfBounds)?
                .copy_from_slice(from);
            &padded
        }
    };
    put_block(dst, src, keep, last as u8, flip);
    Ok(n)
}

/// Encodes slots of an offsets-based array (Binary, LargeBinary, Utf8,
/// LargeUtf8: `offsets` has one more entry than `cursors`, absolute into
/// `values`; null slots per `nulls`), writing slot `i` at `data[cursors[i]..]`
/// and advancing `cursors[i]`.
///
/// # Errors
/// [`Error::OffsetsLength`] when there are too few offsets;
/// [`Error::OutOfBounds`] when `data` is too short or an offset lies
/// outside `values`; [`Error::CapacityOverflow`] (unordered, a value of
/// 4 GiB or more).
pub(crate) fn encode_offsets<O: OffsetSize, A: Allocator>(
    data: &mut [u8],
    cursors: &mut [usize],
    offsets: &[O],
    values: &[u8],
    nulls: Option<&NullBuffer<'_, A>>,
    opts: SortOptions,
    unordered: bool,
) -> Result<()> {
    let offsets = offsets
        .get(..cursors.len() + 1)
        .ok_or(Error::OffsetsLength)?;
    if unordered {
        for (i, (c, w)) in cursors.iter_mut().zip(offsets.windows(2)).enumerate() {
            let start = w[0].to_usize().ok_or(Error::OutOfBounds)?;
            let end = w[1].to_usize().ok_or(Error::OutOfBounds)?;
            let v = if nulls.is_none_or(|n| n.is_valid(i)) {
                Some(values.get(start..end).ok_or(Error::OutOfBounds)?)
            } else {
                None
            };
            *c += encode_unordered(data.get_mut(*c..).ok_or(Error::OutOfBounds)?, v)?;
        }
        return Ok(());
    }
    let null = opts.null_sentinel();
    let bits = nulls.map(|n| (n.inner().inner().as_slice(), n.inner().offset()));
    // One loop per direction and validity, so that `flip` is a constant
    // and the no-null loop tests nothing.
    match (bits, opts.descending) {
        (None, false) => ordered_offsets(data, cursors, offsets, values, |_| true, 0, null),
        (None, true) => ordered_offsets(data, cursors, offsets, values, |_| true, 0xFF, null),
        (Some((bytes, offset)), desc) => ordered_offsets(
            data,
            cursors,
            offsets,
            values,
            valid_bit(bytes, offset),
            if desc { 0xFF } else { 0 },
            null,
        ),
    }
}

/// Whether slot `i` of a validity bitmap `bytes` that starts at bit
/// `offset` is valid (LSB-first bits; a slot past the bytes is null).
#[inline(always)]
pub(super) fn valid_bit(bytes: &[u8], offset: usize) -> impl Fn(usize) -> bool + '_ {
    move |i| {
        let j = offset + i;
        bytes.get(j / 8).is_some_and(|b| (b >> (j % 8)) & 1 == 1)
    }
}

/// The ordered loop of [`encode_offsets`]: slot `i` is valid when
/// `valid(i)`; every byte but a null's sentinel XORed with `flip`.
#[inline(always)]
fn ordered_offsets<O: OffsetSize>(
    data: &mut [u8],
    cursors: &mut [usize],
    offsets: &[O],
    values: &[u8],
    valid: impl Fn(usize) -> bool,
    flip: u8,
    null: u8,
) -> Result<()> {
    for (i, (c, w)) in cursors.iter_mut().zip(offsets.windows(2)).enumerate() {
        let start = w[0].to_usize().ok_or(Error::OutOfBounds)?;
        let end = w[1].to_usize().ok_or(Error::OutOfBounds)?;
        let out = data.get_mut(*c..).ok_or(Error::OutOfBounds)?;
        let written = if !valid(i) {
            *out.first_mut().ok_or(Error::OutOfBounds)? = null;
            1
        } else {
            write_valid(out, values, start, end, flip)?
        };
        *c += written;
    }
    Ok(())
}

/// Writes the ordered row of the valid value `values[start..end]` (empty
/// or not) at the start of `out`, every byte XORed with `flip`; returns
/// its length. A value of up to one block that has `BLOCK_SIZE` bytes of
/// `values` from its start is one full-size load, mask and store.
///
/// # Errors
/// [`Error::OutOfBounds`] when `out` is too short or the range is outside
/// `values`.
#[inline(always)]
pub(super) fn write_valid(
    out: &mut [u8],
    values: &[u8],
    start: usize,
    end: usize,
    flip: u8,
) -> Result<usize> {
    const B: usize = BLOCK_SIZE;
    if start == end {
        *out.first_mut().ok_or(Error::OutOfBounds)? = EMPTY ^ flip;
        return Ok(1);
    }
    if let (Some(dst), Some(src)) = (
        out.get_mut(..B + 2),
        values
            .get(start..start.wrapping_add(B))
            .filter(|_| end.wrapping_sub(start) <= B),
    ) {
        // The common short value: one block, loaded at its full size.
        let (first, block) = dst.split_first_mut().ok_or(Error::OutOfBounds)?;
        *first = NON_EMPTY ^ flip;
        let len = end - start;
        put_block(
            block.try_into().map_err(|_| Error::OutOfBounds)?,
            src.try_into().map_err(|_| Error::OutOfBounds)?,
            mask(len)?,
            len as u8,
            flip,
        );
        return Ok(B + 2);
    }
    write_value(out, values, start, end, flip)
}

/// Adds each row's encoded size of a byte column (Binary, Utf8, their
/// `Large` and `View` forms) to `lengths[i]` (without overflow checks
/// when `bounded`: see [`sizes::column_bound`]).
///
/// # Errors
/// [`Error::UnsupportedType`] for other columns; [`Error::CapacityOverflow`].
pub(crate) fn add_column_lengths<A: Allocator>(
    column: &ArrayRef<'_, A>,
    lengths: &mut [usize],
    unordered: bool,
    bounded: bool,
) -> Result<()> {
    macro_rules! views {
        ($a:expr) => {
            sizes::add_lengths_from_views(lengths, $a.views(), $a.nulls(), unordered, bounded)
        };
    }
    macro_rules! offsets {
        ($a:expr) => {
            sizes::add_lengths_from_offsets(
                lengths,
                $a.value_offsets(),
                $a.nulls(),
                unordered,
                bounded,
            )
        };
    }
    match column {
        ArrayRef::Binary(a) => offsets!(a),
        ArrayRef::LargeBinary(a) => offsets!(a),
        ArrayRef::Utf8(a) => offsets!(a),
        ArrayRef::LargeUtf8(a) => offsets!(a),
        ArrayRef::BinaryView(a) => views!(a),
        ArrayRef::Utf8View(a) => views!(a),
        _ => Err(Error::UnsupportedType),
    }
}

/// Writes each row's piece of a byte column (Binary, Utf8, their `Large`
/// and `View` forms) at `data[cursors[i]..]`, advancing the cursors;
/// `None` (nothing written) for other columns.
pub(crate) fn encode_column<A: Allocator>(
    column: &ArrayRef<'_, A>,
    opts: SortOptions,
    unordered: bool,
    data: &mut [u8],
    cursors: &mut [usize],
) -> Option<Result<()>> {
    macro_rules! offsets {
        ($a:expr) => {
            encode_offsets(
                data,
                cursors,
                $a.value_offsets(),
                $a.values().as_slice(),
                $a.nulls(),
                opts,
                unordered,
            )
        };
    }
    macro_rules! views {
        ($a:expr) => {
            if unordered {
                encode(
                    data,
                    cursors,
                    |i| valid_bytes($a.is_valid(i), $a.value_bytes(i)),
                    opts,
                    true,
                )
            } else {
                encode_views(
                    data,
                    cursors,
                    $a.views(),
                    $a.data_buffers(),
                    $a.nulls(),
                    opts,
                )
            }
        };
    }
    Some(match column {
        ArrayRef::Binary(a) => offsets!(a),
        ArrayRef::LargeBinary(a) => offsets!(a),
        ArrayRef::Utf8(a) => offsets!(a),
        ArrayRef::LargeUtf8(a) => offsets!(a),
        ArrayRef::BinaryView(a) => views!(a),
        ArrayRef::Utf8View(a) => views!(a),
        _ => return None,
    })
}

/// The ordered encoding of the slots of a view array (BinaryView,
/// Utf8View) at `data[cursors[i]..]`, advancing the cursors, read straight
/// from the views: an inline value (at most 12 bytes) is one block loaded
/// from the view itself; a longer one is encoded from its data buffer, whose
/// following bytes fill the last block's load as the offsets path does.
///
/// # Errors
/// [`Error::OutOfBounds`] when a row does not fit, a view points outside
/// its data buffers or there are fewer views than cursors.
fn encode_views<A: Allocator>(
    data: &mut [u8],
    cursors: &mut [usize],
    views: &[crate::array::ByteView],
    buffers: &[crate::buffer::Buffer<'_, A>],
    nulls: Option<&NullBuffer<'_, A>>,
    opts: SortOptions,
) -> Result<()> {
    const B: usize = BLOCK_SIZE;
    let flip = if opts.descending { 0xFF } else { 0 };
    let null = opts.null_sentinel();
    let views = views.get(..cursors.len()).ok_or(Error::OutOfBounds)?;
    for (i, (c, view)) in cursors.iter_mut().zip(views).enumerate() {
        let out = data.get_mut(*c..).ok_or(Error::OutOfBounds)?;
        let len = usize::try_from(view.length()).map_err(|_| Error::OutOfBounds)?;
        let written = if !nulls.is_none_or(|n| n.is_valid(i)) {
            *out.first_mut().ok_or(Error::OutOfBounds)? = null;
            1
        } else if len == 0 {
            *out.first_mut().ok_or(Error::OutOfBounds)? = EMPTY ^ flip;
            1
        } else if len <= crate::array::ByteView::MAX_INLINE_LEN {
            // The inline bytes (zero-padded to 12 in the view), in a
            // zeroed block; the mask keeps the first `len`.
            let mut block = [0u8; B];
            if let (Some(d), Some(s)) = (block.get_mut(..12), view.as_bytes().get(4..16)) {
                d.copy_from_slice(s);
            }
            let dst = out.get_mut(..B + 2).ok_or(Error::OutOfBounds)?;
            let (first, rest) = dst.split_first_mut().ok_or(Error::OutOfBounds)?;
            *first = NON_EMPTY ^ flip;
            put_block(
                rest.try_into().map_err(|_| Error::OutOfBounds)?,
                &block,
                mask(len)?,
                len as u8,
                flip,
            );
            B + 2
        } else {
            let buffer = usize::try_from(view.buffer_index())
                .ok()
                .and_then(|b| buffers.get(b))
                .ok_or(Error::OutOfBounds)?;
            let start = usize::try_from(view.offset()).map_err(|_| Error::OutOfBounds)?;
            let end = start.checked_add(len).ok_or(Error::OutOfBounds)?;
            write_value(out, buffer.as_slice(), start, end, flip)?
        };
        *c += written;
    }
    Ok(())
}

/// `bytes` when `valid`, else `None`.
#[inline]
fn valid_bytes(valid: bool, bytes: Option<&[u8]>) -> Option<&[u8]> {
    if valid {
        bytes
    } else {
        None
    }
}

pub(crate) use columns::decode;
pub(crate) use views::decode_view;

/// Decodes one ordered value from the front of `row`, appending its bytes
/// to `out`; `false` for a null.
///
/// # Errors
/// [`Error::InvalidRow`]: unknown first byte, a row that ends inside a
/// block, a last-block length of 0 or above `B`, non-zero padding;
/// [`Error::AllocationFailed`].
pub(crate) fn decode_ordered<const B: usize, A: Allocator>(
    row: &mut &[u8],
    opts: SortOptions,
    out: &mut MutableBuffer<A>,
) -> Result<bool> {
    let (&first, rest) = row.split_first().ok_or(Error::InvalidRow)?;
    *row = rest;
    if first == opts.null_sentinel() {
        return Ok(false);
    }
    let flip = if opts.descending { 0xFF } else { 0 };
    match first ^ flip {
        EMPTY => return Ok(true),
        NON_EMPTY => {}
        _ => return Err(Error::InvalidRow),
    }
    let start = out.len();
    loop {
        let block = take(row, B + 1)?;
        let (data, marker) = block.split_at(B);
        let marker = marker.first().copied().ok_or(Error::InvalidRow)? ^ flip;
        if marker == CONTINUATION {
            out.try_extend_from_slice(data)?;
            continue;
        }
        let n = usize::from(marker);
        if n == 0 || n > B {
            return Err(Error::InvalidRow);
        }
        // Padding must be zero (`flip` inverted): one branch-free pass over
        // the whole block, masked to the bytes past `n`, so that it vectorises.
        let bad = data.iter().enumerate().fold(0u8, |acc, (j, &b)| {
            acc | ((b ^ flip) & 0u8.wrapping_sub(u8::from(j >= n)))
        });
        if bad != 0 {
            return Err(Error::InvalidRow);
        }
        out.try_extend_from_slice(data.get(..n).ok_or(Error::InvalidRow)?)?;
        break;
    }
    if flip != 0 {
        if let Some(tail) = out.as_slice_mut().get_mut(start..) {
            tail.iter_mut().for_each(|b| *b = !*b);
        }
    }
    Ok(true)
}

/// Decodes one unordered value from the front of `row` (see [`decode_ordered`]).
///
/// # Errors
/// [`Error::InvalidRow`] when the row is shorter than the length says.
pub(crate) fn decode_unordered<A: Allocator>(
    row: &mut &[u8],
    out: &mut MutableBuffer<A>,
) -> Result<bool> {
    let Some(v) = read_unordered(row)? else {
        return Ok(false);
    };
    out.try_extend_from_slice(v)?;
    Ok(true)
}

/// Splits one unordered value off the front of `row` without copying.
///
/// # Errors
/// [`Error::InvalidRow`] when the row is shorter than the length says.
pub(crate) fn read_unordered<'r>(row: &mut &'r [u8]) -> Result<Option<&'r [u8]>> {
    let len = take(row, 4)?;
    let len = u32::from_le_bytes(len.try_into().map_err(|_| Error::InvalidRow)?);
    if len == UNORDERED_NULL {
        return Ok(None);
    }
    let n = usize::try_from(len).map_err(|_| Error::InvalidRow)?;
    take(row, n).map(Some)
}

/// Length of the ordered value at the front of `row`, without decoding it.
///
/// # Errors
/// [`Error::InvalidRow`] as [`decode_ordered`] (padding is not checked).
pub(crate) fn skip_ordered(row: &[u8], opts: SortOptions) -> Result<usize> {
    let first = *row.first().ok_or(Error::InvalidRow)?;
    let flip = if opts.descending { 0xFF } else { 0 };
    if first == opts.null_sentinel() || first ^ flip == EMPTY {
        return Ok(1);
    }
    if first ^ flip != NON_EMPTY {
        return Err(Error::InvalidRow);
    }
    let mut pos = 1;
    loop {
        let end = pos + BLOCK_SIZE + 1;
        let marker = *row.get(end - 1).ok_or(Error::InvalidRow)? ^ flip;
        pos = end;
        if marker != CONTINUATION {
            return Ok(pos);
        }
    }
}

/// Length of the unordered value at the front of `row`.
///
/// # Errors
/// [`Error::InvalidRow`] when the row is shorter than the length says.
pub(crate) fn skip_unordered(row: &[u8]) -> Result<usize> {
    let mut r = row;
    read_unordered(&mut r)?;
    Ok(row.len() - r.len())
}

/// Where [`decode_ordered_with`] puts a value's bytes, in order: whole
/// 32-byte blocks, then the value's last block.
pub(crate) trait BlockSink {
    /// Puts a whole block next.
    ///
    /// # Errors
    /// [`Error::OutOfBounds`] when there is no room.
    fn block(&mut self, block: &[u8; BLOCK_SIZE]) -> Result<()>;

    /// Puts the first `n` (1 to 32) bytes of `block` next; the sink may
    /// write all 32 (the bytes past `n` are zero: the checked padding).
    ///
    /// # Errors
    /// [`Error::OutOfBounds`] when there is no room for 32 bytes.
    fn last(&mut self, block: &[u8; BLOCK_SIZE], n: usize) -> Result<()>;
}

/// Blocks appended in order; the last one's padding is not kept.
impl BlockSink for Appender<'_> {
    #[inline(always)]
    fn block(&mut self, block: &[u8; BLOCK_SIZE]) -> Result<()> {
        self.put(block)
    }

    #[inline(always)]
    fn last(&mut self, block: &[u8; BLOCK_SIZE], n: usize) -> Result<()> {
        self.put_prefix(block, n)
    }
}

/// Decodes one ordered value from the front of `row` (`flip` `0xFF` when
/// descending, `null` the null sentinel) into `sink`, advancing `row` past
/// it: `false` for a null. Checks the marker byte, each block's marker, the
/// last block's length (1 to 32) and its zero padding (branch-free).
///
/// # Errors
/// As [`decode_ordered`]; [`Error::OutOfBounds`] when the sink has no room
/// (`row` is then left as it was).
#[inline(always)]
pub(super) fn decode_ordered_with<S: BlockSink>(
    row: &mut &[u8],
    null: u8,
    flip: u8,
    sink: &mut S,
) -> Result<bool> {
    const B: usize = BLOCK_SIZE;
    let (&first, mut rest) = row.split_first().ok_or(Error::InvalidRow)?;
    if first == null {
        *row = rest;
        return Ok(false);
    }
    match first ^ flip {
        EMPTY => {
            *row = rest;
            return Ok(true);
        }
        NON_EMPTY => {}
        _ => return Err(Error::InvalidRow),
    }
    loop {
        let (block, tail) = rest
            .split_first_chunk::<{ B + 1 }>()
            .ok_or(Error::InvalidRow)?;
        let (data, marker) = block.split_first_chunk::<B>().ok_or(Error::InvalidRow)?;
        let marker = marker.first().copied().ok_or(Error::InvalidRow)? ^ flip;
        rest = tail;
        // Ascending, the bytes go to the sink as they are (no copy).
        let mut tmp = [0u8; B];
        let bytes = if flip == 0 {
            data
        } else {
            for j in 0..B {
                tmp[j] = data[j] ^ flip;
            }
            &tmp
        };
        if marker == CONTINUATION {
            sink.block(bytes)?;
            continue;
        }
        let n = usize::from(marker);
        if n == 0 || n > B {
            return Err(Error::InvalidRow);
        }
        let keep = mask(n)?;
        let mut bad = 0u8;
        for j in 0..B {
            bad |= bytes[j] & !keep[j];
        }
        if bad != 0 {
            return Err(Error::InvalidRow);
        }
        sink.last(bytes, n)?;
        break;
    }
    *row = rest;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::buffer::MutableBuffer;
    use crate::Global;

    fn enc<const B: usize>(v: Option<&[u8]>, opts: SortOptions) -> std::vec::Vec<u8> {
        let n = ordered_len::<B>(v.map(<[u8]>::len)).unwrap();
        let mut out = std::vec![0u8; n];
        assert_eq!(encode_ordered::<B>(&mut out, v, opts).unwrap(), n);
        out
    }

    #[test]
    fn round_trip_and_errors() {
        let opts = SortOptions::default();
        for v in [&b""[..], b"a", &[7u8; 32], &[9u8; 33], &[1u8; 70]] {
            for desc in [false, true] {
                let o = SortOptions::new(desc, true);
                let e = enc::<BLOCK_SIZE>(Some(v), o);
                let mut out = MutableBuffer::new_in(Global);
                let mut r = &e[..];
                assert!(decode_ordered::<BLOCK_SIZE, _>(&mut r, o, &mut out).unwrap());
                assert!(r.is_empty());
                assert_eq!(out.as_slice(), v);
                assert_eq!(skip_ordered(&e, o).unwrap(), e.len());
            }
        }
        let mut e = enc::<BLOCK_SIZE>(Some(b"ab"), opts);
        let mut out = MutableBuffer::new_in(Global);
        e[5] = 1; // padding
        assert_eq!(
            decode_ordered::<BLOCK_SIZE, _>(&mut &e[..], opts, &mut out),
            Err(Error::InvalidRow)
        );
        let mut e = enc::<BLOCK_SIZE>(Some(b"ab"), opts);
        e[33] = 33; // last-block length above the block size
        assert_eq!(
            decode_ordered::<BLOCK_SIZE, _>(&mut &e[..], opts, &mut out),
            Err(Error::InvalidRow)
        );
        assert_eq!(
            decode_ordered::<BLOCK_SIZE, _>(&mut &[2u8, 1][..], opts, &mut out),
            Err(Error::InvalidRow)
        );
        assert_eq!(
            decode_ordered::<BLOCK_SIZE, _>(&mut &[3u8][..], opts, &mut out),
            Err(Error::InvalidRow)
        );
    }

    #[test]
    fn unordered_bytes() {
        let mut out = [0u8; 7];
        assert_eq!(encode_unordered(&mut out, Some(b"abc")).unwrap(), 7);
        assert_eq!(out, [3, 0, 0, 0, b'a', b'b', b'c']);
        assert_eq!(encode_unordered(&mut out, None).unwrap(), 4);
        assert_eq!(&out[..4], &[0xFF; 4]);
        let mut r = &[5u8, 0, 0, 0, 1][..];
        assert_eq!(read_unordered(&mut r), Err(Error::InvalidRow));
    }
    /// The spec's diagrams use 4-byte blocks "for brevity".
    #[test]
    fn spec_diagrams_with_4_byte_blocks() {
        let asc = SortOptions::default();
        assert_eq!(enc::<4>(Some(b"MEEP"), asc), b"\x02MEEP\x04");
        assert_eq!(enc::<4>(Some(b""), asc), [0x01]);
        assert_eq!(enc::<4>(None, asc), [0x00]);
        // The spec's drawing of "Defenestration" repeats "tr" by mistake
        // (17 letters in 14 characters); the rule it states gives:
        assert_eq!(
            enc::<4>(Some(b"Defenestration"), asc),
            b"\x02Defe\xFFnest\xFFrati\xFFon\x00\x00\x02"
        );
    }

    /// View rows of mostly inline values (every length 0 to 12, nulls, a
    /// few longer values among them) are the rows of the same values as
    /// Binary, every direction and null order.
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
