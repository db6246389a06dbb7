//! Format strings: every `DataType` against the specification's table, and
//! malformed strings each giving its error.

use std::vec::Vec;

use crate::Global;
use allocator_api2::alloc::Allocator;

use super::format::{build_data_type, write_format, Counter, Format};
use crate::buffer::{SharedBox, SharedSlice, SharedStr};
use crate::datatypes::{
    DataType, Field, IndexType, IntervalUnit, TimeUnit, UnionFields, UnionMode,
};
use crate::error::{Error, ErrorKind};

/// A field in memory from `alloc` (name borrowed).
pub(super) fn field<A: Allocator + Clone>(
    name: &'static str,
    dt: DataType<'static, A>,
    nullable: bool,
) -> Field<'static, A> {
    Field::new(name, dt, nullable)
}

/// `f` boxed in `alloc`.
pub(super) fn boxed<A: Allocator + Clone>(
    f: Field<'static, A>,
    alloc: &A,
) -> SharedBox<'static, Field<'static, A>, A> {
    SharedBox::try_new_in(f, alloc.clone()).unwrap()
}

/// `fs` in a shared slice from `alloc`.
pub(super) fn fields<A: Allocator + Clone>(
    fs: Vec<Field<'static, A>>,
    alloc: &A,
) -> SharedSlice<'static, Field<'static, A>, A> {
    SharedSlice::try_from_iter_in(fs, alloc.clone()).unwrap()
}

/// `map<utf8 (non-null), int32>` entries.
pub(super) fn map_entries<A: Allocator + Clone>(
    alloc: &A,
) -> SharedBox<'static, Field<'static, A>, A> {
    let kv = fields(
        std::vec![
            field("key", DataType::Utf8, false),
            field("value", DataType::Int32, true),
        ],
        alloc,
    );
    boxed(field("entries", DataType::Struct(kv), false), alloc)
}

/// Every kind of `DataType` (every variant, every unit, each decimal width,
/// time zones absent and present, empty and non-empty nested types) with
/// its format string from the specification's table.
pub(super) fn all_types<A: Allocator + Clone>(
    alloc: &A,
) -> Vec<(DataType<'static, A>, &'static str)> {
    use DataType as D;
    use TimeUnit::*;
    let item = || boxed(field("item", D::Int32, true), alloc);
    let tz = |s: &str| Some(SharedStr::try_from_str_in(s, alloc.clone()).unwrap());
    let union = |ids: &[i8], mode| {
        let fs: Vec<_> = ids
            .iter()
            .map(|id| {
                let dt = if id % 2 == 0 { D::Float64 } else { D::Utf8 };
                field(if id % 2 == 0 { "f" } else { "s" }, dt, true)
            })
            .collect();
        let ids = SharedSlice::try_from_slice_in(ids, alloc.clone()).unwrap();
        D::Union(UnionFields::try_new(ids, fields(fs, alloc)).unwrap(), mode)
    };
    let dict =
        |i, v, ordered| D::Dictionary(i, SharedBox::try_new_in(v, alloc.clone()).unwrap(), ordered);
    std::vec![
        (D::Null, "n"),
        (D::Boolean, "b"),
        (D::Int8, "c"),
        (D::UInt8, "C"),
        (D::Int16, "s"),
        (D::UInt16, "S"),
        (D::Int32, "i"),
        (D::UInt32, "I"),
        (D::Int64, "l"),
        (D::UInt64, "L"),
        (D::Float16, "e"),
        (D::Float32, "f"),
        (D::Float64, "g"),
        (D::FixedSizeBinary(42), "w:42"),
        (D::FixedSizeBinary(i32::MAX), "w:2147483647"),
        (D::Binary, "z"),
        (D::LargeBinary, "Z"),
        (D::Utf8, "u"),
        (D::LargeUtf8, "U"),
        (D::BinaryView, "vz"),
        (D::Utf8View, "vu"),
        (D::Decimal32(9, 2), "d:9,2,32"),
        (D::Decimal64(18, -3), "d:18,-3,64"),
        (D::Decimal128(19, 10), "d:19,10"),
        (D::Decimal128(38, 0), "d:38,0"),
        (D::Decimal256(76, 127), "d:76,127,256"),
        (D::Decimal256(1, -128), "d:1,-128,256"),
        (D::Date32, "tdD"),
        (D::Date64, "tdm"),
        (D::Time32(Second), "tts"),
        (D::Time32(Millisecond), "ttm"),
        (D::Time64(Microsecond), "ttu"),
        (D::Time64(Nanosecond), "ttn"),
        (D::Timestamp(Second, None), "tss:"),
        (D::Timestamp(Millisecond, tz("UTC")), "tsm:UTC"),
        (
            D::Timestamp(Microsecond, tz("Europe/Paris")),
            "tsu:Europe/Paris"
        ),
        (D::Timestamp(Nanosecond, tz("+07:30")), "tsn:+07:30"),
        (D::Duration(Second), "tDs"),
        (D::Duration(Millisecond), "tDm"),
        (D::Duration(Microsecond), "tDu"),
        (D::Duration(Nanosecond), "tDn"),
        (D::Interval(IntervalUnit::YearMonth), "tiM"),
        (D::Interval(IntervalUnit::DayTime), "tiD"),
        (D::Interval(IntervalUnit::MonthDayNano), "tin"),
        (D::List(item()), "+l"),
        (D::LargeList(item()), "+L"),
        (D::ListView(item()), "+vl"),
        (D::LargeListView(item()), "+vL"),
        (D::FixedSizeList(item(), 3), "+w:3"),
        (D::FixedSizeList(item(), 0), "+w:0"),
        (
            D::Struct(fields(
                std::vec![field("a", D::Utf8, true), field("b", D::Float64, false)],
                alloc
            )),
            "+s"
        ),
        (D::Struct(SharedSlice::empty()), "+s"),
        (D::Map(map_entries(alloc), false), "+m"),
        (D::Map(map_entries(alloc), true), "+m"),
        (union(&[3, 7], UnionMode::Dense), "+ud:3,7"),
        (union(&[0, 1], UnionMode::Sparse), "+us:0,1"),
        (union(&[127, 0, 5], UnionMode::Sparse), "+us:127,0,5"),
        (union(&[], UnionMode::Dense), "+ud:"),
        (dict(IndexType::Int8, D::Utf8, false), "c"),
        (dict(IndexType::UInt8, D::LargeUtf8, true), "C"),
        (dict(IndexType::Int16, D::Binary, false), "s"),
        (dict(IndexType::UInt16, D::Int64, false), "S"),
        (dict(IndexType::Int32, D::Utf8View, false), "i"),
        (dict(IndexType::UInt32, D::Float32, false), "I"),
        (dict(IndexType::Int64, D::Date32, false), "l"),
        (dict(IndexType::UInt64, D::List(item()), true), "L"),
        (
            D::RunEndEncoded(
                boxed(field("run_ends", D::Int32, false), alloc),
                boxed(field("values", D::Utf8, true), alloc)
            ),
            "+r"
        ),
        (
            D::RunEndEncoded(
                boxed(field("run_ends", D::Int64, false), alloc),
                boxed(field("values", D::Float64, true), alloc)
            ),
            "+r"
        ),
    ]
}

