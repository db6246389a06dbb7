//! Inputs opened by path give `'static` batches (they keep the mapping
//! alive), and export as a C stream that outlives the `IpcInput`.

use alkaid::array::{Array, PrimitiveArray, RecordBatch};
use alkaid::buffer::SharedSlice;
use alkaid::datatypes::{DataType, Field, Schema};
use alkaid::ffi::ArrowArrayStreamReader;
use alkaid::Global;
use alkaid_std::{IpcFormat, IpcWriter};

fn batch(k: i64) -> RecordBatch<'static, Global> {
    let col =
        PrimitiveArray::<i64, Global>::try_from_options_in(&[Some(k), None, Some(k + 1)], Global)
            .unwrap();
    let fields =
        SharedSlice::try_from_iter_in([Field::new("x", DataType::Int64, true)], Global).unwrap();
    RecordBatch::try_new(
        Schema::new(fields),
        SharedSlice::try_from_iter_in([col.into_array_ref()], Global).unwrap(),
    )
    .unwrap()
}

fn write(dir: &std::path::Path, format: IpcFormat) -> std::path::PathBuf {
    let path = dir.join(format!("owned.{}", format.name()));
    let b = [batch(1), batch(10)];
    let mut w = IpcWriter::try_new(Vec::new(), format, b[0].schema(), Default::default()).unwrap();
    for x in &b {
        w.write(x).unwrap();
    }
    w.finish().unwrap();
    std::fs::write(&path, w.into_inner()).unwrap();
    path
}

/// What a helper function that opens a path can now return.
fn open_batches(path: &std::path::Path) -> alkaid_std::Result<Vec<RecordBatch<'static, Global>>> {
    alkaid_std::open_ipc(path)?.reader()?.collect()
}

#[test]
fn batches_and_streams_outlive_the_input_they_came_from() {
    let dir = std::env::temp_dir().join(format!("alkaid-owned-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for format in [IpcFormat::Stream, IpcFormat::File] {
        let path = write(&dir, format);
        let got = open_batches(&path).unwrap();
        assert_eq!(got, [batch(1), batch(10)], "{format}");

        let stream = alkaid_std::open_ipc(&path)
            .unwrap()
            .to_ffi_stream()
            .unwrap();
        std::fs::remove_file(&path).unwrap(); // the mapping stays valid
                                              // SAFETY: a stream alkaid just made.
        let reader = unsafe { ArrowArrayStreamReader::try_new_in(stream, Global) }.unwrap();
        let got: Vec<_> = reader.collect::<alkaid::Result<_>>().unwrap();
        assert_eq!(got, [batch(1), batch(10)], "{format} through the C stream");
        assert_eq!(got[1].column(0).unwrap().null_count(), 1);
    }
    std::fs::remove_dir_all(&dir).ok();
}
