//! `gc`: arrays whose view data buffers hold only the bytes their views
//! still reference. This file is the dispatcher, one arm per layout; the
//! leaves:
//!
//! | file | what |
//! |---|---|
//! | `views.rs` | [`gc_in`] of one typed view array (BinaryView, Utf8View) |
//! | `nested.rs` | structs, lists, list views, fixed-size lists, maps, unions, dictionaries, run-end encoded arrays (their children through [`gc_array_in`]) |

nested_leaf!(nested);
mod views;

use allocator_api2::alloc::Allocator;

use crate::array::{Array, ArrayRef, RecordBatch};
use crate::buffer::SharedSlice;
use crate::datatypes::DataType;
#[cfg(doc)]
use crate::error::Error;
use crate::error::Result;
#[cfg(feature = "alloc")]
pub use views::gc;
pub use views::gc_in;

/// [`gc_in`] of every view array anywhere in `array`: a top-level
/// BinaryView or Utf8View array, and those among the children of structs,
/// lists, large lists, list views, fixed-size lists, maps, unions, and the
/// values of dictionaries and run-end encoded arrays ("Physical Memory
/// Layout"). The typed counterpart of arrow-rs's
/// `GenericByteViewArray::gc` for an `ArrayRef`.
///
/// An array whose data type holds no view type comes back as a clone of
/// `array` (its buffers shared, nothing copied). Otherwise:
/// - a struct, sparse union, list, large list, map or fixed-size list is
///   compacted to its visible slots: its children are sliced to the
///   elements the parent's slots cover before [`gc_in`], so that a slice
///   keeps only the bytes of its own long values (a list's or map's
///   offsets are rebased to start at 0 into new offsets from `alloc`;
///   the result has offset 0);
/// - a list view's, dense union's, dictionary's or run-end encoded array's
///   child is compacted whole (their slots may reference any child
///   element), their own offsets, sizes, type ids, keys and run ends shared.
///
/// Validity bitmaps are shared in every case.
///
/// ```
/// use alkaid::array::{Array, StringViewArray, StructArray};
/// use alkaid::buffer::SharedSlice;
/// use alkaid::compute::gc_array_in;
/// use alkaid::datatypes::{DataType, Field};
/// use alkaid::Global;
///
/// let names = StringViewArray::from(vec![
///     "a value longer than twelve bytes",
///     "another long value here",
/// ]);
/// let fields = SharedSlice::from(vec![Field::new("name", DataType::Utf8View, false)]);
/// let s = StructArray::try_new(fields, SharedSlice::from(vec![names.into_array_ref()]), None)?;
/// let one = s.into_array_ref().slice(1, 1)?;
/// let g = gc_array_in(&one, Global)?;
/// let g = g.as_struct().expect("Struct");
/// let name = g.children()[0].as_string_view().expect("Utf8View");
/// assert_eq!(name.data_buffers()[0].len(), 23); // "another long value here"
/// assert_eq!(name.value(0), Some("another long value here"));
/// # Ok::<(), alkaid::Error>(())
/// ```
///
/// # Errors
/// As [`gc_in`], with the index of the child in the location for an error
/// inside a struct's or union's children; [`Error::AllocationFailed`];
/// the array's own validation errors when it is malformed (offsets past
/// its child).
pub fn gc_array_in<'a, A: Allocator + Clone>(
    array: &ArrayRef<'a, A>,
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    if !has_views(array.data_type()) {
        return Ok(array.clone());
    }
    match array {
        ArrayRef::BinaryView(a) => Ok(gc_in(a, alloc)?.into_array_ref()),
        ArrayRef::Utf8View(a) => Ok(gc_in(a, alloc)?.into_array_ref()),
        #[cfg(feature = "nested")]
        ArrayRef::Struct(a) => nested::gc_struct(a, alloc),
        #[cfg(feature = "nested")]
        ArrayRef::List(a) => nested::gc_list(a, alloc),
        #[cfg(feature = "nested")]
        ArrayRef::LargeList(a) => nested::gc_list(a, alloc),
        #[cfg(feature = "nested")]
        ArrayRef::ListView(a) => nested::gc_list_view(a, alloc),
        #[cfg(feature = "nested")]
        ArrayRef::LargeListView(a) => nested::gc_list_view(a, alloc),
        #[cfg(feature = "nested")]
        ArrayRef::FixedSizeList(a) => nested::gc_fixed_size_list(a, alloc),
        #[cfg(feature = "nested")]
        ArrayRef::Map(a) => nested::gc_map(a, alloc),
        #[cfg(feature = "union")]
        ArrayRef::Union(a) => nested::gc_union(a, alloc),
        #[cfg(feature = "dictionary")]
        ArrayRef::Dictionary(a) => nested::gc_dictionary(a, alloc),
        #[cfg(feature = "run-end")]
        ArrayRef::RunEndEncoded(a) => nested::gc_run_end(a, alloc),
        _ => Ok(array.clone()),
    }
}

