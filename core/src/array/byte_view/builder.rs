//! [`GenericByteViewBuilder`]: builds the view layout.

use core::marker::PhantomData;

use allocator_api2::alloc::Allocator;

use super::{ByteView, ByteViewType, GenericByteViewArray};
use crate::array::ByteArrayNativeType;
use crate::buffer::{MutableBuffer, NullBufferBuilder, SharedSlice};
use crate::error::{Error, Result};

/// Builds a [`GenericByteViewArray`] in memory from `A`, one slot at a time.
///
/// Values of at most 12 bytes are stored inline in their view; longer ones
/// are appended to a single data buffer that grows as needed (so the built
/// array has zero or one data buffer, and its out-of-line bytes are limited
/// to offsets that fit an `i32`). Null slots get an all-zero view (an empty
/// inline value). Allocates nothing until the first append; a failed append
/// leaves the builder as it was.
///
/// ```
/// use alkaid::array::{Array, BinaryViewBuilder};
///
/// let mut b = BinaryViewBuilder::new();
/// b.try_append_value(b"\x01\x02")?;
/// b.try_append_null()?;
/// b.try_append_value(&[7u8; 40])?; // out of line
/// let a = b.finish()?;
/// assert_eq!((a.len(), a.null_count()), (3, 1));
/// assert_eq!(a.value(2), Some(&[7u8; 40][..]));
/// assert_eq!(a.data_buffers()[0].len(), 40); // only the long value's bytes
/// # Ok::<(), alkaid::Error>(())
/// ```
#[derive(Debug)]
pub struct GenericByteViewBuilder<
    T: ByteViewType,
    #[cfg(feature = "alloc")] A: Allocator + Clone = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator + Clone,
> {
    views: MutableBuffer<A>,
    data: MutableBuffer<A>,
    nulls: NullBufferBuilder<A>,
    _t: PhantomData<T>,
}

impl<T: ByteViewType, A: Allocator + Clone> GenericByteViewBuilder<T, A> {
    /// An empty builder; allocates nothing yet.
    pub fn new_in(alloc: A) -> Self {
        GenericByteViewBuilder {
            views: MutableBuffer::new_in(alloc.clone()),
            data: MutableBuffer::new_in(alloc.clone()),
            nulls: NullBufferBuilder::new_in(alloc),
            _t: PhantomData,
        }
    }

    /// Number of slots appended.
    pub fn len(&self) -> usize {
        self.nulls.len()
    }

    /// `true` when nothing was appended.
    pub fn is_empty(&self) -> bool {
        self.nulls.is_empty()
    }

    /// Makes room for `additional_slots` more views and `additional_bytes`
    /// more out-of-line value bytes.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`], [`Error::CapacityOverflow`].
    pub fn try_reserve(&mut self, additional_slots: usize, additional_bytes: usize) -> Result<()> {
        let n = additional_slots
            .checked_mul(ByteView::SIZE)
            .ok_or(Error::CapacityOverflow)?;
        self.views.try_reserve(n)?;
        self.data.try_reserve(additional_bytes)
    }

    /// Appends a valid value: inline when at most 12 bytes, else copied to
    /// the data buffer.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`]; [`Error::CapacityOverflow`] when the value
    /// is longer than `i32::MAX` bytes or the data buffer already holds more
    /// than `i32::MAX` bytes.
    pub fn try_append_value(&mut self, value: &T::Native) -> Result<()> {
        let bytes = value.as_bytes();
        let (views_len, data_len) = (self.views.len(), self.data.len());
        let view = ByteView::try_new(bytes, 0, data_len)?;
        let r = self.push(view, bytes, true);
        if r.is_err() {
            self.views.truncate(views_len);
            self.data.truncate(data_len);
        }
        r
    }

    fn push(&mut self, view: ByteView, bytes: &[u8], valid: bool) -> Result<()> {
        if !view.is_inline() {
            self.data.try_extend_from_slice(bytes)?;
        }
        self.views.try_extend_from_slice(view.as_bytes())?;
        self.nulls.try_append(valid)
    }

    /// Appends a null (an all-zero view).
    ///
    /// # Errors
    /// [`Error::AllocationFailed`], [`Error::CapacityOverflow`].
    pub fn try_append_null(&mut self) -> Result<()> {
        let views_len = self.views.len();
        let r = self.push(ByteView::default(), &[], false);
        if r.is_err() {
            self.views.truncate(views_len);
        }
        r
    }

    /// Appends `Some(v)` as a value, `None` as a null.
    ///
    /// # Errors
    /// As [`Self::try_append_value`].
    pub fn try_append_option(&mut self, value: Option<&T::Native>) -> Result<()> {
        match value {
            Some(v) => self.try_append_value(v),
            None => self.try_append_null(),
        }
    }

    /// Freezes into an array without copying.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`] when the one-entry list of data buffers
    /// cannot be allocated (only when a value longer than 12 bytes was
    /// appended); the builder's memory is then released.
    pub fn finish<'a>(self) -> Result<GenericByteViewArray<'a, T, A>> {
        let GenericByteViewBuilder {
            views, data, nulls, ..
        } = self;
        let buffers = if data.is_empty() {
            SharedSlice::empty()
        } else {
            let alloc = data.allocator().clone();
            SharedSlice::try_from_iter_in(core::iter::once(data.into_buffer()), alloc)?
        };
        // Views made by `ByteView::try_new` over the bytes appended to the
        // data buffer (buffer 0), from `&T::Native` values: valid at Full level.
        Ok(GenericByteViewArray {
            data_type: T::data_type(),
            views: views.into_buffer(),
            buffers,
            nulls: nulls.finish(),
            _t: PhantomData,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::{BinaryViewArray, BinaryViewBuilder, StringViewBuilder};
    use super::*;
    use crate::array::{Array, ValidationLevel};
    use crate::test_support::{check_every_failure, failing_at, FailMode};

    #[test]
    fn builder_allocation_failures() {
        let n = check_every_failure(|alloc| {
            let mut b = StringViewBuilder::new_in(alloc);
            for i in 0..40 {
                let v = match i % 3 {
                    0 => None,
                    1 => Some("short"),
                    _ => Some("a value longer than twelve bytes"),
                };
                b.try_append_option(v)?;
            }
            let a = b.finish()?;
            a.validate(ValidationLevel::Full)?;
            Ok(a)
        });
        assert!(n > 0);
        let n = check_every_failure(|alloc| {
            BinaryViewArray::try_from_options_in(&[Some(&b"0123456789abcdef"[..]), None], alloc)
        });
        assert!(n > 0);
        // Inline values only: no data buffer, `finish` allocates nothing.
        let mut b = BinaryViewBuilder::new_in(failing_at(1, FailMode::From));
        b.try_append_value(b"abc").unwrap();
        assert_eq!(b.try_append_null(), Err(Error::AllocationFailed));
        assert_eq!(b.len(), 1);
        let a = b.finish().unwrap();
        assert_eq!(a.data_buffers().len(), 0);
        assert_eq!(a.value(0), Some(&b"abc"[..]));
        assert_eq!(a.len(), 1);
    }
}
