//! A reader of the Arrow integration-test JSON format (the `.json.gz` files
//! beside the golden IPC files), and the logical [`Value`] of each of its slots.
//!
//! The format: `{"schema": {"fields": [..], "metadata": [..]}, "batches":
//! [{"count", "columns": [..]}], "dictionaries": [{"id", "data": {"count",
//! "columns": [..]}}]}`. A field is `{"name", "type": {"name", ..params},
//! "nullable", "children", "dictionary": {"id", "indexType", "isOrdered"},
//! "metadata": [{"key", "value"}]}`; for a dictionary-encoded field `type` and
//! `children` describe the dictionary's values. A column is `{"name",
//! "count", "VALIDITY", "DATA", "OFFSET", "SIZE", "TYPE_ID", "VIEWS",
//! "VARIADIC_DATA_BUFFERS", "children"}` with the buffers its layout has.
//!
//! Value encodings: 64-bit integers, 64-bit offsets and decimals are strings
//! (numbers are accepted too), floats are numbers, binary and fixed-size
//! binary are upper-case hex, intervals are objects, views are objects with
//! `SIZE` and either `INLINED` (hex for BinaryView, the string itself for
//! Utf8View) or `PREFIX_HEX`, `BUFFER_INDEX` and `OFFSET`; a dictionary
//! column's `DATA` holds the indices.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use serde_json::{Map, Value as J};

use crate::value::{parse_i256, Value};

/// A whole integration JSON file.
#[derive(Debug, Clone)]
pub struct JsonFile {
    /// The schema.
    pub schema: JsonSchema,
    /// The record batches, in order.
    pub batches: Vec<JsonBatch>,
    /// The dictionaries, by id.
    pub dictionaries: Vec<JsonDictionary>,
}

/// The schema: fields and custom metadata.
#[derive(Debug, Clone)]
pub struct JsonSchema {
    /// Top-level fields.
    pub fields: Vec<JsonField>,
    /// Schema-level custom metadata, in order.
    pub metadata: Vec<(String, String)>,
}

/// Time units of the JSON format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonTimeUnit {
    /// `SECOND`
    Second,
    /// `MILLISECOND`
    Millisecond,
    /// `MICROSECOND`
    Microsecond,
    /// `NANOSECOND`
    Nanosecond,
}

/// Interval units of the JSON format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonIntervalUnit {
    /// `YEAR_MONTH`
    YearMonth,
    /// `DAY_TIME`
    DayTime,
    /// `MONTH_DAY_NANO`
    MonthDayNano,
}

/// The `type` object of a field.
#[derive(Debug, Clone, PartialEq)]
pub enum JsonType {
    /// `null`
    Null,
    /// `bool`
    Bool,
    /// `int` with `bitWidth` and `isSigned`.
    Int {
        /// 8, 16, 32 or 64.
        bits: u32,
        /// Signedness.
        signed: bool,
    },
    /// `floatingpoint` with `precision` HALF (16), SINGLE (32) or DOUBLE (64).
    Float(u32),
    /// `decimal` with `precision`, `scale` and `bitWidth` (128 when absent).
    Decimal {
        /// Decimal digits.
        precision: u32,
        /// Digits after the point.
        scale: i32,
        /// 32, 64, 128 or 256.
        bits: u32,
    },
    /// `date` with unit DAY (`true`) or MILLISECOND (`false`).
    Date {
        /// DAY?
        day: bool,
    },
    /// `time` with `unit` and `bitWidth`.
    Time(JsonTimeUnit, u32),
    /// `timestamp` with `unit` and optional `timezone`.
    Timestamp(JsonTimeUnit, Option<String>),
    /// `interval` with `unit`.
    Interval(JsonIntervalUnit),
    /// `duration` with `unit`.
    Duration(JsonTimeUnit),
    /// `binary`
    Binary,
    /// `largebinary`
    LargeBinary,
    /// `utf8`
    Utf8,
    /// `largeutf8`
    LargeUtf8,
    /// `binaryview`
    BinaryView,
    /// `utf8view`
    Utf8View,
    /// `fixedsizebinary` with `byteWidth`.
    FixedSizeBinary(i32),
    /// `list`
    List,
    /// `largelist`
    LargeList,
    /// `listview`
    ListView,
    /// `largelistview`
    LargeListView,
    /// `fixedsizelist` with `listSize`.
    FixedSizeList(i32),
    /// `struct`
    Struct,
    /// `map` with `keysSorted`.
    Map {
        /// Whether the keys of each map are sorted.
        keys_sorted: bool,
    },
    /// `union` with `mode` (SPARSE / DENSE) and `typeIds`.
    Union {
        /// DENSE?
        dense: bool,
        /// The declared type ids, one per child.
        type_ids: Vec<i8>,
    },
    /// `runendencoded` (children: run ends, values).
    RunEndEncoded,
}

