//! Handing out leases: an exchange's `want` batches, oldest job first, a batch
//! that expired on this worker going to another live one when there is one,
//! then the job's batches to verify ([`crate::verify`]); and taking back a
//! lease a worker releases unstarted.

use crate::core::{Core, State};
use crate::job::Job;
use bgfarm_proto::v1;
use bgfarm_storage::JobState;
use prost::Message;
use std::collections::VecDeque;
use std::time::Instant;
use tracing::{debug, info};

/// Most bytes of job specs one exchange hands out: each lease carries its spec
/// (33 KB for a match simulation, with its equity table), and a response must stay
/// well inside the 4 MiB a worker decodes; 2 MiB is ~60 match-sim leases.
const LEASE_BYTES: usize = 2 << 20;

impl Core {
    /// Returns a lease held by `worker` to the front of its job's queue.
    pub(crate) fn release(st: &mut State, worker: &str, r: &v1::BatchRef) {
        let Some(job) = st.jobs.get_mut(&r.job_id) else {
            return;
        };
        if job.checks.give_back(r.batch_index, worker) {
            st.counters.leases_released += 1;
        } else if job.ledger.give_back(r.batch_index, worker) {
            job.ledger.pending.push_front(r.batch_index);
            st.counters.leases_released += 1;
            info!(job = r.job_id, batch = r.batch_index, worker = %worker, "lease released");
        }
    }

    /// Leases up to `want` pending batches of jobs computed with `fingerprint`,
    /// oldest job first. A batch whose last lease expired on `worker` goes to another
    /// live worker when there is one.
    pub(crate) fn acquire(
        &self,
        st: &mut State,
        worker: &str,
        fingerprint: &str,
        want: usize,
        now: Instant,
    ) -> Vec<v1::Lease> {
        let another = st
            .workers
            .another_alive(worker, fingerprint, now, self.config.lease_timeout);
        let threads = st.workers.threads();
        let deadline = now + self.config.lease_timeout;
        let mut out = Vec::new();
        let (mut granted, mut retries, mut bytes) = (0u64, 0u64, 0usize);
        let mut verify_leases = 0u64;
        Self::forget_sent(st);
        for job in st.jobs.values_mut() {
            if out.len() >= want {
                break;
            }
            // A finished job may still have batches to verify.
            let verifying = job.state == JobState::Done && !job.checks.is_empty();
            if job.state.is_final() && !verifying || job.work.fingerprint() != fingerprint {
                continue;
            }
            let (limit, tables) = self.first_ply_gate(job);
            // A lease's spec: the job's, or for labels its first (largest) batch's.
            let spec_bytes = if job.ledger.count() == 0 {
                0
            } else {
                job.work.lease_spec(&job.spec, &job.range(0)).encoded_len()
            };
            let before = out.len();
            let mut skipped = VecDeque::new();
            // At least one lease, whatever its size: a worker must make progress.
            while out.len() < want
                && out.len() - before < limit
                && (out.is_empty() || bytes + spec_bytes <= LEASE_BYTES)
            {
                let Some(b) = job.ledger.pending.pop_front() else {
                    break;
                };
                if !job.ledger.is_free(b) {
                    continue; // a stale queue entry
                }
                if another && job.ledger.failed_on(b, worker) {
                    skipped.push_back(b);
                    continue;
                }
                bytes += spec_bytes;
                let attempt = job.ledger.grant(b, worker, deadline);
                if attempt > 1 {
                    retries += 1;
                }
                debug!(job = job.id, batch = b, worker = %worker, attempt, "leased");
                out.push(lease_of(job, b));
            }
            while let Some(b) = skipped.pop_back() {
                job.ledger.pending.push_front(b);
            }
            while out.len() < want && (out.is_empty() || bytes + spec_bytes <= LEASE_BYTES) {
                let Some(b) = job.checks.lease_for(worker, deadline) else {
                    break;
                };
                bytes += spec_bytes;
                verify_leases += 1;
                debug!(job = job.id, batch = b, worker = %worker, "leased to verify");
                out.push(lease_of(job, b));
            }
            let n = (out.len() - before) as u64;
            if n > 0 {
                // The first lease of the job carries the tables this worker lacks.
                let first_ply = Self::first_ply_for(
                    &mut st.first_ply_sent,
                    &mut st.counters,
                    job,
                    worker,
                    &tables,
                );
                bytes += first_ply
                    .iter()
                    .map(|e| e.key.len() + e.table.len())
                    .sum::<usize>();
                out[before].first_ply = first_ply;
                job.counters.leases_granted += n;
                granted += n;
                if job.state == JobState::Queued {
                    job.state = JobState::Running;
                }
                job.publish(threads);
            }
        }
        st.counters.leases_granted += granted;
        st.counters.retries += retries;
        st.counters.verify_leases += verify_leases;
        out
    }
}

/// The lease of batch `b` of `job`.
fn lease_of(job: &Job, b: u64) -> v1::Lease {
    let units = job.range(b);
    v1::Lease {
        batch: Some(v1::BatchRef {
            job_id: job.id,
            batch_index: b,
        }),
        spec: Some(job.work.lease_spec(&job.spec, &units).into_owned()),
        trial_start: units.start,
        trial_end: units.end,
        active: job.ledger.active(b).to_vec(),
        first_ply: Vec::new(),
    }
}
