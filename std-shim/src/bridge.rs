//! The `std::io` ↔ `embedded-io` bridge used by the readers and writers.
//!
//! The bridge itself is [`embedded_io_adapters::std::FromStd`]. The core
//! reports any failure of its source or sink as the unit error
//! [`alkaid::Error::Io`]; [`Tracked`] sits between the two and keeps the
//! operating system's error in itself, so that the shim's reader or writer,
//! which owns the core's reader or writer and through it the `Tracked`,
//! takes the real [`std::io::Error`] (disk full, broken pipe, …) out with
//! [`Tracked::lift`] and returns it inside its [`Error`]. Nothing is shared:
//! no lock, no reference count. It also retries reads and writes
//! interrupted by a signal ([`std::io::ErrorKind::Interrupted`]), which the
//! core would treat as fatal.
//!
//! The core's constructors consume their source or sink and drop it when
//! they fail, and with it any error kept there; so the shim does the I/O
//! of a constructor itself where it can: a writer's opening bytes are
//! staged in the `Tracked` ([`Tracked::staging`]) and written by the shim
//! afterwards ([`Tracked::unstage`]); a stream reader's schema message is
//! read by the shim first and replayed to the core ([`Tracked::replaying`]).

use std::io::{self, Read, Write};

use embedded_io_adapters::std::FromStd;

use crate::error::Error;

/// A `std::io` reader or writer seen as an `embedded_io` one through
/// [`FromStd`], keeping its last error.
pub struct Tracked<T> {
    inner: FromStd<T>,
    /// The error of the last failed call, until [`Self::lift`] takes it.
    error: Option<io::Error>,
    /// Writes go here instead of `inner` while `Some` (see
    /// [`Self::staging`]).
    staged: Option<Vec<u8>>,
    /// Bytes handed out by reads before `inner` is read (see
    /// [`Self::replaying`]), and how many of them were handed out.
    replay: Vec<u8>,
    replayed: usize,
}

impl<T> Tracked<T> {
    /// A pass-through adapter.
    pub(crate) fn new(inner: T) -> Self {
        Tracked {
            inner: FromStd::new(inner),
            error: None,
            staged: None,
            replay: Vec::new(),
            replayed: 0,
        }
    }

    /// An adapter whose writes are kept in memory until [`Self::unstage`].
    pub(crate) fn staging(inner: T) -> Self {
        Tracked {
            staged: Some(Vec::new()),
            ..Self::new(inner)
        }
    }

    /// An adapter whose reads return `replay` first, then read `inner`.
    pub(crate) fn replaying(inner: T, replay: Vec<u8>) -> Self {
        Tracked {
            replay,
            ..Self::new(inner)
        }
    }

    /// The source or sink.
    pub(crate) fn into_inner(self) -> T {
        self.inner.into_inner()
    }

    /// The source or sink.
    pub(crate) fn get_ref(&self) -> &T {
        self.inner.inner()
    }

    /// The shim's error for a core error: [`Error::Io`] with the kept
    /// `std::io::Error` when the core reports [`alkaid::Error::Io`] and one
    /// was kept, [`Error::Arrow`] otherwise. The kept error is taken either
    /// way, so that a later failure never reports a stale cause.
    pub(crate) fn lift(&mut self, e: alkaid::Error) -> Error {
        match self.error.take() {
            Some(io) if e == alkaid::Error::Io => Error::Io(io),
            _ => Error::Arrow(e),
        }
    }

    fn fail(&mut self, e: io::Error) -> embedded_io::ErrorKind {
        let kind = embedded_io::Error::kind(&e);
        self.error = Some(e);
        kind
    }
}

impl<T: Write> Tracked<T> {
    /// Writes what was staged to the sink and passes later writes through.
    ///
    /// # Errors
    /// The sink's error.
    pub(crate) fn unstage(&mut self) -> io::Result<()> {
        match self.staged.take() {
            Some(bytes) => self.inner.inner_mut().write_all(&bytes),
            None => Ok(()),
        }
    }
}

