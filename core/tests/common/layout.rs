//! The harness of the layout property tests: a [`Layout`] (build from a
//! model, read a slot back, make another value) and the checks every layout
//! must pass.

use core::fmt::Debug;

use alkaid::array::{logical_eq, values_equal, Array, ArrayRef, ValidationLevel};
use alkaid::buffer::{Buffer, MutableBuffer, NullBuffer, NullBufferBuilder};
use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;

use super::{counting, TestAlloc};
use std::cell::RefCell;

pub type A = TestAlloc;
pub type R = ArrayRef<'static, A>;
pub type Model<M> = Vec<Option<M>>;

/// Up to 40 slots, a third of them null on average.
pub fn model<M: Debug>(item: impl Strategy<Value = M>) -> impl Strategy<Value = Model<M>> {
    vec(option::weighted(0.7, item), 0..40)
}

/// One layout under test: how to build it from a model, read a slot back
/// (`None` for a null or missing slot), and make a different valid value.
pub struct Layout<'f, M, T> {
    pub build: &'f dyn Fn(&[Option<M>]) -> T,
    pub read: &'f dyn Fn(&T, usize) -> Option<M>,
    pub other: &'f dyn Fn(Option<&M>) -> M,
    /// `true` for layouts without a bitmap (unions, run-end encoded): their
    /// `null_count` is 0 and nulls are logical only.
    pub logical_nulls: bool,
}

impl<M: Clone + PartialEq + Debug, T: Array<'static, A>> Layout<'_, M, T> {
    pub fn array_ref(&self, m: &[Option<M>]) -> R {
        (self.build)(m).into_array_ref()
    }

    /// Length, null count, every slot, out-of-range reads, validation and
    /// equality with the array built from `m`.
    pub fn check_view(&self, a: &T, m: &[Option<M>]) -> Result<(), TestCaseError> {
        prop_assert_eq!(a.len(), m.len());
        let nulls = m.iter().filter(|v| v.is_none()).count();
        prop_assert_eq!(a.null_count(), if self.logical_nulls { 0 } else { nulls });
        for (i, v) in m.iter().enumerate() {
            prop_assert_eq!(&(self.read)(a, i), v, "slot {}", i);
        }
        prop_assert_eq!((self.read)(a, m.len()), None);
        prop_assert_eq!(a.validate(ValidationLevel::Full), Ok(()));
        let built = self.array_ref(m);
        let r = a.clone().into_array_ref();
        let requests = requests_of_case();
        prop_assert!(r == built, "{:?}\n!=\n{:?}", r, built);
        prop_assert!(values_equal(&r, &built));
        prop_assert_eq!(requests_of_case(), requests, "equality allocated");
        Ok(())
    }

    /// The whole property for one model and five random numbers.
    pub fn check(&self, model: &[Option<M>], cuts: [usize; 5]) -> Result<(), TestCaseError> {
        let a = (self.build)(model);
        self.check_view(&a, model)?;
        let n = model.len();
        let (o1, l1) = cut(n, cuts[0], cuts[1]);
        let s1 = a.slice(o1, l1).map_err(fail)?;
        let m1 = &model[o1..o1 + l1];
        self.check_view(&s1, m1)?;
        prop_assert!(a.slice(o1, n - o1 + 1).is_err());
        let (o2, l2) = cut(l1, cuts[2], cuts[3]);
        self.check_view(&s1.slice(o2, l2).map_err(fail)?, &m1[o2..o2 + l2])?;
        if n == 0 {
            return Ok(());
        }
        let r = a.into_array_ref();
        let s1 = s1.into_array_ref();
        let i = cuts[4] % n;
        let mut changed = model.to_vec();
        // One value changed.
        if let Some(v) = &model[i] {
            let w = (self.other)(Some(v));
            if w != *v {
                changed[i] = Some(w);
                self.check_differs(&r, &s1, model, &changed, o1, l1, i)?;
            }
        }
        // One validity bit flipped.
        changed[i] = match &model[i] {
            Some(_) => None,
            None => Some((self.other)(None)),
        };
        self.check_differs(&r, &s1, model, &changed, o1, l1, i)
    }

    #[allow(clippy::too_many_arguments)]
    pub fn check_differs(
        &self,
        r: &R,
        s1: &R,
        model: &[Option<M>],
        changed: &[Option<M>],
        o1: usize,
        l1: usize,
        i: usize,
    ) -> Result<(), TestCaseError> {
        prop_assert_ne!(model, changed);
        let c = self.array_ref(changed);
        prop_assert!(
            !logical_eq(r, &c) && !logical_eq(&c, r),
            "{:?}\n==\n{:?}",
            r,
            c
        );
        prop_assert!(!values_equal(r, &c));
        if (o1..o1 + l1).contains(&i) {
            let cs = self.array_ref(&changed[o1..o1 + l1]);
            prop_assert!(*s1 != cs);
        }
        Ok(())
    }
}

/// A slice `(offset, len)` of `n` slots from two random numbers.
pub fn cut(n: usize, a: usize, b: usize) -> (usize, usize) {
    let o = a % (n + 1);
    (o, b % (n - o + 1))
}

pub fn fail(e: alkaid::Error) -> TestCaseError {
    TestCaseError::fail(format!("{e}"))
}

std::thread_local! {
    /// The allocator of the [`leak_checked`] case running on this thread:
    /// the arrays of a case are built with it.
    static CASE_ALLOC: RefCell<Option<A>> = const { RefCell::new(None) };
}

/// Allocation requests made so far through the allocator of the running
/// [`leak_checked`] case (to show that an operation allocates nothing).
///
/// # Panics
/// Outside [`leak_checked`].
pub fn requests_of_case() -> usize {
    CASE_ALLOC.with(|c| {
        c.borrow()
            .as_ref()
            .map(|a| a.requests())
            .expect("layout checks run inside `leak_checked`")
    })
}

/// Runs `f` with a fresh counting allocator; nothing may stay allocated.
pub fn leak_checked(f: impl FnOnce(&A) -> Result<(), TestCaseError>) -> Result<(), TestCaseError> {
    let alloc = counting();
    let outer = CASE_ALLOC.with(|c| c.replace(Some(alloc.clone())));
    let r = f(&alloc);
    CASE_ALLOC.with(|c| c.replace(outer));
    r?;
    prop_assert_eq!(alloc.inner().bytes_outstanding(), 0, "bytes outstanding");
    Ok(())
}

pub fn bitmap(valid: impl IntoIterator<Item = bool>, alloc: &A) -> Option<NullBuffer<'static, A>> {
    let mut b = NullBufferBuilder::new_in(alloc.clone());
    for v in valid {
        b.try_append(v).unwrap();
    }
    b.finish()
}

pub fn buffer(bytes: &[u8], alloc: &A) -> Buffer<'static, A> {
    let mut m = MutableBuffer::new_in(alloc.clone());
    m.try_extend_from_slice(bytes).unwrap();
    m.into_buffer()
}
