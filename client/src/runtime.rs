//! The async runtime of the commands that talk to a coordinator, and the files
//! they read to reach one (its TLS CA, the client token).

use crate::connect::{read_pem, read_token};
use crate::ClientError;

/// A multi-threaded tokio runtime for network I/O (trials run on rayon threads),
/// with SIGPIPE ignored while it lives.
///
/// `main` restores SIGPIPE's default so that `bgfarm ... | head` ends quietly; but
/// then a write to a socket the peer has closed (a coordinator restarting, a TLS
/// handshake refused) kills the process, as hyper writes with `writev`, which has
/// no `MSG_NOSIGNAL`. While the runtime lives such writes fail with EPIPE and the
/// gRPC stack handles them; dropping it restores the default for the output that
/// follows.
pub struct NetRuntime(tokio::runtime::Runtime);

impl NetRuntime {
    /// Runs `f` to completion.
    pub fn block_on<F: std::future::Future>(&self, f: F) -> F::Output {
        self.0.block_on(f)
    }
}

impl Drop for NetRuntime {
    fn drop(&mut self) {
        sigpipe(libc::SIG_DFL);
    }
}

/// The runtime of the network commands. Two I/O threads are plenty: the
/// coordinator spends its time in sled and in short critical sections, a worker
/// in one request at a time.
pub fn runtime() -> Result<NetRuntime, ClientError> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(ClientError::Runtime)?;
    sigpipe(libc::SIG_IGN);
    Ok(NetRuntime(rt))
}

/// Sets the process-wide disposition of SIGPIPE: `libc::SIG_IGN` while the runtime
/// lives, `libc::SIG_DFL` (what the binaries' entry point sets) after. A copy of
/// the entry point's own two lines rather than a dependency on the command-line
/// crate, which the worker does not need.
fn sigpipe(disposition: libc::sighandler_t) {
    // SAFETY: setting a process-wide signal disposition to SIG_IGN or SIG_DFL has no
    // memory-safety preconditions (no handler function runs).
    unsafe {
        libc::signal(libc::SIGPIPE, disposition);
    }
}

/// The PEM file at `path` (a TLS CA certificate), if one was given.
pub fn pem(path: Option<&std::path::Path>) -> Result<Option<Vec<u8>>, ClientError> {
    path.map(read_pem).transpose()
}

/// The token in `path`, if one was given.
pub fn token(path: Option<&std::path::Path>) -> Result<Option<String>, ClientError> {
    path.map(read_token).transpose()
}
