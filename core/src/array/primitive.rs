//! Fixed-size primitive layout ("Fixed-size Primitive Layout"): a values
//! buffer of `len` native values and an optional validity bitmap.

use core::fmt;

use allocator_api2::alloc::Allocator;
use derive_where::derive_where;

use super::primitive_values;
use super::{check_slice, validate_nulls, Array, ArrayRef, ValidationLevel};
use crate::buffer::{MutableBuffer, NullBuffer, NullBufferBuilder, ScalarBuffer};
use crate::datatypes::{DataType, IntervalUnit};
use crate::error::{Error, Result};
use crate::native::{f16, i256, IntervalDayTime, IntervalMonthDayNano, NativeType};

/// A native type that is the value type of primitive arrays: it knows which
/// [`DataType`]s it can represent and its [`ArrayRef`] variant.
pub trait PrimitiveType: NativeType {
    /// `true` when `dt` is stored as values of this type (e.g. `i64` holds
    /// Int64, Date64, Time64, Timestamp, Duration and Decimal64).
    fn fits<A: Allocator>(dt: &DataType<'_, A>) -> bool;
    /// The type given to arrays built without an explicit one (e.g. `i32` → Int32).
    fn default_data_type<'a, A: Allocator>() -> DataType<'a, A>;
    /// Wraps a typed array.
    fn into_array_ref<'a, A: Allocator>(a: PrimitiveArray<'a, Self, A>) -> ArrayRef<'a, A>;
    /// The typed array inside `a`, if it holds this type.
    fn downcast<'b, 'a, A: Allocator>(
        a: &'b ArrayRef<'a, A>,
    ) -> Option<&'b PrimitiveArray<'a, Self, A>>;
    /// Checks the values of the valid slots against the value rules of `dt`
    /// (the primitive part of [`ValidationLevel::Strict`]): decimals within
    /// their precision, Date64 values whole days, times within one day. Null
    /// slots are not read.
    ///
    /// # Errors
    /// [`Error::DecimalOutOfPrecision`], [`Error::Date64NotWholeDays`],
    /// [`Error::TimeOutOfRange`].
    fn validate_values<A: Allocator>(
        dt: &DataType<'_, A>,
        values: &[Self],
        nulls: Option<&NullBuffer<'_, A>>,
    ) -> Result<()>;
}

macro_rules! primitive_type {
    ($t:ty, $variant:ident, $default:expr, $($pat:pat_param)|+) => {
        primitive_type!(
            $t, $variant, $default, primitive_values::check_none, $($pat)|+
        );
    };
    ($t:ty, $variant:ident, $default:expr, $check:path, $($pat:pat_param)|+) => {
        impl PrimitiveType for $t {
            #[inline]
            fn fits<A: Allocator>(dt: &DataType<'_, A>) -> bool {
                #[allow(unused_imports)]
                use DataType::*;
                matches!(dt, $($pat)|+)
            }
            fn default_data_type<'a, A: Allocator>() -> DataType<'a, A> {
                #[allow(unused_imports)]
                use DataType::*;
                $default
            }
            fn into_array_ref<'a, A: Allocator>(a: PrimitiveArray<'a, Self, A>) -> ArrayRef<'a, A> {
                ArrayRef::$variant(a)
            }
            fn downcast<'b, 'a, A: Allocator>(
                a: &'b ArrayRef<'a, A>,
            ) -> Option<&'b PrimitiveArray<'a, Self, A>> {
                match a {
                    ArrayRef::$variant(p) => Some(p),
                    _ => None,
                }
            }
            #[inline]
            fn validate_values<A: Allocator>(
                dt: &DataType<'_, A>,
                values: &[Self],
                nulls: Option<&NullBuffer<'_, A>>,
            ) -> Result<()> {
                $check(dt, values, nulls)
            }
        }
    };
}

