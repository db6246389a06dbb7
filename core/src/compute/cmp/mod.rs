//! Comparison kernels: [`eq_in`], [`neq_in`], [`lt_in`], [`lt_eq_in`],
//! [`gt_in`] and [`gt_eq_in`], slot by slot between two arrays of one data
//! type or between an array and a scalar ([`Datum`]), into a
//! [`BooleanArray`] over the allocator `A`.
//!
//! Semantics are arrow-ord's `cmp` kernels':
//! - a result slot is null where either input slot is null (a null scalar
//!   makes every slot null);
//! - floats compare by IEEE 754 `totalOrder` (`-0.0 < 0.0`, a NaN equals a
//!   NaN of the same bits and is greater than every number);
//! - binary and string values compare bytewise (lexicographically, a prefix
//!   first), whatever their layout (32- or 64-bit offsets, views);
//! - booleans order `false < true`; decimals, temporal values and intervals
//!   compare by their stored integers (intervals field by field: months,
//!   days, then the sub-day part);
//! - dictionaries and run-end encoded arrays compare by value: keys (runs)
//!   are resolved to the values they point at (against a scalar, each
//!   stored value is compared once).
//!
//! The two sides must have the same logical [`crate::datatypes::DataType`]
//! (for a dictionary or run-end encoded array, its value type); nested
//! types and unions are not comparable here (arrow-ord refuses them too).
//!
//! Files: `mod.rs` (operands, the dispatch over types), `primitive.rs`
//! (fixed-width values, booleans), `bytes.rs` (binary, string, views,
//! fixed-size binary), `encoded.rs` (dictionaries and run-end encoded
//! arrays by value).

mod bytes;
mod primitive;

use allocator_api2::alloc::Allocator;

use super::boolean::{and_nulls, boolean, pack_words};
use crate::array::{Array, ArrayRef, BooleanArray};
use crate::buffer::{BooleanBuffer, NullBuffer};
use crate::error::{Error, Result};

/// One operand of a comparison: an array (one value per slot) or a scalar
/// (an array of length 1 whose value every slot is compared with), as
/// arrow-rs's `Datum`.
#[derive(Debug)]
pub enum Datum<'r, 'a, A: Allocator> {
    /// Slot `i` of the result compares slot `i` of this array.
    Array(&'r ArrayRef<'a, A>),
    /// Every slot of the result compares slot 0 of this length-1 array.
    Scalar(&'r ArrayRef<'a, A>),
}

impl<A: Allocator> Clone for Datum<'_, '_, A> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<A: Allocator> Copy for Datum<'_, '_, A> {}

impl<'r, 'a, A: Allocator> From<&'r ArrayRef<'a, A>> for Datum<'r, 'a, A> {
    fn from(a: &'r ArrayRef<'a, A>) -> Self {
        Datum::Array(a)
    }
}

impl<'r, 'a, A: Allocator> Datum<'r, 'a, A> {
    fn array(&self) -> &'r ArrayRef<'a, A> {
        match *self {
            Datum::Array(a) | Datum::Scalar(a) => a,
        }
    }

    fn is_scalar(&self) -> bool {
        matches!(self, Datum::Scalar(_))
    }
}

/// The two comparisons every operator is made of: `Eq` and `Lt`, with the
/// operands possibly swapped and the result possibly negated (`a > b` is
/// `b < a`, `a <= b` is `!(b < a)`, `a != b` is `!(a == b)`; exact under a
/// total order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// Equality.
    Eq,
    /// Strictly less than.
    Lt,
}

/// A comparison operator, as the public kernels name them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Eq,
    Neq,
    Lt,
    LtEq,
    Gt,
    GtEq,
}

impl Op {
    /// `(kind, swap the operands, negate the result)`.
    fn plan(self) -> (Kind, bool, bool) {
        match self {
            Op::Eq => (Kind::Eq, false, false),
            Op::Neq => (Kind::Eq, false, true),
            Op::Lt => (Kind::Lt, false, false),
            Op::Gt => (Kind::Lt, true, false),
            Op::LtEq => (Kind::Lt, true, true),
            Op::GtEq => (Kind::Lt, false, true),
        }
    }
}

