//! The row format's plain value model (`row::test_model`: values `V`,
//! `build` an array of any type from them, `value_at` to read one back)
//! and its property-test strategies (`row::test_strategies`: random types,
//! values and columns), reused by the selection and comparison kernels'
//! property tests.

pub(super) use crate::row::test_model::{field, value_at, Dt, G, V};
pub(super) use crate::row::test_strategies::{column, data_type, leaf_type, sliced, value};
