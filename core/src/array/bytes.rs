//! STUB

use core::marker::PhantomData;

use allocator_api2::alloc::Allocator;
use derive_where::derive_where;

use super::{check_slice, Array, ArrayRef, ValidationLevel};
use crate::buffer::NullBuffer;
use crate::datatypes::DataType;
use crate::error::Result;

use crate::buffer::OffsetSize;

/// Binary / Utf8 / LargeBinary / LargeUtf8 marker.
pub trait ByteArrayType: 'static + Send + Sync {
    /// Offset type.
    type Offset: OffsetSize;
    /// Wrap.
    fn into_array_ref<'a, A: Allocator>(a: GenericByteArray<'a, Self, A>) -> ArrayRef<'a, A>
    where
        Self: Sized;
}
macro_rules! bt {
    ($n:ident, $o:ty, $v:ident) => {
        /// marker
        #[derive(Debug)]
        pub struct $n;
        impl ByteArrayType for $n {
            type Offset = $o;
            fn into_array_ref<'a, A: Allocator>(
                a: GenericByteArray<'a, Self, A>,
            ) -> ArrayRef<'a, A> {
                ArrayRef::$v(a)
            }
        }
    };
}
bt!(BinaryType, i32, Binary);
bt!(LargeBinaryType, i64, LargeBinary);
bt!(Utf8Type, i32, Utf8);
bt!(LargeUtf8Type, i64, LargeUtf8);
/// Binary.
pub type BinaryArray<'a, A> = GenericByteArray<'a, BinaryType, A>;
/// LargeBinary.
pub type LargeBinaryArray<'a, A> = GenericByteArray<'a, LargeBinaryType, A>;
/// Utf8.
pub type StringArray<'a, A> = GenericByteArray<'a, Utf8Type, A>;
/// LargeUtf8.
pub type LargeStringArray<'a, A> = GenericByteArray<'a, LargeUtf8Type, A>;
/// Builder stub.
#[derive(Debug)]
pub struct GenericByteBuilder<T: ByteArrayType, A: Allocator>(PhantomData<(T, A)>);

/// Variable-size binary (STUB: to be implemented).
#[derive_where(Clone, Debug)]
pub struct GenericByteArray<'a, T: ByteArrayType, A: Allocator> {
    data_type: DataType<'a, A>,
    len: usize,
    _p: PhantomData<&'a (T,)>,
}

impl<'a, T: ByteArrayType, A: Allocator> Array<'a, A> for GenericByteArray<'a, T, A> {
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