/// The `dictionary` object of a dictionary-encoded field.
#[derive(Debug, Clone, PartialEq)]
pub struct JsonDictionaryEncoding {
    /// Dictionary id.
    pub id: i64,
    /// Index type: bit width.
    pub index_bits: u32,
    /// Index type: signedness.
    pub index_signed: bool,
    /// `isOrdered`.
    pub is_ordered: bool,
}

/// A field of the schema (or a child field).
#[derive(Debug, Clone)]
pub struct JsonField {
    /// Name.
    pub name: String,
    /// Type (the value type for a dictionary-encoded field).
    pub data_type: JsonType,
    /// Nullability.
    pub nullable: bool,
    /// Child fields (of the value type for a dictionary-encoded field).
    pub children: Vec<JsonField>,
    /// Dictionary encoding, if any.
    pub dictionary: Option<JsonDictionaryEncoding>,
    /// Custom metadata, in order.
    pub metadata: Vec<(String, String)>,
}

impl JsonField {
    /// The field of the dictionary's values: this field without its
    /// dictionary encoding.
    pub fn value_field(&self) -> JsonField {
        JsonField {
            dictionary: None,
            ..self.clone()
        }
    }
}

/// One record batch.
#[derive(Debug, Clone)]
pub struct JsonBatch {
    /// Number of rows.
    pub count: usize,
    /// One column per top-level field.
    pub columns: Vec<JsonColumn>,
}

/// One dictionary batch.
#[derive(Debug, Clone)]
pub struct JsonDictionary {
    /// Dictionary id.
    pub id: i64,
    /// The values: a batch of one column.
    pub data: JsonBatch,
}

/// The data of one array (column or child).
#[derive(Debug, Clone, Default)]
pub struct JsonColumn {
    /// Name (informational).
    pub name: String,
    /// Number of slots.
    pub count: usize,
    /// `VALIDITY`: one 0/1 per slot.
    pub validity: Option<Vec<bool>>,
    /// `DATA`, kept raw: its encoding depends on the type.
    pub data: Option<Vec<J>>,
    /// `OFFSET` (list, binary, dense union, list-view offsets).
    pub offset: Option<Vec<i64>>,
    /// `SIZE` (list views).
    pub size: Option<Vec<i64>>,
    /// `TYPE_ID` (unions).
    pub type_id: Option<Vec<i8>>,
    /// `VIEWS` (binary / string views), raw.
    pub views: Option<Vec<J>>,
    /// `VARIADIC_DATA_BUFFERS`, decoded from hex.
    pub variadic: Option<Vec<Vec<u8>>>,
    /// Child arrays.
    pub children: Vec<JsonColumn>,
}

/// Reads a `.json` or `.json.gz` file.
///
/// # Errors
/// A description of the I/O, gzip, JSON or format error.
pub fn read_json_file(path: &Path) -> Result<JsonFile, String> {
    let j = read_json_value(path)?;
    parse_file(&j).map_err(|e| format!("{}: {e}", path.display()))
}

