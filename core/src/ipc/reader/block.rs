//! The one check of a file footer's `Block` (File.fbs) that both file
//! readers apply before they decode the message it points to.
//!
//! "IPC File Format" of the IPC chapter: the footer lists, per dictionary
//! and record batch, the message's file offset, the length of its
//! metadata (prefix, flatbuffer and padding) and the length of its body.
//! The readers locate the body by these lengths, so they must agree with
//! the message itself, be multiples of 8 (every message starts on an
//! 8-byte boundary) and lie inside the file, before the footer.

use super::framing::frame;
use super::options::ReadLimits;
use crate::error::{Error, Result};
use crate::ipc::message::{Block, MessageHeader, MessageView};

/// Which list of the footer a block is from (`Footer.dictionaries` or
/// `Footer.recordBatches`): its message must be of that kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BlockKind {
    /// A block of `Footer.dictionaries`: a `DictionaryBatch` message.
    Dictionary,
    /// A block of `Footer.recordBatches`: a `RecordBatch` message.
    RecordBatch,
}

/// Length of the file's leading magic and its padding: no message starts
/// before it.
const FILE_HEAD_BYTES: u64 = 8;

/// A footer block's message, checked: the decoded metadata, the file
/// offset of its body and the body's length in bytes.
pub(crate) struct BlockMessage<'m> {
    /// The message's metadata (verified flatbuffer).
    pub(crate) message: MessageView<'m>,
    /// File offset of the body, in bytes.
    pub(crate) body_offset: u64,
    /// Body length in bytes (equal to the message's `bodyLength`).
    pub(crate) body_length: usize,
}

/// Checks `block`, a block of the footer's list `kind`, against the file
/// whose messages end at byte `data_end` (where the footer starts), reads
/// its metadata with `read_metadata` (called with the checked offset and
/// metadata length, in bytes) and checks the message against the block.
///
/// # Errors
/// [`Error::BlockOutOfFile`] for a negative field or a message (metadata
/// and body) not inside `FILE_HEAD_BYTES..data_end`;
/// [`Error::UnalignedBlock`] when the offset or either length is not a
/// multiple of 8; [`Error::LimitExceeded`] past `limits`;
/// [`Error::BlockMessageMismatch`] when the message's framing does not
/// span exactly `metaDataLength` bytes or its `bodyLength` differs from the
/// block's; [`Error::UnexpectedMessage`] when the message is not of the
/// block's `kind` (a record batch where the footer lists a dictionary, a
/// schema); what `read_metadata` returns; flatbuffer errors of the message.
pub(crate) fn block_message<'m, F>(
    block: &Block,
    kind: BlockKind,
    data_end: u64,
    limits: &ReadLimits,
    read_metadata: F,
) -> Result<BlockMessage<'m>>
where
    F: FnOnce(u64, usize) -> Result<&'m [u8]>,
{
    let offset = u64::try_from(block.offset).map_err(|_| Error::BlockOutOfFile)?;
    let meta_len = u64::try_from(block.meta_data_length).map_err(|_| Error::BlockOutOfFile)?;
    let body_len = u64::try_from(block.body_length).map_err(|_| Error::BlockOutOfFile)?;
    if offset % 8 != 0 || meta_len % 8 != 0 || body_len % 8 != 0 {
        return Err(Error::UnalignedBlock);
    }
    let end = offset
        .checked_add(meta_len)
        .and_then(|e| e.checked_add(body_len))
        .ok_or(Error::BlockOutOfFile)?;
    if offset < FILE_HEAD_BYTES || end > data_end {
        return Err(Error::BlockOutOfFile);
    }
    let meta_len = usize::try_from(meta_len).map_err(|_| Error::LimitExceeded)?;
    let body_length = usize::try_from(body_len).map_err(|_| Error::LimitExceeded)?;
    if meta_len > limits.max_metadata_size.saturating_add(8) || body_length > limits.max_body_size {
        return Err(Error::LimitExceeded);
    }
    let meta = read_metadata(offset, meta_len)?;
    if meta.len() != meta_len || meta_len < 8 {
        return Err(Error::BlockMessageMismatch);
    }
    // An end-of-stream marker is no message.
    let (prefix, len) = frame(meta, limits)?.ok_or(Error::BlockMessageMismatch)?;
    if prefix.checked_add(len) != Some(meta_len) {
        return Err(Error::BlockMessageMismatch);
    }
    let message = MessageView::decode(meta.get(prefix..).ok_or(Error::BlockMessageMismatch)?)?;
    if u64::try_from(message.body_length).ok() != Some(body_len) {
        return Err(Error::BlockMessageMismatch);
    }
    let of_kind = match kind {
        BlockKind::Dictionary => matches!(message.header, MessageHeader::DictionaryBatch { .. }),
        BlockKind::RecordBatch => matches!(message.header, MessageHeader::RecordBatch(_)),
    };
    if !of_kind {
        return Err(Error::UnexpectedMessage);
    }
    Ok(BlockMessage {
        message,
        body_offset: offset + meta_len as u64,
        body_length,
    })
}
