//! Decoding a record batch body into arrays, checking everything.
//!
//! The nodes and buffers of a `RecordBatch` header are consumed in the
//! depth-first order of the schema ("Buffer Layout"). Every count, length and
//! extent is checked against the header and the body before use; arrays are
//! built with their validated constructors. Buffers are borrowed from the
//! body when they are aligned and in native byte order, and copied (aligned,
//! byte-swapped) through `A` otherwise.

use allocator_api2::alloc::Allocator;

#[cfg(feature = "dictionary")]
use super::dictionary::DictionaryStore;
#[cfg(feature = "union")]
use crate::array::UnionArray;
use crate::array::{
    Array, ArrayRef, BinaryArray, BooleanArray, FixedSizeBinaryArray, LargeBinaryArray,
    LargeStringArray, NullArray, PrimitiveArray, PrimitiveType, StringArray, ValidationLevel,
};
#[cfg(feature = "views")]
use crate::array::{BinaryViewArray, StringViewArray};
#[cfg(feature = "dictionary")]
use crate::array::{DictionaryArray, DictionaryKeys};
#[cfg(feature = "nested")]
use crate::array::{
    FixedSizeListArray, LargeListArray, LargeListViewArray, ListArray, ListViewArray, MapArray,
    StructArray,
};
#[cfg(feature = "run-end")]
use crate::array::{RunArray, RunEnds};
#[cfg(feature = "nested")]
use crate::buffer::OffsetBuffer;
#[cfg(any(feature = "dictionary", feature = "nested", feature = "run-end"))]
use crate::buffer::SharedBox;
#[cfg(any(feature = "nested", feature = "union", feature = "views"))]
use crate::buffer::SharedSlice;
use crate::buffer::{BooleanBuffer, Buffer, MutableBuffer, NullBuffer, ScalarBuffer};
#[cfg(feature = "dictionary")]
use crate::datatypes::IndexType;
#[cfg(feature = "union")]
use crate::datatypes::UnionMode;
use crate::datatypes::{DataType, Field, IntervalUnit};
use crate::error::{Error, ErrorKind, Result};
use crate::ipc::message::{MetadataVersion, RecordBatchView};
use crate::native::{f16, i256, IntervalDayTime, IntervalMonthDayNano, NativeType};

/// Builds an array with `new_unchecked` followed by `validate(level)`: at
/// `ValidationLevel::Full` (the default) this is exactly what the validated
/// constructor (`$checked`, named for the reader) does; a lower level is
/// reached only through the `unsafe` `IpcReadOptions::with_validation`.
/// One code path per layout instead of two keeps firmware readers small.
macro_rules! make {
    ($self:ident, $t:ty, $checked:ident ( $($arg:expr),* $(,)? )) => {{
        // SAFETY: `try_new` of every layout is `new_unchecked` +
        // `validate(Full)`, so at Full nothing is skipped and the array is
        // not used before `validate` returns `Ok`; below Full, the caller of
        // `IpcReadOptions::with_validation` vouched for the data and
        // `validate` still checks the O(1) invariants at the chosen level.
        let a = unsafe { <$t>::new_unchecked($($arg),*) };
        a.validate($self.level)?;
        a
    }};
}

