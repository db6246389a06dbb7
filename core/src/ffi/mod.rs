//! The Arrow C Data Interface and C Stream Interface: arrays, schemas and
//! streams handed to (and taken from) other Arrow implementations in the same
//! process, with no copy of any buffer and no `std`.
//!
//! Implements "The Arrow C data interface" and "The Arrow C stream interface"
//! of the Arrow format documentation: the `repr(C)` structs
//! [`FFI_ArrowSchema`], [`FFI_ArrowArray`] and [`FFI_ArrowArrayStream`] laid
//! out field for field as the specification's C declarations, their
//! `release` callbacks, and the format strings of every [`crate::datatypes::DataType`].
//!
//! | module | what |
//! |---|---|
//! | `format` | data types to and from format strings (`"i"`, `"tsu:UTC"`, `"+ud:0,1"`, …) |
//! | `metadata` | custom metadata in the interface's binary encoding |
//! | `schema` | [`FFI_ArrowSchema`]: export of fields, types and schemas, the release callback |
//! | `schema_import` | [`FFI_ArrowSchema`]s as fields, types and schemas ([`import_field_in`]) |
//! | `array` | [`FFI_ArrowArray`] |
//! | `export` | arrays as [`FFI_ArrowArray`]s whose `private_data` keeps the alkaid buffers alive |
//! | `import` | [`FFI_ArrowArray`]s as alkaid arrays over the producer's memory |
//! | `stream` | [`FFI_ArrowArrayStream`]: readers exported as streams, streams imported as iterators |

mod array;
#[cfg(test)]
mod array_tests;
mod export;
mod format;
#[cfg(test)]
mod format_tests;
mod import;
mod metadata;
#[cfg(test)]
mod metadata_tests;
mod schema;
mod schema_import;
#[cfg(test)]
mod schema_tests;
mod stream;
#[cfg(feature = "nested")]
mod stream_reader;
#[cfg(all(test, feature = "nested"))]
mod stream_tests;

pub use array::FFI_ArrowArray;
pub use import::{MAX_IMPORT_BUFFERS, MAX_IMPORT_DEPTH};
pub use metadata::DEFAULT_MAX_IMPORT_BYTES;
pub use schema::{FFI_ArrowSchema, DEFAULT_MAX_DEPTH};
pub use schema_import::{
    import_data_type_in, import_field_in, import_field_with_limits_in, import_schema_in,
    ImportLimits, DEFAULT_MAX_NODES,
};
#[cfg(feature = "alloc")]
pub use schema_import::{import_field, import_schema};
pub use stream::{
    error_code, export_array_in, import_array_in, FFI_ArrowArrayStream, EINVAL, EIO, ENOMEM,
};
#[cfg(feature = "nested")]
pub use stream_reader::ArrowArrayStreamReader;

/// `ArrowSchema.flags` bit: the dictionary's values are ordered
/// (`ARROW_FLAG_DICTIONARY_ORDERED`).
pub const ARROW_FLAG_DICTIONARY_ORDERED: i64 = 1;
/// `ArrowSchema.flags` bit: the field is nullable (`ARROW_FLAG_NULLABLE`).
pub const ARROW_FLAG_NULLABLE: i64 = 2;
/// `ArrowSchema.flags` bit: the keys of each map are sorted
/// (`ARROW_FLAG_MAP_KEYS_SORTED`).
pub const ARROW_FLAG_MAP_KEYS_SORTED: i64 = 4;
