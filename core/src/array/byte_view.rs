//! Variable-size binary view layout ("Variable-size Binary View Layout"):
//! BinaryView and Utf8View.
//!
//! An array of `len` slots has a views buffer of `len` 16-byte [`ByteView`]s,
//! any number of variadic data buffers, and an optional validity bitmap. A
//! view of a value of at most 12 bytes holds it inline (zero padded); a longer
//! value is referenced by (buffer index, offset) with a copy of its first four
//! bytes as prefix. Views may point anywhere, in any order, into any buffer.
//!
//! Views are read from bytes rather than as `u128`: the 32-bit fields are
//! native-endian integers at byte offsets 0, 4, 8 and 12 while the inline
//! data and prefix are raw bytes, and 16-byte views need no more than byte
//! alignment (an IPC body only guarantees 8).

use core::fmt;
use core::marker::PhantomData;

use allocator_api2::alloc::Allocator;
use derive_where::derive_where;

use super::{check_slice, validate_nulls, Array, ArrayRef, ByteArrayNativeType, ValidationLevel};
use crate::buffer::{Buffer, NullBuffer, SharedSlice};
use crate::datatypes::DataType;
use crate::error::{Error, Result};

mod builder;
mod view;

pub use builder::GenericByteViewBuilder;
pub use view::ByteView;

mod sealed {
    pub trait Sealed {}
}

/// The two logical types of the view layout, as marker types
/// ([`BinaryViewType`], [`StringViewType`]). Sealed.
pub trait ByteViewType: sealed::Sealed + 'static + Send + Sync {
    /// What one slot holds: `[u8]` for BinaryView, `str` for Utf8View (whose
    /// every view's value must be valid UTF-8).
    type Native: ?Sized + ByteArrayNativeType;
    /// Name of the array type, for `Debug`.
    const NAME: &'static str;

    /// `true` when arrays of this type can have logical type `dt`.
    fn fits<A: Allocator>(dt: &DataType<'_, A>) -> bool;
    /// The logical type of arrays of this type (e.g. [`DataType::Utf8View`]).
    fn data_type<'a, A: Allocator>() -> DataType<'a, A>;
    /// Wraps a typed array.
    fn into_array_ref<'a, A: Allocator>(a: GenericByteViewArray<'a, Self, A>) -> ArrayRef<'a, A>
    where
        Self: Sized;
    /// The typed array inside `a`, if it holds this type.
    fn downcast<'b, 'a, A: Allocator>(
        a: &'b ArrayRef<'a, A>,
    ) -> Option<&'b GenericByteViewArray<'a, Self, A>>
    where
        Self: Sized;
}

macro_rules! byte_view_type {
    ($(#[$doc:meta])* $name:ident, $native:ty, $variant:ident, $array:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
        pub struct $name;
        impl sealed::Sealed for $name {}
        impl ByteViewType for $name {
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
                a: GenericByteViewArray<'a, Self, A>,
            ) -> ArrayRef<'a, A> {
                ArrayRef::$variant(a)
            }
            fn downcast<'b, 'a, A: Allocator>(
                a: &'b ArrayRef<'a, A>,
            ) -> Option<&'b GenericByteViewArray<'a, Self, A>> {
                match a {
                    ArrayRef::$variant(x) => Some(x),
                    _ => None,
                }
            }
        }
    };
}

byte_view_type!(
    /// BinaryView: byte strings as views.
    BinaryViewType, [u8], BinaryView, "BinaryViewArray"
);
byte_view_type!(
    /// Utf8View: UTF-8 strings as views.
    StringViewType, str, Utf8View, "StringViewArray"
);

/// BinaryView array.
pub type BinaryViewArray<
    'a,
    #[cfg(feature = "alloc")] A = crate::Global,
    #[cfg(not(feature = "alloc"))] A,
> = GenericByteViewArray<'a, BinaryViewType, A>;
/// Utf8View array.
pub type StringViewArray<
    'a,
    #[cfg(feature = "alloc")] A = crate::Global,
    #[cfg(not(feature = "alloc"))] A,
