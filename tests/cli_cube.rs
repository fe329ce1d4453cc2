//! `bgfarm cube` and `bgfarm met` through the built binary: JSON shapes, the
//! published numbers they must show, a positions file, and exit code 2 with a
//! one-line error for bad input.

use bgfarm_engine::ids::match_id::{CubeOwner, MatchState};
mod common;

use common::cluster::TempDir;
use common::{bgfarm, fails, json};

const START: &str = "4HPwATDgc/ABMA";

fn f(v: &serde_json::Value, key: &str) -> f64 {
    v[key]
        .as_f64()
        .unwrap_or_else(|| panic!("{key} missing in {v}"))
}

#[test]
fn money_cube_json() {
    let v = json(&["cube", START, "--json"]);
    for key in [
        "position",
        "match",
        "cube",
        "x",
        "probs",
        "units",
        "cubeless",
        "no_double",
        "double_take",
        "double_pass",
        "decision",
        "equity",
        "take_point",
        "cash_point",
    ] {
        assert!(v.get(key).is_some(), "{key} missing in {v}");
    }
    assert!(v["match"].is_null());
    assert_eq!(v["units"], "money");
    assert_eq!(v["cube"]["value"], 1);
    assert_eq!(v["cube"]["owner"], "centred");
    assert_eq!(v["x"], 0.68, "contact default");
    assert_eq!(v["probs"].as_array().map(Vec::len), Some(5));
    // The opening position: a small edge, far from doubling.
    assert_eq!(v["decision"], "no_double");
    assert_eq!(f(&v, "double_pass"), 1.0);
    assert!(f(&v, "double_take") < f(&v, "no_double"));
    assert_eq!(f(&v, "equity"), f(&v, "no_double"));
    let (tp, cp) = (f(&v, "take_point"), f(&v, "cash_point"));
    assert!(
        (0.15..0.3).contains(&tp) && (0.7..0.85).contains(&cp),
        "{tp} {cp}"
    );
    // A dead cube gives Janowski's dead points; gammonless they would be 25% / 75%.
    let dead = json(&["cube", START, "--x", "0", "--json"]);
    assert!(f(&dead, "take_point") > tp && f(&dead, "cash_point") < cp);
    assert!((f(&dead, "no_double") - f(&dead, "cubeless")).abs() < 1e-12);
}

