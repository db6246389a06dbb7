//! `arrow.variable_shape_tensor` ("Variable shape tensor" of the canonical
//! extension types): every slot is one tensor with its own shape, stored as
//! `Struct<data: List<T>, shape: FixedSizeList<Int32>[ndim]>`: `data` holds
//! the elements in row-major order, `shape` the physical shape.

use allocator_api2::alloc::Allocator;
use derive_where::derive_where;
use serde::Deserialize;

use super::fixed_shape_tensor::to_usize;
use super::json::{self, Bounded, JsonStr, MetadataSink};
use super::tensor::{self, Dims, Tensor, MAX_NDIM};
use super::{ExtensionArray, ExtensionType};
use crate::array::{
    Array, ArrayRef, FixedSizeListArray, FixedSizeListBuilder, ListArray, ListBuilder,
    PrimitiveBuilder, PrimitiveType, StructArray, ValidationLevel,
};
use crate::buffer::{NullBuffer, NullBufferBuilder, SharedSlice, SharedStr};
use crate::datatypes::{DataType, Field};
use crate::error::{Error, Result};

/// `ARROW:extension:name` of variable-shape tensors.
pub(crate) const NAME: &str = "arrow.variable_shape_tensor";

/// Name of the storage field holding the elements.
const DATA: &str = "data";
/// Name of the storage field holding the shapes.
const SHAPE: &str = "shape";

/// The parameters of a variable-shape tensor type, all optional:
/// `dim_names` and `permutation` as for fixed-shape tensors, and
/// `uniform_shape`: the size of each dimension that is the same for every
/// tensor of the array (`None` for the dimensions that vary). The value type
/// and the number of dimensions come from the storage.
///
/// Metadata: empty, or `{"dim_names": ["C", "H", "W"]}`, `{"dim_names":
/// ["H", "W", "C"], "uniform_shape": [400, null, 3]}`, `{"permutation": [2,
/// 0, 1]}`. Unknown keys are ignored.
///
/// ```
/// use alkaid::extension::{ExtensionType, VariableShapeTensorType};
/// use alkaid::Global;
///
/// let ty = VariableShapeTensorType::try_from_metadata(
///     r#"{"dim_names": ["H", "W", "C"], "uniform_shape": [400, null, 3]}"#,
///     Global,
/// )?;
/// assert_eq!(ty.ndim(), Some(3));
/// assert_eq!(ty.uniform_shape(), Some(&[Some(400), None, Some(3)][..]));
/// // Parameters must agree on the number of dimensions.
/// let bad = VariableShapeTensorType::<Global>::try_from_metadata(
///     r#"{"dim_names": ["H", "W"], "uniform_shape": [400, null, 3]}"#,
///     Global,
/// );
/// assert!(bad.is_err()); // Error::DimensionCountMismatch
/// # Ok::<(), alkaid::Error>(())
/// ```
#[derive_where(Clone, Debug, PartialEq)]
pub struct VariableShapeTensorType<
    'a,
    #[cfg(feature = "alloc")] A: Allocator = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator,
> {
    dim_names: Option<SharedSlice<'a, SharedStr<'a, A>, A>>,
    permutation: Option<SharedSlice<'a, usize, A>>,
    uniform_shape: Option<SharedSlice<'a, Option<usize>, A>>,
}

/// The metadata object as parsed (no allocation; strings still escaped).
#[derive(Deserialize)]
struct Raw<'s> {
    #[serde(borrow, default)]
    dim_names: Option<Bounded<JsonStr<'s>, MAX_NDIM>>,
    #[serde(default)]
    permutation: Option<Bounded<i64, MAX_NDIM>>,
    #[serde(default)]
    uniform_shape: Option<Bounded<Option<i64>, MAX_NDIM>>,
}

