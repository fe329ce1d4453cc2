//! The registry of workers: memory only, rebuilt as workers (re-)register.

use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

/// The window of the per-worker rate: a minute smooths over batches of ~10 s
/// while following a worker that slows down within a few scrapes.
pub const RATE_WINDOW: Duration = Duration::from_secs(60);

/// A registered worker.
#[derive(Clone, Debug)]
pub struct WorkerInfo {
    pub fingerprint: String,
    pub threads: u32,
    pub registered: Instant,
    pub last_seen: Instant,
    /// Results it sent that contradicted an accepted result of the same batch.
    pub conflicts: u32,
    /// Units (trials or pairs) of its accepted results.
    pub units: u64,
    /// Accepted units within [`RATE_WINDOW`], oldest first.
    recent: VecDeque<(Instant, u64)>,
}

impl WorkerInfo {
    /// A worker registered `now`.
    pub fn new(fingerprint: String, threads: u32, now: Instant) -> WorkerInfo {
        WorkerInfo {
            fingerprint,
            threads,
            registered: now,
            last_seen: now,
            conflicts: 0,
            units: 0,
            recent: VecDeque::new(),
        }
    }

    /// Counts an accepted result of `units` trials or pairs.
    pub fn accepted(&mut self, now: Instant, units: u64) {
        self.units += units;
        self.recent.push_back((now, units));
        while self
            .recent
            .front()
            .is_some_and(|&(t, _)| now.duration_since(t) > RATE_WINDOW)
        {
            self.recent.pop_front();
        }
    }

    /// Accepted units per second over the last minute (over its life when younger;
    /// at least one second, so a first result does not read as a huge rate).
    pub fn rate(&self, now: Instant) -> f64 {
        let window = now
            .duration_since(self.registered)
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

/// Workers by id.
#[derive(Default)]
pub struct Workers {
    map: HashMap<String, WorkerInfo>,
}

impl Workers {
    pub fn insert(&mut self, id: String, info: WorkerInfo) {
        self.map.insert(id, info);
    }

    pub fn get_mut(&mut self, id: &str) -> Option<&mut WorkerInfo> {
        self.map.get_mut(id)
    }

    pub fn get(&self, id: &str) -> Option<&WorkerInfo> {
        self.map.get(id)
    }

    /// Every worker, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &WorkerInfo)> {
        self.map.iter()
    }

    /// Marks `id` alive now; false when it is unknown (it must register again).
    pub fn touch(&mut self, id: &str, now: Instant) -> bool {
        match self.map.get_mut(id) {
            Some(w) => {
                w.last_seen = now;
                true
            }
            None => false,
        }
    }

    /// Forgets workers silent for longer than `expiry`.
    pub fn expire(&mut self, now: Instant, expiry: Duration) {
        self.map
            .retain(|_, w| now.duration_since(w.last_seen) <= expiry);
    }

    /// Whether a worker other than `me` with `fingerprint` was seen within `within`.
    pub fn another_alive(
        &self,
        me: &str,
        fingerprint: &str,
        now: Instant,
        within: Duration,
    ) -> bool {
        self.map.iter().any(|(id, w)| {
            id != me && w.fingerprint == fingerprint && now.duration_since(w.last_seen) <= within
        })
    }

    /// Threads of every registered worker.
    pub fn threads(&self) -> u32 {
        self.map.values().map(|w| w.threads).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_over_the_last_minute() {
        let t0 = Instant::now();
        let mut w = WorkerInfo::new("fp".into(), 1, t0);
        w.accepted(t0 + Duration::from_secs(1), 100);
        // 100 units in the worker's first 2 s.
        assert!((w.rate(t0 + Duration::from_secs(2)) - 50.0).abs() < 1e-9);
        w.accepted(t0 + Duration::from_secs(100), 600);
        // Only the second result is inside the minute.
        assert!((w.rate(t0 + Duration::from_secs(120)) - 10.0).abs() < 1e-9);
        assert_eq!(w.units, 700);
    }
}
