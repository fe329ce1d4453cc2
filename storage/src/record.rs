//! The durable record of one job.

use serde::{Deserialize, Serialize};

/// Where a job stands. Only `Queued`/`Running` jobs are resumed after a restart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum JobState {
    Queued,
    Running,
    Done,
    Cancelled,
    Failed,
}

impl JobState {
    /// True for a state the job never leaves.
    pub fn is_final(self) -> bool {
        matches!(
            self,
            JobState::Done | JobState::Cancelled | JobState::Failed
        )
    }
}

/// A job as stored: its encoded spec (opaque here) and its state.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobRecord {
    pub id: u64,
    pub state: JobState,
    /// Why it failed or was cancelled.
    pub message: String,
    /// The job spec as the coordinator encoded it.
    pub spec: Vec<u8>,
    /// Number of batches the job was split into.
    pub batches: u64,
}
