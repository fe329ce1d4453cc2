//! The coordinator's contract without a network: malformed specs and foreign
//! protocol versions are refused with clear codes, a replayed result is a harmless
//! duplicate, a forged one is a conflict that changes nothing, malformed results are
//! rejected, and a restart on the same store keeps accepted batches and re-queues
//! the rest.

use bgfarm_coordinator::{Config, Core};
use bgfarm_engine::rollout::{
    Candidate, RolloutJob, RolloutPlan, RolloutStats, StopRules, TrialSettings, OUTPUTS,
};
use bgfarm_engine::Position;
use bgfarm_proto::convert::{plan_to_wire, stats_from_wire, stats_to_wire};
use bgfarm_proto::v1;
use bgfarm_storage::Store;
use tonic::Code;

mod common;

use common::{exchange, register, result, spec, stats, verdicts, TempDir};

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
    let before = core.get(job).await.expect("get").aggregate;
    let replay = exchange(&core, &w, vec![result(job, 0, stats(36, 0.25))], 0).await;
    assert_eq!(verdicts(&replay), [v1::ResultVerdict::Duplicate]);
    let forged = exchange(&core, &w, vec![result(job, 0, stats(36, 0.75))], 0).await;
    assert_eq!(verdicts(&forged), [v1::ResultVerdict::Conflict]);
    let short = exchange(&core, &w, vec![result(job, 1, stats(35, 0.25))], 0).await;
    assert_eq!(verdicts(&short), [v1::ResultVerdict::Rejected]);
    assert_eq!(core.get(job).await.expect("get").aggregate, before);
    assert_eq!(
        core.get(job)
            .await
            .expect("get")
            .status
            .map(|s| s.batches_done),
        Some(1)
    );

    // Restart on the same store: batch 0 stays accepted, batch 1 is pending again.
    drop(core);
    let core = Core::open(Store::open(&dir.0).expect("reopen"), Config::default()).expect("core");
    assert_eq!(core.get(job).await.expect("get").aggregate, before);
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
    let status = core.get(job).await.expect("get").status.unwrap_or_default();
    assert_eq!(status.state, v1::JobState::Done as i32);
    assert_eq!(status.trials_done, 72);
    // Counters of the restarted process: one batch resumed, one leased and run.
    assert_eq!(
        (
            status.batches_resumed,
            status.leases_granted,
            status.results_received
        ),
        (1, 1, 1)
    );
}

/// Totals of `n` pairs, A winning every match in 3 games, with luck `adj` per pair.
fn sim_chunk(n: u64, adj: f64) -> bgfarm_engine::matchsim::SimStats {
    bgfarm_engine::matchsim::SimStats {
        matches: 2 * n,
        pairs: n,
        points: 2 * n as i64,
        pair_points_sq: 4 * n,
        wins: 2 * n,
        games: 6 * n,
        pair_games_sq: 36 * n,
        cube_sum: 6 * n,
        turns: 60 * n,
        adjusted: adj * n as f64,
        pair_adjusted_sq: adj * adj * n as f64,
        ..Default::default()
    }
}

