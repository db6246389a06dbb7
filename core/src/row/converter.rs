//! [`RowConverter`]: a list of [`SortField`]s turned into a tree of
//! column nodes, and the entry points that encode columns into [`Rows`]
//! and decode rows back ("Row format" spec, 004; the encodings are in the
//! module's documentation).

use allocator_api2::alloc::Allocator;

use super::interner::Interner;
use super::provenance::Provenance;
use super::{decode, encode};
use super::{Columns, Node, Row, RowEncoding, RowInterner, Rows, SortField, SortOptions};
use crate::array::ArrayRef;
use crate::buffer::{SharedSlice, TryVec};
use crate::datatypes::DataType;
use crate::error::{Error, Result};

/// Converts columns to [`Rows`] and back (see the [module](super) documentation).
///
/// Allocator-generic: the rows, and every buffer the converter needs, come
/// from `A`. Encoding a batch makes one allocation for the row bytes and one
/// for the offsets (sizes are computed first), plus a few per nested or
/// dictionary column; nothing per row.
///
/// A converter holds no mutable state: every method takes `&self`, so one
/// converter can serve several threads. The one exception to "no state",
/// the seed's dictionary interner ([`RowEncoding::Seed`]), is a separate
/// [`RowInterner`] the caller owns.
///
/// Rows of several batches compare with each other (here, a merge of two
/// sorted batches), and decode back to columns:
///
/// ```
/// use alkaid::array::{Array, Int32Array, StringArray};
/// use alkaid::datatypes::DataType;
/// use alkaid::row::{RowConverter, SortField};
///
/// let converter = RowConverter::try_new(&[SortField::new(DataType::Utf8), SortField::new(DataType::Int32)])?;
/// let mut rows = converter.convert_columns(&[
///     StringArray::from(vec!["a", "c"]).into_array_ref(),
///     Int32Array::from(vec![1, 1]).into_array_ref(),
/// ])?;
/// converter.append(&mut rows, &[
///     StringArray::from(vec!["b", "c"]).into_array_ref(),
///     Int32Array::from(vec![9, 0]).into_array_ref(),
/// ])?;
/// assert_eq!(rows.len(), 4);
/// let mut merged: Vec<_> = rows.iter().collect();
/// merged.sort();
/// let columns = converter.convert_rows(merged)?;
/// assert_eq!(columns[0], StringArray::from(vec!["a", "b", "c", "c"]).into_array_ref());
/// assert_eq!(columns[1], Int32Array::from(vec![1, 9, 0, 1]).into_array_ref());
/// # Ok::<(), alkaid::Error>(())
/// ```
///
/// For grouping and hashing only, the unordered encoding is cheaper; equal
/// rows still mean equal values:
///
/// ```
/// use alkaid::array::{Array, StringArray};
/// use alkaid::datatypes::DataType;
/// use alkaid::row::{RowConverter, RowEncoding, SortField};
///
/// let converter = RowConverter::try_new_unordered(&[SortField::new(DataType::Utf8)])?;
/// assert_eq!(converter.encoding(), RowEncoding::Unordered);
/// let rows = converter.convert_columns(&[StringArray::from(vec!["x", "y", "x"]).into_array_ref()])?;
/// assert_eq!(rows.row(0), rows.row(2));
/// assert_ne!(rows.row(0), rows.row(1));
/// // A 4-byte little-endian length, then the bytes.
/// assert_eq!(rows.row(1).map(|r| r.data()), Some(&[1, 0, 0, 0, b'y'][..]));
/// # Ok::<(), alkaid::Error>(())
/// ```
pub struct RowConverter<
    'a,
    #[cfg(feature = "alloc")] A: Allocator + Clone = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator + Clone,
