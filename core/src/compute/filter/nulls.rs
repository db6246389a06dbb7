//! A validity bitmap filtered by a mask: bit by bit from the kept
//! positions when they are listed, else compressed a word at a time
//! ([`crate::compute::compress`]).

use allocator_api2::alloc::Allocator;

use super::mask::Mask;
use crate::buffer::{BooleanBuffer, MutableBuffer, NullBuffer};
use crate::compute::compress::compress_bitmap;
use crate::compute::indices::Bits;
use crate::error::Result;

/// The validity bits of `nulls` where the mask is set (`None` when there
/// is no null).
pub(super) fn filter_nulls<A: Allocator>(
    nulls: Option<&NullBuffer<'_, A>>,
    mask: &Mask<'_>,
    alloc: A,
) -> Result<Option<NullBuffer<'static, A>>> {
    let Some(n) = nulls.filter(|n| n.null_count() > 0) else {
        return Ok(None);
    };
    let src = Bits::of(n);
    let mut out = MutableBuffer::new_in(alloc);
    if let Some(kept) = mask.kept {
        // Few kept slots: their bits one by one.
        let mut it = kept.iter();
        out.try_extend_from_fn(mask.count.div_ceil(8), |_| {
            let mut byte = 0u8;
            for (b, i) in it.by_ref().take(8).enumerate() {
                byte |= u8::from(src.get(*i)) << b;
            }
            byte
        })?;
    } else {
        compress_bitmap(mask.bits, src, mask.len, mask.count, &mut out)?;
    }
    let bits = BooleanBuffer::try_new(out.into_buffer(), 0, mask.count)?;
    Ok(Some(NullBuffer::new(bits)))
}
