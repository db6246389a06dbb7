//! Equality of the nested layouts: lists and list views (by element
//! ranges), fixed-size lists, structs (child by child at the same slot) and
//! maps (by ranges of entries).

use allocator_api2::alloc::Allocator;

use super::{range_eq as any_range_eq, slot_eq, Mode};
use crate::array::{Array, ArrayRef, GenericListViewArray, StructArray};

/// A fast path of [`super::range_eq`] for nested layouts, or `None` to let
/// the caller compare slot by slot. Ranges are already checked against the
/// arrays' lengths.
///
/// Two structs without validity bitmaps compare child by child over the
/// whole range (each child then takes its own fast path).
pub(super) fn range_eq<A: Allocator>(
    a: &ArrayRef<'_, A>,
    ai: usize,
    b: &ArrayRef<'_, A>,
    bi: usize,
    len: usize,
    mode: Mode,
) -> Option<bool> {
    match (a, b) {
        (ArrayRef::Struct(s), ArrayRef::Struct(t))
            if s.nulls().is_none() && t.nulls().is_none() =>
        {
            let (Some(si), Some(ti)) = (s.offset().checked_add(ai), t.offset().checked_add(bi))
            else {
                return Some(false);
            };
            Some(
                s.children().len() == t.children().len()
                    && s.children()
                        .iter()
                        .zip(t.children())
                        .all(|(c, d)| any_range_eq(c, si, d, ti, len, mode)),
            )
        }
        _ => None,
    }
}

/// Compares two valid slots of nested arrays (as `super::resolve` returns
/// them); `false` for anything else, or when a range cannot be read.
pub(super) fn value_eq<A: Allocator>(
    x: &ArrayRef<'_, A>,
    i: usize,
    y: &ArrayRef<'_, A>,
    j: usize,
    mode: Mode,
) -> bool {
    match (x, y) {
        (ArrayRef::Struct(s), ArrayRef::Struct(t)) => children_eq(s, i, t, j, mode),
        (ArrayRef::Map(m), ArrayRef::Map(n)) => {
            let ranges = (m.offsets().range(i), n.offsets().range(j));
            match (ranges, m.entries(), n.entries()) {
                ((Some(r), Some(q)), Some(s), Some(t)) if r.len() == q.len() => {
                    entries_eq(s, r.start, t, q.start, r.len(), mode)
                }
                _ => false,
            }
        }
        (ArrayRef::FixedSizeList(p), ArrayRef::FixedSizeList(q)) => {
            let (Ok(n), Ok(m)) = (
                usize::try_from(p.value_length()),
                usize::try_from(q.value_length()),
            ) else {
                return false;
            };
            match (p.value_offset(i), q.value_offset(j)) {
                (Some(s), Some(t)) if n == m => any_range_eq(p.values(), s, q.values(), t, n, mode),
                _ => false,
            }
        }
        _ => match (list_elements(x, i), list_elements(y, j)) {
            (Some(Some((c, s, n))), Some(Some((d, t, m)))) => {
                n == m && any_range_eq(c, s, d, t, n, mode)
            }
            _ => false,
        },
    }
}

/// The child and element range (start, length) of slot `i` of a list or
/// list view: `None` when `a` is not one, `Some(None)` when the slot's
/// offsets (or offset and size) cannot be read.
#[allow(clippy::type_complexity)]
fn list_elements<'r, 'a, A: Allocator>(
    a: &'r ArrayRef<'a, A>,
    i: usize,
) -> Option<Option<(&'r ArrayRef<'a, A>, usize, usize)>> {
    Some(match a {
        ArrayRef::List(l) => l.offsets().range(i).map(|r| (l.values(), r.start, r.len())),
        ArrayRef::LargeList(l) => l.offsets().range(i).map(|r| (l.values(), r.start, r.len())),
        ArrayRef::ListView(l) => view_range(l, i).map(|(s, n)| (l.values(), s, n)),
        ArrayRef::LargeListView(l) => view_range(l, i).map(|(s, n)| (l.values(), s, n)),
        _ => return None,
    })
}

/// Offset and size of slot `i` of a list view, when both can be read.
fn view_range<O, A>(l: &GenericListViewArray<'_, O, A>, i: usize) -> Option<(usize, usize)>
where
    O: crate::array::ListOffsetSize,
    A: Allocator,
{
    let start = l.value_offsets().get(i)?.to_usize()?;
    let size = l.value_sizes().get(i)?.to_usize()?;
    Some((start, size))
}

/// Compares the children of valid struct slots `i` of `s` and `j` of `t`
/// (slots of the views; the children are unsliced).
fn children_eq<A: Allocator>(
    s: &StructArray<'_, A>,
    i: usize,
    t: &StructArray<'_, A>,
    j: usize,
    mode: Mode,
) -> bool {
    let (Some(ci), Some(cj)) = (s.offset().checked_add(i), t.offset().checked_add(j)) else {
        return false;
    };
    s.children().len() == t.children().len()
        && s.children()
            .iter()
            .zip(t.children())
            .all(|(c, d)| slot_eq(c, ci, d, cj, mode))
}

/// Compares `len` map entries from entry `si` of `s` and entry `ti` of `t`
/// (entries are struct slots: same validity, equal children when valid).
fn entries_eq<A: Allocator>(
    s: &StructArray<'_, A>,
    si: usize,
    t: &StructArray<'_, A>,
    ti: usize,
    len: usize,
    mode: Mode,
) -> bool {
    let fits = |start: usize, total: usize| start.checked_add(len).is_some_and(|e| e <= total);
    if !fits(si, s.len()) || !fits(ti, t.len()) {
        return false;
    }
    (0..len).all(|k| {
        let (i, j) = (si + k, ti + k);
        let valid = s.is_valid(i);
        valid == t.is_valid(j) && (!valid || children_eq(s, i, t, j, mode))
    })
}

#[cfg(test)]
mod tests;