> {
    pub(super) nodes: Columns<Node<'a, A>, A>,
    /// Where its rows and decoded columns come from.
    alloc: A,
    encoding: RowEncoding,
    /// Number of dictionary columns (nested ones included) that a
    /// [`RowInterner`] of this converter maps ([`RowEncoding::Seed`] only).
    seed_dictionaries: usize,
    /// What its rows record as their origin (`None`: nothing to skip).
    pub(super) provenance: Option<Provenance>,
}

impl<'a, A: Allocator + Clone> RowConverter<'a, A> {
    /// A converter for columns of `fields` (types and sort options), writing
    /// the ordered encoding, with memory from `alloc`.
    ///
    /// # Errors
    /// [`Error::UnsupportedType`] for a type without a row encoding (see
    /// [`Self::supports_data_type`]); [`Error::InvalidDataType`];
    /// [`Error::AllocationFailed`].
    pub fn try_new_in(fields: &[SortField<'a, A>], alloc: A) -> Result<Self> {
        Self::try_new_with_encoding_in(fields, RowEncoding::Ordered, alloc)
    }

    /// A converter writing the unordered encoding ([`RowEncoding::Unordered`]).
    ///
    /// # Errors
    /// As [`Self::try_new_in`].
    pub fn try_new_unordered_in(fields: &[SortField<'a, A>], alloc: A) -> Result<Self> {
        Self::try_new_with_encoding_in(fields, RowEncoding::Unordered, alloc)
    }

    /// A converter writing `encoding`.
    ///
    /// # Errors
    /// As [`Self::try_new_in`].
    pub fn try_new_with_encoding_in(
        fields: &[SortField<'a, A>],
        encoding: RowEncoding,
        alloc: A,
    ) -> Result<Self> {
        let mut seeds = 0;
        let nodes = Columns::try_from_fn_in(fields.len(), alloc.clone(), |i| {
            let f = fields.get(i).ok_or(Error::OutOfBounds)?;
            f.data_type.validate()?;
            Node::try_new(&f.data_type, f.options, encoding, &mut seeds, &alloc)
        })?;
        let provenance = Provenance::of(&nodes, encoding);
        Ok(RowConverter {
            nodes,
            alloc,
            encoding,
            seed_dictionaries: seeds,
            provenance,
        })
    }

    /// `true` when columns of `data_type` can be converted: Null, Boolean,
    /// every integer, float, decimal, temporal and interval type,
    /// FixedSizeBinary, Binary, LargeBinary, Utf8, LargeUtf8, BinaryView,
    /// Utf8View, and Struct, List, LargeList, ListView, LargeListView,
    /// FixedSizeList, Map, Dictionary, RunEndEncoded and (feature `union`)
    /// sparse and dense Union of supported types.
    pub fn supports_data_type(data_type: &DataType<'_, A>) -> bool {
        use DataType::*;
        match data_type {
            Struct(fields) => fields
                .iter()
                .all(|f| Self::supports_data_type(f.data_type())),
            List(f) | LargeList(f) | ListView(f) | LargeListView(f) | Map(f, _) => {
                Self::supports_data_type(f.data_type())
            }
            FixedSizeList(f, _) => Self::supports_data_type(f.data_type()),
            Dictionary(_, v, _) => Self::supports_data_type(v),
            RunEndEncoded(_, v) => Self::supports_data_type(v.data_type()),
            #[cfg(feature = "union")]
            Union(u, _) => u
                .fields()
                .iter()
                .all(|f| Self::supports_data_type(f.data_type())),
            dt => Self::supports_leaf(dt),
        }
    }

    pub(super) fn supports_leaf(data_type: &DataType<'_, A>) -> bool {
        use DataType::*;
        matches!(
            data_type,
            Null | Boolean
                | FixedSizeBinary(_)
                | Binary
                | LargeBinary
                | Utf8
                | LargeUtf8
                | BinaryView
                | Utf8View
        ) || data_type.primitive_width().is_some()
    }

    /// Number of columns.
    pub fn num_columns(&self) -> usize {
        self.nodes.len()
    }

    /// The data type of column `i`, or `None` when out of range.
    pub fn data_type(&self, i: usize) -> Option<&DataType<'a, A>> {
        self.nodes.get(i).map(|n| &n.data_type)
    }

    /// The type of column `i` as [`Self::convert_rows`] returns it (every
    /// dictionary replaced by its value type), or `None` when out of range.
    pub fn decoded_type(&self, i: usize) -> Option<&DataType<'a, A>> {
        self.nodes.get(i).map(|n| n.decoded())
    }

    /// The sort options of column `i`, or `None` when out of range.
    pub fn options(&self, i: usize) -> Option<SortOptions> {
        self.nodes.get(i).map(|n| n.options)
    }

    /// The encoding this converter writes.
    pub fn encoding(&self) -> RowEncoding {
        self.encoding
    }

    /// Empty [`Rows`] with room for `rows` rows of `bytes` bytes in total.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`], [`Error::CapacityOverflow`].
    pub fn empty_rows(&self, rows: usize, bytes: usize) -> Result<Rows<A>> {
        Rows::try_with_capacity_in(rows, bytes, self.alloc.clone())
    }

    /// Encodes `columns` (one per field, of the fields' types, all of one
    /// length) into new [`Rows`].
    ///
    /// Needs no mutable state: one converter can encode from several
    /// threads at once. Only dictionary columns of a [`RowEncoding::Seed`]
    /// converter need one, a [`RowInterner`]
    /// ([`Self::convert_columns_with_interner`]).
    ///
    /// # Errors
    /// [`Error::SchemaMismatch`] when the number of columns differs from the
    /// fields'; [`Error::TypeMismatch`] when a column's type differs from its
    /// field's; [`Error::LengthMismatch`] when lengths differ;
    /// [`Error::RowInternerRequired`] for a [`RowEncoding::Seed`] converter
    /// with dictionary columns; [`Error::AllocationFailed`];
    /// [`Error::CapacityOverflow`].
    pub fn convert_columns(&self, columns: &[ArrayRef<'_, A>]) -> Result<Rows<A>> {
        let mut rows = Rows::new_in(self.alloc.clone());
        self.append(&mut rows, columns)?;
        Ok(rows)
    }

    /// Encodes `columns` as [`Self::convert_columns`] does and appends the
    /// rows to `rows` (which must come from this converter). On error `rows`
    /// is left as it was.
    ///
    /// # Errors
    /// As [`Self::convert_columns`].
    pub fn append(&self, rows: &mut Rows<A>, columns: &[ArrayRef<'_, A>]) -> Result<()> {
        self.append_to(&mut [], rows, columns)
    }

    /// A [`RowInterner`] for this converter's dictionary columns: empty
    /// (it grows with the batches encoded through it); holds nothing
    /// unless the converter writes [`RowEncoding::Seed`] and has dictionary
    /// columns.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`].
    pub fn try_new_interner(&self) -> Result<RowInterner<A>> {
        let alloc = &self.alloc;
        Ok(RowInterner {
            dictionaries: TryVec::try_from_fn_in(self.seed_dictionaries, alloc.clone(), |_| {
                Ok(Interner::new_in(alloc.clone()))
            })?,
        })
    }

    /// Encodes `columns` as [`Self::convert_columns`] does, with the
    /// dictionary columns of a [`RowEncoding::Seed`] converter encoded
    /// through `interner` (which must come from this converter's
    /// [`Self::try_new_interner`]; it learns the batch's new values). Rows
    /// encoded through one interner compare with each other; decode them
    /// with [`Self::convert_rows_with_interner`] and the same interner.
    ///
    /// # Errors
    /// As [`Self::convert_columns`]; [`Error::RowInternerMismatch`] when
    /// `interner` was made for another converter.
    pub fn convert_columns_with_interner(
        &self,
        interner: &mut RowInterner<A>,
        columns: &[ArrayRef<'_, A>],
    ) -> Result<Rows<A>> {
        let mut rows = Rows::new_in(self.alloc.clone());
        self.append_with_interner(interner, &mut rows, columns)?;
        Ok(rows)
    }

    /// [`Self::convert_columns_with_interner`], appending to `rows` (which
    /// must come from this converter). On error `rows` is left as it was.
    ///
    /// # Errors
    /// As [`Self::convert_columns_with_interner`].
    pub fn append_with_interner(
        &self,
        interner: &mut RowInterner<A>,
        rows: &mut Rows<A>,
        columns: &[ArrayRef<'_, A>],
    ) -> Result<()> {
        let dictionaries = self.interners_mut(interner)?;
        self.append_to(dictionaries, rows, columns)
    }

    /// The mappings of `interner`, checked to be this converter's.
    fn interners_mut<'i>(&self, interner: &'i mut RowInterner<A>) -> Result<&'i mut [Interner<A>]> {
        if interner.dictionaries.len() != self.seed_dictionaries {
            return Err(Error::RowInternerMismatch);
        }
        Ok(&mut interner.dictionaries)
    }

    /// [`Self::interners_mut`], shared.
    fn interners<'i>(&self, interner: &'i RowInterner<A>) -> Result<&'i [Interner<A>]> {
        if interner.dictionaries.len() != self.seed_dictionaries {
            return Err(Error::RowInternerMismatch);
        }
        Ok(&interner.dictionaries)
    }

    fn append_to(
        &self,
        dictionaries: &mut [Interner<A>],
        rows: &mut Rows<A>,
        columns: &[ArrayRef<'_, A>],
    ) -> Result<()> {
        let alloc = self.alloc.clone();
        let mark = rows.mark();
        let r = encode::encode_columns(&self.nodes, dictionaries, columns, rows, &alloc);
        match r {
            Ok(()) => rows.appended(mark, self.provenance),
            Err(_) => rows.reset(mark),
        }
        r
    }

    /// Decodes rows back into columns of the fields' types (dictionary
    /// columns decode to their value type; floats come back normalised).
    ///
    /// The rows may come from anywhere: every byte is checked.
    ///
    /// # Errors
    /// [`Error::InvalidRow`] for bytes that are not a row of this converter's
    /// fields (including trailing bytes); [`Error::InvalidUtf8`] for a string
    /// column with bytes that are not UTF-8; [`Error::AllocationFailed`].
    /// When rows of several variable-width columns are decoded column by
    /// column, the error's location names the column (as its field) or,
    /// for trailing bytes, the row.
    pub fn convert_rows<'r, I>(&self, rows: I) -> Result<SharedSlice<'a, ArrayRef<'a, A>, A>>
    where
        I: IntoIterator<Item = Row<'r>>,
        I::IntoIter: ExactSizeIterator,
    {
        self.decode_rows(&[], rows)
    }

    /// [`Self::convert_rows`] for rows encoded through `interner`
    /// ([`Self::convert_columns_with_interner`]): the keys of seed
    /// dictionary columns are looked up in it.
    ///
    /// # Errors
    /// As [`Self::convert_rows`]; [`Error::UnknownDictionaryKey`] for a key
    /// that `interner` never issued; [`Error::RowInternerMismatch`] when
    /// `interner` was made for another converter.
    pub fn convert_rows_with_interner<'r, I>(
        &self,
        interner: &RowInterner<A>,
        rows: I,
    ) -> Result<SharedSlice<'a, ArrayRef<'a, A>, A>>
    where
        I: IntoIterator<Item = Row<'r>>,
        I::IntoIter: ExactSizeIterator,
    {
        self.decode_rows(self.interners(interner)?, rows)
    }

    fn decode_rows<'r, I>(
        &self,
        dictionaries: &[Interner<A>],
        rows: I,
    ) -> Result<SharedSlice<'a, ArrayRef<'a, A>, A>>
    where
        I: IntoIterator<Item = Row<'r>>,
        I::IntoIter: ExactSizeIterator,
    {
        // Rows from anywhere: checked in full.
        decode::decode_rows(
            &self.nodes,
            dictionaries,
            rows.into_iter(),
            false,
            &self.alloc,
        )
    }

