//! Fixed-width encodings: integers, floats, decimals, temporal and interval
//! values, booleans and fixed-size binary.
//!
//! A value is one validity byte `0x01` followed by its order-preserving
//! bytes (inverted when descending); a null is the null sentinel (`0x00`, or
//! `0xFF` for nulls last) followed by as many zero bytes. So every row of a
//! fixed-width column has the same length: `1 + width`.
//!
//! - numbers, temporal and interval values: the bytes of
//!   [`FixedEncode`] (`native_order`: big-endian, sign bit flipped for
//!   signed types, floats normalised and made order-preserving);
//! - booleans: one byte `0x00` (false) or `0x01` (true);
//! - fixed-size binary: the bytes as they are.

use core::mem::size_of;

use allocator_api2::alloc::Allocator;

mod native_order;

use super::{take, SortOptions};
use crate::arch::prefetch;
use crate::array::{Array, ArrayRef, BooleanArray, FixedSizeBinaryArray, PrimitiveArray};
use crate::buffer::{
    BooleanBuffer, Buffer, MutableBuffer, NullBuffer, NullBufferBuilder, ScalarBuffer,
};
use crate::datatypes::DataType;
use crate::error::{Error, Result};
pub(crate) use native_order::{encoded_width, FixedEncode};

#[inline]
fn invert(bytes: &mut [u8]) {
    bytes.iter_mut().for_each(|b| *b = !*b);
}

/// Where each row's piece of a column goes.
pub(crate) enum Layout<'c> {
    /// Row `i` at `data[cursors[i]..]`; the cursors advance past the piece.
    Cursors(&'c mut [usize]),
    /// Row `i` at `data[i * width + offset..]` (every column fixed-width:
    /// `data` holds exactly the new rows; the caller sets the offsets).
    Stride {
        /// Row width in bytes.
        width: usize,
        /// This column's offset in each row.
        offset: usize,
    },
}

impl Layout<'_> {
    /// Number of rows (`data.len() / width` for a stride).
    pub(crate) fn rows(&self, data: &[u8]) -> usize {
        match self {
            Layout::Cursors(c) => c.len(),
            Layout::Stride { width, .. } => data.len().checked_div(*width).unwrap_or(0),
        }
    }
}

/// Calls `f(i, piece)` with the `w`-byte piece of every row `i` (the two
/// layouts get their own loop, `f` inlined in each).
///
/// # Errors
/// [`Error::OutOfBounds`] when `data` is too short (sizes were miscomputed).
#[inline(always)]
fn for_rows(
    data: &mut [u8],
    layout: &mut Layout<'_>,
    w: usize,
    mut f: impl FnMut(usize, &mut [u8]),
) -> Result<()> {
    match layout {
        Layout::Cursors(cursors) => {
            for (i, off) in cursors.iter_mut().enumerate() {
                let end = *off + w;
                f(i, data.get_mut(*off..end).ok_or(Error::OutOfBounds)?);
                *off = end;
            }
        }
        Layout::Stride { width, offset } => {
            let (width, offset) = (*width, *offset);
            if width == 0 || offset + w > width {
                return Err(Error::OutOfBounds);
            }
            for (i, row) in data.chunks_exact_mut(width).enumerate() {
                f(
                    i,
                    row.get_mut(offset..offset + w).ok_or(Error::OutOfBounds)?,
                );
            }
        }
    }
    Ok(())
}

/// The validity of slot `i` as `0xFF` (valid) or `0x00` (null), read
/// straight from the bitmap bytes (`bits`, from bit `offset`).
#[inline(always)]
fn valid_mask(bits: Option<(&[u8], usize)>, i: usize) -> u8 {
    match bits {
        None => 0xFF,
        Some((bytes, offset)) => {
            let j = offset + i;
            let bit = bytes.get(j / 8).map_or(0, |b| (b >> (j % 8)) & 1);
            0u8.wrapping_sub(bit)
        }
    }
}

/// The bitmap bytes and bit offset of `nulls`.
#[inline]
fn bitmap<'n>(nulls: Option<&'n NullBuffer<'_, impl Allocator>>) -> Option<(&'n [u8], usize)> {
    nulls.map(|n| (n.inner().inner().as_slice(), n.inner().offset()))
}

