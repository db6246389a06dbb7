//! Decoding rows back into columns, the one driver of every decode
//! ([`decode_rows`]: `convert_rows` and `convert_all_rows` alike): each
//! column's decoder ([`super::decode_column`]) consumes its piece from the
//! front of every row (the cursors), checking every byte. Also the leaf
//! decoders ([`decode_leaf`]) and the helpers every nested decoder needs:
//! the encoding of a null ([`write_null`]) and its length ([`null_len`]).

use allocator_api2::alloc::Allocator;

use super::interner::Interner;

use super::{decode_column, fixed, variable, Kind, Node, Row};
use crate::array::{
    Array, ArrayRef, BinaryType, BinaryViewType, LargeBinaryType, LargeUtf8Type, NullArray,
    StringViewType, Utf8Type,
};
use crate::buffer::{MutableBuffer, SharedSlice, TryVec};
use crate::datatypes::DataType;
use crate::error::{Error, Result};

/// A `match` on a column's `DataType` whose arms for the fixed-width
/// primitive types call `$prim!(T)` with the native type `T` the values are
/// stored as (dates, times, timestamps, durations, decimals and intervals
/// as their integer or interval struct), followed by the `$rest` arms: the
/// one mapping the row decoders share.
macro_rules! match_primitive {
    ($dt:expr, $prim:ident, { $($rest:tt)* }) => {{
        use $crate::datatypes::{DataType as D, IntervalUnit as U};
        use $crate::native as n;
        match $dt {
            D::Int8 => $prim!(i8),
            D::Int16 => $prim!(i16),
            D::Int32 | D::Date32 | D::Time32(_) | D::Decimal32(..) | D::Interval(U::YearMonth) => {
                $prim!(i32)
            }
            D::Int64
            | D::Date64
            | D::Time64(_)
            | D::Timestamp(..)
            | D::Duration(_)
            | D::Decimal64(..) => $prim!(i64),
            D::UInt8 => $prim!(u8),
            D::UInt16 => $prim!(u16),
            D::UInt32 => $prim!(u32),
            D::UInt64 => $prim!(u64),
            D::Float16 => $prim!(n::f16),
            D::Float32 => $prim!(f32),
            D::Float64 => $prim!(f64),
            D::Decimal128(..) => $prim!(i128),
            D::Decimal256(..) => $prim!(n::i256),
            D::Interval(U::DayTime) => $prim!(n::IntervalDayTime),
            D::Interval(U::MonthDayNano) => $prim!(n::IntervalMonthDayNano),
            $($rest)*
        }
    }};
}
pub(crate) use match_primitive;

/// Decodes `rows` into one column per node (seed dictionaries through
/// their mapping in `dicts`): one cursor per row, advanced by each column
/// in turn; bytes left over in a row are an error naming the row.
/// `trusted`: an encoder of these very nodes wrote every byte of the rows
/// (see `provenance.rs`), so their strings need no UTF-8 check.
///
/// # Errors
/// As [`super::RowConverter::convert_rows`]; [`Error::LengthMismatch`]
/// when the iterator yields fewer rows than it reports (more are not read).
pub(crate) fn decode_rows<'a, 'r, A, I>(
    nodes: &[Node<'a, A>],
    dicts: &[Interner<A>],
    rows: I,
    trusted: bool,
    alloc: &A,
) -> Result<SharedSlice<'a, ArrayRef<'a, A>, A>>
where
    A: Allocator + Clone,
    I: ExactSizeIterator<Item = Row<'r>>,
{
    let n = rows.len();
    let mut cursors = TryVec::try_from_iter_in(rows.take(n).map(|r| r.data()), alloc.clone())?;
    if cursors.len() != n {
        return Err(Error::LengthMismatch);
    }
    let columns = SharedSlice::try_from_fn_in(nodes.len(), alloc.clone(), |i| {
        let node = nodes.get(i).ok_or(Error::OutOfBounds)?;
        decode_column(node, dicts, &mut cursors, trusted, alloc).map_err(|e| e.with_field(i))
    })?;
    if let Some(row) = cursors.iter().position(|c| !c.is_empty()) {
        return Err(Error::InvalidRow.with_row(row));
    }
    Ok(columns)
}

pub(crate) fn decode_leaf<'a, A: Allocator + Clone>(
    node: &Node<'a, A>,
    rows: &mut [&[u8]],
    trusted: bool,
    alloc: &A,
) -> Result<ArrayRef<'a, A>> {
    use DataType::*;
    let opts = node.options;
    let unordered = node.unordered;
    let dt = node.decoded();
    macro_rules! prim {
        ($t:ty) => {
            fixed::decode::<$t, A>(rows, dt, opts, alloc)?.into_array_ref()
        };
    }
    macro_rules! bytes {
        ($f:ident, $t:ty) => {
            variable::$f::<$t, A>(rows, opts, unordered, trusted, alloc)?.into_array_ref()
        };
    }
    Ok(match_primitive!(dt, prim, {
        Null => NullArray::new(rows.len()).into_array_ref(),
        Boolean => fixed::decode_bool(rows, opts, alloc)?.into_array_ref(),
        FixedSizeBinary(_) => fixed::decode_fixed_binary(rows, dt, opts, alloc)?.into_array_ref(),
        Binary => bytes!(decode, BinaryType),
        LargeBinary => bytes!(decode, LargeBinaryType),
        Utf8 => bytes!(decode, Utf8Type),
        LargeUtf8 => bytes!(decode, LargeUtf8Type),
        BinaryView => bytes!(decode_view, BinaryViewType),
        Utf8View => bytes!(decode_view, StringViewType),
        _ => return Err(Error::UnsupportedType),
    }))
}

