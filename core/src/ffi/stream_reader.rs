//! [`ArrowArrayStreamReader`]: a producer's C stream ("The Arrow C stream
//! interface") read as an iterator of alkaid record batches.

use allocator_api2::alloc::Allocator;

use super::{FFI_ArrowArray, FFI_ArrowArrayStream, FFI_ArrowSchema};
use crate::array::{Array, ArrayRef, RecordBatch};
use crate::buffer::{Misaligned, SharedSlice};
use crate::datatypes::{DataType, Field, Schema};
use crate::error::{Error, Result};

/// A producer's [`FFI_ArrowArrayStream`] read as an iterator of alkaid
/// record batches (feature `nested`: a batch arrives as a struct array).
///
/// record batches, each over the producer's memory (no buffer copied; each
/// batch keeps its array's `release` pending until its last view drops).
///
/// The schema is imported once, at construction. Each batch is validated
/// ([`crate::array::ValidationLevel::Full`]). An error from the producer is
/// [`Error::Io`] (its message is in [`Self::last_error`]); after an error or
/// the end, the iterator returns `None`.
///
/// Here an IPC reader is exported as a C stream (as a library would hand it
/// to DuckDB or pyarrow) and read back; its input is cut short, so the
/// producer's error crosses the interface:
///
/// ```
/// use alkaid::array::{Array, RecordBatch, UInt8Array};
/// use alkaid::ffi::{ArrowArrayStreamReader, FFI_ArrowArrayStream};
/// use alkaid::ipc::reader::SliceStreamReader;
/// use alkaid::ipc::writer::StreamWriter;
/// use alkaid::Global;
///
/// let batch = RecordBatch::try_from_iter([("v", UInt8Array::from(vec![1, 2, 3]).into_array_ref())])?;
/// let mut w = StreamWriter::try_new(Vec::new(), batch.schema())?;
/// w.write(&batch)?;
/// w.write(&batch)?;
/// w.finish()?;
/// let mut bytes = w.into_inner();
/// bytes.truncate(bytes.len() - 20); // the second batch is cut
/// let bytes: &'static [u8] = Vec::leak(bytes); // exported data must be 'static
///
/// let reader = SliceStreamReader::try_new(bytes)?;
/// let stream = FFI_ArrowArrayStream::try_from_batches_in(reader.schema().clone(), reader, Global)?;
/// // SAFETY: a stream alkaid just made.
/// let mut imported = unsafe { ArrowArrayStreamReader::try_new_in(stream, Global) }?;
/// assert_eq!(imported.schema(), batch.schema());
/// assert_eq!(imported.next().transpose()?, Some(batch));
/// assert!(imported.next().is_some_and(|b| b.is_err())); // Error::Io
/// assert!(imported.last_error().is_some_and(|m| !m.is_empty())); // the producer's message
/// assert!(imported.next().is_none());
/// # Ok::<(), alkaid::Error>(())
/// ```
pub struct ArrowArrayStreamReader<
    #[cfg(feature = "alloc")] A: Allocator + Clone + Send + Sync + 'static = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator + Clone + Send + Sync + 'static,
> {
    stream: FFI_ArrowArrayStream,
    schema: Schema<'static, A>,
    /// The struct type of a batch (the schema's fields).
    batch_field: Field<'static, A>,
    done: bool,
    alloc: A,
}

impl<A: Allocator + Clone + Send + Sync + 'static> core::fmt::Debug for ArrowArrayStreamReader<A> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ArrowArrayStreamReader")
            .field("schema", &self.schema)
            .field("done", &self.done)
            .finish()
    }
}

impl<A: Allocator + Clone + Send + Sync + 'static> ArrowArrayStreamReader<A> {
    /// Takes ownership of `stream` (released when the reader drops) and
    /// imports its schema, which must be a struct type.
    ///
    /// # Safety
    /// `stream` must be a live stream of "The Arrow C stream interface"
    /// whose callbacks, schemas and arrays keep that interface's contract
    /// (see [`FFI_ArrowArray::import_with_field_in`]).
    ///
    /// # Errors
    /// [`Error::FfiReleased`]; [`Error::Io`] when `get_schema` fails; the
    /// schema import's errors; [`Error::AllocationFailed`].
    pub unsafe fn try_new_in(mut stream: FFI_ArrowArrayStream, alloc: A) -> Result<Self> {
        let (Some(get_schema), Some(_)) = (stream.get_schema, stream.release) else {
            return Err(Error::FfiReleased);
        };
        let mut out = FFI_ArrowSchema::empty();
        // SAFETY: the contract: a live stream's callback, with a struct to fill.
        if unsafe { get_schema(&mut stream, &mut out) } != 0 {
            return Err(Error::Io);
        }
        // SAFETY: the contract covers the schema the producer made.
        let schema = unsafe { super::import_schema_in(&out, alloc.clone()) }?;
        let batch_field = Field::new("", DataType::Struct(schema.fields().clone()), false);
        Ok(ArrowArrayStreamReader {
            stream,
            schema,
            batch_field,
            done: false,
            alloc,
        })
    }

    /// The schema of every batch.
    pub fn schema(&self) -> &Schema<'static, A> {
        &self.schema
    }

    /// The producer's description of its last error (`get_last_error`), if
    /// it gave one that is UTF-8.
    pub fn last_error(&mut self) -> Option<&str> {
        let f = self.stream.get_last_error?;
        // SAFETY: the contract: a live stream's callback.
        let p = unsafe { f(&mut self.stream) };
        if p.is_null() {
            return None;
        }
        // SAFETY: the contract: a NUL-terminated string, valid until the
        // next call on the stream (which needs `&mut self`).
        unsafe { core::ffi::CStr::from_ptr(p) }.to_str().ok()
    }

    fn next_batch(&mut self) -> Result<Option<RecordBatch<'static, A>>> {
        let get_next = self.stream.get_next.ok_or(Error::FfiReleased)?;
        let mut out = FFI_ArrowArray::empty();
        // SAFETY: the contract: a live stream's callback, with a struct to fill.
        if unsafe { get_next(&mut self.stream, &mut out) } != 0 {
            return Err(Error::Io);
        }
        if out.is_released() {
            return Ok(None);
        }
        // SAFETY: the contract covers the arrays the producer makes.
        let a = unsafe {
            out.import_with_field_in(&self.batch_field, Misaligned::Copy, self.alloc.clone())
        }?;
        let ArrayRef::Struct(s) = a else {
            return Err(Error::TypeMismatch);
        };
        if s.null_count() != 0 {
            return Err(Error::NullInNonNullableField);
        }
        let columns = SharedSlice::try_from_fn_in(s.num_columns(), self.alloc.clone(), |i| {
            s.column(i).ok_or(Error::InvalidChildCount)
        })?;
        RecordBatch::try_new_with_rows(self.schema.clone(), columns, s.len()).map(Some)
    }
}

impl<A: Allocator + Clone + Send + Sync + 'static> Iterator for ArrowArrayStreamReader<A> {
    type Item = Result<RecordBatch<'static, A>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let r = self.next_batch();
        if !matches!(r, Ok(Some(_))) {
            self.done = true;
        }
        r.transpose()
    }
}
