//! The record batch body: which buffers an array contributes, in which order,
//! and how they reach the output without a staging copy.
//!
//! "Buffer Layout" / "Record Batch" of the IPC chapter: a depth-first,
//! pre-order walk of the columns yields one [`FieldNode`] per array and its
//! buffers (validity first). Uncompressed, one walk with the encoder's
//! `Collector` records the plan (nodes, buffer extents: the [`Planner`])
//! and the pieces that carry each buffer (array memory as it is, or its
//! transformed bytes); compressed, the [`Planner`] walk sizes the scratch
//! and a second walk ([`Compressing`]) compresses every buffer into it.
//!
//! Sliced arrays are normalised on the fly: a validity bitmap with a bit
//! offset is shifted in 64-byte chunks, offsets are rebased to start at zero
//! and run ends to the slice, all through a small stack buffer.
//!
//! The walk takes the visitor as `&mut dyn BodyVisitor`: one copy of it
//! serves every visitor (it dispatches once per buffer, not per value),
//! which keeps firmware writers small.

use allocator_api2::alloc::Allocator;

use crate::array::{Array, ArrayRef};
use crate::buffer::{NullBuffer, TryVec};
#[cfg(feature = "union")]
use crate::datatypes::UnionMode;
use crate::error::{Error, Result};
use crate::ipc::message::{BufferSpec, FieldNode};

/// Receives the nodes and buffers of a body in order.
pub(crate) trait BodyVisitor {
    /// One array: its length and null count, in slots.
    fn node(&mut self, length: usize, null_count: usize) -> Result<()>;
    /// A buffer taken as-is.
    fn buffer(&mut self, bytes: &[u8]) -> Result<()>;
    /// `len` bits starting at bit `bit_offset` of `bytes` (LSB order).
    fn bitmap(&mut self, bytes: &[u8], bit_offset: usize, len: usize) -> Result<()>;
    /// The native-endian integers of `values` transformed by `shift`
    /// (rebased offsets, clamped run ends).
    fn mapped(&mut self, values: &[u8], shift: Shift) -> Result<()>;
    /// The number of variadic data buffers of a view array.
    #[cfg(feature = "views")]
    fn variadic_count(&mut self, n: usize) -> Result<()>;
}

/// A transformation of native-endian integers of `width` bytes (2, 4 or 8):
/// `min(x - sub, max)`, computed in `i64` (offsets and run ends are
/// non-negative, so nothing overflows).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shift {
    width: usize,
    sub: i64,
    max: i64,
}

impl Shift {
    /// Transforms the whole values of `src` into `dst` (same length). The
    /// values are non-negative, so widening them without sign extension
    /// is exact.
    pub(crate) fn apply(&self, src: &[u8], dst: &mut [u8]) {
        let w = self.width;
        // Where the `w` value bytes sit in the native bytes of an `i64`.
        let at = if cfg!(target_endian = "big") {
            8 - w
        } else {
            0
        };
        for (d, s) in dst.chunks_exact_mut(w).zip(src.chunks_exact(w)) {
            let mut b = [0u8; 8];
            if let Some(v) = b.get_mut(at..at + w) {
                v.copy_from_slice(s);
            }
            let x = (i64::from_ne_bytes(b) - self.sub).min(self.max);
            if let Some(v) = x.to_ne_bytes().get(at..at + w) {
                d.copy_from_slice(v);
            }
        }
    }
}

fn validity<A: Allocator>(
    v: &mut dyn BodyVisitor,
    nulls: Option<&NullBuffer<'_, A>>,
    len: usize,
) -> Result<()> {
    match nulls {
        Some(n) if n.null_count() > 0 => {
            let bits = n.inner();
            v.bitmap(bits.inner().as_slice(), bits.offset(), len)
        }
        _ => v.buffer(&[]),
    }
}

