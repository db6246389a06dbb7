//! Shared oracles of alkaid's fuzz targets.
//!
//! Beyond "no crash", every target checks:
//!
//! - **Validity**: every record batch a reader accepts validates at
//!   [`ValidationLevel::Full`] ([`check_batch`]).
//! - **Round trip**: the accepted batches, written back with `StreamWriter`
//!   and read again with `SliceStreamReader`, are equal to what was read
//!   ([`round_trip`]); decoders (rows, LZ4, ZSTD, extension metadata)
//!   likewise re-encode what they accept and decode it again.
//! - **Agreement**: two readers of the same bytes (`ipc_stream_decoder`:
//!   the push decoder and `SliceStreamReader`; `ipc_file`: `FileReader` and
//!   `FileSeekReader`) accept the same batches and, when both fail, fail
//!   with the same `ErrorKind` (budget refusals aside, see the targets).
//! - **Bounded memory**: the code under test allocates through a
//!   [`Budget`] (alkaid-alloc's `Counting`, over the system allocator)
//!   whose byte limit is derived from the limits in force ([`ipc_cap`],
//!   [`row_cap`], ...). A request that would pass it is refused, and a
//!   refused request is a finding ([`Budget::check`]) — not an error the
//!   target may swallow.
//! - **No hidden heap**: the global allocator of the fuzz binaries counts
//!   what is allocated through it while the code under test runs
//!   ([`global_scope`]); the core must allocate through `A` only. The one
//!   exception is the `ruzstd` decoder behind feature `zstd-decode`, which
//!   allocates its window through the global heap: it gets
//!   [`zstd_global_cap`].
//! - **Time**: bounded by libFuzzer's `-timeout` (the scripts use 10 s).

use core::alloc::{GlobalAlloc, Layout};
use core::ptr::NonNull;
use core::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::alloc::System;

use alkaid::array::{RecordBatch, ValidationLevel};
use alkaid::datatypes::Schema;
use alkaid::ipc::reader::{IpcReadOptions, ReadLimits, SliceStreamReader};
use alkaid::ipc::schema::DecodeLimits;
use alkaid::ipc::writer::{IpcWriteOptions, StreamWriter};
use alkaid_alloc::Counting;
use allocator_api2::alloc::{AllocError, Allocator};

// ---------------------------------------------------------------------------
// Allocators

/// The system allocator as an `allocator_api2` allocator, bypassing the
/// counting global allocator below (so that what the code under test
/// allocates through `A` and through the global heap are told apart).
#[derive(Debug, Clone, Copy, Default)]
pub struct Direct;

// SAFETY: every block comes from `System` with the caller's layout and is
// returned to it with the same layout; zero-sized requests get a dangling,
// aligned pointer that is never passed to `System`.
unsafe impl Allocator for Direct {
    fn allocate(&self, layout: Layout) -> Result<NonNull<[u8]>, AllocError> {
        if layout.size() == 0 {
            // An address equal to the alignment is non-null and aligned.
            let p = NonNull::new(layout.align() as *mut u8).ok_or(AllocError)?;
            return Ok(NonNull::slice_from_raw_parts(p, 0));
        }
        // SAFETY: the layout has a non-zero size.
        let p = unsafe { System.alloc(layout) };
        NonNull::new(p)
            .map(|p| NonNull::slice_from_raw_parts(p, layout.size()))
            .ok_or(AllocError)
    }

    unsafe fn deallocate(&self, ptr: NonNull<u8>, layout: Layout) {
        if layout.size() != 0 {
            // SAFETY: `ptr` came from `System.alloc(layout)` (caller's contract).
            unsafe { System.dealloc(ptr.as_ptr(), layout) }
        }
    }
}

/// The allocator the code under test gets: counted, with a byte limit.
pub type Alloc<'c> = &'c Counting<Direct>;

/// A counting allocator with a cap; exceeding the cap is a finding.
pub struct Budget {
    counting: Counting<Direct>,
    what: &'static str,
}

impl Budget {
    /// A budget of `cap` bytes outstanding at any time for `what`.
    pub fn new(what: &'static str, cap: usize) -> Self {
        Budget {
            counting: Counting::with_limit(Direct, cap),
            what,
        }
    }

    /// The allocator to hand to the code under test.
    pub fn alloc(&self) -> Alloc<'_> {
        &self.counting
    }

    /// Panics (a finding) when any request was refused: the code under test
    /// tried to hold more than the cap derived from its limits.
    pub fn check(&self) {
        let refused = self.counting.failed_requests();
        assert!(
            refused == 0,
            "{}: {} allocation request(s) beyond the cap of {} bytes (peak {} bytes)",
            self.what,
            refused,
            self.counting.limit().unwrap_or(usize::MAX),
            self.counting.peak_bytes(),
        );
    }
}

/// The global allocator of the fuzz binaries: the system allocator, plus a
/// count of the bytes allocated while a [`global_scope`] is open.
pub struct TrackingGlobal;