/// Writes one piece branch-free: `m` is `0xFF` for a value (`0x01` then
/// `bytes` XOR `flip`), `0x00` for a null (the sentinel, then zeros).
#[inline(always)]
fn put(out: &mut [u8], bytes: &[u8], m: u8, null: u8, flip: u8) {
    if let Some((head, tail)) = out.split_first_mut() {
        *head = null ^ ((1 ^ null) & m);
        for (o, b) in tail.iter_mut().zip(bytes) {
            *o = (b ^ flip) & m;
        }
    }
}

/// ANDs every byte of `b` with `m`, a word at a time (the compiler keeps
/// byte-wise masks byte-wise).
#[inline(always)]
fn and_mask(b: &mut [u8], m: u8) {
    let mut chunks = b.chunks_exact_mut(8);
    for c in &mut chunks {
        if let Ok(a) = <&mut [u8; 8]>::try_from(c) {
            *a = (u64::from_ne_bytes(*a) & (u64::from(m) * 0x0101_0101_0101_0101)).to_ne_bytes();
        }
    }
    let rest = chunks.into_remainder();
    if let Ok(a) = <&mut [u8; 4]>::try_from(&mut *rest) {
        *a = (u32::from_ne_bytes(*a) & (u32::from(m) * 0x0101_0101)).to_ne_bytes();
    } else if let Ok(a) = <&mut [u8; 2]>::try_from(&mut *rest) {
        *a = (u16::from_ne_bytes(*a) & (u16::from(m) * 0x0101)).to_ne_bytes();
    } else {
        rest.iter_mut().for_each(|x| *x &= m);
    }
}

/// [`put`] for a fixed-size value: the bytes are transformed as a whole
/// array (words), then stored at once.
#[inline(always)]
fn put_value_masked<T: FixedEncode>(out: &mut [u8], v: T, m: u8, null: u8, flip: u8) {
    let mut b = v.encode();
    if flip != 0 {
        b.as_mut().iter_mut().for_each(|x| *x = !*x);
    }
    if m != 0xFF {
        and_mask(b.as_mut(), m);
    }
    let b = b.as_ref();
    if let Some((head, tail)) = out.split_first_mut() {
        *head = null ^ ((1 ^ null) & m);
        if let Some(t) = tail.get_mut(..b.len()) {
            t.copy_from_slice(b);
        }
    }
}

/// [`put_value_masked`] for a valid value.
#[inline(always)]
fn put_value<T: FixedEncode>(out: &mut [u8], v: T, null: u8, flip: u8) {
    put_value_masked(out, v, 0xFF, null, flip);
}

/// Overwrites the `w`-byte piece at `i * width + offset` of every null row
/// `i < n` (per the bitmap `bits`) with the null sentinel and zeros. The
/// bitmap is read 64 bits at a time; only the null rows are touched.
/// Inlined, so that `w` is a constant and the zeroing a store or two.
#[inline(always)]
fn overwrite_nulls(
    data: &mut [u8],
    width: usize,
    offset: usize,
    w: usize,
    bits: (&[u8], usize),
    n: usize,
    null: u8,
) {
    for base in (0..n).step_by(64) {
        let left = n - base;
        let live = if left >= 64 {
            u64::MAX
        } else {
            (1u64 << left) - 1
        };
        let mut nulls = !word_at(bits, base) & live;
        while nulls != 0 {
            let i = base + nulls.trailing_zeros() as usize;
            nulls &= nulls - 1;
            let at = i * width + offset;
            if let Some((head, tail)) = data.get_mut(at..at + w).and_then(|p| p.split_first_mut()) {
                *head = null;
                tail.fill(0);
            }
        }
    }
}

