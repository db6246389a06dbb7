//! Native (fixed-width) value types stored in Arrow buffers.
//!
//! "Fixed-size Primitive Layout": values of 1, 2, 4, 8, 16 or 32 bytes in the
//! machine's native endianness. Beside Rust's integers and floats this module
//! defines the 256-bit integer of Decimal256 and the two struct-like interval
//! values; `f16` comes from the `half` crate.

use core::fmt;

use bytemuck::{Pod, Zeroable};

pub use half::f16;

mod sealed {
    pub trait Sealed {}
}

/// A plain fixed-width value that can live in a [`crate::buffer::ScalarBuffer`].
///
/// Sealed: implemented for `i8`–`i64`, `u8`–`u64`, `i128`, [`i256`], [`struct@f16`],
/// `f32`, `f64`, [`IntervalDayTime`] and [`IntervalMonthDayNano`].
pub trait NativeType:
    Pod + fmt::Debug + Default + PartialEq + Send + Sync + 'static + sealed::Sealed
{
    /// Reverses the byte order (per field for the interval structs): what a
    /// reader applies to values written on a machine of the other endianness.
    fn swap_bytes(self) -> Self;

    /// Bitwise equality: how arrays compare values (NaNs with equal bits are
    /// equal, `0.0` and `-0.0` are not).
    #[inline]
    fn bits_eq(&self, other: &Self) -> bool {
        bytemuck::bytes_of(self) == bytemuck::bytes_of(other)
    }
}

macro_rules! native_int {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl NativeType for $t {
            #[inline]
            fn swap_bytes(self) -> Self { <$t>::swap_bytes(self) }
        }
    )*};
}
native_int!(i8, i16, i32, i64, i128, u8, u16, u32, u64);

impl sealed::Sealed for f32 {}
impl NativeType for f32 {
    #[inline]
    fn swap_bytes(self) -> Self {
        f32::from_bits(self.to_bits().swap_bytes())
    }
}

impl sealed::Sealed for f64 {}
impl NativeType for f64 {
    #[inline]
    fn swap_bytes(self) -> Self {
        f64::from_bits(self.to_bits().swap_bytes())
    }
}

impl sealed::Sealed for f16 {}
impl NativeType for f16 {
    #[inline]
    fn swap_bytes(self) -> Self {
        f16::from_bits(self.to_bits().swap_bytes())
    }
}

/// A signed 256-bit two's-complement integer: the value type of Decimal256.
///
/// Stored as 32 bytes in native endianness (the low 128 bits first on
/// little-endian machines, the high 128 bits first on big-endian ones), so a
/// buffer of `i256` has the byte layout the Arrow format specifies.
///
/// ```
/// use alkaid::array::{Array, Decimal256Array};
/// use alkaid::datatypes::DataType;
/// use alkaid::native::i256;
///
/// let big = i256::from_parts(0, 1); // 2^128
/// assert_eq!(big.to_i128(), None); // does not fit
/// assert_eq!(i256::from_i128(-7).to_i128(), Some(-7));
/// assert_eq!(i256::from_le_bytes(big.to_le_bytes()), big);
///
/// let a = Decimal256Array::from(vec![big, i256::from_i128(-7)])
///     .with_data_type(DataType::Decimal256(76, 0))?;
/// assert_eq!((a.value(0), a.data_type().primitive_width()), (Some(big), Some(32)));
/// # Ok::<(), alkaid::Error>(())
/// ```
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, Pod, Zeroable)]
#[repr(C)]
pub struct i256 {
    #[cfg(target_endian = "little")]
    low: u128,
    high: i128,
    #[cfg(target_endian = "big")]
    low: u128,
}

impl i256 {
    /// Zero.
    pub const ZERO: i256 = i256::from_parts(0, 0);

    /// From the low and high 128-bit halves.
    pub const fn from_parts(low: u128, high: i128) -> Self {
        i256 { low, high }
    }

    /// The low and high 128-bit halves.
    pub const fn to_parts(self) -> (u128, i128) {
        (self.low, self.high)
    }

    /// Sign-extends an `i128`.
    pub const fn from_i128(v: i128) -> Self {
        i256 {
            low: v as u128,
            high: if v < 0 { -1 } else { 0 },
        }
    }

    /// The value as an `i128`, or `None` when it does not fit.
    pub const fn to_i128(self) -> Option<i128> {
        let v = self.low as i128;
        let ext = if v < 0 { -1 } else { 0 };
        if self.high == ext {
            Some(v)
        } else {
            None
        }
    }

    /// From 32 little-endian bytes.
    pub fn from_le_bytes(b: [u8; 32]) -> Self {
        let mut lo = [0u8; 16];
        let mut hi = [0u8; 16];
        lo.copy_from_slice(&b[..16]);
        hi.copy_from_slice(&b[16..]);
        i256 {
            low: u128::from_le_bytes(lo),
            high: i128::from_le_bytes(hi),
        }
    }

    /// To 32 little-endian bytes.
    pub fn to_le_bytes(self) -> [u8; 32] {
        let mut b = [0u8; 32];
        b[..16].copy_from_slice(&self.low.to_le_bytes());
        b[16..].copy_from_slice(&self.high.to_le_bytes());
        b
    }

