//! [`RecordBatch`]: a schema and equal-length columns.

use allocator_api2::alloc::Allocator;
use derive_where::derive_where;

use super::{Array, ArrayRef, ValidationLevel};
use crate::buffer::SharedSlice;
use crate::datatypes::Schema;
use crate::error::{Error, Result};

/// Columns of equal length matching a [`Schema`] ("Record Batches" of the
/// IPC chapter: the unit of data of the stream and file formats).
///
/// The columns are a [`SharedSlice`]: a firmware can borrow them from an array
/// on its stack; a host shares them from an allocation.
///
/// ```
/// use alkaid::array::{Array, Int32Array, RecordBatch, StringArray};
/// use alkaid::datatypes::{DataType, Field, Schema};
///
/// let schema = Schema::new(vec![
///     Field::new("id", DataType::Int32, false),
///     Field::new("name", DataType::Utf8, true),
/// ]);
/// let batch = RecordBatch::try_new(schema.clone(), vec![
///     Int32Array::from(vec![1, 2, 3]).into_array_ref(),
///     StringArray::from(vec![Some("a"), None, Some("c")]).into_array_ref(),
/// ])?;
/// assert_eq!((batch.num_rows(), batch.num_columns()), (3, 2));
/// assert_eq!(batch.column_by_name("name").map(|c| c.null_count()), Some(1));
///
/// // The schema is checked: a null in the non-nullable "id" is refused.
/// let bad = RecordBatch::try_new(schema, vec![
///     Int32Array::from(vec![Some(1), None, Some(3)]).into_array_ref(),
///     StringArray::from(vec!["a", "b", "c"]).into_array_ref(),
/// ]);
/// assert!(bad.is_err()); // Error::NullInNonNullableField
/// # Ok::<(), alkaid::Error>(())
/// ```
///
/// Without a heap: schema and columns borrowed from the stack.
///
/// ```
/// use alkaid::array::{Array, ArrayRef, PrimitiveArray, RecordBatch};
/// use alkaid::buffer::SharedSlice;
/// use alkaid::datatypes::{DataType, Field, Schema};
/// use alkaid::NoAlloc;
///
/// let fields = [Field::new("mv", DataType::Int16, false)];
/// let samples: [i16; 3] = [1200, 1210, 1195];
/// let columns: [ArrayRef<'_, NoAlloc>; 1] = [PrimitiveArray::from_slice(&samples).into_array_ref()];
/// let batch = RecordBatch::try_new(Schema::from_fields(SharedSlice::borrowed(&fields)), &columns[..])?;
/// assert_eq!(batch.num_rows(), 3);
/// # Ok::<(), alkaid::Error>(())
/// ```
#[derive_where(Clone, Debug)]
pub struct RecordBatch<
    'a,
    #[cfg(feature = "alloc")] A: Allocator = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator,
> {
    schema: Schema<'a, A>,
    columns: SharedSlice<'a, ArrayRef<'a, A>, A>,
    num_rows: usize,
}

impl<'a, A: Allocator> RecordBatch<'a, A> {
    /// A batch of `columns` described by `schema`. The columns are a
    /// `Vec<ArrayRef>` (global heap, feature `alloc`), a borrowed
    /// `&[ArrayRef]` or a [`SharedSlice`].
    ///
    /// Checks that there is one column per field, each of the field's type and
    /// of the same length, and that non-nullable fields hold no nulls. Columns
    /// are not re-validated (their constructors did that). A batch without
    /// columns has zero rows; use [`Self::try_new_with_rows`] otherwise.
    ///
    /// # Errors
    /// [`Error::SchemaMismatch`], [`Error::LengthMismatch`],
    /// [`Error::NullInNonNullableField`], each with the index of the column
    /// in its location (for a count mismatch, the first index that one side
    /// lacks).
    pub fn try_new(
        schema: Schema<'a, A>,
        columns: impl Into<SharedSlice<'a, ArrayRef<'a, A>, A>>,
    ) -> Result<Self> {
        let columns = columns.into();
        let rows = columns.first().map_or(0, |c| c.len());
        Self::try_new_with_rows(schema, columns, rows)
    }

    /// As [`Self::try_new`] with an explicit row count (needed without columns).
    ///
    /// # Errors
    /// As [`Self::try_new`].
    pub fn try_new_with_rows(
        schema: Schema<'a, A>,
        columns: impl Into<SharedSlice<'a, ArrayRef<'a, A>, A>>,
        num_rows: usize,
    ) -> Result<Self> {
        let columns = columns.into();
        let (n, m) = (schema.fields().len(), columns.len());
        if n != m {
            return Err(Error::SchemaMismatch.with_field(n.min(m)));
        }
        for (i, (f, c)) in schema.fields().iter().zip(columns.iter()).enumerate() {
            if f.data_type() != c.data_type() {
                return Err(Error::SchemaMismatch.with_field(i));
            }
            if c.len() != num_rows {
                return Err(Error::LengthMismatch.with_field(i));
            }
            if !f.is_nullable() && c.null_count() > 0 {
                return Err(Error::NullInNonNullableField.with_field(i));
            }
        }
        Ok(RecordBatch {
            schema,
            columns,
            num_rows,
        })
    }

