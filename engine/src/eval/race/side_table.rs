//! The one-sided searches' memo index: a race side, packed into 41 bits, to where
//! its distribution is stored and its expected rolls, in an open-addressing table
//! of 16-byte slots that a search can prefetch a roll's plays from at once.
//!
//! Why: a first-off search of a saver with stragglers far back visits millions of
//! positions and looks each one's 21 rolls' plays up (a few hundred look-ups a
//! position), so its time goes into cache misses on the memo: 70% of
//! `bgfarm-lab bench race-referee` on the bench's gammon saves, with the standard
//! library's map of `u128` keys (32-byte entries behind a separate control array:
//! two misses a look-up, one after the other). Here a look-up is one miss, a slot
//! holds everything the search reads, and [`SideTable::prefetch`] lets the misses
//! of a roll's plays overlap instead of following each other.
//!
//! The key: each point's checkers in unary (that many one bits, then a zero), the
//! 24 points after a leading `10` (the zero ends the ones of point 24 on the far
//! side): at most 2 + 15 + 24 = 41 bits, never 0 (the empty slot's mark), and one
//! key per side.

use super::side::Side;

/// One slot: `key` 0 is empty.
#[derive(Clone, Copy, Default)]
#[repr(C, align(16))]
struct Slot {
    key: u64,
    span: u32,
    expected: f32,
}

/// The table. Linear probing, at most 3/4 full; it doubles before that.
#[derive(Default)]
pub struct SideTable {
    slots: Vec<Slot>,
    len: usize,
    /// log2 of `slots.len()` (0 while there are none).
    bits: u32,
}

/// The key of `side` (its points 1 to 24 in `side[0..24]`, at most 15 checkers).
///
/// Written as the bits that are zero rather than by shifting one point in at a
/// time: point `i`'s closing zero is bit `i + (checkers below it)`, every other bit
/// up to the length is one. One add and one xor a point, no chain of variable
/// shifts (the shifting version was 20% of a small search's time).
#[inline]
pub fn side_key(side: &Side) -> u64 {
    let mut below = 0u32;
    let mut zeros = 0u64;
    for (i, &c) in side.iter().enumerate() {
        zeros |= 1 << (i as u32 + below);
        below += u32::from(c.min(15));
    }
    let len = 24 + below;
    (((1u64 << len) - 1) ^ zeros) | (2u64 << len)
}

/// The side of a key made by [`side_key`].
pub fn key_side(mut key: u64) -> Side {
    let mut side = [0u8; 24];
    for c in side.iter_mut() {
        key >>= 1;
        let ones = key.trailing_ones();
        *c = ones as u8;
        key >>= ones;
    }
    side
}

impl SideTable {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Empties the table and gives its memory back.
    pub fn clear(&mut self) {
        *self = Self::default();
    }

    /// The slot a key's probe starts at (Fibonacci hashing: the product's top bits).
    fn home(&self, key: u64) -> usize {
        if self.bits == 0 {
            return 0;
        }
        (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - self.bits)) as usize
    }

    /// Asks the cache for `key`'s home slot ahead of [`get`](Self::get).
    #[inline]
    pub fn prefetch(&self, key: u64) {
        if self.slots.is_empty() {
            return;
        }
        let slot: *const Slot = &self.slots[self.home(key)];
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a prefetch is a hint; it never faults and reads nothing into the
        // program, and the address is that of a live slot anyway.
        unsafe {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            _mm_prefetch::<_MM_HINT_T0>(slot.cast());
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = slot;
    }

    /// `(span, expected)` stored for `key`.
    #[inline]
    pub fn get(&self, key: u64) -> Option<(u32, f32)> {
        if self.slots.is_empty() {
            return None;
        }
        let mask = self.slots.len() - 1;
        let mut i = self.home(key);
        loop {
            let s = self.slots[i];
            if s.key == key {
                return Some((s.span, s.expected));
            }
            if s.key == 0 {
                return None;
            }
            i = (i + 1) & mask;
        }
    }

    /// Stores `(span, expected)` for `key`, which the table must not hold yet.
    pub fn insert(&mut self, key: u64, span: u32, expected: f32) {
        debug_assert!(key != 0);
        if (self.len + 1) * 4 > self.slots.len() * 3 {
            self.grow();
        }
        self.place(Slot {
            key,
            span,
            expected,
        });
        self.len += 1;
    }

    fn place(&mut self, slot: Slot) {
        let mask = self.slots.len() - 1;
        let mut i = self.home(slot.key);
        while self.slots[i].key != 0 {
            debug_assert!(self.slots[i].key != slot.key);
            i = (i + 1) & mask;
        }
        self.slots[i] = slot;
    }

    fn grow(&mut self) {
        let bits = (self.bits + 1).max(10);
        let old = std::mem::replace(&mut self.slots, vec![Slot::default(); 1 << bits]);
        self.bits = bits;
        for s in old.into_iter().filter(|s| s.key != 0) {
            self.place(s);
        }
    }

    /// Every `(key, span, expected)` held, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (u64, u32, f32)> + '_ {
        self.slots
            .iter()
            .filter(|s| s.key != 0)
            .map(|s| (s.key, s.span, s.expected))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_round_trip_and_differ() {
        let mut a = [0u8; 24];
        a[0] = 15;
        let mut b = [0u8; 24];
        b[23] = 15;
        let mut c = [0u8; 24];
        c[5] = 3;
        c[12] = 2;
        c[20] = 10;
        let empty = [0u8; 24];
        let keys: Vec<u64> = [a, b, c, empty].iter().map(side_key).collect();
        for (k, s) in keys.iter().zip([a, b, c, empty]) {
            assert_eq!(key_side(*k), s);
            assert!(*k != 0 && *k < 1 << 41);
        }
        for i in 0..keys.len() {
            for j in 0..i {
                assert_ne!(keys[i], keys[j]);
            }
        }
        // 15 checkers on point 24: the leading 10, 15 ones, then 24 zeros.
        assert_eq!(keys[1], 0x17fff << 24);
        assert_eq!(keys[3], 2 << 24);
    }

    #[test]
    fn holds_what_was_put_in_through_growth() {
        let mut t = SideTable::default();
        assert_eq!(t.get(5), None);
        let keys: Vec<u64> = (1..50_000u64).map(|i| i * 7919).collect();
        for (n, &k) in keys.iter().enumerate() {
            t.prefetch(k);
            t.insert(k, n as u32, n as f32 / 2.0);
        }
        assert_eq!(t.len(), keys.len());
        for (n, &k) in keys.iter().enumerate() {
            assert_eq!(t.get(k), Some((n as u32, n as f32 / 2.0)));
        }
        assert_eq!(t.get(3), None);
        assert_eq!(t.iter().count(), keys.len());
        t.clear();
        assert!(t.is_empty() && t.get(7919).is_none());
    }
}
