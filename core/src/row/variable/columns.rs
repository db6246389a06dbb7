//! The column decoders of variable-length bytes (Binary, LargeBinary,
//! Utf8, LargeUtf8, BinaryView, Utf8View) through per-row cursors
//! ([`decode`]; views in [`super::views`]), and of a converter whose one column is
//! variable-length, each row one value (`decode_single_column`): values,
//! offsets and validity written in place into buffers sized beforehand
//! (the value decoding itself is [`super::decode_ordered_with`]'s).

use allocator_api2::alloc::Allocator;

use super::{decode_ordered_with, read_unordered, BlockSink};
use crate::arch::prefetch;
use crate::array::{validate_nulls, ByteArrayNativeType, ValidationLevel};
use crate::array::{ByteArrayType, GenericByteArray};
use crate::buffer::{
    check_offsets, Appender, BooleanBuffer, Buffer, MutableBuffer, NullBuffer, OffsetSize,
    ScalarBuffer,
};
use crate::error::{Error, ErrorKind, Result};
use crate::row::variable::{BLOCK_SIZE, CONTINUATION, NON_EMPTY, UNORDERED_NULL};
use crate::row::SortOptions;

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

/// Decoded values, offsets and validity.
type Decoded<A> = (
    MutableBuffer<A>,
    MutableBuffer<A>,
    Option<NullBuffer<'static, A>>,
);

/// Decodes the value at the front of each row into `values` (bytes) and
/// `offsets` (`rows.len() + 1` of them, as `O`), and the validity,
/// advancing the rows past their values. Ordered values are sized from a
/// sample ([`fill_cursors`]); for unordered ones a first pass reads only
/// the lengths to size `values` exactly (the 64-byte aligned growth of
/// `Global` copies at every step), values and offsets are then written in
/// place.
fn decode_into<O: OffsetSize, A: Allocator + Clone>(
    rows: &mut [&[u8]],
    opts: SortOptions,
    unordered: bool,
    alloc: &A,
) -> Result<Decoded<A>> {
    if !unordered {
        return fill_cursors::<O, A>(rows, opts, alloc);
    }
    let total = decoded_total(rows, opts, unordered);
    // The exact size is always enough: only malformed rows fall short.
    fill::<O, A>(rows, opts, unordered, total, alloc)?.ok_or(Error::InvalidRow)
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
    Ok((values, offsets, nulls))
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
/// is too little.
fn fill<O: OffsetSize, A: Allocator + Clone>(
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
                        Err(e) if e.kind() == ErrorKind::OutOfBounds => {
                            return Err(Error::InvalidRow)
                        }
                        d => d?,
                    };
                    *row = r;
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
    Ok(Some((values, offsets, nulls)))
}

/// Decodes a Binary/LargeBinary/Utf8/LargeUtf8 column from the front of
/// each row, advancing the rows; `trusted` as [`byte_array`] takes it.
///
/// # Errors
/// [`Error::InvalidRow`]; [`Error::InvalidUtf8`] for a UTF-8 type;
/// [`Error::CapacityOverflow`] when the values exceed the offset type;
/// [`Error::AllocationFailed`].
pub(crate) fn decode<'a, T: ByteArrayType, A: Allocator + Clone>(
    rows: &mut [&[u8]],
    opts: SortOptions,
    unordered: bool,
    trusted: bool,
    alloc: &A,
) -> Result<GenericByteArray<'a, T, A>> {
    let (values, offsets, nulls) = decode_into::<T::Offset, A>(rows, opts, unordered, alloc)?;
    let offsets = ScalarBuffer::try_from_buffer(offsets.into_buffer())?;
    byte_array(offsets, values.into_buffer(), nulls, trusted)
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

#[cfg(test)]
mod tests {
    use std::vec::Vec;

    use crate::Global;

    use super::*;
    use crate::array::{Array, ArrayRef};
    use crate::datatypes::DataType;
    use crate::row::test_model::{one_column_converter as converter, spec_ab_and_long_rows};
    use crate::row::{Row, RowEncoding, Rows};

    fn rows_of(rows: &[&[u8]]) -> Rows<Global> {
        let mut r = Rows::new_in(Global);
        for row in rows {
            r.try_push(Row::new(row)).unwrap();
        }
        r
    }

