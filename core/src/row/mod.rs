//! Row format: converts columns into rows of bytes that sort, compare and
//! hash like the original values ("Row format" spec, 004).
//!
//! A [`RowConverter`] is made for a list of [`SortField`]s (a data type and
//! its [`SortOptions`]). [`RowConverter::convert_columns`] encodes columns of
//! those types into [`Rows`]: one contiguous byte buffer plus offsets, in
//! memory from the converter's allocator. Comparing two [`Row`]s with
//! `memcmp` (their `Ord`) gives the order of the original values, column by
//! column, as the options say; equal rows mean equal values. This is what
//! multi-column sorts, merges, joins and group-bys want. Rows decode back to
//! columns of the original types with [`RowConverter::convert_rows`] (any
//! rows) or [`RowConverter::convert_all_rows`] (every row of a [`Rows`]),
//! through one decoder, which validates its input: malformed
//! bytes give [`Error::InvalidRow`], never a panic.
//!
//! # Encoding
//!
//! A row is the concatenation of each column's encoding; no encoding needs
//! escaping, so it is never ambiguous whether a byte is a sentinel or data.
//!
//! - **Nulls** are the null sentinel `0x00`, or `0xFF` when
//!   [`SortOptions::nulls_first`] is false. Valid values start with a byte
//!   between the two (`0x01`, `0x02`, or their inversions `0xFE`, `0xFD`).
//! - **Unsigned integers**: `0x01` then the big-endian bytes; a null is the
//!   sentinel then as many zero bytes. u32 258 is `01 00 00 01 02`.
//! - **Signed integers** (also decimals, dates, times, timestamps,
//!   durations): the sign bit flipped, then as unsigned. i32 -5 is `01 7F FF FF FB`.
//! - **Floats** (the seed's rules): NaNs become one canonical NaN and `-0.0`
//!   becomes `0.0`; the bits are turned into an order-preserving integer,
//!   giving `-inf < negatives < -0.0 = 0.0 < positives < inf < NaN`, all NaNs
//!   equal (decoding gives `0.0` and the canonical quiet NaN back, not the
//!   original bits). **This differs from arrow-row**, which orders floats by
//!   IEEE 754 `totalOrder`: there `-0.0 < 0.0`, NaNs with the sign bit set
//!   sort below `-inf`, and NaNs with different payloads are distinct rows.
//!   The bytes are arrow-row's for every other value (the canonical positive
//!   NaN included); `-0.0` gets the row of `0.0` and every other NaN the row
//!   of the canonical NaN. See [`SortOptions`] for an example.
//! - **Booleans**: `0x01` then `0x00` or `0x01`. **Intervals**: their fields in
//!   order, each as a signed integer. **Fixed-size binary**: `0x01` then the bytes.
//! - **Variable-length bytes and strings** (Binary, Utf8, their `Large` and
//!   `View` forms): `0x01` for empty, else `0x02` then 32-byte blocks each
//!   followed by `0xFF`, the last zero padded and followed by its unpadded
//!   length. The unordered encoding ([`RowEncoding::Unordered`]) writes a
//!   4-byte little-endian length and the raw bytes instead (`u32::MAX` for null).
//! - **Structs**: the sentinel alone for a null, else `0x01` then each
//!   child's encoding (children sort with the struct's options).
//!   **Fixed-size lists** likewise: `0x01` then each element's encoding.
//! - **Lists** (List, LargeList, ListView, LargeListView, Map), element by
//!   element as arrow-row 52 and later: each element's row as a non-empty
//!   byte string (`0x02`, four 8-byte mini-blocks, then 32-byte blocks), then
//!   the terminator `0x01`; `[]` is the terminator alone, a null list the
//!   null sentinel. The elements are encoded ascending and the whole
//!   inverted when descending, so lists compare element by element and a
//!   prefix sorts first. [`RowEncoding::Seed`] writes the seed's
//!   "canonical byte array" layout instead (with its ordering defect).
//! - **Dictionaries** are encoded by value, as arrow-row 47 and later: each
//!   key's row is its value's own encoding (each distinct value encoded
//!   once, its bytes copied per key), and rows decode to the value type.
//!   Batches with different, unsorted dictionaries encode consistently and a
//!   fresh converter has nothing to build. [`RowEncoding::Seed`] uses the
//!   seed's order-preserving interner instead, a [`RowInterner`] that the
//!   caller owns and passes to the `*_with_interner` methods: `0x01`, then
//!   a key from a mapping of the values that grows with every batch, then
//!   a `0x00` terminator (key and terminator inverted when descending); its
//!   rows are shorter when values are long and repeated, at the cost of
//!   building and keeping the mapping. **Run-end encoded** columns are encoded by value.
//! - **Unions** (sparse and dense): the type id as one byte (inverted when
//!   descending), then the selected child's row with the union's options,
//!   as arrow-row 57.2 and later (which, descending, leaves the child's row
//!   ascending; ours sorts descending inside a type too).
//! - **Null** columns take no bytes.
//! - **Descending** columns invert every byte of a valid value's encoding
//!   after its validity byte (for variable-length values and lists: every
//!   byte but a null's sentinel).
//!
//! # Example
//!
//! ```
//! # #[cfg(feature = "alloc")] {
//! use alkaid::array::{Array, PrimitiveArray, StringArray};
//! use alkaid::datatypes::DataType;
//! use alkaid::row::{RowConverter, SortField, SortOptions};
//! use alkaid::Global;
//!
//! let names = StringArray::<Global>::try_from_options_in(
//!     &[Some("b"), Some("a"), None, Some("a")],
//!     Global,
//! )?;
//! let ages = PrimitiveArray::<i32, Global>::from_slice(&[30, 40, 50, 20]);
//! let converter = RowConverter::try_new(&[
//!     SortField::new(DataType::Utf8),
//!     SortField::new_with_options(DataType::Int32, SortOptions::new(true, false)),
//! ])?;
//! let rows = converter.convert_columns(&[names.into_array_ref(), ages.into_array_ref()])?;
//!
//! // Sort by name ascending (nulls first), then age descending.
//! let mut order: Vec<usize> = (0..rows.len()).collect();
//! order.sort_by_key(|&i| rows.row(i));
//! assert_eq!(order, [2, 1, 3, 0]);
//!
//! // And back to columns.
//! let columns = converter.convert_rows(&rows)?;
//! assert_eq!(columns[1].len(), 4);
//! # }
//! # Ok::<(), alkaid::Error>(())
//! ```