impl<T: Read> Tracked<T> {
    /// Reads the first encapsulated message of an IPC stream (its prefix,
    /// and its metadata when the prefix declares at most `max_metadata`
    /// bytes) from `src`, and returns an adapter that replays those bytes
    /// before reading on. The core's stream reader then reads its schema
    /// from memory, and a read error is returned here, with its cause.
    ///
    /// # Errors
    /// The source's error. An input that ends early is not an error here:
    /// the core reports it when the replayed bytes run out.
    pub(crate) fn prefetch_message(mut src: T, max_metadata: usize) -> io::Result<Self> {
        let mut head = Vec::with_capacity(8);
        read_up_to(&mut src, &mut head, 4)?;
        let prefix = if head == [0xFF; 4] {
            read_up_to(&mut src, &mut head, 4)?;
            8
        } else {
            4
        };
        let len = match head.get(prefix - 4..prefix) {
            Some(&[a, b, c, d]) => i32::from_le_bytes([a, b, c, d]),
            _ => 0,
        };
        if let Ok(len) = usize::try_from(len) {
            if len <= max_metadata {
                read_up_to(&mut src, &mut head, len)?;
            }
        }
        Ok(Self::replaying(src, head))
    }
}

/// Appends up to `n` bytes of `src` to `out`: fewer only when the source
/// ends (`read_to_end` retries interrupted reads).
fn read_up_to(src: &mut impl Read, out: &mut Vec<u8>, n: usize) -> io::Result<()> {
    let n = u64::try_from(n).unwrap_or(u64::MAX);
    src.by_ref().take(n).read_to_end(out).map(drop)
}

impl<T> std::fmt::Debug for Tracked<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tracked")
            .field("error", &self.error)
            .field("staged", &self.staged.as_ref().map(Vec::len))
            .field(
                "replay",
                &(self.replay.len() - self.replayed.min(self.replay.len())),
            )
            .finish_non_exhaustive()
    }
}

impl<T> embedded_io::ErrorType for Tracked<T> {
    type Error = embedded_io::ErrorKind;
}

impl<T: Read> embedded_io::Read for Tracked<T> {
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, Self::Error> {
        if let Some(rest) = self.replay.get(self.replayed..) {
            if !rest.is_empty() {
                let n = rest.len().min(buf.len());
                if let (Some(to), Some(from)) = (buf.get_mut(..n), rest.get(..n)) {
                    to.copy_from_slice(from);
                }
                self.replayed += n;
                if self.replayed >= self.replay.len() {
                    // Replayed in full: free the copy.
                    self.replay = Vec::new();
                    self.replayed = 0;
                }
                return Ok(n);
            }
        }
        loop {
            match embedded_io::Read::read(&mut self.inner, buf) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.fail(e)),
                Ok(n) => return Ok(n),
            }
        }
    }
}

impl<T: io::Seek> embedded_io::Seek for Tracked<T> {
    fn seek(&mut self, pos: embedded_io::SeekFrom) -> Result<u64, Self::Error> {
        // Replayed bytes belong to the position before any seek.
        self.replay = Vec::new();
        self.replayed = 0;
        loop {
            match embedded_io::Seek::seek(&mut self.inner, pos) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.fail(e)),
                Ok(n) => return Ok(n),
            }
        }
    }
}

