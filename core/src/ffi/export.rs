//! Array export: an alkaid array as an [`FFI_ArrowArray`] whose
//! `private_data` keeps the alkaid buffers alive ("The Arrow C data
//! interface", "Exporting").
//!
//! No buffer is copied: each entry of `buffers` is the address of an alkaid
//! buffer (sliced views point into their parent's memory). The structs'
//! bookkeeping — the `buffers` and `children` pointer arrays, the child and
//! dictionary structs, the private data — is allocated through the array's
//! `A`. Two things are made for the export, both small and through `A`:
//! the variadic buffer sizes of view arrays (one `i64` per data buffer, as
//! the interface requires) and, for a validity (or boolean values) bitmap
//! that a slice left starting inside a byte, a copy of the bitmap's bits
//! (`len / 8` bytes); the interface has one `offset` for every buffer of an
//! array, and alkaid's other buffers already start at the slice.

use core::alloc::Layout;
use core::ffi::c_void;
use core::ptr::{self, NonNull};

use allocator_api2::alloc::Allocator;

use super::FFI_ArrowArray;
use crate::array::{dispatch_primitive, Array, ArrayRef, RecordBatch};
use crate::buffer::{BooleanBuffer, Buffer, MutableBuffer, TryVec};
use crate::error::{Error, Result};

/// Moves `value` into memory from `alloc`.
pub(crate) fn box_in<T, A: Allocator>(value: T, alloc: &A) -> Result<NonNull<T>> {
    let p = alloc
        .allocate(Layout::new::<T>())
        .map_err(|_| Error::AllocationFailed)?
        .cast::<T>();
    // SAFETY: freshly allocated for one `T`, aligned by its layout.
    unsafe { p.as_ptr().write(value) };
    Ok(p)
}

/// Moves the value out of memory from [`box_in`] and frees the memory.
///
/// # Safety
/// `p` must come from [`box_in`] with an allocator that `alloc` can free
/// (the same one or a clone), and must not be used again.
pub(crate) unsafe fn unbox<T, A: Allocator>(p: NonNull<T>, alloc: &A) -> T {
    // SAFETY: the caller's contract.
    unsafe {
        let v = p.as_ptr().read();
        alloc.deallocate(p.cast(), Layout::new::<T>());
        v
    }
}

/// Releases (when not released yet or moved out) and frees a child or
/// dictionary struct made by this module.
///
/// # Safety
/// `p` must be null or come from [`box_in`] with `alloc`'s allocator.
unsafe fn free_struct<A: Allocator>(p: *mut FFI_ArrowArray, alloc: &A) {
    let Some(p) = NonNull::new(p) else { return };
    // SAFETY: the caller's contract; dropping the struct calls its
    // `release` when still set (a consumer that moved it out nulled it).
    drop(unsafe { unbox(p, alloc) });
}

/// What an exported struct owns: the alkaid array (so its buffers), buffers
/// made for the export, and the pointer arrays and structs of its children.
struct ExportPrivate<A: Allocator + Clone + 'static> {
    /// Keeps the exported buffers alive.
    _array: Option<ArrayRef<'static, A>>,
    /// Buffers made for the export (bitmaps re-based to bit 0, view sizes).
    extra: TryVec<Buffer<'static, A>, A>,
    /// The `buffers` array handed out.
    buffers: TryVec<*const c_void, A>,
    /// The `children` array handed out (structs from [`box_in`]).
    children: TryVec<*mut FFI_ArrowArray, A>,
    /// The dictionary struct (from [`box_in`]) or null.
    dictionary: *mut FFI_ArrowArray,
    alloc: A,
}

impl<A: Allocator + Clone + 'static> Drop for ExportPrivate<A> {
    fn drop(&mut self) {
        for &c in self.children.iter() {
            // SAFETY: children come from `box_in` with `self.alloc`.
            unsafe { free_struct(c, &self.alloc) };
        }
        // SAFETY: as for the children.
        unsafe { free_struct(self.dictionary, &self.alloc) };
    }
}

