//! The canonical extension types over one plain storage type:
//! `arrow.uuid`, `arrow.json`, `arrow.bool8` and `arrow.opaque`.

use allocator_api2::alloc::Allocator;
use derive_where::derive_where;
use serde::Deserialize;

use super::json::{self, JsonStr, MetadataSink};
use super::{ExtensionArray, ExtensionType};
use crate::array::{
    Array, ArrayRef, FixedSizeBinaryArray, FixedSizeBinaryBuilder, PrimitiveArray, PrimitiveBuilder,
};
use crate::buffer::SharedStr;
use crate::datatypes::DataType;
use crate::error::{Error, Result};

/// `ARROW:extension:name` of UUIDs.
pub(crate) const UUID_NAME: &str = "arrow.uuid";
/// `ARROW:extension:name` of JSON text.
pub(crate) const JSON_NAME: &str = "arrow.json";
/// `ARROW:extension:name` of 8-bit booleans.
pub(crate) const BOOL8_NAME: &str = "arrow.bool8";
/// `ARROW:extension:name` of opaque (unknown to Arrow) types.
pub(crate) const OPAQUE_NAME: &str = "arrow.opaque";

/// Accepts absent or empty metadata, refuses anything else.
fn no_metadata(metadata: Option<&str>) -> Result<()> {
    match metadata {
        None | Some("") => Ok(()),
        Some(_) => Err(Error::InvalidExtensionMetadata),
    }
}

/// `arrow.uuid`: RFC 9562 UUIDs as `FixedSizeBinary(16)` (bytes in network
/// order); no parameter, empty metadata.
///
/// ```
/// use alkaid::array::{Array, RecordBatch};
/// use alkaid::datatypes::DataType;
/// use alkaid::extension::{UuidArray, UuidType};
/// use alkaid::Global;
///
/// let id = [0x12, 0x3e, 0x45, 0x67, 0xe8, 0x9b, 0x12, 0xd3, 0xa4, 0x56, 0x42, 0x66, 0x14, 0x17, 0x40, 0x00];
/// let ids = UuidArray::try_from_options_in(&[Some(id), None], Global)?;
/// assert_eq!(ids.extension(), &UuidType);
/// assert_eq!(ids.data_type(), &DataType::FixedSizeBinary(16));
/// assert_eq!((ids.get(0), ids.get(1)), (Some(id), None));
///
/// // The extension lives in the field's metadata.
/// let field = ids.try_field_in("id", true, Global)?;
/// assert_eq!(field.extension_name(), Some("arrow.uuid"));
/// assert_eq!(field.extension_metadata(), Some(""));
/// # Ok::<(), alkaid::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct UuidType;

impl<'a, A: Allocator + 'a> ExtensionType<'a, A> for UuidType {
    const NAME: &'static str = UUID_NAME;
    type Storage = FixedSizeBinaryArray<'a, A>;

    /// Only absent or empty metadata.
    fn try_deserialize_metadata(metadata: Option<&str>, _alloc: A) -> Result<Self> {
        no_metadata(metadata).map(|()| UuidType)
    }

    fn write_metadata<W: MetadataSink + ?Sized>(&self, _out: &mut W) -> Result<()> {
        Ok(())
    }

    fn check_storage_type(&self, storage: &DataType<'a, A>) -> Result<()> {
        match storage {
            DataType::FixedSizeBinary(16) => Ok(()),
            _ => Err(Error::ExtensionStorageMismatch),
        }
    }

    fn downcast_storage(storage: ArrayRef<'a, A>) -> Result<Self::Storage> {
        match storage {
            ArrayRef::FixedSizeBinary(b) => Ok(b),
            _ => Err(Error::ExtensionStorageMismatch),
        }
    }
}

/// An array of UUIDs.
pub type UuidArray<
    'a,
    #[cfg(feature = "alloc")] A = crate::Global,
    #[cfg(not(feature = "alloc"))] A,
> = ExtensionArray<'a, UuidType, A>;

