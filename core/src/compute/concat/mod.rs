//! [`concat()`]: the slots of several arrays of one data type, one after the
//! other, in new buffers. This file is the dispatcher, one arm per layout;
//! the leaves:
//!
//! | file | what |
//! |---|---|
//! | `flat.rs` | primitive, boolean, fixed-size binary, binary and string arrays (offsets or views) |
//! | `nested.rs` | lists, list views, fixed-size lists, structs, maps, unions, dictionaries, run-end encoded arrays (their children through [`concat_arrays`]) |
//! | `nulls.rs` | the validity bitmaps one after the other |

mod flat;
nested_leaf!(nested);
mod nulls;

use allocator_api2::alloc::Allocator;

use crate::array::{
    dispatch_primitive, Array, ArrayRef, BinaryType, LargeBinaryType, LargeUtf8Type, NullArray,
    Utf8Type,
};
#[cfg(feature = "views")]
use crate::array::{BinaryViewType, StringViewType};
use crate::buffer::TryVec;
use crate::error::{Error, Result};
#[cfg(feature = "views")]
use flat::concat_views;
use flat::{concat_boolean, concat_bytes, concat_fixed_size_binary, concat_primitive};
#[cfg(feature = "dictionary")]
use nested::concat_dictionary;
#[cfg(feature = "run-end")]
use nested::concat_run_end;
#[cfg(feature = "union")]
use nested::concat_union;
#[cfg(feature = "nested")]
use nested::{concat_fixed_size_list, concat_list, concat_list_view, concat_map, concat_struct};
use nulls::total_len;

/// Concatenates `arrays`, which must all have the same data type, into one
/// new array of that type: its slots are those of `arrays[0]`, then those of
/// `arrays[1]`, and so on ("Physical Memory Layout" of the columnar format,
/// every layout).
///
/// The result's buffers are new allocations from `alloc` holding copies of
/// the inputs' slots (sliced inputs contribute only their slots), with these
/// exceptions that share memory with the inputs instead:
/// - the data buffers of view arrays (see below);
/// - a dictionary whose inputs all share one values array (the same
///   [`crate::buffer::SharedBox`]) keeps that dictionary and concatenates the
///   keys only; otherwise the dictionaries are concatenated and the keys of
///   each input are shifted by the lengths of the dictionaries before it;
/// - the data type (field names, metadata) is shared with `arrays[0]`.
///
/// Per layout: offsets (binary, string, list, map) are rebased to start at 0
/// and the referenced bytes or child ranges copied; list views keep their
/// offsets, shifted by the lengths of the previous inputs' children, which
/// are concatenated whole; views keep their bytes with the buffer index
/// re-pointed into one list of the inputs' data buffers, which are shared,
/// not copied (a buffer over the same bytes as an earlier one, e.g. the
/// same buffer of several slices of one array, is listed once; see
/// [`super::gc()`] to copy out only the bytes still referenced); dense unions shift offsets per child likewise;
/// sparse unions, structs and fixed-size lists concatenate their children
/// over each input's slot range; run-end encoded arrays shift run ends by the
/// previous inputs' lengths and copy the runs each input's view covers. The
/// validity bitmap is omitted when no input has a null.
///
/// One input gives a compacted copy of it.
///
/// ```
/// use alkaid::array::{Array, Int32Array, StringArray};
/// use alkaid::compute::concat;
/// use alkaid::Global;
///
/// let a = StringArray::from(vec![Some("x"), None]).into_array_ref();
/// let b = StringArray::from(vec!["yy", "zzz"]).into_array_ref().slice(1, 1)?;
/// let c = concat(&[&a, &b], Global)?;
/// let s = c.as_string().expect("Utf8");
/// assert_eq!(s.iter().collect::<Vec<_>>(), [Some("x"), None, Some("zzz")]);
/// assert_eq!(s.value_offsets(), &[0, 1, 1, 4]); // rebased from the slice
///
/// // Inputs must share one data type.
/// let n = Int32Array::from(vec![1]).into_array_ref();
/// assert!(concat(&[&a, &n], Global).is_err()); // Error::TypeMismatch
/// # Ok::<(), alkaid::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] when `arrays` is empty; [`Error::TypeMismatch`]
/// when the data types differ; [`Error::AllocationFailed`];
/// [`Error::CapacityOverflow`] when the total length, byte count, child length,
/// number of view buffers, shifted dictionary key or run end does not fit
/// its type (e.g. more than `i32::MAX` bytes of Utf8 data, or a key beyond
/// `i8::MAX` for Int8 keys); the inputs' own validation errors (offsets,
/// views, union type ids, keys) when an input is malformed.
pub fn concat<'a, A: Allocator + Clone>(
    arrays: &[&ArrayRef<'a, A>],
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    let mut owned = TryVec::new_in(alloc.clone());
    owned.try_reserve(arrays.len())?;
    for a in arrays {
        owned.try_push((*a).clone())?;
    }
    concat_arrays(&owned, alloc)
}

