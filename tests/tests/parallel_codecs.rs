//! Parallel compression and decompression (`alkaid_std::ThreadedCodecs`)
//! against the single-threaded writers and readers: the same bytes for
//! every golden file re-written (stream and file; uncompressed, LZ4, ZSTD)
//! by the sync and vectored writers on 2 and 3 threads, with every body
//! spread over the threads; the same batches read back through
//! `SliceStreamReader`, `StreamReader` and `FileReader`; the same errors
//! for corrupted compressed bodies; a panicking codec reported as
//! `Error::ExecutorFailed`, never a panic.

use alkaid::array::{Array, ArrayRef, Float64Array, Int64Array, RecordBatch, StringArray};
use std::sync::atomic::{AtomicUsize, Ordering};

use alkaid::ipc::compression::{BodyExecutor, BodyJob, BuiltinCodecs, Codec, CodecSet, WithCodec};
use alkaid::ipc::message::CompressionCodec;
use alkaid::ipc::reader::{FileReader, IpcReadOptions, SliceStreamReader, StreamReader};
use alkaid::ipc::writer::{FileWriter, IpcWriteOptions, StreamWriter};
use alkaid::{ErrorKind, Global};
use alkaid_std::{StdCodecs, ThreadedCodecs, VectoredFileWriter, VectoredStreamWriter, ZstdCodec};
use alkaid_tests::harness::for_each_golden_rewrite;

/// Every body of two buffers or more spread over `n` threads.
fn spread(n: usize) -> ThreadedCodecs {
    ThreadedCodecs::new(n).with_min_bytes(0)
}

/// Jobs run through the executors of the golden test's writers.
static WRITE_JOBS: AtomicUsize = AtomicUsize::new(0);
/// Jobs run through the executors of the golden test's readers.
static READ_JOBS: AtomicUsize = AtomicUsize::new(0);

