//! `bgfarm bench cluster`, part 1: coordinator capacity with no-op trials.
//!
//! A real coordinator (sled store on disk, every accepted result flushed before it
//! is acknowledged, group-committed) serves gRPC on 127.0.0.1; simulated workers
//! hand in precomputed results of 36-trial batches and take new leases in the same
//! `Exchange` call, as real workers do, so what is measured is the coordinator's
//! path: decode, validate, store, fsync, fold, lease, encode.

use super::bench_coordinator::BenchCoordinator;
use super::CliError;
use bgfarm_client::connect::worker_client;
use bgfarm_engine::rollout::{
    Candidate, RolloutJob, RolloutPlan, RolloutStats, StopRules, TrialSettings, OUTPUTS,
};
use bgfarm_engine::Position;
use bgfarm_proto::convert::{plan_to_wire, stats_to_wire};
use bgfarm_proto::{v1, PROTOCOL_VERSION};
use std::time::Instant;

/// A fingerprint no real worker has, so only the simulated ones lease the job.
const NOOP: &str = "bench-noop";
/// Trials per batch: the smallest stratified batch, the most results per trial.
const BATCH: u64 = 36;

/// What the throughput run measured.
pub struct Throughput {
    pub results: u64,
    pub seconds: f64,
    pub flushes: u64,
}

impl Throughput {
    pub fn per_second(&self) -> f64 {
        self.results as f64 / self.seconds.max(1e-9)
    }
}

/// Statistics of a 36-trial batch of the one-candidate job, all trials worth 0.
fn noop_stats() -> v1::BatchStats {
    let mut s = RolloutStats::new(1);
    for a in s.per_candidate[0].iter_mut().take(OUTPUTS) {
        for _ in 0..BATCH {
            a.add(0.0);
        }
    }
    stats_to_wire(&s)
}

/// One simulated worker: hands in what it holds and asks for `want` more, until
/// the coordinator has nothing left to lease it. Returns results handed in.
async fn simulated_worker(url: String, want: u32) -> Result<u64, String> {
    let mut client = worker_client(&url, None, None).map_err(|e| e.to_string())?;
    let reg = client
        .register(v1::RegisterRequest {
            protocol_version: PROTOCOL_VERSION,
            fingerprint: NOOP.into(),
            threads: want,
            user_agent: "bgfarm-bench".into(),
        })
        .await
        .map_err(|e| e.message().to_string())?
        .into_inner();
    let stats = noop_stats();
    let mut held: Vec<v1::BatchRef> = Vec::new();
    let mut sent = 0u64;
    loop {
        let results: Vec<v1::BatchResult> = held
            .iter()
            .map(|b| v1::BatchResult {
                batch: Some(*b),
                stats: Some(stats.clone()),
                ..Default::default()
            })
            .collect();
        sent += results.len() as u64;
        let resp = client
            .exchange(v1::ExchangeRequest {
                worker_id: reg.worker_id.clone(),
                results,
                want,
                released: vec![],
            })
            .await
            .map_err(|e| e.message().to_string())?
            .into_inner();
        if let Some(a) = resp
            .acks
            .iter()
            .find(|a| a.verdict != v1::ResultVerdict::Accepted as i32)
        {
            return Err(format!("a no-op result was not accepted: {}", a.message));
        }
        held = resp.leases.iter().filter_map(|l| l.batch).collect();
        if held.is_empty() {
            return Ok(sent);
        }
    }
}

/// Runs `results` no-op batches through a coordinator on `data` with `workers`
/// simulated workers each holding `want` leases.
pub async fn run(
    data: &std::path::Path,
    results: u64,
    workers: u32,
    want: u32,
) -> Result<Throughput, CliError> {
    let coordinator = BenchCoordinator::start(data).await?;
    let (core, url) = (&coordinator.core, &coordinator.url);
    let job = RolloutJob {
        candidates: vec![Candidate::position(Position::STARTING)],
        seed: 1,
        settings: TrialSettings::default(),
    };
    let id = core
        .submit(plan_to_wire(
            &RolloutPlan {
                job,
                trials: results * BATCH,
                batch: BATCH,
                stop: StopRules::default(),
            },
            NOOP,
        ))
        .await
        .map_err(|e| CliError::msg(e.message().to_string()))?
        .job_id;
    let flushes0 = core.metrics_text();
    let start = Instant::now();
    let tasks: Vec<_> = (0..workers)
        .map(|_| tokio::spawn(simulated_worker(url.clone(), want)))
        .collect();
    let mut sent = 0;
    for t in tasks {
        sent += t
            .await
            .map_err(|e| CliError::msg(format!("simulated worker: {e}")))?
            .map_err(CliError::msg)?;
    }
    let seconds = start.elapsed().as_secs_f64();
    let status = core
        .get(id)
        .await
        .map_err(|e| CliError::msg(e.message().to_string()))?
        .status
        .unwrap_or_default();
    if status.state != v1::JobState::Done as i32 || sent != results {
        return Err(CliError::msg(format!(
            "the no-op job did not finish cleanly: {} of {results} results, state {}",
            sent, status.state
        )));
    }
    let flushes = flush_count(&core.metrics_text()) - flush_count(&flushes0);
    coordinator.stop().await?;
    Ok(Throughput {
        results,
        seconds,
        flushes,
    })
}

fn flush_count(metrics: &str) -> u64 {
    metrics
        .lines()
        .find_map(|l| l.strip_prefix("bgfarm_store_flushes_total "))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0)
}
