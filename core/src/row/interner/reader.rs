//! Reading the keys of dictionary rows: entry positions and raw spans.

use allocator_api2::alloc::Allocator;

use super::keys::{KeyTables, Short};
use super::Interner;
use crate::buffer::MutableBuffer;
use crate::error::{Error, Result};
use crate::row::SortOptions;

impl<A: Allocator> Interner<A> {
    /// A reader of the keys of rows encoded with `opts`.
    pub(crate) fn reader(&self, opts: SortOptions, alloc: &A) -> Reader<'_, A>
    where
        A: Clone,
    {
        Reader {
            interner: self,
            spans: self.spans.as_slice(),
            one_spans: self.one_spans.as_slice(),
            two_spans: self.two_spans.as_slice(),
            tables: self.short.tables(),
            flip: if opts.descending { 0xFF } else { 0 },
            null: opts.null_sentinel(),
            scratch: MutableBuffer::new_in(alloc.clone()),
        }
    }
}

/// Reads the keys of a dictionary column's rows (see
/// [`Interner::reader`]).
pub(crate) struct Reader<'i, A: Allocator> {
    interner: &'i Interner<A>,
    /// `[start, len]` of each entry's raw bytes.
    spans: &'i [[u32; 2]],
    /// The same of the one-byte keys, by byte.
    one_spans: &'i [[u32; 2]],
    /// The same of the two-byte keys, by rank.
    two_spans: &'i [[u32; 2]],
    tables: KeyTables<'i>,
    /// `0xFF` when descending (keys and terminator inverted).
    flip: u8,
    /// The column's null sentinel.
    null: u8,
    /// An inverted long key.
    scratch: MutableBuffer<A>,
}

impl<'i, A: Allocator> Reader<'i, A> {
    /// Reads the dictionary piece at the start of `row` (`0x01`, key,
    /// terminator; or the null sentinel) and moves `row` past it: the
    /// key's entry position, `None` for a null.
    ///
    /// # Errors
    /// [`Error::InvalidRow`] for a malformed piece;
    /// [`Error::UnknownDictionaryKey`] for a key never issued.
    #[inline(always)]
    pub(crate) fn next(&mut self, row: &mut &[u8]) -> Result<Option<usize>> {
        let (&first, rest) = row.split_first().ok_or(Error::InvalidRow)?;
        *row = rest;
        match first {
            1 => {}
            b if b == self.null => return Ok(None),
            _ => return Err(Error::InvalidRow),
        }
        let t = self.flip;
        let found = match **row {
            [a, x, ..] if a != t && x == t => (2, self.tables.find_one(a ^ t)),
            [a, b, x, ..] if a != t && b != t && x == t => (3, self.tables.find_two(a ^ t, b ^ t)),
            _ => (0, Short::Long),
        };
        match found {
            (skip, Short::Found(p)) => {
                *row = row.get(skip..).ok_or(Error::InvalidRow)?;
                return Ok(Some(p));
            }
            (_, Short::Unknown) => return Err(Error::UnknownDictionaryKey),
            (_, Short::Long) => {}
        }
        self.long(row).map(Some)
    }

    /// As [`Self::next`], giving the raw span (`[start, len]`) of the
    /// key's entry.
    ///
    /// # Errors
    /// As [`Self::next`].
    #[inline(always)]
    pub(crate) fn next_span(&mut self, row: &mut &[u8]) -> Result<Option<[u32; 2]>> {
        let (&first, rest) = row.split_first().ok_or(Error::InvalidRow)?;
        match first {
            1 => {}
            b if b == self.null => {
                *row = rest;
                return Ok(None);
            }
            _ => return Err(Error::InvalidRow),
        }
        let t = self.flip;
        let span = match *rest {
            [a, x, ..] if a != t && x == t => match self.one_spans.get(usize::from(a ^ t)) {
                // No such key (see `short_spans`).
                Some(&[_, u32::MAX]) => return Err(Error::UnknownDictionaryKey),
                span => {
                    *row = rest.get(2..).ok_or(Error::InvalidRow)?;
                    span
                }
            },
            [a, b, x, ..] if a != t && b != t && x == t => match self.tables.rank_two(a ^ t, b ^ t)
            {
                Ok(rank) => {
                    *row = rest.get(3..).ok_or(Error::InvalidRow)?;
                    self.two_spans.get(rank)
                }
                Err(Short::Unknown) => return Err(Error::UnknownDictionaryKey),
                Err(_) => None,
            },
            _ => None,
        };
        if let Some(&span) = span {
            return Ok(Some(span));
        }
        match self.next(row)? {
            None => Ok(None),
            Some(p) => self
                .raw_span(p)
                .map(Some)
                .ok_or(Error::UnknownDictionaryKey),
        }
    }

