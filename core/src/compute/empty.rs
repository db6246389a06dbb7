//! [`new_empty`] and [`new_null`]: arrays of any data type with no slots, or
//! with only null slots.

use core::mem::size_of;

use allocator_api2::alloc::Allocator;

use super::bits::bytes_for_bits;
#[cfg(feature = "union")]
use crate::array::UnionArray;
#[cfg(feature = "dictionary")]
use crate::array::{index_data_type, DictionaryArray, DictionaryKeys};
use crate::array::{
    Array, ArrayRef, BinaryType, BooleanArray, ByteArrayType, FixedSizeBinaryArray,
    GenericByteArray, LargeBinaryType, LargeUtf8Type, NullArray, PrimitiveArray, PrimitiveType,
    Utf8Type,
};
#[cfg(feature = "views")]
use crate::array::{BinaryViewType, ByteView, ByteViewType, GenericByteViewArray, StringViewType};
#[cfg(feature = "nested")]
use crate::array::{
    FixedSizeListArray, GenericListArray, GenericListViewArray, ListOffsetSize, MapArray,
    StructArray,
};
#[cfg(feature = "run-end")]
use crate::array::{RunArray, RunEndIndexType, RunEnds};
#[cfg(any(feature = "dictionary", feature = "nested", feature = "run-end"))]
use crate::buffer::SharedBox;
#[cfg(any(feature = "nested", feature = "union", feature = "views"))]
use crate::buffer::SharedSlice;
use crate::buffer::{BooleanBuffer, Buffer, MutableBuffer, NullBuffer, OffsetBuffer, ScalarBuffer};
#[cfg(any(feature = "nested", feature = "run-end"))]
use crate::datatypes::FieldRef;
#[cfg(feature = "union")]
use crate::datatypes::UnionFields;
use crate::datatypes::{DataType, UnionMode};
use crate::error::{Error, Result};
use crate::native::{f16, i256, IntervalDayTime, IntervalMonthDayNano};

/// A valid array of `data_type` with no slots.
///
/// Flat layouts allocate nothing (their buffers are static empty slices; the
/// offsets of binary, string, list and map arrays are a static `[0]`).
/// Nested layouts allocate only to share their children ([`SharedBox`] /
/// [`SharedSlice`]): lists, list views, fixed-size lists and maps get an
/// empty child of the child field's type, structs and unions one empty child
/// per field, dictionaries no keys over an empty dictionary of the value type,
/// run-end encoded arrays empty run ends and values.
///
/// ```
/// use alkaid::array::{Array, ValidationLevel};
/// use alkaid::buffer::SharedBox;
/// use alkaid::compute::new_empty;
/// use alkaid::datatypes::{DataType, Field};
/// use alkaid::Global;
///
/// let item = SharedBox::try_new_in(Field::new("item", DataType::Utf8, true), Global)?;
/// let list_type = DataType::List(item);
/// let empty = new_empty(&list_type, Global)?;
/// assert_eq!(empty.len(), 0);
/// assert_eq!(empty.data_type(), &list_type);
/// assert!(empty.validate(ValidationLevel::Full).is_ok());
/// # Ok::<(), alkaid::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidDataType`] (or [`Error::MapEntriesInvalid`],
/// [`Error::MapKeyNull`]) when `data_type` is malformed;
/// [`Error::AllocationFailed`].
pub fn new_empty<'a, A: Allocator + Clone>(
    data_type: &DataType<'a, A>,
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    let mut zeros = Zeros::new(0, alloc.clone());
    null_array(data_type, 0, &mut zeros, &alloc)
}