impl<'a, A: Allocator + 'a> ExtensionArray<'a, UuidType, A> {
    /// Copies `values` (`None` = null) into memory from `alloc`.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`].
    pub fn try_from_options_in(values: &[Option<[u8; 16]>], alloc: A) -> Result<Self>
    where
        A: Clone,
    {
        let mut b = FixedSizeBinaryBuilder::try_new_in(16, alloc)?;
        for v in values {
            b.try_append_option(v.as_ref().map(|v| &v[..]))?;
        }
        Self::try_new(UuidType, b.finish())
    }

    /// The 16 bytes of slot `i` whatever its validity; `None` when `i >= len`.
    pub fn value(&self, i: usize) -> Option<[u8; 16]> {
        self.storage().value(i)?.try_into().ok()
    }

    /// The UUID of slot `i`, `None` when null or `i >= len`.
    pub fn get(&self, i: usize) -> Option<[u8; 16]> {
        self.storage().get(i)?.try_into().ok()
    }

    /// The UUIDs in order, `None` for nulls.
    pub fn iter(&self) -> impl Iterator<Item = Option<[u8; 16]>> + use<'_, 'a, A> {
        (0..self.len()).map(move |i| self.get(i))
    }
}

/// `arrow.json`: UTF-8 JSON text (RFC 8259) in a `Utf8`, `LargeUtf8` or
/// `Utf8View` storage. Metadata is empty or a JSON object reserved for
/// future keys (ignored). The text of the values is not checked to be JSON.
///
/// ```
/// use alkaid::array::{Array, StringArray};
/// use alkaid::extension::{ExtensionType, JsonArray, JsonType};
/// use alkaid::Global;
///
/// let text = StringArray::from(vec![Some(r#"{"a": 1}"#), None, Some("[]")]).into_array_ref();
/// let docs = JsonArray::try_new(JsonType, text)?;
/// assert_eq!(docs.get(0), Some(r#"{"a": 1}"#));
/// assert_eq!(docs.null_count(), 1);
/// // The storage must be a string type.
/// assert!(JsonType.check_storage_type(&alkaid::datatypes::DataType::<Global>::Int32).is_err());
/// # Ok::<(), alkaid::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct JsonType;

impl<'a, A: Allocator + 'a> ExtensionType<'a, A> for JsonType {
    const NAME: &'static str = JSON_NAME;
    type Storage = ArrayRef<'a, A>;

    /// Absent, empty, or any JSON object.
    fn try_deserialize_metadata(metadata: Option<&str>, _alloc: A) -> Result<Self> {
        if json::is_empty_or_object(metadata) {
            Ok(JsonType)
        } else {
            Err(Error::InvalidExtensionMetadata)
        }
    }

    /// Writes nothing (what pyarrow writes).
    fn write_metadata<W: MetadataSink + ?Sized>(&self, _out: &mut W) -> Result<()> {
        Ok(())
    }

    fn check_storage_type(&self, storage: &DataType<'a, A>) -> Result<()> {
        match storage {
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => Ok(()),
            _ => Err(Error::ExtensionStorageMismatch),
        }
    }

    fn downcast_storage(storage: ArrayRef<'a, A>) -> Result<Self::Storage> {
        match storage {
            ArrayRef::Utf8(_) | ArrayRef::LargeUtf8(_) => Ok(storage),
            #[cfg(feature = "views")]
            ArrayRef::Utf8View(_) => Ok(storage),
            _ => Err(Error::ExtensionStorageMismatch),
        }
    }
}

/// An array of JSON texts.
pub type JsonArray<
    'a,
    #[cfg(feature = "alloc")] A = crate::Global,
    #[cfg(not(feature = "alloc"))] A,
> = ExtensionArray<'a, JsonType, A>;

impl<'a, A: Allocator + 'a> ExtensionArray<'a, JsonType, A> {
    /// The text of slot `i` whatever its validity; `None` when `i >= len`.
    pub fn value(&self, i: usize) -> Option<&str> {
        match self.storage() {
            ArrayRef::Utf8(s) => s.value(i),
            ArrayRef::LargeUtf8(s) => s.value(i),
            #[cfg(feature = "views")]
            ArrayRef::Utf8View(s) => s.value(i),
            _ => None,
        }
    }

    /// The text of slot `i`, `None` when null or `i >= len`.
    pub fn get(&self, i: usize) -> Option<&str> {
        if self.is_valid(i) {
            self.value(i)
        } else {
            None
        }
    }

    /// The texts in order, `None` for nulls.
    pub fn iter(&self) -> impl Iterator<Item = Option<&str>> + use<'_, 'a, A> {
        (0..self.len()).map(move |i| self.get(i))
    }
}

