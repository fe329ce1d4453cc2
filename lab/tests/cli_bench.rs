//! `bgfarm-lab bench hint`, `bench race-referee`, `filter-study` and `train
//! label`'s refusals through the built binary: JSON fields, the costliest
//! decisions, CSV output, and exit code 2 with a one-line message for bad input.

mod common;

use common::{json, lab};

#[test]
fn bad_input_is_a_one_line_error_with_code_2() {
    for args in [
        &["bench", "hint", "--class", "backgame"][..],
        &["bench", "hint", "--file", "/nonexistent/bench.jsonl"],
        &["bench", "race-referee", "--limit", "0"],
        &[
            "bench",
            "race-referee",
            "--file",
            "/nonexistent/bench.jsonl",
        ],
        &["filter-study", "--ply", "0", "--decisions", "5"],
        &["filter-study", "--decisions", "0"],
        &["filter-study", "--decisions", "5", "--filters", "bogus"],
    ] {
        let out = lab(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("error:"), "{args:?}: {err}");
    }
}

#[test]
fn bench_hint_reports_each_class() {
    let v = json(&[
        "bench", "hint", "--ply", "1", "--class", "race", "--limit", "6", "--json",
    ]);
    assert_eq!(v["all"]["positions"], 6);
    assert_eq!(v["classes"]["race"]["positions"], 6);
    for key in ["best_0ply", "best_nply", "best_gnubg"] {
        let x = v["all"][key].as_f64().unwrap_or(-1.0);
        assert!((0.0..=1.0).contains(&x), "{key} = {x}");
    }
    for key in [
        "loss_0ply",
        "loss_play",
        "loss_nply",
        "loss_gnubg",
        "ms_per_hint",
    ] {
        assert!(v["all"][key].as_f64().unwrap_or(-1.0) >= 0.0, "{key}");
    }
    // The 0-ply values' errors against GNU Backgammon 2-ply: GNU Backgammon 0-ply's
    // own are small but not 0 (its 0-ply and 2-ply differ), bgfarm's are errors of
    // a race evaluator (well under a tenth of a point per play).
    for key in [
        "equity_error_0ply",
        "difference_error_0ply",
        "equity_error_gnubg_0ply",
        "difference_error_gnubg_0ply",
    ] {
        let x = v["all"][key].as_f64().unwrap_or(-1.0);
        assert!(x > 0.0 && x < 0.1, "{key} = {x}");
    }
}

/// `--baseline`: the paired differences are the differences of the losses, decision
/// by decision, so their means are the differences of the means; nets against
/// themselves differ by exactly 0.
#[test]
fn bench_hint_pairs_a_baseline() {
    let dev = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/dev.jsonl");
    let run = |net: &str| {
        json(&[
            "bench",
            "hint",
            "--ply",
            "0",
            "--file",
            dev,
            "--class",
            "contact",
            "--limit",
            "60",
            "--net",
            net,
            "--baseline",
            "default",
            "--json",
        ])
    };
    let f = |v: &serde_json::Value, k: &str| v["all"][k].as_f64().unwrap_or(f64::NAN);
    let same = run("default");
    assert_eq!(f(&same, "diff_baseline"), 0.0);
    assert_eq!(f(&same, "loss_baseline"), f(&same, "loss_0ply"));
    let fast = run("fast");
    assert!(fast["all"]["positions"] == 60);
    let d = f(&fast, "loss_0ply") - f(&fast, "loss_baseline");
    assert!((f(&fast, "diff_baseline") - d).abs() < 1e-12, "{d}");
    assert!(
        f(&fast, "diff_baseline_se") > 0.0,
        "fast and default choose differently"
    );
    assert_eq!(f(&fast, "loss_baseline"), f(&same, "loss_0ply"));
    let g = f(&same, "loss_0ply") - f(&same, "loss_gnubg_0ply");
    assert!((f(&same, "diff_gnubg_0ply") - g).abs() < 1e-12);
    let r = f(&same, "loss_0ply") / f(&same, "loss_gnubg_0ply");
    assert!((f(&same, "ratio_gnubg_0ply") - r).abs() < 1e-12);
}

#[test]
fn bench_hint_lists_the_costliest_decisions() {
    let v = json(&[
        "bench", "hint", "--ply", "0", "--class", "race", "--worst", "3", "--json",
    ]);
    let worst = v["worst"].as_array().expect("worst");
    assert_eq!(worst.len(), 3);
    let loss = |w: &serde_json::Value| w["loss_0ply"].as_f64().unwrap_or(-1.0);
    assert!(loss(&worst[0]) >= loss(&worst[1]) && loss(&worst[1]) >= loss(&worst[2]));
    // The costliest decision costs at least the mean.
    let mean = v["all"]["loss_0ply"].as_f64().unwrap_or(-1.0);
    assert!(loss(&worst[0]) >= mean && mean >= 0.0);
    for w in worst {
        assert_eq!(w["class"], "race");
        let (best, choice) = (w["best_equity"].as_f64(), w["choice_equity"].as_f64());
        let gap = best.unwrap_or(0.0) - choice.unwrap_or(0.0);
        assert!((gap - loss(w)).abs() < 1e-9, "{w}");
        for key in ["best", "choice_0ply"] {
            assert!(w[key].as_str().is_some_and(|m| m.contains('/')), "{w}");
        }
    }
    let none = json(&[
        "bench", "hint", "--ply", "0", "--class", "race", "--limit", "2", "--json",
    ]);
    assert_eq!(none["worst"].as_array().map(Vec::len), Some(0));
}

