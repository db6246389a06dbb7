//! [`super::take()`] of the variable-size binary layouts (Binary, Utf8 and
//! their `Large` forms, "Variable-size Binary Layout"): two passes, as the
//! size of the values is known only after the first.
//!
//! 1. [`new_offsets`]: the new offsets, reading the input's offsets at the
//!    random slots the indices name. Nothing else is stored and no error is
//!    built per element, so that the loop stays short and many of its cache
//!    misses are in flight at once.
//! 2. [`copy_values`]: each value's bytes, its start read from the input's
//!    offsets again (lines the first pass brought into the cache) and its
//!    length from the new offsets, short values in one fixed-size copy.
//!
//! [`gather_bytes`] is the same two passes for `filter` at low selectivity
//! (by the kept positions instead of indices).

use allocator_api2::alloc::Allocator;

use super::gather::range_of;
use super::nulls::take_nulls;
use crate::arch::prefetch::prefetch;
use crate::array::{Array, ArrayRef, ByteArrayType, GenericByteArray};
use crate::buffer::{MutableBuffer, OffsetSize, ScalarBuffer, TryVec};
use crate::compute::buffers::byte_size;
use crate::compute::indices::{check_bounds, Idx, TakeIndex};
use crate::error::{Error, Result};

/// Bytes copied per value in one fixed-size move by [`copy_values`] for
/// `take` when the value is that short and the source has that many bytes
/// from its start: the copy may carry bytes past the value, which the next
/// value overwrites (the output reserves this much room past its last
/// value). 48 measured better than 32 and 64 on 4–40-byte values.
const SHORT_COPY: usize = 48;

/// Values ahead of the one being copied whose bytes a take asks the
/// processor for ([`prefetch`]). 8 measured 1.1-1.4x faster than none on
/// 4-40-byte values.
const PREFETCH_AHEAD: usize = 8;

/// Indices ahead of the one being read whose offsets the first pass asks
/// the processor for ([`prefetch`]): 16 measured 1% takes of 4–40-byte
/// values about 15 % faster than none.
pub(in crate::compute) const OFFSETS_AHEAD: usize = 16;

/// Gathers the values of `b` at `idx` (a null index: an empty value, null).
pub(super) fn take_bytes<'a, T: ByteArrayType, I: TakeIndex, A: Allocator + Clone>(
    b: &GenericByteArray<'a, T, A>,
    idx: &Idx<'_, I>,
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    let offs = b.value_offsets();
    let data = b.values().as_slice();
    check_bounds(idx, offs.len().saturating_sub(1))?;
    let (offsets, total) = new_offsets(offs, idx, alloc.clone())?;
    let new_offs = offsets.typed::<T::Offset>()?;
    // A null index has length 0: any start in `data` does.
    let start = |j: Option<usize>| {
        j.and_then(|j| offs.get(j))
            .and_then(|s| s.to_usize())
            .unwrap_or(0)
    };
    // Each start comes with a prefetch of the bytes `PREFETCH_AHEAD` values
    // on: the copies read `data` at random, and a copy's loop is too long
    // for the processor to run far enough ahead by itself.
    let ahead = |j: Option<usize>| prefetch(data.as_ptr().wrapping_add(start(j)));
    let values = match idx.valid {
        None => {
            let starts = idx.values.iter().enumerate().map(|(k, i)| {
                ahead(idx.values.get(k + PREFETCH_AHEAD).map(|a| a.index()));
                start(Some(i.index()))
            });
            copy_values::<SHORT_COPY, _, _>(data, starts, new_offs, total, alloc.clone())?
        }
        Some(_) => {
            let starts = (0..idx.len()).map(|k| {
                ahead(idx.get(k + PREFETCH_AHEAD));
                start(idx.get(k))
            });
            copy_values::<SHORT_COPY, _, _>(data, starts, new_offs, total, alloc.clone())?
        }
    };
    let nulls = take_nulls(b.nulls(), idx, alloc)?;
    let offsets = ScalarBuffer::try_from_buffer(offsets.into_buffer())?;
    // SAFETY: the offsets start at 0 and grow by each copied value's length
    // up to the values' length (`copy_values` checks the total); each value
    // is a whole value of a valid input (UTF-8 for strings, a type invariant
    // of safely built arrays).
    let a =
        unsafe { GenericByteArray::<T, A>::new_unchecked(offsets, values.into_buffer(), nulls) };
    Ok(a.into_array_ref())
}

