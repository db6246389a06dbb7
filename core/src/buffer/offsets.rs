//! Offsets of the variable-size layouts (binary/utf8, lists, maps).

use core::fmt;

use allocator_api2::alloc::Allocator;

use super::ScalarBuffer;
use crate::error::{Error, Result};
use crate::native::NativeType;

mod sealed {
    pub trait Sealed {}
    impl Sealed for i32 {}
    impl Sealed for i64 {}
}

/// The integer type of an offsets buffer: `i32` for Binary/Utf8/List/ListView/Map,
/// `i64` for their `Large` variants.
pub trait OffsetSize: NativeType + Ord + sealed::Sealed {
    /// `true` for the 64-bit (`Large*`) variants.
    const IS_LARGE: bool;
    /// Zero.
    const ZERO: Self;
    /// The offset as a `usize`, or `None` when negative or too large.
    fn to_usize(self) -> Option<usize>;
    /// `n` as an offset, or `None` when it does not fit.
    fn from_usize(n: usize) -> Option<Self>;
}

macro_rules! offset_size {
    ($t:ty, $large:expr) => {
        impl OffsetSize for $t {
            const IS_LARGE: bool = $large;
            const ZERO: Self = 0;
            #[inline]
            fn to_usize(self) -> Option<usize> {
                usize::try_from(self).ok()
            }
            #[inline]
            fn from_usize(n: usize) -> Option<Self> {
                <$t>::try_from(n).ok()
            }
        }
    };
}

offset_size!(i32, false);
offset_size!(i64, true);

/// Checks an offsets buffer of an array of `len` slots over `values_len`
/// values (bytes or child elements), as "Variable-size Binary Layout" and
/// "Variable-size List Layout" require.
///
/// Cheap checks (always): `offsets.len() >= len + 1`. With `full`: every offset
/// in `0..=values_len` and the sequence non-decreasing (O(len)).
///
/// # Errors
/// [`Error::OffsetsLength`], [`Error::OffsetOutOfBounds`], [`Error::OffsetsNotMonotonic`]
/// (with the first slot whose end offset is below its start as its row).
pub fn check_offsets<O: OffsetSize>(
    offsets: &[O],
    len: usize,
    values_len: usize,
    full: bool,
) -> Result<()> {
    let need = len.checked_add(1).ok_or(Error::OffsetsLength)?;
    let Some(offsets) = offsets.get(..need) else {
        return Err(Error::OffsetsLength);
    };
    // Even the cheap level checks the two ends: they are O(1) and bound every
    // access a reader makes through the first and last slot.
    let first = offsets[0].to_usize().ok_or(Error::OffsetOutOfBounds)?;
    let last = offsets[len].to_usize().ok_or(Error::OffsetOutOfBounds)?;
    if first > values_len || last > values_len {
        return Err(Error::OffsetOutOfBounds);
    }
    if first > last {
        return Err(Error::OffsetsNotMonotonic);
    }
    if full {
        // Branch-free within blocks (so that it vectorises), one exit test
        // per block: each block starts with the previous block's last offset.
        let mut from = 0;
        while from < len {
            let to = (from + 1024).min(len);
            let block = offsets.get(from..=to).ok_or(Error::OffsetsLength)?;
            let ok = block
                .iter()
                .zip(block.iter().skip(1))
                .fold(true, |ok, (a, b)| ok & (a <= b));
            if !ok {
                let at = block.windows(2).position(|w| w[1] < w[0]).unwrap_or(0);
                return Err(Error::OffsetsNotMonotonic.with_row(from + at));
            }
            from = to;
        }
    }
    Ok(())
}

