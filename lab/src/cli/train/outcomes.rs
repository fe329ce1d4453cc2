//! `bgfarm-lab train outcomes`: training targets from the nets' own rollout trials.
//!
//! Plays rollout trials from the opening (0-ply play, ranked luck estimate, exact
//! bear-off truncation: the settings of `bgfarm rollout`) and writes, for every
//! state a trial rolled from, the trial's luck-adjusted result from there on
//! (`bgfarm_lab::train::outcomes::outcome_targets`): an unbiased, low-noise estimate of
//! the state's value under the trials' own play. Fitting the nets to these targets
//! (`bgfarm-lab train fit --targets`) makes their values agree with how the rollouts
//! actually play out, which is what the luck estimate needs: the variance a
//! luck-adjusted trial keeps is the spread, over the 21 rolls, of the nets' errors
//! against those values.
//!
//! Output: `ID v1 .. v5` lines (the labelled-file format, values may leave 0..1).
//!
//! Measured (2026-11-30): 100,000 trials of the default nets (4.8M targets, 200 s on
//! 2 cores) fitted for 4 epochs at lr 0.005..0.0005 (64 s) cut the per-trial SD of
//! the opening rollout from 0.310 to 0.296 (variance -9%; 5,184 trials, seeds 1 and
//! 2); a second round on the refitted nets' own trials gave nothing more. The
//! shipped nets are not fitted this way: the same fit made their move choice on
//! the oracle bench worse (0-ply loss x1000 contact 7.2 -> 11.7, races 1.5 -> 2.0),
//! since the targets are values under 0-ply play, not under the best play, and
//! play strength did not change (-0.016 +- 0.011 ppg over 10,000 games).

use super::files::{create, io_err};
use super::threads::pool;
use crate::cli::nets::load_training_evaluator as load_evaluator;
use crate::cli::CliError;
use bgfarm_engine::rollout::{CubeStart, Trial, TrialScratch, TrialSettings};
use bgfarm_engine::Position;
use bgfarm_lab::train::dataset::{format_sample, Sample};
use bgfarm_lab::train::outcomes::{outcome_targets, run_trial_visiting};
use rayon::prelude::*;
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

#[derive(clap::Args)]
pub struct OutcomesArgs {
    /// Nets that play the trials and estimate the luck.
    #[arg(long, default_value = "default")]
    pub net: String,
    /// Trials to play.
    #[arg(long, default_value_t = 10_000)]
    pub games: u64,
    /// Index of the first trial (trial t uses the dice of rollout trial t).
    #[arg(long, default_value_t = 0)]
    pub first_game: u64,
    /// Seed of the dice.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Output file.
    #[arg(long)]
    pub out: PathBuf,
    /// Worker threads (default: one per core). Never changes the output.
    #[arg(long)]
    pub threads: Option<usize>,
}

pub fn outcomes(a: OutcomesArgs) -> Result<(), CliError> {
    let eval = load_evaluator(&a.net)?;
    let pool = pool(a.threads)?;
    let mut out = create(&a.out)?;
    let settings = TrialSettings::default();
    let cube_start = CubeStart::default();
    let trial = Trial {
        eval: &eval,
        policy: None,
        settings: &settings,
        start: &Position::STARTING,
        cube_start: &cube_start,
        seed: a.seed,
        cache: None,
        start_is_opponent: false,
    };
    let start = Instant::now();
    let (mut done, mut written) = (0u64, 0usize);
    const CHUNK: u64 = 2000;
    while done < a.games {
        let n = CHUNK.min(a.games - done);
        let first = a.first_game + done;
        let chunk: Vec<Vec<(Position, [f32; 5])>> = pool.install(|| {
            (first..first + n)
                .into_par_iter()
                .map_init(
                    || (TrialScratch::new(&eval), Vec::new()),
                    |(s, visited), t| {
                        let o = run_trial_visiting(&trial, t, s, visited);
                        outcome_targets(&o, visited)
                    },
                )
                .collect()
        });
        // Trials stop where the exact bear-off tables take over, so every state
        // here is one the contact or race net answers.
        for &(pos, probs) in chunk.iter().flatten() {
            writeln!(out, "{}", format_sample(&Sample { pos, probs })).map_err(io_err(&a.out))?;
            written += 1;
        }
        done += n;
        eprintln!(
            "trials {done:>8}  targets {written:>9}  {:.0} trials/s",
            done as f64 / start.elapsed().as_secs_f64()
        );
    }
    out.flush().map_err(io_err(&a.out))?;
    println!(
        "{written} targets from {} trials in {:.0} s -> {}",
        a.games,
        start.elapsed().as_secs_f64(),
        a.out.display()
    );
    Ok(())
}
