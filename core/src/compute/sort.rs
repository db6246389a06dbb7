//! [`sort_to_indices_in`] and [`lexsort_to_indices_in`]: the permutation
//! that sorts one column or several ("sort to indices" of `arrow-ord`), as a
//! UInt32 array to feed [`super::take_in`].

use core::cmp::Ordering;

use allocator_api2::alloc::Allocator;

use crate::array::{Array, ArrayRef, PrimitiveArray, PrimitiveBuilder, PrimitiveType};
use crate::buffer::TryVec;
use crate::error::{Error, Result};
use crate::native::{f16, i256};
use crate::row::{RowConverter, SortField, SortOptions};

/// One column of a lexicographic sort: its values and how to order them
/// (`None`: ascending, nulls first).
#[derive(Debug, Clone, Copy)]
pub struct SortColumn<'x, 'a, A: Allocator> {
    /// The column.
    pub values: &'x ArrayRef<'a, A>,
    /// Its order.
    pub options: Option<SortOptions>,
}

/// A total order on the values of a primitive column: integers by value,
/// floats by IEEE 754 `totalOrder` (`-NaN < -inf < … < -0 < +0 < … < inf <
/// NaN`, as `arrow-ord` sorts them).
trait SortValue: PrimitiveType {
    fn compare(a: Self, b: Self) -> Ordering;
}

macro_rules! sort_value_ord {
    ($($t:ty),*) => {$(
        impl SortValue for $t {
            fn compare(a: Self, b: Self) -> Ordering {
                a.cmp(&b)
            }
        }
    )*};
}
sort_value_ord!(i8, i16, i32, i64, u8, u16, u32, u64, i128, i256);

macro_rules! sort_value_float {
    ($($t:ty),*) => {$(
        impl SortValue for $t {
            fn compare(a: Self, b: Self) -> Ordering {
                a.total_cmp(&b)
            }
        }
    )*};
}
sort_value_float!(f16, f32, f64);

/// The row count as `u32` indices.
fn row_count(len: usize) -> Result<u32> {
    u32::try_from(len).map_err(|_| Error::CapacityOverflow)
}

/// The sorted indices from the valid rows' `(key, index)` pairs and the
/// null rows' indices (both in index order): the valid pairs ordered by
/// `cmp` under `options` (ties by index: a stable sort), the nulls before
/// or after them, the first `limit` kept. When the limit leaves out some
/// valid rows, a partial selection finds the kept ones before they are
/// sorted (top-k). The pairs sit side by side in memory, so comparisons
/// read no other array.
fn sort_keyed<'a, K, A: Allocator + Clone>(
    mut keys: Keyed<K, A>,
    nulls: &[u32],
    options: SortOptions,
    limit: Option<usize>,
    cmp: impl Fn(&K, &K) -> Ordering,
    alloc: A,
) -> Result<PrimitiveArray<'a, u32, A>> {
    let total = keys.len() + nulls.len();
    let keep = limit.unwrap_or(total).min(total);
    let nulls_before = if options.nulls_first {
        keep.min(nulls.len())
    } else {
        0
    };
    let valid = (keep - nulls_before).min(keys.len());
    let nulls_after = keep - nulls_before - valid;
    let by = |a: &(K, u32), b: &(K, u32)| {
        let o = cmp(&a.0, &b.0);
        let o = if options.descending { o.reverse() } else { o };
        o.then_with(|| a.1.cmp(&b.1))
    };
    let pairs = keys.as_mut_slice();
    if valid > 0 && valid < pairs.len() {
        pairs.select_nth_unstable_by(valid - 1, by);
    }
    let head = pairs.get_mut(..valid).unwrap_or(&mut []);
    head.sort_unstable_by(by);
    let mut b = PrimitiveBuilder::<u32, A>::new_in(alloc);
    b.try_reserve(keep)?;
    for &i in nulls.get(..nulls_before).unwrap_or(&[]) {
        b.try_append_value(i)?;
    }
    for &(_, i) in head.iter() {
        b.try_append_value(i)?;
    }
    for &i in nulls.get(..nulls_after).unwrap_or(&[]) {
        b.try_append_value(i)?;
    }
    Ok(b.finish())
}

/// `(key, row index)` pairs of the valid rows, in row order.
type Keyed<K, A> = TryVec<(K, u32), A>;

/// Splits the rows of `array` into `(key, index)` pairs of the valid ones
/// (`key(i)`) and the indices of the null ones.
fn split_rows<'r, K, A: Allocator + Clone>(
    array: &impl Array<'r, A>,
    alloc: &A,
    key: impl Fn(usize) -> Option<K>,
) -> Result<(Keyed<K, A>, TryVec<u32, A>)> {
    let n = row_count(array.len())?;
    let nulls_len = array.null_count();
    let mut keys = TryVec::new_in(alloc.clone());
    keys.try_reserve(array.len() - nulls_len.min(array.len()))?;
    let mut nulls = TryVec::new_in(alloc.clone());
    nulls.try_reserve(nulls_len)?;
    for i in 0..n {
        match (!array.is_null(i as usize))
            .then(|| key(i as usize))
            .flatten()
        {
            Some(k) => keys.try_push((k, i))?,
            None => nulls.try_push(i)?,
        }
    }
    Ok((keys, nulls))
}