/// A non-empty, non-negative, monotonically non-decreasing offsets buffer.
///
/// An array of `n` slots has `n + 1` offsets; slot `i` spans
/// `offsets[i]..offsets[i + 1]` of its values (bytes or child elements).
///
/// ```
/// use alkaid::buffer::{OffsetBuffer, ScalarBuffer};
///
/// let ok: [i32; 4] = [0, 3, 3, 7];
/// let offsets: OffsetBuffer<'_, i32> = OffsetBuffer::try_new(ScalarBuffer::from_slice_ref(&ok))?;
/// assert_eq!(offsets.len_slots(), 3);
/// assert_eq!(offsets.range(2), Some(3..7));
/// let bad: [i32; 3] = [0, 5, 4];
/// assert!(OffsetBuffer::<i32>::try_new(ScalarBuffer::from_slice_ref(&bad)).is_err()); // Error::OffsetsNotMonotonic
/// # Ok::<(), alkaid::Error>(())
/// ```
#[derive_where::derive_where(Clone, PartialEq)]
pub struct OffsetBuffer<
    'a,
    O: OffsetSize,
    #[cfg(feature = "alloc")] A: Allocator = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator,
>(ScalarBuffer<'a, O, A>);

impl<'a, O: OffsetSize, A: Allocator> OffsetBuffer<'a, O, A> {
    /// Checks and wraps offsets (O(n)).
    ///
    /// # Errors
    /// [`Error::OffsetsLength`] when empty, [`Error::OffsetOutOfBounds`] when
    /// the first is negative, [`Error::OffsetsNotMonotonic`].
    pub fn try_new(offsets: ScalarBuffer<'a, O, A>) -> Result<Self> {
        let Some(&last) = offsets.last() else {
            return Err(Error::OffsetsLength);
        };
        let n = offsets.len() - 1;
        check_offsets(
            &offsets,
            n,
            last.to_usize().ok_or(Error::OffsetOutOfBounds)?,
            true,
        )?;
        Ok(OffsetBuffer(offsets))
    }

    /// Wraps offsets without checking them.
    ///
    /// # Safety
    /// `offsets` must be non-empty, non-negative and non-decreasing.
    pub unsafe fn new_unchecked(offsets: ScalarBuffer<'a, O, A>) -> Self {
        OffsetBuffer(offsets)
    }

    /// The single offset `[0]`: offsets of an empty array (no allocation).
    pub fn new_empty() -> Self {
        const ZERO32: [i32; 1] = [0];
        const ZERO64: [i64; 1] = [0];
        let bytes: &'static [u8] = if O::IS_LARGE {
            bytemuck::cast_slice(&ZERO64)
        } else {
            bytemuck::cast_slice(&ZERO32)
        };
        match ScalarBuffer::try_from_buffer(super::Buffer::from_slice_ref(bytes)) {
            Ok(s) => OffsetBuffer(s),
            // Both constants are aligned and sized for their type.
            Err(_) => OffsetBuffer(ScalarBuffer::empty()),
        }
    }

    /// Number of slots (offsets minus one).
    #[inline]
    pub fn len_slots(&self) -> usize {
        self.0.len().saturating_sub(1)
    }

    /// The offsets.
    #[inline]
    pub fn as_slice(&self) -> &[O] {
        self.0.as_slice()
    }

    /// The range of values of slot `i`, or `None` when out of range.
    #[inline]
    pub fn range(&self, i: usize) -> Option<core::ops::Range<usize>> {
        let s = self.0.as_slice();
        let start = s.get(i)?.to_usize()?;
        let end = s.get(i.checked_add(1)?)?.to_usize()?;
        (start <= end).then_some(start..end)
    }

    /// The first offset (where the values of this view start).
    #[inline]
    pub fn first(&self) -> usize {
        self.0.first().and_then(|o| o.to_usize()).unwrap_or(0)
    }

    /// The last offset (where the values of this view end).
    #[inline]
    pub fn last(&self) -> usize {
        self.0.last().and_then(|o| o.to_usize()).unwrap_or(0)
    }

    /// Offsets of `len` slots from slot `offset` (`len + 1` offsets), sharing memory.
    /// The values are not rebased: the first offset may be non-zero.
    ///
    /// # Errors
    /// [`Error::OutOfBounds`] when the range exceeds this buffer.
    pub fn slice(&self, offset: usize, len: usize) -> Result<Self> {
        Ok(OffsetBuffer(self.0.slice(
            offset,
            len.checked_add(1).ok_or(Error::OutOfBounds)?,
        )?))
    }

    /// The underlying scalar buffer.
    pub fn inner(&self) -> &ScalarBuffer<'a, O, A> {
        &self.0
    }

    /// The underlying scalar buffer, by value.
    pub fn into_inner(self) -> ScalarBuffer<'a, O, A> {
        self.0
    }
}