static ARMED: AtomicBool = AtomicBool::new(false);
static SCOPE_BYTES: AtomicUsize = AtomicUsize::new(0);
static SCOPE_PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to `System` unchanged; the counters are side bookkeeping.
unsafe impl GlobalAlloc for TrackingGlobal {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if ARMED.load(Ordering::Relaxed) {
            let now = SCOPE_BYTES.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            SCOPE_PEAK.fetch_max(now, Ordering::Relaxed);
        }
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if ARMED.load(Ordering::Relaxed) {
            // Frees of blocks from before the scope may take it below zero:
            // saturate.
            let _ = SCOPE_BYTES.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |b| {
                Some(b.saturating_sub(layout.size()))
            });
        }
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: TrackingGlobal = TrackingGlobal;

/// Runs `f` (the code under test) and panics (a finding) if it held more
/// than `cap` bytes of the global heap at any time. The fuzz targets are
/// single-threaded, so everything counted comes from `f`.
pub fn global_scope<T>(what: &str, cap: usize, f: impl FnOnce() -> T) -> T {
    SCOPE_BYTES.store(0, Ordering::Relaxed);
    SCOPE_PEAK.store(0, Ordering::Relaxed);
    ARMED.store(true, Ordering::Relaxed);
    let out = f();
    ARMED.store(false, Ordering::Relaxed);
    let peak = SCOPE_PEAK.load(Ordering::Relaxed);
    assert!(
        peak <= cap,
        "{what}: {peak} bytes of the global heap held (cap {cap}): allocations must go through A"
    );
    out
}

// ---------------------------------------------------------------------------
// Limits and caps

/// The read limits of the IPC targets: small, so that what the limits allow
/// stays far below the fuzzer's RSS limit.
pub fn fuzz_limits() -> ReadLimits {
    ReadLimits {
        max_metadata_size: 64 << 10,
        max_body_size: 1 << 20,
        max_buffer_size: 64 << 10,
        max_dictionary_len: 1 << 16,
        schema: DecodeLimits {
            max_depth: 32,
            max_fields: 1024,
            max_metadata_entries: 64,
        },
    }
}

/// The IPC read options of the targets (full validation, [`fuzz_limits`]).
pub fn fuzz_options() -> IpcReadOptions {
    IpcReadOptions::with_limits(fuzz_limits())
}

/// The most bytes a reader may hold from `A` while reading an input of
/// `input_len` bytes under `limits` (every batch kept, at most
/// [`MAX_BATCHES`]):
///
/// - 2 MiB of fixed overhead (schema, dictionary store, scratch);
/// - 512 bytes per input byte: array structures of the schema and of each
///   message (a field or buffer descriptor takes at least a few bytes of
///   flatbuffer), copies of misaligned or byte-swapped buffers, dictionary
///   concatenation;
/// - `max_buffer_size` for every buffer a message could declare (a
///   `Buffer` struct is 16 bytes of flatbuffer): each may decompress to at
///   most that much;
/// - 16 bytes per dictionary value the limit allows (keys and offsets of a
///   dictionary grown by deltas).
pub fn ipc_cap(input_len: usize, limits: &ReadLimits) -> usize {
    let buffers = input_len / 16 + 1;
    (2usize << 20)
        .saturating_add(input_len.saturating_mul(512))
        .saturating_add(buffers.saturating_mul(limits.max_buffer_size))
        .saturating_add(limits.max_dictionary_len.saturating_mul(16))
}

/// What the `ruzstd` decoder may hold of the global heap for a window limit
/// of `max_window` bytes and buffers of at most `max_buffer` bytes: its
/// history (the larger of the two) twice, twice the decoded-ahead chunk,
/// and 3 MiB that do not depend on the limits: a block may hold 98,303
/// sequences (Zstandard's largest sequence count) of 12 bytes each in
/// `ruzstd`, kept in a vector that doubles as it fills (1.5 MiB, plus the
/// 0.75 MiB it grows from while it is copied: 2.25 MiB at the peak, as the
/// `zstd_decode` target measured), then literals (up to a block, 128 KiB)
/// and the entropy tables.
pub fn zstd_global_cap(max_window: usize, max_buffer: usize) -> usize {
    let window = max_window.max(max_buffer);
    window * 2 + 2 * alkaid::ipc::compression::zstd_decode::CHUNK + (3 << 20)
}

/// The global heap the IPC readers may use: only ZSTD-compressed bodies
/// reach `ruzstd` (built-in codecs, default window limit).
pub fn ipc_global_cap(limits: &ReadLimits) -> usize {
    zstd_global_cap(
        alkaid::ipc::compression::zstd_decode::DEFAULT_MAX_WINDOW_SIZE as usize,
        limits.max_buffer_size,
    )
}

/// How many batches of one input the IPC targets read and keep.
pub const MAX_BATCHES: usize = 32;

