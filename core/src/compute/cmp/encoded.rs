//! Dictionaries and run-end encoded arrays compared by value: such an array
//! against a scalar compares its values once and gathers the result by key
//! (or run); any other comparison with an encoded side resolves it to its
//! logical values first.

use allocator_api2::alloc::Allocator;

use super::{compare, Datum, Op};
#[cfg(feature = "dictionary")]
use crate::array::DictionaryArray;
#[cfg(feature = "run-end")]
use crate::array::RunArray;
use crate::array::{Array, ArrayRef, BooleanArray, PrimitiveArray};
use crate::buffer::{MutableBuffer, NullBuffer, ScalarBuffer};
use crate::compute::boolean::pack_bits;
use crate::compute::take_in;
use crate::datatypes::DataType;
use crate::error::{Error, Result};

/// An array whose slots index into a values array.
enum Encoded<'r, 'a, A: Allocator> {
    #[cfg(feature = "dictionary")]
    Dictionary(&'r DictionaryArray<'a, A>),
    #[cfg(feature = "run-end")]
    RunEnd(&'r RunArray<'a, A>),
}

impl<A: Allocator> Clone for Encoded<'_, '_, A> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<A: Allocator> Copy for Encoded<'_, '_, A> {}

impl<'r, 'a, A: Allocator> Encoded<'r, 'a, A> {
    fn of(a: &'r ArrayRef<'a, A>) -> Option<Self> {
        match a {
            #[cfg(feature = "dictionary")]
            ArrayRef::Dictionary(d) => Some(Encoded::Dictionary(d)),
            #[cfg(feature = "run-end")]
            ArrayRef::RunEndEncoded(r) => Some(Encoded::RunEnd(r)),
            _ => None,
        }
    }

    fn values(self) -> &'r ArrayRef<'a, A> {
        match self {
            #[cfg(feature = "dictionary")]
            Encoded::Dictionary(d) => d.values(),
            #[cfg(feature = "run-end")]
            Encoded::RunEnd(r) => r.values(),
        }
    }

    fn len(self) -> usize {
        match self {
            #[cfg(feature = "dictionary")]
            Encoded::Dictionary(d) => d.len(),
            #[cfg(feature = "run-end")]
            Encoded::RunEnd(r) => r.len(),
        }
    }

    /// The index into the values of slot `i` (`None` for a null key).
    fn index(self, i: usize) -> Option<usize> {
        match self {
            #[cfg(feature = "dictionary")]
            Encoded::Dictionary(d) => d.key(i),
            #[cfg(feature = "run-end")]
            Encoded::RunEnd(r) => r.physical_index(i),
        }
    }
}

/// The comparison when either side is encoded; `None` when neither is.
///
/// # Errors
/// As [`compare`].
pub(super) fn compare_encoded<A: Allocator + Clone>(
    op: Op,
    l: Datum<'_, '_, A>,
    r: Datum<'_, '_, A>,
    alloc: A,
) -> Result<Option<BooleanArray<'static, A>>> {
    let (ld, rd) = (Encoded::of(l.array()), Encoded::of(r.array()));
    if ld.is_none() && rd.is_none() {
        return Ok(None);
    }
    // An encoded array against a plain scalar: its values once, then by key.
    if let (Some(d), None, false, true) = (ld, rd, l.is_scalar(), r.is_scalar()) {
        let per_value = compare(op, Datum::Array(d.values()), r, alloc.clone())?;
        return by_key(d, per_value, alloc).map(Some);
    }
    if let (None, Some(d), true, false) = (ld, rd, l.is_scalar(), r.is_scalar()) {
        let per_value = compare(op, l, Datum::Array(d.values()), alloc.clone())?;
        return by_key(d, per_value, alloc).map(Some);
    }
    let lv = resolved(l.array(), alloc.clone())?;
    let rv = resolved(r.array(), alloc.clone())?;
    let side = |d: Datum<'_, '_, A>, v| {
        if d.is_scalar() {
            Datum::Scalar(v)
        } else {
            Datum::Array(v)
        }
    };
    compare(op, side(l, &lv), side(r, &rv), alloc).map(Some)
}

/// The value indices of `d`'s slots as `u64`, null where a key is null.
fn indices<'x, A: Allocator + Clone + 'x>(
    d: Encoded<'_, '_, A>,
    alloc: A,
) -> Result<PrimitiveArray<'x, u64, A>> {
    let len = d.len();
    let bytes = len.checked_mul(8).ok_or(Error::CapacityOverflow)?;
    let mut buf = MutableBuffer::try_with_capacity_in(bytes, alloc.clone())?;
    buf.try_extend_from_fn::<u64>(len, |i| d.index(i).map_or(0, |k| k as u64))?;
    let values = ScalarBuffer::try_from_buffer(buf.into_buffer())?;
    let valid = pack_bits(len, alloc, |i| d.index(i).is_some())?;
    PrimitiveArray::try_new(DataType::UInt64, values, Some(NullBuffer::new(valid)))
}

/// The per-value result `per_value` gathered by the keys of `d`.
fn by_key<A: Allocator + Clone + 'static>(
    d: Encoded<'_, '_, A>,
    per_value: BooleanArray<'static, A>,
    alloc: A,
) -> Result<BooleanArray<'static, A>> {
    let idx = indices(d, alloc.clone())?;
    match take_in(&per_value.into_array_ref(), &idx, alloc)? {
        ArrayRef::Boolean(b) => Ok(b),
        _ => Err(Error::TypeMismatch),
    }
}

/// `a` with an encoding's indices resolved to its values (other arrays as
/// they are).
fn resolved<'a, A: Allocator + Clone + 'a>(
    a: &ArrayRef<'a, A>,
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    match Encoded::of(a) {
        Some(e) => take_in(e.values(), &indices(e, alloc.clone())?, alloc),
        None => Ok(a.clone()),
    }
}
