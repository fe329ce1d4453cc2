//! `bgfarm duel` through the built binary: JSON fields, determinism across thread
//! counts, and exit code 2 for bad arguments.

mod common;

use common::bgfarm;

fn duel_json(extra: &[&str]) -> serde_json::Value {
    let mut args = vec![
        "duel", "--a", "pubeval", "--b", "random", "--games", "20", "--seed", "1", "--json",
    ];
    args.extend_from_slice(extra);
    let out = bgfarm(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

#[test]
fn json_report_has_the_fields() {
    let v = duel_json(&[]);
    assert_eq!(v["games"], 20);
    assert_eq!(v["pairs"], 10);
    assert_eq!(v["a"], "pubeval");
    assert_eq!(v["b"], "random");
    assert_eq!(v["seed"], 1);
    let ppg = v["ppg"].as_f64().expect("ppg");
    let se = v["se"].as_f64().expect("se");
    // PubEval against random moves wins nearly every game, most of them gammons.
    assert!(ppg > 1.0 && ppg <= 3.0, "{ppg}");
    assert!((0.0..1.0).contains(&se), "{se}");
    for key in [
        "win_rate",
        "gammon_rate",
        "backgammon_rate",
        "gammon_won_rate",
        "gammon_lost_rate",
        "backgammon_won_rate",
        "backgammon_lost_rate",
    ] {
        let x = v[key].as_f64().unwrap_or(-1.0);
        assert!((0.0..=1.0).contains(&x), "{key} = {x}");
    }
    assert!(v["win_rate"].as_f64() > Some(0.8));
    assert!(v["games_per_second"].as_f64() > Some(0.0));
}

#[test]
fn results_do_not_depend_on_threads() {
    let one = duel_json(&["--threads", "1"]);
    let three = duel_json(&["--threads", "3"]);
    for key in ["ppg", "se", "win_rate", "gammon_rate", "turns_per_game"] {
        assert_eq!(one[key], three[key], "{key}");
    }
}

#[test]
fn text_report() {
    let out = bgfarm(&["duel", "--a", "random", "--b", "pubeval", "--games", "4"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("A ppg:"), "{text}");
    assert!(text.contains("games/s"), "{text}");
}

#[test]
fn bad_arguments_exit_with_code_2() {
    for (args, needle) in [
        (vec!["--games", "3"], "even"),
        (vec!["--games", "0"], "even"),
        (vec!["--games", "2", "--threads", "0"], "threads"),
    ] {
        let mut all = vec!["duel", "--a", "pubeval", "--b", "random"];
        all.extend(args);
        let out = bgfarm(&all);
        assert_eq!(out.status.code(), Some(2), "{all:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(needle), "{all:?}: {err}");
    }
    let out = bgfarm(&["duel", "--a", "gnubg", "--b", "random", "--games", "2"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown player"));
    let out = bgfarm(&[
        "duel",
        "--a",
        "no/such/nets.safetensors",
        "--b",
        "random",
        "--games",
        "2",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no nets at"));
    let garbage =
        std::env::temp_dir().join(format!("bgfarm-garbage-{}.safetensors", std::process::id()));
    std::fs::write(&garbage, b"this is not a network").expect("temp file");
    let out = bgfarm(&[
        "duel",
        "--a",
        garbage.to_str().expect("utf-8 path"),
        "--b",
        "random",
        "--games",
        "2",
    ]);
    let _ = std::fs::remove_file(&garbage);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad network file"));
    let out = bgfarm(&["duel", "--a", "default", "--b", "random", "--games", "2"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