impl<'a, A: Allocator> VariableShapeTensorType<'a, A> {
    /// A type with optional parameters; those given must agree on the
    /// number of dimensions.
    ///
    /// # Errors
    /// [`Error::InvalidExtensionMetadata`] for more than [`MAX_NDIM`]
    /// dimensions or a uniform size above `i32::MAX`;
    /// [`Error::InvalidPermutation`] when `permutation` is not a permutation
    /// of `0..ndim`; [`Error::DimensionCountMismatch`] when `dim_names` or
    /// `uniform_shape` does not have `ndim` entries.
    pub fn try_new(
        dim_names: Option<SharedSlice<'a, SharedStr<'a, A>, A>>,
        permutation: Option<SharedSlice<'a, usize, A>>,
        uniform_shape: Option<SharedSlice<'a, Option<usize>, A>>,
    ) -> Result<Self> {
        let ty = VariableShapeTensorType {
            dim_names,
            permutation,
            uniform_shape,
        };
        if let Some(n) = ty.ndim() {
            if n > MAX_NDIM {
                return Err(Error::InvalidExtensionMetadata);
            }
            ty.check_ndim(n)?;
        }
        let too_big = |d: &Option<usize>| d.is_some_and(|d| i32::try_from(d).is_err());
        if ty.uniform_shape().is_some_and(|u| u.iter().any(too_big)) {
            return Err(Error::InvalidExtensionMetadata);
        }
        Ok(ty)
    }

    /// As [`Self::try_new`], copying the parameters into memory from `alloc`.
    ///
    /// # Errors
    /// As [`Self::try_new`]; [`Error::AllocationFailed`].
    pub fn try_new_in(
        dim_names: Option<&[&str]>,
        permutation: Option<&[usize]>,
        uniform_shape: Option<&[Option<usize>]>,
        alloc: A,
    ) -> Result<Self>
    where
        A: Clone,
    {
        let names = match dim_names {
            Some(n) => Some(tensor::try_names_in(n, alloc.clone())?),
            None => None,
        };
        let perm = match permutation {
            Some(p) => Some(SharedSlice::try_from_slice_in(p, alloc.clone())?),
            None => None,
        };
        let uniform = match uniform_shape {
            Some(u) => Some(SharedSlice::try_from_slice_in(u, alloc)?),
            None => None,
        };
        Self::try_new(names, perm, uniform)
    }

    /// The number of dimensions the parameters imply (`None` when none is given).
    pub fn ndim(&self) -> Option<usize> {
        self.permutation()
            .map(<[_]>::len)
            .or(self.dim_names().map(<[_]>::len))
            .or(self.uniform_shape().map(<[_]>::len))
    }

    /// Checks every parameter against `ndim` dimensions.
    fn check_ndim(&self, ndim: usize) -> Result<()> {
        if let Some(p) = self.permutation() {
            tensor::check_permutation(p, ndim)?;
        }
        tensor::check_dim_names(self.dim_names(), ndim)?;
        match self.uniform_shape() {
            Some(u) if u.len() != ndim => Err(Error::DimensionCountMismatch),
            _ => Ok(()),
        }
    }

    /// The dimension names (of the physical dimensions), if given.
    pub fn dim_names(&self) -> Option<&[SharedStr<'a, A>]> {
        self.dim_names.as_deref()
    }

    /// The permutation, if given (logical dimension `i` is physical
    /// dimension `permutation[i]`).
    pub fn permutation(&self) -> Option<&[usize]> {
        self.permutation.as_deref()
    }

    /// The uniform shape, if given: `Some(size)` for a dimension whose size
    /// every tensor shares, `None` for one that varies.
    pub fn uniform_shape(&self) -> Option<&[Option<usize>]> {
        self.uniform_shape.as_deref()
    }

    /// The storage type for elements of `value_type` and `ndim` dimensions:
    /// `Struct<data: List<item: value_type>, shape: FixedSizeList<item: Int32>[ndim]>`
    /// (every field nullable).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `ndim` exceeds `i32::MAX`;
    /// [`Error::AllocationFailed`].
    pub fn try_storage_type_in(
        value_type: DataType<'a, A>,
        ndim: usize,
        alloc: A,
    ) -> Result<DataType<'a, A>>
    where
        A: Clone,
    {
        let n = i32::try_from(ndim).map_err(|_| Error::InvalidArgument)?;
        let item =
            |dt| crate::buffer::SharedBox::try_new_in(Field::new("item", dt, true), alloc.clone());
        let data = DataType::List(item(value_type)?);
        let shape = DataType::FixedSizeList(item(DataType::Int32)?, n);
        let fields = [Field::new(DATA, data, true), Field::new(SHAPE, shape, true)];
        Ok(DataType::Struct(SharedSlice::try_from_iter_in(
            fields, alloc,
        )?))
    }
}

