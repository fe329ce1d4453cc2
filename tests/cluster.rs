//! The cluster end to end with real processes on 127.0.0.1 and real sled
//! directories: `serve` + `work` processes give the embedded run's JSON bit for bit,
//! also when a worker is SIGKILLed mid-job (its lease expires and another worker
//! re-runs the batch), and wrong tokens are refused.

mod common;

use common::cluster::{
    http_get, log, metric, output_json, path, rollout_args, run, serve, serve_on, spawn,
    wait_mid_job, with, work, Proc, TempDir,
};
use std::path::Path;
use std::process::Output;

#[test]
fn two_workers_give_the_embedded_result() {
    let dir = TempDir::new("two");
    let ct = dir.file("client.token", "client-secret\n");
    let wt = dir.file("worker.token", "worker-secret\n");
    let (_serve, url) = serve(
        &dir,
        &[
            "--client-token-file",
            path(&ct),
            "--worker-token-file",
            path(&wt),
        ],
    );
    let _w1 = work(&dir, "w1", &url, &["--token-file", path(&wt)]);
    let _w2 = work(&dir, "w2", &url, &["--token-file", path(&wt)]);
    let args = rollout_args("144");
    let embedded = spawn(&with(args.clone(), &["--threads", "1"]));
    let remote = spawn(&with(
        args,
        &["--coordinator", &url, "--token-file", path(&ct)],
    ));
    let (embedded, remote) = (
        output_json(&embedded.output()),
        output_json(&remote.output()),
    );
    assert_eq!(remote, embedded);
    assert_eq!(remote["candidates"][0]["trials"], 144);
    // Cubeful rollouts travel too: the rules and each candidate's cube.
    let cubeful = with(rollout_args("72"), &["--cubeful", "--jacoby"]);
    let embedded = spawn(&with(cubeful.clone(), &["--threads", "1"]));
    let remote = spawn(&with(
        cubeful,
        &["--coordinator", &url, "--token-file", path(&ct)],
    ));
    let (embedded, remote) = (
        output_json(&embedded.output()),
        output_json(&remote.output()),
    );
    assert_eq!(remote, embedded);
    assert!(remote["candidates"][0]["cubeful_equity"].is_f64());
    // The job is listed as done.
    let list = run(&[
        "jobs",
        "list",
        "--json",
        "--coordinator",
        &url,
        "--token-file",
        path(&ct),
    ]
    .map(String::from));
    assert!(
        String::from_utf8_lossy(&list.stdout).contains("\"state\":\"done\""),
        "{list:?}"
    );
}

#[test]
fn a_killed_worker_does_not_change_the_result() {
    let dir = TempDir::new("kill");
    let (_serve, url) = serve(&dir, &["--lease-timeout", "2"]);
    let mut victim = work(&dir, "victim", &url, &[]);
    let args = rollout_args("432");
    let embedded = spawn(&with(args.clone(), &["--threads", "1"]));
    let client = spawn(&with(args, &["--coordinator", &url]));
    // Kill the only worker once it has handed in a batch: it holds the next one.
    wait_mid_job(&url, &dir, "victim");
    victim.child().kill().expect("SIGKILL the worker");
    let _ = victim.child().wait();
    let _rescuer = work(&dir, "rescuer", &url, &[]);
    let remote = output_json(&client.output());
    assert_eq!(remote, output_json(&embedded.output()));
    assert!(
        log(&dir, "serve").contains("lease expired"),
        "{}",
        log(&dir, "serve")
    );
}

#[test]
fn wrong_tokens_are_refused() {
    let dir = TempDir::new("tokens");
    let ct = dir.file("client.token", "client-secret\n");
    let wt = dir.file("worker.token", "worker-secret\n");
    let bad = dir.file("bad.token", "guess\n");
    let (_serve, url) = serve(
        &dir,
        &[
            "--client-token-file",
            path(&ct),
            "--worker-token-file",
            path(&wt),
        ],
    );
    // Workers with a wrong token (or the client's) stop at once with exit code 2.
    let workers: Vec<Proc> = [&bad, &ct]
        .map(|t| {
            spawn(
                &[
                    "work",
                    "--coordinator",
                    &url,
                    "--threads",
                    "1",
                    "--token-file",
                    path(t),
                ]
                .map(String::from),
            )
        })
        .into();
    // Clients without a token, with a wrong one or with the workers' are refused.
    let clients: Vec<Proc> = [None, Some(&bad), Some(&wt)]
        .map(|t| {
            let args = with(rollout_args("36"), &["--coordinator", &url]);
            spawn(&match t {
                Some(t) => with(args, &["--token-file", path(t)]),
                None => args,
            })
        })
        .into();
    for w in workers {
        let out = w.output();
        assert_eq!(out.status.code(), Some(2), "{out:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("refused the worker token"),
            "{out:?}"
        );
    }
    for c in clients {
        let out = c.output();
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("token") && err.contains("Unauthenticated"),
            "{err}"
        );
    }
}

