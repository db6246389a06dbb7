//! `arrow.fixed_shape_tensor` ("Fixed shape tensor" of the canonical
//! extension types): every slot is one tensor of the same shape, stored as a
//! `FixedSizeList<T>[product(shape)]` in row-major order.

use allocator_api2::alloc::Allocator;
use derive_where::derive_where;
use serde::Deserialize;

use super::json::{self, Bounded, JsonStr, MetadataSink};
use super::tensor::{self, Dims, Tensor, MAX_NDIM};
use super::{ExtensionArray, ExtensionType};
use crate::array::{Array, ArrayRef, FixedSizeListArray};
use crate::buffer::{NullBuffer, SharedBox, SharedSlice, SharedStr};
use crate::datatypes::{DataType, Field};
use crate::error::{Error, Result};

/// `ARROW:extension:name` of fixed-shape tensors.
pub(crate) const NAME: &str = "arrow.fixed_shape_tensor";

/// The parameters of a fixed-shape tensor type: the physical `shape`,
/// optional `dim_names` (one per physical dimension) and an optional
/// `permutation` giving the logical layout. The value type is the storage's
/// child type.
///
/// Metadata: `{"shape": [2, 5]}`, `{"shape": [100, 200, 500], "dim_names":
/// ["C", "H", "W"]}`, `{"shape": [100, 200, 500], "permutation": [2, 0, 1]}`
/// (logical shape `[500, 100, 200]`). Unknown keys are ignored.
///
/// ```
/// use alkaid::array::{Array, Float32Array};
/// use alkaid::extension::{FixedShapeTensorArray, FixedShapeTensorType};
/// use alkaid::Global;
///
/// // Two 2×3 matrices, row-major, in one FixedSizeList<Float32>[6].
/// let ty = FixedShapeTensorType::try_new_in(&[2, 3], Some(&["row", "col"]), None, Global)?;
/// assert_eq!((ty.ndim(), ty.list_size()), (2, 6));
/// let values = Float32Array::from_iter_values((0..12).map(|v| v as f32)).into_array_ref();
/// let m = FixedShapeTensorArray::try_from_values_in(ty, values, None, Global)?;
/// assert_eq!(m.len(), 2);
/// let second = m.get(1).expect("a valid tensor");
/// assert_eq!(second.shape().as_slice(), &[2, 3]);
/// assert_eq!(second.strides().as_slice(), &[3, 1]); // in elements
/// assert_eq!(second.value::<f32>(&[1, 2]), Some(11.0));
/// assert_eq!(second.dim_name(1), Some("col"));
/// # Ok::<(), alkaid::Error>(())
/// ```
#[derive_where(Clone, Debug, PartialEq)]
pub struct FixedShapeTensorType<
    'a,
    #[cfg(feature = "alloc")] A: Allocator = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator,
> {
    shape: SharedSlice<'a, usize, A>,
    dim_names: Option<SharedSlice<'a, SharedStr<'a, A>, A>>,
    permutation: Option<SharedSlice<'a, usize, A>>,
    list_size: usize,
}

/// The metadata object as parsed (no allocation; strings still escaped).
#[derive(Deserialize)]
struct Raw<'s> {
    shape: Bounded<i64, MAX_NDIM>,
    #[serde(borrow, default)]
    dim_names: Option<Bounded<JsonStr<'s>, MAX_NDIM>>,
    #[serde(default)]
    permutation: Option<Bounded<i64, MAX_NDIM>>,
}

impl<'a, A: Allocator> FixedShapeTensorType<'a, A> {
    /// A type of physical `shape` with optional dimension names and
    /// permutation (borrowed or shared slices: a firmware can use `static` ones).
    ///
    /// # Errors
    /// [`Error::InvalidExtensionMetadata`] for more than [`MAX_NDIM`]
    /// dimensions or a shape of more than `i32::MAX` elements (the largest
    /// list size); [`Error::DimensionCountMismatch`] when `dim_names` does not
    /// have `ndim` names; [`Error::InvalidPermutation`] when `permutation` is
    /// not a permutation of `0..ndim`.
    pub fn try_new(
        shape: SharedSlice<'a, usize, A>,
        dim_names: Option<SharedSlice<'a, SharedStr<'a, A>, A>>,
        permutation: Option<SharedSlice<'a, usize, A>>,
    ) -> Result<Self> {
        let ndim = shape.len();
        if ndim > MAX_NDIM {
            return Err(Error::InvalidExtensionMetadata);
        }
        let list_size = tensor::product(&shape)
            .filter(|&n| i32::try_from(n).is_ok())
            .ok_or(Error::InvalidExtensionMetadata)?;
        tensor::check_dim_names(dim_names.as_deref(), ndim)?;
        if let Some(p) = &permutation {
            tensor::check_permutation(p, ndim)?;
        }
        Ok(FixedShapeTensorType {
            shape,
            dim_names,
            permutation,
            list_size,
        })
    }