#[tokio::test]
async fn match_sim_results_fold_chunk_by_chunk_and_are_counted() {
    use bgfarm_engine::matchsim::chunk::fold_totals;
    use bgfarm_engine::matchsim::{CubeStrategy, SimPlan};
    use bgfarm_engine::met::MatchEquityTable;
    use bgfarm_proto::matchsim::{sim_plan_to_wire, totals_from_wire, totals_to_wire};

    let dir =
        TempDir(std::env::temp_dir().join(format!("bgfarm-coord-sim-{}", std::process::id())));
    let _ = std::fs::remove_dir_all(&dir.0);
    let core = Core::open(Store::open(&dir.0).expect("store"), Config::default()).expect("core");
    let mut sim = SimPlan {
        a: CubeStrategy::parse("janowski-match:x=0.7").expect("a"),
        b: CubeStrategy::parse("janowski-money:x=0.7").expect("b"),
        length: 5,
        met: MatchEquityTable::kazaross_xg2(),
        own_mets: [None, None],
        jacoby: false,
        luck: true,
        seed: 3,
        chequer: Default::default(),
        pairs: 40,
        batch: 32,
    };
    // 40 pairs in batches of 32: batch 0 has chunks of 16 and 16, batch 1 one of 8.
    let job = core
        .submit(sim_plan_to_wire(&sim, "fp"))
        .await
        .expect("submit")
        .job_id;
    sim.batch = 20;
    let mut bad = sim_plan_to_wire(&sim, "fp");
    if let Some(v1::job_spec::Kind::MatchSim(m)) = &mut bad.kind {
        m.strategy_b = "gnubg".into();
    }
    let e = core.submit(bad).await.expect_err("bad spec");
    assert_eq!(e.code(), Code::InvalidArgument);

    let w = register(&core);
    let got = exchange(&core, &w, vec![], 8).await;
    let ranges: Vec<(u64, u64)> = got
        .leases
        .iter()
        .map(|l| (l.trial_start, l.trial_end))
        .collect();
    assert_eq!(ranges, [(0, 32), (32, 40)]);
    let chunks = [sim_chunk(16, 0.1), sim_chunk(16, 0.7), sim_chunk(8, 0.3)];
    let result = |b: u64, cs: &[bgfarm_engine::matchsim::SimStats]| v1::BatchResult {
        batch: Some(v1::BatchRef {
            job_id: job,
            batch_index: b,
        }),
        stats: None,
        match_sim: Some(v1::MatchSimStats {
            chunks: cs.iter().map(totals_to_wire).collect(),
        }),
        ..Default::default()
    };
    // Batch 1 first: the fold is in chunk order whatever the arrival order.
    let r = exchange(&core, &w, vec![result(1, &chunks[2..])], 0).await;
    assert_eq!(verdicts(&r), [v1::ResultVerdict::Accepted]);
    let r = exchange(
        &core,
        &w,
        vec![result(0, &chunks[..1]), result(0, &chunks[..2])],
        0,
    )
    .await;
    assert_eq!(
        verdicts(&r),
        [v1::ResultVerdict::Rejected, v1::ResultVerdict::Accepted]
    );
    let r = exchange(&core, &w, vec![result(0, &chunks[..2])], 0).await;
    assert_eq!(verdicts(&r), [v1::ResultVerdict::Duplicate]);

    let got = core.get(job).await.expect("get");
    let total = got.match_sim_aggregate.as_ref().map(totals_from_wire);
    assert_eq!(total, Some(fold_totals(&chunks)));
    let s = got.status.unwrap_or_default();
    assert_eq!(s.state, v1::JobState::Done as i32);
    assert_eq!((s.trials_done, s.trials_total), (40, 40));
    assert_eq!(
        (s.leases_granted, s.results_received, s.results_duplicate),
        (2, 4, 1)
    );
    let text = core.metrics_text();
    assert!(text.contains("bgfarm_batches_accepted_total 2\n"), "{text}");
    assert!(text.contains("bgfarm_results_rejected_total 1\n"), "{text}");
    assert!(
        text.contains("bgfarm_results_duplicate_total 1\n"),
        "{text}"
    );
    assert!(text.contains("bgfarm_jobs{state=\"done\"} 1\n"), "{text}");
}

/// A rollout spec over three candidates with a JSD stop rule, waves of one batch.
fn jsd_spec() -> v1::JobSpec {
    let job = RolloutJob {
        candidates: vec![Candidate::position(Position::STARTING); 3],
        seed: 1,
        settings: TrialSettings::default(),
    };
    let plan = RolloutPlan {
        job,
        trials: 972,
        batch: 324,
        stop: StopRules {
            se_target: None,
            jsd: Some((300, 2.0)),
        },
    };
    plan_to_wire(&plan, "fp")
}

/// Statistics of `n` trials per active candidate, candidate `c` worth `x[c]`.
fn stats3(n: u64, x: [f64; 3], active: &[bool]) -> v1::BatchStats {
    let mut s = RolloutStats::new(3);
    for (c, &v) in x.iter().enumerate() {
        if active.is_empty() || active[c] {
            for _ in 0..n {
                for k in 0..OUTPUTS {
                    s.per_candidate[c][k].add(v);
                }
            }
        }
    }
    stats_to_wire(&s)
}

