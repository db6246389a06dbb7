//! Order-preserving bytes of native values: the part of the fixed-width
//! encodings (see `fixed`) that maps one value of each native type to
//! big-endian bytes whose `memcmp` order is the value order, and back.
//!
//! - unsigned integers: big-endian bytes;
//! - signed integers (and decimals, dates, times, timestamps, durations):
//!   the sign bit flipped, then big-endian;
//! - floats: NaNs made one canonical positive NaN and `-0.0` made `0.0`, then
//!   the IEEE bits of negative values inverted except the sign bit, then as
//!   a signed integer: `-inf < negatives < -0.0 = 0.0 < positives < inf <
//!   NaN`, all NaNs equal; decoding normalises too (bytes of another NaN or
//!   of `-0.0`, which only a foreign row can hold, decode to the canonical
//!   NaN and `0.0`). arrow-row's IEEE `totalOrder` differs: `-0.0 < 0.0`,
//!   negative NaNs below `-inf`, NaN payloads distinct; other values get
//!   the same bytes (module `row`, "Encoding");
//! - intervals: their fields in declaration order, each as a signed integer.

use core::mem::size_of;

use crate::array::PrimitiveType;
use crate::native::{f16, i256, IntervalDayTime, IntervalMonthDayNano};

/// A native type with an order-preserving fixed-width byte encoding.
pub(crate) trait FixedEncode: PrimitiveType {
    /// The encoded bytes (without the validity byte): `[u8; WIDTH]`.
    type Bytes: AsRef<[u8]> + AsMut<[u8]> + Copy + for<'b> TryFrom<&'b [u8]>;
    /// The order-preserving bytes of `self`.
    fn encode(self) -> Self::Bytes;
    /// The value of encoded bytes (the inverse of [`Self::encode`] up to the
    /// float normalisation).
    fn decode(bytes: Self::Bytes) -> Self;
}

/// Width in bytes of one encoded value of `T`, validity byte included.
pub(crate) const fn encoded_width<T: FixedEncode>() -> usize {
    1 + size_of::<T::Bytes>()
}

macro_rules! unsigned {
    ($($t:ty),*) => {$(
        impl FixedEncode for $t {
            type Bytes = [u8; size_of::<$t>()];
            #[inline]
            fn encode(self) -> Self::Bytes {
                self.to_be_bytes()
            }
            #[inline]
            fn decode(bytes: Self::Bytes) -> Self {
                <$t>::from_be_bytes(bytes)
            }
        }
    )*};
}
unsigned!(u8, u16, u32, u64);

macro_rules! signed {
    ($($t:ty),*) => {$(
        impl FixedEncode for $t {
            type Bytes = [u8; size_of::<$t>()];
            #[inline]
            fn encode(self) -> Self::Bytes {
                let mut b = self.to_be_bytes();
                b[0] ^= 0x80;
                b
            }
            #[inline]
            fn decode(mut bytes: Self::Bytes) -> Self {
                bytes[0] ^= 0x80;
                <$t>::from_be_bytes(bytes)
            }
        }
    )*};
}
signed!(i8, i16, i32, i64, i128);

impl FixedEncode for i256 {
    type Bytes = [u8; 32];
    #[inline]
    fn encode(self) -> [u8; 32] {
        let mut b = self.to_be_bytes();
        b[0] ^= 0x80;
        b
    }
    #[inline]
    fn decode(mut bytes: [u8; 32]) -> Self {
        bytes[0] ^= 0x80;
        bytes.reverse();
        i256::from_le_bytes(bytes)
    }
}

/// Floats: `$bits` is the unsigned type of the IEEE bits, `$int` the signed
/// one; `$nan` the canonical NaN, `$abs` the mask without the sign bit, `$inf`
/// the bits of infinity.
macro_rules! float {
    ($t:ty, $bits:ty, $int:ty, $nan:expr, $abs:expr, $inf:expr) => {
        impl FixedEncode for $t {
            type Bytes = [u8; size_of::<$t>()];
            #[inline]
            fn encode(self) -> Self::Bytes {
                let mut bits: $bits = self.to_bits();
                if bits & $abs > $inf {
                    bits = $nan;
                } else if bits & $abs == 0 {
                    bits = 0;
                }
                let s = bits as $int;
                let shift = <$int>::BITS - 1;
                let ordered = s ^ ((((s >> shift) as $bits) >> 1) as $int);
                ordered.encode()
            }
            #[inline]
            fn decode(bytes: Self::Bytes) -> Self {
                let ordered = <$int>::decode(bytes);
                let shift = <$int>::BITS - 1;
                let s = ordered ^ ((((ordered >> shift) as $bits) >> 1) as $int);
                let mut bits = s as $bits;
                // Bytes the encoder never writes (rows from elsewhere): any
                // other NaN, and -0.0, decode to the normalised value, so
                // that decoded values re-encode to rows that compare equal.
                if bits & $abs > $inf {
                    bits = $nan;
                } else if bits & $abs == 0 {
                    bits = 0;
                }
                <$t>::from_bits(bits)
            }
        }
    };
}
float!(f16, u16, i16, 0x7E00, 0x7FFF, 0x7C00);
float!(f32, u32, i32, 0x7FC0_0000, 0x7FFF_FFFF, 0x7F80_0000);
float!(
    f64,
    u64,
    i64,
    0x7FF8_0000_0000_0000,
    0x7FFF_FFFF_FFFF_FFFF,
    0x7FF0_0000_0000_0000
);

