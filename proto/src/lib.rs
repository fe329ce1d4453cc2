//! bgfarm-proto: the gRPC API between clients, the coordinator and workers.
//!
//! The `.proto` files and the tonic/prost code generated from them (with a pure-Rust
//! protobuf compiler, so no system `protoc`) arrive with the cluster work (issue 7).
//! What exists now is the protocol version every peer will exchange at registration,
//! so that incompatible workers can be refused with a clear message.

/// Version of the wire protocol. Bumped on any incompatible change.
pub const PROTOCOL_VERSION: u32 = 1;
