//! `bgfarm analyse` on the GNU Backgammon test matches (tests/data/matches): the
//! text report, the JSON fields, the same decisions from the `.sgf` and the `.mat`
//! file of one match, and a one-line refusal naming the file and line (exit code 2,
//! nothing on stdout) for a bad file. 0-ply keeps the debug-build tests quick.

mod common;

use common::cluster::TempDir;
use common::{bgfarm, fails, json};

fn data(name: &str) -> String {
    format!("{}/tests/data/matches/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// `text` written to `name` in `dir` (removed when `dir` drops).
fn temp(dir: &TempDir, name: &str, text: &str) -> String {
    dir.file(name, text).to_string_lossy().into_owned()
}

#[test]
fn json_fields_and_same_decisions_in_both_formats() {
    let sgf = json(&["analyse", &data("five-point.sgf"), "--ply", "0", "--json"]);
    let mat = json(&["analyse", &data("five-point.mat"), "--ply", "0", "--json"]);
    assert_eq!(sgf["format"], "sgf");
    assert_eq!(mat["format"], "mat");
    assert_eq!(sgf["match_length"], 5);
    assert_eq!(sgf["games"], 6);
    let players = sgf["players"].as_array().expect("players");
    assert_eq!(players.len(), 2);
    assert_eq!(players[0]["name"], "gnubg");
    assert_eq!(players[1]["name"], "root");
    for p in players {
        for key in [
            "moves",
            "unforced",
            "chequer_error",
            "chequer_error_rate",
            "cube_decisions",
            "cube_error_rate",
            "error_rate",
            "pr",
            "doubtful",
            "bad",
            "very_bad",
        ] {
            assert!(p[key].is_number(), "{key}: {p}");
        }
        let (unforced, moves) = (p["unforced"].as_u64(), p["moves"].as_u64());
        assert!(unforced <= moves && unforced > Some(40), "{p}");
        let pr = p["pr"].as_f64().unwrap_or(-1.0);
        let rate = p["error_rate"].as_f64().unwrap_or(-1.0);
        assert!(pr > 0.0 && (2.0 * pr - rate).abs() < 1e-9, "{p}");
    }
    // The three actual doubles of each side are there, with their answers.
    let [d0, d1] = [&players[0], &players[1]].map(|p| p["doubles"].as_u64());
    assert_eq!((d0, d1), (Some(3), Some(3)));
    assert_eq!(
        (players[0]["takes"].as_u64(), players[1]["drops"].as_u64()),
        (Some(3), Some(3))
    );
    let decisions = sgf["decisions"].as_array().expect("decisions");
    let first = &decisions[0];
    for key in [
        "game", "move", "player", "kind", "position", "dice", "played", "best", "error",
    ] {
        assert!(!first[key].is_null(), "{key}: {first}");
    }
    assert_eq!(first["kind"], "chequer");
    assert_eq!(first["played"], "24/18 13/9");
    assert_eq!(first["position"], "4HPwATDgc/ABMA:cAmzAAAAAAAA");
    for d in decisions {
        let e = d["error"].as_f64();
        assert!(e.is_none_or(|e| e >= 0.0), "{d}");
        assert!(
            d["forced"] == true || e.is_some() || d["kind"] != "chequer",
            "{d}"
        );
    }
    // The same decisions, positions, plays and errors from the match text.
    assert_eq!(sgf["players"], mat["players"]);
    assert_eq!(sgf["decisions"], mat["decisions"]);
}

#[test]
fn text_report_reads_like_match_statistics() {
    let out = bgfarm(&["analyse", &data("three-point.sgf"), "--ply", "0"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    for line in [
        "3-point match, gnubg vs root, 2 games",
        "Unforced moves",
        "Error rate mEMG per unforced move",
        "Close or actual cube decisions",
        "Decisions marked very bad",
        "PR (eXtreme Gammon)",
        "Decisions marked doubtful or worse:",
    ] {
        assert!(text.contains(line), "{line}:\n{text}");
    }
}

#[test]
fn bad_files_are_refused_with_the_file_and_line() {
    let dir = TempDir::new("analyse-bad");
    let mat = std::fs::read_to_string(data("three-point.mat")).expect("read");
    let illegal = temp(
        &dir,
        "illegal.mat",
        &mat.replacen("52: 13/8 13/11", "52: 13/7 13/11", 1),
    );
    fails(
        &["analyse", &illegal, "--ply", "0"],
        &format!("{illegal}: line 8: illegal move"),
    );
    let cut: Vec<&str> = mat.lines().take(20).collect();
    let truncated = temp(&dir, "truncated.mat", &cut.join("\n"));
    fails(&["analyse", &truncated, "--ply", "0"], "truncated");
    fails(
        &["analyse", &truncated, "--ply", "0"],
        &format!("{truncated}: line "),
    );
    let garbage = temp(&dir, "garbage.sgf", "this is not a match\n");
    fails(&["analyse", &garbage], &format!("{garbage}: line 1:"));
    let sgf = std::fs::read_to_string(data("five-point.sgf")).expect("read");
    let half = temp(&dir, "half.sgf", &sgf[..sgf.len() / 2]);
    fails(&["analyse", &half, "--json"], "truncated");
    fails(&["analyse", &data("missing.sgf")], "cannot read");
    fails(
        &["analyse", &data("five-point.sgf"), "--ply", "4"],
        "--ply 4",
    );
    fails(
        &["analyse", &data("five-point.sgf"), "--luck-ply", "4"],
        "--luck-ply 4",
    );
    fails(
        &[
            "analyse",
            &data("five-point.sgf"),
            "--html",
            "/nonexistent/x.html",
        ],
        "/nonexistent/x.html: cannot write",
    );
}

/// `--rollout-threshold`: every unforced chequer decision with at least that error
/// is rolled out, the played and the best play, in the order of the decisions; a
/// rollout kept in `--rollout-data` is reused by the same analysis again, bit for
/// bit; a negative threshold is refused.
#[test]
fn errors_over_the_threshold_are_rolled_out() {
    let dir = TempDir::new("analyse-rolled");
    let store =
        std::env::temp_dir().join(format!("bgfarm-analyse-rollouts-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&store);
    let store_s = store.to_string_lossy().into_owned();
    let file = data("three-point.mat");
    let page = temp(&dir, "rolled.html", "");
    let args = [
        "analyse",
        file.as_str(),
        "--ply",
        "0",
        "--json",
        "--rollout-threshold",
        "0.15",
        "--rollout-trials",
        "36",
        "--rollout-data",
        store_s.as_str(),
        "--html",
        page.as_str(),
    ];
    let v = json(&args);
    let over: Vec<&serde_json::Value> = v["decisions"]
        .as_array()
        .expect("decisions")
        .iter()
        .filter(|d| d["kind"] == "chequer" && d["forced"] == false)
        .filter(|d| d["error"].as_f64().is_some_and(|e| e >= 0.15))
        .collect();
    let rolled = v["rollouts"].as_array().expect("rollouts");
    assert!(!rolled.is_empty());
    assert_eq!(rolled.len(), over.len());
    for (r, d) in rolled.iter().zip(over) {
        assert_eq!(r["position"], d["position"]);
        assert_eq!(r["played"]["move"], d["played"]);
        assert_eq!(r["best"]["move"], d["best"]);
        assert_eq!(r["trials"], 36);
        for k in ["played", "best"] {
            let e = r[k]["equity"].as_f64().unwrap_or(f64::NAN);
            assert!((-3.0..=3.0).contains(&e), "{r}");
        }
    }
    // The page shows every rollout next to its decision's board.
    let html = std::fs::read_to_string(&page).expect("the page");
    assert_eq!(html.matches("rolled out (36 trials)").count(), rolled.len());
    let again = json(&args);
    assert_eq!(again["rollouts"], v["rollouts"]);
    // `--rollout-moves 4`: the played, the best and the next two at n-ply; the
    // played and best figures are those of the two-play rollout (same dice).
    let mut more = args.to_vec();
    more.extend(["--rollout-moves", "4"]);
    let four = json(&more);
    let four = four["rollouts"].as_array().expect("rollouts");
    assert_eq!(four.len(), rolled.len());
    for (a, b) in four.iter().zip(rolled) {
        assert_eq!((&a["played"], &a["best"]), (&b["played"], &b["best"]));
        let others = a["others"].as_array().expect("others");
        assert!(!others.is_empty() && others.len() <= 2, "{a}");
        for o in others {
            assert_ne!(o["move"], a["played"]["move"]);
            assert_ne!(o["move"], a["best"]["move"]);
        }
        assert!(b.get("others").is_none(), "{b}");
    }
    let _ = std::fs::remove_dir_all(&store);
    for bad in ["1", "5"] {
        fails(
            &[
                "analyse",
                file.as_str(),
                "--ply",
                "0",
                "--rollout-threshold",
                "0.15",
                "--rollout-moves",
                bad,
            ],
            "--rollout-moves",
        );
    }
    fails(
        &[
            "analyse",
            file.as_str(),
            "--ply",
            "0",
            "--rollout-threshold=-1",
        ],
        "--rollout-threshold",
    );
}

/// `--rollout-cubeful`: each error rolled out at its cube and score (MWC in a
/// match), one job per score, each decision's figures those of rolling it out
/// alone with `bgfarm rollout ID:MATCHID --cubeful`.
#[test]
fn errors_are_rolled_out_cubeful_at_their_score() {
    let file = data("three-point.mat");
    let v = json(&[
        "analyse",
        file.as_str(),
        "--ply",
        "0",
        "--json",
        "--rollout-threshold",
        "0.15",
        "--rollout-trials",
        "36",
        "--rollout-cubeful",
    ]);
    let rolled = v["rollouts"].as_array().expect("rollouts");
    assert!(rolled.len() >= 2, "{v}");
    for r in rolled {
        for k in ["played", "best"] {
            let mwc = r[k]["cubeful"].as_f64().unwrap_or(f64::NAN);
            assert!((0.0..=1.0).contains(&mwc), "{r}");
        }
    }
    let last = rolled.last().expect("a rollout");
    let dice = format!(
        "{}{}",
        last["dice"][0].as_u64().unwrap_or(0),
        last["dice"][1].as_u64().unwrap_or(0)
    );
    let moves = format!(
        "{},{}",
        last["played"]["move"].as_str().unwrap_or(""),
        last["best"]["move"].as_str().unwrap_or("")
    );
    let alone = json(&[
        "rollout",
        last["position"].as_str().expect("position"),
        "--dice",
        &dice,
        "--moves",
        &moves,
        "--cubeful",
        "--trials",
        "36",
        "--json",
    ]);
    // The table lists the plays best first: find each by its move.
    let of = |m: &serde_json::Value| {
        alone["candidates"]
            .as_array()
            .and_then(|c| c.iter().find(|c| c["move"] == *m))
            .map(|c| c["cubeful_equity"].clone())
    };
    for k in ["played", "best"] {
        assert_eq!(
            of(&last[k]["move"]),
            Some(last[k]["cubeful"].clone()),
            "{k}: {alone}"
        );
    }
}

/// Cube errors over the threshold: both branches of the decision rolled out cubeful
/// at its cube and score (MWC here), the figures those of `bgfarm rollout
/// ID:MATCHID --cubeful` alone (same dice), the best choice and the error by the
/// n-ply rating's rule (the doubler's best `max(ND, min(DT, DP))`, the taker's
/// `min(DT, DP)`), in the text and on the page.
#[test]
fn cube_errors_are_rolled_out_cubeful() {
    let dir = TempDir::new("analyse-cube-rolled");
    let file = data("three-point.mat");
    let page = temp(&dir, "cube.html", "");
    let args = [
        "analyse",
        file.as_str(),
        "--ply",
        "0",
        "--rollout-threshold",
        "0.12",
        "--rollout-trials",
        "36",
        "--html",
        page.as_str(),
    ];
    let mut with_json = args.to_vec();
    with_json.push("--json");
    let v = json(&with_json);
    let over: Vec<&serde_json::Value> = v["decisions"]
        .as_array()
        .expect("decisions")
        .iter()
        .filter(|d| d["kind"] != "chequer" && d["played"] != d["best"])
        .filter(|d| d["error"].as_f64().is_some_and(|e| e >= 0.12))
        .collect();
    let cubes = v["cube_rollouts"].as_array().expect("cube_rollouts");
    assert!(cubes.len() >= 2, "{v}");
    assert_eq!(cubes.len(), over.len());
    for (r, d) in cubes.iter().zip(&over) {
        for k in ["game", "move", "player", "position", "played"] {
            assert_eq!(r[k], d[k], "{k}: {r} {d}");
        }
        assert_eq!(r["trials"], 36);
        let f = |k: &str| r[k].as_f64().unwrap_or(f64::NAN);
        let (nd, dt, dp) = (f("no_double"), f("double_take"), f("double_pass"));
        for x in [nd, dt, dp] {
            assert!((0.0..=1.0).contains(&x), "{r}");
        }
        let double = dt.min(dp);
        let (best, loss) = match r["played"].as_str() {
            Some("take") => (if dt <= dp { "take" } else { "drop" }, dt - double),
            Some("drop") => (if dt <= dp { "take" } else { "drop" }, dp - double),
            Some("double") => (
                if double > nd { "double" } else { "no_double" },
                nd.max(double) - double,
            ),
            _ => (
                if double > nd { "double" } else { "no_double" },
                nd.max(double) - nd,
            ),
        };
        assert_eq!(r["best"], best, "{r}");
        assert!((f("error_mwc") - loss).abs() < 1e-9, "{r}");
        assert!(
            f("error") >= 0.0 && (f("error") > 0.0) == (loss > 0.0),
            "{r}"
        );
    }
    let last = cubes.last().expect("a cube rollout");
    let alone = json(&[
        "rollout",
        last["position"].as_str().expect("position"),
        "--cubeful",
        "--trials",
        "36",
        "--json",
    ]);
    let c = &alone["cube_decision"];
    for k in ["no_double", "double_take", "double_pass", "action"] {
        assert_eq!(c[k], last[k], "{k}: {alone}");
    }
    let out = bgfarm(&args);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("Cube actions rolled out (36 trials a branch"),
        "{text}"
    );
    let html = std::fs::read_to_string(&page).expect("the page");
    assert_eq!(
        html.matches("rolled out (36 trials, cubeful)").count(),
        cubes.len()
    );
}

/// A money session under the Jacoby rule (`RU[Jacoby]` in the `.sgf`): its cube
/// errors are rolled out under the rule too (the position IDs do not carry it), as
/// `bgfarm rollout ID --cubeful --jacoby` alone gives them, and differently from
/// the same session without the rule.
#[test]
fn cube_rollouts_of_a_money_session_keep_its_jacoby_rule() {
    let dir = TempDir::new("analyse-jacoby");
    let sgf = std::fs::read_to_string(data("three-point.sgf")).expect("read");
    let money = sgf.replace("MI[length:3]", "MI[length:0]");
    let rolled = |name: &str, rules: &str| {
        let file = temp(&dir, name, &money.replace("RU[Crawford]", rules));
        let v = json(&[
            "analyse",
            file.as_str(),
            "--ply",
            "0",
            "--json",
            "--rollout-threshold",
            "0.12",
            "--rollout-trials",
            "36",
        ]);
        v["cube_rollouts"][0].clone()
    };
    let (jacoby, plain) = (rolled("jacoby.sgf", "RU[Jacoby]"), rolled("plain.sgf", ""));
    assert_eq!(jacoby["position"], plain["position"], "{jacoby} {plain}");
    assert_ne!(jacoby["no_double"], plain["no_double"], "{jacoby} {plain}");
    let alone = json(&[
        "rollout",
        jacoby["position"].as_str().expect("position"),
        "--cubeful",
        "--jacoby",
        "--trials",
        "36",
        "--json",
    ]);
    assert_eq!(alone["cube_decision"]["no_double"], jacoby["no_double"]);
}

/// Luck: every roll of each player counted (GNU Backgammon counts 107 and 110 on
/// this match), a luck per chequer decision, the totals consistent with the rate,
/// and the luck-adjusted result the actual result minus the player's luck plus the
/// opponent's, in MWC.
#[test]
fn luck_and_the_luck_adjusted_result() {
    let v = json(&["analyse", &data("five-point.mat"), "--ply", "0", "--json"]);
    assert_eq!(v["result_units"], "mwc");
    assert_eq!(v["luck_ply"], 0);
    let p = v["players"].as_array().expect("players");
    let num = |p: &serde_json::Value, k: &str| p[k].as_f64().unwrap_or(f64::NAN);
    assert_eq!(
        (p[0]["rolls"].as_u64(), p[1]["rolls"].as_u64()),
        (Some(107), Some(110))
    );
    // root won the match from 0-0: +50% MWC.
    assert!((num(&p[1], "actual_result") - 0.5).abs() < 1e-9, "{}", p[1]);
    for (me, them) in [(0, 1), (1, 0)] {
        let (a, b) = (&p[me], &p[them]);
        let adjusted = num(a, "actual_result") - num(a, "luck_mwc") + num(b, "luck_mwc");
        assert!(
            (num(a, "luck_adjusted_result") - adjusted).abs() < 1e-9,
            "{a}"
        );
        let rate = 1000.0 * num(a, "luck") / num(a, "rolls");
        assert!((num(a, "luck_rate") - rate).abs() < 1e-9, "{a}");
        assert!(num(a, "luck").abs() < 5.0, "{a}");
    }
    let decisions = v["decisions"].as_array().expect("decisions");
    for d in decisions {
        let luck = d["luck"].as_f64();
        assert_eq!(luck.is_some(), d["kind"] == "chequer", "{d}");
        assert!(luck.is_none_or(|l| l.abs() < 3.0), "{d}");
    }
    // The opening 64 of game 1 is about average among the 30 opening outcomes.
    let first = decisions[0]["luck"].as_f64().unwrap_or(f64::NAN);
    assert!(first.abs() < 0.1, "{}", decisions[0]);
    let out = bgfarm(&["analyse", &data("five-point.mat"), "--ply", "0"]);
    let text = String::from_utf8_lossy(&out.stdout);
    for line in [
        "Luck (best plays at 0-ply)",
        "Luck total EMG (MWC)",
        "Luck-adjusted result",
    ] {
        assert!(text.contains(line), "{line}:\n{text}");
    }
}

/// Money play: the result in points (root won 2 and 3 points of the 3-point match
/// read as a money session), luck adjusted by points (equity times the cube), no MWC.
#[test]
fn money_luck_is_in_points() {
    let dir = TempDir::new("analyse-money");
    let mat = std::fs::read_to_string(data("three-point.mat")).expect("read");
    let money = temp(
        &dir,
        "money.mat",
        &mat.replacen(" 3 point match", " 0 point match", 1),
    );
    let v = json(&["analyse", &money, "--ply", "0", "--json"]);
    assert_eq!(v["result_units"], "points");
    let p = &v["players"];
    assert_eq!(p[1]["actual_result"].as_f64(), Some(5.0), "{p}");
    assert_eq!(p[0]["actual_result"].as_f64(), Some(-5.0), "{p}");
    assert!(p[0]["luck_mwc"].is_null());
    let adjusted = p[1]["luck_adjusted_result"].as_f64().unwrap_or(f64::NAN);
    assert!(adjusted.abs() < 5.0 && adjusted != 5.0, "{p}");
}
