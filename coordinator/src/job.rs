//! A job in memory: its spec, its batches and its progress channel.

use crate::batch::Batch;
use crate::split_batches;
use bgfarm_engine::rollout::RolloutStats;
use bgfarm_proto::v1;
use bgfarm_storage::JobState;
use std::collections::VecDeque;
use tokio::sync::watch;

/// A rollout job being run (or finished, kept for `GetJob`).
pub struct Job {
    pub id: u64,
    pub spec: v1::JobSpec,
    pub rollout: v1::RolloutSpec,
    pub state: JobState,
    pub message: String,
    pub batches: Vec<Batch>,
    /// Batches waiting for a lease, in the order they will be handed out.
    pub pending: VecDeque<u64>,
    pub done: u64,
    pub progress: watch::Sender<v1::JobStatus>,
}

/// The wire form of a stored job state.
pub fn state_to_wire(s: JobState) -> v1::JobState {
    match s {
        JobState::Queued => v1::JobState::Queued,
        JobState::Running => v1::JobState::Running,
        JobState::Done => v1::JobState::Done,
        JobState::Cancelled => v1::JobState::Cancelled,
        JobState::Failed => v1::JobState::Failed,
    }
}

impl Job {
    /// A job with every batch pending.
    pub fn new(id: u64, spec: v1::JobSpec, rollout: v1::RolloutSpec, state: JobState) -> Job {
        let batches: Vec<Batch> = split_batches(rollout.trials, rollout.batch_size)
            .into_iter()
            .map(Batch::new)
            .collect();
        let pending = if state.is_final() {
            VecDeque::new()
        } else {
            (0..batches.len() as u64).collect()
        };
        let (progress, _) = watch::channel(v1::JobStatus::default());
        let mut job = Job {
            id,
            spec,
            rollout,
            state,
            message: String::new(),
            batches,
            pending,
            done: 0,
            progress,
        };
        job.publish(0);
        job
    }

    /// Records the accepted result of batch `b` (already stored durably).
    pub fn complete(&mut self, b: u64, stats: RolloutStats) {
        let Some(batch) = self.batches.get_mut(b as usize) else {
            return;
        };
        if batch.result.is_none() {
            batch.result = Some(stats);
            batch.lease = None;
            self.done += 1;
        }
        self.pending.retain(|&p| p != b);
        if self.done == self.batches.len() as u64 && !self.state.is_final() {
            self.state = JobState::Done;
        }
    }

    /// Ends the job in `state` (cancelled or failed) with `message`.
    pub fn finish(&mut self, state: JobState, message: String) {
        self.state = state;
        self.message = message;
        self.pending.clear();
        for b in &mut self.batches {
            b.lease = None;
        }
    }

    /// Trials of every accepted batch.
    pub fn trials_done(&self) -> u64 {
        self.batches
            .iter()
            .filter(|b| b.result.is_some())
            .map(|b| b.trial_count())
            .sum()
    }

    /// The job's status now.
    pub fn status(&self, worker_threads: u32) -> v1::JobStatus {
        v1::JobStatus {
            job_id: self.id,
            state: state_to_wire(self.state) as i32,
            batches_total: self.batches.len() as u64,
            batches_done: self.done,
            trials_total: self.rollout.trials,
            trials_done: self.trials_done(),
            message: self.message.clone(),
            worker_threads,
        }
    }

    /// Sends the current status to every watcher.
    pub fn publish(&mut self, worker_threads: u32) {
        let s = self.status(worker_threads);
        self.progress.send_replace(s);
    }

    /// The accepted batches folded in batch order (exact in any order; the fixed
    /// order documents the contract).
    pub fn aggregate(&self) -> RolloutStats {
        let mut total = RolloutStats::new(self.rollout.candidates.len());
        for r in self.batches.iter().filter_map(|b| b.result.as_ref()) {
            total.merge(r);
        }
        total
    }
}