/// One side of a comparison as the typed kernels see it: the values and
/// whether slot 0 stands for every slot.
#[derive(Clone, Copy)]
pub(super) struct Side<V> {
    /// The values.
    pub(super) values: V,
    /// `true` for a scalar.
    pub(super) scalar: bool,
    /// The result's length in slots.
    pub(super) len: usize,
}

impl<V> Side<V> {
    fn new(values: V, scalar: bool, len: usize) -> Self {
        Side {
            values,
            scalar,
            len,
        }
    }
}

/// Compares `l` and `r` by `op`.
fn compare<A: Allocator + Clone>(
    op: Op,
    l: Datum<'_, '_, A>,
    r: Datum<'_, '_, A>,
    alloc: A,
) -> Result<BooleanArray<'static, A>> {
    let (la, ra) = (l.array(), r.array());
    for d in [l, r] {
        if d.is_scalar() && d.array().len() != 1 {
            return Err(Error::InvalidArgument);
        }
    }
    let len = match (l.is_scalar(), r.is_scalar()) {
        (true, true) => 1,
        (false, true) => la.len(),
        (true, false) => ra.len(),
        (false, false) if la.len() == ra.len() => la.len(),
        (false, false) => return Err(Error::LengthMismatch),
    };
    if value_type(la) != value_type(ra) {
        return Err(Error::TypeMismatch);
    }
    if !comparable(la) {
        return Err(Error::UnsupportedType);
    }
    #[cfg(any(feature = "dictionary", feature = "run-end"))]
    if let Some(out) = encoded::compare_encoded(op, l, r, alloc.clone())? {
        return Ok(out);
    }
    let (kind, swap, negate) = op.plan();
    let (l, r) = if swap { (r, l) } else { (l, r) };
    let la = l.array();
    let null_scalar = [l, r].iter().any(|d| d.is_scalar() && d.array().is_null(0));
    if null_scalar || matches!(la, ArrayRef::Null(_)) {
        let none = pack_words(len, alloc.clone(), |_| 0)?;
        return boolean(none, Some(NullBuffer::new(pack_words(len, alloc, |_| 0)?)));
    }
    let neg = if negate { !0u64 } else { 0 };
    let values = values(kind, l, r, len, neg, alloc.clone())?;
    let nulls = and_nulls(side_nulls(l), side_nulls(r), alloc)?;
    boolean(values, nulls)
}

/// The bitmap of the slots an operand contributes to the result's
/// validity (a valid scalar contributes none).
fn side_nulls<'r, 'a, A: Allocator>(d: Datum<'r, 'a, A>) -> Option<&'r NullBuffer<'a, A>> {
    if d.is_scalar() {
        None
    } else {
        d.array().nulls()
    }
}

/// The type a comparison sees: a dictionary's or run-end encoded array's
/// value type, any other array's own.
fn value_type<'r, 'a, A: Allocator>(
    a: &'r ArrayRef<'a, A>,
) -> &'r crate::datatypes::DataType<'a, A> {
    match a {
        #[cfg(feature = "dictionary")]
        ArrayRef::Dictionary(d) => d.values().data_type(),
        #[cfg(feature = "run-end")]
        ArrayRef::RunEndEncoded(r) => r.values().data_type(),
        _ => a.data_type(),
    }
}

