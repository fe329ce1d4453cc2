//! The coordinator's state and every operation on it. Services (`client_api`,
//! `worker_api`) are thin wrappers; the state sits behind one mutex that is never
//! held across an `.await` (store writes and flushes run on blocking threads
//! between two short critical sections).

use crate::batch::Lease;
use crate::config::Config;
use crate::job::Job;
use crate::validate::{check_result, check_spec};
use crate::workers::{WorkerInfo, Workers};
use bgfarm_engine::rollout::RolloutStats;
use bgfarm_proto::convert::{stats_from_wire, stats_to_wire};
use bgfarm_proto::{v1, PROTOCOL_VERSION};
use bgfarm_storage::{JobRecord, JobState, PutOutcome, Store, StoreError};
use prost::Message;
use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Instant, SystemTime, UNIX_EPOCH};
use tokio::sync::watch;
use tonic::Status;
use tracing::{debug, info, info_span, warn};

/// Most leases one exchange hands out (a worker asks for its free threads).
const MAX_WANT: usize = 1024;
/// Most threads a worker may announce.
const MAX_THREADS: u32 = 4096;

struct State {
    jobs: BTreeMap<u64, Job>,
    workers: Workers,
    next_worker: u64,
}

/// The coordinator: jobs, leases, workers and the store.
pub struct Core {
    state: Mutex<State>,
    store: Store,
    config: Config,
    /// Distinguishes worker ids across coordinator restarts.
    boot: u64,
}

fn store_err(e: StoreError) -> Status {
    Status::unavailable(format!("coordinator store: {e}"))
}

/// Runs store I/O off the async threads.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, StoreError> + Send + 'static,
) -> Result<T, Status> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| Status::internal(format!("store task: {e}")))?
        .map_err(store_err)
}

fn record(job: &Job) -> JobRecord {
    JobRecord {
        id: job.id,
        state: job.state,
        message: job.message.clone(),
        spec: job.spec.encode_to_vec(),
        batches: job.batches.len() as u64,
    }
}

