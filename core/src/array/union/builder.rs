//! [`UnionBuilder`]: builds the type ids and dense offsets of a union whose
//! children the caller builds.

use allocator_api2::alloc::Allocator;

use super::UnionArray;
use crate::array::ArrayRef;
use crate::buffer::{MutableBuffer, ScalarBuffer, SharedSlice};
use crate::datatypes::{UnionFields, UnionMode};
use crate::error::{Error, Result};

/// Builds the type ids (and, for dense unions, the offsets) of a
/// [`UnionArray`]; the children are built by the caller and handed over,
/// finished, to [`UnionBuilder::finish`].
///
/// For each slot, call [`UnionBuilder::try_append`] with its type id; it
/// returns the child slot the value must occupy:
/// - **sparse**: the slot index itself. Every child must end up with one
///   slot per union slot: append the value to the selected child and any
///   value (typically a null) to every other child;
/// - **dense**: the number of slots previously given to that type id. Append
///   the value to the selected child only, so that child slots are consumed
///   in order.
///
/// A logically null slot is a null appended to the selected child.
/// `finish` validates the result at [`ValidationLevel::Full`](crate::array::ValidationLevel::Full), so a mismatch
/// between the type ids and the children is reported, never assumed.
///
/// A sparse union of `Int64` and `Utf8`, `[7, "x", null]`:
///
/// ```
/// use alkaid::array::{Array, Int64Builder, StringBuilder, UnionBuilder};
/// use alkaid::buffer::SharedSlice;
/// use alkaid::datatypes::{DataType, Field, UnionFields, UnionMode};
///
/// let fields = UnionFields::try_new(
///     SharedSlice::from(vec![5, 9]),
///     vec![Field::new("n", DataType::Int64, true), Field::new("s", DataType::Utf8, true)].into(),
/// )?;
/// let mut b = UnionBuilder::new_sparse(fields);
/// let (mut n, mut s) = (Int64Builder::new(), StringBuilder::new());
/// // Sparse: every child gets a slot per union slot.
/// assert_eq!(b.try_append(5)?, 0);
/// n.try_append_value(7)?;
/// s.try_append_null()?;
/// assert_eq!(b.try_append(9)?, 1);
/// n.try_append_null()?;
/// s.try_append_value("x")?;
/// b.try_append(9)?; // a logical null: a null in the selected child
/// n.try_append_null()?;
/// s.try_append_null()?;
/// assert!(b.try_append(3).is_err()); // Error::UnionTypeIdUndeclared
///
/// let u = b.finish(SharedSlice::from(vec![
///     n.finish().into_array_ref(),
///     s.finish().into_array_ref(),
/// ]))?;
/// assert_eq!(u.mode(), UnionMode::Sparse);
/// assert_eq!(u.type_ids(), &[5, 9, 9]);
/// assert_eq!(u.logical_null_count(), 1);
/// # Ok::<(), alkaid::Error>(())
/// ```
#[derive(Debug)]
pub struct UnionBuilder<
    'a,
    #[cfg(feature = "alloc")] A: Allocator + Clone = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator + Clone,
> {
    fields: UnionFields<'a, A>,
    mode: UnionMode,
    type_ids: MutableBuffer<A>,
    /// Dense only: one `i32` per slot.
    offsets: MutableBuffer<A>,
    /// Dense only: one `i32` per field, the slots given to each child so far
    /// (allocated on the first append).
    counts: MutableBuffer<A>,
}

impl<'a, A: Allocator + Clone> UnionBuilder<'a, A> {
    /// An empty builder of a sparse union of `fields`; allocates nothing yet.
    pub fn new_sparse_in(fields: UnionFields<'a, A>, alloc: A) -> Self {
        Self::new_in(fields, UnionMode::Sparse, alloc)
    }

    /// An empty builder of a dense union of `fields`; allocates nothing yet.
    pub fn new_dense_in(fields: UnionFields<'a, A>, alloc: A) -> Self {
        Self::new_in(fields, UnionMode::Dense, alloc)
    }

    /// An empty builder of a union of `fields` in `mode`; allocates nothing yet.
    pub fn new_in(fields: UnionFields<'a, A>, mode: UnionMode, alloc: A) -> Self {
        UnionBuilder {
            fields,
            mode,
            type_ids: MutableBuffer::new_in(alloc.clone()),
            offsets: MutableBuffer::new_in(alloc.clone()),
            counts: MutableBuffer::new_in(alloc),
        }
    }

    /// Number of slots appended.
    pub fn len(&self) -> usize {
        self.type_ids.len()
    }

    /// `true` when nothing was appended.
    pub fn is_empty(&self) -> bool {
        self.type_ids.is_empty()
    }

