//! The JSON of `ARROW:extension:metadata`: a strict syntax check, parsing
//! through `serde-json-core` (no allocation), and a small writer.
//!
//! Metadata is untrusted input. Before `serde-json-core` sees it, the text is
//! checked against the JSON grammar (RFC 8259) without recursion, and nesting
//! deeper than [`MAX_JSON_DEPTH`] is refused, so that skipping unknown keys
//! can neither recurse without bound nor accept malformed JSON. Arrays are
//! parsed into [`Bounded`] (fixed capacity, no allocation); strings stay
//! escaped in the input until [`unescape_in`] copies them through `A`.

#[cfg(feature = "nested")]
use core::fmt;
#[cfg(feature = "nested")]
use core::marker::PhantomData;

use allocator_api2::alloc::Allocator;
use serde::de::{Deserialize, Deserializer};
#[cfg(feature = "nested")]
use serde::de::{Error as _, SeqAccess, Visitor};
use serde_json_core::str::{EscapedStr, EscapedStringFragment};

use crate::buffer::{MutableBuffer, SharedStr};
use crate::error::{Error, Result};

/// Deepest nesting of arrays and objects accepted in extension metadata
/// (the canonical types need 2; unknown keys may nest up to this depth).
pub const MAX_JSON_DEPTH: usize = 32;

const BAD: Error = Error::InvalidExtensionMetadata;

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// Index of the first non-whitespace byte at or after `p`.
fn skip_ws(s: &[u8], mut p: usize) -> usize {
    while s.get(p).copied().is_some_and(is_ws) {
        p += 1;
    }
    p
}

/// `p` is just after an opening quote; returns the index after the closing one.
fn string_end(s: &[u8], mut p: usize) -> Result<usize> {
    loop {
        match *s.get(p).ok_or(BAD)? {
            b'"' => return Ok(p + 1),
            b'\\' => match *s.get(p + 1).ok_or(BAD)? {
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => p += 2,
                b'u' => {
                    let hex = s.get(p + 2..p + 6).ok_or(BAD)?;
                    if !hex.iter().all(u8::is_ascii_hexdigit) {
                        return Err(BAD);
                    }
                    p += 6;
                }
                _ => return Err(BAD),
            },
            c if c < 0x20 => return Err(BAD),
            _ => p += 1,
        }
    }
}

/// Index after the digits starting at `p` (at least one required).
fn digits_end(s: &[u8], p: usize) -> Result<usize> {
    let mut q = p;
    while s.get(q).is_some_and(u8::is_ascii_digit) {
        q += 1;
    }
    if q == p {
        Err(BAD)
    } else {
        Ok(q)
    }
}

/// `p` is at the first byte of a number; returns the index after it.
fn number_end(s: &[u8], mut p: usize) -> Result<usize> {
    if s.get(p) == Some(&b'-') {
        p += 1;
    }
    p = match s.get(p) {
        Some(b'0') => p + 1,
        Some(b'1'..=b'9') => digits_end(s, p)?,
        _ => return Err(BAD),
    };
    if s.get(p) == Some(&b'.') {
        p = digits_end(s, p + 1)?;
    }
    if matches!(s.get(p), Some(b'e' | b'E')) {
        p += 1;
        if matches!(s.get(p), Some(b'+' | b'-')) {
            p += 1;
        }
        p = digits_end(s, p)?;
    }
    Ok(p)
}

