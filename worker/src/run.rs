//! The pull loop: register, then repeatedly hand in finished batches and ask for as
//! many leases as there are free threads, in one `Exchange` call.

use crate::backoff::Backoff;
use crate::engine::Engines;
use crate::kind::{run_lease, wanted_nets};
use crate::label_nets::LabelNets;
use crate::{user_agent, WorkerConfig, WorkerError};
use bgfarm_client::connect::{worker_client, WorkerClient};
use bgfarm_engine::eval::fingerprint::fingerprint;
use bgfarm_engine::rollout::FirstPlyCache;
use bgfarm_proto::{v1, PROTOCOL_VERSION};
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, watch};
use tonic::Code;
use tracing::{debug, info, info_span, warn};

/// A finished lease: its batch and its result (or why it failed).
type Done = (v1::BatchRef, Result<v1::BatchResult, String>);

/// Idle polling starts at 50 ms and doubles to 1 s: a new job reaches idle workers
/// within a second, and 100 idle workers cost the coordinator ~100 calls/s.
const IDLE: (Duration, Duration) = (Duration::from_millis(50), Duration::from_secs(1));
/// First-move caches kept of jobs this worker holds no batch of: the coordinator
/// sends a worker each table of a job once, so a cache dropped too early costs its
/// tables again (~0.2 s of a core each at 2-ply); 8 caches are ~0.5 MB at most.
const RECENT_CACHES: usize = 8;
/// Leases held beyond one per thread, waiting in the pool's queue: a thread that
/// finishes a batch starts the next at once instead of waiting for the exchange
/// that hands its result in (a round trip and the coordinator's store flush,
/// ~30 ms on the 2-core machines: a tenth of a 2-ply label batch of 64). One per
/// four threads, since exchanges are made one at a time.
fn queued(threads: usize) -> usize {
    threads.div_ceil(4)
}
/// After errors (coordinator down or restarting): 200 ms doubling to 10 s.
const ERRORS: (Duration, Duration) = (Duration::from_millis(200), Duration::from_secs(10));

fn fatal(s: &tonic::Status) -> Option<WorkerError> {
    match s.code() {
        Code::Unauthenticated | Code::PermissionDenied => Some(WorkerError::Refused(format!(
            "coordinator refused the worker token: {}",
            s.message()
        ))),
        Code::FailedPrecondition | Code::InvalidArgument => {
            Some(WorkerError::Refused(s.message().to_string()))
        }
        _ => None,
    }
}

struct Worker {
    client: WorkerClient,
    threads: usize,
    fingerprint: String,
    id: String,
    heartbeat: Duration,
    pool: rayon::ThreadPool,
    engines: Arc<Engines>,
    label_nets: LabelNets,
    caches: HashMap<u64, Arc<FirstPlyCache>>,
    /// Jobs most recently leased here, newest last (their caches are kept).
    recent: VecDeque<u64>,
    held: Vec<v1::BatchRef>,
    finished: Vec<v1::BatchResult>,
    failed: Vec<v1::BatchRef>,
    tx: mpsc::UnboundedSender<Done>,
}

