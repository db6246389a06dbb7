//! Gathering decoded dictionary values: when a batch of rows references few
//! distinct dictionary values, each is decoded once and the column is built
//! by copying them (`out[i] = distinct[index[i]]`), instead of decoding the
//! value's row encoding again for every row.

use allocator_api2::alloc::Allocator;

use super::slots::Slots;
use crate::array::{
    Array, ArrayRef, ByteArrayType, GenericByteArray, PrimitiveArray, PrimitiveType,
};
use crate::buffer::{BooleanBuffer, MutableBuffer, NullBuffer, OffsetSize, ScalarBuffer};
use crate::error::{Error, Result};

/// `distinct[index[i] - 1]` for every `i` (`index[i] == 0`: null), for the
/// byte-array and primitive types; `Ok(None)` for other types (the caller
/// decodes row by row).
///
/// # Errors
/// [`Error::OutOfBounds`] for an index past `distinct`;
/// [`Error::AllocationFailed`]; [`Error::CapacityOverflow`].
pub(crate) fn gather<'a, A: Allocator + Clone>(
    distinct: &ArrayRef<'a, A>,
    index: &[u32],
    alloc: &A,
) -> Result<Option<ArrayRef<'a, A>>> {
    macro_rules! prim {
        ($a:expr) => {
            Some(gather_primitive($a, index, alloc)?.into_array_ref())
        };
    }
    Ok(match distinct {
        ArrayRef::Utf8(a) => Some(gather_bytes(a, index, alloc)?.into_array_ref()),
        ArrayRef::LargeUtf8(a) => Some(gather_bytes(a, index, alloc)?.into_array_ref()),
        ArrayRef::Binary(a) => Some(gather_bytes(a, index, alloc)?.into_array_ref()),
        ArrayRef::LargeBinary(a) => Some(gather_bytes(a, index, alloc)?.into_array_ref()),
        ArrayRef::Int8(a) => prim!(a),
        ArrayRef::Int16(a) => prim!(a),
        ArrayRef::Int32(a) => prim!(a),
        ArrayRef::Int64(a) => prim!(a),
        ArrayRef::UInt8(a) => prim!(a),
        ArrayRef::UInt16(a) => prim!(a),
        ArrayRef::UInt32(a) => prim!(a),
        ArrayRef::UInt64(a) => prim!(a),
        ArrayRef::Float32(a) => prim!(a),
        ArrayRef::Float64(a) => prim!(a),
        _ => None,
    })
}

/// The validity of the gathered slots: set where `index[i] != 0` and the
/// distinct value is valid. `None` when every slot is valid.
fn validity<'a, A: Allocator + Clone>(
    index: &[u32],
    distinct_nulls: bool,
    valid: impl Fn(usize) -> bool,
    alloc: &A,
) -> Result<Option<NullBuffer<'a, A>>> {
    if !distinct_nulls && !index.contains(&0) {
        return Ok(None);
    }
    let n = index.len();
    let mut bits = MutableBuffer::new_in(alloc.clone());
    bits.try_extend_zeros(n.div_ceil(8))?;
    let mut nulls = 0;
    let out = bits.as_slice_mut();
    for (i, &j) in index.iter().enumerate() {
        let ok = j != 0 && valid(j as usize - 1);
        if let Some(byte) = out.get_mut(i / 8) {
            *byte |= u8::from(ok) << (i % 8);
        }
        nulls += usize::from(!ok);
    }
    if nulls == 0 {
        return Ok(None);
    }
    let bits = BooleanBuffer::try_new(bits.into_buffer(), 0, n)?;
    Ok(Some(NullBuffer::try_new_with_count(bits, nulls)?))
}

fn gather_primitive<'a, T: PrimitiveType, A: Allocator + Clone>(
    distinct: &PrimitiveArray<'a, T, A>,
    index: &[u32],
    alloc: &A,
) -> Result<PrimitiveArray<'a, T, A>> {
    let src = distinct.values();
    let mut values = MutableBuffer::new_in(alloc.clone());
    values.try_extend_zeros(
        index
            .len()
            .checked_mul(core::mem::size_of::<T>())
            .ok_or(Error::CapacityOverflow)?,
    )?;
    for (out, &j) in values.typed_mut::<T>()?.iter_mut().zip(index) {
        if j != 0 {
            *out = *src.get(j as usize - 1).ok_or(Error::OutOfBounds)?;
        }
    }
    let nulls = validity(
        index,
        distinct.null_count() != 0,
        |j| distinct.is_valid(j),
        alloc,
    )?;
    PrimitiveArray::try_new(
        distinct.data_type().clone(),
        ScalarBuffer::try_from_buffer(values.into_buffer())?,
        nulls,
    )
}

