//! The cluster end to end with real processes on 127.0.0.1 and real sled
//! directories: `serve` + `work` processes give the embedded run's JSON bit for bit,
//! also when a worker is SIGKILLed mid-job (its lease expires and another worker
//! re-runs the batch), and wrong tokens are refused.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_bgfarm");

/// A temporary directory, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let d = std::env::temp_dir().join(format!("bgfarm-cluster-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).expect("temp dir");
        TempDir(d)
    }

    fn file(&self, name: &str, text: &str) -> PathBuf {
        let p = self.0.join(name);
        std::fs::write(&p, text).expect("write file");
        p
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A child process, killed on drop (also when a test fails).
struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `bgfarm serve` on port 0; returns it and its URL. Its log goes to
/// `dir/serve.log`.
fn serve(dir: &TempDir, extra: &[&str]) -> (Proc, String) {
    let log = std::fs::File::create(dir.0.join("serve.log")).expect("log file");
    let data = dir.0.join("data");
    let mut child = Command::new(BIN)
        .args(["serve", "--listen", "127.0.0.1:0", "--data"])
        .arg(&data)
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(log)
        .spawn()
        .expect("start serve");
    let mut line = String::new();
    let stdout = child.stdout.take().expect("stdout");
    BufReader::new(stdout).read_line(&mut line).expect("read address");
    let addr = line.trim().strip_prefix("listening on ").unwrap_or_else(|| panic!("serve printed {line:?}"));
    let url = format!("http://{addr}");
    (Proc(child), url)
}

/// Starts `bgfarm work` with one thread; its log goes to `dir/<name>.log`.
fn work(dir: &TempDir, name: &str, url: &str, extra: &[&str]) -> Proc {
    let log = std::fs::File::create(dir.0.join(format!("{name}.log"))).expect("log file");
    let child = Command::new(BIN)
        .args(["work", "--coordinator", url, "--threads", "1"])
        .args(extra)
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .expect("start work");
    Proc(child)
}

fn rollout_args(trials: &str) -> Vec<String> {
    ["rollout", "4HPwATDgc/ABMA", "--dice", "31", "--moves", "top:3", "--trials", trials, "--truncate", "6",
        "--seed", "3", "--batch", "36", "--json"]
        .map(String::from)
        .to_vec()
}

fn run(args: &[String]) -> Output {
    Command::new(BIN).args(args).output().expect("run bgfarm")
}

fn json(out: &Output) -> serde_json::Value {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

fn with(mut args: Vec<String>, extra: &[&str]) -> Vec<String> {
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

fn log(dir: &TempDir, name: &str) -> String {
    std::fs::read_to_string(dir.0.join(format!("{name}.log"))).unwrap_or_default()
}

fn path(p: &Path) -> &str {
    p.to_str().expect("utf-8 temp path")
}

#[test]
fn two_workers_give_the_embedded_result() {
    let dir = TempDir::new("two");
    let ct = dir.file("client.token", "client-secret\n");
    let wt = dir.file("worker.token", "worker-secret\n");
    let (_serve, url) =
        serve(&dir, &["--client-token-file", path(&ct), "--worker-token-file", path(&wt)]);
    let _w1 = work(&dir, "w1", &url, &["--token-file", path(&wt)]);
    let _w2 = work(&dir, "w2", &url, &["--token-file", path(&wt)]);
    let args = rollout_args("144");
    let embedded = json(&run(&with(args.clone(), &["--threads", "1"])));
    let remote = json(&run(&with(args, &["--coordinator", &url, "--token-file", path(&ct)])));
    assert_eq!(remote, embedded);
    assert_eq!(remote["candidates"][0]["trials"], 144);
    // The job is listed as done.
    let list = run(&["jobs", "list", "--json", "--coordinator", &url, "--token-file", path(&ct)].map(String::from));
    assert!(String::from_utf8_lossy(&list.stdout).contains("\"state\":\"done\""), "{list:?}");
}

#[test]
fn a_killed_worker_does_not_change_the_result() {
    let dir = TempDir::new("kill");
    let (_serve, url) = serve(&dir, &["--lease-timeout", "2"]);
    let mut victim = work(&dir, "victim", &url, &[]);
    let args = rollout_args("720");
    let client = Command::new(BIN)
        .args(with(args.clone(), &["--coordinator", &url]))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start remote rollout");
    let client = Proc(client);
    // Kill the only worker once it has handed in a batch: it holds the next one.
    let t = Instant::now();
    loop {
        let out = run(&["jobs", "list", "--json", "--coordinator", &url].map(String::from));
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        if text.contains("\"batches_done\":") && !text.contains("\"batches_done\":0") {
            assert!(!text.contains("\"state\":\"done\""), "the job finished before the kill: {text}");
            break;
        }
        assert!(t.elapsed() < Duration::from_secs(60), "no progress: {text}\n{}", log(&dir, "victim"));
        std::thread::sleep(Duration::from_millis(50));
    }
    victim.0.kill().expect("SIGKILL the worker");
    let _ = victim.0.wait();
    let _rescuer = work(&dir, "rescuer", &url, &[]);
    let mut client = client;
    let out = std::mem::replace(&mut client.0, Command::new("true").spawn().expect("placeholder"))
        .wait_with_output()
        .expect("remote rollout");
    let remote = json(&out);
    let embedded = json(&run(&with(args, &["--threads", "1"])));
    assert_eq!(remote, embedded);
    assert!(log(&dir, "serve").contains("lease expired"), "{}", log(&dir, "serve"));
}

#[test]
fn wrong_tokens_are_refused() {
    let dir = TempDir::new("tokens");
    let ct = dir.file("client.token", "client-secret\n");
    let wt = dir.file("worker.token", "worker-secret\n");
    let bad = dir.file("bad.token", "guess\n");
    let (_serve, url) =
        serve(&dir, &["--client-token-file", path(&ct), "--worker-token-file", path(&wt)]);
    // A worker with a wrong token stops at once with exit code 2.
    let out = run(&["work", "--coordinator", &url, "--threads", "1", "--token-file", path(&bad)].map(String::from));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("token"), "{out:?}");
    // The client token does not open the worker service, nor the reverse.
    let out = run(&["work", "--coordinator", &url, "--threads", "1", "--token-file", path(&ct)].map(String::from));
    assert_eq!(out.status.code(), Some(2));
    for token in [None, Some(&bad), Some(&wt)] {
        let mut args = with(rollout_args("36"), &["--coordinator", &url]);
        if let Some(t) = token {
            args = with(args, &["--token-file", path(t)]);
        }
        let out = run(&args);
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("token") && err.contains("Unauthenticated"), "{err}");
    }
}
