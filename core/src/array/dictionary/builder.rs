//! Builders of dictionary arrays: [`DictionaryBuilder`] (keys into a given
//! dictionary) and [`PrimitiveDictionaryBuilder`] (encodes primitive values).

use allocator_api2::alloc::Allocator;

use super::{DictionaryArray, DictionaryKeyType};
use crate::array::primitive::PrimitiveType;
use crate::array::{Array, ArrayRef, PrimitiveArray, PrimitiveBuilder};
use crate::buffer::{MutableBuffer, ScalarBuffer, SharedBox};
use crate::datatypes::DataType;
use crate::error::{Error, Result};

/// Builds a [`DictionaryArray`] with keys of type `K` over a dictionary
/// given at construction: the caller appends keys (indices into it) or nulls.
///
/// ```
/// use alkaid::array::{Array, DictionaryBuilder, StringArray};
/// use alkaid::datatypes::IndexType;
///
/// let states = StringArray::from(vec!["idle", "run", "fault"]).into_array_ref();
/// let mut b = DictionaryBuilder::<u8>::try_new(states)?;
/// b.try_append_key(0)?;
/// b.try_append_key(1)?;
/// b.try_append_null()?;
/// assert!(b.try_append_key(3).is_err()); // Error::DictionaryKeyOutOfBounds
/// let d = b.finish();
/// assert_eq!(d.index_type(), IndexType::UInt8);
/// assert_eq!(d.keys_iter().collect::<Vec<_>>(), [Some(0), Some(1), None]);
/// assert_eq!(d.values().len(), 3);
/// # Ok::<(), alkaid::Error>(())
/// ```
#[derive(Debug)]
pub struct DictionaryBuilder<
    'a,
    K: DictionaryKeyType,
    #[cfg(feature = "alloc")] A: Allocator + Clone = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator + Clone,
> {
    data_type: DataType<'a, A>,
    keys: PrimitiveBuilder<'a, K, A>,
    values: SharedBox<'a, ArrayRef<'a, A>, A>,
}

impl<'a, K: DictionaryKeyType, A: Allocator + Clone> DictionaryBuilder<'a, K, A> {
    /// An empty builder over the dictionary `values` (unordered).
    ///
    /// # Errors
    /// [`Error::AllocationFailed`] for the boxed value type and dictionary.
    pub fn try_new_in(values: ArrayRef<'a, A>, alloc: A) -> Result<Self> {
        let value_type = SharedBox::try_new_in(values.data_type().clone(), alloc.clone())?;
        Ok(DictionaryBuilder {
            data_type: DataType::Dictionary(K::INDEX_TYPE, value_type, false),
            values: SharedBox::try_new_in(values, alloc.clone())?,
            keys: PrimitiveBuilder::new_in(alloc),
        })
    }

    /// Sets the `ordered` flag of the type.
    pub fn with_ordered(mut self, ordered: bool) -> Self {
        if let DataType::Dictionary(_, _, o) = &mut self.data_type {
            *o = ordered;
        }
        self
    }

    /// Number of slots appended.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// `true` when nothing was appended.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Appends a slot holding dictionary value `key`.
    ///
    /// # Errors
    /// [`Error::DictionaryKeyOutOfBounds`] when `key >= values.len()` or does
    /// not fit `K`; [`Error::AllocationFailed`].
    pub fn try_append_key(&mut self, key: usize) -> Result<()> {
        if key >= self.values.len() {
            return Err(Error::DictionaryKeyOutOfBounds);
        }
        let k = K::from_index(key).ok_or(Error::DictionaryKeyOutOfBounds)?;
        self.keys.try_append_value(k)
    }

    /// Appends a null slot (a null key).
    ///
    /// # Errors
    /// [`Error::AllocationFailed`].
    pub fn try_append_null(&mut self) -> Result<()> {
        self.keys.try_append_null()
    }

    /// Appends `Some(key)` as a key and `None` as a null.
    ///
    /// # Errors
    /// As [`Self::try_append_key`].
    pub fn try_append_option(&mut self, key: Option<usize>) -> Result<()> {
        match key {
            Some(k) => self.try_append_key(k),
            None => self.try_append_null(),
        }
    }

