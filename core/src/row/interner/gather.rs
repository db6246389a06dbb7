//! Decoded dictionary values kept by the interner, gathered into columns.
//!
//! When a dictionary's values are byte arrays (Utf8, LargeUtf8, Binary,
//! LargeBinary) or primitives (integers, floats), the interner keeps, next
//! to each value's row encoding, its raw bytes as the array held them (the
//! value bytes, or the native-endian value). Decoding a row is then a key
//! lookup and a copy of those bytes — the value's row encoding (a 34- to
//! 133-byte block sequence for a string) is never decoded again. The raw
//! bytes only ever come from arrays of the kind the interner first saw; a
//! batch of another kind switches the raw values off for good (rows then
//! decode through the values' encodings).

use allocator_api2::alloc::Allocator;
use bytemuck::Pod;

use crate::array::{ArrayRef, ByteArrayType, GenericByteArray, PrimitiveArray};
use crate::array::{BinaryType, LargeBinaryType, LargeUtf8Type, PrimitiveType, Utf8Type};
use crate::buffer::{Appender, BooleanBuffer, MutableBuffer, NullBuffer, OffsetSize, ScalarBuffer};
use crate::datatypes::DataType;
use crate::error::{Error, Result};

/// Slack kept past the raw bytes: every value has `ROOM` readable bytes,
/// so copies go `ROOM` bytes at a time.
pub(crate) const ROOM: usize = 32;

/// Which array the raw values come from (and decode into).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RawKind {
    /// Nothing interned yet.
    Unknown,
    /// Raw values are off: rows decode through the values' encodings.
    Off,
    Utf8,
    LargeUtf8,
    Binary,
    LargeBinary,
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    F32,
    F64,
}

/// The raw values of one dictionary's values array.
pub(crate) enum RawSource<'v> {
    /// Not a kind with raw values.
    None,
    /// Offsets and the whole values buffer of a byte array.
    Bytes32(&'v [i32], &'v [u8]),
    /// As `Bytes32`, for the `Large` types.
    Bytes64(&'v [i64], &'v [u8]),
    /// Values of `width` bytes back to back.
    Fixed(&'v [u8], usize),
}

impl<'v> RawSource<'v> {
    /// The kind and raw values of `values`.
    pub(crate) fn of<A: Allocator>(values: &'v ArrayRef<'_, A>) -> (RawKind, Self) {
        fn fixed<'v, T: PrimitiveType, A: Allocator>(
            a: &'v PrimitiveArray<'_, T, A>,
        ) -> RawSource<'v> {
            RawSource::Fixed(bytemuck::cast_slice(a.values()), core::mem::size_of::<T>())
        }
        let b = |o, v: &'v crate::buffer::Buffer<'_, A>| RawSource::Bytes32(o, v.as_slice());
        let l = |o, v: &'v crate::buffer::Buffer<'_, A>| RawSource::Bytes64(o, v.as_slice());
        match values {
            ArrayRef::Utf8(a) => (RawKind::Utf8, b(a.value_offsets(), a.values())),
            ArrayRef::Binary(a) => (RawKind::Binary, b(a.value_offsets(), a.values())),
            ArrayRef::LargeUtf8(a) => (RawKind::LargeUtf8, l(a.value_offsets(), a.values())),
            ArrayRef::LargeBinary(a) => (RawKind::LargeBinary, l(a.value_offsets(), a.values())),
            ArrayRef::Int8(a) => (RawKind::I8, fixed(a)),
            ArrayRef::Int16(a) => (RawKind::I16, fixed(a)),
            ArrayRef::Int32(a) => (RawKind::I32, fixed(a)),
            ArrayRef::Int64(a) => (RawKind::I64, fixed(a)),
            ArrayRef::UInt8(a) => (RawKind::U8, fixed(a)),
            ArrayRef::UInt16(a) => (RawKind::U16, fixed(a)),
            ArrayRef::UInt32(a) => (RawKind::U32, fixed(a)),
            ArrayRef::UInt64(a) => (RawKind::U64, fixed(a)),
            ArrayRef::Float32(a) => (RawKind::F32, fixed(a)),
            ArrayRef::Float64(a) => (RawKind::F64, fixed(a)),
            _ => (RawKind::Off, RawSource::None),
        }
    }

    /// Where the raw bytes of value `i` are in [`Self::whole`]'s bytes
    /// (counted from the buffer's start, as the offsets count): `(start, len)`.
    #[inline(always)]
    pub(crate) fn span(&self, i: usize) -> Option<(usize, usize)> {
        match *self {
            RawSource::None => None,
            RawSource::Bytes32(o, _) => {
                let (a, b) = (o.get(i)?.to_usize()?, o.get(i + 1)?.to_usize()?);
                Some((a, b.checked_sub(a)?))
            }
            RawSource::Bytes64(o, _) => {
                let (a, b) = (o.get(i)?.to_usize()?, o.get(i + 1)?.to_usize()?);
                Some((a, b.checked_sub(a)?))
            }
            RawSource::Fixed(v, w) => {
                let a = i.checked_mul(w)?;
                (a.checked_add(w)? <= v.len()).then_some((a, w))
            }
        }
    }

    /// Every value's raw bytes, back to back, and the position of the
    /// first in the source (what [`Self::span`] subtracts).
    pub(crate) fn whole(&self) -> Option<(&'v [u8], usize)> {
        match *self {
            RawSource::None => None,
            RawSource::Bytes32(o, v) => {
                let (a, b) = (o.first()?.to_usize()?, o.last()?.to_usize()?);
                Some((v.get(a..b)?, a))
            }
            RawSource::Bytes64(o, v) => {
                let (a, b) = (o.first()?.to_usize()?, o.last()?.to_usize()?);
                Some((v.get(a..b)?, a))
            }
            RawSource::Fixed(v, _) => Some((v, 0)),
        }
    }

    /// The raw bytes of value `i`.
    pub(crate) fn value(&self, i: usize) -> Option<&'v [u8]> {
        match *self {
            RawSource::None => None,
            RawSource::Bytes32(o, v) => {
                let (a, b) = (o.get(i)?.to_usize()?, o.get(i + 1)?.to_usize()?);
                v.get(a..b)
            }
            RawSource::Bytes64(o, v) => {
                let (a, b) = (o.get(i)?.to_usize()?, o.get(i + 1)?.to_usize()?);
                v.get(a..b)
            }
            RawSource::Fixed(v, w) => v.get(i.checked_mul(w)?..i.checked_mul(w)?.checked_add(w)?),
        }
    }
}

