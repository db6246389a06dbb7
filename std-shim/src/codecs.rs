//! ZSTD body compression on the host: [`ZstdCodec`] binds the reference
//! Zstandard library (the `zstd` crate) as an [`alkaid`] [`Codec`], and
//! [`StdCodecs`] is the codec set every reader and writer of this crate uses
//! (ZSTD from here, LZ4 frame from the core).

use std::fmt;
use std::ops::RangeInclusive;

use alkaid::ipc::compression::{zstd_frame, BuiltinCodecs, Codec, WithCodec};
use alkaid::ipc::message::CompressionCodec;
use zstd::zstd_safe::zstd_sys::ZSTD_ErrorCode;
use zstd::zstd_safe::{self, CCtx, CParameter, DCtx, ErrorCode};

/// The codecs of the std shim: [`ZstdCodec`] in front of the core's
/// [`BuiltinCodecs`] (LZ4 frame; and the core's ZSTD decoder when its
/// `zstd-decode` feature is on, which [`ZstdCodec`] takes precedence over).
/// `StdCodecs::default()` compresses ZSTD at [`ZstdCodec::DEFAULT_LEVEL`];
/// `WithCodec::new(ZstdCodec::with_level(9), BuiltinCodecs::new())` at
/// another level.
pub type StdCodecs = WithCodec<ZstdCodec, BuiltinCodecs>;

/// The `ZSTD` [`Codec`] over the reference Zstandard library: compresses
/// each buffer into one frame (with its content size; with a content
/// checksum when asked), decompresses any Zstandard stream (concatenated and
/// skippable frames, with or without checksum) straight into the output
/// slice.
///
/// The library's compression and decompression contexts are made on first
/// use and reused. Before a reader allocates a buffer, its declared length
/// is checked against the frame and block headers
/// ([`zstd_frame::check_declared_len`]).
///
/// ```
/// # use alkaid_std::array::{Array, Int64Array, RecordBatch};
/// # let batch = RecordBatch::try_from_iter([("v", Int64Array::from_iter_values(0..1000).into_array_ref())])?;
/// use alkaid::ipc::compression::{BuiltinCodecs, WithCodec};
/// use alkaid_std::{CompressionCodec, IpcWriteOptions, StreamWriter, ZstdCodec};
///
/// let options = IpcWriteOptions { compression: Some(CompressionCodec::Zstd), ..Default::default() };
/// let mut sizes = Vec::new();
/// for level in [1, 19] {
///     let codecs = WithCodec::new(ZstdCodec::with_level(level), BuiltinCodecs::new());
///     let mut w = StreamWriter::try_new_with_codecs(Vec::new(), batch.schema(), options, codecs)?;
///     w.write(&batch)?;
///     w.finish()?;
///     let bytes = w.into_inner();
///     let back: Vec<_> = alkaid_std::read_stream(&bytes[..])?.collect::<alkaid_std::Result<_>>()?;
///     assert_eq!(back, [batch.clone()]);
///     sizes.push(bytes.len());
/// }
/// assert!(sizes.iter().all(|&n| n < 8000)); // 8,000 bytes of values
/// # Ok::<(), alkaid_std::Error>(())
/// ```
pub struct ZstdCodec {
    level: i32,
    checksum: bool,
    cctx: Option<CCtx<'static>>,
    dctx: Option<DCtx<'static>>,
}

impl ZstdCodec {
    /// The default compression level: 3, the reference library's default and
    /// what arrow-rs writes (`arrow-ipc` 60) when no level is given.
    pub const DEFAULT_LEVEL: i32 = 3;

    /// A codec compressing at [`Self::DEFAULT_LEVEL`], without checksums.
    pub fn new() -> Self {
        Self::with_level(Self::DEFAULT_LEVEL)
    }

    /// A codec compressing at `level` (see [`Self::level_range`]; the library
    /// clamps levels outside it; 0 means its default, 3; negative levels are
    /// its fast modes), without checksums.
    pub fn with_level(level: i32) -> Self {
        ZstdCodec {
            level,
            checksum: false,
            cctx: None,
            dctx: None,
        }
    }

    /// Whether frames written get a content checksum (4 bytes, xxh64, checked
    /// by every reader). Off by default, as in the reference library.
    pub fn with_checksum(mut self, checksum: bool) -> Self {
        self.checksum = checksum;
        self.cctx = None;
        self
    }

    /// The compression level.
    pub fn level(&self) -> i32 {
        self.level
    }

