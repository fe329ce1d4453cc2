//! The coordinator's contract without a network: malformed specs and foreign
//! protocol versions are refused with clear codes, a replayed result is a harmless
//! duplicate, a forged one is a conflict that changes nothing, malformed results are
//! rejected, and a restart on the same store keeps accepted batches and re-queues
//! the rest.

use bgfarm_coordinator::{Config, Core};
use bgfarm_engine::rollout::{Candidate, RolloutJob, RolloutStats, TrialSettings, OUTPUTS};
use bgfarm_engine::Position;
use bgfarm_proto::convert::{rollout_to_wire, stats_to_wire};
use bgfarm_proto::{v1, PROTOCOL_VERSION};
use bgfarm_storage::Store;
use tonic::Code;

struct TempDir(std::path::PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn spec(trials: u64) -> v1::JobSpec {
    let job = RolloutJob {
        candidates: vec![Candidate {
            label: None,
            start: Position::STARTING,
            report_for_opponent: false,
            cube: Default::default(),
        }],
        seed: 1,
        settings: TrialSettings::default(),
    };
    rollout_to_wire(&job, trials, 36, "fp")
}

/// Plausible statistics of `n` trials all worth `x`.
fn stats(n: u64, x: f64) -> v1::BatchStats {
    let mut s = RolloutStats::new(1);
    for _ in 0..n {
        for k in 0..OUTPUTS {
            s.per_candidate[0][k].add(x);
        }
    }
    stats_to_wire(&s)
}

fn register(core: &Core) -> String {
    let req = v1::RegisterRequest {
        protocol_version: PROTOCOL_VERSION,
        fingerprint: "fp".into(),
        threads: 2,
        user_agent: "test".into(),
    };
    core.register(req).expect("register").worker_id
}

fn result(job: u64, batch: u64, s: v1::BatchStats) -> v1::BatchResult {
    v1::BatchResult {
        batch: Some(v1::BatchRef {
            job_id: job,
            batch_index: batch,
        }),
        stats: Some(s),
    }
}

async fn exchange(
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

fn verdicts(r: &v1::ExchangeResponse) -> Vec<v1::ResultVerdict> {
    r.acks
        .iter()
        .map(|a| v1::ResultVerdict::try_from(a.verdict).unwrap_or_default())
        .collect()
}

#[tokio::test]
async fn results_are_idempotent_validated_and_durable() {
    let dir = TempDir(std::env::temp_dir().join(format!("bgfarm-coord-{}", std::process::id())));
    let _ = std::fs::remove_dir_all(&dir.0);
    let core = Core::open(Store::open(&dir.0).expect("store"), Config::default()).expect("core");

    // Malformed specs: INVALID_ARGUMENT with a message naming the problem.
    let e = core.submit(spec(0)).await.expect_err("no trials");
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.message().contains("trials"), "{}", e.message());
    let mut bad = spec(72);
    if let Some(v1::job_spec::Kind::Rollout(r)) = &mut bad.kind {
        r.candidates[0].position_id = "not-an-id".into();
    }
    let e = core.submit(bad).await.expect_err("bad position");
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.message().contains("position ID"), "{}", e.message());

    // Another protocol version: FAILED_PRECONDITION with a clear message.
    let req = v1::RegisterRequest {
        protocol_version: 99,
        fingerprint: "fp".into(),
        threads: 1,
        ..Default::default()
    };
    let e = core.register(req).expect_err("version");
    assert_eq!(e.code(), Code::FailedPrecondition);
    assert!(
        e.message().contains("protocol version 99"),
        "{}",
        e.message()
    );

    let job = core.submit(spec(72)).await.expect("submit").job_id;
    let w = register(&core);
    let got = exchange(&core, &w, vec![], 8).await;
    assert_eq!(got.leases.len(), 2);

    let first = exchange(&core, &w, vec![result(job, 0, stats(36, 0.25))], 0).await;
    assert_eq!(verdicts(&first), [v1::ResultVerdict::Accepted]);
    let before = core.get(job).expect("get").aggregate;
    let replay = exchange(&core, &w, vec![result(job, 0, stats(36, 0.25))], 0).await;
    assert_eq!(verdicts(&replay), [v1::ResultVerdict::Duplicate]);
    let forged = exchange(&core, &w, vec![result(job, 0, stats(36, 0.75))], 0).await;
    assert_eq!(verdicts(&forged), [v1::ResultVerdict::Conflict]);
    let short = exchange(&core, &w, vec![result(job, 1, stats(35, 0.25))], 0).await;
    assert_eq!(verdicts(&short), [v1::ResultVerdict::Rejected]);
    assert_eq!(core.get(job).expect("get").aggregate, before);
    assert_eq!(
        core.get(job).expect("get").status.map(|s| s.batches_done),
        Some(1)
    );

    // Restart on the same store: batch 0 stays accepted, batch 1 is pending again.
    drop(core);
    let core = Core::open(Store::open(&dir.0).expect("reopen"), Config::default()).expect("core");
    assert_eq!(core.get(job).expect("get").aggregate, before);
    let w = register(&core);
    let got = exchange(&core, &w, vec![], 8).await;
    let leased: Vec<u64> = got
        .leases
        .iter()
        .filter_map(|l| l.batch.map(|b| b.batch_index))
        .collect();
    assert_eq!(leased, [1]);
    let done = exchange(&core, &w, vec![result(job, 1, stats(36, 0.5))], 0).await;
    assert_eq!(verdicts(&done), [v1::ResultVerdict::Accepted]);
    let status = core.get(job).expect("get").status.unwrap_or_default();
    assert_eq!(status.state, v1::JobState::Done as i32);
    assert_eq!(status.trials_done, 72);
}
