//! The web page's match form end to end (issue 47): a match file posted as a
//! browser posts a file input (multipart/form-data, the client token as a field)
//! to `bgfarm serve`, analysed by a worker, and the job's page showing a board
//! of every decision the embedded `bgfarm analyse` marks; a wrong token, a
//! cross-site post and a file that is not a match are refused and submit
//! nothing. Checked in headless Chromium when it is installed.

mod common;

use common::browser::{chromium, dump_dom};
use common::cluster::{http, output_json, run, serve_page, work, TempDir};
use std::time::{Duration, Instant};

const TOKEN: &str = "analyse-token";
const MATCH: &str = "tests/data/matches/three-point.mat";
const BOUNDARY: &str = "----bgfarmTestBoundary7";

/// The multipart body of the form: the file, the depth and the token.
fn body(file_name: &str, text: &str, ply: &str, token: &str) -> String {
    let part = |head: &str, value: &str| {
        format!("--{BOUNDARY}\r\nContent-Disposition: form-data; {head}\r\n\r\n{value}\r\n")
    };
    let mut b = part(&format!("name=\"match\"; filename=\"{file_name}\""), text);
    b.push_str(&part("name=\"ply\"", ply));
    b.push_str(&part("name=\"token\"", token));
    b.push_str(&format!("--{BOUNDARY}--\r\n"));
    b
}

fn post(addr: &str, body: &str, extra: &[&str]) -> common::cluster::HttpReply {
    let ct = format!("Content-Type: multipart/form-data; boundary={BOUNDARY}");
    let mut headers = vec![ct.as_str()];
    headers.extend_from_slice(extra);
    http(addr, "POST", "/analyse", &headers, body)
}

#[test]
fn a_match_uploaded_on_the_page_is_analysed_with_a_board_per_marked_decision() {
    let dir = TempDir::new("web-analyse");
    let (c, addr) = serve_page(&dir, TOKEN, &[]);
    let text = std::fs::read_to_string(MATCH).expect("match");

    // Refused: a wrong token, another site, a file that is not a match.
    assert_eq!(
        post(&addr, &body("m.mat", &text, "0", "wrong"), &[]).code,
        401
    );
    let cross = post(
        &addr,
        &body("m.mat", &text, "0", TOKEN),
        &["Origin: http://elsewhere.example"],
    );
    assert_eq!(cross.code, 403);
    let bad = post(&addr, &body("notes.txt", "hello", "0", TOKEN), &[]);
    assert_eq!(bad.code, 400, "{}", bad.body);
    assert!(bad.body.contains("notes.txt"), "{}", bad.body);
    let deep = post(&addr, &body("m.mat", &text, "9", TOKEN), &[]);
    assert_eq!(deep.code, 400, "{}", deep.body);

    // Accepted: a redirect to the job's page, the first job.
    let ok = post(&addr, &body("m.mat", &text, "0", TOKEN), &[]);
    assert_eq!(ok.code, 303, "{}", ok.body);
    assert!(
        ok.head.to_ascii_lowercase().contains("location: /job/1"),
        "{}",
        ok.head
    );
    let _w = work(&dir, "worker", &c.url, &[]);

    // The embedded analysis at the same settings says which decisions are marked.
    let embedded = output_json(&run(
        &["analyse", MATCH, "--ply", "0", "--json"].map(String::from)
    ));
    let marked = embedded["decisions"]
        .as_array()
        .expect("decisions")
        .iter()
        .filter(|d| d["error"].as_f64().is_some_and(|e| e >= 0.04))
        .count();
    assert!(marked > 0);
    let cookie = format!("Cookie: bgfarm_token={}", hex(TOKEN));
    let t = Instant::now();
    let page = loop {
        let r = http(&addr, "GET", "/job/1", &[&cookie], "");
        if r.body.contains("Decisions marked") {
            break r.body;
        }
        assert!(t.elapsed() < Duration::from_secs(120), "{}", r.body);
        std::thread::sleep(Duration::from_millis(200));
    };
    assert!(
        page.contains(&format!("Decisions marked doubtful or worse ({marked})")),
        "{marked} marked: {page}"
    );
    assert_eq!(page.matches("<section class=\"decision\"").count(), marked);

    if !chromium() {
        eprintln!("chromium is not installed: the browser check is skipped");
        return;
    }
    let profile = dir.0.join("chromium");
    let url = format!("http://{addr}/job/1?token={TOKEN}");
    let dom = dump_dom(&url, &profile);
    assert_eq!(dom.matches("<svg").count(), marked, "{dom}");
    assert!(dom.contains("Match analysis"), "{dom}");
}

/// The cookie's value: the token in hex (as the page sets it).
fn hex(s: &str) -> String {
    s.bytes().map(|b| format!("{b:02x}")).collect()
}