fn ack(
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
    /// Opens the coordinator on `store`, resuming every unfinished job: batches with
    /// a stored result are done, every other one is pending again.
    pub fn open(store: Store, config: Config) -> Result<Arc<Core>, StoreError> {
        let boot = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        let mut jobs = BTreeMap::new();
        for rec in store.jobs()? {
            let spec = match v1::JobSpec::decode(rec.spec.as_slice()) {
                Ok(s) => s,
                Err(e) => {
                    warn!(job = rec.id, "stored spec unreadable, job skipped: {e}");
                    continue;
                }
            };
            let Some(v1::job_spec::Kind::Rollout(rollout)) = spec.kind.clone() else {
                warn!(job = rec.id, "stored spec has no rollout, job skipped");
                continue;
            };
            let mut job = Job::new(rec.id, spec, rollout, rec.state);
            job.message = rec.message.clone();
            for (b, bytes) in store.results(rec.id)? {
                let stats = v1::BatchStats::decode(bytes.as_slice())
                    .map_err(|e| e.to_string())
                    .and_then(|w| stats_from_wire(&w).map_err(|e| e.0));
                match stats {
                    Ok(s) => job.complete(b, s),
                    Err(e) => warn!(
                        job = rec.id,
                        batch = b,
                        "stored result unreadable, batch re-run: {e}"
                    ),
                }
            }
            if job.state != rec.state {
                store.put_job(&record(&job))?;
            }
            job.publish(0);
            if !job.state.is_final() {
                info!(
                    job = job.id,
                    done = job.done,
                    batches = job.batches.len(),
                    "resumed"
                );
            }
            jobs.insert(rec.id, job);
        }
        let state = State {
            jobs,
            workers: Workers::default(),
            next_worker: 0,
        };
        Ok(Arc::new(Core {
            state: Mutex::new(state),
            store,
            config,
            boot,
        }))
    }

    /// The settings it runs with.
    pub fn config(&self) -> &Config {
        &self.config
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock leaves consistent data (every mutation is a
        // few field writes), so a poisoned lock is still usable.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    async fn persist(&self, rec: JobRecord) -> Result<(), Status> {
        let store = self.store.clone();
        blocking(move || store.put_job(&rec)).await
    }

    // ------------------------------------------------------------------ clients

    /// Validates and stores a new job; its batches are pending at once.
    pub async fn submit(&self, spec: v1::JobSpec) -> Result<v1::JobStatus, Status> {
        let valid = check_spec(&spec).map_err(Status::invalid_argument)?;
        let store = self.store.clone();
        let mut rec = JobRecord {
            id: 0,
            state: JobState::Queued,
            message: String::new(),
            spec: spec.encode_to_vec(),
            batches: valid.rollout.trials.div_ceil(valid.rollout.batch_size),
        };
        let id = blocking(move || {
            rec.id = store.next_job_id()?;
            store.put_job(&rec)?;
            Ok(rec.id)
        })
        .await?;
        let mut st = self.lock();
        let threads = st.workers.threads();
        let job = Job::new(id, spec, valid.rollout, JobState::Queued);
        info!(
            job = id,
            trials = job.rollout.trials,
            batches = job.batches.len(),
            candidates = valid.job.candidates.len(),
            "job submitted"
        );
        let status = job.status(threads);
        st.jobs.insert(id, job);
        Ok(status)
    }

    /// Status, spec and aggregate so far of job `id`.
    pub fn get(&self, id: u64) -> Result<v1::GetJobResponse, Status> {
        let st = self.lock();
        let job = st
            .jobs
            .get(&id)
            .ok_or_else(|| Status::not_found(format!("no job {id}")))?;
        Ok(v1::GetJobResponse {
            status: Some(job.status(st.workers.threads())),
            spec: Some(job.spec.clone()),
            aggregate: Some(stats_to_wire(&job.aggregate())),
        })
    }

    /// A receiver of job `id`'s progress.
    pub fn watch(&self, id: u64) -> Result<watch::Receiver<v1::JobStatus>, Status> {
        let st = self.lock();
        let job = st
            .jobs
            .get(&id)
            .ok_or_else(|| Status::not_found(format!("no job {id}")))?;
        Ok(job.progress.subscribe())
    }

    /// Cancels job `id` (a finished job is left as it is).
    pub async fn cancel(&self, id: u64) -> Result<v1::JobStatus, Status> {
        let (status, rec) = {
            let mut st = self.lock();
            let threads = st.workers.threads();
            let job = st
                .jobs
                .get_mut(&id)
                .ok_or_else(|| Status::not_found(format!("no job {id}")))?;
            if job.state.is_final() {
                return Ok(job.status(threads));
            }
            job.finish(JobState::Cancelled, "cancelled by a client".into());
            job.publish(threads);
            info!(job = id, "job cancelled");
            (job.status(threads), record(job))
        };
        self.persist(rec).await?;
        Ok(status)
    }

    /// Every job's status, oldest first.
    pub fn list(&self) -> Vec<v1::JobStatus> {
        let st = self.lock();
        let threads = st.workers.threads();
        st.jobs.values().map(|j| j.status(threads)).collect()
    }

    // ------------------------------------------------------------------ workers

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
        let info = WorkerInfo {
            fingerprint: req.fingerprint,
            threads: req.threads,
            last_seen: Instant::now(),
            conflicts: 0,
        };
        st.workers.insert(id.clone(), info);
        Ok(v1::RegisterResponse {
            worker_id: id,
            protocol_version: PROTOCOL_VERSION,
            heartbeat_ms: self.config.heartbeat_interval().as_millis() as u64,
        })
    }

    /// Checks one submitted result; `Ok` carries the decoded statistics.
    fn check(
        st: &State,
        fingerprint: &str,
        b: &v1::BatchRef,
        stats: Option<&v1::BatchStats>,
    ) -> Result<RolloutStats, String> {
        let job = st
            .jobs
            .get(&b.job_id)
            .ok_or_else(|| format!("no job {}", b.job_id))?;
        if matches!(job.state, JobState::Cancelled | JobState::Failed) {
            return Err(format!("job {} is {:?}", b.job_id, job.state));
        }
        let batch = job
            .batches
            .get(b.batch_index as usize)
            .ok_or_else(|| format!("job {} has no batch {}", b.job_id, b.batch_index))?;
        if job.rollout.fingerprint != fingerprint {
            return Err(format!(
                "engine {fingerprint} cannot run job {} (needs {})",
                b.job_id, job.rollout.fingerprint
            ));
        }
        let stats = stats_from_wire(stats.ok_or("result without statistics")?).map_err(|e| e.0)?;
        check_result(job.rollout.candidates.len(), &batch.trials, &[], &stats)?;
        Ok(stats)
    }

    /// Accepts finished batches (durably, before answering), takes back released
    /// leases and hands out up to `want` new ones.
    pub async fn exchange(&self, req: v1::ExchangeRequest) -> Result<v1::ExchangeResponse, Status> {
        let now = Instant::now();
        let worker = req.worker_id;
        let mut acks = Vec::new();
        let mut accepted: Vec<(v1::BatchRef, Vec<u8>, RolloutStats)> = Vec::new();
        let fingerprint = {
            let mut st = self.lock();
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
            for r in req.results {
                let Some(b) = r.batch else {
                    return Err(Status::invalid_argument("a result without its batch"));
                };
                match Self::check(&st, &fp, &b, r.stats.as_ref()) {
                    Ok(stats) => {
                        accepted.push((b, r.stats.unwrap_or_default().encode_to_vec(), stats))
                    }
                    Err(m) => {
                        warn!(worker = %worker, job = b.job_id, batch = b.batch_index, "result rejected: {m}");
                        acks.push(ack(b, v1::ResultVerdict::Rejected, m));
                    }
                }
            }
            fp
        };
        let outcomes = if accepted.is_empty() {
            Vec::new()
        } else {
            let store = self.store.clone();
            let keys: Vec<(u64, u64, Vec<u8>)> = accepted
                .iter()
                .map(|(b, bytes, _)| (b.job_id, b.batch_index, bytes.clone()))
                .collect();
            blocking(move || {
                let out = keys
                    .iter()
                    .map(|(j, b, bytes)| store.put_result(*j, *b, bytes))
                    .collect::<Result<Vec<_>, _>>()?;
                if out.contains(&PutOutcome::Inserted) {
                    store.flush()?;
                }
                Ok(out)
            })
            .await?
        };
        let mut finished = Vec::new();
        let leases = {
            let mut st = self.lock();
            let threads = st.workers.threads();
            for ((b, _, stats), outcome) in accepted.into_iter().zip(outcomes) {
                let _span = info_span!("batch", job = b.job_id, batch = b.batch_index).entered();
                let verdict = match outcome {
                    PutOutcome::Inserted | PutOutcome::Same => {
                        if let Some(job) = st.jobs.get_mut(&b.job_id) {
                            if !job.state.is_final() {
                                job.complete(b.batch_index, stats);
                                if job.state == JobState::Done {
                                    info!(job = job.id, "job done");
                                    finished.push(record(job));
                                }
                                job.publish(threads);
                            }
                        }
                        debug!(worker = %worker, "result accepted");
                        if outcome == PutOutcome::Inserted {
                            v1::ResultVerdict::Accepted
                        } else {
                            v1::ResultVerdict::Duplicate
                        }
                    }
                    PutOutcome::Different(_) => {
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

    /// Returns a lease held by `worker` to the front of its job's queue.
    fn release(st: &mut State, worker: &str, r: &v1::BatchRef) {
        let Some(job) = st.jobs.get_mut(&r.job_id) else {
            return;
        };
        let Some(batch) = job.batches.get_mut(r.batch_index as usize) else {
            return;
        };
        if batch.lease.as_ref().is_some_and(|l| l.worker == worker) {
            batch.lease = None;
            batch.attempts = batch.attempts.saturating_sub(1);
            job.pending.push_front(r.batch_index);
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
        for job in st.jobs.values_mut() {
            if out.len() >= want {
                break;
            }
            if job.state.is_final() || job.rollout.fingerprint != fingerprint {
                continue;
            }
            let before = out.len();
            let mut skipped = VecDeque::new();
            while out.len() < want {
                let Some(b) = job.pending.pop_front() else {
                    break;
                };
                let Some(batch) = job.batches.get_mut(b as usize) else {
                    continue;
                };
                if batch.result.is_some() || batch.lease.is_some() {
                    continue; // a stale queue entry
                }
                if another && batch.last_failed.as_deref() == Some(worker) {
                    skipped.push_back(b);
                    continue;
                }
                batch.attempts += 1;
                batch.lease = Some(Lease {
                    worker: worker.to_string(),
                    deadline,
                });
                debug!(job = job.id, batch = b, worker = %worker, attempt = batch.attempts, "leased");
                out.push(v1::Lease {
                    batch: Some(v1::BatchRef {
                        job_id: job.id,
                        batch_index: b,
                    }),
                    spec: Some(job.spec.clone()),
                    trial_start: batch.trials.start,
                    trial_end: batch.trials.end,
                    active: Vec::new(),
                });
            }
            while let Some(b) = skipped.pop_back() {
                job.pending.push_front(b);
            }
            if out.len() > before {
                if job.state == JobState::Queued {
                    job.state = JobState::Running;
                }
                job.publish(threads);
            }
        }
        out
    }

    /// Extends the leases `worker` still holds; returns those it should drop.
    pub fn heartbeat(&self, req: v1::HeartbeatRequest) -> Result<v1::HeartbeatResponse, Status> {
        let now = Instant::now();
        let mut st = self.lock();
        if !st.workers.touch(&req.worker_id, now) {
            return Err(Status::not_found(format!(
                "unknown worker {:?}: register again",
                req.worker_id
            )));
        }
        let deadline = now + self.config.lease_timeout;
        let mut drop = Vec::new();
        for b in req.held {
            let lease = st
                .jobs
                .get_mut(&b.job_id)
                .and_then(|j| j.batches.get_mut(b.batch_index as usize))
                .and_then(|batch| batch.lease.as_mut())
                .filter(|l| l.worker == req.worker_id);
            match lease {
                Some(l) => l.deadline = deadline,
                None => drop.push(b),
            }
        }
        Ok(v1::HeartbeatResponse { drop })
    }

    /// Re-queues expired leases (front of the queue: they are the oldest work) and
    /// fails a job whose batch used up its attempts. Returns the records to persist.
    pub fn reap(&self, now: Instant) -> Vec<JobRecord> {
        let mut st = self.lock();
        st.workers.expire(now, self.config.worker_expiry());
        let threads = st.workers.threads();
        let max = self.config.max_attempts;
        let mut failed = Vec::new();
        for job in st.jobs.values_mut() {
            if job.state.is_final() {
                continue;
            }
            let mut exhausted = None;
            let mut requeued = Vec::new();
            for (i, b) in job.batches.iter_mut().enumerate() {
                let Some(l) = b.lease.as_ref().filter(|l| l.deadline <= now) else {
                    continue;
                };
                warn!(job = job.id, batch = i, worker = %l.worker, attempts = b.attempts, "lease expired");
                b.last_failed = Some(l.worker.clone());
                b.lease = None;
                if b.attempts >= max {
                    exhausted = Some((i, b.attempts));
                } else {
                    requeued.push(i as u64);
                }
            }
            for &i in requeued.iter().rev() {
                job.pending.push_front(i);
            }
            if let Some((i, n)) = exhausted {
                let m = format!("batch {i} was leased {n} times without a result");
                warn!(job = job.id, "job failed: {m}");
                job.finish(JobState::Failed, m);
                failed.push(record(job));
            }
            if !requeued.is_empty() || exhausted.is_some() {
                job.publish(threads);
            }
        }
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
