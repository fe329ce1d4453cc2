//! A worker with a valid token that lies: results out of range, internally
//! inconsistent, for the wrong job or batch, of the wrong kind or shape, and
//! duplicated within one request. Each is refused (or, for the duplicate, counted
//! once), the job's aggregate does not move, and honest results still finish the
//! job. A plausible but wrong result is the one lie these checks cannot see: it
//! is caught by other workers recomputing a sample (tests/verification.rs).

mod common;

use bgfarm_coordinator::{Config, Core};
use bgfarm_proto::v1;
use bgfarm_storage::Store;
use common::{exchange, register, result, spec, stats, verdicts, TempDir};

use v1::ResultVerdict::{Accepted, Duplicate, Rejected};

/// `s` with one accumulator's `sum_sq` replaced: `sum² > count · sum_sq` is a
/// negative variance, which no run of trials gives.
fn with_sum_sq(mut s: v1::BatchStats, sum_sq: i128) -> v1::BatchStats {
    s.candidates[0].outputs[0].sum_sq = sum_sq.to_le_bytes().to_vec();
    s
}

#[tokio::test]
async fn lies_are_refused_and_change_nothing() {
    let dir =
        TempDir(std::env::temp_dir().join(format!("bgfarm-malicious-{}", std::process::id())));
    let _ = std::fs::remove_dir_all(&dir.0);
    let core = Core::open(Store::open(&dir.0).expect("store"), Config::default()).expect("core");
    let job = core.submit(spec(72)).await.expect("submit").job_id;
    let liar = register(&core);
    let leased = exchange(&core, &liar, vec![], 8).await;
    assert_eq!(leased.leases.len(), 2);
    let before = core.get(job).await.expect("get").aggregate;

    let mut two_candidates = stats(36, 0.5);
    two_candidates
        .candidates
        .push(two_candidates.candidates[0].clone());
    let mut five_outputs = stats(36, 0.5);
    five_outputs.candidates[0].outputs.pop();
    let mut short_sum = stats(36, 0.5);
    short_sum.candidates[0].outputs[1].sum = vec![1, 2, 3];
    let lies: Vec<(&str, v1::BatchResult)> = vec![
        // Out of range: every trial worth 100 points.
        ("out of range", result(job, 0, stats(36, 100.0))),
        (
            "negative variance",
            result(job, 0, with_sum_sq(stats(36, 0.5), 0)),
        ),
        (
            "negative sum of squares",
            result(job, 0, with_sum_sq(stats(36, 0.0), -1)),
        ),
        ("too few trials", result(job, 0, stats(35, 0.5))),
        ("too many trials", result(job, 0, stats(37, 0.5))),
        ("a candidate too many", result(job, 0, two_candidates)),
        ("an output short", result(job, 0, five_outputs)),
        ("a sum of 3 bytes", result(job, 0, short_sum)),
        ("no job 99", result(99, 0, stats(36, 0.5))),
        ("no batch 7", result(job, 7, stats(36, 0.5))),
        (
            "a match simulation's result",
            v1::BatchResult {
                batch: Some(v1::BatchRef {
                    job_id: job,
                    batch_index: 0,
                }),
                match_sim: Some(v1::MatchSimStats::default()),
                ..Default::default()
            },
        ),
    ];
    for (what, lie) in lies {
        let got = exchange(&core, &liar, vec![lie], 0).await;
        assert_eq!(verdicts(&got), [Rejected], "{what}: {got:?}");
        assert!(!got.acks[0].message.is_empty(), "{what}: no reason given");
        assert_eq!(
            core.get(job).await.expect("get").aggregate,
            before,
            "{what}"
        );
    }
    // A result that names no batch spoils the whole request.
    let nameless = v1::ExchangeRequest {
        worker_id: liar.clone(),
        results: vec![v1::BatchResult {
            stats: Some(stats(36, 0.5)),
            ..Default::default()
        }],
        want: 0,
        released: vec![],
    };
    let e = core
        .exchange(nameless)
        .await
        .expect_err("a result without its batch");
    assert_eq!(e.code(), tonic::Code::InvalidArgument, "{e}");
    let status = core.get(job).await.expect("get").status.unwrap_or_default();
    assert_eq!(status.batches_done, 0);

    // The same honest result twice in one request is counted once.
    let twice = vec![
        result(job, 0, stats(36, 0.5)),
        result(job, 0, stats(36, 0.5)),
    ];
    let got = exchange(&core, &liar, twice, 0).await;
    assert_eq!(verdicts(&got), [Accepted, Duplicate]);
    let got = exchange(&core, &liar, vec![result(job, 1, stats(36, 0.5))], 0).await;
    assert_eq!(verdicts(&got), [Accepted]);
    let status = core.get(job).await.expect("get").status.unwrap_or_default();
    assert_eq!(status.state, v1::JobState::Done as i32);
    assert_eq!((status.trials_done, status.results_duplicate), (72, 1));
}
