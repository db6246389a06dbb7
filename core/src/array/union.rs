//! Union layouts ("Dense Union" and "Sparse Union"): a type ids buffer of
//! `i8` (one per slot), for dense unions an offsets buffer of `i32` (one per
//! slot, the position in the chosen child), and one child array per declared
//! type.
//!
//! A union has **no validity bitmap**: its null count is always 0, and a slot
//! is *logically* null when the child value it selects is null
//! ([`UnionArray::is_logically_null`]).
//!
//! Slicing never touches the children: a dense union slices its type ids and
//! offsets (which keep pointing into the whole children); a sparse union
//! slices its type ids and keeps an `offset` into its children, so slot `i`
//! is slot `offset + i` of the selected child.

use allocator_api2::alloc::Allocator;
use derive_where::derive_where;

use super::{check_slice, Array, ArrayRef, ValidationLevel};
use crate::buffer::{NullBuffer, ScalarBuffer, SharedSlice};
use crate::datatypes::{DataType, UnionFields, UnionMode};
use crate::error::{Error, Result};

mod builder;
pub use builder::UnionBuilder;

/// A sparse or dense union array ([`DataType::Union`]).
///
/// - `type_ids`: one `i8` per slot, each one of the ids declared by the
///   [`UnionFields`];
/// - `offsets` (dense only): one `i32` per slot, the index of the slot's value
///   in the child of its type id (`0 <= offset < child.len()`);
/// - `children`: one array per declared field, in the order of the fields.
///   Sparse children hold at least `offset + len` slots (slot `i` of the
///   union is slot `offset + i` of the child); dense children any number.
///
/// The union itself has no validity bitmap ([`Array::nulls`] is `None`,
/// [`Array::null_count`] is 0, [`Array::is_valid`] is `true` for every
/// slot). Logical nulls are the nulls of the selected child values: see
/// [`UnionArray::is_logically_null`].
///
/// The "Dense Union" example of the spec, `[{f=1.2}, null, {f=3.4}, {i=5}]`,
/// from its buffers:
///
/// ```
/// use alkaid::array::{Array, Float32Array, Int32Array, UnionArray};
/// use alkaid::buffer::{ScalarBuffer, SharedSlice};
/// use alkaid::datatypes::{DataType, Field, UnionFields, UnionMode};
///
/// let fields = UnionFields::try_new(
///     SharedSlice::from(vec![0, 1]),
///     vec![Field::new("f", DataType::Float32, true), Field::new("i", DataType::Int32, true)].into(),
/// )?;
/// let type_ids: [i8; 4] = [0, 0, 0, 1];
/// let offsets: [i32; 4] = [0, 1, 2, 0];
/// let children = SharedSlice::from(vec![
///     Float32Array::from(vec![Some(1.2), None, Some(3.4)]).into_array_ref(),
///     Int32Array::from(vec![5]).into_array_ref(),
/// ]);
/// let u: UnionArray = UnionArray::try_new(
///     fields,
///     UnionMode::Dense,
///     ScalarBuffer::from_slice_ref(&type_ids),
///     Some(ScalarBuffer::from_slice_ref(&offsets)),
///     children,
/// )?;
/// assert_eq!((u.len(), u.null_count()), (4, 0)); // no validity bitmap
/// assert_eq!(u.logical_null_count(), 1);
/// assert!(u.is_logically_null(1));
/// // Slot 3: type id 1, child 1, child slot 0.
/// assert_eq!(u.value(3), Some((1, 1, 0)));
/// assert_eq!(u.child(1).and_then(|c| c.as_primitive::<i32>()).and_then(|c| c.get(0)), Some(5));
/// # Ok::<(), alkaid::Error>(())
/// ```
#[derive_where(Clone, Debug)]
pub struct UnionArray<
    'a,
    #[cfg(feature = "alloc")] A: Allocator = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator,
> {
    data_type: DataType<'a, A>,
    /// A cheap clone of the fields inside `data_type`, for direct access.
    fields: UnionFields<'a, A>,
    mode: UnionMode,
    type_ids: ScalarBuffer<'a, i8, A>,
    offsets: Option<ScalarBuffer<'a, i32, A>>,
    children: SharedSlice<'a, ArrayRef<'a, A>, A>,
    /// Sparse unions: slot offset into every child. Dense unions: always 0.
    offset: usize,
}

