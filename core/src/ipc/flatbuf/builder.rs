//! A fallible flatbuffers encoder that writes into a caller-sized scratch area.
//!
//! The `flatbuffers` crate's `FlatBufferBuilder` grows `alloc::vec::Vec`s on
//! the global heap and panics when growth fails, so it cannot serve a firmware
//! without a global allocator. This encoder implements the subset of the
//! flatbuffers binary format the Arrow IPC metadata needs (tables with scalar,
//! struct and offset fields, strings, vectors of scalars, structs and
//! offsets), building back to front in a `&mut [u8]` exactly as flatbuffers
//! does, and reports [`Error::ScratchTooSmall`] when the scratch is full; the
//! IPC writer then retries with a larger scratch from its allocator.
//!
//! Wire format (flatbuffers "internals"): little-endian; a buffer starts with
//! a `u32` offset to the root table; a table starts with an `i32` distance
//! back to its vtable; a vtable holds `u16` vtable size, `u16` table size and
//! one `u16` offset per field slot (0 = absent); offset fields hold a `u32`
//! distance forward from the field to the target; vectors and strings start
//! with a `u32` element count, strings end with a NUL byte.

use crate::error::{Error, Result};

/// Maximum number of field slots of one table (the Arrow schema's widest
/// table, `Field`, has 7).
const MAX_SLOTS: usize = 16;

/// Position of an object already written: its distance in bytes from the end
/// of the buffer (so it stays valid while more is prepended).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WIPOffset(u32);

/// Back-to-front flatbuffers builder over a scratch slice.
#[derive(Debug)]
pub struct FlatBufferBuilder<'s> {
    buf: &'s mut [u8],
    /// Index of the first written byte; data occupies `buf[head..]`.
    head: usize,
    /// Largest alignment required so far (the finished buffer's alignment).
    min_align: usize,
    /// Position of each field slot of the table being built (0 = absent:
    /// a field's position is at least its size).
    slots: [u32; MAX_SLOTS],
    /// One past the highest slot set.
    num_slots: usize,
    table_start: Option<u32>,
    vector_len: Option<usize>,
    /// Bytes used at the front of the scratch by the pending-offsets stack.
    stack_top: usize,
}

impl<'s> FlatBufferBuilder<'s> {
    /// A builder writing into `scratch` (nothing is allocated).
    pub fn new(scratch: &'s mut [u8]) -> Self {
        let head = scratch.len();
        FlatBufferBuilder {
            buf: scratch,
            head,
            min_align: 1,
            slots: [0; MAX_SLOTS],
            num_slots: 0,
            table_start: None,
            vector_len: None,
            stack_top: 0,
        }
    }

    /// Bytes written so far.
    #[inline]
    fn used(&self) -> usize {
        self.buf.len() - self.head
    }

    #[inline]
    fn pos(&self) -> Result<u32> {
        u32::try_from(self.used()).map_err(|_| Error::ScratchTooSmall)
    }

    /// Prepends `bytes`.
    fn push(&mut self, bytes: &[u8]) -> Result<()> {
        let n = bytes.len();
        if n > self.head - self.stack_top {
            return Err(Error::ScratchTooSmall);
        }
        self.head -= n;
        self.buf[self.head..self.head + n].copy_from_slice(bytes);
        Ok(())
    }

    fn pad(&mut self, n: usize) -> Result<()> {
        if n > self.head - self.stack_top {
            return Err(Error::ScratchTooSmall);
        }
        self.head -= n;
        self.buf[self.head..self.head + n].fill(0);
        Ok(())
    }

    /// Pads so that after `additional` more bytes the position is a multiple of
    /// `align` (a power of two no larger than 8).
    fn prep(&mut self, align: usize, additional: usize) -> Result<()> {
        if align > self.min_align {
            self.min_align = align;
        }
        let end = self
            .used()
            .checked_add(additional)
            .ok_or(Error::ScratchTooSmall)?;
        let pad = (align - end % align) % align;
        self.pad(pad)
    }

    fn push_u32(&mut self, v: u32) -> Result<()> {
        self.prep(4, 4)?;
        self.push(&v.to_le_bytes())
    }