    /// Number of child slots a finished child of `type_id` must at least
    /// hold: the union length for sparse unions, the slots given to that type
    /// id for dense ones. `None` when `type_id` is undeclared.
    pub fn child_len(&self, type_id: i8) -> Option<usize> {
        let c = self.fields.child_index(type_id)?;
        match self.mode {
            UnionMode::Sparse => Some(self.len()),
            UnionMode::Dense if self.counts.is_empty() => Some(0),
            UnionMode::Dense => {
                let n = *self.counts.typed::<i32>().ok()?.get(c)?;
                usize::try_from(n).ok()
            }
        }
    }

    /// Appends a slot of type `type_id`; returns the child slot its value
    /// must occupy (see the type's documentation).
    ///
    /// # Errors
    /// [`Error::UnionTypeIdUndeclared`] when `type_id` is not declared;
    /// [`Error::CapacityOverflow`] when a dense child would exceed `i32::MAX`
    /// slots; [`Error::AllocationFailed`]. On error nothing is appended.
    pub fn try_append(&mut self, type_id: i8) -> Result<usize> {
        let child = self
            .fields
            .child_index(type_id)
            .ok_or(Error::UnionTypeIdUndeclared)?;
        match self.mode {
            UnionMode::Sparse => {
                let slot = self.len();
                self.type_ids.try_push(type_id)?;
                Ok(slot)
            }
            UnionMode::Dense => {
                if self.counts.is_empty() {
                    let bytes = self
                        .fields
                        .len()
                        .checked_mul(4)
                        .ok_or(Error::CapacityOverflow)?;
                    self.counts.try_extend_zeros(bytes)?;
                }
                self.type_ids.try_reserve(1)?;
                self.offsets.try_reserve(4)?;
                let count = self
                    .counts
                    .typed_mut::<i32>()?
                    .get_mut(child)
                    .ok_or(Error::InvalidBuilderState)?;
                let slot = *count;
                let next = slot.checked_add(1).ok_or(Error::CapacityOverflow)?;
                *count = next;
                // Both pushes fit in the capacity reserved above.
                self.type_ids.try_push(type_id)?;
                self.offsets.try_push(slot)?;
                usize::try_from(slot).map_err(|_| Error::InvalidBuilderState)
            }
        }
    }

    /// Freezes the type ids (and offsets) and assembles the union with
    /// `children` (one per field, in the order of the fields).
    ///
    /// # Errors
    /// Any error of [`UnionArray::try_new`] (e.g. [`Error::UnionChildTooShort`]
    /// when a sparse child lacks slots, [`Error::UnionOffsetOutOfBounds`]
    /// when a dense child lacks the values promised by `try_append`).
    pub fn finish(
        self,
        children: SharedSlice<'a, ArrayRef<'a, A>, A>,
    ) -> Result<UnionArray<'a, A>> {
        let type_ids = ScalarBuffer::try_from_buffer(self.type_ids.into_buffer())?;
        let offsets = match self.mode {
            UnionMode::Dense => Some(ScalarBuffer::try_from_buffer(self.offsets.into_buffer())?),
            UnionMode::Sparse => None,
        };
        UnionArray::try_new(self.fields, self.mode, type_ids, offsets, children)
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{dense_children, fi_fields, ne_bytes_i32, union_fields};
    use super::*;
    use crate::array::{Array, BinaryBuilder, PrimitiveArray};
    use crate::datatypes::{DataType, Field};
    use crate::test_support::{check_every_failure, TestAlloc};
    use crate::Global;
    use std::vec::Vec;

