//! `bgfarm train positions | label | fit`: the supervised pipeline (see
//! `bgfarm_engine::train::supervised` for the method).
//!
//! Files: `positions` writes one position ID per line (duplicates removed, first
//! occurrence kept); `label` reads that and writes `ID p1 .. p5` lines (the format of
//! `bgfarm_engine::train::dataset`), appending to an existing output so a killed run
//! resumes where it stopped; `fit` reads any number of labelled files and writes the
//! nets like `bgfarm train td` does (`contact.safetensors`, `race.safetensors`,
//! `nets.safetensors`).

use super::{save, write_atomic};
use crate::cli::nets::load_training_evaluator as load_evaluator;
use crate::cli::CliError;
use bgfarm_engine::eval::net::format::save_bundle;
use bgfarm_engine::eval::net::Net;
use bgfarm_engine::eval::neural::{Class, NeuralEvaluator};
use bgfarm_engine::ids::position_id;
use bgfarm_engine::rollout::TrialScratch;
use bgfarm_engine::search::{EvalCache, Pruning, Searcher};
use bgfarm_engine::train::dataset::{
    format_sample, parse_sample, parse_samples, parse_targets, Sample,
};
use bgfarm_engine::train::races::{race_positions, RaceKind};
use bgfarm_engine::train::siblings::parse_groups;
use bgfarm_engine::train::supervised::{self as sup, Exploration, FitConfig, Optimizer};
use bgfarm_engine::ParseError;
use bgfarm_engine::Position;
use rayon::prelude::*;
use std::collections::HashSet;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Deepest labelling search: a 3-ply label costs ~20x a 2-ply one (~60 ms).
const MAX_LABEL_PLY: u8 = 3;

#[derive(clap::Args)]
pub struct PositionsArgs {
    /// Nets that play the games: `default`, a .safetensors bundle or a directory.
    #[arg(long, default_value = "default")]
    pub net: String,
    /// Self-play games to play.
    #[arg(long, default_value_t = 10_000)]
    pub games: u64,
    /// Index of the first game (game g rolls from stream g of the seed).
    #[arg(long, default_value_t = 0)]
    pub first_game: u64,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Chance that a move is drawn from the best few instead of being the best.
    #[arg(long, default_value_t = Exploration::default().rate)]
    pub explore_rate: f32,
    /// How many of the best moves an exploratory move is drawn from.
    #[arg(long, default_value_t = Exploration::default().top)]
    pub explore_top: usize,
    /// Chance that a roll's candidates (the position after each legal play) are kept
    /// too: positions a move choice must rank that good play never reaches.
    #[arg(long, default_value_t = Exploration::default().candidates)]
    pub candidates: f32,
    /// Keep only the positions one net answers.
    #[arg(long, value_enum, default_value_t = Nets::Both)]
    pub class: Nets,
    /// Output file: one position ID per line.
    #[arg(long)]
    pub out: PathBuf,
    /// Worker threads (default: one per core). Never changes the output.
    #[arg(long)]
    pub threads: Option<usize>,
}

#[derive(clap::Args)]
pub struct RacesArgs {
    /// What is at stake: `backgammon` (the side behind still has checkers in the
    /// other's home board) or `gammon` (it has borne off nothing).
    #[arg(long, value_enum)]
    pub kind: RaceKindArg,
    /// Positions to write.
    #[arg(long, default_value_t = 10_000)]
    pub count: usize,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Output file: one position ID per line.
    #[arg(long)]
    pub out: PathBuf,
}

/// `--kind` of `bgfarm train races`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum RaceKindArg {
    Backgammon,
    Gammon,
}

