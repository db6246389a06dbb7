//! [`sort_to_indices_in`] and [`lexsort_to_indices_in`]: the permutation
//! that sorts one column or several ("sort to indices" of `arrow-ord`), as a
//! UInt32 array to feed [`super::take_in`].

use core::cmp::Ordering;

use allocator_api2::alloc::Allocator;

use super::indices::Bits;
use super::sort_lex;
use super::sort_radix;
use super::sort_topk::{self, BoundedHeap};
use crate::array::{dispatch_primitive, Array, ArrayRef, PrimitiveArray, PrimitiveType};
use crate::buffer::{MutableBuffer, NullBuffer, ScalarBuffer, TryVec};
use crate::datatypes::DataType;
use crate::error::{Error, Result};
use crate::native::{f16, i256, IntervalDayTime, IntervalMonthDayNano};
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
    /// `false` for the types sorted through the row format instead (the
    /// intervals: [`Self::compare`] and [`Self::ordered`] are then never
    /// called).
    const DIRECT: bool = true;
    /// `true` when [`Self::ordered`] maps the values to `u64` in order (the
    /// types of at most 64 bits).
    const PACKS: bool;
    fn compare(a: Self, b: Self) -> Ordering;
    /// The value as a `u64` of the same order (when [`Self::PACKS`]; 0
    /// otherwise).
    fn ordered(self) -> u64;
}

macro_rules! sort_value_signed {
    ($($t:ty),*) => {$(
        impl SortValue for $t {
            const PACKS: bool = true;
            fn compare(a: Self, b: Self) -> Ordering {
                a.cmp(&b)
            }
            #[inline(always)]
            fn ordered(self) -> u64 {
                // Flipping the sign bit maps the two's complement order to
                // the unsigned one.
                (i64::from(self) as u64) ^ (1 << 63)
            }
        }
    )*};
}
sort_value_signed!(i8, i16, i32, i64);

macro_rules! sort_value_unsigned {
    ($($t:ty),*) => {$(
        impl SortValue for $t {
            const PACKS: bool = true;
            fn compare(a: Self, b: Self) -> Ordering {
                a.cmp(&b)
            }
            #[inline(always)]
            fn ordered(self) -> u64 {
                u64::from(self)
            }
        }
    )*};
}
sort_value_unsigned!(u8, u16, u32, u64);

macro_rules! sort_value_wide {
    ($($t:ty),*) => {$(
        impl SortValue for $t {
            const PACKS: bool = false;
            fn compare(a: Self, b: Self) -> Ordering {
                a.cmp(&b)
            }
            fn ordered(self) -> u64 {
                0
            }
        }
    )*};
}
sort_value_wide!(i128, i256);

macro_rules! sort_value_float {
    ($($t:ty, $bits:ty),*) => {$(
        impl SortValue for $t {
            const PACKS: bool = true;
            fn compare(a: Self, b: Self) -> Ordering {
                a.total_cmp(&b)
            }
            #[inline(always)]
            fn ordered(self) -> u64 {
                // `totalOrder` as unsigned integers: negative values (sign
                // bit set) reversed below the positive ones.
                let b = self.to_bits();
                let sign = 1 << (<$bits>::BITS - 1);
                u64::from(if b & sign != 0 { !b } else { b | sign })
            }
        }
    )*};
}
sort_value_float!(f16, u16, f32, u32, f64, u64);

macro_rules! sort_value_by_rows {
    ($($t:ty),*) => {$(
        impl SortValue for $t {
            const DIRECT: bool = false;
            const PACKS: bool = false;
            fn compare(_: Self, _: Self) -> Ordering {
                Ordering::Equal
            }
            fn ordered(self) -> u64 {
                0
            }
        }
    )*};
}
sort_value_by_rows!(IntervalDayTime, IntervalMonthDayNano);

/// The row count as `u32` indices.
pub(super) fn row_count(len: usize) -> Result<u32> {
    u32::try_from(len).map_err(|_| Error::CapacityOverflow)
}