/// The raw values of an interner, back to back, with `ROOM` zero bytes
/// past the last one.
pub(crate) struct RawStore<A: Allocator> {
    pub(crate) kind: RawKind,
    bytes: MutableBuffer<A>,
}

impl<A: Allocator> RawStore<A> {
    /// An empty store; allocates nothing.
    pub(crate) fn new_in(alloc: A) -> Self {
        RawStore {
            kind: RawKind::Unknown,
            bytes: MutableBuffer::new_in(alloc),
        }
    }

    /// Records that the next values come from arrays of `kind`: `true`
    /// when raw values are kept (the first kind seen, and only it).
    pub(crate) fn begin(&mut self, kind: RawKind) -> bool {
        if self.kind == RawKind::Unknown {
            self.kind = kind;
        } else if self.kind != kind {
            self.kind = RawKind::Off;
        }
        self.kind != RawKind::Off
    }

    /// Appends `v`: its start in the store.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`], [`Error::CapacityOverflow`].
    pub(crate) fn push(&mut self, v: &[u8]) -> Result<usize> {
        let start = self.bytes.len().saturating_sub(ROOM);
        if start.saturating_add(v.len()) >= u32::MAX as usize {
            // Spans are 32-bit: past 4 GiB, raw values are off.
            self.kind = RawKind::Off;
        }
        self.bytes.truncate(start);
        self.bytes.try_extend_from_slice(v)?;
        self.bytes.try_extend_zeros(ROOM)?;
        Ok(start)
    }

    /// The stored bytes (with the slack).
    pub(crate) fn bytes(&self) -> &[u8] {
        self.bytes.as_slice()
    }
}

/// A null slot in the spans given to [`gather`].
pub(crate) const NULL_SPAN: [u32; 2] = [0, u32::MAX];

