//! IPC body compression: our stream writer and readers against arrow-rs
//! (`arrow-ipc` 60, features `lz4` and `zstd`) on the same batches, with
//! LZ4 frame and with ZSTD at the same level (3, both sides' default).
//!
//! `cargo bench -p alkaid-tests-arrow-rs --bench ipc_compression` prints, for each
//! codec and operation, our median thread CPU time, arrow-rs's, and the
//! ratio (arrow-rs time / our time: above 1 means we are faster; the
//! wall-clock ratio in parentheses), all from one run. Runs alternate
//! between the two sides so that drift hits both; CPU time leaves out the
//! time spent waiting for a CPU on a shared machine.
//!
//! Data: 16 batches × 65,536 rows of `i: int64` (nullable, 1 in 16 null,
//! values below 10⁶), `f: float64` (prices with two decimals) and
//! `s: utf8` (0–23 bytes, words of lowercase letters; 1 in 32 null),
//! generated deterministically and given to arrow-rs by value.
//!
//! Note: cargo unifies crate features within one build, so both sides run
//! the same `lz4_flex` block code here: the fast (non-`safe-*`) encoder and
//! decoder that arrow-ipc uses on its own (the workspace no longer enables
//! `safe-encode`/`safe-decode`). The writes differ in framing, copies and
//! allocations, not in the LZ4 block compressor.
//!
//! A second part writes one batch of a single `s: utf8_view` column whose
//! views point into thousands of 10 KB data buffers (1,000 and 4,000: 10
//! and 40 MB), with each codec: every data buffer is compressed on its
//! own, so this checks that the writer's time grows linearly with the
//! bytes, not with the square of the number of buffers. It prints our time
//! per MB at both sizes (equal when linear), arrow-rs's and the ratio.
//!
//! Options: `--quick` (fewer runs), `--runs N`, `--filter TEXT` (only the
//! lines whose label contains TEXT, e.g. for a profiler),
//! `--dynamic-malloc` (leave glibc's adaptive mmap/trim thresholds alone;
//! see `pin_malloc`).

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use alkaid::array::{Array, ByteView, PrimitiveArray, RecordBatch, StringArray, StringViewArray};
use alkaid::buffer::{Buffer, SharedSlice};
use alkaid::datatypes::{DataType, Field, Schema};
use alkaid::ipc::compression::{BuiltinCodecs, CodecSet};
use alkaid::ipc::message::CompressionCodec;
use alkaid::ipc::reader::{IpcReadOptions, SliceStreamReader, StreamReader};
use alkaid::ipc::writer::{IpcWriteOptions, StreamWriter};
use alkaid::Global;
use alkaid_std::{StdCodecs, ThreadedCodecs};

use arrow_array::{
    Array as _, ArrayRef as ArrowArrayRef, Float64Array, Int64Array, RecordBatch as ArrowBatch,
    StringArray as ArrowStringArray, StringViewArray as ArrowStringViewArray,
};
use arrow_ipc::writer::{IpcWriteOptions as ArrowWriteOptions, StreamWriter as ArrowStreamWriter};
use arrow_ipc::CompressionType;
use arrow_schema::{DataType as ArrowType, Field as ArrowField, Schema as ArrowSchema};

const BATCHES: usize = 16;
const ROWS: usize = 65_536;

/// Both writers write into a `Vec` with room for the whole uncompressed
/// stream (33 MB) reserved up front, as in `benches/ipc.rs`: growing the
/// sink is the caller's business and would add the same reallocations and
/// page faults to both sides (how many depended on the heap state).
const SINK_CAPACITY: usize = 40 << 20;

fn sink() -> Vec<u8> {
    Vec::with_capacity(SINK_CAPACITY)
}

/// The columns of one batch, by value.
struct Columns {
    i: Vec<Option<i64>>,
    f: Vec<f64>,
    s: Vec<Option<String>>,
}

/// xorshift64*.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

