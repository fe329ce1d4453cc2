//! Helpers shared by the CLI tests: run the built `bgfarm`, read its JSON, check a
//! refusal (see [`binary::Binary`]).

#![allow(dead_code)]

mod binary;
pub mod browser;
pub mod cluster;

use binary::Binary;
use std::process::Output;

const BGFARM: Binary = Binary(env!("CARGO_BIN_EXE_bgfarm"));

/// Runs `bgfarm` with `args`.
pub fn bgfarm(args: &[&str]) -> Output {
    BGFARM.run(args)
}

/// The subcommand names of a `--help` page.
pub fn commands(args: &[&str]) -> Vec<String> {
    BGFARM.commands(args)
}

/// Runs a command that must succeed and print one JSON object.
pub fn json(args: &[&str]) -> serde_json::Value {
    BGFARM.json(args)
}

/// Runs a command that must fail: exit code 2 and one line on stderr naming `needle`.
pub fn fails(args: &[&str], needle: &str) {
    BGFARM.fails(args, needle)
}
