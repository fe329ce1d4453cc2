//! `bgfarm-lab bench hint --ply N [--filter F] [--file PATH] [--class C] [--limit L]`:
//! bgfarm's move choices against GNU Backgammon's 2-ply values.
//!
//! `engine/testdata/oracle/bench.jsonl` (its README, section 4) holds 1000 positions
//! with GNU Backgammon's 0-, 1- and 2-ply equity of every legal play. For each
//! position the command picks a play at 0-ply and with an N-ply search, and scores
//! each choice as GNU Backgammon's 2-ply values do: `loss = moves[0].eq2 - eq2(chosen)`
//! (0 for its 2-ply best play). A choice is counted as GNU Backgammon's best play
//! when its loss is below 0.001, the README's tolerance for ties (55 positions have
//! several plays with the best value). Reported per class (contact, crashed, race):
//! the share of best plays, the mean loss with its standard error, and the time per
//! N-ply hint. It also scores the 0-ply play of rollouts and duels ("play loss"),
//! which differs from the 0-ply choice only for nets with a screen (the default
//! nets: the screen's best few by the contact net). For reference it scores
//! GNU Backgammon's own 2-ply choice (`gnubg_choice`, made with its filter), which
//! is not always its 2-ply best play.
//!
//! Positions are searched in parallel, one per task; each hint is timed inside its
//! task, so with `--threads 1` the time is that of one hint on one core.
//!
//! Measured (`bgfarm-lab bench hint --ply 2`: normal filter, prune 8; release build,
//! shared and busy 2-core machine), GNU Backgammon's 2-ply best play chosen / mean
//! loss per decision (SE):
//!
//! | nets | class | 0-ply | 2-ply |
//! |---|---|---|---|
//! | default (150k self-play games) | contact (670) | 59.7% / 0.0280 (0.0024) | 70.3% / 0.0135 (0.0015) |
//! | | crashed (80) | 50.0% / 0.0481 (0.0084) | 60.0% / 0.0349 (0.0075) |
//! | | race (250) | 85.6% / 0.0035 (0.0011) | 92.0% / 0.0020 (0.0008) |
//! | | all (1000) | 65.4% / 0.0235 (0.0018) | 74.9% / 0.0123 (0.0012) |
//! | checkpoint after 1.25M games | all (1000) | 72.2% / 0.0137 (0.0013) | 81.8% / 0.0061 (0.0007) |
//! | self-consistency nets, normal (`0:8:0.16,1:8:0.08`) | contact (670) | 75.1% / 0.0072 (0.0009) | 84.5% / 0.0029 (0.0004) |
//! | | crashed (80) | 61.3% / 0.0254 (0.0053) | 76.2% / 0.0135 (0.0053) |
//! | | all (1000) | 77.9% / 0.0072 (0.0008) | 86.5% / 0.0033 (0.0005) |
//! | the same, gnu-normal (`0:8:0.16`) | contact / crashed | | 84.5% / 0.0029, 75.0% / 0.0165 |
//!
//! (The rows above the self-consistency nets used GNU Backgammon's normal ladder,
//! then called normal and now gnu-normal.)
//! GNU Backgammon's own 2-ply choice scores 99.3% / 0.0001 (its filter drops its
//! 2-ply best play now and then). Time per 2-ply hint on the first 100 contact
//! positions, one thread (`scripts/bench-hint-vs-gnubg.sh`): bgfarm 23.9 ms, GNU
//! Backgammon 1.07 134.1 ms (2-ply, cubeless, its default filter and pruning), with
//! the nets of that time. With the self-consistency nets, Nov 30: bgfarm normal
//! 5.0-7.0 ms, gnu-normal 7.8-10.7 ms, GNU Backgammon 73-76 ms.

