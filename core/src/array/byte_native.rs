//! [`ByteArrayNativeType`]: what one slot of the binary and string layouts
//! holds, `[u8]` or `str`, shared by the offset layout, the view layout and
//! the row format's decoders.

use core::fmt;

mod sealed {
    pub trait Sealed {}
}

/// The value of one slot of a binary (`[u8]`) or string (`str`) array, of
/// either the "Variable-size Binary Layout" or the "Variable-size Binary
/// View Layout": how its bytes are read and checked.
///
/// Sealed: implemented for exactly `[u8]` and `str`.
pub trait ByteArrayNativeType: fmt::Debug + Send + Sync + sealed::Sealed {
    /// `true` for `str`: every slot, null ones included, must be valid UTF-8.
    const IS_UTF8: bool;

    /// `bytes` as a value, or `None` when they are not one (not UTF-8 for `str`).
    fn from_bytes_checked(bytes: &[u8]) -> Option<&Self>;

    /// `bytes` as a value, without checking them.
    ///
    /// # Safety
    /// When [`Self::IS_UTF8`], `bytes` must be valid UTF-8.
    unsafe fn from_bytes_unchecked(bytes: &[u8]) -> &Self;

    /// The bytes of the value.
    fn as_bytes(&self) -> &[u8];
}

impl sealed::Sealed for [u8] {}

impl ByteArrayNativeType for [u8] {
    const IS_UTF8: bool = false;

    #[inline]
    fn from_bytes_checked(bytes: &[u8]) -> Option<&Self> {
        Some(bytes)
    }

    #[inline]
    unsafe fn from_bytes_unchecked(bytes: &[u8]) -> &Self {
        bytes
    }

    #[inline]
    fn as_bytes(&self) -> &[u8] {
        self
    }
}

impl sealed::Sealed for str {}

impl ByteArrayNativeType for str {
    const IS_UTF8: bool = true;

    #[inline]
    fn from_bytes_checked(bytes: &[u8]) -> Option<&Self> {
        core::str::from_utf8(bytes).ok()
    }

    #[inline]
    unsafe fn from_bytes_unchecked(bytes: &[u8]) -> &Self {
        // SAFETY: the caller guarantees UTF-8 (contract of this function).
        unsafe { core::str::from_utf8_unchecked(bytes) }
    }

    #[inline]
    fn as_bytes(&self) -> &[u8] {
        str::as_bytes(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checked_unchecked_and_bytes() {
        assert_eq!(<[u8]>::from_bytes_checked(b"\xff"), Some(&b"\xff"[..]));
        assert_eq!(str::from_bytes_checked(b"\xff"), None);
        assert_eq!(str::from_bytes_checked("é".as_bytes()), Some("é"));
        // SAFETY: ASCII is UTF-8.
        assert_eq!(unsafe { str::from_bytes_unchecked(b"ab") }, "ab");
        assert_eq!(ByteArrayNativeType::as_bytes("ab"), b"ab");
        assert_eq!(ByteArrayNativeType::as_bytes(&b"\x00"[..]), b"\x00");
        const { assert!(str::IS_UTF8 && !<[u8]>::IS_UTF8) };
    }
}