#[derive(clap::Args)]
pub struct LabelArgs {
    /// Position IDs, one per line (as `bgfarm train positions` writes them).
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

#[derive(clap::Args)]
pub struct FitArgs {
    /// Trial-outcome targets (`bgfarm train outcomes` output), fitted with the
    /// labelled files.
    #[arg(long, num_args = 1..)]
    pub targets: Vec<PathBuf>,
    /// Labelled files (`bgfarm train label` output); several are concatenated.
    #[arg(long, num_args = 1.., required_unless_present = "targets")]
    pub data: Vec<PathBuf>,
    /// Nets to start from: `default`, a bundle or a directory.
    #[arg(long, default_value = "default")]
    pub init: String,
    /// Directory for the fitted nets (created if missing).
    #[arg(long)]
    pub out: PathBuf,
    /// Widen the nets being fitted (`--nets`) to this many hidden units first (a
    /// multiple of 8, at least their width): more capacity for what the deeper labels
    /// know.
    #[arg(long)]
    pub hidden: Option<usize>,
    /// Put a second hidden layer of this many units (a multiple of 8) under the nets
    /// being fitted, which must have one: their first layer is kept, the layers above
    /// it start from small random weights. A 128-64 contact net fits its own 1-ply
    /// labels with about a tenth less error than a 128-unit one.
    #[arg(long, value_parser = clap::value_parser!(u32).range(8..=4096))]
    pub deepen: Option<u32>,
    /// Passes over the data.
    #[arg(long, default_value_t = FitConfig::default().epochs)]
    pub epochs: u32,
    /// How gradients become steps: `adam` on minibatches, or `sgd`, one sample at a
    /// time (the shipped nets' legs up to 30).
    #[arg(long, value_enum, default_value_t = OptimizerArg::Adam)]
    pub optimizer: OptimizerArg,
    /// Samples per Adam step.
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u32).range(1..=65_536))]
    pub batch: u32,
    /// Learning rate at the start (default: 0.001 for Adam, 0.02 for SGD), falling
    /// geometrically to `--lr-end` (default: 0.00003 for Adam, 0.002 for SGD).
    #[arg(long)]
    pub lr_start: Option<f32>,
    #[arg(long)]
    pub lr_end: Option<f32>,
    /// Threads for Adam's minibatch gradients (default: one per core). Never changes
    /// the result.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Hold out one sample in K to measure the fit (0: none).
    #[arg(long, default_value_t = FitConfig::default().holdout)]
    pub holdout: u32,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Which nets to fit; the other is written as `--init` has it (its samples are
    /// left out of the fit).
    #[arg(long, value_enum, default_value_t = Nets::Both)]
    pub nets: Nets,
    /// Sibling groups (`bgfarm train siblings` output), each for the net that
    /// answers its members: their members are fitted like samples and, with
    /// `--sibling-weight`, to their equity differences within the group. Needs Adam.
    #[arg(long, num_args = 1..)]
    pub siblings: Vec<PathBuf>,
    /// Weight of the groups' equity-difference loss (0: the members count as plain
    /// samples).
    #[arg(long, default_value_t = FitConfig::default().sibling_weight)]
    pub sibling_weight: f32,
}

/// `--optimizer` of `bgfarm train fit`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum OptimizerArg {
    Adam,
    Sgd,
}

/// The nets `bgfarm train fit` changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Nets {
    Both,
    Contact,
    Race,
}

impl Nets {
    /// Whether a position is one these nets answer (`Both`: any position).
    fn answers(self, eval: &bgfarm_engine::eval::neural::NeuralEvaluator, pos: &Position) -> bool {
        match self {
            Nets::Both => true,
            Nets::Contact => eval.class(pos) == Class::Contact,
            Nets::Race => eval.class(pos) == Class::Race,
        }
    }
}

pub(super) fn pool(threads: Option<usize>) -> Result<rayon::ThreadPool, CliError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(thread_count(threads)?)
        .build()
        .map_err(|e| CliError::msg(format!("cannot start threads: {e}")))
}

/// `--threads`: at least 1, one per core when not given.
pub(super) fn thread_count(threads: Option<usize>) -> Result<usize, CliError> {
    match threads {
        Some(0) => Err(CliError::msg("--threads must be at least 1")),
        Some(n) => Ok(n),
        None => Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
    }
}

pub(super) fn create(path: &Path) -> Result<BufWriter<std::fs::File>, CliError> {
    std::fs::File::create(path)
        .map(BufWriter::new)
        .map_err(|e| CliError::msg(format!("cannot write {}: {e}", path.display())))
}

