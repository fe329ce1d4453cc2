//! The coordinator's web page end to end: `bgfarm serve` with a client token and
//! `bgfarm work` as real processes, a rollout and a match simulation submitted
//! with the CLI, and the page loaded in headless Chromium (Debian's `chromium`)
//! while the rollout runs and after both finish; the token guard is checked over
//! plain HTTP too. Without Chromium the browser part is skipped with a message.

mod common;

use common::browser::{chromium, dump_dom};
use common::cluster::{
    http, log, output_json as json, rollout_args, serve_page, spawn, with, work, TempDir,
};
use std::time::{Duration, Instant};

const TOKEN: &str = "s3cret+/ token";

/// The page's cookie holding [`TOKEN`] (hex, as the coordinator sets it).
fn cookie() -> String {
    let hex: String = TOKEN.bytes().map(|b| format!("{b:02x}")).collect();
    format!("Cookie: bgfarm_token={hex}")
}

/// [`TOKEN`] as a query or form value.
fn encoded() -> &'static str {
    "s3cret%2B%2F+token"
}

/// Polls `GET path` (with the cookie) until its body contains every one of
/// `needles`; returns the body.
fn wait_for(addr: &str, path: &str, needles: &[&str], dir: &TempDir) -> String {
    let t = Instant::now();
    loop {
        let r = http(addr, "GET", path, &[&cookie()], "");
        if needles.iter().all(|n| r.body.contains(n)) {
            return r.body;
        }
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "{path} never showed {needles:?}: {}\n{}",
            r.body,
            log(dir, "serve")
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn the_page_shows_jobs_workers_and_results_behind_the_token() {
    let dir = TempDir::new("web");
    let (c, addr) = serve_page(&dir, TOKEN, &["--lease-timeout", "2"]);
    let token_file = dir.0.join("client.token");
    let token = token_file.to_str().expect("utf-8 path");

    // The guard, over plain HTTP: the form and nothing else without the token.
    let r = http(&addr, "GET", "/", &[], "");
    assert_eq!(r.code, 401);
    assert!(r.body.contains("name=\"token\"") && !r.body.contains("Workers"));
    let r = http(&addr, "GET", "/?token=wrong", &[], "");
    assert_eq!(r.code, 401);
    assert!(r.body.contains("Wrong token") && !r.body.contains("Workers"));
    let r = http(
        &addr,
        "GET",
        &format!("/job/1?token={}", encoded()),
        &[],
        "",
    );
    assert_eq!(r.code, 303, "{}", r.head);
    assert!(r.head.contains("location: /job/1") && r.head.contains("HttpOnly"));
    let form = format!("token={}", encoded());
    let r = http(&addr, "POST", "/login", &[], &form);
    assert_eq!(r.code, 303);
    assert!(r.head.contains(&cookie()["Cookie: ".len()..]), "{}", r.head);
    assert_eq!(http(&addr, "POST", "/", &[&cookie()], "").code, 405);
    assert_eq!(http(&addr, "GET", "/job/9", &[&cookie()], "").code, 404);
    // Probes and scrapers need no token, as before.
    assert_eq!(http(&addr, "GET", "/healthz", &[], "").code, 200);
    assert_eq!(http(&addr, "GET", "/metrics", &[], "").code, 200);

    // A rollout, caught mid-job: its only worker is killed after a batch.
    let mut first = work(&dir, "w1", &c.url, &[]);
    let rollout = spawn(&with(
        rollout_args("2592"),
        &["--coordinator", &c.url, "--token-file", token],
    ));
    // Kill the worker once a batch is in (the job has 72 batches of ~0.1 s).
    let t = Instant::now();
    loop {
        let page = wait_for(&addr, "/job/1", &["running"], &dir);
        if !page.contains("value=\"0\"") {
            break;
        }
        assert!(t.elapsed() < Duration::from_secs(60), "no progress: {page}");
        std::thread::sleep(Duration::from_millis(20));
    }
    first.child().kill().expect("SIGKILL the worker");
    let _ = first.child().wait();
    let running = wait_for(&addr, "/job/1", &["running", "/2592 trials"], &dir);
    assert!(!running.contains("2592/2592"), "done before the kill");
    // The worker, its threads and throughput are listed while it is remembered.
    let overview = wait_for(&addr, "/", &["registered for", "trials/s"], &dir);
    assert!(!overview.contains("No workers registered"), "{overview}");

    let browser = chromium();
    let profile = dir.0.join("chromium");
    if browser {
        let dom = dump_dom(&format!("http://{addr}/?token={}", encoded()), &profile);
        assert!(dom.contains("rollout") && dom.contains("running"), "{dom}");
        assert!(dom.contains("/2592 trials ("), "{dom}");
        let dom = dump_dom(&format!("http://{addr}/?token=nope"), &profile);
        assert!(
            dom.contains("Wrong token") && !dom.contains("rollout"),
            "{dom}"
        );
    } else {
        eprintln!(
            "chromium is not installed: the browser checks are skipped (apt-get install chromium)"
        );
    }

    // Another worker finishes the rollout; a match simulation follows.
    let _second = work(&dir, "w2", &c.url, &[]);
    let rollout = json(&rollout.output());
    let sim = spawn(&[
        "match-sim",
        "--length",
        "3",
        "--a",
        "janowski-match:x=0.7",
        "--b",
        "janowski-money:x=0.7",
        "--matches",
        "32",
        "--json",
        "--coordinator",
        &c.url,
        "--token-file",
        token,
    ]);
    json(&sim.output());
    let moves: Vec<String> = rollout["candidates"]
        .as_array()
        .expect("candidates")
        .iter()
        .map(|c| c["move"].as_str().expect("a move").to_string())
        .collect();
    let page = wait_for(&addr, "/job/1", &["vs best"], &dir);
    for m in &moves {
        assert!(page.contains(m.as_str()), "{m} missing: {page}");
    }
    let page = wait_for(&addr, "/job/2", &["A ppm:", "games/match:"], &dir);
    assert!(
        page.contains("32 3-point matches (16 duplicate pairs)"),
        "{page}"
    );
    if browser {
        let dom = dump_dom(
            &format!("http://{addr}/job/1?token={}", encoded()),
            &profile,
        );
        for m in &moves {
            assert!(dom.contains(m.as_str()), "{m} missing: {dom}");
        }
        assert!(
            dom.contains("equity") && dom.contains("2592 trials per candidate"),
            "{dom}"
        );
        let dom = dump_dom(&format!("http://{addr}/?token={}", encoded()), &profile);
        assert!(
            dom.contains("match-sim") && dom.contains("2592/2592 trials (100.0%)"),
            "{dom}"
        );
        assert!(dom.contains("16/16 pairs (100.0%)"), "{dom}");
    }
}

/// The number of checkers drawn on the board of `dom` (each a circle of radius
/// 13, `report/src/board_svg.rs`).
fn checkers(dom: &str) -> usize {
    dom.matches("r=\"13\"").count()
}

#[test]
fn the_form_submits_a_rollout_whose_page_shows_the_board_and_the_table() {
    let dir = TempDir::new("web-form");
    let (c, addr) = serve_page(&dir, TOKEN, &[]);
    let _worker = work(&dir, "w1", &c.url, &[]);
    let origin = format!("Origin: http://{addr}");
    let form_type = "Content-Type: application/x-www-form-urlencoded";
    // What a browser sends for the form (an unchecked box sends nothing).
    let good = "position=4HPwATDgc%2FABMA&dice=31&moves=top%3A3&trials=72&seed=3&ply=0\
                &truncate=6&preset=";
    let post = |headers: &[&str], body: &str| http(&addr, "POST", "/submit", headers, body);

    // The form, behind the token.
    assert_eq!(http(&addr, "GET", "/submit", &[], "").code, 401);
    let r = http(&addr, "GET", "/submit", &[&cookie()], "");
    assert_eq!(r.code, 200);
    assert!(r.body.contains("name=\"position\"") && r.body.contains("xg-roller++"));

    // No token, a wrong one, another site: refused, nothing submitted.
    let r = post(&[form_type, &origin], good);
    assert_eq!(r.code, 401, "{}", r.body);
    assert!(r.body.contains("name=\"token\""));
    let stale = "Cookie: bgfarm_token=00";
    assert_eq!(post(&[form_type, &origin, stale], good).code, 401);
    let r = post(&[form_type, &origin], &format!("{good}&token=wrong"));
    assert!(
        r.code == 401 && r.body.contains("Wrong token"),
        "{}",
        r.body
    );
    let r = post(&[form_type, "Origin: http://evil.example", &cookie()], good);
    assert_eq!(r.code, 403, "{}", r.body);
    // Bad input: the form again with the command line's message and the values.
    for (body, message) in [
        (
            good.replace("trials=72", "trials=lots"),
            "invalid value &#39;lots&#39;",
        ),
        (good.replace("ply=0", "ply=9"), "--ply, --opponent-ply"),
        (good.replace("top%3A3", "24%2F18"), "24/18"),
        (good.replace("4HPwATDgc", "4HPw"), "position"),
    ] {
        let r = post(&[form_type, &origin, &cookie()], &body);
        assert_eq!(r.code, 400, "{body}: {}", r.body);
        assert!(r.body.contains("class=\"err\""), "{}", r.body);
        assert!(r.body.contains(message), "{message}: {}", r.body);
        assert!(
            r.body.contains("value=\"3\""),
            "the seed is kept: {}",
            r.body
        );
    }
    assert_eq!(http(&addr, "GET", "/job/1", &[&cookie()], "").code, 404);
    let big = format!("{good}&moves={}", "x".repeat(9000));
    assert_eq!(post(&[form_type, &origin, &cookie()], &big).code, 413);

    // The good post (the token as a field works as the cookie does).
    let r = post(
        &[form_type, &origin],
        &format!("{good}&token={}", encoded()),
    );
    assert_eq!(r.code, 303, "{}", r.body);
    assert!(r.head.contains("location: /job/1"), "{}", r.head);
    let page = wait_for(&addr, "/job/1", &["What is rolled out", "vs best"], &dir);
    assert!(page.contains("class=\"board\"") && page.contains("72 per candidate"));
    assert_eq!(checkers(&page), 30, "{page}");

    if !chromium() {
        eprintln!(
            "chromium is not installed: the browser checks are skipped (apt-get install chromium)"
        );
        return;
    }
    let profile = dir.0.join("chromium");
    let dom = dump_dom(
        &format!("http://{addr}/job/1?token={}", encoded()),
        &profile,
    );
    assert_eq!(checkers(&dom), 30, "{dom}");
    assert!(
        dom.contains("<svg") && dom.contains("4HPwATDgc/ABMA"),
        "{dom}"
    );
    for m in ["8/5 6/5", "24/23 13/10", "13/9"] {
        assert!(dom.contains(m), "{m} missing: {dom}");
    }
    assert!(
        dom.contains("vs best") && dom.contains("72 trials per candidate"),
        "{dom}"
    );
    assert!(
        dom.contains("after 6 plies") && dom.contains("XGID="),
        "{dom}"
    );
    let dom = dump_dom(&format!("http://{addr}/submit?token=nope"), &profile);
    assert!(
        dom.contains("Wrong token") && !dom.contains("name=\"position\""),
        "{dom}"
    );
}