> = GenericByteViewArray<'a, StringViewType, A>;
/// Builder of [`BinaryViewArray`].
pub type BinaryViewBuilder<
    #[cfg(feature = "alloc")] A = crate::Global,
    #[cfg(not(feature = "alloc"))] A,
> = GenericByteViewBuilder<BinaryViewType, A>;
/// Builder of [`StringViewArray`].
pub type StringViewBuilder<
    #[cfg(feature = "alloc")] A = crate::Global,
    #[cfg(not(feature = "alloc"))] A,
> = GenericByteViewBuilder<StringViewType, A>;

/// An array of byte strings (BinaryView) or UTF-8 strings (Utf8View) as
/// views: "Variable-size Binary View Layout".
///
/// `len` views of 16 bytes each (the views buffer holds exactly `16 * len`
/// bytes), the variadic data buffers the views refer to by index, and an
/// optional validity bitmap. Once validated, every view (null slots
/// included) is valid: in bounds, correct prefix, UTF-8 for Utf8View.
///
/// A value of at most 12 bytes is stored inline in its view; a longer one
/// is referenced by (buffer index, offset) with its first 4 bytes as a
/// prefix in the view.
///
/// ```
/// use alkaid::array::{Array, StringViewArray};
///
/// let a = StringViewArray::from(vec![Some("inline"), None, Some("longer than twelve bytes")]);
/// assert_eq!((a.len(), a.null_count()), (3, 1));
/// assert_eq!(a.get(2), Some("longer than twelve bytes"));
///
/// let short = a.view(0).expect("slot 0");
/// assert!(short.is_inline() && short.length() == 6);
/// let long = a.view(2).expect("slot 2");
/// assert!(!long.is_inline());
/// assert_eq!(&long.prefix(), b"long");
/// assert_eq!((long.buffer_index(), long.offset()), (0, 0));
/// assert_eq!(a.data_buffers().len(), 1); // one variadic data buffer
/// assert_eq!(a.views_buffer().len(), 3 * 16); // 16 bytes per view
/// # Ok::<(), alkaid::Error>(())
/// ```
#[derive_where(Clone)]
pub struct GenericByteViewArray<
    'a,
    T: ByteViewType,
    #[cfg(feature = "alloc")] A: Allocator = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator,
> {
    data_type: DataType<'a, A>,
    views: Buffer<'a, A>,
    buffers: SharedSlice<'a, Buffer<'a, A>, A>,
    nulls: Option<NullBuffer<'a, A>>,
    _t: PhantomData<T>,
}

