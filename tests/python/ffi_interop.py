"""The C Data Interface between alkaid and pyarrow, polars and DuckDB in one
process.

Loads the test-only shared library of `tests/ffi-lib` with ctypes and, for
every `.arrow_file` under the golden folders given:

- alkaid reads the file and exports it as an ArrowArrayStream; pyarrow
  imports it (`RecordBatchReader._import_from_c`) and the table equals
  pyarrow's own reading of the file and validates fully;
- pyarrow exports its reading as a stream; alkaid imports it and writes an
  IPC file, which pyarrow reads back equal;

then polars and DuckDB read alkaid's exported streams (through pyarrow's
reader, which hands them the C stream), and zero copy is checked both ways
on a primitive column (buffer addresses).

Usage: ffi_interop.py LIB GOLDEN_DIR... Prints `ffi_interop: N passed, M
failed` and exits 1 on any failure.
"""

import ctypes
import os
import sys
import tempfile

import pyarrow as pa
import pyarrow.ipc as ipc

# Sizes of the C structs (64-bit): ArrowSchema 9 words, ArrowArray 10,
# ArrowArrayStream 5.
SCHEMA_SIZE, ARRAY_SIZE, STREAM_SIZE = 72, 80, 40

passed = 0
failed = 0


def check(name, cond, detail=""):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print(f"FAIL {name} {detail}")


def load(lib_path):
    lib = ctypes.CDLL(lib_path)
    lib.alkaid_test_export_file_stream.argtypes = [ctypes.c_char_p, ctypes.c_void_p]
    lib.alkaid_test_export_column.argtypes = [
        ctypes.c_char_p,
        ctypes.c_size_t,
        ctypes.c_void_p,
        ctypes.c_void_p,
        ctypes.POINTER(ctypes.c_size_t),
    ]
    lib.alkaid_test_import_array.argtypes = [
        ctypes.c_void_p,
        ctypes.c_void_p,
        ctypes.POINTER(ctypes.c_size_t),
        ctypes.POINTER(ctypes.c_size_t),
    ]
    lib.alkaid_test_import_stream_to_file.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    return lib


def alkaid_stream(lib, path):
    """A pyarrow RecordBatchReader over alkaid's export of the file."""
    s = ctypes.create_string_buffer(STREAM_SIZE)
    rc = lib.alkaid_test_export_file_stream(path.encode(), ctypes.addressof(s))
    if rc != 0:
        raise RuntimeError(f"alkaid export failed: {rc}")
    return pa.RecordBatchReader._import_from_c(ctypes.addressof(s))


def golden_files(dirs):
    for d in dirs:
        for name in sorted(os.listdir(d)):
            if name.endswith(".arrow_file"):
                yield os.path.join(d, name)


