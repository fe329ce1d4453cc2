//! `bgfarm-lab train td`: TD(lambda) self-play training of the contact and race nets,
//! from random weights or from existing files. Writes `contact.safetensors` and
//! `race.safetensors` into `--out`, with a checkpoint every `--checkpoint` games.

use super::files::{save, write_atomic};
use crate::cli::CliError;
use bgfarm_engine::eval::net::format::save_bundle;
use bgfarm_engine::eval::neural::NeuralEvaluator;
use bgfarm_lab::train::net::init::random_net;
use bgfarm_lab::train::td::{train, TdConfig};
use std::path::PathBuf;
use std::time::Instant;

#[derive(clap::Args)]
pub struct TdArgs {
    /// Directory for the trained nets (created if missing).
    #[arg(long)]
    pub out: PathBuf,
    /// Games to play.
    #[arg(long, default_value_t = 100_000)]
    pub games: u64,
    /// Index of the first game (continue a run with new dice).
    #[arg(long, default_value_t = 0)]
    pub first_game: u64,
    /// Hidden units of new nets (multiple of 8).
    #[arg(long, default_value_t = 128)]
    pub hidden: usize,
    /// Start from these nets instead of random weights: `default` (the built-in
    /// nets), a .safetensors bundle, or a directory with contact.safetensors and
    /// race.safetensors.
    #[arg(long)]
    pub init: Option<String>,
    #[arg(long, default_value_t = 0.1)]
    pub lr_start: f32,
    #[arg(long, default_value_t = 0.02)]
    pub lr_end: f32,
    #[arg(long, default_value_t = 0.7)]
    pub lambda: f32,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Save the nets every this many games.
    #[arg(long, default_value_t = 10_000)]
    pub checkpoint: u64,
}

pub fn run(a: TdArgs) -> Result<(), CliError> {
    if a.hidden == 0 || !a.hidden.is_multiple_of(8) {
        return Err(CliError::msg("--hidden must be a positive multiple of 8"));
    }
    if !(0.0..=1.0).contains(&a.lambda) || a.lr_start <= 0.0 || a.lr_end <= 0.0 {
        return Err(CliError::msg(
            "--lambda must be in 0..1 and learning rates positive",
        ));
    }
    std::fs::create_dir_all(&a.out)
        .map_err(|e| CliError::msg(format!("cannot create {}: {e}", a.out.display())))?;
    let (contact, race) = match &a.init {
        Some(spec) => {
            let e = crate::cli::nets::load_training_evaluator(spec)?;
            (e.contact, e.race)
        }
        None => (
            random_net(a.hidden, a.seed),
            random_net(a.hidden, a.seed ^ 0x5eed),
        ),
    };
    let endgame = crate::cli::nets::tables_endgame();
    let mut eval = NeuralEvaluator {
        contact,
        race,
        endgame,
        screen: None,
        crashed: None,
    };
    let start = Instant::now();
    let mut done = 0u64;
    while done < a.games {
        let chunk = a.checkpoint.min(a.games - done);
        let cfg = TdConfig {
            games: chunk,
            first_game: a.first_game + done,
            // One geometric schedule over the whole run, chunk by chunk.
            lr_start: a.lr_start * (a.lr_end / a.lr_start).powf(done as f32 / a.games as f32),
            lr_end: a.lr_start
                * (a.lr_end / a.lr_start).powf((done + chunk) as f32 / a.games as f32),
            lambda: a.lambda,
            seed: a.seed,
        };
        let base = done;
        let stats = train(&mut eval, &cfg, |s, _| {
            let g = base + s.games;
            let secs = start.elapsed().as_secs_f64();
            eprintln!(
                "games {g:>8}  {:>6.0} games/s  positions {:>9}  mse(win) {:.4}",
                g as f64 / secs,
                s.positions,
                s.sq_error / (s.contact_updates + s.race_updates).max(1) as f64
            );
        });
        done += stats.games;
        for (net, kind) in [(&mut eval.contact, "contact"), (&mut eval.race, "race")] {
            net.metadata.insert("kind".into(), kind.into());
            net.metadata
                .insert("trained_games".into(), (a.first_game + done).to_string());
            net.metadata.insert(
                "training".into(),
                format!(
                    "td lambda={} lr={}..{} seed={} hidden={}",
                    a.lambda,
                    a.lr_start,
                    a.lr_end,
                    a.seed,
                    net.hidden()
                ),
            );
        }
        save(&eval.contact, &a.out.join("contact.safetensors"))?;
        save(&eval.race, &a.out.join("race.safetensors"))?;
        let bundle = save_bundle(&[("contact.", &eval.contact), ("race.", &eval.race)])?;
        write_atomic(&a.out.join("nets.safetensors"), &bundle)?;
        eprintln!(
            "checkpoint after {} games written to {}",
            a.first_game + done,
            a.out.display()
        );
    }
    println!(
        "trained {} games in {:.0} s; nets in {}",
        a.games,
        start.elapsed().as_secs_f64(),
        a.out.display()
    );
    Ok(())
}
