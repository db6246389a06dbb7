//! An Arrow Flight client (feature `flight`): [`FlightClient::put`] uploads
//! record batches with `DoPut`, [`FlightClient::get`] downloads a flight with
//! `GetFlightInfo` and `DoGet`, as batches read while they arrive.
//!
//! Flight ("Arrow Flight RPC" in the Arrow format documentation) is gRPC
//! whose data calls stream `FlightData` messages, each one encapsulated IPC
//! message of the stream format: the metadata flatbuffer as `data_header`,
//! the body as `data_body`. The client sends alkaid's encoded messages as
//! they are (no value is re-encoded) and reads the server's messages with
//! the shim's stream reader, so limits and validation are the readers'.
//!
//! The client is blocking: it drives its calls on a private tokio runtime,
//! so a program without async code can use it, and a `put` can forward a
//! live stream (a device's, read as it arrives) batch by batch.
//!
//! ```no_run
//! use alkaid_std::array::{Array, Int64Array, RecordBatch};
//! use alkaid_std::flight::FlightClient;
//!
//! let batch = RecordBatch::try_from_iter([("v", Int64Array::from(vec![1, 2]).into_array_ref())])?;
//! let mut client = FlightClient::connect("grpc://127.0.0.1:8815")?;
//! client.put(&["sensors"], batch.schema(), [Ok(batch.clone())])?;
//! let back: Vec<_> = client.get(&["sensors"])?.collect::<alkaid_std::Result<_>>()?;
//! assert_eq!(back, [batch]);
//! # Ok::<(), alkaid_std::Error>(())
//! ```

mod data;
mod read;

/// The Flight protocol's messages and gRPC client, generated from
/// `std-shim/proto/Flight.proto` (package `arrow.flight.protocol`) by
/// `std-shim/flight-gen` and committed; the `generated_is_current` test
/// checks it is up to date.
#[allow(missing_docs, clippy::all, clippy::pedantic)]
#[rustfmt::skip]
pub mod protocol {
    include!("generated/arrow.flight.protocol.rs");
}

/// gRPC status codes and statuses ([`Error::Flight`] holds a `Status`).
pub use tonic::{Code, Status};

use std::cell::RefCell;
use std::io::{self, Write};
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

use alkaid::array::RecordBatch;
use alkaid::datatypes::Schema;
use alkaid::Global;
use tokio::runtime::Runtime;
use tokio_stream::wrappers::ReceiverStream;
use tonic::transport::{Channel, Endpoint};

use self::protocol::flight_service_client::FlightServiceClient;
use self::protocol::FlightData;
use crate::error::{Error, Result};
use crate::read::IpcReader;
use crate::write::StreamWriter;

/// How long connecting may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// HTTP/2 keep-alive pings: a server that stops answering them for
/// `KEEPALIVE_TIMEOUT` fails the call instead of hanging it.
const KEEPALIVE_INTERVAL: Duration = Duration::from_secs(5);
/// See [`KEEPALIVE_INTERVAL`].
const KEEPALIVE_TIMEOUT: Duration = Duration::from_secs(10);
/// `FlightData` messages queued between the encoding thread and the call.
const QUEUE: usize = 16;

/// A connection to a Flight server.
#[derive(Debug, Clone)]
pub struct FlightClient {
    runtime: Arc<Runtime>,
    client: FlightServiceClient<Channel>,
}

/// What [`FlightClient::put`] sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PutSummary {
    /// Record batches sent.
    pub batches: u64,
    /// Rows in them.
    pub rows: u64,
    /// `FlightData` messages sent (schema, dictionary batches, record
    /// batches).
    pub messages: u64,
}

/// `http://…` for `grpc://…` and `grpc+tcp://…`; TLS is not built in.
fn endpoint_uri(url: &str) -> Result<String> {
    for scheme in ["grpc://", "grpc+tcp://"] {
        if let Some(rest) = url.strip_prefix(scheme) {
            return Ok(format!("http://{rest}"));
        }
    }
    if url.starts_with("http://") {
        return Ok(url.to_string());
    }
    Err(Error::Flight(Box::new(tonic::Status::invalid_argument(
        format!(
            "unsupported Flight location {url:?}: expected grpc://HOST:PORT (TLS is not built in)"
        ),
    ))))
}

/// A transport error as the status a call would report.
fn unavailable(e: tonic::transport::Error) -> Error {
    let mut msg = e.to_string();
    let mut source = std::error::Error::source(&e);
    while let Some(s) = source {
        let text = s.to_string();
        if !msg.contains(&text) {
            msg.push_str(": ");
            msg.push_str(&text);
        }
        source = s.source();
    }
    Error::Flight(Box::new(tonic::Status::unavailable(msg)))
}

