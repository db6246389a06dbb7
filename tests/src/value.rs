//! A logical value of one array slot, independent of the physical layout.
//!
//! Both sides of a golden comparison are turned into [`Value`]s: the arrays
//! our readers return ([`crate::compare`]) and the slots of the integration
//! JSON ([`crate::json`]). Offsets, views, slicing, run-end encoding and
//! buffer sharing are looked through; what remains is what a user sees.

use std::fmt::{self, Write as _};

/// The value of one slot.
#[derive(Clone, PartialEq)]
pub enum Value {
    /// A null slot (or a slot of the Null type).
    Null,
    /// Boolean.
    Bool(bool),
    /// Every integer type up to 64 bits, decimals up to 128 bits, dates,
    /// times, timestamps, durations and `Interval(YearMonth)`.
    Int(i128),
    /// Decimal256, as 32 little-endian two's complement bytes.
    I256([u8; 32]),
    /// Float16, as its bits.
    F16(u16),
    /// Float32 (compared by bits, all NaNs equal).
    F32(f32),
    /// Float64 (compared by bits, all NaNs equal).
    F64(f64),
    /// `Interval(DayTime)`: days, milliseconds.
    DayTime(i32, i32),
    /// `Interval(MonthDayNano)`: months, days, nanoseconds.
    MonthDayNano(i32, i32, i64),
    /// Binary, LargeBinary, BinaryView, FixedSizeBinary.
    Bytes(Vec<u8>),
    /// Utf8, LargeUtf8, Utf8View.
    Str(String),
    /// The elements of a list, large list, list view, fixed-size list or map
    /// (whose elements are `Struct([key, value])`).
    List(Vec<Value>),
    /// The children's values of a struct slot, in field order.
    Struct(Vec<Value>),
    /// A union slot: its type id and the selected child's value.
    Union(i8, Box<Value>),
    /// A dictionary-encoded slot: its key (index) and the value it selects.
    Dict(u64, Box<Value>),
}

fn float_eq32(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

fn float_eq64(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

/// Where two values first differ: a path (`[i]` for list elements, `.i` for
/// struct children, `<id>` for a union's child, `{k}` for a dictionary value)
/// and the two leaf values; `None` when equal.
pub fn diff(ours: &Value, theirs: &Value) -> Option<String> {
    let mut path = String::new();
    if diff_at(ours, theirs, &mut path) {
        None
    } else {
        Some(path)
    }
}

/// `true` when equal; otherwise appends to `path` where they differ and the
/// two values there.
fn diff_at(a: &Value, b: &Value, path: &mut String) -> bool {
    use Value::*;
    let leaf_eq = match (a, b) {
        (F32(x), F32(y)) => float_eq32(*x, *y),
        (F64(x), F64(y)) => float_eq64(*x, *y),
        (List(x), List(y)) | (Struct(x), Struct(y)) => {
            if x.len() != y.len() {
                let _ = write!(
                    path,
                    " length {} vs {} (ours {} vs json {})",
                    x.len(),
                    y.len(),
                    short(a),
                    short(b)
                );
                return false;
            }
            let list = matches!(a, List(_));
            for (i, (u, v)) in x.iter().zip(y).enumerate() {
                let mark = path.len();
                if list {
                    let _ = write!(path, "[{i}]");
                } else {
                    let _ = write!(path, ".{i}");
                }
                if !diff_at(u, v, path) {
                    return false;
                }
                path.truncate(mark);
            }
            return true;
        }
        (Union(i, x), Union(j, y)) if i == j => {
            let mark = path.len();
            let _ = write!(path, "<{i}>");
            if !diff_at(x, y, path) {
                return false;
            }
            path.truncate(mark);
            return true;
        }
        (Dict(i, x), Dict(j, y)) if i == j => {
            let mark = path.len();
            let _ = write!(path, "{{{i}}}");
            if !diff_at(x, y, path) {
                return false;
            }
            path.truncate(mark);
            return true;
        }
        _ => a == b,
    };
    if !leaf_eq {
        let _ = write!(path, " ours {} vs json {}", short(a), short(b));
    }
    leaf_eq
}

/// `Debug` of a value cut to 160 characters.
pub fn short(v: &Value) -> String {
    let mut s = format!("{v:?}");
    if s.len() > 160 {
        let mut cut = 160;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
        s.push('…');
    }
    s
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02X}")).collect()
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use Value::*;
        match self {
            Null => f.write_str("null"),
            Bool(b) => write!(f, "{b}"),
            Int(i) => write!(f, "{i}"),
            I256(b) => {
                let mut be = *b;
                be.reverse();
                write!(f, "i256:0x{}", hex(&be))
            }
            F16(bits) => write!(f, "f16:{}", alkaid::native::f16::from_bits(*bits)),
            F32(x) => write!(f, "{x:?}f32"),
            F64(x) => write!(f, "{x:?}"),
            DayTime(d, m) => write!(f, "{{days:{d},ms:{m}}}"),
            MonthDayNano(m, d, n) => write!(f, "{{months:{m},days:{d},ns:{n}}}"),
            Bytes(b) => write!(f, "0x{}", hex(b)),
            Str(s) => write!(f, "{s:?}"),
            List(v) => f.debug_list().entries(v).finish(),
            Struct(v) => {
                f.write_str("{")?;
                for (i, x) in v.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{x:?}")?;
                }
                f.write_str("}")
            }
            Union(id, v) => write!(f, "<{id}>{v:?}"),
            Dict(k, v) => write!(f, "#{k}={v:?}"),
        }
    }
}