/// Reads a `.json` or `.json.gz` file as an untyped JSON document (for tests
/// that alter it before [`parse_file`]).
///
/// # Errors
/// A description of the I/O, gzip or JSON error.
pub fn read_json_value(path: &Path) -> Result<J, String> {
    let mut raw = Vec::new();
    File::open(path)
        .and_then(|mut f| f.read_to_end(&mut raw))
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let text = if path.extension().is_some_and(|e| e == "gz") {
        let mut s = Vec::new();
        flate2::read::GzDecoder::new(&raw[..])
            .read_to_end(&mut s)
            .map_err(|e| format!("{}: gzip: {e}", path.display()))?;
        s
    } else {
        raw
    };
    serde_json::from_slice(&text).map_err(|e| format!("{}: json: {e}", path.display()))
}

/// Parses an already decoded JSON document.
///
/// # Errors
/// A description of what is missing or malformed.
pub fn parse_file(j: &J) -> Result<JsonFile, String> {
    let o = obj(j, "file")?;
    let schema = parse_schema(o.get("schema").ok_or("no schema")?)?;
    let batches = match o.get("batches") {
        Some(b) => arr(b, "batches")?
            .iter()
            .map(parse_batch)
            .collect::<Result<_, _>>()?,
        None => Vec::new(),
    };
    let dictionaries = match o.get("dictionaries") {
        Some(d) => arr(d, "dictionaries")?
            .iter()
            .map(|d| {
                let o = obj(d, "dictionary")?;
                Ok(JsonDictionary {
                    id: int(o.get("id").ok_or("dictionary without id")?)? as i64,
                    data: parse_batch(o.get("data").ok_or("dictionary without data")?)?,
                })
            })
            .collect::<Result<_, String>>()?,
        None => Vec::new(),
    };
    Ok(JsonFile {
        schema,
        batches,
        dictionaries,
    })
}

fn obj<'j>(j: &'j J, what: &str) -> Result<&'j Map<String, J>, String> {
    j.as_object()
        .ok_or_else(|| format!("{what}: not an object"))
}

fn arr<'j>(j: &'j J, what: &str) -> Result<&'j Vec<J>, String> {
    j.as_array().ok_or_else(|| format!("{what}: not an array"))
}

fn string<'j>(j: Option<&'j J>, what: &str) -> Result<&'j str, String> {
    j.and_then(J::as_str)
        .ok_or_else(|| format!("{what}: missing or not a string"))
}

/// An integer given as a JSON number or a decimal string.
pub fn int(j: &J) -> Result<i128, String> {
    match j {
        J::Number(n) => n
            .as_i64()
            .map(i128::from)
            .or_else(|| n.as_u64().map(i128::from))
            .ok_or_else(|| format!("not an integer: {n}")),
        J::String(s) => s.parse().map_err(|_| format!("not an integer: {s:?}")),
        J::Bool(b) => Ok(i128::from(*b)),
        other => Err(format!("not an integer: {other}")),
    }
}

/// Decodes upper- or lower-case hex.
pub fn unhex(s: &str) -> Result<Vec<u8>, String> {
    if s.len() & 1 != 0 {
        return Err(format!("odd-length hex {s:?}"));
    }
    (0..s.len())
        .step_by(2)
        .map(|i| {
            s.get(i..i + 2)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| format!("bad hex {s:?}"))
        })
        .collect()
}

fn metadata(j: Option<&J>) -> Result<Vec<(String, String)>, String> {
    match j {
        None | Some(J::Null) => Ok(Vec::new()),
        Some(J::Array(kvs)) => kvs
            .iter()
            .map(|kv| {
                let o = obj(kv, "metadata entry")?;
                Ok((
                    string(o.get("key"), "metadata key")?.to_string(),
                    string(o.get("value"), "metadata value")?.to_string(),
                ))
            })
            .collect(),
        // Some writers use an object {key: value}.
        Some(J::Object(m)) => m
            .iter()
            .map(|(k, v)| Ok((k.clone(), string(Some(v), "metadata value")?.to_string())))
            .collect(),
        Some(other) => Err(format!("metadata: unexpected {other}")),
    }
}

