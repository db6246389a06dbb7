//! The contiguous-rows path of [`super::rows::decode_rows`]: rows stored
//! back to back (a [`Rows`](crate::row::Rows)) decode straight from the
//! byte buffer, with no per-row iterator and no per-row length check.
//!
//! One pass over the offsets checks that row `i` starts at
//! `start + i × width` (every row then has the converter's width); the
//! rows are then the bytes `start..start + n × width` and each column
//! decodes its piece of every row at its offset, column by column.
//! Booleans go 8 rows per bitmap byte, their three well-formed pieces
//! compared as `u16`s. Every byte is checked as the row-by-row path checks
//! it; when a row has another length (or there are no rows) the row-by-row
//! path decodes them, so the result and the errors are the same.

use allocator_api2::alloc::Allocator;

use super::rows::Column;
use crate::datatypes::DataType;
use crate::error::{Error, Result};
use crate::row::source::Contiguous;
use crate::row::SortOptions;

/// The bytes of all rows of `rows`, back to back, when every row is
/// `width` bytes long (`width > 0`, at least one row); `None` otherwise.
pub(super) fn uniform(rows: Contiguous<'_>, width: usize) -> Option<&[u8]> {
    let offsets = rows.offsets();
    let n = rows.len();
    if width == 0 || n == 0 || offsets.len() != n.checked_add(1)? {
        return None;
    }
    let start = *offsets.first()?;
    // One branch-free pass: offset `i` must be `start + i × width`. The
    // differences are or-ed together (no compare per offset): 4 lanes with
    // their own expected offsets, so the loop vectorises.
    let step = width.wrapping_mul(4);
    let mut want: [usize; 4] = core::array::from_fn(|j| start.wrapping_add(j * width));
    let mut diff = [0usize; 4];
    let mut quads = offsets.chunks_exact(4);
    for q in quads.by_ref() {
        for ((d, w), &o) in diff.iter_mut().zip(want.iter_mut()).zip(q) {
            *d |= o ^ *w;
            *w = w.wrapping_add(step);
        }
    }
    for (&o, w) in quads.remainder().iter().zip(want) {
        diff[0] |= o ^ w;
    }
    if diff != [0; 4] {
        return None;
    }
    let end = start.checked_add(n.checked_mul(width)?)?;
    rows.data().get(start..end)
}

/// Decodes `data` (`n` rows of `width` bytes, checked by [`uniform`])
/// into `columns`, column by column.
///
/// # Errors
/// [`Error::InvalidRow`] for a malformed piece; [`Error::CapacityOverflow`].
pub(super) fn decode_uniform<A: Allocator + Clone>(
    columns: &mut [Column<'_, '_, A>],
    data: &[u8],
    width: usize,
    n: usize,
) -> Result<()> {
    let single = columns.len() == 1;
    for c in columns.iter_mut() {
        let bad = if matches!(c.node.data_type, DataType::Boolean) {
            decode_booleans(c, data, width, n)?
        } else if single {
            // The piece is the whole row, already of the right length.
            c.decode_range(data.chunks_exact(width), |row, _| Some(row), n, 0)?
                .0
        } else {
            c.decode_range(data.chunks_exact(width), piece_at(c.offset), n, 0)?
                .0
        };
        if bad {
            return Err(Error::InvalidRow);
        }
    }
    Ok(())
}

/// The piece of a row at byte `at`, `len` bytes (`None` when the row is
/// shorter: malformed).
fn piece_at<'r>(at: usize) -> impl Fn(&'r [u8], usize) -> Option<&'r [u8]> {
    move |row, len| row.get(at..at + len)
}

/// Bit 15 of every 16-bit lane of a `u64`, and the other bits.
const HIGH: u64 = 0x8000_8000_8000_8000;
const LOW: u64 = !HIGH;

/// Bit 15 of each 16-bit lane of `y` set when that lane is non-zero (no
/// carry crosses lanes: a lane's low 15 bits plus `0x7FFF` stay below
/// `0x10000`).
#[inline(always)]
fn nonzero(y: u64) -> u64 {
    ((y & LOW).wrapping_add(LOW) | y) & HIGH
}

/// Bits 15, 31, 47 and 63 of `m` (no other bit set) as bits 0 to 3: the
/// multiplication moves bit `16k` (after the shift) to bit `48 + k`; its
/// other partial products are distinct bits outside 48..52, so nothing
/// carries into them.
#[inline(always)]
fn gather4(m: u64) -> u8 {
    const SPREAD: u64 = 1 << 48 | 1 << 33 | 1 << 18 | 1 << 3;
    ((m >> 15).wrapping_mul(SPREAD) >> 48) as u8 & 0xF
}

