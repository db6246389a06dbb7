//! One error for one defect (issue 37, item 4): our four stream readers
//! (`SliceStreamReader`, `StreamReader`, `StreamDecoder`,
//! `AsyncStreamReader`) agree on every stream, and our two file readers
//! (`FileReader`, `FileSeekReader`) on every file: the same schema, the same
//! batches before the end, and, when they fail, the same `ErrorKind`.
//!
//! The inputs: the committed corpora of the IPC fuzz targets
//! (`tests/fuzz/corpus/ipc_*`; an `ipc_stream_decoder` input starts with a
//! seed byte the target strips, stripped here too), every cut of one golden
//! stream and file with dictionaries ([`CUT_CASE`], and the stream without
//! its schema message), the golden files and their seeded mutation set
//! ([`each_input`], the set of the differential tests against pyarrow and
//! arrow-rs). Each input is read under two sets of
//! options: the default ones, and tight limits ([`tight`]) that make the
//! limit checks decide. Every reader gets the same options and the global
//! heap (no allocation limit, so that no reader fails where another does
//! for lack of memory). The `StreamDecoder` is fed the whole input in one
//! buffer, and again in pieces (pushed or written into its buffer, sizes
//! from 1 byte to 4 KiB by input): chunking must not change the verdict.
//!
//! Every reader reads every batch until the end or the first error. An
//! error's location (message, field, buffer, offset) is compared too, but
//! a difference is only reported (none today): the kind is the contract.
//! The test prints the counts (inputs, verdicts by kind) and the location
//! differences, and fails listing every disagreement (counts per pair of
//! readers and verdicts, with examples). A second test pins the kinds of
//! the defects the readers used to report differently.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

use alkaid::array::RecordBatch;
use alkaid::buffer::Buffer;
use alkaid::datatypes::Schema;
use alkaid::ipc::reader::{
    AsyncStreamReader, FileReader, FileSeekReader, IpcReadOptions, ReadLimits, SliceStreamReader,
    StreamDecoder, StreamReader,
};
use alkaid::ipc::schema::DecodeLimits;
use alkaid::{Error, ErrorKind, Global};
use alkaid_tests::differential::each_input;
use alkaid_tests::harness::golden_dir;
use alkaid_tests::interop::Format;
use alkaid_tests::mutate::Layout;

/// Limits far below what the golden files need, so that the readers'
/// limit checks (metadata, body, buffer and dictionary sizes, schema depth,
/// fields and metadata entries) decide many inputs.
fn tight() -> IpcReadOptions {
    IpcReadOptions::with_limits(ReadLimits {
        max_metadata_size: 1024,
        max_body_size: 4096,
        max_buffer_size: 2048,
        max_dictionary_len: 64,
        schema: DecodeLimits {
            max_depth: 3,
            max_fields: 12,
            max_metadata_entries: 2,
        },
    })
}

/// What one reader made of one input.
struct Run<'a> {
    /// The schema, once read.
    schema: Option<Schema<'a, Global>>,
    /// For a file reader: the number of batches its footer lists.
    declared: Option<usize>,
    /// The batches read before the end or the error.
    batches: Vec<RecordBatch<'a, Global>>,
    /// How it ended.
    end: Result<(), Error>,
}

impl<'a> Run<'a> {
    fn new() -> Self {
        Run {
            schema: None,
            declared: None,
            batches: Vec::new(),
            end: Ok(()),
        }
    }

    fn failed(mut self, e: Error) -> Self {
        self.end = Err(e);
        self
    }

    /// `ok`, or the kind of the error.
    fn verdict(&self) -> String {
        match &self.end {
            Ok(()) => "ok".to_string(),
            Err(e) => format!("{:?}", e.kind()),
        }
    }
}

fn slice_stream<'a>(bytes: &'a [u8], o: IpcReadOptions) -> Run<'a> {
    let mut run = Run::new();
    let mut r = match SliceStreamReader::try_new_in(bytes, o, Global) {
        Ok(r) => r,
        Err(e) => return run.failed(e),
    };
    run.schema = Some(r.schema().clone());
    loop {
        match r.next_batch() {
            Ok(Some(b)) => run.batches.push(b),
            Ok(None) => return run,
            Err(e) => return run.failed(e),
        }
    }
}

