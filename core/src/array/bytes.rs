//! Variable-size binary layout ("Variable-size Binary Layout"): Binary,
//! LargeBinary, Utf8 and LargeUtf8.
//!
//! An array of `len` slots has an offsets buffer of `len + 1` signed integers
//! (`i32`, or `i64` for the `Large` types), a data buffer of bytes and an
//! optional validity bitmap. Slot `j` holds the bytes
//! `values[offsets[j]..offsets[j + 1]]`. Offsets are non-decreasing even
//! across null slots; a null slot may still span bytes, whose content is then
//! unspecified. Slicing an array slices its offsets only: the data buffer is
//! shared untouched, so the first offset of a slice may be non-zero.

use core::fmt;
use core::marker::PhantomData;

use allocator_api2::alloc::Allocator;
use derive_where::derive_where;

use super::{check_slice, validate_nulls, Array, ArrayRef, ByteArrayNativeType, ValidationLevel};
use crate::buffer::{check_offsets, Buffer, NullBuffer, OffsetBuffer, OffsetSize, ScalarBuffer};
use crate::datatypes::DataType;
use crate::error::{Error, Result};

mod builder;

pub use builder::GenericByteBuilder;

mod sealed {
    pub trait Sealed {}
}

/// The four logical types of the variable-size binary layout, as marker types
/// ([`BinaryType`], [`LargeBinaryType`], [`Utf8Type`], [`LargeUtf8Type`]).
///
/// Sealed: the set of types is the one of the format.
pub trait ByteArrayType: sealed::Sealed + 'static + Send + Sync {
    /// Integer type of the offsets: `i32`, or `i64` for the `Large` types.
    type Offset: OffsetSize;
    /// What one slot holds: `[u8]` for the binary types, `str` for the UTF-8
    /// ones (whose every slot, null ones included, must be valid UTF-8).
    type Native: ?Sized + ByteArrayNativeType;
    /// Name of the array type, for `Debug`.
    const NAME: &'static str;

    /// `true` when arrays of this type can have logical type `dt`.
    fn fits<A: Allocator>(dt: &DataType<'_, A>) -> bool;
    /// The logical type of arrays of this type (e.g. [`DataType::Utf8`]).
    fn data_type<'a, A: Allocator>() -> DataType<'a, A>;
    /// Wraps a typed array.
    fn into_array_ref<'a, A: Allocator>(a: GenericByteArray<'a, Self, A>) -> ArrayRef<'a, A>
    where
        Self: Sized;
    /// The typed array inside `a`, if it holds this type.
    fn downcast<'b, 'a, A: Allocator>(
        a: &'b ArrayRef<'a, A>,
    ) -> Option<&'b GenericByteArray<'a, Self, A>>
    where
        Self: Sized;
}

macro_rules! byte_array_type {
    ($(#[$doc:meta])* $name:ident, $offset:ty, $native:ty, $variant:ident, $array:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
        pub struct $name;
        impl sealed::Sealed for $name {}
        impl ByteArrayType for $name {
            type Offset = $offset;
            type Native = $native;
            const NAME: &'static str = $array;
            #[inline]
            fn fits<A: Allocator>(dt: &DataType<'_, A>) -> bool {
                matches!(dt, DataType::$variant)
            }
            fn data_type<'a, A: Allocator>() -> DataType<'a, A> {
                DataType::$variant
            }
            fn into_array_ref<'a, A: Allocator>(
                a: GenericByteArray<'a, Self, A>,
            ) -> ArrayRef<'a, A> {
                ArrayRef::$variant(a)
            }
            fn downcast<'b, 'a, A: Allocator>(
                a: &'b ArrayRef<'a, A>,
            ) -> Option<&'b GenericByteArray<'a, Self, A>> {
                match a {
                    ArrayRef::$variant(x) => Some(x),
                    _ => None,
                }
            }
        }
    };
}

