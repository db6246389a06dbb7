//! Where decoded rows come from, and the one dispatch of every decode.
//!
//! [`super::RowConverter::convert_rows`] decodes any rows (the caller's
//! iterator: [`Rowwise`]); [`super::RowConverter::convert_all_rows`] decodes
//! every row of a [`Rows`], whose rows also sit back to back in one buffer
//! ([`Contiguous`]). Both are a [`RowSource`] and go through [`decode()`]: the
//! converter's columns choose a [`Plan`] once, and the plan's one decoder
//! takes the source: it reads rows back to back straight from their buffer
//! when it can and row by row otherwise, with the same results and errors.

use allocator_api2::alloc::Allocator;

use super::decode;
use super::fixed::rows as fixed_rows;
use super::interner::Interner;
use super::{Kind, Node, Row, Rows, RowsIter};
use crate::array::ArrayRef;
use crate::buffer::{SharedSlice, TryVec};
use crate::error::{Error, Result};

/// Rows stored back to back: `offsets` (`len + 1` of them, bytes into
/// `data`; empty for no rows) and their bytes. Nothing about them is
/// trusted: the decoders check every offset and byte.
#[derive(Clone, Copy)]
pub(crate) struct Contiguous<'r> {
    offsets: &'r [usize],
    data: &'r [u8],
}

impl<'r> Contiguous<'r> {
    /// The rows of `rows`.
    pub(crate) fn of<B: Allocator>(rows: &'r Rows<B>) -> Self {
        Contiguous {
            offsets: rows.offsets(),
            data: rows.data(),
        }
    }

    /// Number of rows.
    pub(crate) fn len(self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// The `len + 1` offsets (bytes into [`Self::data`]).
    pub(crate) fn offsets(self) -> &'r [usize] {
        self.offsets
    }

    /// The row bytes, back to back.
    pub(crate) fn data(self) -> &'r [u8] {
        self.data
    }
}

/// Rows to decode: always as an iterator of [`Row`]s, and, when they are
/// stored back to back, also as [`Contiguous`] rows.
pub(crate) trait RowSource<'r> {
    /// The rows one by one.
    type Rows: ExactSizeIterator<Item = Row<'r>>;
    /// The rows back to back, when they are.
    fn contiguous(&self) -> Option<Contiguous<'r>>;
    /// The rows one by one.
    fn rows(self) -> Self::Rows;
}

impl<'r, B: Allocator> RowSource<'r> for &'r Rows<B> {
    type Rows = RowsIter<'r, B>;
    fn contiguous(&self) -> Option<Contiguous<'r>> {
        Some(Contiguous::of(self))
    }
    fn rows(self) -> Self::Rows {
        self.iter()
    }
}

/// The caller's rows, one by one.
pub(crate) struct Rowwise<I>(pub(crate) I);

impl<'r, I: ExactSizeIterator<Item = Row<'r>>> RowSource<'r> for Rowwise<I> {
    type Rows = I;
    fn contiguous(&self) -> Option<Contiguous<'r>> {
        None
    }
    fn rows(self) -> I {
        self.0
    }
}

/// How a converter's rows decode, chosen from its columns alone.
///
/// | plan | columns | row by row | contiguous rows |
/// |---|---|---|---|
/// | `Fixed` | all fixed-width leaves | `fixed/rows.rs` | `fixed/rows.rs` (through `fixed/contiguous.rs`) |
/// | `Cursors` | anything else | cursors (`decode`) | cursors |
///
/// A converter of one dictionary column encoded by value takes its values'
/// plan: its rows are the values' rows.
enum Plan<'n, 'a, A: Allocator> {
    /// Every column is a fixed-width leaf (these nodes); rows are this
    /// many bytes.
    Fixed(&'n [Node<'a, A>], usize),
    /// Per-row cursors, column by column.
    Cursors,
}

impl<'n, 'a, A: Allocator> Plan<'n, 'a, A> {
    fn of(nodes: &'n [Node<'a, A>]) -> Result<Self> {
        if let [node] = nodes {
            if let Kind::Dictionary(None, values) = &node.kind {
                // By value: the rows are the values' own rows.
                return Self::of(values);
            }
        }
        if let Some(width) = fixed_rows::row_width(nodes)? {
            return Ok(Plan::Fixed(nodes, width));
        }
        Ok(Plan::Cursors)
    }
}