    /// The spec's layout of `"ab"`, null, `""` and 33 bytes: exact offsets
    /// and values, ascending and descending (the bytes inverted), from a
    /// `Rows` and from row slices; unordered, a 4-byte little-endian length
    /// (`u32::MAX` for null).
    #[test]
    fn exact_bytes() {
        let (ab, long) = spec_ab_and_long_rows();
        let want = std::format!("{}y", "x".repeat(32));
        for desc in [false, true] {
            let opts = SortOptions::new(desc, true);
            let flip = |r: &[u8]| -> Vec<u8> {
                if desc && r != [0x00] {
                    r.iter().map(|b| !b).collect()
                } else {
                    r.to_vec()
                }
            };
            let rows = [flip(&ab), flip(&[0x00]), flip(&[0x01]), flip(&long)];
            let refs: Vec<&[u8]> = rows.iter().map(|r| r.as_slice()).collect();
            let c = converter(DataType::Utf8, opts, RowEncoding::Ordered);
            let all = c.convert_all_rows(&rows_of(&refs)).unwrap();
            let some = c.convert_rows(refs.iter().map(|r| Row::new(r))).unwrap();
            for cols in [all, some] {
                let ArrayRef::Utf8(s) = &cols[0] else {
                    panic!("{cols:?}")
                };
                assert_eq!(s.value_offsets(), &[0, 2, 2, 2, 35]);
                assert_eq!(s.values().as_slice(), std::format!("ab{want}").as_bytes());
                assert_eq!(s.null_count(), 1);
                assert_eq!(s.get(1), None);
                assert_eq!(s.get(3), Some(want.as_str()));
            }
        }
        let c = converter(
            DataType::Binary,
            SortOptions::default(),
            RowEncoding::Unordered,
        );
        let rows: [&[u8]; 3] = [&[2, 0, 0, 0, b'h', b'i'], &[0xFF; 4], &[0; 4]];
        let cols = c.convert_all_rows(&rows_of(&rows)).unwrap();
        let ArrayRef::Binary(b) = &cols[0] else {
            panic!("{cols:?}")
        };
        assert_eq!(b.value_offsets(), &[0, 2, 2, 2]);
        assert_eq!(b.values().as_slice(), b"hi");
        assert_eq!(b.null_count(), 1);
    }

    /// Bytes after a value, a cut block, a bad marker, non-zero padding,
    /// an unknown first byte, not UTF-8, an unordered length past the row:
    /// each an error, from a `Rows` and from row slices alike.
    #[test]
    fn malformed_rows() {
        let asc = SortOptions::default();
        let c = converter(DataType::Utf8, asc, RowEncoding::Ordered);
        let mut ab = std::vec![0x02, b'a', b'b'];
        ab.extend([0; 30]);
        ab.push(2);
        let err = |c: &crate::row::test_model::Seeded, rows: &[&[u8]]| {
            let e = c.convert_all_rows(&rows_of(rows)).unwrap_err();
            let e2 = c
                .convert_rows(rows.iter().map(|r| Row::new(r)))
                .unwrap_err();
            assert_eq!(e, e2);
            e
        };
        let mut trailing = ab.clone();
        trailing.push(0);
        assert_eq!(err(&c, &[&trailing]), Error::InvalidRow);
        let five: [&[u8]; 5] = [&trailing; 5];
        assert_eq!(err(&c, &five), Error::InvalidRow);
        assert_eq!(err(&c, &[&[], &ab]), Error::InvalidRow);
        assert_eq!(err(&c, &[&[0x00, 0x00]]), Error::InvalidRow);
        assert_eq!(err(&c, &[&ab[..33]]), Error::InvalidRow);
        let mut marker = ab.clone();
        marker[33] = 33;
        assert_eq!(err(&c, &[&marker]), Error::InvalidRow);
        marker[33] = 0;
        assert_eq!(err(&c, &[&marker]), Error::InvalidRow);
        let mut padding = ab.clone();
        padding[10] = 1;
        assert_eq!(err(&c, &[&padding]), Error::InvalidRow);
        assert_eq!(err(&c, &[&[0x03]]), Error::InvalidRow);
        // Not UTF-8 wins over trailing bytes in a later row (the column is
        // built before the rows are checked for leftovers); a malformed row
        // wins over both.
        let mut bad = ab.clone();
        bad[1] = 0xFF;
        assert_eq!(err(&c, &[&bad, &trailing]), Error::InvalidUtf8);
        assert_eq!(err(&c, &[&bad, &trailing, &[0x02, 1]]), Error::InvalidRow);
        let u = converter(DataType::Binary, asc, RowEncoding::Unordered);
        assert_eq!(err(&u, &[&[3, 0, 0, 0, 1, 2]]), Error::InvalidRow);
        assert_eq!(err(&u, &[&[0, 0, 0]]), Error::InvalidRow);
    }
}
