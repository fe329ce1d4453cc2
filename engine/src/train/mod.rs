//! Training the networks inside the product: TD(lambda) self-play from scratch.

pub mod td;
