//! Logical types: [`DataType`], [`Field`], [`Schema`].
//!
//! Implements the "Data Types" table of the columnar format (and the tables of
//! `Schema.fbs`). Metadata is allocator-generic like the arrays: names, child
//! fields and key-value metadata are [`SharedSlice`]s that either borrow
//! `'a` memory (so a firmware can define a `static` schema in flash with no
//! allocation) or live in memory from `A`.

mod field;
mod schema;

pub use field::{Field, FieldRef, Fields, Metadata, EXTENSION_METADATA_KEY, EXTENSION_NAME_KEY};
pub use schema::Schema;

use allocator_api2::alloc::Allocator;
use derive_where::derive_where;

use crate::buffer::{SharedBox, SharedSlice, SharedStr};
use crate::error::{Error, Result};

/// Unit of Time32/Time64/Timestamp/Duration values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TimeUnit {
    /// Seconds.
    Second,
    /// Milliseconds (10⁻³ s).
    Millisecond,
    /// Microseconds (10⁻⁶ s).
    Microsecond,
    /// Nanoseconds (10⁻⁹ s).
    Nanosecond,
}

/// Unit of Interval values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IntervalUnit {
    /// Months, as one `i32`.
    YearMonth,
    /// Days and milliseconds, two `i32`s ([`crate::native::IntervalDayTime`]).
    DayTime,
    /// Months and days (`i32`) and nanoseconds (`i64`) ([`crate::native::IntervalMonthDayNano`]).
    MonthDayNano,
}

/// Whether a union has an offsets buffer (dense) or not (sparse).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UnionMode {
    /// Every child has the union's length; no offsets.
    Sparse,
    /// Children are packed; an `i32` offset per slot points into its child.
    Dense,
}

/// Integer type of dictionary indices (signed preferred, 8 to 64 bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IndexType {
    /// `i8`
    Int8,
    /// `i16`
    Int16,
    /// `i32`
    Int32,
    /// `i64`
    Int64,
    /// `u8`
    UInt8,
    /// `u16`
    UInt16,
    /// `u32`
    UInt32,
    /// `u64`
    UInt64,
}

impl IndexType {
    /// Width of one index in bytes.
    pub const fn byte_width(self) -> usize {
        match self {
            IndexType::Int8 | IndexType::UInt8 => 1,
            IndexType::Int16 | IndexType::UInt16 => 2,
            IndexType::Int32 | IndexType::UInt32 => 4,
            IndexType::Int64 | IndexType::UInt64 => 8,
        }
    }

    /// `true` for the signed types.
    pub const fn is_signed(self) -> bool {
        matches!(
            self,
            IndexType::Int8 | IndexType::Int16 | IndexType::Int32 | IndexType::Int64
        )
    }
}

/// The type ids of a union and the field of each, in the same order.
///
/// ```
/// use alkaid::buffer::SharedSlice;
/// use alkaid::datatypes::{DataType, Field, UnionFields};
///
/// let fields = vec![Field::new("i", DataType::Int32, true), Field::new("s", DataType::Utf8, true)];
/// let u: UnionFields = UnionFields::try_new(SharedSlice::from(vec![3, 7]), fields.clone().into())?;
/// assert_eq!((u.len(), u.child_index(7), u.child_index(0)), (2, Some(1), None));
/// // Type ids are 0..=127 and distinct.
/// assert!(UnionFields::try_new(SharedSlice::from(vec![3, 3]), fields.into()).is_err()); // Error::InvalidDataType
/// # Ok::<(), alkaid::Error>(())
/// ```
#[derive_where(Clone, Debug, PartialEq)]
pub struct UnionFields<
    'a,
    #[cfg(feature = "alloc")] A: Allocator = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator,
> {
    type_ids: SharedSlice<'a, i8, A>,
    fields: Fields<'a, A>,
}

impl<'a, A: Allocator> UnionFields<'a, A> {
    /// Pairs `type_ids[i]` with `fields[i]`.
    ///
    /// # Errors
    /// [`Error::InvalidDataType`] when the lengths differ, an id is negative
    /// (ids are 0..=127) or an id repeats.
    pub fn try_new(type_ids: SharedSlice<'a, i8, A>, fields: Fields<'a, A>) -> Result<Self> {
        if type_ids.len() != fields.len() {
            return Err(Error::InvalidDataType);
        }
        let mut seen = [false; 128];
        for &id in type_ids.iter() {
            let i = usize::try_from(id).map_err(|_| Error::InvalidDataType)?;
            if core::mem::replace(&mut seen[i], true) {
                return Err(Error::InvalidDataType);
            }
        }
        Ok(UnionFields { type_ids, fields })
    }

