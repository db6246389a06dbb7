"""Writes random tables of every type pyarrow supports as IPC streams and files.

Usage: gen_tables.py OUTDIR

Writes OUTDIR/<case>.<stream|arrow_file>, OUTDIR/<case>.values.json (every
slot of every batch as pyarrow holds it, encoded as `values_of` says) and
OUTDIR/cases.json, a JSON list of objects
  {"name": str, "path": str, "format": "stream"|"file",
   "compression": null|"lz4"|"zstd", "replacement": bool, "values": path,
   "batches": [{"rows": int, "null_counts": [int per column]}]}
("replacement": the stream replaces a dictionary, which the file format
cannot hold; "null_counts": pyarrow's `null_count` of each top-level column).

Every column has nulls where its type allows them, and tables have several
batches. The data is random but seeded: the tables are the same on every run
(not always the bytes: pyarrow leaves some union padding uninitialized).
Families of types are separate tables (one column per type, named after it)
so that a failure names the family and the column:

  primitive  null, bool, (u)int8..64, float16/32/64 (with inf, -0.0,
             subnormals), decimal32/64/128/256
  temporal   date32/64, time32/64 (every unit), timestamp (every unit, with
             and without time zones), duration (every unit),
             month_day_nano interval
  binary     binary, string, large_binary, large_string, binary_view,
             string_view (inline and out-of-line, several data buffers),
             fixed_size_binary
  nested     list, large_list, list_view and large_list_view (overlapping,
             out-of-order views), fixed_size_list, struct, map (sorted and
             not), nesting of all of those
  union      dense and sparse unions (type codes not 0..n)
  dictionary dictionaries with signed and unsigned keys, ordered, with null
             values, inside lists and structs, of lists
  ree        run-end encoded with int16/32/64 run ends and null runs
  extension  uuid, json, bool8, fixed_shape_tensor, opaque
  sliced     a table sliced at an unaligned offset
  metadata   schema and field metadata

plus dictionary deltas (stream and file, `emit_dictionary_deltas=True`), a
dictionary replacement (stream), no batches, empty batches, the legacy
framing (`use_legacy_format=True`) and metadata V4. Every family is also
written compressed with LZ4 frame and ZSTD (cases `*-lz4`, `*-zstd`).
"""

import decimal
import json
import os
import random
import sys

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.ipc as ipc

SEED = 20260101
ROWS = 120  # per table; batches of CHUNK rows
CHUNK = 50
NULL_P = 0.2

R = random.Random(SEED)
decimal.getcontext().prec = 100


def nulls(vals, p=NULL_P):
    return [None if R.random() < p else v for v in vals]


def mask(n, p=NULL_P):
    return np.array([R.random() < p for _ in range(n)], dtype=bool)


def ints(n, lo, hi):
    vals = [R.randint(lo, hi) for _ in range(n)]
    vals[:2] = [lo, hi]
    return vals


TEXT = "abcdefghijklmnopqrstuvwxyz ABC0123456789éßø中文字😀\u0301"


def rand_str(maxlen):
    return "".join(R.choice(TEXT) for _ in range(R.randint(0, maxlen)))


def rand_bytes(maxlen):
    return bytes(R.randrange(256) for _ in range(R.randint(0, maxlen)))


# ---------------------------------------------------------------- families


