//! Flatbuffers encoding and decoding for the IPC metadata, without a heap.
//!
//! [`FlatBufferBuilder`] writes into a caller-sized scratch area;
//! [`Table`]/[`Vector`] read untrusted bytes with every access checked.

mod builder;
mod reader;

pub use builder::{FlatBufferBuilder, WIPOffset};
pub use reader::{Table, Vector};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Error;

    /// A table with every kind of field, read back.
    #[test]
    fn round_trip_table() {
        let mut scratch = [0u8; 512];
        let mut b = FlatBufferBuilder::new(&mut scratch);
        let name = b.create_string("col").unwrap();
        let v = b.create_vector_i64(&[1, -2, 3]).unwrap();
        b.start_table().unwrap();
        let child = {
            b.add_i32(0, 32, 0).unwrap();
            b.add_bool(1, true, false).unwrap();
            b.end_table().unwrap()
        };
        let kids = b.create_vector_of_offsets(&[child, child]).unwrap();
        b.start_table().unwrap();
        b.add_offset(0, name).unwrap();
        b.add_bool(1, true, false).unwrap();
        b.add_u8(2, 7, 0).unwrap();
        b.add_i16(3, -3, 0).unwrap();
        b.add_i64(4, 1 << 40, 0).unwrap();
        b.add_offset(5, v).unwrap();
        b.add_offset(6, kids).unwrap();
        b.add_i32(7, 5, 5).unwrap(); // default: omitted
        let root = b.end_table().unwrap();
        let out = b.finish(root).unwrap();
        assert_eq!(out.len() % 8, 0);

        let t = Table::root(out).unwrap();
        assert_eq!(t.get_str(0).unwrap(), Some("col"));
        assert!(t.get_bool(1, false).unwrap());
        assert_eq!(t.get_u8(2, 0).unwrap(), 7);
        assert_eq!(t.get_i16(3, 0).unwrap(), -3);
        assert_eq!(t.get_i64(4, 0).unwrap(), 1 << 40);
        let v = t.get_vector(5, 8).unwrap().unwrap();
        assert_eq!((v.len(), v.get_i64(1).unwrap()), (3, -2));
        let k = t.get_vector(6, 4).unwrap().unwrap();
        assert_eq!(k.len(), 2);
        assert_eq!(k.get_table(1).unwrap().get_i32(0, 0).unwrap(), 32);
        assert_eq!(t.get_i32(7, 5).unwrap(), 5);
        assert_eq!(t.get_i32(9, 11).unwrap(), 11);
        assert!(t.get_table(10).unwrap().is_none());
    }

    /// Misaligned offsets and vtables are refused, as the flatbuffers
    /// verifier refuses them (found by `tests/differential_pyarrow.rs`: a
    /// field name's offset moved by a flipped byte onto an unaligned spot
    /// was read as another string, where pyarrow rejects the message).
    #[test]
    fn misaligned_offsets_are_an_error() {
        let mut scratch = [0u8; 256];
        let mut b = FlatBufferBuilder::new(&mut scratch);
        // Bytes 2.. of the string hold a well-formed string "xy" (length 2,
        // then the terminating NUL), at a spot that is not 4-aligned.
        let name = b.create_string("ab\u{2}\0\0\0xy").unwrap();
        b.start_table().unwrap();
        b.add_offset(0, name).unwrap();
        b.add_i64(1, 7, 0).unwrap();
        let root = b.end_table().unwrap();
        let good = b.finish(root).unwrap().to_vec();
        let t = Table::root(&good).unwrap();
        assert_eq!(t.get_str(0).unwrap(), Some("ab\u{2}\0\0\0xy"));
        assert_eq!(t.get_i64(1, 0).unwrap(), 7);
        let u32_at = |b: &[u8], at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
        let pos = u32_at(&good, 0) as usize;
        let vtable = (pos as i64 - i64::from(u32_at(&good, pos) as i32)) as usize;
        let name_at = pos + u16::from_le_bytes([good[vtable + 4], good[vtable + 5]]) as usize;
        let bump = |at: usize, by: u32| {
            let mut bad = good.clone();
            let v = u32_at(&bad, at).wrapping_add(by);
            bad[at..at + 4].copy_from_slice(&v.to_le_bytes());
            bad
        };
        // The string's offset moved by 6 bytes: onto "xy", not 4-aligned.
        let bad = bump(name_at, 6);
        let t = Table::root(&bad).unwrap();
        assert_eq!(t.get_str(0), Err(Error::InvalidFlatbuffer));
        // The root offset moved by 2, the vtable's offset by 1.
        assert!(Table::root(&bump(0, 2)).is_err());
        assert!(Table::root(&bump(pos, 1)).is_err());
    }

    /// Issue #14: the flatbuffers format ends every string with a NUL byte
    /// (Arrow C++'s verifier refuses a string without it); a string whose
    /// terminator was overwritten, or that ends at the end of the buffer,
    /// is refused with a distinct error.
    #[test]
    fn a_string_without_its_nul_terminator_is_refused() {
        let mut scratch = [0u8; 256];
        let mut b = FlatBufferBuilder::new(&mut scratch);
        let name = b.create_string("col").unwrap();
        b.start_table().unwrap();
        b.add_offset(0, name).unwrap();
        let root = b.end_table().unwrap();
        let good: std::vec::Vec<u8> = b.finish(root).unwrap().to_vec();
        assert_eq!(Table::root(&good).unwrap().get_str(0), Ok(Some("col")));
        let nul = good.windows(4).position(|w| w == b"col\0").unwrap() + 3;
        for x in [b' ', b'x', 0xFF] {
            let mut bad = good.clone();
            bad[nul] = x;
            assert_eq!(
                Table::root(&bad).unwrap().get_str(0),
                Err(Error::FlatbufferStringNotTerminated),
                "terminator {x:#x}"
            );
        }
        // The string's last byte is the buffer's last byte: no room for the NUL.
        let cut = &good[..nul];
        if let Ok(t) = Table::root(cut) {
            assert_eq!(t.get_str(0), Err(Error::FlatbufferStringNotTerminated));
        }
    }

    #[test]
    fn scratch_too_small_is_an_error() {
        let mut scratch = [0u8; 16];
        let mut b = FlatBufferBuilder::new(&mut scratch);
        assert_eq!(
            b.create_string("a string longer than sixteen bytes"),
            Err(Error::ScratchTooSmall)
        );
    }

    /// Every truncation and every single-byte corruption of a valid buffer
    /// reads as an error or as some value, never a panic.
    #[test]
    fn hostile_bytes_never_panic() {
        let mut scratch = [0u8; 256];
        let mut b = FlatBufferBuilder::new(&mut scratch);
        let name = b.create_string("x").unwrap();
        let v = b.create_vector_i32(&[1, 2]).unwrap();
        b.start_table().unwrap();
        b.add_offset(0, name).unwrap();
        b.add_offset(1, v).unwrap();
        let root = b.end_table().unwrap();
        let good: std::vec::Vec<u8> = b.finish(root).unwrap().to_vec();
        let probe = |buf: &[u8]| {
            if let Ok(t) = Table::root(buf) {
                let _ = t.get_str(0);
                if let Ok(Some(v)) = t.get_vector(1, 4) {
                    for i in 0..v.len().min(4) {
                        let _ = v.get_i32(i);
                    }
                }
                let _ = t.get_table(0);
            }
        };
        for n in 0..good.len() {
            probe(&good[..n]);
        }
        for i in 0..good.len() {
            for x in [0u8, 1, 0x7F, 0x80, 0xFF] {
                let mut bad = good.clone();
                bad[i] = x;
                probe(&bad);
            }
        }
        assert!(Table::root(&[]).is_err());
        assert!(Table::root(&[0xFF, 0xFF, 0xFF, 0x7F]).is_err());
    }
}
