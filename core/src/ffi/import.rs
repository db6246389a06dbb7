//! Array import: an [`FFI_ArrowArray`] from another producer as an alkaid
//! array over the producer's memory ("The Arrow C data interface",
//! "Consuming").
//!
//! The struct is moved into a [`MemoryOwner`] (one small allocation through
//! `A`); every imported buffer is a view of the producer's memory kept alive
//! by that owner, so the producer's `release` runs exactly once, when the
//! last alkaid view of any of its buffers (or of its children's) is
//! dropped. Nothing is copied, except a buffer that is not aligned for its
//! element type when [`Misaligned::Copy`] is chosen (the interface only
//! promises natural alignment, and not even that from every producer).
//!
//! Every count, length and offset of the struct is checked before use, and
//! the arrays are built with their validating constructors
//! ([`crate::array::ValidationLevel::Full`]): a bad producer gets an [`Error`], never a
//! panic or a read outside what its struct declares. What cannot be checked
//! is that the pointers themselves are valid for the sizes the struct
//! declares: that is the `unsafe` contract of the import functions.

use core::mem::{align_of, size_of};

use allocator_api2::alloc::Allocator;

use super::FFI_ArrowArray;
#[cfg(feature = "union")]
use crate::array::UnionArray;
use crate::array::{
    Array, ArrayRef, BinaryArray, BooleanArray, FixedSizeBinaryArray, LargeBinaryArray,
    LargeStringArray, NullArray, PrimitiveArray, PrimitiveType, StringArray,
};
#[cfg(feature = "views")]
use crate::array::{BinaryViewArray, StringViewArray};
#[cfg(feature = "dictionary")]
use crate::array::{DictionaryArray, DictionaryKeys};
#[cfg(feature = "nested")]
use crate::array::{
    FixedSizeListArray, GenericListArray, GenericListViewArray, ListOffsetSize, MapArray,
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
use crate::buffer::{
    BooleanBuffer, Buffer, MemoryOwner, Misaligned, NullBuffer, OffsetSize, ScalarBuffer,
};
#[cfg(feature = "nested")]
use crate::datatypes::FieldRef;
#[cfg(feature = "dictionary")]
use crate::datatypes::IndexType;
#[cfg(feature = "union")]
use crate::datatypes::UnionMode;
use crate::datatypes::{DataType, Field, IntervalUnit};
use crate::error::{Error, Result};
use crate::native::{f16, i256, IntervalDayTime, IntervalMonthDayNano, NativeType};

/// Deepest nesting of children (and dictionaries) an import follows.
pub const MAX_IMPORT_DEPTH: usize = 64;

/// Most buffers one imported node may declare (views: data buffers + 3).
pub const MAX_IMPORT_BUFFERS: usize = 1 << 20;

/// The checked numbers of one struct.
struct Shape {
    length: usize,
    offset: usize,
    /// `offset + length`: the slots every buffer must cover.
    total: usize,
    /// `None` when the producer did not compute it (-1).
    null_count: Option<usize>,
    n_buffers: usize,
    n_children: usize,
}

fn shape(n: &FFI_ArrowArray) -> Result<Shape> {
    let u = |v: i64| usize::try_from(v).map_err(|_| Error::FfiNegativeCount);
    let length = u(n.length)?;
    let offset = u(n.offset)?;
    let total = length.checked_add(offset).ok_or(Error::FfiNegativeCount)?;
    let null_count = match n.null_count {
        -1 => None,
        c => Some(u(c)?),
    };
    let n_buffers = u(n.n_buffers)?;
    let n_children = u(n.n_children)?;
    if n_buffers > MAX_IMPORT_BUFFERS || n_children > MAX_IMPORT_BUFFERS {
        return Err(Error::FfiBufferCount);
    }
    if null_count.is_some_and(|c| c > length) {
        return Err(Error::FfiNegativeCount);
    }
    if n_buffers > 0 && n.buffers.is_null() || n_children > 0 && n.children.is_null() {
        return Err(Error::FfiNullBuffer);
    }
    Ok(Shape {
        length,
        offset,
        total,
        null_count,
        n_buffers,
        n_children,
    })
}

/// Imports one struct tree; see [`FFI_ArrowArray::import_with_field_in`].
struct Importer<A: Allocator + Clone + 'static> {
    owner: MemoryOwner<A>,
    alloc: A,
    misaligned: Misaligned,
}