    /// The uoffset value a field written next (4 bytes, 4-aligned) must hold to
    /// refer to `target`.
    fn refer_to(&mut self, target: WIPOffset) -> Result<u32> {
        self.prep(4, 4)?;
        let here = self.pos()? + 4;
        here.checked_sub(target.0).ok_or(Error::InvalidBuilderState)
    }

    /// Writes a string (UTF-8 bytes, NUL terminator, `u32` length prefix).
    ///
    /// # Errors
    /// [`Error::ScratchTooSmall`].
    pub fn create_string(&mut self, s: &str) -> Result<WIPOffset> {
        self.create_byte_string(s.as_bytes())
    }

    /// Writes a byte string like [`Self::create_string`].
    ///
    /// # Errors
    /// [`Error::ScratchTooSmall`].
    pub fn create_byte_string(&mut self, s: &[u8]) -> Result<WIPOffset> {
        self.prep(4, s.len() + 1)?;
        self.push(&[0])?;
        self.push(s)?;
        let n = u32::try_from(s.len()).map_err(|_| Error::ScratchTooSmall)?;
        self.push(&n.to_le_bytes())?;
        Ok(WIPOffset(self.pos()?))
    }

    /// Writes the concatenation of `head` and `tail` as one string, the same
    /// bytes as [`Self::create_byte_string`] of both parts, without copying
    /// them together first.
    ///
    /// # Errors
    /// [`Error::ScratchTooSmall`].
    pub fn create_string_parts(&mut self, head: &[u8], tail: &[u8]) -> Result<WIPOffset> {
        let len = head.len() + tail.len();
        self.prep(4, len + 1)?;
        self.push(&[0])?;
        self.push(tail)?;
        self.push(head)?;
        let n = u32::try_from(len).map_err(|_| Error::ScratchTooSmall)?;
        self.push(&n.to_le_bytes())?;
        Ok(WIPOffset(self.pos()?))
    }

    /// Starts a vector of `len` elements of `elem_size` bytes aligned to
    /// `align`; push the elements last-to-first with [`Self::push_element`]
    /// (or [`Self::push_offset_element`]), then call [`Self::end_vector`].
    ///
    /// # Errors
    /// [`Error::ScratchTooSmall`].
    pub fn start_vector(&mut self, len: usize, elem_size: usize, align: usize) -> Result<()> {
        let bytes = len.checked_mul(elem_size).ok_or(Error::ScratchTooSmall)?;
        self.prep(4, bytes)?;
        self.prep(align.max(1), bytes)?;
        self.vector_len = Some(len);
        Ok(())
    }

    /// Prepends one element's bytes (structs and scalars, little-endian).
    ///
    /// # Errors
    /// [`Error::ScratchTooSmall`].
    pub fn push_element(&mut self, bytes: &[u8]) -> Result<()> {
        self.push(bytes)
    }

    /// Prepends one offset element referring to `target`.
    ///
    /// # Errors
    /// [`Error::ScratchTooSmall`], [`Error::InvalidBuilderState`].
    pub fn push_offset_element(&mut self, target: WIPOffset) -> Result<()> {
        let v = self.refer_to(target)?;
        self.push(&v.to_le_bytes())
    }

    /// Finishes a vector started with [`Self::start_vector`].
    ///
    /// # Errors
    /// [`Error::InvalidBuilderState`] without a started vector.
    pub fn end_vector(&mut self) -> Result<WIPOffset> {
        let len = self.vector_len.take().ok_or(Error::InvalidBuilderState)?;
        let n = u32::try_from(len).map_err(|_| Error::ScratchTooSmall)?;
        self.push_u32(n)?;
        Ok(WIPOffset(self.pos()?))
    }

    /// Writes a vector of offsets (to tables or strings), in order.
    ///
    /// # Errors
    /// [`Error::ScratchTooSmall`].
    pub fn create_vector_of_offsets(&mut self, items: &[WIPOffset]) -> Result<WIPOffset> {
        self.start_vector(items.len(), 4, 4)?;
        for &o in items.iter().rev() {
            self.push_offset_element(o)?;
        }
        self.end_vector()
    }

