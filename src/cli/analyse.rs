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
//! Backgammon's own analysis: tests/data/matches/README.md. Luck per roll and the
//! luck-adjusted result: `analyse/luck.rs`. `--html OUT.html`: one self-contained
//! page with a board for every marked decision (`analyse/html.rs`).

mod html;
mod luck;
mod rate;
mod report;
mod rollouts;

use super::met::load_table;
use super::search_args::{check_ply, parse_filter, CacheArgs, EvalArgs};
use super::CliError;
use bgfarm_engine::cube::{Cube, Owner};
use bgfarm_engine::ids::match_id::{CubeOwner, MatchState};
use bgfarm_engine::ids::position_id;
use bgfarm_engine::matchfile::{self, Action, ActionKind, CubeState, Game, Match};
use bgfarm_engine::met::MatchScore;
use bgfarm_engine::Position;
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
    /// Search depth at which the best play of each roll is chosen for the luck of a
    /// roll (0 to 3). On the 5-point test match 0 takes 0.3-0.6 s (3% of a 2-ply
    /// analysis), 1 about 8 s, 2 about 280 s (docs/research-log.md).
    #[arg(long, default_value_t = 0)]
    pub luck_ply: u8,
    /// Also write one self-contained HTML page: the statistics and a board diagram of
    /// every decision marked doubtful or worse or rolled out.
    #[arg(long, value_name = "OUT.html")]
    pub html: Option<std::path::PathBuf>,
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
    /// The luck of the roll of a chequer decision (EMG; see `luck`).
    pub luck: Option<f64>,
    /// The board seen by the player on roll, the cube before the decision, the score
    /// at the game's start (player 0 first) and the Crawford flag: the HTML board.
    pub board: Position,
    pub cube: CubeState,
    pub score: [u32; 2],
    pub crawford: bool,
    /// The player on roll (the doubler at a take or drop).
    pub on_roll: u8,
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
    let luck_ply = check_ply(args.luck_ply)
        .map_err(|_| CliError::msg(format!("--luck-ply {}: use 0 to 3", args.luck_ply)))?;
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
    // Created before the analysis, so a path that cannot be written fails at once.
    let html_out = match &args.html {
        Some(path) => Some((
            path,
            std::fs::File::create(path)
                .map_err(|e| CliError::msg(format!("{}: cannot write: {e}", path.display())))?,
        )),
        None => None,
    };
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
    let mut decisions: Vec<Decision> = out.into_iter().flatten().filter(|d| d.counted).collect();
    let luck_ladder = filter.ladder(luck_ply);
    let luck_start = Instant::now();
    let rolls = luck::luck(&engine, &rolls(&m)?, (luck_ply, &luck_ladder), met.as_ref());
    let luck_seconds = luck_start.elapsed().as_secs_f64();
    for d in decisions.iter_mut().filter(|d| d.kind == Kind::Chequer) {
        d.luck = rolls
            .iter()
            .find(|r| (r.game, r.move_no, r.player) == (d.game, d.move_no, d.player))
            .map(|r| r.emg);
    }
    let luck_stats = luck::stats(&m, &rolls, met.as_ref());
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
        luck: &luck_stats,
        luck_ply,
        luck_seconds,
    };
    if let Some((path, mut file)) = html_out {
        use std::io::Write;
        file.write_all(html::page(&info, &decisions).as_bytes())
            .map_err(|e| CliError::msg(format!("{}: cannot write: {e}", path.display())))?;
    }
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
    let set = setting_at(m, p.game, a)?;
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
        luck: None,
        board: a.position,
        cube: a.cube,
        score: p.game.score,
        crawford: p.game.crawford,
        on_roll: me,
    })
}

/// The cube and score of an action, seen by the player on roll.
fn setting_at(m: &Match, game: &Game, a: &Action) -> Result<super::cube::Setting, CliError> {
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
        let away = m.length.saturating_sub(game.score[me as usize]);
        let opp = m.length.saturating_sub(game.score[1 - me as usize]);
        let crawford = game.crawford && (away == 1) != (opp == 1);
        Some((m.length, MatchScore::new(away, opp, crawford)?))
    } else {
        None
    };
    Ok(rate::setting(cube, score, m.jacoby))
}

/// Every roll of the match (played or not; a roll left unplayed by a resignation is
/// not one), numbered as the decisions are.
fn rolls(m: &Match) -> Result<Vec<luck::Roll>, CliError> {
    let mut out = Vec::new();
    for game in &m.games {
        let mut n = 0u32;
        for a in &game.actions {
            match a.kind {
                ActionKind::Move { dice, .. } => {
                    n += 1;
                    out.push(luck::Roll {
                        game: game.number,
                        move_no: n,
                        player: a.player,
                        position: a.position,
                        dice,
                        set: setting_at(m, game, a)?,
                        opening: n == 1,
                    });
                }
                ActionKind::Rolled { .. } => n += 1,
                _ => {}
            }
        }
    }
    Ok(out)
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
