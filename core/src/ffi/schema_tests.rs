//! `FFI_ArrowSchema` export and import: round trips of every type, the
//! layout of exported nodes, the release protocol, malformed producer
//! structs, limits and allocation failures.

use core::cell::Cell;
use core::ffi::{c_char, CStr};
use core::ptr;
use std::vec::Vec;

use crate::Global;
use allocator_api2::alloc::Allocator;

use super::format_tests::{all_types, boxed, field, fields, map_entries};
use super::{
    import_data_type_in, import_field_in, import_field_with_limits_in, import_schema_in,
    FFI_ArrowSchema, ImportLimits, ARROW_FLAG_DICTIONARY_ORDERED, ARROW_FLAG_MAP_KEYS_SORTED,
    ARROW_FLAG_NULLABLE,
};
use crate::buffer::{SharedBox, SharedSlice, SharedStr};
use crate::datatypes::{
    DataType, Field, IndexType, Metadata, Schema, UnionFields, UnionMode, EXTENSION_METADATA_KEY,
    EXTENSION_NAME_KEY,
};
use crate::error::{Error, ErrorKind};
use crate::test_support::{check_every_failure, counting};

/// The format string of a node.
fn format_of(s: &FFI_ArrowSchema) -> &str {
    // SAFETY: our exports' formats are NUL-terminated UTF-8.
    unsafe { CStr::from_ptr(s.format) }.to_str().unwrap()
}

/// The name of a node.
fn name_of(s: &FFI_ArrowSchema) -> &str {
    // SAFETY: our exports' names are NUL-terminated UTF-8.
    unsafe { CStr::from_ptr(s.name) }.to_str().unwrap()
}

/// Child `i` of a node.
fn child(s: &FFI_ArrowSchema, i: usize) -> &FFI_ArrowSchema {
    assert!((i as i64) < s.n_children);
    // SAFETY: `children` holds `n_children` valid pointers.
    unsafe { &**s.children.add(i) }
}

/// `f` with the dictionary ids an import assigns (the interface carries
/// none): each dictionary-encoded field the next id, depth first from 0.
fn import_ids<A: Allocator + Clone>(f: &Field<'static, A>, alloc: &A) -> Field<'static, A> {
    ids_field(f, &mut 0, alloc)
}

/// [`import_ids`] of every field of a schema, numbered across the fields.
fn import_ids_schema<A: Allocator + Clone>(
    s: &Schema<'static, A>,
    alloc: &A,
) -> Schema<'static, A> {
    let mut n = 0;
    let fs: Vec<_> = s
        .fields()
        .iter()
        .map(|f| ids_field(f, &mut n, alloc))
        .collect();
    Schema::new(SharedSlice::try_from_iter_in(fs, alloc.clone()).unwrap())
        .with_metadata(s.metadata().clone())
}

fn ids_field<A: Allocator + Clone>(
    f: &Field<'static, A>,
    n: &mut i64,
    alloc: &A,
) -> Field<'static, A> {
    let dt = ids_type(f.data_type(), n, alloc);
    let id = matches!(dt, DataType::Dictionary(..)).then(|| {
        *n += 1;
        *n - 1
    });
    Field::from_parts(
        f.name_shared().clone(),
        dt,
        f.is_nullable(),
        f.metadata().clone(),
        id,
    )
}

