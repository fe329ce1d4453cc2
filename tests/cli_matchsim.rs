//! `bgfarm match-sim` and `bgfarm study` through the built binary: JSON fields,
//! determinism across thread counts, report files, exit code 2 on bad input.

use std::path::PathBuf;
mod common;

use common::{bgfarm, fails, json};

fn sim(extra: &[&str]) -> serde_json::Value {
    let mut args = vec![
        "match-sim",
        "--length",
        "5",
        "--a",
        "janowski-match:x=0.7",
        "--b",
        "janowski-money:x=0.7",
        "--matches",
        "12",
        "--seed",
        "3",
        "--json",
    ];
    args.extend_from_slice(extra);
    json(&args)
}

#[test]
fn json_report_has_the_fields() {
    let v = sim(&[]);
    assert_eq!(v["matches"], 12);
    assert_eq!(v["pairs"], 6);
    assert_eq!(v["length"], 5);
    assert_eq!(v["a"], "janowski-match:x=0.7");
    for key in [
        "ppm",
        "se",
        "win_rate",
        "avg_games",
        "avg_cube",
        "gammon_rate",
    ] {
        assert!(v[key].as_f64().is_some(), "{key} in {v}");
    }
    let ppm = v["ppm"].as_f64().unwrap_or(9.0);
    assert!((-1.0..=1.0).contains(&ppm));
    assert!(v["avg_games"].as_f64() >= Some(1.0));
    assert!(v["avg_cube"].as_f64() >= Some(1.0));
    assert!(v["adjusted_ppm"].is_null());
}

#[test]
fn results_do_not_depend_on_threads() {
    let one = sim(&["--threads", "1"]);
    let two = sim(&["--threads", "2"]);
    for key in [
        "ppm",
        "se",
        "win_rate",
        "avg_games",
        "avg_cube",
        "gammon_rate",
    ] {
        assert_eq!(one[key], two[key], "{key}");
    }
}

#[test]
fn money_sessions_with_luck() {
    let v = json(&[
        "match-sim",
        "--length",
        "0",
        "--a",
        "janowski-money:x=0.7",
        "--b",
        "janowski-money:x=0.7",
        "--matches",
        "4",
        "--luck",
        "--json",
    ]);
    // Identical strategies: duplicate dice cancel every pair exactly.
    assert_eq!(v["ppm"], 0.0);
    assert_eq!(v["avg_games"], 1.0);
    assert!(v["adjusted_ppm"].as_f64().is_some_and(|a| a.abs() < 1e-9));
}

/// Higgins's x = 1 player wins 58.3% of its money games against x = 0.7 (it cashes
/// past the cash point). The uncapped Janowski mix has no doubling window at x = 1,
/// so it never cashes and wins under half; the capped model reproduces his player.
#[test]
fn capped_janowski_x1_cashes_like_higgins() {
    let run = |model: &str| {
        json(&[
            "match-sim",
            "--length",
            "0",
            "--a",
            &format!("{model}:x=1"),
            "--b",
            &format!("{model}:x=0.7"),
            "--matches",
            "600",
            "--json",
        ])
    };
    let capped = run("janowski-capped");
    let uncapped = run("janowski-money");
    let rate = |v: &serde_json::Value| v["win_rate"].as_f64().unwrap_or(f64::NAN);
    // 600 games: SE of a win rate about 0.02.
    assert!(rate(&capped) > 0.53, "{capped}");
    assert!(rate(&uncapped) < 0.53, "{uncapped}");
    assert!(
        rate(&capped) - rate(&uncapped) > 0.05,
        "{capped} {uncapped}"
    );
}

