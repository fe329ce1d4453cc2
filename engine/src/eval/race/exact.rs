//! An [`Endgame`] that puts the one-sided searches' win chance ([`race_win`]) and
//! gammon chances ([`race_gammons`]) in place of the race net's wherever the sides
//! they need fit a limit, on top of another endgame (usually the tables).
//!
//! Why a wrapper: the one-sided chances and the exact gammon search
//! ([`ExactGammons`](super::gammon_save::ExactGammons)) have different costs and
//! reach, and an analyst may want either or both, so each is a layer, and the
//! fingerprint names the stack.
//!
//! The gammon chances here play the saver to bear its first checker off in the
//! fewest expected rolls, not for the finisher's actual distribution as the exact
//! search does, yet they come close to it: in GNU Backgammon's bench race
//! `/w0AAHCvUCEJAA` 1-5, 0.622 and 0.629 lose-gammon for 16/11 8/7 and 18/17 16/11
//! against the exact search's 0.621 and 0.628 (the race net: 0.698 and 0.685, the
//! other order); in `/zIAAHCvUFAUAA` 3-5 0.782 and 0.786 for 15/10 9/6 and 15/10
//! 14/11 (exact 0.779 and 0.783; net 0.816 and 0.828). They need no finisher at
//! home, and a saver's first-off search is far smaller than its full one.

use super::distribution::{race_gammons, race_win};
use crate::eval::bearoff::OneSidedDb;
use crate::eval::endgame::Endgame;
use crate::eval::Probs;
use crate::position::Position;

/// `inner` with one-sided race win chances where both sides'
/// [`dominated_count`](super::distribution::dominated_count)s are at most
/// `limit`, and gammon chances where the finisher's and the saver's (first-off
/// [`dominated_full_count`](super::distribution::dominated_full_count)) are.
///
/// Not the default: a search costs from milliseconds to a minute or more (see
/// [`distribution`](super::distribution)), against about a microsecond for the race net, so it is
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
        // "+gammons": the layer sets the gammon chances too, so its results differ from a win-only layer's.
        super::layer_checksum(self.inner, b"exact-race+gammons", self.limit)
    }

    fn refine_race(&self, pos: &Position, probs: Probs) -> Probs {
        let refined = self.inner.refine_race(pos, probs);
        let [mut w, mut wg, wbg, mut lg, lbg] = refined.0;
        if let Some(x) = race_win(self.one, pos, self.limit) {
            w = x as f32;
        }
        let (win_g, lose_g) = race_gammons(self.one, pos, self.limit);
        if let Some(g) = win_g {
            wg = g as f32;
        }
        if let Some(g) = lose_g {
            lg = g as f32;
        }
        super::cumulative(w, wg, wbg, lg, lbg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::bearoff::BearoffDb;
    use crate::eval::race::gammon_save::{gammon_chances, Memo};
    use crate::ids::position_id;

    /// GNU Backgammon's bench race `X90GAQCFBwAAAA` 2-1 (see `gammon_save`'s
    /// tests): the mover wins a gammon only if the opponent, one checker on its
    /// 11-point and 14 home, misses its first checker off long enough. The
    /// one-sided first-off chances agree with the exact search to 0.001 on every
    /// play (0.0100 for GNU Backgammon 2-ply's best, 2/off 1/off, where the race net
    /// says 0.001), and with them the 0-ply choice is GNU Backgammon's.
    #[test]
    fn gammons_agree_with_the_exact_search() {
        let db = BearoffDb::global();
        let one = db.one_sided();
        let parent = position_id::decode("X90GAQCFBwAAAA").unwrap();
        let moves = crate::movegen::legal_moves(&parent, crate::dice::Dice::new(2, 1).unwrap());
        for m in &moves {
            let next = m.next_position();
            // Seen by the saver, on roll: the mover's gammon is its loss.
            let (_, one_sided) = race_gammons(one, &next, 1_000_000);
            let (_, exact) = gammon_chances(one, &next, 100_000, &mut Memo::default());
            let (a, b) = (one_sided.unwrap(), f64::from(exact.unwrap()));
            assert!(
                (a - b).abs() < 1e-3,
                "{}: {a} {b}",
                position_id::encode(&next)
            );
        }
        let mut eval = crate::testutil::default_nets();
        let exact = ExactRace::new(db, one, 1_000_000);
        eval.endgame = Some(&exact);
        let i = crate::eval::Evaluator::choose_index(&eval, &parent, &moves).unwrap();
        assert_eq!(
            position_id::encode(&moves[i].next_position()),
            "4AEA4KvbIAAAAA"
        );
        // Seen by the saver, on roll after the play.
        let p = crate::eval::Evaluator::evaluate(&eval, &moves[i].next_position()).0;
        assert!((p[3] - 0.0100).abs() < 0.001, "{p:?}");
        assert!(
            p[0] >= p[1] && p[1] >= p[2] && 1.0 - p[0] >= p[3] && p[3] >= p[4],
            "{p:?}"
        );
    }
}
