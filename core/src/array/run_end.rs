//! Run-end encoded layout ("Run-End Encoded Layout"): no buffers of its own,
//! two children: `run_ends` (Int16/Int32/Int64, no nulls, positive and
//! strictly increasing; run `j` covers logical slots `run_ends[j-1]..run_ends[j]`)
//! and `values` (one value per run, any type, nulls allowed).
//!
//! The parent has no validity bitmap and a null count of 0; a logically null
//! slot is a run whose value is null ([`RunArray::is_logically_null`]).
//! Slicing keeps the children whole and only changes the logical `offset` and
//! `len` of the view.

use core::ops::Range;

use allocator_api2::alloc::Allocator;
use derive_where::derive_where;

use super::{check_slice, Array, ArrayRef, PrimitiveArray, ValidationLevel};
use crate::buffer::{NullBuffer, SharedBox};
use crate::datatypes::{DataType, Field, FieldRef};
use crate::error::{Error, Result};

use super::primitive::PrimitiveType;

mod builder;
pub use builder::PrimitiveRunBuilder;

/// The `run_ends` child of a [`RunArray`]: a primitive array of one of the
/// three run-end types.
#[derive_where(Clone, Debug)]
pub enum RunEnds<
    'a,
    #[cfg(feature = "alloc")] A: Allocator = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator,
> {
    /// Int16 run ends.
    Int16(PrimitiveArray<'a, i16, A>),
    /// Int32 run ends.
    Int32(PrimitiveArray<'a, i32, A>),
    /// Int64 run ends.
    Int64(PrimitiveArray<'a, i64, A>),
}

macro_rules! run_ends_dispatch {
    ($self:expr, $a:ident => $body:expr) => {
        match $self {
            RunEnds::Int16($a) => $body,
            RunEnds::Int32($a) => $body,
            RunEnds::Int64($a) => $body,
        }
    };
}

/// A run end as `i64`.
#[inline]
fn widen<T: Into<i64>>(e: T) -> i64 {
    e.into()
}

impl<'a, A: Allocator> RunEnds<'a, A> {
    /// Run end `j` (whatever its validity), widened to `i64`; `None` when
    /// `j >= len`.
    pub fn get(&self, j: usize) -> Option<i64> {
        run_ends_dispatch!(self, a => a.value(j).map(widen))
    }

    /// The last run end, widened to `i64` (`None` when there are no runs).
    pub fn last(&self) -> Option<i64> {
        self.len().checked_sub(1).and_then(|j| self.get(j))
    }

    /// Number of runs before the first run whose end is greater than
    /// `logical`: the physical index of logical slot `logical` (binary
    /// search; meaningful for sorted run ends).
    pub fn partition_point(&self, logical: i64) -> usize {
        run_ends_dispatch!(self, a => a.values().partition_point(|&e| widen(e) <= logical))
    }

    /// Checks that the run ends are positive and strictly increasing (O(runs)).
    fn check_increasing(&self) -> Result<()> {
        fn check<T: Copy + Into<i64>>(ends: &[T]) -> Result<()> {
            let mut prev = 0i64;
            for (i, &e) in ends.iter().enumerate() {
                let e: i64 = e.into();
                if e <= 0 {
                    return Err(Error::RunEndNotPositive.with_row(i));
                }
                if e <= prev {
                    return Err(Error::RunEndsNotIncreasing.with_row(i));
                }
                prev = e;
            }
            Ok(())
        }
        run_ends_dispatch!(self, a => check(a.values()))
    }
}

impl<'a, A: Allocator> TryFrom<ArrayRef<'a, A>> for RunEnds<'a, A> {
    type Error = Error;

    /// # Errors
    /// [`Error::InvalidDataType`] unless the array is Int16, Int32 or Int64.
    fn try_from(a: ArrayRef<'a, A>) -> Result<Self> {
        match a {
            ArrayRef::Int16(a) => Ok(RunEnds::Int16(a)),
            ArrayRef::Int32(a) => Ok(RunEnds::Int32(a)),
            ArrayRef::Int64(a) => Ok(RunEnds::Int64(a)),
            _ => Err(Error::InvalidDataType),
        }
    }
}

impl<'a, A: Allocator> Array<'a, A> for RunEnds<'a, A> {
    fn data_type(&self) -> &DataType<'a, A> {
        run_ends_dispatch!(self, a => a.data_type())
    }
    fn len(&self) -> usize {
        run_ends_dispatch!(self, a => a.len())
    }
    fn nulls(&self) -> Option<&NullBuffer<'a, A>> {
        run_ends_dispatch!(self, a => a.nulls())
    }
    fn slice(&self, offset: usize, len: usize) -> Result<Self> {
        Ok(match self {
            RunEnds::Int16(a) => RunEnds::Int16(a.slice(offset, len)?),
            RunEnds::Int32(a) => RunEnds::Int32(a.slice(offset, len)?),
            RunEnds::Int64(a) => RunEnds::Int64(a.slice(offset, len)?),
        })
    }
    fn validate(&self, level: ValidationLevel) -> Result<()> {
        run_ends_dispatch!(self, a => a.validate(level))
    }
    fn into_array_ref(self) -> ArrayRef<'a, A> {
        run_ends_dispatch!(self, a => a.into_array_ref())
    }
}

