//! Lists element by element: the ordered list encoding of arrow-row 52 and
//! later (the default, [`crate::row::RowEncoding::Ordered`]).
//!
//! A null list is the null sentinel alone. Any other list is each element's
//! row written as a non-empty byte string, then the empty byte string `0x01`
//! as a terminator; `[]` is the terminator alone. A byte string is `0x02`,
//! then its bytes in blocks: the first 32 bytes in four *mini-blocks* of 8
//! bytes, the rest in blocks of 32; each block is zero padded and followed by
//! `0xFF` when more blocks follow, else by the number of bytes it holds.
//! When descending every byte of a valid list is inverted (the elements are
//! encoded ascending, with nulls placed to land as asked after inversion).
//!
//! Because an element starts with `0x02` and the terminator is `0x01`, a list
//! that is a prefix of another sorts first, and lists compare element by
//! element: unlike the seed's canonical byte arrays
//! ([`crate::row::RowEncoding::Seed`]), `[1]` sorts before `[1, null]` under every
//! [`crate::row::SortOptions`]. For lists of fixed-width elements the bytes are
//! those arrow-row 60 writes.
//!
//! An element whose row is empty (a Null-typed element takes no bytes) is
//! written as `0x02`, one zero mini-block and the length `0`, so that it is
//! not mistaken for the terminator.

use core::ops::Range;

use allocator_api2::alloc::Allocator;

use super::Decoded;
use crate::buffer::{MutableBuffer, NullBufferBuilder, TryVec};
use crate::error::{Error, Result};
use crate::row::decode::decode_column;
use crate::row::interner::Interner;
use crate::row::variable::{BLOCK_SIZE, CONTINUATION, EMPTY, NON_EMPTY};
use crate::row::{take, Node, Rows, SortOptions};

/// Bytes of a mini-block.
const MINI_BLOCK: usize = 8;
/// Mini-blocks before the full-size blocks start (`4 × 8 = 32` bytes).
const MINI_BLOCKS: usize = BLOCK_SIZE / MINI_BLOCK;

/// Encoded size of one element whose row is `len` bytes.
///
/// # Errors
/// [`Error::CapacityOverflow`].
pub(crate) fn element_len(len: usize) -> Result<usize> {
    if len <= BLOCK_SIZE {
        // At least one mini-block, even for an empty row.
        Ok(1 + len.div_ceil(MINI_BLOCK).max(1) * (MINI_BLOCK + 1))
    } else {
        (len - BLOCK_SIZE)
            .div_ceil(BLOCK_SIZE)
            .checked_mul(BLOCK_SIZE + 1)
            .and_then(|n| n.checked_add(1 + MINI_BLOCKS * (MINI_BLOCK + 1)))
            .ok_or(Error::CapacityOverflow)
    }
}

/// Encoded size of a valid list of the child rows `r`.
///
/// # Errors
/// [`Error::CapacityOverflow`], [`Error::OutOfBounds`] for rows not in `child`.
pub(crate) fn list_len<A: Allocator>(child: &Rows<A>, r: Range<usize>) -> Result<usize> {
    let mut n = 1usize; // the terminator
    for j in r {
        let e = element_len(child.span(j, j + 1)?)?;
        n = n.checked_add(e).ok_or(Error::CapacityOverflow)?;
    }
    Ok(n)
}

/// Writes one block of `size` bytes (`chunk`, zero padded) and its marker at
/// `out[pos..]`; returns the new position.
fn put_block(out: &mut [u8], pos: usize, size: usize, chunk: &[u8], last: bool) -> Result<usize> {
    let end = pos + size;
    let block = out.get_mut(pos..end).ok_or(Error::OutOfBounds)?;
    let (data, pad) = block.split_at_mut(chunk.len().min(size));
    data.copy_from_slice(chunk.get(..data.len()).ok_or(Error::OutOfBounds)?);
    pad.fill(0);
    // `chunk.len() <= size <= 32`.
    let marker = if last { data.len() as u8 } else { CONTINUATION };
    *out.get_mut(end).ok_or(Error::OutOfBounds)? = marker;
    Ok(end + 1)
}

/// Writes one element (ascending) whose row is `row` at the start of `out`;
/// returns its length ([`element_len`]).
///
/// # Errors
/// [`Error::OutOfBounds`] when `out` is too short.
fn write_element(out: &mut [u8], row: &[u8]) -> Result<usize> {
    *out.first_mut().ok_or(Error::OutOfBounds)? = NON_EMPTY;
    let (head, tail) = row.split_at(row.len().min(BLOCK_SIZE));
    if head.is_empty() {
        return put_block(out, 1, MINI_BLOCK, &[], true);
    }
    let mut pos = 1;
    let mut minis = head.chunks(MINI_BLOCK).peekable();
    while let Some(chunk) = minis.next() {
        let last = minis.peek().is_none() && tail.is_empty();
        pos = put_block(out, pos, MINI_BLOCK, chunk, last)?;
    }
    let mut blocks = tail.chunks(BLOCK_SIZE).peekable();
    while let Some(chunk) = blocks.next() {
        let last = blocks.peek().is_none();
        pos = put_block(out, pos, BLOCK_SIZE, chunk, last)?;
    }
    Ok(pos)
}

