//! Where an [`Error`](super::Error) happened: a fixed-size, `Copy` record of
//! the indices the code on the error's way out knew (no heap).

use core::fmt;

/// What the position of a [`Location`] counts.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Position {
    /// Nothing known.
    #[cfg_attr(not(feature = "error-location"), allow(dead_code))]
    None,
    /// A byte offset.
    Byte,
    /// A row / slot (element) index.
    Row,
}

/// Where an error happened, as far as the code that saw it knew: a field
/// path (field index, then child indices of nested fields, all 0-based), the
/// IPC message index, the buffer index and a row or byte offset. Each part
/// is optional; [`Display`](fmt::Display) shows the known ones, e.g.
/// `message 2, field 2.0, buffer 7, byte offset 40`.
///
/// Indices above `u32::MAX` are stored as `u32::MAX`. Without the feature
/// `error-location` the location is always empty and takes no space.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Location {
    #[cfg(feature = "error-location")]
    inner: Inner,
}

#[cfg(feature = "error-location")]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct Inner {
    /// Field path, outermost first; `path[..depth]` is set.
    path: [u32; Location::MAX_DEPTH],
    /// Number of entries of `path` set.
    depth: u8,
    /// Set when a deeper path was cut to `MAX_DEPTH` entries.
    truncated: bool,
    /// What `position` counts.
    position_kind: PositionKind,
    /// IPC message index, `NONE` when unknown.
    message: u32,
    /// Buffer index, `NONE` when unknown.
    buffer: u32,
    /// Row index or byte offset (see `position_kind`).
    position: u64,
}

/// `Position` with the derives `Inner` needs.
#[cfg(feature = "error-location")]
type PositionKind = u8;

#[cfg(feature = "error-location")]
const NONE: u32 = u32::MAX;

#[cfg(feature = "error-location")]
fn index(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX).min(NONE - 1)
}

impl Location {
    /// The most field path entries kept (a top-level field and 5 nesting
    /// levels); deeper paths keep their outermost entries.
    pub const MAX_DEPTH: usize = 6;

    /// No location.
    pub const NONE: Location = Location {
        #[cfg(feature = "error-location")]
        inner: Inner {
            path: [0; Location::MAX_DEPTH],
            depth: 0,
            truncated: false,
            position_kind: Position::None as u8,
            message: NONE,
            buffer: NONE,
            position: 0,
        },
    };

    /// `true` when nothing is known.
    pub fn is_empty(&self) -> bool {
        self.field_path().is_empty()
            && self.message().is_none()
            && self.buffer().is_none()
            && self.row().is_none()
            && self.byte_offset().is_none()
    }

    /// The field path: the field index in the schema (or record batch, or
    /// C Data Interface struct), then the child index at each nesting level;
    /// empty when unknown.
    pub fn field_path(&self) -> &[u32] {
        #[cfg(feature = "error-location")]
        {
            self.inner
                .path
                .get(..usize::from(self.inner.depth))
                .unwrap_or(&[])
        }
        #[cfg(not(feature = "error-location"))]
        {
            &[]
        }
    }

    /// The IPC message index (0-based), when known.
    pub fn message(&self) -> Option<u32> {
        #[cfg(feature = "error-location")]
        {
            (self.inner.message != NONE).then_some(self.inner.message)
        }
        #[cfg(not(feature = "error-location"))]
        {
            None
        }
    }

    /// The buffer index (0-based) in the message body or C array, when known.
    pub fn buffer(&self) -> Option<u32> {
        #[cfg(feature = "error-location")]
        {
            (self.inner.buffer != NONE).then_some(self.inner.buffer)
        }
        #[cfg(not(feature = "error-location"))]
        {
            None
        }
    }

    /// The row or slot index (0-based), when known.
    pub fn row(&self) -> Option<u64> {
        self.position(Position::Row)
    }

    /// The byte offset, when known.
    pub fn byte_offset(&self) -> Option<u64> {
        self.position(Position::Byte)
    }

