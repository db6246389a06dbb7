//! Kernels that make new arrays: [`new_empty`], [`new_null`] and [`concat()`].
//!
//! Every kernel allocates through the allocator `A` it is given (fallibly:
//! [`crate::Error::AllocationFailed`] instead of aborting), never panics on
//! malformed input, and covers every physical layout of the columnar format
//! (nested ones recursively).
//!
//! - [`new_empty`]: a zero-length array of any [`crate::datatypes::DataType`],
//!   borrowing static empty buffers (only nested layouts allocate, for the
//!   shared children).
//! - [`new_null`]: `len` null slots of any data type; the zeroed buffers of the
//!   whole tree share one allocation.
//! - [`concat()`]: the slots of several arrays of one data type, one after the
//!   other, copied into new buffers (used e.g. by the IPC reader to append a
//!   delta dictionary to the current one).
//! - [`take_in`] / [`take()`]: slots gathered by index ([`Indices`]).
//! - [`filter_in`] / [`filter()`], [`filter_record_batch_in`]: the slots
//!   where a boolean predicate is true.
//! - [`gc_in`] / [`gc()`]: a view array with only the bytes its views
//!   reference (take, filter and concat share view data buffers).
//! - [`interleave_in`] / [`interleave()`]: rows picked from several arrays.
//! - [`sort_to_indices_in`] and [`lexsort_to_indices_in`]: the permutation
//!   that sorts one column (directly for primitives) or several (through the
//!   row format), with an optional top-k limit.

mod compress;
mod concat;
#[cfg(any(
    feature = "dictionary",
    feature = "nested",
    feature = "run-end",
    feature = "union"
))]
mod concat_nested;
mod empty;
mod filter;
mod filter_values;
#[cfg(feature = "views")]
mod gc;
mod indices;
mod interleave;
mod set_bits;
#[cfg(all(
    feature = "dictionary",
    feature = "nested",
    feature = "run-end",
    feature = "views"
))]
mod sort;
#[cfg(all(
    feature = "dictionary",
    feature = "nested",
    feature = "run-end",
    feature = "views"
))]
mod sort_lex;
#[cfg(all(
    feature = "dictionary",
    feature = "nested",
    feature = "run-end",
    feature = "views"
))]
mod sort_radix;
#[cfg(all(
    feature = "dictionary",
    feature = "nested",
    feature = "run-end",
    feature = "views"
))]
mod sort_topk;
mod take;
mod take_bytes;
#[cfg(any(
    feature = "dictionary",
    feature = "nested",
    feature = "run-end",
    feature = "union"
))]
mod take_nested;

#[cfg(all(
    test,
    feature = "dictionary",
    feature = "nested",
    feature = "run-end",
    feature = "union",
    feature = "views"
))]
mod proptests_select;
#[cfg(all(
    test,
    feature = "dictionary",
    feature = "nested",
    feature = "run-end",
    feature = "union",
    feature = "views"
))]
mod select_model;
#[cfg(test)]
pub(crate) mod tests;
#[cfg(test)]
pub(crate) mod tests_empty;
#[cfg(test)]
mod tests_interleave;
#[cfg(all(
    test,
    feature = "dictionary",
    feature = "nested",
    feature = "run-end",
    feature = "union",
    feature = "views"
))]
mod tests_miri;
#[cfg(test)]
pub(crate) mod tests_nested;
#[cfg(all(
    test,
    feature = "dictionary",
    feature = "nested",
    feature = "run-end",
    feature = "union",
    feature = "views"
))]
mod tests_select;
#[cfg(all(
    test,
    feature = "dictionary",
    feature = "nested",
    feature = "run-end",
    feature = "views"
))]
mod tests_sort;
#[cfg(all(
    test,
    feature = "dictionary",
    feature = "nested",
    feature = "run-end",
    feature = "views"
))]
mod tests_sort_topk;
#[cfg(all(test, feature = "views"))]
mod tests_views;

pub use concat::concat;
pub use empty::{new_empty, new_null};
#[cfg(feature = "alloc")]
pub use filter::{filter, filter_record_batch};
pub use filter::{filter_in, filter_record_batch_in};
#[cfg(all(feature = "views", feature = "alloc"))]
pub use gc::gc;
#[cfg(feature = "views")]
pub use gc::gc_in;
pub use indices::Indices;
#[cfg(feature = "alloc")]
pub use interleave::interleave;
pub use interleave::interleave_in;
#[cfg(all(
    feature = "dictionary",
    feature = "nested",
    feature = "run-end",
    feature = "views",
    feature = "alloc"
))]
pub use sort::{lexsort_to_indices, sort_to_indices};
#[cfg(all(
    feature = "dictionary",
    feature = "nested",
    feature = "run-end",
    feature = "views"
))]
pub use sort::{lexsort_to_indices_in, sort_to_indices_in, SortColumn};
#[cfg(feature = "alloc")]
pub use take::take;
pub use take::take_in;

use allocator_api2::alloc::Allocator;

use crate::array::{Array, ArrayRef};
#[cfg(any(
    feature = "dictionary",
    feature = "nested",
    feature = "run-end",
    feature = "union"
))]
use crate::buffer::TryVec;
use crate::buffer::{BooleanBuffer, MutableBuffer, NullBuffer};
use crate::error::{Error, Result};

/// Number of bytes holding `bits` bits.
#[inline]
const fn bytes_for_bits(bits: usize) -> usize {
    bits.div_ceil(8)
}

