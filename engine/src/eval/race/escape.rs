//! Exact backgammon chances in races: how fast a side gets its stragglers out of the
//! opponent's home board.
//!
//! A side that has borne off nothing and still has checkers in the opponent's home
//! board (its own points 19..=24) is backgammoned if the opponent bears off its last
//! checker first. In a race (no contact) those checkers never meet an opposing one
//! again, so leaving that board is a one-sided problem like bearing off, on six
//! "points" counted by the pips a checker still needs to leave (`p - 18`), with one
//! difference: any die at least that large takes a checker out (there is no rule
//! about higher points). [`EscapeTable`] holds, for each of the 8,008 ways of having
//! at most [`MAX_STRAGGLERS`] (10) checkers there, the chance of having them all out within `k`
//! rolls for `k < MAX_ROLLS`, each `k` with the play that maximises it (moving a
//! checker forward never hurts, so the side may spend dice elsewhere freely).
//!
//! With the opponent home, its rolls to finish come from the one-sided bear-off
//! table, and the backgammon chance is exact up to the one-sided approximation:
//! [`backgammon_chances`]. Why it matters: a race net without the race inputs,
//! giving the backgammon chances itself, put GNU Backgammon's best play of one such
//! race (4 checkers on the 23-point, one on the 19, 4-3 to play) 21st of 28, with
//! a backgammon chance of 0.256 where GNU Backgammon's 2-ply gives 0.083 and the
//! table 0.083 (see the tests), and played one GNU Backgammon puts at 0.244 (net:
//! 0.062, table: 0.242). That decision alone was 0.64 of that race net's 1.5 x1000
//! loss per race decision on GNU Backgammon's bench.
//!
//! Cost: built on first use, 8,008 sides x 21 rolls, the distinct results of each
//! roll found die by die: 0.18 s on the shared 2-core machine with other work
//! running (6.5 s for all 54,264 sides of up to 15 checkers before the die-by-die
//! pruning, 1.9 s after it). 1.0 MB of `f32`.

use crate::eval::bearoff::index::{self, POINTS};
use crate::eval::bearoff::one_sided::MAX_ROLLS;
use crate::eval::bearoff::{opponent_home, BearoffDb, OneSidedDb};
use crate::eval::Probs;
use crate::position::Position;
use std::sync::OnceLock;

/// Most checkers the table covers. More than 10 in the opponent's home board with the
/// opponent all home is a game that is lost anyway (the race net answers); the limit
/// makes the table 8,008 sides instead of 54,264 and its build about 20 times
/// cheaper.
pub const MAX_STRAGGLERS: u8 = 10;

/// Sides with at most [`MAX_STRAGGLERS`] checkers on 6 points.
const SIDES: usize = index::count(POINTS, MAX_STRAGGLERS);

/// For each side of at most [`MAX_STRAGGLERS`] checkers in the opponent's home board (`[i]` =
/// checkers needing `i + 1` pips to leave it), P(all out within `k` rolls).
pub struct EscapeTable {
    /// `SIDES * MAX_ROLLS`, row `index(side)`, column `k`.
    within: Vec<f32>,
}

static GLOBAL: OnceLock<EscapeTable> = OnceLock::new();

