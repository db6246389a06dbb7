//! List view layout ("List View Layout" of the newer edition, `002_*`): a
//! validity bitmap, an offsets buffer and a sizes buffer (both `i32` for
//! ListView, `i64` for LargeListView, one entry per slot) and one child array;
//! slot `i` is the child's elements `offsets[i]..offsets[i] + sizes[i]`.
//! Unlike lists, offsets may be in any order and ranges may overlap.

use core::fmt;
use core::marker::PhantomData;
use core::mem::size_of;

use allocator_api2::alloc::Allocator;
use derive_where::derive_where;

use super::builder::ArrayBuilder;
use super::list_offset::{ByWidth, ListOffsetSize, OffsetFamily};
use super::{check_slice, validate_child, validate_nulls, Array, ArrayRef, ValidationLevel};
use crate::buffer::{MutableBuffer, NullBuffer, NullBufferBuilder, ScalarBuffer, SharedBox};
use crate::datatypes::{DataType, Field, FieldRef};
use crate::error::{Error, Result};

/// The [`OffsetFamily`] of [`GenericListViewArray`]s over one child
/// lifetime and allocator.
struct ListViews<'a, A>(PhantomData<(&'a (), A)>);

impl<'a, A: Allocator + 'a> OffsetFamily for ListViews<'a, A> {
    type Of<O: ListOffsetSize> = GenericListViewArray<'a, O, A>;
}

/// List view with 32-bit offsets and sizes (`ListView<T>`).
pub type ListViewArray<
    'a,
    #[cfg(feature = "alloc")] A = crate::Global,
    #[cfg(not(feature = "alloc"))] A,
> = GenericListViewArray<'a, i32, A>;
/// List view with 64-bit offsets and sizes (`LargeListView<T>`).
pub type LargeListViewArray<
    'a,
    #[cfg(feature = "alloc")] A = crate::Global,
    #[cfg(not(feature = "alloc"))] A,
> = GenericListViewArray<'a, i64, A>;

/// An array of lists given as (offset, size) pairs into one child array.
///
/// Every slot, null or not, must satisfy `0 <= offsets[i]`, `0 <= sizes[i]`
/// and `offsets[i] + sizes[i] <= child length` (in child slots). Slicing
/// shares the offsets, sizes and child.
///
/// Unlike a [`GenericListArray`](crate::array::GenericListArray), views may
/// be out of order and overlap:
///
/// ```
/// use alkaid::array::{Array, Int8Array, ListViewArray};
/// use alkaid::buffer::{ScalarBuffer, SharedBox};
/// use alkaid::datatypes::{DataType, Field};
/// use alkaid::Global;
///
/// let field = SharedBox::try_new_in(Field::new("item", DataType::Int8, true), Global)?;
/// let child = Int8Array::from(vec![1, 2, 3, 4]).into_array_ref();
/// // [[3, 4], [1, 2, 3], [2]]: slots share child elements.
/// let (offsets, sizes): ([i32; 3], [i32; 3]) = ([2, 0, 1], [2, 3, 1]);
/// let lv: ListViewArray = ListViewArray::try_new(
///     field,
///     ScalarBuffer::from_slice_ref(&offsets),
///     ScalarBuffer::from_slice_ref(&sizes),
///     SharedBox::try_new_in(child, Global)?,
///     None,
/// )?;
/// assert_eq!(lv.len(), 3);
/// assert_eq!(lv.get(0), Some(Int8Array::from(vec![3, 4]).into_array_ref()));
/// assert_eq!(lv.get(1), Some(Int8Array::from(vec![1, 2, 3]).into_array_ref()));
/// assert_eq!(lv.value_sizes(), &[2, 3, 1]);
/// # Ok::<(), alkaid::Error>(())
/// ```
#[derive_where(Clone)]
pub struct GenericListViewArray<
    'a,
    O: ListOffsetSize,
    #[cfg(feature = "alloc")] A: Allocator = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator,
