//! bgfarm-coordinator: gRPC services, job splitting, leases and aggregation.
//!
//! A job (a rollout or a match simulation) is split into batches of work units
//! ([`split_batches`]); workers pull leases with deadlines, a reaper re-queues
//! expired ones, results are validated, stored durably (one group-committed fsync
//! for many results) and acknowledged idempotently by (job, batch), and the
//! aggregate folds accepted batches in batch order, so the result equals the
//! embedded run's bit for bit (DESIGN.md, "The determinism contract"). Counters are
//! served in the Prometheus format by [`http`].

mod auth;
mod batch;
mod client_api;
mod config;
mod core;
mod durable;
mod exchange;
mod first_ply;
mod first_ply_known;
pub mod first_ply_stored;
pub mod http;
mod job;
mod kind;
pub mod memo;
pub mod metrics;
mod outcome;
mod page;
mod rate;
mod reap;
mod reply;
mod reuse;
#[cfg(test)]
mod testutil;
mod validate;
mod validate_sim;
mod view;
mod worker_api;
mod workers;

pub use auth::BearerAuth;
pub use config::{Config, TlsIdentity};
pub use core::Core;

use bgfarm_engine::rollout::plan::batch_range;
use bgfarm_proto::v1::client_service_server::ClientServiceServer;
use bgfarm_proto::v1::worker_service_server::WorkerServiceServer;
use bgfarm_proto::MAX_MESSAGE_BYTES;
use bgfarm_storage::Store;
use std::future::Future;
use std::ops::Range;
use tokio::net::TcpListener;
use tokio_stream::wrappers::TcpListenerStream;
use tonic::service::interceptor::InterceptedService;

/// Splits `trials` trial indices into contiguous batches of `batch` trials (the last
/// one possibly shorter). Batches are the unit of leasing and of the deterministic
/// fold: results are merged in batch-index order.
pub fn split_batches(trials: u64, batch: u64) -> Vec<Range<u64>> {
    (0..trials.div_ceil(batch.max(1)))
        .map(|k| batch_range(trials, batch, k))
        .collect()
}

/// Serves both gRPC services on `listener` until `shutdown` resolves, with the
/// reaper running alongside, and `/metrics` + `/healthz` on `metrics` when given.
pub async fn serve(
    listener: TcpListener,
    metrics: Option<TcpListener>,
    store: Store,
    config: Config,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let core = Core::open(store, config.clone())?;
    serve_core(listener, metrics, core, shutdown).await
}

/// [`serve`] on an opened coordinator (the benchmark drives the same `Core`).
pub async fn serve_core(
    listener: TcpListener,
    metrics: Option<TcpListener>,
    core: std::sync::Arc<Core>,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let config = core.config().clone();
    let mut builder = tonic::transport::Server::builder();
    if let Some(tls) = &config.tls {
        // A bad certificate or key fails here, before any task is started.
        let identity = tonic::transport::Identity::from_pem(&tls.cert_pem, &tls.key_pem);
        builder = builder
            .tls_config(tonic::transport::ServerTlsConfig::new().identity(identity))
            .map_err(|e| format!("TLS certificate or key: {e}"))?;
    }
    let client = InterceptedService::new(
        ClientServiceServer::from_arc(std::sync::Arc::new(client_api::ClientApi(core.clone())))
            .max_decoding_message_size(MAX_MESSAGE_BYTES),
        BearerAuth::new(config.client_token.clone(), "client"),
    );
    let worker = InterceptedService::new(
        WorkerServiceServer::from_arc(std::sync::Arc::new(worker_api::WorkerApi(core.clone())))
            .max_decoding_message_size(MAX_MESSAGE_BYTES),
        BearerAuth::new(config.worker_token.clone(), "worker"),
    );
    let reaper = tokio::spawn(core.clone().reaper());
    let http = metrics.map(|l| tokio::spawn(http::serve(l, core)));
    let result = builder
        .add_service(client)
        .add_service(worker)
        .serve_with_incoming_shutdown(TcpListenerStream::new(listener), shutdown)
        .await;
    reaper.abort();
    if let Some(h) = http {
        h.abort();
    }
    result?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_cover_every_trial_once() {
        let b = split_batches(2600, 1296);
        assert_eq!(b, vec![0..1296, 1296..2592, 2592..2600]);
        assert!(split_batches(0, 36).is_empty());
    }
}