/// A valid array of `data_type` with `len` slots, all null.
///
/// Validity bitmaps are all zero; the value buffers are zeroed and share one
/// allocation (slices of it) with the bitmaps. Per layout: offsets (binary,
/// string, list, map) and list-view offsets and sizes are all 0, views are
/// empty inline views, and variable-size children are empty; fixed-size
/// lists get a child of `len * size` nulls and structs a child of `len`
/// nulls per field; a sparse union has the first declared type id in every
/// slot and children of `len` nulls; a dense union points every slot at the
/// first child, which holds `len` nulls, with offsets `0..len` (other
/// children empty); a dictionary has `len` null keys over an empty
/// dictionary; a run-end encoded array one run of `len` over a single null
/// value; Null is a [`NullArray`]. Unions and run-end encoded arrays have no
/// validity bitmap: their slots are logically null. `len == 0` gives
/// [`new_empty`].
///
/// ```
/// use alkaid::array::Array;
/// use alkaid::compute::new_null;
/// use alkaid::datatypes::DataType;
/// use alkaid_alloc::Counting;
///
/// let counting = Counting::new(alkaid::Global);
/// let nulls = new_null(&DataType::Float64, 1000, &counting)?;
/// assert_eq!((nulls.len(), nulls.null_count()), (1000, 1000));
/// let values = nulls.as_primitive::<f64>().expect("Float64").values();
/// assert!(values.iter().all(|v| *v == 0.0)); // zeroed
/// assert_eq!(counting.total_allocations(), 1); // bitmap and values share it
/// # Ok::<(), alkaid::Error>(())
/// ```
///
/// # Errors
/// As [`new_empty`]; [`Error::CapacityOverflow`] when a size overflows or
/// `len` does not fit a run-end type or the dense union offsets (`i32`);
/// [`Error::UnionTypeIdUndeclared`] for `len > 0` slots of a union without
/// children.
pub fn new_null<'a, A: Allocator + Clone>(
    data_type: &DataType<'a, A>,
    len: usize,
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    let mut zeros = Zeros::new(zero_bytes(data_type, len), alloc.clone());
    null_array(data_type, len, &mut zeros, &alloc)
}

/// One zeroed allocation that every all-zero buffer of a [`new_null`] tree
/// slices (buffers are immutable, so sharing is safe).
struct Zeros<A: Allocator> {
    /// Size of the first allocation (the largest buffer of the tree).
    want: usize,
    buf: Buffer<'static, A>,
    alloc: A,
}

impl<A: Allocator> Zeros<A> {
    fn new(want: usize, alloc: A) -> Self {
        Zeros {
            want,
            buf: Buffer::empty(),
            alloc,
        }
    }

    /// `n` zero bytes, 64-byte aligned (no allocation for 0).
    fn take(&mut self, n: usize) -> Result<Buffer<'static, A>>
    where
        A: Clone,
    {
        if n == 0 {
            return Ok(Buffer::empty());
        }
        if n > self.buf.len() {
            let size = n.max(self.want);
            let mut m = MutableBuffer::new_in(self.alloc.clone());
            m.try_reserve_exact(size)?;
            m.try_extend_zeros(size)?;
            self.buf = m.into_buffer();
        }
        self.buf.slice(0, n)
    }

    /// `n` zero values of `T`.
    fn values<T: crate::native::NativeType>(
        &mut self,
        n: usize,
    ) -> Result<ScalarBuffer<'static, T, A>>
    where
        A: Clone,
    {
        let bytes = n
            .checked_mul(size_of::<T>())
            .ok_or(Error::CapacityOverflow)?;
        ScalarBuffer::try_from_buffer(self.take(bytes)?)
    }

    /// A validity bitmap of `len` nulls (`None` for `len == 0`).
    fn nulls(&mut self, len: usize) -> Result<Option<NullBuffer<'static, A>>>
    where
        A: Clone,
    {
        if len == 0 {
            return Ok(None);
        }
        let bits = BooleanBuffer::try_new(self.take(bytes_for_bits(len))?, 0, len)?;
        Ok(Some(NullBuffer::new(bits)))
    }

    /// `len + 1` zero offsets (the static `[0]` for `len == 0`).
    fn offsets<O: crate::buffer::OffsetSize>(
        &mut self,
        len: usize,
    ) -> Result<OffsetBuffer<'static, O, A>>
    where
        A: Clone,
    {
        if len == 0 {
            return Ok(OffsetBuffer::new_empty());
        }
        let n = len.checked_add(1).ok_or(Error::CapacityOverflow)?;
        OffsetBuffer::try_new(self.values(n)?)
    }
}