fn sim_args() -> Vec<String> {
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
        "64",
        "--seed",
        "3",
        "--luck",
        "--json",
    ]
    .map(String::from)
    .to_vec()
}

/// The JSON of a match simulation without what may differ between runs.
fn sim_json(out: &Output) -> serde_json::Value {
    let mut v = output_json(out);
    let obj = v.as_object_mut().expect("a JSON object");
    assert!(obj.remove("seconds").is_some() && obj.remove("threads").is_some());
    v
}

#[test]
fn match_simulations_run_on_the_cluster_bit_for_bit() {
    let dir = TempDir::new("sim");
    let c = serve_on(
        &dir,
        "127.0.0.1:0",
        "serve",
        &["--metrics-listen", "127.0.0.1:0"],
    );
    let metrics = c.metrics.clone().expect("metrics address");
    assert_eq!(http_get(&metrics, "/healthz"), (200, "ok\n".to_string()));
    assert_eq!(http_get(&metrics, "/nope").0, 404);
    let _w1 = work(&dir, "w1", &c.url, &[]);
    let _w2 = work(&dir, "w2", &c.url, &[]);
    // Luck adjustment on: the float sums are folded chunk by chunk, 2 batches of
    // 16 pairs on 2 workers, exactly as the embedded run folds them.
    let embedded = spawn(&with(sim_args(), &["--threads", "1"]));
    let remote = spawn(&with(
        sim_args(),
        &["--coordinator", &c.url, "--batch", "16"],
    ));
    let (embedded, remote) = (sim_json(&embedded.output()), sim_json(&remote.output()));
    assert_eq!(remote, embedded);
    assert_eq!(remote["pairs"], 32);
    assert!(remote["adjusted_se"].as_f64().is_some());

    let (code, text) = http_get(&metrics, "/metrics");
    assert_eq!(code, 200);
    assert_eq!(
        metric(&text, "bgfarm_batches_accepted_total"),
        Some(2.0),
        "{text}"
    );
    assert_eq!(
        metric(&text, "bgfarm_batches_leased_total"),
        Some(2.0),
        "{text}"
    );
    assert!(text.contains("bgfarm_jobs{state=\"done\"} 1\n"), "{text}");
    assert!(
        text.lines()
            .any(|l| l.starts_with("bgfarm_worker_trials_per_second{worker=")),
        "{text}"
    );

    // Match-aware chequer play travels in the spec: the workers play it too.
    let aware = with(sim_args(), &["--chequer", "match"]);
    let embedded_aware = spawn(&with(aware.clone(), &["--threads", "1"]));
    let remote_aware = spawn(&with(aware, &["--coordinator", &c.url, "--batch", "16"]));
    let (embedded_aware, remote_aware) = (
        sim_json(&embedded_aware.output()),
        sim_json(&remote_aware.output()),
    );
    assert_eq!(remote_aware, embedded_aware);
    assert_eq!(remote_aware["chequer"], "match");
    assert_ne!(remote_aware["adjusted_ppm"], remote["adjusted_ppm"]);

    // A player's own table (computed, Janowski-consistent) and the jump model in
    // match play with the position's sigma travel too: the same bits.
    let own: Vec<String> = [
        "match-sim",
        "--length",
        "3",
        "--a",
        "jump-match:sigma=auto",
        "--met-a",
        "janowski:x=0.68",
        "--b",
        "janowski-match:x=0.68",
        "--matches",
        "32",
        "--seed",
        "3",
        "--luck",
        "--json",
    ]
    .map(String::from)
    .to_vec();
    let embedded_own = spawn(&with(own.clone(), &["--threads", "1"]));
    let remote_own = spawn(&with(own, &["--coordinator", &c.url, "--batch", "16"]));
    let (embedded_own, remote_own) = (
        sim_json(&embedded_own.output()),
        sim_json(&remote_own.output()),
    );
    assert_eq!(remote_own, embedded_own);
    assert_eq!(remote_own["met_a"], "Janowski x=0.68 G=0.26");
    assert_eq!(remote_own["a"], "jump-match:sigma=auto");
}

/// `jobs show ID --json` on `url`.
fn show(url: &str, id: u64) -> serde_json::Value {
    output_json(&run(&[
        "jobs",
        "show",
        &id.to_string(),
        "--json",
        "--coordinator",
        url,
    ]
    .map(String::from)))
}

