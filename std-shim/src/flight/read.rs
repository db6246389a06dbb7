//! [`FlightRead`]: the `DoGet` streams of a flight's tickets as the bytes of
//! one IPC stream, for the shim's stream reader.

use std::collections::VecDeque;
use std::io::{self, Read};
use std::sync::Arc;

use alkaid::ipc::message::{MessageHeader, MessageView};
use tokio::runtime::Runtime;
use tonic::transport::Channel;
use tonic::Streaming;

use super::data::frame_message;
use super::protocol::flight_service_client::FlightServiceClient;
use super::protocol::{FlightData, Ticket};
use crate::error::Error;

/// Reads the `DoGet` streams of `tickets` one after the other, framing each
/// `FlightData` as an encapsulated message; the schema message of every
/// stream but the first is dropped.
pub(crate) struct FlightRead {
    runtime: Arc<Runtime>,
    client: FlightServiceClient<Channel>,
    tickets: VecDeque<Ticket>,
    current: Option<Streaming<FlightData>>,
    /// Streams opened so far.
    streams: usize,
    buf: Vec<u8>,
    pos: usize,
}

impl FlightRead {
    pub(crate) fn new(
        runtime: Arc<Runtime>,
        client: FlightServiceClient<Channel>,
        tickets: VecDeque<Ticket>,
    ) -> Self {
        FlightRead {
            runtime,
            client,
            tickets,
            current: None,
            streams: 0,
            buf: Vec::new(),
            pos: 0,
        }
    }

    /// Refills `buf` with the next message; `false` at the end of the last
    /// stream.
    fn refill(&mut self) -> io::Result<bool> {
        self.buf.clear();
        self.pos = 0;
        loop {
            let Some(stream) = self.current.as_mut() else {
                let Some(ticket) = self.tickets.pop_front() else {
                    return Ok(false);
                };
                let mut client = self.client.clone();
                let stream = self
                    .runtime
                    .block_on(client.do_get(ticket))
                    .map_err(status_error)?
                    .into_inner();
                self.current = Some(stream);
                self.streams += 1;
                continue;
            };
            match self.runtime.block_on(stream.message()) {
                Ok(Some(data)) => {
                    if self.streams > 1 && is_schema(&data) {
                        continue;
                    }
                    frame_message(&data, &mut self.buf);
                    if !self.buf.is_empty() {
                        return Ok(true);
                    }
                }
                Ok(None) => self.current = None,
                Err(s) => return Err(status_error(s)),
            }
        }
    }
}

fn is_schema(data: &FlightData) -> bool {
    MessageView::decode(&data.data_header)
        .is_ok_and(|m| matches!(m.header, MessageHeader::Schema(_)))
}

fn status_error(s: tonic::Status) -> io::Error {
    io::Error::other(Error::Flight(Box::new(s)))
}

impl Read for FlightRead {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if out.is_empty() {
            return Ok(0);
        }
        if self.pos >= self.buf.len() && !self.refill()? {
            return Ok(0);
        }
        let rest = self.buf.get(self.pos..).unwrap_or(&[]);
        let n = rest.len().min(out.len());
        out[..n].copy_from_slice(&rest[..n]);
        self.pos += n;
        Ok(n)
    }
}
