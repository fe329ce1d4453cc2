//! Connecting to a coordinator: a channel (TLS for https:// URLs) with the bearer
//! token attached to every request, for the CLI's client commands and for workers
//! alike, and reading the files that configure it (token, PEM).

use crate::ClientError;
use bgfarm_proto::v1::client_service_client::ClientServiceClient;
use bgfarm_proto::v1::worker_service_client::WorkerServiceClient;
use bgfarm_proto::MAX_MESSAGE_BYTES;
use std::time::Duration;
use tonic::metadata::{Ascii, MetadataValue};
use tonic::service::interceptor::InterceptedService;
use tonic::service::Interceptor;
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint};
use tonic::{Request, Status};

/// Adds `authorization: Bearer <token>` to each request (nothing without a token).
#[derive(Clone)]
pub struct AttachToken(Option<MetadataValue<Ascii>>);

impl AttachToken {
    /// The interceptor for `token`; a token that is not printable ASCII is an error.
    pub fn new(token: Option<&str>) -> Result<AttachToken, ClientError> {
        token
            .map(|t| {
                format!("Bearer {t}")
                    .parse::<MetadataValue<Ascii>>()
                    .map_err(|_| {
                        ClientError::Config(
                            "the token must be printable ASCII without spaces at its ends".into(),
                        )
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

/// A lazily connecting channel to `url` (`http://host:port`, or `https://host:port`
/// for a coordinator serving TLS): it connects on the first request and reconnects
/// after the coordinator restarts. With https, the coordinator's certificate must
/// chain to `ca` (PEM; the CA of a private deployment) or, without it, to the
/// system's roots.
pub fn channel(url: &str, ca: Option<&[u8]>) -> Result<Channel, ClientError> {
    let mut ep = Endpoint::from_shared(url.to_string())
        .map_err(|e| ClientError::Config(format!("coordinator URL {url:?}: {e}")))?;
    if url.starts_with("https://") {
        let tls = match ca {
            Some(pem) => ClientTlsConfig::new().ca_certificate(Certificate::from_pem(pem)),
            None => ClientTlsConfig::new().with_native_roots(),
        };
        ep = ep
            .tls_config(tls)
            .map_err(|e| ClientError::Config(format!("TLS settings for {url}: {e}")))?;
    } else if ca.is_some() {
        return Err(ClientError::Config(format!(
            "a TLS CA was given but {url} is not an https:// URL"
        )));
    }
    // 5 s to connect is ample on a LAN; 30 s per request covers the slowest fsync.
    Ok(ep
        .connect_timeout(Duration::from_secs(5))
        .timeout(Duration::from_secs(30))
        .connect_lazy())
}

/// A job client of the coordinator at `url` (TLS CA `ca`, see [`channel`]).
pub fn job_client(
    url: &str,
    token: Option<&str>,
    ca: Option<&[u8]>,
) -> Result<JobClient, ClientError> {
    Ok(
        ClientServiceClient::with_interceptor(channel(url, ca)?, AttachToken::new(token)?)
            .max_decoding_message_size(MAX_MESSAGE_BYTES),
    )
}

/// A worker client of the coordinator at `url` (TLS CA `ca`, see [`channel`]).
pub fn worker_client(
    url: &str,
    token: Option<&str>,
    ca: Option<&[u8]>,
) -> Result<WorkerClient, ClientError> {
    Ok(
        WorkerServiceClient::with_interceptor(channel(url, ca)?, AttachToken::new(token)?)
            .max_decoding_message_size(MAX_MESSAGE_BYTES),
    )
}

/// Reads a PEM file (a CA certificate, a certificate chain or a key).
pub fn read_pem(path: &std::path::Path) -> Result<Vec<u8>, ClientError> {
    let bytes = std::fs::read(path)
        .map_err(|e| ClientError::File(format!("cannot read {}: {e}", path.display())))?;
    if !bytes.windows(11).any(|w| w == b"-----BEGIN ") {
        return Err(ClientError::File(format!(
            "{} is not a PEM file",
            path.display()
        )));
    }
    Ok(bytes)
}

/// Reads a token file: the first line, trimmed (a trailing newline is not part of
/// the token).
pub fn read_token(path: &std::path::Path) -> Result<String, ClientError> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        ClientError::File(format!("cannot read token file {}: {e}", path.display()))
    })?;
    let token = text.lines().next().unwrap_or("").trim().to_string();
    if token.is_empty() {
        return Err(ClientError::File(format!(
            "token file {} is empty",
            path.display()
        )));
    }
    Ok(token)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The messages are what a user reads on a bad flag; they did not change when
    /// the client left the command-line crate.
    #[test]
    fn bad_settings_are_refused_with_their_reason() {
        let err = channel("http://localhost:7878", Some(b"pem")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "a TLS CA was given but http://localhost:7878 is not an https:// URL"
        );
        assert!(AttachToken::new(Some("two\nlines")).is_err());
        assert!(AttachToken::new(None).is_ok());
    }

    #[test]
    fn token_and_pem_files_are_checked() {
        let dir = std::env::temp_dir().join(format!("bgfarm-client-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let token = dir.join("token");
        std::fs::write(&token, "  s3cret \nignored\n").unwrap();
        assert_eq!(read_token(&token).unwrap(), "s3cret");
        std::fs::write(&token, "\n").unwrap();
        assert!(matches!(read_token(&token), Err(ClientError::File(_))));
        assert!(matches!(read_pem(&token), Err(ClientError::File(_))));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
