//! Arrow IPC: the encapsulated message format, the stream and file formats
//! ("Serialization and Interprocess Communication" of the columnar format).

pub mod compression;
pub mod flatbuf;
pub mod io;
pub mod message;
pub mod reader;
pub mod schema;
pub mod writer;

#[cfg(test)]
mod crosscheck_tests;
#[cfg(test)]
mod roundtrip_tests;

/// Byte order of the values in IPC bodies (the `Endianness` enum of Schema.fbs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(i16)]
pub enum Endianness {
    /// Little-endian (x86, ARM in the usual configuration).
    Little = 0,
    /// Big-endian (s390x, some PowerPC and MIPS).
    Big = 1,
}

impl Endianness {
    /// The endianness of the machine running this code.
    pub const NATIVE: Endianness = if cfg!(target_endian = "big") {
        Endianness::Big
    } else {
        Endianness::Little
    };
}
