//! Behaviour of the interner through the converter: interning, repeated
//! dictionaries, decoding, and malformed rows.

/// Interning batches: key spans, growth between neighbours.
mod interning {
    use super::super::*;
    use crate::Global;
    use std::vec::Vec;

    fn rows_of(values: &[&[u8]]) -> Rows<Global> {
        let mut r = Rows::new_in(Global);
        for v in values {
            r.try_push(crate::row::Row::new(v)).unwrap();
        }
        r
    }

    fn check_sorted(i: &Interner<Global>) {
        let e = i.entries.as_slice();
        for w in e.windows(2) {
            assert!(i.value(&w[0]).unwrap() < i.value(&w[1]).unwrap());
            assert!(i.key(&w[0]).unwrap() < i.key(&w[1]).unwrap());
        }
        for x in e {
            let k = i.key(x).unwrap();
            assert!(k.iter().all(|&b| b != 0));
            assert!(*k.last().unwrap() >= 2);
            let mut row = std::vec![1u8];
            row.extend_from_slice(k);
            row.push(0);
            let p = i.read(&mut &row[..], crate::row::SortOptions::default());
            assert_eq!(i.value_at(p.unwrap().unwrap()).ok(), i.value(x).ok());
        }
    }

    /// `intern_keys` hands back every value's key span: values interned
    /// before, new ones (also repeated), nulls; on an empty interner and
    /// on later batches.
    #[test]
    fn key_spans_of_a_batch() {
        let mut i = Interner::new_in(Global);
        let first: [&[u8]; 4] = [b"\x01m", b"\x00", b"\x01c", b"\x01m"];
        let spans = i.intern_keys(rows_of(&first), 0, &Global).unwrap();
        let check = |i: &Interner<Global>, batch: &[&[u8]], spans: &TryVec<[u32; 2], Global>| {
            assert_eq!(spans.len(), batch.len());
            for (v, &[start, len]) in batch.iter().zip(spans.iter()) {
                if v[0] == 0 {
                    assert_eq!(len, 0);
                } else {
                    assert_eq!(bytes_at(&i.keys, start, len).ok(), i.key_of(v), "{v:?}");
                }
            }
        };
        check(&i, &first, &spans);
        check_sorted(&i);
        let second: [&[u8]; 6] = [b"\x01c", b"\x01d", b"\x00", b"\x01m", b"\x01d", b"\x01c"];
        let spans = i.intern_keys(rows_of(&second), 0, &Global).unwrap();
        check(&i, &second, &spans);
        let third: [&[u8]; 4] = [b"\x01a", b"\x01z", b"\x01d", b"\x01b"];
        let spans = i.intern_keys(rows_of(&third), 0, &Global).unwrap();
        check(&i, &third, &spans);
        assert_eq!(i.len(), 6);
        check_sorted(&i);
    }

    #[test]
    fn grows_consistently() {
        let mut i = Interner::new_in(Global);
        i.intern_keys(
            rows_of(&[b"\x01m", b"\x01c", b"\x00", b"\x01x", b"\x01c"]),
            0,
            &Global,
        )
        .unwrap();
        assert_eq!(i.len(), 3);
        check_sorted(&i);
        let km: Vec<u8> = i.key_of(b"\x01m").unwrap().to_vec();
        // Many values squeezed between two neighbours, on both sides, at the ends.
        let many: Vec<Vec<u8>> = (0..600u32)
            .map(|n| {
                let mut v = std::vec![1u8, b'd'];
                v.extend_from_slice(&n.to_be_bytes());
                v
            })
            .collect();
        let refs: Vec<&[u8]> = many.iter().map(|v| &v[..]).collect();
        i.intern_keys(rows_of(&refs), 0, &Global).unwrap();
        i.intern_keys(rows_of(&[b"\x01a", b"\x01\xFF\xFF", b"\x01n"]), 0, &Global)
            .unwrap();
        assert_eq!(i.len(), 606);
        check_sorted(&i);
        assert_eq!(i.key_of(b"\x01m").unwrap(), &km[..]);
        // Repeated squeezing into the same gap keeps working.
        for round in 0..40u8 {
            let v = [1u8, b'm', round];
            i.intern_keys(rows_of(&[&v]), 0, &Global).unwrap();
            let w = [1u8, b'c', 0xFF - round];
            i.intern_keys(rows_of(&[&w]), 0, &Global).unwrap();
        }
        check_sorted(&i);
        assert_eq!(i.len(), 686);
    }

