//! Lists in the seed's "canonical byte array" layout
//! ([`crate::row::RowEncoding::Seed`], and the unordered encoding).
//!
//! The elements of a list are encoded to rows; a canonical byte array is
//! made of the elements' rows back to back, then the length of each
//! element row and the number of elements, as big-endian `u32`s; that byte
//! array is then encoded as variable-length bytes ([`crate::row::variable`]):
//! a null list is the null sentinel, an empty list the empty byte array
//! (`0x01`), any other list `0x02` and 32-byte blocks. When descending the
//! whole encoding is inverted, so the elements are encoded ascending, with
//! nulls first exactly when the column wants nulls first after inversion
//! (`nulls_first != descending`).
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
//! ([`super::elements`]) has no such case.

use core::ops::Range;

use allocator_api2::alloc::Allocator;

use super::Decoded;
use crate::buffer::{MutableBuffer, NullBufferBuilder, TryVec};
use crate::error::{Error, Result};
use crate::row::decode_column;
use crate::row::interner::Interner;
use crate::row::variable::{self, BlockWriter, BLOCK_SIZE, EMPTY, UNORDERED_NULL};
use crate::row::{Node, Rows, SortOptions};

/// Encoded size of a list (`None`: null) of the child rows `range`.
///
/// # Errors
/// [`Error::CapacityOverflow`]; [`Error::OutOfBounds`] for rows not in `child`.
pub(super) fn list_len<A: Allocator>(
    child: &Rows<A>,
    range: Option<Range<usize>>,
    unordered: bool,
) -> Result<usize> {
    let canonical = match range {
        Some(r) => Some(canonical_len(r.len(), child.span(r.start, r.end)?)?),
        None => None,
    };
    variable::value_len(canonical, unordered)
}

/// Writes a list (`None`: null) of the child rows `range` at the front of
/// `out`; returns the bytes written.
///
/// # Errors
/// [`Error::OutOfBounds`] when `out` is short; [`Error::CapacityOverflow`].
pub(super) fn encode_list<A: Allocator>(
    child: &Rows<A>,
    range: Option<Range<usize>>,
    opts: SortOptions,
    unordered: bool,
    out: &mut [u8],
) -> Result<usize> {
    Ok(match (range, unordered) {
        (None, false) => {
            *out.first_mut().ok_or(Error::OutOfBounds)? = opts.null_sentinel();
            1
        }
        (None, true) => {
            write_at(out, 0, &UNORDERED_NULL.to_le_bytes())?;
            4
        }
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
    })
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
    match c.len().checked_sub(4) {
        None if c.is_empty() => Ok(0),
        Some(at) => be_u32(c, at),
        None => Err(Error::InvalidRow),
    }
}

/// Decodes the lists (canonical layout) at the front of each row.
///
/// # Errors
/// [`Error::InvalidRow`] (bad blocks, lengths that disagree, element rows
/// with bytes left over) and the elements' decoding errors.
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
        let start = scratch.len();
        let valid = if node.unordered {
            variable::decode_unordered(row, &mut scratch)?
        } else {
            variable::decode_ordered::<BLOCK_SIZE, A>(row, node.options, &mut scratch)?
        };
        let count = parse_canonical(scratch.as_slice().get(start..).ok_or(Error::OutOfBounds)?)?;
        total = total.checked_add(count).ok_or(Error::InvalidRow)?;
        ends.try_push(scratch.len())?;
        counts.try_push(count)?;
        nulls.try_append(valid)?;
    }
    let mut it = Elements {
        scratch: scratch.as_slice(),
        ends: &ends,
        row: 0,
        start: 0,
        pos: 0,
        k: 0,
    };
    let mut cursors = TryVec::try_from_fn_in(total, alloc.clone(), |_| it.next())?;
    let values = decode_column(child, dicts, &mut cursors, false, alloc)?;
    if cursors.iter().any(|c| !c.is_empty()) {
        return Err(Error::InvalidRow);
    }
    Ok(Decoded {
        counts,
        nulls: nulls.finish(),
        values,
    })
}
