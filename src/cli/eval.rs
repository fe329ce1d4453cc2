//! `bgfarm eval POS [--net NETS] [--json]`: the static (0-ply) evaluation of a
//! position for the player on roll, before the roll: the five cubeless probabilities
//! and the cubeless equity, and which part of the evaluator answered (contact net,
//! race net, exact bear-off tables).

use super::input::parse_position;
use super::race_args::RaceArgs;
use super::CliError;
use bgfarm_cli_common::engine_args::static_eval::static_eval;
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
    #[command(flatten)]
    pub race: RaceArgs,
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
    let evaluated = static_eval(&args.net, &args.race, &input.position)?;
    let (probs, source) = (evaluated.probs, evaluated.source);
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
