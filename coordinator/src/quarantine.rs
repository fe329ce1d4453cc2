//! Quarantine: a worker outvoted on a verified batch ([`crate::verify`]) is
//! refused from then on, its leases go back to the queue, and every result it
//! computed (found through the store's origins, including those other jobs took
//! from the memory of computed batches) is deleted, from the results and from
//! that memory, and computed again: each job it touched is rebuilt from the
//! results that remain, so a finished job runs again and a rollout's stop rules
//! are replayed on honest totals.

use crate::core::{record, Core, State};
use bgfarm_storage::{memo, BlobKind, JobRecord, JobState, StoreError};
use std::collections::BTreeMap;
use tracing::{info, warn};

impl Core {
    /// Quarantines `worker`; returns the records of jobs whose state changed.
    pub(crate) fn quarantine(&self, st: &mut State, worker: &str) -> Vec<JobRecord> {
        if !st.quarantined.insert(worker.to_string()) {
            return Vec::new();
        }
        st.counters.quarantined += 1;
        warn!(worker = %worker, "worker quarantined: outvoted on a verified batch; its results are computed again");
        let now = std::time::Instant::now();
        for job in st.jobs.values_mut() {
            for b in job.ledger.revoke(worker) {
                job.ledger.pending.push_front(b);
            }
            job.checks.expire(now, Some(worker));
            job.checks.forget_worker(worker);
        }
        match self.take_back(st, worker) {
            Ok(records) => records,
            Err(e) => {
                warn!(worker = %worker, "cannot take back the results of a quarantined worker: {e}");
                Vec::new()
            }
        }
    }

    /// Deletes `worker`'s results and rebuilds the jobs they belonged to.
    fn take_back(&self, st: &mut State, worker: &str) -> Result<Vec<JobRecord>, StoreError> {
        let blobs = self.store.blobs(BlobKind::Batches);
        let mut touched: BTreeMap<u64, u64> = BTreeMap::new();
        for (id, b) in self.store.origins_of(worker)? {
            let Some(job) = st.jobs.get(&id) else {
                continue;
            };
            let key = memo::key(&job.identity, &job.range(b), job.ledger.active(b));
            blobs.remove(job.work.fingerprint(), &key)?;
            self.store.forget_memo_origin(&key)?;
            if self.store.delete_result(id, b)? {
                *touched.entry(id).or_default() += 1;
            }
        }
        self.store.forget_origins(worker)?;
        let threads = st.workers.threads();
        let mut records = Vec::new();
        for (id, n) in touched {
            let Some(job) = st.jobs.get_mut(&id) else {
                continue;
            };
            if matches!(job.state, JobState::Cancelled | JobState::Failed) {
                continue;
            }
            let before = job.state;
            let lost = job.rebuild(&self.store)?;
            st.counters.batches_revoked += lost;
            st.counters.batches_reused += crate::reuse::reuse(&self.store, job);
            info!(
                job = id,
                results = n,
                batches = lost,
                "results of a quarantined worker taken back"
            );
            job.publish(threads);
            if job.state != before {
                records.push(record(job));
            }
        }
        Ok(records)
    }
}
