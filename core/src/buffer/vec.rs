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

    /// `len` elements made by `f(0)`, `f(1)`, …, in one allocation of
    /// exactly `len` elements, stopping at the first error (the elements
    /// made so far are dropped and the memory returned).
    ///
    /// ```
    /// use alkaid::buffer::TryVec;
    /// use alkaid::Global;
    ///
    /// let squares = TryVec::try_from_fn_in(4, Global, |i| Ok(i * i))?;
    /// assert_eq!(&squares[..], [0, 1, 4, 9]);
    /// # Ok::<(), alkaid::Error>(())
    /// ```
    ///
    /// # Errors
    /// The first error of `f`; [`Error::AllocationFailed`];
    /// [`Error::CapacityOverflow`].
    pub fn try_from_fn_in<F>(len: usize, alloc: A, mut f: F) -> Result<Self>
    where
        F: FnMut(usize) -> Result<T>,
    {
        let mut v = Self::new_in(alloc);
        v.grow_to(len)?;
        for i in 0..len {
            let item = f(i)?;
            // SAFETY: the capacity is at least `len > i` elements (or `T`
            // is zero-sized and the dangling pointer is valid for writes);
            // `len` counts the elements written, so an early return drops
            // exactly those.
            unsafe { v.ptr.as_ptr().add(i).write(item) };
            v.len = i + 1;
        }
        Ok(v)
    }

    /// The items of an exact-size iterator (at most its reported length),
    /// in one allocation.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`]; [`Error::CapacityOverflow`];
    /// [`Error::LengthMismatch`] when the iterator yields fewer items than
    /// it reported.
    pub fn try_from_iter_in<I>(iter: I, alloc: A) -> Result<Self>
    where
        I: ExactSizeIterator<Item = T>,
    {
        let mut iter = iter;
        Self::try_from_fn_in(iter.len(), alloc, |_| {
            iter.next().ok_or(Error::LengthMismatch)
        })
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
        self.grow_to(need.max(self.cap.saturating_mul(2)).max(4))
    }

    /// Grows the capacity to `new_cap` elements (nothing when it is not
    /// larger, or `T` is zero-sized).
    fn grow_to(&mut self, new_cap: usize) -> Result<()> {
        if new_cap <= self.cap || size_of::<T>() == 0 {
            return Ok(());
        }
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
    #[inline]
    pub fn try_push(&mut self, v: T) -> Result<()> {
        if self.len == self.cap {
            self.grow_for_push()?;
        }
        // SAFETY: `len < cap` after reserving (or `T` is zero-sized).
        unsafe { self.ptr.as_ptr().add(self.len).write(v) };
        self.len += 1;
        Ok(())
    }

    /// [`Self::try_reserve`] of one element, out of line: the rare path of
    /// [`Self::try_push`], whose common path is then inlined at its callers.
    #[cold]
    #[inline(never)]
    fn grow_for_push(&mut self) -> Result<()> {
        self.try_reserve(1)
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
        self.truncate(0);
    }

    /// Pointer to the first element: valid for `capacity` elements once
    /// something is allocated, dangling (and aligned) before.
    pub(crate) fn as_mut_ptr(&mut self) -> *mut T {
        self.ptr.as_ptr()
    }

    /// Sets the length to `len` without touching the elements.
    ///
    /// # Safety
    /// `len` must not exceed the capacity, the first `len` elements must be
    /// initialised, and any element past `len` that was counted before is
    /// forgotten (leaked), not dropped.
    pub(crate) unsafe fn set_len(&mut self, len: usize) {
        self.len = len;
    }

    /// The allocator.
    pub fn allocator(&self) -> &A {
        &self.alloc
    }

    /// Makes room for exactly `additional` more elements (no doubling).
    ///
    /// # Errors
    /// [`Error::AllocationFailed`], [`Error::CapacityOverflow`].
    pub fn try_reserve_exact(&mut self, additional: usize) -> Result<()> {
        let need = self
            .len
            .checked_add(additional)
            .ok_or(Error::CapacityOverflow)?;
        self.grow_to(need)
    }

    /// Drops the elements from `len` on (nothing when `len >= self.len()`),
    /// keeping the capacity.
    pub fn truncate(&mut self, len: usize) {
        if !core::mem::needs_drop::<T>() {
            // Nothing to drop: shortening forgets the tail.
            self.len = self.len.min(len);
            return;
        }
        while self.len > len {
            self.pop();
        }
    }

    /// Appends `n` elements `f(0)`, `f(1)`, …, each written once, after one
    /// growth (by doubling).
    ///
    /// ```
    /// use alkaid::buffer::TryVec;
    /// use alkaid::Global;
    ///
    /// let mut v = TryVec::new_in(Global);
    /// v.try_extend_from_fn(3, |i| i as u32 * 2)?;
    /// v.try_extend_from_fn(1, |_| 9)?;
    /// assert_eq!(&v[..], [0, 2, 4, 9]);
    /// # Ok::<(), alkaid::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::AllocationFailed`], [`Error::CapacityOverflow`] (nothing is appended).
    pub fn try_extend_from_fn(&mut self, n: usize, mut f: impl FnMut(usize) -> T) -> Result<()> {
        self.try_reserve(n)?;
        // SAFETY: `len + n <= cap` after reserving (or `T` is zero-sized):
        // the `n` slots from `len` are in the allocation.
        let tail = unsafe { self.ptr.as_ptr().add(self.len) };
        for i in 0..n {
            // SAFETY: `i < n`, a slot of the reserved tail. `len` grows only
            // once all `n` are written (the loop then vectorises), so a
            // panic in `f` leaks the elements written, never exposes an
            // unwritten one.
            unsafe { tail.add(i).write(f(i)) };
        }
        self.len += n;
        Ok(())
    }

    /// Appends a copy of every element of `items`.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`], [`Error::CapacityOverflow`] (nothing is appended).
    pub fn try_extend_from_slice(&mut self, items: &[T]) -> Result<()>
    where
        T: Copy,
    {
        self.try_reserve(items.len())?;
        // SAFETY: `len + items.len() <= cap` after reserving (or `T` is
        // zero-sized); `items` is a shared borrow, so it cannot overlap the
        // uniquely owned spare capacity; `T: Copy` has no drop glue and the
        // copy cannot panic.
        unsafe {
            core::ptr::copy_nonoverlapping(
                items.as_ptr(),
                self.ptr.as_ptr().add(self.len),
                items.len(),
            )
        };
        self.len += items.len();
        Ok(())
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
    use crate::Global;
    use core::cell::Cell;

    use crate::buffer::shared::tests::Counted;

    /// `try_from_fn_in`: exactly `len` elements in one allocation (also
    /// zero-sized ones); an error of `f` drops the elements made so far; an
    /// iterator shorter than it said is `LengthMismatch`.
    #[test]
    fn from_fn_exact_and_partial_drop() {
        let mut s = TryVec::try_from_fn_in(4, Global, |i| Ok(i * 10)).unwrap();
        s[2] += 1;
        assert_eq!(&*s, &[0, 10, 21, 30]);
        assert_eq!(s.cap, 4);
        let one = TryVec::try_from_fn_in(1, Global, |_| Ok(7u64)).unwrap();
        assert_eq!((one.len(), one.cap), (1, 1));
        let z = TryVec::try_from_fn_in(3, Global, |_| Ok(())).unwrap();
        assert_eq!(z.len(), 3);
        let live = Cell::new(0);
        let r = TryVec::try_from_fn_in(5, Global, |i| {
            if i == 3 {
                return Err(Error::InvalidRow);
            }
            live.set(live.get() + 1);
            Ok(Counted(&live))
        });
        assert_eq!(r.err(), Some(Error::InvalidRow));
        assert_eq!(live.get(), 0);
        struct Liar(u8);
        impl Iterator for Liar {
            type Item = u8;
            fn next(&mut self) -> Option<u8> {
                self.0 = self.0.checked_sub(1)?;
                Some(self.0)
            }
        }
        impl ExactSizeIterator for Liar {
            fn len(&self) -> usize {
                usize::from(self.0) + 1
            }
        }
        assert_eq!(
            TryVec::try_from_iter_in(Liar(2), Global).err(),
            Some(Error::LengthMismatch)
        );
        let v = TryVec::try_from_iter_in([1, 2].into_iter(), Global).unwrap();
        assert_eq!(&*v, &[1, 2]);
    }

    /// `try_extend_from_slice`, `try_extend_from_fn`, `try_reserve_exact`
    /// (no doubling) and `truncate` (drops the tail, keeps the capacity).
    #[test]
    fn extend_reserve_truncate() {
        let mut v = TryVec::new_in(Global);
        v.try_reserve_exact(3).unwrap();
        assert_eq!(v.cap, 3);
        v.try_extend_from_slice(&[1u32, 2, 3]).unwrap();
        assert_eq!(v.cap, 3);
        v.try_extend_from_fn(2, |i| 10 + i as u32).unwrap();
        assert_eq!(&*v, &[1, 2, 3, 10, 11]);
        v.truncate(2);
        assert_eq!(&*v, &[1, 2]);
        v.truncate(5);
        assert_eq!(v.len(), 2);
        let live = Cell::new(3);
        let mut c = TryVec::new_in(Global);
        for _ in 0..3 {
            c.try_push(Counted(&live)).unwrap();
        }
        c.truncate(1);
        assert_eq!(live.get(), 1);
    }

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
