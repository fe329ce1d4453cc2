//! A move ranking fitted to the net at each state: the net's equity linearized at
//! the position before the move, plus a little PubEval, scored by table look-ups on
//! the points a move touched exactly as PubEval is ([`RankBase`]).
//!
//! Wherever only a roll's best few moves matter (the rollouts' luck estimate values
//! 2 per roll with the net), the cheap ranking decides which moves the net
//! sees. PubEval is one fixed linear score for every position; the net's own
//! gradient at the state ([`Net::input_gradient`](super::net::Net::input_gradient))
//! is a linear score made for that state, so it agrees with the net far more often.
//! On 212,776 contact decisions from opening rollouts (all 21 rolls of each
//! state; share of rolls whose best move by the net is among the ranking's best 4,
//! and the net's equity given up by taking the best of those 4 instead):
//!
//! | ranking | best within the top 4 | equity given up |
//! |---|---|---|
//! | PubEval | 87.0% | 0.0060 |
//! | gradient | 92.9% | 0.0047 |
//! | gradient + 0.03 PubEval (contact) | 93.0% | 0.0030 |
//!
//! (PubEval needs its 7 best to give up as little as the mixed ranking's 4.) The
//! gradient knows nothing of the hand-crafted features (shots, primes, ...) and the
//! sigmoids' curvature; PubEval's weights of the raw board fill some of that in.
//! In races (27,347 decisions) the gradient alone is best: 95.5% and 0.0003 against
//! PubEval's 86.0% and 0.0011, and adding PubEval made it worse at every weight
//! tried (0.003 to 0.1).
//!
//! Races need three things the raw gradient lacks: the race inputs
//! that are sums over checkers (`RACE_SUMS`) go into the table; a move that bears
//! off a mover's first checker adds the gradient of the gammon inputs it switches
//! off; and one that takes the last straggler out of the opponent's home board adds
//! `ESCAPE_WEIGHT` times the tables' backgammon chance, which the net does not
//! value. Without them the search's pruning dropped the plays that save gammons and
//! backgammons (see `search::tests::pruning_keeps_the_gammon_saving_bear_offs`).
//!
//! The table: a move changes the mover's checkers (and hits the opponent's), and the
//! net values the result from the opponent's side, whose raw inputs are per side
//! and point four count units, plus bar, borne-off and pip-count units per side.
//! Each point's term for a signed count `c` there is minus the gradient times the
//! units `c` switches on (the mover's or the opponent's, in that side's numbering),
//! with the pip-count and borne-off units (linear in the counts) folded in; bar
//! checkers get per-checker terms. Up to a constant per state, the score of a move
//! is `-(gradient . (inputs after - inputs before))` + the PubEval share (tested).
//!
//! Cost per state: the gradient of the ~100 inputs a move can change (~2 us) and
//! the table (720 entries); per move the same look-ups as PubEval's. A pure function of the nets and the position, in
//! plain `f32` code: the same on every machine of an architecture.

use super::bearoff::BearoffDb;
use super::net::encode::{point_base, INPUTS, RAW_INPUTS};
use super::net::feature_layout::{BASE_FEATURES, EXTRA_PER_SIDE, PER_SIDE};
use super::net::race_features::{race_features, FIRST_OFF_SLOT};
use super::neural::{EvalScratch, NeuralEvaluator};
use super::pubeval::{self, PointTable, RankBase};
use crate::position::Position;

/// PubEval's share of the contact ranking (by the table above: 0.01 gave 0.0036,
/// 0.1 gave 0.0033 of equity given up at the top 4, 0.03 0.0030).
pub const CONTACT_PUBEVAL_SHARE: f32 = 0.03;

/// Raw input units after the per-point ones: bar, borne off, pips, for the side on
/// roll (0) and the other (1).
const BAR_UNIT: [usize; 2] = [96, 195];
const OFF_UNIT: [usize; 2] = [97, 196];
const PIPS_UNIT: [usize; 2] = [98, 197];

