//! The std shim's vectored writers against the sync writers: the same bytes
//! for every golden file re-written (stream and file; uncompressed, LZ4,
//! ZSTD), also through sinks that take 1 or 7 bytes per call or are
//! interrupted; one `write_vectored` per batch into a sink that takes all;
//! body buffers handed to the sink straight from array memory.

use std::io::{self, IoSlice, Write};

use alkaid::array::{Array, RecordBatch};
use alkaid::ipc::writer::IpcWriteOptions;
use alkaid::Global;
use alkaid_std::{VectoredFileWriter, VectoredStreamWriter};
use alkaid_tests::harness::for_each_golden_rewrite;

/// A sink taking at most `max` bytes per call (across slices), returning
/// `Interrupted` on every third call when `interrupt`; it counts
/// `write_vectored` calls and remembers where each slice it saw started.
#[derive(Default)]
struct Sink {
    out: Vec<u8>,
    max: usize,
    interrupt: bool,
    calls: usize,
    vectored_calls: usize,
    seen: Vec<(usize, usize)>,
}

impl Sink {
    fn limited(max: usize, interrupt: bool) -> Self {
        Sink {
            max,
            interrupt,
            ..Default::default()
        }
    }
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.write_vectored(&[IoSlice::new(buf)])
    }

    fn write_vectored(&mut self, bufs: &[IoSlice<'_>]) -> io::Result<usize> {
        self.calls += 1;
        if self.interrupt && self.calls.is_multiple_of(3) {
            return Err(io::ErrorKind::Interrupted.into());
        }
        self.vectored_calls += 1;
        let mut n = 0;
        for b in bufs {
            self.seen.push((b.as_ptr() as usize, b.len()));
            let take = b.len().min(self.max - n);
            self.out.extend_from_slice(&b[..take]);
            n += take;
            if n == self.max {
                break;
            }
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

fn vectored(
    batches: &[RecordBatch<'_, Global>],
    o: IpcWriteOptions,
    sink: impl Fn() -> Sink,
) -> (Vec<u8>, Vec<u8>) {
    let schema = batches[0].schema().clone();
    let mut s = VectoredStreamWriter::try_new_with_options(sink(), &schema, o).unwrap();
    let mut f = VectoredFileWriter::try_new_with_options(sink(), &schema, o).unwrap();
    for b in batches {
        s.write(b).unwrap();
        f.write(b).unwrap();
    }
    s.finish().unwrap();
    f.finish().unwrap();
    assert_eq!(s.position() as usize, s.get_ref().out.len());
    (s.into_inner().out, f.into_inner().out)
}

/// Every golden file re-written by the vectored writers gives the sync
/// writers' bytes, with every codec, through whole, 1-byte, 7-byte and
/// interrupted sinks.
#[test]
fn golden_files_rewritten_vectored_match_the_sync_writers() {
    let checked = for_each_golden_rewrite(|rw| {
        let o = rw.options;
        for (max, interrupt) in [(usize::MAX, false), (1, false), (7, false), (7, true)] {
            let got = vectored(rw.batches, o, || Sink::limited(max, interrupt));
            let what = format!("{} {:?}, {max} B per call", rw.stem, o.compression);
            assert_eq!(got.0, rw.stream, "{what}: stream");
            assert_eq!(got.1, rw.file, "{what}: file");
        }
    });
    assert!(checked.iter().all(|&n| n >= 20), "{checked:?}");
}

/// A sink that takes everything gets one `write_vectored` call per batch,
/// and the values of the columns reach it from the arrays' own memory.
#[test]
fn one_write_vectored_per_batch_from_array_memory() {
    use alkaid::array::{Float64Array, Int64Array, StringArray};
    let batch = RecordBatch::try_from_iter([
        (
            "i",
            Int64Array::from_iter_values(0..10_000).into_array_ref(),
        ),
        (
            "f",
            Float64Array::from_iter_values((0..10_000).map(f64::from)).into_array_ref(),
        ),
        ("s", StringArray::from(vec!["a"; 10_000]).into_array_ref()),
    ])
    .unwrap();
    let mut w =
        VectoredStreamWriter::try_new(Sink::limited(usize::MAX, false), batch.schema()).unwrap();
    assert_eq!(w.get_ref().vectored_calls, 1); // the schema
    for n in 1..=3 {
        w.write(&batch).unwrap();
        assert_eq!(w.get_ref().vectored_calls, 1 + n);
    }
    let seen = &w.get_ref().seen;
    for c in batch.columns() {
        let values: (usize, usize) = match c {
            alkaid::array::ArrayRef::Int64(a) => (a.values().as_ptr() as usize, 80_000),
            alkaid::array::ArrayRef::Float64(a) => (a.values().as_ptr() as usize, 80_000),
            alkaid::array::ArrayRef::Utf8(a) => (a.values().as_slice().as_ptr() as usize, 10_000),
            other => panic!("unexpected column {:?}", other.data_type()),
        };
        assert_eq!(
            seen.iter().filter(|s| **s == values).count(),
            3,
            "{:?}",
            c.data_type()
        );
    }
    assert_eq!(batch.num_rows(), 10_000);
    assert!(batch.columns()[0].len() == 10_000);
}

/// A sink that accepts nothing is an error, not a hang or a panic.
#[test]
fn a_sink_that_takes_nothing_is_an_error() {
    struct Zero;
    impl Write for Zero {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Ok(0)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    let batch = RecordBatch::try_from_iter([(
        "i",
        alkaid::array::Int64Array::from(vec![1, 2]).into_array_ref(),
    )])
    .unwrap();
    let err = VectoredStreamWriter::try_new(Zero, batch.schema()).unwrap_err();
    assert_eq!(
        err.as_io().map(|e| e.kind()),
        Some(io::ErrorKind::WriteZero)
    );
}
