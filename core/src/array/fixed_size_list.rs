//! Fixed-size list layout ("Fixed-Size List Layout"): a validity bitmap and
//! one child array; slot `j` is the `N` child elements from `j * N`, where `N`
//! is the list size of the type `FixedSizeList<T>[N]`.

use core::fmt;

use allocator_api2::alloc::Allocator;
use derive_where::derive_where;

use super::builder::ArrayBuilder;
use super::{check_slice, validate_child, validate_nulls, Array, ArrayRef, ValidationLevel};
use crate::buffer::{NullBuffer, NullBufferBuilder, SharedBox};
use crate::datatypes::{DataType, Field, FieldRef};
use crate::error::{Error, Result};

/// The list size as a `usize`.
fn size_usize(size: i32) -> Result<usize> {
    usize::try_from(size).map_err(|_| Error::InvalidDataType)
}

/// An array of lists of `size` elements each, taken in order from one child.
///
/// Slot `i` of this view is child elements `(offset + i) * size ..
/// (offset + i + 1) * size`, where `offset` (in slots) is how far this view
/// was sliced: slicing never touches the child. A null slot still occupies
/// its `size` child elements, whose content is then meaningless.
///
/// ```
/// use alkaid::array::{Array, FixedSizeListArray, Float32Array};
/// use alkaid::buffer::SharedBox;
/// use alkaid::datatypes::{DataType, Field};
/// use alkaid::Global;
///
/// // Three 2-D points as FixedSizeList<Float32, 2>.
/// let field = SharedBox::try_new_in(Field::new("item", DataType::Float32, false), Global)?;
/// let coords = Float32Array::from(vec![0.0, 1.0, 2.5, 3.5, -1.0, 4.0]).into_array_ref();
/// let points = FixedSizeListArray::try_new(field, 2, 3, SharedBox::try_new_in(coords, Global)?, None)?;
/// assert_eq!((points.len(), points.value_length()), (3, 2));
/// assert_eq!(points.value_offset(2), Some(4)); // in child elements
/// assert_eq!(points.get(1), Some(Float32Array::from(vec![2.5, 3.5]).into_array_ref()));
/// let tail = points.slice(1, 2)?; // the child is not touched
/// assert_eq!((tail.offset(), tail.values().len()), (1, 6));
/// # Ok::<(), alkaid::Error>(())
/// ```
#[derive_where(Clone)]
pub struct FixedSizeListArray<
    'a,
    #[cfg(feature = "alloc")] A: Allocator = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator,
> {
    data_type: DataType<'a, A>,
    field: FieldRef<'a, A>,
    size: i32,
    values: SharedBox<'a, ArrayRef<'a, A>, A>,
    offset: usize,
    len: usize,
    nulls: Option<NullBuffer<'a, A>>,
}

impl<'a, A: Allocator> FixedSizeListArray<'a, A> {
    /// An array of `len` lists of type `FixedSizeList(field, size)` over the
    /// child `values` (at least `len * size` elements; more are ignored), with
    /// an optional validity bitmap. Checks everything ([`ValidationLevel::Full`]).
    ///
    /// # Errors
    /// [`Error::InvalidDataType`] when `size` is negative (or other type
    /// parameters are bad); [`Error::TypeMismatch`] when the child's type is
    /// not the field's; [`Error::ValidityTooSmall`] when the bitmap does not
    /// have `len` bits; [`Error::FixedSizeListChildTooShort`] when the child
    /// has fewer than `len * size` elements; the child's validation errors.
    pub fn try_new(
        field: FieldRef<'a, A>,
        size: i32,
        len: usize,
        values: SharedBox<'a, ArrayRef<'a, A>, A>,
        nulls: Option<NullBuffer<'a, A>>,
    ) -> Result<Self> {
        let a = Self::from_parts(field, size, len, values, nulls);
        a.validate(ValidationLevel::Full)?;
        Ok(a)
    }

