//! [`Field`]: a named, typed, nullable column or child, with metadata.

use allocator_api2::alloc::Allocator;
use derive_where::derive_where;

use super::DataType;
use crate::buffer::{SharedBox, SharedSlice, SharedStr};
use crate::error::Result;

/// Custom key-value metadata, in order (the `KeyValue` list of Schema.fbs).
pub type Metadata<
    'a,
    #[cfg(feature = "alloc")] A = crate::Global,
    #[cfg(not(feature = "alloc"))] A,
> = SharedSlice<'a, (SharedStr<'a, A>, SharedStr<'a, A>), A>;

/// The children of a struct or union.
pub type Fields<'a, #[cfg(feature = "alloc")] A = crate::Global, #[cfg(not(feature = "alloc"))] A> =
    SharedSlice<'a, Field<'a, A>, A>;

/// A shared child field (of a list, map or run-end encoded type).
pub type FieldRef<
    'a,
    #[cfg(feature = "alloc")] A = crate::Global,
    #[cfg(not(feature = "alloc"))] A,
> = SharedBox<'a, Field<'a, A>, A>;

/// Key of an extension type's name in field metadata ("Extension Types").
pub const EXTENSION_NAME_KEY: &str = "ARROW:extension:name";
/// Key of an extension type's serialised parameters in field metadata.
pub const EXTENSION_METADATA_KEY: &str = "ARROW:extension:metadata";

/// A named column or child: name, [`DataType`], nullability, custom metadata,
/// and the dictionary id when the type is (or contains at this level) a
/// dictionary (the `Field` table of Schema.fbs).
///
/// ```
/// use alkaid::buffer::{SharedSlice, SharedStr};
/// use alkaid::datatypes::{DataType, Field};
///
/// let f: Field = Field::new("station", DataType::Utf8, true);
/// assert_eq!((f.name(), f.data_type(), f.is_nullable()), ("station", &DataType::Utf8, true));
/// let f = f.with_nullable(false).with_metadata(SharedSlice::from(vec![(
///     SharedStr::borrowed("unit"),
///     SharedStr::borrowed("degC"),
/// )]));
/// assert_eq!(f.metadata_value("unit"), Some("degC"));
/// assert!(!f.is_nullable());
/// assert_eq!(f.extension_name(), None); // no ARROW:extension:name key
/// ```
#[derive_where(Clone, Debug, PartialEq)]
pub struct Field<
    'a,
    #[cfg(feature = "alloc")] A: Allocator = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator,
> {
    name: SharedStr<'a, A>,
    data_type: DataType<'a, A>,
    nullable: bool,
    metadata: Metadata<'a, A>,
    dict_id: Option<i64>,
}

impl<'a, A: Allocator> Field<'a, A> {
    /// A field whose name borrows `'a` memory; no allocation, usable in
    /// `const` and `static` items.
    pub const fn new(name: &'a str, data_type: DataType<'a, A>, nullable: bool) -> Self {
        Field {
            name: SharedStr::borrowed(name),
            data_type,
            nullable,
            metadata: SharedSlice::empty(),
            dict_id: None,
        }
    }

    /// A field whose name is copied into memory from `alloc`.
    ///
    /// # Errors
    /// [`crate::Error::AllocationFailed`].
    pub fn try_new_in(
        name: &str,
        data_type: DataType<'a, A>,
        nullable: bool,
        alloc: A,
    ) -> Result<Self> {
        Ok(Field {
            name: SharedStr::try_from_str_in(name, alloc)?,
            data_type,
            nullable,
            metadata: SharedSlice::empty(),
            dict_id: None,
        })
    }

    /// A field from an already shared name.
    pub const fn from_parts(
        name: SharedStr<'a, A>,
        data_type: DataType<'a, A>,
        nullable: bool,
        metadata: Metadata<'a, A>,
        dict_id: Option<i64>,
    ) -> Self {
        Field {
            name,
            data_type,
            nullable,
            metadata,
            dict_id,
        }
    }

    /// Replaces the custom metadata.
    pub fn with_metadata(mut self, metadata: Metadata<'a, A>) -> Self {
        self.metadata = metadata;
        self
    }

    /// Sets the dictionary id (IPC: which dictionary batches feed this field).
    pub const fn with_dict_id(mut self, id: i64) -> Self {
        self.dict_id = Some(id);
        self
    }

    /// Replaces the nullability.
    pub const fn with_nullable(mut self, nullable: bool) -> Self {
        self.nullable = nullable;
        self
    }

    /// The name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The name, shared.
    pub fn name_shared(&self) -> &SharedStr<'a, A> {
        &self.name
    }

    /// The type.
    pub fn data_type(&self) -> &DataType<'a, A> {
        &self.data_type
    }

    /// Whether slots may be null.
    pub fn is_nullable(&self) -> bool {
        self.nullable
    }

    /// The custom metadata, in order.
    pub fn metadata(&self) -> &Metadata<'a, A> {
        &self.metadata
    }

    /// The value of metadata key `key`, if present.
    pub fn metadata_value(&self, key: &str) -> Option<&str> {
        self.metadata
            .iter()
            .find(|(k, _)| k.as_str() == key)
            .map(|(_, v)| v.as_str())
    }

    /// The dictionary id, if set.
    pub fn dict_id(&self) -> Option<i64> {
        self.dict_id
    }

    /// The extension type name (`ARROW:extension:name`), if any.
    pub fn extension_name(&self) -> Option<&str> {
        self.metadata_value(EXTENSION_NAME_KEY)
    }

    /// The extension type parameters (`ARROW:extension:metadata`), if any.
    pub fn extension_metadata(&self) -> Option<&str> {
        self.metadata_value(EXTENSION_METADATA_KEY)
    }
}
