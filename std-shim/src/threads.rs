//! Parallel compression and decompression of IPC bodies: [`ThreadedCodecs`],
//! a codec set whose [`BodyExecutor`] spreads a batch's buffers over several
//! threads (as Arrow C++'s `IpcWriteOptions::use_threads`), for every core
//! reader and writer that takes a codec set.

use std::cmp::Reverse;
use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
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
/// jobs are spread largest first over the threads. A body whose compressed
/// buffers add up to fewer than [`Self::min_bytes`] uncompressed bytes, or
/// that has a single one, is done on the calling thread alone, as without
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

/// Runs `jobs` with `set`; `false` when a job panicked.
fn run_all<S: CodecSet>(jobs: Vec<&mut BodyJob<'_>>, set: &mut S) -> bool {
    catch_unwind(AssertUnwindSafe(|| {
        for j in jobs {
            j.run(set);
        }
    }))
    .is_ok()
}

impl<S: CodecSet + Send> BodyExecutor for ThreadedCodecs<S> {
    fn wants(&self, jobs: usize, bytes: usize) -> bool {
        self.sets.len() > 1 && jobs > 1 && bytes >= self.min_bytes
    }

    fn execute(&mut self, jobs: &mut [BodyJob<'_>]) -> alkaid::Result<()> {
        let n = self.sets.len().min(jobs.len()).max(1);
        // Largest first, each to the least loaded share.
        let mut order: Vec<&mut BodyJob<'_>> = jobs.iter_mut().collect();
        order.sort_by_key(|j| Reverse(j.cost()));
        let mut shares: Vec<(usize, Vec<&mut BodyJob<'_>>)> =
            (0..n).map(|_| (0, Vec::new())).collect();
        for j in order {
            let least = (0..n).min_by_key(|&i| shares[i].0).unwrap_or(0);
            if let Some(s) = shares.get_mut(least) {
                s.0 += j.cost();
                s.1.push(j);
            }
        }
        let mut shares = shares.into_iter().map(|(_, jobs)| jobs);
        let mut sets = self.sets.iter_mut();
        let mine = shares.next().unwrap_or_default();
        let Some(my_set) = sets.next() else {
            return Err(alkaid::Error::ExecutorFailed);
        };
        thread::scope(|scope| {
            let mut handles = Vec::new();
            let mut refused = Vec::new();
            for (share, set) in shares.zip(sets) {
                // A share whose thread cannot start is run here.
                let (tx, rx) = std::sync::mpsc::channel();
                let started = thread::Builder::new()
                    .name("alkaid-codec".into())
                    .spawn_scoped(scope, move || {
                        let share = rx.recv().unwrap_or_default();
                        run_all(share, set)
                    });
                match started {
                    Ok(h) => {
                        if let Err(back) = tx.send(share) {
                            refused.push(back.0);
                        }
                        handles.push(h);
                    }
                    Err(_) => refused.push(share),
                }
            }
            let mut ok = run_all(mine, &mut *my_set);
            for share in refused {
                ok &= run_all(share, &mut *my_set);
            }
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
