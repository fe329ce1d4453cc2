//! `bgfarm-lab bench race-referee`: the bench's race decisions scored again by the
//! tables and searches, where the choices disagree and the searches decide.
//!
//! Why: `bench hint` scores a choice by GNU Backgammon 2-ply's equities, which in
//! races rest on its race net. In gammon saves with stragglers far back that net is
//! off by more than the gaps between plays, and GNU Backgammon 0-ply shares its
//! errors, so there the bench charges a different choice for the referee's error.
//! With the nets of the time, three decisions of that kind were 0.049 of bgfarm 0-ply's
//! 0.086 total race loss (`u3kDAMCZhcEOAA` 6-1, `/zIAAHCvUFAUAA` 3-5,
//! `dwsAAFh5AzsAAA` 4-1), each one where the searches put bgfarm's play within 0.002
//! of the best or ahead. This command puts a number on that for the whole class:
//! for every race decision where GNU Backgammon 2-ply's best play, GNU Backgammon
//! 0-ply's choice (the file's best `eq0`) and bgfarm's 0-ply choice are not all one
//! play, it values every legal play by
//! [`searched_probs`](bgfarm_engine::eval::race::searched::searched_probs) (no
//! net anywhere) and, where every play is decided, scores the three choices by
//! those values instead. Where the three agree they lose alike under any referee;
//! those decisions count 0 for all three, as in the bench.
//!
//! Cost: a few seconds for most disputed decisions, minutes for savers with many
//! stragglers: at the default limit the bench's four far-back gammon saves took
//! 512 s (`u3kDAMCZhcEOAA` 6-1, 5.6 million first-off positions), 370, 102 and
//! 411 s on one core of the shared 2-core machine; each thread's memo may
//! hold up to twice the limit.

use super::oracle::{bench_file, gnubg_0ply_choice, loss_of, read_cases, Case, DEFAULT_FILE};
use super::referee_values::{PlayValues, SearchSettings, ValueStore};
use crate::cli::mean::Mean;
use crate::cli::search_args::{CacheArgs, EvalArgs};
use crate::cli::CliError;
use bgfarm_cli_common::progress::bar;
use bgfarm_engine::eval::bearoff::BearoffDb;
use bgfarm_engine::eval::race::distribution::{dominated_count, dominated_full_count, race_sides};
use bgfarm_engine::eval::race::gammon_save::Memo;
use bgfarm_engine::eval::race::searched::searched_probs;
use bgfarm_engine::ids::position_id;
use bgfarm_engine::notation::format_move;
use bgfarm_engine::search::Ladder;
use bgfarm_engine::MoveGenerator;
use rayon::prelude::*;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

#[derive(clap::Args)]
pub struct RefereeArgs {
    /// The bench file (JSON lines, see engine/testdata/oracle/README.md section 4).
    #[arg(long, default_value = DEFAULT_FILE)]
    pub file: PathBuf,
    /// Only the first L race decisions.
    #[arg(long, value_name = "L")]
    pub limit: Option<usize>,
    /// Most positions each side's one-sided search may reach (as `--exact-race`); a
    /// disputed decision with a play over it keeps the bench's scores. The default
    /// decides 80 of the bench's 91 disputed races, the four far-back gammon saves
    /// among them (first-off searches of up to 5.6 million positions), in 48 minutes
    /// on 2 cores.
    #[arg(long, value_name = "N", default_value_t = 6_000_000)]
    pub search_limit: u64,
    /// Most positions each exact gammon search may add (as `--exact-gammons`); over
    /// it the one-sided first-off search gives the gammon chance (0.001-0.004 from
    /// the exact one where both decide).
    #[arg(long, value_name = "N", default_value_t = 100_000)]
    pub gammon_budget: usize,
    /// Keep the searches' values of every play in this file (JSON lines, appended
    /// as decisions finish) and take those it already holds for the same limit,
    /// budget and tables from it: a rerun with other nets searches only the
    /// decisions they newly dispute.
    #[arg(long, value_name = "FILE")]
    pub values: Option<PathBuf>,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub eval: EvalArgs,
    #[command(flatten)]
    pub cache: CacheArgs,
}

