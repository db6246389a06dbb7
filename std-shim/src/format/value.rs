//! One slot of any array as text ([`ValueDisplay`]).

use core::fmt::{self, Write};

use alkaid::allocator_api2::alloc::Allocator;
use alkaid::array::{Array, ArrayRef};
use alkaid::datatypes::{DataType, IntervalUnit};

use super::temporal::{
    i256_digits, write_date, write_date64, write_decimal, write_decimal_i128, write_duration,
    write_time, write_timestamp,
};

/// Displays slot `index` of an array; see [`value`].
#[derive(Debug)]
pub struct ValueDisplay<'x, 'a, A: Allocator> {
    array: &'x ArrayRef<'a, A>,
    index: usize,
}

/// Slot `index` of `array` as text:
///
/// - `null` for a null slot (of the validity bitmap, or of the value a
///   dictionary key or a run selects);
/// - booleans and integers as Rust prints them; floats with Rust's `{:?}`
///   (shortest text that reads back to the same value: `1.0`, `-0.0`,
///   `NaN`, `inf`, `1e300`); half floats through `f32`;
/// - decimals with their scale (`123.45`; a negative scale appends zeros);
/// - date32 `2024-02-29`; date64 the same at midnight, else with a time;
///   time32/64 `13:45:00.250`; timestamps `2024-02-29T13:45:00.250000`,
///   with `Z` when the type has a time zone (the instant in UTC); fractions
///   have the digits of the unit (3, 6 or 9);
/// - durations `90s`, `1500ms`, `12us`, `7ns`; intervals `14 months`,
///   `3 days 1500 ms`, `1 months 2 days 3 ns`;
/// - strings as they are at the top level, in double quotes inside nested
///   values (`"a\"b"`); control characters escaped (`\n`, `\u{1b}`);
/// - binary and fixed-size binary as `0x` and lowercase hex (`0x00ff`);
/// - lists `[1, null, 3]`; structs `{a: 1, b: "x"}`; maps `{"k": 1}`;
///   unions `{name=value}` with the name of the selected child; dictionary
///   and run-end encoded slots as the value they stand for.
///
/// A slot out of bounds (or in an array built unchecked whose children do
/// not cover it) prints `<out of bounds>`; nothing here panics.
pub fn value<'x, 'a, A: Allocator>(
    array: &'x ArrayRef<'a, A>,
    index: usize,
) -> ValueDisplay<'x, 'a, A> {
    ValueDisplay { array, index }
}

impl<A: Allocator> fmt::Display for ValueDisplay<'_, '_, A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_value(f, self.array, self.index, false)
    }
}

const OOB: &str = "<out of bounds>";

/// A string, quoted (nested) or not; control characters escaped.
fn write_str<W: Write>(f: &mut W, s: &str, quoted: bool) -> fmt::Result {
    if quoted {
        f.write_char('"')?;
    }
    for c in s.chars() {
        if quoted && (c == '"' || c == '\\') {
            f.write_char('\\')?;
            f.write_char(c)?;
        } else if c.is_control() {
            write!(f, "{}", c.escape_default())?;
        } else {
            f.write_char(c)?;
        }
    }
    if quoted {
        f.write_char('"')?;
    }
    Ok(())
}

/// Bytes as `0x` and lowercase hex.
fn write_hex<W: Write>(f: &mut W, bytes: &[u8]) -> fmt::Result {
    f.write_str("0x")?;
    for b in bytes {
        write!(f, "{b:02x}")?;
    }
    Ok(())
}

/// Every slot of `child` as a list `[a, b, …]`.
fn write_list<W: Write, A: Allocator>(f: &mut W, child: &ArrayRef<'_, A>) -> fmt::Result {
    f.write_char('[')?;
    for j in 0..child.len() {
        if j > 0 {
            f.write_str(", ")?;
        }
        write_value(f, child, j, true)?;
    }
    f.write_char(']')
}

