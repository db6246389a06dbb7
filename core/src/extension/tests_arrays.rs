//! Typed extension arrays: construction, element access, the value rules of
//! variable-shape tensors, and a round trip through our IPC writer and
//! readers (known types come back typed, unknown ones as storage with their
//! metadata).

use std::vec::Vec;

use crate::Global as G;

use super::*;
use crate::array::{
    FixedSizeListBuilder, ListBuilder, PrimitiveArray, PrimitiveBuilder, StringArray,
    StringViewArray,
};
use crate::buffer::NullBufferBuilder;
use crate::datatypes::Schema;
use crate::ipc::reader::{FileReader, IpcReadOptions, SliceStreamReader};
use crate::ipc::writer::{FileWriter, IpcWriteOptions, StreamWriter};

fn nulls(valid: &[bool]) -> Option<NullBuffer<'static, G>> {
    let mut b = NullBufferBuilder::new_in(G);
    for &v in valid {
        b.try_append(v).unwrap();
    }
    b.finish()
}

fn ints(v: impl IntoIterator<Item = i32>) -> ArrayRef<'static, G> {
    let mut b = PrimitiveBuilder::<i32, G>::new_in(G);
    for x in v {
        b.try_append_value(x).unwrap();
    }
    b.finish().into_array_ref()
}

/// Three 2x3 tensors of `0..18`, the middle one null; dims named, transposed.
fn fixed_array() -> FixedShapeTensorArray<'static, G> {
    let ty =
        FixedShapeTensorType::try_new_in(&[2, 3], Some(&["r", "c"]), Some(&[1, 0]), G).unwrap();
    FixedShapeTensorArray::try_from_values_in(ty, ints(0..18), nulls(&[true, false, true]), G)
        .unwrap()
}

