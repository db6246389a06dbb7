//! [`Schema`]: the fields of a record batch and schema-level metadata.

use allocator_api2::alloc::Allocator;
use derive_where::derive_where;

use super::{Fields, Metadata};
use crate::buffer::SharedSlice;

/// The columns of a record batch ([`Fields`]) and custom metadata (the
/// `Schema` table of Schema.fbs; endianness and features are IPC concerns).
///
/// Custom metadata travels with the schema through IPC:
///
/// ```
/// use alkaid::array::{Array, Float32Array, RecordBatch};
/// use alkaid::buffer::{SharedSlice, SharedStr};
/// use alkaid::datatypes::{DataType, Field, Schema};
/// use alkaid::ipc::reader::SliceStreamReader;
/// use alkaid::ipc::writer::StreamWriter;
///
/// let schema = Schema::new(vec![Field::new("temp", DataType::Float32, false)])
///     .with_metadata(SharedSlice::from(vec![(SharedStr::borrowed("site"), SharedStr::borrowed("roof"))]));
/// let batch = RecordBatch::try_new(schema.clone(), vec![Float32Array::from(vec![20.5]).into_array_ref()])?;
/// let mut w = StreamWriter::try_new(Vec::new(), &schema)?;
/// w.write(&batch)?;
/// w.finish()?;
/// let bytes = w.into_inner();
///
/// let reader = SliceStreamReader::try_new(&bytes)?;
/// assert_eq!(reader.schema(), &schema);
/// assert_eq!(reader.schema().metadata()[0].1.as_str(), "roof");
/// # Ok::<(), alkaid::Error>(())
/// ```
#[derive_where(Clone, Debug, PartialEq)]
pub struct Schema<
    'a,
    #[cfg(feature = "alloc")] A: Allocator = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator,
> {
    fields: Fields<'a, A>,
    metadata: Metadata<'a, A>,
}

impl<'a, A: Allocator> Schema<'a, A> {
    /// A schema of `fields` without metadata: a `Vec<Field>` (global heap,
    /// feature `alloc`), a borrowed `&[Field]`, or a [`Fields`] slice.
    ///
    /// ```
    /// use alkaid::datatypes::{DataType, Field, Schema};
    /// let schema = Schema::new(vec![
    ///     Field::new("id", DataType::Int64, false),
    ///     Field::new("name", DataType::Utf8, true),
    /// ]);
    /// assert_eq!(schema.index_of("name"), Some(1));
    /// ```
    pub fn new(fields: impl Into<Fields<'a, A>>) -> Self {
        Self::from_fields(fields.into())
    }

    /// A schema of `fields` without metadata, usable in `const` and `static`
    /// items (a schema in flash, no allocation).
    ///
    /// ```
    /// use alkaid::buffer::SharedSlice;
    /// use alkaid::datatypes::{DataType, Field, Schema};
    /// use alkaid::NoAlloc;
    ///
    /// static FIELDS: [Field<'static, NoAlloc>; 1] = [Field::new("t", DataType::UInt32, false)];
    /// static SCHEMA: Schema<'static, NoAlloc> = Schema::from_fields(SharedSlice::borrowed(&FIELDS));
    /// assert_eq!(SCHEMA.fields().len(), 1);
    /// ```
    pub const fn from_fields(fields: Fields<'a, A>) -> Self {
        Schema {
            fields,
            metadata: SharedSlice::empty(),
        }
    }

    /// Replaces the custom metadata.
    pub fn with_metadata(mut self, metadata: Metadata<'a, A>) -> Self {
        self.metadata = metadata;
        self
    }

    /// The fields.
    pub fn fields(&self) -> &Fields<'a, A> {
        &self.fields
    }

    /// Field `i`, or `None`.
    pub fn field(&self, i: usize) -> Option<&super::Field<'a, A>> {
        self.fields.get(i)
    }

    /// Index of the first field named `name`.
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.fields.iter().position(|f| f.name() == name)
    }

    /// The custom metadata.
    pub fn metadata(&self) -> &Metadata<'a, A> {
        &self.metadata
    }
}