/// Decodes the rows of `source` into one column per node (seed
/// dictionaries through their mapping in `dicts`). `trusted`: an encoder
/// of these very nodes wrote every byte of the rows (see
/// `provenance.rs`), so their strings need no UTF-8 check.
///
/// # Errors
/// As [`super::RowConverter::convert_rows`].
pub(crate) fn decode<'a, 'r, A, S>(
    nodes: &[Node<'a, A>],
    dicts: &[Interner<A>],
    source: S,
    trusted: bool,
    alloc: &A,
) -> Result<SharedSlice<'a, ArrayRef<'a, A>, A>>
where
    A: Allocator + Clone,
    S: RowSource<'r>,
{
    let plan = Plan::of(nodes)?;
    // One decoder per family for both kinds of source.
    match plan {
        Plan::Fixed(nodes, width) => fixed_rows::decode_rows(nodes, width, source, alloc),
        Plan::Cursors => by_cursors(nodes, dicts, source.rows(), trusted, alloc),
    }
}

/// The general decoder: one cursor per row, advanced by each column in
/// turn; bytes left over in a row are an error naming the row. `trusted`
/// as [`decode()`] takes it.
fn by_cursors<'a, 'r, A, I>(
    nodes: &[Node<'a, A>],
    dicts: &[Interner<A>],
    rows: I,
    trusted: bool,
    alloc: &A,
) -> Result<SharedSlice<'a, ArrayRef<'a, A>, A>>
where
    A: Allocator + Clone,
    I: ExactSizeIterator<Item = Row<'r>>,
{
    let mut cursors = TryVec::try_from_iter_in(rows.map(|r| r.data()), alloc.clone())?;
    let columns = SharedSlice::try_from_fn_in(nodes.len(), alloc.clone(), |i| {
        let node = nodes.get(i).ok_or(Error::OutOfBounds)?;
        decode::decode_column(node, dicts, &mut cursors, trusted, alloc)
            .map_err(|e| e.with_field(i))
    })?;
    if let Some(row) = cursors.iter().position(|c| !c.is_empty()) {
        return Err(Error::InvalidRow.with_row(row));
    }
    Ok(columns)
}

#[cfg(test)]
mod tests {
    use crate::Global;

    use super::*;
    use crate::buffer::SharedBox;
    use crate::datatypes::{DataType, IndexType};
    use crate::row::{RowConverter, RowEncoding, SortField};

    fn plan_name(c: &RowConverter<'static, Global>) -> &'static str {
        match Plan::of(&c.nodes).unwrap() {
            Plan::Fixed(..) => "fixed",
            Plan::Cursors => "cursors",
        }
    }

    /// Each converter shape takes its plan: fixed-width rows with their
    /// width, one dictionary by value as its values, and cursors for the
    /// rest (byte columns and a seed dictionary too).
    #[test]
    fn plans_by_columns() {
        use DataType::*;
        let conv = |types: &[DataType<'static, Global>], enc| {
            let fields: std::vec::Vec<_> = types.iter().cloned().map(SortField::new).collect();
            RowConverter::try_new_with_encoding(&fields, enc).unwrap()
        };
        let dict = Dictionary(
            IndexType::Int32,
            SharedBox::try_new_in(Utf8, Global).unwrap(),
            false,
        );
        let fixed = conv(&[Int32, Boolean, Null], RowEncoding::Ordered);
        assert!(matches!(Plan::of(&fixed.nodes), Ok(Plan::Fixed(_, 7))));
        assert_eq!(
            plan_name(&conv(&[Utf8View], RowEncoding::Ordered)),
            "cursors"
        );
        assert_eq!(
            plan_name(&conv(&[Utf8, Int32], RowEncoding::Ordered)),
            "cursors"
        );
        let seed = conv(core::slice::from_ref(&dict), RowEncoding::Seed);
        assert_eq!(plan_name(&seed), "cursors");
        let int_dict = Dictionary(
            IndexType::Int8,
            SharedBox::try_new_in(Int64, Global).unwrap(),
            false,
        );
        for enc in [RowEncoding::Ordered, RowEncoding::Unordered] {
            assert_eq!(
                plan_name(&conv(core::slice::from_ref(&dict), enc)),
                "cursors"
            );
            assert_eq!(
                plan_name(&conv(core::slice::from_ref(&int_dict), enc)),
                "fixed"
            );
            assert_eq!(plan_name(&conv(&[dict.clone(), Int32], enc)), "cursors");
        }
    }
}
