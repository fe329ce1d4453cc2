//! A plausible but wrong result, caught by verification (`serve
//! --verify-fraction`): a second worker recomputes the sampled batch, a third
//! decides a disagreement, the outvoted worker is quarantined (refused from then
//! on) and every result it computed is computed again, so the job ends with the
//! aggregate an honest cluster gives. Every batch is sampled here (fraction 1).

mod common;

use bgfarm_coordinator::{Config, Core};
use bgfarm_proto::v1;
use bgfarm_storage::Store;
use common::{exchange, register, result, spec, stats, verdicts, TempDir};
use std::sync::Arc;

use v1::ResultVerdict::{Accepted, Conflict, Duplicate};

fn open(name: &str, fraction: f64) -> (TempDir, Arc<Core>) {
    let dir =
        TempDir(std::env::temp_dir().join(format!("bgfarm-verify-{name}-{}", std::process::id())));
    let _ = std::fs::remove_dir_all(&dir.0);
    let config = Config {
        verify_fraction: fraction,
        ..Config::default()
    };
    let core = Core::open(Store::open(&dir.0).expect("store"), config).expect("core");
    (dir, core)
}

/// Results of `worker` for every lease it got in `got`, each batch's trials all
/// worth `x`.
fn answers(job: u64, got: &v1::ExchangeResponse, x: f64) -> Vec<v1::BatchResult> {
    got.leases
        .iter()
        .map(|l| {
            let b = l.batch.expect("batch");
            assert_eq!(b.job_id, job);
            result(job, b.batch_index, stats(l.trial_end - l.trial_start, x))
        })
        .collect()
}

async fn status(core: &Core, job: u64) -> v1::JobStatus {
    core.get(job).await.expect("get").status.unwrap_or_default()
}

fn metric(core: &Core, name: &str) -> f64 {
    core.metrics_text()
        .lines()
        .find_map(|l| l.strip_prefix(&format!("{name} ")))
        .and_then(|v| v.parse().ok())
        .unwrap_or(f64::NAN)
}

#[tokio::test]
async fn a_lying_worker_is_outvoted_quarantined_and_its_batches_computed_again() {
    // The aggregate of an honest cluster, without verification.
    let (_d0, honest_core) = open("honest", 0.0);
    let job = honest_core.submit(spec(72)).await.expect("submit").job_id;
    let w = register(&honest_core);
    let got = exchange(&honest_core, &w, vec![], 8).await;
    exchange(&honest_core, &w, answers(job, &got, 0.5), 0).await;
    let honest = honest_core.get(job).await.expect("get").aggregate;
    assert_eq!(
        status(&honest_core, job).await.state,
        v1::JobState::Done as i32
    );

    let (_d, core) = open("liar", 1.0);
    let job = core.submit(spec(72)).await.expect("submit").job_id;
    let (liar, a, b) = (register(&core), register(&core), register(&core));
    // The liar takes both batches and hands in plausible, wrong statistics: they
    // pass every check and finish the job.
    let got = exchange(&core, &liar, vec![], 8).await;
    assert_eq!(got.leases.len(), 2);
    let got = exchange(&core, &liar, answers(job, &got, 0.4), 8).await;
    assert_eq!(verdicts(&got), [Accepted, Accepted]);
    assert!(got.leases.is_empty(), "a worker never verifies itself");
    assert_eq!(status(&core, job).await.state, v1::JobState::Done as i32);
    assert_ne!(core.get(job).await.expect("get").aggregate, honest);

    // A second worker recomputes both and disagrees; a third decides.
    let got = exchange(&core, &a, vec![], 8).await;
    assert_eq!(got.leases.len(), 2);
    let got = exchange(&core, &a, answers(job, &got, 0.5), 8).await;
    assert_eq!(verdicts(&got), [Conflict, Conflict]);
    assert!(
        got.leases.is_empty(),
        "a disputed batch goes to a third worker"
    );
    let got = exchange(&core, &b, vec![], 8).await;
    assert_eq!(got.leases.len(), 2);
    let got = exchange(&core, &b, answers(job, &got, 0.5), 0).await;
    assert_eq!(verdicts(&got), [Accepted, Accepted]);

    // The liar is out, and its two batches are pending again.
    let e = core
        .exchange(v1::ExchangeRequest {
            worker_id: liar.clone(),
            results: vec![],
            want: 8,
            released: vec![],
        })
        .await
        .expect_err("a quarantined worker is refused");
    assert_eq!(e.code(), tonic::Code::FailedPrecondition, "{e}");
    assert!(e.message().contains("quarantined"), "{e}");
    let s = status(&core, job).await;
    assert_eq!(s.state, v1::JobState::Running as i32);
    assert_eq!(s.batches_done, 0);
    assert_eq!(metric(&core, "bgfarm_workers_quarantined_total"), 1.0);
    assert_eq!(metric(&core, "bgfarm_batches_revoked_total"), 2.0);

    // Honest workers compute them again, and verify each other.
    let got = exchange(&core, &a, vec![], 8).await;
    assert_eq!(got.leases.len(), 2);
    let got = exchange(&core, &a, answers(job, &got, 0.5), 0).await;
    assert_eq!(verdicts(&got), [Accepted, Accepted]);
    let got = exchange(&core, &b, vec![], 8).await;
    assert_eq!(got.leases.len(), 2);
    let got = exchange(&core, &b, answers(job, &got, 0.5), 0).await;
    assert_eq!(verdicts(&got), [Duplicate, Duplicate]);
    assert_eq!(metric(&core, "bgfarm_verified_total"), 4.0);
    let s = status(&core, job).await;
    assert_eq!(s.state, v1::JobState::Done as i32);
    assert_eq!(core.get(job).await.expect("get").aggregate, honest);
}

