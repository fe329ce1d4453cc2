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
struct Proc(Option<Child>);

impl Proc {
    fn new(child: Child) -> Proc {
        Proc(Some(child))
    }

    fn child(&mut self) -> &mut Child {
        self.0.as_mut().expect("a running child")
    }

    /// Waits for the process to end and returns its output.
    fn output(mut self) -> Output {
        self.0
            .take()
            .expect("a running child")
            .wait_with_output()
            .expect("child output")
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        if let Some(c) = &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
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
    BufReader::new(stdout)
        .read_line(&mut line)
        .expect("read address");
    let addr = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("serve printed {line:?}"));
    let url = format!("http://{addr}");
    (Proc::new(child), url)
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
    Proc::new(child)
}

fn rollout_args(trials: &str) -> Vec<String> {
    [
        "rollout",
        "4HPwATDgc/ABMA",
        "--dice",
        "31",
        "--moves",
        "top:3",
        "--trials",
        trials,
        "--truncate",
        "6",
        "--seed",
        "3",
        "--batch",
        "36",
        "--json",
    ]
    .map(String::from)
    .to_vec()
}

fn run(args: &[String]) -> Output {
    Command::new(BIN).args(args).output().expect("run bgfarm")
}

/// Starts bgfarm with its output captured; [`Proc::output`] collects it. Each
/// process spends ~2 CPU-seconds building the bear-off tables, so tests start
/// independent processes together.
fn spawn(args: &[String]) -> Proc {
    let child = Command::new(BIN)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start bgfarm");
    Proc::new(child)
}

fn json(out: &Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
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
    let (embedded, remote) = (json(&embedded.output()), json(&remote.output()));
    assert_eq!(remote, embedded);
    assert_eq!(remote["candidates"][0]["trials"], 144);
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
    let t = Instant::now();
    loop {
        let out = run(&["jobs", "list", "--json", "--coordinator", &url].map(String::from));
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        if text.contains("\"batches_done\":") && !text.contains("\"batches_done\":0") {
            assert!(
                !text.contains("\"state\":\"done\""),
                "the job finished before the kill: {text}"
            );
            break;
        }
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "no progress: {text}\n{}",
            log(&dir, "victim")
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    victim.child().kill().expect("SIGKILL the worker");
    let _ = victim.child().wait();
    let _rescuer = work(&dir, "rescuer", &url, &[]);
    let remote = json(&client.output());
    assert_eq!(remote, json(&embedded.output()));
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
