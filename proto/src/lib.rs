//! bgfarm-proto: the gRPC API between clients, the coordinator and workers.
//!
//! `proto/bgfarm/v1/bgfarm.proto` is compiled at build time by protox (pure Rust, no
//! system `protoc`) and tonic-prost-build; [`v1`] is the generated code. [`convert`]
//! maps the wire messages to and from the engine's rollout types and [`matchsim`]
//! to and from its match-simulation types ([`study`]: its studies), [`label`] its
//! label plans, so the coordinator, the worker and the
//! CLI agree on one translation ([`analysis`]: match analyses). Connecting to a coordinator is the client's
//! business (`bgfarm-client`), not the wire's.

pub mod analysis;
pub mod convert;
pub mod label;
pub mod matchsim;
pub mod study;

/// Generated messages and tonic services of package `bgfarm.v1`.
#[allow(clippy::all, missing_docs)]
pub mod v1 {
    include!(concat!(env!("OUT_DIR"), "/bgfarm.v1.rs"));
}

/// Version of the wire protocol. Bumped on any incompatible change: 2 added
/// `MatchSimSpec.chequer`, which a worker of version 1 would ignore and play
/// cubeless chequers (another result under the same fingerprint); 3 added label
/// jobs (`JobSpec.label`), whose leases a worker of version 2 could not run; 4
/// added match analyses (`JobSpec.analysis`).
pub const PROTOCOL_VERSION: u32 = 4;

/// Largest message either side decodes: 4 MiB holds a lease or result for about
/// 10,000 candidates (6 outputs x 40 bytes each), far above any real rollout.
pub const MAX_MESSAGE_BYTES: usize = 4 << 20;