/// Decodes the arrays of one record (or dictionary) batch.
pub(crate) struct BodyDecoder<'m, 'b, 'd, A: Allocator + Clone> {
    pub(crate) header: RecordBatchView<'m>,
    pub(crate) body: Buffer<'b, A>,
    /// Unions of V4 bodies have a validity buffer.
    #[cfg_attr(not(feature = "union"), allow(dead_code))]
    pub(crate) version: MetadataVersion,
    /// The body was written on a machine of the other endianness.
    pub(crate) swap: bool,
    pub(crate) alloc: A,
    #[cfg(feature = "dictionary")]
    pub(crate) dictionaries: &'d DictionaryStore<'b, A>,
    #[cfg(feature = "compression")]
    pub(crate) decompressor: Option<&'d mut dyn crate::ipc::compression::Codec>,
    /// The body's buffers, decompressed beforehand through the codec
    /// set's executor (`super::parallel`); taken by index.
    #[cfg(feature = "compression")]
    pub(crate) ready: Option<super::parallel::Ready<'b, A>>,
    /// Largest decompressed buffer, in bytes.
    #[cfg_attr(not(feature = "compression"), allow(dead_code))]
    pub(crate) max_buffer_size: usize,
    /// What `'d` borrows (dictionaries, the codec) may be built out.
    pub(crate) _d: core::marker::PhantomData<&'d ()>,
    /// Validation of each array (`Full` unless the caller lowered it, which
    /// is `unsafe`, see `IpcReadOptions::with_validation`).
    pub(crate) level: ValidationLevel,
    pub(crate) node: usize,
    pub(crate) buffer: usize,
    #[cfg_attr(not(feature = "views"), allow(dead_code))]
    pub(crate) variadic: usize,
}

impl<'m, 'b, 'd, A: Allocator + Clone> BodyDecoder<'m, 'b, 'd, A> {
    fn next_node(&mut self) -> Result<(usize, usize)> {
        if self.node >= self.header.num_nodes() {
            return Err(Error::NodeCountMismatch);
        }
        let n = self.header.node(self.node)?;
        self.node += 1;
        let len = usize::try_from(n.length).map_err(|_| Error::InvalidFieldNode)?;
        let nulls = usize::try_from(n.null_count).map_err(|_| Error::InvalidFieldNode)?;
        if nulls > len {
            return Err(Error::InvalidFieldNode);
        }
        Ok((len, nulls))
    }

