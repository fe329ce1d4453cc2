//! Finding the evaluation networks a command should use: `default` (the nets built
//! into the binary), a bundle file (`nets.safetensors`, as `bgfarm-lab train` writes it),
//! or a directory holding `contact.safetensors` and `race.safetensors`.

use crate::CliError;
use bgfarm_engine::eval::bearoff::cache::Outcome;
use bgfarm_engine::eval::bearoff::BearoffDb;
use bgfarm_engine::eval::default_nets;
use bgfarm_engine::eval::endgame::Endgame;
use bgfarm_engine::eval::net::format::load_evaluator_nets;
use bgfarm_engine::eval::net::migrate::Role;
use bgfarm_engine::eval::net::Net;
use bgfarm_engine::eval::neural::NeuralEvaluator;
use bgfarm_engine::eval::race::exact::ExactRace;
use bgfarm_engine::eval::race::gammon_save::ExactGammons;
use bgfarm_engine::eval::race::side_net::SideNet;
use bgfarm_engine::eval::race::side_race::{GammonTrust, SideRace};
use std::path::{Path, PathBuf};

/// The default endgame: the exact bear-off tables, shared by the whole process
/// (loaded from the cache directory ([`cache_dir`]) in ~40 ms, or built there on
/// first use, ~1.4 s), with races answered from the built-in one-sided race net
/// ([`default_nets::default_endgame`]).
pub fn endgame() -> Result<Option<&'static dyn Endgame>, CliError> {
    Ok(Some(default_nets::default_endgame(tables())?))
}

/// [`load_evaluator`] with [`tables_endgame`]: the training commands' evaluator.
pub fn load_training_evaluator(spec: &str) -> Result<NeuralEvaluator<'static>, CliError> {
    let mut eval = load_evaluator(spec)?;
    eval.endgame = tables_endgame();
    Ok(eval)
}

/// The tables alone, with the two-sided race net answering races: what the
/// training commands evaluate with, so that `scripts/train-default-nets.sh`
/// reproduces the shipped contact and race nets.
pub fn tables_endgame() -> Option<&'static dyn Endgame> {
    Some(tables())
}

/// The endgame an analysis asked for with `--side-net`, `--exact-race` and
/// `--exact-gammons`, or `None` when it asked for none of them (the evaluator keeps
/// [`endgame`]).
///
/// - `--side-net` names the one-sided race net: `default` (built in), `none` (the
///   two-sided race net answers races) or a file from `bgfarm-lab train
///   side-fit`.
/// - `--exact-race N`: sides of at most N dominated positions get the exact
///   one-sided search, the others the one-sided net ([`SideRace`]), or with
///   `--side-net none` the race net ([`ExactRace`]).
/// - `--side-gammons` or `--side-gammon-trust FULL:NONE` (`trust`): how far from
///   home the one-sided net's gammon chances count (see [`SideRace::with_trust`]);
///   `--side-back-checkers` (`back`): whether it answers sides with a checker in
///   the opponent's home board ([`SideRace::with_back_checkers`]);
///   `--side-lookahead PIPS` (`lookahead`): one roll of lookahead over the net's
///   first-off distributions of savers that far from home
///   ([`SideRace::with_first_off_lookahead`]), with `--side-lookahead-plays K`
///   (`plays`) the net valuing the best K plays of each roll
///   ([`SideRace::with_lookahead_plays`]).
/// - `--exact-gammons N`: the exact gammon search over them, each search at most N
///   positions ([`ExactGammons`]).
pub fn exact_endgame(
    gammons: Option<usize>,
    race: Option<u64>,
    side_net: Option<&str>,
    trust: Option<GammonTrust>,
    back: Option<bool>,
    lookahead: Option<u32>,
    plays: Option<usize>,
) -> Result<Option<&'static dyn Endgame>, CliError> {
    if gammons.is_none()
        && race.is_none()
        && side_net.is_none()
        && trust.is_none()
        && back.is_none()
        && lookahead.is_none()
        && plays.is_none()
    {
        return Ok(None);
    }
    let db = tables();
    let mut e: &'static dyn Endgame = db;
    // The one-sided race chances first, the exact gammon search over them where it
    // decides (see `ExactGammons`).
    let net: Option<&'static SideNet> = match side_net.unwrap_or("default") {
        "none" => None,
        "default" => Some(default_nets::side_net()?),
        path => Some(Box::leak(Box::new(read_side_net(Path::new(path))?))),
    };
    if net.is_none() && (back.is_some() || trust.is_some() || lookahead.is_some()) {
        return Err(CliError::msg(
            "--side-gammon-trust, --side-gammons, --side-back-checkers and --side-lookahead need a one-sided net (not --side-net none)",
        ));
    }
    if plays.is_some() && lookahead.is_none() {
        return Err(CliError::msg(
            "--side-lookahead-plays needs the lookahead (not --side-lookahead off or --side-net none)",
        ));
    }
    match (net, race) {
        (Some(net), limit) => {
            // The layer's own defaults stand for the options not given.
            let mut layer = SideRace::new(e, db.one_sided(), net, limit.unwrap_or(0));
            if let Some(t) = trust {
                layer = layer.with_trust(t);
            }
            if let Some(b) = back {
                layer = layer.with_back_checkers(b);
            }
            if lookahead.is_some() {
                layer = layer.with_first_off_lookahead(lookahead);
            }
            if let Some(k) = plays {
                layer = layer.with_lookahead_plays(k);
            }
            e = Box::leak(Box::new(layer));
        }
        (None, Some(limit)) => {
            e = Box::leak(Box::new(ExactRace::new(e, db.one_sided(), limit)));
        }
        (None, None) => {}
    }
    if let Some(budget) = gammons {
        e = Box::leak(Box::new(ExactGammons::new(e, db.one_sided(), budget)));
    }
    Ok(Some(e))
}