/// The length, validity and value bytes of a primitive array.
#[allow(clippy::type_complexity)]
fn primitive<'r, 'a, T: crate::array::PrimitiveType, A: Allocator>(
    a: &'r crate::array::PrimitiveArray<'a, T, A>,
) -> (usize, Option<&'r NullBuffer<'a, A>>, &'r [u8]) {
    (a.len(), a.nulls(), bytemuck::cast_slice(a.values()))
}

/// Writes rebased offsets and returns the value range they covered.
#[cfg(feature = "nested")]
#[inline]
fn offsets<O: crate::buffer::OffsetSize>(
    v: &mut dyn BodyVisitor,
    offsets: &[O],
) -> Result<(usize, usize)> {
    offsets_raw(v, bytemuck::cast_slice(offsets), core::mem::size_of::<O>())
}

/// The offset at the start of `b`, of `width` bytes (4 or 8), native-endian.
fn read_offset(b: &[u8], width: usize) -> Option<usize> {
    let v = if width == 4 {
        i64::from(i32::from_ne_bytes(b.get(..4)?.try_into().ok()?))
    } else {
        i64::from_ne_bytes(b.get(..8)?.try_into().ok()?)
    };
    usize::try_from(v).ok()
}

/// [`offsets`] over the bytes of offsets of `width` bytes (one copy for
/// both offset widths).
fn offsets_raw(v: &mut dyn BodyVisitor, offsets: &[u8], width: usize) -> Result<(usize, usize)> {
    if offsets.len() < width {
        // An empty array may have an empty offsets buffer; write `[0]`.
        v.buffer(&[0u8; 8][..width.min(8)])?;
        return Ok((0, 0));
    }
    let last_at = offsets.len() - width;
    let s = read_offset(offsets, width).ok_or(Error::OffsetOutOfBounds)?;
    let e = offsets
        .get(last_at..)
        .and_then(|b| read_offset(b, width))
        .ok_or(Error::OffsetOutOfBounds)?;
    if s == 0 {
        // Already based at zero (unsliced arrays): the bytes as they are.
        v.buffer(offsets)?;
    } else {
        let sub = i64::try_from(s).map_err(|_| Error::OffsetOutOfBounds)?;
        v.mapped(
            offsets,
            Shift {
                width,
                sub,
                max: i64::MAX,
            },
        )?;
    }
    if e < s {
        return Err(Error::OffsetsNotMonotonic);
    }
    Ok((s, e))
}

/// Visits the nodes and buffers of `array` and its children, depth first.
pub(crate) fn visit_array<A: Allocator>(
    v: &mut dyn BodyVisitor,
    array: &ArrayRef<'_, A>,
) -> Result<()> {
    // The primitive and fixed-size binary layouts share one tail (one
    // node, validity, values).
    let (len, nulls, values) = match array {
        ArrayRef::FixedSizeBinary(a) => {
            let n = a
                .len()
                .checked_mul(a.value_length())
                .ok_or(Error::OutOfBounds)?;
            let values = a.values().as_slice().get(..n);
            (a.len(), a.nulls(), values.ok_or(Error::BufferTooSmall)?)
        }
        ArrayRef::Int8(a) => primitive(a),
        ArrayRef::Int16(a) => primitive(a),
        ArrayRef::Int32(a) => primitive(a),
        ArrayRef::Int64(a) => primitive(a),
        ArrayRef::UInt8(a) => primitive(a),
        ArrayRef::UInt16(a) => primitive(a),
        ArrayRef::UInt32(a) => primitive(a),
        ArrayRef::UInt64(a) => primitive(a),
        ArrayRef::Float16(a) => primitive(a),
        ArrayRef::Float32(a) => primitive(a),
        ArrayRef::Float64(a) => primitive(a),
        ArrayRef::Int128(a) => primitive(a),
        ArrayRef::Int256(a) => primitive(a),
        ArrayRef::IntervalDayTime(a) => primitive(a),
        ArrayRef::IntervalMonthDayNano(a) => primitive(a),
        _ => return visit_other(v, array),
    };
    v.node(len, nulls.map_or(0, |n| n.null_count()))?;
    validity(v, nulls, len)?;
    v.buffer(values)
}