fn parse_schema(j: &J) -> Result<JsonSchema, String> {
    let o = obj(j, "schema")?;
    let fields = arr(o.get("fields").ok_or("schema without fields")?, "fields")?
        .iter()
        .map(parse_field)
        .collect::<Result<_, _>>()?;
    Ok(JsonSchema {
        fields,
        metadata: metadata(o.get("metadata"))?,
    })
}

fn time_unit(o: &Map<String, J>) -> Result<JsonTimeUnit, String> {
    Ok(match string(o.get("unit"), "unit")? {
        "SECOND" => JsonTimeUnit::Second,
        "MILLISECOND" => JsonTimeUnit::Millisecond,
        "MICROSECOND" => JsonTimeUnit::Microsecond,
        "NANOSECOND" => JsonTimeUnit::Nanosecond,
        u => return Err(format!("unknown time unit {u}")),
    })
}

fn u32_param(o: &Map<String, J>, key: &str) -> Result<u32, String> {
    let v = int(o.get(key).ok_or_else(|| format!("type without {key}"))?)?;
    u32::try_from(v).map_err(|_| format!("{key} out of range: {v}"))
}

fn i32_param(o: &Map<String, J>, key: &str) -> Result<i32, String> {
    let v = int(o.get(key).ok_or_else(|| format!("type without {key}"))?)?;
    i32::try_from(v).map_err(|_| format!("{key} out of range: {v}"))
}

/// Parses a field's `type` object.
///
/// # Errors
/// Unknown type names or missing parameters.
pub fn parse_type(j: &J) -> Result<JsonType, String> {
    let o = obj(j, "type")?;
    let name = string(o.get("name"), "type name")?;
    Ok(match name {
        "null" => JsonType::Null,
        "bool" => JsonType::Bool,
        "int" => JsonType::Int {
            bits: u32_param(o, "bitWidth")?,
            signed: o
                .get("isSigned")
                .and_then(J::as_bool)
                .ok_or("int without isSigned")?,
        },
        "floatingpoint" => JsonType::Float(match string(o.get("precision"), "precision")? {
            "HALF" => 16,
            "SINGLE" => 32,
            "DOUBLE" => 64,
            p => return Err(format!("unknown precision {p}")),
        }),
        "decimal" => JsonType::Decimal {
            precision: u32_param(o, "precision")?,
            scale: i32_param(o, "scale")?,
            bits: if o.contains_key("bitWidth") {
                u32_param(o, "bitWidth")?
            } else {
                128
            },
        },
        "date" => JsonType::Date {
            day: match string(o.get("unit"), "date unit")? {
                "DAY" => true,
                "MILLISECOND" => false,
                u => return Err(format!("unknown date unit {u}")),
            },
        },
        "time" => JsonType::Time(time_unit(o)?, u32_param(o, "bitWidth")?),
        "timestamp" => JsonType::Timestamp(
            time_unit(o)?,
            o.get("timezone").and_then(J::as_str).map(str::to_string),
        ),
        "interval" => JsonType::Interval(match string(o.get("unit"), "interval unit")? {
            "YEAR_MONTH" => JsonIntervalUnit::YearMonth,
            "DAY_TIME" => JsonIntervalUnit::DayTime,
            "MONTH_DAY_NANO" => JsonIntervalUnit::MonthDayNano,
            u => return Err(format!("unknown interval unit {u}")),
        }),
        "duration" => JsonType::Duration(time_unit(o)?),
        "binary" => JsonType::Binary,
        "largebinary" => JsonType::LargeBinary,
        "utf8" => JsonType::Utf8,
        "largeutf8" => JsonType::LargeUtf8,
        "binaryview" => JsonType::BinaryView,
        "utf8view" => JsonType::Utf8View,
        "fixedsizebinary" => JsonType::FixedSizeBinary(i32_param(o, "byteWidth")?),
        "list" => JsonType::List,
        "largelist" => JsonType::LargeList,
        "listview" => JsonType::ListView,
        "largelistview" => JsonType::LargeListView,
        "fixedsizelist" => JsonType::FixedSizeList(i32_param(o, "listSize")?),
        "struct" => JsonType::Struct,
        "map" => JsonType::Map {
            keys_sorted: o
                .get("keysSorted")
                .and_then(J::as_bool)
                .ok_or("map without keysSorted")?,
        },
        "union" => JsonType::Union {
            dense: match string(o.get("mode"), "union mode")? {
                "SPARSE" | "Sparse" => false,
                "DENSE" | "Dense" => true,
                m => return Err(format!("unknown union mode {m}")),
            },
            type_ids: arr(o.get("typeIds").ok_or("union without typeIds")?, "typeIds")?
                .iter()
                .map(|t| {
                    let v = int(t)?;
                    i8::try_from(v).map_err(|_| format!("type id out of range: {v}"))
                })
                .collect::<Result<_, _>>()?,
        },
        "runendencoded" => JsonType::RunEndEncoded,
        other => return Err(format!("unknown type name {other:?}")),
    })
}

