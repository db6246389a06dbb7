//! `alkaid`: inspect, validate and convert Arrow IPC streams and files.
//!
//! Exit status: 0 on success; 1 when the input is invalid or an I/O error
//! occurs, with one line on stderr (`invalid: <reason>` from `validate`,
//! `error: <reason>` otherwise); 2 on a usage error. A closed stdout (e.g.
//! `alkaid cat big.arrow | head`) ends the program quietly with status 0;
//! SIGINT, SIGTERM or SIGHUP during `convert` removes its temporary file
//! and exits with 130.

use std::ffi::OsStr;
use std::fs::{self, File};
use std::io::{self, BufReader, BufWriter, IsTerminal, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::Duration;

use alkaid::array::ValidationLevel;
use alkaid::ipc::message::CompressionCodec;
use alkaid_std::flight::FlightClient;
use alkaid_std::format;
use alkaid_std::{
    open_ipc, read_ipc, Error, Follow, IpcFormat, IpcInput, IpcReadOptions, IpcWriteOptions,
    IpcWriter, ThreadedCodecs,
};
use clap::{Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Rows rendered per table by `cat` (cells are measured in memory).
const TABLE_ROWS: usize = 4096;

#[derive(Parser)]
#[command(
    name = "alkaid",
    version,
    about = "Inspect, validate and convert Arrow IPC streams and files",
    long_about = "Inspect, validate and convert Arrow IPC streams and files.\n\n\
                  Inputs may be in the stream or the file format (detected from their \
                  first bytes); `-` is standard input (or output); an input \
                  `tcp://HOST:PORT` is read from a TCP connection as it arrives."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Read a stream or file and write it back, in either format
    Convert {
        /// Input path, or `-` for standard input
        input: PathBuf,
        /// Output path, or `-` for standard output
        output: PathBuf,
        /// Output format [default: the input's]
        #[arg(long, value_enum)]
        format: Option<Format>,
        /// Body compression of the output (each buffer compressed on its own;
        /// buffers that do not shrink are stored uncompressed)
        #[arg(long, value_enum, default_value_t = Compression::None)]
        compression: Compression,
        /// Compress and decompress each batch's buffers on up to N threads
        /// (the output bytes do not depend on N) [default: the number of
        /// CPUs]
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
        threads: Option<u16>,
        #[command(flatten)]
        follow: FollowArgs,
    },
    /// Check the input: exit 0 when valid, 1 with the reason on stderr when not
    ///
    /// Every rule the readers check by default is applied (the structure:
    /// offsets, lengths, UTF-8, views, union ids, run ends, dictionary keys).
    /// The value-domain rules of pyarrow's `validate(full=True)` (decimal
    /// precision, whole-day Date64, time of day, nulls in non-nullable
    /// children) are reported as `warning:` lines on stderr, with the batch
    /// and field, and leave the exit status 0 unless --strict is given.
    Validate {
        /// Input path, or `-` for standard input
        input: PathBuf,
        /// Fail (exit 1) on the first value-domain rule broken, naming the
        /// message, field and buffer
        #[arg(long)]
        strict: bool,
    },
    /// Print the schema, one field per line, then its metadata
    ///
    /// Metadata values over 64 characters are abbreviated as
    /// `'<first 64>' + <characters left out>` unless --full is given.
    Schema {
        /// Input path, or `-` for standard input
        input: PathBuf,
        /// Print metadata values whole
        #[arg(long)]
        full: bool,
        #[command(flatten)]
        follow: FollowArgs,
    },
    /// Send to or fetch from an Arrow Flight server
    #[command(subcommand)]
    Flight(FlightCommand),
    /// Print the rows as one table
    ///
    /// The header is printed once; numbers are right-aligned; column widths
    /// are set by the first rows and only grow; cells wider than
    /// --max-width characters are cut with `…`. Lines are fitted to the
    /// terminal (its width from $COLUMNS, else 80) when stdout is one, or to
    /// --width: the first and last columns are kept, those in the middle
    /// that do not fit are elided as one `…` column, and a last line says
    /// how many. Piped output is not fitted unless --width is given.
    Cat {
        /// Input path, or `-` for standard input
        input: PathBuf,
        /// Print at most N rows
        #[arg(long, value_name = "N")]
        limit: Option<usize>,
        /// Cut cells (and column names) to N characters; 0 prints them whole
        #[arg(long, value_name = "N", default_value_t = format::DEFAULT_MAX_CELL_WIDTH)]
        max_width: usize,
        /// Fit table lines to N characters (overrides the terminal's width)
        #[arg(long, value_name = "N")]
        width: Option<usize>,
        /// Print each row as `name: value` lines under a `-[ row N ]-` header
        #[arg(long)]
        vertical: bool,
        #[command(flatten)]
        follow: FollowArgs,
    },
}

/// How an input file that is still being written is read.
#[derive(clap::Args, Clone, Copy)]
struct FollowArgs {
    /// Read a file that is still being written (as `tail -f`), printing
    /// each batch as soon as it is complete, until the end-of-stream marker
    #[arg(long, short = 'f')]
    follow: bool,
    /// With --follow: give up (a truncated stream) after SECS seconds
    /// without new bytes
    #[arg(long, value_name = "SECS", requires = "follow")]
    idle_timeout: Option<f64>,
}

impl FollowArgs {
    fn idle(self) -> Option<Duration> {
        self.idle_timeout
            .and_then(|s| Duration::try_from_secs_f64(s.max(0.0)).ok())
    }
}

/// Arrow Flight calls.
#[derive(Subcommand)]
enum FlightCommand {
    /// Upload an input as a flight (DoPut), batch by batch as it is read
    ///
    /// A live input (`-`, tcp://HOST:PORT, --follow) is forwarded as it
    /// arrives; when it ends early, the batches read whole have been sent
    /// and the error is reported.
    Put {
        /// The server: grpc://HOST:PORT
        server: String,
        /// The flight's path (segments separated by `/`)
        #[arg(long)]
        path: String,
        /// Input path, `-` for standard input, or tcp://HOST:PORT
        input: PathBuf,
        #[command(flatten)]
        follow: FollowArgs,
    },
    /// Download a flight (GetFlightInfo, DoGet) into an IPC stream or file
    Get {
        /// The server: grpc://HOST:PORT
        server: String,
        /// The flight's path (segments separated by `/`)
        #[arg(long)]
        path: String,
        /// Output path, or `-` for standard output
        output: PathBuf,
        /// Output format
        #[arg(long, value_enum, default_value_t = Format::Stream)]
        format: Format,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    /// The IPC stream format
    Stream,
    /// The IPC file format
    File,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Compression {
    /// Uncompressed bodies
    None,
    /// LZ4 frame
    Lz4,
    /// Zstandard (level 3)
    Zstd,
}

impl Compression {
    fn codec(self) -> Option<CompressionCodec> {
        match self {
            Compression::None => None,
            Compression::Lz4 => Some(CompressionCodec::Lz4Frame),
            Compression::Zstd => Some(CompressionCodec::Zstd),
        }
    }
}

/// Why a command failed.
enum Failure {
    /// The input (path given) is not valid IPC data (or breaks a limit).
    Invalid(String, alkaid::Error),
    /// The input (path given) is not Arrow IPC data at all.
    NotIpc(String),
    /// An operating system error, with what it was about.
    Io(String, io::Error),
    /// A request we cannot carry out (exit status 2).
    Usage(String),
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        match e {
            Error::Io(e) => Failure::Io(String::new(), e),
            Error::Arrow(e) => Failure::Invalid(String::new(), e),
            Error::NotIpc => Failure::NotIpc(String::new()),
            // `Error` is non-exhaustive; keep its message.
            e => Failure::Io(String::new(), io::Error::other(e.to_string())),
        }
    }
}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Self {
        Failure::Io(String::new(), e)
    }
}

/// Attaches `what` (a path; `-` is standard input) to a failure.
fn about(what: &Path) -> impl FnOnce(Error) -> Failure + '_ {
    move |e| {
        let name = if is_dash(what) {
            "<stdin>".to_string()
        } else {
            what.display().to_string()
        };
        match Failure::from(e) {
            Failure::Io(_, e) => Failure::Io(name, e),
            Failure::NotIpc(_) => Failure::NotIpc(name),
            Failure::Invalid(_, e) => Failure::Invalid(name, e),
            f => f,
        }
    }
}

