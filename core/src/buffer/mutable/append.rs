//! Appends for writers that fill every new byte themselves (the row
//! encoder): the grown part is not zero-filled first. Built with the row
//! format (`crate::row`), its only user.

use core::ptr;

use allocator_api2::alloc::Allocator;

use super::MutableBuffer;
use crate::buffer::shared::{alloc_layout, round_up, ALIGNMENT};
use crate::buffer::TryVec;
use crate::error::{Error, Result};

impl<A: Allocator> MutableBuffer<A> {
    /// Makes room for `additional` more bytes like [`Self::try_reserve`],
    /// but leaves the bytes from `len + additional` to the capacity zero and
    /// those from `len` to `len + additional` possibly UNINITIALISED when it
    /// has to grow (no `allocate_zeroed`, no zeroing of the grown part):
    /// the caller must write or zero them before anything reads them, and
    /// before `self` is used again if it may be reached by a panic.
    /// Returns the byte offset `len + additional`.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`], [`Error::CapacityOverflow`].
    fn reserve_uninit(&mut self, additional: usize) -> Result<usize> {
        let need = self
            .len
            .checked_add(additional)
            .ok_or(Error::CapacityOverflow)?;
        if need <= self.cap {
            // The bytes past `len` are zero already (padding invariant).
            return Ok(need);
        }
        let doubled = self.cap.saturating_mul(2);
        let target = if doubled > need { doubled } else { need };
        let new_cap = round_up(target, ALIGNMENT).ok_or(Error::CapacityOverflow)?;
        let new_layout = alloc_layout::<A, u8>(new_cap)?;
        let new_base = if self.cap == 0 {
            self.alloc.allocate(new_layout)?
        } else {
            let old_layout = alloc_layout::<A, u8>(self.cap)?;
            // SAFETY: `base` was allocated by `alloc` with `old_layout`, and
            // `new_layout` is at least as large with the same alignment.
            unsafe { self.alloc.grow(self.base, old_layout, new_layout)? }
        };
        self.base = new_base.cast();
        self.cap = new_cap;
        // SAFETY: `need <= new_cap`: the tail `need..new_cap` lies within the
        // data of the new allocation.
        unsafe { ptr::write_bytes(self.data_ptr().add(need), 0, new_cap - need) };
        Ok(need)
    }

    /// Appends `n` values `f(0)`, `f(1)`, … (native endianness), written
    /// straight into the buffer: unlike extending with zeros and then
    /// overwriting, each new byte is written once.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`], [`Error::CapacityOverflow`].
    pub(crate) fn try_extend_from_fn<T: bytemuck::Pod>(
        &mut self,
        n: usize,
        f: impl FnMut(usize) -> T,
    ) -> Result<()> {
        self.try_extend_exact(n, (0..n).map(f))
    }

    /// Appends `f(k, &src[k])` for every element of `src`, in order, like
    /// [`Self::try_extend_from_fn`]; the loop runs over the slice itself, so
    /// the closure indexes nothing and the loop has one exit (a gather's
    /// loop carries no second counter).
    ///
    /// # Errors
    /// [`Error::AllocationFailed`], [`Error::CapacityOverflow`].
    #[inline(always)]
    pub(crate) fn try_extend_mapped<S, T: bytemuck::Pod>(
        &mut self,
        src: &[S],
        mut f: impl FnMut(usize, &S) -> T,
    ) -> Result<()> {
        let items = src.iter().enumerate().map(|(k, s)| f(k, s));
        self.try_extend_exact(src.len(), items)
    }

