//! [`TryVec`]: a small growable vector in memory from `A`, every growth fallible.

use core::fmt;
use core::mem::{align_of, size_of};
use core::ptr::NonNull;

use allocator_api2::alloc::{Allocator, Layout};

use crate::error::{Error, Result};

/// A growable vector of `T` in memory from `A` whose growth returns
/// [`Error::AllocationFailed`] instead of aborting. For bookkeeping (lists of
/// dictionaries, pending children), not for array data (see
/// [`super::MutableBuffer`]).
pub struct TryVec<
    T,
    #[cfg(feature = "alloc")] A: Allocator = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator,
> {
    ptr: NonNull<T>,
    len: usize,
    cap: usize,
    alloc: A,
}

// SAFETY: `TryVec` uniquely owns its elements, like `Vec`.
unsafe impl<T: Send, A: Allocator + Send> Send for TryVec<T, A> {}
// SAFETY: `&TryVec` only gives `&T`.
unsafe impl<T: Sync, A: Allocator + Sync> Sync for TryVec<T, A> {}

impl<T, A: Allocator> TryVec<T, A> {
    /// An empty vector; allocates nothing.
    pub const fn new_in(alloc: A) -> Self {
        TryVec {
            ptr: NonNull::dangling(),
            len: 0,
            cap: 0,
            alloc,
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// `true` when empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The elements.
    pub fn as_slice(&self) -> &[T] {
        // SAFETY: `len` elements from `ptr` are initialised (or `len == 0`
        // with a dangling, aligned pointer).
        unsafe { core::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }

    /// The elements, mutably.
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        // SAFETY: as `as_slice`, with unique access.
        unsafe { core::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }

    fn layout(cap: usize) -> Result<Layout> {
        let size = size_of::<T>()
            .checked_mul(cap)
            .ok_or(Error::CapacityOverflow)?;
        Layout::from_size_align(size, align_of::<T>()).map_err(|_| Error::CapacityOverflow)
    }

    /// Makes room for `additional` more elements.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`], [`Error::CapacityOverflow`].
    pub fn try_reserve(&mut self, additional: usize) -> Result<()> {
        let need = self
            .len
            .checked_add(additional)
            .ok_or(Error::CapacityOverflow)?;
        if need <= self.cap || size_of::<T>() == 0 {
            return Ok(());
        }
        let new_cap = need.max(self.cap.saturating_mul(2)).max(4);
        let new_layout = Self::layout(new_cap)?;
        let p = if self.cap == 0 {
            self.alloc.allocate(new_layout)?
        } else {
            // SAFETY: `ptr` was allocated by `alloc` with `layout(cap)`, and the
            // new layout is larger with the same alignment.
            unsafe {
                self.alloc
                    .grow(self.ptr.cast(), Self::layout(self.cap)?, new_layout)?
            }
        };
        self.ptr = p.cast();
        self.cap = new_cap;
        Ok(())
    }

    /// Appends `v`.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`], [`Error::CapacityOverflow`] (and `v` is dropped).
    pub fn try_push(&mut self, v: T) -> Result<()> {
        if self.len == self.cap {
            self.try_reserve(1)?;
        }
        // SAFETY: `len < cap` after reserving (or `T` is zero-sized).
        unsafe { self.ptr.as_ptr().add(self.len).write(v) };
        self.len += 1;
        Ok(())
    }

    /// Removes and returns the last element.
    pub fn pop(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        self.len -= 1;
        // SAFETY: the element at the old `len - 1` is initialised and is
        // no longer counted, so it is read out exactly once.
        Some(unsafe { self.ptr.as_ptr().add(self.len).read() })
    }

    /// Drops every element, keeping the capacity.
    pub fn clear(&mut self) {
        while self.pop().is_some() {}
    }

    /// The allocator.
    pub fn allocator(&self) -> &A {
        &self.alloc
    }
}

impl<T, A: Allocator> Drop for TryVec<T, A> {
    fn drop(&mut self) {
        self.clear();
        if self.cap > 0 && size_of::<T>() > 0 {
            if let Ok(layout) = Self::layout(self.cap) {
                // SAFETY: allocated by `alloc` with this layout.
                unsafe { self.alloc.deallocate(self.ptr.cast(), layout) };
            }
        }
    }
}

impl<T, A: Allocator> core::ops::Deref for TryVec<T, A> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T, A: Allocator> core::ops::DerefMut for TryVec<T, A> {
    fn deref_mut(&mut self) -> &mut [T] {
        self.as_mut_slice()
    }
}

impl<T: fmt::Debug, A: Allocator> fmt::Debug for TryVec<T, A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use allocator_api2::alloc::Global;

    #[test]
    fn push_pop_grow_drop() {
        let mut v = TryVec::new_in(Global);
        for i in 0..100u32 {
            v.try_push(std::format!("x{i}")).unwrap();
        }
        assert_eq!(v.len(), 100);
        assert_eq!(v[42], "x42");
        assert_eq!(v.pop().as_deref(), Some("x99"));
        v.clear();
        assert!(v.is_empty());
        v.try_push("again".into()).unwrap();
        assert_eq!(v.as_slice(), ["again"]);
    }

    #[test]
    fn failing_allocator() {
        let mut v: TryVec<u64, crate::NoAlloc> = TryVec::new_in(crate::NoAlloc);
        assert_eq!(v.try_push(1), Err(Error::AllocationFailed));
        assert!(v.is_empty());
    }
}
