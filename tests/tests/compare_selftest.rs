//! The golden comparison must not be vacuous: altering one value, validity
//! bit, offset, key, view, run end, type id or schema detail of a golden
//! file's JSON must make the comparison fail at that place, and altering the
//! data under a null slot must not.

use alkaid_tests::harness::{golden_dir, run_reader, Outcome, Reader};
use alkaid_tests::json::{parse_file, read_json_value};
use serde_json::{json, Value as J};

/// Reads `dir/stem.stream` with `SliceStreamReader` and compares it with its
/// JSON after `mutate`.
fn outcome(dir: &str, stem: &str, mutate: impl FnOnce(&mut J)) -> Outcome {
    let base = golden_dir().join(dir).join(stem);
    let mut j = read_json_value(&base.with_extension("json.gz")).unwrap();
    mutate(&mut j);
    let json = parse_file(&j).unwrap();
    let bytes = std::fs::read(base.with_extension("stream")).unwrap();
    run_reader(Reader::SliceStream, &bytes, &json)
}

fn assert_mismatch(o: Outcome, needle: &str) {
    match &o {
        Outcome::Mismatch(m) if m.contains(needle) => {}
        _ => panic!("expected a mismatch containing {needle:?}, got: {o}"),
    }
}

fn assert_pass(o: Outcome) {
    assert!(
        matches!(o, Outcome::Pass { .. }),
        "expected a pass, got: {o}"
    );
}

fn at<'j>(j: &'j mut J, pointer: &str) -> &'j mut J {
    j.pointer_mut(pointer)
        .unwrap_or_else(|| panic!("no {pointer}"))
}

/// Slots of the column at `pointer` whose VALIDITY is `valid`.
fn slots(j: &J, pointer: &str, valid: bool) -> Vec<usize> {
    j.pointer(&format!("{pointer}/VALIDITY"))
        .and_then(J::as_array)
        .unwrap()
        .iter()
        .enumerate()
        .filter(|(_, v)| (v.as_i64() == Some(1)) == valid)
        .map(|(i, _)| i)
        .collect()
}

fn golden_json(dir: &str, stem: &str) -> J {
    read_json_value(&golden_dir().join(dir).join(stem).with_extension("json.gz")).unwrap()
}

const CPP: &str = "cpp-21.0.0";
const INT32_COL: &str = "/batches/1/columns/6";

#[test]
fn unaltered_json_passes() {
    assert_pass(outcome(CPP, "generated_primitive", |_| {}));
}

#[test]
fn an_int_value_is_compared() {
    let j = golden_json(CPP, "generated_primitive");
    let i = slots(&j, INT32_COL, true)[0];
    let o = outcome(CPP, "generated_primitive", |j| {
        let v = at(j, &format!("{INT32_COL}/DATA/{i}"));
        *v = json!(v.as_i64().unwrap().wrapping_add(1));
    });
    assert_mismatch(
        o,
        &format!("batch 1: column 6 \"int32_nullable\": slot {i} ours"),
    );
}

#[test]
fn data_under_a_null_slot_is_ignored() {
    let j = golden_json(CPP, "generated_primitive");
    let i = slots(&j, INT32_COL, false)[0];
    assert_pass(outcome(CPP, "generated_primitive", |j| {
        *at(j, &format!("{INT32_COL}/DATA/{i}")) = json!(12345);
    }));
}

#[test]
fn validity_is_compared() {
    let j = golden_json(CPP, "generated_primitive");
    let i = slots(&j, INT32_COL, true)[0];
    let o = outcome(CPP, "generated_primitive", |j| {
        *at(j, &format!("{INT32_COL}/VALIDITY/{i}")) = json!(0);
    });
    assert_mismatch(o, "vs json null");
}

#[test]
fn uint64_strings_and_floats_are_compared() {
    let col = "/batches/0/columns/16"; // uint64_nullable
    let j = golden_json(CPP, "generated_primitive");
    let i = slots(&j, col, true)[0];
    let o = outcome(CPP, "generated_primitive", |j| {
        let v = at(j, &format!("{col}/DATA/{i}"));
        let n: u64 = v.as_str().unwrap().parse().unwrap();
        *v = json!((n ^ 1).to_string());
    });
    assert_mismatch(o, "column 16 \"uint64_nullable\"");

    let col = "/batches/0/columns/18"; // float32_nullable
    let i = slots(&j, col, true)[0];
    let o = outcome(CPP, "generated_primitive", |j| {
        let v = at(j, &format!("{col}/DATA/{i}"));
        *v = json!(v.as_f64().unwrap() + 0.001);
    });
    assert_mismatch(o, "column 18 \"float32_nullable\"");
}

