//! Row sizes of byte columns (Binary, LargeBinary, Utf8, LargeUtf8 from
//! their offsets, BinaryView and Utf8View from their views): the lengths
//! pass ([`add_lengths_from_offsets`], [`add_lengths_from_views`]). When an
//! upper bound of the rows' size fits in `usize` ([`column_bound`],
//! computed once from each column's first and last offsets or its views'
//! lengths), no length or total can overflow: the lengths are added with
//! plain additions (in 32-bit lanes for 32-bit offsets) and turned into
//! starts by a plain running sum ([`starts_from_lengths`]); otherwise they
//! saturate, and the caller's checked running sum reports the overflow.

use allocator_api2::alloc::Allocator;

use super::{BLOCK_SIZE, UNORDERED_NULL};
use crate::array::ArrayRef;
use crate::buffer::{NullBuffer, OffsetSize};
use crate::error::{Error, Result};

/// Adds the encoded size of slot `i` of an offsets-based array (`offsets`:
/// `lengths.len() + 1` of them; null slots per `nulls`) to `lengths[i]`,
/// straight from the offsets. With `bounded` (the caller checked with
/// [`column_bound`] that the rows fit in `usize`) the sizes are added with
/// plain (wrapping) additions, else saturating ones.
///
/// # Errors
/// [`Error::OffsetsLength`] when there are too few offsets;
/// [`Error::OffsetOutOfBounds`] for negative or decreasing offsets or a
/// value too long for the encoding.
pub(crate) fn add_lengths_from_offsets<O: OffsetSize, A: Allocator>(
    lengths: &mut [usize],
    offsets: &[O],
    nulls: Option<&NullBuffer<'_, A>>,
    unordered: bool,
    bounded: bool,
) -> Result<()> {
    let offsets = offsets
        .get(..lengths.len() + 1)
        .ok_or(Error::OffsetsLength)?;
    // Branch-free per slot (so that it vectorises): `valid` is all ones for
    // a value, zero for a null; an empty value has no blocks.
    #[inline(always)]
    fn pass<O: OffsetSize, const BOUNDED: bool>(
        lengths: &mut [usize],
        offsets: &[O],
        valid: impl Fn(usize) -> usize,
        size: impl Fn(usize, usize) -> usize,
    ) -> bool {
        // Offsets that start non-negative and never decrease are all
        // non-negative, and their differences fit in `isize`: one
        // comparison a slot checks both.
        let mut bad = offsets.first().is_some_and(|f| f.to_usize().is_none());
        for (i, (l, w)) in lengths.iter_mut().zip(offsets.windows(2)).enumerate() {
            let (a, b) = (w[0], w[1]);
            bad |= b < a;
            let len = b
                .to_usize()
                .unwrap_or(0)
                .wrapping_sub(a.to_usize().unwrap_or(0));
            // Each value's size is at most ~33/32 of its bytes, which fit in
            // memory: only the running totals can overflow (checked by the caller).
            *l = add::<BOUNDED>(*l, size(len, valid(i)));
        }
        bad
    }
    const B: usize = BLOCK_SIZE;
    // Wrapping: with bad offsets `len` is garbage (reported as an error).
    let ordered = |len: usize, v: usize| {
        ((len.wrapping_add(B - 1) / B).wrapping_mul(B + 1) & v).wrapping_add(1)
    };
    let plain = |len: usize, v: usize| (len & v).wrapping_add(4);
    let bits = nulls.map(|n| (n.inner().inner().as_slice(), n.inner().offset()));
    // With nulls, eight slots at a time, their validity bits from one load
    // (the bit taken per slot kept the loop scalar), the rest slot by slot.
    #[inline(always)]
    fn pass_bits<O: OffsetSize, const BOUNDED: bool>(
        lengths: &mut [usize],
        offsets: &[O],
        (bytes, offset): (&[u8], usize),
        size: impl Fn(usize, usize) -> usize,
    ) -> bool {
        let mut bad = offsets.first().is_some_and(|f| f.to_usize().is_none());
        let (mut ls, mut os, mut at) = (lengths, offsets, offset);
        while ls.len() >= 8 {
            let (Some((l8, l_rest)), Some(o9)) = (
                core::mem::take(&mut ls).split_first_chunk_mut::<8>(),
                os.first_chunk::<9>(),
            ) else {
                // Never (`offsets` has one more than `lengths`).
                return true;
            };
            // Bits `at..at + 8`; past the bitmap's end, null.
            let lo = u16::from(bytes.get(at / 8).copied().unwrap_or(0));
            let hi = u16::from(bytes.get(at / 8 + 1).copied().unwrap_or(0));
            let byte = usize::from((lo | hi << 8) >> (at % 8));
            for j in 0..8 {
                let (a, b) = (o9[j], o9[j + 1]);
                bad |= b < a;
                let len = b
                    .to_usize()
                    .unwrap_or(0)
                    .wrapping_sub(a.to_usize().unwrap_or(0));
                let v = 0usize.wrapping_sub((byte >> j) & 1);
                l8[j] = add::<BOUNDED>(l8[j], size(len, v));
            }
            ls = l_rest;
            os = os.get(8..).unwrap_or_default();
            at += 8;
        }
        let valid = |i: usize| {
            let j = at + i;
            let bit = bytes.get(j / 8).map_or(0, |b| (b >> (j % 8)) & 1);
            0usize.wrapping_sub(usize::from(bit))
        };
        bad | pass::<O, BOUNDED>(ls, os, valid, size)
    }
    // Bounded, ordered, 32-bit offsets: sizes in 32-bit lanes.
    if bounded && !unordered && !O::IS_LARGE {
        if let Ok(offsets) = bytemuck::try_cast_slice::<O, i32>(offsets) {
            if ordered_lengths32(lengths, offsets, bits) {
                return Err(Error::OffsetOutOfBounds);
            }
            return Ok(());
        }
    }
    let all = |_| usize::MAX;
    let overflow = match (bits, unordered, bounded) {
        (None, false, false) => pass::<O, false>(lengths, offsets, all, ordered),
        (None, false, true) => pass::<O, true>(lengths, offsets, all, ordered),
        (None, true, false) => pass::<O, false>(lengths, offsets, all, plain),
        (None, true, true) => pass::<O, true>(lengths, offsets, all, plain),
        (Some(bits), false, false) => pass_bits::<O, false>(lengths, offsets, bits, ordered),
        (Some(bits), false, true) => pass_bits::<O, true>(lengths, offsets, bits, ordered),
        (Some(bits), true, false) => pass_bits::<O, false>(lengths, offsets, bits, plain),
        (Some(bits), true, true) => pass_bits::<O, true>(lengths, offsets, bits, plain),
    };
    let too_long = unordered
        && offsets.windows(2).any(|w| {
            let (a, b) = (w[0].to_usize(), w[1].to_usize());
            matches!((a, b), (Some(a), Some(b)) if b.wrapping_sub(a) >= UNORDERED_NULL as usize)
        });
    if overflow || too_long {
        return Err(Error::OffsetOutOfBounds);
    }
    Ok(())
}