/// Who chooses, in the order of every table and array here.
const CHOOSERS: [&str; 3] = [
    "GNU Backgammon 2-ply",
    "GNU Backgammon 0-ply",
    "bgfarm 0-ply",
];

/// One race decision, scored by both referees.
#[derive(Serialize)]
struct Decision {
    position: String,
    dice: [u8; 2],
    /// The three choices in notation, in [`CHOOSERS`]' order.
    choices: [String; 3],
    /// Their losses by the bench (GNU Backgammon 2-ply's equities).
    bench_loss: [f64; 3],
    /// Their losses by the searches, where every play is decided.
    searched_loss: Option<[f64; 3]>,
    /// The best play by the searches and its cubeless equity, where decided.
    searched_best: Option<(String, f64)>,
    /// What the bench charges that play (GNU Backgammon 2-ply's equities).
    searched_best_bench_loss: Option<f64>,
    seconds: f64,
}

#[derive(Serialize)]
struct Score {
    mean: f64,
    se: f64,
}

#[derive(Serialize)]
struct JsonOut {
    file: String,
    fingerprint: String,
    search_limit: u64,
    gammon_budget: usize,
    decisions: usize,
    disputed: usize,
    decided: usize,
    /// The bench's loss of the searches' best play, summed over the decided
    /// disputed decisions, per race decision.
    searched_choice_bench_loss: f64,
    /// Mean loss per race decision by each referee, for each chooser.
    bench: BTreeMap<&'static str, Score>,
    searched: BTreeMap<&'static str, Score>,
    /// The disputed decisions.
    disputed_decisions: Vec<Decision>,
}