impl<O: OffsetSize, A: Allocator> core::ops::Deref for OffsetBuffer<'_, O, A> {
    type Target = [O];
    fn deref(&self) -> &[O] {
        self.as_slice()
    }
}

impl<O: OffsetSize, A: Allocator> fmt::Debug for OffsetBuffer<'_, O, A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("OffsetBuffer").field(&self.0).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;
    use crate::Global;

    #[test]
    fn check_offsets_rules() {
        assert_eq!(check_offsets::<i32>(&[0, 3, 3, 7], 3, 7, true), Ok(()));
        assert_eq!(
            check_offsets::<i32>(&[0, 3], 3, 7, true),
            Err(Error::OffsetsLength)
        );
        assert_eq!(
            check_offsets::<i32>(&[0, 3, 2, 7], 3, 7, true),
            Err(Error::OffsetsNotMonotonic)
        );
        assert_eq!(check_offsets::<i32>(&[0, 3, 2, 7], 3, 7, false), Ok(()));
        assert_eq!(
            check_offsets::<i32>(&[-1, 3, 4, 7], 3, 7, false),
            Err(Error::OffsetOutOfBounds)
        );
        assert_eq!(
            check_offsets::<i64>(&[0, 3, 4, 8], 3, 7, false),
            Err(Error::OffsetOutOfBounds)
        );
    }

    /// The monotonic check runs in blocks of 1024 offsets: a decrease is
    /// found inside a block, across two blocks and in the last, partial one.
    #[test]
    fn check_offsets_blocks() {
        let n = 3000usize;
        let ok: std::vec::Vec<i32> = (0..=n as i32).collect();
        assert_eq!(check_offsets(&ok, n, n, true), Ok(()));
        for at in [1usize, 500, 1023, 1024, 1025, 2048, 2999, 3000] {
            let mut bad = ok.clone();
            bad[at] = bad[at - 1] - 1;
            let r = check_offsets(&bad, n, n, true);
            assert!(
                matches!(
                    r.map_err(|e| e.kind()),
                    Err(ErrorKind::OffsetsNotMonotonic) | Err(ErrorKind::OffsetOutOfBounds)
                ),
                "decrease at {at}: {r:?}"
            );
            if at < n {
                assert_eq!(r, Err(Error::OffsetsNotMonotonic), "decrease at {at}");
            }
        }
        // Offsets past `len + 1` are not looked at.
        let mut longer = ok.clone();
        longer.push(0);
        assert_eq!(check_offsets(&longer, n, n, true), Ok(()));
    }

    #[test]
    fn offset_buffer_ranges() {
        let data = [0i32, 2, 2, 5];
        let o = OffsetBuffer::<i32, Global>::try_new(ScalarBuffer::from_slice_ref(&data)).unwrap();
        assert_eq!(o.len_slots(), 3);
        assert_eq!(o.range(0), Some(0..2));
        assert_eq!(o.range(1), Some(2..2));
        assert_eq!(o.range(3), None);
        let s = o.slice(1, 2).unwrap();
        assert_eq!(s.as_slice(), &[2, 2, 5]);
        assert_eq!(OffsetBuffer::<i64, Global>::new_empty().as_slice(), &[0]);
    }
}
