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
//!
//! Blocks are copied whole (8 or 32 bytes at a time, the padding masked),
//! never byte by byte or through a copy of variable length.

use core::mem::size_of;
use core::ops::Range;

use allocator_api2::alloc::Allocator;

use super::Decoded;
use crate::array::Array;
use crate::buffer::{Appender, NullBufferBuilder, TryVec};
use crate::error::{Error, Result};
use crate::row::decode::match_primitive;
use crate::row::decode_column;
use crate::row::fixed::{self, FixedEncode};
use crate::row::interner::Interner;
use crate::row::variable::{BLOCK_SIZE, CONTINUATION, EMPTY, NON_EMPTY};
use crate::row::{Kind, Node, SortOptions};

/// Bytes of a mini-block.
const MINI_BLOCK: usize = 8;
/// Mini-blocks before the full-size blocks start (`4 × 8 = 32` bytes).
const MINI_BLOCKS: usize = BLOCK_SIZE / MINI_BLOCK;

/// Encoded size of one element whose row is `len` bytes.
///
/// # Errors
/// [`Error::CapacityOverflow`].
#[inline]
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

/// The child row offsets `offsets[r.start..=r.end]` of a valid list of the
/// child rows `r` (empty for `[]`).
///
/// # Errors
/// [`Error::OutOfBounds`] for rows not in the child.
#[inline]
fn row_offsets(offsets: &[usize], r: Range<usize>) -> Result<&[usize]> {
    if r.is_empty() {
        return Ok(&[]);
    }
    offsets.get(r.start..=r.end).ok_or(Error::OutOfBounds)
}

/// Encoded size of a valid list of the child rows `r` (`offsets`: the
/// child rows' offsets).
///
/// # Errors
/// [`Error::CapacityOverflow`], [`Error::OutOfBounds`] for rows not in the child.
#[inline]
pub(crate) fn list_len(offsets: &[usize], r: Range<usize>) -> Result<usize> {
    let mut n = 1usize; // the terminator
    for w in row_offsets(offsets, r)?.windows(2) {
        let &[a, b] = w else { continue };
        let e = element_len(b.checked_sub(a).ok_or(Error::OutOfBounds)?)?;
        n = n.checked_add(e).ok_or(Error::CapacityOverflow)?;
    }
    Ok(n)
}

/// The low `n` bytes (0 to 8) of a little-endian word kept, the others zero.
#[inline(always)]
fn low_bytes(n: usize) -> u64 {
    // `n <= 8`: the shift is 0 to 64 (`None` for 64: keep nothing).
    u64::MAX
        .checked_shr(64u32.saturating_sub(8 * n as u32))
        .unwrap_or(0)
}

/// Writes one element (ascending) whose row is `data[start..end]` at the
/// start of `out`; returns its length ([`element_len`]).
///
/// Rows of at most 32 bytes with 8 readable bytes past each mini-block's
/// start in `data` (all but the last rows of a buffer) are copied a word
/// at a time, the padding masked off; the others block by block.
///
/// # Errors
/// [`Error::OutOfBounds`] when `out` is too short or the row not in `data`.
#[inline(always)]
fn write_element(out: &mut [u8], data: &[u8], start: usize, end: usize) -> Result<usize> {
    let len = end.checked_sub(start).ok_or(Error::OutOfBounds)?;
    if len <= BLOCK_SIZE {
        let minis = len.div_ceil(MINI_BLOCK).max(1);
        let n = 1 + minis * (MINI_BLOCK + 1);
        let src = data.get(start..start.saturating_add(minis * MINI_BLOCK));
        if let (Some(dst), Some(src)) = (out.get_mut(..n), src) {
            let (head, blocks) = dst.split_first_mut().ok_or(Error::OutOfBounds)?;
            *head = NON_EMPTY;
            let mut left = len;
            // Indexed, not zipped chunk iterators (their lengths cost a
            // division each); `minis <= 4`, the ranges checked above.
            for k in 0..minis {
                let (Some(d), Some(s)) = (
                    blocks.get_mut(k * (MINI_BLOCK + 1)..(k + 1) * (MINI_BLOCK + 1)),
                    src.get(k * MINI_BLOCK..(k + 1) * MINI_BLOCK),
                ) else {
                    return Err(Error::OutOfBounds);
                };
                let (Some((d, marker)), Some(s)) =
                    (d.split_first_chunk_mut::<MINI_BLOCK>(), s.first_chunk())
                else {
                    return Err(Error::OutOfBounds);
                };
                let keep = left.min(MINI_BLOCK);
                *d = (u64::from_le_bytes(*s) & low_bytes(keep)).to_le_bytes();
                // `keep <= 8`.
                let m = if left > MINI_BLOCK {
                    CONTINUATION
                } else {
                    keep as u8
                };
                *marker.first_mut().ok_or(Error::OutOfBounds)? = m;
                left -= keep;
            }
            return Ok(n);
        }
    }
    write_blocks(out, data.get(start..end).ok_or(Error::OutOfBounds)?)
}

