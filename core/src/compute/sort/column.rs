//! [`SortColumn`]: one column of a lexicographic sort and its order.

use allocator_api2::alloc::Allocator;

use crate::array::ArrayRef;
use crate::row::SortOptions;

/// One column of a lexicographic sort: its values and how to order them
/// (`None`: ascending, nulls first).
#[derive(Debug, Clone, Copy)]
pub struct SortColumn<'x, 'a, A: Allocator> {
    /// The column.
    pub values: &'x ArrayRef<'a, A>,
    /// Its order.
    pub options: Option<SortOptions>,
}
