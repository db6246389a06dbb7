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
//! | `schema` | [`FFI_ArrowSchema`]: export of fields and schemas, import |
//! | `array` | [`FFI_ArrowArray`] |
//! | `export` | arrays as [`FFI_ArrowArray`]s whose `private_data` keeps the alkaid buffers alive |
//! | `import` | [`FFI_ArrowArray`]s as alkaid arrays over the producer's memory |
//! | `stream` | [`FFI_ArrowArrayStream`]: readers exported as streams, streams imported as iterators |

mod array;
#[cfg(test)]
mod array_tests;
mod export;
mod import;
mod schema;

pub use array::FFI_ArrowArray;
pub use import::{MAX_IMPORT_BUFFERS, MAX_IMPORT_DEPTH};
pub use schema::FFI_ArrowSchema;

/// `ArrowSchema.flags` bit: the dictionary's values are ordered
/// (`ARROW_FLAG_DICTIONARY_ORDERED`).
pub const ARROW_FLAG_DICTIONARY_ORDERED: i64 = 1;
/// `ArrowSchema.flags` bit: the field is nullable (`ARROW_FLAG_NULLABLE`).
pub const ARROW_FLAG_NULLABLE: i64 = 2;
/// `ArrowSchema.flags` bit: the keys of each map are sorted
/// (`ARROW_FLAG_MAP_KEYS_SORTED`).
pub const ARROW_FLAG_MAP_KEYS_SORTED: i64 = 4;
