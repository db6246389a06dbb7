//! Equality of the nested layouts (lists, list views, fixed-size lists,
//! structs, maps).

use allocator_api2::alloc::Allocator;

use super::Mode;
use crate::array::ArrayRef;

/// A fast path of [`super::range_eq`] for nested layouts, or `None` to let
/// the caller compare slot by slot.
pub(super) fn range_eq<A: Allocator>(
    _a: &ArrayRef<'_, A>,
    _ai: usize,
    _b: &ArrayRef<'_, A>,
    _bi: usize,
    _len: usize,
    _mode: Mode,
) -> Option<bool> {
    None
}

/// Compares two valid slots of nested arrays; `false` for anything else.
pub(super) fn value_eq<A: Allocator>(
    _x: &ArrayRef<'_, A>,
    _i: usize,
    _y: &ArrayRef<'_, A>,
    _j: usize,
    _mode: Mode,
) -> bool {
    false
}
