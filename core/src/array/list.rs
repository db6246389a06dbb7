//! Variable-size list layout ("Variable-size List Layout"): a validity
//! bitmap, `len + 1` offsets (`i32` for List, `i64` for LargeList) and one
//! child array; slot `i` is the child's elements `offsets[i]..offsets[i + 1]`.

use core::fmt;
use core::marker::PhantomData;

use allocator_api2::alloc::Allocator;
use derive_where::derive_where;

use super::builder::ArrayBuilder;
use super::list_offset::{ByWidth, ListOffsetSize, OffsetFamily};
use super::{check_slice, validate_child, validate_nulls, Array, ArrayRef, ValidationLevel};
use crate::buffer::{check_offsets, NullBuffer, OffsetBuffer, OffsetsBuilder, SharedBox};
use crate::datatypes::{DataType, Field, FieldRef};
use crate::error::{Error, Result};

/// The [`OffsetFamily`] of [`GenericListArray`]s over one child lifetime
/// and allocator.
struct Lists<'a, A>(PhantomData<(&'a (), A)>);

impl<'a, A: Allocator + 'a> OffsetFamily for Lists<'a, A> {
    type Of<O: ListOffsetSize> = GenericListArray<'a, O, A>;
}

/// List with 32-bit offsets (`List<T>`).
pub type ListArray<
    'a,
    #[cfg(feature = "alloc")] A = crate::Global,
    #[cfg(not(feature = "alloc"))] A,
> = GenericListArray<'a, i32, A>;
/// List with 64-bit offsets (`LargeList<T>`).
pub type LargeListArray<
    'a,
    #[cfg(feature = "alloc")] A = crate::Global,
    #[cfg(not(feature = "alloc"))] A,
> = GenericListArray<'a, i64, A>;

/// An array of variable-length lists of the elements of one child array.
///
/// Slot `i` is the child's elements `offsets[i]..offsets[i + 1]` (offsets in
/// child slots, `i32` or `i64` per `O`). A null slot may cover a non-empty
/// range, whose content is then meaningless. Slicing shares the offsets (they
/// are not rebased: the first offset may be non-zero) and the child.
///
/// From its parts, `[[1, 2], [], null, [3, 4, 5]]`:
///
/// ```
/// use alkaid::array::{Array, Int32Array, ListArray};
/// use alkaid::buffer::{BooleanBuffer, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer, SharedBox};
/// use alkaid::datatypes::{DataType, Field};
/// use alkaid::Global;
///
/// let field = SharedBox::try_new_in(Field::new("item", DataType::Int32, true), Global)?;
/// let offsets: [i32; 5] = [0, 2, 2, 2, 5];
/// let offsets = OffsetBuffer::try_new(ScalarBuffer::from_slice_ref(&offsets))?;
/// let values = Int32Array::from(vec![1, 2, 3, 4, 5]).into_array_ref();
/// // Validity bitmap, LSB first: slots 0, 1 and 3 valid.
/// let bits = BooleanBuffer::try_new(Buffer::from_slice_ref(&[0b1011]), 0, 4)?;
/// let validity = Some(NullBuffer::new(bits));
/// let list = ListArray::try_new_in(field, offsets, values, validity, Global)?;
///
/// assert_eq!((list.len(), list.null_count()), (4, 1));
/// assert_eq!(list.value_length(3), Some(3));
/// let last = list.get(3).expect("a valid slot");
/// assert_eq!(last, Int32Array::from(vec![3, 4, 5]).into_array_ref());
/// assert!(list.get(1).is_some_and(|l| l.is_empty())); // empty, not null
/// assert!(list.get(2).is_none()); // null
/// # Ok::<(), alkaid::Error>(())
/// ```
#[derive_where(Clone)]
pub struct GenericListArray<
    'a,
    O: ListOffsetSize,
    #[cfg(feature = "alloc")] A: Allocator = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator,
> {
    data_type: DataType<'a, A>,
    field: FieldRef<'a, A>,
    offsets: OffsetBuffer<'a, O, A>,
    values: SharedBox<'a, ArrayRef<'a, A>, A>,
    nulls: Option<NullBuffer<'a, A>>,
}

