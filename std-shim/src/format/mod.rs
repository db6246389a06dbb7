//! Text renderings: data types in pyarrow's spelling ([`data_type`]), fields
//! ([`field`]), schemas ([`schema`]), one slot of any array ([`value`]) and
//! rows of a record batch as a table ([`table`]) or one field per line
//! ([`write_vertical`]).
//!
//! Everything implements [`core::fmt::Display`], is stable (tests compare
//! exact output) and never panics, whatever the arrays hold.
//!
//! ```
//! use alkaid_std::array::{Array, Float64Array, RecordBatch, StringArray};
//! use alkaid_std::format;
//!
//! let batch = RecordBatch::try_from_iter([
//!     ("station", StringArray::from(vec![Some("a"), None]).into_array_ref()),
//!     ("temp", Float64Array::from(vec![19.0, 21.5]).into_array_ref()),
//! ])?;
//! let fields = batch.schema().fields();
//! assert_eq!(format::data_type(fields[0].data_type()).to_string(), "string");
//! assert_eq!(format::field(&fields[1]).to_string(), "temp: double not null");
//! assert_eq!(format::value(batch.column(1).unwrap(), 1).to_string(), "21.5");
//! print!("{}", format::table(&batch, 0..2));
//! # Ok::<(), alkaid::Error>(())
//! ```

mod table;
mod temporal;
mod value;
mod vertical;

pub use table::{empty_table, table, TableDisplay, TableWriter, DEFAULT_MAX_CELL_WIDTH};
pub use value::{value, ValueDisplay};
pub use vertical::write_vertical;

use core::fmt::{self, Write};

use alkaid::allocator_api2::alloc::Allocator;
use alkaid::datatypes::{DataType, Field, IndexType, IntervalUnit, Metadata, Schema, UnionMode};

use self::temporal::unit_name;

/// Displays a [`DataType`]; see [`data_type`].
#[derive(Debug)]
pub struct DataTypeDisplay<'x, 'a, A: Allocator>(&'x DataType<'a, A>);

/// A data type as pyarrow writes it:
///
/// `null`, `bool`, `int8`…`int64`, `uint8`…`uint64`, `halffloat`, `float`,
/// `double`, `decimal128(10, 2)` (and `decimal32/64/256`), `date32[day]`,
/// `date64[ms]`, `time32[ms]`, `time64[ns]`, `timestamp[us]`,
/// `timestamp[us, tz=UTC]`, `duration[s]`, `month_interval`,
/// `day_time_interval`, `month_day_nano_interval`, `fixed_size_binary[4]`,
/// `binary`, `large_binary`, `string`, `large_string`, `binary_view`,
/// `string_view`, `list<item: int32>`, `large_list<…>`, `list_view<…>`,
/// `large_list_view<…>`, `fixed_size_list<item: int32>[3]`,
/// `struct<a: int32, b: string not null>`, `map<string, int64>` (with
/// `, keys_sorted` when sorted), `sparse_union<a: int32=0, b: string=1>`,
/// `dense_union<…>`, `dictionary<values=string, indices=int32, ordered=0>`,
/// `run_end_encoded<run_ends: int32 not null, values: string>`.
pub fn data_type<'x, 'a, A: Allocator>(dt: &'x DataType<'a, A>) -> DataTypeDisplay<'x, 'a, A> {
    DataTypeDisplay(dt)
}

/// Displays a [`Field`]; see [`field`].
#[derive(Debug)]
pub struct FieldDisplay<'x, 'a, A: Allocator>(&'x Field<'a, A>);

/// A field as `name: type`, followed by ` not null` when it is not nullable
/// (its metadata is not shown; [`schema`] shows it).
pub fn field<'x, 'a, A: Allocator>(f: &'x Field<'a, A>) -> FieldDisplay<'x, 'a, A> {
    FieldDisplay(f)
}

/// Displays a [`Schema`]; see [`schema`].
#[derive(Debug)]
pub struct SchemaDisplay<'x, 'a, A: Allocator> {
    schema: &'x Schema<'a, A>,
    full: bool,
}

impl<A: Allocator> SchemaDisplay<'_, '_, A> {
    /// Prints every metadata value whole instead of abbreviating those over
    /// [`METADATA_VALUE_CHARS`] characters.
    pub fn full_metadata(mut self) -> Self {
        self.full = true;
        self
    }
}

/// Metadata values longer than this many characters are abbreviated by
/// [`schema`]: their first `METADATA_VALUE_CHARS` characters, then
/// `' + N` with N the number of characters left out (as pyarrow prints a
/// schema's `pandas` metadata).
pub const METADATA_VALUE_CHARS: usize = 64;

