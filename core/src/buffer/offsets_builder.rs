//! [`OffsetsBuilder`]: the offsets and validity bitmap shared by the builders
//! of the variable-size layouts (binary/string, list, map).

use core::marker::PhantomData;
use core::mem::size_of;

use allocator_api2::alloc::Allocator;

use super::{MutableBuffer, NullBuffer, NullBufferBuilder, OffsetBuffer, OffsetSize, ScalarBuffer};
use crate::error::{Error, Result};

/// Builds the `len + 1` offsets and the validity bitmap of a variable-size
/// layout, one slot at a time: each slot is closed by giving the end of its
/// values (bytes or child elements), the previous end being its start.
///
/// The first offset (`base`, the values already present when the builder was
/// made) is written lazily with the first slot, so that an empty builder
/// allocates nothing; the bitmap only once a null is appended.
#[derive(Debug)]
pub(crate) struct OffsetsBuilder<O: OffsetSize, A: Allocator + Clone> {
    /// `len + 1` offsets once a slot was appended, empty before.
    offsets: MutableBuffer<A>,
    nulls: NullBufferBuilder<A>,
    /// The first offset.
    base: usize,
    /// The last offset (`base` before the first slot).
    last: usize,
    _o: PhantomData<O>,
}

impl<O: OffsetSize, A: Allocator + Clone> OffsetsBuilder<O, A> {
    /// An empty builder whose first offset will be `base`; allocates nothing.
    pub(crate) fn new_in(base: usize, alloc: A) -> Self {
        OffsetsBuilder {
            offsets: MutableBuffer::new_in(alloc.clone()),
            nulls: NullBufferBuilder::new_in(alloc),
            base,
            last: base,
            _o: PhantomData,
        }
    }

    /// Number of slots appended.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.nulls.len()
    }

    /// `true` when no slot was appended.
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.nulls.is_empty()
    }

    /// Makes room for `additional` more offsets (slots).
    ///
    /// # Errors
    /// [`Error::AllocationFailed`], [`Error::CapacityOverflow`].
    pub(crate) fn try_reserve(&mut self, additional: usize) -> Result<()> {
        let first = usize::from(self.offsets.is_empty());
        let n = additional
            .checked_add(first)
            .and_then(|n| n.checked_mul(size_of::<O>()))
            .ok_or(Error::CapacityOverflow)?;
        self.offsets.try_reserve(n)
    }

    /// Closes slot `len`: its values end at `end` (values, not bytes of
    /// offsets); valid or null as `valid` says.
    ///
    /// # Errors
    /// [`Error::InvalidBuilderState`] when `end` is before the previous end;
    /// [`Error::CapacityOverflow`] when `end` (or the first offset) does not
    /// fit in `O`; [`Error::AllocationFailed`]. The builder is unchanged on error.
    #[inline]
    pub(crate) fn try_append(&mut self, end: usize, valid: bool) -> Result<()> {
        if end < self.last {
            return Err(Error::InvalidBuilderState);
        }
        let end_o = O::from_usize(end).ok_or(Error::CapacityOverflow)?;
        let old = self.offsets.len();
        let r = self
            .push_first()
            .and_then(|()| self.offsets.try_push(end_o))
            .and_then(|()| self.nulls.try_append(valid));
        match r {
            Ok(()) => self.last = end,
            Err(_) => self.offsets.truncate(old),
        }
        r
    }

    /// Writes the first offset before the first slot.
    fn push_first(&mut self) -> Result<()> {
        if !self.offsets.is_empty() {
            return Ok(());
        }
        self.offsets.try_reserve(2 * size_of::<O>())?;
        let base = O::from_usize(self.base).ok_or(Error::CapacityOverflow)?;
        self.offsets.try_push(base)
    }

    /// Freezes into the offsets and the bitmap (`None` when no slot is null),
    /// without copying. No slot gives the offsets `[0]`, without allocating.
    ///
    /// # Errors
    /// None in practice: the offsets are whole `O`s in a 64-byte aligned
    /// buffer; [`Error::Misaligned`] would say otherwise.
    #[allow(clippy::type_complexity)]
    pub(crate) fn finish<'a>(self) -> Result<(OffsetBuffer<'a, O, A>, Option<NullBuffer<'a, A>>)> {
        let offsets = if self.offsets.is_empty() {
            OffsetBuffer::new_empty()
        } else {
            let s = ScalarBuffer::try_from_buffer(self.offsets.into_buffer())?;
            // SAFETY: non-empty (`base` then one end per slot), non-negative
            // (`O::from_usize`) and non-decreasing (`try_append` refuses an
            // end before the previous one, the first being `base`).
            unsafe { OffsetBuffer::new_unchecked(s) }
        };
        Ok((offsets, self.nulls.finish()))
    }
}
