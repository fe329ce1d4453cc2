//! `bgfarm`: one binary for every role (analysis commands, coordinator, worker).

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    // Like every Unix filter, stop quietly when the reader of our output goes away
    // (`bgfarm moves ... | head`) instead of panicking on a failed write: Rust
    // ignores SIGPIPE by default, which turns a closed pipe into a print! panic.
    #[cfg(unix)]
    // SAFETY: restoring the default disposition of SIGPIPE at start-up, before any
    // thread exists, has no memory-safety preconditions.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    match cli::run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
