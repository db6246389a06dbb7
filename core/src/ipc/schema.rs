//! [`Schema`] ↔ the `Schema` flatbuffer table (Schema.fbs).
//!
//! Encoding works in the caller's scratch through [`FlatBufferBuilder`] (no
//! heap). Decoding reads untrusted bytes through the verifying [`Table`]
//! reader and copies names and metadata into memory from `A`, bounded by
//! [`DecodeLimits`] (nesting depth, number of fields, metadata entries).

use allocator_api2::alloc::Allocator;

use super::flatbuf::{FlatBufferBuilder, Table, WIPOffset};
use super::Endianness;
use crate::buffer::{SharedBox, SharedSlice, SharedStr};
use crate::datatypes::{
    DataType, Field, Fields, IndexType, IntervalUnit, Metadata, Schema, TimeUnit, UnionFields,
    UnionMode,
};
use crate::error::{Error, Result};

/// Limits on what decoding untrusted metadata may allocate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecodeLimits {
    /// Deepest nesting of fields (a top-level field has depth 1).
    pub max_depth: usize,
    /// Most fields in one schema, counting nested ones.
    pub max_fields: usize,
    /// Most custom-metadata entries on one schema, field or message.
    pub max_metadata_entries: usize,
}

impl Default for DecodeLimits {
    fn default() -> Self {
        DecodeLimits {
            max_depth: 64,
            max_fields: 65_536,
            max_metadata_entries: 1_024,
        }
    }
}

/// Metadata key prefix of the standard spelling.
pub const ARROW_PREFIX: &str = "ARROW:";
/// Metadata key prefix of the Alkaid spelling (seed 002 of the spec).
pub const ALKAID_PREFIX: &str = "ALKAID:";

// `Type` union member ids (Schema.fbs, in declaration order from 1).
mod type_id {
    pub const NULL: u8 = 1;
    pub const INT: u8 = 2;
    pub const FLOATING_POINT: u8 = 3;
    pub const BINARY: u8 = 4;
    pub const UTF8: u8 = 5;
    pub const BOOL: u8 = 6;
    pub const DECIMAL: u8 = 7;
    pub const DATE: u8 = 8;
    pub const TIME: u8 = 9;
    pub const TIMESTAMP: u8 = 10;
    pub const INTERVAL: u8 = 11;
    pub const LIST: u8 = 12;
    pub const STRUCT: u8 = 13;
    pub const UNION: u8 = 14;
    pub const FIXED_SIZE_BINARY: u8 = 15;
    pub const FIXED_SIZE_LIST: u8 = 16;
    pub const MAP: u8 = 17;
    pub const DURATION: u8 = 18;
    pub const LARGE_BINARY: u8 = 19;
    pub const LARGE_UTF8: u8 = 20;
    pub const LARGE_LIST: u8 = 21;
    pub const RUN_END_ENCODED: u8 = 22;
    pub const BINARY_VIEW: u8 = 23;
    pub const UTF8_VIEW: u8 = 24;
    pub const LIST_VIEW: u8 = 25;
    pub const LARGE_LIST_VIEW: u8 = 26;
}

// Field slots of the `Field` table.
const FIELD_NAME: u16 = 0;
const FIELD_NULLABLE: u16 = 1;
const FIELD_TYPE_TYPE: u16 = 2;
const FIELD_TYPE: u16 = 3;
const FIELD_DICTIONARY: u16 = 4;
const FIELD_CHILDREN: u16 = 5;
const FIELD_METADATA: u16 = 6;

fn time_unit_id(u: TimeUnit) -> i16 {
    match u {
        TimeUnit::Second => 0,
        TimeUnit::Millisecond => 1,
        TimeUnit::Microsecond => 2,
        TimeUnit::Nanosecond => 3,
    }
}

fn time_unit_from(v: i16) -> Result<TimeUnit> {
    Ok(match v {
        0 => TimeUnit::Second,
        1 => TimeUnit::Millisecond,
        2 => TimeUnit::Microsecond,
        3 => TimeUnit::Nanosecond,
        _ => return Err(Error::UnsupportedType),
    })
}