> {
    data_type: DataType<'a, A>,
    field: FieldRef<'a, A>,
    offsets: ScalarBuffer<'a, O, A>,
    sizes: ScalarBuffer<'a, O, A>,
    values: SharedBox<'a, ArrayRef<'a, A>, A>,
    nulls: Option<NullBuffer<'a, A>>,
}

impl<'a, O: ListOffsetSize, A: Allocator> GenericListViewArray<'a, O, A> {
    /// A list view array of type `ListView(field)` (or `LargeListView(field)`)
    /// with one offset and one size per slot into the child `values`, and an
    /// optional validity bitmap. Checks everything ([`ValidationLevel::Full`]).
    ///
    /// # Errors
    /// [`Error::TypeMismatch`] when the child's type is not the field's;
    /// [`Error::InvalidDataType`]; [`Error::BufferTooSmall`] when offsets and
    /// sizes differ in length; [`Error::ValidityTooSmall`];
    /// [`Error::ListViewOutOfBounds`] when a slot's offset or size is negative
    /// or its range ends beyond the child; the child's validation errors.
    pub fn try_new(
        field: FieldRef<'a, A>,
        offsets: ScalarBuffer<'a, O, A>,
        sizes: ScalarBuffer<'a, O, A>,
        values: SharedBox<'a, ArrayRef<'a, A>, A>,
        nulls: Option<NullBuffer<'a, A>>,
    ) -> Result<Self> {
        let a = Self::from_parts(field, offsets, sizes, values, nulls);
        a.validate(ValidationLevel::Full)?;
        Ok(a)
    }

    /// As [`Self::try_new`] without any check.
    ///
    /// # Safety
    /// The child's type must be the field's; offsets, sizes and bitmap must
    /// have one entry per slot; every range must lie within the child.
    /// Accessors stay memory safe otherwise, but return `None` or wrong data.
    pub unsafe fn new_unchecked(
        field: FieldRef<'a, A>,
        offsets: ScalarBuffer<'a, O, A>,
        sizes: ScalarBuffer<'a, O, A>,
        values: SharedBox<'a, ArrayRef<'a, A>, A>,
        nulls: Option<NullBuffer<'a, A>>,
    ) -> Self {
        Self::from_parts(field, offsets, sizes, values, nulls)
    }

    /// The array of the parts, unchecked (for [`Self::try_new`], which then
    /// validates, and [`Self::new_unchecked`]).
    fn from_parts(
        field: FieldRef<'a, A>,
        offsets: ScalarBuffer<'a, O, A>,
        sizes: ScalarBuffer<'a, O, A>,
        values: SharedBox<'a, ArrayRef<'a, A>, A>,
        nulls: Option<NullBuffer<'a, A>>,
    ) -> Self {
        GenericListViewArray {
            data_type: O::list_view_data_type(field.clone()),
            field,
            offsets,
            sizes,
            values,
            nulls,
        }
    }

    /// The typed list view inside `a`, if `a` is a list view with offsets `O`.
    pub fn downcast_ref<'b>(a: &'b ArrayRef<'a, A>) -> Option<&'b Self> {
        let w = match a {
            ArrayRef::ListView(l) => ByWidth::I32(l),
            ArrayRef::LargeListView(l) => ByWidth::I64(l),
            _ => return None,
        };
        O::from_width_ref::<ListViews<'a, A>>(w)
    }