impl<'a, A: Allocator> UnionArray<'a, A> {
    /// A union of type `Union(fields, mode)` over `type_ids` (one per slot),
    /// `offsets` (one per slot, dense only) and one child per field; the
    /// array has `type_ids.len()` slots. Validates at [`ValidationLevel::Full`].
    ///
    /// # Errors
    /// - [`Error::InvalidDataType`]: a field's type is malformed;
    /// - [`Error::TypeMismatch`]: not one child per field, or a child's type
    ///   differs from its field's;
    /// - [`Error::UnionOffsetsPresence`]: offsets missing for a dense union or
    ///   present for a sparse one;
    /// - [`Error::BufferTooSmall`]: dense offsets do not hold exactly one
    ///   entry per type id;
    /// - [`Error::UnionChildTooShort`]: a sparse child is shorter than the union;
    /// - [`Error::UnionTypeIdUndeclared`]: a type id is not declared by `fields`;
    /// - [`Error::UnionOffsetOutOfBounds`]: a dense offset is negative or not
    ///   less than its child's length;
    /// - any error of a child's own validation.
    pub fn try_new(
        fields: UnionFields<'a, A>,
        mode: UnionMode,
        type_ids: ScalarBuffer<'a, i8, A>,
        offsets: Option<ScalarBuffer<'a, i32, A>>,
        children: SharedSlice<'a, ArrayRef<'a, A>, A>,
    ) -> Result<Self> {
        let a = Self::from_parts(fields, mode, type_ids, offsets, children);
        a.validate(ValidationLevel::Full)?;
        Ok(a)
    }

    /// As [`Self::try_new`] without any check.
    ///
    /// # Safety
    /// The arguments must satisfy every rule listed in [`Self::try_new`].
    /// Accessors never read out of bounds even if they do not, but may return
    /// `None` or meaningless values.
    pub unsafe fn new_unchecked(
        fields: UnionFields<'a, A>,
        mode: UnionMode,
        type_ids: ScalarBuffer<'a, i8, A>,
        offsets: Option<ScalarBuffer<'a, i32, A>>,
        children: SharedSlice<'a, ArrayRef<'a, A>, A>,
    ) -> Self {
        Self::from_parts(fields, mode, type_ids, offsets, children)
    }

    fn from_parts(
        fields: UnionFields<'a, A>,
        mode: UnionMode,
        type_ids: ScalarBuffer<'a, i8, A>,
        offsets: Option<ScalarBuffer<'a, i32, A>>,
        children: SharedSlice<'a, ArrayRef<'a, A>, A>,
    ) -> Self {
        UnionArray {
            data_type: DataType::Union(fields.clone(), mode),
            fields,
            mode,
            type_ids,
            offsets,
            children,
            offset: 0,
        }
    }