/// [`add_lengths_from_offsets`] for ordered values, bounded sizes (see
/// [`column_bound`]: plain additions) and 32-bit offsets (`offsets`:
/// `lengths.len() + 1` of them; validity bits `bits`, all valid when
/// `None`): a value is shorter than 2 GiB, so its size fits in a `u32`
/// and is computed in 32-bit lanes (twice as many a vector), then
/// widened. Returns whether the offsets are bad (negative or decreasing).
fn ordered_lengths32(lengths: &mut [usize], offsets: &[i32], bits: Option<(&[u8], usize)>) -> bool {
    /// The size of the value `a..b` (`v`: all ones when valid, else 0).
    #[inline(always)]
    fn size(a: i32, b: i32, v: u32) -> usize {
        const B: u32 = BLOCK_SIZE as u32;
        // Wrapping: with bad offsets the size is garbage (reported).
        let len = b.wrapping_sub(a) as u32;
        let blocks = (len.wrapping_add(B - 1) / B).wrapping_mul(B + 1);
        (blocks & v).wrapping_add(1) as usize
    }
    let mut bad = offsets.first().is_some_and(|&f| f < 0);
    let Some((bytes, offset)) = bits else {
        for (l, w) in lengths.iter_mut().zip(offsets.windows(2)) {
            bad |= w[1] < w[0];
            *l = l.wrapping_add(size(w[0], w[1], u32::MAX));
        }
        return bad;
    };
    // Eight slots at a time, their validity bits from one load.
    let (mut ls, mut os, mut at) = (lengths, offsets, offset);
    while ls.len() >= 8 {
        let (Some((l8, l_rest)), Some(o9)) = (
            core::mem::take(&mut ls).split_first_chunk_mut::<8>(),
            os.first_chunk::<9>(),
        ) else {
            // Never (`offsets` has one more than `lengths`).
            return true;
        };
        // Bits `at..at + 8`; past the bitmap's end, null.
        let lo = u16::from(bytes.get(at / 8).copied().unwrap_or(0));
        let hi = u16::from(bytes.get(at / 8 + 1).copied().unwrap_or(0));
        let byte = u32::from((lo | hi << 8) >> (at % 8));
        for j in 0..8 {
            bad |= o9[j + 1] < o9[j];
            let v = 0u32.wrapping_sub((byte >> j) & 1);
            l8[j] = l8[j].wrapping_add(size(o9[j], o9[j + 1], v));
        }
        ls = l_rest;
        os = os.get(8..).unwrap_or_default();
        at += 8;
    }
    for (i, (l, w)) in ls.iter_mut().zip(os.windows(2)).enumerate() {
        let j = at + i;
        let bit = bytes.get(j / 8).map_or(0, |b| (b >> (j % 8)) & 1);
        bad |= w[1] < w[0];
        *l = l.wrapping_add(size(w[0], w[1], 0u32.wrapping_sub(u32::from(bit))));
    }
    bad
}

