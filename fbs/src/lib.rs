//! Arrow IPC flatbuffers metadata (filled by the IPC issue).
#![no_std]
#![deny(missing_docs)]
