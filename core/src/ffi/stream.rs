//! [`FFI_ArrowArrayStream`]: the C Stream Interface ("The Arrow C stream
//! interface"): a schema, then record batches pulled one at a time.
//!
//! Export: any iterator of `'static` [`RecordBatch`]es (a reader over
//! `'static` or owned input, or a caller's own iterator) with its schema
//! becomes a stream whose `get_next` exports each batch as a struct array
//! without copying buffers. Import: a producer's stream becomes an
//! `ArrowArrayStreamReader` (in `stream_reader`, feature `nested`), an
//! iterator of alkaid record batches over the producer's memory.

use core::ffi::{c_char, c_int, c_void};
use core::ptr::{self, NonNull};

use allocator_api2::alloc::Allocator;

use super::export::{box_in, unbox};
use super::{FFI_ArrowArray, FFI_ArrowSchema};
use crate::array::{ArrayRef, RecordBatch};
use crate::buffer::Misaligned;
use crate::datatypes::{Field, Schema};
use crate::error::{Error, ErrorKind, Result};

/// `errno` value for an invalid stream or data (`EINVAL`).
pub const EINVAL: c_int = 22;
/// `errno` value for a failed allocation (`ENOMEM`).
pub const ENOMEM: c_int = 12;
/// `errno` value for an I/O failure (`EIO`).
pub const EIO: c_int = 5;

/// The `errno`-compatible code the stream callbacks return for `e`.
pub fn error_code(e: Error) -> c_int {
    match e.kind() {
        ErrorKind::AllocationFailed | ErrorKind::CapacityOverflow => ENOMEM,
        ErrorKind::Io | ErrorKind::UnexpectedEof | ErrorKind::WriteZero => EIO,
        _ => EINVAL,
    }
}

/// The C Stream Interface's `struct ArrowArrayStream`, field for field
/// ("The Arrow C stream interface", "Structure definition").
///
/// `get_schema` and `get_next` return 0 on success or an `errno`-compatible
/// code; `get_next` signals the end of the stream by leaving its output
/// released (`release` null); `get_last_error` describes the last error
/// (valid until the next call); `release` is null once released.
#[repr(C)]
#[derive(Debug)]
#[allow(non_camel_case_types)]
pub struct FFI_ArrowArrayStream {
    /// Writes the stream's schema (a struct type) into `out`.
    pub get_schema:
        Option<unsafe extern "C" fn(*mut FFI_ArrowArrayStream, *mut FFI_ArrowSchema) -> c_int>,
    /// Writes the next batch (a struct array) into `out`, or a released
    /// struct at the end of the stream.
    pub get_next:
        Option<unsafe extern "C" fn(*mut FFI_ArrowArrayStream, *mut FFI_ArrowArray) -> c_int>,
    /// A NUL-terminated description of the last error, or null.
    pub get_last_error: Option<unsafe extern "C" fn(*mut FFI_ArrowArrayStream) -> *const c_char>,
    /// Releases the stream; null once released.
    pub release: Option<unsafe extern "C" fn(*mut FFI_ArrowArrayStream)>,
    /// Producer-specific data.
    pub private_data: *mut c_void,
}

// SAFETY: the interface lets a consumer move a stream to another thread
// (one thread at a time calls it); the streams alkaid exports hold only
// `Send` data (the bounds of `try_from_batches_in`).
unsafe impl Send for FFI_ArrowArrayStream {}

/// Room for the last error's message and its NUL: the longest static
/// message with a full location fits.
const MESSAGE_ROOM: usize = 256;

/// Writes into a byte array, keeping room for a NUL: what does not fit is
/// cut (at a character boundary).
struct Cut<'m> {
    out: &'m mut [u8; MESSAGE_ROOM],
    len: usize,
}

impl core::fmt::Write for Cut<'_> {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        for c in s.chars() {
            let mut utf8 = [0u8; 4];
            let bytes = c.encode_utf8(&mut utf8).as_bytes();
            let end = self.len + bytes.len();
            match self.out.get_mut(self.len..end) {
                Some(room) if end < MESSAGE_ROOM => room.copy_from_slice(bytes),
                _ => return Err(core::fmt::Error),
            }
            self.len = end;
        }
        Ok(())
    }
}

/// What an exported stream owns.
struct StreamPrivate<I, A: Allocator + Clone + 'static> {
    schema: Schema<'static, A>,
    batches: I,
    /// The last error's message, NUL-terminated (empty: no error).
    message: [u8; MESSAGE_ROOM],
    alloc: A,
}

impl<I, A: Allocator + Clone + 'static> StreamPrivate<I, A> {
    /// Keeps `e`'s [`Display`](core::fmt::Display) text (its message and
    /// location, cut to the room) for `get_last_error`; returns its code.
    fn fail(&mut self, e: Error) -> c_int {
        use core::fmt::Write as _;
        let mut w = Cut {
            out: &mut self.message,
            len: 0,
        };
        // A message longer than the room is cut; that is not a failure.
        let _ = write!(w, "{e}");
        let n = w.len;
        if let Some(nul) = self.message.get_mut(n) {
            *nul = 0;
        }
        error_code(e)
    }
}

