//! The engine's random numbers: a small, fast generator whose stream is fixed by this
//! file alone, so that a trial seeded with (job seed, trial index) rolls the same dice
//! on every machine and every future build (the determinism contract in DESIGN.md).
//! External RNG crates change their streams between major versions; this one cannot.
//!
//! xoshiro256++ (Blackman and Vigna), seeded through SplitMix64.

/// SplitMix64 step: a good 64-bit mixer, used for seeding and for deriving streams.
#[inline]
pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A deterministic random number generator.
#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> Rng {
        let mut sm = seed;
        Rng {
            s: [
                splitmix64(&mut sm),
                splitmix64(&mut sm),
                splitmix64(&mut sm),
                splitmix64(&mut sm),
            ],
        }
    }

    /// An independent stream for item `index` of a job with `seed` (trial i, game i).
    pub fn for_stream(seed: u64, index: u64) -> Rng {
        let mut sm = seed ^ 0x6A09_E667_F3BC_C909;
        let a = splitmix64(&mut sm);
        let mut sm2 = a ^ index.wrapping_mul(0xD1B5_4A32_D192_ED03);
        Rng::new(splitmix64(&mut sm2))
    }

    /// Next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = (s[0].wrapping_add(s[3])).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Uniform in `0..n` (n > 0), without modulo bias (Lemire's method).
    #[inline]
    pub fn below(&mut self, n: u32) -> u32 {
        let n64 = u64::from(n);
        loop {
            let m = u64::from(self.next_u64() as u32) * n64;
            let low = m as u32;
            if low >= n {
                return (m >> 32) as u32;
            }
            let threshold = n.wrapping_neg() % n;
            if low >= threshold {
                return (m >> 32) as u32;
            }
        }
    }

    /// Uniform in [0, 1).
    #[inline]
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// A roll of two dice.
    #[inline]
    pub fn roll(&mut self) -> crate::dice::Dice {
        let r = self.below(36) as u8;
        match crate::dice::Dice::new(r / 6 + 1, r % 6 + 1) {
            Some(d) => d,
            None => unreachable!("r < 36 gives dice 1..=6"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let a: Vec<u64> = (0..4).map(|_| Rng::for_stream(7, 3).next_u64()).collect();
        assert!(a.windows(2).all(|w| w[0] == w[1]));
        assert_ne!(
            Rng::for_stream(7, 3).next_u64(),
            Rng::for_stream(7, 4).next_u64()
        );
        assert_ne!(
            Rng::for_stream(7, 3).next_u64(),
            Rng::for_stream(8, 3).next_u64()
        );
    }

    #[test]
    fn dice_are_uniform_enough() {
        let mut r = Rng::new(1);
        let mut counts = [0u32; 36];
        for _ in 0..360_000 {
            let (a, b) = r.roll().values();
            counts[usize::from((a - 1) * 6 + b - 1)] += 1;
        }
        // Expected 10,000 each; 5 sigma is 500.
        assert!(
            counts.iter().all(|&c| (9_500..10_500).contains(&c)),
            "{counts:?}"
        );
    }
}