/// Parses a decimal integer string into 32 little-endian two's complement
/// bytes; `None` when malformed or out of the `i256` range.
pub fn parse_i256(s: &str) -> Option<[u8; 32]> {
    let (neg, digits) = match s.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    if digits.is_empty() {
        return None;
    }
    // Magnitude in four little-endian u64 limbs.
    let mut limbs = [0u64; 4];
    for c in digits.bytes() {
        let d = u64::from(c.checked_sub(b'0').filter(|d| *d < 10)?);
        let mut carry = u128::from(d);
        for l in limbs.iter_mut() {
            let v = u128::from(*l) * 10 + carry;
            *l = v as u64;
            carry = v >> 64;
        }
        if carry != 0 {
            return None;
        }
    }
    let top_bit = limbs[3] >> 63 == 1;
    let is_min = limbs == [0, 0, 0, 1 << 63];
    if top_bit && !(neg && is_min) {
        return None;
    }
    if neg {
        // Two's complement: invert and add one.
        let mut carry = 1u128;
        for l in limbs.iter_mut() {
            let v = u128::from(!*l) + carry;
            *l = v as u64;
            carry = v >> 64;
        }
    }
    let mut out = [0u8; 32];
    for (i, l) in limbs.iter().enumerate() {
        out[i * 8..i * 8 + 8].copy_from_slice(&l.to_le_bytes());
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_i256_matches_i128_for_small_values() {
        for v in [0i128, 1, -1, 42, -42, i128::MAX, i128::MIN, 10i128.pow(30)] {
            let mut want = [0u8; 32];
            want[..16].copy_from_slice(&v.to_le_bytes());
            let fill = if v < 0 { 0xFF } else { 0 };
            want[16..].fill(fill);
            assert_eq!(parse_i256(&v.to_string()), Some(want), "{v}");
        }
        assert_eq!(parse_i256("-"), None);
        assert_eq!(parse_i256("1x"), None);
        // 2^255 does not fit; -2^255 does.
        let two_255 =
            "57896044618658097711785492504343953926634992332820282019728792003956564819968";
        assert_eq!(parse_i256(two_255), None);
        let min = parse_i256(&format!("-{two_255}")).unwrap();
        assert_eq!(min[31], 0x80);
        assert!(min[..31].iter().all(|b| *b == 0));
    }

    #[test]
    fn diff_points_at_the_first_difference() {
        use Value::*;
        let a = List(vec![Int(1), Struct(vec![Str("x".into()), Null])]);
        let b = List(vec![Int(1), Struct(vec![Str("x".into()), Int(3)])]);
        let d = diff(&a, &b).unwrap();
        assert!(d.starts_with("[1].1 ours null vs json 3"), "{d}");
        assert_eq!(diff(&a, &a), None);
        assert_eq!(diff(&F64(f64::NAN), &F64(-f64::NAN)), None);
        assert!(diff(&F32(0.0), &F32(-0.0)).is_some());
    }
}
