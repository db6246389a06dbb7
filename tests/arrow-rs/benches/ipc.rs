//! IPC stream benchmark: alkaid against arrow-rs 60 over the same batches, in
//! one run, printing both times and the ratio (no assertions).
//!
//! `cargo bench -p alkaid-tests-arrow-rs --bench ipc`
//!
//! - Data set "issue": 16 batches × 65,536 rows of (Int64 nullable with 10%
//!   nulls, Float64, Utf8 of 0–23 ASCII bytes), distinct per batch.
//! - Data set "arrow-rs": the batch of arrow-rs's own `arrow-ipc` benches
//!   (8,192 rows of Int32, Utf8 "this is string number {i}" with every tenth
//!   null, Date32, Decimal128(11, 2); all fields nullable), written 10 times.
//!
//! Measured: stream write into a pre-allocated `Vec` (and a `memcpy` of the
//! same number of bytes as the bandwidth reference), fully validated read
//! (our `SliceStreamReader`, `StreamReader` and `StreamDecoder`, whole and
//! in 64 KiB pieces; arrow-rs's `StreamReader`, which validates by default,
//! and its `StreamDecoder`, whole and in the same pieces), and the
//! zero-copy read of one batch at 1×, 4× and 16× the body size. Also the
//! std shim's `VectoredStreamWriter` (one `write_vectored` per batch) into
//! the `Vec`, and the issue data written to a file on tmpfs (`/dev/shm`)
//! and through a pipe to a reading thread against arrow-rs's `StreamWriter`
//! over a `BufWriter` (wall time).

mod util;

use std::hint::black_box;
use std::sync::Arc;

use alkaid::array::{Array, ArrayRef, PrimitiveArray, RecordBatch, StringArray, ValidationLevel};
use alkaid::buffer::{Buffer, SharedSlice};
use alkaid::datatypes::{DataType, Field, Schema};
use alkaid::ipc::reader::{
    FileReader, IpcReadOptions, SliceStreamReader, StreamDecoder, StreamReader,
};
use alkaid::ipc::writer::{FileWriter, IpcWriteOptions, StreamWriter};
use alkaid::Global as G;
use arrow_array as aa;
use arrow_schema as asch;
use util::{compare, fmt_time, gbps, speedup, to_rs, verdict, vs, Budget, Rng, Table};

type Ours = RecordBatch<'static, G>;
type Theirs = aa::RecordBatch;

/// The same batch for both libraries.
struct Pair {
    ours: Ours,
    theirs: Theirs,
}

impl Pair {
    /// arrow-rs's batch imports our columns zero copy (C Data Interface), so
    /// both writers copy from the very same memory: where the source buffers
    /// lie (heap or mmap, page and cache state) moves a memcpy-bound write
    /// by several percent.
    fn sharing(ours: Ours, schema: asch::SchemaRef) -> Pair {
        let cols = ours
            .columns()
            .iter()
            .zip(schema.fields())
            .map(|(c, f)| to_rs(c, f.data_type(), G))
            .collect();
        let theirs = Theirs::try_new(schema, cols).unwrap();
        Pair { ours, theirs }
    }
}

fn ours_batch(fields: Vec<Field<'static, G>>, cols: Vec<ArrayRef<'static, G>>) -> Ours {
    let schema = Schema::new(SharedSlice::try_from_iter_in(fields, G).unwrap());
    RecordBatch::try_new(schema, SharedSlice::try_from_iter_in(cols, G).unwrap()).unwrap()
}