fn is_dash(p: &Path) -> bool {
    p.as_os_str() == OsStr::new("-")
}

/// The address of a `tcp://HOST:PORT` input.
fn tcp_address(path: &Path) -> Option<&str> {
    path.to_str()?.strip_prefix("tcp://")
}

/// Opens `path` (mapped), standard input or a TCP connection.
fn open(path: &Path) -> Result<IpcInput, Failure> {
    open_following(path, None)
}

/// As [`open`]; with `follow`, a file is read as it grows (a stream from
/// its first message, a file-format file from its embedded stream), and
/// the end comes with the end-of-stream marker or after the idle limit.
fn open_following(path: &Path, follow: Option<FollowArgs>) -> Result<IpcInput, Failure> {
    if is_dash(path) {
        return read_ipc(io::stdin().lock()).map_err(about(Path::new("<stdin>")));
    }
    if let Some(addr) = tcp_address(path) {
        let conn = TcpStream::connect(addr).map_err(|e| Failure::Io(addr.to_string(), e))?;
        return read_ipc(BufReader::new(conn)).map_err(about(path));
    }
    let Some(follow) = follow.filter(|f| f.follow) else {
        return open_ipc(path).map_err(about(path));
    };
    let file = File::open(path).map_err(|e| Failure::Io(path.display().to_string(), e))?;
    let mut src = Follow::new(file).idle_limit(follow.idle());
    let mut head = [0u8; 8];
    src.read_exact(&mut head)
        .map_err(|e| Failure::Io(path.display().to_string(), e))?;
    // A file-format file holds a stream after its 8-byte magic and padding;
    // the footer comes after that stream's end-of-stream marker.
    let input = if IpcFormat::detect(&head) == IpcFormat::File {
        read_ipc(src)
    } else {
        read_ipc(io::Cursor::new(head).chain(src))
    };
    input.map_err(about(path))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let validating = matches!(cli.command, Command::Validate { .. });
    let result = match cli.command {
        Command::Convert {
            input,
            output,
            format,
            compression,
            threads,
            follow,
        } => convert(&input, &output, format, compression, threads, follow),
        Command::Validate { input, strict } => validate(&input, strict),
        Command::Flight(FlightCommand::Put {
            server,
            path,
            input,
            follow,
        }) => flight_put(&server, &path, &input, follow),
        Command::Flight(FlightCommand::Get {
            server,
            path,
            output,
            format,
        }) => flight_get(&server, &path, &output, format),
        Command::Schema {
            input,
            full,
            follow,
        } => schema(&input, full, follow),
        Command::Cat {
            input,
            limit,
            max_width,
            width,
            vertical,
            follow,
        } => cat(
            &input,
            CatLayout {
                limit,
                max_width: (max_width > 0).then_some(max_width),
                width: width.or_else(terminal_width),
                vertical,
            },
            follow,
        ),
    };
    let mut stderr = io::stderr().lock();
    // Writes to stderr may fail (closed); there is nothing left to tell then.
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Io(_, e)) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(Failure::Invalid(what, e)) => {
            let tag = if validating { "invalid" } else { "error" };
            let _ = if what.is_empty() {
                writeln!(stderr, "{tag}: {e}")
            } else {
                writeln!(stderr, "{tag}: {what}: {e}")
            };
            ExitCode::from(1)
        }
        Err(Failure::NotIpc(what)) => {
            let tag = if validating { "invalid" } else { "error" };
            let _ = writeln!(stderr, "{tag}: {what}: {}", Error::NotIpc);
            ExitCode::from(1)
        }
        Err(Failure::Io(what, e)) => {
            let _ = if what.is_empty() {
                writeln!(stderr, "error: {e}")
            } else {
                writeln!(stderr, "error: {what}: {e}")
            };
            ExitCode::from(1)
        }
        Err(Failure::Usage(msg)) => {
            let _ = writeln!(stderr, "error: {msg}");
            ExitCode::from(2)
        }
    }
}

