//! The async IPC front-ends (`AsyncStreamWriter`, `AsyncFileWriter`,
//! `AsyncStreamReader`, feature `async`) against the sync ones:
//!
//! - every golden file re-written by the async writers gives the sync
//!   writers' bytes (stream and file; uncompressed, LZ4, ZSTD), also through
//!   sinks that take 1 or 7 bytes per call;
//! - the async reader, fed 1, 7 or 4096 bytes per read, gives the batches of
//!   `SliceStreamReader`; every cut of a stream is an error at the cut;
//! - under tokio (embedded-io-adapters' `FromTokio`), a writer task and a
//!   reader task interleave across a small in-memory duplex pipe.

use alkaid::array::{Array, RecordBatch};
use alkaid::ipc::reader::{AsyncStreamReader, IpcReadOptions, SliceStreamReader};
use alkaid::ipc::writer::{AsyncFileWriter, AsyncStreamWriter, IpcWriteOptions};
use alkaid::Global;
use alkaid_std::StdCodecs;
use alkaid_tests::harness::{cases, for_each_golden_rewrite, golden_dir};

/// An async sink taking at most `max` bytes per call.
struct Sink {
    out: Vec<u8>,
    max: usize,
}

impl embedded_io_async::ErrorType for Sink {
    type Error = core::convert::Infallible;
}

impl embedded_io_async::Write for Sink {
    async fn write(&mut self, buf: &[u8]) -> Result<usize, Self::Error> {
        let n = buf.len().min(self.max);
        self.out.extend_from_slice(&buf[..n]);
        Ok(n)
    }
    async fn flush(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}

/// An async source giving at most `max` bytes per read.
struct Source<'b> {
    bytes: &'b [u8],
    max: usize,
}

impl embedded_io_async::ErrorType for Source<'_> {
    type Error = core::convert::Infallible;
}

impl embedded_io_async::Read for Source<'_> {
    async fn read(&mut self, buf: &mut [u8]) -> Result<usize, Self::Error> {
        let n = buf.len().min(self.max).min(self.bytes.len());
        buf[..n].copy_from_slice(&self.bytes[..n]);
        self.bytes = &self.bytes[n..];
        Ok(n)
    }
}

fn batches(stream: &[u8]) -> Option<Vec<RecordBatch<'_, Global>>> {
    let r = SliceStreamReader::try_new_in(stream, IpcReadOptions::default(), Global).ok()?;
    r.map(|b| b.ok()).collect()
}

async fn write_async(
    batches: &[RecordBatch<'_, Global>],
    o: IpcWriteOptions,
    max: usize,
) -> (Vec<u8>, Vec<u8>) {
    let schema = batches[0].schema().clone();
    let sink = || Sink {
        out: Vec::new(),
        max,
    };
    let codecs = StdCodecs::default;
    let mut s = AsyncStreamWriter::try_new_with_codecs_in(sink(), &schema, o, codecs(), Global)
        .await
        .unwrap();
    let mut f = AsyncFileWriter::try_new_with_codecs_in(sink(), &schema, o, codecs(), Global)
        .await
        .unwrap();
    for b in batches {
        s.write(b).await.unwrap();
        f.write(b).await.unwrap();
    }
    s.finish().await.unwrap();
    f.finish().await.unwrap();
    assert_eq!(s.position() as usize, s.get_ref().out.len());
    (s.into_inner().out, f.into_inner().out)
}

async fn read_async(bytes: &[u8], max: usize) -> alkaid::Result<Vec<RecordBatch<'static, Global>>> {
    let src = Source { bytes, max };
    let mut r = AsyncStreamReader::try_new_with_codecs_in(
        src,
        IpcReadOptions::default(),
        StdCodecs::default(),
        Global,
    )
    .await?;
    let mut out = Vec::new();
    while let Some(b) = r.next_batch().await? {
        out.push(b);
    }
    Ok(out)
}

#[test]
fn golden_files_through_the_async_writers_and_reader() {
    let checked = for_each_golden_rewrite(|rw| {
        let o = rw.options;
        for max in [usize::MAX, 1, 7] {
            let (s, f) = pollster::block_on(write_async(rw.batches, o, max));
            let what = format!("{} {:?}, {max} B per call", rw.stem, o.compression);
            assert_eq!(s, rw.stream, "{what}: stream");
            assert_eq!(f, rw.file, "{what}: file");
        }
        for max in [1, 7, 4096, usize::MAX] {
            let what = format!("{} {:?}, {max} B per read", rw.stem, o.compression);
            let got = pollster::block_on(read_async(&rw.stream, max))
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(got, rw.batches, "{what}");
        }
    });
    assert!(checked.iter().all(|&n| n >= 20), "{checked:?}");
}

