//! Bootstrapped targets of the one-sided race net for sides too far out to search:
//! the search's one-roll recursion over the net one roll nearer home
//! ([`bootstrap_target`]), a lookahead of several rolls over sampled games
//! ([`lookahead_target`]), and the samples along one random game
//! ([`bootstrap_walk`]). Fitting to them and repeating carries the searches'
//! exactness outward.

use super::SideSample;
use bgfarm_engine::dice::Dice;
use bgfarm_engine::eval::bearoff::one_sided::side_position;
use bgfarm_engine::eval::bearoff::OneSidedDb;
use bgfarm_engine::eval::race::distribution::{dominated_count, dominated_full_count};
use bgfarm_engine::eval::race::one_roll::one_roll_lookahead;
use bgfarm_engine::eval::race::side::{expected_rolls, Side, RACE_ROLLS};
use bgfarm_engine::eval::race::side_net::{Head, SideNet};
use bgfarm_engine::eval::race::side_race::one_sided_distribution;
use bgfarm_engine::movegen::MoveGenerator;
use bgfarm_engine::position::Position;
use bgfarm_engine::rng::Rng;

/// The side of `pos`'s mover, `[i]` = checkers on point `i + 1`.
fn side_of(pos: &Position) -> Side {
    let p = pos.pips();
    let mut s = [0u8; 24];
    for (i, c) in s.iter_mut().enumerate() {
        *c = p[i + 1].max(0).unsigned_abs();
    }
    s
}

/// Sides a bootstrap target searches exactly ([`one_sided_distribution`]'s limit): the net
/// answers for bigger ones. Larger searches made a target cost seconds.
pub const BOOTSTRAP_EXACT: u64 = 2_000;

/// A bootstrapped target for a side too far out to search: the one-roll recursion
/// of the search (for each of the 21 rolls the play with the fewest expected rolls,
/// the distribution shifted by a roll) with [`one_sided_distribution`] for the positions after
/// the plays (searched up to [`BOOTSTRAP_EXACT`]). As good as the net one roll
/// nearer home, so fitting to these targets and repeating carries the searches'
/// exactness outward.
pub fn bootstrap_target(
    one: &OneSidedDb,
    net: &SideNet,
    side: &Side,
    head: Head,
    gen: &mut MoveGenerator,
) -> [f32; RACE_ROLLS] {
    let d = one_roll_lookahead(side, head, gen, None, |child| {
        one_sided_distribution(one, net, child, head, BOOTSTRAP_EXACT)
    });
    d.map(|x| x as f32)
}

/// Lookahead of a bootstrap target: how many rolls each sampled game of the side
/// plays before the net (or the tables, or a search within [`BOOTSTRAP_EXACT`])
/// answers, and how many games start with each of the 21 rolls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lookahead {
    pub rolls: usize,
    pub games_per_roll: usize,
}

impl Lookahead {
    /// [`bootstrap_target`]'s: the search's one-roll recursion, exact.
    pub const ONE_ROLL: Lookahead = Lookahead {
        rolls: 1,
        games_per_roll: 1,
    };
}

/// The play among `moves` (of a side alone) with the fewest expected rolls of
/// `head` after it, the search's play, with the side after it and its
/// distribution ([`one_sided_distribution`] within [`BOOTSTRAP_EXACT`]; none left
/// to roll once every checker is off). `None` without a play.
fn best_play(
    one: &OneSidedDb,
    net: &SideNet,
    moves: &[bgfarm_engine::movegen::Move],
    head: Head,
) -> Option<(Side, [f64; RACE_ROLLS])> {
    let mut best: Option<(f64, Side, [f64; RACE_ROLLS])> = None;
    for m in moves {
        let child = side_of(m.result());
        let c = if child.iter().all(|&x| x == 0) {
            let mut z = [0f64; RACE_ROLLS];
            z[0] = 1.0;
            z
        } else {
            one_sided_distribution(one, net, &child, head, BOOTSTRAP_EXACT)
        };
        let e = expected_rolls(&c);
        if best.as_ref().is_none_or(|(b, _, _)| e < *b) {
            best = Some((e, child, c));
        }
    }
    best.map(|(_, child, c)| (child, c))
}

