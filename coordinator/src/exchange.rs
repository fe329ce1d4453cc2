//! Worker operations: register, exchange (hand in results, take leases), heartbeat.

use crate::core::{record, store_err, Core, State};
use crate::job::Job;
use crate::outcome::Outcome;
use crate::reuse::reuse;
use crate::verify::sampled;
use crate::workers::WorkerInfo;
use bgfarm_proto::{v1, PROTOCOL_VERSION};
use bgfarm_storage::{memo, BlobKind, JobState, PutOutcome};
use prost::Message;
use std::collections::VecDeque;
use std::time::Instant;
use tonic::Status;
use tracing::{debug, info, info_span, warn};

/// Most leases one exchange hands out (a worker asks for its free threads).
const MAX_WANT: usize = 1024;
/// Most threads a worker may announce.
const MAX_THREADS: u32 = 4096;
/// Most bytes of job specs one exchange hands out: each lease carries its spec
/// (33 KB for a match simulation, with its equity table), and a response must stay
/// well inside the 4 MiB a worker decodes; 2 MiB is ~60 match-sim leases.
const LEASE_BYTES: usize = 2 << 20;

/// A result that passed validation, waiting to be stored.
struct Checked {
    batch: v1::BatchRef,
    bytes: Vec<u8>,
    outcome: Outcome,
    units: u64,
    /// Where the memory of computed batches keeps it ([`memo::key`]).
    memo_key: Vec<u8>,
}

pub(crate) fn ack(
    batch: v1::BatchRef,
    verdict: v1::ResultVerdict,
    message: impl Into<String>,
) -> v1::ResultAck {
    v1::ResultAck {
        batch: Some(batch),
        verdict: verdict as i32,
        message: message.into(),
    }
}

impl Core {
    /// Registers a worker; another protocol version is refused.
    pub fn register(&self, req: v1::RegisterRequest) -> Result<v1::RegisterResponse, Status> {
        if req.protocol_version != PROTOCOL_VERSION {
            return Err(Status::failed_precondition(format!(
                "worker speaks protocol version {}, this coordinator speaks {PROTOCOL_VERSION}: \
                 run the same bgfarm release on both",
                req.protocol_version
            )));
        }
        if req.threads == 0 || req.threads > MAX_THREADS {
            return Err(Status::invalid_argument(format!(
                "threads {}: must be 1 to {MAX_THREADS}",
                req.threads
            )));
        }
        if req.fingerprint.is_empty() || req.fingerprint.len() > 200 {
            return Err(Status::invalid_argument(
                "fingerprint must be 1 to 200 characters",
            ));
        }
        let mut st = self.lock();
        st.next_worker += 1;
        let id = format!("{:x}-{}", self.boot, st.next_worker);
        info!(worker = %id, threads = req.threads, fingerprint = %req.fingerprint,
            agent = %req.user_agent, "worker registered");
        let info = WorkerInfo::new(req.fingerprint, req.threads, Instant::now());
        st.workers.insert(id.clone(), info);
        Ok(v1::RegisterResponse {
            worker_id: id,
            protocol_version: PROTOCOL_VERSION,
            heartbeat_ms: self.config.heartbeat_interval().as_millis() as u64,
        })
    }

    /// Checks one submitted result against its job and batch.
    fn check(st: &State, fingerprint: &str, r: &v1::BatchResult) -> Result<Checked, String> {
        let b = r.batch.ok_or("a result without its batch")?;
        let job = st
            .jobs
            .get(&b.job_id)
            .ok_or_else(|| format!("no job {}", b.job_id))?;
        if matches!(job.state, JobState::Cancelled | JobState::Failed) {
            return Err(format!("job {} is {:?}", b.job_id, job.state));
        }
        if b.batch_index >= job.ledger.count() {
            return Err(format!("job {} has no batch {}", b.job_id, b.batch_index));
        }
        if job.work.fingerprint() != fingerprint {
            return Err(format!(
                "engine {fingerprint} cannot run job {} (needs {})",
                b.job_id,
                job.work.fingerprint()
            ));
        }
        if !job.released(b.batch_index) {
            return Err(format!(
                "batch {} of job {} was never leased (its wave has not started)",
                b.batch_index, b.job_id
            ));
        }
        let units = job.range(b.batch_index);
        let active = job.ledger.active(b.batch_index);
        let (bytes, outcome) = job.work.check_result(&units, active, r)?;
        Ok(Checked {
            batch: b,
            bytes,
            outcome,
            units: units.end - units.start,
            memo_key: memo::key(&job.identity, &units, active),
        })
    }

