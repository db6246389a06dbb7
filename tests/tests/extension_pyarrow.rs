//! Canonical extension types across implementations.
//!
//! - pyarrow reads the fixed-shape tensor, uuid, json, bool8 and opaque
//!   columns we write (IPC stream and file) as its extension types with the
//!   same parameters and values (`to_numpy_ndarray` included), and our
//!   variable-shape tensors as their storage struct and field metadata
//!   (pyarrow 26 has no such type);
//! - we read pyarrow's columns of every canonical type (variable-shape
//!   tensors written by hand as storage + metadata) as typed extension arrays;
//! - the golden `generated_extension` files keep their extensions: the
//!   canonical `arrow.uuid` becomes a typed array, unknown names stay storage
//!   arrays whose metadata our writers write back unchanged.
//!
//! Python is `$ALKAID_PYTHON`, else `<repo>/.venv/bin/python` (made by
//! `scripts/install.sh`). Without a python that imports pyarrow the pyarrow
//! tests print a notice and pass, except under `CI=true`, where they fail.

use std::path::{Path, PathBuf};
use std::process::Command;

use alkaid::array::{Array, ArrayRef, LargeStringArray, PrimitiveArray, RecordBatch};
use alkaid::buffer::SharedSlice;
use alkaid::datatypes::{DataType, Schema};
use alkaid::extension::{
    Bool8Array, CanonicalExtensionArray, ExtensionType, FixedShapeTensorArray,
    FixedShapeTensorType, JsonArray, JsonType, OpaqueArray, OpaqueType, UuidArray,
    VariableShapeTensorBuilder, VariableShapeTensorType,
};
use alkaid::ipc::reader::{FileReader, IpcReadOptions, SliceStreamReader};
use alkaid::ipc::writer::{FileWriter, IpcWriteOptions, StreamWriter};
use alkaid::Global as G;
use alkaid_tests::harness::{golden_dir, rewrite};
use alkaid_tests::interop;

fn script() -> PathBuf {
    interop::python_script("extension_interop.py")
}

/// A python that imports pyarrow, or `None` (with a notice) outside CI.
///
/// # Panics
/// Under `CI=true` when there is none.
fn python() -> Option<PathBuf> {
    let candidate = interop::python();
    let works = Command::new(&candidate)
        .args(["-c", "import pyarrow, numpy"])
        .output()
        .is_ok_and(|o| o.status.success());
    if works {
        return Some(candidate);
    }
    let why = format!(
        "no python with pyarrow and numpy at {} (set ALKAID_PYTHON or run scripts/install.sh)",
        candidate.display()
    );
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{why}");
    }
    eprintln!("NOTICE: skipping pyarrow interop: {why}");
    None
}

/// Runs the interop script; panics with its output when it fails.
fn run(python: &Path, args: &[&str]) {
    let out = Command::new(python)
        .arg(script())
        .args(args)
        .output()
        .expect("run python");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    println!("{text}");
    assert!(
        out.status.success(),
        "extension_interop.py {args:?} failed:\n{text}"
    );
}

fn tmp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("alkaid-ext-{}-{name}", std::process::id()))
}

fn ints(v: &[Option<i32>]) -> ArrayRef<'static, G> {
    PrimitiveArray::<i32, G>::try_from_options_in(v, G)
        .unwrap()
        .into_array_ref()
}

fn floats<T: alkaid::array::PrimitiveType>(v: impl IntoIterator<Item = T>) -> ArrayRef<'static, G> {
    let v: Vec<Option<T>> = v.into_iter().map(Some).collect();
    PrimitiveArray::<T, G>::try_from_options_in(&v, G)
        .unwrap()
        .into_array_ref()
}

fn nulls(valid: &[bool]) -> Option<alkaid::buffer::NullBuffer<'static, G>> {
    let mut b = alkaid::buffer::NullBufferBuilder::new_in(G);
    for &v in valid {
        b.try_append(v).unwrap();
    }
    b.finish()
}

