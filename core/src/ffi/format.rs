//! Format strings of the C Data Interface: every [`DataType`] to its
//! `ArrowSchema.format` string and back.
//!
//! Implements the "Data type description – format strings" tables of "The
//! Arrow C data interface". Writing goes into any [`core::fmt::Write`] and
//! allocates nothing; parsing reads the bytes before the NUL into a
//! [`Format`] that borrows them (no allocation either), and
//! [`build_data_type`] then makes the [`DataType`] from it and the already
//! imported children, copying the time zone into `A`.

use core::fmt::{self, Write};

use allocator_api2::alloc::Allocator;

use crate::buffer::{SharedBox, SharedSlice, SharedStr};
use crate::datatypes::{
    DataType, Fields, IndexType, IntervalUnit, TimeUnit, UnionFields, UnionMode,
};
use crate::error::{Error, Result};

/// The type ids of a union format string (`+ud:3,7`), at most 128 of them
/// (ids are `0..=127` and distinct), held without allocation.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct TypeIds {
    ids: [i8; 128],
    len: u8,
}

impl TypeIds {
    /// The ids, in the order of the format string (one per child).
    pub(crate) fn as_slice(&self) -> &[i8] {
        self.ids.get(..usize::from(self.len)).unwrap_or(&[])
    }
}

impl fmt::Debug for TypeIds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_slice(), f)
    }
}

/// A parsed format string: the type of one schema node without its
/// children, borrowing the format's bytes (the time zone).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format<'s> {
    /// `n`
    Null,
    /// `b`
    Boolean,
    /// `c`
    Int8,
    /// `s`
    Int16,
    /// `i`
    Int32,
    /// `l`
    Int64,
    /// `C`
    UInt8,
    /// `S`
    UInt16,
    /// `I`
    UInt32,
    /// `L`
    UInt64,
    /// `e`
    Float16,
    /// `f`
    Float32,
    /// `g`
    Float64,
    /// `d:P,S[,B]`: bit width (32, 64, 128, 256), precision, scale; checked
    /// against the width's maximum precision.
    Decimal(u16, u8, i8),
    /// `tdD`
    Date32,
    /// `tdm`
    Date64,
    /// `tts`, `ttm`
    Time32(TimeUnit),
    /// `ttu`, `ttn`
    Time64(TimeUnit),
    /// `ts?:TZ`; an empty time zone is `None`.
    Timestamp(TimeUnit, Option<&'s str>),
    /// `tD?`
    Duration(TimeUnit),
    /// `tiM`, `tiD`, `tin`
    Interval(IntervalUnit),
    /// `w:N`, N > 0 bytes.
    FixedSizeBinary(i32),
    /// `z`
    Binary,
    /// `Z`
    LargeBinary,
    /// `u`
    Utf8,
    /// `U`
    LargeUtf8,
    /// `vz`
    BinaryView,
    /// `vu`
    Utf8View,
    /// `+l`
    List,
    /// `+L`
    LargeList,
    /// `+vl`
    ListView,
    /// `+vL`
    LargeListView,
    /// `+w:N`, N >= 0 elements.
    FixedSizeList(i32),
    /// `+s`
    Struct,
    /// `+m`
    Map,
    /// `+ud:…`, `+us:…`
    Union(UnionMode, TypeIds),
    /// `+r`
    RunEndEncoded,
}

/// Largest decimal precision for a bit width (32, 64, 128, 256).
fn max_precision(bits: u16) -> Option<u8> {
    match bits {
        32 => Some(9),
        64 => Some(18),
        128 => Some(38),
        256 => Some(76),
        _ => None,
    }
}

/// A decimal integer: an optional `-` then at least one ASCII digit.
///
/// # Errors
/// [`Error::FfiFormatInvalid`] for anything else, [`Error::FfiFormatParameterOutOfRange`]
/// when it does not fit an `i64`.
fn parse_int(s: &[u8]) -> Result<i64> {
    let (negative, digits) = match s.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, s),
    };
    if digits.is_empty() {
        return Err(Error::FfiFormatInvalid);
    }
    let mut v: i64 = 0;
    for &d in digits {
        if !d.is_ascii_digit() {
            return Err(Error::FfiFormatInvalid);
        }
        let digit = i64::from(d - b'0');
        v = v
            .checked_mul(10)
            .and_then(|v| {
                if negative {
                    v.checked_sub(digit)
                } else {
                    v.checked_add(digit)
                }
            })
            .ok_or(Error::FfiFormatParameterOutOfRange)?;
    }
    Ok(v)
}