    /// Accepts finished batches (durably, before answering), takes back released
    /// leases and hands out up to `want` new ones.
    pub async fn exchange(&self, req: v1::ExchangeRequest) -> Result<v1::ExchangeResponse, Status> {
        let now = Instant::now();
        let worker = req.worker_id;
        let mut acks = Vec::new();
        let mut accepted: Vec<Checked> = Vec::new();
        let fingerprint = {
            let mut st = self.lock();
            Self::refuse_quarantined(&st, &worker)?;
            if !st.workers.touch(&worker, now) {
                return Err(Status::not_found(format!(
                    "unknown worker {worker:?}: register again"
                )));
            }
            let fp = st
                .workers
                .get(&worker)
                .map(|w| w.fingerprint.clone())
                .unwrap_or_default();
            for r in &req.results {
                if r.batch.is_none() {
                    return Err(Status::invalid_argument("a result without its batch"));
                }
            }
            for r in req.results {
                let b = r.batch.unwrap_or_default();
                if let Some(job) = st.jobs.get_mut(&b.job_id) {
                    job.counters.results_received += 1;
                }
                match Self::check(&st, &fp, &r) {
                    Ok(c) => {
                        // Stored before the results' flush, which makes them durable.
                        self.keep_first_ply(&mut st, &worker, b.job_id, r.first_ply);
                        accepted.push(c);
                    }
                    Err(m) => {
                        warn!(worker = %worker, job = b.job_id, batch = b.batch_index, "result rejected: {m}");
                        st.counters.results_rejected += 1;
                        acks.push(ack(b, v1::ResultVerdict::Rejected, m));
                    }
                }
            }
            fp
        };
        let outcomes = self.store_results(&worker, &fingerprint, &accepted).await?;
        let mut finished = Vec::new();
        let mut touched = Vec::new();
        let mut liars = Vec::new();
        let leases = {
            let mut st = self.lock();
            let threads = st.workers.threads();
            for (c, outcome) in accepted.into_iter().zip(outcomes) {
                let b = c.batch;
                let _span = info_span!("batch", job = b.job_id, batch = b.batch_index).entered();
                if let Some(ack) = self.settle(&mut st, &worker, b, &c.bytes, &outcome, &mut liars)
                {
                    acks.push(ack);
                    continue;
                }
                let verdict = match outcome {
                    PutOutcome::Inserted | PutOutcome::Same => {
                        let inserted = outcome == PutOutcome::Inserted;
                        if inserted {
                            st.counters.results_accepted += 1;
                            if let Some(w) = st.workers.get_mut(&worker) {
                                w.accepted(now, c.units);
                            }
                        } else {
                            st.counters.results_duplicate += 1;
                        }
                        if let Some(job) = st.jobs.get_mut(&b.job_id) {
                            if !inserted {
                                job.counters.results_duplicate += 1;
                            }
                            if inserted
                                && sampled(self.config.verify_fraction, b.job_id, b.batch_index)
                            {
                                job.checks.open(b.batch_index, &worker);
                            }
                            if !job.state.is_final() {
                                if job.complete(b.batch_index, c.outcome) {
                                    job.rate.add(now, c.units);
                                }
                                if job.state == JobState::Done {
                                    info!(job = job.id, "job done");
                                    finished.push(record(job));
                                }
                                touched.push(b.job_id);
                            }
                        }
                        debug!(worker = %worker, "result accepted");
                        if inserted {
                            v1::ResultVerdict::Accepted
                        } else {
                            v1::ResultVerdict::Duplicate
                        }
                    }
                    PutOutcome::Different(_) => {
                        st.counters.results_conflict += 1;
                        if let Some(job) = st.jobs.get_mut(&b.job_id) {
                            job.counters.results_duplicate += 1;
                        }
                        if let Some(w) = st.workers.get_mut(&worker) {
                            w.conflicts += 1;
                        }
                        warn!(worker = %worker, "result differs from the accepted one: worker flagged");
                        v1::ResultVerdict::Conflict
                    }
                };
                let msg = if verdict == v1::ResultVerdict::Conflict {
                    "differs from the accepted result of this batch"
                } else {
                    ""
                };
                acks.push(ack(b, verdict, msg));
            }
            for w in liars {
                finished.extend(self.quarantine(&mut st, &w));
            }
            // One progress message per job and exchange, not per result.
            touched.sort_unstable();
            touched.dedup();
            // A wave released by these results: its remembered batches are accepted
            // before any is leased (sled reads of a few batches, under the lock).
            let mut reused = 0;
            for id in touched {
                if let Some(job) = st.jobs.get_mut(&id) {
                    if !job.ledger.unchecked.is_empty() {
                        reused += reuse(&self.store, job);
                        if job.state == JobState::Done {
                            info!(job = job.id, "job done");
                            finished.push(record(job));
                        }
                    }
                    job.publish(threads);
                }
            }
            st.counters.batches_reused += reused;
            for r in req.released {
                Self::release(&mut st, &worker, &r);
            }
            self.acquire(
                &mut st,
                &worker,
                &fingerprint,
                (req.want as usize).min(MAX_WANT),
                now,
            )
        };
        for rec in finished {
            self.persist(rec).await?;
        }
        Ok(v1::ExchangeResponse { acks, leases })
    }