/// [`visit_array`] for every layout but the primitive and fixed-size
/// binary ones.
fn visit_other<A: Allocator>(v: &mut dyn BodyVisitor, array: &ArrayRef<'_, A>) -> Result<()> {
    match array {
        ArrayRef::Null(a) => v.node(a.len(), a.len()),
        ArrayRef::Boolean(a) => {
            v.node(a.len(), a.null_count())?;
            validity(v, a.nulls(), a.len())?;
            let bits = a.values();
            v.bitmap(bits.inner().as_slice(), bits.offset(), bits.len())
        }
        ArrayRef::Binary(a) => bytes(v, a.len(), a.nulls(), a.value_offsets(), a.values()),
        ArrayRef::LargeBinary(a) => bytes(v, a.len(), a.nulls(), a.value_offsets(), a.values()),
        ArrayRef::Utf8(a) => bytes(v, a.len(), a.nulls(), a.value_offsets(), a.values()),
        ArrayRef::LargeUtf8(a) => bytes(v, a.len(), a.nulls(), a.value_offsets(), a.values()),
        #[cfg(feature = "views")]
        ArrayRef::BinaryView(a) => views(v, a),
        #[cfg(feature = "views")]
        ArrayRef::Utf8View(a) => views(v, a),
        #[cfg(feature = "union")]
        ArrayRef::Union(u) => {
            // V5: unions have no validity bitmap.
            v.node(u.len(), 0)?;
            v.buffer(bytemuck::cast_slice(u.type_ids()))?;
            match u.mode() {
                UnionMode::Dense => {
                    v.buffer(bytemuck::cast_slice(
                        u.offsets().ok_or(Error::UnionOffsetsPresence)?,
                    ))?;
                    for c in u.children() {
                        visit_array(v, c)?;
                    }
                }
                UnionMode::Sparse => {
                    for c in u.children() {
                        visit_array(v, &c.slice(u.child_offset(), u.len())?)?;
                    }
                }
            }
            Ok(())
        }
        #[cfg(feature = "dictionary")]
        ArrayRef::Dictionary(d) => {
            // The indices only; the values travel in dictionary batches.
            let keys = d.keys();
            v.node(keys.len(), keys.null_count())?;
            validity(v, keys.nulls(), keys.len())?;
            use crate::array::DictionaryKeys as K;
            match keys {
                K::Int8(k) => v.buffer(bytemuck::cast_slice(k.values())),
                K::Int16(k) => v.buffer(bytemuck::cast_slice(k.values())),
                K::Int32(k) => v.buffer(bytemuck::cast_slice(k.values())),
                K::Int64(k) => v.buffer(bytemuck::cast_slice(k.values())),
                K::UInt8(k) => v.buffer(bytemuck::cast_slice(k.values())),
                K::UInt16(k) => v.buffer(bytemuck::cast_slice(k.values())),
                K::UInt32(k) => v.buffer(bytemuck::cast_slice(k.values())),
                K::UInt64(k) => v.buffer(bytemuck::cast_slice(k.values())),
            }
        }
        #[cfg(feature = "run-end")]
        ArrayRef::RunEndEncoded(r) => {
            v.node(r.len(), 0)?;
            let range = r.get_physical_range();
            let (s, n) = (range.start, range.end - range.start);
            let off = r.offset() as i64;
            let len = r.len() as i64;
            use crate::array::RunEnds as R;
            // Run ends of the slice: shifted by the offset, the last clamped to the length.
            let (width, ends): (usize, &[u8]) = match r.run_ends() {
                R::Int16(e) => (2, bytemuck::cast_slice(e.values())),
                R::Int32(e) => (4, bytemuck::cast_slice(e.values())),
                R::Int64(e) => (8, bytemuck::cast_slice(e.values())),
            };
            let ends = ends
                .get(s * width..(s + n) * width)
                .ok_or(Error::OutOfBounds)?;
            v.node(n, 0)?;
            v.buffer(&[])?;
            v.mapped(
                ends,
                Shift {
                    width,
                    sub: off,
                    max: len,
                },
            )?;
            visit_array(v, &r.values().slice(s, n)?)
        }
        #[cfg(feature = "nested")]
        _ => nested(v, array),
        // The layouts handled by `visit_array`.
        #[cfg(not(feature = "nested"))]
        _ => Err(Error::UnsupportedType),
    }
}

