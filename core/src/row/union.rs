//! Sparse and dense unions.
//!
//! A union value is its type id as one byte (`0..=127`), then the row of the
//! selected child value encoded with the union's [`SortOptions`]. When
//! descending the type id byte is inverted. So values of one type sort as
//! that type does (nulls inside the child, placed as the options say: a
//! union has no validity of its own), and values of different types sort by
//! type id (larger ids first when descending).
//!
//! arrow-row (57.2 and later) writes the same bytes for ascending options.
//! For descending ones it encodes the children ascending and inverts only
//! the type id, so inside one type its descending rows sort ascending; ours
//! sort descending.

use allocator_api2::alloc::Allocator;

use super::decode::write_null_into;
use super::interner::Interner;
use super::{decode_column, encode_to_rows, Encoder};
use super::{Node, Rows, SortOptions};
use crate::array::{Array, ArrayRef, UnionArray};
use crate::buffer::TryVec;
use crate::buffer::{MutableBuffer, ScalarBuffer, SharedSlice};
use crate::datatypes::{DataType, UnionMode};
use crate::error::{Error, Result};

/// Encodes every child of `u` into its own rows.
pub(crate) fn prepare_union<'c, 'b, A: Allocator + Clone>(
    children: &[Node<'_, A>],
    dicts: &mut [Interner<A>],
    u: &'c UnionArray<'b, A>,
    alloc: &A,
) -> Result<Encoder<'c, 'b, A>> {
    if children.len() != u.children().len() {
        return Err(Error::TypeMismatch);
    }
    let mut k = 0;
    let rows = TryVec::try_from_fn_in(children.len(), alloc.clone(), |i| {
        let node = children.get(k..=k).ok_or(Error::OutOfBounds)?;
        k += 1;
        let column = u.children().get(i).ok_or(Error::OutOfBounds)?;
        encode_to_rows(node, dicts, core::slice::from_ref(column), alloc)
    })?;
    Ok(Encoder::Union { union: u, rows })
}

/// The child and child row of slot `i`.
#[inline]
fn slot<A: Allocator>(u: &UnionArray<'_, A>, i: usize) -> Result<(i8, usize, usize)> {
    u.value(i).ok_or(Error::OutOfBounds)
}

/// The type id byte of `id` under `opts`.
#[inline]
fn id_byte(id: i8, opts: SortOptions) -> Result<u8> {
    let b = u8::try_from(id).map_err(|_| Error::InvalidDataType)?;
    Ok(if opts.descending { !b } else { b })
}

/// Adds each slot's encoded size to `lengths`.
pub(crate) fn add_lengths<A: Allocator>(
    u: &UnionArray<'_, A>,
    rows: &[Rows<A>],
    lengths: &mut [usize],
) -> Result<()> {
    for (i, l) in lengths.iter_mut().enumerate() {
        let (_, c, s) = slot(u, i)?;
        let child = rows.get(c).ok_or(Error::OutOfBounds)?;
        let n = child.span(s, s + 1)?.checked_add(1);
        *l = n
            .and_then(|n| l.checked_add(n))
            .ok_or(Error::CapacityOverflow)?;
    }
    Ok(())
}

/// Writes each slot's encoding at `data[cursors[i]..]`.
pub(crate) fn encode<A: Allocator>(
    u: &UnionArray<'_, A>,
    rows: &[Rows<A>],
    opts: SortOptions,
    data: &mut [u8],
    cursors: &mut [usize],
) -> Result<()> {
    for (i, c) in cursors.iter_mut().enumerate() {
        let (id, k, s) = slot(u, i)?;
        let bytes = rows
            .get(k)
            .ok_or(Error::OutOfBounds)?
            .span_bytes(s, s + 1)?;
        let end = c
            .checked_add(1 + bytes.len())
            .ok_or(Error::CapacityOverflow)?;
        let out = data.get_mut(*c..end).ok_or(Error::OutOfBounds)?;
        let (head, tail) = out.split_first_mut().ok_or(Error::OutOfBounds)?;
        *head = id_byte(id, opts)?;
        tail.copy_from_slice(bytes);
        *c = end;
    }
    Ok(())
}

/// The child index of the type id byte `b` (`None` when undeclared).
fn child_of<A: Allocator>(node: &Node<'_, A>, b: u8) -> Option<usize> {
    let DataType::Union(fields, _) = &node.data_type else {
        return None;
    };
    let b = if node.options.descending { !b } else { b };
    fields.child_index(i8::try_from(b).ok()?)
}

/// Decodes a union column.
///
/// # Errors
/// [`Error::InvalidRow`] for a type id the union does not declare or a
/// child row that does not decode; the children's decoding errors.
pub(crate) fn decode<'a, A: Allocator + Clone>(
    node: &Node<'a, A>,
    children: &[Node<'a, A>],
    dicts: &[Interner<A>],
    rows: &mut [&[u8]],
    alloc: &A,
) -> Result<ArrayRef<'a, A>> {
    let DataType::Union(fields, mode) = node.decoded() else {
        return Err(Error::TypeMismatch);
    };
    let n = rows.len();
    let mut type_ids = MutableBuffer::new_in(alloc.clone());
    let which = TryVec::try_from_fn_in(n, alloc.clone(), |i| {
        let row = rows.get_mut(i).ok_or(Error::OutOfBounds)?;
        let (&b, rest) = row.split_first().ok_or(Error::InvalidRow)?;
        *row = rest;
        let k = child_of(node, b).ok_or(Error::InvalidRow)?;
        let id = *fields.type_ids().get(k).ok_or(Error::InvalidRow)?;
        type_ids.try_push(id)?;
        Ok(k)
    })?;
    let mut offsets = None;
    if *mode == UnionMode::Dense {
        let mut counts = TryVec::try_from_fn_in(children.len(), alloc.clone(), |_| Ok(0i32))?;
        let mut o = MutableBuffer::new_in(alloc.clone());
        for k in which.iter() {
            let c = counts.get_mut(*k).ok_or(Error::OutOfBounds)?;
            o.try_push(*c)?;
            *c = c.checked_add(1).ok_or(Error::CapacityOverflow)?;
        }
        offsets = Some(ScalarBuffer::try_from_buffer(o.into_buffer())?);
    }
    let mut k = 0;
    let decoded = SharedSlice::try_from_fn_in(children.len(), alloc.clone(), |_| {
        let child = children.get(k).ok_or(Error::OutOfBounds)?;
        let a = decode_child(child, k, *mode, &which, dicts, rows, alloc);
        k += 1;
        a
    })?;
    let type_ids = ScalarBuffer::try_from_buffer(type_ids.into_buffer())?;
    Ok(UnionArray::try_new(fields.clone(), *mode, type_ids, offsets, decoded)?.into_array_ref())
}