/// The `release` callback of exported arrays.
///
/// # Safety
/// Called by the consumer with a struct made by this module (or moved from
/// one), once; a released struct (null `release`) is left alone.
unsafe extern "C" fn release_array<A: Allocator + Clone + Send + Sync + 'static>(
    array: *mut FFI_ArrowArray,
) {
    // SAFETY: the consumer passes the struct it received (or moved).
    let Some(a) = (unsafe { array.as_mut() }) else {
        return;
    };
    if a.release.is_none() {
        return;
    }
    if let Some(p) = NonNull::new(a.private_data.cast::<ExportPrivate<A>>()) {
        // SAFETY: `private_data` was made by `box_in` with the allocator the
        // private data holds; read it out, then free its memory with a clone.
        unsafe {
            let alloc = (*p.as_ptr()).alloc.clone();
            drop(unbox(p, &alloc));
        }
    }
    a.release = None;
    a.private_data = ptr::null_mut();
}

/// Collects the pieces of one exported struct.
struct Node<A: Allocator + Clone + 'static> {
    private: ExportPrivate<A>,
    length: usize,
    null_count: usize,
    offset: usize,
}

impl<A: Allocator + Clone + Send + Sync + 'static> Node<A> {
    fn new(array: Option<ArrayRef<'static, A>>, length: usize, alloc: &A) -> Self {
        Node {
            private: ExportPrivate {
                _array: array,
                extra: TryVec::new_in(alloc.clone()),
                buffers: TryVec::new_in(alloc.clone()),
                children: TryVec::new_in(alloc.clone()),
                dictionary: ptr::null_mut(),
                alloc: alloc.clone(),
            },
            length,
            null_count: 0,
            offset: 0,
        }
    }

    fn push_ptr(&mut self, p: *const u8) -> Result<()> {
        self.private.buffers.try_push(p.cast())
    }

    fn push_buffer(&mut self, b: &Buffer<'static, A>) -> Result<()> {
        self.push_ptr(b.as_ptr())
    }

    /// A bitmap of this node's slots: its bytes from the first slot's byte
    /// when the slot starts a byte, else a copy re-based to bit 0.
    fn push_bits(&mut self, bits: &BooleanBuffer<'static, A>) -> Result<()> {
        let off = bits.offset();
        if off % 8 == 0 {
            let bytes = bits.inner().slice(off / 8, bits.inner().len() - off / 8)?;
            return self.push_buffer(&bytes);
        }
        let n = bits.len().div_ceil(8);
        let mut m = MutableBuffer::try_with_capacity_in(n, self.private.alloc.clone())?;
        m.try_extend_zeros(n)?;
        let out = m.as_slice_mut();
        for (i, v) in bits.iter().enumerate() {
            if v {
                out[i / 8] |= 1 << (i % 8);
            }
        }
        let b = m.into_buffer();
        self.push_buffer(&b)?;
        self.private.extra.try_push(b)
    }

    /// The validity bitmap (a null pointer when every slot is valid).
    fn push_validity(&mut self, a: &ArrayRef<'static, A>) -> Result<()> {
        match a.nulls() {
            Some(n) if n.null_count() > 0 => {
                self.null_count = n.null_count();
                self.push_bits(n.inner())
            }
            _ => self.push_ptr(ptr::null()),
        }
    }

    fn push_child(&mut self, child: &ArrayRef<'static, A>) -> Result<()> {
        self.private.children.try_reserve(1)?;
        let c = export_array(child, &self.private.alloc)?;
        // On failure `box_in` drops (so releases) the child.
        let p = box_in(c, &self.private.alloc)?;
        self.private.children.try_push(p.as_ptr())
    }

    #[cfg(feature = "dictionary")]
    fn set_dictionary(&mut self, values: &ArrayRef<'static, A>) -> Result<()> {
        let d = export_array(values, &self.private.alloc)?;
        self.private.dictionary = box_in(d, &self.private.alloc)?.as_ptr();
        Ok(())
    }

    fn finish(self) -> Result<FFI_ArrowArray> {
        let Node {
            mut private,
            length,
            null_count,
            offset,
        } = self;
        let as_i64 = |v: usize| i64::try_from(v).map_err(|_| Error::CapacityOverflow);
        let (length, null_count, offset) = (as_i64(length)?, as_i64(null_count)?, as_i64(offset)?);
        let n_buffers = as_i64(private.buffers.len())?;
        let n_children = as_i64(private.children.len())?;
        let buffers = private.buffers.as_mut_slice().as_mut_ptr();
        let children = private.children.as_mut_slice().as_mut_ptr();
        let dictionary = private.dictionary;
        let alloc = private.alloc.clone();
        let private = box_in(private, &alloc)?;
        Ok(FFI_ArrowArray {
            length,
            null_count,
            offset,
            n_buffers,
            n_children,
            buffers: if n_buffers == 0 {
                ptr::null_mut()
            } else {
                buffers
            },
            children: if n_children == 0 {
                ptr::null_mut()
            } else {
                children
            },
            dictionary,
            release: Some(release_array::<A>),
            private_data: private.as_ptr().cast(),
        })
    }
}