    /// Remembers `off` on the pending-offsets stack, kept at the front of the
    /// scratch (so vectors of child tables need no heap); see
    /// [`Self::create_vector_of_pending`].
    ///
    /// # Errors
    /// [`Error::ScratchTooSmall`].
    pub fn push_pending(&mut self, off: WIPOffset) -> Result<()> {
        if self.head - self.stack_top < 4 {
            return Err(Error::ScratchTooSmall);
        }
        self.buf[self.stack_top..self.stack_top + 4].copy_from_slice(&off.0.to_le_bytes());
        self.stack_top += 4;
        Ok(())
    }

    /// Number of offsets on the pending stack (a mark for
    /// [`Self::create_vector_of_pending`]).
    pub fn pending_mark(&self) -> usize {
        self.stack_top / 4
    }

    /// Writes a vector of the offsets pushed since `mark` (in push order) and
    /// pops them.
    ///
    /// # Errors
    /// [`Error::ScratchTooSmall`]; [`Error::InvalidBuilderState`] for a bad mark.
    pub fn create_vector_of_pending(&mut self, mark: usize) -> Result<WIPOffset> {
        let count = self.pending_mark();
        if mark > count {
            return Err(Error::InvalidBuilderState);
        }
        self.start_vector(count - mark, 4, 4)?;
        for i in (mark..count).rev() {
            let mut w = [0u8; 4];
            w.copy_from_slice(&self.buf[i * 4..i * 4 + 4]);
            self.push_offset_element(WIPOffset(u32::from_le_bytes(w)))?;
        }
        self.stack_top = mark * 4;
        self.end_vector()
    }

    /// Writes a vector of `i64`s.
    ///
    /// # Errors
    /// [`Error::ScratchTooSmall`].
    pub fn create_vector_i64(&mut self, items: &[i64]) -> Result<WIPOffset> {
        self.start_vector(items.len(), 8, 8)?;
        for v in items.iter().rev() {
            self.push(&v.to_le_bytes())?;
        }
        self.end_vector()
    }

    /// Writes a vector of `i32`s.
    ///
    /// # Errors
    /// [`Error::ScratchTooSmall`].
    pub fn create_vector_i32(&mut self, items: &[i32]) -> Result<WIPOffset> {
        self.start_vector(items.len(), 4, 4)?;
        for v in items.iter().rev() {
            self.push(&v.to_le_bytes())?;
        }
        self.end_vector()
    }

    /// Starts a table; add fields, then [`Self::end_table`].
    ///
    /// # Errors
    /// [`Error::InvalidBuilderState`] when a table is already open.
    pub fn start_table(&mut self) -> Result<()> {
        if self.table_start.is_some() {
            return Err(Error::InvalidBuilderState);
        }
        self.table_start = Some(self.pos()?);
        self.slots = [0; MAX_SLOTS];
        self.num_slots = 0;
        Ok(())
    }

    fn track(&mut self, slot: u16) -> Result<()> {
        let p = self.pos()?;
        let s = usize::from(slot);
        match self.slots.get_mut(s) {
            Some(at) if self.table_start.is_some() => *at = p,
            _ => return Err(Error::InvalidBuilderState),
        }
        self.num_slots = self.num_slots.max(s + 1);
        Ok(())
    }

    fn add_scalar_bytes(&mut self, slot: u16, bytes: &[u8]) -> Result<()> {
        self.prep(bytes.len(), bytes.len())?;
        self.push(bytes)?;
        self.track(slot)
    }

    /// Adds a `bool` field unless it equals `default`.
    ///
    /// # Errors
    /// [`Error::ScratchTooSmall`], [`Error::InvalidBuilderState`].
    pub fn add_bool(&mut self, slot: u16, v: bool, default: bool) -> Result<()> {
        if v == default {
            return Ok(());
        }
        self.add_scalar_bytes(slot, &[v as u8])
    }

    /// Adds a `u8`/`i8`-sized field unless it equals `default`.
    ///
    /// # Errors
    /// [`Error::ScratchTooSmall`], [`Error::InvalidBuilderState`].
    pub fn add_u8(&mut self, slot: u16, v: u8, default: u8) -> Result<()> {
        if v == default {
            return Ok(());
        }
        self.add_scalar_bytes(slot, &[v])
    }

    /// Adds an `i16` field unless it equals `default`.
    ///
    /// # Errors
    /// [`Error::ScratchTooSmall`], [`Error::InvalidBuilderState`].
    pub fn add_i16(&mut self, slot: u16, v: i16, default: i16) -> Result<()> {
        if v == default {
            return Ok(());
        }
        self.add_scalar_bytes(slot, &v.to_le_bytes())
    }

