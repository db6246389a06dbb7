//! Custom metadata in the binary encoding of the C Data Interface
//! (`ArrowSchema.metadata`).
//!
//! Implements "The Arrow C data interface", "The ArrowSchema structure",
//! `metadata`: an `int32` number of pairs, then for each pair an `int32` key
//! length in bytes, the key's bytes, an `int32` value length and the value's
//! bytes, every `int32` in native endianness and unaligned, no terminator.

use core::ffi::c_char;

use allocator_api2::alloc::Allocator;

use crate::buffer::{MutableBuffer, SharedSlice, SharedStr};
use crate::datatypes::Metadata;
use crate::error::{Error, Result};

/// Default cap on the bytes an import copies from a producer's schema tree:
/// binary metadata (counts and lengths included), names and time zones
/// (64 MiB).
pub const DEFAULT_MAX_IMPORT_BYTES: usize = 64 << 20;

/// `usize` of a length as the interface's `int32`.
fn len_i32(n: usize) -> Result<i32> {
    i32::try_from(n).map_err(|_| Error::FfiMetadataTooLarge)
}

/// Encodes `metadata` into a new buffer from `alloc` (64-byte aligned, so the
/// leading `int32` is aligned too); `None` for empty metadata, which the
/// interface writes as a null pointer.
///
/// # Errors
/// [`Error::FfiMetadataTooLarge`] when the number of pairs or a key or value
/// length (in bytes) exceeds `i32::MAX`; [`Error::AllocationFailed`],
/// [`Error::CapacityOverflow`].
pub(crate) fn encode_metadata_in<B: Allocator, A: Allocator>(
    metadata: &Metadata<'_, B>,
    alloc: A,
) -> Result<Option<MutableBuffer<A>>> {
    if metadata.is_empty() {
        return Ok(None);
    }
    let mut size: usize = 4;
    for (k, v) in metadata.iter() {
        len_i32(k.len())?;
        len_i32(v.len())?;
        size = size
            .checked_add(8)
            .and_then(|s| s.checked_add(k.len()))
            .and_then(|s| s.checked_add(v.len()))
            .ok_or(Error::CapacityOverflow)?;
    }
    let mut out = MutableBuffer::new_in(alloc);
    out.try_reserve_exact(size)?;
    out.try_extend_from_slice(&len_i32(metadata.len())?.to_ne_bytes())?;
    for (k, v) in metadata.iter() {
        for s in [k.as_str(), v.as_str()] {
            out.try_extend_from_slice(&len_i32(s.len())?.to_ne_bytes())?;
            out.try_extend_from_slice(s.as_bytes())?;
        }
    }
    Ok(Some(out))
}

/// Reads the `int32` at `ptr + offset`.
///
/// # Safety
/// `ptr + offset .. + 4` must be readable.
unsafe fn read_i32(ptr: *const u8, offset: usize) -> i32 {
    // SAFETY: the caller guarantees the four bytes are readable; the read is
    // unaligned, as the encoding does not align its integers.
    unsafe { ptr.add(offset).cast::<i32>().read_unaligned() }
}

/// A cursor over a producer's binary metadata that never moves past
/// `max_bytes` from the start; `'p` is how long the producer's memory is
/// read (the duration of [`decode_metadata_in`]).
struct Reader<'p> {
    ptr: *const u8,
    offset: usize,
    max_bytes: usize,
    _producer: core::marker::PhantomData<&'p [u8]>,
}

impl<'p> Reader<'p> {
    /// The next `int32` length.
    ///
    /// # Safety
    /// As [`decode_metadata_in`]: the encoding is readable up to its end.
    unsafe fn length(&mut self) -> Result<usize> {
        let end = self
            .offset
            .checked_add(4)
            .ok_or(Error::FfiMetadataTooLarge)?;
        if end > self.max_bytes {
            return Err(Error::FfiMetadataTooLarge);
        }
        // SAFETY: the encoding is readable up to its end (caller) and the
        // bytes before `end` belong to it (this length is part of it).
        let n = unsafe { read_i32(self.ptr, self.offset) };
        self.offset = end;
        usize::try_from(n).map_err(|_| Error::FfiMetadataNegativeLength)
    }

    /// The next length-prefixed UTF-8 string.
    ///
    /// # Safety
    /// As [`Reader::length`].
    unsafe fn string(&mut self) -> Result<&'p str> {
        // SAFETY: forwarded contract.
        let n = unsafe { self.length() }?;
        let end = self
            .offset
            .checked_add(n)
            .ok_or(Error::FfiMetadataTooLarge)?;
        if end > self.max_bytes {
            return Err(Error::FfiMetadataTooLarge);
        }
        // SAFETY: the `n` bytes after the length are part of the encoding,
        // readable by the caller's contract; they are not written while we
        // hold the slice (the producer does not mutate a schema it handed out).
        let bytes = unsafe { core::slice::from_raw_parts(self.ptr.add(self.offset), n) };
        self.offset = end;
        core::str::from_utf8(bytes).map_err(|_| Error::FfiMetadataNotUtf8)
    }
}

/// Decodes a producer's binary metadata into memory from `alloc`, reading at
/// most `max_bytes` bytes of it. A null `ptr` is empty metadata. Returns the
/// metadata and the size of the encoding in bytes.
///
/// Every count and length is checked before it is used: the whole encoding
/// is walked and its strings checked for UTF-8 before anything is allocated,
/// so a hostile count cannot make us allocate more than a small multiple of
/// `max_bytes`.
///
/// # Safety
/// `ptr` is null or points at a well-formed encoding (as far as its lengths
/// claim, up to `max_bytes` bytes) that stays readable and unchanged for the
/// duration of the call. This is the producer's promise in the interface;
/// it cannot be checked here.
///
/// # Errors
/// [`Error::FfiMetadataNegativeLength`], [`Error::FfiMetadataNotUtf8`],
/// [`Error::FfiMetadataTooLarge`] when the encoding is longer than
/// `max_bytes`; [`Error::AllocationFailed`].
pub(crate) unsafe fn decode_metadata_in<A: Allocator + Clone>(
    ptr: *const c_char,
    alloc: A,
    max_bytes: usize,
) -> Result<(Metadata<'static, A>, usize)> {
    if ptr.is_null() {
        return Ok((SharedSlice::empty(), 0));
    }
    let mut r = Reader {
        ptr: ptr.cast::<u8>(),
        offset: 0,
        max_bytes,
        _producer: core::marker::PhantomData,
    };
    // First pass: lengths, limits and UTF-8, nothing allocated.
    // SAFETY: the caller's contract, forwarded.
    let n = unsafe { r.length() }?;
    // Each pair takes at least 8 bytes of lengths.
    if n > max_bytes.saturating_sub(4) / 8 {
        return Err(Error::FfiMetadataTooLarge);
    }
    for _ in 0..n {
        // SAFETY: the caller's contract, forwarded.
        unsafe {
            r.string()?;
            r.string()?;
        }
    }
    let size = r.offset;
    // Second pass: copy. The checks run again (cheap), so that memory that
    // changed between the passes gives an error rather than a bad string.
    r.offset = 4;
    let pairs = SharedSlice::try_from_fn_in(n, alloc.clone(), |_| {
        // SAFETY: the caller's contract, forwarded.
        let (k, v) = unsafe { (r.string()?, r.string()?) };
        Ok((
            SharedStr::try_from_str_in(k, alloc.clone())?,
            SharedStr::try_from_str_in(v, alloc.clone())?,
        ))
    })?;
    Ok((pairs, size))
}
