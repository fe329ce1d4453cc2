//! [`main`]: what both binaries do around their command: restore the default
//! SIGPIPE, run, print a [`CliError`] as one line and exit with code 2 on it.

use crate::CliError;
use std::process::ExitCode;

/// Runs `command` as a binary's whole `main`: success exits 0, a [`CliError`] is
/// printed as `error: ...` on stderr and exits 2 (bad input), the code scripts test.
pub fn main(command: impl FnOnce() -> Result<(), CliError>) -> ExitCode {
    // Like every Unix filter, stop quietly when the reader of our output goes away
    // (`bgfarm moves ... | head`) instead of panicking on a failed write: Rust
    // ignores SIGPIPE by default, which turns a closed pipe into a print! panic.
    // Restored at start-up, before any thread exists.
    #[cfg(unix)]
    sigpipe(libc::SIG_DFL);
    match command() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// Sets the process-wide disposition of SIGPIPE to `libc::SIG_DFL` (end quietly on
/// a closed pipe). `bgfarm-client`'s network runtime ignores SIGPIPE while it lives
/// and restores this default when dropped.
fn sigpipe(disposition: libc::sighandler_t) {
    // SAFETY: setting a process-wide signal disposition to SIG_IGN or SIG_DFL has no
    // memory-safety preconditions (no handler function runs).
    unsafe {
        libc::signal(libc::SIGPIPE, disposition);
    }
}
