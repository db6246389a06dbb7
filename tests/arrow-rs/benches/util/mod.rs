//! A small benchmark harness shared by the bench binaries: interleaved
//! sampling of several closures, medians, a deterministic PRNG and table
//! printing. No timing assertions: the binaries only print.

#![allow(dead_code)]

use std::time::{Duration, Instant};

/// SplitMix64: deterministic, seedable, good enough for test data.
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed`.
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// `true` with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// `len` random ASCII alphanumerics.
    pub fn alnum(&mut self, len: usize) -> String {
        const CHARS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        (0..len)
            .map(|_| CHARS[self.below(CHARS.len() as u64) as usize] as char)
            .collect()
    }
}

/// Timing budget of one comparison.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// Samples per closure (the median is reported).
    pub samples: usize,
    /// Minimum duration of one sample: the closure runs as many times as
    /// needed (found during warm-up) to fill it.
    pub sample_time: Duration,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            samples: 15,
            sample_time: Duration::from_millis(20),
        }
    }
}

/// CPU time of the calling thread: time spent waiting for a CPU on this
/// shared 2-core machine is not counted (wall time is reported beside it).
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

/// One closure's median time per call.
#[derive(Clone, Copy, Debug)]
pub struct Measure {
    /// Median thread CPU time per call.
    pub cpu: Duration,
    /// Median wall-clock time per call.
    pub wall: Duration,
}

fn time_n(f: &mut dyn FnMut(), n: u64) -> (Duration, Duration) {
    let (c, t) = (thread_cpu(), Instant::now());
    for _ in 0..n {
        f();
    }
    (thread_cpu() - c, t.elapsed())
}

fn median(mut t: Vec<Duration>) -> Duration {
    t.sort();
    t[t.len() / 2]
}

/// Runs every closure of `fs` interleaved (A B C A B C ...) so that they see
/// the same machine load, and returns each one's median time per call.
///
/// Warm-up: each closure runs, doubling its repeat count, until one batch of
/// calls lasts `budget.sample_time` of CPU time; that count is then used for
/// every sample.
pub fn compare(fs: &mut [&mut dyn FnMut()], budget: Budget) -> Vec<Measure> {
    let mut reps = Vec::with_capacity(fs.len());
    for f in fs.iter_mut() {
        let mut n = 1u64;
        loop {
            let (c, _) = time_n(*f, n);
            if c >= budget.sample_time || n >= 1 << 20 {
                break;
            }
            n *= 2;
        }
        reps.push(n);
    }
    let mut cpu: Vec<Vec<Duration>> = vec![Vec::with_capacity(budget.samples); fs.len()];
    let mut wall = cpu.clone();
    for _ in 0..budget.samples {
        for (i, f) in fs.iter_mut().enumerate() {
            let (c, w) = time_n(*f, reps[i]);
            cpu[i].push(c / reps[i] as u32);
            wall[i].push(w / reps[i] as u32);
        }
    }
    cpu.into_iter()
        .zip(wall)
        .map(|(c, w)| Measure {
            cpu: median(c),
            wall: median(w),
        })
        .collect()
}

/// `d` in a fixed-width human unit.
pub fn fmt_time(d: Duration) -> String {
    let ns = d.as_nanos() as f64;
    if ns < 1e3 {
        format!("{ns:.0} ns")
    } else if ns < 1e6 {
        format!("{:.1} µs", ns / 1e3)
    } else if ns < 1e9 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.2} s", ns / 1e9)
    }
}

/// `bytes` per `d` in GB/s (10^9 bytes).
pub fn gbps(bytes: usize, d: Duration) -> f64 {
    bytes as f64 / d.as_secs_f64() / 1e9
}

/// How many times faster `ours` is than `theirs`.
pub fn speedup(ours: Duration, theirs: Duration) -> f64 {
    theirs.as_secs_f64() / ours.as_secs_f64()
}

/// `ours` and `theirs` CPU times, the CPU-time speed-up, and the wall-clock
/// speed-up in parentheses.
pub fn vs(ours: Measure, theirs: Measure) -> [String; 3] {
    [
        fmt_time(ours.cpu),
        fmt_time(theirs.cpu),
        format!(
            "{:.2}× ({:.2}×)",
            speedup(ours.cpu, theirs.cpu),
            speedup(ours.wall, theirs.wall)
        ),
    ]
}

/// A Markdown table printed row by row.
pub struct Table {
    widths: Vec<usize>,
}

impl Table {
    /// Prints the header and the separator line.
    pub fn new(header: &[&str], widths: &[usize]) -> Self {
        let t = Table {
            widths: widths.to_vec(),
        };
        t.row(&header.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        let sep: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
        println!("|-{}-|", sep.join("-|-"));
        t
    }

    /// Prints one row.
    pub fn row(&self, cells: &[String]) {
        let cells: Vec<String> = cells
            .iter()
            .zip(&self.widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        println!("| {} |", cells.join(" | "));
    }
}

/// `"met"` or `"NOT met"` for a ratio against a target.
pub fn verdict(value: f64, target: f64) -> String {
    if value >= target {
        format!("≥ {target}: met")
    } else {
        format!("≥ {target}: NOT met")
    }
}

/// The same array for arrow-rs, zero copy: `a` exported through the C Data
/// Interface (buffers allocated from `alloc`'s clones) and imported by
/// arrow-rs as type `dt`, so both libraries read the very same memory.
///
/// # Panics
/// If the export or the import fails (a bench setup error).
pub fn to_rs<A: alkaid::allocator_api2::alloc::Allocator + Clone + Send + Sync + 'static>(
    a: &alkaid::array::ArrayRef<'static, A>,
    dt: &arrow_schema::DataType,
    alloc: A,
) -> arrow_array::ArrayRef {
    let c = alkaid::ffi::FFI_ArrowArray::try_from_array_in(a, alloc).expect("export");
    // SAFETY: both are the C Data Interface's `struct ArrowArray`, field for
    // field; the value moves (ours is not dropped).
    let c = unsafe {
        std::mem::transmute::<alkaid::ffi::FFI_ArrowArray, arrow_array::ffi::FFI_ArrowArray>(c)
    };
    // SAFETY: a struct we exported, describing an array of type `dt`.
    let data = unsafe { arrow_array::ffi::from_ffi_and_data_type(c, dt.clone()) }
        .expect("arrow-rs import");
    arrow_array::make_array(data)
}