/// Positions of `data` and `shape` in the storage struct, and `ndim`.
fn storage_layout<A: Allocator>(storage: &DataType<'_, A>) -> Result<(usize, usize, usize)> {
    let DataType::Struct(fields) = storage else {
        return Err(Error::ExtensionStorageMismatch);
    };
    let pos = |name: &str| fields.iter().position(|f| f.name() == name);
    let (Some(d), Some(s), 2) = (pos(DATA), pos(SHAPE), fields.len()) else {
        return Err(Error::ExtensionStorageMismatch);
    };
    let data_ok = matches!(fields.get(d).map(Field::data_type), Some(DataType::List(_)));
    let ndim = match fields.get(s).map(Field::data_type) {
        Some(DataType::FixedSizeList(item, n)) if *item.data_type() == DataType::Int32 => {
            usize::try_from(*n).ok().filter(|&n| n <= MAX_NDIM)
        }
        _ => None,
    };
    match (data_ok, ndim) {
        (true, Some(n)) => Ok((d, s, n)),
        _ => Err(Error::ExtensionStorageMismatch),
    }
}

impl<'a, A: Allocator + Clone> ExtensionType<'a, A> for VariableShapeTensorType<'a, A> {
    const NAME: &'static str = NAME;
    type Storage = StructArray<'a, A>;

    /// Parses `{"dim_names": [..], "permutation": [..], "uniform_shape":
    /// [..]}`; absent or empty metadata means no parameter.
    fn try_deserialize_metadata(metadata: Option<&str>, alloc: A) -> Result<Self> {
        let text = match metadata {
            Some(s) if !s.trim_matches([' ', '\t', '\n', '\r']).is_empty() => s,
            _ => return Self::try_new(None, None, None),
        };
        let raw: Raw<'_> = json::from_json(text)?;
        let names = match &raw.dim_names {
            Some(n) => Some(SharedSlice::try_from_fn_in(
                n.as_slice().len(),
                alloc.clone(),
                |i| {
                    let s = n.as_slice().get(i).copied().unwrap_or_default();
                    json::unescape_in(s, alloc.clone())
                },
            )?),
            None => None,
        };
        let perm = match &raw.permutation {
            Some(p) => Some(SharedSlice::try_from_slice_in(
                &to_usize(p.as_slice(), Error::InvalidPermutation)?,
                alloc.clone(),
            )?),
            None => None,
        };
        let uniform = match &raw.uniform_shape {
            Some(u) => {
                let u = u.as_slice();
                Some(SharedSlice::try_from_fn_in(u.len(), alloc, |i| {
                    match u.get(i).copied().flatten() {
                        None => Ok(None),
                        Some(d) => usize::try_from(d)
                            .map(Some)
                            .map_err(|_| Error::InvalidExtensionMetadata),
                    }
                })?)
            }
            None => None,
        };
        Self::try_new(names, perm, uniform)
    }

    /// Writes nothing (the minimal metadata) without parameters.
    fn write_metadata<W: MetadataSink + ?Sized>(&self, out: &mut W) -> Result<()> {
        if self.ndim().is_none() {
            return Ok(());
        }
        let mut sep: &[u8] = b"{";
        if let Some(names) = &self.dim_names {
            out.try_write(sep)?;
            out.try_write(b"\"dim_names\":")?;
            json::write_array(out, names, |w, s| json::write_str(w, s))?;
            sep = b",";
        }
        if let Some(p) = &self.permutation {
            out.try_write(sep)?;
            out.try_write(b"\"permutation\":")?;
            json::write_array(out, p, |w, &x| json::write_u64(w, x as u64))?;
            sep = b",";
        }
        if let Some(u) = &self.uniform_shape {
            out.try_write(sep)?;
            out.try_write(b"\"uniform_shape\":")?;
            json::write_array(out, u, |w, x| match x {
                Some(d) => json::write_u64(w, *d as u64),
                None => w.try_write(b"null"),
            })?;
        }
        out.try_write(b"}")
    }

    /// A struct of exactly `data: List<T>` and `shape:
    /// FixedSizeList<Int32>[ndim]` (in any order, `ndim <= MAX_NDIM`), with
    /// parameters of `ndim` entries.
    fn check_storage_type(&self, storage: &DataType<'a, A>) -> Result<()> {
        let (_, _, ndim) = storage_layout(storage)?;
        self.check_ndim(ndim)
    }

    fn downcast_storage(storage: ArrayRef<'a, A>) -> Result<Self::Storage> {
        match storage {
            ArrayRef::Struct(s) => Ok(s),
            _ => Err(Error::ExtensionStorageMismatch),
        }
    }

    /// At [`ValidationLevel::Full`], for every valid slot: the shape is
    /// present, non-null and non-negative, its product is the length of
    /// the slot's data, and uniform dimensions have their uniform size.
    fn validate_storage(&self, storage: &Self::Storage, level: ValidationLevel) -> Result<()> {
        if level < ValidationLevel::Full {
            return Ok(());
        }
        let (data, shapes) = columns(storage)?;
        for i in 0..storage.len() {
            if storage.is_null(i) {
                continue;
            }
            let shape = row_shape(&shapes, i).ok_or(Error::TensorSizeMismatch)?;
            if let Some(u) = self.uniform_shape() {
                let fits = |(s, u): (&usize, &Option<usize>)| u.is_none_or(|u| u == *s);
                if !shape.iter().zip(u).all(fits) {
                    return Err(Error::UniformShapeViolated);
                }
            }
            if tensor::product(&shape) != data.value_length(i) {
                return Err(Error::TensorSizeMismatch);
            }
        }
        Ok(())
    }
}

