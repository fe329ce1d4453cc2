//! `bgfarm rollout --positions FILE`: a list of positions as one job. Each line's
//! rollout is the one `bgfarm rollout` gives for that line alone (the dice depend
//! only on the seed and the trial, so the other lines change nothing), and a bad
//! line is an error naming the file and the line.

mod common;

use common::{bgfarm, json};

fn file(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("bgfarm-positions-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write");
    path
}

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
    let path = file(
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

#[test]
fn bad_files_name_the_line() {
    for (text, needle) in [
        ("4HPwATDgc/ABMA\nnot-an-id\n", "line 2"),
        ("4HPwATDgc/ABMA 31 13/12 13/11\n", "line 1"),
        ("4HPwATDgc/ABMA 71\n", "line 1"),
        ("# nothing\n\n", "no position"),
    ] {
        let path = file("bad.txt", text);
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
