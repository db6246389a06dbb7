//! Fixed-size binary layout: `FixedSizeBinary(width)`, byte strings that all
//! have the same width.
//!
//! The data type table of the format lists it as "Fixed-size Binary" with a
//! byte width; physically it is the "Fixed-size Primitive Layout" with values
//! of `width` bytes: slot `i` is `values[i * width..(i + 1) * width]`, plus an
//! optional validity bitmap. A null slot still occupies `width` bytes (their
//! content is unspecified; the builder writes zeroes).

use core::fmt;

use allocator_api2::alloc::Allocator;
use derive_where::derive_where;

use super::{check_slice, validate_nulls, Array, ArrayRef, ValidationLevel};
use crate::buffer::{Buffer, MutableBuffer, NullBuffer, NullBufferBuilder};
use crate::datatypes::DataType;
use crate::error::{Error, Result};

/// Width in bytes of `dt` when it is `FixedSizeBinary` with a non-negative width.
fn width_of<A: Allocator>(dt: &DataType<'_, A>) -> Result<usize> {
    match dt {
        DataType::FixedSizeBinary(w) => usize::try_from(*w).map_err(|_| Error::InvalidDataType),
        _ => Err(Error::TypeMismatch),
    }
}

/// An array of byte strings of one width: "Fixed-size Binary".
///
/// `len` slots of [`Self::value_length`] bytes each. The values buffer holds
/// at least `len * width` bytes, slot 0 at byte 0 (slicing slices the buffer).
///
/// ```
/// use alkaid::array::{Array, FixedSizeBinaryArray};
/// use alkaid::datatypes::DataType;
///
/// // Three MAC-address-like 2-byte ids over caller bytes (zero copy).
/// let bytes = [0xa0, 0x01, 0xa0, 0x02, 0xb0, 0x03];
/// let a = FixedSizeBinaryArray::<alkaid::NoAlloc>::try_from_slice(2, &bytes)?;
/// assert_eq!(a.data_type(), &DataType::FixedSizeBinary(2));
/// assert_eq!((a.len(), a.value_length()), (3, 2));
/// assert_eq!(a.value(2), Some(&[0xb0, 0x03][..]));
/// let s = a.slice(1, 2)?;
/// assert_eq!(s.value(0), Some(&[0xa0, 0x02][..]));
/// # Ok::<(), alkaid::Error>(())
/// ```
#[derive_where(Clone)]
pub struct FixedSizeBinaryArray<
    'a,
    #[cfg(feature = "alloc")] A: Allocator = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator,
> {
    data_type: DataType<'a, A>,
    /// Width in bytes (from the data type; 0 if the type is malformed).
    width: usize,
    len: usize,
    values: Buffer<'a, A>,
    nulls: Option<NullBuffer<'a, A>>,
}

impl<'a, A: Allocator> FixedSizeBinaryArray<'a, A> {
    /// An array of `len` slots of type `data_type` (`FixedSizeBinary(width)`)
    /// over `values` (at least `len * width` bytes; extra bytes are ignored)
    /// and an optional validity bitmap of `len` bits. Validates at
    /// [`ValidationLevel::Full`].
    ///
    /// `len` is explicit because a width of 0 says nothing about it.
    ///
    /// # Errors
    /// [`Error::TypeMismatch`] when `data_type` is not `FixedSizeBinary`;
    /// [`Error::InvalidDataType`] for a negative width;
    /// [`Error::BufferTooSmall`] when `values` is shorter than `len * width`;
    /// [`Error::ValidityTooSmall`], [`Error::NullCountMismatch`].
    pub fn try_new(
        data_type: DataType<'a, A>,
        len: usize,
        values: Buffer<'a, A>,
        nulls: Option<NullBuffer<'a, A>>,
    ) -> Result<Self> {
        let width = width_of(&data_type)?;
        let a = FixedSizeBinaryArray {
            data_type,
            width,
            len,
            values,
            nulls,
        };
        a.validate(ValidationLevel::Full)?;
        Ok(a)
    }

    /// As [`Self::try_new`] without any check.
    ///
    /// # Safety
    /// The array must pass [`Array::validate`] at [`ValidationLevel::Full`]
    /// (accessors stay panic-free otherwise, but return `None`).
    pub unsafe fn new_unchecked(
        data_type: DataType<'a, A>,
        len: usize,
        values: Buffer<'a, A>,
        nulls: Option<NullBuffer<'a, A>>,
    ) -> Self {
        FixedSizeBinaryArray {
            width: width_of(&data_type).unwrap_or(0),
            data_type,
            len,
            values,
            nulls,
        }
    }

