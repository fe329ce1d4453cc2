//! `bgfarm-lab train`: the two pipelines that produce the evaluation networks.
//!
//! - `td`: TD(lambda) self-play from random weights (how the shipped nets started);
//! - `positions`, `label`, `fit`: supervised training: self-play positions, labelled
//!   by an n-ply search of the current nets or by rollouts, fitted by gradient
//!   descent (how they were refined); `races` draws the races with gammons at
//!   stake that self-play seldom reaches; `siblings` labels the positions after
//!   every play of a roll as groups, for a loss on their equity differences. `scripts/train-default-nets.sh` runs both
//!   pipelines, with the counts used for the shipped nets.
//!
//! Files: `positions` writes one position ID per line (duplicates removed, first
//! occurrence kept); `label` reads that and writes `ID p1 .. p5` lines (the format of
//! `bgfarm_lab::train::dataset`), appending to an existing output so a killed run
//! resumes where it stopped; `fit` reads any number of labelled files and writes the
//! nets like `train td` does (`contact.safetensors`, `race.safetensors`,
//! `nets.safetensors`).

mod files;
mod fit;
mod label;
mod label_remote;
mod outcomes;
mod positions;
mod siblings;
mod sides;
mod td;
mod threads;
mod which_nets;

use super::CliError;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub method: Method,
}

#[derive(clap::Subcommand)]
pub enum Method {
    /// Self-play TD(lambda), greedy 0-ply play, exact bear-off targets.
    Td(td::TdArgs),
    /// Supervised step 1: positions from self-play games of the current nets.
    Positions(positions::PositionsArgs),
    /// Random races with gammons or backgammons at stake, which self-play seldom
    /// reaches (positions for `label --rollout`).
    Races(positions::RacesArgs),
    /// Supervised step 2: label positions with their n-ply probabilities (resumable).
    Label(label::LabelArgs),
    /// Supervised step 2b: labelled sibling groups (the positions after every legal
    /// play of a roll), for `fit --siblings`.
    Siblings(siblings::SiblingsArgs),
    /// One-sided race net step 1: every side the exact one-sided searches visit
    /// from the race sides of a positions file, with its exact distributions.
    Sides(sides::SidesArgs),
    /// One-sided race net step 2: fit the net to `sides` samples.
    SideFit(sides::SideFitArgs),
    /// Supervised step 3: fit the nets to labelled positions.
    Fit(fit::FitArgs),
    /// Targets from the nets' own rollout trials (luck-adjusted results), for `fit
    /// --targets`.
    Outcomes(outcomes::OutcomesArgs),
}

pub fn run(args: Args) -> Result<(), CliError> {
    match args.method {
        Method::Td(a) => td::run(a),
        Method::Positions(a) => positions::positions(a),
        Method::Races(a) => positions::races(a),
        Method::Label(a) => label::label(a),
        Method::Siblings(a) => siblings::siblings(a),
        Method::Sides(a) => sides::sides(a),
        Method::SideFit(a) => sides::side_fit(a),
        Method::Fit(a) => fit::fit(a),
        Method::Outcomes(a) => outcomes::outcomes(a),
    }
}