byte_array_type!(
    /// Binary: byte strings with `i32` offsets.
    BinaryType, i32, [u8], Binary, "BinaryArray"
);
byte_array_type!(
    /// LargeBinary: byte strings with `i64` offsets.
    LargeBinaryType, i64, [u8], LargeBinary, "LargeBinaryArray"
);
byte_array_type!(
    /// Utf8: UTF-8 strings with `i32` offsets.
    Utf8Type, i32, str, Utf8, "StringArray"
);
byte_array_type!(
    /// LargeUtf8: UTF-8 strings with `i64` offsets.
    LargeUtf8Type, i64, str, LargeUtf8, "LargeStringArray"
);

/// Binary array (`i32` offsets).
pub type BinaryArray<
    'a,
    #[cfg(feature = "alloc")] A = crate::Global,
    #[cfg(not(feature = "alloc"))] A,
> = GenericByteArray<'a, BinaryType, A>;
/// LargeBinary array (`i64` offsets).
pub type LargeBinaryArray<
    'a,
    #[cfg(feature = "alloc")] A = crate::Global,
    #[cfg(not(feature = "alloc"))] A,
> = GenericByteArray<'a, LargeBinaryType, A>;
/// Utf8 array (`i32` offsets).
pub type StringArray<
    'a,
    #[cfg(feature = "alloc")] A = crate::Global,
    #[cfg(not(feature = "alloc"))] A,
> = GenericByteArray<'a, Utf8Type, A>;
/// LargeUtf8 array (`i64` offsets).
pub type LargeStringArray<
    'a,
    #[cfg(feature = "alloc")] A = crate::Global,
    #[cfg(not(feature = "alloc"))] A,
> = GenericByteArray<'a, LargeUtf8Type, A>;
/// Builder of [`BinaryArray`].
pub type BinaryBuilder<
    #[cfg(feature = "alloc")] A = crate::Global,
    #[cfg(not(feature = "alloc"))] A,
> = GenericByteBuilder<BinaryType, A>;
/// Builder of [`LargeBinaryArray`].
pub type LargeBinaryBuilder<
    #[cfg(feature = "alloc")] A = crate::Global,
    #[cfg(not(feature = "alloc"))] A,
> = GenericByteBuilder<LargeBinaryType, A>;
/// Builder of [`StringArray`].
pub type StringBuilder<
    #[cfg(feature = "alloc")] A = crate::Global,
    #[cfg(not(feature = "alloc"))] A,
> = GenericByteBuilder<Utf8Type, A>;
/// Builder of [`LargeStringArray`].
pub type LargeStringBuilder<
    #[cfg(feature = "alloc")] A = crate::Global,
    #[cfg(not(feature = "alloc"))] A,
> = GenericByteBuilder<LargeUtf8Type, A>;

/// Checks that `values[offsets[0]..offsets[last]]` is UTF-8 and that every
/// offset lands on a character boundary, so that every slot is UTF-8.
///
/// ASCII ranges (the common case) need one `is_ascii` pass and nothing
/// else: every byte is a character boundary. Otherwise one `from_utf8` over
/// the whole range, then an O(1) boundary test per offset. Expects offsets
/// already checked (in bounds, non-decreasing): the ASCII shortcut relies on
/// every offset lying between the first and the last.
///
/// # Errors
/// [`Error::InvalidUtf8`] (with the byte offset in `values` of the first
/// invalid byte or of the offset that splits a character);
/// [`Error::OffsetOutOfBounds`] for offsets that were not checked.
pub(crate) fn check_utf8_offsets<O: OffsetSize>(values: &[u8], offsets: &[O]) -> Result<()> {
    let (Some(first), Some(last)) = (offsets.first(), offsets.last()) else {
        return Ok(());
    };
    let start = first.to_usize().ok_or(Error::OffsetOutOfBounds)?;
    let end = last.to_usize().ok_or(Error::OffsetOutOfBounds)?;
    let bytes = values.get(start..end).ok_or(Error::OffsetOutOfBounds)?;
    if bytes.is_ascii() {
        return Ok(());
    }
    let s = core::str::from_utf8(bytes)
        .map_err(|e| Error::InvalidUtf8.with_offset(start.saturating_add(e.valid_up_to())))?;
    for o in offsets {
        let at = o
            .to_usize()
            .and_then(|o| o.checked_sub(start))
            .ok_or(Error::OffsetOutOfBounds)?;
        if !s.is_char_boundary(at) {
            return Err(Error::InvalidUtf8.with_offset(start.saturating_add(at)));
        }
    }
    Ok(())
}