impl<'a, T: ByteViewType, A: Allocator> GenericByteViewArray<'a, T, A> {
    /// An array over `views` (`16 * len` bytes of [`ByteView`]s), the data
    /// buffers they refer to, and an optional validity bitmap of `len` bits.
    /// Validates at [`ValidationLevel::Full`].
    ///
    /// # Errors
    /// [`Error::BufferLengthNotMultiple`] when `views.len()` is not a
    /// multiple of 16; per view (null slots included):
    /// [`Error::ViewLengthNegative`], [`Error::ViewInlinePaddingNotZero`],
    /// [`Error::ViewBufferIndexOutOfBounds`], [`Error::ViewOffsetOutOfBounds`],
    /// [`Error::ViewPrefixMismatch`], [`Error::InvalidUtf8`] (Utf8View);
    /// [`Error::ValidityTooSmall`], [`Error::NullCountMismatch`].
    pub fn try_new(
        views: Buffer<'a, A>,
        buffers: SharedSlice<'a, Buffer<'a, A>, A>,
        nulls: Option<NullBuffer<'a, A>>,
    ) -> Result<Self> {
        let a = GenericByteViewArray {
            data_type: T::data_type(),
            views,
            buffers,
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
    /// in particular, for Utf8View every view's value must be valid UTF-8,
    /// which [`Self::value`] relies on to return `&str` without re-checking.
    pub unsafe fn new_unchecked(
        views: Buffer<'a, A>,
        buffers: SharedSlice<'a, Buffer<'a, A>, A>,
        nulls: Option<NullBuffer<'a, A>>,
    ) -> Self {
        GenericByteViewArray {
            data_type: T::data_type(),
            views,
            buffers,
            nulls,
            _t: PhantomData,
        }
    }

    /// An empty array (no allocation).
    pub fn new_empty() -> Self {
        GenericByteViewArray {
            data_type: T::data_type(),
            views: Buffer::empty(),
            buffers: SharedSlice::empty(),
            nulls: None,
            _t: PhantomData,
        }
    }

    /// Copies the items of `iter` (`None` = null) into memory from `alloc`
    /// (see [`GenericByteViewBuilder`]).
    ///
    /// # Errors
    /// [`Error::AllocationFailed`], [`Error::CapacityOverflow`].
    pub fn try_from_iter_in<'v, I>(iter: I, alloc: A) -> Result<Self>
    where
        I: IntoIterator<Item = Option<&'v T::Native>>,
        T::Native: 'v,
        A: Clone,
    {
        let mut b = GenericByteViewBuilder::<T, A>::new_in(alloc);
        for v in iter {
            b.try_append_option(v)?;
        }
        b.finish()
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

    /// The views of this array (`len` of them).
    #[inline]
    pub fn views(&self) -> &[ByteView] {
        let bytes = self.views.as_slice();
        let whole = bytes.len() - bytes.len() % ByteView::SIZE;
        // `ByteView` is 16 bytes of alignment 1 and `whole` a multiple of 16:
        // the cast cannot fail.
        bytemuck::try_cast_slice(bytes.get(..whole).unwrap_or(&[])).unwrap_or(&[])
    }

    /// The view of slot `i`, or `None` when `i >= len`.
    #[inline]
    pub fn view(&self, i: usize) -> Option<ByteView> {
        self.views().get(i).copied()
    }

    /// The views buffer (`16 * len` bytes).
    pub fn views_buffer(&self) -> &Buffer<'a, A> {
        &self.views
    }

    /// The variadic data buffers (index `k` is buffer index `k` of the views).
    pub fn data_buffers(&self) -> &SharedSlice<'a, Buffer<'a, A>, A> {
        &self.buffers
    }

    /// The bytes of slot `i` whatever its validity, or `None` when `i >= len`
    /// (or its view is invalid, which a validated array never has).
    #[inline]
    pub fn value_bytes(&self, i: usize) -> Option<&[u8]> {
        let view = self.views().get(i)?;
        if let Some(d) = view.inline_data() {
            return Some(d);
        }
        let len = usize::try_from(view.length()).ok()?;
        let buffer = self
            .buffers
            .get(usize::try_from(view.buffer_index()).ok()?)?;
        let start = usize::try_from(view.offset()).ok()?;
        buffer.as_slice().get(start..start.checked_add(len)?)
    }

    /// The value of slot `i` whatever its validity, or `None` when `i >= len`.
    #[inline]
    pub fn value(&self, i: usize) -> Option<&T::Native> {
        let bytes = self.value_bytes(i)?;
        // SAFETY: arrays built from safe code (`try_new`, the builder,
        // `slice` of such an array) have every view, null slots included,
        // validated at Full level, which for Utf8View checked the UTF-8 of
        // each view's value; `new_unchecked` makes its caller promise the same.
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

    /// Splits into views, data buffers and bitmap.
    #[allow(clippy::type_complexity)]
    pub fn into_parts(
        self,
    ) -> (
        Buffer<'a, A>,
        SharedSlice<'a, Buffer<'a, A>, A>,
        Option<NullBuffer<'a, A>>,
    ) {
        (self.views, self.buffers, self.nulls)
    }
}

impl<'a, T: ByteViewType, A: Allocator> Array<'a, A> for GenericByteViewArray<'a, T, A> {
    fn data_type(&self) -> &DataType<'a, A> {
        &self.data_type
    }

    fn len(&self) -> usize {
        self.views.len() / ByteView::SIZE
    }

    fn nulls(&self) -> Option<&NullBuffer<'a, A>> {
        self.nulls.as_ref()
    }