/// The `data` and `shape` children of `storage`, sliced to its view.
fn columns<'a, A: Allocator + Clone>(
    storage: &StructArray<'a, A>,
) -> Result<(ListArray<'a, A>, FixedSizeListArray<'a, A>)> {
    let (d, s, _) = storage_layout(storage.data_type())?;
    match (storage.column(d), storage.column(s)) {
        (Some(ArrayRef::List(d)), Some(ArrayRef::FixedSizeList(s))) => Ok((d, s)),
        _ => Err(Error::ExtensionStorageMismatch),
    }
}

/// The shape of slot `i`: `None` when null, holding a null or a negative size.
fn row_shape<A: Allocator>(shapes: &FixedSizeListArray<'_, A>, i: usize) -> Option<Dims> {
    let row = shapes.get(i)?;
    let sizes = <i32 as PrimitiveType>::downcast(&row)?;
    if sizes.null_count() > 0 {
        return None;
    }
    Dims::try_from_fn(sizes.len(), |k| usize::try_from(sizes.value(k)?).ok())
}

/// An array of variable-shape tensors: slot `i` is one tensor (or null).
pub type VariableShapeTensorArray<
    'a,
    #[cfg(feature = "alloc")] A = crate::Global,
    #[cfg(not(feature = "alloc"))] A,
> = ExtensionArray<'a, VariableShapeTensorType<'a, A>, A>;

