//! Decoding rows whose every column is fixed-width (Null, Boolean, the
//! primitive types, FixedSizeBinary): every row then has the same length,
//! the sum of the columns' widths, and each column's piece sits at the same
//! offset in every row. So no per-row cursors: a converter of one column
//! decodes each row as it comes from the caller's iterator (the piece is
//! the whole row: one length check); with several columns the rows are read
//! 64 at a time into a stack array (their lengths checked once) and each
//! column decodes its piece of those rows at its offset. Validity (and
//! boolean value) bits are one byte per row in a 64-byte scratch, packed 8
//! rows per bitmap byte. The checks are those of the cursor decoders in
//! [`super`]: a validity byte of `0x01` or the null sentinel, a
//! null's payload all zero, a boolean's value `0x00`/`0x01` (inverted when
//! descending), no bytes left over; every failure is [`Error::InvalidRow`]
//! (an iterator shorter than it said: [`Error::LengthMismatch`], first).

use core::mem::size_of;

use allocator_api2::alloc::Allocator;

use super::contiguous;
use super::FixedEncode;
use crate::array::{
    Array, ArrayRef, BooleanArray, FixedSizeBinaryArray, NullArray, PrimitiveArray,
};
use crate::buffer::TryVec;
use crate::buffer::{BooleanBuffer, MutableBuffer, NullBuffer, ScalarBuffer, SharedSlice};
use crate::datatypes::DataType;
use crate::error::{Error, Result};
use crate::row::decode::{fixed_len, is_variable, match_primitive};
use crate::row::source::RowSource;
use crate::row::{Kind, Node, SortOptions};

/// Rows decoded per step: one `u64` of validity bits.
const CHUNK: usize = 64;

/// As many zero bytes as the widest primitive (Decimal256).
const ZEROS: [u8; 32] = [0; 32];

