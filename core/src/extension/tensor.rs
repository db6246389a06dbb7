//! What the two tensor extension types share: [`Dims`] (a shape, strides or
//! multi-index of at most [`MAX_NDIM`] entries, no allocation), the checks
//! of `permutation` and `dim_names`, row-major strides, and [`Tensor`], the
//! view of one tensor of an array.
//!
//! Terms ("Fixed shape tensor" / "Variable shape tensor" of the canonical
//! extension types): the *physical* shape is the shape of the row-major
//! (C-contiguous) storage; the *logical* view has dimension `i` equal to
//! physical dimension `permutation[i]`, so `logical_shape[i] =
//! shape[permutation[i]]`. Strides are in elements, not bytes.

use core::fmt;
use core::ops::Deref;

use allocator_api2::alloc::Allocator;

use crate::array::{Array, ArrayRef, PrimitiveType};
use crate::buffer::{SharedSlice, SharedStr};
use crate::error::{Error, Result};

/// Most dimensions a tensor extension type may have (numpy's historical
/// limit). Metadata with more is refused with
/// [`Error::InvalidExtensionMetadata`].
pub const MAX_NDIM: usize = 32;

/// Up to [`MAX_NDIM`] sizes, strides or indices, inline (no allocation).
/// Dereferences to the slice of its entries.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Dims {
    len: u8,
    items: [usize; MAX_NDIM],
}

impl Dims {
    /// No entries (a 0-dimensional tensor's shape).
    pub const EMPTY: Dims = Dims {
        len: 0,
        items: [0; MAX_NDIM],
    };

    /// A copy of `items`.
    ///
    /// # Errors
    /// [`Error::InvalidExtensionMetadata`] when there are more than [`MAX_NDIM`].
    pub fn try_from_slice(items: &[usize]) -> Result<Self> {
        let mut d = Dims::EMPTY;
        d.items
            .get_mut(..items.len())
            .ok_or(Error::InvalidExtensionMetadata)?
            .copy_from_slice(items);
        d.len = items.len() as u8; // <= MAX_NDIM
        Ok(d)
    }

    /// Builds `n <= MAX_NDIM` entries with `f(0)`, `f(1)`, …
    pub(crate) fn try_from_fn(n: usize, mut f: impl FnMut(usize) -> Option<usize>) -> Option<Self> {
        let mut d = Dims::EMPTY;
        for (i, slot) in d.items.get_mut(..n)?.iter_mut().enumerate() {
            *slot = f(i)?;
        }
        d.len = n as u8;
        Some(d)
    }

    /// The entries.
    pub fn as_slice(&self) -> &[usize] {
        self.items.get(..usize::from(self.len)).unwrap_or(&[])
    }
}

impl Deref for Dims {
    type Target = [usize];
    fn deref(&self) -> &[usize] {
        self.as_slice()
    }
}

impl fmt::Debug for Dims {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_slice(), f)
    }
}

impl PartialEq<[usize]> for Dims {
    fn eq(&self, other: &[usize]) -> bool {
        self.as_slice() == other
    }
}

/// Number of elements of a tensor of `shape` (1 for no dimensions), or
/// `None` on overflow.
pub(crate) fn product(shape: &[usize]) -> Option<usize> {
    shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d))
}

/// Row-major strides of `shape` in elements (`strides[ndim-1] = 1`), or
/// `None` when a product overflows.
pub(crate) fn row_major_strides(shape: &[usize]) -> Option<Dims> {
    let n = shape.len();
    let mut out = Dims::try_from_fn(n, |_| Some(0))?;
    let mut acc = 1usize;
    for i in (0..n).rev() {
        *out.items.get_mut(i)? = acc;
        acc = acc.checked_mul(*shape.get(i)?)?;
    }
    Some(out)
}

/// `values[permutation[i]]` for each `i` (the identity without a permutation).
pub(crate) fn permuted(values: &[usize], permutation: Option<&[usize]>) -> Dims {
    let n = values.len();
    let get = |i: usize| match permutation {
        Some(p) => values.get(*p.get(i)?).copied(),
        None => values.get(i).copied(),
    };
    Dims::try_from_fn(n, get).unwrap_or(Dims::EMPTY)
}

/// Checks that `permutation` holds each of `0..ndim` once.
///
/// # Errors
/// [`Error::InvalidPermutation`].
pub(crate) fn check_permutation(permutation: &[usize], ndim: usize) -> Result<()> {
    if permutation.len() != ndim || ndim > MAX_NDIM {
        return Err(Error::InvalidPermutation);
    }
    let mut seen: u64 = 0;
    for &p in permutation {
        if p >= ndim || seen & (1 << p) != 0 {
            return Err(Error::InvalidPermutation);
        }
        seen |= 1 << p;
    }
    Ok(())
}