fn gather_bytes<'a, T: ByteArrayType, A: Allocator + Clone>(
    distinct: &GenericByteArray<'a, T, A>,
    index: &[u32],
    alloc: &A,
) -> Result<GenericByteArray<'a, T, A>> {
    const ROOM: usize = 32;
    // The distinct values back to back with `ROOM` bytes of slack, and each
    // one's start and length: every value has `ROOM` readable bytes.
    let offsets = distinct.value_offsets();
    let (first, last) = match (offsets.first(), offsets.last()) {
        (Some(a), Some(b)) => (
            a.to_usize().ok_or(Error::OutOfBounds)?,
            b.to_usize().ok_or(Error::OutOfBounds)?,
        ),
        _ => return Err(Error::OutOfBounds),
    };
    let bytes = distinct
        .values()
        .as_slice()
        .get(first..last)
        .ok_or(Error::OutOfBounds)?;
    let mut padded = MutableBuffer::new_in(alloc.clone());
    padded.try_reserve_exact(
        bytes
            .len()
            .checked_add(ROOM)
            .ok_or(Error::CapacityOverflow)?,
    )?;
    padded.try_extend_from_slice(bytes)?;
    padded.try_extend_zeros(ROOM)?;
    let src = padded.as_slice();
    let spans = Slots::try_from_fn_in(distinct.len(), alloc.clone(), |j| {
        let a = offsets.get(j).and_then(|o| o.to_usize());
        let b = offsets.get(j + 1).and_then(|o| o.to_usize());
        match (a, b) {
            (Some(a), Some(b)) if first <= a && a <= b && b <= last => Ok((a - first, b - a)),
            _ => Err(Error::OutOfBounds),
        }
    })?;
    let span = |j: u32| -> Result<(usize, usize)> {
        (j as usize)
            .checked_sub(1)
            .and_then(|j| spans.get(j))
            .copied()
            .ok_or(Error::OutOfBounds)
    };
    let mut total = 0usize;
    for &j in index.iter().filter(|&&j| j != 0) {
        total = total
            .checked_add(span(j)?.1)
            .ok_or(Error::CapacityOverflow)?;
    }
    // Values are copied `ROOM` bytes at a time (the bytes past a value are
    // overwritten by the next one; `ROOM` bytes of slack past the last).
    let mut values = MutableBuffer::new_in(alloc.clone());
    values.try_extend_zeros(total.checked_add(ROOM).ok_or(Error::CapacityOverflow)?)?;
    let mut out_offsets = MutableBuffer::new_in(alloc.clone());
    out_offsets.try_extend_zeros(
        (index.len() + 1)
            .checked_mul(core::mem::size_of::<T::Offset>())
            .ok_or(Error::CapacityOverflow)?,
    )?;
    let mut pos = 0usize;
    {
        let out = values.as_slice_mut();
        let ends = out_offsets.typed_mut::<T::Offset>()?;
        let ends = ends.get_mut(1..).unwrap_or(&mut []);
        for (end, &j) in ends.iter_mut().zip(index) {
            if j != 0 {
                let (a, len) = span(j)?;
                // Whole `ROOM`-byte chunks: past the value's end they read
                // (at most `ROOM - 1` bytes of) the slack, or the next value.
                let mut k = 0;
                while k < len {
                    let s = src
                        .get(a + k..a + k + ROOM)
                        .and_then(|s| <&[u8; ROOM]>::try_from(s).ok());
                    let d = out
                        .get_mut(pos + k..pos + k + ROOM)
                        .and_then(|d| <&mut [u8; ROOM]>::try_from(d).ok());
                    match (s, d) {
                        (Some(s), Some(d)) => *d = *s,
                        _ => return Err(Error::OutOfBounds),
                    }
                    k += ROOM;
                }
                pos += len;
            }
            *end = T::Offset::from_usize(pos).ok_or(Error::CapacityOverflow)?;
        }
    }
    values.truncate(pos);
    let nulls = validity(
        index,
        distinct.null_count() != 0,
        |j| distinct.is_valid(j),
        alloc,
    )?;
    GenericByteArray::try_new(
        ScalarBuffer::try_from_buffer(out_offsets.into_buffer())?,
        values.into_buffer(),
        nulls,
    )
}

#[cfg(test)]
mod tests {
    use allocator_api2::alloc::Global as G;
    use std::vec::Vec;

    use crate::array::{
        Array, ArrayRef, DictionaryArray, DictionaryKeys, PrimitiveArray, StringArray,
    };
    use crate::row::{RowConverter, SortField, SortOptions};

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
                let mut c =
                    RowConverter::try_new(&[SortField::new_with_options(dt, opts)]).unwrap();
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
        let words: Vec<std::string::String> = (0..600).map(|i| std::format!("w{i:04}")).collect();
        let opts: Vec<Option<&str>> = words.iter().map(|w| Some(w.as_str())).collect();
        let values = StringArray::<G>::try_from_options_in(&opts, G)
            .unwrap()
            .into_array_ref();
        for repeat in [1usize, 3] {
            let keys: Vec<Option<i32>> = (0..600 * repeat)
                .map(|i| (i % 11 != 5).then_some(((i * 7) % 600) as i32))
                .collect();
            for o in [SortOptions::new(false, true), SortOptions::new(true, false)] {
                let col = dict(values.clone(), &keys);
                let dt = col.data_type().clone();
                let mut c = RowConverter::try_new(&[SortField::new_with_options(dt, o)]).unwrap();
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
}