fn ids_type<A: Allocator + Clone>(
    dt: &DataType<'static, A>,
    n: &mut i64,
    alloc: &A,
) -> DataType<'static, A> {
    let b = |f: &Field<'static, A>, n: &mut i64| {
        SharedBox::try_new_in(ids_field(f, n, alloc), alloc.clone()).unwrap()
    };
    let many = |fs: &[Field<'static, A>], n: &mut i64| {
        let v: Vec<_> = fs.iter().map(|f| ids_field(f, n, alloc)).collect();
        SharedSlice::try_from_iter_in(v, alloc.clone()).unwrap()
    };
    match dt {
        DataType::List(c) => DataType::List(b(c, n)),
        DataType::LargeList(c) => DataType::LargeList(b(c, n)),
        DataType::ListView(c) => DataType::ListView(b(c, n)),
        DataType::LargeListView(c) => DataType::LargeListView(b(c, n)),
        DataType::FixedSizeList(c, k) => DataType::FixedSizeList(b(c, n), *k),
        DataType::Map(c, sorted) => DataType::Map(b(c, n), *sorted),
        DataType::Struct(fs) => DataType::Struct(many(fs, n)),
        DataType::Union(u, m) => {
            let ids = SharedSlice::try_from_slice_in(u.type_ids(), alloc.clone()).unwrap();
            DataType::Union(UnionFields::try_new(ids, many(u.fields(), n)).unwrap(), *m)
        }
        DataType::Dictionary(k, v, o) => DataType::Dictionary(
            *k,
            SharedBox::try_new_in(ids_type(v, n, alloc), alloc.clone()).unwrap(),
            *o,
        ),
        DataType::RunEndEncoded(r, v) => {
            let r = b(r, n);
            DataType::RunEndEncoded(r, b(v, n))
        }
        other => other.clone(),
    }
}

/// Exports `f`, imports it back.
fn round_trip<A: Allocator + Clone + Send + Sync + 'static>(
    f: &Field<'static, A>,
    alloc: A,
) -> Field<'static, A> {
    let exported = FFI_ArrowSchema::try_from_field_in(f, alloc.clone()).unwrap();
    // SAFETY: a struct we exported.
    unsafe { import_field_in(&exported, alloc) }.unwrap()
}

#[test]
fn every_type_round_trips_through_a_struct() {
    let a = counting();
    for (dt, format) in all_types(&a) {
        for nullable in [true, false] {
            let f = field("column", dt.clone(), nullable);
            let exported = FFI_ArrowSchema::try_from_field_in(&f, a.clone()).unwrap();
            assert_eq!(format_of(&exported), format);
            assert_eq!(name_of(&exported), "column");
            assert_eq!(exported.flags & ARROW_FLAG_NULLABLE != 0, nullable);
            // SAFETY: a struct we exported.
            let back = unsafe { import_field_in(&exported, a.clone()) }.unwrap();
            assert_eq!(back, import_ids(&f, &a), "{format}");
            // SAFETY: as above.
            let back_type = unsafe { import_data_type_in(&exported, a.clone()) }.unwrap();
            assert_eq!(back_type, dt);
            let bare = FFI_ArrowSchema::try_from_data_type_in(&dt, a.clone()).unwrap();
            assert_eq!(format_of(&bare), format);
            assert_eq!(name_of(&bare), "");
            // SAFETY: as above.
            let bare_back = unsafe { import_data_type_in(&bare, a.clone()) }.unwrap();
            assert_eq!(bare_back, dt);
        }
    }
    assert_eq!(a.inner().bytes_outstanding(), 0);
}

/// `list<item: struct<name: dictionary<int16, utf8> (ordered), n: int64>>`.
fn list_of_struct_of_dictionary<A: Allocator + Clone>(a: &A) -> Field<'static, A> {
    let dict = DataType::Dictionary(
        IndexType::Int16,
        SharedBox::try_new_in(DataType::Utf8, a.clone()).unwrap(),
        true,
    );
    let st = DataType::Struct(fields(
        std::vec![
            field("name", dict, true),
            field("n", DataType::Int64, false)
        ],
        a,
    ));
    field("l", DataType::List(boxed(field("item", st, true), a)), true)
}