/// The rows of one column, as [`sort_rows`] reads them: a key per valid
/// row and a total order of the keys that includes the direction and puts
/// equal values in index order (so that any sort of the keys is stable).
trait SortKeys {
    /// What a valid row is sorted by (its index included).
    type Key: Copy;
    /// The key of valid row `i`.
    fn key(&self, i: u32) -> Self::Key;
    /// The total order of keys.
    fn cmp(&self, a: &Self::Key, b: &Self::Key) -> Ordering;
    /// The row index in a key.
    fn index(k: &Self::Key) -> u32;
    /// Sorts all of `keys` (made in index order) by [`Self::cmp`].
    ///
    /// # Errors
    /// [`Error::AllocationFailed`] (of the sorts that need memory).
    fn sort_all<A: Allocator>(&self, keys: &mut [Self::Key], alloc: A) -> Result<()> {
        let _ = alloc;
        keys.sort_unstable_by(|a, b| self.cmp(a, b));
        Ok(())
    }
}

/// Values of at most 64 bits with their index in one `u128`: the value's
/// order-preserving `u64` (inverted when descending) above the index, so
/// that integer order is the sort order, ties by index.
struct Packed<'x, T> {
    values: &'x [T],
    flip: u64,
}

impl<T: SortValue> SortKeys for Packed<'_, T> {
    type Key = u128;
    #[inline(always)]
    fn key(&self, i: u32) -> u128 {
        let v = self.values.get(i as usize).copied().unwrap_or_default();
        (u128::from(v.ordered() ^ self.flip) << 32) | u128::from(i)
    }
    #[inline(always)]
    fn cmp(&self, a: &u128, b: &u128) -> Ordering {
        a.cmp(b)
    }
    #[inline(always)]
    fn index(k: &u128) -> u32 {
        *k as u32
    }
    fn sort_all<A: Allocator>(&self, keys: &mut [u128], alloc: A) -> Result<()> {
        if keys.len() < sort_radix::MIN_RADIX_LEN {
            keys.sort_unstable();
            Ok(())
        } else {
            sort_radix::radix_sort(keys, alloc)
        }
    }
}

/// Values wider than 64 bits beside their index.
struct Pairs<'x, T> {
    values: &'x [T],
    descending: bool,
}

impl<T: SortValue> SortKeys for Pairs<'_, T> {
    type Key = (T, u32);
    fn key(&self, i: u32) -> (T, u32) {
        (self.values.get(i as usize).copied().unwrap_or_default(), i)
    }
    fn cmp(&self, a: &(T, u32), b: &(T, u32)) -> Ordering {
        let o = T::compare(a.0, b.0);
        let o = if self.descending { o.reverse() } else { o };
        o.then_with(|| a.1.cmp(&b.1))
    }
    fn index(k: &(T, u32)) -> u32 {
        k.1
    }
}

/// The first 8 bytes of `bytes` as a big-endian integer, zero padded:
/// integer order agrees with byte order wherever two prefixes differ
/// (zero padding can only make a prefix look equal, never reorder).
#[inline(always)]
pub(super) fn prefix(bytes: &[u8]) -> u64 {
    if let Some(head) = bytes.first_chunk::<8>() {
        return u64::from_be_bytes(*head);
    }
    let mut head = [0u8; 8];
    if let Some(h) = head.get_mut(..bytes.len()) {
        h.copy_from_slice(bytes);
    }
    u64::from_be_bytes(head)
}

/// Binary and string values: the 8-byte [`prefix`] (inverted when
/// descending) beside the index, the whole bytes read only when prefixes
/// are equal.
struct Prefixed<F> {
    value: F,
    descending: bool,
}

