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

/// An empty directory of this test process (removed by the test at its end).
fn fresh_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("bgfarm-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn fitting_only_the_contact_net_keeps_the_race_net() {
    let dir = fresh_dir("train");
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

#[test]
fn outcome_targets_from_trials_fit_the_nets() {
    let dir = fresh_dir("outcomes");
    let path = |f: &str| dir.join(f).display().to_string();
    ok(&[
        "train",
        "outcomes",
        "--games",
        "12",
        "--seed",
        "5",
        "--out",
        &path("targets.txt"),
    ]);
    let text = std::fs::read_to_string(dir.join("targets.txt")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // Every trial starts at the opening; a game has dozens of states before the
    // bear-off tables take over.
    assert_eq!(
        lines.iter().filter(|l| l.starts_with(CONTACT)).count(),
        12,
        "{text}"
    );
    assert!(lines.len() > 12 * 20, "{} targets", lines.len());
    // A target is a probability plus noise: the win value stays near 0..1 and the
    // equity of the opening's targets averages near zero over a dozen trials.
    let mut opening = 0.0;
    for l in &lines {
        let v: Vec<f64> = l.split(' ').skip(1).map(|x| x.parse().unwrap()).collect();
        assert_eq!(v.len(), 5, "{l}");
        assert!((-0.5..=1.5).contains(&v[0]), "{l}");
        if l.starts_with(CONTACT) {
            opening += (2.0 * v[0] - 1.0 + v[1] - v[3] + v[2] - v[4]) / 12.0;
        }
    }
    assert!(opening.abs() < 0.5, "opening {opening}");
    // Same dice, same trials: the same file.
    ok(&[
        "train",
        "outcomes",
        "--games",
        "12",
        "--seed",
        "5",
        "--threads",
        "1",
        "--out",
        &path("again.txt"),
    ]);
    assert_eq!(
        std::fs::read_to_string(dir.join("again.txt")).unwrap(),
        text
    );
    ok(&[
        "train",
        "fit",
        "--targets",
        &path("targets.txt"),
        "--epochs",
        "1",
        "--out",
        &path("fit"),
    ]);
    let eval = |pos: &str, net: &str| json(&["eval", pos, "--net", net, "--json"]);
    assert_ne!(
        eval(CONTACT, &path("fit"))["probs"],
        eval(CONTACT, "default")["probs"]
    );
    // A labelled-file line out of range is refused with its line number.
    std::fs::write(
        dir.join("bad.txt"),
        format!("{CONTACT} 0.5 0.1 0.0 7.0 0.0\n"),
    )
    .unwrap();
    let bad = bgfarm(&[
        "train",
        "fit",
        "--targets",
        &path("bad.txt"),
        "--out",
        &path("fit2"),
    ]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("line 1"));
    std::fs::remove_dir_all(&dir).unwrap();
}
