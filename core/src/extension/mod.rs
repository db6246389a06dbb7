//! Extension types ("Extension Types" of the columnar format) and the
//! canonical extension types of Arrow ("Canonical Extension Types").
//!
//! An extension type is a storage type plus two entries of the field's
//! custom metadata: `ARROW:extension:name` and `ARROW:extension:metadata`
//! (the type's parameters, serialised). The IPC readers and writers keep
//! field metadata as it is, so a column of any extension type — known here or
//! not — reads as its storage array and is written back unchanged.
//!
//! This module gives meaning to the known ones:
//!
//! | name | type | storage | typed array |
//! |---|---|---|---|
//! | `arrow.fixed_shape_tensor` | [`FixedShapeTensorType`] | `FixedSizeList<T>[product(shape)]` | [`FixedShapeTensorArray`] |
//! | `arrow.variable_shape_tensor` | [`VariableShapeTensorType`] | `Struct<data: List<T>, shape: FixedSizeList<Int32>[ndim]>` | [`VariableShapeTensorArray`] |
//! | `arrow.uuid` | [`UuidType`] | `FixedSizeBinary(16)` | [`UuidArray`] |
//! | `arrow.json` | [`JsonType`] | `Utf8`, `LargeUtf8` or `Utf8View` | [`JsonArray`] |
//! | `arrow.bool8` | [`Bool8Type`] | `Int8` | [`Bool8Array`] |
//! | `arrow.opaque` | [`OpaqueType`] | any | [`OpaqueArray`] |
//!
//! [`ExtensionType`] is the trait they implement (an application can
//! implement it for its own types); [`ExtensionArray`] wraps a storage array
//! with its parsed type; [`CanonicalExtensionArray`] picks the typed array
//! from a field's name and leaves any other column as its storage.
//!
//! Metadata is untrusted: parsing never panics, never recurses without bound
//! and never allocates for JSON structure (arrays are parsed into fixed
//! capacity, at most [`MAX_NDIM`] dimensions); only the resulting strings and
//! shapes are copied through the allocator `A`. Serialising writes into any
//! [`MetadataSink`]: a [`MutableBuffer`] or a caller buffer ([`SliceSink`]).
//!
//! ```
//! use alkaid::extension::{ExtensionType, FixedShapeTensorType};
//! use alkaid::datatypes::DataType;
//! use alkaid::Global;
//!
//! let ty = FixedShapeTensorType::try_from_metadata(
//!     r#"{ "shape": [100, 200, 500], "permutation": [2, 0, 1] }"#,
//!     Global,
//! )?;
//! assert_eq!(ty.shape(), &[100, 200, 500]);
//! assert_eq!(ty.logical_shape().as_slice(), &[500, 100, 200]);
//! let storage = ty.try_storage_type_in(DataType::Float32, Global)?;
//! let field = ty.try_field_in("images", storage, true, Global)?;
//! assert_eq!(field.extension_name(), Some("arrow.fixed_shape_tensor"));
//! assert_eq!(
//!     field.extension_metadata(),
//!     Some(r#"{"shape":[100,200,500],"permutation":[2,0,1]}"#)
//! );
//! # Ok::<(), alkaid::Error>(())
//! ```

#[cfg(feature = "nested")]
mod fixed_shape_tensor;
mod json;
mod simple;
#[cfg(feature = "nested")]
mod tensor;
#[cfg(feature = "nested")]
mod variable_shape_tensor;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_arrays;

#[cfg(feature = "nested")]
pub use fixed_shape_tensor::{FixedShapeTensorArray, FixedShapeTensorType};
pub use json::{MetadataSink, SliceSink, MAX_JSON_DEPTH};
pub use simple::{
    Bool8Array, Bool8Type, JsonArray, JsonType, OpaqueArray, OpaqueType, UuidArray, UuidType,
};
#[cfg(feature = "nested")]
pub use tensor::{Dims, Tensor, MAX_NDIM};
#[cfg(feature = "nested")]
pub use variable_shape_tensor::{
    VariableShapeTensorArray, VariableShapeTensorBuilder, VariableShapeTensorType,
};

use core::fmt;
use core::marker::PhantomData;

use allocator_api2::alloc::Allocator;

use crate::array::{Array, ArrayRef, RecordBatch, ValidationLevel};
use crate::buffer::{MutableBuffer, NullBuffer, SharedSlice, SharedStr};
use crate::datatypes::{DataType, Field, Metadata, EXTENSION_METADATA_KEY, EXTENSION_NAME_KEY};
use crate::error::{Error, Result};

