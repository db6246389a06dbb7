//! [`take()`]: gather the slots of an array by index, into new buffers.
//! This file is the dispatcher, one arm per layout; the leaves:
//!
//! | file | what |
//! |---|---|
//! | `flat.rs` | primitive, boolean, fixed-size binary and view arrays |
//! | `bytes.rs` | binary and string arrays with offsets (also `filter`'s gather of them) |
//! | `nested.rs` | lists, list views, fixed-size lists, structs, maps, unions, dictionaries, run-end encoded arrays (their children through [`take_idx`]) |
//! | `gather.rs` | fixed-width values by index, a slot's range of offsets |
//! | `nulls.rs` | the validity of a take |

pub(super) mod bytes;
mod flat;
mod gather;
nested_leaf!(nested);
mod nulls;

use allocator_api2::alloc::Allocator;

use super::indices::{check_bounds, Bits, Idx, Indices, TakeIndex};
use crate::array::{
    dispatch_primitive, Array, ArrayRef, BinaryType, LargeBinaryType, LargeUtf8Type, NullArray,
    PrimitiveArray, PrimitiveType, Utf8Type,
};
#[cfg(feature = "views")]
use crate::array::{BinaryViewType, StringViewType};
#[cfg(doc)]
use crate::error::Error;
use crate::error::Result;
use bytes::take_bytes;
#[cfg(feature = "views")]
use flat::take_views;
use flat::{take_boolean, take_fixed_size_binary, take_primitive};
#[cfg(feature = "dictionary")]
use nested::take_dictionary;
#[cfg(feature = "run-end")]
use nested::take_run_end;
#[cfg(feature = "union")]
use nested::take_union;
#[cfg(feature = "nested")]
use nested::{take_fixed_size_list, take_list, take_list_view, take_map, take_struct};

/// Gathers slots of `array` by index into a new array of the same data type
/// ("take"): slot `i` of the result is slot `indices[i]` of `array`, null
/// where that slot is null or the index itself is null. Indices may repeat
/// and come in any order; `array` may be a slice.
///
/// Every layout of the columnar format ("Physical Memory Layout"): values,
/// offsets, views, type ids, keys and children are gathered into new
/// buffers from `alloc`, except what is shared with `array` (no copy):
/// - a dictionary's values (only the keys are gathered);
/// - a view array's data buffers (only the 16-byte views are gathered;
///   see [`super::gc()`] to copy out the bytes still referenced);
/// - a list view's child (only the offsets and sizes are gathered).
///
/// Lists, maps and fixed-size lists gather their child's elements; structs
/// and sparse unions take every child with the same indices; dense unions
/// take each child by the offsets of the slots selected in it; run-end
/// encoded arrays get one run per consecutive equal physical slot. A null
/// index gives a null slot: null in the validity bitmap, a null child slot
/// for a union (its first declared child), a null value run for run-end
/// encoding.
///
/// ```
/// use alkaid::array::{Array, StringArray, UInt32Array};
/// use alkaid::compute::take_in;
/// use alkaid::Global;
///
/// let a = StringArray::from(vec![Some("a"), None, Some("ccc")]).into_array_ref();
/// let idx = UInt32Array::from(vec![Some(2), None, Some(0), Some(2)]);
/// let t = take_in(&a, &idx, Global)?;
/// let s = t.as_string().expect("Utf8");
/// assert_eq!(s.iter().collect::<Vec<_>>(), [Some("ccc"), None, Some("a"), Some("ccc")]);
///
/// // A valid index past the end is an error; its position is the row.
/// let e = take_in(&a, &[0usize, 3][..], Global).unwrap_err();
/// assert_eq!(e, alkaid::Error::TakeIndexOutOfBounds);
/// assert_eq!(e.location().row(), Some(1));
/// # Ok::<(), alkaid::Error>(())
/// ```
///
/// # Errors
/// [`Error::TakeIndexOutOfBounds`] (with the index's position as the row)
/// when a valid index is not less than `array.len()`;
/// [`Error::AllocationFailed`]; [`Error::CapacityOverflow`] when the
/// gathered bytes or child elements do not fit the offset type (e.g. more
/// than `i32::MAX` bytes of Utf8 data); the array's own validation errors
/// when it is malformed (offsets, run ends, union type ids).
pub fn take_in<'a, 'b, 'i, A>(
    array: &ArrayRef<'a, A>,
    indices: impl Into<Indices<'b, 'i, A>>,
    alloc: A,
) -> Result<ArrayRef<'a, A>>
where
    'i: 'b,
    A: Allocator + Clone + 'i,
{
    match indices.into() {
        Indices::UInt32(p) => take_idx(array, &idx_of(p), alloc),
        Indices::UInt64(p) => take_idx(array, &idx_of(p), alloc),
        Indices::U32Slice(s) => take_idx(array, &Idx::all_valid(s), alloc),
        Indices::Usize(s) => take_idx(array, &Idx::all_valid(s), alloc),
    }
}