/// An array of variable-size byte strings (Binary, LargeBinary) or UTF-8
/// strings (Utf8, LargeUtf8): "Variable-size Binary Layout".
///
/// `len` slots, `len + 1` offsets (in bytes into [`Self::values`]), an
/// optional validity bitmap. For the UTF-8 types every slot, null ones
/// included, is valid UTF-8 (checked by [`Self::try_new`]).
///
/// The aliases are [`StringArray`] (Utf8, `i32` offsets),
/// [`LargeStringArray`] (LargeUtf8, `i64`), [`BinaryArray`] and
/// [`LargeBinaryArray`].
///
/// ```
/// use alkaid::array::{Array, StringArray};
///
/// let a = StringArray::from(vec![Some("héllo"), None, Some(""), Some("wörld")]);
/// assert_eq!((a.len(), a.null_count()), (4, 1));
/// assert_eq!(a.get(0), Some("héllo"));
/// assert_eq!(a.get(1), None);
/// assert_eq!(a.value(2), Some("")); // valid and empty, unlike slot 1
/// // Offsets are in bytes: "héllo" is 6 bytes of UTF-8.
/// assert_eq!(a.value_offsets(), &[0, 6, 6, 6, 12]);
/// assert_eq!(a.value_length(3), Some(6));
/// # Ok::<(), alkaid::Error>(())
/// ```
///
/// From buffers (zero copy over caller memory), checked by `try_new`:
///
/// ```
/// use alkaid::array::{Array, BinaryArray, StringArray};
/// use alkaid::buffer::{Buffer, ScalarBuffer};
/// use alkaid::Global;
///
/// let offsets: [i32; 3] = [0, 2, 5];
/// // (a type annotation picks the default allocator: defaults do not
/// // drive inference in expressions)
/// let b: BinaryArray = BinaryArray::try_new(
///     ScalarBuffer::from_slice_ref(&offsets),
///     Buffer::from_slice_ref(b"\x00\x01abc"),
///     None,
/// )?;
/// assert_eq!(b.value(1), Some(&b"abc"[..]));
///
/// // The same bytes with an invalid UTF-8 slot are refused as Utf8.
/// let bad = StringArray::<Global>::try_new(
///     ScalarBuffer::from_slice_ref(&offsets),
///     Buffer::from_slice_ref(b"\xff\x01abc"),
///     None,
/// );
/// assert!(bad.is_err()); // Error::InvalidUtf8
/// # Ok::<(), alkaid::Error>(())
/// ```
#[derive_where(Clone)]
pub struct GenericByteArray<
    'a,
    T: ByteArrayType,
    #[cfg(feature = "alloc")] A: Allocator = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator,
> {
    data_type: DataType<'a, A>,
    offsets: ScalarBuffer<'a, T::Offset, A>,
    values: Buffer<'a, A>,
    nulls: Option<NullBuffer<'a, A>>,
    _t: PhantomData<T>,
}

impl<'a, T: ByteArrayType, A: Allocator> GenericByteArray<'a, T, A> {
    /// An array over `offsets` (`len + 1` of them, the array's length is
    /// `offsets.len() - 1`), the data bytes `values` and an optional validity
    /// bitmap of `len` bits. Validates at [`ValidationLevel::Full`].
    ///
    /// The offsets may start above zero (a slice of a larger array).
    ///
    /// # Errors
    /// [`Error::OffsetsLength`] when `offsets` is empty;
    /// [`Error::OffsetOutOfBounds`] when an offset is negative or beyond
    /// `values.len()`; [`Error::OffsetsNotMonotonic`];
    /// [`Error::InvalidUtf8`] (UTF-8 types) when a slot is not UTF-8 or an
    /// offset splits a character; [`Error::ValidityTooSmall`] when the
    /// bitmap's length is not `len`; [`Error::NullCountMismatch`].
    pub fn try_new(
        offsets: ScalarBuffer<'a, T::Offset, A>,
        values: Buffer<'a, A>,
        nulls: Option<NullBuffer<'a, A>>,
    ) -> Result<Self> {
        let a = GenericByteArray {
            data_type: T::data_type(),
            offsets,
            values,
            nulls,
            _t: PhantomData,
        };
        a.validate(ValidationLevel::Full)?;
        Ok(a)
    }

