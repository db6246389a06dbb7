//! Bodies compressed and decompressed through a `BodyExecutor`: the bytes
//! and batches of the sequential path whatever order the jobs run in;
//! every allocation failure an error without a leak; an executor that
//! leaves jobs unrun or moves them refused on write and ignored on read.

use core::cell::Cell;
use std::rc::Rc;
use std::vec::Vec;

use super::encoder_tests::batch_in;
use super::{CompressionCodec, FileEncoder, IpcWriteOptions, StreamWriter};
use crate::array::RecordBatch;
use crate::error::Error;
use crate::ipc::compression::{BodyExecutor, BodyJob, BuiltinCodecs, Codec, CodecSet};
use crate::ipc::reader::{IpcReadOptions, SliceStreamReader};
use crate::ipc::roundtrip_tests::sample_batch;
use crate::test_support::{check_every_failure, counting, TestAlloc};

use allocator_api2::alloc::Allocator;

use crate::Global as G;

/// How a test executor treats the jobs it is given.
#[derive(Clone, Copy, PartialEq)]
enum Mode {
    /// Runs them all, last first.
    Reverse,
    /// Runs all but the last.
    SkipLast,
    /// Swaps the first two, then runs them all.
    Swap,
}

/// The built-in codecs with an executor that runs every body's jobs on
/// the calling thread in `mode`, counting the bodies.
struct TestExecutor {
    main: BuiltinCodecs,
    worker: BuiltinCodecs,
    mode: Mode,
    bodies: Rc<Cell<usize>>,
}

/// A test executor in `mode` and the count of bodies it is given.
fn executor(mode: Mode) -> (TestExecutor, Rc<Cell<usize>>) {
    let bodies = Rc::new(Cell::new(0));
    let x = TestExecutor {
        main: BuiltinCodecs::new(),
        worker: BuiltinCodecs::new(),
        mode,
        bodies: bodies.clone(),
    };
    (x, bodies)
}

impl CodecSet for TestExecutor {
    fn get(&mut self, codec: CompressionCodec) -> Option<&mut dyn Codec> {
        self.main.get(codec)
    }
    fn executor(&mut self) -> Option<&mut dyn BodyExecutor> {
        Some(self)
    }
}

