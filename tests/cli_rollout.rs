//! `bgfarm rollout` end to end: the JSON shape, bit-identical results for any thread
//! count and batch size (the determinism contract), and clear errors on bad input.

mod common;

use common::{bgfarm, json};

#[test]
fn same_seed_same_bits_for_any_threads_and_batches() {
    // Truncated trials keep the test fast; the fold is the same code either way.
    let base = [
        "rollout",
        "4HPwATDgc/ABMA",
        "--dice",
        "31",
        "--moves",
        "top:3",
        "--trials",
        "144",
        "--truncate",
        "8",
        "--seed",
        "7",
        "--json",
    ];
    let mut a = base.to_vec();
    a.extend(["--threads", "1", "--batch", "36"]);
    let mut b = base.to_vec();
    b.extend(["--threads", "2", "--batch", "144"]);
    let mut c = base.to_vec();
    c.extend(["--threads", "3", "--batch", "72"]);
    let (ja, jb, jc) = (json(&a), json(&b), json(&c));
    assert_eq!(ja, jb);
    assert_eq!(ja, jc);
    let cands = ja["candidates"].as_array().expect("candidates");
    assert_eq!(cands.len(), 3);
    for cand in cands {
        assert_eq!(cand["trials"], 144);
        assert_eq!(cand["probs"].as_array().map(Vec::len), Some(5));
        assert!(cand["move"].is_string());
        assert!(cand["equity_se"].as_f64().is_some_and(|s| s > 0.0));
    }
    // Ranked by equity, best first.
    let eqs: Vec<f64> = cands.iter().filter_map(|c| c["equity"].as_f64()).collect();
    assert!(eqs.windows(2).all(|w| w[0] >= w[1]));
    assert!(ja["fingerprint"]
        .as_str()
        .is_some_and(|f| f.starts_with("bgfarm-")));
    // Another seed gives other numbers.
    let mut d = a.clone();
    d[11] = "8";
    assert_ne!(json(&d)["candidates"], ja["candidates"]);
}

#[test]
fn position_rollout_has_one_candidate_without_a_move() {
    let j = json(&[
        "rollout",
        "4HPwATDgc/ABMA",
        "--trials",
        "36",
        "--truncate",
        "4",
        "--json",
    ]);
    let c = &j["candidates"][0];
    assert!(c["move"].is_null());
    assert_eq!(c["trials"], 36);
}

#[test]
fn listed_moves_are_rolled_out() {
    let j = json(&[
        "rollout",
        "4HPwATDgc/ABMA",
        "--dice",
        "31",
        "--moves",
        "8/5 6/5,24/23 13/10",
        "--trials",
        "36",
        "--truncate",
        "2",
        "--json",
    ]);
    let moves: Vec<&str> = j["candidates"]
        .as_array()
        .expect("list")
        .iter()
        .filter_map(|c| c["move"].as_str())
        .collect();
    assert_eq!(moves.len(), 2);
    assert!(moves.contains(&"8/5 6/5") && moves.contains(&"24/23 13/10"));
}

#[test]
fn bad_input_is_a_one_line_error_with_exit_code_2() {
    for (args, needle) in [
        (vec!["rollout", "4HPwATDgc/ABM"], "position ID"),
        (vec!["rollout", "4HPwATDgc/ABMA", "--dice", "71"], "dice"),
        (
            vec![
                "rollout",
                "4HPwATDgc/ABMA",
                "--dice",
                "31",
                "--moves",
                "24/20 6/5",
            ],
            "illegal move",
        ),
        (
            vec!["rollout", "4HPwATDgc/ABMA", "--batch", "50"],
            "multiple of 36",
        ),
        (vec!["rollout", "4HPwATDgc/ABMA", "--vr", "maybe"], "--vr"),
        (
            vec!["rollout", "4HPwATDgc/ABMA", "--trials", "0"],
            "--trials",
        ),
        (vec!["rollout", "4HPwATDgc/ABMA", "--jacoby"], "--cubeful"),
        (
            vec!["rollout", "4HPwATDgc/ABMA", "--cube-ply", "1"],
            "--cubeful",
        ),
        (
            vec!["rollout", "4HPwATDgc/ABMA", "--opponent-ply", "3"],
            "--opponent-ply",
        ),
        (
            vec![
                "rollout",
                "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:2:1:0:7:10",
                "--cubeful",
                "--jacoby",
            ],
            "Jacoby",
        ),
    ] {
        let out = bgfarm(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
    }
}

#[test]
fn cubeful_rollouts_decide_the_cube_and_rank_moves() {
    // Money, before the roll: the cube decision. Doubling the opening is a blunder.
    let v = json(&[
        "rollout",
        "4HPwATDgc/ABMA",
        "--cubeful",
        "--trials",
        "144",
        "--truncate",
        "12",
        "--json",
    ]);
    let d = &v["cube_decision"];
    assert_eq!(d["action"], "no_double", "{v}");
    assert!(d["no_double"].as_f64().unwrap() > d["double_take"].as_f64().unwrap() + 0.1);
    assert_eq!(d["double_pass"], 1.0);
    assert_eq!(v["settings"]["cubeful_units"], "points");
    assert_eq!(v["candidates"].as_array().unwrap().len(), 2);
    // Match play (XGID: 7-point match, 2-1): MWC, both branches within 0..1.
    let m = json(&[
        "rollout",
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:2:1:0:7:10",
        "--cubeful",
        "--trials",
        "72",
        "--truncate",
        "8",
        "--json",
    ]);
    assert_eq!(m["settings"]["cubeful_units"], "mwc");
    for c in m["candidates"].as_array().unwrap() {
        let e = c["cubeful_equity"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&e), "{m}");
    }
    // Moves of a roll: every candidate has a cubeful value; cubeless ones do not.
    let args = [
        "rollout",
        "4HPwATDgc/ABMA",
        "--dice",
        "31",
        "--moves",
        "top:2",
        "--trials",
        "72",
        "--truncate",
        "8",
        "--json",
    ];
    let plain = json(&args);
    assert!(plain["candidates"][0]["cubeful_equity"].is_null());
    let mut with_cube = args.to_vec();
    with_cube.push("--cubeful");
    let c = json(&with_cube);
    for cand in c["candidates"].as_array().unwrap() {
        assert!(cand["cubeful_equity"].is_f64(), "{c}");
        assert!(cand["cubeful_se"].as_f64().unwrap() > 0.0);
    }
}
