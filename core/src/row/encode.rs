//! Encoding columns into rows: sizes first, then one pass per column.
//!
//! [`encode_columns`] prepares an [`Encoder`] per column
//! ([`super::prepare`], the dispatch on its kind; nested and
//! dictionary columns encode their children into temporary rows here), adds
//! every column's encoded size of each row into the new offsets, turns them
//! into start positions, grows the byte buffer once, and lets each column
//! write its piece of every row, advancing the row's position. At the end
//! the positions are the rows' end offsets.

use allocator_api2::alloc::Allocator;

use super::dictionary;
use super::fixed::Layout;
use super::interner::Interner;
use super::variable::sizes as byte_sizes;
use super::{
    add_lengths, encode, fixed, fixed_width, prepare, variable, Columns, Encoder, Node, Rows,
};
use crate::array::{Array, ArrayRef};
use crate::error::{Error, Result};

/// Encodes `columns` (one per node) and appends the rows to `rows`;
/// seed dictionary columns through their mapping in `dictionaries`.
///
/// # Errors
/// [`Error::SchemaMismatch`], [`Error::TypeMismatch`],
/// [`Error::LengthMismatch`], [`Error::AllocationFailed`],
/// [`Error::CapacityOverflow`], [`Error::RowInternerRequired`]. On error `rows` may hold a partial append
/// (the caller rolls back).
pub(crate) fn encode_columns<A: Allocator + Clone>(
    nodes: &[Node<'_, A>],
    dictionaries: &mut [Interner<A>],
    columns: &[ArrayRef<'_, A>],
    rows: &mut Rows<A>,
    alloc: &A,
) -> Result<()> {
    if columns.len() != nodes.len() {
        return Err(Error::SchemaMismatch);
    }
    let n = columns.first().map_or(0, |c| c.len());
    for (node, c) in nodes.iter().zip(columns) {
        if c.len() != n {
            return Err(Error::LengthMismatch);
        }
        if *c.data_type() != node.data_type {
            return Err(Error::TypeMismatch);
        }
    }
    let encoders = Columns::try_from_fn_in(columns.len(), alloc.clone(), |i| {
        let node = nodes.get(i).ok_or(Error::OutOfBounds)?;
        let column = columns.get(i).ok_or(Error::OutOfBounds)?;
        prepare(node, dictionaries, column, alloc)
    })?;
    if append_single(nodes, &encoders, rows, n, alloc)? {
        return Ok(());
    }
    let width = encoders
        .iter()
        .try_fold(0usize, |w, enc| w.checked_add(fixed_width(enc)?));
    if let Some(width) = width {
        // Every column fixed-width: row `i` is at `i * width`. The offsets
        // are written once; each column writes its piece of every row at a
        // fixed stride, a cache-sized chunk of rows at a time.
        let total = width.checked_mul(n).ok_or(Error::CapacityOverflow)?;
        let start = rows.data().len();
        start.checked_add(total).ok_or(Error::CapacityOverflow)?;
        let mut at = start;
        // Moved into the closure: kept in a register, not re-read after
        // every store.
        rows.try_extend_offsets_with(n, move || {
            at += width;
            at
        })?;
        let (buffer, _) = rows.parts_mut();
        // Never 0 (`step_by` would panic), also for 0 rows. Dictionary
        // tables write every row at once.
        let all_direct = encoders.iter().all(|e| matches!(e, Encoder::Direct(_)));
        let step = if total > CHUNKED && all_direct {
            CHUNK / width.max(1)
        } else {
            n
        }
        .max(1);
        buffer.try_extend_filled(total, |fill| {
            for r0 in (0..n).step_by(step) {
                let r1 = n.min(r0 + step);
                let data = fill
                    .zeroed_to(start + r1 * width)?
                    .get_mut(start + r0 * width..)
                    .ok_or(Error::OutOfBounds)?;
                let mut offset = 0;
                for (enc, node) in encoders.iter().zip(nodes.iter()) {
                    match enc {
                        Encoder::Direct(column) => {
                            let mut layout = Layout::Stride { width, offset };
                            let part = sliced(column, r0, r1, n)?;
                            let part = part.as_ref().unwrap_or(column);
                            fixed::encode_column(part, node.options, data, &mut layout)?;
                        }
                        Encoder::Table {
                            table,
                            index,
                            width: Some(_),
                        } => dictionary::encode(
                            node,
                            table,
                            index,
                            data,
                            &mut Layout::Stride { width, offset },
                            r1 - r0,
                        )?,
                        _ => return Err(Error::OutOfBounds),
                    }
                    offset += fixed_width(enc).ok_or(Error::OutOfBounds)?;
                }
            }
            Ok(())
        })?;
    } else {
        // The lengths start as the fixed-width columns' total, written once.
        let fixed: usize = encoders.iter().filter_map(|e| fixed_width(e)).sum();
        let first = rows.len();
        rows.try_extend_offsets_with(n, move || fixed)?;
        let (buffer, offsets) = rows.parts_mut();
        let cursors = offsets.get_mut(first + 1..).ok_or(Error::OutOfBounds)?;
        let mut end = buffer.len();
        // When the rows' size is bounded, sizes are added without overflow
        // checks (the lengths passes vectorise) and the lengths turned into
        // starts by a plain running sum; otherwise they saturate and the
        // running sum is checked.
        let bounded = rows_bound(&encoders, n, fixed, end).is_some();
        for (enc, node) in encoders.iter().zip(nodes.iter()) {
            if fixed_width(enc).is_none() {
                add_lengths(enc, node, cursors, bounded)?;
            }
        }
        if bounded {
            end = byte_sizes::starts_from_lengths(cursors, end);
        } else {
            for c in cursors.iter_mut() {
                let len = *c;
                *c = end;
                end = end.checked_add(len).ok_or(Error::CapacityOverflow)?;
            }
        }
        let fill_start = buffer.len();
        let all_direct = encoders.iter().all(|e| matches!(e, Encoder::Direct(_)));
        buffer.try_extend_filled(end - fill_start, |fill| {
            if !all_direct || end - fill_start <= CHUNKED {
                // Nested, list and table encoders write every row at once;
                // so do small batches.
                let data = fill.zeroed_to(end)?;
                for (enc, node) in encoders.iter().zip(nodes.iter()) {
                    encode(enc, node, data, cursors)?;
                }
                return Ok(());
            }
            // Chunks of rows of about `CHUNK` bytes: zeroed, then every
            // column writes its piece of them while they are in the cache.
            let mut r0 = 0;
            while r0 < n {
                let base = cursors.get(r0).copied().ok_or(Error::OutOfBounds)?;
                let rest = cursors.get(r0..).ok_or(Error::OutOfBounds)?;
                // At least one row (`rest[0] == base`).
                let r1 = r0 + rest.partition_point(|&c| c < base.saturating_add(CHUNK));
                let upto = cursors.get(r1).copied().unwrap_or(end);
                let data = fill.zeroed_to(upto)?;
                let chunk = cursors.get_mut(r0..r1).ok_or(Error::OutOfBounds)?;
                for (enc, node) in encoders.iter().zip(nodes.iter()) {
                    if let Encoder::Direct(column) = enc {
                        let part = sliced(column, r0, r1, n)?;
                        let part = part.as_ref().unwrap_or(column);
                        encode(&Encoder::Direct(part), node, data, chunk)?;
                    }
                }
                r0 = r1;
            }
            Ok(())
        })?;
        check_end(cursors, end)?;
    }
    Ok(())
}

/// Appends the rows of a converter of one dictionary column whose values'
/// rows have one width and whose null keys are shorter
/// ([`dictionary::append_bound`]), or whose byte values are taken per key
/// ([`variable::take::append_bound`]), in order: each
/// byte written once, without zeroing the rows first and without a pass
/// for the row starts (room is made for at most a bound's bytes). `false`
/// (nothing done) for other converters.
///
/// # Errors
/// As [`encode_columns`].
fn append_single<A: Allocator + Clone>(
    nodes: &[Node<'_, A>],
    encoders: &[Encoder<'_, '_, A>],
    rows: &mut Rows<A>,
    n: usize,
    alloc: &A,
) -> Result<bool> {
    let ([only], [node]) = (encoders, nodes) else {
        return Ok(false);
    };
    let bound = match only {
        // Rows of one short width (no null key) take the fixed-width path
        // (measured faster for short values: fixed-size copies); longer
        // ones are appended, which saves zeroing the rows first.
        Encoder::Table { width: Some(w), .. } if *w <= APPEND_WIDTH => None,
        Encoder::Table { table, index, .. } => dictionary::append_bound(node, table, index, n),
        Encoder::Take(take) => variable::take::append_bound(take, n, APPEND_VALUE),
        _ => None,
    };
    let Some(bound) = bound else {
        return Ok(false);
    };
    let first = rows.len();
    rows.try_extend_offsets_with(n, || 0)?;
    let (buffer, offsets) = rows.parts_mut();
    let cursors = offsets.get_mut(first + 1..).ok_or(Error::OutOfBounds)?;
    buffer.try_extend_appended(bound, |w| match only {
        Encoder::Table { table, index, .. } => {
            dictionary::append(node, table, index, w, cursors, alloc)
        }
        Encoder::Take(take) => variable::take::append(take, node.options, w, cursors),
        _ => Err(Error::UnsupportedType),
    })?;
    check_end(cursors, buffer.len())?;
    Ok(true)
}

/// Bytes of rows zeroed and written at a time when there are more than
/// [`CHUNKED`] (a chunk of rows this size stays in the second-level cache
/// while each column writes its piece, so that the rows go to memory once,
/// not zeroed there first). Each chunk costs a slice of every column.
const CHUNK: usize = 256 * 1024;

/// Rows of more bytes than this are zeroed and written in chunks; fewer
/// are zeroed at once (they stay in the cache anyway).
const CHUNKED: usize = 1024 * 1024;

/// Rows of one dictionary of byte values taken per key whose values
/// average at least this many bytes (a block) are written in order
/// without zeroing them first; shorter ones are zeroed and written like
/// the others (measured faster for them: one bounds check a row instead
/// of two).
const APPEND_VALUE: usize = 32;

/// Rows of one dictionary column whose rows all have one width above this
/// many bytes are written in order without zeroing them first; up to it
/// they take the fixed-width path (fixed-size copies of short rows measured
/// faster there).
const APPEND_WIDTH: usize = 64;

/// Rows `r0..r1` of a column of `n` rows: `None` when that is all of it
/// (use the column itself), else a zero-copy slice.
fn sliced<'b, A: Allocator>(
    column: &ArrayRef<'b, A>,
    r0: usize,
    r1: usize,
    n: usize,
) -> Result<Option<ArrayRef<'b, A>>> {
    if r0 == 0 && r1 == n {
        return Ok(None);
    }
    column.slice(r0, r1 - r0).map(Some)
}

/// The last row must end at `end`.
fn check_end(cursors: &[usize], end: usize) -> Result<()> {
    if cursors.last().is_some_and(|&c| c != end) {
        return Err(Error::OutOfBounds);
    }
    Ok(())
}

/// At most how many bytes `n` rows of `encoders` take after `start` bytes
/// (so that sizes can be added without overflow checks), when every column
/// is fixed-width (`fixed` bytes a row in all) or a byte column
/// ([`byte_sizes::column_bound`]); `None` when a column is of another kind
/// or the bound does not fit in `usize`.
fn rows_bound<A: Allocator>(
    encoders: &[Encoder<'_, '_, A>],
    n: usize,
    fixed: usize,
    start: usize,
) -> Option<usize> {
    let mut total = fixed.checked_mul(n)?.checked_add(start)?;
    for enc in encoders {
        let bound = match enc {
            enc if fixed_width(enc).is_some() => 0,
            Encoder::Direct(column) => byte_sizes::column_bound(column, n)?,
            _ => return None,
        };
        total = total.checked_add(bound)?;
    }
    Some(total)
}

#[cfg(test)]
mod tests {
    use std::string::String;
    use std::vec::Vec;

    use crate::Global;

    use crate::array::{Array, ArrayRef, BooleanBuilder, NullArray, PrimitiveArray, StringArray};
    use crate::datatypes::DataType;
    use crate::row::{RowConverter, Rows, SortField, SortOptions};

    /// The rows of `columns` encoded in slices of `step` rows, back to back.
    fn in_slices(
        fields: &[SortField<'static, Global>],
        columns: &[ArrayRef<'static, Global>],
        step: usize,
    ) -> Vec<Vec<u8>> {
        let c = RowConverter::try_new(fields).unwrap();
        let n = columns[0].len();
        let mut out = Vec::new();
        for r0 in (0..n).step_by(step) {
            let len = step.min(n - r0);
            let part: Vec<_> = columns.iter().map(|c| c.slice(r0, len).unwrap()).collect();
            let rows = c.convert_columns(&part).unwrap();
            out.extend(rows.iter().map(|r| r.data().to_vec()));
        }
        out
    }

    fn all(rows: &Rows<Global>) -> Vec<Vec<u8>> {
        rows.iter().map(|r| r.data().to_vec()).collect()
    }

    /// Batches of more than `CHUNKED` bytes are zeroed and written a chunk
    /// of rows at a time: the same bytes as small batches, and offsets
    /// that run on across the chunks.
    #[test]
    fn chunked_batches_match_small_ones() {
        let n = 60_000;
        let words: Vec<String> = (0..n)
            .map(|i| "abcdefghij".repeat(i % 7).chars().take(i % 53).collect())
            .collect();
        let strs: Vec<Option<&str>> = (0..n)
            .map(|i| (i % 5 != 0).then(|| words[i].as_str()))
            .collect();
        let ints: Vec<Option<i64>> = (0..n)
            .map(|i| (i % 3 != 0).then_some(i as i64 * 7919 - 100_000))
            .collect();
        let mut b = BooleanBuilder::new_in(Global);
        for i in 0..n {
            b.try_append_option((i % 4 != 0).then_some(i % 3 == 1))
                .unwrap();
        }
        let s = StringArray::try_from_options_in(&strs, Global).unwrap();
        let x = PrimitiveArray::<i64, Global>::try_from_options_in(&ints, Global).unwrap();
        let bools = b.finish().into_array_ref();
        for opts in [SortOptions::default(), SortOptions::new(true, false)] {
            // Variable-length rows (~40 bytes each: over 2 MiB).
            let fields = [
                SortField::new_with_options(DataType::Int64, opts),
                SortField::new_with_options(DataType::Utf8, opts),
                SortField::new_with_options(DataType::Boolean, opts),
            ];
            let cols = [
                x.clone().into_array_ref(),
                s.clone().into_array_ref(),
                bools.clone(),
            ];
            let c = RowConverter::try_new(&fields).unwrap();
            let rows = c.convert_columns(&cols).unwrap();
            assert!(rows.size() > 2 * super::CHUNKED);
            assert_eq!(all(&rows), in_slices(&fields, &cols, 1000));
            // Appended after existing rows: offsets continue.
            let mut more = c
                .convert_columns(&[
                    cols[0].slice(0, 3).unwrap(),
                    cols[1].slice(0, 3).unwrap(),
                    cols[2].slice(0, 3).unwrap(),
                ])
                .unwrap();
            c.append(&mut more, &cols).unwrap();
            assert_eq!(all(&more)[3..], all(&rows)[..]);
            // Fixed-width rows (9 + 2 + 9 bytes each: 1.2 MB).
            let fields = [fields[0].clone(), fields[2].clone(), fields[0].clone()];
            let cols = [cols[0].clone(), cols[2].clone(), cols[0].clone()];
            let rows = c_rows(&fields, &cols);
            assert!(rows.size() > super::CHUNKED);
            assert_eq!(all(&rows), in_slices(&fields, &cols, 1000));
        }
    }

    /// The spec's bytes of a value of 100 bytes: three whole blocks, then
    /// four bytes zero padded and their count.
    #[test]
    fn long_value_bytes() {
        let value = [b'x'; 100];
        let col = StringArray::try_from_options_in(
            &[Some(core::str::from_utf8(&value).unwrap())],
            Global,
        )
        .unwrap()
        .into_array_ref();
        let rows = c_rows(&[SortField::new(DataType::Utf8)], &[col]);
        let mut want = std::vec![0x02u8];
        for _ in 0..3 {
            want.extend_from_slice(&[b'x'; 32]);
            want.push(0xFF);
        }
        want.extend_from_slice(&[b'x'; 4]);
        want.extend_from_slice(&[0; 28]);
        want.push(4);
        assert_eq!(all(&rows), [want]);
    }

    /// Decreasing offsets (an unchecked array) are the same error whether
    /// the column is appended alone or written beside another.
    #[test]
    fn long_byte_column_bad_offsets() {
        use crate::buffer::{Buffer, ScalarBuffer};
        let offsets = ScalarBuffer::try_copy_in(&[0i32, 100, 200, 150, 300], Global).unwrap();
        let values = Buffer::try_copy_in(&[b'a'; 300], Global).unwrap();
        // SAFETY: the array is only encoded, which checks the offsets.
        let col = unsafe { StringArray::new_unchecked(offsets, values, None) }.into_array_ref();
        let one = RowConverter::try_new(&[SortField::new(DataType::Utf8)]).unwrap();
        assert_eq!(
            one.convert_columns(core::slice::from_ref(&col)).err(),
            Some(crate::error::Error::OffsetOutOfBounds)
        );
        let two = RowConverter::try_new(&[
            SortField::new(DataType::Utf8),
            SortField::new(DataType::Null),
        ])
        .unwrap();
        assert_eq!(
            two.convert_columns(&[col, NullArray::new(4).into_array_ref()])
                .err(),
            Some(crate::error::Error::OffsetOutOfBounds)
        );
    }

    fn c_rows(
        fields: &[SortField<'static, Global>],
        cols: &[ArrayRef<'static, Global>],
    ) -> Rows<Global> {
        RowConverter::try_new(fields)
            .unwrap()
            .convert_columns(cols)
            .unwrap()
    }
}