    /// Values added one at a time between the last two make keys of more
    /// than 8 bytes that share their first 8 (prefixes decide nothing):
    /// every key still reads back as its own entry, in both directions,
    /// and other keys of the same length and prefix are unknown.
    #[test]
    fn long_keys_read_back() {
        let mut i = Interner::new_in(Global);
        i.intern_keys(rows_of(&[b"\x01a", b"\x01b"]), 0, &Global)
            .unwrap();
        // Each value just above "a" and below the last one added.
        for n in 0..600u32 {
            let mut v = std::vec![1u8, b'a'];
            v.extend_from_slice(&(u32::MAX - n).to_be_bytes());
            i.intern_keys(rows_of(&[&v]), 0, &Global).unwrap();
        }
        check_sorted(&i);
        let longest = i.entries.iter().map(|e| e.key_len).max().unwrap();
        assert!(longest >= 12, "{longest}");
        for desc in [false, true] {
            let opts = crate::row::SortOptions::new(desc, true);
            let t = if desc { 0xFF } else { 0 };
            for (at, e) in i.entries.iter().enumerate() {
                let k = i.key(e).unwrap();
                let row = |k: &[u8]| {
                    let mut r = std::vec![1u8];
                    r.extend(k.iter().map(|b| b ^ t));
                    r.push(t);
                    r
                };
                assert_eq!(i.read(&mut &row(k)[..], opts), Ok(Some(at)));
                let mut other = k.to_vec();
                *other.last_mut().unwrap() ^= 1;
                let want = i
                    .entries
                    .iter()
                    .position(|e| i.key(e).unwrap() == &other[..]);
                let got = i.read(&mut &row(&other)[..], opts);
                assert_eq!(got.ok().flatten(), want, "{k:?}");
            }
        }
    }
}

/// Batches that repeat a dictionary, or carry one like it, give the same
/// rows as encoding its values again.
mod repeated {
    use crate::Global as G;
    use std::vec::Vec;

    use crate::array::{
        Array, ArrayRef, DictionaryArray, DictionaryKeys, PrimitiveArray, StringArray,
    };
    use crate::buffer::SharedBox;
    use crate::datatypes::{DataType, IndexType};
    use crate::row::test_model::Seeded;
    use crate::row::{SortField, SortOptions};