/// The net's input for the `shots` of the side that just moved (the second side's
/// first feature: the net sees the result from the next player's side).
const SHOTS_UNIT: u16 = (RAW_INPUTS + PER_SIDE) as u16;

/// The race net's inputs `none_off` and `first_off` of the side that just moved
/// (slots 0 and 4 of the second side's race features: in a race the contact
/// features' `shots` slot holds `none_off`).
const NONE_OFF_UNIT: u16 = SHOTS_UNIT;
const FIRST_OFF_UNIT: u16 = SHOTS_UNIT + 4;

/// What one checker on point `i` adds to a race feature.
type PerChecker = fn(usize) -> f32;

/// The moved side's race features that are sums over its checkers, with what one
/// checker on point `i` adds to each: `home_pips` and `crossovers` (slots 1 and 5;
/// see [`race_features`]). `bg_pips` (slot 2) is one too, but a race's backgammon
/// chances come from the escape tables, not the net, and its gradient made the
/// ranking worse where they matter (the escape term below does their work).
/// With these two, 1-ply values of 2,000 self-play races moved from the unpruned
/// search's by 0.00049 RMS instead of 0.00147.
const RACE_SUMS: [(u16, PerChecker); 2] = [
    (SHOTS_UNIT + 1, |i| i.saturating_sub(6) as f32 / 60.0),
    (SHOTS_UNIT + 5, |i| ((i - 1) / 6) as f32 / 30.0),
];

/// The ranking's bonus for a move that takes a race mover's last checker out of the
/// opponent's home board, per unit of the backgammon chance of a roll that escapes
/// nothing ([`BearoffDb::backgammon_if_stuck`]; a backgammon costs one more point,
/// so this is up to twice the escape's equity). With only the net's gradient, 300
/// self-play races with a backgammon at stake had 2-ply values off by 0.14 RMS
/// from the unpruned search's (0.32-0.40 with the race features' gradient too);
/// with this term, 0.00002. A fixed bonus (10) did as well there, but in gammon
/// races with no backgammon in sight it kept the escapes ahead of better gammon
/// saves.
const ESCAPE_WEIGHT: f32 = 2.0;

/// The net's inputs for the second block's `pip_loss` and `double` of the side that
/// just moved (the second side's block, from the next player's side).
const LOSS_UNIT: u16 = (RAW_INPUTS + BASE_FEATURES + EXTRA_PER_SIDE) as u16;
const DOUBLE_UNIT: u16 = LOSS_UNIT + 1;

/// Pips of the opening position, the pip-count units' scale.
const PIP_SCALE: f32 = 167.0;

/// What the moved side's hits add to a move's ranking score, per count of
/// [`crate::eval::net::features::mover_hits`] (see [`NetRank::hit_weights`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct HitWeights {
    pub shots: f32,
    pub double: f32,
    pub loss: f32,
}

impl HitWeights {
    /// The score of `(shots, double, pip_loss)` counts.
    #[inline]
    pub fn score(&self, (shots, double, loss): (u32, u32, u32)) -> f32 {
        self.shots * shots as f32 + self.double * double as f32 + self.loss * loss as f32
    }

    /// The most the counts can add: every roll hitting (36), hitting two blots (36)
    /// and costing 24 pips, where the weight is positive.
    pub fn most(&self) -> f32 {
        36.0 * (self.shots.max(0.0) + self.double.max(0.0) + 24.0 * self.loss.max(0.0))
    }

    /// Whether all are 0 (races, nets without the features).
    pub fn is_zero(&self) -> bool {
        self.shots == 0.0 && self.double == 0.0 && self.loss == 0.0
    }
}