/// The length of slot `j` of offsets `offs`, or `None` when the offsets
/// there are not two non-negative, non-decreasing entries.
#[inline(always)]
fn value_len<O: OffsetSize>(offs: &[O], j: usize) -> Option<usize> {
    let s = offs.get(j)?.to_usize()?;
    let e = offs.get(j.wrapping_add(1))?.to_usize()?;
    e.checked_sub(s)
}

/// The first pass: the new offsets (from 0, `idx.len() + 1` of them) of
/// the values `offs` describes at the slots `idx` names, and their total
/// length in bytes. The indices must be in bounds ([`check_bounds`]).
///
/// # Errors
/// [`Error::OffsetOutOfBounds`] when the offsets at a selected slot are
/// negative, decrease or are missing; [`Error::CapacityOverflow`] when the
/// total does not fit `O`; [`Error::AllocationFailed`].
fn new_offsets<O: OffsetSize, I: TakeIndex, A: Allocator>(
    offs: &[O],
    idx: &Idx<'_, I>,
    alloc: A,
) -> Result<(MutableBuffer<A>, usize)> {
    let n = idx.len();
    let mut out = MutableBuffer::new_in(alloc);
    out.try_reserve_exact(byte_size::<O>(
        n.checked_add(1).ok_or(Error::CapacityOverflow)?,
    )?)?;
    out.try_push(O::ZERO)?;
    // `total` saturates, and a bad slot only sets a flag: no branch out of
    // the loop, checked once after it.
    let mut total = 0usize;
    let mut bad = false;
    let mut step = |j: Option<usize>| {
        let len = match j {
            Some(j) => value_len(offs, j).unwrap_or_else(|| {
                bad = true;
                0
            }),
            None => 0,
        };
        total = total.saturating_add(len);
        O::from_usize(total).unwrap_or(O::ZERO)
    };
    match idx.valid {
        None => out.try_extend_mapped(idx.values, |k, i| {
            if let Some(a) = idx.values.get(k + OFFSETS_AHEAD) {
                prefetch(offs.as_ptr().wrapping_add(a.index()));
            }
            step(Some(i.index()))
        })?,
        Some(_) => out.try_extend_from_fn(n, |k| {
            if let Some(a) = idx.get(k + OFFSETS_AHEAD) {
                prefetch(offs.as_ptr().wrapping_add(a));
            }
            step(idx.get(k))
        })?,
    }
    if bad {
        return Err(Error::OffsetOutOfBounds);
    }
    O::from_usize(total).ok_or(Error::CapacityOverflow)?;
    Ok((out, total))
}

/// The second pass of a gather of byte values: value `k` is the
/// `new_offs[k + 1] - new_offs[k]` bytes of `data` from `starts[k]`, all
/// `total` of them into one allocation that is not zero-filled first.
/// Values of up to `SHORT` bytes move in one fixed-size copy when `data`
/// has that many bytes from their start (the output reserves `SHORT` bytes
/// of room past its last value). Used by `take` (starts read again from the
/// input's offsets) and by `filter`'s gather (starts listed by its first
/// pass).
///
/// # Errors
/// [`Error::OffsetOutOfBounds`] when a value is not within `data` or the
/// lengths do not add up to `total`; [`Error::OffsetsLength`];
/// [`Error::CapacityOverflow`]; [`Error::AllocationFailed`].
pub(super) fn copy_values<const SHORT: usize, O: OffsetSize, A: Allocator>(
    data: &[u8],
    starts: impl Iterator<Item = usize>,
    new_offs: &[O],
    total: usize,
    alloc: A,
) -> Result<MutableBuffer<A>> {
    let mut values = MutableBuffer::new_in(alloc);
    let room = total.checked_add(SHORT).ok_or(Error::CapacityOverflow)?;
    values.try_extend_appended(room, |out| {
        for (s, w) in starts.zip(new_offs.windows(2)) {
            let (lo, hi) = match w {
                [lo, hi] => (lo.to_usize().unwrap_or(0), hi.to_usize().unwrap_or(0)),
                _ => return Err(Error::OffsetsLength),
            };
            let len = hi.wrapping_sub(lo);
            let short = data
                .get(s..s.wrapping_add(SHORT))
                .and_then(|c| <&[u8; SHORT]>::try_from(c).ok());
            match short {
                Some(c) if len <= SHORT => out.put_prefix(c, len)?,
                _ => {
                    let e = s.checked_add(len).ok_or(Error::OffsetOutOfBounds)?;
                    out.put_slice(data.get(s..e).ok_or(Error::OffsetOutOfBounds)?)?;
                }
            }
        }
        Ok(())
    })?;
    if values.len() != total {
        return Err(Error::OffsetOutOfBounds);
    }
    Ok(values)
}