#[test]
fn fixed_shape_tensor_array_access() {
    let a = fixed_array();
    assert_eq!(a.len(), 3);
    assert_eq!(a.null_count(), 1);
    assert_eq!(a.storage().value_length(), 6);
    let t = a.get(2).unwrap();
    assert_eq!(t.shape(), &[2usize, 3][..]);
    assert_eq!(t.strides(), &[3usize, 1][..]);
    assert_eq!(t.logical_shape(), [3usize, 2][..]);
    assert_eq!(t.logical_strides(), [1usize, 3][..]);
    // Slot 2 holds 12..18: physical [1, 2] is 12 + 5; logical [2, 1] is the same.
    assert_eq!(t.value::<i32>(&[1, 2]), Some(17));
    assert_eq!(t.logical_value::<i32>(&[2, 1]), Some(17));
    assert_eq!(t.logical_value::<i32>(&[1, 0]), Some(13));
    assert_eq!(
        (t.dim_name(0), t.logical_dim_name(0)),
        (Some("r"), Some("c"))
    );
    assert_eq!(t.len(), 6);
    assert!(a.get(1).is_none());
    assert_eq!(a.value(1).unwrap().value::<i32>(&[0, 0]), Some(6));
    assert!(a.get(3).is_none());
    assert_eq!(a.iter().filter(Option::is_some).count(), 2);
    // Slicing keeps the type and never copies.
    let s = a.slice(2, 1).unwrap();
    assert_eq!(s.extension(), a.extension());
    assert_eq!(s.get(0).unwrap().value::<i32>(&[0, 0]), Some(12));
    assert_eq!(a.slice(2, 2).err(), Some(Error::OutOfBounds));
    // The field names the extension; the storage is what IPC writes.
    let f = a.try_field_in("t", true, G).unwrap();
    assert_eq!(f.data_type(), a.data_type());
    assert_eq!(
        f.extension_metadata(),
        Some(r#"{"shape":[2,3],"dim_names":["r","c"],"permutation":[1,0]}"#)
    );
}

#[test]
fn rule_fixed_values_whole_tensors() {
    let ty = FixedShapeTensorType::try_new_in(&[2, 3], None, None, G).unwrap();
    assert_eq!(
        FixedShapeTensorArray::try_from_values_in(ty.clone(), ints(0..7), None, G).err(),
        Some(Error::LengthMismatch)
    );
    // A storage of another list size is refused by `try_new`.
    let other = FixedShapeTensorType::try_new_in(&[7], None, None, G).unwrap();
    let storage = FixedShapeTensorArray::try_from_values_in(other, ints(0..7), None, G)
        .unwrap()
        .into_parts()
        .1;
    assert_eq!(
        FixedShapeTensorArray::try_new(ty, storage).err(),
        Some(Error::ExtensionStorageMismatch)
    );
}

#[test]
fn spec_variable_shape_permuted_names() {
    // "shape = [10, 20, 30], dim_names = [x, y, z], permutations = [2, 0, 1]:
    // the logical tensor has names [z, x, y] and shape [30, 10, 20]."
    let ty = VariableShapeTensorType::try_new_in(Some(&["x", "y", "z"]), Some(&[2, 0, 1]), None, G)
        .unwrap();
    let mut b = VariableShapeTensorBuilder::<f32, G>::try_new_in(ty, 3, G).unwrap();
    let values: Vec<f32> = (0..6000).map(|x| x as f32).collect();
    b.try_append(&[10, 20, 30], &values).unwrap();
    let a = b.try_finish().unwrap();
    let t = a.get(0).unwrap();
    assert_eq!(t.logical_shape(), [30usize, 10, 20][..]);
    let logical_names: Vec<_> = (0..3).map(|i| t.logical_dim_name(i).unwrap()).collect();
    assert_eq!(logical_names, ["z", "x", "y"]);
    // logical (k, i, j) = physical (i, j, k) = i*600 + j*30 + k.
    assert_eq!(
        t.logical_value::<f32>(&[7, 3, 11]),
        Some((3 * 600 + 11 * 30 + 7) as f32)
    );
}

/// H x W x 3 images with H = 2 uniform: [2, 1, 3], null, [2, 2, 3].
fn variable_array() -> VariableShapeTensorArray<'static, G> {
    let ty = VariableShapeTensorType::try_new_in(
        Some(&["H", "W", "C"]),
        None,
        Some(&[Some(2), None, Some(3)]),
        G,
    )
    .unwrap();
    let mut b = VariableShapeTensorBuilder::<i32, G>::try_new_in(ty, 3, G).unwrap();
    b.try_append(&[2, 1, 3], &(0..6).collect::<Vec<_>>())
        .unwrap();
    b.try_append_null().unwrap();
    b.try_append(&[2, 2, 3], &(100..112).collect::<Vec<_>>())
        .unwrap();
    assert_eq!(b.len(), 3);
    b.try_finish().unwrap()
}

#[test]
fn variable_shape_tensor_array_access() {
    let a = variable_array();
    assert_eq!((a.len(), a.null_count(), a.ndim()), (3, 1, 3));
    let t0 = a.get(0).unwrap();
    assert_eq!(t0.shape(), &[2usize, 1, 3][..]);
    assert_eq!(t0.value::<i32>(&[1, 0, 2]), Some(5));
    assert!(a.get(1).is_none());
    let t2 = a.get(2).unwrap();
    assert_eq!(t2.shape(), &[2usize, 2, 3][..]);
    assert_eq!(t2.strides(), &[6usize, 3, 1][..]);
    assert_eq!(t2.value::<i32>(&[1, 1, 0]), Some(109));
    assert_eq!(t2.dim_name(1), Some("W"));
    let s = a.slice(2, 1).unwrap();
    assert_eq!(s.get(0).unwrap().value::<i32>(&[0, 0, 0]), Some(100));
    // The storage: Struct<data: List<Int32>, shape: FixedSizeList<Int32>[3]>.
    assert_eq!(
        a.data_type(),
        &VariableShapeTensorType::<G>::try_storage_type_in(DataType::Int32, 3, G).unwrap()
    );
}

/// Parts of a variable-shape tensor array of 2 dimensions: data lists and shapes.
fn parts(
    rows: &[(&[i32], usize)],
) -> (
    crate::array::ListArray<'static, G>,
    crate::array::FixedSizeListArray<'static, G>,
) {
    let mut data = ListBuilder::new_in(PrimitiveBuilder::<f32, G>::new_in(G), G);
    let mut shapes = FixedSizeListBuilder::new_in(PrimitiveBuilder::<i32, G>::new_in(G), 2, G);
    for (shape, n) in rows {
        for &d in *shape {
            shapes.values().try_append_value(d).unwrap();
        }
        shapes.try_append(true).unwrap();
        for i in 0..*n {
            data.values().try_append_value(i as f32).unwrap();
        }
        data.try_append(true).unwrap();
    }
    (data.try_finish().unwrap(), shapes.try_finish().unwrap())
}