    /// Appends the first `n` of `items` (native endianness), written
    /// straight into the buffer; values `items` does not have are zero
    /// bytes. Zipped with `0..n`, so that for a range or a slice the loop
    /// keeps one counter.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`], [`Error::CapacityOverflow`].
    #[inline(always)]
    fn try_extend_exact<T: bytemuck::Pod>(
        &mut self,
        n: usize,
        items: impl Iterator<Item = T>,
    ) -> Result<()> {
        let bytes = n
            .checked_mul(size_of::<T>())
            .ok_or(Error::CapacityOverflow)?;
        let start = self.len;
        let end = self.reserve_uninit(bytes)?;
        // Should `items` panic, the guard zeroes `start..end` (written or
        // not): the padding invariant holds again for whoever catches it.
        let guard = ZeroOnDrop {
            data: self.data_ptr(),
            start,
            end,
        };
        let mut written = 0;
        for (i, v) in (0..n).zip(items) {
            // SAFETY: `i < n`, so `start + (i + 1) * size_of::<T>() <= end
            // <= cap`: within the allocation; an unaligned write of a `Pod`
            // value through a raw pointer (no reference to the
            // uninitialised bytes is made).
            unsafe {
                guard
                    .data
                    .add(start + i * size_of::<T>())
                    .cast::<T>()
                    .write_unaligned(v)
            };
            written = i + 1;
        }
        let done = start + written * size_of::<T>();
        // SAFETY: `done <= end <= cap`: zeroes, within the allocation, the
        // values `items` did not have.
        unsafe { ptr::write_bytes(guard.data.add(done), 0, end - done) };
        core::mem::forget(guard);
        // Every byte of `start..end` was written above.
        self.len = end;
        Ok(())
    }