/// [`parse_int`] into `lo..=hi` (else [`Error::FfiFormatParameterOutOfRange`]).
fn parse_in<T: TryFrom<i64>>(s: &[u8], lo: i64, hi: i64) -> Result<T> {
    let v = parse_int(s)?;
    if v < lo || v > hi {
        return Err(Error::FfiFormatParameterOutOfRange);
    }
    T::try_from(v).map_err(|_| Error::FfiFormatParameterOutOfRange)
}

fn time_unit(letter: u8) -> Result<TimeUnit> {
    match letter {
        b's' => Ok(TimeUnit::Second),
        b'm' => Ok(TimeUnit::Millisecond),
        b'u' => Ok(TimeUnit::Microsecond),
        b'n' => Ok(TimeUnit::Nanosecond),
        _ => Err(Error::FfiFormatInvalid),
    }
}

fn unit_letter(u: TimeUnit) -> char {
    match u {
        TimeUnit::Second => 's',
        TimeUnit::Millisecond => 'm',
        TimeUnit::Microsecond => 'u',
        TimeUnit::Nanosecond => 'n',
    }
}

/// `d:P,S` (128-bit) or `d:P,S,B`.
fn parse_decimal(rest: &[u8]) -> Result<Format<'_>> {
    let mut parts = rest.splitn(3, |&b| b == b',');
    let (Some(p), Some(s)) = (parts.next(), parts.next()) else {
        return Err(Error::FfiFormatInvalid);
    };
    let bits = match parts.next() {
        Some(b) => parse_in::<u16>(b, 0, i64::from(u16::MAX))?,
        None => 128,
    };
    let max = max_precision(bits).ok_or(Error::FfiFormatParameterOutOfRange)?;
    let precision = parse_in::<u8>(p, 1, i64::from(max))?;
    let scale = parse_in::<i8>(s, i64::from(i8::MIN), i64::from(i8::MAX))?;
    Ok(Format::Decimal(bits, precision, scale))
}

/// The comma-separated ids of `+ud:`/`+us:` (empty: a union of no children).
fn parse_type_ids(rest: &[u8]) -> Result<TypeIds> {
    let mut ids = TypeIds {
        ids: [0; 128],
        len: 0,
    };
    if rest.is_empty() {
        return Ok(ids);
    }
    let mut seen = [false; 128];
    for part in rest.split(|&b| b == b',') {
        let id = parse_int(part)?;
        let slot = usize::try_from(id)
            .ok()
            .and_then(|i| seen.get_mut(i))
            .ok_or(Error::FfiUnionTypeIdsInvalid)?;
        if core::mem::replace(slot, true) {
            return Err(Error::FfiUnionTypeIdsInvalid);
        }
        // At most 128 distinct ids in 0..=127 get here, so `len < 128`.
        let at = ids
            .ids
            .get_mut(usize::from(ids.len))
            .ok_or(Error::FfiUnionTypeIdsInvalid)?;
        *at = i8::try_from(id).map_err(|_| Error::FfiUnionTypeIdsInvalid)?;
        ids.len += 1;
    }
    Ok(ids)
}

