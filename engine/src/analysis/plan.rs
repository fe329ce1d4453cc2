//! An analysis plan: a match, the search settings, and the evaluation of each of
//! its units ([`super::units`]), the one function the command line and the
//! workers run, so that a cluster analysis equals the embedded one bit for bit.

use super::luck::{roll_luck, Roll, RollLuck};
use super::rate::{self, Rated};
use super::units::{decisions, rolls, setting_at, Decision, Kind};
use super::Analyst;
use crate::matchfile::{ActionKind, Match};
use crate::met::{MatchEquityTable, MetError};
use crate::search::Ladder;

/// The rating of one decision.
#[derive(Clone, Debug, PartialEq)]
pub struct Rating {
    pub rated: Rated,
    /// A chequer play with one legal choice.
    pub forced: bool,
    /// Counted in the statistics (chequer plays always; cube actions see
    /// [`rate::cube`]).
    pub counted: bool,
}

/// What one unit of an analysis gives.
#[derive(Clone, Debug, PartialEq)]
pub enum UnitResult {
    Decision(Rating),
    Roll(RollLuck),
}

/// A match to analyse and how.
pub struct AnalysisPlan<'m> {
    pub m: &'m Match,
    /// Search depth of chequer plays and of the cubeful lookahead.
    pub ply: u8,
    pub ladder: Ladder,
    /// Search depth (and ladder) at which the best play of each roll is chosen for
    /// its luck.
    pub luck_ply: u8,
    pub luck_ladder: Ladder,
    /// The match equity table of a match (`None` in money play).
    pub met: Option<&'m MatchEquityTable>,
    pub decisions: Vec<Decision<'m>>,
    pub rolls: Vec<Roll>,
}

impl<'m> AnalysisPlan<'m> {
    /// The plan of `m`; an error when a game's score is not one the table covers.
    pub fn new(
        m: &'m Match,
        (ply, ladder): (u8, Ladder),
        (luck_ply, luck_ladder): (u8, Ladder),
        met: Option<&'m MatchEquityTable>,
    ) -> Result<AnalysisPlan<'m>, MetError> {
        Ok(AnalysisPlan {
            m,
            ply,
            ladder,
            luck_ply,
            luck_ladder,
            met,
            decisions: decisions(m),
            rolls: rolls(m)?,
        })
    }

    /// Units: every decision, then every roll.
    pub fn units(&self) -> u64 {
        (self.decisions.len() + self.rolls.len()) as u64
    }

    /// Whether unit `i` is a cube decision (the command line runs those one per
    /// task; a chequer play parallelises inside its ranking).
    pub fn is_cube(&self, i: u64) -> bool {
        self.decisions
            .get(i as usize)
            .is_some_and(|d| d.kind != Kind::Chequer)
    }

    /// Evaluates unit `i` (`i` < [`AnalysisPlan::units`]).
    pub fn run<A: Analyst + ?Sized>(&self, engine: &A, i: u64) -> Result<UnitResult, MetError> {
        let i = i as usize;
        if let Some(d) = self.decisions.get(i) {
            return self.rate(engine, d).map(UnitResult::Decision);
        }
        let r = self
            .rolls
            .get(i - self.decisions.len())
            .ok_or_else(|| MetError::new(format!("no unit {i} in this analysis")))?;
        let luck = (self.luck_ply, &self.luck_ladder);
        Ok(UnitResult::Roll(roll_luck(engine, r, luck, self.met)))
    }

    fn rate<A: Analyst + ?Sized>(&self, engine: &A, d: &Decision<'_>) -> Result<Rating, MetError> {
        let a = d.action;
        let set = setting_at(self.m, d.game, a)?;
        match (d.kind, a.kind) {
            (
                Kind::Chequer,
                ActionKind::Move {
                    dice,
                    played: Some(mv),
                },
            ) => {
                let search = (self.ply, &self.ladder);
                let r = rate::chequer(engine, &a.position, dice, &mv, search, &set, self.met);
                Ok(Rating {
                    forced: r.error.is_none(),
                    rated: r,
                    counted: true,
                })
            }
            (Kind::Cube(choice), _) => {
                let plies = u32::from(self.ply);
                let r = rate::cube(engine, &a.position, choice, plies, &set, self.met);
                Ok(Rating {
                    rated: r.rated,
                    forced: false,
                    counted: r.counted,
                })
            }
            _ => Err(MetError::new(
                "a chequer decision without a play".to_string(),
            )),
        }
    }
}