    /// To 32 big-endian bytes.
    pub fn to_be_bytes(self) -> [u8; 32] {
        let mut b = self.to_le_bytes();
        b.reverse();
        b
    }
}

impl PartialOrd for i256 {
    fn partial_cmp(&self, other: &Self) -> Option<core::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for i256 {
    fn cmp(&self, other: &Self) -> core::cmp::Ordering {
        self.high.cmp(&other.high).then(self.low.cmp(&other.low))
    }
}

impl fmt::Debug for i256 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.to_i128() {
            Some(v) => write!(f, "{v}"),
            None => write!(f, "i256({:#x}, {:#x})", self.high, self.low),
        }
    }
}

impl sealed::Sealed for i256 {}
impl NativeType for i256 {
    #[inline]
    fn swap_bytes(self) -> Self {
        // Reversing all 32 bytes swaps the halves' positions and each half's bytes.
        i256 {
            low: self.high.swap_bytes() as u128,
            high: self.low.swap_bytes() as i128,
        }
    }
}

/// An `Interval(DAY_TIME)` value: days and milliseconds, two 32-bit integers
/// ("Interval" in Schema.fbs).
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, Debug, Pod, Zeroable)]
#[repr(C)]
pub struct IntervalDayTime {
    /// Number of days.
    pub days: i32,
    /// Number of milliseconds.
    pub milliseconds: i32,
}

impl IntervalDayTime {
    /// A new value.
    pub const fn new(days: i32, milliseconds: i32) -> Self {
        IntervalDayTime { days, milliseconds }
    }
}

impl sealed::Sealed for IntervalDayTime {}
impl NativeType for IntervalDayTime {
    #[inline]
    fn swap_bytes(self) -> Self {
        IntervalDayTime {
            days: self.days.swap_bytes(),
            milliseconds: self.milliseconds.swap_bytes(),
        }
    }
}

/// An `Interval(MONTH_DAY_NANO)` value: months and days (32-bit), nanoseconds
/// (64-bit), 16 bytes in that order ("Interval" in Schema.fbs).
///
/// ```
/// use alkaid::array::{Array, PrimitiveArray};
/// use alkaid::datatypes::{DataType, IntervalUnit};
/// use alkaid::native::IntervalMonthDayNano;
///
/// let one_month_and_a_second = IntervalMonthDayNano::new(1, 0, 1_000_000_000);
/// let a = PrimitiveArray::from(vec![one_month_and_a_second]);
/// assert_eq!(a.data_type(), &DataType::Interval(IntervalUnit::MonthDayNano));
/// assert_eq!(a.data_type().primitive_width(), Some(16)); // bytes
/// assert_eq!(a.get(0).map(|v| v.months), Some(1));
/// ```
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, Debug, Pod, Zeroable)]
#[repr(C)]
pub struct IntervalMonthDayNano {
    /// Number of months.
    pub months: i32,
    /// Number of days.
    pub days: i32,
    /// Number of nanoseconds.
    pub nanoseconds: i64,
}

impl IntervalMonthDayNano {
    /// A new value.
    pub const fn new(months: i32, days: i32, nanoseconds: i64) -> Self {
        IntervalMonthDayNano {
            months,
            days,
            nanoseconds,
        }
    }
}

impl sealed::Sealed for IntervalMonthDayNano {}
impl NativeType for IntervalMonthDayNano {
    #[inline]
    fn swap_bytes(self) -> Self {
        IntervalMonthDayNano {
            months: self.months.swap_bytes(),
            days: self.days.swap_bytes(),
            nanoseconds: self.nanoseconds.swap_bytes(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn i256_round_trips_and_orders() {
        let a = i256::from_i128(-5);
        assert_eq!(a.to_i128(), Some(-5));
        assert_eq!(i256::from_le_bytes(a.to_le_bytes()), a);
        assert!(i256::from_i128(-1) < i256::from_i128(0));
        assert!(i256::from_parts(0, 1) > i256::from_i128(i128::MAX));
        assert_eq!(i256::from_parts(0, 1).to_i128(), None);
        assert_eq!(core::mem::size_of::<i256>(), 32);
        let bytes = bytemuck::bytes_of(&a);
        #[cfg(target_endian = "little")]
        assert_eq!(bytes, &a.to_le_bytes());
        #[cfg(target_endian = "big")]
        assert_eq!(bytes, &a.to_be_bytes());
    }

    #[test]
    fn swap_bytes_reverses_each_field() {
        let v = IntervalMonthDayNano::new(1, 2, 3);
        let s = v.swap_bytes();
        assert_eq!(s.months, 1i32.swap_bytes());
        assert_eq!(s.nanoseconds, 3i64.swap_bytes());
        assert_eq!(s.swap_bytes(), v);
        let x = i256::from_i128(0x0102);
        let mut b = [0u8; 32];
        b.copy_from_slice(bytemuck::bytes_of(&x));
        b.reverse();
        assert_eq!(bytemuck::bytes_of(&x.swap_bytes()), &b[..]);
    }
}