    /// Freezes the keys (no copy) into an array over the dictionary.
    pub fn finish(self) -> DictionaryArray<'a, A> {
        DictionaryArray {
            data_type: self.data_type,
            keys: K::into_keys(self.keys.finish()),
            values: self.values,
        }
    }
}

/// Dictionary-encodes primitive values of type `V` with keys of type `K`:
/// each new value (bitwise compared, so NaNs with equal bits are one value
/// and `0.0`/`-0.0` two) is added to the dictionary once.
///
/// Lookups are a linear scan of the dictionary (no hashing, no `std`): meant
/// for small dictionaries (sensor states, enum-like codes).
///
/// ```
/// use alkaid::array::{Array, PrimitiveDictionaryBuilder};
///
/// let mut b = PrimitiveDictionaryBuilder::<i16, u32>::new();
/// for code in [404, 200, 404, 404, 500] {
///     b.try_append_value(code)?;
/// }
/// b.try_append_null()?;
/// assert_eq!(b.dictionary(), &[404, 200, 500]); // each distinct value once
/// let d = b.finish()?;
/// assert_eq!(d.keys_iter().collect::<Vec<_>>(), [Some(0), Some(1), Some(0), Some(0), Some(2), None]);
/// assert_eq!(d.values().as_primitive::<u32>().map(|v| v.values()), Some(&[404, 200, 500][..]));
/// # Ok::<(), alkaid::Error>(())
/// ```
#[derive(Debug)]
pub struct PrimitiveDictionaryBuilder<
    'a,
    K: DictionaryKeyType,
    V: PrimitiveType,
    #[cfg(feature = "alloc")] A: Allocator + Clone = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator + Clone,
> {
    keys: PrimitiveBuilder<'a, K, A>,
    values: MutableBuffer<A>,
    value_type: DataType<'a, A>,
    alloc: A,
    _v: core::marker::PhantomData<V>,
}

