//! Import of a producer's [`FFI_ArrowSchema`] tree as alkaid [`Field`]s,
//! [`DataType`]s and [`Schema`]s: every format string, count, length,
//! string and shape is checked, the nesting depth, node count and copied
//! bytes are bounded, and everything is copied into `A` (the producer's
//! struct stays the caller's to release).
//!
//! Implements the consumer side of "The Arrow C data interface", "The
//! ArrowSchema structure".

use core::ffi::CStr;

use allocator_api2::alloc::Allocator;

use super::format::{build_data_type, Format};
use super::metadata::{decode_metadata_in, DEFAULT_MAX_IMPORT_BYTES};
use super::schema::DEFAULT_MAX_DEPTH;
use super::{
    FFI_ArrowSchema, ARROW_FLAG_DICTIONARY_ORDERED, ARROW_FLAG_MAP_KEYS_SORTED, ARROW_FLAG_NULLABLE,
};
use crate::buffer::{SharedBox, SharedSlice, SharedStr};
use crate::datatypes::{DataType, Field, Metadata, Schema};
use crate::error::{Error, Result};

/// Most schema nodes (every child and dictionary, in the whole tree) an
/// import accepts by default.
pub const DEFAULT_MAX_NODES: usize = 1 << 16;

/// Limits on what importing a producer's schema tree may read and allocate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImportLimits {
    /// Deepest nesting of children and dictionaries (top node: depth 1);
    /// beyond it [`Error::FfiNestingTooDeep`].
    pub max_depth: usize,
    /// Most nodes in the whole tree (children of one node included before
    /// any is read); beyond it [`Error::FfiTooManyNodes`].
    pub max_nodes: usize,
    /// Most bytes copied from the producer: names, time zones and binary
    /// metadata (its counts and lengths included); beyond it
    /// [`Error::FfiMetadataTooLarge`].
    pub max_bytes: usize,
}

impl Default for ImportLimits {
    /// [`DEFAULT_MAX_DEPTH`], [`DEFAULT_MAX_NODES`], [`DEFAULT_MAX_IMPORT_BYTES`].
    fn default() -> Self {
        ImportLimits {
            max_depth: DEFAULT_MAX_DEPTH,
            max_nodes: DEFAULT_MAX_NODES,
            max_bytes: DEFAULT_MAX_IMPORT_BYTES,
        }
    }
}

/// A walk over a producer's schema tree, copying into `A`.
struct Importer<A> {
    alloc: A,
    limits: ImportLimits,
    nodes: usize,
    bytes: usize,
    /// The next dictionary id: the interface has none, so each
    /// dictionary-encoded field gets the next one, depth first from 0 (the
    /// ids the IPC writers need).
    next_dict_id: i64,
}

impl<A: Allocator + Clone> Importer<A> {
    fn new(alloc: A, limits: ImportLimits) -> Self {
        Importer {
            alloc,
            limits,
            nodes: 0,
            bytes: 0,
            next_dict_id: 0,
        }
    }

    /// Counts `n` more bytes copied from the producer.
    fn charge(&mut self, n: usize) -> Result<()> {
        self.bytes = self
            .bytes
            .checked_add(n)
            .filter(|&b| b <= self.limits.max_bytes)
            .ok_or(Error::FfiMetadataTooLarge)?;
        Ok(())
    }