fn from_parts(
    ty: &VariableShapeTensorType<'static, G>,
    rows: &[(&[i32], usize)],
    valid: Option<&[bool]>,
) -> Result<VariableShapeTensorArray<'static, G>> {
    let (d, s) = parts(rows);
    VariableShapeTensorArray::try_from_parts_in(ty.clone(), d, s, valid.and_then(nulls), G)
}

#[test]
fn rule_variable_data_length_is_product_of_shape() {
    let ty = VariableShapeTensorType::try_new_in(None, None, None, G).unwrap();
    assert!(from_parts(&ty, &[(&[2, 3], 6), (&[0, 5], 0)], None).is_ok());
    assert_eq!(
        from_parts(&ty, &[(&[2, 3], 6), (&[2, 2], 5)], None).err(),
        Some(Error::TensorSizeMismatch)
    );
    // A null slot's data and shape are not checked.
    assert!(from_parts(&ty, &[(&[2, 3], 6), (&[2, 2], 5)], Some(&[true, false])).is_ok());
    // The builder checks the same rule before appending.
    let mut b = VariableShapeTensorBuilder::<f32, G>::try_new_in(ty, 2, G).unwrap();
    assert_eq!(
        b.try_append(&[2, 3], &[0.0; 5]),
        Err(Error::TensorSizeMismatch)
    );
    assert_eq!(
        b.try_append(&[6], &[0.0; 6]),
        Err(Error::DimensionCountMismatch)
    );
    assert!(b.is_empty());
}

#[test]
fn rule_variable_shape_negative_or_null() {
    let ty = VariableShapeTensorType::try_new_in(None, None, None, G).unwrap();
    assert_eq!(
        from_parts(&ty, &[(&[-2, -3], 6)], None).err(),
        Some(Error::TensorSizeMismatch)
    );
    // A valid slot whose shape list is null.
    let (d, _) = parts(&[(&[1, 1], 1)]);
    let mut shapes = FixedSizeListBuilder::new_in(PrimitiveBuilder::<i32, G>::new_in(G), 2, G);
    shapes.try_append_null().unwrap();
    let s = shapes.try_finish().unwrap();
    assert_eq!(
        VariableShapeTensorArray::try_from_parts_in(ty, d, s, None, G).err(),
        Some(Error::TensorSizeMismatch)
    );
}

#[test]
fn rule_variable_uniform_dimensions_hold() {
    let ty = VariableShapeTensorType::try_new_in(None, None, Some(&[None, Some(3)]), G).unwrap();
    assert!(from_parts(&ty, &[(&[1, 3], 3), (&[4, 3], 12)], None).is_ok());
    assert_eq!(
        from_parts(&ty, &[(&[1, 3], 3), (&[3, 4], 12)], None).err(),
        Some(Error::UniformShapeViolated)
    );
    let mut b = VariableShapeTensorBuilder::<f32, G>::try_new_in(ty.clone(), 2, G).unwrap();
    assert_eq!(
        b.try_append(&[3, 4], &[0.0; 12]),
        Err(Error::UniformShapeViolated)
    );
    // Parameters of 2 dimensions over 3-dimensional shapes.
    assert_eq!(
        VariableShapeTensorBuilder::<f32, G>::try_new_in(ty, 3, G).err(),
        Some(Error::DimensionCountMismatch)
    );
}