/// A native type of run ends: `i16`, `i32` or `i64`.
pub trait RunEndIndexType: PrimitiveType + Into<i64> {
    /// `n` as a run end, or `None` when it does not fit.
    fn from_usize(n: usize) -> Option<Self>;
    /// Wraps a typed array.
    fn into_run_ends<'a, A: Allocator>(a: PrimitiveArray<'a, Self, A>) -> RunEnds<'a, A>;
}

macro_rules! run_end_type {
    ($t:ty, $v:ident) => {
        impl RunEndIndexType for $t {
            #[inline]
            fn from_usize(n: usize) -> Option<Self> {
                <$t>::try_from(n).ok()
            }
            fn into_run_ends<'a, A: Allocator>(a: PrimitiveArray<'a, Self, A>) -> RunEnds<'a, A> {
                RunEnds::$v(a)
            }
        }
    };
}
run_end_type!(i16, Int16);
run_end_type!(i32, Int32);
run_end_type!(i64, Int64);

/// A run-end encoded array ([`DataType::RunEndEncoded`]).
///
/// `[1.5, 1.5, 1.5, null, 2.0, 2.0]` as three runs ending at logical slots
/// 3, 4 and 6:
///
/// ```
/// use alkaid::array::{Array, Float64Array, Int32Array, RunArray, RunEnds};
/// use alkaid::Global;
///
/// let run_ends = RunEnds::Int32(Int32Array::from(vec![3, 4, 6]));
/// let values = Float64Array::from(vec![Some(1.5), None, Some(2.0)]).into_array_ref();
/// let r = RunArray::try_new_in(run_ends, values, Global)?;
/// assert_eq!(r.len(), 6); // logical slots
/// assert_eq!(r.physical_index(4), Some(2));
/// assert!(r.is_logically_null(3));
/// assert_eq!(r.null_count(), 0); // no validity bitmap of its own
///
/// // Slicing keeps the runs and moves a logical offset.
/// let s = r.slice(2, 3)?;
/// assert_eq!((s.offset(), s.len()), (2, 3));
/// assert_eq!(s.get_physical_range(), 0..3);
///
/// // Run ends must increase.
/// let bad = RunEnds::Int32(Int32Array::from(vec![3, 3]));
/// let values = Float64Array::from(vec![1.0, 2.0]).into_array_ref();
/// assert!(RunArray::try_new_in(bad, values, Global).is_err()); // Error::RunEndsNotIncreasing
/// # Ok::<(), alkaid::Error>(())
/// ```
///
/// Logical slot `i` of this view is logical slot `offset + i` of the
/// children; its value is `values[j]` for the first run `j` whose end is
/// greater than `offset + i` ([`RunArray::physical_index`]).
///
/// No validity bitmap: [`Array::nulls`] is `None` and [`Array::null_count`]
/// is 0; nulls are runs of null values.
#[derive_where(Clone, Debug)]
pub struct RunArray<
    'a,
    #[cfg(feature = "alloc")] A: Allocator = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator,
> {
    data_type: DataType<'a, A>,
    run_ends: RunEnds<'a, A>,
    values: SharedBox<'a, ArrayRef<'a, A>, A>,
    /// Logical offset into the runs (changed by slicing only).
    offset: usize,
    /// Logical length.
    len: usize,
}

