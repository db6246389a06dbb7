//! Top-k of [`super::lexsort_to_indices_in`] without the row format: every
//! row is offered to a heap of `k` candidate indices, compared column by
//! column by [`ColumnOrder`] (what `arrow-ord`'s lexicographical comparator
//! does), so a small limit costs one pass and no per-row keys.

use core::cmp::Ordering;

use allocator_api2::alloc::Allocator;

use super::column::SortColumn;
use super::emit::{emit, row_count};
use super::topk::BoundedHeap;
use crate::array::{
    Array, ArrayRef, BinaryArray, BinaryViewArray, LargeBinaryArray, LargeStringArray,
    PrimitiveArray, StringArray, StringViewArray,
};
use crate::buffer::TryVec;
use crate::compute::bits::read_bits;
use crate::compute::indices::Bits;
use crate::error::Result;
use crate::native::{f16, i256};
use crate::row::{RowConverter, Rows, SortField, SortOptions};

/// The values of one column, read by row index.
enum Values<'x, 'a, A: Allocator> {
    I8(&'x [i8]),
    I16(&'x [i16]),
    I32(&'x [i32]),
    I64(&'x [i64]),
    U8(&'x [u8]),
    U16(&'x [u16]),
    U32(&'x [u32]),
    U64(&'x [u64]),
    I128(&'x [i128]),
    I256(&'x [i256]),
    F16(&'x [f16]),
    F32(&'x [f32]),
    F64(&'x [f64]),
    Boolean(Bits<'x>),
    Utf8(&'x StringArray<'a, A>),
    LargeUtf8(&'x LargeStringArray<'a, A>),
    Binary(&'x BinaryArray<'a, A>),
    LargeBinary(&'x LargeBinaryArray<'a, A>),
    Utf8View(&'x StringViewArray<'a, A>),
    BinaryView(&'x BinaryViewArray<'a, A>),
    /// Any other type: the column's own rows (direction and nulls encoded).
    Rows(Rows<A>),
}

/// Values `a` and `b` of `v` in order (equal when one is missing, which a
/// validated array never has).
#[inline(always)]
fn by_value<T: Ord>(v: &[T], a: usize, b: usize) -> Ordering {
    match (v.get(a), v.get(b)) {
        (Some(x), Some(y)) => x.cmp(y),
        _ => Ordering::Equal,
    }
}

/// Floats `a` and `b` of `v` by the row format's rules: all NaNs equal and
/// after every number, `-0 == +0`.
#[inline(always)]
fn by_float<T: Copy>(v: &[T], a: usize, b: usize, to_f64: impl Fn(T) -> f64) -> Ordering {
    let (Some(&x), Some(&y)) = (v.get(a), v.get(b)) else {
        return Ordering::Equal;
    };
    let (x, y) = (to_f64(x), to_f64(y));
    match (x.is_nan(), y.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        (false, false) => x.partial_cmp(&y).unwrap_or(Ordering::Equal),
    }
}

/// Byte values `a` and `b` (empty when missing).
#[inline(always)]
fn by_bytes<'v>(value: impl Fn(usize) -> Option<&'v [u8]>, a: usize, b: usize) -> Ordering {
    value(a).unwrap_or(&[]).cmp(value(b).unwrap_or(&[]))
}

impl<A: Allocator> Values<'_, '_, A> {
    /// Valid rows `a` and `b` in ascending order.
    #[inline]
    fn compare(&self, a: usize, b: usize) -> Ordering {
        match self {
            Values::I8(v) => by_value(v, a, b),
            Values::I16(v) => by_value(v, a, b),
            Values::I32(v) => by_value(v, a, b),
            Values::I64(v) => by_value(v, a, b),
            Values::U8(v) => by_value(v, a, b),
            Values::U16(v) => by_value(v, a, b),
            Values::U32(v) => by_value(v, a, b),
            Values::U64(v) => by_value(v, a, b),
            Values::I128(v) => by_value(v, a, b),
            Values::I256(v) => by_value(v, a, b),
            Values::F16(v) => by_float(v, a, b, f16::to_f64),
            Values::F32(v) => by_float(v, a, b, f64::from),
            Values::F64(v) => by_float(v, a, b, |x| x),
            Values::Boolean(bits) => bits.get(a).cmp(&bits.get(b)),
            Values::Utf8(s) => by_bytes(|i| s.value_bytes(i), a, b),
            Values::LargeUtf8(s) => by_bytes(|i| s.value_bytes(i), a, b),
            Values::Binary(s) => by_bytes(|i| s.value_bytes(i), a, b),
            Values::LargeBinary(s) => by_bytes(|i| s.value_bytes(i), a, b),
            Values::Utf8View(s) => by_bytes(|i| s.value_bytes(i), a, b),
            Values::BinaryView(s) => by_bytes(|i| s.value_bytes(i), a, b),
            Values::Rows(r) => by_bytes(|i| r.row(i).map(|r| r.data()), a, b),
        }
    }
}

/// How one column orders two rows: its values, which rows are null, and
/// its [`SortOptions`].
pub(super) struct ColumnOrder<'x, 'a, A: Allocator> {
    values: Values<'x, 'a, A>,
    nulls: Option<Bits<'x>>,
    options: SortOptions,
}

impl<'x, 'a, A: Allocator + Clone> ColumnOrder<'x, 'a, A> {
    /// The order of `array` under `options`. Types without a direct
    /// comparison are converted to the row format (their own rows).
    ///
    /// # Errors
    /// The row format's errors (for those types); [`crate::Error::AllocationFailed`].
    pub(super) fn try_new_in(
        array: &'x ArrayRef<'a, A>,
        options: SortOptions,
        alloc: A,
    ) -> Result<Self> {
        let values = match array {
            ArrayRef::Int8(p) => Values::I8(p.values()),
            ArrayRef::Int16(p) => Values::I16(p.values()),
            ArrayRef::Int32(p) => Values::I32(p.values()),
            ArrayRef::Int64(p) => Values::I64(p.values()),
            ArrayRef::UInt8(p) => Values::U8(p.values()),
            ArrayRef::UInt16(p) => Values::U16(p.values()),
            ArrayRef::UInt32(p) => Values::U32(p.values()),
            ArrayRef::UInt64(p) => Values::U64(p.values()),
            ArrayRef::Int128(p) => Values::I128(p.values()),
            ArrayRef::Int256(p) => Values::I256(p.values()),
            ArrayRef::Float16(p) => Values::F16(p.values()),
            ArrayRef::Float32(p) => Values::F32(p.values()),
            ArrayRef::Float64(p) => Values::F64(p.values()),
            ArrayRef::Boolean(b) => Values::Boolean(Bits {
                bytes: b.values().inner().as_slice(),
                offset: b.values().offset(),
            }),
            ArrayRef::Utf8(s) => Values::Utf8(s),
            ArrayRef::LargeUtf8(s) => Values::LargeUtf8(s),
            ArrayRef::Binary(s) => Values::Binary(s),
            ArrayRef::LargeBinary(s) => Values::LargeBinary(s),
            ArrayRef::Utf8View(s) => Values::Utf8View(s),
            ArrayRef::BinaryView(s) => Values::BinaryView(s),
            other => {
                let field = SortField::new_with_options(other.data_type().clone(), options);
                #[allow(unused_mut)] // `&mut self` until the converter's interner moves out
                let mut converter = RowConverter::try_new_in(&[field], alloc)?;
                let rows = converter.convert_columns(core::slice::from_ref(other))?;
                return Ok(ColumnOrder {
                    values: Values::Rows(rows),
                    nulls: None,
                    options: SortOptions::default(),
                });
            }
        };
        // Every type compared directly (the others returned above).
        let nulls = array.nulls();
        Ok(ColumnOrder {
            values,
            nulls: nulls.filter(|n| n.null_count() > 0).map(Bits::of),
            options,
        })
    }
}

impl<A: Allocator> ColumnOrder<'_, '_, A> {
    /// Rows `a` and `b` in this column's order (nulls placed, direction
    /// applied; equal values are `Equal`).
    #[inline]
    pub(super) fn compare(&self, a: usize, b: usize) -> Ordering {
        if let Some(n) = &self.nulls {
            match (n.get(a), n.get(b)) {
                (true, true) => {}
                (false, false) => return Ordering::Equal,
                (false, true) if self.options.nulls_first => return Ordering::Less,
                (false, true) => return Ordering::Greater,
                (true, false) if self.options.nulls_first => return Ordering::Greater,
                (true, false) => return Ordering::Less,
            }
        }
        let o = self.values.compare(a, b);
        if self.options.descending {
            o.reverse()
        } else {
            o
        }
    }
}

/// The first `keep` indices of the lexicographic order of `columns` (all
/// of `len` rows), ties by index: one pass over the rows with a heap of
/// `keep` candidates.
///
/// # Errors
/// [`crate::Error::CapacityOverflow`] for more than `u32::MAX` rows; the
/// row format's errors (columns compared by rows);
/// [`crate::Error::AllocationFailed`].
pub(super) fn lexsort_top_k<'a, A: Allocator + Clone>(
    columns: &[SortColumn<'_, '_, A>],
    len: usize,
    keep: usize,
    alloc: A,
) -> Result<PrimitiveArray<'a, u32, A>> {
    let n = row_count(len)?;
    let mut orders = TryVec::new_in(alloc.clone());
    orders.try_reserve(columns.len())?;
    for c in columns {
        let o = c.options.unwrap_or_default();
        orders.try_push(ColumnOrder::try_new_in(c.values, o, alloc.clone())?)?;
    }
    let orders = orders.as_slice();
    let mut cmp = |a: &u32, b: &u32| {
        for o in orders {
            let r = o.compare(*a as usize, *b as usize);
            if r != Ordering::Equal {
                return r;
            }
        }
        a.cmp(b)
    };
    let mut heap = BoundedHeap::try_new_in(keep, alloc.clone())?;
    // Once the worst row kept is null in the first column and nulls come
    // first there (or valid, and nulls come last), every row kept is too,
    // and so must be every row that enters: the rest of the rows are read
    // from the first column's validity words, only those of that kind.
    let first = orders
        .first()
        .and_then(|o| o.nulls.map(|b| (b, o.options.nulls_first)));
    let mut i = 0u32;
    let mut only_valid = None;
    while i < n && keep > 0 {
        heap.offer(i, &mut cmp)?;
        i += 1;
        if let (Some(&worst), Some((bits, nulls_first))) = (heap.worst_if_full(), first) {
            let worst_null = !bits.get(worst as usize);
            if worst_null == nulls_first {
                only_valid = Some((bits, !worst_null));
                break;
            }
        }
    }
    if let Some((bits, valid)) = only_valid {
        let mut at = i as usize;
        while at < len {
            let w = read_bits(bits.bytes, bits.offset + at);
            let mut w = if valid { w } else { !w };
            if len - at < 64 {
                w &= (1u64 << (len - at)) - 1;
            }
            while w != 0 {
                let row = at + w.trailing_zeros() as usize;
                heap.offer(row_count(row)?, &mut cmp)?;
                w &= w - 1;
            }
            at += 64;
        }
    }
    let sorted = heap.into_sorted(&mut cmp);
    emit(sorted.as_slice(), |i| *i, &[], 0, keep, false, alloc)
}
