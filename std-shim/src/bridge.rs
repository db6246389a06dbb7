//! The `std::io` ↔ `embedded-io` bridge used by the readers and writers.
//!
//! The bridge itself is [`embedded_io_adapters::std::FromStd`]. The core
//! reports any failure of its source or sink as the unit error
//! [`alkaid::Error::Io`]; [`Tracked`] sits between the two and keeps the
//! operating system's error in an [`ErrorSlot`] so that the shim can return
//! the real [`std::io::Error`] (disk full, broken pipe, …) instead. It also
//! retries reads and writes interrupted by a signal
//! ([`std::io::ErrorKind::Interrupted`]), which the core would treat as fatal.

use std::io;
use std::sync::{Arc, Mutex, PoisonError};

use embedded_io_adapters::std::FromStd;

use crate::error::Error;

/// Where a [`Tracked`] source or sink leaves its last `std::io::Error`.
#[derive(Debug, Clone, Default)]
pub(crate) struct ErrorSlot(Arc<Mutex<Option<io::Error>>>);

impl ErrorSlot {
    fn put(&self, e: io::Error) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = Some(e);
    }

    fn take(&self) -> Option<io::Error> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).take()
    }

    /// The shim's error for a core error: [`Error::Io`] with the kept
    /// `std::io::Error` when the core reports [`alkaid::Error::Io`] and one
    /// was kept, [`Error::Arrow`] otherwise.
    pub(crate) fn lift(&self, e: alkaid::Error) -> Error {
        if e == alkaid::Error::Io {
            if let Some(io) = self.take() {
                return Error::Io(io);
            }
        }
        Error::Arrow(e)
    }
}

/// A `std::io` reader or writer seen as an `embedded_io` one through
/// [`FromStd`], keeping its errors in an [`ErrorSlot`].
pub(crate) struct Tracked<T> {
    inner: FromStd<T>,
    slot: ErrorSlot,
}

impl<T> Tracked<T> {
    pub(crate) fn new(inner: T, slot: ErrorSlot) -> Self {
        Tracked {
            inner: FromStd::new(inner),
            slot,
        }
    }

    pub(crate) fn into_inner(self) -> T {
        self.inner.into_inner()
    }

    pub(crate) fn get_ref(&self) -> &T {
        self.inner.inner()
    }

    fn fail(&self, e: io::Error) -> embedded_io::ErrorKind {
        let kind = embedded_io::Error::kind(&e);
        self.slot.put(e);
        kind
    }
}

impl<T> embedded_io::ErrorType for Tracked<T> {
    type Error = embedded_io::ErrorKind;
}

impl<T: io::Read> embedded_io::Read for Tracked<T> {
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, Self::Error> {
        loop {
            match embedded_io::Read::read(&mut self.inner, buf) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.fail(e)),
                Ok(n) => return Ok(n),
            }
        }
    }
}

impl<T: io::Write> embedded_io::Write for Tracked<T> {
    fn write(&mut self, buf: &[u8]) -> Result<usize, Self::Error> {
        loop {
            match embedded_io::Write::write(&mut self.inner, buf) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.fail(e)),
                Ok(n) => return Ok(n),
            }
        }
    }

    fn flush(&mut self) -> Result<(), Self::Error> {
        loop {
            match embedded_io::Write::flush(&mut self.inner) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.fail(e)),
                Ok(()) => return Ok(()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer that fails once with `Interrupted`, then accepts two bytes,
    /// then fails with `BrokenPipe`.
    struct Flaky(u32);
    impl io::Write for Flaky {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0 += 1;
            match self.0 {
                1 => Err(io::ErrorKind::Interrupted.into()),
                2 => Ok(buf.len().min(2)),
                _ => Err(io::Error::new(io::ErrorKind::BrokenPipe, "pipe closed")),
            }
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn keeps_the_os_error_and_retries_interrupts() {
        let slot = ErrorSlot::default();
        let mut w = Tracked::new(Flaky(0), slot.clone());
        let r = alkaid::ipc::io::write_all(&mut w, b"abcd");
        assert_eq!(r, Err(alkaid::Error::Io));
        let e = slot.lift(alkaid::Error::Io);
        let Error::Io(io) = e else {
            panic!("expected an I/O error, got {e:?}")
        };
        assert_eq!(io.kind(), io::ErrorKind::BrokenPipe);
        assert_eq!(io.to_string(), "pipe closed");
        // Taken: a second report has lost its cause.
        assert!(matches!(
            slot.lift(alkaid::Error::Io),
            Error::Arrow(e) if e.kind() == alkaid::ErrorKind::Io
        ));
        assert!(matches!(
            slot.lift(alkaid::Error::InvalidUtf8),
            Error::Arrow(e) if e.kind() == alkaid::ErrorKind::InvalidUtf8
        ));
        assert_eq!(w.into_inner().0, 3);
    }

    #[test]
    fn reads_through() {
        let slot = ErrorSlot::default();
        let mut r = Tracked::new(&b"xyz"[..], slot);
        let mut buf = [0u8; 3];
        alkaid::ipc::io::read_exact(&mut r, &mut buf).unwrap();
        assert_eq!(&buf, b"xyz");
        assert_eq!(
            alkaid::ipc::io::read_exact(&mut r, &mut buf),
            Err(alkaid::Error::UnexpectedEof)
        );
    }
}
