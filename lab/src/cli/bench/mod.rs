//! `bgfarm-lab bench`: move choices against GNU Backgammon's oracle bench
//! ([`hint`]), the bench's disputed race decisions scored by the exact searches
//! ([`referee`]), where a rollout's variance is left ([`residuals`]), and what a
//! luck estimate without the move walk could carry ([`luck_fit`]).

mod hint;
mod luck_fit;
mod oracle;
mod referee;
mod referee_values;
mod residuals;
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
    /// Where a luck-adjusted rollout's variance is left: the full luck estimate's
    /// per-state residuals (the nets' value of a play against the average of the
    /// next player's 21 best replies), by the class of the state.
    Residuals(residuals::ResidualsArgs),
    /// Whether a luck estimate without the move walk could replace the ranked one:
    /// how much of each roll's luck a linear read-out of the state's net activations
    /// carries, against the ranked estimate's error (or, with --leaves, the walk's
    /// size per state).
    LuckFit(luck_fit::LuckFitArgs),
}

pub fn run(args: Args) -> Result<(), CliError> {
    match args.what {
        What::Hint(a) => hint::hint(a),
        What::RaceReferee(a) => referee::race_referee(a),
        What::Residuals(a) => residuals::residuals(a),
        What::LuckFit(a) => luck_fit::luck_fit(a),
    }
}