    /// The declared type ids.
    pub fn type_ids(&self) -> &[i8] {
        &self.type_ids
    }

    /// The child fields (same order as [`Self::type_ids`]).
    pub fn fields(&self) -> &Fields<'a, A> {
        &self.fields
    }

    /// Number of children.
    pub fn len(&self) -> usize {
        self.fields.len()
    }

    /// `true` when the union has no children.
    pub fn is_empty(&self) -> bool {
        self.fields.is_empty()
    }

    /// Index of the child with type id `id`, or `None` when undeclared.
    #[inline]
    pub fn child_index(&self, id: i8) -> Option<usize> {
        self.type_ids.iter().position(|&t| t == id)
    }
}

/// An Arrow data type ("Data Types" table of the columnar format).
///
/// Nested types refer to child [`Field`]s (name, type, nullability, metadata)
/// as Arrow does. `'a` is the lifetime of borrowed names/metadata, `A` the
/// allocator of owned ones.
///
/// ```
/// use alkaid::buffer::{SharedBox, SharedStr};
/// use alkaid::datatypes::{DataType, Field, TimeUnit};
/// use alkaid::Global;
///
/// let ts: DataType = DataType::Timestamp(TimeUnit::Microsecond, Some(SharedStr::borrowed("UTC")));
/// assert_eq!(ts.primitive_width(), Some(8)); // bytes per value
/// assert_eq!(DataType::<Global>::Boolean.primitive_width(), None); // bit-packed
///
/// // Nested types name their child fields: List<Float32>.
/// let item = SharedBox::try_new_in(Field::new("item", DataType::Float32, true), Global)?;
/// let list = DataType::List(item);
/// assert!(list.is_nested());
///
/// // Parameters are checked by `validate`: Decimal128 holds at most 38 digits.
/// assert!(DataType::<Global>::Decimal128(38, 2).validate().is_ok());
/// assert!(DataType::<Global>::Decimal128(39, 2).validate().is_err()); // Error::InvalidDataType
/// # Ok::<(), alkaid::Error>(())
/// ```
#[derive_where(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum DataType<
    'a,
    #[cfg(feature = "alloc")] A: Allocator = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator,
