//! The encapsulated message format's framing, below every reader: the
//! continuation marker and metadata length ([`frame`]), and a whole message
//! split out of bytes in memory ([`split_message`]). The push decoder, the
//! slice and file readers and the footer blocks all frame messages here.

use allocator_api2::alloc::Allocator;

use super::options::ReadLimits;
use crate::buffer::Buffer;
use crate::error::{Error, Result};
use crate::ipc::message::MessageView;

/// Reads a message's framing at the start of `input`: returns the length of
/// the prefix and of the metadata flatbuffer, or `None` at an end-of-stream
/// marker. Accepts the legacy framing (no continuation).
pub(crate) fn frame(input: &[u8], limits: &ReadLimits) -> Result<Option<(usize, usize)>> {
    let first = input.get(..4).ok_or(Error::UnexpectedEof)?;
    let (len_at, prefix) = if first == [0xFF; 4] { (4, 8) } else { (0, 4) };
    let lb = input.get(len_at..len_at + 4).ok_or(Error::UnexpectedEof)?;
    let len = i32::from_le_bytes([lb[0], lb[1], lb[2], lb[3]]);
    if len == 0 {
        return Ok(None);
    }
    let len = usize::try_from(len).map_err(|_| Error::InvalidMessage)?;
    if len > limits.max_metadata_size {
        return Err(Error::LimitExceeded);
    }
    Ok(Some((prefix, len)))
}

/// The metadata of the message at `input[pos..]`: (metadata, position of
/// the body, body length checked against the limits), or `None` at an
/// end-of-stream marker or the end of the input. The body is not looked
/// at: it may lie past the end of `input`.
pub(crate) fn split_metadata<'b>(
    input: &'b [u8],
    pos: usize,
    limits: &ReadLimits,
) -> Result<Option<(MessageView<'b>, usize, usize)>> {
    let Some(rest) = input.get(pos..) else {
        return Err(Error::UnexpectedEof);
    };
    if rest.is_empty() {
        return Ok(None);
    }
    let Some((prefix, len)) = frame(rest, limits)? else {
        return Ok(None);
    };
    let meta_end = prefix.checked_add(len).ok_or(Error::UnexpectedEof)?;
    let meta = rest.get(prefix..meta_end).ok_or(Error::UnexpectedEof)?;
    let msg = MessageView::decode(meta)?;
    let body_len = usize::try_from(msg.body_length).map_err(|_| Error::InvalidMessage)?;
    if body_len > limits.max_body_size {
        return Err(Error::LimitExceeded);
    }
    // `meta` lies in `input[pos..]`: this does not overflow.
    Ok(Some((msg, pos + meta_end, body_len)))
}

/// Splits the message at `input[pos..]`: (metadata, body as a slice of
/// `input` sharing its owner, next position), or `None` at an end-of-stream
/// marker or the end of the input.
#[allow(clippy::type_complexity)]
pub(crate) fn split_message<'m, 'b, A: Allocator>(
    input: &'m Buffer<'b, A>,
    pos: usize,
    limits: &ReadLimits,
) -> Result<Option<(MessageView<'m>, Buffer<'b, A>, usize)>> {
    let Some((msg, body_at, body_len)) = split_metadata(input.as_slice(), pos, limits)? else {
        return Ok(None);
    };
    let body_end = body_at.checked_add(body_len).ok_or(Error::UnexpectedEof)?;
    if body_end > input.len() {
        return Err(Error::UnexpectedEof);
    }
    Ok(Some((msg, input.slice(body_at, body_len)?, body_end)))
}

/// `body`, a slice of `input`'s bytes, as a slice of `input` (sharing its
/// owner).
pub(crate) fn body_of<'b, A: Allocator>(
    input: &Buffer<'b, A>,
    body: &[u8],
) -> Result<Buffer<'b, A>> {
    let at = (body.as_ptr() as usize).wrapping_sub(input.as_ptr() as usize);
    input.slice(at, body.len())
}
