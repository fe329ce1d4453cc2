//! The rayon pool of the embedded runs (rollouts, match simulations, studies).

use super::CliError;

/// A rayon pool with `threads` workers (`None`: one per core); 0 is an error.
pub fn pool(threads: Option<usize>) -> Result<rayon::ThreadPool, CliError> {
    if threads == Some(0) {
        return Err(CliError::msg("--threads must be at least 1"));
    }
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads.unwrap_or(0))
        .build()
        .map_err(|e| CliError::msg(format!("cannot start the worker threads: {e}")))
}
