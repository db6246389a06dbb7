//! Lookups of one- and two-byte keys without hashing: the keys of every
//! dictionary of up to ~64K values (and of every value added later into
//! a gap of a one-byte key's neighbours) are this short.
//!
//! One-byte keys `[b]`: a table of 256 entry positions. Two-byte keys
//! `[b, c]`: a bitmap of the 65,536 possible keys (1,024 words) with the
//! number of keys before each word; a key's rank among the two-byte keys
//! (the count before its word plus the bits below it) indexes their entry
//! positions, stored in key order. 12 KiB plus 4 bytes per two-byte key,
//! built once per batch of new values, never per decode call. With at
//! least [`DENSE_MIN`] two-byte keys, the bitmap gives way to a dense table:
//! for each first byte `b`, the rank of its first key, and for each key
//! `[b, c]` its place among the keys starting with `b` + 1 (one byte: at
//! most 254 keys share a first byte, their last byte being `0x02..=0xFF`).
//! 65,536 + 1,024 bytes (through the interner's allocator; at most 65 bytes
//! per two-byte key, 16 at 4,096 keys, against ~70 bytes or more the
//! interner holds per value anyway; when the allocator refuses them, as
//! a small arena may, the bitmap is used instead): two independent loads and an add
//! instead of two loads and a population count (which baseline x86-64,
//! without POPCNT, does in software); it made decoding 4,096 distinct short
//! strings about a quarter faster (measured).

use allocator_api2::alloc::Allocator;

use crate::buffer::TryVec;
use crate::error::{Error, ErrorKind, Result};

/// Entry positions of the one- and two-byte keys.
pub(super) struct KeyIndex<A: Allocator> {
    /// 256 `u32`: entry position + 1 of key `[b]` (0: none).
    one: TryVec<u32, A>,
    /// 1,024 `u64`: bit `c % 64` of word `4 b + c / 64` set for key `[b, c]`
    /// (empty with the dense table).
    words: TryVec<u64, A>,
    /// 1,024 `u32`: the number of two-byte keys in the words before.
    before: TryVec<u32, A>,
    /// Entry position of each two-byte key, in key order.
    positions: TryVec<u32, A>,
    /// 65,536 `u8`: at `256 b + c`, the place + 1 of key `[b, c]` among the
    /// keys starting with `b` (0: none); only with at least [`DENSE_MIN`]
    /// two-byte keys (else empty).
    dense: TryVec<u8, A>,
    /// 256 `u32` with `dense`: the rank of the first key starting with `b`.
    bases: TryVec<u32, A>,
}

/// Two-byte keys from which their ranks are kept in a dense table rather
/// than through the bitmap.
const DENSE_MIN: usize = 1024;

/// The borrowed tables of a [`KeyIndex`], for a loop of lookups.
#[derive(Clone, Copy)]
pub(super) struct KeyTables<'t> {
    one: &'t [u32],
    words: &'t [u64],
    before: &'t [u32],
    positions: &'t [u32],
    dense: &'t [u8],
    bases: &'t [u32],
}

/// What a short-key lookup found.
pub(super) enum Short {
    /// The entry at this position.
    Found(usize),
    /// A one- or two-byte key that was never issued.
    Unknown,
    /// Not a one- or two-byte key (or no tables): look it up otherwise.
    Long,
}

impl<A: Allocator> KeyIndex<A> {
    /// Empty tables; allocates nothing.
    pub(super) fn new_in(alloc: A) -> Self
    where
        A: Clone,
    {
        KeyIndex {
            one: TryVec::new_in(alloc.clone()),
            words: TryVec::new_in(alloc.clone()),
            before: TryVec::new_in(alloc.clone()),
            positions: TryVec::new_in(alloc.clone()),
            dense: TryVec::new_in(alloc.clone()),
            bases: TryVec::new_in(alloc),
        }
    }

