//! The supervised pipeline through the built binary: self-play positions, labels,
//! a fit of one net that leaves the other exactly as it started.

mod common;

use common::{eval, lab, ok, try_eval};

/// A race the race net answers (not yet in bear-off range) and the opening.
const RACE: &str = "/wEAAJjtCEB4AA";
const CONTACT: &str = "4HPwATDgc/ABMA";

/// An empty directory of this test process (removed by the test at its end).
/// `train positions`: the positions of `class` from `games` self-play games of seed
/// `seed`, into `out`.
fn selfplay(games: u32, seed: u64, class: &str, out: &str) {
    let (games, seed) = (games.to_string(), seed.to_string());
    ok(&[
        "train",
        "positions",
        "--games",
        &games,
        "--seed",
        &seed,
        "--class",
        class,
        "--out",
        out,
    ]);
}

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
    selfplay(4, 3, "both", &path("pos.txt"));
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
    let labels_path = path("labels.txt");
    let fit_contact = |out: &str, extra: &[&str]| {
        let out = path(out);
        let mut args = vec!["train", "fit", "--data", &labels_path, "--nets", "contact"];
        args.extend(extra);
        args.extend(["--out", &out]);
        ok(&args);
    };
    fit_contact("fit", &["--epochs", "2", "--lr-start", "0.05"]);
    // Widening applies to the fitted net only: the race net keeps its width (the
    // file's size; its bytes may differ in the metadata's order).
    fit_contact("wide", &["--epochs", "1", "--hidden", "136"]);
    let size = |f: &str| std::fs::metadata(dir.join(f)).unwrap().len();
    assert_eq!(size("wide/race.safetensors"), size("fit/race.safetensors"));
    assert!(size("wide/contact.safetensors") > size("fit/contact.safetensors"));
    let eval = |pos: &str, net: &str| eval(pos, net, None);
    let fitted = path("fit");
    assert_eq!(eval(RACE, &fitted), eval(RACE, "default"));
    assert_ne!(
        eval(CONTACT, &fitted)["probs"],
        eval(CONTACT, "default")["probs"]
    );
    let bad = lab(&[
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
    let eval = |pos: &str, net: &str| eval(pos, net, None);
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
    let bad = lab(&[
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

#[test]
fn rollout_labels_resume_to_the_same_file_and_refuse_a_ply() {
    let dir = fresh_dir("rollout-label");
    let path = |f: &str| dir.join(f).display().to_string();
    std::fs::write(dir.join("pos.txt"), format!("{RACE}\n{CONTACT}\n{RACE}\n")).unwrap();
    let positions = path("pos.txt");
    let label = |out: &str, extra: &[&str]| {
        let out = path(out);
        let mut args = vec![
            "train",
            "label",
            "--rollout",
            "36",
            "--positions",
            &positions,
            "--out",
            &out,
        ];
        args.extend(extra);
        ok(&args);
    };
    label("whole.txt", &[]);
    label("parts.txt", &["--limit", "1"]);
    label("parts.txt", &[]);
    let whole = std::fs::read_to_string(dir.join("whole.txt")).unwrap();
    assert_eq!(
        whole,
        std::fs::read_to_string(dir.join("parts.txt")).unwrap()
    );
    let lines: Vec<Vec<&str>> = whole.lines().map(|l| l.split(' ').collect()).collect();
    assert_eq!(lines.len(), 3);
    // The same position gets the same label; the race is lost, mostly a gammon.
    assert_eq!(lines[0], lines[2]);
    assert_eq!(lines[0][0], RACE);
    let lose_gammon: f64 = lines[0][4].parse().unwrap();
    assert!(lose_gammon > 0.95, "{whole}");
    // Another seed, other dice: a different label for the opening.
    label("seed2.txt", &["--seed", "2"]);
    let seed2 = std::fs::read_to_string(dir.join("seed2.txt")).unwrap();
    assert_ne!(seed2.lines().nth(1), whole.lines().nth(1));
    // Only the race net's positions: the same labels, the opening skipped.
    label("race.txt", &["--class", "race"]);
    let race = std::fs::read_to_string(dir.join("race.txt")).unwrap();
    let races: Vec<&str> = whole.lines().filter(|l| l.starts_with(RACE)).collect();
    assert_eq!(races.len(), 2);
    assert_eq!(race.lines().collect::<Vec<_>>(), races);
    let both = lab(&[
        "train",
        "label",
        "--rollout",
        "36",
        "--ply",
        "1",
        "--positions",
        &path("pos.txt"),
        "--out",
        &path("x.txt"),
    ]);
    assert_eq!(both.status.code(), Some(2));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn generated_races_and_race_only_positions_are_races_for_the_race_net() {
    let dir = fresh_dir("races");
    let path = |f: &str| dir.join(f).display().to_string();
    for (kind, file) in [("backgammon", "bg.txt"), ("gammon", "gam.txt")] {
        ok(&[
            "train",
            "races",
            "--kind",
            kind,
            "--count",
            "40",
            "--seed",
            "9",
            "--out",
            &path(file),
        ]);
    }
    selfplay(6, 1, "race", &path("race.txt"));
    for file in ["bg.txt", "gam.txt", "race.txt"] {
        let ids = std::fs::read_to_string(dir.join(file)).unwrap();
        let ids: Vec<&str> = ids.lines().collect();
        assert!(ids.len() >= 10, "{file}: {ids:?}");
        let distinct: std::collections::HashSet<_> = ids.iter().collect();
        assert_eq!(distinct.len(), ids.len(), "{file}");
        // Every fifth: the race net (or the exact tables, never) answers.
        for id in ids.iter().step_by(5) {
            assert_eq!(
                eval(id, "default", None)["evaluator"],
                "race net",
                "{file} {id}"
            );
        }
    }
    // Same seed, same file; the kinds differ.
    ok(&[
        "train",
        "races",
        "--kind",
        "gammon",
        "--count",
        "40",
        "--seed",
        "9",
        "--out",
        &path("again.txt"),
    ]);
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap();
    assert_eq!(read("gam.txt"), read("again.txt"));
    assert_ne!(read("gam.txt"), read("bg.txt"));
    let bad = lab(&["train", "races", "--kind", "prime", "--out", &path("x.txt")]);
    assert_eq!(bad.status.code(), Some(2));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `train siblings` writes labelled groups (blank line after each) that `train fit
/// --siblings` reads; SGD and a bad weight or file are refused with a message.
#[test]
fn sibling_groups_are_written_and_fitted() {
    let dir = fresh_dir("siblings");
    let path = |f: &str| dir.join(f).display().to_string();
    selfplay(3, 5, "contact", &path("pos.txt"));
    ok(&[
        "train",
        "siblings",
        "--positions",
        &path("pos.txt"),
        "--ply",
        "0",
        "--limit",
        "40",
        "--out",
        &path("sib.txt"),
    ]);
    let text = std::fs::read_to_string(dir.join("sib.txt")).unwrap();
    let groups: Vec<&str> = text
        .split("\n\n")
        .filter(|g| !g.trim().is_empty())
        .collect();
    assert!(groups.len() > 20, "{} groups", groups.len());
    for g in &groups {
        assert!(g.lines().count() >= 2, "{g}");
        for line in g.lines() {
            assert_eq!(line.split_whitespace().count(), 6, "{line}");
        }
    }
    // Labelled at 0-ply: a member's label is `bgfarm eval`'s probabilities.
    let first = groups[0].lines().next().unwrap();
    let id = first.split_whitespace().next().unwrap();
    let probs = eval(id, "default", None)["probs"].clone();
    let p0 = first
        .split_whitespace()
        .nth(1)
        .unwrap()
        .parse::<f64>()
        .unwrap();
    assert!((probs[0].as_f64().unwrap() - p0).abs() < 1e-6);
    // Plain labels of the parents, and a fit with the groups.
    ok(&[
        "train",
        "label",
        "--ply",
        "0",
        "--positions",
        &path("pos.txt"),
        "--out",
        &path("labels.txt"),
    ]);
    let fit = |extra: &[&str]| {
        let (labels, sib, out) = (path("labels.txt"), path("sib.txt"), path("fit"));
        let mut args = vec![
            "train",
            "fit",
            "--data",
            &labels,
            "--siblings",
            &sib,
            "--init",
            "fast",
            "--nets",
            "contact",
            "--epochs",
            "1",
            "--out",
            &out,
        ];
        args.extend(extra);
        lab(&args)
    };
    let out = fit(&["--sibling-weight", "8"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(
        log.contains("sibling groups of") && log.contains("differences rmse"),
        "{log}"
    );
    for (extra, message) in [
        (
            &["--optimizer", "sgd"][..],
            "--siblings needs --optimizer adam",
        ),
        (&["--sibling-weight", "nan"][..], "--sibling-weight"),
    ] {
        let out = fit(extra);
        assert_eq!(out.status.code(), Some(2), "{extra:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(message), "{extra:?}: {err}");
    }
    // A second hidden layer under the fitted net: the file holds it and the nets
    // evaluate; a width that is not a multiple of 8, or a second `--deepen` of a
    // net that has one, is refused.
    let out = fit(&["--deepen", "16"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let nets = path("fit");
    let deep = eval("4HPwATDgc/ABMA", &nets, None);
    let p = deep["probs"][0].as_f64().unwrap();
    assert!(p > 0.0 && p < 1.0, "{deep}");
    let bytes = std::fs::read(dir.join("fit").join("contact.safetensors")).unwrap();
    let header = String::from_utf8_lossy(&bytes[..4096.min(bytes.len())]).to_string();
    assert!(
        header.contains("\"wm\"") && header.contains("[128,16]"),
        "{header}"
    );
    let out = fit(&["--deepen", "12"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("multiple of 8"));
    let mut args = vec!["train", "fit", "--init", &nets, "--data"];
    let labels = path("labels.txt");
    let again = path("again");
    args.extend([
        labels.as_str(),
        "--nets",
        "contact",
        "--epochs",
        "1",
        "--deepen",
        "8",
    ]);
    args.extend(["--out", again.as_str()]);
    let out = lab(&args);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("already have a second"));
    std::fs::write(dir.join("sib.txt"), "not-a-position 0.5 0.1 0 0.1 0\n").unwrap();
    let out = fit(&[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("line 1"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Race groups: `train siblings --class race` keeps the race net's positions, takes
/// exact labels at 0-ply (refused deeper), and `train fit --nets race` fits the race
/// net to their differences.
#[test]
fn race_sibling_groups_take_exact_labels_and_fit_the_race_net() {
    let dir = fresh_dir("race-siblings");
    let path = |f: &str| dir.join(f).display().to_string();
    selfplay(4, 3, "race", &path("pos.txt"));
    let siblings = |extra: &[&str], out: &str| {
        let (pos, out) = (path("pos.txt"), path(out));
        let mut args = vec![
            "train",
            "siblings",
            "--class",
            "race",
            "--positions",
            &pos,
            "--limit",
            "30",
            "--out",
            &out,
        ];
        args.extend(extra);
        lab(&args)
    };
    let refused = siblings(&["--ply", "1", "--exact-race", "1000"], "bad.txt");
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("0-ply only"));
    for (extra, out) in [
        (&["--ply", "0"][..], "net.txt"),
        (&["--ply", "0", "--exact-race", "100000"][..], "exact.txt"),
    ] {
        let run = siblings(extra, out);
        assert!(
            run.status.success(),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
    }
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap();
    let (net, exact) = (read("net.txt"), read("exact.txt"));
    let ids = |t: &str| -> Vec<String> {
        t.lines()
            .map(|l| l.split_whitespace().next().unwrap_or("").to_string())
            .collect()
    };
    // The same rolls, so the same groups; the exact search changes labels.
    assert_eq!(ids(&net), ids(&exact));
    assert_ne!(net, exact);
    let members: Vec<&str> = exact.lines().filter(|l| !l.is_empty()).collect();
    assert!(members.len() > 20, "{} members", members.len());
    for line in members.iter().take(5) {
        let id = line.split_whitespace().next().unwrap();
        assert_eq!(eval(id, "default", None)["evaluator"], "race net", "{id}");
    }
    let exact_path = path("exact.txt");
    let out = lab(&[
        "train",
        "fit",
        "--data",
        &exact_path,
        "--siblings",
        &exact_path,
        "--init",
        "fast",
        "--nets",
        "race",
        "--epochs",
        "1",
        "--out",
        &path("fit"),
    ]);
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{log}");
    assert!(
        log.contains("0 sibling groups of 0 contact positions"),
        "{log}"
    );
    assert!(
        log.lines()
            .any(|l| l.starts_with("race") && l.contains("differences rmse")),
        "{log}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The one-sided race net's pipeline end to end: exact samples from the searches,
/// a fit, bootstrapped samples from that net, and the net answering races through
/// `--side-net`; a corrupt samples file is refused with where it broke.
#[test]
fn one_sided_race_net_pipeline() {
    let dir = fresh_dir("side-net");
    let path = |f: &str| dir.join(f).display().to_string();
    selfplay(6, 5, "race", &path("pos.txt"));
    let sides = |extra: &[&str], out: &str| {
        let (pos, out) = (path("pos.txt"), path(out));
        let mut args = vec!["train", "sides", "--positions", &pos, "--out", &out];
        args.extend(extra);
        ok(&args)
    };
    let report = sides(&["--limit", "20000"], "exact.bin");
    assert!(report.contains("samples"), "{report}");
    let fit = |samples: &[&str], out: &str| {
        let out = path(out);
        let mut args = vec!["train", "side-fit", "--hidden", "16", "--epochs", "1"];
        args.push("--samples");
        args.extend(samples);
        args.extend(["--out", &out]);
        ok(&args)
    };
    let exact = path("exact.bin");
    let log = fit(&[&exact], "n1.safetensors");
    assert!(log.contains("epoch   1"), "{log}");
    let n1 = path("n1.safetensors");
    sides(&["--bootstrap", &n1, "--limit", "50"], "boot.bin");
    fit(&[&exact, &path("boot.bin")], "n2.safetensors");
    let n2 = path("n2.safetensors");
    const SIDE_RACE: &str = "au8HBADlzLcAAA";
    let probs = |net: &str| eval(SIDE_RACE, "default", Some(net))["probs"].clone();
    let (ours, built_in, old) = (probs(&n2), probs("default"), probs("none"));
    assert_eq!(built_in, eval(SIDE_RACE, "default", None)["probs"]);
    assert_ne!(built_in, old);
    assert!(ours.as_array().is_some_and(|p| p.len() == 5));
    // The first-off head split off and refitted alone: the all-off head, and so
    // the win chance, stays bit for bit.
    let split = path("split.safetensors");
    let log = ok(&[
        "train",
        "side-fit",
        "--samples",
        &exact,
        "--init",
        &n2,
        "--split",
        "--only-head",
        "first-off",
        "--epochs",
        "1",
        "--out",
        &split,
    ]);
    assert!(log.contains("epoch   1"), "{log}");
    assert_eq!(probs(&split)[0], ours[0]);
    let run = lab(&[
        "train",
        "side-fit",
        "--samples",
        &exact,
        "--only-head",
        "all-off",
        "--out",
        &split,
    ]);
    assert_eq!(run.status.code(), Some(2), "--only-head needs --init");
    // A truncated samples file and a file that is not a net: clear errors.
    let bytes = std::fs::read(dir.join("exact.bin")).unwrap();
    std::fs::write(dir.join("cut.bin"), &bytes[..bytes.len() - 3]).unwrap();
    let cut = path("cut.bin");
    let out = path("bad.safetensors");
    let run = lab(&["train", "side-fit", "--samples", &cut, "--out", &out]);
    assert_eq!(run.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&run.stderr).contains("truncated"),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(try_eval(RACE, "default", Some(&exact)).is_err());
    let _ = std::fs::remove_dir_all(&dir);
}