// # Files of this module, by type family
//
// Every decode goes through one driver (`decode.rs`, `decode_rows`): one
// cursor per row, each column's decoder consuming its piece; the rows of a
// `Rows` (`convert_all_rows`) and any rows (`convert_rows`) alike.
//
// Each type family's encode and decode sit side by side in its file or
// directory. The dispatch on a column's kind is here, in this file
// (`prepare`, `add_lengths`, `encode`, `decode_column`, `skip_one`): the
// families with children recurse through it, and the drivers
// (`encode.rs`, `decode.rs`) call it per column, so no family imports a
// driver back.
//
// | family | encode | decode |
// |---|---|---|
// | dispatch | `mod.rs` (`Encoder`, `prepare`, `add_lengths`, `encode`) | `mod.rs` (`decode_column`, `skip_one`) |
// | driver | `encode.rs` (sizes, then one pass per column) | `decode.rs` (cursors, column by column; leaves, nulls) |
// | fixed width (Null, Boolean, primitives, FixedSizeBinary) | `fixed/mod.rs`, `fixed/native_order.rs` | `fixed/mod.rs` |
// | bytes (Binary, Utf8, Large, View) | `variable/mod.rs`, `variable/sizes.rs` | `variable/mod.rs` (one value), `variable/columns.rs`, `variable/views.rs` (views) |
// | nested: struct, fixed-size list | `nested.rs` | `nested.rs` |
// | list, list view, map | `list/mod.rs`; layouts `list/elements.rs` (default), `list/canonical.rs` (seed, unordered) | same |
// | dictionary by value, and the table encoder | `dictionary.rs`, `variable/take.rs` (values taken per key, written in order) | `dictionary.rs` |
// | seed dictionary (`RowInterner`) | `interner/mod.rs` (`keys.rs`: key assignment), `dictionary.rs` | `dictionary.rs`, `interner/mod.rs` |
// | run-end encoded | `run_end.rs` (rows through the table encoder) | `run_end.rs` |
// | union | `union.rs` | `union.rs` |
// | storage | `rows.rs` (`Rows`, `Row`), `provenance.rs` (which converter wrote them) | `provenance.rs` (own rows skip UTF-8 checks) |
// | the cursor decoders' look-ahead | | `crate::arch::prefetch` |
// | the converter | `converter.rs` (`RowConverter`: the entry points), `node.rs` (its tree of columns: `Node`, `Kind`), `columns.rs` (per-column nodes and encoders, one column inline) | |