#[test]
fn nested_types_have_the_spec_layout() {
    let a = Global;
    let f = list_of_struct_of_dictionary(&a);
    let s = FFI_ArrowSchema::try_from_field(&f).unwrap();
    assert_eq!((format_of(&s), s.n_children), ("+l", 1));
    assert!(s.dictionary.is_null());
    let item = child(&s, 0);
    assert_eq!(
        (format_of(item), name_of(item), item.n_children),
        ("+s", "item", 2)
    );
    let name = child(item, 0);
    assert_eq!((format_of(name), name_of(name)), ("s", "name"));
    assert_eq!(
        name.flags,
        ARROW_FLAG_NULLABLE | ARROW_FLAG_DICTIONARY_ORDERED
    );
    assert_eq!(name.n_children, 0);
    assert!(name.children.is_null());
    // SAFETY: a non-null dictionary pointer of our export.
    let values = unsafe { &*name.dictionary };
    assert_eq!(
        (format_of(values), name_of(values), values.flags),
        ("u", "", 0)
    );
    let n = child(item, 1);
    assert_eq!((format_of(n), n.flags), ("l", 0));
    assert!(n.metadata.is_null());
    assert_eq!(round_trip(&f, Global), import_ids(&f, &Global));

    // A map with sorted keys.
    let m = field("m", DataType::Map(map_entries(&a), true), false);
    let s = FFI_ArrowSchema::try_from_field(&m).unwrap();
    assert_eq!((format_of(&s), s.flags), ("+m", ARROW_FLAG_MAP_KEYS_SORTED));
    let entries = child(&s, 0);
    assert_eq!(
        (format_of(entries), name_of(entries), entries.flags),
        ("+s", "entries", 0)
    );
    assert_eq!(
        (format_of(child(entries, 0)), child(entries, 0).flags),
        ("u", 0)
    );
    assert_eq!(round_trip(&m, Global), import_ids(&m, &Global));

    // A dense union with type ids 3 and 7.
    let ids = SharedSlice::try_from_slice_in(&[3i8, 7], a).unwrap();
    let kids = fields(
        std::vec![
            field("x", DataType::Float64, true),
            field("y", DataType::Utf8, true)
        ],
        &a,
    );
    let u = DataType::Union(UnionFields::try_new(ids, kids).unwrap(), UnionMode::Dense);
    let u = field("u", u, true);
    let s = FFI_ArrowSchema::try_from_field(&u).unwrap();
    assert_eq!((format_of(&s), s.n_children), ("+ud:3,7", 2));
    assert_eq!((name_of(child(&s, 0)), name_of(child(&s, 1))), ("x", "y"));
    assert_eq!(round_trip(&u, Global), import_ids(&u, &Global));

    // Run-end encoded.
    let ree = DataType::RunEndEncoded(
        boxed(field("run_ends", DataType::Int16, false), &a),
        boxed(field("values", DataType::Utf8, true), &a),
    );
    let ree = field("r", ree, true);
    let s = FFI_ArrowSchema::try_from_field(&ree).unwrap();
    assert_eq!((format_of(&s), s.n_children), ("+r", 2));
    assert_eq!(
        (format_of(child(&s, 0)), name_of(child(&s, 0))),
        ("s", "run_ends")
    );
    assert_eq!(
        (format_of(child(&s, 1)), name_of(child(&s, 1))),
        ("u", "values")
    );
    assert_eq!(round_trip(&ree, Global), import_ids(&ree, &Global));
}

fn pairs(kv: &[(&'static str, &'static str)]) -> Metadata<'static, Global> {
    SharedSlice::try_from_iter_in(
        kv.iter()
            .map(|&(k, v)| (SharedStr::borrowed(k), SharedStr::borrowed(v))),
        Global,
    )
    .unwrap()
}

#[test]
fn extension_metadata_and_schemas_round_trip() {
    let md = pairs(&[
        (EXTENSION_NAME_KEY, "arrow.uuid"),
        (EXTENSION_METADATA_KEY, ""),
        ("owner", "sensor 7"),
    ]);
    let uuid = field("id", DataType::FixedSizeBinary(16), false).with_metadata(md);
    let s = FFI_ArrowSchema::try_from_field(&uuid).unwrap();
    assert!(!s.metadata.is_null());
    let back = round_trip(&uuid, Global);
    assert_eq!(back.extension_name(), Some("arrow.uuid"));
    assert_eq!(back.extension_metadata(), Some(""));
    assert_eq!(back, uuid);

    let schema = Schema::new(fields(
        std::vec![uuid.clone(), list_of_struct_of_dictionary(&Global)],
        &Global,
    ))
    .with_metadata(pairs(&[("origin", "alkaid")]));
    let s = FFI_ArrowSchema::try_from_schema(&schema).unwrap();
    assert_eq!(
        (format_of(&s), name_of(&s), s.flags, s.n_children),
        ("+s", "", 0, 2)
    );
    // SAFETY: a struct we exported.
    let back = unsafe { import_schema_in(&s, Global) }.unwrap();
    assert_eq!(back, import_ids_schema(&schema, &Global));
    // The same struct read as a field: a non-nullable struct named "".
    // SAFETY: as above.
    let as_field = unsafe { import_field_in(&s, Global) }.unwrap();
    assert_eq!(
        as_field.data_type(),
        &DataType::Struct(import_ids_schema(&schema, &Global).fields().clone())
    );
    // A field is not a schema.
    let s = FFI_ArrowSchema::try_from_field(&uuid).unwrap();
    // SAFETY: as above.
    let not_schema = unsafe { import_schema_in(&s, Global) };
    assert_eq!(not_schema, Err(Error::FfiSchemaNotStruct));
}

