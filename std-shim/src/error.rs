//! [`Error`]: the core's [`alkaid::Error`] or a [`std::io::Error`].

use std::io;

/// Shorthand for `std::result::Result<T, alkaid_std::Error>`.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in the std shim: a format, validation, limit
/// or allocation error from the core, or an I/O error from the operating
/// system (opening, mapping, reading or writing a file or a pipe).
///
/// `Display` is the inner error's message (one line, no trailing period), so
/// that a command-line tool can print it as is.
///
/// ```
/// use std::error::Error as _;
///
/// // An I/O error keeps the operating system's error, as its source too.
/// let err = alkaid_std::open_ipc("/nonexistent/data.arrow").unwrap_err();
/// let io = err.as_io().expect("an I/O error");
/// assert_eq!(io.kind(), std::io::ErrorKind::NotFound);
/// assert!(err.source().is_some_and(|s| s.is::<std::io::Error>()));
///
/// // A format error is the core's, with its static message.
/// let err = alkaid_std::IpcInput::from_bytes(b"ARROW1\0\0 not a file")?.reader().unwrap_err();
/// assert_eq!(err.as_arrow(), Some(alkaid::Error::InvalidMagic));
///
/// // Both convert into `std::io::Error` (for `?` in io-returning code).
/// let io: std::io::Error = err.into();
/// assert_eq!(io.kind(), std::io::ErrorKind::InvalidData);
/// # Ok::<(), alkaid_std::Error>(())
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An error of the core (malformed input, validation, limits, memory).
    #[error(transparent)]
    Arrow(#[from] alkaid::Error),
    /// An I/O error of the operating system, which is also this error's
    /// [`source`](std::error::Error::source).
    #[error("{0}")]
    Io(#[from] io::Error),
    /// The input does not start like Arrow IPC data at all (neither the
    /// file magic, nor a stream's continuation marker or message length;
    /// see [`crate::IpcFormat::plausible`]), and its schema could not be
    /// read: it is some other kind of file.
    #[error("not an Arrow IPC stream or file")]
    NotIpc,
    /// A Flight call failed (feature `flight`): the server's gRPC status,
    /// or `Unavailable` when the connection failed or was lost. `Display`
    /// shows the code and the first line of the status message (servers
    /// may append a traceback); the whole status is kept.
    #[cfg(feature = "flight")]
    #[error("flight: {:?}: {}", .0.code(), .0.message().lines().next().unwrap_or(""))]
    Flight(Box<tonic::Status>),
}

impl Error {
    /// The core error, when this is one.
    pub fn as_arrow(&self) -> Option<alkaid::Error> {
        match self {
            Error::Arrow(e) => Some(*e),
            _ => None,
        }
    }

    /// The I/O error, when this is one.
    pub fn as_io(&self) -> Option<&io::Error> {
        match self {
            Error::Io(e) => Some(e),
            _ => None,
        }
    }
}

/// The [`io::ErrorKind`] closest to a core error: `UnexpectedEof` for a
/// truncated input, `OutOfMemory` for a failed allocation, `WriteZero` for a
/// full sink, `Other` for an I/O error whose cause was lost, `InvalidData`
/// for everything else (malformed or invalid data, limits).
fn io_kind(e: alkaid::Error) -> io::ErrorKind {
    match e.kind() {
        alkaid::ErrorKind::UnexpectedEof => io::ErrorKind::UnexpectedEof,
        alkaid::ErrorKind::AllocationFailed => io::ErrorKind::OutOfMemory,
        alkaid::ErrorKind::WriteZero => io::ErrorKind::WriteZero,
        alkaid::ErrorKind::Io => io::ErrorKind::Other,
        alkaid::ErrorKind::InvalidArgument => io::ErrorKind::InvalidInput,
        _ => io::ErrorKind::InvalidData,
    }
}

/// I/O errors pass through; core errors become an [`io::Error`] of the
/// closest kind (see [`Error`]) whose source is the core error;
/// [`Error::NotIpc`] becomes [`io::ErrorKind::InvalidData`].
impl From<Error> for io::Error {
    fn from(e: Error) -> Self {
        match e {
            Error::Io(e) => e,
            Error::Arrow(e) => io::Error::new(io_kind(e), e),
            Error::NotIpc => io::Error::new(io::ErrorKind::InvalidData, Error::NotIpc.to_string()),
            #[cfg(feature = "flight")]
            e @ Error::Flight(_) => io::Error::other(e),
        }
    }
}

/// Core errors pass through; [`Error::NotIpc`] becomes
/// [`alkaid::Error::InvalidMagic`]; I/O errors become [`alkaid::Error::UnexpectedEof`],
/// [`alkaid::Error::WriteZero`] or [`alkaid::Error::Io`] by kind (the
/// operating system's message is lost: the core's error is `Copy`).
impl From<Error> for alkaid::Error {
    fn from(e: Error) -> Self {
        match e {
            Error::Arrow(e) => e,
            Error::NotIpc => alkaid::Error::InvalidMagic,
            #[cfg(feature = "flight")]
            Error::Flight(_) => alkaid::Error::Io,
            Error::Io(e) => match e.kind() {
                io::ErrorKind::UnexpectedEof => alkaid::Error::UnexpectedEof,
                io::ErrorKind::WriteZero => alkaid::Error::WriteZero,
                io::ErrorKind::OutOfMemory => alkaid::Error::AllocationFailed,
                _ => alkaid::Error::Io,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_is_the_inner_message() {
        let e = Error::from(alkaid::Error::InvalidUtf8);
        assert_eq!(e.to_string(), "string value is not valid UTF-8");
        let e = Error::from(io::Error::new(io::ErrorKind::NotFound, "gone"));
        assert_eq!(e.to_string(), "gone");
    }

    #[test]
    fn conversions_both_ways() {
        let io_err: io::Error = Error::from(alkaid::Error::UnexpectedEof).into();
        assert_eq!(io_err.kind(), io::ErrorKind::UnexpectedEof);
        assert_eq!(io_err.to_string(), "unexpected end of input");
        let inner = io_err
            .get_ref()
            .and_then(|s| s.downcast_ref::<alkaid::Error>());
        assert_eq!(inner, Some(&alkaid::Error::UnexpectedEof));
        let io_err: io::Error = Error::from(alkaid::Error::OffsetsNotMonotonic).into();
        assert_eq!(io_err.kind(), io::ErrorKind::InvalidData);

        let back: io::Error = Error::from(io::Error::from(io::ErrorKind::BrokenPipe)).into();
        assert_eq!(back.kind(), io::ErrorKind::BrokenPipe);

        let core: alkaid::Error = Error::from(io::Error::from(io::ErrorKind::BrokenPipe)).into();
        assert_eq!(core, alkaid::Error::Io);
        let core: alkaid::Error = Error::from(io::Error::from(io::ErrorKind::UnexpectedEof)).into();
        assert_eq!(core, alkaid::Error::UnexpectedEof);
        let core: alkaid::Error = Error::from(alkaid::Error::InvalidMagic).into();
        assert_eq!(core, alkaid::Error::InvalidMagic);
        assert_eq!(
            Error::from(alkaid::Error::InvalidMagic).as_arrow(),
            Some(alkaid::Error::InvalidMagic)
        );
    }

    #[test]
    fn the_io_error_is_the_source() {
        use std::error::Error as _;
        let e = Error::from(io::Error::new(io::ErrorKind::NotFound, "gone"));
        let source = e.source().and_then(|s| s.downcast_ref::<io::Error>());
        assert_eq!(source.map(io::Error::kind), Some(io::ErrorKind::NotFound));
    }

    #[test]
    fn is_a_std_error() {
        fn takes(_: &dyn std::error::Error) {}
        takes(&Error::from(alkaid::Error::Io));
    }
}