def primitive(n):
    cols = {"null": pa.nulls(n), "bool": pa.array(nulls([R.random() < 0.5 for _ in range(n)]))}
    for t, lo, hi in [
        (pa.int8(), -(2**7), 2**7 - 1),
        (pa.int16(), -(2**15), 2**15 - 1),
        (pa.int32(), -(2**31), 2**31 - 1),
        (pa.int64(), -(2**63), 2**63 - 1),
        (pa.uint8(), 0, 2**8 - 1),
        (pa.uint16(), 0, 2**16 - 1),
        (pa.uint32(), 0, 2**32 - 1),
        (pa.uint64(), 0, 2**64 - 1),
    ]:
        cols[str(t)] = pa.array(nulls(ints(n, lo, hi)), t)
    specials = [float("inf"), float("-inf"), -0.0, 0.0, 5e-324, 1e-45, 6e-8]
    f = [R.uniform(-1e6, 1e6) for _ in range(n)]
    f[: len(specials)] = specials
    h = np.array([R.uniform(-60000, 60000) for _ in range(n)], dtype=np.float16)
    h[:4] = [np.inf, -np.inf, -0.0, 6e-8]
    cols["float16"] = pa.array(h, mask=mask(n))
    cols["float32"] = pa.array(nulls(f), pa.float32())
    cols["float64"] = pa.array(nulls(f), pa.float64())
    for t in [pa.decimal32(9, 2), pa.decimal64(18, -3), pa.decimal128(38, 10), pa.decimal256(76, 20)]:
        p, s = t.precision, t.scale
        # pyarrow's conversion overflows on the largest unscaled values
        # when the scale is negative: stay 3 digits below them there.
        top = 10 ** (p if s >= 0 else p - 3) - 1
        vals = [decimal.Decimal(R.randint(-top, top)).scaleb(-s) for _ in range(n)]
        vals[0] = decimal.Decimal(top).scaleb(-s)
        vals[1] = decimal.Decimal(-top).scaleb(-s)
        cols[str(t)] = pa.array(nulls(vals), t)
    return cols


def temporal(n):
    cols = {
        "date32": pa.array(nulls(ints(n, -(2**31), 2**31 - 1)), pa.date32()),
        "date64": pa.array(nulls([d * 86_400_000 for d in ints(n, -(10**8), 10**8)]), pa.date64()),
        "time32[s]": pa.array(nulls(ints(n, 0, 86_399)), pa.time32("s")),
        "time32[ms]": pa.array(nulls(ints(n, 0, 86_399_999)), pa.time32("ms")),
        "time64[us]": pa.array(nulls(ints(n, 0, 86_399_999_999)), pa.time64("us")),
        "time64[ns]": pa.array(nulls(ints(n, 0, 86_399_999_999_999)), pa.time64("ns")),
    }
    for unit in ["s", "ms", "us", "ns"]:
        for tz in [None, "UTC", "Europe/Paris", "+05:30"]:
            t = pa.timestamp(unit, tz)
            cols["timestamp[%s, %s]" % (unit, tz)] = pa.array(
                nulls(ints(n, -(2**63), 2**63 - 1)), t)
        cols["duration[%s]" % unit] = pa.array(nulls(ints(n, -(2**63), 2**63 - 1)), pa.duration(unit))
    mdn = [(R.randint(-(2**31), 2**31 - 1), R.randint(-(2**31), 2**31 - 1),
            R.randint(-(2**63), 2**63 - 1)) for _ in range(n)]
    cols["month_day_nano_interval"] = pa.array(nulls(mdn), pa.month_day_nano_interval())
    return cols


def views(n, t, gen):
    # Two arrays concatenated: the result keeps both arrays' data buffers.
    half = n // 2
    a = pa.array(nulls([gen(40) for _ in range(half)]), t)
    b = pa.array(nulls([gen(40) for _ in range(n - half)]), t)
    return pa.concat_arrays([a, b])


def binary(n):
    return {
        "binary": pa.array(nulls([rand_bytes(20) for _ in range(n)]), pa.binary()),
        "string": pa.array(nulls([rand_str(20) for _ in range(n)]), pa.string()),
        "large_binary": pa.array(nulls([rand_bytes(20) for _ in range(n)]), pa.large_binary()),
        "large_string": pa.array(nulls([rand_str(20) for _ in range(n)]), pa.large_string()),
        "binary_view": views(n, pa.binary_view(), rand_bytes),
        "string_view": views(n, pa.string_view(), rand_str),
        "fixed_size_binary[5]": pa.array(nulls([bytes(R.randrange(256) for _ in range(5))
                                                for _ in range(n)]), pa.binary(5)),
        "fixed_size_binary[0]": pa.array(nulls([b""] * n), pa.binary(0)),
    }


def rand_list(gen, maxlen=5):
    return [gen() for _ in range(R.randint(0, maxlen))]