pub(super) fn io_err(path: &Path) -> impl Fn(std::io::Error) -> CliError + '_ {
    move |e| CliError::msg(format!("cannot write {}: {e}", path.display()))
}

/// The nets `fit` changes (`--nets`), each with its own seed for new weights.
fn fitted_nets<'a>(
    eval: &'a mut NeuralEvaluator<'_>,
    nets: Nets,
    seed: u64,
) -> impl Iterator<Item = (&'a mut Net, u64)> {
    [
        (nets != Nets::Race).then_some((&mut eval.contact, seed)),
        (nets != Nets::Contact).then_some((&mut eval.race, seed ^ 0x5eed)),
    ]
    .into_iter()
    .flatten()
}

pub fn positions(a: PositionsArgs) -> Result<(), CliError> {
    if !(0.0..=1.0).contains(&a.explore_rate)
        || !(0.0..=1.0).contains(&a.candidates)
        || a.explore_top == 0
    {
        return Err(CliError::msg(
            "--explore-rate and --candidates must be in 0..1 and --explore-top at least 1",
        ));
    }
    let eval = load_evaluator(&a.net)?;
    let pool = pool(a.threads)?;
    let explore = Exploration {
        rate: a.explore_rate,
        top: a.explore_top,
        candidates: a.candidates,
    };
    let mut out = create(&a.out)?;
    let mut seen: HashSet<[u8; 10]> = HashSet::new();
    let (mut total, mut kept) = (0usize, 0usize);
    let start = Instant::now();
    const CHUNK: u64 = 2000;
    let mut done = 0u64;
    while done < a.games {
        let n = CHUNK.min(a.games - done);
        let first = a.first_game + done;
        let games: Vec<Vec<Position>> = pool.install(|| {
            (first..first + n)
                .into_par_iter()
                .map(|g| sup::selfplay_positions(&eval, a.seed, g, explore))
                .collect()
        });
        for pos in games.iter().flatten() {
            total += 1;
            if a.class.answers(&eval, pos) && seen.insert(position_id::key(pos)) {
                kept += 1;
                writeln!(out, "{}", position_id::encode(pos)).map_err(io_err(&a.out))?;
            }
        }
        done += n;
        eprintln!(
            "games {done:>8}  positions {total:>9}  distinct {kept:>9}  {:.0} games/s",
            done as f64 / start.elapsed().as_secs_f64()
        );
    }
    out.flush().map_err(io_err(&a.out))?;
    println!(
        "{kept} distinct positions ({total} seen) from {} games in {:.0} s -> {}",
        a.games,
        start.elapsed().as_secs_f64(),
        a.out.display()
    );
    Ok(())
}

/// `bgfarm train races`: random races with gammons or backgammons at stake (see
/// `bgfarm_engine::train::races`), one position ID per line.
pub fn races(a: RacesArgs) -> Result<(), CliError> {
    let kind = match a.kind {
        RaceKindArg::Backgammon => RaceKind::Backgammon,
        RaceKindArg::Gammon => RaceKind::Gammon,
    };
    let mut out = create(&a.out)?;
    for pos in race_positions(kind, a.seed, a.count) {
        writeln!(out, "{}", position_id::encode(&pos)).map_err(io_err(&a.out))?;
    }
    out.flush().map_err(io_err(&a.out))?;
    println!("{} {:?} races -> {}", a.count, a.kind, a.out.display());
    Ok(())
}

/// Reads position IDs, one per line, naming the line of a bad one.
pub(super) fn read_positions(path: &Path) -> Result<Vec<Position>, CliError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| CliError::msg(format!("cannot read {}: {e}", path.display())))?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|(i, l)| {
            position_id::decode(l.trim())
                .map_err(|e| CliError::msg(format!("{}:{}: {e}", path.display(), i + 1)))
        })
        .collect()
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

/// Every sample of `paths`, each file parsed by `parse` (labels or targets); an
/// error names the file and the line.
fn read_all(
    paths: &[PathBuf],
    parse: fn(&str) -> Result<Vec<Sample>, ParseError>,
) -> Result<Vec<Sample>, CliError> {
    let mut samples = Vec::new();
    for path in paths {
        let text = std::fs::read_to_string(path)
            .map_err(|e| CliError::msg(format!("cannot read {}: {e}", path.display())))?;
        samples
            .extend(parse(&text).map_err(|e| CliError::msg(format!("{}: {e}", path.display())))?);
    }
    Ok(samples)
}

