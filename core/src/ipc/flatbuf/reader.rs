//! A verifying, allocation-free flatbuffers reader for untrusted metadata.
//!
//! Every access is bounds-checked against the buffer: a table's vtable must
//! lie inside the buffer, a present field must lie inside the buffer,
//! offsets must point inside the buffer, vectors and strings must fit, strings
//! must be UTF-8 and NUL-terminated. As in the flatbuffers verifiers (C++ and
//! Rust), fields are checked one by one where they are read: the table size
//! a vtable declares is not checked, so a table whose declared size runs past
//! the buffer is read when every field it holds is in bounds (as pyarrow and
//! arrow-rs read it). Alignment is checked as the flatbuffers
//! verifier does (relative to the buffer's start): an offset's target (a
//! table, vector or string) is 4-aligned, a vtable 2-aligned, a scalar field
//! aligned to its size. Failures are [`Error::InvalidFlatbuffer`] (a missing
//! terminator: [`Error::FlatbufferStringNotTerminated`]); nothing panics and
//! nothing allocates. (The generated reader of `alkaid-fbs` is used in tests
//! to cross-check this one.)

use crate::error::{Error, Result};

const BAD: Error = Error::InvalidFlatbuffer;

#[inline]
fn read_array<const N: usize>(buf: &[u8], at: usize) -> Result<[u8; N]> {
    let end = at.checked_add(N).ok_or(BAD)?;
    let s = buf.get(at..end).ok_or(BAD)?;
    let mut a = [0u8; N];
    a.copy_from_slice(s);
    Ok(a)
}

#[inline]
pub(crate) fn read_u32(buf: &[u8], at: usize) -> Result<u32> {
    read_array::<4>(buf, at).map(u32::from_le_bytes)
}

/// Follows the `u32` forward offset stored at `at`.
#[inline]
fn follow(buf: &[u8], at: usize) -> Result<usize> {
    let off = read_u32(buf, at)? as usize;
    let target = at.checked_add(off).ok_or(BAD)?;
    // Tables start with an `i32`, vectors and strings with a `u32` length.
    if target >= buf.len() || target % 4 != 0 {
        return Err(BAD);
    }
    Ok(target)
}

/// A table inside a flatbuffer, with its vtable checked.
#[derive(Debug, Clone, Copy)]
pub struct Table<'b> {
    buf: &'b [u8],
    pos: usize,
    vtable: usize,
    vt_size: usize,
}

impl<'b> Table<'b> {
    /// The root table of a finished flatbuffer.
    ///
    /// # Errors
    /// [`Error::InvalidFlatbuffer`].
    pub fn root(buf: &'b [u8]) -> Result<Self> {
        let pos = follow(buf, 0)?;
        Self::at(buf, pos)
    }

    /// The table at byte `pos`.
    ///
    /// # Errors
    /// [`Error::InvalidFlatbuffer`] when its vtable is outside `buf` or
    /// misaligned (its size odd), or the table's offset is misaligned.
    pub fn at(buf: &'b [u8], pos: usize) -> Result<Self> {
        if pos % 4 != 0 {
            return Err(BAD);
        }
        let soff = i32::from_le_bytes(read_array::<4>(buf, pos)?);
        let vtable = (pos as i64)
            .checked_sub(soff as i64)
            .filter(|v| *v >= 0 && *v % 2 == 0)
            .ok_or(BAD)? as usize;
        let vt_size = u16::from_le_bytes(read_array::<2>(buf, vtable)?) as usize;
        // A vtable shorter than its 4-byte header holds no field entry.
        if vt_size % 2 != 0 || vtable.checked_add(vt_size).is_none_or(|e| e > buf.len()) {
            return Err(BAD);
        }
        Ok(Table {
            buf,
            pos,
            vtable,
            vt_size,
        })
    }

    /// Byte position of field `slot` of `size` bytes, or `None` when absent.
    fn field(&self, slot: u16, size: usize) -> Result<Option<usize>> {
        let entry = 4 + 2 * slot as usize;
        if entry + 2 > self.vt_size {
            return Ok(None);
        }
        let off = u16::from_le_bytes(read_array::<2>(self.buf, self.vtable + entry)?) as usize;
        if off == 0 {
            return Ok(None);
        }
        let at = self.pos + off;
        if at.checked_add(size).is_none_or(|e| e > self.buf.len()) {
            return Err(BAD);
        }
        // Scalars (1, 2, 4 or 8 bytes) and offsets (4) are aligned to their size.
        if at % size.clamp(1, 8) != 0 {
            return Err(BAD);
        }
        Ok(Some(at))
    }

    /// A `bool` field, or `default` when absent.
    ///
    /// # Errors
    /// [`Error::InvalidFlatbuffer`].
    pub fn get_bool(&self, slot: u16, default: bool) -> Result<bool> {
        Ok(match self.field(slot, 1)? {
            Some(p) => read_array::<1>(self.buf, p)?[0] != 0,
            None => default,
        })
    }

    /// A `u8` field, or `default` when absent.
    ///
    /// # Errors
    /// [`Error::InvalidFlatbuffer`].
    pub fn get_u8(&self, slot: u16, default: u8) -> Result<u8> {
        Ok(match self.field(slot, 1)? {
            Some(p) => read_array::<1>(self.buf, p)?[0],
            None => default,
        })
    }