impl<'v, F: Fn(usize) -> &'v [u8]> SortKeys for Prefixed<F> {
    type Key = (u64, u32);
    #[inline(always)]
    fn key(&self, i: u32) -> (u64, u32) {
        let p = prefix((self.value)(i as usize));
        (if self.descending { !p } else { p }, i)
    }
    #[inline(always)]
    fn cmp(&self, a: &(u64, u32), b: &(u64, u32)) -> Ordering {
        a.0.cmp(&b.0)
            .then_with(|| {
                let o = (self.value)(a.1 as usize).cmp((self.value)(b.1 as usize));
                if self.descending {
                    o.reverse()
                } else {
                    o
                }
            })
            .then_with(|| a.1.cmp(&b.1))
    }
    #[inline(always)]
    fn index(k: &(u64, u32)) -> u32 {
        k.1
    }
    /// Many keys: by prefix ([`sort_radix::bucket_sort_prefixes`]: equal
    /// prefixes stay in index order), then each run of equal prefixes by the
    /// whole values (runs are short: prefixes of 8 bytes mostly differ).
    fn sort_all<A: Allocator>(&self, keys: &mut [(u64, u32)], alloc: A) -> Result<()> {
        if keys.len() < sort_radix::MIN_RADIX_LEN {
            keys.sort_unstable_by(|a, b| self.cmp(a, b));
            return Ok(());
        }
        sort_radix::bucket_sort_prefixes(keys, alloc)?;
        for run in keys.chunk_by_mut(|a, b| a.0 == b.0) {
            if run.len() > 1 {
                run.sort_unstable_by(|a, b| self.cmp(a, b));
            }
        }
        Ok(())
    }
}

/// Rows of the row format: their first 16 bytes as two big-endian
/// integers beside the index (rows of several columns often share their
/// first 8 bytes, e.g. a null marker and the high bytes of an integer), the
/// whole rows read only when those are equal.
struct RowKeys<F> {
    row: F,
}

impl<'v, F: Fn(usize) -> &'v [u8]> SortKeys for RowKeys<F> {
    type Key = (u64, u64, u32);
    #[inline(always)]
    fn key(&self, i: u32) -> (u64, u64, u32) {
        let r = (self.row)(i as usize);
        (prefix(r), prefix(r.get(8..).unwrap_or(&[])), i)
    }
    #[inline(always)]
    fn cmp(&self, a: &(u64, u64, u32), b: &(u64, u64, u32)) -> Ordering {
        (a.0, a.1)
            .cmp(&(b.0, b.1))
            .then_with(|| (self.row)(a.2 as usize).cmp((self.row)(b.2 as usize)))
            .then_with(|| a.2.cmp(&b.2))
    }
    #[inline(always)]
    fn index(k: &(u64, u64, u32)) -> u32 {
        k.2
    }
}

/// The rows of a column to sort: how many, and which are null (`nulls`
/// with `null_count` of them; `None` when none is).
#[derive(Clone, Copy)]
struct Column<'b> {
    len: usize,
    nulls: Option<Bits<'b>>,
    null_count: usize,
}

impl<'b> Column<'b> {
    fn of<A: Allocator>(len: usize, nulls: Option<&'b NullBuffer<'_, A>>) -> Self {
        let nulls = nulls.filter(|n| n.null_count() > 0);
        Column {
            len,
            nulls: nulls.map(Bits::of),
            null_count: nulls.map_or(0, |n| n.null_count()),
        }
    }
}

