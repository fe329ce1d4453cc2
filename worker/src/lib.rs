//! bgfarm-worker: the pull loop that leases trial batches from a coordinator and runs
//! them on a rayon pool with the engine.
//!
//! Batches of every kind alike: each lease carries its job spec, and each kind
//! runs behind one seam (`kind`).
//! A worker registers (protocol version, engine fingerprint, threads), then calls
//! `Exchange` whenever it has finished batches or free threads, backs off with
//! jitter when idle or when the coordinator is unreachable, heartbeats to keep its
//! leases, and stops for good when the coordinator refuses its token or version.

mod backoff;
mod engine;
mod kind;
mod label_nets;
mod run;
mod shutdown;

pub use backoff::Backoff;
pub use engine::default_evaluator;
pub use run::run;
pub use shutdown::listen as listen_for_shutdown;

use std::fmt;

/// Where and how to work.
#[derive(Clone, Debug)]
pub struct WorkerConfig {
    /// Coordinator URL, `http://host:port`.
    pub coordinator: String,
    /// Worker bearer token.
    pub token: Option<String>,
    /// Trial threads (one batch each).
    pub threads: usize,
    /// With an https:// coordinator: the CA certificate (PEM) its certificate
    /// chains to; `None`: the system's roots.
    pub tls_ca: Option<Vec<u8>>,
}

/// Why a worker stopped for good.
#[derive(Debug)]
pub enum WorkerError {
    /// The coordinator refused it (token, protocol version, bad settings).
    Refused(String),
    /// The engine could not start.
    Engine(String),
}

impl fmt::Display for WorkerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WorkerError::Refused(m) => write!(f, "{m}"),
            WorkerError::Engine(m) => write!(f, "engine: {m}"),
        }
    }
}

impl std::error::Error for WorkerError {}

/// The worker's user agent, sent at registration.
pub fn user_agent() -> String {
    format!("bgfarm-worker/{}", env!("CARGO_PKG_VERSION"))
}
