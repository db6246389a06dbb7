//! Dictionary columns, encode and decode, and the table encoder they share
//! with run-end encoded columns ([`super::run_end`]): each slot's row piece
//! is a copy of one row of a per-batch table ([`TableIndex`] says which).
//!
//! By value (the default, as arrow-row 47 and later): the table is the
//! dictionary values' own rows, so a key's row is its value's encoding and
//! rows decode to the value type; a null key is the value type's null.
//!
//! Seed ([`super::RowEncoding::Seed`]): the dictionary's values are encoded
//! (ascending) and interned ([`super::interner`]); the table holds, per
//! dictionary value, `0x01` followed by its key and a `0x00` terminator (key
//! and terminator inverted when descending), or the null sentinel for a null
//! value. A null key is the null sentinel. So batches with different,
//! unsorted dictionaries encode consistently.

use allocator_api2::alloc::Allocator;

use super::decode::{null_len, write_null, write_null_into};
use super::fixed::Layout;
use super::interner::Interner;
use super::variable::take::Take;
use super::{decode_column, encode_to_rows, Encoder};
use super::{Kind, Node, Rows, SortOptions};
use crate::array::{
    Array, ArrayRef, DictionaryArray, DictionaryKeyType, DictionaryKeys, PrimitiveArray, RunArray,
};
use crate::buffer::TryVec;
use crate::buffer::{Appender, MutableBuffer};
use crate::error::{Error, Result};

/// Which table row each slot takes.
pub(crate) enum TableIndex<'c, 'b, A: Allocator> {
    /// Row `keys[i]`; a null key takes the column's null encoding.
    Keys(&'c DictionaryKeys<'b, A>),
    /// The row of the slot's run, counted from run `first`.
    Runs(&'c RunArray<'b, A>, usize),
}

impl<'c, 'b, A: Allocator> TableIndex<'c, 'b, A> {
    /// Calls `f(i, Some(table row))` or `f(i, None)` (null key) for each slot.
    fn for_each(
        &self,
        len: usize,
        mut f: impl FnMut(usize, Option<usize>) -> Result<()>,
    ) -> Result<()> {
        match self {
            TableIndex::Keys(keys) => {
                // One dispatch on the key type, then a loop over typed keys.
                fn each<K: DictionaryKeyType, A: Allocator>(
                    keys: &PrimitiveArray<'_, K, A>,
                    len: usize,
                    f: &mut impl FnMut(usize, Option<usize>) -> Result<()>,
                ) -> Result<()> {
                    let values = keys.values().get(..len).ok_or(Error::OutOfBounds)?;
                    let nulls = keys.nulls();
                    for (i, key) in values.iter().enumerate() {
                        let k = if nulls.is_none_or(|n| n.is_valid(i)) {
                            Some(key.to_index().ok_or(Error::DictionaryKeyOutOfBounds)?)
                        } else {
                            None
                        };
                        f(i, k)?;
                    }
                    Ok(())
                }
                crate::array::keys_dispatch!(keys, k => each(k, len, &mut f)?)
            }
            TableIndex::Runs(r, first) => {
                // Run by run: slot `i` (logical `offset + i`) is in the
                // first run whose end is past it, and the slots up to that
                // end share its row (one run end read per run, not per slot).
                let ends = r.run_ends();
                let offset = i64::try_from(r.offset()).map_err(|_| Error::CapacityOverflow)?;
                let (mut i, mut j) = (0usize, *first);
                while i < len {
                    let end = ends.get(j).ok_or(Error::RunEndsTooShort)?;
                    // Past slot `i` (when not, the run is skipped): `end -
                    // offset > i >= 0`.
                    let stop = usize::try_from(end.saturating_sub(offset))
                        .unwrap_or(usize::MAX)
                        .min(len);
                    for k in i..stop {
                        f(k, Some(j - first))?;
                    }
                    i = i.max(stop);
                    j += 1;
                }
            }
        }
        Ok(())
    }
}