/// Writes a `KeyValue` vector; keys starting with `ARROW:` are respelled
/// `ALKAID:` when `alkaid` is set. Returns `None` for empty metadata.
pub(crate) fn encode_metadata<A: Allocator>(
    b: &mut FlatBufferBuilder<'_>,
    metadata: &Metadata<'_, A>,
    alkaid: bool,
) -> Result<Option<WIPOffset>> {
    if metadata.is_empty() {
        return Ok(None);
    }
    let mark = b.pending_mark();
    for (k, v) in metadata.iter() {
        let key = match k.as_str().strip_prefix(ARROW_PREFIX) {
            // Keys of up to 256 bytes take the Alkaid spelling (as when
            // they were joined in a 256-byte stack buffer); longer keys
            // are written as they are.
            Some(rest) if alkaid && ALKAID_PREFIX.len() + rest.len() <= 256 => {
                b.create_string_parts(ALKAID_PREFIX.as_bytes(), rest.as_bytes())?
            }
            _ => b.create_string(k)?,
        };
        let value = b.create_string(v)?;
        b.start_table()?;
        b.add_offset(0, key)?;
        b.add_offset(1, value)?;
        let kv = b.end_table()?;
        b.push_pending(kv)?;
    }
    Ok(Some(b.create_vector_of_pending(mark)?))
}

/// Writes the type table of `dt` (for a dictionary, of its value type) and
/// returns (union type id, table).
fn encode_type<A: Allocator>(
    b: &mut FlatBufferBuilder<'_>,
    dt: &DataType<'_, A>,
) -> Result<(u8, WIPOffset)> {
    use type_id as t;
    use DataType::*;
    // Tables with offsets must create their strings/vectors before starting.
    let (id, table) = match dt {
        Timestamp(u, tz) => {
            let tz = match tz {
                Some(z) => Some(b.create_string(z)?),
                None => None,
            };
            b.start_table()?;
            b.add_i16(0, time_unit_id(*u), 0)?;
            if let Some(z) = tz {
                b.add_offset(1, z)?;
            }
            (t::TIMESTAMP, b.end_table()?)
        }
        #[cfg(feature = "union")]
        Union(fields, mode) => {
            let mut ids = [0i32; 128];
            let n = fields.type_ids().len().min(128);
            for (d, s) in ids.iter_mut().zip(fields.type_ids()) {
                *d = i32::from(*s);
            }
            let v = b.create_vector_i32(&ids[..n])?;
            b.start_table()?;
            b.add_i16(0, if *mode == UnionMode::Dense { 1 } else { 0 }, 0)?;
            b.add_offset(1, v)?;
            (t::UNION, b.end_table()?)
        }
        #[cfg(feature = "dictionary")]
        Dictionary(_, value, _) => return encode_type(b, value),
        _ => {
            b.start_table()?;
            let id = match dt {
                Null => t::NULL,
                Boolean => t::BOOL,
                Int8 | Int16 | Int32 | Int64 | UInt8 | UInt16 | UInt32 | UInt64 => {
                    let (w, s) = match dt {
                        Int8 => (8, true),
                        Int16 => (16, true),
                        Int32 => (32, true),
                        Int64 => (64, true),
                        UInt8 => (8, false),
                        UInt16 => (16, false),
                        UInt32 => (32, false),
                        _ => (64, false),
                    };
                    b.add_i32(0, w, 0)?;
                    b.add_bool(1, s, false)?;
                    t::INT
                }
                Float16 | Float32 | Float64 => {
                    let p = match dt {
                        Float16 => 0,
                        Float32 => 1,
                        _ => 2,
                    };
                    b.add_i16(0, p, 0)?;
                    t::FLOATING_POINT
                }
                Decimal32(p, s) | Decimal64(p, s) | Decimal128(p, s) | Decimal256(p, s) => {
                    let w = match dt {
                        Decimal32(..) => 32,
                        Decimal64(..) => 64,
                        Decimal128(..) => 128,
                        _ => 256,
                    };
                    b.add_i32(0, i32::from(*p), 0)?;
                    b.add_i32(1, i32::from(*s), 0)?;
                    b.add_i32(2, w, 128)?;
                    t::DECIMAL
                }
                Date32 => {
                    b.add_i16(0, 0, 1)?;
                    t::DATE
                }
                Date64 => {
                    b.add_i16(0, 1, 1)?;
                    t::DATE
                }
                Time32(u) | Time64(u) => {
                    b.add_i16(0, time_unit_id(*u), 1)?;
                    b.add_i32(1, if matches!(dt, Time32(_)) { 32 } else { 64 }, 32)?;
                    t::TIME
                }
                Interval(u) => {
                    let v = match u {
                        IntervalUnit::YearMonth => 0,
                        IntervalUnit::DayTime => 1,
                        IntervalUnit::MonthDayNano => 2,
                    };
                    b.add_i16(0, v, 0)?;
                    t::INTERVAL
                }
                Duration(u) => {
                    b.add_i16(0, time_unit_id(*u), 1)?;
                    t::DURATION
                }
                FixedSizeBinary(w) => {
                    b.add_i32(0, *w, 0)?;
                    t::FIXED_SIZE_BINARY
                }
                Binary => t::BINARY,
                LargeBinary => t::LARGE_BINARY,
                Utf8 => t::UTF8,
                LargeUtf8 => t::LARGE_UTF8,
                #[cfg(feature = "views")]
                BinaryView => t::BINARY_VIEW,
                #[cfg(feature = "views")]
                Utf8View => t::UTF8_VIEW,
                #[cfg(feature = "nested")]
                List(_) => t::LIST,
                #[cfg(feature = "nested")]
                LargeList(_) => t::LARGE_LIST,
                #[cfg(feature = "nested")]
                ListView(_) => t::LIST_VIEW,
                #[cfg(feature = "nested")]
                LargeListView(_) => t::LARGE_LIST_VIEW,
                #[cfg(feature = "nested")]
                FixedSizeList(_, n) => {
                    b.add_i32(0, *n, 0)?;
                    t::FIXED_SIZE_LIST
                }
                #[cfg(feature = "nested")]
                Struct(_) => t::STRUCT,
                #[cfg(feature = "nested")]
                Map(_, sorted) => {
                    b.add_bool(0, *sorted, false)?;
                    t::MAP
                }
                #[cfg(feature = "run-end")]
                RunEndEncoded(..) => t::RUN_END_ENCODED,
                // Handled above.
                Timestamp(..) => return Err(Error::InvalidBuilderState),
                // Handled above, or a layout family built out (the writers
                // refuse such schemas first, see `crate::ipc::check_layouts`).
                #[allow(unreachable_patterns)]
                _ => return Err(Error::UnsupportedType),
            };
            (id, b.end_table()?)
        }
    };
    Ok((id, table))
}

