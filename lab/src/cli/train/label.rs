//! `bgfarm-lab train label`: labels of positions by an n-ply search or by
//! rollouts, resumable, in-process or on a coordinator's workers
//! (`--coordinator`, a `label` job per `--job-size` positions). Both run the
//! engine's [`Labeller`], so a position's label is the same bits either way.

use super::files::{io_err, read_positions};
use super::label_remote::RemoteLabeller;
use super::threads::pool;
use super::which_nets::Nets;
use crate::cli::nets::load_training_evaluator as load_evaluator;
use crate::cli::CliError;
use bgfarm_client::{Access, RemoteArgs};
use bgfarm_engine::eval::net::format::save_bundle;
use bgfarm_engine::eval::net::OUTPUTS;
use bgfarm_engine::eval::neural::NeuralEvaluator;
use bgfarm_engine::label::{
    check_nets, LabelMethod, LabelPlanError, Labeller, LABEL_CACHE_MIB, MAX_LABEL_PLY,
    MAX_LABEL_POSITIONS, MAX_LABEL_TRIALS,
};
use bgfarm_engine::search::{EvalCache, Pruning};
use bgfarm_engine::Position;
use bgfarm_lab::train::dataset::{format_sample, parse_sample, Sample};
use rayon::prelude::*;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(clap::Args)]
pub struct LabelArgs {
    /// Position IDs, one per line (as `bgfarm-lab train positions` writes them).
    #[arg(long)]
    pub positions: PathBuf,
    /// Labelled output; if it exists, labelling resumes after its last whole line.
    #[arg(long)]
    pub out: PathBuf,
    /// Search depth of the labels (GNU Backgammon's numbering; 0 = the nets).
    #[arg(long, default_value_t = 2)]
    pub ply: u8,
    /// Label by a rollout of this many trials instead of a search (0-ply play,
    /// variance reduction, stopped at the exact bear-off tables; 72 trials label a
    /// self-play race in ~15 ms on one core). A rollout labels what happens when
    /// the game is played out, so it can teach the nets what their search cannot
    /// (gammons and backgammons in races).
    #[arg(long, conflicts_with_all = ["ply", "prune"], value_parser = clap::value_parser!(u64).range(1..=46_656))]
    pub rollout: Option<u64>,
    /// Dice seed of the rollout labels (each position's trials are also keyed by the
    /// position, so different positions see different dice).
    #[arg(long, default_value_t = 1, requires = "rollout")]
    pub seed: u64,
    /// Nets to search with; with --coordinator any but `default` travel to the
    /// workers with each job.
    #[arg(long, default_value = "default")]
    pub net: String,
    /// Reply pruning inside the search (0 = none); see `bgfarm hint --help`.
    #[arg(long, default_value_t = Pruning::DEFAULT.keep)]
    pub prune: u8,
    /// With `--ply 0`: gammon chances of races from the exact search (see `bgfarm
    /// hint --help`) where it decides them within N positions; the other outputs
    /// stay the nets'. Labels that teach the race net what only a search of the
    /// saver's plays knows.
    #[arg(long, value_name = "N", conflicts_with = "rollout")]
    pub exact_gammons: Option<usize>,
    /// With `--ply 0`: win and gammon chances of races from the exact one-sided
    /// searches (see `bgfarm hint --help`) for sides that could reach at most N
    /// positions.
    #[arg(long, value_name = "N", conflicts_with = "rollout")]
    pub exact_race: Option<u64>,
    /// Label at most this many positions in this run.
    #[arg(long)]
    pub limit: Option<usize>,
    /// Label only the positions one net answers (the others are skipped, as if not
    /// in the file): a race net's labels without searching the contact positions.
    #[arg(long, value_enum, default_value_t = Nets::Both)]
    pub class: Nets,
    #[arg(long)]
    pub threads: Option<usize>,
    #[command(flatten)]
    pub remote: RemoteArgs,
    /// With --coordinator: positions per batch, the work of one worker thread
    /// per lease (256 positions at 2-ply: about half a second of a core; much
    /// smaller batches leave threads waiting on the coordinator).
    #[arg(long, default_value_t = 256, requires = "coordinator",
          value_parser = clap::value_parser!(u64).range(1..))]
    pub batch: u64,
    /// With --coordinator: positions per job (at most 50,000). The output grows a
    /// job at a time, and the next job is queued behind the one being followed; a
    /// killed run resubmits its job and the coordinator's memory of computed
    /// batches hands back what was labelled.
    #[arg(long, default_value_t = 20_000, requires = "coordinator")]
    pub job_size: usize,
}

