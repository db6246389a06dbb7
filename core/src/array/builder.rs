//! [`ArrayBuilder`]: what nested builders need from the builder of a child.
//!
//! The builders of the nested layouts (lists, list views, fixed-size lists,
//! maps, structs) are generic over the builders of their children: a
//! `ListBuilder<PrimitiveBuilder<i8, _>, _>` builds `List<Int8>`, a
//! `ListBuilder<ListBuilder<..>, _>` builds `List<List<..>>`. The child is
//! reached through the parent's `values()` (or `children()`), filled with the
//! child's own typed methods, and the parent closes a slot with
//! `try_append(valid)`. No trait objects and no global heap are involved.

use allocator_api2::alloc::Allocator;

use super::primitive::PrimitiveType;
use super::{
    Array, ArrayRef, BooleanBuilder, ByteArrayType, FixedSizeBinaryBuilder, GenericByteBuilder,
    PrimitiveBuilder,
};
#[cfg(feature = "views")]
use super::{ByteViewType, GenericByteViewBuilder};
#[cfg(feature = "dictionary")]
use super::{DictionaryBuilder, DictionaryKeyType, PrimitiveDictionaryBuilder};
#[cfg(feature = "run-end")]
use super::{PrimitiveRunBuilder, RunEndIndexType};
use crate::buffer::SharedSlice;
use crate::error::Result;

/// A builder that a nested builder can drive as its child: it reports its
/// length in slots, appends nulls, and freezes into a type-erased [`ArrayRef`].
///
/// Implemented by every builder of this crate that can append a null: the
/// primitive, boolean, binary/string (offsets and views), fixed-size binary,
/// dictionary, run-end and nested builders.
pub trait ArrayBuilder<'a, A: Allocator> {
    /// Number of slots appended so far.
    fn len(&self) -> usize;

    /// `true` when no slot was appended.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Appends one null slot (nested builders append an empty, null slot).
    ///
    /// # Errors
    /// [`crate::Error::AllocationFailed`], [`crate::Error::CapacityOverflow`],
    /// or the builder's own state errors.
    fn try_append_null(&mut self) -> Result<()>;

    /// Freezes the builder into an array (no copy of the data).
    ///
    /// # Errors
    /// [`crate::Error::AllocationFailed`] when the metadata of a nested array
    /// (its child field, the shared child) cannot be allocated; the builder's
    /// own validation errors.
    fn try_finish_array_ref(self) -> Result<ArrayRef<'a, A>>
    where
        Self: Sized;
}

/// Implements [`ArrayBuilder`] by delegating to a builder's inherent `len`,
/// `try_append_null` and `finish` (infallible, or fallible with `?`).
macro_rules! leaf_builder {
    ([$($g:tt)*] $ty:ty, $($q:tt)?) => {
        impl<'a, $($g)*> ArrayBuilder<'a, A> for $ty {
            fn len(&self) -> usize {
                <$ty>::len(self)
            }

            fn try_append_null(&mut self) -> Result<()> {
                <$ty>::try_append_null(self)
            }

            fn try_finish_array_ref(self) -> Result<ArrayRef<'a, A>> {
                Ok(self.finish()$($q)?.into_array_ref())
            }
        }
    };
}

leaf_builder!([T: PrimitiveType, A: Allocator + Clone] PrimitiveBuilder<'a, T, A>,);
leaf_builder!([A: Allocator + Clone] BooleanBuilder<A>,);
leaf_builder!([T: ByteArrayType, A: Allocator + Clone] GenericByteBuilder<T, A>,);
#[cfg(feature = "views")]
leaf_builder!([T: ByteViewType, A: Allocator + Clone] GenericByteViewBuilder<T, A>, ?);
leaf_builder!([A: Allocator + Clone] FixedSizeBinaryBuilder<A>,);
#[cfg(feature = "dictionary")]
leaf_builder!([K: DictionaryKeyType, A: Allocator + Clone] DictionaryBuilder<'a, K, A>,);
#[cfg(feature = "dictionary")]
leaf_builder!(
    [K: DictionaryKeyType, V: PrimitiveType, A: Allocator + Clone]
    PrimitiveDictionaryBuilder<'a, K, V, A>, ?
);
#[cfg(feature = "run-end")]
leaf_builder!(
    [R: RunEndIndexType, V: PrimitiveType, A: Allocator + Clone]
    PrimitiveRunBuilder<'a, R, V, A>, ?
);

/// The child builders of a [`super::StructBuilder`]: a tuple of one to eight
/// [`ArrayBuilder`]s (one per field, in field order), or `()` for a struct
/// builder that only records validity and receives finished children.
pub trait StructChildren<'a, A: Allocator> {
    /// Number of children.
    const COUNT: usize;

    /// `true` when every child holds exactly `len` slots.
    fn all_have_len(&self, len: usize) -> bool;

    /// Appends a null to every child.
    ///
    /// # Errors
    /// The first child's append error.
    fn try_append_null(&mut self) -> Result<()>;

    /// Finishes every child, in order, into a slice allocated from `alloc`.
    ///
    /// # Errors
    /// [`crate::Error::AllocationFailed`], the children's finish errors.
    fn try_finish(self, alloc: A) -> Result<SharedSlice<'a, ArrayRef<'a, A>, A>>;
}

impl<'a, A: Allocator> StructChildren<'a, A> for () {
    const COUNT: usize = 0;

    fn all_have_len(&self, _len: usize) -> bool {
        true
    }

    fn try_append_null(&mut self) -> Result<()> {
        Ok(())
    }

    fn try_finish(self, _alloc: A) -> Result<SharedSlice<'a, ArrayRef<'a, A>, A>> {
        Ok(SharedSlice::empty())
    }
}

macro_rules! struct_children {
    ($n:literal; $($b:ident $i:tt),+) => {
        impl<'a, A: Allocator, $($b: ArrayBuilder<'a, A>),+> StructChildren<'a, A> for ($($b,)+) {
            const COUNT: usize = $n;

            fn all_have_len(&self, len: usize) -> bool {
                true $(&& self.$i.len() == len)+
            }

            fn try_append_null(&mut self) -> Result<()> {
                $(self.$i.try_append_null()?;)+
                Ok(())
            }

            fn try_finish(self, alloc: A) -> Result<SharedSlice<'a, ArrayRef<'a, A>, A>> {
                let arrays = [$(self.$i.try_finish_array_ref()?),+];
                SharedSlice::try_from_iter_in(arrays, alloc)
            }
        }
    };
}