/// Builds the column of `kind` whose slot `i` is the raw value at
/// `spans[i]` (`[start, len]` in `raw`; [`NULL_SPAN`]: a null slot, `nulls`
/// of them), of `total` bytes in all.
/// `Ok(None)` when `kind` has no raw values or does not decode to `dt`.
///
/// # Errors
/// [`Error::OutOfBounds`] for a span past `raw`;
/// [`Error::AllocationFailed`]; [`Error::CapacityOverflow`].
pub(crate) fn gather<'a, A: Allocator + Clone>(
    kind: RawKind,
    dt: &DataType<'a, A>,
    raw: &[u8],
    (spans, nulls): (&[[u32; 2]], usize),
    total: usize,
    alloc: &A,
) -> Result<Option<ArrayRef<'a, A>>> {
    macro_rules! prim {
        ($t:ty) => {
            gather_fixed::<$t, A>(dt, raw, (spans, nulls), alloc)?
                .map(PrimitiveType::into_array_ref)
        };
    }
    Ok(match kind {
        RawKind::Unknown | RawKind::Off => None,
        RawKind::Utf8 => gather_bytes::<Utf8Type, A>(dt, raw, (spans, nulls, total), alloc)?,
        RawKind::LargeUtf8 => {
            gather_bytes::<LargeUtf8Type, A>(dt, raw, (spans, nulls, total), alloc)?
        }
        RawKind::Binary => gather_bytes::<BinaryType, A>(dt, raw, (spans, nulls, total), alloc)?,
        RawKind::LargeBinary => {
            gather_bytes::<LargeBinaryType, A>(dt, raw, (spans, nulls, total), alloc)?
        }
        RawKind::I8 => prim!(i8),
        RawKind::I16 => prim!(i16),
        RawKind::I32 => prim!(i32),
        RawKind::I64 => prim!(i64),
        RawKind::U8 => prim!(u8),
        RawKind::U16 => prim!(u16),
        RawKind::U32 => prim!(u32),
        RawKind::U64 => prim!(u64),
        RawKind::F32 => prim!(f32),
        RawKind::F64 => prim!(f64),
    })
}

/// `true` when raw values of `kind` decode to columns of type `dt`.
pub(crate) fn decodes_to<A: Allocator>(kind: RawKind, dt: &DataType<'_, A>) -> bool {
    match kind {
        RawKind::Unknown | RawKind::Off => false,
        RawKind::Utf8 => Utf8Type::fits(dt),
        RawKind::LargeUtf8 => LargeUtf8Type::fits(dt),
        RawKind::Binary => BinaryType::fits(dt),
        RawKind::LargeBinary => LargeBinaryType::fits(dt),
        RawKind::I8 => i8::fits(dt),
        RawKind::I16 => i16::fits(dt),
        RawKind::I32 => i32::fits(dt),
        RawKind::I64 => i64::fits(dt),
        RawKind::U8 => u8::fits(dt),
        RawKind::U16 => u16::fits(dt),
        RawKind::U32 => u32::fits(dt),
        RawKind::U64 => u64::fits(dt),
        RawKind::F32 => f32::fits(dt),
        RawKind::F64 => f64::fits(dt),
    }
}

/// The validity of the slots of `spans`: set where the span is not
/// [`NULL_SPAN`] (`nulls` of them); `None` when every slot is valid.
fn validity<'a, A: Allocator + Clone>(
    spans: &[[u32; 2]],
    nulls: usize,
    alloc: &A,
) -> Result<Option<NullBuffer<'a, A>>> {
    let n = spans.len();
    if nulls == 0 {
        return Ok(None);
    }
    // 64 slots per word (bit `j` is slot `j`: LSB-first bytes on every
    // target).
    let mut bits = MutableBuffer::new_in(alloc.clone());
    bits.try_extend_zeros(n.div_ceil(64) * 8)?;
    for (word, chunk) in bits.typed_mut::<u64>()?.iter_mut().zip(spans.chunks(64)) {
        let mut w = 0u64;
        for (j, s) in chunk.iter().enumerate() {
            w |= u64::from(s[1] != u32::MAX) << j;
        }
        *word = w.to_le();
    }
    let bits = BooleanBuffer::try_new(bits.into_buffer(), 0, n)?;
    Ok(Some(NullBuffer::try_new_with_count(bits, nulls)?))
}