/// [`ThreadedCodecs`] counting the jobs its executor runs, so that a test
/// knows the parallel path was taken.
struct Counted(ThreadedCodecs, &'static AtomicUsize);

impl CodecSet for Counted {
    fn get(&mut self, codec: CompressionCodec) -> Option<&mut dyn Codec> {
        self.0.get(codec)
    }
    fn executor(&mut self) -> Option<&mut dyn BodyExecutor> {
        Some(self)
    }
}

impl BodyExecutor for Counted {
    fn wants(&self, jobs: usize, bytes: usize) -> bool {
        self.0.wants(jobs, bytes)
    }
    fn execute(&mut self, jobs: &mut [BodyJob<'_>]) -> alkaid::Result<()> {
        self.0.execute(jobs)?;
        self.1.fetch_add(
            jobs.iter().filter(|j| j.is_done()).count(),
            Ordering::Relaxed,
        );
        Ok(())
    }
}

fn counted(n: usize, jobs: &'static AtomicUsize) -> Counted {
    Counted(spread(n), jobs)
}

/// Stream and file bytes of the core's sync writers with `codecs`.
fn sync_with<S: CodecSet>(
    batches: &[RecordBatch<'_, Global>],
    o: IpcWriteOptions,
    codecs: impl Fn() -> S,
) -> (Vec<u8>, Vec<u8>) {
    let schema = batches[0].schema().clone();
    let mut s =
        StreamWriter::try_new_with_codecs_in(Vec::new(), &schema, o, codecs(), Global).unwrap();
    let mut f =
        FileWriter::try_new_with_codecs_in(Vec::new(), &schema, o, codecs(), Global).unwrap();
    for b in batches {
        s.write(b).unwrap();
        f.write(b).unwrap();
    }
    s.finish().unwrap();
    f.finish().unwrap();
    (s.into_inner(), f.into_inner())
}

/// Stream and file bytes of the std shim's vectored writers with `codecs`.
fn vectored_with<S: CodecSet>(
    batches: &[RecordBatch<'_, Global>],
    o: IpcWriteOptions,
    codecs: impl Fn() -> S,
) -> (Vec<u8>, Vec<u8>) {
    let schema = batches[0].schema().clone();
    let mut s =
        VectoredStreamWriter::try_new_with_codecs(Vec::new(), &schema, o, codecs()).unwrap();
    let mut f = VectoredFileWriter::try_new_with_codecs(Vec::new(), &schema, o, codecs()).unwrap();
    for b in batches {
        s.write(b).unwrap();
        f.write(b).unwrap();
    }
    s.finish().unwrap();
    f.finish().unwrap();
    (s.into_inner(), f.into_inner())
}

/// The batches of `stream` and `file` read with `codecs` by the three
/// slice and `Read` readers (each must agree with the others).
fn read_all_with<'b, S: CodecSet>(
    stream: &'b [u8],
    file: &'b [u8],
    codecs: impl Fn() -> S,
) -> alkaid::Result<Vec<RecordBatch<'b, Global>>> {
    let o = IpcReadOptions::default();
    let a: Vec<_> = SliceStreamReader::try_new_with_codecs_in(stream, o, codecs(), Global)?
        .collect::<alkaid::Result<_>>()?;
    let b: Vec<_> = StreamReader::try_new_with_codecs_in(stream, o, codecs(), Global)?
        .collect::<alkaid::Result<_>>()?;
    let mut fr = FileReader::try_new_with_codecs_in(file, o, codecs(), Global)?;
    let c: Vec<_> = fr.batches().collect::<alkaid::Result<_>>()?;
    assert_eq!(a, b);
    assert_eq!(a, c);
    Ok(a)
}

/// Every golden file re-written on 2 and 3 threads (every body spread)
/// gives the single-threaded sync writers' bytes, stream and file, with
/// every codec, through the sync and the vectored writers; read back on 2
/// threads, the batches are the single-threaded readers'.
#[test]
fn golden_files_rewritten_in_parallel_match_the_sync_writers() {
    let checked = for_each_golden_rewrite(|rw| {
        let (batches, o) = (rw.batches, rw.options);
        for threads in [2, 3] {
            let what = format!("{} {:?} on {threads} threads", rw.stem, o.compression);
            let (s, f) = sync_with(batches, o, || counted(threads, &WRITE_JOBS));
            assert_eq!(s, rw.stream, "{what}: sync stream");
            assert_eq!(f, rw.file, "{what}: sync file");
            let (s, f) = vectored_with(batches, o, || spread(threads));
            assert_eq!(s, rw.stream, "{what}: vectored stream");
            assert_eq!(f, rw.file, "{what}: vectored file");
        }
        let what = format!("{} {:?}", rw.stem, o.compression);
        let seq = read_all_with(&rw.stream, &rw.file, StdCodecs::default).unwrap();
        let par = read_all_with(&rw.stream, &rw.file, || counted(2, &READ_JOBS)).unwrap();
        assert_eq!(par, seq, "{what}: read on 2 threads");
        assert_eq!(par, batches, "{what}: read back");
    });
    assert!(checked.iter().all(|&n| n >= 20), "{checked:?}");
    // Both directions went through the executor.
    let jobs = (
        WRITE_JOBS.load(Ordering::Relaxed),
        READ_JOBS.load(Ordering::Relaxed),
    );
    assert!(jobs.0 > 1000 && jobs.1 > 1000, "{jobs:?} jobs");
}

/// A batch large enough for the default threshold, with sliced columns
/// (a validity bitmap at a bit offset, offsets to rebase), compressed with
/// each codec on 1, 2 and 4 threads: the same bytes, the same batches back.
#[test]
fn large_sliced_batches_same_bytes_on_every_thread_count() {
    let n = 200_000;
    let ints = Int64Array::from_iter((0..n as i64).map(|v| (v % 11 != 0).then_some(v * 7 % 1000)));
    let floats = Float64Array::from_iter_values((0..n).map(|v| (v % 977) as f64 / 4.0));
    let words: Vec<Option<String>> = (0..n)
        .map(|v| (v % 13 != 0).then(|| format!("w{}", v % 5003)))
        .collect();
    let strings = StringArray::from_iter(words.iter().map(Option::as_deref));
    let columns: [ArrayRef<'static, Global>; 3] = [
        ints.into_array_ref(),
        floats.into_array_ref(),
        strings.into_array_ref(),
    ];
    let slice = |offset: usize, len: usize| {
        let names = ["i", "f", "s"];
        RecordBatch::try_from_iter(
            names
                .into_iter()
                .zip(columns.iter().map(|c| c.slice(offset, len).unwrap())),
        )
        .unwrap()
    };
    let batches = [slice(3, n - 10), slice(0, 70_001), slice(0, n)];
    for codec in [CompressionCodec::Lz4Frame, CompressionCodec::Zstd] {
        let o = IpcWriteOptions {
            compression: Some(codec),
            ..Default::default()
        };
        let want = sync_with(&batches, o, StdCodecs::default);
        for threads in [1, 2, 4] {
            let got = sync_with(&batches, o, || ThreadedCodecs::new(threads));
            assert!(got == want, "{codec:?} on {threads} threads: sync");
            let got = vectored_with(&batches, o, || ThreadedCodecs::new(threads));
            assert!(got == want, "{codec:?} on {threads} threads: vectored");
            let back = read_all_with(&want.0, &want.1, || ThreadedCodecs::new(threads)).unwrap();
            assert_eq!(back, batches, "{codec:?} on {threads} threads: read");
        }
        // Another ZSTD level: per-thread codec sets made alike.
        if codec == CompressionCodec::Zstd {
            let level9 = || WithCodec::new(ZstdCodec::with_level(9), BuiltinCodecs::new());
            let want = sync_with(&batches, o, level9);
            let got = sync_with(&batches, o, || ThreadedCodecs::with_codecs(3, level9));
            assert!(got == want, "ZSTD level 9 on 3 threads");
        }
    }
}

/// The rows of `bytes` read with `codecs`, or the first error as text
/// (kind and location).
fn rows_or_error<S: CodecSet>(bytes: &[u8], codecs: S) -> Result<usize, String> {
    let r =
        SliceStreamReader::try_new_with_codecs_in(bytes, IpcReadOptions::default(), codecs, Global)
            .map_err(|e| format!("{e}"))?;
    let mut rows = 0;
    for b in r {
        rows += b.map_err(|e| format!("{e}"))?.num_rows();
    }
    Ok(rows)
}

/// Corrupting bytes of a compressed stream's bodies gives the same outcome
/// (the same batches, or the same error kind at the same place) on 2
/// threads as on one.
#[test]
fn corrupted_bodies_fail_alike_in_parallel() {
    let n = 4_000;
    let batch = RecordBatch::try_from_iter([
        ("a", Int64Array::from_iter_values(0..n).into_array_ref()),
        (
            "b",
            Int64Array::from_iter((0..n).map(|v| (v % 3 != 0).then_some(v % 17))).into_array_ref(),
        ),
        (
            "c",
            StringArray::from_iter_values((0..n).map(|v| format!("x{}", v % 91))).into_array_ref(),
        ),
    ])
    .unwrap();
    for codec in [CompressionCodec::Lz4Frame, CompressionCodec::Zstd] {
        let o = IpcWriteOptions {
            compression: Some(codec),
            ..Default::default()
        };
        let (stream, _) = sync_with(std::slice::from_ref(&batch), o, StdCodecs::default);
        let read = |bytes: &[u8], par: bool| -> Result<usize, String> {
            if par {
                rows_or_error(bytes, spread(2))
            } else {
                rows_or_error(bytes, StdCodecs::default())
            }
        };
        assert_eq!(read(&stream, true), Ok(n as usize));
        let (mut failed, mut tried) = (0, 0);
        // Every 29th byte of the second half (the record batch body), two
        // ways.
        for at in (stream.len() / 2..stream.len() - 8).step_by(29) {
            for flip in [0x01u8, 0xFF] {
                let mut bad = stream.clone();
                bad[at] ^= flip;
                let (seq, par) = (read(&bad, false), read(&bad, true));
                assert_eq!(seq, par, "{codec:?}: byte {at} ^ {flip:#x}");
                failed += usize::from(seq.is_err());
                tried += 1;
            }
        }
        assert!(failed > tried / 4, "{codec:?}: {failed} of {tried} failed");
    }
}

/// An LZ4 codec that panics on every buffer it compresses.
struct Panicking;

impl Codec for Panicking {
    fn codec(&self) -> CompressionCodec {
        CompressionCodec::Lz4Frame
    }
    fn max_compressed_len(&self, input_len: usize) -> alkaid::Result<usize> {
        Ok(input_len + 64)
    }
    fn compress(&mut self, _input: &[u8], _out: &mut [u8]) -> alkaid::Result<usize> {
        panic!("codec panicked on purpose")
    }
    fn decompress(&mut self, _input: &[u8], _out: &mut [u8]) -> alkaid::Result<usize> {
        panic!("codec panicked on purpose")
    }
}

/// A worker whose codec panics: the writer returns
/// `Error::ExecutorFailed` (no panic reaches the caller) and refuses more
/// work; a codec that errors is reported as its error.
#[test]
fn panicking_worker_is_an_error() {
    let n = 100_000;
    let batch = RecordBatch::try_from_iter([
        ("a", Int64Array::from_iter_values(0..n).into_array_ref()),
        (
            "b",
            Int64Array::from_iter_values((0..n).map(|v| v % 9)).into_array_ref(),
        ),
    ])
    .unwrap();
    let o = IpcWriteOptions {
        compression: Some(CompressionCodec::Lz4Frame),
        ..Default::default()
    };
    let codecs = ThreadedCodecs::with_codecs(2, || WithCodec::new(Panicking, BuiltinCodecs::new()));
    let mut w = StreamWriter::try_new_with_codecs_in(Vec::new(), batch.schema(), o, codecs, Global)
        .unwrap();
    let e = w.write(&batch).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ExecutorFailed);
    assert_eq!(
        w.write(&batch).unwrap_err().kind(),
        ErrorKind::InvalidBuilderState
    );
}