    /// As [`Self::try_new`], copying the parameters into memory from `alloc`.
    ///
    /// # Errors
    /// As [`Self::try_new`]; [`Error::AllocationFailed`].
    pub fn try_new_in(
        shape: &[usize],
        dim_names: Option<&[&str]>,
        permutation: Option<&[usize]>,
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
        Self::try_new(SharedSlice::try_from_slice_in(shape, alloc)?, names, perm)
    }

    /// The physical shape (row-major).
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// Number of dimensions.
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }

    /// The dimension names (of the physical dimensions), if given.
    pub fn dim_names(&self) -> Option<&[SharedStr<'a, A>]> {
        self.dim_names.as_deref()
    }

    /// Name of physical dimension `i`, if names are given.
    pub fn dim_name(&self, i: usize) -> Option<&str> {
        self.dim_names.as_ref()?.get(i).map(|s| s.as_str())
    }

    /// Name of logical dimension `i`: `dim_names[permutation[i]]`.
    pub fn logical_dim_name(&self, i: usize) -> Option<&str> {
        match self.permutation() {
            Some(p) => self.dim_name(*p.get(i)?),
            None => self.dim_name(i),
        }
    }

    /// The permutation, if given (logical dimension `i` is physical
    /// dimension `permutation[i]`).
    pub fn permutation(&self) -> Option<&[usize]> {
        self.permutation.as_deref()
    }

    /// Elements per tensor: the product of the shape (1 for no dimension),
    /// the storage's list size.
    pub fn list_size(&self) -> usize {
        self.list_size
    }

    /// Row-major strides of the physical shape, in elements.
    pub fn strides(&self) -> Dims {
        // The product fits i32, so no stride overflows.
        tensor::row_major_strides(&self.shape).unwrap_or(Dims::EMPTY)
    }

    /// The logical shape: `shape[permutation[i]]`.
    pub fn logical_shape(&self) -> Dims {
        tensor::permuted(&self.shape, self.permutation())
    }

    /// The storage type for elements of `value_type`:
    /// `FixedSizeList(item: value_type (nullable), list_size)`.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`].
    pub fn try_storage_type_in(
        &self,
        value_type: DataType<'a, A>,
        alloc: A,
    ) -> Result<DataType<'a, A>> {
        let item = SharedBox::try_new_in(Field::new("item", value_type, true), alloc)?;
        Ok(DataType::FixedSizeList(item, self.list_size_i32()))
    }

    fn list_size_i32(&self) -> i32 {
        // `try_new` checked that the product fits i32.
        i32::try_from(self.list_size).unwrap_or(i32::MAX)
    }

    /// The tensor at `values` with this type's shape.
    fn tensor<'t>(&'t self, values: ArrayRef<'a, A>) -> Option<Tensor<'t, 'a, A>> {
        Tensor::new(
            Dims::try_from_slice(&self.shape).ok()?,
            self.permutation(),
            self.dim_names(),
            values,
        )
    }
}

/// Converts non-negative JSON integers to sizes.
/// (`err` for a negative one).
pub(crate) fn to_usize(v: &[i64], err: Error) -> Result<Dims> {
    if v.len() > MAX_NDIM {
        return Err(Error::InvalidExtensionMetadata);
    }
    Dims::try_from_fn(v.len(), |i| usize::try_from(*v.get(i)?).ok()).ok_or(err)
}

