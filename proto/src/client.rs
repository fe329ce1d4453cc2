//! Connecting to a coordinator: a channel with the bearer token attached to every
//! request, for the CLI's client commands and for workers alike.

use crate::v1::client_service_client::ClientServiceClient;
use crate::v1::worker_service_client::WorkerServiceClient;
use crate::MAX_MESSAGE_BYTES;
use std::time::Duration;
use tonic::metadata::{Ascii, MetadataValue};
use tonic::service::interceptor::InterceptedService;
use tonic::service::Interceptor;
use tonic::transport::{Channel, Endpoint};
use tonic::{Request, Status};

/// Adds `authorization: Bearer <token>` to each request (nothing without a token).
#[derive(Clone)]
pub struct AttachToken(Option<MetadataValue<Ascii>>);

impl AttachToken {
    /// The interceptor for `token`; a token that is not printable ASCII is an error.
    pub fn new(token: Option<&str>) -> Result<AttachToken, String> {
        token
            .map(|t| {
                format!("Bearer {t}")
                    .parse::<MetadataValue<Ascii>>()
                    .map_err(|_| {
                        "the token must be printable ASCII without spaces at its ends".to_string()
                    })
            })
            .transpose()
            .map(AttachToken)
    }
}

impl Interceptor for AttachToken {
    fn call(&mut self, mut req: Request<()>) -> Result<Request<()>, Status> {
        if let Some(v) = &self.0 {
            req.metadata_mut().insert("authorization", v.clone());
        }
        Ok(req)
    }
}

/// A client of the client service.
pub type JobClient = ClientServiceClient<InterceptedService<Channel, AttachToken>>;
/// A client of the worker service.
pub type WorkerClient = WorkerServiceClient<InterceptedService<Channel, AttachToken>>;

/// A lazily connecting channel to `url` (`http://host:port`): it connects on the
/// first request and reconnects after the coordinator restarts.
pub fn channel(url: &str) -> Result<Channel, String> {
    let ep = Endpoint::from_shared(url.to_string())
        .map_err(|e| format!("coordinator URL {url:?}: {e}"))?;
    // 5 s to connect is ample on a LAN; 30 s per request covers the slowest fsync.
    Ok(ep
        .connect_timeout(Duration::from_secs(5))
        .timeout(Duration::from_secs(30))
        .connect_lazy())
}

/// A job client of the coordinator at `url`.
pub fn job_client(url: &str, token: Option<&str>) -> Result<JobClient, String> {
    Ok(
        ClientServiceClient::with_interceptor(channel(url)?, AttachToken::new(token)?)
            .max_decoding_message_size(MAX_MESSAGE_BYTES),
    )
}

/// A worker client of the coordinator at `url`.
pub fn worker_client(url: &str, token: Option<&str>) -> Result<WorkerClient, String> {
    Ok(
        WorkerServiceClient::with_interceptor(channel(url)?, AttachToken::new(token)?)
            .max_decoding_message_size(MAX_MESSAGE_BYTES),
    )
}

/// Reads a token file: the first line, trimmed (a trailing newline is not part of
/// the token).
pub fn read_token(path: &std::path::Path) -> Result<String, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read token file {}: {e}", path.display()))?;
    let token = text.lines().next().unwrap_or("").trim().to_string();
    if token.is_empty() {
        return Err(format!("token file {} is empty", path.display()));
    }
    Ok(token)
}