    /// The spans of the one- and two-byte keys, for a loop of lookups
    /// that holds them in registers (see [`ShortSpans`]).
    pub(crate) fn short(&self) -> ShortSpans<'i> {
        ShortSpans {
            one_spans: self.one_spans,
            two_spans: self.two_spans,
            tables: self.tables,
            flip: self.flip,
            null: self.null,
        }
    }

    /// The entry of a key that is not one or two bytes long.
    #[cold]
    #[inline(never)]
    fn long(&mut self, row: &mut &[u8]) -> Result<usize> {
        let t = self.flip;
        let len = row.iter().position(|&b| b == t).ok_or(Error::InvalidRow)?;
        let k = row.get(..len).ok_or(Error::InvalidRow)?;
        *row = row.get(len + 1..).ok_or(Error::InvalidRow)?;
        let k = if t == 0 {
            k
        } else {
            self.scratch.clear();
            self.scratch.try_extend_from_slice(k)?;
            self.scratch.as_slice_mut().iter_mut().for_each(|b| *b ^= t);
            self.scratch.as_slice()
        };
        self.interner
            .position_of_key(k)?
            .ok_or(Error::UnknownDictionaryKey)
    }

    /// Where the raw bytes of the entry at `position` are in
    /// [`Interner::raw`]'s bytes, as `[start, len]`.
    #[inline(always)]
    pub(crate) fn raw_span(&self, position: usize) -> Option<[u32; 2]> {
        self.spans.get(position).copied()
    }
}

/// The raw spans of the one- and two-byte keys of a [`Reader`], borrowed:
/// lookups of the pieces of well-formed rows without hashing.
#[derive(Clone, Copy)]
pub(crate) struct ShortSpans<'i> {
    one_spans: &'i [[u32; 2]],
    two_spans: &'i [[u32; 2]],
    tables: KeyTables<'i>,
    /// `0xFF` when descending (keys and terminator inverted).
    pub(crate) flip: u8,
    /// The column's null sentinel.
    pub(crate) null: u8,
}

impl ShortSpans<'_> {
    /// The raw span (`[start, len]`) of one-byte key `[a]` (as issued, not
    /// inverted); `None` when there is no such key.
    #[inline(always)]
    pub(crate) fn one(&self, a: u8) -> Option<[u32; 2]> {
        match self.one_spans.get(usize::from(a)) {
            Some(&[_, u32::MAX]) | None => None,
            Some(&span) => Some(span),
        }
    }

    /// The raw span of the dictionary piece at the front of `row` when it
    /// is a one- or two-byte key these tables find, or a null
    /// ([`crate::row::interner::gather::NULL_SPAN`]), and the piece's length; `None`
    /// otherwise (another piece, an unknown key, malformed bytes: the
    /// reader decides). A key byte equal to the terminator (`0` once
    /// un-inverted) is in no issued key, so the tables never find it.
    #[inline(always)]
    pub(crate) fn piece(&self, row: &[u8]) -> Option<([u32; 2], usize)> {
        let t = self.flip;
        match *row {
            [1, a, z, ..] if z == t => self.one(a ^ t).map(|s| (s, 3)),
            [1, a, b, z, ..] if z == t => self.two(a ^ t, b ^ t).map(|s| (s, 4)),
            [x, ..] if x == self.null => Some((super::gather::NULL_SPAN, 1)),
            _ => None,
        }
    }

    /// The raw span of two-byte key `[a, b]` (as issued); `None` when there
    /// is no such key (or no two-byte key table).
    #[inline(always)]
    pub(crate) fn two(&self, a: u8, b: u8) -> Option<[u32; 2]> {
        let rank = self.tables.rank_two(a, b).ok()?;
        self.two_spans.get(rank).copied()
    }
}
