//! The offset types of the list layouts (`i32`, `i64`) and how code generic
//! over one picks the `List`/`LargeList` (or `ListView`/`LargeListView`)
//! form of a value. Names no array type: the list and list-view files wrap
//! and downcast their own arrays through [`ListOffsetSize::by_width`] and
//! [`ListOffsetSize::from_width_ref`].

use allocator_api2::alloc::Allocator;

use crate::buffer::OffsetSize;
use crate::datatypes::{DataType, FieldRef};

/// A family of types, one per list offset type: `Of<i32>` is the `List` (or
/// `ListView`) form and `Of<i64>` the `LargeList` (or `LargeListView`) form,
/// e.g. `GenericListArray<'a, O, A>` over `O`.
pub trait OffsetFamily {
    /// The member for offset type `O`.
    type Of<O: ListOffsetSize>;
}

/// A value of a family sorted by its offset width: `I32` for `List` and
/// `ListView`, `I64` for `LargeList` and `LargeListView`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ByWidth<S, L> {
    /// The 32-bit offset form.
    I32(S),
    /// The 64-bit offset form.
    I64(L),
}

/// The offset types of the list layouts (`i32`, `i64`): they pick the
/// [`DataType`] of lists and list views, and through [`OffsetFamily`] the
/// `ArrayRef` variant of their arrays.
///
/// Implemented for exactly `i32` (List, ListView) and `i64` (LargeList,
/// LargeListView); [`OffsetSize`] is sealed.
pub trait ListOffsetSize: OffsetSize {
    /// `List(field)` for `i32`, `LargeList(field)` for `i64`.
    fn list_data_type<'a, A: Allocator>(field: FieldRef<'a, A>) -> DataType<'a, A>;
    /// `ListView(field)` for `i32`, `LargeListView(field)` for `i64`.
    fn list_view_data_type<'a, A: Allocator>(field: FieldRef<'a, A>) -> DataType<'a, A>;
    /// `v` as its 32-bit or 64-bit form (`I32` for `i32`, `I64` for `i64`).
    fn by_width<F: OffsetFamily>(v: F::Of<Self>) -> ByWidth<F::Of<i32>, F::Of<i64>>;
    /// The member for this offset type in `v`, or `None` when `v` holds the
    /// other width.
    fn from_width_ref<'b, F: OffsetFamily>(
        v: ByWidth<&'b F::Of<i32>, &'b F::Of<i64>>,
    ) -> Option<&'b F::Of<Self>>;
}

macro_rules! list_offset {
    ($t:ty, $list:ident, $view:ident, $width:ident) => {
        impl ListOffsetSize for $t {
            fn list_data_type<'a, A: Allocator>(field: FieldRef<'a, A>) -> DataType<'a, A> {
                DataType::$list(field)
            }
            fn list_view_data_type<'a, A: Allocator>(field: FieldRef<'a, A>) -> DataType<'a, A> {
                DataType::$view(field)
            }
            fn by_width<F: OffsetFamily>(v: F::Of<Self>) -> ByWidth<F::Of<i32>, F::Of<i64>> {
                ByWidth::$width(v)
            }
            fn from_width_ref<'b, F: OffsetFamily>(
                v: ByWidth<&'b F::Of<i32>, &'b F::Of<i64>>,
            ) -> Option<&'b F::Of<Self>> {
                match v {
                    ByWidth::$width(x) => Some(x),
                    _ => None,
                }
            }
        }
    };
}

list_offset!(i32, List, ListView, I32);
list_offset!(i64, LargeList, LargeListView, I64);