/// `arrow.bool8`: booleans as one `Int8` byte each (0 is false, any other
/// value true); no parameter, empty metadata.
///
/// ```
/// use alkaid::array::{Array, Int8Array};
/// use alkaid::extension::{Bool8Array, Bool8Type};
/// use alkaid::Global;
///
/// let flags = Bool8Array::try_from_options_in(&[Some(true), None, Some(false)], Global)?;
/// assert_eq!(flags.iter().collect::<Vec<_>>(), [Some(true), None, Some(false)]);
/// assert_eq!(flags.storage().values(), &[1, 0, 0]); // one byte per value
///
/// // Any non-zero byte is true.
/// let raw = Bool8Array::try_new(Bool8Type, Int8Array::from(vec![0, -3, 7]))?;
/// assert_eq!(raw.iter().collect::<Vec<_>>(), [Some(false), Some(true), Some(true)]);
/// # Ok::<(), alkaid::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Bool8Type;

impl<'a, A: Allocator + 'a> ExtensionType<'a, A> for Bool8Type {
    const NAME: &'static str = BOOL8_NAME;
    type Storage = PrimitiveArray<'a, i8, A>;

    /// Only absent or empty metadata.
    fn try_deserialize_metadata(metadata: Option<&str>, _alloc: A) -> Result<Self> {
        no_metadata(metadata).map(|()| Bool8Type)
    }

    fn write_metadata<W: MetadataSink + ?Sized>(&self, _out: &mut W) -> Result<()> {
        Ok(())
    }

    fn check_storage_type(&self, storage: &DataType<'a, A>) -> Result<()> {
        match storage {
            DataType::Int8 => Ok(()),
            _ => Err(Error::ExtensionStorageMismatch),
        }
    }

    fn downcast_storage(storage: ArrayRef<'a, A>) -> Result<Self::Storage> {
        match storage {
            ArrayRef::Int8(a) => Ok(a),
            _ => Err(Error::ExtensionStorageMismatch),
        }
    }
}

/// An array of 8-bit booleans.
pub type Bool8Array<
    'a,
    #[cfg(feature = "alloc")] A = crate::Global,
    #[cfg(not(feature = "alloc"))] A,
> = ExtensionArray<'a, Bool8Type, A>;

impl<'a, A: Allocator + 'a> ExtensionArray<'a, Bool8Type, A> {
    /// Stores `values` (`None` = null) as 1 and 0 in memory from `alloc`.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`].
    pub fn try_from_options_in(values: &[Option<bool>], alloc: A) -> Result<Self>
    where
        A: Clone,
    {
        let mut b = PrimitiveBuilder::<i8, A>::new_in(alloc);
        b.try_reserve(values.len())?;
        for v in values {
            b.try_append_option(v.map(i8::from))?;
        }
        Self::try_new(Bool8Type, b.finish())
    }

    /// Slot `i` as a boolean whatever its validity (`value != 0`); `None`
    /// when `i >= len`.
    pub fn value(&self, i: usize) -> Option<bool> {
        self.storage().value(i).map(|v| v != 0)
    }

    /// Slot `i` as a boolean, `None` when null or `i >= len`.
    pub fn get(&self, i: usize) -> Option<bool> {
        self.storage().get(i).map(|v| v != 0)
    }

    /// The booleans in order, `None` for nulls.
    pub fn iter(&self) -> impl Iterator<Item = Option<bool>> + use<'_, 'a, A> {
        (0..self.len()).map(move |i| self.get(i))
    }
}

