//! Training the networks inside the product: TD(lambda) self-play from scratch, and
//! supervised fitting to positions labelled by a deeper search.

pub mod dataset;
pub mod races;
pub mod siblings;
pub mod side_net;
pub mod supervised;
pub mod td;
