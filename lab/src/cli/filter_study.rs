//! `bgfarm-lab filter-study --ply N --decisions K --filters F... [--out DIR]`: how much
//! each move filter costs against a search of every play, and how much time it saves.
//!
//! The method of the published HedgeHog study (shared/reference/move-filters-study.txt):
//! 1. Generate K decisions (position and roll with at least two legal plays) from
//!    self-play of the nets at 0-ply; game `g` rolls `Rng::for_stream(seed, g)`.
//! 2. Evaluate every play of every decision at every ply from 0 to N, recording each
//!    value, its time and its network evaluations (without the cache, so each cost is
//!    the play's own).
//! 3. Replay each filter on the records with the engine's own ladder procedure
//!    (`run_ladder`), which evaluates exactly what the filter would have evaluated.
//!    Its choice costs `best N-ply equity - N-ply equity of the choice` (0 when it
//!    picks a best play). Per filter: the share of decisions where it agrees with
//!    the search of every play (cost 0), the mean cost per decision with its standard
//!    error, the decisions losing >= 0.020, the worst one, the plays searched at full
//!    depth, and the speed-up: time (and evaluations) of the search of every play
//!    divided by the filter's.
//!
//! Prints a table; `--out DIR` also writes `filter-study.csv` (one row per filter)
//! and `decisions.csv` (one row per decision, the cost of each filter).
//!
//! Measured (`bgfarm-lab filter-study --ply 2 --decisions 2000`, prune 8, seed 1;
//! release build, 2 threads, ~8 minutes on a shared 2-core machine):
//!
//! | nets | filter | agree | cost/decision (SE) | >= 0.020 | speed-up |
//! |---|---|---|---|---|---|
//! | default (150k games) | normal (`0:8:0.16`) | 98.1% | 0.00050 (0.00011) | 18 | 3.9x |
//! | | tiny | 94.8% | 0.00142 (0.00023) | 45 | 7.0x |
//! | | large | 99.5% | 0.00019 (0.00008) | 7 | 2.0x |
//! | | xg-normal (`0:8:0.16,1:4:0.08`) | 95.8% | 0.00073 (0.00013) | 24 | 7.0x |
//! | | xg-large | 98.6% | 0.00026 (0.00008) | 9 | 4.6x |
//! | checkpoint after 1.25M games | normal | 98.8% | 0.00030 (0.00008) | 9 | 4.0x |
//! | | xg-large | 99.1% | 0.00019 (0.00007) | 6 | 4.8x |
//! | self-consistency nets (Nov 2026, 78 s) | normal, then `0:8:0.16` (now gnu-normal) | 99.6% | 0.00004 (0.00003) | 1 | 4.2x |
//! | | narrow, then `0:8:0.12` (now gnu-narrow) | 99.6% | 0.00004 (0.00003) | 1 | 4.9x |
//! | | xg-large | 99.5% | 0.00004 (0.00003) | 1 | 5.2x |
//! | the same nets (Nov 30, 54 s) | normal (`0:8:0.16,1:8:0.08`) | 99.5% | 0.00005 (0.00003) | 1 | 5.8x |
//! | | tiny (`0:5:0.08,1:5:0.04`) | 98.4% | 0.00021 (0.00005) | 8 | 10.4x |
//! | | narrow (`0:8:0.12,1:8:0.06`) | 99.5% | 0.00006 (0.00003) | 1 | 6.9x |
//! | | large (`0:16:0.32,1:16:0.16`) | 100.0% | 0.00000 (0.00000) | 0 | 3.1x |
//! | | gnu-normal (`0:8:0.16`) | 99.6% | 0.00004 (0.00003) | 1 | 4.3x |
//!
//! The speed-up of a one-step filter is bounded by the plays it keeps: GNU
//! Backgammon's normal ladder keeps 4.6 to 5.2 of 18.6 to 19.7 plays here. With GNU
//! Backgammon's own nets on the 1000 oracle bench positions it would keep 4.6 of
//! 20.4 (99.2% agree, about 4.6x; computed from the file's `eq0`/`eq2`). That is why
//! bgfarm's presets put a 1-ply step before the 2-ply search (see
//! `bgfarm_engine::search::filter`): the normal ladder searches 3.3 plays at 2-ply.

