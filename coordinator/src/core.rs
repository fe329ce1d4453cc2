//! The coordinator's state and the client operations on it. Services (`client_api`,
//! `worker_api`) are thin wrappers; worker operations are in [`crate::exchange`],
//! the reaper in [`crate::reap`]. The state sits behind one mutex that is never
//! held across an `.await` (store writes and flushes run on other threads between
//! two short critical sections).

use crate::config::Config;
use crate::durable::Durable;
use crate::first_ply_known::Sent;
use crate::fold::{fold, FoldPlan};
use crate::job::Job;
use crate::kind::decode;
use crate::metrics::{self, Counters, Snapshot, TableLine, WorkerLine};
use crate::reuse::reuse;
use crate::workers::Workers;
use bgfarm_proto::v1;
use bgfarm_storage::{BlobKind, JobRecord, JobState, Store, StoreError};
use prost::Message;
use std::collections::{BTreeMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Instant, SystemTime, UNIX_EPOCH};
use tokio::sync::watch;
use tonic::Status;
use tracing::{info, info_span, warn};

pub(crate) struct State {
    pub jobs: BTreeMap<u64, Job>,
    pub workers: Workers,
    pub next_worker: u64,
    pub counters: Counters,
    /// First-move tables each worker has of each job ([`crate::first_ply`]).
    pub first_ply_sent: Sent,
    /// Workers found handing in wrong results ([`crate::quarantine`]): refused.
    pub quarantined: HashSet<String>,
}

/// The coordinator: jobs, leases, workers and the store.
pub struct Core {
    pub(crate) state: Mutex<State>,
    pub(crate) store: Store,
    pub(crate) durable: Durable,
    pub(crate) config: Config,
    /// Distinguishes worker ids across coordinator restarts.
    pub(crate) boot: u64,
    started: Instant,
    /// Set once the coordinator is stopping: watch streams end on it, so that a
    /// client following a job does not hold the server open (it re-attaches after
    /// the restart, as after a crash).
    stopping: watch::Sender<bool>,
}

pub(crate) fn store_err(e: StoreError) -> Status {
    Status::unavailable(format!("coordinator store: {e}"))
}

/// Runs store I/O off the async threads.
pub(crate) async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, StoreError> + Send + 'static,
) -> Result<T, Status> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| Status::internal(format!("store task: {e}")))?
        .map_err(store_err)
}

pub(crate) fn record(job: &Job) -> JobRecord {
    JobRecord {
        id: job.id,
        state: job.state,
        message: job.message.clone(),
        spec: job.spec.encode_to_vec(),
        batches: job.ledger.count(),
    }
}

/// `GetJob`'s answer for `job` without its aggregate, and what folding it needs.
fn unfolded(job: &Job, threads: u32) -> (v1::GetJobResponse, FoldPlan) {
    let r = v1::GetJobResponse {
        status: Some(job.status(threads)),
        spec: Some(job.spec.clone()),
        ..Default::default()
    };
    (r, job.fold_plan())
}

/// Folds each answer's aggregate from the store, off the async threads.
async fn folded(
    store: &Store,
    answers: Vec<(v1::GetJobResponse, FoldPlan)>,
) -> Result<Vec<v1::GetJobResponse>, Status> {
    let store = store.clone();
    blocking(move || {
        answers
            .into_iter()
            .map(|(mut r, plan)| {
                fold(&store, &plan, &mut r)?;
                Ok(r)
            })
            .collect()
    })
    .await
}

/// Whether `job` was asked about position `position_id` (a rollout's query).
fn asked_about(job: &Job, position_id: &str) -> bool {
    job.work.query_position() == Some(position_id)
}