fn parse_field(j: &J) -> Result<JsonField, String> {
    let o = obj(j, "field")?;
    let name = string(o.get("name"), "field name")?.to_string();
    let ctx = |e: String| format!("field {name:?}: {e}");
    let data_type = parse_type(o.get("type").ok_or("field without type")?).map_err(ctx)?;
    let children = match o.get("children") {
        Some(c) => arr(c, "children")?
            .iter()
            .map(parse_field)
            .collect::<Result<_, _>>()?,
        None => Vec::new(),
    };
    let dictionary = match o.get("dictionary") {
        None | Some(J::Null) => None,
        Some(d) => {
            let d = obj(d, "dictionary")?;
            let it = obj(
                d.get("indexType").ok_or("dictionary without indexType")?,
                "indexType",
            )?;
            Some(JsonDictionaryEncoding {
                id: int(d.get("id").ok_or("dictionary without id")?)? as i64,
                index_bits: u32_param(it, "bitWidth")?,
                index_signed: it
                    .get("isSigned")
                    .and_then(J::as_bool)
                    .ok_or("indexType without isSigned")?,
                is_ordered: d.get("isOrdered").and_then(J::as_bool).unwrap_or(false),
            })
        }
    };
    Ok(JsonField {
        nullable: o
            .get("nullable")
            .and_then(J::as_bool)
            .ok_or_else(|| ctx("no nullable".into()))?,
        metadata: metadata(o.get("metadata")).map_err(ctx)?,
        name,
        data_type,
        children,
        dictionary,
    })
}

fn parse_batch(j: &J) -> Result<JsonBatch, String> {
    let o = obj(j, "batch")?;
    let count = int(o.get("count").ok_or("batch without count")?)?;
    Ok(JsonBatch {
        count: usize::try_from(count).map_err(|_| "negative count")?,
        columns: arr(o.get("columns").ok_or("batch without columns")?, "columns")?
            .iter()
            .map(parse_column)
            .collect::<Result<_, _>>()?,
    })
}

fn int_list(j: Option<&J>, what: &str) -> Result<Option<Vec<i64>>, String> {
    j.map(|v| {
        arr(v, what)?
            .iter()
            .map(|x| {
                let v = int(x)?;
                i64::try_from(v).map_err(|_| format!("{what}: {v} out of range"))
            })
            .collect()
    })
    .transpose()
}