pub fn fit(a: FitArgs) -> Result<(), CliError> {
    let optimizer = match a.optimizer {
        OptimizerArg::Adam => Optimizer::Adam {
            batch: a.batch as usize,
        },
        OptimizerArg::Sgd => Optimizer::Sgd,
    };
    let (start, end) = optimizer.default_rates();
    let (lr_start, lr_end) = (a.lr_start.unwrap_or(start), a.lr_end.unwrap_or(end));
    if a.threads == Some(0) {
        return Err(CliError::msg("--threads must be at least 1"));
    }
    // Not `> 0.0`-negated: a NaN rate must be refused too.
    if a.epochs == 0 || !(lr_start > 0.0 && lr_end > 0.0) {
        return Err(CliError::msg(
            "--epochs must be at least 1 and learning rates positive",
        ));
    }
    if !a.siblings.is_empty() && a.optimizer != OptimizerArg::Adam {
        return Err(CliError::msg("--siblings needs --optimizer adam"));
    }
    if !(a.sibling_weight >= 0.0 && a.sibling_weight <= 1000.0) {
        return Err(CliError::msg("--sibling-weight must be in 0..1000"));
    }
    let mut eval = load_evaluator(&a.init)?;
    if let Some(h) = a.hidden {
        // Only the nets being fitted: a widened net computes the same values more
        // slowly until it is trained.
        for (net, seed) in fitted_nets(&mut eval, a.nets, a.seed) {
            if !h.is_multiple_of(8) || h < net.hidden() || h > 4096 {
                return Err(CliError::msg(format!(
                    "--hidden {h}: give a multiple of 8 from the nets' width ({}) to 4096",
                    net.hidden()
                )));
            }
            *net = net.widen(h, seed);
        }
    }
    if let Some(m) = a.deepen {
        for (net, seed) in fitted_nets(&mut eval, a.nets, a.seed) {
            if !m.is_multiple_of(8) {
                return Err(CliError::msg(format!("--deepen {m}: give a multiple of 8")));
            }
            if net.mid() > 0 {
                return Err(CliError::msg(format!(
                    "--deepen: the nets already have a second hidden layer ({} units)",
                    net.mid()
                )));
            }
            *net = net.deepen(m as usize, seed ^ 0xdee9);
        }
    }
    let mut samples = read_all(&a.data, parse_samples)?;
    samples.extend(read_all(&a.targets, parse_targets)?);
    let (mut contact, mut race): (Vec<Sample>, Vec<Sample>) = samples
        .iter()
        .copied()
        .filter(|s| matches!(eval.class(&s.pos), Class::Contact | Class::Race))
        .partition(|s| eval.class(&s.pos) == Class::Contact);
    eprintln!(
        "{} samples: {} contact, {} race ({} answered by the endgame tables, skipped)",
        samples.len(),
        contact.len(),
        race.len(),
        samples.len() - contact.len() - race.len()
    );
    // Each group goes to the net that answers its members (members of the other
    // class are dropped), kept while it has two.
    let (mut groups, mut race_groups) = (Vec::new(), Vec::new());
    for path in &a.siblings {
        let text = std::fs::read_to_string(path)
            .map_err(|e| CliError::msg(format!("cannot read {}: {e}", path.display())))?;
        let parsed =
            parse_groups(&text).map_err(|e| CliError::msg(format!("{}: {e}", path.display())))?;
        for g in parsed {
            for (class, to) in [
                (Class::Contact, &mut groups),
                (Class::Race, &mut race_groups),
            ] {
                let kept: Vec<Sample> = g
                    .iter()
                    .copied()
                    .filter(|s| eval.class(&s.pos) == class)
                    .collect();
                if kept.len() >= 2 {
                    to.push(kept);
                }
            }
        }
    }
    // Only the nets being fitted keep their samples and groups.
    match a.nets {
        Nets::Contact => {
            race.clear();
            race_groups.clear();
        }
        Nets::Race => {
            contact.clear();
            groups.clear();
        }
        Nets::Both => {}
    }
    if !a.siblings.is_empty() {
        eprintln!(
            "{} sibling groups of {} contact positions, {} of {} race positions",
            groups.len(),
            groups.iter().map(Vec::len).sum::<usize>(),
            race_groups.len(),
            race_groups.iter().map(Vec::len).sum::<usize>()
        );
    }
    std::fs::create_dir_all(&a.out)
        .map_err(|e| CliError::msg(format!("cannot create {}: {e}", a.out.display())))?;
    let cfg = FitConfig {
        epochs: a.epochs,
        lr_start,
        lr_end,
        holdout: a.holdout,
        seed: a.seed,
        optimizer,
        sibling_weight: a.sibling_weight,
        threads: a.threads.unwrap_or_else(|| {
            std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
        }),
    };
    let start = Instant::now();
    let fit_one = |net: &mut Net, data: &[Sample], groups: &[Vec<Sample>], kind: &str| {
        if data.is_empty() {
            return;
        }
        sup::fit(net, data, groups, &cfg, |r| {
            let siblings = if groups.is_empty() {
                String::new()
            } else {
                format!(
                    "  differences rmse train {:.4} held-out {:.4} ({} / {} groups)",
                    r.sibling_train_rmse,
                    r.sibling_holdout_rmse,
                    r.sibling_train_groups,
                    r.sibling_holdout_groups
                )
            };
            eprintln!(
                "{kind:<7} epoch {:>3}  lr {:.4}  equity rmse train {:.4} held-out {:.4} \
                 ({} / {} samples){siblings}",
                r.epoch, r.lr, r.train_rmse, r.holdout_rmse, r.train_samples, r.holdout_samples
            );
        });
        let data_names: Vec<String> = a
            .data
            .iter()
            .chain(&a.targets)
            .map(|p| p.display().to_string())
            .collect();
        let history = net.metadata.get("training").cloned().unwrap_or_default();
        net.metadata.insert("kind".into(), kind.into());
        net.metadata.insert(
            "training".into(),
            format!(
                "{history}; supervised fit of {} samples from {}{} epochs={} optimizer={} \
                 lr={}..{} seed={}",
                data.len(),
                data_names.join(","),
                if groups.is_empty() {
                    String::new()
                } else {
                    format!(
                        " and {} sibling groups from {} (weight {})",
                        groups.len(),
                        a.siblings
                            .iter()
                            .map(|p| p.display().to_string())
                            .collect::<Vec<_>>()
                            .join(","),
                        cfg.sibling_weight
                    )
                },
                a.epochs,
                match cfg.optimizer {
                    Optimizer::Sgd => "sgd".to_string(),
                    Optimizer::Adam { batch } => format!("adam/{batch}"),
                },
                cfg.lr_start,
                cfg.lr_end,
                a.seed
            ),
        );
    };
    // The two nets are independent: fit them on two threads.
    let (c, r) = (&mut eval.contact, &mut eval.race);
    rayon::join(
        || fit_one(c, &contact, &groups, "contact"),
        || fit_one(r, &race, &race_groups, "race"),
    );
    save(&eval.contact, &a.out.join("contact.safetensors"))?;
    save(&eval.race, &a.out.join("race.safetensors"))?;
    // A screen net (`--init default`) goes along unchanged: the fitted nets choose as
    // the ones they came from did, screened.
    let mut nets = vec![("contact.", &eval.contact), ("race.", &eval.race)];
    if let Some(screen) = &eval.screen {
        save(screen, &a.out.join("screen.safetensors"))?;
        nets.push(("screen.", screen));
    }
    let bundle = save_bundle(&nets)?;
    write_atomic(&a.out.join("nets.safetensors"), &bundle)?;
    println!(
        "fitted {} contact and {} race samples in {:.0} s; nets in {}",
        contact.len(),
        race.len(),
        start.elapsed().as_secs_f64(),
        a.out.display()
    );
    Ok(())
}
