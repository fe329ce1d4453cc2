//! Training the networks: TD(lambda) self-play from scratch, supervised fitting to
//! positions labelled by a deeper search, sibling groups for a loss on equity
//! differences, targets from rollout trials' own results, and the one-sided race
//! net's samples and fit; under them the weight-changing code itself ([`net`]:
//! random and grown nets, gradients, the SGD step) and the one [`adam`] both fits
//! use. Kept out of the engine, which the product binary ships, because only
//! `bgfarm-lab train` runs it.

pub mod adam;
pub mod dataset;
pub mod net;
pub mod outcomes;
pub mod siblings;
pub mod side_net;
pub mod supervised;
pub mod td;
#[cfg(test)]
mod testutil;
