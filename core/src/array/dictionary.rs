//! Dictionary-encoded layout ("Dictionary-encoded Layout"): the keys
//! (indices) are an integer primitive array with its own validity bitmap, and
//! the values (the dictionary) are a separate array of any type. Slot `i` is
//! `values[keys[i]]`, or null when key `i` is null.
//!
//! The null count of a dictionary array is that of its keys only; nulls inside
//! the dictionary are not counted (the spec's rule). Slicing slices the keys
//! and shares the whole dictionary.

use allocator_api2::alloc::Allocator;
use derive_where::derive_where;

use super::primitive::PrimitiveType;
use super::{check_slice, Array, ArrayRef, PrimitiveArray, ValidationLevel};
use crate::buffer::{NullBuffer, SharedBox};
use crate::datatypes::{DataType, IndexType};
use crate::error::{Error, Result};

mod builder;
pub use builder::{DictionaryBuilder, PrimitiveDictionaryBuilder};

/// The keys of a [`DictionaryArray`]: a primitive array of one of the eight
/// integer index types.
#[derive_where(Clone, Debug)]
pub enum DictionaryKeys<
    'a,
    #[cfg(feature = "alloc")] A: Allocator = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator,
> {
    /// `i8` keys.
    Int8(PrimitiveArray<'a, i8, A>),
    /// `i16` keys.
    Int16(PrimitiveArray<'a, i16, A>),
    /// `i32` keys.
    Int32(PrimitiveArray<'a, i32, A>),
    /// `i64` keys.
    Int64(PrimitiveArray<'a, i64, A>),
    /// `u8` keys.
    UInt8(PrimitiveArray<'a, u8, A>),
    /// `u16` keys.
    UInt16(PrimitiveArray<'a, u16, A>),
    /// `u32` keys.
    UInt32(PrimitiveArray<'a, u32, A>),
    /// `u64` keys.
    UInt64(PrimitiveArray<'a, u64, A>),
}

macro_rules! keys_dispatch {
    ($self:expr, $k:ident => $body:expr) => {
        match $self {
            DictionaryKeys::Int8($k) => $body,
            DictionaryKeys::Int16($k) => $body,
            DictionaryKeys::Int32($k) => $body,
            DictionaryKeys::Int64($k) => $body,
            DictionaryKeys::UInt8($k) => $body,
            DictionaryKeys::UInt16($k) => $body,
            DictionaryKeys::UInt32($k) => $body,
            DictionaryKeys::UInt64($k) => $body,
        }
    };
}
#[cfg(all(feature = "nested", feature = "run-end", feature = "views"))]
pub(crate) use keys_dispatch;

/// A native type of dictionary keys: the eight integer types.
pub trait DictionaryKeyType: PrimitiveType {
    /// The index type of the dictionary's data type.
    const INDEX_TYPE: IndexType;
    /// The key as an index, or `None` when negative or too large.
    fn to_index(self) -> Option<usize>;
    /// `i` as a key, or `None` when it does not fit.
    fn from_index(i: usize) -> Option<Self>;
    /// Wraps a typed array.
    fn into_keys<'a, A: Allocator>(a: PrimitiveArray<'a, Self, A>) -> DictionaryKeys<'a, A>;
}

macro_rules! key_type {
    ($t:ty, $v:ident) => {
        impl DictionaryKeyType for $t {
            const INDEX_TYPE: IndexType = IndexType::$v;
            #[inline]
            fn to_index(self) -> Option<usize> {
                usize::try_from(self).ok()
            }
            #[inline]
            fn from_index(i: usize) -> Option<Self> {
                <$t>::try_from(i).ok()
            }
            fn into_keys<'a, A: Allocator>(
                a: PrimitiveArray<'a, Self, A>,
            ) -> DictionaryKeys<'a, A> {
                DictionaryKeys::$v(a)
            }
        }
    };
}
key_type!(i8, Int8);
key_type!(i16, Int16);
key_type!(i32, Int32);
key_type!(i64, Int64);
key_type!(u8, UInt8);
key_type!(u16, UInt16);
key_type!(u32, UInt32);
key_type!(u64, UInt64);

/// The [`DataType`] of keys of index type `t` (Int8 … UInt64).
pub fn index_data_type<'a, A: Allocator>(t: IndexType) -> DataType<'a, A> {
    match t {
        IndexType::Int8 => DataType::Int8,
        IndexType::Int16 => DataType::Int16,
        IndexType::Int32 => DataType::Int32,
        IndexType::Int64 => DataType::Int64,
        IndexType::UInt8 => DataType::UInt8,
        IndexType::UInt16 => DataType::UInt16,
        IndexType::UInt32 => DataType::UInt32,
        IndexType::UInt64 => DataType::UInt64,
    }
}

/// Checks that every valid key indexes one of `n` values.
fn check_keys<K: DictionaryKeyType, A: Allocator>(
    keys: &PrimitiveArray<'_, K, A>,
    n: usize,
) -> Result<()> {
    let in_bounds = |k: &K| k.to_index().is_some_and(|k| k < n);
    let ok = match keys.nulls() {
        None => keys.values().iter().all(in_bounds),
        Some(nulls) => keys
            .values()
            .iter()
            .enumerate()
            .all(|(i, k)| nulls.is_null(i) || in_bounds(k)),
    };
    if ok {
        Ok(())
    } else {
        Err(Error::DictionaryKeyOutOfBounds)
    }
}

impl<'a, A: Allocator> DictionaryKeys<'a, A> {
    /// The index type of these keys.
    pub fn index_type(&self) -> IndexType {
        match self {
            DictionaryKeys::Int8(_) => IndexType::Int8,
            DictionaryKeys::Int16(_) => IndexType::Int16,
            DictionaryKeys::Int32(_) => IndexType::Int32,
            DictionaryKeys::Int64(_) => IndexType::Int64,
            DictionaryKeys::UInt8(_) => IndexType::UInt8,
            DictionaryKeys::UInt16(_) => IndexType::UInt16,
            DictionaryKeys::UInt32(_) => IndexType::UInt32,
            DictionaryKeys::UInt64(_) => IndexType::UInt64,
        }
    }

    /// Key `i` as an index, whatever its validity; `None` when `i >= len` or
    /// the key is negative (or does not fit a `usize`).
    pub fn value(&self, i: usize) -> Option<usize> {
        keys_dispatch!(self, k => k.value(i)?.to_index())
    }

    /// Key `i` as an index; `None` when null, `i >= len`, or the key is negative.
    pub fn get(&self, i: usize) -> Option<usize> {
        if self.is_valid(i) {
            self.value(i)
        } else {
            None
        }
    }
}

impl<'a, A: Allocator> TryFrom<ArrayRef<'a, A>> for DictionaryKeys<'a, A> {
    type Error = Error;

    /// # Errors
    /// [`Error::TypeMismatch`] unless the array holds one of the eight integer types.
    fn try_from(a: ArrayRef<'a, A>) -> Result<Self> {
        Ok(match a {
            ArrayRef::Int8(k) => DictionaryKeys::Int8(k),
            ArrayRef::Int16(k) => DictionaryKeys::Int16(k),
            ArrayRef::Int32(k) => DictionaryKeys::Int32(k),
            ArrayRef::Int64(k) => DictionaryKeys::Int64(k),
            ArrayRef::UInt8(k) => DictionaryKeys::UInt8(k),
            ArrayRef::UInt16(k) => DictionaryKeys::UInt16(k),
            ArrayRef::UInt32(k) => DictionaryKeys::UInt32(k),
            ArrayRef::UInt64(k) => DictionaryKeys::UInt64(k),
            _ => return Err(Error::TypeMismatch),
        })
    }
}

impl<'a, A: Allocator> Array<'a, A> for DictionaryKeys<'a, A> {
    fn data_type(&self) -> &DataType<'a, A> {
        keys_dispatch!(self, k => k.data_type())
    }
    fn len(&self) -> usize {
        keys_dispatch!(self, k => k.len())
    }
    fn nulls(&self) -> Option<&NullBuffer<'a, A>> {
        keys_dispatch!(self, k => k.nulls())
    }
    fn slice(&self, offset: usize, len: usize) -> Result<Self> {
        keys_dispatch!(self, k => Ok(DictionaryKeyType::into_keys(k.slice(offset, len)?)))
    }
    fn validate(&self, level: ValidationLevel) -> Result<()> {
        keys_dispatch!(self, k => k.validate(level))
    }
    fn into_array_ref(self) -> ArrayRef<'a, A> {
        keys_dispatch!(self, k => k.into_array_ref())
    }
}

