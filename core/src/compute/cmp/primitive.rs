//! Comparisons of fixed-width values and of booleans, 64 slots to a word
//! of the result.

use allocator_api2::alloc::Allocator;

use super::{Kind, Side};
use crate::buffer::BooleanBuffer;
use crate::compute::boolean::{pack_words, word_of};
use crate::error::Result;
use crate::native::{f16, i256, IntervalDayTime, IntervalMonthDayNano};

/// A value's comparison key: its order (and equality) as the kernels
/// compare it. Integers are their own key; floats map to the signed integer
/// whose order is IEEE 754 `totalOrder`; intervals to their fields in order.
pub(super) trait CmpKey: Copy {
    /// What is ordered.
    type Key: Copy + PartialOrd;
    /// What is compared for equality (a float's bits: equal keys are equal
    /// bits under `totalOrder`).
    type EqKey: Copy + PartialEq;
    /// The order key of `self`.
    fn key(self) -> Self::Key;
    /// The equality key of `self`.
    fn eq_key(self) -> Self::EqKey;
}

macro_rules! key_self {
    ($($t:ty),*) => {$(
        impl CmpKey for $t {
            type Key = $t;
            type EqKey = $t;
            #[inline(always)]
            fn key(self) -> $t {
                self
            }
            #[inline(always)]
            fn eq_key(self) -> $t {
                self
            }
        }
    )*};
}
key_self!(i8, i16, i32, i64, i128, u8, u16, u32, u64, i256);

macro_rules! key_float {
    ($($t:ty, $signed:ty, $unsigned:ty);*) => {$(
        impl CmpKey for $t {
            type Key = $signed;
            type EqKey = $unsigned;
            #[inline(always)]
            fn eq_key(self) -> $unsigned {
                self.to_bits()
            }
            #[inline(always)]
            fn key(self) -> $signed {
                // Negative values (sign bit set) have their other bits
                // flipped, so that larger magnitudes order lower.
                let b = self.to_bits() as $signed;
                b ^ (((b >> (<$signed>::BITS - 1)) as $unsigned) >> 1) as $signed
            }
        }
    )*};
}
key_float!(f16, i16, u16; f32, i32, u32; f64, i64, u64);

impl CmpKey for IntervalDayTime {
    type Key = (i32, i32);
    type EqKey = (i32, i32);
    #[inline(always)]
    fn eq_key(self) -> (i32, i32) {
        self.key()
    }
    #[inline(always)]
    fn key(self) -> (i32, i32) {
        (self.days, self.milliseconds)
    }
}

impl CmpKey for IntervalMonthDayNano {
    type Key = (i32, i32, i64);
    type EqKey = (i32, i32, i64);
    #[inline(always)]
    fn eq_key(self) -> (i32, i32, i64) {
        self.key()
    }
    #[inline(always)]
    fn key(self) -> (i32, i32, i64) {
        (self.months, self.days, self.nanoseconds)
    }
}

/// The result bits of `kind` between two sides of values (XOR `neg`).
///
/// # Errors
/// [`crate::Error::AllocationFailed`].
pub(super) fn compare<T: CmpKey, A: Allocator>(
    kind: Kind,
    l: Side<&[T]>,
    r: Side<&[T]>,
    neg: u64,
    alloc: A,
) -> Result<BooleanBuffer<'static, A>> {
    match kind {
        Kind::Eq => run(l, r, neg, alloc, T::eq_key, |a, b| a == b),
        Kind::Lt => run(l, r, neg, alloc, T::key, |a, b| a < b),
    }
}

#[inline(always)]
fn run<T: Copy, K: Copy, A: Allocator>(
    l: Side<&[T]>,
    r: Side<&[T]>,
    neg: u64,
    alloc: A,
    key: impl Fn(T) -> K + Copy,
    f: impl Fn(K, K) -> bool + Copy,
) -> Result<BooleanBuffer<'static, A>> {
    let len = l.len;
    match (l.scalar, r.scalar, l.values.first(), r.values.first()) {
        (false, true, _, Some(&s)) => {
            let s = key(s);
            pack_words(len, alloc, |w| word(l.values, w, |a| f(key(a), s)) ^ neg)
        }
        (true, false, Some(&s), _) => {
            let s = key(s);
            pack_words(len, alloc, |w| word(r.values, w, |b| f(s, key(b))) ^ neg)
        }
        _ => pack_words(len, alloc, |w| {
            pair_word(l.values, r.values, w, |a, b| f(key(a), key(b))) ^ neg
        }),
    }
}

