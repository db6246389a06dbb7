#!/usr/bin/env python3
"""Reads the sensor demo's stream on the host: read.py <sensor.arrows> [--check]

- pyarrow: the schema, the batches, summary statistics per channel;
- polars: the same stream read by polars, statistics per status;
- DuckDB: SQL over the pyarrow table (per-minute averages, status counts).

With --check, every value is compared with the simulation recomputed here
from the formulas of targets/sensor-demo/model/src/lib.rs (independently of
the Rust code), and the script prints `read.py: N passed, M failed` and
exits 1 when a check fails. polars and DuckDB are optional in --check mode
(their checks are skipped, and said so, when they are not installed).
"""

import sys

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.ipc as ipc

BATCH_ROWS = 100
BATCHES = 10
START_MS = 1_767_225_600_000
PERIOD_MS = 100
STATUS_LABELS = ["ok", "warm", "vibration", "fault"]
CHANNELS = ["temperature", "humidity", "pressure", "vibration"]


def tri(i, p):
    x = i % p
    return x if x < p // 2 else p - x


def noise(i):
    return ((i * 2_654_435_761) % 2**32 >> 16) & 0xFF


def sample(i):
    t, n = tri(i, 80), noise(i)
    if i % 250 == 249:
        status = 3
    elif n >= 240:
        status = 2
    elif t > 32:
        status = 1
    else:
        status = 0
    return {
        "time": START_MS + PERIOD_MS * i,
        "temperature": 21 + t / 16 + (n % 8) / 128,
        "humidity": None if status == 3 else 45 + ((i // 10) % 40) / 4,
        "pressure": 1007 + tri(i, 200) / 8,
        "vibration": n / 512,
        "status": STATUS_LABELS[status],
    }


class Checks:
    def __init__(self):
        self.passed = self.failed = 0

    def check(self, what, ok, detail=""):
        if ok:
            self.passed += 1
            print(f"ok      {what}")
        else:
            self.failed += 1
            print(f"FAILED  {what}: {detail}")


def main():
    args = [a for a in sys.argv[1:] if a != "--check"]
    check = "--check" in sys.argv[1:]
    if len(args) != 1:
        print("usage: read.py <sensor.arrows> [--check]", file=sys.stderr)
        return 2
    path = args[0]
    c = Checks()

    # --- pyarrow
    reader = ipc.open_stream(path)
    batches = list(reader)
    table = pa.Table.from_batches(batches, schema=reader.schema)
    print(f"== pyarrow {pa.__version__}: {len(batches)} batches, {table.num_rows} rows")
    print(table.schema)
    print()
    print(f"{'channel':<12} {'min':>10} {'mean':>10} {'max':>10} {'nulls':>6}")
    for ch in CHANNELS:
        col = table.column(ch)
        mm = pc.min_max(col)
        print(
            f"{ch:<12} {mm['min'].as_py():>10.3f} {pc.mean(col).as_py():>10.3f} "
            f"{mm['max'].as_py():>10.3f} {col.null_count:>6}"
        )
    t = table.column("time")
    print(f"time: {pc.min(t).as_py()} .. {pc.max(t).as_py()}")
    counts = pc.value_counts(table.column("status").combine_chunks().dictionary_decode())
    print("status: " + ", ".join(f"{d['values']}={d['counts']}" for d in counts.to_pylist()))

    if check:
        want_rows = [sample(i) for i in range(BATCHES * BATCH_ROWS)]
        c.check(
            f"pyarrow: {BATCHES} batches of {BATCH_ROWS} rows",
            [b.num_rows for b in batches] == [BATCH_ROWS] * BATCHES,
            str([b.num_rows for b in batches]),
        )
        c.check(
            "pyarrow: schema",
            table.schema.names == ["time", *CHANNELS, "status"]
            and table.schema.field("time").type == pa.timestamp("ms", tz="UTC")
            and all(table.schema.field(ch).type == pa.float32() for ch in CHANNELS)
            and table.schema.field("status").type == pa.dictionary(pa.int8(), pa.string()),
            str(table.schema),
        )
        got = {
            "time": table.column("time").cast(pa.int64()).to_pylist(),
            **{ch: table.column(ch).to_pylist() for ch in CHANNELS},
            "status": table.column("status").to_pylist(),
        }
        for name, values in got.items():
            want = [r[name] for r in want_rows]
            bad = [k for k, (g, w) in enumerate(zip(values, want)) if g != w]
            c.check(
                f"pyarrow: column {name} matches the simulation",
                len(values) == len(want) and not bad,
                f"first difference at sample {bad[0]}: got {values[bad[0]]!r}, want {want[bad[0]]!r}"
                if bad
                else f"{len(values)} values",
            )

    # --- polars
    try:
        import polars as pl
    except ImportError:
        pl = None
        print("\n== polars: not installed (scripts/install.sh puts it in the .venv)")
    if pl is not None:
        df = pl.read_ipc_stream(path)
        print(f"\n== polars {pl.__version__}: {df.height} rows")
        summary = (
            df.group_by("status")
            .agg(
                pl.len().alias("samples"),
                pl.col("temperature").mean().round(3).alias("mean_temperature"),
                pl.col("vibration").max().alias("max_vibration"),
                pl.col("humidity").null_count().alias("humidity_nulls"),
            )
            .sort("samples", descending=True)
        )
        print(summary)
        if check:
            expected = pl.DataFrame(
                {
                    "temperature": [r["temperature"] for r in want_rows],
                    "status": [r["status"] for r in want_rows],
                }
            )
            c.check(
                "polars: rows, temperatures and statuses match the simulation",
                df.height == len(want_rows)
                and df["temperature"].cast(pl.Float64).to_list() == expected["temperature"].to_list()
                and df["status"].cast(pl.String).to_list() == expected["status"].to_list(),
                f"{df.height} rows",
            )

    # --- DuckDB
    try:
        import duckdb
    except ImportError:
        duckdb = None
        print("\n== DuckDB: not installed (scripts/install.sh puts it in the .venv)")
    if duckdb is not None:
        con = duckdb.connect()
        con.register("sensors", table)
        print(f"\n== DuckDB {duckdb.__version__}: per-10-second averages (first 5 windows)")
        per_window = con.sql(
            """
            SELECT time_bucket(INTERVAL 10 SECOND, time) AS bucket,
                   count(*) AS samples,
                   round(avg(temperature), 3) AS avg_temp,
                   round(avg(humidity), 3) AS avg_humidity,
                   round(avg(pressure), 3) AS avg_pressure,
                   count(*) FILTER (WHERE status <> 'ok') AS alerts
            FROM sensors GROUP BY bucket ORDER BY bucket
            """
        )
        per_window.limit(5).show()
        if check:
            [(n, alerts, faults)] = con.sql(
                "SELECT count(*), count(*) FILTER (WHERE status <> 'ok'),"
                " count(*) FILTER (WHERE status = 'fault' AND humidity IS NULL) FROM sensors"
            ).fetchall()
            want_alerts = sum(r["status"] != "ok" for r in want_rows)
            want_faults = sum(r["status"] == "fault" for r in want_rows)
            c.check(
                "DuckDB: row, alert and fault counts match the simulation",
                (n, alerts, faults) == (len(want_rows), want_alerts, want_faults),
                f"got {(n, alerts, faults)}, want {(len(want_rows), want_alerts, want_faults)}",
            )

    if check:
        print(f"read.py: {c.passed} passed, {c.failed} failed")
        return 0 if c.failed == 0 else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