    /// Adds an `i32` field unless it equals `default`.
    ///
    /// # Errors
    /// [`Error::ScratchTooSmall`], [`Error::InvalidBuilderState`].
    pub fn add_i32(&mut self, slot: u16, v: i32, default: i32) -> Result<()> {
        if v == default {
            return Ok(());
        }
        self.add_scalar_bytes(slot, &v.to_le_bytes())
    }

    /// Adds an `i64` field unless it equals `default`.
    ///
    /// # Errors
    /// [`Error::ScratchTooSmall`], [`Error::InvalidBuilderState`].
    pub fn add_i64(&mut self, slot: u16, v: i64, default: i64) -> Result<()> {
        if v == default {
            return Ok(());
        }
        self.add_scalar_bytes(slot, &v.to_le_bytes())
    }

    /// Adds an offset field (table, string or vector).
    ///
    /// # Errors
    /// [`Error::ScratchTooSmall`], [`Error::InvalidBuilderState`].
    pub fn add_offset(&mut self, slot: u16, target: WIPOffset) -> Result<()> {
        let v = self.refer_to(target)?;
        self.push(&v.to_le_bytes())?;
        self.track(slot)
    }

    /// Finishes the open table, writing its vtable.
    ///
    /// # Errors
    /// [`Error::InvalidBuilderState`] without an open table;
    /// [`Error::ScratchTooSmall`].
    pub fn end_table(&mut self) -> Result<WIPOffset> {
        let start = self.table_start.take().ok_or(Error::InvalidBuilderState)?;
        // Placeholder for the soffset to the vtable.
        self.push_u32(0)?;
        let object = self.pos()?;
        let num_slots = self.num_slots;
        let table_size = u16::try_from(object - start).map_err(|_| Error::ScratchTooSmall)?;
        let vt_size = u16::try_from(4 + 2 * num_slots).map_err(|_| Error::ScratchTooSmall)?;
        // The vtable: u16 entries, written last slot first (back to front).
        for slot in (0..num_slots).rev() {
            let p = self.slots.get(slot).copied().unwrap_or(0);
            let off = if p == 0 { 0 } else { object - p };
            let off = u16::try_from(off).map_err(|_| Error::ScratchTooSmall)?;
            self.push(&off.to_le_bytes())?;
        }
        self.push(&table_size.to_le_bytes())?;
        self.push(&vt_size.to_le_bytes())?;
        let vtable = self.pos()?;
        // soffset = table address - vtable address = vtable pos - object pos.
        let soff = (vtable - object) as i32;
        let at = self.buf.len() - object as usize;
        self.buf[at..at + 4].copy_from_slice(&soff.to_le_bytes());
        self.num_slots = 0;
        Ok(WIPOffset(object))
    }

    /// Writes the root offset and returns the finished flatbuffer (a suffix
    /// of the scratch, its length a multiple of 8).
    ///
    /// # Errors
    /// [`Error::ScratchTooSmall`].
    pub fn finish(mut self, root: WIPOffset) -> Result<&'s [u8]> {
        self.prep(self.min_align.max(8), 4)?;
        let v = self.refer_to(root)?;
        self.push(&v.to_le_bytes())?;
        let head = self.head;
        Ok(&self.buf[head..])
    }
}

#[cfg(test)]
mod tests {
    use super::FlatBufferBuilder;

    #[test]
    fn string_parts_are_the_joined_string() {
        for (head, tail) in [
            ("ALKAID:", "extension:name"),
            ("", "x"),
            ("ab", ""),
            ("", ""),
        ] {
            let joined = [head.as_bytes(), tail.as_bytes()].concat();
            let (mut a, mut b) = ([0u8; 64], [0u8; 64]);
            let ra = FlatBufferBuilder::new(&mut a)
                .create_byte_string(&joined)
                .map(|o| o.0);
            let rb = FlatBufferBuilder::new(&mut b)
                .create_string_parts(head.as_bytes(), tail.as_bytes())
                .map(|o| o.0);
            assert_eq!(ra, rb);
            assert_eq!(a, b);
        }
    }
}