/// `rows` rows of (Int64 nullable 10% nulls, Float64, Utf8 0–23 bytes).
fn issue_batch(rng: &mut Rng, rows: usize) -> Pair {
    let ints: Vec<Option<i64>> = (0..rows)
        .map(|_| (!rng.chance(0.1)).then(|| rng.next_u64() as i64))
        .collect();
    let floats: Vec<f64> = (0..rows).map(|_| rng.unit() * 1e6 - 5e5).collect();
    let strings: Vec<String> = (0..rows)
        .map(|_| {
            let n = rng.below(24) as usize;
            rng.alnum(n)
        })
        .collect();
    let float_opts: Vec<Option<f64>> = floats.iter().map(|f| Some(*f)).collect();
    let str_opts: Vec<Option<&str>> = strings.iter().map(|s| Some(s.as_str())).collect();
    let ours = ours_batch(
        vec![
            Field::new("i", DataType::Int64, true),
            Field::new("f", DataType::Float64, false),
            Field::new("s", DataType::Utf8, false),
        ],
        vec![
            PrimitiveArray::<i64, G>::try_from_options_in(&ints, G)
                .unwrap()
                .into_array_ref(),
            PrimitiveArray::<f64, G>::try_from_options_in(&float_opts, G)
                .unwrap()
                .into_array_ref(),
            StringArray::<G>::try_from_options_in(&str_opts, G)
                .unwrap()
                .into_array_ref(),
        ],
    );
    let schema = Arc::new(asch::Schema::new(vec![
        asch::Field::new("i", asch::DataType::Int64, true),
        asch::Field::new("f", asch::DataType::Float64, false),
        asch::Field::new("s", asch::DataType::Utf8, false),
    ]));
    Pair::sharing(ours, schema)
}

/// The batch of arrow-rs's `arrow-ipc` benches (same schema and values).
fn arrow_rs_batch(rows: usize) -> Pair {
    let a: Vec<Option<i32>> = (0..rows).map(|i| Some(i as i32)).collect();
    let strings: Vec<Option<String>> = (0..rows)
        .map(|i| (i % 10 != 0).then(|| format!("this is string number {i}")))
        .collect();
    let b: Vec<Option<&str>> = strings.iter().map(|s| s.as_deref()).collect();
    let d: Vec<Option<i128>> = (0..rows).map(|i| Some((i * 1_000_000) as i128)).collect();
    let ours = ours_batch(
        vec![
            Field::new("c0", DataType::Int32, true),
            Field::new("c1", DataType::Utf8, true),
            Field::new("c2", DataType::Date32, true),
            Field::new("c3", DataType::Decimal128(11, 2), true),
        ],
        vec![
            PrimitiveArray::<i32, G>::try_from_options_in(&a, G)
                .unwrap()
                .into_array_ref(),
            StringArray::<G>::try_from_options_in(&b, G)
                .unwrap()
                .into_array_ref(),
            PrimitiveArray::<i32, G>::try_from_options_in(&a, G)
                .unwrap()
                .with_data_type(DataType::Date32)
                .unwrap()
                .into_array_ref(),
            PrimitiveArray::<i128, G>::try_from_options_in(&d, G)
                .unwrap()
                .with_data_type(DataType::Decimal128(11, 2))
                .unwrap()
                .into_array_ref(),
        ],
    );
    let schema = Arc::new(asch::Schema::new(vec![
        asch::Field::new("c0", asch::DataType::Int32, true),
        asch::Field::new("c1", asch::DataType::Utf8, true),
        asch::Field::new("c2", asch::DataType::Date32, true),
        asch::Field::new("c3", asch::DataType::Decimal128(11, 2), true),
    ]));
    Pair::sharing(ours, schema)
}

fn write_ours(sink: &mut Vec<u8>, batches: &[Ours]) {
    sink.clear();
    let mut w = StreamWriter::try_new_in(
        &mut *sink,
        batches[0].schema(),
        IpcWriteOptions::default(),
        G,
    )
    .unwrap();
    for b in batches {
        w.write(b).unwrap();
    }
    w.finish().unwrap();
}

/// The std shim's vectored writer into any `std::io::Write` (one
/// `write_vectored` per batch over the encoder's pieces).
fn write_ours_vectored<W: std::io::Write>(sink: W, batches: &[Ours]) -> W {
    let mut w = alkaid_std::VectoredStreamWriter::try_new(sink, batches[0].schema()).unwrap();
    for b in batches {
        w.write(b).unwrap();
    }
    w.finish().unwrap();
    w.into_inner()
}

fn write_theirs(sink: &mut Vec<u8>, batches: &[Theirs]) {
    sink.clear();
    let mut w = arrow_ipc::writer::StreamWriter::try_new(&mut *sink, &batches[0].schema()).unwrap();
    for b in batches {
        w.write(b).unwrap();
    }
    w.finish().unwrap();
}

