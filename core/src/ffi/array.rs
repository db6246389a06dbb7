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
///
/// A record batch travels as a struct array with one child per column:
///
/// ```
/// use alkaid::array::{Array, Int32Array, RecordBatch, StringArray};
/// use alkaid::ffi::FFI_ArrowArray;
/// use alkaid::Global;
///
/// let batch = RecordBatch::try_from_iter([
///     ("a", Int32Array::from(vec![1, 2, 3]).into_array_ref()),
///     ("b", StringArray::from(vec![Some("x"), None, Some("z")]).into_array_ref()),
/// ])?;
/// let mut c = FFI_ArrowArray::try_from_record_batch_in(&batch, Global)?;
/// assert_eq!((c.length, c.null_count, c.n_children), (3, 0, 2));
/// // SAFETY: the export made two valid child pointers.
/// let b = unsafe { &**c.children.add(1) };
/// assert_eq!((b.length, b.null_count, b.n_buffers), (3, 1, 3)); // validity, offsets, data
///
/// // A consumer releases what it received, exactly once.
/// if let Some(release) = c.release {
///     // SAFETY: a live struct exported by alkaid, released once.
///     unsafe { release(&mut c) };
/// }
/// assert!(c.is_released());
/// # Ok::<(), alkaid::Error>(())
/// ```
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