impl EscapeTable {
    /// Computes the table (see the module docs for the cost).
    pub fn build() -> EscapeTable {
        let mut within = vec![0f32; SIDES * MAX_ROLLS];
        // The empty side (index 0) is out in 0 rolls.
        within[..MAX_ROLLS].fill(1.0);
        let mut layer: Vec<[u8; POINTS]> = Vec::with_capacity(256);
        let mut next: Vec<[u8; POINTS]> = Vec::with_capacity(256);
        let mut from: Vec<[u8; POINTS]> = Vec::with_capacity(256);
        for idx in 1..SIDES {
            let Some(side) = index::unindex(idx, MAX_STRAGGLERS) else {
                unreachable!("index {idx} < SIDES")
            };
            let mut row = [0f64; MAX_ROLLS];
            for a in 1..=6u8 {
                for b in a..=6u8 {
                    let dice: &[u8] = if a == b { &[a, a, a, a] } else { &[a, b] };
                    let weight = if a == b { 1.0 } else { 2.0 } / 36.0f64;
                    // The distinct sides after playing the dice in order (both orders
                    // for a non-double), each die on some checker.
                    layer.clear();
                    for order in 0..if a == b { 1 } else { 2 } {
                        next.clear();
                        next.push(side);
                        for k in 0..dice.len() {
                            let die = if order == 0 {
                                dice[k]
                            } else {
                                dice[dice.len() - 1 - k]
                            };
                            std::mem::swap(&mut from, &mut next);
                            next.clear();
                            for s in &from {
                                step(s, die, &mut next);
                            }
                            next.sort_unstable();
                            next.dedup();
                        }
                        layer.extend_from_slice(&next);
                    }
                    // k rolls from here: this roll, then the best side's k - 1.
                    let mut best = [0f32; MAX_ROLLS];
                    for s in &layer {
                        let Some(j) = index::index(s, MAX_STRAGGLERS) else {
                            unreachable!("a move never adds checkers")
                        };
                        let r = &within[j * MAX_ROLLS..(j + 1) * MAX_ROLLS];
                        for (b, &v) in best.iter_mut().zip(r) {
                            *b = b.max(v);
                        }
                    }
                    for k in 1..MAX_ROLLS {
                        row[k] += weight * f64::from(best[k - 1]);
                    }
                }
            }
            for (w, r) in within[idx * MAX_ROLLS..(idx + 1) * MAX_ROLLS]
                .iter_mut()
                .zip(row)
            {
                *w = r.min(1.0) as f32;
            }
        }
        EscapeTable { within }
    }

    /// The process-wide table, built on first use.
    pub fn global() -> &'static EscapeTable {
        GLOBAL.get_or_init(EscapeTable::build)
    }

    /// P(every checker of `side` out within `k` rolls), `k` in `0..MAX_ROLLS`;
    /// `side[i]` = checkers needing `i + 1` pips. `None` for more than
    /// [`MAX_STRAGGLERS`].
    pub fn within(&self, side: &[u8; POINTS]) -> Option<&[f32]> {
        let i = index::index(side, MAX_STRAGGLERS)?;
        Some(&self.within[i * MAX_ROLLS..(i + 1) * MAX_ROLLS])
    }
}

/// Pushes the sides reached from `side` by playing `die` on one of its checkers
/// (an empty side stays empty: the die is played elsewhere). Of the checkers the die
/// takes out, only the one needing the most pips is tried: taking out one needing
/// fewer leaves a side that needs more everywhere.
fn step(side: &[u8; POINTS], die: u8, out: &mut Vec<[u8; POINTS]>) {
    if side.iter().all(|&c| c == 0) {
        out.push(*side);
        return;
    }
    let d = usize::from(die);
    // The checker needing the most pips that the die still takes out.
    if let Some(i) = (0..d.min(POINTS)).rev().find(|&i| side[i] > 0) {
        let mut t = *side;
        t[i] -= 1;
        out.push(t);
    }
    for i in d..POINTS {
        if side[i] > 0 {
            let mut t = *side;
            t[i] -= 1;
            t[i - d] += 1;
            out.push(t);
        }
    }
}

/// The mover's checkers in the opponent's home board as an escape side (`[i]` =
/// checkers on the mover's point `19 + i`), when the mover has none off and at least
/// one there.
fn stragglers(pos: &Position) -> Option<[u8; POINTS]> {
    if pos.mover_off() != 0 {
        return None;
    }
    let p = pos.pips();
    let mut side = [0u8; POINTS];
    for i in 0..POINTS {
        side[i] = p[19 + i].max(0).unsigned_abs();
    }
    (side.iter().any(|&c| c > 0)).then_some(side)
}