impl<'s> Format<'s> {
    /// Parses the bytes of a format string (without its NUL).
    ///
    /// # Errors
    /// [`Error::FfiFormatInvalid`], [`Error::FfiFormatParameterOutOfRange`],
    /// [`Error::FfiUnionTypeIdsInvalid`], [`Error::FfiTimezoneNotUtf8`].
    pub(crate) fn parse(f: &'s [u8]) -> Result<Self> {
        use Format::*;
        Ok(match f {
            b"n" => Null,
            b"b" => Boolean,
            b"c" => Int8,
            b"C" => UInt8,
            b"s" => Int16,
            b"S" => UInt16,
            b"i" => Int32,
            b"I" => UInt32,
            b"l" => Int64,
            b"L" => UInt64,
            b"e" => Float16,
            b"f" => Float32,
            b"g" => Float64,
            b"z" => Binary,
            b"Z" => LargeBinary,
            b"u" => Utf8,
            b"U" => LargeUtf8,
            b"vz" => BinaryView,
            b"vu" => Utf8View,
            b"tdD" => Date32,
            b"tdm" => Date64,
            b"tts" => Time32(TimeUnit::Second),
            b"ttm" => Time32(TimeUnit::Millisecond),
            b"ttu" => Time64(TimeUnit::Microsecond),
            b"ttn" => Time64(TimeUnit::Nanosecond),
            b"tiM" => Interval(IntervalUnit::YearMonth),
            b"tiD" => Interval(IntervalUnit::DayTime),
            b"tin" => Interval(IntervalUnit::MonthDayNano),
            b"+l" => List,
            b"+L" => LargeList,
            b"+vl" => ListView,
            b"+vL" => LargeListView,
            b"+s" => Struct,
            b"+m" => Map,
            b"+r" => RunEndEncoded,
            [b't', b'D', u] => Duration(time_unit(*u)?),
            [b't', b's', u, b':', tz @ ..] => {
                let unit = time_unit(*u)?;
                let tz = core::str::from_utf8(tz).map_err(|_| Error::FfiTimezoneNotUtf8)?;
                Timestamp(unit, (!tz.is_empty()).then_some(tz))
            }
            [b'w', b':', n @ ..] => FixedSizeBinary(parse_in(n, 1, i64::from(i32::MAX))?),
            [b'+', b'w', b':', n @ ..] => FixedSizeList(parse_in(n, 0, i64::from(i32::MAX))?),
            [b'd', b':', rest @ ..] => return parse_decimal(rest),
            [b'+', b'u', b'd', b':', ids @ ..] => Union(UnionMode::Dense, parse_type_ids(ids)?),
            [b'+', b'u', b's', b':', ids @ ..] => Union(UnionMode::Sparse, parse_type_ids(ids)?),
            _ => return Err(Error::FfiFormatInvalid),
        })
    }

    /// Number of children the format needs, `None` for a struct (any number).
    pub(crate) fn child_count(&self) -> Option<usize> {
        use Format::*;
        Some(match self {
            List | LargeList | ListView | LargeListView | FixedSizeList(_) | Map => 1,
            RunEndEncoded => 2,
            Union(_, ids) => ids.as_slice().len(),
            Struct => return None,
            _ => 0,
        })
    }

    /// The dictionary index type this format names, if it is an integer.
    pub(crate) fn index_type(&self) -> Option<IndexType> {
        use Format::*;
        Some(match self {
            Int8 => IndexType::Int8,
            Int16 => IndexType::Int16,
            Int32 => IndexType::Int32,
            Int64 => IndexType::Int64,
            UInt8 => IndexType::UInt8,
            UInt16 => IndexType::UInt16,
            UInt32 => IndexType::UInt32,
            UInt64 => IndexType::UInt64,
            _ => return None,
        })
    }
}

/// The only child of a one-child format, shared in a new box from `alloc`.
fn only_child<A: Allocator + Clone>(
    children: &Fields<'static, A>,
    alloc: &A,
) -> Result<SharedBox<'static, crate::datatypes::Field<'static, A>, A>> {
    let f = children.first().ok_or(Error::FfiChildCountMismatch)?;
    SharedBox::try_new_in(f.clone(), alloc.clone())
}

