"""A pyarrow Flight server for alkaid's Flight tests and the sensor demo.

    python flight_server.py [--port N] [--dump DIR] [--refuse]

Binds 127.0.0.1 (port 0: any free port) and prints the port on the first
line of standard output once it serves. DoPut stores the uploaded batches as
they came (zero-row batches too) under the descriptor's path (also when the
upload ends early: the batches received whole are kept); with --dump DIR it is also written to
DIR/<path segments joined by '.'>.arrows (IPC stream) for other readers,
and the arrival of every batch is logged to DIR/arrivals.log as
`<unix time, seconds> <path> <rows>` lines (the demo's latency figures).
GetFlightInfo and DoGet serve the stored tables (the ticket is the path,
segments joined by NUL). With --refuse every DoPut is refused with
UNAUTHORIZED (PermissionDenied).
"""

import argparse
import os
import sys
import time

import pyarrow as pa
import pyarrow.flight as flight


class Server(flight.FlightServerBase):
    def __init__(self, location, dump=None, refuse=False):
        super().__init__(location)
        self.tables = {}
        self.dump = dump
        self.refuse = refuse

    @staticmethod
    def key(descriptor):
        return tuple(p.decode() if isinstance(p, bytes) else p for p in descriptor.path)

    def do_put(self, context, descriptor, reader, writer):
        if self.refuse:
            raise flight.FlightUnauthorizedError("uploads are refused by this server")
        key = self.key(descriptor)
        batches = []
        try:
            for chunk in reader:
                batches.append(chunk.data)
                if self.dump:
                    with open(os.path.join(self.dump, "arrivals.log"), "a") as log:
                        log.write(f"{time.time():.6f} {'/'.join(key)} {chunk.data.num_rows}\n")
        finally:
            self.tables[key] = (reader.schema, batches)
            if self.dump:
                path = os.path.join(self.dump, ".".join(key) + ".arrows")
                tmp = path + ".tmp"
                with pa.OSFile(tmp, "wb") as f, pa.ipc.new_stream(f, reader.schema) as w:
                    for batch in batches:
                        w.write_batch(batch)
                os.replace(tmp, path)

    def get_flight_info(self, context, descriptor):
        key = self.key(descriptor)
        stored = self.tables.get(key)
        if stored is None:
            raise KeyError(f"no flight {'/'.join(key)}")
        schema, batches = stored
        ticket = flight.Ticket("\0".join(key).encode())
        endpoint = flight.FlightEndpoint(ticket, [])
        rows = sum(b.num_rows for b in batches)
        return flight.FlightInfo(schema, descriptor, [endpoint], rows, -1)

    def do_get(self, context, ticket):
        key = tuple(ticket.ticket.decode().split("\0"))
        stored = self.tables.get(key)
        if stored is None:
            raise KeyError(f"no flight {'/'.join(key)}")
        schema, batches = stored
        return flight.RecordBatchStream(pa.RecordBatchReader.from_batches(schema, batches))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--dump")
    p.add_argument("--refuse", action="store_true")
    args = p.parse_args()
    server = Server(f"grpc://127.0.0.1:{args.port}", dump=args.dump, refuse=args.refuse)
    print(server.port, flush=True)
    server.serve()


if __name__ == "__main__":
    sys.exit(main())