use super::oracle::{
    bench_file, gnubg_0ply_choice, loss_of, read_cases, Case, CLASSES, DEFAULT_FILE,
};
use super::value_errors::{value_errors, ValueErrors, VALUED};
use crate::cli::mean::Mean;
use crate::cli::search_args::{check_ply, parse_filter, CacheArgs, EvalArgs};
use crate::cli::CliError;
use bgfarm_engine::eval::pubeval::PubEval;
use bgfarm_engine::eval::{Evaluator, Player};
use bgfarm_engine::ids::position_id;
use bgfarm_engine::notation::format_move;
use bgfarm_engine::search::{Candidate, Ladder};
use bgfarm_engine::MoveGenerator;
use rayon::prelude::*;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

#[derive(clap::Args)]
pub struct HintArgs {
    /// Search depth in GNU Backgammon's plies (0 = the raw nets), 0 to 3.
    #[arg(long, default_value_t = 2)]
    pub ply: u8,
    /// Move filter of the N-ply search (see `bgfarm hint --help`).
    #[arg(long, default_value = "normal")]
    pub filter: String,
    /// The bench file (JSON lines, see engine/testdata/oracle/README.md section 4).
    #[arg(long, default_value = DEFAULT_FILE)]
    pub file: PathBuf,
    /// Only positions of this class: contact, crashed or race.
    #[arg(long)]
    pub class: Option<String>,
    /// Only the first L positions (after --class).
    #[arg(long, value_name = "L")]
    pub limit: Option<usize>,
    /// Also list the K decisions where the 0-ply choice lost the most (position,
    /// dice, the choice and GNU Backgammon's best with their 2-ply equities): where
    /// to look when the loss moves.
    #[arg(long, value_name = "K")]
    pub worst: Option<usize>,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Also score these nets' 0-ply choices on the same decisions, with the paired
    /// difference of the losses (`--net`'s minus theirs) and its standard error: how
    /// a candidate net is judged on the dev set (docs/nets.md, "Yardsticks").
    #[arg(long, value_name = "NET")]
    pub baseline: Option<String>,
    #[command(flatten)]
    pub eval: EvalArgs,
    #[command(flatten)]
    pub cache: CacheArgs,
}

/// Loss below which a choice counts as GNU Backgammon's best play (ties, README §4).
const TIE: f64 = 1e-3;

/// The choices made on one position.
struct Outcome {
    loss0: f64,
    /// The 0-ply choice in notation.
    choice0: String,
    /// GNU Backgammon 2-ply's best play in notation.
    gnubg_best: String,
    /// The 0-ply play of rollouts and duels (with a screen net, screened:
    /// `Evaluator::choose_index`).
    loss_play: f64,
    loss_n: f64,
    loss_gnubg: f64,
    /// GNU Backgammon's own 0-ply choice (the best `eq0` in the file).
    loss_gnubg0: f64,
    /// PubEval's choice, the yardstick.
    loss_pubeval: f64,
    /// `--baseline`'s 0-ply choice.
    loss_base: Option<f64>,
    /// Equity errors of the 0-ply values of GNU Backgammon 2-ply's best plays:
    /// bgfarm's and GNU Backgammon 0-ply's ([`ValueErrors`]).
    errors0: ValueErrors,
    errors_gnubg0: ValueErrors,
    seconds: f64,
}

/// Totals for one class.
#[derive(Default)]
struct Tally {
    loss0: Mean,
    loss_play: Mean,
    loss_n: Mean,
    loss_gnubg: Mean,
    loss_gnubg0: Mean,
    loss_pubeval: Mean,
    /// Paired differences of the 0-ply loss: minus GNU Backgammon 0-ply's, and minus
    /// `--baseline`'s.
    diff_gnubg0: Mean,
    loss_base: Mean,
    diff_base: Mean,
    equity_err0: Mean,
    diff_err0: Mean,
    equity_err_gnubg0: Mean,
    diff_err_gnubg0: Mean,
    best0: u64,
    best_n: u64,
    best_gnubg: u64,
    seconds: f64,
}