fn validate(input: &Path, strict: bool) -> Result<(), Failure> {
    let src = open(input)?;
    let mut out = io::stdout().lock();
    if strict {
        let options = IpcReadOptions::default().with_strict_validation();
        let mut reader = src.reader_with(options).map_err(about(input))?;
        let format = reader.format();
        let (batches, rows) = reader
            .validate_all(ValidationLevel::Strict)
            .map_err(about(input))?;
        writeln!(out, "valid: {format}, {batches} batches, {rows} rows")?;
        out.flush()?;
        return Ok(());
    }
    let mut reader = src.reader().map_err(about(input))?;
    let format = reader.format();
    let (mut batches, mut rows, mut warnings) = (0usize, 0usize, 0usize);
    let mut stderr = io::stderr().lock();
    while let Some(batch) = reader.next_batch().map_err(about(input))? {
        // The reader checked the structure; the value rules are reported.
        if let Err(e) = batch.validate(ValidationLevel::Strict) {
            warnings += 1;
            // A closed stderr loses the warning, not the verdict.
            let _ = writeln!(stderr, "warning: {}: batch {batches}: {e}", input.display());
        }
        batches += 1;
        rows = rows.saturating_add(batch.num_rows());
    }
    write!(out, "valid: {format}, {batches} batches, {rows} rows")?;
    if warnings > 0 {
        write!(
            out,
            " ({warnings} batches break value rules; --strict refuses them)"
        )?;
    }
    writeln!(out)?;
    out.flush()?;
    Ok(())
}