/// The largest zeroed buffer [`null_array`] takes for `len` slots of `dt`
/// (saturating; 0 when nothing is needed).
fn zero_bytes<A: Allocator>(dt: &DataType<'_, A>, len: usize) -> usize {
    if len == 0 {
        return 0;
    }
    let bits = bytes_for_bits(len);
    let offsets = |w: usize| len.saturating_add(1).saturating_mul(w);
    match dt {
        DataType::Null => 0,
        DataType::Boolean => bits,
        DataType::FixedSizeBinary(w) => {
            bits.max(len.saturating_mul(usize::try_from(*w).unwrap_or(0)))
        }
        DataType::Binary | DataType::Utf8 | DataType::List(_) | DataType::Map(..) => offsets(4),
        DataType::LargeBinary | DataType::LargeUtf8 | DataType::LargeList(_) => offsets(8),
        // A view is 16 bytes ("Variable-size Binary View Layout").
        DataType::BinaryView | DataType::Utf8View => len.saturating_mul(16),
        DataType::ListView(_) => len.saturating_mul(4),
        DataType::LargeListView(_) => len.saturating_mul(8),
        DataType::FixedSizeList(f, n) => {
            let n = usize::try_from(*n).unwrap_or(0);
            bits.max(zero_bytes(f.data_type(), len.saturating_mul(n)))
        }
        DataType::Struct(fields) => fields
            .iter()
            .map(|f| zero_bytes(f.data_type(), len))
            .fold(bits, usize::max),
        DataType::Union(u, UnionMode::Sparse) => u
            .fields()
            .iter()
            .map(|f| zero_bytes(f.data_type(), len))
            .fold(len, usize::max),
        DataType::Union(u, UnionMode::Dense) => u
            .fields()
            .first()
            .map_or(0, |f| zero_bytes(f.data_type(), len))
            .max(len),
        DataType::Dictionary(k, _, _) => len.saturating_mul(k.byte_width()),
        DataType::RunEndEncoded(_, v) => zero_bytes(v.data_type(), 1),
        other => other.primitive_width().map_or(0, |w| len.saturating_mul(w)),
    }
}

/// `len` null slots of `dt` (no slots when `len == 0`).
#[cfg_attr(
    not(any(
        feature = "dictionary",
        feature = "nested",
        feature = "run-end",
        feature = "union"
    )),
    allow(unused_variables)
)]
fn null_array<'a, A: Allocator + Clone>(
    dt: &DataType<'a, A>,
    len: usize,
    z: &mut Zeros<A>,
    alloc: &A,
) -> Result<ArrayRef<'a, A>> {
    if let Some(a) = null_primitive(dt, len, z)? {
        return Ok(a);
    }
    Ok(match dt {
        DataType::Null => NullArray::new(len).into_array_ref(),
        DataType::Boolean => {
            let values = BooleanBuffer::try_new(z.take(bytes_for_bits(len))?, 0, len)?;
            BooleanArray::try_new(values, z.nulls(len)?)?.into_array_ref()
        }
        DataType::FixedSizeBinary(w) => {
            let w = usize::try_from(*w).map_err(|_| Error::InvalidDataType)?;
            let bytes = len.checked_mul(w).ok_or(Error::CapacityOverflow)?;
            let (values, nulls) = (z.take(bytes)?, z.nulls(len)?);
            FixedSizeBinaryArray::try_new(dt.clone(), len, values, nulls)?.into_array_ref()
        }
        DataType::Binary => null_bytes::<BinaryType, A>(len, z)?,
        DataType::LargeBinary => null_bytes::<LargeBinaryType, A>(len, z)?,
        DataType::Utf8 => null_bytes::<Utf8Type, A>(len, z)?,
        DataType::LargeUtf8 => null_bytes::<LargeUtf8Type, A>(len, z)?,
        #[cfg(feature = "views")]
        DataType::BinaryView => null_views::<BinaryViewType, A>(len, z)?,
        #[cfg(feature = "views")]
        DataType::Utf8View => null_views::<StringViewType, A>(len, z)?,
        #[cfg(feature = "nested")]
        DataType::List(f) => null_list::<i32, A>(f, len, false, z, alloc)?,
        #[cfg(feature = "nested")]
        DataType::LargeList(f) => null_list::<i64, A>(f, len, false, z, alloc)?,
        #[cfg(feature = "nested")]
        DataType::ListView(f) => null_list::<i32, A>(f, len, true, z, alloc)?,
        #[cfg(feature = "nested")]
        DataType::LargeListView(f) => null_list::<i64, A>(f, len, true, z, alloc)?,
        #[cfg(feature = "nested")]
        DataType::FixedSizeList(f, size) => {
            let n = usize::try_from(*size).map_err(|_| Error::InvalidDataType)?;
            let n = len.checked_mul(n).ok_or(Error::CapacityOverflow)?;
            let child = null_array(f.data_type(), n, z, alloc)?;
            let child = SharedBox::try_new_in(child, alloc.clone())?;
            let nulls = z.nulls(len)?;
            FixedSizeListArray::try_new(f.clone(), *size, len, child, nulls)?.into_array_ref()
        }
        #[cfg(feature = "nested")]
        DataType::Struct(fields) => {
            let children = if fields.is_empty() {
                SharedSlice::empty()
            } else {
                SharedSlice::try_from_fn_in(fields.len(), alloc.clone(), |i| {
                    let f = fields.get(i).ok_or(Error::InvalidDataType)?;
                    null_array(f.data_type(), len, z, alloc)
                })?
            };
            let nulls = z.nulls(len)?;
            StructArray::try_new_with_len(fields.clone(), children, len, nulls)?.into_array_ref()
        }
        #[cfg(feature = "nested")]
        DataType::Map(f, sorted) => {
            let entries =
                SharedBox::try_new_in(null_array(f.data_type(), 0, z, alloc)?, alloc.clone())?;
            let offsets = z.offsets::<i32>(len)?;
            let nulls = z.nulls(len)?;
            MapArray::try_new(f.clone(), offsets, entries, nulls, *sorted)?.into_array_ref()
        }
        #[cfg(feature = "union")]
        DataType::Union(fields, mode) => null_union(fields, *mode, len, z, alloc)?,
        #[cfg(feature = "dictionary")]
        DataType::Dictionary(key, value, _) => {
            let keys = null_primitive(&index_data_type(*key), len, z)?;
            let keys = DictionaryKeys::try_from(keys.ok_or(Error::InvalidDataType)?)?;
            let values = null_array(value, 0, z, alloc)?;
            let values = SharedBox::try_new_in(values, alloc.clone())?;
            DictionaryArray::try_new(dt.clone(), keys, values)?.into_array_ref()
        }
        #[cfg(feature = "run-end")]
        DataType::RunEndEncoded(ends, values) => null_run_end(dt, ends, values, len, z, alloc)?,
        _ => return Err(Error::UnsupportedType),
    })
}

