//! bgfarm-storage: the coordinator's durable state in sled (jobs, accepted batch
//! results, the first-move cache), arriving with the cluster work (issue 7).
//!
//! The schema version is fixed now so the first store ever written carries it.

/// Version of the on-disk layout; a store with another version is refused.
pub const SCHEMA_VERSION: u32 = 1;