impl<'a, K: DictionaryKeyType, V: PrimitiveType, A: Allocator + Clone>
    PrimitiveDictionaryBuilder<'a, K, V, A>
{
    /// An empty builder whose values have `V`'s default type; allocates nothing yet.
    pub fn new_in(alloc: A) -> Self {
        PrimitiveDictionaryBuilder {
            keys: PrimitiveBuilder::new_in(alloc.clone()),
            values: MutableBuffer::new_in(alloc.clone()),
            value_type: V::default_data_type(),
            alloc,
            _v: core::marker::PhantomData,
        }
    }

    /// Sets the logical type of the values.
    ///
    /// # Errors
    /// [`Error::TypeMismatch`] when `V` does not store `data_type`;
    /// [`Error::InvalidDataType`] for bad type parameters.
    pub fn with_value_type(mut self, data_type: DataType<'a, A>) -> Result<Self> {
        if !V::fits(&data_type) {
            return Err(Error::TypeMismatch);
        }
        data_type.validate()?;
        self.value_type = data_type;
        Ok(self)
    }

    /// Number of slots appended.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// `true` when nothing was appended.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The distinct values so far, in key order.
    pub fn dictionary(&self) -> &[V] {
        if self.values.is_empty() {
            return &[];
        }
        self.values.typed::<V>().unwrap_or(&[])
    }

    /// Appends a slot holding `value`; returns its key (index in the dictionary).
    ///
    /// # Errors
    /// [`Error::CapacityOverflow`] when a new value's index does not fit `K`;
    /// [`Error::AllocationFailed`].
    pub fn try_append_value(&mut self, value: V) -> Result<usize> {
        let dict = self.dictionary();
        let index = match dict.iter().position(|v| v.bits_eq(&value)) {
            Some(i) => i,
            None => {
                let i = dict.len();
                K::from_index(i).ok_or(Error::CapacityOverflow)?;
                self.values.try_push(value)?;
                i
            }
        };
        let key = K::from_index(index).ok_or(Error::CapacityOverflow)?;
        self.keys.try_append_value(key)?;
        Ok(index)
    }

    /// Appends a null slot (a null key).
    ///
    /// # Errors
    /// [`Error::AllocationFailed`].
    pub fn try_append_null(&mut self) -> Result<()> {
        self.keys.try_append_null()
    }

    /// Appends `Some(value)` as a value and `None` as a null.
    ///
    /// # Errors
    /// As [`Self::try_append_value`].
    pub fn try_append_option(&mut self, value: Option<V>) -> Result<()> {
        match value {
            Some(v) => self.try_append_value(v).map(|_| ()),
            None => self.try_append_null(),
        }
    }

    /// Freezes keys and dictionary (no copy of either).
    ///
    /// # Errors
    /// [`Error::AllocationFailed`] for the boxed value type and dictionary.
    pub fn finish(self) -> Result<DictionaryArray<'a, A>> {
        let values = ScalarBuffer::<V, A>::try_from_buffer(self.values.into_buffer())?;
        let values = PrimitiveArray::try_new(self.value_type, values, None)?;
        let value_type = SharedBox::try_new_in(values.data_type().clone(), self.alloc.clone())?;
        let data_type = DataType::Dictionary(K::INDEX_TYPE, value_type, false);
        let values = SharedBox::try_new_in(values.into_array_ref(), self.alloc)?;
        // Valid by construction: keys of `K`'s default type (the index
        // type), each the index of a value appended with it.
        Ok(DictionaryArray {
            data_type,
            keys: K::into_keys(self.keys.finish()),
            values,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::encode_example;
    use super::*;
    use crate::array::ValidationLevel;
    use crate::test_support::{check_every_failure, TestAlloc};
    use crate::Global;

    #[test]
    fn builder_rejects_keys_outside_dictionary_or_key_type() {
        let dict = PrimitiveArray::<u8, Global>::from_slice(&[0; 200]).into_array_ref();
        let mut b = DictionaryBuilder::<i8, Global>::try_new_in(dict, Global).unwrap();
        b.try_append_key(127).unwrap();
        assert_eq!(
            b.try_append_key(150).unwrap_err(),
            Error::DictionaryKeyOutOfBounds
        );
        assert_eq!(
            b.try_append_key(200).unwrap_err(),
            Error::DictionaryKeyOutOfBounds
        );
        b.try_append_option(None).unwrap();
        let d = b.finish();
        assert_eq!(d.len(), 2);
        d.validate(ValidationLevel::Full).unwrap();
    }

    #[test]
    fn dedup_builder_bitwise_equality_and_key_overflow() {
        let mut b = PrimitiveDictionaryBuilder::<u8, f64, Global>::new_in(Global);
        assert_eq!(b.try_append_value(f64::NAN).unwrap(), 0);
        assert_eq!(b.try_append_value(f64::NAN).unwrap(), 0);
        assert_eq!(b.try_append_value(0.0).unwrap(), 1);
        assert_eq!(b.try_append_value(-0.0).unwrap(), 2);
        assert_eq!(b.dictionary().len(), 3);
        let mut b = PrimitiveDictionaryBuilder::<i8, i16, Global>::new_in(Global);
        for v in 0..128 {
            b.try_append_value(v).unwrap();
        }
        assert_eq!(
            b.try_append_value(128).unwrap_err(),
            Error::CapacityOverflow
        );
        assert_eq!(b.try_append_value(5).unwrap(), 5);
        assert_eq!(b.len(), 129);
        let d = b.finish().unwrap();
        assert_eq!(d.values().len(), 128);
        d.validate(ValidationLevel::Full).unwrap();
    }

    #[test]
    fn allocation_failures_are_errors() {
        let n = check_every_failure(|a: TestAlloc| {
            let d = encode_example(a)?;
            assert_eq!(d.len(), 6);
            Ok(())
        });
        assert!(n >= 4);
        let n = check_every_failure(|a: TestAlloc| {
            let dict =
                PrimitiveArray::<u32, TestAlloc>::try_from_options_in(&[Some(7), None], a.clone())?;
            let mut b = DictionaryBuilder::<u16, TestAlloc>::try_new_in(dict.into_array_ref(), a)?;
            b.try_append_key(1)?;
            b.try_append_null()?;
            assert_eq!(b.finish().len(), 2);
            Ok(())
        });
        assert!(n > 0);
    }
}