/// An extension type: its name, its parameters (parsed from and serialised
/// to `ARROW:extension:metadata`), the storage types it accepts and the
/// typed storage array its [`ExtensionArray`]s wrap.
pub trait ExtensionType<'a, A: Allocator>: Clone + fmt::Debug + PartialEq {
    /// The `ARROW:extension:name` (canonical types start with `arrow.`).
    const NAME: &'static str;

    /// The storage array of [`ExtensionArray`]s of this type.
    type Storage: Array<'a, A>;

    /// Parses the parameters from `ARROW:extension:metadata` (`None` when
    /// the field has no such key). Strings and shapes are copied into memory
    /// from `alloc`.
    ///
    /// # Errors
    /// [`Error::InvalidExtensionMetadata`] and the type's parameter rules;
    /// [`Error::AllocationFailed`].
    fn try_deserialize_metadata(metadata: Option<&str>, alloc: A) -> Result<Self>;

    /// Serialises the parameters (the value of `ARROW:extension:metadata`)
    /// into `out`; deterministic, no whitespace.
    ///
    /// # Errors
    /// The sink's errors ([`Error::AllocationFailed`], [`Error::ScratchTooSmall`]).
    fn write_metadata<W: MetadataSink + ?Sized>(&self, out: &mut W) -> Result<()>;

    /// Checks that `storage` can hold values of this type.
    ///
    /// # Errors
    /// [`Error::ExtensionStorageMismatch`] and the type's parameter rules
    /// that depend on the storage (e.g. [`Error::DimensionCountMismatch`]).
    fn check_storage_type(&self, storage: &DataType<'a, A>) -> Result<()>;

    /// The typed storage inside `storage`.
    ///
    /// # Errors
    /// [`Error::ExtensionStorageMismatch`] when it is of another layout.
    fn downcast_storage(storage: ArrayRef<'a, A>) -> Result<Self::Storage>;

    /// Checks the extension's rules on the storage's values at `level`
    /// (its type was checked by [`Self::check_storage_type`]). The default
    /// checks nothing.
    ///
    /// # Errors
    /// The type's value rules (e.g. [`Error::TensorSizeMismatch`]).
    fn validate_storage(&self, storage: &Self::Storage, level: ValidationLevel) -> Result<()> {
        let _ = (storage, level);
        Ok(())
    }

    /// As [`Self::try_deserialize_metadata`] with metadata present.
    ///
    /// # Errors
    /// As [`Self::try_deserialize_metadata`].
    fn try_from_metadata(metadata: &str, alloc: A) -> Result<Self> {
        Self::try_deserialize_metadata(Some(metadata), alloc)
    }

    /// The type a field declares: checks its name, parses its metadata and
    /// checks its data type as the storage.
    ///
    /// # Errors
    /// [`Error::ExtensionNameMismatch`] when the field's extension name is
    /// absent or another; then as [`Self::try_deserialize_metadata`] and
    /// [`Self::check_storage_type`].
    fn try_from_field(field: &Field<'a, A>, alloc: A) -> Result<Self> {
        if field.extension_name() != Some(Self::NAME) {
            return Err(Error::ExtensionNameMismatch);
        }
        let ty = Self::try_deserialize_metadata(field.extension_metadata(), alloc)?;
        ty.check_storage_type(field.data_type())?;
        Ok(ty)
    }

    /// The serialised parameters in a new string from `alloc`.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`].
    fn try_metadata_in(&self, alloc: A) -> Result<SharedStr<'a, A>>
    where
        A: Clone,
    {
        let mut buf = MutableBuffer::new_in(alloc.clone());
        self.write_metadata(&mut buf)?;
        let text = core::str::from_utf8(buf.as_slice()).map_err(|_| Error::InvalidArgument)?;
        SharedStr::try_from_str_in(text, alloc)
    }

    /// `field` with this extension's name and serialised parameters in its
    /// metadata: other entries are kept in order, earlier extension entries
    /// replaced; the two keys come last.
    ///
    /// # Errors
    /// As [`Self::check_storage_type`] for the field's type;
    /// [`Error::AllocationFailed`].
    fn try_annotate_field(&self, field: Field<'a, A>, alloc: A) -> Result<Field<'a, A>>
    where
        A: Clone,
    {
        self.check_storage_type(field.data_type())?;
        let value = self.try_metadata_in(alloc.clone())?;
        let metadata = try_extension_metadata_in(field.metadata(), Self::NAME, value, alloc)?;
        Ok(field.with_metadata(metadata))
    }

    /// A new field `name` of `storage` type annotated with this extension.
    ///
    /// # Errors
    /// As [`Self::try_annotate_field`].
    fn try_field_in(
        &self,
        name: &str,
        storage: DataType<'a, A>,
        nullable: bool,
        alloc: A,
    ) -> Result<Field<'a, A>>
    where
        A: Clone,
    {
        let field = Field::try_new_in(name, storage, nullable, alloc.clone())?;
        self.try_annotate_field(field, alloc)
    }
}

/// `old` without its extension entries, then `ARROW:extension:name = name`
/// and `ARROW:extension:metadata = value`.
fn try_extension_metadata_in<'a, A: Allocator + Clone>(
    old: &Metadata<'a, A>,
    name: &'static str,
    value: SharedStr<'a, A>,
    alloc: A,
) -> Result<Metadata<'a, A>> {
    let is_ext = |k: &SharedStr<'a, A>| {
        k.as_str() == EXTENSION_NAME_KEY || k.as_str() == EXTENSION_METADATA_KEY
    };
    let mut kept = old.iter().filter(|(k, _)| !is_ext(k));
    let n = kept.clone().count();
    SharedSlice::try_from_fn_in(n + 2, alloc, |i| {
        Ok(match i.checked_sub(n) {
            None => kept.next().cloned().ok_or(Error::InvalidArgument)?,
            Some(0) => (
                SharedStr::borrowed(EXTENSION_NAME_KEY),
                SharedStr::borrowed(name),
            ),
            Some(_) => (SharedStr::borrowed(EXTENSION_METADATA_KEY), value.clone()),
        })
    })
}

