//! Command-line parsing and dispatch of `bgfarm-lab`. Each subcommand lives in its
//! own module; every failure on user input comes back as a [`CliError`] and leaves
//! with exit code 2, as in `bgfarm`.

mod bench;
mod filter_study;
mod fuzz;
mod mean;
mod train;

pub use bgfarm_cli_common::engine_args::{nets, search_args};
pub use bgfarm_cli_common::CliError;
use clap::{Parser, Subcommand};

/// bgfarm-lab: training and research tooling for bgfarm's evaluation networks.
#[derive(Parser)]
#[command(name = "bgfarm-lab", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Score move filters against a search of every play on self-play decisions:
    /// cost per decision, large misses and speed-up (table and CSV).
    FilterStudy(filter_study::Args),
    /// Benchmarks against GNU Backgammon's oracle files.
    Bench(bench::Args),
    /// Train the evaluation networks (TD(lambda) self-play).
    Train(train::Args),
    /// Throw generated and mutated inputs at every parser of outside input and the
    /// coordinator's requests; count panics and hangs.
    Fuzz(fuzz::Args),
}

/// Parses the command line and runs the command.
pub fn run() -> Result<(), CliError> {
    let cli = Cli::parse();
    match cli.command {
        Command::FilterStudy(a) => filter_study::run(a),
        Command::Bench(a) => bench::run(a),
        Command::Train(a) => train::run(a),
        Command::Fuzz(a) => fuzz::run(a),
    }
}