use super::mean::Mean;
use super::search_args::{check_ply, parse_filter, EvalArgs};
use super::CliError;
use bgfarm_engine::eval::Probs;
use bgfarm_engine::ids::position_id;
use bgfarm_engine::rng::Rng;
use bgfarm_engine::search::{candidates, run_ladder, Candidate, Ladder, MoveFilter, Searcher};
use bgfarm_engine::{Dice, Move, MoveGenerator, Position};
use rayon::prelude::*;
use serde::Serialize;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Instant;

/// Filters scored when `--filters` is not given.
const DEFAULT_FILTERS: [&str; 11] = [
    "tiny",
    "narrow",
    "normal",
    "large",
    "huge",
    "gnu-narrow",
    "gnu-normal",
    "xg-normal",
    "xg-large",
    "normal+top2",
    "0:5:0.08,1:3:0.04",
];

/// A decision losing at least this much counts as a miss (the study's line).
const MISS: f64 = 0.020;

#[derive(clap::Args)]
pub struct Args {
    /// Depth of the reference search (every play) in GNU Backgammon's plies, 1 to 3.
    #[arg(long, default_value_t = 2)]
    pub ply: u8,
    /// Decisions to generate from self-play.
    #[arg(long, default_value_t = 2000)]
    pub decisions: usize,
    /// Filters to score: presets or custom ladders (see `bgfarm hint --help`),
    /// separated by spaces. Default: tiny narrow normal large huge gnu-narrow
    /// gnu-normal xg-normal xg-large normal+top2 0:5:0.08,1:3:0.04.
    #[arg(long, num_args = 1..)]
    pub filters: Vec<String>,
    /// Self-play seed: the same seed gives the same decisions.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Directory for filter-study.csv and decisions.csv (created if missing).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub eval: EvalArgs,
}

/// A decision from self-play.
struct Decision {
    pos: Position,
    dice: Dice,
}

/// One play of a decision, evaluated at every ply `0..=N`.
struct PlayRecord {
    mv: Move,
    probs: [Probs; 4],
    seconds: [f64; 4],
    evals: [u64; 4],
}

/// What one filter did on one decision.
struct Replay {
    loss: f64,
    seconds: f64,
    evals: u64,
    full_depth: usize,
}

#[derive(Serialize)]
struct FilterRow {
    filter: String,
    ladder: String,
    decisions: u64,
    agree: f64,
    mean_loss: f64,
    se: f64,
    misses_020: u64,
    worst: f64,
    plays_full_depth: f64,
    seconds: f64,
    evals: u64,
    speedup_time: f64,
    speedup_evals: f64,
}

#[derive(Serialize)]
struct JsonOut {
    ply: u8,
    decisions: usize,
    seed: u64,
    prune: u8,
    record_seconds: f64,
    filters: Vec<FilterRow>,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let ply = check_ply(args.ply)?;
    if ply == 0 {
        return Err(CliError::msg(
            "--ply must be at least 1: at 0-ply there is nothing to filter",
        ));
    }
    if args.decisions == 0 || args.decisions > 1_000_000 {
        return Err(CliError::msg("--decisions must be 1 to 1000000"));
    }
    let names: Vec<String> = if args.filters.is_empty() {
        DEFAULT_FILTERS.iter().map(|s| s.to_string()).collect()
    } else {
        args.filters.clone()
    };
    let mut filters: Vec<(String, MoveFilter)> = vec![("all".into(), MoveFilter::all())];
    for n in &names {
        filters.push((n.clone(), parse_filter(n)?));
    }
    if let Some(dir) = &args.out {
        std::fs::create_dir_all(dir)
            .map_err(|e| CliError::msg(format!("cannot create {}: {e}", dir.display())))?;
    }
    // The study measures each play's own cost: no cache.
    let engine = args.eval.engine(0)?;
    let searcher = || engine.searcher();
    let decisions = self_play(&mut searcher(), args.seed, args.decisions);
    let start = Instant::now();
    let records: Vec<Vec<PlayRecord>> = engine.pool.install(|| {
        decisions
            .par_iter()
            .with_max_len(1)
            .map_init(searcher, |s, d| record(s, d, ply))
            .collect()
    });
    let record_seconds = start.elapsed().as_secs_f64();