fn format_string<A: Allocator>(dt: &DataType<'_, A>) -> std::string::String {
    let mut s = std::string::String::new();
    write_format(dt, &mut s).unwrap();
    let mut n = Counter(0);
    write_format(dt, &mut n).unwrap();
    assert_eq!(n.0, s.len(), "counted length of {s}");
    s
}

/// The children of a nested type, as an importer would have them.
fn children_of<A: Allocator + Clone>(
    dt: &DataType<'static, A>,
    alloc: &A,
) -> SharedSlice<'static, Field<'static, A>, A> {
    use DataType as D;
    let fs: Vec<_> = match dt {
        D::List(f) | D::LargeList(f) | D::ListView(f) | D::LargeListView(f) | D::Map(f, _) => {
            std::vec![(**f).clone()]
        }
        D::FixedSizeList(f, _) => std::vec![(**f).clone()],
        D::Struct(fs) => fs.iter().cloned().collect(),
        D::Union(u, _) => u.fields().iter().cloned().collect(),
        D::RunEndEncoded(r, v) => std::vec![(**r).clone(), (**v).clone()],
        _ => Vec::new(),
    };
    fields(fs, alloc)
}

#[test]
fn every_type_has_the_spec_format_string_and_parses_back() {
    let types = all_types(&Global);
    for (dt, want) in &types {
        assert_eq!(format_string(dt), *want, "{dt:?}");
        let parsed = Format::parse(want.as_bytes()).unwrap();
        if let DataType::Dictionary(index, ..) = dt {
            // The value type travels in the dictionary node.
            assert_eq!(parsed.index_type(), Some(*index));
            continue;
        }
        let sorted = matches!(dt, DataType::Map(_, true));
        let back = build_data_type(&parsed, children_of(dt, &Global), sorted, &Global).unwrap();
        assert_eq!(&back, dt, "{want}");
    }
}

