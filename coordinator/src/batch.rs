//! One batch of a job: a contiguous range of work units (trials or pairs), the unit of leasing and
//! of the deterministic fold.

use crate::outcome::Outcome;
use std::ops::Range;
use std::time::Instant;

/// A batch handed to a worker until `deadline` (extended by its heartbeats).
#[derive(Clone, Debug)]
pub struct Lease {
    pub worker: String,
    pub deadline: Instant,
}

/// A batch and what is known of it.
#[derive(Clone, Debug)]
pub struct Batch {
    pub trials: Range<u64>,
    pub lease: Option<Lease>,
    /// Leases handed out so far (capped by `Config::max_attempts`).
    pub attempts: u32,
    /// The worker of the last expired lease: a re-lease prefers another one.
    pub last_failed: Option<String>,
    /// The accepted result (stored durably before it is set).
    pub result: Option<Outcome>,
    /// Rollout candidates this batch runs (empty: all); set by a stop rule's
    /// pruning before the batch's wave is released.
    pub active: Vec<bool>,
}

impl Batch {
    /// A pending batch over `trials`.
    pub fn new(trials: Range<u64>) -> Batch {
        Batch {
            trials,
            lease: None,
            attempts: 0,
            last_failed: None,
            result: None,
            active: Vec::new(),
        }
    }

    /// Trials in the batch.
    pub fn trial_count(&self) -> u64 {
        self.trials.end - self.trials.start
    }
}
