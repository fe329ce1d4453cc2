//! Starting a cluster in a test: `bgfarm serve` and `bgfarm work` as real
//! processes on 127.0.0.1 port 0, each with its log in a temporary directory, all
//! killed and removed on drop; and plain HTTP/1.1 requests to the coordinator's
//! HTTP port. Used by tests/cluster.rs and tests/web_page.rs.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

pub const BIN: &str = env!("CARGO_BIN_EXE_bgfarm");

/// A temporary directory, removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(name: &str) -> TempDir {
        let d = std::env::temp_dir().join(format!("bgfarm-cluster-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).expect("temp dir");
        TempDir(d)
    }

    pub fn file(&self, name: &str, text: &str) -> PathBuf {
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
pub struct Proc(Option<Child>);

impl Proc {
    pub fn new(child: Child) -> Proc {
        Proc(Some(child))
    }

    pub fn child(&mut self) -> &mut Child {
        self.0.as_mut().expect("a running child")
    }

    /// Waits for the process to end and returns its output.
    pub fn output(mut self) -> Output {
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

/// A running coordinator: its process, gRPC URL and metrics address (when
/// started with `--metrics-listen`).
pub struct Coordinator {
    pub proc: Proc,
    pub url: String,
    pub metrics: Option<String>,
}

/// Starts `bgfarm serve` on port 0; returns it and its URL. Its log goes to
/// `dir/serve.log`.
pub fn serve(dir: &TempDir, extra: &[&str]) -> (Proc, String) {
    let c = serve_on(dir, "127.0.0.1:0", "serve", extra);
    (c.proc, c.url)
}

/// Starts `bgfarm serve --listen listen` on `dir/data`, logging to `dir/<log>.log`.
pub fn serve_on(dir: &TempDir, listen: &str, log: &str, extra: &[&str]) -> Coordinator {
    serve_with_data(dir, &dir.0.join("data"), listen, log, extra)
}

/// [`serve_on`] with the web page: HTTP on a port of its own (`--metrics-listen`)
/// behind the client token `token` (written to `dir/client.token`), plus `extra`.
/// Returns the coordinator and the page's address.
pub fn serve_page(dir: &TempDir, token: &str, extra: &[&str]) -> (Coordinator, String) {
    let file = dir.file("client.token", &format!("{token}\n"));
    let file = file.to_str().expect("utf-8 path");
    let mut args = vec![
        "--metrics-listen",
        "127.0.0.1:0",
        "--client-token-file",
        file,
    ];
    args.extend_from_slice(extra);
    let c = serve_on(dir, "127.0.0.1:0", "serve", &args);
    let addr = c.metrics.clone().expect("the HTTP address");
    (c, addr)
}

/// [`serve_on`] with the store in `data`.
pub fn serve_with_data(
    dir: &TempDir,
    data: &Path,
    listen: &str,
    log: &str,
    extra: &[&str],
) -> Coordinator {
    let log = std::fs::File::create(dir.0.join(format!("{log}.log"))).expect("log file");
    let mut child = Command::new(BIN)
        .args(["serve", "--listen", listen, "--data"])
        .arg(data)
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(log)
        .spawn()
        .expect("start serve");
    let stdout = child.stdout.take().expect("stdout");
    let mut lines = BufReader::new(stdout).lines();
    let mut line = || lines.next().and_then(Result::ok).unwrap_or_default();
    let first = line();
    let addr = first
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("serve printed {first:?}"));
    let url = format!("http://{addr}");
    let metrics = extra.contains(&"--metrics-listen").then(|| {
        let l = line();
        l.trim()
            .strip_prefix("metrics on ")
            .unwrap_or_else(|| panic!("serve printed {l:?}"))
            .to_string()
    });
    Coordinator {
        proc: Proc::new(child),
        url,
        metrics,
    }
}

/// An HTTP answer: status code, header lines and body.
pub struct HttpReply {
    pub code: u16,
    pub head: String,
    pub body: String,
}

/// `method path` over plain HTTP/1.1 with `headers` (`Name: value` lines) and
/// `body`.
pub fn http(addr: &str, method: &str, path: &str, headers: &[&str], body: &str) -> HttpReply {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(addr).expect("connect to the HTTP port");
    s.set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    let mut req = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for h in headers {
        req.push_str(&format!("{h}\r\n"));
    }
    req.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    s.write_all(req.as_bytes()).expect("send request");
    let mut text = String::new();
    s.read_to_string(&mut text).expect("read response");
    let code = text
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    HttpReply {
        code,
        head: head.to_string(),
        body: body.to_string(),
    }
}

/// `GET path` over plain HTTP/1.1: (status code, body).
pub fn http_get(addr: &str, path: &str) -> (u16, String) {
    let r = http(addr, "GET", path, &[], "");
    (r.code, r.body)
}

/// The value of the unlabelled sample `name` in a Prometheus exposition.
pub fn metric(text: &str, name: &str) -> Option<f64> {
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
}

/// Starts `bgfarm work` with one thread; its log goes to `dir/<name>.log`.
pub fn work(dir: &TempDir, name: &str, url: &str, extra: &[&str]) -> Proc {
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

/// The log of process `name` in `dir`.
pub fn log(dir: &TempDir, name: &str) -> String {
    std::fs::read_to_string(dir.0.join(format!("{name}.log"))).unwrap_or_default()
}

/// Waits until the coordinator at `url` has stored a batch of its job, checking
/// the job is not done yet: the moment a fault test kills a process mid-job.
/// Gives up after 60 s with the log of `who`.
pub fn wait_mid_job(url: &str, dir: &TempDir, who: &str) {
    let t = std::time::Instant::now();
    loop {
        let out = run(&["jobs", "list", "--json", "--coordinator", url].map(String::from));
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        if text.contains("\"batches_done\":") && !text.contains("\"batches_done\":0") {
            assert!(
                !text.contains("\"state\":\"done\""),
                "the job finished before the kill: {text}"
            );
            return;
        }
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "no progress: {text}\n{}",
            log(dir, who)
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A small rollout of three moves, as JSON (seed 3, truncated at 6 plies, batches
/// of 36 trials).
pub fn rollout_args(trials: &str) -> Vec<String> {
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

/// Starts bgfarm with its output captured; [`Proc::output`] collects it. Each
/// process spends ~2 CPU-seconds building the bear-off tables, so tests start
/// independent processes together.
pub fn spawn<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Proc {
    let child = Command::new(BIN)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start bgfarm");
    Proc::new(child)
}

/// The one JSON object a finished command printed (it must have succeeded).
pub fn output_json(out: &Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

/// `args` and then `extra`.
pub fn with(mut args: Vec<String>, extra: &[&str]) -> Vec<String> {
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

/// Runs `bgfarm` with `args` to the end.
pub fn run(args: &[String]) -> Output {
    Command::new(BIN).args(args).output().expect("run bgfarm")
}

/// A temporary path as a command-line argument.
pub fn path(p: &Path) -> &str {
    p.to_str().expect("utf-8 temp path")
}