#[test]
fn every_data_type_variant_is_listed() {
    // A new `DataType` variant makes this match fail to compile until it is
    // given a format string (and added to `all_types`).
    for (dt, _) in all_types(&Global) {
        use DataType as D;
        match dt {
            D::Null
            | D::Boolean
            | D::Int8
            | D::Int16
            | D::Int32
            | D::Int64
            | D::UInt8
            | D::UInt16
            | D::UInt32
            | D::UInt64
            | D::Float16
            | D::Float32
            | D::Float64
            | D::Decimal32(..)
            | D::Decimal64(..)
            | D::Decimal128(..)
            | D::Decimal256(..)
            | D::Date32
            | D::Date64
            | D::Time32(_)
            | D::Time64(_)
            | D::Timestamp(..)
            | D::Interval(_)
            | D::Duration(_)
            | D::FixedSizeBinary(_)
            | D::Binary
            | D::LargeBinary
            | D::Utf8
            | D::LargeUtf8
            | D::BinaryView
            | D::Utf8View
            | D::List(_)
            | D::LargeList(_)
            | D::ListView(_)
            | D::LargeListView(_)
            | D::FixedSizeList(..)
            | D::Struct(_)
            | D::Map(..)
            | D::Union(..)
            | D::Dictionary(..)
            | D::RunEndEncoded(..) => {}
        }
    }
}

