//! Command-line parsing and dispatch. Each subcommand lives in its own module; every
//! failure on user input comes back as a [`CliError`] and leaves with exit code 2.

mod input;
mod moves;
mod show;

use clap::{Parser, Subcommand};
use std::fmt;

/// A one-line error for the user.
#[derive(Debug)]
pub struct CliError(String);

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl<E: std::error::Error> From<E> for CliError {
    fn from(e: E) -> Self {
        CliError(e.to_string())
    }
}

impl CliError {
    /// An error with the given message.
    pub fn msg(m: impl Into<String>) -> Self {
        CliError(m.into())
    }
}

/// bgfarm: backgammon rollouts and match simulations, from one laptop to a cluster.
#[derive(Parser)]
#[command(name = "bgfarm", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List every legal move of a roll, with the resulting position IDs.
    Moves(moves::Args),
    /// Draw a position as text, with pip counts.
    Show(show::Args),
}

/// Parses the command line and runs the command.
pub fn run() -> Result<(), CliError> {
    let cli = Cli::parse();
    match cli.command {
        Command::Moves(a) => moves::run(a),
        Command::Show(a) => show::run(a),
    }
}