#[test]
fn export_refuses_what_the_interface_cannot_carry() {
    let bad = [
        (field("a\0b", DataType::Int32, true), Error::FfiStringHasNul),
        (
            field("w", DataType::FixedSizeBinary(0), true),
            Error::FfiFormatParameterOutOfRange,
        ),
        (
            field("d", DataType::Decimal64(19, 0), true),
            Error::InvalidDataType,
        ),
    ];
    for (f, e) in bad {
        assert_eq!(FFI_ArrowSchema::try_from_field(&f).err(), Some(e));
    }
    // Deeper than the limit of 64.
    let mut dt = DataType::Int32;
    for _ in 0..64 {
        dt = DataType::List(boxed(field("item", dt, true), &Global));
    }
    assert_eq!(
        FFI_ArrowSchema::try_from_data_type(&dt).err(),
        Some(Error::FfiNestingTooDeep)
    );
    let DataType::List(inner) = dt else {
        unreachable!()
    };
    assert!(FFI_ArrowSchema::try_from_field(&inner).is_ok());
}

std::thread_local! {
    static RELEASES: Cell<usize> = const { Cell::new(0) };
    static ORIGINAL: Cell<Option<unsafe extern "C" fn(*mut FFI_ArrowSchema)>> = const { Cell::new(None) };
}

unsafe extern "C" fn counting_release(s: *mut FFI_ArrowSchema) {
    RELEASES.with(|r| r.set(r.get() + 1));
    let original = ORIGINAL.with(|o| o.get()).unwrap();
    // SAFETY: the release callback this node had before instrumenting.
    unsafe { original(s) }
}

/// Replaces every node's `release` by [`counting_release`]; returns the
/// number of nodes.
fn instrument(s: &mut FFI_ArrowSchema) -> usize {
    ORIGINAL.with(|o| o.set(s.release));
    s.release = Some(counting_release);
    let mut n = 1;
    for i in 0..s.n_children as usize {
        // SAFETY: our export's children pointers are valid and unshared here.
        n += instrument(unsafe { &mut **s.children.add(i) });
    }
    // SAFETY: as above.
    if let Some(d) = unsafe { s.dictionary.as_mut() } {
        n += instrument(d);
    }
    n
}

#[test]
fn release_runs_once_per_node_and_frees_everything() {
    let a = counting();
    let f = list_of_struct_of_dictionary(&a);
    let before = a.inner().bytes_outstanding();
    let mut s = FFI_ArrowSchema::try_from_field_in(&f, a.clone()).unwrap();
    assert!(a.inner().bytes_outstanding() > before);
    let nodes = instrument(&mut s);
    assert_eq!(nodes, 5); // list, struct, dictionary indices, its values, int64
    RELEASES.with(|r| r.set(0));
    drop(s);
    assert_eq!(RELEASES.with(|r| r.get()), nodes);
    assert_eq!(a.inner().bytes_outstanding(), before);

    // Calling `release` directly marks the struct released; dropping it
    // afterwards does nothing more.
    let mut s = FFI_ArrowSchema::try_from_field_in(&f, a.clone()).unwrap();
    let release = s.release.unwrap();
    // SAFETY: our export, released once.
    unsafe { release(&mut s) };
    assert!(s.is_released());
    assert!(s.private_data.is_null());
    assert_eq!(a.inner().bytes_outstanding(), before);
    drop(s);
    assert_eq!(a.inner().bytes_outstanding(), before);
    drop(f);
    assert_eq!(a.inner().bytes_outstanding(), 0);
}

