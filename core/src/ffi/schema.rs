//! [`FFI_ArrowSchema`]: the C Data Interface's description of a type.

use core::ffi::{c_char, c_void};

/// The C Data Interface's `struct ArrowSchema`, field for field
/// ("The Arrow C data interface", "The ArrowSchema structure").
///
/// A schema node describes one field: its format string (the type), name,
/// custom metadata (binary encoded), flags ([`super::ARROW_FLAG_NULLABLE`],
/// …), children (nested types) and dictionary (the value type of a
/// dictionary-encoded field). `release` is null once the struct is released.
#[repr(C)]
#[derive(Debug)]
#[allow(non_camel_case_types)]
pub struct FFI_ArrowSchema {
    /// Null-terminated format string of the type (mandatory).
    pub format: *const c_char,
    /// Null-terminated UTF-8 name of the field, or null.
    pub name: *const c_char,
    /// Custom metadata in the interface's binary encoding, or null.
    pub metadata: *const c_char,
    /// Bit set of `ARROW_FLAG_*` values.
    pub flags: i64,
    /// Number of children.
    pub n_children: i64,
    /// `n_children` pointers to the children (null when there are none).
    pub children: *mut *mut FFI_ArrowSchema,
    /// The dictionary's value type, or null when not dictionary encoded.
    pub dictionary: *mut FFI_ArrowSchema,
    /// Releases the struct and everything it owns; null when released.
    pub release: Option<unsafe extern "C" fn(*mut FFI_ArrowSchema)>,
    /// Producer-specific data (opaque to the consumer).
    pub private_data: *mut c_void,
}