def list_views(n, cls, values):
    m = len(values)
    sizes = [R.randint(0, min(6, m)) for _ in range(n)]
    offsets = [R.randint(0, m - s) for s in sizes]
    ot = pa.int64() if cls is pa.LargeListViewArray else pa.int32()
    return cls.from_arrays(pa.array(offsets, ot), pa.array(sizes, ot), values, mask=pa.array(mask(n)))


def nested(n):
    i32 = lambda: None if R.random() < 0.2 else R.randint(-1000, 1000)  # noqa: E731
    st = pa.struct([("a", pa.int32()), ("b", pa.string()), ("c", pa.list_(pa.bool_()))])
    structs = [{"a": i32(), "b": None if R.random() < 0.2 else rand_str(8),
                "c": None if R.random() < 0.2 else rand_list(lambda: R.random() < 0.5)}
               for _ in range(n)]
    deep_t = pa.list_(pa.struct([("x", pa.large_list(pa.string_view())),
                                 ("y", pa.list_(pa.float64(), 2))]))
    deep = [None if R.random() < 0.2 else rand_list(lambda: {
        "x": None if R.random() < 0.2 else rand_list(lambda: rand_str(20)),
        "y": None if R.random() < 0.2 else [R.random(), None if R.random() < 0.2 else R.random()],
    }, 3) for _ in range(n)]
    pool16 = pa.array(nulls(ints(40, -(2**15), 2**15 - 1)), pa.int16())
    pool64 = pa.array(nulls([R.uniform(-1, 1) for _ in range(40)]), pa.float64())
    map_rows = [None if R.random() < 0.2 else
                [(rand_str(6), None if R.random() < 0.2 else R.randint(-(2**63), 2**63 - 1))
                 for _ in range(R.randint(0, 4))] for _ in range(n)]
    sorted_rows = [None if r is None else sorted(dict(r).items()) for r in map_rows]
    return {
        "list<int32>": pa.array(nulls([rand_list(i32) for _ in range(n)]), pa.list_(pa.int32())),
        "large_list<string>": pa.array(nulls([rand_list(lambda: rand_str(6)) for _ in range(n)]),
                                       pa.large_list(pa.string())),
        "list_view<int16>": list_views(n, pa.ListViewArray, pool16),
        "large_list_view<float64>": list_views(n, pa.LargeListViewArray, pool64),
        "fixed_size_list<float64, 3>": pa.array(
            nulls([[None if R.random() < 0.2 else R.random() for _ in range(3)] for _ in range(n)]),
            pa.list_(pa.float64(), 3)),
        "fixed_size_list<int8, 0>": pa.array(nulls([[] for _ in range(n)]), pa.list_(pa.int8(), 0)),
        "struct": pa.array(nulls(structs), st),
        "struct<>": pa.StructArray.from_arrays([], fields=[], mask=pa.array(mask(n))),
        "map<string, int64>": pa.array(map_rows, pa.map_(pa.string(), pa.int64())),
        "map<string, int64> sorted": pa.array(sorted_rows, pa.map_(pa.string(), pa.int64(),
                                                                   keys_sorted=True)),
        "list<struct<large_list<string_view>, fixed_size_list>>": pa.array(deep, deep_t),
        "list<list<list<uint8>>>": pa.array(nulls([rand_list(lambda: rand_list(
            lambda: rand_list(lambda: R.randint(0, 255), 3), 3), 3) for _ in range(n)]),
            pa.list_(pa.list_(pa.list_(pa.uint8())))),
    }