#[test]
fn a_child_moved_out_outlives_its_parent() {
    let a = counting();
    let f = list_of_struct_of_dictionary(&a);
    let baseline = a.inner().bytes_outstanding();
    let s = FFI_ArrowSchema::try_from_field_in(&f, a.clone()).unwrap();
    // Move the struct child out, as a consumer may: copy it, mark the
    // original released.
    // SAFETY: the child pointer is valid; the original is not used again
    // except to be skipped by the parent's release.
    let moved = unsafe {
        let slot = *s.children;
        let moved = ptr::read(slot);
        (*slot).release = None;
        moved
    };
    drop(s);
    assert!(
        a.inner().bytes_outstanding() > baseline,
        "the moved child is still alive"
    );
    // SAFETY: the moved struct is a complete export of its own.
    let item = unsafe { import_field_in(&moved, a.clone()) }.unwrap();
    let DataType::List(want) = f.data_type() else {
        unreachable!()
    };
    assert_eq!(item, import_ids(want, &a));
    drop(item);
    drop(moved);
    assert_eq!(a.inner().bytes_outstanding(), baseline);
}

#[test]
fn exported_structs_are_send_and_release_on_another_thread() {
    fn assert_send<T: Send>() {}
    assert_send::<FFI_ArrowSchema>();
    let a = counting();
    let f = list_of_struct_of_dictionary(&a);
    let s = FFI_ArrowSchema::try_from_field_in(&f, a.clone()).unwrap();
    let live_with_field = {
        let base = a.clone();
        std::thread::spawn(move || drop(s)).join().unwrap();
        base.inner().bytes_outstanding()
    };
    drop(f);
    assert!(live_with_field > 0);
    assert_eq!(a.inner().bytes_outstanding(), 0);
    assert!(FFI_ArrowSchema::empty().is_released());
}

#[test]
fn allocation_failure_at_every_step_leaks_nothing() {
    let base = counting();
    let f = list_of_struct_of_dictionary(&base).with_metadata(
        SharedSlice::try_from_iter_in(
            [(SharedStr::borrowed("k"), SharedStr::borrowed("v"))],
            base.clone(),
        )
        .unwrap(),
    );
    let export_allocs = check_every_failure(|a| FFI_ArrowSchema::try_from_field_in(&f, a));
    assert!(export_allocs >= 10, "{export_allocs}");
    let exported = FFI_ArrowSchema::try_from_field_in(&f, base.clone()).unwrap();
    let import_allocs = check_every_failure(|a| {
        // SAFETY: a struct we exported.
        let back = unsafe { import_field_in(&exported, a) }?;
        assert_eq!(back.name(), "l");
        Ok(back)
    });
    assert!(import_allocs >= 10, "{import_allocs}");
    let schema = Schema::new(fields(std::vec![f.clone(), f.clone()], &base));
    check_every_failure(|a| FFI_ArrowSchema::try_from_schema_in(&schema, a));
    let exported_schema = FFI_ArrowSchema::try_from_schema_in(&schema, base.clone()).unwrap();
    // SAFETY: a struct we exported.
    check_every_failure(|a| unsafe { import_schema_in(&exported_schema, a) });
    drop((exported, exported_schema, schema, f));
    assert_eq!(base.inner().bytes_outstanding(), 0);
}

// ----- malformed producer structs -----

unsafe extern "C" fn release_hand_made(s: *mut FFI_ArrowSchema) {
    // SAFETY: called on a valid struct.
    unsafe { (*s).release = None };
}

