//! Typed buffers as the kernels build them: the bytes of `n` values, a
//! buffer frozen into typed values, and offsets read (first and last) and
//! appended rebased to a new start.

use core::mem::size_of;

use allocator_api2::alloc::Allocator;

use crate::buffer::{MutableBuffer, OffsetSize, ScalarBuffer};
use crate::error::{Error, Result};

/// `n` bytes of room for whole `T`s: `count * size_of::<T>()`.
pub(super) fn byte_size<T>(count: usize) -> Result<usize> {
    count
        .checked_mul(size_of::<T>())
        .ok_or(Error::CapacityOverflow)
}

/// Freezes `m` into typed values (an empty buffer reads as no values).
pub(super) fn freeze<'a, T: crate::native::NativeType, A: Allocator>(
    m: MutableBuffer<A>,
) -> Result<ScalarBuffer<'a, T, A>> {
    ScalarBuffer::try_from_buffer(m.into_buffer())
}

/// The first and last offsets of `offsets` as `usize` (`0..0` when empty).
pub(super) fn offset_range<O: OffsetSize>(offsets: &[O]) -> Result<(usize, usize)> {
    let (Some(first), Some(last)) = (offsets.first(), offsets.last()) else {
        return Ok((0, 0));
    };
    let first = first.to_usize().ok_or(Error::OffsetOutOfBounds)?;
    let last = last.to_usize().ok_or(Error::OffsetOutOfBounds)?;
    if first > last {
        return Err(Error::OffsetsNotMonotonic);
    }
    Ok((first, last))
}

/// Appends `offsets` (after the first, rebased from it to `base`) to `out`.
pub(super) fn push_rebased<O: OffsetSize, A: Allocator>(
    out: &mut MutableBuffer<A>,
    offsets: &[O],
    base: usize,
) -> Result<()> {
    let (first, _) = offset_range(offsets)?;
    for o in offsets.iter().skip(1) {
        let rel = o
            .to_usize()
            .and_then(|o| o.checked_sub(first))
            .ok_or(Error::OffsetsNotMonotonic)?;
        let v = base
            .checked_add(rel)
            .and_then(O::from_usize)
            .ok_or(Error::CapacityOverflow)?;
        out.try_push(v)?;
    }
    Ok(())
}
