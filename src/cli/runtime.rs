//! What the cluster commands share: an async runtime (in `bgfarm-client`, which
//! `bgfarm-lab` shares too) and structured logs on stderr.

use super::CliError;
pub use bgfarm_client::runtime::{pem, runtime, token};

/// Prints `line` on stdout; a reader that went away (`bgfarm jobs watch 1 | head
/// -1`) ends the process quietly, as SIGPIPE would outside the runtime.
pub fn print_line(line: &str) -> Result<(), CliError> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match writeln!(out, "{line}").and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
        r => Ok(r?),
    }
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
