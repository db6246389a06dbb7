//! [`FFI_ArrowSchema`]: the C Data Interface's description of a type; the
//! export of alkaid [`Field`]s, [`DataType`]s and [`Schema`]s into such
//! structs and their import.
//!
//! Implements "The Arrow C data interface": "The ArrowSchema structure",
//! "Memory management" (the release callback, moving children out) and the
//! format strings (see `format.rs`) and metadata encoding (`metadata.rs`).

use core::alloc::Layout;
use core::ffi::{c_char, c_void};
use core::ptr::{self, NonNull};

use allocator_api2::alloc::Allocator;

use super::format::{write_format, Counter};
use super::metadata::encode_metadata_in;
use super::{ARROW_FLAG_DICTIONARY_ORDERED, ARROW_FLAG_MAP_KEYS_SORTED, ARROW_FLAG_NULLABLE};
use crate::buffer::{MutableBuffer, SharedSlice, TryVec};
use crate::datatypes::{DataType, Field, Metadata, Schema};
use crate::error::{Error, Result};

/// The C Data Interface's `struct ArrowSchema`, field for field
/// ("The Arrow C data interface", "The ArrowSchema structure").
///
/// A schema node describes one field: its format string (the type), name,
/// custom metadata (binary encoded), flags ([`super::ARROW_FLAG_NULLABLE`],
/// …), children (nested types) and dictionary (the value type of a
/// dictionary-encoded field). `release` is null once the struct is released.
///
/// ```
/// use core::ffi::CStr;
/// use alkaid::buffer::SharedStr;
/// use alkaid::datatypes::{DataType, Field, TimeUnit};
/// use alkaid::ffi::{import_field, FFI_ArrowSchema, ARROW_FLAG_NULLABLE};
///
/// let utc = Some(SharedStr::borrowed("UTC"));
/// let field = Field::new("ts", DataType::Timestamp(TimeUnit::Microsecond, utc), true);
/// let c = FFI_ArrowSchema::try_from_field(&field)?;
/// // SAFETY: `format` and `name` of an exported struct are NUL-terminated.
/// let (format, name) = unsafe { (CStr::from_ptr(c.format), CStr::from_ptr(c.name)) };
/// assert_eq!(format.to_bytes(), b"tsu:UTC"); // the interface's format string
/// assert_eq!(name.to_bytes(), b"ts");
/// assert_eq!(c.flags & ARROW_FLAG_NULLABLE, ARROW_FLAG_NULLABLE);
///
/// // SAFETY: a struct of the C Data Interface, exported just above.
/// let back = unsafe { import_field(&c) }?;
/// assert_eq!(back, field);
/// drop(c); // calls `release`, freeing the strings
/// # Ok::<(), alkaid::Error>(())
/// ```
#[repr(C)]
#[derive(Debug)]
#[allow(non_camel_case_types)]
pub struct FFI_ArrowSchema {
    /// Null-terminated format string of the type (mandatory).
    pub format: *const c_char,
    /// Null-terminated UTF-8 name of the field, or null.
    pub name: *const c_char,
    /// Custom metadata in the interface's binary encoding, or null.
    pub metadata: *const c_char,
    /// Bit set of `ARROW_FLAG_*` values.
    pub flags: i64,
    /// Number of children.
    pub n_children: i64,
    /// `n_children` pointers to the children (null when there are none).
    pub children: *mut *mut FFI_ArrowSchema,
    /// The dictionary's value type, or null when not dictionary encoded.
    pub dictionary: *mut FFI_ArrowSchema,
    /// Releases the struct and everything it owns; null when released.
    pub release: Option<unsafe extern "C" fn(*mut FFI_ArrowSchema)>,
    /// Producer-specific data (opaque to the consumer).
    pub private_data: *mut c_void,
}

// SAFETY: an `FFI_ArrowSchema` owns what its `release` frees and shares
// nothing with another struct (each child and the dictionary have their own
// private data), so moving it to another thread and releasing it there is
// sound when its release callback may run on any thread. Ours may: it only
// frees memory from an `A: Send + Sync` allocator and touches no
// thread-local state. For a struct filled by another library this is the
// same assumption arrow-rs and Arrow C++ make of producers (their release
// callbacks free memory, with no thread affinity).
unsafe impl Send for FFI_ArrowSchema {}

/// Deepest nesting of children and dictionaries that export and import
/// accept by default (a top-level node has depth 1).
pub const DEFAULT_MAX_DEPTH: usize = 64;