fn parse_column(j: &J) -> Result<JsonColumn, String> {
    let o = obj(j, "column")?;
    let name = o.get("name").and_then(J::as_str).unwrap_or("").to_string();
    let ctx = |e: String| format!("column {name:?}: {e}");
    let count = int(o.get("count").ok_or("column without count")?)?;
    let validity = int_list(o.get("VALIDITY"), "VALIDITY")
        .map_err(ctx)?
        .map(|v| v.into_iter().map(|b| b != 0).collect());
    let type_id = int_list(o.get("TYPE_ID"), "TYPE_ID")
        .map_err(ctx)?
        .map(|v| {
            v.into_iter()
                .map(|t| i8::try_from(t).map_err(|_| format!("type id {t}")))
                .collect::<Result<Vec<_>, _>>()
        })
        .transpose()
        .map_err(ctx)?;
    let variadic = o
        .get("VARIADIC_DATA_BUFFERS")
        .map(|v| {
            arr(v, "VARIADIC_DATA_BUFFERS")?
                .iter()
                .map(|b| unhex(b.as_str().ok_or("variadic buffer not a string")?))
                .collect::<Result<Vec<_>, _>>()
        })
        .transpose()
        .map_err(ctx)?;
    Ok(JsonColumn {
        count: usize::try_from(count).map_err(|_| ctx("negative count".into()))?,
        validity,
        data: o.get("DATA").map(|d| arr(d, "DATA").cloned()).transpose()?,
        offset: int_list(o.get("OFFSET"), "OFFSET").map_err(ctx)?,
        size: int_list(o.get("SIZE"), "SIZE").map_err(ctx)?,
        type_id,
        views: o
            .get("VIEWS")
            .map(|d| arr(d, "VIEWS").cloned())
            .transpose()?,
        variadic,
        children: match o.get("children") {
            Some(c) => arr(c, "children")?
                .iter()
                .map(parse_column)
                .collect::<Result<_, _>>()?,
            None => Vec::new(),
        },
        name,
    })
}

impl JsonFile {
    /// The values column of dictionary `id`.
    pub fn dictionary(&self, id: i64) -> Option<&JsonColumn> {
        self.dictionaries
            .iter()
            .find(|d| d.id == id)
            .and_then(|d| d.data.columns.first())
    }
}

fn get<'c, T>(v: &'c Option<Vec<T>>, i: usize, what: &str) -> Result<&'c T, String> {
    v.as_ref()
        .ok_or_else(|| format!("no {what}"))?
        .get(i)
        .ok_or_else(|| format!("{what}[{i}] missing"))
}

fn usize_at(v: &Option<Vec<i64>>, i: usize, what: &str) -> Result<usize, String> {
    let x = *get(v, i, what)?;
    usize::try_from(x).map_err(|_| format!("{what}[{i}] = {x} is negative"))
}

fn float(j: &J) -> Result<f64, String> {
    match j {
        J::Number(n) => n.as_f64().ok_or_else(|| format!("not a float: {n}")),
        J::String(s) => match s.as_str() {
            "NaN" | "nan" => Ok(f64::NAN),
            "Infinity" | "inf" => Ok(f64::INFINITY),
            "-Infinity" | "-inf" => Ok(f64::NEG_INFINITY),
            _ => s.parse().map_err(|_| format!("not a float: {s:?}")),
        },
        other => Err(format!("not a float: {other}")),
    }
}

fn field_of(o: &Map<String, J>, key: &str) -> Result<i128, String> {
    int(o
        .get(key)
        .ok_or_else(|| format!("interval without {key}"))?)
}

impl JsonColumn {
    /// `true` when slot `i` is valid (no `VALIDITY` means all valid).
    pub fn is_valid(&self, i: usize) -> bool {
        self.validity
            .as_ref()
            .is_none_or(|v| v.get(i).copied().unwrap_or(false))
    }

    fn child(&self, k: usize) -> Result<&JsonColumn, String> {
        self.children
            .get(k)
            .ok_or_else(|| format!("column {:?} has no child {k}", self.name))
    }

