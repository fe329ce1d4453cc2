//! Search: n-ply lookahead, move-filter ladders and a shared evaluation cache.
//!
//! Ply numbering is GNU Backgammon's everywhere: 0-ply is the raw network (eXtreme
//! Gammon and bgsage call it 1-ply), 1-ply averages the opponent's 21 rolls, and so
//! on. Cubeless only; the cube lives in `crate::cube`.
//!
//! - [`nply`]: the expectation search ([`Searcher`]) with a pruning pass for replies;
//! - [`filter`]: filter steps, ladders, GNU Backgammon / eXtreme Gammon presets and
//!   the custom ladder syntax ([`MoveFilter::parse`]);
//! - [`rank`]: ranking the plays of a decision through a ladder ([`run_ladder`],
//!   [`Searcher::rank_moves`], [`Searcher::best_move`]);
//! - [`cache`]: the lock-free evaluation cache ([`EvalCache`]);
//! - [`evaluator`]: the evaluator at the leaves ([`Leaf`]).
//!
//! Typical use (one searcher per thread, one cache for all):
//!
//! ```
//! use bgfarm_engine::search::{EvalCache, Leaf, MoveFilter, Pruning, Searcher};
//! use bgfarm_engine::{Dice, Position};
//! # struct Toy;
//! # impl bgfarm_engine::eval::Evaluator for Toy {
//! #     fn evaluate(&self, p: &Position) -> bgfarm_engine::eval::Probs {
//! #         let (a, b) = p.pip_counts();
//! #         let w = 0.5 + (b as f32 - a as f32) / 200.0;
//! #         bgfarm_engine::eval::Probs([w.clamp(0.0, 1.0), 0.0, 0.0, 0.0, 0.0])
//! #     }
//! #     fn name(&self) -> String { "toy".into() }
//! # }
//! let cache = EvalCache::with_mib(8);
//! let mut s = Searcher::new(Leaf::Other(&Toy), Pruning::DEFAULT, Some(&cache));
//! let dice = Dice::new(3, 1).unwrap();
//! let ladder = MoveFilter::normal().ladder(1);
//! let best = s.best_move(&Position::STARTING, dice, 1, &ladder).unwrap();
//! assert_eq!(best.ply, 1);
//! ```
//!
//! Measured figures (default nets of this checkout, release build, one thread of a
//! shared 2-core development machine) are listed with the command that produced them
//! in the `bgfarm-lab filter-study` and `bgfarm-lab bench hint` docs of the CLI.

pub mod cache;
pub mod evaluator;
pub mod filter;
pub mod nply;
pub mod rank;

pub use cache::{CacheStats, EvalCache};
pub use evaluator::Leaf;
pub use filter::{FilterStep, Ladder, MoveFilter};
pub use nply::{Pruning, SearchStats, Searcher, DEFAULT_CACHE_MIN_PLY};
pub use rank::{candidates, run_ladder, Candidate};

#[cfg(test)]
mod measure;
#[cfg(test)]
mod tests;