fn generate() -> Vec<Columns> {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    (0..BATCHES)
        .map(|_| {
            let mut c = Columns {
                i: Vec::with_capacity(ROWS),
                f: Vec::with_capacity(ROWS),
                s: Vec::with_capacity(ROWS),
            };
            for _ in 0..ROWS {
                let r = rng.next();
                c.i.push((r & 15 != 0).then_some(((r >> 8) % 1_000_000) as i64));
                c.f.push(((r >> 32) % 100_000) as f64 / 100.0);
                let r2 = rng.next();
                if r2 & 31 == 0 {
                    c.s.push(None);
                } else {
                    let len = ((r2 >> 8) % 24) as usize;
                    let word: String = (0..len)
                        .map(|k| (b'a' + ((r2 >> (16 + k % 40)) % 26) as u8) as char)
                        .collect();
                    c.s.push(Some(word));
                }
            }
            c
        })
        .collect()
}

fn ours(cols: &[Columns]) -> (Schema<'static, Global>, Vec<RecordBatch<'static, Global>>) {
    let fields = SharedSlice::try_from_iter_in(
        [
            Field::new("i", DataType::Int64, true),
            Field::new("f", DataType::Float64, false),
            Field::new("s", DataType::Utf8, true),
        ],
        Global,
    )
    .unwrap();
    let schema = Schema::new(fields);
    let batches = cols
        .iter()
        .map(|c| {
            let f: Vec<Option<f64>> = c.f.iter().copied().map(Some).collect();
            let s: Vec<Option<&str>> = c.s.iter().map(Option::as_deref).collect();
            let f = PrimitiveArray::<f64, Global>::try_from_options_in(&f, Global).unwrap();
            let arrays = [
                PrimitiveArray::<i64, Global>::try_from_options_in(&c.i, Global)
                    .unwrap()
                    .into_array_ref(),
                f.into_array_ref(),
                StringArray::<Global>::try_from_options_in(&s, Global)
                    .unwrap()
                    .into_array_ref(),
            ];
            RecordBatch::try_new(
                schema.clone(),
                SharedSlice::try_from_iter_in(arrays, Global).unwrap(),
            )
            .unwrap()
        })
        .collect();
    (schema, batches)
}

fn arrow(cols: &[Columns]) -> (Arc<ArrowSchema>, Vec<ArrowBatch>) {
    let schema = Arc::new(ArrowSchema::new(vec![
        ArrowField::new("i", ArrowType::Int64, true),
        ArrowField::new("f", ArrowType::Float64, false),
        ArrowField::new("s", ArrowType::Utf8, true),
    ]));
    let batches = cols
        .iter()
        .map(|c| {
            let arrays: Vec<ArrowArrayRef> = vec![
                Arc::new(Int64Array::from(c.i.clone())),
                Arc::new(Float64Array::from(c.f.clone())),
                Arc::new(ArrowStringArray::from(
                    c.s.iter().map(Option::as_deref).collect::<Vec<_>>(),
                )),
            ];
            ArrowBatch::try_new(schema.clone(), arrays).unwrap()
        })
        .collect();
    (schema, batches)
}