/// `len` null slots of a primitive `dt`, or `None` when `dt` is not primitive.
fn null_primitive<'a, A: Allocator + Clone>(
    dt: &DataType<'a, A>,
    len: usize,
    z: &mut Zeros<A>,
) -> Result<Option<ArrayRef<'a, A>>> {
    fn make<'a, T: PrimitiveType, A: Allocator + Clone>(
        dt: &DataType<'a, A>,
        len: usize,
        z: &mut Zeros<A>,
    ) -> Result<Option<ArrayRef<'a, A>>> {
        let (values, nulls) = (z.values::<T>(len)?, z.nulls(len)?);
        let a = PrimitiveArray::<T, A>::try_new(dt.clone(), values, nulls)?;
        Ok(Some(a.into_array_ref()))
    }
    macro_rules! first_fit {
        ($($t:ty),*) => {
            $(if <$t as PrimitiveType>::fits(dt) {
                return make::<$t, A>(dt, len, z);
            })*
        };
    }
    first_fit!(i8, i16, i32, i64, u8, u16, u32, u64, f16, f32, f64, i128, i256);
    first_fit!(IntervalDayTime, IntervalMonthDayNano);
    Ok(None)
}

fn null_bytes<'a, T: ByteArrayType, A: Allocator + Clone>(
    len: usize,
    z: &mut Zeros<A>,
) -> Result<ArrayRef<'a, A>> {
    let offsets = z.offsets::<T::Offset>(len)?.into_inner();
    let nulls = z.nulls(len)?;
    let a = GenericByteArray::<T, A>::try_new(offsets, Buffer::empty(), nulls)?;
    Ok(a.into_array_ref())
}

#[cfg(feature = "views")]
fn null_views<'a, T: ByteViewType, A: Allocator + Clone>(
    len: usize,
    z: &mut Zeros<A>,
) -> Result<ArrayRef<'a, A>> {
    // An all-zero view is the inline view of the empty value.
    let bytes = len
        .checked_mul(ByteView::SIZE)
        .ok_or(Error::CapacityOverflow)?;
    let (views, nulls) = (z.take(bytes)?, z.nulls(len)?);
    let a = GenericByteViewArray::<T, A>::try_new(views, SharedSlice::empty(), nulls)?;
    Ok(a.into_array_ref())
}