/// A one-sided race net file (`bgfarm-lab train side-fit`'s output).
pub fn read_side_net(path: &Path) -> Result<SideNet, CliError> {
    SideNet::from_safetensors(&read(path)?)
        .map_err(|e| CliError::msg(format!("{}: {e}", path.display())))
}

/// The bear-off tables of [`endgame`].
pub fn tables() -> &'static BearoffDb {
    let Some(dir) = cache_dir() else {
        return BearoffDb::global();
    };
    let (db, outcome) = BearoffDb::global_cached(&dir);
    match outcome {
        Some(
            o @ Outcome::Built {
                written: Err(_), ..
            },
        ) => tracing::warn!("{o}"),
        Some(o) => tracing::debug!("{o}"),
        None => {}
    }
    db
}

/// Where the bear-off tables are cached: `$BGFARM_CACHE_DIR` (`off` or empty: no
/// cache, build in memory), else `$XDG_CACHE_HOME/bgfarm`, else `$HOME/.cache/bgfarm`.
pub fn cache_dir() -> Option<PathBuf> {
    let var = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
    if let Some(d) = std::env::var_os("BGFARM_CACHE_DIR") {
        return (!d.is_empty() && d != "off").then(|| PathBuf::from(d));
    }
    if let Some(x) = var("XDG_CACHE_HOME") {
        return Some(PathBuf::from(x).join("bgfarm"));
    }
    var("HOME").map(|h| PathBuf::from(h).join(".cache").join("bgfarm"))
}

fn read(path: &Path) -> Result<Vec<u8>, CliError> {
    std::fs::read(path).map_err(|e| CliError::msg(format!("cannot read {}: {e}", path.display())))
}

/// Loads the nets named by `spec`: `default` (alias `deep`: the deeper contact net
/// screened by the one-layer one, [`default_nets::default_evaluator`]), `fast` (the
/// one-layer nets alone), `default-no-crashed` (the default without its crashed
/// net, as the default was up to 0.14.0: where `scripts/train-crashed-net.sh`
/// starts), a bundle file (screen and crashed nets optional, as
/// `screen.` and `crashed.`) or a directory (`contact.safetensors`,
/// `race.safetensors`, optional `screen.safetensors` and `crashed.safetensors`).
pub fn load_evaluator(spec: &str) -> Result<NeuralEvaluator<'static>, CliError> {
    match spec {
        "default" | "deep" => return Ok(default_nets::default_evaluator(endgame()?)?),
        "fast" => return Ok(default_nets::fast_evaluator(endgame()?)?),
        "default-no-crashed" => {
            let mut eval = default_nets::default_evaluator(endgame()?)?;
            eval.crashed = None;
            return Ok(eval);
        }
        _ => {}
    }
    let (contact, race, screen, crashed) = {
        let path = Path::new(spec);
        if path.is_dir() {
            let one = |f: &str, role: Role| -> Result<Net, CliError> {
                let p = path.join(f);
                Net::from_safetensors(&read(&p)?, role)
                    .map_err(|e| CliError::msg(format!("{}: {e}", p.display())))
            };
            let optional = |f: &str| -> Result<Option<Net>, CliError> {
                if path.join(f).is_file() {
                    one(f, Role::Contact).map(Some)
                } else {
                    Ok(None)
                }
            };
            (
                one("contact.safetensors", Role::Contact)?,
                one("race.safetensors", Role::Race)?,
                optional("screen.safetensors")?,
                optional("crashed.safetensors")?,
            )
        } else if path.is_file() {
            let n = load_evaluator_nets(&read(path)?)
                .map_err(|e| CliError::msg(format!("{spec}: {e}")))?;
            (n.contact, n.race, n.screen, n.crashed)
        } else {
            return Err(CliError::msg(format!(
                "no nets at {spec:?}: give `default`, `fast`, `default-no-crashed`, a \
                 .safetensors bundle or a directory"
            )));
        }
    };
    Ok(NeuralEvaluator {
        contact,
        race,
        endgame: endgame()?,
        screen,
        crashed,
    })
}