fn stream(bytes: &[u8], o: IpcReadOptions) -> Run<'static> {
    let mut run = Run::new();
    let mut r = match StreamReader::try_new_in(bytes, o, Global) {
        Ok(r) => r,
        Err(e) => return run.failed(e),
    };
    run.schema = Some(r.schema().clone());
    loop {
        match r.next_batch() {
            Ok(Some(b)) => run.batches.push(b),
            Ok(None) => return run,
            Err(e) => return run.failed(e),
        }
    }
}

fn async_stream(bytes: &[u8], o: IpcReadOptions) -> Run<'static> {
    pollster::block_on(async {
        let mut run = Run::new();
        let mut r = match AsyncStreamReader::try_new_in(bytes, o, Global).await {
            Ok(r) => r,
            Err(e) => return run.failed(e),
        };
        run.schema = Some(r.schema().clone());
        loop {
            match r.next_batch().await {
                Ok(Some(b)) => run.batches.push(b),
                Ok(None) => return run,
                Err(e) => return run.failed(e),
            }
        }
    })
}

/// How the push decoder is fed.
#[derive(Debug, Clone, Copy)]
enum Feed {
    /// The whole input in one buffer ([`StreamDecoder::decode`]).
    Whole,
    /// Pushed in buffers of this many bytes.
    Push(usize),
    /// Written into the decoder's own buffer ([`StreamDecoder::buffer_mut`],
    /// [`StreamDecoder::advance`]) this many bytes at a time.
    Fill(usize),
}

fn decoder<'a>(bytes: &'a [u8], o: IpcReadOptions, feed: Feed) -> Run<'a> {
    let mut run = Run::new();
    let mut d = match StreamDecoder::try_new_in(o, Global) {
        Ok(d) => d,
        Err(e) => return run.failed(e),
    };
    let chunk = match feed {
        Feed::Whole => bytes.len().max(1),
        Feed::Push(n) | Feed::Fill(n) => n,
    };
    let step = |d: &mut StreamDecoder<'a, Global>, piece: &mut Buffer<'a, Global>| {
        if let Feed::Fill(_) = feed {
            let room = d.buffer_mut()?;
            let n = room.len().min(piece.len());
            room[..n].copy_from_slice(&piece[..n]);
            *piece = piece.slice(n, piece.len() - n)?;
            d.advance(n)
        } else {
            d.decode(piece)
        }
    };
    for piece in bytes.chunks(chunk) {
        let mut piece = Buffer::from_slice_ref(piece);
        while !piece.is_empty() && !d.is_finished() {
            match step(&mut d, &mut piece) {
                Ok(Some(b)) => run.batches.push(b),
                Ok(None) => {}
                Err(e) => {
                    run.schema = d.schema().cloned();
                    return run.failed(e);
                }
            }
        }
        if d.is_finished() {
            break;
        }
    }
    run.schema = d.schema().cloned();
    match d.finish() {
        Ok(()) => run,
        Err(e) => run.failed(e),
    }
}

fn file<'a>(bytes: &'a [u8], o: IpcReadOptions) -> Run<'a> {
    let mut run = Run::new();
    let mut r = match FileReader::try_new_in(bytes, o, Global) {
        Ok(r) => r,
        Err(e) => return run.failed(e),
    };
    run.schema = Some(r.schema().clone());
    run.declared = Some(r.num_batches());
    for i in 0..r.num_batches() {
        match r.batch(i) {
            Ok(b) => run.batches.push(b),
            Err(e) => return run.failed(e),
        }
    }
    run
}

fn file_seek(bytes: &[u8], o: IpcReadOptions) -> Run<'static> {
    let mut run = Run::new();
    let src = embedded_io_adapters::std::FromStd::new(std::io::Cursor::new(bytes));
    let mut r = match FileSeekReader::try_new_in(src, o, Global) {
        Ok(r) => r,
        Err(e) => return run.failed(e),
    };
    run.schema = Some(r.schema().clone());
    run.declared = Some(r.num_batches());
    for i in 0..r.num_batches() {
        match r.batch(i) {
            Ok(b) => run.batches.push(b),
            Err(e) => return run.failed(e),
        }
    }
    run
}

