//! Typed access to an [`ArrayRef`] by physical layout and by logical type
//! (arrow-rs: the `AsArray` trait).
//!
//! An [`ArrayRef`] has one variant per physical layout: a Date32 column is an
//! `ArrayRef::Int32` whose [`Array::data_type`] is `DataType::Date32`. The
//! `as_*` methods here are the way to reach the typed array without knowing
//! that mapping: `as_primitive::<i64>()` by storage type, or
//! `as_date32()`, `as_timestamp()`, `as_decimal128()`, … by logical type
//! (they check the data type too). Each returns `None` when the array is of
//! another type.
//!
//! ```
//! use alkaid::array::{Array, ArrayRef, Int32Array, RecordBatch, StringArray};
//! use alkaid::datatypes::DataType;
//!
//! let days = Int32Array::from(vec![19_000, 19_001]).with_data_type(DataType::Date32)?;
//! let batch = RecordBatch::try_from_iter([
//!     ("day", days.into_array_ref()),
//!     ("name", StringArray::from(vec!["a", "b"]).into_array_ref()),
//! ])?;
//! let day = batch.column(0).and_then(ArrayRef::as_date32).ok_or(alkaid::Error::TypeMismatch)?;
//! assert_eq!(day.values(), &[19_000, 19_001]);
//! assert!(batch.column(0).and_then(ArrayRef::as_time32).is_none());
//! let name = batch.column(1).and_then(ArrayRef::as_string).ok_or(alkaid::Error::TypeMismatch)?;
//! assert_eq!(name.value(1), Some("b"));
//! # Ok::<(), alkaid::Error>(())
//! ```

use allocator_api2::alloc::Allocator;

use super::{
    Array, ArrayRef, BinaryArray, BooleanArray, FixedSizeBinaryArray, LargeBinaryArray,
    LargeStringArray, NullArray, PrimitiveArray, PrimitiveType, StringArray,
};
use crate::datatypes::{DataType, IntervalUnit};
use crate::native::i256;

/// The variant `$v` of `$self`, or `None`.
macro_rules! variant {
    ($self:expr, $v:ident) => {
        match $self {
            ArrayRef::$v(a) => Some(a),
            #[allow(unreachable_patterns)]
            _ => None,
        }
    };
}

/// One `as_*` method per (logical type test, storage type).
macro_rules! logical {
    ($($(#[$doc:meta])* $name:ident: $native:ty, $pat:pat => ;)*) => {$(
        $(#[$doc])*
        pub fn $name(&self) -> Option<&PrimitiveArray<'a, $native, A>> {
            match self.data_type() {
                $pat => self.as_primitive::<$native>(),
                _ => None,
            }
        }
    )*};
}

impl<'a, A: Allocator> ArrayRef<'a, A> {
    /// The primitive array stored as `T` (any logical type of that storage:
    /// `i32` reaches Int32, Date32, Time32, Decimal32 and
    /// Interval(YearMonth) columns).
    pub fn as_primitive<T: PrimitiveType>(&self) -> Option<&PrimitiveArray<'a, T, A>> {
        T::downcast(self)
    }

    /// The array if it is [`DataType::Null`].
    pub fn as_null(&self) -> Option<&NullArray<'a, A>> {
        variant!(self, Null)
    }

    /// The array if it is [`DataType::Boolean`].
    pub fn as_boolean(&self) -> Option<&BooleanArray<'a, A>> {
        variant!(self, Boolean)
    }

    /// The array if it is [`DataType::Utf8`].
    pub fn as_string(&self) -> Option<&StringArray<'a, A>> {
        variant!(self, Utf8)
    }

    /// The array if it is [`DataType::LargeUtf8`].
    pub fn as_large_string(&self) -> Option<&LargeStringArray<'a, A>> {
        variant!(self, LargeUtf8)
    }

    /// The array if it is [`DataType::Binary`].
    pub fn as_binary(&self) -> Option<&BinaryArray<'a, A>> {
        variant!(self, Binary)
    }

    /// The array if it is [`DataType::LargeBinary`].
    pub fn as_large_binary(&self) -> Option<&LargeBinaryArray<'a, A>> {
        variant!(self, LargeBinary)
    }

    /// The array if it is [`DataType::FixedSizeBinary`] (including the
    /// storage of the UUID extension type).
    pub fn as_fixed_size_binary(&self) -> Option<&FixedSizeBinaryArray<'a, A>> {
        variant!(self, FixedSizeBinary)
    }

    logical! {
        /// The array if it is [`DataType::Decimal32`] (precision and scale in
        /// its data type).
        as_decimal32: i32, DataType::Decimal32(..) => ;
        /// The array if it is [`DataType::Decimal64`].
        as_decimal64: i64, DataType::Decimal64(..) => ;
        /// The array if it is [`DataType::Decimal128`].
        as_decimal128: i128, DataType::Decimal128(..) => ;
        /// The array if it is [`DataType::Decimal256`].
        as_decimal256: i256, DataType::Decimal256(..) => ;
        /// The array if it is [`DataType::Date32`]: days since the UNIX epoch.
        as_date32: i32, DataType::Date32 => ;
        /// The array if it is [`DataType::Date64`]: milliseconds since the
        /// UNIX epoch, whole days.
        as_date64: i64, DataType::Date64 => ;
        /// The array if it is [`DataType::Time32`] (seconds or milliseconds
        /// since midnight, unit in its data type).
        as_time32: i32, DataType::Time32(_) => ;
        /// The array if it is [`DataType::Time64`] (micro- or nanoseconds
        /// since midnight).
        as_time64: i64, DataType::Time64(_) => ;
        /// The array if it is [`DataType::Timestamp`] (unit and time zone in
        /// its data type): time since the UNIX epoch.
        as_timestamp: i64, DataType::Timestamp(..) => ;
        /// The array if it is [`DataType::Duration`].
        as_duration: i64, DataType::Duration(_) => ;
        /// The array if it is Interval(YearMonth): months.
        as_interval_year_month: i32, DataType::Interval(IntervalUnit::YearMonth) => ;
    }
}