fn read_ours_slice(input: &[u8]) -> usize {
    let r = SliceStreamReader::try_new_in(input, IpcReadOptions::default(), G).unwrap();
    let mut rows = 0;
    for b in r {
        rows += black_box(b.unwrap()).num_rows();
    }
    rows
}

fn read_ours_stream(input: &[u8]) -> usize {
    let r = StreamReader::try_new_in(input, IpcReadOptions::default(), G).unwrap();
    let mut rows = 0;
    for b in r {
        rows += black_box(b.unwrap()).num_rows();
    }
    rows
}

fn read_theirs_stream(input: &[u8]) -> usize {
    let r = arrow_ipc::reader::StreamReader::try_new(input, None).unwrap();
    let mut rows = 0;
    for b in r {
        rows += black_box(b.unwrap()).num_rows();
    }
    rows
}

/// Bytes per piece of the chunked push-decoder reads (a socket's or an
/// object store's read size): messages split across pieces are copied.
const PIECE: usize = 64 << 10;

/// Our push decoder fed `input` in pieces of `piece` bytes (slices of the
/// 64-byte aligned buffer: whole messages in a piece are zero copy).
fn read_ours_decoder(input: &Buffer<'static, G>, piece: usize) -> usize {
    let mut d = StreamDecoder::try_new_in(IpcReadOptions::default(), G).unwrap();
    let mut rows = 0;
    let mut at = 0;
    while at < input.len() && !d.is_finished() {
        let n = piece.min(input.len() - at);
        let mut p = input.slice(at, n).unwrap();
        at += n;
        while !p.is_empty() && !d.is_finished() {
            if let Some(b) = d.decode(&mut p).unwrap() {
                rows += black_box(b).num_rows();
            }
        }
    }
    d.finish().unwrap();
    rows
}

/// arrow-rs's push decoder fed `input` in pieces of `piece` bytes.
fn read_theirs_decoder_pieces(input: &arrow_buffer::Buffer, piece: usize) -> usize {
    let mut d = arrow_ipc::reader::StreamDecoder::new();
    let mut rows = 0;
    let mut at = 0;
    while at < input.len() {
        let n = piece.min(input.len() - at);
        let mut p = input.slice_with_length(at, n);
        at += n;
        while !p.is_empty() {
            if let Some(b) = d.decode(&mut p).unwrap() {
                rows += black_box(b).num_rows();
            }
        }
    }
    d.finish().unwrap();
    rows
}

/// arrow-rs's push decoder over a 64-byte aligned `Buffer`: zero copy,
/// validated.
fn read_theirs_decoder(input: &arrow_buffer::Buffer) -> usize {
    let mut d = arrow_ipc::reader::StreamDecoder::new();
    let mut buf = input.clone();
    let mut rows = 0;
    while !buf.is_empty() {
        if let Some(b) = d.decode(&mut buf).unwrap() {
            rows += black_box(b).num_rows();
        }
    }
    d.finish().unwrap();
    rows
}

/// Both libraries read both streams back and agree on the row count; our
/// readers give back exactly our batches.
fn sanity_check(pairs: &[Pair], ours_bytes: &[u8], theirs_bytes: &[u8]) {
    let rows: usize = pairs.iter().map(|p| p.ours.num_rows()).sum();
    for bytes in [ours_bytes, theirs_bytes] {
        assert_eq!(read_ours_slice(bytes), rows);
        assert_eq!(read_ours_stream(bytes), rows);
        assert_eq!(read_theirs_stream(bytes), rows);
    }
    let got: Vec<RecordBatch<'_, G>> =
        SliceStreamReader::try_new_in(theirs_bytes, IpcReadOptions::default(), G)
            .unwrap()
            .map(|b| b.unwrap())
            .collect();
    for (g, p) in got.iter().zip(pairs) {
        assert!(g.columns() == p.ours.columns());
    }
    let theirs: Vec<Theirs> = arrow_ipc::reader::StreamReader::try_new(ours_bytes, None)
        .unwrap()
        .map(|b| b.unwrap())
        .collect();
    for (t, p) in theirs.iter().zip(pairs) {
        assert_eq!(t, &p.theirs);
    }
}