impl<'a, A: Allocator + Clone> ExtensionArray<'a, VariableShapeTensorType<'a, A>, A> {
    /// An array over the `data` lists and `shape` lists (same length), with
    /// an optional validity bitmap; the storage struct's fields are `data`
    /// and `shape`, nullable.
    ///
    /// # Errors
    /// As [`StructArray::try_new`] and [`ExtensionArray::try_new`] (e.g.
    /// [`Error::TensorSizeMismatch`], [`Error::UniformShapeViolated`]);
    /// [`Error::AllocationFailed`].
    pub fn try_from_parts_in(
        ty: VariableShapeTensorType<'a, A>,
        data: ListArray<'a, A>,
        shape: FixedSizeListArray<'a, A>,
        nulls: Option<NullBuffer<'a, A>>,
        alloc: A,
    ) -> Result<Self> {
        let fields = [
            Field::new(DATA, data.data_type().clone(), true),
            Field::new(SHAPE, shape.data_type().clone(), true),
        ];
        let fields = SharedSlice::try_from_iter_in(fields, alloc.clone())?;
        let children = [data.into_array_ref(), shape.into_array_ref()];
        let children = SharedSlice::try_from_iter_in(children, alloc)?;
        Self::try_new(ty, StructArray::try_new(fields, children, nulls)?)
    }

    /// Number of dimensions of every tensor (the storage's shape list size).
    pub fn ndim(&self) -> usize {
        storage_layout(self.storage().data_type()).map_or(0, |(_, _, n)| n)
    }

    /// Tensor `i` whatever its validity (its elements are a zero-copy slice
    /// of the storage's data); `None` when `i >= len`, or when its shape is
    /// null, negative or disagrees with its data (possible only in arrays
    /// made with [`ExtensionArray::new_unchecked`]).
    pub fn value(&self, i: usize) -> Option<Tensor<'_, 'a, A>> {
        let (data, shapes) = columns(self.storage()).ok()?;
        let shape = row_shape(&shapes, i)?;
        let values = data.value(i)?;
        if tensor::product(&shape) != Some(values.len()) {
            return None;
        }
        let ty = self.extension();
        Tensor::new(shape, ty.permutation(), ty.dim_names(), values)
    }

    /// Tensor `i`, `None` when null or `i >= len`.
    pub fn get(&self, i: usize) -> Option<Tensor<'_, 'a, A>> {
        if self.is_valid(i) {
            self.value(i)
        } else {
            None
        }
    }

    /// The tensors in order, `None` for null slots.
    pub fn iter(&self) -> impl Iterator<Item = Option<Tensor<'_, 'a, A>>> + '_ {
        (0..self.len()).map(move |i| self.get(i))
    }
}

/// Builds a [`VariableShapeTensorArray`] of primitive elements `T`, one
/// tensor (shape and row-major values) at a time, in memory from `A`.
///
/// ```
/// use alkaid::array::Array;
/// use alkaid::extension::{VariableShapeTensorBuilder, VariableShapeTensorType};
/// use alkaid::Global;
///
/// // Images of 3 channels and any height and width.
/// let ty = VariableShapeTensorType::try_new_in(None, None, Some(&[None, None, Some(3)]), Global)?;
/// let mut b = VariableShapeTensorBuilder::<u8>::try_new_in(ty, 3, Global)?;
/// b.try_append(&[1, 2, 3], &[1, 2, 3, 4, 5, 6])?;
/// b.try_append_null()?;
/// b.try_append(&[2, 1, 3], &[9; 6])?;
/// assert!(b.try_append(&[1, 1, 4], &[0; 4]).is_err()); // Error::UniformShapeViolated
/// assert!(b.try_append(&[1, 1, 3], &[0; 2]).is_err()); // Error::TensorSizeMismatch
/// let images = b.try_finish()?;
/// assert_eq!((images.len(), images.null_count(), images.ndim()), (3, 1, 3));
/// let first = images.get(0).expect("a valid tensor");
/// assert_eq!(first.shape().as_slice(), &[1, 2, 3]);
/// assert_eq!(first.value::<u8>(&[0, 1, 2]), Some(6));
/// # Ok::<(), alkaid::Error>(())
/// ```
pub struct VariableShapeTensorBuilder<
    'a,
    T: PrimitiveType,
    #[cfg(feature = "alloc")] A: Allocator + Clone = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator + Clone,
