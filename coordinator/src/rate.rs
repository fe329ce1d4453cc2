//! Units (trials or pairs) per second over the last minute: the throughput of a
//! worker (in `/metrics` and on the page) and of a job (its rate and ETA on the
//! page).

use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// The window of a rate: a minute smooths over batches of ~10 s while following a
/// worker that slows down within a few scrapes.
pub const RATE_WINDOW: Duration = Duration::from_secs(60);

/// Accepted units within [`RATE_WINDOW`], and since when they are counted.
#[derive(Clone, Debug)]
pub struct Rate {
    since: Instant,
    /// (when, units), oldest first.
    recent: VecDeque<(Instant, u64)>,
}

impl Rate {
    /// A rate counted from `now`.
    pub fn new(now: Instant) -> Rate {
        Rate {
            since: now,
            recent: VecDeque::new(),
        }
    }

    /// Counts `units` accepted at `now`, forgetting what left the window.
    pub fn add(&mut self, now: Instant, units: u64) {
        self.recent.push_back((now, units));
        while self
            .recent
            .front()
            .is_some_and(|&(t, _)| now.duration_since(t) > RATE_WINDOW)
        {
            self.recent.pop_front();
        }
    }

    /// Units per second over the last minute (over its life when younger; at least
    /// one second, so a first result does not read as a huge rate).
    pub fn per_second(&self, now: Instant) -> f64 {
        let window = now
            .duration_since(self.since)
            .min(RATE_WINDOW)
            .max(Duration::from_secs(1));
        let units: u64 = self
            .recent
            .iter()
            .filter(|&&(t, _)| now.duration_since(t) <= window)
            .map(|&(_, u)| u)
            .sum();
        units as f64 / window.as_secs_f64()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_over_the_last_minute() {
        let t0 = Instant::now();
        let mut r = Rate::new(t0);
        r.add(t0 + Duration::from_secs(1), 100);
        // 100 units in the first 2 s.
        assert!((r.per_second(t0 + Duration::from_secs(2)) - 50.0).abs() < 1e-9);
        r.add(t0 + Duration::from_secs(100), 600);
        // Only the second result is inside the minute.
        assert!((r.per_second(t0 + Duration::from_secs(120)) - 10.0).abs() < 1e-9);
        // A first result within a second reads as its units per second, not more.
        let mut q = Rate::new(t0);
        q.add(t0, 7);
        assert!((q.per_second(t0) - 7.0).abs() < 1e-9);
    }
}