#[test]
fn decimal256_is_compared() {
    let col = "/batches/0/columns/1";
    let j = golden_json(CPP, "generated_decimal256");
    let i = slots(&j, col, true)[0];
    let o = outcome(CPP, "generated_decimal256", |j| {
        let v = at(j, &format!("{col}/DATA/{i}"));
        let mut s = v.as_str().unwrap().to_string();
        let last = s.pop().unwrap();
        s.push(if last == '0' { '1' } else { '0' });
        *v = json!(s);
    });
    assert_mismatch(o, &format!("column 1 \"f1\": slot {i} ours i256"));
}

#[test]
fn views_inline_and_out_of_line_are_compared() {
    let col = "/batches/2/columns/0"; // bv: binary view
    let j = golden_json(CPP, "generated_binary_view");
    let views = j
        .pointer(&format!("{col}/VIEWS"))
        .unwrap()
        .as_array()
        .unwrap();
    let valid = slots(&j, col, true);
    let inline = *valid
        .iter()
        .find(|&&i| views[i].get("INLINED").is_some() && views[i]["SIZE"].as_i64() > Some(0))
        .unwrap();
    let o = outcome(CPP, "generated_binary_view", |j| {
        let v = at(j, &format!("{col}/VIEWS/{inline}/INLINED"));
        let s = v.as_str().unwrap();
        let flipped = if s.starts_with('0') { "1" } else { "0" };
        *v = json!(format!("{flipped}{}", &s[1..]));
    });
    assert_mismatch(o, &format!("column 0 \"bv\": slot {inline} ours"));

    let out = *valid
        .iter()
        .find(|&&i| views[i].get("BUFFER_INDEX").is_some())
        .unwrap();
    let (buf, off) = (
        views[out]["BUFFER_INDEX"].as_u64().unwrap(),
        views[out]["OFFSET"].as_u64().unwrap() as usize,
    );
    let o = outcome(CPP, "generated_binary_view", |j| {
        // Byte 5 of the value: past the 4-byte prefix.
        let v = at(j, &format!("{col}/VARIADIC_DATA_BUFFERS/{buf}"));
        let mut s = v.as_str().unwrap().to_string();
        let k = 2 * (off + 5);
        let flipped = if &s[k..k + 1] == "0" { "1" } else { "0" };
        s.replace_range(k..k + 1, flipped);
        *v = json!(s);
    });
    assert_mismatch(o, &format!("column 0 \"bv\": slot {out} ours"));
}

#[test]
fn dictionary_keys_and_values_are_compared() {
    let col = "/batches/0/columns/1"; // dict1 (id 1, 5 values)
    let j = golden_json(CPP, "generated_dictionary");
    let i = slots(&j, col, true)[0];
    let o = outcome(CPP, "generated_dictionary", |j| {
        let v = at(j, &format!("{col}/DATA/{i}"));
        *v = json!((v.as_i64().unwrap() + 1) % 5);
    });
    assert_mismatch(o, &format!("column 1 \"dict1\": slot {i} ours #"));

    // A value of dictionary 0 that a valid slot of dict0 selects.
    let col = "/batches/0/columns/0";
    let dict = "/dictionaries/0/data/columns/0";
    let i = slots(&j, col, true)[0];
    let k = j
        .pointer(&format!("{col}/DATA/{i}"))
        .unwrap()
        .as_i64()
        .unwrap();
    assert!(
        slots(&j, dict, true).contains(&(k as usize)),
        "pick another slot"
    );
    let o = outcome(CPP, "generated_dictionary", |j| {
        *at(j, &format!("{dict}/DATA/{k}")) = json!("changed");
    });
    assert_mismatch(o, &format!("slot {i}{{{k}}} ours"));
}

#[test]
fn run_ends_are_compared() {
    // ree16_int32, batch 1: run ends [1, 2, 3, 6, 7]; run 2 is null, run 3 not.
    let o = outcome(CPP, "generated_run_end_encoded", |j| {
        *at(j, "/batches/1/columns/0/children/0/DATA") = json!([1, 2, 4, 6, 7]);
    });
    assert_mismatch(o, "column 0 \"ree16_int32\": slot 3 ours");
}