/// What an exported node owns, in memory from `A`; `private_data` points at
/// it. Nothing in it points at the `FFI_ArrowSchema` itself, so the struct
/// may be moved freely. The memory fields are never read: they own what the
/// struct's pointers point at, until `release` drops them.
#[allow(dead_code)]
struct PrivateData<A: Allocator> {
    /// The format string and the name, each NUL-terminated.
    strings: TryVec<u8, A>,
    /// The binary metadata (64-byte aligned), absent when empty.
    metadata: Option<MutableBuffer<A>>,
    /// The child structs; `child_ptrs` points at each.
    children: TryVec<FFI_ArrowSchema, A>,
    /// `ArrowSchema.children`.
    child_ptrs: TryVec<*mut FFI_ArrowSchema, A>,
    /// The dictionary node (zero or one).
    dictionary: TryVec<FFI_ArrowSchema, A>,
    /// `ArrowSchema.dictionary` (null or into `dictionary`).
    dictionary_ptr: *mut FFI_ArrowSchema,
    /// The allocator of this block.
    alloc: A,
}

/// Calls the `release` of the struct at `s` if it is not null and not
/// released (a consumer may have moved it out, leaving `release` null).
///
/// # Safety
/// `s` is null or points at a valid struct no one else accesses now.
unsafe fn release_in_place(s: *mut FFI_ArrowSchema) {
    // SAFETY: the caller's contract.
    let Some(s) = (unsafe { s.as_mut() }) else {
        return;
    };
    if let Some(release) = s.release {
        // SAFETY: a non-null `release` is the callback of the struct's
        // producer, called once: it sets `release` to null.
        unsafe { release(s) }
    }
}

/// The `release` callback of every node exported by alkaid: releases the
/// children and the dictionary still in place, frees the node's private
/// data through `A`, and marks the struct released.
///
/// # Safety
/// `schema` is null or points at a struct exported with this `A` and not yet
/// released (the interface's contract for calling `release`).
unsafe extern "C" fn release_schema<A: Allocator + Clone + Send + Sync + 'static>(
    schema: *mut FFI_ArrowSchema,
) {
    // SAFETY: the caller's contract.
    let Some(schema) = (unsafe { schema.as_mut() }) else {
        return;
    };
    if let Some(private) = NonNull::new(schema.private_data.cast::<PrivateData<A>>()) {
        // SAFETY: `private_data` was written by `export_node` with a
        // `PrivateData<A>` in a block of its layout from its own allocator,
        // and is read out once (the struct is marked released below).
        let data = unsafe { private.as_ptr().read() };
        for &child in data.child_ptrs.iter() {
            // SAFETY: each entry points into `data.children`, alive until
            // `data` is dropped; the consumer releases or moves children only
            // before releasing the parent.
            unsafe { release_in_place(child) };
        }
        // SAFETY: as for the children.
        unsafe { release_in_place(data.dictionary_ptr) };
        let alloc = data.alloc.clone();
        drop(data);
        // SAFETY: the block was allocated by a clone of `alloc` with this
        // layout, and its content was moved out above.
        unsafe { alloc.deallocate(private.cast(), Layout::new::<PrivateData<A>>()) };
    }
    schema.private_data = ptr::null_mut();
    schema.release = None;
}

/// A [`core::fmt::Write`] into a `TryVec<u8>` whose room was reserved.
struct VecWriter<'v, A: Allocator>(&'v mut TryVec<u8, A>);

impl<A: Allocator> core::fmt::Write for VecWriter<'_, A> {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        for &b in s.as_bytes() {
            self.0.try_push(b).map_err(|_| core::fmt::Error)?;
        }
        Ok(())
    }
}

/// Pushes `bytes` then a NUL.
fn push_c_string<A: Allocator>(v: &mut TryVec<u8, A>, bytes: &[u8]) -> Result<()> {
    for &b in bytes {
        v.try_push(b)?;
    }
    v.try_push(0)
}

/// Calls `f` on the child fields of `dt` in the interface's order (none for
/// a dictionary: its value type is the dictionary node).
fn for_each_child<'a, A: Allocator>(
    dt: &DataType<'a, A>,
    mut f: impl FnMut(&Field<'a, A>) -> Result<()>,
) -> Result<()> {
    match dt {
        DataType::List(c)
        | DataType::LargeList(c)
        | DataType::ListView(c)
        | DataType::LargeListView(c)
        | DataType::FixedSizeList(c, _)
        | DataType::Map(c, _) => f(c),
        DataType::Struct(fs) => fs.iter().try_for_each(f),
        DataType::Union(u, _) => u.fields().iter().try_for_each(f),
        DataType::RunEndEncoded(r, v) => {
            f(r)?;
            f(v)
        }
        _ => Ok(()),
    }
}

/// Number of child nodes of `dt`.
fn child_count<A: Allocator>(dt: &DataType<'_, A>) -> usize {
    match dt {
        DataType::List(_)
        | DataType::LargeList(_)
        | DataType::ListView(_)
        | DataType::LargeListView(_)
        | DataType::FixedSizeList(..)
        | DataType::Map(..) => 1,
        DataType::Struct(fs) => fs.len(),
        DataType::Union(u, _) => u.len(),
        DataType::RunEndEncoded(..) => 2,
        _ => 0,
    }
}

