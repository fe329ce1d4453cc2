//! A coordinator stopped by SIGTERM while a client follows a job (as a deployment
//! stops it: Docker gives 10 s, then SIGKILL): it logs that it is stopping, ends
//! the watch streams, flushes and exits within a few seconds, and the client,
//! still waiting, re-attaches to the restarted coordinator and gets the result.

mod common;

use common::cluster::{log, output_json, rollout_args, run, serve_on, spawn, with, work, TempDir};
use std::process::Command;
use std::time::{Duration, Instant};

#[test]
fn sigterm_stops_the_coordinator_while_a_client_follows() {
    let dir = TempDir::new("sigterm");
    let first = serve_on(&dir, "127.0.0.1:0", "serve", &[]);
    let listen = first.url.trim_start_matches("http://").to_string();
    let url = first.url.clone();
    let mut first = first.proc;
    // No worker yet: the job waits and the client follows it.
    let args = rollout_args("144");
    let embedded = spawn(&with(args.clone(), &["--threads", "1"]));
    let mut client = spawn(&with(args, &["--coordinator", &url]));
    let t = Instant::now();
    loop {
        let out = run(&["jobs", "list", "--json", "--coordinator", &url].map(String::from));
        if String::from_utf8_lossy(&out.stdout).contains("\"id\":1") {
            break;
        }
        assert!(t.elapsed() < Duration::from_secs(60), "the job never came");
        std::thread::sleep(Duration::from_millis(100));
    }
    // Let the client's watch stream open.
    std::thread::sleep(Duration::from_millis(500));
    let pid = first.child().id().to_string();
    let term = Command::new("kill").args(["-TERM", &pid]).status();
    assert!(term.is_ok_and(|s| s.success()), "kill -TERM {pid}");
    let t = Instant::now();
    let status = loop {
        if let Some(s) = first.child().try_wait().expect("wait for serve") {
            break s;
        }
        assert!(
            t.elapsed() < Duration::from_secs(8),
            "still up 8 s after SIGTERM: {}",
            log(&dir, "serve")
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    let took = t.elapsed();
    let text = log(&dir, "serve");
    assert!(status.success(), "{status:?}: {text}");
    assert!(took < Duration::from_secs(5), "{took:?}: {text}");
    assert!(text.contains("stopping"), "{text}");
    assert!(text.contains("coordinator stopped"), "{text}");
    assert!(
        client.child().try_wait().expect("client").is_none(),
        "the client gave up instead of waiting for the restart"
    );
    // The same data and port: the client re-attaches, a worker runs the job.
    let second = serve_on(&dir, &listen, "serve2", &[]);
    let _worker = work(&dir, "w", &second.url, &[]);
    assert_eq!(
        output_json(&client.output()),
        output_json(&embedded.output())
    );
}