impl<'a, O: ListOffsetSize, A: Allocator> GenericListArray<'a, O, A> {
    /// A list array of type `List(field)` (or `LargeList(field)`) over
    /// `offsets` (one more than the number of slots) into the child `values`,
    /// with an optional validity bitmap. Checks everything
    /// ([`ValidationLevel::Full`], child included).
    ///
    /// # Errors
    /// [`Error::TypeMismatch`] when the child's type is not the field's;
    /// [`Error::InvalidDataType`] for bad type parameters;
    /// [`Error::ValidityTooSmall`] when the bitmap's length is not the number
    /// of slots; [`Error::OffsetsLength`], [`Error::OffsetOutOfBounds`] (an
    /// offset beyond the child), [`Error::OffsetsNotMonotonic`]; the child's
    /// own validation errors.
    pub fn try_new(
        field: FieldRef<'a, A>,
        offsets: OffsetBuffer<'a, O, A>,
        values: SharedBox<'a, ArrayRef<'a, A>, A>,
        nulls: Option<NullBuffer<'a, A>>,
    ) -> Result<Self> {
        let a = Self::from_parts(field, offsets, values, nulls);
        a.validate(ValidationLevel::Full)?;
        Ok(a)
    }

    /// As [`Self::try_new`], moving the child `values` into an allocation from `alloc`.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`]; as [`Self::try_new`].
    pub fn try_new_in(
        field: FieldRef<'a, A>,
        offsets: OffsetBuffer<'a, O, A>,
        values: ArrayRef<'a, A>,
        nulls: Option<NullBuffer<'a, A>>,
        alloc: A,
    ) -> Result<Self> {
        Self::try_new(field, offsets, SharedBox::try_new_in(values, alloc)?, nulls)
    }

    /// As [`Self::try_new`] without any check.
    ///
    /// # Safety
    /// The child's type must be the field's; `nulls` (if any) must have one
    /// bit per slot; the offsets must be non-decreasing and within the child.
    /// Accessors stay memory safe otherwise, but return `None` or wrong data.
    pub unsafe fn new_unchecked(
        field: FieldRef<'a, A>,
        offsets: OffsetBuffer<'a, O, A>,
        values: SharedBox<'a, ArrayRef<'a, A>, A>,
        nulls: Option<NullBuffer<'a, A>>,
    ) -> Self {
        Self::from_parts(field, offsets, values, nulls)
    }

    /// The array of the parts, unchecked (for [`Self::try_new`], which then
    /// validates, and [`Self::new_unchecked`]).
    fn from_parts(
        field: FieldRef<'a, A>,
        offsets: OffsetBuffer<'a, O, A>,
        values: SharedBox<'a, ArrayRef<'a, A>, A>,
        nulls: Option<NullBuffer<'a, A>>,
    ) -> Self {
        GenericListArray {
            data_type: O::list_data_type(field.clone()),
            field,
            offsets,
            values,
            nulls,
        }
    }

    /// The typed list array inside `a`, if `a` is a list with offsets `O`.
    pub fn downcast_ref<'b>(a: &'b ArrayRef<'a, A>) -> Option<&'b Self> {
        let w = match a {
            ArrayRef::List(l) => ByWidth::I32(l),
            ArrayRef::LargeList(l) => ByWidth::I64(l),
            _ => return None,
        };
        O::from_width_ref::<Lists<'a, A>>(w)
    }