mod columns;
mod converter;
mod decode;
mod dictionary;
mod encode;
mod fixed;
mod interner;
mod list;
mod nested;
mod node;
#[cfg(test)]
mod prefetch_tests;
mod provenance;
mod rows;
mod run_end;
#[cfg(feature = "union")]
mod union;
#[cfg(all(test, feature = "union"))]
mod union_tests;
mod variable;

#[cfg(test)]
pub(crate) mod proptests;
#[cfg(test)]
pub(crate) mod test_model;
#[cfg(test)]
pub(crate) mod test_strategies;
#[cfg(test)]
mod tests;

pub use converter::RowConverter;
pub use interner::RowInterner;
pub(crate) use node::{Kind, Node};
pub use rows::{Row, Rows, RowsIter};

use allocator_api2::alloc::Allocator;
use derive_where::derive_where;

use columns::Columns;
use decode::{decode_leaf, fixed_len, is_variable};
use dictionary::TableIndex;
use fixed::Layout;
use interner::Interner;
use list::ListIndex;

use crate::array::{Array, ArrayRef};
use crate::buffer::NullBuffer;
use crate::datatypes::DataType;
use crate::error::{Error, Result};

/// How one column sorts.
///
/// Floats sort by the seed's rules whatever the options: `-0.0` and `0.0`
/// are one value and so are all NaNs (above `+inf`), where arrow-row's IEEE
/// 754 `totalOrder` puts `-0.0` before `0.0`, negative NaNs below `-inf` and
/// tells NaN payloads apart (see the module's "Encoding" section).
///
/// ```
/// # #[cfg(feature = "alloc")] {
/// use alkaid::array::{Array, Float64Array};
/// use alkaid::datatypes::DataType;
/// use alkaid::row::{RowConverter, SortField, SortOptions};
///
/// let quiet_nan_with_payload = f64::from_bits(0x7FF8_0000_0000_0001);
/// let values = Float64Array::from(vec![-0.0, 0.0, f64::NAN, -f64::NAN, quiet_nan_with_payload]);
/// for options in [SortOptions::default(), SortOptions::new(true, false)] {
///     let converter = RowConverter::try_new(&[SortField::new_with_options(DataType::Float64, options)])?;
///     let rows = converter.convert_columns(&[values.clone().into_array_ref()])?;
///     assert_eq!(rows.row(0), rows.row(1)); // -0.0 and 0.0: equal rows
///     assert_eq!(rows.row(2), rows.row(3)); // NaN and -NaN
///     assert_eq!(rows.row(2), rows.row(4)); // NaN payloads
///     // Decoding gives 0.0 and the canonical NaN back.
///     let back = converter.convert_rows(&rows)?;
///     let back = back[0].as_primitive::<f64>().expect("Float64");
///     assert_eq!(back.value(0).map(f64::to_bits), Some(0.0f64.to_bits()));
///     assert_eq!(back.value(3).map(f64::to_bits), Some(f64::NAN.to_bits()));
/// }
/// # }
/// # Ok::<(), alkaid::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SortOptions {
    /// Largest values first.
    pub descending: bool,
    /// Nulls before every value (`true`, the default) or after.
    pub nulls_first: bool,
}

impl Default for SortOptions {
    /// Ascending, nulls first.
    fn default() -> Self {
        SortOptions {
            descending: false,
            nulls_first: true,
        }
    }
}

impl SortOptions {
    /// Options with both flags given.
    pub const fn new(descending: bool, nulls_first: bool) -> Self {
        SortOptions {
            descending,
            nulls_first,
        }
    }

    /// The byte of a null: `0x00` when nulls come first, `0xFF` otherwise.
    #[inline]
    pub(crate) const fn null_sentinel(self) -> u8 {
        if self.nulls_first {
            0x00
        } else {
            0xFF
        }
    }
}