def main():
    lib = load(sys.argv[1])
    files = list(golden_files(sys.argv[2:]))
    tmp = tempfile.mkdtemp(prefix="alkaid-ffi-")
    for path in files:
        name = os.path.relpath(path, os.path.dirname(os.path.dirname(path)))
        try:
            expected = ipc.open_file(path).read_all()
        except Exception as e:  # pyarrow cannot read it: nothing to compare
            print(f"skip {name}: pyarrow: {e}")
            continue
        try:
            expected.validate(full=True)
            valid = True
        except pa.ArrowInvalid:
            # Values that break validate(full=True)'s value rules (e.g. Date64
            # not whole days): pyarrow's reader reads them, and so does
            # alkaid's default level (ValidationLevel::Full); both sides must
            # still carry the same values.
            valid = False
        # alkaid -> pyarrow
        try:
            got = alkaid_stream(lib, path).read_all()
            if valid:
                got.validate(full=True)
            check(f"{name} alkaid->pyarrow", got.equals(expected), f"\n{got.schema}\n{expected.schema}")
            check(f"{name} schema", got.schema.equals(expected.schema, check_metadata=True))
        except Exception as e:
            check(f"{name} alkaid->pyarrow", False, repr(e))
        # pyarrow -> alkaid -> IPC file -> pyarrow
        out = os.path.join(tmp, os.path.basename(path))
        s = ctypes.create_string_buffer(STREAM_SIZE)
        reader = pa.RecordBatchReader.from_batches(expected.schema, expected.to_batches())
        reader._export_to_c(ctypes.addressof(s))
        rc = lib.alkaid_test_import_stream_to_file(ctypes.addressof(s), out.encode())
        if rc != 0:
            check(f"{name} pyarrow->alkaid", False, f"rc {rc}")
        else:
            back = ipc.open_file(out).read_all()
            check(f"{name} pyarrow->alkaid", back.equals(expected))

    # polars and DuckDB read alkaid's streams.
    import duckdb
    import polars as pl

    for path in files:
        base = os.path.basename(path)
        if not base.startswith(("generated_primitive.", "generated_datetime.", "generated_nested.")):
            continue
        if "bigendian" in path:
            continue
        expected = ipc.open_file(path).read_all()
        try:
            df = pl.from_arrow(alkaid_stream(lib, path).read_all())
            check(f"polars {base}", df.shape == (expected.num_rows, expected.num_columns))
            check(f"polars {base} values", df.equals(pl.from_arrow(expected)))
        except Exception as e:
            check(f"polars {base}", False, repr(e))
        try:
            rel = duckdb.from_arrow(alkaid_stream(lib, path))
            rows = rel.fetchall()
            want = duckdb.from_arrow(expected).fetchall()
            check(f"duckdb {base}", rows == want, f"{len(rows)} vs {len(want)} rows")
        except Exception as e:
            check(f"duckdb {base}", False, repr(e))

    # Zero copy, alkaid -> pyarrow: the buffer pyarrow sees is ours.
    prim = next(p for p in files if p.endswith("generated_primitive.arrow_file") and "cpp" in p)
    expected = ipc.open_file(prim).read_all()
    col = next(i for i, f in enumerate(expected.schema) if f.type == pa.int64())
    arr_c = ctypes.create_string_buffer(ARRAY_SIZE)
    sch_c = ctypes.create_string_buffer(SCHEMA_SIZE)
    addr = ctypes.c_size_t()
    rc = lib.alkaid_test_export_column(
        prim.encode(), col, ctypes.addressof(arr_c), ctypes.addressof(sch_c), ctypes.byref(addr)
    )
    check("export column", rc == 0, f"rc {rc}")
    arr = pa.Array._import_from_c(ctypes.addressof(arr_c), ctypes.addressof(sch_c))
    check("alkaid->pyarrow zero copy", arr.buffers()[1].address == addr.value)
    check("alkaid->pyarrow column", arr.equals(expected.column(col).chunk(0)))

    # Zero copy, pyarrow -> alkaid: alkaid's buffer is pyarrow's.
    for a in [pa.array([1, None, 3, 4], pa.int64()), pa.array([0.5, 1.5], pa.float64()).slice(1)]:
        arr_c = ctypes.create_string_buffer(ARRAY_SIZE)
        sch_c = ctypes.create_string_buffer(SCHEMA_SIZE)
        a._export_to_c(ctypes.addressof(arr_c), ctypes.addressof(sch_c))
        n, addr = ctypes.c_size_t(), ctypes.c_size_t()
        rc = lib.alkaid_test_import_array(
            ctypes.addressof(arr_c), ctypes.addressof(sch_c), ctypes.byref(n), ctypes.byref(addr)
        )
        check("pyarrow->alkaid import", rc == 0 and n.value == len(a), f"rc {rc}")
        want = a.buffers()[1].address + a.offset * a.type.byte_width
        check("pyarrow->alkaid zero copy", addr.value == want, f"{addr.value:#x} vs {want:#x}")

    print(f"ffi_interop: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