impl<'a, A: Allocator> RunArray<'a, A> {
    /// An array of type `data_type` (`RunEndEncoded(run_ends field, values
    /// field)`) over whole children: its length is the last run end (0
    /// without runs). Validates at [`ValidationLevel::Full`].
    ///
    /// # Errors
    /// As [`Self::try_new_with_offset`].
    pub fn try_new(
        data_type: DataType<'a, A>,
        run_ends: RunEnds<'a, A>,
        values: SharedBox<'a, ArrayRef<'a, A>, A>,
    ) -> Result<Self> {
        // A negative or huge last run end is reported by validation.
        let len = run_ends
            .last()
            .and_then(|e| usize::try_from(e).ok())
            .unwrap_or(0);
        Self::try_new_with_offset(data_type, run_ends, values, 0, len)
    }

    /// An array of `len` logical slots starting at logical slot `offset` of
    /// the runs (e.g. an IPC array node's length, with `offset` 0).
    /// Validates at [`ValidationLevel::Full`].
    ///
    /// # Errors
    /// - [`Error::TypeMismatch`]: `data_type` is not RunEndEncoded, or a
    ///   child's type differs from its field's;
    /// - [`Error::InvalidDataType`]: the run-ends field is not a non-nullable
    ///   Int16/Int32/Int64, or the values type is malformed;
    /// - [`Error::RunEndsInvalidChild`]: the run ends have nulls, or their
    ///   length differs from the values';
    /// - [`Error::RunEndsTooShort`]: the last run end is less than `offset + len`;
    /// - [`Error::RunEndNotPositive`], [`Error::RunEndsNotIncreasing`];
    /// - any error of the children's own validation.
    pub fn try_new_with_offset(
        data_type: DataType<'a, A>,
        run_ends: RunEnds<'a, A>,
        values: SharedBox<'a, ArrayRef<'a, A>, A>,
        offset: usize,
        len: usize,
    ) -> Result<Self> {
        let a = RunArray {
            data_type,
            run_ends,
            values,
            offset,
            len,
        };
        a.validate(ValidationLevel::Full)?;
        Ok(a)
    }

    /// An array over whole children whose type is built from the children's
    /// types (fields `run_ends`, non-nullable, and `values`, nullable), in
    /// memory from `alloc`. Validates at [`ValidationLevel::Full`].
    ///
    /// # Errors
    /// [`Error::AllocationFailed`] for the type's fields and the values box;
    /// otherwise as [`Self::try_new_with_offset`].
    pub fn try_new_in(run_ends: RunEnds<'a, A>, values: ArrayRef<'a, A>, alloc: A) -> Result<Self>
    where
        A: Clone,
    {
        let data_type = DataType::RunEndEncoded(
            FieldRef::try_new_in(
                Field::new("run_ends", run_ends.data_type().clone(), false),
                alloc.clone(),
            )?,
            FieldRef::try_new_in(
                Field::new("values", values.data_type().clone(), true),
                alloc.clone(),
            )?,
        );
        let values = SharedBox::try_new_in(values, alloc)?;
        Self::try_new(data_type, run_ends, values)
    }

    /// As [`Self::try_new_with_offset`] without any check.
    ///
    /// # Safety
    /// The arguments must satisfy every rule of [`Self::try_new_with_offset`].
    /// Accessors never read out of bounds even if they do not, but may
    /// return `None` or meaningless values.
    pub unsafe fn new_unchecked(
        data_type: DataType<'a, A>,
        run_ends: RunEnds<'a, A>,
        values: SharedBox<'a, ArrayRef<'a, A>, A>,
        offset: usize,
        len: usize,
    ) -> Self {
        RunArray {
            data_type,
            run_ends,
            values,
            offset,
            len,
        }
    }