    let (mut rows, losses): (Vec<FilterRow>, Vec<Vec<f64>>) = filters
        .iter()
        .map(|(name, filter)| score(name, &filter.ladder(ply), &records, ply))
        .unzip();
    // Row 0 is `all`, the search of every play.
    let (base_s, base_e) = (rows[0].seconds, rows[0].evals);
    for r in &mut rows {
        r.speedup_time = base_s / r.seconds.max(1e-12);
        r.speedup_evals = base_e as f64 / r.evals.max(1) as f64;
    }

    if let Some(dir) = &args.out {
        write_csv(dir, &rows, &filters, &decisions, &records, &losses)?;
    }
    if args.json {
        let out = JsonOut {
            ply,
            decisions: decisions.len(),
            seed: args.seed,
            prune: engine.prune.keep,
            record_seconds,
            filters: rows,
        };
        println!("{}", serde_json::to_string(&out)?);
        return Ok(());
    }
    let contact = decisions.iter().filter(|d| d.pos.has_contact()).count();
    let plays: usize = records.iter().map(Vec::len).sum();
    println!(
        "{} decisions from self-play (seed {}, {contact} with contact, {:.1} plays each); \
         reference: every play searched at {ply}-ply (prune {}); recorded in {record_seconds:.0} s \
         on {} threads",
        decisions.len(),
        args.seed,
        plays as f64 / decisions.len().max(1) as f64,
        engine.prune.keep,
        engine.pool.current_num_threads(),
    );
    let width = rows
        .iter()
        .map(|r| r.filter.len())
        .max()
        .unwrap_or(6)
        .max(6);
    let lwidth = rows
        .iter()
        .map(|r| r.ladder.len())
        .max()
        .unwrap_or(6)
        .max(6);
    println!(
        "{:<width$}  {:<lwidth$}   agree  cost/decision (SE)    >=0.020   worst  plays@{ply}  speed-up  (evals)",
        "filter", "ladder"
    );
    for r in &rows {
        println!(
            "{:<width$}  {:<lwidth$}  {:>5.1}%  {:.5} ({:.5})  {:>8}  {:.4}  {:>7.2}  {:>7.1}x  ({:.1}x)",
            r.filter,
            r.ladder,
            100.0 * r.agree,
            r.mean_loss,
            r.se,
            r.misses_020,
            r.worst,
            r.plays_full_depth,
            r.speedup_time,
            r.speedup_evals,
        );
    }
    Ok(())
}

/// The first `k` decisions with at least two legal plays of self-play games at 0-ply.
fn self_play(s: &mut Searcher<'_>, seed: u64, k: usize) -> Vec<Decision> {
    let mut out = Vec::with_capacity(k);
    let mut gen = MoveGenerator::new();
    let all = Ladder::all();
    let mut game = 0u64;
    while out.len() < k {
        let mut rng = Rng::for_stream(seed, game);
        game += 1;
        let mut pos = Position::STARTING;
        let mut dice = loop {
            let d = rng.roll();
            if !d.is_double() {
                break d;
            }
        };
        while !pos.game_over() && out.len() < k {
            if gen.generate(&pos, dice).len() >= 2 {
                out.push(Decision { pos, dice });
            }
            pos = match s.best_move(&pos, dice, 0, &all) {
                Some(c) => c.mv.next_position(),
                None => pos.switch_sides(),
            };
            dice = rng.roll();
        }
    }
    out
}

/// Every play of `d` evaluated at plies `0..=n` (n <= 3), timed.
fn record(s: &mut Searcher<'_>, d: &Decision, n: u8) -> Vec<PlayRecord> {
    candidates(&d.pos, d.dice)
        .into_iter()
        .map(|c| {
            let mut r = PlayRecord {
                mv: c.mv,
                probs: [Probs::default(); 4],
                seconds: [0.0; 4],
                evals: [0; 4],
            };
            for p in 0..=n {
                let before = s.stats().evals;
                let start = Instant::now();
                r.probs[usize::from(p)] = s.move_probs(&c.mv, p);
                r.seconds[usize::from(p)] = start.elapsed().as_secs_f64();
                r.evals[usize::from(p)] = s.stats().evals - before;
            }
            r
        })
        .collect()
}