/// Exports one array (recursively), see [`FFI_ArrowArray::try_from_array_in`].
fn export_array<A: Allocator + Clone + Send + Sync + 'static>(
    array: &ArrayRef<'static, A>,
    alloc: &A,
) -> Result<FFI_ArrowArray> {
    let mut n = Node::new(Some(array.clone()), array.len(), alloc);
    dispatch_primitive!(array; a: T => primitive(&mut n, array, a.values_buffer().inner())?, {
        ArrayRef::Null(a) => n.null_count = a.len(),
        ArrayRef::Boolean(a) => {
            n.push_validity(array)?;
            n.push_bits(a.values())?;
        }
        ArrayRef::FixedSizeBinary(a) => primitive(&mut n, array, a.values())?,
        ArrayRef::Binary(a) => bytes(&mut n, array, a.offsets().inner(), a.values())?,
        ArrayRef::LargeBinary(a) => bytes(&mut n, array, a.offsets().inner(), a.values())?,
        ArrayRef::Utf8(a) => bytes(&mut n, array, a.offsets().inner(), a.values())?,
        ArrayRef::LargeUtf8(a) => bytes(&mut n, array, a.offsets().inner(), a.values())?,
        #[cfg(feature = "views")]
        ArrayRef::BinaryView(a) => views(&mut n, array, a.views_buffer(), a.data_buffers())?,
        #[cfg(feature = "views")]
        ArrayRef::Utf8View(a) => views(&mut n, array, a.views_buffer(), a.data_buffers())?,
        #[cfg(feature = "nested")]
        ArrayRef::List(a) => {
            n.push_validity(array)?;
            n.push_buffer(a.offsets().inner().inner())?;
            n.push_child(a.values())?;
        }
        #[cfg(feature = "nested")]
        ArrayRef::LargeList(a) => {
            n.push_validity(array)?;
            n.push_buffer(a.offsets().inner().inner())?;
            n.push_child(a.values())?;
        }
        #[cfg(feature = "nested")]
        ArrayRef::ListView(a) => {
            n.push_validity(array)?;
            n.push_buffer(a.offsets().inner())?;
            n.push_buffer(a.sizes().inner())?;
            n.push_child(a.values())?;
        }
        #[cfg(feature = "nested")]
        ArrayRef::LargeListView(a) => {
            n.push_validity(array)?;
            n.push_buffer(a.offsets().inner())?;
            n.push_buffer(a.sizes().inner())?;
            n.push_child(a.values())?;
        }
        #[cfg(feature = "nested")]
        ArrayRef::FixedSizeList(a) => {
            n.push_validity(array)?;
            let size = usize::try_from(a.value_length()).map_err(|_| Error::InvalidDataType)?;
            let start = a.offset().checked_mul(size).ok_or(Error::OutOfBounds)?;
            let count = a.len().checked_mul(size).ok_or(Error::OutOfBounds)?;
            n.push_child(&a.values().slice(start, count)?)?;
        }
        #[cfg(feature = "nested")]
        ArrayRef::Struct(a) => {
            n.push_validity(array)?;
            for c in a.children() {
                n.push_child(&c.slice(a.offset(), a.len())?)?;
            }
        }
        #[cfg(feature = "nested")]
        ArrayRef::Map(a) => {
            n.push_validity(array)?;
            n.push_buffer(a.offsets().inner().inner())?;
            n.push_child(a.list().values())?;
        }
        #[cfg(feature = "union")]
        ArrayRef::Union(a) => {
            n.push_buffer(a.type_ids_buffer().inner())?;
            match a.offsets_buffer() {
                Some(o) => {
                    n.push_buffer(o.inner())?;
                    for c in a.children() {
                        n.push_child(c)?;
                    }
                }
                None => {
                    for c in a.children() {
                        n.push_child(&c.slice(a.child_offset(), a.len())?)?;
                    }
                }
            }
        }
        #[cfg(feature = "dictionary")]
        ArrayRef::Dictionary(a) => {
            let keys = a.keys().clone().into_array_ref();
            n.push_validity(&keys)?;
            let values = match &keys {
                ArrayRef::Int8(k) => k.values_buffer().inner().clone(),
                ArrayRef::Int16(k) => k.values_buffer().inner().clone(),
                ArrayRef::Int32(k) => k.values_buffer().inner().clone(),
                ArrayRef::Int64(k) => k.values_buffer().inner().clone(),
                ArrayRef::UInt8(k) => k.values_buffer().inner().clone(),
                ArrayRef::UInt16(k) => k.values_buffer().inner().clone(),
                ArrayRef::UInt32(k) => k.values_buffer().inner().clone(),
                ArrayRef::UInt64(k) => k.values_buffer().inner().clone(),
                _ => return Err(Error::TypeMismatch),
            };
            n.push_buffer(&values)?;
            n.set_dictionary(a.values())?;
        }
        #[cfg(feature = "run-end")]
        ArrayRef::RunEndEncoded(a) => {
            n.offset = a.offset();
            n.push_child(&a.run_ends().clone().into_array_ref())?;
            n.push_child(a.values())?;
        }
    });
    n.finish()
}

