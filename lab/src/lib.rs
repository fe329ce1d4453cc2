//! bgfarm-lab: the training and research tooling kept out of the product. The
//! library holds the training algorithms ([`train`]); the `bgfarm-lab` binary
//! holds their commands (`train`, `bench hint`, `bench race-referee`,
//! `filter-study`).

pub mod train;