/// Bits `64 * w ..` of `f` over `v`.
#[inline(always)]
fn word<T: Copy>(v: &[T], w: usize, f: impl Fn(T) -> bool) -> u64 {
    let lo = w * 64;
    if let Some(Ok(a)) = v.get(lo..lo + 64).map(<&[T; 64]>::try_from) {
        let mut flags = [0u8; 64];
        for (o, x) in flags.iter_mut().zip(a) {
            *o = u8::from(f(*x));
        }
        return gather(&flags);
    }
    let mut bits = 0u64;
    for (i, x) in v.get(lo..).unwrap_or(&[]).iter().take(64).enumerate() {
        bits |= u64::from(f(*x)) << i;
    }
    bits
}

/// Bits `64 * w ..` of `f` over two slices, slot by slot.
#[inline(always)]
fn pair_word<T: Copy>(l: &[T], r: &[T], w: usize, f: impl Fn(T, T) -> bool) -> u64 {
    let lo = w * 64;
    let full = (l.get(lo..lo + 64), r.get(lo..lo + 64));
    if let (Some(a), Some(b)) = full {
        if let (Ok(a), Ok(b)) = (<&[T; 64]>::try_from(a), <&[T; 64]>::try_from(b)) {
            let mut flags = [0u8; 64];
            for ((o, x), y) in flags.iter_mut().zip(a).zip(b) {
                *o = u8::from(f(*x, *y));
            }
            return gather(&flags);
        }
    }
    let mut bits = 0u64;
    let (a, b) = (l.get(lo..).unwrap_or(&[]), r.get(lo..).unwrap_or(&[]));
    for (i, (x, y)) in a.iter().zip(b).take(64).enumerate() {
        bits |= u64::from(f(*x, *y)) << i;
    }
    bits
}

/// 64 flags (each 0 or 1) as the bits of a word, flag `i` at bit `i`: the
/// compare loops above stay byte-wide (they vectorise), and each 8 flags
/// become 8 bits by one multiplication (flag `k` of a little-endian word
/// lands on bit `56 + k`, no two partial products overlap).
#[inline(always)]
fn gather(flags: &[u8; 64]) -> u64 {
    let mut bits = 0u64;
    for (j, eight) in flags.chunks_exact(8).enumerate() {
        let mut b = [0u8; 8];
        b.copy_from_slice(eight);
        let x = u64::from_le_bytes(b);
        bits |= (x.wrapping_mul(0x0102_0408_1020_4080) >> 56) << (8 * j);
    }
    bits
}

/// The result bits of `kind` between two sides of booleans (`false <
/// true`), 64 slots at a time.
///
/// # Errors
/// [`crate::Error::AllocationFailed`].
pub(super) fn compare_bits<A: Allocator>(
    kind: Kind,
    l: Side<&BooleanBuffer<'_, A>>,
    r: Side<&BooleanBuffer<'_, A>>,
    neg: u64,
    alloc: A,
) -> Result<BooleanBuffer<'static, A>> {
    let splat = |b: &BooleanBuffer<'_, A>| if b.get(0) == Some(true) { !0u64 } else { 0 };
    let (ls, rs) = (
        l.scalar.then(|| splat(l.values)),
        r.scalar.then(|| splat(r.values)),
    );
    let at = |s: Option<u64>, b: &BooleanBuffer<'_, A>, w| s.unwrap_or_else(|| word_of(b, w));
    pack_words(l.len, alloc, |w| {
        let (a, b) = (at(ls, l.values, w), at(rs, r.values, w));
        let v = match kind {
            Kind::Eq => !(a ^ b),
            Kind::Lt => !a & b,
        };
        v ^ neg
    })
}
