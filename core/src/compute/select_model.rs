//! The row format's plain value model (`row::test_model`: values `V`,
//! `build` an array of any type from them, `value_at` to read one back),
//! reused by the selection kernels' property tests, with the row property
//! tests' union types.

pub(super) use crate::row::proptests::with_validity;
#[cfg(feature = "union")]
pub(super) use crate::row::proptests::{union_ids, union_of, union_value};
pub(super) use crate::row::test_model::{build, field, float, value_at, Dt, G, V};
