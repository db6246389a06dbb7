//! Compares what our readers return with the integration JSON: the schema
//! (names, types, nullability, metadata, dictionary ids and index types) and
//! every batch, column and slot by logical value ([`crate::value`]).
//!
//! Every function returns `Err(description)` naming the batch, column and
//! slot (and the path inside a nested value) of the first difference.

use alkaid::array::{Array, ArrayRef, RecordBatch};
use alkaid::datatypes::{
    DataType, Field, IndexType, IntervalUnit, Metadata, Schema, TimeUnit, UnionMode,
};
use alkaid::Global;

use crate::json::{
    JsonBatch, JsonColumn, JsonField, JsonFile, JsonIntervalUnit, JsonTimeUnit, JsonType,
};
use crate::value::{diff, Value};

/// The logical value of slot `i` of one of our arrays.
///
/// # Errors
/// When an accessor returns `None` for an in-range slot (a broken array).
pub fn our_value(a: &ArrayRef<'_, Global>, i: usize) -> Result<Value, String> {
    let oob = || format!("slot {i}: accessor returned None (len {})", a.len());
    if i >= a.len() {
        return Err(oob());
    }
    // Layouts without a validity bitmap of their own: nulls live in children.
    match a {
        ArrayRef::Null(_) => return Ok(Value::Null),
        ArrayRef::Union(u) => {
            let (id, c, slot) = u.value(i).ok_or_else(oob)?;
            let child = u.children().get(c).ok_or_else(oob)?;
            return Ok(Value::Union(id, Box::new(our_value(child, slot)?)));
        }
        ArrayRef::RunEndEncoded(r) => {
            let j = r.physical_index(i).ok_or_else(oob)?;
            return our_value(r.values(), j);
        }
        _ => {}
    }
    if !a.is_valid(i) {
        return Ok(Value::Null);
    }
    let list = |child: Option<ArrayRef<'_, Global>>| -> Result<Value, String> {
        let c = child.ok_or_else(oob)?;
        Ok(Value::List(
            (0..c.len())
                .map(|j| our_value(&c, j))
                .collect::<Result<_, _>>()?,
        ))
    };
    Ok(match a {
        ArrayRef::Null(_) | ArrayRef::Union(_) | ArrayRef::RunEndEncoded(_) => Value::Null,
        ArrayRef::Boolean(x) => Value::Bool(x.value(i).ok_or_else(oob)?),
        ArrayRef::Int8(x) => Value::Int(x.value(i).ok_or_else(oob)?.into()),
        ArrayRef::Int16(x) => Value::Int(x.value(i).ok_or_else(oob)?.into()),
        ArrayRef::Int32(x) => Value::Int(x.value(i).ok_or_else(oob)?.into()),
        ArrayRef::Int64(x) => Value::Int(x.value(i).ok_or_else(oob)?.into()),
        ArrayRef::UInt8(x) => Value::Int(x.value(i).ok_or_else(oob)?.into()),
        ArrayRef::UInt16(x) => Value::Int(x.value(i).ok_or_else(oob)?.into()),
        ArrayRef::UInt32(x) => Value::Int(x.value(i).ok_or_else(oob)?.into()),
        ArrayRef::UInt64(x) => Value::Int(x.value(i).ok_or_else(oob)?.into()),
        ArrayRef::Int128(x) => Value::Int(x.value(i).ok_or_else(oob)?),
        ArrayRef::Int256(x) => Value::I256(x.value(i).ok_or_else(oob)?.to_le_bytes()),
        ArrayRef::Float16(x) => Value::F16(x.value(i).ok_or_else(oob)?.to_bits()),
        ArrayRef::Float32(x) => Value::F32(x.value(i).ok_or_else(oob)?),
        ArrayRef::Float64(x) => Value::F64(x.value(i).ok_or_else(oob)?),
        ArrayRef::IntervalDayTime(x) => {
            let v = x.value(i).ok_or_else(oob)?;
            Value::DayTime(v.days, v.milliseconds)
        }
        ArrayRef::IntervalMonthDayNano(x) => {
            let v = x.value(i).ok_or_else(oob)?;
            Value::MonthDayNano(v.months, v.days, v.nanoseconds)
        }
        ArrayRef::FixedSizeBinary(x) => Value::Bytes(x.value(i).ok_or_else(oob)?.to_vec()),
        ArrayRef::Binary(x) => Value::Bytes(x.value(i).ok_or_else(oob)?.to_vec()),
        ArrayRef::LargeBinary(x) => Value::Bytes(x.value(i).ok_or_else(oob)?.to_vec()),
        ArrayRef::BinaryView(x) => Value::Bytes(x.value(i).ok_or_else(oob)?.to_vec()),
        ArrayRef::Utf8(x) => Value::Str(x.value(i).ok_or_else(oob)?.to_string()),
        ArrayRef::LargeUtf8(x) => Value::Str(x.value(i).ok_or_else(oob)?.to_string()),
        ArrayRef::Utf8View(x) => Value::Str(x.value(i).ok_or_else(oob)?.to_string()),
        ArrayRef::List(x) => list(x.value(i))?,
        ArrayRef::LargeList(x) => list(x.value(i))?,
        ArrayRef::ListView(x) => list(x.value(i))?,
        ArrayRef::LargeListView(x) => list(x.value(i))?,
        ArrayRef::FixedSizeList(x) => list(x.value(i))?,
        ArrayRef::Map(x) => list(x.value(i).map(Array::into_array_ref))?,
        ArrayRef::Struct(x) => {
            let at = x.offset() + i;
            Value::Struct(
                x.children()
                    .iter()
                    .map(|c| our_value(c, at))
                    .collect::<Result<_, _>>()?,
            )
        }
        ArrayRef::Dictionary(d) => {
            let k = d.key(i).ok_or_else(oob)?;
            Value::Dict(k as u64, Box::new(our_value(d.values(), k)?))
        }
        other => return Err(format!("unhandled layout {:?}", other.data_type())),
    })
}

