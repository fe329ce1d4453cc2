//! Randomized, capped exponential backoff ("equal jitter": a delay uniform in
//! [d/2, d] where d doubles from `base` up to `cap`), so idle workers and workers
//! that lost the coordinator do not poll in lockstep.

use std::time::Duration;

/// Backoff state; [`Backoff::reset`] after a success.
pub struct Backoff {
    base: Duration,
    cap: Duration,
    attempt: u32,
    rng: u64,
}

impl Backoff {
    /// Delays from `base` doubling to `cap`, jittered by a generator seeded from the
    /// clock and the process id (no two workers share a sequence).
    pub fn new(base: Duration, cap: Duration) -> Backoff {
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        Backoff {
            base,
            cap,
            attempt: 0,
            rng: t ^ (u64::from(std::process::id()) << 32) | 1,
        }
    }

    /// SplitMix64: plenty for jitter.
    fn next_u64(&mut self) -> u64 {
        self.rng = self.rng.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// The next delay.
    pub fn next_delay(&mut self) -> Duration {
        let d = self
            .base
            .saturating_mul(1u32 << self.attempt.min(20))
            .min(self.cap);
        self.attempt = self.attempt.saturating_add(1);
        let half = d / 2;
        let nanos = half.as_nanos() as u64;
        let extra = if nanos == 0 {
            0
        } else {
            self.next_u64() % (nanos + 1)
        };
        half + Duration::from_nanos(extra)
    }

    /// Back to `base` after a success.
    pub fn reset(&mut self) {
        self.attempt = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_grow_jittered_and_capped() {
        let ms = Duration::from_millis;
        let mut b = Backoff::new(ms(100), ms(1000));
        let d: Vec<Duration> = (0..8).map(|_| b.next_delay()).collect();
        assert!(d[0] >= ms(50) && d[0] <= ms(100), "{d:?}");
        assert!(d[2] >= ms(200) && d[2] <= ms(400), "{d:?}");
        assert!(d[7] >= ms(500) && d[7] <= ms(1000), "{d:?}");
        b.reset();
        assert!(b.next_delay() <= ms(100));
    }
}
