//! A fixed-size evaluation cache shared by all the threads of a search, without locks.
//!
//! Deep searches and rollouts meet the same positions again and again (the replies
//! to the 21 rolls after different plays, the first turns of every rollout trial),
//! and an n-ply value costs ~150 (1-ply) to ~3,000 (2-ply) network evaluations with
//! the default reply pruning. The cache maps (position, ply, evaluation context) to
//! the cubeless probabilities.
//!
//! Layout: a power-of-two table of 64-byte buckets (one cache line each) of two
//! 32-byte slots, each four `AtomicU64` words: a check word, then the five `f32`
//! probabilities and a tag (29 bits of a second, independent hash of the key and the
//! ply). A slot is written whole by a store and read whole by a load, each word
//! relaxed-atomically; the check word is `h1 ^ w1 ^ w2 ^ w3`, so a read that races
//! with a write and sees words of two different entries fails the check and counts
//! as a miss (the "lockless hashing" trick of chess engines). No locks, no `unsafe`.
//!
//! Correctness: a hit must come from the same key. The bucket index uses the low
//! bits of `h1`, the check compares all 64 bits of `h1` and the tag 29 more bits of
//! `h2` and the ply, so a different key passes with probability ~2^-93 per lookup
//! (for 10^15 lookups, about 10^-13 in all). The values are pure functions of the
//! key, so a search returns bit-identical results whether it hits, misses, or runs
//! with any number of threads.
//!
//! Replacement: the first slot of a bucket prefers deep values (a new value goes
//! there when its ply is at least the ply stored there), the second always takes
//! what the first declined. A 2-ply value costs ~9,000 network evaluations and a
//! 0-ply one a single evaluation, so a flood of 0-ply values must not push the deep
//! ones out. Statistics are counted by each searcher and added to the cache's totals
//! when the searcher is dropped, so the hot path touches no shared counter.
//!
//! Measured (`search::measure` tests, release build, 1M slots = 32 MiB, keys of
//! real positions, on this project's shared and busy 2-core machine, three runs): a
//! lookup-store-lookup round costs 81-140 ns per operation on one thread and
//! 134-215 ns on two, against 204-386 ns and 181-267 ns for the same table behind
//! 1,024 striped mutexes. Most of it is the memory access itself: a 32 MiB table
//! does not fit in the CPU caches.

use crate::eval::Probs;
use crate::position::Position;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Bytes per slot (two per bucket).
pub const SLOT_BYTES: usize = 32;

/// Two slots of four words, on one cache line.
#[repr(align(64))]
struct Bucket([AtomicU64; 8]);

impl Bucket {
    fn empty() -> Bucket {
        Bucket(std::array::from_fn(|_| AtomicU64::new(0)))
    }
}

/// The cache key of one value: both hashes of (position, ply, context).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CacheKey {
    h1: u64,
    /// 29 bits of the second hash, then the ply (capped at 7) in the low 3 bits.
    tag: u32,
}

impl CacheKey {
    /// The key of the `ply`-ply value of `pos` under the evaluation context `context`
    /// (a hash of the evaluator's fingerprint and the search settings).
    #[inline]
    pub fn new(pos: &Position, ply: u8, context: u64) -> CacheKey {
        let b = pos.pips().map(|x| x as u8);
        let word = |i: usize| {
            u64::from_le_bytes([
                b[i],
                b[i + 1],
                b[i + 2],
                b[i + 3],
                b[i + 4],
                b[i + 5],
                b[i + 6],
                b[i + 7],
            ])
        };
        let tail = u64::from(b[24]) | u64::from(b[25]) << 8 | u64::from(ply) << 16;
        let words = [word(0), word(8), word(16), tail];
        let h1 = hash(&words, context ^ 0x243F_6A88_85A3_08D3) | 1;
        let h2 = hash(&words, context ^ 0x1319_8A2E_0370_7344) as u32;
        CacheKey {
            h1,
            tag: (h2 & !7) | u32::from(ply.min(7)),
        }
    }

    /// The first hash, for measurements of other table designs.
    #[cfg(test)]
    pub(super) fn h1(&self) -> u64 {
        self.h1
    }
}