/// [`write_element`] block by block, for any row.
fn write_blocks(out: &mut [u8], row: &[u8]) -> Result<usize> {
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

/// Writes the encoding of a valid list of the child rows `r` (their bytes
/// `data`, their offsets `offsets`) at the start of `out`; returns its
/// length ([`list_len`]).
///
/// # Errors
/// [`Error::OutOfBounds`] when `out` is too short.
#[inline]
pub(crate) fn encode_list(
    data: &[u8],
    offsets: &[usize],
    r: Range<usize>,
    opts: SortOptions,
    out: &mut [u8],
) -> Result<usize> {
    let mut pos = 0;
    for w in row_offsets(offsets, r)?.windows(2) {
        let &[a, b] = w else { continue };
        pos += write_element(out.get_mut(pos..).ok_or(Error::OutOfBounds)?, data, a, b)?;
    }
    terminate(out, pos, opts)
}

/// The shape of the elements of lists whose child rows are all `width`
/// bytes (the rows of a fixed-width leaf type, back to back).
#[derive(Clone, Copy)]
pub(crate) struct Uniform {
    pub(crate) width: usize,
    /// Encoded size of one element ([`element_len`]).
    element: usize,
    /// Mini-blocks of an element (0 for an empty row or one over 32 bytes:
    /// those are written block by block).
    pub(crate) minis: usize,
    /// Bytes of the last mini-block (1 to 8).
    keep: usize,
}

impl Uniform {
    /// The shape of elements whose rows are `width` bytes.
    ///
    /// # Errors
    /// [`Error::CapacityOverflow`].
    #[inline]
    pub(crate) fn new(width: usize) -> Result<Self> {
        let minis = width.div_ceil(MINI_BLOCK);
        Ok(Uniform {
            width,
            element: element_len(width)?,
            minis: if minis <= MINI_BLOCKS { minis } else { 0 },
            keep: width.saturating_sub(minis.saturating_sub(1) * MINI_BLOCK),
        })
    }
}

/// Bytes that rows of a fixed-width leaf type are followed by in the
/// buffer [`encode_uniform`] reads (zeros): each element's mini-blocks are
/// read a word at a time, up to 31 bytes past the last row's end.
pub(crate) const UNIFORM_PADDING: usize = BLOCK_SIZE;

/// Writes the encoding of a valid list of the child rows `r` of the shape
/// `u` (back to back in `data`, followed by [`UNIFORM_PADDING`] bytes) at
/// the start of `out`; returns its length. Each element's `M` mini-blocks
/// (`E = 1 + 9 × M` bytes, read as `S = 8 × M` bytes from the row's start)
/// are copied a word at a time, the last masked to `u.keep` bytes; `M` is
/// `u.minis` (1 to 4: rows of 1 to 32 bytes).
///
/// # Errors
/// [`Error::OutOfBounds`] when `out` is too short or the rows (and their
/// padding) are not in `data`; [`Error::CapacityOverflow`].
#[inline(always)]
pub(crate) fn encode_uniform<const M: usize, const E: usize, const S: usize>(
    data: &[u8],
    u: Uniform,
    r: Range<usize>,
    opts: SortOptions,
    out: &mut [u8],
) -> Result<usize> {
    let size = E.checked_mul(r.len()).ok_or(Error::CapacityOverflow)?;
    let mut at = r
        .start
        .checked_mul(u.width)
        .ok_or(Error::CapacityOverflow)?;
    let mask = low_bytes(u.keep);
    // `keep <= 8`.
    let marker = u.keep as u8;
    for d in out
        .get_mut(..size)
        .ok_or(Error::OutOfBounds)?
        .chunks_exact_mut(E)
    {
        let (Some(d), Some(s)) = (
            d.first_chunk_mut::<E>(),
            data.get(at..).and_then(|s| s.first_chunk::<S>()),
        ) else {
            return Err(Error::OutOfBounds);
        };
        at += u.width;
        d[0] = NON_EMPTY;
        for m in 0..M {
            let (Some(word), Some(block)) = (
                s.get(m * MINI_BLOCK..).and_then(|w| w.first_chunk()),
                d.get_mut(1 + m * (MINI_BLOCK + 1)..)
                    .and_then(|b| b.first_chunk_mut::<{ MINI_BLOCK + 1 }>()),
            ) else {
                return Err(Error::OutOfBounds);
            };
            let word = u64::from_le_bytes(*word);
            let last = m + 1 == M;
            let (b, t) = block.split_at_mut(MINI_BLOCK);
            b.copy_from_slice(&(if last { word & mask } else { word }).to_le_bytes());
            if let Some(t) = t.first_mut() {
                *t = if last { marker } else { CONTINUATION };
            }
        }
    }
    terminate(out, size, opts)
}

/// Writes the terminator of a list whose elements are `out[..pos]`, and
/// inverts the list's bytes when descending; returns the list's length.
///
/// # Errors
/// [`Error::OutOfBounds`] when `out` is too short.
#[inline(always)]
fn terminate(out: &mut [u8], pos: usize, opts: SortOptions) -> Result<usize> {
    let list = out.get_mut(..=pos).ok_or(Error::OutOfBounds)?;
    if let Some(t) = list.last_mut() {
        *t = EMPTY;
    }
    if opts.descending {
        list.iter_mut().for_each(|b| *b = !*b);
    }
    Ok(pos + 1)
}

/// Writes the encoding of a valid list of the child rows `r`, each `width`
/// bytes back to back in `data`, element by element ([`write_element`]):
/// for rows of no or more than 32 bytes, which [`encode_uniform`] does not
/// take.
///
/// # Errors
/// [`Error::OutOfBounds`] when `out` is too short or the rows are not in
/// `data`; [`Error::CapacityOverflow`].
pub(crate) fn encode_uniform_blocks(
    data: &[u8],
    width: usize,
    r: Range<usize>,
    opts: SortOptions,
    out: &mut [u8],
) -> Result<usize> {
    let mut pos = 0;
    for j in r {
        let a = j.checked_mul(width).ok_or(Error::CapacityOverflow)?;
        let e = out.get_mut(pos..).ok_or(Error::OutOfBounds)?;
        pos += write_element(e, data, a, a + width)?;
    }
    terminate(out, pos, opts)
}

/// Reads the blocks of one element (its `0x02` already consumed) from the
/// front of `row`, checking them, and appends the element's row to `out`
/// when given, a whole block at a time. `flip` is `0xFF` when descending.
///
/// # Errors
/// [`Error::InvalidRow`]: a truncated row, a length byte out of range,
/// non-zero padding, or a zero length anywhere but a lone first mini-block;
/// [`Error::OutOfBounds`] when `out` has no room for a whole block.
#[inline(always)]
fn read_element(row: &mut &[u8], flip: u8, mut out: Option<&mut Appender<'_>>) -> Result<()> {
    let flip_word = u64::from_ne_bytes([flip; MINI_BLOCK]);
    for k in 0..MINI_BLOCKS {
        let (block, rest) = row
            .split_first_chunk::<{ MINI_BLOCK + 1 }>()
            .ok_or(Error::InvalidRow)?;
        *row = rest;
        let (data, marker) = block
            .split_first_chunk::<MINI_BLOCK>()
            .ok_or(Error::InvalidRow)?;
        let marker = marker.first().copied().ok_or(Error::InvalidRow)? ^ flip;
        let word = u64::from_le_bytes(*data) ^ flip_word;
        let n = if marker == CONTINUATION {
            MINI_BLOCK
        } else {
            usize::from(marker)
        };
        if n > MINI_BLOCK || (n == 0 && k != 0) || word & !low_bytes(n) != 0 {
            return Err(Error::InvalidRow);
        }
        if let Some(out) = out.as_deref_mut() {
            out.put_prefix(&word.to_le_bytes(), n)?;
        }
        if marker != CONTINUATION {
            return Ok(());
        }
    }
    loop {
        let (block, rest) = row
            .split_first_chunk::<{ BLOCK_SIZE + 1 }>()
            .ok_or(Error::InvalidRow)?;
        *row = rest;
        let (data, marker) = block
            .split_first_chunk::<BLOCK_SIZE>()
            .ok_or(Error::InvalidRow)?;
        let marker = marker.first().copied().ok_or(Error::InvalidRow)? ^ flip;
        let n = if marker == CONTINUATION {
            BLOCK_SIZE
        } else {
            usize::from(marker)
        };
        let mut tmp = [0u8; BLOCK_SIZE];
        let mut bad = 0u8;
        for (j, (d, s)) in tmp.iter_mut().zip(data).enumerate() {
            *d = s ^ flip;
            bad |= *d & 0u8.wrapping_sub(u8::from(j >= n));
        }
        if n == 0 || n > BLOCK_SIZE || bad != 0 {
            return Err(Error::InvalidRow);
        }
        if let Some(out) = out.as_deref_mut() {
            out.put_prefix(&tmp, n)?;
        }
        if marker != CONTINUATION {
            return Ok(());
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
            NON_EMPTY => read_element(&mut r, flip, None)?,
            _ => return Err(Error::InvalidRow),
        }
    }
}

/// Decodes the list at the front of `row` (advancing it past the list):
/// appends each element's row to `out`, calling `element(start, end)` with
/// its place in the buffer `out` appends to; returns `None` for a null
/// list, else the number of elements.
///
/// # Errors
/// [`Error::InvalidRow`] for a malformed list; `element`'s errors.
#[inline(always)]
fn decode_list(
    row: &mut &[u8],
    null: u8,
    flip: u8,
    out: &mut Appender<'_>,
    mut element: impl FnMut(usize, usize) -> Result<()>,
) -> Result<Option<usize>> {
    let (&first, _) = row.split_first().ok_or(Error::InvalidRow)?;
    if first == null {
        *row = row.get(1..).ok_or(Error::InvalidRow)?;
        return Ok(None);
    }
    let mut count = 0usize;
    loop {
        let (&b, rest) = row.split_first().ok_or(Error::InvalidRow)?;
        *row = rest;
        match b ^ flip {
            EMPTY => return Ok(Some(count)),
            NON_EMPTY => {
                let start = out.pos();
                read_element(row, flip, Some(out))?;
                element(start, out.pos())?;
                count += 1;
            }
            _ => return Err(Error::InvalidRow),
        }
    }
}

/// Decodes the lists (element by element) at the front of each row.
///
/// Elements of a primitive type decode straight from the rows
/// ([`decode_primitive_lists`]). The others' rows are appended to one
/// scratch buffer with room for the rows' bytes (an element's row is
/// shorter than its encoding) and a block more, made once and not zeroed
/// first, and decode from there through a cursor per element.
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
    if matches!(child.kind, Kind::Leaf) {
        macro_rules! prim {
            ($t:ty) => {
                if size_of::<$t>() < BLOCK_SIZE {
                    return decode_primitive_lists::<$t, A>(node.options, child, rows, alloc);
                }
            };
        }
        match_primitive!(child.decoded(), prim, { _ => {} });
    }
    let opts = node.options;
    let (null, flip) = (opts.null_sentinel(), if opts.descending { 0xFF } else { 0 });
    let room = rows
        .iter()
        .fold(BLOCK_SIZE, |t, r| t.saturating_add(r.len()));
    let mut scratch = TryVec::<u8, A>::new_in(alloc.clone());
    let mut ends = TryVec::new_in(alloc.clone());
    // Two elements a list, to start with.
    ends.try_reserve(rows.len().saturating_mul(2))?;
    let mut counts = TryVec::new_in(alloc.clone());
    counts.try_reserve_exact(rows.len())?;
    let mut nulls = NullBufferBuilder::new_in(alloc.clone());
    let mut total = 0usize;
    scratch.try_extend_appended(room, |w| {
        for row in rows.iter_mut() {
            let count = decode_list(row, null, flip, w, |_, end| ends.try_push(end))?;
            nulls.try_append(count.is_some())?;
            let count = count.unwrap_or(0);
            total = total.checked_add(count).ok_or(Error::InvalidRow)?;
            counts.try_push(count)?;
        }
        Ok(())
    })?;
    let bytes = scratch.as_slice();
    let mut start = 0;
    let mut cursors = TryVec::try_from_fn_in(total, alloc.clone(), |k| {
        let end = *ends.get(k).ok_or(Error::InvalidRow)?;
        let row = bytes.get(start..end).ok_or(Error::InvalidRow)?;
        start = end;
        Ok(row)
    })?;
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

/// Decodes lists of elements of the primitive type `T` (narrower than 32
/// bytes: every primitive but Decimal256) straight from the rows.
///
/// An element's row is then `1 + size_of::<T>()` bytes, at most 32, so
/// every element takes the same `1 + 9 × m` bytes: `0x02` and `m`
/// mini-blocks. A first pass finds each list's length from the bytes that
/// start its elements and its terminator; the values then decode from the
/// mini-blocks' words, each checked (`0xFF` after each but the last, whose
/// marker is the bytes it holds and whose padding is zero), and the row
/// they hold read as a fixed-width piece ([`fixed::read_piece`]). No
/// scratch buffer, no cursor per element.
///
/// # Errors
/// [`Error::InvalidRow`] for a malformed list or an element of another
/// length; the primitive decoding's errors.
fn decode_primitive_lists<'a, T: FixedEncode, A: Allocator + Clone>(
    opts: SortOptions,
    child: &Node<'a, A>,
    rows: &mut [&[u8]],
    alloc: &A,
) -> Result<Decoded<'a, A>> {
    let width = size_of::<T::Bytes>();
    // The elements' shape: 1 to 4 mini-blocks (`width + 1 <= 32`), the last
    // holding `keep` bytes (1 to 8).
    let u = Uniform::new(width + 1)?;
    let (blocks, size) = (u.minis, u.element);
    let last_marker = u8::try_from(u.keep).map_err(|_| Error::InvalidRow)?;
    let padding = !low_bytes(u.keep);
    let (null, flip) = (opts.null_sentinel(), if opts.descending { 0xFF } else { 0 });
    let flip_word = u64::from_ne_bytes([flip; MINI_BLOCK]);
    let mut counts = TryVec::new_in(alloc.clone());
    counts.try_reserve_exact(rows.len())?;
    let mut nulls = NullBufferBuilder::new_in(alloc.clone());
    let mut total = 0usize;
    for row in rows.iter() {
        let (&first, _) = row.split_first().ok_or(Error::InvalidRow)?;
        let mut count = 0usize;
        if first != null {
            let mut at = 0usize;
            loop {
                match row.get(at).ok_or(Error::InvalidRow)? ^ flip {
                    EMPTY => break,
                    NON_EMPTY => at = at.checked_add(size).ok_or(Error::InvalidRow)?,
                    _ => return Err(Error::InvalidRow),
                }
                count += 1;
            }
        }
        nulls.try_append(first != null)?;
        total = total.checked_add(count).ok_or(Error::InvalidRow)?;
        counts.try_push(count)?;
    }
    // Element `k` of row `r` is next.
    let (mut r, mut k) = (0usize, 0usize);
    let value = |_| -> Result<Option<T>> {
        while k == *counts.get(r).ok_or(Error::InvalidRow)? {
            (r, k) = (r + 1, 0);
        }
        let at = k * size + 1;
        k += 1;
        let src = rows
            .get(r)
            .and_then(|row| row.get(at..))
            .ok_or(Error::InvalidRow)?;
        // The element's row, 8 bytes a mini-block.
        let mut bytes = [0u8; BLOCK_SIZE];
        for (j, dst) in bytes.chunks_exact_mut(MINI_BLOCK).enumerate().take(blocks) {
            let (data, rest) = src
                .get(j * (MINI_BLOCK + 1)..)
                .and_then(|b| b.split_first_chunk::<MINI_BLOCK>())
                .ok_or(Error::InvalidRow)?;
            let marker = rest.first().ok_or(Error::InvalidRow)? ^ flip;
            let word = u64::from_le_bytes(*data) ^ flip_word;
            let ok = if j + 1 < blocks {
                marker == CONTINUATION
            } else {
                marker == last_marker && word & padding == 0
            };
            if !ok {
                return Err(Error::InvalidRow);
            }
            dst.copy_from_slice(&word.to_le_bytes());
        }
        // Ascending elements (the list's bytes are inverted as a whole).
        let piece = bytes.get(..=width).ok_or(Error::InvalidRow)?;
        fixed::read_piece::<T>(piece, child.options, false)
    };
    let values = fixed::decode_values::<T, A>(total, value, child.decoded(), alloc)?;
    for (row, &count) in rows.iter_mut().zip(counts.iter()) {
        let taken = match row.first() {
            Some(&b) if b == null => 1,
            _ => count * size + 1,
        };
        *row = row.get(taken..).ok_or(Error::InvalidRow)?;
    }
    Ok(Decoded {
        counts,
        nulls: nulls.finish(),
        values: values.into_array_ref(),
    })
}

