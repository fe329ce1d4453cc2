//! bgfarm-client: the client side of a coordinator, for every program that talks
//! to one: the two binaries' client commands (`bgfarm rollout --coordinator`,
//! `jobs`, `results`, `bgfarm-lab train label --coordinator`, ...) and the worker.
//!
//! - [`connect`]: a channel to a coordinator (TLS for https:// URLs) with the
//!   bearer token on every request, the job and worker clients on it, and the
//!   token and PEM files that configure them.
//! - [`runtime`]: the async runtime the blocking commands run their requests on.
//! - [`access`]: the flags of a command that may run on a coordinator
//!   ([`RemoteArgs`]) and what they name ([`Access`]).
//! - [`job`]: submit a job, follow it across coordinator restarts, fetch its result.
//! - [`ClientError`]: why any of it failed, as a type of its own so that the
//!   worker and the libraries need not take the command line's error.
//!
//! Kept apart from `bgfarm-proto` (the wire types, which the coordinator shares)
//! and from `bgfarm-cli-common` (command-line plumbing), so that the coordinator
//! client has one home and the dependencies point one way: the client on `proto`,
//! the worker and both binaries on the client.

pub mod access;
pub mod connect;
pub mod error;
pub mod job;
pub mod runtime;

pub use access::{Access, RemoteArgs};
pub use error::ClientError;
