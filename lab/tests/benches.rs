//! The held-out move-choice benches in `lab/benches/` (drawn by
//! `scripts/make-bench.py`, scored by GNU Backgammon; docs/nets.md, "Yardsticks"):
//! each file is whole and as documented, every decision lists exactly bgfarm's legal
//! plays, and no position is in two sets (nor in the oracle bench the nets were
//! chosen on). Only the files are read here: the test set is scored once per net
//! that ships, never by a test.

use bgfarm_engine::ids::position_id;
use bgfarm_engine::{Dice, MoveGenerator};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

fn read(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .enumerate()
        .map(|(i, l)| {
            serde_json::from_str(l)
                .unwrap_or_else(|e| panic!("{} line {}: {e}", path.display(), i + 1))
        })
        .collect()
}

fn bench(name: &str) -> Vec<Value> {
    read(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("benches")
            .join(name),
    )
}

fn class_counts(lines: &[Value]) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for l in lines {
        *counts
            .entry(l["class"].as_str().unwrap_or("?").to_string())
            .or_default() += 1;
    }
    counts
}

/// Every decision's plays are bgfarm's legal results (as a set, each once), sorted
/// by GNU Backgammon's 2-ply equity, with at least two of them.
fn check_decisions(name: &str, lines: &[Value]) {
    let mut gen = MoveGenerator::new();
    for (i, l) in lines.iter().enumerate() {
        let at = format!("{name} line {}", i + 1);
        let pos = position_id::decode(l["pos"].as_str().unwrap_or(""))
            .unwrap_or_else(|e| panic!("{at}: {e}"));
        let d: Vec<u8> = l["dice"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|x| x.as_u64())
                    .map(|x| x as u8)
                    .collect()
            })
            .unwrap_or_default();
        let dice = Dice::new(d[0], d[1]).unwrap_or_else(|| panic!("{at}: dice {d:?}"));
        let legal: BTreeSet<String> = gen
            .generate(&pos, dice)
            .iter()
            .map(|m| position_id::encode(&m.next_position()))
            .collect();
        let moves = l["moves"]
            .as_array()
            .unwrap_or_else(|| panic!("{at}: no moves"));
        let listed: BTreeSet<String> = moves
            .iter()
            .map(|m| m["result"].as_str().unwrap_or("").to_string())
            .collect();
        assert_eq!(listed.len(), moves.len(), "{at}: a play listed twice");
        assert_eq!(listed, legal, "{at}: the plays are not the legal ones");
        assert!(moves.len() >= 2, "{at}: fewer than two plays");
        assert_eq!(l["nmoves"].as_u64(), Some(moves.len() as u64), "{at}");
        let eq2: Vec<f64> = moves
            .iter()
            .map(|m| m["eq2"].as_f64().unwrap_or(f64::NAN))
            .collect();
        assert!(
            eq2.windows(2).all(|w| w[0] >= w[1]),
            "{at}: not sorted by eq2"
        );
        assert!(
            moves.iter().all(|m| m["eq0"].as_f64().is_some()),
            "{at}: eq0 missing"
        );
    }
}

#[test]
fn dev_and_test_sets_are_whole_and_disjoint() {
    let dev = bench("dev.jsonl");
    let test = bench("test.jsonl");
    let expected = |pairs: &[(&str, usize)]| -> BTreeMap<String, usize> {
        pairs.iter().map(|(k, n)| (k.to_string(), *n)).collect()
    };
    assert_eq!(
        class_counts(&dev),
        expected(&[("contact", 3000), ("crashed", 500)])
    );
    assert_eq!(
        class_counts(&test),
        expected(&[("contact", 3000), ("crashed", 500), ("race", 500)])
    );
    check_decisions("dev.jsonl", &dev);
    check_decisions("test.jsonl", &test);
    let positions = |lines: &[Value]| -> BTreeSet<String> {
        lines
            .iter()
            .map(|l| l["pos"].as_str().unwrap_or("").to_string())
            .collect()
    };
    let oracle =
        read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../engine/testdata/oracle/bench.jsonl"));
    let (d, t, o) = (positions(&dev), positions(&test), positions(&oracle));
    assert_eq!(d.len(), dev.len(), "a position twice in the dev set");
    assert_eq!(t.len(), test.len(), "a position twice in the test set");
    assert_eq!(
        d.intersection(&t).count(),
        0,
        "dev and test share positions"
    );
    assert_eq!(
        d.intersection(&o).count(),
        0,
        "dev shares positions with the oracle"
    );
    assert_eq!(
        t.intersection(&o).count(),
        0,
        "test shares positions with the oracle"
    );
}