    /// Slices the views; the data buffers are shared untouched.
    fn slice(&self, offset: usize, len: usize) -> Result<Self> {
        check_slice(offset, len, self.len())?;
        let start = offset
            .checked_mul(ByteView::SIZE)
            .ok_or(Error::OutOfBounds)?;
        let bytes = len.checked_mul(ByteView::SIZE).ok_or(Error::OutOfBounds)?;
        Ok(GenericByteViewArray {
            data_type: self.data_type.clone(),
            views: self.views.slice(start, bytes)?,
            buffers: self.buffers.clone(),
            nulls: crate::buffer::slice_nulls(self.nulls.as_ref(), offset, len)?,
            _t: PhantomData,
        })
    }

    /// Cheap: the data type, the views buffer a whole number of views, the
    /// bitmap's length. Full: also the null count and every view, null slots
    /// included (so that [`GenericByteViewArray::value`] is sound on any slot):
    /// length non-negative; inline padding zero; buffer index, offset and
    /// length within the data buffers; prefix equal to the value's first four
    /// bytes; UTF-8 for Utf8View.
    fn validate(&self, level: ValidationLevel) -> Result<()> {
        if level == ValidationLevel::None {
            return Ok(());
        }
        if !T::fits(&self.data_type) {
            return Err(Error::TypeMismatch);
        }
        if self.views.len() % ByteView::SIZE != 0 {
            return Err(Error::BufferLengthNotMultiple);
        }
        validate_nulls(self.nulls.as_ref(), self.len(), level)?;
        if level >= ValidationLevel::Full {
            for (i, v) in self.views().iter().enumerate() {
                v.check(&self.buffers, T::Native::IS_UTF8)
                    .map_err(|e| e.with_row(i))?;
            }
        }
        Ok(())
    }

    fn into_array_ref(self) -> ArrayRef<'a, A> {
        T::into_array_ref(self)
    }
}