/// Compares one of our columns with its JSON column, slot by slot.
///
/// # Errors
/// The first difference: length or slot (with the path inside the value).
pub fn compare_column(
    ours: &ArrayRef<'_, Global>,
    json: &JsonColumn,
    field: &JsonField,
    file: &JsonFile,
) -> Result<(), String> {
    if ours.len() != json.count {
        return Err(format!(
            "length: ours {} vs json {}",
            ours.len(),
            json.count
        ));
    }
    for i in 0..json.count {
        let theirs = json
            .value(field, i, file)
            .map_err(|e| format!("slot {i}: json: {e}"))?;
        let mine = our_value(ours, i).map_err(|e| format!("slot {i}: ours: {e}"))?;
        if let Some(d) = diff(&mine, &theirs) {
            return Err(format!("slot {i}{d}"));
        }
    }
    Ok(())
}

/// Compares one of our record batches with a JSON batch.
///
/// # Errors
/// The first difference, naming the column.
pub fn compare_batch(
    ours: &RecordBatch<'_, Global>,
    json: &JsonBatch,
    file: &JsonFile,
) -> Result<(), String> {
    if ours.num_rows() != json.count {
        return Err(format!(
            "rows: ours {} vs json {}",
            ours.num_rows(),
            json.count
        ));
    }
    if ours.num_columns() != json.columns.len() {
        return Err(format!(
            "columns: ours {} vs json {}",
            ours.num_columns(),
            json.columns.len()
        ));
    }
    for (k, (col, jcol)) in ours.columns().iter().zip(&json.columns).enumerate() {
        let field = file
            .schema
            .fields
            .get(k)
            .ok_or_else(|| format!("json schema has no field {k}"))?;
        compare_column(col, jcol, field, file)
            .map_err(|e| format!("column {k} {:?}: {e}", field.name))?;
    }
    Ok(())
}

/// Metadata as sorted `(key, value)` pairs: the order of the `KeyValue`
/// list carries no meaning (Arrow's own integration checks compare metadata
/// as maps, and C++ writes extension keys in another order than its JSON).
fn sorted_pairs(m: impl IntoIterator<Item = (String, String)>) -> Vec<(String, String)> {
    let mut v: Vec<_> = m.into_iter().collect();
    v.sort();
    v
}

fn our_metadata(m: &Metadata<'_, Global>) -> Vec<(String, String)> {
    sorted_pairs(
        m.iter()
            .map(|(k, v)| (k.as_str().to_string(), v.as_str().to_string())),
    )
}

/// Schema comparison state: the dictionary ids seen so far.
///
/// Writers may renumber dictionaries (C++ numbers them in its own traversal
/// order and gives each nested dictionary field its own id, where the JSON
/// shares one), so ids are not compared for equality: every id of ours must
/// stand for exactly one JSON id (fields that share a dictionary in our
/// schema share it in the JSON).
#[derive(Debug, Default)]
struct SchemaCheck {
    /// (our id, JSON id).
    dict_ids: Vec<(i64, i64)>,
}

