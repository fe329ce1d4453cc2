//! A coordinator whose store's disk fills: the failed flush turns `/healthz` to 503
//! with a clear log line, no result is acknowledged (nor shown to the client) that
//! is not on disk, and once there is space again a restart on the same data goes
//! on: the client re-attaches and gets the embedded run's result.
//!
//! Needs root (a 16 MiB tmpfs is mounted); elsewhere it says so and passes.

mod common;

use common::cluster::{
    http_get, log, output_json, rollout_args, serve_with_data, spawn, with, work, TempDir,
};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// A mounted tmpfs, unmounted on drop.
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(at: &Path) -> Option<Tmpfs> {
        std::fs::create_dir_all(at).ok()?;
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=16m", "tmpfs"])
            .arg(at)
            .output()
            .is_ok_and(|o| o.status.success());
        ok.then(|| Tmpfs(at.to_path_buf()))
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

/// Fills the filesystem of `dir` with one file, `dir/filler`.
fn fill(dir: &Path) -> PathBuf {
    let filler = dir.join("filler");
    let mut f = std::fs::File::create(&filler).expect("filler");
    let block = vec![0u8; 64 * 1024];
    use std::io::Write;
    while f.write_all(&block).is_ok() {}
    let _ = f.sync_all();
    filler
}

fn wait_for(what: &str, mut ok: impl FnMut() -> bool) {
    let t = Instant::now();
    while !ok() {
        assert!(t.elapsed() < Duration::from_secs(60), "{what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn a_full_disk_refuses_results_and_a_restart_goes_on() {
    let dir = TempDir::new("full-disk");
    let Some(fs) = Tmpfs::mount(&dir.0.join("fs")) else {
        eprintln!("full_disk: cannot mount a tmpfs here (needs root): skipped");
        return;
    };
    // The store on the small filesystem: `serve_on` puts it in DIR/data.
    let data_dir = fs.0.clone();
    let extra = ["--metrics-listen", "127.0.0.1:0"];
    let first = serve_with_data(&dir, &data_dir, "127.0.0.1:0", "serve", &extra);
    let listen = first.url.trim_start_matches("http://").to_string();
    let page = first.metrics.clone().expect("metrics address");
    let mut first_proc = first.proc;
    // One batch of 144 trials: its result, refused once, must not be taken on the
    // worker's retry (it reads back from the store's memory as the same).
    let mut args = rollout_args("144");
    if let Some(i) = args.iter().position(|a| a == "--batch") {
        args[i + 1] = "144".into();
    }
    let embedded = spawn(&with(args.clone(), &["--threads", "1"]));
    let mut client = spawn(&with(args, &["--coordinator", &first.url]));
    std::thread::sleep(Duration::from_millis(500));
    let filler = fill(&fs.0);
    let _worker = work(&dir, "w", &first.url, &[]);
    wait_for("healthz 503 after the failed flush", || {
        http_get(&page, "/healthz").0 == 503
    });
    let text = log(&dir, "serve");
    assert!(text.contains("store flush failed"), "{text}");
    // Nothing not on disk reaches the client: it is still waiting.
    std::thread::sleep(Duration::from_secs(3));
    assert!(
        client.child().try_wait().expect("client").is_none(),
        "the client got a result the store does not hold: {}",
        log(&dir, "serve")
    );
    first_proc.child().kill().expect("SIGKILL the coordinator");
    let _ = first_proc.child().wait();
    std::fs::remove_file(&filler).expect("make room");
    // The same data and port: the client and the worker find it again.
    let _second = serve_with_data(&dir, &data_dir, &listen, "serve2", &[]);
    assert_eq!(
        output_json(&client.output()),
        output_json(&embedded.output())
    );
}
