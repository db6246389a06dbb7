//! Plain constructors for the global heap (feature `alloc`).
//!
//! Every array and builder has a fallible `*_in(…, alloc)` constructor that
//! takes its allocator. With the `alloc` feature, the types default to
//! [`Global`] and these conversions build them from the standard collections
//! the way arrow-rs's do: `Int32Array::from(vec![1, 2, 3])`,
//! `StringArray::from(vec![Some("a"), None])`, `BooleanArray::from_iter(…)`.
//!
//! Like `Vec`, they treat running out of memory as fatal: they abort through
//! [`alloc::alloc::handle_alloc_error`] (and panic on a size overflow). A
//! program that must survive allocation failure calls the `try_*_in`
//! constructors, which return [`Error::AllocationFailed`].

use alloc::vec::Vec;
use core::alloc::Layout;

use super::{
    BooleanArray, BooleanBuilder, ByteArrayType, GenericByteArray, GenericByteBuilder,
    PrimitiveArray, PrimitiveBuilder, PrimitiveType,
};
use crate::buffer::SharedSlice;
use crate::{Error, Global, Result};

/// The value of `r`, treating allocation failure as fatal (as `Vec` does).
///
/// # Panics
/// On an error other than [`Error::AllocationFailed`] (a size overflow, or a
/// caller's bug in a conversion that cannot otherwise fail); on
/// `AllocationFailed` it calls [`alloc::alloc::handle_alloc_error`], which
/// aborts.
pub(crate) fn infallible<T>(r: Result<T>) -> T {
    match r {
        Ok(v) => v,
        // A comparison, not a pattern: `Error` may carry a location.
        Err(e) if e != Error::AllocationFailed => panic!("{}", e.message()),
        Err(_) => {
            alloc::alloc::handle_alloc_error(Layout::new::<crate::buffer::Buffer<'static, Global>>())
        }
    }
}

impl<T: PrimitiveType> PrimitiveArray<'static, T, Global> {
    /// An array of `values` with no nulls, copied into a new 64-byte aligned
    /// buffer on the global heap (arrow-rs: `from_iter_values`).
    ///
    /// ```
    /// use alkaid::array::{Array, Int64Array};
    /// let a = Int64Array::from_iter_values((0..4).map(|i| i * 10));
    /// assert_eq!(a.values(), &[0, 10, 20, 30]);
    /// assert_eq!(a.null_count(), 0);
    /// ```
    pub fn from_iter_values(values: impl IntoIterator<Item = T>) -> Self {
        let mut b = PrimitiveBuilder::new();
        for v in values {
            infallible(b.try_append_value(v));
        }
        b.finish()
    }
}

impl<T: PrimitiveType> From<Vec<T>> for PrimitiveArray<'static, T, Global> {
    /// Copies `values` into a new array without nulls.
    ///
    /// ```
    /// use alkaid::array::{Array, UInt32Array};
    /// let a = UInt32Array::from(vec![1, 2, 3]);
    /// assert_eq!((a.len(), a.value(2)), (3, Some(3)));
    /// ```
    fn from(values: Vec<T>) -> Self {
        let mut b = PrimitiveBuilder::new();
        infallible(b.try_append_slice(&values));
        b.finish()
    }
}

impl<T: PrimitiveType> From<Vec<Option<T>>> for PrimitiveArray<'static, T, Global> {
    /// One slot per element; `None` is a null slot.
    ///
    /// ```
    /// use alkaid::array::{Array, Float64Array};
    /// let a = Float64Array::from(vec![Some(1.5), None]);
    /// assert_eq!(a.null_count(), 1);
    /// assert_eq!(a.get(1), None); // a null slot
    /// assert_eq!(a.value(1), Some(0.0)); // its unspecified storage
    /// ```
    fn from(values: Vec<Option<T>>) -> Self {
        infallible(Self::try_from_options_in(&values, Global))
    }
}

