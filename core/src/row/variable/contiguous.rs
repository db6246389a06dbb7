//! Decoding every row of a [`Rows`](crate::row::Rows) straight from its byte buffer and
//! offsets, for converters of one Binary, LargeBinary, Utf8, LargeUtf8,
//! BinaryView or Utf8View column (see [`super`] for the encoding): no
//! slice per row gathered first.
//!
//! Each row is one value and nothing else: its value bytes follow from its
//! length and last byte (exact for a well-formed row), summed in one pass
//! over the offsets (no slice made per row). The values buffer gets that
//! room plus one block; the rows are decoded into it in order, blocks
//! copied at their full size (the last one's padding lands where the next
//! value goes). Ordered values are appended into room that is not zeroed
//! first (each byte is written once; what is left over is zeroed at the
//! end); unordered ones are copied into zeroed room. Should a malformed
//! row need more room than its estimate, the rows go through
//! `convert_rows` instead. Errors are those of
//! [`crate::row::RowConverter::convert_rows`] in the same order: the first
//! malformed row, else the column's checks (UTF-8), else bytes left after
//! a row's value. Empty `Rows` go through `convert_rows`. The view types
//! take the view decoder's one pass (`decoding/views.rs`, values and views
//! made together) over the rows read from the offsets as here.

use allocator_api2::alloc::Allocator;

use super::decoding::{
    byte_array, decode_all_views, decode_ordered_with, read_unordered, whole_row_len, BlockSink,
};
use super::BLOCK_SIZE;
use crate::array::{
    Array, ArrayRef, BinaryType, BinaryViewType, ByteArrayType, GenericByteArray, LargeBinaryType,
    LargeUtf8Type, StringViewType, Utf8Type,
};
use crate::buffer::{
    Appender, BooleanBuffer, MutableBuffer, NullBuffer, OffsetSize, ScalarBuffer, SharedSlice,
};
use crate::datatypes::DataType;
use crate::error::{Error, ErrorKind, Result};
use crate::row::decode::one_column;
use crate::row::source::Contiguous;
use crate::row::{Node, SortOptions};

/// Decodes every row of `rows` as the value of the one column `node` (a
/// variable-length leaf: see [`super::decoding::single_variable`]);
/// `Ok(None)` for no rows, or a malformed row that outgrew
/// its estimate, for the caller to decode them through the iterator instead.
/// `trusted`: an encoder of the same fields wrote every byte of the rows
/// (see `row/provenance.rs`), so UTF-8 values are not checked again.
///
/// # Errors
/// [`Error::InvalidRow`] for a malformed row (also, once the column is
/// built, for bytes after a value); [`Error::InvalidUtf8`];
/// [`Error::CapacityOverflow`] when the values exceed the offset type;
/// [`Error::AllocationFailed`].
pub(crate) fn decode_all<'a, A>(
    node: &Node<'a, A>,
    rows: Contiguous<'_>,
    trusted: bool,
    alloc: &A,
) -> Result<Option<SharedSlice<'a, ArrayRef<'a, A>, A>>>
where
    A: Allocator + Clone,
{
    use DataType::*;
    if rows.is_empty() {
        return Ok(None);
    }
    let (opts, unordered) = (node.options, node.unordered);
    let column = match &node.data_type {
        Binary => decode::<BinaryType, A>(rows, opts, unordered, trusted, alloc)?.map(into),
        LargeBinary => {
            decode::<LargeBinaryType, A>(rows, opts, unordered, trusted, alloc)?.map(into)
        }
        Utf8 => decode::<Utf8Type, A>(rows, opts, unordered, trusted, alloc)?.map(into),
        LargeUtf8 => decode::<LargeUtf8Type, A>(rows, opts, unordered, trusted, alloc)?.map(into),
        BinaryView => decode_all_views::<BinaryViewType, A>(rows, opts, unordered, trusted, alloc)?
            .map(|a| a.into_array_ref()),
        Utf8View => decode_all_views::<StringViewType, A>(rows, opts, unordered, trusted, alloc)?
            .map(|a| a.into_array_ref()),
        _ => return Ok(None),
    };
    let Some(column) = column else {
        return Ok(None);
    };
    one_column(column, alloc).map(Some)
}

