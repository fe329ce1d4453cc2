//! bgfarm-cli-common: the command-line plumbing both binaries need, `bgfarm` (the
//! product) and `bgfarm-lab` (training and research): the process entry point
//! ([`entry`]), the one-line [`CliError`] and the progress bar of long runs
//! ([`progress`]). Written once here so that both binaries start, fail and report
//! progress the same way.
//!
//! [`engine_args`] holds the options that configure the engine (nets by name, race
//! and search options, the static evaluation they select): they derive
//! `clap::Args` and fail with [`CliError`], and the engine takes no clap, so they
//! cannot live beside the engine's types; both binaries flatten them into their
//! commands, so neither binary can hold them alone.
//!
//! The coordinator client is not here: it is `bgfarm-client`.

pub mod engine_args;
pub mod entry;
pub mod error;
pub mod progress;

pub use error::CliError;
