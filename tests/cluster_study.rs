//! Studies end to end with real processes: a study run on a coordinator with two
//! workers (one SIGKILLed mid-study) writes the embedded run's files byte for
//! byte, `jobs list` shows it as one line, and a study killed mid-way (the
//! embedded run, or the client of a remote one) resumes from its finished cells
//! to the same files.

mod common;

use common::cluster::*;
use std::path::Path;
use std::process::Output;
use std::time::{Duration, Instant};

/// `study cube-life` on a small grid writing into `out`: 4 cells of `matches`
/// matches in batches of 16 pairs.
fn study_args(out: &Path, matches: &str, extra: &[&str]) -> Vec<String> {
    let mut args = [
        "study",
        "cube-life",
        "--lengths",
        "3,5",
        "--x",
        "0.5,0.9",
        "--matches",
        matches,
        "--seed",
        "3",
        "--batch",
        "16",
        "--out",
        path(out),
    ]
    .map(String::from)
    .to_vec();
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

/// Stderr of a run that must succeed.
fn ok(out: Output) -> String {
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "{err}");
    err
}

/// The report files of two output directories are equal byte for byte.
fn same_files(a: &Path, b: &Path) {
    for name in ["cube_life.csv", "cube_life.txt", "cube_life.svg"] {
        let x = std::fs::read(a.join(name)).expect("first file");
        let y = std::fs::read(b.join(name)).expect("second file");
        assert!(
            x == y,
            "{name} differs:\n{}\n---\n{}",
            String::from_utf8_lossy(&x),
            String::from_utf8_lossy(&y)
        );
    }
}