/// A dictionary-encoded array ([`DataType::Dictionary`]): keys of the index
/// type and a shared dictionary of the value type.
///
/// Slot `i` is `values[keys[i]]`; a null key is a null slot.
///
/// ```
/// use alkaid::array::{Array, DictionaryArray, DictionaryKeys, Int8Array, StringArray};
/// use alkaid::datatypes::{DataType, IndexType};
/// use alkaid::Global;
///
/// // ["low", "high", null, "low"] over the dictionary ["low", "high"].
/// let keys = DictionaryKeys::Int8(Int8Array::from(vec![Some(0), Some(1), None, Some(0)]));
/// let values = StringArray::from(vec!["low", "high"]).into_array_ref();
/// let d = DictionaryArray::try_new_in(keys, values, false, Global)?;
/// assert!(matches!(d.data_type(), DataType::Dictionary(IndexType::Int8, v, false) if **v == DataType::Utf8));
/// assert_eq!((d.len(), d.null_count()), (4, 1));
/// assert_eq!(d.keys_iter().collect::<Vec<_>>(), [Some(0), Some(1), None, Some(0)]);
/// let dict = d.values().as_string().expect("Utf8 values");
/// assert_eq!(d.key(3).and_then(|k| dict.value(k)), Some("low"));
///
/// // Keys are checked against the dictionary.
/// let bad = DictionaryKeys::Int8(Int8Array::from(vec![2]));
/// let values = StringArray::from(vec!["low", "high"]).into_array_ref();
/// assert!(DictionaryArray::try_new_in(bad, values, false, Global).is_err()); // Error::DictionaryKeyOutOfBounds
/// # Ok::<(), alkaid::Error>(())
/// ```
#[derive_where(Clone, Debug)]
pub struct DictionaryArray<
    'a,
    #[cfg(feature = "alloc")] A: Allocator = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator,