/// Turns `lengths` into the rows' starts: row 0 at `start`, row `i + 1`
/// where row `i` ends; returns where the last row ends. Wrapping: for
/// lengths whose total was bounded with [`column_bound`].
pub(crate) fn starts_from_lengths(lengths: &mut [usize], start: usize) -> usize {
    let mut at = start;
    for l in lengths {
        let len = *l;
        *l = at;
        at = at.wrapping_add(len);
    }
    at
}

/// Adds the encoded size of slot `i` of a view array (`views`: at least
/// `lengths.len()` of them; null slots per `nulls`) to `lengths[i]`,
/// straight from the views' lengths, branch-free (so that it vectorises).
/// With `bounded` (see [`column_bound`]) the sizes are added with plain
/// (wrapping) additions, else saturating ones.
///
/// # Errors
/// [`Error::OutOfBounds`] when there are too few views;
/// [`Error::CapacityOverflow`] for a negative length or, unordered, one of
/// `u32::MAX` bytes or more.
pub(crate) fn add_lengths_from_views<A: Allocator>(
    lengths: &mut [usize],
    views: &[crate::array::ByteView],
    nulls: Option<&NullBuffer<'_, A>>,
    unordered: bool,
    bounded: bool,
) -> Result<()> {
    const B: usize = BLOCK_SIZE;
    let views = views.get(..lengths.len()).ok_or(Error::OutOfBounds)?;
    let bits = nulls.map(|n| (n.inner().inner().as_slice(), n.inner().offset()));
    #[inline(always)]
    fn pass<const BOUNDED: bool>(
        lengths: &mut [usize],
        views: &[crate::array::ByteView],
        valid: impl Fn(usize) -> usize,
        size: impl Fn(usize, usize) -> usize,
    ) -> bool {
        let mut bad = false;
        for (i, (l, v)) in lengths.iter_mut().zip(views).enumerate() {
            let len = v.length();
            bad |= len < 0;
            *l = add::<BOUNDED>(*l, size(len as u32 as usize, valid(i)));
        }
        bad
    }
    let ordered =
        |len: usize, v: usize| ((len.div_ceil(B).wrapping_mul(B + 1)) & v).wrapping_add(1);
    let plain = |len: usize, v: usize| (len & v).wrapping_add(4);
    let valid = |i: usize| {
        bits.map_or(usize::MAX, |(bytes, offset)| {
            let j = offset + i;
            let bit = bytes.get(j / 8).map_or(0, |b| (b >> (j % 8)) & 1);
            0usize.wrapping_sub(usize::from(bit))
        })
    };
    let bad = match (unordered, bounded) {
        (false, false) => pass::<false>(lengths, views, valid, ordered),
        (false, true) => pass::<true>(lengths, views, valid, ordered),
        (true, false) => pass::<false>(lengths, views, valid, plain),
        (true, true) => pass::<true>(lengths, views, valid, plain),
    };
    // A view's length is an `i32`: never `u32::MAX` bytes or more.
    if bad {
        return Err(Error::CapacityOverflow);
    }
    Ok(())
}