/// Exact backgammon chances of a race (no contact) for the player on roll: `(win
/// backgammon, lose backgammon)`, each `Some` when it is decided by the tables:
/// the side that may be backgammoned has borne off nothing and has checkers in the
/// other's home board, and the other side has every checker home. The mover rolls
/// first, so it gets `n` rolls before the opponent's `n`-th and the opponent `n - 1`
/// before the mover's `n`-th: lose backgammon = sum over n of P(opponent off in
/// exactly n) P(mover not out within n); win backgammon = sum over n of P(mover off
/// in exactly n) P(opponent not out within n - 1).
/// The escape table is built on the first call that needs it.
pub fn backgammon_chances(one: &OneSidedDb, pos: &Position) -> (Option<f32>, Option<f32>) {
    let win = backgammon_chance(one, &pos.switch_sides(), false);
    let lose = backgammon_chance(one, pos, true);
    (win, lose)
}

/// The backgammon chance of the side `runner` is seen by (decided by the tables as
/// in [`backgammon_chances`]), when it rolls first (`first`) or second. Going
/// second is also the chance it is backgammoned if its roll now takes none of its
/// stragglers out: what a roll that does is worth to it, at most.
pub fn backgammon_chance(one: &OneSidedDb, runner: &Position, first: bool) -> Option<f32> {
    let side = stragglers(runner)?;
    let finisher = opponent_home(runner)?;
    let out = EscapeTable::global().within(&side)?;
    let done = one.distribution(&finisher)?;
    // The runner's rolls before the finisher's n-th: n, or n - 1 going second.
    let lag = usize::from(!first);
    let p: f64 = (1..MAX_ROLLS)
        .map(|n| f64::from(done[n]) * (1.0 - f64::from(out[n - lag])))
        .sum();
    Some(p.clamp(0.0, 1.0) as f32)
}

/// The escape tables' answers through the bear-off tables, which an evaluator holds:
/// kept with the escape computation they call, so the tables need nothing of races.
impl BearoffDb {
    /// The chance that the player on roll of the race `pos` is backgammoned if this
    /// roll takes none of its stragglers out of the opponent's home board
    /// ([`backgammon_chance`] going second), where the tables decide it:
    /// what escaping now is worth, at most.
    pub fn backgammon_if_stuck(&self, pos: &Position) -> Option<f32> {
        backgammon_chance(self.one_sided(), pos, false)
    }

    /// `probs` (a race net's, for the race `pos`, consistent) with the backgammon
    /// chances the tables decide exactly ([`backgammon_chances`]) in place
    /// of the net's; the gammon chance on that side is raised to at least the
    /// backgammon chance. Other races are returned as they are, at the cost of a
    /// scan of the board.
    pub fn refine_race(&self, pos: &Position, probs: Probs) -> Probs {
        let (win_bg, lose_bg) = backgammon_chances(self.one_sided(), pos);
        let [w, mut wg, mut wbg, mut lg, mut lbg] = probs.0;
        if let Some(b) = win_bg {
            wbg = b.min(w);
            wg = wg.max(wbg);
        }
        if let Some(b) = lose_bg {
            lbg = b.min(1.0 - w);
            lg = lg.max(lbg);
        }
        Probs([w, wg, wbg, lg, lbg])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::bearoff::BearoffDb;

    fn table() -> &'static EscapeTable {
        EscapeTable::global()
    }

    /// One checker needing 1 pip is out with any roll. One needing 6 pips is out in
    /// one roll unless the roll has no 6 and moves it less than 6 pips: 1-2, 1-3,
    /// 1-4, 2-3 (2 ways each) and 1-1 (4 pips) fail, 9 of 36.
    #[test]
    fn single_checkers_by_hand() {
        let t = table();
        assert_eq!(t.within(&[1, 0, 0, 0, 0, 0]).unwrap()[1], 1.0);
        let six = t.within(&[0, 0, 0, 0, 0, 1]).unwrap();
        assert_eq!(six[0], 0.0);
        assert!((six[1] - 27.0 / 36.0).abs() < 1e-6, "{}", six[1]);
        // A failing first roll leaves it closer, so two rolls fail at most
        // (9/36)^2 of the time.
        assert!(six[2] >= 1.0 - (9.0f32 / 36.0).powi(2) - 1e-6);
        for w in six.windows(2) {
            assert!(w[1] >= w[0]);
        }
        assert!((six[MAX_ROLLS - 1] - 1.0).abs() < 1e-6);
    }

