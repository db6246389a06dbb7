//! Kernels that make new arrays: [`new_empty`], [`new_null`] and [`concat()`].
//!
//! Every kernel allocates through the allocator `A` it is given (fallibly:
//! [`crate::Error::AllocationFailed`] instead of aborting), never panics on
//! malformed input, and covers every physical layout of the columnar format
//! (nested ones recursively).
//!
//! - [`new_empty`]: a zero-length array of any [`crate::datatypes::DataType`],
//!   borrowing static empty buffers (only nested layouts allocate, for the
//!   shared children).
//! - [`new_null`]: `len` null slots of any data type; the zeroed buffers of the
//!   whole tree share one allocation.
//! - [`concat()`]: the slots of several arrays of one data type, one after the
//!   other, copied into new buffers (used e.g. by the IPC reader to append a
//!   delta dictionary to the current one).
//! - [`take_in`] / [`take()`]: slots gathered by index ([`Indices`]).
//! - [`filter_in`] / [`filter()`], [`filter_record_batch_in`]: the slots
//!   where a boolean predicate is true.
//! - [`gc_in`] / [`gc()`]: a view array with only the bytes its views
//!   reference (take, filter and concat share view data buffers);
//!   [`gc_array_in`] / [`gc_batch_in`] do so for every view array anywhere
//!   in an [`ArrayRef`](crate::array::ArrayRef) or a batch.
//! - [`interleave_in`] / [`interleave()`]: rows picked from several arrays.
//! - [`sort_to_indices_in`] and [`lexsort_to_indices_in`]: the permutation
//!   that sorts one column (directly for primitives) or several (through the
//!   row format), with an optional top-k limit.
//! - [`cmp`](mod@cmp): comparisons (`eq`, `neq`, `lt`, `lt_eq`, `gt`, `gt_eq`)
//!   between arrays or an array and a scalar, into a boolean mask.
//! - [`boolean`](mod@boolean): masks combined (`and`, `or`, `not`) and made from
//!   validity (`is_null`, `is_not_null`).
//!
//! | file or folder | what |
//! |---|---|
//! | `take/` | take: `mod.rs` dispatches by layout to its leaves |
//! | `filter/` | filter: `mod.rs` dispatches by layout; the mask, runs and value walks are leaves |
//! | `concat/` | concat: `mod.rs` dispatches by layout to its leaves |
//! | `sort/` | the sorts: `mod.rs` holds the entry points and the dispatch by column type |
//! | `empty.rs` | `new_empty`, `new_null` |
//! | `gc/` | gc: `mod.rs` dispatches by layout to its leaves (one view array, nested layouts) |
//! | `interleave.rs` | `interleave` (a concat, then a take) |
//! | `indices.rs` | [`Indices`] and the read indices of a take |
//! | `bits.rs` | bitmaps read and written a word at a time |
//! | `buffers.rs` | byte sizes, typed buffers, offsets rebased |
//! | `children.rs` | what the kernels of nested layouts share |
//! | `compress.rs` | the bits of a word at a mask's set bits (`PEXT`) and compressed bitmaps |
//! | `set_bits.rs` | the positions of set bits |
//! | `cmp/` | comparisons: `mod.rs` the operands and the dispatch; `primitive.rs`, `bytes.rs`, `encoded.rs` (dictionaries, run-end) |
//! | `boolean.rs` | mask kernels (`and`, `or`, `not`, `is_null`, `is_not_null`) and the bit packing of the comparisons |
//!
//! Processor-specific code (CPU feature detection, prefetch, the 16-byte
//! view register) is in `crate::arch`; the fifteen primitive variants are
//! matched through `crate::array::dispatch_primitive!`.

/// Declares the leaf of a kernel for the nested layouts: built with any of
/// their families, each of its functions with its own (so that with only
/// some families its shared helpers and imports are partly unused).
macro_rules! nested_leaf {
    ($name:ident) => {
        #[cfg(any(
            feature = "dictionary",
            feature = "nested",
            feature = "run-end",
            feature = "union"
        ))]
        #[cfg_attr(
            not(all(
                feature = "dictionary",
                feature = "nested",
                feature = "run-end",
                feature = "union"
            )),
            allow(unused_imports, dead_code)
        )]
        mod $name;
    };
}

mod bits;
pub mod boolean;
mod buffers;
#[cfg(any(
    feature = "dictionary",
    feature = "nested",
    feature = "run-end",
    feature = "union"
))]
mod children;
pub mod cmp;
mod compress;
mod concat;
mod empty;
mod filter;
#[cfg(feature = "views")]
mod gc;
mod indices;
mod interleave;
mod set_bits;
mod take;

// The sorts go through the row format, built with these layout families.
cfg_row_format! {
    mod sort;
    pub use sort::{lexsort_to_indices_in, sort_to_indices_in, SortColumn};
    #[cfg(feature = "alloc")]
    pub use sort::{lexsort_to_indices, sort_to_indices};
}

// Tests over fixtures of every layout family.
cfg_row_format! {
    #[cfg(all(test, feature = "union"))]
    mod proptests_select;
    #[cfg(all(test, feature = "union"))]
    mod select_model;
    #[cfg(all(test, feature = "union"))]
    mod tests_miri;
    #[cfg(all(test, feature = "union"))]
    mod tests_select;
    #[cfg(test)]
    mod tests_sort;
    #[cfg(test)]
    mod tests_sort_topk;
}
#[cfg(test)]
pub(crate) mod tests;
#[cfg(test)]
pub(crate) mod tests_empty;
#[cfg(test)]
mod tests_interleave;
#[cfg(test)]
pub(crate) mod tests_nested;
#[cfg(all(test, feature = "views"))]
mod tests_views;

#[cfg(feature = "alloc")]
pub use concat::concat_batches;
pub use concat::{concat, concat_batches_in};
pub use empty::{new_empty, new_null};
#[cfg(feature = "alloc")]
pub use filter::{filter, filter_record_batch};
pub use filter::{filter_in, filter_record_batch_in};
#[cfg(all(feature = "views", feature = "alloc"))]
pub use gc::{gc, gc_array, gc_batch};
#[cfg(feature = "views")]
pub use gc::{gc_array_in, gc_batch_in, gc_in};
pub use indices::Indices;
#[cfg(feature = "alloc")]
pub use interleave::interleave;
pub use interleave::interleave_in;
#[cfg(feature = "alloc")]
pub use take::take;
pub use take::take_in;