    /// The child field (name, element type, nullability of the elements).
    pub fn field(&self) -> &FieldRef<'a, A> {
        &self.field
    }

    /// The offsets buffer (`len + 1` offsets in child slots).
    pub fn offsets(&self) -> &OffsetBuffer<'a, O, A> {
        &self.offsets
    }

    /// The offsets, `len + 1` of them, in child slots.
    pub fn value_offsets(&self) -> &[O] {
        self.offsets.as_slice()
    }

    /// The number of elements of slot `i` whatever its validity; `None` when
    /// `i >= len`.
    pub fn value_length(&self, i: usize) -> Option<usize> {
        self.offsets.range(i).map(|r| r.len())
    }

    /// The whole child array (including elements outside this view's offsets).
    pub fn values(&self) -> &ArrayRef<'a, A> {
        &self.values
    }

    /// The elements of slot `i` whatever its validity, as a zero-copy slice
    /// of the child; `None` when `i >= len` (or the offsets are corrupt).
    pub fn value(&self, i: usize) -> Option<ArrayRef<'a, A>> {
        let r = self.offsets.range(i)?;
        self.values.slice(r.start, r.len()).ok()
    }

    /// `Some(elements)` for a valid slot, `None` for a null or missing one.
    pub fn get(&self, i: usize) -> Option<ArrayRef<'a, A>> {
        if self.is_valid(i) {
            self.value(i)
        } else {
            None
        }
    }

    /// Iterates the slots as options of child slices.
    pub fn iter(&self) -> impl Iterator<Item = Option<ArrayRef<'a, A>>> + '_ {
        (0..self.len()).map(move |i| self.get(i))
    }

    /// Splits into field, offsets, child and bitmap.
    #[allow(clippy::type_complexity)]
    pub fn into_parts(
        self,
    ) -> (
        FieldRef<'a, A>,
        OffsetBuffer<'a, O, A>,
        SharedBox<'a, ArrayRef<'a, A>, A>,
        Option<NullBuffer<'a, A>>,
    ) {
        (self.field, self.offsets, self.values, self.nulls)
    }
}

impl<'a, O: ListOffsetSize, A: Allocator> Array<'a, A> for GenericListArray<'a, O, A> {
    fn data_type(&self) -> &DataType<'a, A> {
        &self.data_type
    }

    fn len(&self) -> usize {
        self.offsets.len_slots()
    }

    fn nulls(&self) -> Option<&NullBuffer<'a, A>> {
        self.nulls.as_ref()
    }

    fn slice(&self, offset: usize, len: usize) -> Result<Self> {
        check_slice(offset, len, self.len())?;
        Ok(GenericListArray {
            data_type: self.data_type.clone(),
            field: self.field.clone(),
            offsets: self.offsets.slice(offset, len)?,
            values: self.values.clone(),
            nulls: crate::buffer::slice_nulls(self.nulls.as_ref(), offset, len)?,
        })
    }

    fn validate(&self, level: ValidationLevel) -> Result<()> {
        if level == ValidationLevel::None {
            return Ok(());
        }
        self.data_type.validate()?;
        if self.field.data_type() != self.values.data_type() {
            return Err(Error::TypeMismatch);
        }
        let len = self.len();
        validate_nulls(self.nulls.as_ref(), len, level)?;
        let full = level >= ValidationLevel::Full;
        let child_len = self.values.len();
        check_offsets(&self.offsets, len, child_len, full)?;
        validate_child(&self.field, &self.values, level, None, (0, child_len, 1))
    }

    fn into_array_ref(self) -> ArrayRef<'a, A> {
        match O::by_width::<Lists<'a, A>>(self) {
            ByWidth::I32(l) => ArrayRef::List(l),
            ByWidth::I64(l) => ArrayRef::LargeList(l),
        }
    }
}

impl<O: ListOffsetSize, A: Allocator> fmt::Debug for GenericListArray<'_, O, A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "GenericListArray<{:?}> ", self.field.data_type())?;
        f.debug_list().entries(self.iter()).finish()
    }
}

/// Builder of [`ListArray`] (32-bit offsets).
pub type ListBuilder<
    'a,
    B,
    #[cfg(feature = "alloc")] A = crate::Global,
    #[cfg(not(feature = "alloc"))] A,
> = GenericListBuilder<'a, i32, B, A>;
/// Builder of [`LargeListArray`] (64-bit offsets).
pub type LargeListBuilder<
    'a,
    B,
    #[cfg(feature = "alloc")] A = crate::Global,
    #[cfg(not(feature = "alloc"))] A,
> = GenericListBuilder<'a, i64, B, A>;

