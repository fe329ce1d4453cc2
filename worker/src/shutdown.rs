//! Two-phase shutdown: the first SIGINT/SIGTERM stops taking work and finishes what
//! is held; the second gives held leases back at once (the coordinator re-leases
//! them instead of waiting for their deadline).

use tokio::signal::unix::{signal, SignalKind};
use tokio::sync::watch;
use tracing::{info, warn};

/// A counter of shutdown signals received (0: run, 1: drain, 2+: release and stop).
pub fn listen() -> watch::Receiver<u8> {
    let (tx, rx) = watch::channel(0u8);
    let (int, term) = match (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
    ) {
        (Ok(i), Ok(t)) => (i, t),
        (Err(e), _) | (_, Err(e)) => {
            warn!("cannot listen for signals, shutdown will not be graceful: {e}");
            // Keep the sender alive so receivers simply never see a change.
            std::mem::forget(tx);
            return rx;
        }
    };
    tokio::spawn(async move {
        let (mut int, mut term) = (int, term);
        loop {
            tokio::select! {
                _ = int.recv() => {}
                _ = term.recv() => {}
            }
            tx.send_modify(|n| *n = n.saturating_add(1));
            match *tx.borrow() {
                1 => info!("shutting down: finishing held batches (signal again to release them)"),
                _ => info!("shutting down now: releasing held batches"),
            }
        }
    });
    rx
}
