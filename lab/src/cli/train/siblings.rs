//! `bgfarm-lab train siblings`: labelled sibling groups for `train fit --siblings`.
//!
//! For each position of a positions file (the player on roll, before the roll) it
//! draws one roll and writes the positions after every legal play of it that the
//! contact net (`--class race`: the race net) answers, each labelled at `--ply`
//! like `train label` does, as one group: `ID p1 .. p5` lines and a blank line
//! after the group. Groups of fewer than two are skipped. Why groups: see
//! `bgfarm_lab::train::siblings`. Race groups can take their labels from the
//! exact race searches (`--exact-race`), whose differences between plays are what
//! the race net gets wrong most (see the README's race notes).

use super::files::{create, io_err, read_positions};
use super::label::labelling_evaluator;
use super::threads::pool;
use super::which_nets::Nets;
use crate::cli::CliError;
use bgfarm_engine::eval::neural::Class;
use bgfarm_engine::movegen::MoveGenerator;
use bgfarm_engine::rng::Rng;
use bgfarm_engine::search::{EvalCache, Pruning, Searcher};
use bgfarm_lab::train::dataset::{format_sample, Sample};
use bgfarm_lab::train::siblings::sibling_positions;
use bgfarm_lab::train::supervised as sup;
use rayon::prelude::*;
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

#[derive(clap::Args)]
pub struct SiblingsArgs {
    /// Position IDs, one per line (as `bgfarm-lab train positions` writes them); each
    /// gives one group.
    #[arg(long)]
    pub positions: PathBuf,
    /// Output: labelled groups, a blank line after each.
    #[arg(long)]
    pub out: PathBuf,
    /// Search depth of the labels (GNU Backgammon's numbering; 0 = the nets).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(0..=3))]
    pub ply: u8,
    /// Nets to search with.
    #[arg(long, default_value = "default")]
    pub net: String,
    /// Reply pruning inside the search (0 = none); see `bgfarm hint --help`.
    #[arg(long, default_value_t = Pruning::DEFAULT.keep)]
    pub prune: u8,
    /// Seed of the rolls: position `i` of the file rolls from stream `i`.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Use at most this many positions (the first ones).
    #[arg(long)]
    pub limit: Option<usize>,
    /// Which net's positions make the groups (`both`: either net's, each group
    /// one class).
    #[arg(long, value_enum, default_value_t = Nets::Contact)]
    pub class: Nets,
    /// With `--ply 0`: win and gammon chances of races from the exact one-sided
    /// searches for sides that could reach at most N positions (as `train label`).
    #[arg(long, value_name = "N")]
    pub exact_race: Option<u64>,
    /// With `--ply 0`: gammon chances of races from the exact saver search within N
    /// positions (as `train label`).
    #[arg(long, value_name = "N")]
    pub exact_gammons: Option<usize>,
    /// Worker threads (default: one per core). Never changes the output.
    #[arg(long)]
    pub threads: Option<usize>,
}

pub fn siblings(a: SiblingsArgs) -> Result<(), CliError> {
    let eval = labelling_evaluator(&a.net, a.exact_gammons, a.exact_race, a.ply)?;
    let classes: &[Class] = match a.class {
        Nets::Contact => &[Class::Contact],
        Nets::Race => &[Class::Race],
        Nets::Both => &[Class::Contact, Class::Race],
        Nets::Crashed => {
            return Err(CliError::msg(
                "--class crashed: sibling groups are drawn per net (contact, race or both)",
            ))
        }
    };
    let pool = pool(a.threads)?;
    let mut parents = read_positions(&a.positions)?;
    if let Some(l) = a.limit {
        parents.truncate(l);
    }
    let mut out = create(&a.out)?;
    let prune = Pruning { keep: a.prune };
    let fingerprint = bgfarm_engine::search::Leaf::from(&eval).fingerprint();
    let cache = EvalCache::with_mib(64);
    let start = Instant::now();
    let (mut groups, mut members) = (0usize, 0usize);
    const CHUNK: usize = 500;
    for (c, chunk) in parents.chunks(CHUNK).enumerate() {
        let labelled: Vec<Vec<Sample>> = pool.install(|| {
            chunk
                .par_iter()
                .enumerate()
                .map_init(
                    || {
                        (
                            Searcher::with_fingerprint(&eval, fingerprint, prune, Some(&cache)),
                            MoveGenerator::new(),
                        )
                    },
                    |(searcher, gen), (i, pos)| {
                        let index = (c * CHUNK + i) as u64;
                        let dice = Rng::for_stream(a.seed, index).roll();
                        classes
                            .iter()
                            .map(|&c| sibling_positions(&eval, gen, pos, dice, c))
                            .find(|g| !g.is_empty())
                            .unwrap_or_default()
                            .into_iter()
                            .map(|p| Sample {
                                pos: p,
                                probs: sup::label(searcher, &p, a.ply),
                            })
                            .collect()
                    },
                )
                .collect()
        });
        for group in labelled.iter().filter(|g| !g.is_empty()) {
            for s in group {
                writeln!(out, "{}", format_sample(s)).map_err(io_err(&a.out))?;
            }
            writeln!(out).map_err(io_err(&a.out))?;
            groups += 1;
            members += group.len();
        }
        out.flush().map_err(io_err(&a.out))?;
        let done = (c * CHUNK + chunk.len()) as f64;
        eprintln!(
            "parents {done:>8} / {}  groups {groups}  positions {members}  {:.0} positions/s",
            parents.len(),
            members as f64 / start.elapsed().as_secs_f64()
        );
    }
    println!(
        "{groups} groups of {members} positions labelled at {}-ply from {} positions in \
         {:.0} s -> {}",
        a.ply,
        parents.len(),
        start.elapsed().as_secs_f64(),
        a.out.display()
    );
    Ok(())
}
