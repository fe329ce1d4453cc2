//! The fuzz harness's short pass (`scripts/fuzz.sh` runs 10^6 inputs per target):
//! 10,000 inputs for every parser and gRPC request, no panic, no hang; and its
//! refusals of bad options.

mod common;

use common::{lab, ok};

#[test]
fn ten_thousand_inputs_per_target_without_a_panic() {
    let out = ok(&["fuzz", "--inputs", "10000", "--seed", "7"]);
    let rows: Vec<&str> = out.lines().skip(1).collect();
    let names = ok(&["fuzz", "--target", "list"]);
    assert_eq!(rows.len(), names.lines().count(), "{out}");
    assert!(rows.len() >= 9, "{out}");
    for row in rows {
        let cols: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(cols[1], "10000", "{row}");
        assert_eq!(cols[3], "0", "panics: {row}");
        // Each target's corpus reaches the code past the first checks.
        let accepted: f64 = cols[2].trim_end_matches('%').parse().unwrap_or(0.0);
        assert!(accepted > 0.0, "nothing accepted: {row}");
    }
}

#[test]
fn replay_prints_the_same_input() {
    let a = ok(&["fuzz", "--target", "move", "--seed", "3", "--replay", "41"]);
    let b = ok(&["fuzz", "--target", "move", "--seed", "3", "--replay", "41"]);
    assert_eq!(a, b);
    assert!(a.starts_with("b\""), "{a}");
}

#[test]
fn bad_options_are_refused() {
    for args in [
        &["fuzz", "--target", "nonsense"][..],
        &["fuzz", "--replay", "3"],
        &["fuzz", "--limit-ms", "0"],
    ] {
        let out = lab(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
}
