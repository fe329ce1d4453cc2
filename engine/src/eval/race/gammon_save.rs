//! Exact gammon chances in races where the losing side is not yet home: a search over
//! the saver's own positions against the finisher's one-sided bear-off distribution.
//!
//! A side that has borne off nothing (the saver) is gammoned if the other side (the
//! finisher) bears off its last checker first. In a race the two never meet again, so
//! with the finisher home its rolls to finish come from the one-sided table, and the
//! saver's problem is one-sided too: bring every checker home and bear one off before
//! the finisher is done. The one-sided first-off table covers savers that are home
//! already; this module covers savers with checkers still outside, which no table of
//! reasonable size can: 15 checkers on 24 points.
//!
//! Why it matters: what the race net still lost on GNU Backgammon's 250 bench races
//! came mostly from gammons. In `X90GAQCFBwAAAA` 2-1 the finisher wins a gammon only
//! if the saver (one checker on its 11-point, 14 home) misses its first checker off
//! twice: the race net put that at 0.001, the search at 0.011, as GNU Backgammon's
//! 2-ply does (see the tests), and that one decision cost 0.010 of the net's 0.111.
//!
//! The search: with `T(n)` = P(the finisher has not finished before the saver's `n`-th
//! roll), the saver's chance from a position before its `n`-th roll is
//! `V(s, n) = sum over the 21 rolls of max over its plays of (T(n) if the play bears a
//! checker off, else V(s', n + 1))`, and `V = 0` once `T(n) = 0`. Every play is tried,
//! home-board shuffles included (moving a home checker down can add bear-off numbers,
//! so no play dominates another in general), and `V` is memoised by position and roll
//! number. The finisher is assumed to play to minimise its expected rolls, the
//! one-sided approximation of the bear-off tables.
//!
//! Cost: about 15,000 saver positions a second on one core (each one 21 move
//! generations and a memo lookup per play), and their number grows fast with the
//! checkers the saver has outside and the rolls the finisher needs. Measured on the
//! shared 2-core machine with `bgfarm eval ID --exact-gammons N`: the bench race
//! above, one straggler, 9,300 positions, 57 ms; `/w0AAHCvUCEJAA` 1-5 (five
//! stragglers, the finisher 13 pips with 11 checkers) 43-68 s; `/zIAAHCvUFAUAA` 3-5
//! 2.3 million positions, 131-314 s; `u3kDAMCZhcEOAA` 6-1 (seven stragglers against
//! 13 checkers) did not finish in 16 minutes. So every search has a budget of
//! positions, beyond which it gives up and the net answers. Home-board shuffles are
//! what makes it large, and they matter: allowing only the plays that bring the
//! stragglers furthest changes `/zIAAHCvUFAUAA`'s result from 0.783 to 0.801.

use crate::dice::Dice;
use crate::eval::bearoff::index::{self, POINTS};
use crate::eval::bearoff::one_sided::{side_of, side_position, MAX_ROLLS};
use crate::eval::bearoff::{opponent_home, OneSidedDb};
use crate::eval::endgame::Endgame;
use crate::eval::Probs;
use crate::movegen::MoveGenerator;
use crate::position::Position;
use std::collections::HashMap;

/// Chances of the finisher still being on the board below which the search treats it
/// as done: the result moves by less than this (the saver saves at most once).
pub const NEGLIGIBLE: f64 = 1e-4;

/// The saver's checkers (its own numbering, `[i]` = point `i + 1`) when it has all 15
/// on the board, none on the bar and at least one outside its home board; the
/// finisher's home board when every checker of it is home. `pos` is seen by the
/// saver, who may or may not be on roll.
fn sides(pos: &Position) -> Option<([u8; 24], [u8; POINTS])> {
    if pos.mover_off() != 0 || pos.mover_checkers() != 15 {
        return None;
    }
    let p = pos.pips();
    if p[25] > 0 || p[7..25].iter().all(|&c| c <= 0) {
        return None;
    }
    let finisher = opponent_home(pos)?;
    let mut saver = [0u8; 24];
    for (i, c) in saver.iter_mut().enumerate() {
        *c = p[i + 1].max(0).unsigned_abs();
    }
    Some((saver, finisher))
}