def union(n):
    # Type codes 5 and 2 (not 0..n-1): children int64 and string.
    codes = [5, 2]
    types = [R.choice(codes) for _ in range(n)]
    ints_c = pa.array(nulls(ints(n, -(2**63), 2**63 - 1)), pa.int64())
    strs_c = pa.array(nulls([rand_str(10) for _ in range(n)]), pa.string())
    sparse = pa.UnionArray.from_sparse(pa.array(types, pa.int8()), [ints_c, strs_c],
                                       field_names=["i", "s"], type_codes=codes)
    # Dense: children of different lengths, offsets into them.
    ni = sum(1 for t in types if t == 5)
    di = pa.array(nulls(ints(ni + 3, -1000, 1000)), pa.int64())
    ds = pa.array(nulls([rand_str(10) for _ in range(n - ni + 1)]), pa.string())
    offs, ci, cs = [], 0, 0
    for t in types:
        if t == 5:
            offs.append(ci)
            ci += 1
        else:
            offs.append(cs)
            cs += 1
    dense = pa.UnionArray.from_dense(pa.array(types, pa.int8()), pa.array(offs, pa.int32()),
                                     [di, ds], field_names=["i", "s"], type_codes=codes)
    # A dense union of a struct and a list (nested children).
    t2 = [R.choice([0, 1]) for _ in range(n)]
    n0 = sum(1 for t in t2 if t == 0)
    c0 = pa.array(nulls([{"a": R.randint(0, 9)} for _ in range(n0)]), pa.struct([("a", pa.int8())]))
    c1 = pa.array(nulls([rand_list(lambda: rand_str(3)) for _ in range(n - n0)]), pa.list_(pa.string()))
    o2, k0, k1 = [], 0, 0
    for t in t2:
        if t == 0:
            o2.append(k0)
            k0 += 1
        else:
            o2.append(k1)
            k1 += 1
    dense2 = pa.UnionArray.from_dense(pa.array(t2, pa.int8()), pa.array(o2, pa.int32()), [c0, c1],
                                      field_names=["st", "ls"])
    return {"sparse_union": sparse, "dense_union": dense, "dense_union<struct, list>": dense2}


def dict_array(n, key_t, values, ordered=False):
    idx = pa.array(nulls([R.randrange(len(values)) for _ in range(n)]), key_t)
    return pa.DictionaryArray.from_arrays(idx, values, ordered=ordered)


def dictionary(n):
    words = pa.array(["alpha", "beta", "gamma", "δέλτα", "", "a much longer string value"])
    with_null = pa.array([1.5, None, -2.0, 3.25], pa.float64())
    lists = pa.array([[1, 2], [], None, [3]], pa.list_(pa.int32()))
    inner = dict_array(3 * n, pa.int16(), pa.array(["x", "y", "z"]))
    offsets = [0]
    for _ in range(n):
        offsets.append(offsets[-1] + R.randint(0, 3))
    list_of_dict = pa.ListArray.from_arrays(pa.array(offsets, pa.int32()), inner.slice(0, offsets[-1]),
                                            mask=pa.array(mask(n)))
    struct_of_dict = pa.StructArray.from_arrays(
        [dict_array(n, pa.int32(), pa.array(["p", "q"])), pa.array(nulls(ints(n, 0, 9)), pa.int8())],
        names=["d", "v"], mask=pa.array(mask(n)))
    return {
        "dictionary<int8, string>": dict_array(n, pa.int8(), words),
        "dictionary<uint8, string> ordered": dict_array(n, pa.uint8(), words, ordered=True),
        "dictionary<int16, binary>": dict_array(n, pa.int16(), pa.array([b"\x00", b"\xff\xfe", b""])),
        "dictionary<uint16, float64 with null>": dict_array(n, pa.uint16(), with_null),
        "dictionary<int32, large_string>": dict_array(n, pa.int32(), words.cast(pa.large_string())),
        "dictionary<uint32, string_view>": dict_array(n, pa.uint32(), words.cast(pa.string_view())),
        "dictionary<int64, list<int32>>": dict_array(n, pa.int64(), lists),
        "dictionary<uint64, int32>": dict_array(n, pa.uint64(), pa.array([7, -7, 0], pa.int32())),
        "list<dictionary<int16, string>>": list_of_dict,
        "struct<dictionary<int32, string>, int8>": struct_of_dict,
    }


def ree_array(n, run_t, gen):
    ends, vals, pos = [], [], 0
    while pos < n:
        pos = min(n, pos + R.randint(1, 6))
        ends.append(pos)
        vals.append(gen())
    return pa.RunEndEncodedArray.from_arrays(pa.array(ends, run_t), pa.array(nulls(vals)))