    /// The schema.
    pub fn schema(&self) -> &Schema<'a, A> {
        &self.schema
    }

    /// The columns, in schema order.
    pub fn columns(&self) -> &[ArrayRef<'a, A>] {
        &self.columns
    }

    /// Column `i`, or `None`.
    pub fn column(&self, i: usize) -> Option<&ArrayRef<'a, A>> {
        self.columns.get(i)
    }

    /// The column of the first field named `name`, or `None`.
    pub fn column_by_name(&self, name: &str) -> Option<&ArrayRef<'a, A>> {
        self.schema.index_of(name).and_then(|i| self.columns.get(i))
    }

    /// Number of rows.
    pub fn num_rows(&self) -> usize {
        self.num_rows
    }

    /// Number of columns.
    pub fn num_columns(&self) -> usize {
        self.columns.len()
    }

    /// Validates every column at `level`.
    ///
    /// # Errors
    /// The first column's validation error, with the column's index.
    pub fn validate(&self, level: ValidationLevel) -> Result<()> {
        for (i, c) in self.columns.iter().enumerate() {
            c.validate(level).map_err(|e| e.with_field(i))?;
        }
        Ok(())
    }
}

impl<'a, A: Allocator + Clone> RecordBatch<'a, A> {
    /// A zero-copy view of `len` rows from row `offset`: every column
    /// sliced ([`Array::slice`], no buffer copied), the schema shared; the
    /// one allocation is the new list of columns, from `alloc`.
    ///
    /// ```
    /// use alkaid::array::{Array, Int32Array, RecordBatch};
    /// use alkaid::datatypes::{DataType, Field, Schema};
    /// use alkaid::Global;
    ///
    /// let schema = Schema::new(vec![Field::new("x", DataType::Int32, false)]);
    /// let b = RecordBatch::try_new(schema, vec![Int32Array::from(vec![1, 2, 3, 4]).into_array_ref()])?;
    /// let mid = b.slice_in(1, 2, Global)?;
    /// assert_eq!(mid.column(0), Some(&Int32Array::from(vec![2, 3]).into_array_ref()));
    /// assert!(b.slice_in(3, 2, Global).is_err()); // Error::OutOfBounds
    /// # Ok::<(), alkaid::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::OutOfBounds`] when `offset + len > self.num_rows()`;
    /// [`Error::AllocationFailed`].
    pub fn slice_in(&self, offset: usize, len: usize, alloc: A) -> Result<Self> {
        super::check_slice(offset, len, self.num_rows)?;
        let columns = SharedSlice::try_from_fn_in(self.columns.len(), alloc, |i| {
            self.columns
                .get(i)
                .ok_or(Error::OutOfBounds)?
                .slice(offset, len)
        })?;
        Ok(RecordBatch {
            schema: self.schema.clone(),
            columns,
            num_rows: len,
        })
    }

    /// The batch of the columns at `indices` (in that order, repeats
    /// allowed), with their fields and the schema's metadata; columns are
    /// shared, not copied; the new lists of fields and columns come from
    /// `alloc`.
    ///
    /// # Errors
    /// [`Error::SchemaMismatch`] (with the position in `indices`) for an
    /// index past the last column; [`Error::AllocationFailed`].
    pub fn project_in(&self, indices: &[usize], alloc: A) -> Result<Self> {
        let pick = |k: usize| -> Result<usize> {
            let i = *indices.get(k).ok_or(Error::OutOfBounds)?;
            if i < self.columns.len() {
                Ok(i)
            } else {
                Err(Error::SchemaMismatch.with_field(k))
            }
        };
        let fields = SharedSlice::try_from_fn_in(indices.len(), alloc.clone(), |k| {
            self.schema
                .field(pick(k)?)
                .cloned()
                .ok_or(Error::OutOfBounds)
        })?;
        let columns = SharedSlice::try_from_fn_in(indices.len(), alloc, |k| {
            self.columns
                .get(pick(k)?)
                .cloned()
                .ok_or(Error::OutOfBounds)
        })?;
        let schema = Schema::from_fields(fields).with_metadata(self.schema.metadata().clone());
        Ok(RecordBatch {
            schema,
            columns,
            num_rows: self.num_rows,
        })
    }
}

#[cfg(feature = "alloc")]
impl<'a> RecordBatch<'a, crate::Global> {
    /// [`Self::slice_in`] with the global allocator.
    ///
    /// # Errors
    /// As [`Self::slice_in`].
    pub fn slice(&self, offset: usize, len: usize) -> Result<Self> {
        self.slice_in(offset, len, crate::Global)
    }