#[test]
fn every_cut_of_a_stream_is_an_error_at_the_cut() {
    let mut streams = 0;
    for case in cases(&golden_dir()).into_iter().take(12) {
        let Ok(stream) = std::fs::read(case.stream_path()) else {
            continue;
        };
        let Some(whole) = batches(&stream) else {
            continue;
        };
        streams += 1;
        for cut in 0..stream.len() {
            let cut_bytes = &stream[..cut];
            match pollster::block_on(read_async(cut_bytes, 64)) {
                // A cut at a message boundary is a shorter stream.
                Ok(got) => assert_eq!(got[..], whole[..got.len()], "{} cut {cut}", case.stem),
                Err(e) => assert!(
                    matches!(
                        e.kind(),
                        alkaid::ErrorKind::UnexpectedEof
                            | alkaid::ErrorKind::InvalidFlatbuffer
                            | alkaid::ErrorKind::InvalidMessage
                    ),
                    "{} cut {cut}: {e}",
                    case.stem
                ),
            }
        }
    }
    assert!(streams >= 6);
}

#[test]
fn a_sink_error_stops_the_async_writer() {
    struct Broken;
    impl embedded_io_async::ErrorType for Broken {
        type Error = embedded_io_async::ErrorKind;
    }
    impl embedded_io_async::Write for Broken {
        async fn write(&mut self, _: &[u8]) -> Result<usize, Self::Error> {
            Err(embedded_io_async::ErrorKind::BrokenPipe)
        }
        async fn flush(&mut self) -> Result<(), Self::Error> {
            Ok(())
        }
    }
    let batch = RecordBatch::try_from_iter([(
        "x",
        alkaid::array::Int32Array::from(vec![1]).into_array_ref(),
    )])
    .unwrap();
    let e = pollster::block_on(AsyncStreamWriter::try_new(Broken, batch.schema())).unwrap_err();
    assert_eq!(e, alkaid::Error::Io);
    let mut bytes = Vec::new();
    let mut w = pollster::block_on(AsyncStreamWriter::try_new(&mut bytes, batch.schema())).unwrap();
    pollster::block_on(w.write(&batch)).unwrap();
    drop(w);
    // A sink that takes nothing.
    struct Full;
    impl embedded_io_async::ErrorType for Full {
        type Error = core::convert::Infallible;
    }
    impl embedded_io_async::Write for Full {
        async fn write(&mut self, _: &[u8]) -> Result<usize, Self::Error> {
            Ok(0)
        }
        async fn flush(&mut self) -> Result<(), Self::Error> {
            Ok(())
        }
    }
    let e = pollster::block_on(AsyncStreamWriter::try_new(Full, batch.schema())).unwrap_err();
    assert_eq!(e, alkaid::Error::WriteZero);
}

#[tokio::test(flavor = "current_thread")]
async fn writer_and_reader_interleave_under_tokio() {
    use embedded_io_adapters::tokio_1::FromTokio;
    let batch = RecordBatch::try_from_iter([(
        "v",
        alkaid::array::Int64Array::from_iter_values(0..1000).into_array_ref(),
    )])
    .unwrap();
    // A 256-byte pipe: a batch (8 KB) only goes through while the reader
    // takes it, so the two tasks interleave.
    let (a, b) = tokio::io::duplex(256);
    let schema = batch.schema().clone();
    let sent = batch.clone();
    let writer = tokio::spawn(async move {
        let mut w = AsyncStreamWriter::try_new(FromTokio::new(a), &schema).await?;
        for _ in 0..5 {
            w.write(&sent).await?;
        }
        w.finish().await?;
        Ok::<_, alkaid::Error>(w.position())
    });
    let mut r = AsyncStreamReader::try_new(FromTokio::new(b)).await.unwrap();
    let mut got = 0;
    while let Some(b) = r.next_batch().await.unwrap() {
        assert_eq!(b, batch);
        got += 1;
    }
    assert_eq!(got, 5);
    assert!(writer.await.unwrap().unwrap() > 5 * 8000);
}