/// Runs a worker until shutdown (`Ok`) or a fatal refusal (`Err`).
pub async fn run(cfg: WorkerConfig, mut shutdown: watch::Receiver<u8>) -> Result<(), WorkerError> {
    let threads = cfg.threads.max(1);
    let engines = Arc::new(Engines::new().map_err(WorkerError::Engine)?);
    let fp = fingerprint(&engines.play).to_string();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("bgfarm-trials-{i}"))
        .build()
        .map_err(|e| WorkerError::Engine(format!("cannot start {threads} threads: {e}")))?;
    let client = worker_client(
        &cfg.coordinator,
        cfg.token.as_deref(),
        cfg.tls_ca.as_deref(),
    )
    .map_err(|e| WorkerError::Refused(e.to_string()))?;
    let (tx, mut rx) = mpsc::unbounded_channel::<Done>();
    let mut w = Worker {
        client,
        threads,
        fingerprint: fp,
        id: String::new(),
        heartbeat: Duration::from_secs(1),
        pool,
        engines,
        label_nets: LabelNets::default(),
        caches: HashMap::new(),
        recent: VecDeque::new(),
        held: Vec::new(),
        finished: Vec::new(),
        failed: Vec::new(),
        tx,
    };
    w.register(&mut shutdown).await?;
    let mut idle = Backoff::new(IDLE.0, IDLE.1);
    let mut errors = Backoff::new(ERRORS.0, ERRORS.1);
    let mut beat = tokio::time::interval(w.heartbeat);
    beat.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let phase = *shutdown.borrow();
        if phase >= 2 {
            w.release_all().await;
            return Ok(());
        }
        if phase == 1 && w.held.is_empty() && w.finished.is_empty() {
            info!("every held batch handed in: stopping");
            return Ok(());
        }
        let want = if phase == 0 {
            (w.threads + queued(w.threads)).saturating_sub(w.held.len())
        } else {
            0
        };
        let mut wait = None;
        if want > 0 || !w.finished.is_empty() || !w.failed.is_empty() {
            match w.exchange(want).await {
                Ok(got) => {
                    errors.reset();
                    if got > 0 {
                        idle.reset();
                    } else if w.held.is_empty() {
                        wait = Some(idle.next_delay());
                    }
                }
                Err(s) => {
                    if let Some(e) = fatal(&s) {
                        return Err(e);
                    }
                    if s.code() == Code::NotFound {
                        info!("coordinator forgot this worker (restarted?): registering again");
                        w.register(&mut shutdown).await?;
                        continue;
                    }
                    let d = errors.next_delay();
                    warn!("exchange failed ({}), retrying in {d:?}", s.message());
                    wait = Some(d);
                }
            }
        }
        match wait {
            Some(d) if w.held.is_empty() => {
                tokio::select! {
                    _ = tokio::time::sleep(d) => {}
                    _ = shutdown.changed() => {}
                }
            }
            _ => {
                tokio::select! {
                    Some(done) = rx.recv() => {
                        w.collect(done);
                        while let Ok(more) = rx.try_recv() {
                            w.collect(more);
                        }
                    }
                    _ = beat.tick() => w.send_heartbeat().await,
                    _ = shutdown.changed() => {}
                    _ = tokio::time::sleep(wait.unwrap_or_default()), if wait.is_some() => {}
                }
            }
        }
    }
}

impl Worker {
    /// Registers (retrying while the coordinator is unreachable).
    async fn register(&mut self, shutdown: &mut watch::Receiver<u8>) -> Result<(), WorkerError> {
        let mut backoff = Backoff::new(ERRORS.0, ERRORS.1);
        loop {
            let req = v1::RegisterRequest {
                protocol_version: PROTOCOL_VERSION,
                fingerprint: self.fingerprint.clone(),
                threads: self.threads as u32,
                user_agent: user_agent(),
            };
            match self.client.register(req).await {
                Ok(r) => {
                    let r = r.into_inner();
                    self.id = r.worker_id;
                    self.heartbeat = Duration::from_millis(r.heartbeat_ms.max(50));
                    info!(worker = %self.id, threads = self.threads, engine = %self.fingerprint, "registered");
                    return Ok(());
                }
                Err(s) => {
                    if let Some(e) = fatal(&s) {
                        return Err(e);
                    }
                    let d = backoff.next_delay();
                    warn!("cannot register ({}), retrying in {d:?}", s.message());
                    tokio::select! {
                        _ = tokio::time::sleep(d) => {}
                        _ = shutdown.changed() => {
                            if *shutdown.borrow() > 0 {
                                return Ok(());
                            }
                        }
                    }
                }
            }
        }
    }

