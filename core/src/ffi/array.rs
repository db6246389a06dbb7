//! [`FFI_ArrowArray`]: the C Data Interface's description of array data.

use core::ffi::c_void;

/// The C Data Interface's `struct ArrowArray`, field for field
/// ("The Arrow C data interface", "The ArrowArray structure").
///
/// Lengths, null counts and offsets are in slots (logical elements);
/// `buffers` holds the layout's buffers in the order of the columnar format
/// (validity bitmap first), each pointing at the start of the buffer (the
/// `offset` applies to every buffer alike, as in the format's slicing).
/// `release` is null once the struct is released.
#[repr(C)]
#[derive(Debug)]
#[allow(non_camel_case_types)]
pub struct FFI_ArrowArray {
    /// Number of slots (after `offset`).
    pub length: i64,
    /// Number of null slots, or -1 when not computed.
    pub null_count: i64,
    /// Number of slots skipped at the start of every buffer.
    pub offset: i64,
    /// Number of entries of `buffers`.
    pub n_buffers: i64,
    /// Number of children.
    pub n_children: i64,
    /// `n_buffers` pointers to the buffers (an entry may be null where the
    /// layout allows an absent buffer, e.g. a validity bitmap with no nulls).
    pub buffers: *mut *const c_void,
    /// `n_children` pointers to the children.
    pub children: *mut *mut FFI_ArrowArray,
    /// The dictionary of a dictionary-encoded array, or null.
    pub dictionary: *mut FFI_ArrowArray,
    /// Releases the struct and everything it owns; null when released.
    pub release: Option<unsafe extern "C" fn(*mut FFI_ArrowArray)>,
    /// Producer-specific data (opaque to the consumer).
    pub private_data: *mut c_void,
}
