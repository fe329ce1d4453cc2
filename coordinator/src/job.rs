//! A job in memory: its spec, its batches' ledger, its counters and its progress
//! channel. Accepted results are in the store, not here ([`crate::fold`]).

use crate::first_ply_known::JobTables;
use crate::kind::{identity, Work};
use crate::ledger::Ledger;
use crate::outcome::Outcome;
use crate::rate::Rate;
use crate::verify::Checks;
use bgfarm_engine::rollout::Waves;
use bgfarm_proto::v1;
use bgfarm_storage::memo::Identity;
use bgfarm_storage::{JobState, Store, StoreError};
use std::collections::BTreeMap;
use std::ops::Range;
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
    /// Its batches: done, leased, queued ([`Ledger`]).
    pub ledger: Ledger,
    /// A rollout run wave by wave: the results of the current wave, which the stop
    /// rules read when it is complete (a wave is about 324 trials).
    wave_results: BTreeMap<u64, Outcome>,
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
    /// Accepted batches a second worker is to recompute ([`crate::verify`]).
    pub checks: Checks,
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
        let mut ledger = Ledger::new(work.batch_count());
        let waves = work.waves();
        let released = waves.as_ref().map_or(ledger.count(), |w| w.wave().end);
        if !state.is_final() {
            ledger.unchecked.push_back_range(0..released);
        }
        let (progress, _) = watch::channel(v1::JobStatus::default());
        let identity = identity(&*work, &spec);
        let mut job = Job {
            id,
            identity,
            spec,
            work,
            state,
            message: String::new(),
            ledger,
            wave_results: BTreeMap::new(),
            done: 0,
            units_done: 0,
            counters: JobCounters::default(),
            waves,
            progress,
            submitted: None,
            rate: Rate::new(Instant::now()),
            first_ply: JobTables::default(),
            checks: Checks::default(),
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
        if !self.ledger.mark_done(b) {
            return false;
        }
        let units = self.range(b);
        self.done += 1;
        self.units_done += units.end - units.start;
        if self.waves.is_some() {
            self.wave_results.insert(b, outcome);
            self.advance_wave();
        } else if self.done == self.ledger.count() && !self.state.is_final() {
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
        if !range.clone().all(|b| self.ledger.is_done(b)) {
            return;
        }
        let wave = std::mem::take(&mut self.wave_results);
        let results = wave.values().filter_map(Outcome::as_rollout);
        match waves.finish_wave(results) {
            Some(next) => {
                let active = if waves.active().iter().all(|&a| a) {
                    Vec::new()
                } else {
                    waves.active().to_vec()
                };
                self.ledger.set_active_from(next.start, active);
                if !self.state.is_final() {
                    self.ledger.unchecked.push_back_range(next);
                }
            }
            None if !self.state.is_final() => {
                self.state = JobState::Done;
                self.ledger.close();
                if self.done < self.ledger.count() {
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
        self.ledger.close();
        self.checks.clear();
    }

    /// Rebuilds what is done from the results in `store`, after some were taken
    /// back (a quarantined worker's): its batches are pending again, a finished
    /// job runs again, and a rollout's waves are replayed. Returns the batches
    /// taken back. Counters, watchers and open checks stay.
    pub fn rebuild(&mut self, store: &Store) -> Result<u64, StoreError> {
        let state = match self.state {
            JobState::Done => JobState::Running,
            s => s,
        };
        let mut fresh = Job::new(self.id, self.spec.clone(), self.work.clone(), state);
        for r in store.results_iter(self.id) {
            let (b, bytes) = r?;
            if let Ok(o) = self.work.decode_result(&bytes) {
                fresh.complete(b, o);
            }
        }
        let lost = self.done.saturating_sub(fresh.done);
        let old = std::mem::replace(&mut self.ledger, fresh.ledger);
        self.ledger.adopt_leases(old);
        self.wave_results = fresh.wave_results;
        self.waves = fresh.waves;
        self.done = fresh.done;
        self.units_done = fresh.units_done;
        self.state = fresh.state;
        if self.state != JobState::Done {
            self.message.clear();
        }
        Ok(lost)
    }

    /// The work units (trials, pairs, positions) of batch `b`.
    pub fn range(&self, b: u64) -> Range<u64> {
        self.work.batch_range(b)
    }

    /// The job's status now.
    pub fn status(&self, worker_threads: u32) -> v1::JobStatus {
        let c = &self.counters;
        v1::JobStatus {
            job_id: self.id,
            state: state_to_wire(self.state) as i32,
            batches_total: self.ledger.count(),
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
}