> {
    /// No values: every slot is null; no buffers.
    Null,
    /// Bit-packed booleans.
    Boolean,
    /// `i8`
    Int8,
    /// `i16`
    Int16,
    /// `i32`
    Int32,
    /// `i64`
    Int64,
    /// `u8`
    UInt8,
    /// `u16`
    UInt16,
    /// `u32`
    UInt32,
    /// `u64`
    UInt64,
    /// IEEE 754 half precision.
    Float16,
    /// IEEE 754 single precision.
    Float32,
    /// IEEE 754 double precision.
    Float64,
    /// Decimal in an `i32`: (precision 1..=9, scale).
    Decimal32(u8, i8),
    /// Decimal in an `i64`: (precision 1..=18, scale).
    Decimal64(u8, i8),
    /// Decimal in an `i128`: (precision 1..=38, scale).
    Decimal128(u8, i8),
    /// Decimal in an [`crate::native::i256`]: (precision 1..=76, scale).
    Decimal256(u8, i8),
    /// Days since the UNIX epoch, `i32`.
    Date32,
    /// Milliseconds since the UNIX epoch, `i64`.
    Date64,
    /// Time of day in an `i32`: seconds or milliseconds.
    Time32(TimeUnit),
    /// Time of day in an `i64`: microseconds or nanoseconds.
    Time64(TimeUnit),
    /// `i64` since the UNIX epoch, with an optional IANA or `±HH:MM` time zone.
    Timestamp(TimeUnit, Option<SharedStr<'a, A>>),
    /// Calendar interval.
    Interval(IntervalUnit),
    /// `i64` elapsed time.
    Duration(TimeUnit),
    /// Byte strings of one width (in bytes, >= 0).
    FixedSizeBinary(i32),
    /// Byte strings, 32-bit offsets.
    Binary,
    /// Byte strings, 64-bit offsets.
    LargeBinary,
    /// UTF-8 strings, 32-bit offsets.
    Utf8,
    /// UTF-8 strings, 64-bit offsets.
    LargeUtf8,
    /// Byte strings as 16-byte views with variadic data buffers.
    BinaryView,
    /// UTF-8 strings as 16-byte views with variadic data buffers.
    Utf8View,
    /// Lists, 32-bit offsets.
    List(FieldRef<'a, A>),
    /// Lists, 64-bit offsets.
    LargeList(FieldRef<'a, A>),
    /// Lists as (offset, size) pairs, 32-bit.
    ListView(FieldRef<'a, A>),
    /// Lists as (offset, size) pairs, 64-bit.
    LargeListView(FieldRef<'a, A>),
    /// Lists of one length (>= 0).
    FixedSizeList(FieldRef<'a, A>, i32),
    /// Named children of equal length.
    Struct(Fields<'a, A>),
    /// A list of `entries: Struct<key, value>` (non-null keys), and whether the
    /// keys of each map are sorted.
    Map(FieldRef<'a, A>, bool),
    /// Sparse or dense union of the children.
    Union(UnionFields<'a, A>, UnionMode),
    /// Dictionary encoded: (index type, value type, ordered).
    Dictionary(IndexType, SharedBox<'a, DataType<'a, A>, A>, bool),
    /// Run-end encoded: (run ends field: Int16/32/64, values field).
    RunEndEncoded(FieldRef<'a, A>, FieldRef<'a, A>),
}

impl<'a, A: Allocator> DataType<'a, A> {
    /// Width in bytes of one value for the fixed-width primitive layouts
    /// (`None` for Boolean, Null and every variable or nested layout).
    pub fn primitive_width(&self) -> Option<usize> {
        use DataType::*;
        Some(match self {
            Int8 | UInt8 => 1,
            Int16 | UInt16 | Float16 => 2,
            Int32 | UInt32 | Float32 | Date32 | Time32(_) | Decimal32(..) => 4,
            Interval(IntervalUnit::YearMonth) => 4,
            Int64 | UInt64 | Float64 | Date64 | Time64(_) | Timestamp(..) | Duration(_) => 8,
            Decimal64(..) | Interval(IntervalUnit::DayTime) => 8,
            Decimal128(..) | Interval(IntervalUnit::MonthDayNano) => 16,
            Decimal256(..) => 32,
            _ => return None,
        })
    }

    /// `true` for types with nested children (lists, structs, maps, unions,
    /// run-end encoded). Dictionaries are not nested in this sense.
    pub fn is_nested(&self) -> bool {
        use DataType::*;
        matches!(
            self,
            List(_)
                | LargeList(_)
                | ListView(_)
                | LargeListView(_)
                | FixedSizeList(..)
                | Struct(_)
                | Map(..)
                | Union(..)
                | RunEndEncoded(..)
        )
    }

    /// Checks the type's own parameters and, recursively, its children's.
    ///
    /// # Errors
    /// [`Error::InvalidDataType`]: decimal precision outside `1..=max` for its
    /// width; Time32 not in s/ms or Time64 not in µs/ns; a negative fixed size;
    /// run ends not Int16/32/64 or nullable; map entries that are not a struct
    /// of two fields with a non-nullable key.
    pub fn validate(&self) -> Result<()> {
        use DataType::*;
        let ok = match self {
            Decimal32(p, _) => (1..=9).contains(p),
            Decimal64(p, _) => (1..=18).contains(p),
            Decimal128(p, _) => (1..=38).contains(p),
            Decimal256(p, _) => (1..=76).contains(p),
            Time32(u) => matches!(u, TimeUnit::Second | TimeUnit::Millisecond),
            Time64(u) => matches!(u, TimeUnit::Microsecond | TimeUnit::Nanosecond),
            FixedSizeBinary(n) => *n >= 0,
            List(f) | LargeList(f) | ListView(f) | LargeListView(f) => {
                f.data_type().validate()?;
                true
            }
            FixedSizeList(f, n) => {
                f.data_type().validate()?;
                *n >= 0
            }
            Struct(fs) => {
                for f in fs.iter() {
                    f.data_type().validate()?;
                }
                true
            }
            Union(u, _) => {
                for f in u.fields().iter() {
                    f.data_type().validate()?;
                }
                true
            }
            Map(entries, _) => {
                let Struct(kv) = entries.data_type() else {
                    return Err(Error::MapEntriesInvalid);
                };
                if kv.len() != 2 || entries.is_nullable() {
                    return Err(Error::MapEntriesInvalid);
                }
                if kv[0].is_nullable() {
                    return Err(Error::MapKeyNull);
                }
                kv[0].data_type().validate()?;
                kv[1].data_type().validate()?;
                true
            }
            Dictionary(_, v, _) => {
                v.validate()?;
                true
            }
            RunEndEncoded(r, v) => {
                v.data_type().validate()?;
                matches!(r.data_type(), Int16 | Int32 | Int64) && !r.is_nullable()
            }
            _ => true,
        };
        if ok {
            Ok(())
        } else {
            Err(Error::InvalidDataType)
        }
    }
}