/// [`take_in`] with the global allocator.
///
/// # Errors
/// As [`take_in`].
#[cfg(feature = "alloc")]
pub fn take<'a, 'b, 'i>(
    array: &ArrayRef<'a, crate::Global>,
    indices: impl Into<Indices<'b, 'i, crate::Global>>,
) -> Result<ArrayRef<'a, crate::Global>>
where
    'i: 'b,
{
    take_in(array, indices, crate::Global)
}

/// The [`Idx`] of an index array (its bitmap only when it has nulls).
fn idx_of<'b, T: TakeIndex + PrimitiveType, A: Allocator>(
    p: &'b PrimitiveArray<'_, T, A>,
) -> Idx<'b, T> {
    Idx {
        values: p.values(),
        valid: p.nulls().filter(|n| n.null_count() > 0).map(Bits::of),
    }
}

/// [`take_in`] by read indices (the recursion for children).
pub(super) fn take_idx<'a, I: TakeIndex, A: Allocator + Clone>(
    array: &ArrayRef<'a, A>,
    idx: &Idx<'_, I>,
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    dispatch_primitive!(array; a: T => take_primitive::<T, I, A>(a, idx, alloc), {
        ArrayRef::Null(a) => {
            check_bounds(idx, a.len())?;
            Ok(NullArray::new(idx.len()).into_array_ref())
        }
        ArrayRef::Boolean(a) => take_boolean(a, idx, alloc),
        ArrayRef::FixedSizeBinary(a) => take_fixed_size_binary(a, idx, alloc),
        ArrayRef::Binary(a) => take_bytes::<BinaryType, I, A>(a, idx, alloc),
        ArrayRef::LargeBinary(a) => take_bytes::<LargeBinaryType, I, A>(a, idx, alloc),
        ArrayRef::Utf8(a) => take_bytes::<Utf8Type, I, A>(a, idx, alloc),
        ArrayRef::LargeUtf8(a) => take_bytes::<LargeUtf8Type, I, A>(a, idx, alloc),
        #[cfg(feature = "views")]
        ArrayRef::BinaryView(a) => take_views::<BinaryViewType, I, A>(a, idx, alloc),
        #[cfg(feature = "views")]
        ArrayRef::Utf8View(a) => take_views::<StringViewType, I, A>(a, idx, alloc),
        #[cfg(feature = "nested")]
        ArrayRef::List(a) => take_list(a, idx, alloc),
        #[cfg(feature = "nested")]
        ArrayRef::LargeList(a) => take_list(a, idx, alloc),
        #[cfg(feature = "nested")]
        ArrayRef::ListView(a) => take_list_view(a, idx, alloc),
        #[cfg(feature = "nested")]
        ArrayRef::LargeListView(a) => take_list_view(a, idx, alloc),
        #[cfg(feature = "nested")]
        ArrayRef::FixedSizeList(a) => take_fixed_size_list(a, idx, alloc),
        #[cfg(feature = "nested")]
        ArrayRef::Struct(a) => take_struct(a, idx, alloc),
        #[cfg(feature = "nested")]
        ArrayRef::Map(a) => take_map(a, idx, alloc),
        #[cfg(feature = "union")]
        ArrayRef::Union(a) => take_union(a, idx, alloc),
        #[cfg(feature = "dictionary")]
        ArrayRef::Dictionary(a) => take_dictionary(a, idx, alloc),
        #[cfg(feature = "run-end")]
        ArrayRef::RunEndEncoded(a) => take_run_end(a, idx, alloc),
    })
}