/// Writes the encoding of a valid list of the child rows `r` at the start of
/// `out`; returns its length ([`list_len`]).
///
/// # Errors
/// [`Error::OutOfBounds`] when `out` is too short.
pub(crate) fn encode_list<A: Allocator>(
    child: &Rows<A>,
    r: Range<usize>,
    opts: SortOptions,
    out: &mut [u8],
) -> Result<usize> {
    let mut pos = 0;
    for j in r {
        let row = child.span_bytes(j, j + 1)?;
        pos += write_element(out.get_mut(pos..).ok_or(Error::OutOfBounds)?, row)?;
    }
    *out.get_mut(pos).ok_or(Error::OutOfBounds)? = EMPTY;
    pos += 1;
    if opts.descending {
        out.get_mut(..pos)
            .ok_or(Error::OutOfBounds)?
            .iter_mut()
            .for_each(|b| *b = !*b);
    }
    Ok(pos)
}

/// Reads the blocks of one element (its `0x02` already consumed) from the
/// front of `row`, appending the element's row to `out` when given.
///
/// # Errors
/// [`Error::InvalidRow`]: a truncated row, a length byte out of range,
/// non-zero padding, or a zero length anywhere but a lone first mini-block.
fn read_element<A: Allocator>(
    row: &mut &[u8],
    flip: u8,
    mut out: Option<&mut MutableBuffer<A>>,
) -> Result<()> {
    let mut k = 0usize;
    loop {
        let size = if k < MINI_BLOCKS {
            MINI_BLOCK
        } else {
            BLOCK_SIZE
        };
        let block = take(row, size + 1)?;
        let (data, marker) = block.split_at(size);
        let marker = marker.first().copied().ok_or(Error::InvalidRow)? ^ flip;
        let n = if marker == CONTINUATION {
            size
        } else {
            let n = usize::from(marker);
            if n > size || (n == 0 && k != 0) {
                return Err(Error::InvalidRow);
            }
            if data.iter().skip(n).any(|&b| b != flip) {
                return Err(Error::InvalidRow);
            }
            n
        };
        if let Some(out) = out.as_deref_mut() {
            let start = out.len();
            out.try_extend_from_slice(data.get(..n).ok_or(Error::InvalidRow)?)?;
            if flip != 0 {
                if let Some(new) = out.as_slice_mut().get_mut(start..) {
                    new.iter_mut().for_each(|b| *b = !*b);
                }
            }
        }
        if marker != CONTINUATION {
            return Ok(());
        }
        k += 1;
    }
}

/// Decodes the list at the front of `row`: appends each element's row to
/// `scratch` and its end (an offset into `scratch`) to `ends`, advances
/// `row` past the list; returns `None` for a null list, else the number of
/// elements.
///
/// # Errors
/// [`Error::InvalidRow`] for a malformed list, [`Error::AllocationFailed`].
fn decode_list<A: Allocator>(
    row: &mut &[u8],
    opts: SortOptions,
    scratch: &mut MutableBuffer<A>,
    ends: &mut TryVec<usize, A>,
) -> Result<Option<usize>> {
    let (&first, _) = row.split_first().ok_or(Error::InvalidRow)?;
    if first == opts.null_sentinel() {
        *row = row.get(1..).ok_or(Error::InvalidRow)?;
        return Ok(None);
    }
    let flip = if opts.descending { 0xFF } else { 0 };
    let mut count = 0usize;
    loop {
        let (&b, rest) = row.split_first().ok_or(Error::InvalidRow)?;
        *row = rest;
        match b ^ flip {
            EMPTY => return Ok(Some(count)),
            NON_EMPTY => {
                read_element(row, flip, Some(scratch))?;
                ends.try_push(scratch.len())?;
                count += 1;
            }
            _ => return Err(Error::InvalidRow),
        }
    }
}

/// Length of the list at the front of `row`.
///
/// # Errors
/// [`Error::InvalidRow`] for a malformed list.
pub(crate) fn skip_list(row: &[u8], opts: SortOptions) -> Result<usize> {
    let mut r = row;
    let (&first, _) = r.split_first().ok_or(Error::InvalidRow)?;
    if first == opts.null_sentinel() {
        return Ok(1);
    }
    let flip = if opts.descending { 0xFF } else { 0 };
    loop {
        let (&b, rest) = r.split_first().ok_or(Error::InvalidRow)?;
        r = rest;
        match b ^ flip {
            EMPTY => return Ok(row.len() - r.len()),
            NON_EMPTY => read_element::<crate::NoAlloc>(&mut r, flip, None)?,
            _ => return Err(Error::InvalidRow),
        }
    }
}

/// Decodes the lists (element by element) at the front of each row.
///
/// # Errors
/// [`Error::InvalidRow`] for a malformed list or element rows with bytes
/// left over; the elements' decoding errors.
pub(super) fn decode_lists<'a, A: Allocator + Clone>(
    node: &Node<'a, A>,
    child: &Node<'a, A>,
    dicts: &[Interner<A>],
    rows: &mut [&[u8]],
    alloc: &A,
) -> Result<Decoded<'a, A>> {
    let mut scratch = MutableBuffer::new_in(alloc.clone());
    let mut ends = TryVec::new_in(alloc.clone());
    let mut counts = TryVec::new_in(alloc.clone());
    let mut nulls = NullBufferBuilder::new_in(alloc.clone());
    let mut total = 0usize;
    for row in rows.iter_mut() {
        let count = decode_list(row, node.options, &mut scratch, &mut ends)?;
        nulls.try_append(count.is_some())?;
        let count = count.unwrap_or(0);
        total = total.checked_add(count).ok_or(Error::InvalidRow)?;
        counts.try_push(count)?;
    }
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