    /// As [`Self::try_new`] without any check.
    ///
    /// # Safety
    /// `size >= 0`, the child's type must be the field's and hold at least
    /// `len * size` elements, `nulls` (if any) must have `len` bits.
    /// Accessors stay memory safe otherwise, but return `None` or wrong data.
    pub unsafe fn new_unchecked(
        field: FieldRef<'a, A>,
        size: i32,
        len: usize,
        values: SharedBox<'a, ArrayRef<'a, A>, A>,
        nulls: Option<NullBuffer<'a, A>>,
    ) -> Self {
        Self::from_parts(field, size, len, values, nulls)
    }

    /// The array of the parts, unchecked (for [`Self::try_new`], which then
    /// validates, and [`Self::new_unchecked`]).
    fn from_parts(
        field: FieldRef<'a, A>,
        size: i32,
        len: usize,
        values: SharedBox<'a, ArrayRef<'a, A>, A>,
        nulls: Option<NullBuffer<'a, A>>,
    ) -> Self {
        FixedSizeListArray {
            data_type: DataType::FixedSizeList(field.clone(), size),
            field,
            size,
            values,
            offset: 0,
            len,
            nulls,
        }
    }

    /// The typed array inside `a`, if `a` is a fixed-size list.
    pub fn downcast_ref<'b>(a: &'b ArrayRef<'a, A>) -> Option<&'b Self> {
        match a {
            ArrayRef::FixedSizeList(l) => Some(l),
            _ => None,
        }
    }

    /// The child field.
    pub fn field(&self) -> &FieldRef<'a, A> {
        &self.field
    }

    /// The list size `N` (elements per slot).
    pub fn value_length(&self) -> i32 {
        self.size
    }

    /// Slots skipped in the child by slicing (the child starts `offset * N`
    /// elements before this view's first slot).
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The whole child array (including elements outside this view).
    pub fn values(&self) -> &ArrayRef<'a, A> {
        &self.values
    }

    /// Index in the child of the first element of slot `i`; `None` when
    /// `i >= len` or the size is negative.
    pub fn value_offset(&self, i: usize) -> Option<usize> {
        if i >= self.len {
            return None;
        }
        self.offset
            .checked_add(i)?
            .checked_mul(size_usize(self.size).ok()?)
    }

    /// The `N` elements of slot `i` whatever its validity, as a zero-copy
    /// slice of the child; `None` when `i >= len`.
    pub fn value(&self, i: usize) -> Option<ArrayRef<'a, A>> {
        let start = self.value_offset(i)?;
        self.values.slice(start, size_usize(self.size).ok()?).ok()
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
        (0..self.len).map(move |i| self.get(i))
    }
}

impl<'a, A: Allocator> Array<'a, A> for FixedSizeListArray<'a, A> {
    fn data_type(&self) -> &DataType<'a, A> {
        &self.data_type
    }

    fn len(&self) -> usize {
        self.len
    }

    fn nulls(&self) -> Option<&NullBuffer<'a, A>> {
        self.nulls.as_ref()
    }

    fn slice(&self, offset: usize, len: usize) -> Result<Self> {
        check_slice(offset, len, self.len)?;
        Ok(FixedSizeListArray {
            data_type: self.data_type.clone(),
            field: self.field.clone(),
            size: self.size,
            values: self.values.clone(),
            offset: self.offset.checked_add(offset).ok_or(Error::OutOfBounds)?,
            len,
            nulls: crate::buffer::slice_nulls(self.nulls.as_ref(), offset, len)?,
        })
    }

    fn validate(&self, level: ValidationLevel) -> Result<()> {
        if level == ValidationLevel::None {
            return Ok(());
        }
        self.data_type.validate()?;
        let size = size_usize(self.size)?;
        if self.field.data_type() != self.values.data_type() {
            return Err(Error::TypeMismatch);
        }
        validate_nulls(self.nulls.as_ref(), self.len, level)?;
        let need = self
            .offset
            .checked_add(self.len)
            .and_then(|n| n.checked_mul(size))
            .ok_or(Error::FixedSizeListChildTooShort)?;
        if self.values.len() < need {
            return Err(Error::FixedSizeListChildTooShort);
        }
        // `offset * size` fits: `(offset + len) * size` did.
        let slots = (self.offset.saturating_mul(size), self.len, size);
        validate_child(&self.field, &self.values, level, self.nulls.as_ref(), slots)
    }

    fn into_array_ref(self) -> ArrayRef<'a, A> {
        ArrayRef::FixedSizeList(self)
    }
}

