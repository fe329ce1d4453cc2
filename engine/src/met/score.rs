//! A match score seen from the player on roll, and the table look-ups the cube
//! formulas make from it.

use super::{MatchEquity, MetError, MAX_AWAY};

/// Points each player still needs, from the view of the player on roll, and whether
/// this game is the Crawford game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MatchScore {
    /// Points the player on roll needs (>= 1).
    pub away: u32,
    /// Points the opponent needs (>= 1).
    pub opp_away: u32,
    /// This game is the Crawford game: the first game after a player reached 1-away.
    pub crawford: bool,
}

impl MatchScore {
    /// A checked score: both distances in `1..=MAX_AWAY`, and the Crawford flag only
    /// when exactly one player is 1-away.
    pub fn new(away: u32, opp_away: u32, crawford: bool) -> Result<MatchScore, MetError> {
        for (who, n) in [("player on roll", away), ("opponent", opp_away)] {
            if !(1..=MAX_AWAY).contains(&n) {
                return Err(MetError::new(format!(
                    "the {who} needs {n} points; match play is supported from 1- to \
                     {MAX_AWAY}-away"
                )));
            }
        }
        if crawford && (away == 1) == (opp_away == 1) {
            return Err(MetError::new(format!(
                "a Crawford game needs exactly one player 1-away, not {away}-away vs \
                 {opp_away}-away"
            )));
        }
        Ok(MatchScore {
            away,
            opp_away,
            crawford,
        })
    }

    /// The same score seen by the opponent.
    #[must_use]
    pub fn flip(&self) -> MatchScore {
        MatchScore {
            away: self.opp_away,
            opp_away: self.away,
            crawford: self.crawford,
        }
    }

    /// A post-Crawford game: a player is 1-away and the Crawford game is behind.
    pub fn is_post_crawford(&self) -> bool {
        !self.crawford && (self.away == 1 || self.opp_away == 1)
    }

    /// MWC of the player on roll now, before this game.
    pub fn mwc<M: MatchEquity + ?Sized>(&self, met: &M) -> f64 {
        if self.is_post_crawford() {
            post_crawford_mwc(met, self.away, self.opp_away)
        } else {
            met.pre_crawford(self.away, self.opp_away)
        }
    }

    /// MWC of the player on roll once this game is over: won by them when `won`,
    /// for `points` points (cube value times 1, 2 or 3).
    ///
    /// After a game in which a player was already 1-away (the Crawford game or a
    /// post-Crawford one) the next game is post-Crawford; otherwise it is read from
    /// the pre-Crawford table, whose 1-away entries are the Crawford game.
    pub fn mwc_after<M: MatchEquity + ?Sized>(&self, met: &M, won: bool, points: u32) -> f64 {
        let (mut a, mut b) = (self.away, self.opp_away);
        if won {
            if points >= a {
                return 1.0;
            }
            a -= points;
        } else {
            if points >= b {
                return 0.0;
            }
            b -= points;
        }
        if self.crawford || self.away == 1 || self.opp_away == 1 {
            post_crawford_mwc(met, a, b)
        } else {
            met.pre_crawford(a, b)
        }
    }

    /// True when the player on roll may not double a cube of `cube`: in the Crawford
    /// game, or when the cube is dead for them (winning `cube` points already wins the
    /// match, so a double would only give the opponent a free redouble).
    pub fn cube_dead_for_mover(&self, cube: u32) -> bool {
        self.crawford || self.away <= cube
    }

    /// True when neither player can gain from doubling a cube of `cube`, so the game
    /// is worth its cubeless MWC (GNU Backgammon's `fDoCubeful` false): the Crawford
    /// game, both players within `cube` of winning, or 2-away/2-away (the first
    /// double settles the match, so the cube has no further life).
    pub fn cubeless_only(&self, cube: u32) -> bool {
        self.crawford
            || (self.away <= cube && self.opp_away <= cube)
            || (self.away == 2 && self.opp_away == 2)
    }
}

/// Post-Crawford MWC of a player needing `a` against one needing `b` (one of them 1).
fn post_crawford_mwc<M: MatchEquity + ?Sized>(met: &M, a: u32, b: u32) -> f64 {
    if a == 1 {
        1.0 - met.post_crawford(b)
    } else {
        met.post_crawford(a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::met::MatchEquityTable;

    #[test]
    fn validation() {
        assert!(MatchScore::new(0, 3, false).is_err());
        assert!(MatchScore::new(3, 65, false).is_err());
        assert!(MatchScore::new(3, 2, true).is_err());
        assert!(MatchScore::new(1, 1, true).is_err());
        assert!(MatchScore::new(1, 4, true).is_ok());
    }

    #[test]
    fn lookups_follow_the_crawford_rule() {
        let met = MatchEquityTable::kazaross_xg2();
        // 2-away vs 3-away; a single win reaches the Crawford game at 1-away/3-away.
        let s = MatchScore::new(2, 3, false).unwrap();
        assert_eq!(s.mwc(&met), 0.59947);
        assert_eq!(s.mwc_after(&met, true, 1), 0.75076);
        assert_eq!(s.mwc_after(&met, true, 2), 1.0);
        assert!((s.mwc_after(&met, false, 2) - (1.0 - 0.67736)).abs() < 1e-12);
        assert_eq!(s.mwc_after(&met, false, 3), 0.0);
        // The Crawford game at 1-away/3-away: losing one point leads post-Crawford
        // to 1-away/2-away.
        let c = MatchScore::new(1, 3, true).unwrap();
        assert_eq!(c.mwc(&met), 0.75076);
        assert!((c.mwc_after(&met, false, 1) - (1.0 - 0.48803)).abs() < 1e-12);
        // Post-Crawford, trailing 4-away.
        let p = MatchScore::new(4, 1, false).unwrap();
        assert!(p.is_post_crawford());
        assert_eq!(p.mwc(&met), 0.31002);
        assert_eq!(p.mwc_after(&met, true, 2), 0.48803);
        assert!((p.flip().mwc(&met) - (1.0 - 0.31002)).abs() < 1e-12);
    }

    #[test]
    fn dead_cubes() {
        let s = MatchScore::new(2, 4, false).unwrap();
        assert!(!s.cube_dead_for_mover(1));
        assert!(s.cube_dead_for_mover(2));
        assert!(!s.cubeless_only(2));
        assert!(s.cubeless_only(4));
        assert!(MatchScore::new(2, 2, false).unwrap().cubeless_only(1));
        assert!(MatchScore::new(1, 5, true).unwrap().cubeless_only(1));
    }
}
