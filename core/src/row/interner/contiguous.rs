//! Decoding every row of a [`Rows`](crate::row::Rows) straight from its byte buffer and
//! offsets, for converters of one ordered dictionary column whose
//! interner keeps the values' raw bytes (byte arrays or primitives: see
//! [`super::gather`]): no slice per row gathered first.
//!
//! A well-formed row is the whole dictionary piece: `0x01`, a key, the
//! terminator (key and terminator inverted when descending), or the null
//! sentinel alone. First each row's raw span is looked up (one- and
//! two-byte keys from the row's length and bytes through the key tables
//! held in registers, other rows through [`Reader::next_span`]) into a span
//! buffer, summing the value bytes; then the values are gathered from the
//! spans ([`gather`]: byte values appended `ROOM` bytes per copy into room
//! of exactly their size plus one copy's slack, nothing zeroed first). Any
//! row that does not decode (malformed, an unknown key, bytes left after
//! the piece) makes the caller decode the rows through `convert_rows`
//! instead, so the errors are the same.

use allocator_api2::alloc::Allocator;

use super::gather::{decodes_to, gather, NULL_SPAN};
use super::{Interner, Reader, ShortSpans};
use crate::array::ArrayRef;
use crate::buffer::{SharedSlice, TryVec};
use crate::error::{Error, Result};
use crate::row::decode::one_column;
use crate::row::source::Contiguous;
use crate::row::Node;

/// Decodes every row of `rows` as the value of the one dictionary column
/// `node` (through its mapping `interner`); `Ok(None)` when its interner keeps no
/// raw values of the decoded type, there are no rows, or a row does not
/// decode, for the caller to decode them through the iterator instead.
///
/// # Errors
/// [`Error::InvalidUtf8`] (the column's checks); [`Error::CapacityOverflow`];
/// [`Error::AllocationFailed`].
pub(crate) fn decode_all<'a, A>(
    node: &Node<'a, A>,
    interner: &Interner<A>,
    rows: Contiguous<'_>,
    alloc: &A,
) -> Result<Option<SharedSlice<'a, ArrayRef<'a, A>, A>>>
where
    A: Allocator + Clone,
{
    let dt = &node.child()?.decoded;
    let (kind, raw) = interner.raw();
    if rows.is_empty() || !decodes_to(kind, dt) {
        return Ok(None);
    }
    let n = rows.len();
    let mut reader = interner.reader(node.options, alloc);
    let mut spans = TryVec::new_in(alloc.clone());
    spans.try_reserve_exact(n)?;
    spans.try_extend_from_fn(n, |_| [0, 0])?;
    let out = spans.as_mut_slice();
    let short = reader.short();
    let Some((total, nulls)) = look_up(short, &mut reader, rows.offsets(), rows.data(), out) else {
        return Ok(None);
    };
    let total = usize::try_from(total).map_err(|_| Error::CapacityOverflow)?;
    let Some(column) = gather(kind, dt, raw, (&spans, nulls), total, alloc)? else {
        return Ok(None);
    };
    one_column(column, alloc).map(Some)
}

/// Looks up the raw span of each row `data[starts[j]..starts[j + 1]]` into
/// `spans[j]` ([`NULL_SPAN`] for a null): the value bytes of the rows and
/// the number of nulls; `None` when a row does not decode or has bytes
/// after its piece.
#[inline(always)]
fn look_up<A: Allocator>(
    short: ShortSpans<'_>,
    reader: &mut Reader<'_, A>,
    starts: &[usize],
    data: &[u8],
    spans: &mut [[u32; 2]],
) -> Option<(u64, usize)> {
    let (t, null) = (short.flip, short.null);
    let (&first, rest) = starts.split_first()?;
    if rest.len() != spans.len() {
        return None;
    }
    let mut prev = first;
    let (mut total, mut nulls) = (0u64, 0usize);
    for (&e, out) in rest.iter().zip(spans.iter_mut()) {
        let s = prev;
        prev = e;
        let row = data.get(s..e)?;
        // A key byte equal to the terminator (`0` once un-inverted) is in
        // no issued key: the tables do not find it and the reader decides.
        let found = match *row {
            [1, a, b, z] if z == t => short.two(a ^ t, b ^ t),
            [1, a, z] if z == t => short.one(a ^ t),
            [x] if x == null => Some(NULL_SPAN),
            _ => None,
        };
        let span = match found {
            Some(span) => span,
            None => slow(reader, row)?,
        };
        *out = span;
        if span[1] == u32::MAX {
            nulls += 1;
        } else {
            total += u64::from(span[1]);
        }
    }
    Some((total, nulls))
}

