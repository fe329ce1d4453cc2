//! The registry of workers: memory only, rebuilt as workers (re-)register.

use crate::rate::Rate;
use std::collections::HashMap;
use std::time::{Duration, Instant};

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
    /// Its accepted units per second.
    rate: Rate,
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
            rate: Rate::new(now),
        }
    }

    /// Counts an accepted result of `units` trials or pairs.
    pub fn accepted(&mut self, now: Instant, units: u64) {
        self.units += units;
        self.rate.add(now, units);
    }

    /// Accepted units per second over the last minute (see [`Rate`]).
    pub fn rate(&self, now: Instant) -> f64 {
        self.rate.per_second(now)
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