    /// As [`Self::try_new`] without any check.
    ///
    /// # Safety
    /// The array must pass [`Array::validate`] at [`ValidationLevel::Full`]:
    /// in particular, for the UTF-8 types every slot must be valid UTF-8,
    /// which [`Self::value`] relies on to return `&str` without re-checking.
    pub unsafe fn new_unchecked(
        offsets: ScalarBuffer<'a, T::Offset, A>,
        values: Buffer<'a, A>,
        nulls: Option<NullBuffer<'a, A>>,
    ) -> Self {
        GenericByteArray {
            data_type: T::data_type(),
            offsets,
            values,
            nulls,
            _t: PhantomData,
        }
    }

    /// An empty array (no allocation).
    pub fn new_empty() -> Self {
        GenericByteArray {
            data_type: T::data_type(),
            offsets: OffsetBuffer::new_empty().into_inner(),
            values: Buffer::empty(),
            nulls: None,
            _t: PhantomData,
        }
    }

    /// Copies the items of `iter` (`None` = null) into memory from `alloc`.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`], [`Error::CapacityOverflow`] (more value
    /// bytes than the offset type can address).
    pub fn try_from_iter_in<'v, I>(iter: I, alloc: A) -> Result<Self>
    where
        I: IntoIterator<Item = Option<&'v T::Native>>,
        T::Native: 'v,
        A: Clone,
    {
        let mut b = GenericByteBuilder::<T, A>::new_in(alloc);
        for v in iter {
            b.try_append_option(v)?;
        }
        Ok(b.finish())
    }

    /// Copies `values` (`None` = null) into memory from `alloc`.
    ///
    /// # Errors
    /// As [`Self::try_from_iter_in`].
    pub fn try_from_options_in(values: &[Option<&T::Native>], alloc: A) -> Result<Self>
    where
        A: Clone,
    {
        Self::try_from_iter_in(values.iter().copied(), alloc)
    }

    /// The byte range of slot `i` in [`Self::values`], or `None` when `i >= len`.
    #[inline]
    pub fn value_range(&self, i: usize) -> Option<core::ops::Range<usize>> {
        let start = self.offsets.get(i)?.to_usize()?;
        let end = self.offsets.get(i.checked_add(1)?)?.to_usize()?;
        (start <= end).then_some(start..end)
    }

    /// Length in bytes of slot `i`, or `None` when `i >= len`.
    #[inline]
    pub fn value_length(&self, i: usize) -> Option<usize> {
        self.value_range(i).map(|r| r.len())
    }

    /// The bytes of slot `i` whatever its validity, or `None` when `i >= len`.
    #[inline]
    pub fn value_bytes(&self, i: usize) -> Option<&[u8]> {
        self.values.as_slice().get(self.value_range(i)?)
    }

    /// The value of slot `i` whatever its validity (a null slot gives its
    /// unspecified, often empty, content), or `None` when `i >= len`.
    #[inline]
    pub fn value(&self, i: usize) -> Option<&T::Native> {
        let bytes = self.value_bytes(i)?;
        // SAFETY: every way to build a `GenericByteArray` from safe code
        // (`try_new`, builders, `slice` of such an array) has validated at
        // Full level, which for UTF-8 types checked that every offset lies on
        // a character boundary of UTF-8 data, so every slot is UTF-8;
        // `new_unchecked` makes its caller promise the same.
        Some(unsafe { T::Native::from_bytes_unchecked(bytes) })
    }

