//! The race options every evaluating command shares (`eval`, `hint`, and `bgfarm-lab`'s
//! `bench hint` and `filter-study`): which exact searches and which one-sided race net answer races.
//! One struct, flattened into each command's arguments, so the options and their
//! help texts are written once.

use super::nets::exact_endgame;
use crate::CliError;
use bgfarm_engine::eval::endgame::Endgame;
use bgfarm_engine::eval::race::side_race::GammonTrust;

/// How races are evaluated (see [`exact_endgame`]).
#[derive(clap::Args, Clone, Debug, Default)]
pub struct RaceArgs {
    /// Gammon chances of races from an exact search instead of the race net, where
    /// the side that may be gammoned has none off and checkers still outside its
    /// home board and the other side is home; each search may add at most N
    /// positions to its memo, else the net answers. Milliseconds to minutes a
    /// position: meant for 0-ply analysis.
    #[arg(long, value_name = "N")]
    pub exact_gammons: Option<usize>,
    /// Win and gammon chances of races from exact one-sided searches instead of the
    /// race net (each side's distribution of rolls to bear off all its checkers, or
    /// its first one for a side that may be gammoned; every play of every roll
    /// searched), where each side could reach at most N positions; else the
    /// one-sided race net answers (--side-net). Milliseconds to a minute or two a
    /// position (N = 2000000): meant for 0-ply analysis. With --exact-gammons, that
    /// search wins where it decides.
    #[arg(long, value_name = "N")]
    pub exact_race: Option<u64>,
    /// The one-sided race net that answers races (each side's distribution of
    /// rolls to bear off; see the README): `default` (built in), `none` (the
    /// two-sided race net) or a file from `bgfarm-lab train side-fit`. With --exact-race it answers for the sides over that limit.
    #[arg(long, value_name = "NET")]
    pub side_net: Option<String>,
    /// Gammon chances of races from the one-sided net for every saver: the
    /// default (as `--side-gammon-trust all`), kept so that command lines that
    /// give it still run.
    #[arg(long)]
    pub side_gammons: bool,
    /// Where the one-sided net's gammon chances take over from the race net's:
    /// `FULL:NONE`, fully for savers up to FULL pips from home, not at all from
    /// NONE, linear between (for example 10:25), or `all` (the default).
    #[arg(long, value_name = "FULL:NONE", conflicts_with = "side_gammons")]
    pub side_gammon_trust: Option<GammonTrust>,
    /// Whether the one-sided net also answers races where a side still has a
    /// checker in the opponent's home board (`true`, the default), or
    /// the race net and its escape tables value them (`false`).
    /// Backgammon chances are the escape tables' either way.
    #[arg(long, value_name = "BOOL")]
    pub side_back_checkers: Option<bool>,
    /// One roll of lookahead over the one-sided net's first-off distribution for
    /// savers at least PIPS from home (`p - 6` for each checker outside its home
    /// board; 0: every saver the net answers for), or `off`. The default for
    /// analysis (25; rollouts, duels and workers never use it):
    /// nearer the exact searches. GNU Backgammon's bench races: 0-ply loss 0.204
    /// x1000 against 0.243 off, equity error 2.91 against 3.85; by the exact
    /// referee (`bgfarm-lab bench race-referee`) 0.067 against 0.135, where GNU Backgammon
    /// 0-ply loses 0.117. Cost: a 0-ply race hint about 4 ms instead of 1, a 2-ply
    /// one 18 times as slow (250 ms).
    #[arg(long, value_name = "PIPS|off")]
    pub side_lookahead: Option<Lookahead>,
    /// The plays of each roll the lookahead values with the net: the best K by the
    /// net's expectation linearised at the saver; 0: every play. The default, 8,
    /// is 7 times as fast as every play and chooses differently in 4 of the
    /// bench's 250 races (with --side-lookahead 0: loss 0.204 x1000 against
    /// 0.200).
    #[arg(long, value_name = "K")]
    pub side_lookahead_plays: Option<usize>,
}

/// `--side-lookahead`: from how many pips, or off.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lookahead {
    Off,
    From(u32),
}

impl std::str::FromStr for Lookahead {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "off" => Ok(Lookahead::Off),
            _ => s
                .parse()
                .map(Lookahead::From)
                .map_err(|_| format!("`{s}`: expected pips from home (0 or more) or `off`")),
        }
    }
}

pub use bgfarm_engine::eval::default_nets::ANALYSIS_LOOKAHEAD_PIPS;

impl RaceArgs {
    /// From how many pips the lookahead runs: as told, else
    /// [`ANALYSIS_LOOKAHEAD_PIPS`] wherever a one-sided net answers races.
    fn lookahead_pips(&self) -> Option<u32> {
        match self.side_lookahead {
            Some(Lookahead::Off) => None,
            Some(Lookahead::From(p)) => Some(p),
            None if self.side_net.as_deref() == Some("none") => None,
            None => Some(ANALYSIS_LOOKAHEAD_PIPS),
        }
    }

    /// The endgame layer these options ask for, or `None` when they ask for
    /// nothing beyond the default.
    pub fn endgame(&self) -> Result<Option<&'static dyn Endgame>, CliError> {
        exact_endgame(
            self.exact_gammons,
            self.exact_race,
            self.side_net.as_deref(),
            if self.side_gammons {
                Some(GammonTrust::ALL)
            } else {
                self.side_gammon_trust
            },
            self.side_back_checkers,
            self.lookahead_pips(),
            self.side_lookahead_plays,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `--side-lookahead` reads pips or `off`; when not given, the lookahead runs
    /// from [`ANALYSIS_LOOKAHEAD_PIPS`] unless races have no one-sided net.
    #[test]
    fn lookahead_defaults_and_parses() {
        assert_eq!("off".parse::<Lookahead>(), Ok(Lookahead::Off));
        assert_eq!("0".parse::<Lookahead>(), Ok(Lookahead::From(0)));
        assert_eq!("25".parse::<Lookahead>(), Ok(Lookahead::From(25)));
        for bad in ["far", "-1", "", "2.5"] {
            assert!(bad.parse::<Lookahead>().is_err(), "{bad}");
        }
        let with = |lookahead: Option<Lookahead>, net: Option<&str>| RaceArgs {
            side_lookahead: lookahead,
            side_net: net.map(str::to_string),
            ..RaceArgs::default()
        };
        assert_eq!(
            with(None, None).lookahead_pips(),
            Some(ANALYSIS_LOOKAHEAD_PIPS)
        );
        assert_eq!(with(None, Some("none")).lookahead_pips(), None);
        assert_eq!(with(Some(Lookahead::Off), None).lookahead_pips(), None);
        assert_eq!(
            with(Some(Lookahead::From(0)), None).lookahead_pips(),
            Some(0)
        );
        // Told explicitly with no one-sided net: passed on, for the layer to refuse.
        assert_eq!(
            with(Some(Lookahead::From(3)), Some("none")).lookahead_pips(),
            Some(3)
        );
    }
}
