//! Supervised training on positions labelled by a deeper search.
//!
//! TD(lambda) self-play teaches a net to agree with itself one move later; it
//! plateaued at +0.52 points per game against PubEval after 1.5 million games (see
//! `scripts/train-default-nets.sh`). The second pipeline teaches the net what a
//! *deeper* look says instead: positions from self-play are labelled with the n-ply
//! value of the current nets (2-ply averages 21 x 21 replies, so it sees tactics two
//! rolls away the static net misses), and the net is fitted to those labels. Repeated,
//! each round's net labels the next round's positions.
//!
//! The three steps are separate so that the expensive one (labelling: ~3 ms a
//! position at 2-ply) can run on many cores or machines and be kept on disk:
//! - [`selfplay_positions`]: the positions before each roll of one self-play game,
//!   with occasional exploratory moves so the set covers more than the net's own
//!   favourite lines;
//! - [`label`]: a position's probabilities at n plies, by the [`Searcher`];
//! - [`fit`]: gradient descent (Adam on minibatches, or plain per-sample steps) on
//!   the cross-entropy between the net's outputs and the labels, in a seeded random
//!   order, with a held-out part to watch for over-fitting.
//!
//! Every step is a deterministic function of its inputs and seed. The items are
//! re-exported here, the paths the `train` commands use.

pub mod fit;
pub mod positions;

pub use bgfarm_engine::label::{label, rollout_label};
pub use fit::{fit, EpochReport, FitConfig, Optimizer, SHARDS};
pub use positions::{selfplay_positions, Exploration};
