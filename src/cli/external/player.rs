//! The external player's decisions: the best move of an n-ply search (as `bgfarm
//! hint`), and cube actions from the cubeful lookahead with Janowski's model at the
//! leaves (as `bgfarm cube`: money, or match play with the match equity table).
//!
//! Moves are ranked cubeless, like `bgfarm hint`; the cube is where the score, the
//! cube's value and owner, Crawford and the Jacoby rule come in.

use super::request::{Ask, Request};
use crate::cli::search_args::Engine;
use bgfarm_engine::cube::lookahead::Lookahead;
use bgfarm_engine::cube::{CubeDecision, CubeModel, CubeSpot};
use bgfarm_engine::eval::odds::GameOdds;
use bgfarm_engine::eval::{terminal_probs, Evaluator};
use bgfarm_engine::met::MatchEquityTable;
use bgfarm_engine::notation::format_move;
use bgfarm_engine::search::Ladder;
use std::fmt;

/// One answer line of the protocol.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// A move in GNU Backgammon's notation, in the mover's numbering (what its
    /// `move` command and its external-player reader parse). Empty when the roll
    /// cannot be played: GNU Backgammon reads an empty move as "no move".
    Move(String),
    Roll,
    Double,
    Take,
    Drop,
    Beaver,
}

impl fmt::Display for Answer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Answer::Move(m) => m,
            Answer::Roll => "roll",
            Answer::Double => "double",
            Answer::Take => "take",
            Answer::Drop => "drop",
            Answer::Beaver => "beaver",
        })
    }
}

/// How the player decides.
pub struct Settings {
    /// Chequer play: search depth and filter ladder.
    pub ply: u8,
    pub ladder: Ladder,
    /// Cubeful lookahead depth (0: Janowski on the static evaluation).
    pub cube_ply: u32,
    /// Money play under the Jacoby rule (the board line does not say).
    pub jacoby: bool,
    /// Money play: beaver when a take is worth more than the doubler's stake.
    pub beavers: bool,
    pub met: MatchEquityTable,
}

/// The engine and the settings, shared by every connection.
pub struct Player {
    pub engine: Engine,
    pub settings: Settings,
}

impl Player {
    /// The answer to `req`, or a one-line reason why there is none.
    pub fn answer(&self, req: &Request) -> Result<Answer, String> {
        if terminal_probs(&req.position).is_some() {
            return Err("the game in this position is over".into());
        }
        match req.ask {
            Ask::Move(dice) => {
                let s = &self.settings;
                let ranked = self
                    .engine
                    .rank_parallel(&req.position, dice, s.ply, &s.ladder);
                Ok(Answer::Move(
                    ranked
                        .first()
                        .map(|c| format_move(&c.mv))
                        .unwrap_or_default(),
                ))
            }
            Ask::RollOrDouble => {
                let spot = self.spot(req);
                if !spot.may_double() {
                    return Ok(Answer::Roll);
                }
                let r = Lookahead::new(&self.engine.eval, None).analyse(
                    &req.position,
                    &spot,
                    self.settings.cube_ply,
                );
                Ok(match r.decision {
                    CubeDecision::DoubleTake | CubeDecision::DoublePass => Answer::Double,
                    _ => Answer::Roll,
                })
            }
            Ask::TakeOrDrop => Ok(self.take_or_drop(req)),
        }
    }

    /// The cube situation of the player on roll.
    fn spot(&self, req: &Request) -> CubeSpot<'_> {
        match req.score {
            Some((_, score)) => CubeSpot::Match {
                cube: req.cube,
                score,
                met: &self.settings.met,
            },
            None => CubeSpot::Money {
                cube: req.cube,
                jacoby: self.settings.jacoby,
            },
        }
    }

    /// The taker's answer, from the doubler's values: take when the doubler's
    /// equity after a take (`DT`) is below that of a pass (`DP`); beaver (money, when
    /// allowed) when `DT` is even below zero, i.e. the taker is the favourite.
    fn take_or_drop(&self, req: &Request) -> Answer {
        let spot = self.spot(req);
        let r = Lookahead::new(&self.engine.eval, None).analyse(
            &req.position,
            &spot,
            self.settings.cube_ply,
        );
        let (dt, dp) = match (r.double_take, r.double_pass) {
            (Some(dt), Some(dp)) => (dt, dp),
            // The doubler was not entitled to double by our rules (a dead cube):
            // judge the take with the static model, which gives values anyway.
            _ => {
                let probs = self.engine.eval.evaluate(&req.position).sanitized();
                let odds = GameOdds::from_probs(&probs);
                let x = bgfarm_engine::cube::life::default_x(&req.position);
                let model = match spot {
                    CubeSpot::Match { .. } => CubeModel::JanowskiMatch { x },
                    CubeSpot::Money { .. } => CubeModel::JanowskiMoney { x },
                };
                return if model.takes(&odds, &spot) {
                    Answer::Take
                } else {
                    Answer::Drop
                };
            }
        };
        if dt > dp {
            Answer::Drop
        } else if self.settings.beavers && req.score.is_none() && dt < 0.0 {
            Answer::Beaver
        } else {
            Answer::Take
        }
    }
}
