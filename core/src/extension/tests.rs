//! Metadata of the canonical extension types: the spec's examples parse and
//! serialise, every parameter rule has its error, hostile metadata never
//! panics; fields are annotated and parsed back.

use std::string::String;
use std::vec;
use std::vec::Vec;

use crate::Global as G;
use proptest::prelude::*;

use super::*;
use crate::buffer::SharedBox;
use crate::datatypes::Fields;

type Fst = FixedShapeTensorType<'static, G>;
type Vst = VariableShapeTensorType<'static, G>;

fn fst(md: &str) -> Result<Fst> {
    Fst::try_from_metadata(md, G)
}

fn vst(md: &str) -> Result<Vst> {
    Vst::try_from_metadata(md, G)
}

fn ser<'a, T: ExtensionType<'a, G>>(t: &T) -> String {
    String::from(t.try_metadata_in(G).unwrap().as_str())
}

fn names<'s>(n: Option<&'s [SharedStr<'_, G>]>) -> Option<Vec<&'s str>> {
    n.map(|n| n.iter().map(|s| s.as_str()).collect())
}

fn fsl(value: DataType<'static, G>, size: i32) -> DataType<'static, G> {
    let item = SharedBox::try_new_in(Field::new("item", value, true), G).unwrap();
    DataType::FixedSizeList(item, size)
}

// ----- fixed shape tensor: the spec's examples -----

#[test]
fn spec_fixed_shape_2x5() {
    let t = fst(r#"{ "shape": [2, 5]}"#).unwrap();
    assert_eq!(t.shape(), &[2, 5]);
    assert_eq!(t.ndim(), 2);
    assert_eq!(t.list_size(), 10);
    assert_eq!(t.dim_names().map(<[_]>::len), None);
    assert_eq!(t.permutation(), None);
    assert_eq!(t.strides().as_slice(), &[5, 1]);
    assert_eq!(t.logical_shape().as_slice(), &[2, 5]);
    assert_eq!(ser(&t), r#"{"shape":[2,5]}"#);
    assert_eq!(t.check_storage_type(&fsl(DataType::Float32, 10)), Ok(()));
}

#[test]
fn spec_fixed_shape_nchw_dim_names() {
    let t = fst(r#"{ "shape": [100, 200, 500], "dim_names": ["C", "H", "W"]}"#).unwrap();
    assert_eq!(t.shape(), &[100, 200, 500]);
    assert_eq!(names(t.dim_names()), Some(Vec::from(["C", "H", "W"])));
    assert_eq!(t.dim_name(2), Some("W"));
    assert_eq!(t.list_size(), 10_000_000);
    assert_eq!(t.strides().as_slice(), &[100_000, 500, 1]);
    assert_eq!(
        ser(&t),
        r#"{"shape":[100,200,500],"dim_names":["C","H","W"]}"#
    );
}

#[test]
fn spec_fixed_shape_permuted() {
    let t = fst(r#"{ "shape": [100, 200, 500], "permutation": [2, 0, 1]}"#).unwrap();
    assert_eq!(t.shape(), &[100, 200, 500]);
    assert_eq!(t.permutation(), Some(&[2, 0, 1][..]));
    assert_eq!(t.logical_shape().as_slice(), &[500, 100, 200]);
    assert_eq!(ser(&t), r#"{"shape":[100,200,500],"permutation":[2,0,1]}"#);
}

#[test]
fn fixed_shape_round_trip_and_unknown_keys() {
    // pyarrow's key order; escapes in names; an unknown nested key.
    let md = r#"{"shape":[2,3,4],"permutation":[2,0,1],"dim_names":["x","y\"","\u00e9"],"future":{"a":[1,{"b":null}]}}"#;
    let t = fst(md).unwrap();
    assert_eq!(names(t.dim_names()), Some(Vec::from(["x", "y\"", "é"])));
    assert_eq!(t.logical_dim_name(0), Some("é"));
    let again = fst(&ser(&t)).unwrap();
    assert_eq!(again, t);
    assert_eq!(
        ser(&t),
        r#"{"shape":[2,3,4],"dim_names":["x","y\"","é"],"permutation":[2,0,1]}"#
    );
    // A 0-dimensional tensor holds one element.
    let scalar = fst(r#"{"shape":[]}"#).unwrap();
    assert_eq!(scalar.list_size(), 1);
    assert_eq!(ser(&scalar), r#"{"shape":[]}"#);
}

#[test]
fn fixed_shape_built_in_code_matches_parsed() {
    let built = Fst::try_new_in(&[100, 200, 500], Some(&["C", "H", "W"]), None, G).unwrap();
    let parsed = fst(r#"{"shape":[100,200,500],"dim_names":["C","H","W"]}"#).unwrap();
    assert_eq!(built, parsed);
    // Borrowed parameters, no allocation (a firmware's static type).
    static SHAPE: [usize; 2] = [2, 5];
    let t = FixedShapeTensorType::<'static, NoAllocOk>::try_new(
        SharedSlice::borrowed(&SHAPE),
        None,
        None,
    )
    .unwrap();
    let mut buf = [0u8; 32];
    let mut sink = SliceSink::new(&mut buf);
    t.write_metadata(&mut sink).unwrap();
    assert_eq!(sink.as_str(), Some(r#"{"shape":[2,5]}"#));
    let mut small = [0u8; 8];
    assert_eq!(
        t.write_metadata(&mut SliceSink::new(&mut small)),
        Err(Error::ScratchTooSmall)
    );
}

/// The allocator of types made only from borrowed memory.
type NoAllocOk = crate::NoAlloc;

// ----- fixed shape tensor: one test per rule -----

#[test]
fn rule_fixed_metadata_malformed_or_missing() {
    let bad = Error::InvalidExtensionMetadata;
    assert_eq!(Fst::try_deserialize_metadata(None, G).err(), Some(bad));
    for md in [
        "",
        "{}",
        r#"{"dim_names":["a"]}"#,
        r#"{"shape":"2"}"#,
        r#"{"shape":[2,5]"#,
        r#"{"shape":[2,5],}"#,
        r#"{"shape":[2,5]} x"#,
        r#"{"shape":[2.5]}"#,
        r#"{"shape":[2,-1]}"#,
        r#"{"shape":[2],"shape":[2]}"#,
        r#"{"shape":[2],"dim_names":[1]}"#,
        r#"{"shape":[2],"permutation":["0"]}"#,
        r#"{"shape":[99999999999999999999]}"#,
        r#"{"shape":[65536,65536]}"#,
        "[2, 5]",
    ] {
        assert_eq!(fst(md).err(), Some(bad), "{md}");
    }
}

#[test]
fn rule_fixed_too_many_dimensions() {
    let ok = String::from(r#"{"shape":["#) + &["1"; MAX_NDIM].join(",") + "]}";
    assert_eq!(fst(&ok).unwrap().ndim(), MAX_NDIM);
    let md = String::from(r#"{"shape":["#) + &["1"; MAX_NDIM + 1].join(",") + "]}";
    assert_eq!(fst(&md).err(), Some(Error::InvalidExtensionMetadata));
    assert_eq!(
        Fst::try_new_in(&[1; MAX_NDIM + 1], None, None, G).err(),
        Some(Error::InvalidExtensionMetadata)
    );
}

#[test]
fn rule_fixed_permutation() {
    for md in [
        r#"{"shape":[2,3],"permutation":[0,0]}"#,
        r#"{"shape":[2,3],"permutation":[0,2]}"#,
        r#"{"shape":[2,3],"permutation":[1]}"#,
        r#"{"shape":[2,3],"permutation":[1,0,2]}"#,
        r#"{"shape":[2,3],"permutation":[-1,0]}"#,
    ] {
        assert_eq!(fst(md).err(), Some(Error::InvalidPermutation), "{md}");
    }
    assert_eq!(
        Fst::try_new_in(&[2, 3], None, Some(&[1, 1]), G).err(),
        Some(Error::InvalidPermutation)
    );
}

#[test]
fn rule_fixed_dim_names_length() {
    for md in [
        r#"{"shape":[2,3],"dim_names":["a"]}"#,
        r#"{"shape":[2,3],"dim_names":["a","b","c"]}"#,
    ] {
        assert_eq!(fst(md).err(), Some(Error::DimensionCountMismatch), "{md}");
    }
}

#[test]
fn rule_fixed_storage_list_size_is_product_of_shape() {
    let t = fst(r#"{"shape":[2,5]}"#).unwrap();
    let bad = Error::ExtensionStorageMismatch;
    assert_eq!(t.check_storage_type(&fsl(DataType::Int32, 9)), Err(bad));
    assert_eq!(t.check_storage_type(&DataType::Int32), Err(bad));
    let list = DataType::List(
        SharedBox::try_new_in(Field::new("item", DataType::Int32, true), G).unwrap(),
    );
    assert_eq!(t.check_storage_type(&list), Err(bad));
}

// ----- variable shape tensor -----

#[test]
fn spec_variable_shape_examples() {
    let minimal = vst("").unwrap();
    assert_eq!(minimal.ndim(), None);
    assert_eq!(ser(&minimal), "");
    assert_eq!(Vst::try_deserialize_metadata(None, G).unwrap(), minimal);
    assert_eq!(vst("{}").unwrap(), minimal);

    let nchw = vst(r#"{ "dim_names": ["C", "H", "W"] }"#).unwrap();
    assert_eq!(names(nchw.dim_names()), Some(Vec::from(["C", "H", "W"])));
    assert_eq!(nchw.ndim(), Some(3));
    assert_eq!(ser(&nchw), r#"{"dim_names":["C","H","W"]}"#);

    let images =
        vst(r#"{ "dim_names": ["H", "W", "C"], "uniform_shape": [400, null, 3] }"#).unwrap();
    assert_eq!(
        images.uniform_shape(),
        Some(&[Some(400), None, Some(3)][..])
    );
    assert_eq!(
        ser(&images),
        r#"{"dim_names":["H","W","C"],"uniform_shape":[400,null,3]}"#
    );

    let permuted = vst(r#"{ "permutation": [2, 0, 1] }"#).unwrap();
    assert_eq!(permuted.permutation(), Some(&[2, 0, 1][..]));
    assert_eq!(ser(&permuted), r#"{"permutation":[2,0,1]}"#);
    for t in [&nchw, &images, &permuted] {
        assert_eq!(&vst(&ser(t)).unwrap(), t);
    }
}

#[test]
fn rule_variable_metadata() {
    let bad = Error::InvalidExtensionMetadata;
    for md in [
        "{",
        "[]",
        r#"{"uniform_shape":[400,-1]}"#,
        r#"{"uniform_shape":[4294967296]}"#,
        r#"{"uniform_shape":"400"}"#,
        r#"{"dim_names":"C"}"#,
    ] {
        assert_eq!(vst(md).err(), Some(bad), "{md}");
    }
    assert_eq!(
        vst(r#"{"permutation":[1,1]}"#).err(),
        Some(Error::InvalidPermutation)
    );
    assert_eq!(
        vst(r#"{"permutation":[1,0],"dim_names":["a","b","c"]}"#).err(),
        Some(Error::DimensionCountMismatch)
    );
    assert_eq!(
        vst(r#"{"dim_names":["a","b"],"uniform_shape":[1]}"#).err(),
        Some(Error::DimensionCountMismatch)
    );
    assert_eq!(
        vst(r#"{"dim_names":["a","b"],"permutation":[0,2]}"#).err(),
        Some(Error::InvalidPermutation)
    );
}

#[test]
fn rule_variable_storage_type() {
    let st = |value, ndim| Vst::try_storage_type_in(value, ndim, G).unwrap();
    let t = vst(r#"{"dim_names":["H","W","C"]}"#).unwrap();
    assert_eq!(t.check_storage_type(&st(DataType::Float32, 3)), Ok(()));
    // Parameters of 3 dimensions over shapes of 2.
    assert_eq!(
        t.check_storage_type(&st(DataType::Float32, 2)),
        Err(Error::DimensionCountMismatch)
    );
    assert_eq!(
        vst(r#"{"permutation":[1,0]}"#)
            .unwrap()
            .check_storage_type(&st(DataType::Float32, 3)),
        Err(Error::InvalidPermutation)
    );
    // Not a struct; shape of Int64; a third field; data not a list.
    let bad = Error::ExtensionStorageMismatch;
    assert_eq!(t.check_storage_type(&fsl(DataType::Int32, 3)), Err(bad));
    let list = |dt| DataType::List(SharedBox::try_new_in(Field::new("item", dt, true), G).unwrap());
    let make = |fields: Vec<Field<'static, G>>| -> DataType<'static, G> {
        DataType::Struct(Fields::try_from_iter_in(fields, G).unwrap())
    };
    let data = Field::new("data", list(DataType::Float32), true);
    let shape = |dt| Field::new("shape", fsl(dt, 3), true);
    assert_eq!(
        t.check_storage_type(&make(Vec::from([data.clone(), shape(DataType::Int64)]))),
        Err(bad)
    );
    assert_eq!(
        t.check_storage_type(&make(Vec::from([
            data.clone(),
            shape(DataType::Int32),
            Field::new("x", DataType::Int8, true)
        ]))),
        Err(bad)
    );
    assert_eq!(
        t.check_storage_type(&make(Vec::from([
            Field::new("data", DataType::Float32, true),
            shape(DataType::Int32)
        ]))),
        Err(bad)
    );
    // Field order does not matter.
    assert_eq!(
        t.check_storage_type(&make(Vec::from([shape(DataType::Int32), data]))),
        Ok(())
    );
}

// ----- uuid, json, bool8, opaque -----

#[test]
fn simple_types_metadata_and_storage() {
    let bad_md = Error::InvalidExtensionMetadata;
    let bad_st = Error::ExtensionStorageMismatch;
    // uuid
    assert_eq!(
        <UuidType as ExtensionType<G>>::try_from_metadata("", G),
        Ok(UuidType)
    );
    assert_eq!(
        <UuidType as ExtensionType<G>>::try_deserialize_metadata(None, G),
        Ok(UuidType)
    );
    assert_eq!(
        <UuidType as ExtensionType<G>>::try_from_metadata("uuid-serialized", G),
        Err(bad_md)
    );
    assert_eq!(ser(&UuidType), "");
    let u = |dt: DataType<'static, G>| UuidType.check_storage_type(&dt);
    assert_eq!(u(DataType::FixedSizeBinary(16)), Ok(()));
    assert_eq!(u(DataType::FixedSizeBinary(8)), Err(bad_st));
    assert_eq!(u(DataType::Binary), Err(bad_st));
    // json
    for md in ["", "{}", r#"{"future": 1}"#] {
        assert_eq!(
            <JsonType as ExtensionType<G>>::try_from_metadata(md, G),
            Ok(JsonType),
            "{md}"
        );
    }
    for md in ["[]", "x", "{"] {
        assert_eq!(
            <JsonType as ExtensionType<G>>::try_from_metadata(md, G),
            Err(bad_md),
            "{md}"
        );
    }
    for dt in [DataType::Utf8, DataType::LargeUtf8, DataType::Utf8View] {
        assert_eq!(
            <JsonType as ExtensionType<G>>::check_storage_type(&JsonType, &dt),
            Ok(())
        );
    }
    assert_eq!(
        <JsonType as ExtensionType<G>>::check_storage_type(&JsonType, &DataType::Binary),
        Err(bad_st)
    );
    // bool8
    assert_eq!(ser(&Bool8Type), "");
    assert_eq!(
        <Bool8Type as ExtensionType<G>>::try_from_metadata("{}", G),
        Err(bad_md)
    );
    assert_eq!(
        <Bool8Type as ExtensionType<G>>::check_storage_type(&Bool8Type, &DataType::Int8),
        Ok(())
    );
    assert_eq!(
        <Bool8Type as ExtensionType<G>>::check_storage_type(&Bool8Type, &DataType::UInt8),
        Err(bad_st)
    );
    // opaque
    let o = OpaqueType::<G>::try_from_metadata(
        r#"{"type_name": "geometry", "vendor_name": "postgis", "x": [1]}"#,
        G,
    )
    .unwrap();
    assert_eq!((o.type_name(), o.vendor_name()), ("geometry", "postgis"));
    assert_eq!(
        ser(&o),
        r#"{"type_name":"geometry","vendor_name":"postgis"}"#
    );
    assert_eq!(o.check_storage_type(&DataType::Null), Ok(()));
    for md in [
        r#"{"type_name": "geometry"}"#,
        r#"{"vendor_name": "postgis"}"#,
        r#"{"type_name": 1, "vendor_name": "postgis"}"#,
        "",
    ] {
        assert_eq!(
            OpaqueType::<G>::try_from_metadata(md, G).err(),
            Some(bad_md),
            "{md}"
        );
    }
    assert_eq!(
        OpaqueType::<G>::try_deserialize_metadata(None, G).err(),
        Some(bad_md)
    );
    let quoted = OpaqueType::<G>::try_new_in("a\"b", "c\\d\n", G).unwrap();
    assert_eq!(
        OpaqueType::<G>::try_from_metadata(&ser(&quoted), G).unwrap(),
        quoted
    );
}

// ----- fields -----

#[test]
fn fields_carry_name_and_metadata() {
    let t = fst(r#"{"shape":[2,2]}"#).unwrap();
    let storage = t.try_storage_type_in(DataType::Int32, G).unwrap();
    assert_eq!(storage, fsl(DataType::Int32, 4));
    let f = t.try_field_in("tensors", storage.clone(), true, G).unwrap();
    let md: Vec<(&str, &str)> = f
        .metadata()
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    assert_eq!(
        md,
        [
            ("ARROW:extension:name", "arrow.fixed_shape_tensor"),
            ("ARROW:extension:metadata", r#"{"shape":[2,2]}"#)
        ]
    );
    assert_eq!(Fst::try_from_field(&f, G).unwrap(), t);
    // Annotating keeps other entries and replaces earlier extension keys.
    let old = [
        (SharedStr::borrowed("a"), SharedStr::borrowed("1")),
        (
            SharedStr::borrowed(EXTENSION_NAME_KEY),
            SharedStr::borrowed("old.name"),
        ),
        (SharedStr::borrowed("b"), SharedStr::borrowed("2")),
    ];
    let plain = Field::new("t", storage.clone(), true)
        .with_metadata(SharedSlice::try_from_slice_in(&old, G).unwrap());
    let annotated = t.try_annotate_field(plain, G).unwrap();
    let keys: Vec<&str> = annotated
        .metadata()
        .iter()
        .map(|(k, _)| k.as_str())
        .collect();
    assert_eq!(keys, ["a", "b", EXTENSION_NAME_KEY, EXTENSION_METADATA_KEY]);
    assert_eq!(annotated.extension_name(), Some("arrow.fixed_shape_tensor"));
    // The storage is checked when annotating.
    assert_eq!(
        t.try_field_in("x", DataType::Int32, true, G).err(),
        Some(Error::ExtensionStorageMismatch)
    );
}

#[test]
fn rule_field_name_mismatch() {
    let plain = Field::<G>::new("u", DataType::FixedSizeBinary(16), true);
    assert_eq!(
        <UuidType as ExtensionType<G>>::try_from_field(&plain, G),
        Err(Error::ExtensionNameMismatch)
    );
    let other =
        <Bool8Type as ExtensionType<G>>::try_field_in(&Bool8Type, "b", DataType::Int8, true, G)
            .unwrap();
    assert_eq!(
        <UuidType as ExtensionType<G>>::try_from_field(&other, G),
        Err(Error::ExtensionNameMismatch)
    );
}

// ----- hostile metadata -----

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Arbitrary text never panics any parser.
    #[test]
    fn arbitrary_metadata_never_panics(s in any::<String>()) {
        let _ = fst(&s);
        let _ = vst(&s);
        let _ = OpaqueType::<G>::try_from_metadata(&s, G);
        let _ = <JsonType as ExtensionType<G>>::try_from_metadata(&s, G);
    }

    /// JSON-looking text built from the metadata's own tokens never panics,
    /// and what parses serialises to something that parses to the same type.
    #[test]
    fn json_like_metadata_never_panics(parts in proptest::collection::vec(
        prop_oneof![
            Just("{"), Just("}"), Just("["), Just("]"), Just(","), Just(":"), Just("null"),
            Just("\"shape\""), Just("\"dim_names\""), Just("\"permutation\""),
            Just("\"uniform_shape\""), Just("\"type_name\""), Just("\"vendor_name\""),
            Just("0"), Just("1"), Just("2"), Just("-1"), Just("\"\\u00e9\""), Just("\"\\ud800\""),
            Just(" "), Just("1e9"), Just("\"a\""),
        ],
        0..40,
    )) {
        let s: String = parts.concat();
        if let Ok(t) = fst(&s) {
            prop_assert_eq!(fst(&ser(&t)).unwrap(), t);
        }
        if let Ok(t) = vst(&s) {
            prop_assert_eq!(vst(&ser(&t)).unwrap(), t);
        }
        let _ = OpaqueType::<G>::try_from_metadata(&s, G);
    }
}
