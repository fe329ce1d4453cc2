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

use super::input::{dice_for, parse_position};
use super::search_args::{check_ply, parse_filter, CacheArgs, EvalArgs};
use super::CliError;
use bgfarm_engine::ids::position_id;
use bgfarm_engine::notation::format_move;
use serde::Serialize;
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    /// Position: GNU Backgammon position ID (optionally `ID:MATCHID`) or XGID.
    pub position: String,
    /// Dice, e.g. `31` or `3-1`. May be omitted when the XGID or match ID holds dice.
    pub dice: Option<String>,
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
struct JsonOut<'a> {
    position: &'a str,
    dice: [u8; 2],
    ply: u8,
    filter: String,
    moves: Vec<JsonMove>,
    seconds: f64,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let input = parse_position(&args.position)?;
    let dice = dice_for(&input, args.dice.as_deref())?;
    let ply = check_ply(args.ply)?;
    let filter = parse_filter(&args.filter)?;
    if input.position.game_over() {
        return Err(CliError::msg(
            "the game in this position is over: nobody moves",
        ));
    }
    let engine = args.eval.engine(args.cache.cache_mib)?;
    let ladder = filter.ladder(ply);
    let start = Instant::now();
    let ranked = engine.rank_parallel(&input.position, dice, ply, &ladder);
    let seconds = start.elapsed().as_secs_f64();
    let moves: Vec<JsonMove> = ranked
        .iter()
        .map(|c| JsonMove {
            notation: format_move(&c.mv),
            result: position_id::encode(&c.mv.next_position()),
            equity: c.equity(),
            probs: c.probs.0,
            ply: c.ply,
        })
        .collect();
    let (d1, d2) = dice.values();
    if args.json {
        let out = JsonOut {
            position: args.position.trim(),
            dice: [d1, d2],
            ply,
            filter: filter.to_string(),
            moves,
            seconds,
        };
        println!("{}", serde_json::to_string(&out)?);
        return Ok(());
    }
    if moves.is_empty() {
        println!("No legal move with {dice}: the roll is forfeited.");
        return Ok(());
    }
    println!(
        "{} to play {dice}: {} plays, {ply}-ply, filter {filter} ({ladder}), cubeless",
        args.position.trim(),
        moves.len(),
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
    Ok(())
}