/// Resumes stored job `rec`: batches with a stored result are done, every other
/// one is pending again. `None` for a record this coordinator cannot read.
fn resume(store: &Store, rec: &JobRecord) -> Result<Option<Job>, StoreError> {
    let spec = match v1::JobSpec::decode(rec.spec.as_slice()) {
        Ok(s) => s,
        Err(e) => {
            warn!(job = rec.id, "stored spec unreadable, job skipped: {e}");
            return Ok(None);
        }
    };
    let work = match decode(&spec) {
        Ok(w) => w,
        Err(e) => {
            warn!(job = rec.id, "stored spec unusable, job skipped: {e}");
            return Ok(None);
        }
    };
    let mut job = Job::new(rec.id, spec, work, rec.state);
    job.message = rec.message.clone();
    for r in store.results_iter(rec.id) {
        let (b, bytes) = r?;
        match job.work.decode_result(&bytes) {
            Ok(o) => {
                if job.complete(b, o) {
                    job.counters.resumed += 1;
                }
            }
            Err(e) => warn!(
                job = rec.id,
                batch = b,
                "stored result unreadable, batch re-run: {e}"
            ),
        }
    }
    Ok(Some(job))
}

impl Core {
    /// Opens the coordinator on `store`, resuming every unfinished job.
    pub fn open(store: Store, config: Config) -> Result<Arc<Core>, StoreError> {
        let boot = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        let mut jobs = BTreeMap::new();
        let mut counters = Counters::default();
        for rec in store.jobs()? {
            let Some(mut job) = resume(&store, &rec)? else {
                continue;
            };
            counters.batches_reused += reuse(&store, &mut job);
            if job.state != rec.state {
                store.put_job(&record(&job))?;
            }
            job.publish(0);
            counters.batches_resumed += job.counters.resumed;
            if !job.state.is_final() {
                info!(
                    job = job.id,
                    kind = job.work.name(),
                    done = job.done,
                    batches = job.ledger.count(),
                    "resumed"
                );
            }
            jobs.insert(rec.id, job);
        }
        let state = State {
            jobs,
            workers: Workers::default(),
            next_worker: 0,
            counters,
            first_ply_sent: Sent::default(),
            quarantined: HashSet::new(),
        };
        let durable = Durable::start(store.clone())
            .map_err(|e| StoreError::Corrupt(format!("cannot start the flusher: {e}")))?;
        Ok(Arc::new(Core {
            state: Mutex::new(state),
            store,
            durable,
            config,
            boot,
            started: Instant::now(),
            stopping: watch::channel(false).0,
        }))
    }

    /// Marks the coordinator as stopping: every watch stream ends.
    pub fn begin_stop(&self) {
        self.stopping.send_replace(true);
    }

    /// Becomes true once [`Core::begin_stop`] was called.
    pub fn stopping(&self) -> watch::Receiver<bool> {
        self.stopping.subscribe()
    }

    /// Writes everything the store holds to disk (results are already synced
    /// before they are acknowledged; this is the last word on the way out).
    pub fn flush(&self) -> Result<(), StoreError> {
        self.store.flush()
    }