> {
    data_type: DataType<'a, A>,
    keys: DictionaryKeys<'a, A>,
    values: SharedBox<'a, ArrayRef<'a, A>, A>,
}

impl<'a, A: Allocator> DictionaryArray<'a, A> {
    /// An array of type `data_type` (`Dictionary(index type, value type,
    /// ordered)`) over `keys` and the dictionary `values`. Validates at
    /// [`ValidationLevel::Full`].
    ///
    /// # Errors
    /// - [`Error::TypeMismatch`]: `data_type` is not a dictionary, the keys'
    ///   type is not exactly the index type, or the values' type differs from
    ///   the value type;
    /// - [`Error::InvalidDataType`]: the value type is malformed;
    /// - [`Error::DictionaryKeyOutOfBounds`]: a valid key is negative or not
    ///   less than `values.len()` (null keys are not checked);
    /// - any error of the keys' or values' own validation.
    pub fn try_new(
        data_type: DataType<'a, A>,
        keys: DictionaryKeys<'a, A>,
        values: SharedBox<'a, ArrayRef<'a, A>, A>,
    ) -> Result<Self> {
        let a = DictionaryArray {
            data_type,
            keys,
            values,
        };
        a.validate(ValidationLevel::Full)?;
        Ok(a)
    }

    /// As [`Self::try_new`], building the type from the keys' index type and
    /// the values' type, and boxing the values, in memory from `alloc`.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`]; otherwise as [`Self::try_new`].
    pub fn try_new_in(
        keys: DictionaryKeys<'a, A>,
        values: ArrayRef<'a, A>,
        ordered: bool,
        alloc: A,
    ) -> Result<Self>
    where
        A: Clone,
    {
        let value_type = SharedBox::try_new_in(values.data_type().clone(), alloc.clone())?;
        let data_type = DataType::Dictionary(keys.index_type(), value_type, ordered);
        Self::try_new(data_type, keys, SharedBox::try_new_in(values, alloc)?)
    }