/// A column of a [`RowConverter`]: its data type and [`SortOptions`].
///
/// ```
/// use alkaid::array::{Array, Float64Array};
/// use alkaid::datatypes::DataType;
/// use alkaid::row::{RowConverter, SortField, SortOptions};
///
/// // Floats: -inf < negatives < -0.0 = 0.0 < positives < inf < NaN.
/// let values = Float64Array::from(vec![Some(f64::NAN), Some(-0.0), None, Some(f64::NEG_INFINITY), Some(0.0), Some(2.5)]);
/// let field = SortField::new_with_options(DataType::Float64, SortOptions::new(false, false));
/// assert_eq!(field.options(), SortOptions { descending: false, nulls_first: false });
/// let converter = RowConverter::try_new(&[field])?;
/// let rows = converter.convert_columns(&[values.into_array_ref()])?;
/// let mut order: Vec<usize> = (0..rows.len()).collect();
/// order.sort_by_key(|&i| rows.row(i)); // stable: -0.0 (1) before 0.0 (4)
/// assert_eq!(order, [3, 1, 4, 5, 0, 2]); // nulls last
/// assert_eq!(rows.row(1), rows.row(4)); // -0.0 and 0.0 are one value
/// # Ok::<(), alkaid::Error>(())
/// ```
#[derive_where(Clone, Debug, PartialEq)]
pub struct SortField<
    'a,
    #[cfg(feature = "alloc")] A: Allocator = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator,
> {
    data_type: DataType<'a, A>,
    options: SortOptions,
}

impl<'a, A: Allocator> SortField<'a, A> {
    /// A column of `data_type`, ascending with nulls first.
    pub fn new(data_type: DataType<'a, A>) -> Self {
        Self::new_with_options(data_type, SortOptions::default())
    }

    /// A column of `data_type` sorting as `options` say.
    pub fn new_with_options(data_type: DataType<'a, A>, options: SortOptions) -> Self {
        SortField { data_type, options }
    }

    /// The data type.
    pub fn data_type(&self) -> &DataType<'a, A> {
        &self.data_type
    }

    /// The sort options.
    pub fn options(&self) -> SortOptions {
        self.options
    }
}

/// Which row encoding a [`RowConverter`] writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum RowEncoding {
    /// Rows compare (`memcmp`) in the order of the values. Lists are
    /// encoded element by element as arrow-row 52 and later do, so that a
    /// list sorts before every longer list it is a prefix of.
    #[default]
    Ordered,
    /// The ordered encoding as the seed text (spec 004) defines it: a list is
    /// its "canonical byte array" (the elements' rows back to back, each
    /// element's row length and the element count as big-endian `u32`s)
    /// encoded as variable-length bytes, and a dictionary value is a key from
    /// an order-preserving interner that grows with every batch (a
    /// [`RowInterner`], owned by the caller: dictionary columns encode and
    /// decode through [`RowConverter::convert_columns_with_interner`] and
    /// [`RowConverter::convert_rows_with_interner`]). The interner pays off
    /// for long, repeated values (a key of a few bytes stands for the
    /// whole value) and costs a binary search per dictionary value, a sort
    /// and memory for every new value.
    ///
    /// **Ordering defect**: when the next element of the longer list is a
    /// null that sorts first (nulls first ascending, or nulls last
    /// descending), the shorter list's length bytes compete with that null's
    /// bytes, and `[1, null]` sorts *before* `[1]`. Use it only to read or
    /// write rows of the seed's layout; [`RowEncoding::Ordered`] has no such
    /// case. Every other type is encoded as with [`RowEncoding::Ordered`].
    ///
    /// The seed's worked example, `[1_u8, null]` ascending with nulls first:
    ///
    /// ```
    /// use alkaid::array::{Array, ListBuilder, UInt8Builder};
    /// use alkaid::row::{RowConverter, RowEncoding, SortField};
    /// use alkaid::Global;
    ///
    /// let mut b = ListBuilder::new_in(UInt8Builder::new(), Global);
    /// b.values().try_append_value(1)?;
    /// b.values().try_append_null()?;
    /// b.try_append(true)?;
    /// b.values().try_append_value(1)?;
    /// b.try_append(true)?;
    /// let lists = b.try_finish()?.into_array_ref();
    ///
    /// let field = SortField::new(lists.data_type().clone());
    /// let seed = RowConverter::try_new_with_encoding(&[field.clone()], RowEncoding::Seed)?;
    /// let rows = seed.convert_columns(&[lists.clone()])?;
    /// let bytes = rows.row(0).map(|r| r.data().to_vec()).unwrap_or_default();
    /// // 0x02, the canonical byte array in one 32-byte block, its length 16:
    /// // elements [01 01] [00 00], their lengths 2 and 2, the count 2.
    /// let mut want = vec![0x02, 1, 1, 0, 0, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 2];
    /// want.extend([0; 16]);
    /// want.push(16);
    /// assert_eq!(bytes, want);
    /// // The defect: [1, null] < [1].
    /// assert!(rows.row(0) < rows.row(1));
    ///
    /// let ordered = RowConverter::try_new(&[field])?;
    /// let rows = ordered.convert_columns(&[lists])?;
    /// assert!(rows.row(1) < rows.row(0)); // [1] < [1, null]
    /// # Ok::<(), alkaid::Error>(())
    /// ```
    Seed,
    /// Rows are only equal when the values are (for hashing and grouping):
    /// variable-length values are written as a length and the raw bytes,
    /// dictionaries by value. Cheaper to encode; the order of rows means nothing.
    Unordered,
}