/// Children fields of a type (for a dictionary, of its value type).
fn child_fields<'s, 'a, A: Allocator>(dt: &'s DataType<'a, A>) -> ChildIter<'s, 'a, A> {
    // Only the layout families built in have children to encode (the
    // writers refuse the others, see `crate::ipc::check_layouts`).
    match dt {
        #[cfg(feature = "nested")]
        DataType::List(f)
        | DataType::LargeList(f)
        | DataType::ListView(f)
        | DataType::LargeListView(f)
        | DataType::FixedSizeList(f, _)
        | DataType::Map(f, _) => ChildIter::One(Some(f)),
        #[cfg(feature = "nested")]
        DataType::Struct(fs) => ChildIter::Many(fs.iter()),
        #[cfg(feature = "union")]
        DataType::Union(u, _) => ChildIter::Many(u.fields().iter()),
        #[cfg(feature = "run-end")]
        DataType::RunEndEncoded(r, v) => ChildIter::Two(Some(r), Some(v)),
        #[cfg(feature = "dictionary")]
        DataType::Dictionary(_, v, _) => child_fields(v),
        _ => ChildIter::One(None),
    }
}

#[cfg_attr(
    not(all(feature = "nested", feature = "run-end", feature = "union")),
    allow(dead_code)
)]
enum ChildIter<'s, 'a, A: Allocator> {
    One(Option<&'s Field<'a, A>>),
    Two(Option<&'s Field<'a, A>>, Option<&'s Field<'a, A>>),
    Many(core::slice::Iter<'s, Field<'a, A>>),
}

impl<'s, 'a, A: Allocator> Iterator for ChildIter<'s, 'a, A> {
    type Item = &'s Field<'a, A>;
    fn next(&mut self) -> Option<Self::Item> {
        match self {
            ChildIter::One(f) => f.take(),
            ChildIter::Two(a, b) => a.take().or_else(|| b.take()),
            ChildIter::Many(it) => it.next(),
        }
    }
}

