//! `bgfarm hint POS [DICE] [--ply N] [--filter NAME|SPEC] [--json]`: the plays of a
//! roll ranked by an n-ply search, like GNU Backgammon's `hint`.
//!
//! Every play is evaluated at 0-ply, then the move filter decides which go deeper
//! (see `bgfarm_engine::search::filter` for the presets and the `PLY:MAX:THRESHOLD`
//! syntax). Plays are listed by the ply they reached, deepest first, then by cubeless
//! equity, each with its difference to the best, its five probabilities and that
//! ply. Plies are GNU Backgammon's: 0-ply is the raw nets. When a filter step keeps a
//! single play, the search stops there (it is the choice), as GNU Backgammon does.
//!
//! JSON: `{"position", "dice", "ply", "filter", "moves": [{"move", "result",
//! "equity", "probs", "ply"}], "seconds"}`, where `result` is the position ID after
//! the play seen by the next player (as `bgfarm moves` prints it) and `probs` are
//! `[win, win gammon, win backgammon, lose gammon, lose backgammon]` for the player
//! on roll.
//!
//! `--positions FILE` ranks the plays of every line of a positions file
//! (`POSITION [DICE]`, as `position_list` reads it; the dice from the line or the
//! ID) with one engine and one evaluation cache: a table per line, or one JSON
//! object `{"positions": [...]}` of the objects above. Every line is checked before
//! anything is searched, and a bad one is named by its line.

use super::input::{dice_for, parse_position};
use super::position_list;
use super::search_args::{check_ply, parse_filter, CacheArgs, EvalArgs};
use super::CliError;
use bgfarm_cli_common::engine_args::search_args::Engine;
use bgfarm_engine::ids::position_id;
use bgfarm_engine::notation::format_move;
use bgfarm_engine::search::filter::Ladder;
use bgfarm_engine::{Dice, Position};
use serde::Serialize;
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    /// Position: GNU Backgammon position ID (optionally `ID:MATCHID`) or XGID.
    #[arg(required_unless_present = "positions")]
    pub position: Option<String>,
    /// Dice, e.g. `31` or `3-1`. May be omitted when the XGID or match ID holds dice.
    pub dice: Option<String>,
    /// Rank the plays of every line of FILE instead: one line each, `POSITION
    /// [DICE]` (a GNU Backgammon ID or an XGID, whose dice are played when DICE is
    /// left out), `#` for comments; one table per line, or one JSON object with a
    /// `positions` array.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["position", "dice"])]
    pub positions: Option<std::path::PathBuf>,
    /// Search depth in GNU Backgammon's plies (0 = the raw nets), 0 to 3.
    #[arg(long, default_value_t = 2)]
    pub ply: u8,
    /// Move filter: all, tiny, narrow, normal, large, huge (GNU Backgammon's ladders
    /// with a 1-ply step added: normal = `0:8:0.16,1:8:0.06,2:2:0.04`), gnu-tiny ...
    /// gnu-huge (GNU Backgammon's exactly: gnu-normal = `0:8:0.16,2:2:0.04`),
    /// xg-normal, xg-large, xg-huge, xg-gigantic, or steps PLY:MAX:THRESHOLD[:KEEP]
    /// joined by commas; append `+topK` to always keep the top K.
    #[arg(long, default_value = "normal")]
    pub filter: String,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub eval: EvalArgs,
    #[command(flatten)]
    pub cache: CacheArgs,
}

#[derive(Serialize)]
struct JsonMove {
    #[serde(rename = "move")]
    notation: String,
    result: String,
    equity: f32,
    probs: [f32; 5],
    ply: u8,
}

