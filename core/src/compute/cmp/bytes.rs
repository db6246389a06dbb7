//! Comparisons of variable-length values (binary and string with 32- or
//! 64-bit offsets, their view layouts) and of fixed-size binary values:
//! bytewise, a prefix ordering before any longer value.

use allocator_api2::alloc::Allocator;

use super::{Kind, Side};
use crate::array::{ByteArrayType, FixedSizeBinaryArray, GenericByteArray};
#[cfg(feature = "views")]
use crate::array::{ByteView, ByteViewType, GenericByteViewArray};
use crate::buffer::{BooleanBuffer, OffsetSize};
use crate::compute::boolean::pack_bits;
use crate::error::Result;

/// Values read by slot index as bytes.
pub(super) trait ByteValues: Copy {
    /// The bytes of slot `i` (empty if `i` is out of range, which a
    /// validated array's slots never are).
    fn at(&self, i: usize) -> &[u8];

    /// The length of slot `i` in bytes, without its bytes (0 if out of
    /// range).
    fn len_of(&self, i: usize) -> usize;

    /// For views: the 16 bytes of slot `i`'s view, whose length and prefix decide many
    /// comparisons without the value's bytes; `None` for other layouts.
    #[inline(always)]
    fn head(&self, _i: usize) -> Option<[u8; 16]> {
        None
    }
}

/// The slots of an offsets layout: `data[offsets[i]..offsets[i + 1]]`.
#[derive(Clone, Copy)]
pub(super) struct Offsets<'s, O> {
    offsets: &'s [O],
    data: &'s [u8],
}

impl<'s, O: OffsetSize> Offsets<'s, O> {
    /// The slots of `a`.
    pub(super) fn of<T: ByteArrayType<Offset = O>, A: Allocator>(
        a: &'s GenericByteArray<'_, T, A>,
    ) -> Self {
        Offsets {
            offsets: a.value_offsets(),
            data: a.values().as_slice(),
        }
    }
}

impl<O: OffsetSize> Offsets<'_, O> {
    /// The byte range of slot `i` (`(0, 0)` out of range; a negative
    /// offset, which validation refuses, reads as 0).
    #[inline(always)]
    fn range(&self, i: usize) -> (usize, usize) {
        match self.offsets.get(i..i + 2) {
            Some(&[s, e]) => (s.to_usize().unwrap_or(0), e.to_usize().unwrap_or(0)),
            _ => (0, 0),
        }
    }
}

impl<O: OffsetSize> ByteValues for Offsets<'_, O> {
    #[inline(always)]
    fn at(&self, i: usize) -> &[u8] {
        let (s, e) = self.range(i);
        self.data.get(s..e).unwrap_or(&[])
    }

    #[inline(always)]
    fn len_of(&self, i: usize) -> usize {
        let (s, e) = self.range(i);
        e.wrapping_sub(s)
    }
}

/// The slots of a view layout.
#[cfg(feature = "views")]
pub(super) struct Views<'s, T: ByteViewType, A: Allocator> {
    array: &'s GenericByteViewArray<'s, T, A>,
    views: &'s [ByteView],
}

#[cfg(feature = "views")]
impl<T: ByteViewType, A: Allocator> Clone for Views<'_, T, A> {
    fn clone(&self) -> Self {
        *self
    }
}

#[cfg(feature = "views")]
impl<T: ByteViewType, A: Allocator> Copy for Views<'_, T, A> {}

#[cfg(feature = "views")]
impl<'s, T: ByteViewType, A: Allocator> Views<'s, T, A> {
    /// The slots of `a`.
    pub(super) fn of(a: &'s GenericByteViewArray<'s, T, A>) -> Self {
        Views {
            array: a,
            views: a.views(),
        }
    }
}

#[cfg(feature = "views")]
impl<T: ByteViewType, A: Allocator> ByteValues for Views<'_, T, A> {
    #[inline(always)]
    fn at(&self, i: usize) -> &[u8] {
        match self.views.get(i) {
            Some(v) => match v.inline_data() {
                Some(d) => d,
                None => self.array.value_bytes(i).unwrap_or(&[]),
            },
            None => &[],
        }
    }

    #[inline(always)]
    fn len_of(&self, i: usize) -> usize {
        self.views.get(i).map_or(0, |v| v.length() as usize)
    }

    #[inline(always)]
    fn head(&self, i: usize) -> Option<[u8; 16]> {
        self.views.get(i).map(|v| v.to_bytes())
    }
}

