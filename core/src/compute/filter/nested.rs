//! [`super::filter()`] of structs (every child by the same mask) and
//! dictionaries (their keys; the values are shared), through the
//! dispatcher [`super::filter_mask`].

use allocator_api2::alloc::Allocator;

use super::filter_mask;
use super::mask::Mask;
#[cfg(feature = "nested")]
use super::nulls::filter_nulls;
#[cfg(feature = "nested")]
use crate::array::StructArray;
use crate::array::{Array, ArrayRef};
#[cfg(feature = "dictionary")]
use crate::array::{DictionaryArray, DictionaryKeys};
#[cfg(feature = "nested")]
use crate::compute::children::map_children;
use crate::error::Result;

#[cfg(feature = "nested")]
pub(super) fn filter_struct<'a, A: Allocator + Clone>(
    s: &StructArray<'a, A>,
    mask: &Mask<'_>,
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    let fields = s.fields().clone();
    let range = (s.offset(), s.len());
    let children = map_children(s.children(), fields.len(), range, alloc.clone(), |child| {
        filter_mask(child, mask, alloc.clone())
    })?;
    let nulls = filter_nulls(s.nulls(), mask, alloc)?;
    Ok(StructArray::try_new_cheap(fields, children, mask.count, nulls)?.into_array_ref())
}

#[cfg(feature = "dictionary")]
pub(super) fn filter_dictionary<'a, A: Allocator + Clone>(
    d: &DictionaryArray<'a, A>,
    mask: &Mask<'_>,
    alloc: A,
) -> Result<ArrayRef<'a, A>> {
    let keys = filter_mask(&d.keys().clone().into_array_ref(), mask, alloc)?;
    let keys = DictionaryKeys::try_from(keys)?;
    // SAFETY: every valid key is one of the input's, over the same (shared)
    // dictionary.
    let a = unsafe {
        DictionaryArray::new_unchecked(d.data_type().clone(), keys, d.values_shared().clone())
    };
    a.validate(crate::array::ValidationLevel::Cheap)?;
    Ok(a.into_array_ref())
}