#[cfg(feature = "dictionary")]
fn index_type_parts(t: IndexType) -> (i32, bool) {
    match t {
        IndexType::Int8 => (8, true),
        IndexType::Int16 => (16, true),
        IndexType::Int32 => (32, true),
        IndexType::Int64 => (64, true),
        IndexType::UInt8 => (8, false),
        IndexType::UInt16 => (16, false),
        IndexType::UInt32 => (32, false),
        IndexType::UInt64 => (64, false),
    }
}

/// Writes a `Field` table (recursively) and returns it.
///
/// # Errors
/// [`Error::ScratchTooSmall`]; [`Error::InvalidDataType`] for a dictionary
/// field without a dictionary id.
pub(crate) fn encode_field<A: Allocator>(
    b: &mut FlatBufferBuilder<'_>,
    field: &Field<'_, A>,
    alkaid: bool,
) -> Result<WIPOffset> {
    let name = b.create_string(field.name())?;
    let mark = b.pending_mark();
    for child in child_fields(field.data_type()) {
        let c = encode_field(b, child, alkaid)?;
        b.push_pending(c)?;
    }
    let children = b.create_vector_of_pending(mark)?;
    let (type_type, type_table) = encode_type(b, field.data_type())?;
    let dictionary = match field.data_type() {
        #[cfg(feature = "dictionary")]
        DataType::Dictionary(index, _, ordered) => {
            let id = field.dict_id().ok_or(Error::InvalidDataType)?;
            let (w, s) = index_type_parts(*index);
            b.start_table()?;
            b.add_i32(0, w, 0)?;
            b.add_bool(1, s, false)?;
            let int = b.end_table()?;
            b.start_table()?;
            b.add_i64(0, id, 0)?;
            b.add_offset(1, int)?;
            b.add_bool(2, *ordered, false)?;
            Some(b.end_table()?)
        }
        _ => None,
    };
    let metadata = encode_metadata(b, field.metadata(), alkaid)?;
    b.start_table()?;
    b.add_offset(FIELD_NAME, name)?;
    b.add_bool(FIELD_NULLABLE, field.is_nullable(), false)?;
    b.add_u8(FIELD_TYPE_TYPE, type_type, 0)?;
    b.add_offset(FIELD_TYPE, type_table)?;
    if let Some(d) = dictionary {
        b.add_offset(FIELD_DICTIONARY, d)?;
    }
    b.add_offset(FIELD_CHILDREN, children)?;
    if let Some(m) = metadata {
        b.add_offset(FIELD_METADATA, m)?;
    }
    b.end_table()
}

/// Writes a `Schema` table and returns it.
///
/// # Errors
/// As `encode_field` (the same errors).
pub fn encode_schema<A: Allocator>(
    b: &mut FlatBufferBuilder<'_>,
    schema: &Schema<'_, A>,
    endianness: Endianness,
    alkaid: bool,
) -> Result<WIPOffset> {
    let mark = b.pending_mark();
    for f in schema.fields().iter() {
        let o = encode_field(b, f, alkaid)?;
        b.push_pending(o)?;
    }
    let fields = b.create_vector_of_pending(mark)?;
    let metadata = encode_metadata(b, schema.metadata(), alkaid)?;
    b.start_table()?;
    b.add_i16(0, endianness as i16, 0)?;
    b.add_offset(1, fields)?;
    if let Some(m) = metadata {
        b.add_offset(2, m)?;
    }
    b.end_table()
}

/// Decoding state: limits and counters.
pub(crate) struct Decoder<'o, A: Allocator + Clone> {
    pub(crate) alloc: A,
    pub(crate) limits: DecodeLimits,
    fields_seen: usize,
    _o: core::marker::PhantomData<&'o ()>,
}

