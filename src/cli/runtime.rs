//! What the cluster commands share: an async runtime and structured logs on stderr.

use super::CliError;
use bgfarm_cli_common::entry::sigpipe;

/// A multi-threaded tokio runtime for network I/O (trials run on rayon threads),
/// with SIGPIPE ignored while it lives.
///
/// `main` restores SIGPIPE's default so that `bgfarm ... | head` ends quietly; but
/// then a write to a socket the peer has closed (a coordinator restarting, a TLS
/// handshake refused) kills the process, as hyper writes with `writev`, which has
/// no `MSG_NOSIGNAL`. While the runtime lives such writes fail with EPIPE and the
/// gRPC stack handles them; dropping it restores the default for the output that
/// follows.
pub struct NetRuntime(tokio::runtime::Runtime);

impl NetRuntime {
    /// Runs `f` to completion.
    pub fn block_on<F: std::future::Future>(&self, f: F) -> F::Output {
        self.0.block_on(f)
    }
}

impl Drop for NetRuntime {
    fn drop(&mut self) {
        sigpipe(libc::SIG_DFL);
    }
}

/// The runtime of the network commands. Two I/O threads are plenty: the
/// coordinator spends its time in sled and in short critical sections, a worker
/// in one request at a time.
pub fn runtime() -> Result<NetRuntime, CliError> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| CliError::msg(format!("cannot start the async runtime: {e}")))?;
    sigpipe(libc::SIG_IGN);
    Ok(NetRuntime(rt))
}

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

/// The PEM file at `path` (a TLS CA certificate), if one was given.
pub fn pem(path: Option<&std::path::Path>) -> Result<Option<Vec<u8>>, CliError> {
    path.map(|p| bgfarm_proto::client::read_pem(p).map_err(CliError::msg))
        .transpose()
}

/// The token in `path`, if one was given.
pub fn token(path: Option<&std::path::Path>) -> Result<Option<String>, CliError> {
    path.map(|p| bgfarm_proto::client::read_token(p).map_err(CliError::msg))
        .transpose()
}
