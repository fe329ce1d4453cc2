//! `bgfarm-lab train fit`: the nets fitted to labelled positions, outcome
//! targets and sibling groups.

use super::files::{save, write_atomic};
use super::which_nets::Nets;
use crate::cli::nets::load_training_evaluator as load_evaluator;
use crate::cli::CliError;
use bgfarm_engine::eval::crashed::is_crashed;
use bgfarm_engine::eval::net::format::save_bundle;
use bgfarm_engine::eval::net::Net;
use bgfarm_engine::eval::neural::{Class, NeuralEvaluator};
use bgfarm_engine::ParseError;
use bgfarm_lab::train::dataset::{parse_samples, parse_targets, Sample};
use bgfarm_lab::train::net::grow::{deepen, widen};
use bgfarm_lab::train::siblings::parse_groups;
use bgfarm_lab::train::supervised::{self as sup, FitConfig, Optimizer};
use std::path::PathBuf;
use std::time::Instant;

#[derive(clap::Args)]
pub struct FitArgs {
    /// Trial-outcome targets (`bgfarm-lab train outcomes` output), fitted with the
    /// labelled files.
    #[arg(long, num_args = 1..)]
    pub targets: Vec<PathBuf>,
    /// Labelled files (`bgfarm-lab train label` output); several are concatenated.
    #[arg(long, num_args = 1.., required_unless_present = "targets")]
    pub data: Vec<PathBuf>,
    /// Nets to start from: `default`, a bundle or a directory.
    #[arg(long, default_value = "default")]
    pub init: String,
    /// Directory for the fitted nets (created if missing).
    #[arg(long)]
    pub out: PathBuf,
    /// Widen the nets being fitted (`--nets`) to this many hidden units first (a
    /// multiple of 8, at least their width): more capacity for what the deeper labels
    /// know.
    #[arg(long)]
    pub hidden: Option<usize>,
    /// Put a second hidden layer of this many units (a multiple of 8) under the nets
    /// being fitted, which must have one: their first layer is kept, the layers above
    /// it start from small random weights. A 128-64 contact net fits its own 1-ply
    /// labels with about a tenth less error than a 128-unit one.
    #[arg(long, value_parser = clap::value_parser!(u32).range(8..=4096))]
    pub deepen: Option<u32>,
    /// Passes over the data.
    #[arg(long, default_value_t = FitConfig::default().epochs)]
    pub epochs: u32,
    /// How gradients become steps: `adam` on minibatches, or `sgd`, one sample at a
    /// time (the shipped nets' legs up to 30).
    #[arg(long, value_enum, default_value_t = OptimizerArg::Adam)]
    pub optimizer: OptimizerArg,
    /// Samples per Adam step.
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u32).range(1..=65_536))]
    pub batch: u32,
    /// Learning rate at the start (default: 0.001 for Adam, 0.02 for SGD), falling
    /// geometrically to `--lr-end` (default: 0.00003 for Adam, 0.002 for SGD).
    #[arg(long)]
    pub lr_start: Option<f32>,
    #[arg(long)]
    pub lr_end: Option<f32>,
    /// Threads for Adam's minibatch gradients (default: one per core). Never changes
    /// the result.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Hold out one sample in K to measure the fit (0: none).
    #[arg(long, default_value_t = FitConfig::default().holdout)]
    pub holdout: u32,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Which nets to fit; the other is written as `--init` has it (its samples are
    /// left out of the fit).
    #[arg(long, value_enum, default_value_t = Nets::Both)]
    pub nets: Nets,
    /// Sibling groups (`bgfarm-lab train siblings` output), each for the net that
    /// answers its members: their members are fitted like samples and, with
    /// `--sibling-weight`, to their equity differences within the group. Needs Adam.
    #[arg(long, num_args = 1..)]
    pub siblings: Vec<PathBuf>,
    /// Weight of the groups' equity-difference loss (0: the members count as plain
    /// samples).
    #[arg(long, default_value_t = FitConfig::default().sibling_weight)]
    pub sibling_weight: f32,
}

/// `--optimizer` of `bgfarm-lab train fit`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum OptimizerArg {
    Adam,
    Sgd,
}

/// The nets `fit` changes (`--nets`), each with its own seed for new weights.
/// `--nets crashed` fits the crashed net (made from the contact net first where
/// the nets have none).
fn fitted_nets<'a>(
    eval: &'a mut NeuralEvaluator<'_>,
    nets: Nets,
    seed: u64,
) -> impl Iterator<Item = (&'a mut Net, u64)> {
    let (contact, race, crashed) = (&mut eval.contact, &mut eval.race, &mut eval.crashed);
    [
        matches!(nets, Nets::Both | Nets::Contact).then_some((contact, seed)),
        matches!(nets, Nets::Both | Nets::Race).then_some((race, seed ^ 0x5eed)),
        crashed
            .as_mut()
            .filter(|_| nets == Nets::Crashed)
            .map(|n| (n, seed ^ 0xc4a5)),
    ]
    .into_iter()
    .flatten()
}

