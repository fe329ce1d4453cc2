//! `bgfarm-lab train sides` and `bgfarm-lab train side-fit`: the one-sided race net's
//! pipeline. `sides` runs the exact one-sided searches from the race sides of a
//! positions file and writes every side they visit with its exact distribution;
//! `side-fit` fits a [`SideNet`] to such files.
//!
//! Why every visited side: one search from a side 90 pips out visits hundreds of
//! thousands of sides nearer home, each with its exact distribution, so a few
//! thousand roots give millions of samples at no extra cost.

use super::files::read_positions;
use super::files::write_atomic;
use super::threads::thread_count;
use crate::cli::nets::read_side_net;
use crate::cli::CliError;
use bgfarm_engine::eval::race::distribution::{
    drain_memo, first_off_distribution, memo_len, race_sides, rolls_distribution,
};
use bgfarm_engine::eval::race::side::Side;
use bgfarm_engine::eval::race::side_net::{Head, SideNet};
use bgfarm_engine::eval::race::side_race::pips_to_come_home;
use bgfarm_engine::rng::Rng;
use bgfarm_lab::train::side_net::{
    bootstrap_walk, decode_samples, encode_samples, fit, Lookahead, SideFitOptions, SideSample,
    FAR_PIPS,
};
use std::collections::HashSet;
use std::path::PathBuf;
use std::time::Instant;

#[derive(clap::Args)]
pub struct SidesArgs {
    /// Position IDs, one per line: the race sides of each (a side with a checker
    /// outside its home board) are the searches' roots; other positions are skipped.
    #[arg(long)]
    pub positions: PathBuf,
    /// Output: the samples (binary, see `bgfarm_lab::train::side_net`).
    #[arg(long)]
    pub out: PathBuf,
    /// Search a root only if it could reach at most N positions (as `--exact-race`).
    #[arg(long, default_value_t = 200_000, value_name = "N")]
    pub limit: u64,
    /// Instead of the searches' samples: bootstrapped ones for the roots beyond
    /// the limit, from this one-sided net (`side-fit`'s output): one random game of
    /// the side alone per root, a target at every side still beyond the limit
    /// (see `bgfarm_lab::train::side_net::bootstrap_target`).
    #[arg(long, value_name = "NET")]
    pub bootstrap: Option<PathBuf>,
    /// With --bootstrap: targets K rolls deep instead of one, from sampled games of
    /// the side (see `bgfarm_lab::train::side_net::lookahead_target`).
    #[arg(long, default_value_t = 1, value_name = "K")]
    pub lookahead: usize,
    /// With --lookahead above 1: games per first roll of each target (21 first
    /// rolls).
    #[arg(long, default_value_t = 2, value_name = "M")]
    pub games_per_roll: usize,
    /// Seed of the bootstrap games' rolls (root `i` rolls from stream `i`).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Keep only the searched sides at least P pips from home (`p - 6` for each
    /// checker on points 7-24): a search from a far-back root visits millions of
    /// sides, most of them near home, where earlier sample files already teach
    /// the net well; the far ones are what a later round needs.
    #[arg(long, default_value_t = 0, value_name = "P")]
    pub min_pips_home: u32,
    /// Worker threads (default: one per core).
    #[arg(long)]
    pub threads: Option<usize>,
}

/// Memo size at which a worker moves its samples out (the search would empty a
/// memo of 4 million).
const DRAIN_AT: usize = 2_500_000;