impl<'a, A: Allocator + Clone> ExtensionType<'a, A> for FixedShapeTensorType<'a, A> {
    const NAME: &'static str = NAME;
    type Storage = FixedSizeListArray<'a, A>;

    /// Parses `{"shape": [..], "dim_names": [..], "permutation": [..]}`
    /// (`shape` required).
    fn try_deserialize_metadata(metadata: Option<&str>, alloc: A) -> Result<Self> {
        let raw: Raw<'_> = json::from_json(metadata.ok_or(Error::InvalidExtensionMetadata)?)?;
        let shape = to_usize(raw.shape.as_slice(), Error::InvalidExtensionMetadata)?;
        let permutation = match &raw.permutation {
            Some(p) => Some(to_usize(p.as_slice(), Error::InvalidPermutation)?),
            None => None,
        };
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
        let perm = match &permutation {
            Some(p) => Some(SharedSlice::try_from_slice_in(p, alloc.clone())?),
            None => None,
        };
        Self::try_new(SharedSlice::try_from_slice_in(&shape, alloc)?, names, perm)
    }

    fn write_metadata<W: MetadataSink + ?Sized>(&self, out: &mut W) -> Result<()> {
        let num = |w: &mut W, &x: &usize| json::write_u64(w, x as u64);
        out.try_write(b"{\"shape\":")?;
        json::write_array(out, &self.shape, num)?;
        if let Some(names) = &self.dim_names {
            out.try_write(b",\"dim_names\":")?;
            json::write_array(out, names, |w, s| json::write_str(w, s))?;
        }
        if let Some(p) = &self.permutation {
            out.try_write(b",\"permutation\":")?;
            json::write_array(out, p, num)?;
        }
        out.try_write(b"}")
    }

    /// `FixedSizeList` of any value type with list size `product(shape)`.
    fn check_storage_type(&self, storage: &DataType<'a, A>) -> Result<()> {
        match storage {
            DataType::FixedSizeList(_, n) if usize::try_from(*n) == Ok(self.list_size) => Ok(()),
            _ => Err(Error::ExtensionStorageMismatch),
        }
    }

    fn downcast_storage(storage: ArrayRef<'a, A>) -> Result<Self::Storage> {
        match storage {
            ArrayRef::FixedSizeList(l) => Ok(l),
            _ => Err(Error::ExtensionStorageMismatch),
        }
    }
}

/// An array of fixed-shape tensors: slot `i` is one tensor (or null).
pub type FixedShapeTensorArray<
    'a,
    #[cfg(feature = "alloc")] A = crate::Global,
    #[cfg(not(feature = "alloc"))] A,
> = ExtensionArray<'a, FixedShapeTensorType<'a, A>, A>;

impl<'a, A: Allocator + Clone> ExtensionArray<'a, FixedShapeTensorType<'a, A>, A> {
    /// An array of tensors of type `ty` over the flat row-major `values`
    /// (`len * list_size` elements; `len` is `values.len() / list_size`, or
    /// the bitmap's length for tensors of no element), with an optional
    /// validity bitmap. The storage's child field is `item`, nullable.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] when `values` is not a whole number of
    /// tensors; as [`FixedSizeListArray::try_new`] and [`ExtensionArray::try_new`];
    /// [`Error::AllocationFailed`].
    pub fn try_from_values_in(
        ty: FixedShapeTensorType<'a, A>,
        values: ArrayRef<'a, A>,
        nulls: Option<NullBuffer<'a, A>>,
        alloc: A,
    ) -> Result<Self> {
        let size = ty.list_size();
        let len = match size {
            0 => nulls.as_ref().map_or(0, |n| n.len()),
            n if values.len() % n == 0 => values.len() / n,
            _ => return Err(Error::LengthMismatch),
        };
        let storage_type = ty.try_storage_type_in(values.data_type().clone(), alloc.clone())?;
        let DataType::FixedSizeList(item, n) = storage_type else {
            return Err(Error::ExtensionStorageMismatch);
        };
        let child = SharedBox::try_new_in(values, alloc)?;
        let storage = FixedSizeListArray::try_new(item, n, len, child, nulls)?;
        Self::try_new(ty, storage)
    }

    /// Tensor `i` whatever its validity (its elements are a zero-copy slice
    /// of the storage's child); `None` when `i >= len`.
    pub fn value(&self, i: usize) -> Option<Tensor<'_, 'a, A>> {
        self.extension().tensor(self.storage().value(i)?)
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