impl<A: Allocator + Clone + Send + Sync + 'static> Importer<A> {
    /// Buffer `i` of `n`, `bytes` long, aligned to `align`.
    ///
    /// # Safety
    /// The import contract: `n.buffers[i]`, when not null, is valid for
    /// `bytes` bytes for as long as the owner lives.
    unsafe fn buffer(
        &self,
        n: &FFI_ArrowArray,
        i: usize,
        bytes: usize,
        align: usize,
    ) -> Result<Buffer<'static, A>> {
        // SAFETY: the caller's contract.
        unsafe { self.buffer_at(n, i, bytes, align) }.map_err(|e| e.with_buffer(i))
    }

    /// [`Self::buffer`] without the buffer index in its errors.
    ///
    /// # Safety
    /// As [`Self::buffer`].
    unsafe fn buffer_at(
        &self,
        n: &FFI_ArrowArray,
        i: usize,
        bytes: usize,
        align: usize,
    ) -> Result<Buffer<'static, A>> {
        if i >= usize::try_from(n.n_buffers).unwrap_or(0) {
            return Err(Error::FfiBufferCount);
        }
        // SAFETY: `shape` checked that `buffers` is non-null with
        // `n_buffers > i` entries (the contract makes them readable).
        let p = unsafe { *n.buffers.add(i) }.cast::<u8>();
        if bytes == 0 {
            return Ok(Buffer::empty());
        }
        if p.is_null() {
            return Err(Error::FfiNullBuffer);
        }
        if (p as usize) % align != 0 {
            return match self.misaligned {
                Misaligned::Refuse => Err(Error::Misaligned),
                // SAFETY: the contract: `bytes` readable bytes at `p`.
                Misaligned::Copy => Buffer::try_copy_in(
                    unsafe { core::slice::from_raw_parts(p, bytes) },
                    self.alloc.clone(),
                ),
            };
        }
        // SAFETY: the contract: `bytes` bytes at `p` live (unchanged) until
        // the producer's `release`, which the owner calls last.
        Ok(unsafe { Buffer::from_owner(p, bytes, self.owner.clone()) })
    }

    /// `count` values of `T` in buffer `i`.
    unsafe fn scalar<T: NativeType>(
        &self,
        n: &FFI_ArrowArray,
        i: usize,
        count: usize,
    ) -> Result<ScalarBuffer<'static, T, A>> {
        let bytes = count
            .checked_mul(size_of::<T>())
            .ok_or(Error::CapacityOverflow)?;
        // SAFETY: the caller's contract.
        let b = unsafe { self.buffer(n, i, bytes, align_of::<T>()) }?;
        ScalarBuffer::try_from_buffer(b)
    }

    /// The validity bitmap of `s.total` slots (buffer 0).
    unsafe fn validity(
        &self,
        n: &FFI_ArrowArray,
        s: &Shape,
    ) -> Result<Option<NullBuffer<'static, A>>> {
        if s.n_buffers == 0 {
            return Err(Error::FfiBufferCount);
        }
        if s.null_count == Some(0) {
            return Ok(None);
        }
        // SAFETY: `n_buffers >= 1` (checked), so entry 0 is readable.
        if unsafe { *n.buffers }.is_null() {
            return match s.null_count {
                None => Ok(None),
                Some(_) => Err(Error::FfiNullBuffer),
            };
        }
        // SAFETY: the caller's contract.
        let b = unsafe { self.buffer(n, 0, s.total.div_ceil(8), 1) }?;
        let bits = BooleanBuffer::try_new(b, 0, s.total).map_err(|_| Error::ValidityTooSmall)?;
        Ok(Some(NullBuffer::new(bits)))
    }

    /// `total + 1` offsets in buffer `i` (an empty array may have none).
    unsafe fn offsets<O: OffsetSize + NativeType>(
        &self,
        n: &FFI_ArrowArray,
        i: usize,
        total: usize,
    ) -> Result<ScalarBuffer<'static, O, A>> {
        let present = i < usize::try_from(n.n_buffers).unwrap_or(0);
        // SAFETY: entry `i` exists (`present`) in the non-null `buffers`
        // array (`shape` checked it), readable by the import contract.
        if total == 0 && present && unsafe { *n.buffers.add(i) }.is_null() {
            return ScalarBuffer::try_copy_in(&[O::default()], self.alloc.clone());
        }
        let count = total.checked_add(1).ok_or(Error::OffsetsLength)?;
        // SAFETY: the caller's contract.
        unsafe { self.scalar::<O>(n, i, count) }
    }

    /// Child `j` of `n`.
    #[cfg(any(feature = "nested", feature = "union", feature = "run-end"))]
    unsafe fn child<'n>(&self, n: &'n FFI_ArrowArray, j: usize) -> Result<&'n FFI_ArrowArray> {
        if j >= usize::try_from(n.n_children).unwrap_or(0) {
            return Err(Error::InvalidChildCount);
        }
        // SAFETY: `shape` checked `children` non-null with `n_children > j`
        // entries; the contract makes each a live struct.
        let c = unsafe { *n.children.add(j) };
        // SAFETY: as above.
        let c = unsafe { c.as_ref() }.ok_or(Error::FfiNullBuffer)?;
        if c.release.is_none() {
            return Err(Error::FfiReleased);
        }
        Ok(c)
    }

    /// Child `j` imported as `field`, cut to `len` slots when longer.
    #[cfg(any(feature = "nested", feature = "union", feature = "run-end"))]
    unsafe fn child_array(
        &self,
        n: &FFI_ArrowArray,
        j: usize,
        field: &Field<'static, A>,
        len: Option<usize>,
        depth: usize,
    ) -> Result<ArrayRef<'static, A>> {
        // SAFETY: the caller's contract covers the children.
        let c = unsafe { self.child(n, j) }.map_err(|e| e.in_child(j))?;
        // SAFETY: as above.
        let a = unsafe { self.node(c, field.data_type(), depth + 1) }.map_err(|e| e.in_child(j))?;
        match len {
            Some(l) if a.len() < l => Err(Error::ChildLengthMismatch.in_child(j)),
            Some(l) if a.len() > l => a.slice(0, l),
            _ => Ok(a),
        }
    }

    unsafe fn primitive<T: PrimitiveType>(
        &self,
        n: &FFI_ArrowArray,
        s: &Shape,
        dt: &DataType<'static, A>,
    ) -> Result<PrimitiveArray<'static, T, A>> {
        expect(s, 2, 0)?;
        // SAFETY: the caller's contract.
        let nulls = unsafe { self.validity(n, s) }?;
        // SAFETY: as above.
        let values = unsafe { self.scalar::<T>(n, 1, s.total) }?;
        PrimitiveArray::try_new(dt.clone(), values, nulls)
    }

    /// Imports `n` as a list of `f` with offsets `O` (`List` or
    /// `LargeList`), or with `view` a list view with offsets and sizes `O`
    /// (`ListView` or `LargeListView`).
    ///
    /// # Safety
    /// The import contract for `n` and everything it points to.
    #[cfg(feature = "nested")]
    unsafe fn list<O: ListOffsetSize>(
        &self,
        n: &FFI_ArrowArray,
        s: &Shape,
        f: &FieldRef<'static, A>,
        depth: usize,
        view: bool,
    ) -> Result<ArrayRef<'static, A>> {
        expect(s, if view { 3 } else { 2 }, 1)?;
        // SAFETY: the caller's contract.
        let nulls = unsafe { self.validity(n, s) }?;
        // The child, imported after the parent's buffers.
        let child = || {
            // SAFETY: as above.
            let values = unsafe { self.child_array(n, 0, f, None, depth) }?;
            SharedBox::try_new_in(values, self.alloc.clone())
        };
        let field = f.clone();
        Ok(if view {
            // SAFETY: as above.
            let offsets = unsafe { self.scalar::<O>(n, 1, s.total) }?;
            // SAFETY: as above.
            let sizes = unsafe { self.scalar::<O>(n, 2, s.total) }?;
            GenericListViewArray::<O, A>::try_new(field, offsets, sizes, child()?, nulls)?
                .into_array_ref()
        } else {
            // SAFETY: as above.
            let offsets = OffsetBuffer::try_new(unsafe { self.offsets::<O>(n, 1, s.total) }?)?;
            let values = child()?;
            GenericListArray::<O, A>::try_new(field, offsets, values, nulls)?.into_array_ref()
        })
    }

    /// Imports `n` as an array of type `dt` (recursively).
    ///
    /// # Safety
    /// The import contract for `n` and everything it points to.
    unsafe fn node(
        &self,
        n: &FFI_ArrowArray,
        dt: &DataType<'static, A>,
        depth: usize,
    ) -> Result<ArrayRef<'static, A>> {
        if depth > MAX_IMPORT_DEPTH {
            return Err(Error::FfiNestingTooDeep);
        }
        let s = shape(n)?;
        use DataType::*;
        // SAFETY: every call below passes on the contract of this function
        // for `n`'s buffers and children.
        let whole: ArrayRef<'static, A> = unsafe {
            match dt {
                Null => {
                    expect(&s, 0, 0)?;
                    NullArray::new(s.total).into_array_ref()
                }
                Boolean => {
                    expect(&s, 2, 0)?;
                    let nulls = self.validity(n, &s)?;
                    let b = self.buffer(n, 1, s.total.div_ceil(8), 1)?;
                    let bits = BooleanBuffer::try_new(b, 0, s.total)?;
                    BooleanArray::try_new(bits, nulls)?.into_array_ref()
                }
                Int8 => self.primitive::<i8>(n, &s, dt)?.into_array_ref(),
                Int16 => self.primitive::<i16>(n, &s, dt)?.into_array_ref(),
                Int32 | Date32 | Time32(_) | Decimal32(..) | Interval(IntervalUnit::YearMonth) => {
                    self.primitive::<i32>(n, &s, dt)?.into_array_ref()
                }
                Int64 | Date64 | Time64(_) | Timestamp(..) | Duration(_) | Decimal64(..) => {
                    self.primitive::<i64>(n, &s, dt)?.into_array_ref()
                }
                UInt8 => self.primitive::<u8>(n, &s, dt)?.into_array_ref(),
                UInt16 => self.primitive::<u16>(n, &s, dt)?.into_array_ref(),
                UInt32 => self.primitive::<u32>(n, &s, dt)?.into_array_ref(),
                UInt64 => self.primitive::<u64>(n, &s, dt)?.into_array_ref(),
                Float16 => self.primitive::<f16>(n, &s, dt)?.into_array_ref(),
                Float32 => self.primitive::<f32>(n, &s, dt)?.into_array_ref(),
                Float64 => self.primitive::<f64>(n, &s, dt)?.into_array_ref(),
                Decimal128(..) => self.primitive::<i128>(n, &s, dt)?.into_array_ref(),
                Decimal256(..) => self.primitive::<i256>(n, &s, dt)?.into_array_ref(),
                Interval(IntervalUnit::DayTime) => self
                    .primitive::<IntervalDayTime>(n, &s, dt)?
                    .into_array_ref(),
                Interval(IntervalUnit::MonthDayNano) => self
                    .primitive::<IntervalMonthDayNano>(n, &s, dt)?
                    .into_array_ref(),
                FixedSizeBinary(w) => {
                    expect(&s, 2, 0)?;
                    let nulls = self.validity(n, &s)?;
                    let w = usize::try_from(*w).map_err(|_| Error::InvalidDataType)?;
                    let bytes = s.total.checked_mul(w).ok_or(Error::CapacityOverflow)?;
                    let values = self.buffer(n, 1, bytes, 1)?;
                    FixedSizeBinaryArray::try_new(dt.clone(), s.total, values, nulls)?
                        .into_array_ref()
                }
                Binary => self.bytes::<i32>(n, &s, |o, v, x| {
                    Ok(BinaryArray::try_new(o, v, x)?.into_array_ref())
                })?,
                Utf8 => self.bytes::<i32>(n, &s, |o, v, x| {
                    Ok(StringArray::try_new(o, v, x)?.into_array_ref())
                })?,
                LargeBinary => self.bytes::<i64>(n, &s, |o, v, x| {
                    Ok(LargeBinaryArray::try_new(o, v, x)?.into_array_ref())
                })?,
                LargeUtf8 => self.bytes::<i64>(n, &s, |o, v, x| {
                    Ok(LargeStringArray::try_new(o, v, x)?.into_array_ref())
                })?,
                #[cfg(feature = "views")]
                BinaryView | Utf8View => {
                    if s.n_buffers < 3 || s.n_children != 0 {
                        return Err(Error::FfiBufferCount);
                    }
                    let nulls = self.validity(n, &s)?;
                    let views = self.buffer(
                        n,
                        1,
                        s.total.checked_mul(16).ok_or(Error::CapacityOverflow)?,
                        8,
                    )?;
                    let count = s.n_buffers - 3;
                    let sizes = self.scalar::<i64>(n, s.n_buffers - 1, count)?;
                    let data = SharedSlice::try_from_fn_in(count, self.alloc.clone(), |k| {
                        let len = sizes.get(k).copied().unwrap_or(-1);
                        let len = usize::try_from(len).map_err(|_| Error::FfiNegativeCount)?;
                        self.buffer(n, 2 + k, len, 1)
                    })?;
                    if matches!(dt, BinaryView) {
                        BinaryViewArray::try_new(views, data, nulls)?.into_array_ref()
                    } else {
                        StringViewArray::try_new(views, data, nulls)?.into_array_ref()
                    }
                }
                #[cfg(feature = "nested")]
                List(f) => self.list::<i32>(n, &s, f, depth, false)?,
                #[cfg(feature = "nested")]
                LargeList(f) => self.list::<i64>(n, &s, f, depth, false)?,
                #[cfg(feature = "nested")]
                ListView(f) => self.list::<i32>(n, &s, f, depth, true)?,
                #[cfg(feature = "nested")]
                LargeListView(f) => self.list::<i64>(n, &s, f, depth, true)?,
                #[cfg(feature = "nested")]
                FixedSizeList(f, size) => {
                    expect(&s, 1, 1)?;
                    let nulls = self.validity(n, &s)?;
                    let w = usize::try_from(*size).map_err(|_| Error::InvalidDataType)?;
                    let len = s.total.checked_mul(w).ok_or(Error::CapacityOverflow)?;
                    let values = self.child_array(n, 0, f, Some(len), depth)?;
                    let values = SharedBox::try_new_in(values, self.alloc.clone())?;
                    FixedSizeListArray::try_new(f.clone(), *size, s.total, values, nulls)?
                        .into_array_ref()
                }
                #[cfg(feature = "nested")]
                Struct(fields) => {
                    expect(&s, 1, fields.len())?;
                    let nulls = self.validity(n, &s)?;
                    let children =
                        SharedSlice::try_from_fn_in(fields.len(), self.alloc.clone(), |j| {
                            let f = fields.get(j).ok_or(Error::InvalidChildCount)?;
                            self.child_array(n, j, f, Some(s.total), depth)
                        })?;
                    StructArray::try_new_with_len(fields.clone(), children, s.total, nulls)?
                        .into_array_ref()
                }
                #[cfg(feature = "nested")]
                Map(f, sorted) => {
                    expect(&s, 2, 1)?;
                    let nulls = self.validity(n, &s)?;
                    let offsets = OffsetBuffer::try_new(self.offsets::<i32>(n, 1, s.total)?)?;
                    let entries = self.child_array(n, 0, f, None, depth)?;
                    let entries = SharedBox::try_new_in(entries, self.alloc.clone())?;
                    MapArray::try_new(f.clone(), offsets, entries, nulls, *sorted)?.into_array_ref()
                }
                #[cfg(feature = "union")]
                Union(fields, mode) => {
                    let fs = fields.fields();
                    let dense = *mode == UnionMode::Dense;
                    expect(&s, if dense { 2 } else { 1 }, fs.len())?;
                    let type_ids = self.scalar::<i8>(n, 0, s.total)?;
                    let offsets = if dense {
                        Some(self.scalar::<i32>(n, 1, s.total)?)
                    } else {
                        None
                    };
                    let cut = if dense { None } else { Some(s.total) };
                    let children =
                        SharedSlice::try_from_fn_in(fs.len(), self.alloc.clone(), |j| {
                            let f = fs.get(j).ok_or(Error::InvalidChildCount)?;
                            self.child_array(n, j, f, cut, depth)
                        })?;
                    UnionArray::try_new(fields.clone(), *mode, type_ids, offsets, children)?
                        .into_array_ref()
                }
                #[cfg(feature = "dictionary")]
                Dictionary(index, value_type, _) => {
                    expect(&s, 2, 0)?;
                    let nulls = self.validity(n, &s)?;
                    let keys = self.keys(n, &s, *index, nulls)?;
                    let d = n.dictionary.as_ref().ok_or(Error::FfiNullBuffer)?;
                    if d.release.is_none() {
                        return Err(Error::FfiReleased);
                    }
                    let values = self.node(d, value_type, depth + 1)?;
                    let values = SharedBox::try_new_in(values, self.alloc.clone())?;
                    DictionaryArray::try_new(dt.clone(), keys, values)?.into_array_ref()
                }
                #[cfg(feature = "run-end")]
                RunEndEncoded(rf, vf) => {
                    expect(&s, 0, 2)?;
                    let run_ends = RunEnds::try_from(self.child_array(n, 0, rf, None, depth)?)?;
                    let values = self.child_array(n, 1, vf, None, depth)?;
                    let values = SharedBox::try_new_in(values, self.alloc.clone())?;
                    // The logical offset applies to the runs, not to buffers.
                    return Ok(RunArray::try_new_with_offset(
                        dt.clone(),
                        run_ends,
                        values,
                        s.offset,
                        s.length,
                    )?
                    .into_array_ref());
                }
                #[allow(unreachable_patterns)]
                _ => return Err(Error::UnsupportedType),
            }
        };
        if s.offset == 0 {
            return Ok(whole);
        }
        whole.slice(s.offset, s.length)
    }

    /// Validity, offsets and data of a variable-size binary or string array.
    unsafe fn bytes<O: OffsetSize + NativeType>(
        &self,
        n: &FFI_ArrowArray,
        s: &Shape,
        make: impl FnOnce(
            ScalarBuffer<'static, O, A>,
            Buffer<'static, A>,
            Option<NullBuffer<'static, A>>,
        ) -> Result<ArrayRef<'static, A>>,
    ) -> Result<ArrayRef<'static, A>> {
        expect(s, 3, 0)?;
        // SAFETY: the caller's contract.
        let nulls = unsafe { self.validity(n, s) }?;
        // SAFETY: the caller's contract.
        let offsets = unsafe { self.offsets::<O>(n, 1, s.total) }?;
        let end = match offsets.as_slice().last() {
            Some(o) => o.to_usize().ok_or(Error::OffsetOutOfBounds)?,
            None => 0,
        };
        // SAFETY: the caller's contract.
        let data = unsafe { self.buffer(n, 2, end, 1) }?;
        make(offsets, data, nulls)
    }

    #[cfg(feature = "dictionary")]
    unsafe fn keys(
        &self,
        n: &FFI_ArrowArray,
        s: &Shape,
        index: IndexType,
        nulls: Option<NullBuffer<'static, A>>,
    ) -> Result<DictionaryKeys<'static, A>> {
        macro_rules! keys {
            ($t:ty, $v:ident) => {{
                // SAFETY: the caller's contract.
                let values = unsafe { self.scalar::<$t>(n, 1, s.total) }?;
                DictionaryKeys::$v(PrimitiveArray::try_new(DataType::$v, values, nulls)?)
            }};
        }
        Ok(match index {
            IndexType::Int8 => keys!(i8, Int8),
            IndexType::Int16 => keys!(i16, Int16),
            IndexType::Int32 => keys!(i32, Int32),
            IndexType::Int64 => keys!(i64, Int64),
            IndexType::UInt8 => keys!(u8, UInt8),
            IndexType::UInt16 => keys!(u16, UInt16),
            IndexType::UInt32 => keys!(u32, UInt32),
            IndexType::UInt64 => keys!(u64, UInt64),
        })
    }
}