impl FixedEncode for IntervalDayTime {
    type Bytes = [u8; 8];
    fn encode(self) -> [u8; 8] {
        let mut b = [0u8; 8];
        b[..4].copy_from_slice(&self.days.encode());
        b[4..].copy_from_slice(&self.milliseconds.encode());
        b
    }
    fn decode(bytes: [u8; 8]) -> Self {
        let (d, m) = bytes.split_at(4);
        IntervalDayTime::new(
            i32::decode(d.try_into().unwrap_or_default()),
            i32::decode(m.try_into().unwrap_or_default()),
        )
    }
}

impl FixedEncode for IntervalMonthDayNano {
    type Bytes = [u8; 16];
    fn encode(self) -> [u8; 16] {
        let mut b = [0u8; 16];
        b[..4].copy_from_slice(&self.months.encode());
        b[4..8].copy_from_slice(&self.days.encode());
        b[8..].copy_from_slice(&self.nanoseconds.encode());
        b
    }
    fn decode(bytes: [u8; 16]) -> Self {
        let (m, rest) = bytes.split_at(4);
        let (d, n) = rest.split_at(4);
        IntervalMonthDayNano::new(
            i32::decode(m.try_into().unwrap_or_default()),
            i32::decode(d.try_into().unwrap_or_default()),
            i64::decode(n.try_into().unwrap_or_default()),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_order_and_normalisation() {
        let vals = [
            f32::NEG_INFINITY,
            -1.5,
            -f32::MIN_POSITIVE,
            -0.0,
            0.0,
            f32::MIN_POSITIVE,
            2.0,
            f32::INFINITY,
            f32::NAN,
        ];
        for w in vals.windows(2) {
            let (a, b) = (w[0].encode(), w[1].encode());
            if w[0] == w[1] {
                assert_eq!(a, b, "{} {}", w[0], w[1]);
            } else {
                assert!(a < b, "{} {}", w[0], w[1]);
            }
        }
        let neg_nan = f32::from_bits(0xFFC0_0001);
        assert_eq!(neg_nan.encode(), f32::NAN.encode());
        assert_eq!(f32::decode((-0.0f32).encode()).to_bits(), 0);
        assert_eq!(f32::decode(neg_nan.encode()).to_bits(), 0x7FC0_0000);
        assert_eq!(f64::decode((-2.5f64).encode()), -2.5);
        assert_eq!(
            f16::from_bits(0xFE01).encode(),
            f16::from_bits(0x7C01).encode()
        );
        assert!(f16::INFINITY.encode() < f16::NAN.encode());
        assert!(f16::from_f32(-1.0).encode() < f16::from_f32(-0.5).encode());
    }

    /// Bytes no encoder writes (found by the `row_decode` fuzz target): the
    /// all-zero bytes are a negative NaN with every payload bit set, and
    /// `7F FF ..` is `-0.0` unnormalised. They decode to the normalised
    /// values, whose encodings are the canonical ones.
    #[test]
    fn foreign_float_bytes_decode_normalised() {
        assert_eq!(f64::decode([0; 8]).to_bits(), 0x7FF8_0000_0000_0000);
        assert_eq!(f32::decode([0; 4]).to_bits(), 0x7FC0_0000);
        assert_eq!(f16::decode([0; 2]).to_bits(), 0x7E00);
        let neg_zero = [0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF];
        assert_eq!(f64::decode(neg_zero).to_bits(), 0);
        assert_eq!(f32::decode([0x7F, 0xFF, 0xFF, 0xFF]).to_bits(), 0);
        // A positive non-canonical NaN (0x7FF0..01 encodes above infinity).
        let nan = f64::from_bits(0x7FF0_0000_0000_0001);
        let raw = {
            let s = nan.to_bits() as i64;
            let mut b = s.to_be_bytes();
            b[0] ^= 0x80;
            b
        };
        assert_eq!(f64::decode(raw).to_bits(), 0x7FF8_0000_0000_0000);
        for b in [[0u8; 8], neg_zero, raw] {
            let v = f64::decode(b);
            assert_eq!(f64::decode(v.encode()).to_bits(), v.to_bits());
        }
    }

    #[test]
    fn integer_bytes() {
        assert_eq!(5i32.encode(), [0x80, 0, 0, 5]);
        assert_eq!((-5i32).encode(), [0x7F, 0xFF, 0xFF, 0xFB]);
        assert_eq!(258u32.encode(), [0, 0, 1, 2]);
        let x = i256::from_i128(-2);
        assert_eq!(i256::decode(x.encode()), x);
        assert!(i256::from_i128(-1).encode() < i256::from_i128(0).encode());
        assert!(i256::from_parts(0, 1).encode() > i256::from_i128(i128::MAX).encode());
        let iv = IntervalMonthDayNano::new(-1, 2, -3);
        assert_eq!(IntervalMonthDayNano::decode(iv.encode()), iv);
        let dt = IntervalDayTime::new(7, -8);
        assert_eq!(IntervalDayTime::decode(dt.encode()), dt);
    }
}
