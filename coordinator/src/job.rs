//! A job in memory: its spec, its batches, its counters and its progress channel.

use crate::batch::Batch;
use crate::first_ply_known::JobTables;
use crate::kind::{identity, Work};
use crate::outcome::Outcome;
use crate::rate::Rate;
use bgfarm_engine::rollout::Waves;
use bgfarm_proto::v1;
use bgfarm_storage::memo::Identity;
use bgfarm_storage::JobState;
use std::collections::VecDeque;
use std::time::{Instant, SystemTime};
use tokio::sync::watch;

/// What this coordinator process did for one job (reset by a restart; the
/// restart test reads them to prove that no accepted batch is computed again).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct JobCounters {
    /// Accepted results found in the store when the job was resumed.
    pub resumed: u64,
    pub leases_granted: u64,
    pub leases_expired: u64,
    /// Results handed in (each one a batch a worker computed).
    pub results_received: u64,
    /// Results for a batch that already had an accepted result.
    pub results_duplicate: u64,
    /// Batches accepted from the memory of computed batches ([`crate::reuse`]).
    pub reused: u64,
    /// First-move tables workers handed in, and stored ones sent with leases.
    pub first_ply_computed: u64,
    pub first_ply_served: u64,
}

/// A job being run (or finished, kept for `GetJob`).
pub struct Job {
    pub id: u64,
    pub spec: v1::JobSpec,
    pub work: Work,
    pub state: JobState,
    pub message: String,
    pub batches: Vec<Batch>,
    /// Batches waiting for a lease, in the order they will be handed out. May hold
    /// stale entries (batches since leased or done): they are skipped when popped,
    /// which keeps completing a batch O(1) (a job may have 10^6 batches).
    pub pending: VecDeque<u64>,
    /// Batches released but not yet looked up in the memory of computed batches:
    /// [`crate::reuse`] accepts the ones found there and queues the others in
    /// `pending`, so a remembered batch is never leased.
    pub unchecked: Vec<u64>,
    /// The memo identity of the job's computation ([`crate::kind::identity`]).
    pub identity: Identity,
    /// Batches with an accepted result, and their units (trials or pairs).
    pub done: u64,
    pub units_done: u64,
    pub counters: JobCounters,
    /// A rollout with stop rules runs wave by wave.
    pub waves: Option<Waves>,
    pub progress: watch::Sender<v1::JobStatus>,
    /// When a client submitted it; `None` for a job resumed from the store (the
    /// store keeps no time).
    pub submitted: Option<SystemTime>,
    /// Units of the results this process accepted, per second (the page's rate and
    /// ETA).
    pub rate: Rate,
    /// Rollouts: what is known of the first-move tables ([`crate::first_ply`]).
    pub first_ply: JobTables,
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
    pub fn new(id: u64, spec: v1::JobSpec, work: Work, state: JobState) -> Job {
        let batches: Vec<Batch> = work.batch_ranges().into_iter().map(Batch::new).collect();
        let waves = work.waves();
        let released = waves
            .as_ref()
            .map_or(batches.len() as u64, |w| w.wave().end);
        let unchecked = if state.is_final() {
            Vec::new()
        } else {
            (0..released).collect()
        };
        let (progress, _) = watch::channel(v1::JobStatus::default());
        let identity = identity(&*work, &spec);
        let mut job = Job {
            id,
            identity,
            spec,
            work,
            state,
            message: String::new(),
            batches,
            pending: VecDeque::new(),
            unchecked,
            done: 0,
            units_done: 0,
            counters: JobCounters::default(),
            waves,
            progress,
            submitted: None,
            rate: Rate::new(Instant::now()),
            first_ply: JobTables::default(),
        };
        job.publish(0);
        job
    }

    /// Whether batch `b` may run now (its wave is released).
    pub fn released(&self, b: u64) -> bool {
        self.waves.as_ref().is_none_or(|w| w.released(b))
    }

    /// Records the accepted result of batch `b` (already stored durably); false
    /// when the batch had one already or is not released.
    pub fn complete(&mut self, b: u64, outcome: Outcome) -> bool {
        if !self.released(b) {
            return false;
        }
        let Some(batch) = self.batches.get_mut(b as usize) else {
            return false;
        };
        if batch.result.is_some() {
            return false;
        }
        batch.result = Some(outcome);
        batch.lease = None;
        self.done += 1;
        self.units_done += batch.trial_count();
        if self.waves.is_some() {
            self.advance_wave();
        } else if self.done == self.batches.len() as u64 && !self.state.is_final() {
            self.state = JobState::Done;
        }
        true
    }

    /// When the current wave is complete: applies the stop rules, then releases the
    /// next wave (with the pruned candidates) or ends the job.
    fn advance_wave(&mut self) {
        let Some(waves) = self.waves.as_mut() else {
            return;
        };
        let range = waves.wave();
        let wave = &self.batches[range.start as usize..range.end as usize];
        if !wave.iter().all(|b| b.result.is_some()) {
            return;
        }
        let results = wave
            .iter()
            .filter_map(|b| b.result.as_ref().and_then(Outcome::as_rollout));
        match waves.finish_wave(results) {
            Some(next) => {
                let active = if waves.active().iter().all(|&a| a) {
                    Vec::new()
                } else {
                    waves.active().to_vec()
                };
                for b in next {
                    self.batches[b as usize].active = active.clone();
                    if !self.state.is_final() {
                        self.unchecked.push(b);
                    }
                }
            }
            None if !self.state.is_final() => {
                self.state = JobState::Done;
                self.pending.clear();
                self.unchecked.clear();
                if self.done < self.batches.len() as u64 {
                    self.message = format!("stop rule met after {} trials", self.units_done);
                }
            }
            None => {}
        }
    }

    /// Ends the job in `state` (cancelled or failed) with `message`.
    pub fn finish(&mut self, state: JobState, message: String) {
        self.state = state;
        self.message = message;
        self.pending.clear();
        self.unchecked.clear();
        for b in &mut self.batches {
            b.lease = None;
        }
    }

    /// The job's status now.
    pub fn status(&self, worker_threads: u32) -> v1::JobStatus {
        let c = &self.counters;
        v1::JobStatus {
            job_id: self.id,
            state: state_to_wire(self.state) as i32,
            batches_total: self.batches.len() as u64,
            batches_done: self.done,
            trials_total: self.work.units(),
            trials_done: self.units_done,
            message: self.message.clone(),
            worker_threads,
            batches_resumed: c.resumed,
            leases_granted: c.leases_granted,
            leases_expired: c.leases_expired,
            results_received: c.results_received,
            results_duplicate: c.results_duplicate,
            batches_reused: c.reused,
            kind: self.work.label(),
            first_ply_computed: c.first_ply_computed,
            first_ply_served: c.first_ply_served,
        }
    }

    /// Sends the current status to every watcher.
    pub fn publish(&mut self, worker_threads: u32) {
        let s = self.status(worker_threads);
        self.progress.send_replace(s);
    }

    /// Folds the accepted batches in batch order into the kind's fields of `out`.
    pub fn fold_into(&self, out: &mut v1::GetJobResponse) {
        let mut done = self
            .batches
            .iter()
            .filter_map(|b| Some((&b.trials, b.result.as_ref()?)));
        self.work.fold(&mut done, out);
    }
}
