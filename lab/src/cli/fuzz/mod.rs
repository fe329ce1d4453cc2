//! `bgfarm-lab fuzz [--inputs N] [--seed S] [--target T,...] [--limit-ms MS]`: throws
//! generated and mutated inputs at every parser of outside input and at the
//! coordinator's gRPC requests (as raw protobuf bytes), and counts panics and hangs.
//!
//! Each input runs under `catch_unwind`; a panic is a bug (the parsers must answer
//! every input with a value or an error), and so is an input that runs longer
//! than `--limit-ms` (a watchdog thread stops the run and names it). Inputs are
//! named by (seed, target, index), so `--replay I` prints input I of a target
//! again. `scripts/fuzz.sh N` runs N inputs per target; the tests run 10^4.

mod grpc;
mod mutate;
mod parsers;

use crate::cli::CliError;
use mutate::Mutator;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[derive(clap::Args)]
pub struct Args {
    /// Inputs per target.
    #[arg(long, default_value_t = 10_000)]
    pub inputs: u64,
    /// Seed of the inputs (the same seed, target and index give the same input).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Only these targets, comma-separated (default: all; `--target list` names them).
    #[arg(long, value_delimiter = ',')]
    pub target: Vec<String>,
    /// An input running longer than this many milliseconds is a hang.
    #[arg(long, default_value_t = 1000)]
    pub limit_ms: u64,
    /// Print input I of the one `--target` (as Rust byte-string escapes) instead of
    /// running: how a reported panic or hang is reproduced.
    #[arg(long, value_name = "I")]
    pub replay: Option<u64>,
}

/// What a target runs each input through.
enum Run {
    Parse(fn(&[u8]) -> bool),
    /// The worker requests, sent to a [`grpc::Cluster`] rebuilt every
    /// [`CLUSTER_INPUTS`] inputs and after a panic.
    Worker,
}

struct Target {
    name: &'static str,
    seeds: Vec<Vec<u8>>,
    dict: Vec<&'static [u8]>,
    run: Run,
}

/// Worker requests per coordinator: bounds what random registrations and leases
/// pile up in one.
const CLUSTER_INPUTS: u64 = 20_000;

fn bytes(items: &[&str]) -> Vec<Vec<u8>> {
    items.iter().map(|s| s.as_bytes().to_vec()).collect()
}