/// The pieces the decoder is fed in for the `n`-th input (1 byte to 4 KiB,
/// pushed or filled, varying from input to input).
fn feed_for(n: usize) -> Feed {
    let size = [1, 3, 8, 61, 509, 4096][n % 6];
    [Feed::Push, Feed::Fill][(n / 6) % 2](size)
}

/// Every reader of `format` on `bytes` under `o`: (reader, how it was fed,
/// run), the zero-copy reader first.
fn runs(
    bytes: &[u8],
    format: Format,
    o: IpcReadOptions,
    n: usize,
) -> Vec<(&'static str, String, Run<'_>)> {
    let plain = |name, run| (name, String::new(), run);
    match format {
        Format::Stream => {
            let feed = feed_for(n);
            vec![
                plain("SliceStreamReader", slice_stream(bytes, o)),
                plain("StreamReader", stream(bytes, o)),
                plain("StreamDecoder (whole)", decoder(bytes, o, Feed::Whole)),
                (
                    "StreamDecoder (pieces)",
                    format!(" {feed:?}"),
                    decoder(bytes, o, feed),
                ),
                plain("AsyncStreamReader", async_stream(bytes, o)),
            ]
        }
        Format::File => vec![
            plain("FileReader", file(bytes, o)),
            plain("FileSeekReader", file_seek(bytes, o)),
        ],
    }
}

/// How `b` differs from `a` (`None`: they agree), ignoring locations.
fn difference(a: &Run<'_>, b: &Run<'_>) -> Option<String> {
    if a.batches.len() != b.batches.len() {
        return Some(format!(
            "{} vs {} batches",
            a.batches.len(),
            b.batches.len()
        ));
    }
    if let Some(i) = (0..a.batches.len()).find(|&i| a.batches[i] != b.batches[i]) {
        return Some(format!("batch {i} differs"));
    }
    match (&a.end, &b.end) {
        (Ok(()), Ok(())) => {}
        (Err(x), Err(y)) if x.kind() == y.kind() => {}
        _ => return Some(format!("{} vs {}", a.verdict(), b.verdict())),
    }
    // Compared after the verdicts: a reader that fails on the schema
    // message has none.
    if a.schema != b.schema {
        return Some("schemas differ".to_string());
    }
    if a.declared != b.declared {
        return Some(format!(
            "the footer lists {:?} vs {:?} batches",
            a.declared, b.declared
        ));
    }
    None
}

/// One input of the test.
struct Input {
    /// Where it comes from (`corpus ipc_file/<name>`, a golden input's id).
    id: String,
    /// What was done to it (a mutation, or `corpus`).
    what: String,
    format: Format,
    bytes: Vec<u8>,
}

/// The committed corpora of the IPC fuzz targets: (target, format, bytes
/// to skip at the start).
const CORPORA: [(&str, Format, usize); 4] = [
    ("ipc_file", Format::File, 0),
    ("ipc_slice_stream", Format::Stream, 0),
    ("ipc_stream", Format::Stream, 0),
    // The target draws its chunk sizes from the first byte.
    ("ipc_stream_decoder", Format::Stream, 1),
];

fn corpus_inputs() -> Vec<Input> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus");
    let mut out = Vec::new();
    for (target, format, skip) in CORPORA {
        let dir = root.join(target);
        let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.expect("directory entry").path())
            .collect();
        names.sort();
        assert!(!names.is_empty(), "no corpus in {}", dir.display());
        for p in names {
            let bytes = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            let name = p.file_name().unwrap_or_default().to_string_lossy();
            out.push(Input {
                id: format!("corpus {target}/{name}"),
                what: "corpus".to_string(),
                format,
                bytes: bytes.get(skip..).unwrap_or_default().to_vec(),
            });
        }
    }
    out
}

/// The golden case whose every cut is read: a stream and a file with
/// dictionary batches.
const CUT_CASE: (&str, &str) = ("cpp-21.0.0", "generated_dictionary");