fn aligned_ours(bytes: &[u8]) -> Buffer<'static, G> {
    Buffer::try_copy_in(bytes, G).unwrap()
}

/// Write and validated-read tables for one data set.
fn data_set(name: &str, pairs: &[Pair], budget: Budget) {
    let ours: Vec<Ours> = pairs.iter().map(|p| p.ours.clone()).collect();
    let theirs: Vec<Theirs> = pairs.iter().map(|p| p.theirs.clone()).collect();
    let mut ours_bytes = Vec::new();
    write_ours(&mut ours_bytes, &ours);
    let mut theirs_bytes = Vec::new();
    write_theirs(&mut theirs_bytes, &theirs);
    sanity_check(pairs, &ours_bytes, &theirs_bytes);
    let rows: usize = ours.iter().map(|b| b.num_rows()).sum();
    println!(
        "\n### {name}: {} batches, {rows} rows; stream {} bytes (ours), {} bytes (arrow-rs)\n",
        ours.len(),
        ours_bytes.len(),
        theirs_bytes.len()
    );

    // Write into pre-allocated memory. Two memcpy references: the stream's
    // bytes in one copy from one contiguous clone, and every body buffer
    // copied from the arrays' own memory in stream order (what any writer
    // must copy, without metadata or padding).
    let cap = 2 * ours_bytes.len().max(theirs_bytes.len());
    let (mut s1, mut s2, mut s3, mut s4, mut s5) = (
        Vec::with_capacity(cap),
        Vec::with_capacity(cap),
        Vec::with_capacity(cap),
        Vec::with_capacity(cap),
        Vec::with_capacity(cap),
    );
    let src = ours_bytes.clone();
    let datas: Vec<_> = theirs
        .iter()
        .flat_map(|b| b.columns().iter().map(|c| c.to_data()))
        .collect();
    let pieces: Vec<&[u8]> = datas
        .iter()
        .flat_map(|d| {
            let nulls = d.nulls().map(|n| n.validity());
            nulls
                .into_iter()
                .chain(d.buffers().iter().map(|b| b.as_slice()))
        })
        .collect();
    let t = compare(
        &mut [
            &mut || write_ours(&mut s1, &ours),
            &mut || write_theirs(&mut s2, &theirs),
            &mut || {
                s3.clear();
                s3.extend_from_slice(black_box(&src));
                black_box(&mut s3);
            },
            &mut || {
                s4.clear();
                black_box(write_ours_vectored(&mut s4, &ours));
            },
            &mut || {
                s5.clear();
                for p in &pieces {
                    s5.extend_from_slice(black_box(p));
                }
                black_box(&mut s5);
            },
        ],
        budget,
    );
    assert_eq!(s4, ours_bytes);
    let (w_ours, w_theirs, memcpy, w_vec, per_buffer) = (t[0], t[1], t[2], t[3], t[4]);
    let pct =
        |r: util::Measure, w: util::Measure| 100.0 * r.cpu.as_secs_f64() / w.cpu.as_secs_f64();
    let table = Table::new(
        &[
            "operation",
            "alkaid",
            "arrow-rs",
            "speed-up (wall)",
            "target",
            "alkaid GB/s",
            "% of memcpy: one copy / per buffer",
        ],
        &[46, 9, 9, 15, 16, 11, 34],
    );
    for (what, w) in [
        ("stream write into a pre-allocated Vec", w_ours),
        ("vectored stream write into a pre-allocated Vec", w_vec),
    ] {
        let [o, t_, r] = vs(w, w_theirs);
        table.row(&[
            what.into(),
            o,
            t_,
            r,
            verdict(speedup(w.cpu, w_theirs.cpu), 1.0),
            format!("{:.2}", gbps(ours_bytes.len(), w.cpu)),
            format!(
                "{:.0}% / {:.0}% (≥ 85%: {})",
                pct(memcpy, w),
                pct(per_buffer, w),
                if pct(per_buffer, w) >= 85.0 {
                    "met"
                } else {
                    "NOT met"
                }
            ),
        ]);
    }
    for (what, r) in [
        ("memcpy of the stream in one copy", memcpy),
        ("memcpy of each body buffer from the arrays", per_buffer),
    ] {
        table.row(&[
            what.into(),
            fmt_time(r.cpu),
            "".into(),
            "".into(),
            "".into(),
            format!("{:.2}", gbps(ours_bytes.len(), r.cpu)),
            format!("{:.0}% / {:.0}%", pct(memcpy, r), pct(per_buffer, r)),
        ]);
    }
    drop((s1, s2, s3, s4, s5));

    // Fully validated reads of the same bytes (our stream).
    let aligned = aligned_ours(&ours_bytes);
    let theirs_buf = arrow_buffer::Buffer::from_slice_ref(&ours_bytes);
    let t = compare(
        &mut [
            &mut || {
                black_box(read_ours_slice(aligned.as_slice()));
            },
            &mut || {
                black_box(read_ours_stream(&ours_bytes));
            },
            &mut || {
                black_box(read_theirs_stream(&ours_bytes));
            },
            &mut || {
                black_box(read_theirs_decoder(&theirs_buf));
            },
            &mut || {
                black_box(read_ours_decoder(&aligned, usize::MAX));
            },
            &mut || {
                black_box(read_ours_decoder(&aligned, PIECE));
            },
            &mut || {
                black_box(read_theirs_decoder_pieces(&theirs_buf, PIECE));
            },
        ],
        budget,
    );
    let (slice, stream, theirs_stream, theirs_dec) = (t[0], t[1], t[2], t[3]);
    let (dec, dec_pieces, theirs_pieces) = (t[4], t[5], t[6]);
    for (what, ours_t, theirs_t) in [
        (
            "validated read: SliceStreamReader / StreamReader",
            slice,
            theirs_stream,
        ),
        (
            "validated read: StreamReader / StreamReader",
            stream,
            theirs_stream,
        ),
        (
            "validated zero-copy: SliceStreamReader / StreamDecoder",
            slice,
            theirs_dec,
        ),
        (
            "validated zero-copy: StreamDecoder / StreamDecoder",
            dec,
            theirs_dec,
        ),
        (
            "validated, 64 KiB pieces: StreamDecoder / StreamDecoder",
            dec_pieces,
            theirs_pieces,
        ),
    ] {
        let [o, t_, r] = vs(ours_t, theirs_t);
        table.row(&[
            what.into(),
            o,
            t_,
            r,
            verdict(speedup(ours_t.cpu, theirs_t.cpu), 1.5),
            format!("{:.2}", gbps(ours_bytes.len(), ours_t.cpu)),
            "".into(),
        ]);
    }
}

