//! `bgfarm eval POS [--net NETS] [--json]`: the static (0-ply) evaluation of a
//! position for the player on roll, before the roll: the five cubeless probabilities
//! and the cubeless equity, and which part of the evaluator answered (contact net,
//! race net, exact bear-off tables).

use super::input::parse_position;
use super::nets::{exact_endgame, load_evaluator};
use super::CliError;
use bgfarm_engine::eval::neural::Class;
use bgfarm_engine::eval::{terminal_probs, Evaluator};
use serde::Serialize;

#[derive(clap::Args)]
pub struct Args {
    /// Position: GNU Backgammon position ID (optionally `ID:MATCHID`) or XGID.
    pub position: String,
    /// Nets: `default` (built in), `fast` (the built-in one-layer nets), a .safetensors
    /// bundle, or a directory.
    #[arg(long, default_value = "default")]
    pub net: String,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// Gammon chances of a race from an exact search instead of the race net, where
    /// the side that may be gammoned has none off and checkers outside its home
    /// board and the other side is home; the search may visit at most N positions,
    /// else the net answers.
    #[arg(long, value_name = "N")]
    pub exact_gammons: Option<usize>,
    /// Win and gammon chances of a race from exact one-sided searches instead of the
    /// race net (each side's distribution of rolls to bear off all its checkers, or
    /// its first one for a side that may be gammoned; every play of every roll
    /// searched), where each side could reach at most N positions; else the
    /// one-sided race net answers (--side-net). Milliseconds to a minute or two a position (N = 2000000): meant for
    /// 0-ply analysis. With --exact-gammons, that search wins where it decides.
    #[arg(long, value_name = "N")]
    pub exact_race: Option<u64>,
    /// The one-sided race net that answers races (each side's distribution of
    /// rolls to bear off; see the README): `default` (built in), `none` (the
    /// two-sided race net, as before 0.11.0) or a file from `bgfarm train
    /// side-fit`. With --exact-race it answers for the sides over that limit.
    #[arg(long, value_name = "NET")]
    pub side_net: Option<String>,
    /// Gammon chances of races from the one-sided net too (by default only the
    /// tables and --exact-race's searches set them, the race net the rest): closer
    /// equity differences between plays, but more 0-ply misses in gammon saves
    /// with stragglers far back (see the README).
    #[arg(long)]
    pub side_gammons: bool,
}

#[derive(Serialize)]
struct JsonOut<'a> {
    position: &'a str,
    probs: [f32; 5],
    equity: f32,
    evaluator: &'static str,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let input = parse_position(&args.position)?;
    let mut eval = load_evaluator(&args.net)?;
    if let Some(e) = exact_endgame(
        args.exact_gammons,
        args.exact_race,
        args.side_net.as_deref(),
        args.side_gammons,
    )? {
        eval.endgame = Some(e);
    }
    let pos = input.position;
    let probs = terminal_probs(&pos).unwrap_or_else(|| eval.evaluate(&pos));
    let source = match eval.class(&pos) {
        Class::Over => "game over",
        Class::Endgame => "bear-off database",
        Class::Race => "race net",
        Class::Contact => "contact net",
    };
    let p = probs.0;
    if args.json {
        let out = JsonOut {
            position: args.position.trim(),
            probs: p,
            equity: probs.equity(),
            evaluator: source,
        };
        println!("{}", serde_json::to_string(&out)?);
    } else {
        println!(
            "Position {} (player on roll, before the roll), {source}:",
            args.position.trim()
        );
        println!("        win    gammon  backgammon");
        println!("  win   {:.4}  {:.4}  {:.4}", p[0], p[1], p[2]);
        println!("  lose  {:.4}  {:.4}  {:.4}", 1.0 - p[0], p[3], p[4]);
        println!("  cubeless equity {:+.4}", probs.equity());
    }
    Ok(())
}
