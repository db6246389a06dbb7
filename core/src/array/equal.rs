//! STUB: logical equality.

use allocator_api2::alloc::Allocator;

use super::{Array, ArrayRef};

pub(crate) fn logical_eq<A: Allocator>(a: &ArrayRef<'_, A>, b: &ArrayRef<'_, A>) -> bool {
    a.len() == b.len() && a.data_type() == b.data_type()
}