impl<A: Allocator> fmt::Debug for FixedSizeListArray<'_, A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "FixedSizeListArray<{:?}, {}> ",
            self.field.data_type(),
            self.size
        )?;
        f.debug_list().entries(self.iter()).finish()
    }
}

/// Builds a [`FixedSizeListArray`] in memory from `A`: append exactly `N`
/// elements to [`Self::values`] (the child builder `B`, empty at the start),
/// then close the slot with [`Self::try_append`].
///
/// The child field defaults to `item`, nullable, of the child's type.
///
/// ```
/// use alkaid::array::{Array, FixedSizeListBuilder, UInt8Array, UInt8Builder};
///
/// // RGB triples; a null slot still takes 3 child elements.
/// let mut b = FixedSizeListBuilder::new(UInt8Builder::new(), 3);
/// b.values().try_append_slice(&[255, 0, 0])?;
/// b.try_append(true)?;
/// b.try_append_null()?; // appends 3 null children
/// b.values().try_append_slice(&[0, 0])?;
/// assert!(b.try_append(true).is_err()); // only 2 of 3: Error::InvalidBuilderState
/// b.values().try_append_value(255)?;
/// b.try_append(true)?;
/// let rgb = b.try_finish()?;
/// assert_eq!((rgb.len(), rgb.null_count(), rgb.values().len()), (3, 1, 9));
/// assert_eq!(rgb.get(2), Some(UInt8Array::from(vec![0, 0, 255]).into_array_ref()));
/// # Ok::<(), alkaid::Error>(())
/// ```
pub struct FixedSizeListBuilder<
    'a,
    B,
    #[cfg(feature = "alloc")] A: Allocator + Clone = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator + Clone,
> {
    values: B,
    size: i32,
    nulls: NullBufferBuilder<A>,
    field: Option<FieldRef<'a, A>>,
    alloc: A,
}

impl<'a, B: ArrayBuilder<'a, A>, A: Allocator + Clone> FixedSizeListBuilder<'a, B, A> {
    /// An empty builder of lists of `size` elements over the (empty) child
    /// builder `values`; allocates nothing yet.
    pub fn new_in(values: B, size: i32, alloc: A) -> Self {
        FixedSizeListBuilder {
            values,
            size,
            nulls: NullBufferBuilder::new_in(alloc.clone()),
            field: None,
            alloc,
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

    /// Number of slots closed.
    pub fn len(&self) -> usize {
        self.nulls.len()
    }

    /// `true` when no slot was closed.
    pub fn is_empty(&self) -> bool {
        self.nulls.is_empty()
    }

    /// Child length once the current slot is complete.
    fn next_end(&self) -> Result<usize> {
        self.len()
            .checked_add(1)
            .and_then(|n| n.checked_mul(size_usize(self.size).ok()?))
            .ok_or(Error::CapacityOverflow)
    }

    /// Closes the current slot, whose `N` elements were appended to the child.
    ///
    /// # Errors
    /// [`Error::InvalidDataType`] when the size is negative;
    /// [`Error::InvalidBuilderState`] when the child does not hold exactly
    /// `(len + 1) * N` elements; [`Error::AllocationFailed`].
    pub fn try_append(&mut self, valid: bool) -> Result<()> {
        size_usize(self.size)?;
        if self.values.len() != self.next_end()? {
            return Err(Error::InvalidBuilderState);
        }
        self.nulls.try_append(valid)
    }

    /// Appends a null slot, filling the rest of its `N` child elements with nulls.
    ///
    /// # Errors
    /// As [`Self::try_append`]; the child's append errors.
    pub fn try_append_null(&mut self) -> Result<()> {
        size_usize(self.size)?;
        let end = self.next_end()?;
        let fill = end
            .checked_sub(self.values.len())
            .ok_or(Error::InvalidBuilderState)?;
        for _ in 0..fill {
            self.values.try_append_null()?;
        }
        self.try_append(false)
    }

    /// Freezes into an array: finishes the child and shares it, no data copy.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`]; [`Error::InvalidDataType`] for a negative
    /// size; [`Error::TypeMismatch`] when a field set by [`Self::with_field`]
    /// does not have the child's type; the child's finish errors.
    pub fn try_finish(self) -> Result<FixedSizeListArray<'a, A>> {
        let FixedSizeListBuilder {
            values,
            size,
            nulls,
            field,
            alloc,
        } = self;
        let len = nulls.len();
        let child = values.try_finish_array_ref()?;
        let field = match field {
            Some(f) => f,
            None => SharedBox::try_new_in(
                Field::new("item", child.data_type().clone(), true),
                alloc.clone(),
            )?,
        };
        let a = FixedSizeListArray {
            data_type: DataType::FixedSizeList(field.clone(), size),
            field,
            size,
            values: SharedBox::try_new_in(child, alloc)?,
            offset: 0,
            len,
            nulls: nulls.finish(),
        };
        a.validate(ValidationLevel::Cheap)?;
        Ok(a)
    }
}

