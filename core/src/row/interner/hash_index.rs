//! Hash indexes of the interner: open addressing over entry positions,
//! with bounded probe sequences (see [`MAX_PROBE`]).

use allocator_api2::alloc::Allocator;

use crate::buffer::TryVec;
use crate::error::{Error, Result};

/// Longest probe sequence of a [`HashIndex`] insertion or lookup.
const MAX_PROBE: usize = 32;

/// A 64-bit hash of `bytes` (multiply-rotate over 8-byte words; not
/// collision resistant, see [`MAX_PROBE`]).
pub(super) fn hash(bytes: &[u8]) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mut h = (bytes.len() as u64).wrapping_mul(K);
    let mut words = bytes.chunks_exact(8);
    for w in &mut words {
        let w = u64::from_le_bytes(w.try_into().unwrap_or_default());
        h = (h.rotate_left(5) ^ w).wrapping_mul(K);
    }
    let rest = words.remainder();
    if !rest.is_empty() {
        // Byte by byte (at most 7): keys are short, a `memcpy` call costs more.
        let last = rest
            .iter()
            .enumerate()
            .fold(0u64, |w, (i, &b)| w | (u64::from(b) << (8 * i)));
        h = (h.rotate_left(5) ^ last).wrapping_mul(K);
    }
    h ^ (h >> 32)
}

/// What a [`HashIndex`] lookup found.
pub(super) enum Lookup {
    /// The entry at this position.
    Found(usize),
    /// Not interned.
    Absent,
    /// Not in the index, which is incomplete: search the entries.
    Unknown,
}

/// Open addressing over entry positions: a power-of-two table of `u32`
/// slots holding position + 1 (0: empty), linear probing.
pub(super) struct HashIndex<A: Allocator> {
    slots: TryVec<u32, A>,
    /// Every entry is in the table.
    pub(super) complete: bool,
}

impl<A: Allocator> HashIndex<A> {
    pub(super) fn new_in(alloc: A) -> Self {
        HashIndex {
            slots: TryVec::new_in(alloc),
            complete: true,
        }
    }

    /// Indexes entries `0..n`, entry `i` under `hash_of(i)` (`None`: not
    /// indexed; lookups of it answer `Absent` or `Unknown`).
    pub(super) fn rebuild(
        &mut self,
        n: usize,
        hash_of: impl Fn(usize) -> Result<Option<u64>>,
    ) -> Result<()> {
        if n >= u32::MAX as usize {
            return Err(Error::CapacityOverflow);
        }
        self.slots.clear();
        self.complete = true;
        let mut count = 0usize;
        for i in 0..n {
            count += usize::from(hash_of(i)?.is_some());
        }
        if count == 0 {
            return Ok(());
        }
        let cap = count
            .checked_mul(2)
            .and_then(|c| c.max(16).checked_next_power_of_two())
            .ok_or(Error::CapacityOverflow)?;
        self.slots.try_reserve_exact(cap)?;
        self.slots.try_extend_from_fn(cap, |_| 0)?;
        let slots = self.slots.as_mut_slice();
        let mask = cap - 1;
        for i in 0..n {
            let Some(h) = hash_of(i)? else { continue };
            let mut at = h as usize & mask;
            let mut placed = false;
            for _ in 0..MAX_PROBE {
                let slot = slots.get_mut(at).ok_or(Error::OutOfBounds)?;
                if *slot == 0 {
                    *slot = i as u32 + 1;
                    placed = true;
                    break;
                }
                at = (at + 1) & mask;
            }
            self.complete &= placed;
        }
        Ok(())
    }

    /// The entry whose hash is `h` and for which `is(position)` holds.
    ///
    /// # Errors
    /// The first error of `is`.
    pub(super) fn find(&self, h: u64, is: impl Fn(usize) -> Result<bool>) -> Result<Lookup> {
        let slots = self.slots.as_slice();
        let missed = if self.complete {
            Lookup::Absent
        } else {
            Lookup::Unknown
        };
        if slots.is_empty() {
            return Ok(missed);
        }
        let mask = slots.len() - 1;
        let mut at = h as usize & mask;
        for _ in 0..MAX_PROBE {
            match slots.get(at) {
                Some(0) | None => break,
                Some(&p) => {
                    let i = p as usize - 1;
                    if is(i)? {
                        return Ok(Lookup::Found(i));
                    }
                }
            }
            at = (at + 1) & mask;
        }
        Ok(missed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use allocator_api2::alloc::Global;

    /// Colliding hashes fill at most `MAX_PROBE` slots; the rest make the
    /// index incomplete and their lookups `Unknown` (binary search follows).
    #[test]
    fn hash_index_bounds_probes() {
        let mut h = HashIndex::new_in(Global);
        assert!(matches!(h.find(1, |_| Ok(true)), Ok(Lookup::Absent)));
        h.rebuild(100, |_| Ok(Some(7))).unwrap();
        assert!(!h.complete);
        assert!(matches!(h.find(7, |i| Ok(i == 3)), Ok(Lookup::Found(3))));
        assert!(matches!(h.find(7, |i| Ok(i == 50)), Ok(Lookup::Unknown)));
        h.rebuild(100, |i| Ok(Some(i as u64 * 0x9E37_79B9)))
            .unwrap();
        assert!(h.complete);
        assert!(matches!(
            h.find(50 * 0x9E37_79B9, |i| Ok(i == 50)),
            Ok(Lookup::Found(50))
        ));
        assert!(matches!(h.find(12345, |_| Ok(false)), Ok(Lookup::Absent)));
        let broken = h.find(50 * 0x9E37_79B9, |_| Err(Error::InvalidRow));
        assert_eq!(broken.err(), Some(Error::InvalidRow));
    }
}