    /// The run ends (whole, never sliced; in logical slots of the children).
    pub fn run_ends(&self) -> &RunEnds<'a, A> {
        &self.run_ends
    }

    /// The values, one per run (whole, never sliced).
    pub fn values(&self) -> &ArrayRef<'a, A> {
        &self.values
    }

    /// The values, shared.
    pub fn values_shared(&self) -> &SharedBox<'a, ArrayRef<'a, A>, A> {
        &self.values
    }

    /// Logical slot of the runs where this view starts (non-zero after slicing).
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The physical index (into [`Self::run_ends`] and [`Self::values`]) of
    /// logical slot `i` of this view, by binary search over the run ends;
    /// `None` when `i >= len` (or, for arrays built unchecked, when the run
    /// ends do not cover it).
    pub fn physical_index(&self, i: usize) -> Option<usize> {
        if i >= self.len {
            return None;
        }
        let logical = i64::try_from(self.offset.checked_add(i)?).ok()?;
        let j = self.run_ends.partition_point(logical);
        (j < self.run_ends.len()).then_some(j)
    }

    /// The physical indices of the runs this view touches: `start..end` with
    /// `start` the run of logical slot 0 and `end - 1` the run of the last
    /// slot; `0..0` when empty. (Clamped to the run ends for arrays built
    /// unchecked.)
    pub fn get_physical_range(&self) -> Range<usize> {
        let Some(last) = self.len.checked_sub(1) else {
            return 0..0;
        };
        let n = self.run_ends.len();
        let start = self.physical_index(0).unwrap_or(n);
        let end = self.physical_index(last).map_or(n, |j| j + 1);
        start..end.max(start)
    }

    /// `true` when slot `i` is a run of a null value, or does not exist.
    pub fn is_logically_null(&self, i: usize) -> bool {
        self.physical_index(i)
            .is_none_or(|j| self.values.is_null(j))
    }

    /// Splits into type, run ends, values, logical offset and length.
    #[allow(clippy::type_complexity)]
    pub fn into_parts(
        self,
    ) -> (
        DataType<'a, A>,
        RunEnds<'a, A>,
        SharedBox<'a, ArrayRef<'a, A>, A>,
        usize,
        usize,
    ) {
        (
            self.data_type,
            self.run_ends,
            self.values,
            self.offset,
            self.len,
        )
    }
}

