//! Data types shared by the tests: one list of the leaf (non-nested) types.

use std::vec::Vec;

use allocator_api2::alloc::Allocator;

use crate::datatypes::{DataType, IntervalUnit, TimeUnit};

/// Every leaf [`DataType`] variant except `Null`, with one set of
/// parameters each (decimals at their widest precision, scale 2; no time
/// zone; 3-byte fixed-size binary): the leaves of the row format's and the
/// selection kernels' property tests, and of the empty-array tests.
pub(crate) fn leaf_types<'a, A: Allocator>() -> Vec<DataType<'a, A>> {
    use DataType::*;
    std::vec![
        Boolean,
        Int8,
        Int16,
        Int32,
        Int64,
        UInt8,
        UInt16,
        UInt32,
        UInt64,
        Float16,
        Float32,
        Float64,
        Decimal32(9, 2),
        Decimal64(18, 2),
        Decimal128(38, 2),
        Decimal256(76, 2),
        Date32,
        Date64,
        Time32(TimeUnit::Millisecond),
        Time64(TimeUnit::Nanosecond),
        Timestamp(TimeUnit::Microsecond, None),
        Duration(TimeUnit::Second),
        Interval(IntervalUnit::YearMonth),
        Interval(IntervalUnit::DayTime),
        Interval(IntervalUnit::MonthDayNano),
        FixedSizeBinary(3),
        Binary,
        LargeBinary,
        Utf8,
        LargeUtf8,
        BinaryView,
        Utf8View,
    ]
}