#[tokio::test]
async fn stop_rules_gate_waves_prune_and_survive_a_restart() {
    let dir =
        TempDir(std::env::temp_dir().join(format!("bgfarm-coord-jsd-{}", std::process::id())));
    let _ = std::fs::remove_dir_all(&dir.0);
    let core = Core::open(Store::open(&dir.0).expect("store"), Config::default()).expect("core");
    let job = core.submit(jsd_spec()).await.expect("submit").job_id;
    let w = register(&core);
    // Only the first wave (batch 0) is leased, for every candidate.
    let got = exchange(&core, &w, vec![], 8).await;
    assert_eq!(got.leases.len(), 1);
    assert!(got.leases[0].active.is_empty());
    // A result for a batch of a later wave is refused.
    let early = exchange(
        &core,
        &w,
        vec![result(job, 1, stats3(324, [0.5; 3], &[]))],
        0,
    )
    .await;
    assert_eq!(verdicts(&early), [v1::ResultVerdict::Rejected]);
    let x = [0.5, 0.5, -0.5];
    let r = exchange(&core, &w, vec![result(job, 0, stats3(324, x, &[]))], 0).await;
    assert_eq!(verdicts(&r), [v1::ResultVerdict::Accepted]);

    // Restart: wave 1 is resumed, candidate 2 stays pruned for wave 2.
    drop(core);
    let core = Core::open(Store::open(&dir.0).expect("reopen"), Config::default()).expect("core");
    let w = register(&core);
    let got = exchange(&core, &w, vec![], 8).await;
    assert_eq!(got.leases.len(), 1);
    let mask = [true, true, false];
    assert_eq!(got.leases[0].active, mask);
    assert_eq!(got.leases[0].batch.map(|b| b.batch_index), Some(1));
    // A result that ran the pruned candidate does not match the lease.
    let wrong = exchange(&core, &w, vec![result(job, 1, stats3(324, x, &[]))], 0).await;
    assert_eq!(verdicts(&wrong), [v1::ResultVerdict::Rejected]);
    let r = exchange(&core, &w, vec![result(job, 1, stats3(324, x, &mask))], 8).await;
    assert_eq!(verdicts(&r), [v1::ResultVerdict::Accepted]);
    assert_eq!(r.leases.len(), 1, "wave 3 follows");
    let r = exchange(&core, &w, vec![result(job, 2, stats3(324, x, &mask))], 8).await;
    assert_eq!(verdicts(&r), [v1::ResultVerdict::Accepted]);
    let s = core.get(job).await.expect("get").status.unwrap_or_default();
    assert_eq!(s.state, v1::JobState::Done as i32);
    assert_eq!((s.batches_done, s.batches_resumed), (3, 1));

    // The same job again replays the waves from the memory of computed batches
    // (the pruned waves under their mask): done at submission, nothing leased.
    let again = core.submit(jsd_spec()).await.expect("resubmit");
    assert_eq!(again.state, v1::JobState::Done as i32);
    assert_eq!((again.batches_reused, again.leases_granted), (3, 0));
    assert_eq!(
        core.get(again.job_id).await.expect("get").aggregate,
        core.get(job).await.expect("get").aggregate
    );
    assert!(exchange(&core, &w, vec![], 8).await.leases.is_empty());
}