#[test]
fn list_view_sizes_are_compared() {
    let col = "/batches/1/columns/0"; // lv
    let j = golden_json(CPP, "generated_list_view");
    let sizes = j.pointer(&format!("{col}/SIZE")).unwrap().clone();
    let i = *slots(&j, col, true)
        .iter()
        .find(|&&i| sizes[i].as_i64() > Some(0))
        .unwrap();
    let o = outcome(CPP, "generated_list_view", |j| {
        let v = at(j, &format!("{col}/SIZE/{i}"));
        *v = json!(v.as_i64().unwrap() - 1);
    });
    assert_mismatch(o, &format!("column 0 \"lv\": slot {i} length"));
}

#[test]
fn union_type_ids_are_compared() {
    // sparse_1, batch 1: slot 0 selects type 7 (a string); make it select 5.
    let o = outcome(CPP, "generated_union", |j| {
        *at(j, "/batches/1/columns/0/TYPE_ID/0") = json!(5);
    });
    assert_mismatch(o, "column 0 \"sparse_1\": slot 0 ours <7>");
}

#[test]
fn map_entries_and_struct_children_are_compared() {
    // map_nullable, batch 0: slot 0 holds entries 0..3.
    let o = outcome(CPP, "generated_map", |j| {
        *at(j, "/batches/0/columns/0/children/0/children/0/DATA/0") = json!("zz");
    });
    assert_mismatch(o, "column 0 \"map_nullable\": slot 0[0].0 ours");

    let col = "/batches/0/columns/2"; // struct_nullable {f1: int32, f2: utf8}
    let j = golden_json(CPP, "generated_nested");
    let f1 = format!("{col}/children/0");
    let both = slots(&j, &f1, true);
    let i = *slots(&j, col, true)
        .iter()
        .find(|i| both.contains(i))
        .unwrap();
    let o = outcome(CPP, "generated_nested", |j| {
        let v = at(j, &format!("{f1}/DATA/{i}"));
        *v = json!(v.as_i64().unwrap().wrapping_add(1));
    });
    assert_mismatch(o, &format!("slot {i}.0 ours"));
}

#[test]
fn schema_details_are_compared() {
    let o = outcome(CPP, "generated_primitive", |j| {
        *at(j, "/schema/fields/0/nullable") = json!(false);
    });
    assert_mismatch(o, "schema: /bool_nullable: nullable");

    let o = outcome(CPP, "generated_custom_metadata", |j| {
        *at(j, "/schema/metadata/0/value") = json!("x");
    });
    assert_mismatch(o, "schema metadata");

    let o = outcome(CPP, "generated_custom_metadata", |j| {
        *at(j, "/schema/fields/1/metadata/0/value") = json!("x");
    });
    assert_mismatch(o, "/lots_of_meta: metadata");

    let o = outcome(CPP, "generated_datetime", |j| {
        let fields = at(j, "/schema/fields").as_array_mut().unwrap();
        let f = fields
            .iter_mut()
            .find(|f| f["type"].get("timezone").is_some())
            .unwrap();
        f["type"]["timezone"] = json!("Mars/Olympus");
    });
    assert_mismatch(o, "type ours Timestamp");

    let o = outcome(CPP, "generated_dictionary", |j| {
        *at(j, "/schema/fields/0/dictionary/indexType/bitWidth") = json!(16);
    });
    assert_mismatch(o, "/dict0: index type");
}

#[test]
fn a_shared_dictionary_must_stay_shared() {
    let o = outcome("4.0.0-shareddict", "generated_shared_dict", |j| {
        *at(j, "/schema/fields/1/dictionary/id") = json!(7);
        let d = at(j, "/dictionaries/0").clone();
        let mut d7 = d;
        d7["id"] = json!(7);
        at(j, "/dictionaries").as_array_mut().unwrap().push(d7);
    });
    assert_mismatch(o, "also stands for json id 0");
}

#[test]
fn batch_counts_are_compared() {
    let o = outcome(CPP, "generated_primitive", |j| {
        at(j, "/batches").as_array_mut().unwrap().pop();
    });
    assert_mismatch(o, "batches: ours more than json's 1");
}