/// The private data of a live exported stream.
///
/// # Safety
/// `s` must be a stream made by [`FFI_ArrowArrayStream::try_from_batches_in`]
/// with these `I` and `A`, not released.
unsafe fn private<'s, I, A: Allocator + Clone + 'static>(
    s: *mut FFI_ArrowArrayStream,
) -> Option<&'s mut StreamPrivate<I, A>> {
    // SAFETY: the caller's contract.
    unsafe {
        s.as_ref()?
            .private_data
            .cast::<StreamPrivate<I, A>>()
            .as_mut()
    }
}

unsafe extern "C" fn get_schema<I, A>(
    s: *mut FFI_ArrowArrayStream,
    out: *mut FFI_ArrowSchema,
) -> c_int
where
    A: Allocator + Clone + Send + Sync + 'static,
{
    // SAFETY: the consumer calls with the stream it received.
    let Some(p) = (unsafe { private::<I, A>(s) }) else {
        return EINVAL;
    };
    if out.is_null() {
        return p.fail(Error::InvalidArgument);
    }
    match FFI_ArrowSchema::try_from_schema_in(&p.schema, p.alloc.clone()) {
        Ok(schema) => {
            // SAFETY: `out` points at the consumer's (released or
            // uninitialised) struct, which is overwritten, not dropped.
            unsafe { out.write(schema) };
            0
        }
        Err(e) => p.fail(e),
    }
}

unsafe extern "C" fn get_next<I, A>(s: *mut FFI_ArrowArrayStream, out: *mut FFI_ArrowArray) -> c_int
where
    I: Iterator<Item = Result<RecordBatch<'static, A>>>,
    A: Allocator + Clone + Send + Sync + 'static,
{
    // SAFETY: the consumer calls with the stream it received.
    let Some(p) = (unsafe { private::<I, A>(s) }) else {
        return EINVAL;
    };
    if out.is_null() {
        return p.fail(Error::InvalidArgument);
    }
    let next = match p.batches.next() {
        None => FFI_ArrowArray::empty(),
        Some(Ok(batch)) => {
            match FFI_ArrowArray::try_from_record_batch_in(&batch, p.alloc.clone()) {
                Ok(a) => a,
                Err(e) => return p.fail(e),
            }
        }
        Some(Err(e)) => return p.fail(e),
    };
    // SAFETY: as in `get_schema`.
    unsafe { out.write(next) };
    0
}

unsafe extern "C" fn get_last_error<I, A>(s: *mut FFI_ArrowArrayStream) -> *const c_char
where
    A: Allocator + Clone + Send + Sync + 'static,
{
    // SAFETY: the consumer calls with the stream it received.
    match unsafe { private::<I, A>(s) } {
        Some(p) if p.message[0] != 0 => p.message.as_ptr().cast(),
        _ => ptr::null(),
    }
}

unsafe extern "C" fn release_stream<I, A>(s: *mut FFI_ArrowArrayStream)
where
    A: Allocator + Clone + Send + Sync + 'static,
{
    // SAFETY: the consumer calls with the stream it received.
    let Some(s) = (unsafe { s.as_mut() }) else {
        return;
    };
    if s.release.is_none() {
        return;
    }
    if let Some(p) = NonNull::new(s.private_data.cast::<StreamPrivate<I, A>>()) {
        // SAFETY: made by `box_in` with the allocator it holds.
        unsafe {
            let alloc = (*p.as_ptr()).alloc.clone();
            drop(unbox(p, &alloc));
        }
    }
    s.release = None;
    s.private_data = ptr::null_mut();
}

impl FFI_ArrowArrayStream {
    /// A released stream (every callback null), for a producer to fill.
    pub const fn empty() -> Self {
        FFI_ArrowArrayStream {
            get_schema: None,
            get_next: None,
            get_last_error: None,
            release: None,
            private_data: ptr::null_mut(),
        }
    }