    /// Rebuilds the tables over the keys `key(0), key(1), …` of `n` entries
    /// sorted by key.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`], [`Error::CapacityOverflow`].
    #[cfg(test)]
    pub(super) fn rebuild<'k>(&mut self, n: usize, key: impl Fn(usize) -> &'k [u8]) -> Result<()> {
        let two = (0..n).filter(|&i| key(i).len() == 2).count();
        self.rebuild_counted(n, two, |i| Ok(key(i)))
    }

    /// Rebuilds the tables over the keys `key(0), key(1), …` of `n` entries
    /// sorted by key, `two` of them two-byte keys.
    ///
    /// # Errors
    /// The first error of `key`; [`Error::AllocationFailed`] (not for the dense table: the bitmap is
    /// used instead), [`Error::CapacityOverflow`].
    pub(super) fn rebuild_counted<'k>(
        &mut self,
        n: usize,
        two: usize,
        key: impl Fn(usize) -> Result<&'k [u8]>,
    ) -> Result<()> {
        if n > u32::MAX as usize {
            return Err(Error::CapacityOverflow);
        }
        // Positions below `n` fit 32 bits.
        let pos = |i: usize| i as u32;
        self.one.clear();
        self.words.clear();
        self.before.clear();
        self.positions.clear();
        self.dense.clear();
        self.bases.clear();
        self.one.try_extend_from_fn(256, |_| 0)?;
        // Many two-byte keys: their ranks in a dense table when its 65 KiB
        // can be had, else (also when the allocator refuses it: a small
        // arena) through the 8 KiB bitmap, found the same way.
        let dense = two >= DENSE_MIN
            && match self
                .bases
                .try_reserve_exact(256)
                .and_then(|()| self.bases.try_extend_from_fn(256, |_| 0))
                .and_then(|()| self.dense.try_reserve_exact(65536))
                .and_then(|()| self.dense.try_extend_from_fn(65536, |_| 0))
            {
                Ok(()) => true,
                Err(e) if e.kind() == ErrorKind::AllocationFailed => {
                    self.bases.clear();
                    self.dense.clear();
                    false
                }
                Err(e) => return Err(e),
            };
        if two > 0 {
            if !dense {
                self.words.try_reserve_exact(1024)?;
                self.words.try_extend_from_fn(1024, |_| 0)?;
            }
            self.positions.try_reserve_exact(two)?;
            self.positions.try_extend_from_fn(two, |_| 0)?;
        }
        {
            let one = self.one.as_mut_slice();
            let words = self.words.as_mut_slice();
            let places = self.dense.as_mut_slice();
            let bases = self.bases.as_mut_slice();
            let positions = self.positions.as_mut_slice();
            // Two-byte keys so far, and then before the current first byte.
            let (mut rank, mut base, mut first) = (0usize, 0usize, None);
            let mut next = positions.iter_mut();
            for i in 0..n {
                match *key(i)? {
                    [b] => {
                        if let Some(s) = one.get_mut(usize::from(b)) {
                            *s = pos(i + 1);
                        }
                    }
                    [b, c] => {
                        let at = usize::from(b) * 256 + usize::from(c);
                        if first != Some(b) {
                            first = Some(b);
                            base = rank;
                            if let Some(s) = bases.get_mut(usize::from(b)) {
                                *s = pos(base);
                            }
                        }
                        if let Some(p) = places.get_mut(at) {
                            // Sorted, distinct keys: at most 256 share `b`
                            // (254 as issued), so their place fits.
                            *p = u8::try_from(rank - base + 1)
                                .map_err(|_| Error::CapacityOverflow)?;
                        }
                        rank += 1;
                        if let Some(w) = words.get_mut(at / 64) {
                            *w |= 1 << (at % 64);
                        }
                        if let Some(p) = next.next() {
                            *p = pos(i);
                        }
                    }
                    _ => {}
                }
            }
        }
        if two > 0 && !dense {
            self.before.try_reserve_exact(1024)?;
            let mut count = 0u32;
            for &w in self.words.as_slice() {
                self.before.try_push(count)?;
                count += w.count_ones();
            }
        }
        Ok(())
    }

    /// The tables, for [`KeyTables::find`].
    pub(super) fn tables(&self) -> KeyTables<'_> {
        KeyTables {
            one: self.one.as_slice(),
            words: self.words.as_slice(),
            before: self.before.as_slice(),
            positions: self.positions.as_slice(),
            dense: self.dense.as_slice(),
            bases: self.bases.as_slice(),
        }
    }
}

