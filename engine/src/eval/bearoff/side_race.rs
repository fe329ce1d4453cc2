//! An [`Endgame`] that answers races from one-sided distributions: the tables' for
//! a side that is home, the exact search's for a side within a limit, the one-sided
//! race net's ([`SideNet`]) for the rest; win and gammon chances follow as in
//! [`race_win`](super::race_distribution::race_win). Backgammon chances stay the
//! inner endgame's (the escape tables).
//!
//! Why: see [`side_net`](super::side_net). With a limit of 0 it costs two or three
//! small net evaluations a race position, cheap enough for rollouts.

use super::race_distribution::{
    dominated_count, dominated_full_count, first_off_distribution, gammon_from, race_sides,
    rolls_distribution, win_from, Side, RACE_ROLLS,
};
use super::side_net::{Head, SideNet};
use super::OneSidedDb;
use crate::eval::neural::Endgame;
use crate::eval::Probs;
use crate::position::Position;

/// `inner` with race win and gammon chances from one-sided distributions. See the
/// module docs.
pub struct SideRace<'a> {
    inner: &'a dyn Endgame,
    one: &'a OneSidedDb,
    net: &'a SideNet,
    limit: u64,
}

impl<'a> SideRace<'a> {
    /// `inner` refined by `net`, with exact searches for sides of at most `limit`
    /// dominated positions (0: the net for every side not home).
    pub fn new(inner: &'a dyn Endgame, one: &'a OneSidedDb, net: &'a SideNet, limit: u64) -> Self {
        SideRace {
            inner,
            one,
            net,
            limit,
        }
    }

    /// The side's distribution for `head`: the table's when home, the search's
    /// within the limit, else the net's.
    pub fn distribution(&self, side: &Side, head: Head) -> [f64; RACE_ROLLS] {
        let home = side[6..].iter().all(|&c| c == 0);
        let searched = match head {
            Head::AllOff => (home || dominated_count(side) <= self.limit)
                .then(|| rolls_distribution(self.one, side, u64::MAX))
                .flatten(),
            Head::FirstOff => (home || dominated_full_count(side) <= self.limit)
                .then(|| first_off_distribution(self.one, side, u64::MAX))
                .flatten(),
        };
        searched.unwrap_or_else(|| self.net.distribution(head, side))
    }
}

fn checkers(s: &Side) -> u32 {
    s.iter().map(|&c| u32::from(c)).sum()
}

impl Endgame for SideRace<'_> {
    fn probs(&self, pos: &Position) -> Option<Probs> {
        self.inner.probs(pos)
    }

    fn checksum(&self) -> u64 {
        super::layer_checksum(self.inner, b"side-net", self.net.checksum() ^ self.limit)
    }

    fn refine_race(&self, pos: &Position, probs: Probs) -> Probs {
        let refined = self.inner.refine_race(pos, probs);
        let Some((mover, opponent)) = race_sides(pos) else {
            return refined;
        };
        if checkers(&mover) == 0 || checkers(&opponent) == 0 {
            return refined;
        }
        let [_, mut wg, wbg, mut lg, lbg] = refined.0;
        let m = self.distribution(&mover, Head::AllOff);
        let o = self.distribution(&opponent, Head::AllOff);
        let w = win_from(&m, &o) as f32;
        if checkers(&opponent) == 15 {
            wg = gammon_from(&m, &self.distribution(&opponent, Head::FirstOff), 0) as f32;
        }
        if checkers(&mover) == 15 {
            lg = gammon_from(&o, &self.distribution(&mover, Head::FirstOff), 1) as f32;
        }
        let wbg = wbg.min(w);
        let wg = wg.min(w).max(wbg);
        let lbg = lbg.min(1.0 - w);
        let lg = lg.min(1.0 - w).max(lbg);
        Probs([w, wg, wbg, lg, lbg])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::bearoff::exact_race::ExactRace;
    use crate::eval::bearoff::BearoffDb;
    use crate::ids::position_id;

    /// With every side within the limit the net is never asked: the layer gives the
    /// exact searches' chances, whatever its weights (here random ones).
    #[test]
    fn within_the_limit_it_is_the_exact_search() {
        let db = BearoffDb::global();
        let net = SideNet::random(8, 5);
        let side = SideRace::new(db, db.one_sided(), &net, u64::MAX);
        let exact = ExactRace::new(db, db.one_sided(), u64::MAX);
        // GNU Backgammon's bench race 768AAMB9IQARAA after its best 6-5 (see
        // `race_distribution`'s tests): 60 pips against 25.
        let pos = position_id::decode("94UQAuD9FQAAAA").unwrap();
        let start = Probs([0.5, 0.1, 0.0, 0.1, 0.0]);
        let a = side.refine_race(&pos, start).0;
        let b = exact.refine_race(&pos, start).0;
        for (x, y) in a.iter().zip(&b) {
            assert!((x - y).abs() < 1e-6, "{a:?} {b:?}");
        }
        // With no search allowed the random net answers, and the chances stay
        // ordered (backgammons within gammons within wins or losses).
        let guess = SideRace::new(db, db.one_sided(), &net, 0);
        let p = guess.refine_race(&pos, start).0;
        assert!((p[0] - a[0]).abs() > 1e-4, "{p:?} {a:?}");
        assert!(p[0] >= p[1] && p[1] >= p[2] && 1.0 - p[0] >= p[3] && p[3] >= p[4]);
    }
}
