//! A match analysis on a cluster (`bgfarm analyse FILE --coordinator URL`) over
//! real processes: the workers rate the units the file lists and roll out the
//! errors (chequer plays and cube actions), and the report equals the embedded
//! analysis's byte for byte, timing and threads aside; the
//! coordinator's page shows the finished job; a file too large for a job is
//! refused with a clear error.

mod common;

use common::cluster::{http_get, output_json, serve_on, spawn, with, work, TempDir};

const MATCH: &str = "tests/data/matches/three-point.sgf";

/// The analysis's JSON at 0-ply (fast in a debug build), without what says how
/// it ran.
fn analysis(extra: &[&str]) -> Vec<String> {
    with(
        ["analyse", MATCH, "--ply", "0", "--json"]
            .map(String::from)
            .to_vec(),
        extra,
    )
}

fn scrubbed(mut v: serde_json::Value) -> serde_json::Value {
    let o = v.as_object_mut().expect("a JSON object");
    for k in ["seconds", "threads", "luck_seconds"] {
        o.remove(k);
    }
    v
}

#[test]
fn a_cluster_analysis_equals_the_embedded_one() {
    let dir = TempDir::new("cluster-analyse");
    let c = serve_on(
        &dir,
        "127.0.0.1:0",
        "serve",
        &["--metrics-listen", "127.0.0.1:0"],
    );
    let _w = work(&dir, "worker", &c.url, &[]);
    let rollouts = ["--rollout-threshold", "0.12", "--rollout-trials", "36"];
    let embedded = spawn(&analysis(&[&["--threads", "1"][..], &rollouts].concat()));
    let remote = spawn(&analysis(
        &[&["--coordinator", c.url.as_str()][..], &rollouts].concat(),
    ));
    let remote = scrubbed(output_json(&remote.output()));
    let embedded = scrubbed(output_json(&embedded.output()));
    assert!(
        remote["decisions"]
            .as_array()
            .is_some_and(|d| !d.is_empty()),
        "{remote}"
    );
    for k in ["rollouts", "cube_rollouts"] {
        assert!(
            remote[k].as_array().is_some_and(|r| !r.is_empty()),
            "{k}: {remote}"
        );
    }
    assert_eq!(remote, embedded);

    let (code, page) = http_get(c.metrics.as_deref().expect("metrics"), "/job/1");
    assert_eq!(code, 200, "{page}");
    assert!(page.contains("Match analysis"), "{page}");
    assert!(page.contains("3-point match"), "{page}");

    // A match file of 600 KB (padded with blank lines) is more than a job
    // carries: refused before anything is submitted.
    let text = std::fs::read_to_string("tests/data/matches/three-point.mat").expect("match");
    let big = dir.file("big.mat", &(text + &"\n".repeat(600 << 10)));
    let out = spawn(
        &[
            "analyse",
            big.to_str().expect("path"),
            "--coordinator",
            &c.url,
        ]
        .map(String::from),
    )
    .output();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("big.mat") && err.contains("at most"), "{err}");
}