    /// The "Dense Union" example: `[{f=1.2}, null, {f=3.4}, {i=5}]`.
    fn build_dense<'a, A: Allocator + Clone>(
        fields: UnionFields<'a, A>,
        alloc: A,
    ) -> Result<UnionArray<'a, A>> {
        let mut b = UnionBuilder::new_dense_in(fields, alloc.clone());
        let mut f = crate::array::PrimitiveBuilder::<f32, A>::new_in(alloc.clone());
        let mut i = crate::array::PrimitiveBuilder::<i32, A>::new_in(alloc.clone());
        assert_eq!(b.try_append(0)?, 0);
        f.try_append_value(1.2)?;
        assert_eq!(b.try_append(0)?, 1);
        f.try_append_null()?;
        assert_eq!(b.try_append(0)?, 2);
        f.try_append_value(3.4)?;
        assert_eq!(b.try_append(1)?, 0);
        i.try_append_value(5)?;
        assert_eq!(b.child_len(0), Some(3));
        assert_eq!(b.child_len(1), Some(1));
        let children = SharedSlice::try_from_iter_in(
            [f.finish().into_array_ref(), i.finish().into_array_ref()],
            alloc,
        )?;
        b.finish(children)
    }

    #[test]
    fn spec_dense_union_example() {
        let fs = fi_fields::<Global>();
        let u = build_dense(union_fields(&[0, 1], &fs), Global).unwrap();
        assert_eq!(u.len(), 4);
        assert_eq!(u.null_count(), 0);
        assert!(u.nulls().is_none());
        assert_eq!(u.mode(), UnionMode::Dense);
        // Types buffer: bytes 0..4 = 0 0 0 1, 64-byte aligned.
        assert_eq!(u.type_ids_buffer().inner().as_slice(), &[0, 0, 0, 1]);
        assert_eq!(u.type_ids_buffer().inner().as_ptr() as usize % 64, 0);
        // Offset buffer: 0 1 2 0 as i32.
        let offs = u.offsets_buffer().unwrap().inner().as_slice();
        assert_eq!(offs, ne_bytes_i32(&[0, 1, 2, 0]).as_slice());
        // Field-0 (f: Float32): length 3, null count 1, validity 00000101.
        let ArrayRef::Float32(f) = &u.children()[0] else {
            panic!()
        };
        assert_eq!(f.len(), 3);
        assert_eq!(f.null_count(), 1);
        assert_eq!(
            f.nulls().unwrap().inner().inner().as_slice(),
            &[0b0000_0101]
        );
        let fb = f.values_buffer().inner().as_slice();
        assert_eq!(&fb[0..4], &1.2f32.to_ne_bytes());
        assert_eq!(&fb[8..12], &3.4f32.to_ne_bytes());
        // Field-1 (i: Int32): length 1, no validity bitmap, value 5.
        let ArrayRef::Int32(i) = &u.children()[1] else {
            panic!()
        };
        assert!(i.nulls().is_none());
        assert_eq!(i.values_buffer().inner().as_slice(), &5i32.to_ne_bytes());
        // Logical view.
        assert_eq!(u.value(0), Some((0, 0, 0)));
        assert_eq!(u.value(1), Some((0, 0, 1)));
        assert_eq!(u.value(3), Some((1, 1, 0)));
        assert_eq!(u.value(4), None);
        let nulls: Vec<bool> = (0..4).map(|k| u.is_logically_null(k)).collect();
        assert_eq!(nulls, [false, true, false, false]);
        assert_eq!(u.logical_null_count(), 1);
        assert!(u.child(1).is_some() && u.child(2).is_none());
    }

    /// The "Sparse Union" example, `SparseUnion<i: Int32, f: Float32, s:
    /// VarBinary>` `[{i=5}, {f=1.2}, {s='joe'}, {f=3.4}, {i=4}, {s='mark'}]`.
    #[test]
    fn spec_sparse_union_example() {
        let fs = [
            Field::new("i", DataType::Int32, true),
            Field::new("f", DataType::Float32, true),
            Field::new("s", DataType::Binary, true),
        ];
        let mut b = UnionBuilder::new_sparse_in(union_fields(&[0, 1, 2], &fs), Global);
        let mut i = crate::array::PrimitiveBuilder::<i32, Global>::new_in(Global);
        let mut f = crate::array::PrimitiveBuilder::<f32, Global>::new_in(Global);
        let mut s = BinaryBuilder::<Global>::new_in(Global);
        for (k, (id, iv, fv, sv)) in [
            (0, Some(5), None, None),
            (1, None, Some(1.2), None),
            (2, None, None, Some(&b"joe"[..])),
            (1, None, Some(3.4), None),
            (0, Some(4), None, None),
            (2, None, None, Some(&b"mark"[..])),
        ]
        .into_iter()
        .enumerate()
        {
            assert_eq!(b.try_append(id).unwrap(), k);
            i.try_append_option(iv).unwrap();
            f.try_append_option(fv).unwrap();
            s.try_append_option(sv).unwrap();
        }
        assert_eq!(b.child_len(2), Some(6));
        let children = SharedSlice::try_from_iter_in(
            [
                i.finish().into_array_ref(),
                f.finish().into_array_ref(),
                s.finish().into_array_ref(),
            ],
            Global,
        )
        .unwrap();
        let u = b.finish(children).unwrap();
        // Length 6, null count 0, types buffer 0 1 2 1 0 2, no offsets.
        assert_eq!((u.len(), u.null_count()), (6, 0));
        assert_eq!(u.type_ids_buffer().inner().as_slice(), &[0, 1, 2, 1, 0, 2]);
        assert!(u.offsets_buffer().is_none());
        // i (Int32): length 6, null count 4, validity 00010001, 5 and 4.
        let ArrayRef::Int32(i) = &u.children()[0] else {
            panic!()
        };
        assert_eq!((i.len(), i.null_count()), (6, 4));
        assert_eq!(
            i.nulls().unwrap().inner().inner().as_slice(),
            &[0b0001_0001]
        );
        let ib = i.values_buffer().inner().as_slice();
        assert_eq!(&ib[0..4], &5i32.to_ne_bytes());
        assert_eq!(&ib[16..20], &4i32.to_ne_bytes());
        // f (Float32): length 6, null count 4, validity 00001010, 1.2 and 3.4.
        let ArrayRef::Float32(f) = &u.children()[1] else {
            panic!()
        };
        assert_eq!((f.len(), f.null_count()), (6, 4));
        assert_eq!(
            f.nulls().unwrap().inner().inner().as_slice(),
            &[0b0000_1010]
        );
        let fb = f.values_buffer().inner().as_slice();
        assert_eq!(&fb[4..8], &1.2f32.to_ne_bytes());
        assert_eq!(&fb[12..16], &3.4f32.to_ne_bytes());
        // s (VarBinary): length 6, null count 4, validity 00100100,
        // offsets 0 0 0 3 3 3 7, values "joemark".
        let ArrayRef::Binary(s) = &u.children()[2] else {
            panic!()
        };
        assert_eq!((s.len(), s.null_count()), (6, 4));
        assert_eq!(
            s.nulls().unwrap().inner().inner().as_slice(),
            &[0b0010_0100]
        );
        assert_eq!(
            s.offsets().inner().as_slice(),
            ne_bytes_i32(&[0, 0, 0, 3, 3, 3, 7]).as_slice()
        );
        assert_eq!(s.values().as_slice(), b"joemark");
        // Every selected value is valid: no logical nulls.
        assert_eq!(u.logical_null_count(), 0);
        assert_eq!(u.value(5), Some((2, 2, 5)));
    }

    /// Sparse `Union<f: Float32, i: Int32>` `[{f=1.5}, {i=7}, {f=null}, {i=9}]`.
    fn build_sparse<'a, A: Allocator + Clone>(
        fields: UnionFields<'a, A>,
        alloc: A,
    ) -> Result<UnionArray<'a, A>> {
        let mut b = UnionBuilder::new_sparse_in(fields, alloc.clone());
        for id in [0, 1, 0, 1] {
            b.try_append(id)?;
        }
        let f = PrimitiveArray::<f32, A>::try_from_options_in(
            &[Some(1.5), None, None, None],
            alloc.clone(),
        )?;
        let i = PrimitiveArray::<i32, A>::try_from_options_in(
            &[None, Some(7), None, Some(9)],
            alloc.clone(),
        )?;
        let children =
            SharedSlice::try_from_iter_in([f.into_array_ref(), i.into_array_ref()], alloc)?;
        b.finish(children)
    }

    #[test]
    fn builder_rejects_undeclared_type_id() {
        let fs = fi_fields::<Global>();
        let mut b = UnionBuilder::new_dense_in(union_fields(&[0, 1], &fs), Global);
        assert_eq!(b.try_append(7).unwrap_err(), Error::UnionTypeIdUndeclared);
        assert!(b.is_empty());
        assert_eq!(b.child_len(0), Some(0));
        assert_eq!(b.child_len(7), None);
    }

    #[test]
    fn builder_finish_checks_children() {
        let fs = fi_fields::<Global>();
        let mut b = UnionBuilder::new_dense_in(union_fields(&[0, 1], &fs), Global);
        b.try_append(0).unwrap();
        b.try_append(0).unwrap();
        // The f child has only one value for two promised slots.
        let ch = dense_children(&[1.0], &[]);
        let r = b.finish(SharedSlice::borrowed(&ch));
        assert_eq!(r.unwrap_err(), Error::UnionOffsetOutOfBounds);
    }

    #[test]
    fn allocation_failures_are_errors() {
        let n = check_every_failure(|a: TestAlloc| {
            let fs = fi_fields::<TestAlloc>();
            let u = build_dense(union_fields(&[0, 1], &fs), a)?;
            assert_eq!(u.len(), 4);
            Ok(())
        });
        assert!(n > 3);
        let n = check_every_failure(|a: TestAlloc| {
            let fs = fi_fields::<TestAlloc>();
            let u = build_sparse(union_fields(&[0, 1], &fs), a)?;
            assert_eq!(u.logical_null_count(), 1);
            Ok(())
        });
        assert!(n > 3);
    }
}