#[test]
fn types_the_interface_cannot_express_are_refused_on_writing() {
    use DataType as D;
    let bad: [(DataType<'static, Global>, Error); 7] = [
        (D::Time32(TimeUnit::Microsecond), Error::InvalidDataType),
        (D::Time64(TimeUnit::Second), Error::InvalidDataType),
        (D::Decimal32(10, 0), Error::InvalidDataType),
        (D::Decimal128(0, 0), Error::InvalidDataType),
        (D::FixedSizeBinary(0), Error::FfiFormatParameterOutOfRange),
        (D::FixedSizeBinary(-1), Error::FfiFormatParameterOutOfRange),
        (
            D::Timestamp(TimeUnit::Second, Some(SharedStr::borrowed("a\0b"))),
            Error::FfiStringHasNul,
        ),
    ];
    for (dt, e) in bad {
        let mut s = std::string::String::new();
        assert_eq!(write_format(&dt, &mut s), Err(e), "{dt:?}");
    }
}

#[test]
fn malformed_format_strings_each_give_their_error() {
    use ErrorKind::*;
    let cases: &[(&[u8], ErrorKind)] = &[
        (b"", FfiFormatInvalid),
        (b"x", FfiFormatInvalid),
        (b"ii", FfiFormatInvalid),
        (b"i ", FfiFormatInvalid),
        (b"+", FfiFormatInvalid),
        (b"-", FfiFormatInvalid),
        (b"+lx", FfiFormatInvalid),
        (b"v", FfiFormatInvalid),
        (b"d:", FfiFormatInvalid),
        (b"d:1", FfiFormatInvalid),
        (b"d:1,", FfiFormatInvalid),
        (b"d:,1", FfiFormatInvalid),
        (b"d:5,2,32x", FfiFormatInvalid),
        (b"d:5,2,32,1", FfiFormatInvalid),
        (b"d:0,0", FfiFormatParameterOutOfRange),
        (b"d:39,0", FfiFormatParameterOutOfRange),
        (b"d:10,0,32", FfiFormatParameterOutOfRange),
        (b"d:19,0,64", FfiFormatParameterOutOfRange),
        (b"d:77,0,256", FfiFormatParameterOutOfRange),
        (b"d:5,0,48", FfiFormatParameterOutOfRange),
        (b"d:5,128", FfiFormatParameterOutOfRange),
        (b"d:5,-129", FfiFormatParameterOutOfRange),
        (b"w:", FfiFormatInvalid),
        (b"w:+1", FfiFormatInvalid),
        (b"w:1a", FfiFormatInvalid),
        (b"w: 1", FfiFormatInvalid),
        (b"w:0", FfiFormatParameterOutOfRange),
        (b"w:-1", FfiFormatParameterOutOfRange),
        (b"w:2147483648", FfiFormatParameterOutOfRange),
        (b"w:99999999999999999999999", FfiFormatParameterOutOfRange),
        (b"w:-99999999999999999999999", FfiFormatParameterOutOfRange),
        (b"+w:", FfiFormatInvalid),
        (b"+w:-1", FfiFormatParameterOutOfRange),
        (b"+w:2147483648", FfiFormatParameterOutOfRange),
        (b"ts", FfiFormatInvalid),
        (b"tsu", FfiFormatInvalid),
        (b"tsx:", FfiFormatInvalid),
        (b"tsuUTC", FfiFormatInvalid),
        (b"tD", FfiFormatInvalid),
        (b"tDx", FfiFormatInvalid),
        (b"tDss", FfiFormatInvalid),
        (b"ttx", FfiFormatInvalid),
        (b"tdX", FfiFormatInvalid),
        (b"tix", FfiFormatInvalid),
        (b"tsu:\xff", FfiTimezoneNotUtf8),
        (b"tsu:Europe/\xc3", FfiTimezoneNotUtf8),
        (b"+ud", FfiFormatInvalid),
        (b"+u:1", FfiFormatInvalid),
        (b"+ux:1", FfiFormatInvalid),
        (b"+ud:1,", FfiFormatInvalid),
        (b"+ud:,1", FfiFormatInvalid),
        (b"+ud:1;2", FfiFormatInvalid),
        (b"+ud:1,1", FfiUnionTypeIdsInvalid),
        (b"+us:128", FfiUnionTypeIdsInvalid),
        (b"+us:-1", FfiUnionTypeIdsInvalid),
    ];
    for (f, e) in cases {
        assert_eq!(
            Format::parse(f),
            Err(Error::from(*e)),
            "{:?}",
            std::string::String::from_utf8_lossy(f)
        );
    }
}

#[test]
fn union_type_ids_cover_0_to_127() {
    let mut s = std::string::String::from("+us:");
    for i in (0..128).rev() {
        if i != 127 {
            s.push(',');
        }
        s += &std::format!("{i}");
    }
    let Format::Union(UnionMode::Sparse, ids) = Format::parse(s.as_bytes()).unwrap() else {
        panic!("not a union");
    };
    assert_eq!(ids.as_slice().len(), 128);
    assert_eq!(ids.as_slice()[0], 127);
    assert_eq!(ids.as_slice()[127], 0);
    let mut dup = s.clone();
    dup += ",5";
    assert_eq!(
        Format::parse(dup.as_bytes()),
        Err(Error::FfiUnionTypeIdsInvalid)
    );
}

#[test]
fn children_must_match_the_format() {
    use DataType as D;
    let g = &Global;
    let none: SharedSlice<'static, Field<'static, Global>, Global> = SharedSlice::empty();
    let two = fields(
        std::vec![field("a", D::Int32, false), field("b", D::Utf8, true)],
        g,
    );
    let build = |f: &[u8], c: &SharedSlice<'static, Field<'static, Global>, Global>| {
        build_data_type(&Format::parse(f).unwrap(), c.clone(), false, g)
    };
    assert_eq!(build(b"+l", &none), Err(Error::FfiChildCountMismatch));
    assert_eq!(build(b"+w:2", &two), Err(Error::FfiChildCountMismatch));
    assert_eq!(build(b"i", &two), Err(Error::FfiChildCountMismatch));
    assert_eq!(build(b"+ud:1", &two), Err(Error::FfiChildCountMismatch));
    assert_eq!(build(b"+r", &none), Err(Error::FfiChildCountMismatch));
    assert!(build(b"+r", &two).is_ok());
    assert!(build(b"+us:4,2", &two).is_ok());
    // Run ends of a non-integer type, or nullable.
    let utf8_ends = fields(
        std::vec![
            field("run_ends", D::Utf8, false),
            field("values", D::Utf8, true)
        ],
        g,
    );
    assert_eq!(build(b"+r", &utf8_ends), Err(Error::FfiRunEndsInvalid));
    let nullable_ends = fields(
        std::vec![
            field("run_ends", D::Int16, true),
            field("values", D::Utf8, true)
        ],
        g,
    );
    assert_eq!(build(b"+r", &nullable_ends), Err(Error::FfiRunEndsInvalid));
    // Maps: a non-null struct of exactly two fields whose keys are non-null.
    let entries = |dt: DataType<'static, Global>, nullable| {
        fields(std::vec![field("entries", dt, nullable)], g)
    };
    assert_eq!(
        build(b"+m", &entries(D::Int32, false)),
        Err(Error::MapEntriesInvalid)
    );
    assert_eq!(
        build(b"+m", &entries(D::Struct(two.clone()), true)),
        Err(Error::MapEntriesInvalid)
    );
    let three = fields(
        std::vec![
            field("k", D::Int32, false),
            field("v", D::Int32, true),
            field("w", D::Int32, true)
        ],
        g,
    );
    assert_eq!(
        build(b"+m", &entries(D::Struct(three), false)),
        Err(Error::MapEntriesInvalid)
    );
    let null_keys = fields(
        std::vec![field("k", D::Int32, true), field("v", D::Int32, true)],
        g,
    );
    assert_eq!(
        build(b"+m", &entries(D::Struct(null_keys), false)),
        Err(Error::MapKeyNull)
    );
    assert!(build(b"+m", &entries(D::Struct(two), false)).is_ok());
}

#[test]
fn parsing_borrows_the_timezone() {
    let f = b"tsn:America/New_York";
    let Format::Timestamp(TimeUnit::Nanosecond, Some(tz)) = Format::parse(f).unwrap() else {
        panic!("not a timestamp");
    };
    assert_eq!(tz, "America/New_York");
    assert_eq!(tz.as_ptr(), f[4..].as_ptr());
    assert_eq!(
        Format::parse(b"tsn:").unwrap(),
        Format::Timestamp(TimeUnit::Nanosecond, None)
    );
}
