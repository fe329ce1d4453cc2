//! The reaper: re-queues expired leases and fails jobs whose batches keep failing.

use crate::core::{record, Core};
use bgfarm_storage::{JobRecord, JobState};
use std::sync::Arc;
use std::time::Instant;
use tracing::{info_span, warn};

impl Core {
    /// Re-queues expired leases (front of the queue: they are the oldest work) and
    /// fails a job whose batch used up its attempts. Returns the records to persist.
    pub fn reap(&self, now: Instant) -> Vec<JobRecord> {
        let mut st = self.lock();
        st.workers.expire(now, self.config.worker_expiry());
        let threads = st.workers.threads();
        let max = self.config.max_attempts;
        let mut failed = Vec::new();
        let mut expired = 0u64;
        for job in st.jobs.values_mut() {
            let checks = job.checks.expire(now, None);
            job.counters.leases_expired += checks;
            expired += checks;
            if job.state.is_final() {
                continue;
            }
            let _span = info_span!("job", job = job.id).entered();
            let mut exhausted = None;
            let mut requeued = Vec::new();
            for e in job.ledger.expire(now) {
                warn!(batch = e.batch, worker = %e.worker, attempts = e.attempts, "lease expired");
                if e.attempts >= max {
                    exhausted.get_or_insert((e.batch, e.attempts));
                } else {
                    requeued.push(e.batch);
                }
            }
            let n = requeued.len() as u64 + u64::from(exhausted.is_some());
            job.counters.leases_expired += n;
            expired += n;
            for &i in requeued.iter().rev() {
                job.ledger.pending.push_front(i);
            }
            if let Some((i, n)) = exhausted {
                let m = format!("batch {i} was leased {n} times without a result");
                warn!("job failed: {m}");
                job.finish(JobState::Failed, m);
                failed.push(record(job));
            }
            if !requeued.is_empty() || exhausted.is_some() {
                job.publish(threads);
            }
        }
        st.counters.leases_expired += expired;
        failed
    }

    /// Runs [`Core::reap`] forever at the configured interval.
    pub async fn reaper(self: Arc<Self>) {
        let mut tick = tokio::time::interval(self.config.reap_interval());
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            for rec in self.reap(Instant::now()) {
                if let Err(e) = self.persist(rec).await {
                    warn!("cannot persist a failed job: {e}");
                }
            }
        }
    }
}