fn targets() -> Vec<Target> {
    let position_ids = [
        "4HPwATDgc/ABMA",
        "sGfwATDgc/ABMA",
        "AAAAbdsGAOAAAA",
        "2+4OAADb9gAAAA",
        "mwEAQNt2KgAIAA",
        "unoAAMBubhgEAA",
        "sM/BATBmzsIBMA",
        "/xmAoAQBIPjNEw",
    ];
    let moves: Vec<Vec<u8>> = [
        "24/23 24/21",
        "8/5 6/5",
        "24/21 13/12",
        "bar/22*",
        "bar/24 6/5",
        "6/off(2)",
        "13/7(4)",
        "24/18(2) 13/7(2)",
        "6/1*/off",
    ]
    .iter()
    .enumerate()
    .map(|(i, m)| {
        let mut v = vec![i as u8];
        v.extend_from_slice(m.as_bytes());
        v
    })
    .collect();
    vec![
        Target {
            name: "position-id",
            seeds: bytes(&position_ids),
            dict: vec![b"A", b"/", b"+", b"AAAA", b"====", b":"],
            run: Run::Parse(parsers::position_id),
        },
        Target {
            name: "match-id",
            seeds: bytes(&["cAkAAAAAAAAA", "cAmgAAAAAAAA", "UQkGAAAAAAAA", "cIkWAAAAAAAA"]),
            dict: vec![b"A", b"/", b"+", b"AAAA"],
            run: Run::Parse(parsers::match_id),
        },
        Target {
            name: "xgid",
            seeds: bytes(&[
                "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10",
                "XGID=-b----E-C---eE---c-e----B-:1:1:-1:00:2:3:0:7:10",
                "XGID=aa--BBBB----------------bb:0:0:1:66:0:0:3:0:10",
            ]),
            dict: vec![b"XGID=", b":", b"-", b"B", b"b", b"99", b"-1"],
            run: Run::Parse(parsers::xgid),
        },
        Target {
            name: "dice",
            seeds: bytes(&["31", "3-1", "3,1", "6 6", "55", "1-2"]),
            dict: vec![b"-", b",", b" ", b"7", b"0"],
            run: Run::Parse(parsers::dice),
        },
        Target {
            name: "move",
            seeds: moves,
            dict: vec![b"/", b"*", b"bar", b"off", b"(2)", b" ", b"25", b"0"],
            run: Run::Parse(parsers::chequer_move),
        },
        Target {
            name: "met-xml",
            seeds: vec![parsers::MET_SAMPLE.as_bytes().to_vec()],
            dict: vec![
                b"<row>", b"</row>", b"<me>", b"</me>", b"<met>", b"</met>", b"<!--", b"-->",
                b"&amp;", b"&#", b"<length>", b"1e308", b"NaN", b"-0.5",
            ],
            run: Run::Parse(parsers::met_xml),
        },
        Target {
            name: "fibs-board",
            seeds: bytes(&[
                "board:gnubg:root:0:0:0:0:-1:-1:0:0:0:5:0:3:0:0:0:-4:5:0:0:-1:-3:0:-5:0:0:0:0:2:0:1:0:0:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1",
                "board:gnubg:root:0:0:0:0:-1:-1:0:0:0:5:0:3:0:0:0:-4:5:0:0:-1:-3:0:-5:0:0:0:0:2:0:1:5:6:5:6:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1",
                "board:You:Opp:7:2:3:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:6:4:0:0:2:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0",
            ]),
            dict: vec![b":", b"-", b"25", b"0", b"board:", b"-15", b"99999999999"],
            run: Run::Parse(parsers::fibs_board),
        },
        Target {
            name: "sgf",
            seeds: vec![parsers::SGF_SAMPLE.as_bytes().to_vec()],
            dict: vec![
                b";B[", b";W[", b"]", b"(", b")", b"RE[W+2R]", b"MI[length:5]", b"[double]",
                b"[take]", b"[drop]", b"bar", b"\\]", b"PL[", b"999999999",
            ],
            run: Run::Parse(parsers::sgf),
        },
        Target {
            name: "mat",
            seeds: parsers::MAT_SAMPLES
                .iter()
                .map(|s| s.as_bytes().to_vec())
                .collect(),
            dict: vec![
                b" point match", b"Game ", b": ", b"Doubles => 2", b"Takes", b"Drops",
                b"Wins 1 point", b"bar/", b"/off", b"*", b"\n", b"999999999", b"Crawford",
            ],
            run: Run::Parse(parsers::mat),
        },
        Target {
            name: "job-spec",
            seeds: grpc::spec_seeds(),
            dict: vec![b"\x00", b"\xff\xff\xff\xff\x0f", b"\x08\x01", b"\x0a\x00", b"\x10\x80\x80\x80\x80\x10"],
            run: Run::Parse(grpc::job_spec),
        },
        Target {
            name: "worker-request",
            seeds: grpc::worker_seeds(),
            dict: vec![b"\x00", b"\xff\xff\xff\xff\x0f", b"\x08\x01", b"\x12\x00", b"\x18\x80\x80\x04"],
            run: Run::Worker,
        },
    ]
}

/// One target's figures.
#[derive(Default)]
struct Tally {
    inputs: u64,
    accepted: u64,
    panics: Vec<(u64, String)>,
    slowest: Duration,
    seconds: f64,
}

/// What the watchdog reads: when the current input started (ns since `base`,
/// `u64::MAX` between inputs), its index and target.
struct Current {
    base: Instant,
    started: AtomicU64,
    index: AtomicU64,
    target: Mutex<&'static str>,
}

fn watchdog(current: Arc<Current>, limit: Duration, seed: u64) {
    std::thread::spawn(move || loop {
        std::thread::sleep(Duration::from_millis(50));
        let started = current.started.load(Ordering::Acquire);
        if started == u64::MAX {
            continue;
        }
        let ran = current
            .base
            .elapsed()
            .saturating_sub(Duration::from_nanos(started));
        if ran > limit {
            let target = current.target.lock().map(|t| *t).unwrap_or("?");
            let i = current.index.load(Ordering::Acquire);
            eprintln!(
                "hang: {target} input {i} (seed {seed}) ran over {} ms; see it with \
                 `bgfarm-lab fuzz --target {target} --seed {seed} --replay {i}`",
                limit.as_millis()
            );
            std::process::exit(1);
        }
    });
}