/// A binary or string array of `len` slots (generic over the offset width
/// only, so that binary and string arrays share the code).
#[inline]
fn bytes<O: crate::buffer::OffsetSize, A: Allocator>(
    v: &mut dyn BodyVisitor,
    len: usize,
    nulls: Option<&NullBuffer<'_, A>>,
    offs: &[O],
    values: &crate::buffer::Buffer<'_, A>,
) -> Result<()> {
    let width = core::mem::size_of::<O>();
    bytes_raw(v, len, nulls, bytemuck::cast_slice(offs), width, values)
}

/// [`bytes`] over the bytes of the offsets (`width` bytes each).
fn bytes_raw<A: Allocator>(
    v: &mut dyn BodyVisitor,
    len: usize,
    nulls: Option<&NullBuffer<'_, A>>,
    offs: &[u8],
    width: usize,
    values: &crate::buffer::Buffer<'_, A>,
) -> Result<()> {
    v.node(len, nulls.map_or(0, |n| n.null_count()))?;
    validity(v, nulls, len)?;
    let (s, e) = offsets_raw(v, offs, width)?;
    v.buffer(
        values
            .as_slice()
            .get(s..e)
            .ok_or(Error::OffsetOutOfBounds)?,
    )
}

#[cfg(feature = "views")]
fn views<T: crate::array::ByteViewType, A: Allocator>(
    v: &mut dyn BodyVisitor,
    a: &crate::array::GenericByteViewArray<'_, T, A>,
) -> Result<()> {
    v.node(a.len(), a.null_count())?;
    validity(v, a.nulls(), a.len())?;
    let n = a.len().checked_mul(16).ok_or(Error::OutOfBounds)?;
    v.buffer(
        a.views_buffer()
            .as_slice()
            .get(..n)
            .ok_or(Error::BufferTooSmall)?,
    )?;
    for b in a.data_buffers().iter() {
        v.buffer(b.as_slice())?;
    }
    v.variadic_count(a.data_buffers().len())
}

/// Lists, list views, fixed-size lists, structs and maps.
#[cfg(feature = "nested")]
fn nested<A: Allocator>(v: &mut dyn BodyVisitor, array: &ArrayRef<'_, A>) -> Result<()> {
    match array {
        ArrayRef::List(l) => list(
            v,
            l.len(),
            l.null_count(),
            l.nulls(),
            l.value_offsets(),
            l.values(),
        ),
        ArrayRef::LargeList(l) => list(
            v,
            l.len(),
            l.null_count(),
            l.nulls(),
            l.value_offsets(),
            l.values(),
        ),
        ArrayRef::Map(m) => list(
            v,
            m.len(),
            m.null_count(),
            m.nulls(),
            m.value_offsets(),
            m.list().values(),
        ),
        ArrayRef::ListView(l) => {
            v.node(l.len(), l.null_count())?;
            validity(v, l.nulls(), l.len())?;
            v.buffer(bytemuck::cast_slice(l.value_offsets()))?;
            v.buffer(bytemuck::cast_slice(l.value_sizes()))?;
            visit_array(v, l.values())
        }
        ArrayRef::LargeListView(l) => {
            v.node(l.len(), l.null_count())?;
            validity(v, l.nulls(), l.len())?;
            v.buffer(bytemuck::cast_slice(l.value_offsets()))?;
            v.buffer(bytemuck::cast_slice(l.value_sizes()))?;
            visit_array(v, l.values())
        }
        ArrayRef::FixedSizeList(l) => {
            v.node(l.len(), l.null_count())?;
            validity(v, l.nulls(), l.len())?;
            let size = usize::try_from(l.value_length()).map_err(|_| Error::InvalidDataType)?;
            let start = l.offset().checked_mul(size).ok_or(Error::OutOfBounds)?;
            let n = l.len().checked_mul(size).ok_or(Error::OutOfBounds)?;
            visit_array(v, &l.values().slice(start, n)?)
        }
        ArrayRef::Struct(s) => {
            v.node(s.len(), s.null_count())?;
            validity(v, s.nulls(), s.len())?;
            for c in s.children() {
                visit_array(v, &c.slice(s.offset(), s.len())?)?;
            }
            Ok(())
        }
        _ => Err(Error::UnsupportedType),
    }
}