/// Decodes child `k`: the rows of its values (dense), or one row per slot
/// with a null of the child's type where another child is selected
/// (sparse); advances the rows of its values.
fn decode_child<'a, A: Allocator + Clone>(
    child: &Node<'a, A>,
    k: usize,
    mode: UnionMode,
    which: &[usize],
    dicts: &[Interner<A>],
    rows: &mut [&[u8]],
    alloc: &A,
) -> Result<ArrayRef<'a, A>> {
    let mut null = MutableBuffer::new_in(alloc.clone());
    if mode == UnionMode::Sparse {
        write_null_into(child, &mut null)?;
    }
    let null = null.as_slice();
    let mine = |i: usize| which.get(i) == Some(&k);
    let count = match mode {
        UnionMode::Dense => (0..rows.len()).filter(|&i| mine(i)).count(),
        UnionMode::Sparse => rows.len(),
    };
    let mut next = 0;
    let mut cursors: TryVec<&[u8], A> = TryVec::try_from_fn_in(count, alloc.clone(), |_| loop {
        let i = next;
        next += 1;
        match (rows.get(i), mine(i), mode) {
            (None, _, _) => return Err(Error::OutOfBounds),
            (Some(r), true, _) => return Ok(*r),
            (Some(_), false, UnionMode::Sparse) => return Ok(null),
            (Some(_), false, UnionMode::Dense) => continue,
        }
    })?;
    let values = decode_column(child, dicts, &mut cursors, false, alloc)?;
    let mut j = 0;
    for (i, row) in rows.iter_mut().enumerate() {
        let selected = which.get(i) == Some(&k);
        if mode == UnionMode::Sparse || selected {
            let left = cursors.get(j).ok_or(Error::OutOfBounds)?.len();
            j += 1;
            if selected {
                let used = row.len().checked_sub(left).ok_or(Error::InvalidRow)?;
                *row = row.get(used..).ok_or(Error::InvalidRow)?;
            } else if left != 0 {
                return Err(Error::InvalidRow);
            }
        }
    }
    Ok(values)
}

/// Length of the union value at the front of `row`.
///
/// # Errors
/// [`Error::InvalidRow`].
pub(crate) fn skip_union<A: Allocator>(
    node: &Node<'_, A>,
    children: &[Node<'_, A>],
    row: &[u8],
) -> Result<usize> {
    let (&b, rest) = row.split_first().ok_or(Error::InvalidRow)?;
    let k = child_of(node, b).ok_or(Error::InvalidRow)?;
    let child = children.get(k).ok_or(Error::InvalidRow)?;
    Ok(1 + super::skip_one(child, rest)?)
}
