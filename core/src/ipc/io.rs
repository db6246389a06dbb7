//! Byte I/O over `embedded-io` without its panicking helpers.
//!
//! `embedded_io::Write::write_all` panics when `write` returns `Ok(0)`; these
//! loops return [`Error::WriteZero`] instead, and reads that end early return
//! [`Error::UnexpectedEof`].

use embedded_io::{Read, Write};

use crate::error::{Error, Result};

/// Writes all of `buf`.
///
/// # Errors
/// [`Error::WriteZero`] when the sink accepts nothing; [`Error::Io`] on a sink error.
pub fn write_all<W: Write + ?Sized>(w: &mut W, mut buf: &[u8]) -> Result<()> {
    while !buf.is_empty() {
        match w.write(buf) {
            Ok(0) => return Err(Error::WriteZero),
            Ok(n) => buf = buf.get(n..).unwrap_or(&[]),
            Err(_) => return Err(Error::Io),
        }
    }
    Ok(())
}

/// Writes `n` zero bytes (padding).
///
/// # Errors
/// As [`write_all`].
pub fn write_zeros<W: Write + ?Sized>(w: &mut W, mut n: usize) -> Result<()> {
    const ZEROS: [u8; 64] = [0; 64];
    while n > 0 {
        let k = n.min(ZEROS.len());
        write_all(w, &ZEROS[..k])?;
        n -= k;
    }
    Ok(())
}

/// Fills `buf` completely.
///
/// # Errors
/// [`Error::UnexpectedEof`] when the source ends first; [`Error::Io`] on a source error.
pub fn read_exact<R: Read + ?Sized>(r: &mut R, mut buf: &mut [u8]) -> Result<()> {
    while !buf.is_empty() {
        match r.read(buf) {
            Ok(0) => return Err(Error::UnexpectedEof),
            Ok(n) => buf = buf.get_mut(n..).unwrap_or(&mut []),
            Err(_) => return Err(Error::Io),
        }
    }
    Ok(())
}

/// Reads into `buf` until it is full or the source ends; returns the number
/// of bytes read (less than `buf.len()` only at the end of the source).
///
/// # Errors
/// [`Error::Io`] on a source error.
pub(crate) fn read_up_to<R: Read + ?Sized>(r: &mut R, buf: &mut [u8]) -> Result<usize> {
    let mut n = 0;
    while let Some(rest) = buf.get_mut(n..).filter(|b| !b.is_empty()) {
        match r.read(rest) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(_) => return Err(Error::Io),
        }
    }
    Ok(n)
}

/// Fills `buf`, or returns `Ok(false)` when the source is at its end before
/// the first byte (a clean end of stream).
///
/// # Errors
/// [`Error::UnexpectedEof`] when it ends part-way; [`Error::Io`].
pub fn read_exact_or_eof<R: Read + ?Sized>(r: &mut R, buf: &mut [u8]) -> Result<bool> {
    let Some(first) = buf.first_mut() else {
        return Ok(true);
    };
    match r.read(core::slice::from_mut(first)) {
        Ok(0) => return Ok(false),
        Ok(_) => {}
        Err(_) => return Err(Error::Io),
    }
    read_exact(r, buf.get_mut(1..).unwrap_or(&mut []))?;
    Ok(true)
}

/// A writer that counts the bytes written through it (the file writer's
/// position, without `Seek`).
#[derive(Debug)]
pub struct PositionWriter<W> {
    inner: W,
    position: u64,
}

impl<W: Write> PositionWriter<W> {
    /// Wraps `inner`, starting at position 0.
    pub fn new(inner: W) -> Self {
        PositionWriter { inner, position: 0 }
    }

    /// Bytes written so far.
    pub fn position(&self) -> u64 {
        self.position
    }

    /// Writes all of `buf`.
    ///
    /// # Errors
    /// As [`write_all`].
    pub fn write_all(&mut self, buf: &[u8]) -> Result<()> {
        write_all(&mut self.inner, buf)?;
        self.position += buf.len() as u64;
        Ok(())
    }

    /// Writes `n` zero bytes.
    ///
    /// # Errors
    /// As [`write_all`].
    pub fn write_zeros(&mut self, n: usize) -> Result<()> {
        write_zeros(&mut self.inner, n)?;
        self.position += n as u64;
        Ok(())
    }

    /// Flushes the sink.
    ///
    /// # Errors
    /// [`Error::Io`].
    pub fn flush(&mut self) -> Result<()> {
        self.inner.flush().map_err(|_| Error::Io)
    }

    /// The sink.
    pub fn get_ref(&self) -> &W {
        &self.inner
    }

    /// The sink, mutably.
    pub fn get_mut(&mut self) -> &mut W {
        &mut self.inner
    }

    /// Unwraps the sink.
    pub fn into_inner(self) -> W {
        self.inner
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Full;
    impl embedded_io::ErrorType for Full {
        type Error = core::convert::Infallible;
    }
    impl Write for Full {
        fn write(&mut self, _buf: &[u8]) -> core::result::Result<usize, Self::Error> {
            Ok(0)
        }
        fn flush(&mut self) -> core::result::Result<(), Self::Error> {
            Ok(())
        }
    }

    #[test]
    fn write_zero_is_an_error_not_a_panic() {
        assert_eq!(write_all(&mut Full, b"x"), Err(Error::WriteZero));
        assert_eq!(write_all(&mut Full, b""), Ok(()));
    }

    #[test]
    fn short_reads() {
        let mut src: &[u8] = b"abc";
        let mut buf = [0u8; 4];
        assert_eq!(read_exact(&mut src, &mut buf), Err(Error::UnexpectedEof));
        let mut empty: &[u8] = b"";
        assert_eq!(read_exact_or_eof(&mut empty, &mut buf), Ok(false));
        let mut two: &[u8] = b"ab";
        assert_eq!(
            read_exact_or_eof(&mut two, &mut buf),
            Err(Error::UnexpectedEof)
        );
        let mut three: &[u8] = b"abc";
        assert_eq!(read_up_to(&mut three, &mut buf), Ok(3));
        assert_eq!(&buf[..3], b"abc");
        let mut five: &[u8] = b"vwxyz";
        assert_eq!(read_up_to(&mut five, &mut buf), Ok(4));
        assert_eq!((&buf[..], five), (&b"vwxy"[..], &b"z"[..]));
        let mut out = [0xAAu8; 80];
        let mut w = PositionWriter::new(&mut out[..]);
        w.write_all(b"abc").unwrap();
        w.write_zeros(70).unwrap();
        assert_eq!(w.position(), 73);
        assert_eq!(w.into_inner().len(), 7);
        assert_eq!(&out[..4], b"abc\0");
        assert_eq!(out[73], 0xAA);
    }
}
