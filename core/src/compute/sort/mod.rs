//! [`sort_to_indices_in`] and [`lexsort_to_indices_in`]: the permutation
//! that sorts one column or several ("sort to indices" of `arrow-ord`), as a
//! UInt32 array to feed [`super::take_in`].
//!
//! This file holds the entry points and the dispatch by column type; the
//! leaves:
//!
//! | file | what |
//! |---|---|
//! | `column.rs` | [`SortColumn`] |
//! | `value.rs` | the order of primitive values |
//! | `keys.rs` | the sort keys of a column's rows |
//! | `rows.rs` | one column's rows sorted by their keys |
//! | `radix.rs` | radix and bucket sorts of packed keys |
//! | `topk.rs` | the bounded heap of a top-k |
//! | `lex.rs` | a lexicographic top-k without the row format |
//! | `emit.rs` | the sorted indices, nulls placed |

mod column;
mod emit;
mod keys;
mod lex;
pub(super) mod radix;
mod rows;
mod topk;
mod value;

use allocator_api2::alloc::Allocator;

use crate::array::{dispatch_primitive, Array, ArrayRef, PrimitiveArray};
use crate::buffer::TryVec;
use crate::error::{Error, Result};
use crate::row::{RowConverter, SortField, SortOptions};
pub use column::SortColumn;
use keys::RowKeys;
use rows::{sort_bytes, sort_primitive, sort_rows, Column};
use value::SortValue;

/// The permutation that sorts `array`: slot `i` of the result is the index
/// of the `i`-th smallest slot (per `options`, `None`: ascending, nulls
/// first), ties in index order (a stable sort). With `limit`, only the
/// first `limit` indices (top-k: for a limit of at most a tenth of the
/// rows, one pass keeps a heap of `limit` candidates; for larger ones, a
/// partial selection before the sort).
///
/// Primitive columns (integers, floats, decimals, temporal types) are sorted
/// directly, floats by `totalOrder` as `arrow-ord` does; those of at most 64
/// bits as one integer per row (value and index packed). Binary and string
/// columns (offsets or views) are sorted directly by their bytes (an 8-byte
/// prefix per row first). Every other type goes through
/// [`lexsort_to_indices_in`] (the row format, and its float rules).
///
/// ```
/// use alkaid::array::{Array, Int32Array};
/// use alkaid::compute::{sort_to_indices_in, take_in};
/// use alkaid::row::SortOptions;
/// use alkaid::Global;
///
/// let a = Int32Array::from(vec![Some(3), None, Some(1), Some(2)]).into_array_ref();
/// let idx = sort_to_indices_in(&a, None, None, Global)?;
/// assert_eq!(idx.values(), [1, 2, 3, 0]); // null first, then 1, 2, 3
/// let desc = SortOptions { descending: true, nulls_first: false };
/// let top2 = sort_to_indices_in(&a, Some(desc), Some(2), Global)?;
/// assert_eq!(top2.values(), [0, 3]); // 3, 2
/// let sorted = take_in(&a, &top2, Global)?;
/// assert_eq!(sorted.as_primitive::<i32>().unwrap().values(), [3, 2]);
/// # Ok::<(), alkaid::Error>(())
/// ```
///
/// # Errors
/// [`Error::CapacityOverflow`] for more than `u32::MAX` rows;
/// [`Error::AllocationFailed`]; for the row format path, its errors
/// ([`Error::UnsupportedType`] for a type it cannot order).
pub fn sort_to_indices_in<'a, A: Allocator + Clone>(
    array: &ArrayRef<'_, A>,
    options: Option<SortOptions>,
    limit: Option<usize>,
    alloc: A,
) -> Result<PrimitiveArray<'a, u32, A>> {
    let o = options.unwrap_or_default();
    let by_rows = |alloc| {
        let column = SortColumn {
            values: array,
            options,
        };
        lexsort_to_indices_in(&[column], limit, alloc)
    };
    dispatch_primitive!(array; p: T => match T::DIRECT {
        true => sort_primitive(p, o, limit, alloc),
        false => by_rows(alloc),
    }, {
        ArrayRef::Utf8(a) => sort_bytes(a, |i| a.value_bytes(i), o, limit, alloc),
        ArrayRef::LargeUtf8(a) => sort_bytes(a, |i| a.value_bytes(i), o, limit, alloc),
        ArrayRef::Binary(a) => sort_bytes(a, |i| a.value_bytes(i), o, limit, alloc),
        ArrayRef::LargeBinary(a) => sort_bytes(a, |i| a.value_bytes(i), o, limit, alloc),
        ArrayRef::Utf8View(a) => sort_bytes(a, |i| a.value_bytes(i), o, limit, alloc),
        ArrayRef::BinaryView(a) => sort_bytes(a, |i| a.value_bytes(i), o, limit, alloc),
        _ => by_rows(alloc),
    })
}

