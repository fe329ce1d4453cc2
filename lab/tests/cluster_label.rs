//! `bgfarm-lab train label --coordinator`: label jobs on a real coordinator (a
//! sled store on disk, gRPC over 127.0.0.1 port 0) with a real worker, both run
//! in this test process on their own runtime; the labels must be the bytes the
//! in-process run writes, also when the output was started by an earlier run.

mod common;

use common::{fails, ok as succeeds};
use std::path::{Path, PathBuf};
use tokio::sync::watch;

/// A temporary directory, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let d = std::env::temp_dir().join(format!("bgfarm-lab-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).expect("temp dir");
        TempDir(d)
    }

    fn path(&self, name: &str) -> String {
        self.0.join(name).to_string_lossy().into_owned()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A coordinator and a two-thread worker on a runtime of their own; dropping it
/// stops both.
struct Cluster {
    url: String,
    runtime: Option<tokio::runtime::Runtime>,
    _stop: watch::Sender<u8>,
}

impl Cluster {
    fn start(data: &Path) -> Cluster {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime");
        let (stop, rx) = watch::channel(0u8);
        let store = bgfarm_storage::Store::open(data).expect("store");
        let url = runtime.block_on(async {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                .await
                .expect("bind");
            let url = format!("http://{}", listener.local_addr().expect("address"));
            let mut done = rx.clone();
            tokio::spawn(bgfarm_coordinator::serve(
                listener,
                None,
                store,
                bgfarm_coordinator::Config::default(),
                async move {
                    let _ = done.changed().await;
                },
            ));
            let cfg = bgfarm_worker::WorkerConfig {
                coordinator: url.clone(),
                token: None,
                threads: 2,
                tls_ca: None,
            };
            tokio::spawn(bgfarm_worker::run(cfg, rx));
            url
        });
        Cluster {
            url,
            runtime: Some(runtime),
            _stop: stop,
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        if let Some(rt) = self.runtime.take() {
            rt.shutdown_background();
        }
    }
}

/// Labels the first `limit` positions of `positions` into `out` with `how` (the
/// method and nets) and `more` (where), which must succeed; returns its output.
fn label(positions: &str, out: &str, limit: &str, how: &[&str], more: &[&str]) -> String {
    let args = [
        "train",
        "label",
        "--positions",
        positions,
        "--out",
        out,
        "--limit",
        limit,
    ];
    succeeds(&[&args[..], how, more].concat())
}

fn read(path: &str) -> String {
    std::fs::read_to_string(path).expect("labels written")
}

#[test]
fn cluster_labels_are_the_in_process_labels_bit_for_bit() {
    let dir = TempDir::new("cluster-label");
    let cluster = Cluster::start(&dir.0.join("data"));
    let url = cluster.url.as_str();
    let positions = dir.path("positions.txt");
    succeeds(&[
        "train",
        "positions",
        "--games",
        "2",
        "--seed",
        "7",
        "--out",
        &positions,
    ]);
    let n = read(&positions).lines().count();
    assert!(n >= 60, "{n} positions");

    // 1-ply searches: in-process, then on the cluster in jobs of 25 and batches of
    // 7 positions, the second run resuming after the first's 30 labels.
    let local = dir.path("local.txt");
    let ply1 = ["--ply", "1"];
    label(&positions, &local, "60", &ply1, &["--threads", "2"]);
    let remote = dir.path("remote.txt");
    let cluster_jobs = ["--coordinator", url, "--job-size", "25", "--batch", "7"];
    let said = label(&positions, &remote, "30", &ply1, &cluster_jobs);
    assert!(
        said.contains(&format!("30 positions labelled at 1-ply on {url}")),
        "{said}"
    );
    label(&positions, &remote, "30", &ply1, &cluster_jobs);
    assert_eq!(read(&remote), read(&local));

    // Rollout labels carry their seed to the workers.
    let local = dir.path("local-rollout.txt");
    let remote = dir.path("remote-rollout.txt");
    let rollout = ["--rollout", "36", "--seed", "5"];
    label(&positions, &local, "12", &rollout, &[]);
    label(&positions, &remote, "12", &rollout, &["--coordinator", url]);
    assert_eq!(read(&remote), read(&local));
    assert_eq!(read(&local).lines().count(), 12);

    // Nets of a bundle travel with the jobs: the workers label with them.
    let bundle = dir.path("fast.safetensors");
    std::fs::write(&bundle, bgfarm_engine::eval::default_nets::BYTES).expect("bundle");
    let local = dir.path("local-bundle.txt");
    let remote = dir.path("remote-bundle.txt");
    let own = ["--ply", "1", "--net", &bundle];
    label(&positions, &local, "20", &own, &["--threads", "2"]);
    label(
        &positions,
        &remote,
        "20",
        &own,
        &["--coordinator", url, "--batch", "8"],
    );
    assert_eq!(read(&remote), read(&local));
    let default_nets: Vec<String> = read(&dir.path("local.txt"))
        .lines()
        .take(20)
        .map(String::from)
        .collect();
    let bundle_nets: Vec<String> = read(&local).lines().map(String::from).collect();
    assert_ne!(
        bundle_nets, default_nets,
        "the bundle's nets label otherwise"
    );
    // So do named nets: `fast` is sent as the bundle of its nets.
    let local = dir.path("local-fast.txt");
    let remote = dir.path("remote-fast.txt");
    let fast = ["--ply", "1", "--net", "fast"];
    label(&positions, &local, "20", &fast, &[]);
    label(&positions, &remote, "20", &fast, &["--coordinator", url]);
    assert_eq!(read(&remote), read(&local));
    assert_eq!(read(&local), read(&dir.path("local-bundle.txt")));

    // What workers cannot do is refused before anything is submitted.
    let other = dir.path("other.txt");
    let refused = |more: &[&str], needle: &str| {
        let args = ["train", "label", "--positions", &positions, "--out", &other];
        fails(&[&args[..], more, &["--coordinator", url]].concat(), needle);
    };
    refused(&["--ply", "0", "--exact-race", "100"], "in-process only");
    refused(&["--job-size", "50001"], "--job-size");
    refused(&["--net", &positions], "positions.txt");
    assert!(!Path::new(&other).exists() || read(&other).is_empty());
}