/// Every sample of `paths`, each file parsed by `parse` (labels or targets); an
/// error names the file and the line.
fn read_all(
    paths: &[PathBuf],
    parse: fn(&str) -> Result<Vec<Sample>, ParseError>,
) -> Result<Vec<Sample>, CliError> {
    let mut samples = Vec::new();
    for path in paths {
        let text = std::fs::read_to_string(path)
            .map_err(|e| CliError::msg(format!("cannot read {}: {e}", path.display())))?;
        samples
            .extend(parse(&text).map_err(|e| CliError::msg(format!("{}: {e}", path.display())))?);
    }
    Ok(samples)
}

pub fn fit(a: FitArgs) -> Result<(), CliError> {
    let optimizer = match a.optimizer {
        OptimizerArg::Adam => Optimizer::Adam {
            batch: a.batch as usize,
        },
        OptimizerArg::Sgd => Optimizer::Sgd,
    };
    let (start, end) = optimizer.default_rates();
    let (lr_start, lr_end) = (a.lr_start.unwrap_or(start), a.lr_end.unwrap_or(end));
    if a.threads == Some(0) {
        return Err(CliError::msg("--threads must be at least 1"));
    }
    // Not `> 0.0`-negated: a NaN rate must be refused too.
    if a.epochs == 0 || !(lr_start > 0.0 && lr_end > 0.0) {
        return Err(CliError::msg(
            "--epochs must be at least 1 and learning rates positive",
        ));
    }
    if !a.siblings.is_empty() && a.optimizer != OptimizerArg::Adam {
        return Err(CliError::msg("--siblings needs --optimizer adam"));
    }
    if !(a.sibling_weight >= 0.0 && a.sibling_weight <= 1000.0) {
        return Err(CliError::msg("--sibling-weight must be in 0..1000"));
    }
    let mut eval = load_evaluator(&a.init)?;
    if a.nets == Nets::Crashed && eval.crashed.is_none() {
        eval.crashed = Some(eval.contact.clone());
    }
    if let Some(h) = a.hidden {
        // Only the nets being fitted: a widened net computes the same values more
        // slowly until it is trained.
        for (net, seed) in fitted_nets(&mut eval, a.nets, a.seed) {
            if !h.is_multiple_of(8) || h < net.hidden() || h > 4096 {
                return Err(CliError::msg(format!(
                    "--hidden {h}: give a multiple of 8 from the nets' width ({}) to 4096",
                    net.hidden()
                )));
            }
            *net = widen(net, h, seed);
        }
    }
    if let Some(m) = a.deepen {
        for (net, seed) in fitted_nets(&mut eval, a.nets, a.seed) {
            if !m.is_multiple_of(8) {
                return Err(CliError::msg(format!("--deepen {m}: give a multiple of 8")));
            }
            if net.mid() > 0 {
                return Err(CliError::msg(format!(
                    "--deepen: the nets already have a second hidden layer ({} units)",
                    net.mid()
                )));
            }
            *net = deepen(net, m as usize, seed ^ 0xdee9);
        }
    }
    let mut samples = read_all(&a.data, parse_samples)?;
    samples.extend(read_all(&a.targets, parse_targets)?);
    let (mut contact, mut race): (Vec<Sample>, Vec<Sample>) = samples
        .iter()
        .copied()
        .filter(|s| matches!(eval.class(&s.pos), Class::Contact | Class::Race))
        .partition(|s| eval.class(&s.pos) == Class::Contact);
    eprintln!(
        "{} samples: {} contact, {} race ({} answered by the endgame tables, skipped)",
        samples.len(),
        contact.len(),
        race.len(),
        samples.len() - contact.len() - race.len()
    );
    // Each group goes to the net that answers its members (members of the other
    // class are dropped), kept while it has two.
    let (mut groups, mut race_groups) = (Vec::new(), Vec::new());
    for path in &a.siblings {
        let text = std::fs::read_to_string(path)
            .map_err(|e| CliError::msg(format!("cannot read {}: {e}", path.display())))?;
        let parsed =
            parse_groups(&text).map_err(|e| CliError::msg(format!("{}: {e}", path.display())))?;
        for g in parsed {
            for (class, to) in [
                (Class::Contact, &mut groups),
                (Class::Race, &mut race_groups),
            ] {
                let kept: Vec<Sample> = g
                    .iter()
                    .copied()
                    .filter(|s| eval.class(&s.pos) == class)
                    .collect();
                if kept.len() >= 2 {
                    to.push(kept);
                }
            }
        }
    }
    // Only the nets being fitted keep their samples and groups.
    match a.nets {
        Nets::Contact => {
            race.clear();
            race_groups.clear();
        }
        Nets::Race => {
            contact.clear();
            groups.clear();
        }
        Nets::Crashed => {
            race.clear();
            race_groups.clear();
            contact.retain(|s| is_crashed(&s.pos));
            groups.retain(|g: &Vec<Sample>| g.iter().all(|s| is_crashed(&s.pos)));
        }
        Nets::Both => {}
    }
    // With a crashed net the contact net no longer answers crashed positions.
    if eval.crashed.is_some() && a.nets != Nets::Crashed {
        contact.retain(|s| !is_crashed(&s.pos));
        groups.retain(|g: &Vec<Sample>| g.iter().all(|s| !is_crashed(&s.pos)));
    }
    if !a.siblings.is_empty() {
        eprintln!(
            "{} sibling groups of {} contact positions, {} of {} race positions",
            groups.len(),
            groups.iter().map(Vec::len).sum::<usize>(),
            race_groups.len(),
            race_groups.iter().map(Vec::len).sum::<usize>()
        );
    }
    std::fs::create_dir_all(&a.out)
        .map_err(|e| CliError::msg(format!("cannot create {}: {e}", a.out.display())))?;
    let cfg = FitConfig {
        epochs: a.epochs,
        lr_start,
        lr_end,
        holdout: a.holdout,
        seed: a.seed,
        optimizer,
        sibling_weight: a.sibling_weight,
        threads: a.threads.unwrap_or_else(|| {
            std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
        }),
    };
    let start = Instant::now();
    let fit_one = |net: &mut Net, data: &[Sample], groups: &[Vec<Sample>], kind: &str| {
        if data.is_empty() {
            return;
        }
        sup::fit(net, data, groups, &cfg, |r| {
            let siblings = if groups.is_empty() {
                String::new()
            } else {
                format!(
                    "  differences rmse train {:.4} held-out {:.4} ({} / {} groups)",
                    r.sibling_train_rmse,
                    r.sibling_holdout_rmse,
                    r.sibling_train_groups,
                    r.sibling_holdout_groups
                )
            };
            eprintln!(
                "{kind:<7} epoch {:>3}  lr {:.4}  equity rmse train {:.4} held-out {:.4} \
                 ({} / {} samples){siblings}",
                r.epoch, r.lr, r.train_rmse, r.holdout_rmse, r.train_samples, r.holdout_samples
            );
        });
        let data_names: Vec<String> = a
            .data
            .iter()
            .chain(&a.targets)
            .map(|p| p.display().to_string())
            .collect();
        let history = net.metadata.get("training").cloned().unwrap_or_default();
        net.metadata.insert("kind".into(), kind.into());
        net.metadata.insert(
            "training".into(),
            format!(
                "{history}; supervised fit of {} samples from {}{} epochs={} optimizer={} \
                 lr={}..{} seed={}",
                data.len(),
                data_names.join(","),
                if groups.is_empty() {
                    String::new()
                } else {
                    format!(
                        " and {} sibling groups from {} (weight {})",
                        groups.len(),
                        a.siblings
                            .iter()
                            .map(|p| p.display().to_string())
                            .collect::<Vec<_>>()
                            .join(","),
                        cfg.sibling_weight
                    )
                },
                a.epochs,
                match cfg.optimizer {
                    Optimizer::Sgd => "sgd".to_string(),
                    Optimizer::Adam { batch } => format!("adam/{batch}"),
                },
                cfg.lr_start,
                cfg.lr_end,
                a.seed
            ),
        );
    };
    // The two nets are independent: fit them on two threads. The crashed net
    // takes the contact samples, which are its own positions by now.
    let (c, kind) = match (a.nets, eval.crashed.as_mut()) {
        (Nets::Crashed, Some(crashed)) => (crashed, "crashed"),
        _ => (&mut eval.contact, "contact"),
    };
    let r = &mut eval.race;
    rayon::join(
        || fit_one(c, &contact, &groups, kind),
        || fit_one(r, &race, &race_groups, "race"),
    );
    save(&eval.contact, &a.out.join("contact.safetensors"))?;
    save(&eval.race, &a.out.join("race.safetensors"))?;
    // A screen net (`--init default`) goes along unchanged: the fitted nets choose as
    // the ones they came from did, screened.
    let mut nets = vec![("contact.", &eval.contact), ("race.", &eval.race)];
    if let Some(screen) = &eval.screen {
        save(screen, &a.out.join("screen.safetensors"))?;
        nets.push(("screen.", screen));
    }
    if let Some(crashed) = &eval.crashed {
        save(crashed, &a.out.join("crashed.safetensors"))?;
        nets.push(("crashed.", crashed));
    }
    let bundle = save_bundle(&nets)?;
    write_atomic(&a.out.join("nets.safetensors"), &bundle)?;
    println!(
        "fitted {} contact and {} race samples in {:.0} s; nets in {}",
        contact.len(),
        race.len(),
        start.elapsed().as_secs_f64(),
        a.out.display()
    );
    Ok(())
}
