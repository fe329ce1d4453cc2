//! Sibling groups (the positions after every legal play of one roll) and the loss on
//! their equity differences.
//!
//! Why: a move choice compares siblings, so what decides it is their equity
//! *differences*; an error the whole group shares costs the choice nothing. Fitted
//! to labels one position at a time, the net spends its capacity on the shared part
//! as much as on the rest. Measured with `scripts/contact-diff-check.py` (the RMS
//! error x1000 of the equity differences among GNU Backgammon 2-ply's five best plays
//! of each of the bench's 670 contact decisions): a one-layer contact net at
//! 0-ply 62.2, its own 1-ply search 51.0, the very labels it was fitted to. The
//! difference loss asks the net for what the 1-ply labels know about siblings.
//!
//! The loss of a group with net equities `y_i` and label equities `t_i` is
//! `w / 2 * sum_i r_i^2` with `r_i = (y_i - mean y) - (t_i - mean t)`. Its gradient
//! at `y_i` is `w * r_i` (the means' terms sum to zero), and through the equity
//! (`2 win - 1 + wg + wbg - lg - lbg`) and the sigmoid at output `k` it is
//! `w * r_i * c_k * p_k * (1 - p_k)`. [`difference_targets`] folds that into the
//! target the cross-entropy gradient starts from (`out - target`), so the members'
//! own cross-entropy and the difference loss go through the one back-propagation
//! that plain samples use.

use super::dataset::Sample;
use bgfarm_engine::dice::Dice;
use bgfarm_engine::eval::net::OUTPUTS;
use bgfarm_engine::eval::neural::{Class, NeuralEvaluator};
use bgfarm_engine::eval::Probs;
use bgfarm_engine::movegen::MoveGenerator;
use bgfarm_engine::position::Position;

/// d(cubeless equity) / d(output): win counts twice (`2 win - 1`), gammons and
/// backgammons once, with the loser's sign.
const EQUITY_WEIGHTS: [f32; OUTPUTS] = [2.0, 1.0, 1.0, -1.0, -1.0];

/// The distinct positions after the legal plays of `dice` in `pos` (the opponent on
/// roll) that the net of `class` answers, in move-generation order; empty when fewer
/// than two are (a group of one has no difference to learn).
pub fn sibling_positions(
    eval: &NeuralEvaluator<'_>,
    gen: &mut MoveGenerator,
    pos: &Position,
    dice: Dice,
    class: Class,
) -> Vec<Position> {
    let mut out: Vec<Position> = Vec::new();
    for m in gen.generate(pos, dice) {
        let next = m.next_position();
        if eval.class(&next) == class && !out.contains(&next) {
            out.push(next);
        }
    }
    if out.len() < 2 {
        out.clear();
    }
    out
}

/// The centred equity residuals `r_i` of one group: the net's outputs `outs` against
/// the labels of `group`, member by member.
pub fn residuals(outs: &[[f32; OUTPUTS]], group: &[Sample]) -> Vec<f32> {
    debug_assert_eq!(outs.len(), group.len());
    let n = outs.len().max(1) as f32;
    let y: Vec<f32> = outs.iter().map(|o| Probs(*o).equity()).collect();
    let t: Vec<f32> = group.iter().map(|s| Probs(s.probs).equity()).collect();
    let (my, mt) = (y.iter().sum::<f32>() / n, t.iter().sum::<f32>() / n);
    y.iter().zip(&t).map(|(y, t)| (y - my) - (t - mt)).collect()
}

/// The targets that make the cross-entropy's gradient (`out - target` at each
/// output) that of the member's cross-entropy plus `weight` times the group's
/// difference loss (see the module docs).
pub fn difference_targets(
    outs: &[[f32; OUTPUTS]],
    group: &[Sample],
    weight: f32,
) -> Vec<[f32; OUTPUTS]> {
    residuals(outs, group)
        .iter()
        .zip(outs)
        .zip(group)
        .map(|((r, out), s)| {
            std::array::from_fn(|k| {
                let p = out[k];
                s.probs[k] - weight * r * EQUITY_WEIGHTS[k] * p * (1.0 - p)
            })
        })
        .collect()
}

