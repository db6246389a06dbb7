//! [`ByteView`]: one 16-byte view of the "Variable-size Binary View Layout".

use core::fmt;

use allocator_api2::alloc::Allocator;
use bytemuck::{Pod, Zeroable};

use crate::buffer::Buffer;
use crate::error::{Error, Result};

/// One 16-byte view of the "Variable-size Binary View Layout".
///
/// | bytes | inline (length <= 12) | reference (length > 12) |
/// |---|---|---|
/// | 0..4 | length (`i32`, native endian) | length |
/// | 4..16 | data, then zero padding | 4..8 prefix (first 4 data bytes), 8..12 buffer index (`i32`), 12..16 offset (`i32`) |
///
/// A plain 16-byte value with byte alignment; decoding never fails, checking
/// is [`GenericByteViewArray::validate`](crate::array::GenericByteViewArray)'s job.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, Pod, Zeroable)]
#[repr(transparent)]
pub struct ByteView([u8; 16]);

impl ByteView {
    /// Size of a view in bytes.
    pub const SIZE: usize = 16;
    /// Longest value stored inline, in bytes.
    pub const MAX_INLINE_LEN: usize = 12;

    /// The view of these 16 bytes.
    #[inline]
    pub const fn from_bytes(bytes: [u8; 16]) -> Self {
        ByteView(bytes)
    }

    /// The 16 bytes of the view.
    #[inline]
    pub const fn to_bytes(self) -> [u8; 16] {
        self.0
    }

    /// The 16 bytes of the view, borrowed.
    #[inline]
    pub const fn as_bytes(&self) -> &[u8; 16] {
        &self.0
    }

    /// The view whose bytes are those of `v` in native endianness (the
    /// `u128` representation other Arrow implementations use in memory).
    #[inline]
    pub const fn from_u128(v: u128) -> Self {
        ByteView(v.to_ne_bytes())
    }

    /// The view's bytes read as a native-endian `u128`.
    #[inline]
    pub const fn to_u128(self) -> u128 {
        u128::from_ne_bytes(self.0)
    }

    /// The view of `data` if it fits inline (`data.len() <= 12`): its length,
    /// its bytes, zero padding.
    ///
    /// # Errors
    /// [`Error::OutOfBounds`] when `data` is longer than 12 bytes.
    pub fn try_new_inline(data: &[u8]) -> Result<Self> {
        let mut b = [0u8; 16];
        let (len, rest) = b.split_at_mut(4);
        rest.get_mut(..data.len())
            .ok_or(Error::OutOfBounds)?
            .copy_from_slice(data);
        // At most 12: fits.
        len.copy_from_slice(&(data.len() as i32).to_ne_bytes());
        Ok(ByteView(b))
    }

    /// A reference view from its raw fields (not checked: any view can be
    /// made, e.g. to test validation).
    pub fn from_parts(length: i32, prefix: [u8; 4], buffer_index: i32, offset: i32) -> Self {
        let mut b = [0u8; 16];
        for (dst, src) in b.chunks_exact_mut(4).zip([
            length.to_ne_bytes(),
            prefix,
            buffer_index.to_ne_bytes(),
            offset.to_ne_bytes(),
        ]) {
            dst.copy_from_slice(&src);
        }
        ByteView(b)
    }

    /// The view of `data`: inline when it has at most 12 bytes, otherwise a
    /// reference to `data` stored at `offset` in data buffer `buffer_index`.
    ///
    /// # Errors
    /// [`Error::CapacityOverflow`] when the length, buffer index or offset
    /// exceeds `i32::MAX` (for a reference view).
    pub fn try_new(data: &[u8], buffer_index: usize, offset: usize) -> Result<Self> {
        if data.len() <= Self::MAX_INLINE_LEN {
            return Self::try_new_inline(data);
        }
        let len = i32::try_from(data.len()).map_err(|_| Error::CapacityOverflow)?;
        let index = i32::try_from(buffer_index).map_err(|_| Error::CapacityOverflow)?;
        let offset = i32::try_from(offset).map_err(|_| Error::CapacityOverflow)?;
        let [p0, p1, p2, p3, ..] = *data else {
            return Err(Error::OutOfBounds);
        };
        Ok(Self::from_parts(len, [p0, p1, p2, p3], index, offset))
    }

    /// Bytes `4 i..4 i + 4` (`i` from 0 to 3), read as one word.
    #[inline(always)]
    fn word(&self, i: usize) -> [u8; 4] {
        // `i` is a constant at every call: one load, no check left.
        self.0
            .get(4 * i..)
            .and_then(<[u8]>::first_chunk::<4>)
            .copied()
            .unwrap_or([0; 4])
    }

    /// Length of the value in bytes (bytes 0..4, native-endian `i32`; negative
    /// only in invalid views).
    #[inline]
    pub fn length(&self) -> i32 {
        i32::from_ne_bytes(self.word(0))
    }

    /// `true` when the value is stored in the view (`0 <= length <= 12`).
    #[inline]
    pub fn is_inline(&self) -> bool {
        (0..=Self::MAX_INLINE_LEN as i32).contains(&self.length())
    }

