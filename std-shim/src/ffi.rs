//! Handing what alkaid reads to another Arrow implementation in the same
//! process through the C Stream Interface ([`alkaid::ffi`]): pyarrow
//! (`pyarrow.RecordBatchReader._import_from_c`), arrow-rs
//! (`arrow::ffi_stream::ArrowArrayStreamReader`), polars, DuckDB or
//! nanoarrow take an [`FFI_ArrowArrayStream`] by address.

use alkaid::array::RecordBatch;
use alkaid::ffi::FFI_ArrowArrayStream;
use alkaid::ipc::reader::{FileReader, IpcReadOptions, SliceStreamReader};
use alkaid::Global;

use crate::codecs::StdCodecs;
use crate::error::Result;
use crate::read::{IpcFormat, IpcInput};

impl IpcInput {
    /// Exports the input's batches as a C stream: no buffer is copied (the
    /// batches of a mapped or in-memory input point into it, and keep it
    /// alive until the consumer releases them, even after this
    /// [`IpcInput`] is dropped). Batches are read as the consumer pulls
    /// them; a read or validation error is the stream's error (its message
    /// through `get_last_error`). A stream-format source read lazily
    /// ([`crate::read_ipc`] of a pipe) is read whole first.
    ///
    /// ```no_run
    /// use alkaid::ffi::FFI_ArrowArrayStream;
    ///
    /// /// Called by the host program's binding with the address of a
    /// /// consumer's `struct ArrowArrayStream` (pyarrow:
    /// /// `pa.RecordBatchReader._import_from_c(address)` afterwards).
    /// fn export(path: &str, out: *mut FFI_ArrowArrayStream) -> alkaid_std::Result<()> {
    ///     let stream = alkaid_std::open_ipc(path)?.to_ffi_stream()?;
    ///     // SAFETY: `out` is the consumer's struct to fill.
    ///     unsafe { out.write(stream) };
    ///     Ok(())
    /// }
    /// ```
    ///
    /// # Errors
    /// As [`IpcInput::reader`] for the start of the input;
    /// [`alkaid::Error::AllocationFailed`].
    pub fn to_ffi_stream(&self) -> Result<FFI_ArrowArrayStream> {
        let options = IpcReadOptions::default();
        let Some(bytes) = self.buffer() else {
            let mut reader = self.reader_with(options)?;
            let schema = reader.schema().clone();
            let batches: Vec<RecordBatch<'static, Global>> =
                reader.by_ref().collect::<Result<_>>()?;
            return Ok(FFI_ArrowArrayStream::try_from_batches_in(
                schema,
                batches.into_iter().map(Ok),
                Global,
            )?);
        };
        Ok(match self.format() {
            IpcFormat::Stream => {
                let r = SliceStreamReader::try_from_buffer_with_codecs_in(
                    bytes,
                    options,
                    StdCodecs::default(),
                    Global,
                )?;
                FFI_ArrowArrayStream::try_from_batches_in(r.schema().clone(), r, Global)?
            }
            IpcFormat::File => {
                let r = FileReader::try_from_buffer_with_codecs_in(
                    bytes,
                    options,
                    StdCodecs::default(),
                    Global,
                )?;
                FFI_ArrowArrayStream::try_from_batches_in(
                    r.schema().clone(),
                    r.into_batches(),
                    Global,
                )?
            }
        })
    }
}