    /// Appends the bytes, at most `n`, that `f` writes in order through an
    /// [`Appender`] (no zeroing first: each new byte is written once); room
    /// for `n` is made first. On error (or a panic in `f`) nothing is
    /// appended (the bytes after the length stay zero) and `f`'s error is
    /// returned.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`], [`Error::CapacityOverflow`], or `f`'s.
    pub(crate) fn try_extend_appended<R>(
        &mut self,
        n: usize,
        f: impl FnOnce(&mut Appender<'_>) -> Result<R>,
    ) -> Result<R> {
        let start = self.len;
        let end = self.reserve_uninit(n)?;
        // SAFETY: `reserve_uninit` made the capacity at least `end`, and
        // `0..start` are the buffer's written bytes; `self` stays mutably
        // borrowed until the call returns.
        let (r, pos) = unsafe { append(self.data_ptr(), start, end, f)? };
        // `start..pos` was written by `put`; `pos..end`, now past the
        // length, zeroed by `append` (padding).
        self.len = pos;
        Ok(r)
    }
}

impl<A: Allocator> TryVec<u8, A> {
    /// Appends `n` bytes that `f` writes, zeroing them a piece at a time
    /// just before `f` writes them ([`Filler::zeroed_to`]) rather than all
    /// at once up front: with pieces that fit in the cache, the new bytes
    /// travel to memory once rather than twice. Bytes `f` did not ask for
    /// are zeroed when it returns. On error (or a panic in `f`) nothing is
    /// appended and `f`'s error is
    /// returned. `f` is also handed the bytes already in the buffer (so that
    /// it can write at absolute offsets); what it changes there stays.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`], [`Error::CapacityOverflow`], or `f`'s.
    pub(crate) fn try_extend_filled<R>(
        &mut self,
        n: usize,
        f: impl FnOnce(&mut Filler<'_>) -> Result<R>,
    ) -> Result<R> {
        let start = self.len();
        let end = start.checked_add(n).ok_or(Error::CapacityOverflow)?;
        self.try_reserve(n)?;
        // SAFETY: the capacity is at least `end` bytes after reserving, and
        // `0..start` are the vector's initialised bytes; `self` stays
        // mutably borrowed until the call returns.
        let r = unsafe { fill(self.as_mut_ptr(), start, end, f)? };
        // SAFETY: `end <= capacity`, and `fill` initialised `start..end`.
        unsafe { self.set_len(end) };
        Ok(r)
    }

    /// [`MutableBuffer::try_extend_appended`] for a byte vector: the bytes,
    /// at most `n`, that `f` writes in order through an [`Appender`]; on
    /// error (or a panic in `f`) nothing is appended.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`], [`Error::CapacityOverflow`], or `f`'s.
    pub(crate) fn try_extend_appended<R>(
        &mut self,
        n: usize,
        f: impl FnOnce(&mut Appender<'_>) -> Result<R>,
    ) -> Result<R> {
        let start = self.len();
        let end = start.checked_add(n).ok_or(Error::CapacityOverflow)?;
        self.try_reserve(n)?;
        // SAFETY: the capacity is at least `end` bytes after reserving, and
        // `0..start` are the vector's initialised bytes.
        let (r, pos) = unsafe { append(self.as_mut_ptr(), start, end, f)? };
        // SAFETY: `pos <= end <= capacity`, and `start..pos` was written.
        unsafe { self.set_len(pos) };
        Ok(r)
    }

    /// Appends `n` zero bytes.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`], [`Error::CapacityOverflow`].
    pub(crate) fn try_extend_zeros(&mut self, n: usize) -> Result<()> {
        self.try_extend_filled(n, |_| Ok(()))
    }
}

/// Runs `f` over a [`Filler`] of the bytes `start..end` after `data`, then
/// zeroes those it did not ask for; on error (or a panic) zeroes them all.
///
/// # Safety
/// `data` must be valid for reads and writes of `end` bytes, `0..start` of
/// them initialised, `start <= end`, and nothing else may access them until
/// the call returns.
unsafe fn fill<R>(
    data: *mut u8,
    start: usize,
    end: usize,
    f: impl FnOnce(&mut Filler<'_>) -> Result<R>,
) -> Result<R> {
    let mut filler = Filler {
        guard: ZeroOnDrop { data, start, end },
        init: start,
        _buffer: core::marker::PhantomData,
    };
    let r = f(&mut filler)?;
    // SAFETY: `init..end` lies within the `end` valid bytes (`init <= end`).
    unsafe { ptr::write_bytes(data.add(filler.init), 0, end - filler.init) };
    core::mem::forget(filler);
    // `start..init` was zeroed (and maybe written) by `zeroed_to`,
    // `init..end` just now: all initialised.
    Ok(r)
}

/// Runs `f` over an [`Appender`] of the bytes `start..end` after `data`,
/// then zeroes `pos..end` (`pos`: where `f` stopped, returned with its
/// result); on error (or a panic) zeroes `start..end`.
///
/// # Safety
/// As [`fill`].
unsafe fn append<R>(
    data: *mut u8,
    start: usize,
    end: usize,
    f: impl FnOnce(&mut Appender<'_>) -> Result<R>,
) -> Result<(R, usize)> {
    let mut appender = Appender {
        guard: ZeroOnDrop { data, start, end },
        pos: start,
        _buffer: core::marker::PhantomData,
    };
    let r = f(&mut appender)?;
    let pos = appender.pos;
    // SAFETY: `pos..end` lies within the `end` valid bytes (`pos <= end`).
    unsafe { ptr::write_bytes(data.add(pos), 0, end - pos) };
    core::mem::forget(appender);
    Ok((r, pos))
}

/// Zeroes the bytes `start..end` after `data` when dropped (unless
/// forgotten): restores the padding invariant of a buffer whose append
/// failed or panicked half-way.
struct ZeroOnDrop {
    data: *mut u8,
    start: usize,
    end: usize,
}

impl Drop for ZeroOnDrop {
    fn drop(&mut self) {
        // SAFETY: made by `MutableBuffer` methods, `fill` or `append` with
        // `start <= end <= cap` of the buffer (or byte vector) borrowed
        // mutably for the guard's whole life;
        // writing zeros initialises whatever was there.
        unsafe { ptr::write_bytes(self.data.add(self.start), 0, self.end - self.start) };
    }
}

/// The bytes being appended by [`TryVec::try_extend_filled`], handed
/// out zeroed in order.
pub(crate) struct Filler<'b> {
    /// The appended range `start..end` (byte offsets into the data), and
    /// the zeroing of it should the append not complete.
    guard: ZeroOnDrop,
    /// Bytes `start..init` have been zeroed (and handed out); `init..end`
    /// may be uninitialised.
    init: usize,
    _buffer: core::marker::PhantomData<&'b mut [u8]>,
}

impl Filler<'_> {
    /// Zeroes the appended bytes up to byte offset `upto` that are not
    /// zeroed yet and returns the buffer's data `0..upto`: the bytes before
    /// the append, then every appended byte handed out so far (as the
    /// caller left them), then the newly zeroed ones.
    ///
    /// # Errors
    /// [`Error::OutOfBounds`] when `upto` is past the appended bytes.
    #[inline]
    pub(crate) fn zeroed_to(&mut self, upto: usize) -> Result<&mut [u8]> {
        if upto > self.guard.end {
            return Err(Error::OutOfBounds);
        }
        if upto > self.init {
            // SAFETY: `init..upto` lies within the appended range, inside
            // the capacity.
            unsafe { ptr::write_bytes(self.guard.data.add(self.init), 0, upto - self.init) };
            self.init = upto;
        }
        // SAFETY: `0..start` are the buffer's written bytes and
        // `start..init` (`init >= upto`) was zeroed above or before: all
        // initialised. The buffer is mutably borrowed for `'b` and this
        // slice borrows `self` mutably, so it is the only reference.
        Ok(unsafe { core::slice::from_raw_parts_mut(self.guard.data, upto) })
    }
}

/// Writes the bytes being appended by [`MutableBuffer::try_extend_appended`]
/// in order. No reference to the bytes not yet written is ever made.
pub(crate) struct Appender<'b> {
    /// The appended range `start..end` (byte offsets into the data), and
    /// the zeroing of it should the append not complete.
    guard: ZeroOnDrop,
    /// Bytes `start..pos` have been written; `pos..end` may be uninitialised.
    pos: usize,
    _buffer: core::marker::PhantomData<&'b mut [u8]>,
}

impl Appender<'_> {
    /// Byte offset (into the buffer's data) of the next byte written.
    #[inline(always)]
    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    /// Moves the position back to `pos` (a position this appender has
    /// been at): the bytes written since are dropped, to be overwritten
    /// or zeroed when the append ends.
    ///
    /// # Errors
    /// [`Error::OutOfBounds`] when `pos` is before the appended range or
    /// past the current position (nothing changes).
    #[inline(always)]
    pub(crate) fn rewind(&mut self, pos: usize) -> Result<()> {
        if pos < self.guard.start || pos > self.pos {
            return Err(Error::OutOfBounds);
        }
        self.pos = pos;
        Ok(())
    }