/// The ranking of the moves from one state. Reuse one per thread:
/// [`NetRank::prepare`] rebuilds it for each state.
pub struct NetRank {
    table: PointTable,
    bar_w: f32,
    off_w: f32,
    own_bar: f32,
    /// In races whose mover has borne off nothing: what bearing off its first checker
    /// adds ([`RankBase::with_first_off`]), else 0.
    first_off: f32,
    /// [`ESCAPE_WEIGHT`] times the mover's backgammon chance if it escapes nothing
    /// now, in races where the tables decide one, else 0.
    escape: f32,
    /// What the moved side's hits add to a move's score, per count: minus the
    /// gradient of the moved side's `shots` (/ 36), `double` (/ 36) and `pip_loss`
    /// (/ 36 x 24) features. Not in the table (they are not sums over points): the
    /// luck estimate applies them to its few candidates ([`NetRank::hit_weights`]).
    hits: HitWeights,
    gradient: [f32; INPUTS],
    /// The raw inputs whose gradient the table needs.
    rows: Vec<u16>,
}

impl Default for NetRank {
    fn default() -> Self {
        NetRank {
            table: [[0.0; 31]; 24],
            bar_w: 0.0,
            off_w: 0.0,
            own_bar: 0.0,
            first_off: 0.0,
            escape: 0.0,
            hits: HitWeights::default(),
            gradient: [0.0; INPUTS],
            rows: Vec::with_capacity(RAW_INPUTS),
        }
    }
}

impl NetRank {
    /// Builds the ranking for the moves from `pos` (mover's view). `es` must have
    /// been given `pos` by [`NeuralEvaluator::prepare_children`]; its first-layer
    /// base is shared with the children's evaluations.
    pub fn prepare(&mut self, eval: &NeuralEvaluator<'_>, es: &mut EvalScratch, pos: &Position) {
        let contact = pos.has_contact();
        // Only the units a move can change: the mover's points up to its rearmost
        // checker, the opponent's blots (hit: count 1 -> 0), and the bars, the
        // mover's borne-off count and both pip counts. The rest of the table is then
        // off by a constant per state, which no ranking sees; this halves the cost.
        let p = pos.pips();
        let rearmost = (1..=25).rev().find(|&i| p[i] > 0).unwrap_or(0).min(24);
        self.rows.clear();
        for i in 1..=rearmost {
            let b = point_base(1, i) as u16;
            self.rows.extend_from_slice(&[b, b + 1, b + 2, b + 3]);
        }
        for (i, &c) in (1..25).zip(&p[1..25]) {
            if c == -1 {
                self.rows.push(point_base(0, 25 - i) as u16);
            }
        }
        self.rows.extend(
            [
                BAR_UNIT[0],
                PIPS_UNIT[0],
                BAR_UNIT[1],
                OFF_UNIT[1],
                PIPS_UNIT[1],
            ]
            .map(|u| u as u16),
        );
        // The moved side's hit features (always 0 in a race).
        if contact {
            self.rows.extend([SHOTS_UNIT, DOUBLE_UNIT, LOSS_UNIT]);
        }
        let saver = !contact && pos.mover_off() == 0;
        if saver {
            self.rows.extend([NONE_OFF_UNIT, FIRST_OFF_UNIT]);
        }
        if !contact {
            self.rows.extend(RACE_SUMS.map(|(u, _)| u));
        }
        self.gradient = [0.0; INPUTS];
        eval.children_gradient(es, contact, &self.rows, &mut self.gradient);
        self.hits = HitWeights {
            shots: -self.gradient[usize::from(SHOTS_UNIT)] / 36.0,
            double: -self.gradient[usize::from(DOUBLE_UNIT)] / 36.0,
            loss: -self.gradient[usize::from(LOSS_UNIT)] / (36.0 * 24.0),
        };
        let share = if contact { CONTACT_PUBEVAL_SHARE } else { 0.0 };
        let (pub_table, pub_bar, pub_off) = pubeval::ranking_terms(pubeval::is_race(pos));
        let g = &self.gradient;
        // The units a point holding n checkers switches on, summed over n's units
        // (n >= 1, >= 2, >= 3, then (n - 3) / 2 of the fourth).
        let units = |base: usize| -> [f32; 16] {
            let u = &g[base..base + 4];
            let mut c = [0f32; 16];
            c[1] = u[0];
            c[2] = c[1] + u[1];
            c[3] = c[2] + u[2];
            for n in 4..16 {
                c[n] = c[3] + u[3] * ((n - 3) as f32 * 0.5);
            }
            c
        };
        for i in 1..=24usize {
            // The net sees the result from the opponent's side: the mover is its
            // side 1 (same point numbers), the opponent its side 0 (point 25 - i).
            let mover = units(point_base(1, i));
            let opponent = units(point_base(0, 25 - i));
            let mut per_mover = i as f32 / PIP_SCALE * g[PIPS_UNIT[1]] - g[OFF_UNIT[1]] / 15.0;
            if !contact {
                // The race features that are sums over the mover's checkers.
                per_mover += RACE_SUMS
                    .iter()
                    .map(|&(u, per_checker)| g[usize::from(u)] * per_checker(i))
                    .sum::<f32>();
            }
            let per_opponent = (25 - i) as f32 / PIP_SCALE * g[PIPS_UNIT[0]];
            let (row, pub_row) = (&mut self.table[24 - i], &pub_table[24 - i]);
            row[15] = share * pub_row[15];
            for n in 1..16usize {
                let nf = n as f32;
                row[15 + n] = share * pub_row[15 + n] - (mover[n] + nf * per_mover);
                row[15 - n] = share * pub_row[15 - n] - (opponent[n] + nf * per_opponent);
            }
        }
        // Bar checkers: 1/2 unit each and 25 pips; the mover's also count as not off.
        // `bar_w` multiplies (opponent's bar / 2), as PubEval's weight does.
        self.bar_w =
            share * pub_bar - 2.0 * (0.5 * g[BAR_UNIT[0]] + 25.0 / PIP_SCALE * g[PIPS_UNIT[0]]);
        self.own_bar =
            -(0.5 * g[BAR_UNIT[1]] + 25.0 / PIP_SCALE * g[PIPS_UNIT[1]] - g[OFF_UNIT[1]] / 15.0);
        self.off_w = share * pub_off;
        // The first checker off switches `none_off` from 1 to 0 and `first_off` from
        // its value to 0 in one step: no per-point term can hold that, and without it
        // the ranking put the gammon-saving bear-offs of a race last, so the search's
        // pruning never let the net value them.
        self.first_off = if saver {
            g[usize::from(NONE_OFF_UNIT)]
                + g[usize::from(FIRST_OFF_UNIT)] * race_features(pos)[FIRST_OFF_SLOT]
        } else {
            0.0
        };
        // A backgammon is at stake when the mover, none off, still has checkers in
        // the opponent's home board and the opponent is bearing off.
        self.escape = if saver && p[19..25].iter().any(|&c| c > 0) {
            BearoffDb::global()
                .backgammon_if_stuck(pos)
                .map_or(0.0, |b| ESCAPE_WEIGHT * b)
        } else {
            0.0
        };
    }

