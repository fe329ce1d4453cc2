//! `bgfarm-lab bench`: move choices against GNU Backgammon's oracle bench
//! ([`hint`]) and the bench's disputed race decisions scored by the exact searches
//! ([`referee`]).

mod hint;
mod oracle;
mod referee;
mod referee_values;
mod value_errors;

use crate::cli::CliError;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub what: What,
}

#[derive(clap::Subcommand)]
pub enum What {
    /// Compare 0-ply and N-ply move choices with GNU Backgammon's 2-ply values on
    /// the oracle bench (loss per decision, share of best plays, time per hint).
    Hint(hint::HintArgs),
    /// The bench's race decisions where GNU Backgammon 2-ply, GNU Backgammon 0-ply
    /// and bgfarm 0-ply choose differently, scored again by the bear-off tables and
    /// one-sided searches (no net) wherever those decide every play.
    RaceReferee(referee::RefereeArgs),
}

pub fn run(args: Args) -> Result<(), CliError> {
    match args.what {
        What::Hint(a) => hint::hint(a),
        What::RaceReferee(a) => referee::race_referee(a),
    }
}
