//! [`PrimitiveRunBuilder`]: run-end encodes primitive values as they are appended.

use allocator_api2::alloc::Allocator;

use super::{RunArray, RunEndIndexType};
use crate::array::primitive::PrimitiveType;
use crate::array::{Array, PrimitiveArray, PrimitiveBuilder};
use crate::buffer::{MutableBuffer, ScalarBuffer};
use crate::datatypes::DataType;
use crate::error::{Error, Result};

/// Builds a run-end encoded array of primitive values with run ends of type
/// `R`, merging equal consecutive values (bitwise equal, or both null) into
/// one run.
///
/// ```
/// use alkaid::array::{Array, PrimitiveRunBuilder, RunEnds};
/// use alkaid::datatypes::{DataType, TimeUnit};
///
/// let mut b = PrimitiveRunBuilder::<i16, i64>::new()
///     .with_data_type(DataType::Duration(TimeUnit::Second))?;
/// b.try_append_run(Some(60), 1000)?;
/// b.try_append_value(60)?; // extends the first run
/// b.try_append_null()?;
/// b.try_append_option(Some(30))?;
/// assert_eq!((b.len(), b.num_runs()), (1003, 3));
/// let r = b.finish()?;
/// assert!(matches!(r.run_ends(), RunEnds::Int16(_)));
/// let ends: Vec<_> = (0..3).filter_map(|j| r.run_ends().get(j)).collect();
/// assert_eq!(ends, [1001, 1002, 1003]); // widened to i64
/// assert_eq!(r.values().data_type(), &DataType::Duration(TimeUnit::Second));
/// # Ok::<(), alkaid::Error>(())
/// ```
#[derive(Debug)]
pub struct PrimitiveRunBuilder<
    'a,
    R: RunEndIndexType,
    V: PrimitiveType,
    #[cfg(feature = "alloc")] A: Allocator + Clone = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator + Clone,
> {
    run_ends: MutableBuffer<A>,
    values: PrimitiveBuilder<'a, V, A>,
    /// The value of the open (last) run, if any.
    last: Option<Option<V>>,
    len: usize,
    alloc: A,
    _r: core::marker::PhantomData<R>,
}

impl<'a, R: RunEndIndexType, V: PrimitiveType, A: Allocator + Clone>
    PrimitiveRunBuilder<'a, R, V, A>
{
    /// An empty builder whose values have `V`'s default type; allocates nothing yet.
    pub fn new_in(alloc: A) -> Self {
        PrimitiveRunBuilder {
            run_ends: MutableBuffer::new_in(alloc.clone()),
            values: PrimitiveBuilder::new_in(alloc.clone()),
            last: None,
            len: 0,
            alloc,
            _r: core::marker::PhantomData,
        }
    }

    /// Sets the logical type of the values (e.g. Timestamp for `i64`).
    ///
    /// # Errors
    /// [`Error::TypeMismatch`] when `V` does not store `data_type`;
    /// [`Error::InvalidDataType`] for bad type parameters.
    pub fn with_data_type(mut self, data_type: DataType<'a, A>) -> Result<Self> {
        self.values = self.values.with_data_type(data_type)?;
        Ok(self)
    }

    /// Number of logical slots appended.
    pub fn len(&self) -> usize {
        self.len
    }

    /// `true` when nothing was appended.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Number of runs so far.
    pub fn num_runs(&self) -> usize {
        self.values.len()
    }

    /// Appends `n` slots of `value` (`None` = null), extending the last run
    /// when it holds the same value.
    ///
    /// # Errors
    /// [`Error::CapacityOverflow`] when the length would not fit in `R`;
    /// [`Error::AllocationFailed`].
    pub fn try_append_run(&mut self, value: Option<V>, n: usize) -> Result<()> {
        if n == 0 {
            return Ok(());
        }
        let len = self.len.checked_add(n).ok_or(Error::CapacityOverflow)?;
        let end = R::from_usize(len).ok_or(Error::CapacityOverflow)?;
        let same = match (&self.last, &value) {
            (Some(Some(a)), Some(b)) => a.bits_eq(b),
            (Some(None), None) => true,
            _ => false,
        };
        if same {
            let last = self
                .run_ends
                .typed_mut::<R>()?
                .last_mut()
                .ok_or(Error::InvalidBuilderState)?;
            *last = end;
        } else {
            self.run_ends.try_reserve(core::mem::size_of::<R>())?;
            self.values.try_append_option(value)?;
            // Fits in the capacity reserved above.
            self.run_ends.try_push(end)?;
            self.last = Some(value);
        }
        self.len = len;
        Ok(())
    }

    /// Appends one slot (`None` = null).
    ///
    /// # Errors
    /// As [`Self::try_append_run`].
    pub fn try_append_option(&mut self, value: Option<V>) -> Result<()> {
        self.try_append_run(value, 1)
    }

    /// Appends one valid slot.
    ///
    /// # Errors
    /// As [`Self::try_append_run`].
    pub fn try_append_value(&mut self, value: V) -> Result<()> {
        self.try_append_run(Some(value), 1)
    }

    /// Appends one null slot.
    ///
    /// # Errors
    /// As [`Self::try_append_run`].
    pub fn try_append_null(&mut self) -> Result<()> {
        self.try_append_run(None, 1)
    }

    /// Freezes the runs (no copy) into an array typed
    /// `RunEndEncoded(run_ends: R, values: V)`.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`] for the type's fields and the values box.
    pub fn finish(self) -> Result<RunArray<'a, A>> {
        let ends = ScalarBuffer::<R, A>::try_from_buffer(self.run_ends.into_buffer())?;
        let ends = PrimitiveArray::try_new(R::default_data_type(), ends, None)?;
        let values = self.values.finish().into_array_ref();
        RunArray::try_new_in(R::into_run_ends(ends), values, self.alloc)
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::build_example;
    use super::super::RunEnds;
    use super::*;
    use crate::test_support::{check_every_failure, TestAlloc};
    use crate::Global;

    #[test]
    fn builder_merges_runs_and_distinguishes_bits() {
        let mut b = PrimitiveRunBuilder::<i16, f64, Global>::new_in(Global);
        b.try_append_run(Some(0.0), 2).unwrap();
        b.try_append_value(-0.0).unwrap(); // different bits: new run
        b.try_append_run(Some(f64::NAN), 2).unwrap();
        b.try_append_value(f64::NAN).unwrap(); // same bits: merged
        b.try_append_null().unwrap();
        b.try_append_run(None, 0).unwrap();
        b.try_append_null().unwrap();
        let a = b.finish().unwrap();
        let RunEnds::Int16(ends) = a.run_ends() else {
            panic!()
        };
        assert_eq!(ends.values(), &[2, 3, 6, 8]);
        assert_eq!(a.len(), 8);
    }

    #[test]
    fn builder_run_end_overflow() {
        let mut b = PrimitiveRunBuilder::<i16, u8, Global>::new_in(Global);
        b.try_append_run(Some(1), i16::MAX as usize).unwrap();
        assert_eq!(b.try_append_value(1).unwrap_err(), Error::CapacityOverflow);
        assert_eq!(b.len(), i16::MAX as usize);
    }

    #[test]
    fn allocation_failures_are_errors() {
        let n = check_every_failure(|a: TestAlloc| {
            let r = build_example(a)?;
            assert_eq!(r.len(), 7);
            Ok(())
        });
        assert!(n >= 4);
    }
}
