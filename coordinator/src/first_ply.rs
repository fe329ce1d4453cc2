//! The shared first-move cache: first-move tables workers compute come back with
//! their batch results, are kept in the store (`BlobKind::FirstPly`, under the job's
//! engine fingerprint, so they survive restarts and serve later jobs) and go out
//! with leases to workers that have not been sent them yet.
//!
//! A table is ~1 KB and, at `--ply 2` trial play, ~21 two-ply searches (~0.2 s of a
//! core); a rollout of one candidate needs about 22 of them (the start and its ~21
//! successors). So that each is computed once in a cluster, a rollout job lacking
//! any of the tables its first plies need ([`first_ply_keys`]) is leased one batch
//! at a time until a batch brings them back: the first 36 trials of a batch see all
//! 36 first rolls (trial `i`'s first roll is digit 0 of `i` in base 36 through a
//! shuffle, `bgfarm_engine::rollout::dice`), so one batch of 36 trials or more
//! visits every ply-0 and ply-1 state and returns every table. A smaller batch may
//! leave some out; the gate then stays until the store holds them all. Rollouts
//! whose first plies search at 0-ply are never held back (a 0-ply table costs
//! ~21 evaluations, less than the lost parallelism).

use crate::core::{Core, State};
use crate::first_ply_known::Sent;
use crate::job::Job;
use crate::metrics::Counters;
use bgfarm_engine::rollout::first_ply::EntryBytes;
use bgfarm_engine::rollout::{stored_tables, FirstPlyKey, RollTable};
use bgfarm_proto::v1;
use bgfarm_storage::{BlobKind, BlobPut};
use std::sync::Arc;
use tracing::warn;

/// Tables one result may hand in: a candidate needs at most 22 and a job has at
/// most a few hundred candidates; anything beyond is refused unread.
const MAX_ENTRIES: usize = 1 << 14;

impl Core {
    /// How many batches of `job` may be leased now (`usize::MAX`: no limit), and
    /// the stored tables to send with them.
    pub(crate) fn first_ply_gate(&self, job: &mut Job) -> (usize, Arc<Vec<EntryBytes>>) {
        let Some(rollout) = job.work.first_ply_job() else {
            return (usize::MAX, Arc::default());
        };
        if let Some(all) = &job.first_ply.complete {
            return (usize::MAX, all.clone());
        }
        let blobs = self.store.blobs(BlobKind::FirstPly);
        let fingerprint = job.work.fingerprint();
        let s = stored_tables(rollout, |k| blobs.get(fingerprint, k).ok().flatten());
        let entries = Arc::new(s.entries);
        if s.complete {
            job.first_ply.complete = Some(entries.clone());
            return (usize::MAX, entries);
        }
        let in_flight = job.ledger.any_leased();
        let limit = match (s.deep, in_flight) {
            (false, _) => usize::MAX,
            (true, true) => 0,
            (true, false) => 1,
        };
        (limit, entries)
    }

    /// The tables of `entries` that `worker` has not been sent for `job` (marked
    /// sent now), as lease fields; counts them as served.
    pub(crate) fn first_ply_for(
        sent: &mut Sent,
        counters: &mut Counters,
        job: &mut Job,
        worker: &str,
        entries: &[EntryBytes],
    ) -> Vec<v1::FirstPlyEntry> {
        let sent = sent.of(worker.to_string(), job.id);
        let out: Vec<v1::FirstPlyEntry> = entries
            .iter()
            .filter(|(k, _)| sent.insert(k.clone()))
            .map(|(k, v)| v1::FirstPlyEntry {
                key: k.clone(),
                table: v.clone(),
            })
            .collect();
        let n = out.len() as u64;
        counters.first_ply_served += n;
        job.counters.first_ply_served += n;
        out
    }

    /// Stores the tables `worker` computed for `job` (handed in with an accepted
    /// result). A malformed entry is skipped; a table differing from the stored one
    /// for its key is a conflict (an engine that is not deterministic): logged,
    /// counted, and the stored table stays the one served.
    pub(crate) fn keep_first_ply(
        &self,
        st: &mut State,
        worker: &str,
        job: u64,
        entries: Vec<v1::FirstPlyEntry>,
    ) {
        let Some(j) = st.jobs.get_mut(&job) else {
            return;
        };
        if j.work.first_ply_job().is_none() {
            return;
        }
        let fingerprint = j.work.fingerprint();
        if entries.len() > MAX_ENTRIES {
            warn!(worker = %worker, job, n = entries.len(), "too many first-move tables, none kept");
            return;
        }
        let blobs = self.store.blobs(BlobKind::FirstPly);
        let (mut kept, mut conflicts) = (Vec::new(), 0u64);
        for e in entries {
            let valid = FirstPlyKey::from_bytes(&e.key).and(RollTable::from_bytes(&e.table));
            if let Err(m) = valid {
                warn!(worker = %worker, job, "first-move table refused: {m}");
                continue;
            }
            match blobs.put(fingerprint, &e.key, &e.table) {
                Ok(BlobPut::Different) => {
                    warn!(worker = %worker, job, "first-move table differs from the stored one");
                    conflicts += 1;
                }
                Ok(_) => kept.push(e.key),
                Err(err) => warn!(job, "cannot store a first-move table: {err}"),
            }
        }
        let computed = (kept.len() as u64) + conflicts;
        j.counters.first_ply_computed += computed;
        st.counters.first_ply_computed += computed;
        st.counters.first_ply_conflicts += conflicts;
        st.first_ply_sent.of(worker.to_string(), job).extend(kept);
    }

    /// Forgets what was sent for jobs that are finished or gone.
    pub(crate) fn forget_sent(st: &mut State) {
        let jobs = &st.jobs;
        st.first_ply_sent
            .retain(|j| jobs.get(&j).is_some_and(|j| !j.state.is_final()));
    }
}