/// A schema, one line per field ([`field`]); a field's custom metadata
/// follows it under `  -- field metadata --` as `  key: 'value'` lines; the
/// schema's metadata closes it under `-- schema metadata --`. Every line
/// ends with `\n`. Control characters, `\` and `'` in metadata are escaped;
/// long values are abbreviated (see [`METADATA_VALUE_CHARS`] and
/// [`SchemaDisplay::full_metadata`]).
///
/// ```
/// use alkaid_std::alkaid::buffer::{SharedSlice, SharedStr};
/// use alkaid_std::datatypes::{DataType, Field, Schema};
/// use alkaid_std::{format, Global};
///
/// let long = "x".repeat(100);
/// let note = (SharedStr::borrowed("note"), SharedStr::try_from_str_in(&long, Global)?);
/// let s = Schema::new(vec![Field::new("a", DataType::Int8, true)])
///     .with_metadata(SharedSlice::from(vec![note]));
/// assert_eq!(
///     format::schema(&s).to_string(),
///     format!("a: int8\n-- schema metadata --\nnote: '{}' + 36\n", "x".repeat(64))
/// );
/// assert!(format::schema(&s).full_metadata().to_string().contains(&long));
/// # Ok::<(), alkaid_std::alkaid::Error>(())
/// ```
pub fn schema<'x, 'a, A: Allocator>(s: &'x Schema<'a, A>) -> SchemaDisplay<'x, 'a, A> {
    SchemaDisplay {
        schema: s,
        full: false,
    }
}

fn index_name(t: IndexType) -> &'static str {
    match t {
        IndexType::Int8 => "int8",
        IndexType::Int16 => "int16",
        IndexType::Int32 => "int32",
        IndexType::Int64 => "int64",
        IndexType::UInt8 => "uint8",
        IndexType::UInt16 => "uint16",
        IndexType::UInt32 => "uint32",
        IndexType::UInt64 => "uint64",
    }
}

impl<A: Allocator> fmt::Display for DataTypeDisplay<'_, '_, A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use DataType::*;
        let name = match self.0 {
            Null => "null",
            Boolean => "bool",
            Int8 => "int8",
            Int16 => "int16",
            Int32 => "int32",
            Int64 => "int64",
            UInt8 => "uint8",
            UInt16 => "uint16",
            UInt32 => "uint32",
            UInt64 => "uint64",
            Float16 => "halffloat",
            Float32 => "float",
            Float64 => "double",
            Date32 => "date32[day]",
            Date64 => "date64[ms]",
            Interval(IntervalUnit::YearMonth) => "month_interval",
            Interval(IntervalUnit::DayTime) => "day_time_interval",
            Interval(IntervalUnit::MonthDayNano) => "month_day_nano_interval",
            Binary => "binary",
            LargeBinary => "large_binary",
            Utf8 => "string",
            LargeUtf8 => "large_string",
            BinaryView => "binary_view",
            Utf8View => "string_view",
            Decimal32(p, s) => return write!(f, "decimal32({p}, {s})"),
            Decimal64(p, s) => return write!(f, "decimal64({p}, {s})"),
            Decimal128(p, s) => return write!(f, "decimal128({p}, {s})"),
            Decimal256(p, s) => return write!(f, "decimal256({p}, {s})"),
            Time32(u) => return write!(f, "time32[{}]", unit_name(*u)),
            Time64(u) => return write!(f, "time64[{}]", unit_name(*u)),
            Timestamp(u, None) => return write!(f, "timestamp[{}]", unit_name(*u)),
            Timestamp(u, Some(tz)) => {
                return write!(f, "timestamp[{}, tz={}]", unit_name(*u), tz.as_str())
            }
            Duration(u) => return write!(f, "duration[{}]", unit_name(*u)),
            FixedSizeBinary(n) => return write!(f, "fixed_size_binary[{n}]"),
            List(c) => return write!(f, "list<{}>", field(c)),
            LargeList(c) => return write!(f, "large_list<{}>", field(c)),
            ListView(c) => return write!(f, "list_view<{}>", field(c)),
            LargeListView(c) => return write!(f, "large_list_view<{}>", field(c)),
            FixedSizeList(c, n) => return write!(f, "fixed_size_list<{}>[{n}]", field(c)),
            Struct(fields) => {
                f.write_str("struct<")?;
                for (i, c) in fields.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{}", field(c))?;
                }
                return f.write_char('>');
            }
            Map(entries, sorted) => {
                match entries.data_type() {
                    Struct(kv) if kv.len() == 2 => {
                        let (k, v) = (&kv[0], &kv[1]);
                        write!(
                            f,
                            "map<{}, {}",
                            data_type(k.data_type()),
                            data_type(v.data_type())
                        )?;
                    }
                    _ => write!(f, "map<{}", field(entries))?,
                }
                if *sorted {
                    f.write_str(", keys_sorted")?;
                }
                return f.write_char('>');
            }
            Union(fields, mode) => {
                f.write_str(match mode {
                    UnionMode::Sparse => "sparse_union<",
                    UnionMode::Dense => "dense_union<",
                })?;
                for (i, (c, id)) in fields.fields().iter().zip(fields.type_ids()).enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{}={id}", field(c))?;
                }
                return f.write_char('>');
            }
            Dictionary(index, values, ordered) => {
                return write!(
                    f,
                    "dictionary<values={}, indices={}, ordered={}>",
                    data_type(values),
                    index_name(*index),
                    u8::from(*ordered)
                )
            }
            RunEndEncoded(r, v) => return write!(f, "run_end_encoded<{}, {}>", field(r), field(v)),
            _ => "unknown",
        };
        f.write_str(name)
    }
}

