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
#[derive_where(Clone, Debug)]
pub struct RecordBatch<'a, A: Allocator> {
    schema: Schema<'a, A>,
    columns: SharedSlice<'a, ArrayRef<'a, A>, A>,
    num_rows: usize,
}

impl<'a, A: Allocator> RecordBatch<'a, A> {
    /// A batch of `columns` described by `schema`.
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
        columns: SharedSlice<'a, ArrayRef<'a, A>, A>,
    ) -> Result<Self> {
        let rows = columns.first().map_or(0, |c| c.len());
        Self::try_new_with_rows(schema, columns, rows)
    }

    /// As [`Self::try_new`] with an explicit row count (needed without columns).
    ///
    /// # Errors
    /// As [`Self::try_new`].
    pub fn try_new_with_rows(
        schema: Schema<'a, A>,
        columns: SharedSlice<'a, ArrayRef<'a, A>, A>,
        num_rows: usize,
    ) -> Result<Self> {
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

impl<A: Allocator> PartialEq for RecordBatch<'_, A> {
    /// Same schema, row count and logically equal columns.
    fn eq(&self, other: &Self) -> bool {
        self.schema == other.schema
            && self.num_rows == other.num_rows
            && self.columns.as_slice() == other.columns.as_slice()
    }
}
