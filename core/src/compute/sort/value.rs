//! [`SortValue`]: the total order of a primitive column's values, and
//! whether they pack into a `u64` of the same order.

use core::cmp::Ordering;

use crate::array::PrimitiveType;
use crate::native::{f16, i256, IntervalDayTime, IntervalMonthDayNano};

/// A total order on the values of a primitive column: integers by value,
/// floats by IEEE 754 `totalOrder` (`-NaN < -inf < … < -0 < +0 < … < inf <
/// NaN`, as `arrow-ord` sorts them).
pub(super) trait SortValue: PrimitiveType {
    /// `false` for the types sorted through the row format instead (the
    /// intervals: [`Self::compare`] and [`Self::ordered`] are then never
    /// called).
    const DIRECT: bool = true;
    /// `true` when [`Self::ordered`] maps the values to `u64` in order (the
    /// types of at most 64 bits).
    const PACKS: bool;
    fn compare(a: Self, b: Self) -> Ordering;
    /// The value as a `u64` of the same order (when [`Self::PACKS`]; 0
    /// otherwise).
    fn ordered(self) -> u64;
}

macro_rules! sort_value_signed {
    ($($t:ty),*) => {$(
        impl SortValue for $t {
            const PACKS: bool = true;
            fn compare(a: Self, b: Self) -> Ordering {
                a.cmp(&b)
            }
            #[inline(always)]
            fn ordered(self) -> u64 {
                // Flipping the sign bit maps the two's complement order to
                // the unsigned one.
                (i64::from(self) as u64) ^ (1 << 63)
            }
        }
    )*};
}
sort_value_signed!(i8, i16, i32, i64);

macro_rules! sort_value_unsigned {
    ($($t:ty),*) => {$(
        impl SortValue for $t {
            const PACKS: bool = true;
            fn compare(a: Self, b: Self) -> Ordering {
                a.cmp(&b)
            }
            #[inline(always)]
            fn ordered(self) -> u64 {
                u64::from(self)
            }
        }
    )*};
}
sort_value_unsigned!(u8, u16, u32, u64);

macro_rules! sort_value_wide {
    ($($t:ty),*) => {$(
        impl SortValue for $t {
            const PACKS: bool = false;
            fn compare(a: Self, b: Self) -> Ordering {
                a.cmp(&b)
            }
            fn ordered(self) -> u64 {
                0
            }
        }
    )*};
}
sort_value_wide!(i128, i256);

macro_rules! sort_value_float {
    ($($t:ty, $bits:ty),*) => {$(
        impl SortValue for $t {
            const PACKS: bool = true;
            fn compare(a: Self, b: Self) -> Ordering {
                a.total_cmp(&b)
            }
            #[inline(always)]
            fn ordered(self) -> u64 {
                // `totalOrder` as unsigned integers: negative values (sign
                // bit set) reversed below the positive ones.
                let b = self.to_bits();
                let sign = 1 << (<$bits>::BITS - 1);
                u64::from(if b & sign != 0 { !b } else { b | sign })
            }
        }
    )*};
}
sort_value_float!(f16, u16, f32, u32, f64, u64);

macro_rules! sort_value_by_rows {
    ($($t:ty),*) => {$(
        impl SortValue for $t {
            const DIRECT: bool = false;
            const PACKS: bool = false;
            fn compare(_: Self, _: Self) -> Ordering {
                Ordering::Equal
            }
            fn ordered(self) -> u64 {
                0
            }
        }
    )*};
}
sort_value_by_rows!(IntervalDayTime, IntervalMonthDayNano);