/// Reads 64 bits (LSB order) from bit `start` of `src`; bits past the end
/// of `src` read as zero.
#[inline]
fn read_bits(src: &[u8], start: usize) -> u64 {
    let byte = start / 8;
    let shift = start % 8;
    if let Some(eight) = src.get(byte..byte.wrapping_add(8)) {
        let mut b = [0u8; 8];
        b.copy_from_slice(eight);
        let lo = u64::from_le_bytes(b);
        if shift == 0 {
            return lo;
        }
        let hi = src.get(byte + 8).map_or(0, |h| u64::from(*h));
        return (lo >> shift) | (hi << (64 - shift));
    }
    let mut w = 0u128;
    for i in 0..9 {
        if let Some(b) = src.get(byte + i) {
            w |= u128::from(*b) << (8 * i);
        }
    }
    (w >> (start % 8)) as u64
}

/// ORs the low `n <= 64` bits of `v` into `dst` from bit `start` (LSB
/// order); bits past the end of `dst` are dropped.
fn or_bits(dst: &mut [u8], start: usize, v: u64, n: usize) {
    let byte = start / 8;
    let shift = start % 8;
    let v = if n >= 64 { v } else { v & ((1u64 << n) - 1) };
    let w = u128::from(v) << shift;
    for i in 0..bytes_for_bits(shift + n) {
        if let Some(b) = dst.get_mut(byte + i) {
            *b |= (w >> (8 * i)) as u8;
        }
    }
}

/// ORs `len` bits of `src` from bit `src_start` into the (zeroed) `dst`
/// from bit `dst_start`; whole bytes are copied when both starts are
/// byte-aligned.
fn copy_bits(dst: &mut [u8], dst_start: usize, src: &[u8], src_start: usize, len: usize) {
    let mut done = 0;
    if dst_start % 8 == 0 && src_start % 8 == 0 {
        let whole = len / 8;
        let d = dst.get_mut(dst_start / 8..dst_start / 8 + whole);
        let s = src.get(src_start / 8..src_start / 8 + whole);
        if let (Some(d), Some(s)) = (d, s) {
            d.copy_from_slice(s);
            done = whole * 8;
        }
    }
    while done < len {
        let n = (len - done).min(64);
        let v = read_bits(src, src_start + done);
        or_bits(dst, dst_start + done, v, n);
        done += n;
    }
}

/// Writes a bitmap of a known number of bits, range by range.
struct BitWriter<A: Allocator> {
    buf: MutableBuffer<A>,
    len: usize,
}

impl<A: Allocator> BitWriter<A> {
    /// A zeroed bitmap with room for `bits` bits (no allocation for 0 bits).
    fn try_new(bits: usize, alloc: A) -> Result<Self> {
        let mut buf = MutableBuffer::new_in(alloc);
        let bytes = bytes_for_bits(bits);
        buf.try_reserve_exact(bytes)?;
        buf.try_extend_zeros(bytes)?;
        Ok(BitWriter { buf, len: 0 })
    }

    /// Appends the bits of `bits`.
    fn append(&mut self, bits: &BooleanBuffer<'_, A>) {
        copy_bits(
            self.buf.as_slice_mut(),
            self.len,
            bits.inner().as_slice(),
            bits.offset(),
            bits.len(),
        );
        self.len += bits.len();
    }

    /// Appends `n` set bits.
    fn append_ones(&mut self, n: usize) {
        let mut done = 0;
        while done < n {
            let k = (n - done).min(64);
            or_bits(self.buf.as_slice_mut(), self.len + done, u64::MAX, k);
            done += k;
        }
        self.len += n;
    }

    /// The bits written.
    ///
    /// # Errors
    /// [`Error::BufferTooSmall`] when more bits were appended than reserved.
    fn finish(self) -> Result<BooleanBuffer<'static, A>> {
        let len = self.len;
        BooleanBuffer::try_new(self.buf.into_buffer(), 0, len)
    }
}

/// Sum of the lengths of `arrays`.
fn total_len<A: Allocator>(arrays: &[ArrayRef<'_, A>]) -> Result<usize> {
    arrays.iter().try_fold(0usize, |n, a| {
        n.checked_add(a.len()).ok_or(Error::CapacityOverflow)
    })
}

/// The validity bitmaps of `arrays` one after the other (`total` bits), or
/// `None` when no array has a null.
fn concat_nulls<'a, A: Allocator + Clone>(
    arrays: &[ArrayRef<'a, A>],
    total: usize,
    alloc: A,
) -> Result<Option<NullBuffer<'a, A>>> {
    if arrays
        .iter()
        .all(|a| a.nulls().is_none_or(|n| n.null_count() == 0))
    {
        return Ok(None);
    }
    let mut w = BitWriter::try_new(total, alloc)?;
    for a in arrays {
        match a.nulls() {
            Some(n) if n.len() == a.len() => w.append(n.inner()),
            Some(_) => return Err(Error::ValidityTooSmall),
            None => w.append_ones(a.len()),
        }
    }
    Ok(Some(NullBuffer::new(w.finish()?)))
}

/// Collects `n` arrays made by `f(0)`, `f(1)`, … into a vector from `alloc`.
#[cfg(any(
    feature = "dictionary",
    feature = "nested",
    feature = "run-end",
    feature = "union"
))]
fn collect_arrays<'a, A, F>(n: usize, alloc: A, mut f: F) -> Result<TryVec<ArrayRef<'a, A>, A>>
where
    A: Allocator,
    F: FnMut(usize) -> Result<ArrayRef<'a, A>>,
{
    let mut v = TryVec::new_in(alloc);
    v.try_reserve(n)?;
    for i in 0..n {
        v.try_push(f(i)?)?;
    }
    Ok(v)
}