    /// An `i16` field, or `default` when absent.
    ///
    /// # Errors
    /// [`Error::InvalidFlatbuffer`].
    pub fn get_i16(&self, slot: u16, default: i16) -> Result<i16> {
        Ok(match self.field(slot, 2)? {
            Some(p) => i16::from_le_bytes(read_array(self.buf, p)?),
            None => default,
        })
    }

    /// An `i32` field, or `default` when absent.
    ///
    /// # Errors
    /// [`Error::InvalidFlatbuffer`].
    pub fn get_i32(&self, slot: u16, default: i32) -> Result<i32> {
        Ok(match self.field(slot, 4)? {
            Some(p) => i32::from_le_bytes(read_array(self.buf, p)?),
            None => default,
        })
    }

    /// An `i64` field, or `default` when absent.
    ///
    /// # Errors
    /// [`Error::InvalidFlatbuffer`].
    pub fn get_i64(&self, slot: u16, default: i64) -> Result<i64> {
        Ok(match self.field(slot, 8)? {
            Some(p) => i64::from_le_bytes(read_array(self.buf, p)?),
            None => default,
        })
    }

    /// A sub-table field.
    ///
    /// # Errors
    /// [`Error::InvalidFlatbuffer`].
    pub fn get_table(&self, slot: u16) -> Result<Option<Table<'b>>> {
        match self.field(slot, 4)? {
            Some(p) => Ok(Some(Table::at(self.buf, follow(self.buf, p)?)?)),
            None => Ok(None),
        }
    }

    /// A string field (checked UTF-8, and followed by the NUL byte the
    /// flatbuffers format requires after every string).
    ///
    /// # Errors
    /// [`Error::InvalidFlatbuffer`]; [`Error::FlatbufferStringNotTerminated`]
    /// when the byte after the string is missing or not zero.
    pub fn get_str(&self, slot: u16) -> Result<Option<&'b str>> {
        match self.field(slot, 4)? {
            Some(p) => {
                let start = follow(self.buf, p)?;
                let bytes = vector_bytes(self.buf, start, 1)?.1;
                // The vector's bytes end at `start + 4 + len` (checked).
                let nul = start + 4 + bytes.len();
                if self.buf.get(nul) != Some(&0) {
                    return Err(Error::FlatbufferStringNotTerminated);
                }
                Ok(Some(core::str::from_utf8(bytes).map_err(|_| BAD)?))
            }
            None => Ok(None),
        }
    }

    /// A vector field of elements of `elem_size` bytes.
    ///
    /// # Errors
    /// [`Error::InvalidFlatbuffer`].
    pub fn get_vector(&self, slot: u16, elem_size: usize) -> Result<Option<Vector<'b>>> {
        match self.field(slot, 4)? {
            Some(p) => {
                let start = follow(self.buf, p)?;
                let (len, bytes) = vector_bytes(self.buf, start, elem_size)?;
                Ok(Some(Vector {
                    buf: self.buf,
                    data: start + 4,
                    len,
                    elem_size,
                    bytes_len: bytes.len(),
                }))
            }
            None => Ok(None),
        }
    }
}

/// Element count and bytes of the vector starting at `start`.
fn vector_bytes(buf: &[u8], start: usize, elem_size: usize) -> Result<(usize, &[u8])> {
    let len = read_u32(buf, start)? as usize;
    let n = len.checked_mul(elem_size).ok_or(BAD)?;
    let data = start.checked_add(4).ok_or(BAD)?;
    let end = data.checked_add(n).ok_or(BAD)?;
    Ok((len, buf.get(data..end).ok_or(BAD)?))
}

/// A vector inside a flatbuffer whose extent has been checked.
#[derive(Debug, Clone, Copy)]
pub struct Vector<'b> {
    buf: &'b [u8],
    data: usize,
    len: usize,
    elem_size: usize,
    bytes_len: usize,
}

impl<'b> Vector<'b> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// `true` when empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The raw bytes of the elements (structs and scalars, little-endian).
    pub fn bytes(&self) -> &'b [u8] {
        self.buf
            .get(self.data..self.data + self.bytes_len)
            .unwrap_or(&[])
    }

    /// The bytes of element `i`.
    ///
    /// # Errors
    /// [`Error::InvalidFlatbuffer`] when `i >= len`.
    pub fn element(&self, i: usize) -> Result<&'b [u8]> {
        if i >= self.len {
            return Err(BAD);
        }
        let at = self.data + i * self.elem_size;
        self.buf.get(at..at + self.elem_size).ok_or(BAD)
    }

    /// Element `i` of a vector of `i64`.
    ///
    /// # Errors
    /// [`Error::InvalidFlatbuffer`].
    pub fn get_i64(&self, i: usize) -> Result<i64> {
        let mut a = [0u8; 8];
        a.copy_from_slice(self.element(i)?.get(..8).ok_or(BAD)?);
        Ok(i64::from_le_bytes(a))
    }

    /// Element `i` of a vector of `i32`.
    ///
    /// # Errors
    /// [`Error::InvalidFlatbuffer`].
    pub fn get_i32(&self, i: usize) -> Result<i32> {
        let mut a = [0u8; 4];
        a.copy_from_slice(self.element(i)?.get(..4).ok_or(BAD)?);
        Ok(i32::from_le_bytes(a))
    }

    /// Element `i` of a vector of tables.
    ///
    /// # Errors
    /// [`Error::InvalidFlatbuffer`].
    pub fn get_table(&self, i: usize) -> Result<Table<'b>> {
        if i >= self.len {
            return Err(BAD);
        }
        let at = self.data + i * 4;
        Table::at(self.buf, follow(self.buf, at)?)
    }
}