// # The dispatch over the type families
//
// Every family that holds children (structs, lists, dictionaries, run-end
// encoded, unions) encodes, decodes and skips them through these
// functions; the drivers (`encode.rs`, `decode.rs`) call them per column.

/// A column ready to be encoded.
pub(crate) enum Encoder<'c, 'b, A: Allocator> {
    /// Encoded straight from the array (every leaf type).
    Direct(&'c ArrayRef<'b, A>),
    /// Struct (`per_row == 1`: the children's rows) and fixed-size list
    /// (`per_row == size`: the elements' rows): `0x01` then the `per_row`
    /// child rows of the slot, or the null sentinel alone.
    Nested {
        nulls: Option<&'c NullBuffer<'b, A>>,
        child: Rows<A>,
        per_row: usize,
    },
    /// Lists: each slot's elements, from their rows `child`.
    List {
        nulls: Option<&'c NullBuffer<'b, A>>,
        index: ListIndex<'c>,
        child: list::ListChild<A>,
    },
    /// Dictionary and run-end encoded: a copy of one row of `table` per
    /// slot; `width`: every slot's piece has this many bytes
    /// ([`dictionary::key_width`]).
    Table {
        table: Rows<A>,
        index: TableIndex<'c, 'b, A>,
        width: Option<usize>,
    },
    /// A dictionary of byte values encoded by value, each slot's row
    /// written from the value its key takes (no table).
    Take(variable::take::Take<'c, 'b, A>),
    /// Unions: the type id byte, then the selected child's row.
    #[cfg(feature = "union")]
    Union {
        union: &'c crate::array::UnionArray<'b, A>,
        rows: crate::buffer::TryVec<Rows<A>, A>,
    },
}

