//! Decoding variable-length bytes (see [`super`] for the
//! encoding): one value at a time, the helpers list decoding and the
//! column decoders share (one value, its length, skipping it, a value's
//! blocks into a [`BlockSink`]). The column decoders (Binary, LargeBinary,
//! Utf8, LargeUtf8, BinaryView, Utf8View) are in [`columns`].

use allocator_api2::alloc::Allocator;

use super::{mask, BLOCK_SIZE, CONTINUATION, EMPTY, NON_EMPTY, UNORDERED_NULL};
use crate::buffer::{Appender, MutableBuffer};
use crate::error::{Error, Result};
use crate::row::{take, SortOptions};

mod columns;
mod views;

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
pub(super) trait BlockSink {
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
