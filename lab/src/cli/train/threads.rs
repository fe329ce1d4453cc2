//! `--threads` of the training commands: how many, and their pool.

use crate::cli::CliError;

/// A pool of [`thread_count`] threads.
pub fn pool(threads: Option<usize>) -> Result<rayon::ThreadPool, CliError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(thread_count(threads)?)
        .build()
        .map_err(|e| CliError::msg(format!("cannot start threads: {e}")))
}

/// `--threads`: at least 1, one per core when not given.
pub fn thread_count(threads: Option<usize>) -> Result<usize, CliError> {
    match threads {
        Some(0) => Err(CliError::msg("--threads must be at least 1")),
        Some(n) => Ok(n),
        None => Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
    }
}