/// Checks that `s` is exactly one JSON value (surrounded by optional
/// whitespace) nested at most [`MAX_JSON_DEPTH`] deep. No recursion, no
/// allocation.
///
/// # Errors
/// [`Error::InvalidExtensionMetadata`] for anything else.
pub(crate) fn check_syntax(s: &[u8]) -> Result<()> {
    #[derive(Clone, Copy, PartialEq)]
    enum Want {
        /// A value.
        Value,
        /// A value or `]` (just after `[`).
        ValueOrClose,
        /// An object key (after `,` in an object).
        Key,
        /// `,`, the closing bracket of the innermost container, or the end.
        After,
    }
    // Bit `d` of `objects` is set when the container at depth `d + 1` is an object.
    let mut objects: u64 = 0;
    let mut depth = 0usize;
    let mut p = skip_ws(s, 0);
    let mut want = Want::Value;
    let open = |depth: &mut usize, objects: &mut u64, is_object: bool| -> Result<()> {
        if *depth >= MAX_JSON_DEPTH {
            return Err(BAD);
        }
        if is_object {
            *objects |= 1 << *depth;
        } else {
            *objects &= !(1 << *depth);
        }
        *depth += 1;
        Ok(())
    };
    loop {
        p = skip_ws(s, p);
        match want {
            Want::Value | Want::ValueOrClose => {
                let c = *s.get(p).ok_or(BAD)?;
                if want == Want::ValueOrClose && c == b']' {
                    depth -= 1;
                    p += 1;
                    want = Want::After;
                    continue;
                }
                want = Want::After;
                p = match c {
                    b'{' => {
                        open(&mut depth, &mut objects, true)?;
                        let q = skip_ws(s, p + 1);
                        if s.get(q) == Some(&b'}') {
                            depth -= 1;
                            q + 1
                        } else {
                            want = Want::Key;
                            q
                        }
                    }
                    b'[' => {
                        open(&mut depth, &mut objects, false)?;
                        want = Want::ValueOrClose;
                        p + 1
                    }
                    b'"' => string_end(s, p + 1)?,
                    b't' | b'f' | b'n' => {
                        let lit: &[u8] = match c {
                            b't' => b"true",
                            b'f' => b"false",
                            _ => b"null",
                        };
                        if s.get(p..p + lit.len()) != Some(lit) {
                            return Err(BAD);
                        }
                        p + lit.len()
                    }
                    b'-' | b'0'..=b'9' => number_end(s, p)?,
                    _ => return Err(BAD),
                };
            }
            Want::Key => {
                if s.get(p) != Some(&b'"') {
                    return Err(BAD);
                }
                p = skip_ws(s, string_end(s, p + 1)?);
                if s.get(p) != Some(&b':') {
                    return Err(BAD);
                }
                p += 1;
                want = Want::Value;
            }
            Want::After => {
                if depth == 0 {
                    return if p == s.len() { Ok(()) } else { Err(BAD) };
                }
                let in_object = objects & (1 << (depth - 1)) != 0;
                match (s.get(p), in_object) {
                    (Some(b','), true) => want = Want::Key,
                    (Some(b','), false) => want = Want::Value,
                    (Some(b'}'), true) | (Some(b']'), false) => depth -= 1,
                    _ => return Err(BAD),
                }
                p += 1;
            }
        }
    }
}

/// Parses `s` as a `T` after [`check_syntax`]; unknown object keys are
/// skipped, duplicate known keys refused.
///
/// # Errors
/// [`Error::InvalidExtensionMetadata`].
pub(crate) fn from_json<'de, T: Deserialize<'de>>(s: &'de str) -> Result<T> {
    check_syntax(s.as_bytes())?;
    serde_json_core::from_str::<T>(s)
        .map(|(v, _)| v)
        .map_err(|_| BAD)
}

/// `true` when `metadata` is absent, empty, or a JSON object (whatever its
/// keys): the metadata of types without parameters that reserve the JSON
/// object for future keys.
pub(crate) fn is_empty_or_object(metadata: Option<&str>) -> bool {
    match metadata {
        None => true,
        Some(s) if s.bytes().all(is_ws) => true,
        Some(s) => {
            check_syntax(s.as_bytes()).is_ok()
                && s.as_bytes().get(skip_ws(s.as_bytes(), 0)) == Some(&b'{')
        }
    }
}

/// A JSON array of at most `N` items, parsed without allocation.
#[derive(Clone, Copy)]
#[cfg(feature = "nested")]
pub(crate) struct Bounded<T, const N: usize> {
    len: usize,
    items: [T; N],
}

#[cfg(feature = "nested")]
impl<T, const N: usize> Bounded<T, N> {
    /// The items parsed, in order.
    pub(crate) fn as_slice(&self) -> &[T] {
        self.items.get(..self.len).unwrap_or(&[])
    }
}

