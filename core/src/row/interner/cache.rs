//! The table cache of an ordered dictionary column: batches that carry the
//! same dictionary (the usual case: a dictionary is sent once and its
//! batches reference it) reuse the table of keys built for the first one,
//! instead of encoding and looking up every dictionary value again.
//!
//! "The same" means equal contents, not equal addresses (memory can be
//! freed and reused for another dictionary): the cache keeps a copy of the
//! raw buffers of the dictionary values it was built for (offsets, value
//! bytes, validity bits) and compares them with `memcmp`. Equal buffers are
//! equal values, and a value's key never changes once interned (the
//! interner only appends), so the cached table is exactly what encoding
//! the values again would give. Only byte arrays and primitive values are
//! cached (other value types always miss).

use allocator_api2::alloc::Allocator;

use crate::array::{Array, ArrayRef, PrimitiveArray, PrimitiveType};
use crate::buffer::{MutableBuffer, NullBuffer};
use crate::error::Result;
use crate::row::Rows;

/// The raw buffers of dictionary values: up to three byte pieces (their
/// lengths are compared too, so pieces never run into each other).
type Pieces<'v> = [&'v [u8]; 3];

/// The validity bits of `nulls` as whole bytes, or `None` when they do not
/// start on a byte boundary (then the values are not cached).
fn validity<'v, A: Allocator>(
    nulls: Option<&'v NullBuffer<'_, A>>,
    len: usize,
) -> Option<&'v [u8]> {
    let Some(n) = nulls else {
        return Some(&[]);
    };
    let bits = n.inner();
    if bits.offset() % 8 != 0 {
        return None;
    }
    let start = bits.offset() / 8;
    bits.inner().as_slice().get(start..start + len.div_ceil(8))
}

fn primitive<'v, T: PrimitiveType, A: Allocator>(
    a: &'v PrimitiveArray<'_, T, A>,
) -> Option<Pieces<'v>> {
    Some([
        bytemuck::cast_slice(a.values()),
        validity(a.nulls(), a.len())?,
        &[],
    ])
}

/// The pieces of `values`, `None` for value types that are not cached.
fn pieces<'v, A: Allocator>(values: &'v ArrayRef<'_, A>) -> Option<Pieces<'v>> {
    macro_rules! bytes {
        ($a:expr) => {{
            let o = $a.value_offsets();
            let (first, last) = (o.first()?.to_usize()?, o.last()?.to_usize()?);
            Some([
                bytemuck::cast_slice(o),
                $a.values().as_slice().get(first..last)?,
                validity($a.nulls(), $a.len())?,
            ])
        }};
    }
    use crate::buffer::OffsetSize;
    match values {
        ArrayRef::Utf8(a) => bytes!(a),
        ArrayRef::LargeUtf8(a) => bytes!(a),
        ArrayRef::Binary(a) => bytes!(a),
        ArrayRef::LargeBinary(a) => bytes!(a),
        ArrayRef::Int8(a) => primitive(a),
        ArrayRef::Int16(a) => primitive(a),
        ArrayRef::Int32(a) => primitive(a),
        ArrayRef::Int64(a) => primitive(a),
        ArrayRef::UInt8(a) => primitive(a),
        ArrayRef::UInt16(a) => primitive(a),
        ArrayRef::UInt32(a) => primitive(a),
        ArrayRef::UInt64(a) => primitive(a),
        ArrayRef::Float32(a) => primitive(a),
        ArrayRef::Float64(a) => primitive(a),
        _ => None,
    }
}

/// The last dictionary's table, and a copy of that dictionary's buffers.
pub(crate) struct TableCache<A: Allocator> {
    /// The pieces of the dictionary, each as its length (native `usize`)
    /// then its bytes.
    key: MutableBuffer<A>,
    /// The table of `key`'s dictionary; `None` while being rebuilt (also
    /// after an encoding error: the next batch misses).
    table: Option<Rows<A>>,
}

impl<A: Allocator + Clone> TableCache<A> {
    /// An empty cache; allocates nothing.
    pub(crate) fn new_in(alloc: A) -> Self {
        TableCache {
            key: MutableBuffer::new_in(alloc),
            table: None,
        }
    }
}

