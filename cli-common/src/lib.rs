//! bgfarm-cli-common: the command-line pieces both binaries need, `bgfarm` (the
//! product) and `bgfarm-lab` (training and research): the one-line [`CliError`],
//! loading nets by name ([`nets`]), the race and search options flattened into the
//! evaluating commands ([`race_args`], [`search_args`]) and the progress bar of
//! long runs ([`progress`]). Written once here so that both binaries accept the
//! same options with the same help texts and refuse bad input the same way;
//! and the client side of a coordinator ([`remote`], on the async runtime of
//! [`net_runtime`]), since both binaries submit jobs to one.

pub mod entry;
pub mod error;
pub mod net_runtime;
pub mod nets;
pub mod progress;
pub mod race_args;
pub mod remote;
pub mod search_args;
pub mod static_eval;

pub use error::CliError;