/// `true` for the variable-length leaf types.
pub(crate) fn is_variable<A: Allocator>(dt: &DataType<'_, A>) -> bool {
    use DataType::*;
    matches!(
        dt,
        Binary | LargeBinary | Utf8 | LargeUtf8 | BinaryView | Utf8View
    )
}

/// Width in bytes of a fixed-width leaf's encoding (validity byte included).
pub(crate) fn fixed_len<A: Allocator>(dt: &DataType<'_, A>) -> Result<usize> {
    match dt {
        DataType::Null => Ok(0),
        DataType::Boolean => Ok(2),
        DataType::FixedSizeBinary(w) => usize::try_from(*w)
            .map(|w| w + 1)
            .map_err(|_| Error::InvalidDataType),
        dt => dt
            .primitive_width()
            .map(|w| w + 1)
            .ok_or(Error::UnsupportedType),
    }
}

/// Length of the encoding of a null of `node`.
///
/// # Errors
/// [`Error::UnsupportedType`], [`Error::InvalidDataType`].
pub(crate) fn null_len<A: Allocator>(node: &Node<'_, A>) -> Result<usize> {
    match &node.kind {
        Kind::Leaf if is_variable(&node.data_type) => Ok(if node.unordered { 4 } else { 1 }),
        Kind::Leaf => fixed_len(&node.data_type),
        Kind::Struct(_) | Kind::FixedSizeList(..) | Kind::Dictionary(Some(_), _) => Ok(1),
        Kind::List(_) => Ok(if node.unordered { 4 } else { 1 }),
        Kind::Dictionary(None, _) | Kind::RunEnd(_) => null_len(node.child()?),
        // The first field's type id and a null of its type.
        #[cfg(feature = "union")]
        Kind::Union(c) => null_len(c.first().ok_or(Error::UnsupportedType)?)?
            .checked_add(1)
            .ok_or(Error::CapacityOverflow),
    }
}

/// Writes the encoding of a null of `node` at the start of `out`; returns
/// its length ([`null_len`]). It is what the encoders write for a null.
///
/// # Errors
/// [`Error::OutOfBounds`] when `out` is too short.
pub(crate) fn write_null<A: Allocator>(node: &Node<'_, A>, out: &mut [u8]) -> Result<usize> {
    let n = null_len(node)?;
    let out = out.get_mut(..n).ok_or(Error::OutOfBounds)?;
    match &node.kind {
        Kind::Dictionary(None, _) | Kind::RunEnd(_) => {
            write_null(node.child()?, out)?;
        }
        #[cfg(feature = "union")]
        Kind::Union(c) => {
            let DataType::Union(u, _) = &node.data_type else {
                return Err(Error::TypeMismatch);
            };
            let id = u8::try_from(*u.type_ids().first().ok_or(Error::UnsupportedType)?)
                .map_err(|_| Error::InvalidDataType)?;
            let (head, tail) = out.split_first_mut().ok_or(Error::OutOfBounds)?;
            *head = if node.options.descending { !id } else { id };
            write_null(c.first().ok_or(Error::UnsupportedType)?, tail)?;
        }
        Kind::List(_) if node.unordered => out.fill(0xFF),
        Kind::Leaf if node.unordered && is_variable(&node.data_type) => out.fill(0xFF),
        _ => {
            if let Some((head, tail)) = out.split_first_mut() {
                *head = node.options.null_sentinel();
                tail.fill(0);
            }
        }
    }
    Ok(n)
}

/// Appends the encoding of a null of `node` to `out`.
///
/// # Errors
/// [`Error::AllocationFailed`].
pub(crate) fn write_null_into<A: Allocator, B: Allocator>(
    node: &Node<'_, A>,
    out: &mut MutableBuffer<B>,
) -> Result<()> {
    let start = out.len();
    out.try_extend_zeros(null_len(node)?)?;
    let tail = out
        .as_slice_mut()
        .get_mut(start..)
        .ok_or(Error::OutOfBounds)?;
    write_null(node, tail)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::vec::Vec;

    use crate::Global;

    use super::*;
    use crate::row::test_model::converter_of as converter;
    use crate::row::{RowConverter, SortOptions};

    type G = Global;

    /// Rows through `convert_rows`, as a `Vec`.
    fn fast(c: &RowConverter<'static, G>, rows: &[&[u8]]) -> Result<Vec<ArrayRef<'static, G>>> {
        let cols = c.convert_rows(rows.iter().map(|r| Row::new(r)))?;
        Ok(cols.iter().cloned().collect())
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