/// The memo key: the 24 counts of at most 15 in 4 bits each (bits 0..96), the roll
/// number (bits 96..102, at most [`MAX_ROLLS`]) and the search's `context` above
/// (the finisher and who rolls first, which fix `T`).
fn key(pos: &Position, n: usize, context: u128) -> u128 {
    let p = pos.pips();
    let mut k = 0u128;
    for &c in p[1..25].iter().rev() {
        k = (k << 4) | u128::from(c.max(0).unsigned_abs() & 15);
    }
    k | (n as u128) << 96 | context << 102
}

/// Values of the search, which may be kept between queries: `V(s, n)` depends only
/// on the saver's position, `n` and `T`, and `T` only on the finisher's home board
/// and who rolls first, all in the key. The candidates of one saver's move share the
/// finisher and most of their future positions. Whether a query fits its budget
/// then depends on what the memo holds, so [`ExactGammons`] does not share one.
#[derive(Default)]
pub struct Memo {
    values: HashMap<u128, f64>,
}

impl Memo {
    /// Whether nothing is stored.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

/// The memoised search of the module docs.
struct Search<'a> {
    /// `tail[n]` = T(n): P(the finisher still has checkers when the saver's n-th roll
    /// comes).
    tail: [f64; MAX_ROLLS + 1],
    memo: &'a mut Memo,
    /// Key bits of the finisher and who rolls first.
    context: u128,
    gens: Vec<MoveGenerator>,
    /// Positions this search may still add to the memo.
    budget: usize,
    one: &'a OneSidedDb,
}

impl Search<'_> {
    /// V(pos, n), or `None` when the budget ran out.
    fn value(&mut self, pos: &Position, n: usize) -> Option<f64> {
        let t = self.tail.get(n).copied().unwrap_or(0.0);
        if t <= 0.0 {
            return Some(0.0);
        }
        let p = pos.pips();
        if p[7..].iter().all(|&c| c <= 0) {
            // All home: the first-off table's distribution (its play minimises the
            // expected rolls, not this weighted sum: the one-sided approximation).
            let first = self.one.first_off_distribution(&side_of(pos))?;
            let v: f64 = first
                .iter()
                .enumerate()
                .skip(1)
                .map(|(k, &f)| f64::from(f) * self.tail.get(n + k - 1).copied().unwrap_or(0.0))
                .sum();
            return Some(v);
        }
        let k = key(pos, n, self.context);
        if let Some(&v) = self.memo.values.get(&k) {
            return Some(v);
        }
        if self.budget == 0 {
            return None;
        }
        self.budget -= 1;
        // One move generator per depth: the candidates of this level stay intact
        // while deeper levels generate theirs.
        if self.gens.len() <= n {
            self.gens.resize_with(n + 1, MoveGenerator::new);
        }
        let mut total = 0f64;
        for (dice, weight) in Dice::ALL_21 {
            let mut gen = std::mem::take(&mut self.gens[n]);
            let moves = gen.generate(pos, dice);
            let best = if moves.is_empty() {
                self.value(pos, n + 1)
            } else if moves.iter().any(|m| m.result().mover_checkers() < 15) {
                // Bearing off now is worth T(n), at least V(., n + 1) <= T(n + 1).
                Some(t)
            } else {
                // Nothing beats bearing off on the next roll for sure.
                let ceiling = self.tail.get(n + 1).copied().unwrap_or(0.0);
                let mut best = 0f64;
                let mut failed = false;
                for m in moves {
                    match self.value(m.result(), n + 1) {
                        Some(v) => best = best.max(v),
                        None => {
                            failed = true;
                            break;
                        }
                    }
                    if best >= ceiling {
                        break;
                    }
                }
                (!failed).then_some(best)
            };
            self.gens[n] = gen;
            total += f64::from(weight) / 36.0 * best?;
        }
        self.memo.values.insert(k, total);
        Some(total)
    }
}