/// A list layout: validity, rebased offsets, then the referenced child range.
#[cfg(feature = "nested")]
fn list<O, A: Allocator>(
    v: &mut dyn BodyVisitor,
    len: usize,
    null_count: usize,
    nulls: Option<&NullBuffer<'_, A>>,
    offs: &[O],
    values: &ArrayRef<'_, A>,
) -> Result<()>
where
    O: crate::buffer::OffsetSize,
{
    v.node(len, null_count)?;
    validity(v, nulls, len)?;
    let (s, e) = offsets(v, offs)?;
    visit_array(v, &values.slice(s, e - s)?)
}

/// Rounds `n` up to a multiple of `align` (a power of two).
#[inline]
pub(crate) fn padded(n: usize, align: usize) -> usize {
    (n + align - 1) & !(align - 1)
}

/// Emits `len` bits from bit `bit_offset` of `bytes` as whole bytes starting
/// at bit 0, in chunks of up to 64 bytes; bits past `len` are zero.
pub(crate) fn bitmap_chunks<F>(
    bytes: &[u8],
    bit_offset: usize,
    len: usize,
    mut emit: F,
) -> Result<()>
where
    F: FnMut(&[u8]) -> Result<()>,
{
    let n = len.div_ceil(8);
    let mut chunk = [0u8; 64];
    let mut done = 0;
    while done < n {
        let k = (n - done).min(chunk.len());
        for (j, c) in chunk[..k].iter_mut().enumerate() {
            // Output byte `done + j` holds source bits from `start`.
            let start = bit_offset + (done + j) * 8;
            let (q, r) = (start / 8, start % 8);
            let lo = bytes.get(q).copied().unwrap_or(0) as u16;
            let hi = bytes.get(q + 1).copied().unwrap_or(0) as u16;
            *c = (((hi << 8) | lo) >> r) as u8;
        }
        if done + k == n && len % 8 != 0 {
            chunk[k - 1] &= (1u8 << (len % 8)) - 1;
        }
        emit(&chunk[..k])?;
        done += k;
    }
    Ok(())
}

/// Pass 1: records nodes and buffer extents; reads no data.
pub(crate) struct Planner<A: Allocator> {
    pub(crate) nodes: TryVec<FieldNode, A>,
    pub(crate) buffers: TryVec<BufferSpec, A>,
    #[cfg(feature = "views")]
    pub(crate) variadic: TryVec<i64, A>,
    pub(crate) body_len: usize,
    pub(crate) alignment: usize,
}

impl<A: Allocator + Clone> Planner<A> {
    pub(crate) fn new_in(alloc: A, alignment: usize) -> Self {
        Planner {
            nodes: TryVec::new_in(alloc.clone()),
            buffers: TryVec::new_in(alloc.clone()),
            #[cfg(feature = "views")]
            variadic: TryVec::new_in(alloc.clone()),
            body_len: 0,
            alignment,
        }
    }

    pub(crate) fn clear(&mut self) {
        self.nodes.clear();
        self.buffers.clear();
        #[cfg(feature = "views")]
        self.variadic.clear();
        self.body_len = 0;
    }

    fn add(&mut self, len: usize) -> Result<()> {
        self.buffers.try_push(BufferSpec {
            offset: self.body_len as i64,
            length: len as i64,
        })?;
        self.body_len = self
            .body_len
            .checked_add(padded(len, self.alignment))
            .ok_or(Error::CapacityOverflow)?;
        Ok(())
    }
}