/// Encodes `columns` (one per node) into new rows.
///
/// # Errors
/// As `encode_columns`.
pub(crate) fn encode_to_rows<A: Allocator + Clone>(
    nodes: &[Node<'_, A>],
    dictionaries: &mut [Interner<A>],
    columns: &[ArrayRef<'_, A>],
    alloc: &A,
) -> Result<Rows<A>> {
    let mut rows = Rows::new_in(alloc.clone());
    encode::encode_columns(nodes, dictionaries, columns, &mut rows, alloc)?;
    Ok(rows)
}

/// Readies one column for encoding (encoding its children, interning
/// dictionary values).
pub(crate) fn prepare<'c, 'b, A: Allocator + Clone>(
    node: &Node<'_, A>,
    dicts: &mut [Interner<A>],
    column: &'c ArrayRef<'b, A>,
    alloc: &A,
) -> Result<Encoder<'c, 'b, A>> {
    let opts = node.options;
    match (&node.kind, column) {
        (Kind::Leaf, c) => Ok(Encoder::Direct(c)),
        (Kind::Struct(children), ArrayRef::Struct(s)) => {
            nested::prepare_struct(children, dicts, s, alloc)
        }
        (Kind::FixedSizeList(child, size), ArrayRef::FixedSizeList(l)) => {
            nested::prepare_fixed_size_list(child, dicts, *size, l, alloc)
        }
        (Kind::List(_), ArrayRef::List(l)) => list::prepare_list(node, dicts, l, alloc),
        (Kind::List(_), ArrayRef::LargeList(l)) => list::prepare_list(node, dicts, l, alloc),
        (Kind::List(_), ArrayRef::ListView(l)) => list::prepare_list_view(node, dicts, l, alloc),
        (Kind::List(_), ArrayRef::LargeListView(l)) => {
            list::prepare_list_view(node, dicts, l, alloc)
        }
        (Kind::List(_), ArrayRef::Map(m)) => list::prepare_map(node, dicts, m, alloc),
        (Kind::Dictionary(slot, values), ArrayRef::Dictionary(d)) => {
            let mut enc = dictionary::prepare_dictionary(*slot, dicts, values, opts, d, alloc)?;
            if let Encoder::Table { table, width, .. } = &mut enc {
                *width = dictionary::key_width(node, table, d.keys());
            }
            Ok(enc)
        }
        (Kind::RunEnd(values), ArrayRef::RunEndEncoded(r)) => {
            run_end::prepare_run(values, dicts, r, alloc)
        }
        #[cfg(feature = "union")]
        (Kind::Union(children), ArrayRef::Union(u)) => {
            union::prepare_union(children, dicts, u, alloc)
        }
        _ => Err(Error::TypeMismatch),
    }
}

/// The encoded width of every row of a column whose rows all have one
/// width (the fixed-width leaf types), `None` for the others.
pub(crate) fn fixed_width<A: Allocator>(enc: &Encoder<'_, '_, A>) -> Option<usize> {
    let column = match enc {
        Encoder::Direct(column) => column,
        Encoder::Table { width, .. } => return *width,
        _ => return None,
    };
    fixed::column_width(column)
}

/// Adds `delta` to every length. Saturating, so that it vectorises: a
/// saturated length makes the running total overflow, which the caller
/// reports as [`Error::CapacityOverflow`].
fn add_all(lengths: &mut [usize], delta: usize) -> Result<()> {
    for l in lengths {
        *l = l.saturating_add(delta);
    }
    Ok(())
}

/// Adds each row's encoded size for this column to `lengths[i]` (without
/// overflow checks for byte columns when `bounded`: see
/// `rows_bound`).
pub(crate) fn add_lengths<A: Allocator>(
    enc: &Encoder<'_, '_, A>,
    node: &Node<'_, A>,
    lengths: &mut [usize],
    bounded: bool,
) -> Result<()> {
    match enc {
        Encoder::Direct(column) => match fixed::column_width(column) {
            Some(0) => Ok(()),
            Some(w) => add_all(lengths, w),
            None => variable::add_column_lengths(column, lengths, node.unordered, bounded),
        },
        Encoder::Nested {
            nulls,
            child,
            per_row,
        } => nested::add_lengths(*nulls, child, *per_row, lengths),
        Encoder::List {
            nulls,
            index,
            child,
        } => list::add_lengths(*nulls, index, child, node, lengths),
        Encoder::Table { table, index, .. } => dictionary::add_lengths(node, table, index, lengths),
        Encoder::Take(take) => variable::take::add_lengths(take, lengths),
        #[cfg(feature = "union")]
        Encoder::Union { union, rows } => union::add_lengths(union, rows, lengths),
    }
}

/// Writes this column's piece of every row at `data[cursors[i]..]`,
/// advancing the cursors.
pub(crate) fn encode<A: Allocator>(
    enc: &Encoder<'_, '_, A>,
    node: &Node<'_, A>,
    data: &mut [u8],
    cursors: &mut [usize],
) -> Result<()> {
    let opts = node.options;
    match enc {
        Encoder::Direct(column) => {
            match variable::encode_column(column, opts, node.unordered, data, cursors) {
                Some(r) => r,
                None => fixed::encode_column(column, opts, data, &mut Layout::Cursors(cursors)),
            }
        }
        Encoder::Nested {
            nulls,
            child,
            per_row,
        } => nested::encode(*nulls, child, *per_row, opts, data, cursors),
        Encoder::List {
            nulls,
            index,
            child,
        } => list::encode(*nulls, index, child, node, data, cursors),
        Encoder::Table { table, index, .. } => {
            let n = cursors.len();
            dictionary::encode(node, table, index, data, &mut Layout::Cursors(cursors), n)
        }
        Encoder::Take(take) => variable::take::encode(take, opts, data, cursors),
        #[cfg(feature = "union")]
        Encoder::Union { union, rows } => union::encode(union, rows, opts, data, cursors),
    }
}

/// Decodes the column `node` describes from the front of each row,
/// advancing the rows past it. `trusted`: an encoder of these very nodes
/// wrote every byte of the rows (see `provenance.rs`), so their strings
/// need no UTF-8 check.
///
/// # Errors
/// [`Error::InvalidRow`], [`Error::InvalidUtf8`],
/// [`Error::UnknownDictionaryKey`], [`Error::AllocationFailed`],
/// [`Error::UnsupportedType`].
pub(crate) fn decode_column<'a, A: Allocator + Clone>(
    node: &Node<'a, A>,
    dicts: &[Interner<A>],
    rows: &mut [&[u8]],
    trusted: bool,
    alloc: &A,
) -> Result<ArrayRef<'a, A>> {
    match &node.kind {
        Kind::Leaf => decode_leaf(node, rows, trusted, alloc),
        Kind::Struct(children) => {
            Ok(nested::decode_struct(node, children, dicts, rows, alloc)?.into_array_ref())
        }
        Kind::FixedSizeList(_, size) => {
            Ok(
                nested::decode_fixed_size_list(node, node.child()?, *size, dicts, rows, alloc)?
                    .into_array_ref(),
            )
        }
        Kind::List(_) => list::decode(node, node.child()?, dicts, rows, alloc),
        Kind::Dictionary(..) => dictionary::decode_dictionary(node, dicts, rows, trusted, alloc),
        Kind::RunEnd(_) => run_end::decode_run(node, dicts, rows, alloc),
        #[cfg(feature = "union")]
        Kind::Union(children) => union::decode(node, children, dicts, rows, alloc),
    }
}