/// Encodes `values` (one per row of `layout`) into `data`.
///
/// # Errors
/// [`Error::LengthMismatch`] when `values` and the rows differ in number;
/// [`Error::OutOfBounds`] when `data` is too short (sizes were miscomputed).
pub(crate) fn encode<T: FixedEncode>(
    data: &mut [u8],
    layout: &mut Layout<'_>,
    values: &[T],
    nulls: Option<&NullBuffer<'_, impl Allocator>>,
    opts: SortOptions,
) -> Result<()> {
    if values.len() != layout.rows(data) {
        return Err(Error::LengthMismatch);
    }
    let (null, flip) = (opts.null_sentinel(), if opts.descending { 0xFF } else { 0 });
    let w = encoded_width::<T>();
    // The flip a constant in each loop, so that the value's bytes are
    // transformed as one word; with cursors, nulls masked branch-free.
    macro_rules! rows {
        ($flip:expr) => {
            match bitmap(nulls) {
                None => for_rows(data, layout, w, |i, out| {
                    if let Some(&v) = values.get(i) {
                        put_value(out, v, null, $flip);
                    }
                }),
                Some(bits) if matches!(layout, Layout::Stride { .. }) => {
                    // As in `whole`: values everywhere, then the nulls.
                    for_rows(data, layout, w, |i, out| {
                        if let Some(&v) = values.get(i) {
                            put_value(out, v, null, $flip);
                        }
                    })?;
                    if let Layout::Stride { width, offset } = *layout {
                        overwrite_nulls(data, width, offset, w, bits, values.len(), null);
                    }
                    Ok(())
                }
                bits => for_rows(data, layout, w, |i, out| {
                    if let Some(&v) = values.get(i) {
                        put_value_masked(out, v, valid_mask(bits, i), null, $flip);
                    }
                }),
            }
        };
    }
    // One column making the whole row (the common case): rows of a
    // constant width zipped with the values, no index arithmetic.
    macro_rules! whole {
        ($flip:expr) => {{
            // Every row written as a value, then the null rows (found a
            // word of the bitmap at a time) overwritten: cheaper than
            // masking every row.
            data.chunks_exact_mut(w)
                .zip(values)
                .for_each(|(out, &v)| put_value(out, v, null, $flip));
            if let Some(bits) = bitmap(nulls) {
                overwrite_nulls(data, w, 0, w, bits, values.len(), null);
            }
            Ok(())
        }};
    }
    if matches!(layout, Layout::Stride { width, .. } if *width == w) {
        return if flip == 0 { whole!(0) } else { whole!(0xFF) };
    }
    if flip == 0 {
        rows!(0)
    } else {
        rows!(0xFF)
    }
}

/// Encodes a boolean column: rows of 2 bytes.
///
/// # Errors
/// As [`encode`].
pub(crate) fn encode_bool<A: Allocator>(
    data: &mut [u8],
    layout: &mut Layout<'_>,
    array: &BooleanArray<'_, A>,
    opts: SortOptions,
) -> Result<()> {
    if array.len() != layout.rows(data) {
        return Err(Error::LengthMismatch);
    }
    let (null, flip) = (opts.null_sentinel(), if opts.descending { 0xFF } else { 0 });
    let values = bitmap_of(array.values());
    let bits = bitmap(array.nulls());
    #[inline(always)]
    fn piece(out: &mut [u8], v8: u8, n8: u8, k: usize, null: u8, flip: u8) {
        let m = 0u8.wrapping_sub((n8 >> k) & 1);
        let v = ((v8 >> k) & 1) ^ flip;
        if let Some([head, value]) = out.get_mut(..2) {
            *head = null ^ ((1 ^ null) & m);
            *value = v & m;
        }
    }
    // The column makes the whole row: 8 rows (16 bytes) per bitmap byte.
    if matches!(layout, Layout::Stride { width: 2, .. }) {
        let n = array.len();
        let mut rows8 = data.chunks_exact_mut(16);
        for (j, r16) in (&mut rows8).enumerate() {
            let (v8, n8) = (
                byte_at(values, 8 * j),
                bits.map_or(0xFF, |b| byte_at(b, 8 * j)),
            );
            let (lo, hi) = r16.split_at_mut(8);
            lo.copy_from_slice(&rows4(v8, n8, null, flip));
            hi.copy_from_slice(&rows4(v8 >> 4, n8 >> 4, null, flip));
        }
        let base = n / 8 * 8;
        let (v8, n8) = (
            byte_at(values, base),
            bits.map_or(0xFF, |b| byte_at(b, base)),
        );
        for (k, out) in rows8.into_remainder().chunks_exact_mut(2).enumerate() {
            piece(out, v8, n8, k, null, flip);
        }
        return Ok(());
    }
    // The 8 value and validity bits of rows `i..i + 8`, read once per 8 rows.
    let (mut v8, mut n8) = (0u8, 0xFFu8);
    for_rows(data, layout, 2, |i, out| {
        if i % 8 == 0 {
            v8 = byte_at(values, i);
            n8 = bits.map_or(0xFF, |b| byte_at(b, i));
        }
        piece(out, v8, n8, i % 8, null, flip);
    })
}

