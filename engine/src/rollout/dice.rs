//! Quasi-random, stratified dice for rollout trials.
//!
//! Trial `i`'s roll number `d` (0 = the first roll of the trial) for `d` below
//! [`STRATIFIED_DEPTH`] is `Perm[digit_d(i)]`, where `digit_d(i)` is the `d`-th base-36
//! digit of `i` and `Perm` is a shuffle of the 36 outcomes drawn from (seed, d, the
//! lower digits `i mod 36^d`, the block `i / 36^4`). So every 36 consecutive trials
//! see all 36 first rolls, every 1296 trials all 1296 pairs of first and second rolls,
//! every 46,656 all triples. Shuffling per prefix matters: with one shuffle per depth,
//! all trials below 1296 would share their third roll (digit 2 of `i` is 0 for all of
//! them), a bias a test below guards against. Later rolls come from
//! a generator seeded with (seed, i). All of it is a pure function of (seed, i), as
//! the determinism contract requires, and every candidate of a rollout sees the same
//! dice in trial `i` (common random numbers).

use crate::dice::Dice;
use crate::rng::{splitmix64, Rng};

/// Rolls stratified per trial; deeper rolls are pseudo-random.
pub const STRATIFIED_DEPTH: usize = 4;

/// The dice of one trial.
pub struct TrialDice {
    seed: u64,
    trial: u64,
    depth: usize,
    rng: Rng,
}

impl TrialDice {
    /// The dice for trial `trial` of a job with `seed`.
    pub fn new(seed: u64, trial: u64) -> TrialDice {
        TrialDice {
            seed,
            trial,
            depth: 0,
            rng: Rng::for_stream(seed, trial),
        }
    }

    /// The next roll.
    pub fn roll(&mut self) -> Dice {
        let d = self.depth;
        self.depth += 1;
        if d >= STRATIFIED_DEPTH {
            return self.rng.roll();
        }
        let period = 36u64.pow(d as u32);
        let digit = (self.trial / period) % 36;
        // One block for every depth: a depth's shuffle may depend only on the digits
        // below it and on the top-level block, or the joint stratification breaks.
        let block = self.trial / 36u64.pow(STRATIFIED_DEPTH as u32);
        let prefix = self.trial % period;
        let outcome = shuffled(self.seed, d as u64, prefix, block, digit as usize);
        match Dice::new(outcome / 6 + 1, outcome % 6 + 1) {
            Some(dice) => dice,
            None => unreachable!("outcome < 36"),
        }
    }
}

/// Entry `k` of a Fisher-Yates shuffle of 0..36 seeded by (seed, depth, prefix, block).
fn shuffled(seed: u64, depth: u64, prefix: u64, block: u64, k: usize) -> u8 {
    let mut mix = seed ^ depth.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let a = splitmix64(&mut mix);
    let mut mix2 = a ^ prefix.wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    let b = splitmix64(&mut mix2);
    let mut state = b ^ block.wrapping_mul(0x1656_67B1_9E37_79F9);
    let mut perm: [u8; 36] = std::array::from_fn(|i| i as u8);
    for i in (1..36).rev() {
        let j = (splitmix64(&mut state) % (i as u64 + 1)) as usize;
        perm.swap(i, j);
    }
    perm[k]
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn outcome(d: Dice) -> u8 {
        let (a, b) = d.values();
        (a - 1) * 6 + (b - 1)
    }

    #[test]
    fn first_rolls_cover_all_36_every_36_trials() {
        for block in 0..3u64 {
            let seen: HashSet<u8> = (block * 36..block * 36 + 36)
                .map(|t| outcome(TrialDice::new(9, t).roll()))
                .collect();
            assert_eq!(seen.len(), 36);
        }
    }

    #[test]
    fn first_two_rolls_cover_all_1296_pairs() {
        let seen: HashSet<(u8, u8)> = (1296..2592)
            .map(|t| {
                let mut d = TrialDice::new(4, t);
                (outcome(d.roll()), outcome(d.roll()))
            })
            .collect();
        assert_eq!(seen.len(), 1296);
    }

    #[test]
    fn later_rolls_vary_between_trials() {
        // Every roll depth must look uniform over the first 1296 trials.
        for depth in 0..8 {
            let mut counts = [0u32; 36];
            for t in 0..1296 {
                let mut d = TrialDice::new(3, t);
                let r = (0..=depth)
                    .map(|_| d.roll())
                    .last()
                    .map(outcome)
                    .unwrap_or(0);
                counts[r as usize] += 1;
            }
            // Expected 36 each; stratified depths give exactly 36.
            assert!(
                counts.iter().all(|&c| (12..=70).contains(&c)),
                "depth {depth}: {counts:?}"
            );
        }
    }

    #[test]
    fn first_three_rolls_cover_all_triples() {
        let seen: HashSet<(u8, u8, u8)> = (0..46_656)
            .map(|t| {
                let mut d = TrialDice::new(2, t);
                (outcome(d.roll()), outcome(d.roll()), outcome(d.roll()))
            })
            .collect();
        assert_eq!(seen.len(), 46_656);
    }

    #[test]
    fn pure_function_of_seed_and_trial() {
        let seq = |s, t| {
            let mut d = TrialDice::new(s, t);
            (0..10).map(|_| outcome(d.roll())).collect::<Vec<_>>()
        };
        assert_eq!(seq(1, 77), seq(1, 77));
        assert_ne!(seq(1, 77), seq(2, 77));
    }
}
