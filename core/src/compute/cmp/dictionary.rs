//! Dictionaries compared by value: a dictionary against a scalar compares
//! its distinct values once and gathers the result by key; any other
//! comparison with a dictionary side resolves its keys to values first.

use allocator_api2::alloc::Allocator;

use super::{compare, Datum, Op};
use crate::array::{Array, ArrayRef, BooleanArray, DictionaryArray, PrimitiveArray};
use crate::buffer::{MutableBuffer, NullBuffer, ScalarBuffer};
use crate::compute::boolean::pack_bits;
use crate::compute::take_in;
use crate::datatypes::DataType;
use crate::error::{Error, Result};

/// The comparison when either side is a dictionary; `None` when neither is.
///
/// # Errors
/// As [`compare`].
pub(super) fn compare_dictionary<A: Allocator + Clone>(
    op: Op,
    l: Datum<'_, '_, A>,
    r: Datum<'_, '_, A>,
    alloc: A,
) -> Result<Option<BooleanArray<'static, A>>> {
    let (ld, rd) = (dictionary(l.array()), dictionary(r.array()));
    if ld.is_none() && rd.is_none() {
        return Ok(None);
    }
    // A dictionary array against a plain scalar: its values once, then by key.
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

fn dictionary<'r, 'a, A: Allocator>(a: &'r ArrayRef<'a, A>) -> Option<&'r DictionaryArray<'a, A>> {
    match a {
        ArrayRef::Dictionary(d) => Some(d),
        _ => None,
    }
}

/// The keys of `d` as `u64` indices, null where the key is null.
fn indices<'x, A: Allocator + Clone + 'x>(
    d: &DictionaryArray<'_, A>,
    alloc: A,
) -> Result<PrimitiveArray<'x, u64, A>> {
    let len = d.len();
    let bytes = len.checked_mul(8).ok_or(Error::CapacityOverflow)?;
    let mut buf = MutableBuffer::try_with_capacity_in(bytes, alloc.clone())?;
    buf.try_extend_from_fn::<u64>(len, |i| d.key(i).map_or(0, |k| k as u64))?;
    let values = ScalarBuffer::try_from_buffer(buf.into_buffer())?;
    let valid = pack_bits(len, alloc, |i| d.key(i).is_some())?;
    PrimitiveArray::try_new(DataType::UInt64, values, Some(NullBuffer::new(valid)))
}

/// The per-value result `per_value` gathered by the keys of `d`.
fn by_key<A: Allocator + Clone + 'static>(
    d: &DictionaryArray<'_, A>,
    per_value: BooleanArray<'static, A>,
    alloc: A,
) -> Result<BooleanArray<'static, A>> {
    let idx = indices(d, alloc.clone())?;
    match take_in(&per_value.into_array_ref(), &idx, alloc)? {
        ArrayRef::Boolean(b) => Ok(b),
        _ => Err(Error::TypeMismatch),
    }
}

/// `a` with a dictionary's keys resolved to its values (other arrays as
/// they are).
fn resolved<'a, A: Allocator + Clone + 'a>(
    a: &ArrayRef<'a, A>,
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    match a {
        ArrayRef::Dictionary(d) => take_in(d.values(), &indices(d, alloc.clone())?, alloc),
        other => Ok(other.clone()),
    }
}