    /// Hands in finished batches and takes up to `want` leases; returns how many.
    async fn exchange(&mut self, want: usize) -> Result<usize, tonic::Status> {
        let req = v1::ExchangeRequest {
            worker_id: self.id.clone(),
            results: self.finished.clone(),
            want: want as u32,
            released: self.failed.clone(),
        };
        let resp = self.client.exchange(req).await?.into_inner();
        // Acknowledged (whatever the verdict): results are stored or will never be.
        self.finished.clear();
        self.failed.clear();
        for a in &resp.acks {
            let verdict =
                v1::ResultVerdict::try_from(a.verdict).unwrap_or(v1::ResultVerdict::Unspecified);
            if !matches!(
                verdict,
                v1::ResultVerdict::Accepted | v1::ResultVerdict::Duplicate
            ) {
                warn!(
                    verdict = verdict.as_str_name(),
                    "result not accepted: {}", a.message
                );
            }
        }
        let n = resp.leases.len();
        for lease in resp.leases {
            // A label job's own nets are fetched before its first batch here.
            if let (Some(digest), Some(b)) = (wanted_nets(&lease), lease.batch) {
                let fetched = self
                    .label_nets
                    .fetch(&mut self.client, &self.id, b.job_id, digest)
                    .await;
                if let Err(e) = fetched {
                    warn!(
                        job = b.job_id,
                        batch = b.batch_index,
                        "{e}: lease given back"
                    );
                    self.failed.push(b);
                    continue;
                }
            }
            self.start(lease);
        }
        let held_jobs: Vec<u64> = self.held.iter().map(|b| b.job_id).collect();
        let recent = &self.recent;
        self.caches
            .retain(|job, _| held_jobs.contains(job) || recent.contains(job));
        Ok(n)
    }

    /// Starts a lease on the pool.
    fn start(&mut self, lease: v1::Lease) {
        let Some(b) = lease.batch else { return };
        let cache = self.caches.entry(b.job_id).or_default().clone();
        self.recent.retain(|&j| j != b.job_id);
        self.recent.push_back(b.job_id);
        if self.recent.len() > RECENT_CACHES {
            self.recent.pop_front();
        }
        for e in &lease.first_ply {
            if let Err(m) = cache.import(&e.key, &e.table) {
                warn!(
                    job = b.job_id,
                    "first-move table from the coordinator refused: {m}"
                );
            }
        }
        let (engines, fp, tx) = (
            self.engines.clone(),
            self.fingerprint.clone(),
            self.tx.clone(),
        );
        let own_nets = wanted_nets(&lease).and_then(|d| self.label_nets.get(d));
        self.held.push(b);
        let span = info_span!("batch", job = b.job_id, batch = b.batch_index);
        self.pool.spawn(move || {
            let _e = span.enter();
            let t = std::time::Instant::now();
            let r = run_lease(&engines, own_nets.as_deref(), &fp, &lease, &cache);
            debug!(ms = t.elapsed().as_millis() as u64, "batch run");
            // The receiver is gone only when the worker is stopping.
            let _ = tx.send((b, r));
        });
    }

    fn collect(&mut self, (b, r): Done) {
        self.held.retain(|h| *h != b);
        match r {
            Ok(result) => self.finished.push(result),
            Err(e) => {
                warn!(
                    job = b.job_id,
                    batch = b.batch_index,
                    "cannot run batch, giving it back: {e}"
                );
                self.failed.push(b);
            }
        }
    }

    async fn send_heartbeat(&mut self) {
        if self.held.is_empty() {
            return;
        }
        let req = v1::HeartbeatRequest {
            worker_id: self.id.clone(),
            held: self.held.clone(),
        };
        match self.client.heartbeat(req).await {
            Ok(r) => {
                let drop = r.into_inner().drop;
                if !drop.is_empty() {
                    debug!(
                        n = drop.len(),
                        "coordinator no longer needs some held batches"
                    );
                }
            }
            Err(s) => warn!("heartbeat failed: {}", s.message()),
        }
    }

    /// Second signal: gives held leases back and hands in what is finished.
    async fn release_all(&mut self) {
        let req = v1::ExchangeRequest {
            worker_id: self.id.clone(),
            results: std::mem::take(&mut self.finished),
            want: 0,
            released: self.held.iter().chain(&self.failed).copied().collect(),
        };
        let n = req.released.len();
        match self.client.exchange(req).await {
            Ok(_) => info!(released = n, "held batches released"),
            Err(s) => warn!(
                "cannot release held batches ({}); their leases will expire",
                s.message()
            ),
        }
    }
}