    /// Whether frames written carry a content checksum.
    pub fn checksum(&self) -> bool {
        self.checksum
    }

    /// The levels the library supports (negative fast levels to 22).
    pub fn level_range() -> RangeInclusive<i32> {
        zstd::compression_level_range()
    }

    fn cctx(&mut self) -> alkaid::Result<&mut CCtx<'static>> {
        if self.cctx.is_none() {
            let mut c = CCtx::try_create().ok_or(alkaid::Error::AllocationFailed)?;
            c.set_parameter(CParameter::CompressionLevel(self.level))
                .map_err(compress_error)?;
            c.set_parameter(CParameter::ChecksumFlag(self.checksum))
                .map_err(compress_error)?;
            self.cctx = Some(c);
        }
        self.cctx.as_mut().ok_or(alkaid::Error::AllocationFailed)
    }
}

impl Default for ZstdCodec {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for ZstdCodec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ZstdCodec")
            .field("level", &self.level)
            .field("checksum", &self.checksum)
            .finish_non_exhaustive()
    }
}

/// The library's error enum value behind a function result.
fn error_kind(code: ErrorCode) -> usize {
    0usize.wrapping_sub(code)
}

fn is(code: ErrorCode, kind: ZSTD_ErrorCode) -> bool {
    error_kind(code) == kind as usize
}

fn compress_error(code: ErrorCode) -> alkaid::Error {
    if is(code, ZSTD_ErrorCode::ZSTD_error_dstSize_tooSmall) {
        alkaid::Error::OutOfBounds
    } else if is(code, ZSTD_ErrorCode::ZSTD_error_memory_allocation) {
        alkaid::Error::AllocationFailed
    } else {
        alkaid::Error::InvalidArgument
    }
}

fn decompress_error(code: ErrorCode) -> alkaid::Error {
    use ZSTD_ErrorCode as E;
    if is(code, E::ZSTD_error_dstSize_tooSmall) {
        alkaid::Error::DecompressedSizeMismatch
    } else if is(code, E::ZSTD_error_checksum_wrong) {
        alkaid::Error::CompressedChecksumMismatch
    } else if is(code, E::ZSTD_error_memory_allocation) {
        alkaid::Error::AllocationFailed
    } else if is(code, E::ZSTD_error_frameParameter_windowTooLarge) {
        alkaid::Error::LimitExceeded
    } else {
        alkaid::Error::CorruptCompressedData
    }
}

impl Codec for ZstdCodec {
    fn codec(&self) -> CompressionCodec {
        CompressionCodec::Zstd
    }

    /// The library's `ZSTD_compressBound`.
    fn max_compressed_len(&self, input_len: usize) -> alkaid::Result<usize> {
        let bound = zstd_safe::compress_bound(input_len);
        if bound < input_len {
            return Err(alkaid::Error::CapacityOverflow);
        }
        Ok(bound)
    }

    /// One frame at the codec's level, with the content size.
    ///
    /// # Errors
    /// [`alkaid::Error::OutOfBounds`] when `out` is too small;
    /// [`alkaid::Error::AllocationFailed`] when the library cannot allocate
    /// its context.
    fn compress(&mut self, input: &[u8], out: &mut [u8]) -> alkaid::Result<usize> {
        self.cctx()?.compress2(out, input).map_err(compress_error)
    }

    /// # Errors
    /// [`alkaid::Error::DecompressedSizeMismatch`] when the content would not
    /// fit `out`; [`alkaid::Error::CompressedChecksumMismatch`];
    /// [`alkaid::Error::CorruptCompressedData`] for anything else malformed,
    /// and for an empty `input`.
    fn decompress(&mut self, input: &[u8], out: &mut [u8]) -> alkaid::Result<usize> {
        if input.is_empty() {
            return Err(alkaid::Error::CorruptCompressedData);
        }
        if self.dctx.is_none() {
            self.dctx = Some(DCtx::try_create().ok_or(alkaid::Error::AllocationFailed)?);
        }
        let dctx = self.dctx.as_mut().ok_or(alkaid::Error::AllocationFailed)?;
        dctx.decompress(out, input).map_err(decompress_error)
    }

    /// [`zstd_frame::check_declared_len`] (any window: the library decodes
    /// straight into the output).
    fn check_declared_len(&mut self, input: &[u8], declared_len: usize) -> alkaid::Result<()> {
        zstd_frame::check_declared_len(input, declared_len, u64::MAX)
    }
}