    /// As [`Self::try_new`] without any check.
    ///
    /// # Safety
    /// The arguments must satisfy every rule of [`Self::try_new`]. Accessors
    /// never read out of bounds even if they do not, but may return `None`.
    pub unsafe fn new_unchecked(
        data_type: DataType<'a, A>,
        keys: DictionaryKeys<'a, A>,
        values: SharedBox<'a, ArrayRef<'a, A>, A>,
    ) -> Self {
        DictionaryArray {
            data_type,
            keys,
            values,
        }
    }

    /// The keys (sliced with the array).
    pub fn keys(&self) -> &DictionaryKeys<'a, A> {
        &self.keys
    }

    /// The dictionary (whole, never sliced).
    pub fn values(&self) -> &ArrayRef<'a, A> {
        &self.values
    }

    /// The dictionary, shared.
    pub fn values_shared(&self) -> &SharedBox<'a, ArrayRef<'a, A>, A> {
        &self.values
    }

    /// The index type of the keys.
    pub fn index_type(&self) -> IndexType {
        self.keys.index_type()
    }

    /// Whether the dictionary's order is meaningful (the `ordered` flag of the type).
    pub fn is_ordered(&self) -> bool {
        matches!(self.data_type, DataType::Dictionary(_, _, true))
    }

    /// The dictionary index of slot `i`; `None` when the key is null or
    /// `i >= len` (or, for arrays built unchecked, the key is negative).
    pub fn key(&self, i: usize) -> Option<usize> {
        self.keys.get(i)
    }

    /// Iterates the keys as dictionary indices (`None` = null).
    pub fn keys_iter(&self) -> impl Iterator<Item = Option<usize>> + '_ {
        (0..self.len()).map(move |i| self.key(i))
    }

    /// `true` when key `i` is null, the dictionary value it selects is null,
    /// or slot `i` does not exist.
    pub fn is_logically_null(&self, i: usize) -> bool {
        self.key(i).is_none_or(|k| self.values.is_null(k))
    }

    /// Splits into type, keys and dictionary.
    pub fn into_parts(
        self,
    ) -> (
        DataType<'a, A>,
        DictionaryKeys<'a, A>,
        SharedBox<'a, ArrayRef<'a, A>, A>,
    ) {
        (self.data_type, self.keys, self.values)
    }
}