    /// `Some(value)` for a valid slot, `None` for a null or missing one.
    #[inline]
    pub fn get(&self, i: usize) -> Option<&T::Native> {
        if self.is_valid(i) {
            self.value(i)
        } else {
            None
        }
    }

    /// Iterates the slots as options (`None` for nulls).
    pub fn iter(&self) -> impl Iterator<Item = Option<&T::Native>> + '_ {
        (0..self.len()).map(move |i| self.get(i))
    }

    /// The `len + 1` offsets of this view of the array (in bytes; the first
    /// may be non-zero after slicing).
    #[inline]
    pub fn value_offsets(&self) -> &[T::Offset] {
        &self.offsets
    }

    /// The offsets buffer.
    pub fn offsets(&self) -> &ScalarBuffer<'a, T::Offset, A> {
        &self.offsets
    }

    /// The whole data buffer, shared with every slice of this array (bytes
    /// outside `value_offsets()[0]..value_offsets()[len]` belong to other slots).
    pub fn values(&self) -> &Buffer<'a, A> {
        &self.values
    }

    /// Splits into offsets, data and bitmap.
    #[allow(clippy::type_complexity)]
    pub fn into_parts(
        self,
    ) -> (
        ScalarBuffer<'a, T::Offset, A>,
        Buffer<'a, A>,
        Option<NullBuffer<'a, A>>,
    ) {
        (self.offsets, self.values, self.nulls)
    }
}

impl<'a, T: ByteArrayType, A: Allocator> Array<'a, A> for GenericByteArray<'a, T, A> {
    fn data_type(&self) -> &DataType<'a, A> {
        &self.data_type
    }

    fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    fn nulls(&self) -> Option<&NullBuffer<'a, A>> {
        self.nulls.as_ref()
    }

    fn slice(&self, offset: usize, len: usize) -> Result<Self> {
        check_slice(offset, len, self.len())?;
        Ok(GenericByteArray {
            data_type: self.data_type.clone(),
            offsets: self
                .offsets
                .slice(offset, len.checked_add(1).ok_or(Error::OutOfBounds)?)?,
            values: self.values.clone(),
            nulls: crate::buffer::slice_nulls(self.nulls.as_ref(), offset, len)?,
            _t: PhantomData,
        })
    }

    /// Cheap: the data type, `len + 1 >= 1` offsets, the first and last
    /// offsets within the data, the bitmap's length. Full: also every offset
    /// non-decreasing, the null count, and UTF-8 of every slot (null ones
    /// included) for Utf8 / LargeUtf8.
    fn validate(&self, level: ValidationLevel) -> Result<()> {
        if level == ValidationLevel::None {
            return Ok(());
        }
        if !T::fits(&self.data_type) {
            return Err(Error::TypeMismatch);
        }
        let full = level >= ValidationLevel::Full;
        let len = self.len();
        check_offsets(&self.offsets, len, self.values.len(), full)?;
        validate_nulls(self.nulls.as_ref(), len, level)?;
        if full && T::Native::IS_UTF8 {
            check_utf8_offsets(&self.values, &self.offsets)?;
        }
        Ok(())
    }

    fn into_array_ref(self) -> ArrayRef<'a, A> {
        T::into_array_ref(self)
    }
}

