//! The in-process coordinator both parts of `bgfarm bench cluster` measure: a real
//! [`Core`] on a fresh sled store at a given path, serving gRPC on 127.0.0.1 (port
//! 0) from a task of this runtime until [`BenchCoordinator::stop`].

use super::CliError;
use bgfarm_coordinator::{Config, Core};
use std::path::Path;
use std::sync::Arc;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// A running coordinator: its core (to submit and watch jobs directly) and URL.
pub struct BenchCoordinator {
    pub core: Arc<Core>,
    pub url: String,
    stop: oneshot::Sender<()>,
    server: JoinHandle<Result<(), Box<dyn std::error::Error + Send + Sync>>>,
}

impl BenchCoordinator {
    /// Starts one on a fresh store at `data`: a store kept from an earlier run
    /// would answer the job from its memory of computed batches and measure
    /// nothing.
    pub async fn start(data: &Path) -> Result<BenchCoordinator, CliError> {
        let _ = std::fs::remove_dir_all(data);
        let store = bgfarm_storage::Store::open(data)
            .map_err(|e| CliError::msg(format!("cannot open store {}: {e}", data.display())))?;
        let core = Core::open(store, Config::default())?;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let url = format!("http://{}", listener.local_addr()?);
        let (stop, stopped) = oneshot::channel::<()>();
        let server = tokio::spawn(bgfarm_coordinator::serve_core(
            listener,
            None,
            Arc::clone(&core),
            async {
                let _ = stopped.await;
            },
        ));
        Ok(BenchCoordinator {
            core,
            url,
            stop,
            server,
        })
    }

    /// Stops serving and waits for the server task; its error, if any.
    pub async fn stop(self) -> Result<(), CliError> {
        let _ = self.stop.send(());
        self.server
            .await
            .map_err(|e| CliError::msg(format!("coordinator task: {e}")))?
            .map_err(|e| CliError::msg(format!("coordinator: {e}")))
    }
}