/// The row width in bytes when every column of `nodes` is a fixed-width
/// leaf, `None` otherwise.
///
/// # Errors
/// [`Error::InvalidDataType`], [`Error::CapacityOverflow`].
pub(crate) fn row_width<A: Allocator>(nodes: &[Node<'_, A>]) -> Result<Option<usize>> {
    let mut width = 0usize;
    for node in nodes {
        if !matches!(node.kind, Kind::Leaf) || is_variable(&node.data_type) {
            return Ok(None);
        }
        width = width
            .checked_add(fixed_len(&node.data_type)?)
            .ok_or(Error::CapacityOverflow)?;
    }
    Ok(Some(width))
}

/// One column being decoded: its node, its offset in each row, and its
/// output buffers, sized for every row up front (zeroed: a null's value is
/// the default, its validity bit clear).
pub(super) struct Column<'n, 'a, A: Allocator> {
    pub(super) node: &'n Node<'a, A>,
    pub(super) offset: usize,
    /// Values: `n` slots of the primitive type, `n` × the width for
    /// FixedSizeBinary, a bitmap for booleans, nothing for Null.
    pub(super) values: MutableBuffer<A>,
    /// Validity bitmap, `n` bits.
    pub(super) validity: MutableBuffer<A>,
    pub(super) null_count: usize,
}

impl<'n, 'a, A: Allocator + Clone> Column<'n, 'a, A> {
    pub(super) fn try_new(
        node: &'n Node<'a, A>,
        offset: usize,
        n: usize,
        alloc: &A,
    ) -> Result<Self> {
        let bytes = match &node.data_type {
            DataType::Null => 0,
            DataType::Boolean => n.div_ceil(8),
            DataType::FixedSizeBinary(w) => {
                usize::try_from(*w).map_err(|_| Error::InvalidDataType)?
            }
            dt => dt.primitive_width().ok_or(Error::UnsupportedType)?,
        };
        let bytes = if matches!(node.data_type, DataType::Boolean) {
            bytes
        } else {
            bytes.checked_mul(n).ok_or(Error::CapacityOverflow)?
        };
        let mut values = MutableBuffer::new_in(alloc.clone());
        values.try_extend_zeros(bytes)?;
        let mut validity = MutableBuffer::new_in(alloc.clone());
        if !matches!(node.data_type, DataType::Null) {
            validity.try_extend_zeros(n.div_ceil(8))?;
        }
        Ok(Column {
            node,
            offset,
            values,
            validity,
            null_count: 0,
        })
    }

    /// Decodes this column's piece of up to `k` rows of `rows` (rows
    /// `base..base + k`, `base` a multiple of 64): `true` when a piece is
    /// malformed, and the number of rows read (less than `k` when `rows`
    /// ends early). `cut(row, len)` is the column's piece of a row, `len`
    /// bytes when the row is well-formed (any other length is malformed).
    /// Every row is read, malformed or not: no early exit, so the loops stay
    /// branch-free.
    ///
    /// Generic over the row source: the rows of one chunk (many columns) or
    /// all rows straight from the caller's iterator (one column: no chunk
    /// copied, the iterator kept in registers, the piece the whole row).
    #[inline(always)]
    pub(super) fn decode_range<'r>(
        &mut self,
        rows: impl Iterator<Item = &'r [u8]>,
        cut: impl Fn(&'r [u8], usize) -> Option<&'r [u8]>,
        k: usize,
        base: usize,
    ) -> Result<(bool, usize)> {
        use DataType::*;
        let opts = self.node.options;
        // Not for Null columns (no validity).
        let validity = self.validity.as_slice_mut().get_mut(base / 8..);
        macro_rules! prim {
            ($t:ty) => {{
                let out = self
                    .values
                    .typed_mut::<$t>()?
                    .get_mut(base..base + k)
                    .ok_or(Error::OutOfBounds)?;
                let validity = validity.ok_or(Error::OutOfBounds)?;
                let len = 1 + size_of::<$t>();
                let rows = rows.map(|r| cut(r, len));
                if opts.descending {
                    prim_rows::<$t, true>(rows, opts, out, validity)
                } else {
                    prim_rows::<$t, false>(rows, opts, out, validity)
                }
            }};
        }
        let (valid, bad, got) = match_primitive!(&self.node.data_type, prim, {
            Null => {
                let (mut bad, mut got) = (false, 0);
                for row in rows.take(k) {
                    bad |= cut(row, 0).is_none_or(|p| !p.is_empty());
                    got += 1;
                }
                return Ok((bad, got));
            }
            Boolean => {
                let values = self
                    .values
                    .as_slice_mut()
                    .get_mut(base / 8..)
                    .ok_or(Error::OutOfBounds)?;
                let validity = validity.ok_or(Error::OutOfBounds)?;
                bool_rows(rows.take(k).map(|r| cut(r, 2)), opts, values, validity)
            }
            FixedSizeBinary(w) => {
                let w = usize::try_from(*w).map_err(|_| Error::InvalidDataType)?;
                let out = self
                    .values
                    .as_slice_mut()
                    .get_mut(base * w..(base + k) * w)
                    .ok_or(Error::OutOfBounds)?;
                let rows = rows.take(k).map(|r| cut(r, 1 + w));
                let validity = validity.ok_or(Error::OutOfBounds)?;
                binary_rows(rows, w, opts, out, validity)
            }
            _ => return Err(Error::UnsupportedType),
        });
        self.null_count += got - valid;
        Ok((bad, got))
    }

    /// The decoded array (`n` rows); leaves the buffers empty.
    pub(super) fn finish(&mut self, n: usize) -> Result<ArrayRef<'a, A>> {
        use DataType::*;
        let dt = self.node.decoded();
        let alloc = self.values.allocator().clone();
        let values = core::mem::replace(&mut self.values, MutableBuffer::new_in(alloc.clone()));
        let validity = core::mem::replace(&mut self.validity, MutableBuffer::new_in(alloc));
        let nulls = if self.null_count == 0 || matches!(dt, Null) {
            None
        } else {
            let bits = BooleanBuffer::try_new(validity.into_buffer(), 0, n)?;
            Some(NullBuffer::try_new_with_count(bits, self.null_count)?)
        };
        macro_rules! prim {
            ($t:ty) => {
                PrimitiveArray::<$t, A>::try_new(
                    dt.clone(),
                    ScalarBuffer::try_from_buffer(values.into_buffer())?,
                    nulls,
                )?
                .into_array_ref()
            };
        }
        Ok(match_primitive!(dt, prim, {
            Null => NullArray::new(n).into_array_ref(),
            Boolean => {
                BooleanArray::try_new(BooleanBuffer::try_new(values.into_buffer(), 0, n)?, nulls)?
                    .into_array_ref()
            }
            FixedSizeBinary(_) => {
                FixedSizeBinaryArray::try_new(dt.clone(), n, values.into_buffer(), nulls)?
                    .into_array_ref()
            }
            _ => return Err(Error::UnsupportedType),
        }))
    }
}

