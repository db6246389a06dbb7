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

/// Implements [`SortValue`] for each of the types from the order of two
/// values (`compare`) and, for the types that pack, the order-keeping `u64`
/// of one (`ordered`).
macro_rules! sort_value {
    (
        $($t:ty),* ; direct: $direct:expr, packs: $packs:expr,
        compare: |$a:ident, $b:ident| $compare:expr,
        ordered: |$v:ident| $ordered:expr
    ) => {$(
        impl SortValue for $t {
            const DIRECT: bool = $direct;
            const PACKS: bool = $packs;
            fn compare($a: Self, $b: Self) -> Ordering {
                $compare
            }
            #[inline(always)]
            // `u64::from` is the identity for the 64-bit type of a group.
            #[allow(clippy::useless_conversion)]
            fn ordered(self) -> u64 {
                let $v = self;
                $ordered
            }
        }
    )*};
}
// Flipping the sign bit maps the two's complement order to the unsigned one.
sort_value!(i8, i16, i32, i64; direct: true, packs: true,
    compare: |a, b| a.cmp(&b), ordered: |v| (i64::from(v) as u64) ^ (1 << 63));
sort_value!(u8, u16, u32, u64; direct: true, packs: true,
    compare: |a, b| a.cmp(&b), ordered: |v| u64::from(v));
sort_value!(i128, i256; direct: true, packs: false,
    compare: |a, b| a.cmp(&b), ordered: |_v| 0);
// `totalOrder` as unsigned integers: negative values (sign bit set)
// reversed below the positive ones.
sort_value!(f16, f32, f64; direct: true, packs: true,
    compare: |a, b| a.total_cmp(&b),
    ordered: |v| {
        let b = v.to_bits();
        let sign = 1 << (8 * core::mem::size_of_val(&b) - 1);
        u64::from(if b & sign != 0 { !b } else { b | sign })
    });
// Sorted through the row format: never compared here.
sort_value!(IntervalDayTime, IntervalMonthDayNano; direct: false, packs: false,
    compare: |_a, _b| Ordering::Equal, ordered: |_v| 0);