    /// The logical value of slot `i` of this column of field `field`, with
    /// the dictionaries of `file` for dictionary-encoded fields.
    ///
    /// # Errors
    /// A description of missing or malformed data.
    pub fn value(&self, field: &JsonField, i: usize, file: &JsonFile) -> Result<Value, String> {
        if i >= self.count {
            return Err(format!(
                "slot {i} beyond count {} of {:?}",
                self.count, self.name
            ));
        }
        if let Some(d) = &field.dictionary {
            if !self.is_valid(i) {
                return Ok(Value::Null);
            }
            let key = int(get(&self.data, i, "DATA")?)?;
            let k = usize::try_from(key).map_err(|_| format!("negative key {key}"))?;
            let values = file
                .dictionary(d.id)
                .ok_or_else(|| format!("no dictionary {}", d.id))?;
            let v = values.value(&field.value_field(), k, file)?;
            return Ok(Value::Dict(k as u64, Box::new(v)));
        }
        use JsonType as T;
        match &field.data_type {
            T::Null => return Ok(Value::Null),
            T::Union { dense, type_ids } => {
                let id = *get(&self.type_id, i, "TYPE_ID")?;
                let c = type_ids
                    .iter()
                    .position(|t| *t == id)
                    .ok_or_else(|| format!("undeclared type id {id}"))?;
                let slot = if *dense {
                    usize_at(&self.offset, i, "OFFSET")?
                } else {
                    i
                };
                let cf = field.children.get(c).ok_or("union child field missing")?;
                let v = self.child(c)?.value(cf, slot, file)?;
                return Ok(Value::Union(id, Box::new(v)));
            }
            T::RunEndEncoded => {
                let ends = self.child(0)?;
                let vf = field.children.get(1).ok_or("REE without values field")?;
                let mut j = None;
                for r in 0..ends.count {
                    let e = int(get(&ends.data, r, "run_ends DATA")?)?;
                    if e > i as i128 {
                        j = Some(r);
                        break;
                    }
                }
                let j = j.ok_or_else(|| format!("run ends do not cover slot {i}"))?;
                return self.child(1)?.value(vf, j, file);
            }
            _ => {}
        }
        if !self.is_valid(i) {
            return Ok(Value::Null);
        }
        let data = || get(&self.data, i, "DATA");
        Ok(match &field.data_type {
            T::Null | T::Union { .. } | T::RunEndEncoded => Value::Null,
            T::Bool => Value::Bool(match data()? {
                J::Bool(b) => *b,
                other => int(other)? != 0,
            }),
            T::Int { .. }
            | T::Date { .. }
            | T::Time(..)
            | T::Timestamp(..)
            | T::Duration(_)
            | T::Interval(JsonIntervalUnit::YearMonth) => Value::Int(int(data()?)?),
            T::Decimal { bits: 256, .. } => {
                let d = data()?;
                let s = match d {
                    J::String(s) => s.clone(),
                    other => other.to_string(),
                };
                Value::I256(parse_i256(&s).ok_or_else(|| format!("bad decimal256 {s:?}"))?)
            }
            T::Decimal { .. } => Value::Int(int(data()?)?),
            T::Float(16) => Value::F16(alkaid::native::f16::from_f64(float(data()?)?).to_bits()),
            T::Float(32) => Value::F32(float(data()?)? as f32),
            T::Float(_) => Value::F64(float(data()?)?),
            T::Interval(JsonIntervalUnit::DayTime) => {
                let o = obj(data()?, "day-time interval")?;
                Value::DayTime(
                    field_of(o, "days")? as i32,
                    field_of(o, "milliseconds")? as i32,
                )
            }
            T::Interval(JsonIntervalUnit::MonthDayNano) => {
                let o = obj(data()?, "month-day-nano interval")?;
                Value::MonthDayNano(
                    field_of(o, "months")? as i32,
                    field_of(o, "days")? as i32,
                    field_of(o, "nanoseconds")? as i64,
                )
            }
            T::Binary | T::LargeBinary | T::FixedSizeBinary(_) => {
                Value::Bytes(unhex(data()?.as_str().ok_or("binary DATA not a string")?)?)
            }
            T::Utf8 | T::LargeUtf8 => Value::Str(
                data()?
                    .as_str()
                    .ok_or("utf8 DATA not a string")?
                    .to_string(),
            ),
            T::BinaryView | T::Utf8View => {
                let utf8 = field.data_type == T::Utf8View;
                let bytes = self.view_bytes(i, utf8)?;
                if utf8 {
                    Value::Str(String::from_utf8(bytes).map_err(|e| e.to_string())?)
                } else {
                    Value::Bytes(bytes)
                }
            }
            T::List | T::LargeList | T::Map { .. } => {
                let start = usize_at(&self.offset, i, "OFFSET")?;
                let end = usize_at(&self.offset, i + 1, "OFFSET")?;
                self.list(field, start, end, file)?
            }
            T::ListView | T::LargeListView => {
                let start = usize_at(&self.offset, i, "OFFSET")?;
                let size = usize_at(&self.size, i, "SIZE")?;
                self.list(field, start, start + size, file)?
            }
            T::FixedSizeList(n) => {
                let n = usize::try_from(*n).map_err(|_| "negative list size")?;
                self.list(field, i * n, (i + 1) * n, file)?
            }
            T::Struct => Value::Struct(
                field
                    .children
                    .iter()
                    .enumerate()
                    .map(|(k, cf)| self.child(k)?.value(cf, i, file))
                    .collect::<Result<_, _>>()?,
            ),
        })
    }