/// Gathers per-row bits into bitmaps (bit `i` is bit `i % 8` of byte
/// `i / 8`): each row's bits are one byte stored in a 64-byte scratch (no
/// loop-carried dependency in the row loop), packed 8 rows per bitmap byte
/// with one multiplication every 64 rows. Bit `p` of a row's byte goes to
/// bitmap `p` of `PLANES`.
struct Bits<'b, const PLANES: usize> {
    out: [&'b mut [u8]; PLANES],
    scratch: [u8; CHUNK],
    /// Number of set bits stored, per bitmap.
    ones: [usize; PLANES],
    /// `false` when a bitmap was too short (sizes were miscomputed).
    fits: bool,
}

impl<'b, const PLANES: usize> Bits<'b, PLANES> {
    #[inline(always)]
    fn new(out: [&'b mut [u8]; PLANES]) -> Self {
        Bits {
            out,
            scratch: [0; CHUNK],
            ones: [0; PLANES],
            fits: true,
        }
    }

    /// Sets the bits of row `i`; rows must come in order, from 0.
    #[inline(always)]
    fn push(&mut self, i: usize, bits: u8) {
        if let Some(b) = self.scratch.get_mut(i % CHUNK) {
            *b = bits;
        }
        if i % CHUNK == CHUNK - 1 {
            self.store(i / CHUNK * 8, 8);
        }
    }

    /// Packs the scratch into `bytes` bytes of each bitmap from byte `at`.
    #[inline(always)]
    fn store(&mut self, at: usize, bytes: usize) {
        // Byte `k` of a word holds 0 or 1: the multiplication moves bit
        // `8k` to bit `56 + k` (the partial products never overlap).
        const SPREAD: u64 = 0x0102_0408_1020_4080;
        for (p, (out, ones)) in self.out.iter_mut().zip(self.ones.iter_mut()).enumerate() {
            let Some(out) = out.get_mut(at..at + bytes) else {
                self.fits = false;
                continue;
            };
            for (o, group) in out.iter_mut().zip(self.scratch.chunks_exact(8)) {
                let mut w = [0u8; 8];
                w.copy_from_slice(group);
                let x = (u64::from_le_bytes(w) >> p) & 0x0101_0101_0101_0101;
                *o = (x.wrapping_mul(SPREAD) >> 56) as u8;
                *ones += o.count_ones() as usize;
            }
        }
    }

    /// Stores the last partial chunk of `n` rows in all: the number of set
    /// bits of each bitmap.
    ///
    /// # Errors
    /// [`Error::OutOfBounds`] when a bitmap was too short.
    #[inline(always)]
    fn finish(mut self, n: usize) -> Result<[usize; PLANES]> {
        if n % CHUNK != 0 {
            if let Some(stale) = self.scratch.get_mut(n % CHUNK..) {
                stale.fill(0);
            }
            self.store(n / CHUNK * 8, (n % CHUNK).div_ceil(8));
        }
        if self.fits {
            Ok(self.ones)
        } else {
            Err(Error::OutOfBounds)
        }
    }
}

/// Decodes primitive pieces (`1 +` the width, any other length is
/// malformed) into `out` (one slot per piece, at most `out.len()` read) and
/// their validity bits into `validity`: the number of valid pieces, `true`
/// when a piece is malformed, and the number of pieces read. `DESC` is the
/// sort direction (a constant, so the inversion vanishes when ascending).
#[inline(always)]
fn prim_rows<'r, T: FixedEncode, const DESC: bool>(
    pieces: impl Iterator<Item = Option<&'r [u8]>>,
    opts: SortOptions,
    out: &mut [T],
    validity: &mut [u8],
) -> (usize, bool, usize) {
    let null = opts.null_sentinel();
    let w = size_of::<T::Bytes>();
    let mut bits = Bits::new([validity]);
    let (mut bad, mut got) = (false, 0);
    // `out` first: the zip stops without taking a piece past the last slot.
    for (i, (slot, piece)) in out.iter_mut().zip(pieces).enumerate() {
        got = i + 1;
        // One length check: the split and the conversion to an array.
        let (head, mut b) = match piece.and_then(<[u8]>::split_first) {
            Some((&head, payload)) => match T::Bytes::try_from(payload) {
                Ok(b) => (head, b),
                Err(_) => {
                    bad = true;
                    continue;
                }
            },
            None => {
                bad = true;
                continue;
            }
        };
        let is_valid = head == 1;
        // A constant-length comparison: one word compare, not a byte loop.
        let zero = ZEROS.get(..w).is_some_and(|z| b.as_ref() == z);
        bad |= !is_valid & !((head == null) & zero);
        if DESC {
            b.as_mut().iter_mut().for_each(|x| *x = !*x);
        }
        *slot = if is_valid { T::decode(b) } else { T::default() };
        bits.push(i, u8::from(is_valid));
    }
    match bits.finish(got) {
        Ok([valid]) => (valid, bad, got),
        Err(_) => (0, true, got),
    }
}