/// At most how many bytes the `n` rows of a byte column take, ordered or
/// unordered, so that sizes can be added without overflow checks: from the
/// offsets ([`bytes_bound`]) or the views' lengths; `None` for other
/// columns, offsets out of order at the ends, or a bound that does not fit.
pub(crate) fn column_bound<A: Allocator>(column: &ArrayRef<'_, A>, n: usize) -> Option<usize> {
    match column {
        ArrayRef::Binary(a) => bytes_bound(a.value_offsets(), n),
        ArrayRef::LargeBinary(a) => bytes_bound(a.value_offsets(), n),
        ArrayRef::Utf8(a) => bytes_bound(a.value_offsets(), n),
        ArrayRef::LargeUtf8(a) => bytes_bound(a.value_offsets(), n),
        ArrayRef::BinaryView(a) => values_bound(view_bytes(a.views().get(..n)?), n),
        ArrayRef::Utf8View(a) => values_bound(view_bytes(a.views().get(..n)?), n),
        _ => None,
    }
}

/// The lengths of `views` added up (null slots' too: an upper bound of
/// the valid values' bytes; a negative length counts as 0), saturating.
fn view_bytes(views: &[crate::array::ByteView]) -> usize {
    // In `u64` pieces of 2^24 views (at most 2^55 bytes each: no overflow),
    // each an independent sum that vectorises; the pieces added saturating.
    views.chunks(1 << 24).fold(0usize, |t, piece| {
        let bytes: u64 = piece.iter().map(|v| v.length().max(0) as u64).sum();
        t.saturating_add(usize::try_from(bytes).unwrap_or(usize::MAX))
    })
}

/// `a + b`: wrapping when `BOUNDED` (no overflow possible), else saturating.
#[inline(always)]
fn add<const BOUNDED: bool>(a: usize, b: usize) -> usize {
    if BOUNDED {
        a.wrapping_add(b)
    } else {
        a.saturating_add(b)
    }
}

/// At most how many bytes the `n` slots of an offsets-based byte column
/// (`offsets`: at least `n + 1` of them) take in rows, ordered or
/// unordered, when its offsets are in order: `34 n + b + b / 32` for `b`
/// value bytes between the first and the last offset. `None` when that
/// does not fit, or the first or last offset is negative or they are out
/// of order.
pub(crate) fn bytes_bound<O: OffsetSize>(offsets: &[O], n: usize) -> Option<usize> {
    let bytes = offsets
        .get(n)?
        .to_usize()?
        .checked_sub(offsets.first()?.to_usize()?)?;
    values_bound(bytes, n)
}

