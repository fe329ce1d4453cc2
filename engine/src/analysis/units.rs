//! A match cut into the units of its analysis, in a fixed order: first every
//! decision (each roll played is a chequer decision; before each roll but a
//! game's first, the cube decision of the player on roll unless they were just
//! doubled and took; every double, take and drop), then every roll a player got
//! (its luck). Units are what a cluster analysis leases: the command line and the
//! workers enumerate the same file the same way, so unit `i` is the same decision
//! everywhere.

use super::rate::CubeChoice;
use super::{luck::Roll, Setting};
use crate::cube::{Cube, Owner};
use crate::ids::match_id::{CubeOwner, MatchState};
use crate::ids::position_id;
use crate::matchfile::{Action, ActionKind, CubeState, Game, Match};
use crate::met::{MatchScore, MetError};

/// What a decision was about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Chequer,
    Cube(CubeChoice),
}

/// A decision found in the file, not yet evaluated.
#[derive(Clone, Copy, Debug)]
pub struct Decision<'a> {
    pub game: &'a Game,
    pub action: &'a Action,
    /// 1-based roll of the game the decision belongs to (a cube action: the roll it
    /// came before).
    pub move_no: u32,
    pub kind: Kind,
}

/// The decisions of a match in order.
pub fn decisions(m: &Match) -> Vec<Decision<'_>> {
    let mut out = Vec::new();
    for game in &m.games {
        let mut rolls = 0u32;
        let mut previous: Option<&Action> = None;
        for a in &game.actions {
            let kind = match a.kind {
                ActionKind::Move { .. } | ActionKind::Rolled { .. } => {
                    let after_take = previous.is_some_and(|p| p.kind == ActionKind::Take);
                    if rolls > 0 && !after_take {
                        out.push(Decision {
                            game,
                            action: a,
                            move_no: rolls + 1,
                            kind: Kind::Cube(CubeChoice::NoDouble),
                        });
                    }
                    rolls += 1;
                    let is_play = matches!(
                        a.kind,
                        ActionKind::Move {
                            played: Some(_),
                            ..
                        }
                    );
                    is_play.then_some(Kind::Chequer)
                }
                ActionKind::Double => Some(Kind::Cube(CubeChoice::Double)),
                ActionKind::Take => Some(Kind::Cube(CubeChoice::Take)),
                ActionKind::Drop => Some(Kind::Cube(CubeChoice::Drop)),
            };
            if let Some(kind) = kind {
                let move_no = if kind == Kind::Chequer {
                    rolls
                } else {
                    rolls + 1
                };
                out.push(Decision {
                    game,
                    action: a,
                    move_no,
                    kind,
                });
            }
            previous = Some(a);
        }
    }
    out
}

/// The player on roll at an action: the actor, except for a take or drop (the
/// doubler is on roll).
pub fn on_roll(a: &Action) -> u8 {
    match a.kind {
        ActionKind::Take | ActionKind::Drop => 1 - a.player,
        _ => a.player,
    }
}

/// The cube and score of an action, seen by the player on roll.
pub fn setting_at(m: &Match, game: &Game, a: &Action) -> Result<Setting, MetError> {
    setting_of(m, game.score, game.crawford, a.cube, on_roll(a))
}

/// The cube and score seen by player `me` in a game of `m` that started at `score`
/// (player 0 first), the cube at `cube`.
pub fn setting_of(
    m: &Match,
    score: [u32; 2],
    crawford: bool,
    cube: CubeState,
    me: u8,
) -> Result<Setting, MetError> {
    let cube = Cube {
        value: cube.value,
        owner: match cube.owner {
            None => Owner::Centred,
            Some(o) if o == me => Owner::Mover,
            Some(_) => Owner::Opponent,
        },
    };
    let score = if m.length > 0 {
        let away = m.length.saturating_sub(score[me as usize]);
        let opp = m.length.saturating_sub(score[1 - me as usize]);
        let crawford = crawford && (away == 1) != (opp == 1);
        Some((m.length, MatchScore::new(away, opp, crawford)?))
    } else {
        None
    };
    Ok(Setting {
        cube,
        score,
        jacoby: m.jacoby,
    })
}

/// Every roll of the match (played or not; a roll left unplayed by a resignation is
/// not one), numbered as the decisions are.
pub fn rolls(m: &Match) -> Result<Vec<Roll>, MetError> {
    let mut out = Vec::new();
    for game in &m.games {
        let mut n = 0u32;
        for a in &game.actions {
            match a.kind {
                ActionKind::Move { dice, .. } => {
                    n += 1;
                    out.push(Roll {
                        game: game.number,
                        move_no: n,
                        player: a.player,
                        position: a.position,
                        dice,
                        set: setting_at(m, game, a)?,
                        opening: n == 1,
                    });
                }
                ActionKind::Rolled { .. } => n += 1,
                _ => {}
            }
        }
    }
    Ok(out)
}

/// `POSITION:MATCH` of a decision, the form `bgfarm hint` and `bgfarm cube` read.
pub fn gnubg_id(m: &Match, d: &Decision<'_>, dice: Option<(u8, u8)>) -> String {
    let a = d.action;
    let pos = position_id::encode(&a.position);
    let state = MatchState {
        cube: a.cube.value,
        cube_owner: a.cube.owner.map_or(CubeOwner::Centered, CubeOwner::Player),
        dice_owner: on_roll(a),
        crawford: d.game.crawford,
        turn: a.player,
        doubled: matches!(a.kind, ActionKind::Take | ActionKind::Drop),
        dice: if d.kind == Kind::Chequer { dice } else { None },
        match_length: m.length,
        score: d.game.score,
        ..MatchState::default()
    };
    match state.validate() {
        Ok(()) => format!("{pos}:{}", state.encode()),
        Err(_) => pos,
    }
}
