//! The operators' HTTP endpoint (`bgfarm serve --metrics-listen ADDR`): plain
//! HTTP/1.1 on its own port, so Prometheus and Kubernetes probes need neither gRPC
//! nor the tokens.
//!
//! - `GET /metrics`: the Prometheus text exposition ([`crate::metrics`]);
//! - `GET /healthz`: 200 `ok` while the coordinator can store and acknowledge
//!   results, 503 once a store flush has failed (restarting it is the cure);
//! - every other path: the web page of jobs and workers ([`crate::page`]), which
//!   needs the client token when one is set.
//!
//! hyper is already in the build through tonic, so this adds no dependency tree.

use crate::core::Core;
use crate::reply::{text, Reply, PLAIN};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper::{Method, Request, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tracing::{debug, warn};

/// A client must send its request headers within this time (no slow-loris
/// connections held open); a scrape sends them at once.
const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// The content type of the Prometheus text format.
const PROMETHEUS: &str = "text/plain; version=0.0.4; charset=utf-8";

/// The answer to a request for `/metrics` or `/healthz`; `None` for another path.
pub fn respond(core: &Core, method: &Method, path: &str) -> Option<Reply> {
    Some(match (method, path) {
        (&Method::GET, "/metrics") => text(StatusCode::OK, PROMETHEUS, core.metrics_text()),
        (&Method::GET, "/healthz") if core.healthy() => text(StatusCode::OK, PLAIN, "ok\n".into()),
        (&Method::GET, "/healthz") => text(
            StatusCode::SERVICE_UNAVAILABLE,
            PLAIN,
            "store flush failed: results cannot be acknowledged\n".into(),
        ),
        (_, "/metrics" | "/healthz") => {
            text(StatusCode::METHOD_NOT_ALLOWED, PLAIN, "use GET\n".into())
        }
        _ => return None,
    })
}

/// The answer to one request.
async fn answer(core: &Core, req: Request<Incoming>) -> Reply {
    match respond(core, req.method(), req.uri().path()) {
        Some(r) => r,
        None => crate::page::handle(core, req).await,
    }
}

/// Serves `/metrics`, `/healthz` and the page on `listener` until the task is
/// aborted.
pub async fn serve(listener: TcpListener, core: Arc<Core>) {
    loop {
        let stream = match listener.accept().await {
            Ok((s, _)) => s,
            Err(e) => {
                // Out of file descriptors and the like: wait instead of spinning.
                warn!("metrics endpoint: accept failed: {e}");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let core = core.clone();
        tokio::spawn(async move {
            let svc = service_fn(move |req: Request<Incoming>| {
                let core = core.clone();
                async move { Ok::<_, Infallible>(answer(&core, req).await) }
            });
            let conn = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(HEADER_TIMEOUT)
                .serve_connection(TokioIo::new(stream), svc);
            if let Err(e) = conn.await {
                debug!("metrics connection: {e}");
            }
        });
    }
}