    pub(super) fn dict_type() -> DataType<'static, G> {
        DataType::Dictionary(
            IndexType::Int32,
            SharedBox::try_new_in(DataType::Utf8, G).unwrap(),
            false,
        )
    }

    pub(super) fn dict(values: &[Option<&str>], keys: &[i32]) -> ArrayRef<'static, G> {
        DictionaryArray::try_new_in(
            DictionaryKeys::Int32(
                PrimitiveArray::try_from_options_in(
                    &keys.iter().map(|&k| Some(k)).collect::<Vec<_>>(),
                    G,
                )
                .unwrap(),
            ),
            StringArray::<G>::try_from_options_in(values, G)
                .unwrap()
                .into_array_ref(),
            false,
            G,
        )
        .unwrap()
        .into_array_ref()
    }

    pub(super) fn bytes(c: &mut Seeded, col: &ArrayRef<'static, G>) -> Vec<Vec<u8>> {
        let rows = c.convert_columns(core::slice::from_ref(col)).unwrap();
        rows.iter().map(|r| r.data().to_vec()).collect()
    }

    fn decoded(c: &Seeded, rows: &[Vec<u8>]) -> Vec<Option<std::string::String>> {
        let back = c
            .convert_rows(
                rows.iter()
                    .map(|r| crate::row::Row::new(r))
                    .collect::<Vec<_>>(),
            )
            .unwrap();
        let ArrayRef::Utf8(s) = &back[0] else {
            panic!("expected Utf8")
        };
        s.iter()
            .map(|v| v.map(std::string::ToString::to_string))
            .collect()
    }

    /// A dictionary alone with null keys whose key rows have one length
    /// (written in order by `encode::append_single`): the next batch's
    /// rows are the same.
    #[test]
    fn null_keys_alone_repeat() {
        let mut c = Seeded::with_encoding(
            &[SortField::new(dict_type())],
            crate::row::RowEncoding::Seed,
        );
        let a = DictionaryArray::try_new_in(
            DictionaryKeys::Int32(
                PrimitiveArray::try_from_options_in(&[Some(1), None, Some(0), None], G).unwrap(),
            ),
            StringArray::<G>::try_from_options_in(&[Some("pear"), Some("fig")], G)
                .unwrap()
                .into_array_ref(),
            false,
            G,
        )
        .unwrap()
        .into_array_ref();
        let first = bytes(&mut c, &a);
        assert_eq!(first[1], [SortOptions::default().null_sentinel()]);
        assert_eq!(bytes(&mut c, &a), first);
        assert_eq!(
            decoded(&c, &first),
            [Some("fig".into()), None, Some("pear".into()), None]
        );
    }

    /// A repeated dictionary gives the same bytes; a dictionary of the
    /// same shape but other bytes, a sliced one and one with nulls give
    /// their own values' keys.
    #[test]
    fn same_dictionary_same_rows() {
        for opts in [SortOptions::new(false, true), SortOptions::new(true, false)] {
            let mut c = Seeded::with_encoding(
                &[SortField::new_with_options(dict_type(), opts)],
                crate::row::RowEncoding::Seed,
            );
            let a = dict(&[Some("pear"), Some("fig")], &[0, 1, 1, 0]);
            let first = bytes(&mut c, &a);
            assert_eq!(bytes(&mut c, &a), first);
            // A copy of the same dictionary (other memory).
            let copy = dict(&[Some("pear"), Some("fig")], &[1, 0]);
            assert_eq!(bytes(&mut c, &copy), [first[1].clone(), first[0].clone()]);
            // Same offsets, other bytes: the right keys.
            let other = dict(&[Some("pear"), Some("fog")], &[0, 1]);
            let rows = bytes(&mut c, &other);
            assert_eq!(rows[0], first[0]);
            assert_ne!(rows[1], first[1]);
            assert_eq!(
                decoded(&c, &rows),
                [Some("pear".into()), Some("fog".into())]
            );
            // fig < fog < pear (reversed when descending).
            assert_eq!(first[1] < rows[1], !opts.descending);
            assert_eq!(rows[1] < rows[0], !opts.descending);
            // Sliced values (offsets no longer from 0) and null values.
            let values = StringArray::<G>::try_from_options_in(
                &[Some("kiwi"), Some("fig"), None, Some("pear")],
                G,
            )
            .unwrap()
            .into_array_ref();
            let sliced = DictionaryArray::try_new_in(
                DictionaryKeys::Int32(PrimitiveArray::from_slice(&[0, 1, 2])),
                values.slice(1, 3).unwrap(),
                false,
                G,
            )
            .unwrap()
            .into_array_ref();
            let rows = bytes(&mut c, &sliced);
            assert_eq!(rows[0], first[1]);
            assert_eq!(rows[1], [opts.null_sentinel()]);
            assert_eq!(rows[2], first[0]);
            assert_eq!(bytes(&mut c, &sliced), rows);
            assert_eq!(
                decoded(&c, &rows),
                [Some("fig".into()), None, Some("pear".into())]
            );
        }
    }
}