    fn position(&self, want: Position) -> Option<u64> {
        #[cfg(feature = "error-location")]
        {
            (self.inner.position_kind == want as u8).then_some(self.inner.position)
        }
        #[cfg(not(feature = "error-location"))]
        {
            let _ = want;
            None
        }
    }

    #[inline(always)]
    pub(super) fn push_front(&mut self, i: usize) {
        #[cfg(feature = "error-location")]
        {
            let inner = &mut self.inner;
            let depth = usize::from(inner.depth);
            if depth == Self::MAX_DEPTH {
                inner.truncated = true;
            }
            inner.path.copy_within(0..Self::MAX_DEPTH - 1, 1);
            inner.path[0] = index(i);
            inner.depth = (depth + 1).min(Self::MAX_DEPTH) as u8;
        }
        #[cfg(not(feature = "error-location"))]
        let _ = i;
    }

    #[inline(always)]
    pub(super) fn set_message(&mut self, i: usize) {
        #[cfg(feature = "error-location")]
        if self.inner.message == NONE {
            self.inner.message = index(i);
        }
        #[cfg(not(feature = "error-location"))]
        let _ = i;
    }

    #[inline(always)]
    pub(super) fn set_buffer(&mut self, i: usize) {
        #[cfg(feature = "error-location")]
        if self.inner.buffer == NONE {
            self.inner.buffer = index(i);
        }
        #[cfg(not(feature = "error-location"))]
        let _ = i;
    }

    #[inline(always)]
    pub(super) fn set_position(&mut self, kind: Position, n: usize) {
        #[cfg(feature = "error-location")]
        if self.inner.position_kind == Position::None as u8 {
            self.inner.position_kind = kind as u8;
            self.inner.position = n as u64;
        }
        #[cfg(not(feature = "error-location"))]
        let _ = (kind, n);
    }
}

impl fmt::Display for Location {
    /// The known parts, separated by `, `: `message M`, `field F.C.C`,
    /// `buffer B`, `row R` or `byte offset O`; empty when nothing is known.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut sep = "";
        if let Some(m) = self.message() {
            write!(f, "message {m}")?;
            sep = ", ";
        }
        let path = self.field_path();
        if let Some((first, rest)) = path.split_first() {
            write!(f, "{sep}field {first}")?;
            for c in rest {
                write!(f, ".{c}")?;
            }
            if self.truncated() {
                f.write_str(".…")?;
            }
            sep = ", ";
        }
        if let Some(b) = self.buffer() {
            write!(f, "{sep}buffer {b}")?;
            sep = ", ";
        }
        if let Some(r) = self.row() {
            write!(f, "{sep}row {r}")?;
        } else if let Some(o) = self.byte_offset() {
            write!(f, "{sep}byte offset {o}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Location({self})")
    }
}

impl Location {
    fn truncated(&self) -> bool {
        #[cfg(feature = "error-location")]
        {
            self.inner.truncated
        }
        #[cfg(not(feature = "error-location"))]
        {
            false
        }
    }
}

#[cfg(feature = "defmt")]
impl defmt::Format for Location {
    fn format(&self, f: defmt::Formatter) {
        let mut sep = "";
        if let Some(m) = self.message() {
            defmt::write!(f, "message {=u32}", m);
            sep = ", ";
        }
        let path = self.field_path();
        if let Some((first, rest)) = path.split_first() {
            defmt::write!(f, "{=str}field {=u32}", sep, *first);
            for c in rest {
                defmt::write!(f, ".{=u32}", *c);
            }
            if self.truncated() {
                defmt::write!(f, ".…");
            }
            sep = ", ";
        }
        if let Some(b) = self.buffer() {
            defmt::write!(f, "{=str}buffer {=u32}", sep, b);
            sep = ", ";
        }
        if let Some(r) = self.row() {
            defmt::write!(f, "{=str}row {=u64}", sep, r);
        } else if let Some(o) = self.byte_offset() {
            defmt::write!(f, "{=str}byte offset {=u64}", sep, o);
        }
    }
}
