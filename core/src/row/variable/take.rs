//! The rows of a dictionary of byte values encoded by value, written
//! straight from the values its keys take (arrow's `take`), with no table
//! of the values' rows in between.
//!
//! The table path ([`crate::row::dictionary`]) encodes every value once
//! and copies a value's row per slot; when there are about as many slots
//! as values (high cardinality), that writes and reads each row twice.
//! Here each valid slot's value is encoded where its row goes: the same
//! bytes ([`super::write_valid`]), a null key the null sentinel.

use allocator_api2::alloc::Allocator;

use super::{
    mask, ordered_len, put_block, valid_bit, write_valid, BLOCK_SIZE, CONTINUATION, EMPTY,
    NON_EMPTY,
};
use crate::array::{Array, ArrayRef, DictionaryKeyType, DictionaryKeys};
use crate::buffer::{Appender, NullBuffer, OffsetSize};
use crate::error::{Error, Result};
use crate::row::{Kind, Node, SortOptions};

/// Take a dictionary's values through its keys when its valid keys are at
/// most this many times its values: the table then encodes at least as
/// many values as taking does, and copies a row per slot on top. With more
/// keys a value the table costs less when keys are random (measured, 4,096
/// uniform keys: taking is slower from 2 keys a value for 20-byte values
/// and 4 for 100-byte ones; each row's position waits on its value's
/// length, loaded at random), though not when they run in order.
const TAKE_RATIO: usize = 1;

/// A dictionary column of byte values (Binary, Utf8 and their `Large`
/// forms, no null value) encoded by value, ordered: slot `i` is the row of
/// `values[keys[i]]`, or the null sentinel for a null key.
pub(crate) struct Take<'c, 'b, A: Allocator> {
    /// The dictionary's keys.
    pub(crate) keys: &'c DictionaryKeys<'b, A>,
    /// The dictionary's values.
    pub(crate) values: &'c ArrayRef<'b, A>,
}

impl<'c, 'b, A: Allocator> Take<'c, 'b, A> {
    /// The take of `keys` into `values`, when it can be written this way
    /// (`value`, the values' node: a leaf encoded ordered; `values` an
    /// offsets-based byte array without nulls) and pays (at most
    /// [`TAKE_RATIO`] valid keys a value); `None` otherwise.
    pub(crate) fn new(
        value: &Node<'_, A>,
        keys: &'c DictionaryKeys<'b, A>,
        values: &'c ArrayRef<'b, A>,
    ) -> Option<Self> {
        let leaf = matches!(value.kind, Kind::Leaf) && !value.unordered;
        let bytes = matches!(
            values,
            ArrayRef::Binary(_)
                | ArrayRef::LargeBinary(_)
                | ArrayRef::Utf8(_)
                | ArrayRef::LargeUtf8(_)
        );
        let valid = keys.len().saturating_sub(keys.null_count());
        let pays = valid <= values.len().saturating_mul(TAKE_RATIO);
        (leaf && bytes && values.null_count() == 0 && pays).then_some(Take { keys, values })
    }
}

/// Calls `$body` with `$k` the typed keys and `$o`, `$v` the values'
/// offsets and bytes; `$other` for values of another type.
// Not formatted: rustfmt re-indents the inner macro on every run.
#[rustfmt::skip]
macro_rules! dispatch {
    ($take:expr, $k:ident, $o:ident, $v:ident => $body:expr, $other:expr) => {{
        macro_rules! inner {
            ($a:expr) => {{
                let ($o, $v) = ($a.value_offsets(), $a.values().as_slice());
                crate::array::keys_dispatch!($take.keys, $k => $body)
            }};
        }
        match $take.values {
            ArrayRef::Binary(a) => inner!(a),
            ArrayRef::LargeBinary(a) => inner!(a),
            ArrayRef::Utf8(a) => inner!(a),
            ArrayRef::LargeUtf8(a) => inner!(a),
            _ => $other,
        }
    }};
}

/// The value range `start..end` of key `key` into `offsets`.
///
/// # Errors
/// [`Error::DictionaryKeyOutOfBounds`] for a negative key or one past the
/// values; [`Error::OffsetOutOfBounds`] for negative or decreasing offsets.
#[inline(always)]
fn range<K: DictionaryKeyType, O: OffsetSize>(key: K, offsets: &[O]) -> Result<(usize, usize)> {
    let k = key.to_index().ok_or(Error::DictionaryKeyOutOfBounds)?;
    let pair = offsets
        .get(k..k.wrapping_add(2))
        .ok_or(Error::DictionaryKeyOutOfBounds)?;
    let (Some(a), Some(b)) = (pair.first(), pair.get(1)) else {
        return Err(Error::DictionaryKeyOutOfBounds);
    };
    let start = a.to_usize().ok_or(Error::OffsetOutOfBounds)?;
    let end = b
        .to_usize()
        .filter(|&e| e >= start)
        .ok_or(Error::OffsetOutOfBounds)?;
    Ok((start, end))
}