    /// [`Self::project_in`] with the global allocator.
    ///
    /// ```
    /// use alkaid::array::{Array, Int32Array, RecordBatch, StringArray};
    /// use alkaid::datatypes::{DataType, Field, Schema};
    ///
    /// let schema = Schema::new(vec![
    ///     Field::new("id", DataType::Int32, false),
    ///     Field::new("name", DataType::Utf8, true),
    /// ]);
    /// let b = RecordBatch::try_new(schema, vec![
    ///     Int32Array::from(vec![1, 2]).into_array_ref(),
    ///     StringArray::from(vec!["a", "b"]).into_array_ref(),
    /// ])?;
    /// let names = b.project(&[1])?;
    /// assert_eq!(names.schema().field(0).map(|f| f.name()), Some("name"));
    /// assert_eq!((names.num_columns(), names.num_rows()), (1, 2));
    /// assert!(b.project(&[2]).is_err()); // Error::SchemaMismatch (field 0)
    /// # Ok::<(), alkaid::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Self::project_in`].
    pub fn project(&self, indices: &[usize]) -> Result<Self> {
        self.project_in(indices, crate::Global)
    }

    /// A batch of named columns on the global heap, its schema made from the
    /// names and the columns' data types; a field is nullable when its column
    /// has nulls (arrow-rs: `RecordBatch::try_from_iter`). Dictionary
    /// columns get the dictionary ids 0, 1, … in column order (the IPC
    /// writers need one per dictionary field; a dictionary nested in another
    /// type keeps the id its field was given with
    /// [`crate::datatypes::Field::with_dict_id`]).
    ///
    /// ```
    /// use alkaid::array::{Array, DictionaryBuilder, RecordBatch, StringArray};
    /// use alkaid::ipc::{reader::SliceStreamReader, writer::StreamWriter};
    ///
    /// let mut levels = DictionaryBuilder::<i8>::try_new(StringArray::from(vec!["ok", "warn"]).into_array_ref())?;
    /// levels.try_append_key(1)?;
    /// levels.try_append_key(0)?;
    /// let batch = RecordBatch::try_from_iter([("level", levels.finish().into_array_ref())])?;
    /// assert_eq!(batch.schema().field(0).and_then(|f| f.dict_id()), Some(0));
    /// let mut w = StreamWriter::try_new(Vec::new(), batch.schema())?;
    /// w.write(&batch)?;
    /// w.finish()?;
    /// let bytes = w.into_inner();
    /// let back: Vec<_> = SliceStreamReader::try_new(&bytes)?.collect::<Result<_, _>>()?;
    /// assert_eq!(back, [batch]);
    /// # Ok::<(), alkaid::Error>(())
    /// ```
    ///
    /// ```
    /// use alkaid::array::{Array, Int32Array, RecordBatch, StringArray};
    /// let batch = RecordBatch::try_from_iter([
    ///     ("id", Int32Array::from(vec![1, 2]).into_array_ref()),
    ///     ("name", StringArray::from(vec![Some("a"), None]).into_array_ref()),
    /// ])?;
    /// assert_eq!((batch.num_rows(), batch.num_columns()), (2, 2));
    /// assert!(batch.schema().field(1).is_some_and(|f| f.is_nullable()));
    /// # Ok::<(), alkaid::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] when the columns' lengths differ,
    /// [`Error::AllocationFailed`].
    pub fn try_from_iter<N: AsRef<str>>(
        columns: impl IntoIterator<Item = (N, ArrayRef<'a, crate::Global>)>,
    ) -> Result<Self> {
        use crate::datatypes::Field;
        let mut fields = alloc::vec::Vec::new();
        let mut arrays = alloc::vec::Vec::new();
        let mut next_dict_id = 0i64;
        for (name, column) in columns {
            let nullable = column.null_count() > 0;
            let mut field = Field::try_new_in(
                name.as_ref(),
                column.data_type().clone(),
                nullable,
                crate::Global,
            )?;
            if matches!(
                column.data_type(),
                crate::datatypes::DataType::Dictionary(..)
            ) {
                // IPC needs an id per dictionary field: number them in order.
                field = field.with_dict_id(next_dict_id);
                next_dict_id += 1;
            }
            fields.try_reserve(1).map_err(|_| Error::AllocationFailed)?;
            arrays.try_reserve(1).map_err(|_| Error::AllocationFailed)?;
            fields.push(field);
            arrays.push(column);
        }
        let fields = SharedSlice::try_from_iter_in(fields, crate::Global)?;
        let arrays = SharedSlice::try_from_iter_in(arrays, crate::Global)?;
        Self::try_new(Schema::from_fields(fields), arrays)
    }
}

impl<A: Allocator> PartialEq for RecordBatch<'_, A> {
    /// Same schema, row count and logically equal columns.
    fn eq(&self, other: &Self) -> bool {
        self.schema == other.schema
            && self.num_rows == other.num_rows
            && self.columns.as_slice() == other.columns.as_slice()
    }
}