    /// The checks every node gets first: not released, not too deep, not
    /// one node too many; then its parsed format.
    ///
    /// # Safety
    /// As [`import_field_in`].
    unsafe fn enter<'s>(&mut self, s: &'s FFI_ArrowSchema, depth: usize) -> Result<Format<'s>> {
        if s.release.is_none() {
            return Err(Error::FfiReleased);
        }
        if depth > self.limits.max_depth {
            return Err(Error::FfiNestingTooDeep);
        }
        self.nodes = self
            .nodes
            .checked_add(1)
            .filter(|&n| n <= self.limits.max_nodes)
            .ok_or(Error::FfiTooManyNodes)?;
        if s.format.is_null() {
            return Err(Error::FfiNullFormat);
        }
        // SAFETY: a non-null `format` is a NUL-terminated string that lives
        // as long as the struct (the producer's promise).
        let bytes = unsafe { CStr::from_ptr(s.format) }.to_bytes();
        Format::parse(bytes)
    }

    /// The type of node `s` (its children and dictionary imported).
    ///
    /// # Safety
    /// As [`import_field_in`].
    unsafe fn data_type(
        &mut self,
        s: &FFI_ArrowSchema,
        depth: usize,
    ) -> Result<DataType<'static, A>> {
        // SAFETY: forwarded contract.
        let format = unsafe { self.enter(s, depth) }?;
        // SAFETY: forwarded contract.
        unsafe { self.data_type_of(s, &format, depth) }
    }

    /// The type of node `s` whose format is `format`.
    ///
    /// # Safety
    /// As [`import_field_in`].
    unsafe fn data_type_of(
        &mut self,
        s: &FFI_ArrowSchema,
        format: &Format<'_>,
        depth: usize,
    ) -> Result<DataType<'static, A>> {
        let n = usize::try_from(s.n_children).map_err(|_| Error::FfiChildrenInvalid)?;
        if format.child_count().is_some_and(|want| want != n) {
            return Err(Error::FfiChildCountMismatch);
        }
        if n > self.limits.max_nodes.saturating_sub(self.nodes) {
            return Err(Error::FfiTooManyNodes);
        }
        if n > 0 && s.children.is_null() {
            return Err(Error::FfiChildrenInvalid);
        }
        let children = SharedSlice::try_from_fn_in(n, self.alloc.clone(), |i| {
            // SAFETY: `children` holds `n_children` pointers (the producer's
            // promise) and `i < n`.
            let child = unsafe { s.children.add(i).read() };
            // SAFETY: a non-null child pointer points at a valid struct.
            let child = unsafe { child.as_ref() }.ok_or(Error::FfiChildrenInvalid.in_child(i))?;
            // SAFETY: forwarded contract.
            unsafe { self.field(child, depth + 1) }.map_err(|e| e.in_child(i))
        })?;
        // SAFETY: a non-null `dictionary` points at a valid struct.
        if let Some(dictionary) = unsafe { s.dictionary.as_ref() } {
            let index = format
                .index_type()
                .ok_or(Error::FfiDictionaryIndexNotInteger)?;
            // SAFETY: forwarded contract.
            let value = unsafe { self.data_type(dictionary, depth + 1) }?;
            let ordered = s.flags & ARROW_FLAG_DICTIONARY_ORDERED != 0;
            let value = SharedBox::try_new_in(value, self.alloc.clone())?;
            return Ok(DataType::Dictionary(index, value, ordered));
        }
        if let Format::Timestamp(_, Some(tz)) = format {
            self.charge(tz.len())?;
        }
        let sorted = s.flags & ARROW_FLAG_MAP_KEYS_SORTED != 0;
        build_data_type(format, children, sorted, &self.alloc)
    }

    /// The name and metadata of node `s`, copied.
    ///
    /// # Safety
    /// As [`import_field_in`].
    unsafe fn name_and_metadata(
        &mut self,
        s: &FFI_ArrowSchema,
    ) -> Result<(SharedStr<'static, A>, Metadata<'static, A>)> {
        let name = if s.name.is_null() {
            ""
        } else {
            // SAFETY: a non-null `name` is a NUL-terminated string that
            // lives as long as the struct (the producer's promise).
            unsafe { CStr::from_ptr(s.name) }
                .to_str()
                .map_err(|_| Error::FfiNameNotUtf8)?
        };
        self.charge(name.len())?;
        let name = SharedStr::try_from_str_in(name, self.alloc.clone())?;
        let room = self.limits.max_bytes.saturating_sub(self.bytes);
        // SAFETY: a non-null `metadata` is a well-formed encoding (the
        // producer's promise); it is read no further than `room` bytes.
        let (metadata, size) = unsafe { decode_metadata_in(s.metadata, self.alloc.clone(), room) }?;
        self.charge(size)?;
        Ok((name, metadata))
    }

    /// Node `s` as a field.
    ///
    /// # Safety
    /// As [`import_field_in`].
    unsafe fn field(&mut self, s: &FFI_ArrowSchema, depth: usize) -> Result<Field<'static, A>> {
        // SAFETY: forwarded contract.
        let data_type = unsafe { self.data_type(s, depth) }?;
        // SAFETY: forwarded contract.
        let (name, metadata) = unsafe { self.name_and_metadata(s) }?;
        let nullable = s.flags & ARROW_FLAG_NULLABLE != 0;
        let dict_id = match data_type {
            DataType::Dictionary(..) => {
                let id = self.next_dict_id;
                self.next_dict_id += 1;
                Some(id)
            }
            _ => None,
        };
        Ok(Field::from_parts(
            name, data_type, nullable, metadata, dict_id,
        ))
    }

    /// Node `s` as a schema (a struct node without dictionary).
    ///
    /// # Safety
    /// As [`import_field_in`].
    unsafe fn schema(&mut self, s: &FFI_ArrowSchema) -> Result<Schema<'static, A>> {
        // SAFETY: forwarded contract.
        let format = unsafe { self.enter(s, 1) }?;
        if format != Format::Struct || !s.dictionary.is_null() {
            return Err(Error::FfiSchemaNotStruct);
        }
        // SAFETY: forwarded contract.
        let DataType::Struct(fields) = unsafe { self.data_type_of(s, &format, 1) }? else {
            return Err(Error::FfiSchemaNotStruct);
        };
        // SAFETY: forwarded contract.
        let (_, metadata) = unsafe { self.name_and_metadata(s) }?;
        Ok(Schema::new(fields).with_metadata(metadata))
    }
}