/// A validity bitmap's bytes and the bit its first slot is at.
type Bits<'k> = (&'k [u8], usize);

/// The first `n` keys and their validity bits (`None`: all valid).
///
/// # Errors
/// [`Error::OutOfBounds`] when there are fewer than `n` keys.
#[inline(always)]
fn first_keys<'k, K: DictionaryKeyType, A: Allocator>(
    keys: &'k crate::array::PrimitiveArray<'_, K, A>,
    n: usize,
) -> Result<(&'k [K], Option<Bits<'k>>)> {
    let values = keys.values().get(..n).ok_or(Error::OutOfBounds)?;
    let bits = keys
        .nulls()
        .map(|b: &NullBuffer<'_, A>| (b.inner().inner().as_slice(), b.inner().offset()));
    Ok((values, bits))
}

/// Adds each slot's row length to `lengths` (a null key's: 1).
///
/// # Errors
/// As [`range`]; [`Error::CapacityOverflow`].
pub(crate) fn add_lengths<A: Allocator>(
    take: &Take<'_, '_, A>,
    lengths: &mut [usize],
) -> Result<()> {
    #[inline(always)]
    fn pass<K: DictionaryKeyType, O: OffsetSize>(
        lengths: &mut [usize],
        keys: &[K],
        offsets: &[O],
        valid: impl Fn(usize) -> bool,
    ) -> Result<()> {
        for (i, (l, &key)) in lengths.iter_mut().zip(keys).enumerate() {
            let add = if valid(i) {
                let (start, end) = range(key, offsets)?;
                ordered_len::<BLOCK_SIZE>(Some(end - start))?
            } else {
                1
            };
            *l = l.checked_add(add).ok_or(Error::CapacityOverflow)?;
        }
        Ok(())
    }
    let n = lengths.len();
    dispatch!(take, k, offsets, _v => {
        let (keys, bits) = first_keys(k, n)?;
        match bits {
            None => pass(lengths, keys, offsets, |_| true),
            Some((bytes, at)) => pass(lengths, keys, offsets, valid_bit(bytes, at)),
        }
    }, Err(Error::UnsupportedType))
}

/// Writes each slot's row at `data[cursors[i]..]`, advancing the cursors.
///
/// # Errors
/// As [`range`]; [`Error::OutOfBounds`] when `data` is short.
pub(crate) fn encode<A: Allocator>(
    take: &Take<'_, '_, A>,
    opts: SortOptions,
    data: &mut [u8],
    cursors: &mut [usize],
) -> Result<()> {
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn pass<K: DictionaryKeyType, O: OffsetSize>(
        data: &mut [u8],
        cursors: &mut [usize],
        keys: &[K],
        offsets: &[O],
        values: &[u8],
        valid: impl Fn(usize) -> bool,
        flip: u8,
        null: u8,
    ) -> Result<()> {
        for (i, (c, &key)) in cursors.iter_mut().zip(keys).enumerate() {
            let out = data.get_mut(*c..).ok_or(Error::OutOfBounds)?;
            *c += if valid(i) {
                let (start, end) = range(key, offsets)?;
                write_valid(out, values, start, end, flip)?
            } else {
                *out.first_mut().ok_or(Error::OutOfBounds)? = null;
                1
            };
        }
        Ok(())
    }
    let n = cursors.len();
    let null = opts.null_sentinel();
    dispatch!(take, k, offsets, values => {
        let (keys, bits) = first_keys(k, n)?;
        let (d, c) = (&mut *data, &mut *cursors);
        match (bits, opts.descending) {
            (None, false) => pass(d, c, keys, offsets, values, |_| true, 0, null),
            (None, true) => pass(d, c, keys, offsets, values, |_| true, 0xFF, null),
            (Some((bytes, at)), desc) => pass(
                d, c, keys, offsets, values,
                valid_bit(bytes, at),
                if desc { 0xFF } else { 0 },
                null,
            ),
        }
    }, Err(Error::UnsupportedType))
}

/// Writes the rows of a converter of this one column in order through
/// `w`; `cursors[i]` becomes the end of row `i` (see [`append_bound`]).
///
/// # Errors
/// As [`range`]; [`Error::OutOfBounds`] when the rows outgrow `w`.
pub(crate) fn append<A: Allocator>(
    take: &Take<'_, '_, A>,
    opts: SortOptions,
    w: &mut Appender<'_>,
    cursors: &mut [usize],
) -> Result<()> {
    let n = cursors.len();
    dispatch!(take, k, offsets, values => {
        let keys = k.values().get(..n).ok_or(Error::OutOfBounds)?;
        let resolve = |key| range(key, offsets).map(|(s, e)| (values, s, e));
        append_slots(w, cursors, keys.iter().map(|&k| Ok(k)), resolve, k.nulls(), opts)
    }, Err(Error::UnsupportedType))
}

/// At most how many bytes the `n` rows of a converter of this one column
/// take: each valid key's row as long as the longest value's, each null
/// key's 1 byte. `None` when the values average fewer than `average` bytes,
/// or the bound does not fit or is more than twice a bound of the rows at
/// the values' average length (a few long values among short ones: the
/// general path sizes the rows exactly).
pub(crate) fn append_bound<A: Allocator>(
    take: &Take<'_, '_, A>,
    n: usize,
    average: usize,
) -> Option<usize> {
    fn longest<O: OffsetSize>(offsets: &[O]) -> Option<(usize, usize)> {
        let (first, last) = (offsets.first()?.to_usize()?, offsets.last()?.to_usize()?);
        let most = offsets
            .windows(2)
            .map(|w| {
                w[1].to_usize()
                    .unwrap_or(0)
                    .wrapping_sub(w[0].to_usize().unwrap_or(0))
            })
            .max()
            .unwrap_or(0);
        Some((most, last.checked_sub(first)?))
    }
    let (most, bytes) = match take.values {
        ArrayRef::Binary(a) => longest(a.value_offsets())?,
        ArrayRef::LargeBinary(a) => longest(a.value_offsets())?,
        ArrayRef::Utf8(a) => longest(a.value_offsets())?,
        ArrayRef::LargeUtf8(a) => longest(a.value_offsets())?,
        _ => return None,
    };
    let nulls = take.keys.null_count().min(n);
    let valid = n - nulls;
    let widest = ordered_len::<BLOCK_SIZE>(Some(most)).ok()?;
    let bound = valid.checked_mul(widest)?.checked_add(nulls)?;
    // Rows of the average value: at most `34 + l + l / 32` bytes for `l`.
    let count = take.values.len().max(1);
    if bytes < average.checked_mul(count)? {
        return None;
    }
    let average = (BLOCK_SIZE + 2) + bytes / count + bytes / count / BLOCK_SIZE;
    (bound
        <= valid
            .saturating_mul(average)
            .saturating_mul(2)
            .saturating_add(nulls))
    .then_some(bound)
}

/// Writes the rows of the slots given through `w`, one after another (no
/// sizes pass, no zeroing first): `slots` gives each slot (an error stops
/// the loop), `resolve` turns a valid one into its value
/// `values[start..end]`; `cursors[i]` becomes the end of row `i`. One loop
/// per direction and validity (see [`super::ordered_offsets`]).
#[inline(always)]
fn append_slots<'v, S, A: Allocator>(
    w: &mut Appender<'_>,
    cursors: &mut [usize],
    slots: impl Iterator<Item = Result<S>>,
    resolve: impl Fn(S) -> Result<(&'v [u8], usize, usize)>,
    nulls: Option<&NullBuffer<'_, A>>,
    opts: SortOptions,
) -> Result<()> {
    let null = opts.null_sentinel();
    let bits = nulls.map(|n| (n.inner().inner().as_slice(), n.inner().offset()));
    match (bits, opts.descending) {
        (None, false) => append_rows(w, cursors, slots, &resolve, |_| true, 0, null),
        (None, true) => append_rows(w, cursors, slots, &resolve, |_| true, 0xFF, null),
        (Some((bytes, offset)), desc) => append_rows(
            w,
            cursors,
            slots,
            &resolve,
            valid_bit(bytes, offset),
            if desc { 0xFF } else { 0 },
            null,
        ),
    }
}

/// The loop of [`append_slots`] for one direction and validity.
#[inline(always)]
fn append_rows<'v, S>(
    w: &mut Appender<'_>,
    cursors: &mut [usize],
    slots: impl Iterator<Item = Result<S>>,
    resolve: &impl Fn(S) -> Result<(&'v [u8], usize, usize)>,
    valid: impl Fn(usize) -> bool,
    flip: u8,
    null: u8,
) -> Result<()> {
    for (i, (c, slot)) in cursors.iter_mut().zip(slots).enumerate() {
        let slot = slot?;
        if !valid(i) {
            w.put(&[null])?;
        } else {
            let (values, start, end) = resolve(slot)?;
            if start == end {
                w.put(&[EMPTY ^ flip])?;
            } else {
                append_value(w, values, start, end, flip)?;
            }
        }
        *c = w.pos();
    }
    Ok(())
}

/// [`super::write_value`] through an [`Appender`]: each block built in registers
/// and written at its fixed size.
#[inline(always)]
fn append_value(
    w: &mut Appender<'_>,
    values: &[u8],
    start: usize,
    end: usize,
    flip: u8,
) -> Result<()> {
    const B: usize = BLOCK_SIZE;
    let src = values.get(start..end).ok_or(Error::OutOfBounds)?;
    let whole = src.len().checked_sub(1).ok_or(Error::OutOfBounds)? / B;
    w.put(&[NON_EMPTY ^ flip])?;
    let mut from = src;
    for _ in 0..whole {
        let (s, rest) = from.split_first_chunk::<B>().ok_or(Error::OutOfBounds)?;
        let mut block = [0u8; B + 1];
        for j in 0..B {
            block[j] = s[j] ^ flip;
        }
        block[B] = CONTINUATION ^ flip;
        w.put(&block)?;
        from = rest;
    }
    // `from` is the last block's `1..=B` bytes.
    let last = from.len();
    let mut padded = [0u8; B];
    let at = start + whole * B;
    let src: &[u8; B] = match values.get(at..at + B) {
        Some(s) => s.try_into().map_err(|_| Error::OutOfBounds)?,
        None => {
            // Near the end of `values` (or an inline view's 12 bytes):
            // copy the bytes there are, 12 at once when there are.
            match values.get(at..).and_then(<[u8]>::first_chunk::<12>) {
                Some(s) if last <= 12 => {
                    if let Some(d) = padded.first_chunk_mut::<12>() {
                        *d = *s;
                    }
                }
                _ => padded
                    .get_mut(..last)
                    .ok_or(Error::OutOfBounds)?
                    .copy_from_slice(from),
            }
            &padded
        }
    };
    let mut block = [0u8; B + 1];
    put_block(&mut block, src, mask(last)?, last as u8, flip);
    w.put(&block)
}

#[cfg(test)]
mod tests {
    use std::vec::Vec;

    use crate::Global;

    use crate::array::{
        Array, ArrayRef, BinaryArray, DictionaryArray, DictionaryKeys, Int32Array,
        LargeBinaryArray, LargeStringArray, PrimitiveArray, StringArray,
    };
    use crate::buffer::SharedBox;
    use crate::error::{Error, Result};
    use crate::row::{RowConverter, SortField, SortOptions};

    type G = Global;

    /// A byte array of type `kind` (0 Binary, 1 LargeBinary, 2 Utf8, 3
    /// LargeUtf8) of `values` (ASCII).
    fn bytes(kind: usize, values: &[Option<&[u8]>]) -> ArrayRef<'static, G> {
        let text: Vec<Option<&str>> = values
            .iter()
            .map(|v| v.map(|b| core::str::from_utf8(b).unwrap()))
            .collect();
        match kind {
            0 => BinaryArray::<G>::try_from_options_in(values, Global)
                .unwrap()
                .into_array_ref(),
            1 => LargeBinaryArray::<G>::try_from_options_in(values, Global)
                .unwrap()
                .into_array_ref(),
            2 => StringArray::<G>::try_from_options_in(&text, Global)
                .unwrap()
                .into_array_ref(),
            _ => LargeStringArray::<G>::try_from_options_in(&text, Global)
                .unwrap()
                .into_array_ref(),
        }
    }

    /// Keys of type `kind` (0 Int8, 1 UInt16, 2 Int32, 3 UInt64; a negative
    /// key wraps for the unsigned ones).
    fn keys(kind: usize, keys: &[Option<i64>]) -> DictionaryKeys<'static, G> {
        macro_rules! typed {
            ($t:ty, $v:ident) => {{
                let k: Vec<Option<$t>> = keys.iter().map(|k| k.map(|k| k as $t)).collect();
                DictionaryKeys::$v(
                    PrimitiveArray::<$t, G>::try_from_options_in(&k, Global).unwrap(),
                )
            }};
        }
        match kind {
            0 => typed!(i8, Int8),
            1 => typed!(u16, UInt16),
            2 => typed!(i32, Int32),
            _ => typed!(u64, UInt64),
        }
    }

    /// The dictionary of `keys` into `values`, unchecked (keys may lie
    /// past the values).
    fn dict(
        keys: DictionaryKeys<'static, G>,
        values: &ArrayRef<'static, G>,
    ) -> ArrayRef<'static, G> {
        let value_type = SharedBox::try_new_in(values.data_type().clone(), Global).unwrap();
        let dt = crate::datatypes::DataType::Dictionary(keys.index_type(), value_type, false);
        let v = SharedBox::try_new_in(values.clone(), Global).unwrap();
        // SAFETY: the array is only encoded, which checks the keys.
        unsafe { DictionaryArray::new_unchecked(dt, keys, v) }.into_array_ref()
    }

    fn rows(cols: &[ArrayRef<'static, G>], opts: SortOptions) -> Result<Vec<Vec<u8>>> {
        let fields: Vec<_> = cols
            .iter()
            .map(|c| SortField::new_with_options(c.data_type().clone(), opts))
            .collect();
        let c = RowConverter::try_new(&fields)?;
        let rows = c.convert_columns(cols)?;
        Ok(rows.iter().map(|r| r.data().to_vec()).collect())
    }

    /// Dictionaries of byte values encoded by value are the rows of the
    /// values their keys take, whether taken (at most as many valid
    /// keys as values) or copied from a table (more keys): alone (values
    /// long and short: appended or sized first), beside another column,
    /// sliced, every key and value type, direction and null order; a key
    /// past the values or negative is `DictionaryKeyOutOfBounds`.
    #[test]
    fn dictionary_rows_are_the_rows_of_the_values_taken() {
        let words: Vec<Vec<u8>> = (0..40usize)
            .map(|i| {
                (0..(i * 7) % 101)
                    .map(|j| b'a' + ((i + j * 3) % 26) as u8)
                    .collect()
            })
            .collect();
        let short: Vec<Vec<u8>> = words.iter().map(|w| w[..w.len() % 19].to_vec()).collect();
        // One length (rows of one width above 64 bytes: the table's
        // rows appended, when there are many keys a value).
        let uniform: Vec<Vec<u8>> = (0..40u8).map(|i| std::vec![b'a' + i % 26; 40]).collect();
        let ints =
            Int32Array::from((0..200).map(|i| i * 7 - 300).collect::<Vec<i32>>()).into_array_ref();
        for (kind, words) in (0..4).flat_map(|k| [(k, &words), (k, &short), (k, &uniform)]) {
            let list: Vec<Option<&[u8]>> = words.iter().map(|w| Some(w.as_slice())).collect();
            let values = bytes(kind, &list);
            for (n, null_every) in [(48, 5), (40, 0), (200, 4), (200, 0)] {
                let ks: Vec<Option<i64>> = (0..n)
                    .map(|i| {
                        (null_every == 0 || i % null_every != 2).then_some((i * 13 % 40) as i64)
                    })
                    .collect();
                let col = dict(keys(kind, &ks), &values);
                let taken: Vec<Option<&[u8]>> = ks
                    .iter()
                    .map(|k| k.map(|k| list[k as usize].unwrap()))
                    .collect();
                let plain = bytes(kind, &taken);
                for (desc, nulls_first) in
                    [(false, true), (true, false), (false, false), (true, true)]
                {
                    let opts = SortOptions::new(desc, nulls_first);
                    for (c, p) in [
                        (col.clone(), plain.clone()),
                        (col.slice(3, n - 9).unwrap(), plain.slice(3, n - 9).unwrap()),
                    ] {
                        let len = c.len();
                        let case = (kind, n, null_every, opts, len);
                        let same = rows(core::slice::from_ref(&c), opts)
                            == rows(core::slice::from_ref(&p), opts);
                        assert!(same, "alone: {case:?}");
                        let other = ints.slice(0, len).unwrap();
                        let same = rows(&[c.clone(), other.clone()], opts)
                            == rows(&[p, other.clone()], opts);
                        assert!(same, "beside another: {case:?}");
                    }
                    // A key past the values, and a negative one.
                    for bad in [40, -1] {
                        let mut ks = ks.clone();
                        ks[n / 2] = Some(bad);
                        let col = dict(keys(kind, &ks), &values);
                        let other = ints.slice(0, n).unwrap();
                        for cols in [std::vec![col.clone()], std::vec![col, other]] {
                            assert_eq!(rows(&cols, opts), Err(Error::DictionaryKeyOutOfBounds));
                        }
                    }
                }
            }
        }
    }
}
