"""Canonical extension types between pyarrow and alkaid.

Driven by tests/tests/extension_pyarrow.rs:

    extension_interop.py write-pyarrow OUT.arrows
        writes an IPC stream of pyarrow extension columns (the Rust test
        reads it with alkaid and checks the values it expects);
    extension_interop.py check-ours IN.arrows IN.arrow
        reads the stream and file that alkaid wrote and checks that pyarrow
        sees the extension types, parameters and values the Rust side wrote.

pyarrow has no Python variable-shape tensor type: pyarrow writes that column
by hand as its storage struct with the field metadata; reading ours, pyarrow
shows either the storage and metadata or (when its C++ core registers the
name) an extension type, checked through its exported C schema.

Exits non-zero with a message on the first mismatch; prints "ok: ..." lines.
"""

import ctypes
import json
import sys

import numpy as np
import pyarrow as pa

NAME = b"ARROW:extension:name"
METADATA = b"ARROW:extension:metadata"

VARIABLE_METADATA = '{"dim_names":["H","W"],"permutation":[1,0],"uniform_shape":[null,2]}'


def c_schema_metadata(dtype):
    """The custom metadata of `dtype` exported through the C data interface
    (`ArrowSchema.metadata`, the third pointer), as a dict of bytes."""
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype = ctypes.c_void_p
    get.argtypes = [ctypes.py_object, ctypes.c_char_p]
    capsule = dtype.__arrow_c_schema__()
    ptr = get(capsule, b"arrow_schema")
    at = ctypes.c_void_p.from_address(ptr + 2 * ctypes.sizeof(ctypes.c_void_p)).value
    out = {}
    if not at:
        return out

    def int32():
        nonlocal at
        v = ctypes.c_int32.from_address(at).value
        at += 4
        return v

    def raw():
        nonlocal at
        n = int32()
        v = ctypes.string_at(at, n)
        at += n
        return v

    for _ in range(int32()):
        k = raw()
        out[k] = raw()
    return out


def check(cond, what):
    if not cond:
        raise SystemExit(f"mismatch: {what}")
    print(f"ok: {what}")


def write_pyarrow(path):
    cols, fields = [], []

    def add(name, arr, metadata=None):
        cols.append(arr)
        fields.append(pa.field(name, arr.type, metadata=metadata))

    # 3 tensors of physical shape [2, 3] holding 0..18, the middle one null.
    ty = pa.fixed_shape_tensor(pa.int32(), [2, 3], dim_names=["r", "c"], permutation=[1, 0])
    storage = pa.FixedSizeListArray.from_arrays(
        pa.array(range(18), pa.int32()), 6, mask=pa.array([False, True, False])
    )
    add("fixed", pa.ExtensionArray.from_storage(ty, storage))
    # From a non-contiguous numpy array: physical [4, 3], permutation [1, 0].
    nd = np.arange(36, dtype=np.float32).reshape(3, 4, 3).transpose(0, 2, 1)
    add("fixed_numpy", pa.FixedShapeTensorArray.from_numpy_ndarray(nd))
    add(
        "uuid",
        pa.ExtensionArray.from_storage(
            pa.uuid(), pa.array([bytes(range(16)), None, b"\xff" * 16], pa.binary(16))
        ),
    )
    texts = ['{"a": 1}', None, "[true]"]
    add("json", pa.ExtensionArray.from_storage(pa.json_(), pa.array(texts, pa.string())))
    add(
        "json_view",
        pa.ExtensionArray.from_storage(
            pa.json_(pa.string_view()), pa.array(texts, pa.string_view())
        ),
    )
    add("bool8", pa.ExtensionArray.from_storage(pa.bool8(), pa.array([1, None, -5], pa.int8())))
    add(
        "opaque",
        pa.ExtensionArray.from_storage(
            pa.opaque(pa.int64(), "geometry", "postgis"), pa.array([10, 20, None], pa.int64())
        ),
    )
    # Variable-shape tensors by hand: shapes [2, 2], null, [1, 2].
    data = pa.array([[0, 1, 2, 3], [], [9, 8]], pa.list_(pa.float32()))
    shape = pa.array([[2, 2], None, [1, 2]], pa.list_(pa.int32(), 2))
    storage = pa.StructArray.from_arrays(
        [data, shape], names=["data", "shape"], mask=pa.array([False, True, False])
    )
    add(
        "variable",
        storage,
        {NAME: b"arrow.variable_shape_tensor", METADATA: VARIABLE_METADATA.encode()},
    )
    add("unknown", pa.array([1, 2, 3], pa.int32()), {NAME: b"my.unknown", METADATA: b"payload"})

    table = pa.Table.from_arrays(cols, schema=pa.schema(fields))
    with pa.OSFile(path, "wb") as sink, pa.ipc.new_stream(sink, table.schema) as w:
        w.write_table(table)
    print(f"ok: wrote {table.num_columns} columns to {path}")