    /// A zero-copy array over caller bytes, no nulls: `values.len() / width`
    /// slots (trailing bytes that do not fill a slot are ignored).
    ///
    /// # Errors
    /// [`Error::InvalidDataType`] for a negative width; a width of 0 gives an
    /// empty array.
    pub fn try_from_slice(width: i32, values: &'a [u8]) -> Result<Self> {
        let w = usize::try_from(width).map_err(|_| Error::InvalidDataType)?;
        let len = values.len().checked_div(w).unwrap_or(0);
        Self::try_new(
            DataType::FixedSizeBinary(width),
            len,
            Buffer::from_slice_ref(values),
            None,
        )
    }

    /// Copies the items of `iter` (`None` = null), each `width` bytes long,
    /// into memory from `alloc`.
    ///
    /// # Errors
    /// [`Error::InvalidDataType`] for a negative width;
    /// [`Error::LengthMismatch`] when a value is not `width` bytes long;
    /// [`Error::AllocationFailed`], [`Error::CapacityOverflow`].
    pub fn try_from_iter_in<'v, I>(width: i32, iter: I, alloc: A) -> Result<Self>
    where
        I: IntoIterator<Item = Option<&'v [u8]>>,
        A: Clone,
    {
        let mut b = FixedSizeBinaryBuilder::try_new_in(width, alloc)?;
        for v in iter {
            b.try_append_option(v)?;
        }
        Ok(b.finish())
    }

    /// Width of every slot in bytes (the `width` of `FixedSizeBinary(width)`).
    #[inline]
    pub fn value_length(&self) -> usize {
        self.width
    }

    /// The `width` bytes of slot `i` whatever its validity, or `None` when
    /// `i >= len`.
    #[inline]
    pub fn value(&self, i: usize) -> Option<&[u8]> {
        if i >= self.len {
            return None;
        }
        let start = i.checked_mul(self.width)?;
        self.values
            .as_slice()
            .get(start..start.checked_add(self.width)?)
    }

    /// `Some(bytes)` for a valid slot, `None` for a null or missing one.
    #[inline]
    pub fn get(&self, i: usize) -> Option<&[u8]> {
        if self.is_valid(i) {
            self.value(i)
        } else {
            None
        }
    }

    /// Iterates the slots as options (`None` for nulls).
    pub fn iter(&self) -> impl Iterator<Item = Option<&[u8]>> + '_ {
        (0..self.len).map(move |i| self.get(i))
    }

    /// The values buffer (slot 0 at byte 0; may extend past `len * width`).
    pub fn values(&self) -> &Buffer<'a, A> {
        &self.values
    }

    /// Splits into type, length, values and bitmap.
    pub fn into_parts(
        self,
    ) -> (
        DataType<'a, A>,
        usize,
        Buffer<'a, A>,
        Option<NullBuffer<'a, A>>,
    ) {
        (self.data_type, self.len, self.values, self.nulls)
    }
}

impl<'a, A: Allocator> Array<'a, A> for FixedSizeBinaryArray<'a, A> {
    fn data_type(&self) -> &DataType<'a, A> {
        &self.data_type
    }

    fn len(&self) -> usize {
        self.len
    }

    fn nulls(&self) -> Option<&NullBuffer<'a, A>> {
        self.nulls.as_ref()
    }

    fn slice(&self, offset: usize, len: usize) -> Result<Self> {
        check_slice(offset, len, self.len)?;
        let start = offset.checked_mul(self.width).ok_or(Error::OutOfBounds)?;
        let bytes = len.checked_mul(self.width).ok_or(Error::OutOfBounds)?;
        Ok(FixedSizeBinaryArray {
            data_type: self.data_type.clone(),
            width: self.width,
            len,
            values: self.values.slice(start, bytes)?,
            nulls: crate::buffer::slice_nulls(self.nulls.as_ref(), offset, len)?,
        })
    }

    /// Cheap and Full alike (no data value is read): the data type, the
    /// values' size, the bitmap's length; Full also the null count.
    fn validate(&self, level: ValidationLevel) -> Result<()> {
        if level == ValidationLevel::None {
            return Ok(());
        }
        let width = width_of(&self.data_type)?;
        if width != self.width {
            return Err(Error::TypeMismatch);
        }
        let need = self.len.checked_mul(width).ok_or(Error::BufferTooSmall)?;
        if self.values.len() < need {
            return Err(Error::BufferTooSmall);
        }
        validate_nulls(self.nulls.as_ref(), self.len, level)
    }

    fn into_array_ref(self) -> ArrayRef<'a, A> {
        ArrayRef::FixedSizeBinary(self)
    }
}

impl<A: Allocator> fmt::Debug for FixedSizeBinaryArray<'_, A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "FixedSizeBinaryArray<{}> ", self.width)?;
        f.debug_list().entries(self.iter()).finish()
    }
}

