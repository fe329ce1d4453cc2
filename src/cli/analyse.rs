//! `bgfarm analyse FILE [--ply N] [--filter F] [--json] [--threads N]`: every
//! decision of a recorded match (GNU Backgammon `.sgf` or `.mat` match text) rated
//! against the engine, and per-player statistics like GNU Backgammon's match
//! statistics, with eXtreme Gammon's PR.
//!
//! The file is read whole and replayed through the move generator before anything
//! is evaluated (`bgfarm_engine::matchfile`), so a bad file fails at once with one
//! line naming the file and its line, and prints nothing else. Chequer plays are
//! ranked at `--ply` through the move filter, as `bgfarm hint` ranks them; cube
//! actions are valued by the cubeful lookahead of `bgfarm cube --ply` at the same
//! depth. Units and the cube-decision rules: see `analyse/rate.rs`; statistics and
//! thresholds: `analyse/report.rs`. The rates on the test matches next to GNU
//! Backgammon's own analysis: tests/data/matches/README.md. Not done yet: luck per
//! roll and the luck-adjusted result.

mod rate;
mod report;
mod rollouts;

use super::met::load_table;
use super::search_args::{check_ply, parse_filter, CacheArgs, EvalArgs};
use super::CliError;
use bgfarm_engine::cube::{Cube, Owner};
use bgfarm_engine::ids::match_id::{CubeOwner, MatchState};
use bgfarm_engine::ids::position_id;
use bgfarm_engine::matchfile::{self, Action, ActionKind, Game, Match};
use bgfarm_engine::met::MatchScore;
use rate::{CubeChoice, Rated};
use rayon::prelude::*;
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    /// The match: a GNU Backgammon .sgf file or .mat match text (the format is
    /// recognised from the content).
    pub file: String,
    /// Search depth of chequer plays and of the cubeful lookahead of cube actions
    /// (GNU Backgammon's plies, 0 = the raw nets), 0 to 3.
    #[arg(long, default_value_t = 2)]
    pub ply: u8,
    /// Move filter, as for `bgfarm hint` (normal = `0:8:0.16,1:8:0.08,2:2:0.04`).
    #[arg(long, default_value = "normal")]
    pub filter: String,
    /// Match equity table for match play: kazaross-xg2, keith:G=0.26 or a GNU
    /// Backgammon MET XML file.
    #[arg(long, default_value = "kazaross-xg2")]
    pub met: String,
    /// Print one JSON object: the players' statistics and every decision.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub eval: EvalArgs,
    #[command(flatten)]
    pub cache: CacheArgs,
    #[command(flatten)]
    pub rollouts: rollouts::RolloutFlags,
}

/// What a decision was about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Chequer,
    Cube(CubeChoice),
}

/// One rated decision.
#[derive(Clone, Debug)]
pub struct Decision {
    /// 1-based game number.
    pub game: u32,
    /// 1-based roll of the game the decision belongs to (a cube action: the roll it
    /// came before).
    pub move_no: u32,
    /// Who decided.
    pub player: u8,
    pub kind: Kind,
    /// GNU Backgammon ID `POSITION:MATCH` of the decision (the position seen by the
    /// player on roll, the match ID with the score, cube and dice).
    pub position: String,
    pub dice: Option<[u8; 2]>,
    pub rated: Rated,
    /// A chequer play with one legal choice.
    pub forced: bool,
    /// Counted in the statistics (chequer plays always; cube actions see `rate`).
    pub counted: bool,
}

/// A decision found in the file, not yet evaluated.
struct Pending<'a> {
    game: &'a Game,
    action: &'a Action,
    move_no: u32,
    kind: Kind,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let ply = check_ply(args.ply)?;
    let filter = parse_filter(&args.filter)?;
    let text = std::fs::read_to_string(&args.file)
        .map_err(|e| CliError::msg(format!("{}: cannot read: {e}", args.file)))?;
    let (format, m) =
        matchfile::parse(&text).map_err(|e| CliError::msg(format!("{}: {e}", args.file)))?;
    if let Some(g) = m
        .games
        .iter()
        .find(|g| m.length > 0 && g.score.iter().any(|&s| s >= m.length))
    {
        let line = g.actions.first().map_or(0, |a| a.line);
        return Err(CliError::msg(format!(
            "{}: line {line}: game {} starts after the {}-point match was won",
            args.file, g.number, m.length
        )));
    }
    let met = if m.length > 0 {
        Some(load_table(&args.met)?)
    } else {
        None
    };
    let engine = args.eval.engine(args.cache.cache_mib)?;
    let ladder = filter.ladder(ply);
    let start = Instant::now();
    let pending = decisions(&m);
    let mut out: Vec<Option<Decision>> = vec![None; pending.len()];
    // Chequer plays parallelise inside the ranking; cube lookaheads one per task.
    for (i, p) in pending.iter().enumerate() {
        if p.kind == Kind::Chequer {
            out[i] = Some(evaluate(&engine, &m, p, ply, &ladder, met.as_ref())?);
        }
    }
    let cubes: Vec<(usize, Decision)> = engine.pool.install(|| {
        pending
            .par_iter()
            .enumerate()
            .with_max_len(1)
            .filter(|(_, p)| p.kind != Kind::Chequer)
            .map(|(i, p)| evaluate(&engine, &m, p, ply, &ladder, met.as_ref()).map(|d| (i, d)))
            .collect::<Result<_, CliError>>()
    })?;
    for (i, d) in cubes {
        out[i] = Some(d);
    }
    let decisions: Vec<Decision> = out.into_iter().flatten().filter(|d| d.counted).collect();
    let rolled = rollouts::roll_out(&args.rollouts, &args.eval.net, &decisions)?;
    let seconds = start.elapsed().as_secs_f64();
    let info = report::Info {
        file: &args.file,
        format: format.as_str(),
        m: &m,
        ply,
        filter: filter.to_string(),
        met: met.as_ref().map(|t| t.name().to_string()),
        seconds,
        threads: engine.pool.current_num_threads(),
        rollouts: &rolled,
    };
    if args.json {
        println!("{}", report::json(&info, &decisions)?);
    } else {
        print!("{}", report::text(&info, &decisions));
    }
    Ok(())
}

