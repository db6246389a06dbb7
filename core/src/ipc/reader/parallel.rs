//! A compressed body decompressed through a [`BodyExecutor`] before it is
//! decoded: every compressed buffer becomes one [`BodyJob`] writing into
//! its own allocation, and the decoder then takes the buffers from the
//! list ("Compression" of the IPC chapter: each buffer is compressed on its
//! own).
//!
//! The checks and the allocations stay on the calling thread and are those
//! of the sequential path ([`decompress_buffer`]): extents inside the body,
//! 8-byte alignment, the declared length against the caller's limit and
//! the codec's plausibility check, then an allocation of exactly that
//! length. Whatever goes wrong (a check, an allocation, a job) abandons the
//! list, and the decoder decompresses buffer by buffer as without an
//! executor, so that a hostile body fails with the same error at the same
//! buffer either way.
//!
//! [`BodyExecutor`]: crate::ipc::compression::BodyExecutor
//! [`decompress_buffer`]: crate::ipc::compression::decompress_buffer

use allocator_api2::alloc::Allocator;

use crate::buffer::{Buffer, MutableBuffer, TryVec};
use crate::error::Result;
use crate::ipc::compression::LENGTH_PREFIX_BYTES;
use crate::ipc::compression::{buffer_length, BodyJob, BufferLength, CodecSet};
use crate::ipc::message::{CompressionCodec, RecordBatchView};

/// The decompressed buffers of a body, by index (taken by the decoder).
pub(crate) type Ready<'b, A> = TryVec<Option<Buffer<'b, A>>, A>;

/// The extent of buffer `i` of `header` in a body of `body_len` bytes,
/// checked as the decoder checks it.
fn extent(header: &RecordBatchView<'_>, i: usize, body_len: usize) -> Option<(usize, usize)> {
    let spec = header.buffer(i).ok()?;
    let off = usize::try_from(spec.offset).ok()?;
    let len = usize::try_from(spec.length).ok()?;
    let end = off.checked_add(len)?;
    (end <= body_len && off % 8 == 0).then_some((off, end))
}

/// Decompresses every buffer of `body` (compressed with `codec`, as
/// `header` lays it out) through the executor of `codecs`; `None` when
/// `codecs` has none, when it does not want a body this small, or when
/// anything fails (see the [module](self) documentation). `limit` is the
/// largest decompressed buffer, in bytes.
pub(crate) fn predecode<'b, A: Allocator + Clone, S: CodecSet>(
    codecs: &mut S,
    codec: CompressionCodec,
    header: &RecordBatchView<'_>,
    body: &Buffer<'b, A>,
    limit: usize,
    alloc: &A,
) -> Option<Ready<'b, A>> {
    let executor = codecs.executor()?;
    let raw = body.as_slice();
    let n = header.num_buffers();
    let (mut count, mut bytes) = (0usize, 0usize);
    for i in 0..n {
        let (off, end) = extent(header, i, raw.len())?;
        if let BufferLength::Compressed(len) = buffer_length(raw.get(off..end)?).ok()? {
            let len = usize::try_from(len).ok().filter(|&l| l <= limit)?;
            count += 1;
            bytes = bytes.checked_add(len)?;
        }
    }
    if !executor.wants(count, bytes) {
        return None;
    }
    build(codecs, codec, header, body, limit, alloc).ok()?
}

/// [`predecode`] once the executor wants the body.
fn build<'b, A: Allocator + Clone, S: CodecSet>(
    codecs: &mut S,
    codec: CompressionCodec,
    header: &RecordBatchView<'_>,
    body: &Buffer<'b, A>,
    limit: usize,
    alloc: &A,
) -> Result<Option<Ready<'b, A>>> {
    let raw = body.as_slice();
    let n = header.num_buffers();
    let mut ready: Ready<'b, A> = TryVec::new_in(alloc.clone());
    ready.try_reserve(n)?;
    // The compressed buffers: their streams (extents in the body) and
    // their outputs, allocated here.
    let mut streams = TryVec::new_in(alloc.clone());
    let mut outs = TryVec::new_in(alloc.clone());
    {
        let Some(c) = codecs.get(codec) else {
            return Ok(None);
        };
        for i in 0..n {
            let Some((off, end)) = extent(header, i, raw.len()) else {
                return Ok(None);
            };
            let Some(bytes) = raw.get(off..end) else {
                return Ok(None);
            };
            let b = match buffer_length(bytes)? {
                BufferLength::Empty => Some(Buffer::empty()),
                BufferLength::Uncompressed(k) => Some(body.slice(off + LENGTH_PREFIX_BYTES, k)?),
                BufferLength::Compressed(len) => {
                    let Some(len) = usize::try_from(len).ok().filter(|&l| l <= limit) else {
                        return Ok(None);
                    };
                    let start = off + LENGTH_PREFIX_BYTES;
                    let Some(stream) = raw.get(start..end) else {
                        return Ok(None);
                    };
                    c.check_declared_len(stream, len)?;
                    let mut out = MutableBuffer::new_in(alloc.clone());
                    out.try_reserve_exact(len)?;
                    out.try_extend_zeros(len)?;
                    streams.try_push((start, end))?;
                    outs.try_push(out)?;
                    None
                }
            };
            ready.try_push(b)?;
        }
    }
    {
        let mut jobs = TryVec::new_in(alloc.clone());
        jobs.try_reserve(outs.len())?;
        for (k, (out, &(s, e))) in outs.iter_mut().zip(streams.iter()).enumerate() {
            let Some(stream) = raw.get(s..e) else {
                return Ok(None);
            };
            jobs.try_push(BodyJob::decompress(codec, k, stream, out.as_slice_mut()))?;
        }
        let Some(executor) = codecs.executor() else {
            return Ok(None);
        };
        executor.execute(jobs.as_mut_slice())?;
        for (k, j) in jobs.iter().enumerate() {
            j.outcome(k)?;
        }
    }
    // Into the places the compressed buffers left empty, in order.
    let mut outs = outs.iter_mut();
    for slot in ready.iter_mut().filter(|s| s.is_none()) {
        let Some(out) = outs.next() else {
            return Ok(None);
        };
        let out = core::mem::replace(out, MutableBuffer::new_in(alloc.clone()));
        *slot = Some(out.into_buffer());
    }
    Ok(Some(ready))
}