/// The three well-formed boolean pieces (validity byte, value byte), as
/// little-endian `u16`s repeated in the four lanes of a `u64`: true, false,
/// null.
#[derive(Clone, Copy)]
struct Pieces {
    t: u64,
    f: u64,
    null: u64,
}

impl Pieces {
    fn new(opts: SortOptions) -> Self {
        let flip = if opts.descending { 0xFF } else { 0 };
        let lanes = |h: u8, b: u8| u64::from(u16::from_le_bytes([h, b])) * 0x0001_0001_0001_0001;
        Pieces {
            t: lanes(1, 1 ^ flip),
            f: lanes(1, flip),
            null: lanes(opts.null_sentinel(), 0),
        }
    }

    /// The null piece, one lane.
    fn null_piece(self) -> u16 {
        self.null as u16
    }

    /// Classifies the 4 pieces in the lanes of `x` (piece `j` in bits
    /// `16j..16j + 16`): the value bits and the validity bits (bit `j` for
    /// piece `j`), and a word that is non-zero when a piece is malformed.
    #[inline(always)]
    fn classify4(self, x: u64) -> (u8, u8, u64) {
        let not_t = nonzero(x ^ self.t);
        let not_f = nonzero(x ^ self.f);
        let not_null = nonzero(x ^ self.null);
        let invalid = not_t & not_f;
        (
            gather4(not_t ^ HIGH),
            gather4(invalid ^ HIGH),
            invalid & not_null,
        )
    }

    /// [`Self::classify4`] for 8 pieces: two words of 4.
    #[inline(always)]
    fn classify8(self, lo: u64, hi: u64) -> (u8, u8, u64) {
        let (t0, v0, b0) = self.classify4(lo);
        let (t1, v1, b1) = self.classify4(hi);
        (t0 | t1 << 4, v0 | v1 << 4, b0 | b1)
    }
}

/// 4 pieces, each the 2 bytes at `at` of the next row of `rows` (a missing
/// row: a null piece, well-formed; a row too short: `0xFFFF`, never
/// well-formed), as the lanes of a `u64`.
#[inline(always)]
fn lanes4<'r>(rows: &mut impl Iterator<Item = &'r [u8]>, at: usize, null: u16) -> u64 {
    let mut x = 0u64;
    for j in 0..4 {
        let p = match rows.next().map(|r| r.get(at..at + 2)) {
            Some(Some(&[h, b])) => u16::from_le_bytes([h, b]),
            Some(_) => 0xFFFF,
            None => null,
        };
        x |= u64::from(p) << (16 * j);
    }
    x
}

/// Decodes the boolean column `c` from `data` (`n` rows of `width` bytes,
/// the column's 2-byte piece at `c.offset`) into its value and validity
/// bitmaps, 8 rows per byte (8 pieces compared at once as two `u64`s of
/// four 16-bit lanes): `true` when a piece is malformed.
///
/// # Errors
/// [`Error::OutOfBounds`] when a bitmap is shorter than `n` bits.
fn decode_booleans<A: Allocator + Clone>(
    c: &mut Column<'_, '_, A>,
    data: &[u8],
    width: usize,
    n: usize,
) -> Result<bool> {
    let pieces = Pieces::new(c.node.options);
    let null = pieces.null_piece();
    let at = c.offset;
    let bytes = n.div_ceil(8);
    let values = c
        .values
        .as_slice_mut()
        .get_mut(..bytes)
        .ok_or(Error::OutOfBounds)?;
    let validity = c
        .validity
        .as_slice_mut()
        .get_mut(..bytes)
        .ok_or(Error::OutOfBounds)?;
    let mut bad = 0u64;
    let group = width.checked_mul(8).ok_or(Error::CapacityOverflow)?;
    let mut groups = data.chunks_exact(group);
    let mut out = values.iter_mut().zip(validity.iter_mut());
    if width == 2 && at == 0 {
        // The row is the piece: 16 bytes are 8 pieces, two words as they lie.
        for (g, (val, vld)) in groups.by_ref().zip(out.by_ref()) {
            let Ok(w) = <[u8; 16]>::try_from(g) else {
                bad = 1;
                continue;
            };
            let x = u128::from_le_bytes(w);
            let (t, v, b) = pieces.classify8(x as u64, (x >> 64) as u64);
            bad |= b;
            *val = t;
            *vld = v;
        }
    } else {
        for (g, (val, vld)) in groups.by_ref().zip(out.by_ref()) {
            let mut rows = g.chunks_exact(width);
            let lo = lanes4(&mut rows, at, null);
            let hi = lanes4(&mut rows, at, null);
            let (t, v, b) = pieces.classify8(lo, hi);
            bad |= b;
            *val = t;
            *vld = v;
        }
    }
    // The last rows (fewer than 8): the missing ones are nulls.
    if let Some((val, vld)) = out.next() {
        let mut rows = groups.remainder().chunks_exact(width);
        let lo = lanes4(&mut rows, at, null);
        let hi = lanes4(&mut rows, at, null);
        let (t, v, b) = pieces.classify8(lo, hi);
        bad |= b;
        *val = t;
        *vld = v;
    }
    // Bits past row `n` are clear: the valid rows are the set bits.
    let valid: usize = validity
        .chunks(8)
        .map(|w| {
            let mut word = [0u8; 8];
            word.iter_mut().zip(w).for_each(|(d, s)| *d = *s);
            u64::from_le_bytes(word).count_ones() as usize
        })
        .sum();
    c.null_count += n - valid.min(n);
    Ok(bad != 0)
}