/// Exports one node (and, recursively, its children and dictionary).
fn export_node<A: Allocator + Clone + Send + Sync + 'static>(
    name: &str,
    dt: &DataType<'_, A>,
    mut flags: i64,
    metadata: &Metadata<'_, A>,
    alloc: &A,
    depth: usize,
) -> Result<FFI_ArrowSchema> {
    if depth > DEFAULT_MAX_DEPTH {
        return Err(Error::FfiNestingTooDeep);
    }
    if name.as_bytes().contains(&0) {
        return Err(Error::FfiStringHasNul);
    }
    let mut format_len = Counter(0);
    write_format(dt, &mut format_len)?;
    let mut strings = TryVec::new_in(alloc.clone());
    strings.try_reserve(
        format_len
            .0
            .checked_add(name.len())
            .and_then(|n| n.checked_add(2))
            .ok_or(Error::CapacityOverflow)?,
    )?;
    write_format(dt, &mut VecWriter(&mut strings))?;
    let name_offset = strings
        .len()
        .checked_add(1)
        .ok_or(Error::CapacityOverflow)?;
    push_c_string(&mut strings, &[])?;
    push_c_string(&mut strings, name.as_bytes())?;

    let metadata = encode_metadata_in(metadata, alloc.clone())?;

    let n = child_count(dt);
    let mut children = TryVec::new_in(alloc.clone());
    children.try_reserve(n)?;
    for_each_child(dt, |c| {
        let child = export_field(c, alloc, depth + 1)?;
        children.try_push(child)
    })?;

    let mut dictionary = TryVec::new_in(alloc.clone());
    match dt {
        DataType::Dictionary(_, value, ordered) => {
            dictionary.try_reserve(1)?;
            let empty = SharedSlice::empty();
            dictionary.try_push(export_node("", value, 0, &empty, alloc, depth + 1)?)?;
            if *ordered {
                flags |= ARROW_FLAG_DICTIONARY_ORDERED;
            }
        }
        DataType::Map(_, true) => flags |= ARROW_FLAG_MAP_KEYS_SORTED,
        _ => {}
    }

    // The pointers handed out are derived once, here; `children` and
    // `dictionary` are not touched again until the node is released.
    let mut child_ptrs = TryVec::new_in(alloc.clone());
    child_ptrs.try_reserve(children.len())?;
    for child in children.as_mut_slice() {
        child_ptrs.try_push(ptr::from_mut(child))?;
    }
    let dictionary_ptr = dictionary
        .as_mut_slice()
        .first_mut()
        .map_or(ptr::null_mut(), ptr::from_mut);
    let children_ptr = if child_ptrs.is_empty() {
        ptr::null_mut()
    } else {
        child_ptrs.as_mut_slice().as_mut_ptr()
    };
    let format_ptr = strings.as_slice().as_ptr().cast::<c_char>();
    // SAFETY: `name_offset` is within `strings` (the name's NUL follows it).
    let name_ptr = unsafe { format_ptr.add(name_offset) };
    let metadata_ptr = metadata
        .as_ref()
        .map_or(ptr::null(), |m| m.as_slice().as_ptr().cast::<c_char>());
    let n_children = i64::try_from(child_ptrs.len()).map_err(|_| Error::CapacityOverflow)?;

    let private = PrivateData {
        strings,
        metadata,
        children,
        child_ptrs,
        dictionary,
        dictionary_ptr,
        alloc: alloc.clone(),
    };
    // On failure `private` is dropped: the children made so far are
    // released by their `Drop`.
    let block = alloc
        .allocate(Layout::new::<PrivateData<A>>())?
        .cast::<PrivateData<A>>();
    // SAFETY: `block` is a fresh allocation of `PrivateData<A>`'s layout.
    unsafe { block.as_ptr().write(private) };
    Ok(FFI_ArrowSchema {
        format: format_ptr,
        name: name_ptr,
        metadata: metadata_ptr,
        flags,
        n_children,
        children: children_ptr,
        dictionary: dictionary_ptr,
        release: Some(release_schema::<A>),
        private_data: block.as_ptr().cast::<c_void>(),
    })
}

fn export_field<A: Allocator + Clone + Send + Sync + 'static>(
    field: &Field<'_, A>,
    alloc: &A,
    depth: usize,
) -> Result<FFI_ArrowSchema> {
    let flags = if field.is_nullable() {
        ARROW_FLAG_NULLABLE
    } else {
        0
    };
    export_node(
        field.name(),
        field.data_type(),
        flags,
        field.metadata(),
        alloc,
        depth,
    )
}

