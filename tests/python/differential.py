"""pyarrow's verdict on mutated IPC inputs (tests/differential_pyarrow.rs).

Usage: differential.py MANIFEST.json [START]

MANIFEST is a JSON list of objects
  {"id": str, "input": path, "format": "stream"|"file", "ours": path|null}
where "input" is a mutated golden stream or file and "ours" (when alkaid
accepted the input) is alkaid's reading of it written again by alkaid's
StreamWriter. Entries before index START (default 0) are skipped: the Rust
side restarts the script after the entry it was on when pyarrow crashed.

For each entry, pyarrow reads the whole input from memory
(`open_stream(...).read_all()` or `open_file(...).read_all()`) and checks it
with `Table.validate(full=True)`. It accepts when both succeed. When it
accepts and "ours" is given, it reads "ours" the same way and compares
(`Table.equals(check_metadata=True)`, schema first, then every column).

Prints one JSON object per entry on stdout, flushed, in manifest order:
  {"id": str, "accept": bool, "error": str, "equal": bool|null, "detail": str}
where "error" is pyarrow's exception when it rejects, "equal" is null when
there was nothing to compare, and "detail" names the first difference.
"""

import json
import os
import sys

import pyarrow as pa
import pyarrow.ipc as ipc

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_ipc import column_diff, schema_diff  # noqa: E402


def read_table(path, fmt):
    """The whole table of an IPC input, read from memory (so that a length
    field past the end of the input is caught rather than allocated)."""
    with open(path, "rb") as f:
        data = f.read()
    buf = pa.py_buffer(data)
    if fmt == "stream":
        with ipc.open_stream(buf) as r:
            table = r.read_all()
    elif fmt == "file":
        with ipc.open_file(buf) as r:
            table = r.read_all()
    else:
        raise ValueError("unknown format %r" % fmt)
    table.validate(full=True)
    return table


def judge(entry):
    out = {"id": entry["id"], "accept": False, "error": "", "equal": None, "detail": ""}
    try:
        theirs = read_table(entry["input"], entry["format"])
    except Exception as ex:  # noqa: BLE001 - a rejection
        out["error"] = "%s: %s" % (type(ex).__name__, ex)
        return out
    out["accept"] = True
    if not entry.get("ours"):
        return out
    try:
        ours = read_table(entry["ours"], "stream")
    except Exception as ex:  # noqa: BLE001
        out["equal"] = False
        out["detail"] = "pyarrow cannot read alkaid's rewrite: %s: %s" % (type(ex).__name__, ex)
        return out
    d = schema_diff(ours.schema, theirs.schema)
    if d is None and not ours.equals(theirs, check_metadata=True):
        d = column_diff(ours, theirs) or "Table.equals is false"
    out["equal"] = d is None
    out["detail"] = d or ""
    return out


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 1
    with open(sys.argv[1]) as f:
        manifest = json.load(f)
    start = int(sys.argv[2]) if len(sys.argv) == 3 else 0
    for entry in manifest[start:]:
        try:
            out = judge(entry)
        except Exception as ex:  # noqa: BLE001 - report, never stop
            out = {"id": entry["id"], "accept": False, "equal": False, "detail": "",
                   "error": "differential.py crashed: %s: %s" % (type(ex).__name__, ex)}
        print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