#[cfg(test)]
mod tests {
    use crate::array::ArrayRef;
    use crate::row::Rows;
    use std::vec::Vec;

    use crate::Global;

    use super::*;
    use crate::array::Array;
    use crate::datatypes::{IntervalUnit, TimeUnit};
    use crate::row::test_model::{
        converter_of as converter, mutate_row, random_fixed_row as random_row, Rng,
    };
    use crate::row::{Row, RowConverter, SortField};

    type G = Global;
    type Schema = Vec<(DataType<'static, G>, SortOptions)>;

    fn rows_of(rows: &[Vec<u8>]) -> Rows<G> {
        let mut r = Rows::new_in(Global);
        for row in rows {
            r.try_push(Row::new(row)).unwrap();
        }
        r
    }

    /// `convert_all_rows` gives what `convert_rows(rows.iter())` gives,
    /// columns or error; the error, if any.
    fn check(c: &RowConverter<'static, G>, rows: &Rows<G>) -> Option<Error> {
        let want = c.convert_rows(rows.iter());
        let got = c.convert_all_rows(rows);
        match (&got, &want) {
            (Ok(g), Ok(w)) => {
                assert_eq!(g.len(), w.len());
                for (g, w) in g.iter().zip(w.iter()) {
                    assert!(g == w, "{rows:?}: {g:?} != {w:?}");
                    assert_eq!(g.len(), rows.len());
                    assert_eq!(g.null_count(), w.null_count());
                }
                None
            }
            (Err(g), Err(w)) => {
                assert_eq!(g, w, "{rows:?}");
                Some(*g)
            }
            _ => panic!("{rows:?}: {got:?} vs {want:?}"),
        }
    }

    /// Every fixed-width type under each of the four sort options, alone,
    /// and a few mixes (and two converters that are not fixed-width).
    fn schemas() -> Vec<Schema> {
        use DataType::*;
        let opts = [
            SortOptions::new(false, true),
            SortOptions::new(false, false),
            SortOptions::new(true, true),
            SortOptions::new(true, false),
        ];
        let types: Vec<DataType<'static, G>> = std::vec![
            Null,
            Boolean,
            Int8,
            Int16,
            Int32,
            Int64,
            UInt8,
            UInt16,
            UInt32,
            UInt64,
            Float16,
            Float32,
            Float64,
            Date32,
            Date64,
            Time32(TimeUnit::Second),
            Time64(TimeUnit::Nanosecond),
            Timestamp(TimeUnit::Microsecond, None),
            Duration(TimeUnit::Millisecond),
            Decimal32(9, 2),
            Decimal64(18, 2),
            Decimal128(38, 2),
            Decimal256(76, 0),
            Interval(IntervalUnit::YearMonth),
            Interval(IntervalUnit::DayTime),
            Interval(IntervalUnit::MonthDayNano),
            FixedSizeBinary(3),
            FixedSizeBinary(0),
        ];
        let mut out: Vec<Schema> = Vec::new();
        for t in &types {
            for o in opts {
                out.push(std::vec![(t.clone(), o)]);
            }
        }
        let [a, b, c, d] = opts;
        out.push(std::vec![(Boolean, a), (Boolean, d)]);
        out.push(std::vec![(Int32, a), (Boolean, c), (Null, a), (UInt16, b)]);
        out.push(std::vec![
            (Boolean, b),
            (FixedSizeBinary(5), d),
            (Float64, c)
        ]);
        out.push(std::vec![(Int64, c), (Boolean, a)]);
        out.push(std::vec![(Null, b), (Boolean, c), (Null, d)]);
        out.push(std::vec![(FixedSizeBinary(0), a), (Boolean, d)]);
        out.push(std::vec![]);
        out.push(std::vec![(Utf8, a)]);
        out.push(std::vec![(Int32, a), (Binary, c)]);
        out
    }