#[cfg(feature = "nested")]
impl<'de, T: Deserialize<'de> + Copy + Default, const N: usize> Deserialize<'de> for Bounded<T, N> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> core::result::Result<Self, D::Error> {
        struct V<T, const N: usize>(PhantomData<T>);
        impl<'de, T: Deserialize<'de> + Copy + Default, const N: usize> Visitor<'de> for V<T, N> {
            type Value = Bounded<T, N>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "an array of at most {N} items")
            }
            fn visit_seq<S: SeqAccess<'de>>(
                self,
                mut seq: S,
            ) -> core::result::Result<Self::Value, S::Error> {
                let mut out = Bounded {
                    len: 0,
                    items: [T::default(); N],
                };
                while let Some(x) = seq.next_element::<T>()? {
                    let slot = out
                        .items
                        .get_mut(out.len)
                        .ok_or_else(|| S::Error::invalid_length(N + 1, &self))?;
                    *slot = x;
                    out.len += 1;
                }
                Ok(out)
            }
        }
        d.deserialize_seq(V::<T, N>(PhantomData))
    }
}

/// A JSON string as it appears in the input (escapes not yet decoded).
#[derive(Clone, Copy, Default, Debug, PartialEq)]
pub(crate) struct JsonStr<'a>(pub(crate) &'a str);

impl<'de: 's, 's> Deserialize<'de> for JsonStr<'s> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> core::result::Result<Self, D::Error> {
        EscapedStr::deserialize(d).map(|e| JsonStr(e.0))
    }
}

/// Decodes the escapes of `s` into a new string from `alloc`.
///
/// # Errors
/// [`Error::InvalidExtensionMetadata`] for an escape that is not a Unicode
/// scalar value (e.g. a lone or paired UTF-16 surrogate); allocation errors.
pub(crate) fn unescape_in<'a, A: Allocator + Clone>(
    s: JsonStr<'_>,
    alloc: A,
) -> Result<SharedStr<'a, A>> {
    if !s.0.contains('\\') {
        return SharedStr::try_from_str_in(s.0, alloc);
    }
    let mut buf = MutableBuffer::new_in(alloc.clone());
    for fragment in EscapedStr(s.0).fragments() {
        match fragment.map_err(|_| BAD)? {
            EscapedStringFragment::NotEscaped(t) => buf.try_extend_from_slice(t.as_bytes())?,
            EscapedStringFragment::Escaped(c) => {
                let mut b = [0u8; 4];
                buf.try_extend_from_slice(c.encode_utf8(&mut b).as_bytes())?;
            }
        }
    }
    let text = core::str::from_utf8(buf.as_slice()).map_err(|_| BAD)?;
    SharedStr::try_from_str_in(text, alloc)
}

/// Where [`crate::extension::ExtensionType::write_metadata`] writes its bytes.
pub trait MetadataSink {
    /// Appends `bytes`.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`] or [`Error::ScratchTooSmall`] when the
    /// bytes do not fit.
    fn try_write(&mut self, bytes: &[u8]) -> Result<()>;
}

impl<A: Allocator> MetadataSink for MutableBuffer<A> {
    fn try_write(&mut self, bytes: &[u8]) -> Result<()> {
        self.try_extend_from_slice(bytes)
    }
}

/// A [`MetadataSink`] over a caller buffer (e.g. on the stack of a firmware
/// that borrows the metadata string into a `static`-free field).
///
/// ```
/// use alkaid::buffer::SharedSlice;
/// use alkaid::extension::{ExtensionType, FixedShapeTensorType, SliceSink};
/// use alkaid::NoAlloc;
///
/// static SHAPE: [usize; 2] = [3, 4];
/// let ty = FixedShapeTensorType::<NoAlloc>::try_new(SharedSlice::borrowed(&SHAPE), None, None)?;
/// let mut buf = [0u8; 64];
/// let mut sink = SliceSink::new(&mut buf);
/// ty.write_metadata(&mut sink)?; // no allocation
/// assert_eq!(sink.as_str(), Some(r#"{"shape":[3,4]}"#));
///
/// let mut tiny = [0u8; 4];
/// assert!(ty.write_metadata(&mut SliceSink::new(&mut tiny)).is_err()); // Error::ScratchTooSmall
/// # Ok::<(), alkaid::Error>(())
/// ```
#[derive(Debug)]
pub struct SliceSink<'b> {
    buf: &'b mut [u8],
    len: usize,
}