impl<T: PrimitiveType> FromIterator<Option<T>> for PrimitiveArray<'static, T, Global> {
    /// One slot per item; `None` is a null slot.
    ///
    /// ```
    /// use alkaid::array::{Array, Int8Array};
    /// let a: Int8Array = [Some(1), None, Some(3)].into_iter().collect();
    /// assert_eq!(a.iter().collect::<Vec<_>>(), [Some(1), None, Some(3)]);
    /// ```
    fn from_iter<I: IntoIterator<Item = Option<T>>>(iter: I) -> Self {
        let mut b = PrimitiveBuilder::new();
        for v in iter {
            infallible(b.try_append_option(v));
        }
        b.finish()
    }
}

impl<T: PrimitiveType> PrimitiveBuilder<'static, T, Global> {
    /// An empty builder on the global heap.
    ///
    /// ```
    /// use alkaid::array::{Array, PrimitiveBuilder};
    /// let mut b = PrimitiveBuilder::<u16>::new();
    /// b.try_append_value(7)?;
    /// b.try_append_null()?;
    /// assert_eq!(b.finish().null_count(), 1);
    /// # Ok::<(), alkaid::Error>(())
    /// ```
    pub fn new() -> Self {
        Self::new_in(Global)
    }
}

impl<T: PrimitiveType> Default for PrimitiveBuilder<'static, T, Global> {
    fn default() -> Self {
        Self::new()
    }
}

impl From<Vec<bool>> for BooleanArray<'static, Global> {
    /// A bit-packed array of `values` without nulls.
    ///
    /// ```
    /// use alkaid::array::{Array, BooleanArray};
    /// let a = BooleanArray::from(vec![true, false, true]);
    /// assert_eq!(a.true_count(), 2);
    /// ```
    fn from(values: Vec<bool>) -> Self {
        values.into_iter().collect()
    }
}

impl From<Vec<Option<bool>>> for BooleanArray<'static, Global> {
    /// One slot per element; `None` is a null slot.
    fn from(values: Vec<Option<bool>>) -> Self {
        values.into_iter().collect()
    }
}

impl FromIterator<bool> for BooleanArray<'static, Global> {
    /// One valid slot per item, without a validity bitmap.
    ///
    /// ```
    /// use alkaid::array::{Array, BooleanArray};
    /// let a: BooleanArray = (0..5).map(|i| i % 2 == 0).collect();
    /// assert_eq!((a.len(), a.true_count(), a.null_count()), (5, 3, 0));
    /// ```
    fn from_iter<I: IntoIterator<Item = bool>>(iter: I) -> Self {
        iter.into_iter().map(Some).collect()
    }
}

impl FromIterator<Option<bool>> for BooleanArray<'static, Global> {
    /// One slot per item; `None` is a null slot.
    ///
    /// ```
    /// use alkaid::array::{Array, BooleanArray};
    /// let a: BooleanArray = [Some(true), None].into_iter().collect();
    /// assert_eq!((a.len(), a.null_count()), (2, 1));
    /// ```
    fn from_iter<I: IntoIterator<Item = Option<bool>>>(iter: I) -> Self {
        let mut b = BooleanBuilder::new();
        for v in iter {
            infallible(b.try_append_option(v));
        }
        b.finish()
    }
}

impl BooleanBuilder<Global> {
    /// An empty builder on the global heap.
    ///
    /// ```
    /// use alkaid::array::{Array, BooleanBuilder};
    /// let mut b = BooleanBuilder::new();
    /// b.try_append_value(true)?;
    /// assert_eq!(b.finish().len(), 1);
    /// # Ok::<(), alkaid::Error>(())
    /// ```
    pub fn new() -> Self {
        Self::new_in(Global)
    }
}