/// Validity and one values buffer (fixed-width layouts).
fn primitive<A: Allocator + Clone + Send + Sync + 'static>(
    n: &mut Node<A>,
    array: &ArrayRef<'static, A>,
    values: &Buffer<'static, A>,
) -> Result<()> {
    n.push_validity(array)?;
    n.push_buffer(values)
}

/// Validity, offsets and data (variable-size binary and string layouts).
fn bytes<A: Allocator + Clone + Send + Sync + 'static>(
    n: &mut Node<A>,
    array: &ArrayRef<'static, A>,
    offsets: &Buffer<'static, A>,
    data: &Buffer<'static, A>,
) -> Result<()> {
    n.push_validity(array)?;
    n.push_buffer(offsets)?;
    n.push_buffer(data)
}

/// Validity, views, the data buffers, then the `i64` size of each data
/// buffer (the extra buffer the interface requires of view layouts).
#[cfg(feature = "views")]
fn views<A: Allocator + Clone + Send + Sync + 'static>(
    n: &mut Node<A>,
    array: &ArrayRef<'static, A>,
    views: &Buffer<'static, A>,
    data: &[Buffer<'static, A>],
) -> Result<()> {
    n.push_validity(array)?;
    n.push_buffer(views)?;
    let bytes = data.len().checked_mul(8).ok_or(Error::CapacityOverflow)?;
    let mut sizes = MutableBuffer::try_with_capacity_in(bytes, n.private.alloc.clone())?;
    for d in data {
        n.push_buffer(d)?;
        let len = i64::try_from(d.len()).map_err(|_| Error::CapacityOverflow)?;
        sizes.try_extend_from_slice(&len.to_ne_bytes())?;
    }
    let sizes = sizes.into_buffer();
    n.push_buffer(&sizes)?;
    n.private.extra.try_push(sizes)
}

impl FFI_ArrowArray {
    /// A released struct (every pointer null): what a consumer passes to a
    /// producer to fill, and what is left after a move.
    pub const fn empty() -> Self {
        FFI_ArrowArray {
            length: 0,
            null_count: 0,
            offset: 0,
            n_buffers: 0,
            n_children: 0,
            buffers: ptr::null_mut(),
            children: ptr::null_mut(),
            dictionary: ptr::null_mut(),
            release: None,
            private_data: ptr::null_mut(),
        }
    }

