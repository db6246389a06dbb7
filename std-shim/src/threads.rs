//! Parallel compression and decompression of IPC bodies: [`ThreadedCodecs`],
//! a codec set whose [`BodyExecutor`] spreads a batch's buffers over several
//! threads (as Arrow C++'s `IpcWriteOptions::use_threads`), for every core
//! reader and writer that takes a codec set.

use std::cmp::Reverse;
use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Mutex;
use std::thread;

use alkaid::ipc::compression::{BodyExecutor, BodyJob, Codec, CodecSet};
use alkaid::ipc::message::CompressionCodec;

use crate::codecs::StdCodecs;

/// A [`CodecSet`] that compresses and decompresses the buffers of one batch
/// body on up to `threads` threads at once (`std::thread::scope`; the
/// calling thread takes a share), with one codec set per thread made by the
/// same function, so that every buffer is compressed exactly as one codec
/// set alone would: the bytes written are those of the single-threaded
/// writer, and readers return the same batches.
///
/// Each buffer is one job (IPC bodies compress every buffer on its own);
/// jobs are taken largest first by whichever thread is free. A body whose
/// compressed buffers add up to fewer than [`Self::min_bytes`] uncompressed
/// bytes, or that has a single one, is done on the calling thread alone, as without
/// threads, so small batches cost nothing extra. Pass it wherever a codec
/// set goes: `StreamWriter::try_new_with_codecs_in`, `FileWriter`,
/// `StreamEncoder`, the async writers, `SliceStreamReader`, `StreamReader`,
/// `FileReader`, `StreamDecoder` (`try_new_with_codecs_in`), and
/// [`VectoredStreamWriter::try_new_with_codecs`](crate::VectoredStreamWriter::try_new_with_codecs).
///
/// A job that fails (a codec error, e.g. allocation of a ZSTD context) is
/// reported as the writer's or reader's usual error; a worker thread that
/// panics is reported as [`alkaid::Error::ExecutorFailed`], and a thread
/// the operating system refuses to start leaves its share to the calling
/// thread.
///
/// ```
/// use alkaid::ipc::reader::{IpcReadOptions, SliceStreamReader};
/// use alkaid::ipc::writer::StreamWriter;
/// use alkaid_std::array::{Array, Int64Array, RecordBatch};
/// use alkaid_std::{CompressionCodec, Global, IpcWriteOptions, StdCodecs, ThreadedCodecs};
///
/// let batch = RecordBatch::try_from_iter([
///     ("a", Int64Array::from_iter_values(0..100_000).into_array_ref()),
///     ("b", Int64Array::from_iter_values((0..100_000).map(|v| v % 7)).into_array_ref()),
/// ])?;
/// let options = IpcWriteOptions { compression: Some(CompressionCodec::Zstd), ..Default::default() };
/// let write = |codecs| -> alkaid::Result<Vec<u8>> {
///     let mut w = StreamWriter::try_new_with_codecs_in(Vec::new(), batch.schema(), options, codecs, Global)?;
///     w.write(&batch)?;
///     w.finish()?;
///     Ok(w.into_inner())
/// };
/// let one = write(ThreadedCodecs::new(1))?;
/// let two = write(ThreadedCodecs::new(2))?;
/// assert_eq!(one, two); // the same bytes
/// assert_eq!(one, write(ThreadedCodecs::with_codecs(1, StdCodecs::default))?);
///
/// let back = SliceStreamReader::try_new_with_codecs_in(&two, IpcReadOptions::default(), ThreadedCodecs::new(2), Global)?;
/// assert_eq!(back.collect::<alkaid::Result<Vec<_>>>()?, [batch]);
/// # Ok::<(), alkaid::Error>(())
/// ```
pub struct ThreadedCodecs<S = StdCodecs> {
    /// One codec set per thread; the first is the calling thread's and the
    /// one [`CodecSet::get`] returns from.
    sets: Vec<S>,
    min_bytes: usize,
}

impl ThreadedCodecs<StdCodecs> {
    /// [`StdCodecs`] (LZ4 frame, ZSTD at level 3) on up to `threads`
    /// threads (0 counts as 1: no thread is started).
    pub fn new(threads: usize) -> Self {
        Self::with_codecs(threads, StdCodecs::default)
    }
}

impl<S> ThreadedCodecs<S> {
    /// The default of [`Self::min_bytes`]: 256 KiB.
    pub const DEFAULT_MIN_BYTES: usize = 256 << 10;