/// Encodes a dictionary's values and builds its table.
pub(crate) fn prepare_dictionary<'c, 'b, A: Allocator + Clone>(
    slot: Option<usize>,
    dicts: &mut [Interner<A>],
    values: &[Node<'_, A>],
    opts: SortOptions,
    d: &'c DictionaryArray<'b, A>,
    alloc: &A,
) -> Result<Encoder<'c, 'b, A>> {
    let value_sentinel = values
        .first()
        .ok_or(Error::UnsupportedType)?
        .options
        .null_sentinel();
    let table = match slot {
        None => {
            if let Some(take) = values
                .first()
                .and_then(|v| Take::new(v, d.keys(), d.values()))
            {
                return Ok(Encoder::Take(take));
            }
            encode_to_rows(values, dicts, core::slice::from_ref(d.values()), alloc)?
        }
        Some(slot) => {
            let cache = &dicts.get(slot).ok_or(Error::RowInternerRequired)?.cache;
            if let Some(table) = cache.get(d.values(), alloc)? {
                return Ok(Encoder::Table {
                    table,
                    index: TableIndex::Keys(d.keys()),
                    width: None,
                });
            }
            let encoded = encode_to_rows(values, dicts, core::slice::from_ref(d.values()), alloc)?;
            let interner = dicts.get_mut(slot).ok_or(Error::RowInternerRequired)?;
            let spans = interner.intern_keys(encoded, value_sentinel, alloc)?;
            let table = key_table(&spans, interner.key_bytes(), opts, alloc)?;
            interner.cache.put(d.values(), &table, alloc)?;
            table
        }
    };
    Ok(Encoder::Table {
        table,
        index: TableIndex::Keys(d.keys()),
        width: None,
    })
}

/// The table of a dictionary whose values have the keys `spans` (`[start,
/// len]` in `keys`; `len` 0: a null value): `0x01`, the key and `0x00`
/// per value (key and terminator inverted when descending), the null
/// sentinel for a null value. Offsets first, then the bytes in one block.
fn key_table<A: Allocator + Clone>(
    spans: &[[u32; 2]],
    keys: &[u8],
    opts: SortOptions,
    alloc: &A,
) -> Result<Rows<A>> {
    let size = |&[_, len]: &[u32; 2]| if len == 0 { 1 } else { len as usize + 2 };
    let mut table = Rows::new_in(alloc.clone());
    let mut end = 0usize;
    let mut lens = spans.iter().map(size);
    table.try_extend_offsets_with(spans.len(), || {
        end = end.saturating_add(lens.next().unwrap_or(0));
        end
    })?;
    let (bytes, _) = table.parts_mut();
    bytes.try_extend_zeros(end)?;
    let mut out = bytes.as_mut_slice();
    let (null, term) = (opts.null_sentinel(), if opts.descending { 0xFF } else { 0 });
    for span in spans {
        let (row, rest) = core::mem::take(&mut out)
            .split_at_mut_checked(size(span))
            .ok_or(Error::OutOfBounds)?;
        out = rest;
        let [start, len] = *span;
        let Some((head, tail)) = row.split_first_mut() else {
            continue;
        };
        let Some((last, key)) = tail.split_last_mut() else {
            *head = null;
            continue;
        };
        *head = 1;
        *last = term;
        let start = start as usize;
        let src = keys
            .get(start..start + len as usize)
            .ok_or(Error::OutOfBounds)?;
        copy_short(key, src)?;
        if opts.descending {
            key.iter_mut().for_each(|b| *b = !*b);
        }
    }
    Ok(table)
}

/// Adds each slot's table row length (or null length) to `lengths`.
pub(crate) fn add_lengths<A: Allocator>(
    node: &Node<'_, A>,
    table: &Rows<A>,
    index: &TableIndex<'_, '_, A>,
    lengths: &mut [usize],
) -> Result<()> {
    let null = null_len(node)?;
    let n = lengths.len();
    let offsets = table.offsets();
    // Every table row of one length: that length for every valid slot, the
    // null's for a null key, from the validity alone (the keys are checked
    // when the rows are written).
    if let Some(width) = uniform_width(table) {
        let nulls = match index {
            TableIndex::Keys(keys) => keys.nulls(),
            TableIndex::Runs(..) => None,
        };
        match nulls {
            None => lengths
                .iter_mut()
                .for_each(|l| *l = l.saturating_add(width)),
            Some(nulls) => {
                for (i, l) in lengths.iter_mut().enumerate() {
                    *l = l.saturating_add(if nulls.is_valid(i) { width } else { null });
                }
            }
        }
        return Ok(());
    }
    index.for_each(n, |i, row| {
        let add = match row {
            Some(j) => match row_range(offsets, j) {
                Some((a, b)) if a <= b => b - a,
                _ => return Err(Error::DictionaryKeyOutOfBounds),
            },
            None => null,
        };
        let l = lengths.get_mut(i).ok_or(Error::OutOfBounds)?;
        *l = l.checked_add(add).ok_or(Error::CapacityOverflow)?;
        Ok(())
    })
}

/// Row `j`'s start and end in `offsets` (`None` past the rows, also for
/// `j == usize::MAX`, a wrapped negative key).
#[inline(always)]
fn row_range(offsets: &[usize], j: usize) -> Option<(usize, usize)> {
    match offsets.get(j..)? {
        [a, b, ..] => Some((*a, *b)),
        _ => None,
    }
}

/// The length of every row of `table` when they all have one (none when
/// the table is empty).
fn uniform_width<A: Allocator>(table: &Rows<A>) -> Option<usize> {
    let mut lens = table.offsets().windows(2).map(|w| w[1].wrapping_sub(w[0]));
    let first = lens.next()?;
    lens.all(|l| l == first).then_some(first)
}

/// The width of every slot's row piece of a run-end encoded column, when
/// every table row (a run's value) is `w` bytes from offset 0: the column
/// is then encoded like a fixed-width one ([`encode`] on a stride).
pub(crate) fn run_width<A: Allocator>(table: &Rows<A>) -> Option<usize> {
    uniform_width(table).filter(|_| table.offsets().first() == Some(&0))
}

/// The width of every slot's row piece of a dictionary column, when it
/// has one: every table row `w` bytes (from offset 0) and no null key, or
/// nulls of `w` bytes too. The column is then encoded like a fixed-width
/// one ([`encode`] on a stride): no lengths pass, no cursors.
pub(crate) fn key_width<A: Allocator>(
    node: &Node<'_, A>,
    table: &Rows<A>,
    keys: &DictionaryKeys<'_, A>,
) -> Option<usize> {
    let w = uniform_width(table)?;
    if table.offsets().first() != Some(&0) {
        return None;
    }
    (keys.null_count() == 0 || null_len(node).ok()? == w).then_some(w)
}

/// At most how many bytes the rows of a converter of this one dictionary
/// column take when [`append`] can write them: every table row `w` bytes
/// from offset 0, nulls no longer. The rows' exact size plus `w` (the last
/// row's copy is `w` bytes whatever its length); `None` otherwise.
pub(crate) fn append_bound<A: Allocator>(
    node: &Node<'_, A>,
    table: &Rows<A>,
    index: &TableIndex<'_, '_, A>,
    n: usize,
) -> Option<usize> {
    let TableIndex::Keys(keys) = index else {
        return None;
    };
    let w = uniform_width(table).filter(|_| table.offsets().first() == Some(&0))?;
    let null = null_len(node).ok().filter(|&l| l <= w)?;
    let nulls = keys.null_count().min(n);
    (n - nulls)
        .checked_mul(w)?
        .checked_add(nulls.checked_mul(null)?)?
        .checked_add(w.div_ceil(CHUNK).checked_mul(CHUNK)?)
}

/// Bytes of a chunk [`append`] copies table rows in.
const CHUNK: usize = 32;

/// Tables of at most this many bytes (padded to whole chunks) are copied
/// a chunk at a time by [`append`]; bigger ones by `memcpy`.
const CHUNKED_TABLE: usize = 64 * 1024;

/// Writes the rows of a converter of this one dictionary column
/// ([`append_bound`]) in order through `out`, each slot's table row or,
/// for a null key, the null encoding; `cursors[i]` becomes the end of row
/// `i`. A null is copied like a table row, from a copy of it padded to the
/// table rows' width, of which only its own length counts: every slot is
/// one copy of `w` bytes (one length for `memcpy`).
///
/// # Errors
/// [`Error::DictionaryKeyOutOfBounds`] for a key past the table;
/// [`Error::OutOfBounds`] when the rows outgrow `out`;
/// [`Error::AllocationFailed`].
pub(crate) fn append<A: Allocator + Clone>(
    node: &Node<'_, A>,
    table: &Rows<A>,
    index: &TableIndex<'_, '_, A>,
    out: &mut Appender<'_>,
    cursors: &mut [usize],
    alloc: &A,
) -> Result<()> {
    let w = uniform_width(table)
        .filter(|_| table.offsets().first() == Some(&0))
        .ok_or(Error::OutOfBounds)?;
    let last = table
        .len()
        .checked_sub(1)
        .ok_or(Error::DictionaryKeyOutOfBounds)?;
    let rows = table
        .data()
        .get(..table.len().saturating_mul(w))
        .ok_or(Error::OutOfBounds)?;
    let mut null = TryVec::try_from_fn_in(w, alloc.clone(), |_| Ok(0u8))?;
    let null_len = write_null(node, null.as_mut_slice())?;
    let null = null.as_slice();
    let count = table.len();
    let chunks = w.div_ceil(CHUNK);
    let padded = count
        .checked_add(1)
        .and_then(|c| c.checked_mul(chunks))
        .filter(|&c| c.saturating_mul(CHUNK) <= CHUNKED_TABLE);
    if let Some(padded) = padded {
        // Row `j` (the null's: row `count`) as chunks `j * chunks..`, zero
        // padded: each slot one copy of `chunks` chunks.
        let table = TryVec::try_from_fn_in(padded, alloc.clone(), |c| {
            let (j, k) = (c / chunks, c % chunks);
            let row = match j.checked_mul(w) {
                Some(at) if j < count => rows.get(at..at + w),
                _ => Some(null),
            };
            // `k * CHUNK < w`: every chunk starts within its row.
            let from = row
                .and_then(|r| r.get(k * CHUNK..))
                .ok_or(Error::OutOfBounds)?;
            let from = from.get(..CHUNK).unwrap_or(from);
            let mut chunk = [0u8; CHUNK];
            if let Some(d) = chunk.get_mut(..from.len()) {
                d.copy_from_slice(from);
            }
            Ok(chunk)
        })?;
        let table = table.as_slice();
        return index.for_each(
            cursors.len(),
            #[inline(always)]
            |i, row| {
                let (j, len) = match row {
                    Some(j) if j < count => (j, w),
                    Some(_) => return Err(Error::DictionaryKeyOutOfBounds),
                    None => (count, null_len),
                };
                let src = table
                    .get(j * chunks..j * chunks + chunks)
                    .ok_or(Error::OutOfBounds)?;
                out.put_chunks_prefix(src, len)?;
                *cursors.get_mut(i).ok_or(Error::OutOfBounds)? = out.pos();
                Ok(())
            },
        );
    }
    index.for_each(
        cursors.len(),
        #[inline(always)]
        |i, row| {
            let at = row.unwrap_or(0).min(last) * w;
            let value = rows.get(at..at + w).ok_or(Error::OutOfBounds)?;
            let (src, len) = match row {
                Some(j) if j <= last => (value, w),
                Some(_) => return Err(Error::DictionaryKeyOutOfBounds),
                None => (null, null_len),
            };
            out.put_slice_prefix(src, len)?;
            *cursors.get_mut(i).ok_or(Error::OutOfBounds)? = out.pos();
            Ok(())
        },
    )
}

/// Copies each slot's table row (or writes the null encoding for a null
/// key) to its place in `layout`: at `data[cursors[i]..]`, the cursor
/// advancing past it, or at `data[i * width + offset..]`, where every
/// piece is one width ([`key_width`]), for `n` slots.
///
/// # Errors
/// [`Error::DictionaryKeyOutOfBounds`] for a key past the table;
/// [`Error::OutOfBounds`] when `data` is short or a strided piece is not
/// the table rows' width.
pub(crate) fn encode<A: Allocator>(
    node: &Node<'_, A>,
    table: &Rows<A>,
    index: &TableIndex<'_, '_, A>,
    data: &mut [u8],
    layout: &mut Layout<'_>,
    n: usize,
) -> Result<()> {
    let (offsets, rows) = (table.offsets(), table.data());
    // A null key's row, written once when short (every fixed-width and
    // variable-length null is); longer ones are written per null key.
    let mut null_row = [0u8; 64];
    let null_row: Option<&[u8]> = match null_len(node) {
        Ok(len) if len <= null_row.len() => {
            write_null(node, &mut null_row)?;
            null_row.get(..len)
        }
        _ => None,
    };
    let write_null = |out: &mut [u8]| -> Result<usize> {
        match null_row {
            Some(b) => {
                copy_short(out.get_mut(..b.len()).ok_or(Error::OutOfBounds)?, b)?;
                Ok(b.len())
            }
            None => write_null(node, out),
        }
    };
    // Table rows of one width from 0 (see `add_lengths`): row `j` at `j * w`.
    let uniform = uniform_width(table).filter(|_| offsets.first() == Some(&0));
    if let Some(w) = uniform {
        let count = table.len();
        return place(index, n, data, layout, uniform, |out, row| match row {
            Some(j) if j < count => {
                let src = rows.get(j * w..j * w + w).ok_or(Error::OutOfBounds)?;
                copy_short(out.get_mut(..w).ok_or(Error::OutOfBounds)?, src)?;
                Ok(w)
            }
            Some(_) => Err(Error::DictionaryKeyOutOfBounds),
            None => write_null(out),
        });
    }
    place(index, n, data, layout, uniform, |out, row| match row {
        Some(j) => {
            let (a, b) = row_range(offsets, j).ok_or(Error::DictionaryKeyOutOfBounds)?;
            let bytes = rows.get(a..b).ok_or(Error::OutOfBounds)?;
            copy_short(out.get_mut(..bytes.len()).ok_or(Error::OutOfBounds)?, bytes)?;
            Ok(bytes.len())
        }
        None => write_null(out),
    })
}

/// Calls `piece(out, row)` for each of `n` slots with the bytes from its place in
/// `layout` on; `piece` writes the slot's row there and returns its length.
/// A strided piece must be `width` bytes (the table rows' one width).
///
/// # Errors
/// [`Error::OutOfBounds`] when `data` is short or a strided piece has
/// another length; `piece`'s and the index's errors.
#[inline(always)]
fn place<A: Allocator>(
    index: &TableIndex<'_, '_, A>,
    n: usize,
    data: &mut [u8],
    layout: &mut Layout<'_>,
    width: Option<usize>,
    mut piece: impl FnMut(&mut [u8], Option<usize>) -> Result<usize>,
) -> Result<()> {
    match layout {
        Layout::Cursors(cursors) => index.for_each(
            n,
            #[inline(always)]
            |i, row| {
                let c = cursors.get_mut(i).ok_or(Error::OutOfBounds)?;
                *c += piece(data.get_mut(*c..).ok_or(Error::OutOfBounds)?, row)?;
                Ok(())
            },
        ),
        Layout::Stride {
            width: stride,
            offset,
        } => {
            let (stride, offset) = (*stride, *offset);
            let w = width.ok_or(Error::OutOfBounds)?;
            index.for_each(
                n,
                #[inline(always)]
                |i, row| {
                    let at = i * stride + offset;
                    let out = data.get_mut(at..at + w).ok_or(Error::OutOfBounds)?;
                    if piece(out, row)? != w {
                        return Err(Error::OutOfBounds);
                    }
                    Ok(())
                },
            )
        }
    }
}

/// Copies `src` into `dst` (of the same length). Table rows of dictionary
/// keys are a few bytes: two overlapping fixed-size copies (first and last
/// 8 or 4 bytes; first, middle and last byte below 4) instead of a `memcpy`
/// call of a variable length.
///
/// # Errors
/// [`Error::OutOfBounds`] when the lengths differ (nothing is copied): a
/// broken sizing invariant surfaces as an error, not as a row left unwritten.
#[inline(always)]
fn copy_short(dst: &mut [u8], src: &[u8]) -> Result<()> {
    #[inline(always)]
    fn ends<const W: usize>(dst: &mut [u8], src: &[u8]) {
        if let (Some(a), Some(b)) = (src.first_chunk::<W>(), src.last_chunk::<W>()) {
            if let Some(x) = dst.first_chunk_mut::<W>() {
                *x = *a;
            }
            if let Some(y) = dst.last_chunk_mut::<W>() {
                *y = *b;
            }
        }
    }
    let n = src.len();
    if n != dst.len() {
        return Err(Error::OutOfBounds);
    }
    match n {
        0 => {}
        1..=3 => {
            for i in [0, n / 2, n - 1] {
                if let (Some(d), Some(&s)) = (dst.get_mut(i), src.get(i)) {
                    *d = s;
                }
            }
        }
        4..=7 => ends::<4>(dst, src),
        8..=16 => ends::<8>(dst, src),
        17..=32 => ends::<16>(dst, src),
        33..=64 => ends::<32>(dst, src),
        _ => dst.copy_from_slice(src),
    }
    Ok(())
}

/// Decodes a dictionary column into its value type.
///
/// # Errors
/// [`Error::InvalidRow`]; [`Error::UnknownDictionaryKey`] for a key this
/// converter never issued; the values' decoding errors. `trusted` as
/// [`decode_column`] takes it.
pub(crate) fn decode_dictionary<'a, A: Allocator + Clone>(
    node: &Node<'a, A>,
    dicts: &[Interner<A>],
    rows: &mut [&[u8]],
    trusted: bool,
    alloc: &A,
) -> Result<ArrayRef<'a, A>> {
    let Kind::Dictionary(slot, _) = &node.kind else {
        return Err(Error::TypeMismatch);
    };
    let value_node = node.child()?;
    let Some(slot) = *slot else {
        // By value: the rows hold the values' own encoding.
        return decode_column(value_node, dicts, rows, trusted, alloc);
    };
    let interner = dicts.get(slot).ok_or(Error::RowInternerRequired)?;
    let n = rows.len();
    // Each row's value encoding, decoded.
    let mut null_value = MutableBuffer::new_in(alloc.clone());
    write_null_into(value_node, &mut null_value)?;
    let null_value = null_value.as_slice();
    let mut cursors = TryVec::try_from_fn_in(n, alloc.clone(), |i| {
        let row = rows.get_mut(i).ok_or(Error::OutOfBounds)?;
        match interner.read(row, node.options)? {
            None => Ok(null_value),
            Some(p) => interner.value_at(p),
        }
    })?;
    let values = decode_column(value_node, dicts, &mut cursors, false, alloc)?;
    if cursors.iter().any(|c| !c.is_empty()) {
        return Err(Error::InvalidRow);
    }
    Ok(values)
}