#[test]
fn a_restarted_coordinator_resumes_without_recomputing() {
    let dir = TempDir::new("restart");
    // A long lease timeout: a batch is leased again only if it was never accepted.
    let extra = ["--lease-timeout", "30"];
    let first = serve_on(&dir, "127.0.0.1:0", "serve", &extra);
    let listen = first.url.trim_start_matches("http://").to_string();
    let mut first = first.proc;
    let _worker = work(&dir, "w", &format!("http://{listen}"), &[]);
    let args = rollout_args("648");
    let embedded = spawn(&with(args.clone(), &["--threads", "1"]));
    let url = format!("http://{listen}");
    let client = spawn(&with(args, &["--coordinator", &url]));
    // SIGKILL the coordinator once a batch is stored, mid-job.
    wait_mid_job(&url, &dir, "w");
    first.child().kill().expect("SIGKILL the coordinator");
    let _ = first.child().wait();
    // Same data directory, same port: the worker and the client find it again.
    let second = serve_on(&dir, &listen, "serve2", &extra);
    let remote = output_json(&client.output());
    assert_eq!(remote, output_json(&embedded.output()));

    let s = show(&second.url, 1);
    let n = |k: &str| s[k].as_u64().unwrap_or_else(|| panic!("{k} in {s}"));
    eprintln!("after the restart: {s}");
    assert_eq!(s["state"], "done");
    let (total, resumed) = (n("batches_total"), n("batches_resumed"));
    assert_eq!(total, 18);
    assert!(resumed >= 1 && resumed < total, "{s}");
    // No batch accepted before the kill was leased (computed) again ...
    assert!(n("leases_granted") + resumed <= total, "{s}");
    // ... and every batch was accepted exactly once across both processes.
    assert_eq!(
        n("results_received") - n("results_duplicate") + resumed,
        total,
        "{s}"
    );
    assert!(
        log(&dir, "serve2").contains("resumed"),
        "{}",
        log(&dir, "serve2")
    );
}

#[test]
fn stop_rules_prune_and_stop_as_in_the_embedded_run() {
    let dir = TempDir::new("stop");
    let (_serve, url) = serve(&dir, &[]);
    let _w1 = work(&dir, "w1", &url, &[]);
    let _w2 = work(&dir, "w2", &url, &[]);
    let args: Vec<String> = [
        "rollout",
        "4HPwATDgc/ABMA",
        "--dice",
        "31",
        "--moves",
        "24/20,13/9,24/21 24/23,6/3 6/5",
        "--trials",
        "1296",
        "--truncate",
        "6",
        "--seed",
        "3",
        "--batch",
        "36",
        "--jsd",
        "--jsd-k",
        "4",
        "--se-target",
        "0.0017",
        "--json",
    ]
    .map(String::from)
    .to_vec();
    let embedded = spawn(&with(args.clone(), &["--threads", "1"]));
    let remote = spawn(&with(args, &["--coordinator", &url]));
    let (embedded, remote) = (
        output_json(&embedded.output()),
        output_json(&remote.output()),
    );
    assert_eq!(remote, embedded);
    let trials: Vec<u64> = remote["candidates"]
        .as_array()
        .expect("candidates")
        .iter()
        .filter_map(|c| c["trials"].as_u64())
        .collect();
    // Some candidate is pruned at the first wave; the SE target stops the rest
    // before the 1296 trials (where exactly depends on the nets: with 0.7.0's, k = 3
    // pruned every play but the best at the first wave).
    let most = trials.iter().copied().max().unwrap_or(0);
    assert!(trials.contains(&324), "{trials:?}");
    assert!(most > 324 && most < 1296 && most % 324 == 0, "{trials:?}");
    let s = show(&url, 1);
    assert_eq!(s["state"], "done");
    assert_eq!(s["batches_done"], most / 36, "{s}");
    assert!(
        s["message"]
            .as_str()
            .is_some_and(|m| m.contains("stop rule")),
        "{s}"
    );
}

#[test]
fn tls_between_clients_workers_and_the_coordinator() {
    let dir = TempDir::new("tls");
    let tls = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/tls");
    let (cert, key, ca) = (
        tls.join("server.pem"),
        tls.join("server.key"),
        tls.join("ca.pem"),
    );
    let (_serve, plain) = serve(&dir, &["--tls-cert", path(&cert), "--tls-key", path(&key)]);
    let url = plain.replace("http://", "https://");
    let _w = work(&dir, "w", &url, &["--tls-ca", path(&ca)]);
    let args = rollout_args("72");
    let embedded = spawn(&with(args.clone(), &["--threads", "1"]));
    let remote = spawn(&with(
        args.clone(),
        &["--coordinator", &url, "--tls-ca", path(&ca)],
    ));
    // Without the CA the certificate is not trusted; plain HTTP/2 is not spoken.
    let untrusted = spawn(&with(args.clone(), &["--coordinator", &url]));
    let plaintext = spawn(&with(args, &["--coordinator", &plain]));
    assert_eq!(
        output_json(&remote.output()),
        output_json(&embedded.output())
    );
    for p in [untrusted, plaintext] {
        let out = p.output();
        assert_eq!(out.status.code(), Some(2), "{out:?}");
    }
}