/// The batch that `check-ours` expects (see tests/python/extension_interop.py).
fn our_batch() -> RecordBatch<'static, G> {
    let fixed_ty =
        FixedShapeTensorType::try_new_in(&[2, 3], Some(&["r", "c"]), Some(&[1, 0]), G).unwrap();
    let values: Vec<Option<i32>> = (0..18).map(Some).collect();
    let fixed =
        FixedShapeTensorArray::try_from_values_in(fixed_ty, ints(&values), None, G).unwrap();

    let ty = FixedShapeTensorType::try_new_in(&[2, 2], None, None, G).unwrap();
    let v = [0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5, 9.5, 10.5, 11.5];
    let fixed_nulls =
        FixedShapeTensorArray::try_from_values_in(ty, floats(v), nulls(&[true, false, true]), G)
            .unwrap();

    let ty =
        FixedShapeTensorType::try_new_in(&[2, 3, 4], Some(&["x", "y", "z"]), Some(&[2, 0, 1]), G)
            .unwrap();
    let fixed_3d =
        FixedShapeTensorArray::try_from_values_in(ty, floats((0..72).map(|x| x as f32)), None, G)
            .unwrap();

    let ty = VariableShapeTensorType::try_new_in(
        Some(&["H", "W"]),
        Some(&[1, 0]),
        Some(&[None, Some(2)]),
        G,
    )
    .unwrap();
    let mut b = VariableShapeTensorBuilder::<f32, G>::try_new_in(ty, 2, G).unwrap();
    b.try_append(&[3, 2], &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0])
        .unwrap();
    b.try_append_null().unwrap();
    b.try_append(&[1, 2], &[7.0, 8.0]).unwrap();
    let variable = b.try_finish().unwrap();

    let uuid = UuidArray::try_from_options_in(
        &[
            Some(core::array::from_fn(|i| i as u8)),
            None,
            Some([0xff; 16]),
        ],
        G,
    )
    .unwrap();
    let texts = [Some(r#"{"k":"v"}"#), None, Some("[1,2]")];
    let json = JsonArray::try_new(
        JsonType,
        LargeStringArray::<G>::try_from_options_in(&texts, G)
            .unwrap()
            .into_array_ref(),
    )
    .unwrap();
    let bool8 = Bool8Array::try_from_options_in(&[Some(true), None, Some(false)], G).unwrap();
    let opaque = OpaqueArray::try_new(
        OpaqueType::try_new_in("geometry", "postgis", G).unwrap(),
        ints(&[Some(5), None, Some(7)]),
    )
    .unwrap();

    let fields = [
        fixed.try_field_in("fixed", true, G).unwrap(),
        fixed_nulls.try_field_in("fixed_nulls", true, G).unwrap(),
        fixed_3d.try_field_in("fixed_3d", true, G).unwrap(),
        variable.try_field_in("variable", true, G).unwrap(),
        uuid.try_field_in("uuid", true, G).unwrap(),
        json.try_field_in("json", true, G).unwrap(),
        bool8.try_field_in("bool8", true, G).unwrap(),
        opaque.try_field_in("opaque", true, G).unwrap(),
    ];
    let columns = [
        fixed.into_array_ref(),
        fixed_nulls.into_array_ref(),
        fixed_3d.into_array_ref(),
        variable.into_array_ref(),
        uuid.into_array_ref(),
        json.into_array_ref(),
        bool8.into_array_ref(),
        opaque.into_array_ref(),
    ];
    let schema = Schema::new(SharedSlice::try_from_iter_in(fields, G).unwrap());
    RecordBatch::try_new(schema, SharedSlice::try_from_iter_in(columns, G).unwrap()).unwrap()
}

#[test]
fn pyarrow_reads_what_we_write() {
    let Some(python) = python() else { return };
    let batch = our_batch();
    let opts = IpcWriteOptions::default();
    let mut w = StreamWriter::try_new_in(Vec::new(), batch.schema(), opts, G).unwrap();
    w.write(&batch).unwrap();
    w.finish().unwrap();
    let stream = tmp("ours.arrows");
    std::fs::write(&stream, w.into_inner()).unwrap();
    let mut w = FileWriter::try_new_in(Vec::new(), batch.schema(), opts, G).unwrap();
    w.write(&batch).unwrap();
    w.finish().unwrap();
    let file = tmp("ours.arrow");
    std::fs::write(&file, w.into_inner()).unwrap();
    run(
        &python,
        &[
            "check-ours",
            stream.to_str().unwrap(),
            file.to_str().unwrap(),
        ],
    );
    let _ = std::fs::remove_file(stream);
    let _ = std::fs::remove_file(file);
}

fn column<'a>(batch: &RecordBatch<'a, G>, name: &str) -> CanonicalExtensionArray<'a, G> {
    let i = batch.schema().index_of(name).expect(name);
    CanonicalExtensionArray::try_from_column(batch, i, G).expect(name)
}