/// The raw span of a row whose piece is not a one- or two-byte key or a
/// null (or whose key was not found in the tables): through the reader;
/// `None` when it does not decode or bytes are left after the piece.
#[cold]
#[inline(never)]
fn slow<A: Allocator>(reader: &mut Reader<'_, A>, mut row: &[u8]) -> Option<[u32; 2]> {
    let span = reader.next_span(&mut row).ok()?;
    row.is_empty().then_some(span.unwrap_or(NULL_SPAN))
}

#[cfg(test)]
mod tests {
    use crate::row::Rows;

    /// The decoder on all rows of `rows`.
    fn decode_all<'a>(
        node: &Node<'a, Global>,
        interner: &Interner<Global>,
        rows: &Rows<Global>,
        alloc: &Global,
    ) -> Result<Option<SharedSlice<'a, ArrayRef<'a, Global>, Global>>> {
        super::decode_all(node, interner, Contiguous::of(rows), alloc)
    }
    use std::vec::Vec;

    use allocator_api2::alloc::Global;

    use super::*;
    use crate::array::{Array, DictionaryArray, DictionaryKeys, PrimitiveArray};
    use crate::buffer::SharedBox;
    use crate::datatypes::DataType::*;
    use crate::datatypes::{DataType, IndexType};
    use crate::error::ErrorKind;
    use crate::row::test_model::{build, value_at, Rng, Seeded, V};
    use crate::row::{Row, SortField, SortOptions};

    type G = Global;
    type Dt = DataType<'static, G>;

    fn options() -> [SortOptions; 4] {
        [(false, true), (false, false), (true, true), (true, false)]
            .map(|(d, f)| SortOptions::new(d, f))
    }

    /// Value `i` of a dictionary: distinct, ordered by `i`, 6 to 95 bytes
    /// when `long` (else 6), UTF-8.
    fn value(i: usize, long: bool) -> V {
        let mut b = std::format!("v{i:05}").into_bytes();
        if long && i % 3 == 0 {
            b.extend(core::iter::repeat_n(b'x', i % 90));
        }
        V::B(b)
    }

    /// A dictionary column of type `vt` over `values` plus a null value:
    /// every value once, then random picks, null keys and the null value;
    /// and the value of each slot.
    fn column(vt: &Dt, values: &[V], rng: &mut Rng) -> (ArrayRef<'static, G>, Vec<V>) {
        let mut dict = values.to_vec();
        dict.push(V::Null);
        let count = values.len();
        let keys: Vec<Option<i32>> = (0..count + 300)
            .map(|i| match (i < count, rng.below(8)) {
                (true, _) => Some(i as i32),
                (false, 0) => None,
                (false, 1) => Some(count as i32),
                _ => Some(rng.below(count as u64) as i32),
            })
            .collect();
        let slots = keys
            .iter()
            .map(|k| k.map_or(V::Null, |k| dict[k as usize].clone()))
            .collect();
        let keys =
            DictionaryKeys::Int32(PrimitiveArray::try_from_options_in(&keys, Global).unwrap());
        let col = DictionaryArray::try_new_in(keys, build(vt, &dict), false, Global).unwrap();
        (col.into_array_ref(), slots)
    }

    fn dict_type(vt: &Dt) -> Dt {
        Dictionary(
            IndexType::Int32,
            SharedBox::try_new_in(vt.clone(), Global).unwrap(),
            false,
        )
    }

    fn converter(vt: &Dt, opts: SortOptions) -> Seeded {
        let dt = dict_type(vt);
        Seeded::with_encoding(
            &[SortField::new_with_options(dt, opts)],
            crate::row::RowEncoding::Seed,
        )
    }

    /// `convert_all_rows` gives what `convert_rows(rows.iter())` gives; the
    /// error, if any. `taken`: this module's path must decode the rows.
    fn check(c: &Seeded, rows: &Rows<G>, taken: bool) -> Option<Error> {
        let direct = decode_all(
            c.nodes.first().unwrap(),
            &c.i.dictionaries[0],
            rows,
            &Global,
        )
        .unwrap();
        let want = c.convert_rows(rows.iter());
        let got = c.convert_all_rows(rows);
        match (&got, &want) {
            (Ok(g), Ok(w)) => {
                assert!(g[0] == w[0], "{g:?} != {w:?}");
                assert_eq!(g[0].null_count(), w[0].null_count());
                assert!(!taken || direct.is_some(), "path not taken");
                None
            }
            (Err(g), Err(w)) => {
                assert_eq!(g, w);
                assert!(direct.is_none());
                Some(*g)
            }
            _ => panic!("{got:?} vs {want:?}"),
        }
    }

    fn rows_of(rows: &[Vec<u8>]) -> Rows<G> {
        let mut r = Rows::new_in(Global);
        for row in rows {
            r.try_push(Row::new(row)).unwrap();
        }
        r
    }

    /// Dictionaries of one-byte keys (5 values), two-byte keys through the
    /// bitmap (300) and the dense table (1,500), short and long values, of
    /// every byte array type, in every sort order: each slot decodes to its
    /// value, as `convert_rows` decodes it; then mutated rows (a byte
    /// changed, cut, added; a random key) give its results or its errors.
    #[test]
    fn rows_decode_as_convert_rows() {
        let mut rng = Rng(0x5EED_D1C7);
        let (mut unknown, mut invalid) = (0, 0);
        for vt in [Utf8, LargeUtf8, Binary, LargeBinary] {
            for (count, long) in [(5, false), (300, true), (1500, false), (1500, true)] {
                let values: Vec<V> = (0..count).map(|i| value(i, long)).collect();
                for opts in options() {
                    let (col, slots) = column(&vt, &values, &mut rng);
                    let mut c = converter(&vt, opts);
                    let rows = c.convert_columns(core::slice::from_ref(&col)).unwrap();
                    assert_eq!(check(&c, &rows, true), None);
                    let got = c.convert_all_rows(&rows).unwrap();
                    for (i, want) in slots.iter().enumerate() {
                        assert_eq!(value_at(&got[0], i), *want, "slot {i}");
                    }
                    let issued: Vec<Vec<u8>> = rows.iter().map(|r| r.data().to_vec()).collect();
                    let (t, f) = if opts.descending {
                        (0xFF, 0xFF)
                    } else {
                        (0, 0)
                    };
                    for _ in 0..40 {
                        let mut mutated = issued.clone();
                        let at = rng.below(mutated.len() as u64) as usize;
                        let row = &mut mutated[at];
                        match rng.below(5) {
                            0 => {
                                let k = rng.below(row.len() as u64) as usize;
                                row[k] = rng.next() as u8;
                            }
                            1 => row.truncate(rng.below(row.len() as u64) as usize),
                            2 => row.push(rng.next() as u8),
                            _ => {
                                let len = 1 + rng.below(3) as usize;
                                *row = std::vec![1u8];
                                row.extend((0..len).map(|_| (rng.next() as u8).max(1) ^ f));
                                row.push(t);
                            }
                        }
                        match check(&c, &rows_of(&mutated), false).map(|e| e.kind()) {
                            Some(ErrorKind::UnknownDictionaryKey) => unknown += 1,
                            Some(ErrorKind::InvalidRow) => invalid += 1,
                            _ => {}
                        }
                    }
                }
            }
        }
        assert!(unknown > 20 && invalid > 20, "{unknown} {invalid}");
    }

    /// Keys of three bytes (values added between two neighbours with
    /// two-byte keys, over three batches) decode through the reader on the
    /// same path.
    #[test]
    fn long_keys_decode() {
        let mut rng = Rng(77);
        for opts in options() {
            let mut c = converter(&Utf8, opts);
            let strs = |v: Vec<std::string::String>| V::B(v.concat().into_bytes());
            let batches: [Vec<V>; 3] = [
                std::vec![strs(std::vec!["a".into()]), strs(std::vec!["c".into()])],
                (0..300)
                    .map(|i| strs(std::vec![std::format!("b{i:03}")]))
                    .collect(),
                (0..200)
                    .map(|i| strs(std::vec![std::format!("b000{i:03}")]))
                    .collect(),
            ];
            let mut last = None;
            for values in &batches {
                let (col, slots) = column(&Utf8, values, &mut rng);
                let rows = c.convert_columns(core::slice::from_ref(&col)).unwrap();
                last = Some((rows, slots));
            }
            let (rows, slots) = last.unwrap();
            assert!(rows.iter().any(|r| r.data().len() == 5), "three-byte keys");
            assert_eq!(check(&c, &rows, true), None);
            let got = c.convert_all_rows(&rows).unwrap();
            for (i, want) in slots.iter().enumerate() {
                assert_eq!(value_at(&got[0], i), *want, "slot {i}");
            }
        }
    }

    /// Dictionaries of integers and floats (raw values of their own width)
    /// also decode on this path, in every sort order, with bitmap and dense
    /// two-byte keys.
    #[test]
    fn primitive_dictionaries_decode() {
        let mut rng = Rng(11);
        for count in [50usize, 1500] {
            let ints: Vec<V> = (0..count as i128).map(|i| V::I(i * 3 - 700)).collect();
            let floats: Vec<V> = (0..count)
                .map(|i| crate::row::test_model::float(i as f64 * 0.25 - 9.0))
                .collect();
            for (vt, values) in [(Int64, &ints), (Int16, &ints), (Float64, &floats)] {
                for opts in options() {
                    let (col, slots) = column(&vt, values, &mut rng);
                    let mut c = converter(&vt, opts);
                    let rows = c.convert_columns(core::slice::from_ref(&col)).unwrap();
                    assert_eq!(check(&c, &rows, true), None);
                    let got = c.convert_all_rows(&rows).unwrap();
                    for (i, want) in slots.iter().enumerate() {
                        assert_eq!(value_at(&got[0], i), *want, "slot {i}");
                    }
                }
            }
        }
    }

    /// Dictionaries without raw values, unordered dictionaries and empty
    /// `Rows` go through `convert_rows`, with its results.
    #[test]
    fn other_columns_fall_back() {
        let mut rng = Rng(5);
        let bools = [V::Bool(false), V::Bool(true)];
        let (col, _) = column(&Boolean, &bools, &mut rng);
        let mut c = converter(&Boolean, SortOptions::default());
        let rows = c.convert_columns(core::slice::from_ref(&col)).unwrap();
        let node = c.nodes.first().unwrap();
        assert!(decode_all(node, &c.i.dictionaries[0], &rows, &Global)
            .unwrap()
            .is_none());
        assert_eq!(check(&c, &rows, false), None);
        let c = converter(&Utf8, SortOptions::default());
        let empty = Rows::new_in(Global);
        assert!(decode_all(
            c.nodes.first().unwrap(),
            &c.i.dictionaries[0],
            &empty,
            &Global
        )
        .unwrap()
        .is_none());
        assert!(c.convert_all_rows(&empty).unwrap()[0].is_empty());
    }
}