impl<T: ByteViewType, A: Allocator> fmt::Debug for GenericByteViewArray<'_, T, A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ", T::NAME)?;
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::view::tests::{expected, long};
    use super::*;
    use crate::Global;
    use std::vec::Vec;

    const LONG1: &str = "this is a long string";
    const LONG2: &str = "another long value!!";

    fn example() -> StringViewArray<'static, Global> {
        StringViewArray::try_from_options_in(
            &[
                Some("hello"),
                None,
                Some(LONG1),
                Some("twelve bytes"),
                Some(LONG2),
            ],
            Global,
        )
        .unwrap()
    }

    /// Short strings (length <= 12) inline with zero padding; long strings
    /// with length, prefix, buffer index and offset ("Variable-size Binary
    /// View Layout" tables).
    #[test]
    fn view_bytes_short_and_long() {
        let a = example();
        assert_eq!(a.len(), 5);
        let v = a.views();
        assert_eq!(v[0].to_bytes(), expected(5, b"hello\0\0\0\0\0\0\0"));
        assert_eq!(v[1].to_bytes(), [0u8; 16]);
        assert_eq!(v[2].to_bytes(), long(21, b"this", 0, 0));
        assert_eq!(v[3].to_bytes(), expected(12, b"twelve bytes"));
        assert_eq!(v[4].to_bytes(), long(20, b"anot", 0, 21));
        assert_eq!(
            a.views_buffer().as_slice(),
            ByteView::slice_as_bytes(a.views())
        );
        assert_eq!(a.data_buffers().len(), 1);
        let data = &a.data_buffers()[0];
        assert_eq!(data.as_slice(), [LONG1, LONG2].concat().as_bytes());
        assert_eq!(data.as_ptr() as usize % 64, 0);
        assert_eq!(a.views_buffer().as_ptr() as usize % 64, 0);
        assert_eq!(a.nulls().unwrap().inner().inner().as_slice(), &[0b11101]);
        // Decoding.
        assert_eq!(v[2].length(), 21);
        assert_eq!(&v[2].prefix(), b"this");
        assert_eq!(v[4].buffer_index(), 0);
        assert_eq!(v[4].offset(), 21);
        assert!(v[0].is_inline() && !v[2].is_inline());
        assert_eq!(v[0].inline_data(), Some(&b"hello"[..]));
        assert_eq!(v[2].inline_data(), None);
        assert_eq!(ByteView::from_u128(v[4].to_u128()), v[4]);
        let got: Vec<_> = a.iter().collect();
        assert_eq!(
            got,
            [
                Some("hello"),
                None,
                Some(LONG1),
                Some("twelve bytes"),
                Some(LONG2)
            ]
        );
        assert_eq!(a.value(1), Some(""));
        assert_eq!(a.value(5), None);
        assert_eq!(a.validate(ValidationLevel::Full), Ok(()));
        let r = a.into_array_ref();
        assert!(StringViewType::downcast(&r).is_some());
        assert!(BinaryViewType::downcast(&r).is_none());
    }

    #[test]
    fn slice_keeps_data_buffers() {
        let a = example();
        let s = a.slice(2, 3).unwrap();
        assert_eq!(s.len(), 3);
        assert!(s.data_buffers().ptr_eq(a.data_buffers()));
        assert_eq!(s.views_buffer().as_ptr(), a.views()[2..].as_ptr().cast());
        assert_eq!(s.get(0), Some(LONG1));
        assert_eq!(s.get(2), Some(LONG2));
        assert_eq!(s.null_count(), 0);
        assert_eq!(a.slice(1, 1).unwrap().null_count(), 1);
        assert_eq!(a.slice(4, 2).unwrap_err(), Error::OutOfBounds);
        assert_eq!(s.validate(ValidationLevel::Full), Ok(()));
        assert!(StringViewArray::<Global>::new_empty().is_empty());
    }

    /// A binary-view array over borrowed views and one data buffer.
    fn check_views(views: &[ByteView], utf8: bool) -> Result<()> {
        let data = [Buffer::<Global>::from_slice_ref(
            b"0123456789abcdef\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8\xf7\xf6\xf5\xf4\xf3",
        )];
        let views = Buffer::from_slice_ref(ByteView::slice_as_bytes(views));
        let buffers = SharedSlice::borrowed(&data);
        if utf8 {
            StringViewArray::try_new(views, buffers, None).map(|_| ())
        } else {
            BinaryViewArray::try_new(views, buffers, None).map(|_| ())
        }
    }

    fn good() -> ByteView {
        ByteView::from_parts(13, *b"0123", 0, 0)
    }

    #[test]
    fn valid_views_pass() {
        let inline = ByteView::try_new_inline(b"ok").unwrap();
        assert_eq!(check_views(&[good(), inline], true), Ok(()));
        let tail = ByteView::from_parts(13, *b"\xff\xfe\xfd\xfc", 0, 16);
        assert_eq!(check_views(&[tail], false), Ok(()));
    }

    #[test]
    fn rule_view_length_negative() {
        let v = ByteView::from_parts(-1, [0; 4], 0, 0);
        assert_eq!(
            check_views(&[good(), v], false),
            Err(Error::ViewLengthNegative)
        );
    }

    #[test]
    fn rule_view_inline_padding() {
        let mut b = ByteView::try_new_inline(b"abc").unwrap().to_bytes();
        b[15] = 1;
        let v = ByteView::from_bytes(b);
        assert_eq!(
            check_views(&[v], false),
            Err(Error::ViewInlinePaddingNotZero)
        );
        // A full 12-byte inline value has no padding to check.
        let full = ByteView::try_new_inline(b"abcdefghijkl").unwrap();
        assert_eq!(check_views(&[full], false), Ok(()));
    }

    #[test]
    fn rule_view_buffer_index() {
        let v = ByteView::from_parts(13, *b"0123", 1, 0);
        assert_eq!(
            check_views(&[v], false),
            Err(Error::ViewBufferIndexOutOfBounds)
        );
        let v = ByteView::from_parts(13, *b"0123", -1, 0);
        assert_eq!(
            check_views(&[v], false),
            Err(Error::ViewBufferIndexOutOfBounds)
        );
    }

    #[test]
    fn rule_view_offset() {
        // The buffer has 29 bytes: 17 + 13 > 29.
        let v = ByteView::from_parts(13, *b"\xfe\xfd\xfc\xfb", 0, 17);
        assert_eq!(check_views(&[v], false), Err(Error::ViewOffsetOutOfBounds));
        let v = ByteView::from_parts(13, *b"0123", 0, -1);
        assert_eq!(check_views(&[v], false), Err(Error::ViewOffsetOutOfBounds));
        let v = ByteView::from_parts(i32::MAX, *b"0123", 0, i32::MAX);
        assert_eq!(check_views(&[v], false), Err(Error::ViewOffsetOutOfBounds));
    }

    #[test]
    fn rule_view_prefix() {
        let v = ByteView::from_parts(13, *b"0124", 0, 0);
        assert_eq!(check_views(&[v], false), Err(Error::ViewPrefixMismatch));
    }

    #[test]
    fn rule_view_utf8() {
        let tail = ByteView::from_parts(13, *b"\xff\xfe\xfd\xfc", 0, 16);
        assert_eq!(check_views(&[tail], true), Err(Error::InvalidUtf8));
        let inline = ByteView::try_new_inline(b"a\xc3").unwrap();
        assert_eq!(check_views(&[inline], true), Err(Error::InvalidUtf8));
        assert_eq!(check_views(&[inline], false), Ok(()));
    }

    #[test]
    fn rule_views_length_multiple() {
        let r = BinaryViewArray::<Global>::try_new(
            Buffer::from_slice_ref(&[0u8; 20]),
            SharedSlice::empty(),
            None,
        );
        assert_eq!(r.unwrap_err(), Error::BufferLengthNotMultiple);
    }

    #[test]
    fn rule_validity_length() {
        let nulls = example().nulls().cloned();
        let r = BinaryViewArray::<Global>::try_new(
            Buffer::from_slice_ref(&[0u8; 32]),
            SharedSlice::empty(),
            nulls,
        );
        assert_eq!(r.unwrap_err(), Error::ValidityTooSmall);
    }

    /// Null slots' views are checked too (so `value` is sound on them).
    #[test]
    fn null_views_are_checked() {
        let nulls = example().slice(0, 2).unwrap().nulls().cloned();
        let bad = ByteView::from_parts(-5, [0; 4], 0, 0);
        let views = [ByteView::default(), bad];
        let r = BinaryViewArray::<Global>::try_new(
            Buffer::from_slice_ref(ByteView::slice_as_bytes(&views)),
            SharedSlice::empty(),
            nulls,
        );
        assert_eq!(r.unwrap_err(), Error::ViewLengthNegative);
    }

    #[test]
    fn cheap_does_not_read_views() {
        let views = [ByteView::from_parts(-1, [0; 4], 9, 9)];
        // SAFETY: only validated and read through checked accessors.
        let a = unsafe {
            BinaryViewArray::<Global>::new_unchecked(
                Buffer::from_slice_ref(ByteView::slice_as_bytes(&views)),
                SharedSlice::empty(),
                None,
            )
        };
        assert_eq!(a.validate(ValidationLevel::Cheap), Ok(()));
        assert_eq!(
            a.validate(ValidationLevel::Full),
            Err(Error::ViewLengthNegative)
        );
        assert_eq!(a.value(0), None);
    }
}