/// Compares our schema with the JSON schema: every field recursively, and
/// the schema-level metadata.
///
/// # Errors
/// The first difference, with the path of field names.
pub fn compare_schema(ours: &Schema<'_, Global>, json: &JsonFile) -> Result<(), String> {
    let m = our_metadata(ours.metadata());
    let jm = sorted_pairs(json.schema.metadata.iter().cloned());
    if m != jm {
        return Err(format!("schema metadata: ours {m:?} vs json {jm:?}"));
    }
    let mut check = SchemaCheck::default();
    check.fields(ours.fields().iter(), &json.schema.fields, "", 0)
}

fn index_type(bits: u32, signed: bool) -> Option<IndexType> {
    Some(match (bits, signed) {
        (8, true) => IndexType::Int8,
        (16, true) => IndexType::Int16,
        (32, true) => IndexType::Int32,
        (64, true) => IndexType::Int64,
        (8, false) => IndexType::UInt8,
        (16, false) => IndexType::UInt16,
        (32, false) => IndexType::UInt32,
        (64, false) => IndexType::UInt64,
        _ => return None,
    })
}

fn unit(u: JsonTimeUnit) -> TimeUnit {
    match u {
        JsonTimeUnit::Second => TimeUnit::Second,
        JsonTimeUnit::Millisecond => TimeUnit::Millisecond,
        JsonTimeUnit::Microsecond => TimeUnit::Microsecond,
        JsonTimeUnit::Nanosecond => TimeUnit::Nanosecond,
    }
}