    /// Writes `bytes` next.
    ///
    /// # Errors
    /// [`Error::OutOfBounds`] when they do not fit in the appended range
    /// (nothing is written).
    #[inline(always)]
    pub(crate) fn put<const N: usize>(&mut self, bytes: &[u8; N]) -> Result<()> {
        let next = self
            .pos
            .checked_add(N)
            .filter(|&e| e <= self.guard.end)
            .ok_or(Error::OutOfBounds)?;
        // SAFETY: `pos..next` lies within the appended range, inside the
        // capacity of the buffer that is mutably borrowed for `'b`; the copy
        // goes through raw pointers (no reference to the uninitialised
        // bytes) and `bytes` cannot overlap them (it is a shared borrow that
        // cannot point into the mutably borrowed buffer).
        unsafe { ptr::copy_nonoverlapping(bytes.as_ptr(), self.guard.data.add(self.pos), N) };
        self.pos = next;
        Ok(())
    }

    /// Writes `bytes` (of any length) next.
    ///
    /// # Errors
    /// [`Error::OutOfBounds`] when they do not fit in the appended range
    /// (nothing is written).
    #[inline(always)]
    pub(crate) fn put_slice(&mut self, bytes: &[u8]) -> Result<()> {
        let next = self
            .pos
            .checked_add(bytes.len())
            .filter(|&e| e <= self.guard.end)
            .ok_or(Error::OutOfBounds)?;
        // SAFETY: as in `put`, for `bytes.len()` bytes.
        unsafe {
            ptr::copy_nonoverlapping(bytes.as_ptr(), self.guard.data.add(self.pos), bytes.len())
        };
        self.pos = next;
        Ok(())
    }

    /// Writes all of `bytes` next but keeps only the first `n` (`n <=
    /// bytes.len()`): [`Self::put_prefix`] for a length known only at run
    /// time, so that a loop writing either of two lengths copies one.
    ///
    /// # Errors
    /// [`Error::OutOfBounds`] when `n > bytes.len()` or the bytes do not fit
    /// in the appended range (nothing is written).
    #[inline(always)]
    pub(crate) fn put_slice_prefix(&mut self, bytes: &[u8], n: usize) -> Result<()> {
        if n > bytes.len() {
            return Err(Error::OutOfBounds);
        }
        self.pos
            .checked_add(bytes.len())
            .filter(|&e| e <= self.guard.end)
            .ok_or(Error::OutOfBounds)?;
        // SAFETY: as in `put_prefix`, for `bytes.len()` bytes.
        unsafe {
            ptr::copy_nonoverlapping(bytes.as_ptr(), self.guard.data.add(self.pos), bytes.len())
        };
        self.pos += n;
        Ok(())
    }