impl<A: Allocator + Clone> BodyVisitor for Planner<A> {
    fn node(&mut self, length: usize, null_count: usize) -> Result<()> {
        self.nodes.try_push(FieldNode {
            length: length as i64,
            null_count: null_count as i64,
        })
    }
    fn buffer(&mut self, bytes: &[u8]) -> Result<()> {
        self.add(bytes.len())
    }
    fn bitmap(&mut self, _bytes: &[u8], _bit_offset: usize, len: usize) -> Result<()> {
        self.add(len.div_ceil(8))
    }
    fn mapped(&mut self, values: &[u8], _shift: Shift) -> Result<()> {
        self.add(values.len())
    }
    #[cfg(feature = "views")]
    fn variadic_count(&mut self, n: usize) -> Result<()> {
        self.variadic.try_push(n as i64)
    }
}

/// The compressed path: every buffer is materialised (bitmaps shifted, offsets
/// rebased) into `tmp`, compressed with its 8-byte length prefix into `body`
/// at `end` ("Compression" of the IPC chapter), padded to the alignment, and
/// its extent recorded in `specs`. Nodes come from the [`Planner`].
///
/// `body` is reused from batch to batch and never cleared: its length is the
/// most any batch used, the batch's body is `body[..end]`, and the bytes
/// after `end` are stale (compressor scratch, earlier batches). This spares
/// zeroing the codec's worst-case room after every buffer and the whole body
/// after every batch.
///
/// Before the walk, [`Compressing::reserve_for`] grows `body` once to the
/// batch's worst case computed from the plan, so that the walk itself never
/// grows it: growing per buffer copied everything compressed so far each
/// time, quadratic in the number of buffers (thousands for a view column).
#[cfg(feature = "compression")]
pub(crate) struct Compressing<'x, A: Allocator> {
    pub(crate) codec: &'x mut dyn crate::ipc::compression::Codec,
    pub(crate) body: &'x mut crate::buffer::MutableBuffer<A>,
    pub(crate) tmp: &'x mut crate::buffer::MutableBuffer<A>,
    pub(crate) specs: &'x mut TryVec<BufferSpec, A>,
    pub(crate) alignment: usize,
    /// Where this body starts in `body` (the bodies of one encoder output
    /// follow each other); buffer offsets are relative to it.
    pub(crate) start: usize,
    /// End of the body written so far (`start` before the first buffer).
    pub(crate) end: usize,
}

#[cfg(feature = "compression")]
impl<A: Allocator> Compressing<'_, A> {
    /// Grows `body` (never shrinks it) to `end` plus the most the buffers
    /// of `plan` can take, in bytes: per non-empty buffer of `n` bytes, the 8-byte
    /// length prefix plus the larger of `n` and the codec's bound for `n`,
    /// padded to the alignment. That is where [`compress_buffer_at`] needs
    /// room for each buffer, so the walk then finds `body` large enough. One
    /// allocation at most per batch, none once a batch of the same shape was
    /// written (the steady state allocates nothing).
    ///
    /// [`compress_buffer_at`]: crate::ipc::compression::compress_buffer_at
    ///
    /// # Errors
    /// [`Error::CapacityOverflow`] when the sum overflows `usize`;
    /// [`Error::AllocationFailed`].
    pub(crate) fn reserve_for(&mut self, plan: &[BufferSpec]) -> Result<()> {
        let mut worst = 0usize;
        for b in plan {
            let n = usize::try_from(b.length).map_err(|_| Error::CapacityOverflow)?;
            if n == 0 {
                continue;
            }
            let room = self
                .codec
                .max_compressed_len(n)?
                .max(n)
                .checked_add(crate::ipc::compression::LENGTH_PREFIX_BYTES)
                .ok_or(Error::CapacityOverflow)?;
            let room = room
                .checked_add(self.alignment - 1)
                .ok_or(Error::CapacityOverflow)?
                & !(self.alignment - 1);
            worst = worst.checked_add(room).ok_or(Error::CapacityOverflow)?;
        }
        let worst = worst.checked_add(self.end).ok_or(Error::CapacityOverflow)?;
        if worst > self.body.len() {
            let more = worst - self.body.len();
            self.body.try_reserve_exact(more)?;
            self.body.try_extend_zeros(more)?;
        }
        Ok(())
    }

    fn emit(&mut self, from_tmp: bool, bytes: &[u8]) -> Result<()> {
        let offset = self.end;
        let input = if from_tmp { self.tmp.as_slice() } else { bytes };
        let n = crate::ipc::compression::compress_buffer_at(
            &mut *self.codec,
            input,
            self.body,
            offset,
        )?;
        self.specs.try_push(BufferSpec {
            offset: (offset - self.start) as i64,
            length: n as i64,
        })?;
        let data_end = offset + n;
        let padded_end = offset
            .checked_add(padded(n, self.alignment))
            .ok_or(Error::CapacityOverflow)?;
        if padded_end > self.body.len() {
            let more = padded_end - self.body.len();
            self.body.try_reserve_exact(more)?;
            self.body.try_extend_zeros(more)?;
        }
        // The padding may hold stale bytes: zero it.
        self.body
            .as_slice_mut()
            .get_mut(data_end..padded_end)
            .ok_or(Error::OutOfBounds)?
            .fill(0);
        self.end = padded_end;
        Ok(())
    }
}

