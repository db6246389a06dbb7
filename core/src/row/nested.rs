//! Structs and fixed-size lists.
//!
//! Struct: a null is the null sentinel alone; a valid value is `0x01`
//! followed by the encoding of each child (the children sort with the
//! struct's options). The schema is flattened depth first.
//!
//! Fixed-size list (the spec leaves it open; encoded in the spirit of
//! structs, since every list has the same number of elements): a null is the
//! null sentinel alone; a valid list is `0x01` followed by the encoding of
//! each element (with the list's options). Lists of one size compare element
//! by element, so no lengths are needed.

use allocator_api2::alloc::Allocator;

use super::decode::write_null_into;
use super::interner::Interner;
use super::{decode_column, encode_to_rows, skip_one, Encoder};
use super::{take, Node, Rows, SortOptions};
use crate::array::{Array, FixedSizeListArray, StructArray};
use crate::buffer::TryVec;
use crate::buffer::{MutableBuffer, NullBuffer, NullBufferBuilder, SharedBox, SharedSlice};
use crate::datatypes::DataType;
use crate::error::{Error, Result};

/// Encodes a struct's children (sliced to the struct's view) into rows.
pub(crate) fn prepare_struct<'c, 'b, A: Allocator + Clone>(
    children: &[Node<'_, A>],
    dicts: &mut [Interner<A>],
    s: &'c StructArray<'b, A>,
    alloc: &A,
) -> Result<Encoder<'c, 'b, A>> {
    let columns = TryVec::try_from_fn_in(s.num_columns(), alloc.clone(), |i| {
        s.column(i).ok_or(Error::OutOfBounds)
    })?;
    let child = if columns.is_empty() {
        // No fields: one empty child row per slot.
        let mut rows = Rows::new_in(alloc.clone());
        rows.try_grow_offsets(s.len())?;
        rows
    } else {
        encode_to_rows(children, dicts, &columns, alloc)?
    };
    Ok(Encoder::Nested {
        nulls: s.nulls(),
        child,
        per_row: 1,
    })
}

/// Encodes a fixed-size list's elements (those of its view) into rows.
pub(crate) fn prepare_fixed_size_list<'c, 'b, A: Allocator + Clone>(
    child: &[Node<'_, A>],
    dicts: &mut [Interner<A>],
    size: usize,
    l: &'c FixedSizeListArray<'b, A>,
    alloc: &A,
) -> Result<Encoder<'c, 'b, A>> {
    let start = l
        .offset()
        .checked_mul(size)
        .ok_or(Error::CapacityOverflow)?;
    let len = l.len().checked_mul(size).ok_or(Error::CapacityOverflow)?;
    let elements = l.values().slice(start, len)?;
    let child = encode_to_rows(child, dicts, core::slice::from_ref(&elements), alloc)?;
    Ok(Encoder::Nested {
        nulls: l.nulls(),
        child,
        per_row: size,
    })
}

#[inline]
fn is_valid<A: Allocator>(nulls: Option<&NullBuffer<'_, A>>, i: usize) -> bool {
    nulls.is_none_or(|n| n.is_valid(i))
}

/// Adds `1 + child rows` (or 1 for a null) to each length.
pub(crate) fn add_lengths<A: Allocator>(
    nulls: Option<&NullBuffer<'_, A>>,
    child: &Rows<A>,
    per_row: usize,
    lengths: &mut [usize],
) -> Result<()> {
    for (i, l) in lengths.iter_mut().enumerate() {
        let n = if is_valid(nulls, i) {
            let start = i * per_row;
            1 + child.span(start, start + per_row)?
        } else {
            1
        };
        *l = l.checked_add(n).ok_or(Error::CapacityOverflow)?;
    }
    Ok(())
}

/// Writes `0x01` and the child rows of each slot, or the null sentinel.
pub(crate) fn encode<A: Allocator>(
    nulls: Option<&NullBuffer<'_, A>>,
    child: &Rows<A>,
    per_row: usize,
    opts: SortOptions,
    data: &mut [u8],
    cursors: &mut [usize],
) -> Result<()> {
    for (i, c) in cursors.iter_mut().enumerate() {
        let out = data.get_mut(*c..).ok_or(Error::OutOfBounds)?;
        let (head, tail) = out.split_first_mut().ok_or(Error::OutOfBounds)?;
        if is_valid(nulls, i) {
            let start = i * per_row;
            let bytes = child.span_bytes(start, start + per_row)?;
            *head = 1;
            tail.get_mut(..bytes.len())
                .ok_or(Error::OutOfBounds)?
                .copy_from_slice(bytes);
            *c += 1 + bytes.len();
        } else {
            *head = opts.null_sentinel();
            *c += 1;
        }
    }
    Ok(())
}

/// Reads the validity byte of every row: `0x01` or the null sentinel.
fn read_validity<A: Allocator + Clone>(
    rows: &mut [&[u8]],
    opts: SortOptions,
    alloc: &A,
) -> Result<NullBufferBuilder<A>> {
    let mut nulls = NullBufferBuilder::new_in(alloc.clone());
    for row in rows.iter_mut() {
        let first = take(row, 1)?.first().copied();
        match first {
            Some(1) => nulls.try_append_non_null()?,
            Some(b) if b == opts.null_sentinel() => nulls.try_append_null()?,
            _ => return Err(Error::InvalidRow),
        }
    }
    Ok(nulls)
}

/// Decodes a struct column.
///
/// # Errors
/// [`Error::InvalidRow`] and the children's decoding errors.
pub(crate) fn decode_struct<'a, A: Allocator + Clone>(
    node: &Node<'a, A>,
    children: &[Node<'a, A>],
    dicts: &[Interner<A>],
    rows: &mut [&[u8]],
    alloc: &A,
) -> Result<StructArray<'a, A>> {
    let DataType::Struct(fields) = node.decoded() else {
        return Err(Error::TypeMismatch);
    };
    let nulls = read_validity(rows, node.options, alloc)?;
    // Null slots give each child the child's own null encoding.
    let mut null_row = MutableBuffer::new_in(alloc.clone());
    for c in children {
        write_null_into(c, &mut null_row)?;
    }
    let null_row = null_row.as_slice();
    let mut cursors =
        TryVec::try_from_fn_in(rows.len(), alloc.clone(), |i| match nulls.is_valid(i) {
            Some(true) => rows.get(i).copied().ok_or(Error::OutOfBounds),
            _ => Ok(null_row),
        })?;
    let columns = SharedSlice::try_from_fn_in(children.len(), alloc.clone(), |k| {
        let c = children.get(k).ok_or(Error::OutOfBounds)?;
        decode_column(c, dicts, &mut cursors, false, alloc)
    })?;
    for (i, (row, rest)) in rows.iter_mut().zip(cursors.iter()).enumerate() {
        if nulls.is_valid(i) == Some(true) {
            let used = row.len() - rest.len();
            take(row, used)?;
        } else if !rest.is_empty() {
            return Err(Error::InvalidRow);
        }
    }
    StructArray::try_new_with_len(fields.clone(), columns, rows.len(), nulls.finish())
}

/// Decodes a fixed-size list column.
///
/// # Errors
/// [`Error::InvalidRow`] and the elements' decoding errors.
pub(crate) fn decode_fixed_size_list<'a, A: Allocator + Clone>(
    node: &Node<'a, A>,
    child: &Node<'a, A>,
    size: usize,
    dicts: &[Interner<A>],
    rows: &mut [&[u8]],
    alloc: &A,
) -> Result<FixedSizeListArray<'a, A>> {
    let DataType::FixedSizeList(field, size_i32) = node.decoded() else {
        return Err(Error::TypeMismatch);
    };
    let nulls = read_validity(rows, node.options, alloc)?;
    let mut null_element = MutableBuffer::new_in(alloc.clone());
    write_null_into(child, &mut null_element)?;
    let null_element = null_element.as_slice();
    let total = rows
        .len()
        .checked_mul(size)
        .ok_or(Error::CapacityOverflow)?;
    let (mut r, mut k) = (0usize, 0usize);
    let mut cursors = TryVec::try_from_fn_in(total, alloc.clone(), |_| {
        if k == size {
            k = 0;
            r += 1;
        }
        k += 1;
        if nulls.is_valid(r) != Some(true) {
            return Ok(null_element);
        }
        let row = rows.get_mut(r).ok_or(Error::OutOfBounds)?;
        let n = skip_one(child, row)?;
        take(row, n)
    })?;
    let values = decode_column(child, dicts, &mut cursors, false, alloc)?;
    if cursors.iter().any(|c| !c.is_empty()) {
        return Err(Error::InvalidRow);
    }
    FixedSizeListArray::try_new(
        field.clone(),
        *size_i32,
        rows.len(),
        SharedBox::try_new_in(values, alloc.clone())?,
        nulls.finish(),
    )
}