    /// Writes every chunk of `chunks` next, in order, but keeps only the
    /// first `n` bytes (`n <= chunks.len() * N`): [`Self::put_slice_prefix`]
    /// for bytes held in fixed-size chunks, each copied at its size (no
    /// `memcpy` call of a length known at run time).
    ///
    /// # Errors
    /// [`Error::OutOfBounds`] when `n` is past the chunks or they do not fit
    /// in the appended range (nothing is written).
    #[inline(always)]
    pub(crate) fn put_chunks_prefix<const N: usize>(
        &mut self,
        chunks: &[[u8; N]],
        n: usize,
    ) -> Result<()> {
        let len = chunks.len().checked_mul(N).ok_or(Error::OutOfBounds)?;
        if n > len {
            return Err(Error::OutOfBounds);
        }
        self.pos
            .checked_add(len)
            .filter(|&e| e <= self.guard.end)
            .ok_or(Error::OutOfBounds)?;
        // SAFETY: `pos <= pos + len <= end <= cap`: within the allocation.
        let to = unsafe { self.guard.data.add(self.pos) }.cast::<[u8; N]>();
        for (k, chunk) in chunks.iter().enumerate() {
            // SAFETY: `pos + (k + 1) * N <= pos + len <= end`: within the
            // appended range of the mutably borrowed buffer, written
            // through a raw pointer (unaligned) with a value read from a
            // shared borrow that cannot overlap it.
            unsafe { to.add(k).write_unaligned(*chunk) };
        }
        self.pos += n;
        Ok(())
    }