    /// Codec sets made by `make` (called once per thread; each must write
    /// the same bytes, e.g. ZSTD at one level) on up to `threads` threads
    /// (0 counts as 1).
    pub fn with_codecs(threads: usize, make: impl FnMut() -> S) -> Self {
        ThreadedCodecs {
            sets: std::iter::repeat_with(make).take(threads.max(1)).collect(),
            min_bytes: Self::DEFAULT_MIN_BYTES,
        }
    }

    /// Bodies whose compressed buffers hold fewer than `bytes`
    /// uncompressed bytes in all stay on the calling thread (0: every body
    /// of two buffers or more is spread).
    pub fn with_min_bytes(mut self, bytes: usize) -> Self {
        self.min_bytes = bytes;
        self
    }

    /// The most threads a body is spread over (the calling thread counts).
    pub fn threads(&self) -> usize {
        self.sets.len()
    }

    /// The smallest body, in uncompressed bytes of its compressed buffers,
    /// spread over threads.
    pub fn min_bytes(&self) -> usize {
        self.min_bytes
    }
}

/// One codec set on the calling thread alone: no thread is started, and
/// the set compresses exactly as it does outside a `ThreadedCodecs`. The
/// shim's writers and readers turn a plain [`StdCodecs`] into this.
impl<S> From<S> for ThreadedCodecs<S> {
    fn from(set: S) -> Self {
        ThreadedCodecs {
            sets: vec![set],
            min_bytes: Self::DEFAULT_MIN_BYTES,
        }
    }
}

impl<S> fmt::Debug for ThreadedCodecs<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ThreadedCodecs")
            .field("threads", &self.sets.len())
            .field("min_bytes", &self.min_bytes)
            .finish_non_exhaustive()
    }
}

impl<S: CodecSet + Send> CodecSet for ThreadedCodecs<S> {
    fn get(&mut self, codec: CompressionCodec) -> Option<&mut dyn Codec> {
        self.sets.first_mut()?.get(codec)
    }

    fn executor(&mut self) -> Option<&mut dyn BodyExecutor> {
        (self.sets.len() > 1).then_some(self as &mut dyn BodyExecutor)
    }
}

/// The jobs of one body, largest first, that the threads take one at a
/// time.
type Queue<'q, 'j> = Mutex<std::vec::IntoIter<&'q mut BodyJob<'j>>>;

/// Runs jobs from `queue` with `set` until it is empty; `false` when a job
/// panicked (the job is left without an outcome, which the reader or writer
/// reports).
fn drain<S: CodecSet>(queue: &Queue<'_, '_>, set: &mut S) -> bool {
    catch_unwind(AssertUnwindSafe(|| loop {
        // The lock is released before the job runs.
        let next = match queue.lock() {
            Ok(mut q) => q.next(),
            Err(poisoned) => poisoned.into_inner().next(),
        };
        let Some(job) = next else { break };
        job.run(set);
    }))
    .is_ok()
}

impl<S: CodecSet + Send> BodyExecutor for ThreadedCodecs<S> {
    fn wants(&self, jobs: usize, bytes: usize) -> bool {
        self.sets.len() > 1 && jobs > 1 && bytes >= self.min_bytes
    }

    fn execute(&mut self, jobs: &mut [BodyJob<'_>]) -> alkaid::Result<()> {
        let n = self.sets.len().min(jobs.len()).max(1);
        // Largest first; each thread takes the next job when it is free, so
        // the threads balance by the time jobs really take (compression
        // speed varies with the data), not by their sizes.
        let mut order: Vec<&mut BodyJob<'_>> = jobs.iter_mut().collect();
        order.sort_by_key(|j| Reverse(j.cost()));
        let queue: Queue<'_, '_> = Mutex::new(order.into_iter());
        let Some((mine, others)) = self.sets.split_first_mut() else {
            return Err(alkaid::Error::ExecutorFailed);
        };
        thread::scope(|scope| {
            // A thread the system refuses to start leaves its jobs to the
            // others (the calling thread at least).
            let handles: Vec<_> = others
                .iter_mut()
                .take(n - 1)
                .filter_map(|set| {
                    let queue = &queue;
                    thread::Builder::new()
                        .name("alkaid-codec".into())
                        .spawn_scoped(scope, move || drain(queue, set))
                        .ok()
                })
                .collect();
            let mut ok = drain(&queue, mine);
            for h in handles {
                ok &= h.join().unwrap_or(false);
            }
            if ok {
                Ok(())
            } else {
                Err(alkaid::Error::ExecutorFailed)
            }
        })
    }
}
