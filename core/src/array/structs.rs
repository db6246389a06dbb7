//! Struct layout ("Struct Layout"): a validity bitmap and one child array per
//! field; slot `i` is the `i`-th element of every child. The struct has no
//! buffer of its own besides the bitmap; its validity takes priority over the
//! children's.

use core::fmt;

use allocator_api2::alloc::Allocator;
use derive_where::derive_where;

use super::builder::{ArrayBuilder, StructChildren};
use super::{check_non_nullable, check_slice, validate_nulls, Array, ArrayRef, ValidationLevel};
use crate::buffer::{NullBuffer, NullBufferBuilder, SharedSlice};
use crate::datatypes::{DataType, Fields};
use crate::error::{Error, Result};

/// An array of `Struct(fields)`: named children of the same logical length.
///
/// Slot `i` of this view is element `offset + i` of every child, where
/// `offset` (in slots) is how far the view was sliced: slicing never touches
/// the children, and [`Self::column`] returns them sliced to this view.
///
/// ```
/// use alkaid::array::{Array, BooleanArray, Int32Array, StructArray};
/// use alkaid::buffer::SharedSlice;
/// use alkaid::datatypes::{DataType, Field};
///
/// let fields = vec![
///     Field::new("id", DataType::Int32, false),
///     Field::new("ok", DataType::Boolean, true),
/// ];
/// let children = SharedSlice::from(vec![
///     Int32Array::from(vec![1, 2, 3]).into_array_ref(),
///     BooleanArray::from(vec![Some(true), None, Some(false)]).into_array_ref(),
/// ]);
/// let s = StructArray::try_new(fields.into(), children, None)?;
/// assert_eq!((s.len(), s.num_columns()), (3, 2));
/// let tail = s.slice(1, 2)?;
/// assert_eq!(tail.column_by_name("id"), Some(Int32Array::from(vec![2, 3]).into_array_ref()));
/// assert_eq!(tail.column(1).map(|c| c.null_count()), Some(1));
/// # Ok::<(), alkaid::Error>(())
/// ```
#[derive_where(Clone)]
pub struct StructArray<
    'a,
    #[cfg(feature = "alloc")] A: Allocator = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator,
> {
    data_type: DataType<'a, A>,
    fields: Fields<'a, A>,
    children: SharedSlice<'a, ArrayRef<'a, A>, A>,
    offset: usize,
    len: usize,
    nulls: Option<NullBuffer<'a, A>>,
}

impl<'a, A: Allocator> StructArray<'a, A> {
    /// A struct array of `fields` over `children` (one per field, in order),
    /// with an optional validity bitmap. The length is the bitmap's, else the
    /// first child's, else 0. Checks everything ([`ValidationLevel::Full`]).
    ///
    /// # Errors
    /// As [`Self::try_new_with_len`].
    pub fn try_new(
        fields: Fields<'a, A>,
        children: SharedSlice<'a, ArrayRef<'a, A>, A>,
        nulls: Option<NullBuffer<'a, A>>,
    ) -> Result<Self> {
        let len = match (&nulls, children.first()) {
            (Some(n), _) => n.len(),
            (None, Some(c)) => c.len(),
            (None, None) => 0,
        };
        Self::try_new_with_len(fields, children, len, nulls)
    }

    /// A struct array of `len` slots (children may be longer: the extra
    /// elements are ignored). Checks everything ([`ValidationLevel::Full`]).
    ///
    /// # Errors
    /// [`Error::TypeMismatch`] when the number of children differs from the
    /// number of fields or a child's type is not its field's;
    /// [`Error::InvalidDataType`]; [`Error::LengthMismatch`] when a child is
    /// shorter than `len`; [`Error::ValidityTooSmall`] when the bitmap does not
    /// have `len` bits; the children's validation errors.
    pub fn try_new_with_len(
        fields: Fields<'a, A>,
        children: SharedSlice<'a, ArrayRef<'a, A>, A>,
        len: usize,
        nulls: Option<NullBuffer<'a, A>>,
    ) -> Result<Self> {
        let a = Self::from_parts(fields, children, len, nulls);
        a.validate(ValidationLevel::Full)?;
        Ok(a)
    }