    /// The inline value (bytes `4..4 + length`), or `None` when the view is
    /// not inline.
    #[inline]
    pub fn inline_data(&self) -> Option<&[u8]> {
        let len = usize::try_from(self.length()).ok()?;
        if len > Self::MAX_INLINE_LEN {
            return None;
        }
        self.0.get(4..4 + len)
    }

    /// Bytes 4..8: the prefix of a reference view (the first four bytes of
    /// its value), or the first four inline bytes.
    #[inline]
    pub fn prefix(&self) -> [u8; 4] {
        self.word(1)
    }

    /// Bytes 8..12 of a reference view: index of its data buffer (`i32`).
    #[inline]
    pub fn buffer_index(&self) -> i32 {
        i32::from_ne_bytes(self.word(2))
    }

    /// Bytes 12..16 of a reference view: offset of its value in its data
    /// buffer (`i32`, in bytes).
    #[inline]
    pub fn offset(&self) -> i32 {
        i32::from_ne_bytes(self.word(3))
    }

    /// Views as their bytes (`16 * views.len()` bytes), e.g. for
    /// [`Buffer::from_slice_ref`].
    pub fn slice_as_bytes(views: &[ByteView]) -> &[u8] {
        // `ByteView` is 16 bytes of alignment 1: the cast cannot fail.
        bytemuck::try_cast_slice(views).unwrap_or(&[])
    }

    /// Checks this view against the data buffers (spec rules of the layout;
    /// with `utf8`, the value must also be UTF-8). Returns the value's bytes.
    pub(super) fn check<'s, A: Allocator>(
        &'s self,
        buffers: &'s [Buffer<'_, A>],
        utf8: bool,
    ) -> Result<&'s [u8]> {
        let len = usize::try_from(self.length()).map_err(|_| Error::ViewLengthNegative)?;
        let data = if len <= Self::MAX_INLINE_LEN {
            let (data, padding) = self
                .0
                .get(4..)
                .and_then(|r| r.split_at_checked(len))
                .ok_or(Error::ViewLengthNegative)?;
            if padding.iter().any(|&b| b != 0) {
                return Err(Error::ViewInlinePaddingNotZero);
            }
            data
        } else {
            let index = usize::try_from(self.buffer_index())
                .map_err(|_| Error::ViewBufferIndexOutOfBounds)?;
            let buffer = buffers
                .get(index)
                .ok_or(Error::ViewBufferIndexOutOfBounds)?;
            let start = usize::try_from(self.offset()).map_err(|_| Error::ViewOffsetOutOfBounds)?;
            let end = start.checked_add(len).ok_or(Error::ViewOffsetOutOfBounds)?;
            let data = buffer
                .as_slice()
                .get(start..end)
                .ok_or(Error::ViewOffsetOutOfBounds)?;
            if data.get(..4) != Some(&self.prefix()[..]) {
                return Err(Error::ViewPrefixMismatch);
            }
            data
        };
        if utf8 && core::str::from_utf8(data).is_err() {
            return Err(Error::InvalidUtf8);
        }
        Ok(data)
    }
}

impl fmt::Debug for ByteView {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.inline_data() {
            Some(d) => f.debug_struct("ByteView").field("inline", &d).finish(),
            None => f
                .debug_struct("ByteView")
                .field("length", &self.length())
                .field("prefix", &self.prefix())
                .field("buffer_index", &self.buffer_index())
                .field("offset", &self.offset())
                .finish(),
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// The 16 bytes of a view as the layout table of the spec gives them.
    pub(in crate::array) fn expected(len: i32, rest: &[u8; 12]) -> [u8; 16] {
        let mut b = [0u8; 16];
        b[..4].copy_from_slice(&len.to_ne_bytes());
        b[4..].copy_from_slice(rest);
        b
    }

    /// The 16 bytes of a long view: length, 4-byte prefix, buffer index and offset.
    pub(in crate::array) fn long(len: i32, prefix: &[u8; 4], index: i32, offset: i32) -> [u8; 16] {
        let mut rest = [0u8; 12];
        rest[..4].copy_from_slice(prefix);
        rest[4..8].copy_from_slice(&index.to_ne_bytes());
        rest[8..].copy_from_slice(&offset.to_ne_bytes());
        expected(len, &rest)
    }

    #[test]
    fn byte_view_constructors() {
        let v = ByteView::try_new(b"0123456789abcdef", 2, 7).unwrap();
        assert_eq!(v.to_bytes(), long(16, b"0123", 2, 7));
        assert_eq!(v, ByteView::from_parts(16, *b"0123", 2, 7));
        let s = ByteView::try_new(b"abc", 2, 7).unwrap();
        assert_eq!(s.to_bytes(), expected(3, b"abc\0\0\0\0\0\0\0\0\0"));
        assert_eq!(
            ByteView::try_new_inline(b"0123456789abc"),
            Err(Error::OutOfBounds)
        );
        assert_eq!(
            ByteView::try_new(b"0123456789abc", 0, 1 << 31),
            Err(Error::CapacityOverflow)
        );
        // Native-endian u128 of the same bytes.
        assert_eq!(v.to_u128().to_ne_bytes(), v.to_bytes());
    }
}
