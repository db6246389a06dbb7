//! Arrays: one module per physical layout of the columnar format, the
//! [`Array`] trait they share, the type-erased [`ArrayRef`] and [`RecordBatch`].
//!
//! Every array is a cheap-to-clone view: its buffers are [`crate::buffer`]
//! types that either borrow caller memory for `'a` or share an allocation from
//! `A`. `slice` never copies nor allocates (nested layouts keep an offset into
//! their children instead of re-slicing them).
//!
//! Construction follows the usual pattern: `try_new` checks everything
//! ([`ValidationLevel::Full`]), `new_unchecked` is `unsafe` and checks nothing,
//! builders (`*Builder`) append values through the allocator `A`.

mod as_array;
mod boolean;
mod builder;
mod byte_native;
#[cfg(feature = "views")]
mod byte_view;
mod bytes;
#[cfg(feature = "dictionary")]
mod dictionary;
mod equal;
mod fixed_size_binary;
#[cfg(feature = "nested")]
mod fixed_size_list;
#[cfg(feature = "alloc")]
mod from_std;
#[cfg(feature = "nested")]
mod list;
#[cfg(feature = "nested")]
mod list_offset;
#[cfg(feature = "nested")]
mod list_view;
#[cfg(feature = "nested")]
mod map;
mod null;
mod primitive;
mod primitive_dispatch;
mod primitive_values;
mod record_batch;
#[cfg(feature = "run-end")]
mod run_end;
#[cfg(feature = "nested")]
mod structs;
#[cfg(feature = "union")]
mod union;

#[cfg(all(test, feature = "nested"))]
mod non_nullable_tests;

pub use boolean::{BooleanArray, BooleanBuilder};
pub use builder::{ArrayBuilder, StructChildren};
pub use byte_native::ByteArrayNativeType;
#[cfg(feature = "views")]
pub use byte_view::{
    BinaryViewArray, BinaryViewBuilder, BinaryViewType, ByteView, ByteViewType,
    GenericByteViewArray, GenericByteViewBuilder, StringViewArray, StringViewBuilder,
    StringViewType,
};
// For the row format's view decoder (built with these families).
pub use bytes::{
    BinaryArray, BinaryBuilder, BinaryType, ByteArrayType, GenericByteArray, GenericByteBuilder,
    LargeBinaryArray, LargeBinaryBuilder, LargeBinaryType, LargeStringArray, LargeStringBuilder,
    LargeUtf8Type, StringArray, StringBuilder, Utf8Type,
};
#[cfg(feature = "dictionary")]
pub use dictionary::{
    index_data_type, DictionaryArray, DictionaryBuilder, DictionaryKeyType, DictionaryKeys,
    PrimitiveDictionaryBuilder,
};
pub use equal::{logical_eq, values_equal};
pub use fixed_size_binary::{FixedSizeBinaryArray, FixedSizeBinaryBuilder};
#[cfg(feature = "nested")]
pub use fixed_size_list::{FixedSizeListArray, FixedSizeListBuilder};
#[cfg(feature = "nested")]
pub use list::{
    GenericListArray, GenericListBuilder, LargeListArray, LargeListBuilder, ListArray, ListBuilder,
};
#[cfg(feature = "nested")]
pub use list_offset::{ByWidth, ListOffsetSize, OffsetFamily};
#[cfg(feature = "nested")]
pub use list_view::{
    GenericListViewArray, GenericListViewBuilder, LargeListViewArray, LargeListViewBuilder,
    ListViewArray, ListViewBuilder,
};
#[cfg(feature = "nested")]
pub use map::{MapArray, MapBuilder};
pub use null::NullArray;
pub use primitive::{
    Decimal128Array, Decimal128Builder, Decimal256Array, Decimal256Builder, Float16Array,
    Float16Builder, Float32Array, Float32Builder, Float64Array, Float64Builder, Int16Array,
    Int16Builder, Int32Array, Int32Builder, Int64Array, Int64Builder, Int8Array, Int8Builder,
    PrimitiveArray, PrimitiveBuilder, PrimitiveType, UInt16Array, UInt16Builder, UInt32Array,
    UInt32Builder, UInt64Array, UInt64Builder, UInt8Array, UInt8Builder,
};
pub use record_batch::RecordBatch;
#[cfg(feature = "run-end")]
pub use run_end::{PrimitiveRunBuilder, RunArray, RunEndIndexType, RunEnds};
#[cfg(feature = "nested")]
pub use structs::{StructArray, StructBuilder};
#[cfg(feature = "union")]
pub use union::{UnionArray, UnionBuilder};

