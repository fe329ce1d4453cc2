//! An [`Endgame`] that puts the one-sided search's win chance
//! ([`race_win`]) in place of the race net's wherever both sides'
//! searches fit a limit, on top of another endgame (the tables, or the tables with
//! exact gammons).
//!
//! Why a wrapper: the win chance and the gammon chances come from different searches
//! with different costs, and an analyst may want either or both, so each is a layer,
//! and the fingerprint names the stack.

use super::race_distribution::race_win;
use super::OneSidedDb;
use crate::eval::neural::Endgame;
use crate::eval::Probs;
use crate::position::Position;

/// `inner` with exact race win chances for sides whose
/// [`dominated_count`](super::race_distribution::dominated_count) is at most `limit`.
///
/// Not the default: a search costs from milliseconds to tens of seconds (see
/// [`race_distribution`](super::race_distribution)), against about a microsecond for the race net, so it is
/// for analysing positions (`eval`, `hint`, `bench hint`, `train label` with
/// `--exact-race`), not for rollouts.
pub struct ExactRace<'a> {
    inner: &'a dyn Endgame,
    one: &'a OneSidedDb,
    limit: u64,
}

impl<'a> ExactRace<'a> {
    /// `inner` refined by searches of sides of at most `limit` dominated positions,
    /// with `one` for the sides that are home.
    pub fn new(inner: &'a dyn Endgame, one: &'a OneSidedDb, limit: u64) -> Self {
        ExactRace { inner, one, limit }
    }
}

impl Endgame for ExactRace<'_> {
    fn probs(&self, pos: &Position) -> Option<Probs> {
        self.inner.probs(pos)
    }

    fn checksum(&self) -> u64 {
        // FNV-1a over the inner checksum, a tag and the limit.
        let mut bytes = self.inner.checksum().to_le_bytes().to_vec();
        bytes.extend_from_slice(b"exact-race");
        bytes.extend_from_slice(&self.limit.to_le_bytes());
        super::fnv1a(&bytes)
    }

    fn refine_race(&self, pos: &Position, probs: Probs) -> Probs {
        let refined = self.inner.refine_race(pos, probs);
        let Some(w) = race_win(self.one, pos, self.limit) else {
            return refined;
        };
        let w = w as f32;
        let [_, wg, wbg, lg, lbg] = refined.0;
        // Cumulative convention: backgammons within gammons within wins (losses).
        let wbg = wbg.min(w);
        let wg = wg.min(w).max(wbg);
        let lbg = lbg.min(1.0 - w);
        let lg = lg.min(1.0 - w).max(lbg);
        Probs([w, wg, wbg, lg, lbg])
    }
}