#[test]
fn bad_arguments_exit_with_code_2() {
    let base = [
        "match-sim",
        "--a",
        "janowski-match",
        "--b",
        "janowski-money",
    ];
    let with = |extra: &[&'static str]| -> Vec<&'static str> {
        let mut v = base.to_vec();
        v.extend_from_slice(extra);
        v
    };
    fails(&with(&["--length", "5", "--matches", "3"]), "even");
    fails(&with(&["--length", "65", "--matches", "2"]), "above 64");
    fails(
        &with(&["--length", "5", "--matches", "2", "--jacoby"]),
        "Jacoby",
    );
    fails(
        &[
            "match-sim",
            "--length",
            "5",
            "--a",
            "gnubg",
            "--b",
            "jump",
            "--matches",
            "2",
        ],
        "unknown cube strategy",
    );
    fails(
        &[
            "match-sim",
            "--length",
            "5",
            "--a",
            "jump:sigma=2",
            "--b",
            "jump",
            "--matches",
            "2",
        ],
        "sigma",
    );
    // Bad tables and jump-match parameters: one line, exit code 2.
    let jm = |a: &'static str, extra: &[&'static str], why: &str| {
        let mut v = vec![
            "match-sim",
            "--length",
            "5",
            "--a",
            a,
            "--b",
            "janowski-match",
            "--matches",
            "2",
        ];
        v.extend_from_slice(extra);
        fails(&v, why);
    };
    jm("jump-match:sigma=0", &[], "sigma must be above 0");
    jm("jump-match:sigma=-0.1", &[], "sigma must be above 0");
    jm("jump:sigma=auto", &[], "jump-match only");
    jm(
        "janowski-match",
        &["--met", "janowski:x=1.5"],
        "outside 0..1",
    );
    jm(
        "janowski-match",
        &["--met-a", "janowski:x=-1"],
        "outside 0..1",
    );
    jm(
        "janowski-match",
        &["--met-b", "no-such"],
        "unknown match equity table",
    );
    fails(&["met", "--table", "janowski:x=2"], "outside 0..1");
    fails(&["met", "--table", "nope"], "unknown match equity table");
    fails(
        &["met", "--compare", "kazaross-xg2,nope"],
        "unknown match equity table",
    );
}

#[test]
fn own_tables_and_jump_match_whatever_the_threads() {
    let run = |threads: &str| {
        json(&[
            "match-sim",
            "--length",
            "3",
            "--a",
            "jump-match:sigma=auto",
            "--b",
            "janowski-match:x=0.68",
            "--met-b",
            "janowski:x=0.68",
            "--matches",
            "8",
            "--seed",
            "5",
            "--threads",
            threads,
            "--json",
        ])
    };
    let (one, two) = (run("1"), run("2"));
    assert_eq!(one["a"], "jump-match:sigma=auto");
    assert_eq!(one["met_b"], "Janowski x=0.68 G=0.26");
    assert!(one.get("met_a").is_none(), "{one}");
    for key in ["ppm", "se", "win_rate", "avg_games", "avg_cube"] {
        assert_eq!(one[key], two[key], "{key}");
    }
    let cmp = json(&[
        "met",
        "--table",
        "janowski",
        "--compare",
        "kazaross-xg2,keith",
        "--length",
        "3",
        "--json",
    ]);
    assert_eq!(cmp["name"], "Janowski x=0.68 G=0.26");
    assert_eq!(cmp["compare"][1]["name"], "Keith live-cube G=0.26");
    assert!(
        cmp["compare"][0]["max_abs_diff"].as_f64() < Some(0.03),
        "{cmp}"
    );
}

fn out_dir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn cube_life_study_writes_its_report() {
    let dir = out_dir("study_cube_life");
    let d = dir.to_string_lossy().to_string();
    succeeds(&study_line(
        "study cube-life --lengths 3 --x 0,0.5,1 --matches 4",
        &d,
    ));
    let csv = std::fs::read_to_string(dir.join("cube_life.csv")).expect("csv");
    assert_eq!(csv.lines().count(), 4, "{csv}");
    assert!(csv.starts_with("length,x,baseline,matches,ppm,se"));
    let svg = std::fs::read_to_string(dir.join("cube_life.svg")).expect("svg");
    assert!(svg.contains("<svg") && svg.matches("<circle").count() == 3);
    let txt = std::fs::read_to_string(dir.join("cube_life.txt")).expect("txt");
    assert!(txt.contains("3-point"), "{txt}");
}

#[test]
fn games_per_match_study_writes_its_report() {
    let dir = out_dir("study_games");
    let d = dir.to_string_lossy().to_string();
    succeeds(&study_line(
        "study games-per-match --lengths 1..3 --x 0.7 --matches 4",
        &d,
    ));
    let csv = std::fs::read_to_string(dir.join("games_per_match.csv")).expect("csv");
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(rows.len(), 4, "{csv}");
    // A 1-point match is one game.
    assert!(rows[1].starts_with("1,0.7,4,1.0000,"), "{csv}");
    assert!(dir.join("games_per_match.svg").is_file());
}