/// A gather of `n` byte values (the values at input slots `slot(0)`,
/// `slot(1)`, … of offsets `offs` over `data`; `None`: an empty value, for
/// a null index): the new offsets (from 0, as `O`) and the values' bytes,
/// in two passes ([`byte_offsets`], then [`copy_values`]). Used by
/// `filter` at low selectivity.
///
/// # Errors
/// As [`byte_offsets`] and [`copy_values`].
pub(in crate::compute) fn gather_bytes<O: OffsetSize, A: Allocator + Clone>(
    offs: &[O],
    data: &[u8],
    n: usize,
    slot: impl FnMut(usize) -> Option<usize>,
    alloc: A,
) -> Result<(MutableBuffer<A>, MutableBuffer<A>)> {
    let (offsets, starts, total) = byte_offsets(offs, n, slot, alloc.clone())?;
    let new_offs = offsets.typed::<O>()?;
    let values = copy_values::<GATHER_SHORT_COPY, _, _>(
        data,
        starts.iter().copied(),
        new_offs,
        total,
        alloc,
    )?;
    Ok((offsets, values))
}

/// Bytes moved per short value by [`copy_values`] in a gather: 48 (take's
/// width) was within the noise for filter's.
const GATHER_SHORT_COPY: usize = 32;

/// The first pass of a gather of `n` byte values: the new offsets (from
/// 0) of the values at input slots `slot(0)`, `slot(1)`, … (`None`: an
/// empty value, for a null index) of offsets `offs`, each value's start in
/// the input's data, and the total bytes. Two passes, as the output's size
/// is known only after this one; [`copy_values`] then reads the starts and
/// the new offsets in order instead of the input's offsets at random a
/// second time.
///
/// # Errors
/// [`Error::TakeIndexOutOfBounds`] (with `k` as the row) when `slot(k)` is
/// not a slot of `offs` (the first such `k`); [`Error::OffsetOutOfBounds`]
/// when its offsets decrease; [`Error::CapacityOverflow`] when the total does not fit `O`;
/// [`Error::AllocationFailed`].
fn byte_offsets<O: OffsetSize, A: Allocator + Clone>(
    offs: &[O],
    n: usize,
    mut slot: impl FnMut(usize) -> Option<usize>,
    alloc: A,
) -> Result<(MutableBuffer<A>, TryVec<usize, A>, usize)> {
    let mut offsets = MutableBuffer::new_in(alloc.clone());
    offsets.try_reserve_exact(byte_size::<O>(
        n.checked_add(1).ok_or(Error::CapacityOverflow)?,
    )?)?;
    offsets.try_push(O::ZERO)?;
    let mut starts = TryVec::<usize, A>::new_in(alloc);
    starts.try_reserve_exact(n)?;
    let mut total = 0usize;
    let mut bad = None;
    let slots = offs.len().saturating_sub(1);
    offsets.try_extend_from_fn(n, |k| {
        let mut start = 0;
        if let Some(j) = slot(k) {
            if j >= slots {
                bad.get_or_insert(Error::TakeIndexOutOfBounds.with_row(k));
            }
            match range_of(offs, j) {
                Ok((s, e)) => {
                    start = s;
                    total = total.saturating_add(e - s);
                }
                Err(e) => {
                    bad.get_or_insert(e);
                }
            }
        }
        if let Err(e) = starts.try_push(start) {
            bad.get_or_insert(e);
        }
        O::from_usize(total).unwrap_or(O::ZERO)
    })?;
    if let Some(e) = bad {
        return Err(e);
    }
    O::from_usize(total).ok_or(Error::CapacityOverflow)?;
    Ok((offsets, starts, total))
}