impl<A: Allocator> fmt::Display for FieldDisplay<'_, '_, A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.0.name(), data_type(self.0.data_type()))?;
        if !self.0.is_nullable() {
            f.write_str(" not null")?;
        }
        Ok(())
    }
}

/// `indent key: 'value'` lines.
/// Values over [`METADATA_VALUE_CHARS`] characters are cut unless `full`.
fn write_metadata<A: Allocator>(
    f: &mut fmt::Formatter<'_>,
    indent: &str,
    metadata: &Metadata<'_, A>,
    full: bool,
) -> fmt::Result {
    for (k, v) in metadata.iter() {
        f.write_str(indent)?;
        write_escaped(f, k)?;
        f.write_str(": '")?;
        let chars = v.chars().count();
        if full || chars <= METADATA_VALUE_CHARS {
            write_escaped(f, v)?;
            f.write_str("'\n")?;
        } else {
            let cut = v
                .char_indices()
                .nth(METADATA_VALUE_CHARS)
                .map_or(v.len(), |(at, _)| at);
            write_escaped(f, v.get(..cut).unwrap_or(v))?;
            writeln!(f, "' + {}", chars - METADATA_VALUE_CHARS)?;
        }
    }
    Ok(())
}

/// `s` with control characters, `\` and `'` escaped.
fn write_escaped(f: &mut fmt::Formatter<'_>, s: &str) -> fmt::Result {
    for c in s.chars() {
        if c.is_control() || c == '\\' || c == '\'' {
            write!(f, "{}", c.escape_default())?;
        } else {
            f.write_char(c)?;
        }
    }
    Ok(())
}