fn gather_fixed<'a, T: PrimitiveType + Pod, A: Allocator + Clone>(
    dt: &DataType<'a, A>,
    raw: &[u8],
    (spans, nulls): (&[[u32; 2]], usize),
    alloc: &A,
) -> Result<Option<PrimitiveArray<'a, T, A>>> {
    if !T::fits(dt) {
        return Ok(None);
    }
    let (n, w) = (spans.len(), core::mem::size_of::<T>());
    // The store is 64-byte aligned and holds values of `w` bytes only.
    // (An empty store may be unallocated, its pointer unaligned.)
    let src: &[T] = if raw.is_empty() {
        &[]
    } else {
        bytemuck::try_cast_slice(raw).map_err(|_| Error::Misaligned)?
    };
    let mut values = MutableBuffer::new_in(alloc.clone());
    values.try_extend_zeros(n.checked_mul(w).ok_or(Error::CapacityOverflow)?)?;
    for (out, &[start, len]) in values.typed_mut::<T>()?.iter_mut().zip(spans) {
        if len != u32::MAX {
            *out = *src.get(start as usize / w).ok_or(Error::OutOfBounds)?;
        }
    }
    let nulls = validity(spans, nulls, alloc)?;
    PrimitiveArray::try_new(
        dt.clone(),
        ScalarBuffer::try_from_buffer(values.into_buffer())?,
        nulls,
    )
    .map(Some)
}

fn gather_bytes<'a, T: ByteArrayType, A: Allocator + Clone>(
    dt: &DataType<'a, A>,
    raw: &[u8],
    (spans, nulls, total): (&[[u32; 2]], usize, usize),
    alloc: &A,
) -> Result<Option<ArrayRef<'a, A>>> {
    if !T::fits(dt) {
        return Ok(None);
    }
    // Each slot's bytes appended `ROOM` at a time into room of exactly
    // their size plus `ROOM` (a copy's tail past its value is overwritten
    // by the next value or zeroed at the end), with its end offset.
    let n = spans.len();
    let mut offsets = MutableBuffer::new_in(alloc.clone());
    offsets.try_extend_zeros(
        (n + 1)
            .checked_mul(core::mem::size_of::<T::Offset>())
            .ok_or(Error::CapacityOverflow)?,
    )?;
    let mut values = MutableBuffer::new_in(alloc.clone());
    let room = total.checked_add(ROOM).ok_or(Error::CapacityOverflow)?;
    let ends = offsets.typed_mut::<T::Offset>()?;
    let ends = ends.get_mut(1..).ok_or(Error::OutOfBounds)?;
    if !values.try_extend_appended(room, |w| copy_spans(raw, spans, ends, w))? {
        return Err(Error::CapacityOverflow);
    }
    let pos = values.len();
    if pos != total {
        return Err(Error::OutOfBounds);
    }
    let nulls = validity(spans, nulls, alloc)?;
    let a = GenericByteArray::<T, A>::try_new(
        ScalarBuffer::try_from_buffer(offsets.into_buffer())?,
        values.into_buffer(),
        nulls,
    )?;
    Ok(Some(T::into_array_ref(a)))
}