fn write_ours<S: CodecSet>(
    schema: &Schema<'static, Global>,
    batches: &[RecordBatch<'static, Global>],
    codec: Option<CompressionCodec>,
    codecs: S,
) -> Vec<u8> {
    let options = IpcWriteOptions {
        compression: codec,
        ..Default::default()
    };
    let mut w =
        StreamWriter::try_new_with_codecs_in(sink(), schema, options, codecs, Global).unwrap();
    for b in batches {
        w.write(b).unwrap();
    }
    w.finish().unwrap();
    w.into_inner()
}

fn read_ours_slice<S: CodecSet>(bytes: &[u8], codecs: S) -> usize {
    let r =
        SliceStreamReader::try_new_with_codecs_in(bytes, IpcReadOptions::default(), codecs, Global)
            .unwrap();
    r.map(|b| black_box(b.unwrap()).num_rows()).sum()
}

fn read_ours_stream<S: CodecSet>(bytes: &[u8], codecs: S) -> usize {
    let r = StreamReader::try_new_with_codecs_in(bytes, IpcReadOptions::default(), codecs, Global)
        .unwrap();
    r.map(|b| black_box(b.unwrap()).num_rows()).sum()
}

fn write_arrow(schema: &ArrowSchema, batches: &[ArrowBatch], codec: CompressionType) -> Vec<u8> {
    let options = ArrowWriteOptions::default()
        .try_with_compression(Some(codec))
        .unwrap();
    let mut w = ArrowStreamWriter::try_new_with_options(sink(), schema, options).unwrap();
    for b in batches {
        w.write(b).unwrap();
    }
    w.finish().unwrap();
    w.into_inner().unwrap()
}

fn read_arrow(bytes: &[u8]) -> usize {
    let r = arrow_ipc::reader::StreamReader::try_new(bytes, None).unwrap();
    r.map(|b| black_box(b.unwrap()).num_rows()).sum()
}

/// Bytes of each data buffer of the many-buffers case.
const VIEW_BUFFER_BYTES: usize = 10_000;
/// Bytes of each value of the many-buffers case (100 per data buffer).
const VIEW_VALUE_BYTES: usize = 100;

/// One batch of one `utf8_view` column over `n` data buffers of
/// [`VIEW_BUFFER_BYTES`] lowercase letters (words from a small alphabet,
/// so that both codecs compress them), each cut into values of
/// [`VIEW_VALUE_BYTES`]; the same batch for both sides.
fn many_buffers(n: usize) -> (RecordBatch<'static, Global>, ArrowBatch) {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D ^ n as u64);
    let data: Vec<Vec<u8>> = (0..n)
        .map(|_| {
            (0..VIEW_BUFFER_BYTES)
                .map(|_| b'a' + (rng.next() % 8) as u8)
                .collect()
        })
        .collect();
    let mut views = Vec::new();
    for (b, bytes) in data.iter().enumerate() {
        for at in (0..VIEW_BUFFER_BYTES).step_by(VIEW_VALUE_BYTES) {
            let v = &bytes[at..at + VIEW_VALUE_BYTES];
            views.push(ByteView::try_new(v, b, at).unwrap());
        }
    }
    let view_bytes: Vec<u8> = views.iter().flat_map(|v| v.to_bytes()).collect();
    let buffers = SharedSlice::try_from_iter_in(
        data.iter().map(|d| Buffer::try_copy_in(d, Global).unwrap()),
        Global,
    )
    .unwrap();
    let ours = StringViewArray::<Global>::try_new(
        Buffer::try_copy_in(&view_bytes, Global).unwrap(),
        buffers,
        None,
    )
    .unwrap();
    let schema = Schema::new(
        SharedSlice::try_from_iter_in([Field::new("s", DataType::Utf8View, false)], Global)
            .unwrap(),
    );
    let ours = RecordBatch::try_new(
        schema,
        SharedSlice::try_from_iter_in([ours.into_array_ref()], Global).unwrap(),
    )
    .unwrap();
    let theirs = ArrowStringViewArray::try_new(
        views
            .iter()
            .map(|v| v.to_u128())
            .collect::<arrow_buffer::ScalarBuffer<u128>>(),
        data.into_iter()
            .map(arrow_buffer::Buffer::from_vec::<u8>)
            .collect::<Vec<_>>(),
        None,
    )
    .unwrap();
    let aschema = Arc::new(ArrowSchema::new(vec![ArrowField::new(
        "s",
        ArrowType::Utf8View,
        false,
    )]));
    let theirs = ArrowBatch::try_new(aschema, vec![Arc::new(theirs) as ArrowArrayRef]).unwrap();
    (ours, theirs)
}

/// The many-buffers case: for each codec, our write time per MB with 1,000
/// and with 4,000 data buffers (linear in the bytes when both are equal),
/// arrow-rs's, and the ratio.
fn many_buffers_case(filter: Option<&str>, runs: usize) {
    let cases: Vec<_> = [1_000, 4_000]
        .into_iter()
        .map(|n| (n, many_buffers(n)))
        .collect();
    println!(
        "\nOne batch of one utf8_view column over N data buffers of {VIEW_BUFFER_BYTES} bytes \
         (each compressed on its own); time per MB of uncompressed body:"
    );
    for (name, ours_codec, arrow_codec) in [
        (
            "LZ4",
            CompressionCodec::Lz4Frame,
            CompressionType::LZ4_FRAME,
        ),
        ("ZSTD", CompressionCodec::Zstd, CompressionType::ZSTD),
    ] {
        for (n, (batch, abatch)) in &cases {
            let what = format!("{name} write, {n} data buffers");
            if filter.is_some_and(|f| !what.contains(f)) {
                continue;
            }
            let schema = batch.schema().clone();
            let batches = std::slice::from_ref(batch);
            let mb = write_ours(&schema, batches, None, BuiltinCodecs::new()).len() as f64 / 1e6;
            // Both read back what was written.
            let ob = write_ours(&schema, batches, Some(ours_codec), StdCodecs::default());
            let back: Vec<_> = SliceStreamReader::try_new_with_codecs_in(
                &ob[..],
                IpcReadOptions::default(),
                StdCodecs::default(),
                Global,
            )
            .unwrap()
            .map(|b| b.unwrap())
            .collect();
            assert_eq!(back, batches);
            assert_eq!(read_arrow(&ob), batch.num_rows());
            let (o, t) = compare(
                runs,
                || {
                    black_box(write_ours(
                        &schema,
                        batches,
                        Some(ours_codec),
                        StdCodecs::default(),
                    ));
                },
                || {
                    black_box(write_arrow(
                        &abatch.schema(),
                        std::slice::from_ref(abatch),
                        arrow_codec,
                    ));
                },
            );
            println!(
                "{what:<34} ours {:>7.2} ms/MB   arrow-rs {:>7.2} ms/MB   ratio {:>5.2}x ({:.1} MB)",
                o.cpu.as_secs_f64() * 1e3 / mb,
                t.cpu.as_secs_f64() * 1e3 / mb,
                t.cpu.as_secs_f64() / o.cpu.as_secs_f64(),
                mb,
            );
        }
    }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// CPU time of the calling thread (every codec here runs on it): time spent
/// waiting for a CPU on a shared machine is not counted.
fn thread_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable `timespec`; the clock id is a constant
    // Linux supports.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID)");
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// CPU time of the whole process (every thread, the codec threads of
/// `ThreadedCodecs` included).
fn process_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: as in `thread_cpu`.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_PROCESS_CPUTIME_ID)");
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// Median thread CPU time, median wall time and median process CPU time
/// of one side.
struct Times {
    cpu: Duration,
    wall: Duration,
    all: Duration,
}

#[derive(Default)]
struct Samples {
    cpu: Vec<Duration>,
    wall: Vec<Duration>,
    all: Vec<Duration>,
}

impl Samples {
    fn medians(self) -> Times {
        Times {
            cpu: median(self.cpu),
            wall: median(self.wall),
            all: median(self.all),
        }
    }
}

fn time(f: &mut impl FnMut(), s: &mut Samples) {
    let (c, p, t) = (thread_cpu(), process_cpu(), Instant::now());
    f();
    s.cpu.push(thread_cpu() - c);
    s.all.push(process_cpu() - p);
    s.wall.push(t.elapsed());
}

/// Times `a` and `b` alternately (one warm-up each, then `runs` each) and
/// returns their medians.
fn compare(runs: usize, mut a: impl FnMut(), mut b: impl FnMut()) -> (Times, Times) {
    a();
    b();
    let (mut sa, mut sb) = (Samples::default(), Samples::default());
    for _ in 0..runs {
        time(&mut a, &mut sa);
        time(&mut b, &mut sb);
    }
    (sa.medians(), sb.medians())
}

/// Compares and prints one line, unless `filter` excludes `what`.
fn measure(
    what: &str,
    filter: Option<&str>,
    runs: usize,
    mb: f64,
    a: impl FnMut(),
    b: impl FnMut(),
) {
    if filter.is_some_and(|f| !what.contains(f)) {
        return;
    }
    let (o, t) = compare(runs, a, b);
    line(what, o, t, mb);
}

/// [`measure`] for our side on several threads: thread CPU time leaves out
/// the other threads' work, so this line gives wall times (medians) and
/// their ratio, then (in parentheses) the CPU-time ratio of the calling
/// threads and each side's CPU time over all its threads (what the threads
/// cost in all: on a machine with idle cores the wall time approaches the
/// busiest thread's CPU time; on a loaded one the scheduler's share
/// decides).
fn measure_wall(
    what: &str,
    filter: Option<&str>,
    runs: usize,
    mb: f64,
    a: impl FnMut(),
    b: impl FnMut(),
) {
    if filter.is_some_and(|f| !what.contains(f)) {
        return;
    }
    let (ours, theirs) = compare(runs, a, b);
    println!(
        "{what:<34} ours {:>8.2} ms ({:>5.0} MB/s)   arrow-rs {:>8.2} ms ({:>5.0} MB/s)   ratio {:>5.2}x WALL \
         (CPU: calling thread {:.2}x, all threads ours {:.2} ms / arrow-rs {:.2} ms)",
        ours.wall.as_secs_f64() * 1e3,
        mb / ours.wall.as_secs_f64(),
        theirs.wall.as_secs_f64() * 1e3,
        mb / theirs.wall.as_secs_f64(),
        theirs.wall.as_secs_f64() / ours.wall.as_secs_f64(),
        theirs.cpu.as_secs_f64() / ours.cpu.as_secs_f64(),
        ours.all.as_secs_f64() * 1e3,
        theirs.all.as_secs_f64() * 1e3,
    );
}

/// Thread CPU times, throughput, the CPU-time ratio and (in parentheses) the
/// wall-clock ratio.
fn line(what: &str, ours: Times, theirs: Times, mb: f64) {
    println!(
        "{what:<34} ours {:>8.2} ms ({:>5.0} MB/s)   arrow-rs {:>8.2} ms ({:>5.0} MB/s)   ratio {:>5.2}x ({:.2}x wall)",
        ours.cpu.as_secs_f64() * 1e3,
        mb / ours.cpu.as_secs_f64(),
        theirs.cpu.as_secs_f64() * 1e3,
        mb / theirs.cpu.as_secs_f64(),
        theirs.cpu.as_secs_f64() / ours.cpu.as_secs_f64(),
        theirs.wall.as_secs_f64() / ours.wall.as_secs_f64(),
    );
}

/// Both sides share this process's glibc heap, whose mmap and trim
/// thresholds adapt to the allocation history: depending on what the other
/// side allocated and freed before, the same allocation is served from warm
/// heap memory or from fresh pages (page faults and zeroing by the kernel),
/// which moved arrow-rs's LZ4 read between 19 and 100 ms, and both sides'
/// LZ4 write by 20%, with identical code. Pinning the thresholds (nothing
/// below 64 MiB, the sink included, is mmapped; the heap is never trimmed,
/// so pages once touched stay) removes that coupling: every side reuses
/// warm memory, and the figures compare the code, not the kernel's page
/// provisioning. `--dynamic-malloc` keeps glibc's defaults.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn pin_malloc() {
    const MIB_64: libc::c_int = 64 << 20;
    // SAFETY: `mallopt` only sets glibc allocator parameters; called before
    // any other thread exists.
    unsafe {
        assert_eq!(libc::mallopt(libc::M_MMAP_THRESHOLD, MIB_64), 1);
        assert_eq!(libc::mallopt(libc::M_TRIM_THRESHOLD, libc::c_int::MAX), 1);
    }
}

