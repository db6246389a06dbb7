//! The options of the IPC readers: how much of each decoded array is
//! checked ([`IpcReadOptions`]) and what untrusted input may make a reader
//! allocate ([`ReadLimits`]).

use crate::array::ValidationLevel;
use crate::ipc::schema::DecodeLimits;

/// Bounds on what untrusted input can make a reader allocate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadLimits {
    /// Largest metadata flatbuffer of one message, in bytes.
    pub max_metadata_size: usize,
    /// Largest message body, in bytes.
    pub max_body_size: usize,
    /// Largest decompressed buffer, in bytes.
    pub max_buffer_size: usize,
    /// Most values one dictionary may hold after deltas.
    pub max_dictionary_len: usize,
    /// Schema limits: nesting depth, number of fields, metadata entries.
    pub schema: DecodeLimits,
}

/// 4 GiB, or `isize::MAX` bytes on targets whose address space is smaller
/// (computed in `u64`: `4 << 30` overflows a 32-bit `usize`).
const FOUR_GIB_OR_ISIZE_MAX: usize = if (isize::MAX as u64) < (4u64 << 30) {
    isize::MAX as usize
} else {
    (4u64 << 30) as usize
};

impl Default for ReadLimits {
    fn default() -> Self {
        ReadLimits {
            max_metadata_size: 16 << 20,
            max_body_size: FOUR_GIB_OR_ISIZE_MAX,
            max_buffer_size: FOUR_GIB_OR_ISIZE_MAX,
            max_dictionary_len: 1 << 30,
            schema: DecodeLimits::default(),
        }
    }
}

/// Options of the IPC readers.
///
/// By default readers validate every decoded array fully
/// ([`ValidationLevel::Full`]) and bound what input may make them allocate
/// with [`ReadLimits`]. Lower limits refuse larger input before allocating;
/// lowering validation is `unsafe` (for input the program wrote itself).
///
/// ```
/// use alkaid::array::{Array, Int64Array, RecordBatch, ValidationLevel};
/// use alkaid::ipc::reader::{IpcReadOptions, ReadLimits, SliceStreamReader};
/// use alkaid::ipc::writer::StreamWriter;
/// use alkaid::Global;
///
/// let batch = RecordBatch::try_from_iter([("t", Int64Array::from_iter_values(0..1000).into_array_ref())])?;
/// let mut w = StreamWriter::try_new(Vec::new(), batch.schema())?;
/// w.write(&batch)?;
/// w.finish()?;
/// let bytes = w.into_inner();
///
/// // A body of 8000 bytes exceeds a 4 KiB limit: refused, nothing allocated.
/// let small = IpcReadOptions::with_limits(ReadLimits { max_body_size: 4096, ..Default::default() });
/// let mut r = SliceStreamReader::try_new_in(&bytes, small, Global)?;
/// assert!(r.next().is_some_and(|b| b.is_err())); // Error::LimitExceeded
///
/// // Our own bytes: O(1) checks per array instead of O(n).
/// // SAFETY: `bytes` was written by this program's `StreamWriter`.
/// let trusted = unsafe { IpcReadOptions::default().with_validation(ValidationLevel::Cheap) };
/// assert_eq!(trusted.validation(), ValidationLevel::Cheap);
/// let mut r = SliceStreamReader::try_new_in(&bytes, trusted, Global)?;
/// assert_eq!(r.next().transpose()?, Some(batch));
/// # Ok::<(), alkaid::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct IpcReadOptions {
    /// Allocation bounds.
    pub limits: ReadLimits,
    /// How much of each decoded array is checked (Full by default; Strict
    /// through [`Self::with_strict_validation`]).
    validation: ValidationLevel,
}

impl IpcReadOptions {
    /// Default options with `limits`.
    pub fn with_limits(limits: ReadLimits) -> Self {
        IpcReadOptions {
            limits,
            ..Self::default()
        }
    }

    /// The validation level applied to decoded arrays.
    pub fn validation(&self) -> ValidationLevel {
        self.validation
    }

    /// Raises the validation of decoded arrays to [`ValidationLevel::Strict`]:
    /// the value-domain rules (decimal precision, whole-day Date64, time of
    /// day, no null in a non-nullable child) on top of the default
    /// [`ValidationLevel::Full`], as pyarrow's `validate(full=True)`. A batch
    /// that breaks one is refused with the rule and its location (message,
    /// field, buffer).
    ///
    /// ```
    /// use alkaid::ipc::reader::IpcReadOptions;
    /// use alkaid::array::ValidationLevel;
    ///
    /// let strict = IpcReadOptions::default().with_strict_validation();
    /// assert_eq!(strict.validation(), ValidationLevel::Strict);
    /// ```
    pub fn with_strict_validation(mut self) -> Self {
        self.validation = ValidationLevel::Strict;
        self
    }

    /// Lowers the validation of decoded arrays to `level`.
    ///
    /// With [`ValidationLevel::Cheap`] the reader still checks every message,
    /// node and buffer extent, and each array's O(1) invariants (types, buffer
    /// sizes, first and last offsets), but reads no data value: decoding time
    /// no longer depends on the body size. Framing, limits and bounds checks
    /// are never skipped.
    ///
    /// # Safety
    /// The caller vouches that the input is valid Arrow data (e.g. it wrote it
    /// itself): accessors of arrays with invalid offsets, UTF-8, views, union
    /// ids, run ends, dictionary keys or null counts may return wrong values
    /// or panic.
    pub unsafe fn with_validation(mut self, level: ValidationLevel) -> Self {
        self.validation = level;
        self
    }
}