primitive_type!(i8, Int8, Int8, Int8);
primitive_type!(i16, Int16, Int16, Int16);
primitive_type!(
    i32,
    Int32,
    Int32,
    primitive_values::check_i32,
    Int32 | Date32 | Time32(_) | Decimal32(..) | Interval(IntervalUnit::YearMonth)
);
primitive_type!(
    i64,
    Int64,
    Int64,
    primitive_values::check_i64,
    Int64 | Date64 | Time64(_) | Timestamp(..) | Duration(_) | Decimal64(..)
);
primitive_type!(u8, UInt8, UInt8, UInt8);
primitive_type!(u16, UInt16, UInt16, UInt16);
primitive_type!(u32, UInt32, UInt32, UInt32);
primitive_type!(u64, UInt64, UInt64, UInt64);
primitive_type!(f16, Float16, Float16, Float16);
primitive_type!(f32, Float32, Float32, Float32);
primitive_type!(f64, Float64, Float64, Float64);
primitive_type!(
    i128,
    Int128,
    Decimal128(38, 0),
    primitive_values::check_i128,
    Decimal128(..)
);
primitive_type!(
    i256,
    Int256,
    Decimal256(76, 0),
    primitive_values::check_i256,
    Decimal256(..)
);
primitive_type!(
    IntervalDayTime,
    IntervalDayTime,
    Interval(IntervalUnit::DayTime),
    Interval(IntervalUnit::DayTime)
);
primitive_type!(
    IntervalMonthDayNano,
    IntervalMonthDayNano,
    Interval(IntervalUnit::MonthDayNano),
    Interval(IntervalUnit::MonthDayNano)
);

/// An array of fixed-width values of native type `T` (every integer, float,
/// decimal, temporal and interval type), with an optional validity bitmap.
///
/// Slot `i` is `values[i]`; its bytes are those of the "Fixed-size Primitive
/// Layout" (native endianness, no gaps).
///
/// The aliases name the storage type: [`Int32Array`], [`Float64Array`], …
/// A logical type other than the storage's default (Date32, Timestamp,
/// Decimal128, …) is set with [`Self::with_data_type`].
///
/// ```
/// use alkaid::array::{Array, Int32Array, Int64Array};
/// use alkaid::datatypes::{DataType, TimeUnit};
///
/// let a = Int32Array::from(vec![Some(1), None, Some(3)]);
/// assert_eq!((a.len(), a.null_count()), (3, 1));
/// assert_eq!(a.iter().collect::<Vec<_>>(), [Some(1), None, Some(3)]);
/// assert_eq!(a.get(2), Some(3));
/// assert_eq!(a.get(9), None); // out of range: no panic
///
/// // Slicing shares the values buffer (no copy) and keeps the nulls.
/// let s = a.slice(1, 2)?;
/// assert_eq!((s.len(), s.null_count(), s.get(1)), (2, 1, Some(3)));
///
/// // Same storage, another logical type: milliseconds since the epoch.
/// let ts = Int64Array::from(vec![1_700_000_000_000])
///     .with_data_type(DataType::Timestamp(TimeUnit::Millisecond, None))?;
/// assert_eq!(ts.data_type(), &DataType::Timestamp(TimeUnit::Millisecond, None));
/// # Ok::<(), alkaid::Error>(())
/// ```
///
/// A firmware builds a column over its own sample array without copying it:
///
/// ```
/// use alkaid::array::{Array, PrimitiveArray};
/// use alkaid::NoAlloc;
///
/// let samples: [u16; 4] = [512, 513, 515, 514];
/// let column: PrimitiveArray<'_, u16, NoAlloc> = PrimitiveArray::from_slice(&samples);
/// assert_eq!(column.values(), &samples);
/// assert_eq!(column.values().as_ptr(), samples.as_ptr()); // zero copy
/// ```
#[derive_where(Clone)]
pub struct PrimitiveArray<
    'a,
    T: PrimitiveType,
    #[cfg(feature = "alloc")] A: Allocator = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator,
> {
    data_type: DataType<'a, A>,
    values: ScalarBuffer<'a, T, A>,
    nulls: Option<NullBuffer<'a, A>>,
}