def ree(n):
    return {
        "ree<int16, string>": ree_array(n, pa.int16(), lambda: rand_str(5)),
        "ree<int32, float64>": ree_array(n, pa.int32(), R.random),
        "ree<int64, int8>": ree_array(n, pa.int64(), lambda: R.randint(-128, 127)),
        "ree<int32, bool>": ree_array(n, pa.int32(), lambda: R.random() < 0.5),
    }


def extension(n):
    uuid_storage = pa.array(nulls([bytes(R.randrange(256) for _ in range(16)) for _ in range(n)]),
                            pa.binary(16))
    json_storage = pa.array(nulls([json.dumps({"k": R.randint(0, 9)}) for _ in range(n)]))
    bool8_storage = pa.array(nulls([R.choice([0, 1, 2]) for _ in range(n)]), pa.int8())
    tensor_t = pa.fixed_shape_tensor(pa.float32(), [2, 2], dim_names=["r", "c"])
    tensor_storage = pa.array(nulls([[R.random() for _ in range(4)] for _ in range(n)]),
                              pa.list_(pa.float32(), 4))
    opaque_t = pa.opaque(pa.binary(), "geometry", "vendor.example")
    opaque_storage = pa.array(nulls([rand_bytes(8) for _ in range(n)]), pa.binary())
    return {
        "uuid": pa.ExtensionArray.from_storage(pa.uuid(), uuid_storage),
        "json": pa.ExtensionArray.from_storage(pa.json_(), json_storage),
        "bool8": pa.ExtensionArray.from_storage(pa.bool8(), bool8_storage),
        "fixed_shape_tensor": pa.ExtensionArray.from_storage(tensor_t, tensor_storage),
        "opaque": pa.ExtensionArray.from_storage(opaque_t, opaque_storage),
    }


FAMILIES = [
    ("primitive", primitive),
    ("temporal", temporal),
    ("binary", binary),
    ("nested", nested),
    ("union", union),
    ("dictionary", dictionary),
    ("ree", ree),
    ("extension", extension),
]


def batches_of(t, chunk=CHUNK):
    return t.to_batches(max_chunksize=chunk)


# ---------------------------------------------------------------- values

# The logical value of every slot as pyarrow holds it in memory, as JSON
# that tests/src/interop.rs turns into alkaid_tests::value::Value:
#   null                 a null slot (or the Null type)
#   ["b", bool]          boolean
#   ["i", "int"]         integers, dates, times, timestamps, durations,
#                        decimal32/64/128 (unscaled)
#   ["i256", "int"]      decimal256 (unscaled)
#   ["f16"|"f32"|"f64", "bits"]   floats by their bits
#   ["mdn", months, days, "nanoseconds"]
#   ["bin", "hex"]       binary, large_binary, binary_view, fixed_size_binary
#   ["s", str]           string, large_string, string_view
#   ["l", [values]]      list, large_list, list views, fixed_size_list, map
#                        (entries are structs of key and value)
#   ["st", [values]]     struct (one value per child)
#   ["u", type_code, value]      union
#   ["d", key, value]    dictionary (the key and the value it selects)
# Run-end encoded slots are their logical values; extension slots are their
# storage's.


def bits(arr, t):
    return [None if v is None else [t[0], str(v)] for v in arr.view(t[1]).to_pylist()]