/// A hand-made producer node (its memory is the test's). The children
/// array is only read, so several nodes may share one.
fn node(format: &CStr, children: &[*mut FFI_ArrowSchema]) -> FFI_ArrowSchema {
    FFI_ArrowSchema {
        format: format.as_ptr(),
        name: c"x".as_ptr(),
        metadata: ptr::null(),
        flags: ARROW_FLAG_NULLABLE,
        n_children: children.len() as i64,
        children: if children.is_empty() {
            ptr::null_mut()
        } else {
            children.as_ptr().cast_mut()
        },
        dictionary: ptr::null_mut(),
        release: Some(release_hand_made),
        private_data: ptr::null_mut(),
    }
}

fn import(s: &FFI_ArrowSchema) -> crate::Result<Field<'static, Global>> {
    // SAFETY: the hand-made structs are valid for the interface's pointer
    // contract; only their content is malformed.
    unsafe { import_field_in(s, Global) }
}

#[test]
fn malformed_structs_each_give_their_error() {
    use ErrorKind::*;
    let mut int = node(c"i", &[]);
    let mut utf8 = node(c"u", &[]);
    let ip: *mut FFI_ArrowSchema = &mut int;
    let up: *mut FFI_ArrowSchema = &mut utf8;
    let kids2 = [ip, up];
    let kids1 = [ip];

    let mut null_format = node(c"i", &[]);
    null_format.format = ptr::null();
    let mut released = node(c"i", &[]);
    released.release = None;
    let mut negative = node(c"+s", &[]);
    negative.n_children = -1;
    let mut null_children = node(c"+l", &[]);
    null_children.n_children = 1;
    let null_child_entries = [ip, ptr::null_mut()];
    let bad_name_bytes = [b'a', 0xff, 0];
    let mut bad_name = node(c"i", &[]);
    bad_name.name = bad_name_bytes.as_ptr().cast::<c_char>();
    let neg_md = (-1i32).to_ne_bytes();
    let mut bad_metadata = node(c"i", &[]);
    bad_metadata.metadata = neg_md.as_ptr().cast::<c_char>();
    let mut dict_on_utf8 = node(c"u", &[]);
    dict_on_utf8.dictionary = ip;
    let mut dict_on_int_bad_value = node(c"i", &[]);
    let mut bad_value = node(c"+w:", &[]);
    dict_on_int_bad_value.dictionary = &mut bad_value;

    // Map entries: a struct of (utf8, int) whose keys are nullable.
    let mut null_keys = node(c"+s", &kids2);
    null_keys.flags = 0;
    let null_keys_ptr = [ptr::from_mut(&mut null_keys)];
    // Run ends that are strings.
    let ree_kids = [up, ip];

    let cases: Vec<(FFI_ArrowSchema, ErrorKind)> = std::vec![
        (null_format, FfiNullFormat),
        (released, FfiReleased),
        (node(c"tsx:", &[]), FfiFormatInvalid),
        (node(c"d:1", &[]), FfiFormatInvalid),
        (node(c"w:-1", &[]), FfiFormatParameterOutOfRange),
        (node(c"+w:", &kids1), FfiFormatInvalid),
        (node(c"ii", &[]), FfiFormatInvalid),
        (node(c"tsu:\xff", &[]), FfiTimezoneNotUtf8),
        (node(c"+ud:1,1", &kids2), FfiUnionTypeIdsInvalid),
        (node(c"+ud:1", &kids2), FfiChildCountMismatch),
        (node(c"+l", &kids2), FfiChildCountMismatch),
        (node(c"i", &kids1), FfiChildCountMismatch),
        (negative, FfiChildrenInvalid),
        (null_children, FfiChildrenInvalid),
        (node(c"+s", &null_child_entries), FfiChildrenInvalid),
        (node(c"+m", &kids1), MapEntriesInvalid),
        (node(c"+m", &null_keys_ptr), MapKeyNull),
        (node(c"+r", &ree_kids), FfiRunEndsInvalid),
        (dict_on_utf8, FfiDictionaryIndexNotInteger),
        (dict_on_int_bad_value, FfiFormatInvalid),
        (bad_name, FfiNameNotUtf8),
        (bad_metadata, FfiMetadataNegativeLength),
    ];
    for (i, (s, e)) in cases.iter().enumerate() {
        assert_eq!(
            import(s).err(),
            Some(Error::from(*e)),
            "case {i}: {:?}",
            s.format
        );
    }
    // The well-formed hand-made nodes do import.
    assert_eq!(
        import(&node(c"+ud:1,0", &kids2)).unwrap().data_type(),
        &DataType::Union(
            UnionFields::try_new(
                SharedSlice::borrowed(&[1, 0]),
                fields(
                    std::vec![
                        field("x", DataType::Int32, true),
                        field("x", DataType::Utf8, true)
                    ],
                    &Global
                )
            )
            .unwrap(),
            UnionMode::Dense
        )
    );
    assert_eq!(
        // SAFETY: as in `import`.
        unsafe { import_schema_in(&node(c"i", &[]), Global) },
        Err(Error::FfiSchemaNotStruct)
    );
    let mut dict_struct = node(c"+s", &[]);
    dict_struct.dictionary = ip;
    // SAFETY: as in `import`.
    let not_schema = unsafe { import_schema_in(&dict_struct, Global) };
    assert_eq!(not_schema, Err(Error::FfiSchemaNotStruct));
}