    /// Stores checked results (first result of a batch wins; a new one is also
    /// remembered in the memory of computed batches) and, when any is new,
    /// waits until they are on disk: an acknowledged result survives a crash.
    ///
    /// The writes themselves run on this thread: a sled insert lands in memory and
    /// its log buffer (a few microseconds, 10^5 per second on one core), and the
    /// I/O happens in the group-committed flush ([`crate::durable`]) that is
    /// awaited without blocking the runtime.
    async fn store_results(
        &self,
        worker: &str,
        fingerprint: &str,
        accepted: &[Checked],
    ) -> Result<Vec<PutOutcome>, Status> {
        // After a failed flush nothing written since is known to be on disk, and a
        // result written then reads back as `Same` on its retry: no result may be
        // acknowledged (nor folded, nor shown to a client) until a restart.
        if !accepted.is_empty() && !self.durable.healthy() {
            return Err(Status::unavailable(
                "coordinator store: a flush failed; results are refused until the coordinator restarts",
            ));
        }
        let blobs = self.store.blobs(BlobKind::Batches);
        let outcomes = accepted
            .iter()
            .map(|c| {
                let put = self
                    .store
                    .put_result(c.batch.job_id, c.batch.batch_index, &c.bytes)?;
                if put == PutOutcome::Inserted {
                    memo::remember(&blobs, fingerprint, &c.memo_key, &c.bytes)?;
                    if self.config.verify_fraction > 0.0 {
                        self.store
                            .put_origin(worker, c.batch.job_id, c.batch.batch_index)?;
                        self.store.put_memo_origin(&c.memo_key, worker)?;
                    }
                }
                Ok(put)
            })
            .collect::<Result<Vec<_>, _>>()
            .map_err(store_err)?;
        // A `Same` result may be another exchange's insert whose flush is still to
        // come (or failed): it is acknowledged only once that flush is done.
        if outcomes
            .iter()
            .any(|o| matches!(o, PutOutcome::Inserted | PutOutcome::Same))
        {
            self.durable
                .sync()
                .await
                .map_err(|e| Status::unavailable(format!("coordinator store: {e}")))?;
        }
        Ok(outcomes)
    }

    /// Returns a lease held by `worker` to the front of its job's queue.
    fn release(st: &mut State, worker: &str, r: &v1::BatchRef) {
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
    fn acquire(
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

    /// Extends the leases `worker` still holds; returns those it should drop.
    pub fn heartbeat(&self, req: v1::HeartbeatRequest) -> Result<v1::HeartbeatResponse, Status> {
        let now = Instant::now();
        let mut st = self.lock();
        Self::refuse_quarantined(&st, &req.worker_id)?;
        if !st.workers.touch(&req.worker_id, now) {
            return Err(Status::not_found(format!(
                "unknown worker {:?}: register again",
                req.worker_id
            )));
        }
        let deadline = now + self.config.lease_timeout;
        let mut drop = Vec::new();
        for b in req.held {
            let held = st.jobs.get_mut(&b.job_id).is_some_and(|j| {
                j.ledger.extend(b.batch_index, &req.worker_id, deadline)
                    || j.checks.extend(b.batch_index, &req.worker_id, deadline)
            });
            if !held {
                drop.push(b);
            }
        }
        Ok(v1::HeartbeatResponse { drop })
    }

    /// The nets bundle of label job `job_id`, for a registered worker (the job
    /// may be any state: a worker finishing a lease of a job cancelled since gets
    /// its answer and then a refused result).
    pub fn job_nets(&self, req: v1::GetJobNetsRequest) -> Result<v1::GetJobNetsResponse, Status> {
        let mut st = self.lock();
        if !st.workers.touch(&req.worker_id, Instant::now()) {
            return Err(Status::not_found(format!(
                "unknown worker {:?}: register again",
                req.worker_id
            )));
        }
        let job = st
            .jobs
            .get(&req.job_id)
            .ok_or_else(|| Status::not_found(format!("no job {}", req.job_id)))?;
        match job.work.nets(&job.spec) {
            Some(nets) => Ok(v1::GetJobNetsResponse {
                nets: nets.to_vec(),
            }),
            None => Err(Status::failed_precondition(format!(
                "job {} carries no nets",
                req.job_id
            ))),
        }
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