def values_of(arr):
    """Encodes every slot of `arr` (see above)."""
    t = arr.type
    n = len(arr)
    if isinstance(t, pa.BaseExtensionType):
        return values_of(arr.storage)
    if pa.types.is_null(t):
        return [None] * n
    if pa.types.is_boolean(t):
        return [None if v is None else ["b", v] for v in arr.to_pylist()]
    if pa.types.is_integer(t):
        return [None if v is None else ["i", str(v)] for v in arr.to_pylist()]
    if pa.types.is_temporal(t) and not pa.types.is_interval(t):
        width = pa.int32() if t.bit_width == 32 else pa.int64()
        return [None if v is None else ["i", str(v)] for v in arr.view(width).to_pylist()]
    if pa.types.is_float16(t):
        return bits(arr, ("f16", pa.uint16()))
    if pa.types.is_float32(t):
        return bits(arr, ("f32", pa.uint32()))
    if pa.types.is_float64(t):
        return bits(arr, ("f64", pa.uint64()))
    if pa.types.is_decimal(t):
        out = []
        for v in arr.to_pylist():
            if v is None:
                out.append(None)
                continue
            unscaled = int(v.scaleb(t.scale))
            out.append(["i256" if t.bit_width == 256 else "i", str(unscaled)])
        return out
    if t == pa.month_day_nano_interval():
        return [None if v is None else ["mdn", v.months, v.days, str(v.nanoseconds)]
                for v in arr.to_pylist()]
    if (pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_binary_view(t)
            or pa.types.is_fixed_size_binary(t)):
        return [None if v is None else ["bin", v.hex()] for v in arr.to_pylist()]
    if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t):
        return [None if v is None else ["s", v] for v in arr.to_pylist()]
    if (pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_list_view(t)
            or pa.types.is_large_list_view(t) or pa.types.is_fixed_size_list(t)
            or pa.types.is_map(t)):
        return [["l", values_of(arr[i].values)] if arr[i].is_valid else None for i in range(n)]
    if pa.types.is_struct(t):
        children = [values_of(arr.field(j)) for j in range(t.num_fields)]
        return [["st", [c[i] for c in children]] if arr[i].is_valid else None for i in range(n)]
    if pa.types.is_union(t):
        # Not `arr.type_codes` / `arr.offsets`: in pyarrow 26 they ignore the
        # offset of a sliced union. Read the buffers from the offset on.
        off, bufs = arr.offset, arr.buffers()
        codes = pa.Array.from_buffers(pa.int8(), off + n, [None, bufs[1]]).to_pylist()[off:]
        dense = t.mode == "dense"
        offsets = (pa.Array.from_buffers(pa.int32(), off + n, [None, bufs[2]]).to_pylist()[off:]
                   if dense else None)
        children = [values_of(arr.field(j)) for j in range(t.num_fields)]
        return [["u", c, children[t.type_codes.index(c)][offsets[i] if dense else i]]
                for i, c in enumerate(codes)]
    if pa.types.is_dictionary(t):
        dictionary = values_of(arr.dictionary)
        return [None if k is None else ["d", k, dictionary[k]] for k in arr.indices.to_pylist()]
    if pa.types.is_run_end_encoded(t):
        return values_of(pc.run_end_decode(arr))
    raise TypeError("no value encoding for %s" % t)


# ---------------------------------------------------------------- writing


class Out:
    def __init__(self, outdir):
        self.outdir = outdir
        self.cases = []

    def write(self, name, fmt, schema, batches, options=None, compression=None, replacement=False):
        ext = "stream" if fmt == "stream" else "arrow_file"
        path = os.path.join(self.outdir, "%s.%s" % (name, ext))
        options = options or ipc.IpcWriteOptions(compression=compression)
        opener = ipc.new_stream if fmt == "stream" else ipc.new_file
        with opener(path, schema, options=options) as w:
            for b in batches:
                w.write_batch(b)
        values = os.path.join(self.outdir, "%s.values.json" % name)
        if not os.path.exists(values):
            with open(values, "w") as f:
                json.dump([[values_of(c) for c in b.columns] for b in batches], f)
        self.cases.append({
            "name": name, "path": path, "format": fmt, "compression": compression,
            "replacement": replacement, "values": values,
            "batches": [{"rows": b.num_rows, "null_counts": [c.null_count for c in b.columns]}
                        for b in batches],
        })

    def both(self, name, schema, batches, **kw):
        for fmt in ["stream", "file"]:
            self.write(name, fmt, schema, batches, **kw)