use core::fmt;

use allocator_api2::alloc::Allocator;
use derive_where::derive_where;

use crate::buffer::NullBuffer;
use crate::datatypes::DataType;
use crate::error::{Error, Result};
use crate::native::{f16, i256, IntervalDayTime, IntervalMonthDayNano};

/// How much of an array's invariants to check.
///
/// ```
/// use alkaid::array::{Array, StringArray, ValidationLevel};
/// use alkaid::buffer::{Buffer, ScalarBuffer};
/// use alkaid::Global;
///
/// let offsets: [i32; 2] = [0, 2];
/// // SAFETY: deliberately invalid (not UTF-8) to show what each level sees;
/// // its values are never read as `&str`.
/// let bad: StringArray<'_, Global> = unsafe {
///     StringArray::new_unchecked(ScalarBuffer::from_slice_ref(&offsets), Buffer::from_slice_ref(&[0xc3, 0x28]), None)
/// };
/// assert!(bad.validate(ValidationLevel::Cheap).is_ok()); // sizes and end offsets only
/// assert!(bad.validate(ValidationLevel::Full).is_err()); // Error::InvalidUtf8
/// assert_eq!(ValidationLevel::default(), ValidationLevel::Full);
/// assert!(ValidationLevel::Strict > ValidationLevel::Full); // levels are ordered
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum ValidationLevel {
    /// Check nothing (callers vouch for the data; reached only through `unsafe`).
    None,
    /// O(1) per buffer: the data type fits the layout, buffer sizes cover the
    /// length and offset, child lengths; no data value is read except the
    /// first and last offsets.
    Cheap,
    /// Every structural rule, O(n), recursively: offsets, UTF-8, views,
    /// list-view ranges, union type ids and offsets, run ends, dictionary
    /// indices, null counts. This is what every reader checks by default,
    /// and it accepts what pyarrow's and arrow-rs's readers accept.
    #[default]
    Full,
    /// [`Full`](Self::Full) and the value-domain rules: those of pyarrow's
    /// `validate(full=True)` (decimal values within their precision,
    /// `|v| < 10^precision`; Date64 values whole days, multiples of
    /// 86,400,000 ms; Time32/Time64 values within one day) and that of
    /// arrow-rs's `validate_full` for non-nullable children (no null in a
    /// non-nullable child field where its parent slot is valid: struct
    /// fields, list, list-view, map and fixed-size-list elements). Opt-in: files written by other Arrow
    /// implementations can break these rules and still be read by them.
    ///
    /// # Errors
    /// [`Error::DecimalOutOfPrecision`], [`Error::Date64NotWholeDays`],
    /// [`Error::TimeOutOfRange`], [`Error::NullInNonNullableField`] on top
    /// of those of [`Full`](Self::Full).
    Strict,
}

/// What every array layout provides.
///
/// Lengths and indices are in slots (logical elements). Indices out of range
/// never panic: `is_valid` returns `false`, value accessors return `None` or
/// an error.
pub trait Array<'a, A: Allocator>: Clone + fmt::Debug {
    /// The logical type.
    fn data_type(&self) -> &DataType<'a, A>;

    /// Number of slots.
    fn len(&self) -> usize;

    /// `true` when there are no slots.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The validity bitmap, if the array has one (bit `i` = slot `i` of this view).
    fn nulls(&self) -> Option<&NullBuffer<'a, A>>;

    /// Number of null slots according to the validity bitmap ("Null count").
    /// Layouts without a bitmap (unions, run-end encoded) report 0, the Null
    /// layout reports its length.
    fn null_count(&self) -> usize {
        self.nulls().map_or(0, |n| n.null_count())
    }

    /// `true` when slot `i` exists and is not null per the validity bitmap.
    fn is_valid(&self, i: usize) -> bool {
        i < self.len() && self.nulls().is_none_or(|n| n.is_valid(i))
    }

    /// `true` when slot `i` is null or does not exist.
    fn is_null(&self, i: usize) -> bool {
        !self.is_valid(i)
    }

    /// A zero-copy view of `len` slots from slot `offset` (no allocation).
    ///
    /// # Errors
    /// [`Error::OutOfBounds`] when `offset + len > self.len()`.
    fn slice(&self, offset: usize, len: usize) -> Result<Self>;

    /// Checks the array's invariants at `level` (recursively for children).
    ///
    /// # Errors
    /// The [`Error`] variant of the first rule violated.
    fn validate(&self, level: ValidationLevel) -> Result<()>;

    /// Wraps the array in the type-erased [`ArrayRef`].
    fn into_array_ref(self) -> ArrayRef<'a, A>;
}