/// An IPC file read zero-copy by arrow-rs's `FileDecoder` (the path of its
/// own mmap benchmark): footer, then record batch 0.
fn read_theirs_file(file: &arrow_buffer::Buffer, skip_validation: bool) -> usize {
    let n = file.len();
    let trailer: [u8; 10] = file[n - 10..].try_into().unwrap();
    let footer_len = arrow_ipc::reader::read_footer_length(trailer).unwrap();
    let footer = arrow_ipc::root_as_footer(&file[n - 10 - footer_len..n - 10]).unwrap();
    let schema = arrow_ipc::convert::try_fb_to_schema(footer.schema().unwrap()).unwrap();
    let mut d = arrow_ipc::reader::FileDecoder::new(Arc::new(schema), footer.version());
    if skip_validation {
        // SAFETY: the file was written by our writer and is read back with
        // full validation by both libraries before timing (`scaling`).
        d = unsafe { d.with_skip_validation(true) };
    }
    let block = footer.recordBatches().unwrap().get(0);
    let len = block.metaDataLength() as usize + block.bodyLength() as usize;
    let data = file.slice_with_length(block.offset() as usize, len);
    let b = d.read_record_batch(block, &data).unwrap().unwrap();
    black_box(b).num_rows()
}

/// Our `FileReader` over a 64-byte aligned slice: footer, then batch 0,
/// arrays validated at `level`.
fn read_ours_file(file: &[u8], level: ValidationLevel) -> usize {
    // SAFETY: the file was written by our writer and is read back at `Full`
    // by `scaling` before any timing at a lower level.
    let options = unsafe { IpcReadOptions::default().with_validation(level) };
    let mut r = FileReader::try_new_in(file, options, G).unwrap();
    black_box(r.batch(0).unwrap()).num_rows()
}

