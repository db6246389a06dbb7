//! Arrow IPC: the encapsulated message format, the stream and file formats
//! ("Serialization and Interprocess Communication" of the columnar format).

pub mod compression;
pub mod flatbuf;
#[cfg(feature = "alloc")]
mod global;
pub mod io;
pub mod message;
pub mod reader;
pub mod schema;
pub mod writer;

#[cfg(test)]
mod crosscheck_tests;
#[cfg(test)]
pub(crate) mod roundtrip_tests;

/// Byte order of the values in IPC bodies (the `Endianness` enum of Schema.fbs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(i16)]
pub enum Endianness {
    /// Little-endian (x86, ARM in the usual configuration).
    Little = 0,
    /// Big-endian (s390x, some PowerPC and MIPS).
    Big = 1,
}

/// Checks that every layout `dt` uses (children and dictionary values
/// included) is built in: a type whose layout family is a disabled cargo
/// feature (`dictionary`, `nested`, `union`, `views`, `run-end`) cannot be
/// read or written.
///
/// # Errors
/// [`crate::Error::UnsupportedType`] for a disabled family;
/// [`crate::Error::LimitExceeded`] beyond 128 levels of nesting.
pub(crate) fn check_layouts<A: allocator_api2::alloc::Allocator>(
    dt: &crate::datatypes::DataType<'_, A>,
    depth: usize,
) -> crate::Result<()> {
    use crate::datatypes::DataType::*;
    use crate::Error;
    if depth > 128 {
        return Err(Error::LimitExceeded);
    }
    let next = depth + 1;
    match dt {
        BinaryView | Utf8View if !cfg!(feature = "views") => Err(Error::UnsupportedType),
        List(f)
        | LargeList(f)
        | ListView(f)
        | LargeListView(f)
        | FixedSizeList(f, _)
        | Map(f, _)
            if cfg!(feature = "nested") =>
        {
            check_layouts(f.data_type(), next)
        }
        Struct(fs) if cfg!(feature = "nested") => fs
            .iter()
            .try_for_each(|f| check_layouts(f.data_type(), next)),
        Union(u, _) if cfg!(feature = "union") => u
            .fields()
            .iter()
            .try_for_each(|f| check_layouts(f.data_type(), next)),
        Dictionary(_, v, _) if cfg!(feature = "dictionary") => check_layouts(v, next),
        RunEndEncoded(r, v) if cfg!(feature = "run-end") => {
            check_layouts(r.data_type(), next)?;
            check_layouts(v.data_type(), next)
        }
        List(_) | LargeList(_) | ListView(_) | LargeListView(_) | FixedSizeList(..) | Map(..)
        | Struct(_) | Union(..) | Dictionary(..) | RunEndEncoded(..) => Err(Error::UnsupportedType),
        _ => Ok(()),
    }
}

impl Endianness {
    /// The endianness of the machine running this code.
    pub const NATIVE: Endianness = if cfg!(target_endian = "big") {
        Endianness::Big
    } else {
        Endianness::Little
    };
}