pub fn sides(a: SidesArgs) -> Result<(), CliError> {
    let positions = read_positions(&a.positions)?;
    let threads = thread_count(a.threads)?;
    let one = crate::cli::nets::tables().one_sided();
    let start = Instant::now();
    let mut roots: Vec<Side> = Vec::new();
    for pos in &positions {
        if let Some((m, o)) = race_sides(pos) {
            for s in [m, o] {
                if s[6..].iter().any(|&c| c > 0) {
                    roots.push(s);
                }
            }
        }
    }
    let limit = a.limit;
    let min_pips = a.min_pips_home;
    if a.lookahead == 0 || a.games_per_roll == 0 {
        return Err(CliError::msg(
            "--lookahead and --games-per-roll must be at least 1",
        ));
    }
    if a.lookahead > 1 && a.bootstrap.is_none() {
        return Err(CliError::msg("--lookahead needs --bootstrap"));
    }
    let look = Lookahead {
        rolls: a.lookahead,
        games_per_roll: a.games_per_roll,
    };
    let boot = match &a.bootstrap {
        Some(p) => Some(read_side_net(p)?),
        None => None,
    };
    let parts: Vec<(Vec<SideSample>, usize)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let roots = &roots;
                let boot = boot.as_ref();
                let seed = a.seed;
                scope.spawn(move || {
                    let mut out = Vec::new();
                    let mut searched = 0;
                    let mut pending = 0usize;
                    let drain = |out: &mut Vec<SideSample>| {
                        for (first, head) in [(false, Head::AllOff), (true, Head::FirstOff)] {
                            out.extend(
                                drain_memo(first)
                                    .into_iter()
                                    .filter(|(side, _)| pips_to_come_home(side) >= min_pips)
                                    .map(|(side, target)| SideSample { side, head, target }),
                            );
                        }
                    };
                    for (i, side) in roots.iter().enumerate().skip(t).step_by(threads) {
                        if let Some(net) = boot {
                            let mut rng = Rng::for_stream(seed, i as u64);
                            let walk = bootstrap_walk(one, net, side, limit, Some(look), &mut rng);
                            searched += usize::from(!walk.is_empty());
                            // The walks' searches stay small, and the search
                            // bounds its own memo.
                            out.extend(walk);
                            continue;
                        }
                        let all = rolls_distribution(one, side, limit).is_some();
                        let first = first_off_distribution(one, side, limit).is_some();
                        searched += usize::from(all || first);
                        pending += 1;
                        if pending.is_multiple_of(64) && memo_large() {
                            drain(&mut out);
                        }
                    }
                    if boot.is_none() {
                        drain(&mut out);
                    }
                    (out, searched)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    });
    let searched: usize = parts.iter().map(|p| p.1).sum();
    let mut seen: HashSet<(u8, Side)> = HashSet::new();
    let mut samples = Vec::new();
    for (part, _) in parts {
        for s in part {
            if seen.insert((s.head as u8, s.side)) {
                samples.push(s);
            }
        }
    }
    // A fixed order: the same roots give the same file whatever the threads.
    samples.sort_by_key(|x| (x.head as u8, x.side));
    write_atomic(&a.out, &encode_samples(&samples))?;
    let firsts = samples.iter().filter(|s| s.head == Head::FirstOff).count();
    println!(
        "{} roots ({} searched or walked, limit {}), {} samples ({} all-off, {} first-off) -> {} in {:.0} s",
        roots.len(),
        searched,
        limit,
        samples.len(),
        samples.len() - firsts,
        firsts,
        a.out.display(),
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Whether this thread's memos hold enough to be worth moving out now.
fn memo_large() -> bool {
    memo_len() > DRAIN_AT
}

#[derive(clap::Args)]
pub struct SideFitArgs {
    /// Sample files written by `bgfarm-lab train sides`.
    #[arg(long, required = true, num_args = 1..)]
    pub samples: Vec<PathBuf>,
    /// Output: the fitted net (safetensors).
    #[arg(long)]
    pub out: PathBuf,
    /// Start from this net instead of random weights.
    #[arg(long)]
    pub init: Option<PathBuf>,
    /// Hidden units of a new net.
    #[arg(long, default_value_t = 128)]
    pub hidden: usize,
    #[arg(long, default_value_t = 10)]
    pub epochs: usize,
    #[arg(long, default_value_t = 128)]
    pub batch: usize,
    /// Adam's step size.
    #[arg(long, default_value_t = 0.001)]
    pub lr: f32,
    /// Use at most this many samples (a random subset).
    #[arg(long)]
    pub max_samples: Option<usize>,
    /// Share of the samples held out to report on.
    #[arg(long, default_value_t = 0.02)]
    pub held_out: f64,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Worker threads (default: one per core). Changes the sums' order only.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Fit only this head (`first-off` or `all-off`): its output layer, and in a
    /// split net the first-off head's own hidden layer; everything else keeps the
    /// `--init` net's weights bit for bit, and the other head's samples are
    /// skipped. For refits that must not move the other head's distributions.
    #[arg(long, value_enum, requires = "init")]
    pub only_head: Option<HeadArg>,
    /// Split the net first: the first-off head gets a copy of the hidden layer as
    /// its own (a file of kind bgfarm-side-net-2), so that `--only-head
    /// first-off` refits all of that head and none of the all-off head.
    #[arg(long)]
    pub split: bool,
}

/// A head of the one-sided net, on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum HeadArg {
    AllOff,
    FirstOff,
}

pub fn side_fit(a: SideFitArgs) -> Result<(), CliError> {
    if !(0.0..1.0).contains(&a.held_out) {
        return Err(CliError::msg("--held-out must be in [0, 1)"));
    }
    if a.hidden == 0 || a.hidden > 4096 {
        return Err(CliError::msg("--hidden must be 1 to 4096"));
    }
    let mut samples = Vec::new();
    for p in &a.samples {
        let bytes = std::fs::read(p)
            .map_err(|e| CliError::msg(format!("cannot read {}: {e}", p.display())))?;
        samples.extend(
            decode_samples(&bytes).map_err(|e| CliError::msg(format!("{}: {e}", p.display())))?,
        );
    }
    let mut rng = Rng::new(a.seed);
    for i in (1..samples.len()).rev() {
        let j = rng.below((i + 1) as u32) as usize;
        samples.swap(i, j);
    }
    if let Some(m) = a.max_samples {
        samples.truncate(m);
    }
    if samples.is_empty() {
        return Err(CliError::msg("no samples"));
    }
    let test_len = ((samples.len() as f64 * a.held_out) as usize).min(50_000);
    let (test, train) = samples.split_at(test_len);
    let mut net = match &a.init {
        Some(p) => read_side_net(p)?,
        None => SideNet::random(a.hidden, a.seed),
    };
    if a.split {
        net = net.split();
    }
    let opts = SideFitOptions {
        epochs: a.epochs,
        batch: a.batch,
        lr: a.lr,
        threads: thread_count(a.threads)?,
        seed: a.seed,
        only_head: a.only_head.map(|h| match h {
            HeadArg::AllOff => Head::AllOff,
            HeadArg::FirstOff => Head::FirstOff,
        }),
    };
    let start = Instant::now();
    println!(
        "{} training samples, {} held out, {} hidden",
        train.len(),
        test.len(),
        net.hidden
    );
    fit(&mut net, train, test, &opts, |r| {
        println!(
            "epoch {:>3}  KL {:.5}  expected rolls: mean error {:.4}, max {:.3}, {} pips or more {:.4} ({}), first-off 25+ from home {:.4} ({})  ({:.0} s)",
            r.epoch,
            r.kl,
            r.mean_error,
            r.max_error,
            FAR_PIPS,
            r.far_error,
            r.far,
            r.far_first_error,
            r.far_first,
            start.elapsed().as_secs_f64()
        );
    });
    net.metadata.insert(
        "trained".into(),
        format!(
            "bgfarm-lab train side-fit: {} samples, {} epochs, batch {}, lr {}{}{}",
            train.len(),
            a.epochs,
            a.batch,
            a.lr,
            match a.only_head {
                None => String::new(),
                Some(h) => format!(", only the {h:?} head"),
            },
            if net.first_hidden.is_some() {
                ", split"
            } else {
                ""
            }
        ),
    );
    let bytes = net.to_safetensors().map_err(CliError::msg)?;
    write_atomic(&a.out, &bytes)?;
    println!("-> {}", a.out.display());
    Ok(())
}
