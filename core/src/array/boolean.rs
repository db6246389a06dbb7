//! Boolean layout: values bit-packed LSB first ("Fixed-size Primitive Layout"
//! with a bit width of 1), plus an optional validity bitmap.

use core::fmt;

use allocator_api2::alloc::Allocator;
use derive_where::derive_where;

use super::{check_slice, validate_nulls, Array, ArrayRef, ValidationLevel};
use crate::buffer::{BooleanBuffer, BooleanBufferBuilder, NullBuffer, NullBufferBuilder};
use crate::datatypes::DataType;
use crate::error::{Error, Result};

/// An array of booleans: slot `i` is bit `i` of [`BooleanArray::values`].
///
/// The values are bit-packed, least significant bit first; the validity
/// bitmap (if any) has one bit per slot, 1 = valid.
///
/// ```
/// use alkaid::array::{Array, BooleanArray};
///
/// let a = BooleanArray::from(vec![Some(true), None, Some(false), Some(true)]);
/// assert_eq!((a.len(), a.null_count(), a.true_count()), (4, 1, 2));
/// assert_eq!(a.get(1), None); // a null slot
/// assert_eq!(a.iter().collect::<Vec<_>>(), [Some(true), None, Some(false), Some(true)]);
/// // Bits 0 and 3 set: one byte of value bits, 64-byte padded.
/// assert_eq!(a.values().inner().as_slice()[0] & 0b1001, 0b1001);
/// let tail = a.slice(2, 2)?;
/// assert_eq!(tail.iter().collect::<Vec<_>>(), [Some(false), Some(true)]);
/// # Ok::<(), alkaid::Error>(())
/// ```
#[derive_where(Clone)]
pub struct BooleanArray<
    'a,
    #[cfg(feature = "alloc")] A: Allocator = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator,
> {
    data_type: DataType<'a, A>,
    values: BooleanBuffer<'a, A>,
    nulls: Option<NullBuffer<'a, A>>,
}

impl<'a, A: Allocator> BooleanArray<'a, A> {
    /// An array over value bits and an optional validity bitmap.
    ///
    /// # Errors
    /// [`Error::ValidityTooSmall`] when the bitmap's length differs from the values'.
    pub fn try_new(values: BooleanBuffer<'a, A>, nulls: Option<NullBuffer<'a, A>>) -> Result<Self> {
        let a = BooleanArray {
            data_type: DataType::Boolean,
            values,
            nulls,
        };
        a.validate(ValidationLevel::Full)?;
        Ok(a)
    }

    /// As [`Self::try_new`] without checks.
    ///
    /// # Safety
    /// `nulls` (if any) must have the values' length.
    pub unsafe fn new_unchecked(
        values: BooleanBuffer<'a, A>,
        nulls: Option<NullBuffer<'a, A>>,
    ) -> Self {
        BooleanArray {
            data_type: DataType::Boolean,
            values,
            nulls,
        }
    }

    /// The value bits (including null slots, whose bits are unspecified).
    pub fn values(&self) -> &BooleanBuffer<'a, A> {
        &self.values
    }

    /// The bit of slot `i` whatever its validity; `None` when `i >= len`.
    pub fn value(&self, i: usize) -> Option<bool> {
        self.values.get(i)
    }

    /// `Some(bit)` for a valid slot, `None` for a null or missing one.
    pub fn get(&self, i: usize) -> Option<bool> {
        if self.is_valid(i) {
            self.values.get(i)
        } else {
            None
        }
    }

    /// Iterates the slots as options.
    pub fn iter(&self) -> impl Iterator<Item = Option<bool>> + '_ {
        (0..self.len()).map(move |i| self.get(i))
    }

    /// Number of valid `true` slots.
    pub fn true_count(&self) -> usize {
        match &self.nulls {
            None => self.values.count_set_bits(),
            Some(_) => self.iter().filter(|v| *v == Some(true)).count(),
        }
    }
}

impl<'a, A: Allocator> Array<'a, A> for BooleanArray<'a, A> {
    fn data_type(&self) -> &DataType<'a, A> {
        &self.data_type
    }

    fn len(&self) -> usize {
        self.values.len()
    }

    fn nulls(&self) -> Option<&NullBuffer<'a, A>> {
        self.nulls.as_ref()
    }

    fn slice(&self, offset: usize, len: usize) -> Result<Self> {
        check_slice(offset, len, self.len())?;
        Ok(BooleanArray {
            data_type: DataType::Boolean,
            values: self.values.slice(offset, len)?,
            nulls: crate::buffer::slice_nulls(self.nulls.as_ref(), offset, len)?,
        })
    }

    fn validate(&self, level: ValidationLevel) -> Result<()> {
        if level == ValidationLevel::None {
            return Ok(());
        }
        if self.data_type != DataType::Boolean {
            return Err(Error::TypeMismatch);
        }
        validate_nulls(self.nulls.as_ref(), self.len(), level)
    }

    fn into_array_ref(self) -> ArrayRef<'a, A> {
        ArrayRef::Boolean(self)
    }
}

impl<A: Allocator> fmt::Debug for BooleanArray<'_, A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("BooleanArray ")?;
        f.debug_list().entries(self.iter()).finish()
    }
}

/// Builds a [`BooleanArray`] in memory from `A`.
#[derive(Debug)]
pub struct BooleanBuilder<
    #[cfg(feature = "alloc")] A: Allocator + Clone = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator + Clone,
> {
    values: BooleanBufferBuilder<A>,
    nulls: NullBufferBuilder<A>,
}

impl<A: Allocator + Clone> BooleanBuilder<A> {
    /// An empty builder; allocates nothing yet.
    pub fn new_in(alloc: A) -> Self {
        BooleanBuilder {
            values: BooleanBufferBuilder::new_in(alloc.clone()),
            nulls: NullBufferBuilder::new_in(alloc),
        }
    }

    /// Number of slots appended.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// `true` when nothing was appended.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Appends a valid value.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`], [`Error::CapacityOverflow`].
    pub fn try_append_value(&mut self, v: bool) -> Result<()> {
        self.values.try_append(v)?;
        self.nulls.try_append_non_null()
    }

    /// Appends a null (a `0` value bit).
    ///
    /// # Errors
    /// [`Error::AllocationFailed`], [`Error::CapacityOverflow`].
    pub fn try_append_null(&mut self) -> Result<()> {
        self.values.try_append(false)?;
        self.nulls.try_append_null()
    }

    /// Appends `Some(v)` as a value and `None` as a null.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`], [`Error::CapacityOverflow`].
    pub fn try_append_option(&mut self, v: Option<bool>) -> Result<()> {
        match v {
            Some(v) => self.try_append_value(v),
            None => self.try_append_null(),
        }
    }

    /// Freezes into an array (no copy).
    pub fn finish<'a>(self) -> BooleanArray<'a, A> {
        BooleanArray {
            data_type: DataType::Boolean,
            values: self.values.finish(),
            nulls: self.nulls.finish(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Global;

    #[test]
    fn build_slice_count() {
        let mut b = BooleanBuilder::new_in(Global);
        for v in [Some(true), None, Some(false), Some(true)] {
            b.try_append_option(v).unwrap();
        }
        let a = b.finish();
        assert_eq!(a.values().inner().as_slice(), &[0b1001]);
        assert_eq!(a.nulls().unwrap().inner().inner().as_slice(), &[0b1101]);
        assert_eq!(a.true_count(), 2);
        let s = a.slice(1, 3).unwrap();
        let got: std::vec::Vec<_> = s.iter().collect();
        assert_eq!(got, [None, Some(false), Some(true)]);
    }
}