    /// The settings it runs with.
    pub fn config(&self) -> &Config {
        &self.config
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock leaves consistent data (every mutation is a
        // few field writes), so a poisoned lock is still usable.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) async fn persist(&self, rec: JobRecord) -> Result<(), Status> {
        let store = self.store.clone();
        blocking(move || store.put_job(&rec)).await
    }

    // ------------------------------------------------------------------ clients

    /// Validates and stores a new job; its batches are pending at once.
    pub async fn submit(&self, spec: v1::JobSpec) -> Result<v1::JobStatus, Status> {
        let work = decode(&spec).map_err(|e| Status::invalid_argument(e.to_string()))?;
        let store = self.store.clone();
        let mut rec = JobRecord {
            id: 0,
            state: JobState::Queued,
            message: String::new(),
            spec: spec.encode_to_vec(),
            batches: work.batch_count(),
        };
        let id = blocking(move || {
            rec.id = store.next_job_id()?;
            store.put_job(&rec)?;
            Ok(rec.id)
        })
        .await?;
        let mut job = Job::new(id, spec, work, JobState::Queued);
        job.submitted = Some(SystemTime::now());
        // Remembered batches are accepted before the job is visible to workers, so
        // none of them is leased.
        let store = self.store.clone();
        let (mut job, reused) = blocking(move || {
            let reused = reuse(&store, &mut job);
            if job.state.is_final() {
                store.put_job(&record(&job))?;
            }
            Ok((job, reused))
        })
        .await?;
        let mut st = self.lock();
        let threads = st.workers.threads();
        let _span = info_span!("job", job = id, kind = job.work.name()).entered();
        info!(
            units = job.work.units(),
            batches = job.ledger.count(),
            reused,
            "job submitted"
        );
        job.publish(threads);
        let status = job.status(threads);
        st.jobs.insert(id, job);
        st.counters.jobs_submitted += 1;
        st.counters.batches_reused += reused;
        Ok(status)
    }

    /// Status, spec and aggregate so far of job `id`.
    pub async fn get(&self, id: u64) -> Result<v1::GetJobResponse, Status> {
        let answer = {
            let st = self.lock();
            let job = st
                .jobs
                .get(&id)
                .ok_or_else(|| Status::not_found(format!("no job {id}")))?;
            unfolded(job, st.workers.threads())
        };
        let mut out = folded(&self.store, vec![answer]).await?;
        out.pop()
            .ok_or_else(|| Status::internal("a fold returned nothing"))
    }

    /// The finished rollouts asked about position `position_id` (a GNU Backgammon
    /// position ID), oldest first, as `GetJob` answers them; a resubmission of the
    /// same spec is listed once, under its first job.
    pub async fn results_of(&self, position_id: &str) -> Result<Vec<v1::GetJobResponse>, Status> {
        let answers = {
            let st = self.lock();
            let threads = st.workers.threads();
            let mut seen: Vec<&v1::JobSpec> = Vec::new();
            let mut out = Vec::new();
            for j in st.jobs.values() {
                if j.state == JobState::Done
                    && asked_about(j, position_id)
                    && !seen.contains(&&j.spec)
                {
                    seen.push(&j.spec);
                    out.push(unfolded(j, threads));
                }
            }
            out
        };
        folded(&self.store, answers).await
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

    // ------------------------------------------------------------------ operators

    /// Threads of the registered workers.
    pub fn worker_threads(&self) -> u32 {
        self.lock().workers.threads()
    }

    /// Whether the coordinator can still accept results (every flush succeeded).
    pub fn healthy(&self) -> bool {
        self.durable.healthy()
    }

    /// The Prometheus exposition of the coordinator now.
    pub fn metrics_text(&self) -> String {
        let now = Instant::now();
        let snapshot = {
            let st = self.lock();
            let jobs = [
                (JobState::Queued, "queued"),
                (JobState::Running, "running"),
                (JobState::Done, "done"),
                (JobState::Cancelled, "cancelled"),
                (JobState::Failed, "failed"),
            ]
            .map(|(s, name)| {
                (
                    name,
                    st.jobs.values().filter(|j| j.state == s).count() as u64,
                )
            })
            .to_vec();
            let live = st.jobs.values().filter(|j| !j.state.is_final());
            let (mut pending, mut leased) = (0u64, 0u64);
            for j in live {
                let l = j.ledger.leased();
                leased += l;
                pending += j.ledger.count().saturating_sub(j.done + l);
            }
            let workers = st
                .workers
                .iter()
                .map(|(id, w)| WorkerLine {
                    id: id.clone(),
                    threads: w.threads,
                    units: w.units,
                    rate: w.rate(now),
                    conflicts: w.conflicts,
                })
                .collect();
            Snapshot {
                counters: st.counters,
                jobs,
                batches_pending: pending,
                batches_leased: leased,
                workers,
                first_ply: TableLine::of(&self.store.blobs(BlobKind::FirstPly)),
                flushes: self.durable.flushes(),
                store_healthy: self.durable.healthy(),
                uptime_s: now.duration_since(self.started).as_secs_f64(),
            }
        };
        metrics::render(&snapshot)
    }
}