/// One batch of 65,536 × k rows read zero-copy from an IPC file: how the
/// time grows with the body.
fn scaling(budget: Budget) {
    println!("\n### Zero-copy read of one batch from an IPC file vs body size\n");
    let table = Table::new(
        &[
            "rows",
            "file bytes",
            "alkaid FileReader (Full)",
            "ns/row",
            "arrow-rs FileDecoder (validated)",
            "alkaid FileReader (Cheap)",
            "arrow-rs FileDecoder (skip_validation)",
        ],
        &[9, 10, 24, 6, 32, 26, 38],
    );
    let mut rng = Rng::new(0xB0D7);
    let mut base = None;
    for k in [1usize, 4, 16] {
        let rows = 65_536 * k;
        let pair = issue_batch(&mut rng, rows);
        let mut w = FileWriter::try_new_in(
            Vec::new(),
            pair.ours.schema(),
            IpcWriteOptions::default(),
            G,
        )
        .unwrap();
        w.write(&pair.ours).unwrap();
        w.finish().unwrap();
        let bytes = w.into_inner();
        let aligned = aligned_ours(&bytes);
        let theirs_buf = arrow_buffer::Buffer::from_slice_ref(&bytes);
        assert_eq!(
            read_ours_file(aligned.as_slice(), ValidationLevel::Full),
            rows
        );
        assert_eq!(read_theirs_file(&theirs_buf, false), rows);
        let t = compare(
            &mut [
                &mut || {
                    black_box(read_ours_file(aligned.as_slice(), ValidationLevel::Full));
                },
                &mut || {
                    black_box(read_theirs_file(&theirs_buf, false));
                },
                &mut || {
                    black_box(read_ours_file(aligned.as_slice(), ValidationLevel::Cheap));
                },
                &mut || {
                    black_box(read_theirs_file(&theirs_buf, true));
                },
            ],
            budget,
        );
        let b = base.get_or_insert(t.clone()).clone();
        let rel = |i: usize| {
            format!(
                "{} ({:.1}×)",
                fmt_time(t[i].cpu),
                speedup(b[i].cpu, t[i].cpu)
            )
        };
        table.row(&[
            rows.to_string(),
            bytes.len().to_string(),
            rel(0),
            format!("{:.2}", t[0].cpu.as_nanos() as f64 / rows as f64),
            rel(1),
            rel(2),
            rel(3),
        ]);
    }
    println!(
        "\n(×: time relative to the 1× body. Full validates every value, O(body); \
         Cheap is the `unsafe` `IpcReadOptions::with_validation(Cheap)` for trusted \
         input: framing, bounds and O(1) array checks only. arrow-rs 60.1's \
         `StreamDecoder::with_skip_validation` is not applied to record batches, \
         hence its `FileDecoder` here.)"
    );
}

/// arrow-rs's `StreamWriter` into any `std::io::Write`.
fn write_theirs_to<W: std::io::Write>(sink: W, batches: &[Theirs]) -> W {
    let mut w = arrow_ipc::writer::StreamWriter::try_new(sink, &batches[0].schema()).unwrap();
    for b in batches {
        w.write(b).unwrap();
    }
    w.finish().unwrap();
    w.into_inner().unwrap()
}

/// Runs `write` into the write end of a fresh pipe while a thread reads and
/// discards everything; returns the bytes the reader saw.
fn through_pipe(write: &mut dyn FnMut(std::io::PipeWriter)) -> usize {
    use std::io::Read;
    use std::os::fd::AsRawFd;
    let (mut r, w) = std::io::pipe().unwrap();
    // 1 MiB of pipe buffer (Linux's default maximum) instead of 64 KiB, so
    // that the two threads do not switch every 64 KiB; same for both
    // libraries.
    // SAFETY: `fcntl` on a file descriptor this function owns; failure only
    // leaves the default size.
    unsafe { libc::fcntl(w.as_raw_fd(), libc::F_SETPIPE_SZ, 1 << 20) };
    let reader = std::thread::spawn(move || {
        let mut buf = vec![0u8; 1 << 20];
        let mut n = 0;
        loop {
            match r.read(&mut buf) {
                Ok(0) => return n,
                Ok(k) => n += k,
                Err(e) => panic!("pipe read: {e}"),
            }
        }
    });
    write(w);
    reader.join().unwrap()
}