/// A storage array with the extension type that gives it meaning.
///
/// It is an [`Array`] of the storage's data type: slicing keeps the type,
/// [`Array::into_array_ref`] gives back the storage (the extension lives in
/// the field, see [`ExtensionType::try_field_in`]).
///
/// A column read back from an IPC stream, recognised by its field:
///
/// ```
/// use alkaid::array::{Array, RecordBatch};
/// use alkaid::datatypes::Schema;
/// use alkaid::extension::Bool8Array;
/// use alkaid::ipc::reader::SliceStreamReader;
/// use alkaid::ipc::writer::StreamWriter;
/// use alkaid::Global;
///
/// let flags = Bool8Array::try_from_options_in(&[Some(true), Some(false)], Global)?;
/// let field = flags.try_field_in("flag", false, Global)?;
/// let batch = RecordBatch::try_new(Schema::new(vec![field]), vec![flags.into_array_ref()])?;
/// let mut w = StreamWriter::try_new(Vec::new(), batch.schema())?;
/// w.write(&batch)?;
/// w.finish()?;
/// let bytes = w.into_inner();
///
/// let read = SliceStreamReader::try_new(&bytes)?.next().expect("a batch")?;
/// let (field, column) = (&read.schema().fields()[0], read.columns()[0].clone());
/// let flags = Bool8Array::try_from_field(field, column, Global)?;
/// assert_eq!(flags.iter().collect::<Vec<_>>(), [Some(true), Some(false)]);
/// let s: Bool8Array = flags.slice(1, 1)?; // an ExtensionArray still
/// assert_eq!(s.get(0), Some(false));
/// # Ok::<(), alkaid::Error>(())
/// ```
pub struct ExtensionArray<
    'a,
    T: ExtensionType<'a, A>,
    #[cfg(feature = "alloc")] A: Allocator + 'a = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator + 'a,
> {
    extension: T,
    storage: T::Storage,
    _marker: Marker<'a, A>,
}

/// Ties [`ExtensionArray`] to `'a` and `A` (covariant, no ownership of an `A`).
type Marker<'a, A> = PhantomData<fn() -> (&'a (), A)>;

impl<'a, T: ExtensionType<'a, A>, A: Allocator + 'a> ExtensionArray<'a, T, A> {
    /// `storage` as values of `extension`, checked at [`ValidationLevel::Full`]
    /// (the storage's own validation included).
    ///
    /// # Errors
    /// As [`ExtensionType::check_storage_type`] and
    /// [`ExtensionType::validate_storage`]; the storage's validation errors.
    pub fn try_new(extension: T, storage: T::Storage) -> Result<Self> {
        let a = ExtensionArray {
            extension,
            storage,
            _marker: PhantomData,
        };
        a.validate(ValidationLevel::Full)?;
        Ok(a)
    }

    /// As [`Self::try_new`] without any check.
    ///
    /// # Safety
    /// The storage must satisfy [`ExtensionType::check_storage_type`] and
    /// [`ExtensionType::validate_storage`]; accessors stay memory safe
    /// otherwise but return `None` or wrong data.
    pub unsafe fn new_unchecked(extension: T, storage: T::Storage) -> Self {
        ExtensionArray {
            extension,
            storage,
            _marker: PhantomData,
        }
    }