impl<'a, A: Allocator> Array<'a, A> for RunArray<'a, A> {
    fn data_type(&self) -> &DataType<'a, A> {
        &self.data_type
    }

    fn len(&self) -> usize {
        self.len
    }

    /// Always `None`: run-end encoded arrays have no validity bitmap.
    fn nulls(&self) -> Option<&NullBuffer<'a, A>> {
        None
    }

    fn slice(&self, offset: usize, len: usize) -> Result<Self> {
        check_slice(offset, len, self.len)?;
        let mut s = self.clone();
        s.offset = self.offset.checked_add(offset).ok_or(Error::OutOfBounds)?;
        s.len = len;
        Ok(s)
    }

    fn validate(&self, level: ValidationLevel) -> Result<()> {
        if level == ValidationLevel::None {
            return Ok(());
        }
        let DataType::RunEndEncoded(ends_field, values_field) = &self.data_type else {
            return Err(Error::TypeMismatch);
        };
        self.data_type.validate()?;
        if self.run_ends.data_type() != ends_field.data_type()
            || self.values.data_type() != values_field.data_type()
        {
            return Err(Error::TypeMismatch);
        }
        if self.run_ends.null_count() != 0 || self.run_ends.len() != self.values.len() {
            return Err(Error::RunEndsInvalidChild);
        }
        let end = self
            .offset
            .checked_add(self.len)
            .and_then(|e| i64::try_from(e).ok())
            .ok_or(Error::RunEndsTooShort)?;
        if end > 0 && self.run_ends.last().is_none_or(|last| last < end) {
            return Err(Error::RunEndsTooShort);
        }
        self.run_ends.validate(level).map_err(|e| e.in_child(0))?;
        self.values.validate(level).map_err(|e| e.in_child(1))?;
        if level >= ValidationLevel::Full {
            self.run_ends.check_increasing()?;
        }
        Ok(())
    }

    fn into_array_ref(self) -> ArrayRef<'a, A> {
        ArrayRef::RunEndEncoded(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Global;
    use std::vec::Vec;

    /// The "Run-End Encoded Layout" example: Float32
    /// `[1.0, 1.0, 1.0, 1.0, null, null, 2.0]`.
    pub(super) fn build_example<'a, A: Allocator + Clone>(alloc: A) -> Result<RunArray<'a, A>> {
        let mut b = PrimitiveRunBuilder::<i32, f32, A>::new_in(alloc);
        for v in [
            Some(1.0),
            Some(1.0),
            Some(1.0),
            Some(1.0),
            None,
            None,
            Some(2.0),
        ] {
            b.try_append_option(v)?;
        }
        assert_eq!((b.len(), b.num_runs()), (7, 3));
        b.finish()
    }

    fn logical(a: &RunArray<'_, Global>) -> Vec<Option<f32>> {
        let ArrayRef::Float32(v) = a.values() else {
            panic!()
        };
        (0..a.len())
            .map(|i| v.get(a.physical_index(i).unwrap()))
            .collect()
    }

    #[test]
    fn spec_example_float32() {
        let a = build_example(Global).unwrap();
        assert_eq!((a.len(), a.null_count()), (7, 0));
        assert!(a.nulls().is_none());
        // run_ends (Int32): length 3, no nulls, values 4 6 7.
        let RunEnds::Int32(ends) = a.run_ends() else {
            panic!()
        };
        assert_eq!(ends.null_count(), 0);
        assert!(ends.nulls().is_none());
        let expected: Vec<u8> = [4i32, 6, 7].iter().flat_map(|v| v.to_ne_bytes()).collect();
        assert_eq!(ends.values_buffer().inner().as_slice(), expected.as_slice());
        // values (Float32): length 3, null count 1, validity 00000101, 1.0 _ 2.0.
        let ArrayRef::Float32(values) = a.values() else {
            panic!()
        };
        assert_eq!((values.len(), values.null_count()), (3, 1));
        assert_eq!(
            values.nulls().unwrap().inner().inner().as_slice(),
            &[0b0000_0101]
        );
        let vb = values.values_buffer().inner().as_slice();
        assert_eq!(&vb[0..4], &1.0f32.to_ne_bytes());
        assert_eq!(&vb[8..12], &2.0f32.to_ne_bytes());
        // The type: RunEndEncoded(run_ends: Int32 non-null, values: Float32).
        let DataType::RunEndEncoded(rf, vf) = a.data_type() else {
            panic!()
        };
        assert_eq!(
            (rf.name(), rf.data_type(), rf.is_nullable()),
            ("run_ends", &DataType::Int32, false)
        );
        assert_eq!((vf.name(), vf.data_type()), ("values", &DataType::Float32));
        // Logical decoding.
        let got: Vec<Option<usize>> = (0..8).map(|i| a.physical_index(i)).collect();
        assert_eq!(
            got,
            [
                Some(0),
                Some(0),
                Some(0),
                Some(0),
                Some(1),
                Some(1),
                Some(2),
                None
            ]
        );
        assert_eq!(
            logical(&a),
            [
                Some(1.0),
                Some(1.0),
                Some(1.0),
                Some(1.0),
                None,
                None,
                Some(2.0)
            ]
        );
        assert!(a.is_logically_null(4) && !a.is_logically_null(6));
        assert_eq!(a.get_physical_range(), 0..3);
    }

    #[test]
    fn slice_maps_logical_to_physical() {
        let a = build_example(Global).unwrap();
        let s = a.slice(3, 3).unwrap();
        assert_eq!((s.offset(), s.len()), (3, 3));
        assert_eq!(s.run_ends().len(), 3, "children untouched");
        assert_eq!(s.physical_index(0), Some(0));
        assert_eq!(s.physical_index(1), Some(1));
        assert_eq!(s.physical_index(2), Some(1));
        assert_eq!(s.physical_index(3), None);
        assert_eq!(s.get_physical_range(), 0..2);
        assert_eq!(logical(&s), [Some(1.0), None, None]);
        s.validate(ValidationLevel::Full).unwrap();
        let t = s.slice(1, 2).unwrap();
        assert_eq!(t.offset(), 4);
        assert_eq!(t.get_physical_range(), 1..2);
        let u = a.slice(6, 1).unwrap();
        assert_eq!(u.get_physical_range(), 2..3);
        assert_eq!(logical(&u), [Some(2.0)]);
        let e = a.slice(7, 0).unwrap();
        assert_eq!(e.get_physical_range(), 0..0);
        assert_eq!(a.slice(5, 3).unwrap_err(), Error::OutOfBounds);
    }

    /// A Float32 REE array over caller run ends and values `[1.0, null, 2.0]`.
    fn ree(ends: &[i32], offset: usize, len: usize) -> Result<()> {
        let values = PrimitiveArray::<f32, Global>::try_from_options_in(
            &[Some(1.0), None, Some(2.0)],
            Global,
        )?;
        let ends = RunEnds::Int32(PrimitiveArray::from_slice(ends));
        let a = RunArray::try_new_in(ends, values.into_array_ref(), Global)?;
        let (dt, ends, values, _, _) = a.into_parts();
        RunArray::try_new_with_offset(dt, ends, values, offset, len).map(|_| ())
    }

    #[test]
    fn rule_run_end_not_positive() {
        assert_eq!(ree(&[0, 6, 7], 0, 7).unwrap_err(), Error::RunEndNotPositive);
        assert_eq!(
            ree(&[-3, 6, 7], 0, 7).unwrap_err(),
            Error::RunEndNotPositive
        );
    }

    #[test]
    fn rule_run_ends_not_increasing() {
        assert_eq!(
            ree(&[4, 4, 7], 0, 7).unwrap_err(),
            Error::RunEndsNotIncreasing
        );
        assert_eq!(
            ree(&[6, 4, 7], 0, 7).unwrap_err(),
            Error::RunEndsNotIncreasing
        );
    }

    #[test]
    fn cheap_validation_reads_only_the_last_run_end() {
        let a = build_example(Global).unwrap();
        let (dt, _, values, _, _) = a.into_parts();
        let ends = RunEnds::Int32(PrimitiveArray::from_slice(&[5, 2, 7]));
        // SAFETY: deliberately invalid (decreasing run ends), checked below.
        let a = unsafe { RunArray::new_unchecked(dt, ends, values, 0, 7) };
        a.validate(ValidationLevel::Cheap).unwrap();
        let e = a.validate(ValidationLevel::Full).unwrap_err();
        assert_eq!(e, Error::RunEndsNotIncreasing);
    }

    #[test]
    fn rule_run_ends_too_short() {
        ree(&[4, 6, 7], 2, 5).unwrap();
        assert_eq!(ree(&[4, 6, 7], 0, 8).unwrap_err(), Error::RunEndsTooShort);
        assert_eq!(ree(&[4, 6, 7], 3, 5).unwrap_err(), Error::RunEndsTooShort);
    }

    #[test]
    fn rule_run_ends_invalid_child() {
        // Two run ends for three values.
        assert_eq!(ree(&[4, 7], 0, 7).unwrap_err(), Error::RunEndsInvalidChild);
        // A null run end.
        let ends =
            PrimitiveArray::<i32, Global>::try_from_options_in(&[Some(4), None, Some(7)], Global)
                .unwrap();
        let values = PrimitiveArray::<f32, Global>::from_slice(&[1.0, 2.0, 3.0]);
        let r = RunArray::try_new_in(RunEnds::Int32(ends), values.into_array_ref(), Global);
        assert_eq!(r.unwrap_err(), Error::RunEndsInvalidChild);
    }

    #[test]
    fn rule_run_end_type() {
        // A run-ends field of type Int8 is not a valid REE type.
        let values = PrimitiveArray::<f32, Global>::from_slice(&[1.0]);
        let ends_field = Field::new("run_ends", DataType::Int8, false);
        let values_field = Field::new("values", DataType::Float32, true);
        let dt = DataType::RunEndEncoded(
            FieldRef::borrowed(&ends_field),
            FieldRef::borrowed(&values_field),
        );
        let ends = RunEnds::Int16(PrimitiveArray::from_slice(&[1]));
        let r = RunArray::try_new(
            dt,
            ends,
            SharedBox::try_new_in(values.into_array_ref(), Global).unwrap(),
        );
        assert_eq!(r.unwrap_err(), Error::InvalidDataType);
        // An Int8 array cannot be run ends.
        let int8 = PrimitiveArray::<i8, Global>::from_slice(&[1]).into_array_ref();
        assert_eq!(RunEnds::try_from(int8).unwrap_err(), Error::InvalidDataType);
    }

    #[test]
    fn rule_child_types_match_fields() {
        let values = PrimitiveArray::<f32, Global>::from_slice(&[1.0]);
        let ends_field = Field::new("run_ends", DataType::Int32, false);
        let values_field = Field::new("values", DataType::Float64, true);
        let dt = DataType::RunEndEncoded(
            FieldRef::borrowed(&ends_field),
            FieldRef::borrowed(&values_field),
        );
        let ends = RunEnds::Int32(PrimitiveArray::from_slice(&[1]));
        let r = RunArray::try_new(
            dt,
            ends,
            SharedBox::try_new_in(values.into_array_ref(), Global).unwrap(),
        );
        assert_eq!(r.unwrap_err(), Error::TypeMismatch);
    }
}
