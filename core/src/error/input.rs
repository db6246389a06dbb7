//! What a refused input looks like: [`InputKind`], recognised from its
//! first bytes by the readers that refuse it (feature `error-location`).

use core::fmt;

/// What an input looks like when a reader refused it at its start and its
/// first bytes say it is something else than what that reader reads: a
/// Parquet file, an IPC file given to a stream reader (or the reverse), an
/// IPC file cut before its footer, text, or nothing at all.
///
/// Carried by an [`Error`](super::Error) beside its kind (which stays the
/// reader's verdict, e.g. [`ErrorKind::LimitExceeded`](super::ErrorKind)
/// for the first bytes of a Parquet file read as a message length): see
/// [`Error::input`](super::Error::input). Its
/// [`Display`](fmt::Display) is the sentence an error with it shows
/// instead of the kind's message, e.g. `a Parquet file, not Arrow IPC`.
/// Only recognised with the feature `error-location` (without it, no error
/// carries one).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum InputKind {
    /// No bytes at all.
    Empty,
    /// Starts with `PAR1`, the magic of an Apache Parquet file.
    Parquet,
    /// Starts with the IPC file magic (`ARROW1`, or `ALKAID1`) and was
    /// given to a stream reader ("IPC File Format": a file reader reads
    /// it).
    ArrowFile,
    /// Starts with the continuation marker `0xFFFFFFFF` of an encapsulated
    /// message ("Encapsulated message format") and was given to a file
    /// reader: an IPC stream (a stream reader reads it).
    ArrowStream,
    /// Starts with the IPC file magic but does not end with it: a file cut
    /// before the end of its footer. The error's
    /// [`Location::byte_offset`](super::Location::byte_offset) is the
    /// length of what is left (the byte it was cut at). Its messages,
    /// after the 8 bytes of leading magic, may still be readable as a
    /// stream.
    TruncatedArrowFile,
    /// Text (printable ASCII or UTF-8, such as CSV or JSON).
    Text,
}

impl InputKind {
    /// What `head`, the first bytes of an input (8 of them suffice; all of
    /// it when shorter), looks like; `None` when it looks like none of the
    /// kinds above (random bytes, or a stream or file this does not tell
    /// apart). [`InputKind::TruncatedArrowFile`] is never returned: it
    /// needs the end of the input.
    #[cfg_attr(not(feature = "error-location"), allow(dead_code))]
    pub(crate) fn sniff(head: &[u8]) -> Option<InputKind> {
        let head = head.get(..8).unwrap_or(head);
        if head.is_empty() {
            return Some(InputKind::Empty);
        }
        if head.starts_with(b"PAR1") {
            return Some(InputKind::Parquet);
        }
        // A stream reader looks at 4 bytes before it fails: a prefix of
        // the magic counts.
        let magic = |m: &[u8]| head.starts_with(m) || (head.len() >= 4 && m.starts_with(head));
        if magic(b"ARROW1") || magic(b"ALKAID1") {
            return Some(InputKind::ArrowFile);
        }
        if head.starts_with(&[0xFF; 4]) {
            return Some(InputKind::ArrowStream);
        }
        let text = match core::str::from_utf8(head) {
            Ok(s) => Some(s),
            // A character cut by the end of `head` is still text.
            Err(e) if e.error_len().is_none() => head
                .get(..e.valid_up_to())
                .and_then(|h| core::str::from_utf8(h).ok()),
            Err(_) => None,
        };
        let printable = |c: char| !c.is_control() || matches!(c, '\t' | '\n' | '\r');
        match text {
            Some(s) if !s.is_empty() && s.chars().all(printable) => Some(InputKind::Text),
            _ => None,
        }
    }

    /// The sentence an error with this kind of input shows, `at` being the
    /// error's byte offset (the length of a truncated file).
    pub(super) fn describe(self, f: &mut fmt::Formatter<'_>, at: Option<u64>) -> fmt::Result {
        let s = match self {
            InputKind::Empty => "empty input (0 bytes), not Arrow IPC",
            InputKind::Parquet => "a Parquet file, not Arrow IPC",
            InputKind::ArrowFile => "an Arrow IPC file, not a stream (read it with a file reader)",
            InputKind::ArrowStream => {
                "an Arrow IPC stream, not a file (read it with a stream reader)"
            }
            InputKind::Text => "text (such as CSV or JSON), not Arrow IPC",
            InputKind::TruncatedArrowFile => {
                f.write_str("an Arrow IPC file truncated")?;
                if let Some(n) = at {
                    write!(f, " at byte {n}")?;
                }
                return f.write_str(": the footer is missing");
            }
        };
        f.write_str(s)
    }
}

impl fmt::Display for InputKind {
    /// The sentence an error with this input shows, without a byte offset
    /// (`an Arrow IPC file truncated: the footer is missing`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.describe(f, None)
    }
}

#[cfg(test)]
mod tests {
    use super::InputKind;

    #[test]
    fn first_bytes_say_what_an_input_is() {
        let cases: [(&[u8], Option<InputKind>); 14] = [
            (b"", Some(InputKind::Empty)),
            (b"PAR1\x15\x04\x15\x10", Some(InputKind::Parquet)),
            (b"ARROW1\0\0", Some(InputKind::ArrowFile)),
            (b"ALKAID1\0", Some(InputKind::ArrowFile)),
            (b"ARRO", Some(InputKind::ArrowFile)),
            (b"ARR", Some(InputKind::Text)),
            (
                &[0xFF, 0xFF, 0xFF, 0xFF, 0x78, 0, 0, 0],
                Some(InputKind::ArrowStream),
            ),
            (b"id,name\n1,alice\n", Some(InputKind::Text)),
            (b"{\"a\": 1}", Some(InputKind::Text)),
            // "é" cut after its first byte by the 8-byte window.
            (b"nom,pr\xC3\xA9nom", Some(InputKind::Text)),
            // A legacy stream's length prefix, and random bytes.
            (&[0x78, 0, 0, 0, 0x10, 0, 0, 0], None),
            (&[0x01, 0x9C, 0xFE, 0x42], None),
            // A control character is not text; nor is a bare invalid byte.
            (b"ab\x01cd", None),
            (b"\xC3", None),
        ];
        for (head, want) in cases {
            assert_eq!(InputKind::sniff(head), want, "{head:?}");
        }
    }
}