    /// As [`Self::try_new_with_len`] at [`ValidationLevel::Cheap`], for
    /// children that come from this crate's builders.
    pub(crate) fn try_new_cheap(
        fields: Fields<'a, A>,
        children: SharedSlice<'a, ArrayRef<'a, A>, A>,
        len: usize,
        nulls: Option<NullBuffer<'a, A>>,
    ) -> Result<Self> {
        let a = Self::from_parts(fields, children, len, nulls);
        a.validate(ValidationLevel::Cheap)?;
        Ok(a)
    }

    fn from_parts(
        fields: Fields<'a, A>,
        children: SharedSlice<'a, ArrayRef<'a, A>, A>,
        len: usize,
        nulls: Option<NullBuffer<'a, A>>,
    ) -> Self {
        StructArray {
            data_type: DataType::Struct(fields.clone()),
            fields,
            children,
            offset: 0,
            len,
            nulls,
        }
    }

    /// As [`Self::try_new_with_len`] without any check.
    ///
    /// # Safety
    /// One child per field, of the field's type and at least `len` long;
    /// `nulls` (if any) of `len` bits. Accessors stay memory safe otherwise,
    /// but return `None` or wrong data.
    pub unsafe fn new_unchecked(
        fields: Fields<'a, A>,
        children: SharedSlice<'a, ArrayRef<'a, A>, A>,
        len: usize,
        nulls: Option<NullBuffer<'a, A>>,
    ) -> Self {
        Self::from_parts(fields, children, len, nulls)
    }

    /// The typed array inside `a`, if `a` is a struct.
    pub fn downcast_ref<'b>(a: &'b ArrayRef<'a, A>) -> Option<&'b Self> {
        match a {
            ArrayRef::Struct(s) => Some(s),
            _ => None,
        }
    }

    /// The fields (names, types, nullability), one per child.
    pub fn fields(&self) -> &Fields<'a, A> {
        &self.fields
    }

    /// Number of children.
    pub fn num_columns(&self) -> usize {
        self.children.len()
    }

    /// Slots skipped in the children by slicing.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The whole children, unsliced (this view is their elements
    /// `offset..offset + len`).
    pub fn children(&self) -> &[ArrayRef<'a, A>] {
        &self.children
    }

    /// Child `i` sliced to this view (zero-copy), or `None` when there is no
    /// such child (or it is too short).
    pub fn column(&self, i: usize) -> Option<ArrayRef<'a, A>> {
        self.children.get(i)?.slice(self.offset, self.len).ok()
    }

    /// The child of the first field named `name`, sliced to this view.
    pub fn column_by_name(&self, name: &str) -> Option<ArrayRef<'a, A>> {
        let i = self.fields.iter().position(|f| f.name() == name)?;
        self.column(i)
    }

    /// Iterates the children sliced to this view (a child that cannot be
    /// sliced, possible only after `new_unchecked`, is skipped).
    pub fn columns(&self) -> impl Iterator<Item = ArrayRef<'a, A>> + '_ {
        (0..self.children.len()).filter_map(move |i| self.column(i))
    }

    /// Splits into fields, unsliced children, offset, length and bitmap.
    #[allow(clippy::type_complexity)]
    pub fn into_parts(
        self,
    ) -> (
        Fields<'a, A>,
        SharedSlice<'a, ArrayRef<'a, A>, A>,
        usize,
        usize,
        Option<NullBuffer<'a, A>>,
    ) {
        (
            self.fields,
            self.children,
            self.offset,
            self.len,
            self.nulls,
        )
    }
}

impl<'a, A: Allocator> Array<'a, A> for StructArray<'a, A> {
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
        Ok(StructArray {
            data_type: self.data_type.clone(),
            fields: self.fields.clone(),
            children: self.children.clone(),
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
        if self.fields.len() != self.children.len() {
            return Err(Error::TypeMismatch);
        }
        let end = self
            .offset
            .checked_add(self.len)
            .ok_or(Error::LengthMismatch)?;
        for (i, (f, c)) in self.fields.iter().zip(self.children.iter()).enumerate() {
            if f.data_type() != c.data_type() {
                return Err(Error::TypeMismatch.in_child(i));
            }
            if c.len() < end {
                return Err(Error::LengthMismatch.in_child(i));
            }
        }
        validate_nulls(self.nulls.as_ref(), self.len, level)?;
        if level >= ValidationLevel::Full {
            for (i, c) in self.children.iter().enumerate() {
                c.validate(level).map_err(|e| e.in_child(i))?;
            }
        }
        if level >= ValidationLevel::Strict {
            for (i, (f, c)) in self.fields.iter().zip(self.children.iter()).enumerate() {
                if !f.is_nullable() {
                    let (parent, child) = (self.nulls.as_ref(), c.nulls());
                    check_non_nullable(child, parent, self.offset, self.len, 1)
                        .map_err(|e| e.in_child(i))?;
                }
            }
        }
        Ok(())
    }

    fn into_array_ref(self) -> ArrayRef<'a, A> {
        ArrayRef::Struct(self)
    }
}

