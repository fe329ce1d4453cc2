//! The store as the cluster's memory, with real processes: a resubmitted rollout or
//! match simulation is answered from the coordinator's memory of computed batches
//! without a lease, a longer one leases only its new batches and equals a fresh run
//! byte for byte, embedded runs do the same with `--data DIR`, and `bgfarm results`
//! lists and shows the stored rollouts of a position.

mod common;

use common::cluster::{output_json, rollout_args, run, serve, spawn, with, work, TempDir};
use common::fails;
use std::process::Output;

/// The JSON of `jobs list --json` on `url`, one value per job, oldest first.
fn jobs(url: &str) -> Vec<serde_json::Value> {
    let out = run(&["jobs", "list", "--json", "--coordinator", url].map(String::from));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

/// The JSON lines a successful command printed.
fn json_lines(out: &Output) -> Vec<serde_json::Value> {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

fn sim_args(matches: &str) -> Vec<String> {
    [
        "match-sim",
        "--length",
        "3",
        "--a",
        "janowski-match:x=0.7",
        "--b",
        "jump:sigma=0.09",
        "--met",
        "keith:G=0.2",
        "--matches",
        matches,
        "--seed",
        "5",
        "--batch",
        "16",
        "--json",
    ]
    .map(String::from)
    .to_vec()
}

/// A match simulation's JSON without its timing.
fn sim_json(out: &Output) -> serde_json::Value {
    let mut v = output_json(out);
    let obj = v.as_object_mut().expect("a JSON object");
    assert!(obj.remove("seconds").is_some() && obj.remove("threads").is_some());
    v
}

/// The counters of the last job on `url`: (batches_total, batches_reused,
/// leases_granted).
fn last_counters(url: &str) -> (u64, u64, u64) {
    let all = jobs(url);
    let j = all.last().expect("a job");
    assert_eq!(j["state"], "done", "{j}");
    let n = |k: &str| j[k].as_u64().unwrap_or_else(|| panic!("{k} in {j}"));
    (n("batches_total"), n("batches_reused"), n("leases_granted"))
}

#[test]
fn cluster_rollouts_are_reused_extended_and_listed() {
    let dir = TempDir::new("memo");
    let (_serve, url) = serve(&dir, &[]);
    let _w = work(&dir, "w", &url, &[]);
    let remote = |args: Vec<String>| with(args, &["--coordinator", &url]);
    // The fresh run to compare with, embedded, started alongside.
    let fresh144 = spawn(&with(rollout_args("144"), &["--threads", "1"]));

    let first = output_json(&run(&remote(rollout_args("72"))));
    assert_eq!(last_counters(&url), (2, 0, 2));
    // The same rollout again: the stored result at once, no batch leased.
    let again = output_json(&run(&remote(rollout_args("72"))));
    assert_eq!(again, first);
    assert_eq!(last_counters(&url), (2, 2, 0));
    // 72 -> 144 trials: only the two new batches are leased, and the result is a
    // fresh 144-trial rollout's byte for byte.
    let longer = run(&remote(rollout_args("144")));
    assert_eq!(last_counters(&url), (4, 2, 2));
    assert_eq!(longer.stdout, fresh144.output().stdout);

    // The stored rollouts of the position: the resubmission is listed once.
    let list = json_lines(&run(&[
        "results",
        "list",
        "4HPwATDgc/ABMA",
        "--coordinator",
        &url,
        "--json",
    ]
    .map(String::from)));
    let trials: Vec<u64> = list.iter().filter_map(|l| l["trials"].as_u64()).collect();
    assert_eq!(trials, [72, 144], "{list:?}");
    assert_eq!(list[1]["best"], output_json(&longer)["candidates"][0]);
    let id = list[1]["job"].as_u64().expect("job").to_string();
    let show = run(&[
        "results",
        "show",
        "4HPwATDgc/ABMA",
        "--job",
        &id,
        "--coordinator",
        &url,
        "--json",
    ]
    .map(String::from));
    assert_eq!(show.stdout, longer.stdout);
    // Another position has none.
    let none = run(&["results", "list", "sGfwATDgc/ABMA", "--coordinator", &url].map(String::from));
    assert!(none.stdout.is_empty(), "{none:?}");
}

#[test]
fn cluster_match_simulations_are_reused_and_extended() {
    let dir = TempDir::new("memo-sim");
    let (_serve, url) = serve(&dir, &[]);
    let _w = work(&dir, "w", &url, &[]);
    let remote = |args: Vec<String>| with(args, &["--coordinator", &url]);
    let fresh = spawn(&with(sim_args("64"), &["--threads", "1"]));
    // 32 -> 64 matches in batches of 16 pairs: the second job leases one batch.
    let sim32 = sim_json(&run(&remote(sim_args("32"))));
    assert_eq!(sim32["pairs"], 16);
    assert_eq!(last_counters(&url), (1, 0, 1));
    let sim64 = sim_json(&run(&remote(sim_args("64"))));
    assert_eq!(last_counters(&url), (2, 1, 1));
    assert_eq!(sim64, sim_json(&fresh.output()));
    let again = sim_json(&run(&remote(sim_args("64"))));
    assert_eq!(last_counters(&url), (2, 2, 0));
    assert_eq!(again, sim64);
}

/// `args` with `--data dir`, run to the end: (stdout, stderr).
fn with_data(args: Vec<String>, dir: &TempDir) -> (Vec<u8>, String) {
    let data = dir.0.join("store");
    let out = run(&with(args, &["--data", data.to_str().expect("utf-8 path")]));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        out.stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn embedded_runs_remember_with_data_and_results_read_it() {
    let dir = TempDir::new("memo-data");
    let fresh144 = spawn(&with(rollout_args("144"), &["--threads", "1"]));
    let fresh_sim = spawn(&with(sim_args("64"), &["--threads", "1"]));
    let (first, err) = with_data(rollout_args("72"), &dir);
    assert!(!err.contains("batches found in the store"), "{err}");
    let (again, err) = with_data(rollout_args("72"), &dir);
    assert_eq!(again, first);
    assert!(err.contains("2 of 2 batches found in the store"), "{err}");
    let (longer, err) = with_data(rollout_args("144"), &dir);
    assert!(err.contains("2 of 4 batches found in the store"), "{err}");
    assert_eq!(longer, fresh144.output().stdout);

    let (sim32, _) = with_data(sim_args("32"), &dir);
    let (sim64, err) = with_data(sim_args("64"), &dir);
    assert!(err.contains("1 of 2 batches found in the store"), "{err}");
    let strip = |b: &[u8]| {
        let mut v: serde_json::Value = serde_json::from_slice(b).expect("JSON");
        let o = v.as_object_mut().expect("object");
        o.remove("seconds");
        o.remove("threads");
        v
    };
    assert_eq!(strip(&sim64), sim_json(&fresh_sim.output()));
    assert_eq!(strip(&sim32)["pairs"], 16);

    // `results` on the local store: the two rollouts (the repeat is recorded
    // once), and the longer one's table as `rollout` printed it.
    let data = dir.0.join("store");
    let data = data.to_str().expect("utf-8 path");
    let list = json_lines(&run(&[
        "results",
        "list",
        "4HPwATDgc/ABMA",
        "--data",
        data,
        "--json",
    ]
    .map(String::from)));
    let trials: Vec<u64> = list.iter().filter_map(|l| l["trials"].as_u64()).collect();
    assert_eq!(trials, [72, 144], "{list:?}");
    let id = list[1]["job"].as_u64().expect("job").to_string();
    let show = run(&[
        "results",
        "show",
        "4HPwATDgc/ABMA",
        "--job",
        &id,
        "--data",
        data,
        "--json",
    ]
    .map(String::from));
    assert_eq!(show.stdout, longer);
    let text = run(&["results", "list", "4HPwATDgc/ABMA", "--data", data].map(String::from));
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("144 trials/candidate") && text.contains("± "),
        "{text}"
    );

    // Bad input: one line, exit code 2.
    fails(
        &["results", "list", "nonsense", "--data", data],
        "position ID",
    );
    fails(
        &[
            "results",
            "show",
            "4HPwATDgc/ABMA",
            "--job",
            "99",
            "--data",
            data,
        ],
        "no stored rollout",
    );
    fails(&["results", "list", "4HPwATDgc/ABMA"], "--data DIR");
    let file = dir.file("plain", "not a store");
    let file = file.to_str().expect("utf-8 path");
    fails(
        &["results", "list", "4HPwATDgc/ABMA", "--data", file],
        "no store there",
    );
    fails(
        &[
            "rollout",
            "4HPwATDgc/ABMA",
            "--trials",
            "36",
            "--data",
            file,
        ],
        "not a directory",
    );
}