/// Every cut (prefix) of the golden stream and file of [`CUT_CASE`], and of
/// the stream without its schema message (a dictionary batch first, cut
/// inside its metadata or its body): the ends of the input at every point
/// of the framing.
fn cut_inputs(root: &std::path::Path) -> Vec<Input> {
    let base = root.join(CUT_CASE.0).join(CUT_CASE.1);
    let mut out = Vec::new();
    for format in Format::ALL {
        let path = base.with_extension(format.ext());
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut variants = vec![("cut", bytes.clone())];
        if format == Format::Stream {
            let layout = Layout::parse(&bytes, false)
                .unwrap_or_else(|| panic!("{}: the mutator cannot parse it", path.display()));
            let schema = layout.msgs.first().map_or(0..0, |m| m.span.clone());
            assert!(!schema.is_empty(), "{}: no schema message", path.display());
            variants.push(("cut without the schema", bytes[schema.end..].to_vec()));
        }
        for (what, bytes) in variants {
            for n in 0..bytes.len() {
                out.push(Input {
                    id: format!("{}/{}.{}@{n}", CUT_CASE.0, CUT_CASE.1, format.ext()),
                    what: what.to_string(),
                    format,
                    bytes: bytes[..n].to_vec(),
                });
            }
        }
    }
    out
}

/// Disagreements and location differences, by (readers, verdicts).
#[derive(Default)]
struct Tally {
    inputs: usize,
    /// Verdict of the first reader of each run (`ok`, or the error kind).
    verdicts: BTreeMap<String, usize>,
    /// (first reader, other reader, how) -> (count, examples).
    disagreements: BTreeMap<(String, String, String), (usize, Vec<String>)>,
    /// Same kind, different location: (readers, kind) -> (count, examples).
    locations: BTreeMap<(String, String, String), (usize, Vec<String>)>,
}

fn note(
    map: &mut BTreeMap<(String, String, String), (usize, Vec<String>)>,
    key: (String, String, String),
    example: String,
) {
    let e = map.entry(key).or_default();
    e.0 += 1;
    if e.1.len() < 3 {
        e.1.push(example);
    }
}

impl Tally {
    fn check(&mut self, input: &Input, options: &str, o: IpcReadOptions) {
        self.inputs += 1;
        let runs = runs(&input.bytes, input.format, o, self.inputs);
        let (first, _, base) = &runs[0];
        *self.verdicts.entry(base.verdict()).or_default() += 1;
        for (name, fed, run) in &runs[1..] {
            let example = |detail: String| {
                format!(
                    "{} [{}] ({options} options): {first} {} / {name}{fed} {}{detail}",
                    input.id,
                    input.what,
                    end_text(&base.end),
                    end_text(&run.end)
                )
            };
            match difference(base, run) {
                Some(how) => note(
                    &mut self.disagreements,
                    (first.to_string(), name.to_string(), how.clone()),
                    example(format!(" -- {how}")),
                ),
                None => {
                    if let (Err(x), Err(y)) = (&base.end, &run.end) {
                        if x.location() != y.location() {
                            note(
                                &mut self.locations,
                                (
                                    first.to_string(),
                                    name.to_string(),
                                    format!("{:?}", x.kind()),
                                ),
                                example(String::new()),
                            );
                        }
                    }
                }
            }
        }
    }
}

fn end_text(end: &Result<(), Error>) -> String {
    match end {
        Ok(()) => "ends cleanly".to_string(),
        Err(e) => format!("fails with {e:?}"),
    }
}

fn print_table(title: &str, map: &BTreeMap<(String, String, String), (usize, Vec<String>)>) {
    println!("\n== {title} ==");
    for ((a, b, how), (n, examples)) in map {
        println!("{n:6}  {a} / {b}: {how}");
        for e in examples {
            println!("          e.g. {e}");
        }
    }
}