impl<A: Allocator> fmt::Debug for StructArray<'_, A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("StructArray");
        d.field("len", &self.len).field("nulls", &self.nulls);
        for (field, c) in self.fields.iter().zip(self.columns()) {
            d.field(field.name(), &c);
        }
        d.finish()
    }
}

/// Builds a [`StructArray`] in memory from `A`.
///
/// `C` holds the child builders: a tuple of [`ArrayBuilder`]s, one per field
/// (append each child's element through [`Self::children`], then close the
/// slot with [`Self::try_append`]), or `()` to record only the validity and
/// hand finished children to [`StructBuilder::try_finish_with_children`].
///
/// ```
/// use alkaid::array::{Array, Float64Builder, StringArray, StringBuilder, StructBuilder};
/// use alkaid::datatypes::{DataType, Field};
///
/// let fields = vec![
///     Field::new("sensor", DataType::Utf8, false),
///     Field::new("value", DataType::Float64, true),
/// ];
/// let mut b = StructBuilder::new(fields, (StringBuilder::new(), Float64Builder::new()));
/// let (sensor, value) = b.children();
/// sensor.try_append_value("t1")?;
/// value.try_append_value(21.5)?;
/// b.try_append(true)?;
/// b.try_append_null()?; // a null struct: a null in every child
/// let s = b.try_finish()?;
/// assert_eq!((s.len(), s.null_count()), (2, 1));
/// assert_eq!(s.column(0).map(|c| c.null_count()), Some(1));
/// assert_eq!(
///     s.slice(0, 1)?.column_by_name("sensor"),
///     Some(StringArray::from(vec!["t1"]).into_array_ref())
/// );
/// # Ok::<(), alkaid::Error>(())
/// ```
pub struct StructBuilder<
    'a,
    C,
    #[cfg(feature = "alloc")] A: Allocator + Clone = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator + Clone,
> {
    fields: Fields<'a, A>,
    children: C,
    nulls: NullBufferBuilder<A>,
    alloc: A,
}

impl<'a, C: StructChildren<'a, A>, A: Allocator + Clone> StructBuilder<'a, C, A> {
    /// An empty builder of `fields` over the (empty) child builders
    /// `children`; allocates nothing yet.
    pub fn new_in(fields: Fields<'a, A>, children: C, alloc: A) -> Self {
        StructBuilder {
            fields,
            children,
            nulls: NullBufferBuilder::new_in(alloc.clone()),
            alloc,
        }
    }

    /// The fields.
    pub fn fields(&self) -> &Fields<'a, A> {
        &self.fields
    }

    /// The child builders.
    pub fn children(&mut self) -> &mut C {
        &mut self.children
    }

    /// Number of slots closed.
    pub fn len(&self) -> usize {
        self.nulls.len()
    }

    /// `true` when no slot was closed.
    pub fn is_empty(&self) -> bool {
        self.nulls.is_empty()
    }

    /// Closes the current slot, valid or null as `valid` says; every child
    /// must hold exactly one more element than before.
    ///
    /// # Errors
    /// [`Error::InvalidBuilderState`] when a child has the wrong length;
    /// [`Error::AllocationFailed`].
    pub fn try_append(&mut self, valid: bool) -> Result<()> {
        let next = self.len().checked_add(1).ok_or(Error::CapacityOverflow)?;
        if !self.children.all_have_len(next) {
            return Err(Error::InvalidBuilderState);
        }
        self.nulls.try_append(valid)
    }

    /// Appends a null to every child and closes a null slot.
    ///
    /// # Errors
    /// As [`Self::try_append`]; the children's append errors.
    pub fn try_append_null(&mut self) -> Result<()> {
        if !self.children.all_have_len(self.len()) {
            return Err(Error::InvalidBuilderState);
        }
        self.children.try_append_null()?;
        self.try_append(false)
    }

    /// Freezes into an array: finishes the children (no data copy) and
    /// allocates the slice holding them.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`]; [`Error::TypeMismatch`] when the children
    /// do not match the fields in number or type; the children's finish errors.
    pub fn try_finish(self) -> Result<StructArray<'a, A>> {
        let len = self.nulls.len();
        let children = self.children.try_finish(self.alloc)?;
        StructArray::try_new_cheap(self.fields, children, len, self.nulls.finish())
    }
}