    /// The weights of all three hit counts of
    /// [`crate::eval::net::features::mover_hits`]: per shot, per roll hitting two
    /// blots and per pip lost (each minus the net's gradient for its feature), so
    /// the table's score plus their sum is the net's equity linearized in the raw
    /// inputs and the moved side's hit features. 0 in races and for nets without
    /// the hand-crafted inputs.
    pub fn hit_weights(&self) -> HitWeights {
        self.hits
    }

    /// The ranking base for the moves from `pos`, the position given to
    /// [`NetRank::prepare`].
    pub fn base<'a>(&'a self, pos: &'a Position) -> RankBase<'a> {
        RankBase::with_terms(pos, &self.table, self.bar_w, self.off_w, self.own_bar)
            .with_first_off(self.first_off)
            .with_escape(self.escape)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dice::Dice;
    use crate::eval::net::encode::{encode, SparseInputs};
    use crate::movegen::MoveGenerator;
    use crate::races::{race_positions, RaceKind};
    use crate::testutil::{default_nets, random_positions};

    fn raw(p: &Position) -> Vec<f32> {
        let mut s = SparseInputs::default();
        encode(p, &mut s);
        s.to_dense()[..RAW_INPUTS].to_vec()
    }

    /// Differences of table scores between moves equal those of
    /// `share * PubEval - gradient . inputs`, computed densely (in races the inputs
    /// include the race features that are sums over checkers), plus in races the
    /// first checker off's step in the gammon inputs.
    #[test]
    fn table_scores_are_the_linearized_net_plus_the_pubeval_share() {
        let eval = default_nets();
        let mut es = eval.scratch();
        let mut gen = MoveGenerator::new();
        let mut rank = NetRank::default();
        let mut checked = [0usize; 2];
        let mut positions = random_positions(300, 21);
        positions.extend(race_positions(RaceKind::Gammon, 3, 60));
        for (k, pos) in positions.iter().enumerate() {
            if pos.game_over() {
                continue;
            }
            eval.prepare_children(pos, &mut es);
            rank.prepare(&eval, &mut es, pos);
            let base = rank.base(pos);
            let contact = pos.has_contact();
            let share = if contact { CONTACT_PUBEVAL_SHARE } else { 0.0 };
            let race = pubeval::is_race(pos);
            let mut g = [0f32; INPUTS];
            let mut all: Vec<u16> = (0..RAW_INPUTS as u16).collect();
            all.extend([NONE_OFF_UNIT, FIRST_OFF_UNIT]);
            all.extend(RACE_SUMS.map(|(u, _)| u));
            eval.children_gradient(&mut es, contact, &all, &mut g);
            // A race mover's first checker off: `none_off` 1 -> 0 and `first_off`
            // from its value before the move to 0.
            let saver = !contact && pos.mover_off() == 0;
            let first_off_before = f64::from(race_features(pos)[FIRST_OFF_SLOT]);
            let dense = |m: &crate::movegen::Move| -> f64 {
                let next = m.next_position();
                let x = raw(&next);
                let mut lin: f64 = g
                    .iter()
                    .zip(&x)
                    .map(|(a, b)| f64::from(*a) * f64::from(*b))
                    .sum();
                if !contact {
                    let f = race_features(&next);
                    for (u, _) in RACE_SUMS {
                        let u = usize::from(u);
                        lin += f64::from(g[u]) * f64::from(f[u - RAW_INPUTS]);
                    }
                }
                if saver && m.result().mover_off() > 0 {
                    lin -= f64::from(g[usize::from(NONE_OFF_UNIT)])
                        + f64::from(g[usize::from(FIRST_OFF_UNIT)]) * first_off_before;
                }
                f64::from(share) * f64::from(pubeval::score(m.result(), race)) - lin
            };
            let moves = gen.generate(pos, Dice::ALL_21[k % 21].0).to_vec();
            let Some(first) = moves.first() else { continue };
            if first.result().mover_checkers() == 0 {
                continue;
            }
            let (t0, d0) = (f64::from(base.score(first)), dense(first));
            for m in &moves[1..] {
                if m.result().mover_checkers() == 0 {
                    continue;
                }
                let (t, d) = (f64::from(base.score(m)), dense(m));
                assert!(
                    ((t - t0) - (d - d0)).abs() < 2e-4,
                    "{pos:?} {:?}: table {} dense {}",
                    m.steps(),
                    t - t0,
                    d - d0
                );
                checked[usize::from(contact)] += 1;
            }
        }
        assert!(checked[0] > 100 && checked[1] > 1000, "{checked:?}");
    }

    /// The ranking leaves the children's values untouched (it shares their base).
    #[test]
    fn preparing_the_ranking_does_not_change_the_children_s_values() {
        let eval = default_nets();
        let (mut a, mut b) = (eval.scratch(), eval.scratch());
        let mut gen = MoveGenerator::new();
        let mut rank = NetRank::default();
        for (k, pos) in random_positions(100, 5).iter().enumerate() {
            let moves = gen.generate(pos, Dice::ALL_21[k % 21].0).to_vec();
            eval.prepare_children(pos, &mut a);
            eval.prepare_children(pos, &mut b);
            rank.prepare(&eval, &mut b, pos);
            for m in &moves {
                let n = m.next_position();
                assert_eq!(
                    eval.evaluate_child(&n, &mut a),
                    eval.evaluate_child(&n, &mut b)
                );
            }
        }
    }
}
