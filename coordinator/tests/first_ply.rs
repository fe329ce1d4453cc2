//! The first-move cache's contract without a network: a searched rollout is leased
//! one batch at a time until its tables are stored, a worker is sent each stored
//! table once (never those it handed in), malformed tables are skipped and a
//! table differing from the stored one is counted as a conflict and not served.

use bgfarm_coordinator::{Config, Core};
use bgfarm_engine::rollout::first_ply::TABLE_BYTES;
use bgfarm_engine::rollout::{
    Candidate, FirstPlyKey, Luck, RolloutJob, RolloutPlan, StopRules, TrialSettings,
};
use bgfarm_engine::Position;
use bgfarm_proto::convert::plan_to_wire;
use bgfarm_proto::v1;
use bgfarm_storage::Store;

mod common;

use common::{exchange, register_with, result as batch_result, stats, TempDir};

/// A rollout of the opening position at 1-ply for the player on roll and 0-ply for
/// the opponent, 4 batches of 36 trials, dice seed `seed`.
fn spec(seed: u64) -> v1::JobSpec {
    let plan = RolloutPlan {
        job: RolloutJob {
            candidates: vec![Candidate::position(Position::STARTING)],
            seed,
            settings: TrialSettings {
                chequer_ply: 1,
                opponent_ply: Some(0),
                ..TrialSettings::default()
            },
        },
        trials: 144,
        batch: 36,
        stop: StopRules::default(),
    };
    plan_to_wire(&plan, "fp")
}

fn register(core: &Core) -> String {
    register_with(core, 4)
}

/// A table whose 21 moves all lead to the opening position, with values `x`.
fn table(x: f32) -> Vec<u8> {
    let mut t = Vec::with_capacity(TABLE_BYTES);
    for _ in 0..21 * 5 {
        t.extend_from_slice(&x.to_bits().to_le_bytes());
    }
    for _ in 0..21 {
        t.extend(Position::STARTING.pips().iter().map(|&c| c as u8));
    }
    t
}

fn entry(depth: u8, x: f32) -> v1::FirstPlyEntry {
    let key = FirstPlyKey {
        luck: Luck::Ranked,
        depth,
        pos: Position::STARTING,
    };
    v1::FirstPlyEntry {
        key: key.to_bytes(),
        table: table(x),
    }
}

fn result(job: u64, batch: u64, first_ply: Vec<v1::FirstPlyEntry>) -> v1::BatchResult {
    v1::BatchResult {
        first_ply,
        ..batch_result(job, batch, stats(36, 0.25))
    }
}

#[tokio::test]
async fn searched_rollouts_wait_for_their_first_move_tables() {
    let dir = TempDir(std::env::temp_dir().join(format!("bgfarm-firstply-{}", std::process::id())));
    let _ = std::fs::remove_dir_all(&dir.0);
    let core = Core::open(Store::open(&dir.0).expect("store"), Config::default()).expect("core");
    let job = core.submit(spec(1)).await.expect("submit").job_id;
    let (w1, w2) = (register(&core), register(&core));

    // No table stored: one batch at a time.
    let got = exchange(&core, &w1, vec![], 4).await;
    assert_eq!(got.leases.len(), 1);
    assert!(got.leases[0].first_ply.is_empty());
    assert!(exchange(&core, &w2, vec![], 4).await.leases.is_empty());

    // The batch brings the start's table (1-ply) and its one successor's (0-ply:
    // every move of the fake table leads back to the opening), and a malformed
    // entry that is skipped. Now the job is leased freely; w1 is sent nothing it
    // handed in, w2 gets both tables once.
    let bad = v1::FirstPlyEntry {
        key: vec![1, 2],
        table: table(0.5),
    };
    let entries = vec![entry(1, 0.5), entry(0, 0.5), bad];
    let got = exchange(&core, &w1, vec![result(job, 0, entries)], 2).await;
    assert_eq!(got.leases.len(), 2);
    assert!(got.leases.iter().all(|l| l.first_ply.is_empty()));
    let got = exchange(&core, &w2, vec![], 4).await;
    assert_eq!(got.leases.len(), 1);
    let sent: Vec<_> = got.leases[0].first_ply.clone();
    assert_eq!(sent, vec![entry(1, 0.5), entry(0, 0.5)]);

    // A different table for a stored key: a conflict, the stored one stays.
    let b = got.leases[0].batch.unwrap_or_default().batch_index;
    exchange(&core, &w2, vec![result(job, b, vec![entry(1, 0.7)])], 0).await;
    let s = core.get(job).await.expect("get").status.unwrap_or_default();
    assert_eq!((s.first_ply_computed, s.first_ply_served), (3, 2));
    let text = core.metrics_text();
    for line in [
        "bgfarm_first_ply_tables_computed_total 3\n",
        "bgfarm_first_ply_tables_served_total 2\n",
        "bgfarm_first_ply_conflicts_total 1\n",
        "bgfarm_first_ply_cache_entries 2\n",
    ] {
        assert!(text.contains(line), "{line} in {text}");
    }

    // A new job of the same rollout with other dice (so the batch memory cannot
    // answer it) is not held back: all its batches at once, the first carrying
    // the stored tables (sent per worker and job).
    let again = core.submit(spec(2)).await.expect("submit").job_id;
    let got = exchange(&core, &w2, vec![], 4).await;
    assert_eq!(got.leases.len(), 4);
    assert!(got
        .leases
        .iter()
        .all(|l| l.batch.is_some_and(|b| b.job_id == again)));
    let tables: Vec<usize> = got.leases.iter().map(|l| l.first_ply.len()).collect();
    assert_eq!(tables, [2, 0, 0, 0]);
}
