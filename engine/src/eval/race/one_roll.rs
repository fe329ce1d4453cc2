//! One roll of the one-sided search: a side's distribution of rolls (to its first
//! checker off, or its last) from the distributions of the sides after the best
//! play of each of the 21 rolls ([`one_roll_lookahead`]), optionally valuing only
//! the plays a linear estimate ranks best ([`PlayFilter`]).
//!
//! Shared by [`SideRace`](super::side_race::SideRace)'s first-off lookahead and
//! the bootstrapped training targets
//! (`bootstrap_target` in bgfarm-lab's `train::side_net`), which differ
//! in how they value the sides after the plays and in whether they filter.

use super::side::{expected_rolls, Side, RACE_ROLLS};
use super::side_net::{Head, SIDE_INPUTS};
use crate::dice::Dice;
use crate::eval::bearoff::one_sided::side_position;
use crate::movegen::MoveGenerator;

/// Which plays of a roll [`one_roll_lookahead`] values: the `keep` with the least
/// `gradient . inputs(side after the play)`, the expected rolls linearised at the
/// side looked ahead from ([`SideKernel::mean_gradient`]), summed from a table of
/// each point's term for each count of checkers (24 look-ups a play; building the
/// inputs and the dot product instead took a fifth of a lookahead's time).
///
/// Why: a far saver has about 80 plays a roll (the bench races' lookaheads: 79
/// on average), each a net evaluation, and the net's output layer and softmax
/// are three quarters of an evaluation; the linear estimate costs a dot product
/// of the 100 inputs. Over the 151,940 rolls of the first 120 bench races'
/// lookaheads, the net's best play was the estimate's first in 42% and among its
/// first 8 in 86%; where it was not, the best of those 8 was within 0.0105 rolls
/// of it on average (keeping 4: 0.019; ranking by pips to come home instead:
/// 0.042 with 8).
///
/// [`SideKernel::mean_gradient`]: super::side_kernel::SideKernel::mean_gradient
#[derive(Clone, Debug)]
pub struct PlayFilter {
    keep: usize,
    /// `table[i][n]`: the estimate's term for `n` checkers on point `i + 1`.
    table: [[f32; 16]; 24],
}

impl PlayFilter {
    /// A filter keeping `keep` plays by `gradient`, the inputs' gradient
    /// (see [`side_inputs`](super::side_net::side_inputs) for their layout).
    pub fn new(keep: usize, gradient: &[f32; SIDE_INPUTS]) -> Self {
        let g = gradient;
        let table = std::array::from_fn(|i| {
            let point = i as f32 + 1.0;
            let outside = i >= 6;
            std::array::from_fn(|n| {
                let c = n as f32;
                let f = &g[4 * i..4 * i + 4];
                let mut t = f[0] * f32::from(n >= 1) + f[1] * f32::from(n >= 2);
                t += f[2] * f32::from(n >= 3) + f[3] * (c - 3.0).max(0.0) / 2.0;
                // The summary inputs, each linear in the count: pips / 100,
                // pips outside home / 50, checkers outside / 15 and
                // (15 - checkers on the board) / 15.
                t += g[96] * c * point / 100.0 - g[99] * c / 15.0;
                if outside {
                    t += g[97] * c * (point - 6.0) / 50.0 + g[98] * c / 15.0;
                }
                t
            })
        });
        PlayFilter {
            keep: keep.max(1),
            table,
        }
    }

    /// The estimate for `side`, up to a constant.
    fn score(&self, side: &Side) -> f32 {
        self.table
            .iter()
            .zip(side)
            .map(|(t, &n)| t[usize::from(n.min(15))])
            .sum()
    }

    /// Marks the plays to value in `keep_mask` (generation order), given the
    /// sides after them: all when there are no more than `keep`.
    fn select(&self, afters: &[Side], scored: &mut Vec<(f32, usize)>, keep_mask: &mut Vec<bool>) {
        keep_mask.clear();
        if afters.len() <= self.keep {
            keep_mask.resize(afters.len(), true);
            return;
        }
        keep_mask.resize(afters.len(), false);
        scored.clear();
        scored.extend(afters.iter().enumerate().map(|(i, a)| (self.score(a), i)));
        // Ties by generation order: a total order, so the plays kept never
        // depend on how the selection runs.
        let order = |a: &(f32, usize), b: &(f32, usize)| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1));
        scored.select_nth_unstable_by(self.keep - 1, order);
        for &(_, i) in &scored[..self.keep] {
            keep_mask[i] = true;
        }
    }
}