#[test]
fn simple_arrays() {
    let u = UuidArray::try_from_options_in(&[Some([7; 16]), None, Some([0xab; 16])], G).unwrap();
    assert_eq!(
        u.iter().collect::<Vec<_>>(),
        [Some([7; 16]), None, Some([0xab; 16])]
    );
    assert_eq!(u.value(1), Some([0; 16]));
    let b = Bool8Array::try_from_options_in(&[Some(true), None, Some(false)], G).unwrap();
    assert_eq!(b.storage().values(), &[1, 0, 0]);
    assert_eq!(
        b.iter().collect::<Vec<_>>(),
        [Some(true), None, Some(false)]
    );
    // Any non-zero byte is true.
    let raw = PrimitiveArray::<i8, G>::try_from_options_in(&[Some(-3), Some(0)], G).unwrap();
    let b = Bool8Array::try_new(Bool8Type, raw).unwrap();
    assert_eq!(b.iter().collect::<Vec<_>>(), [Some(true), Some(false)]);
    let texts = [Some(r#"{"a":1}"#), None, Some("[1,2]")];
    let s = StringArray::<G>::try_from_options_in(&texts, G).unwrap();
    let j = JsonArray::try_new(JsonType, s.into_array_ref()).unwrap();
    assert_eq!(j.iter().collect::<Vec<_>>(), texts);
    let v = StringViewArray::<G>::try_from_options_in(&texts, G).unwrap();
    let j = JsonArray::try_new(JsonType, v.into_array_ref()).unwrap();
    assert_eq!(j.get(2), Some("[1,2]"));
    assert_eq!(
        JsonArray::try_new(JsonType, ints(0..2)).err(),
        Some(Error::ExtensionStorageMismatch)
    );
}

/// One column of every canonical type, plus an unknown extension and a plain column.
fn sample_batch() -> RecordBatch<'static, G> {
    let fixed = fixed_array();
    let variable = variable_array();
    let uuid = UuidArray::try_from_options_in(&[Some([1; 16]), None, Some([2; 16])], G).unwrap();
    let texts = [Some(r#"{"k":"v"}"#), Some("null"), None];
    let json = JsonArray::try_new(
        JsonType,
        crate::array::LargeStringArray::<G>::try_from_options_in(&texts, G)
            .unwrap()
            .into_array_ref(),
    )
    .unwrap();
    let bool8 = Bool8Array::try_from_options_in(&[None, Some(true), Some(false)], G).unwrap();
    let opaque_ty = OpaqueType::try_new_in("geometry", "postgis", G).unwrap();
    let opaque = OpaqueArray::try_new(opaque_ty, ints([5, 6, 7])).unwrap();
    let unknown_md = [
        (
            SharedStr::borrowed(EXTENSION_NAME_KEY),
            SharedStr::borrowed("my.unknown"),
        ),
        (
            SharedStr::borrowed(EXTENSION_METADATA_KEY),
            SharedStr::borrowed("not json at all"),
        ),
        (SharedStr::borrowed("other"), SharedStr::borrowed("kept")),
    ];
    let fields = [
        fixed.try_field_in("fixed", true, G).unwrap(),
        variable.try_field_in("variable", true, G).unwrap(),
        uuid.try_field_in("uuid", true, G).unwrap(),
        json.try_field_in("json", true, G).unwrap(),
        bool8.try_field_in("bool8", true, G).unwrap(),
        opaque.try_field_in("opaque", false, G).unwrap(),
        Field::new("unknown", DataType::Int32, true)
            .with_metadata(SharedSlice::try_from_slice_in(&unknown_md, G).unwrap()),
        Field::new("plain", DataType::Int32, true),
    ];
    let columns = [
        fixed.into_array_ref(),
        variable.into_array_ref(),
        uuid.into_array_ref(),
        json.into_array_ref(),
        bool8.into_array_ref(),
        opaque.into_array_ref(),
        ints([8, 9, 10]),
        ints([11, 12, 13]),
    ];
    let schema = Schema::new(SharedSlice::try_from_iter_in(fields, G).unwrap());
    RecordBatch::try_new(schema, SharedSlice::try_from_iter_in(columns, G).unwrap()).unwrap()
}

fn check_read_back(original: &RecordBatch<'static, G>, back: &RecordBatch<'_, G>) {
    assert_eq!(back.schema(), original.schema());
    let col = |i| CanonicalExtensionArray::try_from_column(back, i, G).unwrap();
    let CanonicalExtensionArray::FixedShapeTensor(f) = col(0) else {
        panic!("fixed-shape tensor column not typed")
    };
    assert_eq!(f.extension().permutation(), Some(&[1, 0][..]));
    assert_eq!(f.get(2).unwrap().value::<i32>(&[1, 2]), Some(17));
    assert!(f.get(1).is_none());
    let CanonicalExtensionArray::VariableShapeTensor(v) = col(1) else {
        panic!("variable-shape tensor column not typed")
    };
    assert_eq!(
        v.extension().uniform_shape(),
        Some(&[Some(2), None, Some(3)][..])
    );
    assert_eq!(v.get(2).unwrap().value::<i32>(&[1, 1, 0]), Some(109));
    let CanonicalExtensionArray::Uuid(u) = col(2) else {
        panic!("uuid")
    };
    assert_eq!(
        u.iter().collect::<Vec<_>>(),
        [Some([1; 16]), None, Some([2; 16])]
    );
    let CanonicalExtensionArray::Json(j) = col(3) else {
        panic!("json")
    };
    assert_eq!(
        j.iter().collect::<Vec<_>>(),
        [Some(r#"{"k":"v"}"#), Some("null"), None]
    );
    let CanonicalExtensionArray::Bool8(b) = col(4) else {
        panic!("bool8")
    };
    assert_eq!(
        b.iter().collect::<Vec<_>>(),
        [None, Some(true), Some(false)]
    );
    let CanonicalExtensionArray::Opaque(o) = col(5) else {
        panic!("opaque")
    };
    assert_eq!(o.extension().type_name(), "geometry");
    assert_eq!(col(5).extension_name(), Some("arrow.opaque"));
    let CanonicalExtensionArray::Other(x) = col(6) else {
        panic!("unknown")
    };
    assert_eq!(x, ints([8, 9, 10]));
    let f = back.schema().field(6).unwrap();
    assert_eq!(f.extension_name(), Some("my.unknown"));
    assert_eq!(f.extension_metadata(), Some("not json at all"));
    assert_eq!(f.metadata_value("other"), Some("kept"));
    assert!(matches!(col(7), CanonicalExtensionArray::Other(_)));
    for i in 0..original.num_columns() {
        assert_eq!(back.column(i), original.column(i), "column {i}");
    }
}

#[test]
fn ipc_round_trip_keeps_extensions() {
    let batch = sample_batch();
    let opts = IpcWriteOptions::default();
    let mut w = StreamWriter::try_new_in(Vec::new(), batch.schema(), opts, G).unwrap();
    w.write(&batch).unwrap();
    w.finish().unwrap();
    let bytes = w.into_inner();
    let mut r = SliceStreamReader::try_new_in(&bytes, IpcReadOptions::default(), G).unwrap();
    let back = r.next_batch().unwrap().unwrap();
    check_read_back(&batch, &back);

    let mut w = FileWriter::try_new_in(Vec::new(), batch.schema(), opts, G).unwrap();
    w.write(&batch).unwrap();
    w.finish().unwrap();
    let bytes = w.into_inner();
    let mut r = FileReader::try_new_in(&bytes, IpcReadOptions::default(), G).unwrap();
    check_read_back(&batch, &r.batch(0).unwrap());
}

#[test]
fn known_name_with_bad_metadata_is_an_error() {
    let batch = sample_batch();
    let f = batch.schema().field(0).unwrap();
    let md = [
        (
            SharedStr::borrowed(EXTENSION_NAME_KEY),
            SharedStr::borrowed("arrow.fixed_shape_tensor"),
        ),
        (
            SharedStr::borrowed(EXTENSION_METADATA_KEY),
            SharedStr::borrowed(r#"{"shape":[5]}"#),
        ),
    ];
    let bad = f
        .clone()
        .with_metadata(SharedSlice::try_from_slice_in(&md, G).unwrap());
    let col = batch.column(0).unwrap().clone();
    assert_eq!(
        CanonicalExtensionArray::try_from_field(&bad, col.clone(), G).err(),
        Some(Error::ExtensionStorageMismatch)
    );
    // The array must have the field's type.
    assert_eq!(
        FixedShapeTensorArray::try_from_field(f, ints(0..3), G).err(),
        Some(Error::ExtensionStorageMismatch)
    );
    assert!(FixedShapeTensorArray::try_from_field(f, col, G).is_ok());
}