impl KeyTables<'_> {
    /// The entry of key `key` (bytes as issued, no terminator).
    #[inline]
    pub(super) fn find(&self, key: &[u8]) -> Short {
        match *key {
            [b] => match self.one.get(usize::from(b)) {
                Some(&p) if p != 0 => Short::Found(p as usize - 1),
                Some(_) => Short::Unknown,
                None => Short::Long,
            },
            [b, c] => self.find_two(b, c),
            _ => Short::Long,
        }
    }

    /// Where the entry of key `[b, c]` is among the two-byte keys (its
    /// rank), `Err(short)` when not found (`Unknown` or `Long`).
    #[inline(always)]
    pub(super) fn rank_two(&self, b: u8, c: u8) -> core::result::Result<usize, Short> {
        let at = usize::from(b) * 256 + usize::from(c);
        if let Some(&p) = self.dense.get(at) {
            return match (p.checked_sub(1), self.bases.get(usize::from(b))) {
                (Some(p), Some(&base)) => Ok(base as usize + usize::from(p)),
                (None, _) => Err(Short::Unknown),
                (Some(_), None) => Err(Short::Long),
            };
        }
        let (Some(&w), Some(&before)) = (self.words.get(at / 64), self.before.get(at / 64)) else {
            return Err(if self.one.is_empty() {
                Short::Long
            } else {
                Short::Unknown
            });
        };
        let bit = 1u64 << (at % 64);
        if w & bit == 0 {
            return Err(Short::Unknown);
        }
        Ok(before as usize + (w & (bit - 1)).count_ones() as usize)
    }

    /// Entry positions of the one-byte keys (+ 1, 0: none) by byte, and of
    /// the two-byte keys by rank.
    pub(super) fn positions(&self) -> (&[u32], &[u32]) {
        (self.one, self.positions)
    }

    /// The entry of key `[b, c]`.
    #[inline(always)]
    pub(super) fn find_two(&self, b: u8, c: u8) -> Short {
        match self.rank_two(b, c) {
            Ok(rank) => match self.positions.get(rank) {
                Some(&p) => Short::Found(p as usize),
                None => Short::Long,
            },
            Err(short) => short,
        }
    }

    /// The entry of one-byte key `[b]`.
    #[inline(always)]
    pub(super) fn find_one(&self, b: u8) -> Short {
        match self.one.get(usize::from(b)) {
            Some(&p) if p != 0 => Short::Found(p as usize - 1),
            Some(_) => Short::Unknown,
            None => Short::Long,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use allocator_api2::alloc::Global;
    use std::vec::Vec;

    /// One- and two-byte keys map to their positions, other short keys are
    /// unknown, longer keys are left to the caller.
    #[test]
    fn short_keys_find_their_entries() {
        let keys: Vec<Vec<u8>> = std::vec![
            std::vec![2],
            std::vec![3, 2],
            std::vec![3, 2, 9],
            std::vec![3, 0xFF],
            std::vec![4],
            std::vec![0x80, 0x40],
            std::vec![0xFF, 0xFF],
        ];
        let mut k = KeyIndex::new_in(Global);
        let t = k.tables();
        assert!(matches!(t.find(&[2]), Short::Long));
        k.rebuild(keys.len(), |i| &keys[i]).unwrap();
        let t = k.tables();
        for (i, key) in keys.iter().enumerate() {
            match t.find(key) {
                Short::Found(p) => assert_eq!(p, i, "{key:?}"),
                Short::Long => assert_eq!(key.len(), 3),
                Short::Unknown => panic!("{key:?} not found"),
            }
        }
        assert!(matches!(t.find(&[3]), Short::Unknown));
        assert!(matches!(t.find(&[3, 3]), Short::Unknown));
        assert!(matches!(t.find(&[0xFF, 0xFE]), Short::Unknown));
        assert!(matches!(t.find(&[]), Short::Long));
        assert!(matches!(t.find_one(4), Short::Found(4)));
        assert!(matches!(t.find_two(0x80, 0x40), Short::Found(5)));
        // Only one-byte keys: two-byte lookups are unknown.
        k.rebuild(1, |_| &[7][..]).unwrap();
        let t = k.tables();
        assert!(matches!(t.find(&[7]), Short::Found(0)));
        assert!(matches!(t.find(&[7, 7]), Short::Unknown));
    }

    /// With at least `DENSE_MIN` two-byte keys (the dense table), every
    /// key finds its entry and keys never issued are unknown, as through
    /// the bitmap.
    #[test]
    fn dense_two_byte_keys_find_their_entries() {
        let keys = many_two_byte_keys();
        let mut k = KeyIndex::new_in(Global);
        k.rebuild(keys.len(), |i| &keys[i]).unwrap();
        assert_eq!(k.dense.len(), 65536);
        assert_eq!(k.bases.len(), 256);
        assert!(k.words.is_empty());
        finds_exactly(k.tables(), &keys);
        // Fewer keys again: back to the bitmap.
        k.rebuild(3, |i| &keys[i]).unwrap();
        assert!(k.dense.is_empty());
        assert!(matches!(k.tables().find(&[3, 4]), Short::Found(2)));
    }

    /// Sorted keys: 1,270 two-byte keys (more than `DENSE_MIN`) among one-
    /// and three-byte ones.
    fn many_two_byte_keys() -> Vec<Vec<u8>> {
        let mut keys: Vec<Vec<u8>> = std::vec![std::vec![2]];
        for b in 3..=12u8 {
            for c in (2..=255u8).step_by(2) {
                keys.push(std::vec![b, c]);
                if c == 100 {
                    keys.push(std::vec![b, c, 9]);
                }
            }
            keys.push(std::vec![b, 0xFF, 0xFF]);
        }
        keys.push(std::vec![13]);
        assert!(keys.iter().filter(|k| k.len() == 2).count() >= DENSE_MIN);
        keys
    }

    /// Every key of `many_two_byte_keys` finds its entry through `t`
    /// (three-byte keys are left to the caller), keys never issued are
    /// unknown.
    fn finds_exactly(t: KeyTables<'_>, keys: &[Vec<u8>]) {
        for (i, key) in keys.iter().enumerate() {
            match t.find(key) {
                Short::Found(p) => assert_eq!(p, i, "{key:?}"),
                Short::Long => assert_eq!(key.len(), 3),
                Short::Unknown => panic!("{key:?} not found"),
            }
        }
        for key in [[3u8, 3], [3, 1], [13, 2], [0xFF, 0xFF], [0, 0], [12, 255]] {
            assert!(matches!(t.find(&key), Short::Unknown), "{key:?}");
        }
    }

    /// When the allocator refuses the dense table's 65 KiB, the tables are
    /// built with the bitmap instead and find every key the same way.
    #[test]
    fn dense_table_refused_falls_back_to_the_bitmap() {
        let keys = many_two_byte_keys();
        // A small heap: at most 32 KiB outstanding.
        let small = alkaid_alloc::Counting::with_limit(Global, 32 * 1024);
        let mut k = KeyIndex::new_in(&small);
        k.rebuild(keys.len(), |i| &keys[i]).unwrap();
        assert_eq!(small.failed_requests(), 1, "the dense table was refused");
        assert!(k.dense.is_empty() && k.bases.is_empty());
        assert_eq!(k.words.len(), 1024);
        finds_exactly(k.tables(), &keys);
    }
}