/// `len` null lists (`view`: list views) of `field`, every slot empty,
/// over an empty child.
#[cfg(feature = "nested")]
fn null_list<'a, O: ListOffsetSize, A: Allocator + Clone>(
    field: &FieldRef<'a, A>,
    len: usize,
    view: bool,
    z: &mut Zeros<A>,
    alloc: &A,
) -> Result<ArrayRef<'a, A>> {
    let child = null_array(field.data_type(), 0, z, alloc)?;
    let child = SharedBox::try_new_in(child, alloc.clone())?;
    let field = field.clone();
    Ok(if view {
        let (offsets, sizes) = (z.values::<O>(len)?, z.values::<O>(len)?);
        let nulls = z.nulls(len)?;
        GenericListViewArray::<O, A>::try_new(field, offsets, sizes, child, nulls)?.into_array_ref()
    } else {
        let (offsets, nulls) = (z.offsets::<O>(len)?, z.nulls(len)?);
        GenericListArray::<O, A>::try_new(field, offsets, child, nulls)?.into_array_ref()
    })
}

#[cfg(feature = "union")]
fn null_union<'a, A: Allocator + Clone>(
    fields: &UnionFields<'a, A>,
    mode: UnionMode,
    len: usize,
    z: &mut Zeros<A>,
    alloc: &A,
) -> Result<ArrayRef<'a, A>> {
    let first_id = match fields.type_ids().first() {
        Some(&id) => id,
        None if len == 0 => 0,
        None => return Err(Error::UnionTypeIdUndeclared),
    };
    let type_ids = if first_id == 0 {
        z.values::<i8>(len)?
    } else {
        let mut m = MutableBuffer::new_in(alloc.clone());
        m.try_reserve_exact(len)?;
        for _ in 0..len {
            m.try_push(first_id)?;
        }
        ScalarBuffer::try_from_buffer(m.into_buffer())?
    };
    let offsets = match mode {
        UnionMode::Sparse => None,
        UnionMode::Dense if len == 0 => Some(ScalarBuffer::empty()),
        UnionMode::Dense => {
            i32::try_from(len - 1).map_err(|_| Error::CapacityOverflow)?;
            let mut m = MutableBuffer::new_in(alloc.clone());
            m.try_reserve_exact(len.checked_mul(4).ok_or(Error::CapacityOverflow)?)?;
            for i in 0..len {
                m.try_push(i32::try_from(i).map_err(|_| Error::CapacityOverflow)?)?;
            }
            Some(ScalarBuffer::try_from_buffer(m.into_buffer())?)
        }
    };
    let children = if fields.is_empty() {
        SharedSlice::empty()
    } else {
        let f = fields.fields();
        SharedSlice::try_from_fn_in(f.len(), alloc.clone(), |i| {
            let child_len = match mode {
                UnionMode::Dense if i > 0 => 0,
                _ => len,
            };
            let field = f.get(i).ok_or(Error::InvalidDataType)?;
            null_array(field.data_type(), child_len, z, alloc)
        })?
    };
    let a = UnionArray::try_new(fields.clone(), mode, type_ids, offsets, children)?;
    Ok(a.into_array_ref())
}

#[cfg(feature = "run-end")]
fn null_run_end<'a, A: Allocator + Clone>(
    dt: &DataType<'a, A>,
    ends: &FieldRef<'a, A>,
    values: &FieldRef<'a, A>,
    len: usize,
    z: &mut Zeros<A>,
    alloc: &A,
) -> Result<ArrayRef<'a, A>> {
    fn one_run<'a, R: RunEndIndexType, A: Allocator + Clone>(
        dt: &DataType<'a, A>,
        len: usize,
        alloc: &A,
    ) -> Result<RunEnds<'a, A>> {
        let values = if len == 0 {
            ScalarBuffer::empty()
        } else {
            let end = R::from_usize(len).ok_or(Error::CapacityOverflow)?;
            ScalarBuffer::try_copy_in(&[end], alloc.clone())?
        };
        Ok(R::into_run_ends(PrimitiveArray::try_new(
            dt.clone(),
            values,
            None,
        )?))
    }
    let run_ends = match ends.data_type() {
        DataType::Int16 => one_run::<i16, A>(ends.data_type(), len, alloc)?,
        DataType::Int32 => one_run::<i32, A>(ends.data_type(), len, alloc)?,
        DataType::Int64 => one_run::<i64, A>(ends.data_type(), len, alloc)?,
        _ => return Err(Error::InvalidDataType),
    };
    let n_runs = usize::from(len > 0);
    let values = null_array(values.data_type(), n_runs, z, alloc)?;
    let values = SharedBox::try_new_in(values, alloc.clone())?;
    let a = RunArray::try_new_with_offset(dt.clone(), run_ends, values, 0, len)?;
    Ok(a.into_array_ref())
}