/// Checks that a slice `offset..offset + len` fits in `total` slots.
#[inline]
pub(crate) fn check_slice(offset: usize, len: usize, total: usize) -> Result<()> {
    match offset.checked_add(len) {
        Some(end) if end <= total => Ok(()),
        _ => Err(Error::OutOfBounds),
    }
}

/// Checks a validity bitmap against an array length (always), and its null
/// count against the bits (at [`ValidationLevel::Full`]).
pub(crate) fn validate_nulls<A: Allocator>(
    nulls: Option<&NullBuffer<'_, A>>,
    len: usize,
    level: ValidationLevel,
) -> Result<()> {
    let Some(n) = nulls else { return Ok(()) };
    if level == ValidationLevel::None {
        return Ok(());
    }
    if n.len() != len {
        return Err(Error::ValidityTooSmall);
    }
    if level >= ValidationLevel::Full && n.null_count() != n.len() - n.inner().count_set_bits() {
        return Err(Error::NullCountMismatch);
    }
    Ok(())
}

/// The [`ValidationLevel::Strict`] rule for a non-nullable child field (as
/// arrow-rs's `validate_full`): `child` (the child's validity bitmap) holds
/// no null in slots `start..start + len * width` whose parent slot
/// (`(slot - start) / width`, `0..len`) is valid in `parent` (`None`: every
/// parent slot is valid). A struct passes `width` 1, a fixed-size list its
/// list size; lists, list views and maps pass `parent = None` and their
/// whole child, whose elements need not line up with their slots.
///
/// # Errors
/// [`Error::NullInNonNullableField`]; [`Error::LengthMismatch`] when the
/// range passes the child's bitmap.
/// The checks of the one child of a list, list view or fixed-size list at
/// `level`: at [`ValidationLevel::Full`] the child's own validation; at
/// [`ValidationLevel::Strict`], when `field` is non-nullable, the
/// [`check_non_nullable`] rule over the child's slots `start..start + len *
/// width` under the validity `parent`. The caller checks the child's type
/// and its own buffers.
///
/// # Errors
/// The child's validation errors, [`Error::NullInNonNullableField`] and
/// [`Error::LengthMismatch`], located in child 0.
#[cfg(feature = "nested")]
pub(crate) fn validate_child<A: Allocator>(
    field: &crate::datatypes::Field<'_, A>,
    child: &ArrayRef<'_, A>,
    level: ValidationLevel,
    parent: Option<&NullBuffer<'_, A>>,
    (start, len, width): (usize, usize, usize),
) -> Result<()> {
    if level >= ValidationLevel::Full {
        child.validate(level).map_err(|e| e.in_child(0))?;
    }
    if level >= ValidationLevel::Strict && !field.is_nullable() {
        check_non_nullable(child.nulls(), parent, start, len, width).map_err(|e| e.in_child(0))?;
    }
    Ok(())
}

#[cfg(feature = "nested")]
pub(crate) fn check_non_nullable<A: Allocator>(
    child: Option<&NullBuffer<'_, A>>,
    parent: Option<&NullBuffer<'_, A>>,
    start: usize,
    len: usize,
    width: usize,
) -> Result<()> {
    let Some(child) = child else { return Ok(()) };
    let span = len.checked_mul(width).ok_or(Error::LengthMismatch)?;
    let end = start.checked_add(span).ok_or(Error::LengthMismatch)?;
    if end > child.len() {
        return Err(Error::LengthMismatch);
    }
    let bits = child.inner();
    let all_valid =
        |from: usize, n: usize| -> Result<bool> { Ok(bits.slice(from, n)?.count_set_bits() == n) };
    let ok = match parent {
        None => all_valid(start, span)?,
        Some(p) => {
            let mut ok = true;
            for i in (0..len).filter(|&i| p.is_valid(i)) {
                if !all_valid(start + i * width, width)? {
                    ok = false;
                    break;
                }
            }
            ok
        }
    };
    if ok {
        Ok(())
    } else {
        Err(Error::NullInNonNullableField)
    }
}