/// Builds the [`DataType`] of a node from its parsed format and its
/// imported children (in order), copying the time zone and union type ids
/// into `alloc`. `map_keys_sorted` is the node's `ARROW_FLAG_MAP_KEYS_SORTED`.
///
/// A dictionary-encoded node is not built here: its format is the index
/// type ([`Format::index_type`]), its value type comes from the dictionary node.
///
/// # Errors
/// [`Error::FfiChildCountMismatch`] when `children` do not have the count
/// [`Format::child_count`] requires; [`Error::MapEntriesInvalid`] when a
/// map's child is not a non-nullable struct of two fields and
/// [`Error::MapKeyNull`] when its keys are nullable;
/// [`Error::FfiRunEndsInvalid`] when a run-end encoded node's first child is
/// not a non-nullable Int16/Int32/Int64; [`Error::AllocationFailed`].
pub(crate) fn build_data_type<A: Allocator + Clone>(
    format: &Format<'_>,
    children: Fields<'static, A>,
    map_keys_sorted: bool,
    alloc: &A,
) -> Result<DataType<'static, A>> {
    if let Some(n) = format.child_count() {
        if children.len() != n {
            return Err(Error::FfiChildCountMismatch);
        }
    }
    use DataType as D;
    Ok(match *format {
        Format::Null => D::Null,
        Format::Boolean => D::Boolean,
        Format::Int8 => D::Int8,
        Format::Int16 => D::Int16,
        Format::Int32 => D::Int32,
        Format::Int64 => D::Int64,
        Format::UInt8 => D::UInt8,
        Format::UInt16 => D::UInt16,
        Format::UInt32 => D::UInt32,
        Format::UInt64 => D::UInt64,
        Format::Float16 => D::Float16,
        Format::Float32 => D::Float32,
        Format::Float64 => D::Float64,
        Format::Decimal(bits, p, s) => match bits {
            32 => D::Decimal32(p, s),
            64 => D::Decimal64(p, s),
            128 => D::Decimal128(p, s),
            256 => D::Decimal256(p, s),
            _ => return Err(Error::FfiFormatParameterOutOfRange),
        },
        Format::Date32 => D::Date32,
        Format::Date64 => D::Date64,
        Format::Time32(u) => D::Time32(u),
        Format::Time64(u) => D::Time64(u),
        Format::Timestamp(u, tz) => D::Timestamp(
            u,
            match tz {
                Some(tz) => Some(SharedStr::try_from_str_in(tz, alloc.clone())?),
                None => None,
            },
        ),
        Format::Duration(u) => D::Duration(u),
        Format::Interval(u) => D::Interval(u),
        Format::FixedSizeBinary(n) => D::FixedSizeBinary(n),
        Format::Binary => D::Binary,
        Format::LargeBinary => D::LargeBinary,
        Format::Utf8 => D::Utf8,
        Format::LargeUtf8 => D::LargeUtf8,
        Format::BinaryView => D::BinaryView,
        Format::Utf8View => D::Utf8View,
        Format::List => D::List(only_child(&children, alloc)?),
        Format::LargeList => D::LargeList(only_child(&children, alloc)?),
        Format::ListView => D::ListView(only_child(&children, alloc)?),
        Format::LargeListView => D::LargeListView(only_child(&children, alloc)?),
        Format::FixedSizeList(n) => D::FixedSizeList(only_child(&children, alloc)?, n),
        Format::Struct => D::Struct(children),
        Format::Map => {
            let entries = only_child(&children, alloc)?;
            let D::Struct(kv) = entries.data_type() else {
                return Err(Error::MapEntriesInvalid);
            };
            if kv.len() != 2 || entries.is_nullable() {
                return Err(Error::MapEntriesInvalid);
            }
            if kv.first().is_none_or(|k| k.is_nullable()) {
                return Err(Error::MapKeyNull);
            }
            D::Map(entries, map_keys_sorted)
        }
        Format::Union(mode, ids) => {
            let ids = SharedSlice::try_from_slice_in(ids.as_slice(), alloc.clone())?;
            // The ids were checked distinct and in 0..=127 when parsed, and
            // their count against the children above.
            let fields =
                UnionFields::try_new(ids, children).map_err(|_| Error::FfiUnionTypeIdsInvalid)?;
            D::Union(fields, mode)
        }
        Format::RunEndEncoded => {
            let (Some(run_ends), Some(values)) = (children.first(), children.get(1)) else {
                return Err(Error::FfiChildCountMismatch);
            };
            if run_ends.is_nullable()
                || !matches!(run_ends.data_type(), D::Int16 | D::Int32 | D::Int64)
            {
                return Err(Error::FfiRunEndsInvalid);
            }
            D::RunEndEncoded(
                SharedBox::try_new_in(run_ends.clone(), alloc.clone())?,
                SharedBox::try_new_in(values.clone(), alloc.clone())?,
            )
        }
    })
}

/// Format letter of a dictionary index type.
fn index_format(t: IndexType) -> &'static str {
    match t {
        IndexType::Int8 => "c",
        IndexType::Int16 => "s",
        IndexType::Int32 => "i",
        IndexType::Int64 => "l",
        IndexType::UInt8 => "C",
        IndexType::UInt16 => "S",
        IndexType::UInt32 => "I",
        IndexType::UInt64 => "L",
    }
}

/// Writes the format string of `dt` (without NUL) into `w`; for a
/// dictionary-encoded type, the format of its index type (the value type is
/// the dictionary node's). Allocates nothing.
///
/// A `Timestamp` without time zone, or with an empty one, is written with an
/// empty time zone (`tsu:`), which reads back as `None`; a 128-bit decimal is
/// written without bit width (`d:P,S`).
///
/// # Errors
/// [`Error::InvalidDataType`] for a Time32 in µs or ns, a Time64 in s or ms,
/// a decimal precision out of range, a negative fixed list size;
/// [`Error::FfiFormatParameterOutOfRange`] for a fixed binary width not
/// above 0 (the interface's `w:N` needs N > 0); [`Error::FfiStringHasNul`]
/// for a time zone with a NUL byte; [`Error::AllocationFailed`] when `w`
/// fails (the writers of this module fail only when out of memory).
pub(crate) fn write_format<A: Allocator, W: Write>(dt: &DataType<'_, A>, w: &mut W) -> Result<()> {
    write_format_inner(dt, w)?.map_err(|_| Error::AllocationFailed)
}