impl FFI_ArrowSchema {
    /// A released, all-null struct for a producer to fill (the consumer's
    /// side of an export from another library). Dropping it does nothing
    /// until it is filled.
    pub const fn empty() -> Self {
        FFI_ArrowSchema {
            format: ptr::null(),
            name: ptr::null(),
            metadata: ptr::null(),
            flags: 0,
            n_children: 0,
            children: ptr::null_mut(),
            dictionary: ptr::null_mut(),
            release: None,
            private_data: ptr::null_mut(),
        }
    }

    /// `true` when `release` is null (released, moved out, or never filled).
    pub fn is_released(&self) -> bool {
        self.release.is_none()
    }

    /// Exports `field` (name, type, nullability, custom metadata: an
    /// extension type's `ARROW:extension:name`/`…:metadata` travel in it):
    /// a tree of structs whose strings, metadata and children live in memory
    /// from `alloc`, freed by the `release` callback (or by dropping the
    /// returned struct). Flags: `ARROW_FLAG_NULLABLE`, and
    /// `ARROW_FLAG_DICTIONARY_ORDERED`/`ARROW_FLAG_MAP_KEYS_SORTED` as the type
    /// says. A dictionary-encoded field's format is its index type and its
    /// `dictionary` node (unnamed, flags 0) its value type. The field's
    /// dictionary id is not part of the interface.
    ///
    /// # Errors
    /// [`Error::InvalidDataType`] for an invalid type ([`DataType::validate`]);
    /// [`Error::FfiFormatParameterOutOfRange`] for `FixedSizeBinary(0)` (the
    /// interface needs a width above 0); [`Error::FfiStringHasNul`] for a
    /// name or time zone with a NUL byte; [`Error::FfiNestingTooDeep`] past
    /// [`DEFAULT_MAX_DEPTH`]; [`Error::FfiMetadataTooLarge`] for metadata
    /// over `i32::MAX` (count or length); [`Error::AllocationFailed`] (no
    /// memory is left allocated).
    pub fn try_from_field_in<A: Allocator + Clone + Send + Sync + 'static>(
        field: &Field<'_, A>,
        alloc: A,
    ) -> Result<Self> {
        field.data_type().validate()?;
        export_field(field, &alloc, 1)
    }

    /// Exports a bare type: a node named `""` with flags 0 apart from
    /// `ARROW_FLAG_DICTIONARY_ORDERED`/`ARROW_FLAG_MAP_KEYS_SORTED`, no
    /// metadata; otherwise as [`Self::try_from_field_in`].
    ///
    /// # Errors
    /// As [`Self::try_from_field_in`].
    pub fn try_from_data_type_in<A: Allocator + Clone + Send + Sync + 'static>(
        data_type: &DataType<'_, A>,
        alloc: A,
    ) -> Result<Self> {
        data_type.validate()?;
        export_node("", data_type, 0, &SharedSlice::empty(), &alloc, 1)
    }

    /// Exports a schema as the interface does: a struct node (`"+s"`, named
    /// `""`, flags 0) with one child per field and the schema's metadata.
    ///
    /// # Errors
    /// As [`Self::try_from_field_in`].
    pub fn try_from_schema_in<A: Allocator + Clone + Send + Sync + 'static>(
        schema: &Schema<'_, A>,
        alloc: A,
    ) -> Result<Self> {
        let dt = DataType::Struct(schema.fields().clone());
        dt.validate()?;
        export_node("", &dt, 0, schema.metadata(), &alloc, 1)
    }
}

#[cfg(feature = "alloc")]
impl FFI_ArrowSchema {
    /// [`Self::try_from_field_in`] with the global allocator.
    ///
    /// # Errors
    /// As [`Self::try_from_field_in`].
    pub fn try_from_field(field: &Field<'_, crate::Global>) -> Result<Self> {
        Self::try_from_field_in(field, crate::Global)
    }

    /// [`Self::try_from_data_type_in`] with the global allocator.
    ///
    /// # Errors
    /// As [`Self::try_from_field_in`].
    pub fn try_from_data_type(data_type: &DataType<'_, crate::Global>) -> Result<Self> {
        Self::try_from_data_type_in(data_type, crate::Global)
    }

    /// [`Self::try_from_schema_in`] with the global allocator.
    ///
    /// # Errors
    /// As [`Self::try_from_field_in`].
    pub fn try_from_schema(schema: &Schema<'_, crate::Global>) -> Result<Self> {
        Self::try_from_schema_in(schema, crate::Global)
    }
}

impl Drop for FFI_ArrowSchema {
    /// Releases the struct unless it is released (or moved out) already.
    fn drop(&mut self) {
        if let Some(release) = self.release {
            // SAFETY: a non-null `release` is the producer's callback for
            // this struct; the interface lets its owner call it once, and it
            // sets `release` to null.
            unsafe { release(self) }
        }
    }
}
