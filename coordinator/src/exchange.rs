//! Worker operations: register, exchange (hand in results, take leases), heartbeat.

use crate::core::{record, store_err, Core, State};
use crate::outcome::Outcome;
use crate::reuse::reuse;
use crate::verify::sampled;
use crate::workers::WorkerInfo;
use bgfarm_proto::{v1, PROTOCOL_VERSION};
use bgfarm_storage::{memo, BlobKind, JobState, PutOutcome};
use std::time::Instant;
use tonic::Status;
use tracing::{debug, info, info_span, warn};

/// Most leases one exchange hands out (a worker asks for its free threads).
const MAX_WANT: usize = 1024;
/// Most threads a worker may announce.
const MAX_THREADS: u32 = 4096;

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
