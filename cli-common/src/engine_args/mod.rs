//! The command line's face of the engine: options that configure engine concepts
//! and what they select, shared by both binaries' evaluating commands.
//!
//! - [`nets`]: loading nets by name (`default`, `fast`, a bundle, a directory) and
//!   the endgame layers the race options ask for.
//! - [`race_args`]: the race options ([`race_args::RaceArgs`]).
//! - [`search_args`]: the search options ([`search_args::EvalArgs`]) and ranking a
//!   decision with the plays spread over a thread pool.
//! - [`static_eval`]: the 0-ply evaluation those options select.
//!
//! Why here and not in `bgfarm-engine`: these derive `clap::Args` and fail with
//! the command line's [`crate::CliError`], and the engine stays free of clap and
//! of any command line. Why not in one binary: `bgfarm` and `bgfarm-lab` both
//! flatten them, so that both accept the same options with the same help texts.

pub mod nets;
pub mod race_args;
pub mod search_args;
pub mod static_eval;