/// Checks that there is one dimension name per dimension.
///
/// # Errors
/// [`Error::DimensionCountMismatch`].
pub(crate) fn check_dim_names<A: Allocator>(
    names: Option<&[SharedStr<'_, A>]>,
    ndim: usize,
) -> Result<()> {
    match names {
        Some(n) if n.len() != ndim => Err(Error::DimensionCountMismatch),
        _ => Ok(()),
    }
}

/// Copies `names` into a new slice of strings from `alloc`.
pub(crate) fn try_names_in<'a, A: Allocator + Clone>(
    names: &[&str],
    alloc: A,
) -> Result<SharedSlice<'a, SharedStr<'a, A>, A>> {
    SharedSlice::try_from_fn_in(names.len(), alloc.clone(), |i| {
        SharedStr::try_from_str_in(names.get(i).copied().unwrap_or(""), alloc.clone())
    })
}

/// Element offset of `index` with `strides`, or `None` when `index` does not
/// have one entry per dimension or an entry is not below its size.
fn offset_of(index: &[usize], sizes: &[usize], strides: &[usize]) -> Option<usize> {
    if index.len() != sizes.len() || strides.len() != sizes.len() {
        return None;
    }
    let mut off = 0usize;
    for ((&i, &n), &s) in index.iter().zip(sizes).zip(strides) {
        if i >= n {
            return None;
        }
        off = off.checked_add(i.checked_mul(s)?)?;
    }
    Some(off)
}

/// One tensor of a fixed- or variable-shape tensor array: its physical
/// shape, the type's permutation and dimension names, and its elements (a
/// zero-copy slice of the storage's child, `product(shape)` elements in
/// row-major order).
#[derive(Clone)]
pub struct Tensor<
    't,
    'a,
    #[cfg(feature = "alloc")] A: Allocator = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator,
> {
    shape: Dims,
    strides: Dims,
    permutation: Option<&'t [usize]>,
    dim_names: Option<&'t [SharedStr<'a, A>]>,
    values: ArrayRef<'a, A>,
}

impl<'t, 'a, A: Allocator> Tensor<'t, 'a, A> {
    /// A tensor of physical `shape` over `values`; the caller has checked
    /// that `values` holds `product(shape)` elements and the permutation.
    pub(crate) fn new(
        shape: Dims,
        permutation: Option<&'t [usize]>,
        dim_names: Option<&'t [SharedStr<'a, A>]>,
        values: ArrayRef<'a, A>,
    ) -> Option<Self> {
        Some(Tensor {
            strides: row_major_strides(&shape)?,
            shape,
            permutation,
            dim_names,
            values,
        })
    }

    /// Number of dimensions.
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }

    /// The physical (row-major) shape.
    pub fn shape(&self) -> &Dims {
        &self.shape
    }

    /// Row-major strides of the physical shape, in elements.
    pub fn strides(&self) -> &Dims {
        &self.strides
    }

    /// The shape of the logical view: `shape[permutation[i]]`.
    pub fn logical_shape(&self) -> Dims {
        permuted(&self.shape, self.permutation)
    }

    /// Strides of the logical view, in elements: `strides[permutation[i]]`.
    pub fn logical_strides(&self) -> Dims {
        permuted(&self.strides, self.permutation)
    }

    /// The permutation of the type, if any.
    pub fn permutation(&self) -> Option<&'t [usize]> {
        self.permutation
    }

    /// Name of physical dimension `i`, if the type names its dimensions.
    pub fn dim_name(&self, i: usize) -> Option<&'t str> {
        self.dim_names?.get(i).map(|s| s.as_str())
    }

    /// Name of logical dimension `i` (`dim_names[permutation[i]]`).
    pub fn logical_dim_name(&self, i: usize) -> Option<&'t str> {
        let p = match self.permutation {
            Some(p) => *p.get(i)?,
            None => i,
        };
        self.dim_name(p)
    }

    /// Number of elements (`product(shape)`).
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// `true` when the tensor has no element (a dimension of size 0).
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The elements in row-major order (a zero-copy slice of the storage).
    pub fn values(&self) -> &ArrayRef<'a, A> {
        &self.values
    }

    /// Position in [`Self::values`] of the element at physical multi-index
    /// `index`; `None` when `index` has not `ndim` entries or one is out of range.
    pub fn offset(&self, index: &[usize]) -> Option<usize> {
        offset_of(index, &self.shape, &self.strides)
    }

    /// Position in [`Self::values`] of the element at logical multi-index
    /// `index` (logical dimension `i` is physical dimension `permutation[i]`).
    pub fn logical_offset(&self, index: &[usize]) -> Option<usize> {
        offset_of(index, &self.logical_shape(), &self.logical_strides())
    }

    /// The element at physical multi-index `index` when the elements are
    /// primitive values of `T`; `None` when null, out of range or of another type.
    pub fn value<T: PrimitiveType>(&self, index: &[usize]) -> Option<T> {
        T::downcast(&self.values)?.get(self.offset(index)?)
    }

    /// As [`Self::value`] with a logical multi-index.
    pub fn logical_value<T: PrimitiveType>(&self, index: &[usize]) -> Option<T> {
        T::downcast(&self.values)?.get(self.logical_offset(index)?)
    }
}

