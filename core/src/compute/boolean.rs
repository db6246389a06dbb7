//! Mask kernels: [`and_in`], [`or_in`], [`not_in`] over boolean arrays and
//! [`is_null_in`] / [`is_not_null_in`] over any array, plus the bit packing
//! the comparison kernels ([`super::cmp`]) build their results with.
//!
//! Null semantics are arrow-arith's: a slot of `and`, `or` and `not` is
//! null where any input slot is null (not Kleene logic); `is_null` and
//! `is_not_null` have no nulls. Results are new bitmaps (LSB first, one bit
//! per slot, 64-byte aligned and padded) from the allocator `A`.

use allocator_api2::alloc::Allocator;

use super::bits::read_bits;
use crate::array::{Array, ArrayRef, BooleanArray};
use crate::buffer::{BooleanBuffer, MutableBuffer, NullBuffer};
use crate::error::{Error, Result};

/// `len` bits, 64 at a time: word `w` holds bits `64 * w ..` (LSB first) as
/// `word(w)` returns them; bits past `len` in the last word are cleared.
///
/// # Errors
/// [`Error::AllocationFailed`], [`Error::CapacityOverflow`].
#[inline(always)]
pub(super) fn pack_words<A: Allocator>(
    len: usize,
    alloc: A,
    mut word: impl FnMut(usize) -> u64,
) -> Result<BooleanBuffer<'static, A>> {
    let words = len.div_ceil(64);
    let bytes = words.checked_mul(8).ok_or(Error::CapacityOverflow)?;
    let mut buf = MutableBuffer::try_with_capacity_in(bytes, alloc)?;
    // Zeroed, then each word written once by a plain loop (which inlines
    // `word`; an iterator-fed extend kept the compare loops out of line),
    // little-endian: bit `i` of a word is bit `i % 8` of its byte `i / 8`
    // on any machine.
    buf.try_extend_zeros(bytes)?;
    let out = buf.typed_mut::<u64>()?;
    let last = words.wrapping_sub(1);
    let tail = len % 64;
    for (w, o) in out.iter_mut().enumerate() {
        let v = word(w);
        let v = if w == last && tail != 0 {
            v & ((1u64 << tail) - 1)
        } else {
            v
        };
        *o = v.to_le();
    }
    BooleanBuffer::try_new(buf.into_buffer(), 0, len)
}

/// `len` bits where bit `i` is `bit(i)`, packed 64 at a time.
///
/// # Errors
/// As [`pack_words`].
#[inline(always)]
pub(super) fn pack_bits<A: Allocator>(
    len: usize,
    alloc: A,
    mut bit: impl FnMut(usize) -> bool,
) -> Result<BooleanBuffer<'static, A>> {
    pack_words(len, alloc, |w| {
        let base = w * 64;
        let mut v = 0u64;
        // A full word's loop has a fixed trip count (it unrolls); the last
        // word's is shorter.
        if len - base >= 64 {
            for b in 0..64 {
                v |= u64::from(bit(base + b)) << b;
            }
        } else {
            for b in 0..len - base {
                v |= u64::from(bit(base + b)) << b;
            }
        }
        v
    })
}

/// Word `w` (64 bits from bit `64 * w`) of a bitmap.
#[inline(always)]
pub(super) fn word_of<A: Allocator>(b: &BooleanBuffer<'_, A>, w: usize) -> u64 {
    read_bits(b.inner().as_slice(), b.offset() + w * 64)
}

/// The bitwise `f` of two bitmaps of one length, word by word.
///
/// # Errors
/// [`Error::LengthMismatch`] when the lengths differ; as [`pack_words`].
pub(super) fn bitwise<A: Allocator>(
    l: &BooleanBuffer<'_, A>,
    r: &BooleanBuffer<'_, A>,
    alloc: A,
    f: impl Fn(u64, u64) -> u64,
) -> Result<BooleanBuffer<'static, A>> {
    if l.len() != r.len() {
        return Err(Error::LengthMismatch);
    }
    pack_words(l.len(), alloc, |w| f(word_of(l, w), word_of(r, w)))
}