/// Appends the raw bytes at each of `spans` (in `raw`, which has `ROOM`
/// readable bytes past every value; [`NULL_SPAN`]: no bytes) through `w`,
/// `ROOM` bytes per copy, and each value's end offset into `ends`: `false`
/// when an offset does not fit `O`.
///
/// # Errors
/// [`Error::OutOfBounds`] for a span past `raw` or values past the room.
#[inline(always)]
pub(crate) fn copy_spans<O: OffsetSize>(
    raw: &[u8],
    spans: &[[u32; 2]],
    ends: &mut [O],
    w: &mut Appender<'_>,
) -> Result<bool> {
    let chunk = |at: usize| {
        raw.get(at..at + ROOM)
            .and_then(|c| <&[u8; ROOM]>::try_from(c).ok())
            .ok_or(Error::OutOfBounds)
    };
    for (&[start, len], end) in spans.iter().zip(ends.iter_mut()) {
        if len != u32::MAX {
            let (mut at, mut left) = (start as usize, len as usize);
            while left > ROOM {
                w.put(chunk(at)?)?;
                at += ROOM;
                left -= ROOM;
            }
            w.put_prefix(chunk(at)?, left)?;
        }
        let Some(o) = O::from_usize(w.pos()) else {
            return Ok(false);
        };
        *end = o;
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use allocator_api2::alloc::Global as G;
    use std::vec::Vec;

    use crate::array::{
        Array, ArrayRef, DictionaryArray, DictionaryKeys, PrimitiveArray, StringArray,
    };
    use crate::row::test_model::Seeded;
    use crate::row::{SortField, SortOptions};

    fn dict(values: ArrayRef<'static, G>, keys: &[Option<i32>]) -> ArrayRef<'static, G> {
        DictionaryArray::try_new_in(
            DictionaryKeys::Int32(PrimitiveArray::try_from_options_in(keys, G).unwrap()),
            values,
            false,
            G,
        )
        .unwrap()
        .into_array_ref()
    }

    /// A Utf8 array of `words`, none null.
    fn utf8_of(words: &[std::string::String]) -> ArrayRef<'static, G> {
        let opts: Vec<Option<&str>> = words.iter().map(|w| Some(w.as_str())).collect();
        StringArray::<G>::try_from_options_in(&opts, G)
            .unwrap()
            .into_array_ref()
    }

    /// Rows that repeat few dictionary values decode through the gather
    /// (each value decoded once), to the same columns as row by row.
    #[test]
    fn repeated_dictionary_values_decode_exactly() {
        let long = "a value longer than one block of thirty-two bytes";
        let strings = StringArray::<G>::try_from_options_in(
            &[Some("kiwi"), Some(long), Some(""), Some("fig")],
            G,
        )
        .unwrap()
        .into_array_ref();
        let ints = PrimitiveArray::<i64, G>::try_from_options_in(&[Some(-7), Some(1 << 40)], G)
            .unwrap()
            .into_array_ref();
        let keys: Vec<Option<i32>> = (0..40).map(|i| (i % 7 != 3).then_some(i % 4)).collect();
        let int_keys: Vec<Option<i32>> = keys.iter().map(|k| k.map(|k| k % 2)).collect();
        for opts in [SortOptions::new(false, true), SortOptions::new(true, false)] {
            for (values, keys) in [(&strings, &keys), (&ints, &int_keys)] {
                let col = dict(values.clone(), keys);
                let dt = col.data_type().clone();
                let mut c = Seeded::with_encoding(
                    &[SortField::new_with_options(dt, opts)],
                    crate::row::RowEncoding::Seed,
                );
                let rows = c.convert_columns(core::slice::from_ref(&col)).unwrap();
                let back = c.convert_rows(rows.iter()).unwrap();
                let expected: Vec<ArrayRef<'static, G>> = keys
                    .iter()
                    .map(|k| match k {
                        Some(k) => values.slice(*k as usize, 1).unwrap(),
                        None => values.slice(0, 0).unwrap(),
                    })
                    .collect();
                assert_eq!(back[0].len(), keys.len());
                for (i, (k, e)) in keys.iter().zip(&expected).enumerate() {
                    let got = back[0].slice(i, 1).unwrap();
                    if k.is_some() {
                        assert!(got == *e, "slot {i}");
                    } else {
                        assert!(got.is_null(0), "slot {i}");
                    }
                }
            }
        }
    }

    /// Enough values for two-byte keys (looked up through the per-call
    /// tables), each repeated (gathered) or not (decoded row by row), in
    /// both directions: every row decodes to its value.
    #[test]
    fn two_byte_keys_decode_exactly() {
        // 600 keys: the rank bitmap; 1,500: the dense rank table.
        for (count, repeat) in [(600usize, 1usize), (600, 3), (1500, 1)] {
            let words: Vec<std::string::String> =
                (0..count).map(|i| std::format!("w{i:04}")).collect();
            let values = utf8_of(&words);
            let keys: Vec<Option<i32>> = (0..count * repeat)
                .map(|i| (i % 11 != 5).then_some(((i * 7) % count) as i32))
                .collect();
            for o in [SortOptions::new(false, true), SortOptions::new(true, false)] {
                let col = dict(values.clone(), &keys);
                let dt = col.data_type().clone();
                let mut c = Seeded::with_encoding(
                    &[SortField::new_with_options(dt, o)],
                    crate::row::RowEncoding::Seed,
                );
                let rows = c.convert_columns(core::slice::from_ref(&col)).unwrap();
                assert!(rows.iter().any(|r| r.data().len() == 4), "two-byte keys");
                let back = c.convert_rows(rows.iter()).unwrap();
                let ArrayRef::Utf8(s) = &back[0] else {
                    panic!("expected Utf8")
                };
                let got: Vec<Option<&str>> = s.iter().collect();
                let want: Vec<Option<&str>> = keys
                    .iter()
                    .map(|k| k.map(|k| words[k as usize].as_str()))
                    .collect();
                assert_eq!(got, want);
            }
        }
    }

    /// Rows can only select interned values: keys never issued (one, two
    /// and three bytes), an empty key and a missing terminator are errors,
    /// in both directions, with one- and two-byte key tables in place.
    #[test]
    fn crafted_keys_are_errors() {
        use crate::error::Error;
        use crate::row::Row;
        for count in [5usize, 600, 1500] {
            let words: Vec<std::string::String> =
                (0..count).map(|i| std::format!("w{i:04}")).collect();
            let values = utf8_of(&words);
            let keys: Vec<Option<i32>> = (0..count as i32).map(Some).collect();
            for o in [SortOptions::new(false, true), SortOptions::new(true, false)] {
                let col = dict(values.clone(), &keys);
                let dt = col.data_type().clone();
                let mut c = Seeded::with_encoding(
                    &[SortField::new_with_options(dt, o)],
                    crate::row::RowEncoding::Seed,
                );
                let rows = c.convert_columns(core::slice::from_ref(&col)).unwrap();
                let issued: std::collections::HashSet<Vec<u8>> =
                    rows.iter().map(|r| r.data().to_vec()).collect();
                let (t, f) = if o.descending { (0xFF, 0xFF) } else { (0, 0) };
                let row = |key: &[u8]| {
                    let mut r = std::vec![1u8];
                    r.extend(key.iter().map(|b| b ^ f));
                    r.push(t);
                    r
                };
                for key in [&[0xFEu8][..], &[0xFE, 0xFE], &[0x80, 0x81, 0x82]] {
                    let r = row(key);
                    if issued.contains(&r) {
                        continue;
                    }
                    let err = c.convert_rows([Row::new(&r)]).unwrap_err();
                    assert_eq!(err, Error::UnknownDictionaryKey, "{key:?}");
                }
                let empty = c.convert_rows([Row::new(&row(&[]))]).unwrap_err();
                assert_eq!(empty, Error::UnknownDictionaryKey);
                let unterminated = [1u8, 0x40 ^ f, 0x41 ^ f];
                let err = c.convert_rows([Row::new(&unterminated)]).unwrap_err();
                assert_eq!(err, Error::InvalidRow);
                // Every issued row still decodes to its value.
                let back = c.convert_rows(rows.iter()).unwrap();
                let ArrayRef::Utf8(s) = &back[0] else {
                    panic!("expected Utf8")
                };
                let got: Vec<&str> = s.iter().map(Option::unwrap).collect();
                assert_eq!(
                    got,
                    words
                        .iter()
                        .map(std::string::String::as_str)
                        .collect::<Vec<_>>()
                );
            }
        }
    }

    /// Arbitrary bytes as rows of dictionary columns (one- and two-byte
    /// keys, both directions, alone and before an integer column) decode
    /// or fail with an error, never panic.
    #[test]
    fn random_rows_never_panic() {
        use crate::row::Row;
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for count in [5usize, 600, 1500] {
            let words: Vec<std::string::String> =
                (0..count).map(|i| std::format!("v{i}")).collect();
            let values = utf8_of(&words);
            let keys: Vec<Option<i32>> = (0..count as i32).map(Some).collect();
            for o in [SortOptions::new(false, true), SortOptions::new(true, false)] {
                let col = dict(values.clone(), &keys);
                let dt = col.data_type().clone();
                let ints =
                    PrimitiveArray::<i64, G>::try_from_options_in(&std::vec![Some(7i64); count], G)
                        .unwrap()
                        .into_array_ref();
                for with_int in [false, true] {
                    let mut fields = std::vec![SortField::new_with_options(dt.clone(), o)];
                    let mut cols = std::vec![col.clone()];
                    if with_int {
                        fields.push(SortField::new(ints.data_type().clone()));
                        cols.push(ints.clone());
                    }
                    let mut c = Seeded::with_encoding(&fields, crate::row::RowEncoding::Seed);
                    let rows = c.convert_columns(&cols).unwrap();
                    let issued: Vec<Vec<u8>> = rows.iter().map(|r| r.data().to_vec()).collect();
                    for _ in 0..300 {
                        // Random bytes, or an issued row with a byte changed or cut.
                        let mut r = if next() % 2 == 0 {
                            (0..next() % 12).map(|_| next() as u8).collect::<Vec<u8>>()
                        } else {
                            let mut r = issued[(next() % issued.len() as u64) as usize].clone();
                            let at = (next() % r.len() as u64) as usize;
                            if next() % 2 == 0 {
                                r[at] = next() as u8;
                            } else {
                                r.truncate(at);
                            }
                            r
                        };
                        if next() % 4 == 0 {
                            r.insert(0, 1);
                        }
                        let batch = [Row::new(&issued[0]), Row::new(&r)];
                        let _ = c.convert_rows(batch);
                    }
                }
            }
        }
    }
}