/// The 8 bytes of 4 boolean rows (2 bytes each) from the low 4 value bits
/// `v4` and validity bits `n4`, computed in one word: each bit is spread to
/// its own 16-bit lane by a multiplication (the shifted copies of the
/// nibble, 15 bits apart, do not overlap), then the valid and null rows are
/// blended with a lane mask. Same bytes as the row-by-row rule: a value is
/// `0x01` then `bit ^ flip`, a null the sentinel then `0x00`.
#[inline(always)]
fn rows4(v4: u8, n4: u8, null: u8, flip: u8) -> [u8; 8] {
    const SPREAD: u64 = 1 | 1 << 15 | 1 << 30 | 1 << 45;
    const LANES: u64 = 1 | 1 << 16 | 1 << 32 | 1 << 48;
    let v = (u64::from(v4 & 0xF) * SPREAD) & LANES;
    let m = ((u64::from(n4 & 0xF) * SPREAD) & LANES) * 0xFFFF;
    let valid = LANES | ((v ^ (LANES * u64::from(flip))) << 8);
    let nulls = LANES * u64::from(null);
    ((valid & m) | (nulls & !m)).to_le_bytes()
}

/// The 8 bits from bit `i` of a bitmap (`bytes` from bit `offset`), zero
/// past its end.
#[inline(always)]
fn byte_at((bytes, offset): (&[u8], usize), i: usize) -> u8 {
    let j = offset + i;
    let lo = bytes.get(j / 8).copied().unwrap_or(0);
    if j % 8 == 0 {
        return lo;
    }
    let hi = bytes.get(j / 8 + 1).copied().unwrap_or(0);
    (lo >> (j % 8)) | (hi << (8 - j % 8))
}

/// The 64 bits from bit `i` of a bitmap (`bytes` from bit `offset`), zero
/// past its end; bit 0 is slot `i`.
#[inline]
fn word_at(bits: (&[u8], usize), i: usize) -> u64 {
    let j = bits.1 + i;
    let (k, s) = (j / 8, j % 8);
    // Away from the end: one 8-byte load and the next byte.
    if let Some((lo, [hi, ..])) = bits.0.get(k..).and_then(|b| b.split_first_chunk::<8>()) {
        // `(hi << 1) << (63 - s)`: `hi << (64 - s)`, 0 when `s == 0`.
        return (u64::from_le_bytes(*lo) >> s) | ((u64::from(*hi) << 1) << (63 - s));
    }
    (0..8).fold(0u64, |w, b| {
        w | u64::from(byte_at(bits, i + 8 * b)) << (8 * b)
    })
}

/// The bytes and bit offset of a boolean buffer.
#[inline]
fn bitmap_of<'b>(b: &'b BooleanBuffer<'_, impl Allocator>) -> (&'b [u8], usize) {
    (b.inner().as_slice(), b.offset())
}

/// Encodes a fixed-size binary column: rows of `1 + width` bytes.
///
/// # Errors
/// As [`encode`].
pub(crate) fn encode_fixed_binary<A: Allocator>(
    data: &mut [u8],
    layout: &mut Layout<'_>,
    array: &FixedSizeBinaryArray<'_, A>,
    opts: SortOptions,
) -> Result<()> {
    if array.len() != layout.rows(data) {
        return Err(Error::LengthMismatch);
    }
    let (null, flip) = (opts.null_sentinel(), if opts.descending { 0xFF } else { 0 });
    let w = array.value_length();
    let bits = bitmap(array.nulls());
    let mut bad = false;
    for_rows(data, layout, 1 + w, |i, out| match array.value(i) {
        Some(v) if v.len() == w => put(out, v, valid_mask(bits, i), null, flip),
        _ => bad = true,
    })?;
    if bad {
        return Err(Error::OutOfBounds);
    }
    Ok(())
}

/// The encoded width of every row of a fixed-width leaf column (Null,
/// Boolean, primitive, FixedSizeBinary: `1 +` the value width, 0 for Null),
/// `None` for other columns.
pub(crate) fn column_width<A: Allocator>(column: &ArrayRef<'_, A>) -> Option<usize> {
    match column {
        ArrayRef::Null(_) => Some(0),
        ArrayRef::Boolean(_) => Some(2),
        ArrayRef::FixedSizeBinary(a) => a.value_length().checked_add(1),
        other => other.data_type().primitive_width().map(|w| w + 1),
    }
}

