//! Training the networks: TD(lambda) self-play from scratch, supervised fitting to
//! positions labelled by a deeper search, sibling groups for a loss on equity
//! differences, and the one-sided race net's samples and fit. Kept out of the
//! engine, which the product binary ships, because only `bgfarm-lab train` runs it.

pub mod dataset;
pub mod siblings;
pub mod side_net;
pub mod supervised;
pub mod td;
#[cfg(test)]
mod testutil;
