//! The interner's row bytes, pinned: batches that grow the mapping (values
//! between, below and above earlier ones, squeezed into one gap again and
//! again, thousands of new values, nulls) in every sort order, hashed and
//! compared with the hashes the seed's interner gave, so that any change
//! to key assignment shows. Every batch also decodes back to its values.

use crate::Global as G;
use std::vec::Vec;

use crate::array::{Array, ArrayRef, DictionaryArray, DictionaryKeys, PrimitiveArray};
use crate::buffer::SharedBox;
use crate::datatypes::DataType::{self, *};
use crate::datatypes::IndexType;
use crate::row::test_model::{build, value_at, Rng, Seeded, V};
use crate::row::{RowEncoding, SortField, SortOptions};

type Dt = DataType<'static, G>;

fn dict_type(vt: &Dt) -> Dt {
    Dictionary(
        IndexType::Int32,
        SharedBox::try_new_in(vt.clone(), G).unwrap(),
        false,
    )
}

/// A dictionary column over `values` (in this order) plus a null value,
/// each value once then random picks and null keys; and each slot's value.
fn column(vt: &Dt, values: &[V], rng: &mut Rng) -> (ArrayRef<'static, G>, Vec<V>) {
    let mut dict = values.to_vec();
    dict.push(V::Null);
    let n = dict.len();
    let keys: Vec<Option<i32>> = (0..n + 20)
        .map(|i| match (i < n, rng.below(6)) {
            (true, _) => Some(i as i32),
            (false, 0) => None,
            _ => Some(rng.below(n as u64) as i32),
        })
        .collect();
    let slots = keys
        .iter()
        .map(|k| k.map_or(V::Null, |k| dict[k as usize].clone()))
        .collect();
    let keys = DictionaryKeys::Int32(PrimitiveArray::try_from_options_in(&keys, G).unwrap());
    let col = DictionaryArray::try_new_in(keys, build(vt, &dict), false, G).unwrap();
    (col.into_array_ref(), slots)
}

fn s(x: &str) -> V {
    V::B(x.as_bytes().to_vec())
}

/// The batches' values: strings (`text`) or integers of the same order.
fn batches(text: bool, rng: &mut Rng) -> Vec<Vec<V>> {
    let v = |x: std::string::String| {
        if text {
            s(&x)
        } else {
            // Order-preserving map of short lowercase strings to integers.
            let mut n = 0i128;
            for i in 0..8 {
                let b = x.as_bytes().get(i).copied().unwrap_or(0);
                n = n * 256 + i128::from(b);
            }
            V::I(n - (1 << 62))
        }
    };
    let word = |rng: &mut Rng, len: u64| -> std::string::String {
        (0..1 + rng.below(len))
            .map(|_| char::from(b'a' + rng.below(26) as u8))
            .collect()
    };
    let mut out = std::vec![["m", "c", "x"].map(|w| v(w.into())).to_vec()];
    out.push((0..600).map(|i| v(std::format!("d{i:04}"))).collect());
    out.push(["a", "zzzzz", "n"].map(|w| v(w.into())).to_vec());
    // Squeezed: above the last one added, below the last one added.
    for round in 0..40usize {
        out.push(std::vec![v(std::format!("m{round:03}"))]);
        out.push(std::vec![v(std::format!("c{}", "z".repeat(7 - round % 7)))]);
        out.push(std::vec![v(std::format!("b{}", "z".repeat(40 - round)))]);
    }
    for len in [3, 7] {
        out.push((0..3000).map(|_| v(word(rng, len))).collect());
    }
    // Old and new values mixed.
    let mut all: Vec<V> = out.iter().flatten().cloned().collect();
    all.sort_by(|a, b| std::format!("{a:?}").cmp(&std::format!("{b:?}")));
    all.dedup();
    out.push(all.into_iter().step_by(7).chain([v("q".into())]).collect());
    out
}

/// FNV-1a over every row (its length, then its bytes) of every batch, per
/// sort order and value type; every batch decodes back to its slots.
fn hashes() -> Vec<u64> {
    let mut got = Vec::new();
    for (vt, text) in [(Utf8, true), (Int64, false)] {
        for (d, f) in [(false, true), (false, false), (true, true), (true, false)] {
            let opts = SortOptions::new(d, f);
            let field = SortField::new_with_options(dict_type(&vt), opts);
            let mut c = Seeded::with_encoding(&[field], RowEncoding::Seed);
            let mut rng = Rng(0xB17E_5EED);
            let mut h = 0xcbf2_9ce4_8422_2325u64;
            let mut mix = |b: u8| h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
            let mut earlier = Vec::new();
            let mut longest = 0;
            for values in batches(text, &mut Rng(0x5EED_0B17)) {
                let (col, slots) = column(&vt, &values, &mut rng);
                let rows = c.convert_columns(core::slice::from_ref(&col)).unwrap();
                for r in rows.iter() {
                    longest = longest.max(r.data().len());
                    (r.data().len() as u32)
                        .to_le_bytes()
                        .into_iter()
                        .for_each(&mut mix);
                    r.data().iter().copied().for_each(&mut mix);
                }
                earlier.push((rows, slots));
            }
            // Rows of every batch decode through the grown interner.
            for (rows, slots) in &earlier {
                let back = c.convert_rows(rows.iter()).unwrap();
                assert_eq!(back[0].len(), slots.len());
                for (i, want) in slots.iter().enumerate() {
                    assert_eq!(value_at(&back[0], i), *want, "slot {i}");
                }
            }
            // Rows compare across batches as their values do (first slots).
            let firsts: Vec<_> = earlier
                .iter()
                .map(|(r, s)| (r.row(0).unwrap(), &s[0]))
                .collect();
            for w in firsts.windows(2) {
                let (a, b) = (w[0].1, w[1].1);
                if let (V::B(x), V::B(y)) = (a, b) {
                    assert_eq!(w[0].0.cmp(&w[1].0), if d { y.cmp(x) } else { x.cmp(y) });
                }
            }
            // Keys of up to three bytes and more were issued.
            assert!(longest >= 6, "{longest}");
            got.push(h);
        }
    }
    got
}

#[test]
fn row_bytes_are_pinned() {
    let got = hashes();
    let want = [
        4208654145859151035u64,
        15087003924344248972,
        4416001556835159824,
        13067143815730577167,
        16359081637444178687,
        5298229558717531311,
        8193170879592953088,
        15987157196752194888,
    ];
    assert_eq!(got, want);
}