/// Builds a [`FixedSizeBinaryArray`] in memory from `A`, one slot at a time.
///
/// Allocates nothing until the first append; the validity bitmap only once a
/// null is appended. A failed append leaves the builder as it was.
///
/// ```
/// use alkaid::array::{Array, FixedSizeBinaryBuilder};
///
/// let mut b = FixedSizeBinaryBuilder::try_new(4)?;
/// b.try_append_value(&[192, 168, 0, 1])?;
/// b.try_append_null()?;
/// assert!(b.try_append_value(&[1, 2, 3]).is_err()); // not 4 bytes: Error::LengthMismatch
/// let a = b.finish();
/// assert_eq!((a.len(), a.null_count()), (2, 1));
/// assert_eq!(a.get(0), Some(&[192, 168, 0, 1][..]));
/// # Ok::<(), alkaid::Error>(())
/// ```
#[derive(Debug)]
pub struct FixedSizeBinaryBuilder<
    #[cfg(feature = "alloc")] A: Allocator + Clone = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator + Clone,
> {
    width: i32,
    values: MutableBuffer<A>,
    nulls: NullBufferBuilder<A>,
}

impl<A: Allocator + Clone> FixedSizeBinaryBuilder<A> {
    /// An empty builder of `FixedSizeBinary(width)`; allocates nothing yet.
    ///
    /// # Errors
    /// [`Error::InvalidDataType`] for a negative width.
    pub fn try_new_in(width: i32, alloc: A) -> Result<Self> {
        if width < 0 {
            return Err(Error::InvalidDataType);
        }
        Ok(FixedSizeBinaryBuilder {
            width,
            values: MutableBuffer::new_in(alloc.clone()),
            nulls: NullBufferBuilder::new_in(alloc),
        })
    }

    fn width(&self) -> usize {
        // Checked non-negative by the constructor.
        usize::try_from(self.width).unwrap_or(0)
    }

    /// Number of slots appended.
    pub fn len(&self) -> usize {
        self.nulls.len()
    }

    /// `true` when nothing was appended.
    pub fn is_empty(&self) -> bool {
        self.nulls.is_empty()
    }

    /// Makes room for `additional` more slots.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`], [`Error::CapacityOverflow`].
    pub fn try_reserve(&mut self, additional: usize) -> Result<()> {
        let bytes = additional
            .checked_mul(self.width())
            .ok_or(Error::CapacityOverflow)?;
        self.values.try_reserve(bytes)
    }

    /// Appends a valid value of exactly `width` bytes.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] when `value.len() != width`;
    /// [`Error::AllocationFailed`], [`Error::CapacityOverflow`].
    pub fn try_append_value(&mut self, value: &[u8]) -> Result<()> {
        if value.len() != self.width() {
            return Err(Error::LengthMismatch);
        }
        let before = self.values.len();
        self.values.try_extend_from_slice(value)?;
        if let Err(e) = self.nulls.try_append_non_null() {
            self.values.truncate(before);
            return Err(e);
        }
        Ok(())
    }

    /// Appends a null (`width` zero bytes).
    ///
    /// # Errors
    /// [`Error::AllocationFailed`], [`Error::CapacityOverflow`].
    pub fn try_append_null(&mut self) -> Result<()> {
        let before = self.values.len();
        self.values.try_extend_zeros(self.width())?;
        if let Err(e) = self.nulls.try_append_null() {
            self.values.truncate(before);
            return Err(e);
        }
        Ok(())
    }

    /// Appends `Some(v)` as a value, `None` as a null.
    ///
    /// # Errors
    /// As [`Self::try_append_value`].
    pub fn try_append_option(&mut self, value: Option<&[u8]>) -> Result<()> {
        match value {
            Some(v) => self.try_append_value(v),
            None => self.try_append_null(),
        }
    }