macro_rules! primitive_aliases {
    ($($native:ty => $array:ident, $builder:ident, $what:literal;)*) => {$(
        #[doc = concat!("A [`PrimitiveArray`] of `", stringify!($native), "` values (", $what, ").")]
        pub type $array<
            'a,
            #[cfg(feature = "alloc")] A = crate::Global,
            #[cfg(not(feature = "alloc"))] A,
        > = PrimitiveArray<'a, $native, A>;
        #[doc = concat!("A [`PrimitiveBuilder`] of `", stringify!($native), "` values.")]
        pub type $builder<
            'a,
            #[cfg(feature = "alloc")] A = crate::Global,
            #[cfg(not(feature = "alloc"))] A,
        > = PrimitiveBuilder<'a, $native, A>;
    )*};
}

primitive_aliases! {
    i8 => Int8Array, Int8Builder, "Int8";
    i16 => Int16Array, Int16Builder, "Int16";
    i32 => Int32Array, Int32Builder, "Int32, and the storage of Date32, Time32, Decimal32 and Interval(YearMonth)";
    i64 => Int64Array, Int64Builder, "Int64, and the storage of Date64, Time64, Timestamp, Duration and Decimal64";
    u8 => UInt8Array, UInt8Builder, "UInt8";
    u16 => UInt16Array, UInt16Builder, "UInt16";
    u32 => UInt32Array, UInt32Builder, "UInt32";
    u64 => UInt64Array, UInt64Builder, "UInt64";
    half::f16 => Float16Array, Float16Builder, "Float16";
    f32 => Float32Array, Float32Builder, "Float32";
    f64 => Float64Array, Float64Builder, "Float64";
    i128 => Decimal128Array, Decimal128Builder, "the storage of Decimal128: give the builder `DataType::Decimal128(precision, scale)` with `with_data_type`";
    crate::native::i256 => Decimal256Array, Decimal256Builder, "the storage of Decimal256";
}

impl<'a, T: PrimitiveType, A: Allocator> PrimitiveArray<'a, T, A> {
    /// An array of `data_type` over `values` and an optional validity bitmap.
    ///
    /// # Errors
    /// [`Error::TypeMismatch`] when `T` does not store `data_type`;
    /// [`Error::InvalidDataType`] for bad type parameters;
    /// [`Error::ValidityTooSmall`] when the bitmap's length differs from the values'.
    /// The value rules (decimal precision, whole-day Date64, time of day) are
    /// not checked here: call [`Array::validate`] with
    /// [`ValidationLevel::Strict`] for them.
    pub fn try_new(
        data_type: DataType<'a, A>,
        values: ScalarBuffer<'a, T, A>,
        nulls: Option<NullBuffer<'a, A>>,
    ) -> Result<Self> {
        let a = PrimitiveArray {
            data_type,
            values,
            nulls,
        };
        a.validate(ValidationLevel::Full)?;
        Ok(a)
    }

    /// As [`Self::try_new`] without any check.
    ///
    /// # Safety
    /// `T` must store `data_type`, and `nulls` (if any) must have the values' length.
    pub unsafe fn new_unchecked(
        data_type: DataType<'a, A>,
        values: ScalarBuffer<'a, T, A>,
        nulls: Option<NullBuffer<'a, A>>,
    ) -> Self {
        PrimitiveArray {
            data_type,
            values,
            nulls,
        }
    }

    /// A zero-copy array over caller values, of `T`'s default type, no nulls
    /// (the firmware path: a column straight from a sample array).
    pub fn from_slice(values: &'a [T]) -> Self {
        PrimitiveArray {
            data_type: T::default_data_type(),
            values: ScalarBuffer::from_slice_ref(values),
            nulls: None,
        }
    }

    /// Copies `values` (`None` = null) into memory from `alloc`.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`].
    pub fn try_from_options_in(values: &[Option<T>], alloc: A) -> Result<Self>
    where
        A: Clone,
    {
        let mut b = PrimitiveBuilder::new_in(alloc);
        b.try_reserve(values.len())?;
        for v in values {
            b.try_append_option(*v)?;
        }
        Ok(b.finish())
    }

    /// Replaces the logical type (e.g. Int64 → Timestamp).
    ///
    /// # Errors
    /// [`Error::TypeMismatch`] when `T` does not store `data_type`.
    pub fn with_data_type(mut self, data_type: DataType<'a, A>) -> Result<Self> {
        check_stores::<T, A>(&data_type)?;
        self.data_type = data_type;
        Ok(self)
    }