/// The one-sided search's one-roll recursion for `head` from `side` (a side alone):
/// for each of the 21 rolls, 1 roll if a play bears a checker off (its first for
/// the first-off head, its last for the all-off one), else 1 roll more than
/// `child`'s distribution of the play after which it is least in expectation (the
/// first in generation order on a tie) among the plays `filter` keeps (all
/// without one); a roll with no play (never for a side alone: nothing blocks)
/// counts `child` of the side itself.
pub fn one_roll_lookahead(
    side: &Side,
    head: Head,
    gen: &mut MoveGenerator,
    filter: Option<&PlayFilter>,
    mut child: impl FnMut(&Side) -> [f64; RACE_ROLLS],
) -> [f64; RACE_ROLLS] {
    let pos = side_position(side);
    let start = pos.mover_checkers();
    let mut out = [0f64; RACE_ROLLS];
    let (mut afters, mut scored, mut keep) = (Vec::new(), Vec::new(), Vec::new());
    for (dice, weight) in Dice::ALL_21 {
        let w = f64::from(weight) / 36.0;
        let moves = gen.generate(&pos, dice);
        let off = |m: &crate::movegen::Move| match head {
            Head::FirstOff => m.result().mover_checkers() < start,
            Head::AllOff => m.result().mover_checkers() == 0,
        };
        if moves.iter().any(off) {
            out[1] += w;
            continue;
        }
        afters.clear();
        afters.extend(moves.iter().map(|m| {
            let p = m.result().pips();
            std::array::from_fn::<u8, 24, _>(|i| p[i + 1].max(0).unsigned_abs())
        }));
        match filter {
            Some(f) => f.select(&afters, &mut scored, &mut keep),
            None => {
                keep.clear();
                keep.resize(afters.len(), true);
            }
        }
        let mut best: Option<(f64, [f64; RACE_ROLLS])> = None;
        for (after, _) in afters.iter().zip(&keep).filter(|(_, &k)| k) {
            let d = child(after);
            let mean = expected_rolls(&d);
            if best.as_ref().is_none_or(|(b, _)| mean < *b) {
                best = Some((mean, d));
            }
        }
        let d = match best {
            Some((_, d)) => d,
            None => child(side),
        };
        for (n, &x) in d.iter().enumerate() {
            out[(n + 1).min(RACE_ROLLS - 1)] += w * x;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::race::side_net::{dot, side_inputs};
    use crate::rng::Rng;

    fn random_side(rng: &mut Rng) -> Side {
        let mut side = [0u8; 24];
        let mut left = 15u8;
        while left > 0 {
            let p = rng.below(24) as usize;
            let n = 1 + rng.below(u32::from(left)) as u8;
            side[p] += n;
            left -= n;
        }
        side
    }

    /// The table's estimate is the linear one, `gradient . inputs`, up to the
    /// constant it leaves out: differences between sides agree.
    #[test]
    fn the_table_is_the_dot_product() {
        let mut rng = Rng::new(3);
        let gradient: [f32; SIDE_INPUTS] =
            std::array::from_fn(|_| rng.below(2001) as f32 / 1000.0 - 1.0);
        let filter = PlayFilter::new(4, &gradient);
        let base = random_side(&mut rng);
        let (t0, d0) = (filter.score(&base), dot(&gradient, &side_inputs(&base)));
        for _ in 0..500 {
            let s = random_side(&mut rng);
            let (t, d) = (filter.score(&s), dot(&gradient, &side_inputs(&s)));
            assert!(((t - t0) - (d - d0)).abs() < 1e-3, "{s:?}: {t} {d}");
        }
    }

    /// A filter that keeps at least as many plays as a roll has changes
    /// nothing; one that keeps a single play values only that one (21 rolls, one
    /// valuation each at most), and every distribution sums to 1.
    #[test]
    fn keeping_every_play_is_no_filter() {
        let mut rng = Rng::new(5);
        let mut gen = MoveGenerator::new();
        // A made-up valuation: expected rolls grow with the pips left.
        let child = |s: &Side| -> [f64; RACE_ROLLS] {
            let pips: u32 = s
                .iter()
                .enumerate()
                .map(|(i, &n)| (i as u32 + 1) * u32::from(n))
                .sum();
            let mut d = [0f64; RACE_ROLLS];
            let k = (pips as usize / 8).clamp(1, RACE_ROLLS - 1);
            d[k] = 0.5;
            d[(k + 1).min(RACE_ROLLS - 1)] += 0.5;
            d
        };
        let gradient: [f32; SIDE_INPUTS] = std::array::from_fn(|i| if i == 96 { 1.0 } else { 0.0 });
        for _ in 0..20 {
            let side = random_side(&mut rng);
            let all = one_roll_lookahead(&side, Head::FirstOff, &mut gen, None, child);
            let wide = PlayFilter::new(10_000, &gradient);
            let same = one_roll_lookahead(&side, Head::FirstOff, &mut gen, Some(&wide), child);
            assert_eq!(all, same);
            let mut calls = 0;
            let one = PlayFilter::new(1, &gradient);
            let d = one_roll_lookahead(&side, Head::FirstOff, &mut gen, Some(&one), |s| {
                calls += 1;
                child(s)
            });
            assert!(calls <= 21, "{calls}");
            assert!((d.iter().sum::<f64>() - 1.0).abs() < 1e-9);
            // Every play of a roll moves the same pips, so the valuation ties and
            // the first play in generation order wins: the filter's ties go by
            // generation order too, so it keeps that one.
            assert_eq!(d, all);
        }
    }
}