/// Other allocators: nothing to pin.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn pin_malloc() {}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let pinned = !args.iter().any(|a| a == "--dynamic-malloc");
    if pinned {
        pin_malloc();
    }
    let mut runs = if args.iter().any(|a| a == "--quick") {
        3
    } else {
        11
    };
    let filter = args
        .iter()
        .position(|a| a == "--filter")
        .and_then(|i| args.get(i + 1))
        .map(String::as_str);
    if let Some(i) = args.iter().position(|a| a == "--runs") {
        runs = args.get(i + 1).and_then(|n| n.parse().ok()).unwrap_or(runs);
    }
    // `cargo test --benches` runs this with `--bench`-less arguments; stay
    // quick there.
    if args.iter().any(|a| a == "--test") || !args.iter().any(|a| a == "--bench") && runs == 11 {
        runs = runs.min(3);
    }

    let cols = generate();
    let (schema, batches) = ours(&cols);
    let (aschema, abatches) = arrow(&cols);
    let plain = write_ours(&schema, &batches, None, BuiltinCodecs::new());
    let plain_len = plain.len();
    let mb = plain_len as f64 / 1e6;
    println!(
        "{BATCHES} batches x {ROWS} rows (int64 nullable, float64, utf8 0-23 bytes): \
         {:.1} MB uncompressed; median of {runs} runs each; glibc malloc {}",
        mb,
        if pinned {
            "pinned (no mmap below 64 MiB, no trim); sinks pre-reserved"
        } else {
            "dynamic (--dynamic-malloc)"
        }
    );

    for (name, ours_codec, arrow_codec) in [
        (
            "LZ4",
            CompressionCodec::Lz4Frame,
            CompressionType::LZ4_FRAME,
        ),
        ("ZSTD", CompressionCodec::Zstd, CompressionType::ZSTD),
    ] {
        let ob = write_ours(&schema, &batches, Some(ours_codec), StdCodecs::default());
        let ab = write_arrow(&aschema, &abatches, arrow_codec);
        // Both read back what was written, and each other's output.
        let got: Vec<_> = SliceStreamReader::try_new_with_codecs_in(
            &ob[..],
            IpcReadOptions::default(),
            StdCodecs::default(),
            Global,
        )
        .unwrap()
        .map(|b| b.unwrap())
        .collect();
        assert_eq!(got, batches);
        let total = BATCHES * ROWS;
        assert_eq!(read_arrow(&ob), total);
        assert_eq!(read_arrow(&ab), total);
        assert_eq!(read_ours_slice(&ab, StdCodecs::default()), total);
        assert_eq!(
            abatches[0].column(0).null_count(),
            batches[0].columns()[0].null_count()
        );
        println!(
            "\n{name}: ours {:.1} MB ({:.1}% of uncompressed), arrow-rs {:.1} MB ({:.1}%)",
            ob.len() as f64 / 1e6,
            100.0 * ob.len() as f64 / plain_len as f64,
            ab.len() as f64 / 1e6,
            100.0 * ab.len() as f64 / plain_len as f64,
        );

        measure(
            &format!("{name} stream write"),
            filter,
            runs,
            mb,
            || {
                black_box(write_ours(
                    &schema,
                    &batches,
                    Some(ours_codec),
                    StdCodecs::default(),
                ));
            },
            || {
                black_box(write_arrow(&aschema, &abatches, arrow_codec));
            },
        );
        measure(
            &format!("{name} stream read (own output)"),
            filter,
            runs,
            mb,
            || {
                black_box(read_ours_slice(&ob, StdCodecs::default()));
            },
            || {
                black_box(read_arrow(&ab));
            },
        );
        measure(
            &format!("{name} read arrow-rs's bytes"),
            filter,
            runs,
            mb,
            || {
                black_box(read_ours_slice(&ab, StdCodecs::default()));
            },
            || {
                black_box(read_arrow(&ab));
            },
        );
        measure(
            &format!("{name} read via io::Read"),
            filter,
            runs,
            mb,
            || {
                black_box(read_ours_stream(&ob, StdCodecs::default()));
            },
            || {
                black_box(read_arrow(&ab));
            },
        );
        // The same writer and reader with `ThreadedCodecs` on 2 threads
        // (the same bytes: checked here), against arrow-rs on one; wall
        // time.
        let threaded = write_ours(&schema, &batches, Some(ours_codec), ThreadedCodecs::new(2));
        assert!(threaded == ob, "{name}: 2 threads wrote other bytes");
        assert_eq!(read_ours_slice(&ob, ThreadedCodecs::new(2)), total);
        measure_wall(
            &format!("{name} stream write, 2 threads"),
            filter,
            runs,
            mb,
            || {
                black_box(write_ours(
                    &schema,
                    &batches,
                    Some(ours_codec),
                    ThreadedCodecs::new(2),
                ));
            },
            || {
                black_box(write_arrow(&aschema, &abatches, arrow_codec));
            },
        );
        measure_wall(
            &format!("{name} stream read, 2 threads"),
            filter,
            runs,
            mb,
            || {
                black_box(read_ours_slice(&ob, ThreadedCodecs::new(2)));
            },
            || {
                black_box(read_arrow(&ab));
            },
        );
        if ours_codec == CompressionCodec::Zstd {
            measure(
                "ZSTD read, no_std ruzstd decoder",
                filter,
                runs,
                mb,
                || {
                    black_box(read_ours_slice(&ob, BuiltinCodecs::new()));
                },
                || {
                    black_box(read_arrow(&ab));
                },
            );
        }
    }
    many_buffers_case(filter, runs);
}