/// Encodes a fixed-width leaf column (Null, Boolean, primitive,
/// FixedSizeBinary) into the rows of `layout`.
///
/// # Errors
/// [`Error::UnsupportedType`] for other columns; as [`encode`].
pub(crate) fn encode_column<A: Allocator>(
    column: &ArrayRef<'_, A>,
    opts: SortOptions,
    data: &mut [u8],
    layout: &mut Layout<'_>,
) -> Result<()> {
    macro_rules! fixed {
        ($a:expr) => {
            encode(data, layout, $a.values(), $a.nulls(), opts)
        };
    }
    match column {
        ArrayRef::Null(_) => Ok(()),
        ArrayRef::Boolean(a) => encode_bool(data, layout, a, opts),
        ArrayRef::Int8(a) => fixed!(a),
        ArrayRef::Int16(a) => fixed!(a),
        ArrayRef::Int32(a) => fixed!(a),
        ArrayRef::Int64(a) => fixed!(a),
        ArrayRef::UInt8(a) => fixed!(a),
        ArrayRef::UInt16(a) => fixed!(a),
        ArrayRef::UInt32(a) => fixed!(a),
        ArrayRef::UInt64(a) => fixed!(a),
        ArrayRef::Float16(a) => fixed!(a),
        ArrayRef::Float32(a) => fixed!(a),
        ArrayRef::Float64(a) => fixed!(a),
        ArrayRef::Int128(a) => fixed!(a),
        ArrayRef::Int256(a) => fixed!(a),
        ArrayRef::IntervalDayTime(a) => fixed!(a),
        ArrayRef::IntervalMonthDayNano(a) => fixed!(a),
        ArrayRef::FixedSizeBinary(a) => encode_fixed_binary(data, layout, a, opts),
        _ => Err(Error::UnsupportedType),
    }
}

/// Reads one fixed-width piece (`1 + width` bytes): `Some(payload)` for a
/// value, `None` for a null.
///
/// # Errors
/// [`Error::InvalidRow`]: the first byte is neither `0x01` nor the null
/// sentinel, or a null's payload is not zero.
#[inline]
fn read(piece: &[u8], opts: SortOptions) -> Result<Option<&[u8]>> {
    let (&head, payload) = piece.split_first().ok_or(Error::InvalidRow)?;
    if head == 1 {
        Ok(Some(payload))
    } else if head == opts.null_sentinel() && payload.iter().all(|&b| b == 0) {
        Ok(None)
    } else {
        Err(Error::InvalidRow)
    }
}

/// Decodes a primitive column of type `data_type` from the front of each row.
///
/// # Errors
/// [`Error::InvalidRow`] (see `read`); [`Error::AllocationFailed`];
/// [`Error::TypeMismatch`] when `T` does not store `data_type`.
pub(crate) fn decode<'a, T: FixedEncode, A: Allocator + Clone>(
    rows: &mut [&[u8]],
    data_type: &DataType<'a, A>,
    opts: SortOptions,
    alloc: &A,
) -> Result<PrimitiveArray<'a, T, A>> {
    let n = rows.len();
    // One loop for each direction, so that neither tests it per value.
    if opts.descending {
        decode_values(n, |i| read_value(rows, i, opts, true), data_type, alloc)
    } else {
        decode_values(n, |i| read_value(rows, i, opts, false), data_type, alloc)
    }
}

/// Reads value `i` from the front of `rows[i]` (advancing it): `None` for a
/// null; `descending` is `opts.descending`, passed apart so that each
/// caller's loop is made for one direction.
///
/// # Errors
/// [`Error::InvalidRow`] (see `read`).
#[inline(always)]
fn read_value<T: FixedEncode>(
    rows: &mut [&[u8]],
    i: usize,
    opts: SortOptions,
    descending: bool,
) -> Result<Option<T>> {
    prefetch::ahead(rows, i);
    let piece = take(
        rows.get_mut(i).ok_or(Error::OutOfBounds)?,
        1 + size_of::<T::Bytes>(),
    )?;
    read_piece(piece, opts, descending)
}

/// Decodes one fixed-width piece of `1 + size_of::<T::Bytes>()` bytes (a
/// row's, or a list element's, reassembled from its blocks): `None` for a
/// null. `descending` as [`read_value`] takes it.
///
/// # Errors
/// [`Error::InvalidRow`] (see `read`), also for a piece of another length.
#[inline(always)]
pub(crate) fn read_piece<T: FixedEncode>(
    piece: &[u8],
    opts: SortOptions,
    descending: bool,
) -> Result<Option<T>> {
    let Some(payload) = read(piece, opts)? else {
        return Ok(None);
    };
    let mut b = T::Bytes::try_from(payload).map_err(|_| Error::InvalidRow)?;
    if descending {
        invert(b.as_mut());
    }
    Ok(Some(T::decode(b)))
}

