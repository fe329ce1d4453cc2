//! What the coordinator knows of first-move tables in memory: per rollout job the
//! tables it needs once all are stored, and per worker and job the tables the
//! worker has (sent with leases or handed in). The logic is in [`crate::first_ply`].

use bgfarm_engine::rollout::first_ply::EntryBytes;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// What the coordinator knows of one rollout job's tables.
#[derive(Default)]
pub struct JobTables {
    /// Every table the job needs, once the store held them all (they are then
    /// served from here, whatever the store evicts later).
    pub(crate) complete: Option<Arc<Vec<EntryBytes>>>,
}

/// The keys (bytes) of the tables each (worker, job) was sent or handed in.
#[derive(Default)]
pub struct Sent(HashMap<(String, u64), HashSet<Vec<u8>>>);

impl Sent {
    /// The keys `worker` has of `job`.
    pub fn of(&mut self, worker: String, job: u64) -> &mut HashSet<Vec<u8>> {
        self.0.entry((worker, job)).or_default()
    }

    /// Keeps only the jobs `keep` says.
    pub fn retain(&mut self, keep: impl Fn(u64) -> bool) {
        self.0.retain(|(_, j), _| keep(*j));
    }
}
