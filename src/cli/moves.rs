//! `bgfarm moves POS DICE [--json]`: every legal move with its notation and the
//! resulting position ID as seen by the next player (the oracle files' convention).

use super::input::{dice_for, parse_position};
use super::CliError;
use bgfarm_engine::ids::position_id;
use bgfarm_engine::notation::format_move;
use bgfarm_engine::MoveGenerator;
use serde::Serialize;

#[derive(clap::Args)]
pub struct Args {
    /// Position: GNU Backgammon position ID (optionally `ID:MATCHID`) or XGID.
    pub position: String,
    /// Dice, e.g. `31` or `3-1`. May be omitted when the XGID or match ID holds dice.
    pub dice: Option<String>,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
}

#[derive(Serialize)]
struct JsonMove {
    #[serde(rename = "move")]
    notation: String,
    result: String,
}

#[derive(Serialize)]
struct JsonOut<'a> {
    position: &'a str,
    dice: [u8; 2],
    moves: Vec<JsonMove>,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let input = parse_position(&args.position)?;
    let dice = dice_for(&input, args.dice.as_deref())?;
    if input.position.game_over() {
        return Err(CliError::msg(
            "the game in this position is over: nobody moves",
        ));
    }
    let mut gen = MoveGenerator::new();
    let moves: Vec<JsonMove> = gen
        .generate(&input.position, dice)
        .iter()
        .map(|m| JsonMove {
            notation: format_move(m),
            result: position_id::encode(&m.next_position()),
        })
        .collect();
    let (d1, d2) = dice.values();
    if args.json {
        let out = JsonOut {
            position: args.position.trim(),
            dice: [d1, d2],
            moves,
        };
        println!("{}", serde_json::to_string(&out)?);
    } else if moves.is_empty() {
        println!("No legal move with {dice}: the roll is forfeited.");
    } else {
        let width = moves.iter().map(|m| m.notation.len()).max().unwrap_or(0);
        for (i, m) in moves.iter().enumerate() {
            println!("{:>3}. {:<width$}  {}", i + 1, m.notation, m.result);
        }
    }
    Ok(())
}