    /// Freezes into an array (no copy, no allocation).
    pub fn finish<'a>(self) -> FixedSizeBinaryArray<'a, A> {
        FixedSizeBinaryArray {
            data_type: DataType::FixedSizeBinary(self.width),
            width: self.width(),
            len: self.nulls.len(),
            values: self.values.into_buffer(),
            nulls: self.nulls.finish(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{check_every_failure, failing_at, FailMode};
    use crate::Global;
    use std::vec::Vec;

    #[test]
    fn build_layout_bytes() {
        let a = FixedSizeBinaryArray::try_from_iter_in(
            3,
            [Some(&b"abc"[..]), None, Some(b"xyz")],
            Global,
        )
        .unwrap();
        assert_eq!(a.len(), 3);
        assert_eq!(a.value_length(), 3);
        assert_eq!(a.data_type(), &DataType::FixedSizeBinary(3));
        assert_eq!(a.values().as_slice(), b"abc\0\0\0xyz");
        assert_eq!(a.values().as_ptr() as usize % 64, 0);
        assert_eq!(a.nulls().unwrap().inner().inner().as_slice(), &[0b101]);
        let got: Vec<_> = a.iter().collect();
        assert_eq!(got, [Some(&b"abc"[..]), None, Some(&b"xyz"[..])]);
        assert_eq!(a.value(1), Some(&b"\0\0\0"[..]));
        assert_eq!(a.value(3), None);
        assert!(matches!(a.into_array_ref(), ArrayRef::FixedSizeBinary(_)));
    }

    #[test]
    fn zero_copy_and_slice() {
        let data = *b"0123456789ab";
        let a = FixedSizeBinaryArray::<Global>::try_from_slice(4, &data).unwrap();
        assert_eq!(a.len(), 3);
        assert_eq!(a.values().as_ptr(), data.as_ptr());
        let s = a.slice(1, 2).unwrap();
        assert_eq!(s.value(0), Some(&b"4567"[..]));
        assert_eq!(s.value(1), Some(&b"89ab"[..]));
        assert_eq!(s.value(2), None);
        assert_eq!(s.values().as_ptr(), data[4..].as_ptr());
        assert_eq!(a.slice(2, 2).unwrap_err(), Error::OutOfBounds);
        assert_eq!(s.validate(ValidationLevel::Full), Ok(()));
    }

    #[test]
    fn zero_width() {
        let mut b = FixedSizeBinaryBuilder::try_new_in(0, Global).unwrap();
        b.try_append_value(&[]).unwrap();
        b.try_append_null().unwrap();
        let a = b.finish();
        assert_eq!(a.len(), 2);
        assert_eq!(a.get(0), Some(&[][..]));
        assert_eq!(a.get(1), None);
        assert_eq!(a.slice(1, 1).unwrap().null_count(), 1);
    }

    #[test]
    fn rule_buffer_too_small() {
        let r = FixedSizeBinaryArray::<Global>::try_new(
            DataType::FixedSizeBinary(4),
            3,
            Buffer::from_slice_ref(b"01234567890"),
            None,
        );
        assert_eq!(r.unwrap_err(), Error::BufferTooSmall);
        let r = FixedSizeBinaryArray::<Global>::try_new(
            DataType::FixedSizeBinary(i32::MAX),
            usize::MAX,
            Buffer::empty(),
            None,
        );
        assert_eq!(r.unwrap_err(), Error::BufferTooSmall);
    }

    #[test]
    fn rule_negative_width() {
        let r = FixedSizeBinaryArray::<Global>::try_new(
            DataType::FixedSizeBinary(-1),
            0,
            Buffer::empty(),
            None,
        );
        assert_eq!(r.unwrap_err(), Error::InvalidDataType);
        assert_eq!(
            FixedSizeBinaryBuilder::try_new_in(-3, Global).unwrap_err(),
            Error::InvalidDataType
        );
        assert_eq!(
            FixedSizeBinaryArray::<Global>::try_from_slice(-1, b"").unwrap_err(),
            Error::InvalidDataType
        );
    }

    #[test]
    fn rule_type_mismatch() {
        let r = FixedSizeBinaryArray::<Global>::try_new(DataType::Binary, 0, Buffer::empty(), None);
        assert_eq!(r.unwrap_err(), Error::TypeMismatch);
    }

    #[test]
    fn rule_validity_length() {
        let nulls = FixedSizeBinaryArray::try_from_iter_in(1, [None, Some(&b"a"[..])], Global)
            .unwrap()
            .nulls()
            .cloned();
        let r = FixedSizeBinaryArray::<Global>::try_new(
            DataType::FixedSizeBinary(1),
            3,
            Buffer::from_slice_ref(b"abc"),
            nulls,
        );
        assert_eq!(r.unwrap_err(), Error::ValidityTooSmall);
    }

    #[test]
    fn builder_rejects_wrong_width() {
        let mut b = FixedSizeBinaryBuilder::try_new_in(2, Global).unwrap();
        assert_eq!(b.try_append_value(b"abc"), Err(Error::LengthMismatch));
        assert!(b.is_empty());
    }

    #[test]
    fn builder_allocation_failures() {
        let n = check_every_failure(|alloc| {
            let mut b = FixedSizeBinaryBuilder::try_new_in(5, alloc)?;
            for i in 0..30u8 {
                b.try_append_option((i % 4 != 1).then_some(&[i; 5][..]))?;
            }
            let a = b.finish();
            a.validate(ValidationLevel::Full)?;
            Ok(a)
        });
        assert!(n > 0);
        let a = FixedSizeBinaryBuilder::try_new_in(5, failing_at(0, FailMode::From))
            .unwrap()
            .finish();
        assert!(a.is_empty());
    }
}