def check_table(table, label):
    col = lambda name: table.column(name).combine_chunks()
    field = lambda name: table.schema.field(name)

    # "fixed": int32, physical [2, 3], dim_names r/c, permutation [1, 0], 0..18.
    fixed = col("fixed")
    ty = fixed.type
    check(isinstance(ty, pa.FixedShapeTensorType), f"{label}: fixed is a FixedShapeTensorType")
    check(ty.value_type == pa.int32(), f"{label}: fixed value type int32")
    check(list(ty.shape) == [2, 3], f"{label}: fixed shape [2, 3]")
    check(list(ty.dim_names) == ["r", "c"], f"{label}: fixed dim_names")
    check(list(ty.permutation) == [1, 0], f"{label}: fixed permutation")
    expected = np.arange(18, dtype=np.int32).reshape(3, 2, 3).transpose(0, 2, 1)
    got = fixed.to_numpy_ndarray()
    check(got.shape == (3, 3, 2), f"{label}: fixed to_numpy_ndarray shape (3, 3, 2)")
    check(np.array_equal(got, expected), f"{label}: fixed to_numpy_ndarray values")

    # "fixed_nulls": float64 [2, 2], the middle tensor null.
    fn = col("fixed_nulls")
    check(list(fn.type.shape) == [2, 2], f"{label}: fixed_nulls shape")
    check(fn.type.permutation is None, f"{label}: fixed_nulls has no permutation")
    check(fn.is_null().to_pylist() == [False, True, False], f"{label}: fixed_nulls validity")
    check(
        fn.storage.to_pylist() == [[0.5, 1.5, 2.5, 3.5], None, [8.5, 9.5, 10.5, 11.5]],
        f"{label}: fixed_nulls values",
    )

    # "fixed_3d": float32 [2, 3, 4], permutation [2, 0, 1], dim_names x/y/z.
    f3 = col("fixed_3d")
    check(list(f3.type.shape) == [2, 3, 4], f"{label}: fixed_3d shape")
    check(list(f3.type.permutation) == [2, 0, 1], f"{label}: fixed_3d permutation")
    check(list(f3.type.dim_names) == ["x", "y", "z"], f"{label}: fixed_3d dim_names")
    check(
        f3.storage.flatten().to_pylist() == [float(x) for x in range(72)],
        f"{label}: fixed_3d row-major values",
    )

    # "variable": pyarrow has no Python type for it. Its C++ core may know
    # the name (then the column is a BaseExtensionType whose exported C
    # schema carries the parameters, re-serialised); otherwise the column is
    # the storage struct and the field keeps our metadata.
    var = col("variable")
    if isinstance(var.type, pa.BaseExtensionType):
        print(f"{label}: pyarrow's C++ core reads variable as {var.type}")
        check(
            var.type.extension_name == "arrow.variable_shape_tensor",
            f"{label}: variable extension name",
        )
        storage, metadata = var.storage, c_schema_metadata(var.type)
    else:
        storage, metadata = var, field("variable").metadata
        check(metadata[NAME] == b"arrow.variable_shape_tensor", f"{label}: variable name")
    check(
        storage.type
        == pa.struct(
            [
                pa.field("data", pa.list_(pa.float32())),
                pa.field("shape", pa.list_(pa.int32(), 2)),
            ]
        ),
        f"{label}: variable storage struct<data: list<float>, shape: fixed_size_list<int32>[2]>",
    )
    check(
        json.loads(metadata[METADATA]) == json.loads(VARIABLE_METADATA),
        f"{label}: variable metadata {metadata[METADATA]!r}",
    )
    check(
        storage.to_pylist()
        == [
            {"data": [0.0, 1.0, 2.0, 3.0, 4.0, 5.0], "shape": [3, 2]},
            None,
            {"data": [7.0, 8.0], "shape": [1, 2]},
        ],
        f"{label}: variable tensors",
    )

    # The simple types.
    u = col("uuid")
    check(u.type == pa.uuid(), f"{label}: uuid type")
    check(
        u.storage.to_pylist() == [bytes(range(16)), None, b"\xff" * 16], f"{label}: uuid values"
    )
    j = col("json")
    check(j.type == pa.json_(pa.large_string()), f"{label}: json over large_string")
    check(j.storage.to_pylist() == ['{"k":"v"}', None, "[1,2]"], f"{label}: json values")
    b = col("bool8")
    check(b.type == pa.bool8(), f"{label}: bool8 type")
    check(b.to_pylist() == [True, None, False], f"{label}: bool8 values")
    o = col("opaque")
    check(isinstance(o.type, pa.OpaqueType), f"{label}: opaque type")
    check(
        (o.type.type_name, o.type.vendor_name, o.type.storage_type)
        == ("geometry", "postgis", pa.int32()),
        f"{label}: opaque parameters",
    )
    check(o.storage.to_pylist() == [5, None, 7], f"{label}: opaque values")


def check_ours(stream_path, file_path):
    with pa.OSFile(stream_path, "rb") as f:
        check_table(pa.ipc.open_stream(f).read_all(), "stream")
    with pa.OSFile(file_path, "rb") as f:
        check_table(pa.ipc.open_file(f).read_all(), "file")


def main(argv):
    if len(argv) == 3 and argv[1] == "write-pyarrow":
        write_pyarrow(argv[2])
    elif len(argv) == 4 and argv[1] == "check-ours":
        check_ours(argv[2], argv[3])
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