impl FlightClient {
    /// Connects to the Flight server at `url` (`grpc://HOST:PORT`,
    /// `grpc+tcp://HOST:PORT` or `http://HOST:PORT`), within 10 seconds.
    ///
    /// # Errors
    /// [`Error::Flight`] with status `InvalidArgument` for another scheme
    /// (`grpc+tls://` is not built in) and `Unavailable` when the server
    /// cannot be reached; [`Error::Io`] when the runtime cannot start.
    pub fn connect(url: &str) -> Result<Self> {
        let uri = endpoint_uri(url)?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()?;
        let endpoint = Endpoint::from_shared(uri)
            .map_err(unavailable)?
            .connect_timeout(CONNECT_TIMEOUT)
            .tcp_keepalive(Some(KEEPALIVE_INTERVAL))
            .http2_keep_alive_interval(KEEPALIVE_INTERVAL)
            .keep_alive_timeout(KEEPALIVE_TIMEOUT)
            .keep_alive_while_idle(true);
        let channel = runtime.block_on(endpoint.connect()).map_err(unavailable)?;
        Ok(FlightClient {
            runtime: Arc::new(runtime),
            client: FlightServiceClient::new(channel),
        })
    }

    /// Uploads `batches` of `schema` as the flight named by the path
    /// `path` (`DoPut`): the schema message (carrying the flight
    /// descriptor), then for each batch its dictionary batches (as the IPC
    /// stream writer emits them: new, delta or replacement) and its record
    /// batch. Each batch is sent as soon as `batches` yields it, so a live
    /// reader is forwarded as it arrives; the server's acknowledgements are
    /// read and dropped.
    ///
    /// When `batches` yields an error the batches before it have been sent
    /// whole; the call is closed and that error returned.
    ///
    /// # Errors
    /// [`Error::Flight`] with the server's gRPC status (a refusal, or
    /// `Unavailable` / `Unknown` when the server goes away); the errors of
    /// the IPC stream writer; the first error of `batches`.
    pub fn put<'a, I>(
        &mut self,
        path: &[&str],
        schema: &Schema<'a, Global>,
        batches: I,
    ) -> Result<PutSummary>
    where
        I: IntoIterator<Item = Result<RecordBatch<'a, Global>>>,
    {
        let (tx, rx) = tokio::sync::mpsc::channel::<FlightData>(QUEUE);
        let mut client = self.client.clone();
        let call = self.runtime.spawn(async move {
            let mut acks = client.do_put(ReceiverStream::new(rx)).await?.into_inner();
            while acks.message().await?.is_some() {}
            Ok::<(), tonic::Status>(())
        });
        let mut summary = PutSummary {
            batches: 0,
            rows: 0,
            messages: 0,
        };
        let sent = send_batches(&tx, path, schema, batches, &mut summary);
        drop(tx);
        let outcome = self
            .runtime
            .block_on(call)
            .map_err(|e| Error::Flight(Box::new(tonic::Status::internal(e.to_string()))))?;
        // The server's status explains a closed queue better than the queue.
        outcome.map_err(|s| Error::Flight(Box::new(s)))?;
        sent.map(|()| summary)
    }

    /// Downloads the flight named by the path `path`: `GetFlightInfo`, then
    /// `DoGet` of each endpoint's ticket in order (on this connection; the
    /// endpoints' other locations are not followed), read as one IPC stream
    /// while it arrives (the schema of the second and later endpoints is
    /// dropped). Batches are validated fully, as [`crate::read_stream`] does.
    ///
    /// # Errors
    /// [`Error::Flight`] with the server's gRPC status; the errors of
    /// [`crate::read_stream`] for the first message, later ones from the
    /// reader.
    pub fn get(&mut self, path: &[&str]) -> Result<IpcReader<'static>> {
        let mut client = self.client.clone();
        let descriptor = data::path_descriptor(path);
        let info = self
            .runtime
            .block_on(client.get_flight_info(descriptor))
            .map_err(|s| Error::Flight(Box::new(s)))?
            .into_inner();
        let tickets = info.endpoint.into_iter().filter_map(|e| e.ticket).collect();
        let src = read::FlightRead::new(Arc::clone(&self.runtime), client, tickets);
        crate::read::read_stream(src)
    }
}

/// A `std::io::Write` sink whose bytes the owner takes out between writes.
#[derive(Debug, Clone, Default)]
struct SharedSink(Rc<RefCell<Vec<u8>>>);

impl SharedSink {
    fn take(&self) -> Vec<u8> {
        std::mem::take(&mut *self.0.borrow_mut())
    }
}

impl Write for SharedSink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Encodes and queues the messages of `put`; `Ok` also when the queue
/// closed early (the call's status says why).
fn send_batches<'a, I>(
    tx: &tokio::sync::mpsc::Sender<FlightData>,
    path: &[&str],
    schema: &Schema<'a, Global>,
    batches: I,
    summary: &mut PutSummary,
) -> Result<()>
where
    I: IntoIterator<Item = Result<RecordBatch<'a, Global>>>,
{
    let sink = SharedSink::default();
    let mut writer = StreamWriter::try_new(sink.clone(), schema)?;
    let mut descriptor = Some(data::path_descriptor(path));
    let mut queue = |summary: &mut PutSummary| -> Result<bool> {
        for mut message in data::split_messages(&sink.take())? {
            message.flight_descriptor = descriptor.take();
            if tx.blocking_send(message).is_err() {
                return Ok(false);
            }
            summary.messages += 1;
        }
        Ok(true)
    };
    if !queue(summary)? {
        return Ok(());
    }
    for batch in batches {
        let batch = batch?;
        writer.write(&batch)?;
        if !queue(summary)? {
            return Ok(());
        }
        summary.batches += 1;
        summary.rows += batch.num_rows() as u64;
    }
    Ok(())
}