    /// The declared type ids and fields.
    pub fn fields(&self) -> &UnionFields<'a, A> {
        &self.fields
    }

    /// Sparse or dense.
    pub fn mode(&self) -> UnionMode {
        self.mode
    }

    /// The type id of every slot of this view.
    pub fn type_ids(&self) -> &[i8] {
        &self.type_ids
    }

    /// The type ids buffer (one `i8` per slot of this view).
    pub fn type_ids_buffer(&self) -> &ScalarBuffer<'a, i8, A> {
        &self.type_ids
    }

    /// Dense unions: the offset of every slot of this view into its child.
    /// Sparse unions: `None`.
    pub fn offsets(&self) -> Option<&[i32]> {
        self.offsets.as_deref()
    }

    /// The offsets buffer (dense unions; one `i32` per slot of this view).
    pub fn offsets_buffer(&self) -> Option<&ScalarBuffer<'a, i32, A>> {
        self.offsets.as_ref()
    }

    /// The children, one per field in the order of [`Self::fields`]. They are
    /// never sliced: see [`Self::child_offset`].
    pub fn children(&self) -> &[ArrayRef<'a, A>] {
        &self.children
    }

    /// The children, shared.
    pub fn children_shared(&self) -> &SharedSlice<'a, ArrayRef<'a, A>, A> {
        &self.children
    }

    /// The child holding the values of type id `type_id` (`None` when undeclared).
    pub fn child(&self, type_id: i8) -> Option<&ArrayRef<'a, A>> {
        self.children.get(self.fields.child_index(type_id)?)
    }

    /// Sparse unions: slot `i` of this view is slot `child_offset() + i` of
    /// its child (non-zero after slicing). Dense unions: 0.
    pub fn child_offset(&self) -> usize {
        self.offset
    }

    /// The type id of slot `i`, or `None` when `i >= len`.
    pub fn type_id(&self, i: usize) -> Option<i8> {
        self.type_ids.get(i).copied()
    }

    /// Where the value of slot `i` lives: `(type_id, child index, child slot)`,
    /// the child index being a position in [`Self::children`] and the child
    /// slot a slot of that (unsliced) child.
    ///
    /// `None` when `i >= len`, or (only for arrays built unchecked) when the
    /// type id is undeclared or the child slot is out of the child's bounds.
    pub fn value(&self, i: usize) -> Option<(i8, usize, usize)> {
        let id = *self.type_ids.get(i)?;
        let child = self.fields.child_index(id)?;
        let slot = match &self.offsets {
            Some(o) => usize::try_from(*o.get(i)?).ok()?,
            None => self.offset.checked_add(i)?,
        };
        if slot < self.children.get(child)?.len() {
            Some((id, child, slot))
        } else {
            None
        }
    }

    /// `true` when the value selected by slot `i` is null in its child, or
    /// when slot `i` does not exist (or is malformed, see [`Self::value`]).
    pub fn is_logically_null(&self, i: usize) -> bool {
        match self.value(i) {
            Some((_, c, s)) => self.children.get(c).is_none_or(|c| c.is_null(s)),
            None => true,
        }
    }

    /// Number of logically null slots (O(len)).
    pub fn logical_null_count(&self) -> usize {
        (0..self.len())
            .filter(|&i| self.is_logically_null(i))
            .count()
    }

    /// Splits into fields, mode, type ids, offsets, children and child offset.
    #[allow(clippy::type_complexity)]
    pub fn into_parts(
        self,
    ) -> (
        UnionFields<'a, A>,
        UnionMode,
        ScalarBuffer<'a, i8, A>,
        Option<ScalarBuffer<'a, i32, A>>,
        SharedSlice<'a, ArrayRef<'a, A>, A>,
        usize,
    ) {
        (
            self.fields,
            self.mode,
            self.type_ids,
            self.offsets,
            self.children,
            self.offset,
        )
    }

    /// Checks type ids (and dense offsets) against the declared ids and the
    /// children (O(len)).
    fn validate_type_ids(&self) -> Result<()> {
        // Child index of every possible type id; `u8::MAX` = undeclared.
        let mut index = [u8::MAX; 128];
        for (c, &id) in self.fields.type_ids().iter().enumerate() {
            let slot = usize::try_from(id)
                .ok()
                .and_then(|id| index.get_mut(id))
                .ok_or(Error::InvalidDataType)?;
            *slot = u8::try_from(c).map_err(|_| Error::InvalidDataType)?;
        }
        let child_of = |id: i8| -> Result<usize> {
            let c = usize::try_from(id)
                .ok()
                .and_then(|id| index.get(id).copied())
                .filter(|&c| c != u8::MAX)
                .ok_or(Error::UnionTypeIdUndeclared)?;
            Ok(usize::from(c))
        };
        match &self.offsets {
            None => {
                for &id in self.type_ids.iter() {
                    child_of(id)?;
                }
            }
            Some(offsets) => {
                for (&id, &off) in self.type_ids.iter().zip(offsets.iter()) {
                    let child = self
                        .children
                        .get(child_of(id)?)
                        .ok_or(Error::TypeMismatch)?;
                    match usize::try_from(off) {
                        Ok(off) if off < child.len() => {}
                        _ => return Err(Error::UnionOffsetOutOfBounds),
                    }
                }
            }
        }
        Ok(())
    }
}