fn sort_primitive<'a, T: SortValue, A: Allocator + Clone>(
    p: &PrimitiveArray<'_, T, A>,
    options: SortOptions,
    limit: Option<usize>,
    alloc: A,
) -> Result<PrimitiveArray<'a, u32, A>> {
    let values = p.values();
    let (keys, nulls) = split_rows(p, &alloc, |i| values.get(i).copied())?;
    sort_keyed(
        keys,
        nulls.as_slice(),
        options,
        limit,
        |a, b| T::compare(*a, *b),
        alloc,
    )
}

/// A byte string with its first 8 bytes as a big-endian integer (zero
/// padded): comparing the integers first orders most pairs without reading
/// the strings' memory, and equal integers fall back to the whole bytes
/// (zero padding can only make a prefix look equal, never reorder).
#[derive(Clone, Copy)]
struct BytesKey<'v> {
    prefix: u64,
    bytes: &'v [u8],
}

impl<'v> BytesKey<'v> {
    fn new(bytes: &'v [u8]) -> Self {
        let mut head = [0u8; 8];
        let n = bytes.len().min(8);
        if let (Some(h), Some(b)) = (head.get_mut(..n), bytes.get(..n)) {
            h.copy_from_slice(b);
        }
        BytesKey {
            prefix: u64::from_be_bytes(head),
            bytes,
        }
    }

    fn compare(&self, other: &Self) -> Ordering {
        self.prefix
            .cmp(&other.prefix)
            .then_with(|| self.bytes.cmp(other.bytes))
    }
}

/// Binary and string columns (offsets or views): by their bytes, which for
/// UTF-8 is the order of the strings.
fn sort_bytes<'a, 'r, 'v, A: Allocator + Clone>(
    array: &impl Array<'r, A>,
    value: impl Fn(usize) -> Option<&'v [u8]>,
    options: SortOptions,
    limit: Option<usize>,
    alloc: A,
) -> Result<PrimitiveArray<'a, u32, A>> {
    let (keys, nulls) = split_rows(array, &alloc, |i| value(i).map(BytesKey::new))?;
    sort_keyed(
        keys,
        nulls.as_slice(),
        options,
        limit,
        BytesKey::compare,
        alloc,
    )
}

/// The permutation that sorts `array`: slot `i` of the result is the index
/// of the `i`-th smallest slot (per `options`, `None`: ascending, nulls
/// first), ties in index order (a stable sort). With `limit`, only the
/// first `limit` indices (top-k, found by partial selection).
///
/// Primitive columns (integers, floats, decimals, temporal types) are sorted
/// directly, floats by `totalOrder` as `arrow-ord` does. Every other type
/// goes through the row format (see [`lexsort_to_indices_in`], and the row
/// format's float rules there).
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
    match array {
        ArrayRef::Int8(p) => sort_primitive(p, o, limit, alloc),
        ArrayRef::Int16(p) => sort_primitive(p, o, limit, alloc),
        ArrayRef::Int32(p) => sort_primitive(p, o, limit, alloc),
        ArrayRef::Int64(p) => sort_primitive(p, o, limit, alloc),
        ArrayRef::UInt8(p) => sort_primitive(p, o, limit, alloc),
        ArrayRef::UInt16(p) => sort_primitive(p, o, limit, alloc),
        ArrayRef::UInt32(p) => sort_primitive(p, o, limit, alloc),
        ArrayRef::UInt64(p) => sort_primitive(p, o, limit, alloc),
        ArrayRef::Float16(p) => sort_primitive(p, o, limit, alloc),
        ArrayRef::Float32(p) => sort_primitive(p, o, limit, alloc),
        ArrayRef::Float64(p) => sort_primitive(p, o, limit, alloc),
        ArrayRef::Int128(p) => sort_primitive(p, o, limit, alloc),
        ArrayRef::Int256(p) => sort_primitive(p, o, limit, alloc),
        ArrayRef::Utf8(a) => sort_bytes(a, |i| a.value(i).map(str::as_bytes), o, limit, alloc),
        ArrayRef::LargeUtf8(a) => sort_bytes(a, |i| a.value(i).map(str::as_bytes), o, limit, alloc),
        ArrayRef::Binary(a) => sort_bytes(a, |i| a.value(i), o, limit, alloc),
        ArrayRef::LargeBinary(a) => sort_bytes(a, |i| a.value(i), o, limit, alloc),
        ArrayRef::Utf8View(a) => sort_bytes(a, |i| a.value(i).map(str::as_bytes), o, limit, alloc),
        ArrayRef::BinaryView(a) => sort_bytes(a, |i| a.value(i), o, limit, alloc),
        other => lexsort_to_indices_in(
            &[SortColumn {
                values: other,
                options,
            }],
            limit,
            alloc,
        ),
    }
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
/// signed zeros.
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
    let n = row_count(len)?;
    let mut keys = TryVec::new_in(alloc.clone());
    keys.try_reserve(len)?;
    for i in 0..n {
        let r = match (offsets.get(i as usize), offsets.get(i as usize + 1)) {
            (Some(&s), Some(&e)) => data.get(s..e).ok_or(Error::OutOfBounds)?,
            _ => return Err(Error::OutOfBounds),
        };
        keys.try_push((BytesKey::new(r), i))?;
    }
    // Rows already carry every column's direction and null placement.
    sort_keyed(
        keys,
        &[],
        SortOptions::default(),
        limit,
        BytesKey::compare,
        alloc,
    )
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