    /// The child field.
    pub fn field(&self) -> &FieldRef<'a, A> {
        &self.field
    }

    /// The offsets buffer (one offset per slot, in child slots).
    pub fn offsets(&self) -> &ScalarBuffer<'a, O, A> {
        &self.offsets
    }

    /// The sizes buffer (one size per slot, in child slots).
    pub fn sizes(&self) -> &ScalarBuffer<'a, O, A> {
        &self.sizes
    }

    /// The offsets, one per slot.
    pub fn value_offsets(&self) -> &[O] {
        &self.offsets
    }

    /// The sizes, one per slot.
    pub fn value_sizes(&self) -> &[O] {
        &self.sizes
    }

    /// The whole child array.
    pub fn values(&self) -> &ArrayRef<'a, A> {
        &self.values
    }

    /// The child range of slot `i`, or `None` when `i >= len` or the entry is
    /// negative or overflows.
    fn range(&self, i: usize) -> Option<(usize, usize)> {
        let o = self.offsets.get(i)?.to_usize()?;
        let s = self.sizes.get(i)?.to_usize()?;
        Some((o, s))
    }

    /// The elements of slot `i` whatever its validity, as a zero-copy slice
    /// of the child; `None` when `i >= len` (or the entry is corrupt).
    pub fn value(&self, i: usize) -> Option<ArrayRef<'a, A>> {
        let (o, s) = self.range(i)?;
        self.values.slice(o, s).ok()
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

    /// Splits into field, offsets, sizes, child and bitmap.
    #[allow(clippy::type_complexity)]
    pub fn into_parts(
        self,
    ) -> (
        FieldRef<'a, A>,
        ScalarBuffer<'a, O, A>,
        ScalarBuffer<'a, O, A>,
        SharedBox<'a, ArrayRef<'a, A>, A>,
        Option<NullBuffer<'a, A>>,
    ) {
        (
            self.field,
            self.offsets,
            self.sizes,
            self.values,
            self.nulls,
        )
    }
}

impl<'a, O: ListOffsetSize, A: Allocator> Array<'a, A> for GenericListViewArray<'a, O, A> {
    fn data_type(&self) -> &DataType<'a, A> {
        &self.data_type
    }

    fn len(&self) -> usize {
        self.offsets.len()
    }

    fn nulls(&self) -> Option<&NullBuffer<'a, A>> {
        self.nulls.as_ref()
    }

    fn slice(&self, offset: usize, len: usize) -> Result<Self> {
        check_slice(offset, len, self.len())?;
        Ok(GenericListViewArray {
            data_type: self.data_type.clone(),
            field: self.field.clone(),
            offsets: self.offsets.slice(offset, len)?,
            sizes: self.sizes.slice(offset, len)?,
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
        if self.sizes.len() != len {
            return Err(Error::BufferTooSmall);
        }
        validate_nulls(self.nulls.as_ref(), len, level)?;
        if level >= ValidationLevel::Full {
            // The spec requires the bounds for every slot, nulls included.
            let child_len = self.values.len();
            for (o, s) in self.offsets.iter().zip(self.sizes.iter()) {
                let o = o.to_usize().ok_or(Error::ListViewOutOfBounds)?;
                let s = s.to_usize().ok_or(Error::ListViewOutOfBounds)?;
                match o.checked_add(s) {
                    Some(end) if end <= child_len => {}
                    _ => return Err(Error::ListViewOutOfBounds),
                }
            }
        }
        let whole = (0, self.values.len(), 1);
        validate_child(&self.field, &self.values, level, None, whole)
    }

    fn into_array_ref(self) -> ArrayRef<'a, A> {
        match O::by_width::<ListViews<'a, A>>(self) {
            ByWidth::I32(l) => ArrayRef::ListView(l),
            ByWidth::I64(l) => ArrayRef::LargeListView(l),
        }
    }
}

impl<O: ListOffsetSize, A: Allocator> fmt::Debug for GenericListViewArray<'_, O, A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "GenericListViewArray<{:?}> ", self.field.data_type())?;
        f.debug_list().entries(self.iter()).finish()
    }
}

/// Builder of [`ListViewArray`] (32-bit offsets and sizes).
pub type ListViewBuilder<
    'a,
    B,
    #[cfg(feature = "alloc")] A = crate::Global,
    #[cfg(not(feature = "alloc"))] A,
> = GenericListViewBuilder<'a, i32, B, A>;
/// Builder of [`LargeListViewArray`] (64-bit offsets and sizes).
pub type LargeListViewBuilder<
    'a,
    B,
    #[cfg(feature = "alloc")] A = crate::Global,
    #[cfg(not(feature = "alloc"))] A,