impl<A: Allocator> TableCache<A> {
    /// `true` when `key` holds exactly `p`.
    fn holds(&self, p: &Pieces<'_>) -> bool {
        let mut rest = self.key.as_slice();
        for piece in p {
            let Some((len, tail)) = rest.split_first_chunk::<{ core::mem::size_of::<usize>() }>()
            else {
                return false;
            };
            if usize::from_ne_bytes(*len) != piece.len() {
                return false;
            }
            let Some((bytes, tail)) = tail.split_at_checked(piece.len()) else {
                return false;
            };
            if bytes != *piece {
                return false;
            }
            rest = tail;
        }
        rest.is_empty()
    }

    /// The cached table when `values` is the dictionary it was built for
    /// (taken out: give it back with [`Self::put`]). On a miss, remembers
    /// `values` (when cacheable) for the table [`Self::put`] will store.
    ///
    /// # Errors
    /// [`crate::Error::AllocationFailed`] (copying the buffers).
    pub(crate) fn take(&mut self, values: &ArrayRef<'_, A>) -> Result<Option<Rows<A>>> {
        let Some(p) = pieces(values) else {
            self.key.clear();
            self.table = None;
            return Ok(None);
        };
        if self.table.is_some() && self.holds(&p) {
            return Ok(self.table.take());
        }
        self.table = None;
        self.key.clear();
        for piece in p {
            self.key.try_extend_from_slice(&piece.len().to_ne_bytes())?;
            self.key.try_extend_from_slice(piece)?;
        }
        Ok(None)
    }

    /// Stores the table of the dictionary last given to [`Self::take`]
    /// (nothing when that one is not cacheable).
    pub(crate) fn put(&mut self, table: Rows<A>) {
        if !self.key.is_empty() {
            self.table = Some(table);
        }
    }
}

#[cfg(test)]
mod tests {
    use allocator_api2::alloc::Global as G;
    use std::vec::Vec;

    use crate::array::{
        Array, ArrayRef, DictionaryArray, DictionaryKeys, PrimitiveArray, StringArray,
    };
    use crate::buffer::SharedBox;
    use crate::datatypes::{DataType, IndexType};
    use crate::row::test_model::Seeded;
    use crate::row::{SortField, SortOptions};

    fn dict_type() -> DataType<'static, G> {
        DataType::Dictionary(
            IndexType::Int32,
            SharedBox::try_new_in(DataType::Utf8, G).unwrap(),
            false,
        )
    }

    fn dict(values: &[Option<&str>], keys: &[i32]) -> ArrayRef<'static, G> {
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

    fn bytes(c: &mut Seeded, col: &ArrayRef<'static, G>) -> Vec<Vec<u8>> {
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

    fn cached(c: &Seeded) -> bool {
        c.i.dictionaries[0].cache.table.is_some()
    }

    /// A dictionary alone with null keys whose key rows have one length
    /// (written in order by `encode::append_single`) puts its table back
    /// in the cache too, and the next batch's rows are the same.
    #[test]
    fn null_keys_alone_keep_the_table() {
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
        assert!(cached(&c));
        assert_eq!(first[1], [SortOptions::default().null_sentinel()]);
        assert_eq!(bytes(&mut c, &a), first);
        assert!(cached(&c));
        assert_eq!(
            decoded(&c, &first),
            [Some("fig".into()), None, Some("pear".into()), None]
        );
    }

    /// A repeated dictionary reuses the table (same bytes); a dictionary of
    /// the same shape but other bytes, a sliced one and one with nulls miss
    /// and encode their own values.
    #[test]
    fn same_dictionary_hits_other_contents_miss() {
        for opts in [SortOptions::new(false, true), SortOptions::new(true, false)] {
            let mut c = Seeded::with_encoding(
                &[SortField::new_with_options(dict_type(), opts)],
                crate::row::RowEncoding::Seed,
            );
            let a = dict(&[Some("pear"), Some("fig")], &[0, 1, 1, 0]);
            let first = bytes(&mut c, &a);
            assert!(cached(&c));
            assert_eq!(bytes(&mut c, &a), first);
            // A copy of the same dictionary (other memory) hits too.
            let copy = dict(&[Some("pear"), Some("fig")], &[1, 0]);
            assert_eq!(bytes(&mut c, &copy), [first[1].clone(), first[0].clone()]);
            // Same offsets, other bytes: a miss, with the right keys.
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