impl<'a, A: Allocator> Array<'a, A> for UnionArray<'a, A> {
    fn data_type(&self) -> &DataType<'a, A> {
        &self.data_type
    }

    fn len(&self) -> usize {
        self.type_ids.len()
    }

    /// Always `None`: unions have no validity bitmap.
    fn nulls(&self) -> Option<&NullBuffer<'a, A>> {
        None
    }

    fn slice(&self, offset: usize, len: usize) -> Result<Self> {
        check_slice(offset, len, self.len())?;
        let mut s = self.clone();
        s.type_ids = self.type_ids.slice(offset, len)?;
        match &self.offsets {
            Some(o) => s.offsets = Some(o.slice(offset, len)?),
            None => s.offset = self.offset.checked_add(offset).ok_or(Error::OutOfBounds)?,
        }
        Ok(s)
    }

    fn validate(&self, level: ValidationLevel) -> Result<()> {
        if level == ValidationLevel::None {
            return Ok(());
        }
        self.data_type.validate()?;
        let fields = self.fields.fields();
        if self.children.len() != fields.len() {
            return Err(Error::TypeMismatch);
        }
        for (child, field) in self.children.iter().zip(fields.iter()) {
            if child.data_type() != field.data_type() {
                return Err(Error::TypeMismatch);
            }
        }
        let len = self.len();
        match (self.mode, &self.offsets) {
            (UnionMode::Dense, Some(o)) => {
                if o.len() != len {
                    return Err(Error::BufferTooSmall);
                }
            }
            (UnionMode::Sparse, None) => {
                let end = self
                    .offset
                    .checked_add(len)
                    .ok_or(Error::UnionChildTooShort)?;
                if self.children.iter().any(|c| c.len() < end) {
                    return Err(Error::UnionChildTooShort);
                }
            }
            _ => return Err(Error::UnionOffsetsPresence),
        }
        if level >= ValidationLevel::Full {
            self.validate_type_ids()?;
        }
        for (i, child) in self.children.iter().enumerate() {
            child.validate(level).map_err(|e| e.in_child(i))?;
        }
        Ok(())
    }

    fn into_array_ref(self) -> ArrayRef<'a, A> {
        ArrayRef::Union(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::array::PrimitiveArray;
    use crate::datatypes::Field;
    use crate::Global;
    use std::vec::Vec;

    pub(super) fn ne_bytes_i32(v: &[i32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_ne_bytes()).collect()
    }

    /// `Union<f: Float32, i: Int32>` with type ids 0 and 1.
    pub(super) fn fi_fields<A: Allocator>() -> [Field<'static, A>; 2] {
        [
            Field::new("f", DataType::Float32, true),
            Field::new("i", DataType::Int32, true),
        ]
    }

    pub(super) fn union_fields<'a, A: Allocator>(
        ids: &'a [i8],
        f: &'a [Field<'a, A>],
    ) -> UnionFields<'a, A> {
        UnionFields::try_new(SharedSlice::borrowed(ids), SharedSlice::borrowed(f)).unwrap()
    }

    /// A sparse union over `children` (checked), of the fields `f` with
    /// type ids `ids` and the slots' type ids `types`.
    pub(super) fn sparse<'a>(
        ids: &'a [i8],
        f: &'a [Field<'a, Global>],
        types: &'a [i8],
        children: &'a [ArrayRef<'a, Global>],
    ) -> Result<UnionArray<'a, Global>> {
        UnionArray::try_new(
            union_fields(ids, f),
            UnionMode::Sparse,
            ScalarBuffer::from_slice_ref(types),
            None,
            SharedSlice::borrowed(children),
        )
    }

    #[test]
    fn sparse_slice_keeps_children_and_offsets_into_them() {
        // `[{f=1.5}, {i=7}, {f=null}, {i=9}]`.
        let fs = fi_fields::<Global>();
        let f = PrimitiveArray::<f32, Global>::try_from_options_in(
            &[Some(1.5), None, None, None],
            Global,
        )
        .unwrap();
        let i = PrimitiveArray::<i32, Global>::try_from_options_in(
            &[None, Some(7), None, Some(9)],
            Global,
        )
        .unwrap();
        let ch = [f.into_array_ref(), i.into_array_ref()];
        let u = sparse(&[0, 1], &fs, &[0, 1, 0, 1], &ch).unwrap();
        assert!(u.offsets().is_none());
        assert_eq!(u.logical_null_count(), 1);
        let s = u.slice(1, 3).unwrap();
        assert_eq!(s.len(), 3);
        assert_eq!(s.type_ids(), &[1, 0, 1]);
        assert_eq!(s.child_offset(), 1);
        assert_eq!(s.children()[0].len(), 4, "children untouched");
        assert_eq!(s.value(0), Some((1, 1, 1)));
        assert_eq!(s.value(2), Some((1, 1, 3)));
        assert!(s.is_logically_null(1));
        assert!(!s.is_logically_null(2));
        let ss = s.slice(2, 1).unwrap();
        assert_eq!(ss.child_offset(), 3);
        assert_eq!(ss.value(0), Some((1, 1, 3)));
        ss.validate(ValidationLevel::Full).unwrap();
        assert_eq!(s.slice(2, 2).unwrap_err(), Error::OutOfBounds);
    }

    #[test]
    fn dense_slice_slices_type_ids_and_offsets_only() {
        let fs = fi_fields::<Global>();
        let ch = dense_children(&[1.2, 0.0, 3.4], &[5]);
        let u = UnionArray::try_new(
            union_fields(&[0, 1], &fs),
            UnionMode::Dense,
            ScalarBuffer::from_slice_ref(&[0, 0, 0, 1]),
            Some(ScalarBuffer::from_slice_ref(&[0, 1, 2, 0])),
            SharedSlice::borrowed(&ch),
        )
        .unwrap();
        let s = u.slice(2, 2).unwrap();
        assert_eq!(s.type_ids(), &[0, 1]);
        assert_eq!(s.offsets(), Some(&[2, 0][..]));
        assert_eq!(s.child_offset(), 0);
        assert_eq!(s.children()[0].len(), 3);
        assert_eq!(s.value(0), Some((0, 0, 2)));
        s.validate(ValidationLevel::Full).unwrap();
    }

    /// Children of the dense example, built from caller memory.
    pub(super) fn dense_children<'a>(f: &'a [f32], i: &'a [i32]) -> [ArrayRef<'a, Global>; 2] {
        [
            PrimitiveArray::from_slice(f).into_array_ref(),
            PrimitiveArray::from_slice(i).into_array_ref(),
        ]
    }

    /// Validates a dense `Union<f: Float32, i: Int32>` over the dense
    /// example's children (f = [1.2, 0, 3.4], i = [5]) and the given buffers.
    fn dense(ids: &[i8], offsets: &[i32]) -> Result<()> {
        let fs = fi_fields::<Global>();
        let ch = dense_children(&[1.2, 0.0, 3.4], &[5]);
        let u = UnionArray::try_new(
            union_fields(&[0, 1], &fs),
            UnionMode::Dense,
            ScalarBuffer::from_slice_ref(ids),
            Some(ScalarBuffer::from_slice_ref(offsets)),
            SharedSlice::borrowed(&ch),
        )?;
        assert_eq!(u.value(3), Some((ids[3], usize::from(ids[3] == 1), 0)));
        Ok(())
    }

    #[test]
    fn valid_dense_from_parts() {
        dense(&[0, 0, 0, 1], &[0, 1, 2, 0]).unwrap();
    }

    #[test]
    fn rule_type_id_undeclared() {
        assert_eq!(
            dense(&[0, 2, 0, 1], &[0, 1, 2, 0]).unwrap_err(),
            Error::UnionTypeIdUndeclared
        );
        assert_eq!(
            dense(&[0, -1, 0, 1], &[0, 1, 2, 0]).unwrap_err(),
            Error::UnionTypeIdUndeclared
        );
    }

    #[test]
    fn cheap_validation_reads_no_type_ids() {
        let fs = fi_fields::<Global>();
        let ch = dense_children(&[1.2, 0.0, 3.4], &[5]);
        // SAFETY: deliberately invalid (type id 9, offset 7), checked below.
        let u = unsafe {
            UnionArray::new_unchecked(
                union_fields(&[0, 1], &fs),
                UnionMode::Dense,
                ScalarBuffer::from_slice_ref(&[9, 0]),
                Some(ScalarBuffer::from_slice_ref(&[0, 7])),
                SharedSlice::borrowed(&ch),
            )
        };
        u.validate(ValidationLevel::Cheap).unwrap();
        assert_eq!(
            u.validate(ValidationLevel::Full).unwrap_err(),
            Error::UnionTypeIdUndeclared
        );
        assert_eq!((u.value(0), u.value(1)), (None, None));
    }

    #[test]
    fn rule_dense_offset_out_of_bounds() {
        // Offset equal to the child's length (3) is out of bounds.
        assert_eq!(
            dense(&[0, 0, 0, 1], &[0, 1, 3, 0]).unwrap_err(),
            Error::UnionOffsetOutOfBounds
        );
        assert_eq!(
            dense(&[0, 0, 0, 1], &[0, -1, 2, 0]).unwrap_err(),
            Error::UnionOffsetOutOfBounds
        );
        assert_eq!(
            dense(&[0, 0, 0, 1], &[0, 1, 2, 1]).unwrap_err(),
            Error::UnionOffsetOutOfBounds
        );
    }

    #[test]
    fn rule_dense_offsets_length() {
        assert_eq!(
            dense(&[0, 0, 0, 1], &[0, 1, 2]).unwrap_err(),
            Error::BufferTooSmall
        );
    }

    #[test]
    fn rule_offsets_presence() {
        let fs = fi_fields::<Global>();
        let ch = dense_children(&[1.0, 2.0], &[1, 2]);
        let mk = |mode, offsets: Option<&'static [i32]>| {
            UnionArray::try_new(
                union_fields(&[0, 1], &fs),
                mode,
                ScalarBuffer::from_slice_ref(&[0, 1]),
                offsets.map(ScalarBuffer::from_slice_ref),
                SharedSlice::borrowed(&ch),
            )
        };
        assert_eq!(
            mk(UnionMode::Dense, None).unwrap_err(),
            Error::UnionOffsetsPresence
        );
        assert_eq!(
            mk(UnionMode::Sparse, Some(&[0, 0])).unwrap_err(),
            Error::UnionOffsetsPresence
        );
        mk(UnionMode::Sparse, None).unwrap();
        mk(UnionMode::Dense, Some(&[0, 0])).unwrap();
    }

    #[test]
    fn rule_sparse_child_too_short() {
        let fs = fi_fields::<Global>();
        let ch = dense_children(&[1.0, 2.0, 3.0], &[1, 2]);
        let r = sparse(&[0, 1], &fs, &[0, 0, 0], &ch);
        assert_eq!(r.unwrap_err(), Error::UnionChildTooShort);
    }

    #[test]
    fn rule_child_type_mismatch() {
        let fs = fi_fields::<Global>();
        // Children in the wrong order: Int32 where Float32 is declared.
        let [f, i] = dense_children(&[1.0], &[1]);
        let swapped = [i, f];
        let r = sparse(&[0, 1], &fs, &[0], &swapped);
        assert_eq!(r.unwrap_err(), Error::TypeMismatch);
        // One child for two fields.
        let one = [PrimitiveArray::<f32, Global>::from_slice(&[1.0]).into_array_ref()];
        let r = sparse(&[0, 1], &fs, &[0], &one);
        assert_eq!(r.unwrap_err(), Error::TypeMismatch);
    }

    #[test]
    fn children_are_validated_recursively() {
        // A nested union whose own type ids are invalid.
        let inner_fs = fi_fields::<Global>();
        let inner_ch = dense_children(&[1.0], &[1]);
        // SAFETY: deliberately invalid, to be caught by the outer validation.
        let inner = unsafe {
            UnionArray::new_unchecked(
                union_fields(&[0, 1], &inner_fs),
                UnionMode::Sparse,
                ScalarBuffer::from_slice_ref(&[5]),
                None,
                SharedSlice::borrowed(&inner_ch),
            )
        };
        assert_eq!(inner.value(0), None);
        assert!(inner.is_logically_null(0));
        let outer_fs = [Field::new("u", inner.data_type().clone(), true)];
        let outer_ch = [inner.into_array_ref()];
        let r = sparse(&[0], &outer_fs, &[0], &outer_ch);
        assert_eq!(r.unwrap_err(), Error::UnionTypeIdUndeclared);
    }
}