    /// Exports `batches` (each of `schema`) as a stream: `get_schema`
    /// exports `schema`, each `get_next` exports the next batch as a struct
    /// array (no buffer copied) or ends the stream; an `Err` from the
    /// iterator becomes the callback's error code (see [`error_code`]) and
    /// its message is what `get_last_error` returns. Readers are iterators
    /// of batches: a `SliceStreamReader` or `FileReader` over `'static`
    /// input (flash, a leaked or static buffer) exports directly.
    ///
    /// ```
    /// use alkaid::array::{Array, PrimitiveArray, RecordBatch};
    /// use alkaid::buffer::SharedSlice;
    /// use alkaid::datatypes::{DataType, Field, Schema};
    /// use alkaid::ffi::{ArrowArrayStreamReader, FFI_ArrowArrayStream};
    /// use alkaid::Global;
    ///
    /// static T: [u32; 3] = [1, 2, 3];
    /// static FIELDS: [Field<'static, Global>; 1] = [Field::new("t", DataType::UInt32, false)];
    /// let schema = Schema::new(SharedSlice::borrowed(&FIELDS));
    /// let columns = SharedSlice::try_from_iter_in(
    ///     [PrimitiveArray::<u32, Global>::from_slice(&T).into_array_ref()], Global)?;
    /// let batch = RecordBatch::try_new(schema.clone(), columns)?;
    ///
    /// let stream = FFI_ArrowArrayStream::try_from_batches_in(
    ///     schema, [Ok(batch.clone())].into_iter(), Global)?;
    /// // A consumer in the same process (here alkaid itself):
    /// // SAFETY: a stream alkaid just made.
    /// let reader = unsafe { ArrowArrayStreamReader::try_new_in(stream, Global) }?;
    /// let got: Vec<_> = reader.collect::<Result<_, _>>()?;
    /// assert_eq!(got, [batch]);
    /// # Ok::<(), alkaid::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::AllocationFailed`] when the stream's private data cannot be
    /// allocated.
    pub fn try_from_batches_in<I, A>(
        schema: Schema<'static, A>,
        batches: I,
        alloc: A,
    ) -> Result<Self>
    where
        I: Iterator<Item = Result<RecordBatch<'static, A>>> + Send + 'static,
        A: Allocator + Clone + Send + Sync + 'static,
    {
        let p = box_in(
            StreamPrivate {
                schema,
                batches,
                message: [0; MESSAGE_ROOM],
                alloc: alloc.clone(),
            },
            &alloc,
        )?;
        Ok(FFI_ArrowArrayStream {
            get_schema: Some(get_schema::<I, A>),
            get_next: Some(get_next::<I, A>),
            get_last_error: Some(get_last_error::<I, A>),
            release: Some(release_stream::<I, A>),
            private_data: p.as_ptr().cast(),
        })
    }
}

impl Drop for FFI_ArrowArrayStream {
    /// Calls `release` unless the stream was released (or moved out).
    fn drop(&mut self) {
        if let Some(release) = self.release {
            // SAFETY: a live stream is released by its owner, once.
            unsafe { release(self) };
        }
    }
}

/// Imports a producer's array together with its schema node: the field is
/// imported from `schema` ([`super::import_field_in`]), then the array
/// ([`FFI_ArrowArray::import_with_field_in`], misaligned buffers copied).
///
/// # Safety
/// Both structs keep the interface's contract (see
/// [`FFI_ArrowArray::import_with_field_in`]).
///
/// # Errors
/// The schema import's and the array import's.
pub unsafe fn import_array_in<A>(
    array: FFI_ArrowArray,
    schema: &FFI_ArrowSchema,
    alloc: A,
) -> Result<(Field<'static, A>, ArrayRef<'static, A>)>
where
    A: Allocator + Clone + Send + Sync + 'static,
{
    // SAFETY: the caller's contract.
    let field = unsafe { super::import_field_in(schema, alloc.clone()) }?;
    // SAFETY: the caller's contract.
    let a = unsafe { array.import_with_field_in(&field, Misaligned::Copy, alloc) }?;
    Ok((field, a))
}

/// Exports a field and its array together (see
/// [`FFI_ArrowSchema::try_from_field_in`] and
/// [`FFI_ArrowArray::try_from_array_in`]).
///
/// ```
/// use alkaid::array::{Array, PrimitiveArray};
/// use alkaid::datatypes::{DataType, Field};
/// use alkaid::ffi::{export_array_in, import_array_in};
/// use alkaid::Global;
///
/// static SAMPLES: [i64; 3] = [7, 8, 9];
/// let column = PrimitiveArray::<i64, Global>::from_slice(&SAMPLES).into_array_ref();
/// let field = Field::new("samples", DataType::Int64, false);
/// // Export: the structs point at SAMPLES; `release` drops alkaid's references.
/// let (array, schema) = export_array_in(&field, &column, Global)?;
/// // ... hand `&array`/`&schema` to a consumer (pyarrow: pa.Array._import_from_c) ...
/// // Import (here alkaid is its own consumer): buffers stay the producer's.
/// // SAFETY: structs of the C Data Interface, just exported above.
/// let (field_back, column_back) = unsafe { import_array_in(array, &schema, Global) }?;
/// assert_eq!(field_back, field);
/// assert_eq!(column_back, column);
/// # Ok::<(), alkaid::Error>(())
/// ```
///
/// # Errors
/// As the two exports.
pub fn export_array_in<A>(
    field: &Field<'_, A>,
    array: &ArrayRef<'static, A>,
    alloc: A,
) -> Result<(FFI_ArrowArray, FFI_ArrowSchema)>
where
    A: Allocator + Clone + Send + Sync + 'static,
{
    let s = FFI_ArrowSchema::try_from_field_in(field, alloc.clone())?;
    let a = FFI_ArrowArray::try_from_array_in(array, alloc)?;
    Ok((a, s))
}