/// Waits (at most 60 s) until `done()` holds.
fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let t = Instant::now();
    while !done() {
        assert!(t.elapsed() < Duration::from_secs(60), "timed out: {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn jobs_list(url: &str, json: bool) -> String {
    let mut args = vec!["jobs", "list", "--coordinator", url];
    if json {
        args.push("--json");
    }
    let out = run(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>());
    String::from_utf8_lossy(&out.stdout).to_string()
}

#[test]
fn a_remote_study_writes_the_embedded_files_despite_a_killed_worker() {
    let dir = TempDir::new("study-remote");
    let (local, remote) = (dir.0.join("local"), dir.0.join("remote"));
    let coordinator = serve_on(
        &dir,
        "127.0.0.1:0",
        "serve",
        &["--lease-timeout", "2", "--metrics-listen", "127.0.0.1:0"],
    );
    let url = coordinator.url.clone();
    // The victim works alone until it is killed, so it holds the study's leases
    // then (a worker keeps one queued beyond those it runs) and they must expire;
    // with a second worker already running, the victim could be caught holding none.
    let mut victim = work(&dir, "victim", &url, &[]);
    let embedded = spawn(&study_args(&local, "128", &["--threads", "1"]));
    let client = spawn(&study_args(&remote, "128", &["--coordinator", &url]));
    wait_mid_job(&url, &dir, "victim");
    let text = jobs_list(&url, false);
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(
        text.contains("study cube-life") && text.contains("/256"),
        "{text}"
    );
    assert!(
        !text.contains(" done "),
        "the study ended before the kill: {text}"
    );
    victim.child().kill().expect("SIGKILL the worker");
    let _ = victim.child().wait();
    let _steady = work(&dir, "steady", &url, &[]);
    let err = ok(client.output());
    assert!(err.contains("0 of 4 cells reused"), "{err}");
    ok(embedded.output());
    same_files(&local, &remote);
    assert!(
        log(&dir, "serve").contains("lease expired"),
        "{}",
        log(&dir, "serve")
    );
    let text = jobs_list(&url, false);
    assert!(
        text.contains("done") && text.contains("study cube-life") && text.contains("256/256"),
        "{text}"
    );
    assert!(!remote.join("study.job").exists());
    // The web page shows the study as one job, and its cells with the plot.
    let page = coordinator.metrics.as_deref().expect("the page's address");
    let (status, html) = http_get(page, "/");
    assert_eq!(status, 200, "{html}");
    assert!(html.contains("study cube-life"), "{html}");
    let (status, html) = http_get(page, "/job/1");
    assert_eq!(status, 200, "{html}");
    for needle in [
        "Study cube-life",
        "4 cells",
        "janowski-match-capped:x=0.9",
        "<svg",
        "3 points",
    ] {
        assert!(html.contains(needle), "{needle}: {html}");
    }
    // Every cell is stored: a rerun computes nothing, not even on the cluster.
    let err = ok(run(&study_args(&remote, "128", &["--coordinator", &url])));
    assert!(err.contains("4 of 4 cells reused"), "{err}");
    same_files(&local, &remote);
}

#[test]
fn a_killed_embedded_study_resumes_from_its_finished_cells() {
    let dir = TempDir::new("study-resume");
    let (whole, killed) = (dir.0.join("whole"), dir.0.join("killed"));
    let uninterrupted = spawn(&study_args(&whole, "96", &["--threads", "1"]));
    let mut victim = spawn(&study_args(&killed, "96", &["--threads", "1"]));
    let cells = killed.join("cells");
    let count = || std::fs::read_dir(&cells).map_or(0, |d| d.count());
    wait_for("the first finished cell", || count() > 0);
    victim.child().kill().expect("SIGKILL the study");
    let _ = victim.child().wait();
    let stored = count();
    assert!(
        (1..4).contains(&stored),
        "{stored} cells stored before the kill"
    );
    let err = ok(run(&study_args(&killed, "96", &["--threads", "1"])));
    assert!(
        err.contains(&format!("{stored} of 4 cells reused")),
        "{err}"
    );
    // Reused cells are reported as such, and only the others are computed.
    assert_eq!(err.matches("(reused)").count(), stored, "{err}");
    assert_eq!(err.matches(" s)").count(), 4 - stored, "{err}");
    ok(uninterrupted.output());
    same_files(&whole, &killed);
    // A damaged cell is computed again, with a warning, to the same files.
    let first = std::fs::read_dir(&cells)
        .expect("cells")
        .next()
        .expect("a cell")
        .expect("entry")
        .path();
    std::fs::write(&first, "garbage").expect("damage a cell");
    let err = ok(run(&study_args(&killed, "96", &["--threads", "1"])));
    assert!(
        err.contains("damaged") && err.contains("3 of 4 cells reused"),
        "{err}"
    );
    same_files(&whole, &killed);
}

#[test]
fn a_killed_remote_client_reattaches_to_its_study_job() {
    let dir = TempDir::new("study-reattach");
    let (local, remote) = (dir.0.join("local"), dir.0.join("remote"));
    let (_serve, url) = serve(&dir, &[]);
    let embedded = spawn(&study_args(&local, "64", &["--threads", "1"]));
    // No worker yet: the job waits while the client is killed.
    let mut client = spawn(&study_args(&remote, "64", &["--coordinator", &url]));
    wait_for("the study job file", || remote.join("study.job").exists());
    client.child().kill().expect("SIGKILL the client");
    let _ = client.child().wait();
    let _worker = work(&dir, "worker", &url, &[]);
    let err = ok(run(&study_args(&remote, "64", &["--coordinator", &url])));
    assert!(err.contains("re-attached to job 1"), "{err}");
    assert_eq!(jobs_list(&url, false).lines().count(), 1);
    ok(embedded.output());
    same_files(&local, &remote);
}

#[test]
fn match_vs_money_with_match_aware_chequers_runs_on_the_cluster_as_embedded() {
    let dir = TempDir::new("study-mvm");
    let (local, remote) = (dir.0.join("local"), dir.0.join("remote"));
    let (_serve, url) = serve(&dir, &[]);
    let _worker = work(&dir, "worker", &url, &[]);
    let args = |out: &Path, extra: &[&str]| {
        let mut a: Vec<String> = [
            "study",
            "match-vs-money",
            "--lengths",
            "3",
            "--x",
            "0.5,1",
            "--matches",
            "16",
            "--chequer",
            "match",
            "--batch",
            "16",
            "--out",
            path(out),
        ]
        .map(String::from)
        .to_vec();
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    ok(run(&args(&local, &["--threads", "1"])));
    ok(run(&args(&remote, &["--coordinator", &url])));
    for name in [
        "match_vs_money.csv",
        "match_vs_money.txt",
        "match_vs_money.svg",
    ] {
        let x = std::fs::read(local.join(name)).expect("embedded file");
        let y = std::fs::read(remote.join(name)).expect("remote file");
        assert!(x == y, "{name} differs");
    }
    let text = jobs_list(&url, false);
    assert!(text.contains("study match-vs-money"), "{text}");
}