/// Builds a [`GenericListArray`] in memory from `A`: append a list's elements
/// to [`Self::values`] (the child builder `B`), then close the list with
/// [`Self::try_append`].
///
/// The child field defaults to `item`, nullable, of the child's type; set
/// another with [`Self::with_field`].
///
/// ```
/// use alkaid::array::{Array, ArrayRef, Int64Builder, ListArray, ListBuilder, StringArray, StringBuilder};
///
/// // [["a", "b"], null, ["c"]]
/// let mut b = ListBuilder::new(StringBuilder::new());
/// b.values().try_append_value("a")?;
/// b.values().try_append_value("b")?;
/// b.try_append(true)?;
/// b.try_append_null()?;
/// b.values().try_append_value("c")?;
/// b.try_append(true)?;
/// let list = b.try_finish()?;
/// assert_eq!((list.len(), list.null_count()), (3, 1));
/// assert_eq!(list.value_offsets(), &[0, 2, 2, 3]);
/// assert_eq!(list.get(0), Some(StringArray::from(vec!["a", "b"]).into_array_ref()));
///
/// // Builders nest: List<List<Int64>>, [[[1], [2, 3]]].
/// let mut outer = ListBuilder::new(ListBuilder::new(Int64Builder::new()));
/// let inner = outer.values();
/// inner.values().try_append_value(1)?;
/// inner.try_append(true)?;
/// inner.values().try_append_slice(&[2, 3])?;
/// inner.try_append(true)?;
/// outer.try_append(true)?;
/// let nested = outer.try_finish()?;
/// let first = nested.get(0).expect("one valid slot");
/// let first = ListArray::downcast_ref(&first).expect("a List");
/// assert_eq!(first.value_offsets(), &[0, 1, 3]);
/// assert!(matches!(nested.values(), ArrayRef::List(_)));
/// # Ok::<(), alkaid::Error>(())
/// ```
pub struct GenericListBuilder<
    'a,
    O: ListOffsetSize,
    B,
    #[cfg(feature = "alloc")] A: Allocator + Clone = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator + Clone,
> {
    values: B,
    /// Offsets and validity; the first offset is the child length when the
    /// builder was made.
    offsets: OffsetsBuilder<O, A>,
    field: Option<FieldRef<'a, A>>,
    alloc: A,
}

impl<'a, O: ListOffsetSize, B: ArrayBuilder<'a, A>, A: Allocator + Clone>
    GenericListBuilder<'a, O, B, A>
{
    /// An empty list builder over the child builder `values`; allocates
    /// nothing yet. Elements already in `values` are before the first list.
    pub fn new_in(values: B, alloc: A) -> Self {
        GenericListBuilder {
            offsets: OffsetsBuilder::new_in(values.len(), alloc.clone()),
            values,
            field: None,
            alloc,
        }
    }

    /// Uses `field` as the child field (its type must be the child's, checked
    /// by [`Self::try_finish`]).
    pub fn with_field(mut self, field: FieldRef<'a, A>) -> Self {
        self.field = Some(field);
        self
    }

    /// The child builder: append the elements of the current list here.
    pub fn values(&mut self) -> &mut B {
        &mut self.values
    }

    /// Number of lists closed.
    pub fn len(&self) -> usize {
        self.offsets.len()
    }

    /// `true` when no list was closed.
    pub fn is_empty(&self) -> bool {
        self.offsets.is_empty()
    }

    /// Closes the current list: the child elements appended since the
    /// previous one become slot `len`, valid or null as `valid` says.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`]; [`Error::CapacityOverflow`] when the child
    /// length does not fit in `O`; [`Error::InvalidBuilderState`] when the
    /// child shrank. The builder is unchanged on error.
    pub fn try_append(&mut self, valid: bool) -> Result<()> {
        self.offsets.try_append(self.values.len(), valid)
    }

    /// Closes the current list as a null slot (normally with no elements).
    ///
    /// # Errors
    /// As [`Self::try_append`].
    pub fn try_append_null(&mut self) -> Result<()> {
        self.try_append(false)
    }

    /// Freezes into an array: finishes the child and shares it, no data copy.
    /// Child elements appended after the last closed list stay in the child.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`] (the first offset of an empty array, the
    /// child field, the shared child); [`Error::TypeMismatch`] when a field set
    /// by [`Self::with_field`] does not have the child's type; the child's
    /// finish errors.
    pub fn try_finish(self) -> Result<GenericListArray<'a, O, A>> {
        let GenericListBuilder {
            values,
            offsets,
            field,
            alloc,
        } = self;
        let (offsets, nulls) = offsets.finish()?;
        let child = values.try_finish_array_ref()?;
        let field = match field {
            Some(f) => f,
            None => SharedBox::try_new_in(
                Field::new("item", child.data_type().clone(), true),
                alloc.clone(),
            )?,
        };
        let a = GenericListArray {
            data_type: O::list_data_type(field.clone()),
            field,
            offsets,
            values: SharedBox::try_new_in(child, alloc)?,
            nulls,
        };
        a.validate(ValidationLevel::Cheap)?;
        Ok(a)
    }
}