/// The issue data written to a file on tmpfs and through a pipe to a
/// reading thread: our vectored writer (unbuffered: one `writev` per batch)
/// and our sync writer over a `BufWriter`, against arrow-rs's
/// `StreamWriter` over a `BufWriter` (its usual setup). Wall time is what
/// counts here (the kernel's copy and the reader run outside this thread).
fn sinks(pairs: &[Pair], budget: Budget) {
    use std::io::BufWriter;
    let ours: Vec<Ours> = pairs.iter().map(|p| p.ours.clone()).collect();
    let theirs: Vec<Theirs> = pairs.iter().map(|p| p.theirs.clone()).collect();
    let mut expected = Vec::new();
    write_ours(&mut expected, &ours);
    println!(
        "\n### Issue data into a file on tmpfs and through a pipe ({} bytes per stream; \
         speed-up in wall-clock time, CPU-time ratio in parentheses)\n",
        expected.len()
    );
    let dir = std::path::Path::new("/dev/shm");
    let dir = if dir.is_dir() {
        dir.to_path_buf()
    } else {
        std::env::temp_dir()
    };
    let pid = std::process::id();
    let (p1, p2, p3) = (
        dir.join(format!("alkaid-bench-vectored-{pid}.arrows")),
        dir.join(format!("alkaid-bench-sync-{pid}.arrows")),
        dir.join(format!("alkaid-bench-arrow-rs-{pid}.arrows")),
    );
    // Each run overwrites the file from its start without truncating it
    // (every run writes the same bytes): truncating would free the tmpfs
    // pages and make every run allocate and zero 33 MB in the kernel,
    // which then dominates both libraries' times.
    let open = |p: &std::path::Path| {
        std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .open(p)
            .unwrap()
    };
    // Sanity: the vectored file holds our stream, arrow-rs's file reads back.
    write_ours_vectored(open(&p1), &ours);
    assert_eq!(std::fs::read(&p1).unwrap(), expected);
    let t = compare(
        &mut [
            &mut || {
                write_ours_vectored(open(&p1), &ours);
            },
            &mut || {
                let w = BufWriter::new(open(&p2));
                let mut w = alkaid_std::StreamWriter::try_new(w, ours[0].schema()).unwrap();
                for b in &ours {
                    w.write(b).unwrap();
                }
                w.finish().unwrap();
            },
            &mut || {
                write_theirs_to(BufWriter::new(open(&p3)), &theirs);
            },
        ],
        budget,
    );
    assert_eq!(std::fs::read(&p2).unwrap(), expected);
    assert_eq!(
        read_theirs_stream(&std::fs::read(&p3).unwrap()),
        16 * 65_536
    );
    for p in [&p1, &p2, &p3] {
        let _ = std::fs::remove_file(p);
    }
    let (f_vec, f_sync, f_theirs) = (t[0], t[1], t[2]);
    let n = expected.len();
    assert_eq!(
        through_pipe(&mut |w| drop(write_ours_vectored(w, &ours))),
        n
    );
    let t = compare(
        &mut [
            &mut || {
                black_box(through_pipe(&mut |w| drop(write_ours_vectored(w, &ours))));
            },
            &mut || {
                black_box(through_pipe(&mut |w| {
                    let mut w =
                        alkaid_std::StreamWriter::try_new(BufWriter::new(w), ours[0].schema())
                            .unwrap();
                    for b in &ours {
                        w.write(b).unwrap();
                    }
                    w.finish().unwrap();
                }));
            },
            &mut || {
                black_box(through_pipe(&mut |w| {
                    drop(write_theirs_to(BufWriter::new(w), &theirs))
                }));
            },
        ],
        budget,
    );
    let (q_vec, q_sync, q_theirs) = (t[0], t[1], t[2]);
    let table = Table::new(
        &[
            "operation",
            "alkaid (wall)",
            "arrow-rs (wall)",
            "speed-up wall (CPU)",
            "target",
            "alkaid GB/s (wall)",
        ],
        &[62, 13, 15, 19, 16, 18],
    );
    for (what, ours_t, theirs_t) in [
        (
            "tmpfs file: VectoredStreamWriter<File> / StreamWriter<BufWriter<File>>",
            f_vec,
            f_theirs,
        ),
        (
            "tmpfs file: StreamWriter<BufWriter<File>> (sync) / same",
            f_sync,
            f_theirs,
        ),
        (
            "pipe to a reader thread: VectoredStreamWriter<PipeWriter> / BufWriter",
            q_vec,
            q_theirs,
        ),
        (
            "pipe to a reader thread: StreamWriter<BufWriter> (sync) / same",
            q_sync,
            q_theirs,
        ),
    ] {
        table.row(&[
            what.into(),
            fmt_time(ours_t.wall),
            fmt_time(theirs_t.wall),
            format!(
                "{:.2}× ({:.2}×)",
                speedup(ours_t.wall, theirs_t.wall),
                speedup(ours_t.cpu, theirs_t.cpu)
            ),
            verdict(speedup(ours_t.wall, theirs_t.wall), 1.5),
            format!("{:.2}", gbps(n, ours_t.wall)),
        ]);
    }
}