/// The permutation that sorts rows by several columns, the first column
/// first ("lexicographic"), each by its own [`SortOptions`]; ties in index
/// order. With `limit`, only the first `limit` indices (top-k).
///
/// The columns are converted to the row format ([`RowConverter`]) and the
/// rows compared as bytes, so every type the row format orders can be
/// sorted, nested ones included; floats follow the row format's rules (all
/// NaNs equal and after every number, `-0 == +0`), which differ from
/// `arrow-ord`'s `totalOrder` only for NaNs of other signs or payloads and
/// signed zeros. With a limit of at most a tenth of the rows, no rows are
/// built: one pass keeps a heap of `limit` candidate indices, compared
/// column by column (primitive, boolean, binary and string columns
/// directly, by the same rules; other columns by their own rows).
///
/// ```
/// use alkaid::array::{Array, Int64Array, StringArray};
/// use alkaid::compute::{lexsort_to_indices_in, SortColumn};
/// use alkaid::row::SortOptions;
/// use alkaid::Global;
///
/// let city = StringArray::from(vec!["b", "a", "b", "a"]).into_array_ref();
/// let temp = Int64Array::from(vec![20, 25, 18, 19]).into_array_ref();
/// let desc = SortOptions { descending: true, nulls_first: true };
/// let idx = lexsort_to_indices_in(
///     &[
///         SortColumn { values: &city, options: None },
///         SortColumn { values: &temp, options: Some(desc) },
///     ],
///     None,
///     Global,
/// )?;
/// assert_eq!(idx.values(), [1, 3, 0, 2]); // (a, 25), (a, 19), (b, 20), (b, 18)
/// # Ok::<(), alkaid::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] without columns; [`Error::ChildLengthMismatch`]
/// when the columns' lengths differ; [`Error::CapacityOverflow`] for more
/// than `u32::MAX` rows; the row format's errors; [`Error::AllocationFailed`].
pub fn lexsort_to_indices_in<'a, 'c, A: Allocator + Clone>(
    columns: &[SortColumn<'_, 'c, A>],
    limit: Option<usize>,
    alloc: A,
) -> Result<PrimitiveArray<'a, u32, A>> {
    let first = columns.first().ok_or(Error::InvalidArgument)?;
    let len = first.values.len();
    if columns.iter().any(|c| c.values.len() != len) {
        return Err(Error::ChildLengthMismatch);
    }
    let keep = limit.unwrap_or(len).min(len);
    if limit.is_some() && topk::use_heap(keep, len) {
        return lex::lexsort_top_k(columns, len, keep, alloc);
    }
    let mut fields = TryVec::new_in(alloc.clone());
    fields.try_reserve(columns.len())?;
    let mut arrays = TryVec::new_in(alloc.clone());
    arrays.try_reserve(columns.len())?;
    for c in columns {
        let dt = c.values.data_type().clone();
        fields.try_push(SortField::new_with_options(
            dt,
            c.options.unwrap_or_default(),
        ))?;
        arrays.try_push(c.values.clone())?;
    }
    #[allow(unused_mut)] // `&mut self` until the converter's interner moves out
    let mut converter = RowConverter::try_new_in(fields.as_slice(), alloc.clone())?;
    let rows = converter.convert_columns(arrays.as_slice())?;
    let (offsets, data) = (rows.offsets(), rows.data());
    // Rows already carry every column's direction and null placement.
    let keys = RowKeys {
        row: |i: usize| match (offsets.get(i), offsets.get(i.wrapping_add(1))) {
            (Some(&s), Some(&e)) => data.get(s..e).unwrap_or(&[]),
            _ => &[],
        },
    };
    let col = Column {
        len,
        nulls: None,
        null_count: 0,
    };
    sort_rows(&keys, col, SortOptions::default(), limit, alloc)
}

/// [`sort_to_indices_in`] with the global allocator.
///
/// # Errors
/// As [`sort_to_indices_in`].
#[cfg(feature = "alloc")]
pub fn sort_to_indices<'a>(
    array: &ArrayRef<'_, crate::Global>,
    options: Option<SortOptions>,
    limit: Option<usize>,
) -> Result<PrimitiveArray<'a, u32, crate::Global>> {
    sort_to_indices_in(array, options, limit, crate::Global)
}

/// [`lexsort_to_indices_in`] with the global allocator.
///
/// # Errors
/// As [`lexsort_to_indices_in`].
#[cfg(feature = "alloc")]
pub fn lexsort_to_indices<'a, 'c>(
    columns: &[SortColumn<'_, 'c, crate::Global>],
    limit: Option<usize>,
) -> Result<PrimitiveArray<'a, u32, crate::Global>> {
    lexsort_to_indices_in(columns, limit, crate::Global)
}