    fn list(
        &self,
        field: &JsonField,
        start: usize,
        end: usize,
        file: &JsonFile,
    ) -> Result<Value, String> {
        let cf = field.children.first().ok_or("list without child field")?;
        let child = self.child(0)?;
        Ok(Value::List(
            (start..end)
                .map(|j| child.value(cf, j, file))
                .collect::<Result<_, _>>()?,
        ))
    }

    fn view_bytes(&self, i: usize, utf8: bool) -> Result<Vec<u8>, String> {
        let v = obj(get(&self.views, i, "VIEWS")?, "view")?;
        let size = usize::try_from(int(v.get("SIZE").ok_or("view without SIZE")?)?)
            .map_err(|_| "negative view SIZE")?;
        if let Some(inl) = v.get("INLINED") {
            let s = inl.as_str().ok_or("INLINED not a string")?;
            let b = if utf8 {
                s.as_bytes().to_vec()
            } else {
                unhex(s)?
            };
            if b.len() != size {
                return Err(format!("INLINED of {} bytes, SIZE {size}", b.len()));
            }
            return Ok(b);
        }
        let buf = usize::try_from(int(v.get("BUFFER_INDEX").ok_or("no BUFFER_INDEX")?)?)
            .map_err(|_| "negative BUFFER_INDEX")?;
        let off = usize::try_from(int(v.get("OFFSET").ok_or("view without OFFSET")?)?)
            .map_err(|_| "negative view OFFSET")?;
        let data = self
            .variadic
            .as_ref()
            .and_then(|b| b.get(buf))
            .ok_or_else(|| format!("no variadic buffer {buf}"))?;
        let bytes = data
            .get(off..off + size)
            .ok_or_else(|| format!("view {off}+{size} outside buffer {buf}"))?
            .to_vec();
        if let Some(p) = v.get("PREFIX_HEX").and_then(J::as_str) {
            let p = unhex(p)?;
            if bytes.get(..p.len()) != Some(&p[..]) {
                return Err(format!("view {i}: PREFIX_HEX does not match its data"));
            }
        }
        Ok(bytes)
    }
}