#[tokio::test]
async fn a_longer_rollout_leases_only_its_new_batches() {
    let dir =
        TempDir(std::env::temp_dir().join(format!("bgfarm-coord-memo-{}", std::process::id())));
    let _ = std::fs::remove_dir_all(&dir.0);
    let core = Core::open(Store::open(&dir.0).expect("store"), Config::default()).expect("core");
    let job = core.submit(spec(72)).await.expect("submit").job_id;
    let w = register(&core);
    assert_eq!(exchange(&core, &w, vec![], 8).await.leases.len(), 2);
    let (a, b) = (stats(36, 0.25), stats(36, -0.5));
    let r = exchange(
        &core,
        &w,
        vec![result(job, 0, a.clone()), result(job, 1, b.clone())],
        0,
    )
    .await;
    assert_eq!(verdicts(&r), [v1::ResultVerdict::Accepted; 2]);

    // 144 trials: batches 0 and 1 are remembered, only 2 and 3 are leased.
    let longer = core.submit(spec(144)).await.expect("submit");
    assert_eq!(longer.state, v1::JobState::Queued as i32);
    assert_eq!((longer.batches_reused, longer.batches_done), (2, 2));
    let got = exchange(&core, &w, vec![], 8).await;
    let ranges: Vec<(u64, u64)> = got
        .leases
        .iter()
        .map(|l| (l.trial_start, l.trial_end))
        .collect();
    assert_eq!(ranges, [(72, 108), (108, 144)]);
    let id = longer.job_id;
    let (c, d) = (stats(36, 0.125), stats(36, 1.0));
    let r = exchange(
        &core,
        &w,
        vec![result(id, 2, c.clone()), result(id, 3, d.clone())],
        0,
    )
    .await;
    assert_eq!(verdicts(&r), [v1::ResultVerdict::Accepted; 2]);
    let s = core.get(id).await.expect("get").status.unwrap_or_default();
    assert_eq!((s.state, s.leases_granted), (v1::JobState::Done as i32, 2));

    // The aggregate is the four batches folded, as a fresh 144-trial job gives.
    let mut total = RolloutStats::new(1);
    for w in [a, b, c, d] {
        total.merge(&stats_from_wire(&w).expect("stats"));
    }
    assert_eq!(
        core.get(id).await.expect("get").aggregate,
        Some(stats_to_wire(&total))
    );

    // After a restart the memory is still there: a resubmission leases nothing.
    drop(core);
    let core = Core::open(Store::open(&dir.0).expect("reopen"), Config::default()).expect("core");
    let again = core.submit(spec(144)).await.expect("resubmit");
    assert_eq!(
        (again.state, again.batches_reused),
        (v1::JobState::Done as i32, 4)
    );

    // A remembered batch with a flipped bit fails its checksum: it is computed
    // again (leased), never trusted.
    drop(core);
    {
        // sled lets go of its directory lock a few milliseconds after the last
        // handle is dropped.
        let t = std::time::Instant::now();
        let db = loop {
            match sled::open(&dir.0) {
                Ok(db) => break db,
                Err(_) if t.elapsed().as_secs() < 3 => {
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                Err(e) => panic!("sled: {e}"),
            }
        };
        let memo = db.open_tree("batchmemo").expect("memo tree");
        let (k, v) = memo
            .iter()
            .filter_map(Result::ok)
            .find(|(k, _)| k.len() >= 48 && k[40..48] == 0u64.to_be_bytes())
            .expect("the entry of trials 0..36");
        let mut bad = v.to_vec();
        let last = bad.len() - 1;
        bad[last] ^= 1;
        memo.insert(k, bad).expect("corrupt");
        db.flush().expect("flush");
    }
    let core = Core::open(Store::open(&dir.0).expect("reopen"), Config::default()).expect("core");
    let third = core.submit(spec(144)).await.expect("resubmit");
    assert_eq!((third.batches_reused, third.batches_done), (3, 3));
    let w = register(&core);
    let got = exchange(&core, &w, vec![], 8).await;
    let ranges: Vec<(u64, u64)> = got
        .leases
        .iter()
        .map(|l| (l.trial_start, l.trial_end))
        .collect();
    assert_eq!(ranges, [(0, 36)]);
}

#[tokio::test]
async fn an_exchange_hands_out_at_most_two_mib_of_specs() {
    use bgfarm_engine::matchsim::{CubeStrategy, SimPlan};
    use bgfarm_engine::met::MatchEquityTable;
    use bgfarm_proto::matchsim::sim_plan_to_wire;
    use prost::Message;

    let dir =
        TempDir(std::env::temp_dir().join(format!("bgfarm-coord-cap-{}", std::process::id())));
    let _ = std::fs::remove_dir_all(&dir.0);
    let core = Core::open(Store::open(&dir.0).expect("store"), Config::default()).expect("core");
    let sim = SimPlan {
        a: CubeStrategy::parse("janowski-match").expect("a"),
        b: CubeStrategy::parse("janowski-money").expect("b"),
        length: 7,
        met: MatchEquityTable::kazaross_xg2(),
        own_mets: [None, None],
        jacoby: false,
        luck: false,
        seed: 1,
        chequer: Default::default(),
        pairs: 3200,
        batch: 16,
    };
    // 200 batches of 16 pairs, each lease carrying a ~33 KB spec.
    core.submit(sim_plan_to_wire(&sim, "fp"))
        .await
        .expect("submit");
    let w = register(&core);
    let got = exchange(&core, &w, vec![], 200).await;
    let n = got.leases.len();
    assert!((10..200).contains(&n), "{n} leases");
    assert!(got.encoded_len() <= 2 << 20, "{} bytes", got.encoded_len());
}