/// Writes slot `i` of `a`; `nested` quotes strings.
pub(crate) fn write_value<W: Write, A: Allocator>(
    f: &mut W,
    a: &ArrayRef<'_, A>,
    i: usize,
    nested: bool,
) -> fmt::Result {
    if i >= a.len() {
        return f.write_str(OOB);
    }
    if a.is_null(i) {
        return f.write_str("null");
    }
    macro_rules! plain {
        ($x:expr) => {
            match $x.value(i) {
                Some(v) => write!(f, "{v}"),
                None => f.write_str(OOB),
            }
        };
    }
    macro_rules! float {
        ($x:expr) => {
            match $x.value(i) {
                Some(v) => write!(f, "{:?}", v),
                None => f.write_str(OOB),
            }
        };
    }
    macro_rules! list {
        ($x:expr) => {
            match $x.value(i) {
                Some(child) => write_list(f, &child),
                None => f.write_str(OOB),
            }
        };
    }
    match a {
        ArrayRef::Null(_) => f.write_str("null"),
        ArrayRef::Boolean(x) => plain!(x),
        ArrayRef::Int8(x) => plain!(x),
        ArrayRef::Int16(x) => plain!(x),
        ArrayRef::UInt8(x) => plain!(x),
        ArrayRef::UInt16(x) => plain!(x),
        ArrayRef::UInt32(x) => plain!(x),
        ArrayRef::UInt64(x) => plain!(x),
        ArrayRef::Int32(x) => {
            let Some(v) = x.value(i) else {
                return f.write_str(OOB);
            };
            match x.data_type() {
                DataType::Date32 => write_date(f, i64::from(v)),
                DataType::Time32(u) => write_time(f, i64::from(v), *u),
                DataType::Decimal32(_, s) => write_decimal_i128(f, i128::from(v), *s),
                DataType::Interval(IntervalUnit::YearMonth) => write!(f, "{v} months"),
                _ => write!(f, "{v}"),
            }
        }
        ArrayRef::Int64(x) => {
            let Some(v) = x.value(i) else {
                return f.write_str(OOB);
            };
            match x.data_type() {
                DataType::Date64 => write_date64(f, v),
                DataType::Time64(u) => write_time(f, v, *u),
                DataType::Timestamp(u, tz) => write_timestamp(f, v, *u, tz.is_some()),
                DataType::Duration(u) => write_duration(f, v, *u),
                DataType::Decimal64(_, s) => write_decimal_i128(f, i128::from(v), *s),
                _ => write!(f, "{v}"),
            }
        }
        ArrayRef::Int128(x) => {
            let Some(v) = x.value(i) else {
                return f.write_str(OOB);
            };
            match x.data_type() {
                DataType::Decimal128(_, s) => write_decimal_i128(f, v, *s),
                _ => write!(f, "{v}"),
            }
        }
        ArrayRef::Int256(x) => {
            let Some(v) = x.value(i) else {
                return f.write_str(OOB);
            };
            let (low, high) = v.to_parts();
            let (negative, digits) = i256_digits(low, high);
            let scale = match x.data_type() {
                DataType::Decimal256(_, s) => *s,
                _ => 0,
            };
            write_decimal(f, negative, &digits, scale)
        }
        ArrayRef::Float16(x) => match x.value(i) {
            Some(v) => write!(f, "{:?}", v.to_f32()),
            None => f.write_str(OOB),
        },
        ArrayRef::Float32(x) => float!(x),
        ArrayRef::Float64(x) => float!(x),
        ArrayRef::IntervalDayTime(x) => match x.value(i) {
            Some(v) => write!(f, "{} days {} ms", v.days, v.milliseconds),
            None => f.write_str(OOB),
        },
        ArrayRef::IntervalMonthDayNano(x) => match x.value(i) {
            Some(v) => write!(
                f,
                "{} months {} days {} ns",
                v.months, v.days, v.nanoseconds
            ),
            None => f.write_str(OOB),
        },
        ArrayRef::FixedSizeBinary(x) => match x.value(i) {
            Some(v) => write_hex(f, v),
            None => f.write_str(OOB),
        },
        ArrayRef::Binary(x) => match x.value(i) {
            Some(v) => write_hex(f, v),
            None => f.write_str(OOB),
        },
        ArrayRef::LargeBinary(x) => match x.value(i) {
            Some(v) => write_hex(f, v),
            None => f.write_str(OOB),
        },
        ArrayRef::BinaryView(x) => match x.value(i) {
            Some(v) => write_hex(f, v),
            None => f.write_str(OOB),
        },
        ArrayRef::Utf8(x) => match x.value(i) {
            Some(v) => write_str(f, v, nested),
            None => f.write_str(OOB),
        },
        ArrayRef::LargeUtf8(x) => match x.value(i) {
            Some(v) => write_str(f, v, nested),
            None => f.write_str(OOB),
        },
        ArrayRef::Utf8View(x) => match x.value(i) {
            Some(v) => write_str(f, v, nested),
            None => f.write_str(OOB),
        },
        ArrayRef::List(x) => list!(x),
        ArrayRef::LargeList(x) => list!(x),
        ArrayRef::ListView(x) => list!(x),
        ArrayRef::LargeListView(x) => list!(x),
        ArrayRef::FixedSizeList(x) => list!(x),
        ArrayRef::Struct(x) => {
            let slot = x.offset().saturating_add(i);
            f.write_char('{')?;
            for (k, (field, child)) in x.fields().iter().zip(x.children()).enumerate() {
                if k > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{}: ", field.name())?;
                write_value(f, child, slot, true)?;
            }
            f.write_char('}')
        }
        ArrayRef::Map(x) => {
            let Some(entries) = x.value(i) else {
                return f.write_str(OOB);
            };
            let (Some(keys), Some(values)) =
                (entries.children().first(), entries.children().get(1))
            else {
                return f.write_str(OOB);
            };
            let start = entries.offset();
            f.write_char('{')?;
            for j in 0..entries.len() {
                if j > 0 {
                    f.write_str(", ")?;
                }
                let slot = start.saturating_add(j);
                write_value(f, keys, slot, true)?;
                f.write_str(": ")?;
                write_value(f, values, slot, true)?;
            }
            f.write_char('}')
        }
        ArrayRef::Union(x) => {
            let Some((_, c, slot)) = x.value(i) else {
                return f.write_str(OOB);
            };
            let (Some(field), Some(child)) = (x.fields().fields().get(c), x.children().get(c))
            else {
                return f.write_str(OOB);
            };
            write!(f, "{{{}=", field.name())?;
            write_value(f, child, slot, true)?;
            f.write_char('}')
        }
        ArrayRef::Dictionary(x) => match x.key(i) {
            Some(k) => write_value(f, x.values(), k, nested),
            None => f.write_str("null"),
        },
        ArrayRef::RunEndEncoded(x) => match x.physical_index(i) {
            Some(j) => write_value(f, x.values(), j, nested),
            None => f.write_str(OOB),
        },
        _ => f.write_str("<unsupported>"),
    }
}