#[test]
fn text_report() {
    let out = bgfarm(&["cube", START]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for needle in [
        "No double:",
        "Double, take:",
        "Double, pass:",
        "Proper cube action: no double",
    ] {
        assert!(text.contains(needle), "{text}");
    }
}

#[test]
fn match_play_from_a_match_id() {
    // 5-point match, player 0 on roll leading 2-0: 3-away vs 5-away.
    let m = MatchState {
        match_length: 5,
        score: [2, 0],
        ..MatchState::default()
    };
    let id = m.encode();
    let v = json(&["cube", START, "--match-id", &id, "--json"]);
    assert_eq!(v["units"], "mwc");
    assert_eq!(v["match"]["length"], 5);
    assert_eq!(v["match"]["away"], 3);
    assert_eq!(v["match"]["opp_away"], 5);
    assert_eq!(v["match"]["met"], "Kazaross-XG2");
    // A pass gives 2-away vs 5-away: Kazaross-XG2's 0.74359.
    assert_eq!(f(&v, "double_pass"), 0.74359);
    let nd = f(&v, "no_double");
    assert!((0.5..0.8).contains(&nd), "{nd}");
    // The same with `ID:MATCHID`, and the opponent on roll sees the other side.
    let joined = json(&["cube", &format!("{START}:{id}"), "--json"]);
    assert_eq!(joined["no_double"], v["no_double"]);
    let other = MatchState {
        dice_owner: 1,
        turn: 1,
        ..m
    }
    .encode();
    let w = json(&["cube", START, "--match-id", &other, "--json"]);
    assert_eq!(w["match"]["away"], 5);
    // Player 1 needs 5, player 0 needs 3: a pass leaves 4-away vs 3-away.
    assert_eq!(f(&w, "double_pass"), 0.4285);
    // Keith's table instead.
    let k = json(&[
        "cube",
        START,
        "--match-id",
        &id,
        "--met",
        "keith:G=0.26",
        "--json",
    ]);
    assert!(k["match"]["met"]
        .as_str()
        .unwrap_or("")
        .starts_with("Keith"));
}

#[test]
fn crawford_and_owned_cubes() {
    let crawford = MatchState {
        match_length: 5,
        score: [4, 1],
        crawford: true,
        ..MatchState::default()
    }
    .encode();
    let v = json(&["cube", START, "--match-id", &crawford, "--json"]);
    assert_eq!(v["decision"], "unavailable");
    assert!(v["double_take"].is_null() && v["cash_point"].is_null());
    assert_eq!(v["no_double"], v["cubeless"]);
    // Money, the opponent owns the 2-cube.
    let owned = MatchState {
        cube: 2,
        cube_owner: CubeOwner::Player(1),
        ..MatchState::default()
    }
    .encode();
    let v = json(&["cube", START, "--match-id", &owned, "--json"]);
    assert_eq!(v["cube"]["owner"], "opponent");
    assert_eq!(v["decision"], "unavailable");
    assert!(f(&v, "take_point") > 0.0);
    // An XGID carries its own cube and score: X on roll owns a 2-cube in money play.
    let x = json(&[
        "cube",
        "XGID=-b----E-C---eE---c-e----B-:1:1:1:00:0:0:0:0:10",
        "--json",
    ]);
    assert_eq!(x["cube"]["owner"], "player_on_roll");
    assert_eq!(x["cube"]["value"], 2);
}

#[test]
fn lookahead_plies() {
    let zero = json(&["cube", START, "--json"]);
    for ply in ["1", "2"] {
        let v = json(&["cube", START, "--ply", ply, "--json"]);
        assert_eq!(v["ply"].to_string(), ply);
        assert_eq!(f(&v, "double_pass"), 1.0);
        // The opening position stays a small edge and no double.
        assert_eq!(v["decision"], "no_double", "{v}");
        let nd = f(&v, "no_double");
        assert!((nd - f(&zero, "no_double")).abs() < 0.15, "{nd}");
        assert!(f(&v, "double_take") < nd);
    }
}

#[test]
fn bad_cube_input_exits_2() {
    fails(&["cube", START, "--ply", "4"], "--ply");
    fails(&["cube", "nonsense"], "position ID");
    fails(&["cube", START, "--x", "1.5"], "--x");
    fails(&["cube", START, "--match-id", "cAkAAAA"], "match ID");
    fails(
        &[
            "cube",
            START,
            "--met",
            "nope",
            "--match-id",
            &MatchState {
                match_length: 5,
                ..MatchState::default()
            }
            .encode(),
        ],
        "unknown match equity table",
    );
    let in_match = MatchState {
        match_length: 3,
        ..MatchState::default()
    }
    .encode();
    fails(
        &["cube", START, "--match-id", &in_match, "--jacoby"],
        "money play only",
    );
    let long = MatchState {
        match_length: 99,
        ..MatchState::default()
    }
    .encode();
    fails(&["cube", START, "--match-id", &long], "64-away");
    // A finished game has no cube decision: the opponent has borne everything off.
    fails(&["cube", "AAAAAAAAAAAAAA"], "game is over");
}

#[test]
fn met_json_shape_and_values() {
    let v = json(&["met", "--json"]);
    let obj = v.as_object().expect("object");
    assert_eq!(obj.len(), 2, "{v}");
    let pre = v["pre_crawford"].as_array().expect("pre_crawford");
    assert_eq!(pre.len(), 25);
    assert!(pre.iter().all(|r| r.as_array().map(Vec::len) == Some(25)));
    assert_eq!(v["post_crawford"].as_array().map(Vec::len), Some(25));
    // Row = the player's away score - 1.
    assert_eq!(v["pre_crawford"][0][1], 0.67736);
    assert_eq!(v["pre_crawford"][1][2], 0.59947);
    // The spec quotes 0.59793; the table holds 0.597926.
    let v9_11 = v["pre_crawford"][8][10].as_f64().unwrap_or(-1.0);
    assert!((v9_11 - 0.59793).abs() < 5e-6, "{v9_11}");
    assert_eq!(v["post_crawford"][1], 0.48803);
    assert_eq!(v["post_crawford"][4], 0.19012);
    let short = json(&["met", "--length", "3", "--json"]);
    assert_eq!(short["pre_crawford"].as_array().map(Vec::len), Some(3));
    // Keith's live-cube table with G = 0.26 against the published mec26 values.
    let k = json(&["met", "--table", "keith:G=0.26", "--length", "7", "--json"]);
    for (a, b, want) in [
        (1, 2, 0.685),
        (2, 3, 0.5945),
        (2, 4, 0.6641),
        (3, 5, 0.646),
        (5, 7, 0.6232),
    ] {
        let got = k["pre_crawford"][a - 1][b - 1].as_f64().unwrap_or(-1.0);
        assert!((got - want).abs() < 0.002, "{a}a{b}a {got}");
    }
}

#[test]
fn met_from_an_xml_file() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let path = dir.join("cli_cube_test_met.xml");
    let xml = r#"<?xml version="1.0"?>
<!DOCTYPE met PUBLIC "-//GNU Backgammon//DTD Match Equity Tables//EN" "met.dtd">
<met><info><name>two</name><description>d</description><length>2</length></info>
<pre-crawford-table type="explicit">
<row><me>0.5</me><me>0.7</me></row><row><me>0.3</me><me>0.5</me></row>
</pre-crawford-table>
<post-crawford-table type="explicit" player="both"><row><me>0.5</me><me>0.49</me></row>
</post-crawford-table></met>"#;
    std::fs::write(&path, xml).expect("write the test file");
    let p = path.to_string_lossy().to_string();
    let v = json(&["met", "--table", &p, "--length", "3", "--json"]);
    assert_eq!(v["pre_crawford"][0][1], 0.7);
    assert_eq!(v["post_crawford"][1], 0.49);
    let text = bgfarm(&["met", "--table", &p, "--length", "2"]);
    assert!(String::from_utf8_lossy(&text.stdout).contains("two"));
    std::fs::write(&path, "<met>not a table</met>").expect("write");
    fails(&["met", "--table", &p], "not a GNU Backgammon MET file");
    let _ = std::fs::remove_file(&path);
}

