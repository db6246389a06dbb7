//! The readers say what a wrong input is ([`InputKind`]): a Parquet file,
//! text, an IPC file given to a stream reader and the reverse, a file cut
//! before its footer, an empty input. The verdicts (error kinds) stay.

extern crate std;
use std::string::ToString;
use std::vec::Vec;

use crate::error::{Error, InputKind};
use crate::ipc::reader::{
    FileReader, FileSeekReader, SliceStreamReader, StreamDecoder, StreamReader,
};
use crate::ipc::roundtrip_tests::sample_batch;
use crate::ipc::writer::{FileWriter, StreamWriter};
use crate::Global as G;

fn file() -> Vec<u8> {
    let b = sample_batch(0);
    let mut w = FileWriter::try_new(Vec::new(), b.schema()).unwrap();
    w.write(&b).unwrap();
    w.finish().unwrap();
    w.into_inner()
}

fn stream() -> Vec<u8> {
    let b = sample_batch(0);
    let mut w = StreamWriter::try_new(Vec::new(), b.schema()).unwrap();
    w.write(&b).unwrap();
    w.finish().unwrap();
    w.into_inner()
}

/// The error of each stream reader (over a slice, over `Read`, the push
/// decoder fed in one chunk and byte by byte) opening `input`.
fn stream_errors(input: &[u8]) -> [Error; 4] {
    let slice = SliceStreamReader::try_new(input).err().unwrap();
    let read = StreamReader::try_new(input).err().unwrap();
    let push = |chunk: usize| {
        let mut d = StreamDecoder::try_new_in(Default::default(), G).unwrap();
        for part in input.chunks(chunk) {
            let mut buf = crate::buffer::Buffer::try_copy_in(part, G).unwrap();
            while !buf.is_empty() {
                if let Err(e) = d.decode(&mut buf) {
                    return e;
                }
            }
        }
        d.finish().unwrap_err()
    };
    [slice, read, push(usize::MAX), push(1)]
}

#[test]
fn stream_readers_name_a_parquet_file_an_ipc_file_text_and_nothing() {
    let parquet = b"PAR1\x15\x04\x15\x10\x15\x14L\x15\x02\x15\x00\x12\x00\x00";
    let csv = b"id,name\n1,alice\n2,bob\n";
    let ipc_file = file();
    let cases: [(&[u8], Error, InputKind, &str); 5] = [
        (
            parquet,
            Error::LimitExceeded,
            InputKind::Parquet,
            "a Parquet file, not Arrow IPC",
        ),
        (
            csv,
            Error::LimitExceeded,
            InputKind::Text,
            "text (such as CSV or JSON), not Arrow IPC",
        ),
        (
            b"a,b",
            Error::UnexpectedEof,
            InputKind::Text,
            "text (such as CSV or JSON), not Arrow IPC",
        ),
        (
            &ipc_file,
            Error::LimitExceeded,
            InputKind::ArrowFile,
            "an Arrow IPC file, not a stream (read it with a file reader)",
        ),
        (
            b"",
            Error::UnexpectedEof,
            InputKind::Empty,
            "empty input (0 bytes), not Arrow IPC",
        ),
    ];
    for (input, kind, looks, text) in cases {
        for e in stream_errors(input) {
            assert_eq!(e, kind, "{} bytes: {e:?}", input.len());
            assert_eq!(e.input(), Some(looks), "{} bytes: {e:?}", input.len());
            assert_eq!(e.to_string(), text);
        }
    }
}

#[test]
fn a_broken_stream_is_not_called_something_else() {
    // A stream cut inside its schema, and one with its schema's metadata
    // length over the limit: the kind and location, no recognised input.
    let s = stream();
    for e in stream_errors(&s[..20]) {
        assert_eq!(e, Error::UnexpectedEof);
        assert_eq!(e.input(), None);
        assert_eq!(e.to_string(), "unexpected end of input (message 0)");
    }
    let mut big = s.clone();
    big[4..8].copy_from_slice(&(64i32 << 20).to_le_bytes());
    for e in stream_errors(&big) {
        assert_eq!(e, Error::LimitExceeded);
        assert_eq!(e.input(), None);
    }
}

#[test]
fn file_readers_name_a_truncated_file_a_stream_and_nothing() {
    let f = file();
    let cut = &f[..f.len() - 10];
    let s = stream();
    let cases: [(&[u8], Option<InputKind>, std::string::String); 5] = [
        (
            cut,
            Some(InputKind::TruncatedArrowFile),
            std::format!(
                "an Arrow IPC file truncated at byte {}: the footer is missing",
                cut.len()
            ),
        ),
        (
            &f[..8],
            Some(InputKind::TruncatedArrowFile),
            "an Arrow IPC file truncated at byte 8: the footer is missing".into(),
        ),
        (
            &s,
            Some(InputKind::ArrowStream),
            "an Arrow IPC stream, not a file (read it with a stream reader)".into(),
        ),
        (
            b"",
            Some(InputKind::Empty),
            "empty input (0 bytes), not Arrow IPC".into(),
        ),
        (
            b"PAR1\0\0\0\0PAR1",
            Some(InputKind::Parquet),
            "a Parquet file, not Arrow IPC".into(),
        ),
    ];
    for (input, looks, text) in cases {
        let a = FileReader::try_new(input).err().unwrap();
        let b = FileSeekReader::try_new(embedded_io_cursor(input))
            .err()
            .unwrap();
        for e in [a, b] {
            assert_eq!(e, Error::InvalidMagic, "{} bytes", input.len());
            assert_eq!(e.input(), looks);
            assert_eq!(e.to_string(), text);
        }
    }
}

/// `bytes` as an `embedded_io::Read + Seek`.
struct Cursor<'b> {
    bytes: &'b [u8],
    pos: usize,
}

impl embedded_io::ErrorType for Cursor<'_> {
    type Error = core::convert::Infallible;
}

impl embedded_io::Read for Cursor<'_> {
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, Self::Error> {
        let rest = self.bytes.get(self.pos..).unwrap_or_default();
        let n = buf.len().min(rest.len());
        buf[..n].copy_from_slice(&rest[..n]);
        self.pos += n;
        Ok(n)
    }
}

impl embedded_io::Seek for Cursor<'_> {
    fn seek(&mut self, to: embedded_io::SeekFrom) -> Result<u64, Self::Error> {
        let len = self.bytes.len() as i64;
        let at = match to {
            embedded_io::SeekFrom::Start(n) => n as i64,
            embedded_io::SeekFrom::End(d) => len + d,
            embedded_io::SeekFrom::Current(d) => self.pos as i64 + d,
        };
        self.pos = at.clamp(0, len) as usize;
        Ok(self.pos as u64)
    }
}

fn embedded_io_cursor(bytes: &[u8]) -> Cursor<'_> {
    Cursor { bytes, pos: 0 }
}