    /// The array of a column read from IPC (or built elsewhere) whose field
    /// declares this extension: parses the field, takes the typed storage
    /// and checks it at [`ValidationLevel::Full`].
    ///
    /// # Errors
    /// As [`ExtensionType::try_from_field`], [`ExtensionType::downcast_storage`]
    /// and [`Self::try_new`]; [`Error::ExtensionStorageMismatch`] when the
    /// array's type is not the field's.
    pub fn try_from_field(field: &Field<'a, A>, array: ArrayRef<'a, A>, alloc: A) -> Result<Self> {
        let extension = T::try_from_field(field, alloc)?;
        if array.data_type() != field.data_type() {
            return Err(Error::ExtensionStorageMismatch);
        }
        Self::try_new(extension, T::downcast_storage(array)?)
    }

    /// The extension type.
    pub fn extension(&self) -> &T {
        &self.extension
    }

    /// The storage array.
    pub fn storage(&self) -> &T::Storage {
        &self.storage
    }

    /// The extension type and the storage array.
    pub fn into_parts(self) -> (T, T::Storage) {
        (self.extension, self.storage)
    }

    /// A field `name` of the storage type annotated with the extension.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`].
    pub fn try_field_in(&self, name: &str, nullable: bool, alloc: A) -> Result<Field<'a, A>>
    where
        A: Clone,
    {
        self.extension
            .try_field_in(name, self.storage.data_type().clone(), nullable, alloc)
    }
}

impl<'a, T: ExtensionType<'a, A>, A: Allocator + 'a> Clone for ExtensionArray<'a, T, A> {
    fn clone(&self) -> Self {
        ExtensionArray {
            extension: self.extension.clone(),
            storage: self.storage.clone(),
            _marker: PhantomData,
        }
    }
}

impl<'a, T: ExtensionType<'a, A>, A: Allocator + 'a> fmt::Debug for ExtensionArray<'a, T, A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ExtensionArray")
            .field("name", &T::NAME)
            .field("extension", &self.extension)
            .field("storage", &self.storage)
            .finish()
    }
}

impl<'a, T: ExtensionType<'a, A>, A: Allocator + 'a> Array<'a, A> for ExtensionArray<'a, T, A> {
    fn data_type(&self) -> &DataType<'a, A> {
        self.storage.data_type()
    }

    fn len(&self) -> usize {
        self.storage.len()
    }

    fn nulls(&self) -> Option<&NullBuffer<'a, A>> {
        self.storage.nulls()
    }

    fn slice(&self, offset: usize, len: usize) -> Result<Self> {
        Ok(ExtensionArray {
            extension: self.extension.clone(),
            storage: self.storage.slice(offset, len)?,
            _marker: PhantomData,
        })
    }

    fn validate(&self, level: ValidationLevel) -> Result<()> {
        if level == ValidationLevel::None {
            return Ok(());
        }
        self.extension
            .check_storage_type(self.storage.data_type())?;
        self.storage.validate(level)?;
        self.extension.validate_storage(&self.storage, level)
    }

    fn into_array_ref(self) -> ArrayRef<'a, A> {
        self.storage.into_array_ref()
    }
}

/// A column as its canonical extension array, chosen by the field's
/// `ARROW:extension:name`; any other column stays its storage array.
///
/// ```
/// use alkaid::array::{Array, Int32Array, RecordBatch, StringArray};
/// use alkaid::datatypes::{DataType, Field, Schema};
/// use alkaid::extension::{CanonicalExtensionArray, ExtensionType, JsonType};
/// use alkaid::Global;
///
/// let json = JsonType.try_field_in("doc", DataType::Utf8, false, Global)?;
/// let batch = RecordBatch::try_new(
///     Schema::new(vec![json, Field::new("n", DataType::Int32, false)]),
///     vec![
///         StringArray::from(vec![r#"{"k": true}"#]).into_array_ref(),
///         Int32Array::from(vec![7]).into_array_ref(),
///     ],
/// )?;
/// match CanonicalExtensionArray::try_from_column(&batch, 0, Global)? {
///     CanonicalExtensionArray::Json(docs) => assert_eq!(docs.get(0), Some(r#"{"k": true}"#)),
///     other => panic!("not JSON: {other:?}"),
/// }
/// let plain = CanonicalExtensionArray::try_from_column(&batch, 1, Global)?;
/// assert_eq!(plain.extension_name(), None);
/// assert!(matches!(plain, CanonicalExtensionArray::Other(_)));
/// # Ok::<(), alkaid::Error>(())
/// ```
#[derive_where::derive_where(Clone, Debug)]
#[non_exhaustive]
pub enum CanonicalExtensionArray<
    'a,
    #[cfg(feature = "alloc")] A: Allocator + Clone = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator + Clone,
