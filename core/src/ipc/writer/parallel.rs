//! A compressed record batch body through a [`BodyExecutor`]: every
//! non-empty buffer becomes one [`BodyJob`] compressing into room of its
//! own, and the outputs are then moved together in buffer order, so the
//! body is byte for byte the one the sequential walk ([`Compressing`])
//! writes ("Compression" of the IPC chapter: each buffer is framed and
//! compressed on its own).
//!
//! The walk itself stays on the calling thread: it records where each
//! buffer's bytes are (array memory, borrowed as the uncompressed pieces
//! borrow it, see the encoder's staging), and materialises the transformed ones
//! (shifted bitmaps, rebased offsets, clamped run ends) into the staging
//! scratch. Only the jobs (two byte slices each) go to the executor, so
//! nothing of the arrays or of the allocator crosses threads.
//!
//! [`BodyExecutor`]: crate::ipc::compression::BodyExecutor
//! [`Compressing`]: super::body::Compressing

use allocator_api2::alloc::Allocator;

use super::body::{bitmap_chunks, padded, visit_array, BodyVisitor, Shift};
use super::pieces::RawSlice;
use crate::array::ArrayRef;
use crate::buffer::{MutableBuffer, TryVec};
use crate::error::{Error, Result};
use crate::ipc::compression::{room, BodyJob, CodecSet};
use crate::ipc::message::{BufferSpec, CompressionCodec};

/// Where the uncompressed bytes of one body buffer are.
#[derive(Clone, Copy)]
enum Input {
    /// Array memory (or `'static` bytes), as the walk passed it.
    Borrowed(RawSlice),
    /// `len` bytes of the staging scratch from `start`.
    Staged { start: usize, len: usize },
}

/// The walk that records each buffer's [`Input`].
struct Gather<'x, A: Allocator> {
    inputs: &'x mut TryVec<Input, A>,
    staged: &'x mut MutableBuffer<A>,
}

impl<A: Allocator> Gather<'_, A> {
    fn staged_from(&mut self, start: usize) -> Result<()> {
        let len = self.staged.len() - start;
        self.inputs.try_push(Input::Staged { start, len })
    }
}

impl<A: Allocator> BodyVisitor for Gather<'_, A> {
    fn node(&mut self, _length: usize, _null_count: usize) -> Result<()> {
        Ok(())
    }

    fn buffer(&mut self, bytes: &[u8]) -> Result<()> {
        self.inputs.try_push(Input::Borrowed(RawSlice::new(bytes)))
    }

    fn bitmap(&mut self, bytes: &[u8], bit_offset: usize, len: usize) -> Result<()> {
        // Whole bytes from a byte boundary are the bytes `bitmap_chunks`
        // would produce: borrowed. Anything else is materialised.
        let start = bit_offset / 8;
        if bit_offset % 8 == 0 && len % 8 == 0 {
            if let Some(whole) = bytes.get(start..start + len / 8) {
                return self.buffer(whole);
            }
        }
        let at = self.staged.len();
        let staged = &mut *self.staged;
        bitmap_chunks(bytes, bit_offset, len, |c| staged.try_extend_from_slice(c))?;
        self.staged_from(at)
    }

    fn mapped(&mut self, values: &[u8], shift: Shift) -> Result<()> {
        let at = self.staged.len();
        self.staged.try_extend_zeros(values.len())?;
        let out = self
            .staged
            .as_slice_mut()
            .get_mut(at..)
            .ok_or(Error::OutOfBounds)?;
        shift.apply(values, out);
        self.staged_from(at)
    }

    #[cfg(feature = "views")]
    fn variadic_count(&mut self, _n: usize) -> Result<()> {
        Ok(())
    }
}

/// Where the compressed bodies go and where this one starts.
pub(crate) struct Target<'x, A: Allocator> {
    /// The compression scratch (see `Compressing`: reused, never cleared).
    pub(crate) body: &'x mut MutableBuffer<A>,
    /// Materialised buffers.
    pub(crate) staged: &'x mut MutableBuffer<A>,
    /// The buffer extents of this body (appended).
    pub(crate) specs: &'x mut TryVec<BufferSpec, A>,
    pub(crate) alignment: usize,
    /// Where this body starts in `body` (offsets are relative to it).
    pub(crate) start: usize,
}

/// A vector with room for `n` elements.
fn with_capacity<T, A: Allocator>(n: usize, alloc: A) -> Result<TryVec<T, A>> {
    let mut v = TryVec::new_in(alloc);
    v.try_reserve(n)?;
    Ok(v)
}