impl<'o, A: Allocator + Clone + 'o> Decoder<'o, A> {
    pub(crate) fn new(alloc: A, limits: DecodeLimits) -> Self {
        Decoder {
            alloc,
            limits,
            fields_seen: 0,
            _o: core::marker::PhantomData,
        }
    }

    fn string(&self, s: &str) -> Result<SharedStr<'o, A>> {
        SharedStr::try_from_str_in(s, self.alloc.clone())
    }

    /// Decodes a `KeyValue` vector at `slot` of `t`; `ALKAID:` keys are
    /// respelled `ARROW:`. An entry without a key or a value is refused
    /// ([`Error::MetadataEntryIncomplete`], as pyarrow refuses it).
    pub(crate) fn metadata(&self, t: &Table<'_>, slot: u16) -> Result<Metadata<'o, A>> {
        let Some(v) = t.get_vector(slot, 4)? else {
            return Ok(SharedSlice::empty());
        };
        if v.len() > self.limits.max_metadata_entries {
            return Err(Error::LimitExceeded);
        }
        SharedSlice::try_from_fn_in(v.len(), self.alloc.clone(), |i| {
            let kv = v.get_table(i)?;
            let k = kv.get_str(0)?.ok_or(Error::MetadataEntryIncomplete)?;
            let val = kv.get_str(1)?.ok_or(Error::MetadataEntryIncomplete)?;
            let key = match k.strip_prefix(ALKAID_PREFIX) {
                Some(rest) => {
                    let mut tmp = [0u8; 256];
                    let total = ARROW_PREFIX.len() + rest.len();
                    match tmp.get_mut(..total) {
                        Some(t) => {
                            t[..ARROW_PREFIX.len()].copy_from_slice(ARROW_PREFIX.as_bytes());
                            t[ARROW_PREFIX.len()..].copy_from_slice(rest.as_bytes());
                            let s =
                                core::str::from_utf8(t).map_err(|_| Error::InvalidFlatbuffer)?;
                            self.string(s)?
                        }
                        None => self.string(k)?,
                    }
                }
                None => self.string(k)?,
            };
            Ok((key, self.string(val)?))
        })
    }

    fn boxed_field(&self, f: Field<'o, A>) -> Result<SharedBox<'o, Field<'o, A>, A>> {
        SharedBox::try_new_in(f, self.alloc.clone())
    }

    fn children(&mut self, t: &Table<'_>, depth: usize) -> Result<Fields<'o, A>> {
        let Some(v) = t.get_vector(FIELD_CHILDREN, 4)? else {
            return Ok(SharedSlice::empty());
        };
        if v.len() > self.limits.max_fields {
            return Err(Error::LimitExceeded);
        }
        let alloc = self.alloc.clone();
        SharedSlice::try_from_fn_in(v.len(), alloc, |i| self.field(&v.get_table(i)?, depth + 1))
    }

    /// Decodes a `Field` table at nesting `depth` (1 = top level).
    pub(crate) fn field(&mut self, t: &Table<'_>, depth: usize) -> Result<Field<'o, A>> {
        if depth > self.limits.max_depth {
            return Err(Error::LimitExceeded);
        }
        self.fields_seen += 1;
        if self.fields_seen > self.limits.max_fields {
            return Err(Error::LimitExceeded);
        }
        let name = self.string(t.get_str(FIELD_NAME)?.unwrap_or(""))?;
        let nullable = t.get_bool(FIELD_NULLABLE, false)?;
        let children = self.children(t, depth)?;
        let mut data_type = self.data_type(t, &children)?;
        let mut dict_id = None;
        if let Some(d) = t.get_table(FIELD_DICTIONARY)? {
            dict_id = Some(d.get_i64(0, 0)?);
            let index = match d.get_table(1)? {
                Some(int) => match (int.get_i32(0, 0)?, int.get_bool(1, false)?) {
                    (8, true) => IndexType::Int8,
                    (16, true) => IndexType::Int16,
                    (32, true) => IndexType::Int32,
                    (64, true) => IndexType::Int64,
                    (8, false) => IndexType::UInt8,
                    (16, false) => IndexType::UInt16,
                    (32, false) => IndexType::UInt32,
                    (64, false) => IndexType::UInt64,
                    _ => return Err(Error::UnsupportedType),
                },
                // "indexType: when absent, the index type is a signed 32-bit int".
                None => IndexType::Int32,
            };
            let ordered = d.get_bool(2, false)?;
            let value = SharedBox::try_new_in(data_type, self.alloc.clone())?;
            data_type = DataType::Dictionary(index, value, ordered);
        }
        let metadata = self.metadata(t, FIELD_METADATA)?;
        Ok(Field::from_parts(
            name, data_type, nullable, metadata, dict_id,
        ))
    }

    fn one_child(&self, children: &Fields<'o, A>) -> Result<SharedBox<'o, Field<'o, A>, A>> {
        match children.as_slice() {
            [c] => self.boxed_field(c.clone()),
            _ => Err(Error::InvalidChildCount),
        }
    }

    fn data_type(&self, t: &Table<'_>, children: &Fields<'o, A>) -> Result<DataType<'o, A>> {
        use type_id as id;
        let tt = t.get_u8(FIELD_TYPE_TYPE, 0)?;
        let ty = t.get_table(FIELD_TYPE)?;
        let leaf = |dt: DataType<'o, A>| -> Result<DataType<'o, A>> {
            if children.is_empty() {
                Ok(dt)
            } else {
                Err(Error::InvalidChildCount)
            }
        };
        let get = |f: fn(&Table<'_>) -> Result<DataType<'o, A>>| match &ty {
            Some(t) => f(t),
            None => Err(Error::InvalidFlatbuffer),
        };
        let dt = match tt {
            id::NULL => leaf(DataType::Null)?,
            id::BOOL => leaf(DataType::Boolean)?,
            id::INT => leaf(get(|t| {
                Ok(match (t.get_i32(0, 0)?, t.get_bool(1, false)?) {
                    (8, true) => DataType::Int8,
                    (16, true) => DataType::Int16,
                    (32, true) => DataType::Int32,
                    (64, true) => DataType::Int64,
                    (8, false) => DataType::UInt8,
                    (16, false) => DataType::UInt16,
                    (32, false) => DataType::UInt32,
                    (64, false) => DataType::UInt64,
                    _ => return Err(Error::UnsupportedType),
                })
            })?)?,
            id::FLOATING_POINT => leaf(get(|t| {
                Ok(match t.get_i16(0, 0)? {
                    0 => DataType::Float16,
                    1 => DataType::Float32,
                    2 => DataType::Float64,
                    _ => return Err(Error::UnsupportedType),
                })
            })?)?,
            id::DECIMAL => leaf(get(|t| {
                let p = u8::try_from(t.get_i32(0, 0)?).map_err(|_| Error::InvalidDataType)?;
                let s = i8::try_from(t.get_i32(1, 0)?).map_err(|_| Error::InvalidDataType)?;
                Ok(match t.get_i32(2, 128)? {
                    32 => DataType::Decimal32(p, s),
                    64 => DataType::Decimal64(p, s),
                    128 => DataType::Decimal128(p, s),
                    256 => DataType::Decimal256(p, s),
                    _ => return Err(Error::UnsupportedType),
                })
            })?)?,
            id::DATE => leaf(get(|t| {
                Ok(match t.get_i16(0, 1)? {
                    0 => DataType::Date32,
                    1 => DataType::Date64,
                    _ => return Err(Error::UnsupportedType),
                })
            })?)?,
            id::TIME => leaf(get(|t| {
                let u = time_unit_from(t.get_i16(0, 1)?)?;
                Ok(match t.get_i32(1, 32)? {
                    32 => DataType::Time32(u),
                    64 => DataType::Time64(u),
                    _ => return Err(Error::UnsupportedType),
                })
            })?)?,
            id::TIMESTAMP => {
                let t = ty.ok_or(Error::InvalidFlatbuffer)?;
                let u = time_unit_from(t.get_i16(0, 0)?)?;
                let tz = match t.get_str(1)? {
                    Some(z) => Some(self.string(z)?),
                    None => None,
                };
                leaf(DataType::Timestamp(u, tz))?
            }
            id::INTERVAL => leaf(get(|t| {
                Ok(DataType::Interval(match t.get_i16(0, 0)? {
                    0 => IntervalUnit::YearMonth,
                    1 => IntervalUnit::DayTime,
                    2 => IntervalUnit::MonthDayNano,
                    _ => return Err(Error::UnsupportedType),
                }))
            })?)?,
            id::DURATION => leaf(get(|t| {
                Ok(DataType::Duration(time_unit_from(t.get_i16(0, 1)?)?))
            })?)?,
            id::FIXED_SIZE_BINARY => {
                leaf(get(|t| Ok(DataType::FixedSizeBinary(t.get_i32(0, 0)?)))?)?
            }
            id::BINARY => leaf(DataType::Binary)?,
            id::LARGE_BINARY => leaf(DataType::LargeBinary)?,
            id::UTF8 => leaf(DataType::Utf8)?,
            id::LARGE_UTF8 => leaf(DataType::LargeUtf8)?,
            id::BINARY_VIEW => leaf(DataType::BinaryView)?,
            id::UTF8_VIEW => leaf(DataType::Utf8View)?,
            id::LIST => DataType::List(self.one_child(children)?),
            id::LARGE_LIST => DataType::LargeList(self.one_child(children)?),
            id::LIST_VIEW => DataType::ListView(self.one_child(children)?),
            id::LARGE_LIST_VIEW => DataType::LargeListView(self.one_child(children)?),
            id::FIXED_SIZE_LIST => {
                let n = ty.ok_or(Error::InvalidFlatbuffer)?.get_i32(0, 0)?;
                DataType::FixedSizeList(self.one_child(children)?, n)
            }
            id::STRUCT => DataType::Struct(children.clone()),
            id::MAP => {
                let sorted = ty.ok_or(Error::InvalidFlatbuffer)?.get_bool(0, false)?;
                DataType::Map(self.one_child(children)?, sorted)
            }
            id::UNION => {
                let t = ty.ok_or(Error::InvalidFlatbuffer)?;
                let mode = match t.get_i16(0, 0)? {
                    0 => UnionMode::Sparse,
                    1 => UnionMode::Dense,
                    _ => return Err(Error::UnsupportedType),
                };
                let ids = match t.get_vector(1, 4)? {
                    Some(v) => {
                        if v.len() != children.len() {
                            return Err(Error::InvalidDataType);
                        }
                        SharedSlice::try_from_fn_in(v.len(), self.alloc.clone(), |i| {
                            i8::try_from(v.get_i32(i)?).map_err(|_| Error::InvalidDataType)
                        })?
                    }
                    None => {
                        let n = children.len();
                        if n > 128 {
                            return Err(Error::InvalidDataType);
                        }
                        SharedSlice::try_from_fn_in(n, self.alloc.clone(), |i| Ok(i as i8))?
                    }
                };
                DataType::Union(UnionFields::try_new(ids, children.clone())?, mode)
            }
            id::RUN_END_ENCODED => match children.as_slice() {
                [r, v] => DataType::RunEndEncoded(
                    self.boxed_field(r.clone())?,
                    self.boxed_field(v.clone())?,
                ),
                _ => return Err(Error::InvalidChildCount),
            },
            _ => return Err(Error::UnsupportedType),
        };
        dt.validate()?;
        Ok(dt)
    }

    /// Decodes a `Schema` table: the schema and its endianness.
    pub(crate) fn schema(&mut self, t: &Table<'_>) -> Result<(Schema<'o, A>, Endianness)> {
        let endianness = match t.get_i16(0, 0)? {
            0 => Endianness::Little,
            1 => Endianness::Big,
            _ => return Err(Error::InvalidFlatbuffer),
        };
        let fields = match t.get_vector(1, 4)? {
            Some(v) => {
                if v.len() > self.limits.max_fields {
                    return Err(Error::LimitExceeded);
                }
                let alloc = self.alloc.clone();
                SharedSlice::try_from_fn_in(v.len(), alloc, |i| self.field(&v.get_table(i)?, 1))?
            }
            None => SharedSlice::empty(),
        };
        let metadata = self.metadata(t, 2)?;
        Ok((Schema::new(fields).with_metadata(metadata), endianness))
    }
}

/// Decodes a standalone `Schema` flatbuffer (its root table is a `Schema`).
///
/// # Errors
/// [`Error::InvalidFlatbuffer`], [`Error::UnsupportedType`],
/// [`Error::InvalidDataType`], [`Error::InvalidChildCount`],
/// [`Error::LimitExceeded`], [`Error::AllocationFailed`].
pub fn decode_schema<'o, A: Allocator + Clone + 'o>(
    flatbuffer: &[u8],
    alloc: A,
    limits: DecodeLimits,
) -> Result<(Schema<'o, A>, Endianness)> {
    let t = Table::root(flatbuffer)?;
    Decoder::new(alloc, limits).schema(&t)
}

#[cfg(test)]
#[path = "schema_tests.rs"]
pub(crate) mod tests;