    /// All values, including those in null slots (whose content is unspecified).
    #[inline]
    pub fn values(&self) -> &[T] {
        &self.values
    }

    /// The values buffer.
    pub fn values_buffer(&self) -> &ScalarBuffer<'a, T, A> {
        &self.values
    }

    /// The value in slot `i` whatever its validity, or `None` when `i >= len`.
    #[inline]
    pub fn value(&self, i: usize) -> Option<T> {
        self.values.get(i).copied()
    }

    /// `Some(value)` for a valid slot, `None` for a null or missing one.
    #[inline]
    pub fn get(&self, i: usize) -> Option<T> {
        if self.is_valid(i) {
            self.value(i)
        } else {
            None
        }
    }

    /// Iterates the slots as options.
    pub fn iter(&self) -> impl Iterator<Item = Option<T>> + '_ {
        (0..self.len()).map(move |i| self.get(i))
    }

    /// Splits into type, values and bitmap.
    pub fn into_parts(
        self,
    ) -> (
        DataType<'a, A>,
        ScalarBuffer<'a, T, A>,
        Option<NullBuffer<'a, A>>,
    ) {
        (self.data_type, self.values, self.nulls)
    }
}

impl<'a, T: PrimitiveType, A: Allocator> Array<'a, A> for PrimitiveArray<'a, T, A> {
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
        Ok(PrimitiveArray {
            data_type: self.data_type.clone(),
            values: self.values.slice(offset, len)?,
            nulls: crate::buffer::slice_nulls(self.nulls.as_ref(), offset, len)?,
        })
    }

    fn validate(&self, level: ValidationLevel) -> Result<()> {
        if level == ValidationLevel::None {
            return Ok(());
        }
        if !T::fits(&self.data_type) {
            return Err(Error::TypeMismatch);
        }
        self.data_type.validate()?;
        validate_nulls(self.nulls.as_ref(), self.len(), level)?;
        if level >= ValidationLevel::Strict {
            T::validate_values(&self.data_type, &self.values, self.nulls.as_ref())?;
        }
        Ok(())
    }

    fn into_array_ref(self) -> ArrayRef<'a, A> {
        T::into_array_ref(self)
    }
}

impl<T: PrimitiveType, A: Allocator> fmt::Debug for PrimitiveArray<'_, T, A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PrimitiveArray<{:?}> ", self.data_type)?;
        f.debug_list().entries(self.iter()).finish()
    }
}

/// Builds a [`PrimitiveArray`] in memory from `A`, one slot at a time.
///
/// The validity bitmap is only allocated once a null is appended.
///
/// ```
/// use alkaid::array::{Array, Decimal128Builder};
/// use alkaid::datatypes::DataType;
///
/// // 12.34 and 5.00 as Decimal128(precision 5, scale 2).
/// let mut b = Decimal128Builder::new().with_data_type(DataType::Decimal128(5, 2))?;
/// b.try_append_slice(&[1234, 500])?;
/// b.try_append_null()?;
/// let a = b.finish();
/// assert_eq!(a.data_type(), &DataType::Decimal128(5, 2));
/// assert_eq!(a.iter().collect::<Vec<_>>(), [Some(1234), Some(500), None]);
/// # Ok::<(), alkaid::Error>(())
/// ```
///
/// With an explicit allocator (`*_in`), here a fixed arena from
/// `alkaid-alloc` as a firmware would use: every buffer comes from the
/// arena, and running out of it is an error, not an abort.
///
/// ```
/// use alkaid::array::{Array, PrimitiveBuilder};
/// use alkaid_alloc::StaticArena;
///
/// static ARENA: StaticArena<1024> = StaticArena::new();
///
/// let mut b = PrimitiveBuilder::<f32, _>::new_in(&ARENA);
/// b.try_append_slice(&[20.5, 21.0, 21.25])?;
/// let a = b.finish();
/// assert_eq!(a.values(), &[20.5, 21.0, 21.25]);
/// assert!(ARENA.used() >= 64); // one 64-byte aligned, padded values buffer
///
/// // 1024 bytes hold at most 256 `f32`: a larger column fails cleanly.
/// let mut big = PrimitiveBuilder::<f32, _>::new_in(&ARENA);
/// assert!(big.try_reserve(1000).is_err()); // Error::AllocationFailed
/// # Ok::<(), alkaid::Error>(())
/// ```
#[derive(Debug)]
pub struct PrimitiveBuilder<
    'a,
    T: PrimitiveType,
    #[cfg(feature = "alloc")] A: Allocator + Clone = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator + Clone,
