//! `no_std` allocators for `alkaid` (filled by the targets issue).
#![no_std]
#![deny(missing_docs)]