/// The validity of a slot computed from two: valid where both are (a
/// missing bitmap is all valid; `None` when neither has one).
///
/// # Errors
/// [`Error::LengthMismatch`]; as [`pack_words`].
pub(super) fn and_nulls<A: Allocator>(
    l: Option<&NullBuffer<'_, A>>,
    r: Option<&NullBuffer<'_, A>>,
    alloc: A,
) -> Result<Option<NullBuffer<'static, A>>> {
    let bits = match (l, r) {
        (None, None) => return Ok(None),
        (Some(n), None) | (None, Some(n)) => {
            let b = n.inner();
            pack_words(b.len(), alloc, |w| word_of(b, w))?
        }
        (Some(a), Some(b)) => bitwise(a.inner(), b.inner(), alloc, |x, y| x & y)?,
    };
    Ok(Some(NullBuffer::new(bits)))
}

/// A boolean array of `values` and `nulls`.
pub(super) fn boolean<A: Allocator>(
    values: BooleanBuffer<'static, A>,
    nulls: Option<NullBuffer<'static, A>>,
) -> Result<BooleanArray<'static, A>> {
    BooleanArray::try_new(values, nulls)
}

/// Slot-wise `l AND r`; null where either slot is null.
///
/// ```
/// use alkaid::array::BooleanArray;
/// use alkaid::compute::boolean::and_in;
/// use alkaid::Global;
///
/// let l = BooleanArray::from(vec![Some(true), Some(true), None, Some(false)]);
/// let r = BooleanArray::from(vec![Some(true), Some(false), Some(true), Some(false)]);
/// let a = and_in(&l, &r, Global)?;
/// assert_eq!(a.iter().collect::<Vec<_>>(), [Some(true), Some(false), None, Some(false)]);
/// # Ok::<(), alkaid::Error>(())
/// ```
///
/// # Errors
/// [`Error::LengthMismatch`] when the lengths differ;
/// [`Error::AllocationFailed`].
pub fn and_in<A: Allocator + Clone>(
    l: &BooleanArray<'_, A>,
    r: &BooleanArray<'_, A>,
    alloc: A,
) -> Result<BooleanArray<'static, A>> {
    let values = bitwise(l.values(), r.values(), alloc.clone(), |x, y| x & y)?;
    boolean(values, and_nulls(l.nulls(), r.nulls(), alloc)?)
}

/// Slot-wise `l OR r`; null where either slot is null.
///
/// # Errors
/// As [`and_in`].
pub fn or_in<A: Allocator + Clone>(
    l: &BooleanArray<'_, A>,
    r: &BooleanArray<'_, A>,
    alloc: A,
) -> Result<BooleanArray<'static, A>> {
    let values = bitwise(l.values(), r.values(), alloc.clone(), |x, y| x | y)?;
    boolean(values, and_nulls(l.nulls(), r.nulls(), alloc)?)
}

/// Slot-wise `NOT a`; null where `a` is null.
///
/// # Errors
/// [`Error::AllocationFailed`].
pub fn not_in<A: Allocator + Clone>(
    a: &BooleanArray<'_, A>,
    alloc: A,
) -> Result<BooleanArray<'static, A>> {
    let v = a.values();
    let values = pack_words(v.len(), alloc.clone(), |w| !word_of(v, w))?;
    boolean(values, and_nulls(a.nulls(), None, alloc)?)
}