#[tokio::test]
async fn a_lying_verifier_is_outvoted_and_the_accepted_result_stays() {
    let (_d, core) = open("verifier", 1.0);
    let job = core.submit(spec(36)).await.expect("submit").job_id;
    let (honest, liar, referee) = (register(&core), register(&core), register(&core));
    let got = exchange(&core, &honest, vec![], 8).await;
    exchange(&core, &honest, answers(job, &got, 0.5), 0).await;
    let accepted = core.get(job).await.expect("get").aggregate;
    let got = exchange(&core, &liar, vec![], 8).await;
    assert_eq!(got.leases.len(), 1);
    let got = exchange(&core, &liar, answers(job, &got, 0.3), 0).await;
    assert_eq!(verdicts(&got), [Conflict]);
    let got = exchange(&core, &referee, vec![], 8).await;
    let got = exchange(&core, &referee, answers(job, &got, 0.5), 0).await;
    assert_eq!(verdicts(&got), [Duplicate]);
    let e = core
        .heartbeat(v1::HeartbeatRequest {
            worker_id: liar.clone(),
            held: vec![],
        })
        .expect_err("a quarantined worker is refused");
    assert_eq!(e.code(), tonic::Code::FailedPrecondition, "{e}");
    let s = status(&core, job).await;
    assert_eq!((s.state, s.batches_done), (v1::JobState::Done as i32, 1));
    assert_eq!(core.get(job).await.expect("get").aggregate, accepted);
    assert_eq!(metric(&core, "bgfarm_batches_revoked_total"), 0.0);
}

#[tokio::test]
async fn without_verification_nothing_is_leased_twice() {
    let (_d, core) = open("off", 0.0);
    let job = core.submit(spec(36)).await.expect("submit").job_id;
    let (a, b) = (register(&core), register(&core));
    let got = exchange(&core, &a, vec![], 8).await;
    exchange(&core, &a, answers(job, &got, 0.5), 0).await;
    assert!(exchange(&core, &b, vec![], 8).await.leases.is_empty());
    assert_eq!(metric(&core, "bgfarm_verify_leases_total"), 0.0);
}