#[test]
fn filter_study_writes_its_table_and_csv() {
    let dir = std::env::temp_dir().join(format!("bgfarm-filter-study-{}", std::process::id()));
    let d = dir.to_string_lossy().to_string();
    let v = json(&[
        "filter-study",
        "--ply",
        "1",
        "--decisions",
        "6",
        "--filters",
        "normal",
        "0:2:0.05",
        "--out",
        &d,
        "--json",
    ]);
    let rows = v["filters"].as_array().expect("filters");
    assert_eq!(rows.len(), 3);
    assert_eq!(rows[0]["filter"], "all");
    assert_eq!(rows[0]["agree"], 1.0);
    assert_eq!(rows[0]["speedup_evals"], 1.0);
    assert_eq!(rows[2]["ladder"], "0:2:0.05");
    for r in rows {
        assert_eq!(r["decisions"], 6);
        assert!(r["mean_loss"].as_f64().unwrap_or(-1.0) >= 0.0);
        assert!(r["speedup_evals"].as_f64().unwrap_or(0.0) >= 1.0);
    }
    let csv = std::fs::read_to_string(dir.join("filter-study.csv")).expect("filter-study.csv");
    assert_eq!(csv.lines().count(), 4);
    assert!(csv.starts_with("filter,ladder,decisions,agree,mean_loss,se,misses_020"));
    let dec = std::fs::read_to_string(dir.join("decisions.csv")).expect("decisions.csv");
    assert_eq!(dec.lines().count(), 7);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `train label --ply 1` refuses the exact searches (see `bgfarm hint`'s tests):
/// the bench race after 2/off 1/off of `X90GAQCFBwAAAA` 2-1 with
/// `--exact-gammons`, and the one after 20/15 17/11 of `768AAMB9IQARAA` 6-5 with
/// `--exact-race`.
#[test]
fn label_refuses_the_exact_searches_above_ply0() {
    label_refuses_above_ply0("4AEA4KvbIAAAAA", "--exact-gammons");
    label_refuses_above_ply0("94UQAuD9FQAAAA", "--exact-race");
}

/// `train label --ply 1` with an exact search `option` is refused (code 2, the
/// option named), and nothing is left behind.
fn label_refuses_above_ply0(position: &str, option: &str) {
    let dir = std::env::temp_dir().join(format!("bgfarm-cli-label{option}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let positions = dir.join("p.txt");
    std::fs::write(&positions, format!("{position}\n")).expect("write");
    let out = lab(&[
        "train",
        "label",
        "--positions",
        positions.to_str().unwrap_or(""),
        "--out",
        dir.join("l.txt").to_str().unwrap_or(""),
        "--ply",
        "1",
        option,
        "1000",
    ]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains(option));
}

/// `bench race-referee` on two bench races: one where every choice is GNU
/// Backgammon 2-ply's, and `X90GAQCFBwAAAA` 2-1, where the two-sided race net
/// (`--side-net none`) plays 6/4 1/off and misses the gammon that 2/off 1/off wins
/// when the opponent's straggler fails to get a checker off in time: 0.0100 by the
/// exact gammon search, 0.0106 by GNU Backgammon 2-ply. The searches decide every
/// play there, so they charge the race net's choice about the same as the bench,
/// and GNU Backgammon's nothing.
#[test]
fn bench_race_referee_scores_the_disputed_races() {
    let bench = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../engine/testdata/oracle/bench.jsonl"
    );
    let text = std::fs::read_to_string(bench).expect("bench file");
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("\"dy0AANgKAAgAAA\"") || l.contains("\"X90GAQCFBwAAAA\""))
        .collect();
    assert_eq!(lines.len(), 2);
    let dir = std::env::temp_dir().join(format!("bgfarm-referee-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("races.jsonl");
    std::fs::write(&file, lines.join("\n")).expect("write");
    let f = file.to_string_lossy().to_string();
    let v = json(&[
        "bench",
        "race-referee",
        "--file",
        &f,
        "--side-net",
        "none",
        "--json",
    ]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(v["decisions"], 2, "{v}");
    assert_eq!(v["disputed"], 1, "{v}");
    assert_eq!(v["decided"], 1, "{v}");
    let d = &v["disputed_decisions"][0];
    assert_eq!(d["position"], "X90GAQCFBwAAAA");
    assert_eq!(d["choices"][0], "2/off 1/off");
    let loss = |key: &str, i: usize| d[key][i].as_f64().unwrap_or(-1.0);
    assert_eq!(loss("bench_loss", 0), 0.0);
    assert_eq!(loss("searched_loss", 0), 0.0);
    // The searches' own best play is GNU Backgammon 2-ply's: the bench charges
    // it nothing.
    assert_eq!(d["searched_best"][0], "2/off 1/off");
    assert_eq!(d["searched_best_bench_loss"], 0.0);
    assert_eq!(v["searched_choice_bench_loss"], 0.0);
    assert!((0.0104..0.0116).contains(&loss("bench_loss", 2)), "{d}");
    assert!((0.009..0.011).contains(&loss("searched_loss", 2)), "{d}");
    // Means over both decisions, the agreed one counting 0.
    let mean = v["searched"]["bgfarm_0ply"]["mean"]
        .as_f64()
        .unwrap_or(-1.0);
    assert!((mean - loss("searched_loss", 2) / 2.0).abs() < 1e-12, "{v}");
}