#[cfg(test)]
mod tests {
    use alkaid::array::*;
    use alkaid::buffer::{OffsetBuffer, ScalarBuffer, SharedBox, SharedSlice, SharedStr};
    use alkaid::datatypes::{DataType, Field, IntervalUnit, TimeUnit, UnionFields, UnionMode};
    use alkaid::native::{i256, IntervalDayTime, IntervalMonthDayNano};
    use alkaid::Global as G;

    use super::value;

    /// Every slot of `a`, rendered.
    fn all(a: &ArrayRef<'_, G>) -> Vec<String> {
        (0..a.len()).map(|i| value(a, i).to_string()).collect()
    }

    fn typed<T: PrimitiveType>(v: &[Option<T>], dt: DataType<'static, G>) -> ArrayRef<'static, G> {
        PrimitiveArray::<T, G>::try_from_options_in(v, G)
            .unwrap()
            .with_data_type(dt)
            .unwrap()
            .into_array_ref()
    }

    #[test]
    fn primitives_and_floats() {
        let a = typed::<i32>(&[Some(-3), None], DataType::Int32);
        assert_eq!(all(&a), ["-3", "null"]);
        assert_eq!(value(&a, 2).to_string(), "<out of bounds>");
        let a = typed::<u64>(&[Some(u64::MAX)], DataType::UInt64);
        assert_eq!(all(&a), ["18446744073709551615"]);
        let a = typed::<f64>(
            &[
                Some(1.0),
                Some(-0.0),
                Some(f64::NAN),
                Some(f64::INFINITY),
                Some(1e300),
                Some(0.1),
            ],
            DataType::Float64,
        );
        assert_eq!(all(&a), ["1.0", "-0.0", "NaN", "inf", "1e300", "0.1"]);
        let a = typed::<f32>(&[Some(2.5)], DataType::Float32);
        assert_eq!(all(&a), ["2.5"]);
        let a = typed::<alkaid::native::f16>(
            &[Some(alkaid::native::f16::from_f32(1.5))],
            DataType::Float16,
        );
        assert_eq!(all(&a), ["1.5"]);
        let mut b = BooleanBuilder::new_in(G);
        for v in [Some(true), None, Some(false)] {
            b.try_append_option(v).unwrap();
        }
        assert_eq!(all(&b.finish().into_array_ref()), ["true", "null", "false"]);
        assert_eq!(
            all(&NullArray::<G>::new(2).into_array_ref()),
            ["null", "null"]
        );
    }

    #[test]
    fn decimals() {
        let a = typed::<i32>(&[Some(12345), Some(-5)], DataType::Decimal32(9, 2));
        assert_eq!(all(&a), ["123.45", "-0.05"]);
        let a = typed::<i64>(&[Some(7)], DataType::Decimal64(18, -3));
        assert_eq!(all(&a), ["7000"]);
        let a = typed::<i128>(&[Some(-1)], DataType::Decimal128(38, 10));
        assert_eq!(all(&a), ["-0.0000000001"]);
        let a = typed::<i256>(
            &[Some(i256::from_i128(-12345)), Some(i256::from_parts(0, 1))],
            DataType::Decimal256(76, 4),
        );
        assert_eq!(
            all(&a),
            ["-1.2345", "34028236692093846346337460743176821.1456"]
        );
    }

    #[test]
    fn temporal() {
        let a = typed::<i32>(&[Some(19_782), Some(-1)], DataType::Date32);
        assert_eq!(all(&a), ["2024-02-29", "1969-12-31"]);
        let a = typed::<i64>(&[Some(0), Some(3_600_001)], DataType::Date64);
        assert_eq!(all(&a), ["1970-01-01", "1970-01-01T01:00:00.001"]);
        let a = typed::<i32>(&[Some(49_500_250)], DataType::Time32(TimeUnit::Millisecond));
        assert_eq!(all(&a), ["13:45:00.250"]);
        let a = typed::<i64>(&[Some(1)], DataType::Time64(TimeUnit::Nanosecond));
        assert_eq!(all(&a), ["00:00:00.000000001"]);
        let utc = SharedStr::borrowed("UTC");
        let a = typed::<i64>(
            &[Some(1_709_214_300_250_000)],
            DataType::Timestamp(TimeUnit::Microsecond, Some(utc)),
        );
        assert_eq!(all(&a), ["2024-02-29T13:45:00.250000Z"]);
        let a = typed::<i64>(&[Some(-1)], DataType::Timestamp(TimeUnit::Second, None));
        assert_eq!(all(&a), ["1969-12-31T23:59:59"]);
        let a = typed::<i64>(&[Some(90), None], DataType::Duration(TimeUnit::Second));
        assert_eq!(all(&a), ["90s", "null"]);
        let a = typed::<i32>(&[Some(14)], DataType::Interval(IntervalUnit::YearMonth));
        assert_eq!(all(&a), ["14 months"]);
        let a = typed::<IntervalDayTime>(
            &[Some(IntervalDayTime::new(3, 1500))],
            DataType::Interval(IntervalUnit::DayTime),
        );
        assert_eq!(all(&a), ["3 days 1500 ms"]);
        let a = typed::<IntervalMonthDayNano>(
            &[Some(IntervalMonthDayNano::new(1, -2, 3))],
            DataType::Interval(IntervalUnit::MonthDayNano),
        );
        assert_eq!(all(&a), ["1 months -2 days 3 ns"]);
    }

    fn strings() -> ArrayRef<'static, G> {
        StringArray::<G>::try_from_options_in(&[Some("a\"b"), None, Some("x\ny"), Some("é")], G)
            .unwrap()
            .into_array_ref()
    }