/// Whether the kernels compare arrays of `a`'s (value) layout: the leaf
/// layouts, as arrow-ord's `cmp` (nested ones need a row-wise comparator).
fn comparable<A: Allocator>(a: &ArrayRef<'_, A>) -> bool {
    match a {
        #[cfg(feature = "dictionary")]
        ArrayRef::Dictionary(d) => comparable(d.values()),
        #[cfg(feature = "nested")]
        ArrayRef::List(_)
        | ArrayRef::LargeList(_)
        | ArrayRef::ListView(_)
        | ArrayRef::LargeListView(_)
        | ArrayRef::FixedSizeList(_)
        | ArrayRef::Struct(_)
        | ArrayRef::Map(_) => false,
        #[cfg(feature = "union")]
        ArrayRef::Union(_) => false,
        #[cfg(feature = "run-end")]
        ArrayRef::RunEndEncoded(r) => comparable(r.values()),
        _ => true,
    }
}

/// The value bits of `kind` (then XOR `neg`) for two operands of one
/// physical layout, dispatched to the typed kernels.
fn values<A: Allocator + Clone>(
    kind: Kind,
    l: Datum<'_, '_, A>,
    r: Datum<'_, '_, A>,
    len: usize,
    neg: u64,
    alloc: A,
) -> Result<BooleanBuffer<'static, A>> {
    let (ls, rs) = (l.is_scalar(), r.is_scalar());
    macro_rules! prim {
        ($a:expr, $b:expr) => {
            primitive::compare(
                kind,
                Side::new($a.values(), ls, len),
                Side::new($b.values(), rs, len),
                neg,
                alloc,
            )
        };
    }
    macro_rules! byt {
        ($a:expr, $b:expr) => {
            bytes::compare(
                kind,
                Side::new($a, ls, len),
                Side::new($b, rs, len),
                neg,
                alloc,
            )
        };
    }
    match (l.array(), r.array()) {
        (ArrayRef::Boolean(a), ArrayRef::Boolean(b)) => primitive::compare_bits(
            kind,
            Side::new(a.values(), ls, len),
            Side::new(b.values(), rs, len),
            neg,
            alloc,
        ),
        (ArrayRef::Int8(a), ArrayRef::Int8(b)) => prim!(a, b),
        (ArrayRef::Int16(a), ArrayRef::Int16(b)) => prim!(a, b),
        (ArrayRef::Int32(a), ArrayRef::Int32(b)) => prim!(a, b),
        (ArrayRef::Int64(a), ArrayRef::Int64(b)) => prim!(a, b),
        (ArrayRef::UInt8(a), ArrayRef::UInt8(b)) => prim!(a, b),
        (ArrayRef::UInt16(a), ArrayRef::UInt16(b)) => prim!(a, b),
        (ArrayRef::UInt32(a), ArrayRef::UInt32(b)) => prim!(a, b),
        (ArrayRef::UInt64(a), ArrayRef::UInt64(b)) => prim!(a, b),
        (ArrayRef::Float16(a), ArrayRef::Float16(b)) => prim!(a, b),
        (ArrayRef::Float32(a), ArrayRef::Float32(b)) => prim!(a, b),
        (ArrayRef::Float64(a), ArrayRef::Float64(b)) => prim!(a, b),
        (ArrayRef::Int128(a), ArrayRef::Int128(b)) => prim!(a, b),
        (ArrayRef::Int256(a), ArrayRef::Int256(b)) => prim!(a, b),
        (ArrayRef::IntervalDayTime(a), ArrayRef::IntervalDayTime(b)) => prim!(a, b),
        (ArrayRef::IntervalMonthDayNano(a), ArrayRef::IntervalMonthDayNano(b)) => prim!(a, b),
        (ArrayRef::FixedSizeBinary(a), ArrayRef::FixedSizeBinary(b)) => {
            byt!(bytes::Fixed::of(a), bytes::Fixed::of(b))
        }
        (ArrayRef::Binary(a), ArrayRef::Binary(b)) => {
            byt!(bytes::Offsets::of(a), bytes::Offsets::of(b))
        }
        (ArrayRef::LargeBinary(a), ArrayRef::LargeBinary(b)) => {
            byt!(bytes::Offsets::of(a), bytes::Offsets::of(b))
        }
        (ArrayRef::Utf8(a), ArrayRef::Utf8(b)) => {
            byt!(bytes::Offsets::of(a), bytes::Offsets::of(b))
        }
        (ArrayRef::LargeUtf8(a), ArrayRef::LargeUtf8(b)) => {
            byt!(bytes::Offsets::of(a), bytes::Offsets::of(b))
        }
        #[cfg(feature = "views")]
        (ArrayRef::BinaryView(a), ArrayRef::BinaryView(b)) => {
            byt!(bytes::Views::of(a), bytes::Views::of(b))
        }
        #[cfg(feature = "views")]
        (ArrayRef::Utf8View(a), ArrayRef::Utf8View(b)) => {
            byt!(bytes::Views::of(a), bytes::Views::of(b))
        }
        _ => Err(Error::UnsupportedType),
    }
}

