//! STUB

use core::marker::PhantomData;

use allocator_api2::alloc::Allocator;
use derive_where::derive_where;

use super::{check_slice, Array, ArrayRef, ValidationLevel};
use crate::buffer::NullBuffer;
use crate::datatypes::DataType;
use crate::error::Result;

/// BinaryView / Utf8View marker.
pub trait ByteViewType: 'static + Send + Sync {
    /// Wrap.
    fn into_array_ref<'a, A: Allocator>(a: GenericByteViewArray<'a, Self, A>) -> ArrayRef<'a, A>
    where
        Self: Sized;
}
macro_rules! bt {
    ($n:ident, $v:ident) => {
        /// marker
        #[derive(Debug)]
        pub struct $n;
        impl ByteViewType for $n {
            fn into_array_ref<'a, A: Allocator>(
                a: GenericByteViewArray<'a, Self, A>,
            ) -> ArrayRef<'a, A> {
                ArrayRef::$v(a)
            }
        }
    };
}
bt!(BinaryViewType, BinaryView);
bt!(StringViewType, Utf8View);
/// BinaryView.
pub type BinaryViewArray<'a, A> = GenericByteViewArray<'a, BinaryViewType, A>;
/// Utf8View.
pub type StringViewArray<'a, A> = GenericByteViewArray<'a, StringViewType, A>;
/// A 16-byte view (stub).
pub type ByteView = u128;
/// Builder stub.
#[derive(Debug)]
pub struct GenericByteViewBuilder<T: ByteViewType, A: Allocator>(PhantomData<(T, A)>);

/// Binary view (STUB: to be implemented).
#[derive_where(Clone, Debug)]
pub struct GenericByteViewArray<'a, T: ByteViewType, A: Allocator> {
    data_type: DataType<'a, A>,
    len: usize,
    _p: PhantomData<&'a (T,)>,
}

impl<'a, T: ByteViewType, A: Allocator> Array<'a, A> for GenericByteViewArray<'a, T, A> {
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
        T::into_array_ref(self)
    }
}
