//! `bgfarm serve --listen ADDR --data DIR [--metrics-listen ADDR]`: the
//! coordinator. Prints `listening on HOST:PORT` on stdout once bound (port 0 picks
//! a free port, which is how the tests start it), then `metrics on HOST:PORT` when
//! the HTTP endpoint (metrics, health and the web page) is on, logs to stderr,
//! stops on SIGINT/SIGTERM.

use super::runtime::{init_logging, runtime, token};
use super::CliError;
use bgfarm_client::connect::read_pem;
use bgfarm_coordinator::{Config, TlsIdentity};
use bgfarm_storage::Store;
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

#[derive(clap::Args)]
pub struct Args {
    /// Address to listen on (`0.0.0.0:7878` for every interface).
    #[arg(long, default_value = "127.0.0.1:7878")]
    pub listen: String,
    /// Directory of the sled store (created if missing).
    #[arg(long)]
    pub data: PathBuf,
    /// File holding the client token (submit, get, watch, cancel, list).
    #[arg(long)]
    pub client_token_file: Option<PathBuf>,
    /// File holding the worker token (register, exchange, heartbeat).
    #[arg(long)]
    pub worker_token_file: Option<PathBuf>,
    /// Seconds before a lease that was not renewed is handed to another worker.
    #[arg(long, default_value_t = 60.0)]
    pub lease_timeout: f64,
    /// Leases of one batch before its job fails.
    #[arg(long, default_value_t = 5)]
    pub max_attempts: u32,
    /// Fraction of batches (0 to 1) that a second worker computes again to catch
    /// wrong results that pass every check (a lying or faulty worker). On a
    /// mismatch a third worker decides; the outvoted worker is refused from then
    /// on and every result it computed is computed again. 0.02 costs about 2% more
    /// computing.
    #[arg(long, default_value_t = 0.0)]
    pub verify_fraction: f64,
    /// Entries the store keeps of each kind of computed work (first-move tables of
    /// rollouts, batch results); a write over the cap evicts the oldest entries,
    /// recomputed only when needed again. A first-move table is ~1 KB.
    #[arg(long, default_value_t = bgfarm_storage::blobs::DEFAULT_CAP)]
    pub cache_cap: u64,
    /// Also serve plain HTTP on this address: `GET /metrics` (Prometheus text
    /// format) and `GET /healthz` (200 while results can be stored), for scrapers
    /// and probes that need neither gRPC nor a token (e.g. `0.0.0.0:9090`), and a
    /// read-only web page at `/`: jobs with progress, rate and ETA, workers, and
    /// each finished job's result at `/job/ID` (behind the client token when one
    /// is set: open `/?token=...` once or use the form).
    #[arg(long)]
    pub metrics_listen: Option<String>,
    /// Serve gRPC over TLS with this certificate chain (PEM); clients and workers
    /// then use an https:// URL. Needs --tls-key.
    #[arg(long, requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// The private key (PEM) of --tls-cert.
    #[arg(long, requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// Nets with which the web page's rollout form (`/submit`) ranks `top:N`
    /// moves and stamps its jobs' engine fingerprint, as `bgfarm rollout --net`:
    /// workers with other nets are not leased those jobs. Loaded at the first
    /// submission.
    #[arg(long, default_value = "default")]
    pub form_net: String,
}

async fn stop_signal() {
    use tokio::signal::unix::{signal, SignalKind};
    match signal(SignalKind::terminate()) {
        Ok(mut term) => {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
        }
        Err(_) => {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}

pub fn run(args: Args) -> Result<(), CliError> {
    if !(args.lease_timeout.is_finite() && (0.1..=86_400.0).contains(&args.lease_timeout)) {
        return Err(CliError::msg(
            "--lease-timeout must be between 0.1 and 86400 seconds",
        ));
    }
    if args.cache_cap == 0 {
        return Err(CliError::msg("--cache-cap must be at least 1"));
    }
    if args.max_attempts == 0 {
        return Err(CliError::msg("--max-attempts must be at least 1"));
    }
    if !(0.0..=1.0).contains(&args.verify_fraction) {
        return Err(CliError::msg("--verify-fraction must be between 0 and 1"));
    }
    let config = Config {
        lease_timeout: Duration::from_secs_f64(args.lease_timeout),
        max_attempts: args.max_attempts,
        verify_fraction: args.verify_fraction,
        client_token: token(args.client_token_file.as_deref())?,
        worker_token: token(args.worker_token_file.as_deref())?,
        tls: match (&args.tls_cert, &args.tls_key) {
            (Some(cert), Some(key)) => Some(TlsIdentity {
                cert_pem: read_pem(cert)?,
                key_pem: read_pem(key)?,
            }),
            _ => None,
        },
        rollout_planner: Some(super::rollout::planner(args.form_net.clone())),
        analysis_planner: Some(super::analyse::planner()),
    };
    init_logging();
    let store = Store::open_with_cap(&args.data, args.cache_cap)
        .map_err(|e| CliError::msg(format!("cannot open store {}: {e}", args.data.display())))?;
    runtime()?.block_on(async move {
        let listener = tokio::net::TcpListener::bind(&args.listen)
            .await
            .map_err(|e| CliError::msg(format!("cannot listen on {}: {e}", args.listen)))?;
        let addr = listener.local_addr()?;
        let metrics = match &args.metrics_listen {
            Some(m) => Some(tokio::net::TcpListener::bind(m).await.map_err(|e| {
                CliError::msg(format!("cannot listen on {m} (--metrics-listen): {e}"))
            })?),
            None => None,
        };
        let scheme = if config.tls.is_some() {
            "https"
        } else {
            "http"
        };
        println!("listening on {addr}");
        if let Some(m) = &metrics {
            println!("metrics on {}", m.local_addr()?);
        }
        std::io::stdout().flush()?;
        tracing::info!(%addr, %scheme, data = %args.data.display(), "coordinator up");
        bgfarm_coordinator::serve(listener, metrics, store, config, stop_signal())
            .await
            .map_err(|e| CliError::msg(format!("coordinator: {e}")))
    })
}