/// Makes a primitive column of type `data_type` from `n` values, value `i`
/// (`None` for a null) given by `value(i)`, called once per value, in
/// order: read from a row's piece ([`decode`]) or from a list element's
/// blocks. (The values are passed decoded, not as their bytes: an
/// `Option` of a byte array is moved a byte at a time.)
///
/// # Errors
/// `value`'s; [`Error::AllocationFailed`]; [`Error::TypeMismatch`] when `T`
/// does not store `data_type`.
#[inline(always)]
pub(crate) fn decode_values<'a, T: FixedEncode, A: Allocator + Clone>(
    n: usize,
    mut value: impl FnMut(usize) -> Result<Option<T>>,
    data_type: &DataType<'a, A>,
    alloc: &A,
) -> Result<PrimitiveArray<'a, T, A>> {
    // Values written in place (zeroed up front: a null's value is the
    // default). Validity bits are gathered a word per 64 rows; the bitmap
    // is made only at the first word with a null (the bytes before it all
    // valid), so a column without nulls allocates none.
    let mut values = MutableBuffer::new_in(alloc.clone());
    values.try_extend_zeros(
        n.checked_mul(size_of::<T>())
            .ok_or(Error::CapacityOverflow)?,
    )?;
    let bitmap_bytes = n.div_ceil(8);
    let mut validity: Option<MutableBuffer<A>> = None;
    let mut null_count = 0;
    let out: &mut [T] = values.typed_mut()?;
    for (k, out) in out.chunks_mut(64).enumerate() {
        let mut word = 0u64;
        let at = k * 64;
        for (j, slot) in out.iter_mut().enumerate() {
            match value(at + j)? {
                Some(v) => {
                    *slot = v;
                    word |= 1 << j;
                }
                None => null_count += 1,
            }
        }
        // A chunk holds 1 to 64 rows.
        let all_valid = u64::MAX >> (64 - out.len());
        if word == all_valid && validity.is_none() {
            continue;
        }
        let at = k * 8;
        let bits = match &mut validity {
            Some(v) => v,
            None => {
                let mut v = MutableBuffer::new_in(alloc.clone());
                v.try_extend_zeros(bitmap_bytes)?;
                v.as_slice_mut()
                    .get_mut(..at)
                    .ok_or(Error::OutOfBounds)?
                    .fill(0xFF);
                validity.insert(v)
            }
        };
        let dst = bits
            .as_slice_mut()
            .get_mut(at..bitmap_bytes.min(at + 8))
            .ok_or(Error::OutOfBounds)?;
        let len = dst.len();
        dst.copy_from_slice(word.to_le_bytes().get(..len).ok_or(Error::OutOfBounds)?);
    }
    let nulls = match validity {
        Some(v) if null_count > 0 => {
            let bits = BooleanBuffer::try_new(v.into_buffer(), 0, n)?;
            Some(NullBuffer::try_new_with_count(bits, null_count)?)
        }
        _ => None,
    };
    PrimitiveArray::try_new(
        data_type.clone(),
        ScalarBuffer::try_from_buffer(values.into_buffer())?,
        nulls,
    )
}

/// Decodes a boolean column.
///
/// # Errors
/// [`Error::InvalidRow`] also when the value byte is not `0x00`/`0x01`
/// (inverted when descending).
pub(crate) fn decode_bool<'a, A: Allocator + Clone>(
    rows: &mut [&[u8]],
    opts: SortOptions,
    alloc: &A,
) -> Result<BooleanArray<'a, A>> {
    // Value and validity bits gathered a word per 64 rows, branch-free
    // (a malformed row sets `bad`, reported after its word), each word
    // written once.
    let n = rows.len();
    let mut values = MutableBuffer::new_in(alloc.clone());
    values.try_extend_zeros(n.div_ceil(8))?;
    let mut validity = MutableBuffer::new_in(alloc.clone());
    validity.try_extend_zeros(n.div_ceil(8))?;
    let (null, flip) = (opts.null_sentinel(), if opts.descending { 0xFF } else { 0 });
    let mut null_count = 0;
    {
        let (vbits, nbits) = (values.as_slice_mut(), validity.as_slice_mut());
        for (k, chunk) in rows.chunks_mut(64).enumerate() {
            let (mut vword, mut nword, mut bad) = (0u64, 0u64, false);
            for (j, row) in chunk.iter_mut().enumerate() {
                // A row shorter than its 2 bytes is malformed: `bad`, and
                // nothing is consumed.
                let Some((&[head, b], rest)) = row.split_first_chunk::<2>() else {
                    bad = true;
                    continue;
                };
                *row = rest;
                let v = b ^ flip;
                let valid = head == 1;
                bad |= if valid { v > 1 } else { head != null || b != 0 };
                vword |= u64::from(valid & (v == 1)) << j;
                nword |= u64::from(valid) << j;
            }
            if bad {
                return Err(Error::InvalidRow);
            }
            null_count += chunk.len() - nword.count_ones() as usize;
            let at = k * 8;
            let end = nbits.len().min(at + 8);
            for (dst, word) in [(&mut *vbits, vword), (&mut *nbits, nword)] {
                let dst = dst.get_mut(at..end).ok_or(Error::OutOfBounds)?;
                let len = dst.len();
                dst.copy_from_slice(word.to_le_bytes().get(..len).ok_or(Error::OutOfBounds)?);
            }
        }
    }
    let nulls = if null_count == 0 {
        None
    } else {
        let bits = BooleanBuffer::try_new(validity.into_buffer(), 0, n)?;
        Some(NullBuffer::try_new_with_count(bits, null_count)?)
    };
    BooleanArray::try_new(BooleanBuffer::try_new(values.into_buffer(), 0, n)?, nulls)
}