/// The table cache changes no byte: each batch of a run of repeated and
/// same-length dictionaries encodes as a fresh converter fed the run so
/// far, each batch after an empty dictionary (a cache miss).
#[test]
fn cached_tables_match_fresh_converters() {
    use crate::Global as G;
    use repeated::{bytes, dict, dict_type};
    let field = crate::row::SortField::new(dict_type());
    let seeded = || {
        crate::row::test_model::Seeded::with_encoding(
            core::slice::from_ref(&field),
            crate::row::RowEncoding::Seed,
        )
    };
    let a = dict(&[Some("pear"), Some("fig"), None], &[0, 1, 2, 1]);
    let b = dict(&[Some("pear"), Some("fog"), None], &[1, 0, 2, 1]);
    let c = dict(&[Some("peas"), Some("fog"), Some("x")], &[2, 0, 1, 0]);
    let run: [&crate::array::ArrayRef<'static, G>; 7] = [&a, &a, &b, &b, &a, &c, &b];
    let mut cached = seeded();
    for (k, col) in run.iter().enumerate() {
        let mut fresh = seeded();
        let empty = dict(&[], &[]);
        let mut expected = None;
        for x in &run[..=k] {
            bytes(&mut fresh, &empty);
            expected = Some(bytes(&mut fresh, x));
        }
        assert_eq!(Some(bytes(&mut cached, col)), expected, "batch {k}");
    }
}

/// Rows decode as `convert_rows` decodes them, or fail with its errors.
mod decoding {
    use std::vec::Vec;

    use crate::Global;

    use crate::array::{Array, ArrayRef, DictionaryArray, DictionaryKeys, PrimitiveArray};
    use crate::buffer::SharedBox;
    use crate::datatypes::DataType::*;
    use crate::datatypes::{DataType, IndexType};
    use crate::error::{Error, ErrorKind};
    use crate::row::test_model::{build, value_at, Rng, Seeded, V};
    use crate::row::{Row, Rows, SortField, SortOptions};

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
    /// error, if any.
    fn check(c: &Seeded, rows: &Rows<G>) -> Option<Error> {
        let want = c.convert_rows(rows.iter());
        let got = c.convert_all_rows(rows);
        match (&got, &want) {
            (Ok(g), Ok(w)) => {
                assert!(g[0] == w[0], "{g:?} != {w:?}");
                assert_eq!(g[0].null_count(), w[0].null_count());
                None
            }
            (Err(g), Err(w)) => {
                assert_eq!(g, w);
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

    /// Dictionaries of one-byte keys (5 values), two-byte keys (300 and
    /// 1,500 values), short and long values, of
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
                    assert_eq!(check(&c, &rows), None);
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
                        match check(&c, &rows_of(&mutated)).map(|e| e.kind()) {
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
    /// two-byte keys, over three batches) decode.
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
            assert_eq!(check(&c, &rows), None);
            let got = c.convert_all_rows(&rows).unwrap();
            for (i, want) in slots.iter().enumerate() {
                assert_eq!(value_at(&got[0], i), *want, "slot {i}");
            }
        }
    }

    /// Dictionaries of integers and floats
    /// also decode, in every sort order, with one- and
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
                    assert_eq!(check(&c, &rows), None);
                    let got = c.convert_all_rows(&rows).unwrap();
                    for (i, want) in slots.iter().enumerate() {
                        assert_eq!(value_at(&got[0], i), *want, "slot {i}");
                    }
                }
            }
        }
    }

    /// Boolean dictionaries and empty `Rows` decode as `convert_rows` does.
    #[test]
    fn other_columns_decode() {
        let mut rng = Rng(5);
        let bools = [V::Bool(false), V::Bool(true)];
        let (col, _) = column(&Boolean, &bools, &mut rng);
        let mut c = converter(&Boolean, SortOptions::default());
        let rows = c.convert_columns(core::slice::from_ref(&col)).unwrap();
        assert_eq!(check(&c, &rows), None);
        let c = converter(&Utf8, SortOptions::default());
        let empty = Rows::new_in(Global);
        assert!(c.convert_all_rows(&empty).unwrap()[0].is_empty());
    }
}

/// Decoding exact values; crafted and random rows are errors, never panics.
mod crafted {
    use crate::Global as G;
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

    /// Rows that repeat few dictionary values decode to the values.
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

    /// Enough values for two-byte keys, each repeated or not, in both
    /// directions: every row decodes to its value.
    #[test]
    fn two_byte_keys_decode_exactly() {
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
