//! `std` shim for `alkaid` (filled by the IPC issue).
#![deny(missing_docs)]

pub use alkaid;