> = GenericListViewBuilder<'a, i64, B, A>;

/// Builds a [`GenericListViewArray`] in memory from `A`.
///
/// Either append a list's elements to [`Self::values`] and close it with
/// [`Self::try_append`] (contiguous, in-order views), or fill the child first
/// and append arbitrary, possibly shared ranges with [`Self::try_append_view`].
///
/// ```
/// use alkaid::array::{Array, ListViewBuilder, StringArray, StringBuilder};
///
/// let mut b = ListViewBuilder::new(StringBuilder::new());
/// b.values().try_append_value("x")?;
/// b.values().try_append_value("y")?;
/// b.try_append(true)?; // ["x", "y"], contiguous
/// b.try_append_view(1, 1, true)?; // ["y"], shared with slot 0
/// b.try_append_null()?;
/// assert!(b.try_append_view(1, 5, true).is_err()); // beyond the child: Error::ListViewOutOfBounds
/// let a = b.try_finish()?;
/// assert_eq!((a.len(), a.null_count()), (3, 1));
/// assert_eq!(a.value_offsets(), &[0, 1, 2]);
/// assert_eq!(a.get(1), Some(StringArray::from(vec!["y"]).into_array_ref()));
/// # Ok::<(), alkaid::Error>(())
/// ```
pub struct GenericListViewBuilder<
    'a,
    O: ListOffsetSize,
    B,
    #[cfg(feature = "alloc")] A: Allocator + Clone = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator + Clone,
> {
    values: B,
    offsets: MutableBuffer<A>,
    sizes: MutableBuffer<A>,
    nulls: NullBufferBuilder<A>,
    field: Option<FieldRef<'a, A>>,
    /// Child length at the last appended slot: where the next
    /// [`Self::try_append`] list starts.
    start: usize,
    alloc: A,
    _o: PhantomData<O>,
}

/// Freezes a builder's buffer of `O`s (an empty one needs an aligned empty slice).
fn finish_scalar<'a, O: ListOffsetSize, A: Allocator>(
    m: MutableBuffer<A>,
) -> Result<ScalarBuffer<'a, O, A>> {
    if m.is_empty() {
        return Ok(ScalarBuffer::from_slice_ref(&[]));
    }
    ScalarBuffer::try_from_buffer(m.into_buffer())
}