/// Small enough for Miri (`cargo +nightly miri test -p alkaid --lib
/// compute::take_bytes::tests::miri_`): both loops of both passes, values
/// short and long and at the very end of the data (no room for the
/// fixed-size copy), null indices, and malformed offsets of an unchecked
/// array (an error, no read out of bounds).
#[cfg(test)]
mod tests {
    use std::string::String;
    use std::vec::Vec;

    use crate::Global;

    use crate::array::{Array, BinaryArray, StringArray, UInt32Array};
    use crate::buffer::{Buffer, ScalarBuffer};
    use crate::compute::take_in;
    use crate::error::Error;
    use crate::test_support::check_every_failure;

    /// Value `i`: `i * 3 % 41` bytes (0 to 40), null every 7th slot.
    fn values() -> Vec<Option<String>> {
        (0..24usize)
            .map(|i| {
                let len = i * 3 % 41;
                (i % 7 != 3).then(|| {
                    (0..len)
                        .map(|k| char::from(b'a' + ((i + k) % 26) as u8))
                        .collect()
                })
            })
            .collect()
    }

    #[test]
    fn miri_take_strings_short_long_and_at_the_end() {
        let owned = values();
        let refs: Vec<Option<&str>> = owned.iter().map(|s| s.as_deref()).collect();
        let a = StringArray::from(refs.clone()).into_array_ref();
        let n = refs.len() as u32;
        // Every slot backwards (the last value ends the data), and repeats.
        let plain: Vec<u32> = (0..n).rev().chain([n - 1, 0, 5, n - 1]).collect();
        let t = take_in(&a, &plain[..], Global).unwrap();
        let got: Vec<Option<&str>> = t.as_string().unwrap().iter().collect();
        let want: Vec<Option<&str>> = plain.iter().map(|&i| refs[i as usize]).collect();
        assert_eq!(got, want);
        // Null indices.
        let with_nulls: Vec<Option<u32>> =
            (0..n).map(|i| (i % 4 != 1).then_some(n - 1 - i)).collect();
        let idx = UInt32Array::from(with_nulls.clone());
        let t = take_in(&a, &idx, Global).unwrap();
        let got: Vec<Option<&str>> = t.as_string().unwrap().iter().collect();
        let want: Vec<Option<&str>> = with_nulls
            .iter()
            .map(|i| i.and_then(|i| refs[i as usize]))
            .collect();
        assert_eq!(got, want);
        assert_eq!(t.validate(crate::array::ValidationLevel::Full), Ok(()));
        // A sliced input, and a valid index past its end.
        let s = a.slice(20, 4).unwrap();
        let t = take_in(&s, &[3u32, 0][..], Global).unwrap();
        let got: Vec<Option<&str>> = t.as_string().unwrap().iter().collect();
        assert_eq!(got, [refs[23], refs[20]]);
        let e = take_in(&s, &[1u32, 4][..], Global).unwrap_err();
        assert_eq!(e, Error::TakeIndexOutOfBounds);
        assert_eq!(e.location().row(), Some(1));
    }

    #[test]
    fn miri_take_bytes_every_allocation_failure() {
        let owned = values();
        let refs: Vec<Option<&str>> = owned.iter().map(|s| s.as_deref()).collect();
        check_every_failure(|f| {
            let idx = crate::array::PrimitiveArray::<u32, _>::try_from_options_in(
                &[Some(7u32), None, Some(23), Some(0)],
                f.clone(),
            )?;
            let a = StringArray::try_from_options_in(&refs, f.clone())?.into_array_ref();
            take_in(&a, &idx, f)
        });
    }

    /// Offsets that decrease, or that point past the data, in an array
    /// built without checks: take returns an error and reads nothing out
    /// of bounds.
    #[test]
    fn miri_take_bytes_malformed_offsets_are_errors() {
        let data = b"abcdefgh";
        for offsets in [[0i32, 5, 2, 8], [0, 2, 4, 40], [0, -3, 4, 8]] {
            // SAFETY: deliberately NOT valid (the test's point); `take` must
            // neither panic nor read out of bounds on it.
            let a = unsafe {
                BinaryArray::new_unchecked(
                    ScalarBuffer::from_slice_ref(&offsets),
                    Buffer::from_slice_ref(data),
                    None,
                )
            }
            .into_array_ref();
            let e = take_in(&a, &[0u32, 1, 2][..], Global).unwrap_err();
            assert_eq!(e, Error::OffsetOutOfBounds, "{offsets:?}");
        }
    }
}