/// The column as an [`ArrayRef`].
fn into<'a, T: ByteArrayType, A: Allocator + Clone>(
    a: GenericByteArray<'a, T, A>,
) -> ArrayRef<'a, A> {
    a.into_array_ref()
}

/// Decodes the rows into a column of `T` (see [`decode_all`]); `None` when
/// a malformed row outgrew the room estimated for the values.
fn decode<'a, T: ByteArrayType, A: Allocator + Clone>(
    rows: Contiguous<'_>,
    opts: SortOptions,
    unordered: bool,
    trusted: bool,
    alloc: &A,
) -> Result<Option<GenericByteArray<'a, T, A>>> {
    let n = rows.len();
    let starts = rows.offsets();
    let data = rows.data();
    let total = value_bytes(rows, opts, unordered)?;
    let room = total
        .checked_add(BLOCK_SIZE)
        .ok_or(Error::CapacityOverflow)?;
    let mut offsets = MutableBuffer::new_in(alloc.clone());
    let offset_bytes = n
        .checked_add(1)
        .and_then(|k| k.checked_mul(core::mem::size_of::<T::Offset>()))
        .ok_or(Error::CapacityOverflow)?;
    offsets.try_extend_zeros(offset_bytes)?;
    let mut validity = MutableBuffer::new_in(alloc.clone());
    validity.try_extend_zeros(n.div_ceil(8))?;
    let mut values = MutableBuffer::new_in(alloc.clone());
    let decoded = {
        let ends = offsets
            .typed_mut::<T::Offset>()?
            .get_mut(1..)
            .ok_or(Error::OutOfBounds)?;
        let bits = validity.as_slice_mut();
        let null = opts.null_sentinel();
        if unordered {
            values.try_extend_zeros(room)?;
            fill::<T::Offset>(data, starts, values.as_slice_mut(), ends, bits)?
        } else {
            // Every value byte is written once, in order, into room that is
            // not zeroed first (the room left over is zeroed at the end).
            values.try_extend_appended(room, |w| {
                if opts.descending {
                    fill_appended::<T::Offset, 0xFF>(data, starts, null, w, ends, bits)
                } else {
                    fill_appended::<T::Offset, 0>(data, starts, null, w, ends, bits)
                }
            })?
        }
    };
    let Some((len, nulls, trailing)) = decoded else {
        return Ok(None);
    };
    values.truncate(len);
    let nulls = if nulls == 0 {
        None
    } else {
        let bits = BooleanBuffer::try_new(validity.into_buffer(), 0, n)?;
        Some(NullBuffer::try_new_with_count(bits, nulls)?)
    };
    // The column's own checks (UTF-8) come before the leftover bytes, as
    // in `convert_rows`.
    let offsets = ScalarBuffer::try_from_buffer(offsets.into_buffer())?;
    let array = byte_array(offsets, values.into_buffer(), nulls, trusted)?;
    if trailing {
        return Err(Error::InvalidRow);
    }
    Ok(Some(array))
}

/// The value bytes of `rows`, each row one value (exact for well-formed
/// rows, see [`whole_row_len`]; saturating), from the offsets and each
/// row's last byte.
///
/// # Errors
/// [`Error::InvalidRow`] for an offset past the bytes (unordered) or no
/// offsets.
fn value_bytes(rows: Contiguous<'_>, opts: SortOptions, unordered: bool) -> Result<usize> {
    let data = rows.data();
    let flip = if opts.descending { 0xFF } else { 0 };
    let (&first, rest) = rows.offsets().split_first().ok_or(Error::InvalidRow)?;
    let mut prev = first;
    let mut total = 0usize;
    if unordered {
        for &e in rest {
            let row = data.get(prev..e).ok_or(Error::InvalidRow)?;
            prev = e;
            total = total.saturating_add(whole_row_len(row, flip, true));
        }
    } else {
        // One branch-free pass (it vectorises). The last byte only matters
        // for a row of a block or more (`ordered_len` is 0 below), which
        // has one.
        for &e in rest {
            let len = e.wrapping_sub(prev);
            let last = data.get(e.wrapping_sub(1)).copied().unwrap_or(0);
            prev = e;
            total = total.saturating_add(ordered_len(len, last, flip));
        }
    }
    Ok(total)
}