    /// Decodes every row of `rows` (from any allocator) as
    /// [`Self::convert_rows`]`(rows.iter())` does: through the same
    /// decoder, with the same columns and errors. Every byte is checked
    /// (`rows` may hold any bytes: [`Rows::try_push`]), but for the UTF-8
    /// of the top-level Utf8, LargeUtf8 and Utf8View columns (or by-value
    /// dictionaries of them) when every byte of `rows` was encoded by a
    /// converter of the same fields (types, options, encoding). One
    /// [`Rows::try_push`], or rows of other fields (a Binary column's),
    /// make `rows` checked in full.
    ///
    /// # Errors
    /// As [`Self::convert_rows`]: [`Error::InvalidRow`] for bytes that are
    /// not a row of this converter's fields; [`Error::InvalidUtf8`];
    /// [`Error::AllocationFailed`]; [`Error::CapacityOverflow`].
    pub fn convert_all_rows<B: Allocator>(
        &self,
        rows: &Rows<B>,
    ) -> Result<SharedSlice<'a, ArrayRef<'a, A>, A>> {
        self.decode_all(&[], rows)
    }

    /// [`Self::convert_all_rows`] for rows encoded through `interner`, as
    /// [`Self::convert_rows_with_interner`].
    ///
    /// # Errors
    /// As [`Self::convert_rows_with_interner`].
    pub fn convert_all_rows_with_interner<B: Allocator>(
        &self,
        interner: &RowInterner<A>,
        rows: &Rows<B>,
    ) -> Result<SharedSlice<'a, ArrayRef<'a, A>, A>> {
        self.decode_all(self.interners(interner)?, rows)
    }