/// A type-erased array: one variant per physical layout (primitive layouts
/// per native type; the logical type is in [`ArrayRef::data_type`]).
///
/// This is how children, record batch columns and IPC readers hold arrays of
/// any type, without trait objects. Match on it to reach the typed array, or
/// use the `as_*` accessors (`as_primitive::<T>()`, `as_string()`,
/// `as_date32()`, …).
///
/// ```
/// use alkaid::array::{Array, ArrayRef, Int64Array, StringArray};
///
/// let columns = [
///     Int64Array::from(vec![1, 2, 3]).into_array_ref(),
///     StringArray::from(vec!["a", "b", "c"]).into_array_ref(),
/// ];
/// let mut total = 0;
/// for c in &columns {
///     match c {
///         ArrayRef::Int64(a) => total += a.values().iter().sum::<i64>(),
///         ArrayRef::Utf8(s) => total += s.iter().flatten().count() as i64,
///         _ => {}
///     }
/// }
/// assert_eq!(total, 9);
/// // Equality is logical: a slice equals an array of the same values.
/// assert_eq!(columns[0].slice(1, 2)?, Int64Array::from(vec![2, 3]).into_array_ref());
/// assert_eq!(columns[1].as_string().and_then(|s| s.value(2)), Some("c"));
/// # Ok::<(), alkaid::Error>(())
/// ```
#[derive_where(Clone, Debug)]
#[non_exhaustive]
pub enum ArrayRef<
    'a,
    #[cfg(feature = "alloc")] A: Allocator = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator,
