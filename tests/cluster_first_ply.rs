//! The shared first-move cache over real processes: a searched rollout on two
//! workers computes each first-move table once and gives the embedded result bit
//! for bit; a later job (also after a coordinator restart) computes none; `bgfarm
//! store prune` deletes only the entries of other engines.
//!
//! Trials play at 1 ply (`--ply 1`): the tables are the same code at every depth
//! above 0, and 1-ply keeps the test at a few seconds in a debug build (a 2-ply
//! table costs ~0.3 s of a core there, ~66 of them per job).

mod common;

use bgfarm_storage::{BlobKind, Store};
use common::cluster::{
    http_get, metric, output_json, path, run, serve_on, spawn, with, work, Coordinator, TempDir,
};
use common::fails;

/// A rollout of three moves at 1-ply chequer play, batches of 36 trials, seed 5.
fn searched(trials: &str) -> Vec<String> {
    seeded(trials, "5")
}

/// [`searched`] with another dice seed: the same first-move tables (they do not
/// depend on the dice), but other batch results, so the store's memory of computed
/// batches cannot answer it.
fn seeded(trials: &str, seed: &str) -> Vec<String> {
    [
        "rollout",
        "4HPwATDgc/ABMA",
        "--dice",
        "31",
        "--moves",
        "top:3",
        "--trials",
        trials,
        "--ply",
        "1",
        "--truncate",
        "4",
        "--seed",
        seed,
        "--batch",
        "36",
        "--json",
    ]
    .map(String::from)
    .to_vec()
}

/// The cluster's result and the embedded one, run side by side.
fn both(args: Vec<String>, url: &str) -> (serde_json::Value, serde_json::Value) {
    let embedded = spawn(&with(args.clone(), &["--threads", "1"]));
    let remote = spawn(&with(args, &["--coordinator", url]));
    (
        output_json(&remote.output()),
        output_json(&embedded.output()),
    )
}

/// `jobs show ID --json` of the newest job.
fn newest_job(url: &str) -> serde_json::Value {
    let out = run(&["jobs", "list", "--json", "--coordinator", url].map(String::from));
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    text.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .max_by_key(|j| j["id"].as_u64())
        .unwrap_or_else(|| panic!("no job listed: {out:?}"))
}

fn counter(job: &serde_json::Value, name: &str) -> u64 {
    job[name]
        .as_u64()
        .unwrap_or_else(|| panic!("{name} in {job}"))
}

fn metrics(c: &Coordinator) -> String {
    http_get(c.metrics.as_deref().expect("metrics port"), "/metrics").1
}

fn coordinator(dir: &TempDir) -> Coordinator {
    serve_on(
        dir,
        "127.0.0.1:0",
        "serve",
        &["--metrics-listen", "127.0.0.1:0"],
    )
}