impl Tally {
    fn add(&mut self, o: &Outcome) {
        self.loss0.add(o.loss0);
        self.loss_play.add(o.loss_play);
        self.loss_n.add(o.loss_n);
        self.loss_gnubg.add(o.loss_gnubg);
        self.loss_gnubg0.add(o.loss_gnubg0);
        self.loss_pubeval.add(o.loss_pubeval);
        self.diff_gnubg0.add(o.loss0 - o.loss_gnubg0);
        if let Some(b) = o.loss_base {
            self.loss_base.add(b);
            self.diff_base.add(o.loss0 - b);
        }
        self.equity_err0.add(o.errors0.equity);
        self.diff_err0.add(o.errors0.difference);
        self.equity_err_gnubg0.add(o.errors_gnubg0.equity);
        self.diff_err_gnubg0.add(o.errors_gnubg0.difference);
        self.best0 += u64::from(o.loss0 < TIE);
        self.best_n += u64::from(o.loss_n < TIE);
        self.best_gnubg += u64::from(o.loss_gnubg < TIE);
        self.seconds += o.seconds;
    }

    fn json(&self) -> JsonTally {
        let n = self.loss0.count().max(1) as f64;
        JsonTally {
            positions: self.loss0.count(),
            best_0ply: self.best0 as f64 / n,
            loss_0ply: self.loss0.mean(),
            loss_0ply_se: self.loss0.se(),
            loss_play: self.loss_play.mean(),
            best_nply: self.best_n as f64 / n,
            loss_nply: self.loss_n.mean(),
            loss_nply_se: self.loss_n.se(),
            best_gnubg: self.best_gnubg as f64 / n,
            loss_gnubg: self.loss_gnubg.mean(),
            loss_gnubg_0ply: self.loss_gnubg0.mean(),
            loss_gnubg_0ply_se: self.loss_gnubg0.se(),
            loss_pubeval: self.loss_pubeval.mean(),
            loss_pubeval_se: self.loss_pubeval.se(),
            ratio_gnubg_0ply: self.loss0.mean() / self.loss_gnubg0.mean(),
            diff_gnubg_0ply: self.diff_gnubg0.mean(),
            diff_gnubg_0ply_se: self.diff_gnubg0.se(),
            loss_baseline: (self.loss_base.count() > 0).then(|| self.loss_base.mean()),
            loss_baseline_se: (self.loss_base.count() > 0).then(|| self.loss_base.se()),
            diff_baseline: (self.diff_base.count() > 0).then(|| self.diff_base.mean()),
            diff_baseline_se: (self.diff_base.count() > 0).then(|| self.diff_base.se()),
            equity_error_0ply: self.equity_err0.mean(),
            difference_error_0ply: self.diff_err0.mean(),
            equity_error_gnubg_0ply: self.equity_err_gnubg0.mean(),
            difference_error_gnubg_0ply: self.diff_err_gnubg0.mean(),
            ms_per_hint: 1000.0 * self.seconds / n,
        }
    }
}

#[derive(Serialize)]
struct JsonTally {
    positions: u64,
    best_0ply: f64,
    loss_0ply: f64,
    loss_0ply_se: f64,
    /// The rollouts' 0-ply play (screened where the nets have a screen).
    loss_play: f64,
    best_nply: f64,
    loss_nply: f64,
    loss_nply_se: f64,
    best_gnubg: f64,
    loss_gnubg: f64,
    loss_gnubg_0ply: f64,
    loss_gnubg_0ply_se: f64,
    loss_pubeval: f64,
    loss_pubeval_se: f64,
    /// bgfarm 0-ply's loss over GNU Backgammon 0-ply's, and their paired difference.
    ratio_gnubg_0ply: f64,
    diff_gnubg_0ply: f64,
    diff_gnubg_0ply_se: f64,
    /// `--baseline`'s 0-ply loss and the paired difference (`--net`'s minus it).
    loss_baseline: Option<f64>,
    loss_baseline_se: Option<f64>,
    diff_baseline: Option<f64>,
    diff_baseline_se: Option<f64>,
    /// Mean absolute error of the 0-ply equities of GNU Backgammon 2-ply's best
    /// five plays, and of their differences to the best one ([`ValueErrors`]).
    equity_error_0ply: f64,
    difference_error_0ply: f64,
    equity_error_gnubg_0ply: f64,
    difference_error_gnubg_0ply: f64,
    ms_per_hint: f64,
}