    fn decode_all<B: Allocator>(
        &self,
        dictionaries: &[Interner<A>],
        rows: &Rows<B>,
    ) -> Result<SharedSlice<'a, ArrayRef<'a, A>, A>> {
        // Rows that an encoder of these very fields wrote hold only the
        // bytes of valid strings: their UTF-8 is not checked again.
        let written_by = rows.written_by();
        let trusted = written_by.is_some() && written_by == self.provenance;
        decode::decode_rows(&self.nodes, dictionaries, rows.iter(), trusted, &self.alloc)
    }
}

#[cfg(feature = "alloc")]
impl<'a> RowConverter<'a, crate::Global> {
    /// [`Self::try_new_in`] with the global allocator.
    ///
    /// # Errors
    /// As [`Self::try_new_in`].
    pub fn try_new(fields: &[SortField<'a, crate::Global>]) -> Result<Self> {
        Self::try_new_in(fields, crate::Global)
    }

    /// [`Self::try_new_unordered_in`] with the global allocator.
    ///
    /// # Errors
    /// As [`Self::try_new_in`].
    pub fn try_new_unordered(fields: &[SortField<'a, crate::Global>]) -> Result<Self> {
        Self::try_new_unordered_in(fields, crate::Global)
    }

    /// [`Self::try_new_with_encoding_in`] with the global allocator.
    ///
    /// # Errors
    /// As [`Self::try_new_in`].
    pub fn try_new_with_encoding(
        fields: &[SortField<'a, crate::Global>],
        encoding: RowEncoding,
    ) -> Result<Self> {
        Self::try_new_with_encoding_in(fields, encoding, crate::Global)
    }
}

impl<A: Allocator + Clone> core::fmt::Debug for RowConverter<'_, A> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let mut l = f.debug_list();
        for n in self.nodes.iter() {
            l.entry(&(&n.data_type, n.options));
        }
        l.finish()
    }
}