impl<'b> SliceSink<'b> {
    /// An empty sink writing into `buf` from its start.
    pub fn new(buf: &'b mut [u8]) -> Self {
        SliceSink { buf, len: 0 }
    }

    /// The bytes written so far.
    pub fn as_bytes(&self) -> &[u8] {
        self.buf.get(..self.len).unwrap_or(&[])
    }

    /// The bytes written so far as text (`None` if not UTF-8, which the
    /// extension types of this crate never produce).
    pub fn as_str(&self) -> Option<&str> {
        core::str::from_utf8(self.as_bytes()).ok()
    }
}

impl MetadataSink for SliceSink<'_> {
    fn try_write(&mut self, bytes: &[u8]) -> Result<()> {
        let end = self
            .len
            .checked_add(bytes.len())
            .ok_or(Error::ScratchTooSmall)?;
        self.buf
            .get_mut(self.len..end)
            .ok_or(Error::ScratchTooSmall)?
            .copy_from_slice(bytes);
        self.len = end;
        Ok(())
    }
}

/// Writes `s` as a quoted JSON string: `"` and `\` escaped, control
/// characters as `\n`, `\t`… or `\u00XX`, everything else as UTF-8.
pub(crate) fn write_str<W: MetadataSink + ?Sized>(out: &mut W, s: &str) -> Result<()> {
    out.try_write(b"\"")?;
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let esc: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x08 => b"\\b",
            0x0c => b"\\f",
            0..=0x1f => b"",
            _ => continue,
        };
        out.try_write(bytes.get(start..i).unwrap_or(&[]))?;
        if esc.is_empty() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            let u = [
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[usize::from(b >> 4)],
                HEX[usize::from(b & 15)],
            ];
            out.try_write(&u)?;
        } else {
            out.try_write(esc)?;
        }
        start = i + 1;
    }
    out.try_write(bytes.get(start..).unwrap_or(&[]))?;
    out.try_write(b"\"")
}

/// Writes `v` in decimal.
#[cfg(feature = "nested")]
pub(crate) fn write_u64<W: MetadataSink + ?Sized>(out: &mut W, mut v: u64) -> Result<()> {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        // `v % 10 < 10` fits a digit.
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    out.try_write(buf.get(i..).unwrap_or(&[]))
}