pub fn race_referee(args: RefereeArgs) -> Result<(), CliError> {
    if args.limit == Some(0) {
        return Err(CliError::msg("--limit must be at least 1"));
    }
    let path = bench_file(&args.file);
    let cases = read_cases(&path, Some("race"), args.limit)?;
    if cases.is_empty() {
        return Err(CliError::msg(format!(
            "no race decision in {}",
            path.display()
        )));
    }
    let engine = args.eval.engine(args.cache.cache_mib)?;
    let db = BearoffDb::global();
    let (limit, budget) = (args.search_limit, args.gammon_budget);
    let settings = SearchSettings {
        search_limit: limit,
        gammon_budget: budget,
        tables: db.checksum(),
    };
    let store = match &args.values {
        Some(p) => {
            let s = ValueStore::open(p, settings)?;
            tracing::info!("{}: {} decisions searched before", p.display(), s.len());
            s
        }
        None => ValueStore::none(settings),
    };
    // Minutes to an hour on 2 cores: show the decisions done (not with --json).
    let bar = bar(args.json, cases.len() as u64, "decisions")?;
    // The costliest decisions first, handed out one at a time as threads come free:
    // a few take minutes each, and one of them started last would leave the other
    // threads idle while it runs.
    let mut order: Vec<usize> = (0..cases.len()).collect();
    order.sort_by_key(|&i| {
        let c = &cases[i];
        let cost = match store.get(&c.line.pos, c.line.dice) {
            Some(_) => 0,
            None => search_cost(c, limit),
        };
        std::cmp::Reverse(cost)
    });
    let mut decisions: Vec<(usize, Result<Option<Decision>, String>)> = engine.pool.install(|| {
        order
            .into_iter()
            .par_bridge()
            .map_init(
                || engine.searcher(),
                |s, i| {
                    let case = &cases[i];
                    let d = s
                        .best_move(&case.pos, case.dice, 0, &Ladder::all())
                        .map(|c| position_id::encode(&c.mv.next_position()))
                        .ok_or_else(|| format!("{}: no legal play", case.line.pos))
                        .and_then(|ours| decide(db, case, ours, &store));
                    bar.inc(1);
                    (i, d)
                },
            )
            .collect()
    });
    decisions.sort_by_key(|d| d.0);
    let decisions = decisions.into_iter().map(|d| d.1);
    bar.finish_and_clear();
    let mut disputed = Vec::new();
    let mut bench: [Mean; 3] = Default::default();
    let mut searched: [Mean; 3] = Default::default();
    for d in decisions {
        match d.map_err(CliError::msg)? {
            None => {
                for m in bench.iter_mut().chain(searched.iter_mut()) {
                    m.add(0.0);
                }
            }
            Some(d) => {
                let by_searches = d.searched_loss.unwrap_or(d.bench_loss);
                for i in 0..3 {
                    bench[i].add(d.bench_loss[i]);
                    searched[i].add(by_searches[i]);
                }
                disputed.push(d);
            }
        }
    }
    let decided = disputed
        .iter()
        .filter(|d| d.searched_loss.is_some())
        .count();
    // What the bench charges the searches' own choices, over the decisions they
    // decide (a lower bound on the bench loss of a player that is right there).
    let searched_choice_bench_loss: f64 = disputed
        .iter()
        .filter_map(|d| d.searched_best_bench_loss)
        .sum::<f64>()
        / cases.len() as f64;
    let score = |m: &[Mean; 3]| -> BTreeMap<&'static str, Score> {
        let keys = ["gnubg_2ply", "gnubg_0ply", "bgfarm_0ply"];
        keys.iter()
            .zip(m)
            .map(|(k, m)| {
                let s = Score {
                    mean: m.mean(),
                    se: m.se(),
                };
                (*k, s)
            })
            .collect()
    };
    if args.json {
        let out = JsonOut {
            file: path.display().to_string(),
            fingerprint: format!("{:016x}", engine.fingerprint),
            search_limit: limit,
            gammon_budget: budget,
            decisions: cases.len(),
            disputed: disputed.len(),
            decided,
            searched_choice_bench_loss,
            bench: score(&bench),
            searched: score(&searched),
            disputed_decisions: disputed,
        };
        println!("{}", serde_json::to_string(&out)?);
        return Ok(());
    }
    println!(
        "{}: {} race decisions, {} disputed (GNU Backgammon 2-ply's best play, its 0-ply choice \
         and bgfarm's 0-ply choice not all one play), {decided} of them decided by the searches \
         (limit {limit}, gammon budget {budget})",
        path.display(),
        cases.len(),
        disputed.len()
    );
    println!(
        "Mean loss per race decision x1000 (SE); where the three choices agree they lose alike \
         under any referee and count 0"
    );
    println!(
        "referee                         {:>22} {:>22} {:>22}",
        CHOOSERS[0], CHOOSERS[1], CHOOSERS[2]
    );
    let row = |name: &str, m: &[Mean; 3]| {
        let cell = |m: &Mean| format!("{:.3} ({:.3})", 1000.0 * m.mean(), 1000.0 * m.se());
        println!(
            "{name:<31} {:>22} {:>22} {:>22}",
            cell(&m[0]),
            cell(&m[1]),
            cell(&m[2])
        );
    };
    row("the bench (GNU 2-ply)", &bench);
    row("the searches where they decide", &searched);
    println!(
        "The searches' own best play, where they decide, costs by the bench {:.3} x1000 per \
         race decision",
        1000.0 * searched_choice_bench_loss
    );
    println!(
        "Disputed decisions: the three choices, then each one's loss x1000 by the bench / by \
         the searches ('-': a play over the limit)"
    );
    for d in &disputed {
        let by = |i: usize| {
            let s = d
                .searched_loss
                .map_or("-".to_string(), |l| format!("{:.1}", 1000.0 * l[i]));
            format!("{:.1}/{s}", 1000.0 * d.bench_loss[i])
        };
        println!(
            "  {} {}{}  {} | {} | {}   {} {} {}   {:.1} s",
            d.position,
            d.dice[0],
            d.dice[1],
            d.choices[0],
            d.choices[1],
            d.choices[2],
            by(0),
            by(1),
            by(2),
            d.seconds
        );
    }
    Ok(())
}