> {
    ty: VariableShapeTensorType<'a, A>,
    ndim: usize,
    data: ListBuilder<'a, PrimitiveBuilder<'a, T, A>, A>,
    shapes: FixedSizeListBuilder<'a, PrimitiveBuilder<'a, i32, A>, A>,
    nulls: NullBufferBuilder<A>,
    alloc: A,
}

impl<T: PrimitiveType, A: Allocator + Clone> core::fmt::Debug
    for VariableShapeTensorBuilder<'_, T, A>
{
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("VariableShapeTensorBuilder")
            .field("type", &self.ty)
            .field("ndim", &self.ndim)
            .field("len", &self.len())
            .finish()
    }
}

impl<'a, T: PrimitiveType, A: Allocator + Clone> VariableShapeTensorBuilder<'a, T, A> {
    /// An empty builder of tensors of `ndim` dimensions; allocates nothing yet.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `ndim > MAX_NDIM`; the parameter
    /// rules of `ty` against `ndim` ([`Error::InvalidPermutation`],
    /// [`Error::DimensionCountMismatch`]).
    pub fn try_new_in(ty: VariableShapeTensorType<'a, A>, ndim: usize, alloc: A) -> Result<Self> {
        if ndim > MAX_NDIM {
            return Err(Error::InvalidArgument);
        }
        ty.check_ndim(ndim)?;
        Ok(VariableShapeTensorBuilder {
            ty,
            ndim,
            data: ListBuilder::new_in(PrimitiveBuilder::new_in(alloc.clone()), alloc.clone()),
            shapes: FixedSizeListBuilder::new_in(
                PrimitiveBuilder::new_in(alloc.clone()),
                ndim as i32, // <= MAX_NDIM
                alloc.clone(),
            ),
            nulls: NullBufferBuilder::new_in(alloc.clone()),
            alloc,
        })
    }

    /// Number of tensors appended.
    pub fn len(&self) -> usize {
        self.nulls.len()
    }

    /// `true` when no tensor was appended.
    pub fn is_empty(&self) -> bool {
        self.nulls.is_empty()
    }

    /// Appends a tensor of physical `shape` whose elements in row-major
    /// order are `values`.
    ///
    /// # Errors
    /// [`Error::DimensionCountMismatch`] when `shape` has not `ndim` sizes;
    /// [`Error::TensorSizeMismatch`] when a size exceeds `i32::MAX` or
    /// `values` does not hold `product(shape)` elements;
    /// [`Error::UniformShapeViolated`]; [`Error::AllocationFailed`].
    pub fn try_append(&mut self, shape: &[usize], values: &[T]) -> Result<()> {
        if shape.len() != self.ndim {
            return Err(Error::DimensionCountMismatch);
        }
        if tensor::product(shape) != Some(values.len()) {
            return Err(Error::TensorSizeMismatch);
        }
        if let Some(u) = self.ty.uniform_shape() {
            if !shape.iter().zip(u).all(|(s, u)| u.is_none_or(|u| u == *s)) {
                return Err(Error::UniformShapeViolated);
            }
        }
        for &d in shape {
            let d = i32::try_from(d).map_err(|_| Error::TensorSizeMismatch)?;
            self.shapes.values().try_append_value(d)?;
        }
        self.shapes.try_append(true)?;
        self.data.values().try_append_slice(values)?;
        self.data.try_append(true)?;
        self.nulls.try_append(true)
    }

    /// Appends a null slot (no elements, a null shape).
    ///
    /// # Errors
    /// [`Error::AllocationFailed`].
    pub fn try_append_null(&mut self) -> Result<()> {
        self.shapes.try_append_null()?;
        self.data.try_append_null()?;
        self.nulls.try_append_null()
    }

    /// Freezes into an array (no copy of the data).
    ///
    /// # Errors
    /// [`Error::AllocationFailed`]; the array's validation errors.
    pub fn try_finish(self) -> Result<VariableShapeTensorArray<'a, A>> {
        let data = self.data.try_finish()?;
        let shapes = self.shapes.try_finish()?;
        let nulls = self.nulls.finish();
        ExtensionArray::try_from_parts_in(self.ty, data, shapes, nulls, self.alloc)
    }
}
