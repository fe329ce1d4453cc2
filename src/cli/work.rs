//! `bgfarm work --coordinator URL [--threads N] [--tls-ca CA.pem]`: a worker. Runs until the first
//! SIGINT/SIGTERM has let it finish its held batches (a second one gives them back
//! at once); exits with code 2 when the coordinator refuses its token or version.

use super::runtime::{init_logging, pem, runtime, token};
use super::CliError;
use bgfarm_worker::WorkerConfig;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// Coordinator URL.
    #[arg(long, default_value = "http://127.0.0.1:7878")]
    pub coordinator: String,
    /// Trial threads (default: one per core).
    #[arg(long)]
    pub threads: Option<usize>,
    /// File holding the worker token.
    #[arg(long)]
    pub token_file: Option<PathBuf>,
    /// With an https:// coordinator: the CA certificate (PEM) that signed its
    /// certificate (default: the system's roots).
    #[arg(long)]
    pub tls_ca: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    if threads == 0 || threads > 4096 {
        return Err(CliError::msg("--threads must be between 1 and 4096"));
    }
    let cfg = WorkerConfig {
        coordinator: args.coordinator,
        token: token(args.token_file.as_deref())?,
        threads,
        tls_ca: pem(args.tls_ca.as_deref())?,
    };
    init_logging();
    runtime()?.block_on(async move {
        let shutdown = bgfarm_worker::listen_for_shutdown();
        bgfarm_worker::run(cfg, shutdown)
            .await
            .map_err(|e| CliError::msg(e.to_string()))
    })
}
