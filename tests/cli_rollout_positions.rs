//! `bgfarm rollout --positions FILE`: a list of positions as one job. Each line's
//! rollout is the one `bgfarm rollout` gives for that line alone (the dice depend
//! only on the seed and the trial, so the other lines change nothing), and a bad
//! line is an error naming the file and the line.

mod common;

use common::cluster::TempDir;
use common::{bgfarm, json};

/// The candidates' statistics without their labels.
fn stats(v: &serde_json::Value) -> Vec<serde_json::Value> {
    v["candidates"]
        .as_array()
        .expect("candidates")
        .iter()
        .map(|c| serde_json::json!([c["trials"], c["probs"], c["probs_se"], c["equity"]]))
        .collect()
}

#[test]
fn each_line_is_rolled_out_as_alone() {
    let dir = TempDir::new("positions-alone");
    let path = dir.file(
        "three.txt",
        "# a comment, then three positions\n4HPwATDgc/ABMA\n\n4HPwATDgc/ABMA 31 top:2\nsM/BATBmzsIBMA 13 8/5 6/5,24/21 9/8\n",
    );
    let p = path.to_string_lossy().to_string();
    let common = ["--trials", "72", "--truncate", "6", "--seed", "3", "--json"];
    let mut args = vec!["rollout", "--positions", &p];
    args.extend(common);
    let all = json(&args);
    let lines = all["positions"].as_array().expect("positions");
    assert_eq!(lines.len(), 3, "{all}");
    let alone: [&[&str]; 3] = [
        &["rollout", "4HPwATDgc/ABMA"],
        &[
            "rollout",
            "4HPwATDgc/ABMA",
            "--dice",
            "31",
            "--moves",
            "top:2",
        ],
        &[
            "rollout",
            "sM/BATBmzsIBMA",
            "--dice",
            "13",
            "--moves",
            "8/5 6/5,24/21 9/8",
        ],
    ];
    for (line, one) in lines.iter().zip(alone) {
        let mut args = one.to_vec();
        args.extend(common);
        let single = json(&args);
        assert_eq!(stats(line), stats(&single), "{one:?}");
        assert_eq!(line["position"], single["position"]);
        assert_eq!(line["dice"], single["dice"]);
    }
    assert_eq!(lines[0]["candidates"][0]["move"], "line 2");
}

/// XGID lines are rolled out as the same positions given by GNU Backgammon IDs; the
/// dice an XGID carries are played when the line gives none, and moves may follow
/// the XGID directly.
#[test]
fn xgid_lines_are_their_gnu_id_lines() {
    let dir = TempDir::new("positions-xgid");
    const X: &str = "XGID=-b----E-C---eE---c-e----B-";
    let xgid = dir.file(
        "xgid.txt",
        &format!("{X}:0:0:1:00:0:0:0:0:10\n{X}:0:0:1:52:0:0:0:0:10 top:2\n{X}:0:0:1:00:0:0:0:0:10 31 8/5 6/5,24/21 24/23\n{X}:0:0:1:52:0:0:0:0:10 13/8 13/11\n"),
    );
    let gnu = dir.file(
        "gnu.txt",
        "4HPwATDgc/ABMA\n4HPwATDgc/ABMA 52 top:2\n4HPwATDgc/ABMA 31 8/5 6/5,24/21 24/23\n4HPwATDgc/ABMA:cAkAAAAAAAAA 52 13/8 13/11\n",
    );
    let run = |path: &std::path::Path| {
        let p = path.to_string_lossy().to_string();
        json(&[
            "rollout",
            "--positions",
            &p,
            "--trials",
            "36",
            "--truncate",
            "4",
            "--json",
        ])
    };
    let (a, b) = (run(&xgid), run(&gnu));
    let (a, b) = (
        a["positions"].as_array().expect("positions").clone(),
        b["positions"].as_array().expect("positions").clone(),
    );
    assert_eq!(a.len(), 4);
    for (x, g) in a.iter().zip(&b) {
        assert_eq!(stats(x), stats(g), "{x}");
        assert_eq!(x["dice"], g["dice"]);
    }
    assert_eq!(a[1]["dice"], serde_json::json!([5, 2]), "{}", a[1]);
    assert_eq!(a[1]["candidates"].as_array().map(Vec::len), Some(2));
}

#[test]
fn bad_files_name_the_line() {
    let dir = TempDir::new("positions-bad");
    for (text, needle) in [
        ("4HPwATDgc/ABMA\nnot-an-id\n", "line 2"),
        ("4HPwATDgc/ABMA 31 13/12 13/11\n", "line 1"),
        ("4HPwATDgc/ABMA 71\n", "line 1"),
        ("# nothing\n\n", "no position"),
        (
            "4HPwATDgc/ABMA\nXGID=-b----E-C---eE---c-e----B-:0:0:1\n",
            "line 2",
        ),
        (
            "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10 7x\n",
            "line 1",
        ),
        (
            "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10 13/7\n",
            "line 1",
        ),
    ] {
        let path = dir.file("bad.txt", text);
        let p = path.to_string_lossy().to_string();
        let out = bgfarm(&["rollout", "--positions", &p, "--trials", "36"]);
        assert_eq!(out.status.code(), Some(2), "{text}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(&p) && err.contains(needle), "{text}: {err}");
        assert!(out.stdout.is_empty(), "{text}");
    }
    let out = bgfarm(&["rollout", "--positions", "/nonexistent/list.txt"]);
    assert_eq!(out.status.code(), Some(2));
    let out = bgfarm(&["rollout", "--positions", "x.txt", "--cubeful"]);
    assert_eq!(out.status.code(), Some(2));
}

/// `--cubeful`: each line keeps its own cube and score, a line's figures are those
/// of rolling it out alone, and a file mixing scores is refused at the first line
/// at another score (a job has one set of cube rules).
#[test]
fn cubeful_lines_share_one_score() {
    let dir = TempDir::new("positions-cubeful");
    // Both from the 3-point test match: game 1 at 0-0, game 2 at another score.
    let first = "4HPwATDgc/ABMA:cAllAAAAAAAA";
    let other = "4HPwATDgc/ABMA:sIFuAAAAEAAA";
    let same = dir.file(
        "cubeful.txt",
        &format!("{first} 21 top:2\n{first} 43 top:2\n"),
    );
    let path = same.to_str().expect("path");
    let args = ["--cubeful", "--trials", "36", "--json"];
    let mut all = vec!["rollout", "--positions", path];
    all.extend(args);
    let v = json(&all);
    let lines = v["positions"].as_array().expect("positions");
    assert_eq!(lines.len(), 2);
    for (line, dice) in lines.iter().zip(["21", "43"]) {
        assert_eq!(line["settings"]["cubeful"], true, "{line}");
        let mut one = vec!["rollout", first, "--dice", dice, "--moves", "top:2"];
        one.extend(args);
        let alone = json(&one);
        assert_eq!(line["candidates"], alone["candidates"], "{dice}");
    }
    let mixed = dir.file(
        "mixed.txt",
        &format!("{first} 21 top:2\n# another game\n{other} 53 top:2\n"),
    );
    let out = bgfarm(&[
        "rollout",
        "--positions",
        mixed.to_str().expect("path"),
        "--cubeful",
        "--trials",
        "36",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("line 3") && err.contains("another score"),
        "{err}"
    );
}
