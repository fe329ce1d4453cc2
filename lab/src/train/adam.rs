//! Adam (Kingma and Ba, 2015), the one optimizer of every minibatch fit here: the
//! nets' supervised fits ([`super::net::adam`]) and the one-sided race net's
//! ([`super::side_net::fit`]).
//!
//! Why Adam: it scales each weight's step by that weight's own gradient history,
//! which suits nets whose inputs are seen at very different rates (a checker on the
//! bar is rare, a blot on the 6-point common). On 1,015,305 contact positions plain
//! per-sample SGD brought the equity RMSE only from 0.0362 to 0.0339 in 20 epochs.
//!
//! The two fits were written with two forms of the bias correction, which round
//! differently in `f32`; [`Correction`] keeps each fit's form so that a fit gives
//! the bits it gave before the two shared this code.

/// Decay of the first moment (the paper's default).
const BETA1: f32 = 0.9;
/// Decay of the second moment (the paper's default).
const BETA2: f32 = 0.999;
/// Added to the second moment's root (the paper's default).
const EPSILON: f32 = 1e-8;

/// Where the bias corrections `c1 = 1 - beta1^t` and `c2 = 1 - beta2^t` of step `t`
/// enter the update of a weight `w` with moments `m` and `v`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Correction {
    /// Folded into the step size, the paper's "more efficient" order (end of its
    /// section 2): `w -= (lr sqrt(c2) / c1) m / (sqrt(v) + eps)`. The nets' fits.
    Folded,
    /// On each moment, the paper's Algorithm 1 as written:
    /// `w -= lr (m / c1) / (sqrt(v / c2) + eps)`. The one-sided net's fit.
    PerMoment,
}

/// Adam's moments for a fixed list of weight tensors (tensor `k` is whatever its
/// user passes as `k` to [`Adam::update`], the same every step).
#[derive(Clone, Debug)]
pub struct Adam {
    correction: Correction,
    /// Skip a weight whose gradient and first moment are both zero: its moments
    /// are left as they are (the second moment does not decay) and it does not move.
    skip_idle: bool,
    m: Vec<Vec<f32>>,
    v: Vec<Vec<f32>>,
    /// Steps begun ([`Adam::begin_step`]).
    steps: i32,
    /// `1 - beta1^steps` and `1 - beta2^steps`.
    c1: f32,
    c2: f32,
}

impl Adam {
    /// Zero moments for tensors of `sizes` weights.
    pub fn new(sizes: impl IntoIterator<Item = usize>, correction: Correction) -> Adam {
        let m: Vec<Vec<f32>> = sizes.into_iter().map(|n| vec![0.0; n]).collect();
        Adam {
            correction,
            skip_idle: false,
            v: m.clone(),
            m,
            steps: 0,
            c1: 0.0,
            c2: 0.0,
        }
    }

    /// This optimizer, skipping weights whose gradient and first moment are both
    /// zero (the one-sided net's fit: most of its samples leave most output rows
    /// untouched).
    pub fn skipping_idle(mut self) -> Adam {
        self.skip_idle = true;
        self
    }

    /// Starts the next step: the bias corrections for the [`Adam::update`]s of all
    /// the tensors that follow.
    pub fn begin_step(&mut self) {
        self.steps = self.steps.saturating_add(1);
        self.c1 = 1.0 - BETA1.powi(self.steps);
        self.c2 = 1.0 - BETA2.powi(self.steps);
    }

    /// Moves tensor `k`'s weights `w` by the gradients `grads` (one per weight, in
    /// order, already the minibatch's mean), with step size `lr`, in this step
    /// ([`Adam::begin_step`] first).
    pub fn update(
        &mut self,
        k: usize,
        w: &mut [f32],
        grads: impl IntoIterator<Item = f32>,
        lr: f32,
    ) {
        assert!(self.steps > 0, "Adam::update before Adam::begin_step");
        let (m, v) = (&mut self.m[k], &mut self.v[k]);
        assert_eq!(
            (m.len(), v.len()),
            (w.len(), w.len()),
            "tensor {k}'s size changed"
        );
        let skip_idle = self.skip_idle;
        let moments = m.iter_mut().zip(v.iter_mut());
        let weights = w.iter_mut().zip(moments).zip(grads);
        let moment = |m: &mut f32, v: &mut f32, g: f32| {
            *m = BETA1 * *m + (1.0 - BETA1) * g;
            *v = BETA2 * *v + (1.0 - BETA2) * g * g;
        };
        match self.correction {
            Correction::Folded => {
                let alpha = lr * self.c2.sqrt() / self.c1;
                for ((w, (m, v)), g) in weights {
                    if skip_idle && g == 0.0 && *m == 0.0 {
                        continue;
                    }
                    moment(m, v, g);
                    *w -= alpha * *m / (v.sqrt() + EPSILON);
                }
            }
            Correction::PerMoment => {
                let (c1, c2) = (self.c1, self.c2);
                for ((w, (m, v)), g) in weights {
                    if skip_idle && g == 0.0 && *m == 0.0 {
                        continue;
                    }
                    moment(m, v, g);
                    *w -= lr * (*m / c1) / ((*v / c2).sqrt() + EPSILON);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both forms give the textbook first step: every weight moves by about `lr`
    /// against its gradient's sign (m / c1 = g and v / c2 = g^2 after one step).
    #[test]
    fn the_first_step_moves_each_weight_by_the_step_size() {
        for correction in [Correction::Folded, Correction::PerMoment] {
            let mut adam = Adam::new([3], correction);
            let mut w = [1.0f32, 1.0, 1.0];
            adam.begin_step();
            adam.update(0, &mut w, [0.5, -2.0, 1e-3], 0.01);
            for (x, want) in w.iter().zip([0.99, 1.01, 0.99]) {
                assert!((x - want).abs() < 1e-5, "{correction:?}: {w:?}");
            }
        }
    }

    /// Skipping idle weights (zero gradient, zero first moment) leaves their
    /// second moment as it was; without it, the second moment decays. Neither
    /// moves the weight.
    #[test]
    fn idle_weights_are_skipped_only_when_asked() {
        let mut plain = Adam::new([1], Correction::PerMoment);
        plain.v[0][0] = 0.25;
        let mut lazy = plain.clone().skipping_idle();
        for adam in [&mut plain, &mut lazy] {
            adam.begin_step();
            let mut w = [1.0f32];
            adam.update(0, &mut w, [0.0], 0.01);
            assert_eq!(w, [1.0]);
        }
        assert_eq!(lazy.v[0][0], 0.25);
        assert_eq!(plain.v[0][0], 0.25 * BETA2);
    }
}
