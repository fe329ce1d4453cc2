//! The registry of workers: memory only, rebuilt as workers (re-)register.

use std::collections::HashMap;
use std::time::{Duration, Instant};

/// A registered worker.
#[derive(Clone, Debug)]
pub struct WorkerInfo {
    pub fingerprint: String,
    pub threads: u32,
    pub last_seen: Instant,
    /// Results it sent that contradicted an accepted result of the same batch.
    pub conflicts: u32,
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