/// The rows of several record batches of one schema, one batch after the
/// other, as one batch of `schema` (arrow-select's `concat_batches`): each
/// column is [`concat()`] of that column of every batch. No batches give a
/// batch of zero rows.
///
/// ```
/// use alkaid::array::{Array, Int32Array, RecordBatch};
/// use alkaid::compute::concat_batches_in;
/// use alkaid::datatypes::{DataType, Field, Schema};
/// use alkaid::Global;
///
/// let schema = Schema::new(vec![Field::new("x", DataType::Int32, true)]);
/// let a = RecordBatch::try_new(schema.clone(), vec![Int32Array::from(vec![1, 2]).into_array_ref()])?;
/// let b = RecordBatch::try_new(schema.clone(), vec![Int32Array::from(vec![3]).into_array_ref()])?;
/// let ab = concat_batches_in(&schema, &[a, b], Global)?;
/// assert_eq!(ab.num_rows(), 3);
/// assert_eq!(ab.column(0), Some(&Int32Array::from(vec![1, 2, 3]).into_array_ref()));
/// # Ok::<(), alkaid::Error>(())
/// ```
///
/// # Errors
/// [`Error::SchemaMismatch`] (with the column's index) when a batch has
/// other column types or another number of columns than `schema`;
/// [`Error::CapacityOverflow`]; [`Error::AllocationFailed`]; as [`concat()`].
pub fn concat_batches_in<'a, A: Allocator + Clone>(
    schema: &crate::datatypes::Schema<'a, A>,
    batches: &[crate::array::RecordBatch<'a, A>],
    alloc: A,
) -> Result<crate::array::RecordBatch<'a, A>> {
    let fields = schema.fields();
    let mut rows = 0usize;
    for b in batches {
        if b.num_columns() != fields.len() {
            return Err(Error::SchemaMismatch.with_field(b.num_columns().min(fields.len())));
        }
        rows = rows
            .checked_add(b.num_rows())
            .ok_or(Error::CapacityOverflow)?;
    }
    let columns = crate::buffer::SharedSlice::try_from_fn_in(fields.len(), alloc.clone(), |i| {
        let field = fields.get(i).ok_or(Error::OutOfBounds)?;
        if batches.is_empty() {
            return super::new_empty(field.data_type(), alloc.clone());
        }
        let mut parts = TryVec::new_in(alloc.clone());
        parts.try_reserve(batches.len())?;
        for b in batches {
            let c = b.column(i).ok_or(Error::SchemaMismatch.with_field(i))?;
            if c.data_type() != field.data_type() {
                return Err(Error::SchemaMismatch.with_field(i));
            }
            parts.try_push(c.clone())?;
        }
        concat_arrays(&parts, alloc.clone()).map_err(|e| e.with_field(i))
    })?;
    crate::array::RecordBatch::try_new_with_rows(schema.clone(), columns, rows)
}

/// [`concat_batches_in`] with the global allocator.
///
/// # Errors
/// As [`concat_batches_in`].
#[cfg(feature = "alloc")]
pub fn concat_batches<'a>(
    schema: &crate::datatypes::Schema<'a, crate::Global>,
    batches: &[crate::array::RecordBatch<'a, crate::Global>],
) -> Result<crate::array::RecordBatch<'a, crate::Global>> {
    concat_batches_in(schema, batches, crate::Global)
}

/// [`concat()`] over arrays held by value (the recursion for children).
pub(super) fn concat_arrays<'a, A: Allocator + Clone>(
    arrays: &[ArrayRef<'a, A>],
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    let Some(first) = arrays.first() else {
        return Err(Error::InvalidArgument);
    };
    if arrays.iter().any(|a| a.data_type() != first.data_type()) {
        return Err(Error::TypeMismatch);
    }
    let total = total_len(arrays)?;
    dispatch_primitive!(first; _: T => concat_primitive::<T, A>(arrays, total, alloc), {
        ArrayRef::Null(_) => Ok(NullArray::new(total).into_array_ref()),
        ArrayRef::Boolean(_) => concat_boolean(arrays, total, alloc),
        ArrayRef::FixedSizeBinary(_) => concat_fixed_size_binary(arrays, total, alloc),
        ArrayRef::Binary(_) => concat_bytes::<BinaryType, A>(arrays, total, alloc),
        ArrayRef::LargeBinary(_) => concat_bytes::<LargeBinaryType, A>(arrays, total, alloc),
        ArrayRef::Utf8(_) => concat_bytes::<Utf8Type, A>(arrays, total, alloc),
        ArrayRef::LargeUtf8(_) => concat_bytes::<LargeUtf8Type, A>(arrays, total, alloc),
        #[cfg(feature = "views")]
        ArrayRef::BinaryView(_) => concat_views::<BinaryViewType, A>(arrays, total, alloc),
        #[cfg(feature = "views")]
        ArrayRef::Utf8View(_) => concat_views::<StringViewType, A>(arrays, total, alloc),
        #[cfg(feature = "nested")]
        ArrayRef::List(_) => concat_list::<i32, A>(arrays, total, alloc),
        #[cfg(feature = "nested")]
        ArrayRef::LargeList(_) => concat_list::<i64, A>(arrays, total, alloc),
        #[cfg(feature = "nested")]
        ArrayRef::ListView(_) => concat_list_view::<i32, A>(arrays, total, alloc),
        #[cfg(feature = "nested")]
        ArrayRef::LargeListView(_) => concat_list_view::<i64, A>(arrays, total, alloc),
        #[cfg(feature = "nested")]
        ArrayRef::FixedSizeList(_) => concat_fixed_size_list(arrays, total, alloc),
        #[cfg(feature = "nested")]
        ArrayRef::Struct(_) => concat_struct(arrays, total, alloc),
        #[cfg(feature = "nested")]
        ArrayRef::Map(_) => concat_map(arrays, total, alloc),
        #[cfg(feature = "union")]
        ArrayRef::Union(_) => concat_union(arrays, total, alloc),
        #[cfg(feature = "dictionary")]
        ArrayRef::Dictionary(_) => concat_dictionary(arrays, total, alloc),
        #[cfg(feature = "run-end")]
        ArrayRef::RunEndEncoded(_) => concat_run_end(arrays, total, alloc),
    })
}