    #[test]
    fn strings_and_binary() {
        assert_eq!(all(&strings()), ["a\"b", "null", "x\\ny", "é"]);
        let v = StringViewArray::<G>::try_from_options_in(
            &[Some("a string longer than twelve"), Some("")],
            G,
        )
        .unwrap()
        .into_array_ref();
        assert_eq!(all(&v), ["a string longer than twelve", ""]);
        let b = BinaryArray::<G>::try_from_options_in(&[Some(&[0u8, 255][..]), Some(&[]), None], G)
            .unwrap()
            .into_array_ref();
        assert_eq!(all(&b), ["0x00ff", "0x", "null"]);
        let f = FixedSizeBinaryArray::<G>::try_from_slice(2, &[1, 2, 0xab, 0xcd])
            .unwrap()
            .into_array_ref();
        assert_eq!(all(&f), ["0x0102", "0xabcd"]);
    }

    #[test]
    fn lists_structs_and_maps() {
        let mut list = ListBuilder::new_in(PrimitiveBuilder::<i32, G>::new_in(G), G);
        list.values().try_append_value(1).unwrap();
        list.values().try_append_null().unwrap();
        list.try_append(true).unwrap();
        list.try_append_null().unwrap();
        list.try_append(true).unwrap();
        let list = list.try_finish().unwrap().into_array_ref();
        assert_eq!(all(&list), ["[1, null]", "null", "[]"]);
        assert_eq!(all(&list.slice(1, 2).unwrap()), ["null", "[]"]);

        let ints = typed::<i32>(&[Some(1), Some(2), None, Some(4)], DataType::Int32);
        let fields = SharedSlice::try_from_iter_in(
            [
                Field::new("a", DataType::Int32, true),
                Field::new("s", DataType::Utf8, true),
            ],
            G,
        )
        .unwrap();
        let s = StructArray::try_new(
            fields,
            SharedSlice::try_from_iter_in([ints, strings()], G).unwrap(),
            None,
        )
        .unwrap()
        .into_array_ref();
        assert_eq!(
            all(&s.slice(1, 3).unwrap()),
            [
                "{a: 2, s: null}",
                "{a: null, s: \"x\\ny\"}",
                "{a: 4, s: \"é\"}"
            ]
        );

        let mut m = MapBuilder::new_in(
            StringBuilder::new_in(G),
            PrimitiveBuilder::<i64, G>::new_in(G),
            G,
        );
        m.keys().try_append_value("k").unwrap();
        m.values().try_append_value(1).unwrap();
        m.keys().try_append_value("j").unwrap();
        m.values().try_append_null().unwrap();
        m.try_append(true).unwrap();
        m.try_append_null().unwrap();
        let m = m.try_finish().unwrap().into_array_ref();
        assert_eq!(all(&m), ["{\"k\": 1, \"j\": null}", "null"]);
    }