/// [`gc_array_in`] with the global allocator.
///
/// # Errors
/// As [`gc_array_in`].
#[cfg(feature = "alloc")]
pub fn gc_array<'a>(array: &ArrayRef<'a, crate::Global>) -> Result<ArrayRef<'a, crate::Global>> {
    gc_array_in(array, crate::Global)
}

/// [`gc_array_in`] of every column of `batch`; the schema is shared, the
/// column list comes from `alloc`, columns without views are shared.
///
/// ```
/// use alkaid::array::{Array, RecordBatch, StringViewArray};
/// use alkaid::compute::gc_batch_in;
/// use alkaid::Global;
///
/// let v = StringViewArray::from(vec!["a value longer than twelve bytes", "short"]);
/// let b = RecordBatch::try_from_iter([("v", v.into_array_ref())])?.slice(1, 1)?;
/// let g = gc_batch_in(&b, Global)?;
/// let v = g.columns()[0].as_string_view().expect("Utf8View");
/// assert!(v.data_buffers().is_empty()); // "short" is inline
/// assert_eq!(v.value(0), Some("short"));
/// # Ok::<(), alkaid::Error>(())
/// ```
///
/// # Errors
/// As [`gc_array_in`], with the index of the column in the location.
pub fn gc_batch_in<'a, A: Allocator + Clone>(
    batch: &RecordBatch<'a, A>,
    alloc: A,
) -> Result<RecordBatch<'a, A>> {
    let columns = SharedSlice::try_from_fn_in(batch.num_columns(), alloc.clone(), |i| {
        let column = batch.column(i).ok_or(crate::error::Error::SchemaMismatch)?;
        gc_array_in(column, alloc.clone()).map_err(|e| e.with_field(i))
    })?;
    RecordBatch::try_new_with_rows(batch.schema().clone(), columns, batch.num_rows())
}

/// [`gc_batch_in`] with the global allocator.
///
/// # Errors
/// As [`gc_batch_in`].
#[cfg(feature = "alloc")]
pub fn gc_batch<'a>(
    batch: &RecordBatch<'a, crate::Global>,
) -> Result<RecordBatch<'a, crate::Global>> {
    gc_batch_in(batch, crate::Global)
}

/// Whether `t` is a view type or holds one in a child, dictionary value
/// or run-end value type.
fn has_views<A: Allocator>(t: &DataType<'_, A>) -> bool {
    match t {
        DataType::BinaryView | DataType::Utf8View => true,
        DataType::List(f)
        | DataType::LargeList(f)
        | DataType::ListView(f)
        | DataType::LargeListView(f)
        | DataType::FixedSizeList(f, _)
        | DataType::Map(f, _)
        | DataType::RunEndEncoded(_, f) => has_views(f.data_type()),
        DataType::Struct(fields) => fields.iter().any(|f| has_views(f.data_type())),
        DataType::Union(fields, _) => fields.fields().iter().any(|f| has_views(f.data_type())),
        DataType::Dictionary(_, values, _) => has_views(values),
        _ => false,
    }
}

#[cfg(all(test, feature = "nested"))]
mod tests;
