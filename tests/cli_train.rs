//! The supervised pipeline through the built binary: self-play positions, labels,
//! a fit of one net that leaves the other exactly as it started.

mod common;

use common::{bgfarm, json};

/// A race the race net answers (not yet in bear-off range) and the opening.
const RACE: &str = "/wEAAJjtCEB4AA";
const CONTACT: &str = "4HPwATDgc/ABMA";

fn ok(args: &[&str]) {
    let out = bgfarm(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn fitting_only_the_contact_net_keeps_the_race_net() {
    let dir = std::env::temp_dir().join(format!("bgfarm-cli-train-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = |f: &str| dir.join(f).display().to_string();
    ok(&[
        "train",
        "positions",
        "--games",
        "4",
        "--seed",
        "3",
        "--out",
        &path("pos.txt"),
    ]);
    ok(&[
        "train",
        "label",
        "--ply",
        "1",
        "--positions",
        &path("pos.txt"),
        "--out",
        &path("labels.txt"),
    ]);
    let labels = std::fs::read_to_string(dir.join("labels.txt")).unwrap();
    assert!(labels.lines().count() > 50, "{labels}");
    ok(&[
        "train",
        "fit",
        "--data",
        &path("labels.txt"),
        "--epochs",
        "2",
        "--lr-start",
        "0.05",
        "--nets",
        "contact",
        "--out",
        &path("fit"),
    ]);
    let eval = |pos: &str, net: &str| json(&["eval", pos, "--net", net, "--json"]);
    let fitted = path("fit");
    assert_eq!(eval(RACE, &fitted), eval(RACE, "default"));
    assert_ne!(
        eval(CONTACT, &fitted)["probs"],
        eval(CONTACT, "default")["probs"]
    );
    let bad = bgfarm(&[
        "train",
        "fit",
        "--data",
        &path("labels.txt"),
        "--nets",
        "cube",
        "--out",
        &fitted,
    ]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("'cube'"));
    std::fs::remove_dir_all(&dir).unwrap();
}