> {
    /// [`DataType::Null`].
    Null(NullArray<'a, A>),
    /// [`DataType::Boolean`].
    Boolean(BooleanArray<'a, A>),
    /// Int8.
    Int8(PrimitiveArray<'a, i8, A>),
    /// Int16.
    Int16(PrimitiveArray<'a, i16, A>),
    /// Int32, Date32, Time32, Decimal32, Interval(YearMonth).
    Int32(PrimitiveArray<'a, i32, A>),
    /// Int64, Date64, Time64, Timestamp, Duration, Decimal64.
    Int64(PrimitiveArray<'a, i64, A>),
    /// UInt8.
    UInt8(PrimitiveArray<'a, u8, A>),
    /// UInt16.
    UInt16(PrimitiveArray<'a, u16, A>),
    /// UInt32.
    UInt32(PrimitiveArray<'a, u32, A>),
    /// UInt64.
    UInt64(PrimitiveArray<'a, u64, A>),
    /// Float16.
    Float16(PrimitiveArray<'a, f16, A>),
    /// Float32.
    Float32(PrimitiveArray<'a, f32, A>),
    /// Float64.
    Float64(PrimitiveArray<'a, f64, A>),
    /// Decimal128.
    Int128(PrimitiveArray<'a, i128, A>),
    /// Decimal256.
    Int256(PrimitiveArray<'a, i256, A>),
    /// Interval(DayTime).
    IntervalDayTime(PrimitiveArray<'a, IntervalDayTime, A>),
    /// Interval(MonthDayNano).
    IntervalMonthDayNano(PrimitiveArray<'a, IntervalMonthDayNano, A>),
    /// FixedSizeBinary.
    FixedSizeBinary(FixedSizeBinaryArray<'a, A>),
    /// Binary.
    Binary(BinaryArray<'a, A>),
    /// LargeBinary.
    LargeBinary(LargeBinaryArray<'a, A>),
    /// Utf8.
    Utf8(StringArray<'a, A>),
    /// LargeUtf8.
    LargeUtf8(LargeStringArray<'a, A>),
    /// BinaryView.
    #[cfg(feature = "views")]
    BinaryView(BinaryViewArray<'a, A>),
    /// Utf8View.
    #[cfg(feature = "views")]
    Utf8View(StringViewArray<'a, A>),
    /// List.
    #[cfg(feature = "nested")]
    List(ListArray<'a, A>),
    /// LargeList.
    #[cfg(feature = "nested")]
    LargeList(LargeListArray<'a, A>),
    /// ListView.
    #[cfg(feature = "nested")]
    ListView(ListViewArray<'a, A>),
    /// LargeListView.
    #[cfg(feature = "nested")]
    LargeListView(LargeListViewArray<'a, A>),
    /// FixedSizeList.
    #[cfg(feature = "nested")]
    FixedSizeList(FixedSizeListArray<'a, A>),
    /// Struct.
    #[cfg(feature = "nested")]
    Struct(StructArray<'a, A>),
    /// Map.
    #[cfg(feature = "nested")]
    Map(MapArray<'a, A>),
    /// Sparse or dense union.
    #[cfg(feature = "union")]
    Union(UnionArray<'a, A>),
    /// Dictionary encoded.
    #[cfg(feature = "dictionary")]
    Dictionary(DictionaryArray<'a, A>),
    /// Run-end encoded.
    #[cfg(feature = "run-end")]
    RunEndEncoded(RunArray<'a, A>),
}

/// Calls `$body` with `$a` bound to the typed array of any variant.
macro_rules! dispatch {
    ($self:expr, $a:ident => $body:expr) => {
        match $self {
            ArrayRef::Null($a) => $body,
            ArrayRef::Boolean($a) => $body,
            ArrayRef::Int8($a) => $body,
            ArrayRef::Int16($a) => $body,
            ArrayRef::Int32($a) => $body,
            ArrayRef::Int64($a) => $body,
            ArrayRef::UInt8($a) => $body,
            ArrayRef::UInt16($a) => $body,
            ArrayRef::UInt32($a) => $body,
            ArrayRef::UInt64($a) => $body,
            ArrayRef::Float16($a) => $body,
            ArrayRef::Float32($a) => $body,
            ArrayRef::Float64($a) => $body,
            ArrayRef::Int128($a) => $body,
            ArrayRef::Int256($a) => $body,
            ArrayRef::IntervalDayTime($a) => $body,
            ArrayRef::IntervalMonthDayNano($a) => $body,
            ArrayRef::FixedSizeBinary($a) => $body,
            ArrayRef::Binary($a) => $body,
            ArrayRef::LargeBinary($a) => $body,
            ArrayRef::Utf8($a) => $body,
            ArrayRef::LargeUtf8($a) => $body,
            #[cfg(feature = "views")]
            ArrayRef::BinaryView($a) => $body,
            #[cfg(feature = "views")]
            ArrayRef::Utf8View($a) => $body,
            #[cfg(feature = "nested")]
            ArrayRef::List($a) => $body,
            #[cfg(feature = "nested")]
            ArrayRef::LargeList($a) => $body,
            #[cfg(feature = "nested")]
            ArrayRef::ListView($a) => $body,
            #[cfg(feature = "nested")]
            ArrayRef::LargeListView($a) => $body,
            #[cfg(feature = "nested")]
            ArrayRef::FixedSizeList($a) => $body,
            #[cfg(feature = "nested")]
            ArrayRef::Struct($a) => $body,
            #[cfg(feature = "nested")]
            ArrayRef::Map($a) => $body,
            #[cfg(feature = "union")]
            ArrayRef::Union($a) => $body,
            #[cfg(feature = "dictionary")]
            ArrayRef::Dictionary($a) => $body,
            #[cfg(feature = "run-end")]
            ArrayRef::RunEndEncoded($a) => $body,
        }
    };
}
// For the row format's dictionary paths (built with these features).
cfg_row_format! {
    pub(crate) use dictionary::keys_dispatch;
}
#[allow(unused_imports)]
pub(crate) use dispatch;
pub(crate) use primitive_dispatch::dispatch_primitive;

impl<'a, A: Allocator> Array<'a, A> for ArrayRef<'a, A> {
    fn data_type(&self) -> &DataType<'a, A> {
        dispatch!(self, a => a.data_type())
    }

    fn len(&self) -> usize {
        dispatch!(self, a => a.len())
    }

    fn nulls(&self) -> Option<&NullBuffer<'a, A>> {
        dispatch!(self, a => a.nulls())
    }

    fn null_count(&self) -> usize {
        dispatch!(self, a => a.null_count())
    }

    fn is_valid(&self, i: usize) -> bool {
        dispatch!(self, a => a.is_valid(i))
    }

    fn slice(&self, offset: usize, len: usize) -> Result<Self> {
        dispatch!(self, a => a.slice(offset, len).map(Array::into_array_ref))
    }

    fn validate(&self, level: ValidationLevel) -> Result<()> {
        dispatch!(self, a => a.validate(level))
    }

    fn into_array_ref(self) -> ArrayRef<'a, A> {
        self
    }
}

/// Logical equality: same data type, length, validity, and equal values in
/// valid slots, whatever the physical representation (offsets, slicing,
/// dictionary or run-end encoding, views vs. offsets are all looked through).
impl<A: Allocator> PartialEq for ArrayRef<'_, A> {
    fn eq(&self, other: &Self) -> bool {
        equal::logical_eq(self, other)
    }
}
