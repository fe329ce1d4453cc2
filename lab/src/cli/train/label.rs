//! `bgfarm-lab train label`: labels of positions by an n-ply search or by
//! rollouts, resumable.

use super::files::{io_err, read_positions};
use super::threads::pool;
use super::which_nets::Nets;
use crate::cli::nets::load_training_evaluator as load_evaluator;
use crate::cli::CliError;
use bgfarm_engine::eval::neural::NeuralEvaluator;
use bgfarm_engine::ids::position_id;
use bgfarm_engine::rollout::TrialScratch;
use bgfarm_engine::search::{EvalCache, Pruning, Searcher};
use bgfarm_engine::Position;
use bgfarm_lab::train::dataset::{format_sample, parse_sample, Sample};
use bgfarm_lab::train::supervised as sup;
use rayon::prelude::*;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Deepest labelling search: a 3-ply label costs ~20x a 2-ply one (~60 ms).
const MAX_LABEL_PLY: u8 = 3;

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
    /// Nets to search with.
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

pub fn label(a: LabelArgs) -> Result<(), CliError> {
    if a.ply > MAX_LABEL_PLY {
        return Err(CliError::msg(format!(
            "--ply {} is deeper than {MAX_LABEL_PLY}",
            a.ply
        )));
    }
    let eval = labelling_evaluator(&a.net, a.exact_gammons, a.exact_race, a.ply)?;
    let pool = pool(a.threads)?;
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
    let prune = Pruning { keep: a.prune };
    let fingerprint = bgfarm_engine::search::Leaf::from(&eval).fingerprint();
    let cache = EvalCache::with_mib(64);
    let start = Instant::now();
    const CHUNK: usize = 1000;
    let mut i = from;
    while i < to {
        let end = (i + CHUNK).min(to);
        let labels: Vec<[f32; 5]> = pool.install(|| match a.rollout {
            Some(trials) => positions[i..end]
                .par_iter()
                .map_init(
                    || TrialScratch::new(&eval),
                    |s, pos| sup::rollout_label(&eval, s, pos, trials, position_seed(a.seed, pos)),
                )
                .collect(),
            None => positions[i..end]
                .par_iter()
                .map_init(
                    || Searcher::with_fingerprint(&eval, fingerprint, prune, Some(&cache)),
                    |s, pos| sup::label(s, pos, a.ply),
                )
                .collect(),
        });
        for (pos, probs) in positions[i..end].iter().zip(labels) {
            let line = format_sample(&Sample { pos: *pos, probs });
            writeln!(out, "{line}").map_err(io_err(&a.out))?;
        }
        // Each chunk reaches the disk before the next starts: a killed run loses at
        // most one chunk.
        out.flush().map_err(io_err(&a.out))?;
        i = end;
        let rate = (i - from) as f64 / start.elapsed().as_secs_f64();
        eprintln!(
            "labelled {i:>8} / {}  {rate:.0} positions/s  ETA {:.0} s",
            positions.len(),
            (to - i) as f64 / rate
        );
    }
    let how = match a.rollout {
        Some(t) => format!("by {t}-trial rollouts"),
        None => format!("at {}-ply", a.ply),
    };
    println!(
        "{} positions labelled {how} in {:.0} s -> {}",
        to - from,
        start.elapsed().as_secs_f64(),
        a.out.display()
    );
    Ok(())
}

/// The dice seed of `pos`'s rollout label: the run's seed mixed with the position's
/// key, so that positions do not share their dice (their labels' errors would then
/// be correlated) and a resumed run gives the same labels.
fn position_seed(seed: u64, pos: &Position) -> u64 {
    position_id::key(pos)
        .iter()
        .fold(seed ^ 0x9E37_79B9_7F4A_7C15, |h, &b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01B3)
        })
}