/// How many whole, valid lines an earlier labelling run left in `path` (0 if it does
/// not exist), cutting off a half-written last line. Every line must label the
/// position of the same index in `positions`: output made from another positions
/// file is refused rather than extended.
fn resume_point(path: &Path, positions: &[Position]) -> Result<usize, CliError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => {
            return Err(CliError::msg(format!(
                "cannot read {}: {e}",
                path.display()
            )))
        }
    };
    let whole = match text.rfind('\n') {
        Some(i) => &text[..=i],
        None => "",
    };
    let mut n = 0usize;
    for (i, line) in whole.lines().enumerate() {
        let s = parse_sample(line, i + 1)
            .map_err(|e| CliError::msg(format!("{}: {e}", path.display())))?;
        if positions.get(i) != Some(&s.pos) {
            return Err(CliError::msg(format!(
                "{}:{}: labels another position than the positions file's line {} \
                 (start a new output file)",
                path.display(),
                i + 1,
                i + 1
            )));
        }
        n += 1;
    }
    if whole.len() < text.len() {
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(io_err(path))?;
        f.set_len(whole.len() as u64).map_err(io_err(path))?;
        eprintln!("{}: dropped a half-written last line", path.display());
    }
    Ok(n)
}

/// The nets `net` for labels at `ply`, with the exact race layers of
/// `--exact-gammons` / `--exact-race` on top (0-ply only: at the leaves of a search
/// they would take hours).
pub(super) fn labelling_evaluator(
    net: &str,
    exact_gammons: Option<usize>,
    exact_race: Option<u64>,
    ply: u8,
) -> Result<NeuralEvaluator<'static>, CliError> {
    let mut eval = load_evaluator(net)?;
    let asked = exact_gammons.is_some() || exact_race.is_some();
    let exact = if asked {
        crate::cli::nets::exact_endgame(
            exact_gammons,
            exact_race,
            Some("none"),
            None,
            None,
            None,
            None,
        )?
    } else {
        None
    };
    if let Some(e) = exact {
        if ply != 0 {
            return Err(CliError::msg(
                "--exact-gammons and --exact-race label at 0-ply only (give --ply 0): at the leaves of a search they would take hours",
            ));
        }
        eval.endgame = Some(e);
    }
    Ok(eval)
}

/// Where the labels are computed: this machine's threads with their search
/// cache, or a coordinator's workers.
enum Labelling {
    Here {
        pool: rayon::ThreadPool,
        cache: EvalCache,
    },
    Remote(Box<RemoteLabeller>),
}

/// The labelling method of the command line.
fn method(a: &LabelArgs) -> LabelMethod {
    match a.rollout {
        Some(trials) => LabelMethod::Rollout {
            trials,
            seed: a.seed,
        },
        None => LabelMethod::Search {
            ply: a.ply,
            prune: Pruning { keep: a.prune },
        },
    }
}

/// A label method's error (the engine's limits, which the wire and the
/// coordinator check too) in the words of the command line.
fn method_flag_error(e: LabelPlanError) -> CliError {
    CliError::msg(match e {
        LabelPlanError::Ply(ply) => format!("--ply {ply} is deeper than {MAX_LABEL_PLY}"),
        LabelPlanError::Trials(_) => format!("--rollout must be 1 to {MAX_LABEL_TRIALS} trials"),
        other => other.to_string(),
    })
}

