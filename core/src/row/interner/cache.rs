//! A one-entry table cache per seed dictionary column: a batch whose
//! dictionary has the same contents as the last one's reuses that one's
//! table of keys, instead of encoding and looking up every value again.
//!
//! Equal contents, never equal addresses (freed memory is reused): the
//! cache keeps a copy of the values' raw buffers (value bytes, offsets,
//! validity bits) and compares them byte for byte. Equal buffers are equal
//! values (a column's type is checked against its field's, so a slot's
//! values have one type), and an interned value's key never changes,
//! so the cached table is the one a fresh build would give. Only byte
//! arrays and primitives are cached; other value types always miss.

use allocator_api2::alloc::Allocator;

use crate::array::{Array, ArrayRef, PrimitiveArray, PrimitiveType};
use crate::buffer::{MutableBuffer, NullBuffer, OffsetSize};
use crate::error::Result;
use crate::row::Rows;

/// The raw buffers of an array's values.
type Pieces<'v> = [&'v [u8]; 3];

/// Whole bytes of validity (empty: no nulls); `None` off a byte boundary.
fn bits<'v, A: Allocator>(nulls: Option<&'v NullBuffer<'_, A>>, len: usize) -> Option<&'v [u8]> {
    let Some(n) = nulls else { return Some(&[]) };
    let b = n.inner();
    let start = (b.offset() % 8 == 0).then_some(b.offset() / 8)?;
    b.inner().as_slice().get(start..start + len.div_ceil(8))
}

/// Values then validity of a primitive array.
fn prim<'v, T: PrimitiveType, A: Allocator>(a: &'v PrimitiveArray<'_, T, A>) -> Option<Pieces<'v>> {
    Some([
        bytemuck::cast_slice(a.values()),
        bits(a.nulls(), a.len())?,
        &[],
    ])
}

/// The raw buffers of `values`, `None` when its type is not cached.
fn pieces<'v, A: Allocator>(values: &'v ArrayRef<'_, A>) -> Option<Pieces<'v>> {
    macro_rules! var {
        ($a:expr) => {{
            let o = $a.value_offsets();
            let (lo, hi) = (o.first()?.to_usize()?, o.last()?.to_usize()?);
            let data = $a.values().as_slice().get(lo..hi)?;
            Some([data, bytemuck::cast_slice(o), bits($a.nulls(), $a.len())?])
        }};
    }
    match values {
        ArrayRef::Utf8(a) => var!(a),
        ArrayRef::LargeUtf8(a) => var!(a),
        ArrayRef::Binary(a) => var!(a),
        ArrayRef::LargeBinary(a) => var!(a),
        ArrayRef::Int8(a) => prim(a),
        ArrayRef::Int16(a) => prim(a),
        ArrayRef::Int32(a) => prim(a),
        ArrayRef::Int64(a) => prim(a),
        ArrayRef::UInt8(a) => prim(a),
        ArrayRef::UInt16(a) => prim(a),
        ArrayRef::UInt32(a) => prim(a),
        ArrayRef::UInt64(a) => prim(a),
        ArrayRef::Float32(a) => prim(a),
        ArrayRef::Float64(a) => prim(a),
        _ => None,
    }
}

/// `true` when `key` (as [`TableCache`] keeps it) holds exactly `p`.
fn holds(key: &[u8], p: &Pieces<'_>) -> bool {
    let mut rest = key;
    for piece in p {
        let Some((len, tail)) = rest.split_first_chunk::<{ core::mem::size_of::<usize>() }>()
        else {
            return false;
        };
        match tail.split_at_checked(piece.len()) {
            Some((bytes, tail)) if *len == piece.len().to_ne_bytes() && bytes == *piece => {
                rest = tail
            }
            _ => return false,
        }
    }
    rest.is_empty()
}

/// A copy of `table` in `alloc`.
fn copy_rows<A: Allocator + Clone>(table: &Rows<A>, alloc: &A) -> Result<Rows<A>> {
    let mut copy = Rows::new_in(alloc.clone());
    let mut offsets = table.offsets().iter().skip(1).copied();
    copy.try_extend_offsets_with(table.len(), || offsets.next().unwrap_or(0))?;
    copy.parts_mut().0.try_extend_from_slice(table.data())?;
    Ok(copy)
}

/// The last dictionary's buffers (each as its length in native `usize`
/// bytes, then its bytes) and its table (`None`: empty).
pub(crate) struct TableCache<A: Allocator> {
    key: MutableBuffer<A>,
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

    /// A copy (in `alloc`) of the table of `values`' dictionary when it is
    /// the cached one, else `None`.
    ///
    /// # Errors
    /// [`crate::Error::AllocationFailed`], [`crate::Error::CapacityOverflow`].
    pub(crate) fn get(&self, values: &ArrayRef<'_, A>, alloc: &A) -> Result<Option<Rows<A>>> {
        match (&self.table, pieces(values)) {
            (Some(table), Some(p)) if holds(self.key.as_slice(), &p) => {
                copy_rows(table, alloc).map(Some)
            }
            _ => Ok(None),
        }
    }

    /// Caches `table` as the table of `values`' dictionary (empties the
    /// cache when that type is not cached, or on an error).
    ///
    /// # Errors
    /// [`crate::Error::AllocationFailed`].
    pub(crate) fn put(
        &mut self,
        values: &ArrayRef<'_, A>,
        table: &Rows<A>,
        alloc: &A,
    ) -> Result<()> {
        self.table = None;
        self.key.clear();
        let Some(p) = pieces(values) else {
            return Ok(());
        };
        for piece in p {
            self.key.try_extend_from_slice(&piece.len().to_ne_bytes())?;
            self.key.try_extend_from_slice(piece)?;
        }
        self.table = Some(copy_rows(table, alloc)?);
        Ok(())
    }
}