/// Decodes boolean pieces (2 bytes) into the bitmaps `values` and
/// `validity` (at most 8 × their length): as [`prim_rows`].
#[inline(always)]
fn bool_rows<'r>(
    pieces: impl Iterator<Item = Option<&'r [u8]>>,
    opts: SortOptions,
    values: &mut [u8],
    validity: &mut [u8],
) -> (usize, bool, usize) {
    // The three well-formed pieces as little-endian `u16`s.
    let flip = if opts.descending { 0xFF } else { 0 };
    let is_false = u16::from_le_bytes([1, flip]);
    let is_true = u16::from_le_bytes([1, 1 ^ flip]);
    let is_null = u16::from_le_bytes([opts.null_sentinel(), 0]);
    // Bit 0: the value, bit 1: the validity.
    let mut bits = Bits::new([values, validity]);
    let (mut bad, mut got) = (false, 0);
    for (i, piece) in pieces.enumerate() {
        got = i + 1;
        let p = match piece {
            Some(&[head, b]) => u16::from_le_bytes([head, b]),
            _ => 0xFFFF,
        };
        let (t, f) = (p == is_true, p == is_false);
        bad |= !(t | f | (p == is_null));
        bits.push(i, u8::from(t) | (u8::from(t | f) << 1));
    }
    match bits.finish(got) {
        Ok([_, valid]) => (valid, bad, got),
        _ => (0, true, got),
    }
}

/// Decodes fixed-size binary pieces (`1 + w` bytes) into `out` (`w` bytes
/// per piece, zeroed; at most `out.len() / w` pieces) and `validity`: as
/// [`prim_rows`].
fn binary_rows<'r>(
    pieces: impl Iterator<Item = Option<&'r [u8]>>,
    w: usize,
    opts: SortOptions,
    out: &mut [u8],
    validity: &mut [u8],
) -> (usize, bool, usize) {
    let null = opts.null_sentinel();
    let mut bits = Bits::new([validity]);
    let (mut bad, mut got) = (false, 0);
    for (i, piece) in pieces.enumerate() {
        got = i + 1;
        let dst = out.get_mut(i * w..(i + 1) * w);
        let (Some((&head, payload)), Some(dst)) = (piece.and_then(<[u8]>::split_first), dst) else {
            bad = true;
            continue;
        };
        if payload.len() != w {
            bad = true;
        } else if head == 1 {
            dst.copy_from_slice(payload);
            if opts.descending {
                dst.iter_mut().for_each(|x| *x = !*x);
            }
        } else if head != null || payload.iter().any(|&x| x != 0) {
            bad = true;
        }
        bits.push(i, u8::from(head == 1));
    }
    match bits.finish(got) {
        Ok([valid]) => (valid, bad, got),
        Err(_) => (0, true, got),
    }
}