#[cfg(feature = "compression")]
impl<A: Allocator> BodyVisitor for Compressing<'_, A> {
    fn node(&mut self, _length: usize, _null_count: usize) -> Result<()> {
        Ok(())
    }
    fn buffer(&mut self, bytes: &[u8]) -> Result<()> {
        self.emit(false, bytes)
    }
    fn bitmap(&mut self, bytes: &[u8], bit_offset: usize, len: usize) -> Result<()> {
        self.tmp.clear();
        let tmp = &mut *self.tmp;
        bitmap_chunks(bytes, bit_offset, len, |c| tmp.try_extend_from_slice(c))?;
        self.emit(true, &[])
    }
    fn mapped(&mut self, values: &[u8], shift: Shift) -> Result<()> {
        self.tmp.clear();
        self.tmp.try_extend_zeros(values.len())?;
        shift.apply(values, self.tmp.as_slice_mut());
        self.emit(true, &[])
    }
    #[cfg(feature = "views")]
    fn variadic_count(&mut self, _n: usize) -> Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::vec::Vec;

    fn ne_bytes<const N: usize, T: Copy>(v: &[T], f: fn(T) -> [u8; N]) -> Vec<u8> {
        v.iter().flat_map(|x| f(*x)).collect()
    }

    /// Rebased offsets and clamped run ends, for each integer width, in the
    /// machine's byte order.
    #[test]
    fn shift_rebases_and_clamps_every_width() {
        let apply = |width, sub, max, src: &[u8]| {
            let mut dst = std::vec![0u8; src.len()];
            Shift { width, sub, max }.apply(src, &mut dst);
            dst
        };
        // Run ends of a slice from slot 3 of length 10: the last one clamped.
        let src = ne_bytes(&[5i16, 9, 40], i16::to_ne_bytes);
        let want = ne_bytes(&[2i16, 6, 10], i16::to_ne_bytes);
        assert_eq!(apply(2, 3, 10, &src), want);
        // Offsets starting at 7.
        let src = ne_bytes(&[7i32, 9, 300_000], i32::to_ne_bytes);
        let want = ne_bytes(&[0i32, 2, 299_993], i32::to_ne_bytes);
        assert_eq!(apply(4, 7, i64::MAX, &src), want);
        let big = 1i64 << 40;
        let src = ne_bytes(&[big, big + 5], i64::to_ne_bytes);
        let want = ne_bytes(&[0i64, 5], i64::to_ne_bytes);
        assert_eq!(apply(8, big, i64::MAX, &src), want);
    }
}
