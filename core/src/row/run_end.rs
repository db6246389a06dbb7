//! Run-end encoded columns, encode and decode: encoded by value (the spec
//! leaves it open) — each slot is its run's value's encoding, so rows
//! compare as the logical values do. Encoding copies each slot's run row
//! from a table of the runs' rows ([`super::dictionary`]'s table encoder);
//! decoding merges consecutive slots with equal value bytes into one run.

use allocator_api2::alloc::Allocator;

use super::dictionary::TableIndex;
use super::interner::Interner;
use super::{decode_column, encode_to_rows, skip_one, Encoder};
use super::{take, Node};
use crate::array::{Array, ArrayRef, PrimitiveArray, RunArray, RunEnds};
use crate::buffer::{MutableBuffer, ScalarBuffer, SharedBox, TryVec};
use crate::datatypes::DataType;
use crate::error::{Error, Result};

/// Encodes the runs of a run-end encoded view.
pub(crate) fn prepare_run<'c, 'b, A: Allocator + Clone>(
    values: &[Node<'_, A>],
    dicts: &mut [Interner<A>],
    r: &'c RunArray<'b, A>,
    alloc: &A,
) -> Result<Encoder<'c, 'b, A>> {
    let range = r.get_physical_range();
    let runs = r.values().slice(range.start, range.len())?;
    let table = encode_to_rows(values, dicts, core::slice::from_ref(&runs), alloc)?;
    Ok(Encoder::Table {
        width: super::dictionary::run_width(&table),
        table,
        index: TableIndex::Runs(r, range.start),
    })
}

/// Decodes a run-end encoded column: consecutive slots with equal value
/// bytes form one run.
///
/// # Errors
/// [`Error::InvalidRow`]; [`Error::CapacityOverflow`] when the length does
/// not fit the run-end type; the values' decoding errors.
pub(crate) fn decode_run<'a, A: Allocator + Clone>(
    node: &Node<'a, A>,
    dicts: &[Interner<A>],
    rows: &mut [&[u8]],
    alloc: &A,
) -> Result<ArrayRef<'a, A>> {
    let DataType::RunEndEncoded(ends_field, _) = node.decoded() else {
        return Err(Error::TypeMismatch);
    };
    let value_node = node.child()?;
    // One pass: each run's first value and its end.
    let mut heads = TryVec::new_in(alloc.clone());
    let mut ends = TryVec::new_in(alloc.clone());
    let mut prev: Option<&[u8]> = None;
    for (i, row) in rows.iter_mut().enumerate() {
        let n = skip_one(value_node, row)?;
        let v = take(row, n)?;
        if prev != Some(v) {
            if prev.is_some() {
                ends.try_push(i64::try_from(i).map_err(|_| Error::CapacityOverflow)?)?;
            }
            heads.try_push(v)?;
            prev = Some(v);
        }
    }
    if prev.is_some() {
        ends.try_push(i64::try_from(rows.len()).map_err(|_| Error::CapacityOverflow)?)?;
    }
    let values = decode_column(value_node, dicts, &mut heads, false, alloc)?;
    if heads.iter().any(|c| !c.is_empty()) {
        return Err(Error::InvalidRow);
    }
    let dt = ends_field.data_type().clone();
    let run_ends = match dt {
        DataType::Int16 => RunEnds::Int16(narrow::<i16, A>(&ends, dt, alloc)?),
        DataType::Int32 => RunEnds::Int32(narrow::<i32, A>(&ends, dt, alloc)?),
        DataType::Int64 => RunEnds::Int64(narrow::<i64, A>(&ends, dt, alloc)?),
        _ => return Err(Error::InvalidDataType),
    };
    Ok(RunArray::try_new(
        node.decoded().clone(),
        run_ends,
        SharedBox::try_new_in(values, alloc.clone())?,
    )?
    .into_array_ref())
}

/// Run ends as a primitive array of `T`.
fn narrow<'a, T, A: Allocator + Clone>(
    ends: &[i64],
    dt: DataType<'a, A>,
    alloc: &A,
) -> Result<PrimitiveArray<'a, T, A>>
where
    T: crate::array::PrimitiveType + TryFrom<i64>,
{
    let mut b = MutableBuffer::new_in(alloc.clone());
    b.try_reserve_exact(ends.len() * core::mem::size_of::<T>())?;
    for &e in ends {
        b.try_push(T::try_from(e).map_err(|_| Error::CapacityOverflow)?)?;
    }
    PrimitiveArray::try_new(dt, ScalarBuffer::try_from_buffer(b.into_buffer())?, None)
}
