#!/usr/bin/env python3
"""Writes data/sensor.arrows, the stream the reader firmware parses.

Two record batches of 64 rows of the size report's fixed schema, written by
pyarrow (a foreign writer: 8-byte aligned buffers, its own metadata layout):

    timestamp: uint32 not null   = 1000 + 100 * i
    value:     float not null    = 0.5 * i
    label:     string not null   = ["ok", "warn", "hot"][i % 3]

for the stream's row index i = 0..127. src/bin/reader.rs recomputes the same
values. Run with the repository's .venv: .venv/bin/python gen_fixture.py
"""

import pathlib

import pyarrow as pa
import pyarrow.ipc as ipc

ROWS_PER_BATCH = 64
BATCHES = 2
LABELS = ["ok", "warn", "hot"]

schema = pa.schema(
    [
        pa.field("timestamp", pa.uint32(), nullable=False),
        pa.field("value", pa.float32(), nullable=False),
        pa.field("label", pa.string(), nullable=False),
    ]
)
out = pathlib.Path(__file__).parent / "data" / "sensor.arrows"
with ipc.new_stream(out, schema) as w:
    for b in range(BATCHES):
        rows = range(b * ROWS_PER_BATCH, (b + 1) * ROWS_PER_BATCH)
        w.write_batch(
            pa.record_batch(
                [
                    pa.array([1000 + 100 * i for i in rows], pa.uint32()),
                    pa.array([0.5 * i for i in rows], pa.float32()),
                    pa.array([LABELS[i % 3] for i in rows], pa.string()),
                ],
                schema=schema,
            )
        )
print(f"{out}: {out.stat().st_size} bytes")