#[test]
fn we_read_what_pyarrow_writes() {
    let Some(python) = python() else { return };
    let path = tmp("pyarrow.arrows");
    run(&python, &["write-pyarrow", path.to_str().unwrap()]);
    let bytes = std::fs::read(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    let mut r = SliceStreamReader::try_new_in(&bytes, IpcReadOptions::default(), G).unwrap();
    let batch = r.next_batch().unwrap().unwrap();
    assert_eq!(batch.num_rows(), 3);

    let CanonicalExtensionArray::FixedShapeTensor(f) = column(&batch, "fixed") else {
        panic!("fixed: not a fixed-shape tensor")
    };
    let ty = f.extension();
    assert_eq!(ty.shape(), &[2, 3]);
    assert_eq!(ty.dim_name(1), Some("c"));
    assert_eq!(ty.permutation(), Some(&[1, 0][..]));
    assert_eq!(f.null_count(), 1);
    assert!(f.get(1).is_none());
    let t = f.get(2).unwrap();
    assert_eq!(t.value::<i32>(&[1, 2]), Some(17));
    assert_eq!(t.logical_value::<i32>(&[2, 1]), Some(17));

    // numpy's transpose: physical [4, 3] per tensor, logical [3, 4].
    let CanonicalExtensionArray::FixedShapeTensor(f) = column(&batch, "fixed_numpy") else {
        panic!("fixed_numpy: not a fixed-shape tensor")
    };
    assert_eq!(f.extension().shape(), &[4, 3]);
    assert_eq!(f.extension().logical_shape().as_slice(), &[3, 4]);
    for row in 0..3 {
        let t = f.get(row).unwrap();
        for i in 0..3 {
            for j in 0..4 {
                // nd[row, i, j] = arange(36).reshape(3, 4, 3)[row, j, i].
                let want = (row * 12 + j * 3 + i) as f32;
                assert_eq!(t.logical_value::<f32>(&[i, j]), Some(want), "{row} {i} {j}");
            }
        }
    }

    let CanonicalExtensionArray::Uuid(u) = column(&batch, "uuid") else {
        panic!("uuid")
    };
    let first: [u8; 16] = core::array::from_fn(|i| i as u8);
    assert_eq!(
        u.iter().collect::<Vec<_>>(),
        [Some(first), None, Some([0xff; 16])]
    );

    let texts = [Some(r#"{"a": 1}"#), None, Some("[true]")];
    for name in ["json", "json_view"] {
        let CanonicalExtensionArray::Json(j) = column(&batch, name) else {
            panic!("{name}")
        };
        assert_eq!(j.iter().collect::<Vec<_>>(), texts, "{name}");
    }
    let CanonicalExtensionArray::Json(j) = column(&batch, "json_view") else {
        panic!()
    };
    assert_eq!(j.storage().data_type(), &DataType::Utf8View);

    let CanonicalExtensionArray::Bool8(b) = column(&batch, "bool8") else {
        panic!("bool8")
    };
    assert_eq!(b.iter().collect::<Vec<_>>(), [Some(true), None, Some(true)]);
    assert_eq!(
        (b.storage().value(0), b.storage().value(2)),
        (Some(1), Some(-5))
    );

    let CanonicalExtensionArray::Opaque(o) = column(&batch, "opaque") else {
        panic!("opaque")
    };
    assert_eq!(o.extension().type_name(), "geometry");
    assert_eq!(o.extension().vendor_name(), "postgis");
    assert_eq!(o.storage().data_type(), &DataType::Int64);

    let CanonicalExtensionArray::VariableShapeTensor(v) = column(&batch, "variable") else {
        panic!("variable: not a variable-shape tensor")
    };
    assert_eq!(v.extension().uniform_shape(), Some(&[None, Some(2)][..]));
    assert_eq!(v.extension().permutation(), Some(&[1, 0][..]));
    assert_eq!(v.ndim(), 2);
    let t0 = v.get(0).unwrap();
    assert_eq!(t0.shape(), &[2usize, 2][..]);
    assert_eq!(t0.value::<f32>(&[1, 0]), Some(2.0));
    assert_eq!(t0.logical_value::<f32>(&[1, 0]), Some(1.0));
    assert!(v.get(1).is_none());
    assert_eq!(v.get(2).unwrap().value::<f32>(&[0, 1]), Some(8.0));

    let CanonicalExtensionArray::Other(x) = column(&batch, "unknown") else {
        panic!("unknown")
    };
    assert_eq!(x, ints(&[Some(1), Some(2), Some(3)]));
    let f = batch
        .schema()
        .field(batch.schema().index_of("unknown").unwrap())
        .unwrap();
    assert_eq!(
        (f.extension_name(), f.extension_metadata()),
        (Some("my.unknown"), Some("payload"))
    );
}

/// Reads a golden `generated_extension` stream, rewrites it with our writers
/// and reads both back; calls `check` on every (schema, batch) read.
fn golden(dir: &str, check: impl Fn(&RecordBatch<'_, G>)) {
    let path = golden_dir().join(dir).join("generated_extension.stream");
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let (stream, file) = rewrite(&bytes).unwrap_or_else(|o| panic!("rewrite: {o}"));
    let mut n = 0;
    for input in [&bytes, &stream] {
        let r = SliceStreamReader::try_new_in(input, IpcReadOptions::default(), G).unwrap();
        for b in r {
            check(&b.unwrap());
            n += 1;
        }
    }
    let mut r = FileReader::try_new_in(&file, IpcReadOptions::default(), G).unwrap();
    for i in 0..r.num_batches() {
        check(&r.batch(i).unwrap());
        n += 1;
    }
    assert!(n >= 3, "{dir}: {n} batches");
}

#[test]
fn golden_cpp_extension_file_reads_canonical_uuid() {
    golden("cpp-21.0.0", |batch| {
        let f = batch.schema().field(0).unwrap();
        assert_eq!(
            (f.extension_name(), f.extension_metadata()),
            (Some("arrow.uuid"), Some(""))
        );
        let CanonicalExtensionArray::Uuid(u) = column(batch, "uuids") else {
            panic!("uuids: not typed")
        };
        assert_eq!(u.extension(), &alkaid::extension::UuidType);
        if batch.num_rows() == 13 {
            // The first values of the golden JSON.
            let hex = |s: &str| -> [u8; 16] {
                core::array::from_fn(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
            };
            assert_eq!(u.get(0), Some(hex("16F75BB98E26F40069D8E4EEA676391A")));
            assert_eq!(u.get(1), None);
            assert_eq!(u.get(2), Some(hex("721198EA61E4F2F0E0E0C6C2145AF730")));
        }
        // An unknown extension over a dictionary: storage, metadata kept.
        let d = batch.schema().field(1).unwrap();
        assert_eq!(d.extension_name(), Some("dict-extension"));
        assert_eq!(d.extension_metadata(), Some("dict-extension-serialized"));
        assert!(matches!(
            column(batch, "dict_exts"),
            CanonicalExtensionArray::Other(ArrayRef::Dictionary(_))
        ));
    });
}

#[test]
fn golden_legacy_uuid_name_stays_storage() {
    // Written before `arrow.uuid` was canonical: the name "uuid" is unknown.
    golden("1.0.0-bigendian", |batch| {
        let f = batch.schema().field(0).unwrap();
        assert_eq!(f.extension_name(), Some("uuid"));
        assert_eq!(f.extension_metadata(), Some("uuid-serialized"));
        assert!(matches!(
            column(batch, "uuids"),
            CanonicalExtensionArray::Other(ArrayRef::FixedSizeBinary(_))
        ));
        assert!(<alkaid::extension::UuidType as ExtensionType<G>>::try_from_field(f, G).is_err());
    });
}
