//! `bgfarm rollout --preset NAME`: rollout settings named for what analysts know
//! from eXtreme Gammon and GNU Backgammon, mapped onto our flags (trials, --ply,
//! --truncate, cubeful). A flag given explicitly wins over its preset's value.
//!
//! These are approximations: our nets, move filters and luck estimate differ from
//! both programs', so the same numbers do not play the same games; what carries
//! over is the budget (trials, search depth, truncation) and the cube handling.
//!
//! Plies are counted as we and GNU Backgammon count them (0-ply = the net itself);
//! eXtreme Gammon counts one more (its 1-ply is the net), so XG's "3-ply" is our
//! `--ply 2`.
//!
//! Sources (facts only):
//! - XG Roller++: a truncated rollout of 360 games cut after 5 plies, chequer play
//!   at XG's 3-ply (our 2-ply), cubeful, with variance reduction. Taper_Mike's
//!   "Simulating XG Roller++ in GNU Backgammon" reproduces it in GNU Backgammon as
//!   "truncated cubeful rollout (depth 5) with var.redn., 360 games, world class
//!   2-ply" (bgonline.org forums, messages 161872, June 2014, and 191066, April
//!   2016).
//! - XG Roller and Roller+: the same kind of truncated cubeful rollout at lower
//!   depth; we found no published game counts for them, so ours are scaled down
//!   from Roller++ (72 games at 0-ply, 144 at 1-ply, both cut after 5 plies) and
//!   should be read as "a cheap and a middle level", not as XG's numbers.
//! - eXtreme Gammon's rollouts are cubeful by default (its FAQ,
//!   extremegammon.com/Help.asp) and its author advises against truncating
//!   shorter than 7 plies for full rollouts (bgonline.org, January 2012); the
//!   Roller levels are evaluations, where 5 is what they use.
//! - GNU Backgammon's default rollout: 1296 trials (36², so the first two rolls
//!   are fully rotated, GNU Backgammon manual §9.2.1 "Quasi-Random Dice"), 0-ply
//!   chequer play and cube decisions, cubeful, variance reduction on, no
//!   truncation except in the exact bear-off database.

/// A named rollout level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Preset {
    /// eXtreme Gammon's Roller, approximated: 72 trials at 0-ply, truncated after 5
    /// plies, cubeful.
    #[value(name = "xg-roller", alias = "xgr")]
    XgRoller,
    /// eXtreme Gammon's Roller+, approximated: 144 trials at 1-ply, truncated after
    /// 5 plies, cubeful.
    #[value(name = "xg-roller+", alias = "xgr+")]
    XgRollerPlus,
    /// eXtreme Gammon's Roller++, approximated: 360 trials at 2-ply (XG's 3-ply),
    /// truncated after 5 plies, cubeful.
    #[value(name = "xg-roller++", alias = "xgr++")]
    XgRollerPlusPlus,
    /// GNU Backgammon's default rollout: 1296 trials at 0-ply, played to the end,
    /// cubeful, variance reduction on.
    #[value(name = "gnubg")]
    Gnubg,
}

/// What a preset sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Values {
    pub trials: u64,
    pub ply: u8,
    pub truncate: Option<u32>,
    pub cubeful: bool,
}

/// Trials without a preset or `--trials`: 1296 = 36², every pair of first rolls
/// once.
pub const DEFAULT_TRIALS: u64 = 1296;

impl Preset {
    /// The settings the preset stands for (see the module's sources).
    pub fn values(self) -> Values {
        let (trials, ply, truncate) = match self {
            Preset::XgRoller => (72, 0, Some(5)),
            Preset::XgRollerPlus => (144, 1, Some(5)),
            Preset::XgRollerPlusPlus => (360, 2, Some(5)),
            Preset::Gnubg => (1296, 0, None),
        };
        Values {
            trials,
            ply,
            truncate,
            cubeful: true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::args::Args;
    use super::super::plan::{plan_of, settings};
    use super::*;
    use bgfarm_engine::rollout::{Candidate, RolloutPlan};
    use bgfarm_engine::Position;
    use clap::Parser;

    #[derive(Parser)]
    struct Wrap {
        #[command(flatten)]
        args: Args,
    }

    /// The plan of `bgfarm rollout 4HPwATDgc/ABMA FLAGS` (one candidate, the
    /// position; the cube rules are `plan::build`'s business) and its cubeful flag.
    fn plan(flags: &[&str]) -> (RolloutPlan, bool) {
        let argv = ["rollout", "4HPwATDgc/ABMA"].iter().chain(flags);
        let args = Wrap::try_parse_from(argv).expect("flags").args;
        let settings = settings(&args, None).expect("settings");
        let plan = plan_of(
            &args,
            vec![Candidate::position(Position::STARTING)],
            settings,
        )
        .expect("a valid plan");
        (plan, args.cubeful())
    }

    #[test]
    fn each_preset_gives_the_plan_it_documents() {
        for (name, trials, ply, truncate) in [
            ("xg-roller", 72, 0, Some(5)),
            ("xgr+", 144, 1, Some(5)),
            ("xg-roller++", 360, 2, Some(5)),
            ("gnubg", 1296, 0, None),
        ] {
            let (p, cubeful) = plan(&["--preset", name]);
            let s = p.job.settings;
            assert_eq!(
                (p.trials, s.chequer_ply, s.truncate, cubeful),
                (trials, ply, truncate, true),
                "{name}"
            );
            assert_eq!(s.luck, bgfarm_engine::rollout::Luck::Auto, "VR on");
        }
        let (p, cubeful) = plan(&[]);
        let s = p.job.settings;
        assert_eq!(
            (p.trials, s.chequer_ply, s.truncate, cubeful),
            (1296, 0, None, false)
        );
    }

    #[test]
    fn explicit_flags_win_over_the_preset() {
        let (p, cubeful) = plan(&[
            "--preset",
            "xg-roller++",
            "--trials",
            "36",
            "--ply",
            "1",
            "--truncate",
            "9",
            "--cubeless",
            "--vr",
            "off",
        ]);
        let s = p.job.settings;
        assert_eq!(
            (p.trials, s.chequer_ply, s.truncate, cubeful),
            (36, 1, Some(9), false)
        );
        assert_eq!(s.luck, bgfarm_engine::rollout::Luck::Off);
        assert!(Wrap::try_parse_from(["rollout", "x", "--preset", "snowie"]).is_err());
    }

    #[test]
    fn trials_keep_the_first_roll_stratified() {
        for p in [
            Preset::XgRoller,
            Preset::XgRollerPlus,
            Preset::XgRollerPlusPlus,
            Preset::Gnubg,
        ] {
            assert_eq!(p.values().trials % 36, 0, "{p:?}");
            assert!(p.values().cubeful);
        }
        assert_eq!(Preset::Gnubg.values().truncate, None);
    }
}