def delta_batches():
    schema = pa.schema([("d", pa.dictionary(pa.int8(), pa.string())), ("n", pa.int32())])
    dicts = [["a", "b"], ["a", "b", "c", "d"], ["a", "b", "c", "d"], ["a", "b", "c", "d", "e"]]
    out = []
    for d in dicts:
        idx = pa.array(nulls([R.randrange(len(d)) for _ in range(7)]), pa.int8())
        out.append(pa.record_batch([pa.DictionaryArray.from_arrays(idx, pa.array(d)),
                                    pa.array(nulls(ints(7, -9, 9)), pa.int32())], schema=schema))
    return schema, out


def replacement_batches():
    schema = pa.schema([("d", pa.dictionary(pa.int16(), pa.string()))])
    out = []
    for d in [["a", "b"], ["x", "y", "z"], ["a"]]:
        idx = pa.array(nulls([R.randrange(len(d)) for _ in range(5)]), pa.int16())
        out.append(pa.record_batch([pa.DictionaryArray.from_arrays(idx, pa.array(d))], schema=schema))
    return schema, out


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 1
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    out = Out(outdir)
    tables = {}
    for name, fam in FAMILIES:
        tables[name] = pa.table(fam(ROWS))
        t = tables[name]
        out.both(name, t.schema, batches_of(t))

    # A slice at an unaligned offset (bitmaps and offsets no longer start at 0).
    sliced = tables["primitive"].slice(3, ROWS - 10)
    nested_sliced = tables["nested"].slice(5, ROWS - 17)
    out.both("sliced-primitive", sliced.schema, batches_of(sliced, 37))
    out.both("sliced-nested", nested_sliced.schema, batches_of(nested_sliced, 37))

    # Schema and field metadata (also on nested fields).
    md_schema = pa.schema(
        [pa.field("a", pa.int32(), metadata={"unit": "m", "empty": ""}),
         pa.field("l", pa.list_(pa.field("item", pa.string(), metadata={"inner": "yes"})),
                  nullable=False)],
        metadata={"origin": "gen_tables.py", "ünïcode": "värde"})
    md = pa.table([pa.array(nulls(ints(30, -5, 5)), pa.int32()),
                   pa.array([rand_list(lambda: rand_str(3)) for _ in range(30)], pa.list_(pa.string()))],
                  schema=md_schema)
    out.both("metadata", md.schema, batches_of(md, 10))

    # Dictionary deltas (stream and file) and a replacement (stream only).
    schema, bs = delta_batches()
    opts = ipc.IpcWriteOptions(emit_dictionary_deltas=True)
    out.both("dictionary-delta", schema, bs, options=opts)
    schema, bs = replacement_batches()
    out.write("dictionary-replacement", "stream", schema, bs, replacement=True)

    # No batches at all; batches of zero rows.
    prim = tables["primitive"]
    out.both("no-batches", prim.schema, [])
    nest = tables["nested"]
    empty = pa.RecordBatch.from_arrays([c.chunk(0).slice(0, 0) for c in nest.columns],
                                       schema=nest.schema)
    out.both("empty-batches", nest.schema, [empty, empty])

    # Legacy framing (no continuation marker) and metadata V4.
    out.write("legacy-framing", "stream", prim.schema, batches_of(prim),
              options=ipc.IpcWriteOptions(use_legacy_format=True))
    v4 = tables["temporal"]
    out.both("metadata-v4", v4.schema, batches_of(v4),
             options=ipc.IpcWriteOptions(metadata_version=ipc.MetadataVersion.V4))

    # Compressed bodies.
    for codec in ["lz4", "zstd"]:
        for name, _ in FAMILIES:
            t = tables[name]
            out.both("%s-%s" % (name, codec), t.schema, batches_of(t), compression=codec)
        schema, bs = delta_batches()
        out.write("dictionary-delta-%s" % codec, "stream", schema, bs,
                  options=ipc.IpcWriteOptions(emit_dictionary_deltas=True, compression=codec),
                  compression=codec)

    with open(os.path.join(outdir, "cases.json"), "w") as f:
        json.dump(out.cases, f, indent=1)
    print("%d files in %s (pyarrow %s)" % (len(out.cases), outdir, pa.__version__))
    return 0


if __name__ == "__main__":
    sys.exit(main())
