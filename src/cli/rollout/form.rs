//! The web page's rollout form, planned as the command line: its fields become
//! `bgfarm rollout` flags, parsed by the same clap definition and planned by the
//! same code ([`super::planned`]: the engine's one `RolloutPlan::validate`, its
//! errors worded with the flags), so the form accepts exactly what the command
//! accepts and refuses the rest with the same message. `bgfarm serve` hands
//! [`planner`] to its coordinator.
//!
//! Every value goes in as `--flag=VALUE` and the position after `--`, so no field
//! can smuggle in another flag (`--data`, `--positions`, `--coordinator`).

use super::args::Args;
use crate::cli::nets::load_evaluator;
use crate::cli::CliError;
use bgfarm_coordinator::{RolloutForm, RolloutPlanner};
use bgfarm_engine::eval::fingerprint::fingerprint;
use bgfarm_engine::eval::neural::NeuralEvaluator;
use bgfarm_proto::v1;
use clap::Parser;
use std::sync::{Arc, OnceLock};

/// The command line of `bgfarm rollout`, alone.
#[derive(Parser)]
#[command(name = "rollout")]
struct Wrap {
    #[command(flatten)]
    args: Args,
}

/// The `bgfarm rollout` arguments of `form`, or the command line's message for
/// a field it refuses.
fn args_of(form: &RolloutForm) -> Result<Args, String> {
    if form.position.is_empty() {
        return Err(
            "give a position: a GNU Backgammon position ID (ID or ID:MATCHID) or an XGID".into(),
        );
    }
    let mut argv = vec!["rollout".to_string()];
    for (flag, value) in [
        ("dice", &form.dice),
        ("moves", &form.moves),
        ("trials", &form.trials),
        ("seed", &form.seed),
        ("ply", &form.ply),
        ("truncate", &form.truncate),
        ("preset", &form.preset),
    ] {
        if !value.is_empty() {
            argv.push(format!("--{flag}={value}"));
        }
    }
    if form.cubeful {
        argv.push("--cubeful".into());
    }
    argv.push("--".into());
    argv.push(form.position.clone());
    Wrap::try_parse_from(argv)
        .map(|w| w.args)
        .map_err(|e| clap_line(&e))
}

/// clap's message in one line, without its "error: " and its hint at `--help`.
fn clap_line(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let first = text.lines().next().unwrap_or_default();
    first.strip_prefix("error: ").unwrap_or(first).to_string()
}

/// The job spec of `form` for engine `eval` (fingerprint `fp`).
pub fn plan_form(
    form: &RolloutForm,
    eval: &NeuralEvaluator<'_>,
    fp: &str,
) -> Result<v1::JobSpec, String> {
    let args = args_of(form)?;
    super::planned(&args, eval, fp)
        .map(|(_, spec, _)| spec)
        .map_err(|e: CliError| e.to_string())
}

/// The planner of the form with the nets `net` (`--net` of `bgfarm rollout`),
/// loaded at the first submission (the bear-off tables may be built then) and
/// kept: the coordinator starts as fast as before and loads no nets unless the
/// form is used.
pub fn planner(net: String) -> RolloutPlanner {
    type Loaded = Result<(NeuralEvaluator<'static>, String), String>;
    let loaded: Arc<OnceLock<Loaded>> = Arc::new(OnceLock::new());
    RolloutPlanner(Arc::new(move |form: &RolloutForm| {
        let (eval, fp) = loaded
            .get_or_init(|| {
                let eval = load_evaluator(&net).map_err(|e| format!("the nets: {e}"))?;
                let fp = fingerprint(&eval).to_string();
                Ok((eval, fp))
            })
            .as_ref()
            .map_err(Clone::clone)?;
        plan_form(form, eval, fp)
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form(position: &str) -> RolloutForm {
        RolloutForm {
            position: position.into(),
            ..RolloutForm::defaults()
        }
    }

    #[test]
    fn fields_become_the_command_line() {
        let mut f = form("4HPwATDgc/ABMA");
        f.dice = "31".into();
        f.trials = "72".into();
        f.preset = "xg-roller++".into();
        let a = args_of(&f).expect("valid");
        assert_eq!(a.position.as_deref(), Some("4HPwATDgc/ABMA"));
        assert_eq!((a.trials(), a.ply(), a.truncate()), (72, 2, Some(5)));
        assert!(a.cubeful());
    }

    #[test]
    fn no_field_smuggles_a_flag() {
        let a = args_of(&form("--data=/tmp/x")).expect("a position, however odd");
        assert_eq!(a.position.as_deref(), Some("--data=/tmp/x"));
        assert!(a.data.is_none() && a.positions.is_none());
        let mut f = form("4HPwATDgc/ABMA");
        f.dice = "--coordinator=http://x".into();
        let a = args_of(&f).expect("parsed");
        assert_eq!(a.dice.as_deref(), Some("--coordinator=http://x"));
        assert!(a.remote.coordinator.is_none());
    }

    #[test]
    fn refused_fields_get_the_command_lines_message() {
        let mut f = form("4HPwATDgc/ABMA");
        f.trials = "lots".into();
        let e = args_of(&f).err().unwrap_or_default();
        assert!(e.contains("'lots'") && e.contains("--trials"), "{e}");
        assert!(!e.starts_with("error"), "{e}");
        f.trials.clear();
        f.preset = "snowie".into();
        let e = args_of(&f).err().unwrap_or_default();
        assert!(e.contains("snowie") && e.contains("--preset"), "{e}");
        assert!(args_of(&form("")).is_err_and(|e| e.contains("position")));
    }
}