impl<A: Allocator> fmt::Debug for Tensor<'_, '_, A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tensor")
            .field("shape", &self.shape)
            .field("permutation", &self.permutation)
            .field("values", &self.values)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::array::PrimitiveArray;
    use crate::Global;

    #[test]
    fn strides_and_products() {
        assert_eq!(row_major_strides(&[2, 3, 4]).unwrap(), [12usize, 4, 1][..]);
        assert_eq!(row_major_strides(&[]).unwrap(), [][..]);
        assert_eq!(product(&[]), Some(1));
        assert_eq!(product(&[2, 0, 7]), Some(0));
        assert_eq!(product(&[usize::MAX, 2]), None);
        assert_eq!(row_major_strides(&[usize::MAX, 2, 2]), None);
    }

    #[test]
    fn spec_permuted_shape() {
        // "{ "shape": [100, 200, 500], "permutation": [2, 0, 1] }" → [500, 100, 200].
        assert_eq!(
            permuted(&[100, 200, 500], Some(&[2, 0, 1])),
            [500usize, 100, 200][..]
        );
        assert_eq!(permuted(&[100, 200], None), [100usize, 200][..]);
    }

    #[test]
    fn permutation_rule() {
        assert_eq!(check_permutation(&[2, 0, 1], 3), Ok(()));
        assert_eq!(check_permutation(&[], 0), Ok(()));
        for bad in [&[0usize, 0, 1][..], &[0, 1], &[0, 1, 3], &[0, 1, 2, 3]] {
            assert_eq!(check_permutation(bad, 3), Err(Error::InvalidPermutation));
        }
    }

    #[test]
    fn dims_capacity() {
        assert_eq!(
            Dims::try_from_slice(&[1; MAX_NDIM + 1]),
            Err(Error::InvalidExtensionMetadata)
        );
        assert_eq!(
            Dims::try_from_slice(&[1; MAX_NDIM]).unwrap().len(),
            MAX_NDIM
        );
    }

    #[test]
    fn multi_index_access() {
        // Physical shape [2, 3, 4], values 0..24; logical view = transpose [2, 0, 1].
        let v: std::vec::Vec<i32> = (0..24).collect();
        let values = PrimitiveArray::<i32, Global>::try_from_options_in(
            &v.iter().map(|&x| Some(x)).collect::<std::vec::Vec<_>>(),
            Global,
        )
        .unwrap()
        .into_array_ref();
        let perm = [2usize, 0, 1];
        let t = Tensor::<Global>::new(
            Dims::try_from_slice(&[2, 3, 4]).unwrap(),
            Some(&perm),
            None,
            values,
        )
        .unwrap();
        assert_eq!(t.strides(), &[12usize, 4, 1][..]);
        assert_eq!(t.logical_shape(), [4usize, 2, 3][..]);
        assert_eq!(t.logical_strides(), [1usize, 12, 4][..]);
        assert_eq!(t.value::<i32>(&[1, 2, 3]), Some(23));
        assert_eq!(t.offset(&[1, 0, 2]), Some(14));
        // logical (k, i, j) is physical (i, j, k).
        assert_eq!(t.logical_value::<i32>(&[3, 1, 2]), Some(23));
        assert_eq!(t.logical_value::<i32>(&[0, 1, 0]), Some(12));
        assert_eq!(t.logical_offset(&[1, 0, 0]), Some(1));
        assert_eq!(t.value::<i32>(&[2, 0, 0]), None);
        assert_eq!(t.value::<i32>(&[0, 0]), None);
        assert_eq!(t.value::<i64>(&[0, 0, 0]), None);
    }
}