#[cfg(test)]
mod tests {
    use std::vec::Vec;

    use crate::array::Array;
    use crate::datatypes::DataType;
    use crate::error::Error;
    use crate::row::test_model::{build, field, value_at, V};
    use crate::row::{Row, RowConverter, SortField, SortOptions};

    /// An element's bytes as the module documentation describes them
    /// (ascending), block by block: the reference.
    fn element(row: &[u8]) -> Vec<u8> {
        let mut out = std::vec![0x02];
        let (head, tail) = row.split_at(row.len().min(32));
        let mut blocks: Vec<(&[u8], usize)> = head.chunks(8).map(|c| (c, 8)).collect();
        blocks.extend(tail.chunks(32).map(|c| (c, 32)));
        if blocks.is_empty() {
            blocks.push((&[], 8));
        }
        let last = blocks.len() - 1;
        for (k, (c, size)) in blocks.into_iter().enumerate() {
            out.extend_from_slice(c);
            out.resize(out.len() + size - c.len(), 0);
            out.push(if k == last { c.len() as u8 } else { 0xFF });
        }
        out
    }

    /// Lists of rows of one width, written by the word-at-a-time writer
    /// made for their mini-blocks ([`super::encode_uniform`], 1 to 32
    /// bytes) or block by block ([`super::encode_uniform_blocks`], no or
    /// more than 32 bytes), are the reference's elements and terminator,
    /// inverted when descending; the last row of the buffer is read
    /// through the padding. Too short an output is an error.
    #[test]
    fn uniform_lists_are_the_reference_elements_for_every_width() {
        use super::{encode_uniform, encode_uniform_blocks, Uniform, UNIFORM_PADDING};
        for width in 0..=40usize {
            let rows = 5;
            let mut data: Vec<u8> = (0..width * rows).map(|i| (i * 37 + width) as u8).collect();
            data.resize(data.len() + UNIFORM_PADDING, 0);
            let u = Uniform::new(width).unwrap();
            for descending in [false, true] {
                let opts = SortOptions::new(descending, false);
                // The last three rows: the buffer's end is read.
                let r = 2..rows;
                let mut want: Vec<u8> = r
                    .clone()
                    .flat_map(|j| element(&data[j * width..(j + 1) * width]))
                    .collect();
                want.push(0x01);
                if descending {
                    want.iter_mut().for_each(|b| *b = !*b);
                }
                let write = |out: &mut [u8]| match u.minis {
                    1 => encode_uniform::<1, 10, 8>(&data, u, r.clone(), opts, out),
                    2 => encode_uniform::<2, 19, 16>(&data, u, r.clone(), opts, out),
                    3 => encode_uniform::<3, 28, 24>(&data, u, r.clone(), opts, out),
                    4 => encode_uniform::<4, 37, 32>(&data, u, r.clone(), opts, out),
                    _ => encode_uniform_blocks(&data, width, r.clone(), opts, out),
                };
                assert_eq!(
                    u.minis,
                    if (1..=32).contains(&width) {
                        width.div_ceil(8)
                    } else {
                        0
                    }
                );
                let mut out = std::vec![0xAA; want.len() + 3];
                assert_eq!(write(&mut out), Ok(want.len()), "width {width}");
                assert_eq!(&out[..want.len()], &want[..], "width {width}");
                let mut short = std::vec![0; want.len() - 1];
                assert_eq!(write(&mut short), Err(Error::OutOfBounds), "width {width}");
            }
        }
    }

