//! [`dispatch_primitive!`]: the one list of the fixed-width primitive
//! [`super::ArrayRef`] variants with the native type each stores, for the
//! kernels that run one generic function per primitive type.

/// A `match` on an [`ArrayRef`](super::ArrayRef) (or on a pair of them)
/// whose arms for the fifteen fixed-width primitive variants (`Int8` …
/// `IntervalMonthDayNano`) run `$body` with `$a` bound to the
/// `PrimitiveArray` and `$T` a type alias of its native type, followed by
/// the caller's `$rest` arms. Each arm is monomorphised as if written out
/// by hand.
///
/// `$a` may be `_` (the arm needs only the type). The forms:
///
/// ```text
/// dispatch_primitive!(array; a: T => take_primitive::<T, _, _>(a, idx, alloc), {
///     ArrayRef::Boolean(b) => take_boolean(b, idx, alloc),
///     ...
/// })
/// // Two arrays of the same variant:
/// dispatch_primitive!((x, y); (p, q): T => eq::<T, _>(p, q), { _ => false })
/// ```
macro_rules! dispatch_primitive {
    (@pairs ($s:expr) $a:ident $b:ident $T:ident ($body:expr) ($($rest:tt)*)
        [$($V:ident $N:ty),*]) => {
        match $s {
            $(
                (
                    $crate::array::ArrayRef::$V($a),
                    $crate::array::ArrayRef::$V($b),
                ) => {
                    #[allow(dead_code)]
                    type $T = $N;
                    $body
                }
            )*
            $($rest)*
        }
    };
    (@one ($s:expr) $a:tt $T:ident ($body:expr) ($($rest:tt)*) [$($V:ident $N:ty),*]) => {
        match $s {
            $(
                $crate::array::ArrayRef::$V($a) => {
                    #[allow(dead_code)]
                    type $T = $N;
                    $body
                }
            )*
            $($rest)*
        }
    };
    // The list: variant and native type.
    (@list $($head:tt)*) => {
        $crate::array::dispatch_primitive!($($head)* [
            Int8 i8,
            Int16 i16,
            Int32 i32,
            Int64 i64,
            UInt8 u8,
            UInt16 u16,
            UInt32 u32,
            UInt64 u64,
            Float16 $crate::native::f16,
            Float32 f32,
            Float64 f64,
            Int128 i128,
            Int256 $crate::native::i256,
            IntervalDayTime $crate::native::IntervalDayTime,
            IntervalMonthDayNano $crate::native::IntervalMonthDayNano
        ])
    };
    ($s:expr; ($a:ident, $b:ident): $T:ident => $body:expr, { $($rest:tt)* }) => {
        $crate::array::dispatch_primitive!(@list @pairs ($s) $a $b $T ($body) ($($rest)*))
    };
    ($s:expr; $a:tt: $T:ident => $body:expr, { $($rest:tt)* }) => {
        $crate::array::dispatch_primitive!(@list @one ($s) $a $T ($body) ($($rest)*))
    };
}
pub(crate) use dispatch_primitive;