#[cfg(any(feature = "dictionary", feature = "run-end"))]
mod encoded;
cfg_row_format! {
    #[cfg(all(test, feature = "union"))]
    mod tests;
}

macro_rules! kernels {
    ($($(#[$doc:meta])* $name:ident, $global:ident, $op:ident;)*) => {$(
        $(#[$doc])*
        ///
        /// # Errors
        /// [`Error::TypeMismatch`] when the two sides' (value) types differ;
        /// [`Error::LengthMismatch`] when two arrays differ in length;
        /// [`Error::InvalidArgument`] when a [`Datum::Scalar`] is not of
        /// length 1; [`Error::UnsupportedType`] for nested and union
        /// types; [`Error::AllocationFailed`].
        pub fn $name<A: Allocator + Clone>(
            l: Datum<'_, '_, A>,
            r: Datum<'_, '_, A>,
            alloc: A,
        ) -> Result<BooleanArray<'static, A>> {
            compare(Op::$op, l, r, alloc)
        }

        #[doc = concat!("[`", stringify!($name), "`] with the global allocator.")]
        ///
        /// # Errors
        #[doc = concat!("As [`", stringify!($name), "`].")]
        #[cfg(feature = "alloc")]
        pub fn $global(
            l: Datum<'_, '_, crate::Global>,
            r: Datum<'_, '_, crate::Global>,
        ) -> Result<BooleanArray<'static, crate::Global>> {
            compare(Op::$op, l, r, crate::Global)
        }
    )*};
}

kernels! {
    /// `l == r` slot by slot (null where either side is null).
    ///
    /// ```
    /// use alkaid::array::{Array, Int64Array};
    /// use alkaid::compute::cmp::{eq_in, gt_in, Datum};
    /// use alkaid::Global;
    ///
    /// let a = Int64Array::from(vec![Some(1), None, Some(45), Some(50)]).into_array_ref();
    /// let b = Int64Array::from(vec![Some(1), Some(2), Some(3), Some(50)]).into_array_ref();
    /// let e = eq_in(Datum::Array(&a), Datum::Array(&b), Global)?;
    /// assert_eq!(e.iter().collect::<Vec<_>>(), [Some(true), None, Some(false), Some(true)]);
    ///
    /// let limit = Int64Array::from(vec![45]).into_array_ref();
    /// let over = gt_in(Datum::Array(&a), Datum::Scalar(&limit), Global)?;
    /// assert_eq!(over.iter().collect::<Vec<_>>(), [Some(false), None, Some(false), Some(true)]);
    /// # Ok::<(), alkaid::Error>(())
    /// ```
    eq_in, eq, Eq;
    /// `l != r` slot by slot (null where either side is null).
    neq_in, neq, Neq;
    /// `l < r` slot by slot (null where either side is null).
    lt_in, lt, Lt;
    /// `l <= r` slot by slot (null where either side is null).
    lt_eq_in, lt_eq, LtEq;
    /// `l > r` slot by slot (null where either side is null).
    gt_in, gt, Gt;
    /// `l >= r` slot by slot (null where either side is null).
    gt_eq_in, gt_eq, GtEq;
}