    /// The element-by-element encoding of integer lists is canonical, so a row
    /// with any one byte changed must either fail with `InvalidRow` or
    /// decode to values whose rows are exactly the changed bytes (or, for
    /// a decimal, be refused for its precision): checked
    /// for every byte and four replacement values, with elements of 1, 2
    /// and 3 mini-blocks, both list types and every `SortOptions`.
    #[test]
    fn changed_bytes_of_integer_lists_fail_or_re_encode_exactly() {
        let lists = |v: fn(i128) -> V| {
            std::vec![
                V::L(std::vec![v(1), V::Null, v(-3)]),
                V::Null,
                V::L(std::vec![]),
                V::L(std::vec![v(7)]),
                V::L(std::vec![V::Null]),
            ]
        };
        let cases: [(DataType<'static>, Vec<V>); 3] = [
            (DataType::Int16, lists(V::I)),
            (DataType::UInt64, lists(|x| V::U(x.unsigned_abs() as u64))),
            (DataType::Decimal128(30, 2), lists(V::I)),
        ];
        let mut checked = 0;
        for (child, vals) in cases {
            for dt in [
                DataType::List(field("item", child.clone(), true)),
                DataType::LargeList(field("item", child.clone(), true)),
            ] {
                for (descending, nulls_first) in
                    [(false, false), (false, true), (true, false), (true, true)]
                {
                    let opts = SortOptions::new(descending, nulls_first);
                    let c = RowConverter::try_new(&[SortField::new_with_options(dt.clone(), opts)])
                        .unwrap();
                    let rows = c.convert_columns(&[build(&dt, &vals)]).unwrap();
                    let back = c.convert_all_rows(&rows).unwrap();
                    for (i, v) in vals.iter().enumerate() {
                        assert_eq!(&value_at(&back[0], i), v, "{dt:?} {opts:?} row {i}");
                    }
                    for i in 0..vals.len() {
                        let row = rows.row(i).unwrap().data().to_vec();
                        for at in 0..row.len() {
                            for x in [0x00, 0x01, 0xFE, row[at] ^ 0x01] {
                                let mut bad = row.clone();
                                bad[at] = x;
                                match c.convert_rows([Row::new(&bad)]) {
                                    // A decimal checks its precision too.
                                    Err(e) => assert!(
                                        e == Error::InvalidRow || e == Error::DecimalOutOfPrecision,
                                        "{e:?}"
                                    ),
                                    Ok(cols) => {
                                        let again = c.convert_columns(&cols).unwrap();
                                        assert_eq!(
                                            again.row(0).unwrap().data(),
                                            &bad[..],
                                            "{dt:?} {opts:?} row {i} byte {at} = {x:#x}"
                                        );
                                    }
                                }
                                checked += 1;
                            }
                        }
                    }
                }
            }
        }
        assert!(checked > 3000, "{checked}");
    }

    /// Lists of strings whose element rows (1 + 33 bytes per 32 bytes of
    /// string) take every block shape: the bytes are the reference's (the
    /// word-at-a-time copies of short rows and the block copies of long
    /// ones, the last rows of the child's buffer too), every value
    /// round-trips, and a changed length byte or padding byte of a 32-byte
    /// block is an error.
    #[test]
    fn element_blocks_exact_bytes_and_errors() {
        let dt = DataType::List(field("item", DataType::Utf8, true));
        let s = |n: usize| V::B((0..n).map(|i| b'a' + (i % 26) as u8).collect());
        let vals = [
            V::L(std::vec![s(0), s(1), V::Null]),
            V::L(std::vec![s(7), s(8), s(31)]),
            V::L(std::vec![s(32), s(33), s(64)]),
            V::Null,
            V::L(std::vec![]),
            V::L(std::vec![s(100), s(5)]),
        ];
        let string_row = |v: &V| -> Vec<u8> {
            match v {
                V::Null => std::vec![0x00],
                V::B(b) if b.is_empty() => std::vec![0x01],
                V::B(b) => {
                    let mut r = std::vec![0x02];
                    for c in b.chunks(32) {
                        r.extend_from_slice(c);
                        r.resize(r.len() + 32 - c.len(), 0);
                        r.push(0xFF);
                    }
                    *r.last_mut().unwrap() = (b.len() - 1) as u8 % 32 + 1;
                    r
                }
                _ => unreachable!(),
            }
        };
        for opts in [SortOptions::default(), SortOptions::new(true, false)] {
            let c =
                RowConverter::try_new(&[SortField::new_with_options(dt.clone(), opts)]).unwrap();
            let rows = c.convert_columns(&[build(&dt, &vals)]).unwrap();
            for (i, v) in vals.iter().enumerate() {
                let want = match v {
                    V::L(items) => {
                        // Elements ascending, nulls placed to land as asked.
                        let inner = SortOptions::new(false, opts.nulls_first != opts.descending);
                        let mut l: Vec<u8> = Vec::new();
                        for item in items {
                            let mut r = string_row(item);
                            if matches!(item, V::Null) {
                                r[0] = inner.null_sentinel();
                            }
                            l.extend(element(&r));
                        }
                        l.push(0x01);
                        if opts.descending {
                            l.iter_mut().for_each(|b| *b = !*b);
                        }
                        l
                    }
                    _ => std::vec![opts.null_sentinel()],
                };
                assert_eq!(rows.row(i).unwrap().data(), want, "{opts:?} row {i}");
            }
            let back = c.convert_all_rows(&rows).unwrap();
            assert_eq!(back[0].len(), vals.len());
            for (i, v) in vals.iter().enumerate() {
                assert_eq!(&value_at(&back[0], i), v, "{opts:?} row {i}");
            }
            // Row 5: `[s(100), s(5)]`; its first element's row is 133 bytes:
            // 4 mini-blocks, then 4 blocks of 32 (the third at 1 + 36 + 33 * 2).
            let flip = if opts.descending { 0xFF } else { 0 };
            let row = rows.row(5).unwrap().data().to_vec();
            let block = 1 + 36 + 33 * 3;
            // Its length byte 33 or 0, a padding byte after its 5 bytes.
            for (at, byte) in [(block + 32, 33u8), (block + 32, 0), (block + 31, 0x20)] {
                let mut bad = row.clone();
                bad[at] = byte ^ flip;
                assert_eq!(
                    c.convert_rows([Row::new(&bad)]).unwrap_err(),
                    Error::InvalidRow,
                    "{opts:?} byte {at}"
                );
            }
        }
    }
}