    fn random_rows(rng: &mut Rng, types: &Schema, n: usize) -> Vec<Vec<u8>> {
        let variable = types
            .iter()
            .any(|(t, _)| matches!(t, DataType::Utf8 | DataType::Binary));
        if variable {
            // Not fixed-width: random bytes, mostly malformed.
            return (0..n)
                .map(|_| (0..rng.below(6)).map(|_| rng.next() as u8).collect())
                .collect();
        }
        (0..n).map(|_| random_row(rng, types)).collect()
    }

    #[test]
    fn same_columns_as_convert_rows() {
        let mut rng = Rng(0x2545_F491_4F6C_DD1D);
        for types in schemas() {
            let c = converter(&types);
            for n in [0, 1, 7, 8, 9, 63, 64, 65, 130, 200] {
                let rows = random_rows(&mut rng, &types, n);
                check(&c, &rows_of(&rows));
            }
        }
    }

    /// Malformed rows (a byte changed, a row cut short or extended) give
    /// `convert_rows`'s error.
    #[test]
    fn same_errors_as_convert_rows() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let mut errors = 0;
        for types in schemas() {
            let c = converter(&types);
            for round in 0..40 {
                let n = [1, 5, 8, 64, 70, 129][round % 6];
                let mut rows = random_rows(&mut rng, &types, n);
                let victim = &mut rows[rng.below(n as u64) as usize];
                mutate_row(&mut rng, victim);
                errors += usize::from(check(&c, &rows_of(&rows)).is_some());
            }
        }
        assert!(errors > 2000, "{errors}");
    }

    #[test]
    fn malformed_rows_are_invalid() {
        use DataType::*;
        let asc = SortOptions::default();
        let err = |types: &[(DataType<'static, G>, SortOptions)], rows: &[&[u8]]| {
            let rows: Vec<Vec<u8>> = rows.iter().map(|r| r.to_vec()).collect();
            let rows = rows_of(&rows);
            let c = converter(types);
            let e = c.convert_all_rows(&rows).unwrap_err();
            assert_eq!(check(&c, &rows), Some(e));
            e
        };
        let bool1 = [(Boolean, asc)];
        let two = [(Int16, asc), (Boolean, asc)];
        let good: &[u8] = &[1, 0x80, 1, 1, 1];
        // Wrong length, in the first group of 8 rows or a later one.
        assert_eq!(err(&two, &[&[1, 0x80, 1, 1]]), Error::InvalidRow);
        assert_eq!(
            err(&two, &[good, &[1, 0x80, 1, 1, 1, 0]]),
            Error::InvalidRow
        );
        let mut many: Vec<&[u8]> = std::vec![&[1, 1]; 100];
        many[99] = &[1, 1, 1];
        assert_eq!(err(&bool1, &many), Error::InvalidRow);
        many[99] = &[1];
        assert_eq!(err(&bool1, &many), Error::InvalidRow);
        // A validity byte neither 0x01 nor the sentinel.
        assert_eq!(err(&two, &[good, &[2, 0x80, 1, 1, 1]]), Error::InvalidRow);
        assert_eq!(err(&bool1, &[&[2, 1]]), Error::InvalidRow);
        many[99] = &[0xFF, 0];
        assert_eq!(err(&bool1, &many), Error::InvalidRow);
        many[99] = &[1, 1];
        many[3] = &[0xFF, 0];
        assert_eq!(err(&bool1, &many), Error::InvalidRow);
        // A null with a non-zero payload.
        assert_eq!(err(&two, &[&[0, 0, 1, 1, 1]]), Error::InvalidRow);
        assert_eq!(err(&two, &[&[1, 0x80, 0, 0, 1]]), Error::InvalidRow);
        assert_eq!(err(&bool1, &[&[0, 1]]), Error::InvalidRow);
        assert_eq!(err(&[(UInt8, asc)], &[&[0, 7]]), Error::InvalidRow);
        // A boolean value other than 0 / 1 (inverted when descending).
        assert_eq!(err(&two, &[&[1, 0x80, 1, 1, 2]]), Error::InvalidRow);
        assert_eq!(err(&bool1, &[&[1, 2]]), Error::InvalidRow);
        let desc = [(Boolean, SortOptions::new(true, true))];
        assert_eq!(err(&desc, &[&[1, 1]]), Error::InvalidRow);
        let rows = rows_of(&[std::vec![1, 0xFE], std::vec![1, 0xFF], std::vec![0, 0]]);
        let cols = converter(&desc).convert_all_rows(&rows).unwrap();
        let ArrayRef::Boolean(b) = &cols[0] else {
            panic!("{cols:?}")
        };
        assert_eq!(
            b.iter().collect::<Vec<_>>(),
            [Some(true), Some(false), None]
        );
        // Null columns take no bytes: anything else is trailing.
        assert_eq!(err(&[(Null, asc)], &[&[], &[0]]), Error::InvalidRow);
        assert_eq!(err(&[], &[&[0]]), Error::InvalidRow);
    }

    /// The lane tricks against a lane-by-lane model, on edge lanes.
    #[test]
    fn lane_tricks() {
        let edge = [
            0u16, 1, 0x00FF, 0x0100, 0x7FFF, 0x8000, 0x8001, 0xFFFE, 0xFFFF,
        ];
        assert_eq!((gather4(HIGH), gather4(0)), (0xF, 0));
        let mut rng = Rng(7);
        for _ in 0..5000 {
            let l: [u16; 4] = core::array::from_fn(|_| edge[rng.below(9) as usize]);
            let x = l.iter().rev().fold(0u64, |x, &v| x << 16 | u64::from(v));
            let nz = nonzero(x);
            let want = l
                .iter()
                .enumerate()
                .fold(0u64, |m, (j, &v)| m | u64::from(v != 0) << (16 * j + 15));
            assert_eq!(nz, want, "{l:x?}");
            let bits = l
                .iter()
                .enumerate()
                .fold(0u8, |m, (j, &v)| m | u8::from(v != 0) << j);
            assert_eq!(gather4(nz), bits, "{l:x?}");
        }
    }

    #[test]
    fn empty_rows() {
        use DataType::*;
        let asc = SortOptions::default();
        for types in [
            std::vec![(Boolean, asc)],
            std::vec![(Int32, asc), (Boolean, asc)],
            std::vec![(Utf8, asc)],
        ] {
            let c = converter(&types);
            let cols = c.convert_all_rows(&Rows::new_in(Global)).unwrap();
            assert_eq!(cols.len(), types.len());
            assert!(cols.iter().all(|c| c.is_empty()));
            // Cleared rows too.
            let mut rows = rows_of(&[std::vec![1, 1]]);
            rows.clear();
            assert!(c.convert_all_rows(&rows).unwrap()[0].is_empty());
        }
    }

    /// Rows made by the converter from columns, decoded from a `Rows` in
    /// another allocator than the converter's.
    #[test]
    fn round_trip_from_columns() {
        use crate::array::{BooleanBuilder, PrimitiveArray};
        let ints =
            PrimitiveArray::<i64, G>::try_from_options_in(&[Some(-3), None, Some(7)], Global)
                .unwrap()
                .into_array_ref();
        let mut b = BooleanBuilder::new_in(Global);
        for v in [None, Some(true), Some(false)] {
            b.try_append_option(v).unwrap();
        }
        let bools = b.finish().into_array_ref();
        let cols = [ints, bools];
        let fields: Vec<_> = cols
            .iter()
            .map(|c| SortField::new(c.data_type().clone()))
            .collect();
        let conv = RowConverter::try_new(&fields).unwrap();
        let rows = conv.convert_columns(&cols).unwrap();
        let back = conv.convert_all_rows(&rows).unwrap();
        assert!(back[0] == cols[0] && back[1] == cols[1]);
        assert_eq!(back[1].null_count(), 1);
        // The same rows in a `Rows` of another allocator type.
        let mut other = Rows::new_in(&Global);
        for r in rows.iter() {
            other.try_push(r).unwrap();
        }
        let again = conv.convert_all_rows(&other).unwrap();
        assert!(again[0] == cols[0] && again[1] == cols[1]);
    }
}