/// At most how many bytes `n` values of `bytes` bytes in all take in rows,
/// ordered or unordered: `34 n + b + b / 32`; `None` when that does not fit.
fn values_bound(bytes: usize, n: usize) -> Option<usize> {
    // A value of `l` bytes takes `1 + ceil(l / 32) * 33 <= 34 + l + l / 32`
    // ordered, `4 + l` unordered, a null 1 or 4.
    n.checked_mul(BLOCK_SIZE + 2)?
        .checked_add(bytes)?
        .checked_add(bytes / BLOCK_SIZE)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::row::variable::value_len;
    use crate::Global;

    /// The view lengths added up, a negative one as 0, none: 0; near the
    /// top of `i32` they do not wrap.
    #[test]
    fn view_bytes_adds_lengths() {
        use crate::array::ByteView;
        let v = |l: i32| ByteView::from_parts(l, [0; 4], 0, 0);
        assert_eq!(view_bytes(&[]), 0);
        assert_eq!(view_bytes(&[v(5), v(-3), v(100), v(0)]), 105);
        let big = std::vec![v(i32::MAX); 9];
        assert_eq!(view_bytes(&big), 9 * i32::MAX as usize);
        assert_eq!(view_bytes(&[v(i32::MIN), v(7)]), 7);
    }

    /// The bound of a byte column's rows, offsets-based or views; `None`
    /// for a column of another kind; the running sum of lengths.
    #[test]
    fn bound_of_columns() {
        use crate::array::{Array, BinaryViewArray, Int32Array, StringArray};
        let s = StringArray::try_from_options_in(&[Some("abc"), None, Some("")], Global)
            .unwrap()
            .into_array_ref();
        let v = BinaryViewArray::try_from_options_in(&[Some(&b"x"[..]); 3], Global)
            .unwrap()
            .into_array_ref();
        let i = Int32Array::from(std::vec![1, 2, 3]).into_array_ref();
        assert_eq!(column_bound(&s, 3), Some(3 * 34 + 3));
        assert_eq!(column_bound(&v, 3), Some(3 * 34 + 3));
        assert_eq!(column_bound(&v, 4), None);
        assert_eq!(column_bound(&i, 3), None);
        let mut c = [1usize, 2, 3];
        assert_eq!(starts_from_lengths(&mut c, 10), 16);
        assert_eq!(c, [10, 11, 13]);
    }

    /// The bound of a byte column's rows: `34 n + b + b / 32`; `None` for
    /// offsets out of order at the ends, negative, or a bound that does
    /// not fit.
    #[test]
    fn bounds_of_byte_columns() {
        assert_eq!(bytes_bound(&[0i32, 0, 1, 33, 66], 4), Some(4 * 34 + 66 + 2));
        assert_eq!(bytes_bound(&[5i64, 100, 5 + 64], 2), Some(2 * 34 + 64 + 2));
        assert_eq!(bytes_bound(&[0i32], 0), Some(0));
        assert_eq!(bytes_bound(&[3i32, 1], 1), None);
        assert_eq!(bytes_bound(&[-1i32, 1], 1), None);
        assert_eq!(bytes_bound(&[0i32, 1], 2), None);
        assert_eq!(bytes_bound(&[0i32; 3], usize::MAX / 34), None);
    }

    /// Sizes from the offsets added to the lengths, ordered and unordered;
    /// negative or decreasing offsets are errors.
    #[test]
    fn lengths_from_offsets_sizes_and_errors() {
        let none: Option<&NullBuffer<'_, Global>> = None;
        for bounded in [false, true] {
            let mut l = [1usize, 0, 0, 2];
            let o = [0i32, 0, 1, 33, 66];
            add_lengths_from_offsets(&mut l, &o, none, false, bounded).unwrap();
            assert_eq!(l, [2, 34, 34, 69]);
            let mut l = [0usize; 2];
            add_lengths_from_offsets(&mut l, &[3i64, 3, 10], none, true, bounded).unwrap();
            assert_eq!(l, [4, 11]);
            for unordered in [false, true] {
                for bad in [&[-1i32, 0, 1][..], &[0, 2, 1], &[0, -1, 1], &[0, 1, -5]] {
                    let mut l = [0usize; 2];
                    assert_eq!(
                        add_lengths_from_offsets(&mut l, bad, none, unordered, bounded),
                        Err(Error::OffsetOutOfBounds)
                    );
                }
            }
        }
        // Saturating unless bounded.
        let mut l = [usize::MAX - 1];
        add_lengths_from_offsets(&mut l, &[0i32, 1], none, false, false).unwrap();
        assert_eq!(l, [usize::MAX]);
    }

    /// With nulls the sizes are added eight slots at a time (the bits
    /// from one load): every bit offset of a sliced validity, the rest
    /// after the last whole eight, a bad offset in either part.
    #[test]
    fn lengths_from_offsets_with_nulls_in_eights() {
        let n = 53;
        let valid: std::vec::Vec<bool> = (0..n + 9).map(|i| i % 3 != 1 && i % 7 != 5).collect();
        let mut bits = crate::buffer::BooleanBufferBuilder::new_in(Global);
        bits.try_append_slice(&valid).unwrap();
        let all = NullBuffer::new(bits.finish());
        let offsets: std::vec::Vec<i32> = (0..=n as i32).map(|i| i * i % 17 + i * 20).collect();
        for off in 0..9 {
            for len in [0, 5, 8, 16, 21, n] {
                let nulls = all.slice(off, len).unwrap();
                let o = &offsets[..len + 1];
                for (unordered, bounded) in [(false, false), (true, false), (false, true)] {
                    let mut l = std::vec![3usize; len];
                    add_lengths_from_offsets(&mut l, o, Some(&nulls), unordered, bounded).unwrap();
                    let want: std::vec::Vec<usize> = (0..len)
                        .map(|i| {
                            let v = valid[off + i].then_some((o[i + 1] - o[i]) as usize);
                            3 + value_len(v, unordered).unwrap()
                        })
                        .collect();
                    assert_eq!(l, want, "offset {off} len {len} unordered {unordered}");
                }
            }
        }
        let nulls = all.slice(3, 12).unwrap();
        for at in [2, 11] {
            let mut o: std::vec::Vec<i32> = (0..13).collect();
            o[at] = 100;
            for bounded in [false, true] {
                let mut l = [0usize; 12];
                assert_eq!(
                    add_lengths_from_offsets(&mut l, &o, Some(&nulls), false, bounded),
                    Err(Error::OffsetOutOfBounds)
                );
            }
        }
    }

    /// Sizes from the views added to the lengths, ordered and unordered,
    /// with and without nulls, bounded or saturating.
    #[test]
    fn lengths_from_views() {
        use crate::array::{Array, BinaryViewArray};
        let long = [7u8; 40];
        let vals: [Option<&[u8]>; 5] = [
            Some(b""),
            None,
            Some(b"abc"),
            Some(&long),
            Some(&long[..32]),
        ];
        let a = BinaryViewArray::<Global>::try_from_options_in(&vals, Global).unwrap();
        for unordered in [false, true] {
            for bounded in [false, true] {
                let mut l = [1usize; 5];
                add_lengths_from_views(&mut l, a.views(), a.nulls(), unordered, bounded).unwrap();
                let want: std::vec::Vec<usize> = vals
                    .iter()
                    .map(|v| 1 + value_len(v.map(<[u8]>::len), unordered).unwrap())
                    .collect();
                assert_eq!(l[..], want[..]);
            }
        }
        let mut l = [usize::MAX - 1];
        let none: Option<&NullBuffer<'_, Global>> = None;
        add_lengths_from_views(&mut l, &a.views()[2..3], none, false, false).unwrap();
        assert_eq!(l, [usize::MAX]);
        let mut l = [0usize; 6];
        assert_eq!(
            add_lengths_from_views(&mut l, a.views(), none, false, false),
            Err(Error::OutOfBounds)
        );
    }
}
