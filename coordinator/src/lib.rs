//! bgfarm-coordinator: gRPC services, job splitting, leases and aggregation.
//!
//! A job (a rollout, a match simulation, a study or labels; each kind behind one
//! seam, `kind::JobKind`) is split into batches of work units; workers pull leases with deadlines, a reaper re-queues
//! expired ones, results are validated, stored durably (one group-committed fsync
//! for many results) and acknowledged idempotently by (job, batch), and the
//! aggregate folds accepted batches in batch order, so the result equals the
//! embedded run's bit for bit (DESIGN.md, "The determinism contract"). Counters are
//! served in the Prometheus format by [`http`].

mod analysis_form;
mod auth;
mod client_api;
mod config;
mod core;
mod done_bits;
mod durable;
mod exchange;
mod first_ply;
mod first_ply_known;
mod fold;
mod html;
pub mod http;
mod job;
mod kind;
mod lease;
mod ledger;
pub mod metrics;
mod multipart;
mod outcome;
mod page;
mod quarantine;
mod range_queue;
mod rate;
mod reap;
mod reply;
mod reuse;
pub mod rollout_form;
mod settle;
#[cfg(test)]
mod testutil;
mod urlencoded;
mod verify;
mod view;
mod worker_api;
mod workers;

pub use analysis_form::{AnalysisForm, AnalysisPlanner};
pub use auth::BearerAuth;
pub use config::{Config, TlsIdentity};
pub use core::Core;
pub use kind::{memo_identity, unit_of, SpecError};
pub use rollout_form::{RolloutForm, RolloutPlanner};

use bgfarm_proto::v1::client_service_server::ClientServiceServer;
use bgfarm_proto::v1::worker_service_server::WorkerServiceServer;
use bgfarm_proto::MAX_MESSAGE_BYTES;
use bgfarm_storage::Store;
use std::future::Future;
use tokio::net::TcpListener;
use tokio_stream::wrappers::TcpListenerStream;
use tonic::service::interceptor::InterceptedService;

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
    let http = metrics.map(|l| tokio::spawn(http::serve(l, core.clone())));
    let stop = {
        let core = core.clone();
        async move {
            shutdown.await;
            tracing::info!("stopping: ending watch streams, then flushing the store");
            core.begin_stop();
        }
    };
    let server = builder
        .add_service(client)
        .add_service(worker)
        .serve_with_incoming_shutdown(TcpListenerStream::new(listener), stop);
    // Graceful shutdown waits for calls in flight; a call that does not end within
    // the grace period (a client that ignores the stream's end) does not keep the
    // process up past a deployment's stop timeout (Docker's is 10 s).
    let mut stopping = core.stopping();
    let deadline = async move {
        let _ = stopping.wait_for(|s| *s).await;
        tokio::time::sleep(SHUTDOWN_GRACE).await;
    };
    let result: Result<(), tonic::transport::Error> = tokio::select! {
        r = server => r,
        _ = deadline => {
            tracing::warn!(
                grace_s = SHUTDOWN_GRACE.as_secs(),
                "calls still open after the grace period: stopping anyway"
            );
            Ok(())
        }
    };
    reaper.abort();
    if let Some(h) = http {
        h.abort();
    }
    let flushed = core.flush();
    result?;
    flushed?;
    tracing::info!("coordinator stopped");
    Ok(())
}

/// How long a stopping coordinator waits for calls in flight after it has ended
/// the watch streams: a worker's exchange takes milliseconds.
const SHUTDOWN_GRACE: std::time::Duration = std::time::Duration::from_secs(3);