#[test]
fn bad_met_input_exits_2() {
    fails(&["met", "--table", "foo"], "unknown match equity table");
    fails(&["met", "--table", "keith:G=x"], "gammon rate");
    fails(&["met", "--length", "65"], "--length");
}

/// `--positions FILE`: each line decided at its own score and cube, as `bgfarm
/// cube` decides it alone; a report per line; dice on a line, `--match-id` with
/// the file, and a match line under `--jacoby` are refused naming the line.
#[test]
fn a_positions_file_decides_each_line_at_its_own_score() {
    let dir = TempDir::new("cube-positions");
    let lines = [
        "zJ6DAyDYtsFgIA:MAGgADAAEAAA",
        START,
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10",
    ];
    let text = format!("# cube decisions\n{}\n", lines.join("\n"));
    let file = dir.file("cubes.txt", &text).to_string_lossy().into_owned();
    let v = json(&["cube", "--positions", &file, "--ply", "1", "--json"]);
    let got = v["positions"].as_array().expect("positions");
    assert_eq!(got.len(), lines.len(), "{v}");
    for (g, id) in got.iter().zip(lines) {
        assert_eq!(*g, json(&["cube", id, "--ply", "1", "--json"]), "{id}");
    }
    assert_eq!(got[0]["units"], "mwc");
    assert_eq!(got[1]["units"], "money");
    let out = bgfarm(&["cube", "--positions", &file]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert_eq!(
        text.matches("Proper cube action:").count(),
        lines.len(),
        "{text}"
    );
    let dice = dir
        .file("dice.txt", &format!("{START} 31\n"))
        .to_string_lossy()
        .into_owned();
    fails(
        &["cube", "--positions", &dice],
        "line 1: a cube line is one position",
    );
    let both = bgfarm(&["cube", "--positions", &file, "--match-id", "cAkAAAAAAAAA"]);
    assert_eq!(both.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&both.stderr).contains("cannot be used with"));
    fails(
        &["cube", "--positions", &file, "--jacoby"],
        "line 2: --jacoby",
    );
}