/// P(the saver bears a checker off before the finisher is done), `pos` seen by the
/// saver, who rolls first when `saver_first`; `None` when the search does not apply
/// (see [`sides`]) or needs more than `budget` positions not in `memo` yet (those it
/// did evaluate stay there).
pub fn save_chance(
    one: &OneSidedDb,
    pos: &Position,
    saver_first: bool,
    budget: usize,
    memo: &mut Memo,
) -> Option<f64> {
    let (saver, finisher) = sides(pos)?;
    let finisher_index = index::index(&finisher, index::MAX_CHECKERS)?;
    let done = one.distribution(&finisher)?;
    // The saver's n-th roll comes after the finisher's n - 1 rolls (n going second):
    // T(n) = P(finisher needs >= n rolls), or >= n + 1 going second.
    let lag = usize::from(!saver_first);
    let mut tail = [0f64; MAX_ROLLS + 1];
    for (n, t) in tail.iter_mut().enumerate().skip(1) {
        let left = done
            .iter()
            .skip(n + lag)
            .map(|&p| f64::from(p))
            .sum::<f64>();
        // The saver saves at most once: payoffs below NEGLIGIBLE, counted as 0, move
        // the chance by less than NEGLIGIBLE and cut the search's deepest levels.
        *t = if left < NEGLIGIBLE { 0.0 } else { left };
    }
    let mut search = Search {
        tail,
        memo,
        context: (finisher_index as u128) << 1 | lag as u128,
        gens: Vec::new(),
        budget,
        one,
    };
    let v = search.value(&side_position(&saver), 1)?;
    Some(v.clamp(0.0, 1.0))
}

/// Exact gammon chances of a race (no contact) for the player on roll, `(win gammon,
/// lose gammon)`, each `Some` when the search decides it within `budget` positions:
/// the side that may be gammoned has all 15 checkers on the board, some of them
/// outside its home board, and the other side has every checker home.
pub fn gammon_chances(
    one: &OneSidedDb,
    pos: &Position,
    budget: usize,
    memo: &mut Memo,
) -> (Option<f32>, Option<f32>) {
    let lose = save_chance(one, pos, true, budget, memo).map(|s| (1.0 - s) as f32);
    let win = save_chance(one, &pos.switch_sides(), false, budget, memo).map(|s| (1.0 - s) as f32);
    (win, lose)
}

/// Exact gammon chances in races on top of another endgame: an [`Endgame`] that
/// refines the race net's probabilities with `inner` (the tables, or the tables
/// with [`ExactRace`](super::exact::ExactRace)'s one-sided chances) and then
/// replaces its gammon chances by [`gammon_chances`] wherever the search decides
/// them within `budget` positions. It goes last because where it decides, it is
/// the better answer: its saver plays for the finisher's actual distribution,
/// `ExactRace`'s only for its own expected rolls.
///
/// Not the default: the search costs milliseconds to seconds a position (see the
/// module docs), against about a microsecond for the race net, so it is for
/// analysing a position (`eval`, `hint`, `bench hint` with `--exact-gammons`), not for
/// rollouts. Its [`Endgame::checksum`] differs from `inner`'s so that results
/// computed with it carry their own engine fingerprint.
pub struct ExactGammons<'a> {
    inner: &'a dyn Endgame,
    one: &'a OneSidedDb,
    budget: usize,
}

impl<'a> ExactGammons<'a> {
    /// `inner` refined by searches of at most `budget` positions each, with `one`
    /// for the finishers' distributions.
    pub fn new(inner: &'a dyn Endgame, one: &'a OneSidedDb, budget: usize) -> Self {
        ExactGammons { inner, one, budget }
    }

    /// [`gammon_chances`] with a memo of its own: whether the budget suffices, and so
    /// the result, never depends on what was evaluated before (a shared memo would
    /// make it depend on the threads' order).
    pub fn gammon_chances(&self, pos: &Position) -> (Option<f32>, Option<f32>) {
        gammon_chances(self.one, pos, self.budget, &mut Memo::default())
    }
}

