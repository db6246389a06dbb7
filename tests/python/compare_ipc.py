"""Compares IPC files pairwise with pyarrow.

Usage: compare_ipc.py MANIFEST.json

MANIFEST is a JSON list of objects
  {"id": str, "expected": path, "expected_format": "stream"|"file",
   "actual": path, "actual_format": "stream"|"file"}
where "expected" is the peer's file (a golden file, or what pyarrow wrote)
and "actual" is what alkaid wrote from it. For each pair, both are read with
pyarrow (`open_stream` / `open_file`, every batch) and compared:

- the actual table passes `Table.validate(full=True)` (or fails it exactly
  as the expected one does: some old golden files hold values, such as
  date64 values that are not whole days, that newer pyarrow rejects);
- `actual.equals(expected, check_metadata=True)` (schema with schema and
  field metadata, then every column by value);
- the batches have the same row counts, in order.

Prints one JSON object per pair on stdout, in manifest order:
  {"id": str, "ok": bool, "detail": str}
where detail names the first difference (field, column, row, both values as
pyarrow sees them). Exits 0 when every pair was compared (whatever the
verdicts), 1 on a bad manifest.
"""

import json
import sys

import pyarrow as pa
import pyarrow.ipc as ipc

MAX_REPR = 300


def short(x):
    s = repr(x)
    return s if len(s) <= MAX_REPR else s[:MAX_REPR] + "..."


def read(path, fmt):
    """The schema, every batch of an IPC stream or file, and the reader's
    counts of dictionary messages (text, empty when there are none)."""
    if fmt == "stream":
        with ipc.open_stream(path) as r:
            batches = list(r)
            schema = r.schema
            stats = r.stats
    elif fmt == "file":
        with ipc.open_file(path) as r:
            batches = [r.get_batch(i) for i in range(r.num_record_batches)]
            schema = r.schema
            stats = r.stats
    else:
        raise ValueError("unknown format %r" % fmt)
    dicts = ""
    if stats.num_dictionary_batches:
        dicts = "%d dictionary batches (%d deltas, %d replacements)" % (
            stats.num_dictionary_batches, stats.num_dictionary_deltas,
            stats.num_replaced_dictionaries)
    return schema, batches, dicts


def slot(arr, i):
    """Slot i as pyarrow shows it (its Python value, else its repr)."""
    try:
        return arr[i].as_py()
    except Exception:  # noqa: BLE001 - types without a Python value
        return str(arr[i])


def field_diff(a, b, path):
    """First difference between two fields, or None."""
    if a.equals(b, check_metadata=True):
        return None
    if a.name != b.name:
        return "%s: name %r vs %r" % (path, a.name, b.name)
    if a.nullable != b.nullable:
        return "%s: nullable %s vs %s" % (path, a.nullable, b.nullable)
    if a.metadata != b.metadata:
        return "%s: field metadata %s vs %s" % (path, short(a.metadata), short(b.metadata))
    if not a.type.equals(b.type, check_metadata=True):
        ta, tb = a.type, b.type
        if ta.num_fields == tb.num_fields and ta.num_fields > 0 and type(ta) is type(tb):
            for k in range(ta.num_fields):
                d = field_diff(ta.field(k), tb.field(k), "%s.%s" % (path, ta.field(k).name))
                if d:
                    return d
        return "%s: type %s vs %s" % (path, ta, tb)
    return "%s: %s vs %s" % (path, a, b)


def schema_diff(actual, expected):
    if actual.equals(expected, check_metadata=True):
        return None
    if len(actual) != len(expected):
        return "schema: %d fields vs %d" % (len(actual), len(expected))
    for i in range(len(actual)):
        d = field_diff(actual.field(i), expected.field(i), "field %d %r" % (i, actual.field(i).name))
        if d:
            return "schema: " + d
    if actual.metadata != expected.metadata:
        return "schema metadata: %s vs %s" % (short(actual.metadata), short(expected.metadata))
    return "schema: %s vs %s (endianness or other schema attribute)" % (
        short(actual), short(expected))


def column_diff(actual, expected):
    """First differing column and row of two tables with equal schemas."""
    for c in range(actual.num_columns):
        a = actual.column(c)
        e = expected.column(c)
        if a.equals(e):
            continue
        name = actual.schema.field(c).name
        if len(a) != len(e):
            return "column %d %r: length %d vs %d" % (c, name, len(a), len(e))
        if a.null_count != e.null_count:
            what = "null_count %d vs %d" % (a.null_count, e.null_count)
        else:
            what = "values differ"
        a = a.combine_chunks() if a.num_chunks != 1 else a.chunk(0)
        e = e.combine_chunks() if e.num_chunks != 1 else e.chunk(0)
        for i in range(len(a)):
            if not a.slice(i, 1).equals(e.slice(i, 1)):
                return "column %d %r (%s): %s; first at row %d: ours %s vs peer's %s" % (
                    c, name, actual.schema.field(c).type, what, i,
                    short(slot(a, i)), short(slot(e, i)))
        return "column %d %r (%s): %s (no single differing row found)" % (
            c, name, actual.schema.field(c).type, what)
    return None


def validation_error(table):
    """`Table.validate(full=True)`'s complaint, or None."""
    try:
        table.validate(full=True)
        return None
    except Exception as ex:  # noqa: BLE001
        return "%s: %s" % (type(ex).__name__, ex)


def compare(entry):
    try:
        es, eb, edicts = read(entry["expected"], entry["expected_format"])
    except Exception as ex:  # noqa: BLE001
        return False, "pyarrow cannot read the peer's file: %s: %s" % (type(ex).__name__, ex)
    try:
        as_, ab, adicts = read(entry["actual"], entry["actual_format"])
    except Exception as ex:  # noqa: BLE001
        return False, "pyarrow cannot read ours: %s: %s" % (type(ex).__name__, ex)
    d = schema_diff(as_, es)
    if d:
        return False, d
    try:
        actual = pa.Table.from_batches(ab, schema=as_)
        expected = pa.Table.from_batches(eb, schema=es)
    except Exception as ex:  # noqa: BLE001
        return False, "pyarrow cannot make tables: %s: %s" % (type(ex).__name__, ex)
    note = ""
    va, ve = validation_error(actual), validation_error(expected)
    if va is not None:
        if va != ve:
            return False, "ours fails pyarrow's full validation: %s" % va
        # The peer's file breaks the same rule (old golden files hold values
        # that newer validation rejects): we kept the data as it was.
        note = "; both fail pyarrow's full validation alike: %s" % va
    rows_a = [b.num_rows for b in ab]
    rows_e = [b.num_rows for b in eb]
    if rows_a != rows_e:
        return False, "batch row counts: ours %s vs peer's %s" % (short(rows_a), short(rows_e))
    if not actual.equals(expected, check_metadata=True):
        return False, column_diff(actual, expected) or "Table.equals is false"
    if adicts or edicts:
        note = "; ours: %s; peer's: %s%s" % (adicts or "none", edicts or "none", note)
    return True, "%d batches, %d rows, %d columns equal%s" % (
        len(ab), actual.num_rows, actual.num_columns, note)


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 1
    with open(sys.argv[1]) as f:
        manifest = json.load(f)
    for entry in manifest:
        try:
            ok, detail = compare(entry)
        except Exception as ex:  # noqa: BLE001 - report, never stop
            ok, detail = False, "compare crashed: %s: %s" % (type(ex).__name__, ex)
        print(json.dumps({"id": entry["id"], "ok": ok, "detail": detail}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
