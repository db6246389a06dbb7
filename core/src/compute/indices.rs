//! The indices of [`super::take()`]: the public [`Indices`] argument and the
//! internal [`Idx`] the kernels read (values of one integer type and an
//! optional validity bitmap, independent of any allocator).

use allocator_api2::alloc::Allocator;

use crate::array::{Array, ArrayRef, PrimitiveArray};
use crate::buffer::{MutableBuffer, NullBuffer};
use crate::error::{Error, Result};

/// The indices [`super::take()`] gathers by: slot `i` of the result is slot
/// `indices[i]` of the array, and null where the index is null.
///
/// Build one with `From` (`&UInt32Array`, `&UInt64Array`, `&[usize]`,
/// `&[u32]`) or `TryFrom<&ArrayRef>` (UInt32 or UInt64 arrays).
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum Indices<'b, 'i, A: Allocator> {
    /// `u32` indices, nulls allowed (the Arrow UInt32 type).
    UInt32(&'b PrimitiveArray<'i, u32, A>),
    /// `u64` indices, nulls allowed (the Arrow UInt64 type).
    UInt64(&'b PrimitiveArray<'i, u64, A>),
    /// `u32` indices without nulls, from a plain slice.
    U32Slice(&'b [u32]),
    /// `usize` indices without nulls, from a plain slice.
    Usize(&'b [usize]),
}

impl<'b, 'i, A: Allocator> From<&'b PrimitiveArray<'i, u32, A>> for Indices<'b, 'i, A> {
    fn from(a: &'b PrimitiveArray<'i, u32, A>) -> Self {
        Indices::UInt32(a)
    }
}

impl<'b, 'i, A: Allocator> From<&'b PrimitiveArray<'i, u64, A>> for Indices<'b, 'i, A> {
    fn from(a: &'b PrimitiveArray<'i, u64, A>) -> Self {
        Indices::UInt64(a)
    }
}

impl<'b, A: Allocator> From<&'b [usize]> for Indices<'b, 'static, A> {
    fn from(a: &'b [usize]) -> Self {
        Indices::Usize(a)
    }
}

impl<'b, A: Allocator> From<&'b [u32]> for Indices<'b, 'static, A> {
    fn from(a: &'b [u32]) -> Self {
        Indices::U32Slice(a)
    }
}

impl<'b, 'i, A: Allocator> TryFrom<&'b ArrayRef<'i, A>> for Indices<'b, 'i, A> {
    type Error = Error;

    /// # Errors
    /// [`Error::TypeMismatch`] unless `a` is a UInt32 or UInt64 array.
    fn try_from(a: &'b ArrayRef<'i, A>) -> Result<Self> {
        match a {
            ArrayRef::UInt32(p) => Ok(Indices::UInt32(p)),
            ArrayRef::UInt64(p) => Ok(Indices::UInt64(p)),
            _ => Err(Error::TypeMismatch),
        }
    }
}

impl<A: Allocator> Indices<'_, '_, A> {
    /// Number of indices (the length of the result).
    pub fn len(&self) -> usize {
        match self {
            Indices::UInt32(a) => a.len(),
            Indices::UInt64(a) => a.len(),
            Indices::U32Slice(a) => a.len(),
            Indices::Usize(a) => a.len(),
        }
    }

    /// `true` when there are no indices.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// An integer type indices are read as.
pub(super) trait TakeIndex: Copy + Ord + Send + Sync {
    /// The index as `usize` (`usize::MAX` when it does not fit: out of
    /// bounds of any array).
    fn index(self) -> usize;

    /// The largest of `values` as an index (0 when empty), in one pass
    /// without an exit per element (the compiler vectorises it).
    fn max_index(values: &[Self]) -> usize {
        values.iter().copied().max().map_or(0, Self::index)
    }

    /// `values` as `u32`s when they are (for kernels with a `u32` path:
    /// take's AVX2 validity gather).
    #[cfg(target_arch = "x86_64")]
    fn as_u32s(_values: &[Self]) -> Option<&[u32]> {
        None
    }
}

impl TakeIndex for u32 {
    #[inline(always)]
    fn index(self) -> usize {
        usize::try_from(self).unwrap_or(usize::MAX)
    }

    #[cfg(target_arch = "x86_64")]
    fn as_u32s(values: &[Self]) -> Option<&[u32]> {
        Some(values)
    }
}

impl TakeIndex for u64 {
    #[inline(always)]
    fn index(self) -> usize {
        usize::try_from(self).unwrap_or(usize::MAX)
    }
}

impl TakeIndex for usize {
    #[inline(always)]
    fn index(self) -> usize {
        self
    }
}

/// A bitmap: `bytes` read from bit `offset` (LSB order).
#[derive(Clone, Copy, Debug)]
pub(super) struct Bits<'b> {
    pub(super) bytes: &'b [u8],
    pub(super) offset: usize,
}

impl<'b> Bits<'b> {
    /// The bits of a validity bitmap.
    pub(super) fn of<A: Allocator>(n: &'b NullBuffer<'_, A>) -> Self {
        Bits {
            bytes: n.inner().inner().as_slice(),
            offset: n.inner().offset(),
        }
    }

    /// Bit `i`; `false` past the end.
    #[inline(always)]
    pub(super) fn get(&self, i: usize) -> bool {
        let j = self.offset.wrapping_add(i);
        self.bytes
            .get(j / 8)
            .is_some_and(|b| b & (1 << (j % 8)) != 0)
    }
}

/// The indices the kernels read: `values`, and where `valid` is given, a
/// null index wherever its bit is 0 (the value is then not read).
#[derive(Clone, Copy, Debug)]
pub(super) struct Idx<'b, I> {
    pub(super) values: &'b [I],
    pub(super) valid: Option<Bits<'b>>,
}

impl<'b, I: TakeIndex> Idx<'b, I> {
    /// Indices without nulls.
    pub(super) fn all_valid(values: &'b [I]) -> Self {
        Idx {
            values,
            valid: None,
        }
    }

    /// Number of indices.
    #[inline(always)]
    pub(super) fn len(&self) -> usize {
        self.values.len()
    }

    /// `true` when some index is null.
    pub(super) fn has_nulls(&self) -> bool {
        self.valid.is_some()
    }

    /// Index `k`, or `None` when it is null (or `k` is past the end).
    #[inline(always)]
    pub(super) fn get(&self, k: usize) -> Option<usize> {
        if let Some(v) = &self.valid {
            if !v.get(k) {
                return None;
            }
        }
        self.values.get(k).map(|i| i.index())
    }
}

/// Indices into `n` slots read from `idx` but first checked: the error for
/// the first valid index `>= n` (its position as the row).
pub(super) fn check_bounds<I: TakeIndex>(idx: &Idx<'_, I>, n: usize) -> Result<()> {
    match idx.valid {
        // The maximum first (vectorised); the position only on failure.
        None if I::max_index(idx.values) < n || idx.values.is_empty() => Ok(()),
        None => match idx.values.iter().position(|i| i.index() >= n) {
            Some(k) => Err(Error::TakeIndexOutOfBounds.with_row(k)),
            None => Ok(()),
        },
        Some(v) => {
            for (k, i) in idx.values.iter().enumerate() {
                if i.index() >= n && v.get(k) {
                    return Err(Error::TakeIndexOutOfBounds.with_row(k));
                }
            }
            Ok(())
        }
    }
}

/// Child indices with null entries marked by `usize::MAX`, as made by the
/// nested kernels: the validity bits for them (`None` when none is null).
///
/// # Errors
/// [`Error::AllocationFailed`].
#[cfg_attr(
    not(any(feature = "nested", feature = "union", feature = "run-end")),
    allow(dead_code)
)]
pub(super) fn sentinel_bits<A: Allocator>(
    values: &[usize],
    alloc: A,
) -> Result<Option<MutableBuffer<A>>> {
    if !values.contains(&usize::MAX) {
        return Ok(None);
    }
    let mut out = MutableBuffer::new_in(alloc);
    let mut chunks = values.chunks(8);
    out.try_extend_from_fn(values.len().div_ceil(8), |_| {
        let mut byte = 0u8;
        for (b, v) in chunks.next().unwrap_or(&[]).iter().enumerate() {
            byte |= u8::from(*v != usize::MAX) << b;
        }
        byte
    })?;
    Ok(Some(out))
}