    /// The next body buffer; an error names its index in the body.
    fn next_buffer(&mut self) -> Result<Buffer<'b, A>> {
        let index = self.buffer;
        self.next_buffer_at().map_err(|e| e.with_buffer(index))
    }

    fn next_buffer_at(&mut self) -> Result<Buffer<'b, A>> {
        if self.buffer >= self.header.num_buffers() {
            return Err(Error::BufferCountMismatch);
        }
        #[cfg(feature = "compression")]
        if let Some(b) = self
            .ready
            .as_mut()
            .and_then(|r| r.as_mut_slice().get_mut(self.buffer))
            .and_then(Option::take)
        {
            self.buffer += 1;
            return Ok(b);
        }
        let spec = self.header.buffer(self.buffer)?;
        self.buffer += 1;
        let off = usize::try_from(spec.offset).map_err(|_| Error::BufferOutOfBody)?;
        let len = usize::try_from(spec.length).map_err(|_| Error::BufferOutOfBody)?;
        let end = off.checked_add(len).ok_or(Error::BufferOutOfBody)?;
        if end > self.body.len() {
            return Err(Error::BufferOutOfBody);
        }
        // "Buffer Alignment and Padding": every body buffer starts on an
        // 8-byte boundary of the body (as Arrow C++ requires; every golden
        // file's writer, compressed bodies included, keeps to it).
        if off % 8 != 0 {
            return Err(Error::UnalignedBodyBuffer);
        }
        let raw = self.body.slice(off, len)?;
        #[cfg(feature = "compression")]
        if let Some(d) = self.decompressor.as_deref_mut() {
            return crate::ipc::compression::decompress_buffer(
                d,
                &raw,
                self.max_buffer_size,
                self.alloc.clone(),
            );
        }
        Ok(raw)
    }

    /// The validity bitmap of `len` slots (`None` when there are no nulls).
    fn validity(&mut self, len: usize, null_count: usize) -> Result<Option<NullBuffer<'b, A>>> {
        let buf = self.next_buffer()?;
        if null_count == 0 {
            return Ok(None);
        }
        let bits = BooleanBuffer::try_new(buf, 0, len).map_err(|_| Error::ValidityTooSmall)?;
        if self.level >= ValidationLevel::Full {
            Ok(Some(NullBuffer::try_new_with_count(bits, null_count)?))
        } else {
            // SAFETY: see `make!`: the caller vouched for the null counts.
            Ok(Some(unsafe { NullBuffer::new_unchecked(bits, null_count) }))
        }
    }

    /// The first `n` values of `buf` as `T`s, borrowed when possible.
    fn scalar<T: NativeType>(
        &self,
        buf: Buffer<'b, A>,
        n: usize,
    ) -> Result<ScalarBuffer<'b, T, A>> {
        /// Byte-swaps one value of `T` in place.
        fn swap_one<T: NativeType>(chunk: &mut [u8]) {
            let v: T = bytemuck::pod_read_unaligned(chunk);
            chunk.copy_from_slice(bytemuck::bytes_of(&v.swap_bytes()));
        }
        let (size, align) = (core::mem::size_of::<T>(), core::mem::align_of::<T>());
        ScalarBuffer::try_from_buffer(self.values(buf, n, size, align, swap_one::<T>)?)
    }

    /// The first `n` values of `size` bytes of `buf`, in native byte order
    /// (each swapped by `swap` when the body is not) and aligned to `align`:
    /// borrowed when possible, copied through `A` otherwise. Not generic
    /// over the value type, so that every primitive type shares it.
    fn values(
        &self,
        buf: Buffer<'b, A>,
        n: usize,
        size: usize,
        align: usize,
        swap: fn(&mut [u8]),
    ) -> Result<Buffer<'b, A>> {
        let bytes = n.checked_mul(size).ok_or(Error::BufferTooSmall)?;
        if bytes > buf.len() {
            return Err(Error::BufferTooSmall);
        }
        let buf = buf.slice(0, bytes)?;
        let swap_needed = self.swap && size > 1;
        if !swap_needed && (buf.is_empty() || buf.as_ptr() as usize % align == 0) {
            return Ok(buf);
        }
        // MutableBuffer memory is 64-byte aligned.
        let mut m = MutableBuffer::try_with_capacity_in(bytes, self.alloc.clone())?;
        m.try_extend_from_slice(buf.as_slice())?;
        if swap_needed {
            m.as_slice_mut().chunks_exact_mut(size).for_each(swap);
        }
        Ok(m.into_buffer())
    }

    /// `len + 1` offsets; an empty buffer is accepted for an empty array.
    fn offsets<T: NativeType>(&mut self, len: usize) -> Result<ScalarBuffer<'b, T, A>> {
        let buf = self.next_buffer()?;
        if len == 0 && buf.is_empty() {
            return ScalarBuffer::try_copy_in(&[T::default()], self.alloc.clone());
        }
        self.scalar(buf, len.checked_add(1).ok_or(Error::OffsetsLength)?)
            .map_err(|e| {
                if e == Error::BufferTooSmall {
                    Error::OffsetsLength
                } else {
                    e
                }
            })
    }

    /// Offsets of a list or map: checked for monotonicity at Full only.
    #[cfg(feature = "nested")]
    fn offset_buffer<O: crate::buffer::OffsetSize>(
        &mut self,
        len: usize,
    ) -> Result<OffsetBuffer<'b, O, A>> {
        let o = self.offsets::<O>(len)?;
        if self.level >= ValidationLevel::Full {
            OffsetBuffer::try_new(o)
        } else {
            // SAFETY: see `make!`; the array's `validate` still checks the
            // first and last offsets against the child.
            Ok(unsafe { OffsetBuffer::new_unchecked(o) })
        }
    }

    #[cfg(any(feature = "dictionary", feature = "nested", feature = "run-end"))]
    fn boxed(&self, a: ArrayRef<'b, A>) -> Result<SharedBox<'b, ArrayRef<'b, A>, A>> {
        SharedBox::try_new_in(a, self.alloc.clone())
    }

    fn primitive<T: PrimitiveType>(
        &mut self,
        dt: &DataType<'b, A>,
        len: usize,
        null_count: usize,
    ) -> Result<PrimitiveArray<'b, T, A>> {
        let nulls = self.validity(len, null_count)?;
        let buf = self.next_buffer()?;
        let values = self.scalar::<T>(buf, len)?;
        Ok(make!(
            self,
            PrimitiveArray<'b, T, A>,
            try_new(dt.clone(), values, nulls)
        ))
    }

    /// Decodes the array of `field` (and its children). An error of a rule
    /// about one buffer of the node (validity, offsets, values, views,
    /// UTF-8 data) names that buffer's index in the body, and an error of a
    /// child names the child's position in the field path.
    pub(crate) fn array(&mut self, field: &Field<'b, A>) -> Result<ArrayRef<'b, A>> {
        let first = self.buffer;
        self.node_array(field).map_err(|e| {
            let utf8_data = !matches!(field.data_type(), DataType::Utf8View | DataType::BinaryView);
            match buffer_of(e.kind(), utf8_data) {
                Some(k) => e.with_buffer(first.saturating_add(k)),
                None => e,
            }
        })
    }

    /// The array of child `index` of a nested field.
    #[cfg(any(feature = "nested", feature = "union", feature = "run-end"))]
    fn child(&mut self, field: &Field<'b, A>, index: usize) -> Result<ArrayRef<'b, A>> {
        self.array(field).map_err(|e| e.in_child(index))
    }

    fn node_array(&mut self, field: &Field<'b, A>) -> Result<ArrayRef<'b, A>> {
        let dt = field.data_type();
        let (len, nc) = self.next_node()?;
        use DataType::*;
        Ok(match dt {
            Null => NullArray::new(len).into_array_ref(),
            Boolean => {
                let nulls = self.validity(len, nc)?;
                let bits = BooleanBuffer::try_new(self.next_buffer()?, 0, len)?;
                make!(self, BooleanArray<'b, A>, try_new(bits, nulls)).into_array_ref()
            }
            Int8 => self.primitive::<i8>(dt, len, nc)?.into_array_ref(),
            Int16 => self.primitive::<i16>(dt, len, nc)?.into_array_ref(),
            Int32 | Date32 | Time32(_) | Decimal32(..) | Interval(IntervalUnit::YearMonth) => {
                self.primitive::<i32>(dt, len, nc)?.into_array_ref()
            }
            Int64 | Date64 | Time64(_) | Timestamp(..) | Duration(_) | Decimal64(..) => {
                self.primitive::<i64>(dt, len, nc)?.into_array_ref()
            }
            UInt8 => self.primitive::<u8>(dt, len, nc)?.into_array_ref(),
            UInt16 => self.primitive::<u16>(dt, len, nc)?.into_array_ref(),
            UInt32 => self.primitive::<u32>(dt, len, nc)?.into_array_ref(),
            UInt64 => self.primitive::<u64>(dt, len, nc)?.into_array_ref(),
            Float16 => self.primitive::<f16>(dt, len, nc)?.into_array_ref(),
            Float32 => self.primitive::<f32>(dt, len, nc)?.into_array_ref(),
            Float64 => self.primitive::<f64>(dt, len, nc)?.into_array_ref(),
            Decimal128(..) => self.primitive::<i128>(dt, len, nc)?.into_array_ref(),
            Decimal256(..) => self.primitive::<i256>(dt, len, nc)?.into_array_ref(),
            Interval(IntervalUnit::DayTime) => self
                .primitive::<IntervalDayTime>(dt, len, nc)?
                .into_array_ref(),
            Interval(IntervalUnit::MonthDayNano) => self
                .primitive::<IntervalMonthDayNano>(dt, len, nc)?
                .into_array_ref(),
            FixedSizeBinary(w) => {
                let nulls = self.validity(len, nc)?;
                let w = usize::try_from(*w).map_err(|_| Error::InvalidDataType)?;
                let n = len.checked_mul(w).ok_or(Error::BufferTooSmall)?;
                let buf = self.next_buffer()?;
                if n > buf.len() {
                    return Err(Error::BufferTooSmall);
                }
                make!(
                    self,
                    FixedSizeBinaryArray<'b, A>,
                    try_new(dt.clone(), len, buf.slice(0, n)?, nulls)
                )
                .into_array_ref()
            }
            Binary | Utf8 => {
                let nulls = self.validity(len, nc)?;
                let offsets = self.offsets::<i32>(len)?;
                let values = self.next_buffer()?;
                if matches!(dt, Binary) {
                    make!(self, BinaryArray<'b, A>, try_new(offsets, values, nulls))
                        .into_array_ref()
                } else {
                    make!(self, StringArray<'b, A>, try_new(offsets, values, nulls))
                        .into_array_ref()
                }
            }
            LargeBinary | LargeUtf8 => {
                let nulls = self.validity(len, nc)?;
                let offsets = self.offsets::<i64>(len)?;
                let values = self.next_buffer()?;
                if matches!(dt, LargeBinary) {
                    make!(
                        self,
                        LargeBinaryArray<'b, A>,
                        try_new(offsets, values, nulls)
                    )
                    .into_array_ref()
                } else {
                    make!(
                        self,
                        LargeStringArray<'b, A>,
                        try_new(offsets, values, nulls)
                    )
                    .into_array_ref()
                }
            }
            #[cfg(feature = "views")]
            BinaryView | Utf8View => {
                let nulls = self.validity(len, nc)?;
                let views = self.views(len)?;
                if self.variadic >= self.header.num_variadic_counts() {
                    return Err(Error::BufferCountMismatch);
                }
                let count = self.header.variadic_count(self.variadic)?;
                self.variadic += 1;
                let count = usize::try_from(count).map_err(|_| Error::BufferCountMismatch)?;
                if count > self.header.num_buffers().saturating_sub(self.buffer) {
                    return Err(Error::BufferCountMismatch);
                }
                let alloc = self.alloc.clone();
                let data = SharedSlice::try_from_fn_in(count, alloc, |_| self.next_buffer())?;
                if matches!(dt, BinaryView) {
                    make!(self, BinaryViewArray<'b, A>, try_new(views, data, nulls))
                        .into_array_ref()
                } else {
                    make!(self, StringViewArray<'b, A>, try_new(views, data, nulls))
                        .into_array_ref()
                }
            }
            #[cfg(feature = "nested")]
            List(f) => {
                let nulls = self.validity(len, nc)?;
                let offsets = self.offset_buffer::<i32>(len)?;
                let child = self.child(f, 0)?;
                let values = self.boxed(child)?;
                make!(
                    self,
                    ListArray<'b, A>,
                    try_new(f.clone(), offsets, values, nulls)
                )
                .into_array_ref()
            }
            #[cfg(feature = "nested")]
            LargeList(f) => {
                let nulls = self.validity(len, nc)?;
                let offsets = self.offset_buffer::<i64>(len)?;
                let child = self.child(f, 0)?;
                let values = self.boxed(child)?;
                make!(
                    self,
                    LargeListArray<'b, A>,
                    try_new(f.clone(), offsets, values, nulls)
                )
                .into_array_ref()
            }
            #[cfg(feature = "nested")]
            ListView(f) => {
                let nulls = self.validity(len, nc)?;
                let b = self.next_buffer()?;
                let offsets = self.scalar::<i32>(b, len)?;
                let b = self.next_buffer()?;
                let sizes = self.scalar::<i32>(b, len)?;
                let child = self.child(f, 0)?;
                let values = self.boxed(child)?;
                make!(
                    self,
                    ListViewArray<'b, A>,
                    try_new(f.clone(), offsets, sizes, values, nulls)
                )
                .into_array_ref()
            }
            #[cfg(feature = "nested")]
            LargeListView(f) => {
                let nulls = self.validity(len, nc)?;
                let b = self.next_buffer()?;
                let offsets = self.scalar::<i64>(b, len)?;
                let b = self.next_buffer()?;
                let sizes = self.scalar::<i64>(b, len)?;
                let child = self.child(f, 0)?;
                let values = self.boxed(child)?;
                make!(
                    self,
                    LargeListViewArray<'b, A>,
                    try_new(f.clone(), offsets, sizes, values, nulls)
                )
                .into_array_ref()
            }
            #[cfg(feature = "nested")]
            FixedSizeList(f, size) => {
                let nulls = self.validity(len, nc)?;
                let child = self.child(f, 0)?;
                let values = self.boxed(child)?;
                make!(
                    self,
                    FixedSizeListArray<'b, A>,
                    try_new(f.clone(), *size, len, values, nulls)
                )
                .into_array_ref()
            }
            #[cfg(feature = "nested")]
            Struct(fields) => {
                let nulls = self.validity(len, nc)?;
                let alloc = self.alloc.clone();
                let children =
                    SharedSlice::try_from_fn_in(fields.len(), alloc, |i| match fields.get(i) {
                        Some(f) => self.child(f, i),
                        None => Err(Error::InvalidChildCount),
                    })?;
                make!(
                    self,
                    StructArray<'b, A>,
                    try_new_with_len(fields.clone(), children, len, nulls)
                )
                .into_array_ref()
            }
            #[cfg(feature = "nested")]
            Map(f, sorted) => {
                let nulls = self.validity(len, nc)?;
                let offsets = self.offset_buffer::<i32>(len)?;
                let entries = SharedBox::try_new_in(self.child(f, 0)?, self.alloc.clone())?;
                make!(
                    self,
                    MapArray<'b, A>,
                    try_new(f.clone(), offsets, entries, nulls, *sorted)
                )
                .into_array_ref()
            }
            #[cfg(feature = "union")]
            Union(fields, mode) => {
                if self.version < MetadataVersion::V5 {
                    // Before V5 unions had a validity bitmap; it is ignored.
                    self.next_buffer()?;
                }
                let b = self.next_buffer()?;
                let type_ids = self.scalar::<i8>(b, len)?;
                let offsets = match mode {
                    UnionMode::Dense => {
                        let b = self.next_buffer()?;
                        Some(self.scalar::<i32>(b, len)?)
                    }
                    UnionMode::Sparse => None,
                };
                let alloc = self.alloc.clone();
                let fs = fields.fields();
                let children = SharedSlice::try_from_fn_in(fs.len(), alloc, |i| match fs.get(i) {
                    Some(f) => self.child(f, i),
                    None => Err(Error::InvalidChildCount),
                })?;
                make!(
                    self,
                    UnionArray<'b, A>,
                    try_new(fields.clone(), *mode, type_ids, offsets, children)
                )
                .into_array_ref()
            }
            #[cfg(feature = "dictionary")]
            Dictionary(index, value_type, _) => {
                let nulls = self.validity(len, nc)?;
                let b = self.next_buffer()?;
                let keys = self.keys(*index, b, len, nulls)?;
                let id = field.dict_id().ok_or(Error::InvalidDataType)?;
                let values = match self.dictionaries.get(id) {
                    Some(v) => v.clone(),
                    // A dictionary batch may follow the first record batch when
                    // every index so far is null.
                    None if nc == len => {
                        self.boxed(super::empty_values(value_type, &self.alloc)?)?
                    }
                    None => return Err(Error::DictionaryNotFound),
                };
                make!(
                    self,
                    DictionaryArray<'b, A>,
                    try_new(dt.clone(), keys, values)
                )
                .into_array_ref()
            }
            #[cfg(feature = "run-end")]
            RunEndEncoded(rf, vf) => {
                if nc != 0 {
                    return Err(Error::InvalidFieldNode);
                }
                let run_ends = RunEnds::try_from(self.child(rf, 0)?).map_err(|e| e.in_child(0))?;
                let values = self.child(vf, 1)?;
                let values = self.boxed(values)?;
                make!(
                    self,
                    RunArray<'b, A>,
                    try_new_with_offset(dt.clone(), run_ends, values, 0, len)
                )
                .into_array_ref()
            }
            // A family built out (`crate::ipc::check_layouts` refuses its
            // schemas before any batch).
            #[allow(unreachable_patterns)]
            _ => return Err(Error::UnsupportedType),
        })
    }

    #[cfg(feature = "dictionary")]
    fn keys(
        &self,
        index: IndexType,
        buf: Buffer<'b, A>,
        len: usize,
        nulls: Option<NullBuffer<'b, A>>,
    ) -> Result<DictionaryKeys<'b, A>> {
        macro_rules! keys {
            ($t:ty, $v:ident, $dt:ident) => {
                DictionaryKeys::$v(PrimitiveArray::try_new(
                    DataType::$dt,
                    self.scalar::<$t>(buf, len)?,
                    nulls,
                )?)
            };
        }
        Ok(match index {
            IndexType::Int8 => keys!(i8, Int8, Int8),
            IndexType::Int16 => keys!(i16, Int16, Int16),
            IndexType::Int32 => keys!(i32, Int32, Int32),
            IndexType::Int64 => keys!(i64, Int64, Int64),
            IndexType::UInt8 => keys!(u8, UInt8, UInt8),
            IndexType::UInt16 => keys!(u16, UInt16, UInt16),
            IndexType::UInt32 => keys!(u32, UInt32, UInt32),
            IndexType::UInt64 => keys!(u64, UInt64, UInt64),
        })
    }

    /// The views buffer of `len` views, byte-swapped when needed.
    #[cfg(feature = "views")]
    fn views(&mut self, len: usize) -> Result<Buffer<'b, A>> {
        let buf = self.next_buffer()?;
        let n = len.checked_mul(16).ok_or(Error::BufferTooSmall)?;
        if n > buf.len() {
            return Err(Error::BufferTooSmall);
        }
        let buf = buf.slice(0, n)?;
        if !self.swap {
            return Ok(buf);
        }
        // The length, buffer index and offset are integers; inline data and
        // the prefix are bytes.
        let mut m = MutableBuffer::try_with_capacity_in(n, self.alloc.clone())?;
        m.try_extend_from_slice(buf.as_slice())?;
        for v in m.as_slice_mut().chunks_exact_mut(16) {
            v[0..4].reverse();
            let l = i32::from_ne_bytes([v[0], v[1], v[2], v[3]]);
            if l > 12 {
                v[8..12].reverse();
                v[12..16].reverse();
            }
        }
        Ok(m.into_buffer())
    }

    /// Checks that every node and buffer of the header was consumed.
    pub(crate) fn finish(&self) -> Result<()> {
        if self.node != self.header.num_nodes() {
            return Err(Error::NodeCountMismatch);
        }
        if self.buffer != self.header.num_buffers() {
            return Err(Error::BufferCountMismatch);
        }
        Ok(())
    }
}

/// The position, among a node's buffers, of the buffer whose rule an error
/// of `kind` reports (validity first, then offsets, views, keys or values,
/// then the data of a byte layout), when the kind tells; `utf8_data` is
/// false for the view layouts, whose data buffers are variadic.
fn buffer_of(kind: ErrorKind, utf8_data: bool) -> Option<usize> {
    use ErrorKind::*;
    match kind {
        ValidityTooSmall | NullCountMismatch => Some(0),
        OffsetsLength
        | OffsetsNotMonotonic
        | OffsetOutOfBounds
        | ViewLengthNegative
        | ViewInlinePaddingNotZero
        | ViewPrefixMismatch
        | ViewBufferIndexOutOfBounds
        | ViewOffsetOutOfBounds
        | DecimalOutOfPrecision
        | Date64NotWholeDays
        | TimeOutOfRange
        | DictionaryKeyOutOfBounds => Some(1),
        InvalidUtf8 if utf8_data => Some(2),
        _ => None,
    }
}
