//! bgfarm-engine: pure, synchronous backgammon knowledge: the board seen from the
//! player on roll, dice, legal moves, GNU Backgammon and eXtreme Gammon IDs, move
//! notation. No I/O, no async: everything here is a deterministic function of its
//! inputs, which is what lets the cluster re-run any trial and compare it bit for bit.

pub mod analysis;
pub mod batches;
pub mod cube;
pub mod dice;
pub mod error;
pub mod eval;
pub mod ids;
pub mod label;
pub mod matchfile;
pub mod matchsim;
pub mod met;
pub mod movegen;
pub mod notation;
pub mod play;
pub mod position;
pub mod races;
pub mod rng;
pub mod rollout;
pub mod search;
#[cfg(test)]
mod testutil;

pub use dice::Dice;
pub use error::ParseError;
pub use movegen::{legal_moves, Move, MoveGenerator, Step};
pub use position::Position;
