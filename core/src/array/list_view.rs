//! STUB

use core::marker::PhantomData;

use allocator_api2::alloc::Allocator;
use derive_where::derive_where;

use super::{check_slice, Array, ArrayRef, ValidationLevel};
use crate::buffer::NullBuffer;
use crate::datatypes::DataType;
use crate::error::Result;

use crate::buffer::OffsetSize;
/// List view with 32-bit offsets.
pub type ListViewArray<'a, A> = GenericListViewArray<'a, i32, A>;
/// List view with 64-bit offsets.
pub type LargeListViewArray<'a, A> = GenericListViewArray<'a, i64, A>;

/// List view (STUB: to be implemented).
#[derive_where(Clone, Debug)]
pub struct GenericListViewArray<'a, O: OffsetSize, A: Allocator> {
    data_type: DataType<'a, A>,
    len: usize,
    _p: PhantomData<&'a (O,)>,
}

impl<'a, O: OffsetSize, A: Allocator> Array<'a, A> for GenericListViewArray<'a, O, A> {
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
        if O::IS_LARGE {
            ArrayRef::LargeListView(todo_cast(self))
        } else {
            ArrayRef::ListView(todo_cast(self))
        }
    }
}

fn todo_cast<'a, O: OffsetSize, P: OffsetSize, A: Allocator>(
    a: GenericListViewArray<'a, O, A>,
) -> GenericListViewArray<'a, P, A> {
    GenericListViewArray {
        data_type: a.data_type,
        len: a.len,
        _p: PhantomData,
    }
}