impl BodyExecutor for TestExecutor {
    fn wants(&self, jobs: usize, _bytes: usize) -> bool {
        jobs > 1
    }
    fn execute(&mut self, jobs: &mut [BodyJob<'_>]) -> crate::Result<()> {
        self.bodies.set(self.bodies.get() + 1);
        let n = jobs.len();
        match self.mode {
            Mode::Reverse => jobs.iter_mut().rev().for_each(|j| j.run(&mut self.worker)),
            Mode::SkipLast => jobs[..n - 1]
                .iter_mut()
                .for_each(|j| j.run(&mut self.worker)),
            Mode::Swap => {
                jobs.swap(0, 1);
                jobs.iter_mut().for_each(|j| j.run(&mut self.worker));
            }
        }
        Ok(())
    }
}

fn lz4() -> IpcWriteOptions {
    IpcWriteOptions {
        compression: Some(CompressionCodec::Lz4Frame),
        ..Default::default()
    }
}

/// The LZ4 stream of `batches` written with `codecs`.
fn stream_with<A: Allocator + Clone, S: CodecSet>(
    batches: &[RecordBatch<'static, A>],
    codecs: S,
    alloc: A,
) -> crate::Result<Vec<u8>> {
    let mut w = StreamWriter::try_new_with_codecs_in(
        Vec::new(),
        batches[0].schema(),
        lz4(),
        codecs,
        alloc,
    )?;
    for b in batches {
        w.write(b)?;
    }
    w.finish()?;
    Ok(w.into_inner())
}

/// The LZ4 file of `batches` through the file encoder's pieces.
fn file_with<A: Allocator + Clone, S: CodecSet>(
    batches: &[RecordBatch<'static, A>],
    codecs: S,
    alloc: A,
) -> crate::Result<Vec<u8>> {
    let mut e = FileEncoder::try_new_with_codecs_in(batches[0].schema(), lz4(), codecs, alloc)?;
    let mut out = Vec::new();
    let mut append = |pieces: super::Pieces<'_>| pieces.for_each(|p| out.extend_from_slice(p));
    append(e.encode_schema()?.pieces());
    for b in batches {
        append(e.encode_batch(b)?.pieces());
    }
    append(e.finish()?.pieces());
    Ok(out)
}

/// The batches of an LZ4 stream read with `codecs`.
fn read_with<A: Allocator + Clone + 'static, S: CodecSet>(
    bytes: &[u8],
    codecs: S,
    alloc: A,
) -> crate::Result<Vec<RecordBatch<'_, A>>> {
    SliceStreamReader::try_new_with_codecs_in(bytes, IpcReadOptions::default(), codecs, alloc)?
        .collect()
}

/// Jobs run last first give the sequential bytes (stream through the sync
/// writer, file through the encoder's pieces), and the sequential batches
/// back; every body written went through the executor.
#[test]
fn jobs_in_any_order_give_the_sequential_bytes_and_batches() {
    let batches = [sample_batch(0), sample_batch(2), sample_batch(1)];
    let want = stream_with(&batches, BuiltinCodecs::new(), G).unwrap();
    let (x, bodies) = executor(Mode::Reverse);
    assert_eq!(stream_with(&batches, x, G).unwrap(), want);
    assert_eq!(bodies.get(), batches.len());
    let want_file = file_with(&batches, BuiltinCodecs::new(), G).unwrap();
    let (x, bodies) = executor(Mode::Reverse);
    assert_eq!(file_with(&batches, x, G).unwrap(), want_file);
    assert_eq!(bodies.get(), batches.len());
    let (x, bodies) = executor(Mode::Reverse);
    let back = read_with(&want, x, G).unwrap();
    assert_eq!(back, read_with(&want, BuiltinCodecs::new(), G).unwrap());
    assert_eq!(back.len(), batches.len());
    // Bodies with fewer than two compressed buffers (7 rows: most are
    // stored raw) are decoded buffer by buffer.
    assert!(bodies.get() >= 1);
}

/// Every allocation of the parallel write and read paths refused in turn
/// (a batch with a shifted bitmap, rebased offsets and a dictionary):
/// an error or a recovery, no panic, no leak.
#[test]
fn every_allocation_failure_of_the_parallel_paths() {
    let batches = [batch_in(counting(), 0), batch_in(counting(), 1)];
    let want = stream_with(&batches, BuiltinCodecs::new(), counting()).unwrap();
    let n = check_every_failure(|a: TestAlloc| stream_with(&batches, executor(Mode::Reverse).0, a));
    assert!(n > 0);
    let n = check_every_failure(|a: TestAlloc| {
        let back = read_with(&want, executor(Mode::Reverse).0, a)?;
        assert_eq!(back.len(), 2);
        Ok(back.len())
    });
    assert!(n > 0);
}

/// An executor that leaves a job unrun or moves jobs: the writer fails
/// with `Error::ExecutorFailed`; the reader decodes buffer by buffer
/// instead and returns the batches.
#[test]
fn broken_executors_fail_writes_and_are_ignored_by_reads() {
    let batches = [sample_batch(0)];
    let want = stream_with(&batches, BuiltinCodecs::new(), G).unwrap();
    for mode in [Mode::SkipLast, Mode::Swap] {
        let (x, bodies) = executor(mode);
        assert_eq!(
            stream_with(&batches, x, G).unwrap_err(),
            Error::ExecutorFailed
        );
        assert_eq!(bodies.get(), 1);
        let (x, bodies) = executor(mode);
        assert_eq!(read_with(&want, x, G).unwrap(), batches);
        assert_eq!(bodies.get(), 1);
    }
}
