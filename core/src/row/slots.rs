//! [`Slots`]: a fixed-length, owned, mutable slice of `T` in memory from `A`.
//!
//! The row converter keeps per-column state (dictionary interners, child
//! converters) and per-call scratch (row cursors, prepared encoders) in these:
//! one allocation each, made through the converter's allocator, never through
//! the global heap.

use core::alloc::Layout;
use core::fmt;
use core::mem::size_of;
use core::ops::{Deref, DerefMut};
use core::ptr::NonNull;

use allocator_api2::alloc::Allocator;

use crate::error::{Error, Result};

/// `len` values of `T` in one allocation from `A` (none when `len == 0` or
/// `T` is zero-sized), dropped and returned to `A` with the `Slots`.
pub(crate) struct Slots<T, A: Allocator> {
    ptr: NonNull<T>,
    len: usize,
    alloc: A,
}

// SAFETY: `Slots` uniquely owns its `T`s, like a `Box<[T]>`; it moves the
// allocator with it.
unsafe impl<T: Send, A: Allocator + Send> Send for Slots<T, A> {}
// SAFETY: `&Slots` only hands out `&T`.
unsafe impl<T: Sync, A: Allocator + Sync> Sync for Slots<T, A> {}

/// Drops the first `done` elements and frees the allocation if building stops early.
struct Partial<'s, T, A: Allocator> {
    ptr: NonNull<T>,
    done: usize,
    layout: Layout,
    alloc: &'s A,
}

impl<T, A: Allocator> Drop for Partial<'_, T, A> {
    fn drop(&mut self) {
        // SAFETY: the first `done` elements were written and not yet handed
        // to a `Slots`; the allocation (if any) was made by `alloc` with `layout`.
        unsafe {
            core::ptr::drop_in_place(core::ptr::slice_from_raw_parts_mut(
                self.ptr.as_ptr(),
                self.done,
            ));
            if self.layout.size() != 0 {
                self.alloc.deallocate(self.ptr.cast(), self.layout);
            }
        }
    }
}

impl<T, A: Allocator> Slots<T, A> {
    /// `len` elements made by `f(0)`, `f(1)`, …, stopping at the first error
    /// (the elements made so far are dropped and the memory returned).
    ///
    /// # Errors
    /// The first error of `f`; [`Error::AllocationFailed`]; [`Error::CapacityOverflow`].
    pub(crate) fn try_from_fn_in<F>(len: usize, alloc: A, mut f: F) -> Result<Self>
    where
        F: FnMut(usize) -> Result<T>,
    {
        let layout = Layout::array::<T>(len).map_err(|_| Error::CapacityOverflow)?;
        let ptr = if layout.size() == 0 {
            NonNull::dangling()
        } else {
            alloc.allocate(layout)?.cast::<T>()
        };
        let mut partial = Partial {
            ptr,
            done: 0,
            layout,
            alloc: &alloc,
        };
        for i in 0..len {
            let item = f(i)?;
            // SAFETY: `i < len` lies within the allocation of `len` `T`s (or
            // `T` is zero-sized and the dangling pointer is valid for writes).
            unsafe { ptr.as_ptr().add(i).write(item) };
            partial.done = i + 1;
        }
        core::mem::forget(partial);
        Ok(Slots { ptr, len, alloc })
    }

    /// The items of an exact-size iterator (at most its reported length).
    ///
    /// # Errors
    /// [`Error::AllocationFailed`]; [`Error::CapacityOverflow`];
    /// [`Error::LengthMismatch`] when the iterator yields fewer items than it reported.
    pub(crate) fn try_from_iter_in<I>(iter: I, alloc: A) -> Result<Self>
    where
        I: ExactSizeIterator<Item = T>,
    {
        let len = iter.len();
        let mut iter = iter;
        Self::try_from_fn_in(len, alloc, |_| iter.next().ok_or(Error::LengthMismatch))
    }

    /// The allocator.
    pub(crate) fn allocator(&self) -> &A {
        &self.alloc
    }
}

impl<T, A: Allocator> Deref for Slots<T, A> {
    type Target = [T];
    #[inline]
    fn deref(&self) -> &[T] {
        // SAFETY: `ptr` holds `len` initialised `T`s (or is dangling with
        // `len == 0` or a zero-sized `T`).
        unsafe { core::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T, A: Allocator> DerefMut for Slots<T, A> {
    #[inline]
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as `deref`, and `&mut self` gives unique access.
        unsafe { core::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl<T, A: Allocator> Drop for Slots<T, A> {
    fn drop(&mut self) {
        // SAFETY: we own `len` initialised `T`s; the allocation was made by
        // `alloc` with `Layout::array::<T>(len)`, which succeeded then.
        unsafe {
            core::ptr::drop_in_place(core::ptr::slice_from_raw_parts_mut(
                self.ptr.as_ptr(),
                self.len,
            ));
            if self.len != 0 && size_of::<T>() != 0 {
                if let Ok(layout) = Layout::array::<T>(self.len) {
                    self.alloc.deallocate(self.ptr.cast(), layout);
                }
            }
        }
    }
}

impl<T: fmt::Debug, A: Allocator> fmt::Debug for Slots<T, A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use allocator_api2::alloc::Global;
    use core::cell::Cell;

    struct Counted<'c>(&'c Cell<i32>);
    impl Drop for Counted<'_> {
        fn drop(&mut self) {
            self.0.set(self.0.get() - 1);
        }
    }

    #[test]
    fn build_mutate_drop() {
        let mut s = Slots::try_from_fn_in(4, Global, |i| Ok(i * 10)).unwrap();
        s[2] += 1;
        assert_eq!(&*s, &[0, 10, 21, 30]);
        let z = Slots::try_from_fn_in(3, Global, |_| Ok(())).unwrap();
        assert_eq!(z.len(), 3);
    }

    #[test]
    fn failure_drops_partial() {
        let live = Cell::new(0);
        let r = Slots::try_from_fn_in(5, Global, |i| {
            if i == 3 {
                return Err(Error::InvalidRow);
            }
            live.set(live.get() + 1);
            Ok(Counted(&live))
        });
        assert_eq!(r.err(), Some(Error::InvalidRow));
        assert_eq!(live.get(), 0);
        let ok = Slots::try_from_fn_in(2, Global, |_| {
            live.set(live.get() + 1);
            Ok(Counted(&live))
        })
        .unwrap();
        assert_eq!(live.get(), 2);
        drop(ok);
        assert_eq!(live.get(), 0);
    }
}
