//! Coordinator settings (from `bgfarm serve` flags).

use crate::analysis_form::AnalysisPlanner;
use crate::rollout_form::RolloutPlanner;
use std::time::Duration;

/// How the coordinator leases, retries and authenticates.
#[derive(Clone, Debug)]
pub struct Config {
    /// A lease not renewed by a heartbeat for this long is re-queued. Workers
    /// heartbeat every third of it, so a live worker survives two lost heartbeats.
    pub lease_timeout: Duration,
    /// Leases of one batch before its job fails (a batch that kills every worker it
    /// touches must not loop forever).
    pub max_attempts: u32,
    /// Bearer token of clients (submit, get, watch, cancel, list); `None`: open.
    pub client_token: Option<String>,
    /// Bearer token of workers (register, exchange, heartbeat); `None`: open.
    pub worker_token: Option<String>,
    /// Serve gRPC over TLS with this certificate chain and key; `None`: plain.
    pub tls: Option<TlsIdentity>,
    /// Fraction of batches (0 to 1) recomputed by a second worker to catch wrong
    /// results that pass every check ([`crate::verify`]); 0: none.
    pub verify_fraction: f64,
    /// Plans the web page's rollout form (`bgfarm serve` gives the command
    /// line's planner); `None`: the page cannot submit rollouts.
    pub rollout_planner: Option<RolloutPlanner>,
    /// Plans the web page's match form (`bgfarm serve` gives the command line's
    /// planner); `None`: the page cannot submit analyses.
    pub analysis_planner: Option<AnalysisPlanner>,
}

/// A certificate chain and its private key, both PEM. Its `Debug` hides the key.
#[derive(Clone)]
pub struct TlsIdentity {
    pub cert_pem: Vec<u8>,
    pub key_pem: Vec<u8>,
}

impl std::fmt::Debug for TlsIdentity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "TlsIdentity({} bytes of certificate, key hidden)",
            self.cert_pem.len()
        )
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            // A 1296-trial 0-ply batch takes ~10 s on one core; 60 s leaves room for
            // slow machines while a dead worker's batches return within a minute.
            lease_timeout: Duration::from_secs(60),
            max_attempts: 5,
            client_token: None,
            worker_token: None,
            tls: None,
            verify_fraction: 0.0,
            rollout_planner: None,
            analysis_planner: None,
        }
    }
}

impl Config {
    /// How often workers must heartbeat: a third of the lease timeout.
    pub fn heartbeat_interval(&self) -> Duration {
        self.lease_timeout / 3
    }

    /// How often the reaper looks for expired leases: a quarter of the lease
    /// timeout, at least every 50 ms and at most every 5 s.
    pub fn reap_interval(&self) -> Duration {
        (self.lease_timeout / 4).clamp(Duration::from_millis(50), Duration::from_secs(5))
    }

    /// A worker silent for this long is forgotten (its leases expire anyway).
    pub fn worker_expiry(&self) -> Duration {
        self.lease_timeout * 3
    }
}