impl<'a, O: ListOffsetSize, B: ArrayBuilder<'a, A>, A: Allocator + Clone>
    GenericListViewBuilder<'a, O, B, A>
{
    /// An empty builder over the child builder `values`; allocates nothing yet.
    pub fn new_in(values: B, alloc: A) -> Self {
        let start = values.len();
        GenericListViewBuilder {
            values,
            offsets: MutableBuffer::new_in(alloc.clone()),
            sizes: MutableBuffer::new_in(alloc.clone()),
            nulls: NullBufferBuilder::new_in(alloc.clone()),
            field: None,
            start,
            alloc,
            _o: PhantomData,
        }
    }

    /// Uses `field` as the child field (type checked by [`Self::try_finish`]).
    pub fn with_field(mut self, field: FieldRef<'a, A>) -> Self {
        self.field = Some(field);
        self
    }

    /// The child builder.
    pub fn values(&mut self) -> &mut B {
        &mut self.values
    }

    /// Number of slots appended.
    pub fn len(&self) -> usize {
        self.nulls.len()
    }

    /// `true` when no slot was appended.
    pub fn is_empty(&self) -> bool {
        self.nulls.is_empty()
    }

    fn try_push(&mut self, offset: usize, size: usize, valid: bool) -> Result<()> {
        let o = O::from_usize(offset).ok_or(Error::CapacityOverflow)?;
        let s = O::from_usize(size).ok_or(Error::CapacityOverflow)?;
        self.offsets.try_reserve(size_of::<O>())?;
        self.sizes.try_reserve(size_of::<O>())?;
        self.nulls.try_append(valid)?;
        self.offsets.try_push(o)?;
        self.sizes.try_push(s)?;
        self.start = self.values.len();
        Ok(())
    }

    /// Appends a slot over the child elements appended since the previous slot.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`]; [`Error::CapacityOverflow`] when an offset
    /// does not fit in `O`; [`Error::InvalidBuilderState`] when the child shrank.
    pub fn try_append(&mut self, valid: bool) -> Result<()> {
        let end = self.values.len();
        let size = end
            .checked_sub(self.start)
            .ok_or(Error::InvalidBuilderState)?;
        self.try_push(self.start, size, valid)
    }

    /// Appends a null slot (over the child elements appended since the
    /// previous slot, normally none).
    ///
    /// # Errors
    /// As [`Self::try_append`].
    pub fn try_append_null(&mut self) -> Result<()> {
        self.try_append(false)
    }

    /// Appends a slot over child elements `offset..offset + size` already
    /// appended (ranges may be out of order and shared between slots).
    ///
    /// # Errors
    /// [`Error::ListViewOutOfBounds`] when the range ends beyond the child
    /// built so far; [`Error::AllocationFailed`]; [`Error::CapacityOverflow`].
    pub fn try_append_view(&mut self, offset: usize, size: usize, valid: bool) -> Result<()> {
        match offset.checked_add(size) {
            Some(end) if end <= self.values.len() => self.try_push(offset, size, valid),
            _ => Err(Error::ListViewOutOfBounds),
        }
    }

    /// Freezes into an array: finishes the child and shares it, no data copy.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`]; [`Error::TypeMismatch`] when a field set by
    /// [`Self::with_field`] does not have the child's type; the child's finish errors.
    pub fn try_finish(self) -> Result<GenericListViewArray<'a, O, A>> {
        let GenericListViewBuilder {
            values,
            offsets,
            sizes,
            nulls,
            field,
            alloc,
            ..
        } = self;
        let offsets = finish_scalar(offsets)?;
        let sizes = finish_scalar(sizes)?;
        let child = values.try_finish_array_ref()?;
        let field = match field {
            Some(f) => f,
            None => SharedBox::try_new_in(
                Field::new("item", child.data_type().clone(), true),
                alloc.clone(),
            )?,
        };
        let a = GenericListViewArray {
            data_type: O::list_view_data_type(field.clone()),
            field,
            offsets,
            sizes,
            values: SharedBox::try_new_in(child, alloc)?,
            nulls: nulls.finish(),
        };
        a.validate(ValidationLevel::Cheap)?;
        Ok(a)
    }
}

impl<'a, O: ListOffsetSize, B: ArrayBuilder<'a, A>, A: Allocator + Clone> ArrayBuilder<'a, A>
    for GenericListViewBuilder<'a, O, B, A>
{
    fn len(&self) -> usize {
        GenericListViewBuilder::len(self)
    }

    fn try_append_null(&mut self) -> Result<()> {
        GenericListViewBuilder::try_append_null(self)
    }

    fn try_finish_array_ref(self) -> Result<ArrayRef<'a, A>> {
        Ok(self.try_finish()?.into_array_ref())
    }
}