/// `true` where a slot of `a` is (logically) null; no nulls of its own.
///
/// ```
/// use alkaid::array::{Array, Int32Array};
/// use alkaid::compute::boolean::is_null_in;
/// use alkaid::Global;
///
/// let a = Int32Array::from(vec![Some(1), None, Some(3)]).into_array_ref();
/// let m = is_null_in(&a, Global)?;
/// assert_eq!(m.iter().collect::<Vec<_>>(), [Some(false), Some(true), Some(false)]);
/// # Ok::<(), alkaid::Error>(())
/// ```
///
/// # Errors
/// [`Error::AllocationFailed`].
pub fn is_null_in<A: Allocator + Clone>(
    a: &ArrayRef<'_, A>,
    alloc: A,
) -> Result<BooleanArray<'static, A>> {
    null_mask(a, alloc, true)
}

/// `true` where a slot of `a` is not (logically) null; no nulls of its own.
///
/// # Errors
/// [`Error::AllocationFailed`].
pub fn is_not_null_in<A: Allocator + Clone>(
    a: &ArrayRef<'_, A>,
    alloc: A,
) -> Result<BooleanArray<'static, A>> {
    null_mask(a, alloc, false)
}

/// The mask of null (`null == true`) or valid slots of `a`.
fn null_mask<A: Allocator + Clone>(
    a: &ArrayRef<'_, A>,
    alloc: A,
    null: bool,
) -> Result<BooleanArray<'static, A>> {
    let flip = if null { !0u64 } else { 0 };
    // The layouts without a bitmap of their own resolve each slot, as
    // arrow-rs's `logical_nulls`.
    let len = a.len();
    let values = match a {
        ArrayRef::Null(_) => pack_words(len, alloc, |_| flip)?,
        #[cfg(feature = "dictionary")]
        ArrayRef::Dictionary(d) => pack_bits(len, alloc, |i| d.is_logically_null(i) == null)?,
        #[cfg(feature = "run-end")]
        ArrayRef::RunEndEncoded(r) => pack_bits(len, alloc, |i| r.is_logically_null(i) == null)?,
        #[cfg(feature = "union")]
        ArrayRef::Union(u) => pack_bits(len, alloc, |i| u.is_logically_null(i) == null)?,
        _ => match a.nulls() {
            Some(n) => {
                let b = n.inner();
                pack_words(len, alloc, |w| word_of(b, w) ^ flip)?
            }
            None => pack_words(len, alloc, |_| !flip)?,
        },
    };
    boolean(values, None)
}

/// [`and_in`] with the global allocator.
///
/// # Errors
/// As [`and_in`].
#[cfg(feature = "alloc")]
pub fn and(
    l: &BooleanArray<'_, crate::Global>,
    r: &BooleanArray<'_, crate::Global>,
) -> Result<BooleanArray<'static, crate::Global>> {
    and_in(l, r, crate::Global)
}

/// [`or_in`] with the global allocator.
///
/// # Errors
/// As [`or_in`].
#[cfg(feature = "alloc")]
pub fn or(
    l: &BooleanArray<'_, crate::Global>,
    r: &BooleanArray<'_, crate::Global>,
) -> Result<BooleanArray<'static, crate::Global>> {
    or_in(l, r, crate::Global)
}

/// [`not_in`] with the global allocator.
///
/// # Errors
/// As [`not_in`].
#[cfg(feature = "alloc")]
pub fn not(a: &BooleanArray<'_, crate::Global>) -> Result<BooleanArray<'static, crate::Global>> {
    not_in(a, crate::Global)
}

/// [`is_null_in`] with the global allocator.
///
/// # Errors
/// As [`is_null_in`].
#[cfg(feature = "alloc")]
pub fn is_null(a: &ArrayRef<'_, crate::Global>) -> Result<BooleanArray<'static, crate::Global>> {
    is_null_in(a, crate::Global)
}

/// [`is_not_null_in`] with the global allocator.
///
/// # Errors
/// As [`is_not_null_in`].
#[cfg(feature = "alloc")]
pub fn is_not_null(
    a: &ArrayRef<'_, crate::Global>,
) -> Result<BooleanArray<'static, crate::Global>> {
    is_not_null_in(a, crate::Global)
}