/// Mixes four words and a seed (multiply-xorshift rounds, SplitMix64's finaliser).
#[inline]
fn hash(words: &[u64; 4], seed: u64) -> u64 {
    let mut h = seed;
    for &w in words {
        h = (h ^ w).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        h ^= h >> 29;
    }
    h = (h ^ (h >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    h = (h ^ (h >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    h ^ (h >> 31)
}

/// Totals of lookups over the cache's life (or since [`EvalCache::reset_stats`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Lookups answered from the cache.
    pub hits: u64,
    /// Lookups not answered (absent, replaced, or torn by a concurrent write).
    pub misses: u64,
}

impl CacheStats {
    /// Hits over lookups (0 with no lookup).
    pub fn hit_rate(&self) -> f64 {
        let n = self.hits + self.misses;
        if n == 0 {
            0.0
        } else {
            self.hits as f64 / n as f64
        }
    }

    /// Adds `other`.
    pub fn add(&mut self, other: CacheStats) {
        self.hits += other.hits;
        self.misses += other.misses;
    }
}

/// The shared evaluation cache. See the module docs.
pub struct EvalCache {
    buckets: Box<[Bucket]>,
    mask: u64,
    hits: AtomicU64,
    misses: AtomicU64,
}

impl EvalCache {
    /// A cache of `slots` entries, rounded up to a power of two (at least 2);
    /// it takes `32 * slots` bytes.
    pub fn new(slots: usize) -> EvalCache {
        let n = (slots.max(2).next_power_of_two()) / 2;
        EvalCache {
            buckets: (0..n).map(|_| Bucket::empty()).collect(),
            mask: (n - 1) as u64,
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        }
    }

    /// A cache of at most `mib` MiB (at least 2 slots).
    pub fn with_mib(mib: usize) -> EvalCache {
        let slots = (mib << 20) / SLOT_BYTES;
        // Round down to a power of two so the limit holds.
        let n = if slots < 2 {
            2
        } else {
            1 << (usize::BITS - 1 - slots.leading_zeros())
        };
        EvalCache::new(n)
    }

    /// Number of slots.
    pub fn slots(&self) -> usize {
        self.buckets.len() * 2
    }

    #[inline]
    fn bucket(&self, key: CacheKey) -> &[AtomicU64; 8] {
        // `mask < buckets.len()`, so the index is in range.
        &self.buckets[(key.h1 & self.mask) as usize].0
    }

    /// The value stored under `key`, if any.
    #[inline]
    pub fn get(&self, key: CacheKey) -> Option<Probs> {
        let b = self.bucket(key);
        read(&b[..4], key).or_else(|| read(&b[4..], key))
    }

    /// Stores `probs` under `key`, in the bucket's first slot when that slot holds
    /// this key or a value of at most the same ply, else in the second.
    #[inline]
    pub fn put(&self, key: CacheKey, probs: &Probs) {
        let b = self.bucket(key);
        // A racy read is fine here: it only steers the choice of slot.
        let first_tag = (b[3].load(Relaxed) >> 32) as u32;
        let first_check = b[0].load(Relaxed);
        let own = first_tag == key.tag
            && first_check ^ b[1].load(Relaxed) ^ b[2].load(Relaxed) ^ b[3].load(Relaxed) == key.h1;
        let slot = if own || key.tag & 7 >= first_tag & 7 {
            &b[..4]
        } else {
            &b[4..]
        };
        let p = probs.0.map(|x| u64::from(x.to_bits()));
        let w1 = p[0] | p[1] << 32;
        let w2 = p[2] | p[3] << 32;
        let w3 = p[4] | u64::from(key.tag) << 32;
        slot[1].store(w1, Relaxed);
        slot[2].store(w2, Relaxed);
        slot[3].store(w3, Relaxed);
        slot[0].store(key.h1 ^ w1 ^ w2 ^ w3, Relaxed);
    }

    /// Adds lookup counts (searchers call this when they are dropped).
    pub fn record(&self, stats: CacheStats) {
        self.hits.fetch_add(stats.hits, Relaxed);
        self.misses.fetch_add(stats.misses, Relaxed);
    }

    /// Lookup totals recorded so far.
    pub fn stats(&self) -> CacheStats {
        CacheStats {
            hits: self.hits.load(Relaxed),
            misses: self.misses.load(Relaxed),
        }
    }

    /// Sets the totals back to zero.
    pub fn reset_stats(&self) {
        self.hits.store(0, Relaxed);
        self.misses.store(0, Relaxed);
    }

    /// Empties every slot (statistics are kept).
    pub fn clear(&self) {
        for b in self.buckets.iter() {
            for w in &b.0 {
                w.store(0, Relaxed);
            }
        }
    }
}

/// The value in `slot` (four words) if it holds `key` and was not torn.
#[inline]
fn read(slot: &[AtomicU64], key: CacheKey) -> Option<Probs> {
    let w0 = slot[0].load(Relaxed);
    let w1 = slot[1].load(Relaxed);
    let w2 = slot[2].load(Relaxed);
    let w3 = slot[3].load(Relaxed);
    if w0 ^ w1 ^ w2 ^ w3 != key.h1 || (w3 >> 32) as u32 != key.tag {
        return None;
    }
    let lo = |w: u64| f32::from_bits(w as u32);
    let hi = |w: u64| f32::from_bits((w >> 32) as u32);
    Some(Probs([lo(w1), hi(w1), lo(w2), hi(w2), lo(w3)]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::movegen::MoveGenerator;
    use crate::rng::Rng;

    /// Distinct positions from random play (one per turn of a few games).
    fn positions(n: usize) -> Vec<Position> {
        let mut rng = Rng::new(11);
        let mut gen = MoveGenerator::new();
        let mut out = Vec::with_capacity(n);
        let mut pos = Position::STARTING;
        while out.len() < n {
            let moves = gen.generate(&pos, rng.roll());
            pos = match moves.len() {
                0 => pos.switch_sides(),
                k => moves[rng.below(k as u32) as usize].next_position(),
            };
            if pos.game_over() {
                pos = Position::STARTING;
            } else {
                out.push(pos);
            }
        }
        out.sort();
        out.dedup();
        out
    }

    fn probs_of(i: usize) -> Probs {
        let x = i as f32 * 1e-3;
        Probs([0.5 + x, 0.1, 0.01, 0.2 - x, 0.02])
    }

    #[test]
    fn stores_and_finds_exact_values() {
        let cache = EvalCache::new(1 << 12);
        let ps = positions(200);
        for (i, p) in ps.iter().enumerate() {
            cache.put(CacheKey::new(p, 2, 7), &probs_of(i));
        }
        let mut found = 0;
        for (i, p) in ps.iter().enumerate() {
            if let Some(v) = cache.get(CacheKey::new(p, 2, 7)) {
                assert_eq!(v, probs_of(i));
                found += 1;
            }
            // Another ply or context is another key.
            assert_eq!(cache.get(CacheKey::new(p, 1, 7)), None);
            assert_eq!(cache.get(CacheKey::new(p, 2, 8)), None);
        }
        // 200 keys in 2048 two-slot buckets: a few may collide and replace each other.
        assert!(found >= 180, "{found}");
        cache.clear();
        assert!(ps
            .iter()
            .all(|p| cache.get(CacheKey::new(p, 2, 7)).is_none()));
    }

    #[test]
    fn a_tiny_cache_never_confuses_keys() {
        // Two slots, many keys: every hit must still be the key's own value.
        let cache = EvalCache::new(2);
        let ps = positions(300);
        for (i, p) in ps.iter().enumerate() {
            cache.put(CacheKey::new(p, 0, 1), &probs_of(i));
            for (j, q) in ps.iter().enumerate().take(i + 1) {
                if let Some(v) = cache.get(CacheKey::new(q, 0, 1)) {
                    assert_eq!(v, probs_of(j));
                }
            }
        }
    }

    #[test]
    fn sizes_and_stats() {
        assert_eq!(EvalCache::new(1000).slots(), 1024);
        assert_eq!(EvalCache::with_mib(1).slots(), (1 << 20) / 32);
        assert_eq!(EvalCache::with_mib(0).slots(), 2);
        let c = EvalCache::new(4);
        c.record(CacheStats { hits: 3, misses: 1 });
        assert_eq!(c.stats().hit_rate(), 0.75);
        c.reset_stats();
        assert_eq!(c.stats(), CacheStats::default());
        assert_eq!(c.stats().hit_rate(), 0.0);
    }

    #[test]
    fn threads_writing_one_slot_never_produce_torn_values() {
        // Four threads hammer a two-slot cache with keys whose values encode the key;
        // a torn read would pair one key's check with another's probabilities.
        let cache = EvalCache::new(2);
        let ps = positions(64);
        std::thread::scope(|s| {
            for t in 0..4usize {
                let (cache, ps) = (&cache, &ps);
                s.spawn(move || {
                    for round in 0..20_000usize {
                        let i = (round * 7 + t * 13) % ps.len();
                        let key = CacheKey::new(&ps[i], 0, 0);
                        if round % 2 == 0 {
                            cache.put(key, &probs_of(i));
                        } else if let Some(v) = cache.get(key) {
                            assert_eq!(v, probs_of(i));
                        }
                    }
                });
            }
        });
    }
}