impl SchemaCheck {
    /// Compares child fields in order. `skip_names` is the number of levels
    /// whose names are not compared: 2 for a map's entries and their key and
    /// value fields (names the format does not enforce; C++ writes the
    /// canonical `entries`/`key`/`value` whatever its JSON says).
    fn fields<'f, 'a: 'f>(
        &mut self,
        ours: impl ExactSizeIterator<Item = &'f Field<'a, Global>>,
        json: &[JsonField],
        path: &str,
        skip_names: usize,
    ) -> Result<(), String> {
        if ours.len() != json.len() {
            return Err(format!(
                "{path}: {} children, json {}",
                ours.len(),
                json.len()
            ));
        }
        for (f, j) in ours.zip(json) {
            self.field(f, j, path, skip_names)?;
        }
        Ok(())
    }

    /// Compares one field: name, nullability, metadata, dictionary encoding
    /// and type.
    fn field(
        &mut self,
        ours: &Field<'_, Global>,
        json: &JsonField,
        path: &str,
        skip_names: usize,
    ) -> Result<(), String> {
        let path = format!("{path}/{}", json.name);
        if ours.name() != json.name && skip_names == 0 {
            return Err(format!("{path}: name ours {:?}", ours.name()));
        }
        if ours.is_nullable() != json.nullable {
            return Err(format!(
                "{path}: nullable ours {} vs json {}",
                ours.is_nullable(),
                json.nullable
            ));
        }
        let m = our_metadata(ours.metadata());
        let jm = sorted_pairs(json.metadata.iter().cloned());
        if m != jm {
            return Err(format!("{path}: metadata ours {m:?} vs json {jm:?}"));
        }
        let value_type = match (&json.dictionary, ours.data_type()) {
            (Some(d), DataType::Dictionary(index, values, ordered)) => {
                let id = ours
                    .dict_id()
                    .ok_or_else(|| format!("{path}: dictionary field without id"))?;
                match self.dict_ids.iter().find(|(o, _)| *o == id) {
                    Some((_, j)) if *j != d.id => {
                        return Err(format!(
                            "{path}: our dictionary id {id} also stands for json id {j}, here json id {}",
                            d.id
                        ))
                    }
                    Some(_) => {}
                    None => self.dict_ids.push((id, d.id)),
                }
                let want = index_type(d.index_bits, d.index_signed)
                    .ok_or_else(|| format!("{path}: bad json index type"))?;
                if *index != want {
                    return Err(format!(
                        "{path}: index type ours {index:?} vs json {want:?}"
                    ));
                }
                if *ordered != d.is_ordered {
                    return Err(format!("{path}: isOrdered ours {ordered} vs json"));
                }
                &**values
            }
            (Some(_), other) => {
                return Err(format!(
                    "{path}: json is dictionary-encoded, ours {other:?}"
                ))
            }
            (None, DataType::Dictionary(..)) => {
                return Err(format!("{path}: ours is dictionary-encoded, json is not"))
            }
            (None, t) => t,
        };
        self.data_type(value_type, json, &path, skip_names.saturating_sub(1))
    }

    /// Compares our (value) type with the JSON field's `type` and `children`.
    fn data_type(
        &mut self,
        ours: &DataType<'_, Global>,
        json: &JsonField,
        path: &str,
        skip_names: usize,
    ) -> Result<(), String> {
        use DataType as D;
        use JsonType as T;
        let mismatch = || format!("{path}: type ours {ours:?} vs json {:?}", json.data_type);
        let ok = match (&json.data_type, ours) {
            (T::Null, D::Null) | (T::Bool, D::Boolean) => true,
            (T::Int { bits, signed }, t) => matches!(
                (bits, signed, t),
                (8, true, D::Int8)
                    | (16, true, D::Int16)
                    | (32, true, D::Int32)
                    | (64, true, D::Int64)
                    | (8, false, D::UInt8)
                    | (16, false, D::UInt16)
                    | (32, false, D::UInt32)
                    | (64, false, D::UInt64)
            ),
            (T::Float(16), D::Float16)
            | (T::Float(32), D::Float32)
            | (T::Float(64), D::Float64) => true,
            (
                T::Decimal {
                    precision,
                    scale,
                    bits,
                },
                t,
            ) => {
                let (p, s, b) = match t {
                    D::Decimal32(p, s) => (*p, *s, 32),
                    D::Decimal64(p, s) => (*p, *s, 64),
                    D::Decimal128(p, s) => (*p, *s, 128),
                    D::Decimal256(p, s) => (*p, *s, 256),
                    _ => return Err(mismatch()),
                };
                u32::from(p) == *precision && i32::from(s) == *scale && b == *bits
            }
            (T::Date { day: true }, D::Date32) | (T::Date { day: false }, D::Date64) => true,
            (T::Time(u, 32), D::Time32(o)) | (T::Time(u, 64), D::Time64(o)) => unit(*u) == *o,
            (T::Timestamp(u, tz), D::Timestamp(o, otz)) => {
                unit(*u) == *o && tz.as_deref() == otz.as_ref().map(|s| s.as_str())
            }
            (T::Interval(u), D::Interval(o)) => matches!(
                (u, o),
                (JsonIntervalUnit::YearMonth, IntervalUnit::YearMonth)
                    | (JsonIntervalUnit::DayTime, IntervalUnit::DayTime)
                    | (JsonIntervalUnit::MonthDayNano, IntervalUnit::MonthDayNano)
            ),
            (T::Duration(u), D::Duration(o)) => unit(*u) == *o,
            (T::Binary, D::Binary)
            | (T::LargeBinary, D::LargeBinary)
            | (T::Utf8, D::Utf8)
            | (T::LargeUtf8, D::LargeUtf8)
            | (T::BinaryView, D::BinaryView)
            | (T::Utf8View, D::Utf8View) => true,
            (T::FixedSizeBinary(w), D::FixedSizeBinary(o)) => w == o,
            (T::List, D::List(c))
            | (T::LargeList, D::LargeList(c))
            | (T::ListView, D::ListView(c))
            | (T::LargeListView, D::LargeListView(c)) => {
                return self.fields(std::iter::once(&**c), &json.children, path, 0);
            }
            (T::FixedSizeList(n), D::FixedSizeList(c, o)) => {
                if n != o {
                    return Err(mismatch());
                }
                return self.fields(std::iter::once(&**c), &json.children, path, 0);
            }
            (T::Map { keys_sorted }, D::Map(c, sorted)) => {
                if keys_sorted != sorted {
                    return Err(mismatch());
                }
                return self.fields(std::iter::once(&**c), &json.children, path, 2);
            }
            (T::Struct, D::Struct(fs)) => {
                return self.fields(fs.iter(), &json.children, path, skip_names)
            }
            (T::Union { dense, type_ids }, D::Union(u, mode)) => {
                if *dense != (*mode == UnionMode::Dense) || type_ids.as_slice() != u.type_ids() {
                    return Err(mismatch());
                }
                return self.fields(u.fields().iter(), &json.children, path, 0);
            }
            (T::RunEndEncoded, D::RunEndEncoded(r, v)) => {
                return self.fields([&**r, &**v].into_iter(), &json.children, path, 0);
            }
            _ => false,
        };
        if !ok {
            return Err(mismatch());
        }
        if json.children.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "{path}: json has {} children for a flat type",
                json.children.len()
            ))
        }
    }
}