impl Default for BooleanBuilder<Global> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: ByteArrayType> GenericByteArray<'static, T, Global> {
    /// An array of `values` without nulls (arrow-rs: `from_iter_values`).
    ///
    /// ```
    /// use alkaid::array::StringArray;
    /// let a = StringArray::from_iter_values(["x", "yz"]);
    /// assert_eq!(a.value(1), Some("yz"));
    /// ```
    pub fn from_iter_values<P: AsRef<T::Native>>(values: impl IntoIterator<Item = P>) -> Self {
        let mut b = GenericByteBuilder::new();
        for v in values {
            infallible(b.try_append_value(v.as_ref()));
        }
        b.finish()
    }
}

impl<'v, T: ByteArrayType> From<Vec<&'v T::Native>> for GenericByteArray<'static, T, Global> {
    /// Copies `values` into a new array without nulls.
    ///
    /// ```
    /// use alkaid::array::{Array, BinaryArray};
    /// let a = BinaryArray::from(vec![&b"\x00\x01"[..], b""]);
    /// assert_eq!((a.len(), a.value(0)), (2, Some(&b"\x00\x01"[..])));
    /// ```
    fn from(values: Vec<&'v T::Native>) -> Self {
        let mut b = GenericByteBuilder::new();
        for v in values {
            infallible(b.try_append_value(v));
        }
        b.finish()
    }
}

impl<'v, T: ByteArrayType> From<Vec<Option<&'v T::Native>>>
    for GenericByteArray<'static, T, Global>
{
    /// One slot per element; `None` is a null slot.
    ///
    /// ```
    /// use alkaid::array::{Array, StringArray};
    /// let a = StringArray::from(vec![Some("a"), None, Some("c")]);
    /// assert_eq!(a.null_count(), 1);
    /// assert_eq!(a.value(2), Some("c"));
    /// ```
    fn from(values: Vec<Option<&'v T::Native>>) -> Self {
        infallible(Self::try_from_options_in(&values, Global))
    }
}

impl<T: ByteArrayType, P: AsRef<T::Native>> FromIterator<Option<P>>
    for GenericByteArray<'static, T, Global>
{
    /// One slot per item; `None` is a null slot.
    ///
    /// ```
    /// use alkaid::array::{Array, LargeStringArray};
    /// let a: LargeStringArray = ["a", "bc"].iter().map(|s| Some(s.repeat(2))).collect();
    /// assert_eq!(a.value(1), Some("bcbc"));
    /// ```
    fn from_iter<I: IntoIterator<Item = Option<P>>>(iter: I) -> Self {
        let mut b = GenericByteBuilder::new();
        for v in iter {
            infallible(b.try_append_option(v.as_ref().map(AsRef::as_ref)));
        }
        b.finish()
    }
}

impl<T: ByteArrayType> GenericByteBuilder<T, Global> {
    /// An empty builder on the global heap.
    ///
    /// ```
    /// use alkaid::array::{Array, StringBuilder};
    /// let mut b = StringBuilder::new();
    /// b.try_append_value("hello")?;
    /// b.try_append_null()?;
    /// assert_eq!(b.finish().null_count(), 1);
    /// # Ok::<(), alkaid::Error>(())
    /// ```
    pub fn new() -> Self {
        Self::new_in(Global)
    }
}

impl<T: ByteArrayType> Default for GenericByteBuilder<T, Global> {
    fn default() -> Self {
        Self::new()
    }
}

impl<'a, T> From<Vec<T>> for SharedSlice<'a, T, Global> {
    /// Moves `items` into a new reference-counted slice on the global heap.
    ///
    /// ```
    /// use alkaid::buffer::SharedSlice;
    /// let s = SharedSlice::from(vec![1u8, 2]);
    /// assert_eq!(&s[..], &[1, 2]);
    /// ```
    fn from(items: Vec<T>) -> Self {
        infallible(SharedSlice::try_from_iter_in(items, Global))
    }
}

#[cfg(feature = "views")]
mod views {
    use alloc::vec::Vec;

    use super::infallible;
    use crate::array::{ByteViewType, GenericByteViewArray, GenericByteViewBuilder};
    use crate::Global;