/// The decisions of a match in order: every roll played (a chequer decision), and
/// before each roll but a game's first the cube decision of the player on roll
/// (unless they just doubled and were taken), every double, take and drop.
fn decisions(m: &Match) -> Vec<Pending<'_>> {
    let mut out = Vec::new();
    for game in &m.games {
        let mut rolls = 0u32;
        let mut previous: Option<&Action> = None;
        for a in &game.actions {
            let kind = match a.kind {
                ActionKind::Move { .. } | ActionKind::Rolled { .. } => {
                    let after_take = previous.is_some_and(|p| p.kind == ActionKind::Take);
                    if rolls > 0 && !after_take {
                        out.push(Pending {
                            game,
                            action: a,
                            move_no: rolls + 1,
                            kind: Kind::Cube(CubeChoice::NoDouble),
                        });
                    }
                    rolls += 1;
                    let is_play = matches!(
                        a.kind,
                        ActionKind::Move {
                            played: Some(_),
                            ..
                        }
                    );
                    is_play.then_some(Kind::Chequer)
                }
                ActionKind::Double => Some(Kind::Cube(CubeChoice::Double)),
                ActionKind::Take => Some(Kind::Cube(CubeChoice::Take)),
                ActionKind::Drop => Some(Kind::Cube(CubeChoice::Drop)),
            };
            if let Some(kind) = kind {
                let move_no = if kind == Kind::Chequer {
                    rolls
                } else {
                    rolls + 1
                };
                out.push(Pending {
                    game,
                    action: a,
                    move_no,
                    kind,
                });
            }
            previous = Some(a);
        }
    }
    out
}

/// The player on roll at an action: the actor, except for a take or drop (the
/// doubler is on roll).
fn on_roll(a: &Action) -> u8 {
    match a.kind {
        ActionKind::Take | ActionKind::Drop => 1 - a.player,
        _ => a.player,
    }
}

fn evaluate(
    engine: &bgfarm_cli_common::engine_args::search_args::Engine,
    m: &Match,
    p: &Pending<'_>,
    ply: u8,
    ladder: &bgfarm_engine::search::Ladder,
    met: Option<&bgfarm_engine::met::MatchEquityTable>,
) -> Result<Decision, CliError> {
    let a = p.action;
    let me = on_roll(a);
    let cube = Cube {
        value: a.cube.value,
        owner: match a.cube.owner {
            None => Owner::Centred,
            Some(o) if o == me => Owner::Mover,
            Some(_) => Owner::Opponent,
        },
    };
    let score = if m.length > 0 {
        let away = m.length.saturating_sub(p.game.score[me as usize]);
        let opp = m.length.saturating_sub(p.game.score[1 - me as usize]);
        let crawford = p.game.crawford && (away == 1) != (opp == 1);
        Some((m.length, MatchScore::new(away, opp, crawford)?))
    } else {
        None
    };
    let set = rate::setting(cube, score, m.jacoby);
    let (dice, played) = match a.kind {
        ActionKind::Move { dice, played } => (Some(dice), played),
        ActionKind::Rolled { dice } => (Some(dice), None),
        _ => (None, None),
    };
    let position = gnubg_id(m, p, me, dice.map(|d| d.values()));
    let (rated, forced, counted) = match (p.kind, dice, played) {
        (Kind::Chequer, Some(dice), Some(mv)) => {
            let r = rate::chequer(engine, &a.position, dice, &mv, (ply, ladder), &set, met);
            let forced = r.error.is_none();
            (r, forced, true)
        }
        (Kind::Cube(choice), _, _) => {
            let r = rate::cube(engine, &a.position, choice, u32::from(ply), &set, met);
            (r.rated, false, r.counted)
        }
        _ => return Err(CliError::msg("internal: a chequer decision without a play")),
    };
    Ok(Decision {
        game: p.game.number,
        move_no: p.move_no,
        player: a.player,
        kind: p.kind,
        position,
        dice: dice.filter(|_| p.kind == Kind::Chequer).map(|d| {
            let (x, y) = d.values();
            [x, y]
        }),
        rated,
        forced,
        counted,
    })
}

/// `POSITION:MATCH`, the form `bgfarm hint` and `bgfarm cube` read.
fn gnubg_id(m: &Match, p: &Pending<'_>, me: u8, dice: Option<(u8, u8)>) -> String {
    let a = p.action;
    let pos = position_id::encode(&a.position);
    let state = MatchState {
        cube: a.cube.value,
        cube_owner: a.cube.owner.map_or(CubeOwner::Centered, CubeOwner::Player),
        dice_owner: me,
        crawford: p.game.crawford,
        turn: a.player,
        doubled: matches!(a.kind, ActionKind::Take | ActionKind::Drop),
        dice: if p.kind == Kind::Chequer { dice } else { None },
        match_length: m.length,
        score: p.game.score,
        ..MatchState::default()
    };
    match state.validate() {
        Ok(()) => format!("{pos}:{}", state.encode()),
        Err(_) => pos,
    }
}