struct_children!(1; B0 0);
struct_children!(2; B0 0, B1 1);
struct_children!(3; B0 0, B1 1, B2 2);
struct_children!(4; B0 0, B1 1, B2 2, B3 3);
struct_children!(5; B0 0, B1 1, B2 2, B3 3, B4 4);
struct_children!(6; B0 0, B1 1, B2 2, B3 3, B4 4, B5 5);
struct_children!(7; B0 0, B1 1, B2 2, B3 3, B4 4, B5 5, B6 6);
struct_children!(8; B0 0, B1 1, B2 2, B3 3, B4 4, B5 5, B6 6, B7 7);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Global;

    #[test]
    fn leaf_builders_as_array_builders() {
        let mut p = PrimitiveBuilder::<i16, Global>::new_in(Global);
        ArrayBuilder::try_append_null(&mut p).unwrap();
        p.try_append_value(7).unwrap();
        assert_eq!(ArrayBuilder::len(&p), 2);
        let a = p.try_finish_array_ref().unwrap();
        let ArrayRef::Int16(a) = a else {
            panic!("wrong variant")
        };
        assert_eq!(a.iter().collect::<std::vec::Vec<_>>(), [None, Some(7)]);

        let mut b = BooleanBuilder::new_in(Global);
        b.try_append_value(true).unwrap();
        ArrayBuilder::try_append_null(&mut b).unwrap();
        let a = ArrayBuilder::<Global>::try_finish_array_ref(b).unwrap();
        assert_eq!(a.null_count(), 1);
        assert!(matches!(a, ArrayRef::Boolean(_)));
    }

    /// One null through the trait, then finish: checks each delegation.
    fn one_null<'a, B: ArrayBuilder<'a, Global>>(mut b: B) -> ArrayRef<'a, Global> {
        b.try_append_null().unwrap();
        assert_eq!(b.len(), 1);
        assert!(!b.is_empty());
        let a = b.try_finish_array_ref().unwrap();
        assert_eq!(a.len(), 1);
        a
    }

    #[test]
    fn other_leaf_builders_as_array_builders() {
        use crate::array::{
            FixedSizeBinaryBuilder, PrimitiveDictionaryBuilder, PrimitiveRunBuilder, StringBuilder,
            StringViewBuilder,
        };
        assert!(matches!(
            one_null(StringBuilder::new_in(Global)),
            ArrayRef::Utf8(_)
        ));
        assert!(matches!(
            one_null(StringViewBuilder::new_in(Global)),
            ArrayRef::Utf8View(_)
        ));
        let fsb = FixedSizeBinaryBuilder::try_new_in(3, Global).unwrap();
        assert!(matches!(one_null(fsb), ArrayRef::FixedSizeBinary(_)));
        let d = PrimitiveDictionaryBuilder::<i8, u8, Global>::new_in(Global);
        assert!(matches!(one_null(d), ArrayRef::Dictionary(_)));
        let r = PrimitiveRunBuilder::<i32, u8, Global>::new_in(Global);
        assert!(matches!(one_null(r), ArrayRef::RunEndEncoded(_)));
    }

    #[test]
    fn tuple_children_finish_in_order() {
        let mut c = (
            PrimitiveBuilder::<i8, Global>::new_in(Global),
            BooleanBuilder::new_in(Global),
        );
        assert_eq!(
            <(PrimitiveBuilder<i8, Global>, BooleanBuilder<Global>) as StructChildren<Global>>::COUNT,
            2
        );
        c.0.try_append_value(1).unwrap();
        assert!(!c.all_have_len(1));
        c.1.try_append_value(false).unwrap();
        assert!(c.all_have_len(1));
        StructChildren::try_append_null(&mut c).unwrap();
        let arrays = c.try_finish(Global).unwrap();
        assert_eq!(arrays.len(), 2);
        assert!(matches!(arrays[0], ArrayRef::Int8(_)));
        assert!(matches!(arrays[1], ArrayRef::Boolean(_)));
        assert_eq!(arrays[1].len(), 2);
    }
}
