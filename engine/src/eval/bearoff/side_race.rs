//! An [`Endgame`] that answers races from one-sided distributions: the tables' for
//! a side that is home, the exact search's for a side within a limit, the one-sided
//! race net's ([`SideNet`]) for the rest; win chances follow as in
//! [`race_win`](super::race_distribution::race_win), and gammon chances too where
//! the tables or the search give the saver's first-off distribution (or the net's,
//! with [`SideRace::with_gammons`]). Backgammon chances, and the rest of the gammon
//! chances, stay the inner endgame's (the race net and the escape tables).
//!
//! Why: see [`side_net`](super::side_net). With a limit of 0 it costs one small net
//! evaluation per side not home (cached per thread), cheap enough for rollouts.

use super::race_distribution::{
    dominated_full_count, first_off_distribution, gammon_from, race_sides, rolls_distribution,
    win_from, Side, RACE_ROLLS,
};
use super::side_net::{Head, SideNet};
use super::OneSidedDb;
use crate::eval::neural::Endgame;
use crate::eval::Probs;
use crate::position::Position;
use std::cell::RefCell;

/// `inner` with race win and gammon chances from one-sided distributions. See the
/// module docs.
pub struct SideRace<'a> {
    inner: &'a dyn Endgame,
    one: &'a OneSidedDb,
    net: &'a SideNet,
    limit: u64,
    /// The net's checksum: names it in the thread's cache ([`CACHE`]).
    net_id: u64,
    /// Whether the net's first-off distributions set the gammon chances too (else
    /// only the tables' and the searches' do, and the inner layer answers the
    /// rest).
    gammons: bool,
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
            net_id: net.checksum(),
            gammons: false,
        }
    }

    /// The same layer with the net's gammon chances (`true`) or without them (the
    /// default). Why not by default: on GNU Backgammon's 250 bench races they
    /// bring the error of the equity differences between plays from 6.9 to 4.6
    /// thousandths, but the 0-ply loss from 0.39 to 0.65, nearly all of it in five
    /// gammon saves with stragglers far back, where the net has the fewest exact
    /// samples (and where, in two of them, the exact search and bgfarm's rollouts
    /// disagree with GNU Backgammon 2-ply, the bench's referee).
    pub fn with_gammons(self, gammons: bool) -> Self {
        SideRace { gammons, ..self }
    }

    /// Whether this layer answers for `side`: not when a checker is still in the
    /// opponent's home board (points 19-24) and the search may not take the side.
    /// Such sides are backgammon saves, where the inner layer's escape tables and
    /// race net know more: the one-sided net, trained mostly on sides nearer home,
    /// gave `/wEAAJjtCEB4AA` 4-3 (two checkers on the 23-point, 160 pips against 9)
    /// 0.79 to lose a gammon against a true 1.00 and lost 0.16 there.
    fn answers(&self, side: &Side) -> bool {
        side[18..].iter().all(|&c| c == 0)
            || (self.limit > 0 && dominated_full_count(side) <= self.limit)
    }

    /// The side's all-off distribution and, for a side of 15 checkers, its
    /// first-off one when the tables or the search give it, or the net with
    /// [`with_gammons`](Self::with_gammons): one pass of the net's hidden layer for
    /// both.
    fn both(&self, side: &Side) -> ([f64; RACE_ROLLS], Option<[f64; RACE_ROLLS]>) {
        let full = checkers(side) == 15;
        let all = exact_distribution(self.one, side, Head::AllOff, self.limit);
        let first = if full {
            exact_distribution(self.one, side, Head::FirstOff, self.limit)
        } else {
            None
        };
        let net_first = full && first.is_none() && self.gammons;
        match all {
            Some(a) if !net_first => (a, first),
            None if !net_first => (self.net_all_off(side), first),
            _ => {
                let [na, nf] = self.net.distributions(side);
                (all.unwrap_or(na), first.or(net_first.then_some(nf)))
            }
        }
    }
}

/// Slots of the thread's cache of the net's all-off distributions: 8192 x 272
/// bytes. Why a cache: the other side is the same for every candidate of a roll and
/// for every roll of a rollout's luck estimate, and candidates recur between the
/// two. A 1296-trial rollout of a 95-pip race (`au8HBADlzLcAAA`) on one thread
/// took 0.47 s with the race net alone, 2.9 s with the one-sided net uncached (and
/// the home sides through the search), 0.86 s with this cache and the tables read
/// directly.
const CACHE_SLOTS: usize = 8192;

struct Slot {
    net: u64,
    key: u128,
    d: [f32; RACE_ROLLS],
}