/// Decodes a fixed-size binary column of type `data_type`.
///
/// # Errors
/// [`Error::InvalidRow`]; [`Error::AllocationFailed`]; [`Error::InvalidDataType`].
pub(crate) fn decode_fixed_binary<'a, A: Allocator + Clone>(
    rows: &mut [&[u8]],
    data_type: &DataType<'a, A>,
    opts: SortOptions,
    alloc: &A,
) -> Result<FixedSizeBinaryArray<'a, A>> {
    let DataType::FixedSizeBinary(width) = data_type else {
        return Err(Error::TypeMismatch);
    };
    let w = usize::try_from(*width).map_err(|_| Error::InvalidDataType)?;
    let mut values = MutableBuffer::new_in(alloc.clone());
    values.try_reserve_exact(rows.len().checked_mul(w).ok_or(Error::CapacityOverflow)?)?;
    let mut nulls = NullBufferBuilder::new_in(alloc.clone());
    for row in rows.iter_mut() {
        match read(take(row, 1 + w)?, opts)? {
            Some(payload) => {
                let start = values.len();
                values.try_extend_from_slice(payload)?;
                if opts.descending {
                    if let Some(tail) = values.as_slice_mut().get_mut(start..) {
                        invert(tail);
                    }
                }
                nulls.try_append_non_null()?;
            }
            None => {
                values.try_extend_zeros(w)?;
                nulls.try_append_null()?;
            }
        }
    }
    let buffer: Buffer<'a, A> = values.into_buffer();
    FixedSizeBinaryArray::try_new(data_type.clone(), rows.len(), buffer, nulls.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 64 validity bits read at any bit offset equal the bits one by one.
    #[test]
    fn words_of_bits_at_any_offset() {
        let bytes: std::vec::Vec<u8> = (0..40u32).map(|i| (i * 37 + 11) as u8).collect();
        let bit = |j: usize| u64::from(bytes.get(j / 8).map_or(0, |b| (b >> (j % 8)) & 1));
        for offset in 0..9 {
            for i in (0..320 - offset).step_by(5) {
                let want = (0..64).fold(0, |w, b| w | bit(offset + i + b) << b);
                assert_eq!(word_at((&bytes, offset), i), want, "offset {offset} i {i}");
            }
        }
    }

    /// Nulls overwritten after the values: more than 64 rows, a bitmap
    /// sliced off a byte boundary, a column alone and two at a stride,
    /// both null orders and directions; checked against the per-row rule.
    #[test]
    fn null_rows_overwritten() {
        use crate::array::Array;
        use crate::Global;
        let opts: std::vec::Vec<Option<i32>> = (0..200)
            .map(|i| {
                if i % 3 == 0 || i % 7 == 0 {
                    None
                } else {
                    Some(i * 1000 - 7)
                }
            })
            .collect();
        let full = PrimitiveArray::<i32, Global>::try_from_options_in(&opts, Global).unwrap();
        let a = full.slice(5, 150).unwrap();
        let b = PrimitiveArray::<u16, Global>::try_from_options_in(
            &opts[..150]
                .iter()
                .map(|o| o.map(|v| v as u16))
                .collect::<std::vec::Vec<_>>(),
            Global,
        )
        .unwrap();
        let piece = |v: Option<[u8; 4]>, o: SortOptions| -> std::vec::Vec<u8> {
            match v {
                None => std::vec![o.null_sentinel(), 0, 0, 0, 0],
                Some(mut b) => {
                    if o.descending {
                        invert(&mut b);
                    }
                    std::iter::once(1).chain(b).collect()
                }
            }
        };
        for (desc, nf) in [(false, true), (true, false), (false, false), (true, true)] {
            let o = SortOptions::new(desc, nf);
            // Alone: rows of 5 bytes.
            let mut data = std::vec![0xAAu8; 150 * 5];
            let mut layout = Layout::Stride {
                width: 5,
                offset: 0,
            };
            encode(&mut data, &mut layout, a.values(), a.nulls(), o).unwrap();
            for (i, row) in data.chunks(5).enumerate() {
                let want = piece(opts[5 + i].map(|v| v.encode()), o);
                assert_eq!(row, &want[..], "row {i}");
            }
            // At a stride of 8: the i32 at 3, the u16 at 0.
            let mut data = std::vec![0xAAu8; 150 * 8];
            let mut layout = Layout::Stride {
                width: 8,
                offset: 3,
            };
            encode(&mut data, &mut layout, a.values(), a.nulls(), o).unwrap();
            let mut layout = Layout::Stride {
                width: 8,
                offset: 0,
            };
            encode(&mut data, &mut layout, b.values(), b.nulls(), o).unwrap();
            for (i, row) in data.chunks(8).enumerate() {
                let want = piece(opts[5 + i].map(|v| v.encode()), o);
                assert_eq!(&row[3..], &want[..], "row {i}");
                let head = if opts[i].is_some() {
                    1
                } else {
                    o.null_sentinel()
                };
                assert_eq!(row[0], head, "row {i}");
            }
        }
    }

    /// The cursor decoder's validity: no bitmap without a null; with one,
    /// the rows before the first null (whole words of them) are valid and
    /// the rest as the rows say; a last word of fewer than 64 rows.
    #[test]
    fn decode_makes_the_bitmap_at_the_first_null() {
        use crate::array::Array;
        use crate::Global;
        let o = SortOptions::default();
        for (n, nulls) in [
            (200, &[][..]),
            (200, &[130][..]),
            (200, &[199][..]),
            (200, &[0, 64, 190][..]),
            (64, &[63][..]),
            (70, &[65, 69][..]),
        ] {
            let want: std::vec::Vec<Option<i64>> = (0..n)
                .map(|i| (!nulls.contains(&i)).then_some(i as i64 * 3 - 100))
                .collect();
            let a = PrimitiveArray::<i64, Global>::try_from_options_in(&want, Global).unwrap();
            let mut data = std::vec![0u8; n * 9];
            let mut layout = Layout::Stride {
                width: 9,
                offset: 0,
            };
            encode(&mut data, &mut layout, a.values(), a.nulls(), o).unwrap();
            let mut rows: std::vec::Vec<&[u8]> = data.chunks(9).collect();
            let got = decode::<i64, Global>(&mut rows, &DataType::Int64, o, &Global).unwrap();
            let got_opts: std::vec::Vec<Option<i64>> = (0..n)
                .map(|i| got.is_valid(i).then(|| got.values()[i]))
                .collect();
            assert_eq!(got_opts, want, "{n} rows, nulls at {nulls:?}");
            assert_eq!(got.nulls().is_some(), !nulls.is_empty());
            assert_eq!(got.null_count(), nulls.len());
            assert!(rows.iter().all(|r| r.is_empty()));
        }
    }

    /// Every combination of 4 value bits, 4 validity bits, null order and
    /// direction against the row-by-row rule.
    #[test]
    fn boolean_rows_four_at_a_time() {
        for v4 in 0..16u8 {
            for n4 in 0..16u8 {
                for (null, flip) in [(0, 0), (0xFF, 0), (0, 0xFF), (0xFF, 0xFF)] {
                    let got = rows4(v4 | 0xA0, n4 | 0x50, null, flip);
                    for k in 0..4 {
                        let want = if (n4 >> k) & 1 == 1 {
                            [1, ((v4 >> k) & 1) ^ flip]
                        } else {
                            [null, 0]
                        };
                        assert_eq!(
                            got[2 * k..2 * k + 2],
                            want,
                            "{v4:x} {n4:x} {null} {flip} {k}"
                        );
                    }
                }
            }
        }
    }
}