impl<'a, B: ArrayBuilder<'a, A>, A: Allocator + Clone> ArrayBuilder<'a, A>
    for FixedSizeListBuilder<'a, B, A>
{
    fn len(&self) -> usize {
        FixedSizeListBuilder::len(self)
    }

    fn try_append_null(&mut self) -> Result<()> {
        FixedSizeListBuilder::try_append_null(self)
    }

    fn try_finish_array_ref(self) -> Result<ArrayRef<'a, A>> {
        Ok(self.try_finish()?.into_array_ref())
    }
}

impl<B, A: Allocator + Clone> fmt::Debug for FixedSizeListBuilder<'_, B, A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FixedSizeListBuilder")
            .field("len", &self.nulls.len())
            .field("size", &self.size)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::array::{PrimitiveArray, PrimitiveBuilder};
    use crate::buffer::{BooleanBuffer, Buffer, ScalarBuffer};
    use crate::test_support::{check_every_failure, TestAlloc};
    use crate::Global;
    use std::vec::Vec;

    fn u8_values(a: &ArrayRef<'_, Global>) -> Vec<u8> {
        let ArrayRef::UInt8(p) = a else {
            panic!("not UInt8: {a:?}")
        };
        p.values().to_vec()
    }

    /// `FixedSizeList<byte>[4]`
    /// `[[192, 168, 0, 12], null, [192, 168, 0, 25], [192, 168, 0, 1]]`.
    fn spec_array() -> FixedSizeListArray<'static, Global> {
        let mut b =
            FixedSizeListBuilder::new_in(PrimitiveBuilder::<u8, Global>::new_in(Global), 4, Global);
        b.values().try_append_slice(&[192, 168, 0, 12]).unwrap();
        b.try_append(true).unwrap();
        // The null slot's elements are unspecified but present and valid.
        b.values().try_append_slice(&[0, 0, 0, 0]).unwrap();
        b.try_append(false).unwrap();
        b.values().try_append_slice(&[192, 168, 0, 25]).unwrap();
        b.try_append(true).unwrap();
        b.values().try_append_slice(&[192, 168, 0, 1]).unwrap();
        b.try_append(true).unwrap();
        b.try_finish().unwrap()
    }

    /// "Example Layout: `FixedSizeList<byte>[4]` Array".
    #[test]
    fn spec_example_fixed_size_list_byte4() {
        let a = spec_array();
        assert_eq!(a.len(), 4);
        assert_eq!(a.null_count(), 1);
        assert_eq!(
            a.nulls().unwrap().inner().inner().as_slice(),
            &[0b0000_1101]
        );
        assert_eq!(a.value_length(), 4);
        assert!(matches!(a.data_type(), DataType::FixedSizeList(f, 4)
            if f.data_type() == &DataType::UInt8));
        // Values array: length 16, null count 0, no bitmap.
        let v = a.values();
        assert_eq!(v.len(), 16);
        assert_eq!(v.null_count(), 0);
        assert!(v.nulls().is_none());
        let ArrayRef::UInt8(p) = v else { panic!() };
        let bytes = p.values_buffer().inner().as_slice();
        assert_eq!(&bytes[0..4], &[192, 168, 0, 12]);
        assert_eq!(&bytes[8..16], &[192, 168, 0, 25, 192, 168, 0, 1]);
        // Logical values.
        assert_eq!(u8_values(&a.get(0).unwrap()), [192, 168, 0, 12]);
        assert!(a.get(1).is_none());
        assert_eq!(a.value(1).unwrap().len(), 4);
        assert_eq!(u8_values(&a.get(3).unwrap()), [192, 168, 0, 1]);
        assert!(a.value(4).is_none());
        assert_eq!(a.value_offset(2), Some(8));
    }

    #[test]
    fn spec_example_from_buffers() {
        static CHILD: [u8; 16] = [192, 168, 0, 12, 0, 0, 0, 0, 192, 168, 0, 25, 192, 168, 0, 1];
        static VALIDITY: [u8; 1] = [0b0000_1101];
        static ITEM: Field<'static, Global> = Field::new("item", DataType::UInt8, true);
        let c = PrimitiveArray::<u8, Global>::from_slice(&CHILD).into_array_ref();
        let a = FixedSizeListArray::try_new(
            SharedBox::borrowed(&ITEM),
            4,
            4,
            SharedBox::borrowed(&c),
            Some(NullBuffer::new(
                BooleanBuffer::try_new(Buffer::from_slice_ref(&VALIDITY), 0, 4).unwrap(),
            )),
        )
        .unwrap();
        let b = spec_array();
        assert_eq!(a.data_type(), b.data_type());
        for i in 0..4 {
            assert_eq!(
                a.get(i).map(|v| u8_values(&v)),
                b.get(i).map(|v| u8_values(&v))
            );
        }
    }

    #[test]
    fn slice_then_values() {
        let a = spec_array();
        let s = a.slice(1, 3).unwrap();
        assert_eq!(s.offset(), 1);
        assert_eq!(s.null_count(), 1);
        assert!(s.get(0).is_none());
        assert_eq!(u8_values(&s.get(1).unwrap()), [192, 168, 0, 25]);
        let t = s.slice(2, 1).unwrap();
        assert_eq!(t.offset(), 3);
        assert_eq!(u8_values(&t.get(0).unwrap()), [192, 168, 0, 1]);
        assert_eq!(t.validate(ValidationLevel::Full), Ok(()));
        assert!(t.value(1).is_none());
        assert_eq!(s.slice(1, 3).unwrap_err(), Error::OutOfBounds);
        let r = a.clone().into_array_ref().slice(3, 1).unwrap();
        assert_eq!(
            u8_values(
                &FixedSizeListArray::downcast_ref(&r)
                    .unwrap()
                    .get(0)
                    .unwrap()
            ),
            [192, 168, 0, 1]
        );
    }

    #[test]
    fn builder_null_fills_child_with_nulls() {
        let mut b =
            FixedSizeListBuilder::new_in(PrimitiveBuilder::<u8, Global>::new_in(Global), 2, Global);
        b.try_append_null().unwrap();
        b.values().try_append_value(7).unwrap();
        b.try_append_null().unwrap();
        b.values().try_append_slice(&[1, 2, 3]).unwrap();
        assert_eq!(b.try_append(true), Err(Error::InvalidBuilderState));
        let a = b.try_finish().unwrap();
        assert_eq!(a.len(), 2);
        assert_eq!(a.null_count(), 2);
        assert_eq!(a.values().len(), 7);
        assert_eq!(a.values().null_count(), 3);
        // Size zero: slots without elements.
        let mut b =
            FixedSizeListBuilder::new_in(PrimitiveBuilder::<u8, Global>::new_in(Global), 0, Global);
        b.try_append(true).unwrap();
        b.try_append_null().unwrap();
        let a = b.try_finish().unwrap();
        assert_eq!(a.len(), 2);
        assert_eq!(a.get(0).unwrap().len(), 0);
    }

    static ITEM: Field<'static, Global> = Field::new("item", DataType::UInt8, true);
    static C6: [u8; 6] = [1, 2, 3, 4, 5, 6];

    fn try_fsl(size: i32, len: usize, nulls: Option<NullBuffer<'static, Global>>) -> Result<usize> {
        let c = PrimitiveArray::<u8, Global>::from_slice(&C6).into_array_ref();
        FixedSizeListArray::try_new(
            SharedBox::borrowed(&ITEM),
            size,
            len,
            SharedBox::try_new_in(c, Global)?,
            nulls,
        )
        .map(|a| a.len())
    }

    #[test]
    fn rule_child_too_short() {
        assert_eq!(try_fsl(2, 3, None), Ok(3));
        assert_eq!(try_fsl(4, 2, None), Err(Error::FixedSizeListChildTooShort));
        assert_eq!(
            try_fsl(i32::MAX, usize::MAX, None),
            Err(Error::FixedSizeListChildTooShort)
        );
    }

    #[test]
    fn rule_negative_size() {
        assert_eq!(try_fsl(-1, 0, None), Err(Error::InvalidDataType));
        let mut b = FixedSizeListBuilder::new_in(
            PrimitiveBuilder::<u8, Global>::new_in(Global),
            -2,
            Global,
        );
        assert_eq!(b.try_append(true), Err(Error::InvalidDataType));
        assert_eq!(b.try_append_null(), Err(Error::InvalidDataType));
        assert_eq!(b.try_finish().unwrap_err(), Error::InvalidDataType);
    }

    #[test]
    fn rule_child_type_mismatch() {
        let c = PrimitiveArray::<i8, Global>::from_slice(&[1, 2]).into_array_ref();
        let r = FixedSizeListArray::try_new(
            SharedBox::borrowed(&ITEM),
            1,
            2,
            SharedBox::borrowed(&c),
            None,
        );
        assert_eq!(r.unwrap_err(), Error::TypeMismatch);
    }

    #[test]
    fn rule_validity_length() {
        static BITS: [u8; 1] = [0xFF];
        let n =
            NullBuffer::new(BooleanBuffer::try_new(Buffer::from_slice_ref(&BITS), 0, 2).unwrap());
        assert_eq!(try_fsl(2, 3, Some(n)), Err(Error::ValidityTooSmall));
    }

    #[test]
    fn rule_child_is_validated_at_full() {
        static BITS: [u8; 1] = [0b11];
        static V: [u8; 2] = [1, 2];
        // SAFETY: a wrong null count on purpose (test); the bitmap itself is sound.
        let n = unsafe {
            NullBuffer::new_unchecked(
                BooleanBuffer::try_new(Buffer::from_slice_ref(&BITS), 0, 2).unwrap(),
                1,
            )
        };
        // SAFETY: the child's bitmap has the right length; only its count lies.
        let c = unsafe {
            PrimitiveArray::new_unchecked(
                DataType::UInt8,
                ScalarBuffer::from_slice_ref(&V),
                Some(n),
            )
        }
        .into_array_ref();
        let r = FixedSizeListArray::try_new(
            SharedBox::borrowed(&ITEM),
            1,
            2,
            SharedBox::borrowed(&c),
            None,
        );
        assert_eq!(r.unwrap_err(), Error::NullCountMismatch);
        // SAFETY: only validated below.
        let a = unsafe {
            FixedSizeListArray::new_unchecked(
                SharedBox::borrowed(&ITEM),
                1,
                2,
                SharedBox::borrowed(&c),
                None,
            )
        };
        assert_eq!(a.validate(ValidationLevel::Cheap), Ok(()));
    }

    #[test]
    fn allocation_failures_are_errors() {
        let n = check_every_failure(|alloc: TestAlloc| {
            let mut b = FixedSizeListBuilder::new_in(
                PrimitiveBuilder::<u8, _>::new_in(alloc.clone()),
                3,
                alloc,
            );
            b.values().try_append_slice(&[1, 2, 3])?;
            b.try_append(true)?;
            b.try_append_null()?;
            let a = b.try_finish()?;
            assert_eq!(a.len(), 2);
            Ok(())
        });
        assert!(n > 0);
    }
}