    #[test]
    fn unions_dictionaries_and_runs() {
        let fields = SharedSlice::try_from_iter_in(
            [
                Field::new("i", DataType::Int32, true),
                Field::new("s", DataType::Utf8, true),
            ],
            G,
        )
        .unwrap();
        let uf = UnionFields::try_new(
            SharedSlice::try_from_slice_in(&[0i8, 5], G).unwrap(),
            fields,
        )
        .unwrap();
        let ints = typed::<i32>(&[Some(7), None, Some(9), Some(10)], DataType::Int32);
        let u = UnionArray::try_new(
            uf,
            UnionMode::Sparse,
            ScalarBuffer::try_copy_in(&[0i8, 5, 0, 5], G).unwrap(),
            None,
            SharedSlice::try_from_iter_in([ints, strings()], G).unwrap(),
        )
        .unwrap()
        .into_array_ref();
        assert_eq!(all(&u), ["{i=7}", "{s=null}", "{i=9}", "{s=\"é\"}"]);

        let keys =
            PrimitiveArray::<i8, G>::try_from_options_in(&[Some(3), None, Some(0), Some(1)], G)
                .unwrap();
        let d = DictionaryArray::try_new_in(DictionaryKeys::Int8(keys), strings(), false, G)
            .unwrap()
            .into_array_ref();
        assert_eq!(all(&d), ["é", "null", "a\"b", "null"]);

        let ends = PrimitiveArray::<i32, G>::try_from_options_in(&[Some(2), Some(3), Some(5)], G)
            .unwrap()
            .into_array_ref();
        let vals = typed::<i32>(&[Some(1), None, Some(3)], DataType::Int32);
        let r = RunArray::try_new_in(RunEnds::try_from(ends).unwrap(), vals, G)
            .unwrap()
            .into_array_ref();
        assert_eq!(all(&r), ["1", "1", "null", "3", "3"]);
        assert_eq!(all(&r.slice(1, 2).unwrap()), ["1", "null"]);

        // A list whose child is dictionary encoded quotes the strings.
        let dt = d.data_type().clone();
        let field = SharedBox::try_new_in(Field::new("item", dt, true), G).unwrap();
        let offsets =
            OffsetBuffer::try_new(ScalarBuffer::try_copy_in(&[0i32, 3], G).unwrap()).unwrap();
        let l = ListArray::try_new_in(field, offsets, d, None, G)
            .unwrap()
            .into_array_ref();
        assert_eq!(all(&l), ["[\"é\", null, \"a\\\"b\"]"]);
    }
}