/// A target `look.rolls` rolls deep: for each of the 21 first rolls,
/// `look.games_per_roll` games of `side` alone, every roll played to the fewest
/// expected rolls of `head` (as [`bootstrap_target`] plays its one roll), the
/// later rolls drawn from `rng`; a game that bears a checker off (first-off) or
/// its last one (all-off) counts that roll, the others the distribution after
/// their last roll, shifted by the rolls played. Unbiased for that play, and as
/// good as the net `look.rolls` rolls nearer home, where it is better: the
/// one-roll targets carry exactness outward a roll per round of fitting, which for
/// savers 40 pips and more from home (the net's first-off expectation 0.1-0.5
/// rolls off its own one-roll lookahead) would take five rounds or more.
pub fn lookahead_target(
    one: &OneSidedDb,
    net: &SideNet,
    side: &Side,
    head: Head,
    look: Lookahead,
    rng: &mut Rng,
    gen: &mut MoveGenerator,
) -> [f32; RACE_ROLLS] {
    let mut d = [0f64; RACE_ROLLS];
    let games = look.games_per_roll.max(1);
    for (first, weight) in Dice::ALL_21 {
        let w = f64::from(weight) / 36.0 / games as f64;
        for _ in 0..games {
            let mut s = *side;
            let mut dice = first;
            let mut played = 0usize;
            loop {
                let pos = side_position(&s);
                let start = pos.mover_checkers();
                let moves = gen.generate(&pos, dice);
                played += 1;
                let off = |m: &bgfarm_engine::movegen::Move| match head {
                    Head::FirstOff => m.result().mover_checkers() < start,
                    Head::AllOff => m.result().mover_checkers() == 0,
                };
                if moves.iter().any(off) {
                    d[played.min(RACE_ROLLS - 1)] += w;
                    break;
                }
                let Some((child, c)) = best_play(one, net, moves, head) else {
                    // No legal play (cannot happen to a side alone): count the
                    // side as it is, a roll later.
                    let c = one_sided_distribution(one, net, &s, head, BOOTSTRAP_EXACT);
                    add_shifted(&mut d, &c, played, w);
                    break;
                };
                let home = child[6..].iter().all(|&x| x == 0);
                if played >= look.rolls || home {
                    add_shifted(&mut d, &c, played, w);
                    break;
                }
                s = child;
                dice = rng.roll();
            }
        }
    }
    let mut out = [0f32; RACE_ROLLS];
    for (o, &x) in out.iter_mut().zip(&d) {
        *o = x as f32;
    }
    out
}

/// Adds `w` times `c` shifted by `rolls` (the last entry takes the overflow).
fn add_shifted(d: &mut [f64; RACE_ROLLS], c: &[f64; RACE_ROLLS], rolls: usize, w: f64) {
    for (n, &p) in c.iter().enumerate() {
        d[(n + rolls).min(RACE_ROLLS - 1)] += w * p;
    }
}

/// Bootstrapped samples along one random game of `side` alone: at each side still
/// beyond the searches' reach a [`bootstrap_target`], or with `look` of more than
/// one roll a [`lookahead_target`] (both heads while it has 15 checkers), then a
/// random roll played to the fewest expected rolls, until the side is within
/// reach.
pub fn bootstrap_walk(
    one: &OneSidedDb,
    net: &SideNet,
    side: &Side,
    limit: u64,
    look: Option<Lookahead>,
    rng: &mut Rng,
) -> Vec<SideSample> {
    let mut gen = MoveGenerator::new();
    let mut out = Vec::new();
    let mut s = *side;
    loop {
        let home = s[6..].iter().all(|&c| c == 0);
        if home || dominated_count(&s) <= limit {
            return out;
        }
        let full = s.iter().map(|&c| u32::from(c)).sum::<u32>() == 15;
        for head in [Head::AllOff, Head::FirstOff] {
            if head == Head::FirstOff && (!full || dominated_full_count(&s) <= limit) {
                continue;
            }
            let target = match look {
                Some(l) if l.rolls > 1 => lookahead_target(one, net, &s, head, l, rng, &mut gen),
                _ => bootstrap_target(one, net, &s, head, &mut gen),
            };
            out.push(SideSample {
                side: s,
                head,
                target,
            });
        }
        let pos = side_position(&s);
        let dice = rng.roll();
        let next = best_play(one, net, gen.generate(&pos, dice), Head::AllOff);
        match next {
            Some((c, _)) => s = c,
            None => return out,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bgfarm_engine::eval::bearoff::BearoffDb;
    use bgfarm_engine::eval::race::distribution::rolls_distribution;

    /// Where every side after a play is within [`BOOTSTRAP_EXACT`], a lookahead
    /// target plays each game to the fewest exact expected rolls, which is the
    /// search's own play: its expectation is the search's distribution whatever
    /// the net (here a random one). 9 checkers, one on the 9-point, 4.6 rolls:
    /// 21 x 40 games put the mean within 0.15 rolls (its standard error is about
    /// 0.03); a one-roll target is the search's one-roll recursion (its mean
    /// within 0.01: ties between plays of equal expected rolls may go the other
    /// way).
    #[test]
    fn lookahead_targets_follow_the_search() {
        let one = BearoffDb::global().one_sided();
        let mut side = [0u8; 24];
        side[8] = 1;
        side[5] = 3;
        side[2] = 5;
        let exact = rolls_distribution(one, &side, u64::MAX).unwrap();
        let net = SideNet::random(8, 3);
        let mut rng = Rng::new(11);
        let mut gen = MoveGenerator::new();
        let look = Lookahead {
            rolls: 3,
            games_per_roll: 40,
        };
        let t = lookahead_target(one, &net, &side, Head::AllOff, look, &mut rng, &mut gen);
        let total: f64 = t.iter().map(|&x| f64::from(x)).sum();
        assert!((total - 1.0).abs() < 1e-5, "{total}");
        let got = expected_rolls(&t.map(f64::from));
        assert!(
            (got - expected_rolls(&exact)).abs() < 0.15,
            "{got} {}",
            expected_rolls(&exact)
        );
        let one_roll = bootstrap_target(one, &net, &side, Head::AllOff, &mut gen);
        let d1 = expected_rolls(&one_roll.map(f64::from));
        assert!(
            (d1 - expected_rolls(&exact)).abs() < 0.01,
            "{d1} {}",
            expected_rolls(&exact)
        );
    }
}