impl<'a, O: ListOffsetSize, B: ArrayBuilder<'a, A>, A: Allocator + Clone> ArrayBuilder<'a, A>
    for GenericListBuilder<'a, O, B, A>
{
    fn len(&self) -> usize {
        GenericListBuilder::len(self)
    }

    fn try_append_null(&mut self) -> Result<()> {
        GenericListBuilder::try_append_null(self)
    }

    fn try_finish_array_ref(self) -> Result<ArrayRef<'a, A>> {
        Ok(self.try_finish()?.into_array_ref())
    }
}

impl<O: ListOffsetSize, B, A: Allocator + Clone> fmt::Debug for GenericListBuilder<'_, O, B, A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GenericListBuilder")
            .field("len", &self.offsets.len())
            .field("large", &O::IS_LARGE)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::array::{PrimitiveArray, PrimitiveBuilder};
    use crate::buffer::{BooleanBuffer, Buffer, ScalarBuffer};
    use crate::test_support::check_every_failure;
    use crate::Global;
    use std::vec::Vec;

    fn int8_values<'a>(a: &ArrayRef<'a, Global>) -> Vec<i8> {
        let ArrayRef::Int8(p) = a else {
            panic!("not Int8: {a:?}")
        };
        p.values().to_vec()
    }

    fn ne_bytes(v: &[i32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_ne_bytes()).collect()
    }

    /// Builds `List<Int8>` `[[12, -7, 25], null, [0, -127, 127, 50], []]`.
    fn spec_list() -> ListArray<'static, Global> {
        let mut b = ListBuilder::new_in(PrimitiveBuilder::<i8, Global>::new_in(Global), Global);
        b.values().try_append_slice(&[12, -7, 25]).unwrap();
        b.try_append(true).unwrap();
        b.try_append_null().unwrap();
        b.values().try_append_slice(&[0, -127, 127, 50]).unwrap();
        b.try_append(true).unwrap();
        b.try_append(true).unwrap();
        b.try_finish().unwrap()
    }

    /// "Example Layout: `List<Int8>` Array".
    #[test]
    fn spec_example_list_int8() {
        let a = spec_list();
        assert_eq!(a.len(), 4);
        assert_eq!(a.null_count(), 1);
        assert_eq!(a.data_type(), &DataType::List(a.field().clone()));
        assert_eq!(a.field().name(), "item");
        assert_eq!(a.field().data_type(), &DataType::Int8);
        // Validity bitmap: 00001101.
        assert_eq!(
            a.nulls().unwrap().inner().inner().as_slice(),
            &[0b0000_1101]
        );
        // Offsets (int32): 0, 3, 3, 7, 7.
        assert_eq!(a.value_offsets(), &[0, 3, 3, 7, 7]);
        assert_eq!(
            a.offsets().inner().inner().as_slice(),
            ne_bytes(&[0, 3, 3, 7, 7]).as_slice()
        );
        assert_eq!(a.offsets().inner().inner().as_ptr() as usize % 64, 0);
        // Values array: length 7, no nulls, no bitmap.
        assert_eq!(a.values().len(), 7);
        assert_eq!(a.values().null_count(), 0);
        assert!(a.values().nulls().is_none());
        assert_eq!(int8_values(a.values()), [12, -7, 25, 0, -127, 127, 50]);
        // Logical values.
        assert_eq!(int8_values(&a.get(0).unwrap()), [12, -7, 25]);
        assert!(a.get(1).is_none());
        assert_eq!(a.value(1).unwrap().len(), 0);
        assert_eq!(int8_values(&a.get(2).unwrap()), [0, -127, 127, 50]);
        assert_eq!(a.get(3).unwrap().len(), 0);
        assert!(a.value(4).is_none());
        assert_eq!(a.value_length(2), Some(4));
        assert_eq!(a.iter().filter(Option::is_some).count(), 3);
    }

    /// The same array over borrowed buffers (no allocation but the shared child).
    #[test]
    fn spec_example_list_int8_from_buffers() {
        static OFFSETS: [i32; 5] = [0, 3, 3, 7, 7];
        static VALUES: [i8; 7] = [12, -7, 25, 0, -127, 127, 50];
        static VALIDITY: [u8; 1] = [0b0000_1101];
        let child = PrimitiveArray::<i8, Global>::from_slice(&VALUES).into_array_ref();
        let field = Field::new("item", DataType::Int8, true);
        let nulls = NullBuffer::new(
            BooleanBuffer::try_new(Buffer::from_slice_ref(&VALIDITY), 0, 4).unwrap(),
        );
        let a = ListArray::try_new(
            SharedBox::borrowed(&field),
            OffsetBuffer::try_new(ScalarBuffer::from_slice_ref(&OFFSETS)).unwrap(),
            SharedBox::borrowed(&child),
            Some(nulls),
        )
        .unwrap();
        let built = spec_list();
        assert_eq!(a.value_offsets(), built.value_offsets());
        assert_eq!(a.data_type(), built.data_type());
        for i in 0..4 {
            assert_eq!(a.is_valid(i), built.is_valid(i));
            assert_eq!(
                int8_values(&a.value(i).unwrap()),
                int8_values(&built.value(i).unwrap())
            );
        }
    }

    /// "Example Layout: `List<List<Int8>>`":
    /// `[[[1, 2], [3, 4]], [[5, 6, 7], null, [8]], [[9, 10]]]`.
    #[test]
    fn spec_example_list_of_list_int8() {
        let inner = ListBuilder::new_in(PrimitiveBuilder::<i8, Global>::new_in(Global), Global);
        let mut b = ListBuilder::new_in(inner, Global);
        for list in [
            &[&[1i8, 2][..], &[3, 4]][..],
            &[&[5, 6, 7], &[], &[8]],
            &[&[9, 10]],
        ] {
            for (j, inner) in list.iter().enumerate() {
                b.values().values().try_append_slice(inner).unwrap();
                // The second element of the second list is null.
                let valid = !(list.len() == 3 && j == 1);
                b.values().try_append(valid).unwrap();
            }
            b.try_append(true).unwrap();
        }
        let a = b.try_finish().unwrap();
        assert_eq!(a.len(), 3);
        assert_eq!(a.null_count(), 0);
        assert!(a.nulls().is_none());
        assert_eq!(a.value_offsets(), &[0, 2, 5, 6]);
        assert_eq!(
            a.offsets().inner().inner().as_slice(),
            ne_bytes(&[0, 2, 5, 6]).as_slice()
        );
        let inner = ListArray::downcast_ref(a.values()).unwrap();
        assert_eq!(inner.len(), 6);
        assert_eq!(inner.null_count(), 1);
        assert_eq!(
            inner.nulls().unwrap().inner().inner().as_slice(),
            &[0b0011_0111]
        );
        assert_eq!(inner.value_offsets(), &[0, 2, 4, 7, 7, 8, 10]);
        assert_eq!(inner.values().len(), 10);
        assert!(inner.values().nulls().is_none());
        assert_eq!(int8_values(inner.values()), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
        assert_eq!(
            a.data_type(),
            &DataType::List(SharedBox::borrowed(&Field::new(
                "item",
                inner.data_type().clone(),
                true
            )))
        );
        // Slot 1 is [[5, 6, 7], null, [8]].
        let s1 = a.get(1).unwrap();
        let s1 = ListArray::downcast_ref(&s1).unwrap();
        assert_eq!(s1.len(), 3);
        assert_eq!(int8_values(&s1.get(0).unwrap()), [5, 6, 7]);
        assert!(s1.get(1).is_none());
        assert_eq!(int8_values(&s1.get(2).unwrap()), [8]);
    }

    #[test]
    fn slice_then_values() {
        let a = spec_list();
        let s = a.slice(2, 2).unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(s.null_count(), 0);
        assert_eq!(s.value_offsets(), &[3, 7, 7]);
        assert_eq!(int8_values(&s.get(0).unwrap()), [0, -127, 127, 50]);
        assert_eq!(s.get(1).unwrap().len(), 0);
        assert!(s.get(2).is_none());
        // The child is shared, not copied.
        assert!(
            matches!((a.values(), s.values()), (ArrayRef::Int8(x), ArrayRef::Int8(y))
            if x.values().as_ptr() == y.values().as_ptr())
        );
        let s = a.slice(1, 1).unwrap();
        assert_eq!(s.null_count(), 1);
        assert!(s.get(0).is_none());
        assert_eq!(s.validate(ValidationLevel::Full), Ok(()));
        // Through ArrayRef.
        let r = a.clone().into_array_ref().slice(0, 1).unwrap();
        assert!(matches!(r, ArrayRef::List(_)));
        assert_eq!(r.len(), 1);
        assert_eq!(a.slice(3, 2).unwrap_err(), Error::OutOfBounds);
        assert_eq!(a.slice(4, 0).unwrap().len(), 0);
    }

    #[test]
    fn large_list_and_empty_builder() {
        let mut b =
            LargeListBuilder::new_in(PrimitiveBuilder::<i8, Global>::new_in(Global), Global);
        b.values().try_append_slice(&[1, 2]).unwrap();
        b.try_append(true).unwrap();
        let a = b.try_finish().unwrap();
        assert_eq!(a.value_offsets(), &[0i64, 2]);
        assert!(matches!(a.data_type(), DataType::LargeList(_)));
        let r = a.into_array_ref();
        assert!(LargeListArray::downcast_ref(&r).is_some());
        assert!(ListArray::downcast_ref(&r).is_none());

        let b = ListBuilder::new_in(PrimitiveBuilder::<i8, Global>::new_in(Global), Global);
        let e = b.try_finish().unwrap();
        assert_eq!(e.len(), 0);
        assert_eq!(e.value_offsets(), &[0]);
    }

    #[test]
    fn builder_with_field_type_must_match() {
        let f = Field::new("x", DataType::Int16, false);
        let b = ListBuilder::new_in(PrimitiveBuilder::<i8, Global>::new_in(Global), Global)
            .with_field(SharedBox::borrowed(&f));
        assert_eq!(b.try_finish().unwrap_err(), Error::TypeMismatch);
        let f = Field::new("x", DataType::Int8, false);
        let b = ListBuilder::new_in(PrimitiveBuilder::<i8, Global>::new_in(Global), Global)
            .with_field(SharedBox::borrowed(&f));
        assert_eq!(b.try_finish().unwrap().field().name(), "x");
    }

    static V: [i8; 4] = [1, 2, 3, 4];
    static ITEM: Field<'static, Global> = Field::new("item", DataType::Int8, true);

    fn leaf() -> ArrayRef<'static, Global> {
        PrimitiveArray::<i8, Global>::from_slice(&V).into_array_ref()
    }

    /// A list over `child` with offsets that may be invalid, unchecked.
    fn unchecked<'a>(
        field: &'a Field<'a, Global>,
        offsets: &'a [i32],
        child: &'a ArrayRef<'a, Global>,
        nulls: Option<NullBuffer<'a, Global>>,
    ) -> ListArray<'a, Global> {
        // SAFETY: the offsets may be invalid on purpose (test); the array is
        // only validated and read, and accessors stay memory safe.
        unsafe {
            ListArray::new_unchecked(
                SharedBox::borrowed(field),
                OffsetBuffer::new_unchecked(ScalarBuffer::from_slice_ref(offsets)),
                SharedBox::borrowed(child),
                nulls,
            )
        }
    }

    /// The error of validating that list at Full (what `try_new` runs).
    fn full_err(
        field: &Field<'_, Global>,
        offsets: &[i32],
        child: &ArrayRef<'_, Global>,
        nulls: Option<NullBuffer<'_, Global>>,
    ) -> Error {
        let a = unchecked(field, offsets, child, nulls);
        let r = a.validate(ValidationLevel::Full);
        assert_eq!(
            ListArray::try_new(
                a.field().clone(),
                a.offsets().clone(),
                SharedBox::borrowed(child),
                a.nulls().cloned()
            )
            .map(|_| ()),
            r
        );
        r.unwrap_err()
    }

    #[test]
    fn rule_offset_beyond_child() {
        assert_eq!(
            full_err(&ITEM, &[0, 2, 5], &leaf(), None),
            Error::OffsetOutOfBounds
        );
    }

    #[test]
    fn rule_negative_offset() {
        assert_eq!(
            full_err(&ITEM, &[-1, 2, 4], &leaf(), None),
            Error::OffsetOutOfBounds
        );
    }

    #[test]
    fn rule_offsets_monotonic() {
        let child = leaf();
        assert_eq!(
            full_err(&ITEM, &[0, 3, 1, 4], &child, None),
            Error::OffsetsNotMonotonic
        );
        // Cheap validation reads only the first and last offsets.
        let a = unchecked(&ITEM, &[0, 3, 1, 4], &child, None);
        assert_eq!(a.validate(ValidationLevel::Cheap), Ok(()));
        assert!(a.value(1).is_none());
    }

    #[test]
    fn rule_offsets_length() {
        assert_eq!(full_err(&ITEM, &[], &leaf(), None), Error::OffsetsLength);
    }

    #[test]
    fn rule_child_type_mismatch() {
        let f = Field::new("item", DataType::UInt8, true);
        assert_eq!(full_err(&f, &[0, 4], &leaf(), None), Error::TypeMismatch);
    }

    #[test]
    fn rule_validity_length() {
        let bits = [0xFFu8];
        let n =
            NullBuffer::new(BooleanBuffer::try_new(Buffer::from_slice_ref(&bits), 0, 3).unwrap());
        assert_eq!(
            full_err(&ITEM, &[0, 4], &leaf(), Some(n)),
            Error::ValidityTooSmall
        );
    }

    #[test]
    fn rule_child_is_validated_at_full() {
        // A List<List<Int8>> whose inner list has a decreasing offset.
        let leaf = leaf();
        let inner = unchecked(&ITEM, &[0, 3, 1, 4], &leaf, None).into_array_ref();
        let outer = Field::new("item", inner.data_type().clone(), true);
        assert_eq!(
            full_err(&outer, &[0, 3], &inner, None),
            Error::OffsetsNotMonotonic
        );
        let a = unchecked(&outer, &[0, 3], &inner, None);
        assert_eq!(a.validate(ValidationLevel::Cheap), Ok(()));
    }

    /// A child builder whose length the test sets directly.
    struct FakeChild(usize);

    impl<'a> ArrayBuilder<'a, Global> for FakeChild {
        fn len(&self) -> usize {
            self.0
        }
        fn try_append_null(&mut self) -> Result<()> {
            self.0 += 1;
            Ok(())
        }
        fn try_finish_array_ref(self) -> Result<ArrayRef<'a, Global>> {
            Ok(crate::array::NullArray::new(self.0).into_array_ref())
        }
    }

    #[test]
    fn builder_rejects_shrunk_child_and_offset_overflow() {
        let mut b = ListBuilder::new_in(FakeChild(2), Global);
        b.values().0 = 3;
        b.try_append(true).unwrap();
        b.values().0 = 1;
        assert_eq!(b.try_append(true), Err(Error::InvalidBuilderState));
        b.values().0 = i32::MAX as usize + 1;
        assert_eq!(b.try_append(true), Err(Error::CapacityOverflow));
        assert_eq!(b.len(), 1);
        b.values().0 = 5;
        let a = b.try_finish().unwrap();
        // The elements the child held at the start come before the first list.
        assert_eq!(a.value_offsets(), &[2, 3]);
        assert_eq!(a.values().len(), 5);
    }

    #[test]
    fn allocation_failures_are_errors() {
        use crate::test_support::TestAlloc;
        let n = check_every_failure(|alloc: TestAlloc| {
            let inner = ListBuilder::new_in(
                PrimitiveBuilder::<i8, _>::new_in(alloc.clone()),
                alloc.clone(),
            );
            let mut b = LargeListBuilder::new_in(inner, alloc);
            for k in 0..3 {
                for j in 0..k {
                    b.values().values().try_append_value(j)?;
                    b.values().try_append(j != 1)?;
                }
                b.try_append(k != 2)?;
            }
            let a = b.try_finish()?;
            assert_eq!(a.len(), 3);
            assert_eq!(a.validate(ValidationLevel::Full), Ok(()));
            Ok(())
        });
        assert!(n >= 8, "{n}");
    }
}