/// Decodes the rows of `source` (each exactly `width` bytes) into one
/// column per node, every node a fixed-width leaf (see [`row_width`]):
/// rows stored back to back straight from their buffer
/// ([`super::contiguous`]), any others one by one.
///
/// # Errors
/// [`Error::InvalidRow`] for a row of another length or a malformed piece;
/// [`Error::LengthMismatch`] when the iterator yields fewer rows than it
/// reported; [`Error::AllocationFailed`]; [`Error::CapacityOverflow`].
pub(crate) fn decode_rows<'a, 'r, A, S>(
    nodes: &[Node<'a, A>],
    width: usize,
    source: S,
    alloc: &A,
) -> Result<SharedSlice<'a, ArrayRef<'a, A>, A>>
where
    A: Allocator + Clone,
    S: RowSource<'r>,
{
    let columns_of = |n: usize| {
        let mut offset = 0usize;
        TryVec::try_from_fn_in(nodes.len(), alloc.clone(), |i| {
            let node = nodes.get(i).ok_or(Error::OutOfBounds)?;
            let c = Column::try_new(node, offset, n, alloc)?;
            offset += fixed_len(&node.data_type)?;
            Ok(c)
        })
    };
    let finish = |mut columns: TryVec<Column<'_, 'a, A>, A>, n: usize| {
        SharedSlice::try_from_fn_in(nodes.len(), alloc.clone(), |i| {
            columns.get_mut(i).ok_or(Error::OutOfBounds)?.finish(n)
        })
    };
    let contiguous = source.contiguous();
    if let Some((rows, data)) = contiguous.and_then(|r| Some((r, contiguous::uniform(r, width)?))) {
        // Rows back to back, every one `width` bytes: straight from the buffer.
        let n = rows.len();
        let mut columns = columns_of(n)?;
        contiguous::decode_uniform(&mut columns, data, width, n)?;
        return finish(columns, n);
    }
    let mut rows = source.rows();
    let n = rows.len();
    let mut columns = columns_of(n)?;
    if let [column] = &mut *columns {
        // One column: its decoder reads every row straight from the iterator.
        let rows = rows.map(|r| r.data());
        let (bad, got) = column.decode_range(rows, |row, _| Some(row), n, 0)?;
        if got < n {
            return Err(Error::LengthMismatch);
        }
        if bad {
            return Err(Error::InvalidRow);
        }
    } else {
        // Many columns: 64 rows at a time, their lengths checked once, then
        // each column decodes its piece of them.
        let mut chunk: [&[u8]; CHUNK] = [&[]; CHUNK];
        let mut base = 0;
        while base < n {
            let k = (n - base).min(CHUNK);
            let rows_k = chunk.get_mut(..k).ok_or(Error::OutOfBounds)?;
            let mut bad = false;
            for slot in rows_k.iter_mut() {
                let row = rows.next().ok_or(Error::LengthMismatch)?.data();
                bad |= row.len() != width;
                *slot = row;
            }
            if !bad {
                for c in columns.iter_mut() {
                    let at = c.offset;
                    let cut = |row: &'r [u8], len: usize| row.get(at..at + len);
                    bad |= c.decode_range(rows_k.iter().copied(), cut, k, base)?.0;
                }
            }
            base += k;
            if bad {
                // The cursor decoders read every row before any is decoded:
                // an iterator that ends early is a length mismatch first.
                let rest = n - base;
                return Err(if rows.take(rest).count() < rest {
                    Error::LengthMismatch
                } else {
                    Error::InvalidRow
                });
            }
        }
    }
    finish(columns, n)
}

#[cfg(test)]
mod tests {
    use std::vec::Vec;

    use crate::row::Row;

    use crate::Global;

    use super::*;
    use crate::datatypes::{IntervalUnit, TimeUnit};
    use crate::row::test_model::{
        converter_of as converter, decode_by_cursors, mutate_row, random_fixed_row as random_row,
        Rng,
    };
    use crate::row::RowConverter;

    type G = Global;

    /// The general decoder: the reference.
    fn by_cursors(
        c: &RowConverter<'static, G>,
        rows: &[&[u8]],
    ) -> Result<Vec<ArrayRef<'static, G>>> {
        decode_by_cursors(c, rows)
    }

    /// The fast path (through `convert_rows`), as a `Vec`.
    fn fast(c: &RowConverter<'static, G>, rows: &[&[u8]]) -> Result<Vec<ArrayRef<'static, G>>> {
        let cols = c.convert_rows(rows.iter().map(|r| Row::new(r)))?;
        Ok(cols.iter().cloned().collect())
    }

    fn schemas() -> Vec<Vec<(DataType<'static, G>, SortOptions)>> {
        use DataType::*;
        let (asc, desc, last) = (
            SortOptions::default(),
            SortOptions::new(true, true),
            SortOptions::new(false, false),
        );
        let ts = Timestamp(TimeUnit::Microsecond, None);
        std::vec![
            std::vec![(Boolean, asc)],
            std::vec![(Boolean, SortOptions::new(true, false))],
            std::vec![(UInt64, asc)],
            std::vec![(Int64, desc)],
            std::vec![(Int8, last)],
            std::vec![(Float16, desc)],
            std::vec![(Float64, asc)],
            std::vec![(Decimal128(38, 2), last)],
            std::vec![(Decimal256(76, 0), desc)],
            std::vec![(Interval(IntervalUnit::MonthDayNano), asc)],
            std::vec![(FixedSizeBinary(3), desc)],
            std::vec![(FixedSizeBinary(0), last)],
            std::vec![(Null, asc)],
            std::vec![],
            std::vec![
                (Int32, asc),
                (Boolean, desc),
                (Null, asc),
                (ts, last),
                (FixedSizeBinary(5), asc),
                (Interval(IntervalUnit::DayTime), desc),
                (Float32, last),
                (UInt16, asc),
            ],
            std::vec![(Boolean, asc), (Boolean, last), (Date32, desc)],
        ]
    }

    #[test]
    fn only_fixed_width_leaves_take_the_fast_path() {
        use DataType::*;
        let c = converter(&[
            (Int32, SortOptions::default()),
            (Boolean, SortOptions::default()),
        ]);
        assert_eq!(row_width(&c.nodes), Ok(Some(7)));
        let c = converter(&[
            (Int32, SortOptions::default()),
            (Utf8, SortOptions::default()),
        ]);
        assert_eq!(row_width(&c.nodes), Ok(None));
        let c = converter(&[
            (Null, SortOptions::default()),
            (FixedSizeBinary(4), SortOptions::default()),
        ]);
        assert_eq!(row_width(&c.nodes), Ok(Some(5)));
    }

    /// Well-formed rows decode as the cursor decoder decodes them, for row
    /// counts around the 64-row chunks.
    #[test]
    fn same_columns_as_the_cursor_decoder() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        for types in schemas() {
            let c = converter(&types);
            for n in [0, 1, 7, 63, 64, 65, 130, 200] {
                let rows: Vec<Vec<u8>> = (0..n).map(|_| random_row(&mut rng, &types)).collect();
                let refs: Vec<&[u8]> = rows.iter().map(|r| r.as_slice()).collect();
                let want = by_cursors(&c, &refs).unwrap();
                let got = fast(&c, &refs).unwrap();
                assert_eq!(got.len(), types.len());
                for (g, w) in got.iter().zip(&want) {
                    assert!(g == w, "{types:?} n={n}: {g:?} != {w:?}");
                    assert_eq!(g.len(), n);
                    assert_eq!(g.null_count(), w.null_count());
                }
            }
        }
    }

    /// Malformed rows (a byte changed, a row cut short or extended) give
    /// the cursor decoder's error.
    #[test]
    fn same_errors_as_the_cursor_decoder() {
        let mut rng = Rng(0xD1B5_4A32_D192_ED03);
        let mut errors = 0;
        for types in schemas() {
            let c = converter(&types);
            for round in 0..300 {
                let n = [1, 5, 64, 70, 129][round % 5];
                let mut rows: Vec<Vec<u8>> = (0..n).map(|_| random_row(&mut rng, &types)).collect();
                let victim = &mut rows[rng.below(n as u64) as usize];
                mutate_row(&mut rng, victim);
                let refs: Vec<&[u8]> = rows.iter().map(|r| r.as_slice()).collect();
                let want = by_cursors(&c, &refs);
                let got = fast(&c, &refs);
                match (&got, &want) {
                    (Ok(g), Ok(w)) => assert!(g == w, "{types:?}: {rows:?}"),
                    (Err(g), Err(w)) => {
                        assert_eq!(g, w, "{types:?}: {rows:?}");
                        errors += 1;
                    }
                    _ => panic!("{types:?}: {rows:?}: {got:?} vs {want:?}"),
                }
            }
        }
        assert!(errors > 1000, "{errors}");
    }

    #[test]
    fn malformed_fixed_width_rows() {
        use DataType::*;
        let asc = SortOptions::default();
        let err = |types: &[(DataType<'static, G>, SortOptions)], rows: &[&[u8]]| {
            fast(&converter(types), rows).unwrap_err()
        };
        let two = [(Int16, asc), (Boolean, asc)];
        // Well-formed: 1, then true / a null, then a null.
        let ok: &[&[u8]] = &[&[1, 0x80, 1, 1, 1], &[0, 0, 0, 1, 0], &[1, 0x80, 0, 0, 0]];
        let cols = fast(&converter(&two), ok).unwrap();
        assert_eq!(cols[0].null_count(), 1);
        assert_eq!(cols[1].null_count(), 1);
        // Wrong lengths, in the first chunk or a later one.
        assert_eq!(err(&two, &[&[1, 0x80, 1, 1]]), Error::InvalidRow);
        assert_eq!(err(&two, &[&[1, 0x80, 1, 1, 1, 0]]), Error::InvalidRow);
        let mut many: Vec<&[u8]> = std::vec![&[1, 0x80, 1, 1, 1]; 100];
        many[99] = &[1, 0x80, 1, 1, 1, 1];
        assert_eq!(err(&two, &many), Error::InvalidRow);
        // A validity byte neither 0x01 nor the sentinel.
        assert_eq!(err(&two, &[&[2, 0x80, 1, 1, 1]]), Error::InvalidRow);
        assert_eq!(err(&two, &[&[0xFF, 0, 0, 1, 1]]), Error::InvalidRow);
        // A null with a non-zero payload.
        assert_eq!(err(&two, &[&[0, 0, 1, 1, 1]]), Error::InvalidRow);
        assert_eq!(err(&two, &[&[1, 0x80, 1, 0, 1]]), Error::InvalidRow);
        // A boolean value other than 0 / 1 (inverted when descending).
        assert_eq!(err(&two, &[&[1, 0x80, 1, 1, 2]]), Error::InvalidRow);
        let desc = [(Boolean, SortOptions::new(true, true))];
        assert_eq!(err(&desc, &[&[1, 1]]), Error::InvalidRow);
        assert!(fast(&converter(&desc), &[&[1, 0xFE], &[1, 0xFF]]).is_ok());
        // One column: a whole-row piece of the wrong length.
        let one = [(Boolean, asc)];
        assert_eq!(err(&one, &[&[1]]), Error::InvalidRow);
        assert_eq!(err(&one, &[&[1, 1, 0]]), Error::InvalidRow);
        assert_eq!(err(&[(UInt64, asc)], &[&[1; 8]]), Error::InvalidRow);
        assert_eq!(
            err(&[(FixedSizeBinary(2), asc)], &[&[0, 0, 1]]),
            Error::InvalidRow
        );
        // Null columns take no bytes: anything else is trailing.
        assert_eq!(err(&[(Null, asc)], &[&[], &[0]]), Error::InvalidRow);
        assert_eq!(err(&[], &[&[0]]), Error::InvalidRow);
    }

    /// An iterator yielding fewer rows than it reports: a length mismatch,
    /// even when an earlier row is malformed (the cursor decoder collects
    /// every row first).
    #[test]
    fn short_iterator_is_a_length_mismatch() {
        use DataType::*;
        struct Liar<'r>(core::slice::Iter<'r, &'r [u8]>, usize);
        impl<'r> Iterator for Liar<'r> {
            type Item = Row<'r>;
            fn next(&mut self) -> Option<Row<'r>> {
                self.1 = self.1.saturating_sub(1);
                self.0.next().map(|r| Row::new(r))
            }
            fn size_hint(&self) -> (usize, Option<usize>) {
                (self.1, Some(self.1))
            }
        }
        impl ExactSizeIterator for Liar<'_> {}
        let asc = SortOptions::default();
        for types in [
            std::vec![(Boolean, asc)],
            std::vec![(Boolean, asc), (Int8, asc)],
        ] {
            let c = converter(&types);
            let good: &[u8] = if types.len() == 1 {
                &[1, 0]
            } else {
                &[1, 0, 1, 0x80]
            };
            let rows: Vec<&[u8]> = std::vec![good; 70];
            let r = c.convert_rows(Liar(rows.iter(), 80)).map(|_| ());
            assert_eq!(r, Err(Error::LengthMismatch));
            let mut bad = rows.clone();
            bad[3] = &[7, 7];
            let r = c.convert_rows(Liar(bad.iter(), 80)).map(|_| ());
            assert_eq!(r, Err(Error::LengthMismatch));
            // More rows than reported: the extra ones are not read.
            let r = c.convert_rows(Liar(rows.iter(), 60)).unwrap();
            assert_eq!(r[0].len(), 60);
        }
    }
}