    /// Writes all `N` bytes of `bytes` next but keeps only the first `n`
    /// (`n <= N`): the position advances by `n`, and the other `N - n`
    /// bytes are overwritten by the next write or zeroed when the append
    /// ends. A fixed-size copy for a value's last, partial block.
    ///
    /// # Errors
    /// [`Error::OutOfBounds`] when `n > N` or the `N` bytes do not fit in
    /// the appended range (nothing is written).
    #[inline(always)]
    pub(crate) fn put_prefix<const N: usize>(&mut self, bytes: &[u8; N], n: usize) -> Result<()> {
        if n > N {
            return Err(Error::OutOfBounds);
        }
        self.pos
            .checked_add(N)
            .filter(|&e| e <= self.guard.end)
            .ok_or(Error::OutOfBounds)?;
        // SAFETY: as in `put`: `pos..pos + N` lies within the appended range
        // of the mutably borrowed buffer, written through raw pointers from a
        // shared borrow that cannot overlap it. Only `pos..pos + n` counts as
        // written; the bytes after it are initialised too, and the range
        // past the final position is zeroed when the append ends.
        unsafe { ptr::copy_nonoverlapping(bytes.as_ptr(), self.guard.data.add(self.pos), N) };
        self.pos += n;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Global;

    /// Every byte from the length to the capacity is zero.
    fn padding_zero(b: &MutableBuffer<Global>) -> bool {
        // SAFETY: test-only look at the padding, which the invariant says
        // is initialised (zero).
        let all = unsafe { core::slice::from_raw_parts(b.data_ptr(), b.capacity()) };
        all[b.len()..].iter().all(|&x| x == 0)
    }

    #[test]
    fn extend_from_fn_writes_values_and_keeps_padding() {
        let mut b = MutableBuffer::new_in(Global);
        b.try_extend_from_fn(3, |i| i as u32 * 7).unwrap();
        assert_eq!(b.typed::<u32>().unwrap(), &[0, 7, 14]);
        assert!(padding_zero(&b));
        // Growing an existing allocation (`grow`, not `allocate`).
        b.try_extend_from_fn(40, |i| 1000 + i as u32).unwrap();
        assert_eq!(b.len(), 43 * 4);
        assert_eq!(b.typed::<u32>().unwrap()[2..5], [14, 1000, 1001]);
        assert!(padding_zero(&b));
        b.try_extend_from_fn(0, |_| 0u64).unwrap();
        assert_eq!(b.len(), 43 * 4);
        b.try_extend_zeros(5).unwrap();
        assert_eq!(&b.as_slice()[43 * 4..], &[0; 5]);
    }

    #[test]
    fn extend_from_fn_panic_leaves_zeros() {
        let mut b = MutableBuffer::new_in(Global);
        b.try_extend_from_slice(&[9; 10]).unwrap();
        let r = std::panic::catch_unwind(core::panic::AssertUnwindSafe(|| {
            b.try_extend_from_fn(100, |i| {
                assert!(i < 50, "stop half-way");
                0xABu8
            })
        }));
        assert!(r.is_err());
        assert_eq!(b.as_slice(), &[9; 10]);
        assert!(padding_zero(&b));
        b.try_extend_zeros(200).unwrap();
        assert!(b.as_slice()[10..].iter().all(|&x| x == 0));
    }

    #[test]
    fn extend_filled_in_pieces() {
        let mut b = TryVec::<u8, _>::new_in(Global);
        b.try_extend_from_slice(&[1, 2, 3]).unwrap();
        let got = b
            .try_extend_filled(200, |f| {
                let d = f.zeroed_to(50)?;
                assert_eq!(&d[..3], &[1, 2, 3]);
                assert!(d[3..].iter().all(|&x| x == 0));
                d[3..50].fill(5);
                // Earlier pieces are handed back as written.
                let d = f.zeroed_to(120)?;
                assert_eq!(d[49], 5);
                assert_eq!(d[50], 0);
                d[119] = 6;
                let d = f.zeroed_to(10)?;
                assert_eq!(d.len(), 10);
                assert_eq!(f.zeroed_to(204).err(), Some(Error::OutOfBounds));
                Ok(7)
            })
            .unwrap();
        assert_eq!(got, 7);
        assert_eq!(b.len(), 203);
        let s = b.as_slice();
        assert_eq!(&s[..4], &[1, 2, 3, 5]);
        assert_eq!(s[119], 6);
        // Bytes never asked for are zero.
        assert!(s[120..].iter().all(|&x| x == 0));
    }

    #[test]
    fn extend_appended_in_order() {
        let mut b = MutableBuffer::new_in(Global);
        b.try_extend_from_slice(&[1, 2]).unwrap();
        let got = b
            .try_extend_appended(100, |w| {
                assert_eq!(w.pos(), 2);
                w.put(&[7u8; 33])?;
                w.put(&[8u8])?;
                assert_eq!(w.pos(), 36);
                assert_eq!(w.put(&[9u8; 67]), Err(Error::OutOfBounds));
                assert_eq!(w.pos(), 36);
                w.put(&[9u8; 60])?;
                Ok(5)
            })
            .unwrap();
        assert_eq!(got, 5);
        // The bytes written are appended, the room left over is padding.
        assert_eq!(b.len(), 96);
        let s = b.as_slice();
        assert_eq!(&s[..2], &[1, 2]);
        assert_eq!(&s[2..35], &[7; 33]);
        assert_eq!(s[35], 8);
        assert_eq!(&s[36..96], &[9; 60]);
        assert!(padding_zero(&b));
        // Errors and panics append nothing.
        let r: Result<()> = b.try_extend_appended(5000, |w| {
            w.put(&[0xEE; 64])?;
            Err(Error::InvalidRow)
        });
        assert_eq!(r, Err(Error::InvalidRow));
        assert_eq!(b.len(), 96);
        assert!(padding_zero(&b));
        let p = std::panic::catch_unwind(core::panic::AssertUnwindSafe(|| {
            let _ = b.try_extend_appended(9000, |w| -> Result<()> {
                w.put(&[0xEE; 64])?;
                panic!("half-way");
            });
        }));
        assert!(p.is_err());
        assert_eq!(b.len(), 96);
        assert!(padding_zero(&b));
        b.try_extend_zeros(9000).unwrap();
        assert!(b.as_slice()[96..].iter().all(|&x| x == 0));
        // From an empty buffer (a fresh `allocate`), nothing written.
        let mut e = MutableBuffer::new_in(Global);
        e.try_extend_appended(77, |_| Ok(())).unwrap();
        assert!(e.is_empty());
        assert!(padding_zero(&e));
        e.try_extend_appended(77, |w| w.put(&[3u8; 5])).unwrap();
        assert_eq!(e.as_slice(), &[3; 5]);
        assert!(padding_zero(&e));
    }

    #[test]
    fn put_slice_prefix_keeps_n_bytes() {
        let mut b = MutableBuffer::new_in(Global);
        b.try_extend_appended(20, |w| {
            w.put_slice_prefix(&[4u8; 7], 1)?;
            w.put_slice_prefix(&[5u8; 7], 7)?;
            w.put_slice_prefix(&[6u8; 7], 2)?;
            assert_eq!(w.pos(), 10);
            // `n` past the bytes, and bytes past the room: refused.
            assert_eq!(w.put_slice_prefix(&[9u8; 3], 4), Err(Error::OutOfBounds));
            assert_eq!(w.put_slice_prefix(&[9u8; 11], 1), Err(Error::OutOfBounds));
            w.put_slice_prefix(&[], 0)?;
            assert_eq!(w.pos(), 10);
            Ok(())
        })
        .unwrap();
        let mut want = std::vec![4u8];
        want.extend([5u8; 7]);
        want.extend([6u8; 2]);
        assert_eq!(b.as_slice(), &want[..]);
        assert!(padding_zero(&b));
    }

    #[test]
    fn put_chunks_prefix_keeps_n_bytes() {
        let mut b = MutableBuffer::new_in(Global);
        b.try_extend_appended(21, |w| {
            w.put_chunks_prefix(&[[1u8; 4], [2; 4]], 5)?;
            // The next write lands over the 3 bytes not kept.
            w.put_chunks_prefix(&[[3u8; 4]], 4)?;
            w.put_chunks_prefix(&[[4u8; 4], [5; 4], [6; 4]], 9)?;
            assert_eq!(w.pos(), 18);
            // `n` past the chunks, and chunks past the room: refused.
            assert_eq!(w.put_chunks_prefix(&[[9u8; 2]], 3), Err(Error::OutOfBounds));
            assert_eq!(w.put_chunks_prefix(&[[9u8; 4]], 1), Err(Error::OutOfBounds));
            w.put_chunks_prefix::<4>(&[], 0)?;
            assert_eq!(w.pos(), 18);
            Ok(())
        })
        .unwrap();
        let mut want = std::vec![1u8; 4];
        want.extend([2, 3, 3, 3, 3]);
        want.extend([4; 4]);
        want.extend([5; 4]);
        want.push(6);
        assert_eq!(b.as_slice(), &want[..]);
        assert!(padding_zero(&b));
    }

    #[test]
    fn put_prefix_keeps_n_bytes() {
        let mut b = MutableBuffer::new_in(Global);
        b.try_extend_appended(44, |w| {
            w.put_prefix(&[5u8; 8], 3)?;
            assert_eq!(w.pos(), 3);
            // The next write lands over the 5 bytes not kept.
            w.put_prefix(&[6u8; 8], 8)?;
            w.put_prefix(&[7u8; 32], 2)?;
            assert_eq!(w.pos(), 13);
            // `n > N`, and `N` bytes past the room: refused, nothing written.
            assert_eq!(w.put_prefix(&[9u8; 4], 5), Err(Error::OutOfBounds));
            assert_eq!(w.put_prefix(&[9u8; 32], 1), Err(Error::OutOfBounds));
            assert_eq!(w.pos(), 13);
            Ok(())
        })
        .unwrap();
        // Kept: 3 fives, 8 sixes, 2 sevens; the sevens not kept are padding
        // again (zero).
        let mut want = std::vec![5u8; 3];
        want.extend([6u8; 8]);
        want.extend([7u8; 2]);
        assert_eq!(b.as_slice(), &want[..]);
        assert!(padding_zero(&b));
    }

    /// Rewinding drops the bytes written since (they are overwritten or
    /// zeroed as padding); a position before the append or past the
    /// current one is refused.
    #[test]
    fn rewind_drops_written_bytes() {
        let mut b = MutableBuffer::new_in(Global);
        b.try_extend_from_slice(&[1, 2, 3]).unwrap();
        b.try_extend_appended(40, |w| {
            w.put(&[4u8; 4])?;
            let at = w.pos();
            w.put_prefix(&[5u8; 32], 9)?;
            assert_eq!(w.rewind(2), Err(Error::OutOfBounds));
            assert_eq!(w.rewind(w.pos() + 1), Err(Error::OutOfBounds));
            w.rewind(at)?;
            assert_eq!(w.pos(), 7);
            w.put(&[6u8; 2])?;
            let end = w.pos();
            w.put(&[7u8; 3])?;
            w.rewind(end)?;
            Ok(())
        })
        .unwrap();
        assert_eq!(b.as_slice(), &[1, 2, 3, 4, 4, 4, 4, 6, 6]);
        assert!(padding_zero(&b));
        // Back to the start of the append: nothing appended.
        b.try_extend_appended(8, |w| {
            w.put(&[8u8; 8])?;
            w.rewind(9)
        })
        .unwrap();
        assert_eq!(b.len(), 9);
        assert!(padding_zero(&b));
    }

    #[test]
    fn extend_filled_error_and_panic_roll_back() {
        let mut b = TryVec::<u8, _>::new_in(Global);
        b.try_extend_from_slice(&[4; 64]).unwrap();
        let r: Result<()> = b.try_extend_filled(1000, |f| {
            f.zeroed_to(600)?[64..].fill(0xEE);
            Err(Error::InvalidRow)
        });
        assert_eq!(r, Err(Error::InvalidRow));
        assert_eq!(b.as_slice(), &[4; 64]);
        let p = std::panic::catch_unwind(core::panic::AssertUnwindSafe(|| {
            let _ = b.try_extend_filled(5000, |f| -> Result<()> {
                f.zeroed_to(3000)?[64..].fill(0xEE);
                panic!("half-way");
            });
        }));
        assert!(p.is_err());
        assert_eq!(b.as_slice(), &[4; 64]);
        b.try_extend_zeros(5000).unwrap();
        assert!(b.as_slice()[64..].iter().all(|&x| x == 0));
        // From an empty buffer (a fresh `allocate`), nothing asked for.
        let mut e = TryVec::<u8, _>::new_in(Global);
        e.try_extend_filled(77, |_| Ok(())).unwrap();
        assert_eq!(e.as_slice(), &[0; 77]);
    }

    /// A byte vector's append keeps what was written, up to where the
    /// writer stopped; an error or a panic appends nothing.
    #[test]
    fn vec_extend_appended_keeps_written_bytes_only() {
        let mut v = TryVec::<u8, _>::new_in(Global);
        v.try_extend_from_slice(&[7, 7]).unwrap();
        let got = v
            .try_extend_appended(40, |w| {
                w.put(&[1u8, 2, 3])?;
                w.put_slice_prefix(&[4; 16], 2)?;
                Ok(w.pos())
            })
            .unwrap();
        assert_eq!(got, 7);
        assert_eq!(v.as_slice(), &[7, 7, 1, 2, 3, 4, 4]);
        let r: Result<()> = v.try_extend_appended(10, |w| {
            w.put(&[9u8; 8])?;
            w.put(&[9u8; 8])
        });
        assert_eq!(r, Err(Error::OutOfBounds));
        assert_eq!(v.as_slice(), &[7, 7, 1, 2, 3, 4, 4]);
        let p = std::panic::catch_unwind(core::panic::AssertUnwindSafe(|| {
            let _ = v.try_extend_appended(1000, |w| -> Result<()> {
                w.put(&[5u8; 8])?;
                panic!("half-way");
            });
        }));
        assert!(p.is_err());
        assert_eq!(v.as_slice(), &[7, 7, 1, 2, 3, 4, 4]);
        // From an empty vector (a fresh allocation).
        let mut e = TryVec::<u8, _>::new_in(Global);
        e.try_extend_appended(3, |w| w.put(&[1u8, 2, 3])).unwrap();
        assert_eq!(e.as_slice(), &[1, 2, 3]);
    }
}
