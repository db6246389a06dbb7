//! [`gc_in`] / [`gc()`] of one typed view array: a view array whose data
//! buffers hold only the bytes its views still reference.

use allocator_api2::alloc::Allocator;

use crate::array::{Array, ByteView, ByteViewType, GenericByteViewArray};
use crate::buffer::{Buffer, MutableBuffer, SharedSlice, TryVec};
use crate::error::{Error, Result};

/// Largest data buffer [`gc_in`] makes: view offsets are `i32`.
const MAX_BUFFER: usize = i32::MAX as usize;

/// Copies the bytes that the views of `array` reference into new data
/// buffers ("Variable-size Binary View Layout"), so that the result no
/// longer keeps the input's data buffers alive: after [`crate::compute::take_in`],
/// [`crate::compute::filter_in`] or [`crate::compute::concat()`], which share the inputs' data
/// buffers whole, this bounds memory by the kept values.
///
/// Values are copied in slot order into buffers of at most `i32::MAX`
/// bytes each (one buffer unless the values need more); each value is
/// copied once per slot that references it; inline views (12 bytes or
/// less) are kept as they are and null slots get the empty inline view.
/// The validity bitmap is shared with `array`.
///
/// ```
/// use alkaid::array::{Array, StringViewArray};
/// use alkaid::compute::{gc_in, take_in};
/// use alkaid::Global;
///
/// let a = StringViewArray::from(vec!["a value longer than twelve bytes", "x", "another long value here"]);
/// let t = take_in(&a.clone().into_array_ref(), &[2usize][..], Global)?;
/// let t = t.as_string_view().expect("Utf8View");
/// assert_eq!(t.data_buffers()[0].len(), a.data_buffers()[0].len()); // shared
/// let g = gc_in(t, Global)?;
/// assert_eq!(g.data_buffers()[0].len(), 23); // only "another long value here"
/// assert_eq!(g.value(0), Some("another long value here"));
/// # Ok::<(), alkaid::Error>(())
/// ```
///
/// # Errors
/// [`Error::AllocationFailed`]; [`Error::ViewOffsetOutOfBounds`] or
/// [`Error::ViewBufferIndexOutOfBounds`] when a view of `array` lies outside
/// its data buffers (a malformed input); [`Error::CapacityOverflow`] when
/// more than `i32::MAX` buffers would be needed.
pub fn gc_in<'a, T: ByteViewType, A: Allocator + Clone>(
    array: &GenericByteViewArray<'a, T, A>,
    alloc: A,
) -> Result<GenericByteViewArray<'a, T, A>> {
    let mut total = 0usize;
    for (i, view) in array.views().iter().enumerate() {
        if !view.is_inline() && array.is_valid(i) {
            let n = usize::try_from(view.length()).map_err(|_| Error::ViewLengthNegative)?;
            total = total.checked_add(n).ok_or(Error::CapacityOverflow)?;
        }
    }
    let mut done: TryVec<Buffer<'static, A>, A> = TryVec::new_in(alloc.clone());
    let mut current = MutableBuffer::new_in(alloc.clone());
    current.try_reserve_exact(total.min(MAX_BUFFER))?;
    let mut left = total;
    let mut views = MutableBuffer::new_in(alloc.clone());
    views.try_reserve_exact(array.len().checked_mul(16).ok_or(Error::CapacityOverflow)?)?;
    for (i, view) in array.views().iter().enumerate() {
        let out = if !array.is_valid(i) {
            ByteView::default()
        } else if view.is_inline() {
            *view
        } else {
            let bytes = value_bytes(array, view)?;
            if current.len() + bytes.len() > MAX_BUFFER {
                let full = core::mem::replace(&mut current, MutableBuffer::new_in(alloc.clone()));
                done.try_push(full.into_buffer())?;
                current.try_reserve_exact(left.min(MAX_BUFFER))?;
            }
            let index = i32::try_from(done.len()).map_err(|_| Error::CapacityOverflow)?;
            let offset = i32::try_from(current.len()).map_err(|_| Error::CapacityOverflow)?;
            current.try_extend_from_slice(bytes)?;
            left -= bytes.len();
            ByteView::from_parts(view.length(), view.prefix(), index, offset)
        };
        views.try_extend_from_slice(out.as_bytes())?;
    }
    if !current.is_empty() {
        done.try_push(current.into_buffer())?;
    }
    let buffers = if done.is_empty() {
        SharedSlice::empty()
    } else {
        SharedSlice::try_from_fn_in(done.len(), alloc, |i| {
            done.get(i).cloned().ok_or(Error::InvalidArgument)
        })?
    };
    // SAFETY: every view is the input's (inline), the empty inline view
    // (null slots), or the input's length and prefix over a copy of the
    // input's value bytes (UTF-8 for strings, a type invariant of the
    // input) at its new buffer and offset.
    Ok(unsafe {
        GenericByteViewArray::new_unchecked(views.into_buffer(), buffers, array.nulls().cloned())
    })
}

/// [`gc_in`] with the global allocator.
///
/// # Errors
/// As [`gc_in`].
#[cfg(feature = "alloc")]
pub fn gc<'a, T: ByteViewType>(
    array: &GenericByteViewArray<'a, T, crate::Global>,
) -> Result<GenericByteViewArray<'a, T, crate::Global>> {
    gc_in(array, crate::Global)
}

/// The bytes a non-inline view references.
fn value_bytes<'b, T: ByteViewType, A: Allocator>(
    array: &'b GenericByteViewArray<'_, T, A>,
    view: &ByteView,
) -> Result<&'b [u8]> {
    let buffer = usize::try_from(view.buffer_index())
        .ok()
        .and_then(|b| array.data_buffers().get(b))
        .ok_or(Error::ViewBufferIndexOutOfBounds)?;
    let start = usize::try_from(view.offset()).map_err(|_| Error::ViewOffsetOutOfBounds)?;
    let len = usize::try_from(view.length()).map_err(|_| Error::ViewLengthNegative)?;
    start
        .checked_add(len)
        .and_then(|end| buffer.as_slice().get(start..end))
        .ok_or(Error::ViewOffsetOutOfBounds)
}