fn main() {
    // `cargo bench` passes `--bench`; ignore every argument.
    let budget = Budget::default();
    let started = std::time::Instant::now();
    println!(
        "alkaid vs arrow-rs 60, IPC stream format: median thread CPU time of {} \
         interleaved samples; speed-up = arrow-rs time / alkaid time (wall-clock \
         speed-up in parentheses)",
        budget.samples
    );

    // IPC_BENCH_ONLY=scaling runs only the body-size scaling table;
    // IPC_BENCH_ONLY=vec only the issue data's write/read table;
    // IPC_BENCH_ONLY=sinks only the tmpfs file and pipe table;
    // IPC_BENCH_ONLY=write only the write loops (for profilers).
    let only = std::env::var("IPC_BENCH_ONLY").unwrap_or_default();
    let only_scaling = only == "scaling";
    if only == "write" {
        let mut rng = Rng::new(42);
        let issue: Vec<Pair> = (0..16).map(|_| issue_batch(&mut rng, 65_536)).collect();
        let ours: Vec<Ours> = issue.iter().map(|p| p.ours.clone()).collect();
        let theirs: Vec<Theirs> = issue.iter().map(|p| p.theirs.clone()).collect();
        let (mut s1, mut s2) = (Vec::with_capacity(80 << 20), Vec::with_capacity(80 << 20));
        for _ in 0..200 {
            write_ours(&mut s1, &ours);
            write_theirs(&mut s2, &theirs);
        }
        return;
    }
    let mut rng = Rng::new(42);
    if only_scaling {
        scaling(budget);
        return;
    }
    let issue: Vec<Pair> = (0..16).map(|_| issue_batch(&mut rng, 65_536)).collect();
    if only == "sinks" {
        sinks(&issue, budget);
        return;
    }
    if only == "vec" {
        data_set(
            "issue data: 16 × 65,536 rows of (Int64 nullable, Float64, Utf8 0–23 B)",
            &issue,
            budget,
        );
        return;
    }
    data_set(
        "issue data: 16 × 65,536 rows of (Int64 nullable, Float64, Utf8 0–23 B)",
        &issue,
        budget,
    );
    sinks(&issue, budget);
    drop(issue);

    let arrow: Vec<Pair> = (0..10).map(|_| arrow_rs_batch(8192)).collect();
    data_set(
        "arrow-rs bench data: 10 × 8,192 rows of (Int32, Utf8, Date32, Decimal128(11, 2))",
        &arrow,
        budget,
    );
    drop(arrow);

    scaling(budget);
    println!(
        "\ntotal bench time {:.1} s",
        started.elapsed().as_secs_f64()
    );
}