> {
    /// `arrow.fixed_shape_tensor`.
    #[cfg(feature = "nested")]
    FixedShapeTensor(FixedShapeTensorArray<'a, A>),
    /// `arrow.variable_shape_tensor`.
    #[cfg(feature = "nested")]
    VariableShapeTensor(VariableShapeTensorArray<'a, A>),
    /// `arrow.uuid`.
    Uuid(UuidArray<'a, A>),
    /// `arrow.json`.
    Json(JsonArray<'a, A>),
    /// `arrow.bool8`.
    Bool8(Bool8Array<'a, A>),
    /// `arrow.opaque`.
    Opaque(OpaqueArray<'a, A>),
    /// No extension name, or a name that is not a canonical type known here:
    /// the storage array. The field keeps the name and metadata, and the IPC
    /// writers write them back unchanged.
    Other(ArrayRef<'a, A>),
}

impl<'a, A: Allocator + Clone> CanonicalExtensionArray<'a, A> {
    /// `array` (a column of `field`) as the typed array of the field's
    /// canonical extension type, or [`Self::Other`].
    ///
    /// # Errors
    /// For a known name, as [`ExtensionArray::try_from_field`]: invalid
    /// metadata, a storage type that does not fit, storage values that
    /// break the type's rules.
    pub fn try_from_field(field: &Field<'a, A>, array: ArrayRef<'a, A>, alloc: A) -> Result<Self> {
        Ok(match field.extension_name() {
            #[cfg(feature = "nested")]
            Some(fixed_shape_tensor::NAME) => {
                Self::FixedShapeTensor(ExtensionArray::try_from_field(field, array, alloc)?)
            }
            #[cfg(feature = "nested")]
            Some(variable_shape_tensor::NAME) => {
                Self::VariableShapeTensor(ExtensionArray::try_from_field(field, array, alloc)?)
            }
            Some(simple::UUID_NAME) => {
                Self::Uuid(ExtensionArray::try_from_field(field, array, alloc)?)
            }
            Some(simple::JSON_NAME) => {
                Self::Json(ExtensionArray::try_from_field(field, array, alloc)?)
            }
            Some(simple::BOOL8_NAME) => {
                Self::Bool8(ExtensionArray::try_from_field(field, array, alloc)?)
            }
            Some(simple::OPAQUE_NAME) => {
                Self::Opaque(ExtensionArray::try_from_field(field, array, alloc)?)
            }
            _ => Self::Other(array),
        })
    }

    /// Column `i` of `batch`, as [`Self::try_from_field`] with its schema field.
    ///
    /// # Errors
    /// [`Error::OutOfBounds`] when there is no column `i`; as [`Self::try_from_field`].
    pub fn try_from_column(batch: &RecordBatch<'a, A>, i: usize, alloc: A) -> Result<Self> {
        let field = batch.schema().field(i).ok_or(Error::OutOfBounds)?;
        let column = batch.column(i).ok_or(Error::OutOfBounds)?;
        Self::try_from_field(field, column.clone(), alloc)
    }
}

impl<'a, A: Allocator + Clone> CanonicalExtensionArray<'a, A> {
    /// The canonical extension name, `None` for [`Self::Other`].
    pub fn extension_name(&self) -> Option<&'static str> {
        Some(match self {
            #[cfg(feature = "nested")]
            Self::FixedShapeTensor(_) => fixed_shape_tensor::NAME,
            #[cfg(feature = "nested")]
            Self::VariableShapeTensor(_) => variable_shape_tensor::NAME,
            Self::Uuid(_) => simple::UUID_NAME,
            Self::Json(_) => simple::JSON_NAME,
            Self::Bool8(_) => simple::BOOL8_NAME,
            Self::Opaque(_) => simple::OPAQUE_NAME,
            Self::Other(_) => return None,
        })
    }

    /// The storage array (what the IPC writers write).
    pub fn into_storage(self) -> ArrayRef<'a, A> {
        match self {
            #[cfg(feature = "nested")]
            Self::FixedShapeTensor(a) => a.into_array_ref(),
            #[cfg(feature = "nested")]
            Self::VariableShapeTensor(a) => a.into_array_ref(),
            Self::Uuid(a) => a.into_array_ref(),
            Self::Json(a) => a.into_array_ref(),
            Self::Bool8(a) => a.into_array_ref(),
            Self::Opaque(a) => a.into_array_ref(),
            Self::Other(a) => a,
        }
    }
}