/// The sorted indices of a column (see [`sort_to_indices_in`]): the null
/// rows in index order before or after the valid ones sorted by `keys`, the
/// first `limit` kept. With a limit of at most a tenth of the rows, one
/// pass offers every row to a heap of `limit` candidates (top-k); otherwise
/// every valid row's key is made, partially selected when the limit leaves
/// some out, and sorted.
fn sort_rows<'a, K: SortKeys, A: Allocator + Clone>(
    keys: &K,
    col: Column<'_>,
    options: SortOptions,
    limit: Option<usize>,
    alloc: A,
) -> Result<PrimitiveArray<'a, u32, A>> {
    let n = row_count(col.len)?;
    let keep = limit.unwrap_or(col.len).min(col.len);
    let valid_rows = col.len - col.null_count.min(col.len);
    // Valid rows the result holds (the null count is exact for a validated
    // array; a larger real one only lowers this).
    let wanted = if options.nulls_first {
        keep - keep.min(col.null_count)
    } else {
        keep.min(valid_rows)
    };
    let cmp = |a: &K::Key, b: &K::Key| keys.cmp(a, b);
    let mut nulls = TryVec::new_in(alloc.clone());
    nulls.try_reserve(keep.min(col.null_count))?;
    let mut null_total = 0usize;
    if limit.is_some() && sort_topk::use_heap(wanted, valid_rows) {
        let mut heap = BoundedHeap::try_new_in(wanted, alloc.clone())?;
        let mut cmp = cmp;
        for i in 0..n {
            if col.nulls.is_some_and(|b| !b.get(i as usize)) {
                null_total += 1;
                if nulls.len() < keep {
                    nulls.try_push(i)?;
                } else if heap.capacity() == 0 {
                    break; // `keep` nulls and no valid row wanted
                }
            } else if heap.capacity() > 0 {
                heap.offer(keys.key(i), &mut cmp)?;
            }
        }
        let sorted = heap.into_sorted(&mut cmp);
        return emit(
            sorted.as_slice(),
            K::index,
            nulls.as_slice(),
            null_total,
            keep,
            options.nulls_first,
            alloc,
        );
    }
    let mut valid = match col.nulls {
        None => TryVec::try_from_fn_in(col.len, alloc.clone(), |i| Ok(keys.key(i as u32)))?,
        Some(b) => {
            let mut v = TryVec::new_in(alloc.clone());
            v.try_reserve(valid_rows)?;
            for i in 0..n {
                if b.get(i as usize) {
                    v.try_push(keys.key(i))?;
                } else {
                    null_total += 1;
                    if nulls.len() < keep {
                        nulls.try_push(i)?;
                    }
                }
            }
            v
        }
    };
    let nulls_before = if options.nulls_first {
        keep.min(null_total)
    } else {
        0
    };
    let wanted = (keep - nulls_before).min(valid.len());
    let pairs = valid.as_mut_slice();
    let head = if wanted == pairs.len() {
        keys.sort_all(pairs, alloc.clone())?;
        pairs
    } else {
        if wanted > 0 {
            pairs.select_nth_unstable_by(wanted - 1, cmp);
        }
        let head = pairs.get_mut(..wanted).unwrap_or(&mut []);
        head.sort_unstable_by(cmp);
        head
    };
    emit(
        head,
        K::index,
        nulls.as_slice(),
        null_total,
        keep,
        options.nulls_first,
        alloc,
    )
}

/// The `keep` sorted indices: the null rows' (`nulls`, the first of
/// `null_total` in index order) before or after the sorted valid rows'
/// (`index` of each of `valid`, the first ones up to `keep`).
pub(super) fn emit<'a, K, A: Allocator + Clone>(
    valid: &[K],
    index: impl Fn(&K) -> u32,
    nulls: &[u32],
    null_total: usize,
    keep: usize,
    nulls_first: bool,
    alloc: A,
) -> Result<PrimitiveArray<'a, u32, A>> {
    let before = if nulls_first { keep.min(null_total) } else { 0 };
    let valid = valid.get(..keep - before).unwrap_or(valid);
    let after = keep - before - valid.len();
    let mut out = MutableBuffer::new_in(alloc);
    out.try_reserve_exact(keep.checked_mul(4).ok_or(Error::CapacityOverflow)?)?;
    out.try_extend_from_typed(nulls.get(..before).unwrap_or(nulls))?;
    out.try_extend_mapped(valid, |_, v| index(v))?;
    out.try_extend_from_typed(nulls.get(..after).unwrap_or(nulls))?;
    let values = ScalarBuffer::try_from_buffer(out.into_buffer())?;
    // SAFETY: `u32` stores UInt32; no bitmap.
    Ok(unsafe { PrimitiveArray::new_unchecked(DataType::UInt32, values, None) })
}

fn sort_primitive<'a, T: SortValue, A: Allocator + Clone>(
    p: &PrimitiveArray<'_, T, A>,
    options: SortOptions,
    limit: Option<usize>,
    alloc: A,
) -> Result<PrimitiveArray<'a, u32, A>> {
    let col = Column::of(p.len(), p.nulls());
    let values = p.values();
    if T::PACKS {
        let flip = if options.descending { u64::MAX } else { 0 };
        sort_rows(&Packed { values, flip }, col, options, limit, alloc)
    } else {
        let descending = options.descending;
        sort_rows(&Pairs { values, descending }, col, options, limit, alloc)
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
    let keys = Prefixed {
        value: |i| value(i).unwrap_or(&[]),
        descending: options.descending,
    };
    sort_rows(
        &keys,
        Column::of(array.len(), array.nulls()),
        options,
        limit,
        alloc,
    )
}

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
    if limit.is_some() && sort_topk::use_heap(keep, len) {
        return sort_lex::lexsort_top_k(columns, len, keep, alloc);
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
