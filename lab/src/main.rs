//! `bgfarm-lab`: the training and research commands, kept out of the product
//! binary `bgfarm`: training the nets, move-choice benchmarks against GNU
//! Backgammon's oracle bench, the move-filter study.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    bgfarm_cli_common::entry::main(cli::run)
}