/// A rough measure of what a decision's searches cost: the positions each side of
/// the position before the play could reach, all-off and first-off, each at most
/// `limit` (a side over it is not searched).
fn search_cost(case: &Case, limit: u64) -> u64 {
    let Some((mover, opponent)) = race_sides(&case.pos) else {
        return 0;
    };
    [mover, opponent]
        .iter()
        .map(|s| dominated_count(s).min(limit) + dominated_full_count(s).min(limit))
        .sum()
}

/// Scores one decision by both referees; `None` when the three choices are one play.
/// `ours` is bgfarm's choice (the position it leads to). The plays' values come
/// from `store` where it has them, else from the searches (and go into it).
fn decide(
    db: &BearoffDb,
    case: &Case,
    ours: String,
    store: &ValueStore,
) -> Result<Option<Decision>, String> {
    let line = &case.line;
    let gnubg2 = line.moves[0].result.clone();
    let gnubg0 = gnubg_0ply_choice(line)?;
    if gnubg2 == gnubg0 && gnubg0 == ours {
        return Ok(None);
    }
    let choices = [gnubg2, gnubg0, ours];
    let mut bench_loss = [0.0; 3];
    for (l, c) in bench_loss.iter_mut().zip(&choices) {
        *l = loss_of(line, c)?;
    }
    let start = Instant::now();
    let mut gen = MoveGenerator::new();
    let legal = gen.generate(&case.pos, case.dice);
    let mut notation = BTreeMap::new();
    for m in legal {
        notation.insert(position_id::encode(&m.next_position()), format_move(m));
    }
    let values = match store.get(&line.pos, line.dice) {
        Some(v) if v.len() == notation.len() && notation.keys().all(|k| v.contains_key(k)) => {
            v.clone()
        }
        _ => {
            let (limit, budget) = (
                store.settings().search_limit,
                store.settings().gammon_budget,
            );
            let mut memo = Memo::default();
            let mut values = PlayValues::new();
            for m in legal {
                let next = m.next_position();
                // Seen by the opponent on roll: its chances turned round are the mover's.
                let v = searched_probs(db, &next, limit, budget, &mut memo)
                    .map(|p| f64::from(p.flip().equity()));
                values.insert(position_id::encode(&next), v);
            }
            store.put(&line.pos, line.dice, &values)?;
            values
        }
    };
    let decided: Option<BTreeMap<&String, f64>> =
        values.iter().map(|(k, v)| v.map(|v| (k, v))).collect();
    let best = decided.as_ref().and_then(|d| {
        d.iter()
            .max_by(|a, b| a.1.total_cmp(b.1))
            .map(|(k, v)| ((*k).clone(), *v))
    });
    let searched_loss = match (&decided, &best) {
        (Some(d), Some((_, top))) => {
            let mut l = [0.0; 3];
            for (l, c) in l.iter_mut().zip(&choices) {
                *l = top
                    - d.get(c)
                        .ok_or_else(|| format!("{}: play to {c} is not legal", line.pos))?;
            }
            Some(l)
        }
        _ => None,
    };
    let searched_best_bench_loss = best.as_ref().map(|(id, _)| loss_of(line, id)).transpose()?;
    let name = |id: &String| notation.get(id).cloned().unwrap_or_else(|| id.clone());
    Ok(Some(Decision {
        position: line.pos.clone(),
        dice: line.dice,
        choices: choices.each_ref().map(name),
        bench_loss,
        searched_loss,
        searched_best: best.map(|(id, v)| (name(&id), v)),
        searched_best_bench_loss,
        seconds: start.elapsed().as_secs_f64(),
    }))
}