fn write_format_inner<A: Allocator, W: Write>(
    dt: &DataType<'_, A>,
    w: &mut W,
) -> Result<fmt::Result> {
    use DataType as D;
    let s = match dt {
        D::Null => "n",
        D::Boolean => "b",
        D::Int8 => "c",
        D::Int16 => "s",
        D::Int32 => "i",
        D::Int64 => "l",
        D::UInt8 => "C",
        D::UInt16 => "S",
        D::UInt32 => "I",
        D::UInt64 => "L",
        D::Float16 => "e",
        D::Float32 => "f",
        D::Float64 => "g",
        D::Binary => "z",
        D::LargeBinary => "Z",
        D::Utf8 => "u",
        D::LargeUtf8 => "U",
        D::BinaryView => "vz",
        D::Utf8View => "vu",
        D::Date32 => "tdD",
        D::Date64 => "tdm",
        D::Time32(TimeUnit::Second) => "tts",
        D::Time32(TimeUnit::Millisecond) => "ttm",
        D::Time64(TimeUnit::Microsecond) => "ttu",
        D::Time64(TimeUnit::Nanosecond) => "ttn",
        D::Time32(_) | D::Time64(_) => return Err(Error::InvalidDataType),
        D::Interval(IntervalUnit::YearMonth) => "tiM",
        D::Interval(IntervalUnit::DayTime) => "tiD",
        D::Interval(IntervalUnit::MonthDayNano) => "tin",
        D::List(_) => "+l",
        D::LargeList(_) => "+L",
        D::ListView(_) => "+vl",
        D::LargeListView(_) => "+vL",
        D::Struct(_) => "+s",
        D::Map(..) => "+m",
        D::RunEndEncoded(..) => "+r",
        D::Dictionary(index, ..) => index_format(*index),
        D::Duration(u) => return Ok(write!(w, "tD{}", unit_letter(*u))),
        D::Timestamp(u, tz) => {
            let tz = tz.as_ref().map_or("", |t| t.as_str());
            if tz.as_bytes().contains(&0) {
                return Err(Error::FfiStringHasNul);
            }
            return Ok(write!(w, "ts{}:{}", unit_letter(*u), tz));
        }
        D::FixedSizeBinary(n) => {
            if *n <= 0 {
                return Err(Error::FfiFormatParameterOutOfRange);
            }
            return Ok(write!(w, "w:{n}"));
        }
        D::FixedSizeList(_, n) => {
            if *n < 0 {
                return Err(Error::InvalidDataType);
            }
            return Ok(write!(w, "+w:{n}"));
        }
        D::Decimal32(p, s) | D::Decimal64(p, s) | D::Decimal128(p, s) | D::Decimal256(p, s) => {
            let bits: u16 = match dt {
                D::Decimal32(..) => 32,
                D::Decimal64(..) => 64,
                D::Decimal128(..) => 128,
                _ => 256,
            };
            if !(1..=max_precision(bits).unwrap_or(0)).contains(p) {
                return Err(Error::InvalidDataType);
            }
            return Ok(if bits == 128 {
                write!(w, "d:{p},{s}")
            } else {
                write!(w, "d:{p},{s},{bits}")
            });
        }
        D::Union(fields, mode) => {
            let prefix = match mode {
                UnionMode::Dense => "+ud:",
                UnionMode::Sparse => "+us:",
            };
            let mut r = w.write_str(prefix);
            for (i, id) in fields.type_ids().iter().enumerate() {
                let sep = if i == 0 { "" } else { "," };
                r = r.and_then(|_| write!(w, "{sep}{id}"));
            }
            return Ok(r);
        }
    };
    Ok(w.write_str(s))
}

/// A [`Write`] that only counts the bytes written.
#[derive(Debug, Default)]
pub(crate) struct Counter(pub(crate) usize);

impl Write for Counter {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0 = self.0.checked_add(s.len()).ok_or(fmt::Error)?;
        Ok(())
    }
}