#[derive(Serialize)]
struct JsonOut {
    position: String,
    dice: [u8; 2],
    ply: u8,
    filter: String,
    moves: Vec<JsonMove>,
    seconds: f64,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let ply = check_ply(args.ply)?;
    let filter = parse_filter(&args.filter)?;
    // Every position checked before the engine is built or anything searched.
    let items: Vec<(String, Position, Dice)> = match (&args.positions, &args.position) {
        (Some(path), _) => position_list::read(path)?
            .into_iter()
            .map(|l| {
                let at = |e: &str| {
                    CliError::msg(format!("{}: line {}: {e}", path.display(), l.number))
                };
                if l.moves.is_some() {
                    return Err(at("a hint line is POSITION [DICE]: no moves after the dice"));
                }
                let dice = l.dice.ok_or_else(|| {
                    at("no dice: add them after the position (e.g. 31) or use an ID with dice rolled")
                })?;
                Ok((l.typed, l.input.position, dice))
            })
            .collect::<Result<_, _>>()?,
        (None, Some(typed)) => {
            let input = parse_position(typed)?;
            let dice = dice_for(&input, args.dice.as_deref())?;
            if input.position.game_over() {
                return Err(CliError::msg(
                    "the game in this position is over: nobody moves",
                ));
            }
            vec![(typed.trim().to_string(), input.position, dice)]
        }
        (None, None) => return Err(CliError::msg("give a position or --positions FILE")),
    };
    let engine = args.eval.engine(args.cache.cache_mib)?;
    let ladder = filter.ladder(ply);
    let filter_name = filter.to_string();
    let one = |(typed, pos, dice): &(String, Position, Dice)| {
        hint(&engine, &ladder, (typed, pos, *dice), ply, &filter_name)
    };
    let list = args.positions.is_some();
    if args.json {
        let outs: Vec<JsonOut> = items.iter().map(one).collect();
        println!("{}", position_list::json_text(list, outs)?);
        return Ok(());
    }
    // Each table as soon as its search is done.
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            println!();
        }
        print_table(&one(item), &ladder.to_string(), &engine, list);
    }
    Ok(())
}

/// One position's plays of `dice` ranked with `ladder` to `ply` plies.
fn hint(
    engine: &Engine,
    ladder: &Ladder,
    (typed, pos, dice): (&str, &Position, Dice),
    ply: u8,
    filter: &str,
) -> JsonOut {
    let start = Instant::now();
    let ranked = engine.rank_parallel(pos, dice, ply, ladder);
    let seconds = start.elapsed().as_secs_f64();
    let (d1, d2) = dice.values();
    JsonOut {
        position: typed.to_string(),
        dice: [d1, d2],
        ply,
        filter: filter.to_string(),
        moves: ranked
            .iter()
            .map(|c| JsonMove {
                notation: format_move(&c.mv),
                result: position_id::encode(&c.mv.next_position()),
                equity: c.equity(),
                probs: c.probs.0,
                ply: c.ply,
            })
            .collect(),
        seconds,
    }
}

/// The text table of one hint.
/// `list`: one of a positions file's (the position heads a forfeited roll's line).
fn print_table(out: &JsonOut, ladder: &str, engine: &Engine, list: bool) {
    let dice = format!("{}{}", out.dice[0], out.dice[1]);
    let moves = &out.moves;
    if moves.is_empty() {
        let who = if list {
            format!("{}: n", out.position)
        } else {
            "N".to_string()
        };
        println!("{who}o legal move with {dice}: the roll is forfeited.");
        return;
    }
    println!(
        "{} to play {dice}: {} plays, {}-ply, filter {} ({ladder}), cubeless",
        out.position,
        moves.len(),
        out.ply,
        out.filter,
    );
    let width = moves
        .iter()
        .map(|m| m.notation.len())
        .max()
        .unwrap_or(0)
        .max(4);
    println!(
        "  # ply  {:<width$}  equity     diff    win   w(g)  w(bg)   lose   l(g)  l(bg)",
        "play"
    );
    let best = moves[0].equity;
    for (i, m) in moves.iter().enumerate() {
        let diff = if i == 0 {
            String::new()
        } else {
            format!("{:+.4}", m.equity - best)
        };
        let [w, wg, wbg, lg, lbg] = m.probs;
        println!(
            "{:>3} {:>3}  {:<width$}  {:+.4}  {diff:>7}  {w:.3}  {wg:.3}  {wbg:.3}  {:.3}  {lg:.3}  {lbg:.3}",
            i + 1,
            m.ply,
            m.notation,
            m.equity,
            1.0 - w,
        );
    }
    let seconds = out.seconds;
    if let Some(cache) = &engine.cache {
        let st = cache.stats();
        println!(
            "{seconds:.3} s on {} threads; cache {:.1}% hits of {} lookups",
            engine.pool.current_num_threads(),
            100.0 * st.hit_rate(),
            st.hits + st.misses
        );
    } else {
        println!(
            "{seconds:.3} s on {} threads",
            engine.pool.current_num_threads()
        );
    }
}