fn schema(input: &Path, full: bool, follow: FollowArgs) -> Result<(), Failure> {
    let src = open_following(input, Some(follow))?;
    let reader = src.reader().map_err(about(input))?;
    let mut out = io::stdout().lock();
    let display = format::schema(reader.schema());
    let display = if full {
        display.full_metadata()
    } else {
        display
    };
    write!(out, "{display}")?;
    out.flush()?;
    Ok(())
}

/// How `cat` lays out its rows.
struct CatLayout {
    limit: Option<usize>,
    max_width: Option<usize>,
    /// Line width to fit the table to (`None`: no limit).
    width: Option<usize>,
    vertical: bool,
}

/// The width of the terminal when stdout is one: `$COLUMNS`, else 80.
fn terminal_width() -> Option<usize> {
    if !io::stdout().is_terminal() {
        return None;
    }
    let columns = std::env::var("COLUMNS").ok();
    Some(columns.and_then(|c| c.trim().parse().ok()).unwrap_or(80))
}

fn cat(input: &Path, layout: CatLayout, follow: FollowArgs) -> Result<(), Failure> {
    let src = open_following(input, Some(follow))?;
    let mut reader = src.reader().map_err(about(input))?;
    let mut out = BufWriter::new(io::stdout().lock());
    let max_width = layout.max_width;
    let mut table =
        format::TableWriter::new(reader.schema(), max_width).with_line_width(layout.width);
    let mut text = String::new();
    let limit = layout.limit.unwrap_or(usize::MAX);
    let mut printed = 0usize;
    while printed < limit {
        let Some(batch) = reader.next_batch().map_err(about(input))? else {
            break;
        };
        // A batch is rendered `TABLE_ROWS` rows at a time, to bound memory.
        let n = batch.num_rows().min(limit - printed);
        let mut start = 0usize;
        while start < n {
            let end = start.saturating_add(TABLE_ROWS).min(n);
            text.clear();
            if layout.vertical {
                let first = printed.saturating_add(start).saturating_add(1);
                format::write_vertical(&mut text, &batch, start..end, first, max_width)
            } else {
                table.write_rows(&mut text, &batch, start..end)
            }
            .map_err(fmt_failure)?;
            out.write_all(text.as_bytes())?;
            start = end;
        }
        // Each batch is shown as soon as it is complete (a live input).
        out.flush()?;
        printed += n;
    }
    if !layout.vertical {
        text.clear();
        table.finish(&mut text).map_err(fmt_failure)?;
        out.write_all(text.as_bytes())?;
    }
    out.flush()?;
    Ok(())
}