impl<T: Write> embedded_io::Write for Tracked<T> {
    fn write(&mut self, buf: &[u8]) -> Result<usize, Self::Error> {
        if let Some(staged) = &mut self.staged {
            staged.extend_from_slice(buf);
            return Ok(buf.len());
        }
        loop {
            match embedded_io::Write::write(&mut self.inner, buf) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.fail(e)),
                Ok(n) => return Ok(n),
            }
        }
    }

    fn flush(&mut self) -> Result<(), Self::Error> {
        if self.staged.is_some() {
            return Ok(());
        }
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
        let mut w = Tracked::new(Flaky(0));
        let r = alkaid::ipc::io::write_all(&mut w, b"abcd");
        assert_eq!(r, Err(alkaid::Error::Io));
        let e = w.lift(alkaid::Error::Io);
        let Error::Io(io) = e else {
            panic!("expected an I/O error, got {e:?}")
        };
        assert_eq!(io.kind(), io::ErrorKind::BrokenPipe);
        assert_eq!(io.to_string(), "pipe closed");
        // Taken: a second report has lost its cause.
        assert!(matches!(
            w.lift(alkaid::Error::Io),
            Error::Arrow(alkaid::Error::Io)
        ));
        assert!(matches!(
            w.lift(alkaid::Error::InvalidUtf8),
            Error::Arrow(alkaid::Error::InvalidUtf8)
        ));
        assert_eq!(w.into_inner().0, 3);
    }

    #[test]
    fn a_kept_error_is_not_reported_for_another_failure() {
        let mut w = Tracked::new(Flaky(2));
        assert_eq!(
            alkaid::ipc::io::write_all(&mut w, b"x"),
            Err(alkaid::Error::Io)
        );
        assert!(matches!(
            w.lift(alkaid::Error::InvalidUtf8),
            Error::Arrow(alkaid::Error::InvalidUtf8)
        ));
        assert!(matches!(
            w.lift(alkaid::Error::Io),
            Error::Arrow(alkaid::Error::Io)
        ));
    }

    #[test]
    fn staged_writes_reach_the_sink_on_unstage() {
        let mut w = Tracked::staging(Vec::new());
        alkaid::ipc::io::write_all(&mut w, b"head").unwrap();
        assert!(w.get_ref().is_empty());
        w.unstage().unwrap();
        alkaid::ipc::io::write_all(&mut w, b"-body").unwrap();
        assert_eq!(w.into_inner(), b"head-body");

        let mut w = Tracked::staging(Flaky(2));
        alkaid::ipc::io::write_all(&mut w, b"abc").unwrap();
        let e = w.unstage().unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::BrokenPipe);
    }

    #[test]
    fn reads_through() {
        let mut r = Tracked::new(&b"xyz"[..]);
        let mut buf = [0u8; 3];
        alkaid::ipc::io::read_exact(&mut r, &mut buf).unwrap();
        assert_eq!(&buf, b"xyz");
        assert_eq!(
            alkaid::ipc::io::read_exact(&mut r, &mut buf),
            Err(alkaid::Error::UnexpectedEof)
        );
    }

    #[test]
    fn prefetch_replays_the_first_message_then_reads_on() {
        let mut input = vec![0xFF; 4];
        input.extend_from_slice(&3i32.to_le_bytes());
        input.extend_from_slice(b"abcREST");
        let mut r = Tracked::prefetch_message(&input[..], 1024).unwrap();
        assert_eq!(r.replay.len(), 11);
        let mut buf = vec![0u8; input.len()];
        alkaid::ipc::io::read_exact(&mut r, &mut buf).unwrap();
        assert_eq!(buf, input);
        assert_eq!(r.replay.capacity(), 0, "freed once replayed");

        // Legacy prefix (no continuation); a declared length over the limit
        // is left for the core to refuse; a short input is not an error.
        let r = Tracked::prefetch_message(&[5u8, 0, 0, 0, 1, 2][..], 1024).unwrap();
        assert_eq!(r.replay, [5, 0, 0, 0, 1, 2]);
        let r = Tracked::prefetch_message(&[0xFF, 0xFF, 0xFF, 0xFF, 9, 9, 9, 9, 1][..], 8).unwrap();
        assert_eq!(r.replay.len(), 8);
        let r = Tracked::prefetch_message(&[0xFF][..], 8).unwrap();
        assert_eq!(r.replay, [0xFF]);
    }

    /// A reader that fails with `EIO`.
    struct Broken;
    impl io::Read for Broken {
        fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
            Err(io::Error::other("device gone"))
        }
    }

    #[test]
    fn prefetch_returns_the_source_error() {
        let Err(e) = Tracked::prefetch_message(Broken, 8) else {
            panic!("expected an error")
        };
        assert_eq!(e.to_string(), "device gone");
    }
}