/// The value bytes of an ordered row of `len` bytes whose last byte is
/// `last` (see [`whole_row_len`]).
#[inline(always)]
fn ordered_len(len: usize, last: u8, flip: u8) -> usize {
    let k = len.saturating_sub(1) / (BLOCK_SIZE + 1);
    if k == 0 {
        return 0;
    }
    (k - 1) * BLOCK_SIZE + usize::from(last ^ flip).min(BLOCK_SIZE)
}

/// Decodes each row (`data[starts[i]..starts[i + 1]]`, unordered encoding)
/// into `out`, its end offset into `ends[i]` and its validity into `bits`:
/// the values' length, the null count and whether a row had bytes left
/// after its value; `None` when `out` is too short (a malformed row outgrew
/// its estimate).
///
/// # Errors
/// [`Error::InvalidRow`] for the first malformed row;
/// [`Error::CapacityOverflow`] when an offset does not fit `O`.
#[inline(never)]
fn fill<O: OffsetSize>(
    data: &[u8],
    starts: &[usize],
    out: &mut [u8],
    ends: &mut [O],
    bits: &mut [u8],
) -> Result<Option<(usize, usize, bool)>> {
    let mut pos = 0usize;
    let mut nulls = 0usize;
    let mut trailing = false;
    let (&first, rest) = starts.split_first().ok_or(Error::InvalidRow)?;
    let mut prev = first;
    for (i, (&e, end)) in rest.iter().zip(ends.iter_mut()).enumerate() {
        let mut row = data.get(prev..e).ok_or(Error::InvalidRow)?;
        prev = e;
        match decode_unordered_at(&mut row, out, pos) {
            Err(e) if e.kind() == ErrorKind::OutOfBounds => return Ok(None),
            Ok(Some(p)) => {
                pos = p;
                if let Some(b) = bits.get_mut(i / 8) {
                    *b |= 1 << (i % 8);
                }
            }
            Ok(None) => nulls += 1,
            Err(e) => return Err(e),
        }
        trailing |= !row.is_empty();
        *end = O::from_usize(pos).ok_or(Error::CapacityOverflow)?;
    }
    Ok(Some((pos, nulls, trailing)))
}

/// [`fill`] for the ordered encoding (`FLIP` `0xFF` when descending, `null`
/// the null sentinel), appending the values through `w`
/// (which starts at byte 0 of an empty buffer): `None` when the room runs
/// out (a malformed row outgrew its estimate).
///
/// # Errors
/// As [`fill`].
#[inline(never)]
fn fill_appended<O: OffsetSize, const FLIP: u8>(
    data: &[u8],
    starts: &[usize],
    null: u8,
    w: &mut Appender<'_>,
    ends: &mut [O],
    bits: &mut [u8],
) -> Result<Option<(usize, usize, bool)>> {
    let mut nulls = 0usize;
    let mut trailing = false;
    let (&first, rest) = starts.split_first().ok_or(Error::InvalidRow)?;
    let mut prev = first;
    for (i, (&e, end)) in rest.iter().zip(ends.iter_mut()).enumerate() {
        let mut row = data.get(prev..e).ok_or(Error::InvalidRow)?;
        prev = e;
        match decode_ordered_with(&mut row, null, FLIP, w) {
            Err(e) if e.kind() == ErrorKind::OutOfBounds => return Ok(None),
            Ok(true) => {
                if let Some(b) = bits.get_mut(i / 8) {
                    *b |= 1 << (i % 8);
                }
            }
            Ok(false) => nulls += 1,
            Err(e) => return Err(e),
        }
        trailing |= !row.is_empty();
        *end = O::from_usize(w.pos()).ok_or(Error::CapacityOverflow)?;
    }
    Ok(Some((w.pos(), nulls, trailing)))
}