/// The slots of a fixed-size binary array.
#[derive(Clone, Copy)]
pub(super) struct Fixed<'s> {
    data: &'s [u8],
    width: usize,
}

impl<'s> Fixed<'s> {
    /// The slots of `a`.
    pub(super) fn of<A: Allocator>(a: &'s FixedSizeBinaryArray<'_, A>) -> Self {
        Fixed {
            data: a.values().as_slice(),
            width: a.value_length(),
        }
    }
}

impl ByteValues for Fixed<'_> {
    #[inline(always)]
    fn at(&self, i: usize) -> &[u8] {
        let s = i * self.width;
        self.data.get(s..s + self.width).unwrap_or(&[])
    }

    #[inline(always)]
    fn len_of(&self, _i: usize) -> usize {
        self.width
    }
}

/// The result bits of `kind` between two sides of byte values (XOR `neg`).
///
/// # Errors
/// [`crate::Error::AllocationFailed`].
pub(super) fn compare<B: ByteValues, A: Allocator>(
    kind: Kind,
    l: Side<B>,
    r: Side<B>,
    neg: u64,
    alloc: A,
) -> Result<BooleanBuffer<'static, A>> {
    let neg = neg != 0;
    let (lv, rv, len) = (&l.values, &r.values, l.len);
    // One loop per operator and shape (the loop over an array against a
    // scalar reads the scalar at slot 0), each calling its comparison
    // directly so that it inlines.
    match (kind, l.scalar, r.scalar) {
        (Kind::Eq, false, true) => pack_bits(len, alloc, |i| eq(lv, i, rv, 0) ^ neg),
        (Kind::Eq, true, false) => pack_bits(len, alloc, |i| eq(lv, 0, rv, i) ^ neg),
        (Kind::Eq, _, _) => pack_bits(len, alloc, |i| eq(lv, i, rv, i) ^ neg),
        (Kind::Lt, false, true) => pack_bits(len, alloc, |i| lt(lv, i, rv, 0) ^ neg),
        (Kind::Lt, true, false) => pack_bits(len, alloc, |i| lt(lv, 0, rv, i) ^ neg),
        (Kind::Lt, _, _) => pack_bits(len, alloc, |i| lt(lv, i, rv, i) ^ neg),
    }
}

/// Slot `a` of `l` equals slot `b` of `r`: by view heads (length and
/// prefix) or lengths first, then by bytes.
#[inline(always)]
fn eq<B: ByteValues>(l: &B, a: usize, r: &B, b: usize) -> bool {
    match (l.head(a), r.head(b)) {
        (Some(x), Some(y)) if head8(x) != head8(y) => false,
        (Some(_), Some(_)) => l.at(a) == r.at(b),
        _ => l.len_of(a) == r.len_of(b) && l.at(a) == r.at(b),
    }
}

/// Slot `a` of `l` orders before slot `b` of `r`: by view prefixes where
/// they decide, else by bytes.
#[inline(always)]
fn lt<B: ByteValues>(l: &B, a: usize, r: &B, b: usize) -> bool {
    match (l.head(a), r.head(b)) {
        (Some(x), Some(y)) if prefixes_differ(x, y) => prefix(x) < prefix(y),
        _ => l.at(a) < r.at(b),
    }
}

/// The first 8 bytes of a view (its length and prefix): equal for equal
/// values.
#[inline(always)]
fn head8(v: [u8; 16]) -> u64 {
    u64::from_ne_bytes([v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]])
}

/// A view's 4-byte prefix, as a number that orders as the bytes.
#[inline(always)]
fn prefix(v: [u8; 16]) -> u32 {
    u32::from_be_bytes([v[4], v[5], v[6], v[7]])
}

/// `true` when two views have full (≥ 4-byte) prefixes that differ, which
/// then order the values.
#[inline(always)]
fn prefixes_differ(x: [u8; 16], y: [u8; 16]) -> bool {
    let len = |v: [u8; 16]| i32::from_ne_bytes([v[0], v[1], v[2], v[3]]);
    len(x) >= 4 && len(y) >= 4 && prefix(x) != prefix(y)
}