impl<A: Allocator> fmt::Display for SchemaDisplay<'_, '_, A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for c in self.schema.fields().iter() {
            writeln!(f, "{}", field(c))?;
            if !c.metadata().is_empty() {
                f.write_str("  -- field metadata --\n")?;
                write_metadata(f, "  ", c.metadata(), self.full)?;
            }
        }
        if !self.schema.metadata().is_empty() {
            f.write_str("-- schema metadata --\n")?;
            write_metadata(f, "", self.schema.metadata(), self.full)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use alkaid::buffer::{SharedBox, SharedSlice, SharedStr};
    use alkaid::datatypes::{
        DataType, Field, IndexType, IntervalUnit, Schema, TimeUnit, UnionFields, UnionMode,
    };
    use alkaid::Global as G;

    use super::{data_type, schema};

    type Dt = DataType<'static, G>;

    fn f(name: &'static str, dt: Dt, nullable: bool) -> Field<'static, G> {
        Field::new(name, dt, nullable)
    }

    fn boxed(field: Field<'static, G>) -> SharedBox<'static, Field<'static, G>, G> {
        SharedBox::try_new_in(field, G).unwrap()
    }

    fn name(dt: &Dt) -> String {
        data_type(dt).to_string()
    }

    #[test]
    fn flat_types_in_pyarrow_spelling() {
        use DataType::*;
        let cases: Vec<(Dt, &str)> = vec![
            (Null, "null"),
            (Boolean, "bool"),
            (Int8, "int8"),
            (Int16, "int16"),
            (Int32, "int32"),
            (Int64, "int64"),
            (UInt8, "uint8"),
            (UInt16, "uint16"),
            (UInt32, "uint32"),
            (UInt64, "uint64"),
            (Float16, "halffloat"),
            (Float32, "float"),
            (Float64, "double"),
            (Decimal32(9, 2), "decimal32(9, 2)"),
            (Decimal64(18, -1), "decimal64(18, -1)"),
            (Decimal128(38, 10), "decimal128(38, 10)"),
            (Decimal256(76, 0), "decimal256(76, 0)"),
            (Date32, "date32[day]"),
            (Date64, "date64[ms]"),
            (Time32(TimeUnit::Second), "time32[s]"),
            (Time32(TimeUnit::Millisecond), "time32[ms]"),
            (Time64(TimeUnit::Microsecond), "time64[us]"),
            (Time64(TimeUnit::Nanosecond), "time64[ns]"),
            (Timestamp(TimeUnit::Microsecond, None), "timestamp[us]"),
            (
                Timestamp(TimeUnit::Nanosecond, Some(SharedStr::borrowed("+05:30"))),
                "timestamp[ns, tz=+05:30]",
            ),
            (Duration(TimeUnit::Second), "duration[s]"),
            (Interval(IntervalUnit::YearMonth), "month_interval"),
            (Interval(IntervalUnit::DayTime), "day_time_interval"),
            (
                Interval(IntervalUnit::MonthDayNano),
                "month_day_nano_interval",
            ),
            (FixedSizeBinary(16), "fixed_size_binary[16]"),
            (Binary, "binary"),
            (LargeBinary, "large_binary"),
            (Utf8, "string"),
            (LargeUtf8, "large_string"),
            (BinaryView, "binary_view"),
            (Utf8View, "string_view"),
        ];
        for (dt, want) in cases {
            assert_eq!(name(&dt), want);
        }
    }

    #[test]
    fn nested_types_in_pyarrow_spelling() {
        use DataType::*;
        let item = || boxed(f("item", Int32, true));
        assert_eq!(name(&List(item())), "list<item: int32>");
        assert_eq!(
            name(&LargeList(boxed(f("element", Utf8, false)))),
            "large_list<element: string not null>"
        );
        assert_eq!(name(&ListView(item())), "list_view<item: int32>");
        assert_eq!(name(&LargeListView(item())), "large_list_view<item: int32>");
        assert_eq!(
            name(&FixedSizeList(item(), 3)),
            "fixed_size_list<item: int32>[3]"
        );
        let fields =
            SharedSlice::try_from_iter_in([f("a", Int32, true), f("b", List(item()), false)], G)
                .unwrap();
        assert_eq!(
            name(&Struct(fields.clone())),
            "struct<a: int32, b: list<item: int32> not null>"
        );
        assert_eq!(name(&Struct(SharedSlice::empty())), "struct<>");
        let kv =
            SharedSlice::try_from_iter_in([f("key", Utf8, false), f("value", Float64, true)], G)
                .unwrap();
        let entries = || boxed(f("entries", Struct(kv.clone()), false));
        assert_eq!(name(&Map(entries(), false)), "map<string, double>");
        assert_eq!(
            name(&Map(entries(), true)),
            "map<string, double, keys_sorted>"
        );
        let ids = SharedSlice::try_from_slice_in(&[0i8, 7], G).unwrap();
        let u = UnionFields::try_new(ids, fields).unwrap();
        assert_eq!(
            name(&Union(u.clone(), UnionMode::Sparse)),
            "sparse_union<a: int32=0, b: list<item: int32> not null=7>"
        );
        assert!(name(&Union(u, UnionMode::Dense)).starts_with("dense_union<a: int32=0, "));
        let values = SharedBox::try_new_in(Utf8, G).unwrap();
        assert_eq!(
            name(&Dictionary(IndexType::Int32, values.clone(), false)),
            "dictionary<values=string, indices=int32, ordered=0>"
        );
        assert_eq!(
            name(&Dictionary(IndexType::UInt8, values, true)),
            "dictionary<values=string, indices=uint8, ordered=1>"
        );
        assert_eq!(
            name(&RunEndEncoded(
                boxed(f("run_ends", Int16, false)),
                boxed(f("values", Utf8, true))
            )),
            "run_end_encoded<run_ends: int16 not null, values: string>"
        );
    }

    #[test]
    fn schema_with_metadata() {
        let meta = |pairs: &[(&'static str, &'static str)]| {
            SharedSlice::try_from_iter_in(
                pairs
                    .iter()
                    .map(|(k, v)| (SharedStr::borrowed(k), SharedStr::borrowed(v))),
                G,
            )
            .unwrap()
        };
        let fields = SharedSlice::try_from_iter_in(
            [
                f("id", DataType::Int64, false),
                f("tag", DataType::Utf8, true)
                    .with_metadata(meta(&[("ARROW:extension:name", "my.tag")])),
            ],
            G,
        )
        .unwrap();
        let s = Schema::new(fields).with_metadata(meta(&[("note", "it's\na test")]));
        assert_eq!(
            schema(&s).to_string(),
            "id: int64 not null\n\
             tag: string\n  \
             -- field metadata --\n  \
             ARROW:extension:name: 'my.tag'\n\
             -- schema metadata --\n\
             note: 'it\\'s\\na test'\n"
        );
        assert_eq!(
            schema(&Schema::<G>::new(SharedSlice::empty())).to_string(),
            ""
        );
    }
}
