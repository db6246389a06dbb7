//! [`Columns`]: per-column state (a converter's nodes, an encode's
//! encoders), one column held inline and more in a [`TryVec`].
//!
//! Most converters have one column. Holding it inline saves an allocation
//! and its free on every new converter and every encode: on short batches
//! (ten lists) those were a tenth of the call.

use core::ops::Deref;

use allocator_api2::alloc::Allocator;

use crate::buffer::TryVec;
use crate::error::Result;

/// `T` for each column: one inline, or any number in a [`TryVec`] from `A`.
pub(crate) enum Columns<T, A: Allocator> {
    /// Exactly one column, inline.
    One(T),
    /// Any other number of columns.
    Many(TryVec<T, A>),
}

impl<T, A: Allocator> Columns<T, A> {
    /// `len` columns, column `i` made by `f(i)` in order; no allocation for
    /// one column.
    ///
    /// # Errors
    /// The first error of `f`; [`crate::Error::AllocationFailed`];
    /// [`crate::Error::CapacityOverflow`].
    pub(crate) fn try_from_fn_in<F>(len: usize, alloc: A, mut f: F) -> Result<Self>
    where
        F: FnMut(usize) -> Result<T>,
    {
        if len == 1 {
            return Ok(Columns::One(f(0)?));
        }
        Ok(Columns::Many(TryVec::try_from_fn_in(len, alloc, f)?))
    }
}

impl<T, A: Allocator> Deref for Columns<T, A> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        match self {
            Columns::One(t) => core::slice::from_ref(t),
            Columns::Many(v) => v,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;
    use crate::Global;

    #[test]
    fn one_column_inline_others_in_a_vector() {
        let one = Columns::try_from_fn_in(1, Global, |i| Ok(i + 7)).unwrap();
        assert!(matches!(one, Columns::One(7)));
        assert_eq!(&one[..], [7]);
        for n in [0, 2, 5] {
            let many = Columns::try_from_fn_in(n, Global, |i| Ok(i * 2)).unwrap();
            assert!(matches!(many, Columns::Many(_)));
            assert_eq!(many.len(), n);
            assert!(many.iter().enumerate().all(|(i, &v)| v == i * 2));
        }
    }

    #[test]
    fn errors_of_the_maker_are_returned() {
        for n in [1, 3] {
            let r = Columns::<usize, _>::try_from_fn_in(n, Global, |i| {
                if i + 1 == n {
                    Err(Error::InvalidRow)
                } else {
                    Ok(i)
                }
            });
            assert_eq!(r.err(), Some(Error::InvalidRow));
        }
    }
}