impl Endgame for ExactGammons<'_> {
    fn probs(&self, pos: &Position) -> Option<Probs> {
        self.inner.probs(pos)
    }

    fn checksum(&self) -> u64 {
        // A fixed tag: over the bare tables it gives the checksum (and so the
        // fingerprint) that results made with this layer over them already carry.
        super::layer_checksum(self.inner, b"exact-gammons", self.budget as u64)
    }

    fn refine_race(&self, pos: &Position, probs: Probs) -> Probs {
        let refined = self.inner.refine_race(pos, probs);
        let (win_g, lose_g) = self.gammon_chances(pos);
        let [w, mut wg, wbg, mut lg, lbg] = refined.0;
        // Cumulative convention: gammons within wins, backgammons within gammons.
        if let Some(g) = win_g {
            wg = g.min(w).max(wbg);
        }
        if let Some(g) = lose_g {
            lg = g.min(1.0 - w).max(lbg);
        }
        Probs([w, wg, wbg, lg, lbg])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::bearoff::BearoffDb;
    use crate::ids::position_id;

    fn db() -> &'static BearoffDb {
        BearoffDb::global()
    }

    /// A race from the saver's 24 points and the finisher's home board (saver on
    /// roll).
    fn race(saver: &[(usize, u8)], finisher: [u8; 6]) -> Position {
        let mut m = [0u8; 25];
        let mut o = [0u8; 25];
        for &(point, n) in saver {
            m[point - 1] = n;
        }
        o[..6].copy_from_slice(&finisher);
        Position::from_arrays(&m, &o).unwrap()
    }

    /// One checker on the 7-point and 14 on the 6-point against a finisher that is
    /// off with any roll (one checker on its 1-point). Rolling first, the saver
    /// saves only by bearing off at once: with a 6 (bring the straggler in with the
    /// other die, 10 rolls), with a sum of 7 (5-2, 4-3: the straggler lands on the
    /// other die's point, 4), or with 2-2, 3-3 (7/5 6/4 4/2 2/off; 7/4 6/3 3/off)
    /// and 6-6 (3): 17 of 36. 1-1, 4-4 and 5-5 cannot reach a bear-off. Rolling
    /// second, never.
    #[test]
    fn one_roll_to_save_by_hand() {
        let pos = race(&[(7, 1), (6, 14)], [1, 0, 0, 0, 0, 0]);
        let one = db().one_sided();
        let first = save_chance(one, &pos, true, 1000, &mut Memo::default()).unwrap();
        assert!((first - 17.0 / 36.0).abs() < 1e-12, "{first}");
        let second = save_chance(one, &pos, false, 1000, &mut Memo::default()).unwrap();
        assert_eq!(second, 0.0);
        // From the finisher's side (it is on roll and wins the gammon unless it
        // misses, which it cannot): the saver is gammoned for sure.
        let (win_g, lose_g) = gammon_chances(one, &pos.switch_sides(), 1000, &mut Memo::default());
        assert_eq!(lose_g, None);
        assert_eq!(win_g, Some(1.0));
        let (_, lose_g) = gammon_chances(one, &pos, 1000, &mut Memo::default());
        assert!((lose_g.unwrap() - 19.0 / 36.0).abs() < 1e-6);
    }

    /// The search applies only to a saver with none off and a checker outside, and
    /// a finisher all home.
    #[test]
    fn where_it_applies() {
        let one = db().one_sided();
        let memo = &mut Memo::default();
        let all_home = race(&[(6, 15)], [1, 0, 0, 0, 0, 0]);
        assert_eq!(save_chance(one, &all_home, true, 1000, memo), None);
        let one_off = race(&[(7, 1), (6, 13)], [1, 0, 0, 0, 0, 0]);
        assert_eq!(save_chance(one, &one_off, true, 1000, memo), None);
        let finisher_out = {
            let mut m = [0u8; 25];
            let mut o = [0u8; 25];
            m[6] = 1;
            m[5] = 14;
            o[6] = 1;
            Position::from_arrays(&m, &o).unwrap()
        };
        assert_eq!(save_chance(one, &finisher_out, true, 1000, memo), None);
    }

    /// More finisher rolls give the saver more chances: a finisher with 3 checkers on
    /// its 1-point needs 2 rolls unless it rolls a double. Rolling first, the saver
    /// saves at once (17/36) or, failing that, on its second roll if the finisher
    /// did not roll a double (5/6); so between 17/36 and 17/36 + 19/36 x 5/6, and
    /// the second roll succeeds more often than not after 14 checkers are home.
    #[test]
    fn a_slower_finisher_gives_more_chances() {
        let one = db().one_sided();
        let pos = race(&[(7, 1), (6, 14)], [3, 0, 0, 0, 0, 0]);
        let v = save_chance(one, &pos, true, 10_000, &mut Memo::default()).unwrap();
        let now = 17.0 / 36.0;
        assert!(v > now + 19.0 / 36.0 * 5.0 / 6.0 * 0.5, "{v}");
        assert!(v < now + 19.0 / 36.0 * 5.0 / 6.0, "{v}");
    }

    /// A budget too small gives up (None) and never a wrong value; the same query
    /// with a memo that already holds the values fits any budget.
    #[test]
    fn budget() {
        let one = db().one_sided();
        let pos = race(&[(9, 1), (8, 1), (6, 13)], [0, 0, 2, 0, 0, 0]);
        let mut memo = Memo::default();
        assert_eq!(save_chance(one, &pos, true, 1, &mut memo), None);
        let full = save_chance(one, &pos, true, 1_000_000, &mut Memo::default()).unwrap();
        let mut memo = Memo::default();
        assert_eq!(
            save_chance(one, &pos, true, 1_000_000, &mut memo),
            Some(full)
        );
        assert!(!memo.is_empty());
        assert_eq!(save_chance(one, &pos, true, 0, &mut memo), Some(full));
    }

    /// GNU Backgammon's bench race `X90GAQCFBwAAAA` 2-1: the mover (9 off) wins a
    /// gammon only if the opponent, with one checker on its 11-point and 14 home,
    /// misses its first checker off long enough. GNU Backgammon's 2-ply gives its
    /// best play, 2/off 1/off, 0.0106 and the others at most 0.0003; the search
    /// gives 0.0100 and under 1e-7 (the race net: 0.001 for 6/4 1/off, its choice).
    /// With the search the evaluator's 0-ply choice is GNU Backgammon's.
    #[test]
    fn the_bench_gammon_race() {
        let one = db().one_sided();
        let value = |id: &str| {
            let next = position_id::decode(id).unwrap();
            // Seen by the saver, on roll: the mover's win gammon is its loss.
            let (_, lose_g) = gammon_chances(one, &next, 100_000, &mut Memo::default());
            lose_g.unwrap()
        };
        let gnu = value("4AEA4KvbIAAAAA");
        assert!((gnu - 0.0106).abs() < 0.001, "{gnu}");
        for other in [
            "kgMAwFe3QQAAAA",
            "oQMAwFe3QQAAAA",
            "pQYAgK9ugwAAAA",
            "FQcAgK9ugwAAAA",
        ] {
            assert!(value(other) < 1e-4, "{other}");
        }
        let mut eval = crate::testutil::default_nets();
        let exact = ExactGammons::new(db(), db().one_sided(), 100_000);
        eval.endgame = Some(&exact);
        let parent = position_id::decode("X90GAQCFBwAAAA").unwrap();
        let moves = crate::movegen::legal_moves(&parent, crate::dice::Dice::new(2, 1).unwrap());
        let best = crate::eval::Evaluator::choose_index(&eval, &parent, &moves).unwrap();
        assert_eq!(
            position_id::encode(&moves[best].next_position()),
            "4AEA4KvbIAAAAA"
        );
        // Probabilities stay in the cumulative convention.
        let p = crate::eval::Evaluator::evaluate(&eval, &moves[best].next_position()).0;
        assert!(
            p[0] >= p[1] && p[1] >= p[2] && 1.0 - p[0] >= p[3] && p[3] >= p[4],
            "{p:?}"
        );
    }
}