#[derive(Serialize)]
struct JsonOut {
    file: String,
    ply: u8,
    filter: String,
    threads: usize,
    cache_hit_rate: Option<f64>,
    classes: BTreeMap<String, JsonTally>,
    all: JsonTally,
    /// `--worst`'s list (empty without it).
    worst: Vec<Worst>,
}

pub fn hint(args: HintArgs) -> Result<(), CliError> {
    let ply = check_ply(args.ply)?;
    let filter = parse_filter(&args.filter)?;
    if let Some(c) = &args.class {
        if !CLASSES.contains(&c.as_str()) {
            return Err(CliError::msg(format!(
                "unknown class {c:?}: use contact, crashed or race"
            )));
        }
    }
    if args.limit == Some(0) {
        return Err(CliError::msg("--limit must be at least 1"));
    }
    let path = bench_file(&args.file);
    let cases = read_cases(&path, args.class.as_deref(), args.limit)?;
    if cases.is_empty() {
        return Err(CliError::msg(format!(
            "no position of that class in {}",
            path.display()
        )));
    }
    let engine = args.eval.engine(args.cache.cache_mib)?;
    let baseline = match &args.baseline {
        Some(net) => {
            let b = EvalArgs {
                net: net.clone(),
                threads: Some(1),
                ..args.eval.clone()
            };
            Some(b.engine(args.cache.cache_mib)?)
        }
        None => None,
    };
    let ladder = filter.ladder(ply);
    let zero = Ladder::all();
    let choice = |c: Option<Candidate>| {
        c.map(|c| position_id::encode(&c.mv.next_position()))
            .ok_or_else(|| "no legal play".to_string())
    };
    let outcomes: Vec<Result<Outcome, String>> = engine.pool.install(|| {
        cases
            .par_iter()
            .with_max_len(1)
            .map_init(
                || (engine.searcher(), baseline.as_ref().map(|b| b.searcher())),
                |(s, base), case| {
                    let start = Instant::now();
                    let cn = s.best_move(&case.pos, case.dice, ply, &ladder);
                    let seconds = start.elapsed().as_secs_f64();
                    let cn = choice(cn)?;
                    let best0 = s.best_move(&case.pos, case.dice, 0, &zero);
                    let choice0 = best0
                        .as_ref()
                        .map(|c| format_move(&c.mv))
                        .unwrap_or_default();
                    let c0 = choice(best0)?;
                    let loss_base = match base {
                        Some(b) => Some(loss_of(
                            &case.line,
                            &choice(b.best_move(&case.pos, case.dice, 0, &zero))?,
                        )?),
                        None => None,
                    };
                    let gnubg0 = gnubg_0ply_choice(&case.line)?;
                    let mut gen = MoveGenerator::new();
                    let legal = gen.generate(&case.pos, case.dice);
                    if legal.is_empty() {
                        return Err("no legal play".to_string());
                    }
                    let gnubg_best = legal
                        .iter()
                        .find(|m| {
                            position_id::encode(&m.next_position()) == case.line.moves[0].result
                        })
                        .map(format_move)
                        .unwrap_or_else(|| case.line.moves[0].result.clone());
                    let play = engine.eval.choose_index(&case.pos, legal).unwrap_or(0);
                    let play = position_id::encode(&legal[play].next_position());
                    let pe = PubEval.choose(&case.pos, case.dice, legal);
                    let pe = position_id::encode(&legal[pe].next_position());
                    let mut ours = BTreeMap::new();
                    for m in legal {
                        let e = f64::from(s.move_probs(m, 0).equity());
                        ours.insert(position_id::encode(&m.next_position()), e);
                    }
                    let unvalued = || format!("{}: a listed play is not legal", case.line.pos);
                    let errors0 = value_errors(&case.line, |m| ours.get(&m.result).copied())
                        .ok_or_else(unvalued)?;
                    let errors_gnubg0 =
                        value_errors(&case.line, |m| Some(m.eq0)).ok_or_else(unvalued)?;
                    Ok(Outcome {
                        loss0: loss_of(&case.line, &c0)?,
                        choice0,
                        gnubg_best,
                        loss_play: loss_of(&case.line, &play)?,
                        loss_n: loss_of(&case.line, &cn)?,
                        loss_gnubg: loss_of(&case.line, &case.line.gnubg_choice)?,
                        loss_gnubg0: loss_of(&case.line, &gnubg0)?,
                        loss_pubeval: loss_of(&case.line, &pe)?,
                        loss_base,
                        errors0,
                        errors_gnubg0,
                        seconds,
                    })
                },
            )
            .collect()
    });
    let mut classes: BTreeMap<String, Tally> = BTreeMap::new();
    let mut all = Tally::default();
    let mut worst = Vec::new();
    for (case, o) in cases.iter().zip(outcomes) {
        let o = o.map_err(CliError::msg)?;
        classes.entry(case.line.class.clone()).or_default().add(&o);
        all.add(&o);
        worst.push(Worst::new(case, &o));
    }
    // Largest loss first; the file's order among equal losses.
    worst.sort_by(|a, b| b.loss_0ply.total_cmp(&a.loss_0ply));
    worst.truncate(args.worst.unwrap_or(0));
    let threads = engine.pool.current_num_threads();
    let hit_rate = engine.cache.as_ref().map(|c| c.stats().hit_rate());
    if args.json {
        let out = JsonOut {
            file: path.display().to_string(),
            ply,
            filter: filter.to_string(),
            threads,
            cache_hit_rate: hit_rate,
            classes: classes.iter().map(|(k, t)| (k.clone(), t.json())).collect(),
            all: all.json(),
            worst,
        };
        println!("{}", serde_json::to_string(&out)?);
        return Ok(());
    }
    println!(
        "{}: {} positions; {ply}-ply with filter {filter} ({ladder}), prune {}, {threads} threads",
        path.display(),
        all.loss0.count(),
        engine.prune.keep
    );
    println!(
        "Loss = GNU Backgammon 2-ply equity of its best play minus that of the choice; \
         best = loss < {TIE}."
    );
    println!(
        "class       n   0-ply best  0-ply loss (SE)   play loss   {ply}-ply best  {ply}-ply loss (SE)    ms/hint  | gnubg best  loss   | gnubg 0-ply loss (SE)  pubeval loss (SE)"
    );
    let row = |name: &str, t: &Tally| {
        let j = t.json();
        println!(
            "{name:<8} {:>4}   {:>8.1}%  {:.4} ({:.4})     {:.4}    {:>8.1}%  {:.4} ({:.4})   {:>7.1}  | {:>8.1}%  {:.4} | {:.4} ({:.4})        {:.4} ({:.4})",
            j.positions,
            100.0 * j.best_0ply,
            j.loss_0ply,
            j.loss_0ply_se,
            j.loss_play,
            100.0 * j.best_nply,
            j.loss_nply,
            j.loss_nply_se,
            j.ms_per_hint,
            100.0 * j.best_gnubg,
            j.loss_gnubg,
            j.loss_gnubg_0ply,
            j.loss_gnubg_0ply_se,
            j.loss_pubeval,
            j.loss_pubeval_se,
        );
    };
    for (k, t) in &classes {
        row(k, t);
    }
    row("all", &all);
    println!(
        "0-ply values of GNU Backgammon 2-ply's best {VALUED} plays, mean absolute error \
         against its 2-ply equities: of the equities, and of their differences to the best play's"
    );
    println!("class      equity err  diff err  | gnubg 0-ply equity err  diff err");
    let values = |name: &str, t: &Tally| {
        let j = t.json();
        println!(
            "{name:<8}   {:.4}      {:.4}    |             {:.4}      {:.4}",
            j.equity_error_0ply,
            j.difference_error_0ply,
            j.equity_error_gnubg_0ply,
            j.difference_error_gnubg_0ply,
        );
    };
    for (k, t) in &classes {
        values(k, t);
    }
    values("all", &all);
    match &args.baseline {
        Some(b) => println!(
            "Paired 0-ply losses (x1000): bgfarm over GNU Backgammon 0-ply, bgfarm minus it (SE); \
             baseline {b} (SE), bgfarm minus it (SE)"
        ),
        None => println!(
            "Paired 0-ply losses (x1000): bgfarm over GNU Backgammon 0-ply, bgfarm minus it (SE)"
        ),
    }
    let paired = |name: &str, t: &Tally| {
        let j = t.json();
        let mut line = format!(
            "{name:<8} {:>5}  ratio {:>5.2}  {:+6.2} ({:.2})",
            j.positions,
            j.ratio_gnubg_0ply,
            1000.0 * j.diff_gnubg_0ply,
            1000.0 * j.diff_gnubg_0ply_se,
        );
        if let (Some(l), Some(lse), Some(d), Some(dse)) = (
            j.loss_baseline,
            j.loss_baseline_se,
            j.diff_baseline,
            j.diff_baseline_se,
        ) {
            line += &format!(
                "  | baseline {:5.2} ({:.2})  {:+6.2} ({:.2})",
                1000.0 * l,
                1000.0 * lse,
                1000.0 * d,
                1000.0 * dse
            );
        }
        println!("{line}");
    };
    for (k, t) in &classes {
        paired(k, t);
    }
    paired("all", &all);
    if let Some(h) = hit_rate {
        println!("cache hits: {:.1}%", 100.0 * h);
    }
    if !worst.is_empty() {
        println!("largest 0-ply losses (GNU Backgammon 2-ply equities):");
        for w in &worst {
            println!(
                "  {} {}{} {:<8} loss {:.4}: {} ({:+.4}) against {} ({:+.4}); gnubg 0-ply loss {:.4}",
                w.position,
                w.dice[0],
                w.dice[1],
                w.class,
                w.loss_0ply,
                w.choice_0ply,
                w.choice_equity,
                w.best,
                w.best_equity,
                w.loss_gnubg_0ply,
            );
        }
    }
    Ok(())
}

/// One decision of the `--worst` list.
#[derive(Serialize)]
struct Worst {
    position: String,
    dice: [u8; 2],
    class: String,
    loss_0ply: f64,
    /// The 0-ply choice in notation and its GNU Backgammon 2-ply equity.
    choice_0ply: String,
    choice_equity: f64,
    /// GNU Backgammon 2-ply's best play in notation, and its equity.
    best: String,
    best_equity: f64,
    loss_gnubg_0ply: f64,
}

impl Worst {
    fn new(case: &Case, o: &Outcome) -> Worst {
        let best = &case.line.moves[0];
        Worst {
            position: case.line.pos.clone(),
            dice: case.line.dice,
            class: case.line.class.clone(),
            loss_0ply: o.loss0,
            choice_0ply: o.choice0.clone(),
            choice_equity: best.eq2 - o.loss0,
            best: o.gnubg_best.clone(),
            best_equity: best.eq2,
            loss_gnubg_0ply: o.loss_gnubg0,
        }
    }
}