/// Splits labelled samples into groups at blank lines (the format `bgfarm-lab train
/// siblings` writes: [`super::dataset::format_sample`] lines, a blank line after
/// each group); lines starting with `#` are skipped. An error names the line.
pub fn parse_groups(text: &str) -> Result<Vec<Vec<Sample>>, bgfarm_engine::error::ParseError> {
    let mut groups = Vec::new();
    let mut group = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.starts_with('#') {
            continue;
        }
        if line.trim().is_empty() {
            if !group.is_empty() {
                groups.push(std::mem::take(&mut group));
            }
            continue;
        }
        group.push(super::dataset::parse_sample(line, i + 1)?);
    }
    if !group.is_empty() {
        groups.push(group);
    }
    Ok(groups)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::train::testutil::default_nets;

    fn sample(pos: Position, probs: [f32; OUTPUTS]) -> Sample {
        Sample { pos, probs }
    }

    /// The folded targets give the difference loss's gradient: a finite difference
    /// of `w / 2 * sum r^2` along one member's logit `z_k` (p = sigmoid(z)) matches
    /// `out - target` minus the member's cross-entropy part (`out - label`).
    #[test]
    fn targets_carry_the_difference_gradient() {
        let pos = Position::STARTING;
        let labels = [
            [0.55, 0.15, 0.01, 0.12, 0.005],
            [0.48, 0.12, 0.01, 0.14, 0.006],
            [0.51, 0.20, 0.02, 0.10, 0.004],
        ];
        let group: Vec<Sample> = labels.iter().map(|l| sample(pos, *l)).collect();
        let outs = [
            [0.52, 0.16, 0.012, 0.13, 0.004],
            [0.50, 0.10, 0.008, 0.15, 0.007],
            [0.47, 0.18, 0.015, 0.11, 0.005],
        ];
        let w = 3.0;
        let loss = |outs: &[[f32; OUTPUTS]]| -> f64 {
            residuals(outs, &group)
                .iter()
                .map(|r| 0.5 * f64::from(w) * f64::from(*r).powi(2))
                .sum()
        };
        let targets = difference_targets(&outs, &group, w);
        for i in 0..3 {
            for k in 0..OUTPUTS {
                let z = (outs[i][k] / (1.0 - outs[i][k])).ln();
                let eps = 1e-3f32;
                let at = |z: f32| {
                    let mut o = outs;
                    o[i][k] = 1.0 / (1.0 + (-z).exp());
                    loss(&o)
                };
                let numeric = (at(z + eps) - at(z - eps)) / (2.0 * f64::from(eps));
                let analytic =
                    f64::from((outs[i][k] - targets[i][k]) - (outs[i][k] - labels[i][k]));
                assert!(
                    (numeric - analytic).abs() < 1e-4 + 0.01 * analytic.abs(),
                    "member {i} output {k}: numeric {numeric} analytic {analytic}"
                );
            }
        }
        // A net whose equities equal the labels' plus a shared offset has nothing
        // to learn from the group: the targets are the labels.
        let shifted: Vec<[f32; OUTPUTS]> = labels
            .iter()
            .map(|l| [l[0] + 0.01, l[1], l[2], l[3], l[4]])
            .collect();
        for (t, l) in difference_targets(&shifted, &group, w).iter().zip(&labels) {
            for k in 0..OUTPUTS {
                assert!((t[k] - l[k]).abs() < 1e-6, "{t:?} against {l:?}");
            }
        }
    }

    /// 3-1 from the opening has 16 legal plays, all contact; the siblings are
    /// distinct and a group of one is dropped.
    #[test]
    fn siblings_of_the_opening_roll() {
        let eval = default_nets();
        let mut gen = MoveGenerator::new();
        let dice = Dice::new(3, 1).expect("dice");
        let s = sibling_positions(&eval, &mut gen, &Position::STARTING, dice, Class::Contact);
        assert!(
            sibling_positions(&eval, &mut gen, &Position::STARTING, dice, Class::Race).is_empty()
        );
        assert_eq!(s.len(), gen.generate(&Position::STARTING, dice).len());
        assert!(s.len() >= 10);
        for (i, a) in s.iter().enumerate() {
            assert!(!s[i + 1..].contains(a));
        }
    }

    #[test]
    fn groups_split_at_blank_lines_and_bad_lines_are_named() {
        let line = super::super::dataset::format_sample(&sample(
            Position::STARTING,
            [0.5, 0.1, 0.0, 0.1, 0.0],
        ));
        let text = format!("{line}\n{line}\n\n\n# note\n{line}\n");
        let g = parse_groups(&text).expect("parses");
        assert_eq!(g.iter().map(Vec::len).collect::<Vec<_>>(), vec![2, 1]);
        let bad = format!("{line}\n\nnot-an-id 0.5 0.1 0 0.1 0\n");
        let e = parse_groups(&bad).expect_err("refused");
        assert!(e.to_string().contains("line 3"), "{e}");
    }
}