#[test]
fn every_reader_of_a_format_gives_the_same_batches_and_error_kind() {
    let start = Instant::now();
    let root = golden_dir();
    let mut inputs = corpus_inputs();
    let corpus = inputs.len();
    inputs.extend(cut_inputs(&root));
    let cuts = inputs.len() - corpus;
    let mutations = each_input(|g| {
        inputs.push(Input {
            id: g.id,
            what: g.mutation,
            format: g.format,
            bytes: g.bytes,
        })
    });
    let mut tally = Tally::default();
    for input in &inputs {
        tally.check(input, "default", IpcReadOptions::default());
        tally.check(input, "tight", tight());
    }
    println!(
        "\nreader agreement: {} inputs ({corpus} from the fuzz corpora, {cuts} cuts of {}, {} \
         golden files and {mutations} mutations of them), each with default and tight options: \
         {} runs of every reader of its format in {:.1} s",
        inputs.len(),
        CUT_CASE.1,
        inputs.len() - corpus - cuts - mutations,
        tally.inputs,
        start.elapsed().as_secs_f64()
    );
    println!("\n== verdicts of the zero-copy readers ==");
    for (v, n) in &tally.verdicts {
        println!("{n:6}  {v}");
    }
    print_table(
        "same kind, different location (reported, not a failure)",
        &tally.locations,
    );
    print_table("disagreements", &tally.disagreements);
    let total: usize = tally.disagreements.values().map(|(n, _)| n).sum();
    assert!(
        total == 0,
        "{total} disagreements between readers of the same format (table above)"
    );
    // The verdicts cover what the test is about: accepted inputs, and
    // failures of several kinds.
    assert!(tally.verdicts.get("ok").copied().unwrap_or(0) > 100);
    assert!(tally.verdicts.len() > 10, "{:?}", tally.verdicts.keys());
}

/// How every reader of `format` fails on `bytes` under `o`: the error's
/// kind and message index, once asserted that they all agree.
fn ends(bytes: &[u8], format: Format, o: IpcReadOptions) -> (ErrorKind, Option<u32>) {
    let runs = runs(bytes, format, o, 0);
    for (name, fed, run) in &runs[1..] {
        if let Some(how) = difference(&runs[0].2, run) {
            panic!("{} and {name}{fed} disagree: {how}", runs[0].0);
        }
    }
    match &runs[0].2.end {
        Ok(()) => panic!("{} accepts the input", runs[0].0),
        Err(e) => (e.kind(), e.location().message()),
    }
}

#[test]
fn the_defects_that_got_different_kinds_get_one() {
    let base = golden_dir().join(CUT_CASE.0).join(CUT_CASE.1);
    let stream = std::fs::read(base.with_extension("stream")).unwrap();
    let file = std::fs::read(base.with_extension("arrow_file")).unwrap();
    let default = IpcReadOptions::default();

    // A stream that starts with a dictionary batch (its schema dropped):
    // the first message is not a schema, whether its body is there, cut or
    // absent; judged on its metadata.
    let layout = Layout::parse(&stream, false).unwrap();
    let rest = &stream[layout.msgs[0].span.end..];
    let first = &layout.msgs[1];
    let (meta_end, body_end) = (
        first.meta.end - first.span.start,
        first.span.end - first.span.start,
    );
    assert!(body_end > meta_end, "the dictionary batch has a body");
    for n in [meta_end, meta_end + 1, body_end - 1, body_end, rest.len()] {
        assert_eq!(
            ends(&rest[..n], Format::Stream, default),
            (ErrorKind::UnexpectedMessage, Some(0)),
            "cut at {n}"
        );
    }

    // Too short to be a file (shorter than the leading magic, or than both
    // magics and a footer length): not a file.
    for n in [0, 3, 7, 8, 17] {
        assert_eq!(
            ends(&file[..n], Format::File, default).0,
            ErrorKind::InvalidMagic,
            "{n} bytes"
        );
    }

    // A footer longer than the limit: a limit, before it is read.
    let footer = Layout::parse(&file, true).unwrap().footer.unwrap();
    let small = IpcReadOptions::with_limits(ReadLimits {
        max_metadata_size: footer.len() - 1,
        ..ReadLimits::default()
    });
    assert_eq!(ends(&file, Format::File, small).0, ErrorKind::LimitExceeded);

    // The first dictionary block and the last record batch block swapped:
    // the footer points to a record batch where it lists a dictionary.
    let layout = Layout::parse(&file, true).unwrap();
    let (d, r) = (
        layout.blocks[0].clone(),
        layout.blocks[layout.blocks.len() - 1].clone(),
    );
    let mut swapped = file.clone();
    swapped[d.clone()].copy_from_slice(&file[r.clone()]);
    swapped[r].copy_from_slice(&file[d]);
    assert_eq!(
        ends(&swapped, Format::File, default),
        (ErrorKind::UnexpectedMessage, Some(0))
    );
}
