//! What the integration tests share: the core's test support (one failing
//! and counting allocator over `alkaid-alloc`'s `FailAt` and `Counting`,
//! and `check_every_failure`), the same file the unit tests use; and
//! ([`layout`]) the harness of the layout property tests.

#![allow(dead_code)]

pub mod layout;
#[path = "../../src/test_support.rs"]
mod test_support;

pub(crate) use test_support::*;