pub fn label(a: LabelArgs) -> Result<(), CliError> {
    let method = method(&a);
    method.validate().map_err(method_flag_error)?;
    let mut labelling = match &a.remote.coordinator {
        Some(url) => {
            let (access, nets) = remote_access(&a)?;
            Labelling::Remote(Box::new(RemoteLabeller::new(
                url, access, nets, method, a.batch,
            )?))
        }
        None => Labelling::Here {
            pool: pool(a.threads)?,
            cache: EvalCache::with_mib(LABEL_CACHE_MIB),
        },
    };
    let eval = labelling_evaluator(&a.net, a.exact_gammons, a.exact_race, a.ply)?;
    let mut positions = read_positions(&a.positions)?;
    positions.retain(|p| a.class.answers(&eval, p));
    let from = resume_point(&a.out, &positions)?;
    let to = a
        .limit
        .map_or(positions.len(), |l| (from + l).min(positions.len()));
    if from > 0 {
        eprintln!("resuming after {from} labelled positions");
    }
    let mut out = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&a.out)
        .map(BufWriter::new)
        .map_err(io_err(&a.out))?;
    let start = Instant::now();
    // In-process, each chunk reaches the disk before the next starts (a killed run
    // loses at most one chunk); on a coordinator a chunk is a job.
    let chunk = match labelling {
        Labelling::Here { .. } => 1000,
        Labelling::Remote(_) => a.job_size,
    };
    let mut i = from;
    while i < to {
        let end = (i + chunk).min(to);
        let part = &positions[i..end];
        let labels = match &mut labelling {
            Labelling::Remote(r) => {
                // The next job waits on the coordinator behind this one.
                let next = (end < to).then(|| &positions[end..(end + chunk).min(to)]);
                r.label(part, next)?
            }
            Labelling::Here { pool, cache } => label_here(pool, &eval, cache, part, method),
        };
        for (pos, probs) in part.iter().zip(labels) {
            let line = format_sample(&Sample { pos: *pos, probs });
            writeln!(out, "{line}").map_err(io_err(&a.out))?;
        }
        out.flush().map_err(io_err(&a.out))?;
        i = end;
        let rate = (i - from) as f64 / start.elapsed().as_secs_f64();
        eprintln!(
            "labelled {i:>8} / {}  {rate:.0} positions/s  ETA {:.0} s",
            positions.len(),
            (to - i) as f64 / rate
        );
    }
    println!(
        "{} positions labelled {} {}{} in {:.0} s -> {}",
        to - from,
        match method {
            LabelMethod::Search { .. } => "at",
            LabelMethod::Rollout { .. } => "by",
        },
        method.describe(),
        match &a.remote.coordinator {
            Some(url) => format!(" on {url}"),
            None => String::new(),
        },
        start.elapsed().as_secs_f64(),
        a.out.display()
    );
    Ok(())
}

/// How `--coordinator` is reached and the nets the jobs carry (empty: the
/// built-in nets; otherwise a bundle, read from `--net FILE` or written from the
/// nets `--net` names), after refusing what workers cannot do: the exact race
/// searches.
fn remote_access(a: &LabelArgs) -> Result<(Access, Vec<u8>), CliError> {
    if a.exact_gammons.is_some() || a.exact_race.is_some() {
        return Err(CliError::msg(
            "--exact-gammons and --exact-race label in-process only: workers do not run the exact race searches",
        ));
    }
    if a.threads.is_some() {
        return Err(CliError::msg(
            "--threads is for in-process labelling: with --coordinator the workers' threads label",
        ));
    }
    if !(1..=MAX_LABEL_POSITIONS).contains(&a.job_size) {
        return Err(CliError::msg(format!(
            "--job-size must be 1 to {MAX_LABEL_POSITIONS} positions"
        )));
    }
    let nets = match a.net.as_str() {
        "default" | "deep" => Vec::new(),
        f if Path::new(f).is_file() => {
            let nets =
                std::fs::read(f).map_err(|e| CliError::msg(format!("cannot read {f}: {e}")))?;
            check_nets(&nets).map_err(|e| CliError::msg(format!("{f}: {e}")))?;
            nets
        }
        // Named variants and directories travel as the bundle of their nets.
        other => {
            let e = crate::cli::nets::load_evaluator(other)?;
            let mut nets = vec![("contact.", &e.contact), ("race.", &e.race)];
            nets.extend(e.screen.as_ref().map(|n| ("screen.", n)));
            nets.extend(e.crashed.as_ref().map(|n| ("crashed.", n)));
            let bundle = save_bundle(&nets).map_err(|e| CliError::msg(e.to_string()))?;
            check_nets(&bundle).map_err(|e| CliError::msg(format!("--net {other}: {e}")))?;
            bundle
        }
    };
    Ok((Access::of(&a.remote), nets))
}

/// Labels of `positions` on this machine's `pool`.
fn label_here(
    pool: &rayon::ThreadPool,
    eval: &NeuralEvaluator<'_>,
    cache: &EvalCache,
    positions: &[Position],
    method: LabelMethod,
) -> Vec<[f32; OUTPUTS]> {
    pool.install(|| {
        positions
            .par_iter()
            .map_init(|| Labeller::new(eval, method, cache), |l, pos| l.label(pos))
            .collect()
    })
}