impl<'a, A: Allocator + Clone> StructBuilder<'a, (), A> {
    /// Freezes the recorded validity with finished `children` (one per field,
    /// at least [`Self::len`] long), checking them fully.
    ///
    /// # Errors
    /// As [`StructArray::try_new_with_len`].
    pub fn try_finish_with_children(
        self,
        children: SharedSlice<'a, ArrayRef<'a, A>, A>,
    ) -> Result<StructArray<'a, A>> {
        let len = self.nulls.len();
        StructArray::try_new_with_len(self.fields, children, len, self.nulls.finish())
    }
}

impl<'a, C: StructChildren<'a, A>, A: Allocator + Clone> ArrayBuilder<'a, A>
    for StructBuilder<'a, C, A>
{
    fn len(&self) -> usize {
        StructBuilder::len(self)
    }

    fn try_append_null(&mut self) -> Result<()> {
        StructBuilder::try_append_null(self)
    }

    fn try_finish_array_ref(self) -> Result<ArrayRef<'a, A>> {
        Ok(self.try_finish()?.into_array_ref())
    }
}

impl<C, A: Allocator + Clone> fmt::Debug for StructBuilder<'_, C, A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StructBuilder")
            .field("len", &self.nulls.len())
            .field("fields", &self.fields)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::array::{
        BinaryBuilder, BooleanBuilder, ListArray, ListBuilder, PrimitiveArray, PrimitiveBuilder,
    };
    use crate::buffer::{BooleanBuffer, Buffer, ScalarBuffer};
    use crate::datatypes::Field;
    use crate::test_support::{check_every_failure, TestAlloc};
    use crate::Global;
    use std::vec::Vec;

    fn i32_options(a: &ArrayRef<'_, Global>) -> Vec<Option<i32>> {
        let ArrayRef::Int32(p) = a else {
            panic!("not Int32: {a:?}")
        };
        p.iter().collect()
    }

    static AGE: [Field<'static, Global>; 1] = [Field::new("age", DataType::Int32, true)];

    /// The struct part of "Example Layout: `Struct<VarBinary, Int32>`"
    /// (`[{'joe', 1}, {null, 2}, null, {'mark', 4}]`) with its Int32 child
    /// `age` only: the struct's bitmap and the Int32 child's buffers.
    #[test]
    fn spec_example_struct_with_int32_child() {
        let mut b = StructBuilder::new_in(
            SharedSlice::borrowed(&AGE),
            (PrimitiveBuilder::<i32, Global>::new_in(Global),),
            Global,
        );
        b.children().0.try_append_value(1).unwrap();
        b.try_append(true).unwrap();
        b.children().0.try_append_value(2).unwrap();
        b.try_append(true).unwrap();
        b.try_append_null().unwrap();
        b.children().0.try_append_value(4).unwrap();
        b.try_append(true).unwrap();
        let a = b.try_finish().unwrap();
        assert_eq!(a.len(), 4);
        assert_eq!(a.null_count(), 1);
        // Struct validity bitmap: 00001011.
        assert_eq!(
            a.nulls().unwrap().inner().inner().as_slice(),
            &[0b0000_1011]
        );
        // field-1 (Int32): length 4, null count 1, bitmap 00001011, values 1, 2, _, 4.
        let age = a.column(0).unwrap();
        assert_validity(&age, 4, 1, 0b0000_1011);
        let ArrayRef::Int32(p) = &age else { panic!() };
        let bytes = p.values_buffer().inner().as_slice();
        assert_eq!(&bytes[0..4], &1i32.to_ne_bytes());
        assert_eq!(&bytes[4..8], &2i32.to_ne_bytes());
        assert_eq!(&bytes[12..16], &4i32.to_ne_bytes());
        assert_eq!(i32_options(&age), [Some(1), Some(2), None, Some(4)]);
        assert!(a.is_null(2));
        assert_eq!(
            a.data_type(),
            &DataType::Struct(SharedSlice::borrowed(&AGE))
        );
        assert!(a.column_by_name("age").is_some());
        assert!(a.column_by_name("name").is_none());
    }

    /// `a` has `len` slots, `null_count` nulls and the validity byte `bits`.
    fn assert_validity<'a, T: Array<'a, Global>>(a: &T, len: usize, null_count: usize, bits: u8) {
        assert_eq!((a.len(), a.null_count()), (len, null_count));
        assert_eq!(a.nulls().unwrap().inner().inner().as_slice(), &[bits]);
    }

    static NAME_AGE: [Field<'static, Global>; 2] = [
        Field::new("name", DataType::Binary, true),
        Field::new("age", DataType::Int32, true),
    ];

    /// "Example Layout: `Struct<VarBinary, Int32>`":
    /// `[{'joe', 1}, {null, 2}, null, {'mark', 4}]`.
    #[test]
    fn spec_example_struct_varbinary_int32() {
        let mut b = StructBuilder::new_in(
            SharedSlice::borrowed(&NAME_AGE),
            (
                BinaryBuilder::new_in(Global),
                PrimitiveBuilder::<i32, Global>::new_in(Global),
            ),
            Global,
        );
        b.children().0.try_append_value(b"joe").unwrap();
        b.children().1.try_append_value(1).unwrap();
        b.try_append(true).unwrap();
        b.children().0.try_append_null().unwrap();
        b.children().1.try_append_value(2).unwrap();
        b.try_append(true).unwrap();
        b.try_append_null().unwrap();
        b.children().0.try_append_value(b"mark").unwrap();
        b.children().1.try_append_value(4).unwrap();
        b.try_append(true).unwrap();
        let a = b.try_finish().unwrap();
        // Length 4, null count 1, validity 00001011.
        assert_validity(&a, 4, 1, 0b0000_1011);
        // field-0 (VarBinary): length 4, null count 2, validity 00001001,
        // offsets 0, 3, 3, 3, 7, values "joemark".
        let name = a.column(0).unwrap();
        let ArrayRef::Binary(name) = &name else {
            panic!("not Binary: {name:?}")
        };
        assert_validity(name, 4, 2, 0b0000_1001);
        assert_eq!(name.value_offsets(), &[0, 3, 3, 3, 7]);
        let offsets: Vec<u8> = [0i32, 3, 3, 3, 7]
            .iter()
            .flat_map(|v| v.to_ne_bytes())
            .collect();
        assert_eq!(name.offsets().inner().as_slice(), offsets.as_slice());
        assert_eq!(name.values().as_slice(), b"joemark");
        // field-1 (Int32): length 4, null count 1, validity 00001011, values 1, 2, _, 4.
        let age = a.column_by_name("age").unwrap();
        assert_validity(&age, 4, 1, 0b0000_1011);
        assert_eq!(i32_options(&age), [Some(1), Some(2), None, Some(4)]);
        assert_eq!(a.validate(ValidationLevel::Full), Ok(()));
    }

    static TWO: [Field<'static, Global>; 2] = [
        Field::new("a", DataType::Int8, true),
        Field::new("b", DataType::Boolean, true),
    ];

    fn two_cols() -> StructArray<'static, Global> {
        let mut b = StructBuilder::new_in(
            SharedSlice::borrowed(&TWO),
            (
                PrimitiveBuilder::<i8, Global>::new_in(Global),
                BooleanBuilder::new_in(Global),
            ),
            Global,
        );
        for i in 0..5i8 {
            if i == 3 {
                b.try_append_null().unwrap();
                continue;
            }
            b.children().0.try_append_value(i).unwrap();
            b.children().1.try_append_value(i % 2 == 0).unwrap();
            b.try_append(true).unwrap();
        }
        b.try_finish().unwrap()
    }

    #[test]
    fn slice_then_columns() {
        let a = two_cols();
        let s = a.slice(2, 3).unwrap();
        assert_eq!(s.offset(), 2);
        assert_eq!(s.null_count(), 1);
        assert!(s.is_null(1));
        let ArrayRef::Int8(c0) = s.column(0).unwrap() else {
            panic!()
        };
        assert_eq!(c0.iter().collect::<Vec<_>>(), [Some(2), None, Some(4)]);
        let ArrayRef::Boolean(c1) = s.column_by_name("b").unwrap() else {
            panic!()
        };
        assert_eq!(
            c1.iter().collect::<Vec<_>>(),
            [Some(true), None, Some(true)]
        );
        // Children are untouched by slicing.
        assert_eq!(s.children()[0].len(), 5);
        assert_eq!(s.columns().count(), 2);
        let t = s.slice(1, 2).unwrap();
        assert_eq!(t.offset(), 3);
        let ArrayRef::Int8(c0) = t.column(0).unwrap() else {
            panic!()
        };
        assert_eq!(c0.iter().collect::<Vec<_>>(), [None, Some(4)]);
        assert_eq!(t.validate(ValidationLevel::Full), Ok(()));
        assert_eq!(s.slice(2, 2).unwrap_err(), Error::OutOfBounds);
        assert!(s.column(2).is_none());
    }

    #[test]
    fn builder_checks_child_lengths_and_list_of_struct() {
        let mut b = StructBuilder::new_in(
            SharedSlice::borrowed(&TWO),
            (
                PrimitiveBuilder::<i8, Global>::new_in(Global),
                BooleanBuilder::new_in(Global),
            ),
            Global,
        );
        b.children().0.try_append_value(1).unwrap();
        assert_eq!(b.try_append(true), Err(Error::InvalidBuilderState));
        assert_eq!(b.try_append_null(), Err(Error::InvalidBuilderState));
        b.children().1.try_append_value(true).unwrap();
        b.try_append(true).unwrap();
        // Nested in a list: List<Struct<a: Int8, b: Boolean>>; the slot
        // already in the child builder comes before the first list.
        let mut l = ListBuilder::new_in(b, Global);
        l.try_append(true).unwrap();
        l.values().try_append_null().unwrap();
        l.try_append(true).unwrap();
        let l = l.try_finish().unwrap();
        assert_eq!(l.value_offsets(), &[1, 1, 2]);
        assert_eq!(l.get(0).unwrap().len(), 0);
        assert_eq!(l.get(1).unwrap().null_count(), 1);
        let s = StructArray::downcast_ref(l.values()).unwrap();
        assert_eq!(s.len(), 2);
        assert!(s.is_null(1));
        assert!(ListArray::downcast_ref(&l.into_array_ref()).is_some());
    }

    #[test]
    fn validity_only_builder() {
        static V: [i8; 3] = [1, 2, 3];
        let mut b = StructBuilder::new_in(SharedSlice::borrowed(&TWO[..1]), (), Global);
        b.try_append(true).unwrap();
        b.try_append(false).unwrap();
        let c = [PrimitiveArray::<i8, Global>::from_slice(&V).into_array_ref()];
        let a = b
            .try_finish_with_children(SharedSlice::borrowed(&c))
            .unwrap();
        assert_eq!(a.len(), 2);
        assert!(a.is_null(1));
        assert_eq!(a.column(0).unwrap().len(), 2);
        // Zero fields: the length comes from the bitmap or is explicit.
        let e = StructArray::<Global>::try_new_with_len(
            SharedSlice::empty(),
            SharedSlice::empty(),
            7,
            None,
        )
        .unwrap();
        assert_eq!(e.len(), 7);
        assert_eq!(e.slice(2, 3).unwrap().len(), 3);
    }

    static V3: [i8; 3] = [1, 2, 3];
    static B3: [u8; 1] = [0b111];

    fn children3() -> [ArrayRef<'static, Global>; 2] {
        let bits = BooleanBuffer::try_new(Buffer::from_slice_ref(&B3), 0, 3).unwrap();
        [
            PrimitiveArray::<i8, Global>::from_slice(&V3).into_array_ref(),
            crate::array::BooleanArray::try_new(bits, None)
                .unwrap()
                .into_array_ref(),
        ]
    }

    #[test]
    fn rule_child_count_mismatch() {
        let c = children3();
        let r = StructArray::try_new(
            SharedSlice::borrowed(&TWO),
            SharedSlice::borrowed(&c[..1]),
            None,
        );
        assert_eq!(r.unwrap_err(), Error::TypeMismatch);
    }

    #[test]
    fn rule_child_type_mismatch() {
        let c = children3();
        let swapped = [c[1].clone(), c[0].clone()];
        let r = StructArray::try_new(
            SharedSlice::borrowed(&TWO),
            SharedSlice::borrowed(&swapped),
            None,
        );
        assert_eq!(r.unwrap_err(), Error::TypeMismatch);
    }

    #[test]
    fn rule_child_too_short() {
        let c = children3();
        let r = StructArray::try_new_with_len(
            SharedSlice::borrowed(&TWO),
            SharedSlice::borrowed(&c),
            4,
            None,
        );
        assert_eq!(r.unwrap_err(), Error::LengthMismatch);
        let short = [c[0].clone(), c[1].slice(0, 2).unwrap()];
        let r = StructArray::try_new(
            SharedSlice::borrowed(&TWO),
            SharedSlice::borrowed(&short),
            None,
        );
        assert_eq!(r.unwrap_err(), Error::LengthMismatch);
        // Longer children are fine.
        let r = StructArray::try_new_with_len(
            SharedSlice::borrowed(&TWO),
            SharedSlice::borrowed(&c),
            2,
            None,
        );
        assert_eq!(r.map(|a| a.len()), Ok(2));
    }

    #[test]
    fn rule_validity_length() {
        static BITS: [u8; 1] = [0xFF];
        let c = children3();
        let n =
            NullBuffer::new(BooleanBuffer::try_new(Buffer::from_slice_ref(&BITS), 0, 2).unwrap());
        let r = StructArray::try_new_with_len(
            SharedSlice::borrowed(&TWO),
            SharedSlice::borrowed(&c),
            3,
            Some(n),
        );
        assert_eq!(r.unwrap_err(), Error::ValidityTooSmall);
    }

    #[test]
    fn rule_children_are_validated_at_full() {
        static BITS: [u8; 1] = [0b111];
        // SAFETY: a wrong null count on purpose (test); the bitmap is sound.
        let n = unsafe {
            NullBuffer::new_unchecked(
                BooleanBuffer::try_new(Buffer::from_slice_ref(&BITS), 0, 3).unwrap(),
                2,
            )
        };
        // SAFETY: as above; the array is only validated.
        let bad = unsafe {
            PrimitiveArray::<i8, Global>::new_unchecked(
                DataType::Int8,
                ScalarBuffer::from_slice_ref(&V3),
                Some(n),
            )
        };
        let c = [bad.into_array_ref(), children3()[1].clone()];
        let r = StructArray::try_new(SharedSlice::borrowed(&TWO), SharedSlice::borrowed(&c), None);
        assert_eq!(r.unwrap_err(), Error::NullCountMismatch);
        // SAFETY: only validated below.
        let a = unsafe {
            StructArray::new_unchecked(
                SharedSlice::borrowed(&TWO),
                SharedSlice::borrowed(&c),
                3,
                None,
            )
        };
        assert_eq!(a.validate(ValidationLevel::Cheap), Ok(()));
    }

    #[test]
    fn allocation_failures_are_errors() {
        let n = check_every_failure(|alloc: TestAlloc| {
            let fields = [
                Field::new("a", DataType::Int8, true),
                Field::new("b", DataType::Boolean, true),
            ];
            let mut b = StructBuilder::new_in(
                SharedSlice::try_from_iter_in(fields, alloc.clone())?,
                (
                    PrimitiveBuilder::<i8, _>::new_in(alloc.clone()),
                    BooleanBuilder::new_in(alloc.clone()),
                ),
                alloc,
            );
            b.children().0.try_append_value(1)?;
            b.children().1.try_append_value(true)?;
            b.try_append(true)?;
            b.try_append_null()?;
            let a = b.try_finish()?;
            assert_eq!(a.null_count(), 1);
            Ok(())
        });
        assert!(n > 0);
    }
}