    /// `true` once released (its `release` callback is null).
    pub fn is_released(&self) -> bool {
        self.release.is_none()
    }

    /// Exports `array` without copying its buffers: every entry of
    /// `buffers` is the address of the alkaid buffer, and the struct's
    /// `private_data` holds a clone of the array (so a reference to each
    /// buffer) until the consumer calls `release`, which also releases the
    /// children and the dictionary that were not moved out.
    ///
    /// Buffers are laid out as "The Arrow C data interface" requires of each
    /// layout: validity bitmap first (null when there are no nulls), then
    /// the layout's buffers; view arrays get the extra buffer of data buffer
    /// sizes; nested views (struct, fixed-size list and sparse union
    /// children) are exported sliced to the parent's slots, run-end encoded
    /// arrays with their logical `offset`. The bookkeeping (pointer arrays,
    /// child structs, private data) is allocated through `alloc`.
    ///
    /// Only `'static` arrays can be exported: the consumer may keep the
    /// struct for as long as it wants. A firmware exports arrays over
    /// `static` sample memory (`PrimitiveArray::from_slice(&SAMPLES)` with
    /// `SAMPLES: [T; N]` a `static`); an array that borrows shorter-lived
    /// memory must be copied into `A` first.
    ///
    /// ```
    /// use alkaid::array::{Array, ArrayRef, PrimitiveArray};
    /// use alkaid::ffi::FFI_ArrowArray;
    /// use alkaid::Global;
    ///
    /// static SAMPLES: [i32; 4] = [10, 20, 30, 40];
    /// let a = PrimitiveArray::<i32, Global>::from_slice(&SAMPLES).into_array_ref();
    /// let c = FFI_ArrowArray::try_from_array_in(&a, Global)?;
    /// assert_eq!(c.length, 4);
    /// assert_eq!(c.n_buffers, 2); // validity (null: no nulls), values
    /// // SAFETY: the exporter made two buffer entries.
    /// let values = unsafe { *c.buffers.add(1) };
    /// assert_eq!(values.cast::<i32>(), SAMPLES.as_ptr()); // zero copy
    /// drop(c); // calls `release`
    /// # Ok::<(), alkaid::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::AllocationFailed`] when `alloc` fails (nothing leaks: the
    /// children made so far are released); [`Error::CapacityOverflow`] for
    /// lengths beyond `i64`.
    pub fn try_from_array_in<A>(array: &ArrayRef<'static, A>, alloc: A) -> Result<Self>
    where
        A: Allocator + Clone + Send + Sync + 'static,
    {
        export_array(array, &alloc)
    }

    /// Exports a record batch as a struct array (the interface's
    /// representation of a batch): no validity bitmap, one child per
    /// column, length the number of rows. Its schema is exported with
    /// [`super::FFI_ArrowSchema::try_from_schema_in`].
    ///
    /// # Errors
    /// As [`Self::try_from_array_in`].
    pub fn try_from_record_batch_in<A>(batch: &RecordBatch<'static, A>, alloc: A) -> Result<Self>
    where
        A: Allocator + Clone + Send + Sync + 'static,
    {
        let mut n = Node::new(None, batch.num_rows(), &alloc);
        n.push_ptr(ptr::null())?;
        for c in batch.columns() {
            n.push_child(c)?;
        }
        n.finish()
    }
}

impl Drop for FFI_ArrowArray {
    /// Calls `release` unless the struct was released (or moved out).
    fn drop(&mut self) {
        if let Some(release) = self.release {
            // SAFETY: a struct with a non-null `release` is live, and the
            // interface says its owner releases it through that callback.
            unsafe { release(self) };
        }
    }
}

// SAFETY: the interface lets a consumer move a struct between threads and
// release it from any of them; the structs alkaid exports only hold
// `Send + Sync` data (the allocator bound of the export functions).
unsafe impl Send for FFI_ArrowArray {}
