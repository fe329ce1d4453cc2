//! What the coordinator's in-process tests share: a temporary store directory, a
//! rollout spec, honest batch statistics, and one worker's register and exchange.

#![allow(dead_code)]

use bgfarm_coordinator::Core;
use bgfarm_engine::rollout::{
    Candidate, RolloutJob, RolloutPlan, RolloutStats, StopRules, TrialSettings, OUTPUTS,
};
use bgfarm_engine::Position;
use bgfarm_proto::convert::{plan_to_wire, stats_to_wire};
use bgfarm_proto::{v1, PROTOCOL_VERSION};

pub struct TempDir(pub std::path::PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub fn spec(trials: u64) -> v1::JobSpec {
    let job = RolloutJob {
        candidates: vec![Candidate::position(Position::STARTING)],
        seed: 1,
        settings: TrialSettings::default(),
    };
    let plan = RolloutPlan {
        job,
        trials,
        batch: 36,
        stop: StopRules::default(),
    };
    plan_to_wire(&plan, "fp")
}

/// Plausible statistics of `n` trials all worth `x`.
pub fn stats(n: u64, x: f64) -> v1::BatchStats {
    let mut s = RolloutStats::new(1);
    for _ in 0..n {
        for k in 0..OUTPUTS {
            s.per_candidate[0][k].add(x);
        }
    }
    stats_to_wire(&s)
}

pub fn register(core: &Core) -> String {
    register_with(core, 2)
}

/// A worker of `threads` threads with the specs' fingerprint.
pub fn register_with(core: &Core, threads: u32) -> String {
    let req = v1::RegisterRequest {
        protocol_version: PROTOCOL_VERSION,
        fingerprint: "fp".into(),
        threads,
        user_agent: "test".into(),
    };
    core.register(req).expect("register").worker_id
}

pub fn result(job: u64, batch: u64, s: v1::BatchStats) -> v1::BatchResult {
    v1::BatchResult {
        batch: Some(v1::BatchRef {
            job_id: job,
            batch_index: batch,
        }),
        stats: Some(s),
        ..Default::default()
    }
}

pub async fn exchange(
    core: &Core,
    w: &str,
    results: Vec<v1::BatchResult>,
    want: u32,
) -> v1::ExchangeResponse {
    let req = v1::ExchangeRequest {
        worker_id: w.into(),
        results,
        want,
        released: vec![],
    };
    core.exchange(req).await.expect("exchange")
}

pub fn verdicts(r: &v1::ExchangeResponse) -> Vec<v1::ResultVerdict> {
    r.acks
        .iter()
        .map(|a| v1::ResultVerdict::try_from(a.verdict).unwrap_or_default())
        .collect()
}