#[test]
fn each_first_move_table_is_computed_once_and_served_to_later_jobs() {
    let dir = TempDir::new("firstply");
    let c = coordinator(&dir);
    let w1 = work(&dir, "w1", &c.url, &[]);
    let w2 = work(&dir, "w2", &c.url, &[]);
    let (remote, embedded) = both(searched("108"), &c.url);
    assert_eq!(remote, embedded);
    let job = newest_job(&c.url);
    let text = metrics(&c);
    let entries = metric(&text, "bgfarm_first_ply_cache_entries").expect("entries") as u64;
    // Three starts and about 21 successors of each.
    assert!(entries > 40, "{entries} tables stored");
    assert_eq!(counter(&job, "first_ply_computed"), entries, "{job}");
    assert_eq!(
        metric(&text, "bgfarm_first_ply_tables_computed_total"),
        Some(entries as f64)
    );
    // The running coordinator holds its store.
    let data = dir.0.join("data");
    fails(&["store", "stats", "--data", path(&data)], "in use");

    // The same rollout with other dice: every table comes from the store.
    let (remote, embedded) = both(seeded("72", "6"), &c.url);
    assert_eq!(remote, embedded);
    let job = newest_job(&c.url);
    assert_eq!(counter(&job, "first_ply_computed"), 0, "{job}");
    assert!(counter(&job, "first_ply_served") > 0, "{job}");

    // Tables survive a restart (killed, not stopped: they were flushed with the
    // results) and serve the next job.
    drop((c, w1, w2));
    let c = coordinator(&dir);
    let _w = work(&dir, "w3", &c.url, &[]);
    let again = spawn(&with(seeded("72", "7"), &["--coordinator", &c.url]));
    let embedded = spawn(&with(seeded("72", "7"), &["--threads", "1"]));
    let embedded = output_json(&embedded.output());
    assert_eq!(output_json(&again.output()), embedded);
    let job = newest_job(&c.url);
    assert_eq!(counter(&job, "first_ply_computed"), 0, "{job}");
    assert_eq!(
        metric(&metrics(&c), "bgfarm_first_ply_cache_entries"),
        Some(entries as f64)
    );
    drop(c);

    // Entries of another engine: listed by `store stats`, the only ones pruned.
    {
        let store = Store::open(&data).expect("store");
        for kind in BlobKind::ALL {
            for k in 0..3u8 {
                store
                    .blobs(kind)
                    .put("an-old-engine", &[k], b"old")
                    .expect("put");
            }
        }
        store.flush().expect("flush");
    }
    let stats = output_json(&run(
        &["store", "stats", "--json", "--data", path(&data)].map(String::from)
    ));
    let first = &stats["kinds"][0];
    assert_eq!(first["kind"], "first_ply");
    assert_eq!(first["entries"], entries + 3, "{stats}");
    // The batch results of this engine (the memory of computed batches), and 3 old.
    let batches = stats["kinds"][1]["entries"].as_u64().unwrap_or(0);
    assert!(batches > 3, "{stats}");
    let pruned = output_json(&run(
        &["store", "prune", "--json", "--data", path(&data)].map(String::from)
    ));
    assert_eq!(pruned["removed_total"], 6, "{pruned}");
    assert!(pruned["removed"]
        .as_array()
        .is_some_and(|r| r.iter().all(|x| x["fingerprint"] == "an-old-engine")));
    let stats = output_json(&run(
        &["store", "stats", "--json", "--data", path(&data)].map(String::from)
    ));
    assert_eq!(stats["kinds"][0]["entries"], entries, "{stats}");
    assert_eq!(stats["kinds"][1]["entries"], batches - 3, "{stats}");
    assert_eq!(stats["kinds"][0]["per_fingerprint"][0]["current"], true);
}

#[test]
fn store_commands_refuse_bad_input() {
    fails(
        &["store", "stats", "--data", "/nonexistent/bgfarm-store"],
        "no store at",
    );
    fails(
        &["store", "prune", "--data", "/nonexistent/bgfarm-store"],
        "no store at",
    );
    fails(
        &["serve", "--data", "/tmp/x", "--cache-cap", "0"],
        "--cache-cap",
    );
}

#[test]
fn an_embedded_run_with_data_keeps_and_reuses_the_tables() {
    let dir = TempDir::new("first-ply-embedded");
    let data = dir.0.join("store");
    let plain = spawn(&with(searched("108"), &["--threads", "1"]));
    let stored = |trials: &str| {
        let out = run(&with(
            searched(trials),
            &["--threads", "1", "--data", path(&data)],
        ));
        (
            output_json(&out),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (first, err) = stored("72");
    assert!(err.contains("0 found in the store"), "{err}");
    let stats = output_json(&run(
        &["store", "stats", "--json", "--data", path(&data)].map(String::from)
    ));
    let tables = stats["kinds"][0]["entries"].as_u64().unwrap_or(0);
    assert!(tables > 40, "{stats}");
    assert_eq!(first["candidates"][0]["trials"], 72, "{first}");
    // A longer run starts from the stored tables and still equals a plain run.
    let (longer, err) = stored("108");
    assert_eq!(longer, output_json(&plain.output()));
    assert!(
        err.contains(&format!("{tables} found in the store, 0 computed")),
        "{err}"
    );
    let stats = output_json(&run(
        &["store", "stats", "--json", "--data", path(&data)].map(String::from)
    ));
    assert_eq!(
        stats["kinds"][0]["entries"], tables,
        "no table computed twice"
    );
}