#[cfg(feature = "views")]
impl<'a, A: Allocator> ArrayRef<'a, A> {
    /// The array if it is [`DataType::Utf8View`].
    pub fn as_string_view(&self) -> Option<&super::StringViewArray<'a, A>> {
        variant!(self, Utf8View)
    }

    /// The array if it is [`DataType::BinaryView`].
    pub fn as_binary_view(&self) -> Option<&super::BinaryViewArray<'a, A>> {
        variant!(self, BinaryView)
    }
}

#[cfg(feature = "nested")]
impl<'a, A: Allocator> ArrayRef<'a, A> {
    /// The array if it is [`DataType::List`].
    pub fn as_list(&self) -> Option<&super::ListArray<'a, A>> {
        variant!(self, List)
    }

    /// The array if it is [`DataType::LargeList`].
    pub fn as_large_list(&self) -> Option<&super::LargeListArray<'a, A>> {
        variant!(self, LargeList)
    }

    /// The array if it is [`DataType::ListView`].
    pub fn as_list_view(&self) -> Option<&super::ListViewArray<'a, A>> {
        variant!(self, ListView)
    }

    /// The array if it is [`DataType::LargeListView`].
    pub fn as_large_list_view(&self) -> Option<&super::LargeListViewArray<'a, A>> {
        variant!(self, LargeListView)
    }

    /// The array if it is [`DataType::FixedSizeList`] (including the storage
    /// of the fixed-shape tensor extension type).
    pub fn as_fixed_size_list(&self) -> Option<&super::FixedSizeListArray<'a, A>> {
        variant!(self, FixedSizeList)
    }

    /// The array if it is [`DataType::Struct`].
    pub fn as_struct(&self) -> Option<&super::StructArray<'a, A>> {
        variant!(self, Struct)
    }

    /// The array if it is [`DataType::Map`].
    pub fn as_map(&self) -> Option<&super::MapArray<'a, A>> {
        variant!(self, Map)
    }
}

#[cfg(feature = "union")]
impl<'a, A: Allocator> ArrayRef<'a, A> {
    /// The array if it is a sparse or dense [`DataType::Union`].
    pub fn as_union(&self) -> Option<&super::UnionArray<'a, A>> {
        variant!(self, Union)
    }
}

#[cfg(feature = "dictionary")]
impl<'a, A: Allocator> ArrayRef<'a, A> {
    /// The array if it is dictionary encoded ([`DataType::Dictionary`]).
    pub fn as_dictionary(&self) -> Option<&super::DictionaryArray<'a, A>> {
        variant!(self, Dictionary)
    }
}

#[cfg(feature = "run-end")]
impl<'a, A: Allocator> ArrayRef<'a, A> {
    /// The array if it is run-end encoded ([`DataType::RunEndEncoded`]).
    pub fn as_run(&self) -> Option<&super::RunArray<'a, A>> {
        variant!(self, RunEndEncoded)
    }
}
