//! `bgfarm`: one binary for every role (analysis commands, coordinator, worker).

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    bgfarm_cli_common::entry::main(cli::run)
}