> {
    data_type: DataType<'a, A>,
    values: MutableBuffer<A>,
    nulls: NullBufferBuilder<A>,
    _t: core::marker::PhantomData<T>,
}

impl<'a, T: PrimitiveType, A: Allocator + Clone> PrimitiveBuilder<'a, T, A> {
    /// An empty builder of `T`'s default type; allocates nothing yet.
    pub fn new_in(alloc: A) -> Self {
        PrimitiveBuilder {
            data_type: T::default_data_type(),
            values: MutableBuffer::new_in(alloc.clone()),
            nulls: NullBufferBuilder::new_in(alloc),
            _t: core::marker::PhantomData,
        }
    }

    /// Sets the logical type.
    ///
    /// # Errors
    /// [`Error::TypeMismatch`] when `T` does not store `data_type`;
    /// [`Error::InvalidDataType`] for bad type parameters.
    pub fn with_data_type(mut self, data_type: DataType<'a, A>) -> Result<Self> {
        check_stores::<T, A>(&data_type)?;
        self.data_type = data_type;
        Ok(self)
    }

    /// Number of slots appended.
    pub fn len(&self) -> usize {
        self.nulls.len()
    }

    /// `true` when nothing was appended.
    pub fn is_empty(&self) -> bool {
        self.nulls.is_empty()
    }

    /// Makes room for `additional` more values.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`], [`Error::CapacityOverflow`].
    pub fn try_reserve(&mut self, additional: usize) -> Result<()> {
        let bytes = additional
            .checked_mul(core::mem::size_of::<T>())
            .ok_or(Error::CapacityOverflow)?;
        self.values.try_reserve(bytes)
    }

    /// Appends a valid value.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`], [`Error::CapacityOverflow`].
    #[inline]
    pub fn try_append_value(&mut self, v: T) -> Result<()> {
        self.values.try_push(v)?;
        self.nulls.try_append_non_null()
    }

    /// Appends a null (a zero value in the values buffer).
    ///
    /// # Errors
    /// [`Error::AllocationFailed`], [`Error::CapacityOverflow`].
    pub fn try_append_null(&mut self) -> Result<()> {
        self.values.try_push(T::default())?;
        self.nulls.try_append_null()
    }

    /// Appends `Some(v)` as a value, `None` as a null.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`], [`Error::CapacityOverflow`].
    #[inline]
    pub fn try_append_option(&mut self, v: Option<T>) -> Result<()> {
        match v {
            Some(v) => self.try_append_value(v),
            None => self.try_append_null(),
        }
    }

    /// Appends valid values.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`], [`Error::CapacityOverflow`].
    pub fn try_append_slice(&mut self, values: &[T]) -> Result<()> {
        self.values.try_extend_from_typed(values)?;
        self.nulls.try_append_n_non_nulls(values.len())
    }

    /// Freezes the values into an array (no copy).
    pub fn finish(self) -> PrimitiveArray<'a, T, A> {
        let values = ScalarBuffer::try_from_buffer(self.values.into_buffer());
        PrimitiveArray {
            data_type: self.data_type,
            // Built from whole `T`s in a 64-byte aligned buffer: cannot fail.
            values: values.unwrap_or_else(|_| ScalarBuffer::empty()),
            nulls: self.nulls.finish(),
        }
    }
}