pub fn run(args: Args) -> Result<(), CliError> {
    if args.limit_ms == 0 {
        return Err(CliError::msg("--limit-ms must be at least 1"));
    }
    let all = targets();
    if args.target.iter().any(|t| t == "list") {
        for t in &all {
            println!("{}", t.name);
        }
        return Ok(());
    }
    for t in &args.target {
        if !all.iter().any(|x| x.name == t) {
            let names: Vec<&str> = all.iter().map(|x| x.name).collect();
            return Err(CliError::msg(format!(
                "unknown target {t:?}: use {}",
                names.join(", ")
            )));
        }
    }
    let chosen: Vec<&Target> = all
        .iter()
        .filter(|t| args.target.is_empty() || args.target.iter().any(|n| n == t.name))
        .collect();
    if let Some(i) = args.replay {
        let [t] = chosen[..] else {
            return Err(CliError::msg("--replay needs exactly one --target"));
        };
        let mut m = Mutator::new(&t.seeds, &t.dict, stream(args.seed, t.name));
        let mut input = Vec::new();
        for _ in 0..=i {
            input = m.input();
        }
        println!("b\"{}\"", input.escape_ascii());
        return Ok(());
    }
    let current = Arc::new(Current {
        base: Instant::now(),
        started: AtomicU64::new(u64::MAX),
        index: AtomicU64::new(0),
        target: Mutex::new(""),
    });
    watchdog(
        current.clone(),
        Duration::from_millis(args.limit_ms),
        args.seed,
    );
    // Panics are counted, not printed as they happen.
    let default_hook = std::panic::take_hook();
    let last_panic = Arc::new(Mutex::new(String::new()));
    let record = last_panic.clone();
    std::panic::set_hook(Box::new(move |info| {
        if let Ok(mut p) = record.lock() {
            *p = info.to_string();
        }
    }));
    println!(
        "{:<15} {:>10} {:>9} {:>7} {:>11} {:>10}",
        "target", "inputs", "accepted", "panics", "slowest ms", "inputs/s"
    );
    let mut failed = false;
    for t in chosen {
        let tally = fuzz(t, &args, &current, &last_panic)?;
        println!(
            "{:<15} {:>10} {:>8.1}% {:>7} {:>11.1} {:>10.0}",
            t.name,
            tally.inputs,
            100.0 * tally.accepted as f64 / tally.inputs.max(1) as f64,
            tally.panics.len(),
            tally.slowest.as_secs_f64() * 1000.0,
            tally.inputs as f64 / tally.seconds.max(1e-9),
        );
        for (i, msg) in tally.panics.iter().take(5) {
            failed = true;
            println!(
                "  panic at input {i} (`--target {} --seed {} --replay {i}`): {msg}",
                t.name, args.seed
            );
        }
        failed |= !tally.panics.is_empty();
    }
    std::panic::set_hook(default_hook);
    if failed {
        std::process::exit(1);
    }
    Ok(())
}

/// The mutator's seed for a target: the run's seed and the target's name.
fn stream(seed: u64, name: &str) -> u64 {
    name.bytes().fold(seed ^ 0xCBF2_9CE4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01B3)
    })
}

fn fuzz(
    t: &Target,
    args: &Args,
    current: &Current,
    last_panic: &Mutex<String>,
) -> Result<Tally, CliError> {
    let mut tally = Tally::default();
    let mut m = Mutator::new(&t.seeds, &t.dict, stream(args.seed, t.name));
    if let Ok(mut name) = current.target.lock() {
        *name = t.name;
    }
    let mut cluster: Option<grpc::Cluster> = None;
    let start = Instant::now();
    for i in 0..args.inputs {
        let input = m.input();
        if matches!(t.run, Run::Worker) && (cluster.is_none() || i % CLUSTER_INPUTS == 0) {
            // The old one's directory goes before the next is made.
            drop(cluster.take());
            cluster = Some(grpc::Cluster::new(i).map_err(CliError::msg)?);
        }
        current.index.store(i, Ordering::Release);
        let began = Instant::now();
        current
            .started
            .store(current.base.elapsed().as_nanos() as u64, Ordering::Release);
        let outcome = catch_unwind(AssertUnwindSafe(|| match &t.run {
            Run::Parse(f) => f(&input),
            Run::Worker => cluster.as_ref().is_some_and(|c| c.send(&input)),
        }));
        current.started.store(u64::MAX, Ordering::Release);
        tally.slowest = tally.slowest.max(began.elapsed());
        tally.inputs += 1;
        match outcome {
            Ok(accepted) => tally.accepted += u64::from(accepted),
            Err(_) => {
                let msg = last_panic.lock().map(|p| p.clone()).unwrap_or_default();
                tally.panics.push((i, msg));
                // A panic may leave the coordinator's locks poisoned: start afresh.
                cluster = None;
            }
        }
    }
    tally.seconds = start.elapsed().as_secs_f64();
    Ok(tally)
}