/// Compresses the buffers of `columns`, planned in `plan`, with `codec`
/// through the executor of `codecs`, into `t.body` from `t.start`, and
/// appends their extents to `t.specs`. Returns the end of the body, or
/// `None` (nothing done) when `codecs` has no executor or it does not want
/// a body this small: the caller then compresses it sequentially.
///
/// # Errors
/// [`Error::UnsupportedType`] when `codecs` lacks `codec`;
/// [`Error::AllocationFailed`], [`Error::CapacityOverflow`]; the first
/// failing job's error in buffer order; the executor's errors
/// ([`Error::ExecutorFailed`]).
pub(crate) fn compress_body<A: Allocator + Clone, S: CodecSet>(
    codecs: &mut S,
    codec: CompressionCodec,
    columns: &[ArrayRef<'_, A>],
    plan: &[BufferSpec],
    t: Target<'_, A>,
) -> Result<Option<usize>> {
    let Some(executor) = codecs.executor() else {
        return Ok(None);
    };
    let mut count = 0usize;
    let mut bytes = 0usize;
    for b in plan {
        let n = usize::try_from(b.length).map_err(|_| Error::CapacityOverflow)?;
        if n > 0 {
            count += 1;
            bytes = bytes.checked_add(n).ok_or(Error::CapacityOverflow)?;
        }
    }
    if !executor.wants(count, bytes) {
        return Ok(None);
    }
    let alloc = t.body.allocator().clone();
    // Each buffer's room: the most it can take, as in `reserve_for`.
    let mut rooms = with_capacity(plan.len(), alloc.clone())?;
    let mut worst = 0usize;
    {
        let c = crate::ipc::compression::codec_of(codecs, codec)?;
        for b in plan {
            let n = usize::try_from(b.length).map_err(|_| Error::CapacityOverflow)?;
            let r = room(&*c, n, t.alignment)?;
            worst = worst.checked_add(r).ok_or(Error::CapacityOverflow)?;
            rooms.try_push(r)?;
        }
    }
    let top = t.start.checked_add(worst).ok_or(Error::CapacityOverflow)?;
    if top > t.body.len() {
        let more = top - t.body.len();
        t.body.try_reserve_exact(more)?;
        t.body.try_extend_zeros(more)?;
    }
    // Where each buffer's bytes are.
    let mut inputs = with_capacity(plan.len(), alloc.clone())?;
    t.staged.clear();
    {
        let mut g = Gather {
            inputs: &mut inputs,
            staged: &mut *t.staged,
        };
        for c in columns {
            visit_array(&mut g, c)?;
        }
    }
    if inputs.len() != plan.len() {
        return Err(Error::InvalidBuilderState);
    }
    let mut written = with_capacity(count, alloc.clone())?;
    {
        let staged = t.staged.as_slice();
        let mut jobs = with_capacity(count, alloc)?;
        let mut rest = t
            .body
            .as_slice_mut()
            .get_mut(t.start..top)
            .ok_or(Error::OutOfBounds)?;
        for (input, &r) in inputs.iter().zip(rooms.iter()) {
            let (slot, tail) = rest.split_at_mut_checked(r).ok_or(Error::OutOfBounds)?;
            rest = tail;
            let bytes: &[u8] = match *input {
                // SAFETY: the walk above read these bytes from `columns`
                // (or `'static` data) as the uncompressed pieces do (see
                // `Collector`): array memory and its zero-copy slices,
                // alive and unchanged while `columns` is borrowed, which
                // it is until this function returns, after the jobs ran.
                Input::Borrowed(raw) => unsafe { raw.get() },
                Input::Staged { start, len } => {
                    staged.get(start..start + len).ok_or(Error::OutOfBounds)?
                }
            };
            if !bytes.is_empty() {
                let k = jobs.len();
                jobs.try_push(BodyJob::compress(codec, k, bytes, slot))?;
            }
        }
        codecs
            .executor()
            .ok_or(Error::ExecutorFailed)?
            .execute(jobs.as_mut_slice())?;
        for (k, j) in jobs.iter().enumerate() {
            written.try_push(j.outcome(k)?)?;
        }
    }
    // Move the outputs together, in buffer order: each moves down (or
    // stays), since the body so far is never longer than the rooms so far.
    let body = t.body.as_slice_mut();
    let (mut slot, mut end, mut k) = (t.start, t.start, 0);
    for (input, &r) in inputs.iter().zip(rooms.iter()) {
        let len = match *input {
            Input::Borrowed(raw) => raw.len(),
            Input::Staged { len, .. } => len,
        };
        let n = if len == 0 {
            0
        } else {
            k += 1;
            *written.get(k - 1).ok_or(Error::ExecutorFailed)?
        };
        if n > r || slot + n > body.len() {
            return Err(Error::OutOfBounds);
        }
        body.copy_within(slot..slot + n, end);
        t.specs.try_push(BufferSpec {
            offset: (end - t.start) as i64,
            length: n as i64,
        })?;
        let padded_end = end + padded(n, t.alignment);
        // The padding may hold stale bytes (compressor scratch).
        body.get_mut(end + n..padded_end)
            .ok_or(Error::OutOfBounds)?
            .fill(0);
        end = padded_end;
        slot += r;
    }
    Ok(Some(end))
}
