//! bgfarm-worker: the pull loop that leases trial batches from a coordinator and runs
//! them on a rayon pool (issue 7). Nothing runs here yet; the engine it will drive is
//! `bgfarm-engine`.

/// The worker's user agent, sent at registration once the protocol exists.
pub fn user_agent() -> String {
    format!("bgfarm-worker/{}", env!("CARGO_PKG_VERSION"))
}