impl<O: ListOffsetSize, B, A: Allocator + Clone> fmt::Debug
    for GenericListViewBuilder<'_, O, B, A>
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GenericListViewBuilder")
            .field("len", &self.nulls.len())
            .field("large", &O::IS_LARGE)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::array::{PrimitiveArray, PrimitiveBuilder};
    use crate::buffer::{BooleanBuffer, Buffer};
    use crate::test_support::{check_every_failure, TestAlloc};
    use crate::Global;
    use std::vec::Vec;

    fn int8_values(a: &ArrayRef<'_, Global>) -> Vec<i8> {
        let ArrayRef::Int8(p) = a else {
            panic!("not Int8: {a:?}")
        };
        p.values().to_vec()
    }

    fn ne_bytes(v: &[i32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_ne_bytes()).collect()
    }

    fn logical(a: &ListViewArray<'_, Global>) -> Vec<Option<Vec<i8>>> {
        a.iter().map(|v| v.map(|v| int8_values(&v))).collect()
    }

    /// Builds a ListView<Int8> with `child` and views `(offset, size, valid)`.
    fn build(child: &[i8], views: &[(usize, usize, bool)]) -> ListViewArray<'static, Global> {
        let mut b = ListViewBuilder::new_in(PrimitiveBuilder::<i8, Global>::new_in(Global), Global);
        b.values().try_append_slice(child).unwrap();
        for &(o, s, v) in views {
            b.try_append_view(o, s, v).unwrap();
        }
        b.try_finish().unwrap()
    }

    /// First "Example Layout: ListView<Int8> Array":
    /// `[[12, -7, 25], null, [0, -127, 127, 50], []]`.
    #[test]
    fn spec_example_list_view_int8() {
        let a = build(
            &[12, -7, 25, 0, -127, 127, 50],
            &[(0, 3, true), (7, 0, false), (3, 4, true), (0, 0, true)],
        );
        assert_eq!(a.len(), 4);
        assert_eq!(a.null_count(), 1);
        assert_eq!(
            a.nulls().unwrap().inner().inner().as_slice(),
            &[0b0000_1101]
        );
        assert_eq!(
            a.offsets().inner().as_slice(),
            ne_bytes(&[0, 7, 3, 0]).as_slice()
        );
        assert_eq!(
            a.sizes().inner().as_slice(),
            ne_bytes(&[3, 0, 4, 0]).as_slice()
        );
        assert_eq!(a.values().len(), 7);
        assert!(a.values().nulls().is_none());
        assert_eq!(int8_values(a.values()), [12, -7, 25, 0, -127, 127, 50]);
        assert_eq!(
            logical(&a),
            [
                Some(std::vec![12, -7, 25]),
                None,
                Some(std::vec![0, -127, 127, 50]),
                Some(std::vec![])
            ]
        );
        assert!(matches!(a.data_type(), DataType::ListView(_)));
    }

    /// Second example: out-of-order offsets and shared child values,
    /// `[[12, -7, 25], null, [0, -127, 127, 50], [], [50, 12]]`.
    #[test]
    fn spec_example_list_view_shared_out_of_order() {
        let child = [0i8, -127, 127, 50, 12, -7, 25];
        let views = [
            (4, 3, true),
            (7, 0, false),
            (0, 4, true),
            (0, 0, true),
            (3, 2, true),
        ];
        let a = build(&child, &views);
        assert_eq!(a.len(), 5);
        assert_eq!(a.null_count(), 1);
        assert_eq!(
            a.nulls().unwrap().inner().inner().as_slice(),
            &[0b0001_1101]
        );
        assert_eq!(a.value_offsets(), &[4, 7, 0, 0, 3]);
        assert_eq!(
            a.offsets().inner().as_slice(),
            ne_bytes(&[4, 7, 0, 0, 3]).as_slice()
        );
        assert_eq!(a.value_sizes(), &[3, 0, 4, 0, 2]);
        assert_eq!(
            a.sizes().inner().as_slice(),
            ne_bytes(&[3, 0, 4, 0, 2]).as_slice()
        );
        assert_eq!(int8_values(a.values()), child);
        assert_eq!(
            logical(&a),
            [
                Some(std::vec![12, -7, 25]),
                None,
                Some(std::vec![0, -127, 127, 50]),
                Some(std::vec![]),
                Some(std::vec![50, 12])
            ]
        );
        // The same from borrowed buffers.
        static OFFSETS: [i32; 5] = [4, 7, 0, 0, 3];
        static SIZES: [i32; 5] = [3, 0, 4, 0, 2];
        static CHILD: [i8; 7] = [0, -127, 127, 50, 12, -7, 25];
        static VALIDITY: [u8; 1] = [0b0001_1101];
        let c = PrimitiveArray::<i8, Global>::from_slice(&CHILD).into_array_ref();
        let f = Field::new("item", DataType::Int8, true);
        let b = ListViewArray::try_new(
            SharedBox::borrowed(&f),
            ScalarBuffer::from_slice_ref(&OFFSETS),
            ScalarBuffer::from_slice_ref(&SIZES),
            SharedBox::borrowed(&c),
            Some(NullBuffer::new(
                BooleanBuffer::try_new(Buffer::from_slice_ref(&VALIDITY), 0, 5).unwrap(),
            )),
        )
        .unwrap();
        assert_eq!(logical(&b), logical(&a));
        assert_eq!(b.data_type(), a.data_type());
    }

    #[test]
    fn sequential_builder_and_nested() {
        let mut b = LargeListViewBuilder::new_in(
            ListViewBuilder::new_in(PrimitiveBuilder::<i8, Global>::new_in(Global), Global),
            Global,
        );
        b.values().values().try_append_slice(&[1, 2]).unwrap();
        b.values().try_append(true).unwrap();
        b.values().try_append_null().unwrap();
        b.try_append(true).unwrap();
        b.try_append_null().unwrap();
        let a = b.try_finish().unwrap();
        assert_eq!(a.value_offsets(), &[0i64, 2]);
        assert_eq!(a.value_sizes(), &[2i64, 0]);
        let inner = ListViewArray::downcast_ref(a.values()).unwrap();
        assert_eq!(inner.value_offsets(), &[0, 2]);
        assert_eq!(inner.value_sizes(), &[2, 0]);
        assert_eq!(logical(inner), [Some(std::vec![1, 2]), None]);
        assert!(LargeListViewArray::downcast_ref(&a.clone().into_array_ref()).is_some());
        // Empty builder: no offsets, no sizes.
        let e = ListViewBuilder::new_in(PrimitiveBuilder::<i8, Global>::new_in(Global), Global)
            .try_finish()
            .unwrap();
        assert_eq!(e.len(), 0);
        assert_eq!(e.value_offsets(), &[] as &[i32]);
        let mut b = ListViewBuilder::new_in(PrimitiveBuilder::<i8, Global>::new_in(Global), Global);
        assert_eq!(
            b.try_append_view(0, 1, true),
            Err(Error::ListViewOutOfBounds)
        );
        assert_eq!(b.len(), 0);
    }

    #[test]
    fn slice_then_values() {
        let a = build(
            &[0, -127, 127, 50, 12, -7, 25],
            &[
                (4, 3, true),
                (7, 0, false),
                (0, 4, true),
                (0, 0, true),
                (3, 2, true),
            ],
        );
        let s = a.slice(1, 4).unwrap();
        assert_eq!(s.value_offsets(), &[7, 0, 0, 3]);
        assert_eq!(s.null_count(), 1);
        assert_eq!(
            logical(&s),
            [
                None,
                Some(std::vec![0, -127, 127, 50]),
                Some(std::vec![]),
                Some(std::vec![50, 12])
            ]
        );
        assert_eq!(s.validate(ValidationLevel::Full), Ok(()));
        assert_eq!(a.slice(2, 4).unwrap_err(), Error::OutOfBounds);
    }

    static CHILD: [i8; 4] = [1, 2, 3, 4];
    static ITEM: Field<'static, Global> = Field::new("item", DataType::Int8, true);

    fn try_view(
        offsets: &'static [i32],
        sizes: &'static [i32],
    ) -> Result<ListViewArray<'static, Global>> {
        let c = PrimitiveArray::<i8, Global>::from_slice(&CHILD).into_array_ref();
        try_view_over(c, offsets, sizes, None)
    }

    /// A checked `ListView<ITEM>` over the child `c`, validity (if any) the
    /// first two bits of `bits`.
    fn try_view_over(
        c: ArrayRef<'static, Global>,
        offsets: &'static [i32],
        sizes: &'static [i32],
        bits: Option<&'static [u8]>,
    ) -> Result<ListViewArray<'static, Global>> {
        let nulls = match bits {
            Some(b) => Some(NullBuffer::new(BooleanBuffer::try_new(
                Buffer::from_slice_ref(b),
                0,
                2,
            )?)),
            None => None,
        };
        ListViewArray::try_new(
            SharedBox::borrowed(&ITEM),
            ScalarBuffer::from_slice_ref(offsets),
            ScalarBuffer::from_slice_ref(sizes),
            SharedBox::try_new_in(c, Global)?,
            nulls,
        )
    }

    #[test]
    fn rule_negative_offset() {
        assert_eq!(
            try_view(&[0, -1], &[1, 1]).unwrap_err(),
            Error::ListViewOutOfBounds
        );
    }

    #[test]
    fn rule_negative_size() {
        assert_eq!(
            try_view(&[0, 1], &[1, -1]).unwrap_err(),
            Error::ListViewOutOfBounds
        );
    }

    #[test]
    fn rule_range_beyond_child() {
        assert_eq!(
            try_view(&[0, 3], &[1, 2]).unwrap_err(),
            Error::ListViewOutOfBounds
        );
        assert_eq!(
            try_view(&[5, 0], &[0, 0]).unwrap_err(),
            Error::ListViewOutOfBounds
        );
        assert_eq!(try_view(&[0, 3], &[4, 1]).map(|a| a.len()), Ok(2));
    }

    #[test]
    fn rule_null_slots_are_bounded_too() {
        static BITS: [u8; 1] = [0b01];
        let c = PrimitiveArray::<i8, Global>::from_slice(&CHILD).into_array_ref();
        let r = try_view_over(c, &[0, 9], &[1, 0], Some(&BITS));
        assert_eq!(r.unwrap_err(), Error::ListViewOutOfBounds);
    }

    #[test]
    fn rule_sizes_length() {
        assert_eq!(try_view(&[0, 1], &[1]).unwrap_err(), Error::BufferTooSmall);
    }

    #[test]
    fn rule_child_type_mismatch() {
        let c = PrimitiveArray::<u8, Global>::from_slice(&[1]).into_array_ref();
        let r = try_view_over(c, &[0], &[1], None);
        assert_eq!(r.unwrap_err(), Error::TypeMismatch);
    }

    #[test]
    fn rule_validity_length() {
        static BITS: [u8; 1] = [0xFF];
        let c = PrimitiveArray::<i8, Global>::from_slice(&CHILD).into_array_ref();
        let r = try_view_over(c, &[0], &[1], Some(&BITS));
        assert_eq!(r.unwrap_err(), Error::ValidityTooSmall);
    }

    #[test]
    fn cheap_skips_ranges_and_accessors_do_not_panic() {
        let c = PrimitiveArray::<i8, Global>::from_slice(&CHILD).into_array_ref();
        // SAFETY: deliberately out-of-bounds views; accessors must return None.
        let a = unsafe {
            ListViewArray::new_unchecked(
                SharedBox::borrowed(&ITEM),
                ScalarBuffer::from_slice_ref(&[3, -1, i32::MAX]),
                ScalarBuffer::from_slice_ref(&[5, 1, i32::MAX]),
                SharedBox::borrowed(&c),
                None,
            )
        };
        assert_eq!(a.validate(ValidationLevel::Cheap), Ok(()));
        assert_eq!(
            a.validate(ValidationLevel::Full),
            Err(Error::ListViewOutOfBounds)
        );
        assert!(a.value(0).is_none());
        assert!(a.value(1).is_none());
        assert!(a.value(2).is_none());
    }

    #[test]
    fn allocation_failures_are_errors() {
        let n = check_every_failure(|alloc: TestAlloc| {
            let mut b =
                ListViewBuilder::new_in(PrimitiveBuilder::<i8, _>::new_in(alloc.clone()), alloc);
            b.values().try_append_slice(&[1, 2, 3])?;
            b.try_append(true)?;
            b.try_append_view(1, 2, true)?;
            b.try_append_null()?;
            let a = b.try_finish()?;
            assert_eq!(a.value_offsets(), &[0, 1, 3]);
            Ok(())
        });
        assert!(n > 0);
    }
}
