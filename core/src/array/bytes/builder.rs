//! [`GenericByteBuilder`]: builds the variable-size binary layout.

use core::marker::PhantomData;

use allocator_api2::alloc::Allocator;

use super::{ByteArrayType, GenericByteArray};
use crate::array::ByteArrayNativeType;
use crate::buffer::{MutableBuffer, OffsetBuffer, OffsetSize, OffsetsBuilder};
use crate::error::{Error, Result};

/// Builds a [`GenericByteArray`] in memory from `A`, one slot at a time.
///
/// Allocates nothing until the first append; the validity bitmap only once a
/// null is appended. A failed append leaves the builder as it was.
#[derive(Debug)]
pub struct GenericByteBuilder<
    T: ByteArrayType,
    #[cfg(feature = "alloc")] A: Allocator + Clone = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator + Clone,
> {
    /// Offsets (in value bytes, from 0) and validity.
    offsets: OffsetsBuilder<T::Offset, A>,
    values: MutableBuffer<A>,
    _t: PhantomData<T>,
}

impl<T: ByteArrayType, A: Allocator + Clone> GenericByteBuilder<T, A> {
    /// An empty builder; allocates nothing yet.
    pub fn new_in(alloc: A) -> Self {
        GenericByteBuilder {
            offsets: OffsetsBuilder::new_in(0, alloc.clone()),
            values: MutableBuffer::new_in(alloc),
            _t: PhantomData,
        }
    }

    /// Number of slots appended.
    pub fn len(&self) -> usize {
        self.offsets.len()
    }

    /// `true` when nothing was appended.
    pub fn is_empty(&self) -> bool {
        self.offsets.is_empty()
    }

    /// Number of value bytes appended.
    pub fn values_len(&self) -> usize {
        self.values.len()
    }

    /// Makes room for `additional_slots` more slots holding `additional_bytes`
    /// more value bytes in total.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`], [`Error::CapacityOverflow`].
    pub fn try_reserve(&mut self, additional_slots: usize, additional_bytes: usize) -> Result<()> {
        self.offsets.try_reserve(additional_slots)?;
        self.values.try_reserve(additional_bytes)
    }

    /// Appends the bytes of one slot, its end offset and validity; undoes
    /// all on failure.
    fn try_push_slot(&mut self, bytes: &[u8], valid: bool) -> Result<()> {
        let values_len = self.values.len();
        let end = values_len
            .checked_add(bytes.len())
            .ok_or(Error::CapacityOverflow)?;
        // Refuse a value the offsets cannot address before copying it.
        T::Offset::from_usize(end).ok_or(Error::CapacityOverflow)?;
        self.values.try_extend_from_slice(bytes)?;
        let r = self.offsets.try_append(end, valid);
        if r.is_err() {
            self.values.truncate(values_len);
        }
        r
    }

    /// Appends a valid value.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`]; [`Error::CapacityOverflow`] when the
    /// value bytes would exceed what the offset type addresses (`i32::MAX`
    /// bytes for Binary / Utf8).
    pub fn try_append_value(&mut self, value: &T::Native) -> Result<()> {
        self.try_push_slot(value.as_bytes(), true)
    }

    /// Appends a null (an empty slot).
    ///
    /// # Errors
    /// [`Error::AllocationFailed`], [`Error::CapacityOverflow`].
    pub fn try_append_null(&mut self) -> Result<()> {
        self.try_push_slot(&[], false)
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

    /// Freezes into an array (no copy, no allocation).
    pub fn finish<'a>(self) -> GenericByteArray<'a, T, A> {
        // Whole offsets in a 64-byte aligned buffer: finishing cannot fail;
        // the fallback keeps this path panic-free.
        let (offsets, nulls) = self
            .offsets
            .finish()
            .unwrap_or_else(|_| (OffsetBuffer::new_empty(), None));
        // Built from `&T::Native` values (UTF-8 for the UTF-8 types) with
        // offsets from 0 increasing to the data length: valid at Full level.
        GenericByteArray {
            data_type: T::data_type(),
            offsets: offsets.into_inner(),
            values: self.values.into_buffer(),
            nulls,
            _t: PhantomData,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{BinaryArray, BinaryBuilder, LargeStringBuilder, StringBuilder};
    use super::*;
    use crate::array::{Array, ValidationLevel};
    use crate::test_support::{check_every_failure, failing_at, FailMode};

    #[test]
    fn builder_failed_append_leaves_builder_unchanged() {
        let alloc = failing_at(2, FailMode::From);
        let mut b = StringBuilder::new_in(alloc.clone());
        b.try_append_value("joe").unwrap(); // offsets + values
        assert_eq!(b.try_append_null(), Err(Error::AllocationFailed)); // bitmap
        assert_eq!(b.len(), 1);
        b.try_append_value("mark").unwrap();
        let a = b.finish();
        assert_eq!(a.value_offsets(), &[0, 3, 7]);
        assert_eq!(a.validate(ValidationLevel::Full), Ok(()));
    }

    #[test]
    fn builder_allocation_failures() {
        let n = check_every_failure(|alloc| {
            let mut b = LargeStringBuilder::new_in(alloc);
            for i in 0..40 {
                b.try_append_option((i % 7 != 3).then_some("some longer text here"))?;
            }
            let a = b.finish();
            a.validate(ValidationLevel::Full)?;
            Ok(a.len())
        });
        assert!(n > 0);
        let n = check_every_failure(|alloc| {
            BinaryArray::try_from_options_in(&[Some(&b"joe"[..]), None, None, Some(b"mark")], alloc)
        });
        assert!(n > 0);
    }

    #[test]
    fn empty_builder() {
        let a = BinaryBuilder::new_in(failing_at(0, FailMode::From)).finish();
        assert_eq!(a.len(), 0);
        assert_eq!(a.value_offsets(), &[0]);
        assert_eq!(a.validate(ValidationLevel::Full), Ok(()));
    }
}