/// Replays `ladder` on every decision: its row (speed-ups still to be set) and its
/// loss per decision.
fn score(name: &str, ladder: &Ladder, records: &[Vec<PlayRecord>], n: u8) -> (FilterRow, Vec<f64>) {
    let replays: Vec<Replay> = records.iter().map(|r| replay(r, n, ladder)).collect();
    let mut loss = Mean::default();
    let (mut agree, mut misses, mut worst, mut seconds, mut evals, mut full) =
        (0u64, 0u64, 0f64, 0f64, 0u64, 0usize);
    for r in &replays {
        loss.add(r.loss);
        agree += u64::from(r.loss == 0.0);
        misses += u64::from(r.loss >= MISS);
        worst = worst.max(r.loss);
        seconds += r.seconds;
        evals += r.evals;
        full += r.full_depth;
    }
    let count = replays.len().max(1) as f64;
    let row = FilterRow {
        filter: name.to_string(),
        ladder: ladder.to_string(),
        decisions: loss.count(),
        agree: agree as f64 / count,
        mean_loss: loss.mean(),
        se: loss.se(),
        misses_020: misses,
        worst,
        plays_full_depth: full as f64 / count,
        seconds,
        evals,
        speedup_time: 1.0,
        speedup_evals: 1.0,
    };
    (row, replays.iter().map(|r| r.loss).collect())
}

/// Runs `ladder` on the recorded values of one decision.
fn replay(records: &[PlayRecord], n: u8, ladder: &Ladder) -> Replay {
    let find = |m: &Move| records.iter().find(|r| r.mv == *m);
    let mut cands: Vec<Candidate> = records.iter().map(|r| Candidate::new(r.mv)).collect();
    let (mut seconds, mut evals) = (0.0, 0u64);
    let mut full_depth = 0;
    run_ladder(&mut cands, n, ladder, |slice, p| {
        let p_ = usize::from(p);
        for c in slice.iter_mut() {
            if let Some(r) = find(&c.mv) {
                c.probs = r.probs[p_];
                c.ply = p;
                seconds += r.seconds[p_];
                evals += r.evals[p_];
            }
        }
        if p == n {
            full_depth = slice.len();
        }
    });
    let deep = |r: &PlayRecord| f64::from(r.probs[usize::from(n)].equity());
    let best = records.iter().map(deep).fold(f64::NEG_INFINITY, f64::max);
    let chosen = cands.first().and_then(|c| find(&c.mv)).map_or(best, deep);
    Replay {
        loss: best - chosen,
        seconds,
        evals,
        full_depth,
    }
}

fn write_csv(
    dir: &std::path::Path,
    rows: &[FilterRow],
    filters: &[(String, MoveFilter)],
    decisions: &[Decision],
    records: &[Vec<PlayRecord>],
    losses: &[Vec<f64>],
) -> Result<(), CliError> {
    let q = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
    let mut t = String::from(
        "filter,ladder,decisions,agree,mean_loss,se,misses_020,worst,plays_full_depth,\
         seconds,evals,speedup_time,speedup_evals\n",
    );
    for r in rows {
        let _ = writeln!(
            t,
            "{},{},{},{},{},{},{},{},{},{},{},{},{}",
            q(&r.filter),
            q(&r.ladder),
            r.decisions,
            r.agree,
            r.mean_loss,
            r.se,
            r.misses_020,
            r.worst,
            r.plays_full_depth,
            r.seconds,
            r.evals,
            r.speedup_time,
            r.speedup_evals
        );
    }
    let write = |name: &str, text: &str| {
        let p = dir.join(name);
        std::fs::write(&p, text)
            .map_err(|e| CliError::msg(format!("cannot write {}: {e}", p.display())))
    };
    write("filter-study.csv", &t)?;
    let mut d = String::from("decision,position,dice,plays,contact");
    for (name, _) in filters {
        let _ = write!(d, ",{}", q(&format!("loss {name}")));
    }
    d.push('\n');
    for (i, (dec, rec)) in decisions.iter().zip(records).enumerate() {
        let _ = write!(
            d,
            "{i},{},{},{},{}",
            position_id::encode(&dec.pos),
            dec.dice,
            rec.len(),
            dec.pos.has_contact()
        );
        for l in losses {
            let _ = write!(d, ",{}", l[i]);
        }
        d.push('\n');
    }
    write("decisions.csv", &d)
}