#[test]
fn cycles_depth_node_count_and_bytes_are_bounded() {
    // A list node whose child is itself: refused at depth 65. (The cycle is
    // closed through the raw pointer, which every later access goes
    // through, as a producer's would.)
    let mut l = node(c"+l", &[]);
    let lp = ptr::from_mut(&mut l);
    let mut self_ptr = [lp];
    // SAFETY: `lp` points at `l`, which is not otherwise accessed here.
    let l = unsafe {
        (*lp).n_children = 1;
        (*lp).children = self_ptr.as_mut_ptr();
        &*lp
    };
    assert_eq!(import(l).err(), Some(Error::FfiNestingTooDeep));
    // A struct whose two children are itself: 2^depth nodes, stopped by the
    // node limit (here before the depth limit: the first path down counts
    // 50 nodes at depth 50).
    let mut s = node(c"+s", &[]);
    let sp = ptr::from_mut(&mut s);
    let mut twice = [sp, sp];
    // SAFETY: as for `l`.
    let s = unsafe {
        (*sp).n_children = 2;
        (*sp).children = twice.as_mut_ptr();
        &*sp
    };
    let limits = ImportLimits {
        max_nodes: 50,
        ..ImportLimits::default()
    };
    // SAFETY: valid pointers, hostile shape.
    let r = unsafe { import_field_with_limits_in(s, Global, limits) };
    assert_eq!(r.err(), Some(Error::FfiTooManyNodes));
    // The children of one node are counted before any is read.
    let mut int = node(c"i", &[]);
    let wide_kids = [ptr::from_mut(&mut int); 4];
    let wide = node(c"+s", &wide_kids);
    let limits = ImportLimits {
        max_nodes: 4,
        ..ImportLimits::default()
    };
    // SAFETY: as above.
    let r = unsafe { import_field_with_limits_in(&wide, Global, limits) };
    assert_eq!(r.err(), Some(Error::FfiTooManyNodes));
    let limits = ImportLimits {
        max_nodes: 5,
        ..ImportLimits::default()
    };
    // SAFETY: as above.
    assert!(unsafe { import_field_with_limits_in(&wide, Global, limits) }.is_ok());
    // Names count against the byte limit (4 names of one byte, one more).
    let limits = ImportLimits {
        max_bytes: 4,
        ..ImportLimits::default()
    };
    // SAFETY: as above.
    let r = unsafe { import_field_with_limits_in(&wide, Global, limits) };
    assert_eq!(r.err(), Some(Error::FfiMetadataTooLarge));
    let limits = ImportLimits {
        max_bytes: 5,
        ..ImportLimits::default()
    };
    // SAFETY: as above.
    assert!(unsafe { import_field_with_limits_in(&wide, Global, limits) }.is_ok());
    // A null name imports as "".
    let mut unnamed = node(c"b", &[]);
    unnamed.name = ptr::null();
    assert_eq!(import(&unnamed).unwrap().name(), "");
}