/// Checks that `T` stores `data_type` and that its parameters are valid.
///
/// # Errors
/// [`Error::TypeMismatch`] when `T` does not store `data_type`;
/// [`Error::InvalidDataType`] for bad type parameters.
fn check_stores<T: PrimitiveType, A: Allocator>(data_type: &DataType<'_, A>) -> Result<()> {
    if !T::fits(data_type) {
        return Err(Error::TypeMismatch);
    }
    data_type.validate()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Global;

    /// "Fixed-size Primitive Layout" example: Int32 `[1, null, 2, 4, 8]`.
    #[test]
    fn spec_example_int32_with_nulls() {
        let a = PrimitiveArray::<i32, Global>::try_from_options_in(
            &[Some(1), None, Some(2), Some(4), Some(8)],
            Global,
        )
        .unwrap();
        assert_eq!(a.len(), 5);
        assert_eq!(a.null_count(), 1);
        let bitmap = a.nulls().unwrap().inner().inner();
        assert_eq!(bitmap.as_slice(), &[0b0001_1101]);
        assert_eq!(bitmap.len(), 1);
        let bytes = a.values_buffer().inner().as_slice();
        let mut expected = [0u8; 20];
        for (i, v) in [1i32, 0, 2, 4, 8].iter().enumerate() {
            expected[i * 4..i * 4 + 4].copy_from_slice(&v.to_ne_bytes());
        }
        assert_eq!(bytes, &expected);
        assert_eq!(a.values_buffer().inner().as_ptr() as usize % 64, 0);
    }

    /// Spec example without nulls: Int32 `[1, 2, 3, 4, 8]` has no bitmap.
    #[test]
    fn spec_example_int32_no_nulls() {
        let mut b = PrimitiveBuilder::<i32, Global>::new_in(Global);
        b.try_append_slice(&[1, 2, 3, 4, 8]).unwrap();
        let a = b.finish();
        assert!(a.nulls().is_none());
        assert_eq!(a.values(), &[1, 2, 3, 4, 8]);
    }

    #[test]
    fn slice_and_types() {
        let data = [1i64, 2, 3, 4];
        let a = PrimitiveArray::<i64, Global>::from_slice(&data);
        assert_eq!(a.values().as_ptr(), data.as_ptr());
        let s = a.slice(1, 2).unwrap();
        assert_eq!(s.values(), &[2, 3]);
        assert_eq!(a.slice(3, 2).unwrap_err(), Error::OutOfBounds);
        let t = a
            .clone()
            .with_data_type(DataType::Timestamp(
                crate::datatypes::TimeUnit::Second,
                None,
            ))
            .unwrap();
        assert!(matches!(t.data_type(), DataType::Timestamp(..)));
        assert_eq!(
            a.with_data_type(DataType::Int32).unwrap_err(),
            Error::TypeMismatch
        );
    }

    #[test]
    fn validity_length_must_match() {
        let v = [1u8, 2, 3];
        let nulls = PrimitiveArray::<u8, Global>::try_from_options_in(&[Some(1), None], Global)
            .unwrap()
            .nulls()
            .cloned();
        let r = PrimitiveArray::try_new(DataType::UInt8, ScalarBuffer::from_slice_ref(&v), nulls);
        assert_eq!(r.unwrap_err(), Error::ValidityTooSmall);
    }

    /// Regression: an empty builder's values buffer is the byte-aligned `&[]`;
    /// reading it as `i64`s must give the empty slice, not a misaligned one.
    #[test]
    fn empty_arrays_of_wide_types() {
        let a = PrimitiveBuilder::<i64, Global>::new_in(Global).finish();
        assert_eq!(a.values(), &[] as &[i64]);
        assert_eq!(
            a.values().as_ptr() as usize % core::mem::align_of::<i64>(),
            0
        );
        let b = PrimitiveBuilder::<crate::native::i256, Global>::new_in(Global).finish();
        assert!(b.values().is_empty());
        assert_eq!(a.slice(0, 0).unwrap().len(), 0);
    }

    #[test]
    fn invalid_decimal_precision() {
        let v = [1i128];
        let r = PrimitiveArray::<i128, Global>::try_new(
            DataType::Decimal128(39, 0),
            ScalarBuffer::from_slice_ref(&v),
            None,
        );
        assert_eq!(r.unwrap_err(), Error::InvalidDataType);
    }
}