    impl<T: ByteViewType> GenericByteViewArray<'static, T, Global> {
        /// An array of `values` without nulls: values of up to 12 bytes are
        /// inlined in their views, longer ones go to a data buffer.
        ///
        /// ```
        /// use alkaid::array::StringViewArray;
        /// let a = StringViewArray::from_iter_values(["short", "a string longer than twelve"]);
        /// assert_eq!(a.value(1), Some("a string longer than twelve"));
        /// ```
        pub fn from_iter_values<P: AsRef<T::Native>>(values: impl IntoIterator<Item = P>) -> Self {
            let mut b = GenericByteViewBuilder::new();
            for v in values {
                infallible(b.try_append_value(v.as_ref()));
            }
            infallible(b.finish())
        }
    }

    impl<'v, T: ByteViewType> From<Vec<&'v T::Native>> for GenericByteViewArray<'static, T, Global> {
        /// Copies `values` into a new array without nulls.
        fn from(values: Vec<&'v T::Native>) -> Self {
            let mut b = GenericByteViewBuilder::new();
            for v in values {
                infallible(b.try_append_value(v));
            }
            infallible(b.finish())
        }
    }

    impl<'v, T: ByteViewType> From<Vec<Option<&'v T::Native>>>
        for GenericByteViewArray<'static, T, Global>
    {
        /// One slot per element; `None` is a null slot.
        ///
        /// ```
        /// use alkaid::array::{Array, StringViewArray};
        /// let a = StringViewArray::from(vec![Some("a"), None]);
        /// assert_eq!(a.null_count(), 1);
        /// ```
        fn from(values: Vec<Option<&'v T::Native>>) -> Self {
            infallible(Self::try_from_options_in(&values, Global))
        }
    }

    impl<T: ByteViewType, P: AsRef<T::Native>> FromIterator<Option<P>>
        for GenericByteViewArray<'static, T, Global>
    {
        /// One slot per item; `None` is a null slot.
        fn from_iter<I: IntoIterator<Item = Option<P>>>(iter: I) -> Self {
            let mut b = GenericByteViewBuilder::new();
            for v in iter {
                infallible(b.try_append_option(v.as_ref().map(AsRef::as_ref)));
            }
            infallible(b.finish())
        }
    }

    impl<T: ByteViewType> GenericByteViewBuilder<T, Global> {
        /// An empty builder on the global heap.
        pub fn new() -> Self {
            Self::new_in(Global)
        }
    }

    impl<T: ByteViewType> Default for GenericByteViewBuilder<T, Global> {
        fn default() -> Self {
            Self::new()
        }
    }
}

#[cfg(feature = "nested")]
mod nested {
    use crate::array::{
        ArrayBuilder, FixedSizeListBuilder, GenericListBuilder, GenericListViewBuilder,
        ListOffsetSize, MapBuilder, StructBuilder, StructChildren,
    };
    use crate::datatypes::Fields;
    use crate::Global;