/// Formatting into a `String` fails only if a value's rendering does.
fn fmt_failure(_: std::fmt::Error) -> Failure {
    Failure::Io(String::new(), io::Error::other("formatting a value failed"))
}

/// `a/b/c` as path segments (empty segments dropped).
fn segments(path: &str) -> Vec<&str> {
    path.split('/').filter(|s| !s.is_empty()).collect()
}

fn flight_put(server: &str, path: &str, input: &Path, follow: FollowArgs) -> Result<(), Failure> {
    let src = open_following(input, Some(follow))?;
    let reader = src.reader().map_err(about(input))?;
    let schema = reader.schema().clone();
    let mut client = FlightClient::connect(server).map_err(Failure::from)?;
    let progress = progress_bar(reader.num_batches());
    let batches = reader.inspect(|_| progress.inc(1));
    let summary = client.put(&segments(path), &schema, batches);
    progress.finish_and_clear();
    let summary = summary.map_err(about(input))?;
    let mut err = io::stderr().lock();
    let _ = writeln!(
        err,
        "put {} batches ({} rows) to {server} as {path}",
        summary.batches, summary.rows
    );
    Ok(())
}

fn flight_get(server: &str, path: &str, output: &Path, format: Format) -> Result<(), Failure> {
    let sink = Sink::new(output)?;
    let mut client = FlightClient::connect(server).map_err(Failure::from)?;
    let mut reader = client.get(&segments(path)).map_err(Failure::from)?;
    let schema = reader.schema().clone();
    let format = match format {
        Format::Stream => IpcFormat::Stream,
        Format::File => IpcFormat::File,
    };
    remove_temporary_on_signal();
    let out = sink.open()?;
    let result = (|| -> Result<(), Failure> {
        let mut w = IpcWriter::try_new(out, format, &schema, IpcWriteOptions::default())
            .map_err(about(output))?;
        while let Some(batch) = reader.next_batch().map_err(Failure::from)? {
            w.write(&batch).map_err(about(output))?;
        }
        w.finish().map_err(about(output))?;
        Ok(())
    })();
    match result {
        Ok(()) => sink.commit(),
        Err(e) => {
            sink.abort();
            Err(e)
        }
    }
}

/// A progress indicator on stderr, counting batches (of `total` when known),
/// drawn only when stderr is a terminal.
fn progress_bar(total: Option<usize>) -> ProgressBar {
    if !io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = match total {
        Some(n) => ProgressBar::new(n as u64).with_style(
            ProgressStyle::with_template("{bar:30} {pos}/{len} batches, {msg} [{elapsed}]")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        ),
        None => ProgressBar::new_spinner().with_style(
            ProgressStyle::with_template("{spinner} {pos} batches, {msg} [{elapsed}]")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        ),
    };
    bar.set_draw_target(ProgressDrawTarget::stderr());
    bar
}

/// Where `convert` writes: standard output, a temporary file renamed over
/// the target on success, or (for a device or FIFO) the target itself.
///
/// Errors name the path the user gave, never the temporary file.
enum Sink {
    Stdout,
    Replace {
        tmp: PathBuf,
        target: PathBuf,
        given: PathBuf,
    },
    Direct(PathBuf),
}

/// The temporary file of a running `convert`, removed by the signal handler
/// when SIGINT, SIGTERM or SIGHUP ends the program.
static TEMPORARY: Mutex<Option<PathBuf>> = Mutex::new(None);

/// Sets (or clears) [`TEMPORARY`].
fn set_temporary(path: Option<&Path>) {
    if let Ok(mut t) = TEMPORARY.lock() {
        *t = path.map(Path::to_path_buf);
    }
}

/// Installs the handler that removes [`TEMPORARY`] and exits with 130 (the
/// shell's status for a program ended by SIGINT).
fn remove_temporary_on_signal() {
    // A handler may already be installed (it cannot be twice); then the
    // default disposition stays and the file may be left behind.
    let _ = ctrlc::set_handler(|| {
        if let Ok(mut t) = TEMPORARY.lock() {
            if let Some(p) = t.take() {
                let _ = fs::remove_file(p);
            }
        }
        std::process::exit(130);
    });
}

