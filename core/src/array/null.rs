//! Null layout ("Null Layout"): no buffers; every slot is null.

use core::marker::PhantomData;

use allocator_api2::alloc::Allocator;
use derive_where::derive_where;

use super::{check_slice, Array, ArrayRef, ValidationLevel};
use crate::buffer::NullBuffer;
use crate::datatypes::DataType;
use crate::error::Result;

/// An array of `len` nulls of type [`DataType::Null`]; it owns no memory.
///
/// The "Null Layout" has no buffers: every slot is null, so its null count
/// is its length.
///
/// ```
/// use alkaid::array::{Array, NullArray};
/// use alkaid::datatypes::DataType;
///
/// let a: NullArray = NullArray::new(3);
/// assert_eq!(a.data_type(), &DataType::Null);
/// assert_eq!((a.len(), a.null_count()), (3, 3));
/// assert!(a.is_null(0) && a.nulls().is_none());
/// assert_eq!(a.slice(1, 2)?.len(), 2);
/// # Ok::<(), alkaid::Error>(())
/// ```
#[derive_where(Clone, Debug)]
pub struct NullArray<
    'a,
    #[cfg(feature = "alloc")] A: Allocator = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator,
> {
    data_type: DataType<'a, A>,
    len: usize,
    _a: PhantomData<&'a ()>,
}

impl<'a, A: Allocator> NullArray<'a, A> {
    /// `len` nulls.
    pub const fn new(len: usize) -> Self {
        NullArray {
            data_type: DataType::Null,
            len,
            _a: PhantomData,
        }
    }
}

impl<'a, A: Allocator> Array<'a, A> for NullArray<'a, A> {
    fn data_type(&self) -> &DataType<'a, A> {
        &self.data_type
    }

    fn len(&self) -> usize {
        self.len
    }

    fn nulls(&self) -> Option<&NullBuffer<'a, A>> {
        None
    }

    /// Every slot of the Null layout is null.
    fn null_count(&self) -> usize {
        self.len
    }

    fn is_valid(&self, _i: usize) -> bool {
        false
    }

    fn slice(&self, offset: usize, len: usize) -> Result<Self> {
        check_slice(offset, len, self.len)?;
        Ok(Self::new(len))
    }

    fn validate(&self, _level: ValidationLevel) -> Result<()> {
        Ok(())
    }

    fn into_array_ref(self) -> ArrayRef<'a, A> {
        ArrayRef::Null(self)
    }
}
