//! The operating system's error travels inside `alkaid_std::Error` (as its
//! variant `Io` and its `source`) from every place a sink or source can
//! fail: a writer's first bytes, a later write, a stream reader's schema,
//! a later batch, and the seeking file reader.

mod common;

use std::error::Error as _;
use std::io::{self, Read, Write};

use alkaid_std::{
    create_file, read_stream, Error, FileSeekReader, FileWriter, IpcFormat, IpcWriteOptions,
    StreamWriter,
};

/// A sink that accepts `budget` bytes, then fails with `BrokenPipe`.
struct PipeClosesAfter(usize);

impl Write for PipeClosesAfter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.0 == 0 {
            return Err(io::Error::new(
                io::ErrorKind::BrokenPipe,
                "reader went away",
            ));
        }
        let n = buf.len().min(self.0);
        self.0 -= n;
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A source that hands out `data`, then fails with a device error.
struct DeviceFailsAfter(io::Cursor<Vec<u8>>);

impl Read for DeviceFailsAfter {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self.0.read(buf)? {
            0 => Err(io::Error::other("device gone")),
            n => Ok(n),
        }
    }
}

/// The `io::Error` of `e`, checked to be its `source` as well.
fn io_of(e: &Error) -> &io::Error {
    let io = e
        .as_io()
        .unwrap_or_else(|| panic!("not an I/O error: {e:?}"));
    let source = e.source().and_then(|s| s.downcast_ref::<io::Error>());
    assert!(
        source.is_some_and(|s| std::ptr::eq(s, io)),
        "source of {e:?}"
    );
    io
}

#[test]
fn a_writer_whose_sink_fails_at_once_reports_the_cause() {
    let (schema, _) = common::sample();
    let o = IpcWriteOptions::default();
    let e = StreamWriter::try_new_with_options(PipeClosesAfter(0), &schema, o).unwrap_err();
    assert_eq!(io_of(&e).kind(), io::ErrorKind::BrokenPipe);
    assert_eq!(e.to_string(), "reader went away");
    // Part of the file's magic fits, the rest does not.
    let e = FileWriter::try_new_with_options(PipeClosesAfter(3), &schema, o).unwrap_err();
    assert_eq!(io_of(&e).kind(), io::ErrorKind::BrokenPipe);
}

#[test]
fn a_writer_whose_sink_fails_later_reports_the_cause() {
    let (schema, batches) = common::sample();
    let o = IpcWriteOptions::default();
    let full = common::encode(IpcFormat::Stream).len();
    for format in [IpcFormat::Stream, IpcFormat::File] {
        // Enough for the opening bytes, not for the first batch.
        let mut w =
            alkaid_std::IpcWriter::try_new(PipeClosesAfter(full / 2), format, &schema, o).unwrap();
        let e = w
            .write(&batches[0])
            .and_then(|()| w.write(&batches[1]))
            .unwrap_err();
        assert_eq!(io_of(&e).kind(), io::ErrorKind::BrokenPipe, "{format}");
        // The sink is still closed when finishing.
        let e = w.finish().unwrap_err();
        assert_eq!(io_of(&e).kind(), io::ErrorKind::BrokenPipe, "{format}");
    }
}

#[test]
fn a_stream_reader_whose_source_fails_reports_the_cause() {
    let bytes = common::encode(IpcFormat::Stream);
    // At once: the schema cannot be read.
    let e = read_stream(DeviceFailsAfter(io::Cursor::new(Vec::new()))).unwrap_err();
    assert_eq!(io_of(&e).to_string(), "device gone");
    // Within the schema message.
    let e = read_stream(DeviceFailsAfter(io::Cursor::new(bytes[..12].to_vec()))).unwrap_err();
    assert_eq!(io_of(&e).to_string(), "device gone");
    // After the schema: the first batch cannot be read.
    let schema_len = {
        let meta = i32::from_le_bytes(bytes[4..8].try_into().unwrap()) as usize;
        8 + meta
    };
    let mut r = read_stream(DeviceFailsAfter(io::Cursor::new(
        bytes[..schema_len + 10].to_vec(),
    )))
    .unwrap();
    let e = r.next_batch().unwrap_err();
    assert_eq!(io_of(&e).to_string(), "device gone");
    assert!(r.next_batch().unwrap().is_none());
}

#[test]
fn the_seeking_reader_reads_what_the_mapped_reader_reads() {
    let dir = common::temp_dir("seek_reader");
    let (schema, batches) = common::sample();
    let path = dir.join("a.arrow");
    let mut w = create_file(&path, &schema, IpcWriteOptions::default()).unwrap();
    for b in &batches {
        w.write(b).unwrap();
    }
    w.finish().unwrap();
    drop(w);

    let mapped: Vec<_> = alkaid_std::open_ipc(&path)
        .unwrap()
        .reader()
        .unwrap()
        .collect::<alkaid_std::Result<_>>()
        .unwrap();
    let mut r = FileSeekReader::open(&path).unwrap();
    assert_eq!(r.schema(), &schema);
    assert_eq!(r.num_batches(), 2);
    assert_eq!(r.batch(1).unwrap(), batches[1]);
    assert_eq!(
        r.batch(2).unwrap_err().as_arrow(),
        Some(alkaid::Error::OutOfBounds)
    );
    let seeked: Vec<_> = r.by_ref().collect::<alkaid_std::Result<_>>().unwrap();
    assert_eq!(seeked, mapped);
    assert_eq!(seeked, batches);
    assert!(r.next_batch().unwrap().is_none());

    // The batches own their memory: they outlive the file itself.
    std::fs::remove_file(&path).unwrap();
    assert_eq!(seeked, batches);
}

#[test]
fn the_seeking_reader_refuses_what_is_not_a_file_and_keeps_os_errors() {
    let dir = common::temp_dir("seek_reader_errors");
    let e = FileSeekReader::open(dir.join("missing.arrow")).unwrap_err();
    assert_eq!(io_of(&e).kind(), io::ErrorKind::NotFound);
    // A directory opens, but reading it fails with EISDIR: the cause is
    // kept although the core's constructor dropped its source.
    let e = FileSeekReader::open(&dir).unwrap_err();
    assert_eq!(io_of(&e).raw_os_error(), Some(21), "{e:?}");

    let stream = dir.join("a.arrows");
    std::fs::write(&stream, common::encode(IpcFormat::Stream)).unwrap();
    let e = FileSeekReader::open(&stream).unwrap_err();
    assert_eq!(e.as_arrow(), Some(alkaid::Error::InvalidMagic));

    let file = common::encode(IpcFormat::File);
    let cut = dir.join("cut.arrow");
    std::fs::write(&cut, &file[..file.len() - 1]).unwrap();
    assert!(FileSeekReader::open(&cut).unwrap_err().as_arrow().is_some());
}