/// Imports the field a producer's struct describes (name, type,
/// nullability, custom metadata, children and dictionary, recursively),
/// copying every name, time zone and metadata pair into memory from `alloc`.
/// The struct is only read: it stays the caller's, to release. Limits: the
/// [`ImportLimits::default`].
///
/// The imported field has no dictionary id (the interface has none). A
/// dictionary node's own name, flags and metadata are ignored (only its
/// type is a `DataType`'s value type).
///
/// ```
/// use alkaid::Global;
/// use alkaid::buffer::SharedBox;
/// use alkaid::datatypes::{DataType, Field};
/// use alkaid::ffi::{import_field_in, FFI_ArrowSchema};
///
/// let item = SharedBox::try_new_in(Field::new("item", DataType::Utf8, true), Global)?;
/// let field = Field::new("tags", DataType::List(item), false);
/// let exported = FFI_ArrowSchema::try_from_field_in(&field, Global)?;
/// // Another library would read `exported` here (`&exported` as an
/// // `ArrowSchema*`); we read it back ourselves.
/// // SAFETY: a struct exported by alkaid, alive and unchanged meanwhile.
/// let back = unsafe { import_field_in(&exported, Global) }?;
/// assert_eq!(back, field);
/// drop(exported); // calls its `release`
/// # Ok::<(), alkaid::Error>(())
/// ```
///
/// # Safety
/// `schema` and everything reachable from it must be as "The Arrow C data
/// interface" requires of a producer for the duration of the call: `format`
/// (when not null) and `name` (when not null) point at NUL-terminated
/// strings; `metadata` is null or a well-formed binary encoding; `children`
/// points at `n_children` pointers (when `n_children > 0`), each null or
/// pointing at a valid struct, as `dictionary` is null or does; nothing is
/// written to or freed meanwhile. Everything else (format strings, counts,
/// lengths, UTF-8, children shapes, depth, sizes) is checked.
///
/// # Errors
/// [`Error::FfiReleased`], [`Error::FfiNullFormat`], the format errors
/// ([`Error::FfiFormatInvalid`], [`Error::FfiFormatParameterOutOfRange`],
/// [`Error::FfiUnionTypeIdsInvalid`], [`Error::FfiTimezoneNotUtf8`]),
/// [`Error::FfiChildrenInvalid`], [`Error::FfiChildCountMismatch`],
/// [`Error::MapEntriesInvalid`], [`Error::MapKeyNull`],
/// [`Error::FfiRunEndsInvalid`], [`Error::FfiDictionaryIndexNotInteger`],
/// [`Error::FfiNameNotUtf8`], the metadata errors
/// ([`Error::FfiMetadataNegativeLength`], [`Error::FfiMetadataNotUtf8`],
/// [`Error::FfiMetadataTooLarge`]), [`Error::FfiNestingTooDeep`],
/// [`Error::FfiTooManyNodes`], [`Error::AllocationFailed`]; nothing stays
/// allocated on error.
pub unsafe fn import_field_in<A: Allocator + Clone>(
    schema: &FFI_ArrowSchema,
    alloc: A,
) -> Result<Field<'static, A>> {
    // SAFETY: forwarded contract.
    unsafe { import_field_with_limits_in(schema, alloc, ImportLimits::default()) }
}