impl Sink {
    fn new(output: &Path) -> Result<Sink, Failure> {
        if is_dash(output) {
            if io::stdout().is_terminal() {
                return Err(Failure::Usage(
                    "refusing to write binary IPC data to a terminal; redirect it or give a path"
                        .into(),
                ));
            }
            return Ok(Sink::Stdout);
        }
        match fs::metadata(output) {
            Ok(m) if !m.is_file() => return Ok(Sink::Direct(output.to_path_buf())),
            _ => {}
        }
        // Replace a regular file by renaming, never by truncating it: the
        // input may be that very file, mapped.
        let target = fs::canonicalize(output).unwrap_or_else(|_| output.to_path_buf());
        let name = target
            .file_name()
            .ok_or_else(|| Failure::Usage(format!("{}: not a file name", output.display())))?;
        let mut tmp_name = std::ffi::OsString::from(".");
        tmp_name.push(name);
        tmp_name.push(format!(".alkaid-tmp-{}", std::process::id()));
        let tmp = target.with_file_name(tmp_name);
        Ok(Sink::Replace {
            tmp,
            target,
            given: output.to_path_buf(),
        })
    }

    fn open(&self) -> Result<Box<dyn Write>, Failure> {
        Ok(match self {
            Sink::Stdout => Box::new(BufWriter::new(io::stdout().lock())),
            Sink::Replace { tmp, given, .. } => {
                set_temporary(Some(tmp));
                let f = File::options()
                    .write(true)
                    .create_new(true)
                    .open(tmp)
                    .map_err(|e| Failure::Io(given.display().to_string(), e))?;
                Box::new(BufWriter::new(f))
            }
            Sink::Direct(p) => {
                let f = File::create(p).map_err(|e| Failure::Io(p.display().to_string(), e))?;
                Box::new(BufWriter::new(f))
            }
        })
    }

    fn commit(&self) -> Result<(), Failure> {
        if let Sink::Replace {
            tmp, target, given, ..
        } = self
        {
            let renamed = fs::rename(tmp, target);
            set_temporary(None);
            renamed.map_err(|e| Failure::Io(given.display().to_string(), e))?;
        }
        Ok(())
    }

    fn abort(&self) {
        if let Sink::Replace { tmp, .. } = self {
            let _ = fs::remove_file(tmp);
            set_temporary(None);
        }
    }
}

fn convert(
    input: &Path,
    output: &Path,
    format: Option<Format>,
    compression: Compression,
    threads: Option<u16>,
    follow: FollowArgs,
) -> Result<(), Failure> {
    let threads = threads.map_or_else(
        || std::thread::available_parallelism().map_or(1, usize::from),
        usize::from,
    );
    let sink = Sink::new(output)?;
    let src = open_following(input, Some(follow))?;
    let mut reader = src
        .reader_with_codecs(IpcReadOptions::default(), ThreadedCodecs::new(threads))
        .map_err(about(input))?;
    let format = match format {
        Some(Format::Stream) => IpcFormat::Stream,
        Some(Format::File) => IpcFormat::File,
        None => reader.format(),
    };
    let schema = reader.schema().clone();
    remove_temporary_on_signal();
    let out = sink.open()?;
    let progress = progress_bar(reader.num_batches());
    let result = (|| -> Result<(), Failure> {
        let options = IpcWriteOptions {
            compression: compression.codec(),
            ..IpcWriteOptions::default()
        };
        let codecs = ThreadedCodecs::new(threads);
        let mut w = IpcWriter::try_new_with_codecs(out, format, &schema, options, codecs)
            .map_err(about(output))?;
        let mut rows = 0usize;
        while let Some(batch) = reader.next_batch().map_err(about(input))? {
            w.write(&batch).map_err(about(output))?;
            rows = rows.saturating_add(batch.num_rows());
            progress.inc(1);
            progress.set_message(format!("{rows} rows"));
        }
        w.finish().map_err(about(output))?;
        Ok(())
    })();
    progress.finish_and_clear();
    match result {
        Ok(()) => sink.commit(),
        Err(e) => {
            sink.abort();
            Err(e)
        }
    }
}