    impl<'a, O: ListOffsetSize, B: ArrayBuilder<'a, Global>> GenericListBuilder<'a, O, B, Global> {
        /// A builder of lists whose elements are appended to `values`, on the
        /// global heap.
        ///
        /// ```
        /// use alkaid::array::{Array, Int32Builder, ListBuilder};
        /// let mut b = ListBuilder::new(Int32Builder::new());
        /// b.values().try_append_slice(&[1, 2])?;
        /// b.try_append(true)?; // [1, 2]
        /// b.try_append_null()?; // null
        /// let lists = b.try_finish()?;
        /// assert_eq!((lists.len(), lists.null_count()), (2, 1));
        /// # Ok::<(), alkaid::Error>(())
        /// ```
        pub fn new(values: B) -> Self {
            Self::new_in(values, Global)
        }
    }

    impl<'a, O: ListOffsetSize, B: ArrayBuilder<'a, Global>> GenericListViewBuilder<'a, O, B, Global> {
        /// A builder of list views whose elements are appended to `values`,
        /// on the global heap.
        pub fn new(values: B) -> Self {
            Self::new_in(values, Global)
        }
    }

    impl<'a, B: ArrayBuilder<'a, Global>> FixedSizeListBuilder<'a, B, Global> {
        /// A builder of lists of `size` elements each, appended to `values`,
        /// on the global heap.
        pub fn new(values: B, size: i32) -> Self {
            Self::new_in(values, size, Global)
        }
    }

    impl<'a, C: StructChildren<'a, Global>> StructBuilder<'a, C, Global> {
        /// A builder of structs of `fields` whose children are the builders
        /// `children`, on the global heap.
        pub fn new(fields: impl Into<Fields<'a, Global>>, children: C) -> Self {
            Self::new_in(fields.into(), children, Global)
        }
    }

    impl<'a, K: ArrayBuilder<'a, Global>, V: ArrayBuilder<'a, Global>> MapBuilder<'a, K, V, Global> {
        /// A builder of maps whose keys and values are appended to `keys`
        /// and `values`, on the global heap.
        pub fn new(keys: K, values: V) -> Self {
            Self::new_in(keys, values, Global)
        }
    }
}

#[cfg(feature = "dictionary")]
mod dictionary {
    use crate::array::{
        ArrayRef, DictionaryBuilder, DictionaryKeyType, PrimitiveDictionaryBuilder, PrimitiveType,
    };
    use crate::error::Result;
    use crate::Global;

    impl<'a, K: DictionaryKeyType> DictionaryBuilder<'a, K, Global> {
        /// A builder of keys into the dictionary `values`, on the global
        /// heap.
        ///
        /// # Errors
        /// As [`DictionaryBuilder::try_new_in`].
        pub fn try_new(values: ArrayRef<'a, Global>) -> Result<Self> {
            Self::try_new_in(values, Global)
        }
    }

    impl<K: DictionaryKeyType, V: PrimitiveType> PrimitiveDictionaryBuilder<'static, K, V, Global> {
        /// An empty builder on the global heap.
        pub fn new() -> Self {
            Self::new_in(Global)
        }
    }

    impl<K: DictionaryKeyType, V: PrimitiveType> Default
        for PrimitiveDictionaryBuilder<'static, K, V, Global>
    {
        fn default() -> Self {
            Self::new()
        }
    }
}

#[cfg(feature = "run-end")]
mod run_end {
    use crate::array::{PrimitiveRunBuilder, PrimitiveType, RunEndIndexType};
    use crate::Global;

    impl<R: RunEndIndexType, V: PrimitiveType> PrimitiveRunBuilder<'static, R, V, Global> {
        /// An empty builder on the global heap.
        pub fn new() -> Self {
            Self::new_in(Global)
        }
    }

    impl<R: RunEndIndexType, V: PrimitiveType> Default for PrimitiveRunBuilder<'static, R, V, Global> {
        fn default() -> Self {
            Self::new()
        }
    }
}

#[cfg(feature = "union")]
mod union {
    use crate::array::UnionBuilder;
    use crate::datatypes::UnionFields;
    use crate::Global;

    impl<'a> UnionBuilder<'a, Global> {
        /// A builder of a sparse union of `fields`, on the global heap.
        pub fn new_sparse(fields: UnionFields<'a, Global>) -> Self {
            Self::new_sparse_in(fields, Global)
        }

        /// A builder of a dense union of `fields`, on the global heap.
        pub fn new_dense(fields: UnionFields<'a, Global>) -> Self {
            Self::new_dense_in(fields, Global)
        }
    }
}

impl crate::array::FixedSizeBinaryBuilder<Global> {
    /// A builder of values of `width` bytes each, on the global heap.
    ///
    /// # Errors
    /// As [`crate::array::FixedSizeBinaryBuilder::try_new_in`].
    pub fn try_new(width: i32) -> Result<Self> {
        Self::try_new_in(width, Global)
    }
}
