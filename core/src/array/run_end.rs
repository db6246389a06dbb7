//! STUB

use core::marker::PhantomData;

use allocator_api2::alloc::Allocator;
use derive_where::derive_where;

use super::{check_slice, Array, ArrayRef, ValidationLevel};
use crate::buffer::NullBuffer;
use crate::datatypes::DataType;
use crate::error::Result;

/// Run-end encoded (STUB: to be implemented).
#[derive_where(Clone, Debug)]
pub struct RunArray<'a, A: Allocator> {
    data_type: DataType<'a, A>,
    len: usize,
    _p: PhantomData<&'a ((),)>,
}

impl<'a, A: Allocator> Array<'a, A> for RunArray<'a, A> {
    fn data_type(&self) -> &DataType<'a, A> {
        &self.data_type
    }
    fn len(&self) -> usize {
        self.len
    }
    fn nulls(&self) -> Option<&NullBuffer<'a, A>> {
        None
    }
    fn slice(&self, offset: usize, len: usize) -> Result<Self> {
        check_slice(offset, len, self.len)?;
        let mut s = self.clone();
        s.len = len;
        Ok(s)
    }
    fn validate(&self, _level: ValidationLevel) -> Result<()> {
        Ok(())
    }
    fn into_array_ref(self) -> ArrayRef<'a, A> {
        ArrayRef::RunEndEncoded(self)
    }
}
