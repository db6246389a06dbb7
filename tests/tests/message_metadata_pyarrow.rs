//! Message-level custom metadata (`Message.custom_metadata`) with pyarrow,
//! both ways: what our writers put on a record batch's message is what
//! pyarrow's `read_next_batch_with_custom_metadata` /
//! `get_batch_with_custom_metadata` return, and what pyarrow's
//! `write_batch(custom_metadata=...)` writes is what our readers'
//! `batch_metadata` return. Ignored without the `interop` feature
//! (`scripts/test.sh interop` runs it).

use std::path::Path;

use alkaid::array::{Array, PrimitiveArray, RecordBatch};
use alkaid::buffer::{SharedSlice, SharedStr};
use alkaid::datatypes::{DataType, Field, Metadata, Schema};
use alkaid::ipc::reader::{FileReader, IpcReadOptions, SliceStreamReader, StreamReader};
use alkaid::ipc::writer::{FileWriter, IpcWriteOptions, StreamWriter};
use alkaid::Global;
use alkaid_tests::interop::{require_pyarrow, run_python, scratch_dir};

/// Prints, per batch of the stream or file at argv[1], its custom metadata
/// as one JSON object per line (`{}` when it has none).
const PY_READ: &str = r#"
import json, sys
import pyarrow as pa, pyarrow.ipc as ipc
path, fmt = sys.argv[1], sys.argv[2]
def show(md):
    d = {} if md is None else {k.decode(): v.decode() for k, v in md.items()}
    print(json.dumps(d, ensure_ascii=False, sort_keys=True))
if fmt == "stream":
    r = ipc.open_stream(path)
    while True:
        try:
            _, md = r.read_next_batch_with_custom_metadata()
        except StopIteration:
            break
        show(md)
else:
    r = ipc.open_file(path)
    for i in range(r.num_record_batches):
        show(r.get_batch_with_custom_metadata(i)[1])
"#;

/// Writes a stream (argv[1]) and a file (argv[2]) of three batches of one
/// int32 column; batch 0 and 2 carry custom metadata, batch 1 none.
const PY_WRITE: &str = r#"
import sys
import pyarrow as pa, pyarrow.ipc as ipc
b = pa.record_batch([pa.array([1, 2, 3], pa.int32())], names=["x"])
mds = [{"seq": "0", "unit": "°C"}, None, {"seq": "2"}]
with ipc.new_stream(sys.argv[1], b.schema) as w:
    for md in mds:
        w.write_batch(b, custom_metadata=md)
with ipc.new_file(sys.argv[2], b.schema) as w:
    for md in mds:
        w.write_batch(b, custom_metadata=md)
"#;

fn pairs(m: &Metadata<'_, Global>) -> Vec<(String, String)> {
    m.iter()
        .map(|(k, v)| (k.as_str().to_string(), v.as_str().to_string()))
        .collect()
}

fn kv(k: &str, v: &str) -> (String, String) {
    (k.to_string(), v.to_string())
}

fn batch() -> RecordBatch<'static, Global> {
    let col = PrimitiveArray::<i32, Global>::try_from_options_in(&[Some(1), None], Global).unwrap();
    let fields =
        SharedSlice::try_from_iter_in([Field::new("x", DataType::Int32, true)], Global).unwrap();
    RecordBatch::try_new(
        Schema::new(fields),
        SharedSlice::try_from_iter_in([col.into_array_ref()], Global).unwrap(),
    )
    .unwrap()
}

#[test]
#[cfg_attr(
    not(feature = "interop"),
    ignore = "needs pyarrow: run with --features interop (scripts/test.sh interop)"
)]
fn message_custom_metadata_round_trips_with_pyarrow() {
    require_pyarrow();
    let work = scratch_dir(Path::new(env!("CARGO_TARGET_TMPDIR")), "message-metadata");

    // Ours -> pyarrow.
    let b = batch();
    let md: Metadata<'static, Global> = SharedSlice::try_from_iter_in(
        [
            (SharedStr::borrowed("seq"), SharedStr::borrowed("0")),
            (SharedStr::borrowed("unit"), SharedStr::borrowed("°C")),
        ],
        Global,
    )
    .unwrap();
    let opts = IpcWriteOptions::default();
    let mut sw = StreamWriter::try_new_in(Vec::new(), b.schema(), opts, Global).unwrap();
    let mut fw = FileWriter::try_new_in(Vec::new(), b.schema(), opts, Global).unwrap();
    sw.write_with_metadata(&b, Some(&md)).unwrap();
    fw.write_with_metadata(&b, Some(&md)).unwrap();
    sw.write(&b).unwrap();
    fw.write(&b).unwrap();
    sw.finish().unwrap();
    fw.finish().unwrap();
    for (name, bytes, fmt) in [
        ("ours.arrows", sw.into_inner(), "stream"),
        ("ours.arrow", fw.into_inner(), "file"),
    ] {
        let path = work.join(name);
        std::fs::write(&path, bytes).unwrap();
        let out = run_python(["-c", PY_READ, path.to_str().unwrap(), fmt]).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines, [r#"{"seq": "0", "unit": "°C"}"#, "{}"], "{fmt}");
    }

    // pyarrow -> ours.
    let (stream_path, file_path) = (work.join("py.arrows"), work.join("py.arrow"));
    run_python([
        "-c",
        PY_WRITE,
        stream_path.to_str().unwrap(),
        file_path.to_str().unwrap(),
    ])
    .unwrap();
    let expected = [
        vec![kv("seq", "0"), kv("unit", "°C")],
        vec![],
        vec![kv("seq", "2")],
    ];
    let stream = std::fs::read(&stream_path).unwrap();
    let mut r = SliceStreamReader::try_new_in(&stream, IpcReadOptions::default(), Global).unwrap();
    let mut s =
        StreamReader::try_new_in(stream.as_slice(), IpcReadOptions::default(), Global).unwrap();
    for want in &expected {
        assert_eq!(r.next_batch().unwrap().unwrap().num_rows(), 3);
        assert_eq!(&pairs(r.batch_metadata()), want);
        s.next_batch().unwrap().unwrap();
        assert_eq!(&pairs(s.batch_metadata()), want);
    }
    assert!(r.next_batch().unwrap().is_none());
    let file = std::fs::read(&file_path).unwrap();
    let mut f = FileReader::try_new_in(&file, IpcReadOptions::default(), Global).unwrap();
    for i in [2, 0, 1] {
        f.batch(i).unwrap();
        assert_eq!(pairs(f.batch_metadata()), expected[i], "file batch {i}");
    }
}