impl<'a, A: Allocator> Array<'a, A> for DictionaryArray<'a, A> {
    fn data_type(&self) -> &DataType<'a, A> {
        &self.data_type
    }

    fn len(&self) -> usize {
        self.keys.len()
    }

    /// The keys' validity bitmap.
    fn nulls(&self) -> Option<&NullBuffer<'a, A>> {
        self.keys.nulls()
    }

    fn slice(&self, offset: usize, len: usize) -> Result<Self> {
        check_slice(offset, len, self.len())?;
        Ok(DictionaryArray {
            data_type: self.data_type.clone(),
            keys: self.keys.slice(offset, len)?,
            values: self.values.clone(),
        })
    }

    fn validate(&self, level: ValidationLevel) -> Result<()> {
        if level == ValidationLevel::None {
            return Ok(());
        }
        let DataType::Dictionary(index_type, value_type, _) = &self.data_type else {
            return Err(Error::TypeMismatch);
        };
        self.data_type.validate()?;
        if *self.keys.data_type() != index_data_type::<A>(*index_type)
            || self.values.data_type() != &**value_type
        {
            return Err(Error::TypeMismatch);
        }
        self.keys.validate(level)?;
        self.values.validate(level)?;
        if level >= ValidationLevel::Full {
            let n = self.values.len();
            keys_dispatch!(&self.keys, k => check_keys(k, n))?;
        }
        Ok(())
    }

    fn into_array_ref(self) -> ArrayRef<'a, A> {
        ArrayRef::Dictionary(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::array::BinaryArray;
    use crate::buffer::ScalarBuffer;
    use crate::Global;
    use std::vec::Vec;

    /// A 3-byte string as a `u32` (native-endian bytes `s[0] s[1] s[2] 0`):
    /// stands in for the spec's VarBinary values in the primitive tests.
    pub(super) fn word(s: &[u8; 3]) -> u32 {
        u32::from_ne_bytes([s[0], s[1], s[2], 0])
    }

    fn i32_bytes(v: &[i32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_ne_bytes()).collect()
    }

    pub(super) fn encode_example<'a, A: Allocator + Clone>(
        alloc: A,
    ) -> Result<DictionaryArray<'a, A>> {
        let mut b = PrimitiveDictionaryBuilder::<i32, u32, A>::new_in(alloc);
        for v in [b"foo", b"bar", b"foo", b"bar"] {
            b.try_append_value(word(v))?;
        }
        b.try_append_null()?;
        assert_eq!(b.try_append_value(word(b"baz"))?, 2);
        b.finish()
    }

    /// "Dictionary-encoded Layout" example: VarBinary `['foo', 'bar', 'foo',
    /// 'bar', null, 'baz']` is indices (Int32) `[0, 1, 0, 1, null, 2]` over
    /// the VarBinary dictionary `['foo', 'bar', 'baz']`.
    #[test]
    fn spec_example_var_binary() {
        let dict = BinaryArray::<Global>::try_from_options_in(
            &[Some(b"foo"), Some(b"bar"), Some(b"baz")],
            Global,
        )
        .unwrap();
        let mut b =
            DictionaryBuilder::<i32, Global>::try_new_in(dict.into_array_ref(), Global).unwrap();
        for k in [Some(0), Some(1), Some(0), Some(1), None, Some(2)] {
            b.try_append_option(k).unwrap();
        }
        let d = b.finish();
        assert_eq!((d.len(), d.null_count()), (6, 1));
        assert!(matches!(
            d.data_type(),
            DataType::Dictionary(IndexType::Int32, v, false) if **v == DataType::Binary
        ));
        check_example_keys(&d);
        let ArrayRef::Binary(values) = d.values() else {
            panic!()
        };
        assert_eq!(values.len(), 3);
        assert!(values.nulls().is_none());
        assert_eq!(
            values.offsets().inner().as_slice(),
            i32_bytes(&[0, 3, 6, 9]).as_slice()
        );
        assert_eq!(values.values().as_slice(), b"foobarbaz");
        let decoded: Vec<_> = (0..6)
            .map(|i| d.key(i).and_then(|k| values.value(k)))
            .collect();
        assert_eq!(
            decoded,
            [
                Some(&b"foo"[..]),
                Some(b"bar"),
                Some(b"foo"),
                Some(b"bar"),
                None,
                Some(b"baz")
            ]
        );
        d.validate(ValidationLevel::Full).unwrap();
    }

    /// Keys (Int32) `[0, 1, 0, 1, null, 2]`: the null key is stored as 0,
    /// validity `0b0010_1111`.
    fn check_example_keys(d: &DictionaryArray<'_, Global>) {
        assert_eq!(d.index_type(), IndexType::Int32);
        let DictionaryKeys::Int32(keys) = d.keys() else {
            panic!()
        };
        assert_eq!(
            keys.values_buffer().inner().as_slice(),
            i32_bytes(&[0, 1, 0, 1, 0, 2]).as_slice()
        );
        assert_eq!(
            keys.nulls().unwrap().inner().inner().as_slice(),
            &[0b0010_1111]
        );
        let got: Vec<_> = d.keys_iter().collect();
        assert_eq!(got, [Some(0), Some(1), Some(0), Some(1), None, Some(2)]);
    }

    /// The same example dictionary-encoded by [`PrimitiveDictionaryBuilder`],
    /// with the 3-byte strings as `u32` words: same keys, dictionary
    /// `foo\0bar\0baz\0`.
    #[test]
    fn spec_example_encoded_by_dedup_builder() {
        let d = encode_example(Global).unwrap();
        assert_eq!((d.len(), d.null_count()), (6, 1));
        check_example_keys(&d);
        let ArrayRef::UInt32(values) = d.values() else {
            panic!()
        };
        assert_eq!(
            values.values_buffer().inner().as_slice(),
            b"foo\0bar\0baz\0"
        );
        d.validate(ValidationLevel::Full).unwrap();
    }

    /// The second example: a dictionary may hold duplicates and nulls;
    /// keys `[0, 1, 3, 1, 4, 2]` over `['foo', 'bar', 'baz', 'foo', null]`.
    /// The null count comes from the keys only.
    #[test]
    fn spec_example_duplicates_and_null_values() {
        let dict = BinaryArray::<Global>::try_from_options_in(
            &[Some(b"foo"), Some(b"bar"), Some(b"baz"), Some(b"foo"), None],
            Global,
        )
        .unwrap();
        let mut b = DictionaryBuilder::<i32, Global>::try_new_in(dict.into_array_ref(), Global)
            .unwrap()
            .with_ordered(true);
        for k in [0, 1, 3, 1, 4, 2] {
            b.try_append_key(k).unwrap();
        }
        let d = b.finish();
        assert!(d.is_ordered());
        assert_eq!(d.null_count(), 0);
        assert!(d.keys().nulls().is_none());
        assert_eq!(d.key(4), Some(4));
        assert!(d.is_logically_null(4));
        assert!(!d.is_logically_null(3));
        d.validate(ValidationLevel::Full).unwrap();
    }

    #[test]
    fn slice_shares_the_dictionary() {
        let d = encode_example(Global).unwrap();
        let s = d.slice(3, 3).unwrap();
        assert_eq!(s.len(), 3);
        assert_eq!(s.null_count(), 1);
        assert!(s.values_shared().ptr_eq(d.values_shared()));
        let got: Vec<_> = s.keys_iter().collect();
        assert_eq!(got, [Some(1), None, Some(2)]);
        assert_eq!(s.key(3), None);
        assert_eq!(d.slice(4, 3).unwrap_err(), Error::OutOfBounds);
    }

    /// An Int32-keyed dictionary over three Float32 values.
    fn with_keys(keys: DictionaryKeys<'_, Global>) -> Result<()> {
        let values = PrimitiveArray::<f32, Global>::from_slice(&[1.0, 2.0, 3.0]);
        DictionaryArray::try_new_in(keys, values.into_array_ref(), false, Global).map(|_| ())
    }

    #[test]
    fn rule_key_out_of_bounds() {
        with_keys(DictionaryKeys::Int32(PrimitiveArray::from_slice(&[
            0, 2, 1,
        ])))
        .unwrap();
        let too_big = DictionaryKeys::Int32(PrimitiveArray::from_slice(&[0, 3]));
        assert_eq!(
            with_keys(too_big).unwrap_err(),
            Error::DictionaryKeyOutOfBounds
        );
        let negative = DictionaryKeys::Int8(PrimitiveArray::from_slice(&[-1]));
        assert_eq!(
            with_keys(negative).unwrap_err(),
            Error::DictionaryKeyOutOfBounds
        );
        let unsigned = DictionaryKeys::UInt64(PrimitiveArray::from_slice(&[u64::MAX]));
        assert_eq!(
            with_keys(unsigned).unwrap_err(),
            Error::DictionaryKeyOutOfBounds
        );
        // A null key is not checked, whatever its stored value.
        let nulls =
            PrimitiveArray::<i16, Global>::try_from_options_in(&[Some(1), None], Global).unwrap();
        let (dt, _, nb) = nulls.into_parts();
        let keys = PrimitiveArray::try_new(dt, ScalarBuffer::from_slice_ref(&[1, 99]), nb).unwrap();
        with_keys(DictionaryKeys::Int16(keys)).unwrap();
    }

    #[test]
    fn cheap_validation_reads_no_keys() {
        let d = encode_example(Global).unwrap();
        let (dt, _, values) = d.into_parts();
        let keys = DictionaryKeys::Int32(PrimitiveArray::from_slice(&[0, 9]));
        // SAFETY: deliberately invalid (key 9 of 3 values), checked below.
        let d = unsafe { DictionaryArray::new_unchecked(dt, keys, values) };
        d.validate(ValidationLevel::Cheap).unwrap();
        let e = d.validate(ValidationLevel::Full).unwrap_err();
        assert_eq!(e, Error::DictionaryKeyOutOfBounds);
    }

    #[test]
    fn rule_key_type_matches_index_type() {
        let values = SharedBox::try_new_in(
            PrimitiveArray::<f32, Global>::from_slice(&[1.0]).into_array_ref(),
            Global,
        )
        .unwrap();
        let vt = SharedBox::try_new_in(DataType::Float32, Global).unwrap();
        let keys = DictionaryKeys::Int32(PrimitiveArray::from_slice(&[0]));
        // Index type Int16, keys Int32.
        let dt = DataType::Dictionary(IndexType::Int16, vt.clone(), false);
        let r = DictionaryArray::try_new(dt, keys.clone(), values.clone());
        assert_eq!(r.unwrap_err(), Error::TypeMismatch);
        // Keys stored as i32 but typed Date32.
        let date = PrimitiveArray::from_slice(&[0])
            .with_data_type(DataType::Date32)
            .unwrap();
        let dt = DataType::Dictionary(IndexType::Int32, vt.clone(), false);
        let r = DictionaryArray::try_new(dt, DictionaryKeys::Int32(date), values.clone());
        assert_eq!(r.unwrap_err(), Error::TypeMismatch);
        // Value type differs from the dictionary's type.
        let vt64 = SharedBox::try_new_in(DataType::Float64, Global).unwrap();
        let dt = DataType::Dictionary(IndexType::Int32, vt64, false);
        let r = DictionaryArray::try_new(dt, keys.clone(), values.clone());
        assert_eq!(r.unwrap_err(), Error::TypeMismatch);
        // Not a dictionary type at all.
        let r = DictionaryArray::try_new(DataType::Int32, keys, values);
        assert_eq!(r.unwrap_err(), Error::TypeMismatch);
        // Keys must be an integer array.
        let floats = PrimitiveArray::<f32, Global>::from_slice(&[0.0]).into_array_ref();
        assert_eq!(
            DictionaryKeys::try_from(floats).unwrap_err(),
            Error::TypeMismatch
        );
        let ints = PrimitiveArray::<u16, Global>::from_slice(&[0]).into_array_ref();
        assert_eq!(
            DictionaryKeys::try_from(ints).unwrap().index_type(),
            IndexType::UInt16
        );
    }

    #[test]
    fn values_are_validated_recursively() {
        let inner_values = PrimitiveArray::<f32, Global>::from_slice(&[1.0]).into_array_ref();
        let inner = DictionaryArray::try_new_in(
            DictionaryKeys::UInt8(PrimitiveArray::from_slice(&[0])),
            inner_values,
            false,
            Global,
        )
        .unwrap();
        let (dt, _, v) = inner.into_parts();
        // SAFETY: deliberately invalid (key 5 of 1 value), caught below.
        let bad = unsafe {
            DictionaryArray::new_unchecked(
                dt,
                DictionaryKeys::UInt8(PrimitiveArray::from_slice(&[5])),
                v,
            )
        };
        assert_eq!(bad.key(0), Some(5));
        assert!(bad.is_logically_null(0));
        let outer = DictionaryKeys::Int8(PrimitiveArray::from_slice(&[0]));
        let r = DictionaryArray::try_new_in(outer, bad.into_array_ref(), false, Global);
        assert_eq!(r.unwrap_err(), Error::DictionaryKeyOutOfBounds);
    }
}