// ---------------------------------------------------------------------------
// IPC oracles

/// An accepted batch must validate fully.
pub fn check_batch(batch: &RecordBatch<'_, Alloc<'_>>) {
    if let Err(e) = batch.validate(ValidationLevel::Full) {
        panic!("accepted batch does not validate at Full: {e:?}");
    }
}

/// Writes `batches` (all of `schema`) with `StreamWriter` into memory,
/// reads the stream back with `SliceStreamReader` and asserts the batches
/// are equal. `oracle` is a separate, unlimited allocator: the write-back is
/// not the code under test's budget.
pub fn round_trip<'b>(
    schema: &Schema<'b, Alloc<'b>>,
    batches: &[RecordBatch<'b, Alloc<'b>>],
    oracle: Alloc<'b>,
) {
    let mut out: Vec<u8> = Vec::new();
    {
        let mut w =
            match StreamWriter::try_new_in(&mut out, schema, IpcWriteOptions::default(), oracle) {
                Ok(w) => w,
                Err(e) => panic!("StreamWriter refuses a schema a reader accepted: {e:?}"),
            };
        for b in batches {
            if let Err(e) = w.write(b) {
                panic!("StreamWriter refuses a batch a reader accepted: {e:?}");
            }
        }
        if let Err(e) = w.finish() {
            panic!("StreamWriter::finish: {e:?}");
        }
    }
    // The written stream is well formed: default limits, full validation.
    let mut r = match SliceStreamReader::try_new_in(&out, IpcReadOptions::default(), oracle) {
        Ok(r) => r,
        Err(e) => panic!("our own stream does not read back: {e:?}"),
    };
    assert!(r.schema() == schema, "schema differs after the round trip");
    for (i, b) in batches.iter().enumerate() {
        match r.next_batch() {
            Ok(Some(again)) => assert!(again == *b, "batch {i} differs after the round trip"),
            Ok(None) => panic!("batch {i} missing after the round trip"),
            Err(e) => panic!("batch {i} does not read back: {e:?}"),
        }
    }
    let end = r.next_batch();
    assert!(matches!(end, Ok(None)), "extra data after the round trip");
}

// ---------------------------------------------------------------------------
// I/O

/// An in-memory `embedded_io` source that returns at most `chunk` bytes per
/// read (short reads exercise the readers' read loops) and can seek.
#[derive(Debug)]
pub struct Chunked<'a> {
    data: &'a [u8],
    pos: u64,
    chunk: usize,
}

impl<'a> Chunked<'a> {
    /// Reads `data` `chunk` bytes at a time at most (at least 1).
    pub fn new(data: &'a [u8], chunk: usize) -> Self {
        Chunked {
            data,
            pos: 0,
            chunk: chunk.max(1),
        }
    }
}

impl embedded_io::ErrorType for Chunked<'_> {
    type Error = embedded_io::ErrorKind;
}

impl embedded_io::Read for Chunked<'_> {
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, Self::Error> {
        let start = usize::try_from(self.pos)
            .unwrap_or(usize::MAX)
            .min(self.data.len());
        let rest = &self.data[start..];
        let n = rest.len().min(buf.len()).min(self.chunk);
        buf[..n].copy_from_slice(&rest[..n]);
        self.pos += n as u64;
        Ok(n)
    }
}

impl embedded_io::Seek for Chunked<'_> {
    fn seek(&mut self, pos: embedded_io::SeekFrom) -> Result<u64, Self::Error> {
        let new = match pos {
            embedded_io::SeekFrom::Start(p) => Some(p),
            embedded_io::SeekFrom::End(d) => (self.data.len() as u64).checked_add_signed(d),
            embedded_io::SeekFrom::Current(d) => self.pos.checked_add_signed(d),
        };
        self.pos = new.ok_or(embedded_io::ErrorKind::InvalidInput)?;
        Ok(self.pos)
    }
}

/// The most bytes row decoding may hold for an input of `input_len` bytes
/// (rows included): 1 MiB for the converter and its nodes, and 64 bytes per
/// input byte (each row takes at least its length byte; per row an offset,
/// a cursor and validity; per value at most a few times its encoded bytes).
pub fn row_cap(input_len: usize) -> usize {
    (1usize << 20).saturating_add(input_len.saturating_mul(64))
}

/// What the LZ4 frame decoder may hold for an output limit of `limit`
/// bytes: the output, plus 64 KiB of slack for a growing buffer's last
/// block.
pub fn lz4_cap(limit: usize) -> usize {
    limit + (64 << 10)
}

/// What parsing `input_len` bytes of extension metadata may hold: 4 KiB and
/// 16 bytes per input byte (strings and shapes are copied; a dimension
/// takes at least 2 bytes of JSON and 8 bytes in memory).
pub fn extension_cap(input_len: usize) -> usize {
    4096usize.saturating_add(input_len.saturating_mul(16))
}
