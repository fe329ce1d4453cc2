//! What the cluster commands share: an async runtime and structured logs on stderr.

use super::CliError;

/// A multi-threaded tokio runtime for network I/O (trials run on rayon threads).
/// Two I/O threads are plenty: the coordinator spends its time in sled and in
/// short critical sections, a worker in one request at a time.
pub fn runtime() -> Result<tokio::runtime::Runtime, CliError> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| CliError::msg(format!("cannot start the async runtime: {e}")))
}

/// Logs to stderr, filtered by `RUST_LOG` (default `info`).
pub fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    // Fails only when a subscriber is already set: keep that one.
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(ansi)
        .try_init();
}

/// The token in `path`, if one was given.
pub fn token(path: Option<&std::path::Path>) -> Result<Option<String>, CliError> {
    path.map(|p| bgfarm_proto::client::read_token(p).map_err(CliError::msg))
        .transpose()
}