/// Checks the buffer and child counts a layout requires.
fn expect(s: &Shape, buffers: usize, children: usize) -> Result<()> {
    if s.n_buffers != buffers {
        return Err(Error::FfiBufferCount);
    }
    if s.n_children != children {
        return Err(Error::InvalidChildCount);
    }
    Ok(())
}

impl FFI_ArrowArray {
    /// Imports a producer's array of type `data_type` without copying its
    /// buffers: the result's buffers point into the producer's memory, kept
    /// alive by a [`MemoryOwner`] that holds this struct and calls its
    /// `release` exactly once, when the last alkaid view is dropped (or at
    /// once, on error). Buffers that are not aligned for their element type
    /// are copied into `alloc` or refused, as `misaligned` says.
    ///
    /// The struct's `offset` is applied as a zero-copy slice (run-end
    /// encoded arrays keep it as their logical offset). Every count, length
    /// and offset is checked and the array is validated at
    /// [`crate::array::ValidationLevel::Full`], so a producer's bad data
    /// gives an error.
    ///
    /// # Safety
    /// `self` must be a struct of "The Arrow C data interface": every
    /// non-null pointer in it (buffers, children, dictionary, recursively)
    /// valid for what the struct declares of it (for a buffer, the size its
    /// layout needs for `offset + length` slots), unchanged until `release`
    /// is called, and `release` callable from any thread.
    ///
    /// # Errors
    /// [`Error::FfiReleased`] for a released struct;
    /// [`Error::FfiNegativeCount`], [`Error::FfiBufferCount`],
    /// [`Error::InvalidChildCount`], [`Error::FfiNullBuffer`] for a struct
    /// whose shape does not fit `data_type`; [`Error::Misaligned`]; the
    /// validation error of the first rule the data breaks;
    /// [`Error::FfiNestingTooDeep`] past [`MAX_IMPORT_DEPTH`];
    /// [`Error::AllocationFailed`].
    pub unsafe fn import_with_field_in<A>(
        self,
        field: &Field<'static, A>,
        misaligned: Misaligned,
        alloc: A,
    ) -> Result<ArrayRef<'static, A>>
    where
        A: Allocator + Clone + Send + Sync + 'static,
    {
        if self.release.is_none() {
            return Err(Error::FfiReleased);
        }
        // The struct's fields (plain pointers and numbers) are read through
        // a copy: moving the struct into the owner does not move what they
        // point to.
        let view = FFI_ArrowArray {
            release: None,
            private_data: core::ptr::null_mut(),
            ..self
        };
        let owner = MemoryOwner::try_new_in(self, alloc.clone())?;
        let importer = Importer {
            owner,
            alloc,
            misaligned,
        };
        // SAFETY: the caller's contract covers `view`'s pointers, kept alive
        // by the owner for as long as any view of them.
        unsafe { importer.node(&view, field.data_type(), 0) }
    }
}