/// [`import_field_in`] with caller-set limits.
///
/// # Safety
/// As [`import_field_in`].
///
/// # Errors
/// As [`import_field_in`].
pub unsafe fn import_field_with_limits_in<A: Allocator + Clone>(
    schema: &FFI_ArrowSchema,
    alloc: A,
    limits: ImportLimits,
) -> Result<Field<'static, A>> {
    // SAFETY: forwarded contract.
    unsafe { Importer::new(alloc, limits).field(schema, 1) }
}

/// Imports only the type a producer's struct describes (its name, flags
/// other than the dictionary and map ones, and metadata are not read).
///
/// # Safety
/// As [`import_field_in`].
///
/// # Errors
/// As [`import_field_in`].
pub unsafe fn import_data_type_in<A: Allocator + Clone>(
    schema: &FFI_ArrowSchema,
    alloc: A,
) -> Result<DataType<'static, A>> {
    // SAFETY: forwarded contract.
    unsafe { Importer::new(alloc, ImportLimits::default()).data_type(schema, 1) }
}

/// Imports a schema: the top node must be a struct (`"+s"`) without
/// dictionary; its children are the fields, its metadata the schema's (its
/// name and flags are ignored).
///
/// # Safety
/// As [`import_field_in`].
///
/// # Errors
/// [`Error::FfiSchemaNotStruct`]; otherwise as [`import_field_in`].
pub unsafe fn import_schema_in<A: Allocator + Clone>(
    schema: &FFI_ArrowSchema,
    alloc: A,
) -> Result<Schema<'static, A>> {
    // SAFETY: forwarded contract.
    unsafe { Importer::new(alloc, ImportLimits::default()).schema(schema) }
}

/// [`import_field_in`] with the global allocator.
///
/// # Safety
/// As [`import_field_in`].
///
/// # Errors
/// As [`import_field_in`].
#[cfg(feature = "alloc")]
pub unsafe fn import_field(schema: &FFI_ArrowSchema) -> Result<Field<'static, crate::Global>> {
    // SAFETY: forwarded contract.
    unsafe { import_field_in(schema, crate::Global) }
}

/// [`import_schema_in`] with the global allocator.
///
/// # Safety
/// As [`import_field_in`].
///
/// # Errors
/// As [`import_schema_in`].
#[cfg(feature = "alloc")]
pub unsafe fn import_schema(schema: &FFI_ArrowSchema) -> Result<Schema<'static, crate::Global>> {
    // SAFETY: forwarded contract.
    unsafe { import_schema_in(schema, crate::Global) }
}