thread_local! {
    static CACHE: RefCell<Vec<Slot>> = RefCell::new(
        (0..CACHE_SLOTS)
            .map(|_| Slot { net: 0, key: u128::MAX, d: [0.0; RACE_ROLLS] })
            .collect(),
    );
}

impl SideRace<'_> {
    /// The net's all-off distribution of `side`, through the thread's cache. The
    /// values are rounded to `f32` whether they come from the cache or not, so a
    /// result never depends on what the cache holds.
    fn net_all_off(&self, side: &Side) -> [f64; RACE_ROLLS] {
        let key = side
            .iter()
            .rev()
            .fold(0u128, |k, &c| (k << 4) | u128::from(c & 15));
        let h = (key as u64) ^ ((key >> 64) as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let slot = (h.wrapping_mul(0xbf58_476d_1ce4_e5b9) >> 32) as usize % CACHE_SLOTS;
        let widen = |d: &[f32; RACE_ROLLS]| d.map(f64::from);
        CACHE.with(|c| {
            let mut c = c.borrow_mut();
            let s = &mut c[slot];
            if s.key == key && s.net == self.net_id {
                return widen(&s.d);
            }
            let d = self.net.distribution(Head::AllOff, side).map(|x| x as f32);
            *s = Slot {
                net: self.net_id,
                key,
                d,
            };
            widen(&d)
        })
    }
}

/// `side`'s distribution for `head` from the tables when it is home, else from the
/// exact search when it could reach at most `limit` positions (never for 0); `None`
/// otherwise, or for a first-off head of a side of fewer than 15 checkers.
pub fn exact_distribution(
    one: &OneSidedDb,
    side: &Side,
    head: Head,
    limit: u64,
) -> Option<[f64; RACE_ROLLS]> {
    if side[6..].iter().all(|&c| c == 0) {
        // Home: straight from the tables (through the search it would cost a count
        // of dominated positions and a memo look-up, 30% of a race rollout's time).
        let mut home = [0u8; 6];
        home.copy_from_slice(&side[..6]);
        let table = match head {
            Head::AllOff => one.distribution(&home),
            Head::FirstOff => one.first_off_distribution(&home),
        }?;
        let mut d = [0f64; RACE_ROLLS];
        for (x, &t) in d.iter_mut().zip(table) {
            *x = f64::from(t);
        }
        return Some(d);
    }
    if limit == 0 {
        return None;
    }
    // The limit, not more, goes to the search: it also bounds the thread's memo.
    match head {
        Head::AllOff => rolls_distribution(one, side, limit),
        Head::FirstOff => first_off_distribution(one, side, limit),
    }
}

/// `side`'s distribution for `head`: [`exact_distribution`] where it answers, else
/// `net`'s (what a [`SideRace`] of that limit uses, uncached).
pub fn one_sided_distribution(
    one: &OneSidedDb,
    net: &SideNet,
    side: &Side,
    head: Head,
    limit: u64,
) -> [f64; RACE_ROLLS] {
    exact_distribution(one, side, head, limit).unwrap_or_else(|| net.distribution(head, side))
}

fn checkers(s: &Side) -> u32 {
    s.iter().map(|&c| u32::from(c)).sum()
}

impl Endgame for SideRace<'_> {
    fn probs(&self, pos: &Position) -> Option<Probs> {
        self.inner.probs(pos)
    }

    fn checksum(&self) -> u64 {
        let tag: &[u8] = if self.gammons {
            b"side-net+gammons"
        } else {
            b"side-net"
        };
        super::layer_checksum(self.inner, tag, self.net_id ^ self.limit)
    }

    fn refine_race(&self, pos: &Position, probs: Probs) -> Probs {
        let refined = self.inner.refine_race(pos, probs);
        let Some((mover, opponent)) = race_sides(pos) else {
            return refined;
        };
        if checkers(&mover) == 0 || checkers(&opponent) == 0 {
            return refined;
        }
        if !(self.answers(&mover) && self.answers(&opponent)) {
            return refined;
        }
        let [_, mut wg, wbg, mut lg, lbg] = refined.0;
        let (m, m_first) = self.both(&mover);
        let (o, o_first) = self.both(&opponent);
        let w = win_from(&m, &o) as f32;
        if let Some(f) = o_first {
            wg = gammon_from(&m, &f, 0) as f32;
        }
        if let Some(f) = m_first {
            lg = gammon_from(&o, &f, 1) as f32;
        }
        super::cumulative(w, wg, wbg, lg, lbg)
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