    /// Checkers needing 1 pip each: two are out with any roll, four only with a
    /// double (6/36); five never in one roll, and in two unless both rolls are
    /// non-doubles (2 + 2 checkers): 1 - (30/36)^2.
    #[test]
    fn counts_of_checkers() {
        let t = table();
        assert_eq!(t.within(&[2, 0, 0, 0, 0, 0]).unwrap()[1], 1.0);
        let four = t.within(&[4, 0, 0, 0, 0, 0]).unwrap();
        assert!((four[1] - 6.0 / 36.0).abs() < 1e-6);
        let five = t.within(&[5, 0, 0, 0, 0, 0]).unwrap();
        assert_eq!(five[1], 0.0);
        assert!((five[2] - (1.0 - (30.0f32 / 36.0).powi(2))).abs() < 1e-6);
    }

    /// The bench race of the module docs: 4 checkers on the 23-point and one on the
    /// 19 after 23/20 23/19 (GNU Backgammon's play) against 19/16 6/2 (that of a
    /// race net without the race inputs), the opponent with 9 on its 1-point: the table must prefer GNU
    /// Backgammon's play, by about as much as GNU Backgammon's 2-ply says (0.083
    /// against 0.175).
    #[test]
    fn the_bench_backgammon_save() {
        let db = BearoffDb::global();
        let gnu = crate::ids::position_id::decode("ZjsCsBj/AQAAAA").unwrap();
        let old = crate::ids::position_id::decode("zjYCAh7/AQAAAA").unwrap();
        // After the move the opponent is on roll: the mover's risk is its win
        // backgammon, seen from the opponent.
        let (gnu_bg, _) = backgammon_chances(db.one_sided(), &gnu);
        let (old_bg, _) = backgammon_chances(db.one_sided(), &old);
        let (gnu_bg, old_bg) = (gnu_bg.unwrap(), old_bg.unwrap());
        assert!(gnu_bg < old_bg, "{gnu_bg} {old_bg}");
        assert!((gnu_bg - 0.083).abs() < 0.01, "{gnu_bg}");
        assert!((old_bg - 0.244).abs() < 0.02, "{old_bg}");
    }

    /// The evaluator takes the race net's backgammon chances from the tables, one
    /// position at a time and for all the candidates of a move alike.
    #[test]
    fn the_evaluator_uses_the_tables() {
        use crate::eval::Evaluator;
        let eval = crate::testutil::default_nets();
        let db = BearoffDb::global();
        let parent = crate::ids::position_id::decode("/wEAAJjtCEB4AA").unwrap();
        let dice = crate::dice::Dice::new(4, 3).unwrap();
        let moves = crate::movegen::MoveGenerator::new()
            .generate(&parent, dice)
            .to_vec();
        let mut scratch = eval.scratch();
        let mut batch = Vec::new();
        eval.evaluate_moves(&parent, &moves, &mut scratch, &mut batch);
        for (m, b) in moves.iter().zip(&batch) {
            let next = m.next_position();
            let one = eval.evaluate(&next);
            // The side that moved may be backgammoned: the next player's win bg.
            let (win_bg, _) = backgammon_chances(db.one_sided(), &next);
            let exact = win_bg.expect("decided by the tables");
            assert_eq!(one.0[2], exact.min(one.0[0]));
            assert!(one.0[1] >= one.0[2]);
            assert!((b.0[2] - one.0[2]).abs() < 1e-6);
        }
    }
}