/// Length of the one encoded value of `node` at the front of `row`.
///
/// # Errors
/// [`Error::InvalidRow`] when the row is too short or a sentinel is wrong.
pub(crate) fn skip_one<A: Allocator>(node: &Node<'_, A>, row: &[u8]) -> Result<usize> {
    let sentinel = node.options.null_sentinel();
    let n = match &node.kind {
        Kind::Leaf if is_variable(&node.data_type) => {
            if node.unordered {
                variable::skip_unordered(row)?
            } else {
                variable::skip_ordered(row, node.options)?
            }
        }
        Kind::Leaf => fixed_len(&node.data_type)?,
        Kind::List(_) => {
            if node.unordered {
                variable::skip_unordered(row)?
            } else if node.canonical_lists {
                variable::skip_ordered(row, node.options)?
            } else {
                list::elements::skip_list(row, node.options)?
            }
        }
        Kind::Struct(children) => match row.first() {
            Some(&1) => {
                let mut pos = 1;
                for c in children.iter() {
                    pos += skip_one(c, row.get(pos..).ok_or(Error::InvalidRow)?)?;
                }
                pos
            }
            Some(&b) if b == sentinel => 1,
            _ => return Err(Error::InvalidRow),
        },
        Kind::FixedSizeList(c, size) => match row.first() {
            Some(&1) => {
                let child = c.first().ok_or(Error::UnsupportedType)?;
                let mut pos = 1;
                for _ in 0..*size {
                    pos += skip_one(child, row.get(pos..).ok_or(Error::InvalidRow)?)?;
                }
                pos
            }
            Some(&b) if b == sentinel => 1,
            _ => return Err(Error::InvalidRow),
        },
        Kind::Dictionary(Some(_), _) => match row.first() {
            Some(&1) => {
                let terminator = if node.options.descending { 0xFF } else { 0 };
                let rest = row.get(1..).ok_or(Error::InvalidRow)?;
                2 + rest
                    .iter()
                    .position(|&b| b == terminator)
                    .ok_or(Error::InvalidRow)?
            }
            Some(&b) if b == sentinel => 1,
            _ => return Err(Error::InvalidRow),
        },
        Kind::Dictionary(None, _) | Kind::RunEnd(_) => skip_one(node.child()?, row)?,
        #[cfg(feature = "union")]
        Kind::Union(c) => union::skip_union(node, c, row)?,
    };
    if n > row.len() {
        return Err(Error::InvalidRow);
    }
    Ok(n)
}

/// Splits `n` bytes off the front of `row`.
///
/// # Errors
/// [`Error::InvalidRow`] when `row` is shorter.
#[inline]
pub(crate) fn take<'r>(row: &mut &'r [u8], n: usize) -> Result<&'r [u8]> {
    if row.len() < n {
        return Err(Error::InvalidRow);
    }
    let (head, tail) = row.split_at(n);
    *row = tail;
    Ok(head)
}