impl<T: ByteArrayType, A: Allocator> fmt::Debug for GenericByteArray<'_, T, A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ", T::NAME)?;
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Global;
    use std::vec::Vec;

    fn spec_example() -> BinaryArray<'static, Global> {
        BinaryArray::try_from_options_in(&[Some(b"joe"), None, None, Some(b"mark")], Global)
            .unwrap()
    }

    /// "Example Layout: VarBinary" `['joe', null, null, 'mark']`, byte for byte.
    #[test]
    fn spec_example_var_binary() {
        let a = spec_example();
        assert_eq!(a.len(), 4);
        assert_eq!(a.null_count(), 2);
        assert_eq!(
            a.nulls().unwrap().inner().inner().as_slice(),
            &[0b0000_1001]
        );
        assert_eq!(a.value_offsets(), &[0, 3, 3, 3, 7]);
        let mut off = Vec::new();
        for o in [0i32, 3, 3, 3, 7] {
            off.extend_from_slice(&o.to_ne_bytes());
        }
        assert_eq!(a.offsets().inner().as_slice(), &off[..]);
        assert_eq!(a.values().as_slice(), b"joemark");
        assert_eq!(a.offsets().inner().as_ptr() as usize % 64, 0);
        assert_eq!(a.values().as_ptr() as usize % 64, 0);
        let got: Vec<_> = a.iter().collect();
        assert_eq!(got, [Some(&b"joe"[..]), None, None, Some(&b"mark"[..])]);
        assert_eq!(a.value(1), Some(&b""[..]));
        assert_eq!(a.value(4), None);
        assert!(matches!(a.clone().into_array_ref(), ArrayRef::Binary(_)));
        assert_eq!(a.validate(ValidationLevel::Full), Ok(()));
    }

    /// The same example as borrowed caller memory, through `try_new`.
    #[test]
    fn zero_copy_try_new() {
        let offsets = [0i64, 3, 3, 3, 7];
        let a = LargeStringArray::<Global>::try_new(
            ScalarBuffer::from_slice_ref(&offsets),
            Buffer::from_slice_ref(b"joemark"),
            None,
        )
        .unwrap();
        assert_eq!(a.value_offsets().as_ptr(), offsets.as_ptr());
        let got: Vec<_> = a.iter().collect();
        assert_eq!(got, [Some("joe"), Some(""), Some(""), Some("mark")]);
        let r = LargeStringArray::<Global>::try_new(
            ScalarBuffer::from_slice_ref(&offsets),
            Buffer::from_slice_ref(b"joemar"),
            None,
        );
        assert_eq!(r.unwrap_err(), Error::OffsetOutOfBounds);
    }

    #[test]
    fn slice_keeps_values() {
        let a =
            StringArray::try_from_options_in(&[Some("joe"), None, Some("ü"), Some("mark")], Global)
                .unwrap();
        let s = a.slice(2, 2).unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(s.value_offsets(), &[3, 5, 9]);
        assert_eq!(s.values().as_ptr(), a.values().as_ptr());
        assert_eq!(s.values().len(), a.values().len());
        assert_eq!(s.get(0), Some("ü"));
        assert_eq!(s.get(1), Some("mark"));
        assert_eq!(s.null_count(), 0);
        assert_eq!(s.validate(ValidationLevel::Full), Ok(()));
        let t = a.slice(1, 1).unwrap();
        assert_eq!(t.null_count(), 1);
        assert_eq!(t.get(0), None);
        assert_eq!(a.slice(3, 2).unwrap_err(), Error::OutOfBounds);
        assert!(StringArray::<Global>::new_empty().is_empty());
    }

    #[test]
    fn downcast_roundtrip() {
        let r = spec_example().into_array_ref();
        assert!(BinaryType::downcast(&r).is_some());
        assert!(Utf8Type::downcast(&r).is_none());
        assert_eq!(
            BinaryType::downcast(&r).unwrap().value(3),
            Some(&b"mark"[..])
        );
    }

    fn bin(offsets: &'static [i32], values: &'static [u8]) -> Result<BinaryArray<'static, Global>> {
        BinaryArray::try_new(
            ScalarBuffer::from_slice_ref(offsets),
            Buffer::from_slice_ref(values),
            None,
        )
    }

    #[test]
    fn rule_offsets_length() {
        assert_eq!(bin(&[], b"").unwrap_err(), Error::OffsetsLength);
        assert_eq!(bin(&[0], b"").map(|a| a.len()), Ok(0));
    }

    #[test]
    fn rule_offset_out_of_bounds() {
        assert_eq!(
            bin(&[0, 3, 8], b"joemark").unwrap_err(),
            Error::OffsetOutOfBounds
        );
        assert_eq!(
            bin(&[-1, 3, 7], b"joemark").unwrap_err(),
            Error::OffsetOutOfBounds
        );
        // Cheap checks the two ends too.
        // SAFETY: only validated below, never read.
        let a = unsafe {
            BinaryArray::<Global>::new_unchecked(
                ScalarBuffer::from_slice_ref(&[0, 8]),
                Buffer::from_slice_ref(b"joemark"),
                None,
            )
        };
        assert_eq!(
            a.validate(ValidationLevel::Cheap),
            Err(Error::OffsetOutOfBounds)
        );
        assert_eq!(a.value(0), None);
    }

    #[test]
    fn rule_offsets_not_monotonic() {
        assert_eq!(
            bin(&[0, 4, 3, 7], b"joemark").unwrap_err(),
            Error::OffsetsNotMonotonic
        );
        // SAFETY: only validated below and read through checked accessors.
        let a = unsafe {
            BinaryArray::<Global>::new_unchecked(
                ScalarBuffer::from_slice_ref(&[0, 4, 3, 7]),
                Buffer::from_slice_ref(b"joemark"),
                None,
            )
        };
        // Cheap only looks at the ends.
        assert_eq!(a.validate(ValidationLevel::Cheap), Ok(()));
        assert_eq!(a.value(1), None);
    }

    #[test]
    fn rule_validity_length() {
        let nulls = spec_example().nulls().cloned();
        let r = BinaryArray::try_new(
            ScalarBuffer::from_slice_ref(&[0, 3, 7]),
            Buffer::from_slice_ref(b"joemark"),
            nulls,
        );
        assert_eq!(r.unwrap_err(), Error::ValidityTooSmall);
    }

    #[test]
    fn rule_null_count() {
        let bits = spec_example().nulls().unwrap().inner().clone();
        // SAFETY: deliberately wrong count, only validated.
        let nulls = unsafe { NullBuffer::new_unchecked(bits, 1) };
        let r = BinaryArray::try_new(
            ScalarBuffer::from_slice_ref(&[0, 3, 3, 3, 7]),
            Buffer::from_slice_ref(b"joemark"),
            Some(nulls),
        );
        assert_eq!(r.unwrap_err(), Error::NullCountMismatch);
    }

    #[test]
    fn rule_invalid_utf8() {
        let s = |o: &'static [i32], v: &'static [u8]| {
            StringArray::<Global>::try_new(
                ScalarBuffer::from_slice_ref(o),
                Buffer::from_slice_ref(v),
                None,
            )
        };
        // Invalid bytes.
        assert_eq!(
            s(&[0, 2, 4], b"ab\xff\xfe").unwrap_err(),
            Error::InvalidUtf8
        );
        // Valid data, but an offset splits "ü" (0xC3 0xBC).
        assert_eq!(
            s(&[0, 1, 2], "ü".as_bytes()).unwrap_err(),
            Error::InvalidUtf8
        );
        // Invalid bytes in a null slot are still refused.
        let nulls = StringArray::try_from_options_in(&[Some("a"), None], Global)
            .unwrap()
            .nulls()
            .cloned();
        let r = StringArray::<Global>::try_new(
            ScalarBuffer::from_slice_ref(&[0, 1, 2]),
            Buffer::from_slice_ref(b"a\xff"),
            nulls,
        );
        assert_eq!(r.unwrap_err(), Error::InvalidUtf8);
        // Bytes outside the array's range are not checked.
        let ok = s(&[1, 2], b"\xffa").unwrap();
        assert_eq!(ok.value(0), Some("a"));
        // The same bytes are fine as Binary.
        assert!(bin(&[0, 2, 4], b"ab\xff\xfe").is_ok());
        // Cheap does not read the data.
        // SAFETY: only validated, never read.
        let a = unsafe {
            StringArray::<Global>::new_unchecked(
                ScalarBuffer::from_slice_ref(&[0, 1]),
                Buffer::from_slice_ref(b"\xff"),
                None,
            )
        };
        assert_eq!(a.validate(ValidationLevel::Cheap), Ok(()));
        assert_eq!(a.validate(ValidationLevel::Full), Err(Error::InvalidUtf8));
    }
}