/// `line`'s words, then `--out dir`: a study's command line.
fn study_line<'a>(line: &'a str, dir: &'a str) -> Vec<&'a str> {
    line.split_whitespace().chain(["--out", dir]).collect()
}

#[test]
fn bad_study_arguments_exit_with_code_2() {
    let d = out_dir("study_bad").to_string_lossy().to_string();
    for (line, needle) in [
        ("study cube-life --lengths x --x 0 --matches 2", "--lengths"),
        ("study cube-life --lengths 3 --x 2 --matches 2", "--x"),
        ("study money-cube-life --x 0 --matches 3", "even"),
    ] {
        fails(&study_line(line, &d), needle);
    }
}

#[test]
fn bad_study_grids_are_refused_before_anything_is_written() {
    let dir = out_dir("study_bad_grid");
    let d = dir.to_string_lossy().to_string();
    let cube_life = |lengths: &str, x: &str| {
        [
            "study",
            "cube-life",
            "--lengths",
            lengths,
            "--x",
            x,
            "--matches",
            "2",
            "--out",
        ]
        .map(String::from)
        .to_vec()
    };
    let cases = [
        (cube_life("", "0.5"), "--lengths"),
        (cube_life("3", ""), "--x"),
        (cube_life("0", "0.5"), "--lengths"),
        (cube_life("65", "0.5"), "64"),
        (cube_life("3", "-0.1"), "--x"),
        (cube_life("3", "1.01"), "--x"),
    ];
    for (args, needle) in cases {
        let mut args: Vec<&str> = args.iter().map(String::as_str).collect();
        args.push(&d);
        fails(&args, needle);
        assert!(!dir.exists(), "{args:?} wrote {}", dir.display());
    }
    for (line, needle) in [
        (
            "study games-per-match --lengths 0..2 --x 0.5 --matches 2",
            "--lengths",
        ),
        (
            "study cube-life --lengths 3 --x 0.5 --matches 2 \
             --coordinator http://127.0.0.1:1 --net fast",
            "default nets",
        ),
    ] {
        fails(&study_line(line, &d), needle);
        assert!(!dir.exists(), "{line} wrote {}", dir.display());
    }
    // An unknown study is clap's: usage on stderr, exit code 2.
    let out = bgfarm(&["study", "nonsense", "--out", &d]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nonsense"));
    assert!(!dir.exists());
}

/// Runs a command that must succeed (its stderr shown when it does not).
fn succeeds(args: &[&str]) {
    let out = bgfarm(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `v` without the fields that measure the machine.
fn result_of(mut v: serde_json::Value) -> serde_json::Value {
    let obj = v.as_object_mut().expect("a JSON object");
    obj.remove("seconds");
    obj.remove("threads");
    v
}

#[test]
fn match_aware_chequer_play_is_reported_and_the_default_is_unchanged() {
    let plain = result_of(sim(&[]));
    assert!(plain.get("chequer").is_none(), "{plain}");
    assert_eq!(result_of(sim(&["--chequer", "cubeless"])), plain);
    let aware = result_of(sim(&["--chequer", "match", "--luck"]));
    assert_eq!(aware["chequer"], "match");
    assert_eq!(aware["matches"], 12);
    // Each side by its own model: the money side no longer plays by the score.
    let mut own = result_of(sim(&["--chequer", "own", "--luck"]));
    assert_eq!(own["chequer"], "own");
    let mut aware = aware;
    for v in [&mut own, &mut aware] {
        v.as_object_mut().map(|o| o.remove("chequer"));
    }
    assert_ne!(own, aware, "the money side plays other chequers");
    fails(
        &[
            "match-sim",
            "--length",
            "5",
            "--a",
            "janowski-match",
            "--b",
            "janowski-money",
            "--matches",
            "2",
            "--chequer",
            "cubeful",
        ],
        "--chequer",
    );
    fails(&["met", "--table", "keith:measured"], "match-sim or study");
}

fn study_mvm(d: &str, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = [
        "study",
        "match-vs-money",
        "--lengths",
        "3,5",
        "--x",
        "0.5,1",
        "--matches",
        "4",
        "--out",
        d,
    ]
    .map(String::from)
    .to_vec();
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

#[test]
fn match_vs_money_study_writes_its_report() {
    let dir = out_dir("study_mvm");
    let d = dir.to_string_lossy().to_string();
    let args = study_mvm(&d, &["--luck", "--chequer", "match"]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    succeeds(&args);
    let csv = std::fs::read_to_string(dir.join("match_vs_money.csv")).expect("csv");
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(rows.len(), 5, "{csv}");
    assert!(rows[0].starts_with("length,x,a,b,matches,ppm,se,adjusted_ppm"));
    assert!(!rows[0].contains("seconds"));
    assert!(
        rows[1].starts_with("3,0.5,janowski-match-capped:x=0.5,janowski-capped:x=0.5,4,"),
        "{csv}"
    );
    let txt = std::fs::read_to_string(dir.join("match_vs_money.txt")).expect("txt");
    assert!(
        txt.contains("5-point") && txt.contains("luck-adjusted"),
        "{txt}"
    );
    assert!(txt.contains("chequer play match"), "{txt}");
    // Without --chequer the study plays each side by its own model.
    let own_dir = out_dir("study_mvm_own");
    let od = own_dir.to_string_lossy().to_string();
    let own_args = study_mvm(&od, &[]);
    succeeds(&own_args.iter().map(String::as_str).collect::<Vec<_>>());
    let own_txt = std::fs::read_to_string(own_dir.join("match_vs_money.txt")).expect("txt");
    assert!(own_txt.contains("chequer play own"), "{own_txt}");
    let svg = std::fs::read_to_string(dir.join("match_vs_money.svg")).expect("svg");
    assert_eq!(svg.matches("<circle").count(), 4);
    // The same command again: the same files (no timing in them).
    succeeds(&args);
    assert_eq!(
        std::fs::read_to_string(dir.join("match_vs_money.csv")).expect("csv"),
        csv
    );
}

#[test]
fn bad_match_vs_money_and_fit_arguments_exit_with_code_2() {
    let d = out_dir("study_mvm_bad").to_string_lossy().to_string();
    let run = |lengths: &str, x: &str, extra: &[&str], needle: &str| {
        let mut args = vec![
            "study",
            "match-vs-money",
            "--lengths",
            lengths,
            "--x",
            x,
            "--matches",
            "2",
            "--out",
            &d,
        ];
        args.extend_from_slice(extra);
        fails(&args, needle);
    };
    run("0,3", "0.5", &[], "--lengths");
    run("65", "0.5", &[], "1 to 64, got 65");
    run("3", "1.2", &[], "--x");
    run("3", "", &[], "--x");
    run("3", "0.5", &["--model", "jump"], "--model");
    run("3", "0.5", &["--chequer", "best"], "--chequer");
    let cube_life = |extra: &[&str], needle: &str| {
        let mut args = vec![
            "study",
            "cube-life",
            "--lengths",
            "3",
            "--x",
            "0,0.5,1",
            "--matches",
            "2",
            "--out",
            &d,
        ];
        args.extend_from_slice(extra);
        fails(&args, needle);
    };
    cube_life(&["--fit-window", "0.9..0.5"], "--fit-window");
    cube_life(&["--fit-window", "0.5..1.5"], "--fit-window");
    cube_life(&["--fit-window", "x"], "--fit-window");
    cube_life(&["--fit", "cubic"], "--fit");
}

#[test]
fn cube_life_fits_both_forms_in_a_window() {
    let dir = out_dir("study_cube_life_fits");
    let d = dir.to_string_lossy().to_string();
    succeeds(&[
        "study",
        "money-cube-life",
        "--x",
        "0,0.5,0.6,0.7,0.8",
        "--matches",
        "4",
        "--fit-window",
        "0.5..0.8",
        "--out",
        &d,
    ]);
    let txt = std::fs::read_to_string(dir.join("money_cube_life.txt")).expect("txt");
    assert!(txt.contains("money: free fit"), "{txt}");
    assert!(txt.contains("money: fit through 0 at x = 0.7"), "{txt}");
    assert!(txt.contains("4 points, x in 0.5..0.8"), "{txt}");
}