/// The appended values as a [`BlockSink`]: the last block is one 32-byte
/// copy of which only the value's bytes are kept.
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

/// Decodes the unordered value at the front of `row` into `out` at `pos`
/// (see `decode_ordered_at` in `decoding/columns.rs`).
///
/// # Errors
/// [`Error::InvalidRow`] when the row is shorter than the length says;
/// [`Error::OutOfBounds`] when `out` is too short.
#[inline(always)]
fn decode_unordered_at(row: &mut &[u8], out: &mut [u8], pos: usize) -> Result<Option<usize>> {
    let Some(v) = read_unordered(row)? else {
        return Ok(None);
    };
    let end = pos + v.len();
    out.get_mut(pos..end)
        .ok_or(Error::OutOfBounds)?
        .copy_from_slice(v);
    Ok(Some(end))
}

#[cfg(test)]
mod tests {
    use crate::row::Rows;

    /// The decoder on all rows of `rows`.
    fn decode_all<'a>(
        node: &Node<'a, Global>,
        rows: &Rows<Global>,
        alloc: &Global,
    ) -> Result<Option<SharedSlice<'a, ArrayRef<'a, Global>, Global>>> {
        super::decode_all(node, Contiguous::of(rows), false, alloc)
    }
    use std::vec::Vec;

    use crate::Global;

    use super::*;
    use crate::row::test_model::{
        mutate_byte_row, one_column_converter as converter, random_binary_rows as random_rows,
        spec_ab_and_long_rows, Rng,
    };
    use crate::row::{Row, RowConverter, RowEncoding};

    type G = Global;

    fn rows_of(rows: &[Vec<u8>]) -> Rows<G> {
        let mut r = Rows::new_in(Global);
        for row in rows {
            r.try_push(Row::new(row)).unwrap();
        }
        r
    }

    fn modes() -> Vec<(SortOptions, RowEncoding)> {
        let mut m: Vec<_> = [(false, true), (false, false), (true, true), (true, false)]
            .into_iter()
            .map(|(d, f)| (SortOptions::new(d, f), RowEncoding::Ordered))
            .collect();
        m.push((SortOptions::default(), RowEncoding::Unordered));
        m
    }

    fn types() -> [DataType<'static, G>; 6] {
        use DataType::*;
        [Binary, LargeBinary, Utf8, LargeUtf8, BinaryView, Utf8View]
    }

    /// `convert_all_rows` (this module's path: checked to be taken) gives
    /// what `convert_rows(rows.iter())` gives; the error, if any.
    fn check(c: &RowConverter<'static, G>, rows: &Rows<G>) -> Option<Error> {
        let node = c.nodes.first().unwrap();
        let direct = decode_all(node, rows, &Global);
        let want = c.convert_rows(rows.iter());
        let got = c.convert_all_rows(rows);
        match (&got, &want) {
            (Ok(g), Ok(w)) => {
                assert!(g[0] == w[0], "{rows:?}: {g:?} != {w:?}");
                assert_eq!(g[0].null_count(), w[0].null_count());
                // Well-formed rows never fall back.
                assert!(direct.unwrap().is_some());
                None
            }
            (Err(g), Err(w)) => {
                assert_eq!(g, w, "{rows:?}");
                Some(*g)
            }
            _ => panic!("{rows:?}: {got:?} vs {want:?}"),
        }
    }

    #[test]
    fn same_columns_as_convert_rows() {
        let mut rng = Rng(0x2545_F491_4F6C_DD1D);
        for (opts, enc) in modes() {
            for n in [1, 2, 7, 8, 9, 64, 130] {
                let rows = rows_of(&random_rows(&mut rng, n, opts, enc));
                for dt in types() {
                    check(&converter(dt, opts, enc), &rows);
                }
            }
        }
    }

    /// Rows with a byte changed, cut or added (estimates wrong, bytes after
    /// a value, bad markers, padding, UTF-8) give `convert_rows`'s error.
    #[test]
    fn same_errors_as_convert_rows() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let mut seen = std::collections::BTreeMap::new();
        for (opts, enc) in modes() {
            for round in 0..150 {
                let n = [1, 3, 20, 70][round % 4];
                let mut rows = random_rows(&mut rng, n, opts, enc);
                for _ in 0..=rng.below(2) {
                    let victim = &mut rows[rng.below(n as u64) as usize];
                    if victim.is_empty() {
                        victim.push(0x02);
                        continue;
                    }
                    mutate_byte_row(&mut rng, victim);
                }
                let rows = rows_of(&rows);
                for dt in types() {
                    let e = check(&converter(dt, opts, enc), &rows);
                    let kind = e.map(|e| e.kind());
                    *seen.entry(std::format!("{kind:?}")).or_insert(0) += 1;
                }
            }
        }
        for k in ["None", "Some(InvalidRow)", "Some(InvalidUtf8)"] {
            assert!(seen.get(k).copied().unwrap_or(0) > 20, "{seen:?}");
        }
    }

    /// The spec's layout of `"ab"`, null, `""` and 33 bytes, ascending:
    /// exact offsets and values; descending, the bytes inverted.
    #[test]
    fn exact_bytes() {
        let (ab, long) = spec_ab_and_long_rows();
        let rows = [ab.clone(), std::vec![0x00], std::vec![0x01], long.clone()];
        let want = std::format!("{}y", "x".repeat(32));
        for desc in [false, true] {
            let opts = SortOptions::new(desc, true);
            let flip = |r: &Vec<u8>| -> Vec<u8> {
                if desc && r != &std::vec![0x00] {
                    r.iter().map(|b| !b).collect()
                } else {
                    r.clone()
                }
            };
            let rows: Vec<Vec<u8>> = rows.iter().map(flip).collect();
            let c = converter(DataType::Utf8, opts, RowEncoding::Ordered);
            let cols = decode_all(&c.nodes[0], &rows_of(&rows), &Global)
                .unwrap()
                .unwrap();
            let ArrayRef::Utf8(s) = &cols[0] else {
                panic!("{cols:?}")
            };
            assert_eq!(s.value_offsets(), &[0, 2, 2, 2, 35]);
            assert_eq!(s.values().as_slice(), std::format!("ab{want}").as_bytes());
            assert_eq!(s.null_count(), 1);
            assert_eq!(s.get(1), None);
            assert_eq!(s.get(3), Some(want.as_str()));
        }
        // Unordered: a 4-byte little-endian length, `u32::MAX` for null.
        let c = converter(
            DataType::Binary,
            SortOptions::default(),
            RowEncoding::Unordered,
        );
        let rows = rows_of(&[
            std::vec![2, 0, 0, 0, b'h', b'i'],
            std::vec![0xFF; 4],
            std::vec![0; 4],
        ]);
        let cols = c.convert_all_rows(&rows).unwrap();
        let ArrayRef::Binary(b) = &cols[0] else {
            panic!("{cols:?}")
        };
        assert_eq!(b.value_offsets(), &[0, 2, 2, 2]);
        assert_eq!(b.values().as_slice(), b"hi");
        assert_eq!(b.null_count(), 1);
    }

    #[test]
    fn malformed_rows() {
        let asc = SortOptions::default();
        let c = converter(DataType::Utf8, asc, RowEncoding::Ordered);
        let mut ab = std::vec![0x02, b'a', b'b'];
        ab.extend([0; 30]);
        ab.push(2);
        let err = |rows: &[Vec<u8>]| {
            let rows = rows_of(rows);
            let e = c.convert_all_rows(&rows).unwrap_err();
            assert_eq!(check(&c, &rows), Some(e));
            e
        };
        let mut trailing = ab.clone();
        trailing.push(0);
        assert_eq!(err(&[trailing.clone()]), Error::InvalidRow);
        // Estimated at 0 bytes each (the last byte is the trailing zero):
        // the values outgrow the room, the iterator path decodes them.
        assert_eq!(err(&std::vec![trailing.clone(); 5]), Error::InvalidRow);
        assert!(decode_all(
            &c.nodes[0],
            &rows_of(&std::vec![trailing.clone(); 5]),
            &Global
        )
        .unwrap()
        .is_none());
        assert_eq!(err(&[std::vec![], ab.clone()]), Error::InvalidRow);
        assert_eq!(err(&[std::vec![0x00, 0x00]]), Error::InvalidRow);
        assert_eq!(err(&[ab[..33].to_vec()]), Error::InvalidRow);
        let mut marker = ab.clone();
        marker[33] = 33;
        assert_eq!(err(&[marker.clone()]), Error::InvalidRow);
        marker[33] = 0;
        assert_eq!(err(&[marker]), Error::InvalidRow);
        let mut padding = ab.clone();
        padding[10] = 1;
        assert_eq!(err(&[padding]), Error::InvalidRow);
        assert_eq!(err(&[std::vec![0x03]]), Error::InvalidRow);
        // Not UTF-8 wins over trailing bytes in a later row; a malformed
        // row wins over both.
        let mut bad = ab.clone();
        bad[1] = 0xFF;
        assert_eq!(err(&[bad.clone(), trailing.clone()]), Error::InvalidUtf8);
        assert_eq!(err(&[bad, trailing, std::vec![0x02, 1]]), Error::InvalidRow);
        // Unordered: a length past the row.
        let u = converter(DataType::Binary, asc, RowEncoding::Unordered);
        let rows = rows_of(&[std::vec![3, 0, 0, 0, 1, 2]]);
        assert_eq!(u.convert_all_rows(&rows).unwrap_err(), Error::InvalidRow);
        assert_eq!(check(&u, &rows), Some(Error::InvalidRow));
        let rows = rows_of(&[std::vec![0, 0, 0]]);
        assert_eq!(check(&u, &rows), Some(Error::InvalidRow));
    }

    /// Utf8View from rows straight from their buffer: one byte that is not
    /// ASCII, at any place of an inline or a long value (first or later
    /// block, either half), is found; valid UTF-8 of several bytes per
    /// character decodes; both directions and both encodings.
    #[test]
    fn views_find_each_byte_that_is_not_utf8() {
        let mut modes = modes();
        modes.truncate(1);
        modes.push((SortOptions::new(true, false), RowEncoding::Ordered));
        modes.push((SortOptions::default(), RowEncoding::Unordered));
        for (opts, enc) in modes {
            let mut binary = converter(DataType::BinaryView, opts, enc);
            let c = converter(DataType::Utf8View, opts, enc);
            for len in [5, 12, 40, 70] {
                for at in 0..len {
                    let mut v = std::vec![b'a'; len];
                    v[at] = 0xFF;
                    let values: [Option<&[u8]>; 3] =
                        [Some(b"fine, and long enough"), Some(&v), None];
                    let col =
                        crate::array::BinaryViewArray::<G>::try_from_options_in(&values, Global)
                            .unwrap()
                            .into_array_ref();
                    let rows = binary.convert_columns(core::slice::from_ref(&col)).unwrap();
                    assert_eq!(check(&c, &rows), Some(Error::InvalidUtf8), "{len} {at}");
                    v[at] = b'a';
                    v.splice(at..at, "é".bytes());
                    let s = std::string::String::from_utf8(v).unwrap();
                    let strings = crate::array::StringViewArray::<G>::try_from_options_in(
                        &[Some(s.as_str()), None],
                        Global,
                    )
                    .unwrap()
                    .into_array_ref();
                    let mut c2 = converter(DataType::Utf8View, opts, enc);
                    let rows = c2.convert_columns(core::slice::from_ref(&strings)).unwrap();
                    assert_eq!(check(&c, &rows), None);
                    assert!(c.convert_all_rows(&rows).unwrap()[0] == strings);
                }
            }
        }
    }

    /// Empty `Rows` are left to `convert_rows`.
    #[test]
    fn falls_back() {
        let asc = SortOptions::default();
        for dt in types() {
            let c = converter(dt, asc, RowEncoding::Ordered);
            let empty = Rows::new_in(Global);
            assert!(decode_all(&c.nodes[0], &empty, &Global).unwrap().is_none());
            assert!(c.convert_all_rows(&empty).unwrap()[0].is_empty());
        }
    }
}
