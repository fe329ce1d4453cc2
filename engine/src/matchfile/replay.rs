//! Replaying a game as a reader reads it: whose turn it is, the board, the cube,
//! and the rules every action must obey. Both readers feed their actions here, so
//! the checks (a legal play of the dice, turns alternating, doubles only with cube
//! access and answered before the next roll, nothing after the game is over) are
//! written once and both formats produce identical actions for the same game.

use super::{Action, ActionKind, CubeState, Game, GameEnd, MatchFileError};
use crate::dice::Dice;
use crate::movegen::{Move, MoveGenerator};
use crate::notation::{format_move, parse_move};
use crate::position::{Position, BAR, OPP_BAR};

/// A play as a file writes it.
pub enum Played<'a> {
    /// Checker steps `(from, to)` in the mover's numbering (25 = bar, 0 = off), one
    /// per die, as GNU Backgammon's SGF stores them.
    Steps(&'a [(u8, u8)]),
    /// Move notation (`13/8 6/5*`, `25/22`, `6/0`), as match text writes it.
    Text(&'a str),
}

/// What a game needs to know of its match: the score at its start and whether it
/// is the Crawford game (no doubles). Doubling a cube that is dead for the doubler
/// is pointless but legal, so it is not refused.
#[derive(Clone, Copy, Debug)]
pub struct Rules {
    pub crawford: bool,
    pub score: [u32; 2],
}

/// A game being read.
pub struct Replay {
    rules: Rules,
    game: Game,
    /// The board seen by `turn`; the opening position until the first roll.
    pos: Position,
    /// The player to act next; `None` until the first roll says who starts.
    turn: Option<u8>,
    cube: CubeState,
    /// A double not yet answered: the doubler.
    pending: Option<u8>,
    /// Set once the game has ended or a roll went unplayed: no more actions.
    closed: bool,
    gen: MoveGenerator,
}

fn other(p: u8) -> u8 {
    1 - p
}

impl Replay {
    pub fn new(number: u32, rules: Rules) -> Replay {
        Replay {
            rules,
            game: Game {
                number,
                score: rules.score,
                crawford: rules.crawford,
                actions: Vec::new(),
                end: None,
            },
            pos: Position::STARTING,
            turn: None,
            cube: CubeState::INITIAL,
            pending: None,
            closed: false,
            gen: MoveGenerator::new(),
        }
    }

    fn check_open(&self, line: usize) -> Result<(), MatchFileError> {
        if self.game.end.is_some() || self.closed {
            return Err(MatchFileError::new(
                line,
                format!("game {} is already over", self.game.number),
            ));
        }
        Ok(())
    }

    fn check_turn(&self, line: usize, player: u8) -> Result<(), MatchFileError> {
        match self.turn {
            Some(t) if t != player => Err(MatchFileError::new(
                line,
                format!("player {player} acts out of turn (player {t} is on roll)"),
            )),
            _ => Ok(()),
        }
    }

    fn push(&mut self, line: usize, player: u8, kind: ActionKind) {
        self.game.actions.push(Action {
            line,
            player,
            position: self.pos,
            cube: self.cube,
            kind,
        });
    }

    /// `player` rolls `dice` and plays `played` (nothing: the roll could not be
    /// played, or it was left unplayed when the game ended on a resignation).
    pub fn roll(
        &mut self,
        line: usize,
        player: u8,
        dice: Dice,
        played: Played<'_>,
    ) -> Result<(), MatchFileError> {
        self.check_open(line)?;
        self.check_turn(line, player)?;
        if let Some(d) = self.pending {
            return Err(MatchFileError::new(
                line,
                format!(
                    "a roll before player {} answered player {d}'s double",
                    other(d)
                ),
            ));
        }
        self.turn = Some(player);
        let legal_count = self.gen.generate(&self.pos, dice).len();
        let found = match played {
            Played::Steps([]) => None,
            Played::Text(t) if t.trim().is_empty() => None,
            Played::Steps(steps) => Some(self.find_steps(line, dice, steps)?),
            Played::Text(t) => Some(
                parse_move(&self.pos, dice, t)
                    .map_err(|e| MatchFileError::new(line, e.message().to_string()))?,
            ),
        };
        match found {
            None if legal_count > 0 => {
                // Rolled but not played: only the end of a game (a resignation) may
                // follow.
                self.push(line, player, ActionKind::Rolled { dice });
                self.closed = true;
                return Ok(());
            }
            None => {
                self.push(line, player, ActionKind::Move { dice, played: None });
                self.pos = self.pos.switch_sides();
            }
            Some(m) => {
                self.push(
                    line,
                    player,
                    ActionKind::Move {
                        dice,
                        played: Some(m),
                    },
                );
                self.pos = m.next_position();
                if self.pos.opponent_checkers() == 0 {
                    let points = self.cube.value * self.bore_off_multiplier();
                    self.game.end = Some(GameEnd::BoreOff {
                        winner: player,
                        points,
                    });
                }
            }
        }
        self.turn = Some(other(player));
        Ok(())
    }

    /// 1, 2 or 3 for the game the player who just moved won (`self.pos` is the
    /// loser's view); gammons count once a cube was turned under the Jacoby rule,
    /// which readers apply by passing the stated points through [`Replay::end`].
    fn bore_off_multiplier(&self) -> u32 {
        let p = self.pos.pips();
        if self.pos.mover_off() > 0 {
            1
        } else if (19..=BAR).any(|i| p[i] > 0) {
            3
        } else {
            2
        }
    }

    /// The legal move whose steps are `steps`.
    fn find_steps(
        &mut self,
        line: usize,
        dice: Dice,
        steps: &[(u8, u8)],
    ) -> Result<Move, MatchFileError> {
        let mut b = *self.pos.pips();
        let text = steps
            .iter()
            .map(|&(f, t)| format!("{f}/{t}"))
            .collect::<Vec<_>>()
            .join(" ");
        let bad = |why: &str| {
            MatchFileError::new(line, format!("illegal move {text} with {dice}: {why}"))
        };
        for &(from, to) in steps {
            if from == 0 || from > 25 || to > 24 || to >= from {
                return Err(bad("a step goes nowhere"));
            }
            if b[from as usize] <= 0 {
                return Err(bad(&format!("no checker on {from}")));
            }
            b[from as usize] -= 1;
            if to > 0 {
                match b[to as usize] {
                    -1 => {
                        b[to as usize] = 1;
                        b[OPP_BAR] -= 1;
                    }
                    n if n < -1 => return Err(bad(&format!("point {to} is blocked"))),
                    _ => b[to as usize] += 1,
                }
            }
        }
        let legal = self.gen.generate(&self.pos, dice);
        legal
            .iter()
            .find(|m| *m.result().pips() == b)
            .copied()
            .ok_or_else(|| bad(&format!("not one of the {} legal moves", legal.len())))
    }

    /// `player` doubles.
    pub fn double(&mut self, line: usize, player: u8) -> Result<(), MatchFileError> {
        self.check_open(line)?;
        self.check_turn(line, player)?;
        if self.turn.is_none() {
            return Err(MatchFileError::new(
                line,
                "a double before the opening roll",
            ));
        }
        if self.pending.is_some() {
            return Err(MatchFileError::new(
                line,
                "a double before the last was answered",
            ));
        }
        if self.cube.owner == Some(other(player)) {
            return Err(MatchFileError::new(
                line,
                format!("player {player} doubles a cube the opponent owns"),
            ));
        }
        if self.rules.crawford {
            return Err(MatchFileError::new(line, "a double in the Crawford game"));
        }
        self.push(line, player, ActionKind::Double);
        self.pending = Some(player);
        Ok(())
    }

    /// `player` answers the pending double: takes (`true`) or passes.
    pub fn answer(&mut self, line: usize, player: u8, take: bool) -> Result<(), MatchFileError> {
        self.check_open(line)?;
        match self.pending {
            Some(d) if d == other(player) => {}
            _ => {
                return Err(MatchFileError::new(
                    line,
                    format!(
                        "player {player} {} without a double to answer",
                        if take { "takes" } else { "drops" }
                    ),
                ))
            }
        }
        let doubler = other(player);
        self.pending = None;
        // The answer is recorded with the doubler's view of the board.
        self.game.actions.push(Action {
            line,
            player,
            position: self.pos,
            cube: self.cube,
            kind: if take {
                ActionKind::Take
            } else {
                ActionKind::Drop
            },
        });
        if take {
            self.cube = CubeState {
                value: self.cube.value * 2,
                owner: Some(player),
            };
        } else {
            self.game.end = Some(GameEnd::Dropped {
                winner: doubler,
                points: self.cube.value,
            });
        }
        Ok(())
    }

    /// The file states the result: `winner` won `points`. Checks it against a game
    /// that ended on the board or by a drop; otherwise the game ended by resignation.
    pub fn end(&mut self, line: usize, winner: u8, points: u32) -> Result<(), MatchFileError> {
        match self.game.end {
            Some(e) => {
                let (w, p) = e.winner_points();
                if w != winner {
                    return Err(MatchFileError::new(
                        line,
                        format!("the result names player {winner} but player {w} won"),
                    ));
                }
                if p != points {
                    // The Jacoby rule (money) and files that cap the points at the
                    // match length say fewer; trust the file's points.
                    self.game.end = Some(match e {
                        GameEnd::BoreOff { .. } => GameEnd::BoreOff { winner, points },
                        GameEnd::Dropped { .. } => GameEnd::Dropped { winner, points },
                        GameEnd::Resigned { .. } => GameEnd::Resigned { winner, points },
                    });
                }
            }
            None => {
                if self.pending.is_some() {
                    return Err(MatchFileError::new(
                        line,
                        "the game ends while a double is unanswered",
                    ));
                }
                if points == 0 || points > 3 * self.cube.value {
                    return Err(MatchFileError::new(
                        line,
                        format!(
                            "a resignation of {points} points with the cube on {}",
                            self.cube.value
                        ),
                    ));
                }
                self.game.end = Some(GameEnd::Resigned { winner, points });
            }
        }
        Ok(())
    }

    /// The game read so far (its `end` is `None` when the file stops inside it,
    /// which the `.mat` reader refuses and the SGF reader allows for the last game
    /// of a match saved in progress).
    pub fn finish(self) -> Game {
        self.game
    }

    /// Game number, for messages.
    pub fn number(&self) -> u32 {
        self.game.number
    }
}

/// A move's notation for messages and reports.
pub fn notation(m: &Option<Move>) -> String {
    m.as_ref()
        .map_or_else(|| "cannot move".to_string(), format_move)
}