/// Writes `[a,b,…]`, each item with `item`.
#[cfg(feature = "nested")]
pub(crate) fn write_array<W: MetadataSink + ?Sized, T>(
    out: &mut W,
    items: &[T],
    mut item: impl FnMut(&mut W, &T) -> Result<()>,
) -> Result<()> {
    out.try_write(b"[")?;
    for (i, x) in items.iter().enumerate() {
        if i > 0 {
            out.try_write(b",")?;
        }
        item(out, x)?;
    }
    out.try_write(b"]")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::string::String;
    use std::vec;
    use std::vec::Vec;

    #[test]
    fn syntax_accepts_json() {
        for ok in [
            "{}",
            " { \"shape\" : [2, 5] } ",
            "[]",
            "[1,-0,2.5e-3,1E+2,true,false,null,\"a\\u00e9\\n\"]",
            "{\"a\":{\"b\":[[],{}]},\"c\":\"\"}",
            "\"x\"",
            "0",
        ] {
            assert_eq!(check_syntax(ok.as_bytes()), Ok(()), "{ok}");
        }
    }

    #[test]
    fn syntax_refuses_malformed_json() {
        for bad in [
            "",
            " ",
            "{",
            "}",
            "[1,]",
            "[,1]",
            "{\"a\"}",
            "{\"a\":}",
            "{\"a\":1,}",
            "{a:1}",
            "[1 2]",
            "[1}",
            "{\"a\":1]",
            "01",
            "-",
            "1.",
            "1e",
            "tru",
            "nul",
            "\"abc",
            "\"\\x\"",
            "\"\\u12g4\"",
            "\"a\tb\"",
            "{} {}",
            "[foo]",
        ] {
            assert_eq!(check_syntax(bad.as_bytes()), Err(BAD), "{bad:?}");
        }
    }

    #[test]
    fn syntax_bounds_nesting_without_recursion() {
        let ok: String = "[".repeat(MAX_JSON_DEPTH) + &"]".repeat(MAX_JSON_DEPTH);
        assert_eq!(check_syntax(ok.as_bytes()), Ok(()));
        let deep: String = "[".repeat(MAX_JSON_DEPTH + 1) + &"]".repeat(MAX_JSON_DEPTH + 1);
        assert_eq!(check_syntax(deep.as_bytes()), Err(BAD));
        // A hostile depth far beyond any stack: refused early, no overflow.
        let hostile = "{\"a\":".repeat(1 << 20);
        assert_eq!(check_syntax(hostile.as_bytes()), Err(BAD));
        let hostile = "[".repeat(1 << 20);
        assert_eq!(from_json::<Bounded<i64, 4>>(&hostile).err(), Some(BAD));
    }

    #[test]
    fn bounded_arrays_have_a_capacity() {
        let v: Bounded<i64, 3> = from_json("[1, 2, 3]").unwrap();
        assert_eq!(v.as_slice(), &[1, 2, 3]);
        assert_eq!(from_json::<Bounded<i64, 3>>("[1,2,3,4]").err(), Some(BAD));
        let v: Bounded<Option<i64>, 3> = from_json("[400, null, 3]").unwrap();
        assert_eq!(v.as_slice(), &[Some(400), None, Some(3)]);
        assert_eq!(from_json::<Bounded<i64, 3>>("[1.5]").err(), Some(BAD));
        assert_eq!(from_json::<Bounded<i64, 3>>("{}").err(), Some(BAD));
    }

    #[test]
    fn strings_are_unescaped_through_the_allocator() {
        let v: Bounded<JsonStr<'_>, 4> = from_json(r#"["C", "a\"b\\c\u00e9\n", "ü"]"#).unwrap();
        let got: Vec<String> = v
            .as_slice()
            .iter()
            .map(|s| String::from(unescape_in(*s, crate::Global).unwrap().as_str()))
            .collect();
        assert_eq!(got, vec!["C", "a\"b\\cé\n", "ü"]);
        // A UTF-16 surrogate escape is not a scalar value: an error, not a panic.
        let v: Bounded<JsonStr<'_>, 1> = from_json(r#"["\ud83d\ude00"]"#).unwrap();
        assert_eq!(unescape_in(v.as_slice()[0], crate::Global).err(), Some(BAD));
    }

    #[test]
    fn writer_escapes_and_counts() {
        let mut buf = [0u8; 64];
        let mut w = SliceSink::new(&mut buf);
        write_str(&mut w, "a\"b\\c\n\u{1}é").unwrap();
        w.try_write(b" ").unwrap();
        write_array(&mut w, &[0u64, 7, 1234567890123], |w, &x| write_u64(w, x)).unwrap();
        assert_eq!(
            w.as_str(),
            Some("\"a\\\"b\\\\c\\n\\u0001é\" [0,7,1234567890123]")
        );
        let mut small = [0u8; 3];
        let mut w = SliceSink::new(&mut small);
        assert_eq!(write_str(&mut w, "abcd"), Err(Error::ScratchTooSmall));
        assert_eq!(
            write_u64(&mut SliceSink::new(&mut [0u8; 20]), u64::MAX),
            Ok(())
        );
    }

    #[test]
    fn empty_or_object() {
        assert!(is_empty_or_object(None));
        assert!(is_empty_or_object(Some("")));
        assert!(is_empty_or_object(Some("{}")));
        assert!(is_empty_or_object(Some(" {\"future\": [1]} ")));
        assert!(!is_empty_or_object(Some("[]")));
        assert!(!is_empty_or_object(Some("uuid-serialized")));
        assert!(!is_empty_or_object(Some("{")));
    }
}