/// `arrow.opaque`: values of a type Arrow does not know, passed through in
/// any storage: `type_name` is the type in the external system, `vendor_name`
/// names that system. Metadata: `{"type_name": "geometry", "vendor_name":
/// "postgis"}` (both keys required; other keys ignored).
///
/// ```
/// use alkaid::array::{Array, BinaryArray};
/// use alkaid::extension::{ExtensionType, OpaqueArray, OpaqueType};
/// use alkaid::Global;
///
/// let ty = OpaqueType::try_new_in("geometry", "postgis", Global)?;
/// assert_eq!(ty.try_metadata_in(Global)?.as_str(), r#"{"type_name":"geometry","vendor_name":"postgis"}"#);
/// let wkb = BinaryArray::from(vec![&[1u8, 1, 0, 0, 0][..]]).into_array_ref();
/// let shapes = OpaqueArray::try_new(ty, wkb)?;
/// assert_eq!(shapes.extension().vendor_name(), "postgis");
/// assert_eq!(shapes.len(), 1);
///
/// // Parsed from a field's metadata: both keys are required.
/// assert!(OpaqueType::<Global>::try_from_metadata(r#"{"type_name":"geometry"}"#, Global).is_err());
/// # Ok::<(), alkaid::Error>(())
/// ```
#[derive_where(Clone, Debug, PartialEq)]
pub struct OpaqueType<
    'a,
    #[cfg(feature = "alloc")] A: Allocator = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator,
> {
    type_name: SharedStr<'a, A>,
    vendor_name: SharedStr<'a, A>,
}

#[derive(Deserialize)]
struct RawOpaque<'s> {
    #[serde(borrow)]
    type_name: JsonStr<'s>,
    #[serde(borrow)]
    vendor_name: JsonStr<'s>,
}

impl<'a, A: Allocator> OpaqueType<'a, A> {
    /// The opaque type `type_name` of `vendor_name`.
    pub const fn new(type_name: SharedStr<'a, A>, vendor_name: SharedStr<'a, A>) -> Self {
        OpaqueType {
            type_name,
            vendor_name,
        }
    }

    /// As [`Self::new`], copying the names into memory from `alloc`.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`].
    pub fn try_new_in(type_name: &str, vendor_name: &str, alloc: A) -> Result<Self>
    where
        A: Clone,
    {
        Ok(OpaqueType {
            type_name: SharedStr::try_from_str_in(type_name, alloc.clone())?,
            vendor_name: SharedStr::try_from_str_in(vendor_name, alloc)?,
        })
    }

    /// The name of the type in the external system.
    pub fn type_name(&self) -> &str {
        &self.type_name
    }

    /// The name of the external system.
    pub fn vendor_name(&self) -> &str {
        &self.vendor_name
    }
}

impl<'a, A: Allocator + Clone + 'a> ExtensionType<'a, A> for OpaqueType<'a, A> {
    const NAME: &'static str = OPAQUE_NAME;
    type Storage = ArrayRef<'a, A>;

    fn try_deserialize_metadata(metadata: Option<&str>, alloc: A) -> Result<Self> {
        let raw: RawOpaque<'_> = json::from_json(metadata.ok_or(Error::InvalidExtensionMetadata)?)?;
        Ok(OpaqueType {
            type_name: json::unescape_in(raw.type_name, alloc.clone())?,
            vendor_name: json::unescape_in(raw.vendor_name, alloc)?,
        })
    }

    fn write_metadata<W: MetadataSink + ?Sized>(&self, out: &mut W) -> Result<()> {
        out.try_write(b"{\"type_name\":")?;
        json::write_str(out, &self.type_name)?;
        out.try_write(b",\"vendor_name\":")?;
        json::write_str(out, &self.vendor_name)?;
        out.try_write(b"}")
    }

    /// Any storage type.
    fn check_storage_type(&self, _storage: &DataType<'a, A>) -> Result<()> {
        Ok(())
    }

    fn downcast_storage(storage: ArrayRef<'a, A>) -> Result<Self::Storage> {
        Ok(storage)
    }
}

/// An array of an opaque type: its storage, as is.
pub type OpaqueArray<
    'a,
    #[cfg(feature = "alloc")] A = crate::Global,
    #[cfg(not(feature = "alloc"))] A,
> = ExtensionArray<'a, OpaqueType<'a, A>, A>;
